#!/usr/bin/env bash
# datapaths: tc
# A BPDU flood on a port of the skb (TC) path costs the daemon bounded
# work. A packet socket sees a frame before the clsact ingress program, so
# the datapath's link-local limit can't spare the daemon's BPDU socket;
# its own filter (xdpbr_bpdu_sock) holds it to the same limit in the
# kernel, before the daemon wakes, and counts what it refuses as
# bpdu_socket_limit on the port.
# Bridge A (root, priority 4096) has h1's port, the link to bridge B (h2
# on it) and a port R where this test floods inferior RST BPDUs back to
# back from RP. During the flood: B starts and the tree converges (B's
# root port and A's designated port forward), h1 pings h2, A's daemon
# takes less than FLOOD_CPU_MAX percent of a CPU (utime + stime from
# /proc over the flood), and R's bpdu_socket_limit counts the excess: at
# least what was sent beyond what the limit lets through.
# shellcheck disable=SC2317 # functions run through check
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
# shellcheck source=stp_lib.sh
. "$(dirname "$0")/stp_lib.sh"

FLOOD_S=8		# seconds the flood lasts
FLOOD_CPU_MAX=10	# percent of one CPU A's daemon may take during it
LL_PPS=100		# linklocal_limit's default
BPDU_DST=01:80:c2:00:00:00
RMAC=02:00:05:$(printf '%02x:%02x' $((ID >> 8)) $((ID & 255))):01

# cpu_ticks PID: its utime + stime, in clock ticks (fields 14 and 15 of
# /proc/PID/stat, counted after the command's closing parenthesis).
cpu_ticks()
{
	local s
	s=$(cat "/proc/$1/stat") || return 1
	s=${s##*) }
	awk '{ print $12 + $13 }' <<<"$s"
}

# tx_of LINK: frames LINK sent.
tx_of()
{
	cat "/sys/class/net/$1/statistics/tx_packets"
}

xt_require
XT_HOSTIF=off
topo_up 2
L1A=xt${ID}l1a L1B=xt${ID}l1b R=xt${ID}r RP=xt${ID}rp
stp_link "$L1A" "$L1B" || abort "veth $L1A-$L1B"
stp_link "$R" "$RP" || abort "veth $R-$RP"
ethtool -K "$RP" gro on >/dev/null 2>&1
CONF1=$XT_TMP/a.conf
CONF2=$XT_TMP/b.conf
STP_LINK_EDGE=off stp_bridge_conf "$CONF1" "$BR" 4096 "${PORT[1]}" "$L1A"
printf '[port %s]\n' "$R" >>"$CONF1"
STP_LINK_EDGE=off stp_bridge_conf "$CONF2" "$BR2" 32768 "${PORT[2]}" "$L1B"
pfx_daemon_start 3 -c "$CONF1" || abort "xdpbrd A" "$XT_WHY"
check "A: R forwards (an edge port until it hears a BPDU)" xt_poll 10 \
	stp_roles_is "$BR" "$R:designated/forwarding"
check_eq "A: linklocal_limit $LL_PPS (the default)" "$LL_PPS" "$(bridge_field linklocal_limit)"
check "A: R runs the skb path" test "$(port_tc "$R")" != null

# An RST BPDU of a bridge worse than A (priority 0xf000): R stays
# designated, and each one is work for the daemon that reads it.
PL=$(printf '000002020cf000%s%08x' "${RMAC//:/}" 0)
PL+=$(printf 'f000%s8001%04x%04x%04x%04x00' "${RMAC//:/}" 0 $((20 * 256)) 256 $((15 * 256)))
HEX="${BPDU_DST//:/}${RMAC//:/}$(printf '%04x' $((3 + ${#PL} / 2)))424203$PL"
while [ ${#HEX} -lt 120 ]; do
	HEX+=00
done

LIM0=$(port_counter "$R" bpdu_socket_limit) || LIM0=
TX0=$(tx_of "$RP")
"$SENDFRAME" -c 100000000 "$RP" "$HEX" >/dev/null 2>&1 &
FLOOD=$!
XT_PIDS+=("$FLOOD")
sleep 1				# the flood at full rate
C0=$(cpu_ticks "$DAEMON_PID")
T0=${EPOCHREALTIME/./}
stp_br2_start -c "$CONF2" || fail "xdpbrd B during the flood" "$XT_WHY"
if T=$(stp_time_until 20 stp_roles_is "$BR2" "$L1B:root/forwarding"); then
	pass "during the flood: B's root port $L1B forwards ($T s after B started)"
else
	fail "during the flood: B's root port $L1B forwards within 20 s" "$(stp_show "$BR2")"
fi
check "during the flood: A's $L1A designated and forwarding" \
	xt_poll 10 stp_roles_is "$BR" "$L1A:designated/forwarding"
check "during the flood: A is B's root" \
	test "$(stp_show "$BR2" | jq -r .root_id)" = "$(stp_show "$BR" | jq -r .bridge_id)"
check "during the flood: h1 pings h2" xt_poll 5 hping 1 2
while ((${EPOCHREALTIME/./} - T0 < FLOOD_S * 1000000)); do
	sleep 0.2
done
C1=$(cpu_ticks "$DAEMON_PID")
T1=${EPOCHREALTIME/./}
proc_alive "$FLOOD" || fail "the flood ran all along (sendframe ended early)"
stop_pid "$FLOOD" TERM 3
TX1=$(tx_of "$RP")
SENT=$((TX1 - TX0))
SECS=$(((T1 - T0) / 1000000 + 2))	# the flood ran about 1 s more than measured
HZ=$(getconf CLK_TCK)
CPU=$(awk -v c=$((C1 - C0)) -v hz="$HZ" -v d=$((T1 - T0)) \
	'BEGIN { printf "%.1f", 100 * c / hz / (d / 1e6) }')
echo "# flood: $SENT BPDUs sent on $RP in about $SECS s" \
	"($((SENT / SECS)) a second); A's daemon took $CPU% of a CPU over $(((T1 - T0) / 1000000)) s" \
	"(load $(cut -d' ' -f1 /proc/loadavg))"
check "the flood is one: more than 20 times the limit a second ($((SENT / SECS)))" \
	test $((SENT / SECS)) -gt $((20 * LL_PPS))
check "A's daemon took at most $FLOOD_CPU_MAX% of a CPU during the flood ($CPU%)" \
	awk -v c="${CPU:-100}" -v m="$FLOOD_CPU_MAX" 'BEGIN { exit !(c <= m) }'

# What the limit lets through: a bucket of a second's worth and its
# refill, on each CPU. Everything beyond is refused and counted.
LIM1=$(port_counter "$R" bpdu_socket_limit)
LIMITED=$((${LIM1:-0} - ${LIM0:-0}))
MOST=$(($(nproc) * LL_PPS * (SECS + 1)))
echo "# R: bpdu_socket_limit +$LIMITED of $SENT sent (at most $MOST let through)"
check "R's bpdu_socket_limit: at least what was sent beyond the limit ($LIMITED >= $SENT - $MOST)" \
	test "$LIMITED" -ge $((SENT - MOST))
check "R's bpdu_socket_limit: no more than was sent ($LIMITED <= $SENT)" \
	test "$LIMITED" -le "$SENT"
check "R's bpdu_socket_limit in /metrics' names (xdpbr stats)" \
	bash -c '"$1" -b "$2" stats dev "$3" | grep -q bpdu_socket_limit' _ "$XDPBR" "$BR" "$R"
check "after the flood: B's root port still forwards" stp_roles_is "$BR2" "$L1B:root/forwarding"
check "after the flood: h1 pings h2" xt_poll 5 hping 1 2
finish

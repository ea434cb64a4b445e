#!/usr/bin/env bash
# Hostile and broken BPDUs cost little and change nothing they should not.
# Bridge A (root, priority 4096; hello 1, max_age 6, forward_delay 4) has
# 63 ports and 1,000,000 FDB entries: h1's port (edge), the link to bridge
# B (h2 on it), a port R where this test plays a hostile neighbour, and 60
# more, not edge, with nobody behind them. The entries are on R, so every
# walk of the FDB reads them all and none goes (each walk: about 0.3 s).
#   a. A TCN burst: 300 TCN BPDUs on R within a second, while h1 pings h2
#      every 20 ms across the link. One topology change a second at most
#      (R detects one and the TCNs announce it: a change lasts hello_time
#      + 1 s), one walk of the FDB per change for the 61 ports it flushes,
#      in steps: the daemon's heartbeat never waits, so the link
#      stays forwarding (sampled every 0.1 s), at most 5 pings go (what
#      one flush costs; before this, each TCN flushed 61 ports with a walk
#      each: the daemon stalled for minutes, the datapath's timeout ran
#      out and blocked the link), the daemon takes a CLI request within a
#      second, tc_in counts what it heard, the log has one topology change
#      line.
#   b. Aged BPDUs: a priority-0 RST BPDU with message age 20 s, max age 20
#      s, on R and on B's root port: dropped, counted (aged_bpdus), the root
#      stays A.
#   c. Rogue timers: A's own BPDU, replayed on B's root port every 0.1 s for
#      a second with max age, hello and forward delay 255 s: the root stays
#      A, B takes the times clamped to 40, 10 and 30 s (clamped_bpdus
#      counted; A's hellos put them back every second), and B's dead-daemon
#      timeout stays 2 s (its own hello + 1), where the 255 s once went.
# shellcheck disable=SC2016,SC2317 # jq variables in single quotes; functions run through check
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
# shellcheck source=stp_lib.sh
. "$(dirname "$0")/stp_lib.sh"

NFILL=60
ENTRIES=1000000
FDBFILL=$XT_BUILD/tools/fdbfill
BPDU_DST=01:80:c2:00:00:00
RMAC=02:00:04:$(printf '%02x:%02x' $((ID >> 8)) $((ID & 255))):01

# bpdu SRC LLCPAYLOAD: hex of a BPDU frame (802.3 length, LLC 42 42 03).
bpdu()
{
	local pl=$2 len
	len=$(printf '%04x' $((3 + ${#pl} / 2)))
	local hex="${BPDU_DST//:/}${1//:/}${len}424203${pl}"
	while [ ${#hex} -lt 120 ]; do
		hex+=00
	done
	echo "$hex"
}

# rst ROOT_ID COST BRIDGE_ID PORT AGE MAXAGE HELLO FWD: an RST BPDU's LLC
# payload: protocol 0, version 2, type 2, flags 0x0c (designated), the
# priority vector (ids: 16 hex digits, the port 4), times in seconds, the
# version 1 length 0.
rst()
{
	printf '000002020c%s%08x%s%s%04x%04x%04x%04x00' "$1" "$2" "$3" "$4" $(($5 * 256)) \
		$(($6 * 256)) $(($7 * 256)) $(($8 * 256))
}

# id_hex BRIDGE: its bridge id as stp show has it (8000.02:...), in hex.
id_hex()
{
	stp_show "$1" | jq -r .bridge_id | tr -d '.:'
}

# a_field KEY: A's stp show KEY.
a_field()
{
	stp_show "$BR" | jq -r --arg k "$1" '.[$k]'
}

# beat_timeout BRIDGE: the dead-daemon timeout of its heartbeat, seconds.
beat_timeout()
{
	bpftool -j map dump pinned "$PIN_ROOT/$1/xdpbr_stp_beat" |
		jq -r '.[0].formatted.value.timeout_ns / 1e9'
}

xt_require
command -v bpftool >/dev/null || abort "bpftool not installed (run make deps)"
[ -x "$FDBFILL" ] || abort "$FDBFILL not built (make check-bins)"
XT_HOSTIF=off		# 63 ports: all of them the bridge's
topo_up 2
XT_CLEANUP_CMDS+=("ip link del dev $BR")
L1A=xt${ID}l1a L1B=xt${ID}l1b R=xt${ID}r RP=xt${ID}rp
stp_link "$L1A" "$L1B" || abort "veth $L1A-$L1B"
stp_link "$R" "$RP" || abort "veth $R-$RP"
FILL=()
{
	for ((i = 1; i <= NFILL; i++)); do
		echo "link add xt${ID}f$i type veth peer name xt${ID}g$i"
	done
} | ip -batch - || abort "$NFILL veth pairs"
for ((i = 1; i <= NFILL; i++)); do
	FILL+=("xt${ID}f$i")
	STP_LINKS+=("xt${ID}f$i")
done
{
	for ((i = 1; i <= NFILL; i++)); do
		echo "link set dev xt${ID}f$i addrgenmode none up"
		echo "link set dev xt${ID}g$i addrgenmode none up"
	done
} | ip -batch - || abort "$NFILL veth pairs up"
CONF1=$XT_TMP/a.conf
CONF2=$XT_TMP/b.conf
STP_LINK_EDGE=off stp_bridge_conf "$CONF1" "$BR" 4096 "${PORT[1]}" "$L1A ${FILL[*]}" \
	"fdb_size = $((ENTRIES + ENTRIES / 10))"
printf '[port %s]\n' "$R" >>"$CONF1"		# edge auto: the hostile one
STP_LINK_EDGE=off stp_bridge_conf "$CONF2" "$BR2" 32768 "${PORT[2]}" "$L1B"
T0=${EPOCHREALTIME/./}
pfx_daemon_start $((NFILL + 3)) -c "$CONF1" || abort "xdpbrd A" "$XT_WHY"
stp_br2_start -c "$CONF2" ||
	xt_poll 20 grep -q "bridge $BR2: forwarding on" "$BR2_LOG" ||
	abort "xdpbrd B" "$(cat "$BR2_LOG")"
check "B's root port $L1B forwards" xt_poll 20 stp_roles_is "$BR2" "$L1B:root/forwarding"
check "$L1A designated and forwarding" stp_roles_is "$BR" "$L1A:designated/forwarding"
check "R forwards (an edge port until it hears a BPDU)" xt_poll 10 \
	stp_roles_is "$BR" "$R:designated/forwarding"
check "the $NFILL other ports forward (forward delay twice)" xt_poll 20 bash -c \
	'[ "$("$1" -b "$2" -j stp show | jq "[.ports[] | select(.state == \"forwarding\")] | length")" = $3 ]' \
	_ "$XDPBR" "$BR" $((NFILL + 3))
check "fdbfill: $ENTRIES entries on $R" "$FDBFILL" "$BR" "$R" "$ENTRIES"
check "h1 pings h2" xt_poll 5 hping 1 2
T1=${EPOCHREALTIME/./}
echo "# set up in $(awk -v d=$((T1 - T0)) 'BEGIN { printf "%.1f", d / 1e6 }') s"
sleep 3				# the start's topology changes are over

# ------------------------------------------------------------ a. TCN burst
TC0=$(a_field topology_changes)
FL0=$(a_field fdb_flushes)
LOGTC0=$(grep -c 'stp: topology change' "$DAEMON_LOG")
pfx_ping_start burst 1 2
xt_poll 5 bash -c '[ "$(grep -c "bytes from" "$1")" -ge 20 ]' _ "$XT_TMP/ping.burst.out"
(
	for ((k = 0; k < 60; k++)); do
		"$XDPBR" -b "$BR" -j link show dev "$L1A" | jq -r '.[0].state'
		sleep 0.1
	done
) >"$XT_TMP/l1a.states" 2>&1 &
SAMPLER=$!
XT_PIDS+=("$SAMPLER")
LL0=$(port_counter "$R" drop_linklocal_limit)
TB0=${EPOCHREALTIME/./}
"$SENDFRAME" -c 300 -i 1000 "$RP" "$(bpdu "$RMAC" 00000080)" ||
	fail "a: 300 TCNs sent on $RP"
TB1=${EPOCHREALTIME/./}
BURST_S=$(((TB1 - TB0 + 999999) / 1000000))	# rounded up
echo "# a: 300 TCN BPDUs sent in $(awk -v d=$((TB1 - TB0)) 'BEGIN { printf "%.2f", d / 1e6 }') s"
# A request the daemon must take within a second, during the walk.
"$XDPBR" -b "$BR" link set dev "${FILL[0]}" port_priority 64 || fail "a: link set port_priority"
if T=$(stp_time_until 1 bash -c '[ "$("$1" -b "$2" -j stp show |
		jq -r --arg p "$3" ".ports[] | select(.ifname == \$p) | .port_priority")" = 64 ]' \
		_ "$XDPBR" "$BR" "${FILL[0]}"); then
	pass "a: the daemon took a CLI request during the burst within a second ($T s)"
else
	fail "a: the daemon took a CLI request during the burst within a second" \
		"$(stp_show "$BR" | jq -c --arg p "${FILL[0]}" '.ports[] | select(.ifname == $p)')"
fi
wait "$SAMPLER"
sleep 2
pfx_ping_stop burst
OUT=$(pfx_ping_check burst 50)
LOST=$(sed -n 's/^sent: \([0-9]*\), received: \([0-9]*\).*/\1 \2/p' <<<"$OUT" |
	awk '{ print $1 - $2 }')
echo "# a: pings h1 -> h2 every 20 ms: $(head -1 <<<"$OUT")"
check "a: at most 5 pings lost across the burst ($LOST)" test "${LOST:-99}" -le 5
STATES=$(sort "$XT_TMP/l1a.states" | uniq -c | tr '\n' ' ')
check "a: $L1A forwarding all along (sampled every 0.1 s: $STATES)" \
	test "$(grep -vc '^forwarding$' "$XT_TMP/l1a.states")" = 0 -a \
	"$(grep -c '^forwarding$' "$XT_TMP/l1a.states")" -ge 30
J=$(stp_show "$BR")
TC1=$(jq -r .topology_changes <<<"$J")
FL1=$(jq -r .fdb_flushes <<<"$J")
TCIN=$(jq -r --arg p "$R" '.ports[] | select(.ifname == $p) | .tc_in' <<<"$J")
echo "# a: topology changes $TC0 -> $TC1, FDB walks $FL0 -> $FL1, tc_in on R $TCIN"
# A change lasts while tcWhile runs, hello_time + 1 s (1 to 2 ticks): a
# burst of BURST_S seconds is at most BURST_S + 1 of them.
check "a: counted as one topology change a second at most ($TC0 -> $TC1 in $BURST_S s)" \
	test $((TC1 - TC0)) -ge 1 -a $((TC1 - TC0)) -le $((BURST_S + 1))
check "a: one walk of the FDB per topology change at most ($FL0 -> $FL1)" \
	test $((FL1 - FL0)) -le $((TC1 - TC0))
# The link-local rate limit (linklocal_limit, 100/s a port by default)
# drops what a burst this fast brings beyond it, counted as
# drop_linklocal_limit; the socket's queue (rmem_default) may drop some
# of the rest while the daemon walks the table: heard or counted, not all.
LL1=$(port_counter "$R" drop_linklocal_limit)
LIMITED=$((${LL1:-0} - ${LL0:-0}))
check "a: R's TCNs were heard ($TCIN) or cut by the link-local limit ($LIMITED): 200 of 300 at least" \
	test $((${TCIN:-0} + LIMITED)) -ge 200
check "a: the limit let through what the spanning tree needs (heard $TCIN, at least 100)" \
	test "${TCIN:-0}" -ge 100
LOGTC1=$(grep -c 'stp: topology change' "$DAEMON_LOG")
check "a: one topology change line logged ($((LOGTC1 - LOGTC0)): at most one in 10 s)" \
	test $((LOGTC1 - LOGTC0)) -le 1
check "a: A is still the root, its link to B designated and forwarding" \
	stp_roles_is "$BR" "$L1A:designated/forwarding"
check "a: the $ENTRIES entries on R are all there (not R's to flush)" test \
	"$("$XDPBR" -b "$BR" -j bridge show | jq -r '.[0].fdb_entries')" -ge "$ENTRIES"

# ------------------------------------------------------------ b. aged BPDUs
ROOT=$(a_field root_id)
AGED=$(rst 0000020000000009 0 0000020000000009 8001 20 20 2 15)
"$SENDFRAME" -c 3 "$RP" "$(bpdu "$RMAC" "$AGED")" || fail "b: aged BPDUs sent on $RP"
"$SENDFRAME" -c 3 "$L1A" "$(bpdu "$RMAC" "$AGED")" || fail "b: aged BPDUs sent to $L1B"
sleep 1
check_eq "b: A's root still A" "$ROOT" "$(a_field root_id)"
check_eq "b: B's root still A" "$ROOT" "$(stp_show "$BR2" | jq -r .root_id)"
check_eq "b: R counts 3 aged BPDUs" 3 "$(stp_port "$BR" "$R" aged_bpdus)"
check_eq "b: $L1B counts 3 aged BPDUs" 3 "$(stp_port "$BR2" "$L1B" aged_bpdus)"
check "b: no root change logged on B" bash -c '! grep -q "stp: new root 0000" "$1"' _ "$BR2_LOG"

# ------------------------------------------------------------ c. rogue timers
AID=$(id_hex "$BR")
APORT=$(printf '%04x' "$(stp_port "$BR" "$L1A" port_no)")
APORT=$(printf '%04x' $((0x8000 | 0x$APORT)))
TO0=$(beat_timeout "$BR2")
ROGUE=$(rst "$AID" 0 "$AID" "$APORT" 0 255 255 255)
"$SENDFRAME" -c 10 -i 100000 "$L1A" "$(bpdu "$RMAC" "$ROGUE")" &
ROGUE_PID=$!
XT_PIDS+=("$ROGUE_PID")
: >"$XT_TMP/b.times"
for ((k = 0; k < 8; k++)); do
	stp_show "$BR2" | jq -r '"\(.root_id) \(.max_age) \(.hello_time) \(.forward_delay)"' \
		>>"$XT_TMP/b.times"
	beat_timeout "$BR2" >>"$XT_TMP/b.timeouts"
	sleep 0.1
done
wait "$ROGUE_PID" || fail "c: the rogue BPDUs sent to $L1B"
echo "# c: B while the rogue BPDUs came (root max_age hello_time forward_delay):" \
	"$(sort "$XT_TMP/b.times" | uniq -c | tr '\n' ';')"
check "c: B's root still A throughout" test "$(grep -vc "^$ROOT " "$XT_TMP/b.times")" = 0
check "c: B took the times, clamped (max_age 40, hello_time 10, forward_delay 30 seen)" \
	grep -q " 40 10 30$" "$XT_TMP/b.times"
check "c: B's times never out of range" bash -c \
	'! awk "\$2 > 40 || \$3 > 10 || \$4 > 30" "$1" | grep -q .' _ "$XT_TMP/b.times"
check "c: B counts the clamped BPDUs" test "$(stp_port "$BR2" "$L1B" clamped_bpdus)" -ge 8
check "c: B's dead-daemon timeout is 2 s (hello_time 1 + 1)" test "$TO0" = 2
check "c: ... and stays 2 s throughout ($(sort -u "$XT_TMP/b.timeouts" | tr '\n' ' '))" \
	test "$(sort -u "$XT_TMP/b.timeouts")" = 2
check "c: B back on A's timers within 2 s" xt_poll 3 bash -c \
	'[ "$("$1" -b "$2" -j stp show | jq -r .max_age)" = 6 ]' _ "$XDPBR" "$BR2"
check "c: a clamped BPDU is logged" grep -q "outside 802.1D's ranges" "$BR2_LOG"
check "c: h1 pings h2" xt_poll 5 hping 1 2
finish

#!/usr/bin/env bash
# More than 63 ports (issue 28): a bridge of 200 ports, 3 of them hosts in
# namespaces (slots 1, 72 and 200: two beyond the fast flood's 64-bit
# masks) and 197 veth pairs of the root namespace, added one by one with
# `xdpbr link add` to a running bridge. Why 200 and not 1024: the checks
# that matter here (slots above 64 flood and forward; a flood reaches
# every port exactly once; a slot freed is taken again) hold from slot 65
# on, and every port up floods its own chatter to all the others;
# test_ports_full.sh fills a bridge (its ports down). Exact counts: N broadcast frames from h1 reach each of the other 199
# ports exactly N times (their tx_packets, and the hosts' e0 rx), known
# unicast to h2 in slot 72 reaches only h2; a port removed leaves its slot
# to the next port added.
# shellcheck disable=SC2317 # functions that run through check / xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# exact counts: only the test's ports flood

NDUMMY=197	# 197 + 3 hosts = 200 ports
N=40		# frames per burst

xt_require
topo_up 3
hosts_quiet || abort "making the hosts quiet"

# Root-namespace veth pairs xt${ID}dI (the port) and xt${ID}qI (its peer).
batch=$XT_TMP/links.batch unbatch=$XT_TMP/unlinks.batch
: >"$batch"
: >"$unbatch"
for ((i = 1; i <= NDUMMY; i++)); do
	echo "link add xt${ID}d$i type veth peer name xt${ID}q$i" >>"$batch"
	echo "link del xt${ID}d$i" >>"$unbatch"
done
XT_CLEANUP_CMDS+=("ip -force -batch '$unbatch'")
ip -batch "$batch" || abort "creating $NDUMMY veth pairs"
: >"$batch"
for ((i = 1; i <= NDUMMY; i++)); do
	sysctl -q -w "net.ipv6.conf.xt${ID}d$i.disable_ipv6=1" \
		"net.ipv6.conf.xt${ID}q$i.disable_ipv6=1" >/dev/null
	echo "link set dev xt${ID}d$i up" >>"$batch"
	echo "link set dev xt${ID}q$i up" >>"$batch"
done
ip -batch "$batch" || abort "setting $NDUMMY veth pairs up"
# On the XDP path the ports are native XDP ports, and a veth takes
# redirected frames only when its peer runs NAPI (GRO on).
MODE=()
if [ "$XT_DATAPATH" = xdp ]; then
	MODE=(mode native)
	for ((i = 1; i <= NDUMMY; i++)); do
		ethtool -K "xt${ID}q$i" gro on >/dev/null 2>&1 ||
			abort "ethtool -K xt${ID}q$i gro on"
	done
fi

# The order the ports join in gives their slots: h1 in 1, dummies 1-70 in
# 2-71, h2 in 72, the other dummies in 73-199, h3 in 200.
P1=${PORT[1]} P2=${PORT[2]} P3=${PORT[3]}
ORDER=()
for ((i = 1; i <= NDUMMY; i++)); do
	ORDER+=("xt${ID}d$i")
	[ "$i" = 70 ] && ORDER+=("$P2")
done
ORDER+=("$P3")
PORTS=("$P1")
daemon_start || abort "xdpbrd start" "$XT_WHY"

add_all()
{
	local p
	for p in "${ORDER[@]}"; do
		"$XDPBR" link add dev "$p" master "$BR" "${MODE[@]}" ||
			{ echo "link add dev $p failed" >&2; return 1; }
	done
}
t0=$(date +%s.%N)
check "link add: 199 ports to a running bridge" add_all
t1=$(date +%s.%N)
echo "# 199 link adds took $(echo "$t1 - $t0" | bc) s"

slot_of()
{
	"$XDPBR" -b "$BR" -j link show dev "$1" | jq -r '.[0].slot'
}
nports()
{
	"$XDPBR" -b "$BR" -j link show | jq 'length'
}
check_eq "link show lists 200 ports" 200 "$(nports)"
check_eq "$P2 is in slot 72" 72 "$(slot_of "$P2")"
check_eq "$P3 is in slot 200" 200 "$(slot_of "$P3")"
check_eq "xt${ID}d197 is in slot 199" 199 "$(slot_of "xt${ID}d197")"
slots_distinct()
{
	json_is array '[.[].slot] | (unique | length) == 200 and min == 1 and max == 200' \
		-- "$XDPBR" -b "$BR" -j link show
}
check "200 ports, slots 1..200, each once" slots_distinct

check "ping h1 -> h2 (slot 72)" pfx_poll 5 hping 1 2
check "ping h2 -> h3 (slot 72 -> 200)" hping 2 3
check "ping h3 -> h1 (slot 200 -> 1)" hping 3 1

# counters DEV...: tx_packets of each DEV, space separated.
counters()
{
	local d out=
	for d in "$@"; do
		out+="$(port_counter "$d" tx_packets) " || return 1
	done
	echo "${out% }"
}
host_rx()
{
	hexec "$1" cat /sys/class/net/e0/statistics/rx_packets
}
WATCH=("$P2" "$P3" "xt${ID}d1" "xt${ID}d100" "xt${ID}d197")

# delta_is BEFORE WANT: the tx_packets of WATCH moved from BEFORE by WANT.
delta_is()
{
	local -a before want now
	local i
	read -r -a before <<<"$1"
	read -r -a want <<<"$2"
	read -r -a now <<<"$(counters "${WATCH[@]}")" || return 1
	for i in "${!want[@]}"; do
		if [ $((now[i] - before[i])) != "${want[i]}" ]; then
			echo "${WATCH[i]}: tx_packets moved by $((now[i] - before[i])), want ${want[i]}" >&2
			return 1
		fi
	done
}

# A broadcast: every port but the ingress gets each frame once.
before=$(counters "${WATCH[@]}")
rx2=$(host_rx 2) rx3=$(host_rx 3)
fl0=$(port_counter "$P1" flood_broadcast)
hexec 1 "$SENDFRAME" -c "$N" e0 "$(eth_frame ff:ff:ff:ff:ff:ff "${MAC[1]}")" ||
	fail "sendframe broadcast"
xt_poll 5 delta_is "$before" "$N $N $N $N $N"
check "broadcast x$N from h1: each of the watched ports sent $N" \
	delta_is "$before" "$N $N $N $N $N"
check_eq "broadcast: h1's port flooded $N" $((fl0 + N)) "$(port_counter "$P1" flood_broadcast)"
check_eq "broadcast: h2 (slot 72) received $N" $((rx2 + N)) "$(host_rx 2)"
check_eq "broadcast: h3 (slot 200) received $N" $((rx3 + N)) "$(host_rx 3)"
sum_tx()
{
	"$XDPBR" -b "$BR" -j stats | jq '[.[].tx_packets] | add'
}
test_sum()
{
	[ "$(sum_tx)" = "$1" ]
}
# every port's copies, all 199 of them: the sum moves by 199 x N
tx0=$(sum_tx)
hexec 1 "$SENDFRAME" -c "$N" e0 "$(eth_frame ff:ff:ff:ff:ff:ff "${MAC[1]}")" ||
	fail "sendframe broadcast"
xt_poll 5 test_sum $((tx0 + 199 * N))
check_eq "broadcast x$N: the 199 other ports sent $((199 * N)) in all" \
	$((tx0 + 199 * N)) "$(sum_tx)"

# Known unicast to h2 (slot 72): only h2's port sends it.
before=$(counters "${WATCH[@]}")
rx2=$(host_rx 2)
hexec 1 "$SENDFRAME" -c "$N" e0 "$(eth_frame "${MAC[2]}" "${MAC[1]}")" ||
	fail "sendframe unicast"
xt_poll 5 delta_is "$before" "$N 0 0 0 0"
check "unicast x$N h1 -> h2: only $P2 sent them" delta_is "$before" "$N 0 0 0 0"
check_eq "unicast: h2 received $N" $((rx2 + N)) "$(host_rx 2)"

# A port removed frees its slot; the next one added takes it.
check "link del dev $P2" "$XDPBR" -b "$BR" link del dev "$P2"
check_eq "199 ports after link del" 199 "$(nports)"
check_fail "ping h1 -> h2 fails without its port" hping 1 2
check "link add dev $P2 again" "$XDPBR" -b "$BR" link add dev "$P2" master "$BR" "${MODE[@]}"
check_eq "$P2 takes slot 72 again" 72 "$(slot_of "$P2")"
check "ping h1 -> h2 again" pfx_poll 5 hping 1 2

finish

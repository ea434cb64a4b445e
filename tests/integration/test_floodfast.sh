#!/usr/bin/env bash
# The fast flood (issue 18): with no per-copy rule to apply (VLAN
# filtering, STP, isolation of the ingress port, a frame above the
# smallest MTU), an XDP flood goes into the flood maps without the egress
# program and the ingress counts each copy's tx. Whichever way a flood
# goes, every counter must come out exactly as before: four hosts, a known
# number of broadcast, multicast and unknown-unicast frames from sendframe,
# and exactly the expected change of every counter on every port (the
# learned events aside), with each host's e0 receiving exactly what its
# port counted as sent. Then bcast_flood off on one port, hairpin, a port
# set down; the fast maps' entries (no program), the slow flood's small
# maps' (with it) and the mask by bpftool;
# on the XDP path, BPF run-time stats show the egress program does not run
# for fast floods, and does with VLAN filtering on. Then VLAN filtering,
# isolation of the ingress port, a spanning tree state set by hand and STP
# in turn: the slow path, exact counts and the right filtering; on XDP,
# proof that it takes the small maps (a port deleted from one by hand).
# On the skb path (veth ports by default) floods are clones from TC, which
# has no fast flood: the same counts must hold, and the maps are kept all
# the same; the XDP-only checks run where XT_DATAPATH=xdp.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check / xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# exact counts: only the test's ports flood

xt_require
xt_need bpftool
topo_up 4
hosts_quiet || abort "making the hosts quiet"
daemon_start || abort "xdpbrd start" "$XT_WHY"
P1=${PORT[1]} P2=${PORT[2]} P3=${PORT[3]} P4=${PORT[4]}
NAMES=$(obs_counter_names)
BCAST=ff:ff:ff:ff:ff:ff
MCAST=01:00:5e:12:34:56		# IPv4 multicast, no group a host joined
UNKNOWN=$(test_mac 9)		# never seen: unknown unicast
N=5				# frames a round
LEN=60				# sendframe's frames

# ------------------------------------------------------------ helpers

link() { "$XDPBR" -b "$BR" link set dev "$@"; }

# expected SENDER CLASS RECEIVERS FILTERED: the change of every counter
# of every port N frames from host SENDER make, flooded as CLASS
# (broadcast, multicast, unknown) to the hosts RECEIVERS ("2 3 4") and
# refused as flood_filtered by those FILTERED.
expected()
{
	jq -c -n --argjson n "$N" --argjson len "$LEN" --arg s "${PORT[$1]}" \
		--arg cls "flood_$2" --argjson ports "$(printf '%s\n' "${PORT[@]:1}" | jq -R . | jq -sc .)" \
		--argjson rx "$(for i in $3; do echo "${PORT[i]}"; done | jq -R . | jq -sc .)" \
		--argjson fl "$(for i in $4; do echo "${PORT[i]}"; done | jq -R . | jq -sc .)" '
		[$ports[] | . as $p | {key: $p, value: (
			(if $p == $s then {rx_packets: $n, rx_bytes: ($n * $len), ($cls): $n}
			 else {} end) +
			(if ($rx | index([$p])) then {tx_packets: $n, tx_bytes: ($n * $len)}
			 else {} end) +
			(if ($fl | index([$p])) then {flood_filtered: $n} else {} end))}]
		| from_entries'
}

# mismatches BASE NOW EXPECT: the counters whose change is not EXPECT's
# (absent: 0); learned events aside (a host's first frame learns it).
mismatches()
{
	jq -c -n --argjson a "$1" --argjson b "$2" --argjson e "$3" --argjson n "$NAMES" '
		[$b[] | .ifname as $p | . as $o
		 | ($a[] | select(.ifname == $p)) as $z
		 | $n[] | select(. != "learned" and . != "moved")
		 | select(($o[.] - $z[.]) != ($e[$p][.] // 0))
		 | "\($p) \(.): expected +\($e[$p][.] // 0), got +\($o[.] - $z[.])"]'
}

# delivered BASE_RX RECEIVERS: each host of RECEIVERS got N more frames.
delivered()
{
	local now i
	now=$(obs_host_rx) || return 1
	for i in $2; do
		jq_true "$now" '.[$p] - $b[$p] >= $n' --arg p "${PORT[i]}" \
			--argjson b "$1" --argjson n "$N" || return 1
	done
}

# round NAME SENDER DST CLASS RECEIVERS [FILTERED]: N frames from host
# SENDER to DST; every counter of every port changes exactly as expected
# and (HOST_RX on) each host's e0 receives exactly its port's tx_packets.
HOST_RX=on
round()
{
	local name=$1 s=$2 dst=$3 cls=$4 rcv=$5 flt=${6:-} base base_rx exp got i
	obs_settled 5 || true
	base=$SETTLED
	base_rx=$(obs_host_rx)
	exp=$(expected "$s" "$cls" "$rcv" "$flt")
	if ! obs_send "$s" "$N" "$dst" >"$XT_TMP/send.log" 2>&1; then
		fail "$name: sent $N frames from h$s" "$(cat "$XT_TMP/send.log")"
		return
	fi
	[ -z "$rcv" ] || xt_poll 5 delivered "$base_rx" "$rcv"
	obs_settled 5 || true
	got=$(mismatches "$base" "$SETTLED" "$exp")
	check_jq "$name: every counter of every port changed exactly as expected" \
		"$got" 'length == 0'
	# with STP on, the daemon's BPDUs reach the hosts too
	[ "$HOST_RX" = on ] || return 0
	got=$(obs_host_rx)
	for ((i = 1; i <= NHOSTS; i++)); do
		check_jq "$name: h$i received $([[ " $rcv " == *" $i "* ]] && echo "$N" || echo 0) (its port's tx_packets)" \
			"$got" '.[$p] - $b[$p] == ($e[$p].tx_packets // 0)' \
			--arg p "${PORT[i]}" --argjson b "$base_rx" --argjson e "$exp"
	done
}

# The three classes from h1 to every other host.
three_classes()
{
	local tag=$1 rcv=$2 flt=${3:-}
	round "$tag: broadcast" 1 "$BCAST" broadcast "$rcv" "$flt"
	round "$tag: multicast" 1 "$MCAST" multicast "$rcv" "$flt"
	round "$tag: unknown unicast" 1 "$UNKNOWN" unknown "$rcv" "$flt"
}

# ------------------------------------------------------------ the maps

# slot_of PORT: the port's slot (link show).
slot_of()
{
	"$XDPBR" -b "$BR" -j link show dev "$1" | jq -r '.[0].slot'
}

# fast_struct: xdpbr_flood_fast's entry as "MASK_BC MASK_MC MASK_UU READY"
# (decimal).
fast_struct()
{
	bpftool -j map lookup pinned "$PIN_DIR/xdpbr_flood_fast" key 0 0 0 0 |
		jq -r '[.value | range(0; 4) as $w | .[($w * 8):($w * 8 + 8)]
			| reverse | map(ltrimstr("0x")) | join("")] | .[3] |= .[8:16] | .[]' |
		while read -r h; do echo $((16#$h)); done | paste -sd' '
}

# mask_of PORTS...: the mask those ports' slots make (decimal).
mask_of()
{
	local m=0 p
	for p in "$@"; do
		m=$((m | (1 << $(slot_of "$p"))))
	done
	echo "$m"
}

# devmap_ok MAP with|without PORTS...: the flood map holds exactly
# PORTS' ifindexes, each with a program or each without (bpf_devmap_val's
# program id 0).
devmap_ok()
{
	local map=$1 prog=$2 want got j
	shift 2
	want=$(for p in "$@"; do cat "/sys/class/net/$p/ifindex"; done | sort -n | paste -sd' ')
	j=$(bpftool -j map dump pinned "$PIN_DIR/$map") || return 1
	got=$(jq -r '.[] | .key | reverse | map(ltrimstr("0x")) | join("")' <<<"$j" |
		while read -r h; do echo $((16#$h)); done | sort -n | paste -sd' ')
	[ "$got" = "$want" ] || { echo "$map: ifindexes $got, want $want"; return 1; }
	jq_true "$j" 'length > 0 and all(.[]; (.value[4:8] != ["0x00","0x00","0x00","0x00"]) == $with)' \
		--argjson with "$([ "$prog" = with ] && echo true || echo false)" ||
		{ echo "$map: an entry $prog a program: $j"; return 1; }
}

# fast_map_ok MAP PORTS...: the fast map holds exactly PORTS, no program.
fast_map_ok() { devmap_ok "$1" without "${@:2}"; }

# small_map_ok MAP PORTS...: the slow flood's small map holds exactly
# PORTS, each with the egress program.
small_map_ok() { devmap_ok "$1" with "${@:2}"; }

# small_is 0|1: xdpbr_flood_fast.small (its last two bytes).
small_is()
{
	local got
	got=$(bpftool -j map lookup pinned "$PIN_DIR/xdpbr_flood_fast" key 0 0 0 0 |
		jq -r '.value[30:32] | reverse | map(ltrimstr("0x")) | join("")') || return 1
	[ "$((16#$got))" = "$1" ] || { echo "small is $((16#$got)), want $1"; return 1; }
}

# map_drop MAP PORT: PORT's entry deleted from MAP by hand.
map_drop()
{
	local i
	i=$(cat "/sys/class/net/$2/ifindex") || return 1
	bpftool map delete pinned "$PIN_DIR/$1" key \
		$((i & 255)) $((i >> 8 & 255)) $((i >> 16 & 255)) $((i >> 24))
}

# slow_map_progs MAP: every entry of a slow flood map has a program.
slow_map_progs()
{
	json_is array 'length > 0 and all(.[]; .value[4:8] != ["0x00","0x00","0x00","0x00"])' \
		-- bpftool -j map dump pinned "$PIN_DIR/$1"
}

# fast_is BC MC UU READY (ports lists as "1 2 3", - for none): the struct.
fast_is()
{
	local want="" l ps i
	for l in "$1" "$2" "$3"; do
		ps=()
		for i in $l; do [ "$i" = - ] || ps+=("${PORT[i]}"); done
		want+="$(mask_of "${ps[@]}") "
	done
	want+=$4
	[ "$(fast_struct)" = "$want" ] || { echo "got $(fast_struct), want $want"; return 1; }
}

# ------------------------------------------------------------ BPF stats

EGRESS_PIN=$PIN_DIR/prog_egress
egress_runs()
{
	bpftool -j prog show pinned "$EGRESS_PIN" | jq -r '.run_cnt // 0'
}

STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
XT_CLEANUP_CMDS+=("sysctl -q -w kernel.bpf_stats_enabled=$STATS_OLD >/dev/null 2>&1")

# egress_ran NAME DELTA-TEST RECEIVERS [FILTERED]: a round of broadcasts
# from h1 with BPF stats on; DELTA-TEST ("== 0", "> 0") on the egress
# program's run count.
egress_ran()
{
	local name=$1 test=$2 before after
	sysctl -q -w kernel.bpf_stats_enabled=1 >/dev/null
	before=$(egress_runs)
	round "$name" 1 "$BCAST" broadcast "$3" "${4:-}"
	after=$(egress_runs)
	sysctl -q -w kernel.bpf_stats_enabled="$STATS_OLD" >/dev/null
	check "$name: xdpbr_egress ran $((after - before)) times ($test)" \
		test "$((after - before))" -"$( [ "$test" = "== 0" ] && echo eq || echo gt)" 0
}

# ============================================================ fast floods

# Let what the hosts had in flight pass; the FDB starts empty.
obs_settled 5 || true
"$XDPBR" -b "$BR" fdb flush dynamic >/dev/null 2>&1

for m in xdpbr_flood_bc_fast xdpbr_flood_mc_fast xdpbr_flood_uu_fast; do
	check "$m holds the 4 ports, no program on any entry" fast_map_ok "$m" "$P1" "$P2" "$P3" "$P4"
	check "${m%_fast} (the slow one) has the egress program on each entry" \
		slow_map_progs "${m%_fast}"
done
check "xdpbr_flood_fast: every slot in each class, ready" \
	fast_is "1 2 3 4" "1 2 3 4" "1 2 3 4" 1
for m in xdpbr_flood_bc_small xdpbr_flood_mc_small xdpbr_flood_uu_small; do
	check "$m (the slow flood's, slots below 64) holds the 4 ports, each with the egress program" \
		small_map_ok "$m" "$P1" "$P2" "$P3" "$P4"
done
check "xdpbr_flood_fast: the small maps ready" small_is 1

three_classes "all ports" "2 3 4"
if [ "$XT_DATAPATH" = xdp ]; then
	egress_ran "fast flood (XDP)" "== 0" "2 3 4"
fi

# bcast_flood off on P3: out of the broadcast flood set only.
check "link set dev $P3 bcast_flood off" link "$P3" bcast_flood off
check "bcast_flood off: $P3 leaves the broadcast fast map and mask only" \
	fast_is "1 2 4" "1 2 3 4" "1 2 3 4" 1
check "bcast_flood off: xdpbr_flood_bc_fast without $P3" \
	fast_map_ok xdpbr_flood_bc_fast "$P1" "$P2" "$P4"
round "bcast_flood off on $P3: broadcast" 1 "$BCAST" broadcast "2 4"
round "bcast_flood off on $P3: multicast" 1 "$MCAST" multicast "2 3 4"
check "link set dev $P3 bcast_flood on" link "$P3" bcast_flood on
check "bcast_flood on: back in the mask" fast_is "1 2 3 4" "1 2 3 4" "1 2 3 4" 1

# Hairpin: the ingress port gets its copy too, counted.
check "link set dev $P1 hairpin on" link "$P1" hairpin on
three_classes "hairpin on $P1" "1 2 3 4"
check "link set dev $P1 hairpin off" link "$P1" hairpin off

# ============================================================ slow floods

# VLAN filtering: every port an untagged member of VLAN 1 but P3, which
# leaves it: its copies are refused (flood_filtered), per copy.
check "bridge set vlan_filtering on" "$XDPBR" -b "$BR" bridge set vlan_filtering on
check "vlan del dev $P3 vid 1" "$XDPBR" -b "$BR" vlan del dev "$P3" vid 1
if [ "$XT_DATAPATH" = xdp ]; then
	egress_ran "VLAN filtering, $P3 not in VLAN 1 (XDP): the egress program" "> 0" "2 4" 3
	round "VLAN filtering, $P3 not in VLAN 1: broadcast" 1 "$BCAST" broadcast "2 4" 3
	round "VLAN filtering, $P3 not in VLAN 1: unknown" 1 "$UNKNOWN" unknown "2 4" 3
else
	three_classes "VLAN filtering, $P3 not in VLAN 1" "2 4" 3
fi
check "vlan add dev $P3 vid 1 pvid untagged" "$XDPBR" -b "$BR" vlan add dev "$P3" vid 1 pvid untagged
check "bridge set vlan_filtering off" "$XDPBR" -b "$BR" bridge set vlan_filtering off
round "VLAN filtering off again: broadcast" 1 "$BCAST" broadcast "2 3 4"

# Isolation of the ingress port: copies to other isolated ports refused.
check "link set dev $P1 isolated on" link "$P1" isolated on
round "$P1 isolated (alone): broadcast to all" 1 "$BCAST" broadcast "2 3 4"
check "link set dev $P2 isolated on" link "$P2" isolated on
three_classes "$P1 and $P2 isolated" "3 4" 2
round "$P2 isolated, from h3 (not isolated): to all" 3 "$BCAST" broadcast "1 2 4"
check "link set dev $P1 isolated off" link "$P1" isolated off
check "link set dev $P2 isolated off" link "$P2" isolated off

# A spanning tree state set by hand (STP off): not ready, the slow path
# refuses the copies to the blocking port.
check "link set dev $P4 state blocking" link "$P4" state blocking
check "a blocking port (STP off): the fast flood is not ready" \
	fast_is "1 2 3 4" "1 2 3 4" "1 2 3 4" 0
three_classes "$P4 blocking (by hand)" "2 3" 4
check "a blocking port: the small maps stay ready" small_is 1
if [ "$XT_DATAPATH" = xdp ]; then
	# Proof the slow flood takes the small maps: without P3 in the small
	# broadcast map (the full one still has it), P3 gets no broadcast.
	check "$P3 deleted from xdpbr_flood_bc_small by hand" map_drop xdpbr_flood_bc_small "$P3"
	round "slow flood (XDP), $P3 only in the full map: broadcast misses it" 1 \
		"$BCAST" broadcast "2" 4
	check "link set dev $P3 bcast_flood off" link "$P3" bcast_flood off
	check "link set dev $P3 bcast_flood on (its entries written again)" \
		link "$P3" bcast_flood on
	check "$P3 back in xdpbr_flood_bc_small" \
		small_map_ok xdpbr_flood_bc_small "$P1" "$P2" "$P3" "$P4"
	round "slow flood (XDP), $P3 back: broadcast reaches it" 1 "$BCAST" broadcast "2 3" 4
fi
check "link set dev $P4 state forwarding" link "$P4" state forwarding
check "every port forwarding again: ready" fast_is "1 2 3 4" "1 2 3 4" "1 2 3 4" 1

# STP on (edge ports: forwarding at once): per-copy state checks.
for p in "$P1" "$P2" "$P3" "$P4"; do
	link "$p" edge on >/dev/null 2>&1
done
check "bridge set stp on" "$XDPBR" -b "$BR" bridge set stp on
check "STP on: every port forwards (edge ports)" xt_poll 20 stp_forwarding
HOST_RX=off
if [ "$XT_DATAPATH" = xdp ]; then
	egress_ran "STP on (XDP): the egress program" "> 0" "2 3 4"
fi
three_classes "STP on" "2 3 4"
check "bridge set stp off" "$XDPBR" -b "$BR" bridge set stp off
HOST_RX=on
check "STP off: ready" xt_poll 5 fast_is "1 2 3 4" "1 2 3 4" "1 2 3 4" 1

# A port set down leaves every flood set, the fast ones and the mask too.
check "ip link set dev $P4 down" ip link set dev "$P4" down
check "$P4 down: out of every fast map and mask" \
	xt_poll 5 fast_is "1 2 3" "1 2 3" "1 2 3" 1
check "$P4 down: xdpbr_flood_bc_fast without it" \
	fast_map_ok xdpbr_flood_bc_fast "$P1" "$P2" "$P3"
check "$P4 down: xdpbr_flood_bc_small without it" \
	small_map_ok xdpbr_flood_bc_small "$P1" "$P2" "$P3"
three_classes "$P4 down" "2 3"
check "ip link set dev $P4 up" ip link set dev "$P4" up
check "$P4 up: back in every mask" xt_poll 5 fast_is "1 2 3 4" "1 2 3 4" "1 2 3 4" 1

if [ "$XT_DATAPATH" = xdp ]; then
	egress_ran "fast flood again (XDP)" "== 0" "2 3 4"
fi
check "rx_packets == the sum of the outcomes on every port" counters_add_up

finish

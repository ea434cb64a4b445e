#!/usr/bin/env bash
# Per-port counters as `xdpbr stats` shows them: every counter of
# include/xdpbr.h for every port, known traffic counted where it happened,
# and the accounting invariant: each received frame ends in exactly one
# outcome, so rx_packets == forwarded + flood_* + pass_* + drop_*.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks enumerate exactly the ports and FDB entries it made

# stats_json [dev PORT]: the port elements of `xdpbr -j stats`
stats_json()
{
	local out

	out=$("$XDPBR" -b "$BR" -j stats "$@" 2>&1) || { echo "$out"; return 1; }
	jq -c '[.[] | select(.type == "port")]' <<<"$out" 2>&1 || echo "$out"
}

# delta BEFORE AFTER PORT COUNTER: AFTER[PORT].COUNTER - BEFORE[PORT].COUNTER
delta()
{
	jq -n --argjson a "$1" --argjson b "$2" --arg p "$3" --arg c "$4" \
		'($b[] | select(.ifname == $p)[$c]) - ($a[] | select(.ifname == $p)[$c])'
}

# check_at_least NAME MIN VALUE [DETAIL...]
check_at_least()
{
	local name=$1 min=$2 v=$3
	shift 3
	if [[ $v =~ ^[0-9]+$ ]] && ((v >= min)); then
		pass "$name ($v)"
	else
		fail "$name" "expected at least $min, got '$v'" "$@"
	fi
}

# Outcomes: forwarded, flood_<class>, pass_*, drop_* (flood_filtered counts
# refused copies on an egress port, not received frames).
INVARIANT='map({ifname, rx: .rx_packets,
	 out: ([to_entries[] | select(.key == "forwarded" or
		 ((.key | test("^(flood|pass|drop)_")) and .key != "flood_filtered")) |
		.value] | add)})'

xt_require
topo_up 3
daemon_start || abort "xdpbrd start" "$XT_WHY"
sleep 1

names=$(counter_names | jq -R . | jq -sc .)
[ "$(jq length <<<"$names")" -ge 10 ] ||
	abort "reading counter names from $XDPBR_H" "got: $names"

all=$("$XDPBR" -b "$BR" -j stats 2>&1)
check_jq "stats -j: one bridge element after the ports, with the bridge-wide figures" \
	"$all" 'type == "array" and (.[-1] | .type == "bridge" and .ifname == $br and
		(.learned | type) == "number" and (.aged | type) == "number" and
		(.fdb.dynamic_live | type) == "number") and
	 ([.[] | select(.type == "bridge")] | length) == 1' --arg br "$BR"
json=$(stats_json)
check_jq "stats -j: an array with one object per port" "$json" \
	'type == "array" and length == 3 and
	 (map(.ifname) | sort) == ($ports | sort)' \
	--argjson ports "$(printf '%s\n' "${PORTS[@]}" | jq -R . | jq -sc .)"
check_jq "stats -j: every port has ifname, ifindex and all counters of xdpbr.h" \
	"$json" 'all(.[]; (.ifname | type) == "string" and
		     (.ifindex | type) == "number" and
		     (. as $o | all($names[]; ($o[.] | type) == "number")))' \
	--argjson names "$names"

# Known traffic: 5 pings h1 -> h2, 3 pings h1 -> h3 ...
before=$(stats_json)
check "5 pings h1 -> h2" ping_all 1 5 -i 0.2 -W 2 "${IP4[2]}"
check "3 pings h1 -> h3" ping_all 1 3 -i 0.2 -W 2 "${IP4[3]}"
sleep 0.2
after=$(stats_json)
detail=("before: $before" "after: $after")

check_at_least "h1's port forwarded the 8 requests" 8 \
	"$(delta "$before" "$after" "${PORT[1]}" forwarded)" "${detail[@]}"
check_at_least "h2's port forwarded the 5 replies" 5 \
	"$(delta "$before" "$after" "${PORT[2]}" forwarded)" "${detail[@]}"
check_at_least "h3's port forwarded the 3 replies" 3 \
	"$(delta "$before" "$after" "${PORT[3]}" forwarded)" "${detail[@]}"
check_at_least "h1's port transmitted the 8 replies" 8 \
	"$(delta "$before" "$after" "${PORT[1]}" tx_packets)" "${detail[@]}"
check_at_least "h2's port transmitted the 5 requests" 5 \
	"$(delta "$before" "$after" "${PORT[2]}" tx_packets)" "${detail[@]}"
check_at_least "h3's port transmitted the 3 requests" 3 \
	"$(delta "$before" "$after" "${PORT[3]}" tx_packets)" "${detail[@]}"
check_at_least "h1's port received at least 8 frames" 8 \
	"$(delta "$before" "$after" "${PORT[1]}" rx_packets)" "${detail[@]}"

# ... then an ARP broadcast from h3: flooded, transmitted on both others.
before=$after
hexec 3 timeout 5 arping -c 1 -I e0 "${IP4[1]}" >/dev/null 2>&1
sleep 0.2
after=$(stats_json)
detail=("before: $before" "after: $after")
check_at_least "h3's port counts its ARP broadcast as flood_broadcast" 1 \
	"$(delta "$before" "$after" "${PORT[3]}" flood_broadcast)" "${detail[@]}"
for i in 1 2; do
	check_at_least "h3's ARP broadcast was transmitted on h$i's port" 1 \
		"$(delta "$before" "$after" "${PORT[i]}" tx_packets)" "${detail[@]}"
done
check_at_least "learned counts the 3 hosts" 3 \
	"$(jq '[.[].learned] | add' <<<"$after")" "$after"

# The invariant. The counters of a port are read while hosts may still send
# (IPv6 router solicitations), so one mismatch is read again once.
for _ in 1 2; do
	json=$(stats_json)
	sums=$(jq -c "$INVARIANT" <<<"$json")
	jq_true "$sums" 'length > 0 and all(.[]; .rx == .out)' && break
	sleep 0.5
done
check_jq "rx_packets == forwarded + flood_* + pass_* + drop_* on every port" \
	"$json" "$INVARIANT | all(.[]; .rx == .out and .rx > 0)"

# Frames the kernel loses after the program redirected them. tx_dropped:
# the driver of the egress port refuses them (here a veth whose peer's MTU is
# below the frame; xdp_devmap_xmit tracepoint). redirect_errors: the
# redirect itself fails (a veth whose peer has neither GRO nor XDP takes no
# redirected frames; xdp_redirect_err tracepoint), counted on the ingress
# port. h1 knows h2 and h3 from the pings above. On the skb path the port's
# own MTU is the one lowered (a frame handed to the peer's namespace never
# meets the port's driver): the program itself drops what exceeds it, as
# drop_mtu of the ingress port (test_jumbo.sh tests that on both paths).
before=$(stats_json)
if [ "$XT_DATAPATH" = xdp ]; then
	hexec 3 ip link set dev e0 mtu 1000
else
	ip link set dev "${PORT[3]}" mtu 1000
fi
hexec 1 ping -c 3 -i 0.2 -W 1 -s 1200 "${IP4[3]}" >/dev/null 2>&1
hexec 3 ip link set dev e0 mtu 1500
ip link set dev "${PORT[3]}" mtu 1500
hexec 2 ethtool -K e0 gro off
hexec 1 ping -c 3 -i 0.2 -W 1 "${IP4[2]}" >/dev/null 2>&1
hexec 2 ethtool -K e0 gro on
after=$(stats_json)
if [ "$XT_DATAPATH" = xdp ]; then
	check_eq "3 pings of 1242 bytes to h3, whose MTU is 1000: tx_dropped of ${PORT[3]} +3" 3 \
		"$(delta "$before" "$after" "${PORT[3]}" tx_dropped)" "$after"
else
	check_eq "3 pings of 1242 bytes to h3, whose port's MTU is 1000: drop_mtu of ${PORT[1]} +3" \
		3 "$(delta "$before" "$after" "${PORT[1]}" drop_mtu)" "$after"
fi
# (at least: h1 may also send h2 a unicast neighbour probe)
if [ "$XT_DATAPATH" = xdp ]; then
	check_at_least "3 pings to h2, whose e0 has no GRO: redirect_errors of ${PORT[1]} +3" 3 \
		"$(delta "$before" "$after" "${PORT[1]}" redirect_errors)" "$after"
else
	# the skb path needs nothing of the receiver
	check_eq "3 pings to h2, whose e0 has no GRO: redirect_errors of ${PORT[1]} +0 (skb path)" 0 \
		"$(delta "$before" "$after" "${PORT[1]}" redirect_errors)" "$after"
fi
for p in "${PORT[1]}" "${PORT[2]}"; do
	check_eq "tx_dropped of $p +0" 0 "$(delta "$before" "$after" "$p" tx_dropped)"
done

json=$(stats_json dev "${PORT[2]}")
check_jq "stats -j dev ${PORT[2]}: only that port" "$json" \
	'length == 1 and .[0].ifname == $p' --arg p "${PORT[2]}"

text=$("$XDPBR" -b "$BR" stats 2>&1)
ok=1
for p in "${PORTS[@]}" rx_packets forwarded; do
	grep -qw -- "$p" <<<"$text" || ok=0
done
if [ $ok = 1 ]; then
	pass "stats (text) names every port and the counters"
else
	fail "stats (text) names every port and the counters" "$text"
fi

finish

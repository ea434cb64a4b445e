#!/usr/bin/env bash
#
# bench-overlay.sh - TCP across a VXLAN overlay between two sites: xdpbr
# with its [vxlan] overlay (doc/evpn.md) next to a Linux bridge with a
# vxlan port doing the same, measured side by side in one run.
#
#   tools/bench-overlay.sh [--reps N] [--duration SECONDS] [--json FILE]
#
# tools/bench.sh runs it as its scenario `overlay` (in `make bench`), and
# puts what --json writes under the key "overlay" of its own JSON.
#
#   netns bo$ID-h1 e0 === p1 [site A] u0 ==underlay veth== u0 [site B] p1 === e0 netns bo$ID-h2
#
# Each site is a network namespace (bo$ID-sa, bo$ID-sb) standing for a
# machine; the underlay has MTU 1550 so that the hosts keep 1500. The DUTs:
#   xdpbr    xdpbrd in each site with [vxlan] vni 100: the gateway veth, the
#            kernel bridge and the vxlan device it makes
#   bridge   a Linux bridge with the host's port and a vxlan device
#            (nolearning), bridge-nf-call-* at 0 in the site
# No FRR: each site's vxlan device gets the all-zeros FDB entry pointing at
# the other site (what zebra writes from the type-3 route), and the remote
# host's MAC as an extern_learn entry on it (what zebra writes from the
# type-2 route), from which xdpbrd makes its remote entry. Reported: iperf3,
# one stream h1 -> h2, the median Gbit/s over the repetitions per DUT and
# their ratio. Hosts keep their default offloads (containers' veths).
# Needs root, iperf3, and `make`. Cleans up on exit.

set -u
set -o pipefail

cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
XDPBRD=$BUILD/xdpbrd
REPS=3
DURATION=5
JSON_OUT=
ID=$(($$ % 10000))
BR=bo$ID
TMP=$(mktemp -d /tmp/bench-overlay.XXXXXX)
DPIDS=()

while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--json) JSON_OUT=$2; shift 2 ;;
	*) echo "usage: $0 [--reps N] [--duration SECONDS] [--json FILE]" >&2; exit 2 ;;
	esac
done

die()
{
	echo "bench-overlay: $*" >&2
	exit 1
}

cleanup()
{
	local p n
	for p in "${DPIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${DPIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	for n in sa sb h1 h2; do
		ip netns pids "bo$ID-$n" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		ip netns del "bo$ID-$n" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

[ "$(id -u)" -eq 0 ] || die "needs root"
command -v iperf3 >/dev/null || die "iperf3 is not installed (tools/deps.sh)"
[ -x "$XDPBRD" ] || die "$XDPBRD is not built (make)"

# topo: the sites, the underlay, a host on each site's port p1.
topo()
{
	local s i=1
	for s in sa sb; do
		ip netns add "bo$ID-$s" && ip -n "bo$ID-$s" link set dev lo up || return 1
		ip netns exec "bo$ID-$s" sysctl -q -w net.bridge.bridge-nf-call-iptables=0 \
			net.bridge.bridge-nf-call-ip6tables=0 net.bridge.bridge-nf-call-arptables=0 \
			2>/dev/null
	done
	ip -n "bo$ID-sa" link add u0 mtu 1550 type veth peer name u0 netns "bo$ID-sb" mtu 1550 ||
		return 1
	for s in sa sb; do
		ip -n "bo$ID-$s" addr add "198.19.0.$i/24" dev u0 &&
			ip -n "bo$ID-$s" link set dev u0 up || return 1
		ip netns add "bo$ID-h$i" && ip -n "bo$ID-h$i" link set dev lo up &&
			ip -n "bo$ID-$s" link add p1 type veth peer name e0 netns "bo$ID-h$i" &&
			ip -n "bo$ID-$s" link set dev p1 up &&
			ip -n "bo$ID-h$i" link set dev e0 address "02:b0:00:00:00:0$i" &&
			ip -n "bo$ID-h$i" addr add "198.18.1.$i/24" dev e0 &&
			ip -n "bo$ID-h$i" link set dev e0 up || return 1
		i=$((i + 1))
	done
}

# remote_fdb SITE VXLAN PEER MAC: what zebra would write for the other site.
remote_fdb()
{
	ip netns exec "bo$ID-$1" bridge fdb append 00:00:00:00:00:00 dev "$2" dst "$3" self permanent &&
		ip netns exec "bo$ID-$1" bridge fdb add "$4" dev "$2" master extern_learn
}

xdpbr_up()
{
	local s i=1
	for s in sa sb; do
		cat >"$TMP/$s.conf" <<EOF
[bridge]
name = $BR
listen = none
host_interface = off
[port p1]
[vxlan]
vni = 100
local_ip = 198.19.0.$i
underlay = u0
EOF
		ip netns exec "bo$ID-$s" "$XDPBRD" -c "$TMP/$s.conf" >"$TMP/$s.log" 2>&1 &
		DPIDS+=("$!")
		for _ in $(seq 100); do
			grep -q "forwarding on" "$TMP/$s.log" && break
			sleep 0.1
		done
		grep -q "forwarding on" "$TMP/$s.log" || die "xdpbrd in $s: $(cat "$TMP/$s.log")"
		remote_fdb "$s" "$BR-vx" "198.19.0.$((3 - i))" "02:b0:00:00:00:0$((3 - i))" ||
			die "FDB of $s"
		i=$((i + 1))
	done
}

xdpbr_down()
{
	local p
	for p in "${DPIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	DPIDS=()
}

bridge_up()
{
	local s i=1
	for s in sa sb; do
		ip -n "bo$ID-$s" link add br0 type bridge &&
			ip -n "bo$ID-$s" link add vx0 type vxlan id 100 local "198.19.0.$i" \
				dstport 4789 dev u0 nolearning &&
			ip -n "bo$ID-$s" link set dev vx0 master br0 &&
			ip -n "bo$ID-$s" link set dev p1 master br0 &&
			ip -n "bo$ID-$s" link set dev vx0 up && ip -n "bo$ID-$s" link set dev br0 up &&
			remote_fdb "$s" vx0 "198.19.0.$((3 - i))" "02:b0:00:00:00:0$((3 - i))" ||
			die "Linux bridge in $s"
		i=$((i + 1))
	done
}

bridge_down()
{
	local s
	for s in sa sb; do
		ip -n "bo$ID-$s" link del br0
		ip -n "bo$ID-$s" link del vx0
	done
}

# rate: one iperf3 run h1 -> h2, Gbit/s the receiver counted.
rate()
{
	local out
	ip netns exec "bo$ID-h1" ping -c 3 -i 0.2 -W 1 198.18.1.2 >/dev/null || return 1
	out=$(ip netns exec "bo$ID-h1" iperf3 -c 198.18.1.2 -t "$DURATION" -J 2>/dev/null) ||
		return 1
	jq -r '.end.sum_received.bits_per_second / 1e9 | . * 100 | floor / 100' <<<"$out"
}

median()
{
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

topo || die "topology"
declare -A R=()
for ((rep = 1; rep <= REPS; rep++)); do
	for dut in xdpbr bridge; do
		"${dut}_up"
		ip netns exec "bo$ID-h2" iperf3 -s -1 -D 2>/dev/null
		sleep 0.3
		r=$(rate) || r=0
		"${dut}_down"
		R[$dut]+="$r "
		echo "rep $rep $dut: $r Gbit/s" >&2
	done
done
mx=$(tr ' ' '\n' <<<"${R[xdpbr]}" | grep . | median)
mb=$(tr ' ' '\n' <<<"${R[bridge]}" | grep . | median)
printf 'TCP h1 -> h2 across VXLAN, %s reps of %s s, median Gbit/s\n' "$REPS" "$DURATION"
printf '  xdpbr (+ gateway, kernel bridge, vxlan)  %s   (%s)\n' "$mx" "${R[xdpbr]% }"
printf '  Linux bridge + vxlan                     %s   (%s)\n' "$mb" "${R[bridge]% }"
awk -v x="$mx" -v b="$mb" 'BEGIN { if (b > 0) printf "  xdpbr / bridge                           %.2f\n", x / b }'
if [ -n "$JSON_OUT" ]; then
	jq -n --argjson reps "$REPS" --argjson dur "$DURATION" --arg prefix "$BR" \
		--arg x "${R[xdpbr]% }" --arg b "${R[bridge]% }" '
		def nums: split(" ") | map(select(length > 0) | tonumber);
		def median: sort | if length == 0 then null
			elif length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		($x | nums) as $xs | ($b | nums) as $bs
		| { tool: "iperf3, one TCP stream h1 -> h2 across VXLAN (tools/bench-overlay.sh)",
		    prefix: $prefix, duration_s: $dur, reps: $reps,
		    xdpbr_gbps: ($xs | median), bridge_gbps: ($bs | median),
		    xdpbr_reps: $xs, bridge_reps: $bs,
		    xdpbr_over_bridge: (if ($bs | median // 0) > 0
					then ($xs | median) / ($bs | median) * 100 | round / 100
					else null end) }' >"$JSON_OUT" || die "cannot write $JSON_OUT"
fi

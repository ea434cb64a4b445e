#!/usr/bin/env bash
# Interop with the kernel bridge's spanning tree (legacy 802.1D STP,
# stp_state 1): a kernel bridge in a network namespace closes a loop with
# two ports of xdpbr (two veth links), h1 on xdpbr, h2 on the kernel
# bridge. Timers shortened on both sides (hello 1, forward_delay 4,
# max_age 6). xdpbr's ports hear configuration BPDUs and talk legacy STP
# there; the loop converges with exactly one blocking link end, on the
# side that is not the root; no storm; the hosts ping; and the root is
# the bridge with the lower priority, whichever side it is on (the kernel
# bridge first, then xdpbr after `xdpbr bridge set priority`).
# shellcheck disable=SC2016,SC2317 # jq variables in single quotes; functions run through check
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
# shellcheck source=stp_lib.sh
. "$(dirname "$0")/stp_lib.sh"
XT_HOSTIF=off

KNS=xt$ID-k
K1A=xt${ID}k1a K2A=xt${ID}k2a	# xdpbr's ends, root namespace

# kbr: the kernel bridge's STP view as JSON (bridge_id, root_port, ...).
kbr()
{
	ip -n "$KNS" -j -d link show br0 | jq -c '.[0].linkinfo.info_data'
}

# ksys FILE: the kernel bridge's /sys/class/net/br0/bridge/FILE (its ids
# as 8000.020000000001; iproute2 6.1's JSON root_id repeats bridge_id).
ksys()
{
	ip netns exec "$KNS" cat "/sys/class/net/br0/bridge/$1"
}

# kstate PORT: a kernel bridge port's state (bridge link).
kstate()
{
	bridge -n "$KNS" -j link show dev "$1" | jq -r '.[0].state'
}

# kid ID: an xdpbr bridge id as the kernel's sysfs writes it:
# 1000.02:0a:.. -> 1000.020a..
kid()
{
	echo "${1//:/}"
}

# one_blocks: exactly one of the four link ends blocks: xdpbr's two (stp
# show) and the kernel's two (bridge link); the others forward.
one_blocks()
{
	local n=0 s p
	for p in k1b k2b; do
		s=$(kstate "$p")
		case $s in
		blocking) n=$((n + 1)) ;;
		forwarding) ;;
		*) return 1 ;;
		esac
	done
	s=$(stp_blocked_count "$BR:$K1A $BR:$K2A")
	[[ $s =~ ^[0-9]$ ]] || return 1
	[ $((n + s)) = 1 ]
}

# root_is_kernel / root_is_xdpbr: both bridges name that one the root.
root_is_kernel()
{
	local x
	x=$(stp_show "$BR") || return 1
	[ "$(ksys root_id)" = "$(ksys bridge_id)" ] && [ "$(ksys root_port)" = 0 ] &&
		[ "$(kid "$(jq -r .root_id <<<"$x")")" = "$(ksys bridge_id)" ]
}
root_is_xdpbr()
{
	local x
	x=$(stp_show "$BR") || return 1
	jq_true "$x" '.root == true' &&
		[ "$(ksys root_id)" = "$(kid "$(jq -r .bridge_id <<<"$x")")" ]
}

xt_require
topo_up 2
ip netns add "$KNS" || abort "ip netns add $KNS"
XT_CLEANUP_CMDS+=("ip netns del $KNS")
ip netns exec "$KNS" sysctl -q -w net.bridge.bridge-nf-call-iptables=0 \
	net.bridge.bridge-nf-call-ip6tables=0 net.bridge.bridge-nf-call-arptables=0 \
	>/dev/null 2>&1
{
	ip -n "$KNS" link add br0 type bridge stp_state 1 priority 4096 hello_time 100 \
		forward_delay 400 max_age 600 &&
	ip link add "$K1A" type veth peer name k1b netns "$KNS" &&
	ip link add "$K2A" type veth peer name k2b netns "$KNS" &&
	ip link set dev "${PORT[2]}" netns "$KNS" &&
	for p in k1b k2b "${PORT[2]}"; do
		ip -n "$KNS" link set dev "$p" master br0 up || exit 1
	done &&
	ip -n "$KNS" link set dev br0 up &&
	ip link set dev "$K1A" up && ip link set dev "$K2A" up &&
	# frames xdpbr's XDP path redirects into K1A/K2A need NAPI on the
	# peers (MACHINE-FACTS.md): GRO, turned on while they are up
	ip netns exec "$KNS" ethtool -K k1b gro on &&
	ip netns exec "$KNS" ethtool -K k2b gro on
} >"$XT_TMP/k.log" 2>&1 || abort "the kernel bridge" "$(cat "$XT_TMP/k.log")"
STP_LINKS+=("$K1A" "$K2A")
STP_PORT_NS[2]=$KNS
sysctl -q -w "net.ipv6.conf.$K1A.disable_ipv6=1" "net.ipv6.conf.$K2A.disable_ipv6=1" >/dev/null
PORTS=("${PORT[1]}" "$K1A" "$K2A")
CONF=$XT_TMP/xdpbrd.conf
stp_bridge_conf "$CONF" "$BR" 32768 "${PORT[1]}" "$K1A $K2A"
pfx_daemon_start 3 -c "$CONF" || abort "xdpbrd" "$XT_WHY"

# ------------------------------------------------------------ kernel root
if T=$(stp_time_until 40 one_blocks); then
	pass "the kernel bridge as root (priority 4096): converged, one link end blocks (${T} s)"
	echo "# convergence with the kernel bridge (legacy STP, forward_delay 4): ${T} s"
else
	fail "the kernel bridge as root: converged" "kernel: $(kbr)" \
		"k1b $(kstate k1b) k2b $(kstate k2b)" "xdpbr: $(stp_roles "$BR" "$K1A" "$K2A")"
fi
check "both name the kernel bridge the root" xt_poll 10 root_is_kernel
check_eq "xdpbr's root port $K1A forwards, $K2A is alternate, discarding" \
	"$K1A:root/forwarding $K2A:alternate/discarding" "$(stp_roles "$BR" "$K1A" "$K2A")"
check "xdpbr talks legacy STP on both links" xt_poll 10 json_is object \
	'[.ports[] | select(.ifname == $a or .ifname == $b) | .protocol] == ["stp", "stp"]' \
	--arg a "$K1A" --arg b "$K2A" -- stp_show "$BR"
check "no storm: a broadcast from h1 reaches h2 once, never comes back" stp_bcast_once 1 2
check "no storm: a broadcast from h2 reaches h1 once, never comes back" stp_bcast_once 2 1
check "h1 pings h2" xt_poll 10 hping 1 2

# ------------------------------------------------------------ xdpbr root
check "xdpbr bridge set priority 4096" "$XDPBR" -b "$BR" bridge set priority 4096
ip -n "$KNS" link set dev br0 type bridge priority 32768
if T=$(stp_time_until 40 root_is_xdpbr); then
	pass "priorities swapped: both name xdpbr the root (${T} s)"
else
	fail "priorities swapped: both name xdpbr the root" \
		"kernel: root_id $(ksys root_id) bridge_id $(ksys bridge_id)" \
		"xdpbr: $(stp_show "$BR" | jq -c '{bridge_id, root_id}')"
fi
if T=$(stp_time_until 40 one_blocks); then
	pass "xdpbr as root: converged, one link end blocks (${T} s)"
else
	fail "xdpbr as root: converged" "k1b $(kstate k1b) k2b $(kstate k2b)" \
		"xdpbr: $(stp_roles "$BR" "$K1A" "$K2A")"
fi
check_eq "xdpbr's link ends are designated and forwarding" \
	"$K1A:designated/forwarding $K2A:designated/forwarding" "$(stp_roles "$BR" "$K1A" "$K2A")"
check_eq "the kernel bridge blocks its second port" "forwarding blocking" \
	"$(kstate k1b) $(kstate k2b)"
check "no storm: a broadcast from h1 reaches h2 once, never comes back" stp_bcast_once 1 2
check "h1 pings h2" xt_poll 10 hping 1 2
finish

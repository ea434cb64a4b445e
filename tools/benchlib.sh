# shellcheck shell=bash
# benchlib.sh - sourced by the benchmark tools that run a Linux bridge and
# xdpbrd of their own (bench-rfc2889.sh, bench-flood.sh): the pieces they
# share. Sources stopchild.sh. The caller sets DAEMON_PID, BRX (xdpbr's
# bridge), BRK (the Linux bridge), NS (the hosts' namespace) and
# BRNF_SAVED=() and has die MESSAGE.

# shellcheck source=tools/stopchild.sh
. tools/stopchild.sh

# in_range VALUE MIN MAX: VALUE is an integer in MIN..MAX.
in_range()
{
	[[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

# stop_daemon: the xdpbrd DAEMON_PID stopped, BRX's pins gone.
stop_daemon()
{
	[ -n "$DAEMON_PID" ] || return 0
	stop_child "$DAEMON_PID"
	DAEMON_PID=
	rm -rf "/sys/fs/bpf/xdpbr/$BRX"
}

# brnf_restore: the bridge-nf sysctls as linux_bridge_up found them.
brnf_restore()
{
	local kv
	for kv in "${BRNF_SAVED[@]}"; do
		sysctl -q -w "net.bridge.${kv%=*}=${kv#*=}" >/dev/null 2>&1
	done
	BRNF_SAVED=()
}

# linux_bridge_up PORT...: the Linux bridge BRK over the PORTs, IPv6 off
# on it, bridge-nf-call-* at 0 (brnf_restore puts them back), until every
# port forwards (10 s at most).
linux_bridge_up()
{
	local i n
	ip link add name "$BRK" type bridge || die "ip link add $BRK type bridge"
	sysctl -q -w "net.ipv6.conf.$BRK.disable_ipv6=1" >/dev/null
	for i in "$@"; do
		ip link set dev "$i" master "$BRK" || die "$i master $BRK"
	done
	ip link set dev "$BRK" up || die "$BRK up"
	for i in bridge-nf-call-iptables bridge-nf-call-ip6tables bridge-nf-call-arptables; do
		[ -e "/proc/sys/net/bridge/$i" ] || continue
		BRNF_SAVED+=("$i=$(cat "/proc/sys/net/bridge/$i")")
		sysctl -q -w "net.bridge.$i=0" >/dev/null
	done
	for ((i = 0; i < 100; i++)); do
		# (iproute2 6.1 lists every bridge's ports here: filter)
		n=$(bridge -j link show master "$BRK" |
			jq --arg b "$BRK" '[.[] | select(.master == $b and .state == "forwarding")] | length')
		[ "${n:-0}" = $# ] && return 0
		sleep 0.1
	done
	die "$BRK: ${n:-0} of $# ports forwarding after 10 s"
}

# linux_bridge_down: BRK gone, the bridge-nf sysctls restored.
linux_bridge_down()
{
	ip link del dev "$BRK" 2>/dev/null
	brnf_restore
}

# netns_del: NS gone, and whatever ran in it.
netns_del()
{
	[ -e "/run/netns/$NS" ] || return 0
	ip netns pids "$NS" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	ip netns del "$NS" 2>/dev/null
}

#!/usr/bin/env bash
#
# demo.sh - xdpbr in one command (`make demo` builds, then runs this).
#
#   tools/demo.sh [--keep-running]     (or DEMO_KEEP_RUNNING=1)
#   tools/demo.sh --cleanup            remove what a killed demo left behind
#
# Builds a small LAN out of network namespaces:
#
#        demo-h1           demo-h2           demo-h3        hosts (netns)
#     198.18.0.1/24     198.18.0.2/24     198.18.0.3/24
#         e0                e0                e0
#          |                 |                 |            veth pairs
#       demo-p1  ------- demo-p2 ------- demo-p3            bridge "demo"
#       \________ xdpbrd: XDP bridge on the three ports ________/
#                            |
#                     demo (host interface)  198.18.0.254/24: this host
#
# starts build/xdpbrd on two of the root-side ports, adds the third the way
# container and VM tools do (ip link set demo-p3 master demo: the host
# interface is a Linux bridge device), lets the hosts ping each other
# through it, gives the host an address on the bridge's host interface and
# pings every host from it, shows what the bridge learned and counted with
# build/xdpbr and the same state through iproute2's bridge(8),
# and tears everything down again, also on failure or Ctrl-C. With
# --keep-running it stays up until Ctrl-C so you can look around.
# Needs root, and nothing beyond what tools/deps.sh installs.

set -u
set -o pipefail

cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
XDPBRD=$BUILD/xdpbrd
XDPBR=$BUILD/xdpbr
BR=demo
N=3
PIN_DIR=/sys/fs/bpf/xdpbr/$BR
KEEP=${DEMO_KEEP_RUNNING:-0}
LOG=
DAEMON_PID=
FAILED=0

say()
{
	printf '\n==> %s\n' "$*"
}

# show CMD...: print a command, then run it.
show()
{
	printf '$ %s\n' "$*"
	"$@"
}

die()
{
	echo "demo: $*" >&2
	exit 1
}

usage()
{
	cat <<EOF
usage: tools/demo.sh [--keep-running]   (or DEMO_KEEP_RUNNING=1)
       tools/demo.sh --cleanup          remove what a killed demo left behind
EOF
}

# teardown: stop the daemon, delete hosts, ports and any pins left.
teardown()
{
	local i rc

	trap - EXIT INT TERM
	if [ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null; then
		say "stopping xdpbrd (SIGTERM): it detaches from the ports and removes its pins"
		kill -TERM "$DAEMON_PID"
		for ((i = 0; i < 50; i++)); do
			kill -0 "$DAEMON_PID" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$DAEMON_PID" 2>/dev/null; then
			echo "xdpbrd did not exit within 5 s; killing it"
			kill -KILL "$DAEMON_PID"
			FAILED=1
		fi
		wait "$DAEMON_PID"
		rc=$?
		sed -n '/caught signal/,$p' "$LOG"
		[ "$rc" -eq 0 ] || { echo "xdpbrd exited with status $rc"; FAILED=1; }
	fi
	for ((i = 1; i <= N; i++)); do
		ip link del dev "demo-p$i" 2>/dev/null
		ip netns del "demo-h$i" 2>/dev/null
	done
	[ -e "$PIN_DIR" ] && rm -rf "$PIN_DIR"
	# the host interface of a daemon that was killed
	ip link del dev "$BR" 2>/dev/null
	[ -n "$LOG" ] && rm -f "$LOG"
	say "removed the demo hosts, ports and pins"
}

on_signal()
{
	echo
	echo "interrupted"
	teardown
	exit "${1:-1}"
}

case ${1:-} in
--keep-running) KEEP=1 ;;
--cleanup)
	[ "$(id -u)" -eq 0 ] || die "must be run as root"
	DAEMON_PID=
	teardown
	exit 0
	;;
-h | --help)
	usage
	exit 0
	;;
"") ;;
*)
	usage >&2
	exit 1
	;;
esac

[ "$(id -u)" -eq 0 ] || die "must be run as root (it creates network namespaces and attaches XDP programs)"
for f in "$XDPBRD" "$XDPBR"; do
	[ -x "$f" ] || die "$f is missing: run 'make demo' (or 'make') first"
done
for t in ip ethtool ping jq; do
	command -v "$t" >/dev/null || die "'$t' is missing: run 'make deps'"
done
if ip netns list | grep -q '^demo-h' || ip link show dev demo-p1 >/dev/null 2>&1 ||
	ip link show dev "$BR" >/dev/null 2>&1 || [ -e "$PIN_DIR" ]; then
	die "a demo is already running, or one was killed and left its hosts behind; 'tools/demo.sh --cleanup' removes them"
fi

trap 'teardown' EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
LOG=$(mktemp /tmp/xdpbr-demo.XXXXXX.log)

say "creating $N hosts (network namespaces demo-h1..$N), each behind a veth port demo-p1..$N"
for ((i = 1; i <= N; i++)); do
	ns=demo-h$i
	port=demo-p$i
	ip netns add "$ns" || die "couldn't create network namespace $ns"
	ip link add "$port" type veth peer name e0 netns "$ns" ||
		die "couldn't create veth $port"
	# The root-side ports are bridge ports: no addresses of their own.
	sysctl -q -w "net.ipv6.conf.$port.disable_ipv6=1" >/dev/null
	ip link set dev "$port" up
	ip -n "$ns" link set dev lo up
	ip -n "$ns" link set dev e0 address "02:00:00:00:de:0$i"
	ip -n "$ns" addr add "198.18.0.$i/24" dev e0
	# The hosts keep the offloads every container has: veth ports take
	# the skb path (TC), which carries GSO and checksum state along.
	ip -n "$ns" link set dev e0 up
	printf '  %-8s e0 02:00:00:00:de:0%d 198.18.0.%d/24  <->  %s\n' \
		"$ns" "$i" "$i" "$port"
done

say "starting the bridge: $XDPBRD $BR demo-p1 demo-p2"
"$XDPBRD" "$BR" demo-p1 demo-p2 >"$LOG" 2>&1 &
DAEMON_PID=$!
ready=0
for ((i = 0; i < 100; i++)); do
	if ! kill -0 "$DAEMON_PID" 2>/dev/null; then
		wait "$DAEMON_PID"
		echo "xdpbrd exited with status $? while starting:"
		cat "$LOG"
		DAEMON_PID=
		exit 1
	fi
	# the two ports, and the bridge's end of its host interface
	n=$("$XDPBR" -b "$BR" -j link show 2>/dev/null | jq length 2>/dev/null)
	if [ "${n:-0}" = "$N" ] && grep -q "forwarding on" "$LOG"; then
		ready=1
		break
	fi
	sleep 0.1
done
cat "$LOG"
[ $ready = 1 ] || die "xdpbrd did not attach to its 2 ports and its host interface within 10 s"

say "a port joins as container and VM tools add one: the host interface '$BR' is a Linux bridge device"
printf '$ ip -d link show dev %s    (its kind: %s)\n' "$BR" \
	"$(ip -j -d link show dev "$BR" | jq -r '.[0].linkinfo.info_kind')"
show ip link set dev demo-p3 master "$BR" || FAILED=1
for ((i = 0; i < 30; i++)); do
	[ "$("$XDPBR" -b "$BR" -j link show 2>/dev/null |
		jq -c 'any(.[]; .ifname == "demo-p3")' 2>/dev/null)" = true ] && break
	sleep 0.1
done
show "$XDPBR" -b "$BR" link show dev demo-p3 || FAILED=1
"$XDPBR" -b "$BR" link show | grep -q demo-p3 || { echo "demo-p3 did not become a port"; FAILED=1; }

say "the hosts ping each other through the bridge"
for pair in "1 2" "2 3" "3 1"; do
	read -r a b <<<"$pair"
	show ip netns exec "demo-h$a" ping -c 2 -i 0.2 -W 2 "198.18.0.$b" || FAILED=1
	echo
done

say "this host on the bridged LAN: an address on the host interface '$BR'"
show ip addr add 198.18.0.254/24 dev "$BR" || FAILED=1
show ip link set dev "$BR" up || FAILED=1
for ((i = 0; i < 50; i++)); do
	[ "$("$XDPBR" -b "$BR" -j link show dev "$BR-host" 2>/dev/null |
		jq -c '.[0].state == "forwarding"' 2>/dev/null)" = true ] && break
	sleep 0.1
done
for ((i = 1; i <= N; i++)); do
	show ping -c 2 -i 0.2 -W 2 "198.18.0.$i" || FAILED=1
	echo
done
show ip netns exec demo-h1 ping -c 2 -i 0.2 -W 2 198.18.0.254 || FAILED=1

say "what the bridge learned: every host's MAC on its port, the host's own permanent"
show "$XDPBR" -b "$BR" fdb show || FAILED=1
say "the ports"
show "$XDPBR" -b "$BR" link show || FAILED=1
say "per-port counters"
show "$XDPBR" -b "$BR" stats || FAILED=1
say "the same bridge through iproute2: its ports, and the FDB xdpbr learned (extern_learn)"
show bridge link show master "$BR" || FAILED=1
show bridge fdb show br "$BR" || FAILED=1

if [ "$KEEP" = 1 ]; then
	say "the bridge keeps running; press Ctrl-C to stop it and clean up. Try:"
	cat <<EOF
  ip netns exec demo-h1 ping 198.18.0.3
  $XDPBR -b $BR fdb show
  $XDPBR -b $BR -j -p stats
EOF
	# Returns when the daemon exits, or when Ctrl-C runs the trap.
	wait "$DAEMON_PID"
	echo "xdpbrd exited with status $?:"
	cat "$LOG"
	DAEMON_PID=
	exit 1
fi

if [ "$FAILED" != 0 ]; then
	echo
	echo "demo: something did not work; xdpbrd's log:"
	cat "$LOG"
fi
teardown
if [ "$FAILED" != 0 ]; then
	exit 1
fi
say "demo done"

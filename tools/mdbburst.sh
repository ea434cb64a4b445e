#!/usr/bin/env bash
#
# mdbburst.sh - the snooping mirror's cost (daemon/mdbmirror.c): xdpbrd's CPU
# time for a burst of joins into the Linux bridge device's MDB, and for the
# leaves, with G groups on each of P ports.
#
#   tools/mdbburst.sh [--groups G] [--ports P] [--xdpbrd FILE] [--wait S]
#
# P veth ports ${ID}p1.. (their peers ${ID}e1.., in this namespace), one
# bridge $ID of xdpbrd (a Linux bridge device, mcast_snooping 1). The burst
# is `bridge -batch` of G x P `mdb add ... permanent` (the kernel notifies
# each); then the wait until xdpbr_mdb_port holds G x P entries (at most
# --wait seconds, polled every 0.5 s), then 2 s more. Reported: the
# daemon's CPU time over that (utime + stime of /proc/PID/stat), the
# seconds bridge -batch took (the kernel's) and then until the maps held
# the burst, the CPU of 5 s idle with the groups in place (the once-a-second
# resync), and the same for the leaves (`mdb del`, until the map is empty).
#
# Needs root and build/xdpbrd (or --xdpbrd). Removes what it created on
# exit, failure and Ctrl-C.

set -u
set -o pipefail

cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tools/stopchild.sh
. tools/stopchild.sh
XDPBRD=${BUILD:-build}/xdpbrd
GROUPS_N=1000
PORTS_N=10
WAIT=120
ID=mb$(($$ % 10000))
PIN_DIR=/sys/fs/bpf/xdpbr/$ID
TMP=
DAEMON_PID=

die() { echo "mdbburst: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	--groups) GROUPS_N=$2; shift 2 ;;
	--ports) PORTS_N=$2; shift 2 ;;
	--xdpbrd) XDPBRD=$2; shift 2 ;;
	--wait) WAIT=$2; shift 2 ;;
	-h | --help) sed -n '3,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "must be run as root"
[ -x "$XDPBRD" ] || die "$XDPBRD is missing: run make"
((GROUPS_N >= 1 && GROUPS_N <= 4000)) || die "--groups: 1 to 4000"
((PORTS_N >= 1 && PORTS_N <= 100)) || die "--ports: 1 to 100"

# shellcheck disable=SC2317 # called from the traps
cleanup()
{
	local i
	stop_child "$DAEMON_PID"
	DAEMON_PID=
	ip link del dev "$ID" 2>/dev/null
	for ((i = 1; i <= PORTS_N; i++)); do
		ip link del dev "${ID}p$i" 2>/dev/null
	done
	rm -rf "$PIN_DIR"
	[ -n "$TMP" ] && rm -rf "$TMP"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM
TMP=$(mktemp -d) || die "mktemp"

PORTS=()
for ((i = 1; i <= PORTS_N; i++)); do
	ip link add "${ID}p$i" type veth peer name "${ID}e$i" || die "ip link add ${ID}p$i"
	ip link set dev "${ID}e$i" up
	PORTS+=("${ID}p$i")
done
"$XDPBRD" -d xdp "$ID" "${PORTS[@]}" >"$TMP/log" 2>&1 &
DAEMON_PID=$!
for ((i = 0; i < 300; i++)); do
	[ -e "/sys/class/net/$ID/bridge" ] && [ -e "$PIN_DIR/xdpbr_mdb_port" ] &&
		grep -q "mirroring the Linux bridge" "$TMP/log" && break
	kill -0 "$DAEMON_PID" 2>/dev/null || die "xdpbrd exited: $(cat "$TMP/log")"
	sleep 0.1
done
[ "$i" -lt 300 ] || die "xdpbrd did not start in 30 s: $(cat "$TMP/log")"
ip link set dev "$ID" type bridge mcast_snooping 1 mcast_querier 0 || die "mcast_snooping"
ip link set dev "$ID" up

cpu_ms()
{
	local f
	read -ra f <"/proc/$DAEMON_PID/stat" || return 1
	# utime and stime (fields 14 and 15, after "pid (comm)"), in clock ticks
	echo $(((f[13] + f[14]) * 1000 / $(getconf CLK_TCK)))
}

entries() { bpftool -j map dump pinned "$PIN_DIR/xdpbr_mdb_port" 2>/dev/null | jq length; }

# burst WORD N: runs $TMP/WORD (a bridge -batch file), waits for N entries.
burst()
{
	local c0 c1 t0 tb t1 n
	c0=$(cpu_ms)
	t0=$(date +%s.%N)
	bridge -batch "$TMP/$1" || die "bridge -batch $1"
	tb=$(date +%s.%N)
	for ((i = 0; i < WAIT * 2; i++)); do
		n=$(entries)
		[ "${n:-x}" = "$2" ] && break
		sleep 0.5
	done
	t1=$(date +%s.%N)
	sleep 2
	c1=$(cpu_ms)
	printf '%-6s %6d entries: xdpbrd %6d ms CPU; bridge -batch %5.1f s, maps done %5.1f s after it%s\n' \
		"$1" $((GROUPS_N * PORTS_N)) $((c1 - c0)) "$(echo "$tb - $t0" | bc)" \
		"$(echo "$t1 - $tb" | bc)" "$([ "${n:-x}" = "$2" ] || echo " (NOT done in $WAIT s: $n)")"
}

for ((g = 0; g < GROUPS_N; g++)); do
	for p in "${PORTS[@]}"; do
		echo "mdb add dev $ID port $p grp 239.1.$((g / 256)).$((g % 256)) permanent"
	done
done >"$TMP/join"
sed 's/^mdb add/mdb del/; s/ permanent$//' "$TMP/join" >"$TMP/leave"

echo "xdpbrd: $XDPBRD; $GROUPS_N groups x $PORTS_N ports"
burst join $((GROUPS_N * PORTS_N))
c0=$(cpu_ms)
sleep 5
echo "idle   $((GROUPS_N * PORTS_N)) entries: xdpbrd $(($(cpu_ms) - c0)) ms CPU in 5 s"
burst leave 0

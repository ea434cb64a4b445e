# shellcheck shell=bash
# shellcheck disable=SC2034 # variables set here for the test scripts
#
# lib.sh - shared helpers for the integration tests (netns + veth, real
# traffic). Source it first thing from a test script:
#
#   . "$(dirname "$0")/lib.sh"
#   xt_require                      # skip (77) unless root with netns
#   topo_up 3                       # h1..h3, each behind root-side port
#   daemon_start                    # build/xdpbrd $BR ports..., wait ready
#   check "ping h1 -> h2" hexec 1 ping -c 1 -W 2 198.18.0.2
#   finish                          # cleanup, "N passed, N failed", exit
#
# Names are unique per run and fit IFNAMSIZ (15): with ID = PID % 10000
#   bridge       xt$ID              pins in /sys/fs/bpf/xdpbr/xt$ID
#   host i       netns xt$ID-h$i, interface e0, MAC 02:00:00:II:II:0i,
#                198.18.0.i/24 and 2001:2::i/64
#   its port     xt${ID}p$i in the root namespace (the bridge port)
#
# Everything a test creates is removed by an EXIT/INT/TERM trap, also when
# the test fails or is interrupted. The daemon and the CLI run in the root
# namespace: `ip netns exec` would hide the /sys/fs/bpf pins from them.
#
# Output: one "ok - NAME" or "FAIL - NAME" line per check, the details of a
# failure (command, exit status, output) indented below it, and exactly
# "N passed, N failed" as the last line. Exit status 0 when nothing failed,
# 1 otherwise, 77 when skipped.

set -u
set -o pipefail

XT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
XT_BUILD=${BUILD:-build}
case $XT_BUILD in
/*) ;;
*) XT_BUILD=$XT_ROOT/$XT_BUILD ;;
esac
XDPBRD=$XT_BUILD/xdpbrd
XDPBR=$XT_BUILD/xdpbr
SENDFRAME=$XT_BUILD/tools/sendframe
BPF_OBJ=$XT_BUILD/xdpbr.bpf.o
XDPBR_H=$XT_ROOT/include/xdpbr.h
PIN_ROOT=/sys/fs/bpf/xdpbr

ID=$(($$ % 10000))
BR=xt$ID
PIN_DIR=$PIN_ROOT/$BR
XT_TEST=$(basename "$0" .sh)
XT_TMP=$(mktemp -d "/tmp/xdpbr-$XT_TEST.XXXXXX")

NHOSTS=0
NS=()		# NS[i]    netns of host i (1-based)
PORT=()		# PORT[i]  root-side veth of host i: the bridge port
MAC=()		# MAC[i]   MAC of host i's e0
IP4=()		# IP4[i]   198.18.0.i
IP6=()		# IP6[i]   2001:2::i
PORTS=()	# all ports, in order (0-based): the daemon's arguments

DAEMON_PID=
DAEMON_RC=
STOP_RC=
XT_WHY=			# why the last helper failed (for failure details)
DAEMON_LOG=$XT_TMP/xdpbrd.log

T_PASS=0
T_FAIL=0
XT_CLEANED=
XT_PIDS=()		# background processes to kill on cleanup
XT_CLEANUP_CMDS=()	# extra commands (eval'ed) to run on cleanup
declare -A CAP_PID=()	# tcpdump captures by key

trap 'xt_cleanup' EXIT
trap 'xt_cleanup; exit 130' INT
trap 'xt_cleanup; exit 143' TERM

# ---------------------------------------------------------------- results

# pass NAME
pass()
{
	T_PASS=$((T_PASS + 1))
	echo "ok - $1"
}

# fail NAME [DETAIL...]: details are printed indented under the FAIL line.
fail()
{
	local name=$1
	shift
	T_FAIL=$((T_FAIL + 1))
	echo "FAIL - $name"
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@" | sed 's/^/    # /'
	fi
}

# check NAME CMD...: CMD must exit 0. Its output is shown only on failure.
check()
{
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "$name"
		return 0
	fi
	fail "$name" "command: $*" "exit status: $rc" "${out:-(no output)}"
	return 1
}

# check_fail NAME CMD...: CMD must exit non-zero.
check_fail()
{
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		pass "$name"
		return 0
	fi
	fail "$name" "command: $*" "expected a failure, got exit status 0" \
		"${out:-(no output)}"
	return 1
}

# check_eq NAME EXPECTED ACTUAL [DETAIL...]
check_eq()
{
	local name=$1 want=$2 got=$3
	shift 3
	if [ "$want" = "$got" ]; then
		pass "$name"
		return 0
	fi
	fail "$name" "expected: $want" "got:      $got" "$@"
	return 1
}

# check_jq NAME JSON FILTER [JQ-ARGS...]: FILTER applied to JSON must print
# "true". On failure the JSON is shown.
check_jq()
{
	local name=$1 json=$2 filter=$3 got
	shift 3
	got=$(printf '%s' "$json" | jq -e "$@" "$filter" 2>&1)
	if [ "$got" = true ]; then
		pass "$name"
		return 0
	fi
	fail "$name" "jq filter: $filter $*" "result: $got" "input:" "$json"
	return 1
}

# finish: tear everything down, check that nothing was left behind, print
# the summary line and exit.
finish()
{
	xt_cleanup
	xt_check_leftovers
	echo "$T_PASS passed, $T_FAIL failed"
	trap - EXIT
	[ "$T_FAIL" -eq 0 ]
	exit
}

# abort REASON: a step the rest of the test depends on failed.
abort()
{
	fail "$XT_TEST: $1 (remaining checks not run)" "${@:2}"
	finish
}

# skip REASON: only for a missing capability (not root, no netns), never to
# hide a failure. Exits 77.
skip()
{
	echo "SKIP - $XT_TEST: $*"
	trap - EXIT
	xt_cleanup
	exit 77
}

# ---------------------------------------------------------------- setup

# xt_require: skip unless the machine can run the tests; fail when the build
# or a tool from tools/deps.sh is missing (that is not a missing capability).
xt_require()
{
	local t missing=()

	[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, XDP)"
	if ! ip netns add "xt$ID-probe" 2>/dev/null; then
		skip "cannot create network namespaces"
	fi
	ip netns del "xt$ID-probe"
	for t in jq ethtool tcpdump ping arping timeout setpriv clang gcc; do
		command -v $t >/dev/null || missing+=("$t")
	done
	for t in "$XDPBRD" "$XDPBR" "$SENDFRAME"; do
		[ -x "$t" ] || missing+=("$t")
	done
	[ -f "$BPF_OBJ" ] || missing+=("$BPF_OBJ")
	if [ ${#missing[@]} -gt 0 ]; then
		abort "missing: ${missing[*]} (run make deps, make all build/tools/sendframe)"
	fi
}

# topo_up N: hosts 1..N, each a netns whose e0 is the peer of a root-side
# port. GRO is on for e0, or frames the bridge redirects into the port would
# be dropped (see MACHINE-FACTS.md). It must be turned on while e0 is up:
# turned on while e0 is down, ethtool shows it on but the kernel (6.18) does
# not make the port a redirect target, and redirected frames still vanish.
# Root-side ports get no IPv6, so the only frames on the bridge are the
# hosts'.
topo_up()
{
	local n=$1 i ns port mac

	for ((i = 1; i <= n; i++)); do
		ns=xt$ID-h$i
		port=xt${ID}p$i
		mac=$(printf '02:00:00:%02x:%02x:%02x' $((ID >> 8)) $((ID & 255)) "$i")
		NS[i]=$ns
		PORT[i]=$port
		MAC[i]=$mac
		IP4[i]=198.18.0.$i
		IP6[i]=2001:2::$i
		PORTS+=("$port")
		NHOSTS=$i
		ip netns add "$ns" || abort "topo_up: ip netns add $ns"
		ip link add "$port" type veth peer name e0 netns "$ns" ||
			abort "topo_up: ip link add $port"
		sysctl -q -w "net.ipv6.conf.$port.disable_ipv6=1" >/dev/null
		ip link set dev "$port" up || abort "topo_up: $port up"
		{
			ip -n "$ns" link set dev lo up &&
			ip -n "$ns" link set dev e0 address "$mac" &&
			ip -n "$ns" addr add "${IP4[i]}/24" dev e0 &&
			ip -n "$ns" addr add "${IP6[i]}/64" dev e0 nodad &&
			ip -n "$ns" link set dev e0 up &&
			ip netns exec "$ns" ethtool -K e0 gro on
		} >"$XT_TMP/topo.log" 2>&1 ||
			abort "topo_up: configuring host $i" "$(cat "$XT_TMP/topo.log")"
	done
}

# hexec I CMD...: run CMD in host I's network namespace.
hexec()
{
	local i=$1
	shift
	ip netns exec "${NS[i]}" "$@"
}

# hping I J [-6]: one ping from host I to host J, 2 s deadline.
hping()
{
	if [ "${3:-}" = -6 ]; then
		hexec "$1" ping -6 -c 1 -W 2 "${IP6[$2]}"
	else
		hexec "$1" ping -c 1 -W 2 "${IP4[$2]}"
	fi
}

# port_xdp PORT: the XDP state of PORT as iproute2's JSON ("null" if none).
port_xdp()
{
	ip -j link show dev "$1" | jq -c '.[0].xdp'
}

# port_prog_id PORT: id of the XDP program on PORT, empty when none.
port_prog_id()
{
	ip -j link show dev "$1" | jq -r '.[0].xdp.prog.id // empty'
}

# port_counter PORT NAME: counter NAME of PORT from `xdpbr -j stats`.
port_counter()
{
	"$XDPBR" -b "$BR" -j stats dev "$1" | jq -r --arg n "$2" '.[0][$n]'
}

# counter_names: the counter names of include/xdpbr.h, one per line.
counter_names()
{
	sed -n 's/^[[:space:]]*X([A-Z_]*,[[:space:]]*"\([a-z_]*\)").*/\1/p' "$XDPBR_H"
}

# ---------------------------------------------------------------- processes

# proc_alive PID: PID exists and is not a zombie.
proc_alive()
{
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

# stop_pid PID SIGNAL SECONDS: signal PID, wait for it to exit (bounded),
# SIGKILL it after SECONDS. Sets STOP_RC to its exit status ("killed" if it
# had to be killed). PID must be a child of this shell, so never call this
# in a $(...) subshell.
stop_pid()
{
	local pid=$1 sig=$2 secs=$3 i

	kill -s "$sig" "$pid" 2>/dev/null
	for ((i = 0; i < secs * 10; i++)); do
		proc_alive "$pid" || break
		sleep 0.1
	done
	if proc_alive "$pid"; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		STOP_RC=killed
		return
	fi
	wait "$pid" 2>/dev/null
	STOP_RC=$?
}

# daemon_start [OPTION...]: start `xdpbrd OPTION... $BR PORTS...` in the
# background, stdout and stderr to $DAEMON_LOG, and wait (10 s at most)
# until `xdpbr link show` lists every port with XDP attached. Returns 1, with
# the reason and the daemon's log in XT_WHY, if the daemon exits or is not
# ready in time.
# shellcheck disable=SC2120 # the options are optional
daemon_start()
{
	local i n

	: >"$DAEMON_LOG"
	"$XDPBRD" "$@" "$BR" "${PORTS[@]}" >>"$DAEMON_LOG" 2>&1 &
	DAEMON_PID=$!
	DAEMON_RC=
	for ((i = 0; i < 100; i++)); do
		if ! proc_alive "$DAEMON_PID"; then
			wait "$DAEMON_PID"
			DAEMON_RC=$?
			DAEMON_PID=
			XT_WHY="xdpbrd exited with status $DAEMON_RC while starting; its log:
$(cat "$DAEMON_LOG")"
			return 1
		fi
		n=$("$XDPBR" -b "$BR" -j link show 2>/dev/null |
			jq '[.[] | select(.xdp_mode != "none")] | length' 2>/dev/null)
		if [ "${n:-}" = "${#PORTS[@]}" ]; then
			return 0
		fi
		sleep 0.1
	done
	XT_WHY="xdpbrd not ready after 10 s; xdpbr -b $BR -j link show:
$("$XDPBR" -b "$BR" -j link show 2>&1)
xdpbrd log:
$(cat "$DAEMON_LOG")"
	return 1
}

# daemon_stop [SIGNAL]: stop the daemon (SIGTERM by default), wait for it
# (10 s at most, then SIGKILL). Sets DAEMON_RC to its exit status, or
# "killed". Returns 0 if it exited by itself.
# shellcheck disable=SC2120 # the signal is optional
daemon_stop()
{
	[ -n "$DAEMON_PID" ] || return 1
	stop_pid "$DAEMON_PID" "${1:-TERM}" 10
	DAEMON_RC=$STOP_RC
	DAEMON_PID=
	[ "$DAEMON_RC" != killed ]
}

# ---------------------------------------------------------------- capture

# Captures run in immediate mode: buffered, the last packets before tcpdump
# is stopped would never be printed, and a capture that must see nothing
# could pass because it saw too late.
#
# cap_start KEY I FILTER [SECONDS] [COUNT]: capture on host I's e0 for at
# most SECONDS (default 4), stopping after COUNT packets if given. Returns
# once tcpdump is listening (5 s at most), 1 (reason in XT_WHY) if it could
# not start.
cap_start()
{
	xt_cap "$1" "${NS[$2]}" e0 "$3" "${4:-4}" "${5:-}" ip netns exec "${NS[$2]}"
}

# cap_start_root KEY DEV FILTER [SECONDS] [COUNT]: the same on DEV in the
# root namespace (what the host stack behind a bridge port receives).
cap_start_root()
{
	xt_cap "$1" root "$2" "$3" "${4:-4}" "${5:-}"
}

# xt_cap KEY WHERE DEV FILTER SECONDS COUNT [PREFIX...]
xt_cap()
{
	local key=$1 where=$2 dev=$3 filter=$4 secs=$5 count=$6 k
	local out=$XT_TMP/cap.$key.out err=$XT_TMP/cap.$key.err

	shift 6
	"$@" timeout "$secs" tcpdump -i "$dev" -nn -e -l --immediate-mode \
		${count:+-c "$count"} "$filter" >"$out" 2>"$err" &
	CAP_PID[$key]=$!
	XT_PIDS+=("$!")
	for ((k = 0; k < 50; k++)); do
		grep -q '^listening on' "$err" && return 0
		proc_alive "${CAP_PID[$key]}" || break
		sleep 0.1
	done
	XT_WHY="tcpdump '$filter' on $dev ($where) did not start:
$(cat "$err")"
	return 1
}

# cap_wait KEY: wait for capture KEY to end; prints how many packets it saw.
cap_wait()
{
	local key=$1
	wait "${CAP_PID[$key]}" 2>/dev/null
	# A packet is a line starting with its timestamp; continuation lines
	# (hex dumps) are indented, and tcpdump adds an empty line when killed.
	grep -c '^[0-9]' "$XT_TMP/cap.$key.out"
}

# cap_show KEY: what capture KEY printed (for failure details).
cap_show()
{
	cat "$XT_TMP/cap.$1.out" "$XT_TMP/cap.$1.err"
}

# ---------------------------------------------------------------- teardown

# xt_cleanup: kill what we started, delete links, namespaces and pins.
# Idempotent; runs from finish and from the EXIT/INT/TERM traps.
xt_cleanup()
{
	local pid i cmd

	[ -z "$XT_CLEANED" ] || return 0
	XT_CLEANED=1
	for pid in "${XT_PIDS[@]}"; do
		proc_alive "$pid" && stop_pid "$pid" TERM 2
	done
	if [ -n "$DAEMON_PID" ]; then
		stop_pid "$DAEMON_PID" TERM 5
		DAEMON_PID=
	fi
	for cmd in "${XT_CLEANUP_CMDS[@]}"; do
		eval "$cmd" >/dev/null 2>&1
	done
	for ((i = 1; i <= NHOSTS; i++)); do
		# Processes still inside a test namespace were started by this
		# test (a stray ping or capture).
		ip netns pids "${NS[i]}" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		ip link del dev "${PORT[i]}" 2>/dev/null
		ip netns del "${NS[i]}" 2>/dev/null
	done
	if [ -e "$PIN_DIR" ]; then
		rm -rf "$PIN_DIR"
	fi
	rm -rf "$XT_TMP"
	return 0
}

# xt_check_leftovers: after xt_cleanup, nothing of this run may remain.
xt_check_leftovers()
{
	local left

	left=$({
		ip netns list | grep "^xt$ID-"
		ip -br link | grep "^xt${ID}p"
		[ -e "$PIN_DIR" ] && echo "$PIN_DIR"
	} 2>&1)
	if [ -z "$left" ]; then
		pass "cleanup leaves no namespaces, links or pins"
	else
		fail "cleanup leaves no namespaces, links or pins" "$left"
	fi
}

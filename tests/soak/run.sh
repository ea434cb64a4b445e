#!/usr/bin/env bash
#
# run.sh - the soak run (`make soak`): the fault and MAC-flood scenarios of
# tests/integration/test_faults.sh and test_macflood.sh, made longer, with
# their figures. Not part of make check. Needs root; run from anywhere.
#
# usage: tests/soak/run.sh [OPTION...]
#   --secs N        iperf3 seconds per fault scenario (default 20)
#   --rounds N      rounds of the kill -9 and upgrade faults (default 5)
#   --macs N        source MACs of the flood (default 1000000)
#   --flood-secs N  seconds of each flood round, full rate (default 20)
#   --fdb-size N    xdpbrd --fdb-size for the flood (default 262144)
#   --max N         fdb_max_learned of the first flood round (default 200000)
#   --unmount       also unmount bpffs under the running bridge: the daemon
#                   must log how to mount it again, keep forwarding, and pin
#                   the bridge again once it is mounted. Same as SOAK_UNMOUNT=1.
#   --only WORD     only faults or macflood
#
# The unmount fault runs test_faults.sh in a private mount namespace
# (unshare --mount --propagation private): /sys/fs/bpf is unmounted there
# only, and other bridges and tests on the machine keep their pins. Without
# --unmount (or SOAK_UNMOUNT=1) it is not run at all.
#
# Every check of the two tests is printed ("ok - ..." / "FAIL - ..."), the
# figures as "info:" lines and with the checks (Mbit/s, Mpps, ms, KiB), and
# the last line is "soak: N passed, N failed"; exit status 1 if any failed.

set -u
set -o pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECS=${SOAK_SECS:-20}
ROUNDS=${SOAK_ROUNDS:-5}
MACS=${SOAK_MACS:-1000000}
FLOOD_SECS=${SOAK_FLOOD_SECS:-20}
FDB_SIZE=${SOAK_FDB_SIZE:-262144}
MAX=${SOAK_MAX:-200000}
UNMOUNT=${SOAK_UNMOUNT:-0}
ONLY=

usage()
{
	sed -n '5,19s/^# \{0,1\}//p' "$0"
	exit "${1:-2}"
}

num()
{
	[[ $2 =~ ^[0-9]+$ ]] || { echo "soak: $1 wants a number, got '$2'" >&2; exit 2; }
}

while [ $# -gt 0 ]; do
	case $1 in
	--secs) num "$1" "${2-}"; SECS=$2; shift ;;
	--rounds) num "$1" "${2-}"; ROUNDS=$2; shift ;;
	--macs) num "$1" "${2-}"; MACS=$2; shift ;;
	--flood-secs) num "$1" "${2-}"; FLOOD_SECS=$2; shift ;;
	--fdb-size) num "$1" "${2-}"; FDB_SIZE=$2; shift ;;
	--max) num "$1" "${2-}"; MAX=$2; shift ;;
	--unmount) UNMOUNT=1 ;;
	--only)
		case ${2-} in faults | macflood) ONLY=$2 ;; *) usage ;; esac
		shift ;;
	-h | --help) usage 0 ;;
	*) usage ;;
	esac
	shift
done

[ "$(id -u)" -eq 0 ] || { echo "soak: needs root (network namespaces, XDP)" >&2; exit 1; }
((MAX < FDB_SIZE)) || { echo "soak: --max must be below --fdb-size" >&2; exit 2; }

PASSED=0
FAILED=0
LOG=$(mktemp /tmp/xdpbr-soak.XXXXXX)
trap 'rm -f "$LOG"' EXIT

# suite NAME CMD...: run one test, show its output as it comes, count it.
suite()
{
	local name=$1 rc p f t0=$SECONDS
	shift
	echo "== $name: $*"
	"$@" </dev/null 2>&1 | tee "$LOG"
	rc=$?
	read -r p f < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$LOG" | tail -n 1)
	if [ -z "${p:-}" ]; then
		p=0 f=1
		echo "soak: $name ended with status $rc and no summary"
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "soak: $name exited with status $rc although no check failed"
	fi
	PASSED=$((PASSED + p))
	FAILED=$((FAILED + f))
	echo "== $name: $p passed, $f failed in $((SECONDS - t0)) s"
	echo
}

if [ -z "$ONLY" ] || [ "$ONLY" = faults ]; then
	if [ "$UNMOUNT" = 1 ]; then
		suite "faults ($ROUNDS rounds, ${SECS} s of iperf3 each, bpffs unmounted in a private mount namespace)" \
			unshare --mount --propagation private \
			env FLT_SECS="$SECS" FLT_ROUNDS="$ROUNDS" FLT_UNMOUNT=1 \
			"$ROOT/tests/integration/test_faults.sh"
	else
		suite "faults ($ROUNDS rounds, ${SECS} s of iperf3 each; --unmount not given)" \
			env FLT_SECS="$SECS" FLT_ROUNDS="$ROUNDS" FLT_UNMOUNT=0 \
			"$ROOT/tests/integration/test_faults.sh"
	fi
fi
if [ -z "$ONLY" ] || [ "$ONLY" = macflood ]; then
	suite "MAC flood ($MACS MACs, ${FLOOD_SECS} s a round, fdb_size $FDB_SIZE, fdb_max_learned $MAX)" \
		env MF_MACS="$MACS" MF_SECS="$FLOOD_SECS" MF_FDB_SIZE="$FDB_SIZE" MF_MAX="$MAX" \
		"$ROOT/tests/integration/test_macflood.sh"
fi

echo "soak: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]

#!/usr/bin/env bash
#
# run.sh - run every test suite of xdpbr and sum up (`make check` runs this
# after building):
#
#   unit         build/tests/test_<module>     cmocka, one per tests/unit/test_*.c
#   datapath     build/tests/test_datapath     BPF_PROG_RUN fixtures
#   integration  tests/integration/test_*.sh   netns + veth, real traffic,
#                on the skb (TC) path of veth ports and again on the XDP
#                path (integration-xdp/)
#   vm           tests/vm/test_*.sh          Debian 12's kernel (6.1) in QEMU,
#                e1000e and virtio-net NICs (once; skipped without QEMU)
#   sanitize     build-san/tests/...           the unit and datapath suites
#                built with ASan and UBSan (SAN_BUILD; make check builds
#                it; not run when BUILD is that build already)
#
# usage: tests/run.sh [WORD...]   only the suites whose name contains a WORD
#
# One line per suite; a failing suite's whole output follows its line
# (V=1 shows every suite's output). Exit status 77 from a suite means
# skipped (the reason is printed); with CI=true a skip counts as a failure,
# because CI machines must be able to run everything. The last line is
# exactly "check: N passed, N failed", the cases of all suites; the exit
# status is 1 if any failed.

set -u
set -o pipefail

cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
SAN_BUILD=${SAN_BUILD:-build-san}
VERBOSE=${V:-0}
CI=${CI:-false}
UNIT_TIMEOUT=120
INTEGRATION_TIMEOUT=600
VM_TIMEOUT=1200
LOG_DIR=$(mktemp -d /tmp/xdpbr-check.XXXXXX)
trap 'rm -rf "$LOG_DIR"' EXIT
# cmocka's default output format, the one parsed below.
unset CMOCKA_MESSAGE_OUTPUT CMOCKA_XML_FILE

PASSED=0
FAILED=0
SKIPPED=0
SELECT=("$@")

selected()
{
	local w
	[ ${#SELECT[@]} -eq 0 ] && return 0
	for w in "${SELECT[@]}"; do
		[[ $1 == *"$w"* ]] && return 0
	done
	return 1
}

# parse_cmocka LOG: "PASSED FAILED" summed over every group summary, or
# nothing when there is none.
parse_cmocka()
{
	awk '
		/^\[  PASSED  \] [0-9]+ test\(s\)/ { p += $4; seen = 1 }
		/^\[  FAILED  \] [0-9]+ test\(s\)/ { f += $4; seen = 1 }
		END { if (seen) print p + 0, f + 0 }
	' "$1"
}

# parse_summary LOG: "PASSED FAILED" from the last "N passed, N failed" line.
parse_summary()
{
	sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p' "$1" | tail -n 1
}

# report NAME STATUS DETAIL LOG: print the suite's line and, on failure or
# with V=1, its output.
report()
{
	local name=$1 status=$2 detail=$3 log=$4
	printf '%-4s  %-34s %s\n' "$status" "$name" "$detail"
	if [ "$status" = FAIL ] || [ "$VERBOSE" = 1 ]; then
		sed 's/^/      | /' "$log"
	fi
}

# run_suite NAME KIND TIMEOUT CMD...: KIND is cmocka or summary.
run_suite()
{
	local name=$1 kind=$2 secs=$3 log rc counts p f reason
	shift 3
	selected "$name" || return 0
	log=$LOG_DIR/${name//\//_}.log

	if [ ! -x "$1" ]; then
		echo "$1: not built (run make check, or make all and the test targets)" >"$log"
		FAILED=$((FAILED + 1))
		report "$name" FAIL "not built" "$log"
		return
	fi
	timeout -k 10 "$secs" "$@" </dev/null >"$log" 2>&1
	rc=$?

	if [ $rc -eq 77 ]; then
		reason=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
		if [ "$CI" = true ]; then
			FAILED=$((FAILED + 1))
			report "$name" FAIL "skipped, and CI=true: ${reason:-no reason given}" "$log"
		else
			SKIPPED=$((SKIPPED + 1))
			report "$name" SKIP "${reason:-no reason given}" "$log"
		fi
		return
	fi

	if [ "$kind" = cmocka ]; then
		counts=$(parse_cmocka "$log")
	else
		counts=$(parse_summary "$log")
	fi
	if [ -z "$counts" ]; then
		# Crashed, hung or printed no summary: one failure for the suite.
		p=0 f=1
		if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
			echo "run.sh: killed after ${secs} s" >>"$log"
		else
			echo "run.sh: exited with status $rc and no result summary" >>"$log"
		fi
	else
		read -r p f <<<"$counts"
		if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
			echo "run.sh: exited with status $rc although no case failed" >>"$log"
			f=1
		fi
	fi
	PASSED=$((PASSED + p))
	FAILED=$((FAILED + f))
	if [ "$f" -eq 0 ]; then
		report "$name" ok "$p passed" "$log"
	else
		report "$name" FAIL "$p passed, $f failed" "$log"
	fi
}

# run_built PREFIX DIR: the unit and datapath suites of the build in DIR,
# their names prefixed with PREFIX.
run_built()
{
	local src t
	for src in tests/unit/test_*.c; do
		[ -e "$src" ] || continue
		t=$(basename "$src" .c)
		run_suite "${1}unit/$t" cmocka "$UNIT_TIMEOUT" "$2/tests/$t"
	done
	if [ -e tests/bpf/test_datapath.c ]; then
		run_suite "${1}datapath/test_datapath" summary "$UNIT_TIMEOUT" \
			"$2/tests/test_datapath"
	fi
}

run_built "" "$BUILD"

# The same unit and datapath suites built with ASan and UBSan: a report
# makes the binary exit non-zero (leak check at exit, UB fatal).
if [ "$SAN_BUILD" != "$BUILD" ]; then
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
	run_built sanitize/ "$SAN_BUILD"
	unset ASAN_OPTIONS UBSAN_OPTIONS
fi

# Every integration suite runs on both datapaths of veth ports: the skb
# path they take by default (TC, "integration/") and the XDP path that
# physical ports take ("integration-xdp/", XT_DATAPATH=xdp), unless its
# header names one ("# datapaths: xdp" or "# datapaths: auto").
for t in tests/integration/test_*.sh; do
	[ -e "$t" ] || continue
	dps=$(sed -n 's/^# datapaths: //p' "$t" | head -n 1)
	for dp in ${dps:-auto xdp}; do
		name=integration/$(basename "$t" .sh)
		[ "$dp" = auto ] || name=integration-$dp/$(basename "$t" .sh)
		export XT_DATAPATH=$dp
		run_suite "$name" summary "$INTEGRATION_TIMEOUT" "$t"
	done
done
unset XT_DATAPATH

# The VM lane (tests/vm/test_*.sh, "vm/"): Debian 12's own kernel in QEMU,
# with e1000e and virtio-net NICs. Once, not per datapath: the guest's
# ports are no veth. Without qemu-system-x86_64 it skips, and says so.
for t in tests/vm/test_*.sh; do
	[ -e "$t" ] || continue
	run_suite "vm/$(basename "$t" .sh)" summary "$VM_TIMEOUT" "$t"
done

if [ "$SKIPPED" -gt 0 ]; then
	echo "$SKIPPED suite(s) skipped (not counted; CI=true counts a skip as a failure)"
fi
echo "check: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]

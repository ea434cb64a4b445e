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
# One line per suite, with its time; a failing suite's whole output follows
# its line (V=1 shows every suite's output), and its log stays in
# $CHECK_LOGS (build/check-logs/ by default; cleared at the start, named at
# the end), with times.txt, every suite's seconds as "NAME SECONDS STATUS".
#
# Time: a suite is killed after 3 times the seconds tests/suite-times
# (CHECK_TIMES) records for it (at least 60 s, CHECK_TIME_FLOOR; a suite
# missing there gets its kind's default and a note). The whole run stops at CHECK_DEADLINE seconds
# (default 4800, 80 min: CI gives `.ci/run` 90, deps and two builds
# included): a suite running then is killed, the suites not started are
# each counted as one failure, and the closing line is still printed.
#
# Skips: exit status 77 means the machine can't run the suite (not root,
# no network namespaces, a kernel that lacks or has what the suite is
# about, a shared resource someone else holds); the reason is printed. A
# tool tools/deps.sh installs being absent is a failure, not a skip (make
# check runs make deps). With CI=true (`.ci/run` sets it) every skip counts
# as a failure: CI machines must be able to run everything. The last line is
# exactly "check: N passed, N failed", the cases of all suites; the exit
# status is 1 if any failed.

set -u
set -o pipefail

cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
SAN_BUILD=${SAN_BUILD:-build-san}
VERBOSE=${V:-0}
CI=${CI:-false}
# Timeouts of the suites tests/suite-times does not list, by kind.
UNIT_TIMEOUT=120
INTEGRATION_TIMEOUT=600
VM_TIMEOUT=1200
TIMES_FILE=${CHECK_TIMES:-tests/suite-times}
TIME_FACTOR=3
TIME_FLOOR=${CHECK_TIME_FLOOR:-60}
CHECK_DEADLINE=${CHECK_DEADLINE:-4800}
LOG_DIR=${CHECK_LOGS:-$BUILD/check-logs}
mkdir -p "$LOG_DIR" || exit 1
rm -f "$LOG_DIR"/*.log "$LOG_DIR/times.txt"
# cmocka's default output format, the one parsed below.
unset CMOCKA_MESSAGE_OUTPUT CMOCKA_XML_FILE

# MEASURED[NAME]: the seconds tests/suite-times records for suite NAME.
declare -A MEASURED=()
while read -r name secs _; do
	[[ $name == "#"* || -z $name ]] && continue
	MEASURED[$name]=$secs
done <"$TIMES_FILE"
START=${EPOCHREALTIME/./}
UNMEASURED=()

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

# secs_since T0: seconds (one decimal) from T0, an EPOCHREALTIME without
# its point, to now.
secs_since()
{
	local d=$((${EPOCHREALTIME/./} - $1))
	printf '%d.%d' $((d / 1000000)) $((d % 1000000 / 100000))
}

# report NAME STATUS DETAIL LOG SECONDS: print the suite's line and, on
# failure or with V=1, its output. A failed suite's log is kept, the
# others' removed; every suite's time goes to times.txt.
report()
{
	local name=$1 status=$2 detail=$3 log=$4 secs=$5
	printf '%-4s  %-34s %7s s  %s\n' "$status" "$name" "$secs" "$detail"
	if [ "$status" = FAIL ] || [ "$VERBOSE" = 1 ]; then
		sed 's/^/      | /' "$log"
	fi
	[ "$status" = FAIL ] || rm -f "$log"
	echo "$name $secs $status" >>"$LOG_DIR/times.txt"
}

# suite_timeout NAME DEFAULT: SUITE_TIMEOUT, the seconds suite NAME may
# take: TIME_FACTOR times what tests/suite-times records (TIME_FLOOR at
# least), else DEFAULT. Not in $(...): it adds to UNMEASURED.
suite_timeout()
{
	local m=${MEASURED[$1]:-} t
	if [ -z "$m" ]; then
		UNMEASURED+=("$1")
		SUITE_TIMEOUT=$2
		return
	fi
	t=$(awk -v m="$m" -v f="$TIME_FACTOR" 'BEGIN { printf "%d", m * f + 0.999 }')
	SUITE_TIMEOUT=$((t > TIME_FLOOR ? t : TIME_FLOOR))
}

# run_suite NAME KIND DEFAULT-TIMEOUT CMD...: KIND is cmocka or summary.
run_suite()
{
	local name=$1 kind=$2 secs=$3 log rc counts p f reason t0 left cut=
	shift 3
	selected "$name" || return 0
	suite_timeout "$name" "$secs"
	secs=$SUITE_TIMEOUT
	log=$LOG_DIR/${name//\//_}.log
	t0=${EPOCHREALTIME/./}
	left=$((CHECK_DEADLINE - (t0 - START) / 1000000))

	if ((left <= 0)); then
		echo "run.sh: not run: the run's deadline (CHECK_DEADLINE=$CHECK_DEADLINE s) had passed" >"$log"
		FAILED=$((FAILED + 1))
		report "$name" FAIL "not run: past the deadline ($CHECK_DEADLINE s)" "$log" 0.0
		return
	fi
	((left < secs)) && secs=$left cut=1
	if [ ! -x "$1" ]; then
		echo "$1: not built (run make check, or make all and the test targets)" >"$log"
		FAILED=$((FAILED + 1))
		report "$name" FAIL "not built" "$log" 0.0
		return
	fi
	timeout -k 10 "$secs" "$@" </dev/null >"$log" 2>&1
	rc=$?

	if [ $rc -eq 77 ]; then
		reason=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
		if [ "$CI" = true ]; then
			FAILED=$((FAILED + 1))
			report "$name" FAIL "skipped, and CI=true: ${reason:-no reason given}" \
				"$log" "$(secs_since "$t0")"
		else
			SKIPPED=$((SKIPPED + 1))
			report "$name" SKIP "${reason:-no reason given}" "$log" "$(secs_since "$t0")"
		fi
		return
	fi

	if [ "$kind" = cmocka ]; then
		counts=$(parse_cmocka "$log")
	else
		counts=$(parse_summary "$log")
	fi
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		# Killed: one failure more than it counted, whatever it printed.
		counts=
		if [ -n "$cut" ]; then
			echo "run.sh: killed after ${secs} s, at the run's deadline (CHECK_DEADLINE=$CHECK_DEADLINE s)" >>"$log"
		else
			echo "run.sh: killed after ${secs} s (${MEASURED[$name]:-no} s measured, $TIMES_FILE)" >>"$log"
		fi
	fi
	if [ -z "$counts" ]; then
		# Crashed, hung or printed no summary: one failure for the suite.
		p=0 f=1
		[ $rc -eq 124 ] || [ $rc -eq 137 ] ||
			echo "run.sh: exited with status $rc and no result summary" >>"$log"
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
		report "$name" ok "$p passed" "$log" "$(secs_since "$t0")"
	else
		report "$name" FAIL "$p passed, $f failed" "$log" "$(secs_since "$t0")"
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

if [ ${#UNMEASURED[@]} -gt 0 ]; then
	echo "no time in $TIMES_FILE (default timeout used): ${UNMEASURED[*]}"
fi
if [ "$SKIPPED" -gt 0 ]; then
	echo "$SKIPPED suite(s) skipped (not counted; CI=true counts a skip as a failure)"
fi
# The failed checks again, last, with their first lines of detail: a
# CI log cut in the middle still ends with what failed.
if [ "$FAILED" -gt 0 ]; then
	echo "failed checks:"
	for log in "$LOG_DIR"/*.log; do
		[ -e "$log" ] || continue
		echo "  ${log##*/}:"
		if grep -qE '^FAIL - |^\[  FAILED  \] ' "$log"; then
			awk '/^FAIL - |^\[  FAILED  \] / { n = 6; print; next }
			     n > 0 && /^[ \t]/ { n--; print; next }
			     { n = 0 }' "$log" | cut -c1-200 | head -n 60 | sed 's/^/    /'
		else
			grep -v '^[[:space:]]*$' "$log" | tail -n 5 | cut -c1-200 | sed 's/^/    /'
		fi
	done
	echo "logs of the failed suites: $LOG_DIR/"
fi
echo "total: $(secs_since "$START") s"
echo "check: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]

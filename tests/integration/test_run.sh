#!/usr/bin/env bash
# datapaths: auto
# tests/run.sh keeps CI inside its time and says what happened: each
# suite's line has its seconds and the run its total; a suite that runs
# past 3 times its measured time is killed and fails, its log kept in
# CHECK_LOGS with the reason; past CHECK_DEADLINE nothing more runs, each
# suite not run counts as a failure, and the closing line is still
# "check: N passed, N failed"; with CI=true a skip fails.
#
# run.sh runs here on small selections of the real suites (unit/test_util,
# unit/test_json and integration/test_helpers: quick, no root needed) with
# its own log directory and a table of times of this test's making.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

RUN=$XT_ROOT/tests/run.sh
LOGS=$XT_TMP/logs

# run KEY ENV... -- WORD...: run.sh on the suites WORD selects, with the
# environment ENV; its output in $XT_TMP/KEY.out, its status in RC.
run()
{
	local key=$1
	local -a env=()
	shift
	while [ "$1" != -- ]; do
		env+=("$1")
		shift
	done
	shift
	env BUILD="$XT_BUILD" SAN_BUILD="$XT_BUILD" CHECK_LOGS="$LOGS" "${env[@]}" \
		"$RUN" "$@" >"$XT_TMP/$key.out" 2>&1
	RC=$?
}

# last KEY: the last line run KEY printed.
last()
{
	tail -n 1 "$XT_TMP/$key.out"
}

# --- a passing selection: times, the total, the closing line
run pass -- unit/test_util
key=pass
check_eq "a passing suite: exit status 0" 0 "$RC" "$(cat "$XT_TMP/pass.out")"
check "its line: ok, its name, its seconds, what passed" \
	grep -qE '^ok +unit/test_util +[0-9]+\.[0-9] s +[0-9]+ passed$' "$XT_TMP/pass.out"
check "a total in seconds" grep -qE '^total: [0-9]+\.[0-9] s$' "$XT_TMP/pass.out"
check "the closing line: check: N passed, 0 failed" \
	grep -qE '^check: [1-9][0-9]* passed, 0 failed$' <<<"$(last pass)"
check "times.txt has the suite's seconds" \
	grep -qE '^unit/test_util [0-9]+\.[0-9] ok$' "$LOGS/times.txt"
check_eq "a passing suite's log is not kept" "" "$(cd "$LOGS" && ls ./*.log 2>/dev/null)"

# --- killed after 3 times its measured time
printf 'integration/test_helpers 0.1\n' >"$XT_TMP/times"
run slow CHECK_TIMES="$XT_TMP/times" CHECK_TIME_FLOOR=1 -- integration/test_helpers
key=slow
check_eq "a suite past 3 x 0.1 s (1 s at least): exit status 1" 1 "$RC" \
	"$(cat "$XT_TMP/slow.out")"
check "its line: FAIL" grep -qE '^FAIL +integration/test_helpers ' "$XT_TMP/slow.out"
check "its output shown: killed after 1 s, 0.1 s measured" \
	grep -qF 'run.sh: killed after 1 s (0.1 s measured' "$XT_TMP/slow.out"
check "its log kept in CHECK_LOGS, with the reason" \
	grep -qF 'run.sh: killed after 1 s' "$LOGS/integration_test_helpers.log"
check "the end names the log directory" grep -qF "logs of the failed suites: $LOGS/" \
	"$XT_TMP/slow.out"
check "the closing line counts it: check: N passed, N failed" \
	grep -qE '^check: [0-9]+ passed, [1-9][0-9]* failed$' <<<"$(last slow)"

# --- past the deadline: not run, failed, and the closing line all the same
run late CHECK_DEADLINE=0 -- unit/test_util unit/test_json
key=late
check_eq "past the deadline: exit status 1" 1 "$RC" "$(cat "$XT_TMP/late.out")"
check_eq "both suites: FAIL, not run" 2 \
	"$(grep -cE '^FAIL +unit/test_(util|json) +0\.0 s +not run: past the deadline' \
		"$XT_TMP/late.out")" "$(cat "$XT_TMP/late.out")"
check_eq "the closing line: check: 0 passed, 2 failed" "check: 0 passed, 2 failed" "$(last late)"

# --- no time recorded: the default, and a note
printf '# none\n' >"$XT_TMP/times0"
run none CHECK_TIMES="$XT_TMP/times0" -- unit/test_util
check "a suite without a recorded time is named at the end" \
	grep -qF "no time in $XT_TMP/times0 (default timeout used): unit/test_util" \
	"$XT_TMP/none.out"

finish

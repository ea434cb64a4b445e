#!/usr/bin/env bash
#
# run.sh - run the libFuzzer harnesses of tests/fuzz/ (`make fuzz` runs this
# after building them with `make fuzz-build`):
#
#   datapath  BPF_PROG_RUN of xdpbr_rx, frame invariants   (root)
#   config    config_parse_string / config_parse_file
#   cli       cli_parse
#   http      the statistics endpoint over TCP              (root)
#   bpdu      stp_rx and the RSTP engine's state machines
#
# usage: tests/fuzz/run.sh [-b BUILD] [-t SECONDS] [-c CORPUS_DIR]
#                          [-f FINDINGS_DIR] [-l LOG_DIR] [HARNESS...]
#
#   -b  build directory with fuzz/fuzz_HARNESS (default: build, or $BUILD)
#   -t  seconds per harness (default 60)
#   -c  where the corpus each run grows is kept, per harness
#       (default BUILD/fuzz/corpus; tests/fuzz/corpus/HARNESS, the seeds,
#       is read, never written)
#   -f  where reproducers of findings go, per harness
#       (default BUILD/fuzz/findings)
#   -l  where libFuzzer's output goes, HARNESS.log (default BUILD/fuzz/logs;
#       runs at the same time want one each)
#
# One line per harness:
#   ok   HARNESS  T s: N execs (R/s), cov C, ft F, corpus K (S seeds)
#   FAIL HARNESS  ...: the finding, the reproducer, how to replay it
# then what the harness itself tallied (frames and verdicts, responses and
# statuses), indented, and on failure the end of its log. The last line is
# "fuzz: N harnesses, N with findings, N not run". Exit status 0 when every
# harness ran and found nothing, 1 when one found something, 2 when one
# could not run (not built, not root, setup failed).

set -u
set -o pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
SECS=60
CORPUS=
FINDINGS=
LOGS=
ALL=(datapath config cli http bpdu)

while getopts "b:t:c:f:l:h" o; do
	case $o in
	b) BUILD=$OPTARG ;;
	t) SECS=$OPTARG ;;
	c) CORPUS=$OPTARG ;;
	f) FINDINGS=$OPTARG ;;
	l) LOGS=$OPTARG ;;
	*) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $BUILD in
/*) ;;
*) BUILD=$ROOT/$BUILD ;;
esac
CORPUS=${CORPUS:-$BUILD/fuzz/corpus}
FINDINGS=${FINDINGS:-$BUILD/fuzz/findings}
LOGS=${LOGS:-$BUILD/fuzz/logs}
if ! [[ $SECS =~ ^[1-9][0-9]*$ ]]; then
	echo "run.sh: -t wants whole seconds, not '$SECS'" >&2
	exit 2
fi
[ $# -gt 0 ] || set -- "${ALL[@]}"

# Per harness: the longest input (datapath: a 9000-byte frame and its two
# control bytes; http: requests past libmicrohttpd's 64 KiB connection
# buffer, for 413/414/431).
declare -A MAXLEN=([datapath]=9100 [config]=8192 [cli]=1024 [http]=70000 [bpdu]=4096)

total=0 found=0 notrun=0

# field LOG PATTERN: the number after PATTERN on the last line that has it.
field()
{
	grep -o "$2 *[0-9]*" "$1" | tail -n 1 | grep -o '[0-9]*$'
}

for h in "$@"; do
	total=$((total + 1))
	bin=$BUILD/fuzz/fuzz_$h
	seeds=$ROOT/tests/fuzz/corpus/$h
	work=$CORPUS/$h
	out=$FINDINGS/$h
	log=$LOGS/$h.log
	if [ ! -x "$bin" ]; then
		printf 'FAIL %-8s not built: %s (make fuzz-build)\n' "$h" "$bin"
		notrun=$((notrun + 1))
		continue
	fi
	mkdir -p "$work" "$out" "$(dirname "$log")"
	dict=()
	[ -f "$ROOT/tests/fuzz/dict/$h.dict" ] && dict=("-dict=$ROOT/tests/fuzz/dict/$h.dict")
	before=$(find "$out" -maxdepth 1 -type f | sort)
	nseeds=$(find "$seeds" -maxdepth 1 -type f 2>/dev/null | wc -l)

	# -timeout: a hang (the http harness reports its own after 8 s);
	# the seeds directory is read only: new inputs go to $work.
	"$bin" -max_total_time="$SECS" -max_len="${MAXLEN[$h]:-4096}" -timeout=30 \
		-rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$out/" \
		"${dict[@]}" "$work" "$seeds" >"$log" 2>&1 </dev/null
	rc=$?

	execs=$(field "$log" 'stat::number_of_executed_units:')
	rate=$(field "$log" 'stat::average_exec_per_sec:')
	cov=$(field "$log" ' cov:')
	ft=$(field "$log" ' ft:')
	corp=$(grep -o ' corp: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$')
	figures="${SECS} s: ${execs:-?} execs (${rate:-?}/s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?} ($nseeds seeds)"
	new=$(comm -13 <(echo "$before") <(find "$out" -maxdepth 1 -type f | sort) |
		grep -E '/(crash|leak|timeout|oom)-' || true)

	if [ -n "$new" ] || { [ $rc -ne 0 ] && grep -q '^==[0-9]*==ERROR\|==fuzz== invariant\|^==ERROR: libFuzzer' "$log"; }; then
		found=$((found + 1))
		printf 'FAIL %-8s %s\n' "$h" "$figures"
		grep -m 1 -E '==fuzz== invariant broken|^==[0-9]+==ERROR|^SUMMARY|^==ERROR: libFuzzer|runtime error' "$log" |
			sed 's/^/     finding: /'
		for f in $new; do
			echo "     reproducer: $f"
			echo "     replay: $bin $f"
		done
		tail -n 40 "$log" | sed 's/^/     | /'
	elif [ $rc -ne 0 ] || [ -z "$execs" ]; then
		notrun=$((notrun + 1))
		why=$(grep -m 1 'fuzz: setup failed' "$log" || tail -n 1 "$log")
		printf 'FAIL %-8s did not run (exit status %d): %s\n' "$h" "$rc" "$why"
		tail -n 20 "$log" | sed 's/^/     | /'
	else
		printf 'ok   %-8s %s\n' "$h" "$figures"
	fi
	grep "^fuzz_$h: " "$log" | sed 's/^/     /'
done

echo "fuzz: $total harnesses, $found with findings, $notrun not run"
[ "$found" -eq 0 ] || exit 1
[ "$notrun" -eq 0 ] || exit 2
exit 0

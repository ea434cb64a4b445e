#!/usr/bin/env bash
# datapaths: auto
# The fuzz harnesses of tests/fuzz/ (datapath, config, cli, http, bpdu; built by
# make check as build/fuzz/fuzz_*) each run for FUZZ_SMOKE_SECONDS (default
# 5) from their seed corpora, through tests/fuzz/run.sh: each must start,
# run its seeds and mutations, and find nothing. A finding fails its check
# with the invariant or sanitizer report, the reproducer (kept in
# build/fuzz/findings/HARNESS/) and the command that replays it. Long runs:
# make fuzz FUZZ_SECONDS=N.
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

SECS=${FUZZ_SMOKE_SECONDS:-5}

xt_require
for h in datapath config cli http bpdu; do
	out=$XT_TMP/$h.out
	# a corpus and logs of this run only: the seeds, and what 5 s add
	"$XT_ROOT/tests/fuzz/run.sh" -b "$XT_BUILD" -t "$SECS" -c "$XT_TMP/corpus" \
		-l "$XT_TMP/logs" "$h" >"$out" 2>&1
	rc=$?
	first=$(head -n 1 "$out")
	if [ $rc -eq 0 ] && [[ $first == "ok "* ]]; then
		# "ok   datapath 5 s: N execs (R/s), cov C, ..." -> "5 s: N execs ..."
		pass "fuzz_$h: no finding in $(sed -E 's/^ok +[a-z]+ +//' <<<"$first")"
	else
		fail "fuzz_$h: $SECS s without a finding (run.sh exit status $rc)" \
			"$(cat "$out")"
	fi
done
finish

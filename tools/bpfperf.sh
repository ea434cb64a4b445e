#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bpfperf.sh - where a loaded BPF program spends its time, by source line:
# perf samples every CPU for a while, and the samples that fall inside the
# program's JIT image are put on its source lines (build/tools/jitlines).
# perf alone names only the program (bpf_prog_<tag>_<name>): Debian's perf
# and bpftool can't disassemble JIT images (no libbfd).
#
#   tools/bpfperf.sh [-d SECONDS] [-n TOP] PROG_NAME
#
# Run it while traffic flows, e.g. during
#   tools/bench.sh --duts xdpbr --scenarios macs100k --cores 1 --duration 10
# and `tools/bpfperf.sh -d 3 xdpbr_rx` in another shell. Prints the TOP
# (default 15) lines with their share of the program's samples:
#
#   SAMPLES  SHARE  FILE:LINE  SOURCE
#
# A load that misses the CPU's caches shows as the hottest line, or the
# line after it (the sample lands on the instruction that waits).
# Needs root, perf (linux-perf) and a JITed program built with -g.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
JITLINES=${JITLINES:-$HERE/../build/tools/jitlines}
DURATION=3
TOP=15

usage()
{
	sed -n '5,21p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

while getopts "d:n:h" opt; do
	case $opt in
	d) DURATION=$OPTARG ;;
	n) TOP=$OPTARG ;;
	h) usage 0 ;;
	*) usage 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage 2
PROG=$1
[[ $DURATION =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "bpfperf: -d: a number of seconds" >&2; exit 2; }
[[ $TOP =~ ^[0-9]+$ ]] || { echo "bpfperf: -n: a number of lines" >&2; exit 2; }
command -v perf >/dev/null || { echo "bpfperf: perf not installed (linux-perf)" >&2; exit 1; }
[ -x "$JITLINES" ] || { echo "bpfperf: $JITLINES not built (make)" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The line table first: the program must still be loaded when perf ends.
"$JITLINES" "$PROG" >"$TMP/lines"
perf record -q -a -o "$TMP/perf.data" -- sleep "$DURATION" >/dev/null 2>&1 ||
	{ echo "bpfperf: perf record failed (root? perf_event_paranoid?)" >&2; exit 1; }
perf script -i "$TMP/perf.data" -F ip,sym 2>/dev/null |
	awk -v p="_$PROG" '$2 ~ p "$" { print $1 "\tS" }' >"$TMP/samples"
if [ ! -s "$TMP/samples" ]; then
	echo "bpfperf: no samples in $PROG in ${DURATION}s (is traffic flowing?)" >&2
	exit 1
fi

# Kernel addresses are 16 hex digits: as strings they sort as numbers. Each
# sample goes to the last line record at or below it (L sorts before S).
awk -F'\t' '{ print $1 "\tL\t" $2 "\t" $3 }' "$TMP/lines" |
	cat - "$TMP/samples" | LC_ALL=C sort -t"$(printf '\t')" -k1,1 -k2,2 |
	awk -F'\t' -v top="$TOP" '
	$2 == "L" { cur = $3 "\t" $4; next }
	{ n[cur == "" ? "?\t(before the first line)" : cur]++; total++ }
	END {
		for (k in n) printf "%d\t%s\n", n[k], k
	}' | sort -t"$(printf '\t')" -k1,1nr | head -n "$TOP" |
	awk -F'\t' -v total="$(wc -l <"$TMP/samples")" '
	BEGIN { printf "%7s %6s  %-22s %s\n", "SAMPLES", "SHARE", "FILE:LINE", "SOURCE" }
	{ printf "%7d %5.1f%%  %-22s %s\n", $1, 100 * $1 / total, $2, $3 }'

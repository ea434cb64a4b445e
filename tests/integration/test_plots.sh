#!/usr/bin/env bash
# datapaths: auto
# The plots of the benchmarks (tools/plot.sh through tools/bench.sh --plot
# and tools/fdbscale.sh --plot), drawn from saved runs in tests/fixtures/:
# every SVG is there and well-formed, names the run's date and machine, and
# each panel holds every series of the run (xdpbr on both datapaths, the
# Linux bridge, the ceiling, the line rate) with one bar per frame size, a
# series absent from the run is absent from the plot, and a missing, empty
# or malformed file is refused with a message and no plot. Then a small
# real run of tools/fdbscale.sh (FDB filled by tools/fdbfill) and its plot.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

BENCH=$XT_ROOT/tools/bench.sh
FDBSCALE=$XT_ROOT/tools/fdbscale.sh
FIX=$XT_ROOT/tests/fixtures
BJSON=$FIX/bench.json
FJSON=$FIX/fdbscale.json

xt_need gnuplot:gnuplot-nox jq xmllint:libxml2-utils

# svg_ok FILE: a well-formed SVG document.
svg_ok()
{
	[ -s "$1" ] || { echo "$1: missing or empty"; return 1; }
	xmllint --noout "$1" || return 1
	grep -q '<svg' "$1" || { echo "$1: no <svg> element"; return 1; }
}

# bars FILE TITLE: for each panel's series titled TITLE, the number of bars
# it draws (filled polygons, its key sample included), one line per panel.
bars()
{
	awk -v t="<title>$2</title>" '
		/<g id="gnuplot_plot_/ { if (on) print n; on = index($0, t) > 0; n = 0 }
		on && /<polygon/ { n++ }
		END { if (on) print n }' "$1"
}

# series_in FILE TITLE PANELS BARS: TITLE is a series in PANELS panels of
# FILE, each with BARS bars (key sample included; 0: do not count).
series_in()
{
	local got
	got=$(bars "$1" "$2" | paste -sd' ')
	[ "$(wc -w <<<"$got")" -eq "$3" ] ||
		{ echo "$2: in $(wc -w <<<"$got") panels, not $3 ($got)"; return 1; }
	[ "$4" = 0 ] && return 0
	for n in $got; do
		[ "$n" -eq "$4" ] || { echo "$2: bars per panel $got, expected $4 each"; return 1; }
	done
}

# unlabelled FILE: the labels (one a line on stdin) that FILE does not show.
unlabelled()
{
	local v
	while read -r v; do
		grep -qF ">$v</tspan>" "$1" || printf ' %s' "$v"
	done
}

# ---------------------------------------------------------------- bench plots

bdir=$XT_TMP/bench
check "bench.sh --plot DIR FILE draws the saved run (no root, no measuring)" \
	"$BENCH" --plot "$bdir" "$BJSON"
nsizes=$(jq '.sizes | length' "$BJSON")
nscen=$(jq '.frame_scenarios | length' "$BJSON")
stamp=$(jq -r '.date | sub("T"; " ") | sub(":[0-9]{2}Z$"; " UTC")' "$BJSON")
for c in $(jq -r '.cores[]' "$BJSON"); do
	f=$bdir/rates-${c}core.svg
	[ "$c" = 1 ] || f=$bdir/rates-${c}cores.svg
	check "rates plot for $c core(s) is valid SVG" svg_ok "$f"
	# two panels (Mpps, Gbit/s) per scenario, a bar per frame size each
	for s in "xdpbr (XDP)" "xdpbr (TC)" "Linux bridge" "ceiling (devmap redirect)"; do
		check "$c core(s): series '$s' in every panel, a bar per frame size" \
			series_in "$f" "$s" $((2 * nscen)) $((nsizes + 1))
	done
	check "$c core(s): the 10G line rate in every panel" series_in "$f" "10G line rate" \
		$((2 * nscen)) 0
	check "$c core(s): title names the run's date and machine" \
		grep -q "$c core.*; $stamp, host bench-fixture (Intel(R) Xeon(R) Processor, 2 CPUs" "$f"
	check "$c core(s): frame sizes on the x axis" grep -q '>1518</tspan>' "$f"
	check "$c core(s): the broadcast panels" grep -q '>broadcast, flooded to 3 ports' "$f"
done
check "ratios plot is valid SVG" svg_ok "$bdir/ratios.svg"
for s in "xdpbr (XDP) / ceiling" "xdpbr (XDP) / Linux bridge" "xdpbr (TC) / ceiling" \
	"xdpbr (TC) / Linux bridge"; do
	check "ratios: series '$s', a bar per scenario and core count" \
		series_in "$bdir/ratios.svg" "$s" 1 $(($(jq '.ratios | length' "$BJSON") + 1))
done
# every ratio of the run is written above its bar
missing=$(jq -r '.ratios[] | .xdpbr_over_ceiling.ratio, .xdpbr_over_bridge.ratio' "$BJSON" |
	unlabelled "$bdir/ratios.svg")
check_eq "ratios: every xdpbr ratio labelled above its bar" "" "$missing"
check "ratios: title names the run's date and machine" \
	grep -q "$stamp, host bench-fixture" "$bdir/ratios.svg"
check_eq "only the three bench plots in DIR" "rates-1core.svg rates-2cores.svg ratios.svg" \
	"$(find "$bdir" -mindepth 1 -printf '%f\n' | sort | paste -sd' ')"

# A run without the Linux bridge: no bridge series anywhere, and a bridge
# result missing at one frame size is one bar fewer in its panels.
jq '.duts -= ["bridge"] | .results |= map(select(.dut != "bridge"))
	| .ratios |= map(.xdpbr_over_bridge = null | .xdpbr_tc_over_bridge = null)' \
	"$BJSON" >"$XT_TMP/nobridge.json"
check "a run without the bridge is drawn" "$BENCH" --plot "$XT_TMP/nb" "$XT_TMP/nobridge.json"
check_fail "no run without the bridge: no 'Linux bridge' series" \
	series_in "$XT_TMP/nb/rates-1core.svg" "Linux bridge" $((2 * nscen)) 0
check_eq "no run without the bridge: no bridge series at all" "" \
	"$(grep -l 'Linux bridge' "$XT_TMP"/nb/*.svg)"
check "without the bridge: xdpbr and the ceiling still in every panel" \
	series_in "$XT_TMP/nb/rates-1core.svg" "ceiling (devmap redirect)" $((2 * nscen)) $((nsizes + 1))
jq '.results |= map(select(.dut != "bridge" or .size != 1518))' "$BJSON" >"$XT_TMP/gap.json"
"$BENCH" --plot "$XT_TMP/gap" "$XT_TMP/gap.json" >/dev/null 2>&1
check "a bridge result missing at 1518 bytes: one bar fewer in each bridge panel" \
	series_in "$XT_TMP/gap/rates-1core.svg" "Linux bridge" $((2 * nscen)) "$nsizes"

# A tcp-only run has no frame rates: nothing drawn, and no failure (make
# bench BENCH_ARGS="--scenarios tcp" plots too).
jq '.results = [] | .ratios = [] | .frame_scenarios = []' "$BJSON" >"$XT_TMP/tcponly.json"
err=$("$BENCH" --plot "$XT_TMP/tcp" "$XT_TMP/tcponly.json" 2>&1)
check_eq "a tcp-only run: exit 0" 0 "$?" "$err"
check "a tcp-only run: says there is nothing to draw" grep -q 'no frame rates' <<<"$err"
check_eq "a tcp-only run: no SVG" "" "$(find "$XT_TMP/tcp" -name '*.svg')"

# ---------------------------------------------------------------- errors

# plot_err NAME STDERR_PATTERN ARGS...: bench.sh (or fdbscale.sh, when the
# first ARG is "fdb") fails, says STDERR_PATTERN, and draws nothing.
plot_err()
{
	local name=$1 pat=$2 tool=$BENCH dir=$XT_TMP/err.$RANDOM rc err
	shift 2
	[ "$1" = fdb ] && { tool=$FDBSCALE; shift; }
	err=$("$tool" --plot "$dir" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -ge 1 ] && [ "$rc" -lt 128 ] && grep -qE "$pat" <<<"$err" &&
		! ls "$dir"/*.svg >/dev/null 2>&1; then
		pass "$name"
	else
		fail "$name" "exit status $rc, stderr: ${err:-(nothing)}" \
			"expected: a failure saying /$pat/, no SVG in $dir"
	fi
}

printf '{"results": [1, 2' >"$XT_TMP/bad.json"
: >"$XT_TMP/empty.json"
echo '[1, 2, 3]' >"$XT_TMP/array.json"
plot_err "--plot on a missing file: refused" "nosuch.json: no such file" "$XT_TMP/nosuch.json"
plot_err "--plot on malformed JSON: refused" "bad.json: not a JSON object" "$XT_TMP/bad.json"
plot_err "--plot on an empty file: refused" "empty.json: empty file" "$XT_TMP/empty.json"
plot_err "--plot on a JSON array: refused" "array.json: not a JSON object" "$XT_TMP/array.json"
plot_err "--plot on fdbscale JSON: not a bench document" \
	"not a document of tools/bench.sh --json" "$FJSON"
plot_err "--plot on a directory: refused" "not a readable file" "$FIX"
plot_err "--plot DIR FILE with a measuring option: refused" "takes no other option" \
	"$BJSON" --reps 3
plot_err "fdbscale --plot on malformed JSON: refused" "bad.json: not a JSON object" \
	fdb "$XT_TMP/bad.json"
plot_err "fdbscale --plot on bench JSON: not an fdbscale document" \
	"not a document of tools/fdbscale.sh --json" fdb "$BJSON"
check_err "a saved run without --plot: refused" "$BENCH" "$BJSON"
check_err "--plot without a directory: refused" "$BENCH" --plot

# ---------------------------------------------------------------- fdb plot

fout=$XT_TMP/fdb
check "fdbscale.sh --plot DIR FILE draws the saved run" "$FDBSCALE" --plot "$fout" "$FJSON"
check "fdb-scale.svg is valid SVG" svg_ok "$fout/fdb-scale.svg"
n=$(jq '.results | length' "$FJSON")
for s in "sweep, nothing aged (median of the passes)" "sweep deleting every entry (stale)" \
	"xdpbrd RSS (MB)"; do
	check "fdb plot: series '$s'" grep -qF "<title>$s</title>" "$fout/fdb-scale.svg"
done
missing=$(jq -r '.results[] | "\(.sweep_fresh_ms) ms", "\(.sweep_stale_ms) ms"' "$FJSON" |
	unlabelled "$fout/fdb-scale.svg")
check_eq "fdb plot: the $n sizes' sweep times labelled" "" "$missing"
check "fdb plot: 10k, 100k and 1M on the x axis" \
	grep -q '>1M</tspan>' "$fout/fdb-scale.svg"
check "fdb plot: title names the run's date and machine" \
	grep -q "host fdb-fixture" "$fout/fdb-scale.svg"

# ---------------------------------------------------------------- fdbscale run

if [ "$(id -u)" -ne 0 ] || [ ! -x "$XT_BUILD/tools/fdbfill" ]; then
	fail "fdbscale run" "needs root and $XT_BUILD/tools/fdbfill (make all)"
	finish
fi
run=$XT_TMP/run
BUILD=$XT_BUILD timeout 300 "$FDBSCALE" --sizes 2000,30000 --passes 2 --plot "$run" \
	>"$XT_TMP/fdbscale.out" 2>"$XT_TMP/fdbscale.err"
check_eq "fdbscale.sh --sizes 2000,30000 --plot: exit 0" 0 "$?" "$(cat "$XT_TMP/fdbscale.err")"
doc=$(cat "$run/fdbscale.json" 2>/dev/null)
check_jq "fdbscale JSON: both sizes, two passes each, every stale entry aged out" "$doc" '
	.fdb_size == 33000 and .passes == 2 and [.results[].entries] == [2000, 30000] and
	all(.results[]; (.sweep_fresh_passes_ms | length) == 2 and .sweep_fresh_ms > 0 and
		.sweep_stale_ms > 0 and .stale_aged == .entries and .rss_kb > 1000)'
check "fdbscale: its plot" svg_ok "$run/fdb-scale.svg"
check "fdbscale: the table" grep -qE '^30000 +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$XT_TMP/fdbscale.out"
prefix=$(sed -n 's/^fdbscale: bridge \(fs[0-9]*\) on .*/\1/p' "$XT_TMP/fdbscale.err")
check_eq "fdbscale: nothing left behind (${prefix:-no prefix})" "" \
	"$([ -n "$prefix" ] && { ip -br link | grep -E "^${prefix}[pe][@ ]";
		ls -d "/sys/fs/bpf/xdpbr/$prefix" 2>/dev/null;
		pgrep -af "xdpbrd .* $prefix " | grep -v pgrep; })"

finish

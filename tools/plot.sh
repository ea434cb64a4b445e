#!/usr/bin/env bash
#
# plot.sh - SVG plots (gnuplot) of a saved benchmark run, so that a plot can
# always be drawn again from the JSON it came from.
#
#   tools/plot.sh bench FILE DIR   FILE from tools/bench.sh --json:
#                                  DIR/rates-1core.svg, rates-2cores.svg, ...
#                                  (one per core count) and DIR/ratios.svg
#   tools/plot.sh fdb FILE DIR     FILE from tools/fdbscale.sh --json:
#                                  DIR/fdb-scale.svg
#
# tools/bench.sh --plot and tools/fdbscale.sh --plot call this. Every title
# names the date of the run and the machine it ran on, as the JSON records
# them. jq cuts the JSON into tab-separated tables, one per panel, that
# gnuplot reads; nothing is measured here and no root is needed.
#
# rates-Ncores.svg: per frame scenario (unicast, 10,000 MACs, broadcast) a
# row of two panels, delivered Mpps and delivered Gbit/s per frame size,
# with the DUTs side by side in each size's cluster: xdpbr (XDP), xdpbr
# (TC), the Linux bridge and the ceiling. The error bars are the min-max of
# the repetitions, the bars their median; the dashed line is the nominal
# link's line rate at each size (the --link of the run, 10G by default).
# Gbit/s count what a frame takes on the wire, as the tables do: the frame
# and 20 bytes of preamble and inter-frame gap.
#
# ratios.svg: the ratio table of the run (at 64 bytes, or its smallest
# size), one cluster per scenario and core count, min-max of the ratios
# within each repetition as error bars, each bar labelled with its value.
#
# fdb-scale.svg: the ageing sweep's CPU time per pass (fresh entries, and a
# pass that deletes them all as stale; log scale) above xdpbrd's resident
# memory, against the number of FDB entries (log scale).

set -u
set -o pipefail

die()
{
	echo "plot: $*" >&2
	exit 1
}

usage()
{
	echo "usage: tools/plot.sh bench|fdb FILE DIR (see the top of tools/plot.sh)"
}

# json_doc FILE KEYS_FILTER WHAT: FILE exists, holds exactly one JSON object
# and KEYS_FILTER holds for it, or die saying what is wrong.
json_doc()
{
	local file=$1 filter=$2 what=$3 err
	[ -e "$file" ] || die "$file: no such file (expected a JSON file written by $what)"
	{ [ -f "$file" ] && [ -r "$file" ]; } || die "$file: not a readable file"
	[ -s "$file" ] || die "$file: empty file (expected a JSON file written by $what)"
	# -s: empty input would pass a plain jq -e
	err=$(jq -se 'length == 1 and (.[0] | type) == "object"' "$file" 2>&1 >/dev/null) ||
		die "$file: not a JSON object (expected the file written by $what)${err:+: $err}"
	jq -e "$filter" "$file" >/dev/null 2>&1 ||
		die "$file: not a document of $what (some of its keys are missing or of the wrong type)"
}

# ---------------------------------------------------------------- shared

# machine FILE: "YYYY-MM-DD HH:MM UTC, host H (CPU model, N CPUs, Linux K)"
# of the run in FILE.
machine()
{
	jq -r '
		(.date // "unknown date" | sub("T"; " ") | sub(":[0-9]{2}Z$"; " UTC")) as $d
		| [(.cpu_model // empty), "\(.cpus // "?") CPUs", "Linux \(.kernel // "?")"] as $m
		| "\($d), host \(.host // "unknown") (\($m | join(", ")))"' "$1"
}

# gp_common: the settings every plot shares.
gp_common()
{
	cat <<'EOF'
set datafile separator "\t"
set datafile missing "-"
set termoption noenhanced
set style fill solid 0.85 border rgb "#404040"
set grid ytics lc rgb "#d0d0d0"
set border 3
set tics nomirror
set key top left horizontal
set yrange [0:*]
EOF
}

# gnuplot_run SCRIPT: run gnuplot on SCRIPT, its errors shown.
gnuplot_run()
{
	local out
	out=$(gnuplot "$1" 2>&1) || die "gnuplot failed on $1: $out"
	[ -z "$out" ] || echo "plot: gnuplot: $out" >&2
	return 0
}

# ---------------------------------------------------------------- bench

# dut_title DUT / dut_color DUT: how a DUT is named and drawn.
dut_title()
{
	case $1 in
	xdpbr) echo "xdpbr (XDP)" ;;
	xdpbr-tc) echo "xdpbr (TC)" ;;
	bridge) echo "Linux bridge" ;;
	ceiling) echo "ceiling (devmap redirect)" ;;
	*) echo "$1" ;;
	esac
}

dut_color()
{
	case $1 in
	xdpbr) echo "#1f5fa8" ;;
	xdpbr-tc) echo "#7fb2e5" ;;
	bridge) echo "#c0392b" ;;
	ceiling) echo "#8c8c8c" ;;
	*) echo "#2e8b57" ;;
	esac
}

scen_title()
{
	case $1 in
	unicast) echo "unicast, 1 flow" ;;
	macs10k) echo "unicast, $MACS source MACs" ;;
	broadcast) echo "broadcast, flooded to 3 ports (sum of the sinks)" ;;
	macs100k) echo "unicast, 100000 source MACs" ;;
	macs100k2m) echo "unicast, 100000 source MACs, FDB of 2097152" ;;
	macs1m) echo "unicast, 1000000 source MACs" ;;
	macflood) echo "MAC flood: 100000 sources, FDB of 65536" ;;
	*) echo "$1" ;;
	esac
}

# rate_table SCENARIO CORES DUTS_JSON: per frame size a row: size, the line
# rate in Mpps and in Gbit/s, then per DUT Mpps median, min, max and Gbit/s
# median, min, max ("-" where the DUT has no result).
rate_table()
{
	jq -r --arg sc "$1" --argjson c "$2" --argjson duts "$3" '
		def r: . * 10000 | round / 10000;
		.link_bps as $l | .results as $res
		| .sizes[] as $s
		| (($s + 20) * 8) as $bits
		| [$s, ($l / $bits / 1e6 | r), ($l / 1e9)] +
		  ($duts | map(. as $d
			| first($res[] | select(.dut == $d and .scenario == $sc and
						  .cores == $c and .size == $s)) // null
			| if . == null then ["-", "-", "-", "-", "-", "-"]
			  else [.pps, .pps_min, .pps_max | . / 1e6 | r] +
			       [.pps, .pps_min, .pps_max | . * $bits / 1e9 | r] end) | add)
		| @tsv' "$FILE"
}

# rates_panel DAT UNIT COL0 LINECOL TITLE DUT...: one panel, DUT by DUT a
# cluster member with error bars (columns COL0.. of each DUT's six), then the
# line rate (column LINECOL) over each cluster.
rates_panel()
{
	local dat=$1 unit=$2 col0=$3 linecol=$4 title=$5 i=0 d c sep=''
	shift 5
	printf 'set title "%s"\nset ylabel "%s"\n' "$title" "$unit"
	printf 'plot '
	for d in "$@"; do
		c=$((4 + 6 * i + col0))
		printf '%s"%s" using %d:%d:%d:xtic(1) title "%s" lc rgb "%s"' \
			"$sep" "$dat" "$c" $((c + 1)) $((c + 2)) "$(dut_title "$d")" "$(dut_color "$d")"
		sep=$', \\\n\t'
		i=$((i + 1))
	done
	printf '%s"%s" using 0:%d with linespoints dt 2 lw 1.5 pt 7 ps 0.6 lc rgb "#202020" title "%s line rate"\n' \
		"$sep" "$dat" "$linecol" "$LINK"
}

# plot_rates CORES: DIR/rates-1core.svg (or -Ncores): every frame scenario,
# Mpps and Gbit/s.
plot_rates()
{
	local cores=$1 word=cores sc n dat gp duts dl=()
	[ "$cores" = 1 ] && word=core
	gp=$TMP/rates-$cores.gp
	n=${#SCENS[@]}
	{
		gp_common
		printf 'set terminal svg size 1200,%d dynamic font "sans,11" background "white"\n' \
			$((60 + 330 * n))
		printf 'set output "%s/rates-%d%s.svg"\n' "$DIR" "$cores" "$word"
		printf 'set style data histograms\nset style histogram errorbars gap 1 lw 1\n'
		printf 'set xlabel "frame size (bytes, with FCS)"\n'
		# room above the bars for the key
		printf 'set offsets 0.1, 0.1, graph 0.3, 0\nset key top center horizontal maxrows 2\n'
		printf 'set multiplot layout %d,2 title "xdpbr bench: delivered rate per frame size, %d %s; %s\\nbars: median of %s repetitions, error bars: their min-max"\n' \
			"$n" "$cores" "$word" "$MACHINE" "$REPS"
		for sc in "${SCENS[@]}"; do
			duts=$(jq -c --arg sc "$sc" --argjson c "$cores" '
				[.duts[] as $d | select(any(.results[]; .dut == $d and
							    .scenario == $sc and .cores == $c)) | $d]' "$FILE")
			mapfile -t dl < <(jq -r '.[]' <<<"$duts")
			[ ${#dl[@]} -gt 0 ] || continue
			dat=$TMP/rates-$sc-$cores.tsv
			rate_table "$sc" "$cores" "$duts" >"$dat" || die "$FILE: cannot read the $sc rates"
			rates_panel "$dat" "Mpps" 0 2 "$(scen_title "$sc"): Mpps delivered" "${dl[@]}"
			rates_panel "$dat" "Gbit/s" 3 3 "$(scen_title "$sc"): Gbit/s delivered (on the wire)" \
				"${dl[@]}"
		done
		echo "unset multiplot"
	} >"$gp"
	gnuplot_run "$gp"
}

# The ratios plotted, when the run has them: JSON key and title.
RATIO_KEYS=(xdpbr_over_ceiling xdpbr_over_bridge xdpbr_tc_over_ceiling xdpbr_tc_over_bridge)
declare -A RATIO_TITLE=(
	[xdpbr_over_ceiling]="xdpbr (XDP) / ceiling"
	[xdpbr_over_bridge]="xdpbr (XDP) / Linux bridge"
	[xdpbr_tc_over_ceiling]="xdpbr (TC) / ceiling"
	[xdpbr_tc_over_bridge]="xdpbr (TC) / Linux bridge"
)
declare -A RATIO_COLOR=(
	[xdpbr_over_ceiling]="#1f5fa8"
	[xdpbr_over_bridge]="#c0392b"
	[xdpbr_tc_over_ceiling]="#7fb2e5"
	[xdpbr_tc_over_bridge]="#e8958c"
)

# plot_ratios: DIR/ratios.svg, or nothing when the run has no ratio.
plot_ratios()
{
	local keys=() k i=0 n sep='' dat=$TMP/ratios.tsv gp=$TMP/ratios.gp x
	for k in "${RATIO_KEYS[@]}"; do
		jq -e --arg k "$k" 'any(.ratios[]?; .[$k].ratio != null)' "$FILE" >/dev/null &&
			keys+=("$k")
	done
	if [ ${#keys[@]} -eq 0 ]; then
		echo "plot: $FILE: no DUT ratios (the run needs xdpbr and the ceiling or the bridge): no ratios.svg" >&2
		return 0
	fi
	# per scenario and core count: a label, then per ratio value, min, max
	# and the value as the run recorded it (the label above the bar)
	jq -r --argjson keys "$(printf '%s\n' "${keys[@]}" | jq -R . | jq -sc .)" '
		.ratios[] as $r
		| ["\($r.scenario), \($r.cores) core\(if $r.cores == 1 then "" else "s" end)"] +
		  ($keys | map($r[.] | if . == null or .ratio == null then ["-", "-", "-", ""]
				      else [.ratio, (.min // .ratio), (.max // .ratio),
					    (.ratio | tostring)] end) | add)
		| @tsv' "$FILE" >"$dat" || die "$FILE: cannot read the ratios"
	n=${#keys[@]}
	{
		gp_common
		echo 'set terminal svg size 1000,520 dynamic font "sans,11" background "white"'
		printf 'set output "%s/ratios.svg"\n' "$DIR"
		echo 'set style data histograms'
		echo 'set style histogram errorbars gap 1 lw 1'
		printf 'set title "xdpbr bench: ratios of the delivered pps at %s bytes (median of the repetitions); error bars: min-max of the ratios within each repetition\\n%s"\n' \
			"$(jq .ratio_size "$FILE")" "$MACHINE"
		echo 'set ylabel "ratio"'
		echo 'set key top center horizontal maxrows 2'
		echo 'set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "#202020"'
		echo 'set offsets 0.1, 0.1, graph 0.15, 0'
		printf 'plot '
		for k in "${keys[@]}"; do
			printf '%s"%s" using %d:%d:%d:xtic(1) title "%s" lc rgb "%s"' "$sep" "$dat" \
				$((2 + 4 * i)) $((3 + 4 * i)) $((4 + 4 * i)) "${RATIO_TITLE[$k]}" \
				"${RATIO_COLOR[$k]}"
			sep=$', \\\n\t'
			i=$((i + 1))
		done
		# each bar's value above it: clustered bars are 1/(n+gap) wide,
		# centred on the cluster's index
		for ((i = 0; i < n; i++)); do
			x="(\$0 + ($i - ($n - 1) / 2.0) / ($n + 1.0))"
			printf '%s"%s" using %s:%d:%d with labels offset 0,0.7 font ",9" notitle' \
				"$sep" "$dat" "$x" $((4 + 4 * i)) $((5 + 4 * i))
		done
		echo
	} >"$gp"
	gnuplot_run "$gp"
}

plot_bench()
{
	local c
	json_doc "$FILE" '(.results | type) == "array" and (.sizes | type) == "array" and
		(.cores | type) == "array" and (.duts | type) == "array" and
		(.link_bps | type) == "number" and (.ratios | type) == "array"' \
		"tools/bench.sh --json"
	MACHINE=$(machine "$FILE")
	# a tcp-only run (make bench BENCH_ARGS="--scenarios tcp") is no error
	if ! jq -e '.results | length > 0' "$FILE" >/dev/null; then
		echo "plot: $FILE: no frame rates in this run (tcp only?): no plot drawn" >&2
		return 0
	fi
	mapfile -t SCENS < <(jq -r '[.results[].scenario] as $s
		| (.frame_scenarios // .scenarios) | map(select(. as $x | $s | index($x)))[]' "$FILE")
	mapfile -t CORES < <(jq -r '.cores[]' "$FILE")
	LINK=$(jq -r '.link // "nominal"' "$FILE")
	REPS=$(jq -r '.reps // "?"' "$FILE")
	MACS=$(jq -r '.macs // 10000' "$FILE")
	for c in "${CORES[@]}"; do
		jq -e --argjson c "$c" 'any(.results[]; .cores == $c)' "$FILE" >/dev/null &&
			plot_rates "$c"
	done
	plot_ratios
}

# ---------------------------------------------------------------- fdb

plot_fdb()
{
	local dat=$TMP/fdb.tsv gp=$TMP/fdb.gp
	json_doc "$FILE" '(.results | type) == "array" and (.results | length) > 0 and
		all(.results[]; (.entries | type) == "number" and
			(.sweep_fresh_ms | type) == "number" and (.rss_kb | type) == "number")' \
		"tools/fdbscale.sh --json"
	MACHINE=$(machine "$FILE")
	# entries, fresh ms, stale ms, RSS MB, and each as its label
	jq -r '.results[] | (.rss_kb / 1024 * 10 | round / 10) as $mb
		| [.entries, .sweep_fresh_ms, (.sweep_stale_ms // "-"), $mb,
		   "\(.sweep_fresh_ms) ms", (if .sweep_stale_ms then "\(.sweep_stale_ms) ms" else "" end),
		   "\($mb) MB"] | @tsv' "$FILE" >"$dat" || die "$FILE: cannot read the results"
	{
		gp_common
		echo 'set terminal svg size 900,760 dynamic font "sans,11" background "white"'
		printf 'set output "%s/fdb-scale.svg"\n' "$DIR"
		printf 'set multiplot layout 2,1 title "xdpbr control plane as the FDB grows (tools/fdbscale.sh)\\n%s; FDB capacity %s entries (xdpbrd -s)"\n' \
			"$MACHINE" "$(jq -r '.fdb_size // "?"' "$FILE")"
		echo 'set logscale x 10'
		echo 'set lmargin 12'
		echo 'set format x "%.0s%c"'
		echo 'set xlabel "FDB entries (log scale)"'
		jq -r '[.results[].entries] | "set xrange [\(min / 2):\(max * 2)]"' "$FILE"
		echo 'set key top left vertical Left reverse'
		echo 'set title "CPU time of one ageing pass of xdpbrd (spread over ticks of 65,536 entries)"'
		echo 'set logscale y 10'
		echo 'set yrange [*:*]'
		echo 'set offsets 0, 0, graph 0.15, 0'
		echo 'set ylabel "CPU ms per pass (log scale)"'
		printf 'plot "%s" using 1:2 with linespoints lw 2 pt 7 lc rgb "#1f5fa8" title "sweep, nothing aged (median of the passes)", \\\n' "$dat"
		printf '\t"%s" using 1:2:5 with labels offset 0,-1 font ",9" notitle, \\\n' "$dat"
		printf '\t"%s" using 1:3 with linespoints lw 2 pt 5 lc rgb "#c0392b" title "sweep deleting every entry (stale)", \\\n' "$dat"
		printf '\t"%s" using 1:3:6 with labels offset 0,1 font ",9" notitle\n' "$dat"
		echo 'unset logscale y'
		echo 'set title "resident memory of xdpbrd with the FDB full to N"'
		echo 'set ylabel "xdpbrd RSS (MB)"'
		jq -r '[.results[].rss_kb / 1024] | "set yrange [0:\(max * 1.4)]"' "$FILE"
		echo 'set offsets 0, 0, 0, 0'
		printf 'plot "%s" using 1:4 with linespoints lw 2 pt 9 lc rgb "#2e8b57" title "xdpbrd RSS (MB)", \\\n' "$dat"
		printf '\t"%s" using 1:4:7 with labels offset 0,1 font ",9" notitle\n' "$dat"
		echo 'unset multiplot'
	} >"$gp"
	gnuplot_run "$gp"
}

# ---------------------------------------------------------------- main

[ $# -ge 1 ] && { [ "$1" = -h ] || [ "$1" = --help ]; } && { usage; exit 0; }
[ $# -eq 3 ] || { usage >&2; exit 2; }
KIND=$1
FILE=$2
DIR=$3
case $KIND in
bench | fdb) ;;
*) usage >&2; exit 2 ;;
esac
for t in jq gnuplot; do
	command -v "$t" >/dev/null || die "'$t' is missing: run 'make deps' (gnuplot: Debian gnuplot-nox)"
done
mkdir -p "$DIR" || die "cannot create $DIR"
[ -w "$DIR" ] || die "$DIR: not writable"
TMP=$(mktemp -d /tmp/xdpbr-plot.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT
if [ "$KIND" = bench ]; then plot_bench; else plot_fdb; fi
exit 0

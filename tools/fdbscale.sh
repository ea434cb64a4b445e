#!/usr/bin/env bash
#
# fdbscale.sh - the control plane's cost as the FDB grows: CPU time of one
# ageing pass of xdpbrd and its resident memory, with N = 10,000, 100,000
# and 1,000,000 entries (tools/fdbfill writes them), as a table, JSON and a
# plot (`make bench-fdb` runs it).
#
#   tools/fdbscale.sh [OPTION...]        see --help
#   tools/fdbscale.sh --plot DIR FILE    only draw the plot of a saved --json
#
# One veth port ${P}p (its peer ${P}e, both without IPv6 so nothing else is
# learned), one bridge $P on it whose FDB holds --fdb-size entries (default
# the largest N plus 10 %: every N is measured in the same table, as a user
# who sized the FDB for the worst case would have it). For each N:
#   fresh  xdpbrd stopped (-k: the bridge and its FDB stay), the FDB flushed,
#          N entries written by fdbfill as just seen; xdpbrd -v started, it
#          logs each finished pass "sweep of M entries: nothing aged, T ms
#          CPU": the median T of --passes passes; xdpbrd's VmRSS after them
#   stale  the same with N entries last seen 400 s ago (ageing time 300 s):
#          the first pass deletes them all, "aged out N FDB entries (sweep of
#          M entries, T ms CPU)": T, and N must be what it aged
# A pass takes at most 65,536 entries per 250 ms tick, so T is CPU time
# spread over N / 65,536 ticks, not a stall of the daemon.
#
# Needs root and build/xdpbrd, build/xdpbr, build/tools/fdbfill. Removes what
# it created (port, bridge pins, daemon) on exit, failure and Ctrl-C.

set -u
set -o pipefail

cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tools/stopchild.sh
. tools/stopchild.sh
BUILD=${BUILD:-build}
XDPBRD=$BUILD/xdpbrd
XDPBR=$BUILD/xdpbr
FDBFILL=$BUILD/tools/fdbfill

SIZES=10000,100000,1000000
PASSES=3
FDB_SIZE=
JSON_OUT=
PLOT_DIR=
PLOT_FILE=
AGEING=300
STALE_AGE=400

usage()
{
	cat <<EOF
usage: tools/fdbscale.sh [OPTION...]
       tools/fdbscale.sh --plot DIR FILE
  --sizes LIST     FDB entries to measure at (default $SIZES)
  --passes N       ageing passes over fresh entries per size; the median is
                   reported (default $PASSES)
  --fdb-size N     the FDB's capacity, xdpbrd -s (default: the largest size
                   plus 10 %)
  --json FILE      write the results as JSON to FILE
  --plot DIR       also draw them (gnuplot) as DIR/fdb-scale.svg, with the
                   JSON they come from as DIR/fdbscale.json; with FILE, a
                   saved --json, draw FILE and measure nothing
  -h, --help
EOF
}

die()
{
	echo "fdbscale: $*" >&2
	exit 1
}

progress()
{
	echo "fdbscale: $*" >&2
}

# arg OPTION VALUE...: the value of OPTION, or die when it has none.
arg()
{
	[ $# -ge 2 ] || die "$1 needs a value (see --help)"
	printf '%s' "$2"
}

# in_range VALUE MIN MAX: VALUE is an integer in MIN..MAX.
in_range()
{
	[[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--sizes) SIZES=$(arg "$@") || exit 2; shift ;;
	--passes) PASSES=$(arg "$@") || exit 2; shift ;;
	--fdb-size) FDB_SIZE=$(arg "$@") || exit 2; shift ;;
	--json) JSON_OUT=$(arg "$@") || exit 2; shift ;;
	--plot) PLOT_DIR=$(arg "$@") || exit 2; shift ;;
	-*) usage >&2; exit 2 ;;
	*)
		[ -z "$PLOT_FILE" ] || { usage >&2; exit 2; }
		PLOT_FILE=$1
		;;
	esac
	shift
done

if [ -n "$PLOT_FILE" ]; then
	[ -n "$PLOT_DIR" ] || die "$PLOT_FILE: a saved run is only read by --plot DIR FILE"
	exec tools/plot.sh fdb "$PLOT_FILE" "$PLOT_DIR"
fi

IFS=, read -r -a SIZE_LIST <<<"$SIZES"
max=0
for n in "${SIZE_LIST[@]}"; do
	in_range "$n" 1 16000000 || die "--sizes: $n is not in 1..16000000"
	[ "$n" -gt "$max" ] && max=$n
done
in_range "$PASSES" 1 100 || die "--passes: $PASSES is not in 1..100"
[ -n "$FDB_SIZE" ] || FDB_SIZE=$((max + max / 10))
in_range "$FDB_SIZE" "$max" 67108864 ||
	die "--fdb-size: $FDB_SIZE is not in $max (the largest size)..67108864"

[ "$(id -u)" -eq 0 ] || die "must be run as root (BPF maps, XDP)"
for f in "$XDPBRD" "$XDPBR" "$FDBFILL"; do
	[ -x "$f" ] || die "$f is missing: run 'make all'"
done
for t in ip jq awk; do
	command -v "$t" >/dev/null || die "'$t' is missing: run 'make deps'"
done
if [ -n "$PLOT_DIR" ]; then
	command -v gnuplot >/dev/null || die "'gnuplot' is missing: run 'make deps' (gnuplot-nox)"
fi

P=fs$(($$ % 10000))
PORT=${P}p
PEER=${P}e
PIN_DIR=/sys/fs/bpf/xdpbr/$P
DAEMON_PID=
TMP=
CLEANED=

# stop_daemon: SIGTERM to xdpbrd (it keeps the bridge: -k), and wait.
stop_daemon()
{
	stop_child "$DAEMON_PID"
	DAEMON_PID=
}

# shellcheck disable=SC2317 # called from the traps
cleanup()
{
	[ -z "$CLEANED" ] || return 0
	CLEANED=1
	stop_daemon
	ip link del dev "$PORT" 2>/dev/null
	rm -rf "$PIN_DIR"
	[ -n "$TMP" ] && rm -rf "$TMP"
	return 0
}

trap 'cleanup' EXIT
trap 'echo >&2; progress "interrupted, cleaning up"; cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
TMP=$(mktemp -d /tmp/xdpbr-fdbscale.XXXXXX)
LOG=$TMP/xdpbrd.log

[ ! -e "$PIN_DIR" ] || die "$PIN_DIR exists already: another run with this name?"
ip link add "$PORT" type veth peer name "$PEER" || die "ip link add $PORT type veth"
for d in "$PORT" "$PEER"; do
	sysctl -q -w "net.ipv6.conf.$d.disable_ipv6=1" >/dev/null
	ip link set dev "$d" up || die "$d up"
done

# start_daemon: xdpbrd -v on the port, keeping the bridge on exit; until it
# runs the port.
start_daemon()
{
	local i
	: >"$LOG"
	"$XDPBRD" -v -k -l none -H off -a "$AGEING" -s "$FDB_SIZE" "$P" "$PORT" >"$LOG" 2>&1 &
	DAEMON_PID=$!
	for ((i = 0; i < 300; i++)); do
		kill -0 "$DAEMON_PID" 2>/dev/null || die "xdpbrd exited: $(tail -n 5 "$LOG")"
		[ "$("$XDPBR" -b "$P" -j link show 2>/dev/null |
			jq -c --arg p "$PORT" 'any(.[]; .ifname == $p)' 2>/dev/null)" = true ] &&
			return 0
		sleep 0.1
	done
	die "xdpbrd not ready after 30 s: $(tail -n 5 "$LOG")"
}

# fill N AGE: an FDB of exactly N dynamic entries last seen AGE s ago,
# written while no daemon runs.
fill()
{
	stop_daemon
	"$XDPBR" -b "$P" fdb flush dynamic >/dev/null || die "xdpbr fdb flush failed"
	"$FDBFILL" -a "$2" "$P" "$PORT" "$1" >/dev/null || die "fdbfill $P $PORT $1 failed"
}

# passes N COUNT WHAT: wait until xdpbrd logged COUNT finished passes of WHAT
# (fresh: "nothing aged", stale: "aged out") over at least N entries; print
# them, one "seen aged ms" line each.
passes()
{
	local n=$1 count=$2 what=$3 i limit lines
	# a pass over N entries takes N / 65536 ticks of 250 ms; load slows it
	limit=$((300 + (n / 65536 + 1) * count * 10))
	for ((i = 0; i < limit; i++)); do
		lines=$(pass_lines "$n" "$what" | head -n "$count")
		if [ -n "$lines" ] && [ "$(wc -l <<<"$lines")" -eq "$count" ]; then
			echo "$lines"
			return 0
		fi
		kill -0 "$DAEMON_PID" 2>/dev/null || die "xdpbrd exited: $(tail -n 5 "$LOG")"
		sleep 0.1
	done
	die "xdpbrd logged no $count $what passes over $n entries in $((limit / 10)) s: $(tail -n 5 "$LOG")"
}

# pass_lines N WHAT: the finished passes over at least N entries in the log.
pass_lines()
{
	if [ "$2" = fresh ]; then
		sed -nE 's/.*sweep of ([0-9]+) entries: nothing aged, ([0-9.]+) ms CPU.*/\1 0 \2/p' "$LOG"
	else
		sed -nE 's/.*aged out ([0-9]+) FDB entries \(sweep of ([0-9]+) entries, ([0-9.]+) ms CPU\).*/\2 \1 \3/p' "$LOG"
	fi | awk -v n="$1" '$1 >= n'
}

# rss_kb: xdpbrd's resident memory.
rss_kb()
{
	awk '/^VmRSS:/ { print $2 }' "/proc/$DAEMON_PID/status"
}

progress "bridge $P on $PORT, FDB of $FDB_SIZE entries; sizes $SIZES, $PASSES passes each"
start_daemon	# creates the bridge and its maps
POINTS=$TMP/points.jsonl
: >"$POINTS"
for n in "${SIZE_LIST[@]}"; do
	fill "$n" 0
	start_daemon
	fresh=$(passes "$n" "$PASSES" fresh) || exit 1
	rss=$(rss_kb)
	progress "$n fresh entries: passes (entries aged ms) $(paste -sd';' <<<"$fresh"), RSS $rss kB"
	fill "$n" "$STALE_AGE"
	start_daemon
	stale=$(passes "$n" 1 stale) || exit 1
	rss_stale=$(rss_kb)
	progress "$n stale entries: pass (entries aged ms) $stale, RSS $rss_stale kB"
	read -r _ aged stale_ms <<<"$stale"
	[ "$aged" = "$n" ] || die "the stale pass aged out $aged entries, not $n"
	jq -nc --argjson n "$n" --arg fresh "$fresh" --argjson stale_ms "$stale_ms" \
		--argjson rss "$rss" --argjson rss_stale "$rss_stale" --argjson aged "$aged" '
		($fresh | split("\n") | map(select(length > 0) | split(" ") | map(tonumber)))
		as $f
		| { entries: $n,
		    sweep_fresh_ms: ($f | map(.[2]) | sort
				     | if length % 2 == 1 then .[length / 2 | floor]
				       else (.[length / 2 - 1] + .[length / 2]) / 2 end),
		    sweep_fresh_passes_ms: ($f | map(.[2])),
		    sweep_stale_ms: $stale_ms, stale_aged: $aged,
		    rss_kb: $rss, rss_stale_kb: $rss_stale }' >>"$POINTS" ||
		die "cannot record the results"
done
stop_daemon

jq -s --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg kernel "$(uname -r)" \
	--arg host "$(uname -n)" --argjson cpus "$(nproc)" \
	--arg cpu_model "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" \
	--argjson fdb_size "$FDB_SIZE" --argjson passes "$PASSES" --argjson ageing "$AGEING" '
	{ tool: "xdpbr fdbscale (tools/fdbscale.sh, build/tools/fdbfill)",
	  date: $date, kernel: $kernel, host: $host, cpu_model: $cpu_model, cpus: $cpus,
	  fdb_size: $fdb_size, passes: $passes, ageing_time_s: $ageing,
	  results: . }' "$POINTS" >"$TMP/result.json" || die "could not assemble the results"

if [ -n "$JSON_OUT" ]; then
	cp "$TMP/result.json" "$JSON_OUT" || die "cannot write $JSON_OUT"
	progress "JSON written to $JSON_OUT"
fi

echo "xdpbr control plane: $(uname -r), FDB of $FDB_SIZE entries, median of $PASSES passes"
echo
{
	printf 'entries\tsweep, fresh (ms CPU)\tsweep, all stale (ms CPU)\txdpbrd RSS (MB)\n'
	jq -r '.results[] | [.entries, .sweep_fresh_ms, .sweep_stale_ms,
		(.rss_kb / 1024 * 10 | round / 10)] | @tsv' "$TMP/result.json"
} | awk -F'\t' '{ printf "%-8s  %22s  %26s  %16s\n", $1, $2, $3, $4 }'

if [ -n "$PLOT_DIR" ]; then
	mkdir -p "$PLOT_DIR" || die "cannot create $PLOT_DIR"
	cp "$TMP/result.json" "$PLOT_DIR/fdbscale.json" || die "cannot write $PLOT_DIR/fdbscale.json"
	tools/plot.sh fdb "$PLOT_DIR/fdbscale.json" "$PLOT_DIR" || exit 1
	progress "plot written to $PLOT_DIR/fdb-scale.svg"
fi
exit 0

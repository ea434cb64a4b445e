#!/usr/bin/env bash
#
# bench-rfc2889.sh - the FDB tests of RFC 2889 for xdpbr next to the Linux
# bridge, in one run: the address learning rate (section 5.8) and the
# address caching capacity (section 5.7).
#
#   tools/bench-rfc2889.sh [--tests learnrate,capacity] [--duts xdpbr,bridge]
#                          [--reps N] [--learn-macs N] [--capacity-max N]
#                          [--json FILE]
#
# tools/bench.sh runs it for its scenarios `learnrate` and `capacity` (in
# `make bench`) and puts what --json writes under the key "rfc2889" of its
# own JSON.
#
#   netns rf$ID-h: s1 ===veth=== p1 --+
#                  s2 ===veth=== p2 --+-- DUT (ports p1 p2 p3, root netns)
#                  s3 ===veth=== p3 --+
#
# s1 is the known host: a static FDB entry on p1 in both DUTs. s2 is the
# learning port, s3 the monitor port that only flooded frames reach. The
# generator (build/tools/pktgen, BPF_PROG_RUN live frames, one core) runs
# in the hosts' namespace.
#
# One trial of N addresses (both tests are made of them):
#   learn   N frames from s2 back to back, each from a new source MAC
#           (02:51:xx:xx:xx, one after the other), to s1: the DUT learns
#           them on p2;
#   check   N frames from s1, one to each of those MACs. A learned MAC's
#           frame goes to s2 only; an unknown one is flooded to s2 and s3.
#           So s3 counts the addresses the DUT did not hold, and s2 - s3
#           the ones it learned and forwards (a lost frame counts as not
#           learned).
# learnrate: one trial of --learn-macs addresses (default 100,000) a
#   repetition, xdpbr's FDB sized for them (-s: the next power of two over
#   1.25 N): the addresses learned and forwarded, divided by the learning
#   burst's time. The sender goes as fast as one core sends (the offered
#   rate is reported too): RFC 2889 searches the highest rate at which all
#   are learned; here a DUT that can't keep up shows as fewer learned.
# capacity: the most addresses held without flooding, xdpbr with its
#   default FDB: trials of 1024, 2048, ... addresses until one floods or
#   --capacity-max (default 262,144) is reached, then a bisection between
#   the last that held and the first that flooded, to 1% (each trial after
#   flushing the learning port's dynamic entries). Once per run: it is
#   deterministic (a table of fixed size), not a rate. A capacity trial
#   sends its learning burst twice: a DUT that misses a learn under load
#   (the Linux bridge's table insert can fail while a resize waits for a
#   CPU) gets a second chance, so a flood there is the table, not the
#   learning rate, which learnrate measures.
#
# Needs root, what tools/deps.sh installs and `make` (build/xdpbrd,
# build/xdpbr, build/tools/pktgen). Cleans up on exit, failure and Ctrl-C.

set -u
set -o pipefail

cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tools/benchlib.sh
. tools/benchlib.sh
BUILD=${BUILD:-build}
PKTGEN=$BUILD/tools/pktgen
XDPBRD=$BUILD/xdpbrd
XDPBR=$BUILD/xdpbr
TESTS=learnrate,capacity
DUTS=xdpbr,bridge
REPS=3
LEARN_MACS=100000
CAP_MAX=262144
JSON_OUT=
ID=$(($$ % 10000))
BRX=rf$ID		# xdpbr bridge (pins /sys/fs/bpf/xdpbr/$BRX)
BRK=rf${ID}k		# Linux bridge
NS=rf$ID-h
PORTS=("rf${ID}p1" "rf${ID}p2" "rf${ID}p3")
KNOWN_MAC=02:b2:00:00:00:01	# s1's
LEARN_BASE=02:51:00:00:00:00
DAEMON_PID=
BRNF_SAVED=()
TMP=$(mktemp -d /tmp/bench-rfc2889.XXXXXX)

usage()
{
	echo "usage: $0 [--tests learnrate,capacity] [--duts xdpbr,bridge] [--reps N]" \
		"[--learn-macs N] [--capacity-max N] [--json FILE]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--tests) TESTS=$2 ;;
	--duts) DUTS=$2 ;;
	--reps) REPS=$2 ;;
	--learn-macs) LEARN_MACS=$2 ;;
	--capacity-max) CAP_MAX=$2 ;;
	--json) JSON_OUT=$2 ;;
	*) usage ;;
	esac
	shift 2
done

die()
{
	echo "bench-rfc2889: $*" >&2
	exit 1
}

progress()
{
	echo "bench-rfc2889: $*" >&2
}

in_range "$REPS" 1 1000 || die "--reps: $REPS is not in 1..1000"
in_range "$LEARN_MACS" 2 4194304 || die "--learn-macs: $LEARN_MACS is not in 2..4194304"
in_range "$CAP_MAX" 1024 4194304 || die "--capacity-max: $CAP_MAX is not in 1024..4194304"
IFS=, read -r -a TEST_LIST <<<"$TESTS"
IFS=, read -r -a DUT_LIST <<<"$DUTS"
for t in "${TEST_LIST[@]}"; do
	case $t in learnrate | capacity) ;; *) die "--tests: unknown test '$t'" ;; esac
done
for d in "${DUT_LIST[@]}"; do
	case $d in xdpbr | bridge) ;; *) die "--duts: unknown DUT '$d' (xdpbr, bridge)" ;; esac
done
[ "$(id -u)" -eq 0 ] || die "must be run as root"
for f in "$PKTGEN" "$XDPBRD" "$XDPBR"; do
	[ -x "$f" ] || die "$f is missing: run make"
done

# shellcheck disable=SC2317 # called from the traps
cleanup()
{
	local p
	stop_daemon
	linux_bridge_down
	for p in "${PORTS[@]}"; do
		ip link del dev "$p" 2>/dev/null
	done
	netns_del
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

topo_up()
{
	local i
	ip netns add "$NS" || die "ip netns add $NS"
	ip netns exec "$NS" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 >/dev/null
	ip netns exec "$NS" sysctl -q -w net.ipv6.conf.default.disable_ipv6=1 >/dev/null
	for i in 1 2 3; do
		{
			ip link add "${PORTS[i - 1]}" type veth peer name "s$i" netns "$NS" &&
			sysctl -q -w "net.ipv6.conf.${PORTS[i - 1]}.disable_ipv6=1" >/dev/null &&
			ip link set dev "${PORTS[i - 1]}" up &&
			ethtool -K "${PORTS[i - 1]}" gro on >/dev/null &&
			ip -n "$NS" link set dev "s$i" up &&
			ip netns exec "$NS" ethtool -K "s$i" gro on >/dev/null
		} || die "veth ${PORTS[i - 1]} <-> $NS/s$i"
	done
	ip -n "$NS" link set dev s1 address "$KNOWN_MAC" || die "s1 address"
}

# dut_up DUT [FDB_SIZE]: the DUT over p1..p3 with s1's static entry;
# xdpbr's FDB of FDB_SIZE entries (empty: its default).
dut_up()
{
	local i n args=(-l none -H off -d xdp -m native)
	case $1 in
	xdpbr)
		[ -z "${2:-}" ] || args+=(-s "$2")
		"$XDPBRD" "${args[@]}" "$BRX" "${PORTS[@]}" >"$TMP/xdpbrd.log" 2>&1 &
		DAEMON_PID=$!
		for ((i = 0; i < 300; i++)); do
			kill -0 "$DAEMON_PID" 2>/dev/null ||
				die "xdpbrd exited while starting: $(cat "$TMP/xdpbrd.log")"
			n=$("$XDPBR" -b "$BRX" -j link show 2>/dev/null |
				jq '[.[]? | select(.datapath == "xdp" and .xdp_mode != "none")] | length' 2>/dev/null)
			[ "${n:-0}" = 3 ] && break
			sleep 0.1
		done
		[ "${n:-0}" = 3 ] || die "xdpbrd not ready: $(cat "$TMP/xdpbrd.log")"
		"$XDPBR" -b "$BRX" fdb add "$KNOWN_MAC" dev "${PORTS[0]}" >/dev/null ||
			die "xdpbr fdb add $KNOWN_MAC"
		;;
	bridge)
		linux_bridge_up "${PORTS[@]}"
		bridge fdb add "$KNOWN_MAC" dev "${PORTS[0]}" master static ||
			die "bridge fdb add $KNOWN_MAC"
		;;
	esac
}

dut_down()
{
	case $1 in
	xdpbr) stop_daemon ;;
	bridge) linux_bridge_down ;;
	esac
}

# flush DUT: forget what the learning port learned.
flush()
{
	case $1 in
	xdpbr) "$XDPBR" -b "$BRX" fdb flush dev "${PORTS[1]}" dynamic >/dev/null ;;
	bridge) ip link set dev "${PORTS[1]}" type bridge_slave fdb_flush ;;
	esac || die "$1: flushing ${PORTS[1]}"
}

# gen TX RX ARGS...: one pktgen burst in the hosts' namespace, its JSON.
gen()
{
	local tx=$1 rx=$2
	shift 2
	nsenter --net="/run/netns/$NS" "$PKTGEN" -t "$tx" -r "$rx" -s 64 -c 1 --json --quiet \
		"$@" || die "pktgen -t $tx -r $rx $*"
}

# trial N [PASSES]: learn N addresses (the burst sent PASSES times,
# default once; the first is timed), check them; one JSON object.
trial()
{
	local n=$1 passes=${2:-1} learn check p
	learn=$(gen s2 s1,s3 --src-mac "$LEARN_BASE" --src-macs "$n" --dst-mac "$KNOWN_MAC" -n "$n")
	for ((p = 2; p <= passes; p++)); do
		gen s2 s1,s3 --src-mac "$LEARN_BASE" --src-macs "$n" --dst-mac "$KNOWN_MAC" \
			-n "$n" >/dev/null
	done
	# the DUT's learning is in the frames' path: done when they arrived
	check=$(gen s1 s2,s3 --src-mac "$KNOWN_MAC" --dst-mac "$LEARN_BASE" --dst-macs "$n" -n "$n")
	jq -nc --argjson n "$n" --argjson l "$learn" --argjson c "$check" --argjson p "$passes" '
		{macs: $n, learn_passes: $p, learn_s: $l.seconds, offered_pps: $l.tx_pps,
		 learn_delivered: $l.rx[0].frames,
		 flooded: $c.rx[1].frames,
		 learned: ([$c.rx[0].frames - $c.rx[1].frames, 0] | max),
		 check_delivered: $c.rx[0].frames}
		| . + {learned_per_s: (if .learn_s > 0 then .learned / .learn_s else 0 end)}'
}

# The smallest power of two >= N * 1.25: xdpbr's FDB for a trial of N.
fdb_for()
{
	local p=1
	while [ "$p" -lt $(($1 + $1 / 4)) ]; do
		p=$((p * 2))
	done
	echo "$p"
}

# capacity DUT: the search; prints one JSON object per trial.
capacity()
{
	local dut=$1 n=1024 lo=0 hi=0 t
	while :; do
		flush "$dut"
		t=$(trial "$n" 2)
		echo "$t"
		if [ "$(jq .flooded <<<"$t")" = 0 ]; then
			lo=$n
			[ "$n" -lt "$CAP_MAX" ] || break
			n=$((n * 2))
			[ "$n" -le "$CAP_MAX" ] || n=$CAP_MAX
		else
			hi=$n
			break
		fi
	done
	[ "$hi" -gt 0 ] || return 0
	while [ $((hi - lo)) -gt $((lo / 100 > 1 ? lo / 100 : 1)) ]; do
		n=$(((lo + hi) / 2))
		flush "$dut"
		t=$(trial "$n" 2)
		echo "$t"
		if [ "$(jq .flooded <<<"$t")" = 0 ]; then lo=$n; else hi=$n; fi
	done
}

topo_up
: >"$TMP/learn.jsonl"
: >"$TMP/cap.jsonl"
for t in "${TEST_LIST[@]}"; do
	case $t in
	learnrate)
		for ((rep = 1; rep <= REPS; rep++)); do
			for dut in "${DUT_LIST[@]}"; do
				dut_up "$dut" "$(fdb_for "$LEARN_MACS")"
				r=$(trial "$LEARN_MACS")
				dut_down "$dut"
				progress "learnrate rep $rep/$REPS $dut: $(jq -r '"\(.learned) of \(.macs) learned in \(.learn_s * 1000 | round) ms (\(.learned_per_s | round)/s), \(.flooded) flooded"' <<<"$r")"
				jq -c --arg d "$dut" --argjson rep "$rep" '. + {dut: $d, rep: $rep}' <<<"$r" \
					>>"$TMP/learn.jsonl"
			done
		done
		;;
	capacity)
		for dut in "${DUT_LIST[@]}"; do
			dut_up "$dut" ""
			capacity "$dut" | jq -c --arg d "$dut" '. + {dut: $d}' >>"$TMP/cap.jsonl" ||
				die "capacity $dut failed"
			dut_down "$dut"
			progress "capacity $dut: $(jq -rs --arg d "$dut" '[.[] | select(.dut == $d and .flooded == 0) | .macs] | max' "$TMP/cap.jsonl") held without flooding"
		done
		;;
	esac
done

# The document: per test, per DUT the trials and the summary; ratios
# xdpbr / bridge where both ran.
jq -n --slurpfile l "$TMP/learn.jsonl" --slurpfile c "$TMP/cap.jsonl" \
	--argjson reps "$REPS" --argjson lm "$LEARN_MACS" --argjson cm "$CAP_MAX" \
	--arg prefix "rf$ID" '
	def med: sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;
	($l | group_by(.dut) | map({key: .[0].dut, value: {
		learned_per_s: (map(.learned_per_s) | med),
		learned_per_s_min: (map(.learned_per_s) | min),
		learned_per_s_max: (map(.learned_per_s) | max),
		offered_pps: (map(.offered_pps) | med),
		learned_min: (map(.learned) | min),
		flooded_max: (map(.flooded) | max),
		trials: .}}) | from_entries) as $lr
	| ($c | group_by(.dut) | map({key: .[0].dut, value: {
		capacity: ([.[] | select(.flooded == 0) | .macs] | max // 0),
		reached_max: any(.[]; .flooded == 0 and .macs == $cm),
		trials: .}}) | from_entries) as $cap
	| {prefix: $prefix,
	   learnrate: (if ($l | length) == 0 then null else
		{macs: $lm, reps: $reps, duts: $lr,
		 ratio: (if $lr.xdpbr and $lr.bridge and $lr.bridge.learned_per_s > 0
			 then $lr.xdpbr.learned_per_s / $lr.bridge.learned_per_s else null end)} end),
	   capacity: (if ($c | length) == 0 then null else
		{max: $cm, duts: $cap} end)}' >"$TMP/out.json" || die "no results"
if [ -n "$JSON_OUT" ]; then
	cp "$TMP/out.json" "$JSON_OUT" || die "cannot write $JSON_OUT"
else
	cat "$TMP/out.json"
fi

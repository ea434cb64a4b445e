#!/usr/bin/env bash
#
# bench.sh - forwarding rate of xdpbr next to the Linux bridge and a bare
# devmap redirect, measured side by side in one run (`make bench` builds,
# then runs this).
#
#   tools/bench.sh [OPTION...]            see --help
#   tools/bench.sh --cleanup              remove what a killed run left behind
#
# Topology (ID = PID % 10000, every name unique to the run):
#
#   root namespace                                 netns bn$ID-sink
#   bn${ID}g  ===veth===  bn${ID}p0 ---+
#   (generator: pktgen                 |  DUT     bn${ID}p1 ===veth=== s1  (sink: XDP
#    live frames)                      +--------  bn${ID}p2 ===veth=== s2   counter,
#                                      |          bn${ID}p3 ===veth=== s3   XDP_DROP)
#
# Every veth has one tx and one rx queue per CPU (at least 2). The DUT joins
# p0..p3, one at a time:
#   xdpbr    build/xdpbrd on p0..p3 (native XDP), a static FDB entry for s1
#   bridge   a Linux bridge over p0..p3, a static FDB entry for s1, with
#            net.bridge.bridge-nf-call-{iptables,ip6tables,arptables} at 0
#            while it runs (restored afterwards)
#   ceiling  `pktgen --forward p0 --to p1,p2,p3`: a minimal XDP program on p0
#            that redirects everything through a devmap, no FDB: the most
#            any XDP bridge can forward on this path
# Scenarios:
#   unicast    one flow to s1's MAC (known: static entry)
#   macs10k    the same, the source MAC cycling through 10,000 addresses
#   broadcast  to ff:ff:ff:ff:ff:ff, flooded to p1, p2 and p3; delivered is
#              the sum over the three sinks
# The generator runs one thread pinned per CPU for N cores (CPUs 0..N-1); a
# veth delivers into the rx queue of the sending CPU, so the DUT also uses N
# rx queues, and generator, DUT and sink share each core: a rate is what N
# cores do for all three. A veth peer only takes redirected frames when it
# runs NAPI: every veth end here has GRO on (for the kernel bridge's p0) and
# the sinks run their XDP program.
#
# Repetitions are the outer loop (each DUT is set up again in every
# repetition), so noise on a shared machine spreads over all DUTs; the
# tables show the median and the min-max of the repetitions, the ratio table
# compares DUTs measured minutes apart at most. Progress goes to stderr.
#
# External mode (--tx-dev): no topology, no DUT set up here; the generator
# sends on --tx-dev and counts on --rx-dev (inside --rx-ns): a bridge on real
# NICs measured from a second machine. The sinks first send a frame each so
# that the bridge learns them.
#
# Needs root and what tools/deps.sh installs. Cleans up everything it
# created (namespaces, links, bridge, XDP programs, pins, sysctls) on exit,
# failure and Ctrl-C.

set -u
set -o pipefail

cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
PKTGEN=$BUILD/tools/pktgen
XDPBRD=$BUILD/xdpbrd
XDPBR=$BUILD/xdpbr
STATE_DIR=/run/xdpbr-bench

ALL_SIZES=64,128,256,512,1024,1280,1408,1518
ALL_SCENARIOS=unicast,macs10k,broadcast
ALL_DUTS=xdpbr,bridge,ceiling
XDPBRD_ARGS=()
NCPU=$(nproc)

SIZES=$ALL_SIZES
SCENARIOS=$ALL_SCENARIOS
DUTS=$ALL_DUTS
CORES=
DURATION=1
WARMUP=0.1
REPS=3
LINK=10G
JSON_OUT=
MACS=10000
PROFILE=0
SMOKE=0
TX_DEV=
RX_DEV=
RX_NS=
DUT_NAME=external

usage()
{
	cat <<EOF
usage: tools/bench.sh [OPTION...]
  --duts LIST        of xdpbr,bridge,ceiling (default: all three)
  --scenarios LIST   of unicast,macs10k,broadcast (default: all three)
  --sizes LIST       frame sizes on the wire with FCS, 64..1518
                     (default $ALL_SIZES)
  --cores LIST       core counts, e.g. 1,2 (default 1..nproc = 1..$NCPU)
  --duration SEC     measured time per point (default 1)
  --warmup SEC       traffic before each measurement (default 0.1)
  --reps N           repetitions; median and min-max reported (default 3)
  --link SPEED       nominal link for Mbps bars and line rate:
                     1G|10G|25G|40G|100G (default 10G)
  --macs N           source MACs of the macs10k scenario (default 10000)
  --xdpbrd-args ARGS more options for xdpbrd, e.g. "-C 0" (FDB cache off)
  --json FILE        write the results as JSON to FILE
  --profile          also measure BPF run time per program (BPF stats on:
                     slows every program a little)
  --smoke            tiny run for tests: size 64, 1 rep, 0.2 s, 1 core
                     (unless given explicitly)
  --tx-dev DEV       external mode: send on DEV, measure the bridge behind it
  --rx-dev LIST      external mode: sink interfaces (the first one is the
                     unicast destination; broadcast counts all)
  --rx-ns NS         external mode: the sinks are in network namespace NS
  --dut-name NAME    external mode: the name of the DUT in the tables
  --cleanup          remove the leftovers of a killed run
  -h, --help
EOF
}

die()
{
	echo "bench: $*" >&2
	exit 1
}

progress()
{
	echo "bench: $*" >&2
}

# ---------------------------------------------------------------- cleanup

P=bn$(($$ % 10000))
NS=$P-sink
GEN=${P}g
PORTS=("${P}p0" "${P}p1" "${P}p2" "${P}p3")
SINK_MACS=(02:b0:00:00:00:01 02:b0:00:00:00:02 02:b0:00:00:00:03)
BRX=$P			# xdpbr bridge (pins /sys/fs/bpf/xdpbr/$BRX)
BRK=${P}br		# Linux bridge
PIN_DIR=/sys/fs/bpf/xdpbr/$BRX
BRNF=(bridge-nf-call-iptables bridge-nf-call-ip6tables bridge-nf-call-arptables)
declare -A BRNF_SAVED=()
DAEMON_PID=
FWD_PID=
TMP=
CLEANED=
TOPO=0

state_save()
{
	local k
	[ "$TOPO" = 1 ] || return 0
	{
		echo "pid $$"
		echo "daemon ${DAEMON_PID:-}"
		for k in "${!BRNF_SAVED[@]}"; do
			echo "sysctl $k ${BRNF_SAVED[$k]}"
		done
	} >"$STATE_DIR/$P"
}

stop_child()
{
	local pid=$1 i
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

brnf_restore()
{
	local k
	for k in "${!BRNF_SAVED[@]}"; do
		sysctl -q -w "net.bridge.$k=${BRNF_SAVED[$k]}" >/dev/null 2>&1
		unset "BRNF_SAVED[$k]"
	done
	state_save
}

# remove_run PREFIX: delete the links, namespace, bridge and pins of run PREFIX.
remove_run()
{
	local p=$1 i
	ip link del dev "${p}br" 2>/dev/null
	ip link del dev "${p}g" 2>/dev/null
	for i in 1 2 3; do
		ip link del dev "${p}p$i" 2>/dev/null
	done
	ip netns pids "$p-sink" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	ip netns del "$p-sink" 2>/dev/null
	rm -rf "/sys/fs/bpf/xdpbr/$p"
	rm -f "$STATE_DIR/$p"
}

# shellcheck disable=SC2317 # called from the traps
cleanup()
{
	[ -z "$CLEANED" ] || return 0
	CLEANED=1
	stop_child "$FWD_PID"
	FWD_PID=
	stop_child "$DAEMON_PID"
	DAEMON_PID=
	brnf_restore
	[ "$TOPO" = 1 ] && remove_run "$P"
	[ -n "$TMP" ] && rm -rf "$TMP"
	return 0
}

# --cleanup: runs whose bench.sh is gone (the state file records its PID).
cleanup_stale()
{
	local f p pid daemon line k v
	[ -d "$STATE_DIR" ] || { echo "bench: nothing to clean up"; return 0; }
	for f in "$STATE_DIR"/bn*; do
		[ -e "$f" ] || continue
		p=$(basename "$f")
		pid=$(sed -n 's/^pid //p' "$f")
		if [ -n "$pid" ] && grep -q bench.sh "/proc/$pid/cmdline" 2>/dev/null; then
			echo "bench: $p belongs to a running bench (pid $pid): kept"
			continue
		fi
		daemon=$(sed -n 's/^daemon //p' "$f")
		if [ -n "$daemon" ] && grep -q xdpbrd "/proc/$daemon/cmdline" 2>/dev/null; then
			kill -TERM "$daemon"
			sleep 1
		fi
		while read -r line k v; do
			[ "$line" = sysctl ] && sysctl -q -w "net.bridge.$k=$v" >/dev/null 2>&1
		done <"$f"
		remove_run "$p"
		echo "bench: removed $p"
	done
}

# ---------------------------------------------------------------- options

declare -A GIVEN=()	# options given on the command line

# arg OPTION VALUE...: the value of OPTION, or die when it has none.
arg()
{
	[ $# -ge 2 ] || die "$1 needs a value (see --help)"
	printf '%s' "$2"
}

while [ $# -gt 0 ]; do
	opt=$1
	case $opt in
	--profile) PROFILE=1 ;;
	--smoke) SMOKE=1 ;;
	--cleanup)
		[ "$(id -u)" -eq 0 ] || die "must be run as root"
		cleanup_stale
		exit 0
		;;
	-h | --help) usage; exit 0 ;;
	--duts | --scenarios | --sizes | --cores | --duration | --warmup | --reps | \
	--link | --macs | --json | --tx-dev | --rx-dev | --rx-ns | --dut-name | \
	--xdpbrd-args)
		val=$(arg "$@") || exit 2
		shift
		GIVEN[$opt]=1
		case $opt in
		--duts) DUTS=$val ;;
		--scenarios) SCENARIOS=$val ;;
		--sizes) SIZES=$val ;;
		--cores) CORES=$val ;;
		--duration) DURATION=$val ;;
		--warmup) WARMUP=$val ;;
		--reps) REPS=$val ;;
		--link) LINK=$val ;;
		--macs) MACS=$val ;;
		--json) JSON_OUT=$val ;;
		--tx-dev) TX_DEV=$val ;;
		--rx-dev) RX_DEV=$val ;;
		--rx-ns) RX_NS=$val ;;
		--dut-name) DUT_NAME=$val ;;
		--xdpbrd-args) read -r -a XDPBRD_ARGS <<<"$val" ;;
		esac
		;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done

# --smoke: defaults for a tiny run; options given explicitly still win.
if [ "$SMOKE" = 1 ]; then
	[ -n "${GIVEN[--sizes]:-}" ] || SIZES=64
	[ -n "${GIVEN[--reps]:-}" ] || REPS=1
	[ -n "${GIVEN[--duration]:-}" ] || DURATION=0.2
	[ -n "${GIVEN[--warmup]:-}" ] || WARMUP=0.05
	[ -n "${GIVEN[--cores]:-}" ] || CORES=1
fi
[ -n "$CORES" ] || CORES=$(seq -s, 1 "$NCPU")

case $LINK in
1G) LINK_BPS=1000000000 ;;
10G) LINK_BPS=10000000000 ;;
25G) LINK_BPS=25000000000 ;;
40G) LINK_BPS=40000000000 ;;
100G) LINK_BPS=100000000000 ;;
*) die "--link $LINK: one of 1G, 10G, 25G, 40G, 100G" ;;
esac

IFS=, read -r -a SIZE_LIST <<<"$SIZES"
IFS=, read -r -a SCEN_LIST <<<"$SCENARIOS"
IFS=, read -r -a DUT_LIST <<<"$DUTS"
IFS=, read -r -a CORE_LIST <<<"$CORES"
# in_range VALUE MIN MAX: VALUE is an integer in MIN..MAX.
in_range()
{
	[[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

for s in "${SIZE_LIST[@]}"; do
	in_range "$s" 64 1518 || die "--sizes: $s is not a frame size in 64..1518"
done
for s in "${SCEN_LIST[@]}"; do
	[[ ,$ALL_SCENARIOS, == *",$s,"* ]] || die "--scenarios: unknown scenario '$s'"
done
for c in "${CORE_LIST[@]}"; do
	in_range "$c" 1 "$NCPU" || die "--cores: $c is not in 1..$NCPU"
done
in_range "$REPS" 1 1000 || die "--reps: $REPS is not in 1..1000"
in_range "$MACS" 1 65536 || die "--macs: $MACS is not in 1..65536"
[[ $DURATION =~ ^[0-9]*\.?[0-9]+$ ]] || die "--duration: $DURATION"
[[ $WARMUP =~ ^[0-9]*\.?[0-9]+$ ]] || die "--warmup: $WARMUP"

EXTERNAL=0
if [ -n "$TX_DEV" ]; then
	EXTERNAL=1
	[ -n "$RX_DEV" ] || die "--tx-dev needs --rx-dev"
	DUT_LIST=("$DUT_NAME")
else
	[ -z "$RX_DEV$RX_NS" ] || die "--rx-dev and --rx-ns go with --tx-dev (external mode)"
	for d in "${DUT_LIST[@]}"; do
		[[ ,$ALL_DUTS, == *",$d,"* ]] || die "--duts: unknown DUT '$d'"
	done
fi

[ "$(id -u)" -eq 0 ] || die "must be run as root (namespaces, XDP, BPF_PROG_RUN)"
for f in "$PKTGEN" "$XDPBRD" "$XDPBR"; do
	[ -x "$f" ] || die "$f is missing: run 'make bench' (or make all $PKTGEN)"
done
for t in ip bridge ethtool jq sysctl awk; do
	command -v "$t" >/dev/null || die "'$t' is missing: run 'make deps'"
done

trap 'cleanup' EXIT
trap 'echo >&2; progress "interrupted, cleaning up"; cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
TMP=$(mktemp -d /tmp/xdpbr-bench.XXXXXX)
POINTS=$TMP/points.jsonl
: >"$POINTS"

# ---------------------------------------------------------------- topology

# up_gro NS DEV: bring DEV up, then GRO on (it only takes effect while up).
up_gro()
{
	local ns=$1 dev=$2
	if [ -n "$ns" ]; then
		ip -n "$ns" link set dev "$dev" up &&
			ip netns exec "$ns" ethtool -K "$dev" gro on >/dev/null
	else
		ip link set dev "$dev" up && ethtool -K "$dev" gro on >/dev/null
	fi
}

topo_up()
{
	local q=$NCPU i
	[ "$q" -ge 2 ] || q=2
	mkdir -p "$STATE_DIR"
	TOPO=1
	state_save
	progress "topology $P: $GEN <-> ${PORTS[0]} (generator), ${PORTS[1]}..${PORTS[3]} <-> $NS/s1..s3 (sinks); veths with $q queues"
	ip netns add "$NS" || die "ip netns add $NS"
	ip netns exec "$NS" sysctl -q -w net.ipv6.conf.default.disable_ipv6=1 >/dev/null
	ip netns exec "$NS" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 >/dev/null
	ip link add "$GEN" numtxqueues "$q" numrxqueues "$q" type veth \
		peer name "${PORTS[0]}" numtxqueues "$q" numrxqueues "$q" ||
		die "ip link add $GEN"
	for i in 1 2 3; do
		ip link add "${PORTS[i]}" numtxqueues "$q" numrxqueues "$q" type veth \
			peer name "s$i" numtxqueues "$q" numrxqueues "$q" netns "$NS" ||
			die "ip link add ${PORTS[i]}"
		ip -n "$NS" link set dev "s$i" address "${SINK_MACS[i - 1]}" ||
			die "set the MAC of s$i"
	done
	# No addresses of their own on the root side: the only frames on the
	# DUT are the generator's.
	for i in "$GEN" "${PORTS[@]}"; do
		sysctl -q -w "net.ipv6.conf.$i.disable_ipv6=1" >/dev/null
		up_gro "" "$i" || die "$i up, GRO on"
	done
	for i in 1 2 3; do
		up_gro "$NS" "s$i" || die "s$i up, GRO on"
	done
}

# ---------------------------------------------------------------- DUTs

dut_up()
{
	local i n
	case $1 in
	xdpbr)
		"$XDPBRD" -m native "${XDPBRD_ARGS[@]}" "$BRX" "${PORTS[@]}" \
			>"$TMP/xdpbrd.log" 2>&1 &
		DAEMON_PID=$!
		state_save
		for ((i = 0; i < 100; i++)); do
			kill -0 "$DAEMON_PID" 2>/dev/null ||
				die "xdpbrd exited while starting: $(cat "$TMP/xdpbrd.log")"
			n=$("$XDPBR" -b "$BRX" -j link show 2>/dev/null |
				jq '[.[] | select(.xdp_mode != "none")] | length' 2>/dev/null)
			[ "${n:-0}" = 4 ] && break
			sleep 0.1
		done
		[ "${n:-0}" = 4 ] || die "xdpbrd not ready after 10 s: $(cat "$TMP/xdpbrd.log")"
		"$XDPBR" -b "$BRX" fdb add "${SINK_MACS[0]}" dev "${PORTS[1]}" >/dev/null ||
			die "xdpbr fdb add ${SINK_MACS[0]} dev ${PORTS[1]}"
		;;
	bridge)
		ip link add name "$BRK" type bridge || die "ip link add $BRK type bridge"
		sysctl -q -w "net.ipv6.conf.$BRK.disable_ipv6=1" >/dev/null
		for i in "${PORTS[@]}"; do
			ip link set dev "$i" master "$BRK" || die "$i master $BRK"
		done
		ip link set dev "$BRK" up || die "$BRK up"
		# The bridge-nf sysctls exist only once br_netfilter is there.
		for i in "${BRNF[@]}"; do
			if [ -e "/proc/sys/net/bridge/$i" ]; then
				[ -n "${BRNF_SAVED[$i]:-}" ] ||
					BRNF_SAVED[$i]=$(cat "/proc/sys/net/bridge/$i")
				sysctl -q -w "net.bridge.$i=0" >/dev/null || die "sysctl net.bridge.$i=0"
			fi
		done
		state_save
		[ ${#BRNF_SAVED[@]} -gt 0 ] || progress "no br_netfilter: no bridge-nf sysctl to set"
		bridge fdb add "${SINK_MACS[0]}" dev "${PORTS[1]}" master static ||
			die "bridge fdb add ${SINK_MACS[0]} dev ${PORTS[1]} master static"
		for ((i = 0; i < 50; i++)); do
			n=$(bridge -j link show master "$BRK" |
				jq '[.[] | select(.state == "forwarding")] | length')
			[ "${n:-0}" = 4 ] && break
			sleep 0.1
		done
		[ "${n:-0}" = 4 ] || die "$BRK: ports not forwarding after 5 s"
		;;
	ceiling)
		"$PKTGEN" --forward "${PORTS[0]}" --to "${PORTS[1]},${PORTS[2]},${PORTS[3]}" \
			>"$TMP/fwd.out" 2>&1 &
		FWD_PID=$!
		for ((i = 0; i < 100; i++)); do
			grep -q '^ready' "$TMP/fwd.out" && break
			kill -0 "$FWD_PID" 2>/dev/null ||
				die "pktgen --forward exited: $(cat "$TMP/fwd.out")"
			sleep 0.1
		done
		grep -q '^ready' "$TMP/fwd.out" || die "pktgen --forward not ready after 10 s"
		;;
	esac
}

dut_down()
{
	local i
	case $1 in
	xdpbr)
		stop_child "$DAEMON_PID"
		DAEMON_PID=
		state_save
		rm -rf "$PIN_DIR"
		;;
	bridge)
		for i in "${PORTS[@]}"; do
			ip link set dev "$i" nomaster 2>/dev/null
		done
		ip link del dev "$BRK" 2>/dev/null
		brnf_restore
		;;
	ceiling)
		stop_child "$FWD_PID"
		FWD_PID=
		;;
	esac
}

# The XDP programs to profile with --profile: the DUT's on the ingress port
# (and xdpbr's devmap egress program, which runs for every flooded copy).
dut_profile()
{
	case $1 in
	xdpbr) echo "${PORTS[0]},$PIN_DIR/prog_egress" ;;
	ceiling) echo "${PORTS[0]}" ;;
	*) echo "" ;;
	esac
}

# ---------------------------------------------------------------- measuring

# measure REP DUT SCENARIO CORES: one pktgen run over all sizes; appends one
# JSON object per size to $POINTS.
measure()
{
	local rep=$1 dut=$2 sc=$3 cores=$4 label args=() rx tx rxns=()
	if [ "$EXTERNAL" = 1 ]; then
		tx=$TX_DEV
		rx=$RX_DEV
		[ -n "$RX_NS" ] && rxns=(--rx-ns "$RX_NS")
		args+=(--prelearn)
	else
		tx=$GEN
		rx=s1,s2,s3
		rxns=(--rx-ns "$NS")
	fi
	case $sc in
	unicast) args+=(--src-mac 02:50:00:00:00:01) ;;
	macs10k) args+=(--src-mac 02:50:00:01:00:00 --src-macs "$MACS") ;;
	broadcast) args+=(--src-mac 02:50:00:00:00:01 --dst-mac ff:ff:ff:ff:ff:ff) ;;
	esac
	# An empty list still profiles the generator and the sinks.
	[ "$PROFILE" = 1 ] && args+=(--profile "$(dut_profile "$dut")")
	label="[$DONE/$TOTAL] rep $rep/$REPS $dut $sc ${cores}c"
	"$PKTGEN" -t "$tx" -r "$rx" "${rxns[@]}" -s "$SIZES" -c "$cores" \
		-d "$DURATION" --warmup "$WARMUP" --json --label "$label" "${args[@]}" \
		>"$TMP/run.jsonl" || die "pktgen failed ($label)"
	jq -c --arg dut "$dut" --arg sc "$sc" --argjson rep "$rep" '
		. + {dut: $dut, scenario: $sc, rep: $rep,
		     delivered_pps: (if $sc == "broadcast" then .rx_pps else .rx[0].pps end),
		     elsewhere_pps: (if $sc == "broadcast" then 0
				     else ([.rx[1:][].pps] | add // 0) end)}' \
		"$TMP/run.jsonl" >>"$POINTS" || die "bad pktgen output: $(cat "$TMP/run.jsonl")"
}

TOTAL=$((REPS * ${#DUT_LIST[@]} * ${#SCEN_LIST[@]} * ${#CORE_LIST[@]}))
DONE=0
est=$(awk -v n="$((TOTAL * ${#SIZE_LIST[@]}))" -v d="$DURATION" -v w="$WARMUP" \
	-v s="$((REPS * ${#DUT_LIST[@]}))" 'BEGIN { printf "%.0f", n * (d + w + 0.05) + s * 2 + 5 }')
progress "$((TOTAL * ${#SIZE_LIST[@]})) points: ${#DUT_LIST[@]} DUTs (${DUT_LIST[*]}) x ${#SCEN_LIST[@]} scenarios x cores {${CORES}} x ${#SIZE_LIST[@]} sizes x $REPS reps, ${DURATION} s each: about $est s"

# Programs on the xdp tracepoints (every running xdpbrd attaches two) run
# for every devmap flush on the machine, the generator's included: note them.
TP_PROGS=$(bpftool perf list 2>/dev/null | grep -c 'tracepoint  xdp_')
[ "${TP_PROGS:-0}" -eq 0 ] ||
	progress "note: $TP_PROGS BPF programs on xdp tracepoints already (other xdpbrd instances?): they cost every XDP redirect"

[ "$EXTERNAL" = 1 ] || topo_up
START=$(date +%s)
for ((rep = 1; rep <= REPS; rep++)); do
	for dut in "${DUT_LIST[@]}"; do
		[ "$EXTERNAL" = 1 ] || { progress "rep $rep/$REPS: setting up $dut"; dut_up "$dut"; }
		for sc in "${SCEN_LIST[@]}"; do
			for cores in "${CORE_LIST[@]}"; do
				DONE=$((DONE + 1))
				measure "$rep" "$dut" "$sc" "$cores"
			done
		done
		[ "$EXTERNAL" = 1 ] || dut_down "$dut"
	done
done
progress "measured in $(($(date +%s) - START)) s"

# ---------------------------------------------------------------- results

# One document: the run, one entry per (DUT, scenario, cores, size) with the
# median, min and max over the repetitions, and the ratios at 64 bytes (or
# the smallest size measured).
jq -s \
	--arg link "$LINK" --argjson link_bps "$LINK_BPS" \
	--arg kernel "$(uname -r)" --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	--argjson ncpu "$NCPU" --argjson duration "$DURATION" --argjson reps "$REPS" \
	--arg prefix "$P" --argjson external "$EXTERNAL" --argjson tp "${TP_PROGS:-0}" \
	--arg duts "${DUT_LIST[*]}" --arg scens "${SCEN_LIST[*]}" \
	--arg sizes "${SIZE_LIST[*]}" --arg cores "${CORE_LIST[*]}" '
	def median: sort | if length == 0 then null
		elif length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def r2: . * 1000 | round / 1000;
	. as $pts
	| ($sizes | split(" ") | map(tonumber)) as $sz
	| ($sz | if index(64) != null then 64 else min end) as $rsize
	| ($duts | split(" ")) as $dl | ($scens | split(" ")) as $sl
	| [ group_by([.dut, .scenario, .cores, .size])
	    | sort_by([(.[0].dut as $d | $dl | index($d)), (.[0].scenario as $x | $sl | index($x)),
		       .[0].cores, .[0].size])[]
	    | (.[0].size) as $s
	    | (map(.delivered_pps) | median) as $pps
	    | { dut: .[0].dut, scenario: .[0].scenario, cores: .[0].cores, size: $s,
		pps: ($pps | round),
		pps_min: (map(.delivered_pps) | min | round),
		pps_max: (map(.delivered_pps) | max | round),
		mbps: ($pps * ($s + 20) * 8 / 1e6 * 100 | round / 100),
		line_rate_pps: ($link_bps / (($s + 20) * 8) | floor),
		tx_pps: (map(.tx_pps) | median | round),
		elsewhere_pps: (map(.elsewhere_pps) | median | round),
		reps: map(.delivered_pps | round),
		sinks: (.[0].rx | map(.dev)),
		profile: ([.[].profile[]] | group_by(.prog)
			  | map({prog: .[0].prog,
				 ns_per_run: (map(.ns_per_run) | median * 100 | round / 100),
				 runs_per_rx_frame: (map(.runs_per_rx_frame) | median * 10000 | round / 10000)}))
	      } ] as $res
	| def find($d; $sc; $c; $s): first($res[] | select(.dut == $d and .scenario == $sc
						   and .cores == $c and .size == $s)) // null;
	  def pair($d; $sc; $c; $s): [ $pts[] | select(.dut == $d and .scenario == $sc
						   and .cores == $c and .size == $s) ] | sort_by(.rep);
	  # ratio of medians, and the range of the ratios of the same repetition
	  def ratio($a; $b): if $a == null or $b == null or $b.pps == 0 then null
		else { ratio: ($a.pps / $b.pps | r2),
		       min: ([range(0; [$a.reps | length, $b.reps | length] | min)] |
			     map(if $b.reps[.] > 0 then $a.reps[.] / $b.reps[.] else null end) |
			     map(select(. != null)) | min | if . then r2 else null end),
		       max: ([range(0; [$a.reps | length, $b.reps | length] | min)] |
			     map(if $b.reps[.] > 0 then $a.reps[.] / $b.reps[.] else null end) |
			     map(select(. != null)) | max | if . then r2 else null end) } end;
	  def nspp($r): if $r == null or $r.pps == 0 then null else $r.cores * 1e9 / $r.pps end;
	{ tool: "xdpbr bench (tools/bench.sh, build/tools/pktgen)",
	  date: $date, kernel: $kernel, cpus: $ncpu, prefix: $prefix,
	  external: ($external == 1), xdp_tracepoint_progs_before: $tp,
	  link: $link, link_bps: $link_bps, duration_s: $duration, reps: $reps,
	  duts: ($duts | split(" ")), scenarios: ($scens | split(" ")),
	  sizes: $sz, cores: ($cores | split(" ") | map(tonumber)),
	  ratio_size: $rsize,
	  results: $res,
	  ratios: [ ($scens | split(" "))[] as $sc | ($cores | split(" ") | map(tonumber))[] as $c
		    | find("xdpbr"; $sc; $c; $rsize) as $x
		    | find("ceiling"; $sc; $c; $rsize) as $ce
		    | find("bridge"; $sc; $c; $rsize) as $b
		    | { scenario: $sc, cores: $c, size: $rsize,
			xdpbr_over_ceiling: ratio($x; $ce),
			xdpbr_over_bridge: ratio($x; $b),
			xdpbr_extra_ns_per_frame: (if nspp($x) == null or nspp($ce) == null then null
						   else (nspp($x) - nspp($ce)) * 10 | round / 10 end),
			scaling: (if $c == 1 then null else
				  ($duts | split(" ")) | map({ (.): ratio(find(.; $sc; $c; $rsize);
									     find(.; $sc; 1; $rsize)) })
				  | add end) } ]
	}' "$POINTS" >"$TMP/result.json" || die "could not assemble the results"

if [ -n "$JSON_OUT" ]; then
	cp "$TMP/result.json" "$JSON_OUT" || die "cannot write $JSON_OUT"
	progress "JSON written to $JSON_OUT"
fi

# ---------------------------------------------------------------- tables

# table: TSV on stdin, printed in columns three spaces apart (first column
# left-aligned, the others right-aligned); lines without a tab as they are.
table()
{
	awk -F'\t' '
	{ line[NR] = $0; nf[NR] = NF
	  if (NF > 1) for (i = 1; i <= NF; i++) if (length($i) > w[i]) w[i] = length($i) }
	END {
		for (r = 1; r <= NR; r++) {
			if (nf[r] < 2) { print line[r]; continue }
			n = split(line[r], f, "\t"); out = ""
			for (i = 1; i <= n; i++)
				out = out (i > 1 ? "   " : "") sprintf(i == 1 ? "%-*s" : "%*s", w[i], f[i])
			print out
		}
	}'
}

dut_title()
{
	case $1 in
	xdpbr) echo "xdpbr (XDP bridge, build/xdpbrd)" ;;
	bridge) echo "Linux bridge (bridge-nf-call-* = 0)" ;;
	ceiling) echo "ceiling (bare XDP devmap redirect, no FDB)" ;;
	*) echo "$1" ;;
	esac
}

scen_title()
{
	case $1 in
	unicast) echo "unicast, 1 flow" ;;
	macs10k) echo "unicast, $MACS source MACs cycling" ;;
	broadcast) echo "broadcast flooded to $NSINKS ports (delivered: sum of the $NSINKS sinks)" ;;
	esac
}

NSINKS=3
[ "$EXTERNAL" = 0 ] || NSINKS=$(awk -F, '{ print NF }' <<<"$RX_DEV")
# Column widths: the line rate's, or wider when a figure is beyond it.
WM=$(jq -r --argjson l "$LINK_BPS" '[.results[].mbps, $l / 1e6] | max | . * 100 | round / 100 |
	tostring | split(".") | .[0] | length + 3' "$TMP/result.json")
WP=$(jq -r --argjson l "$LINK_BPS" '[.results[].pps, ($l / 672 | floor)] | max | tostring | length' \
	"$TMP/result.json")

echo "xdpbr bench: $(uname -r), $NCPU CPUs, link $LINK, ${DURATION} s per point, median of $REPS (spread min-max)"
if [ "$EXTERNAL" = 0 ] &&
	jq -e 'any(.results[]; .pps > .line_rate_pps)' "$TMP/result.json" >/dev/null; then
	echo "(veth has no line rate: the bars stop at the nominal $LINK link, the Mbps and pps"
	echo " beyond it are what the CPUs forward)"
fi
for dut in "${DUT_LIST[@]}"; do
	for sc in "${SCEN_LIST[@]}"; do
		for cores in "${CORE_LIST[@]}"; do
			c_word=cores
			[ "$cores" = 1 ] && c_word=core
			echo
			echo "+ $(dut_title "$dut"): $(scen_title "$sc"), $cores $c_word"
			echo
			jq -r --arg d "$dut" --arg s "$sc" --argjson c "$cores" '
				.results[] | select(.dut == $d and .scenario == $s and .cores == $c)
				| [.size, .pps, .pps_min, .pps_max, .mbps, .line_rate_pps] | @tsv' \
				"$TMP/result.json" |
			awk -F'\t' -v link_bps="$LINK_BPS" -v wm="$WM" -v wp="$WP" '
			function put(line, pos, s) {
				return substr(line, 1, pos) s substr(line, pos + length(s) + 1)
			}
			function label(i,   v) {
				v = link_bps * i / 10
				if (link_bps < 10e9)
					return (i == 10 ? sprintf("%gG", v / 1e9) : sprintf("%gM", v / 1e6))
				return sprintf("%gG", v / 1e9)
			}
			BEGIN {
				link_mbps = link_bps / 1e6
				head = sprintf("%-70s", "framesize|")
				last = 9
				for (i = 0; i <= 10; i++) {
					s = label(i) (i == 10 ? "bps" : "")
					pos = (i == 0) ? 10 : 9 + 5 * i
					if (pos <= last + 1 && i > 0)
						continue
					head = put(head, pos, s)
					last = pos + length(s) - 1
				}
				sub(/ +$/, "", head)
				print head
				rule = "---------"
				for (i = 0; i < 10; i++)
					rule = rule "+----"
				print rule "+"
			}
			{
				n = $5 / link_mbps * 50
				nb = int(n)
				if (n > nb)
					nb++
				if (nb > 50)
					nb = 50
				bar = ""
				for (i = 0; i < nb; i++)
					bar = bar "#"
				printf "%8d |%-50s %*.2fMbps, %*d/%*dpps  [%d-%d]\n",
					$1, bar, wm, $5, wp, $2, wp, $6, $3, $4
			}'
		done
	done
done

echo
jq -r '
	def f($r): if $r == null or $r.ratio == null then "-"
		else "\($r.ratio) [\($r.min)-\($r.max)]" end;
	"ratios at \(.ratio_size) bytes (of the median delivered pps; [min-max] of the ratios within each repetition)",
	"",
	(if (.duts | index("xdpbr")) and ((.duts | index("ceiling")) or (.duts | index("bridge"))) then
		"ns/frame over ceiling = cores x (1/pps(xdpbr) - 1/pps(ceiling)): the CPU time xdpbr adds per frame",
		"",
		(["scenario", "cores", "xdpbr/ceiling", "xdpbr/bridge", "xdpbr ns/frame over ceiling"] | @tsv),
		(.ratios[] | [.scenario, .cores, f(.xdpbr_over_ceiling), f(.xdpbr_over_bridge),
			      (if .xdpbr_extra_ns_per_frame == null then "-"
			       else "\(.xdpbr_extra_ns_per_frame)" end)] | @tsv)
	 else "DUT ratios: the run needs xdpbr and the ceiling or the bridge" end),
	"",
	(if any(.ratios[]; .cores > 1) then
		(.duts as $duts | (["scenario", "scaling"] + $duts | @tsv),
		 (.ratios[] | select(.cores > 1) as $r
		  | [$r.scenario, "\($r.cores)-core/1-core"] + ($duts | map(f($r.scaling[.]))) | @tsv))
	 else "scaling: one core count measured, no N-core/1-core ratio" end)
' "$TMP/result.json" | table

if [ "$PROFILE" = 1 ]; then
	echo
	echo "BPF run time per program at $(jq .ratio_size "$TMP/result.json") bytes (medians; BPF stats add their own ~20-40 ns to every run)"
	echo
	jq -r '.ratio_size as $s |
		(["dut", "scenario", "cores", "program", "ns/run", "runs/frame", "ns/frame"] | @tsv),
		(.results[] | select(.size == $s) as $r | $r.profile[] | select(.runs_per_rx_frame > 0)
		 | [$r.dut, $r.scenario, $r.cores, .prog, .ns_per_run, .runs_per_rx_frame,
		    (.ns_per_run * .runs_per_rx_frame * 10 | round / 10)] | @tsv)' \
		"$TMP/result.json" | table
fi

# Sanity: known unicast must not reach the other sinks.
leak=$(jq -r '[.results[] | select(.scenario != "broadcast" and .elsewhere_pps > 0.01 * .pps)
	| "\(.dut) \(.scenario) \(.cores)c \(.size)B: \(.elsewhere_pps) pps on other sinks"] | .[]' \
	"$TMP/result.json")
if [ -n "$leak" ]; then
	echo
	echo "warning: unicast frames flooded to other ports:"
	echo "$leak"
fi
exit 0

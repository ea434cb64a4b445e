#!/usr/bin/env bash
#
# bench.sh - forwarding rate of xdpbr next to the Linux bridge and a bare
# devmap redirect, and TCP through xdpbr next to the Linux bridge, measured
# side by side in one run (`make bench` builds, then runs this).
#
#   tools/bench.sh [OPTION...]            see --help
#   tools/bench.sh --plot DIR FILE        SVG plots of FILE, a saved --json
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
#   xdpbr    build/xdpbrd -d xdp on p0..p3 (native XDP: the datapath of
#            physical NICs; veth ports would get the TC path by default),
#            a static FDB entry for s1
#   xdpbr-tc build/xdpbrd -d tc on p0..p3: the skb path (TC clsact ingress)
#            that veth and tap ports run by default, a static FDB entry for
#            s1. It hands known unicast to a veth whose peer is in another
#            namespace with bpf_redirect_peer, which skips the peer's native
#            XDP hook, and floods with bpf_clone_redirect, which generic XDP
#            skips: for this DUT the sinks count at TC ingress (pktgen
#            --rx-tc), which sees both. (A TC sink costs ~10 ns a frame more
#            than an XDP one on the skbs of the Linux bridge: no advantage.)
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
#   macs100k   unicast, 100,000 source MACs cycling, xdpbr's FDB sized for
#              them (-s 131072): all learned, the per-CPU cache sized from it
#   macs100k2m the same 100,000 sources with an FDB sized for 1,000,000
#              (-s 2097152): what a large table costs a smaller working set
#   macs1m     the same with 1,000,000 source MACs (-s 2097152)
#   macflood   100,000 source MACs against the default FDB of 65,536
#              entries: the FDB fills, and every frame of an unlearned
#              source pays a failed insert (a MAC flood)
# xdpbr is started again for a scenario whose FDB differs from the last
# one's (and after macflood), so every scenario starts from an empty FDB;
# the warmup of a MAC scenario is long enough to learn them all (at least
# 2 s per million MACs).
#   tcp        not frames but TCP, on a topology of its own (below)
#   overlay    TCP across a VXLAN overlay between two sites: xdpbr with its
#              [vxlan] overlay against a Linux bridge with a vxlan port
#              (tools/bench-overlay.sh, doc/evpn.md), after the others
#   learnrate  RFC 2889 5.8, address learning rate: new source MACs learned
#              a second, xdpbr against the Linux bridge, each checked by
#              sending to it afterwards without flooding
#   capacity   RFC 2889 5.7, address caching capacity: the most MACs held
#              without flooding (both: tools/bench-rfc2889.sh, a topology
#              of its own, after the others)
#   broadcast100  64-byte broadcasts flooded to 100 ports, one core, every
#              DUT (tools/bench-flood.sh, a topology of its own, after the
#              others): a container host's bridge of a hundred veths
#   mcast      64-byte frames to a multicast group on a bridge of 20 ports,
#              IGMP snooping on, the bridge its own querier: the group's
#              members 1 port, then 3 (static entries), one core, every
#              DUT (tools/bench-flood.sh --group, after broadcast100); the
#              ceiling is a bare devmap broadcast to the members only
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
# The tcp scenario: iperf3, one stream for --tcp-duration seconds, between
# hosts in network namespaces that keep every default offload (no ethtool
# on them: tx checksum offload, TSO/GSO on, as container runtimes and
# hypervisors leave them):
#
#   netns bn$ID-h1  e0 ===veth=== bn${ID}v1 --+
#   netns bn$ID-h2  e0 ===veth=== bn${ID}v2 --+-- DUT
#   netns bn$ID-h3  e0 ~~tapwire~~ bn${ID}t3 --+   (tap ports: a VM's card,
#   netns bn$ID-h4  e0 ~~tapwire~~ bn${ID}t4 --+    build/tools/tapwire)
#
# h1 -> h2 is the container (veth) pair, h3 -> h4 the VM (tap) pair,
# addresses 198.18.1.1-4/24, MACs 02:b1:00:00:00:01-04. The DUTs:
#   xdpbr    build/xdpbrd with its default datapath (auto: the TC path on
#            veth and tap ports; the run records what each port got)
#   bridge   the Linux bridge, bridge-nf-call-* at 0 as above
# (xdpbr-tc is the same as xdpbr here and the ceiling has no TCP
# counterpart: they are not run twice.) Reported: the median Gbit/s the
# receiver counted over the repetitions and the ratio xdpbr/bridge per pair.
#
# External mode (--tx-dev): no topology, no DUT set up here; the generator
# sends on --tx-dev and counts on --rx-dev (inside --rx-ns): a bridge on real
# NICs measured from a second machine. The sinks first send a frame each so
# that the bridge learns them.
#
# --plot DIR draws the results with gnuplot (tools/plot.sh): per core count
# DIR/rates-Ncores.svg (delivered Mpps and Gbit/s per frame size, the DUTs
# side by side, the line rate, the repetitions' spread) and DIR/ratios.svg,
# next to DIR/bench.json, the JSON they were drawn from; `make bench` puts
# them in build/plots.
#
# Needs root and what tools/deps.sh installs. Cleans up everything it
# created (namespaces, links, bridge, XDP programs, pins, sysctls) on exit,
# failure and Ctrl-C.

set -u
set -o pipefail

cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tools/stopchild.sh
. tools/stopchild.sh
BUILD=${BUILD:-build}
PKTGEN=$BUILD/tools/pktgen
TAPWIRE=$BUILD/tools/tapwire
TCXPROGS=$BUILD/tools/tcxprogs
XDPBRD=$BUILD/xdpbrd
XDPBR=$BUILD/xdpbr
STATE_DIR=/run/xdpbr-bench

ALL_SIZES=64,128,256,512,1024,1280,1408,1518
FRAME_SCENARIOS=unicast,macs10k,broadcast,macs100k,macs100k2m,macs1m,macflood
# The largest frame the generator sends (BPF_PROG_RUN live frames: one
# page, see tools/pktgen.c); jumbo frames are measured with TCP (--tcp-mtu).
FRAME_MAX=3412
ALL_SCENARIOS=$FRAME_SCENARIOS,tcp,overlay,learnrate,capacity,broadcast100,mcast
ALL_DUTS=xdpbr,xdpbr-tc,bridge,ceiling
XDPBRD_ARGS=()
HOSTIF=off
NCPU=$(nproc)

SIZES=$ALL_SIZES
SCENARIOS=$ALL_SCENARIOS
DUTS=$ALL_DUTS
CORES=
DURATION=1
TCP_DURATION=5
TCP_MTU=1500
WARMUP=0.1
REPS=3
LINK=10G
JSON_OUT=
PLOT_DIR=
PLOT_FILE=
MACS=10000
PROFILE=1
SMOKE=0
TX_DEV=
RX_DEV=
RX_NS=
DUT_NAME=external

usage()
{
	cat <<EOF
usage: tools/bench.sh [OPTION...]
       tools/bench.sh --plot DIR FILE
  --duts LIST        of xdpbr,xdpbr-tc,bridge,ceiling (default: all four;
                     xdpbr is the XDP datapath, xdpbr-tc the TC one; the
                     tcp scenario runs xdpbr (default datapath) and bridge)
  --scenarios LIST   of unicast,macs10k,broadcast,macs100k,macs100k2m,macs1m,
                     macflood,tcp,overlay,learnrate,capacity,broadcast100,
                     mcast (default: all)
  --sizes LIST       frame sizes on the wire with FCS, 64..$FRAME_MAX (the
                     generator's limit; over 1518 the veths' MTU is raised;
                     jumbo frames up to 9000: --tcp-mtu) (default $ALL_SIZES)
  --cores LIST       core counts, e.g. 1,2 (default 1..nproc = 1..$NCPU)
  --duration SEC     measured time per point (default 1)
  --warmup SEC       traffic before each measurement (default 0.1)
  --tcp-duration SEC iperf3 time per TCP measurement (default 5)
  --tcp-mtu MTU      MTU of the tcp scenario's hosts and ports, 1280..9000
                     (default 1500; 9000: jumbo frames)
  --reps N           repetitions; median and min-max reported (default 3)
  --link SPEED       nominal link for Mbps bars and line rate:
                     1G|10G|25G|40G|100G (default 10G)
  --macs N           source MACs of the macs10k scenario (default 10000)
  --xdpbrd-args ARGS more options for xdpbrd, e.g. "-C 0" (FDB cache off)
  --host-interface DATAPATH
                     xdpbr with its host interface (the Linux bridge device
                     and its port BR-host, on DATAPATH: tc, its kind's, as
                     beside NICs, or xdp), the device up with no address, so
                     the host's copy of a flood reaches its stack; off: none
                     (default off)
  --json FILE        write the results as JSON to FILE
  --plot DIR         also draw the results as SVG plots (gnuplot) in DIR:
                     rates-1core.svg.. (Mpps and Gbit/s per frame size, one
                     plot per core count) and ratios.svg, with the JSON they
                     come from as DIR/bench.json; with FILE, a saved --json,
                     draw FILE and measure nothing (no root needed)
  --profile          measure BPF run time per program (the default: the
                     ns/frame columns; BPF stats on while pktgen runs, by
                     BPF_ENABLE_STATS, which ends with it: the sysctl
                     kernel.bpf_stats_enabled is left as it was)
  --no-profile       no BPF stats (they add ~20-40 ns to every program run)
  --smoke            tiny run for tests: size 64, 1 rep, 0.2 s, 1 core,
                     TCP 1 s (unless given explicitly)
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
# tcp scenario: hosts h1..h4 (index 0 unused), bridge ports v1 v2 (veth)
# and t3 t4 (taps wired by tapwire to the hosts' e0)
TCP_NS=("" "$P-h1" "$P-h2" "$P-h3" "$P-h4")
TCP_PORTS=("" "${P}v1" "${P}v2" "${P}t3" "${P}t4")
TCP_IP=("" 198.18.1.1 198.18.1.2 198.18.1.3 198.18.1.4)
TCP_MAC=("" 02:b1:00:00:00:01 02:b1:00:00:00:02 02:b1:00:00:00:03 02:b1:00:00:00:04)
TAPWIRE_PIDS=()
IPERF_PID=
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
		for k in "${TAPWIRE_PIDS[@]}"; do
			echo "tapwire $k"
		done
		for k in "${!BRNF_SAVED[@]}"; do
			echo "sysctl $k ${BRNF_SAVED[$k]}"
		done
	} >"$STATE_DIR/$P"
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

# remove_run PREFIX: delete the links, namespaces, bridge and pins of run
# PREFIX (its tapwire processes must be gone already: a tap left in a
# namespace being deleted would move to the root namespace).
remove_run()
{
	local p=$1 i ns
	ip link del dev "${p}br" 2>/dev/null
	ip link del dev "${p}g" 2>/dev/null
	ip link del dev "$p-host" 2>/dev/null	# --host-interface: the pair,
	ip link del dev "$p" 2>/dev/null	# and the device, if xdpbrd was killed
	for i in 1 2 3; do
		ip link del dev "${p}p$i" 2>/dev/null
	done
	for i in v1 v2 t3 t4; do
		ip link del dev "$p$i" 2>/dev/null
	done
	for ns in "$p-sink" "$p-h1" "$p-h2" "$p-h3" "$p-h4"; do
		[ -e "/run/netns/$ns" ] || continue
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	rm -rf "/sys/fs/bpf/xdpbr/$p"
	rm -f "$STATE_DIR/$p"
}

# shellcheck disable=SC2317 # called from the traps
tapwire_stop()
{
	local pid
	for pid in "${TAPWIRE_PIDS[@]}"; do
		stop_child "$pid"
	done
	TAPWIRE_PIDS=()
	state_save
}

# shellcheck disable=SC2317 # called from the traps
cleanup()
{
	[ -z "$CLEANED" ] || return 0
	CLEANED=1
	stop_child "$IPERF_PID"
	IPERF_PID=
	stop_child "$FWD_PID"
	FWD_PID=
	stop_child "$DAEMON_PID"
	DAEMON_PID=
	brnf_restore
	tapwire_stop
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
		while read -r line k; do
			[ "$line" = tapwire ] && grep -q tapwire "/proc/$k/cmdline" 2>/dev/null &&
				kill -TERM "$k" && sleep 0.5
		done <"$f"
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
	--no-profile) PROFILE=0 ;;
	--smoke) SMOKE=1 ;;
	--cleanup)
		[ "$(id -u)" -eq 0 ] || die "must be run as root"
		cleanup_stale
		exit 0
		;;
	-h | --help) usage; exit 0 ;;
	--duts | --scenarios | --sizes | --cores | --duration | --warmup | --reps | \
	--link | --macs | --json | --tx-dev | --rx-dev | --rx-ns | --dut-name | \
	--xdpbrd-args | --tcp-duration | --tcp-mtu | --plot | --host-interface)
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
		--tcp-duration) TCP_DURATION=$val ;;
		--tcp-mtu) TCP_MTU=$val ;;
		--reps) REPS=$val ;;
		--link) LINK=$val ;;
		--macs) MACS=$val ;;
		--json) JSON_OUT=$val ;;
		--plot) PLOT_DIR=$val ;;
		--tx-dev) TX_DEV=$val ;;
		--rx-dev) RX_DEV=$val ;;
		--rx-ns) RX_NS=$val ;;
		--dut-name) DUT_NAME=$val ;;
		--xdpbrd-args) read -r -a XDPBRD_ARGS <<<"$val" ;;
		--host-interface)
			case $val in off | tc | xdp) HOSTIF=$val ;; *) usage >&2; exit 2 ;; esac
			;;
		esac
		;;
	-*) usage >&2; exit 2 ;;
	*)
		[ -z "$PLOT_FILE" ] || { usage >&2; exit 2; }
		PLOT_FILE=$opt
		;;
	esac
	shift
done

# --plot DIR FILE: draw a saved run, measure nothing.
if [ -n "$PLOT_FILE" ]; then
	[ -n "$PLOT_DIR" ] || die "$PLOT_FILE: a saved run is only read by --plot DIR FILE"
	if [ ${#GIVEN[@]} -ne 1 ] || [ "$SMOKE" != 0 ]; then
		die "--plot DIR FILE draws a saved run: it takes no other option"
	fi
	exec tools/plot.sh bench "$PLOT_FILE" "$PLOT_DIR"
fi

# --smoke: defaults for a tiny run; options given explicitly still win.
if [ "$SMOKE" = 1 ]; then
	[ -n "${GIVEN[--sizes]:-}" ] || SIZES=64
	[ -n "${GIVEN[--reps]:-}" ] || REPS=1
	[ -n "${GIVEN[--duration]:-}" ] || DURATION=0.2
	[ -n "${GIVEN[--warmup]:-}" ] || WARMUP=0.05
	[ -n "${GIVEN[--cores]:-}" ] || CORES=1
	[ -n "${GIVEN[--tcp-duration]:-}" ] || TCP_DURATION=1
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

FRAME_SIZE_MAX=64
for s in "${SIZE_LIST[@]}"; do
	in_range "$s" 64 9000 || die "--sizes: $s is not a frame size in 64..$FRAME_MAX"
	in_range "$s" 64 "$FRAME_MAX" ||
		die "--sizes: $s: the generator (BPF_PROG_RUN live frames, one page a frame)" \
			"sends at most $FRAME_MAX bytes; for jumbo frames run the tcp scenario" \
			"at MTU 9000: --scenarios tcp --tcp-mtu 9000"
	[ "$s" -le "$FRAME_SIZE_MAX" ] || FRAME_SIZE_MAX=$s
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
in_range "$TCP_DURATION" 1 3600 || die "--tcp-duration: $TCP_DURATION is not in 1..3600 (whole seconds)"
in_range "$TCP_MTU" 1280 9000 || die "--tcp-mtu: $TCP_MTU is not in 1280..9000"

# The frame scenarios (pktgen) and the tcp scenario (iperf3), each in the
# order given.
FSCEN_LIST=()
TCP=0
OVERLAY=0
FLOOD=0
MCAST=0
RFC_TESTS=()
for s in "${SCEN_LIST[@]}"; do
	case $s in
	tcp) TCP=1 ;;
	overlay) OVERLAY=1 ;;
	broadcast100) FLOOD=1 ;;
	mcast) MCAST=1 ;;
	learnrate | capacity) RFC_TESTS+=("$s") ;;
	*) FSCEN_LIST+=("$s") ;;
	esac
done

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

# The DUTs of the tcp scenario: xdpbr with its default datapath (asked for
# as xdpbr or xdpbr-tc) and the Linux bridge.
TCP_DUTS=()
if [ "$TCP" = 1 ]; then
	why=
	if [ "$EXTERNAL" = 1 ]; then
		why="external mode has no hosts to run iperf3 on"
	else
		[[ " ${DUT_LIST[*]} " == *" xdpbr "* || " ${DUT_LIST[*]} " == *" xdpbr-tc "* ]] &&
			TCP_DUTS+=(xdpbr)
		[[ " ${DUT_LIST[*]} " == *" bridge "* ]] && TCP_DUTS+=(bridge)
		[ ${#TCP_DUTS[@]} -gt 0 ] || why="it needs the DUT xdpbr, xdpbr-tc or bridge"
	fi
	if [ -n "$why" ]; then
		[ -z "${GIVEN[--scenarios]:-}" ] || die "--scenarios tcp: $why"
		TCP=0
		TCP_DUTS=()
		SCEN_LIST=("${FSCEN_LIST[@]}")
		[ "$OVERLAY" = 0 ] || SCEN_LIST+=(overlay)
	fi
fi
if [ "$FLOOD" = 1 ] && [ "$EXTERNAL" = 1 ]; then
	[ -z "${GIVEN[--scenarios]:-}" ] || die "--scenarios broadcast100: external mode has no 100 ports to flood"
	FLOOD=0
	mapfile -t SCEN_LIST < <(printf '%s\n' "${SCEN_LIST[@]}" | grep -vx broadcast100)
fi
if [ "$MCAST" = 1 ] && [ "$EXTERNAL" = 1 ]; then
	[ -z "${GIVEN[--scenarios]:-}" ] || die "--scenarios mcast: external mode has no 20 ports and no group"
	MCAST=0
	mapfile -t SCEN_LIST < <(printf '%s\n' "${SCEN_LIST[@]}" | grep -vx mcast)
fi
if [ "$OVERLAY" = 1 ] && [ "$EXTERNAL" = 1 ]; then
	[ -z "${GIVEN[--scenarios]:-}" ] || die "--scenarios overlay: external mode has no sites to build"
	OVERLAY=0
	mapfile -t SCEN_LIST < <(printf '%s\n' "${SCEN_LIST[@]}" | grep -vx overlay)
fi
# The RFC 2889 tests: xdpbr (asked for as xdpbr or xdpbr-tc: its XDP
# datapath) and the Linux bridge, on a topology of their own.
RFC_DUTS=()
if [ ${#RFC_TESTS[@]} -gt 0 ]; then
	[[ " ${DUT_LIST[*]} " == *" xdpbr "* || " ${DUT_LIST[*]} " == *" xdpbr-tc "* ]] &&
		RFC_DUTS+=(xdpbr)
	[[ " ${DUT_LIST[*]} " == *" bridge "* ]] && RFC_DUTS+=(bridge)
	if [ "$EXTERNAL" = 1 ] || [ ${#RFC_DUTS[@]} -eq 0 ]; then
		[ -z "${GIVEN[--scenarios]:-}" ] ||
			die "--scenarios ${RFC_TESTS[*]}: they need the DUT xdpbr or bridge, not external mode"
		mapfile -t SCEN_LIST < <(printf '%s\n' "${SCEN_LIST[@]}" | grep -vx 'learnrate\|capacity')
		RFC_TESTS=()
		RFC_DUTS=()
	fi
fi
[ ${#SCEN_LIST[@]} -gt 0 ] || die "--scenarios: nothing to measure"

[ "$(id -u)" -eq 0 ] || die "must be run as root (namespaces, XDP, BPF_PROG_RUN)"
for f in "$PKTGEN" "$XDPBRD" "$XDPBR"; do
	[ -x "$f" ] || die "$f is missing: run 'make bench' (or make all $PKTGEN)"
done
for t in ip bridge ethtool jq sysctl awk tc; do
	command -v "$t" >/dev/null || die "'$t' is missing: run 'make deps'"
done
if [ -n "$PLOT_DIR" ]; then
	command -v gnuplot >/dev/null || die "--plot: 'gnuplot' is missing: run 'make deps' (gnuplot-nox)"
	{ mkdir -p "$PLOT_DIR" && [ -w "$PLOT_DIR" ]; } || die "--plot: cannot write to $PLOT_DIR"
fi
if [ "$TCP" = 1 ]; then
	[ -x "$TAPWIRE" ] || die "$TAPWIRE is missing: run 'make bench' (or make all $TAPWIRE)"
	for t in iperf3 ss; do
		command -v "$t" >/dev/null || die "'$t' is missing: run 'make deps'"
	done
fi

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
		if [ "$FRAME_SIZE_MAX" -gt 1518 ]; then
			ip link set dev "$i" mtu $((FRAME_SIZE_MAX - 18)) ||
				die "$i: mtu $((FRAME_SIZE_MAX - 18)) (frames of $FRAME_SIZE_MAX bytes)"
		fi
		up_gro "" "$i" || die "$i up, GRO on"
	done
	for i in 1 2 3; do
		if [ "$FRAME_SIZE_MAX" -gt 1518 ]; then
			ip -n "$NS" link set dev "s$i" mtu $((FRAME_SIZE_MAX - 18)) ||
				die "s$i: mtu $((FRAME_SIZE_MAX - 18))"
		fi
		up_gro "$NS" "s$i" || die "s$i up, GRO on"
	done
}

# ---------------------------------------------------------------- DUTs

# ports_ready DATAPATH PORT...: xdpbr runs every PORT, on the XDP datapath
# (its program attached) or on the TC one (its clsact filter attached).
ports_ready()
{
	local dp=$1 json p
	shift
	json=$("$XDPBR" -b "$BRX" -j link show 2>/dev/null) || return 1
	[ -n "$json" ] || return 1	# jq -e passes on empty input
	for p in "$@"; do
		case $dp in
		xdp)
			jq -e --arg p "$p" 'any(.[]; .ifname == $p and .datapath == "xdp" and
				.xdp_mode != "none")' <<<"$json" >/dev/null || return 1
			;;
		*)
			jq -e --arg p "$p" --arg dp "$dp" \
				'any(.[]; .ifname == $p and .datapath == $dp)' <<<"$json" >/dev/null ||
				return 1
			tc_runs_ours "$p" || return 1
			;;
		esac
	done
}

# tc_runs_ours PORT: xdpbr's TC program runs on PORT's ingress: as a
# clsact filter, or on its TCX hook (Linux 6.6 on; tc does not show it).
tc_runs_ours()
{
	local id
	tc filter show dev "$1" ingress 2>/dev/null | grep -q xdpbr_tc_rx && return 0
	for id in $("$TCXPROGS" "$1" 2>/dev/null); do
		bpftool prog show id "$id" 2>/dev/null | grep -q xdpbr_tc_rx && return 0
	done
	return 1
}

# host_ready: the host interface's port runs on $HOSTIF and forwards.
host_ready()
{
	local json
	json=$("$XDPBR" -b "$BRX" -j link show 2>/dev/null) || return 1
	[ -n "$json" ] || return 1	# jq -e passes on empty input
	jq -e --arg dp "$HOSTIF" 'any(.[]; .host_interface != null and .datapath == $dp and
		.state == "forwarding")' <<<"$json" >/dev/null
}

# xdpbr_up DATAPATH PORT...: xdpbrd on the PORTs (-d DATAPATH, or its
# default for auto), until every port runs; with auto, each port must get
# the TC path (the only ports given are veth and tap). No host interface
# unless --host-interface asks for one: the bench measures bridging
# between the ports.
xdpbr_up()
{
	local dp=$1 i args=(-l none -H off)
	shift
	[ "$dp" = auto ] || args+=(-d "$dp")
	[ "$dp" = xdp ] && args+=(-m native)
	if [ "$HOSTIF" != off ]; then
		printf '[port %s-host]\ndatapath = %s\n' "$BRX" "$HOSTIF" >"$TMP/hostif.conf"
		args+=(-H on -c "$TMP/hostif.conf")
	fi
	"$XDPBRD" "${args[@]}" "${SCEN_ARGS[@]}" "${XDPBRD_ARGS[@]}" "$BRX" "$@" \
		>"$TMP/xdpbrd.log" 2>&1 &
	DAEMON_PID=$!
	state_save
	[ "$dp" = auto ] && dp=tc
	for ((i = 0; i < 300; i++)); do
		kill -0 "$DAEMON_PID" 2>/dev/null ||
			die "xdpbrd exited while starting: $(cat "$TMP/xdpbrd.log")"
		if ports_ready "$dp" "$@"; then
			[ "$HOSTIF" = off ] && return 0
			ip link set dev "$BRX" up 2>/dev/null && host_ready && return 0
		fi
		sleep 0.1
	done
	die "xdpbrd not ready after 30 s (ports on the $dp datapath: $*):" \
		"$("$XDPBR" -b "$BRX" link show 2>&1)" "$(cat "$TMP/xdpbrd.log")"
}

xdpbr_down()
{
	stop_child "$DAEMON_PID"
	DAEMON_PID=
	state_save
	rm -rf "$PIN_DIR"
}

# bridge_up PORT...: a Linux bridge over the PORTs, bridge-nf-call-* at 0,
# until every port forwards.
bridge_up()
{
	local i n
	ip link add name "$BRK" type bridge || die "ip link add $BRK type bridge"
	sysctl -q -w "net.ipv6.conf.$BRK.disable_ipv6=1" >/dev/null
	for i in "$@"; do
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
	for ((i = 0; i < 50; i++)); do
		# (iproute2 6.1 lists every bridge's ports here: filter)
		n=$(bridge -j link show master "$BRK" |
			jq --arg b "$BRK" '[.[] | select(.master == $b and .state == "forwarding")] | length')
		[ "${n:-0}" = $# ] && return 0
		sleep 0.1
	done
	die "$BRK: ports not forwarding after 5 s"
}

# bridge_down PORT...
bridge_down()
{
	local i
	for i in "$@"; do
		ip link set dev "$i" nomaster 2>/dev/null
	done
	ip link del dev "$BRK" 2>/dev/null
	brnf_restore
}

dut_up()
{
	local i
	case $1 in
	xdpbr | xdpbr-tc)
		if [ "$1" = xdpbr ]; then xdpbr_up xdp "${PORTS[@]}"; else xdpbr_up tc "${PORTS[@]}"; fi
		"$XDPBR" -b "$BRX" fdb add "${SINK_MACS[0]}" dev "${PORTS[1]}" >/dev/null ||
			die "xdpbr fdb add ${SINK_MACS[0]} dev ${PORTS[1]}"
		;;
	bridge)
		bridge_up "${PORTS[@]}"
		bridge fdb add "${SINK_MACS[0]}" dev "${PORTS[1]}" master static ||
			die "bridge fdb add ${SINK_MACS[0]} dev ${PORTS[1]} master static"
		;;
	ceiling)
		"$PKTGEN" --forward "${PORTS[0]}" --to "${PORTS[1]},${PORTS[2]},${PORTS[3]}" \
			>"$TMP/fwd.out" 2>&1 &
		FWD_PID=$!
		for ((i = 0; i < 300; i++)); do
			grep -q '^ready' "$TMP/fwd.out" && break
			kill -0 "$FWD_PID" 2>/dev/null ||
				die "pktgen --forward exited: $(cat "$TMP/fwd.out")"
			sleep 0.1
		done
		grep -q '^ready' "$TMP/fwd.out" || die "pktgen --forward not ready after 30 s (a loaded machine?)"
		;;
	esac
}

dut_down()
{
	case $1 in
	xdpbr | xdpbr-tc) xdpbr_down ;;
	bridge) bridge_down "${PORTS[@]}" ;;
	ceiling)
		stop_child "$FWD_PID"
		FWD_PID=
		;;
	esac
}

# The BPF programs to profile with --profile: the DUT's on the ingress port
# (and xdpbr's devmap egress program, which runs for every flooded copy; the
# TC path floods from its ingress program alone).
dut_profile()
{
	case $1 in
	xdpbr) echo "${PORTS[0]},$PIN_DIR/prog_egress" ;;
	xdpbr-tc) echo "$PIN_DIR/prog_tc" ;;
	ceiling) echo "${PORTS[0]}" ;;
	*) echo "" ;;
	esac
}

# ---------------------------------------------------------------- scenarios

# scen_macs SCENARIO: the source MACs it cycles through.
scen_macs()
{
	case $1 in
	macs10k) echo "$MACS" ;;
	macs100k | macs100k2m | macflood) echo 100000 ;;
	macs1m) echo 1000000 ;;
	*) echo 1 ;;
	esac
}

# scen_fdb SCENARIO: xdpbrd's FDB size for it (empty: the default).
scen_fdb()
{
	case $1 in
	macs100k) echo 131072 ;;
	macs100k2m | macs1m) echo 2097152 ;;
	*) echo "" ;;
	esac
}

# scen_setup SCENARIO: the xdpbrd options of SCENARIO in SCEN_ARGS, and
# whether xdpbr must start again for it (an FDB of another size, or one
# that a MAC flood filled): returns 0 when it must.
SCEN_ARGS=()
SCEN_KEY=
scen_setup()
{
	local fdb key
	fdb=$(scen_fdb "$1")
	key=${fdb:-default}
	[ "$1" = macflood ] && key=flood
	[ "$1" = macs100k2m ] && key=$fdb-100k	# macs1m after it starts empty too
	SCEN_ARGS=()
	[ -z "$fdb" ] || SCEN_ARGS=(-s "$fdb")
	[ "$key" != "$SCEN_KEY" ] || [ "$key" = flood ] || return 1
	SCEN_KEY=$key
	return 0
}

# scen_warmup SCENARIO: --warmup, or time enough to learn its MACs (2 s a
# million, 1 s at least for 100,000 and more: learning runs at the FDB's
# uncached rate, on a shared machine).
scen_warmup()
{
	awk -v w="$WARMUP" -v n="$(scen_macs "$1")" 'BEGIN {
		l = (n >= 100000) ? n / 500000 : 0
		if (l > 0 && l < 1) l = 1
		printf "%g", (l > w ? l : w) }'
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
		# bpf_redirect_peer skips the sinks' XDP hook (see the top)
		[ "$dut" = xdpbr-tc ] && args+=(--rx-tc)
	fi
	case $sc in
	unicast) args+=(--src-mac 02:50:00:00:00:01) ;;
	macs*) args+=(--src-mac 02:50:00:01:00:00 --src-macs "$(scen_macs "$sc")") ;;
	broadcast) args+=(--src-mac 02:50:00:00:00:01 --dst-mac ff:ff:ff:ff:ff:ff) ;;
	esac
	# An empty list still profiles the generator and the sinks.
	[ "$PROFILE" = 1 ] && args+=(--profile "$(dut_profile "$dut")")
	label="[$DONE/$TOTAL] rep $rep/$REPS $dut $sc ${cores}c"
	"$PKTGEN" -t "$tx" -r "$rx" "${rxns[@]}" -s "$SIZES" -c "$cores" \
		-d "$DURATION" --warmup "$(scen_warmup "$sc")" --json --label "$label" "${args[@]}" \
		>"$TMP/run.jsonl" || die "pktgen failed ($label)"
	jq -c --arg dut "$dut" --arg sc "$sc" --argjson rep "$rep" '
		# the DUT programs: all profiled but the generator and the sinks;
		# the first is the one on the ingress port, run once a frame
		([.profile[]? | select(.prog | IN("pktgen_tx", "pktgen_sink", "pktgen_sink_tc") | not)]) as $dp
		| . + {dut: $dut, scenario: $sc, rep: $rep,
		     ns_per_frame: (if ($dp | length) == 0 or $dp[0].runs == 0 then null
				    else ([$dp[] | .ns_per_run * .runs] | add) / $dp[0].runs end),
		     delivered_pps: (if $sc == "broadcast" then .rx_pps else .rx[0].pps end),
		     elsewhere_pps: (if $sc == "broadcast" then 0
				     else ([.rx[1:][].pps] | add // 0) end)}' \
		"$TMP/run.jsonl" >>"$POINTS" || die "bad pktgen output: $(cat "$TMP/run.jsonl")"
}

# ---------------------------------------------------------------- tcp

# tcp_topo_up: the hosts h1..h4 of the tcp scenario (see the top), with
# their interfaces' default offloads: no ethtool here.
tcp_topo_up()
{
	local i k
	mkdir -p "$STATE_DIR"
	TOPO=1
	state_save
	progress "tcp topology $P (MTU $TCP_MTU): ${TCP_NS[1]},${TCP_NS[2]}/e0 <-> ${TCP_PORTS[1]},${TCP_PORTS[2]} (veth); ${TCP_NS[3]},${TCP_NS[4]}/e0 <-> ${TCP_PORTS[3]},${TCP_PORTS[4]} (taps, tapwire)"
	for i in 1 2 3 4; do
		ip netns add "${TCP_NS[i]}" || die "ip netns add ${TCP_NS[i]}"
		# IPv4 only: no router solicitations, DAD or MLD on the ports
		ip netns exec "${TCP_NS[i]}" sysctl -q -w net.ipv6.conf.default.disable_ipv6=1 >/dev/null
		ip netns exec "${TCP_NS[i]}" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 >/dev/null
		ip -n "${TCP_NS[i]}" link set dev lo up || die "${TCP_NS[i]}: lo up"
	done
	for i in 1 2; do
		ip link add "${TCP_PORTS[i]}" type veth peer name e0 netns "${TCP_NS[i]}" ||
			die "ip link add ${TCP_PORTS[i]} type veth"
	done
	for i in 3 4; do
		"$TAPWIRE" "${TCP_PORTS[i]}" "${TCP_NS[i]}" >"$TMP/tapwire.$i" 2>&1 &
		TAPWIRE_PIDS+=("$!")
		state_save
		for ((k = 0; k < 100; k++)); do
			grep -q ready "$TMP/tapwire.$i" && break
			kill -0 "$!" 2>/dev/null || break
			sleep 0.1
		done
		grep -q ready "$TMP/tapwire.$i" ||
			die "tapwire ${TCP_PORTS[i]} ${TCP_NS[i]} not ready: $(cat "$TMP/tapwire.$i")"
	done
	for i in 1 2 3 4; do
		{
			sysctl -q -w "net.ipv6.conf.${TCP_PORTS[i]}.disable_ipv6=1" &&
			ip link set dev "${TCP_PORTS[i]}" mtu "$TCP_MTU" &&
			ip -n "${TCP_NS[i]}" link set dev e0 mtu "$TCP_MTU" &&
			ip link set dev "${TCP_PORTS[i]}" up &&
			ip -n "${TCP_NS[i]}" link set dev e0 address "${TCP_MAC[i]}" &&
			ip -n "${TCP_NS[i]}" addr add "${TCP_IP[i]}/24" dev e0 &&
			ip -n "${TCP_NS[i]}" link set dev e0 up
		} >"$TMP/tcp_topo.log" 2>&1 || die "tcp host h$i: $(cat "$TMP/tcp_topo.log")"
	done
	# What the hosts send with: the defaults, for the record.
	for i in 1 3; do
		ip netns exec "${TCP_NS[i]}" ethtool -k e0 2>/dev/null |
			awk -v h="h$i" '/^(tx-checksumming|tcp-segmentation-offload|generic-segmentation-offload):/ {
				s = s (s ? ", " : "") $1 " " $2 } END { print h ": " s }'
	done >"$TMP/tcp_offloads"
	progress "tcp hosts' offloads: $(paste -sd';' "$TMP/tcp_offloads")"
}

# tcp_ports_json: kind and datapath of xdpbr's tcp ports, as it reports them.
tcp_ports_json()
{
	"$XDPBR" -b "$BRX" -j link show 2>/dev/null |
		jq -c '[.[] | {ifname, kind, datapath}]'
}

# tcp_measure REP DUT PAIR DATAPATH: iperf3 from the first host of PAIR
# (veth: h1 -> h2, tap: h3 -> h4) to the second through DUT; appends one
# JSON object to $TCP_POINTS (gbps 0 and the error when it failed).
tcp_measure()
{
	local rep=$1 dut=$2 pair=$3 dp=$4 i=1 j=2 k out gbps label
	[ "$pair" = tap ] && { i=3; j=4; }
	out=$TMP/iperf.$dut.$pair.$rep
	TCP_DONE=$((TCP_DONE + 1))
	label="[$TCP_DONE/$TCP_TOTAL] rep $rep/$REPS tcp $dut $pair"
	progress "$label (datapath $dp): h$i -> h$j, ${TCP_DURATION} s"
	ip netns exec "${TCP_NS[j]}" iperf3 -s -1 -p 5201 >"$out.s" 2>&1 &
	IPERF_PID=$!
	for ((k = 0; k < 50; k++)); do
		[ -n "$(ip netns exec "${TCP_NS[j]}" ss -Htln '( sport = :5201 )' 2>/dev/null)" ] && break
		sleep 0.1
	done
	timeout $((TCP_DURATION + 20)) ip netns exec "${TCP_NS[i]}" iperf3 -c "${TCP_IP[j]}" \
		-p 5201 -t "$TCP_DURATION" -J --connect-timeout 3000 >"$out.json" 2>"$out.err"
	stop_child "$IPERF_PID"
	IPERF_PID=
	jq -c --arg dut "$dut" --arg pair "$pair" --arg dp "$dp" --argjson rep "$rep" '
		{dut: $dut, pair: $pair, datapath: $dp, rep: $rep,
		 gbps: ((.end.sum_received.bits_per_second // 0) / 1e9),
		 retransmits: (.end.sum_sent.retransmits // null),
		 error: (.error // (if (.end.sum_received.bytes // 0) > 0 then null
				    else "nothing received" end))}' "$out.json" \
		>"$out.point" 2>/dev/null
	# no JSON at all (iperf3 killed, timed out): a point that says so
	if [ ! -s "$out.point" ]; then
		jq -nc --arg dut "$dut" --arg pair "$pair" --arg dp "$dp" --argjson rep "$rep" \
			--arg e "no iperf3 result: $(head -c 300 "$out.err" "$out.json" | tr '\n' ' ')" \
			'{dut: $dut, pair: $pair, datapath: $dp, rep: $rep, gbps: 0,
			  retransmits: null, error: $e}' >"$out.point"
	fi
	cat "$out.point" >>"$TCP_POINTS"
	gbps=$(jq -r '"\(.gbps * 100 | round / 100) Gbit/s" +
		(if .error then " (\(.error))" else "" end)' "$out.point")
	progress "$label: $gbps"
}

# tcp_rep REP: every tcp DUT once, each over both pairs.
tcp_rep()
{
	local rep=$1 dut dp_veth dp_tap ports
	for dut in "${TCP_DUTS[@]}"; do
		progress "rep $rep/$REPS: setting up $dut for tcp"
		case $dut in
		xdpbr)
			xdpbr_up auto "${TCP_PORTS[@]:1}"
			ports=$(tcp_ports_json)
			echo "$ports" >"$TMP/tcp_ports.json"
			dp_veth=$(jq -r --arg p "${TCP_PORTS[1]}" '.[] | select(.ifname == $p) | .datapath' <<<"$ports")
			dp_tap=$(jq -r --arg p "${TCP_PORTS[3]}" '.[] | select(.ifname == $p) | .datapath' <<<"$ports")
			;;
		bridge)
			bridge_up "${TCP_PORTS[@]:1}"
			dp_veth=kernel
			dp_tap=kernel
			;;
		esac
		tcp_measure "$rep" "$dut" veth "$dp_veth"
		tcp_measure "$rep" "$dut" tap "$dp_tap"
		case $dut in
		xdpbr) xdpbr_down ;;
		bridge) bridge_down "${TCP_PORTS[@]:1}" ;;
		esac
	done
}

TOTAL=$((REPS * ${#DUT_LIST[@]} * ${#FSCEN_LIST[@]} * ${#CORE_LIST[@]}))
DONE=0
TCP_TOTAL=$((REPS * ${#TCP_DUTS[@]} * 2))
TCP_DONE=0
TCP_POINTS=$TMP/tcp.jsonl
: >"$TCP_POINTS"
echo '[]' >"$TMP/tcp_ports.json"
: >"$TMP/tcp_offloads"
est=$(awk -v n="$((TOTAL * ${#SIZE_LIST[@]}))" -v d="$DURATION" -v w="$WARMUP" \
	-v s="$((REPS * ${#DUT_LIST[@]}))" -v t="$TCP_TOTAL" -v td="$TCP_DURATION" \
	'BEGIN { printf "%.0f", n * (d + w + 0.05) + s * 2 + 5 + t * (td + 1.5) }')
[ ${#FSCEN_LIST[@]} -eq 0 ] ||
	progress "$((TOTAL * ${#SIZE_LIST[@]})) points: ${#DUT_LIST[@]} DUTs (${DUT_LIST[*]}) x ${#FSCEN_LIST[@]} scenarios x cores {${CORES}} x ${#SIZE_LIST[@]} sizes x $REPS reps, ${DURATION} s each"
[ "$TCP" = 0 ] ||
	progress "tcp: $TCP_TOTAL iperf3 runs: ${TCP_DUTS[*]} x veth,tap pairs x $REPS reps, ${TCP_DURATION} s each"
progress "about $est s in all"

# Programs on the xdp tracepoints (every running xdpbrd attaches two) run
# for every devmap flush on the machine, the generator's included: note them.
TP_PROGS=$(bpftool perf list 2>/dev/null | grep -c 'tracepoint  xdp_')
[ "${TP_PROGS:-0}" -eq 0 ] ||
	progress "note: $TP_PROGS BPF programs on xdp tracepoints already (other xdpbrd instances?): they cost every XDP redirect"

[ "$EXTERNAL" = 1 ] || [ ${#FSCEN_LIST[@]} -eq 0 ] || topo_up
[ "$TCP" = 0 ] || tcp_topo_up
START=$(date +%s)
# Each repetition measures the frame scenarios, then tcp: the DUTs
# compared are never further apart than one repetition.
for ((rep = 1; rep <= REPS; rep++)); do
	for dut in "${DUT_LIST[@]}"; do
		[ ${#FSCEN_LIST[@]} -gt 0 ] || break
		SCEN_KEY=
		up=0
		for sc in "${FSCEN_LIST[@]}"; do
			# xdpbr again for an FDB of another size (or after a flood)
			if scen_setup "$sc" && [ "$EXTERNAL" = 0 ]; then
				if [ "$up" = 0 ] || [ "$dut" = xdpbr ] || [ "$dut" = xdpbr-tc ]; then
					[ "$up" = 0 ] || dut_down "$dut"
					progress "rep $rep/$REPS: setting up $dut${SCEN_ARGS[*]:+ (xdpbrd ${SCEN_ARGS[*]})}"
					dut_up "$dut"
					up=1
				fi
			fi
			for cores in "${CORE_LIST[@]}"; do
				DONE=$((DONE + 1))
				measure "$rep" "$dut" "$sc" "$cores"
			done
		done
		[ "$EXTERNAL" = 1 ] || [ "$up" = 0 ] || dut_down "$dut"
	done
	[ "$TCP" = 0 ] || tcp_rep "$rep"
done
# The overlay scenario: two sites of its own, after everything else.
echo null >"$TMP/overlay.json"
if [ "$OVERLAY" = 1 ]; then
	progress "overlay: TCP across VXLAN, xdpbr and the Linux bridge, $REPS reps of ${TCP_DURATION} s (tools/bench-overlay.sh)"
	BUILD=$BUILD tools/bench-overlay.sh --reps "$REPS" --duration "$TCP_DURATION" \
		--json "$TMP/overlay.json" >&2 || die "overlay scenario failed (tools/bench-overlay.sh)"
fi
# The RFC 2889 tests: a topology of their own, after everything else.
echo null >"$TMP/rfc2889.json"
if [ ${#RFC_TESTS[@]} -gt 0 ]; then
	rfc_args=(--reps "$REPS")
	[ "$SMOKE" = 0 ] || rfc_args+=(--learn-macs 10000 --capacity-max 4096)
	progress "rfc2889: ${RFC_TESTS[*]}, ${RFC_DUTS[*]} (tools/bench-rfc2889.sh)"
	BUILD=$BUILD tools/bench-rfc2889.sh --tests "$(IFS=,; echo "${RFC_TESTS[*]}")" \
		--duts "$(IFS=,; echo "${RFC_DUTS[*]}")" "${rfc_args[@]}" \
		--json "$TMP/rfc2889.json" >&2 || die "rfc2889 tests failed (tools/bench-rfc2889.sh)"
fi
# A broadcast flooded to 100 ports: a topology of its own, last.
echo null >"$TMP/flood.json"
if [ "$FLOOD" = 1 ]; then
	progress "broadcast100: ${DUT_LIST[*]}, $REPS reps of $DURATION s (tools/bench-flood.sh)"
	BUILD=$BUILD tools/bench-flood.sh --ports 100 --duts "$(IFS=,; echo "${DUT_LIST[*]}")" \
		--reps "$REPS" --duration "$DURATION" --json "$TMP/flood.json" >&2 ||
		die "broadcast100 scenario failed (tools/bench-flood.sh)"
fi
# A multicast stream to 1, then 3, of 20 ports: a topology of its own each.
echo null >"$TMP/mcast.json"
if [ "$MCAST" = 1 ]; then
	for k in 1 3; do
		progress "mcast: a stream to $k of 20 ports, ${DUT_LIST[*]}, $REPS reps of $DURATION s (tools/bench-flood.sh --group $k)"
		BUILD=$BUILD tools/bench-flood.sh --ports 20 --group "$k" \
			--duts "$(IFS=,; echo "${DUT_LIST[*]}")" --reps "$REPS" --duration "$DURATION" \
			--json "$TMP/mcast$k.json" >&2 || die "mcast scenario failed (tools/bench-flood.sh --group $k)"
	done
	jq -s . "$TMP/mcast1.json" "$TMP/mcast3.json" >"$TMP/mcast.json" ||
		die "could not gather the mcast results"
fi
progress "measured in $(($(date +%s) - START)) s"

# ---------------------------------------------------------------- results

# scen_setup_json: per frame scenario, its source MACs and xdpbr's FDB
# size (null: the default).
scen_setup_json()
{
	local sc
	for sc in "${FSCEN_LIST[@]}"; do
		jq -nc --arg sc "$sc" --argjson m "$(scen_macs "$sc")" --arg f "$(scen_fdb "$sc")" \
			'{($sc): {macs: $m, fdb_size: (if $f == "" then null else ($f | tonumber) end)}}'
	done | jq -sc 'add // {}'
}

# cpu_model: the CPU's name, for the record (plots show it with the host).
cpu_model()
{
	sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1
}

# One document: the run, one entry per (DUT, scenario, cores, size) with the
# median, min and max over the repetitions, and the ratios at 64 bytes (or
# the smallest size measured); the tcp scenario's medians and ratios under
# "tcp" (null when it did not run).
jq -s \
	--slurpfile tcp "$TCP_POINTS" --argjson tcpon "$TCP" --argjson tcpdur "$TCP_DURATION" \
	--argjson tcpmtu "$TCP_MTU" \
	--slurpfile tcpports "$TMP/tcp_ports.json" --arg tcpduts "${TCP_DUTS[*]}" \
	--rawfile tcpoff "$TMP/tcp_offloads" --arg fscens "${FSCEN_LIST[*]}" \
	--arg link "$LINK" --argjson link_bps "$LINK_BPS" \
	--arg kernel "$(uname -r)" --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	--arg host "$(uname -n)" --arg cpu_model "$(cpu_model)" --argjson macs "$MACS" \
	--argjson ncpu "$NCPU" --argjson duration "$DURATION" --argjson reps "$REPS" \
	--arg prefix "$P" --argjson external "$EXTERNAL" --argjson tp "${TP_PROGS:-0}" \
	--argjson profile "$PROFILE" --argjson scensetup "$(scen_setup_json)" \
	--arg hostif "$HOSTIF" \
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
	| [ group_by([.dut, .scenario, .cores, .size]) | map(sort_by(.rep))
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
		ns_per_frame: (map(.ns_per_frame | select(. != null)) | median
			       | if . == null then null else . * 10 | round / 10 end),
		ns_per_frame_min: (map(.ns_per_frame | select(. != null)) | min
				   | if . == null then null else . * 10 | round / 10 end),
		ns_per_frame_max: (map(.ns_per_frame | select(. != null)) | max
				   | if . == null then null else . * 10 | round / 10 end),
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
	  # the ratios of the same repetition: their median, min and max
	  def ratio($a; $b): if $a == null or $b == null then null
		else ([range(0; [$a.reps | length, $b.reps | length] | min)] |
		      map(if $b.reps[.] > 0 then $a.reps[.] / $b.reps[.] else null end) |
		      map(select(. != null))) as $q
		| if ($q | length) == 0 then null
		  else { ratio: ($q | median | r2), min: ($q | min | r2), max: ($q | max | r2) } end end;
	  def nsf($r): if $r == null then null else $r.ns_per_frame end;
	  def nspp($r): if $r == null or $r.pps == 0 then null else $r.cores * 1e9 / $r.pps end;
	  def extra($a; $b): if nspp($a) == null or nspp($b) == null then null
		else (nspp($a) - nspp($b)) * 10 | round / 10 end;
	{ tool: "xdpbr bench (tools/bench.sh, build/tools/pktgen)",
	  tx_modes: ([$pts[].tx_mode // "live"] | unique),
	  date: $date, kernel: $kernel, host: $host, cpu_model: $cpu_model,
	  cpus: $ncpu, prefix: $prefix,
	  external: ($external == 1), xdp_tracepoint_progs_before: $tp,
	  link: $link, link_bps: $link_bps, duration_s: $duration, reps: $reps, macs: $macs,
	  profile: ($profile == 1), scenario_setup: $scensetup, host_interface: $hostif,
	  duts: ($duts | split(" ")), scenarios: ($scens | split(" ")),
	  sizes: $sz, cores: ($cores | split(" ") | map(tonumber)),
	  ratio_size: $rsize,
	  results: $res,
	  frame_scenarios: ($fscens | split(" ") | map(select(. != ""))),
	  ratios: [ ($fscens | split(" ") | map(select(. != "")))[] as $sc
		    | ($cores | split(" ") | map(tonumber))[] as $c
		    | find("xdpbr"; $sc; $c; $rsize) as $x
		    | find("xdpbr-tc"; $sc; $c; $rsize) as $t
		    | find("ceiling"; $sc; $c; $rsize) as $ce
		    | find("bridge"; $sc; $c; $rsize) as $b
		    | { scenario: $sc, cores: $c, size: $rsize,
			xdpbr_over_ceiling: ratio($x; $ce),
			xdpbr_over_bridge: ratio($x; $b),
			xdpbr_extra_ns_per_frame: extra($x; $ce),
			xdpbr_ns_per_frame: nsf($x),
			ceiling_ns_per_frame: nsf($ce),
			xdpbr_tc_ns_per_frame: nsf($t),
			xdpbr_tc_over_ceiling: ratio($t; $ce),
			xdpbr_tc_over_bridge: ratio($t; $b),
			xdpbr_tc_over_xdpbr: ratio($t; $x),
			xdpbr_tc_extra_ns_per_frame: extra($t; $ce),
			scaling: (if $c == 1 then null else
				  ($duts | split(" ")) | map({ (.): ratio(find(.; $sc; $c; $rsize);
									     find(.; $sc; 1; $rsize)) })
				  | add end) } ],
	  tcp: (if $tcpon != 1 then null else
		($tcpduts | split(" ")) as $td
		| [ $tcp | group_by([.dut, .pair])
		    | sort_by([(.[0].dut as $d | $td | index($d)), (.[0].pair as $p | ["veth", "tap"] | index($p))])[]
		    | (map(.gbps) | median) as $g
		    | { dut: .[0].dut, pair: .[0].pair, datapath: .[0].datapath,
			gbps: ($g | r2), gbps_min: (map(.gbps) | min | r2),
			gbps_max: (map(.gbps) | max | r2),
			reps: (sort_by(.rep) | map(.gbps | r2)),
			retransmits: (map(.retransmits | select(. != null)) | median),
			errors: (map(.error | select(. != null)) | unique) } ] as $tr
		| def tfind($d; $p): first($tr[] | select(.dut == $d and .pair == $p)) // null;
		  def tratio($a; $b): if $a == null or $b == null or $b.gbps == 0 then null
			else { ratio: ($a.gbps / $b.gbps | r2),
			       min: ([range(0; [$a.reps | length, $b.reps | length] | min)]
				     | map(if $b.reps[.] > 0 then $a.reps[.] / $b.reps[.] else null end)
				     | map(select(. != null)) | min | if . then r2 else null end),
			       max: ([range(0; [$a.reps | length, $b.reps | length] | min)]
				     | map(if $b.reps[.] > 0 then $a.reps[.] / $b.reps[.] else null end)
				     | map(select(. != null)) | max | if . then r2 else null end) } end;
		{ tool: "iperf3, one TCP stream",
		  mtu: $tcpmtu, duration_s: $tcpdur, reps: $reps, duts: $td,
		  pairs: [{pair: "veth", from: "h1", to: "h2"}, {pair: "tap", from: "h3", to: "h4"}],
		  host_offloads: ($tcpoff | split("\n") | map(select(length > 0))),
		  xdpbr_ports: $tcpports[0],
		  results: $tr,
		  ratios: [ "veth", "tap" | . as $p
			    | { pair: $p, xdpbr_over_bridge: tratio(tfind("xdpbr"; $p); tfind("bridge"; $p)) } ] }
		end)
	}' "$POINTS" >"$TMP/result.json" || die "could not assemble the results"
jq --slurpfile o "$TMP/overlay.json" '.overlay = $o[0]' "$TMP/result.json" >"$TMP/result2.json" &&
	mv "$TMP/result2.json" "$TMP/result.json" || die "could not add the overlay results"
if ! jq --slurpfile o "$TMP/rfc2889.json" '.rfc2889 = $o[0]' "$TMP/result.json" \
	>"$TMP/result2.json" || ! mv "$TMP/result2.json" "$TMP/result.json"; then
	die "could not add the rfc2889 results"
fi
if ! jq --slurpfile o "$TMP/flood.json" '.broadcast100 = $o[0]' "$TMP/result.json" \
	>"$TMP/result2.json" || ! mv "$TMP/result2.json" "$TMP/result.json"; then
	die "could not add the broadcast100 results"
fi
if ! jq --slurpfile o "$TMP/mcast.json" '.mcast = $o[0]' "$TMP/result.json" \
	>"$TMP/result2.json" || ! mv "$TMP/result2.json" "$TMP/result.json"; then
	die "could not add the mcast results"
fi

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
	xdpbr) echo "xdpbr, XDP datapath (xdpbrd -d xdp: physical NICs' path)" ;;
	xdpbr-tc) echo "xdpbr, TC datapath (xdpbrd -d tc: veth/tap ports' default path)" ;;
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
	macs100k) echo "unicast, 100000 source MACs cycling, FDB of 131072 (xdpbrd -s)" ;;
	macs100k2m) echo "unicast, 100000 source MACs cycling, FDB of 2097152 (xdpbrd -s)" ;;
	macs1m) echo "unicast, 1000000 source MACs cycling, FDB of 2097152 (xdpbrd -s)" ;;
	macflood) echo "MAC flood: 100000 source MACs, default FDB of 65536 (full)" ;;
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
if jq -e '.tx_modes | index("amp")' "$TMP/result.json" >/dev/null; then
	echo "(generator: pktgen's XDP amplifier, as this kernel refuses BPF_PROG_RUN live frames:"
	echo " AF_PACKET frames into a veth whose XDP program broadcasts each 32 times to the DUT,"
	echo " on the generating CPU, which it costs more than live frames did: compare ratios"
	echo " measured in one run, not rates with live-frames runs)"
fi
if jq -e '.tx_modes | index("packet")' "$TMP/result.json" >/dev/null; then
	echo "(generator: AF_PACKET sendmmsg, as this kernel refuses BPF_PROG_RUN live frames:"
	echo " a syscall and an skb per frame, so a rate near the generator's own is its limit,"
	echo " not the DUT's; not comparable with live-frames runs)"
fi
if [[ " ${DUT_LIST[*]} " == *" xdpbr "* || " ${DUT_LIST[*]} " == *" xdpbr-tc "* ]] &&
	[ ${#FSCEN_LIST[@]} -gt 0 ] && [ "$EXTERNAL" = 0 ]; then
	echo "(xdpbr = xdpbrd -d xdp, the XDP datapath physical NICs run; xdpbr-tc = xdpbrd -d tc,"
	echo " the TC (clsact) datapath veth and tap ports run by default; its sinks count at TC"
	echo " ingress, as bpf_redirect_peer hands frames past a veth's XDP hook)"
fi
if [ "$EXTERNAL" = 0 ] &&
	jq -e 'any(.results[]; .pps > .line_rate_pps)' "$TMP/result.json" >/dev/null; then
	echo "(veth has no line rate: the bars stop at the nominal $LINK link, the Mbps and pps"
	echo " beyond it are what the CPUs forward)"
fi
for dut in "${DUT_LIST[@]}"; do
	for sc in "${FSCEN_LIST[@]}"; do
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

# The headline: the DUTs side by side at the ratio size, in Mpps.
if [ ${#FSCEN_LIST[@]} -gt 0 ]; then
	echo
	jq -r '
		def name: {"xdpbr": "xdpbr XDP", "xdpbr-tc": "xdpbr TC", "bridge": "Linux bridge",
			    "ceiling": "ceiling"}[.] // .;
		.ratio_size as $s | .duts as $d | .results as $res |
		"Mpps delivered at \($s) bytes (medians): xdpbr on its XDP and its TC datapath, the Linux bridge, the ceiling",
		"",
		((["scenario", "cores"] + ($d | map(name))) | @tsv),
		(.ratios[] as $r
		 | [$r.scenario, $r.cores] +
		   ($d | map(. as $x | first($res[] | select(.dut == $x and .scenario == $r.scenario and
							   .cores == $r.cores and .size == $s)) // null
			     | if . == null then "-" else (.pps / 1e6 * 1000 | round / 1000 | tostring) end))
		 | @tsv)' "$TMP/result.json" | table
fi

if [ ${#FSCEN_LIST[@]} -gt 0 ]; then
echo
jq -r '
	def f($r): if $r == null or $r.ratio == null then "-"
		else "\($r.ratio) [\($r.min)-\($r.max)]" end;
	def n($v): if $v == null then "-" else "\($v)" end;
	"ratios at \(.ratio_size) bytes: the median of the ratios of delivered pps within each repetition [min-max]",
	"",
	(if (.duts | index("xdpbr")) and ((.duts | index("ceiling")) or (.duts | index("bridge"))) then
		"ns/frame over ceiling = cores x (1/pps(xdpbr) - 1/pps(ceiling)): the CPU time xdpbr adds per frame",
		"BPF ns/frame: run time of the DUT BPF programs per frame in (BPF stats, median; - without --profile)",
		"",
		(["scenario", "cores", "xdpbr/ceiling", "xdpbr/bridge", "xdpbr ns/frame over ceiling",
		  "BPF ns/frame xdpbr", "BPF ns/frame ceiling"] | @tsv),
		(.ratios[] | [.scenario, .cores, f(.xdpbr_over_ceiling), f(.xdpbr_over_bridge),
			      n(.xdpbr_extra_ns_per_frame), n(.xdpbr_ns_per_frame),
			      n(.ceiling_ns_per_frame)] | @tsv)
	 else "DUT ratios: the run needs xdpbr and the ceiling or the bridge" end)
' "$TMP/result.json" | table
if jq -e '.duts | index("xdpbr-tc")' "$TMP/result.json" >/dev/null; then
	echo
	jq -r '
		def f($r): if $r == null or $r.ratio == null then "-"
			else "\($r.ratio) [\($r.min)-\($r.max)]" end;
		"TC datapath (xdpbr-tc) at \(.ratio_size) bytes: the same ratios, and against the XDP datapath",
		"",
		(["scenario", "cores", "xdpbr-tc/ceiling", "xdpbr-tc/bridge", "xdpbr-tc/xdpbr",
		  "xdpbr-tc ns/frame over ceiling"] | @tsv),
		(.ratios[] | [.scenario, .cores, f(.xdpbr_tc_over_ceiling), f(.xdpbr_tc_over_bridge),
			      f(.xdpbr_tc_over_xdpbr),
			      (if .xdpbr_tc_extra_ns_per_frame == null then "-"
			       else "\(.xdpbr_tc_extra_ns_per_frame)" end)] | @tsv)
	' "$TMP/result.json" | table
fi
echo
jq -r '
	def f($r): if $r == null or $r.ratio == null then "-"
		else "\($r.ratio) [\($r.min)-\($r.max)]" end;
	(if any(.ratios[]; .cores > 1) then
		(.duts as $duts | (["scenario", "scaling"] + $duts | @tsv),
		 (.ratios[] | select(.cores > 1) as $r
		  | [$r.scenario, "\($r.cores)-core/1-core"] + ($duts | map(f($r.scaling[.]))) | @tsv))
	 else "scaling: one core count measured, no N-core/1-core ratio" end)
' "$TMP/result.json" | table
fi

if [ "$TCP" = 1 ]; then
	echo
	jq -r '.tcp |
		"tcp: iperf3, one TCP stream for \(.duration_s) s at MTU \(.mtu), h1 -> h2 on veth ports (containers),",
		"h3 -> h4 on tap ports (VMs, tools/tapwire); median Gbit/s of \(.reps) (min-max);",
		"hosts with their default offloads (no ethtool): \(.host_offloads | join("; "))",
		"xdpbr runs its default datapath (auto); the Linux bridge has bridge-nf-call-* = 0",
		"",
		(["pair", "dut", "datapath", "Gbit/s", "[min-max]", "retransmits"] | @tsv),
		(.results[] | [.pair, .dut, .datapath, .gbps, "[\(.gbps_min)-\(.gbps_max)]",
			       (.retransmits // "-")] | @tsv),
		"",
		(["pair", "xdpbr/bridge [min-max]"] | @tsv),
		(.ratios[] | [.pair, (.xdpbr_over_bridge | if . == null or .ratio == null then "-"
				      else "\(.ratio) [\(.min)-\(.max)]" end)] | @tsv),
		(.results[] | select(.errors | length > 0)
		 | "error: \(.dut) \(.pair): \(.errors | join("; "))")' \
		"$TMP/result.json" | table
fi

if [ "$OVERLAY" = 1 ]; then
	echo
	jq -r '.overlay |
		"overlay: iperf3, one TCP stream h1 -> h2 across VXLAN between two sites for \(.duration_s) s;",
		"median Gbit/s of \(.reps) (each repetition); xdpbr with its [vxlan] overlay (gateway",
		"veth, kernel bridge, vxlan device) against a Linux bridge with a vxlan port",
		"",
		(["dut", "Gbit/s", "repetitions"] | @tsv),
		(["xdpbr", .xdpbr_gbps, (.xdpbr_reps | map(tostring) | join(" "))] | @tsv),
		(["bridge", .bridge_gbps, (.bridge_reps | map(tostring) | join(" "))] | @tsv),
		"",
		"xdpbr/bridge: \(.xdpbr_over_bridge // "-")"' "$TMP/result.json" | table
fi

if [ ${#RFC_TESTS[@]} -gt 0 ]; then
	echo
	jq -r '.rfc2889 |
		def r: if . == null then "-" else (. * 100 | round / 100 | tostring) end;
		(.learnrate // empty |
		 "RFC 2889 5.8 address learning rate: \(.macs) new source MACs back to back from one",
		 "port (one core sending), then one frame to each from another: learned = reached its",
		 "port and nowhere else; median of \(.reps) [min-max]",
		 "",
		 (["dut", "learned/s", "min-max", "offered pps", "fewest learned", "most flooded"] | @tsv),
		 (.duts | to_entries[] | [.key, (.value.learned_per_s | round),
		  "\(.value.learned_per_s_min | round)-\(.value.learned_per_s_max | round)",
		  (.value.offered_pps | round), .value.learned_min, .value.flooded_max] | @tsv),
		 "",
		 "xdpbr/bridge: \(.ratio | r)"),
		(.capacity // empty |
		 "", "RFC 2889 5.7 address caching capacity: the most MACs held without flooding (xdpbr",
		 "with its default FDB; the search stops at \(.max))",
		 "",
		 (["dut", "MACs held", "trials"] | @tsv),
		 (.duts | to_entries[] | [.key,
		  "\(.value.capacity)\(if .value.reached_max then " (the search limit)" else "" end)",
		  (.value.trials | length)] | @tsv))' "$TMP/result.json" | table
fi

# flood_table PATH HEAD: the table of a bench-flood.sh document (.PATH of
# the results), under the lines jq expression HEAD makes of it.
flood_table()
{
	jq -r "$1"' |
		def r: if . == null then "-" else tostring end;
		'"$2"',
		"",
		(["dut", "Mpps", "[min-max]", "offered Mpps", "copies/frame", "ns/frame"] | @tsv),
		(.duts | to_entries[] | .value as $v | [.key, ($v.pps / 1e6 * 1000 | round / 1000),
		  "[\($v.pps_min / 1e6 * 1000 | round / 1000)-\($v.pps_max / 1e6 * 1000 | round / 1000)]",
		  ($v.tx_pps / 1e6 * 1000 | round / 1000), $v.copies_per_frame,
		  ($v.ns_per_frame | r)] | @tsv),
		"",
		"xdpbr/bridge: \(.ratios.xdpbr_over_bridge | r), xdpbr/ceiling: \(.ratios.xdpbr_over_ceiling | r), xdpbr-tc/bridge: \(.ratios.xdpbr_tc_over_bridge | r)"' \
		"$TMP/result.json" | table
}

if [ "$FLOOD" = 1 ]; then
	echo
	flood_table .broadcast100 '
		"broadcast100: \(.size)-byte broadcasts flooded to \(.ports) ports, one core; Mpps delivered",
		"(the sum over the \(.ports) sinks), median of \(.reps) [min-max]; copies/frame: delivered over",
		"offered (\(.ports): none lost); BPF ns per offered frame, every copy included"'
fi

if [ "$MCAST" = 1 ]; then
	flood_table '.mcast[]' '
		"",
		"mcast: \(.size)-byte frames to \(.group.address), \(.group.members) of \(.ports) ports members, IGMP",
		"snooping, the bridge its own querier, one core; Mpps delivered to the members, median of",
		"\(.reps) [min-max]; copies/frame: delivered over offered (\(.group.members): none lost); BPF ns per",
		"offered frame, every copy included (the ceiling: a bare broadcast to the members)"'
fi

if [ "$PROFILE" = 1 ] && [ ${#FSCEN_LIST[@]} -gt 0 ]; then
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

if [ -n "$PLOT_DIR" ]; then
	cp "$TMP/result.json" "$PLOT_DIR/bench.json" || die "cannot write $PLOT_DIR/bench.json"
	tools/plot.sh bench "$PLOT_DIR/bench.json" "$PLOT_DIR" || exit 1
	progress "plots written to $PLOT_DIR (from $PLOT_DIR/bench.json)"
fi
exit 0

#!/usr/bin/env bash
# bench-flood.sh - a broadcast flooded to many ports, or a multicast
# stream to some of them: xdpbr (its XDP and its TC datapath), the Linux
# bridge and the ceiling, on a topology of its own, one core.
# tools/bench.sh runs it for its scenarios `broadcast100` and `mcast`
# (after the others); it runs alone too:
#
#   tools/bench-flood.sh [--ports N] [--group K] [--reps N] [--duration SEC]
#                        [--duts xdpbr,xdpbr-tc,bridge,ceiling] [--json FILE]
#
#   root netns:  bf$ID-g ===veth=== bf${ID}p0 --+
#   netns bf$ID-h:   s1  ===veth=== bf${ID}p1 --+-- DUT (ports p0..pN)
#                    ..                         |
#                    sN  ===veth=== bf${ID}pN --+
#
# The generator (build/tools/pktgen, BPF_PROG_RUN live frames, one core)
# sends 64-byte frames to ff:ff:ff:ff:ff:ff on bf$ID-g; the DUT floods
# each to p1..pN (--ports, default 100) and the sinks s1..sN count what
# reaches them. Reported per DUT: delivered frames a second (the sum over
# the sinks), the offered rate, the copies a frame made (delivered /
# offered: N when nothing is lost; the fewest and most frames a sink got
# show whether losses are whole frames or copies) and the DUT's BPF run
# time per frame (its programs' time over the frames its ingress program
# ran for: for xdpbr's XDP datapath the ingress program and the devmap
# egress program that runs for every copy). The DUTs:
#   xdpbr     build/xdpbrd -d xdp -m native, no host interface
#   xdpbr-tc  build/xdpbrd -d tc: it floods with bpf_clone_redirect,
#             whose copies go through the sinks' veth rings as the Linux
#             bridge's do, so the same XDP sinks count them (tools/bench.sh
#             counts its xdpbr-tc unicast at TC ingress: bpf_redirect_peer
#             skips that ring; counting 100 sinks at TC would measure the
#             sinks: the Linux bridge too delivers a quarter as much then)
#   bridge    the Linux bridge, bridge-nf-call-* at 0
#   ceiling   pktgen --forward: one XDP program, a devmap broadcast to
#             p1..pN (with --group K: to p1..pK, the flood a stream to K
#             members would be at best), no FDB, no VLANs, nothing counted
# With --group K the frames go to the group 239.1.1.1 (01:00:5e:01:01:01)
# instead, whose members are p1..pK (static entries, `bridge mdb add ...
# permanent`), with IGMP snooping on and the bridge its own querier: xdpbr
# with its host interface (the Linux bridge device, whose MDB it mirrors;
# the host's port on the DUT's datapath), the Linux bridge alike. Only the
# K members' sinks may get a copy: a DUT that delivers to any other sink
# fails the run (it did not prune).
# Repetitions are the outer loop (every DUT set up again in each). The
# frame scenarios of tools/bench.sh flood to 3 ports; this is what a
# container host's bridge of a hundred veths does with every ARP request.
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
NPORTS=100
GROUP=0
GROUP_IP=239.1.1.1
DUTS=xdpbr,xdpbr-tc,bridge,ceiling
REPS=3
DURATION=1
JSON_OUT=
ID=$(($$ % 10000))
BRX=bf$ID		# xdpbr bridge (pins /sys/fs/bpf/xdpbr/$BRX)
BRK=bf${ID}k		# Linux bridge
NS=bf$ID-h
GEN=bf$ID-g
P0=bf${ID}p0
DAEMON_PID=
FWD_PID=
BRNF_SAVED=()
TMP=$(mktemp -d /tmp/bench-flood.XXXXXX)

usage()
{
	echo "usage: $0 [--ports N] [--group K] [--duts xdpbr,xdpbr-tc,bridge,ceiling]" \
		"[--reps N] [--duration SEC] [--json FILE]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--ports) NPORTS=$2 ;;
	--group) GROUP=$2 ;;
	--duts) DUTS=$2 ;;
	--reps) REPS=$2 ;;
	--duration) DURATION=$2 ;;
	--json) JSON_OUT=$2 ;;
	*) usage ;;
	esac
	shift 2
done

die()
{
	echo "bench-flood: $*" >&2
	exit 1
}

progress()
{
	echo "bench-flood: $*" >&2
}

# 127: pktgen counts on 128 devices at most, and the ceiling's devmap
# holds 128.
in_range "$NPORTS" 2 127 || die "--ports: $NPORTS is not in 2..127"
in_range "$GROUP" 0 "$NPORTS" || die "--group: $GROUP is not in 0..$NPORTS (0: broadcast)"
in_range "$REPS" 1 1000 || die "--reps: $REPS is not in 1..1000"
[[ $DURATION =~ ^[0-9]*\.?[0-9]+$ ]] || die "--duration: $DURATION is not a number of seconds"
IFS=, read -r -a DUT_LIST <<<"$DUTS"
for d in "${DUT_LIST[@]}"; do
	case $d in xdpbr | xdpbr-tc | bridge | ceiling) ;;
	*) die "--duts: unknown DUT '$d' (xdpbr, xdpbr-tc, bridge, ceiling)" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "must be run as root"
for f in "$PKTGEN" "$XDPBRD" "$XDPBR"; do
	[ -x "$f" ] || die "$f is missing: run make"
done

PORTS=("$P0")
SINKS=()
for ((i = 1; i <= NPORTS; i++)); do
	PORTS+=("bf${ID}p$i")
	SINKS+=("s$i")
done

# shellcheck disable=SC2317 # called from the traps
cleanup()
{
	local p
	stop_daemon
	stop_child "$FWD_PID"
	linux_bridge_down
	ip link del dev "$GEN" 2>/dev/null
	for p in "${PORTS[@]}"; do
		ip link del dev "$p" 2>/dev/null
	done
	netns_del
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

# topo_up: the generator's veth and N sink veths, GRO on at every end (a
# veth peer takes redirected frames only while it runs NAPI), IPv6 off so
# that the generator's frames are the only ones.
topo_up()
{
	local i
	ip netns add "$NS" || die "ip netns add $NS"
	ip netns exec "$NS" sysctl -q -w net.ipv6.conf.default.disable_ipv6=1 >/dev/null
	ip netns exec "$NS" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 >/dev/null
	{
		echo "link add $GEN type veth peer name $P0"
		for ((i = 1; i <= NPORTS; i++)); do
			echo "link add ${PORTS[i]} type veth peer name s$i netns $NS"
		done
	} | ip -batch - || die "creating the veths"
	for i in "$GEN" "${PORTS[@]}"; do
		sysctl -q -w "net.ipv6.conf.$i.disable_ipv6=1" >/dev/null
		{ ip link set dev "$i" up && ethtool -K "$i" gro on >/dev/null; } || die "$i up, GRO on"
	done
	for i in "${SINKS[@]}"; do
		{
			ip -n "$NS" link set dev "$i" up &&
				ip netns exec "$NS" ethtool -K "$i" gro on >/dev/null
		} || die "$NS/$i up, GRO on"
	done
}

# xdpbr_up DATAPATH: xdpbrd over p0..pN until every port runs on DATAPATH;
# with --group, with its host interface (the device $BRX up, its port on
# DATAPATH too: on the TC path beside XDP ports, every flood would take
# the skb path) and snooping as snooping_up sets it.
xdpbr_up()
{
	local dp=$1 i n want=${#PORTS[@]} args=(-l none -d "$1")
	[ "$dp" = xdp ] && args+=(-m native)
	if [ "$GROUP" -gt 0 ]; then
		printf '[port %s-host]\ndatapath = %s\n' "$BRX" "$dp" >"$TMP/hostif.conf"
		args+=(-H on -c "$TMP/hostif.conf")
		want=$((want + 1))
	else
		args+=(-H off)
	fi
	"$XDPBRD" "${args[@]}" "$BRX" "${PORTS[@]}" >"$TMP/xdpbrd.log" 2>&1 &
	DAEMON_PID=$!
	for ((i = 0; i < 600; i++)); do
		kill -0 "$DAEMON_PID" 2>/dev/null ||
			die "xdpbrd exited while starting: $(cat "$TMP/xdpbrd.log")"
		n=$("$XDPBR" -b "$BRX" -j link show 2>/dev/null |
			jq --arg dp "$dp" '[.[]? | select(.datapath == $dp and
				($dp != "xdp" or .xdp_mode != "none"))] | length' 2>/dev/null)
		if [ "${n:-0}" = "$want" ]; then
			[ "$GROUP" -gt 0 ] || return 0
			ip link set dev "$BRX" up || die "$BRX up"
			snooping_up "$BRX"
			return 0
		fi
		sleep 0.1
	done
	die "xdpbrd not ready after 60 s (${n:-0} of $want ports on $dp): $(cat "$TMP/xdpbrd.log")"
}

# snooping_up DEV: the Linux bridge DEV snoops and is its own querier,
# p1..pK members of the group; back once the querier counts (the query
# response interval, 1 s) and xdpbr's mirror has the entries.
snooping_up()
{
	local dev=$1 i
	# the interval first: turning the querier on waits the one set then
	ip link set dev "$dev" type bridge mcast_snooping 1 mcast_query_response_interval 100 &&
		ip link set dev "$dev" type bridge mcast_querier 1 ||
		die "$dev: snooping and its querier on"
	for ((i = 1; i <= GROUP; i++)); do
		bridge mdb add dev "$dev" port "${PORTS[i]}" grp "$GROUP_IP" permanent ||
			die "$dev: $GROUP_IP on ${PORTS[i]}"
	done
	sleep 2
}

ceiling_up()
{
	local i
	local n=$NPORTS
	[ "$GROUP" -gt 0 ] && n=$GROUP
	"$PKTGEN" --forward "$P0" --to "$(IFS=,; echo "${PORTS[*]:1:n}")" >"$TMP/fwd.out" 2>&1 &
	FWD_PID=$!
	for ((i = 0; i < 300; i++)); do
		grep -q '^ready' "$TMP/fwd.out" && return 0
		kill -0 "$FWD_PID" 2>/dev/null || die "pktgen --forward exited: $(cat "$TMP/fwd.out")"
		sleep 0.1
	done
	die "pktgen --forward not ready after 30 s"
}

dut_up()
{
	case $1 in
	xdpbr) xdpbr_up xdp ;;
	xdpbr-tc) xdpbr_up tc ;;
	bridge) linux_bridge_up "${PORTS[@]}" ;;
	ceiling) ceiling_up ;;
	esac
	if [ "$GROUP" -gt 0 ] && [ "$1" = bridge ]; then
		snooping_up "$BRK"
	fi
}

dut_down()
{
	case $1 in
	xdpbr | xdpbr-tc) stop_daemon ;;
	bridge) linux_bridge_down ;;
	ceiling)
		stop_child "$FWD_PID"
		FWD_PID=
		;;
	esac
}

# The DUT's BPF programs to profile: the one on the ingress port first
# (and xdpbr's devmap egress program, run for every copy).
dut_profile()
{
	case $1 in
	xdpbr) echo "$P0,/sys/fs/bpf/xdpbr/$BRX/prog_egress" ;;
	xdpbr-tc) echo "/sys/fs/bpf/xdpbr/$BRX/prog_tc" ;;
	ceiling) echo "$P0" ;;
	*) echo "" ;;
	esac
}

# measure REP DUT: one pktgen run; one JSON object.
measure()
{
	local rep=$1 dut=$2 dst=(--dst-mac ff:ff:ff:ff:ff:ff)
	[ "$GROUP" -gt 0 ] && dst=(--dst-ip "$GROUP_IP")
	"$PKTGEN" -t "$GEN" -r "$(IFS=,; echo "${SINKS[*]}")" --rx-ns "$NS" -s 64 -c 1 \
		-d "$DURATION" --warmup 0.1 --src-mac 02:50:00:00:00:01 \
		"${dst[@]}" --profile "$(dut_profile "$dut")" --json --quiet \
		>"$TMP/run.json" || die "pktgen ($dut, rep $rep) failed"
	# With --group the members are the first K sinks (and the ceiling
	# sends to them only): the others may see the querier's queries, no
	# more than 1 frame in 1,000 offered.
	jq -e --argjson k "$GROUP" '$k == 0 or
		([.rx[$k:][].frames] | max // 0) <= .tx_frames / 1000' "$TMP/run.json" >/dev/null ||
		die "$dut, rep $rep: the stream to $GROUP_IP reached sinks that are not members:" \
			"$(jq -c --argjson k "$GROUP" '[.rx[$k:][] | select(.frames > 0) | .dev]' "$TMP/run.json")"
	jq -c --arg dut "$dut" --argjson rep "$rep" --argjson k "$GROUP" '
		([.profile[]? | select(.prog | IN("pktgen_tx", "pktgen_sink", "pktgen_sink_tc") | not)]) as $dp
		| (if $k > 0 then .rx[:$k] else .rx end) as $to
		| {dut: $dut, rep: $rep, rx_pps, tx_pps,
		   sinks_reached: ([.rx[] | select(.frames > 0)] | length),
		   sink_frames_min: ([$to[].frames] | min), sink_frames_max: ([$to[].frames] | max),
		   tx_frames,
		   ns_per_frame: (if ($dp | length) == 0 or $dp[0].runs == 0 then null
				  else ([$dp[] | .ns_per_run * .runs] | add) / $dp[0].runs end)}' \
		"$TMP/run.json" || die "bad pktgen output: $(cat "$TMP/run.json")"
}

progress "topology bf$ID: $GEN <-> $P0 (generator), $NPORTS sinks; ${DUT_LIST[*]}, $REPS reps of $DURATION s"
topo_up
: >"$TMP/points.jsonl"
for ((rep = 1; rep <= REPS; rep++)); do
	for dut in "${DUT_LIST[@]}"; do
		dut_up "$dut"
		measure "$rep" "$dut" >>"$TMP/points.jsonl"
		dut_down "$dut"
		progress "rep $rep/$REPS $dut: $(tail -n 1 "$TMP/points.jsonl" |
			jq -r '"\(.rx_pps / 1e6 * 1000 | round / 1000) Mpps delivered to \(.sinks_reached) sinks, \(.tx_pps / 1e6 * 1000 | round / 1000) Mpps offered"')"
	done
done

# The document: per DUT the medians and spread over the repetitions; the
# ratios of the same repetition, their median.
jq -s --argjson n "$NPORTS" --argjson reps "$REPS" --argjson dur "$DURATION" \
	--arg prefix "bf$ID" --argjson k "$GROUP" --arg grp "$GROUP_IP" '
	def med: sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;
	def r3: . * 1000 | round / 1000;
	. as $pts
	| (group_by(.dut) | map({key: .[0].dut, value: (sort_by(.rep) | {
		pps: (map(.rx_pps) | med | round),
		pps_min: (map(.rx_pps) | min | round),
		pps_max: (map(.rx_pps) | max | round),
		tx_pps: (map(.tx_pps) | med | round),
		copies_per_frame: (map(if .tx_pps > 0 then .rx_pps / .tx_pps else 0 end) | med | r3),
		sinks_reached_min: (map(.sinks_reached) | min),
		sink_frames_min: (map(.sink_frames_min) | min),
		sink_frames_max: (map(.sink_frames_max) | max),
		ns_per_frame: (map(.ns_per_frame | select(. != null)) | med
			       | if . == null then null else . * 10 | round / 10 end),
		reps: map(.rx_pps | round)})}) | from_entries) as $d
	| def ratio($a; $b): if $d[$a] == null or $d[$b] == null then null else
		([range(0; [$d[$a].reps, $d[$b].reps | length] | min)]
		 | map(if $d[$b].reps[.] > 0 then $d[$a].reps[.] / $d[$b].reps[.] else empty end)
		 | med | if . == null then null else r3 end) end;
	{prefix: $prefix, ports: $n, size: 64, cores: 1, duration_s: $dur, reps: $reps,
	 group: (if $k > 0 then {address: $grp, members: $k} else null end),
	 duts: $d,
	 ratios: {xdpbr_over_bridge: ratio("xdpbr"; "bridge"),
		  xdpbr_over_ceiling: ratio("xdpbr"; "ceiling"),
		  xdpbr_tc_over_bridge: ratio("xdpbr-tc"; "bridge")}}' \
	"$TMP/points.jsonl" >"$TMP/out.json" || die "no results"
if [ -n "$JSON_OUT" ]; then
	cp "$TMP/out.json" "$JSON_OUT" || die "cannot write $JSON_OUT"
else
	cat "$TMP/out.json"
fi

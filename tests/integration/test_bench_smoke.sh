#!/usr/bin/env bash
# datapaths: auto
# The benchmark (tools/bench.sh, build/tools/pktgen) in its smoke mode: it
# must produce well-formed tables and JSON and clean up after itself, also
# when it is stopped half-way (measuring frames or TCP). Rates are not
# checked, only that every DUT moved something: they depend on the machine
# and its load. xdpbr's two datapaths are both DUTs (xdpbr: XDP, xdpbr-tc:
# TC, whose program must really run), and the tcp scenario runs iperf3
# through xdpbr and the Linux bridge on veth and tap ports. The scenarios
# at scale (100,000 and 1,000,000 source MACs, a MAC flood against the
# default FDB) run with the FDB they need, and every DUT's BPF run time per
# frame (ns_per_frame) is in the tables and the JSON.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

BENCH=$XT_ROOT/tools/bench.sh
PKTGEN=$XT_BUILD/tools/pktgen
BRNF=(bridge-nf-call-iptables bridge-nf-call-ip6tables bridge-nf-call-arptables)

xt_require
[ -x "$PKTGEN" ] || abort "missing: $PKTGEN (run make check, or make $PKTGEN)"
[ -x "$XT_BUILD/tools/tapwire" ] || abort "missing: $XT_BUILD/tools/tapwire (make all)"
xt_need iperf3

# brnf_values: the bridge-nf sysctls, "absent" for those that do not exist.
brnf_values()
{
	local k
	for k in "${BRNF[@]}"; do
		printf '%s=%s ' "$k" "$(cat "/proc/sys/net/bridge/$k" 2>/dev/null || echo absent)"
	done
}

# leftovers PREFIX: whatever a bench run PREFIX (bnNNNN) left behind:
# namespaces (sinks, tcp hosts), links, taps, tapwire and daemon processes,
# pins, the state file.
leftovers()
{
	local p=$1
	ip netns list | grep -E "^$p-(sink|h[1-4])( |$)"
	ip -br link | grep -E "^$p(g|p[0-3]|br|v[12]|t[34])[@ ]"
	pgrep -af "tapwire $p" | grep -v pgrep
	pgrep -af "xdpbrd .* $p " | grep -v pgrep
	[ -e "/sys/fs/bpf/xdpbr/$p" ] && echo "/sys/fs/bpf/xdpbr/$p"
	[ -e "/run/xdpbr-bench/$p" ] && echo "/run/xdpbr-bench/$p"
	return 0
}

# ---------------------------------------------------------------- smoke run

brnf_before=$(brnf_values)
out=$XT_TMP/bench.out
err=$XT_TMP/bench.err
json=$XT_TMP/bench.json
plots=$XT_TMP/plots
# The BPF programs' run counts (profiling is on by default) show which
# datapath really ran. --plot: the run's plots (tests/integration/
# test_plots.sh checks them in detail, from saved runs).
stats_before=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null)
BUILD=$XT_BUILD timeout 600 "$BENCH" --smoke --json "$json" --plot "$plots" \
	>"$out" 2>"$err"
rc=$?
check_eq "bench --smoke exits 0" 0 "$rc" "stderr:" "$(tail -n 20 "$err")"

SCENS=(unicast macs10k broadcast macs100k macs100k2m macs1m macflood)
# 4 DUTs x 7 frame scenarios x 1 core: 28 tables, each a title, the
# header (scale up to the 10G default link), the rule and one row for 64
# bytes.
n=$(grep -c '^+ ' "$out")
check_eq "28 tables (4 DUTs x 7 scenarios x 1 core)" 28 "$n" "$(cat "$out")"
n=$(grep -cE '^framesize\|0G +1G +2G .* 9G +10Gbps$' "$out")
check_eq "every table has the framesize|... 10Gbps header" 28 "$n" "$(cat "$out")"
n=$(grep -cE '^-{9}(\+-{4}){10}\+$' "$out")
check_eq "every table has the ---------+----+ rule" 28 "$n" "$(cat "$out")"
row='^ {6}64 \|#{0,50} *[ 0-9]+\.[0-9]{2}Mbps, +[0-9]+/ *14880952pps  \[[0-9]+-[0-9]+\]$'
n=$(grep -cE "$row" "$out")
check_eq "one row per table: 64 |bar Mbps, pps/line-rate pps [min-max]" 28 "$n" "$(cat "$out")"
for t in "xdpbr, XDP datapath (xdpbrd -d xdp" "xdpbr, TC datapath (xdpbrd -d tc" \
	"Linux bridge" "ceiling (bare XDP devmap redirect"; do
	n=$(grep -c "^+ $t" "$out")
	check_eq "seven tables for $t" 7 "$n" "$(cat "$out")"
done
for t in "unicast, 100000 source MACs cycling, FDB of 131072" \
	"unicast, 100000 source MACs cycling, FDB of 2097152" \
	"unicast, 1000000 source MACs cycling, FDB of 2097152" \
	"MAC flood: 100000 source MACs, default FDB of 65536"; do
	n=$(grep -c "^+ .*: $t" "$out")
	check_eq "four tables for '$t'" 4 "$n" "$(cat "$out")"
done
# xdpbr starts again with the FDB a scenario needs, and after the flood.
for d in xdpbr xdpbr-tc; do
	check "$d set up with -s 131072 for macs100k" \
		grep -qx "bench: rep 1/1: setting up $d (xdpbrd -s 131072)" "$err"
	check "$d set up with -s 2097152 for macs1m" \
		grep -qx "bench: rep 1/1: setting up $d (xdpbrd -s 2097152)" "$err"
	n=$(grep -cx "bench: rep 1/1: setting up $d" "$err")
	check_eq "$d set up with the default FDB for unicast+macs10k+broadcast and for macflood" \
		2 "$n" "$(cat "$err")"
done

# The summary: Mpps of the four DUTs side by side.
check "summary title" grep -q '^Mpps delivered at 64 bytes' "$out"
check "summary header" \
	grep -qE '^scenario +cores +xdpbr XDP +xdpbr TC +Linux bridge +ceiling$' "$out"
for sc in "${SCENS[@]}"; do
	check "summary row for $sc" \
		grep -qE "^$sc +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$out"
done

# The ratio table: a header and one row per scenario at 64 bytes.
check "ratio table title" grep -q '^ratios at 64 bytes' "$out"
check "ratio table header" \
	grep -qE '^scenario +cores +xdpbr/ceiling +xdpbr/bridge +xdpbr ns/frame over ceiling +BPF ns/frame xdpbr +BPF ns/frame ceiling$' "$out"
for sc in "${SCENS[@]}"; do
	check "ratio row for $sc (with BPF ns/frame of xdpbr and the ceiling)" \
		grep -qE "^$sc +1 +[0-9.]+ \[[0-9.]+-[0-9.]+\] +[0-9.]+ \[[0-9.]+-[0-9.]+\] +-?[0-9.]+ +[0-9.]+ +[0-9.]+$" "$out"
done
check "TC datapath ratio table header" \
	grep -qE '^scenario +cores +xdpbr-tc/ceiling +xdpbr-tc/bridge +xdpbr-tc/xdpbr +xdpbr-tc ns/frame over ceiling$' \
	"$out"
for sc in "${SCENS[@]}"; do
	check "TC datapath ratio row for $sc" \
		grep -qE "^$sc +1( +[0-9.]+ \[[0-9.]+-[0-9.]+\]){3} +-?[0-9.]+$" "$out"
done
check "progress on stderr" grep -qE '^\[28/28\] rep 1/1 ceiling macflood 1c size +64: rx ' "$err"
check "BPF run time table" grep -qE '^xdpbr-tc +unicast +1 +xdpbr_tc_rx ' "$out"

# The tcp tables: one row per DUT and pair, then the ratios.
check "tcp title" grep -q '^tcp: iperf3, one TCP stream for 1 s at MTU 1500,' "$out"
check "tcp header" \
	grep -qE '^pair +dut +datapath +Gbit/s +\[min-max\] +retransmits$' "$out"
for r in "veth +xdpbr +tc" "tap +xdpbr +tc" "veth +bridge +kernel" "tap +bridge +kernel"; do
	check "tcp row: $r" grep -qE "^$r +[0-9.]+ +\[[0-9.]+-[0-9.]+\] +[0-9-]+$" "$out"
done
for pr in veth tap; do
	check "tcp ratio row for $pr" grep -qE "^$pr +[0-9.]+ \[[0-9.]+-[0-9.]+\]$" "$out"
done
check_fail "no tcp errors" grep -q '^error: ' "$out"

# The JSON document.
doc=$(cat "$json" 2>/dev/null)
check "JSON is valid" json_of object cat "$json"
check_jq "JSON: run keys" "$doc" '
	(keys | contains(["tool", "date", "kernel", "cpus", "prefix", "link", "link_bps",
			  "duration_s", "reps", "duts", "scenarios", "sizes", "cores",
			  "ratio_size", "results", "ratios"])) and
	.link == "10G" and .link_bps == 10000000000 and .reps == 1 and .sizes == [64] and
	.cores == [1] and .duts == ["xdpbr", "xdpbr-tc", "bridge", "ceiling"] and
	.scenarios == ["unicast", "macs10k", "broadcast", "macs100k", "macs100k2m", "macs1m",
		       "macflood", "tcp", "overlay", "learnrate", "capacity", "broadcast100",
		       "mcast"] and
	.frame_scenarios == ["unicast", "macs10k", "broadcast", "macs100k", "macs100k2m", "macs1m",
			     "macflood"] and
	.profile == true'
# The generator's mode: live frames where the kernel allows them, else
# the XDP amplifier, else AF_PACKET; the report says which when a figure
# came from another than live frames.
check_jq "JSON: tx_modes names the generator's modes" "$doc" '
	(.tx_modes | length) >= 1 and all(.tx_modes[]; IN("live", "amp", "packet"))'
for m in amp packet; do
	if jq_true "$doc" ".tx_modes | index(\"$m\") != null"; then
		want="generator: pktgen's XDP amplifier"
		[ "$m" = packet ] && want="generator: AF_PACKET"
		check "the report says the generator ran as $m" grep -q "$want" "$out"
	fi
done
if jq_true "$doc" '.tx_modes == ["live"]'; then
	check "the report says nothing of another generator (live frames)" \
		bash -c '! grep -q "generator:" "$1"' _ "$out"
fi
check_jq "JSON: the scenarios' MACs and FDB sizes" "$doc" '
	.scenario_setup == {unicast: {macs: 1, fdb_size: null}, macs10k: {macs: 10000, fdb_size: null},
			    broadcast: {macs: 1, fdb_size: null},
			    macs100k: {macs: 100000, fdb_size: 131072},
			    macs100k2m: {macs: 100000, fdb_size: 2097152},
			    macs1m: {macs: 1000000, fdb_size: 2097152},
			    macflood: {macs: 100000, fdb_size: null}}'
check_jq "JSON: 28 results with rates, spread and line rate" "$doc" '
	(.results | length) == 28 and
	all(.results[]; (keys | contains(["dut", "scenario", "cores", "size", "pps", "pps_min",
					  "pps_max", "mbps", "line_rate_pps", "tx_pps", "reps"])) and
	    .size == 64 and .cores == 1 and .line_rate_pps == 14880952 and
	    (.pps | type) == "number" and .pps_min <= .pps and .pps <= .pps_max and
	    (.reps | length) == 1)'
check_jq "JSON: BPF ns per frame of every BPF DUT, none for the Linux bridge" "$doc" '
	all(.results[]; has("ns_per_frame") and has("ns_per_frame_min") and has("ns_per_frame_max")) and
	all(.results[] | select(.dut != "bridge"); .ns_per_frame > 0 and
	    .ns_per_frame_min <= .ns_per_frame and .ns_per_frame <= .ns_per_frame_max) and
	all(.results[] | select(.dut == "bridge"); .ns_per_frame == null)'
check_jq "JSON: ratios carry the ns per frame of xdpbr, xdpbr-tc and the ceiling" "$doc" '
	all(.ratios[]; .xdpbr_ns_per_frame > 0 and .xdpbr_tc_ns_per_frame > 0 and
		       .ceiling_ns_per_frame > 0)'
check_same "kernel.bpf_stats_enabled as it was before the run" "$stats_before" \
	"$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null)"
check_jq "JSON: one ratio entry per scenario" "$doc" '
	(.ratios | length) == 7 and
	all(.ratios[]; (keys | contains(["scenario", "cores", "size", "xdpbr_over_ceiling",
					 "xdpbr_over_bridge", "xdpbr_extra_ns_per_frame", "scaling",
					 "xdpbr_tc_over_ceiling", "xdpbr_tc_over_bridge",
					 "xdpbr_tc_over_xdpbr", "xdpbr_tc_extra_ns_per_frame",
					 "xdpbr_ns_per_frame", "ceiling_ns_per_frame",
					 "xdpbr_tc_ns_per_frame"])) and
	    (.xdpbr_over_ceiling | keys) == ["max", "min", "ratio"] and
	    .xdpbr_tc_over_bridge.ratio > 0 and .xdpbr_tc_over_xdpbr.ratio > 0)'
check_jq "JSON: every DUT delivered frames in every frame scenario" "$doc" '
	[.results[] | select(.pps > 0) | [.dut, .scenario]] | unique | length == 28'
# The XDP DUT ran the XDP program, the TC DUT the TC program (about once a
# delivered frame; a third for the broadcast, flooded to three sinks).
check_jq "JSON: xdpbr (XDP) ran xdpbr_rx, not the TC program" "$doc" '
	[.results[] | select(.dut == "xdpbr")] | length == 7 and
	all(.[]; any(.profile[]; .prog == "xdpbr_rx" and .runs_per_rx_frame > 0.2) and
		 all(.profile[]; .prog != "xdpbr_tc_rx"))'
check_jq "JSON: xdpbr-tc ran xdpbr_tc_rx, not the XDP program" "$doc" '
	[.results[] | select(.dut == "xdpbr-tc")] | length == 7 and
	all(.[]; any(.profile[]; .prog == "xdpbr_tc_rx" and .runs_per_rx_frame > 0.2 and
				 .ns_per_run > 0) and
		 all(.profile[]; .prog != "xdpbr_rx"))'

# The tcp scenario: both DUTs on both pairs moved data, xdpbr on its TC
# path (auto picks it for veth and tap), the hosts with default offloads.
check_jq "JSON: tcp results of xdpbr and the bridge on veth and tap, > 0 Gbit/s" "$doc" '
	.tcp.mtu == 1500 and .tcp.duration_s == 1 and .tcp.reps == 1 and .tcp.duts == ["xdpbr", "bridge"] and
	([.tcp.results[] | [.dut, .pair]] == [["xdpbr", "veth"], ["xdpbr", "tap"],
					      ["bridge", "veth"], ["bridge", "tap"]]) and
	all(.tcp.results[]; .gbps > 0 and .gbps_min <= .gbps and .gbps <= .gbps_max and
			    (.reps | length) == 1 and .errors == [])'
check_jq "JSON: tcp ratio xdpbr/bridge per pair" "$doc" '
	[.tcp.ratios[] | .pair] == ["veth", "tap"] and
	all(.tcp.ratios[]; .xdpbr_over_bridge.ratio > 0)'
check_jq "JSON: tcp xdpbr ports: veth and tap kinds, all on the TC datapath" "$doc" '
	(.tcp.xdpbr_ports | map(.kind) | sort) == ["tap", "tap", "veth", "veth"] and
	all(.tcp.xdpbr_ports[]; .datapath == "tc") and
	all(.tcp.results[] | select(.dut == "xdpbr"); .datapath == "tc")'
check_jq "JSON: tcp hosts kept tx checksum offload and TSO" "$doc" '
	(.tcp.host_offloads | length) == 2 and
	all(.tcp.host_offloads[]; test("tx-checksumming: on") and
				   test("tcp-segmentation-offload: on"))'
# The overlay scenario (tools/bench-overlay.sh): TCP across VXLAN, xdpbr
# with its overlay and the Linux bridge with a vxlan port, both moving data.
check_jq "JSON: overlay: xdpbr and the Linux bridge across VXLAN, > 0 Gbit/s, and their ratio" "$doc" '
	.overlay.reps == 1 and .overlay.xdpbr_gbps > 0 and .overlay.bridge_gbps > 0 and
	(.overlay.xdpbr_reps | length) == 1 and (.overlay.bridge_reps | length) == 1 and
	(.overlay.xdpbr_over_bridge | type) == "number"'
check "overlay table in the text output" grep -q '^overlay: iperf3, one TCP stream h1 -> h2 across VXLAN' "$out"
# (only its own: another run's overlay may be running now)
oprefix=$(jq -r '.overlay.prefix // empty' "$json" 2>/dev/null)
check "the overlay scenario names its prefix ($oprefix)" grep -qE '^bo[0-9]+$' <<<"$oprefix"
check_eq "the overlay scenario left no namespace behind" "" \
	"$(ip netns list | grep -E "^${oprefix:-none}-(sa|sb|h1|h2)( |$)")"

# The RFC 2889 tests (tools/bench-rfc2889.sh, --smoke: 10,000 MACs, a
# capacity search up to 4096): xdpbr learns every address and finds it
# again, and its default FDB holds more than the search's limit. The Linux
# bridge's figures are measured, not asserted: under load it can miss a
# learn (an insert that fails while its table's resize waits for a CPU),
# which is the machine's, not the bench's. Its results must still be
# whole and consistent: every trial learning twice, the capacity the
# largest trial that held.
check_jq "JSON: rfc2889 learnrate: xdpbr learned all 10000, none flooded; the bridge measured; a ratio" "$doc" '
	.rfc2889.learnrate.macs == 10000 and .rfc2889.learnrate.reps == 1 and
	(.rfc2889.learnrate.duts.xdpbr | .learned_min == 10000 and .flooded_max == 0 and
	 .learned_per_s > 0) and
	(.rfc2889.learnrate.duts.bridge | .learned_min > 0 and .learned_per_s > 0) and
	(.rfc2889.learnrate.ratio | type) == "number"'
check_jq "JSON: rfc2889 capacity: xdpbr holds the search limit of 4096 without flooding" "$doc" '
	.rfc2889.capacity.max == 4096 and
	(.rfc2889.capacity.duts.xdpbr |
	 .capacity == 4096 and .reached_max and
	 (.trials | map(.macs)) == [1024, 2048, 4096] and all(.trials[]; .flooded == 0))'
check_jq "JSON: rfc2889 capacity: the bridge's search from 1024, twice-sent learning, capacity its largest clean trial" "$doc" '
	.rfc2889.capacity.duts.bridge as $b |
	$b.trials[0].macs == 1024 and
	all($b.trials[]; .learn_passes == 2) and
	$b.capacity == ([$b.trials[] | select(.flooded == 0) | .macs] | max // 0) and
	$b.reached_max == ($b.capacity == 4096)'
check "learning rate table" grep -qE '^xdpbr +[0-9]+ +[0-9]+-[0-9]+ +[0-9]+ +10000 +0$' "$out"
check "learning rate table: the bridge's row" \
	grep -qE '^bridge +[0-9]+ +[0-9]+-[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$' "$out"
check "caching capacity table" grep -qE '^xdpbr +4096 \(the search limit\) +3$' "$out"
check "caching capacity table: the bridge's row" \
	grep -qE '^bridge +[0-9]+( \(the search limit\))? +[0-9]+$' "$out"
rprefix=$(jq -r '.rfc2889.prefix // empty' "$json" 2>/dev/null)
check "the rfc2889 tests name their prefix ($rprefix)" grep -qE '^rf[0-9]+$' <<<"$rprefix"
check_eq "the rfc2889 tests left no namespace or link behind" "" \
	"$(ip netns list | grep -E "^${rprefix:-none}-h( |$)"; ip -o link show | grep -E ": ${rprefix:-none}(p[123]|k)[@:]")"

# broadcast100 (tools/bench-flood.sh): a broadcast flooded to 100 ports by
# every DUT. Each must reach all 100 sinks; the rates and the copies lost
# are the machine's; the BPF run time is every DUT's but the Linux
# bridge's.
check_jq "JSON: broadcast100: 100 ports, every DUT reached all 100 sinks" "$doc" '
	.broadcast100.ports == 100 and .broadcast100.size == 64 and
	(.broadcast100.duts | keys) == ["bridge", "ceiling", "xdpbr", "xdpbr-tc"] and
	all(.broadcast100.duts[]; .pps > 0 and .tx_pps > 0 and .sinks_reached_min == 100 and
	    .copies_per_frame > 0)'
check_jq "JSON: broadcast100: BPF ns per frame of xdpbr, xdpbr-tc and the ceiling, none for the bridge" "$doc" '
	.broadcast100.duts as $d |
	($d.xdpbr.ns_per_frame > 0) and ($d["xdpbr-tc"].ns_per_frame > 0) and
	($d.ceiling.ns_per_frame > 0) and $d.bridge.ns_per_frame == null'
check_jq "JSON: broadcast100: the ratios xdpbr/bridge, xdpbr/ceiling, xdpbr-tc/bridge" "$doc" '
	.broadcast100.ratios | all(.xdpbr_over_bridge, .xdpbr_over_ceiling, .xdpbr_tc_over_bridge;
				   type == "number" and . > 0)'
check "broadcast100 table" grep -q '^broadcast100: 64-byte broadcasts flooded to 100 ports, one core' "$out"
check "broadcast100 table: xdpbr's row" \
	grep -qE '^xdpbr +[0-9.]+ +\[[0-9.]+-[0-9.]+\] +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$out"
fprefix=$(jq -r '.broadcast100.prefix // empty' "$json" 2>/dev/null)
check "broadcast100 names its prefix ($fprefix)" grep -qE '^bf[0-9]+$' <<<"$fprefix"
check_eq "broadcast100 left no namespace, link or pin behind" "" \
	"$(ip netns list | grep -E "^${fprefix:-none}-h( |$)"
	   ip -o link show | grep -E ": ${fprefix:-none}(-g|p[0-9]+|k)[@:]"
	   [ -e "/sys/fs/bpf/xdpbr/${fprefix:-none}" ] && echo "pins of ${fprefix:-none}")"

# mcast (tools/bench-flood.sh --group): a stream to 1, then 3, of 20 ports
# with snooping on. Each DUT reached its members only (bench-flood fails
# the run where a non-member's sink got a copy): every member got some,
# and no frame made more copies than there are members (the queries a
# non-member may see add under 0.1).
check_jq "JSON: mcast: 1 and 3 of 20 ports, every DUT delivered to its members" "$doc" '
	[.mcast[] | .ports, .group.members, .group.address] == [20, 1, "239.1.1.1", 20, 3, "239.1.1.1"] and
	all(.mcast[]; (.duts | keys) == ["bridge", "ceiling", "xdpbr", "xdpbr-tc"] and
	    .group.members as $k | all(.duts[]; .pps > 0 and .sink_frames_min > 0 and
				      .copies_per_frame > 0 and .copies_per_frame < $k + 0.1))'
check_jq "JSON: mcast: BPF ns per frame of xdpbr and the ratios" "$doc" '
	all(.mcast[]; .duts.xdpbr.ns_per_frame > 0 and .duts["xdpbr-tc"].ns_per_frame > 0 and
	    (.ratios | all(.xdpbr_over_bridge, .xdpbr_tc_over_bridge; type == "number" and . > 0)))'
check_eq "mcast tables: one for 1 member, one for 3" 2 \
	"$(grep -c '^mcast: 64-byte frames to 239.1.1.1, [13] of 20 ports members' "$out")"
for p in $(jq -r '.mcast[]?.prefix' "$json" 2>/dev/null); do
	check_eq "mcast ($p) left no namespace, link or pin behind" "" \
		"$(ip netns list | grep -E "^$p-h( |$)"
		   ip -o link show | grep -E ": $p(-g|-host|-dev|p[0-9]+|k)?[@:]"
		   [ -e "/sys/fs/bpf/xdpbr/$p" ] && echo "pins of $p")"
done

# The plots of the run, drawn from the JSON kept next to them.
check "--plot: the JSON the plots come from is the run's" cmp "$json" "$plots/bench.json"
check_eq "--plot: a rates plot for the one core count and the ratios" \
	"bench.json rates-1core.svg ratios.svg" \
	"$(find "$plots" -mindepth 1 -printf '%f\n' 2>/dev/null | sort | paste -sd' ')"
for f in rates-1core ratios; do
	check "--plot: $f.svg is an SVG document" grep -q '</svg>' "$plots/$f.svg"
done
for s in "xdpbr (XDP)" "xdpbr (TC)" "Linux bridge" "ceiling (devmap redirect)" "10G line rate"; do
	n=$(grep -cF "<title>$s</title>" "$plots/rates-1core.svg" 2>/dev/null)
	check_eq "--plot: series '$s' in the 14 panels (7 scenarios x Mpps, Gbit/s)" 14 "$n"
done
check "--plot: the machine in the title" grep -qF "host $(uname -n) (" "$plots/rates-1core.svg"

prefix=$(jq -r '.prefix // empty' "$json" 2>/dev/null)
left=$([ -n "$prefix" ] && leftovers "$prefix")
check_eq "nothing left behind by the run (${prefix:-no prefix})" "" "$left"
check_eq "bridge-nf sysctls restored" "$brnf_before" "$(brnf_values)"

# ---------------------------------------------------------------- big frames

# Frames the generator can't send are refused, and the message says how
# jumbo frames are measured instead.
msg=$(BUILD=$XT_BUILD timeout 20 "$BENCH" --smoke --sizes 64,9000 2>&1)
rc=$?
check_eq "--sizes 9000 refused" 1 "$rc" "$msg"
check "... the message names the generator's limit and --tcp-mtu 9000" \
	grep -q "sends at most 3412 bytes.*--tcp-mtu 9000" <<<"$msg"
msg=$(BUILD=$XT_BUILD timeout 20 "$BENCH" --smoke --sizes 9001 2>&1)
check "--sizes 9001: not a frame size" grep -q "9001 is not a frame size" <<<"$msg"

# Frames of 3412 bytes (the veths' MTU raised to 3394 for them) through
# xdpbr and the ceiling.
json4=$XT_TMP/bench4.json
BUILD=$XT_BUILD timeout 240 "$BENCH" --smoke --duts xdpbr,ceiling --scenarios unicast \
	--sizes 1518,3412 --json "$json4" >"$XT_TMP/bench4.out" 2>"$XT_TMP/bench4.err"
check_eq "bench --sizes 1518,3412 exits 0" 0 "$?" "$(tail -n 20 "$XT_TMP/bench4.err")"
check_jq "JSON: 3412-byte frames delivered by xdpbr and the ceiling" "$(cat "$json4" 2>/dev/null)" '
	.sizes == [1518, 3412] and
	([.results[] | select(.size == 3412 and .pps > 0) | .dut] | sort) == ["ceiling", "xdpbr"]'

# Jumbo frames: the tcp scenario at MTU 9000.
json5=$XT_TMP/bench5.json
BUILD=$XT_BUILD timeout 240 "$BENCH" --smoke --scenarios tcp --duts xdpbr --tcp-mtu 9000 \
	--json "$json5" >"$XT_TMP/bench5.out" 2>"$XT_TMP/bench5.err"
check_eq "bench --scenarios tcp --tcp-mtu 9000 exits 0" 0 "$?" "$(tail -n 20 "$XT_TMP/bench5.err")"
check "tcp title says MTU 9000" grep -q '^tcp: iperf3, one TCP stream for 1 s at MTU 9000,' \
	"$XT_TMP/bench5.out"
check_jq "JSON: tcp at MTU 9000 moved data on both pairs" "$(cat "$json5" 2>/dev/null)" '
	.tcp.mtu == 9000 and ([.tcp.results[] | select(.gbps > 0) | .pair] == ["veth", "tap"])'
for f in 4 5; do
	prefix=$(jq -r '.prefix // empty' "$XT_TMP/bench$f.json" 2>/dev/null)
	left=$([ -n "$prefix" ] && leftovers "$prefix")
	check_eq "nothing left behind by run $f (${prefix:-no prefix})" "" "$left"
done

# ---------------------------------------------------------------- pktgen's transmit modes

# pktgen alone, through one veth pair into a sink in a namespace: AF_PACKET
# (--tx-mode packet) and auto (live frames where the kernel allows them)
# each send exactly --count frames, every one of them received.
PGNS=xt${ID}-pg
PGDEV=xt${ID}pg
XT_CLEANUP_CMDS+=("ip netns del $PGNS" "ip link del dev $PGDEV")
# IPv6 off on both ends before they come up: a router solicitation or an
# MLD report would be one more frame at the sink than pktgen sent.
ip netns add "$PGNS" && ip link add "$PGDEV" type veth peer name s0 netns "$PGNS" &&
	sysctl -q -w "net.ipv6.conf.$PGDEV.disable_ipv6=1" &&
	ip netns exec "$PGNS" sysctl -q -w net.ipv6.conf.s0.disable_ipv6=1 &&
	ip link set "$PGDEV" up && ip -n "$PGNS" link set s0 up ||
	abort "pktgen's veth pair $PGDEV"
# 3000 is no multiple of the amplifier's 32 copies, and 3016 leaves 8 over,
# fewer than a devmap flush's 16: every one of those frames arrives too.
for run in "packet 3000" "amp 3000" "amp 3016" "auto 3000"; do
	read -r mode n <<<"$run"
	got=$(timeout 60 "$PKTGEN" -t "$PGDEV" -r s0 --rx-ns "$PGNS" -c 1 --count "$n" \
		--src-macs 100 --tx-mode "$mode" --json --quiet 2>&1)
	want='(.tx_mode | IN("live", "amp", "packet"))'
	[ "$mode" != auto ] && want=".tx_mode == \"$mode\""
	check_jq "pktgen --tx-mode $mode: $n frames sent, $n received" "$got" "
		.tx_frames == $n and .rx_frames == $n and $want"
done
check_eq "pktgen left no amplifier veth behind" "" \
	"$(ip -o link show | awk -F': ' '$2 ~ /^pga[0-9]+[ab][0-9]+/ {print $2}')"
msg=$("$PKTGEN" -t "$PGDEV" --tx-mode nope --count 1 2>&1)
check_eq "pktgen --tx-mode nope: refused" \
	"1 pktgen: --tx-mode nope: not auto, live, amp or packet" "$? $msg"
ip netns del "$PGNS"

# ---------------------------------------------------------------- stopped half-way

# SIGTERM to the run's process group while it measures the Linux bridge
# (bridge up, bridge-nf sysctls at 0): everything must still go away.
err2=$XT_TMP/bench2.err
BUILD=$XT_BUILD setsid "$BENCH" --smoke --duts bridge --duration 2 >/dev/null 2>"$err2" &
bpid=$!
XT_PIDS+=("$bpid")
if xt_poll 20 grep -q '^bench: topology bn' "$err2" &&
	xt_poll 20 ip link show dev "$(sed -n 's/^bench: topology \(bn[0-9]*\):.*/\1/p' "$err2")br"; then
	prefix2=$(sed -n 's/^bench: topology \(bn[0-9]*\):.*/\1/p' "$err2")
	xt_poll 10 grep -q '^\[1/6\]' "$err2"
	if [ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]; then
		check_eq "bridge-nf sysctls at 0 while the Linux bridge is measured" \
			"$(brnf_values | sed 's/=[01] /=0 /g')" "$(brnf_values)"
	fi
	kill -TERM -- "-$bpid" 2>/dev/null
	stop_pid "$bpid" TERM 30
	check_eq "bench stopped by SIGTERM exits 143" 143 "$STOP_RC" "$(cat "$err2")"
	check_eq "nothing left behind when stopped ($prefix2)" "" "$(leftovers "$prefix2")"
	check_eq "bridge-nf sysctls restored when stopped" "$brnf_before" "$(brnf_values)"
else
	fail "bench --duts bridge started measuring" "$(cat "$err2")"
fi

# SIGTERM while iperf3 runs through xdpbr on the tap pair: hosts, taps,
# tapwire processes, the daemon and its pins must all go.
err3=$XT_TMP/bench3.err
BUILD=$XT_BUILD setsid "$BENCH" --smoke --scenarios tcp --duts xdpbr --tcp-duration 10 \
	>/dev/null 2>"$err3" &
bpid=$!
XT_PIDS+=("$bpid")
if xt_poll 60 grep -q 'tcp xdpbr tap (datapath tc)' "$err3"; then
	prefix3=$(sed -n 's/^bench: tcp topology \(bn[0-9]*\) (MTU [0-9]*):.*/\1/p' "$err3")
	sleep 1
	check "tapwire runs while measuring ($prefix3)" pgrep -f "tapwire ${prefix3}t3"
	kill -TERM -- "-$bpid" 2>/dev/null
	stop_pid "$bpid" TERM 30
	check_eq "bench stopped by SIGTERM in tcp exits 143" 143 "$STOP_RC" "$(cat "$err3")"
	check_eq "nothing left behind when stopped in tcp ($prefix3)" "" "$(leftovers "$prefix3")"
else
	fail "bench --scenarios tcp started measuring the tap pair" "$(cat "$err3")"
fi

finish

#!/usr/bin/env bash
# datapaths: auto
# The benchmark (tools/bench.sh, build/tools/pktgen) in its smoke mode: it
# must produce well-formed tables and JSON and clean up after itself, also
# when it is stopped half-way (measuring frames or TCP). Rates are not
# checked, only that every DUT moved something: they depend on the machine
# and its load. xdpbr's two datapaths are both DUTs (xdpbr: XDP, xdpbr-tc:
# TC, whose program must really run), and the tcp scenario runs iperf3
# through xdpbr and the Linux bridge on veth and tap ports.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

BENCH=$XT_ROOT/tools/bench.sh
PKTGEN=$XT_BUILD/tools/pktgen
BRNF=(bridge-nf-call-iptables bridge-nf-call-ip6tables bridge-nf-call-arptables)

xt_require
[ -x "$PKTGEN" ] || abort "missing: $PKTGEN (run make check, or make $PKTGEN)"
[ -x "$XT_BUILD/tools/tapwire" ] || abort "missing: $XT_BUILD/tools/tapwire (make all)"
command -v iperf3 >/dev/null || abort "iperf3 missing (make deps)"

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
# --profile: the BPF programs' run counts show which datapath really ran.
# --plot: the run's plots (tests/integration/test_plots.sh checks them in
# detail, from saved runs).
BUILD=$XT_BUILD timeout 240 "$BENCH" --smoke --profile --json "$json" --plot "$plots" \
	>"$out" 2>"$err"
rc=$?
check_eq "bench --smoke exits 0" 0 "$rc" "stderr:" "$(tail -n 20 "$err")"

# 4 DUTs x 3 frame scenarios x 1 core: twelve tables, each a title, the
# header (scale up to the 10G default link), the rule and one row for 64
# bytes.
n=$(grep -c '^+ ' "$out")
check_eq "twelve tables (4 DUTs x 3 scenarios x 1 core)" 12 "$n" "$(cat "$out")"
n=$(grep -cE '^framesize\|0G +1G +2G .* 9G +10Gbps$' "$out")
check_eq "every table has the framesize|... 10Gbps header" 12 "$n" "$(cat "$out")"
n=$(grep -cE '^-{9}(\+-{4}){10}\+$' "$out")
check_eq "every table has the ---------+----+ rule" 12 "$n" "$(cat "$out")"
row='^ {6}64 \|#{0,50} *[ 0-9]+\.[0-9]{2}Mbps, +[0-9]+/ *14880952pps  \[[0-9]+-[0-9]+\]$'
n=$(grep -cE "$row" "$out")
check_eq "one row per table: 64 |bar Mbps, pps/line-rate pps [min-max]" 12 "$n" "$(cat "$out")"
for t in "xdpbr, XDP datapath (xdpbrd -d xdp" "xdpbr, TC datapath (xdpbrd -d tc" \
	"Linux bridge" "ceiling (bare XDP devmap redirect"; do
	n=$(grep -c "^+ $t" "$out")
	check_eq "three tables for $t" 3 "$n" "$(cat "$out")"
done

# The summary: Mpps of the four DUTs side by side.
check "summary title" grep -q '^Mpps delivered at 64 bytes' "$out"
check "summary header" \
	grep -qE '^scenario +cores +xdpbr XDP +xdpbr TC +Linux bridge +ceiling$' "$out"
for sc in unicast macs10k broadcast; do
	check "summary row for $sc" \
		grep -qE "^$sc +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$out"
done

# The ratio table: a header and one row per scenario at 64 bytes.
check "ratio table title" grep -q '^ratios at 64 bytes' "$out"
check "ratio table header" \
	grep -qE '^scenario +cores +xdpbr/ceiling +xdpbr/bridge +xdpbr ns/frame over ceiling$' "$out"
for sc in unicast macs10k broadcast; do
	check "ratio row for $sc" \
		grep -qE "^$sc +1 +[0-9.]+ \[[0-9.]+-[0-9.]+\] +[0-9.]+ \[[0-9.]+-[0-9.]+\] +-?[0-9.]+$" "$out"
done
check "TC datapath ratio table header" \
	grep -qE '^scenario +cores +xdpbr-tc/ceiling +xdpbr-tc/bridge +xdpbr-tc/xdpbr +xdpbr-tc ns/frame over ceiling$' \
	"$out"
for sc in unicast macs10k broadcast; do
	check "TC datapath ratio row for $sc" \
		grep -qE "^$sc +1( +[0-9.]+ \[[0-9.]+-[0-9.]+\]){3} +-?[0-9.]+$" "$out"
done
check "progress on stderr" grep -qE '^\[12/12\] rep 1/1 ceiling broadcast 1c size +64: rx ' "$err"
check "BPF run time table" grep -qE '^xdpbr-tc +unicast +1 +xdpbr_tc_rx ' "$out"

# The tcp tables: one row per DUT and pair, then the ratios.
check "tcp title" grep -q '^tcp: iperf3, one TCP stream for 1 s' "$out"
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
	.scenarios == ["unicast", "macs10k", "broadcast", "tcp"] and
	.frame_scenarios == ["unicast", "macs10k", "broadcast"]'
check_jq "JSON: twelve results with rates, spread and line rate" "$doc" '
	(.results | length) == 12 and
	all(.results[]; (keys | contains(["dut", "scenario", "cores", "size", "pps", "pps_min",
					  "pps_max", "mbps", "line_rate_pps", "tx_pps", "reps"])) and
	    .size == 64 and .cores == 1 and .line_rate_pps == 14880952 and
	    (.pps | type) == "number" and .pps_min <= .pps and .pps <= .pps_max and
	    (.reps | length) == 1)'
check_jq "JSON: one ratio entry per scenario" "$doc" '
	(.ratios | length) == 3 and
	all(.ratios[]; (keys | contains(["scenario", "cores", "size", "xdpbr_over_ceiling",
					 "xdpbr_over_bridge", "xdpbr_extra_ns_per_frame", "scaling",
					 "xdpbr_tc_over_ceiling", "xdpbr_tc_over_bridge",
					 "xdpbr_tc_over_xdpbr", "xdpbr_tc_extra_ns_per_frame"])) and
	    (.xdpbr_over_ceiling | keys) == ["max", "min", "ratio"] and
	    .xdpbr_tc_over_bridge.ratio > 0 and .xdpbr_tc_over_xdpbr.ratio > 0)'
check_jq "JSON: every DUT delivered frames in every frame scenario" "$doc" '
	[.results[] | select(.pps > 0) | [.dut, .scenario]] | unique | length == 12'
# The XDP DUT ran the XDP program, the TC DUT the TC program (about once a
# delivered frame; a third for the broadcast, flooded to three sinks).
check_jq "JSON: xdpbr (XDP) ran xdpbr_rx, not the TC program" "$doc" '
	[.results[] | select(.dut == "xdpbr")] | length == 3 and
	all(.[]; any(.profile[]; .prog == "xdpbr_rx" and .runs_per_rx_frame > 0.2) and
		 all(.profile[]; .prog != "xdpbr_tc_rx"))'
check_jq "JSON: xdpbr-tc ran xdpbr_tc_rx, not the XDP program" "$doc" '
	[.results[] | select(.dut == "xdpbr-tc")] | length == 3 and
	all(.[]; any(.profile[]; .prog == "xdpbr_tc_rx" and .runs_per_rx_frame > 0.2 and
				 .ns_per_run > 0) and
		 all(.profile[]; .prog != "xdpbr_rx"))'

# The tcp scenario: both DUTs on both pairs moved data, xdpbr on its TC
# path (auto picks it for veth and tap), the hosts with default offloads.
check_jq "JSON: tcp results of xdpbr and the bridge on veth and tap, > 0 Gbit/s" "$doc" '
	.tcp.duration_s == 1 and .tcp.reps == 1 and .tcp.duts == ["xdpbr", "bridge"] and
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
	check_eq "--plot: series '$s' in the 6 panels (3 scenarios x Mpps, Gbit/s)" 6 "$n"
done
check "--plot: the machine in the title" grep -qF "host $(uname -n) (" "$plots/rates-1core.svg"

prefix=$(jq -r '.prefix // empty' "$json" 2>/dev/null)
left=$([ -n "$prefix" ] && leftovers "$prefix")
check_eq "nothing left behind by the run (${prefix:-no prefix})" "" "$left"
check_eq "bridge-nf sysctls restored" "$brnf_before" "$(brnf_values)"

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
	xt_poll 10 grep -q '^\[1/3\]' "$err2"
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
	prefix3=$(sed -n 's/^bench: tcp topology \(bn[0-9]*\):.*/\1/p' "$err3")
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

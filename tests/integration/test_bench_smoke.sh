#!/usr/bin/env bash
# datapaths: auto
# The benchmark (tools/bench.sh, build/tools/pktgen) in its smoke mode: it
# must produce well-formed tables and JSON and clean up after itself, also
# when it is stopped half-way. Rates are not checked: they depend on the
# machine and its load.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

BENCH=$XT_ROOT/tools/bench.sh
PKTGEN=$XT_BUILD/tools/pktgen
BRNF=(bridge-nf-call-iptables bridge-nf-call-ip6tables bridge-nf-call-arptables)

xt_require
[ -x "$PKTGEN" ] || abort "missing: $PKTGEN (run make check, or make $PKTGEN)"

# brnf_values: the bridge-nf sysctls, "absent" for those that do not exist.
brnf_values()
{
	local k
	for k in "${BRNF[@]}"; do
		printf '%s=%s ' "$k" "$(cat "/proc/sys/net/bridge/$k" 2>/dev/null || echo absent)"
	done
}

# leftovers PREFIX: whatever a bench run PREFIX (bnNNNN) left behind.
leftovers()
{
	local p=$1
	ip netns list | grep "^$p-sink"
	ip -br link | grep -E "^$p(g|p[0-3]|br)[@ ]"
	[ -e "/sys/fs/bpf/xdpbr/$p" ] && echo "/sys/fs/bpf/xdpbr/$p"
	[ -e "/run/xdpbr-bench/$p" ] && echo "/run/xdpbr-bench/$p"
	return 0
}

# ---------------------------------------------------------------- smoke run

brnf_before=$(brnf_values)
out=$XT_TMP/bench.out
err=$XT_TMP/bench.err
json=$XT_TMP/bench.json
BUILD=$XT_BUILD timeout 120 "$BENCH" --smoke --json "$json" >"$out" 2>"$err"
rc=$?
check_eq "bench --smoke exits 0" 0 "$rc" "stderr:" "$(tail -n 20 "$err")"

# 3 DUTs x 3 scenarios x 1 core: nine tables, each a title, the header
# (scale up to the 10G default link), the rule and one row for 64 bytes.
n=$(grep -c '^+ ' "$out")
check_eq "nine tables (3 DUTs x 3 scenarios x 1 core)" 9 "$n" "$(cat "$out")"
n=$(grep -cE '^framesize\|0G +1G +2G .* 9G +10Gbps$' "$out")
check_eq "every table has the framesize|... 10Gbps header" 9 "$n" "$(cat "$out")"
n=$(grep -cE '^-{9}(\+-{4}){10}\+$' "$out")
check_eq "every table has the ---------+----+ rule" 9 "$n" "$(cat "$out")"
row='^ {6}64 \|#{1,50} *[ 0-9]+\.[0-9]{2}Mbps, +[0-9]+/ *14880952pps  \[[0-9]+-[0-9]+\]$'
n=$(grep -cE "$row" "$out")
check_eq "one row per table: 64 |bar Mbps, pps/line-rate pps [min-max]" 9 "$n" "$(cat "$out")"
for t in "xdpbr (XDP bridge" "Linux bridge" "ceiling (bare XDP devmap redirect"; do
	n=$(grep -c "^+ $t" "$out")
	check_eq "three tables for $t" 3 "$n" "$(cat "$out")"
done

# The ratio table: a header and one row per scenario at 64 bytes.
check "ratio table title" grep -q '^ratios at 64 bytes' "$out"
check "ratio table header" \
	grep -qE '^scenario +cores +xdpbr/ceiling +xdpbr/bridge +xdpbr ns/frame over ceiling$' "$out"
for sc in unicast macs10k broadcast; do
	check "ratio row for $sc" \
		grep -qE "^$sc +1 +[0-9.]+ \[[0-9.]+-[0-9.]+\] +[0-9.]+ \[[0-9.]+-[0-9.]+\] +-?[0-9.]+$" "$out"
done
check "progress on stderr" grep -qE '^\[9/9\] rep 1/1 ceiling broadcast 1c size +64: rx ' "$err"

# The JSON document.
doc=$(cat "$json" 2>/dev/null)
check "JSON is valid" jq -e . "$json"
check_jq "JSON: run keys" "$doc" '
	(keys | contains(["tool", "date", "kernel", "cpus", "prefix", "link", "link_bps",
			  "duration_s", "reps", "duts", "scenarios", "sizes", "cores",
			  "ratio_size", "results", "ratios"])) and
	.link == "10G" and .link_bps == 10000000000 and .reps == 1 and .sizes == [64] and
	.cores == [1] and .duts == ["xdpbr", "bridge", "ceiling"] and
	.scenarios == ["unicast", "macs10k", "broadcast"]'
check_jq "JSON: nine results with rates, spread and line rate" "$doc" '
	(.results | length) == 9 and
	all(.results[]; (keys | contains(["dut", "scenario", "cores", "size", "pps", "pps_min",
					  "pps_max", "mbps", "line_rate_pps", "tx_pps", "reps"])) and
	    .size == 64 and .cores == 1 and .line_rate_pps == 14880952 and
	    (.pps | type) == "number" and .pps_min <= .pps and .pps <= .pps_max and
	    (.reps | length) == 1)'
check_jq "JSON: one ratio entry per scenario" "$doc" '
	(.ratios | length) == 3 and
	all(.ratios[]; (keys | contains(["scenario", "cores", "size", "xdpbr_over_ceiling",
					 "xdpbr_over_bridge", "xdpbr_extra_ns_per_frame", "scaling"])) and
	    (.xdpbr_over_ceiling | keys) == ["max", "min", "ratio"])'

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

finish

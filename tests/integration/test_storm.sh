#!/usr/bin/env bash
# Storm control: `xdpbr link set dev DEV storm bcast|mcast|unknown PPS` on a
# running bridge, and the storm_* keys of the configuration file.
#
# A broadcast storm from h1 (sendframe as fast as it can, one sender pinned
# to each online CPU, for STORM_S seconds) is cut to the limit while pings
# between h2 and h3 lose nothing. What gets through is checked against the
# documented semantics rather than a fixed number: the limit is a token
# bucket per CPU (include/xdpbr.h), each CPU's share pps_cpu =
# ceil(limit / possible CPUs) (ctl_storm_set(), read back from the pinned
# xdpbr_storm map), its bucket holds burst = max(pps_cpu * 100 / 1000, 1)
# frames and starts full. A veth port's frames are handled on the CPU that
# sends them, so each CPU's flooded count (per-CPU xdpbr_stats, read with
# bpftool) may be at most burst + pps_cpu * T, T the wall time the senders
# ran, plus STORM_TOL; and at least half of pps_cpu * T in all, or the
# limit dropped everything. Then multicast and unknown unicast limits, each
# class on its own, 0 lifting a limit (the storm passes again), and the
# configuration file: limits applied at start, a key removed on reload
# lifts its limit.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # helpers called through check, pfx_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks enumerate exactly the ports and FDB entries it made

STORM_S=2			# seconds of the broadcast storm
LIMIT=100			# its limit, frames per second
STORM_TOL=0.10			# allowed excess over pps_cpu * T, a fraction
BC=ff:ff:ff:ff:ff:ff
MC=01:00:5e:00:00:fb		# IPv4 multicast (mDNS group)
UU=$(pfx_mac 9)			# unknown unicast: nothing ever sends from it

# ---------------------------------------------------------------- helpers

# lset DEV ARG...: xdpbr link set dev DEV ARG...
lset()
{
	local dev=$1
	shift
	"$XDPBR" -b "$BR" link set dev "$dev" "$@"
}

# cpu_list FILE: the CPUs of a sysfs CPU list ("0-3,6"), one per line.
cpu_list()
{
	tr ',' '\n' <"$1" | awk -F- 'NF { for (c = $1; c <= (NF > 1 ? $2 : $1); c++) print c }'
}

# storm_json DEV: DEV's "storm" object in `xdpbr -j link show` (compact).
storm_json()
{
	pfx_link_json "$1" | jq -c '.[0].storm'
}

# storm_is DEV BCAST MCAST UNKNOWN: link show -j says so.
storm_is()
{
	[ "$(storm_json "$1")" = "{\"broadcast\":$2,\"multicast\":$3,\"unknown\":$4}" ]
}

# check_storm NAME DEV BCAST MCAST UNKNOWN: link show -j (every port has
# the object) and the text (a storm field only where a limit is set).
check_storm()
{
	local name=$1 dev=$2 text want_text=
	check_eq "$name: link show -j: storm of $dev" \
		"{\"broadcast\":$3,\"multicast\":$4,\"unknown\":$5}" \
		"$(storm_json "$dev" 2>&1)"
	text=$("$XDPBR" -b "$BR" link show dev "$dev" 2>&1)
	if [ "$3$4$5" != 000 ]; then
		want_text=" storm bcast $3 mcast $4 unknown $5"
	fi
	if [ "$(grep -o ' storm .*$' <<<"$text")" = "$want_text" ]; then
		pass "$name: link show: '${want_text:- (no storm field)}'"
	else
		fail "$name: link show: '${want_text:- (no storm field)}'" "$text"
	fi
}

# port_slot DEV: the slot of DEV (link show -j).
port_slot()
{
	pfx_link_json "$1" | jq -r '.[0].slot'
}

# pps_cpu DEV CLASS: the per-CPU share of class CLASS (0 bcast, 1 mcast,
# 2 unknown) in the pinned xdpbr_storm map.
pps_cpu()
{
	bpftool -j map lookup pinned "$PIN_DIR/xdpbr_storm" key "$(port_slot "$1")" 0 0 0 |
		jq -r --argjson c "$2" '.formatted.value.pps_cpu[$c]'
}

# cnt_index NAME: the index of counter NAME in xdpbr_stats.c[].
cnt_index()
{
	counter_names | awk -v n="$1" '$0 == n { print NR - 1; exit }'
}

# percpu DEV NAME: counter NAME of DEV on every possible CPU, "N N ...".
percpu()
{
	bpftool -j map lookup pinned "$PIN_DIR/xdpbr_stats" key "$(port_slot "$1")" 0 0 0 |
		jq -r --argjson i "$(cnt_index "$2")" \
		'[.formatted.values | sort_by(.cpu)[] | .value.c[$i]] | map(tostring) | join(" ")'
}

# now: wall clock in seconds with microseconds.
now()
{
	echo "$EPOCHREALTIME"
}

# check_per_cpu NAME BEFORE AFTER PPS_CPU SECONDS: each CPU's count grew by
# at most burst + PPS_CPU * SECONDS * (1 + STORM_TOL), burst the bucket of
# PPS_CPU. BEFORE and AFTER from percpu: a number for each of the NCPUS
# possible CPUs, or the check fails (an empty read has no CPU to be wrong).
check_per_cpu()
{
	local name=$1 out rc
	out=$(awk -v b="$2" -v a="$3" -v r="$4" -v t="$5" -v tol="$STORM_TOL" \
		-v ncpus="$NCPUS" 'BEGIN {
		n = split(b, B, " "); m = split(a, A, " ")
		burst = int(r * 100 / 1000); if (burst < 1) burst = 1
		max = burst + int(r * t * (1 + tol)) + 1
		bad = 0
		if (n != ncpus || m != ncpus) {
			printf "expected %d per-CPU counts, got %d before and %d after\n", ncpus, n, m
			bad = 1
		}
		for (i = 1; i <= n; i++) {
			if (B[i] !~ /^[0-9]+$/ || A[i] !~ /^[0-9]+$/) {
				printf "cpu %d: not a count: %s -> %s\n", i - 1, B[i], A[i]
				bad = 1
				continue
			}
			d = A[i] - B[i]
			printf "cpu %d: %d (at most %d)\n", i - 1, d, max
			if (d > max || d < 0) bad = 1
		}
		exit bad }')
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "$name: per CPU at most burst + pps_cpu * T (+$STORM_TOL): $(tr '\n' ' ' <<<"$out")"
	else
		fail "$name: per CPU at most burst + pps_cpu * T (+$STORM_TOL)" "$out"
	fi
}

# sum "N N ...": the sum of the numbers.
sum()
{
	awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }' <<<"$1"
}

# h1_burst COUNT DST: h1 sends COUNT 0x88b5 frames to DST back to back,
# pinned to the first online CPU; prints how many seconds it took.
h1_burst()
{
	local t0
	t0=$(now)
	hexec 1 taskset -c "${CPUS[0]}" "$SENDFRAME" -c "$1" -i 0 e0 \
		"$(eth_frame "$2" "${MAC[1]}")" >/dev/null 2>&1 || return 1
	awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.6f\n", b - a }'
}

# ---------------------------------------------------------------- setup

xt_require
xt_need bpftool
xt_need taskset:util-linux
NCPUS=$(cpu_list /sys/devices/system/cpu/possible | wc -l)
mapfile -t CPUS < <(cpu_list /sys/devices/system/cpu/online)
if [ "$NCPUS" -lt 1 ] || [ ${#CPUS[@]} -lt 1 ]; then
	abort "cannot read the CPU lists"
fi
SENDERS=${#CPUS[@]}
[ "$SENDERS" -le 4 ] || SENDERS=4
echo "# $NCPUS possible CPUs, ${#CPUS[@]} online, $SENDERS storm senders"

topo_up 3
daemon_start --listen none || abort "xdpbrd start" "$XT_WHY"
hosts_quiet || abort "hosts_quiet"
for i in 2 3; do
	for j in 2 3; do
		[ "$i" = "$j" ] || hping "$i" "$j" >/dev/null || abort "warm-up ping h$i -> h$j"
	done
done

P1=${PORT[1]}
P2=${PORT[2]}
P3=${PORT[3]}

check_jq "link show -j: every port has storm limits, none set" "$(pfx_link_json 2>&1)" \
	'length == 3 and all(.[]; .storm == {"broadcast": 0, "multicast": 0, "unknown": 0})'
check_storm "defaults" "$P1" 0 0 0

# ---------------------------------------------------------------- the storm

check "link set dev $P1 storm bcast $LIMIT" lset "$P1" storm bcast "$LIMIT"
check_storm "bcast $LIMIT" "$P1" "$LIMIT" 0 0
check_storm "bcast $LIMIT on $P1 only" "$P2" 0 0 0
RATE=$(pps_cpu "$P1" 0)
check_eq "xdpbr_storm: pps_cpu of $P1 = ceil($LIMIT / $NCPUS CPUs)" \
	$(((LIMIT + NCPUS - 1) / NCPUS)) "$RATE"
if ! [[ $RATE =~ ^[0-9]+$ ]] || ((RATE == 0)); then
	abort "no per-CPU share for $P1: '$RATE'"
fi

fb0=$(percpu "$P1" flood_broadcast)
ds0=$(percpu "$P1" drop_storm_broadcast)
rx0=$(port_counter "$P1" rx_packets)
fwd0=$(port_counter "$P2" forwarded)
: >"$XT_TMP/cap.storm.err"	# cap_start reads it before tcpdump may have made it
cap_start storm 2 "ether src ${MAC[1]} and ether broadcast" $((STORM_S + 3)) ||
	fail "capture in h2" "$XT_WHY"
pfx_ping_start p23 2 3 0.01
pfx_ping_start p32 3 2 0.01
sleep 0.3
hex=$(eth_frame "$BC" "${MAC[1]}")
pids=()
t0=$(now)
for ((k = 0; k < SENDERS; k++)); do
	ip netns exec "${NS[1]}" taskset -c "${CPUS[k]}" timeout "$STORM_S" \
		"$SENDFRAME" -c 1000000000 -i 0 e0 "$hex" >/dev/null 2>&1 &
	pids+=("$!")
	XT_PIDS+=("$!")
done
wait "${pids[@]}"
T=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.6f\n", b - a }')
sleep 0.3
pfx_ping_stop p23
pfx_ping_stop p32
fb1=$(percpu "$P1" flood_broadcast)
ds1=$(percpu "$P1" drop_storm_broadcast)
rx1=$(port_counter "$P1" rx_packets)
fwd1=$(port_counter "$P2" forwarded)
seen=$(cap_wait storm)

flooded=$(($(sum "$fb1") - $(sum "$fb0")))
dropped=$(($(sum "$ds1") - $(sum "$ds0")))
received=$((rx1 - rx0))
burst=$((RATE / 10 > 0 ? RATE / 10 : 1))
echo "# storm: $received frames in ${T}s from $SENDERS senders, $flooded flooded," \
	"$dropped dropped (limit $LIMIT/s, $RATE/s and burst $burst per CPU)"

check_per_cpu "bcast storm: flood_broadcast" "$fb0" "$fb1" "$RATE" "$T"
max_total=$(awk -v r="$RATE" -v n="$NCPUS" -v t="$T" -v tol="$STORM_TOL" -v b="$burst" \
	'BEGIN { printf "%d\n", n * (b + r * t * (1 + tol) + 1) }')
min_total=$(awk -v r="$RATE" -v t="$STORM_S" 'BEGIN { printf "%d\n", r * t / 2 }')
if ((flooded >= min_total && flooded <= max_total)); then
	pass "bcast storm: $flooded flooded in ${T}s, between $min_total and $max_total"
else
	fail "bcast storm: flooded between $min_total (half of pps_cpu * ${STORM_S}s)" \
		"and $max_total (every CPU: burst + pps_cpu * T)" "flooded: $flooded" \
		"per CPU before: $fb0" "per CPU after: $fb1"
fi
if ((received > 10 * max_total)); then
	pass "bcast storm: it was a storm: $received frames received, > 10 x $max_total"
else
	fail "bcast storm: it was a storm: more than 10 x $max_total frames received" \
		"received: $received"
fi
if ((dropped > 0)); then
	pass "bcast storm: drop_storm_broadcast grew by $dropped"
else
	fail "bcast storm: drop_storm_broadcast grew" "before: $ds0" "after: $ds1"
fi
check_eq "bcast storm: every frame received is flooded or dropped by the limit" \
	"$received" $((flooded + dropped)) "flooded $flooded, dropped $dropped"
if [[ $seen =~ ^[0-9]+$ ]] && ((seen > 0 && seen <= flooded)); then
	pass "bcast storm: h2 received $seen of h1's broadcasts (flooded: $flooded)"
else
	fail "bcast storm: h2 received between 1 and $flooded of h1's broadcasts" \
		"received: $seen" "$(tail -n 5 "$XT_TMP/cap.storm.err" 2>&1)"
fi
check "during the storm: ping h2 -> h3 lost nothing" pfx_ping_check p23 50
check "during the storm: ping h3 -> h2 lost nothing" pfx_ping_check p32 50
if ((fwd1 > fwd0)); then
	pass "during the storm: unicast from $P2 forwarded ($fwd0 -> $fwd1)"
else
	fail "during the storm: unicast from $P2 forwarded" "forwarded: $fwd0 -> $fwd1"
fi
for p in "$P2" "$P3"; do
	check_jq "during the storm: no storm drops on $p" \
		"$("$XDPBR" -b "$BR" -j stats dev "$p" 2>&1)" \
		'.[0] | .drop_storm_broadcast == 0 and .drop_storm_multicast == 0 and
		 .drop_storm_unknown == 0'
done

# --- 0 lifts the limit: the storm passes again
check "link set dev $P1 storm bcast 0" lset "$P1" storm bcast 0
check_storm "bcast 0" "$P1" 0 0 0
fb0=$(port_counter "$P1" flood_broadcast)
ds0=$(port_counter "$P1" drop_storm_broadcast)
h1_burst 3000 "$BC" >/dev/null || fail "sendframe: 3000 broadcasts from h1"
check_eq "no limit: all 3000 broadcasts flooded" 3000 \
	$(($(port_counter "$P1" flood_broadcast) - fb0))
check_same "no limit: no drop_storm_broadcast" "$ds0" "$(port_counter "$P1" drop_storm_broadcast)"

# ---------------------------------------------------------------- the other classes

# One class limited, one burst of frames of each class from one CPU: only
# the limited one is cut, to its bucket plus what T refilled.
check "link set dev $P1 storm mcast 10 unknown 10 learning on (mixed)" \
	lset "$P1" storm mcast 10 unknown 10 learning on
check_storm "mcast 10 unknown 10" "$P1" 0 10 10
MRATE=$(pps_cpu "$P1" 1)
check_eq "xdpbr_storm: mcast pps_cpu of $P1 = ceil(10 / $NCPUS CPUs)" \
	$(((10 + NCPUS - 1) / NCPUS)) "$MRATE"

for cls in multicast unknown; do
	case $cls in
	multicast) dst=$MC ;;
	unknown) dst=$UU ;;
	esac
	f0=$(percpu "$P1" "flood_$cls")
	d0=$(port_counter "$P1" "drop_storm_$cls")
	t=$(h1_burst 500 "$dst") || fail "sendframe: 500 $cls frames from h1"
	f1=$(percpu "$P1" "flood_$cls")
	check_per_cpu "500 $cls frames at once (in ${t}s), limit 10" "$f0" "$f1" "$MRATE" "$t"
	n=$(($(sum "$f1") - $(sum "$f0")))
	if ((n >= 1)); then
		pass "$cls limit: the first frame of a full bucket is flooded ($n in all)"
	else
		fail "$cls limit: the first frame of a full bucket is flooded" "flooded: $n"
	fi
	check_eq "$cls limit: the rest are dropped as drop_storm_$cls" $((500 - n)) \
		$(($(port_counter "$P1" "drop_storm_$cls") - d0))
done
fb0=$(port_counter "$P1" flood_broadcast)
h1_burst 500 "$BC" >/dev/null || fail "sendframe: 500 broadcasts from h1"
check_eq "mcast and unknown limited: broadcast is not (500 of 500 flooded)" 500 \
	$(($(port_counter "$P1" flood_broadcast) - fb0))

check "link set dev $P1 storm broadcast 100: the other classes keep theirs" \
	lset "$P1" storm broadcast 100
check_storm "bcast 100 after mcast 10 unknown 10" "$P1" 100 10 10
check "link set dev $P1 storm mcast 0 unknown 0 bcast 0" \
	lset "$P1" storm mcast 0 unknown 0 bcast 0
check_storm "all lifted" "$P1" 0 0 0

pfx_check_error "storm without a class is refused" "storm" lset "$P1" storm
pfx_check_error "storm bcast 100000001 is refused" "100000001" lset "$P1" storm bcast 100000001
pfx_check_error "storm on a device that is no port is refused" "not a port" \
	"$XDPBR" -b "$BR" link set dev lo storm bcast 1
check_storm "after the refused commands" "$P1" 0 0 0

# ---------------------------------------------------------------- the configuration file

daemon_stop || fail "xdpbrd stop" "exit status: $DAEMON_RC"
CONF=$XT_TMP/xdpbrd.conf
cat >"$CONF" <<EOF
[bridge]
name = $BR

[port $P1]
storm_bcast = 300
storm_unknown = 7

[port $P2]

[port $P3]
EOF
pfx_daemon_start 3 -l none -c "$CONF" || abort "xdpbrd -c $CONF" "$XT_WHY"
check_storm "config: storm_bcast = 300, storm_unknown = 7" "$P1" 300 0 7
check_storm "config: no storm keys" "$P2" 0 0 0
check_eq "config: pps_cpu of $P1 = ceil(300 / $NCPUS CPUs)" \
	$(((300 + NCPUS - 1) / NCPUS)) "$(pps_cpu "$P1" 0)"

# A limit set by hand on a port whose section does not change stays.
check "link set dev $P3 storm mcast 50" lset "$P3" storm mcast 50
cat >"$CONF" <<EOF
[bridge]
name = $BR

[port $P1]
storm_unknown = 7

[port $P2]
storm_mcast = 5

[port $P3]
EOF
kill -HUP "$DAEMON_PID"
if pfx_poll 5 storm_is "$P1" 0 0 7 && pfx_poll 5 storm_is "$P2" 0 5 0; then
	pass "reload: storm_bcast removed from $P1 lifts its limit, $P2 gets storm_mcast"
else
	fail "reload: storm_bcast removed from $P1 lifts its limit, $P2 gets storm_mcast" \
		"$P1: $(storm_json "$P1" 2>&1)" "$P2: $(storm_json "$P2" 2>&1)" \
		"$(cat "$DAEMON_LOG")"
fi
check_storm "reload" "$P1" 0 0 7
check_storm "reload: section unchanged, limit set by hand kept" "$P3" 0 50 0
fb0=$(port_counter "$P1" flood_broadcast)
h1_burst 1000 "$BC" >/dev/null || fail "sendframe: 1000 broadcasts from h1"
check_eq "reload: broadcasts from h1 pass again (1000 of 1000 flooded)" 1000 \
	$(($(port_counter "$P1" flood_broadcast) - fb0))

echo "bogus = 1" >>"$CONF"
kill -HUP "$DAEMON_PID"
log_poll "$DAEMON_LOG" "keeping the running configuration" 5 ||
	fail "reload of a bad file: logged" "$(cat "$DAEMON_LOG")"
check_storm "a bad file on reload keeps the limits" "$P1" 0 0 7

finish

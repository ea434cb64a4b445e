#!/usr/bin/env bash
# datapaths: auto
# The EVPN mirror's work is bounded per main-loop turn (daemon/evpn.h):
# while it mirrors a large FDB into the kernel bridge, and while a MAC
# flood adds to it, the loop keeps turning, which the STP heartbeat it
# writes every 100 ms tick shows (a loop stalled longer than hello_time
# + 1 s would make the datapath discard on every non-edge port).
#
#   q1 -- p1 [xdpbr $BR, stp on, [vxlan]] p2 -- e0 (host namespace: pktgen)
#
# N entries are written into the FDB on p1 (tools/fdbfill, as just seen):
# the mirror has them all to add to the kernel bridge. The mirror used to
# make one synchronous netlink request per MAC within one turn, each on a
# new socket: N of them stalled the loop for seconds. Checked, sampling
# every 0.2 s: the heartbeat is never found older than BEAT_MAX_MS, while
# the kernel bridge comes to hold the entries (20 spread over them, by
# `bridge fdb get`) and during a flood of FLOOD_MACS new source MACs;
# GET /metrics answers in under a second throughout.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and xt_poll
. "$(dirname "$0")/lib.sh"

N=${EB_MACS:-100000}
FLOOD_MACS=50000
FLOOD_SECS=3
BEAT_MAX_MS=1500	# the tick is 100 ms; the old mirror stalled for seconds
MIRROR_SECS=90
NS=xt$ID-eb
HNS=xt$ID-ebh
FDBFILL=$XT_BUILD/tools/fdbfill

xt_require
for t in bpftool curl; do
	command -v "$t" >/dev/null || abort "$t not installed (run make deps)"
done
for t in "$FDBFILL" "$PKTGEN" "$NETNSCOOKIE"; do
	[ -x "$t" ] || abort "missing: $t (make check-bins)"
done
[ -r /proc/timer_list ] || skip "no /proc/timer_list (the heartbeat's clock)"

XT_CLEANUP_CMDS+=("ip netns pids $NS | xargs -r kill -KILL; ip netns del $NS")
XT_CLEANUP_CMDS+=("ip netns pids $HNS | xargs -r kill -KILL; ip netns del $HNS")
ip netns add "$NS" && ip netns add "$HNS" || abort "ip netns add"
COOKIE=$("$NETNSCOOKIE" "/run/netns/$NS") || abort "no cookie for $NS"
PINS=/sys/fs/bpf/xdpbr-netns/cookie-$COOKIE/$BR
XT_CLEANUP_CMDS+=("rm -rf /sys/fs/bpf/xdpbr-netns/cookie-$COOKIE /run/xdpbr/netns-cookie-$COOKIE")
{
	ip -n "$NS" link set dev lo up &&
		ip -n "$NS" link add p1 type veth peer name q1 &&
		ip -n "$NS" link add p2 type veth peer name e0 netns "$HNS" &&
		ip -n "$NS" link set dev p1 up && ip -n "$NS" link set dev q1 up &&
		ip -n "$NS" link set dev p2 up && ip -n "$HNS" link set dev e0 up &&
		ip netns exec "$NS" ethtool -K p2 gro on >/dev/null	# pktgen's frames need NAPI
} || abort "links"

cat >"$XT_TMP/conf" <<EOF
[bridge]
name = $BR
fdb_size = $((N + 2 * FLOOD_MACS))
ageing_time = 0
listen = 127.0.0.1:9638
host_interface = off
stp = on
[port p1]
[port p2]
[vxlan]
vni = 100
local_ip = 198.19.0.1
EOF
ip netns exec "$NS" "$XDPBRD" -d "$XT_DATAPATH" -c "$XT_TMP/conf" >"$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!
xt_poll 20 grep -q "forwarding on" "$DAEMON_LOG" || abort "xdpbrd start" "$(cat "$DAEMON_LOG")"

# beat_age_ms: how old the heartbeat is (CLOCK_MONOTONIC, read before it).
beat_age_ms()
{
	local now beat
	now=$(awk '/^now at/ { print $3; exit }' /proc/timer_list)
	beat=$(bpftool -j map lookup pinned "$PINS/xdpbr_stp_beat" key 0 0 0 0 2>/dev/null |
		jq -r '.formatted.value.beat_ns // empty')
	[ -n "$now" ] && [ -n "$beat" ] || return 1
	echo $(((now > beat ? now - beat : 0) / 1000000))
}

# sample: one look at the loop: the heartbeat's age and the time GET
# /metrics takes, appended to beats and http ("fail": none in 5 s).
sample()
{
	beat_age_ms >>"$XT_TMP/beats" || echo none >>"$XT_TMP/beats"
	ip netns exec "$NS" curl -fsS -o /dev/null --max-time 5 -w '%{time_total}\n' \
		http://127.0.0.1:9638/metrics 2>/dev/null >>"$XT_TMP/http" || echo fail >>"$XT_TMP/http"
}

# in_kernel: how many of 20 of fdbfill's MACs, spread over the N, the
# kernel bridge holds as extern_learn on the gateway's end.
in_kernel()
{
	local i id n=0
	for ((i = 0; i < 20; i++)); do
		id=$((i * (N - 1) / 19))
		bridge -n "$NS" fdb get "$(printf '06:00:%02x:%02x:%02x:%02x' $((id >> 24 & 255)) \
			$((id >> 16 & 255)) $((id >> 8 & 255)) $((id & 255)))" br "$BR-kbr" 2>/dev/null |
			grep -q "dev $BR-gwk .*extern_learn" && n=$((n + 1))
	done
	echo "$n"
}

# worst FILE: the largest number in FILE, or the first word that is none.
worst()
{
	grep -v -E '^[0-9.]+$' "$1" | head -n 1 | grep . || sort -g "$1" | tail -n 1
}

check "the heartbeat is there to watch (STP on)" beat_age_ms
: >"$XT_TMP/beats"
: >"$XT_TMP/http"
check "fdbfill: $N entries on p1" ip netns exec "$NS" "$FDBFILL" "$BR" p1 "$N"
t0=$SECONDS got=0 k=0
while ((SECONDS - t0 < MIRROR_SECS)); do
	sample
	# 20 lookups take a while: every 10th sample, the heartbeat's kept dense
	if ((k++ % 10 == 9)); then
		got=$(in_kernel)
		[ "$got" = 20 ] && break
	fi
	sleep 0.2
done
mirror_s=$((SECONDS - t0))
check_eq "the kernel bridge holds the $N entries (20 of them looked up) within $MIRROR_SECS s" \
	20 "$got"
echo "info: mirrored $N entries in about $mirror_s s, $(wc -l <"$XT_TMP/beats") samples"

ip netns exec "$HNS" "$PKTGEN" -t e0 --src-mac 02:eb:00:00:00:01 --src-macs "$FLOOD_MACS" \
	--dst-mac 02:eb:ff:ff:ff:01 -c 1 -d "$FLOOD_SECS" --warmup 0 -j -q \
	>"$XT_TMP/pktgen.json" 2>"$XT_TMP/pktgen.err" &
gen=$!
XT_PIDS+=("$gen")
while proc_alive "$gen"; do
	sample
	sleep 0.2
done
stop_pid "$gen" TERM 10
check_eq "pktgen flooded $FLOOD_MACS source MACs for $FLOOD_SECS s" 0 "$STOP_RC" \
	"$(cat "$XT_TMP/pktgen.err")"
for ((i = 0; i < 10; i++)); do
	sample
	sleep 0.2
done

beat=$(worst "$XT_TMP/beats") http=$(worst "$XT_TMP/http")
echo "info: heartbeat found up to $beat ms old, /metrics up to $http s, $(wc -l <"$XT_TMP/beats") samples"
check "the heartbeat was never found older than $BEAT_MAX_MS ms (oldest: $beat ms)" \
	test "$beat" -le "$BEAT_MAX_MS"
check "GET /metrics always answered within 1 s (slowest: $http s)" \
	awk -v t="$http" 'BEGIN { exit !(t + 0 < 1 && t != "fail") }'
check "xdpbrd still runs" proc_alive "$DAEMON_PID"
finish

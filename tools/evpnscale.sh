#!/usr/bin/env bash
#
# evpnscale.sh - the EVPN mirror's cost at scale (daemon/evpn.c): xdpbrd
# with a [vxlan] overlay, N local MACs in its FDB (tools/fdbfill), then a
# MAC flood, measured as
#   mirror_s    seconds until the kernel bridge holds 20 of the N spread
#               over the table (`bridge fdb get`; extern_learn on the
#               gateway's end, what zebra advertises); agreed_s: until the
#               daemon's repair pass says the FDBs agree (this version's)
#   steady      the daemon's CPU (ms a second, user + system) over 20 s
#               after that: the upkeep of an unchanging table
#   flood       while pktgen sends from --flood-macs new source MACs for
#               --flood-secs: the daemon's CPU, GET /metrics every 0.2 s
#               (median and slowest, ms; "fail" after 5 s) and the oldest
#               the STP heartbeat was found (sampled with each request: it
#               is written each 100 ms tick of the main loop, so its age
#               is a lower bound of the loop's longest turn)
#
#   tools/evpnscale.sh [--macs N] [--flood-macs N] [--flood-secs S]
#                      [--timeout S] [--json FILE]
#
# One network namespace es$ID-s holds the bridge (ports p1, whose peer is
# q1 beside it, and p2 to host namespace es$ID-h); no FRR: the mirror's
# work is the same without a BGP speaker reading it. BUILD=DIR measures
# the daemon built in DIR (an older tree's, to compare). Needs root, curl,
# bpftool, jq, build/tools/{fdbfill,pktgen}. Cleans up on exit.

set -u
set -o pipefail

cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
TOOLS=${TOOLS:-build/tools}
XDPBRD=$BUILD/xdpbrd
MACS=1000000
FLOOD_MACS=200000
FLOOD_SECS=10
TIMEOUT=600
JSON_OUT=
ID=$(($$ % 10000))
BR=es$ID
NS=es$ID-s
HNS=es$ID-h
TMP=$(mktemp -d /tmp/evpnscale.XXXXXX)
DPID=

while [ $# -gt 0 ]; do
	case $1 in
	--macs) MACS=$2; shift 2 ;;
	--flood-macs) FLOOD_MACS=$2; shift 2 ;;
	--flood-secs) FLOOD_SECS=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--json) JSON_OUT=$2; shift 2 ;;
	*) echo "usage: $0 [--macs N] [--flood-macs N] [--flood-secs S] [--timeout S] [--json FILE]" >&2
	   exit 2 ;;
	esac
done

die()
{
	echo "evpnscale: $*" >&2
	exit 1
}

say()
{
	echo "evpnscale: $*" >&2
}

cleanup()
{
	[ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	for n in "$NS" "$HNS"; do
		ip netns pids "$n" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	done
	[ -n "${COOKIE:-}" ] && rm -rf "/sys/fs/bpf/xdpbr-netns/cookie-$COOKIE" \
		"/run/xdpbr/netns-cookie-$COOKIE"
	[ -n "${INO:-}" ] && rm -rf "/sys/fs/bpf/xdpbr-netns/$INO" "/run/xdpbr/netns-$INO"
	ip netns del "$NS" 2>/dev/null
	ip netns del "$HNS" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

in_ns()
{
	ip netns exec "$NS" "$@"
}

# cpu_ms: the daemon's CPU time so far (user + system), ms.
cpu_ms()
{
	awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }' "/proc/$DPID/stat"
}

# fdbfill_mac I: the MAC of fdbfill's entry I.
fdbfill_mac()
{
	printf '06:%02x:%02x:%02x:%02x:%02x' $(($1 >> 32 & 255)) $(($1 >> 24 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255))
}

# kernel_sample: how many of 20 entries of fdbfill's spread over the table
# the kernel bridge holds as extern_learn on the gateway's end (`bridge fdb
# get`: a dump of a bridge's FDB costs its size squared).
kernel_sample()
{
	local i n=0
	for ((i = 0; i < 20; i++)); do
		bridge -n "$NS" fdb get "$(fdbfill_mac $((i * (MACS - 1) / 19)))" br "$BR-kbr" \
			2>/dev/null | grep -q "dev $BR-gwk .*extern_learn" && n=$((n + 1))
	done
	echo "$n"
}

# agreed: the daemon's repair pass says the FDBs agree, with all N in the
# kernel's picture.
agreed()
{
	grep -o "the FDBs agree ([0-9]* pinned entries, [0-9]* in the kernel" "$TMP/log" |
		awk -v n="$MACS" '$7 >= n { ok = 1 } END { exit !ok }'
}

# beat_age_ms: how old the STP heartbeat the daemon last wrote is, ms
# (CLOCK_MONOTONIC, read before the beat: never older than it is).
beat_age_ms()
{
	local now beat
	now=$(awk '/^now at/ { print $3; exit }' /proc/timer_list)
	beat=$(bpftool -j map lookup pinned \
		"$PINS/xdpbr_stp_beat" key 0 0 0 0 2>/dev/null |
		jq -r '.formatted.value.beat_ns // empty')
	[ -n "$now" ] && [ -n "$beat" ] && echo $(((now > beat ? now - beat : 0) / 1000000))
}

# metrics_ms: GET /metrics, its time in ms, "fail" if it takes over 5 s.
metrics_ms()
{
	in_ns curl -fsS -o /dev/null --max-time 5 -w '%{time_total}\n' \
		http://127.0.0.1:9638/metrics 2>/dev/null | awk '{ printf "%d\n", $1 * 1000 }' |
		grep . || echo fail
}

for t in "$XDPBRD" "$BUILD/xdpbr" "$TOOLS/fdbfill" "$TOOLS/pktgen" "$TOOLS/netnscookie"; do
	[ -x "$t" ] || die "missing: $t (make check-bins)"
done
for t in curl bpftool jq; do
	command -v "$t" >/dev/null || die "missing: $t"
done

ip netns add "$NS" && ip netns add "$HNS" || die "ip netns add"
COOKIE=$("$TOOLS/netnscookie" "/run/netns/$NS") || die "no cookie"
{
	ip -n "$NS" link set dev lo up &&
		ip -n "$NS" link add p1 type veth peer name q1 &&
		ip -n "$NS" link add p2 type veth peer name e0 netns "$HNS" &&
		for l in p1 q1 p2; do ip -n "$NS" link set dev "$l" up || exit 1; done &&
		ip -n "$HNS" link set dev e0 up &&
		in_ns ethtool -K p2 gro on >/dev/null
} || die "links"
cat >"$TMP/conf" <<EOF
[bridge]
name = $BR
fdb_size = $((MACS + FLOOD_MACS + MACS / 10 + 1000))
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
: >"$TMP/log"
ip netns exec "$NS" "$XDPBRD" -c "$TMP/conf" >"$TMP/log" 2>&1 &
DPID=$!
for ((i = 0; i < 300; i++)); do
	grep -q "forwarding on" "$TMP/log" && break
	kill -0 "$DPID" 2>/dev/null || die "xdpbrd ended: $(cat "$TMP/log")"
	sleep 0.1
done
grep -q "forwarding on" "$TMP/log" || die "xdpbrd not forwarding after 30 s: $(cat "$TMP/log")"
# its pins: keyed by the cookie, or by the inode (an older daemon's)
PINS=/sys/fs/bpf/xdpbr-netns/cookie-$COOKIE/$BR
INO=$(stat -L -c %i "/run/netns/$NS")
[ -d "$PINS" ] || PINS=/sys/fs/bpf/xdpbr-netns/$INO/$BR
[ -d "$PINS" ] || die "no pins in $PINS"
say "xdpbrd ($XDPBRD) up; filling $MACS entries"

t0=$SECONDS
in_ns "$TOOLS/fdbfill" "$BR" p1 "$MACS" >/dev/null || die "fdbfill"
mirror_s=timeout agreed_s=null
while ((SECONDS - t0 < TIMEOUT)); do
	[ "$agreed_s" = null ] && agreed && agreed_s=$((SECONDS - t0))
	[ "$mirror_s" = timeout ] && [ "$(kernel_sample)" = 20 ] && mirror_s=$((SECONDS - t0))
	# steady: once this version's pass says so, or a while after an older
	# one's mirror is complete
	[ "$agreed_s" != null ] && [ "$mirror_s" != timeout ] && break
	[ "$mirror_s" != timeout ] && ((SECONDS - t0 > 2 * mirror_s + 30)) && break
	kill -0 "$DPID" 2>/dev/null || die "xdpbrd ended: $(tail -5 "$TMP/log")"
	sleep 1
done
say "mirrored in $mirror_s s (the daemon said they agree after $agreed_s s)"

c0=$(cpu_ms) s0=$SECONDS
sleep 20
steady=$((($(cpu_ms) - c0) / (SECONDS - s0)))
say "steady: $steady ms CPU a second"

say "flood: $FLOOD_MACS source MACs for $FLOOD_SECS s"
ip netns exec "$HNS" "$TOOLS/pktgen" -t e0 --src-mac 02:e5:00:00:00:01 \
	--src-macs "$FLOOD_MACS" --dst-mac 02:e5:ff:ff:ff:01 -c 1 -d "$FLOOD_SECS" \
	--warmup 0 -j -q >"$TMP/pktgen.json" 2>"$TMP/pktgen.err" &
gen=$!
c0=$(cpu_ms) s0=$SECONDS
: >"$TMP/ms"
: >"$TMP/beats"
while kill -0 "$gen" 2>/dev/null; do
	metrics_ms >>"$TMP/ms"
	beat_age_ms >>"$TMP/beats"
	sleep 0.2
done
wait "$gen"
flood_cpu=$((($(cpu_ms) - c0) / (SECONDS - s0 > 0 ? SECONDS - s0 : 1)))
fails=$(grep -c fail "$TMP/ms")
read -r med max n < <(grep -v fail "$TMP/ms" | sort -n |
	awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] + 0, a[NR] + 0, NR }')
gap=$(sort -n "$TMP/beats" | tail -n 1)
sent=$(jq -rs 'last.tx_frames // 0' "$TMP/pktgen.json" 2>/dev/null)
say "flood: $sent frames; daemon $flood_cpu ms CPU a second; /metrics median $med ms," \
	"slowest $max ms of $n ($fails over 5 s); heartbeat found up to $gap ms old"

json=$(jq -n --arg d "$XDPBRD" --argjson macs "$MACS" --arg mirror "$mirror_s" \
	--argjson agreed "$agreed_s" \
	--argjson steady "$steady" --argjson fm "$FLOOD_MACS" --argjson fs "$FLOOD_SECS" \
	--argjson fc "$flood_cpu" --argjson med "$med" --argjson max "$max" --argjson n "$n" \
	--argjson fails "$fails" --argjson gap "${gap:-0}" --argjson sent "${sent:-0}" \
	'{daemon: $d, macs: $macs, mirror_s: $mirror, agreed_s: $agreed,
	  steady_cpu_ms_per_s: $steady,
	  flood: {macs: $fm, secs: $fs, frames: $sent, cpu_ms_per_s: $fc,
		  metrics_ms: {median: $med, max: $max, n: $n, over_5s: $fails},
		  heartbeat_age_max_ms: $gap}}')
echo "$json"
[ -z "$JSON_OUT" ] || echo "$json" >"$JSON_OUT"

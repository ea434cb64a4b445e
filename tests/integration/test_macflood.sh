#!/usr/bin/env bash
# A MAC flooding attack. h4 sends frames from MF_MACS different source MACs
# (default 100,000; the soak runner: 1,000,000) at full rate for MF_SECS
# seconds (pktgen --src-macs, one core), to its own MAC, while h1 pings h2
# every 10 ms and h3 watches for h1 <-> h2 unicast. Three rounds:
#
#   1. limit: `xdpbr bridge set fdb_max_learned MF_MAX` below the FDB's size:
#      the dynamic entries stay within the limit, refused learns are counted
#      as learn_limit;
#   2. full table: no bridge limit, a second range of MACs fills the FDB
#      (xdpbrd --fdb-size MF_FDB_SIZE): it never holds more than its size,
#      refused learns are counted as learn_failed;
#   3. limit during a sweep: as 1, on a table of LONG_FILL entries more
#      (tools/fdbfill), so that each pass of the ageing sweep takes several
#      of its ticks, with the flood started in the middle of one. A pass
#      used to end by writing the counts it had taken, short of what the
#      flood learned behind it, and learning went on past the limit by that.
#
# The limits hold within MARGIN entries: one per CPU but one (CPUs that
# each pass the limit check with room for one more learn each one).
#
# In each: the known hosts' entries (learned before the flood) stay where
# they are, h1 -> h2 loses no ping and its unicast is never flooded (h3 sees
# none of it), the HTTP endpoint answers every request within 100 ms, and
# the daemon's RSS stays below 64 MiB. The figures are printed as "info:"
# lines.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and xt_poll
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks enumerate exactly the ports and FDB entries it made

MACS=${MF_MACS:-100000}
SECS=${MF_SECS:-3}
FDB_SIZE=${MF_FDB_SIZE:-65536}
FDBFILL=$XT_BUILD/tools/fdbfill
FLOOD_BEFORE=
MAX=${MF_MAX:-50000}
LONG_FDB=262144
LONG_FILL=200000
LONG_ROOM=50000
MARGIN=$(($(nproc) - 1))
HTTP_MS=100
RSS_MAX_KIB=$((64 * 1024))

info()
{
	echo "info: $*"
}

# flood KEY SRC_MAC: pktgen in h4, MACS source MACs from SRC_MAC, to h4's
# own MAC (the bridge learns, then drops the frame: same port), SECS at
# full rate on one core, right after FLOOD_BEFORE (a command, if set)
# returns. While it runs: GET /stats every 0.1 s (slowest answer in
# HTTP_WORST, answers over HTTP_MS in HTTP_SLOW) and `bridge show` every
# 0.5 s (largest fdb_entries in FDB_PEAK, of FDB_SAMPLES reads that gave a
# number). PK_FRAMES, PK_MPPS: what pktgen sent.
flood()
{
	local key=$1 src=$2 pid ms n k=0 out
	out=$XT_TMP/pktgen.${key// /_}
	HTTP_WORST=0 HTTP_SLOW=0 HTTP_N=0 FDB_PEAK=0 FDB_SAMPLES=0 PK_FRAMES=0 PK_MPPS=0

	$FLOOD_BEFORE
	ip netns exec "${NS[4]}" "$PKTGEN" -t e0 --src-mac "$src" --src-macs "$MACS" \
		--dst-mac "${MAC[4]}" -c 1 -d "$SECS" --warmup 0 -j -q \
		>"$out.json" 2>"$out.err" &
	pid=$!
	XT_PIDS+=("$pid")
	while proc_alive "$pid"; do
		ms=$(flt_http_ms "$(obs_url /stats)")
		HTTP_N=$((HTTP_N + 1))
		if [ "$ms" = fail ]; then
			HTTP_SLOW=$((HTTP_SLOW + 1))
			HTTP_WORST=fail
		else
			((ms > HTTP_MS)) && HTTP_SLOW=$((HTTP_SLOW + 1))
			[ "$HTTP_WORST" != fail ] && ((ms > HTTP_WORST)) && HTTP_WORST=$ms
		fi
		if ((k++ % 5 == 0)); then
			n=$(flt_bridge_json 2>/dev/null | jq -r '.fdb_entries // empty')
			if [[ $n =~ ^[0-9]+$ ]]; then
				FDB_SAMPLES=$((FDB_SAMPLES + 1))
				((n > FDB_PEAK)) && FDB_PEAK=$n
			fi
		fi
		sleep 0.1
	done
	stop_pid "$pid" TERM $((SECS + 30))
	if [ "$STOP_RC" = 0 ]; then
		PK_FRAMES=$(jq -rs 'last.tx_frames // 0' "$out.json" 2>/dev/null)
		PK_MPPS=$(jq -rs 'last.tx_pps // 0 | . / 1e6 * 100 | floor / 100' "$out.json" 2>/dev/null)
		pass "$key: pktgen sent ${PK_FRAMES:-?} frames from $MACS source MACs in ${SECS} s (${PK_MPPS:-?} Mpps)"
	else
		fail "$key: pktgen ran" "exit status $STOP_RC" "$(cat "$out.err" "$out.json")"
	fi
}

# round KEY SRC_MAC LIMIT COUNTER: one flood and its checks. LIMIT: the
# most entries the FDB may hold; COUNTER: the refused-learn counter that
# must grow (learn_limit or learn_failed).
round()
{
	local key=$1 src=$2 limit=$3 counter=$4 rss0 rss1 c0 c1 bj n seen out

	rss0=$(flt_rss_kib "$DAEMON_PID")
	c0=$(flt_bridge_counter "$counter")
	pfx_ping_start "$key" 1 2 0.01
	pfx_cap "$key" 3 "ether host ${MAC[1]} and ether host ${MAC[2]} and not broadcast" \
		$((SECS + 8)) || fail "$key: capture in h3" "$XT_WHY"
	flood "$key" "$src"
	sleep 0.5
	pfx_ping_stop "$key"
	seen=$(pfx_cap_n "$key")
	rss1=$(flt_rss_kib "$DAEMON_PID")
	c1=$(flt_bridge_counter "$counter")
	bj=$(flt_bridge_json 2>&1)
	n=$(jq -r '.fdb_entries' <<<"$bj" 2>/dev/null)
	info "$key: fdb_entries $n (peak seen during the flood $FDB_PEAK, limit $limit," \
		"fdb_size $FDB_SIZE); $counter $c0 -> $c1; HTTP worst ${HTTP_WORST} ms of" \
		"$HTTP_N requests; RSS ${rss0} -> ${rss1} KiB; pktgen $PK_FRAMES frames," \
		"$PK_MPPS Mpps"

	check_jq "$key: bridge show: fdb_entries <= $limit" "$bj" \
		'.fdb_entries <= $l and .fdb_entries <= .fdb_size' --argjson l "$limit"
	# Sampled every 0.5 s while the flood ran for SECS: without samples
	# the peak would be 0 and prove nothing.
	if ((FDB_SAMPLES >= 2 && FDB_PEAK <= limit)); then
		pass "$key: fdb_entries never above $limit while flooding (peak $FDB_PEAK, $FDB_SAMPLES samples)"
	else
		fail "$key: fdb_entries never above $limit while flooding (2 samples or more)" \
			"peak: $FDB_PEAK of $FDB_SAMPLES samples"
	fi
	if [[ $n =~ ^[0-9]+$ ]] && ((n >= limit * 9 / 10)); then
		pass "$key: the flood filled the FDB up to its limit ($n of $limit)"
	else
		fail "$key: the flood filled the FDB up to its limit" "fdb_entries $n, limit $limit" "$bj"
	fi
	if [[ $c0 =~ ^[0-9]+$ && $c1 =~ ^[0-9]+$ ]] && ((c1 > c0)); then
		pass "$key: refused learns counted as $counter ($c0 -> $c1)"
	else
		fail "$key: refused learns counted as $counter" "$c0 -> $c1" \
			"$("$XDPBR" -b "$BR" stats 2>&1)"
	fi
	for i in 1 2 3; do
		check "$key: h$i's entry kept on ${PORT[i]}" fdb_has "${MAC[i]}" "${PORT[i]}" ""
	done
	check_eq "$key: no h1 <-> h2 unicast flooded to h3 during the flood" 0 "$seen" \
		"$(cap_show "$key" | head -n 20)"
	if out=$(pfx_ping_check "$key" 20); then
		pass "$key: ping h1 -> h2 every 10 ms lost nothing ($(head -n 1 <<<"$out"))"
	else
		fail "$key: ping h1 -> h2 every 10 ms lost nothing" "$out"
	fi
	if [ "$HTTP_SLOW" = 0 ] && ((HTTP_N >= 5)); then
		pass "$key: GET /stats answered within $HTTP_MS ms during the flood (worst $HTTP_WORST ms, $HTTP_N requests)"
	else
		fail "$key: GET /stats answered within $HTTP_MS ms during the flood" \
			"$HTTP_SLOW of $HTTP_N requests slower or failed; worst: $HTTP_WORST ms"
	fi
	if [[ $rss1 =~ ^[0-9]+$ ]] && ((rss1 < RSS_MAX_KIB)); then
		pass "$key: xdpbrd RSS bounded (${rss0} -> ${rss1} KiB < $RSS_MAX_KIB)"
	else
		fail "$key: xdpbrd RSS bounded (< $RSS_MAX_KIB KiB)" "${rss0} -> ${rss1:-gone}"
	fi
	check "$key: xdpbrd still runs" flt_daemon_alive
	# the counts the limits are checked against agree with the table
	n=$(jq -r '"\(.learned) \(.fdb_dynamic)"' <<<"$bj" 2>/dev/null)
	if [[ $n =~ ^([0-9]+)\ ([0-9]+)$ ]] &&
		((BASH_REMATCH[1] - BASH_REMATCH[2] <= MARGIN &&
		  BASH_REMATCH[2] - BASH_REMATCH[1] <= MARGIN)); then
		pass "$key: bridge show: learned (${BASH_REMATCH[1]}) is fdb_dynamic (${BASH_REMATCH[2]}), within $MARGIN"
	else
		fail "$key: bridge show: learned is fdb_dynamic, within $MARGIN" "$bj"
	fi
}

# sweep_mid: returns in the middle of a pass of the daemon's ageing sweep
# over the LONG_FILL entries (several ticks of 250 ms): 0.3 s after the
# next end of a pass that its log (-v) tells.
sweep_mid()
{
	local n
	n=$(grep -c "sweep of " "$DAEMON_LOG")
	xt_poll 5 eval '[ "$(grep -c "sweep of " "$DAEMON_LOG")" -gt "$n" ]' ||
		fail "a pass of the ageing sweep ended within 5 s" "$(tail -n 5 "$DAEMON_LOG")"
	sleep 0.3
}

xt_require
xt_need curl ss:iproute2
[ -x "$PKTGEN" ] || abort "$PKTGEN not built (make $PKTGEN)"
[ -x "$FDBFILL" ] || abort "$FDBFILL not built (make check-bins)"
((MAX < FDB_SIZE)) || abort "MF_MAX ($MAX) must be below MF_FDB_SIZE ($FDB_SIZE)"
((MACS > LONG_ROOM)) || abort "MF_MACS ($MACS) must be above $LONG_ROOM"
topo_up 4
# pktgen transmits XDP frames (BPF_PROG_RUN live frames) out of h4's e0: a
# veth delivers those only to a peer that runs NAPI. On the XDP path the
# bridge's program on the port is that; on the skb path GRO on the port is.
# (The generator's need, not the bridge's: containers send skbs.)
if [ "$XT_DATAPATH" != xdp ]; then
	ethtool -K "${PORT[4]}" gro on >/dev/null || abort "GRO on ${PORT[4]} for pktgen"
fi
hosts_quiet || abort "hosts_quiet"
obs_daemon_http -s "$FDB_SIZE" || abort "xdpbrd --fdb-size $FDB_SIZE start" "$XT_WHY"
check "bridge set fdb_max_learned $MAX" "$XDPBR" -b "$BR" bridge set fdb_max_learned "$MAX"
for i in 1 2 3 4; do
	for j in 1 2 3 4; do
		[ "$i" = "$j" ] && continue
		hping "$i" "$j" >/dev/null || abort "warm-up ping h$i -> h$j"
	done
done
check_jq "before: bridge show: 4 entries, fdb_size $FDB_SIZE, fdb_max_learned $MAX" \
	"$(flt_bridge_json 2>&1)" \
	'.fdb_entries == 4 and .fdb_size == $s and .fdb_max_learned == $m' \
	--argjson s "$FDB_SIZE" --argjson m "$MAX"

# The flooding MACs: 02:0f:II:II:R0:00 and up, R the round.
base=$(printf '02:0f:%02x:%02x' $((ID >> 8)) $((ID & 255)))
round "limit" "$base:10:00" "$((MAX + MARGIN))" learn_limit
info "limit: overshoot $(($(jq -r .fdb_dynamic <<<"$(flt_bridge_json)") - MAX)) entries" \
	"over fdb_max_learned $MAX (margin $MARGIN)"

check "bridge set fdb_max_learned 0 (no bridge limit)" \
	"$XDPBR" -b "$BR" bridge set fdb_max_learned 0
round "full table" "$base:20:00" "$FDB_SIZE" learn_failed

# --- round 3: a bridge of LONG_FDB entries, LONG_FILL of them filled
FDB_SIZE=$LONG_FDB
daemon_stop
obs_daemon_http -v -s "$LONG_FDB" || abort "xdpbrd --fdb-size $LONG_FDB start" "$XT_WHY"
for i in 1 2 3 4; do
	for j in 1 2 3 4; do
		[ "$i" = "$j" ] || hping "$i" "$j" >/dev/null || abort "warm-up ping h$i -> h$j"
	done
done
check "fdbfill: $LONG_FILL entries on ${PORT[3]}" "$FDBFILL" "$BR" "${PORT[3]}" "$LONG_FILL"
n=$(jq -r .fdb_dynamic <<<"$(flt_bridge_json)")
[[ $n =~ ^[0-9]+$ ]] || abort "bridge show: fdb_dynamic" "$(flt_bridge_json 2>&1)"
LONG_MAX=$((n + LONG_ROOM))
check "bridge set fdb_max_learned $LONG_MAX ($n entries and room for $LONG_ROOM)" \
	"$XDPBR" -b "$BR" bridge set fdb_max_learned "$LONG_MAX"
FLOOD_BEFORE=sweep_mid
round "limit during a sweep" "$base:30:00" "$((LONG_MAX + MARGIN))" learn_limit
FLOOD_BEFORE=
info "limit during a sweep: overshoot" \
	"$(($(jq -r .fdb_dynamic <<<"$(flt_bridge_json)") - LONG_MAX)) entries over" \
	"fdb_max_learned $LONG_MAX (margin $MARGIN)"

finish

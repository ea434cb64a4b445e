#!/usr/bin/env bash
# Faults while traffic flows. h1 -> h2 runs an iperf3 TCP test and a ping
# every 10 ms across each fault, and neither may notice:
#
#   a. the daemon is killed (SIGKILL) and started again with the same
#      arguments: no ping lost, iperf3 completes, the FDB is unchanged and
#      no rx_packets counter goes backwards;
#   b. an upgrade: the daemon (--keep) is stopped and a new one started; it
#      loads a new program instance and replaces it atomically on every port
#      (the XDP program id of each port changes), keeping the maps;
#   c. h4's port is deleted and h3's port goes down and up: h1 <-> h2 never
#      stops, the daemon stays up, link show follows;
#   d. the bridge's pins are removed by hand (rm -rf): the daemon pins its
#      maps again within a few seconds, the CLI works again, forwarding never
#      stopped;
#   e. only with FLT_UNMOUNT=1, which only the soak runner sets (it runs this
#      script in a private mount namespace, see tests/soak/run.sh): bpffs is
#      unmounted: the daemon logs how to mount it again and keeps
#      forwarding; once mounted again it pins the bridge again.
#
# Environment (the soak runner makes the run longer): FLT_SECS seconds of
# iperf3 per scenario (default 3), FLT_ROUNDS rounds of a and b (default 1).
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and xt_poll
. "$(dirname "$0")/lib.sh"

SECS=${FLT_SECS:-3}
ROUNDS=${FLT_ROUNDS:-1}
UNMOUNT=${FLT_UNMOUNT:-0}
REPIN_RE='pins of bridge .* were removed: pinned its maps'

# replies_at_least N FILE
replies_at_least()
{
	[ "$(grep -c 'bytes from' "$2")" -ge "$1" ]
}

# traffic_start KEY: ping h1 -> h2 every 10 ms and iperf3 h1 -> h2 for
# SECS, both running (20 replies seen) when it returns.
traffic_start()
{
	pfx_ping_start "$1" 1 2 0.01
	flt_iperf_start "$1" 1 2 "$SECS" || fail "$1: iperf3 server in h2" "$XT_WHY"
	xt_poll 5 replies_at_least 20 "$XT_TMP/ping.$1.out" ||
		fail "$1: ping h1 -> h2 runs before the fault" "$(tail -n 5 "$XT_TMP/ping.$1.out")"
}

# traffic_end KEY: iperf3 must complete, the ping must have lost nothing.
traffic_end()
{
	local key=$1 out
	if flt_iperf_wait "$key" $((SECS + 20)); then
		pass "$key: iperf3 h1 -> h2 completed across the fault ($FLT_IPERF_MBPS Mbit/s)"
	else
		fail "$key: iperf3 h1 -> h2 completed across the fault" \
			"exit status: $FLT_IPERF_RC" "$(flt_iperf_show "$key")"
	fi
	pfx_ping_stop "$key"
	if out=$(pfx_ping_check "$key" 50); then
		pass "$key: ping h1 -> h2 every 10 ms lost nothing ($(head -n 1 <<<"$out"))"
	else
		fail "$key: ping h1 -> h2 every 10 ms lost nothing" "$out"
	fi
}

# ids_all_changed BEFORE: every port of $PORTS runs an XDP program whose id
# differs from its id in BEFORE (a flt_prog_ids result), all the same one.
ids_all_changed()
{
	local before=$1 p id old first=
	for p in "${PORTS[@]}"; do
		id=$(port_prog_id "$p")
		old=$(tr ' ' '\n' <<<"$before" | sed -n "s/^$p://p")
		[ -n "$id" ] && [ "$id" != "$old" ] || return 1
		first=${first:-$id}
		[ "$id" = "$first" ] || return 1
	done
}

# log_count REGEX: lines of the daemon's log matching REGEX.
log_count()
{
	grep -ciE "$1" "$DAEMON_LOG"
}

# repinned_since N: the daemon logged the re-pin more than N times.
repinned_since()
{
	[ "$(log_count "$REPIN_RE")" -gt "$1" ]
}

# fdb_is SNAPSHOT: the CLI reads the FDB, and it is SNAPSHOT (a failed
# read never equals one: flt_fdb_snapshot then prints nothing).
fdb_is()
{
	local s
	s=$(flt_fdb_snapshot 2>/dev/null) && [ -n "$s" ] && [ "$s" = "$1" ]
}

# scenario_kill R
scenario_kill()
{
	local k=a$1 fdb0 rx0
	fdb0=$(flt_fdb_snapshot 2>&1)
	rx0=$(flt_rx_all 2>&1)
	traffic_start "$k"
	sleep 0.3
	daemon_stop KILL
	check_eq "$k: xdpbrd killed by SIGKILL (exit status 137)" 137 "$DAEMON_RC"
	daemon_start "${DARGS[@]}" || abort "$k: xdpbrd restart after SIGKILL" "$XT_WHY"
	if log_poll "$DAEMON_LOG" adopt 5; then
		pass "$k: the restarted xdpbrd adopted the pinned bridge"
	else
		fail "$k: the restarted xdpbrd adopted the pinned bridge" "$(cat "$DAEMON_LOG")"
	fi
	traffic_end "$k"
	check_same_json "$k: FDB unchanged (mac, ifname, vlan, state)" "$fdb0" \
		"$(flt_fdb_snapshot 2>&1)"
	flt_check_rx_kept "$k: no rx_packets counter went backwards" "$rx0" "$(flt_rx_all 2>&1)"
}

# scenario_upgrade R: stop the --keep daemon, start the new one.
scenario_upgrade()
{
	local k=b$1 fdb0 rx0 ids0 ids_mid
	fdb0=$(flt_fdb_snapshot 2>&1)
	rx0=$(flt_rx_all 2>&1)
	ids0=$(flt_prog_ids)
	traffic_start "$k"
	sleep 0.3
	daemon_stop TERM
	check_eq "$k: the old xdpbrd (--keep) exits 0 on SIGTERM" 0 "$DAEMON_RC" \
		"$(cat "$DAEMON_LOG")"
	ids_mid=$(flt_prog_ids)
	check_same_match "$k: with no daemon, every port keeps its program" \
		"([^ :]+:[0-9]+ )+" "$ids0" "$ids_mid"
	daemon_start "${DARGS[@]}" || abort "$k: the new xdpbrd" "$XT_WHY"
	if pfx_poll 5 ids_all_changed "$ids0"; then
		pass "$k: every port runs the new program instance ($ids0-> $(flt_prog_ids))"
	else
		fail "$k: every port runs the new program instance" \
			"before: $ids0" "after:  $(flt_prog_ids)" "$(cat "$DAEMON_LOG")"
	fi
	check "$k: the new xdpbrd says it adopted the bridge" grep -qi adopt "$DAEMON_LOG"
	traffic_end "$k"
	check_same_json "$k: fdb show identical after the upgrade" "$fdb0" \
		"$(flt_fdb_snapshot 2>&1)"
	flt_check_rx_kept "$k: no rx_packets counter went backwards" "$rx0" "$(flt_rx_all 2>&1)"
}

scenario_ports()
{
	local k=c
	traffic_start "$k"
	check "$k: ip link del ${PORT[4]} (h4's port)" ip link del dev "${PORT[4]}"
	if pfx_poll 3 pfx_unlisted "${PORT[4]}"; then
		pass "$k: link show no longer lists ${PORT[4]}"
	else
		fail "$k: link show no longer lists ${PORT[4]} (within 3 s)" "$(pfx_link_json 2>&1)"
	fi
	check "$k: xdpbrd still runs after the port was deleted (kill -0)" flt_daemon_alive
	check "$k: ip link set ${PORT[3]} down" ip link set dev "${PORT[3]}" down
	if pfx_poll 3 pfx_link_is "${PORT[3]}" state '"disabled"'; then
		pass "$k: link show: ${PORT[3]} disabled"
	else
		fail "$k: link show: ${PORT[3]} disabled (within 3 s)" "$(pfx_link_json 2>&1)"
	fi
	check_fail "$k: ping h1 -> h3 fails while its port is down" hping 1 3
	check "$k: ip link set ${PORT[3]} up" ip link set dev "${PORT[3]}" up
	# With STP a port that comes up discards until RSTP finds it an edge
	# port, hearing no BPDU for its migrate time (3 s): that on top.
	local up_secs=3
	[ "${XT_STP:-off}" = on ] && up_secs=6
	if pfx_poll "$up_secs" pfx_link_is "${PORT[3]}" state '"forwarding"'; then
		pass "$k: link show: ${PORT[3]} forwarding again"
	else
		fail "$k: link show: ${PORT[3]} forwarding again (within $up_secs s)" \
			"$(pfx_link_json 2>&1)"
	fi
	check "$k: ping h1 -> h3 again (within 5 s)" pfx_poll 5 hping 1 3
	traffic_end "$k"
	check "$k: xdpbrd still runs (kill -0)" flt_daemon_alive
	check_jq "$k: link show lists the 3 remaining ports" "$(pfx_link_json 2>&1)" \
		'(map(select(.host_interface == null) | .ifname) | sort) == ([$a, $b, $c] | sort)' \
		--arg a "${PORT[1]}" --arg b "${PORT[2]}" --arg c "${PORT[3]}"
	PORTS=("${PORT[1]}" "${PORT[2]}" "${PORT[3]}")
}

scenario_pins()
{
	local k=d fdb0 n0 rx0
	fdb0=$(flt_fdb_snapshot 2>&1)
	rx0=$(flt_rx_all 2>&1)
	n0=$(log_count "$REPIN_RE")
	traffic_start "$k"
	check "$k: rm -rf $PIN_DIR" rm -rf "$PIN_DIR"
	if xt_poll 5 repinned_since "$n0"; then
		pass "$k: xdpbrd logs that it pinned the maps again (within 5 s)"
	else
		fail "$k: xdpbrd logs that it pinned the maps again (within 5 s)" "$(cat "$DAEMON_LOG")"
	fi
	check "$k: fdb show works again and is unchanged" pfx_poll 5 fdb_is "$fdb0"
	check "$k: $PIN_DIR/xdpbr_fdb is pinned again" test -e "$PIN_DIR/xdpbr_fdb"
	traffic_end "$k"
	flt_check_rx_kept "$k: counters kept across the re-pin" "$rx0" "$(flt_rx_all 2>&1)"
	check "$k: xdpbrd still runs (kill -0)" flt_daemon_alive
}

scenario_unmount()
{
	local k=e fdb0 n0
	if [ "$(readlink /proc/self/ns/mnt)" = "$(readlink /proc/1/ns/mnt)" ]; then
		fail "$k: FLT_UNMOUNT=1 needs a private mount namespace (unshare -m; see tests/soak/run.sh): not unmounting the machine's bpffs"
		return
	fi
	fdb0=$(flt_fdb_snapshot 2>&1)
	n0=$(log_count "$REPIN_RE")
	traffic_start "$k"
	check "$k: umount /sys/fs/bpf (private mount namespace)" umount /sys/fs/bpf
	if log_poll "$DAEMON_LOG" "mount -t bpf bpf /sys/fs/bpf" 5; then
		pass "$k: xdpbrd logs how to mount bpffs again"
	else
		fail "$k: xdpbrd logs how to mount bpffs again (within 5 s)" "$(cat "$DAEMON_LOG")"
	fi
	sleep 1
	check "$k: xdpbrd still runs with bpffs unmounted (kill -0)" flt_daemon_alive
	check_eq "$k: the hint is logged once" 1 "$(log_count 'mount -t bpf bpf')"
	check "$k: mount -t bpf bpf /sys/fs/bpf" mount -t bpf bpf /sys/fs/bpf
	if xt_poll 5 repinned_since "$n0"; then
		pass "$k: xdpbrd pinned the bridge again in the new bpffs"
	else
		fail "$k: xdpbrd pinned the bridge again in the new bpffs" "$(cat "$DAEMON_LOG")"
	fi
	check "$k: fdb show works again and is unchanged" pfx_poll 5 fdb_is "$fdb0"
	traffic_end "$k"
	check "$k: xdpbrd still runs (kill -0)" flt_daemon_alive
}

xt_require
xt_need iperf3 bpftool ss:iproute2
topo_up 4
hosts_quiet || abort "hosts_quiet"
flt_hosts_csum_off || abort "ethtool -K e0 tx off in the hosts"
DARGS=(-l none --keep -s 4096)
daemon_start "${DARGS[@]}" || abort "xdpbrd start" "$XT_WHY"
for i in 1 2 3 4; do
	for j in 1 2 3 4; do
		[ "$i" = "$j" ] && continue
		hping "$i" "$j" >/dev/null || abort "warm-up ping h$i -> h$j"
	done
done
check_jq "FDB: the 4 hosts (and the host interface's own address)" "$(fdb_json 2>&1)" \
	'[.[] | select(.state != "permanent")] | length == 4'

for ((r = 1; r <= ROUNDS; r++)); do
	scenario_kill "$r"
	scenario_upgrade "$r"
done
scenario_ports
scenario_pins
[ "$UNMOUNT" = 1 ] && scenario_unmount

finish

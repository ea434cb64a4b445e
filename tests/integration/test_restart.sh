#!/usr/bin/env bash
# Restarting the daemon does not disturb the bridge: after `kill -9` (and
# after SIGTERM with --keep) the ports keep forwarding, and a new xdpbrd with
# the same arguments adopts the pinned state (FDB, counters, settings) and
# replaces the program on each port atomically. A ping flood h1 -> h2
# (100 per second) runs across each restart and must lose nothing.
#
# The hosts are kept quiet (no IPv6, permanent ARP entries) so the FDB only
# changes through the test's own traffic.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check / xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

COUNT=1000	# pings at 10 ms: about 10 s, much longer than a restart

# rx_all: rx_packets of every port, space-separated, in port order.
rx_all()
{
	local p
	for p in "${PORTS[@]}"; do
		printf '%s ' "$(port_counter "$p" rx_packets)"
	done
}

# ports_run_pinned_prog: every port runs the datapath program pinned in
# $PIN_DIR ($DP_PROG as $DP_PIN; prints what differs).
ports_run_pinned_prog()
{
	local p id pinned name rc=0
	pinned=$(bpftool -j prog show pinned "$PIN_DIR/$DP_PIN" 2>&1 | jq -r '.id')
	for p in "${PORTS[@]}"; do
		id=$(port_prog_id "$p")
		name=$(port_prog_name "$p")
		if [ "$id" != "$pinned" ] || [ "$name" != "$DP_PROG" ]; then
			echo "$p: program ${id:-none} ($name), pinned $DP_PIN: $pinned"
			rc=1
		fi
	done
	return "$rc"
}

# replies_at_least N FILE: ping's output FILE shows N replies or more.
replies_at_least()
{
	[ "$(grep -c 'bytes from' "$2")" -ge "$1" ]
}

# restart LABEL SIGNAL [OPTION...]: with a ping flood h1 -> h2 running, stop
# the daemon with SIGNAL, start it again with OPTION..., and check that the
# new one adopted the bridge, nothing was lost and the state is unchanged.
restart()
{
	local label=$1 sig=$2 want_rc ping_pid out=$XT_TMP/ping.$1.out
	local fdb0 fdb1 rx0 rx1 ids0 ids1 line tx rx a b p i
	shift 2
	[ "$sig" = KILL ] && want_rc=137 || want_rc=0

	fdb0=$(flt_fdb_snapshot 2>&1)
	read -ra rx0 <<<"$(rx_all)"
	ids0=$(for p in "${PORTS[@]}"; do port_prog_id "$p"; done | tr '\n' ' ')

	ip netns exec "${NS[1]}" ping -i 0.01 -c "$COUNT" -w 60 "${IP4[2]}" >"$out" 2>&1 &
	ping_pid=$!
	XT_PIDS+=("$ping_pid")
	if ! xt_poll 10 replies_at_least 50 "$out"; then
		fail "$label: ping flood h1 -> h2 is running" "$(tail -5 "$out")"
	fi

	daemon_stop "$sig"
	check_eq "$label: xdpbrd stopped by SIG$sig, exit status $want_rc" "$want_rc" \
		"$DAEMON_RC" "$(cat "$DAEMON_LOG")"
	check "$label: the datapath still on every port with no daemon" xdp_everywhere
	check "$label: pins still in $PIN_DIR" test -e "$PIN_DIR/xdpbr_fdb"
	daemon_start "$@" || abort "$label: xdpbrd $* restart" "$XT_WHY"
	if log_poll "$DAEMON_LOG" 'adopt' 10; then
		pass "$label: the new xdpbrd says it adopted the bridge"
	else
		fail "$label: the new xdpbrd says it adopted the bridge" \
			"its log: $(cat "$DAEMON_LOG")"
	fi
	if proc_alive "$ping_pid"; then
		pass "$label: the restart happened while the ping flood ran"
	else
		fail "$label: the restart happened while the ping flood ran" \
			"ping ended first: $(tail -3 "$out")"
	fi
	wait "$ping_pid"
	line=$(grep 'packets transmitted' "$out")
	tx=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' <<<"$line")
	rx=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$line")
	if [ -n "$tx" ] && [ "$tx" = "$rx" ] && [ "$tx" -eq "$COUNT" ]; then
		pass "$label: $COUNT pings across the restart, none lost ($line)"
	else
		fail "$label: $COUNT pings across the restart, none lost" \
			"${line:-no summary}" "$(grep -v 'bytes from' "$out" | tail -5)"
	fi

	fdb1=$(flt_fdb_snapshot 2>&1)
	check_same_json "$label: FDB (mac, ifname, vlan, state) unchanged" "$fdb0" "$fdb1" \
		"pins: $(cd "$PIN_DIR" 2>&1 && echo *)" "xdpbrd log: $(cat "$DAEMON_LOG")"
	read -ra rx1 <<<"$(rx_all)"
	for i in "${!PORTS[@]}"; do
		a=${rx0[i]:-x}
		b=${rx1[i]:-y}
		if [[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ ]] && ((b >= a)); then
			pass "$label: rx_packets on ${PORTS[i]} did not go backwards ($a -> $b)"
		else
			fail "$label: rx_packets on ${PORTS[i]} did not go backwards" "$a -> $b"
		fi
	done
	a=${rx0[0]:-0}
	b=${rx1[0]:-0}
	if [[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ ]] && ((b - a >= COUNT)); then
		pass "$label: rx_packets on ${PORTS[0]} counts the $COUNT requests ($a -> $b)"
	else
		fail "$label: rx_packets on ${PORTS[0]} counts the $COUNT requests" "$a -> $b"
	fi
	ids1=$(for p in "${PORTS[@]}"; do port_prog_id "$p"; done | tr '\n' ' ')
	check "$label: every port runs the pinned $DP_PIN (ids $ids0-> $ids1)" \
		ports_run_pinned_prog
	check_eq "$label: bridge show ageing_time kept" 120 "$(bridge_field ageing_time 2>&1)"
	check_eq "$label: bridge show fdb_max_learned kept" 100 \
		"$(bridge_field fdb_max_learned 2>&1)"
	check_jq "$label: link show ${PORTS[2]}: max_learned 50 kept" \
		"$("$XDPBR" -b "$BR" -j link show dev "${PORTS[2]}" 2>&1)" \
		'.[0].max_learned == 50'
}

xt_require
xt_need bpftool
PIN_PROG_RX=$(sed -n 's/^#define XDPBR_PIN_PROG_RX[[:space:]]*"\([a-z_]*\)".*/\1/p' "$XDPBR_H")
[ -n "$PIN_PROG_RX" ] || abort "reading XDPBR_PIN_PROG_RX from $XDPBR_H"
topo_up 3
hosts_quiet || abort "hosts_quiet"
daemon_start || abort "xdpbrd start" "$XT_WHY"
check "xdpbrd: the first start loaded a new bridge (no 'adopt' in its log)" \
	test "$(grep -ci adopt "$DAEMON_LOG")" = 0
check "ping h1 -> h2" hping 1 2
check "ping h3 -> h1" hping 3 1
check "fdb add $(test_mac 1) dev ${PORTS[2]} static" \
	"$XDPBR" -b "$BR" fdb add "$(test_mac 1)" dev "${PORTS[2]}" static
check "bridge set ageing_time 120 fdb_max_learned 100" \
	"$XDPBR" -b "$BR" bridge set ageing_time 120 fdb_max_learned 100
check "link set dev ${PORTS[2]} max_learned 50" \
	"$XDPBR" -b "$BR" link set dev "${PORTS[2]}" max_learned 50
check_jq "FDB: h1, h2, h3 and the static entry, and the host interface's own" \
	"$(fdb_json 2>&1)" '([.[] | select(.state != "permanent")] | length) == 4 and
	 ([.[] | select(.state == "permanent" and .ifname == $h)] | length) == 1' \
	--arg h "$BR-host"

restart "kill -9, restart" KILL

# Hand over to a --keep daemon (one more adoption), then SIGTERM it.
daemon_stop KILL
daemon_start --keep || abort "xdpbrd --keep start" "$XT_WHY"
log_poll "$DAEMON_LOG" 'adopt' 10 ||
	fail "xdpbrd --keep after kill -9 says it adopted" "$(cat "$DAEMON_LOG")"
restart "--keep, SIGTERM, restart" TERM --keep

finish

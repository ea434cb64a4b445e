#!/usr/bin/env bash
# Link events the daemon follows over netlink, while h1 and h3 ping each
# other without a pause: a port taken down (ip link set down), or whose
# peer goes down (no carrier), is disabled: link show says so, its learned
# entries are flushed, floods no longer go out of it; up again, it forwards
# again. A port deleted (ip link del) leaves the bridge cleanly and the
# daemon keeps running; created again under the same name (a port of the
# command line), it joins again.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and pfx_poll
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks enumerate exactly the ports and FDB entries it made

BC=ff:ff:ff:ff:ff:ff

# no_dynamic PORT: the FDB has no dynamic entry on PORT.
no_dynamic()
{
	[ "$(pfx_fdb_count "$1" "")" = 0 ]
}

# bcast_round KEY: h1 broadcasts one 0x88b5 frame; h3 (capture KEY) must
# see it, which also means the bridge is done with it. Sets TX2_BEFORE to
# tx_packets of h2's port just before.
bcast_round()
{
	local key=$1
	TX2_BEFORE=$(port_counter "${PORT[2]}" tx_packets)
	pfx_cap "$key" 3 "ether proto 0x88b5 and ether src ${MAC[1]}" 3 1 ||
		fail "capture in h3 ($key)" "$XT_WHY"
	pfx_send 1 "$BC" || fail "sendframe broadcast from h1 ($key)"
	check_eq "$key: h1's broadcast reaches h3 (control)" 1 "$(pfx_cap_n "$key")" \
		"$(cap_show "$key")"
}

# port_down PHASE: h2's port is out of service (after P2 or h2's e0 went down).
port_down()
{
	local phase=$1
	if pfx_poll 3 pfx_link_is "${PORT[2]}" state '"disabled"'; then
		pass "$phase: link show: ${PORT[2]} state disabled"
	else
		fail "$phase: link show: ${PORT[2]} state disabled (within 3 s)" \
			"$(pfx_link_json "${PORT[2]}" 2>&1)"
	fi
	if pfx_poll 3 no_dynamic "${PORT[2]}"; then
		pass "$phase: no dynamic FDB entry left on ${PORT[2]}"
	else
		fail "$phase: no dynamic FDB entry left on ${PORT[2]} (within 3 s)" \
			"$("$XDPBR" -b "$BR" fdb show 2>&1)"
	fi
	bcast_round "bc_$2"
	check_same "$phase: the broadcast is not transmitted on ${PORT[2]} (tx_packets unchanged)" \
		"$TX2_BEFORE" "$(port_counter "${PORT[2]}" tx_packets)" \
		"$("$XDPBR" -b "$BR" -j stats dev "${PORT[2]}" 2>&1)"
	check_fail "$phase: ping h1 -> h2 fails" hping 1 2
	pfx_check_daemon "$phase: the daemon runs"
}

# port_up PHASE KEY: h2's port is back in service.
port_up()
{
	local phase=$1
	if pfx_poll 3 pfx_link_is "${PORT[2]}" state '"forwarding"'; then
		pass "$phase: link show: ${PORT[2]} state forwarding"
	else
		fail "$phase: link show: ${PORT[2]} state forwarding (within 3 s)" \
			"$(pfx_link_json "${PORT[2]}" 2>&1)"
	fi
	check "$phase: ping h1 -> h2 (within 5 s)" pfx_poll 5 hping 1 2
	check "$phase: ping h2 -> h3" hping 2 3
	check "$phase: fdb show: h2 learned on ${PORT[2]} again" \
		pfx_fdb_has "${MAC[2]}" "${PORT[2]}" ""
	bcast_round "bc_$2"
	pfx_check_grew "$phase: the broadcast is transmitted on ${PORT[2]} again" \
		"${PORT[2]}" tx_packets "$TX2_BEFORE"
}

xt_require
topo_up 3
daemon_start || abort "xdpbrd start" "$XT_WHY"
for i in 1 2 3; do
	for j in 1 2 3; do
		[ "$i" = "$j" ] && continue
		hping "$i" "$j" >/dev/null || abort "warm-up ping h$i -> h$j"
	done
done
check "fdb show: h2 learned (dynamic) on ${PORT[2]}" pfx_fdb_has "${MAC[2]}" "${PORT[2]}" ""
check "link show: ${PORT[2]} state forwarding" pfx_link_is "${PORT[2]}" state '"forwarding"'
bcast_round bc_up
pfx_check_grew "all up: h1's broadcast is transmitted on ${PORT[2]} (control)" \
	"${PORT[2]}" tx_packets "$TX2_BEFORE"

pfx_ping_start p13 1 3
pfx_ping_start p31 3 1

# --- h2's port down, then up
check "ip link set ${PORT[2]} down" ip link set dev "${PORT[2]}" down
port_down "${PORT[2]} down" p2down
check "ip link set ${PORT[2]} up" ip link set dev "${PORT[2]}" up
port_up "${PORT[2]} up again" p2up

# --- h2's e0 (the peer) down: no carrier on h2's port
check "fdb show: h2 on ${PORT[2]} before its peer goes down" \
	pfx_fdb_has "${MAC[2]}" "${PORT[2]}" ""
check "h2: ip link set e0 down" hexec 2 ip link set dev e0 down
port_down "h2's e0 down (no carrier)" e0down
check "h2: ip link set e0 up" hexec 2 ip link set dev e0 up
port_up "h2's e0 up again" e0up

pfx_ping_stop p13
pfx_ping_stop p31
check "ping h1 -> h3 lost nothing while h2's port went down and up" pfx_ping_check p13
check "ping h3 -> h1 lost nothing while h2's port went down and up" pfx_ping_check p31

# --- h3's port deleted
check "ip link del ${PORT[3]}" ip link del dev "${PORT[3]}"
if pfx_poll 3 pfx_unlisted "${PORT[3]}"; then
	pass "deleted: link show no longer lists ${PORT[3]}"
else
	fail "deleted: link show no longer lists ${PORT[3]} (within 3 s)" "$(pfx_link_json 2>&1)"
fi
pfx_check_daemon "deleted: the daemon keeps running"
check_jq "deleted: link show lists exactly the 2 other ports" "$(pfx_link_json 2>&1)" \
	'(map(.ifname) | sort) == ([$p1, $p2] | sort)' \
	--arg p1 "${PORT[1]}" --arg p2 "${PORT[2]}"
check "deleted: fdb show has no entry for h3's MAC" pfx_fdb_lacks "${MAC[3]}"
check_jq "deleted: stats lists the 2 other ports only" \
	"$("$XDPBR" -b "$BR" -j stats 2>&1)" \
	'(map(select(.type != "bridge") | .ifname) | sort) == ([$p1, $p2] | sort)' \
	--arg p1 "${PORT[1]}" --arg p2 "${PORT[2]}"
check "deleted: ping h1 -> h2" hping 1 2
check "deleted: ping h2 -> h1" hping 2 1

# --- created again under the same name: it joins again
check "recreate ${PORT[3]} (veth to h3)" pfx_host_relink 3
if pfx_poll 5 pfx_link_is "${PORT[3]}" "$DP_KEY" "$DP_VAL"; then
	pass "recreated: link show lists ${PORT[3]} again, its datapath attached"
else
	fail "recreated: link show lists ${PORT[3]} again, its datapath attached (within 5 s)" \
		"$(pfx_link_json 2>&1)" "xdpbrd log:" "$(cat "$DAEMON_LOG")"
fi
check_same "recreated: ${PORT[3]} runs the bridge's XDP program" \
	"$(port_prog_id "${PORT[1]}")" "$(port_prog_id "${PORT[3]}")"
check "recreated: ping h1 -> h3 (within 5 s)" pfx_poll 5 hping 1 3
check "recreated: ping h3 -> h2" hping 3 2
check "recreated: fdb show: h3 on ${PORT[3]}" pfx_fdb_has "${MAC[3]}" "${PORT[3]}" ""
check "recreated: link show: ${PORT[3]} state forwarding" \
	pfx_link_is "${PORT[3]}" state '"forwarding"'

# The daemon stops cleanly and detaches every port, the recreated one too.
log=$DAEMON_LOG
if daemon_stop TERM; then
	check_eq "SIGTERM: xdpbrd exits 0" 0 "$DAEMON_RC" "$(cat "$log")"
else
	fail "SIGTERM: xdpbrd exits within 10 s" "$(cat "$log")"
fi
for i in 1 2 3; do
	check_eq "SIGTERM: no XDP program left on ${PORT[i]}" null "$(port_xdp "${PORT[i]}")"
done

finish

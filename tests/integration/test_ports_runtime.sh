#!/usr/bin/env bash
# Ports added to and removed from a running bridge with `xdpbr link add` and
# `xdpbr link del`, first with the daemon running, then after it was killed
# (-9): the CLI works from the pins alone. A port joins at once (its
# datapath attached, listed, its host reachable) and leaves cleanly (no XDP, not
# listed, no FDB entry, its host cut off), while traffic between the other
# ports goes on without a single loss. Errors (a device that doesn't exist,
# a device that is not a port) fail with a message.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks enumerate exactly the ports and FDB entries it made

# joined PHASE [MODE]: P4 is a working port: on the tests' datapath, or in
# XDP mode MODE when one is given (an XDP mode asks for the XDP path).
joined()
{
	local phase=$1 mode=${2:-} json key=$DP_KEY val=$DP_VAL pin=$DP_PIN
	if [ -n "$mode" ]; then
		key=xdp_mode val="\"$mode\"" pin=prog_rx
	fi
	json=$(pfx_link_json 2>&1)
	check_jq "$phase: link show lists $P4, master $BR, $key $val, forwarding" \
		"$json" 'any(.[]; .ifname == $p and .master == $br and
		 .[$key] == $val and .state == "forwarding")' \
		--arg p "$P4" --arg br "$BR" --arg key "$key" --argjson val "$val"
	check_same "$phase: $P4 runs the bridge's program (pinned as $pin)" \
		"$(bpftool -j prog show pinned "$PIN_DIR/$pin" 2>&1 | jq -r '.id')" \
		"$(port_prog_id "$P4")" "$P4: $(port_xdp "$P4")"
	check_jq "$phase: link show dev $P4: defaults (learning, flood, mcast_flood, bcast_flood on)" \
		"$(pfx_link_json "$P4" 2>&1)" 'length == 1 and .[0].learning and
		 .[0].flood and .[0].mcast_flood and .[0].bcast_flood and
		 (.[0].isolated | not) and (.[0].hairpin | not)'
	check "$phase: ping h4 -> h1" hping 4 1
	check "$phase: ping h2 -> h4" hping 2 4
	check "$phase: fdb show: h4 (${MAC[4]}) on $P4" pfx_fdb_has "${MAC[4]}" "$P4"
	bcast_to_h4 "$phase" 1
}

# bcast_to_h4 PHASE N: a broadcast from h1 reaches h4 N (0 or 1) times and
# h2 once (the control).
bcast_to_h4()
{
	local k
	for k in 2 4; do
		pfx_cap "bc$k" "$k" "ether proto 0x88b5 and ether src ${MAC[1]}" 3 1 ||
			fail "capture in h$k ($1)" "$XT_WHY"
	done
	pfx_send 1 ff:ff:ff:ff:ff:ff || fail "sendframe broadcast from h1 ($1)"
	check_eq "$1: h1's broadcast reaches h4 $2 time(s)" "$2" "$(pfx_cap_n bc4)" \
		"$(cap_show bc4)"
	check_eq "$1: h1's broadcast reaches h2 (control)" 1 "$(pfx_cap_n bc2)" \
		"$(cap_show bc2)" "$("$XDPBR" -b "$BR" -j stats 2>&1)"
}

# left PHASE: P4 is out of the bridge.
left()
{
	local phase=$1
	check_eq "$phase: no XDP program on $P4" null "$(port_xdp "$P4")"
	check "$phase: link show does not list $P4" pfx_unlisted "$P4"
	check_eq "$phase: fdb show: no entry on $P4" 0 "$(pfx_fdb_count "$P4" 2>&1)" \
		"$("$XDPBR" -b "$BR" fdb show 2>&1)"
	check "$phase: fdb show: h4's MAC is gone" pfx_fdb_lacks "${MAC[4]}"
	check_fail "$phase: ping h4 -> h1 fails" hping 4 1
	bcast_to_h4 "$phase" 0
}

xt_require
topo_up 4
P4=${PORT[4]}
PORTS=("${PORT[1]}" "${PORT[2]}" "${PORT[3]}")	# h4's port is not in the bridge
daemon_start || abort "xdpbrd start" "$XT_WHY"
# Static neighbours between h4 and h1, h2: a failed ping while h4 is cut off
# leaves no failed ARP entry behind to fail the next one.
for i in 1 2; do
	if ! hexec 4 ip neigh replace "${IP4[i]}" lladdr "${MAC[i]}" nud permanent dev e0 ||
		! hexec "$i" ip neigh replace "${IP4[4]}" lladdr "${MAC[4]}" nud permanent dev e0; then
		abort "static neighbours for h4 and h$i"
	fi
done
check "ping h1 -> h2" hping 1 2
check "ping h2 -> h1" hping 2 1

check_fail "before link add: ping h4 -> h1 fails" hping 4 1
check "before link add: link show does not list $P4" pfx_unlisted "$P4"

# --- with the daemon
pfx_ping_start d12 1 2
pfx_ping_start d21 2 1
check "link add dev $P4 master $BR" "$XDPBR" link add dev "$P4" master "$BR"
joined "daemon"
check "link del dev $P4" "$XDPBR" -b "$BR" link del dev "$P4"
left "daemon, after link del"
pfx_ping_stop d12
pfx_ping_stop d21
check "daemon: ping h1 -> h2 lost nothing during link add/del" pfx_ping_check d12
check "daemon: ping h2 -> h1 lost nothing during link add/del" pfx_ping_check d21
pfx_check_daemon "the daemon still runs"

pfx_check_error "link add of a device that doesn't exist fails" "xt${ID}nope" \
	"$XDPBR" link add dev "xt${ID}nope" master "$BR"
pfx_check_error "link add to a bridge that doesn't exist fails" "xt${ID}nobr" \
	"$XDPBR" link add dev "$P4" master "xt${ID}nobr"
check_eq "after the failed link add: no XDP program on $P4" null "$(port_xdp "$P4")"
pfx_check_error "link del of a device that is not a port fails" "$P4" \
	"$XDPBR" -b "$BR" link del dev "$P4"
pfx_check_error "link del of a device that doesn't exist fails" "xt${ID}nope" \
	"$XDPBR" -b "$BR" link del dev "xt${ID}nope"
check_eq "link show still lists the 3 ports" \
	"$(printf '%s\n' "${PORTS[@]}" | sort | tr '\n' ' ')" \
	"$(pfx_link_json | jq -r '.[].ifname' | sort | tr '\n' ' ')"

# --- without the daemon: it dies without cleaning up; the pins stay.
daemon_stop KILL
check "daemon killed (-9): the pins stay" test -e "$PIN_DIR/xdpbr_ports"
check "daemon killed: ping h1 -> h2 still bridged" hping 1 2

pfx_ping_start n12 1 2
check "no daemon: link add dev $P4 master $BR" "$XDPBR" link add dev "$P4" master "$BR"
joined "no daemon"
check "no daemon: link del dev $P4" "$XDPBR" -b "$BR" link del dev "$P4"
left "no daemon, after link del"

check "no daemon: link add dev $P4 master $BR mode generic" \
	"$XDPBR" link add dev "$P4" master "$BR" mode generic
joined "no daemon, mode generic" generic
check "no daemon: link del dev $P4 (generic)" "$XDPBR" -b "$BR" link del dev "$P4"
left "no daemon, after link del (generic)"

# A port joining on XDP opens two windows, each held open 300 ms by a
# fault point while h4 pings h1 every 10 ms: what comes in is counted in
# and out once, and the ping gets through once the port has joined.
#   port_xdp_attach_slow  its TC program (for what its XDP program hands
#       to the skb path) runs before its XDP program: what comes in then
#       is the TC program's own, not taken for a frame the XDP program
#       counted;
#   port_xdp_mode_slow  its XDP mode is written before its XDP program is
#       attached: what comes in then has passed no XDP program, and the TC
#       program counts it all the same.
# attach_window POINT TAG WINDOW: P4 joins native through POINT's window.
attach_window()
{
	local point=$1 tag=$2 window=$3

	pfx_ping_start "$tag" 4 1 0.01
	sleep 0.2
	check "no daemon: link add dev $P4 mode native, 300 ms between $window" \
		env XDPBR_FAULT="$point" "$XDPBR" link add dev "$P4" master "$BR" mode native
	sleep 0.3
	pfx_ping_stop "$tag"
	check "... every port's frames counted in are counted out once, $P4's too" \
		xt_poll 2 counters_add_up
	check "... h4's ping got through once $P4 joined" \
		test "$(grep -c 'bytes from' "$XT_TMP/ping.$tag.out")" -ge 10
	check "no daemon: link del dev $P4 (native, after $window)" \
		"$XDPBR" -b "$BR" link del dev "$P4"
	left "no daemon, after link del (native, after $window)"
}
attach_window port_xdp_attach_slow x41 "its TC and XDP attach"
attach_window port_xdp_mode_slow x42 "its XDP mode and XDP attach"
# Two adders of one port at once (two CLIs here; with the bridge device,
# the daemon re-adding a port of the device and `link add`): the slot lock
# covers a port's whole add, maps and attach (lib/brport.c slot_lock), so
# the second adopts what the first made instead of taking it, not attached
# yet, for a gone port's leftover and removing it. The first pauses 300 ms
# between its map writes and its attach (the fault point
# port_attach_slow); the second starts 100 ms into that.
# one_port: P4 is listed once, forwarding on the tests' datapath, running
# the bridge's program.
one_port()
{
	local json want
	json=$(pfx_link_json 2>/dev/null) || return 1
	want=$(bpftool -j prog show pinned "$PIN_DIR/$DP_PIN" 2>/dev/null | jq -r '.id')
	[ "$(jq --arg p "$P4" --arg key "$DP_KEY" --argjson val "$DP_VAL" \
		'[.[] | select(.ifname == $p and .[$key] == $val and
		  .state == "forwarding")] | length' <<<"$json")" = 1 ] &&
		[ -n "$want" ] && [ "$(port_prog_id "$P4")" = "$want" ]
}
race_ok=0 race_log=
for ((r = 1; r <= 3; r++)); do
	XDPBR_FAULT=port_attach_slow "$XDPBR" link add dev "$P4" master "$BR" \
		>"$XT_TMP/add_a" 2>&1 &
	pid=$!
	sleep 0.1
	"$XDPBR" link add dev "$P4" master "$BR" >"$XT_TMP/add_b" 2>&1
	rb=$?
	wait "$pid"
	ra=$?
	if { [ $ra = 0 ] || [ $rb = 0 ]; } && one_port; then
		race_ok=$((race_ok + 1))
	else
		race_log+="round $r: exit $ra, $rb: $(cat "$XT_TMP/add_a" "$XT_TMP/add_b")
$(pfx_link_json "$P4" 2>&1)
"
	fi
	"$XDPBR" -b "$BR" link del dev "$P4" >/dev/null 2>&1
done
check_eq "no daemon: a second link add of $P4 while the first attaches, 3 rounds: one working port each" \
	3 "$race_ok" "$race_log"
left "no daemon, after the adds at once"

pfx_ping_stop n12
check "no daemon: ping h1 -> h2 lost nothing during link add/del" pfx_ping_check n12
pfx_check_error "no daemon: link del of a device that is not a port fails" "$P4" \
	"$XDPBR" -b "$BR" link del dev "$P4"

finish

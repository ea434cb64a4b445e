#!/usr/bin/env bash
# A dead control plane never makes a loop, and a quick restart loses
# nothing. Two xdpbr bridges in a loop (as test_stp: A root, h1 on A, h2 on
# B), hello 10, forward_delay 12, max_age 22 (see a.):
#   a. A's daemon killed (SIGKILL) and started again at once, while h1
#      pings h2 every 20 ms: no ping lost, B counts no topology change
#      storm (at most one), the tree is the same. "At once" is before B
#      ages out what A last told it (3 x hello_time after A's last BPDU,
#      which may have been sent a hello_time before the kill) and takes
#      over as the root, RSTP's rule whatever A's datapath does; and the
#      restarted engine sends nothing for hello_time + 1 s (its resume
#      hold). So the restart must take less than hello_time - 1 s at worst
#      (2 x hello_time - 1 s at best): hence hello_time 10 here, as restarts
#      on this busy machine take 1.4 to 4.3 s (with hello_time 2, a 4.0 s
#      restart lost pings; with hello_time 1, a 4.3 s one lost 2 s);
#   b. A's daemon killed and left dead: A's datapath, without its daemon,
#      keeps its ports' states for hello_time + 1 s (11 s) after the last
#      heartbeat, then discards on its non-edge ports by itself; B, alive
#      and hearing nothing from A, later makes its ports designated and
#      forwards on both links (RSTP: 3 x hello_time to age A's information,
#      then its rapid transition or auto edge). A must block first: had it
#      waited for max age (22 s), B's ports forwarding from 17.7 s on would
#      have closed a loop through A's (both times measured and printed).
#      Then a broadcast from h2 never comes back, h1 (on A's edge port)
#      gets none of it, and the links carry no storm (frames counted);
#   c. A's daemon started again after that: the tree converges as before.
# shellcheck disable=SC2016,SC2317 # jq variables in single quotes; functions run through check
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
# shellcheck source=stp_lib.sh
. "$(dirname "$0")/stp_lib.sh"
STP_HELLO=10
STP_FWD=12
STP_MAXAGE=22

# tc_count BRIDGE: topology changes the bridge counted.
tc_count()
{
	stp_show "$1" | jq -r .topology_changes
}

# rx_sum BRIDGE PORT...: rx_packets summed over the ports.
rx_sum()
{
	local br=$1 p n s=0
	shift
	for p in "$@"; do
		n=$("$XDPBR" -b "$br" -j stats dev "$p" | jq -r '.[0].rx_packets')
		s=$((s + n))
	done
	echo "$s"
}

xt_require
topo_up 2
XT_CLEANUP_CMDS+=("ip link del dev $BR")
L1A=xt${ID}l1a L1B=xt${ID}l1b L2A=xt${ID}l2a L2B=xt${ID}l2b
stp_link "$L1A" "$L1B" || abort "veth $L1A-$L1B"
stp_link "$L2A" "$L2B" || abort "veth $L2A-$L2B"
LINKS="$BR:$L1A $BR:$L2A $BR2:$L1B $BR2:$L2B"
CONF1=$XT_TMP/a.conf
CONF2=$XT_TMP/b.conf
stp_bridge_conf "$CONF1" "$BR" 4096 "${PORT[1]}" "$L1A $L2A"
stp_bridge_conf "$CONF2" "$BR2" 32768 "${PORT[2]}" "$L1B $L2B"
pfx_daemon_start 3 -c "$CONF1" || abort "xdpbrd A" "$XT_WHY"
stp_br2_start -c "$CONF2" || abort "xdpbrd B" "$XT_WHY"
check "converged: one link end blocks" xt_poll 30 stp_one_blocked "$LINKS"
TREE=$(stp_roles "$BR2" "$L1B" "$L2B")
check "h1 pings h2" xt_poll 5 hping 1 2

# ------------------------------------------------------------ a. quick restart
TC0=$(tc_count "$BR2")
pfx_ping_start a 1 2
xt_poll 5 bash -c '[ "$(grep -c "bytes from" "$1")" -ge 20 ]' _ "$XT_TMP/ping.a.out"
daemon_stop KILL
T0=${EPOCHREALTIME/./}
pfx_daemon_start 3 -c "$CONF1" || abort "xdpbrd A after kill -9" "$XT_WHY"
T1=${EPOCHREALTIME/./}
echo "# A's daemon back $(awk -v d=$((T1 - T0)) 'BEGIN { printf "%.2f", d / 1e6 }') s after kill -9"
check "a: the new daemon resumed the datapath's states" grep -q "ports resumed" "$DAEMON_LOG"
sleep 4
pfx_ping_stop a
if OUT=$(pfx_ping_check a 50); then
	pass "a: kill -9 and restart of A: no ping h1 -> h2 lost ($(head -1 <<<"$OUT"))"
else
	fail "a: kill -9 and restart of A: no ping h1 -> h2 lost" "$OUT" "$(cat "$DAEMON_LOG")"
fi
TC1=$(tc_count "$BR2")
check "a: no topology change storm on B ($TC0 -> $TC1, at most one)" \
	test $((TC1 - TC0)) -le 1
check_same_match "a: the same tree on B" "$STP_ROLES_RE" "$TREE" "$(stp_roles "$BR2" "$L1B" "$L2B")"

# ------------------------------------------------------------ b. dead
daemon_stop KILL
T0=${EPOCHREALTIME/./}
check "b: A's datapath discards on $L1A by itself once hello_time + 1 s (11 s) has passed" \
	xt_poll 40 bash -c '[ "$("$1" -b "$2" -j link show dev "$3" | jq -r ".[0].state")" = \
		discarding ]' _ "$XDPBR" "$BR" "$L1A"
T1=${EPOCHREALTIME/./}
ROLES_B=$(stp_roles "$BR2" "$L1B" "$L2B")
check "b: when A blocks, B still discards on one of its links (no moment with a loop): $ROLES_B" \
	json_is object '[.ports[] | select(.ifname == $a or .ifname == $b) | .state] |
		 length == 2 and any(. != "forwarding")' --arg a "$L1B" --arg b "$L2B" -- \
	stp_show "$BR2"
check "b: with A dead, B makes both its link ends designated and forwarding" \
	xt_poll 80 stp_roles_is "$BR2" "$L1B:designated/forwarding $L2B:designated/forwarding"
T2=${EPOCHREALTIME/./}
awk -v a=$((T1 - T0)) -v b=$((T2 - T0)) 'BEGIN { printf "# b: after kill -9 of A: A'"'"'s datapath blocks at %.1f s (hello_time + 1 = 11 s), B forwards on both links at %.1f s\n", a / 1e6, b / 1e6 }'
check_eq "b: ... and on $L2A" discarding \
	"$("$XDPBR" -b "$BR" -j link show dev "$L2A" | jq -r '.[0].state')"
check_eq "b: ... and keeps forwarding on the edge port ${PORT[1]}" forwarding \
	"$("$XDPBR" -b "$BR" -j link show dev "${PORT[1]}" | jq -r '.[0].state')"
sleep 1		# what was looping when A blocked is gone
RX0=$(rx_sum "$BR2" "$L1B" "$L2B")
OUT=$(stp_bcast_once 2 1)
check "b: a broadcast from h2 never comes back (h1, cut off, gets none)" bash -c \
	'echo "$1"; grep -q "host 1 received 0" <<<"$1" && grep -q "host 2 received 0" <<<"$1"' \
	_ "$OUT"
sleep 2
RX1=$(rx_sum "$BR2" "$L1B" "$L2B")
echo "# b: frames B received on its two links over ~6 s after A blocked: $((RX1 - RX0))"
check "b: no storm: B received fewer than 100 frames on its links in ~6 s after A blocked ($((RX1 - RX0)))" \
	test $((RX1 - RX0)) -lt 100

# ------------------------------------------------------------ c. back
pfx_daemon_start 3 -c "$CONF1" || abort "xdpbrd A after its death" "$XT_WHY"
check "c: converged again: one link end blocks" xt_poll 40 stp_one_blocked "$LINKS"
check_same_match "c: the same tree on B" "$STP_ROLES_RE" "$TREE" "$(stp_roles "$BR2" "$L1B" "$L2B")"
check "c: h1 pings h2" xt_poll 10 hping 1 2
check "c: no storm" stp_bcast_once 1 2
finish

#!/usr/bin/env bash
# An existing Linux bridge taken over and handed back (issue 28): a kernel
# bridge BR with two ports carries a 100 pps ping; `xdpbrd BR` takes it
# over with its ports (xdpbr ports, muted in the kernel bridge, the ping
# now counted by xdpbr and the kernel learning nothing more), and a
# normal stop hands it back (ports unmuted, forwarding in the kernel
# again, BR still there with its address); the ping loses nothing, on
# either datapath, where the kernel has TCX (below: the qdisc graft).
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

xt_require
topo_up 2
PORTS=()	# the bridge's own
XT_CLEANUP_CMDS+=("ip link del dev $BR")

# Its own ageing time (42 s), which the takeover keeps: none is asked for.
ip link add "$BR" type bridge ageing_time 4200 || abort "ip link add $BR type bridge"
for i in 1 2; do
	ip link set dev "${PORT[i]}" master "$BR" || abort "${PORT[i]} master $BR"
done
ip addr add 198.18.0.254/24 dev "$BR" && ip link set dev "$BR" up || abort "$BR up"
check "the kernel bridge forwards h1 -> h2" xt_poll 5 hping 1 2

kageing() { ip -j -d link show dev "$BR" | jq -r '.[0].linkinfo.info_data.ageing_time'; }
xageing() { bridge_field ageing_time; }
is_port() { json_is array 'any(.[]; .ifname == $p)' --arg p "$1" -- "$XDPBR" -b "$BR" -j link show; }
brstate() { [ "$(cat "/sys/class/net/$1/brport/state")" = "$2" ]; }	# 2 learning, 3 forwarding
# takeover [ARG...]: `xdpbrd ARG... BR`, no port named (the bridge's own
# ports are taken over), waited for until it forwards on them.
takeover()
{
	: >"$DAEMON_LOG"
	"$XDPBRD" -d "$XT_DATAPATH" "$@" "$BR" >>"$DAEMON_LOG" 2>&1 &
	DAEMON_PID=$!
	xt_poll 20 bash -c "grep -q 'bridge $BR: forwarding on 3 ports' '$DAEMON_LOG'" ||
		abort "xdpbrd $* $BR did not start" "$(cat "$DAEMON_LOG")"
}
# ping_start: h1 pings h2 at 100 pps, 1500 times; ping_tally waits for it
# and sets sent and got.
ping_start()
{
	hexec 1 ping -D -O -i 0.01 -c 1500 -W 1 "${IP4[2]}" >"$XT_TMP/ping.out" 2>&1 &
	ping_pid=$!
}
ping_tally()
{
	wait "$ping_pid"
	read -r sent got < <(sed -n \
		's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p' "$XT_TMP/ping.out")
}

ping_start
sleep 1
mark() { echo "$(date +%s.%N) $1" >>"$XT_TMP/marks"; }
mark "xdpbrd starts"
takeover
mark "xdpbrd forwarding"
# TCX: what the kernel has (6.6 on), and then what the ports run.
tcx=1
"$TCXPROGS" "${PORT[1]}" >/dev/null 2>&1
[ $? -ne 2 ] || tcx=0
for i in 1 2; do
	check "${PORT[i]}: taken over, an xdpbr port" is_port "${PORT[i]}"
	check "... muted in the kernel bridge (learning)" brstate "${PORT[i]}" 2
	[ "$tcx" = 1 ] || continue
	check_eq "... its TC program on a TCX link" tcx "$(port_tc "${PORT[i]}" | jq -r .kind)"
	check "... and no clsact qdisc made for it" \
		bash -c "! tc qdisc show dev '${PORT[i]}' | grep -q clsact"
done
check "the log says it was taken over" grep -q "Linux bridge $BR: taken over" "$DAEMON_LOG"
check_eq "no -a: xdpbr keeps the bridge's ageing time (42 s)" 42 "$(xageing)"
sleep 1.2	# the mirror's look, once a second
check_eq "... and the bridge's is still 4200 (centiseconds)" 4200 "$(kageing)"
rx0=$(port_counter "${PORT[1]}" rx_packets)
sleep 1
rx1=$(port_counter "${PORT[1]}" rx_packets)
check "xdpbr forwards the ping ($rx0 -> $rx1 on ${PORT[1]})" test "$((rx1 - rx0))" -ge 50
{ "$XDPBR" -b "$BR" fdb show; "$XDPBR" -b "$BR" stats; bridge fdb show br "$BR"; } >"$XT_TMP/diag" 2>&1
mark "xdpbrd stops"
daemon_stop
mark "xdpbrd stopped"
check "$BR is still there, a bridge with its address" bash -c \
	"ip -d link show dev $BR | grep -q bridge && ip addr show dev $BR | grep -q 198.18.0.254"
for i in 1 2; do
	check "${PORT[i]}: handed back (forwarding, still a port of $BR)" brstate "${PORT[i]}" 3
done
check "no xdpbr device end left" bash -c "! ip link show dev $BR-dev 2>/dev/null"
ping_tally
# None lost where the kernel has TCX (6.6 on): the ports' programs are
# attached by TCX links, which touch no qdisc. Creating a clsact qdisc
# (the way on older kernels) grafts it, and qdisc_graft() deactivates
# the device even for clsact: dev_deactivate() puts noop_qdisc on its
# transmit queues for an RCU grace period, and what is sent on the port
# then is dropped (captured on 6.18 with clsact: h2's reply arrived on p2
# and never left p1 while p1 was being attached). That costs at most one
# frame a port at 100 pps, allowed below only without TCX.
# Once in CI (2026-12-02, clsact, XDP path, a loaded 2-core runner) one
# run lost 56 in a row, from just before "forwarding" to about 0.9 s
# after; not seen since. A run that loses more is shown in full and the
# takeover done once more; the check fails if the second loses too (a
# loss that is the design's always does).
if [ "$tcx" = 1 ]; then
	allowed=0 how="by TCX links: none lost"
else
	allowed=2 how="by clsact (no TCX here): at most 1 a port"
fi
if [ "${sent:-0}" -ne 1500 ] || [ "$((1500 - ${got:-0}))" -gt "$allowed" ]; then
	echo "# note: first takeover lost $((${sent:-0} - ${got:-0})) of ${sent:-0}:"
	grep -E 'no answer' "$XT_TMP/ping.out" | sed 's/^/#   /'
	sed 's/^/#   /' "$XT_TMP/marks" "$DAEMON_LOG" "$XT_TMP/diag"
	: >"$XT_TMP/marks"
	ping_start
	sleep 1
	takeover
	sleep 1
	daemon_stop
	ping_tally
fi
check "the 100 pps ping across takeover and hand-back, $how ($got of ${sent:-0} received)" \
	test "${sent:-0}" -eq 1500 -a "$((1500 - ${got:-0}))" -le "$allowed"
[ "${got:-0}" -eq 1500 ] || echo "# note: $((sent - got)) lost: $(grep -E 'no answer' "$XT_TMP/ping.out"; cat "$XT_TMP/marks")"

# Taken over again with -a: xdpbr's ageing time wins over the bridge's.
takeover -a 77
check_eq "-a 77: xdpbr's ageing time is 77 s" 77 "$(xageing)"
check "... and the bridge's becomes 7700 within 3 s" xt_poll 3 eval '[ "$(kageing)" = 7700 ]'
daemon_stop
check "... handed back again" brstate "${PORT[1]}" 3
finish

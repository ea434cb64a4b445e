#!/usr/bin/env bash
# Sharing a port with xdp-filter through libxdp's dispatcher, on Debian
# 12's own kernel (6.1 runs freplace programs, which this machine's kernel
# refuses: tests/integration/test_xdpshare.sh checks that side). In a QEMU
# guest (tests/vm/lib.sh), ports vio0 and vio1 (virtio-net, native XDP),
# hosts h1 and h2 behind them:
#
#   1. xdp-filter on vio0 first, dropping UDP to port 9; then xdpbrd
#      --xdp-share: `xdp-loader status` shows both in the dispatcher
#      (xdp-filter at priority 10, xdpbr_rx at 50), `xdpbr link show`
#      says "xdp native dispatcher" (JSON xdp_attach "dispatcher");
#   2. frames xdp-filter drops never reach the bridge's counters nor h2;
#      the rest is bridged (pings, UDP to another port);
#   3. a restart (-k, then a new daemon) adopts the port and replaces our
#      component inside the dispatcher: a ping running through it loses
#      nothing, xdp-filter stays, one xdpbr_rx remains;
#   4. stopping xdpbrd removes only our component: xdp-filter runs on, and
#      vio1 (ours alone) has no XDP program left;
#   5. the other way round: xdpbrd joins xdp-filter's dispatcher again,
#      xdp-filter is unloaded, the bridge runs on and forwards.
#
# Runs once (the guest's ports are not veth). The guest-side helpers are
# tests/vm/guest_xdpshare.sh.
# datapaths: xdp
# shellcheck source=../integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/../integration/lib.sh"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

BRX=brx
GX=". tests/vm/guest_xdpshare.sh"
DROP_PORT=9
PASS_PORT=10
NUDP=40

# tap_rx I: frames host I's tap received from the guest.
tap_rx()
{
	ip -n "${NS[$1]}" -s -j link show dev "${PORT[$1]}" | jq -r '.[0].stats64.rx.packets'
}

# udp_to I J PORT N: host I sends N UDP datagrams to host J's PORT.
udp_to()
{
	hexec "$1" bash -c "for ((k = 0; k < $4; k++)); do echo x >/dev/udp/${IP4[$2]}/$3; done"
}

# guest_rx: the bridge's rx_packets on vio0 (empty if unreadable).
guest_rx()
{
	vm_exec "$GX; gx_rx $BRX $G1" 30 | tail -n 1
}

ping_ok()
{
	xt_poll 30 hexec "$1" ping -c 1 -W 3 "${IP4[$2]}"
}

vm_require
vm_host vio 0	# h1
vm_host vio 1	# h2
vm_boot
G1=${GNIC[1]} G2=${GNIC[2]}
DAEMON="g_start $BRX 2 -l none -H off -d xdp --xdp-share"

# ---- 1. xdp-filter first, then the bridge in the dispatcher
vm_check "xdp-filter loads on $G1 and drops UDP to port $DROP_PORT" \
	"xdp-filter load -m native $G1 && xdp-filter port -p udp -m dst $DROP_PORT && $GX && gx_status $G1"
vm_check "xdpbrd --xdp-share starts on $G1 $G2" "$DAEMON -k $BRX $G1 $G2" 300 ||
	{ vm_exec "cat /tmp/xdpbrd-$BRX.log"; finish; }
vm_check "the log says $G1 runs in libxdp's dispatcher after xdp-filter" \
	"grep \"port $G1 .*native XDP in libxdp's dispatcher (program id [0-9]*, priority 50; other programs: xdpfilt_alw_all (id [0-9]*, priority 10)\" /tmp/xdpbrd-$BRX.log"
vm_check "xdp-loader status: xdp-filter at priority 10, xdpbr_rx at 50 on $G1" \
	"$GX; gx_has $G1 xdpfilt_alw_all 10 && gx_has $G1 xdpbr_rx 50"
vm_check "xdpbr link show: $G1 and $G2 'xdp native dispatcher', xdp_attach dispatcher" \
	"$GX; \"\$XDPBR\" -b $BRX link show; for i in $G1 $G2; do
		\"\$XDPBR\" -b $BRX link show dev \$i | grep -q 'xdp native dispatcher' || exit 1
		[ \"\$(gx_attach $BRX \$i)\" = 'native dispatcher' ] || exit 1; done"

# ---- 2. what xdp-filter drops never reaches the bridge; the rest is bridged
check "h1 <-> h2 ping through xdp-filter and the bridge" eval "ping_ok 1 2 && ping_ok 2 1"
rx0=$(guest_rx) t0=$(tap_rx 2)
udp_to 1 2 "$DROP_PORT" "$NUDP"
sleep 2
rx1=$(guest_rx) t1=$(tap_rx 2)
if [[ $rx0 =~ ^[0-9]+$ && $rx1 =~ ^[0-9]+$ ]] && ((rx1 - rx0 < 3 && t1 - t0 < 3)); then
	pass "$NUDP UDP frames to port $DROP_PORT: dropped by xdp-filter, never counted by the bridge ($rx0 -> $rx1) nor seen by h2 ($t0 -> $t1)"
else
	fail "UDP to port $DROP_PORT dropped before the bridge" "bridge rx_packets on $G1: $rx0 -> $rx1" \
		"h2's tap rx: $t0 -> $t1"
fi
udp_to 1 2 "$PASS_PORT" "$NUDP"
sleep 2
rx2=$(guest_rx) t2=$(tap_rx 2)
if [[ $rx2 =~ ^[0-9]+$ ]] && ((rx2 - rx1 >= NUDP && t2 - t1 >= NUDP)); then
	pass "$NUDP UDP frames to port $PASS_PORT: bridged ($rx1 -> $rx2 on $G1, h2 got $((t2 - t1)))"
else
	fail "UDP to port $PASS_PORT bridged" "bridge rx_packets on $G1: $rx1 -> $rx2" \
		"h2's tap rx: $t1 -> $t2"
fi
vm_check "xdp-filter's rule for port $DROP_PORT was hit $NUDP times or more" \
	"s=\$(xdp-filter status); echo \"\$s\"; awk '\$1 == $DROP_PORT && \$NF >= $NUDP { f = 1 } END { exit !f }' <<<\"\$s\""

# ---- 3. restart: adopted, our component replaced inside the dispatcher
old=$(vm_exec "$GX; gx_comp $G1 xdpbr_rx" 30 | tail -n 1)
filt=$(vm_exec "$GX; gx_comp $G1 xdpfilt_alw_all" 30 | tail -n 1)
vm_check "xdpbrd -k stops, leaving the bridge in the dispatcher" \
	"g_stop $BRX; $GX; gx_has $G1 xdpbr_rx 50 && gx_has $G1 xdpfilt_alw_all 10"
check "h1 -> h2 ping with no daemon (kept)" ping_ok 1 2
ip netns exec "${NS[1]}" ping -i 0.05 -W 1 "${IP4[2]}" >"$XT_TMP/ping.out" 2>&1 &
PING_PID=$!
XT_PIDS+=("$PING_PID")
sleep 1
vm_check "a new xdpbrd --xdp-share adopts the ports" "$DAEMON $BRX $G1 $G2" 300
sleep 1
kill -INT "$PING_PID"
wait "$PING_PID"
sent=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1/p' "$XT_TMP/ping.out")
got=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\2/p' "$XT_TMP/ping.out")
# The SIGINT can come while the last request is on its way (an rtt of up
# to 12 ms in this guest, a request every 50 ms): ping counts it sent and
# not received. Only that one may miss: every reply to 1..sent-1 came.
last=$(grep -v DUP "$XT_TMP/ping.out" | sed -n 's/.* icmp_seq=\([0-9]*\) .*/\1/p' | sort -n | tail -n 1)
if [ -n "$sent" ] && [ "$sent" -gt 10 ] &&
	{ [ "$sent" = "$got" ] || { [ "$got" = $((sent - 1)) ] && [ "$last" = "$got" ]; }; }; then
	pass "upgrade inside the dispatcher: no ping lost ($got of $sent, every 50 ms, the last maybe in flight)"
else
	fail "upgrade inside the dispatcher loses no ping" "$(tail -n 3 "$XT_TMP/ping.out")"
fi
new=$(vm_exec "$GX; gx_comp $G1 xdpbr_rx" 30 | tail -n 1)
if [[ $old =~ ^[0-9]+$ && $new =~ ^[0-9]+$ ]] && [ "$old" != "$new" ]; then
	pass "our component was replaced (program $old -> $new)"
else
	fail "our component was replaced" "before: '$old', after: '$new'"
fi
vm_check "one xdpbr_rx in the dispatcher, xdp-filter's program the same ($filt)" \
	"$GX; [ \"\$(gx_count $G1 xdpbr_rx)\" = 1 ] && [ \"\$(gx_comp $G1 xdpfilt_alw_all)\" = '$filt' ] || { gx_status $G1; exit 1; }"
vm_check "the log says $G1 was adopted in the dispatcher" \
	"grep \"port $G1 .*libxdp's dispatcher.*, adopted\" /tmp/xdpbrd-$BRX.log"
check "h1 <-> h2 ping after the restart" eval "ping_ok 1 2 && ping_ok 2 1"

# ---- 4. stopping xdpbrd leaves xdp-filter running
vm_check "xdpbrd stops: xdp-filter runs on on $G1, no xdpbr_rx; $G2 has no XDP program" \
	"g_stop $BRX; $GX; gx_lacks $G1 xdpbr_rx && gx_has $G1 xdpfilt_alw_all 10 && gx_no_xdp $G2"
vm_check "the bridge's pins are gone" "! ls /sys/fs/bpf/xdpbr/$BRX 2>/dev/null"

# ---- 5. the other way round: xdp-filter goes, the bridge stays
vm_check "xdpbrd --xdp-share joins xdp-filter's dispatcher again" "$DAEMON $BRX $G1 $G2" 300
vm_check "xdp-loader status shows both on $G1" \
	"$GX; gx_has $G1 xdpfilt_alw_all 10 && gx_has $G1 xdpbr_rx 50"
vm_check "xdp-filter unloads from $G1, the bridge's component stays" \
	"xdp-filter unload $G1; $GX; gx_lacks $G1 xdpfilt_alw_all && gx_has $G1 xdpbr_rx 50"
check "h1 <-> h2 ping after xdp-filter is gone" eval "ping_ok 1 2 && ping_ok 2 1"
vm_check "xdpbrd stops: no XDP program left on $G1, $G2" \
	"g_stop $BRX; $GX; gx_no_xdp $G1 && gx_no_xdp $G2"

vm_poweroff
finish

#!/usr/bin/env bash
# A QEMU guest's NIC on an xdpbr bridge through QEMU's own bridge
# networking, `-netdev bridge,br=BR,helper=/usr/lib/qemu/qemu-bridge-helper`
# (what QEMU users without libvirt do): the helper makes a tap and adds it
# to the Linux bridge device BR with an ioctl, as brctl does.
#
#   - BR is a Linux bridge with host h1 (a namespace here) on a veth port,
#     taken over by xdpbrd (its host interface); /etc/qemu/bridge.conf says
#     `allow BR` for the length of the test (made here, removed after; a
#     file someone else made only gets our line and loses it again);
#   - the guest boots with its NIC vio0 on BR: the helper's tap is an xdpbr
#     port within 1 s of joining the device (on the skb path, a tap), in
#     "learning" in the kernel bridge (which snoops and forwards nothing);
#   - the guest pings h1 (20 of 20 answered) and the frames cross xdpbr:
#     its counters of the tap and of h1's port grow by at least the pings,
#     the guest's MAC is learned by xdpbr on the tap (the kernel's FDB
#     shows it only as xdpbr's extern_learn mirror);
#   - when QEMU exits, the tap leaves the bridge and xdpbr drops the port.
#
# Runs once, on the daemon's default datapath (tap and veth: the skb path).
# datapaths: auto
# shellcheck source=../integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/../integration/lib.sh"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

HELPER=${VM_BRIDGE_HELPER:-/usr/lib/qemu/qemu-bridge-helper}
CONF=/etc/qemu/bridge.conf
GUEST_IP=198.18.0.100
GUEST_MAC=02:76:6d:00:02:00
NPING=20

# conf_add / conf_undo: our `allow BR` line in bridge.conf, and its removal
# (the file and /etc/qemu too when this test made them).
CONF_MADE='' DIR_MADE=''
conf_add()
{
	[ -d "${CONF%/*}" ] || { mkdir -p "${CONF%/*}" && DIR_MADE=1; }
	[ -e "$CONF" ] || CONF_MADE=1
	echo "allow $BR" >>"$CONF"
}

conf_undo()
{
	if [ -n "$CONF_MADE" ]; then
		rm -f "$CONF"
	elif [ -e "$CONF" ]; then
		sed -i "/^allow $BR\$/d" "$CONF"
	fi
	[ -z "$DIR_MADE" ] || rmdir "${CONF%/*}" 2>/dev/null
}

# tap_of_bridge: the first tap (the helper's) among BR's ports.
tap_of_bridge()
{
	ip -j -d link show master "$BR" 2>/dev/null |
		jq -r '.[] | select(.linkinfo.info_kind == "tun") | .ifname' 2>/dev/null | head -n 1
}

# xdpbr_port IF: IF is a port of xdpbr's bridge, with a datapath program.
xdpbr_port()
{
	jq_true "$("$XDPBR" -b "$BR" -j link show 2>/dev/null)" \
		"[.[] | select(.ifname == \"$1\" and .datapath != \"none\")] | length == 1"
}

# watch_tap: in the background, the times (EPOCHREALTIME) the tap joined
# the device (tap.joined) and became an xdpbr port (tap.port).
watch_tap()
{
	local t
	while :; do
		t=$(tap_of_bridge)
		if [ -n "$t" ]; then
			[ -e "$XT_TMP/tap.joined" ] || echo "$EPOCHREALTIME $t" >"$XT_TMP/tap.joined"
			if xdpbr_port "$t"; then
				echo "$EPOCHREALTIME" >"$XT_TMP/tap.port"
				return 0
			fi
		fi
		sleep 0.02
	done
}

# counter IF NAME: xdpbr's counter NAME of port IF.
counter()
{
	"$XDPBR" -b "$BR" -j stats 2>/dev/null |
		jq -r --arg i "$1" --arg n "$2" '.[] | select(.ifname == $i) | .[$n]' 2>/dev/null
}

vm_require
[ -x "$HELPER" ] || skip "no $HELPER (package qemu-system-common, with qemu-system-x86)"
XT_CLEANUP_CMDS+=("conf_undo")

ip link add "$BR" type bridge || abort "ip link add $BR type bridge"
ip link set dev "$BR" up
topo_up 1
ip link set dev "${PORT[1]}" master "$BR" || abort "${PORT[1]} into $BR"
# not through check: daemon_start sets DAEMON_PID, which a $(...) would lose
if daemon_start -l none; then
	pass "xdpbrd takes over the Linux bridge $BR with h1's port"
else
	abort "xdpbrd takes over the Linux bridge $BR" "$XT_WHY"
fi
conf_add
check "$CONF allows $BR" grep -qx "allow $BR" "$CONF"

watch_tap &
XT_PIDS+=("$!")
vm_nic_bridge "$BR" 0
vm_boot
G=vio0

if xt_poll 10 test -e "$XT_TMP/tap.port"; then
	read -r joined TAP <"$XT_TMP/tap.joined"
	became=$(cat "$XT_TMP/tap.port")
	ms=$(awk -v a="$joined" -v b="$became" 'BEGIN { printf "%d", (b - a) * 1000 }')
	if [ "$ms" -le 1000 ]; then
		pass "the helper's tap $TAP joined $BR and was an xdpbr port $ms ms later"
	else
		fail "the helper's tap is an xdpbr port within 1 s" "$TAP: $ms ms" "$(cat "$DAEMON_LOG")"
	fi
else
	TAP=$(tap_of_bridge)
	abort "the helper's tap joined $BR and became an xdpbr port" "tap: '${TAP:-none}'" \
		"$(ip -d link show master "$BR")" "$("$XDPBR" -b "$BR" link show 2>&1)" "$(cat "$DAEMON_LOG")"
fi
check "xdpbr link show: $TAP is a tap on the skb path" \
	json_is array "[.[] | select(.ifname == \"$TAP\" and .kind == \"tap\" and .datapath == \"tc\")] | length == 1" \
	-- "$XDPBR" -b "$BR" -j link show
check "the kernel bridge has $TAP in learning (it forwards nothing)" \
	json_is array "[.[] | select(.ifname == \"$TAP\" and .state == \"learning\")] | length == 1" \
	-- bridge -j link show dev "$TAP"

rx0=$(counter "$TAP" rx_packets) tx0=$(counter "$TAP" tx_packets) h0=$(counter "${PORT[1]}" tx_packets)
vm_check "the guest pings h1 through $BR: $NPING of $NPING answered" \
	"ip addr add $GUEST_IP/24 dev $G && ip link set dev $G up &&
	 for k in \$(seq 30); do ping -c 1 -W 2 ${IP4[1]} >/dev/null && break; done
	 out=\$(ping -c $NPING -i 0.2 -W 3 ${IP4[1]}); echo \"\$out\"
	 grep -q '^$NPING packets transmitted, $NPING received' <<<\"\$out\"" 180
rx1=$(counter "$TAP" rx_packets) tx1=$(counter "$TAP" tx_packets) h1=$(counter "${PORT[1]}" tx_packets)
if [[ $rx0 =~ ^[0-9]+$ && $rx1 =~ ^[0-9]+$ && $tx1 =~ ^[0-9]+$ && $h1 =~ ^[0-9]+$ ]] &&
	((rx1 - rx0 >= NPING && tx1 - tx0 >= NPING && h1 - h0 >= NPING)); then
	pass "xdpbr forwarded the pings: $TAP rx $rx0 -> $rx1, tx $tx0 -> $tx1; ${PORT[1]} tx $h0 -> $h1"
else
	fail "xdpbr's counters grew by the $NPING pings" "$TAP rx $rx0 -> $rx1, tx $tx0 -> $tx1" \
		"${PORT[1]} tx $h0 -> $h1" "$("$XDPBR" -b "$BR" stats 2>&1)"
fi
check "xdpbr learned the guest's MAC on $TAP" fdb_has "$GUEST_MAC" "$TAP"
check "the kernel's FDB has the guest's MAC only as xdpbr's extern_learn entry" \
	json_is array "[.[] | select(.mac == \"$GUEST_MAC\")] | length == 1 and all(.flags // [] | index(\"extern_learn\"))" \
	-- bridge -j fdb show br "$BR"

vm_poweroff
check "QEMU gone: the tap left $BR and xdpbr" \
	xt_poll 10 eval "[ -z \"\$(tap_of_bridge)\" ] && ! xdpbr_port $TAP"
check "xdpbrd stops" daemon_stop
conf_undo
CONF_MADE='' DIR_MADE=''
check "our line is gone from $CONF" eval "! grep -qx 'allow $BR' $CONF 2>/dev/null"
finish

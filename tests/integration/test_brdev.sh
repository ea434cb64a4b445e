#!/usr/bin/env bash
# Ports follow the bridge device (issue 28): with xdpbrd running, a port
# that iproute2 (ip link set X master BR) or bridge-utils (brctl addif)
# puts into the Linux bridge device BR is an xdpbr port within 1 s, muted
# in the kernel bridge; traffic through it is forwarded by xdpbr (its
# counters; exact copies at the receiver) and by no kernel bridge (no
# kernel-learned FDB entry); ip link set X nomaster and brctl delif take
# it out of the bridge with its FDB entries; an interface xdpbr can't run
# (a foreign XDP program on it) is taken off the device again, said as an
# error, never half-bridged; one that joins with its link down (the kernel
# refuses its state then) is muted the moment it comes up. With xdpbr's
# /sbin/bridge-stp (as installed) the device runs as user-space STP
# (stp_state 2): no port that joins or comes up is forwarding in the kernel
# for any moment (bridge monitor link); a Linux bridge taken over is
# handed back with stp_state 0 and its ports forwarding in the kernel.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

xt_require
xt_need brctl:bridge-utils
xt_need clang
stp_helper_on

topo_up 6
PORTS=("${PORT[1]}")	# the others join through the device
XT_CLEANUP_CMDS+=("ip link del dev $BR")

is_port() { json_is array 'any(.[]; .ifname == $p)' --arg p "$1" -- "$XDPBR" -b "$BR" -j link show; }
not_port() { ! is_port "$1"; }
muted()
{
	json_is array '.[0] | .master == $br and .linkinfo.info_slave_data.state == "learning"' \
		--arg br "$BR" -- ip -j -d link show dev "$1"
}
fdb_has() { "$XDPBR" -b "$BR" fdb show | grep -qi "^$1 "; }
no_master() { [ "$(ip -j link show dev "$1" | jq -r '.[0].master // ""')" = "" ]; }

# kfwd_seen MON PORT: bridge monitor link output MON shows PORT forwarding.
kfwd_seen() { grep -q "${2}[@:].* state forwarding" "$1"; }

daemon_start || abort "xdpbrd" "$XT_WHY"
check_eq "the device's stp_state is 2: xdpbr's user-space STP" 2 "$(kbr_stp_state "$BR")"
check "... said in the log" grep -q "Linux bridge $BR: stp_state 2" "$DAEMON_LOG"
# The device up, as a user's is: down, the kernel enables none of its ports.
ip link set dev "$BR" up || abort "$BR up"
check "... its end $BR-dev forwarding in the kernel once it is up (the host's port)" \
	xt_poll 1 test "$(cat "/sys/class/net/$BR-dev/brport/state" 2>&1)" = 3
bridge monitor link >"$XT_TMP/brmon.join" 2>&1 &
mon=$!
XT_PIDS+=("$mon")
sleep 0.2

ip link set dev "${PORT[2]}" master "$BR" || abort "ip link set ${PORT[2]} master $BR"
check "ip link set ${PORT[2]} master $BR: an xdpbr port within 1 s" xt_poll 1 is_port "${PORT[2]}"
brctl addif "$BR" "${PORT[3]}" || abort "brctl addif $BR ${PORT[3]}"
check "brctl addif $BR ${PORT[3]}: an xdpbr port within 1 s" xt_poll 1 is_port "${PORT[3]}"
for i in 2 3; do
	check "${PORT[i]}: muted in the kernel bridge" xt_poll 1 muted "${PORT[i]}"
done
kill "$mon"; wait "$mon" 2>/dev/null
grep -q "${PORT[2]}.* state" "$XT_TMP/brmon.join" ||
	abort "bridge monitor link saw no state of ${PORT[2]}" "$(cat "$XT_TMP/brmon.join")"
for i in 2 3; do
	check_fail "${PORT[i]} joined up: never forwarding in the kernel, blocking until the mute" \
		kfwd_seen "$XT_TMP/brmon.join" "${PORT[i]}"
done

for i in 2 3; do
	rx0=$(port_counter "${PORT[i]}" rx_packets)
	cap_start uni$i 1 "icmp[icmptype] == icmp-echo and src ${IP4[i]}" 4 ||
		fail "capture on h1" "$XT_TMP"
	check "h$i -> h1 pings" ping_all "$i" 5 -i 0.1 -W 2 "${IP4[1]}"
	cap_end uni$i
	rx1=$(port_counter "${PORT[i]}" rx_packets)
	check "xdpbr received h$i's frames on ${PORT[i]} ($rx0 -> $rx1)" test "$((rx1 - rx0))" -ge 5
	check_eq "h1 got each of h$i's 5 pings once" 5 "$(cap_lines uni$i | grep -c .)" \
		"$(cap_lines uni$i)"
done
kl=$(bridge -j fdb show br "$BR" | jq -r '.[] | select((.state // "") != "permanent" and (.flags // [] | index("extern_learn") | not)) | .mac + " " + .ifname')
check_eq "the kernel bridge learned nothing (bridge fdb show br $BR)" "" "$kl"
check "xdpbr learned h2 and h3" bash -c "'$XDPBR' -b $BR fdb show | grep -qi '^${MAC[2]} ' &&
	'$XDPBR' -b $BR fdb show | grep -qi '^${MAC[3]} '"

# The kernel's view of a port's state is the mute, not the spanning tree's
# (doc/architecture.md's table): learning whatever xdpbr's state, the
# device's stp_state 2; a state written with bridge link set is undone.
kstate() { ip -j -d link show dev "$1" | jq -r '.[0].linkinfo.info_slave_data.state'; }
xstate() { json_of array "$XDPBR" -b "$BR" -j link show dev "$1" | jq -r '.[0].state'; }
check "xdpbr link set dev ${PORT[3]} state blocking" \
	"$XDPBR" -b "$BR" link set dev "${PORT[3]}" state blocking
check_eq "... xdpbr link show says blocking" blocking "$(xstate "${PORT[3]}")"
check_eq "... bridge link show still says learning (the mute)" learning "$(kstate "${PORT[3]}")"
check_eq "... the device's stp_state is 2 (xdpbr's RSTP runs in the daemon)" 2 \
	"$(kbr_stp_state "$BR")"
check "xdpbr link set dev ${PORT[3]} state forwarding" \
	"$XDPBR" -b "$BR" link set dev "${PORT[3]}" state forwarding
check_eq "... bridge link show says learning" learning "$(kstate "${PORT[3]}")"
bridge link set dev "${PORT[3]}" state 3 || fail "bridge link set dev ${PORT[3]} state 3"
check "bridge link set state forwarding by hand: muted again within 2 s" \
	xt_poll 2 muted "${PORT[3]}"
check "h3 -> h1 pings, each once" ping_all 3 3 -i 0.1 -W 2 "${IP4[1]}"
kl=$(bridge -j fdb show br "$BR" | jq -r '.[] | select((.state // "") != "permanent" and (.flags // [] | index("extern_learn") | not)) | .mac + " " + .ifname')
check_eq "... and the kernel bridge still learned nothing" "" "$kl"

ip link set dev "${PORT[2]}" nomaster || abort "ip link set ${PORT[2]} nomaster"
check "ip link set ${PORT[2]} nomaster: not a port within 1 s" xt_poll 1 not_port "${PORT[2]}"
check "... h2's FDB entry gone" xt_poll 1 eval "! fdb_has ${MAC[2]}"
brctl delif "$BR" "${PORT[3]}" || abort "brctl delif $BR ${PORT[3]}"
check "brctl delif $BR ${PORT[3]}: not a port within 1 s" xt_poll 1 not_port "${PORT[3]}"
check "h1 -> h2 no longer bridged" bash -c "! ip netns exec ${NS[1]} ping -c 1 -W 1 ${IP4[2]}"

# An interface xdpbr can't run: a foreign XDP program on it.
printf '%s\n' '#include <linux/bpf.h>' '__attribute__((section("xdp"), used))' \
	'int pass(struct xdp_md *c) { return XDP_PASS; }' \
	'char _license[] __attribute__((section("license"), used)) = "GPL";' >"$XT_TMP/pass.c"
clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu -c "$XT_TMP/pass.c" -o "$XT_TMP/pass.o" || abort "clang pass.c"
ip link set dev "${PORT[4]}" xdpgeneric obj "$XT_TMP/pass.o" sec xdp || abort "xdp on ${PORT[4]}"
ip link set dev "${PORT[4]}" master "$BR" || abort "ip link set ${PORT[4]} master $BR"
check "${PORT[4]} with a foreign XDP program: taken off $BR again" xt_poll 2 no_master "${PORT[4]}"
check "... not an xdpbr port" not_port "${PORT[4]}"
check "... said as an error" grep -q "port ${PORT[4]} joined the bridge device $BR, but .* taken off" \
	"$DAEMON_LOG"

# A port that joins with its link down: the kernel refuses a port state
# then (ENETDOWN); when it comes up the kernel makes it blocking (without
# user-space STP: forwarding, at once); the daemon mutes it on that link
# event. Frames sent once it is up go through xdpbr only.
ip link set dev "${PORT[6]}" down || abort "${PORT[6]} down"
ip link set dev "${PORT[6]}" master "$BR" || abort "ip link set ${PORT[6]} master $BR"
check "${PORT[6]}, down, joins: an xdpbr port within 1 s" xt_poll 1 is_port "${PORT[6]}"
check "... the kernel's port disabled while it is down" \
	test "$(cat "/sys/class/net/${PORT[6]}/brport/state")" = 0
check "... its refused state is not a failure (no warning)" \
	bash -c "! grep -q 'port ${PORT[6]}: Couldn.t make it a port' '$DAEMON_LOG'"
bridge monitor link >"$XT_TMP/brmon" 2>&1 &
mon=$!
XT_PIDS+=("$mon")
sleep 0.2
ip link set dev "${PORT[6]}" up || abort "${PORT[6]} up"
check "${PORT[6]} up: muted within 1 s" xt_poll 1 muted "${PORT[6]}"
sleep 0.2; kill "$mon"; wait "$mon" 2>/dev/null
grep -q "${PORT[6]}.* state blocking" "$XT_TMP/brmon" ||
	abort "bridge monitor link saw ${PORT[6]} come up in no blocking state" "$(cat "$XT_TMP/brmon")"
check_fail "... never forwarding in the kernel: blocking (user-space STP) until the mute" \
	kfwd_seen "$XT_TMP/brmon" "${PORT[6]}"
hexec 6 ethtool -K e0 gro on >/dev/null 2>&1	# its carrier came back: see topo_up
rx0=$(port_counter "${PORT[6]}" rx_packets)
cap_start uni6 1 "icmp[icmptype] == icmp-echo and src ${IP4[6]}" 4 || fail "capture on h1" "$XT_TMP"
check "h6 -> h1 pings" ping_all 6 5 -i 0.1 -W 2 "${IP4[1]}"
cap_end uni6
rx1=$(port_counter "${PORT[6]}" rx_packets)
check "xdpbr received h6's frames on ${PORT[6]} ($rx0 -> $rx1)" test "$((rx1 - rx0))" -ge 5
check_eq "h1 got each of h6's 5 pings once" 5 "$(cap_lines uni6 | grep -c .)" "$(cap_lines uni6)"
kl=$(bridge -j fdb show br "$BR" | jq -r '.[] | select((.state // "") != "permanent" and (.flags // [] | index("extern_learn") | not)) | .mac + " " + .ifname')
check_eq "... the kernel bridge learned nothing from h6" "" "$kl"
check_eq "... bridge link show says learning (the mute)" learning "$(kstate "${PORT[6]}")"

# A restart keeps a port that joined through the device.
ip link set dev "${PORT[5]}" master "$BR" || abort "ip link set ${PORT[5]} master $BR"
check "${PORT[5]} joins" xt_poll 1 is_port "${PORT[5]}"
daemon_stop
check "a normal stop deletes $BR" bash -c "! ip link show dev $BR"
check "... and ${PORT[5]} is no bridge's port" no_master "${PORT[5]}"

# A Linux bridge of the user's, taken over: user-space STP while xdpbrd
# runs it; handed back with stp_state 0 and its ports forwarding.
kstate_is() { [ "$(kstate "$1")" = "$2" ]; }
{
	ip link add "$BR" type bridge &&
		ip link set dev "${PORT[5]}" master "$BR" &&
		ip link set dev "${PORT[6]}" master "$BR" &&
		ip link set dev "$BR" up
} || abort "a Linux bridge $BR with ${PORT[5]} and ${PORT[6]}"
for i in 5 6; do
	xt_poll 2 kstate_is "${PORT[i]}" forwarding ||
		abort "${PORT[i]}: not forwarding in the kernel bridge" "$(bridge link show)"
done
PORTS=("${PORT[5]}" "${PORT[6]}")
daemon_start || abort "xdpbrd over the Linux bridge $BR" "$XT_WHY"
check "taken over" grep -q "Linux bridge $BR: taken over" "$DAEMON_LOG"
check_eq "... stp_state 2 while xdpbrd runs it" 2 "$(kbr_stp_state "$BR")"
for i in 5 6; do
	check "... ${PORT[i]} muted" xt_poll 1 muted "${PORT[i]}"
done
check "h6 -> h5 pings through xdpbr" ping_all 6 3 -i 0.1 -W 2 "${IP4[5]}"
daemon_stop
check_eq "handed back: stp_state 0 again" 0 "$(kbr_stp_state "$BR")"
for i in 5 6; do
	check_eq "... ${PORT[i]} forwarding in the kernel bridge" forwarding "$(kstate "${PORT[i]}")"
done
check "... h6 -> h5 pings through the kernel bridge" ping_all 6 3 -i 0.1 -W 2 "${IP4[5]}"
finish

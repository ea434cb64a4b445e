#!/usr/bin/env bash
# Spanning tree port states with real traffic (tcpdump in the hosts'
# namespaces), set by hand with `xdpbr link set dev X state ...` while STP
# is off, as `bridge link set dev X state N` does on the kernel bridge:
#   blocking    the port receives no flood and no known unicast, and what
#               it receives is neither forwarded nor learned;
#   learning    what it receives is learned, nothing is forwarded to or
#               from it;
#   forwarding  back to normal; the numbers 0-4 of bridge(8) work too.
# BPDUs (01:80:c2:00:00:00): flooded with STP off, like the kernel bridge
# without STP (not into a blocking port); with STP on, passed to the host
# stack of the port they came in on and not flooded, whatever the port's
# state. While STP is on the states are the daemon's: link set state is
# refused with what to do. The daemon's heartbeat, older than its timeout
# with STP on, makes every non-edge port discard, and its return restores
# them.
#
# STP on and the heartbeat are written here with bpftool into the pinned
# maps (xdpbr_config flag XDPBR_CFG_STP, xdpbr_stp_beat), as the daemon
# does through ctl_stp_enable and ctl_stp_heartbeat; turning STP on and
# off from the CLI is `xdpbr bridge set stp`, not part of this suite.
# Where a check expects a frame NOT to arrive, another host sees the same
# frame (or the same host did before the change): the control.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and pfx_poll
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks enumerate exactly the ports and FDB entries it made

# lset DEV ARG...: xdpbr link set dev DEV ARG...
lset()
{
	local dev=$1
	shift
	"$XDPBR" -b "$BR" link set dev "$dev" "$@"
}

# set_state PORT STATE WORD: link set state STATE, and link show says WORD.
set_state()
{
	check "link set dev $1 state $2" lset "$1" state "$2"
	check_eq "link show: state of $1 is $3" "\"$3\"" \
		"$(pfx_link_field "$1" state 2>&1)" "$(pfx_link_json "$1" 2>&1)"
}

UU=$(pfx_mac 1)			# unknown unicast: nothing ever sends from it
BC=ff:ff:ff:ff:ff:ff
BPDU_DST=01:80:c2:00:00:00

# bpdu I: hex of an 802.1D configuration BPDU from host I (802.3 length,
# LLC 42 42 03), padded to 60 bytes.
bpdu()
{
	local src=${MAC[$1]//:/} hex
	hex="0180c2000000${src}0026424203000000008000${src}00000000""8000${src}80010000140002000f00"
	while [ ${#hex} -lt 120 ]; do
		hex+=00
	done
	echo "$hex"
}

# flood2 KEY FROM: from host FROM, one 0x88b5 frame each to UU and BC,
# captured in the two other hosts (captures KEY<i>).
flood2()
{
	local key=$1 from=$2 i dst
	for i in 1 2 3; do
		[ "$i" = "$from" ] && continue
		pfx_cap "$key$i" "$i" "ether proto 0x88b5 and ether src ${MAC[$from]}" 3 2 ||
			fail "capture in h$i ($key)" "$XT_WHY"
	done
	for dst in "$UU" "$BC"; do
		pfx_send "$from" "$dst" || fail "sendframe from h$from to $dst ($key)"
	done
	for i in 1 2 3; do
		[ "$i" = "$from" ] || pfx_cap_n "$key$i" >/dev/null
	done
}

# expect2 KEY I UU BC LABEL: in round KEY, host I saw that many unknown
# unicast and broadcast frames.
expect2()
{
	check_eq "$5: h$2 saw (unknown unicast, broadcast)" "$3 $4" \
		"$(pfx_cap_n "$1$2" "> $UU,") $(pfx_cap_n "$1$2" "> $BC,")" "$(cap_show "$1$2")"
}

# unicast KEY FROM TO: one 0x88b5 frame from host FROM to host TO's MAC
# (known to the FDB); prints how many TO received.
unicast()
{
	pfx_cap "$1" "$3" "ether proto 0x88b5 and ether src ${MAC[$2]}" 2 1 ||
		fail "capture in h$3 ($1)" "$XT_WHY"
	pfx_send "$2" "${MAC[$3]}" || fail "sendframe from h$2 to h$3 ($1)"
	pfx_cap_n "$1"
}

# bpdu_round KEY: h1 sends one configuration BPDU; prints what h2 and h3
# received ("N N").
bpdu_round()
{
	local i
	for i in 2 3; do
		pfx_cap "$1$i" "$i" "ether dst $BPDU_DST" 2 1 || fail "capture in h$i ($1)" "$XT_WHY"
	done
	hexec 1 "$SENDFRAME" e0 "$(bpdu 1)" || fail "sendframe BPDU from h1 ($1)"
	echo "$(pfx_cap_n "$12") $(pfx_cap_n "$13")"
}

# map_bytes NAME: the value of entry 0 of pinned map NAME, as bpftool's
# hex bytes ("0x00 0x01 ...").
map_bytes()
{
	bpftool -j map lookup pinned "$PIN_DIR/$1" key 0 0 0 0 | jq -r '.value | join(" ")'
}

# cfg_stp on|off: XDPBR_CFG_STP (1 << 4, in the low byte of
# xdpbr_config.flags, byte 8) set or cleared; nothing else changes.
cfg_stp()
{
	local -a b
	read -ra b <<<"$(map_bytes xdpbr_config)" || return 1
	[ ${#b[@]} = 24 ] || return 1
	if [ "$1" = on ]; then
		b[8]=$(printf '0x%02x' $((b[8] | 0x10)))
	else
		b[8]=$(printf '0x%02x' $((b[8] & ~0x10)))
	fi
	bpftool map update pinned "$PIN_DIR/xdpbr_config" key 0 0 0 0 value "${b[@]}"
}

# beat BEAT_HEX TIMEOUT_HEX: xdpbr_stp_beat[0] = {beat_ns, timeout_ns},
# each 8 little-endian bytes in hex ("01 00 00 00 00 00 00 00").
beat()
{
	# shellcheck disable=SC2086 # the bytes are words
	bpftool map update pinned "$PIN_DIR/xdpbr_stp_beat" key 0 0 0 0 value hex $1 $2
}
BEAT_ANCIENT="01 00 00 00 00 00 00 00"	# 1 ns after boot
TIMEOUT_1S="00 ca 9a 3b 00 00 00 00"	# 1000000000 ns
ZERO8="00 00 00 00 00 00 00 00"

# ping_ok I J: a ping from host I to J is answered (2 tries).
ping_ok()
{
	hping "$1" "$2" >/dev/null || hping "$1" "$2" >/dev/null
}

# states_are WORD: link show gives every port state WORD.
states_are()
{
	local j
	j=$(json_of array pfx_link_json) || return 1
	jq_true "$j" 'length == 3 and all(.[]; .state == $w)' --arg w "$1"
}

xt_require
xt_need bpftool
topo_up 3
daemon_start || abort "xdpbrd start" "$XT_WHY"

for i in 1 2 3; do
	for j in 1 2 3; do
		[ "$i" = "$j" ] && continue
		hping "$i" "$j" >/dev/null || abort "warm-up ping h$i -> h$j"
	done
done

check "link show: every port forwarding" states_are forwarding

# --- blocking: no floods, no unicast in; nothing out, nothing learned
drop0=$(port_counter "${PORT[1]}" drop_port_state)
set_state "${PORT[2]}" blocking blocking
flood2 blk 1
expect2 blk 2 0 0 "h2's port blocking"
expect2 blk 3 1 1 "h2's port blocking (control)"
check_eq "h2's port blocking: known unicast h1 -> h2 does not arrive" 0 \
	"$(unicast blk_uc 1 2)"
pfx_check_grew "stats: h1's frame to blocked h2 counts as drop_port_state on ${PORT[1]}" \
	"${PORT[1]}" drop_port_state "$drop0"
check_eq "h2's port blocking: known unicast h1 -> h3 arrives (control)" 1 \
	"$(unicast blk_uc_ctl 1 3)"
check_fail "h2's port blocking: ping h1 -> h2 fails" hping 1 2
drop2=$(port_counter "${PORT[2]}" drop_port_state)
NEW2=$(pfx_mac 20)
for i in 1 3; do
	pfx_cap "blk_in$i" "$i" "ether src $NEW2" 2 1 || fail "capture in h$i" "$XT_WHY"
done
pfx_send 2 "$BC" "$NEW2" || fail "sendframe from h2 as $NEW2"
check_eq "h2's port blocking: h2's broadcast reaches neither h1 nor h3" "0 0" \
	"$(pfx_cap_n blk_in1) $(pfx_cap_n blk_in3)"
pfx_check_grew "stats: h2's broadcast counts as drop_port_state on ${PORT[2]}" \
	"${PORT[2]}" drop_port_state "$drop2"
check "h2's port blocking: its source $NEW2 is not learned" pfx_fdb_lacks "$NEW2"

# --- learning: learns what it receives, forwards nothing either way
set_state "${PORT[2]}" learning learning
NEW3=$(pfx_mac 21)
for i in 1 3; do
	pfx_cap "lrn_in$i" "$i" "ether src $NEW3" 2 1 || fail "capture in h$i" "$XT_WHY"
done
pfx_send 2 "$BC" "$NEW3" || fail "sendframe from h2 as $NEW3"
check_eq "h2's port learning: h2's broadcast reaches neither h1 nor h3" "0 0" \
	"$(pfx_cap_n lrn_in1) $(pfx_cap_n lrn_in3)"
if pfx_poll 2 pfx_fdb_has "$NEW3" "${PORT[2]}"; then
	pass "h2's port learning: its source $NEW3 is learned on ${PORT[2]}"
else
	fail "h2's port learning: its source $NEW3 is learned on ${PORT[2]}" "$(fdb_json 2>&1)"
fi
flood2 lrn 1
expect2 lrn 2 0 0 "h2's port learning"
expect2 lrn 3 1 1 "h2's port learning (control)"
check_eq "h2's port learning: known unicast h1 -> h2 does not arrive" 0 \
	"$(unicast lrn_uc 1 2)"

# --- forwarding again, then bridge(8)'s numbers
set_state "${PORT[2]}" forwarding forwarding
check "h2's port forwarding: ping h1 -> h2" ping_ok 1 2
flood2 fwd 1
expect2 fwd 2 1 1 "h2's port forwarding again"
set_state "${PORT[2]}" 4 blocking
set_state "${PORT[2]}" 2 learning
set_state "${PORT[2]}" 0 blocking
set_state "${PORT[2]}" 1 blocking
set_state "${PORT[2]}" 3 forwarding
pfx_check_error "link set state 5 is refused, naming the states" "forwarding" \
	lset "${PORT[2]}" state 5

# --- BPDUs with STP off: flooded, not into a blocking port
ll0=$(port_counter "${PORT[1]}" pass_linklocal)
check_eq "STP off: a BPDU from h1 reaches h2 and h3" "1 1" "$(bpdu_round bpdu_off)"
check_same "STP off: the BPDU is not passed to the host (pass_linklocal on ${PORT[1]})" \
	"$ll0" "$(port_counter "${PORT[1]}" pass_linklocal)"
set_state "${PORT[3]}" blocking blocking
check_eq "STP off: a BPDU from h1 reaches h2, not blocking h3" "1 0" \
	"$(bpdu_round bpdu_blk)"

# --- STP on: BPDUs to the host; states refused by hand; discarding shown
check "STP on (xdpbr_config flags |= XDPBR_CFG_STP, with bpftool)" cfg_stp on
check_eq "link show: blocked h3's port is discarding with STP on" '"discarding"' \
	"$(pfx_link_field "${PORT[3]}" state 2>&1)"
pfx_check_error "STP on: link set state is refused, saying why" "STP is on" \
	lset "${PORT[2]}" state blocking
check_eq "STP on: the refused state was not set" '"forwarding"' \
	"$(pfx_link_field "${PORT[2]}" state 2>&1)"
ll0=$(port_counter "${PORT[1]}" pass_linklocal)
cap_start_root bpdu_host "${PORT[1]}" "ether dst $BPDU_DST" 3 1 ||
	fail "capture on ${PORT[1]}" "$XT_WHY"
check_eq "STP on: a BPDU from h1 reaches neither h2 nor h3" "0 0" "$(bpdu_round bpdu_on)"
check_eq "STP on: the BPDU reached the host stack on ${PORT[1]}" 1 "$(cap_wait bpdu_host)" \
	"$(cap_show bpdu_host)"
pfx_check_grew "STP on: the BPDU counts as pass_linklocal on ${PORT[1]}" \
	"${PORT[1]}" pass_linklocal "$ll0"
check "STP on: ping h1 -> h2 (no heartbeat written: no fallback)" ping_ok 1 2

# --- the heartbeat: expired, every (non-edge) port discards; back, all forward
check "heartbeat 1 ns after boot, timeout 1 s (expired)" beat "$BEAT_ANCIENT" "$TIMEOUT_1S"
check "heartbeat expired: link show says every port discarding" pfx_poll 2 states_are discarding
check_fail "heartbeat expired: ping h1 -> h2 fails" hping 1 2
ll0=$(port_counter "${PORT[1]}" pass_linklocal)
check_eq "heartbeat expired: BPDUs still reach no host but the port's" "0 0" \
	"$(bpdu_round bpdu_exp)"
pfx_check_grew "heartbeat expired: the BPDU still counts as pass_linklocal on ${PORT[1]}" \
	"${PORT[1]}" pass_linklocal "$ll0"
check "heartbeat timeout 0 (no fallback)" beat "$BEAT_ANCIENT" "$ZERO8"
check "no fallback: ping h1 -> h2 again" ping_ok 1 2

# --- STP off again: BPDUs flooded again
check "STP off (bpftool)" cfg_stp off
set_state "${PORT[3]}" forwarding forwarding
check_eq "STP off again: a BPDU from h1 reaches h2 and h3" "1 1" "$(bpdu_round bpdu_off2)"
check "link show: every port forwarding at the end" states_are forwarding
pfx_check_daemon "xdpbrd still runs"

finish

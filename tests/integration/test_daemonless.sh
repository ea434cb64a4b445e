#!/usr/bin/env bash
# datapaths: xdp
# A bridge made with iproute2 and the CLI alone, no xdpbrd anywhere: three
# ports get the object with `ip link ... xdp`, `xdpbr bridge add` takes over
# iproute2's map pins and pins the rest, `xdpbr link add` registers the
# ports. The bridge learns, forwards, floods broadcast and unknown unicast,
# treats an entry older than the ageing time as unknown, and counts every
# frame once. Then xdpbrd adopts it under a continuous ping with no loss,
# and once it has gone (--keep), `xdpbr bridge del` leaves no program and
# no pin behind.
#
# /sys/fs/bpf/tc/globals is shared by everything iproute2 loads: the test
# takes it in turn with the others (ip_pins_claim); if xdpbr pins are
# already there, they are someone else's and the test is skipped.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
XT_DATAPATH=xdp
. "$(dirname "$0")/lib.sh"

PROG_PIN=$IP_PIN_DIR/prog_xdpbr

# flooded KEY DST: a frame from h1 to DST reaches h2 and h3 (1 each).
flooded()
{
	local k
	for k in 2 3; do
		pfx_cap "$1$k" "$k" "ether proto 0x88b5 and ether src ${MAC[1]}" 3 1 ||
			fail "capture in h$k ($1)" "$XT_WHY"
	done
	pfx_send 1 "$2" || fail "sendframe from h1 ($1)"
	check_eq "$1: h1's frame to $2 reaches h2" 1 "$(pfx_cap_n "${1}2")"
	check_eq "$1: h1's frame to $2 reaches h3" 1 "$(pfx_cap_n "${1}3")"
}

xt_require
xt_need bpftool
mapfile -t ours < <(ip_map_pins)
[ ${#ours[@]} -gt 0 ] || abort "reading map names from $XDPBR_H"
ip_pins_claim "$PROG_PIN" "${ours[@]}"

topo_up 3

# --- iproute2 attaches, the CLI makes the bridge
ip_attach_all "$PROG_PIN"
check "xdpbr bridge add $BR" "$XDPBR" bridge add "$BR"
check_eq "bridge add took over iproute2's map pins" "" \
	"$(for p in "${ours[@]}"; do [ -e "$p" ] && echo "$p"; done)"
check "bridge add pinned the maps and programs in $PIN_DIR" \
	test -e "$PIN_DIR/xdpbr_fdb" -a -e "$PIN_DIR/prog_rx" -a -e "$PIN_DIR/prog_tc"
check_fail "bridge add of an existing bridge fails" "$XDPBR" bridge add "$BR"
for i in 1 2 3; do
	check "xdpbr link add dev ${PORT[i]} master $BR" \
		"$XDPBR" link add dev "${PORT[i]}" master "$BR"
done
check_jq "link show: 3 ports on XDP, forwarding" "$(pfx_link_json 2>&1)" \
	'length == 3 and all(.[]; .datapath == "xdp" and .state == "forwarding")'
check_eq "bridge show -j: no daemon" false "$(bridge_field daemon 2>&1)"
check "bridge show says what a daemonless bridge lacks" \
	grep -q "daemon none (no ageing sweeps" <<<"$("$XDPBR" -b "$BR" bridge show 2>&1)"
# (only this bridge's: other runs' daemons may run meanwhile)
check_fail "no xdpbrd process runs $BR" pgrep -f -- "xdpbrd( .*)? $BR( |\$)"

# --- it bridges
check "ping h1 -> h2" hping 1 2
check "ping h3 -> h1" hping 3 1
check "ping h2 -> h3 (IPv6)" hping 2 3 -6
for i in 1 2 3; do
	check "fdb show: h$i (${MAC[i]}) on ${PORT[i]}" pfx_fdb_has "${MAC[i]}" "${PORT[i]}"
done
flooded broadcast ff:ff:ff:ff:ff:ff
flooded unknown 02:00:00:00:ee:01

# --- ages lazily: an entry older than the ageing time is unknown
# A station behind h2 that speaks once (h2 itself would refresh its entry
# with neighbour probes).
QUIET=02:00:00:00:ee:03
check "bridge set ageing_time 2" "$XDPBR" -b "$BR" bridge set ageing_time 2
pfx_send 2 ff:ff:ff:ff:ff:ff "$QUIET" || fail "sendframe from $QUIET behind h2"
check "fdb show: $QUIET learned on ${PORT[2]}" pfx_fdb_has "$QUIET" "${PORT[2]}"
sleep 3
# Its entry is now older than 2 s: a frame to it floods.
flooded aged "$QUIET"
check "counters: rx_packets == the sum of the outcomes on every port" counters_add_up
check "bridge set ageing_time 300" "$XDPBR" -b "$BR" bridge set ageing_time 300

# --- the other commands work on it as on a daemon's bridge
STATIC=02:00:00:00:ee:02
check "fdb add $STATIC dev ${PORT[3]} static" \
	"$XDPBR" -b "$BR" fdb add "$STATIC" dev "${PORT[3]}" static
pfx_cap static3 3 "ether proto 0x88b5 and ether src ${MAC[1]}" 3 1 ||
	fail "capture in h3 (static)" "$XT_WHY"
pfx_cap static2 2 "ether proto 0x88b5 and ether src ${MAC[1]}" 2 1 ||
	fail "capture in h2 (static)" "$XT_WHY"
pfx_send 1 "$STATIC" || fail "sendframe to $STATIC"
check_eq "the static entry sends h1's frame to h3" 1 "$(pfx_cap_n static3)"
check_eq "... and not to h2" 0 "$(pfx_cap_n static2)"
check "vlan add dev ${PORT[2]} vid 10" "$XDPBR" -b "$BR" vlan add dev "${PORT[2]}" vid 10
check_jq "vlan show: ${PORT[2]} is in VLAN 10" "$("$XDPBR" -b "$BR" -j vlan show dev "${PORT[2]}" 2>&1)" \
	'any(.[].vlans[]; .vlan == 10)'
check "fdb flush dynamic" "$XDPBR" -b "$BR" fdb flush dynamic
check "fdb show: only the static entry is left" \
	test "$("$XDPBR" -b "$BR" -j fdb show | jq -c '[.[].mac]')" = "[\"$STATIC\"]"
check "fdb del $STATIC" "$XDPBR" -b "$BR" fdb del "$STATIC"

# --- xdpbrd adopts it under a continuous ping, with no loss
pfx_ping_start adopt 1 2
sleep 0.5
daemon_start -k || abort "xdpbrd start on the daemonless bridge" "$XT_WHY"
check "xdpbrd says it adopted the bridge" log_poll "$DAEMON_LOG" adopt 5
check_eq "bridge show -j: a daemon runs" true "$(bridge_field daemon 2>&1)"
sleep 0.5
pfx_ping_stop adopt
if out=$(pfx_ping_check adopt); then
	pass "ping h1 -> h2 across the adoption lost nothing ($(head -n 1 <<<"$out"))"
else
	fail "ping h1 -> h2 across the adoption lost nothing" "$out"
fi
check_fail "bridge del while xdpbrd runs it fails" "$XDPBR" bridge del "$BR"
if daemon_stop TERM; then
	check_eq "xdpbrd --keep exits 0 on SIGTERM" 0 "$DAEMON_RC" "$(cat "$DAEMON_LOG")"
else
	fail "xdpbrd --keep exits on SIGTERM" "$(cat "$DAEMON_LOG")"
fi
check "with no daemon again: ping h2 -> h3" hping 2 3

# --- the CLI ends it
check "xdpbr bridge del $BR" "$XDPBR" bridge del "$BR"
check "bridge del: no XDP program or TC filter left on any port" no_xdp_anywhere
check_fail "bridge del: no pins left in $PIN_DIR" test -e "$PIN_DIR"
check_fail "bridge del: h1 -> h2 no longer bridged" hping 1 2
rm -f "$PROG_PIN"
finish

#!/usr/bin/env bash
# datapaths: xdp
# Handing a bridge attached with iproute2 over to xdpbrd, as doc/cli.md
# ("Attaching with iproute2") describes: the first port gets the object with
# `ip link ... xdp obj`, the others its program through a bpftool pin, the
# map pins move from /sys/fs/bpf/tc/globals to the bridge's directory, and
# xdpbrd started on the ports adopts them and replaces the program on each
# port. SIGTERM then detaches everything and removes the pins.
#
# /sys/fs/bpf/tc/globals is shared by everything iproute2 loads on this
# machine: the test takes it in turn with the others (ip_pins_claim); if
# xdpbr pins (or our prog_xdpbr pin) are already there, they are someone
# else's, and the test is skipped rather than touching them.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check / xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
XT_DATAPATH=xdp
. "$(dirname "$0")/lib.sh"

PROG_PIN=$IP_PIN_DIR/prog_xdpbr

# ports_run PROG_ID: every port runs program PROG_ID (prints what differs).
ports_run()
{
	local p id rc=0
	for p in "${PORTS[@]}"; do
		id=$(port_prog_id "$p")
		if [ "$id" != "$1" ]; then
			echo "$p: program ${id:-none}, expected $1"
			rc=1
		fi
	done
	return "$rc"
}

xt_require
xt_need bpftool
mapfile -t ours < <(ip_map_pins)
[ ${#ours[@]} -gt 0 ] || abort "reading map names from $XDPBR_MAPS_H"
maps=$(printf '%s\n' "${ours[@]##*/}")
# What this test pins there is removed on cleanup, also if it fails
# half-way (the ports, and with them the XDP programs, go with the test's
# links).
ip_pins_claim "$PROG_PIN" "${ours[@]}"

topo_up 3
P1=${PORT[1]}

# --- attach with iproute2, as doc/cli.md says
ip_attach_all "$PROG_PIN"
ip_id=$IP_ID
check "iproute2: every port runs program $ip_id" ports_run "$ip_id"
for m in $maps; do
	check "iproute2 pinned $IP_PIN_DIR/$m" test -e "$IP_PIN_DIR/$m"
done
# Not a bridge yet: no port is in xdpbr_ports, frames go to the host stack.
check_fail "iproute2 only: h1 -> h2 not bridged yet" hping 1 2
# Forget the failed ARP resolution, or the next ping fails at once.
hexec 1 ip neigh flush dev e0

# --- hand it over to xdpbrd
check "mkdir -m 0700 $PIN_DIR" mkdir -m 0700 -p "$PIN_DIR"
check "mv the xdpbr_* pins to $PIN_DIR" mv "${ours[@]}" "$PIN_DIR/"
check_eq "no xdpbr_* pins left in $IP_PIN_DIR" "" \
	"$(for p in "${ours[@]}"; do [ -e "$p" ] && echo "$p"; done)"
daemon_start || abort "xdpbrd start on the iproute2 pins" "$XT_WHY"
if log_poll "$DAEMON_LOG" 'adopt' 10; then
	pass "xdpbrd says it adopted the bridge"
else
	fail "xdpbrd says it adopted the bridge" "its log: $(cat "$DAEMON_LOG")"
fi
check "xdpbrd kept the map pins (xdpbr_fdb still in $PIN_DIR)" \
	test -e "$PIN_DIR/xdpbr_fdb"
for i in 1 2 3; do
	for j in 1 2 3; do
		[ "$i" = "$j" ] && continue
		check "adopted: ping h$i -> h$j" hping "$i" "$j"
	done
done
json=$("$XDPBR" -b "$BR" -j link show 2>&1)
check_jq "link show: the 3 ports and the host interface's, native XDP" "$json" \
	'length == 4 and ([.[] | select(.host_interface == null) | .ifname] | sort) == ($ports | sort) and
	 all(.[]; .xdp_mode == "native" and .master == $br)' \
	--argjson ports "$(printf '%s\n' "${PORTS[@]}" | jq -R . | jq -s .)" --arg br "$BR"
new_id=$(port_prog_id "$P1")
if [ -n "$new_id" ] && [ "$new_id" != "$ip_id" ]; then
	pass "xdpbrd replaced iproute2's program on $P1 ($ip_id -> $new_id)"
else
	fail "xdpbrd replaced iproute2's program on $P1" "$ip_id -> ${new_id:-none}"
fi
check "every port runs xdpbrd's program $new_id" ports_run "${new_id:-none}"
pinned=$(bpftool -j prog show pinned "$PIN_DIR/prog_rx" 2>&1 | jq -r '.id' 2>&1)
check_same "it is the one pinned as $PIN_DIR/prog_rx" "$new_id" "$pinned"
check_jq "fdb show: h1 learned on $P1" "$(fdb_json 2>&1)" \
	'any(.[]; (.mac | ascii_downcase) == $m and .ifname == $p)' \
	--arg m "${MAC[1]}" --arg p "$P1"

# --- SIGTERM: detach and clean up
if daemon_stop TERM; then
	check_eq "SIGTERM: xdpbrd exits 0" 0 "$DAEMON_RC" "$(cat "$DAEMON_LOG")"
else
	fail "SIGTERM: xdpbrd exits within 10 s" "$(cat "$DAEMON_LOG")"
fi
check "SIGTERM: no XDP program left on any port" no_xdp_anywhere
check_fail "SIGTERM: $PIN_DIR is gone" test -e "$PIN_DIR"
check_fail "SIGTERM: h1 -> h2 no longer bridged" hping 1 2
check "remove $PROG_PIN" rm -f "$PROG_PIN"
check_eq "nothing of this test left in $IP_PIN_DIR" "" \
	"$(for p in "${ours[@]}" "$PROG_PIN"; do [ -e "$p" ] && echo "$p"; done)"

finish

#!/usr/bin/env bash
# The host on the bridged LAN: xdpbrd makes a host interface named after
# the bridge (a Linux bridge device; a veth pair into it, whose other end
# is an xdpbr port, carries the host's frames; the ports are its ports,
# the kernel bridge forwarding between none of them). The root namespace
# is the host: it pings every namespace host and is pinged (IPv4, IPv6),
# runs TCP both ways with default offloads and no checksum errors, serves
# DHCP (dnsmasq) and router advertisements to a real client (busybox
# udhcpc) through the bridge; the host's address is a permanent FDB entry
# that frames from other ports can't move; the interface and its
# addresses survive a restart with --keep and a SIGKILL, losing no ping; a
# normal stop removes it; a foreign interface with the bridge's name is a
# clear error; host_interface and mac in the configuration, and SIGHUP.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

HOST4=198.18.0.254
HOST6=2001:2::fe
CONF=$XT_TMP/xdpbrd.conf
COUNT=400	# pings at 10 ms across a restart

xt_require
xt_need iperf3
xt_need dnsmasq:dnsmasq-base
xt_need busybox

topo_up 3
XT_CLEANUP_CMDS+=("ip link del dev $BR")

# host_json: the host port's object in link show ("null" if none).
host_json()
{
	"$XDPBR" -b "$BR" -j link show | jq -ce --arg br "$BR" \
		'[.[] | select(.host_interface == $br)] | if length == 1 then .[0] else null end'
}

host_mac()
{
	ip -j link show dev "$BR" | jq -re '.[0].address'
}

# local_entry MAC VLAN: the FDB has MAC in VLAN on the host port, permanent.
local_entry()
{
	json_is array \
		'any(.[]; .mac == $m and .vlan == $v and .ifname == $p and .state == "permanent")' \
		--arg m "$1" --argjson v "$2" --arg p "$BR-host" -- "$XDPBR" -b "$BR" -j fdb show
}

# iperf_moved MIN FILE CMD...: the iperf3 client CMD (-J) succeeds, its
# JSON (kept in FILE) has no error and says the receiver got more than MIN
# bytes.
iperf_moved()
{
	local min=$1 file=$2
	shift 2
	"$@" >"$file" || return 1
	json_is object '.error == null and .end.sum_received.bytes > $min' \
		--argjson min "$min" -- cat "$file"
}

host_up()
{
	ip addr add "$HOST4/24" dev "$BR" &&
		ip addr add "$HOST6/64" dev "$BR" nodad &&
		ip link set dev "$BR" up
}

host_port_forwarding()
{
	[ "$(host_json | jq -r '.state')" = forwarding ]
}

# ping_summary FILE: "TX RX" from ping's summary line.
ping_summary()
{
	sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p' "$1"
}

# ---------------------------------------------------------------- basics
daemon_start || abort "xdpbrd" "$XT_WHY"
check "the host interface $BR exists, a bridge device" \
	json_is array '.[0].linkinfo.info_kind == "bridge"' -- ip -j -d link show dev "$BR"
for i in 1 2 3; do
	check "${PORT[i]} is a port of $BR the kernel bridge neither forwards nor floods to (learning)" \
		json_is array '.[0] | .master == $br and .linkinfo.info_slave_data.state == "learning"' \
		--arg br "$BR" -- ip -j -d link show dev "${PORT[i]}"
done
check "its alias says it is xdpbr's" \
	json_is array '.[0].ifalias | startswith("xdpbr host interface")' -- \
	ip -j link show dev "$BR"
hj=$(host_json)
check_jq "link show: $BR-host is a port with host_interface $BR" "$hj" \
	'.ifname == $p and .host_interface == $br' --arg p "$BR-host" --arg br "$BR"
mac=$(host_mac)
check "its address $mac is unicast and locally administered" \
	bash -c "[ -n '$mac' ] && [ \$(( 0x${mac:0:2} & 3 )) = 2 ]"
check "the host's address is a permanent (local) FDB entry on $BR-host" local_entry "$mac" 0
check "... shown as permanent in the text of fdb show" \
	bash -c "'$XDPBR' -b $BR fdb show | grep -q '^$mac dev $BR-host vlan 0 master $BR permanent'"
check "the host port appears in xdpbr stats" \
	json_is array 'any(.[]; .ifname == $p)' --arg p "$BR-host" -- "$XDPBR" -b "$BR" -j stats
check "... and in its text" bash -c "'$XDPBR' -b $BR stats | grep -q '^$BR-host '"

# While the device is down the host takes nothing: its port is disabled,
# out of the flood sets, and a flood copies nothing into it.
# down_flood_tx LABEL: h1's 3 broadcasts grow no tx of the host's port.
down_flood_tx()
{
	local tx0
	tx0=$(port_counter "$BR-host" tx_packets) || return 1
	hexec 1 ping -b -c 3 -i 0.1 -W 1 198.18.0.255 >/dev/null 2>&1
	check_eq "$1: h1's 3 broadcasts put nothing into $BR-host" "$tx0" \
		"$(port_counter "$BR-host" tx_packets)"
}
host_port_disabled() { [ "$(host_json | jq -r '.state')" = disabled ]; }
xt_poll 5 host_port_disabled || fail "while $BR is down, $BR-host is disabled" "$(host_json)"
down_flood_tx "$BR down at start"

host_up || abort "configuring $BR"
xt_poll 5 host_port_forwarding || fail "the host port forwards once $BR is up" "$(host_json)"
for i in 1 2 3; do
	check "host -> h$i (IPv4)" ping -c 1 -W 2 "${IP4[i]}"
	check "host -> h$i (IPv6)" ping -6 -c 1 -W 2 "${IP6[i]}"
	check "h$i -> host (IPv4)" hexec "$i" ping -c 1 -W 2 "$HOST4"
	check "h$i -> host (IPv6)" hexec "$i" ping -6 -c 1 -W 2 "$HOST6"
done

# Down and up again: the host's port follows the device's link events.
ip link set dev "$BR" down
xt_poll 5 host_port_disabled || fail "$BR down: $BR-host is disabled" "$(host_json)"
down_flood_tx "$BR set down"
ip link set dev "$BR" up
ip addr replace "$HOST6/64" dev "$BR" nodad	# IPv6 addresses go with the link
xt_poll 5 host_port_forwarding || fail "$BR up again: $BR-host forwards" "$(host_json)"
check "$BR up again: h1 -> host (IPv4)" hexec 1 ping -c 1 -W 2 "$HOST4"
tx0=$(port_counter "$BR-host" tx_packets)
hexec 1 ping -b -c 3 -i 0.1 -W 1 198.18.0.255 >/dev/null 2>&1
tx1=$(port_counter "$BR-host" tx_packets)
check "... and h1's 3 broadcasts reach $BR-host again ($tx0 -> $tx1 tx)" \
	test "$tx1" -ge $((tx0 + 3))

# Unicast to the host is known: it reaches no other port.
cap_start other 2 "icmp and host $HOST4" 4 ||
	fail "capture on h2" "$XT_TMP"
check "h1 -> host pings" ping_all 1 3 -i 0.2 -W 2 "$HOST4"
cap_end other
check_eq "h2 saw none of h1's pings to the host (not flooded)" 0 "$(cap_lines other | grep -c .)" \
	"$(cap_lines other)"

# One forwarder: xdpbr's datapath, never also the kernel bridge. Each of
# h1's pings to h2 and each of its broadcasts reaches h2 once.
cap_start uni 2 "icmp[icmptype] == icmp-echo and src ${IP4[1]}" 4 ||
	fail "capture on h2" "$XT_TMP"
check "h1 -> h2 pings" ping_all 1 5 -i 0.1 -W 2 "${IP4[2]}"
cap_end uni
check_eq "h2 got each of h1's 5 pings once" 5 "$(cap_lines uni | grep -c .)" "$(cap_lines uni)"
cap_start bc 2 "icmp and dst 198.18.0.255" 4 || fail "capture on h2" "$XT_TMP"
hexec 1 ping -b -c 5 -i 0.1 -W 1 198.18.0.255 >/dev/null 2>&1
cap_end bc
check_eq "h2 got each of h1's 5 broadcasts once" 5 "$(cap_lines bc | grep -c .)" "$(cap_lines bc)"
kl=$(bridge -j fdb show br "$BR" | jq -r '.[] | select((.state // "") != "permanent" and (.flags // [] | index("extern_learn") | not)) | .mac + " " + .ifname')
check_eq "the kernel bridge learned nothing (bridge fdb show br $BR)" "" "$kl"

# TCP both ways with the offloads the kernel leaves on: no checksum errors.
csum0=$(nstat -az TcpInCsumErrors | awk '/TcpInCsumErrors/ {print $2}')
hcsum0=$(hexec 1 nstat -az TcpInCsumErrors | awk '/TcpInCsumErrors/ {print $2}')
hexec 1 iperf3 -s -1 -D -B "${IP4[1]}" --logfile "$XT_TMP/iperf.s1" && sleep 0.5
check "iperf3 TCP host -> h1, 2 s" iperf_moved 1000000 "$XT_TMP/iperf.1" \
	iperf3 -c "${IP4[1]}" -t 2 -J
iperf3 -s -1 -D -B "$HOST4" --logfile "$XT_TMP/iperf.s2" && sleep 0.5
check "iperf3 TCP h1 -> host, 2 s" iperf_moved 1000000 "$XT_TMP/iperf.2" \
	ip netns exec "${NS[1]}" iperf3 -c "$HOST4" -t 2 -J
echo "# host -> h1: $(jq -r '.end.sum_received.bits_per_second / 1e9 | tostring + " Gbit/s"' "$XT_TMP/iperf.1" 2>/dev/null)," \
	"h1 -> host: $(jq -r '.end.sum_received.bits_per_second / 1e9 | tostring + " Gbit/s"' "$XT_TMP/iperf.2" 2>/dev/null)"
csum1=$(nstat -az TcpInCsumErrors | awk '/TcpInCsumErrors/ {print $2}')
hcsum1=$(hexec 1 nstat -az TcpInCsumErrors | awk '/TcpInCsumErrors/ {print $2}')
check "no TCP checksum errors on the host (${csum0:-?} -> ${csum1:-?}) or on h1 (${hcsum0:-?} -> ${hcsum1:-?})" \
	test -n "$csum0" -a -n "$hcsum1" -a "${csum0:-x}" = "${csum1:-y}" -a "${hcsum0:-x}" = "${hcsum1:-y}"

# A frame from h2 claiming the host's address does not move it; it is
# dropped as spoofed, as for any static entry.
spoof0=$(port_counter "${PORT[2]}" drop_spoofed_static)
check "h2 sends a frame with the host's address as source" \
	hexec 2 "$SENDFRAME" e0 "$(eth_frame ff:ff:ff:ff:ff:ff "$mac")"
spoofed_grew() { [ "$(port_counter "${PORT[2]}" drop_spoofed_static)" -gt "${spoof0:-0}" ]; }
if xt_poll 3 spoofed_grew; then
	pass "... dropped as spoofed on ${PORT[2]} (drop_spoofed_static grew)"
else
	fail "... dropped as spoofed on ${PORT[2]} (drop_spoofed_static grew)" "before: ${spoof0:-?}" \
		"$("$XDPBR" -b "$BR" stats)"
fi
check "the host's entry stays permanent on $BR-host" local_entry "$mac" 0
check "the host still reaches h2" ping -c 1 -W 2 "${IP4[2]}"

# The address follows `ip link set BRIDGE address`.
check "ip link set $BR address 02:00:5e:10:00:fe" ip link set dev "$BR" address 02:00:5e:10:00:fe
if xt_poll 3 local_entry 02:00:5e:10:00:fe 0; then
	pass "the local entry follows the new address within 3 s"
else
	fail "the local entry follows the new address within 3 s" "$("$XDPBR" -b "$BR" fdb show)"
fi
check "the old address's entry is gone" bash -c "! '$XDPBR' -b $BR fdb show | grep -q '^$mac '"
ip -n "${NS[3]}" neigh flush dev e0
check "h3 -> host after the change (h3's ARP cache flushed)" hexec 3 ping -c 1 -W 2 "$HOST4"
ip link set dev "$BR" address "$mac"
xt_poll 3 local_entry "$mac" 0 || fail "the entry is back at $mac"

# Deleted or flushed by hand, the host's entry comes back (within a second).
check "xdpbr fdb del $mac dev $BR-host" "$XDPBR" -b "$BR" fdb del "$mac" dev "$BR-host"
if xt_poll 3 local_entry "$mac" 0; then
	pass "the daemon puts the deleted local entry back within 3 s"
else
	fail "the daemon puts the deleted local entry back within 3 s" "$("$XDPBR" -b "$BR" fdb show)"
fi
check "xdpbr fdb flush static" "$XDPBR" -b "$BR" fdb flush static
if xt_poll 3 local_entry "$mac" 0; then
	pass "... and the flushed one"
else
	fail "... and the flushed one" "$("$XDPBR" -b "$BR" fdb show)"
fi

# ---------------------------------------------------------------- DHCP, RA
# h3 loses its static address and asks for one; dnsmasq on the host
# interface answers through the bridge, and sends router advertisements.
ip -n "${NS[3]}" addr flush dev e0 scope global
cat >"$XT_TMP/udhcpc.sh" <<'EOF'
#!/bin/sh
case "$1" in
bound|renew) ip addr add "$ip/${mask:-24}" dev "$interface" ;;
esac
exit 0
EOF
chmod +x "$XT_TMP/udhcpc.sh"
dnsmasq --keep-in-foreground --conf-file=/dev/null --port=0 --user=root \
	--interface="$BR" --bind-interfaces --except-interface=lo \
	--dhcp-range=198.18.0.100,198.18.0.150,255.255.255.0,10m \
	--dhcp-range=2001:2::,ra-only,64 --enable-ra \
	--dhcp-leasefile="$XT_TMP/leases" --pid-file="$XT_TMP/dnsmasq.pid" \
	--log-facility="$XT_TMP/dnsmasq.log" &
XT_PIDS+=("$!")
sleep 0.5
check "udhcpc in h3 gets a lease through the bridge" \
	ip netns exec "${NS[3]}" busybox udhcpc -i e0 -n -q -f -t 5 -T 1 -s "$XT_TMP/udhcpc.sh"
leased=$(ip -n "${NS[3]}" -j addr show dev e0 |
	jq -r '[.[0].addr_info[] | select(.family == "inet" and (.local | startswith("198.18.0.1")))][0].local // empty')
check "h3 has an address from the range (${leased:-none})" test -n "$leased"
check "dnsmasq's lease file has h3's MAC and address" \
	bash -c "grep -i '${MAC[3]}' '$XT_TMP/leases' | grep -q ' ${leased:-none} '"
check "the host reaches h3 at its leased address" ping -c 1 -W 2 "${leased:-198.18.0.99}"
if xt_poll 15 json_is array '[.[0].addr_info[] | select(.dynamic == true)] | length > 0' -- \
	ip -n "${NS[1]}" -6 -j addr show dev e0 scope global; then
	pass "h1 configured an IPv6 address from the host's router advertisement"
else
	fail "h1 configured an IPv6 address from the host's router advertisement" \
		"$(ip -n "${NS[1]}" -6 addr show dev e0)" "$(cat "$XT_TMP/dnsmasq.log" 2>/dev/null | tail -5)"
fi
kill "$(cat "$XT_TMP/dnsmasq.pid" 2>/dev/null)" 2>/dev/null

# ---------------------------------------------------------------- restarts
# restart LABEL SIGNAL: h1 pings the host every 10 ms while the daemon
# (started with -k) is stopped with SIGNAL and started again.
restart()
{
	local label=$1 sig=$2 out=$XT_TMP/ping.$1.out pid sum
	ip netns exec "${NS[1]}" ping -i 0.01 -c "$COUNT" -w 30 "$HOST4" >"$out" 2>&1 &
	pid=$!
	XT_PIDS+=("$pid")
	xt_poll 5 bash -c "[ \$(grep -c 'bytes from' $out) -ge 30 ]" ||
		fail "$label: ping h1 -> host is running" "$(tail -3 "$out")"
	daemon_stop "$sig"
	check "$label: $BR is still there with no daemon, with its addresses" \
		json_is array '[.[0].addr_info[].local] | index($a) != null' --arg a "$HOST4" -- \
		ip -j addr show dev "$BR"
	daemon_start -k || abort "$label: restart" "$XT_WHY"
	check "$label: the new daemon took the host interface over" \
		grep -q "host interface $BR: taken over" "$DAEMON_LOG"
	wait "$pid"
	sum=$(ping_summary "$out")
	check_eq "$label: $COUNT pings h1 -> host across the restart, none lost" "$COUNT $COUNT" \
		"$sum" "$(tail -3 "$out")"
	check_same_match "$label: same address" "$XT_MAC_RE" "$mac" "$(host_mac)"
	check "$label: the local entry is there" local_entry "$mac" 0
	check_eq "$label: still one host port" 1 \
		"$("$XDPBR" -b "$BR" -j link show | jq '[.[] | select(.host_interface != null)] | length')"
}
daemon_stop
check "a normal stop deletes the host interface" bash -c "! ip link show dev $BR 2>/dev/null"
daemon_start -k || abort "xdpbrd -k" "$XT_WHY"
check_same_match "a new host interface has the same derived address" "$XT_MAC_RE" "$mac" \
	"$(host_mac)"
host_up || fail "configuring $BR again"
xt_poll 5 host_port_forwarding || fail "the host port forwards again" "$(host_json)"
check "h1 -> host" hexec 1 ping -c 1 -W 2 "$HOST4"
restart "--keep" TERM
restart "SIGKILL" KILL

# ---------------------------------------------------------------- VLANs
# With VLAN filtering, the host's address is local in each VLAN of its port.
check "vlan_filtering on" "$XDPBR" -b "$BR" bridge set vlan_filtering on
check "xdpbr vlan add dev $BR-host vid 10" "$XDPBR" -b "$BR" vlan add dev "$BR-host" vid 10
if xt_poll 3 local_entry "$mac" 10; then
	pass "the host's address becomes local in VLAN 10"
else
	fail "the host's address becomes local in VLAN 10" "$("$XDPBR" -b "$BR" fdb show)"
fi
check "... and stays local in the PVID, VLAN 1" local_entry "$mac" 1
check "xdpbr vlan del dev $BR-host vid 10" "$XDPBR" -b "$BR" vlan del dev "$BR-host" vid 10
xt_poll 3 bash -c "! '$XDPBR' -b $BR fdb show | grep -q '^$mac .* vlan 10 '" ||
	fail "the VLAN 10 entry leaves with the membership" "$("$XDPBR" -b "$BR" fdb show)"
check "host -> h2 with VLAN filtering" ping -c 1 -W 2 "${IP4[2]}"
daemon_stop
check "a daemon started with -k leaves $BR on SIGTERM" ip link show dev "$BR"
daemon_start || abort "xdpbrd after -k" "$XT_WHY"
check "the next daemon (no -k) takes it over" grep -q "host interface $BR: taken over" "$DAEMON_LOG"
daemon_stop
check "and deletes it when it stops" bash -c "! ip link show dev $BR 2>/dev/null"

# ---------------------------------------------------------------- errors
# Someone else's veth with the bridge's name (this kernel has no dummy).
ip link add "$BR" type veth peer name "${BR}x" || abort "ip link add $BR type veth"
"$XDPBRD" -d "$XT_DATAPATH" "$BR" "${PORTS[@]}" >"$XT_TMP/taken.out" 2>&1
rc=$?
check_eq "a foreign interface named $BR: xdpbrd exits 1" 1 "$rc" "$(cat "$XT_TMP/taken.out")"
check "... saying what it is and what to do" \
	grep -q "an interface named $BR exists and is not the host interface.*(it is veth).*host_interface = off" \
	"$XT_TMP/taken.out"
check "... leaving no pins" test ! -e "$PIN_DIR"
check "... and the other veth alone" \
	json_is array '.[0].ifalias == null and .[0].link == $l' --arg l "${BR}x" -- \
	ip -j link show dev "$BR"
daemon_start -H off || fail "xdpbrd -H off beside the other veth" "$XT_WHY"
check_eq "-H off: no host port" 0 \
	"$("$XDPBR" -b "$BR" -j link show | jq '[.[] | select(.host_interface != null)] | length')"
daemon_stop
ip link del "$BR"

# host_interface and mac in the file; SIGHUP turns it on and off. No -H
# on the command line: it would win over the file.
XT_HOSTIF=
cat >"$CONF" <<EOF
[bridge]
name = $BR
host_interface = off
mac = 02:00:5e:10:00:01
[port ${PORTS[0]}]
[port ${PORTS[1]}]
[port ${PORTS[2]}]
EOF
pfx_daemon_start 3 -c "$CONF" || abort "xdpbrd -c" "$XT_WHY"
check "host_interface = off: no $BR" bash -c "! ip link show dev $BR 2>/dev/null"
sed -i 's/^host_interface = off/host_interface = on/' "$CONF"
kill -HUP "$DAEMON_PID"
if xt_poll 5 host_json; then
	pass "SIGHUP with host_interface = on: the host port joins"
else
	fail "SIGHUP with host_interface = on: the host port joins" "$(cat "$DAEMON_LOG")"
fi
check_eq "mac = 02:00:5e:10:00:01 is its address" 02:00:5e:10:00:01 "$(host_mac)"
xt_poll 3 local_entry 02:00:5e:10:00:01 0 || fail "the configured address is local" \
	"$("$XDPBR" -b "$BR" fdb show)"
sed -i 's/^mac = .*/mac = 02:00:5e:10:00:02/' "$CONF"
kill -HUP "$DAEMON_PID"
xt_poll 5 local_entry 02:00:5e:10:00:02 0 || fail "SIGHUP: a new mac is applied" \
	"$(host_mac)" "$("$XDPBR" -b "$BR" fdb show)"
check_eq "SIGHUP: the interface has the new mac" 02:00:5e:10:00:02 "$(host_mac)"
sed -i 's/^host_interface = on/host_interface = off/' "$CONF"
kill -HUP "$DAEMON_PID"
if xt_poll 5 bash -c "! ip link show dev $BR 2>/dev/null"; then
	pass "SIGHUP with host_interface = off: $BR is gone"
else
	fail "SIGHUP with host_interface = off: $BR is gone" "$(cat "$DAEMON_LOG")"
fi
check_eq "... and its port and entries" 0 \
	"$("$XDPBR" -b "$BR" -j fdb show | jq '[.[] | select(.state == "permanent")] | length')"
check "the other ports still forward" hping 1 2
printf '[bridge]\nmac = 01:00:5e:00:00:01\n' >"$XT_TMP/bad.conf"
"$XDPBRD" -n -c "$XT_TMP/bad.conf" >"$XT_TMP/bad.out" 2>&1
check_eq "xdpbrd -n: a multicast mac is rejected (exit 1)" 1 "$?" "$(cat "$XT_TMP/bad.out")"
check "... reported as FILE:LINE" grep -q "bad.conf:2: mac" "$XT_TMP/bad.out"
daemon_stop

# ------------------------------------------ XDP ports, the host's on the skb path
# A bridge of NICs: its ports on the XDP path, the host's port (a veth) on
# the skb path by its kind. A redirect reaches the host's port (its peer
# runs NAPI), so the XDP ports flood into it with their devmap broadcast
# and hand the stack no flood: the bridge port's own stack (tcpdump on it)
# sees none of a flood it forwarded. Known unicast to the host goes
# through the stack, keeping its checksum state. (The XDP lane: its hosts
# send with transmit checksum offload off, as XDP ports need.)
skbports()
{
	local v
	v=$(bpftool -j map lookup pinned "$PIN_DIR/xdpbr_skbports" key 0 0 0 0 | jq -r '.value |
		if type == "array" then "0x" + (reverse | map(ltrimstr("0x")) | join("")) else . end')
	[[ $v =~ ^(0x[0-9a-f]+|[0-9]+)$ ]] && echo $((v))
}
if [ "$XT_DATAPATH" = xdp ]; then
	{
		printf '[bridge]\nname = %s\nhost_interface = on\n' "$BR"
		for p in "${PORTS[@]}"; do printf '[port %s]\ndatapath = xdp\n' "$p"; done
	} >"$CONF"
	XT_DATAPATH=auto pfx_daemon_start 3 -c "$CONF" || abort "xdpbrd -c (XDP ports)" "$XT_WHY"
	xt_poll 5 host_json >/dev/null || fail "the host port joins" "$(cat "$DAEMON_LOG")"
	check "the ports run native XDP" json_is array \
		'[.[] | select(.host_interface == null) | .xdp_mode == "native"] | length == 3 and all' \
		-- "$XDPBR" -b "$BR" -j link show
	check_jq "$BR-host runs the skb path" "$(host_json)" '.datapath == "tc"'
	check_eq "no port needs the stack (xdpbr_skbports)" 0 "$(skbports)"
	check "GRO is on on $BR-dev (its NAPI takes the redirects)" \
		bash -c "ethtool -k '$BR-dev' | grep -q '^generic-receive-offload: on'"
	host_up || abort "configuring $BR"
	xt_poll 5 host_port_forwarding || fail "the host port forwards once $BR is up" "$(host_json)"
	check "h1 -> host (IPv4)" hexec 1 ping -c 1 -W 2 "$HOST4"
	check "host -> h2 (IPv6)" ping -6 -c 1 -W 2 "${IP6[2]}"
	cap_start_root port1 "${PORT[1]}" "icmp and dst 198.18.0.255" 4
	cap_start_root host "$BR" "icmp and dst 198.18.0.255" 4
	cap_start bc 2 "icmp and dst 198.18.0.255" 4 || fail "capture on h2" "$XT_TMP"
	fb0=$(port_counter "${PORT[1]}" flood_broadcast)
	hexec 1 ping -b -c 5 -i 0.1 -W 1 198.18.0.255 >/dev/null 2>&1
	cap_end port1
	cap_end host
	cap_end bc
	check_eq "h2 got each of h1's 5 broadcasts once" 5 "$(cap_lines bc | grep -c .)" \
		"$(cap_lines bc)"
	check_eq "... and so did the host" 5 "$(cap_lines host | grep -c .)" "$(cap_lines host)"
	check_eq "... flooded by XDP: ${PORT[1]}'s stack saw none" 0 \
		"$(cap_lines port1 | grep -c .)" "$(cap_lines port1)"
	check_eq "... counted once each (flood_broadcast)" 5 \
		"$(( $(port_counter "${PORT[1]}" flood_broadcast) - fb0 ))"
	csum0=$(nstat -az TcpInCsumErrors | awk '/TcpInCsumErrors/ {print $2}')
	iperf3 -s -1 -D -B "$HOST4" --logfile "$XT_TMP/iperf.s3" && sleep 0.5
	check "iperf3 TCP h1 -> host, 2 s" iperf_moved 1000000 "$XT_TMP/iperf.3" \
		ip netns exec "${NS[1]}" iperf3 -c "$HOST4" -t 2 -J
	csum1=$(nstat -az TcpInCsumErrors | awk '/TcpInCsumErrors/ {print $2}')
	check "... no TCP checksum errors on the host (${csum0:-?} -> ${csum1:-?})" \
		test -n "$csum0" -a "${csum0:-x}" = "${csum1:-y}"
	daemon_stop
fi

finish

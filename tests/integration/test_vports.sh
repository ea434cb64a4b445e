#!/usr/bin/env bash
# datapaths: auto
# Container and VM ports with the offloads every runtime leaves on: no
# ethtool anywhere. h1, h2 are containers (veth ports), h3, h4 are VMs (tap
# ports, with virtio-net headers, checksum and TSO offloads: tools/tapwire),
# all on the skb path (TC) xdpbrd picks for them by kind. TCP and UDP, IPv4
# and IPv6, between every pair; then h5 joins on a port forced to XDP (a
# bridge of both kinds, frames handed from XDP to the stack); the counters
# add up; the daemon is killed (-9) and restarted under traffic between the
# VMs, losing nothing.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

TAPWIRE=$(dirname "$SENDFRAME")/tapwire
CONF=$XT_TMP/xdpbrd.conf

xt_require
[ -x "$TAPWIRE" ] || abort "$TAPWIRE not built (make all)"
xt_need iperf3

# tap_host I: host I is a VM: a netns whose e0 is a tap wired by tapwire
# to the bridge port PORT[I], a tap too.
tap_host()
{
	local i=$1 k
	NS[i]=xt$ID-h$i
	PORT[i]=xt${ID}p$i
	MAC[i]=$(printf '02:00:00:%02x:%02x:%02x' $((ID >> 8)) $((ID & 255)) "$i")
	IP4[i]=198.18.0.$i
	IP6[i]=2001:2::$i
	PORTS+=("${PORT[i]}")
	NHOSTS=$i
	ip netns add "${NS[i]}" || abort "ip netns add ${NS[i]}"
	"$TAPWIRE" "${PORT[i]}" "${NS[i]}" >"$XT_TMP/tapwire.$i" 2>&1 &
	XT_PIDS+=("$!")
	for ((k = 0; k < 50; k++)); do
		grep -q ready "$XT_TMP/tapwire.$i" && break
		sleep 0.1
	done
	{
		sysctl -q -w "net.ipv6.conf.${PORT[i]}.disable_ipv6=1" &&
		ip link set dev "${PORT[i]}" up &&
		ip -n "${NS[i]}" link set dev lo up &&
		ip -n "${NS[i]}" link set dev e0 address "${MAC[i]}" &&
		ip -n "${NS[i]}" addr add "${IP4[i]}/24" dev e0 &&
		ip -n "${NS[i]}" addr add "${IP6[i]}/64" dev e0 nodad &&
		ip -n "${NS[i]}" link set dev e0 up
	} >"$XT_TMP/tap.log" 2>&1 || abort "tap host $i" "$(cat "$XT_TMP/tap.log" "$XT_TMP/tapwire.$i")"
}

# offloads_on I: host I's e0 has transmit checksum offload and TSO on (the
# defaults this test must not change).
offloads_on()
{
	local k
	k=$(hexec "$1" ethtool -k e0 2>&1)
	grep -q '^tx-checksumming: on' <<<"$k" &&
		grep -q '^tcp-segmentation-offload: on' <<<"$k"
}

# iperf I J PROTO FAMILY SECS: iperf3 from host I to host J (tcp or udp,
# 4 or 6); the rate in Mbit/s on stdout, 1 when it failed or moved nothing.
iperf()
{
	local i=$1 j=$2 proto=$3 fam=$4 secs=$5 dst out k args=()
	dst=${IP4[j]}
	[ "$fam" = 6 ] && dst=${IP6[j]}
	[ "$proto" = udp ] && args=(-u -b 100M)
	out=$XT_TMP/iperf.$i.$j
	hexec "$j" iperf3 -s -1 -p 5202 >"$out.s" 2>&1 &
	XT_PIDS+=("$!")
	for ((k = 0; k < 50; k++)); do
		[ -n "$(hexec "$j" ss -Htln '( sport = :5202 )' 2>/dev/null)" ] && break
		sleep 0.1
	done
	timeout $((secs + 10)) ip netns exec "${NS[i]}" iperf3 -"$fam" -c "$dst" -p 5202 \
		-t "$secs" -J --connect-timeout 3000 "${args[@]}" >"$out.json" 2>&1
	json_is object '.error == null and (.end.sum_received.bytes > 0 or
		(.end.sum.bytes > 0 and .end.sum.lost_percent < 5))' -- cat "$out.json" ||
		{ jq -r '.error // empty' "$out.json"; return 1; }
	jq -r '((.end.sum_received.bits_per_second // .end.sum.bits_per_second) / 1e6) | floor' \
		"$out.json"
}

# traffic_ok I J: TCP and UDP over IPv4 and IPv6 from I to J.
traffic_ok()
{
	local i=$1 j=$2 proto fam r
	for proto in tcp udp; do
		for fam in 4 6; do
			if r=$(iperf "$i" "$j" "$proto" "$fam" 1); then
				pass "h$i -> h$j: $proto over IPv$fam (${r} Mbit/s)"
			else
				fail "h$i -> h$j: $proto over IPv$fam" "$r" \
					"$(cat "$XT_TMP/iperf.$i.$j.json" 2>/dev/null | tail -5)"
			fi
		done
	done
}

topo_up 2
tap_host 3
tap_host 4
for i in 1 2 3 4; do
	check "h$i keeps the default offloads (tx checksum, TSO on)" offloads_on "$i"
done

{
	printf '[bridge]\nname = %s\nlisten = none\n' "$BR"
	for p in "${PORTS[@]}"; do
		printf '[port %s]\n' "$p"
	done
} >"$CONF"
pfx_daemon_start 4 -c "$CONF" || abort "xdpbrd -c" "$XT_WHY"
json=$(pfx_link_json 2>&1)
check_jq "link show: veth ports are kind veth, datapath tc" "$json" \
	'[.[] | select(.ifname == $a or .ifname == $b)] |
	 length == 2 and all(.[]; .kind == "veth" and .datapath == "tc" and .xdp_mode == "none")' \
	--arg a "${PORT[1]}" --arg b "${PORT[2]}"
check_jq "link show: tap ports are kind tap, datapath tc" "$json" \
	'[.[] | select(.ifname == $a or .ifname == $b)] |
	 length == 2 and all(.[]; .kind == "tap" and .datapath == "tc")' \
	--arg a "${PORT[3]}" --arg b "${PORT[4]}"
check "link show (text) says kind and datapath" \
	grep -q "kind tap datapath tc" <<<"$("$XDPBR" -b "$BR" link show 2>&1)"
check_fail "no veth warning about checksum offload or GRO" \
	grep -Eq 'checksum offload|GRO' "$DAEMON_LOG"

for i in 1 2 3 4; do
	for ((j = i + 1; j <= 4; j++)); do
		traffic_ok "$i" "$j"
	done
done
traffic_ok 4 1
check "counters: rx_packets == the sum of the outcomes on every port" counters_add_up
check_jq "counters: h3's port counted TSO super-frames as wire frames (rx_bytes / rx_packets <= 1518)" \
	"$(obs_cli_ports)" 'all(.[] | select(.ifname == $p); .rx_bytes / .rx_packets <= 1518)' \
	--arg p "${PORT[3]}"

# --- a bridge of both kinds: h5 joins on a veth port forced to XDP, its
# host as it is (the XDP port hands what it can't deliver to the stack)
topo_up 5 5
printf '[port %s]\ndatapath = xdp\n' "${PORT[5]}" >>"$CONF"
check "SIGHUP adds h5's port" kill -HUP "$DAEMON_PID"
if pfx_poll 5 pfx_link_is "${PORT[5]}" xdp_mode '"native"'; then
	pass "h5's port joins on XDP (datapath = xdp)"
else
	fail "h5's port joins on XDP (datapath = xdp)" "$(pfx_link_json 2>&1)" "$(cat "$DAEMON_LOG")"
fi
check "h5's port also runs the TC program, for frames handed to the stack" \
	test "$(port_tc "${PORT[5]}")" != null
check "ping h5 -> h1 (XDP port to veth port)" hping 5 1
check "ping h3 -> h5 (tap port to XDP port)" hping 3 5 -6
for j in 1 3; do
	if r=$(iperf 5 "$j" tcp 4 2); then
		pass "h5 (XDP port) -> h$j: tcp over IPv4 (${r} Mbit/s)"
	else
		fail "h5 (XDP port) -> h$j: tcp over IPv4" "$r"
	fi
	if r=$(iperf "$j" 5 tcp 4 2); then
		pass "h$j -> h5 (XDP port): tcp over IPv4 (${r} Mbit/s)"
	else
		fail "h$j -> h5 (XDP port): tcp over IPv4" "$r"
	fi
done
# (a frame between the XDP program and the TC one is counted in, not yet
# out: give the last ones a moment)
xt_poll 2 counters_add_up
check "counters still add up with an XDP port" counters_add_up

# --- a VM on a tap port forced to XDP: the tun driver's native XDP, frames
# both ways (TCP with the VM's offloads needs the skb path, the default)
tap_host 6
printf '[port %s]\ndatapath = xdp\n' "${PORT[6]}" >>"$CONF"
check "SIGHUP adds h6's tap port" kill -HUP "$DAEMON_PID"
if pfx_poll 5 pfx_link_is "${PORT[6]}" xdp_mode '"native"'; then
	pass "h6's tap port joins on native XDP (the tun driver's)"
else
	fail "h6's tap port joins on native XDP (the tun driver's)" "$(pfx_link_json 2>&1)" \
		"$(cat "$DAEMON_LOG")"
fi
check_jq "link show: kind tap, datapath xdp" "$(pfx_link_json "${PORT[6]}" 2>&1)" \
	'.[0].kind == "tap" and .[0].datapath == "xdp"'
rx6=$(port_counter "${PORT[6]}" rx_packets)
tx6=$(port_counter "${PORT[6]}" tx_packets)
for j in 1 3 5; do
	check "ping h6 -> h$j (XDP tap port)" hping 6 "$j"
	check "ping h$j -> h6 over IPv6 (XDP tap port)" hping "$j" 6 -6
done
check "h6's port counted frames in (rx_packets ${rx6:-?} -> more)" \
	test "$(port_counter "${PORT[6]}" rx_packets)" -gt "${rx6:-0}"
check "... and out (tx_packets ${tx6:-?} -> more)" \
	test "$(port_counter "${PORT[6]}" tx_packets)" -gt "${tx6:-0}"
check "tapwire (the VM's side) saw frames both ways" \
	json_is array '.[0].stats64.rx.packets > 0 and .[0].stats64.tx.packets > 0' -- \
	hexec 6 ip -s -j link show dev e0

# --- SIGKILL under traffic between the VMs, restart: nothing lost
hexec 3 ping -i 0.01 -c 400 -w 30 "${IP4[4]}" >"$XT_TMP/ping.k" 2>&1 &
ping_pid=$!
XT_PIDS+=("$ping_pid")
sleep 0.5
fdb0=$("$XDPBR" -b "$BR" -j fdb show 2>&1 | jq -c '[.[] | {mac, ifname}] | sort')
daemon_stop KILL
check "SIGKILL: every port keeps its program" xdp_everywhere
pfx_daemon_start 6 -c "$CONF" || abort "restart" "$XT_WHY"
check "restart: the new xdpbrd adopted the bridge" log_poll "$DAEMON_LOG" adopt 5
wait "$ping_pid"
line=$(grep 'packets transmitted' "$XT_TMP/ping.k")
check "SIGKILL and restart: 400 pings h3 -> h4 (taps), none lost" \
	grep -q '400 packets transmitted, 400 received' <<<"$line"
check_same_json "restart: the FDB is as it was" "$fdb0" \
	"$("$XDPBR" -b "$BR" -j fdb show 2>&1 | jq -c '[.[] | {mac, ifname}] | sort')"
check "restart: every port runs the pinned program of its path" xdp_everywhere
if r=$(iperf 3 4 tcp 4 1); then
	pass "after the restart: h3 -> h4 tcp (${r} Mbit/s)"
else
	fail "after the restart: h3 -> h4 tcp" "$r"
fi

daemon_stop TERM
check_eq "SIGTERM: xdpbrd exits 0" 0 "$DAEMON_RC" "$(cat "$DAEMON_LOG")"
check "SIGTERM: no XDP program or TC filter left on any port" no_xdp_anywhere
finish

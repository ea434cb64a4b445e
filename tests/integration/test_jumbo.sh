#!/usr/bin/env bash
# Jumbo frames: ports and hosts h1, h2 with MTU 9000, h3 with 1500.
#   - the daemon warns that the ports' MTUs differ;
#   - ping -s 8900 -M do and an iperf3 TCP run cross between h1 and h2
#     (native multi-buffer XDP on the XDP path);
#   - 8942-byte frames from h1 to h3 (whose port has MTU 1500) are dropped
#     and counted as drop_mtu on h1's port, not delivered, while
#     ordinary frames still reach h3;
#   - a jumbo broadcast reaches h2 whole, and h3's port counts the copy it
#     could not send as tx_dropped_mtu.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

JUMBO=9000
PAYLOAD=8900		# ICMP payload: an 8928-byte IPv4 packet, 8942-byte frame

xt_require
topo_up 3
for i in 1 2; do
	ip link set dev "${PORT[i]}" mtu "$JUMBO" &&
		hexec "$i" ip link set dev e0 mtu "$JUMBO" ||
		abort "MTU $JUMBO on host $i"
done
daemon_start || abort "xdpbrd start" "$XT_WHY"

if log_poll "$DAEMON_LOG" "ports have different MTUs \(1500 on ${PORT[3]}, $JUMBO on" 5; then
	pass "the daemon warns that the ports' MTUs differ"
else
	fail "the daemon warns that the ports' MTUs differ" "$(cat "$DAEMON_LOG")"
fi
check_jq "link show: ${PORT[1]} has MTU $JUMBO" \
	"$(json_of array "$XDPBR" -b "$BR" -j link show dev "${PORT[1]}")" \
	".[0].mtu == $JUMBO"

# h1 <-> h2: whole jumbo frames, never fragmented (-M do).
check "ping -s $PAYLOAD -M do h1 -> h2" \
	ping_all 1 3 -i 0.2 -W 2 -s "$PAYLOAD" -M do "${IP4[2]}"
check "ping -6 -s $PAYLOAD -M do h2 -> h1" \
	ping_all 2 3 -6 -i 0.2 -W 2 -s "$PAYLOAD" -M do "${IP6[1]}"
bytes0=$(port_counter "${PORT[1]}" rx_bytes)
pkts0=$(port_counter "${PORT[1]}" rx_packets)
if flt_iperf_start jumbo 1 2 3 && flt_iperf_wait jumbo 15; then
	pass "iperf3 TCP h1 -> h2 at MTU $JUMBO: $FLT_IPERF_MBPS Mbit/s"
else
	fail "iperf3 TCP h1 -> h2 at MTU $JUMBO" "rc $FLT_IPERF_RC, ${XT_WHY:-}" \
		"$(cat "$XT_TMP/iperf.jumbo.err" "$XT_TMP/iperf.jumbo.json" 2>/dev/null | tail -20)"
fi
bytes1=$(port_counter "${PORT[1]}" rx_bytes)
pkts1=$(port_counter "${PORT[1]}" rx_packets)
# The wire frames of the run: more than 1514 bytes on average, which frames
# of a 1500 MTU could never be.
avg=$(((bytes1 - bytes0) / (pkts1 - pkts0 > 0 ? pkts1 - pkts0 : 1)))
if ((avg > 1514)); then
	pass "the iperf3 run crossed in jumbo frames (average $avg bytes a frame)"
else
	fail "the iperf3 run crossed in jumbo frames" \
		"rx_bytes $bytes0 -> $bytes1, rx_packets $pkts0 -> $pkts1, average $avg"
fi

# h1 -> h3: too big for h3's port.
check "ping h1 -> h3 (ordinary size)" hping 1 3
mtu0=$(port_counter "${PORT[1]}" drop_mtu)
cap_start big3 3 "greater 1515" 4 || fail "capture in h3" "$XT_WHY"
check_fail "ping -s $PAYLOAD h1 -> h3 gets no answer" \
	hexec 1 ping -c 3 -i 0.2 -W 1 -s "$PAYLOAD" "${IP4[3]}"
mtu1=$(port_counter "${PORT[1]}" drop_mtu)
check_eq "the 3 frames too big for ${PORT[3]} are counted as drop_mtu on ${PORT[1]}" \
	3 "$((mtu1 - mtu0))"
n=$(cap_wait big3)
check_eq "none of them reaches h3" 0 "$n" "$(cap_show big3)"
check "ping h1 -> h3 still works after" hping 1 3

# A jumbo broadcast: whole to h2, refused (and counted) on h3's port.
cap_start bc2 2 "ether broadcast and greater 8000" 6 2 || fail "capture in h2" "$XT_WHY"
cap_start bc3 3 "ether broadcast and icmp" 4 || fail "capture in h3" "$XT_WHY"
drop0=$(port_counter "${PORT[3]}" tx_dropped_mtu)
hexec 1 ping -b -c 2 -i 0.3 -W 1 -s "$PAYLOAD" "198.18.0.255" >/dev/null 2>&1
n=$(cap_wait bc2)
check_eq "both jumbo broadcasts from h1 reach h2 whole" 2 "$n" "$(cap_show bc2)"
n=$(cap_wait bc3)
check_eq "no jumbo broadcast reaches h3" 0 "$n" "$(cap_show bc3)"
drop1=$(port_counter "${PORT[3]}" tx_dropped_mtu)
check_eq "${PORT[3]} counts the 2 copies it could not send as tx_dropped_mtu" \
	2 "$((drop1 - drop0))"

finish

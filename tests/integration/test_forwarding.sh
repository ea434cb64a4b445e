#!/usr/bin/env bash
# Forwarding through the bridge with real traffic between three hosts:
# reachability (IPv4, IPv6), flooding of broadcasts, no flooding of learned
# unicast, and the FDB as the CLI shows it.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

xt_require
topo_up 3
daemon_start || abort "xdpbrd start" "$XT_WHY"
sleep 1

# Every host reaches every other host, both address families.
for i in 1 2 3; do
	for j in 1 2 3; do
		[ "$i" = "$j" ] && continue
		check "ping h$i -> h$j IPv4" hping "$i" "$j"
		check "ping h$i -> h$j IPv6" hping "$i" "$j" -6
	done
done

# An ARP broadcast from h1 reaches both other hosts.
filter="arp and ether src ${MAC[1]} and ether broadcast"
cap_start arp2 2 "$filter" 5 1 || fail "capture ARP in h2" "$XT_WHY"
cap_start arp3 3 "$filter" 5 1 || fail "capture ARP in h3" "$XT_WHY"
hexec 1 timeout 5 arping -c 1 -I e0 "${IP4[2]}" >"$XT_TMP/arping.out" 2>&1
for i in 2 3; do
	n=$(cap_wait "arp$i")
	check_eq "ARP broadcast from h1 reaches h$i" 1 "$n" \
		"arping: $(cat "$XT_TMP/arping.out")" "$(cap_show "arp$i")"
done

# Once h1 and h2 are learned, unicast between them stays off h3's port.
# h2's capture is the control: the same filter does see the traffic there.
hping 1 2 >/dev/null
hping 2 1 >/dev/null
filter="icmp and host ${IP4[1]} and host ${IP4[2]}"
cap_start uc3 3 "$filter" 4 || fail "capture unicast in h3" "$XT_WHY"
cap_start uc2 2 "$filter" 4 || fail "capture unicast in h2" "$XT_WHY"
check "5 pings h1 -> h2 after learning" \
	ping_all 1 5 -i 0.2 -W 2 "${IP4[2]}"
n3=$(cap_wait uc3)
n2=$(cap_wait uc2)
check_eq "learned unicast h1 <-> h2 is not seen by h3" 0 "$n3" "$(cap_show uc3)"
if [ "$n2" -ge 10 ]; then
	pass "learned unicast h1 <-> h2 is seen by h2 (capture works)"
else
	fail "learned unicast h1 <-> h2 is seen by h2 (capture works)" \
		"expected 10 packets (5 requests, 5 replies), got $n2" \
		"$(cap_show uc2)"
fi

# The FDB lists every host on its port, in JSON and in text.
json=$("$XDPBR" -b "$BR" -j fdb show 2>&1)
check_jq "fdb show -j is an array of {mac, ifname, vlan, master, state, flags, updated}" \
	"$json" 'type == "array" and length >= 3 and
	 all(.[]; has("mac") and has("ifname") and has("vlan") and
		  has("master") and has("state") and has("flags") and
		  has("updated"))'
text=$("$XDPBR" -b "$BR" fdb show 2>&1)
for i in 1 2 3; do
	check_jq "fdb show -j: ${MAC[i]} (h$i) on ${PORT[i]}, master $BR" "$json" \
		'any(.[]; (.mac | ascii_downcase) == $mac and .ifname == $port and
		     .master == $br and .state == "")' \
		--arg mac "${MAC[i]}" --arg port "${PORT[i]}" --arg br "$BR"
	if grep -qiE "^${MAC[i]} dev ${PORT[i]} .*master $BR( |$)" <<<"$text"; then
		pass "fdb show: ${MAC[i]} (h$i) dev ${PORT[i]}"
	else
		fail "fdb show: ${MAC[i]} (h$i) dev ${PORT[i]}" "$text"
	fi
done
json=$("$XDPBR" -b "$BR" -j fdb show dev "${PORT[2]}" 2>&1)
check_jq "fdb show dev ${PORT[2]}: only that port, with h2" "$json" \
	'length >= 1 and all(.[]; .ifname == $port) and
	 any(.[]; (.mac | ascii_downcase) == $mac)' \
	--arg port "${PORT[2]}" --arg mac "${MAC[2]}"

finish

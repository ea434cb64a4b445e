#!/usr/bin/env bash
# Static FDB entries: `xdpbr fdb add` (static by default), they never age
# and never move (a frame from another port with a static MAC as its source
# is dropped and counted as drop_spoofed_static); `fdb del`, `fdb flush` with
# its filters, and the errors of `fdb add` / `fdb del`.
#
# The hosts are kept quiet (no IPv6, permanent ARP entries): the FDB only
# changes through the test's own traffic and commands.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks enumerate exactly the ports and FDB entries it made

# fdb_count FILTER: number of FDB entries for which the jq FILTER is true.
fdb_count()
{
	fdb_json | jq --arg p1 "$P1" --arg p2 "$P2" --arg p3 "$P3" \
		"[.[] | select($1)] | length"
}

# populate: an FDB with every kind of entry. Dynamic, learned: h1, h2, h3
# (on P1, P2, P3). Static: S1 on P1, S2 on P2, V on P3 in VLAN 10. Dynamic,
# added: D on P1.
populate()
{
	local out
	out=$({
		"$XDPBR" -b "$BR" fdb flush &&
		hping 1 2 && hping 3 1 &&
		"$XDPBR" -b "$BR" fdb add "$S1" dev "$P1" static &&
		"$XDPBR" -b "$BR" fdb add "$S2" dev "$P2" static &&
		"$XDPBR" -b "$BR" fdb add "$V" dev "$P3" vlan 10 static &&
		"$XDPBR" -b "$BR" fdb add "$D" dev "$P1" dynamic
	} 2>&1) || fail "populate the FDB" "$out"
	local n
	n=$(fdb_count true)
	[ "$n" = 7 ] || fail "populate the FDB: 7 entries" "got $n" "$(fdb_json 2>&1)"
}

xt_require
topo_up 3
hosts_quiet || abort "hosts_quiet"
daemon_start || abort "xdpbrd start" "$XT_WHY"
P1=${PORT[1]}
P2=${PORT[2]}
P3=${PORT[3]}
M2=${MAC[2]}
S1=$(test_mac 1)
S2=$(test_mac 2)
V=$(test_mac 3)
D=$(test_mac 4)
X=$(test_mac 5)

# --- fdb add ... static
check "ping h1 -> h2" hping 1 2
check "ping h3 -> h1" hping 3 1
check "h2 learned on $P2 (dynamic)" fdb_has "$M2" "$P2" ""
check "fdb add $M2 dev $P2 static" "$XDPBR" -b "$BR" fdb add "$M2" dev "$P2" static
json=$(fdb_json 2>&1)
check_jq "fdb show: $M2 on $P2, state static, vlan 0, once" "$json" \
	'[.[] | select((.mac | ascii_downcase) == $mac)] |
	 length == 1 and .[0].ifname == $port and .[0].state == "static" and
	 .[0].vlan == 0' --arg mac "$M2" --arg port "$P2"
check_jq "fdb show static: lists $M2" "$(fdb_json static 2>&1)" \
	'length >= 1 and all(.[]; .state == "static") and
	 any(.[]; (.mac | ascii_downcase) == $mac)' --arg mac "$M2"
check_jq "fdb show dynamic: does not list $M2, lists h1" "$(fdb_json dynamic 2>&1)" \
	'all(.[]; .state == "" and (.mac | ascii_downcase) != $mac) and
	 any(.[]; (.mac | ascii_downcase) == $h1)' --arg mac "$M2" --arg h1 "${MAC[1]}"
check "fdb add $X dev $P1 (no kind: static)" "$XDPBR" -b "$BR" fdb add "$X" dev "$P1"
check "fdb show: $X on $P1 is static" fdb_has "$X" "$P1" static
check "fdb add $D dev $P1 dynamic" "$XDPBR" -b "$BR" fdb add "$D" dev "$P1" dynamic
check "fdb show: $D on $P1 is dynamic" fdb_has "$D" "$P1" ""
check_jq "bridge show: fdb_static 2 ($M2 $X), fdb_dynamic 3 (h1 h3 $D), fdb_entries 5" \
	"$("$XDPBR" -b "$BR" -j bridge show 2>&1)" \
	'.[0].fdb_static == 2 and .[0].fdb_dynamic == 3 and .[0].fdb_entries == 5'

# --- static entries do not age; dynamic ones (the control) do
check "bridge set ageing_time 1" "$XDPBR" -b "$BR" bridge set ageing_time 1
if xt_poll 6 fdb_lacks "$D"; then
	pass "ageing_time 1: dynamic $D ages out (control)"
else
	fail "ageing_time 1: dynamic $D ages out within 6 s (control)" "$(fdb_json 2>&1)"
fi
sleep 3
check "ageing_time 1, after 3 s: $M2 still static on $P2" fdb_has "$M2" "$P2" static
check "ageing_time 1, after 3 s: $X still static on $P1" fdb_has "$X" "$P1" static
check_eq "ageing_time 1, after 3 s: no dynamic entry left" 0 \
	"$(fdb_count '.state == ""' 2>&1)" "$(fdb_json 2>&1)"
# The datapath still forwards to it: a unicast h1 -> h2 stays off h3.
for i in 2 3; do
	cap_start "st$i" "$i" "ether proto 0x88b5 and ether src ${MAC[1]}" 3 1 ||
		fail "capture in h$i" "$XT_WHY"
done
check "sendframe h1 -> $M2" hexec 1 "$SENDFRAME" e0 "$(eth_frame "$M2" "${MAC[1]}")"
n=$(cap_wait st2)
check_eq "after the ageing time: unicast to static $M2 reaches h2" 1 "$n" "$(cap_show st2)"
n=$(cap_wait st3)
check_eq "after the ageing time: unicast to static $M2 is not flooded to h3" 0 "$n" \
	"$(cap_show st3)"
check "bridge set ageing_time 300" "$XDPBR" -b "$BR" bridge set ageing_time 300

# --- a static MAC as the source on another port: dropped, the entry stays
spoof=$(eth_frame ff:ff:ff:ff:ff:ff "$M2" 88b5)
ctl=$(eth_frame ff:ff:ff:ff:ff:ff "${MAC[3]}" 88b6)
cap_start spoof1 1 "ether proto 0x88b5" 3 || fail "capture in h1" "$XT_WHY"
cap_start ctl1 1 "ether proto 0x88b6" 3 1 || fail "capture in h1" "$XT_WHY"
before=$(port_counter "$P3" drop_spoofed_static)
check "sendframe from h3 with source $M2 (static on $P2)" hexec 3 "$SENDFRAME" e0 "$spoof"
check "sendframe from h3 with its own source (control)" hexec 3 "$SENDFRAME" e0 "$ctl"
n=$(cap_wait spoof1)
check_eq "frame with spoofed static source is not seen by h1" 0 "$n" "$(cap_show spoof1)"
n=$(cap_wait ctl1)
check_eq "frame with h3's own source is seen by h1 (control)" 1 "$n" "$(cap_show ctl1)"
after=$(port_counter "$P3" drop_spoofed_static)
check_eq "drop_spoofed_static on $P3: +1" "$((before + 1))" "$after" \
	"$("$XDPBR" -b "$BR" -j stats dev "$P3" 2>&1)"
check "after the spoofed frame: $M2 still static on $P2 (did not move)" \
	fdb_has "$M2" "$P2" static
check_eq "after the spoofed frame: $M2 only on $P2" 1 \
	"$(fdb_count "(.mac | ascii_downcase) == \"$M2\"" 2>&1)" "$(fdb_json 2>&1)"

# --- fdb del
check_err "fdb del $M2 dev $P1 (it is on $P2): fails" \
	"$XDPBR" -b "$BR" fdb del "$M2" dev "$P1"
check "fdb del $M2 dev $P1: the entry on $P2 is kept" fdb_has "$M2" "$P2" static
check_err "fdb del $M2 vlan 10 (it is in VLAN 0): fails" \
	"$XDPBR" -b "$BR" fdb del "$M2" vlan 10
check "fdb del $M2" "$XDPBR" -b "$BR" fdb del "$M2"
check "fdb del $M2: gone" fdb_lacks "$M2"
check_err "fdb del $M2 again (missing): fails" "$XDPBR" -b "$BR" fdb del "$M2"
check "fdb del $X dev $P1 vlan 0" "$XDPBR" -b "$BR" fdb del "$X" dev "$P1" vlan 0
check "fdb del $X dev $P1 vlan 0: gone" fdb_lacks "$X"

# --- fdb flush and its filters
populate
check_jq "fdb show vlan 10: only $V" "$(fdb_json vlan 10 2>&1)" \
	'length == 1 and (.[0].mac | ascii_downcase) == $v and .[0].vlan == 10' \
	--arg v "$V"
check "fdb flush dev $P1" "$XDPBR" -b "$BR" fdb flush dev "$P1"
check_eq "fdb flush dev $P1: nothing left on $P1" 0 "$(fdb_count '.ifname == $p1' 2>&1)" \
	"$(fdb_json 2>&1)"
check_eq "fdb flush dev $P1: the 4 entries on $P2, $P3 are kept" 4 \
	"$(fdb_count '.ifname != $p1' 2>&1)" "$(fdb_json 2>&1)"

populate
check "fdb flush dynamic" "$XDPBR" -b "$BR" fdb flush dynamic
check_eq "fdb flush dynamic: no dynamic entry left" 0 "$(fdb_count '.state != "static"' 2>&1)" \
	"$(fdb_json 2>&1)"
check_eq "fdb flush dynamic: the 3 static entries are kept" 3 \
	"$(fdb_count '.state == "static"' 2>&1)" "$(fdb_json 2>&1)"

populate
check "fdb flush static" "$XDPBR" -b "$BR" fdb flush static
check_eq "fdb flush static: no static entry left" 0 "$(fdb_count '.state == "static"' 2>&1)" \
	"$(fdb_json 2>&1)"
check_eq "fdb flush static: the 4 dynamic entries are kept" 4 \
	"$(fdb_count '.state == ""' 2>&1)" "$(fdb_json 2>&1)"

populate
check "fdb flush vlan 0" "$XDPBR" -b "$BR" fdb flush vlan 0
check_jq "fdb flush vlan 0: only $V (VLAN 10) is left" "$(fdb_json 2>&1)" \
	'length == 1 and (.[0].mac | ascii_downcase) == $v and .[0].vlan == 10' \
	--arg v "$V"

populate
check "fdb flush dev $P3 vlan 10 static" "$XDPBR" -b "$BR" fdb flush dev "$P3" vlan 10 static
check_eq "fdb flush dev $P3 vlan 10 static: only $V removed" 6 "$(fdb_count true 2>&1)" \
	"$(fdb_json 2>&1)"
check "fdb flush (everything)" "$XDPBR" -b "$BR" fdb flush
check_eq "fdb flush: FDB empty" 0 "$(fdb_count true 2>&1)" "$(fdb_json 2>&1)"
check_eq "fdb flush: bridge show fdb_entries 0" 0 "$(bridge_field fdb_entries 2>&1)"

# --- errors
check_err "fdb add multicast 01:00:5e:00:00:01: fails" \
	"$XDPBR" -b "$BR" fdb add 01:00:5e:00:00:01 dev "$P1"
check_err "fdb add broadcast ff:ff:ff:ff:ff:ff: fails" \
	"$XDPBR" -b "$BR" fdb add ff:ff:ff:ff:ff:ff dev "$P1"
check_err "fdb add bad MAC 02:00:zz:00:00:01: fails" \
	"$XDPBR" -b "$BR" fdb add 02:00:zz:00:00:01 dev "$P1"
check_err "fdb add short MAC 02:00:00:00:01: fails" \
	"$XDPBR" -b "$BR" fdb add 02:00:00:00:01 dev "$P1"
check_err "fdb add dev lo (not a port): fails" \
	"$XDPBR" -b "$BR" fdb add "$S1" dev lo
check_err "fdb add dev xt${ID}nx (no such device): fails" \
	"$XDPBR" -b "$BR" fdb add "$S1" dev "xt${ID}nx"
check_err "fdb add vlan 4095: fails" \
	"$XDPBR" -b "$BR" fdb add "$S1" dev "$P1" vlan 4095
check_err "fdb add without dev: fails" "$XDPBR" -b "$BR" fdb add "$S1"
check_eq "failed fdb add left nothing in the FDB" 0 "$(fdb_count true 2>&1)" \
	"$(fdb_json 2>&1)"
check "fdb add vlan 4094 (the highest VID)" \
	"$XDPBR" -b "$BR" fdb add "$S1" dev "$P1" vlan 4094
check_jq "fdb show: $S1 in VLAN 4094" "$(fdb_json 2>&1)" \
	'length == 1 and .[0].vlan == 4094'
check_err "fdb del of a missing entry: fails" "$XDPBR" -b "$BR" fdb del "$S2" dev "$P2"

finish

#!/usr/bin/env bash
# 802.1Q VLAN-aware bridging (vlan_filtering = on) with real traffic, judged
# by the semantics of a kernel bridge with vlan_filtering 1:
#
#   h1, h2  access ports of VLAN 10 (pvid 10, untagged)
#   h3      access port of VLAN 20 (pvid 20, untagged)
#   h4      trunk: VLANs 10 and 20 tagged, no PVID (untagged frames dropped)
#
# All hosts are in 198.18.0.0/24, so only the VLANs keep them apart. This
# kernel has no 802.1Q devices, so the trunk host h4 sends tagged frames with
# sendframe and what arrives is read with `tcpdump -e` (tag shown as "vlan N").
# The VLANs come from the configuration file; `xdpbr vlan show` must match
# it. At the end VLAN filtering is turned off, by a configuration reload and
# then by `xdpbr bridge set`, and plain bridging must come back.
# test_vlan_config.sh configures VLANs with the CLI instead.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

xt_require
topo_up 4
# Only the test's own frames: no IPv6 chatter (RS, MLD, ND) from the hosts.
for i in 1 2 3 4; do
	hexec "$i" sysctl -q -w net.ipv6.conf.e0.disable_ipv6=1 >/dev/null ||
		abort "disable IPv6 on h$i"
done

# write_conf FILTERING: the configuration (vlan_filtering on or off).
CONF=$XT_TMP/xdpbrd.conf
write_conf()
{
	cat >"$CONF" <<-EOF
	[bridge]
	name = $BR
	vlan_filtering = $1
	[port ${PORT[1]}]
	pvid = 10
	untagged = 10
	[port ${PORT[2]}]
	pvid = 10
	untagged = 10
	[port ${PORT[3]}]
	pvid = 20
	untagged = 20
	[port ${PORT[4]}]
	pvid = 0
	vlans = 10,20
	EOF
}
# What `vlan show` must say about it (vl_members format).
expected_members()
{
	printf '%s\n' "${PORT[1]} 10 Egress Untagged,PVID" \
		"${PORT[2]} 10 Egress Untagged,PVID" \
		"${PORT[3]} 20 Egress Untagged,PVID" \
		"${PORT[4]} 10 -" "${PORT[4]} 20 -" | sort
}

write_conf on
pfx_daemon_start 4 -l none -c "$CONF" || abort "xdpbrd start" "$XT_WHY"
check_eq "bridge show: vlan_filtering on" true "$(bridge_field vlan_filtering)" \
	"$("$XDPBR" -b "$BR" -j bridge show 2>&1)"
sleep 0.5

X=$(test_mac 1)		# one MAC, used in VLAN 10 (behind h1) and 20 (h4)
Y=$(test_mac 2)		# source of the frames that must be dropped
Z=$(test_mac 3)		# source of tagged frames from access port h1
BC=ff:ff:ff:ff:ff:ff
CAPS=2			# seconds a capture lasts

# ------------------------------------------------ same VLAN, other VLAN

check "ping h1 -> h2 (both VLAN 10)" hping 1 2
check "ping h2 -> h1 (both VLAN 10)" hping 2 1
check_fail "ping h1 -> h3 fails (VLAN 10 -> VLAN 20)" hping 1 3
check_fail "ping h3 -> h2 fails (VLAN 20 -> VLAN 10)" hping 3 2

# An ARP broadcast from h1: h2 gets it untagged, h4 tagged 10, h3 nothing.
# (h1 may still be asking for h3 after the failed ping: any ARP request
# from h1 is judged the same way.)
vl_caps b "arp and ether src ${MAC[1]} and ether broadcast" 3 2 3 4
hexec 1 timeout 5 arping -c 1 -I e0 "${IP4[3]}" >"$XT_TMP/arping.out" 2>&1
vl_wait b 2 3 4
n2=$(vl_counts b any 2)
n4=$(vl_counts b any 4)
check_eq "ARP broadcast from h1 reaches h2 (same VLAN, control), untagged" \
	"yes $n2" "$([ "$n2" -ge 1 ] && echo yes) $(vl_counts b untagged 2)" \
	"$(vl_shows b 2)"
check_eq "ARP broadcast from h1 (VLAN 10) never reaches h3 (VLAN 20)" 0 \
	"$(vl_counts b any 3)" "$(vl_shows b 3)"
check_eq "ARP broadcast from h1 reaches trunk h4 tagged 10 (never 20 or untagged)" \
	"yes $n4 0 0" "$([ "$n4" -ge 1 ] && echo yes) $(vl_counts b 10 4) $(vl_counts b 20 4) $(vl_counts b untagged 4)" \
	"$(vl_shows b 4)"

# ------------------------------------------------ trunk <-> access

# A broadcast tagged 20 from the trunk: only h3 gets it, untagged.
vl_caps t "$(vl_filter "${MAC[4]}")" $CAPS 1 2 3
check "sendframe broadcast tagged 20 from trunk h4" vl_send 4 "$BC" "${MAC[4]}" 20
vl_wait t 1 2 3
check_eq "broadcast tagged 20 from h4 reaches h3 only (seen at h1 h2 h3)" "0 0 1" \
	"$(vl_counts t any 1 2 3)" "$(vl_shows t 1 2 3)"
check_eq "... untagged at h3" 1 "$(vl_counts t untagged 3)" "$(vl_shows t 3)"

# The other way: a broadcast from h3 (VLAN 20) reaches h4 tagged 20.
vl_caps r "$(vl_filter "${MAC[3]}")" $CAPS 1 2 4
check "sendframe broadcast from h3" vl_send 3 "$BC" "${MAC[3]}"
vl_wait r 1 2 4
check_eq "broadcast from h3 (VLAN 20) reaches h4 only (seen at h1 h2 h4)" "0 0 1" \
	"$(vl_counts r any 1 2 4)" "$(vl_shows r 1 2 4)"
check_eq "... tagged 20 at h4" 1 "$(vl_counts r 20 4)" "$(vl_shows r 4)"

# Known unicast tagged 20 from the trunk to h3 (h3 learned in VLAN 20 just
# now): to h3 alone, untagged.
before=$(port_counter "${PORT[4]}" forwarded)
vl_caps u "$(vl_filter "${MAC[4]}")" $CAPS 1 2 3
check "sendframe unicast to h3 tagged 20 from h4" vl_send 4 "${MAC[3]}" "${MAC[4]}" 20
vl_wait u 1 2 3
check_eq "unicast tagged 20 from h4 to h3 reaches h3 only (seen at h1 h2 h3)" "0 0 1" \
	"$(vl_counts u any 1 2 3)" "$(vl_shows u 1 2 3)"
check_eq "... untagged at h3" 1 "$(vl_counts u untagged 3)" "$(vl_shows u 3)"
pfx_check_grew "... forwarded as known unicast" "${PORT[4]}" forwarded "$before"

# Known unicast from h3 to h4 (learned in VLAN 20): tagged 20.
vl_caps k "$(vl_filter "${MAC[3]}")" $CAPS 1 2 4
check "sendframe unicast to h4 from h3" vl_send 3 "${MAC[4]}" "${MAC[3]}"
vl_wait k 1 2 4
check_eq "unicast from h3 to h4 reaches h4 only (seen at h1 h2 h4)" "0 0 1" \
	"$(vl_counts k any 1 2 4)" "$(vl_shows k 1 2 4)"
check_eq "... tagged 20 at h4" 1 "$(vl_counts k 20 4)" "$(vl_shows k 4)"

# ------------------------------------------------ one MAC in two VLANs

check "sendframe broadcast from X tagged 20 out of h4" vl_send 4 "$BC" "$X" 20
check "sendframe broadcast from X untagged (VLAN 10) out of h1" vl_send 1 "$BC" "$X"
# fdb_x: X's FDB entries as [{vlan, ifname}], by VLAN.
fdb_x()
{
	fdb_json | jq -c --arg m "$X" \
		'[.[] | select((.mac | ascii_downcase) == $m) | {vlan, ifname}] |
		 sort_by(.vlan)'
}
# shellcheck disable=SC2317 # called through pfx_poll
fdb_x_is()
{
	[ "$(fdb_x)" = "$1" ]
}
want=$(jq -cn --arg p1 "${PORT[1]}" --arg p4 "${PORT[4]}" \
	'[{vlan: 10, ifname: $p1}, {vlan: 20, ifname: $p4}]')
pfx_poll 2 fdb_x_is "$want"
check_eq "fdb show: X twice, vlan 10 on ${PORT[1]} and vlan 20 on ${PORT[4]}" \
	"$want" "$(fdb_x)" "$(fdb_json 2>&1)"
check_eq "X in VLAN 10 and in VLAN 20 is no move (moved on P1, P4)" "0 0" \
	"$(port_counter "${PORT[1]}" moved) $(port_counter "${PORT[4]}" moved)" \
	"$("$XDPBR" -b "$BR" -j stats 2>&1)"

# Unicast to X in VLAN 10 (from h2) goes to h1 only, untagged; in VLAN 20
# (from h3) to h4 only, tagged 20.
vl_caps xa "$(vl_filter "${MAC[2]}")" $CAPS 1 3 4
check "sendframe unicast to X from h2 (VLAN 10)" vl_send 2 "$X" "${MAC[2]}"
vl_wait xa 1 3 4
check_eq "unicast to X in VLAN 10 reaches h1 only (seen at h1 h3 h4)" "1 0 0" \
	"$(vl_counts xa any 1 3 4)" "$(vl_shows xa 1 3 4)"
check_eq "... untagged at h1" 1 "$(vl_counts xa untagged 1)" "$(vl_shows xa 1)"
vl_caps xb "$(vl_filter "${MAC[3]}")" $CAPS 1 2 4
check "sendframe unicast to X from h3 (VLAN 20)" vl_send 3 "$X" "${MAC[3]}"
vl_wait xb 1 2 4
check_eq "unicast to X in VLAN 20 reaches h4 only (seen at h1 h2 h4)" "0 0 1" \
	"$(vl_counts xb any 1 2 4)" "$(vl_shows xb 1 2 4)"
check_eq "... tagged 20 at h4" 1 "$(vl_counts xb 20 4)" "$(vl_shows xb 4)"

# ------------------------------------------------ what is dropped

# drop_case NAME HOST COUNTER TAG...: a broadcast from Y with TAG... out of
# HOST must reach no other host, grow COUNTER on HOST's port by exactly 1,
# and teach the FDB nothing.
drop_case()
{
	local name=$1 h=$2 cnt=$3 i before after others=()
	shift 3
	for i in 1 2 3 4; do
		[ "$i" = "$h" ] || others+=("$i")
	done
	before=$(port_counter "${PORT[h]}" "$cnt")
	vl_caps d "ether src $Y" $CAPS "${others[@]}"
	check "sendframe $name" vl_send "$h" "$BC" "$Y" "$@"
	pfx_check_grew "$name is dropped and counted" "${PORT[h]}" "$cnt" "$before"
	vl_wait d "${others[@]}"
	after=$(port_counter "${PORT[h]}" "$cnt")
	check_eq "... counted once" 1 $((after - before))
	check_eq "... no other host sees it (seen at h${others[0]} h${others[1]} h${others[2]})" "0 0 0" \
		"$(vl_counts d any "${others[@]}")" "$(vl_shows d "${others[@]}")"
	check "... and Y is not learned" fdb_lacks "$Y"
}
drop_case "tagged 30 (not a member) from trunk h4" 4 drop_vlan_filtered 30
drop_case "untagged from trunk h4 (no PVID)" 4 drop_vlan_filtered
drop_case "tagged 20 from access port h1 (VLAN 10 only)" 1 drop_vlan_filtered 20
drop_case "802.1ad S-tag 10 + C-tag 20 from trunk h4" 4 drop_8021ad ad:10 20
drop_case "802.1ad S-tag 10 from access port h1" 1 drop_8021ad ad:10

# A member VLAN arriving tagged on an access port is accepted (egress
# untagged is about sending only), and so is a priority tag (VID 0: the
# frame takes the PVID). h2 gets both untagged, h4 tagged 10.
for tag in 10 0; do
	vl_caps "p$tag-" "$(vl_filter "$Z")" $CAPS 2 3 4
	check "sendframe broadcast tagged $tag from access port h1" \
		vl_send 1 "$BC" "$Z" "$tag"
	vl_wait "p$tag-" 2 3 4
	check_eq "tag $tag from h1 reaches h2 and h4, not h3 (seen at h2 h3 h4)" \
		"1 0 1" "$(vl_counts "p$tag-" any 2 3 4)" "$(vl_shows "p$tag-" 2 3 4)"
	check_eq "... untagged at h2, tagged 10 at h4" "1 1" \
		"$(vl_counts "p$tag-" untagged 2) $(vl_counts "p$tag-" 10 4)" \
		"$(vl_shows "p$tag-" 2 4)"
done

# ------------------------------------------------ vlan show

if vl_have_cli; then
	json=$("$XDPBR" -b "$BR" -j vlan show 2>&1)
	check_eq "vlan show -j matches the configuration" \
		"$(expected_members)" "$(vl_members "$json")" "$json"
	text=$("$XDPBR" -b "$BR" vlan show 2>&1)
	ok=1
	for i in 1 2 3 4; do
		grep -q "^${PORT[i]}[[:space:]]" <<<"$text" || ok=
	done
	if [ -n "$ok" ] && grep -q 'PVID' <<<"$text" && grep -q 'Egress Untagged' <<<"$text"; then
		pass "vlan show (text) lists the four ports, PVID, Egress Untagged"
	else
		fail "vlan show (text) lists the four ports, PVID, Egress Untagged" "$text"
	fi
else
	fail "xdpbr vlan show (the CLI has no vlan command)" \
		"$("$XDPBR" vlan help 2>&1 | head -n 3)"
fi

# ------------------------------------------------ filtering off

# Through the configuration file (SIGHUP).
write_conf off
kill -HUP "$DAEMON_PID"
if pfx_poll 5 vl_filtering_is false; then
	pass "SIGHUP with vlan_filtering = off: bridge show says off"
else
	fail "SIGHUP with vlan_filtering = off: bridge show says off" \
		"$("$XDPBR" -b "$BR" -j bridge show 2>&1)" "$(cat "$DAEMON_LOG")"
fi
check "filtering off: ping h1 -> h3 works (plain bridging)" pfx_poll 6 hping 1 3
check "filtering off: ping h3 -> h2" hping 3 2

# Tags are only data now: a frame tagged 30 from h4 floods to every host,
# still tagged 30.
vl_caps o "$(vl_filter "$Y")" $CAPS 1 2 3
check "sendframe tagged 30 from h4" vl_send 4 "$BC" "$Y" 30
vl_wait o 1 2 3
check_eq "filtering off: tagged 30 from h4 reaches h1 h2 h3" "1 1 1" \
	"$(vl_counts o any 1 2 3)" "$(vl_shows o 1 2 3)"
check_eq "... still tagged 30" "1 1 1" "$(vl_counts o 30 1 2 3)" "$(vl_shows o 1 2 3)"

# Back on through the file, then off and on through the CLI.
write_conf on
kill -HUP "$DAEMON_PID"
if pfx_poll 5 vl_filtering_is true; then
	pass "SIGHUP with vlan_filtering = on: bridge show says on"
else
	fail "SIGHUP with vlan_filtering = on: bridge show says on" \
		"$("$XDPBR" -b "$BR" -j bridge show 2>&1)" "$(cat "$DAEMON_LOG")"
fi
hexec 1 ip neigh flush dev e0
check_fail "filtering on again: ping h1 -> h3 fails" hping 1 3
check "filtering on again: ping h1 -> h2" hping 1 2
if vl_have_cli; then
	check "xdpbr bridge set vlan_filtering off" \
		"$XDPBR" -b "$BR" bridge set vlan_filtering off
	check_eq "bridge show: vlan_filtering off" false "$(bridge_field vlan_filtering)"
	check "filtering off (CLI): ping h1 -> h3 works" pfx_poll 6 hping 1 3
	check "xdpbr bridge set vlan_filtering on" \
		"$XDPBR" -b "$BR" bridge set vlan_filtering on
	check_eq "bridge show: vlan_filtering on" true "$(bridge_field vlan_filtering)"
	hexec 1 ip neigh flush dev e0
	check_fail "filtering on (CLI): ping h1 -> h3 fails" hping 1 3
	check "filtering on (CLI): ping h1 -> h2" hping 1 2
else
	fail "xdpbr bridge set vlan_filtering (the CLI has no vlan command)"
fi

check "xdpbrd still running" proc_alive "$DAEMON_PID"
finish

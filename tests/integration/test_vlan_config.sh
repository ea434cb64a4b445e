#!/usr/bin/env bash
# VLANs configured at run time with the CLI (xdpbr bridge set vlan_filtering,
# xdpbr vlan add/del/show), each change judged by `vlan show` and by real
# traffic, with the semantics of a kernel bridge with vlan_filtering 1:
# ports start as untagged members of VLAN default_pvid (1), a VLAN added
# again takes the new flags (also losing its PVID), removing a port from a
# VLAN flushes its FDB entries there, default_pvid changes only while
# filtering is off and moves the ports still on the old default, flushing
# their entries in the old VLAN.
#
# The topology the CLI builds is the one of test_vlan (xdpbr(8) EXAMPLES):
# h1, h2 access ports of VLAN 10, h3 of VLAN 20, h4 a trunk (10-20 tagged).
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

xt_require
topo_up 4
for i in 1 2 3 4; do
	hexec "$i" sysctl -q -w net.ipv6.conf.e0.disable_ipv6=1 >/dev/null ||
		abort "disable IPv6 on h$i"
done
daemon_start -l none || abort "xdpbrd start" "$XT_WHY"
vl_have_cli || abort "the CLI has no vlan command" "$("$XDPBR" vlan help 2>&1)"

BC=ff:ff:ff:ff:ff:ff
Y=$(test_mac 2)		# source of the frames that must be dropped
CAPS=2			# seconds a capture lasts

# xv ARG...: `xdpbr -b $BR ARG...`
xv()
{
	"$XDPBR" -b "$BR" "$@"
}

# members: `vlan show` of this run's ports, in vl_members lines.
members()
{
	vl_members "$(xv -j vlan show 2>&1)"
}

# expect SPEC...: vl_members lines from "I VID[-VID] FLAGS" (host number,
# VLAN or range, flags as vl_members prints them).
expect()
{
	local spec i vids flags v
	for spec in "$@"; do
		read -r i vids flags <<<"$spec"
		for ((v = ${vids%-*}; v <= ${vids#*-}; v++)); do
			echo "${PORT[i]} $v $flags"
		done
	done | sort
}

# check_members NAME SPEC...: `vlan show` is exactly SPEC (see expect).
check_members()
{
	local name=$1
	shift
	check_eq "$name" "$(expect "$@")" "$(members)" "$(xv -j vlan show 2>&1)"
}

# fdb_in_vlan MAC PORT VID [no]: the FDB has MAC on PORT in VLAN VID (with
# "no": fdb show works and has not). False when fdb show fails.
# shellcheck disable=SC2317 # called through pfx_poll
fdb_in_vlan()
{
	local j
	j=$(json_of array fdb_json) || return 1
	jq_true "$j" 'any(.[]; (.mac | ascii_downcase) == $m and .ifname == $p and
			  .vlan == $v) == ($want != "no")' \
		--arg m "$1" --arg p "$2" --argjson v "$3" --arg want "${4:-yes}"
}

# pvids: the PVID of each port as `link show` says, space-separated.
pvids()
{
	local i out=()
	for i in 1 2 3 4; do
		out+=("$(pfx_link_field "${PORT[i]}" pvid)")
	done
	echo "${out[*]}"
}

# ------------------------------------------------ defaults

check_jq "bridge show: vlan_filtering off, default_pvid 1" \
	"$(xv -j bridge show 2>&1)" \
	'.[0].vlan_filtering == false and .[0].default_pvid == 1'
check_members "new ports: VLAN 1, PVID, untagged" \
	"1 1 Egress Untagged,PVID" "2 1 Egress Untagged,PVID" \
	"3 1 Egress Untagged,PVID" "4 1 Egress Untagged,PVID"
check_eq "link show: every PVID is 1" "1 1 1 1" "$(pvids)"

# Filtering on with the defaults: every port in VLAN 1, untagged, so
# everything still works and nothing is tagged.
check "bridge set vlan_filtering on" xv bridge set vlan_filtering on
check "vlan_filtering on: bridge show says so" vl_filtering_is true
check "all in VLAN 1: ping h1 -> h3" hping 1 3
check "all in VLAN 1: ping h4 -> h2" hping 4 2
vl_caps d "$(vl_filter "${MAC[1]}")" $CAPS 2 3 4
check "sendframe broadcast from h1" vl_send 1 "$BC" "${MAC[1]}"
vl_wait d 2 3 4
check_eq "all in VLAN 1: broadcast from h1 reaches h2 h3 h4 untagged" "1 1 1 1 1 1" \
	"$(vl_counts d any 2 3 4) $(vl_counts d untagged 2 3 4)" "$(vl_shows d 2 3 4)"

# ------------------------------------------------ build the topology

check "vlan add dev P1 vid 10 pvid untagged" xv vlan add dev "${PORT[1]}" vid 10 pvid untagged
check "vlan del dev P1 vid 1" xv vlan del dev "${PORT[1]}" vid 1
check "vlan add dev P2 vid 10 pvid untagged" xv vlan add dev "${PORT[2]}" vid 10 pvid untagged
check "vlan del dev P2 vid 1" xv vlan del dev "${PORT[2]}" vid 1
check "vlan add dev P3 vid 20 pvid untagged" xv vlan add dev "${PORT[3]}" vid 20 pvid untagged
check "vlan del dev P3 vid 1" xv vlan del dev "${PORT[3]}" vid 1
check "vlan add dev P4 vid 10-20" xv vlan add dev "${PORT[4]}" vid 10-20
check "vlan del dev P4 vid 1" xv vlan del dev "${PORT[4]}" vid 1
check_members "vlan show: the topology" \
	"1 10 Egress Untagged,PVID" "2 10 Egress Untagged,PVID" \
	"3 20 Egress Untagged,PVID" "4 10-20 -"
check_jq "vlan show -j: P4's VLANs as one range 10-20" "$(xv -j vlan show dev "${PORT[4]}" 2>&1)" \
	'length == 1 and .[0].ifname == $p and
	 .[0].vlans == [{vlan: 10, vlanEnd: 20, flags: []}]' --arg p "${PORT[4]}"
text=$(xv vlan show 2>&1)
if grep -qE "^${PORT[4]}[[:space:]]+10-20[[:space:]]*$" <<<"$text" &&
	grep -qE "^${PORT[3]}[[:space:]]+20 PVID Egress Untagged[[:space:]]*$" <<<"$text"; then
	pass "vlan show (text): '${PORT[4]} 10-20', '${PORT[3]} 20 PVID Egress Untagged'"
else
	fail "vlan show (text): '${PORT[4]} 10-20', '${PORT[3]} 20 PVID Egress Untagged'" "$text"
fi
check_eq "link show: PVIDs 10 10 20 0" "10 10 20 0" "$(pvids)"

hexec 1 ip neigh flush dev e0
check "ping h1 -> h2 (VLAN 10)" hping 1 2
check_fail "ping h1 -> h3 fails (VLAN 10 -> 20)" hping 1 3
check_fail "ping h4 -> h2 fails (trunk has no PVID)" hping 4 2

# h4 tagged 20 -> h3 untagged; h3 -> h4 tagged 20 (learns h3 and h4 in 20).
vl_caps t "$(vl_filter "${MAC[4]}")" $CAPS 1 2 3
check "sendframe broadcast tagged 20 from h4" vl_send 4 "$BC" "${MAC[4]}" 20
vl_wait t 1 2 3
check_eq "tagged 20 from h4 reaches h3 only (seen at h1 h2 h3), untagged" "0 0 1 1" \
	"$(vl_counts t any 1 2 3) $(vl_counts t untagged 3)" "$(vl_shows t 1 2 3)"
vl_caps r "$(vl_filter "${MAC[3]}")" $CAPS 1 2 4
check "sendframe broadcast from h3" vl_send 3 "$BC" "${MAC[3]}"
vl_wait r 1 2 4
check_eq "broadcast from h3 reaches h4 only (seen at h1 h2 h4), tagged 20" "0 0 1 1" \
	"$(vl_counts r any 1 2 4) $(vl_counts r 20 4)" "$(vl_shows r 1 2 4)"

# VLAN 15: h4 is its only member: accepted, flooded to nobody.
before=$(port_counter "${PORT[4]}" drop_vlan_filtered)
vl_caps q "ether src $Y" $CAPS 1 2 3
check "sendframe broadcast tagged 15 from h4" vl_send 4 "$BC" "$Y" 15
vl_wait q 1 2 3
check_eq "tagged 15 from h4 (member, alone in 15) reaches no host" "0 0 0" \
	"$(vl_counts q any 1 2 3)" "$(vl_shows q 1 2 3)"
check_same "... is not counted drop_vlan_filtered" "$before" \
	"$(port_counter "${PORT[4]}" drop_vlan_filtered)"
check "... and teaches the FDB Y in VLAN 15 on P4" pfx_poll 2 fdb_in_vlan "$Y" "${PORT[4]}" 15

# ------------------------------------------------ vlan del

check_err "vlan del dev P4 vid 19-21 fails (P4 not in 21)" \
	xv vlan del dev "${PORT[4]}" vid 19-21
check_members "... and removes nothing" \
	"1 10 Egress Untagged,PVID" "2 10 Egress Untagged,PVID" \
	"3 20 Egress Untagged,PVID" "4 10-20 -"
check "fdb: h4 learned in VLAN 20 on P4" \
	pfx_poll 2 fdb_in_vlan "${MAC[4]}" "${PORT[4]}" 20
check "vlan del dev P4 vid 16-20" xv vlan del dev "${PORT[4]}" vid 16-20
check_members "vlan show: P4 now 10-15" \
	"1 10 Egress Untagged,PVID" "2 10 Egress Untagged,PVID" \
	"3 20 Egress Untagged,PVID" "4 10-15 -"
check "vlan del flushes P4's FDB entries in VLAN 20 (h4's MAC), as the kernel bridge does" \
	fdb_in_vlan "${MAC[4]}" "${PORT[4]}" 20 no
check "... but keeps those of VLAN 15 (Y)" fdb_in_vlan "$Y" "${PORT[4]}" 15

before=$(port_counter "${PORT[4]}" drop_vlan_filtered)
vl_caps t2 "$(vl_filter "${MAC[4]}")" $CAPS 3
check "sendframe broadcast tagged 20 from h4" vl_send 4 "$BC" "${MAC[4]}" 20
pfx_check_grew "tagged 20 from h4 is dropped now" "${PORT[4]}" drop_vlan_filtered "$before"
vl_wait t2 3
check_eq "... h3 does not see it" 0 "$(vl_counts t2 any 3)" "$(vl_shows t2 3)"
vl_caps r2 "$(vl_filter "${MAC[3]}")" $CAPS 4
check "sendframe broadcast from h3" vl_send 3 "$BC" "${MAC[3]}"
vl_wait r2 4
check_eq "broadcast from h3 no longer reaches h4" 0 "$(vl_counts r2 any 4)" \
	"$(vl_shows r2 4)"

# Removing a port's PVID VLAN leaves it with none: untagged frames dropped.
check "vlan del dev P2 vid 10" xv vlan del dev "${PORT[2]}" vid 10
check_jq "vlan show -j: P2 in no VLAN" "$(xv -j vlan show dev "${PORT[2]}" 2>&1)" \
	'.[0].vlans == []'
check_eq "link show: P2's PVID is 0" 0 "$(pfx_link_field "${PORT[2]}" pvid)"
before=$(port_counter "${PORT[2]}" drop_vlan_filtered)
check "sendframe untagged from h2" vl_send 2 "$BC" "${MAC[2]}"
pfx_check_grew "untagged from h2 (no PVID) is dropped" "${PORT[2]}" drop_vlan_filtered "$before"
check_fail "ping h1 -> h2 fails (h2 in no VLAN)" hping 1 2
check "vlan add dev P2 vid 10 pvid untagged" xv vlan add dev "${PORT[2]}" vid 10 pvid untagged
check "ping h1 -> h2 works again" pfx_poll 6 hping 1 2

# ------------------------------------------------ vlan add again

# Without pvid, a VLAN added again is no longer the PVID (kernel: the flags
# of the new add replace the old ones).
check "vlan add dev P2 vid 10 untagged (again, without pvid)" \
	xv vlan add dev "${PORT[2]}" vid 10 untagged
check_jq "vlan show: P2 10 Egress Untagged, no PVID" \
	"$(xv -j vlan show dev "${PORT[2]}" 2>&1)" \
	'.[0].vlans == [{vlan: 10, flags: ["Egress Untagged"]}]'
check_eq "link show: P2's PVID is 0" 0 "$(pfx_link_field "${PORT[2]}" pvid)"
# pvid without untagged: h2 receives VLAN 10 tagged now.
check "vlan add dev P2 vid 10 pvid" xv vlan add dev "${PORT[2]}" vid 10 pvid
check_jq "vlan show: P2 10 PVID (tagged)" "$(xv -j vlan show dev "${PORT[2]}" 2>&1)" \
	'.[0].vlans == [{vlan: 10, flags: ["PVID"]}]'
vl_caps g "$(vl_filter "${MAC[1]}")" $CAPS 2
check "sendframe broadcast from h1" vl_send 1 "$BC" "${MAC[1]}"
vl_wait g 2
check_eq "broadcast from h1 reaches h2 tagged 10" "1 1" \
	"$(vl_counts g any 2) $(vl_counts g 10 2)" "$(vl_shows g 2)"
check "vlan add dev P2 vid 10 pvid untagged" xv vlan add dev "${PORT[2]}" vid 10 pvid untagged

# h3 joins VLAN 10 as its PVID, staying an untagged member of 20.
check "vlan add dev P3 vid 10 pvid untagged" xv vlan add dev "${PORT[3]}" vid 10 pvid untagged
check_members "vlan show: P3 10 PVID, 20 untagged" \
	"1 10 Egress Untagged,PVID" "2 10 Egress Untagged,PVID" \
	"3 10 Egress Untagged,PVID" "3 20 Egress Untagged" "4 10-15 -"
check "ping h1 -> h3 works (both VLAN 10 now)" pfx_poll 6 hping 1 3

# ------------------------------------------------ errors

before=$(members)
check_err "vlan add vid 0 fails" xv vlan add dev "${PORT[1]}" vid 0
check_err "vlan add vid 4095 fails" xv vlan add dev "${PORT[1]}" vid 4095
check_err "vlan add vid 12-10 fails" xv vlan add dev "${PORT[1]}" vid 12-10
check_err "vlan add vid 10-12 pvid fails (one PVID)" \
	xv vlan add dev "${PORT[1]}" vid 10-12 pvid
check_err "vlan add on an unknown device fails" xv vlan add dev "xt${ID}nx" vid 10
check_err "vlan add on a device that is not a port (lo) fails" xv vlan add dev lo vid 10
check_err "vlan del of a VLAN the port is not in fails" xv vlan del dev "${PORT[1]}" vid 30
if [ -n "$before" ] && [ "$before" = "$(members)" ]; then
	pass "... and none of them changed anything"
else
	fail "... and none of them changed anything" "before: ${before:-(vlan show failed)}" \
		"after: $(members)" "$(xv -j vlan show 2>&1)"
fi

# ------------------------------------------------ default_pvid

check_err "bridge set default_pvid 5 fails while filtering is on" \
	xv bridge set default_pvid 5
check_eq "... default_pvid stays 1" 1 "$(bridge_field default_pvid)"
check "vlan add dev P4 vid 1 pvid untagged (back on the default)" \
	xv vlan add dev "${PORT[4]}" vid 1 pvid untagged
check "bridge set vlan_filtering off default_pvid 5" \
	xv bridge set vlan_filtering off default_pvid 5
check_eq "bridge show: vlan_filtering off, default_pvid 5" "false 5" \
	"$(bridge_field vlan_filtering) $(bridge_field default_pvid)"
check_members "P4 (on the old default, untagged) moves to VLAN 5; the others stay" \
	"1 10 Egress Untagged,PVID" "2 10 Egress Untagged,PVID" \
	"3 10 Egress Untagged,PVID" "3 20 Egress Untagged" \
	"4 5 Egress Untagged,PVID" "4 10-15 -"
check "filtering off keeps the VLANs, plain bridging: ping h4 -> h1" hping 4 1
check "bridge set vlan_filtering on" xv bridge set vlan_filtering on
check_fail "filtering on: ping h4 (VLAN 5) -> h1 (VLAN 10) fails" hping 4 1

# A port added now gets the new default PVID, and nothing of its past.
check "link del dev P4" xv link del dev "${PORT[4]}"
check "link add dev P4 master $BR" xv link add dev "${PORT[4]}" master "$BR"
check_jq "re-added P4: VLAN 5, PVID, untagged only" \
	"$(xv -j vlan show dev "${PORT[4]}" 2>&1)" \
	'.[0].vlans == [{vlan: 5, flags: ["PVID", "Egress Untagged"]}]'

# A default PVID change flushes the entries in the old VLAN of every port
# that moves (one pass over the FDB for all of them, lib/ctl.c), and only
# those: not the old VLAN's entries on a port that stays, not the moved
# ports' entries in other VLANs.
# fdb_entry_in MAC PORT VID: "yes" or "no"; nothing when the CLI fails.
fdb_entry_in()
{
	local out
	out=$(fdb_json) && [ -n "$out" ] || return 1
	jq -r --arg m "$1" --arg p "$2" --argjson v "$3" \
		'if any(.[]; (.mac | ascii_downcase) == $m and .ifname == $p and .vlan == $v)
		 then "yes" else "no" end' <<<"$out"
}
S1=$(test_mac 11) S2=$(test_mac 12) S4=$(test_mac 14) S4B=$(test_mac 15)
check "vlan add dev P1 vid 5 pvid untagged (P1 on the default too)" \
	xv vlan add dev "${PORT[1]}" vid 5 pvid untagged
check "fdb add S1 dev P1 vlan 5" xv fdb add "$S1" dev "${PORT[1]}" vlan 5
check "fdb add S2 dev P2 vlan 5 (P2 stays on its PVID 10)" \
	xv fdb add "$S2" dev "${PORT[2]}" vlan 5
check "fdb add S4 dev P4 vlan 5" xv fdb add "$S4" dev "${PORT[4]}" vlan 5
check "fdb add S4B dev P4 vlan 10" xv fdb add "$S4B" dev "${PORT[4]}" vlan 10
check_eq "before: the four entries are there" "yes yes yes yes" \
	"$(fdb_entry_in "$S1" "${PORT[1]}" 5) $(fdb_entry_in "$S2" "${PORT[2]}" 5) $(
	   fdb_entry_in "$S4" "${PORT[4]}" 5) $(fdb_entry_in "$S4B" "${PORT[4]}" 10)" \
	"$(fdb_json 2>&1)"
check "bridge set vlan_filtering off default_pvid 6" \
	xv bridge set vlan_filtering off default_pvid 6
check_members "P1 and P4 (on the old default) move to VLAN 6; P2, P3 stay" \
	"1 6 Egress Untagged,PVID" "1 10 Egress Untagged" \
	"2 10 Egress Untagged,PVID" \
	"3 10 Egress Untagged,PVID" "3 20 Egress Untagged" \
	"4 6 Egress Untagged,PVID"
check_eq "P1's and P4's entries in VLAN 5 flushed (static too); P2's in VLAN 5 and P4's in VLAN 10 kept" \
	"S1 no, S2 yes, S4 no, S4B yes" \
	"S1 $(fdb_entry_in "$S1" "${PORT[1]}" 5), S2 $(fdb_entry_in "$S2" "${PORT[2]}" 5), S4 $(fdb_entry_in "$S4" "${PORT[4]}" 5), S4B $(fdb_entry_in "$S4B" "${PORT[4]}" 10)" \
	"$(fdb_json 2>&1)"

check "xdpbrd still running" proc_alive "$DAEMON_PID"
finish

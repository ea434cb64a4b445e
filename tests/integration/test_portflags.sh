#!/usr/bin/env bash
# Port flags set with `xdpbr link set` on a running bridge, each observed in
# the traffic the hosts receive (tcpdump in their namespaces) and in
# `xdpbr link show`: flood, mcast_flood, bcast_flood filter one class of
# flooded frames each; learning off keeps a port's source MACs out of the
# FDB; isolated ports don't talk to each other but do to the others;
# hairpin lets a frame go back out its ingress port; a locked port admits
# only sources the FDB has on it; max_learned caps the
# entries learned on a port. Every flag is turned back and the traffic it
# stopped flows again. Where a check expects a frame NOT to arrive, another
# host (or the same host before the change) sees the same frame: the
# control that makes the absence meaningful.
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

# set_flag PORT FLAG on|off: set it and check link show says so.
set_flag()
{
	local want=false
	[ "$3" = on ] && want=true
	check "link set dev $1 $2 $3" lset "$1" "$2" "$3"
	check_eq "link show: $2 of $1 is $want" "$want" \
		"$(pfx_link_field "$1" "$2" 2>&1)" "$(pfx_link_json "$1" 2>&1)"
}

UU=$(pfx_mac 1)			# unknown unicast: nothing ever sends from it
MC=01:00:5e:00:00:fb		# IPv4 multicast (mDNS group)
BC=ff:ff:ff:ff:ff:ff

# flood3 KEY: from h1, one 0x88b5 frame each to UU, MC and BC, captured in
# h2 and h3 (captures KEY2, KEY3); count them with `seen KEY I DST`.
flood3()
{
	local key=$1 i dst
	for i in 2 3; do
		pfx_cap "$key$i" "$i" "ether proto 0x88b5 and ether src ${MAC[1]}" 3 3 ||
			fail "capture in h$i ($key)" "$XT_WHY"
	done
	for dst in "$UU" "$MC" "$BC"; do
		pfx_send 1 "$dst" || fail "sendframe from h1 to $dst ($key)"
	done
	for i in 2 3; do
		pfx_cap_n "$key$i" >/dev/null
	done
}

# seen KEY I DST: frames to DST in capture KEY of host I
seen()
{
	pfx_cap_n "$1$2" "> $3,"
}

# expect3 KEY I UU MC BC LABEL: in round KEY, host I saw that many
# unknown-unicast, multicast and broadcast frames.
expect3()
{
	local key=$1 i=$2
	check_eq "$6: h$i saw (unknown unicast, multicast, broadcast)" "$3 $4 $5" \
		"$(seen "$key" "$i" "$UU") $(seen "$key" "$i" "$MC") $(seen "$key" "$i" "$BC")" \
		"$(cap_show "$key$i")"
}

xt_require
topo_up 3
daemon_start || abort "xdpbrd start" "$XT_WHY"

# Every host and its ARP entries known before the flags change.
for i in 1 2 3; do
	for j in 1 2 3; do
		[ "$i" = "$j" ] && continue
		hping "$i" "$j" >/dev/null || abort "warm-up ping h$i -> h$j"
	done
done

json=$(pfx_link_json 2>&1)
check_jq "link show -j: every port has all the fields" "$json" \
	'length == 3 and all(.[]; has("ifindex") and has("ifname") and
	 has("master") and has("state") and has("flags") and has("mtu") and
	 has("xdp_mode") and has("xdp_prog_id") and has("learning") and
	 has("flood") and has("mcast_flood") and has("bcast_flood") and
	 has("isolated") and has("hairpin") and has("locked") and has("max_learned"))'
check_jq "link show -j: defaults: learning, flood, mcast_flood, bcast_flood on; isolated, hairpin, locked off; max_learned 0" \
	"$json" 'all(.[]; .learning == true and .flood == true and
	 .mcast_flood == true and .bcast_flood == true and .isolated == false and
	 .hairpin == false and .locked == false and .max_learned == 0 and
	 .state == "forwarding")'

# --- flood, mcast_flood, bcast_flood on h2's port: each filters its class
before_uu=$(port_counter "${PORT[1]}" flood_unknown)
before_mc=$(port_counter "${PORT[1]}" flood_multicast)
before_bc=$(port_counter "${PORT[1]}" flood_broadcast)
flood3 base
expect3 base 2 1 1 1 "defaults"
expect3 base 3 1 1 1 "defaults"
pfx_check_grew "stats: the unknown unicast counts as flood_unknown on ${PORT[1]}" \
	"${PORT[1]}" flood_unknown "$before_uu"
pfx_check_grew "stats: the multicast counts as flood_multicast on ${PORT[1]}" \
	"${PORT[1]}" flood_multicast "$before_mc"
pfx_check_grew "stats: the broadcast counts as flood_broadcast on ${PORT[1]}" \
	"${PORT[1]}" flood_broadcast "$before_bc"

set_flag "${PORT[2]}" flood off
flood3 flood_off
expect3 flood_off 2 0 1 1 "flood off on h2's port"
expect3 flood_off 3 1 1 1 "flood off on h2's port (control)"
set_flag "${PORT[2]}" flood on
flood3 flood_on
expect3 flood_on 2 1 1 1 "flood back on"

set_flag "${PORT[2]}" mcast_flood off
flood3 mcast_off
expect3 mcast_off 2 1 0 1 "mcast_flood off on h2's port"
expect3 mcast_off 3 1 1 1 "mcast_flood off on h2's port (control)"
set_flag "${PORT[2]}" mcast_flood on
flood3 mcast_on
expect3 mcast_on 2 1 1 1 "mcast_flood back on"

set_flag "${PORT[2]}" bcast_flood off
flood3 bcast_off
expect3 bcast_off 2 1 1 0 "bcast_flood off on h2's port"
expect3 bcast_off 3 1 1 1 "bcast_flood off on h2's port (control)"
# An ARP request is a broadcast too.
filter="arp and ether src ${MAC[1]} and ether broadcast"
pfx_cap arp2 2 "$filter" 3 1 || fail "capture ARP in h2" "$XT_WHY"
pfx_cap arp3 3 "$filter" 3 1 || fail "capture ARP in h3" "$XT_WHY"
hexec 1 arping -c 1 -w 2 -I e0 "${IP4[3]}" >"$XT_TMP/arping.out" 2>&1
check_eq "bcast_flood off: h1's ARP broadcast does not reach h2" 0 "$(pfx_cap_n arp2)" \
	"$(cap_show arp2)"
check_eq "bcast_flood off: h1's ARP broadcast reaches h3 (control)" 1 "$(pfx_cap_n arp3)" \
	"$(cap_show arp3)" "arping: $(cat "$XT_TMP/arping.out")"
set_flag "${PORT[2]}" bcast_flood on
flood3 bcast_on
expect3 bcast_on 2 1 1 1 "bcast_flood back on"
pfx_cap arp2b 2 "$filter" 3 1 || fail "capture ARP in h2" "$XT_WHY"
hexec 1 arping -c 1 -w 2 -I e0 "${IP4[2]}" >"$XT_TMP/arping.out" 2>&1
check_eq "bcast_flood back on: h1's ARP broadcast reaches h2" 1 "$(pfx_cap_n arp2b)" \
	"$(cap_show arp2b)" "arping: $(cat "$XT_TMP/arping.out")"

# --- learning off on h1's port: its source MACs stay unknown, so frames
# to them are flooded (h3 sees them); learning on: learned, forwarded to h1
# only.
# learn_round KEY LABEL SRC: h1 broadcasts from SRC (h3 seeing it proves the
# bridge handled it), then h2 sends a frame to SRC; captures KEYto1, KEYto3.
learn_round()
{
	local key=$1 label=$2 src=$3
	pfx_cap "${key}bc" 3 "ether proto 0x88b5 and ether src $src" 3 1 ||
		fail "capture in h3 ($label)" "$XT_WHY"
	pfx_send 1 "$BC" "$src" || fail "sendframe from h1 ($label)"
	check_eq "$label: h1's broadcast from $src crosses the bridge" 1 \
		"$(pfx_cap_n "${key}bc")" "$(cap_show "${key}bc")"
	pfx_cap "${key}to1" 1 "ether proto 0x88b5 and ether dst $src" 3 1 ||
		fail "capture in h1 ($label)" "$XT_WHY"
	pfx_cap "${key}to3" 3 "ether proto 0x88b5 and ether dst $src" 3 1 ||
		fail "capture in h3 ($label)" "$XT_WHY"
	pfx_send 2 "$src" || fail "sendframe from h2 ($label)"
}

L_OFF=$(pfx_mac 2)
L_ON=$(pfx_mac 3)
set_flag "${PORT[1]}" learning off
learned=$(port_counter "${PORT[1]}" learned)
learn_round loff "learning off" "$L_OFF"
check_eq "learning off: h2's frame to $L_OFF reaches h1" 1 "$(pfx_cap_n loffto1)" \
	"$(cap_show loffto1)"
check_eq "learning off: h2's frame to $L_OFF is flooded to h3 (unknown)" 1 \
	"$(pfx_cap_n loffto3)" "$(cap_show loffto3)"
check "learning off: fdb show has no $L_OFF" pfx_fdb_lacks "$L_OFF"
check_same "learning off: stats: learned on ${PORT[1]} unchanged" "$learned" \
	"$(port_counter "${PORT[1]}" learned)"

set_flag "${PORT[1]}" learning on
learn_round lon "learning on" "$L_ON"
check_eq "learning on: h2's frame to $L_ON reaches h1" 1 "$(pfx_cap_n lonto1)" \
	"$(cap_show lonto1)"
check_eq "learning on: h2's frame to $L_ON is not flooded to h3" 0 \
	"$(pfx_cap_n lonto3)" "$(cap_show lonto3)"
check "learning on: fdb show has $L_ON on ${PORT[1]}" pfx_fdb_has "$L_ON" "${PORT[1]}" ""
pfx_check_grew "learning on: stats: learned on ${PORT[1]}" "${PORT[1]}" learned "$learned"

# --- isolated h1 and h2: not to each other, both to h3. Permanent ARP
# entries: the pings are unicast from the first frame on.
hexec 1 ip neigh replace "${IP4[2]}" lladdr "${MAC[2]}" nud permanent dev e0
hexec 2 ip neigh replace "${IP4[1]}" lladdr "${MAC[1]}" nud permanent dev e0
check "before isolation: ping h1 -> h2" hping 1 2
set_flag "${PORT[1]}" isolated on
set_flag "${PORT[2]}" isolated on
check_eq "link show: isolated of ${PORT[3]} is false" false \
	"$(pfx_link_field "${PORT[3]}" isolated 2>&1)"
drop1=$(port_counter "${PORT[1]}" drop_isolated)
drop2=$(port_counter "${PORT[2]}" drop_isolated)
check_fail "isolated: ping h1 -> h2 fails" hping 1 2
pfx_check_grew "isolated: stats: drop_isolated on ${PORT[1]} (ingress)" \
	"${PORT[1]}" drop_isolated "$drop1"
check_fail "isolated: ping h2 -> h1 fails" hping 2 1
pfx_check_grew "isolated: stats: drop_isolated on ${PORT[2]} (ingress)" \
	"${PORT[2]}" drop_isolated "$drop2"
check "isolated: ping h1 -> h3 works" hping 1 3
check "isolated: ping h2 -> h3 works" hping 2 3
check "isolated: ping h3 -> h1 works" hping 3 1
filtered=$(port_counter "${PORT[2]}" flood_filtered)
pfx_cap iso2 2 "ether proto 0x88b5 and ether src ${MAC[1]}" 3 1 ||
	fail "capture in h2" "$XT_WHY"
pfx_cap iso3 3 "ether proto 0x88b5 and ether src ${MAC[1]}" 3 1 ||
	fail "capture in h3" "$XT_WHY"
check "sendframe broadcast from h1" pfx_send 1 "$BC"
check_eq "isolated: h1's broadcast does not reach h2" 0 "$(pfx_cap_n iso2)" "$(cap_show iso2)"
check_eq "isolated: h1's broadcast reaches h3 (control)" 1 "$(pfx_cap_n iso3)" "$(cap_show iso3)"
pfx_check_grew "isolated: stats: flood_filtered on ${PORT[2]} (egress)" \
	"${PORT[2]}" flood_filtered "$filtered"
set_flag "${PORT[1]}" isolated off
check "h1's port no longer isolated: ping h1 -> h2 works" hping 1 2
set_flag "${PORT[2]}" isolated off
check "isolation off: ping h2 -> h1 works" hping 2 1
pfx_cap iso2b 2 "ether proto 0x88b5 and ether src ${MAC[1]}" 3 1 ||
	fail "capture in h2" "$XT_WHY"
check "sendframe broadcast from h1" pfx_send 1 "$BC"
check_eq "isolation off: h1's broadcast reaches h2" 1 "$(pfx_cap_n iso2b)" "$(cap_show iso2b)"

# --- locked h1's port (802.1X): only a source the FDB has on the port gets
# in, nothing is learned there, and the rest is dropped as drop_locked. The
# permanent ARP entries above keep the pings unicast.
set_flag "${PORT[1]}" locked on
check "locked: fdb del ${MAC[1]} (h1, learned before the lock)" \
	"$XDPBR" -b "$BR" fdb del "${MAC[1]}" dev "${PORT[1]}"
dropl=$(port_counter "${PORT[1]}" drop_locked)
check_fail "locked: ping h1 -> h2 fails" hping 1 2
pfx_check_grew "locked: stats: drop_locked on ${PORT[1]}" "${PORT[1]}" drop_locked "$dropl"
check "locked: h1's MAC is not learned" pfx_fdb_lacks "${MAC[1]}"
check_fail "locked: ping h2 -> h1 fails too (h1's replies are dropped)" hping 2 1
check "locked: fdb add ${MAC[1]} dev ${PORT[1]} static" \
	"$XDPBR" -b "$BR" fdb add "${MAC[1]}" dev "${PORT[1]}" static
check "locked, h1 static on its port: ping h1 -> h2 works" hping 1 2
check "locked, h1 static on its port: ping h2 -> h1 works" hping 2 1
check "locked: the other ports are not locked" \
	eval '[ "$(pfx_link_field "${PORT[2]}" locked)" = false ]'
set_flag "${PORT[1]}" locked off
check "unlocked: fdb del ${MAC[1]}" "$XDPBR" -b "$BR" fdb del "${MAC[1]}" dev "${PORT[1]}"
check "unlocked, no entry: ping h1 -> h2 works" hping 1 2
check "unlocked: h1's MAC is learned on its port again" pfx_fdb_has "${MAC[1]}" "${PORT[1]}" ""

# --- hairpin on h1's port: a frame to a MAC static on that same port goes
# back out to h1 only when hairpin is on, and so does a copy of its broadcast.
HP=$(pfx_mac 4)
check "fdb add $HP dev ${PORT[1]} static" \
	"$XDPBR" -b "$BR" fdb add "$HP" dev "${PORT[1]}" static
check "fdb show: $HP static on ${PORT[1]}" pfx_fdb_has "$HP" "${PORT[1]}" static

# hairpin_round KEY: h1 sends a frame to HP; captures KEY1 (what h1
# receives), KEY2, KEY3.
hairpin_round()
{
	local key=$1 f="ether proto 0x88b5 and ether dst $HP"
	pfx_cap "${key}1" 1 "$f" 3 1 in || fail "capture in h1 ($key)" "$XT_WHY"
	pfx_cap "${key}2" 2 "$f" 3 1 || fail "capture in h2 ($key)" "$XT_WHY"
	pfx_cap "${key}3" 3 "$f" 3 1 || fail "capture in h3 ($key)" "$XT_WHY"
	pfx_send 1 "$HP" || fail "sendframe from h1 to $HP ($key)"
}

# hairpin_flood KEY: h1 broadcasts; captures KEY what comes back to h1 (a
# flooded copy leaves its ingress port only in hairpin mode).
hairpin_flood()
{
	pfx_cap "$1" 1 "ether proto 0x88b5 and ether src ${MAC[1]}" 3 1 in ||
		fail "capture in h1 ($1)" "$XT_WHY"
	pfx_send 1 "$BC" || fail "sendframe broadcast from h1 ($1)"
}

same=$(port_counter "${PORT[1]}" drop_same_port)
hairpin_round hp_default
check_eq "hairpin off (default): h1 does not get its frame back" 0 \
	"$(pfx_cap_n hp_default1)" "$(cap_show hp_default1)"
pfx_check_grew "hairpin off: stats: drop_same_port on ${PORT[1]}" \
	"${PORT[1]}" drop_same_port "$same"
check_eq "hairpin off: the frame is not flooded to h2" 0 "$(pfx_cap_n hp_default2)" \
	"$(cap_show hp_default2)"
check_eq "hairpin off: the frame is not flooded to h3" 0 "$(pfx_cap_n hp_default3)" \
	"$(cap_show hp_default3)"
hairpin_flood hpf_default
check_eq "hairpin off: h1's broadcast is not flooded back to h1" 0 \
	"$(pfx_cap_n hpf_default)" "$(cap_show hpf_default)"

set_flag "${PORT[1]}" hairpin on
tx=$(port_counter "${PORT[1]}" tx_packets)
same=$(port_counter "${PORT[1]}" drop_same_port)
hairpin_round hp_on
check_eq "hairpin on: h1 receives its frame back" 1 "$(pfx_cap_n hp_on1)" "$(cap_show hp_on1)"
check_eq "hairpin on: the frame does not reach h2" 0 "$(pfx_cap_n hp_on2)" "$(cap_show hp_on2)"
check_eq "hairpin on: the frame does not reach h3" 0 "$(pfx_cap_n hp_on3)" "$(cap_show hp_on3)"
pfx_check_grew "hairpin on: stats: tx_packets on ${PORT[1]}" "${PORT[1]}" tx_packets "$tx"
check_same "hairpin on: stats: drop_same_port on ${PORT[1]} unchanged" "$same" \
	"$(port_counter "${PORT[1]}" drop_same_port)"
hairpin_flood hpf_on
check_eq "hairpin on: h1's broadcast is flooded back to h1 too" 1 \
	"$(pfx_cap_n hpf_on)" "$(cap_show hpf_on)"

set_flag "${PORT[1]}" hairpin off
same=$(port_counter "${PORT[1]}" drop_same_port)
hairpin_round hp_off
check_eq "hairpin back off: h1 does not get its frame back" 0 "$(pfx_cap_n hp_off1)" \
	"$(cap_show hp_off1)"
pfx_check_grew "hairpin back off: stats: drop_same_port on ${PORT[1]}" \
	"${PORT[1]}" drop_same_port "$same"
for k in 2 3; do
	pfx_cap_n "hp_off$k" >/dev/null
done

# --- max_learned on h3's port: at most that many dynamic entries there.
check "link set dev ${PORT[3]} max_learned 2" lset "${PORT[3]}" max_learned 2
check_eq "link show: max_learned of ${PORT[3]} is 2" 2 \
	"$(pfx_link_field "${PORT[3]}" max_learned 2>&1)"
limit=$(port_counter "${PORT[3]}" learn_limit)
pfx_cap ml 1 "ether proto 0x88b5 and ether src $(pfx_mac 13)" 3 1 ||
	fail "capture in h1" "$XT_WHY"
for n in 10 11 12 13; do
	pfx_send 3 "$BC" "$(pfx_mac "$n")" || fail "sendframe from h3, source $(pfx_mac "$n")"
done
pfx_cap_n ml >/dev/null
n=$(pfx_fdb_count "${PORT[3]}" "" 2>&1)
if [[ $n =~ ^[0-9]+$ ]] && ((n >= 1 && n <= 2)); then
	pass "max_learned 2: $n dynamic entries on ${PORT[3]} after 4 new source MACs"
else
	fail "max_learned 2: at most 2 dynamic entries on ${PORT[3]}" "got: $n" \
		"$("$XDPBR" -b "$BR" fdb show 2>&1)"
fi
pfx_check_grew "max_learned 2: stats: learn_limit on ${PORT[3]}" \
	"${PORT[3]}" learn_limit "$limit"
check "link set dev ${PORT[3]} max_learned 0" lset "${PORT[3]}" max_learned 0
check_eq "link show: max_learned of ${PORT[3]} is 0" 0 \
	"$(pfx_link_field "${PORT[3]}" max_learned 2>&1)"
check "sendframe from h3, source $(pfx_mac 14)" pfx_send 3 "$BC" "$(pfx_mac 14)"
if pfx_poll 2 pfx_fdb_has "$(pfx_mac 14)" "${PORT[3]}" ""; then
	pass "max_learned 0 (no limit): $(pfx_mac 14) is learned on ${PORT[3]}"
else
	fail "max_learned 0 (no limit): $(pfx_mac 14) is learned on ${PORT[3]}" \
		"$("$XDPBR" -b "$BR" fdb show 2>&1)"
fi

# Everything back to the defaults, as link show says.
check_jq "link show -j: all flags back to the defaults" "$(pfx_link_json 2>&1)" \
	'length == 3 and all(.[]; .learning and .flood and .mcast_flood and
	 .bcast_flood and (.isolated | not) and (.hairpin | not) and
	 .max_learned == 0)'
pfx_check_daemon "the daemon ran throughout"

finish

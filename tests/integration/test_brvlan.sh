#!/usr/bin/env bash
# iproute2's `bridge vlan` and the bridge's vlan_filtering and
# vlan_default_pvid as a view and a control of xdpbr's VLANs
# (daemon/brmirror.c), like test_brmirror.sh for the FDB and port flags:
# the test makes the Linux bridge device (listening ports: the kernel
# forwards nothing) and runs xdpbrd -H off on its ports.
#
# This development host's kernel has no VLAN filtering
# (CONFIG_BRIDGE_VLAN_FILTERING off): there the suite checks the mirror
# says so once and leaves VLANs alone, while xdpbr's own VLANs and the
# rest of the mirror work as before. On a kernel with it (Debian's 6.1:
# tests/vm/test_brvlan.sh runs this suite in the VM lane's guest) it
# checks both directions: at start xdpbr wins; `xdpbr vlan` shows in
# `bridge vlan show`; `bridge vlan add|del` (ranges too, pvid, untagged)
# change xdpbr's VLANs, and tagged traffic between hosts with 802.1Q
# devices shows the datapath obeys; the FDB per VLAN (`bridge fdb show`
# says `vlan N` for what xdpbr learned in VLAN N, `bridge fdb add ... vlan
# N` adds one); vlan_filtering and default_pvid both ways; multicast
# snooping per VLAN (a group joined in VLAN 10 reaches its member only;
# with mcast_vlan_snooping, VLAN 10's own querier and router ports, and
# VLAN 11, in one range of the kernel's dump with VLAN 10, its own state);
# a Linux bridge taken over keeps its VLAN settings and its ports' VLANs;
# the device's own VLANs (`bridge vlan ... self`) are the host's.
# datapaths: auto
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and xt_poll
# shellcheck disable=SC2016 # commands and failure reports evaluated later (shows, eval)
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off

# shows NAME WHAT CMD...: CMD comes true within 3 s (the mirror looks once
# a second; 8 s in a TCG guest); the failure shows WHAT.
shows()
{
	local name=$1 what=$2
	shift 2
	if xt_poll "${XT_SHOWS_SECS:-3}" "$@"; then
		pass "$name"
	else
		fail "$name" "$(eval "$what" 2>&1)"
	fi
}

# A port's VLANs as one line, "VID[-VID][P][U] ...", from the JSON both
# `bridge -compressvlans -j vlan show` (ranges, as xdpbr shows them; -c
# is taken for -color) and `xdpbr -j vlan show` print (P: PVID, U: egress
# untagged).
VLAN_JQ='[.[] | select(.ifname == $d) | .vlans[]? |
	"\(.vlan)\(if .vlanEnd then "-\(.vlanEnd)" else "" end)" +
	(if ((.flags // []) | index("PVID")) then "P" else "" end) +
	(if ((.flags // []) | index("Egress Untagged")) then "U" else "" end)] | join(" ")'

kvlans()
{
	bridge -compressvlans -j vlan show dev "$1" | jq -r --arg d "$1" "$VLAN_JQ"
}

xvlans()
{
	"$XDPBR" -b "$BR" -j vlan show dev "$1" | jq -r --arg d "$1" "$VLAN_JQ"
}

# vlans_are PORT LINE: both views of PORT's VLANs are LINE.
vlans_are()
{
	[ "$(kvlans "$1")" = "$2" ] && [ "$(xvlans "$1")" = "$2" ]
}

# kbr WORD: vlan_filtering or vlan_default_pvid as `ip -d link show` says.
kbr()
{
	ip -d link show dev "$BR" | grep -o " $1 [0-9]*" | awk '{ print $2 }'
}

# xbr WORD: vlan_filtering (on/off) or default_pvid of `xdpbr bridge show`.
xbr()
{
	"$XDPBR" -b "$BR" bridge show | grep -o " $1 [0-9a-z]*" | awk '{ print $2 }'
}

# vping I ADDR: host I reaches ADDR (198.18.10.x, VLAN 10).
vping()
{
	hexec "$1" ping -c 1 -W 2 "$2"
}

xt_require
topo_up 3
kbr_listening
P1=${PORT[1]} P2=${PORT[2]} P3=${PORT[3]}
VIEWS='for p in "$P1" "$P2" "$P3"; do echo "$p: kernel [$(kvlans "$p")] xdpbr [$(xvlans "$p")]"; done
	bridge vlan show; ip -d link show dev "$BR" | grep -o "vlan_[a-z_]* [0-9]*"; "$XDPBR" -b "$BR" bridge show'

# The kernel's VLAN filtering: without it the kernel reports no
# vlan_default_pvid (6.18 reports vlan_filtering 0 all the same).
KVLAN=0
ip -d link show dev "$BR" | grep -q ' vlan_default_pvid ' && KVLAN=1

if [ "$KVLAN" = 1 ]; then
	# a VLAN only the kernel has, before xdpbrd starts: xdpbr wins
	bridge vlan add dev "$P3" vid 99 || abort "bridge vlan add dev $P3 vid 99"
fi
daemon_start || abort "xdpbrd start" "$XT_WHY"
hosts_quiet || abort "hosts_quiet"
log_poll "$DAEMON_LOG" "mirroring" 5 || abort "the mirror did not start" "$(cat "$DAEMON_LOG")"

if [ "$KVLAN" = 0 ]; then
	# ---- a kernel without VLAN filtering: the VLAN mirror is off, the rest runs
	log_poll "$DAEMON_LOG" "no VLAN filtering" 3
	sleep 2.5	# a few more looks
	check_eq "the log says once that the Linux bridge has no VLAN filtering" 1 \
		"$(grep -c "bridge $BR: the Linux bridge has no VLAN filtering" "$DAEMON_LOG")"
	check_fail "... and no warning about VLANs" grep -qi "vlan.*couldn't\|couldn't.*vlan" \
		"$DAEMON_LOG"
	check "xdpbr's own VLANs work: xdpbr bridge set vlan_filtering on" \
		"$XDPBR" -b "$BR" bridge set vlan_filtering on
	check "... xdpbr vlan add dev $P1 vid 10 pvid untagged" \
		"$XDPBR" -b "$BR" vlan add dev "$P1" vid 10 pvid untagged
	check "... xdpbr vlan del dev $P1 vid 1" "$XDPBR" -b "$BR" vlan del dev "$P1" vid 1
	sleep 1.5
	check_eq "... and stay as set (xdpbr vlan show dev $P1)" "10PU" "$(xvlans "$P1")"
	check_eq "... vlan_filtering stays on" on "$(xbr vlan_filtering)"
	check "the rest of the mirror runs: bridge link set dev $P2 learning off" \
		bridge link set dev "$P2" learning off
	shows "... is xdpbr's" '"$XDPBR" -b "$BR" link show dev "$P2"' \
		eval '[ "$(pfx_link_field "$P2" learning)" = false ]'
	check "ip link set type bridge ageing_time 200" ip link set dev "$BR" type bridge ageing_time 200
	shows "... is xdpbr's" '"$XDPBR" -b "$BR" bridge show' \
		eval '[ "$(bridge_field ageing_time)" = 2 ]'
	finish
fi

# ---- at start xdpbr wins
shows "at start xdpbr's VLANs win: $P3's VLAN 99 (the kernel's only) is gone, both views 1PU" \
	"$VIEWS" vlans_are "$P3" 1PU
check_eq "xdpbr's vlan_filtering (off) is the kernel's" 0 "$(kbr vlan_filtering)"

# ---- xdpbr -> kernel
check "xdpbr bridge set vlan_filtering on" "$XDPBR" -b "$BR" bridge set vlan_filtering on
shows "... the kernel's vlan_filtering is 1" "$VIEWS" eval '[ "$(kbr vlan_filtering)" = 1 ]'
check "xdpbr vlan add dev $P1 vid 10 pvid untagged; del vid 1" eval \
	'"$XDPBR" -b "$BR" vlan add dev "$P1" vid 10 pvid untagged &&
	 "$XDPBR" -b "$BR" vlan del dev "$P1" vid 1'
shows "... bridge vlan show dev $P1: 10 PVID Egress Untagged" "$VIEWS" vlans_are "$P1" 10PU
check "xdpbr vlan add dev $P2 vid 100-110" "$XDPBR" -b "$BR" vlan add dev "$P2" vid 100-110
shows "... bridge vlan show dev $P2: 1 PVID untagged, 100-110 tagged" "$VIEWS" \
	vlans_are "$P2" "1PU 100-110"

# ---- kernel -> xdpbr
check "bridge vlan add dev $P2 vid 10" bridge vlan add dev "$P2" vid 10
shows "... xdpbr vlan show dev $P2: 1 PVID untagged, 10 and 100-110 tagged" "$VIEWS" \
	vlans_are "$P2" "1PU 10 100-110"
check "bridge vlan del dev $P2 vid 100-110" bridge vlan del dev "$P2" vid 100-110
check "bridge vlan add dev $P3 vid 20-30" bridge vlan add dev "$P3" vid 20-30
shows "... xdpbr: $P2 lost 100-110, $P3 has 20-30" "$VIEWS" \
	eval 'vlans_are "$P2" "1PU 10" && vlans_are "$P3" "1PU 20-30"'
check "bridge vlan del dev $P3 vid 25" bridge vlan del dev "$P3" vid 25
check "bridge vlan add dev $P3 vid 28 untagged" bridge vlan add dev "$P3" vid 28 untagged
shows "... xdpbr: $P3 has 20-24, 26-27, 28 untagged, 29-30" "$VIEWS" \
	vlans_are "$P3" "1PU 20-24 26-27 28U 29-30"
check "bridge vlan add dev $P3 vid 20 pvid untagged" bridge vlan add dev "$P3" vid 20 pvid untagged
shows "... xdpbr: $P3's PVID is 20 (1 stays, untagged)" "$VIEWS" \
	vlans_are "$P3" "1U 20PU 21-24 26-27 28U 29-30"
check "bridge vlan del dev $P3 vid 20-30; add vid 1 pvid untagged" eval \
	'bridge vlan del dev "$P3" vid 20-30 && bridge vlan add dev "$P3" vid 1 pvid untagged'
shows "... xdpbr: $P3 is 1 PVID untagged again" "$VIEWS" vlans_are "$P3" 1PU

# ---- the datapath does what iproute2 set: h1 untagged on P1 (access port
# of VLAN 10), h2 and h3 with 802.1Q devices e0.10 behind trunks P2, P3
for i in 1 2 3; do
	dev=e0
	if [ "$i" != 1 ]; then
		dev=e0.10
		hexec "$i" ip link add link e0 name e0.10 type vlan id 10 ||
			abort "ip link add ... type vlan id 10 in h$i (no 8021q?)"
		hexec "$i" sysctl -q -w net.ipv6.conf.e0/10.disable_ipv6=1
		hexec "$i" ip link set dev e0.10 up
	fi
	hexec "$i" ip addr add "198.18.10.$i/24" dev "$dev" || abort "address of h$i"
done
check "h1 (untagged, P1 access VLAN 10) -> h2 (tagged 10) ping" \
	xt_poll 10 vping 1 198.18.10.2
check_fail "h2 -> h3: $P3 is not in VLAN 10, the frames are dropped" vping 2 198.18.10.3
check "bridge vlan add dev $P3 vid 10" bridge vlan add dev "$P3" vid 10
shows "... xdpbr has it" "$VIEWS" vlans_are "$P3" "1PU 10"
check "h2 -> h3 ping in VLAN 10 now" xt_poll 10 vping 2 198.18.10.3
check "h3 -> h1 ping (tagged in, untagged out)" vping 3 198.18.10.1
check "... xdpbr learned h2 on $P2 in VLAN 10" jq_true "$(fdb_json)" \
	'any(.[]; (.mac | ascii_downcase) == $m and .ifname == $p and .vlan == 10)' \
	--arg m "${MAC[2]}" --arg p "$P2"

# ---- the FDB per VLAN, both ways
KFDB='bridge fdb show br "$BR"; "$XDPBR" -b "$BR" fdb show'
shows "bridge fdb show: h2 on $P2 in VLAN 10, extern_learn (xdpbr's)" "$KFDB" \
	eval 'bridge fdb show br "$BR" | grep -qi "^${MAC[2]} dev $P2 vlan 10 .*extern_learn"'
S1=$(test_mac 1) S2=$(test_mac 2)
check "bridge fdb add $S1 dev $P2 master static vlan 10" \
	bridge fdb add "$S1" dev "$P2" master static vlan 10
shows "... xdpbr has it on $P2 in VLAN 10 (never ages, moves: static, not sticky), none in VLAN 0" "$KFDB" \
	eval 'jq_true "$(fdb_json)" "any(.[]; (.mac | ascii_downcase) == \$m and .ifname == \$p and
		.vlan == 10 and .state == \"static\" and ((.flags // []) | index(\"sticky\") | not)) and
		all(.[]; .mac != \$m or .vlan == 10)" \
		--arg m "$S1" --arg p "$P2"'
check "xdpbr fdb add $S2 dev $P2 vlan 10 static" "$XDPBR" -b "$BR" fdb add "$S2" dev "$P2" vlan 10 static
shows "... bridge fdb show: $S2 dev $P2 vlan 10 static sticky" "$KFDB" \
	eval 'l=$(bridge fdb show br "$BR" | grep -i "^$S2 dev $P2 vlan 10 ") &&
		[[ $l == *" static"* && $l == *" sticky"* ]]'
check "bridge fdb del $S1 dev $P2 master vlan 10" bridge fdb del "$S1" dev "$P2" master vlan 10
shows "... gone from xdpbr's FDB" "$KFDB" fdb_lacks "$S1"
check "xdpbr fdb del $S2 vlan 10" "$XDPBR" -b "$BR" fdb del "$S2" vlan 10
shows "... gone from the kernel's" "$KFDB" \
	eval '! bridge fdb show br "$BR" | grep -qi "^$S2 "'

check "bridge vlan del dev $P3 vid 10" bridge vlan del dev "$P3" vid 10
shows "... xdpbr lost it" "$VIEWS" vlans_are "$P3" 1PU
check_fail "... and h2 -> h3 is dropped again" vping 2 198.18.10.3

# ---- vlan_filtering and default_pvid, kernel -> xdpbr and back
check "ip link set type bridge vlan_filtering 0" ip link set dev "$BR" type bridge vlan_filtering 0
shows "... xdpbr's vlan_filtering is off" "$VIEWS" eval '[ "$(xbr vlan_filtering)" = off ]'
check "ip link set type bridge vlan_default_pvid 5" \
	ip link set dev "$BR" type bridge vlan_default_pvid 5
shows "... xdpbr's default_pvid is 5, and the ports that had 1 have 5" "$VIEWS" \
	eval '[ "$(xbr default_pvid)" = 5 ] && vlans_are "$P3" 5PU && vlans_are "$P2" "5PU 10"'
check "xdpbr bridge set default_pvid 7" "$XDPBR" -b "$BR" bridge set default_pvid 7
shows "... the kernel's vlan_default_pvid is 7, ports follow" "$VIEWS" \
	eval '[ "$(kbr vlan_default_pvid)" = 7 ] && vlans_are "$P3" 7PU'
check "ip link set type bridge vlan_filtering 1" ip link set dev "$BR" type bridge vlan_filtering 1
shows "... xdpbr's vlan_filtering is on" "$VIEWS" eval '[ "$(xbr vlan_filtering)" = on ]'
check_fail "no warning about VLANs in the log" grep -qi "vlan.*couldn't\|couldn't.*vlan" "$DAEMON_LOG"

# ---- multicast snooping is per VLAN with VLAN filtering: the kernel's MDB
# entries say vid 10, and so must the datapath's lookup of a group. The
# kernel snoops on learning ports (listening ones drop before), as the
# daemon's own bridge device leaves them; BR is the querier.
G=239.10.10.10
# shellcheck source=mcast_lib.sh
. "$(dirname "$0")/mcast_lib.sh"
export MCPEER_DEV=e0.10
check "bridge vlan add dev $P3 vid 10; ports learning; mcast_snooping 1 mcast_querier 1" eval \
	'bridge vlan add dev "$P3" vid 10 && bridge link set dev "$P1" state 2 &&
	 bridge link set dev "$P2" state 2 && bridge link set dev "$P3" state 2 &&
	 ip link set dev "$BR" type bridge mcast_snooping 1 mcast_querier 1 \
		mcast_query_response_interval 100'
join g3 3 join "$G"
# Python takes seconds to start in a TCG guest: the join is made first.
xt_poll 60 grep -q joined "$XT_TMP/join.g3" || fail "h3 joins $G" "$(cat "$XT_TMP/join.g3")"
XT_SHOWS_SECS=$((${XT_SHOWS_SECS:-3} * 2)) \
	shows "bridge mdb show: h3's join of $G on $P3 in VLAN 10" 'bridge -d mdb show dev "$BR"' \
	eval 'bridge mdb show dev "$BR" | grep -Eq "port $P3 grp $G .* vid 10( |\$)"'
sleep 1.5	# the query response interval: then the querier counts
cap_launch m1 e0 "udp port 4242" 30 "" "" ip netns exec "${NS[1]}"
cap_launch m3 e0.10 "udp port 4242" 30 "" "" ip netns exec "${NS[3]}"
{ cap_listening m1 "${NS[1]}" e0 "udp port 4242" &&
	cap_listening m3 "${NS[3]}" e0.10 "udp port 4242"; } || fail "captures on h1 and h3" "$XT_WHY"
check "h2 sends 10 datagrams to $G in VLAN 10" hexec 2 python3 "$PEER" send "$G" 10
sleep 1
kill -TERM "${CAP_PID[m1]}" "${CAP_PID[m3]}" 2>/dev/null
cap_end m1
cap_end m3
check_eq "... member h3 got 10, h1 (VLAN 10, no member) none" "10 0" \
	"$(cap_lines m3 | grep -c .) $(cap_lines m1 | grep -c .)"
leave g3

# ---- a multicast context per VLAN (mcast_vlan_snooping): VLAN 10's own
# querier and router ports decide, not the bridge's. The bridge's querier
# goes off and VLAN 10's comes on; P1 is VLAN 10's router port
# (`bridge vlan set ... mcast_router 2`, port VLAN 10's option). Without
# the VLAN's context the datapath would see no querier and flood both.
U=239.10.10.11
# vstream GROUP [VID]: h2 sends 10 datagrams to GROUP in VLAN VID (10 by
# default; h1 is an access port of VLAN 10, h2 and h3 send and receive on
# e0.VID); VGOT is "H1 H3", the copies h1 and h3 got.
vstream()
{
	local vid=${2:-10}

	cap_launch v1 e0 "udp port 4242 and dst $1" 30 "" "" ip netns exec "${NS[1]}"
	cap_launch v3 "e0.$vid" "udp port 4242 and dst $1" 30 "" "" ip netns exec "${NS[3]}"
	{ cap_listening v1 "${NS[1]}" e0 "udp port 4242 and dst $1" &&
		cap_listening v3 "${NS[3]}" "e0.$vid" "udp port 4242 and dst $1"; } ||
		fail "captures on h1 and h3" "$XT_WHY"
	hexec 2 env MCPEER_DEV="e0.$vid" python3 "$PEER" send "$1" 10 ||
		fail "h2 sends to $1 in VLAN $vid"
	sleep 1
	kill -TERM "${CAP_PID[v1]}" "${CAP_PID[v3]}" 2>/dev/null
	cap_end v1
	cap_end v3
	VGOT="$(cap_lines v1 | grep -c .) $(cap_lines v3 | grep -c .)"
}
check "mcast_vlan_snooping 1, mcast_querier 0; VLAN 10's querier on; P1 VLAN 10's router port" eval \
	'ip link set dev "$BR" type bridge mcast_querier 0 mcast_vlan_snooping 1 &&
	 bridge vlan global set vid 10 dev "$BR" mcast_snooping 1 mcast_querier 1 \
		mcast_query_response_interval 100 &&
	 bridge vlan set vid 10 dev "$P1" mcast_router 2'
join g3 3 join "$G"
xt_poll 60 grep -q joined "$XT_TMP/join.g3" || fail "h3 joins $G" "$(cat "$XT_TMP/join.g3")"
XT_SHOWS_SECS=$((${XT_SHOWS_SECS:-3} * 2)) \
	shows "bridge mdb show: h3's join of $G on $P3 in VLAN 10" 'bridge -d mdb show dev "$BR"' \
	eval 'bridge mdb show dev "$BR" | grep -Eq "port $P3 grp $G .* vid 10( |\$)"'
sleep 1.5	# the query response interval, and a look of the mirror
vstream "$G"
check_eq "VLAN 10's querier: $G to its member h3 and the router port h1 (h1 h3)" "10 10" "$VGOT"
vstream "$U"
check_eq "... unregistered $U to VLAN 10's router port h1 only (h1 h3)" "10 0" "$VGOT"
check "VLAN 10's querier off" \
	bridge vlan global set vid 10 dev "$BR" mcast_querier 0
sleep 1.5
vstream "$U"
check_eq "... no querier in VLAN 10 (nor the bridge's): $U floods (h1 h3)" "10 10" "$VGOT"
leave g3

# ---- VLANs of equal options are one range in the kernel's dump, with the
# first VLAN's querier state. h1 becomes VLAN 10's querier (a kernel
# bridge in its namespace) on P1, no router port there (mcast_router 0);
# VLAN 11 has no querier and VLAN 10's options. VLAN 11 must flood, as
# the kernel does without a querier: with VLAN 10's state taken for it,
# its unregistered groups went to no port at all.
U11=239.10.11.12
check "VLAN 11 on $P2 and $P3 with VLAN 10's options; $P1 no router port of VLAN 10" eval \
	'bridge vlan add dev "$P2" vid 11 && bridge vlan add dev "$P3" vid 11 &&
	 bridge vlan global set vid 11 dev "$BR" mcast_snooping 1 mcast_querier 0 \
		mcast_query_response_interval 100 &&
	 bridge vlan set vid 10 dev "$P1" mcast_router 0'
for i in 2 3; do
	{ hexec "$i" ip link add link e0 name e0.11 type vlan id 11 &&
		hexec "$i" sysctl -q -w net.ipv6.conf.e0/11.disable_ipv6=1 &&
		hexec "$i" ip addr add "198.18.11.$i/24" dev e0.11 &&
		hexec "$i" ip link set dev e0.11 up; } || abort "e0.11 in h$i"
done
check "h1 a querier in VLAN 10 (a kernel bridge q0 over its e0)" eval \
	'hexec 1 ip link add q0 type bridge mcast_querier 1 mcast_query_use_ifaddr 1 \
		mcast_query_interval 200 &&
	 hexec 1 ip link set dev e0 master q0 && hexec 1 ip addr add 198.18.10.100/24 dev q0 &&
	 hexec 1 ip link set dev q0 up'
# (Debian 12's iproute2 prints no querier state: the range, then VLAN
# 10's querier by what it prunes)
shows "bridge vlan global show: VLANs 10-11 one range" 'bridge -d vlan global show dev "$BR"' \
	eval 'bridge -d vlan global show dev "$BR" | grep -Eq "^ +10-11( |\$)"'
sleep 3		# h1's first queries, the response interval, a look of the mirror
vstream "$U"
check_eq "VLAN 10 (h1 its querier, no router port): unregistered $U to no port (h1 h3)" "0 0" \
	"$VGOT"
vstream "$U11" 11
check_eq "VLAN 11 (no querier, VLAN 10's range): unregistered $U11 floods to h3, not h1 (h1 h3)" \
	"0 10" "$VGOT"
hexec 1 ip link del dev q0
check "mcast_vlan_snooping 0, mcast_querier 1" \
	ip link set dev "$BR" type bridge mcast_vlan_snooping 0 mcast_querier 1

# ---- a Linux bridge taken over keeps its VLAN settings: vlan_filtering,
# default_pvid and its ports' VLANs, none of them given by a file (as its
# ageing time; test_takeover.sh). Here the bridge as the run above left
# it (filtering on, default PVID 7), and a VLAN range only the kernel has.
daemon_stop
check "with no daemon: bridge vlan add dev $P3 vid 30-31" bridge vlan add dev "$P3" vid 30-31
K1=$(kvlans "$P1") K2=$(kvlans "$P2") K3=$(kvlans "$P3")
: >"$DAEMON_LOG"
"$XDPBRD" -d "$XT_DATAPATH" "$BR" >>"$DAEMON_LOG" 2>&1 &
DAEMON_PID=$!
xt_poll "$XT_START_SECS" grep -q "bridge $BR: forwarding on 4 ports" "$DAEMON_LOG" ||
	abort "xdpbrd $BR did not take the bridge over" "$(cat "$DAEMON_LOG")"
check "the log says its vlan_filtering 1 and default_pvid 7 were kept" \
	grep -q "Linux bridge $BR: its vlan_filtering 1 and default_pvid 7 kept" "$DAEMON_LOG"
check_eq "xdpbr's vlan_filtering and default_pvid are the bridge's" "on 7" \
	"$(xbr vlan_filtering) $(xbr default_pvid)"
shows "the ports' VLANs are the bridge's in both views ($P3: $K3)" "$VIEWS" \
	eval 'vlans_are "$P1" "$K1" && vlans_are "$P2" "$K2" && vlans_are "$P3" "$K3"'
sleep 2.5	# the mirror's looks: nothing changes back
check_eq "... and stay so: the kernel's vlan_filtering and default PVID" "1 7" \
	"$(kbr vlan_filtering) $(kbr vlan_default_pvid)"
check "... and $P3 keeps 30-31 in both views" vlans_are "$P3" "$K3"

# ---- the device's own VLANs are its host port's (this daemon has the
# device as its host interface): `bridge vlan add dev BR vid 10 self`
# makes BR-host a member of VLAN 10 in xdpbr and BR-dev one in the
# kernel, and the host talks in VLAN 10 through BR.10, both ways.
check "bridge vlan add dev $BR vid 10 self" bridge vlan add dev "$BR" vid 10 self
shows "... $BR-host in VLAN 10 in xdpbr, $BR-dev in the kernel" \
	'"$XDPBR" -b "$BR" vlan show; bridge vlan show' \
	eval '[[ " $(xvlans "$BR-host") " == *" 10 "* && " $(kvlans "$BR-dev") " == *" 10 "* ]]'
XT_CLEANUP_CMDS+=("ip link del dev $BR.10")
check "$BR.10 (198.18.10.254) up" eval \
	'ip link add link "$BR" name "$BR.10" type vlan id 10 &&
	 ip addr add 198.18.10.254/24 dev "$BR.10" && ip link set dev "$BR.10" up'
check "the host (on $BR.10) -> h2 (tagged 10) ping" xt_poll 10 ping -c 1 -W 2 198.18.10.2
check "bridge vlan del dev $BR vid 10 self" bridge vlan del dev "$BR" vid 10 self
shows "... $BR-host out of VLAN 10 in xdpbr" '"$XDPBR" -b "$BR" vlan show' \
	eval '[[ " $(xvlans "$BR-host") " != *" 10 "* ]]'
check_fail "... and the host can't reach h2 in VLAN 10" ping -c 1 -W 2 198.18.10.2
ip link del dev "$BR.10"
check_fail "no warning about VLANs in the log" grep -qi "vlan.*couldn't\|couldn't.*vlan" "$DAEMON_LOG"

finish

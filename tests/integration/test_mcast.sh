#!/usr/bin/env bash
# IGMP/MLD snooping: the Linux bridge device (the host interface) snoops
# the IGMP/MLD frames the datapath hands it on their ingress port, and the
# datapath forwards multicast by its MDB. Hosts join and leave with real
# sockets; BR is the querier (IPv4 and IPv6), a kernel bridge in h4's
# namespace a second querier (h4's port becomes a router port). Captures
# count the copies each host gets: a registered group reaches its members
# and the router port only, an unregistered one the router port only, a
# link-local one everybody; `bridge mdb show` agrees; a static group
# (`bridge mdb add ... permanent`) is honoured; mcast_flood off keeps no
# member or router port from its group's copies; a leave prunes; without a
# querier everything floods; the counters account for every frame; a
# daemon restart (SIGKILL) finds what the kernel learned meanwhile.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
# shellcheck source=mcast_lib.sh
. "$(dirname "$0")/mcast_lib.sh"

G4=239.1.1.1		# h2 joins
U4=239.9.9.9		# nobody joins
S4=239.2.2.2		# static on h3's port
L4=224.0.0.251		# local network control: floods
G6=ff15::101		# h2 joins
U6=ff15::909		# nobody joins
N=10			# frames a stream

xt_require
xt_need python3
xt_need tcpdump

topo_up 4
XT_CLEANUP_CMDS+=("ip link del dev $BR")


# mdb_ports GROUP: the ports `bridge mdb show` lists for GROUP, sorted.
mdb_ports()
{
	bridge -j mdb show dev "$BR" |
		jq -r --arg g "$1" '.[].mdb[]? | select(.grp == $g) | .port' | sort | tr '\n' ' '
}

mdb_has() { mdb_ports "$1" | grep -qw -- "$2"; }
mdb_lacks() { ! mdb_has "$@"; }

# stream GROUP: h1 sends N datagrams to GROUP while h2, h3 and h4 capture;
# sets GOT[2..4] to the copies each received.
stream() { mc_stream 1 "$1"; }

# expect WHAT H2 H3 H4: after stream, the copies each host got.
expect()
{
	check_eq "$1: h2 $2, h3 $3, h4 $4 copies" "$2 $3 $4" "${GOT[2]} ${GOT[3]} ${GOT[4]}"
}

counter_sum() { port_counter "$1" "$2"; }

daemon_start || abort "xdpbrd" "$XT_WHY"
for i in 1 2 3 4; do
	check "${PORT[i]}: muted in the kernel bridge as learning (it snoops, never forwards)" \
		test "$(cat "/sys/class/net/${PORT[i]}/brport/state")" = 2
done

# ---- no querier: multicast floods, as without snooping
ip link set dev "$BR" type bridge mcast_snooping 1 mcast_querier 0 \
	mcast_query_response_interval 100 || abort "configuring $BR"
ip link set dev "$BR" up
join g2 2 join "$G4"
xt_poll 10 mdb_has "$G4" "${PORT[2]}" ||
	fail "h2's join of $G4 is in the kernel's MDB on ${PORT[2]}" "$(bridge mdb show dev "$BR")"
stream "$G4"
expect "no querier: $G4 floods" $N $N $N

# ---- BR a querier (IPv4 and IPv6: it needs an IPv6 address), and h4 too:
# a kernel bridge of its own in h4's namespace, whose queries make h4's
# port a router port. The lower address is the querier (198.18.0.44, h4):
# BR leaves leaves to it (its group-specific queries shorten BR's timers).
ip addr add 198.19.255.254/32 dev "$BR"	# no route: other suites use 198.18.0.0/24 here
ip addr add 2001:2:0:ff::fe/128 dev "$BR" nodad
ip link set dev "$BR" type bridge mcast_querier 1 mcast_query_use_ifaddr 1 ||
	abort "mcast_querier 1"
{
	ip -n "${NS[4]}" link add q0 type bridge mcast_querier 1 mcast_query_use_ifaddr 1 \
		mcast_last_member_interval 50 &&
		ip netns exec "${NS[4]}" sysctl -qw net.ipv6.conf.q0.accept_dad=0 &&
		ip -n "${NS[4]}" link set dev e0 master q0 &&
		ip -n "${NS[4]}" addr add 198.18.0.44/24 dev q0 &&
		ip -n "${NS[4]}" link set dev q0 up
} || abort "h4's querier"
router_learned() { bridge -d mdb show dev "$BR" | grep -q "router ports on $BR:.* ${PORT[4]} "; }
xt_poll 10 router_learned ||
	fail "${PORT[4]} is a router port (h4's queries)" "$(bridge -d mdb show dev "$BR")"
join g6 2 join "$G6"
xt_poll 10 mdb_has "$G6" "${PORT[2]}" ||
	fail "h2's join of $G6 is in the kernel's MDB on ${PORT[2]}" "$(bridge mdb show dev "$BR")"
check "h3 is no member of $G4 (bridge mdb show)" mdb_lacks "$G4" "${PORT[3]}"
# The host's copies of reports go to BR's stack past the kernel bridge
# (lib/hook.c tc_ingress_reports_to): each join is snooped once, on its
# host's port, not also on BR-dev, and the host still receives it.
check "h2's joins are snooped on ${PORT[2]} only, not also on $BR-dev" \
	eval '[ "$(mdb_ports "$G4")" = "${PORT[2]} " ] && [ "$(mdb_ports "$G6")" = "${PORT[2]} " ]'
cap_start_root rep "$BR" "igmp and src host ${IP4[3]} and dst 239.3.3.3" 10 1 ||
	fail "capture on $BR" "$XT_WHY"
join g3 3 join 239.3.3.3
check_eq "h3's report reaches the host's stack on $BR" 1 "$(cap_wait rep)" "$(cap_show rep)"
xt_poll 10 mdb_has 239.3.3.3 "${PORT[3]}" ||
	fail "h3's join of 239.3.3.3 is in the kernel's MDB on ${PORT[3]}" "$(bridge mdb show dev "$BR")"
check_eq "... and is snooped on ${PORT[3]} only" "${PORT[3]} " "$(mdb_ports 239.3.3.3)"
leave g3
cap_start_root rep6 "$BR" "ip6 dst ff15::303 and ether src ${MAC[3]}" 10 1 ||
	fail "capture on $BR" "$XT_WHY"
join g36 3 join ff15::303
check_eq "h3's MLD report reaches the host's stack on $BR" 1 "$(cap_wait rep6)" \
	"$(cap_show rep6)"
xt_poll 10 mdb_has ff15::303 "${PORT[3]}" ||
	fail "h3's join of ff15::303 is in the kernel's MDB on ${PORT[3]}" "$(bridge mdb show dev "$BR")"
check_eq "... and is snooped on ${PORT[3]} only" "${PORT[3]} " "$(mdb_ports ff15::303)"
leave g36
sleep 1.5	# the query response interval (1 s): then a querier counts

f0=$(counter_sum "${PORT[1]}" flood_multicast)
t2=$(counter_sum "${PORT[2]}" tx_packets)
ff3=$(counter_sum "${PORT[3]}" flood_filtered)
stream "$G4"
expect "registered $G4: to its member and the router port" $N 0 $N
# Other multicast (queries, reports) may cross meanwhile: at least the
# stream.
check "${PORT[1]} counted each of the $N as flood_multicast" \
	test "$(( $(counter_sum "${PORT[1]}" flood_multicast) - f0 ))" -ge $N
check "${PORT[2]} counted the $N copies as tx_packets" \
	test "$(( $(counter_sum "${PORT[2]}" tx_packets) - t2 ))" -ge $N
# The group's set (xdpbr_mdb_set) names the ports its frames visit: no
# copy is made for h3's port to refuse (before the sets, each was one,
# counted as flood_filtered).
check "${PORT[3]} was not visited: no copy made to refuse (flood_filtered unchanged)" \
	test "$(( $(counter_sum "${PORT[3]}" flood_filtered) - ff3 ))" -eq 0

# mcast_flood off is for unregistered multicast only (the kernel's
# br_multicast_flood asks no flag): a member and a router port with it off
# still get the group's copies, a port of neither still none.
mcflood()
{
	json_is array 'any(.[]; .ifname == $p and .mcast_flood == $v)' --arg p "$1" \
		--argjson v "$2" -- "$XDPBR" -b "$BR" -j link show 2>/dev/null
}
for i in 2 3 4; do
	bridge link set dev "${PORT[i]}" mcast_flood off || fail "bridge link set ${PORT[i]} mcast_flood off"
done
xt_poll 5 eval 'mcflood "${PORT[2]}" false && mcflood "${PORT[4]}" false' ||
	fail "mcast_flood off shows in xdpbr link show" "$("$XDPBR" -b "$BR" link show)"
sleep 1.2	# the snooping mirror's next look sees a port out of the flood set
stream "$G4"
expect "mcast_flood off on h2's (member), h3's and h4's (router) ports: $G4 to the member and the router port" $N 0 $N
for i in 2 3 4; do
	bridge link set dev "${PORT[i]}" mcast_flood on || fail "bridge link set ${PORT[i]} mcast_flood on"
done
xt_poll 5 eval 'mcflood "${PORT[2]}" true && mcflood "${PORT[4]}" true' ||
	fail "mcast_flood on shows in xdpbr link show" "$("$XDPBR" -b "$BR" link show)"

stream "$U4"
expect "unregistered $U4: to the router port only" 0 0 $N
stream "$L4"
expect "link-local $L4: floods" $N $N $N
# The host sends too: what it sends on BR goes straight into BR-dev (the
# egress redirect, lib/hook.c), past the kernel bridge's forwarding, and
# the datapath prunes it as any port's (h1 is no member either).
mc_stream 0 "$G4"
expect "the host sends to registered $G4: to its member and the router port" $N 0 $N
mc_stream 0 "$U4"
expect "the host sends to unregistered $U4: to the router port only" 0 0 $N

# h4 is an IPv6 router port only while its MLD querier won an election
# against BR's: the IPv6 checks leave h4 out.
stream "$G6"
check_eq "registered $G6: to its member, not to h3 (h2 $N, h3 0)" "$N 0" "${GOT[2]} ${GOT[3]}"
stream "$U6"
check_eq "unregistered $U6 (IPv6): to neither h2 nor h3" "0 0" "${GOT[2]} ${GOT[3]}"

# ---- a static group, added while no daemon runs: the kernel keeps the
# MDB, the next daemon reads it whole
daemon_stop KILL
bridge mdb add dev "$BR" port "${PORT[3]}" grp "$S4" permanent ||
	fail "bridge mdb add $S4 on ${PORT[3]}"
daemon_start || abort "xdpbrd after SIGKILL" "$XT_WHY"
check "bridge mdb show lists the static $S4 on ${PORT[3]}" mdb_has "$S4" "${PORT[3]}"
sleep 1.5	# the mirror reads at start and once a second
stream "$S4"
expect "static $S4 on h3's port, added while no daemon ran" 0 $N $N
stream "$G4"
expect "after the restart, $G4 still to its member and the router port" $N 0 $N
# A member port that is down gets no copy and counts none. h3's port
# down: its static entry stays (permanent), so $S4's set (h3's port, the
# router port, the host's) still names it, and the XDP path must not
# send into the group's devmap, which would count a copy the port never
# sends (bpf/flood.h xdp_mcast_set).
ip link set dev "${PORT[3]}" down || fail "ip link set ${PORT[3]} down"
pfx_poll 3 pfx_link_is "${PORT[3]}" state '"disabled"' ||
	fail "${PORT[3]} down: link show says disabled" "$(pfx_link_json "${PORT[3]}" 2>&1)"
t3=$(counter_sum "${PORT[3]}" tx_packets)
stream "$S4"
expect "static $S4, h3's port down: to the router port only" 0 0 $N
check_eq "... and ${PORT[3]}, down, counted no copy as sent (tx_packets)" \
	"$t3" "$(counter_sum "${PORT[3]}" tx_packets)"
ip link set dev "${PORT[3]}" up || fail "ip link set ${PORT[3]} up"
pfx_poll 5 pfx_link_is "${PORT[3]}" state '"forwarding"' ||
	fail "${PORT[3]} up: link show says forwarding" "$(pfx_link_json "${PORT[3]}" 2>&1)"
stream "$S4"
expect "static $S4, h3's port up again: to h3 and the router port" 0 $N $N
bridge mdb del dev "$BR" port "${PORT[3]}" grp "$S4"
sleep 1.2
stream "$S4"
expect "bridge mdb del: $S4 to the router port only" 0 0 $N

# ---- a leave prunes
leave g2
xt_poll 6 mdb_lacks "$G4" "${PORT[2]}" ||
	fail "h2's leave removed it from $G4 (bridge mdb show)" "$(bridge mdb show dev "$BR")"
sleep 1.2
stream "$G4"
expect "after h2 left $G4: the router port only" 0 0 $N

# ---- mcast_snooping off: floods
ip link set dev "$BR" type bridge mcast_snooping 0 || fail "mcast_snooping 0"
sleep 1.2
stream "$U4"
expect "mcast_snooping off: $U4 floods" $N $N $N

leave g6
finish

#!/usr/bin/env bash
# IGMPv3 and MLDv2 source filtering: with the Linux bridge device in
# IGMPv3/MLDv2 mode (mcast_igmp_version 3, mcast_mld_version 2) and its
# own querier, hosts join a group with real sockets for one source only
# (INCLUDE) or for every source but one (EXCLUDE, a blocked source). The
# kernel snoops them into (*,G) and (S,G) entries; xdpbr's datapath must
# forward as the kernel's br_multicast_flood would: from the included
# source to the INCLUDE member only, from another source to the EXCLUDE
# member only, the blocked source to neither. Captures count the copies
# on every host, `bridge mdb show` lists the entries, the pruned copies
# are counted, a leave prunes, and back in IGMPv2/MLDv1 mode the sources
# no longer matter.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
# shellcheck source=mcast_lib.sh
. "$(dirname "$0")/mcast_lib.sh"

G4=239.3.3.3
G6=ff15::303
N=10			# frames a stream

xt_require
xt_need python3
xt_need tcpdump

topo_up 4
XT_CLEANUP_CMDS+=("ip link del dev $BR")


# sg_ports GROUP SRC: the ports `bridge mdb show` lists for (SRC, GROUP)
# ("*": the (*,G) entries), sorted, those of the bridge's hosts only.
sg_ports()
{
	bridge -j -d mdb show dev "$BR" |
		jq -r --arg g "$1" --arg s "$2" \
			'.[].mdb[]? | select(.grp == $g and (.src // "*") == $s) | .port' |
		grep "^xt${ID}p" | sort | tr '\n' ' '
}

sg_has() { sg_ports "$1" "$2" | grep -qw -- "$3"; }
sg_lacks() { ! sg_has "$@"; }

# expect WHAT H1 H2 H3 H4: after mc_stream, the copies each host got.
expect()
{
	check_eq "$1: h1..h4 got $2 $3 $4 $5" "$2 $3 $4 $5" "${GOT[*]:1:4}"
}

daemon_start || abort "xdpbrd" "$XT_WHY"

for i in 1 2 3 4; do
	ip netns exec "${NS[i]}" sysctl -qw net.ipv4.conf.e0.force_igmp_version=3 \
		net.ipv6.conf.e0.force_mld_version=2 || abort "IGMPv3/MLDv2 on h$i"
done
ip addr add 198.19.255.254/32 dev "$BR"	# no route: other suites use 198.18.0.0/24 here
ip addr add 2001:2:0:ff::fe/128 dev "$BR" nodad
ip link set dev "$BR" type bridge mcast_snooping 1 mcast_igmp_version 3 mcast_mld_version 2 \
	mcast_querier 1 mcast_query_use_ifaddr 1 mcast_query_response_interval 100 \
	mcast_last_member_interval 50 || abort "configuring $BR (IGMPv3, MLDv2, querier)"
ip link set dev "$BR" up

for fam in 4 6; do
	if [ $fam = 4 ]; then G=$G4 S1=${IP4[1]} S3=${IP4[3]}; else G=$G6 S1=${IP6[1]} S3=${IP6[3]}; fi
	# h2 wants S1's traffic only; h4 everyone's but S1's.
	join "inc$fam" 2 include "$G" "$S1"
	join "exc$fam" 4 exclude "$G" "$S1"
	xt_poll 10 sg_has "$G" "$S1" "${PORT[2]}" ||
		fail "IPv$fam: h2's INCLUDE ($S1) join is an ($S1, $G) entry on ${PORT[2]}" \
			"$(bridge -d mdb show dev "$BR")"
	xt_poll 10 sg_has "$G" "*" "${PORT[4]}" ||
		fail "IPv$fam: h4's EXCLUDE ($S1) join is a (*, $G) entry on ${PORT[4]}" \
			"$(bridge -d mdb show dev "$BR")"
	check "IPv$fam: h3, which joined nothing, is in no entry of $G" \
		eval '! bridge -j mdb show dev "$BR" | jq -r --arg g "$G" \
			".[].mdb[]? | select(.grp == \$g) | .port" | grep -qx "${PORT[3]}"'
	sleep 1.5	# the query response interval: then the querier counts

	ff3=$(port_counter "${PORT[3]}" flood_filtered)
	mc_stream 1 "$G"
	expect "IPv$fam: from $S1 (h2 includes it, h4 blocks it)" - $N 0 0
	# the source group's set names h2's port, h4's blocked one not, h3's not
	check "IPv$fam: ${PORT[3]} was not visited: no copy made to refuse (flood_filtered unchanged)" \
		test "$(($(port_counter "${PORT[3]}" flood_filtered) - ff3))" -eq 0
	mc_stream 3 "$G"
	expect "IPv$fam: from $S3 (h2 wants $S1 only, h4 all but $S1)" 0 0 - $N

	# h2 leaves: its INCLUDE list empties, and S1's entry keeps only h4's
	# blocked port.
	leave "inc$fam"
	xt_poll 10 sg_lacks "$G" "$S1" "${PORT[2]}" ||
		fail "IPv$fam: h2's leave removed it from ($S1, $G)" "$(bridge -d mdb show dev "$BR")"
	sleep 1.2	# the mirror's next look, whatever notification was missed
	mc_stream 1 "$G"
	expect "IPv$fam: after h2 left, from $S1 to nobody" - 0 0 0
	mc_stream 3 "$G"
	expect "IPv$fam: after h2 left, from $S3 still to h4" 0 0 - $N
	leave "exc$fam"
done

# ---- IGMPv2/MLDv1 mode: the kernel looks up (*,G) only, every member
# port counts whatever its filter mode
ip link set dev "$BR" type bridge mcast_igmp_version 2 || fail "mcast_igmp_version 2"
for i in 1 2 3 4; do
	ip netns exec "${NS[i]}" sysctl -qw net.ipv4.conf.e0.force_igmp_version=2
done
join v2 2 include "$G4" "${IP4[1]}"
xt_poll 10 sg_has "$G4" "*" "${PORT[2]}" ||
	fail "IGMPv2: h2's join is a (*, $G4) entry on ${PORT[2]}" "$(bridge -d mdb show dev "$BR")"
sleep 1.2
mc_stream 3 "$G4"
expect "IGMPv2 mode: from ${IP4[3]} to h2, whose v2 join has no source list" 0 $N - 0
leave v2

finish

#!/usr/bin/env bash
# IEEE 802.1D link-local frames (01:80:c2:00:00:0X: LACP, LLDP ...) are
# never bridged: they go to the host stack of the port they arrived on, and
# the port counts them as pass_linklocal. A broadcast sent the same way is
# the control: it does cross the bridge. BPDUs (01:80:c2:00:00:00) are the
# exception, bridged while STP is off like the kernel bridge does:
# test_portstate.sh.
# The link-local limit (linklocal_limit, 100 a second by default): a burst
# of LLDP frames from h1 is cut to the limit, every frame counted once as
# pass_linklocal or drop_linklocal_limit, only the passed ones reach the
# host; with no limit all pass. BPDUs keeping their own bucket under a
# flood: test_stp.sh.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

# pad60 HEX: HEX (no separators) zero-padded to the 60-byte Ethernet minimum.
pad60()
{
	local hex=$1
	while [ ${#hex} -lt 120 ]; do
		hex+=00
	done
	echo "$hex"
}

xt_require
topo_up 3
daemon_start || abort "xdpbrd start" "$XT_WHY"
sleep 1

src=${MAC[1]//:/}
# LLDP: chassis id (MAC), port id (local "e0"), TTL 120, end.
lldp=$(pad60 "0180c200000e${src}88cc020704${src}040307653006020078""0000")
# LACPDU (slow protocols 0x8809, subtype 1, version 1), actor TLV only.
lacp=$(pad60 "0180c2000002${src}880901010114ffff${src}0001ffff00013d000000")
# Control: a broadcast with the local experimental EtherType 0x88b5.
ctl=$(pad60 "ffffffffffff${src}88b5""7864706272")

ll_filter="ether dst 01:80:c2:00:00:0e or ether dst 01:80:c2:00:00:02"
before=$(port_counter "${PORT[1]}" pass_linklocal)
for i in 2 3; do
	cap_start "ll$i" "$i" "$ll_filter" 3 || fail "capture in h$i" "$XT_WHY"
	cap_start "ctl$i" "$i" "ether proto 0x88b5" 5 1 ||
		fail "capture in h$i" "$XT_WHY"
done
cap_start_root llhost "${PORT[1]}" "$ll_filter" 3 2 ||
	fail "capture on ${PORT[1]}" "$XT_WHY"

check "sendframe LLDP to 01:80:c2:00:00:0e from h1" hexec 1 "$SENDFRAME" e0 "$lldp"
check "sendframe LACP to 01:80:c2:00:00:02 from h1" hexec 1 "$SENDFRAME" e0 "$lacp"
check "sendframe broadcast 0x88b5 from h1" hexec 1 "$SENDFRAME" e0 "$ctl"

for i in 2 3; do
	n=$(cap_wait "ll$i")
	check_eq "link-local frames from h1 do not reach h$i" 0 "$n" "$(cap_show "ll$i")"
	n=$(cap_wait "ctl$i")
	check_eq "broadcast from h1 reaches h$i (control)" 1 "$n" "$(cap_show "ctl$i")"
done
n=$(cap_wait llhost)
check_eq "link-local frames reach the host stack of ${PORT[1]}" 2 "$n" \
	"$(cap_show llhost)"

after=$(port_counter "${PORT[1]}" pass_linklocal)
if [[ $after =~ ^[0-9]+$ && $before =~ ^[0-9]+$ ]] && ((after >= 2 && after - before >= 2)); then
	pass "stats: pass_linklocal on ${PORT[1]} counts both frames ($before -> $after)"
else
	fail "stats: pass_linklocal on ${PORT[1]} counts both frames" \
		"before: $before, after: $after" \
		"$("$XDPBR" -b "$BR" -j stats dev "${PORT[1]}" 2>&1)"
fi

# ---------------------------------------------------------- the limit
LL_N=400 LL_PPS=20 XDPBR_LL_DEFAULT=100

# ll_mark: port 1's pass_linklocal and drop_linklocal_limit now, for
# ll_delta pass|drop COUNTER: how much COUNTER grew since.
declare -A LL_MARK
ll_mark()
{
	LL_MARK[pass]=$(port_counter "${PORT[1]}" pass_linklocal) &&
		LL_MARK[drop]=$(port_counter "${PORT[1]}" drop_linklocal_limit)
}
ll_delta()
{
	local v
	v=$(port_counter "${PORT[1]}" "$2") || return 1
	echo $((v - LL_MARK[$1]))
}
ll_all_counted()
{
	local p d
	p=$(ll_delta pass pass_linklocal) && d=$(ll_delta drop drop_linklocal_limit) &&
		((p + d >= LL_N))
}

check_eq "bridge show: linklocal_limit 100 by default" "$XDPBR_LL_DEFAULT" \
	"$(bridge_field linklocal_limit 2>&1)"
check "bridge set linklocal_limit $LL_PPS" "$XDPBR" -b "$BR" bridge set linklocal_limit "$LL_PPS"
check_eq "bridge show: linklocal_limit $LL_PPS" "$LL_PPS" "$(bridge_field linklocal_limit 2>&1)"
ll_mark || fail "counters of ${PORT[1]}" "$(port_counter "${PORT[1]}" drop_linklocal_limit 2>&1)"
cap_start_root llburst "${PORT[1]}" "ether dst 01:80:c2:00:00:0e" 4 ||
	fail "capture on ${PORT[1]}" "$XT_WHY"
t0=$(date +%s%N)
check "sendframe $LL_N LLDP frames back to back from h1" \
	hexec 1 "$SENDFRAME" -c "$LL_N" e0 "$lldp"
secs=$((($(date +%s%N) - t0) / 1000000000 + 1))
xt_poll 5 ll_all_counted
pass_n=$(ll_delta pass pass_linklocal) drop_n=$(ll_delta drop drop_linklocal_limit)
# at most a full bucket and its refill on each CPU; at least one bucket
most=$(($(nproc) * LL_PPS * (1 + secs)))
check_eq "limit $LL_PPS: each of the $LL_N frames counted once (pass $pass_n + drop $drop_n)" \
	"$LL_N" "$((pass_n + drop_n))"
if ((pass_n >= LL_PPS && pass_n <= most)); then
	pass "limit $LL_PPS: $pass_n passed to the host ($LL_PPS..$most), $drop_n dropped"
else
	fail "limit $LL_PPS: $LL_PPS..$most frames pass in ${secs} s" "pass $pass_n drop $drop_n"
fi
n=$(cap_wait llburst)
if [ "$XT_DATAPATH" = xdp ]; then
	# the skb path's taps see a frame before its TC program drops it
	check_eq "limit $LL_PPS: the host stack of ${PORT[1]} got the $pass_n passed" \
		"$pass_n" "$n" "$(cap_show llburst | tail -3)"
fi

check "bridge set linklocal_limit 0 (no limit)" "$XDPBR" -b "$BR" bridge set linklocal_limit 0
check_eq "bridge show: linklocal_limit 0" 0 "$(bridge_field linklocal_limit 2>&1)"
ll_mark
check "sendframe $LL_N LLDP frames again" hexec 1 "$SENDFRAME" -c "$LL_N" e0 "$lldp"
xt_poll 5 ll_all_counted
check_eq "no limit: all $LL_N passed" "$LL_N" "$(ll_delta pass pass_linklocal)"
check_eq "no limit: none dropped" 0 "$(ll_delta drop drop_linklocal_limit)"

finish

#!/usr/bin/env bash
# IEEE 802.1D link-local frames (01:80:c2:00:00:0X: LACP, LLDP ...) are
# never bridged: they go to the host stack of the port they arrived on, and
# the port counts them as pass_linklocal. A broadcast sent the same way is
# the control: it does cross the bridge. BPDUs (01:80:c2:00:00:00) are the
# exception, bridged while STP is off like the kernel bridge does:
# test_portstate.sh.
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

finish

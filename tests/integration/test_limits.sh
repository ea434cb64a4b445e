#!/usr/bin/env bash
# Learning limits: the bridge-wide `bridge set fdb_max_learned N` and the
# per-port `link set dev P max_learned N` refuse NEW dynamic entries (counted
# as learn_limit on the ingress port) while the frame is still forwarded or
# flooded; raising a limit lets learning continue, and `fdb flush` gives the
# room back.
#
# The hosts are kept quiet (no IPv6, permanent ARP entries): the FDB only
# changes through the test's own traffic. The per-port part sends frames
# with made-up source MACs from h1 (sendframe).
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check / xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

# dyn_on PORT: dynamic FDB entries on PORT.
dyn_on()
{
	fdb_json dev "$1" dynamic | jq 'length'
}

# from_h1 PROTO MAC...: one broadcast frame with EtherType PROTO from h1
# per source MAC.
from_h1()
{
	local proto=$1 m
	shift
	for m in "$@"; do
		hexec 1 "$SENDFRAME" e0 "$(eth_frame ff:ff:ff:ff:ff:ff "$m" "$proto")" ||
			return 1
	done
}

# burst KEY PROTO LABEL: the 5 made-up sources from h1, each frame must
# still be flooded to h2 however many are learned.
burst()
{
	local key=$1 proto=$2 label=$3 n
	cap_start "$key" 2 "ether proto 0x$proto" 4 5 || fail "capture in h2" "$XT_WHY"
	check "$label: 5 frames from h1 with 5 sources" from_h1 "$proto" "${SRC[@]}"
	n=$(cap_wait "$key")
	check_eq "$label: all 5 are flooded to h2" 5 "$n" "$(cap_show "$key")"
}

xt_require
topo_up 3
hosts_quiet || abort "hosts_quiet"
daemon_start || abort "xdpbrd start" "$XT_WHY"
P1=${PORT[1]}
P2=${PORT[2]}
P3=${PORT[3]}
SRC=()
for k in 1 2 3 4 5; do
	SRC+=("$(test_mac "$k")")
done

# --- bridge-wide: fdb_max_learned 2
check_eq "bridge show: fdb_max_learned 0 (no limit) by default" 0 \
	"$(bridge_field fdb_max_learned 2>&1)"
check "bridge set fdb_max_learned 2" "$XDPBR" -b "$BR" bridge set fdb_max_learned 2
check_eq "bridge show: fdb_max_learned 2" 2 "$(bridge_field fdb_max_learned 2>&1)"
check "fdb flush" "$XDPBR" -b "$BR" fdb flush
check "ping h1 -> h2 (learns h1, h2)" hping 1 2
ll3=$(port_counter "$P3" learn_limit)
fu1=$(port_counter "$P1" flood_unknown)
cap_start rep2 2 "icmp and src host ${IP4[1]} and dst host ${IP4[3]}" 4 1 ||
	fail "capture in h2" "$XT_WHY"
check "fdb_max_learned 2, full: ping h3 -> h1 still works" hping 3 1
check "fdb_max_learned 2, full: ping h3 -> h2 still works" hping 3 2
n=$(cap_wait rep2)
check_eq "fdb_max_learned 2, full: h1's reply to unlearned h3 is flooded (h2 sees it)" \
	1 "$n" "$(cap_show rep2)"
fu1b=$(port_counter "$P1" flood_unknown)
if [[ $fu1 =~ ^[0-9]+$ && $fu1b =~ ^[0-9]+$ ]] && ((fu1b > fu1)); then
	pass "fdb_max_learned 2, full: flood_unknown on $P1 counts it ($fu1 -> $fu1b)"
else
	fail "fdb_max_learned 2, full: flood_unknown on $P1 counts it" "$fu1 -> $fu1b"
fi
json=$(fdb_json dynamic 2>&1)
check_jq "fdb_max_learned 2: exactly h1 on $P1 and h2 on $P2 are learned" "$json" \
	'length == 2 and
	 any(.[]; (.mac | ascii_downcase) == $m1 and .ifname == $p1) and
	 any(.[]; (.mac | ascii_downcase) == $m2 and .ifname == $p2)' \
	--arg m1 "${MAC[1]}" --arg p1 "$P1" --arg m2 "${MAC[2]}" --arg p2 "$P2"
ll3b=$(port_counter "$P3" learn_limit)
if [[ $ll3 =~ ^[0-9]+$ && $ll3b =~ ^[0-9]+$ ]] && ((ll3b > ll3)); then
	pass "fdb_max_learned 2: learn_limit on $P3 counts the refused h3 ($ll3 -> $ll3b)"
else
	fail "fdb_max_learned 2: learn_limit on $P3 counts the refused h3" \
		"$ll3 -> $ll3b" "$("$XDPBR" -b "$BR" -j stats dev "$P3" 2>&1)"
fi
json=$("$XDPBR" -b "$BR" -j bridge show 2>&1)
check_jq "fdb_max_learned 2: bridge show learned 2, fdb_dynamic 2" "$json" \
	'.[0].learned == 2 and .[0].fdb_dynamic == 2 and .[0].fdb_max_learned == 2'

# The room comes back with a flush.
check "fdb flush dynamic" "$XDPBR" -b "$BR" fdb flush dynamic
check_eq "after fdb flush: bridge show learned 0" 0 "$(bridge_field learned 2>&1)"
check "after fdb flush: ping h3 -> h1" hping 3 1
json=$(fdb_json dynamic 2>&1)
check_jq "after fdb flush: h3 is learned now, 2 entries" "$json" \
	'length == 2 and any(.[]; (.mac | ascii_downcase) == $m3 and .ifname == $p3)' \
	--arg m3 "${MAC[3]}" --arg p3 "$P3"

# Raising the limit lets learning continue.
check "bridge set fdb_max_learned 3" "$XDPBR" -b "$BR" bridge set fdb_max_learned 3
check "fdb_max_learned 3: ping h2 -> h1" hping 2 1
check_jq "fdb_max_learned 3: h1, h2, h3 learned" "$(fdb_json dynamic 2>&1)" \
	'length == 3 and ([.[].mac | ascii_downcase] | sort) == ($all | sort)' \
	--argjson all "$(printf '%s\n' "${MAC[@]:1:3}" | jq -R . | jq -s .)"
check_eq "fdb_max_learned 3: bridge show learned 3" 3 "$(bridge_field learned 2>&1)"
check "bridge set fdb_max_learned 0" "$XDPBR" -b "$BR" bridge set fdb_max_learned 0
check_eq "bridge show: fdb_max_learned 0" 0 "$(bridge_field fdb_max_learned 2>&1)"

# --- per port: max_learned on P1
check "fdb flush" "$XDPBR" -b "$BR" fdb flush
check "link set dev $P1 max_learned 1" "$XDPBR" -b "$BR" link set dev "$P1" max_learned 1
check_jq "link show dev $P1: max_learned 1" \
	"$("$XDPBR" -b "$BR" -j link show dev "$P1" 2>&1)" \
	'length == 1 and .[0].max_learned == 1'
ll1=$(port_counter "$P1" learn_limit)
burst b1 88b5 "max_learned 1"
check_eq "max_learned 1: 1 dynamic entry on $P1" 1 "$(dyn_on "$P1" 2>&1)" "$(fdb_json 2>&1)"
check "max_learned 1: it is the first source, ${SRC[0]}" fdb_has "${SRC[0]}" "$P1" ""
ll1b=$(port_counter "$P1" learn_limit)
if [[ $ll1 =~ ^[0-9]+$ && $ll1b =~ ^[0-9]+$ ]] && ((ll1b - ll1 >= 4)); then
	pass "max_learned 1: learn_limit on $P1 +4 or more ($ll1 -> $ll1b)"
else
	fail "max_learned 1: learn_limit on $P1 +4 or more" "$ll1 -> $ll1b" \
		"$("$XDPBR" -b "$BR" -j stats dev "$P1" 2>&1)"
fi
check "max_learned 1 on $P1: h2 still learns on $P2" hping 2 3
check "max_learned 1 on $P1: h2 on $P2" fdb_has "${MAC[2]}" "$P2" ""
check "max_learned 1 on $P1: h3 on $P3" fdb_has "${MAC[3]}" "$P3" ""
check_eq "max_learned 1: bridge show learned 3" 3 "$(bridge_field learned 2>&1)"

check "link set dev $P1 max_learned 3" "$XDPBR" -b "$BR" link set dev "$P1" max_learned 3
burst b3 88b6 "max_learned 3"
check_eq "max_learned 3: 3 dynamic entries on $P1" 3 "$(dyn_on "$P1" 2>&1)" "$(fdb_json 2>&1)"
check_eq "max_learned 3: bridge show learned 5" 5 "$(bridge_field learned 2>&1)"

check "fdb flush dev $P1" "$XDPBR" -b "$BR" fdb flush dev "$P1"
check_eq "after fdb flush dev $P1: bridge show learned 2" 2 "$(bridge_field learned 2>&1)"
burst b3f 88b5 "max_learned 3, after the flush"
check_eq "max_learned 3, after the flush: 3 dynamic entries on $P1 again" 3 \
	"$(dyn_on "$P1" 2>&1)" "$(fdb_json 2>&1)"

check "link set dev $P1 max_learned 0" "$XDPBR" -b "$BR" link set dev "$P1" max_learned 0
ll1=$(port_counter "$P1" learn_limit)
burst b0 88b6 "max_learned 0"
check_eq "max_learned 0 (no limit): all 5 sources on $P1" 5 "$(dyn_on "$P1" 2>&1)" \
	"$(fdb_json 2>&1)"
check_same "max_learned 0 (no limit): learn_limit on $P1 unchanged" "$ll1" \
	"$(port_counter "$P1" learn_limit 2>&1)"
check_eq "max_learned 0: bridge show learned 7" 7 "$(bridge_field learned 2>&1)"
check "fdb flush" "$XDPBR" -b "$BR" fdb flush
check_eq "after fdb flush: bridge show learned 0" 0 "$(bridge_field learned 2>&1)"

finish

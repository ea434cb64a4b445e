#!/usr/bin/env bash
# datapaths: auto
# Ports deleted while no daemon ran (kill -9 here; --keep and a bridge
# without a daemon are the same case). Until xdpbrd comes back, `xdpbr link
# show` shows such a port as gone, with the name it had and its slot, and
# `xdpbr link del slot N` or `link del dev OLDNAME` removes it with its FDB
# entries, and `xdpbr link add` of an interface that got one's ifindex makes
# a new port of it, not the old one. A new xdpbrd removes the others when it
# starts: an interface that
# got a gone port's ifindex (created here with `ip link add ... index N`,
# once under another name, once under the port's own) is not that port, and
# one named on the command line joins as a new port: default settings, no
# VLANs or static entries of the old one, counters at zero (in a slot another
# gone port had). The port that stayed keeps everything, and so does the
# bridge's end of the host interface.
#
# Every port gets the same non-default settings first: learning limit,
# isolation, VLAN 10, a storm limit, a static entry (S_i) and traffic.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and xt_poll
. "$(dirname "$0")/lib.sh"

# links: `xdpbr -j link show`, a JSON array or failing.
links()
{
	json_of array pfx_link_json
}

# link_of JQ-SELECT: the one port `link show` lists for which the jq
# condition holds, as compact JSON; "none" when there is none.
link_of()
{
	links | jq -rc "[.[] | select($1)] | if length == 1 then .[0]
		elif length == 0 then \"none\" else error(\"several\") end"
}

# quiet I: host I sends nothing by itself (no IPv6, permanent ARP entries).
quiet()
{
	local j
	hexec "$1" sysctl -q -w net.ipv6.conf.e0.disable_ipv6=1 >/dev/null || return 1
	for j in 1 2 3 4 5 6; do
		[ "$j" = "$1" ] && continue
		hexec "$1" ip neigh replace "${IP4[j]}" lladdr "${MAC[j]}" nud permanent \
			dev e0 || return 1
	done
}

# all_zero PORT: every counter of PORT in `xdpbr -j stats` is 0.
all_zero()
{
	json_is array 'length == 1 and (.[0] as $p | all($n[]; $p[.] == 0))' \
		--argjson n "$(obs_counter_names)" -- "$XDPBR" -b "$BR" -j stats dev "$1"
}

xt_require
topo_up 6
for i in 1 2 3 4 5 6; do
	quiet "$i" || abort "quiet h$i"
done
daemon_start --listen none || abort "xdpbrd start" "$XT_WHY"
HOST_PORT=$BR-host

# --- the same settings on every port, a static entry and traffic on each
for i in 1 2 3 4 5 6; do
	p=${PORT[i]}
	S[i]=$(test_mac "$i")
	check "$p: max_learned 5, isolated, storm bcast 1000" \
		"$XDPBR" -b "$BR" link set dev "$p" max_learned 5 isolated on storm bcast 1000
	check "$p: VLAN 10" "$XDPBR" -b "$BR" vlan add dev "$p" vid 10
	check "$p: static ${S[i]}" "$XDPBR" -b "$BR" fdb add "${S[i]}" dev "$p" static
done
for i in 2 3 4 5 6; do
	check "h$i sends 50 frames" hexec "$i" "$SENDFRAME" -c 50 e0 \
		"$(eth_frame ff:ff:ff:ff:ff:ff "${MAC[i]}")"
done
before=$(links 2>&1)
for i in 1 2 3 4 5 6; do
	SLOT[i]=$(jq -r --arg p "${PORT[i]}" '.[] | select(.ifname == $p) | .slot' <<<"$before")
	IDX[i]=$(jq -r --arg p "${PORT[i]}" '.[] | select(.ifname == $p) | .ifindex' <<<"$before")
	[[ ${SLOT[i]} =~ ^[0-9]+$ && ${IDX[i]} =~ ^[0-9]+$ ]] ||
		abort "link show: slot and ifindex of ${PORT[i]}" "$before"
done
HSLOT=$(jq -r --arg p "$HOST_PORT" '.[] | select(.ifname == $p) | .slot' <<<"$before")
[[ $HSLOT =~ ^[0-9]+$ ]] || abort "link show: slot of $HOST_PORT" "$before"
n=$(port_counter "${PORT[2]}" rx_packets)
if [[ $n =~ ^[0-9]+$ ]] && ((n >= 50)); then
	pass "${PORT[2]} (slot ${SLOT[2]}) counted h2's frames: rx_packets $n"
else
	fail "${PORT[2]} counted h2's frames (rx_packets >= 50)" "got: $n"
fi

# --- the daemon dies, four ports' interfaces go
daemon_stop KILL
for i in 2 3 4 5 6; do
	check "no daemon: ip link del ${PORT[i]}" ip link del dev "${PORT[i]}"
done

# --- no daemon: the CLI shows them gone and removes them by slot or old name
check_jq "no daemon: link show: ${PORT[2]} gone, with its name and slot" "$(links 2>&1)" \
	'any(.[]; .ifname == $p and .state == "gone" and .slot == $s)' \
	--arg p "${PORT[2]}" --argjson s "${SLOT[2]}"
if "$XDPBR" -b "$BR" link show | grep -qE "${PORT[2]}: .* state gone .*slot ${SLOT[2]}( |$)"; then
	pass "no daemon: link show (text) says ${PORT[2]} is gone, in slot ${SLOT[2]}"
else
	fail "no daemon: link show (text) says ${PORT[2]} is gone, in slot ${SLOT[2]}" \
		"$("$XDPBR" -b "$BR" link show 2>&1)"
fi
check "no daemon: link del slot ${SLOT[2]} (${PORT[2]}, gone)" \
	"$XDPBR" -b "$BR" link del slot "${SLOT[2]}"
check_eq "link del slot: no port in slot ${SLOT[2]}" none \
	"$(link_of ".slot == ${SLOT[2]}" 2>&1)"
check_eq "link del slot: ${PORT[2]}'s static ${S[2]} gone" none "$(fdb_where "${S[2]}" 2>&1)"
check "no daemon: link del dev ${PORT[5]} (gone: by the name it had)" \
	"$XDPBR" -b "$BR" link del dev "${PORT[5]}"
check_eq "link del dev OLDNAME: no port in slot ${SLOT[5]}" none \
	"$(link_of ".slot == ${SLOT[5]}" 2>&1)"
check_eq "link del dev OLDNAME: ${PORT[5]}'s static ${S[5]} gone" none "$(fdb_where "${S[5]}" 2>&1)"
pfx_check_error "no daemon: link del slot ${SLOT[2]} again fails" "slot ${SLOT[2]}" \
	"$XDPBR" -b "$BR" link del slot "${SLOT[2]}"
pfx_check_error "no daemon: link del dev ${PORT[5]} again fails" "${PORT[5]}" \
	"$XDPBR" -b "$BR" link del dev "${PORT[5]}"
check_jq "no daemon: ${PORT[1]} and $HOST_PORT are still ports" "$(links 2>&1)" \
	'any(.[]; .ifname == $p1 and .state != "gone") and
	 any(.[]; .ifname == $h and .state != "gone")' \
	--arg p1 "${PORT[1]}" --arg h "$HOST_PORT"

# --- no daemon: link add of an interface on ${PORT[6]}'s ifindex
R6=xt${ID}r6
XT_CLEANUP_CMDS+=("ip link del dev $R6")
check "ip link add $R6 index ${IDX[6]} (${PORT[6]}'s ifindex, veth to h6)" \
	pfx_host_relink 6 "$R6" "${IDX[6]}"
check "h6 quiet" quiet 6
check "no daemon: link add dev $R6" "$XDPBR" link add dev "$R6" master "$BR"
r6=$(link_of ".ifname == \"$R6\"" 2>&1)
check_jq "link add $R6: a new port with the defaults, not ${PORT[6]}" "$r6" \
	'.ifindex == $i and .max_learned == 0 and (.isolated | not) and
	 .storm.broadcast == 0 and .state != "gone"' --argjson i "${IDX[6]}"
check_eq "link add $R6: ${PORT[6]}'s static ${S[6]} gone" none "$(fdb_where "${S[6]}" 2>&1)"
check "link add $R6: its counters are all 0" all_zero "$R6"

# --- new interfaces with the ifindexes of ports 3 and 4: h3's under another
# name, h4's under its port's own; both hosts quiet again
R3=xt${ID}r3
XT_CLEANUP_CMDS+=("ip link del dev $R3")
check "ip link add $R3 index ${IDX[3]} (${PORT[3]}'s ifindex, veth to h3)" \
	pfx_host_relink 3 "$R3" "${IDX[3]}"
check "ip link add ${PORT[4]} index ${IDX[4]} (its old ifindex, veth to h4)" \
	pfx_host_relink 4 "" "${IDX[4]}"
check "h3, h4 quiet" eval 'quiet 3 && quiet 4'
sleep 1

# --- a new daemon for ports 1 and 4
if pfx_daemon_start 3 --listen none "$BR" "${PORT[1]}" "${PORT[4]}"; then
	pass "restart with ${PORT[1]} and ${PORT[4]}"
else
	abort "restart with ${PORT[1]} and ${PORT[4]}" "$XT_WHY"
fi
for i in 3 4; do
	if grep -qF "port ${PORT[i]} (ifindex ${IDX[i]}, slot ${SLOT[i]}) is gone" "$DAEMON_LOG"; then
		pass "restart: the daemon says ${PORT[i]} is gone and removes it"
	else
		fail "restart: the daemon says ${PORT[i]} is gone and removes it" "$(cat "$DAEMON_LOG")"
	fi
done
after=$(links 2>&1)
check_jq "restart: the ports are ${PORT[1]}, ${PORT[4]}, $R6 (adopted) and $HOST_PORT" \
	"$after" '(map(.ifname) | sort) == ([$p1, $p4, $r6, $h] | sort)' \
	--arg p1 "${PORT[1]}" --arg p4 "${PORT[4]}" --arg r6 "$R6" --arg h "$HOST_PORT"
check_eq "restart: $R3, on ${PORT[3]}'s ifindex ${IDX[3]}, is no port" none \
	"$(link_of ".ifindex == ${IDX[3]}" 2>&1)"
check_eq "restart: no program of the bridge on $R3" null "$(port_xdp "$R3")"
check_eq "restart: ${PORT[3]}'s static ${S[3]} gone" none "$(fdb_where "${S[3]}" 2>&1)"
check_eq "restart: ${PORT[4]}'s old static ${S[4]} gone" none "$(fdb_where "${S[4]}" 2>&1)"
check_jq "restart: ${PORT[1]} kept its slot and settings" "$after" \
	'any(.[]; .ifname == $p and .slot == $s and .max_learned == 5 and .isolated and
	     .storm.broadcast == 1000)' --arg p "${PORT[1]}" --argjson s "${SLOT[1]}"
check_eq "restart: ${PORT[1]} kept its static ${S[1]}" "${PORT[1]} static" \
	"$(fdb_where "${S[1]}" 2>&1)"
check_jq "restart: $HOST_PORT kept its slot, still the host interface's" "$after" \
	'any(.[]; .ifname == $h and .slot == $s and .host_interface == $br)' \
	--arg h "$HOST_PORT" --argjson s "$HSLOT" --arg br "$BR"
p4=$(link_of ".ifname == \"${PORT[4]}\"" 2>&1)
check_jq "restart: ${PORT[4]} (same name, same ifindex) is a new port: default settings" \
	"$p4" '.ifindex == $i and .max_learned == 0 and (.isolated | not) and
	       .storm.broadcast == 0 and .learning and .flood' --argjson i "${IDX[4]}"
check_jq "restart: ${PORT[4]} is in slot ${SLOT[3]}, which ${PORT[3]} had" "$p4" \
	'.slot == $s' --argjson s "${SLOT[3]}"
check_jq "restart: ${PORT[4]} is in VLAN 1 only, not 10" \
	"$("$XDPBR" -b "$BR" -j vlan show dev "${PORT[4]}" 2>&1)" \
	'length == 1 and ([.[0].vlans[].vlan] == [1])'
check "restart: ${PORT[4]}'s counters are all 0" all_zero "${PORT[4]}"
check "restart: ping h1 -> h4" hping 1 4
check "restart: ping h4 -> h1" hping 4 1

finish

#!/usr/bin/env bash
# The spanning tree's guards and switches, one bridge with three hosts:
# bpdu_guard shuts an edge port that receives a BPDU (discarding in the
# datapath, counted, logged, a bpdu_guard event) until `xdpbr link set dev
# X bpdu_guard reset`, or until bpdu_guard_timeout; with STP on a host's
# BPDU reaches no other host; `xdpbr bridge set` / `link set` change the
# tree's settings through the daemon (and refuse bad values); SIGHUP with
# stp = off floods BPDUs again like the kernel bridge without STP; `xdpbr
# stp show` without a daemon says it needs xdpbrd; bad settings in the
# configuration file are FILE:LINE errors.
# shellcheck disable=SC2016,SC2317 # jq variables in single quotes; functions run through check
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
# shellcheck source=stp_lib.sh
. "$(dirname "$0")/stp_lib.sh"
XT_HOSTIF=off

# bpdu_frame I: an RST BPDU from host I claiming priority 0 (superior to
# any bridge here), LLC-encapsulated, padded to 60 bytes.
bpdu_frame()
{
	local src=${MAC[$1]//:/} hex
	hex=0180c2000000${src}0027424203
	# protocol 0, version 2, RST, flags: designated, learning, forwarding
	hex+=000002023c
	# root 0.SRC, cost 0, bridge 0.SRC, port 0x8001, message age 0, max
	# age 20 s, hello 2 s, forward delay 15 s (1/256 s), version 1 length 0
	hex+=0000${src}000000000000${src}80010000140002000f0000
	while [ ${#hex} -lt 120 ]; do
		hex+=00
	done
	echo "$hex"
}

send_bpdu()
{
	hexec "$1" "$SENDFRAME" e0 "$(bpdu_frame "$1")"
}

port_is()
{
	[ "$(stp_port "$BR" "$1" "$2")" = "$3" ]
}

xt_require
topo_up 3
P1=${PORT[1]} P2=${PORT[2]} P3=${PORT[3]}
CONF=$XT_TMP/xdpbrd.conf
write_conf()
{
	{
		printf '[bridge]\nname = %s\nlisten = none\nstp = %s\n' "$BR" "$1"
		printf 'hello_time = 1\nmax_age = 6\nforward_delay = 4\n'
		printf '[port %s]\nedge = on\nbpdu_guard = on\n' "$P1"
		printf '[port %s]\nedge = on\n' "$P2"
		printf '[port %s]\nedge = on\nbpdu_guard = on\nbpdu_guard_timeout = 3\n' "$P3"
	} >"$CONF"
}
write_conf on
pfx_daemon_start 3 -c "$CONF" || abort "xdpbrd -c $CONF" "$XT_WHY"
check "every port forwards (admin edge ports)" xt_poll 10 stp_forwarding
check "h1 pings h2" xt_poll 5 hping 1 2
"$XDPBR" -b "$BR" -j monitor >"$XT_TMP/monitor.out" 2>&1 &
XT_PIDS+=("$!")
xt_poll 5 grep -q '"hello"' "$XT_TMP/monitor.out"

# ------------------------------------------------------------ bpdu_guard
pfx_cap bpdu2 2 "ether dst 01:80:c2:00:00:00 and ether src ${MAC[1]}" 3 "" in ||
	abort "capture on h2" "$XT_WHY"
send_bpdu 1 || abort "sending a BPDU from h1"
check "bpdu_guard: $P1 tripped, discarding" xt_poll 5 port_is "$P1" guard_tripped true
check_jq "bpdu_guard: stp show counts the trip, $P1 discarding" "$(stp_show "$BR")" \
	'any(.ports[]; .ifname == $p and .state == "discarding" and .guard_trips == 1 and
	     .bpdus_in >= 1)' --arg p "$P1"
check_eq "bpdu_guard: the datapath blocks $P1 (link show state)" discarding \
	"$("$XDPBR" -b "$BR" -j link show dev "$P1" | jq -r '.[0].state')"
check_fail "bpdu_guard: h1 can't reach h2" hping 1 2
check "bpdu_guard: logged" grep -q "stp: port $P1 is an edge port with bpdu_guard" "$DAEMON_LOG"
check "bpdu_guard: a bpdu_guard event on the monitor stream" xt_poll 5 grep -q \
	"\"event\":\"bpdu_guard\",\"ifname\":\"$P1\"" "$XT_TMP/monitor.out"
check_eq "STP on: h1's BPDU reaches no other host" 0 "$(pfx_cap_n bpdu2)"
check "link set dev $P1 bpdu_guard reset" "$XDPBR" -b "$BR" link set dev "$P1" bpdu_guard reset
check "bpdu_guard reset: $P1 forwards again" xt_poll 5 port_is "$P1" state forwarding
check "bpdu_guard reset: h1 pings h2" xt_poll 5 hping 1 2

send_bpdu 3 || abort "sending a BPDU from h3"
check "bpdu_guard: $P3 tripped" xt_poll 5 port_is "$P3" guard_tripped true
check "bpdu_guard_timeout 3: $P3 forwards again by itself" \
	xt_poll 10 port_is "$P3" state forwarding
check_eq "$P2 (no bpdu_guard) never tripped" 0 "$(stp_port "$BR" "$P2" guard_trips)"

# ------------------------------------------------------------ CLI
check "bridge set priority 8192" "$XDPBR" -b "$BR" bridge set priority 8192
check "stp show: bridge id with priority 8192 (2000.)" xt_poll 5 \
	json_is object '.bridge_id | startswith("2000.")' -- stp_show "$BR"
check_err "bridge set priority 4097: refused (steps of 4096)" \
	"$XDPBR" -b "$BR" bridge set priority 4097
check_err "bridge set max_age 40: refused (forward_delay 4 allows 6)" \
	"$XDPBR" -b "$BR" bridge set max_age 40
check "link set dev $P2 path_cost 12345 port_priority 32 edge auto root_guard on" \
	"$XDPBR" -b "$BR" link set dev "$P2" path_cost 12345 port_priority 32 edge auto \
	root_guard on
check "stp show: $P2 has them" xt_poll 5 json_is object \
	'any(.ports[]; .ifname == $p and .path_cost == 12345 and .port_priority == 32 and
	     .admin_edge == "auto" and .root_guard)' --arg p "$P2" -- stp_show "$BR"
check "stp show (text) names the root" bash -c '"$1" -b "$2" stp show | grep -q "root id"' _ \
	"$XDPBR" "$BR"

# ------------------------------------------------------------ stp off
write_conf off
kill -HUP "$DAEMON_PID"
check "SIGHUP with stp = off: stp show says off" xt_poll 5 \
	json_is object '.enabled == false' -- stp_show "$BR"
check "stp off: every port forwards in the datapath" xt_poll 5 json_is array \
	'length > 0 and all(.[]; .state == "forwarding")' -- "$XDPBR" -b "$BR" -j link show
pfx_cap bpdu2 2 "ether dst 01:80:c2:00:00:00 and ether src ${MAC[1]}" 3 "" in ||
	abort "capture on h2" "$XT_WHY"
send_bpdu 1
check_eq "stp off: h1's BPDU is flooded to h2, once" 1 "$(pfx_cap_n bpdu2)"
check "stp off: no guard trips any more (h1 still pings h2)" hping 1 2

# ------------------------------------------------------------ no daemon
daemon_stop
pfx_daemon_start 3 --keep -c "$CONF" || abort "xdpbrd --keep" "$XT_WHY"
daemon_stop
check_err "stp show without xdpbrd: refused, saying why" "$XDPBR" -b "$BR" stp show
check "... and the message names xdpbrd" bash -c \
	'"$1" -b "$2" stp show 2>&1 | grep -q "needs xdpbrd"' _ "$XDPBR" "$BR"

# ------------------------------------------------------------ config errors
printf '[bridge]\nstp = on\nforward_delay = 4\nmax_age = 20\n' >"$XT_TMP/bad.conf"
check "max_age 20 with forward_delay 4: FILE:LINE error" bash -c \
	'"$1" -n -c "$2" 2>&1 | grep -q "^.*$2:4: max_age is more than 2 \* (forward_delay - 1)"' \
	_ "$XDPBRD" "$XT_TMP/bad.conf"
printf '[bridge]\npriority = 100\n' >"$XT_TMP/bad2.conf"
check "priority 100: FILE:LINE error" bash -c \
	'"$1" -n -c "$2" 2>&1 | grep -q "$2:2: priority: 100 is not a multiple of 4096"' \
	_ "$XDPBRD" "$XT_TMP/bad2.conf"
printf '[port eth9]\nedge = maybe\n' >"$XT_TMP/bad3.conf"
check "edge = maybe: FILE:LINE error" bash -c \
	'"$1" -n -c "$2" 2>&1 | grep -q "$2:2: edge: .maybe. is not on, off or auto"' \
	_ "$XDPBRD" "$XT_TMP/bad3.conf"
finish

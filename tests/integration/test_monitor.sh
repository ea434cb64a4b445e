#!/usr/bin/env bash
# datapaths: auto
# FDB events through `xdpbr monitor` (lib/events.h): learn events for new
# MACs, exactly one move event when a MAC moves once (and the daemon's log
# line about it), an age event once the ageing time is short, the text
# form, the end of the stream when the daemon stops, and a clear error when
# no daemon runs.
#
# The hosts are quiet (no IPv6, permanent ARP entries) and every frame is
# sent by the test with sendframe (EtherType 0x88b5), so that each event
# can be attributed: h1 sends nothing after its MAC has moved.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check / xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

BCAST=ff:ff:ff:ff:ff:ff
SOCK=/run/xdpbr/xt$ID.sock

xt_require
topo_up 3
hosts_quiet || abort "making the hosts quiet"
P1=${PORT[1]} P2=${PORT[2]} P3=${PORT[3]}
daemon_start --listen none || abort "xdpbrd start" "$XT_WHY"
# Only removed by hand if this test killed the daemon.
XT_CLEANUP_CMDS+=("rm -f '$SOCK'")

# ready_check KEY RC: the result of obs_monitor_start for monitor KEY.
ready_check()
{
	case $2 in
	0) pass "monitor $1: 'xdpbr: monitoring events of bridge $BR' on stderr" ;;
	2) fail "monitor $1: 'xdpbr: monitoring events of bridge $BR' on stderr" \
		"$XT_WHY" ;;
	*) abort "monitor $1 did not start" "$XT_WHY" ;;
	esac
}

# mon_done KEY: monitor KEY has exited.
mon_done()
{
	! proc_alive "${OBS_MON_PID[$1]}"
}

# seen KEY FILTER [JQ-ARG...]: monitor KEY shows such an event within 3 s.
seen()
{
	xt_poll 3 obs_event_seen "$@"
}

# ---------------------------------------------------------------- learn

obs_monitor_start js -j monitor
ready_check "-j" $?
for i in 1 2 3; do
	obs_send "$i" 1 "$BCAST" || fail "sendframe from h$i"
done
for i in 1 2 3; do
	f='.event == "learn" and .mac == $m and .ifname == $p'
	if seen js "$f" --arg m "${MAC[i]}" --arg p "${PORT[i]}"; then
		pass "learn event for h$i's ${MAC[i]} on ${PORT[i]}"
	else
		fail "learn event for h$i's ${MAC[i]} on ${PORT[i]}" \
			"events: $(obs_events js)" "stderr: $(cat "$XT_TMP/mon.js.err")"
	fi
done
check_jq "learn events: vlan 0, master $BR, a numeric ts, no from" "$(obs_events js)" \
	'[.[] | select(.event == "learn")] | length == 3 and
	 all(.[]; .vlan == 0 and .master == $br and (.ts | type) == "number" and
		  (has("from") | not))' --arg br "$BR"

# ---------------------------------------------------------------- move

# h1's MAC shows up once behind P2: a frame from h2 with h1's MAC as its
# source, to h3 (known: it does not reach h1, which stays quiet anyway).
check "one frame from h2 with h1's MAC as its source" \
	obs_send 2 1 "${MAC[3]}" "${MAC[1]}"
seen js '.event == "move"'
sleep 1		# a second move event, if any, would be here by now
check_jq "exactly one move event: ${MAC[1]} to $P2, from $P1" "$(obs_events js)" \
	'[.[] | select(.event == "move")] | length == 1 and
	 (.[0] | .mac == $m and .ifname == $p2 and .from == $p1 and .vlan == 0 and
		 .master == $br and (.ts | type) == "number")' \
	--arg m "${MAC[1]}" --arg p1 "$P1" --arg p2 "$P2" --arg br "$BR"
check_jq "no other learn event since (3 learns in all)" "$(obs_events js)" \
	'[.[] | select(.event == "learn")] | length == 3'
check "fdb: ${MAC[1]} is now on $P2" fdb_has "${MAC[1]}" "$P2"
check_eq "stats: moved == 1 on $P2" 1 "$(port_counter "$P2" moved 2>&1)"
if log_poll "$DAEMON_LOG" "${MAC[1]}.* moved from $P1 to $P2" 3; then
	pass "xdpbrd logs the move (moved from $P1 to $P2)"
else
	fail "xdpbrd logs the move (moved from $P1 to $P2)" "$(cat "$DAEMON_LOG")"
fi

# ---------------------------------------------------------------- text

# monitor count 1 in text: the line of the next event, then exit 0. The
# frame is sent again (new MAC each time) until the monitor is done, so
# that a monitor still connecting can't make this fail.
obs_monitor_start txt monitor count 1
ready_check "count 1 (text)" $?
sent=()
for ((k = 10; k < 20; k++)); do
	proc_alive "${OBS_MON_PID[txt]}" || break
	obs_send 3 1 "$BCAST" "$(obs_mac "$k")"
	sent+=("$(obs_mac "$k")")
	xt_poll 1 mon_done txt
done
obs_monitor_stop txt
check_eq "monitor count 1 (text): exits 0 by itself after one event" 0 "$STOP_RC" \
	"stderr: $(cat "$XT_TMP/mon.txt.err")"
out=$(cat "$XT_TMP/mon.txt.out")
want="learn ${sent[0]} dev $P3 vlan 0 master $BR"
if [ "$(wc -l <<<"$out")" = 1 ] && [[ $out == "learn "* ]] &&
	grep -qxF -e "$want" <<<"$out"; then
	pass "monitor count 1 (text): one line '$want'"
else
	fail "monitor count 1 (text): one line starting with 'learn ' for the new MAC" \
		"expected: $want" "got: $out" "MACs sent: ${sent[*]}"
fi

# The same with the 'fdb' keyword, in JSON.
obs_monitor_start fdb -j monitor fdb count 1
ready_check "-j fdb count 1" $?
for ((k = 20; k < 30; k++)); do
	proc_alive "${OBS_MON_PID[fdb]}" || break
	obs_send 3 1 "$BCAST" "$(obs_mac "$k")"
	xt_poll 1 mon_done fdb
done
obs_monitor_stop fdb
check_eq "monitor fdb count 1 (JSON): exits 0 after one event" 0 "$STOP_RC"
check_jq "monitor fdb count 1 (JSON): one learn event on $P3" "$(obs_events fdb)" \
	'length == 1 and .[0].event == "learn" and .[0].ifname == $p and
	 (.[0].mac | startswith($pre))' --arg p "$P3" --arg pre "${sent[0]%:*}"

# ---------------------------------------------------------------- age

check "bridge set ageing_time 1" "$XDPBR" -b "$BR" bridge set ageing_time 1
f='.event == "age" and .mac == $m and .ifname == $p'
if xt_poll 15 obs_event_seen js "$f" --arg m "${MAC[3]}" --arg p "$P3"; then
	pass "age event for the idle ${MAC[3]} (h3) on $P3"
else
	fail "age event for the idle ${MAC[3]} (h3) on $P3" "events: $(obs_events js)" \
		"xdpbrd log: $(cat "$DAEMON_LOG")"
fi
check_jq "age events: vlan 0, master $BR, no from" "$(obs_events js)" \
	'[.[] | select(.event == "age")] | length >= 1 and
	 all(.[]; .vlan == 0 and .master == $br and (has("from") | not))' --arg br "$BR"
# h1's MAC is idle as well: its age event comes, and behind P2.
xt_poll 15 obs_event_seen js '.event == "age" and .mac == $m' --arg m "${MAC[1]}"
check_jq "the aged MAC of h1 is reported, behind $P2, where it moved" \
	"$(obs_events js)" '[.[] | select(.event == "age" and .mac == $m)] |
	 length >= 1 and all(.[]; .ifname == $p)' \
	--arg m "${MAC[1]}" --arg p "$P2"
check_jq "every line of the -j monitor is an event object" "$(obs_events js)" \
	'type == "array" and all(.[]; type == "object" and
		(.event | IN("learn", "move", "age", "flush")) and
		(.mac | test("^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")))'

# ---------------------------------------------------------------- no daemon

daemon_stop || fail "xdpbrd exits on SIGTERM" "status: $DAEMON_RC"
if xt_poll 3 mon_done js; then
	obs_monitor_stop js
	if [ "$STOP_RC" != 0 ] && grep -q xdpbrd "$XT_TMP/mon.js.err"; then
		pass "the -j monitor ends when xdpbrd stops (status $STOP_RC, says why)"
	else
		fail "the -j monitor ends when xdpbrd stops: non-zero, mentioning xdpbrd" \
			"status $STOP_RC" "stderr: $(cat "$XT_TMP/mon.js.err")"
	fi
else
	fail "the -j monitor ends when xdpbrd stops" "still running 3 s later"
	obs_monitor_stop js
fi
check_fail "xdpbrd removed its event socket $SOCK" test -e "$SOCK"

# no_daemon LABEL: `xdpbr -b $BR monitor` fails at once, naming xdpbrd.
no_daemon()
{
	local out rc
	out=$(timeout 5 "$XDPBR" -b "$BR" monitor 2>&1 </dev/null)
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q xdpbrd <<<"$out"; then
		pass "$1: monitor fails ($rc) and names xdpbrd: $out"
	else
		fail "$1: monitor fails with a message naming xdpbrd" \
			"status $rc (124: still waiting after 5 s)" "output: $out"
	fi
}
no_daemon "xdpbrd stopped"

# A daemon that was killed leaves its socket behind: refused, same answer.
daemon_start --listen none || abort "xdpbrd restart" "$XT_WHY"
# (bash reports the killed job on stderr: not this test's business)
{ stop_pid "$DAEMON_PID" KILL 5; } 2>/dev/null
DAEMON_PID=
if [ -S "$SOCK" ]; then
	no_daemon "xdpbrd killed (stale socket)"
else
	pass "xdpbrd killed: no stale socket left (nothing to test)"
fi

finish

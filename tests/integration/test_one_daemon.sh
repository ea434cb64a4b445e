#!/usr/bin/env bash
# datapaths: auto
# One daemon per bridge (the flock on its pin directory, lib/lock.h):
#  - a second xdpbrd for a bridge that runs exits 1 at once, naming the
#    running daemon's pid, and changes nothing: pings through the bridge
#    lose nothing, the ports keep the first daemon's programs, the
#    drop-counting tracepoints stay attached once (tx_dropped and
#    redirect_errors counted once), the event socket stays the first
#    daemon's (same inode, its monitor still gets events), its HTTP
#    endpoint answers and the second one's never does;
#  - pins removed by hand and put back by the daemon come with its lock;
#  - the lock dies with its holder: after a SIGKILL, a new daemon starts
#    and adopts the bridge with no ping lost, and a second one is then
#    refused naming the new daemon's pid.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check and xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

SOCK=/run/xdpbr/$BR.sock

# prog_ids: the datapath program of each port, one line each.
prog_ids()
{
	local p
	for p in "${PORTS[@]}"; do
		echo "$p $(port_prog_id "$p")"
	done
}
# what prog_ids prints when every port has a program
PROGS_RE='([^ ]+ [0-9]+
?)+'


# tp_links: how many tracepoint links run a program of this bridge (one
# that uses its pinned xdpbr_stats): the drop-counting tracepoints, 2 when
# each is attached once.
tp_links()
{
	local stats n=0 prog
	stats=$(bpftool -j map show pinned "$PIN_DIR/xdpbr_stats" | jq '.id') || return 1
	for prog in $(bpftool -j link show |
		jq '.[] | select(.type == "raw_tracepoint" or .type == "tracing") | .prog_id'); do
		if json_is object 'any(.map_ids[]?; . == $m)' --argjson m "$stats" -- \
			bpftool -j prog show id "$prog" 2>/dev/null; then
			n=$((n + 1))
		fi
	done
	echo "$n"
}

# ping_start KEY COUNT: COUNT pings h1 -> h2, 20 ms apart, in the
# background (PING_PID).
ping_start()
{
	# Not through hexec: $! must be ping itself.
	ip netns exec "${NS[1]}" ping -n -c "$2" -i 0.02 -W 1 "${IP4[2]}" \
		>"$XT_TMP/ping.$1.out" 2>&1 &
	PING_PID=$!
	XT_PIDS+=("$PING_PID")
}

# ping_check NAME KEY COUNT: ping KEY ends, and its summary says all COUNT
# pings were answered.
ping_check()
{
	local log=$XT_TMP/ping.$2.out line tx rx
	wait "$PING_PID"
	line=$(grep 'packets transmitted' "$log")
	tx=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' <<<"$line")
	rx=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$line")
	if [ -n "$tx" ] && [ "$tx" = "$3" ] && [ "$rx" = "$3" ] &&
		[ "$(grep -c 'bytes from' "$log")" = "$3" ]; then
		pass "$1 ($line)"
	else
		fail "$1" "${line:-no summary}" "$(grep -v 'bytes from' "$log" | tail -5)"
	fi
}

# second LOG: start a second xdpbrd for $BR on the same ports with an
# endpoint of its own (SECOND_HTTP), wait (3 s) for it to exit. Sets
# SECOND_PID (empty once it has exited) and SECOND_RC.
second()
{
	local i
	obs_pick_port >/dev/null || return 1
	SECOND_HTTP=127.0.0.1:$OBS_LAST_PORT
	"$XDPBRD" -d "$XT_DATAPATH" -l "$SECOND_HTTP" "$BR" "${PORTS[@]}" >"$1" 2>&1 &
	SECOND_PID=$!
	XT_PIDS+=("$SECOND_PID")
	SECOND_RC=running
	for ((i = 0; i < 30; i++)); do
		proc_alive "$SECOND_PID" || break
		sleep 0.1
	done
	if ! proc_alive "$SECOND_PID"; then
		wait "$SECOND_PID"
		SECOND_RC=$?
		SECOND_PID=
	fi
}

# second_stop: a second daemon that did start is stopped (it would detach
# every port: what the lock prevents).
second_stop()
{
	[ -n "$SECOND_PID" ] || return 0
	stop_pid "$SECOND_PID" TERM 10
	SECOND_PID=
}

xt_require
xt_need curl
xt_need bpftool
topo_up 2
obs_daemon_http || abort "xdpbrd start with an HTTP endpoint" "$XT_WHY"
FIRST=$DAEMON_PID
check "ping h1 -> h2" hping 1 2
progs=$(prog_ids)
links=$(tp_links)
check_eq "the first daemon's drop-counting tracepoints: 2 links" 2 "$links"
sock_ino=$(stat -c %i "$SOCK" 2>&1)
obs_monitor_start mon -j monitor || abort "xdpbr monitor" "$XT_WHY"
ping_start d 250
sleep 0.5

# ------------------------------------------------- a second daemon, refused

second "$XT_TMP/second.log"
check_eq "second xdpbrd for $BR: exits at once with status 1" 1 "$SECOND_RC" \
	"$(cat "$XT_TMP/second.log")"
check "second xdpbrd: its message names the running daemon, pid $FIRST" \
	grep -q "pid $FIRST\b" "$XT_TMP/second.log"
check_same_match "the ports keep the first daemon's programs" "$PROGS_RE" "$progs" \
	"$(prog_ids)"
check_eq "the drop-counting tracepoints are still attached once (2 links)" 2 "$(tp_links)"
check_same "the event socket is still the first daemon's" "$sock_ino" \
	"$(stat -c %i "$SOCK" 2>&1)"
check_fail "the second daemon's endpoint ($SECOND_HTTP) never answers" \
	curl -fsS --max-time 1 -o /dev/null "http://$SECOND_HTTP/stats"
second_stop
ping_check "250 pings h1 -> h2 across the second daemon's attempt, none lost" d 250
check_same_match "afterwards, the ports still run the first daemon's programs" "$PROGS_RE" \
	"$progs" "$(prog_ids)"
check "afterwards, ping h1 -> h2" hping 1 2
pfx_check_daemon "the first daemon still runs"
check "its endpoint still answers" obs_http_wait 2
check "new MAC from h1 (broadcast)" obs_send 1 1 ff:ff:ff:ff:ff:ff "$(obs_mac 7)"
if xt_poll 3 obs_event_seen mon '.event == "learn" and .mac == $m' --arg m "$(obs_mac 7)"; then
	pass "its monitor still gets events (learn $(obs_mac 7))"
else
	fail "its monitor still gets events (learn $(obs_mac 7))" "events: $(obs_events mon)" \
		"stderr: $(cat "$XT_TMP/mon.mon.err")"
fi
obs_monitor_stop mon
check_fail "the first daemon logged nothing about a second one" \
	grep -qi "taken over\|detached" "$DAEMON_LOG"

# ---------------------------- pins removed: the lock comes back with them

# The daemon puts removed pins back (bridge_pins_check) in a directory made
# anew: its lock must move there too.
rm -rf "$PIN_DIR"
check "pins removed by hand: the daemon puts them back" xt_poll 5 test -e "$PIN_DIR/xdpbr_fdb"
second "$XT_TMP/second2.log"
check_eq "after that, a second xdpbrd is still refused (exit status 1)" 1 "$SECOND_RC" \
	"$(cat "$XT_TMP/second2.log")"
check "... naming pid $FIRST" grep -q "pid $FIRST\b" "$XT_TMP/second2.log"
second_stop
check "ping h1 -> h2" hping 1 2

# -------------------------------------------- SIGKILL: no stale lock

ping_start r 250
sleep 0.5
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=
if obs_daemon_http; then	# not through check: it sets DAEMON_PID
	pass "after SIGKILL, a new daemon starts (the lock died with the first)"
else
	fail "after SIGKILL, a new daemon starts (the lock died with the first)" "$XT_WHY"
fi
ping_check "250 pings h1 -> h2 across the SIGKILL and the restart, none lost" r 250
second "$XT_TMP/third.log"
check_eq "another xdpbrd for $BR: exits at once with status 1" 1 "$SECOND_RC" \
	"$(cat "$XT_TMP/third.log")"
check "its message names the new daemon, pid $DAEMON_PID" \
	grep -q "pid $DAEMON_PID\b" "$XT_TMP/third.log"
second_stop
daemon_stop
check_eq "SIGTERM: the daemon exits 0" 0 "$DAEMON_RC" "$(cat "$DAEMON_LOG")"

finish

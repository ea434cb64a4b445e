#!/usr/bin/env bash
# datapaths: auto
# Static entries of the configuration file that the FDB refuses (it is
# full, as after a MAC flood with no learning limit): the daemon says so,
# keeps running, and writes them as soon as there is room, whether they
# came with a reload or with a start over an adopted full FDB (where they
# used to stop the daemon: a crash loop under Restart=on-failure). A
# reload of a file without ageing_time gives the bridge the default ageing
# time again.
#
# The FDB has the smallest size xdpbrd takes (-s 16) and is filled with
# tools/fdbfill; the hosts are kept quiet, so nothing else changes it.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and xt_poll
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks count exactly the FDB entries it made

FDBFILL=$XT_BUILD/tools/fdbfill
FDB_SIZE=16
LISTEN=$((20000 + ID))

# conf [AGEING] [PORT-1-LINE...]: the configuration: the bridge (ageing_time
# AGEING unless empty), h1's port with the lines given, h2's port with the
# line P2_LINE (if set).
P2_LINE=
conf()
{
	local ageing=$1
	shift
	{
		echo "[bridge]"
		echo "name = $BR"
		[ -n "$ageing" ] && echo "ageing_time = $ageing"
		echo "listen = 127.0.0.1:$LISTEN"
		echo "[port ${PORT[1]}]"
		printf '%s\n' "$@"
		echo "[port ${PORT[2]}]"
		[ -n "$P2_LINE" ] && echo "$P2_LINE"
	} >"$CONF"
}

# entry_is MAC WANT: fdb_where MAC prints WANT.
entry_is()
{
	[ "$(fdb_where "$1")" = "$2" ]
}

# fill OFFSET: dynamic entries on h2's port until the FDB is full.
fill()
{
	local n
	n=$(bridge_field fdb_entries) || return 1
	[[ $n =~ ^[0-9]+$ ]] || return 1
	((n < FDB_SIZE)) || return 0
	"$FDBFILL" -o "$1" "$BR" "${PORT[2]}" $((FDB_SIZE - n))
}

# log_since LINE TEXT: the daemon's log has TEXT after its line LINE.
log_since()
{
	tail -n "+$(($1 + 1))" "$DAEMON_LOG" | grep -qF -- "$2"
}

xt_require
[ -x "$FDBFILL" ] || abort "$FDBFILL not built (make check-bins)"
topo_up 2
hosts_quiet || abort "hosts_quiet"
CONF=$XT_TMP/xdpbrd.conf
S1=$(test_mac 1)
S2=$(test_mac 2)
S3=$(test_mac 3)

conf 100 "static = $S1"
pfx_daemon_start 2 -s "$FDB_SIZE" -c "$CONF" || abort "xdpbrd -c $CONF" "$XT_WHY"
check_eq "started: $S1 static on ${PORT[1]}" "${PORT[1]} static" "$(fdb_where "$S1" 2>&1)"
check_eq "started: ageing_time 100 from the file" 100 "$(bridge_field ageing_time 2>&1)"
check "fill the FDB (fdbfill)" fill 0
check_eq "the FDB is full: $FDB_SIZE entries" "$FDB_SIZE" "$(bridge_field fdb_entries 2>&1)"

# --- a reload adds a static entry the full FDB refuses
conf "" "static = $S1" "static = $S2"
lines=$(wc -l <"$DAEMON_LOG")
check "SIGHUP: $S2 added, ageing_time removed" kill -HUP "$DAEMON_PID"
if xt_poll 3 log_since "$lines" "reloaded"; then
	pass "reload: done"
else
	fail "reload: done (within 3 s)" "$(cat "$DAEMON_LOG")"
fi
if log_since "$lines" "static entry $S2 vlan 0 on ${PORT[1]}: the FDB is full"; then
	pass "reload: the daemon says the FDB refused $S2"
else
	fail "reload: the daemon says the FDB refused $S2" "$(cat "$DAEMON_LOG")"
fi
check_eq "reload: ageing_time back to the default, 300" 300 "$(bridge_field ageing_time 2>&1)"
check_eq "reload: $S2 not written (no room)" none "$(fdb_where "$S2" 2>&1)"
pfx_check_daemon "reload: the daemon keeps running"
# the same file again: nothing to apply for the port, yet S2 is still due
check "SIGHUP again (the same file)" kill -HUP "$DAEMON_PID"
check "room for one entry: fdb del of a filled one" \
	"$XDPBR" -b "$BR" fdb del 06:00:00:00:00:00
if xt_poll 3 entry_is "$S2" "${PORT[1]} static"; then
	pass "room made: $S2 written static on ${PORT[1]} (within 3 s)"
else
	fail "room made: $S2 written static on ${PORT[1]} (within 3 s)" \
		"$(fdb_where "$S2" 2>&1)" "$(cat "$DAEMON_LOG")"
fi
check "the daemon says it wrote $S2" grep -qF "static entry $S2 vlan 0 on ${PORT[1]} written" \
	"$DAEMON_LOG"

# --- a start over an adopted full FDB with a static entry it refuses
daemon_stop KILL
check "kill -9: fill the FDB again" fill 100
check_eq "the FDB is full again: $FDB_SIZE entries" "$FDB_SIZE" \
	"$(bridge_field fdb_entries 2>&1)"
conf "" "static = $S1" "static = $S2" "static = $S3"
if pfx_daemon_start 2 -s "$FDB_SIZE" -c "$CONF"; then
	pass "restart over the full FDB: xdpbrd starts"
else
	abort "restart over the full FDB: xdpbrd starts" "$XT_WHY"
fi
if grep -qF "static entry $S3 vlan 0 on ${PORT[1]}: the FDB is full" "$DAEMON_LOG"; then
	pass "restart: the daemon says the FDB refused $S3"
else
	fail "restart: the daemon says the FDB refused $S3" "$(cat "$DAEMON_LOG")"
fi
check_eq "restart: $S1 still static on ${PORT[1]}" "${PORT[1]} static" "$(fdb_where "$S1" 2>&1)"
check_eq "restart: $S2 still static on ${PORT[1]}" "${PORT[1]} static" "$(fdb_where "$S2" 2>&1)"
check_eq "restart: $S3 not written (no room)" none "$(fdb_where "$S3" 2>&1)"
check "restart: ping h1 -> h2" hping 1 2
check "fdb flush dynamic" "$XDPBR" -b "$BR" fdb flush dynamic
if xt_poll 3 entry_is "$S3" "${PORT[1]} static"; then
	pass "room made: $S3 written static on ${PORT[1]} (within 3 s)"
else
	fail "room made: $S3 written static on ${PORT[1]} (within 3 s)" \
		"$(fdb_where "$S3" 2>&1)" "$(cat "$DAEMON_LOG")"
fi

# --- a static entry dropped from the file before there was room is
# forgotten, not written later
check "fill the FDB once more" fill 200
P2_LINE="static = $(test_mac 4)"
conf "" "static = $S1" "static = $S2"
lines=$(wc -l <"$DAEMON_LOG")
check "SIGHUP: $(test_mac 4) on ${PORT[2]}, refused" kill -HUP "$DAEMON_PID"
xt_poll 3 log_since "$lines" "reloaded" || fail "reload done (within 3 s)" "$(cat "$DAEMON_LOG")"
P2_LINE=
conf "" "static = $S1" "static = $S2"
check "SIGHUP: $(test_mac 4) dropped from the file" kill -HUP "$DAEMON_PID"
sleep 0.5
check "fdb flush dynamic" "$XDPBR" -b "$BR" fdb flush dynamic
sleep 2
check_eq "$(test_mac 4), dropped from the file, is not written later" none \
	"$(fdb_where "$(test_mac 4)" 2>&1)"
pfx_check_daemon "the daemon runs"

finish

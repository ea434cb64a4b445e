#!/usr/bin/env bash
# datapaths: auto
# What xdpbrd(8) and xdpbr(8) promise of their options, on a real daemon
# and bridge (the control plane only: once, not on both datapaths):
#   - ports given on the command line are added to those of the file, and
#     options on the command line win over the file (-a over ageing_time,
#     -s over fdb_size, -l over listen, -H over host_interface), also after
#     SIGHUP reloads the file;
#   - -s: a bridge whose pins exist keeps its size;
#   - the event socket is 0600 in a 0700 directory;
#   - xdpbr -p: indented JSON, the same document as -j;
#   - xdpbr stats rate N count M, and -r N: M intervals of N s, each one
#     line (one array with -j) whose rates are the frames counted in it.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and xt_poll
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=	# -H is one of the options under test

# rate_json N COUNT: `xdpbr -j stats rate N count COUNT` (stdout) into
# $XT_TMP/rate.json in the background; RATE_PID.
rate_start()
{
	"$XDPBR" -b "$BR" -j stats rate "$1" count "$2" >"$XT_TMP/rate.json" \
		2>"$XT_TMP/rate.err" &
	RATE_PID=$!
	XT_PIDS+=("$RATE_PID")
}

# reloads N: the daemon logged "reloaded" N times or more.
reloads()
{
	[ "$(grep -c 'reloaded ' "$DAEMON_LOG")" -ge "$1" ]
}

# file_wins_nowhere LABEL: the command line's settings, not the file's.
file_wins_nowhere()
{
	local l=$1
	check_eq "$l: -a 50 wins over ageing_time = 100" 50 "$(bridge_field ageing_time 2>&1)"
	check_eq "$l: -s 1024 wins over fdb_size = 2048" 1024 "$(bridge_field fdb_size 2>&1)"
	check "$l: -l 127.0.0.1:$PB wins over listen: /stats there" \
		curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:$PB/stats"
	check_fail "$l: ... and not on the file's 127.0.0.1:$PA" \
		curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:$PA/stats"
	check_fail "$l: -H off wins over host_interface = on: no interface $BR" \
		ip link show dev "$BR"
	check "$l: link show lists the file's ports and the command line's, no host port" \
		json_is array '([.[].ifname] | sort) == ($want | sort) and
			       all(.[]; .host_interface == null)' \
		--argjson want "$(printf '%s\n' "${PORTS[@]}" | jq -R . | jq -sc .)" -- \
		"$XDPBR" -b "$BR" -j link show
}

xt_require
xt_need curl bpftool
topo_up 3
hosts_quiet || abort "hosts_quiet"
PA=$(obs_pick_port) || abort "no free loopback port"
OBS_LAST_PORT=$PA
PB=$(obs_pick_port) || abort "no second free loopback port"
CONF=$XT_TMP/xdpbrd.conf
cat >"$CONF" <<EOF
[bridge]
name = $BR
ageing_time = 100
fdb_size = 2048
listen = 127.0.0.1:$PA
host_interface = on
[port ${PORT[1]}]
[port ${PORT[2]}]
EOF

# --- the file and the command line
pfx_daemon_start 3 -k -c "$CONF" -a 50 -s 1024 -l "127.0.0.1:$PB" -H off "$BR" "${PORT[3]}" ||
	abort "xdpbrd -c FILE -a -s -l -H $BR ${PORT[3]}" "$XT_WHY"
file_wins_nowhere "start"
check "the command line's port forwards: ping h1 -> h3" hping 1 3
check "the file's ports forward: ping h2 -> h1" hping 2 1
kill -HUP "$DAEMON_PID"
check "SIGHUP: xdpbrd reloaded the file" xt_poll 10 reloads 1
file_wins_nowhere "after SIGHUP"

# --- the event socket
SOCK=/run/xdpbr/$BR.sock
check "the event socket $SOCK is a socket" test -S "$SOCK"
check_eq "the event socket's mode is 0600" 600 "$(stat -c %a "$SOCK" 2>&1)"
check_eq "its directory /run/xdpbr is 0700" 700 "$(stat -c %a /run/xdpbr 2>&1)"
check_eq "... both root's" "root root" "$(stat -c %U "$SOCK" /run/xdpbr 2>&1 | paste -sd' ')"

# --- xdpbr -p: indented JSON, the document of -j
for cmd in "link show" "fdb show" "bridge show" "stats"; do
	# shellcheck disable=SC2086 # the command's words
	compact=$("$XDPBR" -b "$BR" -j $cmd 2>&1)
	# shellcheck disable=SC2086
	pretty=$("$XDPBR" -b "$BR" -p $cmd 2>&1)
	if [ "$(wc -l <<<"$pretty")" -gt 2 ] && grep -q '^  ' <<<"$pretty" &&
		[ "$(wc -l <<<"$compact")" = 1 ]; then
		pass "xdpbr -p $cmd: indented, on several lines (-j: one line)"
	else
		fail "xdpbr -p $cmd: indented, on several lines (-j: one line)" \
			"-p:" "$pretty" "-j:" "$compact"
	fi
	# what moves between two reads (counters, an entry's age): the keys
	f=.
	[ "$cmd" = stats ] && f='[.[] | keys]'
	[ "$cmd" = "fdb show" ] && f='map(del(.updated))'
	check_same_json "xdpbr -p $cmd: the same document as -j" \
		"$(jq -c "$f" <<<"$compact" 2>&1)" "$(jq -c "$f" <<<"$pretty" 2>&1)"
done

# --- stats rate N count M, -r N
# 200 frames from h1 inside the first of two 2 s intervals: its rates on
# h1's port are 200 frames over the interval, the second's none.
rate_start 2 2
sleep 0.5
obs_send 1 200 "${MAC[2]}" || fail "sendframe -c 200 from h1"
xt_poll 10 eval '! proc_alive $RATE_PID'
wait "$RATE_PID"
check_eq "stats rate 2 count 2: exits 0" 0 "$?" "$(cat "$XT_TMP/rate.err")"
check_eq "stats rate 2 count 2 -j: two lines" 2 "$(grep -c . "$XT_TMP/rate.json")" \
	"$(cat "$XT_TMP/rate.json")"
first=$(head -n 1 "$XT_TMP/rate.json")
second=$(sed -n 2p "$XT_TMP/rate.json")
check_jq "interval 1: each port's object, interval_s about 2, every column's _per_s" \
	"${first:-null}" 'length == 3 and all(.[]; (.interval_s | . >= 1.9 and . < 4) and
	 ([keys[] | select(endswith("_per_s"))] | length) == 8 and
	 all(to_entries[] | select(.key | endswith("_per_s")); .value >= 0))'
check_jq "interval 1: h1's port received the 200 frames (rx_packets_per_s x interval_s)" \
	"${first:-null}" '(.[] | select(.ifname == $p) | .rx_packets_per_s * .interval_s | round) == 200' \
	--arg p "${PORT[1]}"
check_jq "interval 1: h2's port sent them on (tx_packets_per_s x interval_s)" \
	"${first:-null}" '(.[] | select(.ifname == $p) | .tx_packets_per_s * .interval_s | round) == 200' \
	--arg p "${PORT[2]}"
check_jq "interval 2: nothing more on h1's port" "${second:-null}" \
	'(.[] | select(.ifname == $p) | .rx_packets_per_s) == 0' --arg p "${PORT[1]}"
rtext=$("$XDPBR" -b "$BR" -r 1 stats 2>&1)
check "-r 1 stats: a header with the per-second columns and the interval" \
	grep -qE '^port +rx_packets/s +rx_bytes/s .*dropped/s +\(over 1\.[0-9]+ s\)$' <<<"$rtext"
for p in "${PORTS[@]}"; do
	check "-r 1 stats: a line for $p" grep -q "^$p " <<<"$rtext"
done
check_eq "-r 1 stats: one interval by default (a header and 3 ports)" 4 "$(grep -c . <<<"$rtext")" \
	"$rtext"
check_err "stats rate 0: refused" "$XDPBR" -b "$BR" stats rate 0
check_err "stats rate 3601: refused" "$XDPBR" -b "$BR" stats rate 3601
check_err "stats rate 1 count 0: refused" "$XDPBR" -b "$BR" stats rate 1 count 0

# --- -s: a bridge whose pins exist keeps its size
daemon_stop || fail "xdpbrd -k exits on SIGTERM" "$DAEMON_RC"
check "-k: the pins stay" test -e "$PIN_DIR/xdpbr_fdb"
pfx_daemon_start 3 -c "$CONF" -s 4096 -H off "$BR" "${PORT[3]}" ||
	abort "xdpbrd -s 4096 on the pinned bridge" "$XT_WHY"
check "the next xdpbrd adopted the pinned bridge" log_poll "$DAEMON_LOG" adopt 5
check "... and says it keeps the pinned FDB's size" \
	grep -q "keeps the 1024 entries of its pinned FDB (--fdb-size 4096" "$DAEMON_LOG"
check_eq "-s 4096 on pins of 1024 entries: the bridge keeps its size" 1024 \
	"$(bridge_field fdb_size 2>&1)"
check_eq "... as the pinned map says" 1024 \
	"$(bpftool -j map show pinned "$PIN_DIR/xdpbr_fdb" 2>&1 | jq '.max_entries' 2>&1)"
check "ping h1 -> h3" hping 1 3
daemon_stop || fail "xdpbrd exits on SIGTERM" "$DAEMON_RC"

finish

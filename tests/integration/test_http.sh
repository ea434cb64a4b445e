#!/usr/bin/env bash
# datapaths: auto
# The HTTP statistics endpoint of xdpbrd (doc/http-api.md): /stats, /fdb
# and its parameters and pages, errors (400, 404, 405 with a JSON body), malformed
# requests and idle clients that must not hurt the daemon, the loopback-only
# default address and --listen none.
#
# The daemon always gets its own loopback port (--listen): other tests,
# and other bridges' daemons, may hold the default 127.0.0.1:9638. Then
# the default, and a second bridge's daemon beside the first, as two
# xdpbrd@BRIDGE instances run: the second's default address is taken, it
# runs on without the endpoint and says which key to set; with listen = in
# its file, both serve.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check / xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks enumerate exactly the ports and FDB entries it made

xt_require
xt_need curl
topo_up 2
P1=${PORT[1]} P2=${PORT[2]}
obs_daemon_http || abort "xdpbrd start with an HTTP endpoint" "$XT_WHY"
HPORT=${OBS_HTTP##*:}
check "log: xdpbrd says where it serves statistics" \
	grep -qF "http://$OBS_HTTP/" "$DAEMON_LOG"

# Some FDB content: both hosts learned, a static entry on P1 (VLAN 0) and
# one on P2 in VLAN 5.
STATIC=$(obs_mac 1)
STATIC5=$(obs_mac 5)
check "ping h1 -> h2 (both learned)" hping 1 2
check "fdb add $STATIC dev $P1" "$XDPBR" -b "$BR" fdb add "$STATIC" dev "$P1"
check "fdb add $STATIC5 dev $P2 vlan 5" \
	"$XDPBR" -b "$BR" fdb add "$STATIC5" dev "$P2" vlan 5

# ---------------------------------------------------------------- /stats

code=$(obs_req GET /stats)
stats=$(cat "$XT_TMP/obs.body")
check_eq "GET /stats: 200" 200 "$code" "$stats"
check_eq "GET /stats: Content-Type application/json" application/json \
	"$(obs_header Content-Type)" "$(cat "$XT_TMP/obs.hdr")"
check_jq "GET /stats: schema_version 1, bridge.name, the ports and numeric counters" \
	"$stats" '.schema_version == 1 and .bridge.name == $br and .bridge.ports == 2 and
	 (.ports | map(.ifname) | sort) == ([$p1, $p2] | sort) and
	 all(.ports[]; .master == $br and (.counters.rx_packets | type) == "number" and
		       (.counters.tx_packets | type) == "number")' \
	--arg br "$BR" --arg p1 "$P1" --arg p2 "$P2"
check_jq "GET /stats: h1's pings counted on its port" "$stats" \
	'any(.ports[]; .ifname == $p and .counters.forwarded >= 1)' --arg p "$P1"
# HEAD on the socket (curl would wait for the body Content-Length names):
# the headers of a 200, then nothing.
(exec 3<>"/dev/tcp/127.0.0.1/$HPORT" &&
	printf 'HEAD /stats HTTP/1.0\r\n\r\n' >&3 &&
	timeout 8 cat <&3 >"$XT_TMP/head.out")
first=$(head -n 1 "$XT_TMP/head.out" | tr -d '\r' | sed 's|^HTTP/1\.[01] |HTTP/1.x |')
end=$(tail -c 4 "$XT_TMP/head.out" | od -An -tx1 | tr -d ' \n')
check_eq "HEAD /stats: 200, headers only, no body" "HTTP/1.x 200 OK, ends 0d0a0d0a" \
	"$first, ends $end" "$(cat "$XT_TMP/head.out")"
code=$(obs_req GET /metrics)
check_eq "GET /metrics: 200" 200 "$code" "$(head -c 500 "$XT_TMP/obs.body")"
check_eq "GET /metrics: Content-Type is Prometheus text 0.0.4" yes \
	"$(obs_header Content-Type | grep -q '^text/plain; *version=0.0.4' && echo yes)" \
	"$(cat "$XT_TMP/obs.hdr")"

# ---------------------------------------------------------------- /fdb

# A page: {"entries": [...], "next": null} (the whole table fits in one).
page=$(obs_get /fdb 2>&1)
check_jq "GET /fdb: a page, {entries, next}, next null (the table fits in one page)" \
	"$page" 'type == "object" and keys == ["entries", "next"] and .next == null and
	 (.entries | type) == "array"'
fdb=$(jq -c .entries <<<"$page" 2>&1)
check_jq "GET /fdb: entries with mac, ifname, vlan, master, state, flags, updated" \
	"$fdb" 'type == "array" and length >= 4 and
	 all(.[]; has("mac") and has("ifname") and has("vlan") and has("master") and
		  has("state") and has("flags") and has("updated"))'
check_jq "GET /fdb: h1 on $P1, h2 on $P2, the static entries, master $BR" "$fdb" '
	def has_e($m; $p; $v): any(.[]; (.mac | ascii_downcase) == $m and
				   .ifname == $p and .vlan == $v and .master == $br);
	has_e($m1; $p1; 0) and has_e($m2; $p2; 0) and has_e($s; $p1; 0) and
	has_e($s5; $p2; 5) and
	any(.[]; (.mac | ascii_downcase) == $s and .state == "static")' \
	--arg br "$BR" --arg p1 "$P1" --arg p2 "$P2" --arg m1 "${MAC[1]}" \
	--arg m2 "${MAC[2]}" --arg s "$STATIC" --arg s5 "$STATIC5"
key='map({mac: (.mac | ascii_downcase), ifname, vlan, master, state, flags}) | sort'
cli=$(fdb_json 2>&1)
check_same_json "GET /fdb: the same entries as xdpbr -j fdb show" \
	"$(jq -c "$key" <<<"$cli" 2>&1)" "$(jq -c "$key" <<<"$fdb" 2>&1)"

json=$(obs_get "/fdb?port=$P1" 2>&1 | jq -c 'select(.next == null) | .entries' 2>&1)
check_jq "GET /fdb?port=$P1: only $P1's entries, h1 and the static one" "$json" \
	'length == 2 and all(.[]; .ifname == $p) and
	 any(.[]; (.mac | ascii_downcase) == $m) and
	 any(.[]; (.mac | ascii_downcase) == $s)' \
	--arg p "$P1" --arg m "${MAC[1]}" --arg s "$STATIC"
json=$(obs_get "/fdb?vlan=0" 2>&1 | jq -c 'select(.next == null) | .entries' 2>&1)
check_jq "GET /fdb?vlan=0: VLAN 0 only (not $STATIC5)" "$json" \
	'length >= 3 and all(.[]; .vlan == 0)'
json=$(obs_get "/fdb?vlan=5" 2>&1 | jq -c 'select(.next == null) | .entries' 2>&1)
check_jq "GET /fdb?vlan=5: just $STATIC5" "$json" \
	'length == 1 and (.[0].mac | ascii_downcase) == $s and .[0].vlan == 5' \
	--arg s "$STATIC5"
json=$(obs_get "/fdb?port=$P2&vlan=0" 2>&1 | jq -c 'select(.next == null) | .entries' 2>&1)
check_jq "GET /fdb?port=$P2&vlan=0: h2 only" "$json" \
	'length == 1 and .[0].ifname == $p and (.[0].mac | ascii_downcase) == $m' \
	--arg p "$P2" --arg m "${MAC[2]}"

# Pages of two: following "next" gives every entry of the one-page answer,
# once each; "next" is a string (an opaque cursor) until the last page's null.
after='' pages=0 walked='[]' why=
while :; do
	page=$(obs_get "/fdb?limit=2${after:+&after=$after}" 2>&1)
	if ! jq_true "$page" 'keys == ["entries", "next"] and (.entries | length) <= 2 and
		    (.next == null or (.next | type) == "string")'; then
		why="page $pages (after=$after): $page"
		break
	fi
	walked=$(jq -c --argjson w "$walked" '$w + .entries' <<<"$page")
	pages=$((pages + 1))
	after=$(jq -r '.next // empty' <<<"$page")
	if [ -z "$after" ] || ((pages >= 20)); then
		break
	fi
done
if [ -z "$why" ] && [ -z "$after" ]; then
	check_same_json "GET /fdb?limit=2, following next ($pages pages): the entries of /fdb, once each" \
		"$(jq -c "$key" <<<"$fdb" 2>&1)" "$(jq -c "$key" <<<"$walked" 2>&1)"
	check_jq "GET /fdb?limit=2: $pages pages for $(jq length <<<"$fdb") entries" \
		"$pages" '. >= (($n + 1) / 2 | floor)' --argjson n "$(jq length <<<"$fdb")"
else
	fail "GET /fdb?limit=2, following next" "${why:-more than 20 pages}"
fi
check_jq "GET /fdb?after=4294967295 (past the table's end): no entries, next null" \
	"$(obs_get "/fdb?after=4294967295" 2>&1)" '.entries == [] and .next == null'

# HTTP/1.0 (no chunks: the body ends with the connection) and HEAD.
# http10 METHOD PATH: the raw answer to an HTTP/1.0 request.
http10()
{
	(exec 3<>"/dev/tcp/127.0.0.1/$HPORT" &&
		printf '%s %s HTTP/1.0\r\n\r\n' "$1" "$2" >&3 &&
		timeout 8 cat <&3)
}
raw10=$(http10 GET "/fdb?limit=2" | tr -d '\r')
check_jq "GET /fdb HTTP/1.0: 200, the page's JSON until the connection closes" \
	"$(sed '1,/^$/d' <<<"$raw10")" '(.entries | length) == 2 and (.next | type) == "string"'
check_eq "GET /fdb HTTP/1.0: status 200" "HTTP/1.x 200 OK" \
	"$(head -n 1 <<<"$raw10" | sed 's|^HTTP/1\.[01] |HTTP/1.x |')" "$raw10"
http10 HEAD /fdb >"$XT_TMP/head.out"
first=$(head -n 1 "$XT_TMP/head.out" | tr -d '\r' | sed 's|^HTTP/1\.[01] |HTTP/1.x |')
end=$(tail -c 4 "$XT_TMP/head.out" | od -An -tx1 | tr -d ' \n')
check_eq "HEAD /fdb: 200, headers only, no body" "HTTP/1.x 200 OK, ends 0d0a0d0a" \
	"$first, ends $end" "$(cat "$XT_TMP/head.out")"

# ---------------------------------------------------------------- errors

# check_error NAME STATUS METHOD PATH [CURL-ARG...]: the answer is STATUS
# with the JSON error body {"error": "...", "status": STATUS}.
check_error()
{
	local name=$1 want=$2 code body
	shift 2
	code=$(obs_req "$@")
	body=$(cat "$XT_TMP/obs.body")
	if [ "$code" = "$want" ] && jq_true "$body" \
		'.status == $s and (.error | type) == "string" and (.error | length) > 0' \
		--argjson s "$want"; then
		pass "$name"
		return 0
	fi
	fail "$name" "request: $*" "expected: $want with a JSON error body" \
		"got: ${code:-nothing} $(cat "$XT_TMP/obs.hdr" "$XT_TMP/obs.body" "$XT_TMP/obs.err")"
	return 1
}

check_error "GET /fdb?vlan=abc: 400" 400 GET "/fdb?vlan=abc"
check_error "GET /fdb?vlan=4095: 400" 400 GET "/fdb?vlan=4095"
check_error "GET /fdb?port=nosuch: 400" 400 GET "/fdb?port=nosuch"
check_error "GET /fdb?port=lo (not a port): 400" 400 GET "/fdb?port=lo"
check_error "GET /fdb?foo=1: 400" 400 GET "/fdb?foo=1"
for q in limit=0 limit=10001 limit=abc limit= limit=-1 after=abc after= after=-1 \
	after=4294967296; do
	check_error "GET /fdb?$q: 400" 400 GET "/fdb?$q"
done
check_error "GET /stats?port=$P1 (no parameters there): 400" 400 GET "/stats?port=$P1"
check_error "GET /nosuch: 404" 404 GET /nosuch
check_error "GET /: 404" 404 GET /
for m in POST PUT DELETE; do
	for path in /stats /fdb; do
		if check_error "$m $path: 405" 405 "$m" "$path"; then
			check_eq "$m $path: Allow: GET, HEAD" "GET, HEAD" \
				"$(obs_header Allow)" "$(cat "$XT_TMP/obs.hdr")"
		fi
	done
done
check_error "GET /stats with a body: 400" 400 GET /stats --data-binary body

# Malformed requests, straight on the socket: each gets a 400 or the
# connection closed (by the 5 s inactivity timeout at the latest); the
# daemon lives on and still answers.
# raw NAME DATA: send DATA (printf format) on a new connection, read until
# the server closes it (8 s at most).
raw()
{
	local name=$1 data=$2 fd out rc
	if ! exec {fd}<>"/dev/tcp/127.0.0.1/$HPORT"; then
		fail "$name" "can't connect to 127.0.0.1:$HPORT"
		return 1
	fi
	# shellcheck disable=SC2059 # the data is a printf format on purpose
	printf "$data" 1>&"$fd" 2>/dev/null
	out=$(timeout 8 cat <&"$fd" | tr -d '\r' | head -n 1)
	rc=${PIPESTATUS[0]}
	exec {fd}>&-
	if [[ $out =~ ^HTTP/1\.[01]\ 400 ]] || { [ -z "$out" ] && [ "$rc" = 0 ]; }; then
		pass "$name (${out:-closed without an answer})"
		return 0
	fi
	fail "$name" "expected a 400 status line or the connection closed" \
		"got: '${out}', cat status $rc (124: still open after 8 s)"
	return 1
}
raw "malformed request line 'GARBAGE': 400 or closed" 'GARBAGE\r\n\r\n'
raw "three words that are no request: 400 or closed" 'FOO BAR BAZ\r\n\r\n'
raw "binary garbage: 400 or closed" '\x00\x01\xff\xfe\x16\x03\x01 garbage \x7f\r\n\r\n'
raw "a header line without a colon: 400 or closed" \
	'GET /stats HTTP/1.0\r\nthis is no header\r\n\r\n'
check "xdpbrd is still running after the malformed requests" kill -0 "$DAEMON_PID"
check "GET /stats still answers after the malformed requests" obs_get /stats -o /dev/null

# ---------------------------------------------------------------- idle clients

# 20 connections from 127.0.0.1 that send nothing. The endpoint keeps at
# most 16 per client address (doc/http-api.md); /stats must still answer
# another client at once, and forwarding is not affected.
fds=()
for _ in $(seq 20); do
	exec {fd}<>"/dev/tcp/127.0.0.1/$HPORT" && fds+=("$fd")
done
check_eq "20 idle connections opened" 20 "${#fds[@]}"
sleep 0.3
est=$(ss -Htn state established "( sport = :$HPORT )" | wc -l)
if [ "$est" -le 16 ]; then
	pass "the server keeps at most 16 connections from 127.0.0.1 ($est)"
else
	fail "the server keeps at most 16 connections from 127.0.0.1" "got $est"
fi
t=$(curl -sS -o /dev/null --max-time 2 --interface 127.0.0.2 \
	-w '%{http_code} %{time_total}' "$(obs_url /stats)" 2>&1)
if [[ $t =~ ^200\ (0\.|1\.0*$) ]]; then
	pass "GET /stats (from 127.0.0.2) answers within 1 s during the idle clients ($t)"
else
	fail "GET /stats (from 127.0.0.2) answers within 1 s during the idle clients" \
		"curl: code and time: $t"
fi
check "ping h1 -> h2 during the idle clients" hping 1 2
check "xdpbrd is alive during the idle clients" kill -0 "$DAEMON_PID"
# The server closes them after its 5 s inactivity timeout.
# none_established: no connection to the endpoint is established on the
# server's side (a closed one is in FIN-WAIT-2 until the client closes).
none_established()
{
	[ -z "$(ss -Htn state established "( sport = :$HPORT )")" ]
}
if xt_poll 9 none_established; then
	pass "the idle connections are closed by the server (5 s timeout)"
else
	fail "the idle connections are closed by the server (5 s timeout)" \
		"$(ss -tn "( sport = :$HPORT )")"
fi
for fd in "${fds[@]}"; do
	exec {fd}>&-
done
check "GET /stats from 127.0.0.1 answers again" obs_get /stats -o /dev/null

# ---------------------------------------------------------------- addresses

# The control of listening: a socket this test listens on (iperf3 -s),
# which ss must show, or "no socket" could be an ss that shows nothing.
p=$(obs_pick_port) || abort "no free loopback port"
iperf3 -s -B 127.0.0.1 -p "$p" >"$XT_TMP/ctrl.log" 2>&1 &
CTRL_PID=$!
XT_PIDS+=("$CTRL_PID")
xt_poll 5 eval "ss -Htlnp | grep -qF 'pid=$CTRL_PID,'" ||
	abort "the control listener (iperf3 -s on 127.0.0.1:$p)" "$(cat "$XT_TMP/ctrl.log")"

# listening PID: the TCP sockets PID listens on ("ADDR:PORT", one a line);
# a line saying why, and status 1, when ss fails or misses the control.
listening()
{
	local out
	out=$(ss -Htlnp 2>&1) || { echo "ss -Htlnp failed: $out"; return 1; }
	if ! grep -qF "pid=$CTRL_PID," <<<"$out"; then
		echo "ss does not show the control listener (pid $CTRL_PID): $out"
		return 1
	fi
	awk -v p="pid=$1," 'index($0, p) { print $4 }' <<<"$out"
}
daemon_stop || fail "xdpbrd exits on SIGTERM" "status: $DAEMON_RC"

# The default: 127.0.0.1:9638 (not node_exporter's 9100). Another daemon
# may hold it: then this one warns, runs on, and serves nothing. Either
# way, only loopback.
DEF=127.0.0.1:9638
daemon_start || abort "xdpbrd start without --listen" "$XT_WHY"
xt_poll 3 grep -qE 'statistics on|serve statistics' "$DAEMON_LOG"
socks=$(listening "$DAEMON_PID")
DEF_OURS=
if grep -qF "statistics on http://$DEF/" "$DAEMON_LOG"; then
	check_eq "default listen: $DEF and nothing else" "$DEF" \
		"$socks" "$(ss -tlnp | grep -F "pid=$DAEMON_PID,")"
	DEF_OURS=1
elif grep -qF "serve statistics on $DEF" "$DAEMON_LOG"; then
	check_eq "default listen $DEF is busy: a warning, no socket" "" \
		"$socks" "$(cat "$DAEMON_LOG")"
	check "default listen busy: xdpbrd runs on and forwards" hping 1 2
	check "default listen busy: ss shows ${DEF##*:} held on 127.0.0.1 by another process" \
		bash -c "ss -Htln '( sport = :${DEF##*:} )' | grep -q '^LISTEN.*127\.0\.0\.1:${DEF##*:} '"
else
	fail "default listen: the log says $DEF (served or busy)" \
		"$(cat "$DAEMON_LOG")"
fi
if grep -qE '(0\.0\.0\.0|\*|\[::\]):' <<<"$socks"; then
	fail "default listen: not on a wildcard address" "$socks"
else
	pass "default listen: not on a wildcard address (${socks:-no socket})"
fi

# A second bridge on the same machine, configured as xdpbrd@BRIDGE is
# (-c /etc/xdpbr/BRIDGE.conf), with a port of its own (a veth pair in the
# root namespace: nothing is sent through it).
B2=xt${ID}b Q=xt${ID}q B2_LOG=$XT_TMP/b2.log B2_PID=
XT_CLEANUP_CMDS+=("ip link del dev '$Q'" "rm -rf '$PIN_ROOT/$B2'" "rm -f '/run/xdpbr/$B2.sock'")
if ! { ip link add "$Q" type veth peer name "${Q}x" && ip link set dev "$Q" up; }; then
	abort "ip link add $Q (the second bridge's port)"
fi

# b2_start [LISTEN]: start the second bridge's daemon from its file (with
# listen = LISTEN if given) and wait (30 s: loading the datapath takes
# seconds on a busy machine) until it forwards; stopped again if it does
# not, or the next start would meet it.
b2_start()
{
	{
		echo "[bridge]"
		echo "name = $B2"
		echo "host_interface = off"
		[ -z "${1:-}" ] || echo "listen = $1"
		echo "[port $Q]"
	} >"$XT_TMP/b2.conf"
	: >"$B2_LOG"
	"$XDPBRD" -c "$XT_TMP/b2.conf" >>"$B2_LOG" 2>&1 &
	B2_PID=$!
	XT_PIDS+=("$B2_PID")
	xt_poll 30 grep -q "bridge $B2: forwarding on 1 ports" "$B2_LOG" && return 0
	stop_pid "$B2_PID" TERM 10
	return 1
}

# b2_stop: SIGTERM, and it exits 0.
b2_stop()
{
	stop_pid "$B2_PID" TERM 10
	check_eq "second bridge: xdpbrd exits 0 on SIGTERM" 0 "$STOP_RC" "$(cat "$B2_LOG")"
}

if b2_start; then
	pass "second bridge, no listen =: it starts beside the first and forwards"
	check "second bridge, no listen =: a warning names $DEF and the listen key" \
		grep -qE "serve statistics on $DEF.*'listen ='" "$B2_LOG"
	check_eq "second bridge, no listen =: no socket" "" "$(listening "$B2_PID")"
	check "second bridge, no listen =: the first bridge forwards" hping 1 2
	b2_stop
else
	fail "second bridge, no listen =: it starts beside the first" "$(cat "$B2_LOG")"
fi
p=$(obs_pick_port) || abort "no free loopback port"
if b2_start "127.0.0.1:$p"; then
	check_jq "second bridge, listen = 127.0.0.1:$p: its /stats names $B2" \
		"$(curl -fsS --max-time 5 "http://127.0.0.1:$p/stats" 2>&1)" '.bridge.name == $b' \
		--arg b "$B2"
	if [ -n "$DEF_OURS" ]; then
		check_jq "... and the first still serves its own on $DEF" \
			"$(curl -fsS --max-time 5 "http://$DEF/stats" 2>&1)" '.bridge.name == $b' \
			--arg b "$BR"
	fi
	b2_stop
else
	fail "second bridge, listen = 127.0.0.1:$p: it starts" "$(cat "$B2_LOG")"
fi
check_fail "second bridge: its pins are gone" test -e "$PIN_ROOT/$B2"
daemon_stop || fail "xdpbrd exits on SIGTERM" "status: $DAEMON_RC"

# --listen none: no endpoint at all.
daemon_start --listen none || abort "xdpbrd start --listen none" "$XT_WHY"
sleep 0.5
check_eq "--listen none: no listening TCP socket" "" "$(listening "$DAEMON_PID")" \
	"$(cat "$DAEMON_LOG")"
check_fail "--listen none: the log names no statistics address" \
	grep -qiE 'statistics on|serve statistics' "$DAEMON_LOG"
check "--listen none: forwarding works" hping 1 2
daemon_stop || fail "xdpbrd exits on SIGTERM" "status: $DAEMON_RC"
check_fail "xdpbrd removed its event socket" test -e "/run/xdpbr/$BR.sock"

# A bad --listen is refused before anything is attached.
out=$(timeout 10 "$XDPBRD" --listen nonsense "$BR" "$P1" "$P2" 2>&1)
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -qi listen <<<"$out"; then
	pass "xdpbrd --listen nonsense: refused ($rc: $out)"
else
	fail "xdpbrd --listen nonsense: refused with a message" "status $rc" "$out"
fi
check_eq "xdpbrd --listen nonsense: no XDP left on $P1" null "$(port_xdp "$P1")"

finish

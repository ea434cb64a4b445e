#!/usr/bin/env bash
# datapaths: auto
# xdpbrd's configuration file: `xdpbrd -n -c FILE` accepts a good file and
# rejects bad ones naming FILE:LINE of the error; the daemon started with
# -c alone takes the bridge, its ports, their flags and static entries from
# the file; SIGHUP applies an edited file as a difference (a flag changed,
# a static entry added and one removed, a port added and one removed)
# within 2 s, rejects a bad file naming FILE:LINE and keeps running with the
# configuration it had, and takes the good file again afterwards. A port of
# the file that is deleted and created again joins again.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and pfx_poll
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks enumerate exactly the ports and FDB entries it made

# conf FILE [PORT-SECTIONS...]: write a configuration: the [bridge] section
# then the given text (printf %b, one argument per line).
conf()
{
	local f=$1
	shift
	{
		echo "# $XT_TEST: bridge $BR"
		echo "[bridge]"
		echo "name = $BR"
		echo "ageing_time = 300"
		echo "listen = 127.0.0.1:$LISTEN"
		printf '%s\n' "$@"
	} >"$f"
}

# line_of FILE TEXT: number of the first line of FILE containing TEXT.
line_of()
{
	grep -nF -- "$2" "$1" | head -n 1 | cut -d: -f1
}

# check_bad NAME FILE LINE WORD: `xdpbrd -n -c FILE` fails, says nothing is
# OK, and its stderr names FILE:LINE, with WORD in the message.
check_bad()
{
	local name=$1 f=$2 line=$3 rc out err
	"$XDPBRD" -n -c "$f" >"$XT_TMP/n.out" 2>"$XT_TMP/n.err"
	rc=$?
	out=$(cat "$XT_TMP/n.out")
	err=$(cat "$XT_TMP/n.err")
	if [ "$rc" -ne 0 ] && ! grep -q "configuration OK" <<<"$out" &&
		grep -qF "$f:$line:" <<<"$err" && grep -qF -- "$4" <<<"$err"; then
		pass "xdpbrd -n: $name: rejected, stderr names $(basename "$f"):$line"
	else
		fail "xdpbrd -n: $name: rejected, stderr names $(basename "$f"):$line" \
			"expected: non-zero exit status, '$f:$line:' and '$4' on stderr" \
			"exit status: $rc" "stdout: $out" "stderr: $err" "file:" "$(cat -n "$f")"
	fi
}

# flag_is PORT FLAG VALUE
flag_is()
{
	pfx_link_is "$1" "$2" "$3"
}

xt_require
topo_up 4
LISTEN=$((20000 + ID))
SA=$(pfx_mac 1)		# static on h3's port at first, removed by the edit
SB=$(pfx_mac 2)		# static on h1's port, added by the edit
SC=$(pfx_mac 3)		# only in the bad file
CONF=$XT_TMP/xdpbrd.conf

# --- xdpbrd -n
good=$XT_TMP/good.conf
conf "$good" "" "[port ${PORT[1]}]" "" "[port ${PORT[2]}]" "isolated = on" "" \
	"[port ${PORT[3]}]" "static = $SA"
out=$("$XDPBRD" -n -c "$good" 2>&1)
rc=$?
check_eq "xdpbrd -n -c good.conf: exit status 0" 0 "$rc" "$out" "$(cat -n "$good")"
if grep -q "configuration OK" <<<"$out"; then
	pass "xdpbrd -n -c good.conf: says 'configuration OK'"
else
	fail "xdpbrd -n -c good.conf: says 'configuration OK'" "$out"
fi

f=$XT_TMP/unknown-key.conf
conf "$f" "" "[port ${PORT[1]}]" "learning = on" "colour = blue" "" "[port ${PORT[2]}]"
check_bad "unknown key" "$f" "$(line_of "$f" "colour = blue")" colour
f=$XT_TMP/bad-mac.conf
conf "$f" "" "[port ${PORT[1]}]" "" "[port ${PORT[3]}]" "static = $SA" \
	"static = 02:00:5e:00:53:zz" "flood = on"
check_bad "bad MAC in static" "$f" "$(line_of "$f" 02:00:5e:00:53:zz)" \
	"02:00:5e:00:53:zz"
f=$XT_TMP/dup-port.conf
conf "$f" "" "[port ${PORT[1]}]" "flood = on" "" "[port ${PORT[2]}]" "" \
	"[port ${PORT[1]}]" "learning = off"
# The error is on the second [port P1], not the first.
check_bad "duplicate [port] section" "$f" \
	"$(grep -nF "[port ${PORT[1]}]" "$f" | sed -n 2p | cut -d: -f1)" "${PORT[1]}"
f=$XT_TMP/bad-bool.conf
conf "$f" "" "[port ${PORT[1]}]" "" "[port ${PORT[2]}]" "hairpin = off" \
	"isolated = maybe" "flood = on"
check_bad "bad boolean" "$f" "$(line_of "$f" "isolated = maybe")" maybe
pfx_check_error "xdpbrd -n: a file that doesn't exist is rejected" "$XT_TMP/nofile.conf" \
	"$XDPBRD" -n -c "$XT_TMP/nofile.conf"

# --- the daemon from the file alone
cp "$good" "$CONF"
pfx_daemon_start 3 -c "$CONF" || abort "xdpbrd -c $CONF" "$XT_WHY"
json=$(pfx_link_json 2>&1)
check_jq "started from the file: bridge $BR with the file's 3 ports" "$json" \
	'(map(.ifname) | sort) == ([$p1, $p2, $p3] | sort) and all(.[]; .master == $br)' \
	--arg p1 "${PORT[1]}" --arg p2 "${PORT[2]}" --arg p3 "${PORT[3]}" --arg br "$BR"
check_jq "started from the file: ${PORT[2]} isolated, the others not" "$json" \
	'all(.[]; .isolated == (.ifname == $p2))' --arg p2 "${PORT[2]}"
check_jq "started from the file: the other flags are the defaults" "$json" \
	'all(.[]; .learning and .flood and .mcast_flood and .bcast_flood and
	 (.hairpin | not))'
check "started from the file: fdb show: $SA static on ${PORT[3]}" \
	pfx_fdb_has "$SA" "${PORT[3]}" static
check "started from the file: ping h1 -> h3" hping 1 3
check "started from the file: h4's port is not in the bridge" pfx_unlisted "${PORT[4]}"

# --- edit: a flag changed, a static added, a static removed
conf "$CONF" "" "[port ${PORT[1]}]" "flood = off" "static = $SB" "" \
	"[port ${PORT[2]}]" "isolated = on" "" "[port ${PORT[3]}]"
check "xdpbrd -n accepts the edited file" "$XDPBRD" -n -c "$CONF"
check "SIGHUP" kill -HUP "$DAEMON_PID"
if pfx_poll 2 flag_is "${PORT[1]}" flood false; then
	pass "reload: flood off on ${PORT[1]} (within 2 s)"
else
	fail "reload: flood off on ${PORT[1]} (within 2 s)" "$(pfx_link_json 2>&1)" \
		"$(cat "$DAEMON_LOG")"
fi
if pfx_poll 2 pfx_fdb_has "$SB" "${PORT[1]}" static; then
	pass "reload: static $SB added on ${PORT[1]} (within 2 s)"
else
	fail "reload: static $SB added on ${PORT[1]} (within 2 s)" \
		"$("$XDPBR" -b "$BR" fdb show 2>&1)" "$(cat "$DAEMON_LOG")"
fi
if pfx_poll 2 pfx_fdb_lacks "$SA"; then
	pass "reload: static $SA removed (within 2 s)"
else
	fail "reload: static $SA removed (within 2 s)" \
		"$("$XDPBR" -b "$BR" fdb show 2>&1)" "$(cat "$DAEMON_LOG")"
fi
check "reload: ${PORT[2]} still isolated" flag_is "${PORT[2]}" isolated true
check "reload: ${PORT[1]} still learning" flag_is "${PORT[1]}" learning true
pfx_check_daemon "reload: the daemon runs"

# --- edit: a port added (h4's, learning off), a port removed (h3's)
conf "$CONF" "" "[port ${PORT[1]}]" "flood = off" "static = $SB" "" \
	"[port ${PORT[2]}]" "isolated = on" "" "[port ${PORT[4]}]" "learning = off"
# h4 sends all along (a broadcast from another MAC of its every 0.1 ms for
# 3 s): the port must never learn, not even for a moment after it joined.
# h1 watches for those broadcasts: that they crossed the bridge is what
# makes "not learned" mean something.
H4SRC=$(pfx_mac 20)
pfx_cap h4src 1 "ether src $H4SRC" 8 1 || fail "capture in h1 (frames from $H4SRC)" "$XT_WHY"
hexec 4 "$SENDFRAME" -c 20000 -i 100 e0 "$(eth_frame ff:ff:ff:ff:ff:ff "$H4SRC")" \
	>"$XT_TMP/h4send.out" 2>&1 &
H4SEND=$!
XT_PIDS+=("$H4SEND")
check "SIGHUP (ports changed)" kill -HUP "$DAEMON_PID"
if pfx_poll 2 pfx_link_is "${PORT[4]}" "$DP_KEY" "$DP_VAL"; then
	pass "reload: ${PORT[4]} added, its datapath attached (within 2 s)"
else
	fail "reload: ${PORT[4]} added, its datapath attached (within 2 s)" "$(pfx_link_json 2>&1)" \
		"$(cat "$DAEMON_LOG")"
fi
check "reload: ${PORT[4]} has learning off" flag_is "${PORT[4]}" learning false
if pfx_poll 2 pfx_unlisted "${PORT[3]}"; then
	pass "reload: ${PORT[3]} removed from link show (within 2 s)"
else
	fail "reload: ${PORT[3]} removed from link show (within 2 s)" "$(pfx_link_json 2>&1)" \
		"$(cat "$DAEMON_LOG")"
fi
check_eq "reload: no XDP program left on ${PORT[3]}" null "$(port_xdp "${PORT[3]}")"
check "reload: ping h4 -> h1 (within 3 s)" pfx_poll 3 hping 4 1
check_fail "reload: ping h3 -> h1 fails" hping 3 1
check_eq "reload: fdb show: no entry on ${PORT[3]}" 0 "$(pfx_fdb_count "${PORT[3]}" 2>&1)" \
	"$("$XDPBR" -b "$BR" fdb show 2>&1)"
wait "$H4SEND"
n=$(pfx_cap_n h4src)
if [[ $n =~ ^[0-9]+$ ]] && ((n >= 1)); then
	pass "reload: h4's broadcasts from $H4SRC crossed the bridge to h1 (control)"
else
	fail "reload: h4's broadcasts from $H4SRC crossed the bridge to h1 (control)" \
		"$(cap_show h4src)"
fi
json=$("$XDPBR" -b "$BR" -j fdb show 2>&1)
check_jq "reload: fdb show: h4's MAC not learned (learning off), h1's is (control)" "$json" \
	'any(.[]; (.mac | ascii_downcase) == $m1) and all(.[]; (.mac | ascii_downcase) != $m)' \
	--arg m "${MAC[4]}" --arg m1 "${MAC[1]}"
check_jq "reload: fdb show: $H4SRC, sent from h4 while its port joined, not learned" \
	"$json" 'length > 0 and all(.[]; (.mac | ascii_downcase) != $m)' --arg m "$H4SRC"

# --- a bad file: rejected, FILE:LINE on stderr, nothing of it applied
conf "$CONF" "" "[port ${PORT[1]}]" "flood = on" "static = $SB" "static = $SC" "" \
	"[port ${PORT[2]}]" "isolated = off" "learning = perhaps" "" "[port ${PORT[4]}]"
bad_line=$(line_of "$CONF" "learning = perhaps")
log_lines=$(wc -l <"$DAEMON_LOG")
check "SIGHUP (bad file)" kill -HUP "$DAEMON_PID"
# new_log_has TEXT: the daemon's stderr got TEXT since the last SIGHUP
new_log_has()
{
	tail -n "+$((log_lines + 1))" "$DAEMON_LOG" | grep -qF -- "$1"
}
if pfx_poll 3 new_log_has "$CONF:$bad_line:"; then
	pass "bad file: xdpbrd's stderr names $(basename "$CONF"):$bad_line"
else
	fail "bad file: xdpbrd's stderr names $CONF:$bad_line (within 3 s)" \
		"stderr since the SIGHUP:" "$(tail -n "+$((log_lines + 1))" "$DAEMON_LOG")"
fi
sleep 0.5	# a reload done in spite of the error would be visible by now
pfx_check_daemon "bad file: the daemon keeps running"
check "bad file: ${PORT[1]} still has flood off" flag_is "${PORT[1]}" flood false
check "bad file: ${PORT[2]} still isolated" flag_is "${PORT[2]}" isolated true
check "bad file: ${PORT[2]} still learning" flag_is "${PORT[2]}" learning true
check "bad file: ${PORT[4]} still has learning off" flag_is "${PORT[4]}" learning false
check "bad file: $SC not added" pfx_fdb_lacks "$SC"
check "bad file: $SB still static on ${PORT[1]}" pfx_fdb_has "$SB" "${PORT[1]}" static
check_jq "bad file: the ports are unchanged" "$(pfx_link_json 2>&1)" \
	'(map(.ifname) | sort) == ([$p1, $p2, $p4] | sort)' \
	--arg p1 "${PORT[1]}" --arg p2 "${PORT[2]}" --arg p4 "${PORT[4]}"
check "bad file: ping h4 -> h1 still works" hping 4 1

# --- the good file back (flood on again for h1's port)
conf "$CONF" "" "[port ${PORT[1]}]" "flood = on" "static = $SB" "" \
	"[port ${PORT[2]}]" "isolated = on" "" "[port ${PORT[4]}]" "learning = off"
check "SIGHUP (good file again)" kill -HUP "$DAEMON_PID"
if pfx_poll 2 flag_is "${PORT[1]}" flood true; then
	pass "good file again: flood back on on ${PORT[1]} (within 2 s)"
else
	fail "good file again: flood back on on ${PORT[1]} (within 2 s)" \
		"$(pfx_link_json 2>&1)" "$(cat "$DAEMON_LOG")"
fi
check "good file again: $SB still static on ${PORT[1]}" pfx_fdb_has "$SB" "${PORT[1]}" static
check "good file again: ping h1 -> h4" hping 1 4

# --- a port of the file deleted and created again joins again, with its
# flags from the file.
check "ip link del ${PORT[4]}" ip link del dev "${PORT[4]}"
if pfx_poll 3 pfx_unlisted "${PORT[4]}"; then
	pass "${PORT[4]} deleted: gone from link show"
else
	fail "${PORT[4]} deleted: gone from link show (within 3 s)" "$(pfx_link_json 2>&1)"
fi
pfx_check_daemon "${PORT[4]} deleted: the daemon keeps running"
check "recreate ${PORT[4]} (veth to h4)" pfx_host_relink 4
if pfx_poll 5 pfx_link_is "${PORT[4]}" "$DP_KEY" "$DP_VAL"; then
	pass "${PORT[4]} recreated: it joins again, its datapath attached"
else
	fail "${PORT[4]} recreated: it joins again, its datapath attached (within 5 s)" \
		"$(pfx_link_json 2>&1)" "$(cat "$DAEMON_LOG")"
fi
check "${PORT[4]} recreated: learning off, from the file" flag_is "${PORT[4]}" learning false
check "${PORT[4]} recreated: ping h4 -> h1 (within 5 s)" pfx_poll 5 hping 4 1

log=$DAEMON_LOG
if daemon_stop TERM; then
	check_eq "SIGTERM: xdpbrd exits 0" 0 "$DAEMON_RC" "$(cat "$log")"
else
	fail "SIGTERM: xdpbrd exits within 10 s" "$(cat "$log")"
fi

finish

#!/usr/bin/env bash
# datapaths: auto
# Interface names with bytes outside printable ASCII. The kernel allows any
# byte in a name but '/', ':' and whitespace, so a port may be called
# "xtN<01><ff>" (a control character and a byte that is not UTF-8) or
# "xtNé" (valid UTF-8). Every output shows the first as "xtN\x01\xff" and
# the second as it is: the CLI's text (link, fdb, stats, vlan), its JSON,
# the HTTP /stats, /fdb and /metrics, the event stream and the daemon's
# log. No output carries a control character, and every JSON document is
# valid UTF-8 (JSON must be), which it was not: json-c writes bytes >= 0x80
# as they are.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks enumerate exactly the ports it made

# clean TEXT: valid UTF-8 without control characters but newlines.
clean()
{
	iconv -f UTF-8 -t UTF-8 <<<"$1" >/dev/null 2>&1 &&
		! tr -d '\n' <<<"$1" | LC_ALL=C grep -q '[[:cntrl:]]'
}

# check_text NAME TEXT WORD...: TEXT is clean and holds each WORD.
check_text()
{
	local name=$1 text=$2 w bad=
	shift 2
	clean "$text" || bad+="control characters or invalid UTF-8; "
	for w in "$@"; do
		grep -qF -- "$w" <<<"$text" || bad+="no '$w'; "
	done
	if [ -n "$text" ] && [ -z "$bad" ]; then
		pass "$name"
	else
		fail "$name" "${bad:-no output}" "$(od -c <<<"$text" | head -n 20)"
	fi
}

# check_json NAME JSON FILTER [JQ-ARG...]: JSON is clean and FILTER on it
# is true.
check_json()
{
	local name=$1 json=$2
	shift 2
	if clean "$json"; then
		check_jq "$name" "$json" "$@"
	else
		fail "$name" "not valid UTF-8, or control characters" \
			"$(od -c <<<"$json" | head -n 20)"
	fi
}

xt_require
xt_need iconv:libc-bin promtool:prometheus
topo_up 3
# h2's and h3's ports renamed (down, as renaming needs)
ODD="xt$ID"$'\x01\xff'			# a control character, not UTF-8
ODD_SHOWN="xt$ID"'\x01\xff'		# as it is shown: \x01\xff, in ASCII
UTF="xt$ID"$'\xc3\xa9'			# "xtNé": valid UTF-8, shown as it is
for i in 2 3; do
	new=$ODD
	[ "$i" = 3 ] && new=$UTF
	{
		ip link set dev "${PORT[i]}" down &&
		ip link set dev "${PORT[i]}" name "$new" &&
		ip link set dev "$new" up
	} || abort "rename ${PORT[i]}"
	PORT[i]=$new
	PORTS[i - 1]=$new
done
P1=${PORT[1]}

obs_daemon_http || abort "xdpbrd start" "$XT_WHY"
check "ping h1 -> h2 (on $ODD_SHOWN)" hping 1 2
check "ping h1 -> h3 (on $UTF)" hping 1 3

# --- the CLI's text
check_text "link show: the names escaped" "$("$XDPBR" -b "$BR" link show 2>&1)" \
	"$ODD_SHOWN: " "$UTF: "
check_text "fdb show: dev $ODD_SHOWN, dev $UTF" "$("$XDPBR" -b "$BR" fdb show 2>&1)" \
	"${MAC[2]} dev $ODD_SHOWN " "${MAC[3]} dev $UTF "
check_text "stats: the names escaped" "$("$XDPBR" -b "$BR" stats 2>&1)" "$ODD_SHOWN" "$UTF"
check_text "vlan show: the names escaped" "$("$XDPBR" -b "$BR" vlan show 2>&1)" \
	"$ODD_SHOWN" "$UTF"

# --- the CLI's JSON
names='([$p1, $odd, $utf] | sort)'
check_json "link show -j: the names escaped" "$("$XDPBR" -b "$BR" -j link show 2>&1)" \
	"(map(.ifname) | sort) == $names" --arg p1 "$P1" --arg odd "$ODD_SHOWN" --arg utf "$UTF"
check_json "fdb show -j: h2 on $ODD_SHOWN, h3 on $UTF" "$("$XDPBR" -b "$BR" -j fdb show 2>&1)" \
	'any(.[]; .mac == $m2 and .ifname == $odd) and any(.[]; .mac == $m3 and .ifname == $utf)' \
	--arg m2 "${MAC[2]}" --arg m3 "${MAC[3]}" --arg odd "$ODD_SHOWN" --arg utf "$UTF"
check_json "stats -j: the names escaped" "$("$XDPBR" -b "$BR" -j stats 2>&1)" \
	"([.[] | select(.type == \"port\") | .ifname] | sort) == $names" \
	--arg p1 "$P1" --arg odd "$ODD_SHOWN" --arg utf "$UTF"
check_json "vlan show -j: the names escaped" "$("$XDPBR" -b "$BR" -j vlan show 2>&1)" \
	"(map(.ifname) | sort) == $names" --arg p1 "$P1" --arg odd "$ODD_SHOWN" --arg utf "$UTF"

# --- HTTP
check_json "GET /stats: the names escaped" "$(obs_get /stats 2>&1)" \
	"(.ports | map(.ifname) | sort) == $names" \
	--arg p1 "$P1" --arg odd "$ODD_SHOWN" --arg utf "$UTF"
check_json "GET /fdb: h2 on $ODD_SHOWN" "$(obs_get /fdb 2>&1)" \
	'any(.entries[]; .mac == $m2 and .ifname == $odd)' --arg m2 "${MAC[2]}" --arg odd "$ODD_SHOWN"
metrics=$(obs_get /metrics 2>&1)
check_text "GET /metrics: port labels escaped (the backslashes doubled in the label)" \
	"$metrics" "port=\"xt$ID\\\\x01\\\\xff\"" "port=\"$UTF\""
check "GET /metrics: promtool check metrics" \
	bash -c 'promtool check metrics <<<"$1"' sh "$metrics"

# --- the event stream and the log
obs_monitor_start mon -j monitor
check "fdb flush" "$XDPBR" -b "$BR" fdb flush
check "ping h2 -> h3 (both learned again)" hping 2 3
f='.event == "learn" and .ifname == $p'
check "monitor -j: a learn event on $ODD_SHOWN" \
	xt_poll 3 obs_event_seen mon "$f" --arg p "$ODD_SHOWN"
check "monitor -j: a learn event on $UTF" xt_poll 3 obs_event_seen mon "$f" --arg p "$UTF"
obs_monitor_stop mon
check_text "monitor -j: every line clean" "$(cat "$XT_TMP/mon.mon.out")" '"event"'
check "ping h1 -> h2 (h1 learned on $P1 again)" hping 1 2
check "a frame from h2 with h1's MAC (a move)" pfx_send 2 "${MAC[3]}" "${MAC[1]}"
log_poll "$DAEMON_LOG" "moved from" 3
check_text "xdpbrd's log: the move, names escaped" "$(cat "$DAEMON_LOG")" \
	"moved from $P1 to $ODD_SHOWN"

finish

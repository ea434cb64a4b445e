#!/usr/bin/env bash
# The counters, exactly, through all three ways of reading them: a known
# number of frames of every class goes through the bridge, and `xdpbr -j
# stats`, the HTTP endpoint's /stats and its /metrics must each show exactly
# the expected change of every counter on every port, agree with each other
# on every value, keep rx_packets == sum of the outcomes, and /metrics must
# pass `promtool check metrics`.
#
# Exact numbers need a bridge that sees only the test's frames: the hosts
# are made quiet (no IPv6, permanent ARP entries) before the daemon starts,
# the frames come from sendframe (EtherType 0x88b5, which no stack answers),
# and the figures are read once they have stopped changing.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check / xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks enumerate exactly the ports and FDB entries it made

xt_require
xt_need curl
xt_need promtool:prometheus
topo_up 3
hosts_quiet || abort "making the hosts quiet"
P1=${PORT[1]} P2=${PORT[2]} P3=${PORT[3]}
obs_daemon_http || abort "xdpbrd start with an HTTP endpoint" "$XT_WHY"

NAMES=$(obs_counter_names)
[ "$(jq length <<<"$NAMES")" -ge 20 ] ||
	abort "reading counter names from $XDPBR_H" "got: $NAMES"
OUTCOMES=$(obs_outcome_names)
check_jq "xdpbr.h: the outcome counters run from forwarded to drop_mtu" \
	"$OUTCOMES" '.[0] == "forwarded" and .[-1] == "drop_mtu" and
	 index(["flood_broadcast"]) != null and index(["flood_filtered"]) == null'


# The hosts were made quiet before the daemon attached; anything they had
# in flight is over after a moment. Start from an empty dynamic FDB, so that
# the learned counters are exact too.
obs_settled 5 || fail "the bridge is quiet before the test traffic" \
	"the counters still change: $SETTLED"
"$XDPBR" -b "$BR" fdb flush dynamic >/dev/null 2>&1
check_jq "no dynamic FDB entries before the test traffic" \
	"$(fdb_json 2>&1)" 'type == "array" and all(.[]; .state == "static")'

FAKE=$(obs_mac 1)		# static on P1: frames from h1 to it: same port
UNKNOWN=$(obs_mac 2)		# never seen: unknown unicast
BADSRC=03:00:03:$(printf '%02x:%02x' $((ID >> 8)) $((ID & 255))):01 # multicast bit
MCAST=01:00:5e:12:34:56		# IPv4 multicast, no group a host joined
LINKLOCAL=01:80:c2:00:00:0e	# LLDP's address: passed to the host
BCAST=ff:ff:ff:ff:ff:ff
check "fdb add $FAKE dev $P1 (static)" "$XDPBR" -b "$BR" fdb add "$FAKE" dev "$P1"

base=$(obs_cli_ports) || abort "reading the baseline counters" "$base"
base_rx=$(obs_host_rx)

# The traffic. Each learning step is awaited before the frames that
# depend on it (the datapath learns a little after sendframe returns).
sent=1
obs_send 2 1 "$BCAST" || sent=0			# h2 learned; P1, P3 +1 tx
xt_poll 3 fdb_has "${MAC[2]}" "$P2" || sent=0
obs_send 1 7 "$BCAST" || sent=0			# flood_broadcast
xt_poll 3 fdb_has "${MAC[1]}" "$P1" || sent=0
obs_send 1 5 "$MCAST" || sent=0			# flood_multicast
obs_send 1 4 "$UNKNOWN" || sent=0		# flood_unknown
obs_send 1 6 "${MAC[2]}" || sent=0		# forwarded to P2
obs_send 1 3 "$LINKLOCAL" || sent=0		# pass_linklocal
obs_send 1 2 "${MAC[2]}" "$BADSRC" || sent=0	# drop_bad_src
obs_send 1 2 "$FAKE" || sent=0			# drop_same_port
obs_send 3 3 "${MAC[1]}" || sent=0		# h3 learned; forwarded to P1
if [ $sent = 1 ]; then
	pass "sent the test frames (h2 and h1 learned on their ports)"
else
	fail "sent the test frames (h2 and h1 learned on their ports)" \
		"a sendframe failed or a host was not learned" "$(fdb_json 2>&1)"
fi

# The expected change of every counter on every port (absent: 0). Frames
# are 60 bytes. tx: P1 gets h2's broadcast and h3's 3; P2 gets h1's 16
# flooded and its 6 forwarded; P3 gets h1's 16 flooded and h2's broadcast.
EXPECT=$(jq -c -n --arg p1 "$P1" --arg p2 "$P2" --arg p3 "$P3" '{
	($p1): {rx_packets: 29, rx_bytes: 1740, tx_packets: 4, tx_bytes: 240,
		flood_broadcast: 7, flood_multicast: 5, flood_unknown: 4,
		forwarded: 6, pass_linklocal: 3, drop_bad_src: 2,
		drop_same_port: 2, learned: 1},
	($p2): {rx_packets: 1, rx_bytes: 60, tx_packets: 22, tx_bytes: 1320,
		flood_broadcast: 1, learned: 1},
	($p3): {rx_packets: 3, rx_bytes: 180, tx_packets: 17, tx_bytes: 1020,
		forwarded: 3, learned: 1}}')

# deltas BASE NOW: per port, every counter of NOW minus BASE.
deltas()
{
	jq -c -n --argjson a "$1" --argjson b "$2" --argjson n "$NAMES" '
		[$b[] | .ifname as $p | . as $o
		 | ($a[] | select(.ifname == $p)) as $z
		 | {ifname: $p} + ([$n[] | {key: ., value: ($o[.] - $z[.])}]
				   | from_entries)]'
}

# mismatches DELTAS: the counters whose change is not the expected one.
mismatches()
{
	jq -c -n --argjson d "$1" --argjson e "$EXPECT" --argjson n "$NAMES" '
		[$d[] | .ifname as $p | . as $o | $n[]
		 | select($o[.] != ($e[$p][.] // 0))
		 | "\($p) \(.): expected +\($e[$p][.] // 0), got +\($o[.])"]'
}

# Wait until every port shows its expected rx and tx, and the counters
# have settled: a late frame would show up as a mismatch, not be missed.
reached()
{
	local now m
	now=$(obs_cli_ports) || return 1
	m=$(mismatches "$(deltas "$base" "$now")") || return 1
	jq_true "$m" 'map(select(test(" (rx|tx)_packets:"))) | length == 0'
}
xt_poll 3 reached
obs_settled 3 || true

# One consistent reading of the three: the CLI before and after both
# documents must be the same (nothing counted in between).
for _ in 1 2 3; do
	cli=$(obs_cli_ports)
	stats=$(obs_get /stats 2>&1)
	metrics=$(obs_get /metrics 2>&1)
	cli2=$(obs_cli_ports)
	[ "$cli" = "$cli2" ] && break
	sleep 0.5
done
check_same_json "the counters did not change while the three were read" "$cli" "$cli2"
printf '%s\n' "$metrics" >"$XT_TMP/metrics.txt"

got=$(deltas "$base" "$cli")
check_jq "xdpbr -j stats: every counter on every port changed exactly as expected" \
	"$(mismatches "$got")" 'length == 0'
for i in 1 2 3; do
	check_jq "xdpbr -j stats: ${PORT[i]} (h$i) shows each change it expects" "$got" \
		'(.[] | select(.ifname == $p)) as $o |
		 all($e[$p] | to_entries[]; $o[.key] == .value)' \
		--arg p "${PORT[i]}" --argjson e "$EXPECT"
done

# The copies counted in tx_packets really arrived: each host's e0 received
# exactly what its port transmitted.
check_jq "each host received exactly its port's tx_packets (the delivered copies)" \
	"$(obs_host_rx)" 'to_entries | all(.[]; .value - $b[.key] == $e[.key].tx_packets)' \
	--argjson b "$base_rx" --argjson e "$EXPECT"

cli_c=$(obs_only_counters "$NAMES" <<<"$cli")
stats_p=$(obs_stats_ports <<<"$stats" 2>&1)
if check_jq "/stats: parses, with ports[].counters for the 3 ports" "$stats" \
	'.schema_version == 1 and (.ports | length) == 3 and
	 all(.ports[]; (.counters | type) == "object")'; then
	check_eq "/stats: every counter of every port equals xdpbr -j stats" \
		"$cli_c" "$(obs_only_counters "$NAMES" <<<"$stats_p")"
fi
metrics_p=$(obs_metrics_ports <"$XT_TMP/metrics.txt" 2>&1)
if check_jq "/metrics: per-port samples for the 3 ports" "$metrics_p" \
	'type == "array" and length == 3'; then
	check_eq "/metrics: every counter of every port equals xdpbr -j stats" \
		"$cli_c" "$(obs_only_counters "$NAMES" <<<"$metrics_p")"
	check_jq "/metrics: one sample per counter and port, no more" "$metrics_p" \
		'all(.[]; ._samples == ($n | length))' --argjson n "$NAMES"
fi

# The same numbers in the other shapes: the drops objects and the bridge
# element / document.
for src in cli stats; do
	if [ $src = cli ]; then json=$cli; else json=$stats_p; fi
	check_jq "$src: drops.<reason> == drop_<reason> for every drop counter" \
		"$json" 'all(.[]; . as $o | ($o.drops | type) == "object" and
		  ([$n[] | select(startswith("drop_"))] | sort) ==
		  ($o.drops | keys | map("drop_" + .) | sort) and
		  all($o.drops | to_entries[]; .value == $o["drop_" + .key]))' \
		--argjson n "$NAMES"
done
bridge=$("$XDPBR" -b "$BR" -j stats 2>&1 | jq -c '.[] | select(.type == "bridge")')
check_jq "xdpbr -j stats: bridge learned 3, moved 0, 3 dynamic entries" "$bridge" \
	'.learned == 3 and .moved == 0 and .fdb.dynamic_live == 3'
check_jq "/stats: bridge learned 3, moved 0, 3 dynamic entries" "$stats" \
	'.bridge.name == $br and .bridge.learned == 3 and .bridge.moved == 0 and
	 .bridge.fdb.dynamic_live == 3' --arg br "$BR"

# The accounting invariant, in each of the three.
inv='all(.[]; . as $o | .rx_packets > 0 and
	 .rx_packets == ([$out[] | $o[.]] | add))'
check_jq "xdpbr -j stats: rx_packets == sum of the outcomes on every port" \
	"$cli" "$inv" --argjson out "$OUTCOMES"
check_jq "/stats: rx_packets == sum of the outcomes on every port" \
	"$stats_p" "$inv" --argjson out "$OUTCOMES"
check_jq "/metrics: rx_packets == sum of the outcomes on every port" \
	"$metrics_p" "$inv" --argjson out "$OUTCOMES"

check "promtool check metrics passes on /metrics" \
	promtool check metrics <"$XT_TMP/metrics.txt"
for fam in rx_packets tx_packets forwarded flood_broadcast dropped; do
	if grep -qE "^# TYPE xdpbr_${fam}_total counter$" "$XT_TMP/metrics.txt"; then
		pass "/metrics: xdpbr_${fam}_total is typed counter"
	else
		fail "/metrics: xdpbr_${fam}_total is typed counter" \
			"$(grep "xdpbr_${fam}_total" "$XT_TMP/metrics.txt" | head -5)"
	fi
done

daemon_stop || fail "xdpbrd exits on SIGTERM" "status: $DAEMON_RC" "$(cat "$DAEMON_LOG")"
check_fail "xdpbrd removed its event socket" test -e "/run/xdpbr/$BR.sock"
finish

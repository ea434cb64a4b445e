#!/usr/bin/env bash
# FDB ageing: dynamic entries older than the ageing time disappear from the
# FDB (the daemon sweeps them) and, above all, the datapath stops using them
# (unicast to an aged-out MAC is flooded again), also while no daemon runs.
# Ageing time 0 means never. Set live with `xdpbr bridge set ageing_time`
# and at start with `xdpbrd -a`.
#
# The hosts are kept quiet (no IPv6, permanent ARP entries) so that nothing
# but the test's own frames refreshes the FDB. Probes are frames h1 -> h2's
# MAC with a local experimental EtherType (0x88b5 while h2 is still known,
# 0x88b6 once it should have aged out); h2's capture is the control, h3's
# capture tells forwarded (0) from flooded (1).
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check / xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

AGEING=2

# probe_start KEY PROTO [SECONDS]: capture PROTO frames from h1 in h2 and h3.
probe_start()
{
	local i
	for i in 2 3; do
		cap_start "$1$i" "$i" "ether proto 0x$2 and ether src ${MAC[1]}" "${3:-4}" 1 ||
			fail "$1: capture in h$i" "$XT_WHY"
	done
}

# probe_send PROTO: one frame h1 -> h2's MAC.
probe_send()
{
	hexec 1 "$SENDFRAME" e0 "$(eth_frame "${MAC[2]}" "${MAC[1]}" "$1")"
}

# probe_check KEY LABEL FLOODED: h2 saw the probe; h3 saw it iff FLOODED=1.
probe_check()
{
	local key=$1 label=$2 flooded=$3 n2 n3 what
	n2=$(cap_wait "${key}2")
	n3=$(cap_wait "${key}3")
	check_eq "$label: unicast h1 -> h2 reaches h2 (control)" 1 "$n2" \
		"$(cap_show "${key}2")"
	if [ "$flooded" = 1 ]; then
		what="is flooded: h3 sees it"
	else
		what="is forwarded: h3 does not see it"
	fi
	check_eq "$label: unicast h1 -> h2 $what" "$flooded" "$n3" \
		"$(cap_show "${key}3")" "fdb: $(fdb_json 2>&1)"
}

# both_gone: neither h1 nor h2 is in the FDB.
both_gone()
{
	fdb_lacks "${MAC[1]}" && fdb_lacks "${MAC[2]}"
}

# learn_h1_h2 LABEL: flush the dynamic entries, learn h1 and h2 with one
# ping. Sets T0 to the time of the ping (s.ns).
learn_h1_h2()
{
	local label=$1 out
	out=$("$XDPBR" -b "$BR" fdb flush dynamic 2>&1) ||
		fail "$label: fdb flush dynamic" "$out"
	T0=$(date +%s.%N)
	out=$(hping 1 2 2>&1) || fail "$label: ping h1 -> h2 to learn" "$out"
}

# elapsed T0: seconds since T0 (s.ns), with 2 decimals.
elapsed()
{
	echo "$(date +%s.%N) $1" | awk '{ printf "%.2f", $1 - $2 }'
}

# ageing_cycle LABEL: with the ageing time at $AGEING s and a daemon
# running, h1 and h2 are learned, forwarded to, then swept and flooded to.
ageing_cycle()
{
	local label=$1 t0 t p1 before after
	p1=${PORT[1]}

	probe_start "pre" 88b5
	learn_h1_h2 "$label"
	t0=$T0
	before=$(port_counter "$p1" forwarded)
	probe_send 88b5
	check "$label: h1 on $p1 right after learning" fdb_has "${MAC[1]}" "$p1" ""
	check "$label: h2 on ${PORT[2]} right after learning" \
		fdb_has "${MAC[2]}" "${PORT[2]}" ""
	after=$(port_counter "$p1" forwarded)
	probe_check pre "$label, fresh entries" 0
	check_eq "$label: forwarded on $p1 counts the fresh unicast" \
		$((before + 1)) "$after"

	if xt_poll 8 both_gone; then
		t=$(elapsed "$t0")
		pass "$label: h1 and h2 swept from the FDB (after $t s)"
		if awk -v t="$t" -v a="$AGEING" 'BEGIN { exit !(t >= a - 0.2) }'; then
			pass "$label: not swept before the ageing time ($t s >= $AGEING s)"
		else
			fail "$label: not swept before the ageing time" \
				"gone after $t s, ageing time $AGEING s"
		fi
	else
		fail "$label: h1 and h2 swept from the FDB within 8 s" \
			"fdb: $(fdb_json 2>&1)" "daemon log: $(cat "$DAEMON_LOG")"
	fi

	probe_start "post" 88b6
	before=$(port_counter "$p1" flood_unknown)
	probe_send 88b6
	after=$(port_counter "$p1" flood_unknown)
	probe_check post "$label, aged out" 1
	check_eq "$label: flood_unknown on $p1 counts the unicast to aged-out h2" \
		$((before + 1)) "$after"
}

xt_require
topo_up 3
hosts_quiet || abort "hosts_quiet"
daemon_start || abort "xdpbrd start" "$XT_WHY"

check_eq "bridge show: default ageing_time 300" 300 "$(bridge_field ageing_time 2>&1)"

# --- live: xdpbr bridge set ageing_time
check "bridge set ageing_time $AGEING" "$XDPBR" -b "$BR" bridge set ageing_time "$AGEING"
check_eq "bridge show: ageing_time $AGEING" "$AGEING" "$(bridge_field ageing_time 2>&1)"
ageing_cycle "bridge set ageing_time $AGEING"

# --- ageing_time 0: never
check "bridge set ageing_time 0" "$XDPBR" -b "$BR" bridge set ageing_time 0
check_eq "bridge show: ageing_time 0" 0 "$(bridge_field ageing_time 2>&1)"
probe_start "never" 88b5 8	# outlasts the learning and the 3.5 s wait
learn_h1_h2 "ageing_time 0"
sleep 3.5	# longer than the ageing time above: nothing may change
check "ageing_time 0: h1 still on ${PORT[1]} after 3.5 s" \
	fdb_has "${MAC[1]}" "${PORT[1]}" ""
check "ageing_time 0: h2 still on ${PORT[2]} after 3.5 s" \
	fdb_has "${MAC[2]}" "${PORT[2]}" ""
probe_send 88b5
probe_check never "ageing_time 0, after 3.5 s" 0

# --- at start: xdpbrd -a
daemon_stop || fail "xdpbrd stops on SIGTERM" "$(cat "$DAEMON_LOG")"
daemon_start -a "$AGEING" || abort "xdpbrd -a $AGEING start" "$XT_WHY"
check_eq "xdpbrd -a $AGEING: bridge show ageing_time $AGEING" "$AGEING" \
	"$(bridge_field ageing_time 2>&1)"
ageing_cycle "xdpbrd -a $AGEING"

# --- no daemon: the datapath alone stops using stale entries
probe_start "nod" 88b5
learn_h1_h2 "no daemon"
t0=$T0
daemon_stop KILL
check_eq "xdpbrd killed with SIGKILL" 137 "$DAEMON_RC"
probe_send 88b5
probe_check nod "no daemon, fresh entries" 0
# Nothing sweeps now: wait until the entries are older than the ageing time
# (plus the 1 s granularity of last_seen).
sleep "$(echo "$t0 $(date +%s.%N) $AGEING" |
	awk '{ w = $1 + $3 + 1.2 - $2; printf "%.2f", (w > 0 ? w : 0) }')"
check "no daemon, aged: fdb show still lists h2 (nobody swept it)" \
	fdb_has "${MAC[2]}" "${PORT[2]}" ""
probe_start "nodpost" 88b6
probe_send 88b6
probe_check nodpost "no daemon, aged" 1

finish

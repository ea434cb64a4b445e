#!/usr/bin/env bash
# Faults no real failure can be timed to, injected with XDPBR_FAULT (lib/fault.h):
#
#   a. a reload fails to apply a port's section (fault apply_port): said
#      in the log, and the next reload of the same file applies it;
#   b. `xdpbr link add` crashes in the middle of ctl_port_write (fault
#      ctl_port_write: abort after the slot's writes, before the ports
#      hash's): the slot it left is freed by the next daemon start (or the
#      next add), the fast flood is ready again, and the interface added
#      again gets that slot back.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and xt_poll
. "$(dirname "$0")/lib.sh"

xt_require
topo_up 3
CONF=$XT_TMP/xdpbrd.conf

# conf LINES...: the file with ports 1 and 2, and LINES in port 1's section.
conf()
{
	{
		echo "[bridge]"
		echo "name = $BR"
		echo "listen = none"
		echo "[port ${PORT[1]}]"
		printf '%s\n' "$@"
		echo "[port ${PORT[2]}]"
	} >"$CONF"
}

# slot_holding IFINDEX: the slots whose xdpbr_slotif names IFINDEX.
slot_holding()
{
	bpftool -j map dump pinned "$PIN_DIR/xdpbr_slotif" |
		jq -r --argjson i "$1" '.[] | select(.formatted.value == $i) | .formatted.key'
}

# fast_ready: xdpbr_flood_fast says ready.
fast_ready()
{
	json_is object '.formatted.value.ready == 1' -- \
		bpftool -j map lookup pinned "$PIN_DIR/xdpbr_flood_fast" key 0 0 0 0 2>/dev/null
}

flood_is() { pfx_link_is "${PORT[1]}" flood "$1"; }

# ------------------------------------------------ a. a port not applied
conf
# the start applies ports 1 and 2 (passes 1, 2); the first reload port 1 (3)
export XDPBR_FAULT=apply_port@3
pfx_daemon_start 2 -c "$CONF" || abort "xdpbrd -c $CONF" "$XT_WHY"
unset XDPBR_FAULT
check "started: flood on on ${PORT[1]}" flood_is true
conf "flood = off"
kill -HUP "$DAEMON_PID"
check "reload 1 (apply fails): the log says so and that the next reload tries again" \
	log_poll "$DAEMON_LOG" "couldn't apply port ${PORT[1]}; the next reload tries again" 5
check "reload 1 (apply fails): flood still on on ${PORT[1]}" flood_is true
kill -HUP "$DAEMON_PID"
if xt_poll 3 flood_is false; then
	pass "reload 2 of the same file: ${PORT[1]} applied at last (flood off)"
else
	fail "reload 2 of the same file: ${PORT[1]} applied at last (flood off)" \
		"$(pfx_link_json "${PORT[1]}" 2>&1)" "$(cat "$DAEMON_LOG")"
fi
pfx_check_daemon "the daemon runs"

# ------------------------------------------------ b. a crash in ctl_port_write
if3=$(cat "/sys/class/net/${PORT[3]}/ifindex")
XDPBR_FAULT=ctl_port_write "$XDPBR" -b "$BR" link add dev "${PORT[3]}" master "$BR" >"$XT_TMP/add.out" 2>&1
rc=$?
check_eq "xdpbr link add with the fault aborts (SIGABRT)" 134 "$rc" "$(cat "$XT_TMP/add.out")"
orphan=$(slot_holding "$if3")
check "the crash left slot '${orphan}' naming ${PORT[3]}, which is no port" \
	test -n "$orphan" -a "$(pfx_link_field "${PORT[3]}" slot)" = null
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
pfx_daemon_start 2 -c "$CONF" || abort "xdpbrd restart" "$XT_WHY"
check "the restart freed it, and said so" \
	log_poll "$DAEMON_LOG" "freed 1 port slot.*crashed port write" 5
check_eq "no slot names ${PORT[3]} any more" "" "$(slot_holding "$if3")"
check "the fast flood is ready" xt_poll 5 fast_ready
check "xdpbr link add dev ${PORT[3]} master $BR" "$XDPBR" -b "$BR" link add dev "${PORT[3]}" master "$BR"
check_eq "${PORT[3]} got the freed slot back" "$orphan" "$(pfx_link_field "${PORT[3]}" slot)"
check "the fast flood is still ready" xt_poll 5 fast_ready
check "ping h1 -> h3" xt_poll 5 hping 1 3

finish

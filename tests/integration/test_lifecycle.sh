#!/usr/bin/env bash
# The daemon's life cycle: the pins while it runs, SIGTERM (and SIGINT,
# Ctrl-C in a terminal: xdpbrd(8) treats them alike) detaches every port
# and removes the pins, and --keep leaves the bridge forwarding.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check
. "$(dirname "$0")/lib.sh"

xt_require
topo_up 3

# --- SIGTERM: detach and remove the pins
daemon_start || abort "xdpbrd start" "$XT_WHY"
sleep 1
check "ping h1 -> h3 while running" hping 1 3
check "pin directory $PIN_DIR exists" test -d "$PIN_DIR"
check_eq "pin directory mode is 0700" 700 "$(stat -c %a "$PIN_DIR" 2>&1)"
check "the datapath is attached to every port" xdp_everywhere
log=$DAEMON_LOG
if daemon_stop TERM; then
	check_eq "SIGTERM: xdpbrd exits 0" 0 "$DAEMON_RC" "$(cat "$log")"
else
	fail "SIGTERM: xdpbrd exits within 10 s" "$(cat "$log")"
fi
check "SIGTERM: no XDP program left on any port" no_xdp_anywhere
check_fail "SIGTERM: $PIN_DIR is gone" test -e "$PIN_DIR"
check_fail "SIGTERM: h1 -> h3 no longer bridged" hping 1 3

# --- SIGINT: the same
daemon_start || abort "xdpbrd start (for SIGINT)" "$XT_WHY"
check "ping h1 -> h2 while running" xt_poll 5 hping 1 2
if daemon_stop INT; then
	check_eq "SIGINT: xdpbrd exits 0" 0 "$DAEMON_RC" "$(cat "$log")"
else
	fail "SIGINT: xdpbrd exits within 10 s" "$(cat "$log")"
fi
check "SIGINT: no XDP program left on any port" no_xdp_anywhere
check_fail "SIGINT: $PIN_DIR is gone" test -e "$PIN_DIR"
check_fail "SIGINT: h1 -> h2 no longer bridged" hping 1 2

# --- --keep: the bridge outlives the daemon
daemon_start --keep || abort "xdpbrd --keep start" "$XT_WHY"
sleep 1
check "--keep: ping h1 -> h2 while running" hping 1 2
if daemon_stop TERM; then
	check_eq "--keep: SIGTERM, xdpbrd exits 0" 0 "$DAEMON_RC" "$(cat "$log")"
else
	fail "--keep: SIGTERM, xdpbrd exits within 10 s" "$(cat "$log")"
fi
check "--keep: ping h1 -> h2 after the daemon exited" hping 1 2
check "--keep: ping h3 -> h2 after the daemon exited (IPv6)" hping 3 2 -6
check "--keep: the datapath still on every port" xdp_everywhere
check "--keep: pins remain in $PIN_DIR" test -e "$PIN_DIR/xdpbr_fdb"
for i in 1 2 3; do
	check "--keep: xdpbr fdb show still has h$i on ${PORT[i]}" fdb_has "${MAC[i]}" "${PORT[i]}"
done

# Clean up by hand, as a user would.
for p in "${PORTS[@]}"; do
	ip link set dev "$p" xdp off
	ip link set dev "$p" xdpgeneric off
	tc filter del dev "$p" ingress pref 30818 handle 0x7862 bpf 2>/dev/null
done
rm -rf "$PIN_DIR"
check "--keep: detached by hand" no_xdp_anywhere
check_fail "--keep: h1 -> h2 no longer bridged" hping 1 2

finish

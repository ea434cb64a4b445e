#!/usr/bin/env bash
# datapaths: xdp
# The veth trap: frames XDP-redirected into a veth port are dropped, silently,
# unless the peer runs NAPI (GRO on, or an XDP program of its own). xdpbrd
# must warn about such a port, naming it and the fix, and only about it.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
XT_DATAPATH=xdp
. "$(dirname "$0")/lib.sh"

# gro_lines: the lines of the daemon's log about GRO.
gro_lines()
{
	grep -iE '\bgro\b|ethtool -K' "$DAEMON_LOG"
}

xt_require
topo_up 3
P2=${PORT[2]}

# --- GRO off on h2's e0, nothing else there: a warning about P2
hexec 2 ethtool -K e0 gro off
daemon_start || abort "xdpbrd start" "$XT_WHY"
sleep 0.5
lines=$(gro_lines)
if grep -qw -- "$P2" <<<"$lines"; then
	pass "GRO off behind $P2: warning names $P2"
else
	fail "GRO off behind $P2: warning names $P2" "log:" "$(cat "$DAEMON_LOG")"
fi
if grep -qE 'ethtool -K .*gro on' <<<"$lines"; then
	pass "GRO off behind $P2: warning suggests 'ethtool -K ... gro on'"
else
	fail "GRO off behind $P2: warning suggests 'ethtool -K ... gro on'" \
		"log:" "$(cat "$DAEMON_LOG")"
fi
for i in 1 3; do
	if grep -qw -- "${PORT[i]}" <<<"$lines"; then
		fail "no GRO warning for ${PORT[i]} (GRO on)" "$lines"
	else
		pass "no GRO warning for ${PORT[i]} (GRO on)"
	fi
done
daemon_stop || fail "xdpbrd stops on SIGTERM" "$(cat "$DAEMON_LOG")"

# --- GRO on everywhere: no warning at all (e0 is up, so this takes effect)
hexec 2 ethtool -K e0 gro on
daemon_start || abort "xdpbrd restart" "$XT_WHY"
sleep 0.5
check_eq "GRO on everywhere: no GRO warning" "" "$(gro_lines)" \
	"log:" "$(cat "$DAEMON_LOG")"
check "GRO on everywhere: ping h1 -> h2" hping 1 2
daemon_stop || fail "xdpbrd stops on SIGTERM" "$(cat "$DAEMON_LOG")"

# --- GRO off but an XDP program on h2's e0: NAPI runs, no warning
# Transmit checksum offload on a peer: TCP/UDP would arrive unfinished.
hexec 3 ethtool -K e0 tx on
daemon_start || abort "xdpbrd restart" "$XT_WHY"
sleep 0.5
csum=$(grep -i 'checksum offload' "$DAEMON_LOG")
if grep -qw -- "${PORT[3]}" <<<"$csum" && grep -q 'ethtool -K e0 tx off' <<<"$csum"; then
	pass "tx checksum offload behind ${PORT[3]}: warning names it and says 'ethtool -K e0 tx off'"
else
	fail "tx checksum offload behind ${PORT[3]}: warning names it and says 'ethtool -K e0 tx off'" \
		"log:" "$(cat "$DAEMON_LOG")"
fi
if grep -qw -- "${PORT[1]}" <<<"$csum"; then
	fail "no checksum warning for ${PORT[1]} (tx offload off)" "$csum"
else
	pass "no checksum warning for ${PORT[1]} (tx offload off)"
fi
daemon_stop || fail "xdpbrd stops on SIGTERM" "$(cat "$DAEMON_LOG")"
hexec 3 ethtool -K e0 tx off

pass_prog=$XT_TMP/pass_xdp
cat >"$pass_prog.c" <<'EOF'
#include <linux/bpf.h>
__attribute__((section("xdp"), used)) int host_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}
char _license[] __attribute__((section("license"), used)) = "GPL";
EOF
hexec 2 ethtool -K e0 gro off
if out=$(clang -O2 -g -target bpf -I"/usr/include/$(gcc -print-multiarch)" \
	-c "$pass_prog.c" -o "$pass_prog.o" 2>&1) &&
	out=$(hexec 2 ip link set dev e0 xdp obj "$pass_prog.o" sec xdp 2>&1); then
	daemon_start || abort "xdpbrd restart" "$XT_WHY"
	sleep 0.5
	check_eq "GRO off, XDP on the peer: no GRO warning" "" "$(gro_lines)" \
		"log:" "$(cat "$DAEMON_LOG")"
	check "GRO off, XDP on the peer: ping h1 -> h2" hping 1 2
else
	fail "attach an XDP_PASS program to h2's e0" "$out"
fi

finish

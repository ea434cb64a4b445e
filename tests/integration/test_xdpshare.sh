#!/usr/bin/env bash
# datapaths: xdp
# Sharing ports with other XDP programs (xdpbrd --xdp-share, libxdp's
# dispatcher) on a kernel that refuses freplace programs
# (BPF_PROG_TYPE_EXT), as this machine's does: libxdp can't build its
# dispatcher, and
#   - xdpbrd says so, naming the kernel feature, and runs free ports
#     alone (exclusive: `link show` says xdp_attach "exclusive"), still
#     forwarding between them;
#   - a port where xdp-filter runs already is refused, saying why, and
#     xdp-filter keeps running there untouched, nothing of ours left on
#     any port;
#   - without --xdp-share, the refusal points at --xdp-share;
#   - the configuration keys xdp_share ([bridge] and [port X]) parse, and
#     a bad value is an error with its line.
# On a kernel that runs freplace programs this suite skips: the dispatcher
# itself is tested in the QEMU lane (tests/vm/guest_xdpshare.sh).
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
XT_DATAPATH=xdp
. "$(dirname "$0")/lib.sh"

FREPLACE_MSG='refuses freplace programs \(BPF_PROG_TYPE_EXT'

# filter_id: the id of xdp-filter's program on PORT[1] (empty if none).
filter_id()
{
	ip -j link show dev "${PORT[1]}" |
		jq -r '.[0].xdp.prog | select(.name == "xdpfilt_alw_all") | .id // empty'
}

# link_attach PORT: `xdpbr link show -j`'s xdp_mode and xdp_attach of PORT.
link_attach()
{
	json_of array "$XDPBR" -b "$BR" -j link show dev "$1" |
		jq -r '.[0] | "\(.xdp_mode) \(.xdp_attach)"'
}

xt_require
xt_need xdp-filter:xdp-tools xdp-loader:xdp-tools
topo_up 3
ALL_PORTS=("${PORTS[@]}")

# --- free ports, sharing asked for: said, and run alone
PORTS=("${PORT[2]}" "${PORT[3]}")
daemon_start --xdp-share || abort "xdpbrd --xdp-share on free ports" "$XT_WHY"
if ! grep -qE "$FREPLACE_MSG" "$DAEMON_LOG"; then
	grep -q "libxdp's dispatcher" "$DAEMON_LOG" &&
		skip "this kernel runs libxdp's dispatcher: tested in the QEMU lane instead"
	fail "xdpbrd says why the ports can't be shared" "$(cat "$DAEMON_LOG")"
fi
for i in 2 3; do
	if grep -qE "'${PORT[i]}': can't share the XDP hook through libxdp's dispatcher: this kernel $FREPLACE_MSG.*runs the bridge's program alone \(exclusive\)" "$DAEMON_LOG"; then
		pass "${PORT[i]}: the daemon says the kernel refuses freplace and the port runs alone"
	else
		fail "${PORT[i]}: the daemon says the kernel refuses freplace and the port runs alone" \
			"$(cat "$DAEMON_LOG")"
	fi
	check "${PORT[i]}: 'port ... native XDP, exclusive' in the log" \
		grep -q "port ${PORT[i]} (ifindex [0-9]*, veth): native XDP, exclusive" "$DAEMON_LOG"
	check_eq "${PORT[i]}: link show -j says xdp_mode native, xdp_attach exclusive" \
		"native exclusive" "$(link_attach "${PORT[i]}")"
done
check "h2 <-> h3 ping through the bridge" eval 'hping 2 3 && hping 3 2'
daemon_stop || fail "xdpbrd stops on SIGTERM" "rc $DAEMON_RC"
PORTS=("${ALL_PORTS[@]}")
check "stopped: nothing of ours left on the ports" no_xdp_anywhere

# --- xdp-filter on PORT[1] first, then the bridge asked to share it
check "xdp-filter loads on ${PORT[1]} (native)" xdp-filter load -m native "${PORT[1]}"
XT_CLEANUP_CMDS+=("xdp-filter unload '${PORT[1]}'")
fid=$(filter_id)
[ -n "$fid" ] || abort "xdp-filter runs on ${PORT[1]}" "$(ip -j link show dev "${PORT[1]}")"
if daemon_start --xdp-share; then
	fail "xdpbrd --xdp-share refuses ${PORT[1]}, which runs xdp-filter" "$(cat "$DAEMON_LOG")"
	daemon_stop
else
	pass "xdpbrd --xdp-share refuses ${PORT[1]}, which runs xdp-filter (exit $DAEMON_RC)"
fi
if grep -qE "Interface '${PORT[1]}' already has another XDP program \(id $fid\) and can't share it: this kernel $FREPLACE_MSG" "$DAEMON_LOG"; then
	pass "the refusal names ${PORT[1]}, xdp-filter's program id and the kernel feature"
else
	fail "the refusal names ${PORT[1]}, xdp-filter's program id and the kernel feature" \
		"$(cat "$DAEMON_LOG")"
fi
check_eq "xdp-filter still runs on ${PORT[1]} (same program)" "$fid" "$(filter_id)"
check "xdp-loader status shows xdp-filter on ${PORT[1]}" \
	eval "xdp-loader status '${PORT[1]}' | grep -q xdpfilt_alw_all"
for i in 2 3; do
	check_eq "${PORT[i]}: nothing of ours left after the refused start" null \
		"$(port_xdp "${PORT[i]}")"
done

# --- the same without --xdp-share: the refusal says how to share
if daemon_start; then
	fail "xdpbrd refuses ${PORT[1]} (xdp-filter there)" "$(cat "$DAEMON_LOG")"
	daemon_stop
fi
check "without --xdp-share the refusal points at --xdp-share" \
	grep -q "'${PORT[1]}' already has another XDP program (id $fid); detach it first .*--xdp-share" \
	"$DAEMON_LOG"
check_eq "xdp-filter still runs on ${PORT[1]}" "$fid" "$(filter_id)"

# --- configuration keys
cat >"$XT_TMP/share.conf" <<EOF
[bridge]
name = $BR
xdp_share = on
[port ${PORT[2]}]
xdp_share = off
EOF
check "xdp_share in [bridge] and [port X] parses (xdpbrd -n)" "$XDPBRD" -n -c "$XT_TMP/share.conf"
printf '[bridge]\nname = %s\nxdp_share = sometimes\n' "$BR" >"$XT_TMP/bad.conf"
err=$("$XDPBRD" -n -c "$XT_TMP/bad.conf" 2>&1 >/dev/null)
rc=$?
if [ $rc -ge 1 ] && [ $rc -lt 128 ] && grep -q "bad.conf:3: .*xdp_share" <<<"$err"; then
	pass "xdp_share = sometimes is an error with its line"
else
	fail "xdp_share = sometimes is an error with its line" "exit $rc" "$err"
fi
check_fail "--xdp-share=maybe is refused" "$XDPBRD" --xdp-share=maybe -n -c "$XT_TMP/share.conf"

xdp-filter unload "${PORT[1]}" >/dev/null 2>&1
finish

#!/usr/bin/env bash
# datapaths: xdp
# The datapath object also loads without xdpbrd:
#   ip link set dev P xdp obj build/xdpbr.bpf.o sec xdp.frags
# iproute2 (6.1, built with libbpf) pins the LIBBPF_PIN_BY_NAME maps under
# its own root, /sys/fs/bpf/tc/globals/<map name>; /sys/fs/bpf/xdp is a
# symlink to /sys/fs/bpf/tc, so /sys/fs/bpf/xdp/globals/xdpbr_fdb is the
# same file. Those paths are shared by everything iproute2 loads on this
# machine: pins that were there before the test are left alone, and the test
# fails at once, saying so (iproute2 would reuse them, or refuse to: see
# "Why the bpftool line" in doc/cli.md).
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
XT_DATAPATH=xdp
. "$(dirname "$0")/lib.sh"

IP_PIN_DIR=/sys/fs/bpf/tc/globals

xt_require
command -v bpftool >/dev/null || abort "bpftool not installed (run make deps)"
topo_up 3
P1=${PORT[1]}

maps=$(map_pin_names)
[ -n "$maps" ] || abort "reading map names from $XDPBR_MAPS_H"
ours=()
theirs=()
for m in $maps; do
	if [ -e "$IP_PIN_DIR/$m" ]; then
		theirs+=("$IP_PIN_DIR/$m")
	else
		ours+=("$IP_PIN_DIR/$m")
	fi
done
if [ ${#theirs[@]} -gt 0 ]; then
	abort "pins left by another loader" "${theirs[@]}" \
		"remove them (rm ${IP_PIN_DIR}/xdpbr_*) when nothing uses them"
fi
# Remove the pins this test creates, also if it fails half-way.
XT_CLEANUP_CMDS+=("ip link set dev $P1 xdp off" "rm -f ${ours[*]}")

check "ip link set dev $P1 xdp obj xdpbr.bpf.o sec xdp.frags" \
	ip link set dev "$P1" xdp obj "$BPF_OBJ" sec xdp.frags
prog_id=$(port_prog_id "$P1")
check_eq "the program on $P1 is xdpbr_rx" xdpbr_rx \
	"$(ip -j link show dev "$P1" | jq -r '.[0].xdp.prog.name')"

prog_maps=$(bpftool -j prog show id "${prog_id:-0}" 2>&1 | jq -c '.map_ids')
for m in $maps; do
	pin=$IP_PIN_DIR/$m
	if [ ! -e "$pin" ]; then
		fail "map $m pinned at $pin" "$(ls -l "$IP_PIN_DIR" 2>&1)"
		continue
	fi
	id=$(bpftool -j map show pinned "$pin" 2>&1 | jq '.id')
	case $m in
	xdpbr_bridge | xdpbr_xmit_seen | xdpbr_slotif | xdpbr_portname)
		# user-space totals, the xmit tracepoint's bookkeeping, the
		# skb path's slot -> ifindex and the ports' names: pinned with
		# the bridge, not read by xdpbr_rx
		check_jq "map $m pinned at $pin" "${id:-null}" 'type == "number"'
		;;
	*)
		check_jq "map $m pinned at $pin, and the program uses it" "$prog_maps" \
			'index($id) != null' --argjson id "${id:-null}"
		;;
	esac
done
check "the same pin through /sys/fs/bpf/xdp/globals" \
	test -e /sys/fs/bpf/xdp/globals/xdpbr_fdb

check "ip link set dev $P1 xdp off" ip link set dev "$P1" xdp off
check_eq "no XDP program left on $P1" null "$(port_xdp "$P1")"
if [ ${#ours[@]} -gt 0 ]; then
	check "remove the pins" rm -f "${ours[@]}"
fi
left=$(for p in "${ours[@]}"; do [ -e "$p" ] && echo "$p"; done)
check_eq "no pins of this test left in $IP_PIN_DIR" "" "$left"

finish

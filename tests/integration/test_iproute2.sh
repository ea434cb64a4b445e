#!/usr/bin/env bash
# datapaths: xdp
# The datapath object also loads without xdpbrd:
#   ip link set dev P xdp obj build/xdpbr.bpf.o sec xdp.frags
# iproute2 (6.1, built with libbpf) pins the LIBBPF_PIN_BY_NAME maps under
# its own root, /sys/fs/bpf/tc/globals/<map name>; /sys/fs/bpf/xdp is a
# symlink to /sys/fs/bpf/tc, so /sys/fs/bpf/xdp/globals/xdpbr_fdb is the
# same file. Those paths are shared by everything iproute2 loads on this
# machine: the test takes them in turn with the others (ip_pins_claim), and
# pins that were there before it are left alone and the test skipped,
# saying so (iproute2 would reuse them, or refuse to: see "Why the bpftool
# line" in doc/cli.md).
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
XT_DATAPATH=xdp
. "$(dirname "$0")/lib.sh"

xt_require
xt_need bpftool
mapfile -t ours < <(ip_map_pins)
[ ${#ours[@]} -gt 0 ] || abort "reading map names from $XDPBR_MAPS_H"
maps=$(printf '%s\n' "${ours[@]##*/}")
ip_pins_claim "${ours[@]}"
topo_up 3
P1=${PORT[1]}
XT_CLEANUP_CMDS+=("ip link set dev $P1 xdp off")

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
	xdpbr_bridge | xdpbr_xmit_seen | xdpbr_slotif | xdpbr_portname | xdpbr_bpdusock_state | \
	xdpbr_mdb_port | xdpbr_mrouter | xdpbr_mrouter_vlan)
		# user-space totals, the xmit tracepoint's bookkeeping, the
		# skb path's slot -> ifindex, the ports' names, the BPDU
		# sockets' buckets and the snooping's per-copy maps (member and
		# router ports: the egress and TC copy programs read them):
		# pinned with the bridge, not read by xdpbr_rx
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
check "remove the pins" rm -f "${ours[@]}"
left=$(for p in "${ours[@]}"; do [ -e "$p" ] && echo "$p"; done)
check_eq "no pins of this test left in $IP_PIN_DIR" "" "$left"

finish

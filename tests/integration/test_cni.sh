#!/usr/bin/env bash
# Containers on the bridge device through the CNI bridge plugin (issue
# 28), invoked per the CNI spec as podman and Kubernetes do (ADD, CHECK,
# DEL; host-local IPAM; CNI_PATH=/usr/lib/cni): each container's veth
# becomes an xdpbr port within 1 s, the containers ping each other through
# xdpbr (its counters), CHECK passes, DEL removes their ports.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
# shellcheck source=cni_lib.sh
. "$(dirname "$0")/cni_lib.sh"

NC=3		# containers

xt_require
cni_setup 198.18.2.0/24
is_port() { json_is array 'any(.[]; .ifname == $p)' --arg p "$1" -- "$XDPBR" -b "$BR" -j link show; }
not_port() { ! is_port "$1"; }

daemon_start || abort "xdpbrd" "$XT_WHY"
ip link set dev "$BR" up
declare -a CIP HOSTV
for ((c = 1; c <= NC; c++)); do
	ip netns add "xt$ID-c$c" || abort "ip netns add xt$ID-c$c"
	XT_CLEANUP_CMDS+=("ip netns del xt$ID-c$c")
	out=$(cni ADD "$c") || abort "CNI ADD container $c" "$out"
	printf '%s\n' "$out" >"$XT_TMP/add.$c"
	CIP[c]=$(jq -r '.ips[0].address | sub("/.*"; "")' <<<"$out")
	HOSTV[c]=$(jq -r '.interfaces[] | select(.sandbox == null and .mac != null and .name != $br) |
		.name' --arg br "$BR" <<<"$out" | head -1)
	# As a test host's (host_offloads): checksums done, NAPI for XDP redirects.
	ip netns exec "xt$ID-c$c" ethtool -K eth0 tx off gro on >/dev/null 2>&1
	check "CNI ADD container $c (${CIP[c]}): its veth ${HOSTV[c]} an xdpbr port within 1 s" \
		xt_poll 1 is_port "${HOSTV[c]}"
done
for ((c = 2; c <= NC; c++)); do
	rx0=$(port_counter "${HOSTV[1]}" rx_packets)
	check "container 1 -> container $c (${CIP[c]}) pings" \
		bash -c "ip netns exec xt$ID-c1 ping -c 3 -i 0.1 -W 2 ${CIP[c]}"
	rx1=$(port_counter "${HOSTV[1]}" rx_packets)
	check "... forwarded by xdpbr ($rx0 -> $rx1 on ${HOSTV[1]})" test "$((rx1 - rx0))" -ge 3
done
kl=$(bridge -j fdb show br "$BR" | jq -r '.[] | select((.state // "") != "permanent" and (.flags // [] | index("extern_learn") | not)) | .mac + " " + .ifname')
check_eq "the kernel bridge learned nothing" "" "$kl"
for ((c = 1; c <= NC; c++)); do
	check "CNI CHECK container $c" cni CHECK "$c"
done
for ((c = 1; c <= NC; c++)); do
	cni DEL "$c" >/dev/null || fail "CNI DEL container $c"
	check "CNI DEL container $c: ${HOSTV[c]} no longer a port within 1 s" \
		xt_poll 1 not_port "${HOSTV[c]}"
done
daemon_stop
finish

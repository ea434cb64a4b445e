#!/usr/bin/env bash
# The platform lane: xdpbr on Debian 12's own kernel (6.1, the package
# tests/vm/kernel.sh fetches) in a QEMU guest, on the drivers real
# machines have instead of veth:
#
#   h1, h2  behind e1000e NICs e1k0, e1k1: no native XDP, generic mode
#   h3, h4  behind virtio-net NICs vio0, vio1: native XDP (multi-queue)
#
# The hosts are network namespaces on this machine, each on a tap that
# QEMU connects to its NIC; the guest runs this tree's own binaries (the
# host's build, over 9p). Three bridges, one after the other:
#
#   e1000e  e1k0 e1k1            ports generic, h1 <-> h2
#   virtio  vio0 vio1            ports native, h3 <-> h4; then vio1 on
#                                3 queue pairs of 4 (the case that crashes
#                                6.1's driver): generic, and xdpbrd says why
#   mix     all four, -k         every pair pings, a broadcast reaches the
#                                other three, the FDB learns all four,
#                                802.1Q tags cross e1k0 <-> vio0 (VLAN 10
#                                passes, learned in VLAN 10, unicast too;
#                                20 is filtered), and a restart of
#                                the daemon loses no ping h1 -> h3
#
# Before them, 6.1's verifier walks each program of the datapath: under
# 80% of its limit.
# tests/run.sh runs it once, as "vm/test_platform" (not on two datapaths:
# the guest's ports are not veth); it skips (77) without QEMU.
# shellcheck source=../integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/../integration/lib.sh"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

vm_require
vm_host e1k 0	# h1
vm_host e1k 1	# h2
vm_host vio 0	# h3
vm_host vio 1	# h4
vm_boot

# ping_ok I J: host I reaches host J (30 s: the first frames wait for ARP
# and for a TCG guest).
ping_ok()
{
	xt_poll 30 hexec "$1" ping -c 1 -W 3 "${IP4[$2]}"
}

# guest_diag: what the guest's bridges and NICs say (after a failure).
guest_diag()
{
	vm_exec 'for b in /sys/fs/bpf/xdpbr/*; do "$XDPBR" -b "${b##*/}" stats; done
		for d in e1k0 e1k1 vio0 vio1; do ip -s link show dev $d; done
		ethtool -S vio0 | grep -v ": 0$"; dmesg | tail -n 20' | sed 's/^/    # guest: /'
}

# pings NAME I J...: every pair of the hosts given pings, both ways.
pings()
{
	local name=$1 i j
	shift
	for i in "$@"; do
		for j in "$@"; do
			[ "$i" -lt "$j" ] || continue
			check "$name: h$i (${GNIC[i]}) <-> h$j (${GNIC[j]}) ping" \
				eval "ping_ok $i $j && ping_ok $j $i" || guest_diag

		done
	done
}

# fdb_learned NAME BR I...: BR's FDB has each host's MAC on its NIC.
fdb_learned()
{
	local name=$1 br=$2 i script=
	shift 2
	for i in "$@"; do
		script+="g_poll 20 g_fdb_has $br ${MAC[i]} ${GNIC[i]} || { echo 'no ${MAC[i]} on ${GNIC[i]}'; ok=1; }
"
	done
	vm_check "$name: the FDB learned $(printf 'h%s ' "$@")on their ports" \
		"ok=0
$script
\"\$XDPBR\" -b $br fdb show
exit \$ok"
}

# bridge_on NAME BR MODE... : BR runs on the hosts' NICs (the arguments
# after NAME and BR are "I MODE" pairs), each in MODE (generic, native).
bridge_on()
{
	local name=$1 br=$2 ports=() modes=() i
	shift 2
	while [ $# -ge 2 ]; do
		ports+=("${GNIC[$1]}")
		modes+=("g_mode_is $br ${GNIC[$1]} xdp $2 || exit 1")
		shift 2
	done
	vm_check "$name: xdpbrd starts on ${ports[*]}" \
		"g_start $br ${#ports[@]} -l none $VM_DAEMON_ARGS $br ${ports[*]}" 150 ||
		return 1
	vm_check "$name: $(printf '%s ' "${modes[@]}" | grep -o 'xdp [a-z]*' | sort -u | tr '\n' ' ')as xdpbr link show says" \
		"$(printf '%s\n' "${modes[@]}")"
}

VM_DAEMON_ARGS="-H off"

# ---- 6.1's verifier: every program of the datapath loads, each with room
# to grow. 6.1 prunes less than newer kernels and walks up to five times as
# far (xdpbr_tc_rx: 950,000 instructions of its limit of 1,000,000 on 6.1,
# 180,000 on 6.18, before its floods shared one path); a change that passes
# on this machine would meet E2BIG there. tools/verifierstats prints
# PROGRAM PROCESSED LIMIT STATES PEAK_STATES.
vstats=$(vm_exec '"$XT_BUILD/tools/verifierstats" "$XT_BUILD/xdpbr.bpf.o"' 300)
vrc=$?
sed 's/^/# 6.1 verifier: /' <<<"$vstats"
check "6.1's verifier loads every program, each under 80% of its limit" \
	awk -F'\t' -v rc="$vrc" 'NF == 5 { n++; if ($2 * 10 >= $3 * 8) bad++ }
		END { exit !(rc == 0 && n >= 6 && !bad) }' <<<"$vstats"

# ---- e1000e: no native XDP, so generic mode
if bridge_on e1000e bre 1 generic 2 generic; then
	pings e1000e 1 2
	fdb_learned e1000e bre 1 2
	vm_check "e1000e: xdpbrd says the driver has no native XDP" \
		"grep \"'e1k0': driver has no native XDP, falling back to generic mode\" /tmp/xdpbrd-bre.log"
	vm_check "e1000e: rx-vlan-offload off (generic XDP can't see stripped tags)" \
		"ethtool -k e1k0 | grep -x 'rx-vlan-offload: off'"
fi
vm_check "e1000e: xdpbrd stops" "g_stop bre"

# ---- virtio-net: native XDP, 4 queue pairs for 2 CPUs: enough for XDP's
# own transmit queues, so no warning. With the host interface: its port
# brv-host (a veth) on the skb path, which the native ports' devmap
# broadcast reaches (XDPBR_PORT_XDP_TARGET: no port needs the stack).
VM_DAEMON_ARGS="-H on"
if bridge_on virtio brv 3 native 4 native; then
	vm_check "virtio: no queue warning (4 queue pairs, 2 in use, 2 CPUs)" \
		"! grep 'virtio-net uses' /tmp/xdpbrd-brv.log"
	pings virtio 3 4
	fdb_learned virtio brv 3 4
	vm_check "virtio: brv-host runs the skb path, and no port needs the stack (xdpbr_skbports 0)" \
		'l=$("$XDPBR" -b brv -j link show) &&
		[ "$(jq -r "any(.[]; .host_interface == \"brv\" and .datapath == \"tc\")" <<<"$l")" = true ] &&
		v=$(bpftool -j map lookup pinned /sys/fs/bpf/xdpbr/brv/xdpbr_skbports key 0 0 0 0) &&
		[ "$(jq -r ".value | map(. == \"0x00\") | all" <<<"$v")" = true ] ||
		{ echo "$l"; echo "$v"; exit 1; }'
	vm_check "virtio: the guest's brv up, 198.18.0.250/24" \
		"ip addr add 198.18.0.250/24 dev brv && ip link set dev brv up"
	for i in 3 4; do
		check "virtio: h$i (${GNIC[i]}) -> the guest's brv: ARP flooded by XDP into brv-host" \
			xt_poll 30 hexec "$i" ping -c 1 -W 3 198.18.0.250 || guest_diag
	done
fi
vm_check "virtio: xdpbrd stops" "g_stop brv"
VM_DAEMON_ARGS="-H off"

# vio1 with 3 queue pairs in use of 4: more than the CPUs, too few for
# XDP's own queues, the case where 6.1's driver crashes on the first frame
# redirected into it. xdpbrd must give vio1 generic XDP and say why.
V3="virtio, vio1 on 3 queue pairs"
vm_check "$V3: ethtool -L vio1 combined 3" "ethtool -L vio1 combined 3"
if bridge_on "$V3" brv 3 native 4 generic; then
	vm_check "$V3: xdpbrd says why vio1 gets no native XDP, and nothing of vio0" \
		"grep 'port vio1: virtio-net uses 3 queue pairs of 4, more than the 2 CPUs' /tmp/xdpbrd-brv.log &&
		! grep 'port vio0: virtio-net uses' /tmp/xdpbrd-brv.log"
	pings "$V3" 3 4
fi
vm_check "$V3: xdpbrd stops, vio1 back on 2 queue pairs" \
	"g_stop brv; ethtool -L vio1 combined 2"

# ---- the mix: all four ports, with its host interface, kept on stop (-k)
# so that a restart adopts the running bridge.
VM_DAEMON_ARGS="-k"
if ! bridge_on mix brm 1 generic 2 generic 3 native 4 native; then
	vm_exec "cat /tmp/xdpbrd-brm.log"
	finish
fi
pings mix 1 2 3 4
fdb_learned mix brm 1 2 3 4

# flood_to NAME SENDER FRAME COUNT-FILTER HOST...: FRAME sent 3 times from
# SENDER's tap reaches each HOST (captured on its tap, received frames
# only, matching COUNT-FILTER: "vlan 10", "untagged", "none").
flood_to()
{
	local name=$1 from=$2 frame=$3 want=$4 i n k
	shift 4
	for i in "$@"; do
		cap_launch "$name$i" "${PORT[i]}" "$(vl_filter "${MAC[from]}")" 12 "" in \
			ip netns exec "${NS[i]}"
	done
	for i in "$@"; do
		cap_listening "$name$i" "${NS[i]}" "${PORT[i]}" "$(vl_filter "${MAC[from]}")" ||
			fail "$name: capture on h$i ready" "$XT_WHY"
	done
	for k in 1 2 3; do
		hexec "$from" "$SENDFRAME" "${PORT[from]}" "$frame" >/dev/null
	done
	for i in "$@"; do
		cap_end "$name$i"
		case $want in
		none) n=$(vl_cap_count "$name$i" any); [ "$n" = 0 ] ;;
		*) n=$(vl_cap_count "$name$i" "${want#vlan }"); [ "$n" -ge 1 ] ;;
		esac
		if [ $? = 0 ]; then
			pass "$name: h$from (${GNIC[from]}) -> h$i (${GNIC[i]}): $n frame(s) ($want)"
		else
			fail "$name: h$from (${GNIC[from]}) -> h$i (${GNIC[i]}) ($want)" "$(cap_show "$name$i")"
			guest_diag
		fi
	done
}

BCAST=ff:ff:ff:ff:ff:ff
flood_to "broadcast" 1 "$(vl_frame $BCAST "${MAC[1]}")" untagged 2 3 4
flood_to "broadcast" 4 "$(vl_frame $BCAST "${MAC[4]}")" untagged 1 2 3

# 802.1Q across the e1000e/virtio-net pair: e1k0 and vio0 carry VLAN 10
# tagged; the rest stay in VLAN 1 only.
if vm_check "vlan: filtering on, VLAN 10 tagged on e1k0 and vio0" \
	'"$XDPBR" -b brm bridge set vlan_filtering on &&
	"$XDPBR" -b brm vlan add dev e1k0 vid 10 &&
	"$XDPBR" -b brm vlan add dev vio0 vid 10 && "$XDPBR" -b brm vlan show'; then
	flood_to "vlan 10" 1 "$(vl_frame $BCAST "${MAC[1]}" 10)" "vlan 10" 3
	flood_to "vlan 10" 3 "$(vl_frame $BCAST "${MAC[3]}" 10)" "vlan 10" 1
	flood_to "vlan 10, non-members" 1 "$(vl_frame $BCAST "${MAC[1]}" 10)" none 2 4
	flood_to "vlan 20 (no port is a member)" 1 "$(vl_frame $BCAST "${MAC[1]}" 20)" none 3
	vm_check "vlan: the FDB learned h1 and h3 in VLAN 10" \
		"g_poll 10 g_fdb_has brm ${MAC[1]} e1k0 10 && g_poll 10 g_fdb_has brm ${MAC[3]} vio0 10 ||
		{ \"\$XDPBR\" -b brm fdb show; exit 1; }"
	flood_to "vlan 10 unicast" 1 "$(vl_frame "${MAC[3]}" "${MAC[1]}" 10)" "vlan 10" 3
	flood_to "vlan 10 unicast" 3 "$(vl_frame "${MAC[1]}" "${MAC[3]}" 10)" "vlan 10" 1
	vm_check "vlan: filtering off" '"$XDPBR" -b brm bridge set vlan_filtering off'
fi

# A restart of the daemon (SIGTERM with -k, then a new one adopting the
# pinned bridge) while h1 pings h3 every 50 ms: no ping lost.
pfx_ping_start restart 1 3 0.05
if xt_poll 30 grep -q 'bytes from' "$XT_TMP/ping.restart.out"; then
	vm_check "restart: xdpbrd stopped (-k: the bridge goes on)" "g_stop brm" 60
	vm_check "restart: a new xdpbrd adopts the bridge" \
		"g_start brm 4 -k -l none brm e1k0 e1k1 vio0 vio1 && grep -q 'adopted the pinned bridge' /tmp/xdpbrd-brm.log" 300
	sleep 3
	pfx_ping_stop restart
	check "restart: no ping h1 -> h3 lost across the restart" pfx_ping_check restart 20
else
	pfx_ping_stop restart
	fail "restart: h1 pings h3 before the restart" "$(cat "$XT_TMP/ping.restart.out")"
fi

vm_check "mix: xdpbrd stops, xdpbr bridge del detaches every port" \
	'g_stop brm && "$XDPBR" bridge del brm &&
	for d in e1k0 e1k1 vio0 vio1; do
		ip link show dev $d | grep -E "xdp|PROMISC" && exit 1
	done; exit 0'
vm_poweroff
finish

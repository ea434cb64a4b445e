#!/usr/bin/env bash
# datapaths: auto
# A full bridge (issue 28): 1024 ports, the Linux bridge's limit, and the
# 1025th refused loudly with nothing of it left behind. Two hosts in
# namespaces (slots 1 and 2) and 1022 veth pairs of the root namespace,
# added one by one with `xdpbr link add` to a running bridge; the veths
# stay down (no carrier, no IPv6 chatter: what matters here is the slots).
# The 1025th: `link add` fails and says the bridge is full, the interface
# carries no program of xdpbr (no TC filter, no XDP), link show still lists 1024 ports in slots 1..1024, and h1 still
# reaches h2. A port removed frees its slot, and the refused interface
# then joins in it. Standalone (-H off): with the bridge device, the
# kernel's own limit (1023 ports of a Linux bridge, one of them BR-dev)
# refuses `ip link set ... master` first. On the skb path only (auto: veth
# ports), for CI's time.
# shellcheck disable=SC2317 # functions that run through check / xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off

NDUMMY=1023	# 1022 to fill the bridge beside the 2 hosts, and one more

xt_require
topo_up 2
daemon_start || abort "xdpbrd start" "$XT_WHY"

# Veth pairs xt${ID}fI (the port, in the root namespace) and xt${ID}gI
# (its peer, in namespace PEERS), all down. Deleting PEERS deletes them
# all in one go: one by one, 1023 veths took the kernel ~2 minutes.
PEERS=xt$ID-peers
ip netns add "$PEERS" || abort "ip netns add $PEERS"
XT_CLEANUP_CMDS+=("ip netns del '$PEERS' 2>/dev/null")
batch=$XT_TMP/links.batch
: >"$batch"
for ((i = 1; i <= NDUMMY; i++)); do
	echo "link add xt${ID}f$i type veth peer name xt${ID}g$i netns $PEERS" >>"$batch"
done
t0=$(date +%s.%N)
ip -batch "$batch" || abort "creating $NDUMMY veth pairs"
t1=$(date +%s.%N)
echo "# $NDUMMY veth pairs made in $(echo "$t1 - $t0" | bc) s"

nports()
{
	"$XDPBR" -b "$BR" -j link show | jq 'length'
}
slot_of()
{
	"$XDPBR" -b "$BR" -j link show dev "$1" | jq -r '.[0].slot'
}

# add_range FIRST LAST: link add of the dummies FIRST..LAST.
add_range()
{
	local i
	for ((i = $1; i <= $2; i++)); do
		"$XDPBR" link add dev "xt${ID}f$i" master "$BR" >/dev/null 2>&1 ||
			{ echo "link add dev xt${ID}f$i failed" >&2; return 1; }
	done
}
LAST=$((NDUMMY - 1))
EXTRA=xt${ID}f$NDUMMY
t0=$(date +%s.%N)
check "link add: $LAST ports to a running bridge of 2" add_range 1 "$LAST"
t1=$(date +%s.%N)
echo "# $LAST link adds took $(echo "$t1 - $t0" | bc) s"
check_eq "link show lists 1024 ports" 1024 "$(nports)"
check "1024 ports in slots 1..1024, each once" json_is array \
	'[.[].slot] | (unique | length) == 1024 and min == 1 and max == 1024' \
	-- "$XDPBR" -b "$BR" -j link show

# The 1025th.
refusal=$("$XDPBR" link add dev "$EXTRA" master "$BR" 2>&1)
rc=$?
check "link add of a 1025th port fails (status $rc)" test "$rc" -ne 0
check "... and says the bridge is full" grep -q "is full (1024 ports)" <<<"$refusal"
check "... and why: No space left on device" grep -q "No space left on device" <<<"$refusal"
check_eq "link show still lists 1024 ports" 1024 "$(nports)"
check "$EXTRA is not a port" json_is array 'length == 0' \
	-- "$XDPBR" -b "$BR" -j link show dev "$EXTRA"
check_eq "$EXTRA carries no TC program (filter or TCX)" null "$(port_tc "$EXTRA")"
check "$EXTRA carries no XDP program" \
	bash -c "! ip -d link show dev '$EXTRA' | grep -q 'prog/xdp'"
check "h1 still reaches h2" hping 1 2

# A port removed frees its slot; the refused interface takes it.
freed=$(slot_of "xt${ID}f500")
check "link del dev xt${ID}f500 (slot $freed)" "$XDPBR" -b "$BR" link del dev "xt${ID}f500"
check_eq "1023 ports" 1023 "$(nports)"
check "link add dev $EXTRA now" "$XDPBR" link add dev "$EXTRA" master "$BR"
check_eq "$EXTRA takes slot $freed" "$freed" "$(slot_of "$EXTRA")"
check_eq "1024 ports again" 1024 "$(nports)"
check "h1 still reaches h2" hping 1 2

finish

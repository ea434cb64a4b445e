# shellcheck shell=bash
# shellcheck disable=SC2034 # variables set here for the test scripts
#
# cni_lib.sh - the CNI bridge plugin invoked as a runtime does (the CNI
# spec: the network configuration on stdin, CNI_COMMAND and the rest in
# the environment), for test_cni*.sh. Source it after lib.sh.
#
#   cni_setup SUBNET   skip without the plugin; the bridge's test host h1,
#                      the configuration: bridge $BR, host-local IPAM in
#                      SUBNET (its state in $XT_TMP/ipam)
#   cni CMD I          the plugin's CMD (ADD, CHECK, DEL) for container I,
#                      netns xt$ID-cI, interface eth0; its result on stdout

CNI_DIR=/usr/lib/cni
CNI_CONF=

cni_setup()
{
	[ -x "$CNI_DIR/bridge" ] ||
		skip "no CNI bridge plugin ($CNI_DIR/bridge; package containernetworking-plugins)"
	topo_up 1
	XT_CLEANUP_CMDS+=("ip link del dev $BR")
	CNI_CONF=$(jq -nc --arg br "$BR" --arg dir "$XT_TMP/ipam" --arg net "$1" '{cniVersion: "0.4.0",
		name: "xt", type: "bridge", bridge: $br, isGateway: false, ipMasq: false,
		ipam: {type: "host-local", subnet: $net, dataDir: $dir}}')
}

# CHECK and DEL get ADD's result ($XT_TMP/add.I, which the caller keeps)
# as prevResult, as the spec says a runtime does.
cni()
{
	local c=$CNI_CONF
	[ "$1" = ADD ] || c=$(jq -c --slurpfile prev "$XT_TMP/add.$2" '. + {prevResult: $prev[0]}' \
		<<<"$CNI_CONF")
	CNI_COMMAND=$1 CNI_CONTAINERID=xt$ID-c$2 CNI_NETNS=/var/run/netns/xt$ID-c$2 \
		CNI_IFNAME=eth0 CNI_PATH=$CNI_DIR "$CNI_DIR/bridge" <<<"$c"
}

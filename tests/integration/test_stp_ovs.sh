#!/usr/bin/env bash
# Interop with an RSTP implementation no one here wrote: Open vSwitch
# (userspace datapath, datapath_type=netdev, its own ovsdb-server and
# ovs-vswitchd in a private directory and a network namespace of their
# own) with rstp_enable=true, in a loop with two ports of xdpbr, h1 on
# xdpbr, h2 on OVS; hello 1, forward_delay 4, max_age 6 on both. The loop
# converges with exactly one link end alternate/discarding, on the side
# that is not the root, both sides' roles and states agree (xdpbr stp show,
# ovs-appctl rstp/show); no storm; the hosts ping; the root is the lower
# priority whichever side it is on. Skipped (77) when Open vSwitch is not
# installed (tools/deps.sh installs openvswitch-switch).
# shellcheck disable=SC2016,SC2317 # jq variables in single quotes; functions run through check
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
# shellcheck source=stp_lib.sh
. "$(dirname "$0")/stp_lib.sh"
XT_HOSTIF=off

ONS=xt$ID-o
ODIR=$XT_TMP/ovs
O1A=xt${ID}o1a O2A=xt${ID}o2a
SCHEMA=/usr/share/openvswitch/vswitch.ovsschema

ovs_env()
{
	ip netns exec "$ONS" env OVS_RUNDIR="$ODIR" OVS_DBDIR="$ODIR" OVS_LOGDIR="$ODIR" "$@"
}
vsctl()
{
	ovs-vsctl --db="unix:$ODIR/db.sock" --timeout=10 "$@"
}
appctl()
{
	ovs-appctl -t "$ODIR/ovs-vswitchd.$(cat "$ODIR/ovs-vswitchd.pid").ctl" "$@"
}

# ovs_stop: the two OVS daemons of this test (by their pid files).
ovs_stop()
{
	local f
	for f in "$ODIR/ovs-vswitchd.pid" "$ODIR/ovsdb-server.pid"; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 0.5
}

# ovs_roles: "PORT:role/state" of OVS's two link ports (rstp/show), lower case.
ovs_roles()
{
	appctl rstp/show br0 | awk '$1 == "o1b" || $1 == "o2b" {
		printf "%s%s:%s/%s", sep, $1, tolower($2), tolower($3); sep = " " }'
}

# one_blocks: exactly one of the four link ends alternate/discarding, the
# others root or designated and forwarding, on both sides.
one_blocks()
{
	local n=0 r s
	r=$(ovs_roles) || return 1
	for s in $r; do
		case ${s#*:} in
		alternate/discarding | backup/discarding) n=$((n + 1)) ;;
		root/forwarding | designated/forwarding) ;;
		*) return 1 ;;
		esac
	done
	[ "$(wc -w <<<"$r")" = 2 ] || return 1
	s=$(stp_blocked_count "$BR:$O1A $BR:$O2A")
	[[ $s =~ ^[0-9]$ ]] && [ $((n + s)) = 1 ]
}

ovs_is_root()
{
	appctl rstp/show br0 | grep -q "This bridge is the root"
}

xt_require
xt_need ovsdb-tool:openvswitch-switch ovsdb-server:openvswitch-switch \
	ovs-vswitchd:openvswitch-switch ovs-vsctl:openvswitch-switch ovs-appctl:openvswitch-switch
[ -f "$SCHEMA" ] || skip "Open vSwitch's schema $SCHEMA is missing"
topo_up 2
ip netns add "$ONS" || abort "ip netns add $ONS"
XT_CLEANUP_CMDS+=("ovs_stop" "ip netns del $ONS")
mkdir -p "$ODIR"
{
	ovsdb-tool create "$ODIR/conf.db" "$SCHEMA" &&
	ovs_env ovsdb-server "$ODIR/conf.db" --remote="punix:$ODIR/db.sock" \
		--pidfile="$ODIR/ovsdb-server.pid" --detach --log-file="$ODIR/ovsdb-server.log" &&
	vsctl --no-wait init &&
	ovs_env ovs-vswitchd "unix:$ODIR/db.sock" --pidfile="$ODIR/ovs-vswitchd.pid" \
		--detach --log-file="$ODIR/ovs-vswitchd.log"
} >"$XT_TMP/ovs.log" 2>&1 || abort "starting Open vSwitch" "$(cat "$XT_TMP/ovs.log")"
{
	ip link add "$O1A" type veth peer name o1b netns "$ONS" &&
	ip link add "$O2A" type veth peer name o2b netns "$ONS" &&
	ip link set dev "${PORT[2]}" netns "$ONS" &&
	for p in o1b o2b "${PORT[2]}"; do
		ip -n "$ONS" link set dev "$p" up || exit 1
	done &&
	ip link set dev "$O1A" up && ip link set dev "$O2A" up &&
	# frames xdpbr's XDP path redirects into O1A/O2A need NAPI on the
	# peers (MACHINE-FACTS.md): GRO, turned on while they are up
	ip netns exec "$ONS" ethtool -K o1b gro on &&
	ip netns exec "$ONS" ethtool -K o2b gro on &&
	vsctl add-br br0 -- set bridge br0 datapath_type=netdev rstp_enable=true \
		other_config:rstp-priority=4096 other_config:rstp-hello-time=1 \
		other_config:rstp-max-age=6 other_config:rstp-forward-delay=4 &&
	vsctl add-port br0 o1b -- add-port br0 o2b &&
	vsctl add-port br0 "${PORT[2]}" -- \
		set port "${PORT[2]}" other_config:rstp-port-admin-edge=true
} >"$XT_TMP/ovsbr.log" 2>&1 || abort "the OVS bridge" "$(cat "$XT_TMP/ovsbr.log")"
STP_LINKS+=("$O1A" "$O2A")
STP_PORT_NS[2]=$ONS
sysctl -q -w "net.ipv6.conf.$O1A.disable_ipv6=1" "net.ipv6.conf.$O2A.disable_ipv6=1" >/dev/null
CONF=$XT_TMP/xdpbrd.conf
stp_bridge_conf "$CONF" "$BR" 32768 "${PORT[1]}" "$O1A $O2A"
pfx_daemon_start 3 -c "$CONF" || abort "xdpbrd" "$XT_WHY"

# ------------------------------------------------------------ OVS root
if T=$(stp_time_until 40 one_blocks); then
	pass "OVS as root (priority 4096): converged, one link end blocks (${T} s)"
	echo "# convergence with Open vSwitch RSTP: ${T} s"
else
	fail "OVS as root: converged" "OVS: $(appctl rstp/show br0)" \
		"xdpbr: $(stp_roles "$BR" "$O1A" "$O2A")"
fi
check "OVS says it is the root" ovs_is_root
check_jq "xdpbr names OVS's bridge the root, and itself not" "$(stp_show "$BR")" \
	'(.root | not) and (.root_id | startswith("1000."))'
check_eq "OVS: both link ports designated, forwarding" \
	"o1b:designated/forwarding o2b:designated/forwarding" "$(ovs_roles)"
check_eq "xdpbr: root port $O1A forwards, $O2A alternate, discarding" \
	"$O1A:root/forwarding $O2A:alternate/discarding" "$(stp_roles "$BR" "$O1A" "$O2A")"
check_jq "xdpbr talks RSTP with OVS" "$(stp_show "$BR")" \
	'[.ports[] | select(.ifname == $a or .ifname == $b) | .protocol] == ["rstp", "rstp"]' \
	--arg a "$O1A" --arg b "$O2A"
# The hosts' ports forward once auto edge has seen no BPDU for 3 s, which
# may come after the links converged: a ping through first.
check "h1 pings h2" xt_poll 10 hping 1 2
check "no storm: a broadcast from h1 reaches h2 once, never comes back" stp_bcast_once 1 2
check "no storm: a broadcast from h2 reaches h1 once, never comes back" stp_bcast_once 2 1

# ------------------------------------------------------------ xdpbr root
check "xdpbr bridge set priority 4096" "$XDPBR" -b "$BR" bridge set priority 4096
vsctl set bridge br0 other_config:rstp-priority=32768
if T=$(stp_time_until 40 json_is object '.root == true' -- stp_show "$BR"); then
	pass "priorities swapped: xdpbr is the root (${T} s)"
else
	fail "priorities swapped: xdpbr is the root" "$(stp_show "$BR")"
fi
if T=$(stp_time_until 40 one_blocks); then
	pass "xdpbr as root: converged, one link end blocks (${T} s)"
else
	fail "xdpbr as root: converged" "OVS: $(appctl rstp/show br0)" \
		"xdpbr: $(stp_roles "$BR" "$O1A" "$O2A")"
fi
check "OVS no longer says it is the root" bash -c '! grep -q "This bridge is the root" <<<"$1"' \
	_ "$(appctl rstp/show br0)"
check_eq "xdpbr: both link ends designated, forwarding" \
	"$O1A:designated/forwarding $O2A:designated/forwarding" "$(stp_roles "$BR" "$O1A" "$O2A")"
check_eq "OVS: o1b root, forwarding; o2b alternate, discarding" \
	"o1b:root/forwarding o2b:alternate/discarding" "$(ovs_roles)"
check "h1 pings h2" xt_poll 10 hping 1 2
check "no storm: a broadcast from h1 reaches h2 once, never comes back" stp_bcast_once 1 2
finish

# shellcheck shell=bash
#
# guest_systemd.sh - guest-side helpers of tests/vm/test_systemd.sh (the
# packaged xdpbrd@.service under systemd as PID 1). The host side sources
# it in each vm_exec script, after tests/vm/guest-lib.sh:
#
#   vm_exec ". tests/vm/guest_systemd.sh; gs_one_blocked"
#
# The guest's topology (gs_topology): two bridges in a loop, each an
# instance of the unit, joined by two links, a host on each; an overlay
# site behind br1's [vxlan]:
#
#   h1 (netns) e0 -- h1p [br0] l1a ==== l1b [br1] h2p -- e0 h2 (netns)
#                  host if br0 l2a ==== l2b     br1-gw ... br1-vx (vxlan 100)
#                                                          | u0 198.19.0.1
#                      site (netns): u0 198.19.0.2, vxlan100 + bridge kb 198.18.0.3
#
# Each helper prints what a person needs to see when it fails.

XDPBR=/usr/sbin/xdpbr		# the packaged CLI, not the build's
LINK_ENDS="br0:l1a br0:l2a br1:l1b br1:l2b"
BCAST_TYPE=88b5

# gs_conf NAME PRIORITY LISTEN HOSTIF EDGE-PORT LINK-PORTS [EXTRA]: the
# unit's configuration file, /etc/xdpbr/NAME.conf: stp on with short
# timers, EDGE-PORT an admin edge port on the XDP path (the daemon checks
# its veth peer in the peer's namespace: setns), the LINK-PORTS plain.
gs_conf()
{
	local p
	mkdir -p /etc/xdpbr
	{
		printf '[bridge]\nname = %s\nstp = on\npriority = %s\n' "$1" "$2"
		printf 'hello_time = 1\nmax_age = 6\nforward_delay = 4\n'
		printf 'listen = %s\nhost_interface = %s\n' "$3" "$4"
		printf '[port %s]\nedge = on\ndatapath = xdp\n' "$5"
		for p in $6; do
			printf '[port %s]\n' "$p"
		done
		printf '%b' "${7:-}"
	} >"/etc/xdpbr/$1.conf"
}

# gs_host I: netns hI with e0 (02:00:00:00:00:0I, 198.18.0.I/24) whose
# peer hIp is a port; GRO on (an XDP redirect into a veth needs it),
# transmit checksum offload left on (the daemon warns about it). As ip
# batches: each process costs in a TCG guest.
gs_host()
{
	ip -b - <<-EOF && ip netns exec "h$1" ethtool -K e0 gro on >/dev/null
	netns add h$1
	link add h$1p type veth peer name e0 netns h$1
	link set dev h$1p up
	EOF
	ip -n "h$1" -b - <<-EOF
	link set dev lo up
	link set dev e0 address 02:00:00:00:00:0$1
	addr add 198.18.0.$1/24 dev e0
	link set dev e0 up
	EOF
}

# gs_underlay: the site's namespace and the underlay u0 to it (br1's
# [vxlan] names u0, which must be there when the daemon starts).
gs_underlay()
{
	ip -b - <<-EOF && ip -n site -b - <<-EOF2
	netns add site
	link add u0 type veth peer name u0 netns site
	addr add 198.19.0.1/24 dev u0
	link set dev u0 up
	EOF
	link set dev lo up
	addr add 198.19.0.2/24 dev u0
	link set dev u0 up
	EOF2
}

# gs_site: the overlay's far end, a VTEP with a kernel bridge (the host
# 198.18.0.3 is the bridge itself) that floods to br1's VTEP.
gs_site()
{
	ip -n site -b - <<-EOF &&
	link add kb address 02:00:00:00:00:03 type bridge
	link add vxlan100 type vxlan id 100 local 198.19.0.2 dstport 4789 dev u0 nolearning
	link set dev vxlan100 master kb
	link set dev vxlan100 up
	link set dev kb up
	addr add 198.18.0.3/24 dev kb
	EOF
	ip netns exec site bridge fdb append 00:00:00:00:00:00 dev vxlan100 dst 198.19.0.1
}

# gs_topology: the hosts, the links and both configurations (the site
# comes later: the daemon must be the first to need vxlan and bridge).
gs_topology()
{
	sysctl -qw net.ipv6.conf.default.disable_ipv6=1 || return 1
	if ! gs_host 1 || ! gs_host 2; then
		echo "hosts: failed"
		return 1
	fi
	ip -b - <<-EOF || { echo "links: failed"; return 1; }
	link add l1a type veth peer name l1b
	link add l2a type veth peer name l2b
	link set dev l1a up
	link set dev l1b up
	link set dev l2a up
	link set dev l2b up
	EOF
	gs_underlay || { echo "underlay: failed"; return 1; }
	gs_conf br0 4096 127.0.0.1:9638 on h1p "l1a l2a"
	gs_conf br1 32768 127.0.0.1:9639 off h2p "l1b l2b" \
		'[vxlan]\nvni = 100\nlocal_ip = 198.19.0.1\nunderlay = u0\n'
}

# gs_attached BR N: BR has N ports, each running the datapath (xdp, tc).
gs_attached()
{
	local j
	j=$("$XDPBR" -b "$1" -j link show) || return 1
	"$XDPBR" -b "$1" link show
	[ "$(jq '[.[] | select(.datapath == "xdp" or .datapath == "tc")] | length' <<<"$j")" = "$2" ] &&
		[ "$(jq length <<<"$j")" = "$2" ]
}

# gs_started BR: xdpbrd@BR is active, with the status of its READY=1
# message, and its 4 ports run the datapath.
gs_started()
{
	local st
	gs_unit_is "xdpbrd@$1" active running || return 1
	st=$(gs_prop "xdpbrd@$1" StatusText)
	echo "status: $st"
	[ "$st" = 'forwarding on 4 ports' ] && gs_attached "$1" 4
}

# gs_restarted UNIT OLDPID: the unit was restarted once and runs a process
# other than OLDPID.
gs_restarted()
{
	local pid n
	pid=$(gs_prop "$1" MainPID) n=$(gs_prop "$1" NRestarts)
	echo "$1: MainPID $pid (was $2), NRestarts $n"
	[ "$n" = 1 ] && [ "$pid" != 0 ] && [ "$pid" != "$2" ] && gs_unit_is "$1" active running
}

# gs_rx BR PORT: the port's rx_packets counter.
gs_rx()
{
	"$XDPBR" -b "$1" -j stats dev "$2" | jq -er '.[0].rx_packets'
}

# gs_forwards BR PORT...: each PORT of BR is designated and forwarding.
gs_forwards()
{
	local b=$1 p r
	shift
	for p in "$@"; do
		r=$(gs_show "$b" | jq -r --arg p "$p" \
			'first(.ports[] | select(.ifname == $p) | "\(.role)/\(.state)")')
		echo "$b:$p:$r"
		[ "$r" = designated/forwarding ] || return 1
	done
}

# gs_show BR: `xdpbr -j stp show` of BR (the packaged CLI).
gs_show()
{
	"$XDPBR" -b "$1" -j stp show
}

# gs_roles: "BR:PORT:ROLE/STATE" of every link end, on one line.
gs_roles()
{
	local b
	for b in br0 br1; do
		gs_show $b | jq -r --arg b $b --arg ends "$LINK_ENDS" '
			($ends | split(" ")) as $want | .ports[] |
			select(($b + ":" + .ifname) as $e | $want | index($e)) |
			"\($b):\(.ifname):\(.role)/\(.state)"'
	done | paste -sd' '
}

# gs_one_blocked: exactly one link end alternate (or backup) and
# discarding, the other three root or designated and forwarding.
gs_one_blocked()
{
	local r roles n=0 k=0
	roles=$(gs_roles)
	for r in $roles; do
		k=$((k + 1))
		case ${r##*:} in
		alternate/discarding | backup/discarding) n=$((n + 1)) ;;
		root/forwarding | designated/forwarding) ;;
		*) n=9 ;;
		esac
	done
	echo "$roles"
	[ "$n" = 1 ] && [ "$k" = 4 ]
}

# gs_root_is BR: both bridges name BR's bridge id as the root, and BR
# says it is the root.
gs_root_is()
{
	local j0 j1 id a b
	j0=$(gs_show br0) && j1=$(gs_show br1) || return 1
	a=$(jq -r .root_id <<<"$j0")
	b=$(jq -r .root_id <<<"$j1")
	if [ "$1" = br0 ]; then
		id=$(jq -r 'select(.root) | .bridge_id' <<<"$j0")
	else
		id=$(jq -r 'select(.root) | .bridge_id' <<<"$j1")
	fi
	echo "$1 bridge id ${id:-(not the root)}; br0 root $a, br1 root $b"
	[ -n "$id" ] && [ "$a" = "$id" ] && [ "$b" = "$id" ]
}

# gs_bpdus BR PORT: "IN OUT" BPDU counters of a port.
gs_bpdus()
{
	gs_show "$1" | jq -r --arg p "$2" \
		'first(.ports[] | select(.ifname == $p) | "\(.bpdus_in) \(.bpdus_out)")'
}

# gs_bpdus_both: each bridge sent BPDUs out of its link ends and heard
# some on them; prints the counters.
gs_bpdus_both()
{
	local bp in out ok=0
	local -A sum_in=() sum_out=()
	for bp in $LINK_ENDS; do
		read -r in out <<<"$(gs_bpdus "${bp%%:*}" "${bp#*:}")"
		echo "$bp: bpdus in ${in:-?} out ${out:-?}"
		[[ $in =~ ^[0-9]+$ && $out =~ ^[0-9]+$ ]] || { ok=1; continue; }
		sum_in[${bp%%:*}]=$((${sum_in[${bp%%:*}]:-0} + in))
		sum_out[${bp%%:*}]=$((${sum_out[${bp%%:*}]:-0} + out))
	done
	((${sum_in[br0]:-0} > 0 && ${sum_out[br0]:-0} > 0 &&
		${sum_in[br1]:-0} > 0 && ${sum_out[br1]:-0} > 0)) || ok=1
	return $ok
}

# gs_cap_start KEY NS: capture the broadcast test frames NS receives on e0.
gs_cap_start()
{
	ip netns exec "$2" tcpdump -l -nn -e -i e0 -Q in "ether proto 0x$BCAST_TYPE" \
		>"/tmp/cap.$1" 2>"/tmp/cap.$1.err" &
	echo $! >"/tmp/cap.$1.pid"
	g_poll 20 grep -q '^listening on' "/tmp/cap.$1.err" ||
		{ echo "tcpdump in $2 did not start:"; cat "/tmp/cap.$1.err"; return 1; }
}

# gs_cap_n KEY: stop the capture, print how many frames it saw.
gs_cap_n()
{
	kill -INT "$(cat "/tmp/cap.$1.pid")" 2>/dev/null
	wait "$(cat "/tmp/cap.$1.pid")" 2>/dev/null
	grep -c "ethertype Unknown (0x$BCAST_TYPE)" "/tmp/cap.$1"
}

# gs_bcast_frame: the test broadcast from h1, as sendframe takes it.
gs_bcast_frame()
{
	echo "ffffffffffff020000000001${BCAST_TYPE}$(printf '%092d' 0)"
}

# gs_flood_start: h1 broadcasts 10 frames a second (for 10 minutes at
# most) while h1 and h2 capture them (gs_flood_end counts).
gs_flood_start()
{
	gs_cap_start f1 h1 && gs_cap_start f2 h2 || return 1
	ip netns exec h1 "$XT_BUILD/tools/sendframe" -c 6000 -i 100000 e0 "$(gs_bcast_frame)" \
		>/dev/null 2>&1 &
	echo $! >/tmp/flood.pid
}

# gs_flood_end: the sender stopped, what h2 and h1 received; true if h2
# got some and none came back to h1 (a loop brings them back, a storm
# many times over).
gs_flood_end()
{
	local n1 n2
	kill "$(cat /tmp/flood.pid)" 2>/dev/null
	sleep 1
	n1=$(gs_cap_n f1)
	n2=$(gs_cap_n f2)
	echo "h1 broadcast 10 frames a second throughout: h2 received $n2, h1 got $n1 back"
	[ "$n1" = 0 ] && [ "$n2" -gt 0 ]
}

# gs_bcast N: h1 sends N broadcast frames (EtherType 0x88b5), 0.1 s apart;
# h2 must receive each exactly once and h1 none back (a loop brings them
# back, a storm many times over).
gs_bcast()
{
	local n1 n2
	gs_cap_start h1 h1 && gs_cap_start h2 h2 || return 1
	sleep 0.5
	ip netns exec h1 "$XT_BUILD/tools/sendframe" -c "$1" -i 100000 e0 "$(gs_bcast_frame)" ||
		{ echo "sendframe failed"; return 1; }
	sleep 2
	n1=$(gs_cap_n h1)
	n2=$(gs_cap_n h2)
	echo "h1 sent $1 broadcasts: h2 received $n2, h1 got $n1 back"
	[ "$n2" = "$1" ] && [ "$n1" = 0 ]
}

# gs_ping FROM-NS ADDR: one ping answered within 30 s.
gs_ping()
{
	g_poll 30 ip netns exec "$1" ping -c 1 -W 2 "$2" ||
		{ echo "$1 can't ping $2"; return 1; }
}

# gs_unit_is UNIT ACTIVE SUB: systemctl show says so.
gs_unit_is()
{
	local got
	got=$(systemctl show -p ActiveState,SubState --value "$1" | paste -sd/)
	echo "$1: $got"
	[ "$got" = "$2/$3" ]
}

# gs_prop UNIT PROPERTY: its value.
gs_prop()
{
	systemctl show -p "$2" --value "$1"
}

# gs_journal UNIT [JOURNALCTL-ARG...]: the unit's messages of this boot.
gs_journal()
{
	local u=$1
	shift
	journalctl -b -u "$u" --no-pager -o cat "$@"
}

# gs_notified UNIT TAGS: PID 1 logged (at debug level) a notification
# from the unit's main process that begins with TAGS ("READY=1").
gs_notified()
{
	local pid j
	pid=$(gs_prop "$1" MainPID)
	j=$(journalctl -b _PID=1 --no-pager -o cat | grep -F "$1: Got notification message")
	grep -F "$1: Got notification message from PID $pid ($2" <<<"$j" && return 0
	echo "no notification '$2' from $1's PID $pid; PID 1 got:"
	echo "$j"
	return 1
}

#!/usr/bin/env bash
# The VXLAN overlay with FRR's BGP EVPN as control plane (doc/evpn.md):
# two sites, each a network namespace standing for a machine of its own,
# with real FRR (zebra + bgpd started for that namespace, iBGP EVPN over
# an underlay veth between the sites).
#
#   site A (xt$ID-sa)                           site B (xt$ID-sb)
#   hosts a1 a2 -- p1 p2 [xdpbr $BR]            [xdpbr $BR] p1 p2 -- hosts b1 b2
#                     gateway -- kernel bridge  kernel bridge -- gateway
#                                 vxlan 100 ---- u0 (underlay) ---- vxlan 100
#                                 198.19.0.1                        198.19.0.2
#
# Each site's xdpbrd runs inside its namespace from a configuration file
# with a [vxlan] section and makes the overlay's kernel objects itself.
# Checks: the BGP session, pings between every pair of hosts across the
# sites (IPv4, IPv6), zebra's view of the MACs (local / remote), remote MACs
# in xdpbr's FDB on the gateway port, unicast to a remote MAC not flooded
# to local hosts, a host moved from A to B (its port deleted at A) reachable
# again within 5 s with both sites agreeing, the same host moved back while
# its port at B stays up (the remote entry at A gives way to its first
# frame there), a stopped bgpd's MACs withdrawn after the hold time,
# and a daemon restart (SIGKILL + start) losing no frame of a running ping.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check / xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

FRR=/usr/lib/frr
VNI=100
declare -A SNS=() VTEP=() PEER=() DPID=() DLOG=() CONF=() COOKIE=()
declare -A HNS=() HMAC=() HIP4=() HIP6=() HSITE=() HPORT=()

xt_require
xt_need "$FRR/zebra:frr" "$FRR/bgpd:frr" vtysh:frr

# site S: its namespace with an underlay end u0 (VTEP address on it).
site()
{
	local s=$1 n=1
	[ "$s" = a ] || n=2
	SNS[$s]=xt$ID-s$s
	VTEP[$s]=198.19.0.$n
	PEER[$s]=198.19.0.$((3 - n))
	XT_CLEANUP_CMDS+=("ip netns pids ${SNS[$s]} | xargs -r kill -KILL; ip netns del ${SNS[$s]}")
	XT_CLEANUP_CMDS+=("rm -rf /etc/frr/${SNS[$s]} /run/frr/${SNS[$s]}")
	ip netns add "${SNS[$s]}" || abort "ip netns add ${SNS[$s]}"
	ip -n "${SNS[$s]}" link set dev lo up
	COOKIE[$s]=$("$NETNSCOOKIE" "/run/netns/${SNS[$s]}") || abort "no cookie for ${SNS[$s]}"
	XT_CLEANUP_CMDS+=("rm -rf /sys/fs/bpf/xdpbr-netns/cookie-${COOKIE[$s]} /run/xdpbr/netns-cookie-${COOKIE[$s]}")
	XT_CLEANUP_CMDS+=("rmdir /sys/fs/bpf/xdpbr-netns")
}

underlay()
{
	ip -n "${SNS[a]}" link add u0 mtu 1600 type veth peer name u0 netns "${SNS[b]}" mtu 1600 &&
		for s in a b; do
			ip -n "${SNS[$s]}" addr add "${VTEP[$s]}/24" dev u0 &&
				ip -n "${SNS[$s]}" link set dev u0 up || return 1
		done
}

# host H S PORT [NS]: host H (netns NS, default xt$ID-H) behind port PORT of
# site S's bridge.
host()
{
	local h=$1 s=$2 port=$3 ns=${4:-xt$ID-$1}
	HNS[$h]=$ns HSITE[$h]=$s HPORT[$h]=$port
	[ -n "${4:-}" ] && {
		XT_CLEANUP_CMDS+=("ip netns pids $ns | xargs -r kill -KILL; ip netns del $ns")
		ip netns add "$ns" || return 1
		ip -n "$ns" link set dev lo up
	}
	[ -n "${HMAC[$h]:-}" ] || {
		# 02:00:II:II:0S:0N for host N of site S (0a, 0b)
		HMAC[$h]=$(printf '02:00:%02x:%02x:%02x:%02x' $((ID >> 8)) $((ID & 255)) \
			"0x0${h:0:1}" "${h:1}")
		HIP4[$h]=198.18.1.$((${#HIP4[@]} + 1))
		HIP6[$h]=2001:2:0:1::$((${#HIP6[@]} + 1))
		XT_CLEANUP_CMDS+=("ip netns pids $ns | xargs -r kill -KILL; ip netns del $ns")
		ip netns add "$ns" || return 1
		ip -n "$ns" link set dev lo up
	}
	ip -n "${SNS[$s]}" link add "$port" type veth peer name e0 netns "$ns" &&
		ip -n "${SNS[$s]}" link set dev "$port" up &&
		ip netns exec "${SNS[$s]}" sysctl -q -w "net.ipv6.conf.$port.disable_ipv6=1" &&
		ip -n "$ns" link set dev e0 address "${HMAC[$h]}" &&
		ip -n "$ns" addr add "${HIP4[$h]}/24" dev e0 &&
		ip -n "$ns" addr add "${HIP6[$h]}/64" dev e0 nodad &&
		ip -n "$ns" link set dev e0 up &&
		host_offloads "$ns" >/dev/null
}

# in_site S CMD...
in_site()
{
	local s=$1
	shift
	ip netns exec "${SNS[$s]}" "$@"
}

cli_json()
{
	local out
	out=$(in_site "$1" "$XDPBR" -j "${@:2}" 2>&1) || { echo "$out"; return 1; }
	[ -n "$out" ] || { echo "(no output)"; return 1; }
	echo "$out"
}

daemon_conf()
{
	local s=$1
	CONF[$s]=$XT_TMP/xdpbrd.$s.conf
	cat >"${CONF[$s]}" <<EOF
[bridge]
name = $BR
listen = none
host_interface = off
[port p1]
[port p2]
[vxlan]
vni = $VNI
local_ip = ${VTEP[$s]}
underlay = u0
EOF
}

# daemon_up S: site S's xdpbrd (its PID in DPID: ip netns exec execs it,
# and no function runs in between), until it forwards (30 s). A log of its
# own for each start.
NSTARTS=0
daemon_up()
{
	local s=$1
	NSTARTS=$((NSTARTS + 1))
	DLOG[$s]=$XT_TMP/xdpbrd.$s.$NSTARTS.log
	ip netns exec "${SNS[$s]}" "$XDPBRD" -d "$XT_DATAPATH" -c "${CONF[$s]}" \
		>"${DLOG[$s]}" 2>&1 &
	DPID[$s]=$!
	XT_PIDS+=("$!")
	xt_poll 30 grep -q "forwarding on" "${DLOG[$s]}" ||
		{ XT_WHY=$(cat "${DLOG[$s]}"); return 1; }
}

frr_conf()
{
	local s=$1 d=/etc/frr/${SNS[$1]}
	mkdir -p "$d" "/run/frr/${SNS[$s]}" || return 1
	: >"$d/vtysh.conf"
	printf 'hostname z%s\n' "$s" >"$d/zebra.conf"
	cat >"$d/bgpd.conf" <<EOF
hostname b$s
router bgp 65000
 bgp router-id ${VTEP[$s]}
 no bgp default ipv4-unicast
 neighbor ${PEER[$s]} remote-as 65000
 neighbor ${PEER[$s]} timers 3 9
 neighbor ${PEER[$s]} timers connect 1
 address-family l2vpn evpn
  neighbor ${PEER[$s]} activate
  advertise-all-vni
 exit-address-family
EOF
	chown -R frr:frr "$d" "/run/frr/${SNS[$s]}"
}

# frr_start S DAEMON: zebra or bgpd for site S, as MACHINE-FACTS says.
frr_start()
{
	local s=$1 dm=$2 n=${SNS[$1]}
	in_site "$s" "$FRR/$dm" -d -N "$n" -f "/etc/frr/$n/$dm.conf" \
		-i "/run/frr/$n/$dm.pid" -z "/run/frr/$n/zserv.api" \
		--vty_socket "/run/frr/$n" -P 0 >>"$XT_TMP/frr.$s.log" 2>&1
}

vty()
{
	local s=$1
	shift
	vtysh -N "${SNS[$s]}" -c "$*"
}

established()
{
	json_is object '.[$p].bgpState == "Established"' --arg p "${PEER[$1]}" -- \
		vty "$1" "show bgp neighbors ${PEER[$1]} json"
}

# evpn_macs S TYPE: the MACs zebra of site S lists in the VNI as TYPE
# (local, remote), sorted.
evpn_macs()
{
	local out
	out=$(vty "$1" "show evpn mac vni $VNI json") && [ -n "$out" ] || return 1
	jq -r --arg t "$2" '.macs // {} | to_entries[] | select(.value.type == $t) | .key' \
		<<<"$out" | sort
}

# want S TYPE: the MACs of hosts at site S (local) or elsewhere (remote).
want()
{
	local h
	for h in "${!HSITE[@]}"; do
		if [ "$2" = local ] && [ "${HSITE[$h]}" = "$1" ] ||
			{ [ "$2" = remote ] && [ "${HSITE[$h]}" != "$1" ]; }; then
			echo "${HMAC[$h]}"
		fi
	done | sort
}

zebra_agrees()
{
	[ "$(evpn_macs "$1" local)" = "$(want "$1" local)" ] &&
		[ "$(evpn_macs "$1" remote)" = "$(want "$1" remote)" ]
}

# fdb S: the hosts' entries in site S's xdpbr FDB as "MAC@PORT:STATE",
# sorted (the kernel side's own devices may send a frame or two).
fdb()
{
	cli_json "$1" fdb show |
		jq -r --arg p "${HMAC[a1]:0:11}" '.[] | select(.mac | ascii_downcase | startswith($p)) |
			"\(.mac | ascii_downcase)@\(.ifname):\(.state)"' | sort
}

want_fdb()
{
	local h
	for h in "${!HSITE[@]}"; do
		if [ "${HSITE[$h]}" = "$1" ]; then
			echo "${HMAC[$h]}@${HPORT[$h]}:"
		else
			echo "${HMAC[$h]}@$BR-gw:remote"
		fi
	done | sort
}

fdb_agrees()
{
	[ "$(fdb "$1")" = "$(want_fdb "$1")" ]
}

ping_h()
{
	ip netns exec "${HNS[$1]}" ping "${3:--4}" -c 1 -W 1 "$([ "${3:-}" = -6 ] &&
		echo "${HIP6[$2]}" || echo "${HIP4[$2]}")"
}

all_ping()
{
	local x y fam=${1:--4}
	for x in "${!HSITE[@]}"; do
		for y in "${!HSITE[@]}"; do
			[ "$x" = "$y" ] && continue
			ping_h "$x" "$y" "$fam" >/dev/null || { echo "$x -> $y $fam failed"; return 1; }
		done
	done
}

# captured FILE: tcpdump of FILE is listening.
captured()
{
	grep -q "listening on" "$1"
}

# --- topology
site a
site b
underlay || abort "underlay between the sites"
host a1 a p1 && host a2 a p2 && host b1 b p1 && host b2 b p2 || abort "hosts"
for s in a b; do
	daemon_conf "$s"
	daemon_up "$s" || abort "xdpbrd in ${SNS[$s]}" "$XT_WHY"
	frr_conf "$s" || abort "FRR configuration of site $s"
	frr_start "$s" zebra && frr_start "$s" bgpd ||
		abort "zebra/bgpd of site $s" "$(cat "$XT_TMP/frr.$s.log")"
done
check "A: xdpbrd made the overlay (vxlan $BR-vx in $BR-kbr, gateway $BR-gw)" \
	grep -q "overlay: vni $VNI, local ${VTEP[a]}, dstport 4789, underlay u0" "${DLOG[a]}"
json=$(in_site a ip -d -j link show dev "$BR-vx")
check_jq "A: $BR-vx is vxlan id $VNI local ${VTEP[a]} nolearning, a port of $BR-kbr" "$json" \
	'.[0].linkinfo.info_kind == "vxlan" and .[0].linkinfo.info_data.id == 100 and
	 .[0].linkinfo.info_data.local == "198.19.0.1" and .[0].linkinfo.info_data.learning == false and
	 .[0].master == $kbr' --arg kbr "$BR-kbr"
json=$(cli_json a vxlan show)
check_jq "A: xdpbr vxlan show" "$json" \
	'length == 1 and .[0].vni == 100 and .[0].local_ip == "198.19.0.1" and .[0].dstport == 4789
	 and .[0].underlay == "u0" and .[0].vxlan == $br + "-vx" and .[0].gateway == $br + "-gw"' \
	--arg br "$BR"

check "BGP EVPN session A-B established (60 s)" xt_poll 60 established a

# --- reachability across the sites
check "every host pings every host, IPv4 (first round may take 20 s)" \
	xt_poll 20 all_ping -4
check "every host pings every host, IPv4" all_ping -4
check "every host pings every host, IPv6" xt_poll 20 all_ping -6
for s in a b; do
	check "$s: zebra lists its hosts' MACs as local, the others as remote (15 s)" \
		xt_poll 15 zebra_agrees "$s"
	zebra_agrees "$s" || fail "  zebra of $s" "local: $(evpn_macs "$s" local)" \
		"remote: $(evpn_macs "$s" remote)" "$(vty "$s" "show evpn mac vni $VNI")"
	check "$s: xdpbr's FDB: its hosts on their ports, the others remote on $BR-gw (10 s)" \
		xt_poll 10 fdb_agrees "$s"
	fdb_agrees "$s" || fail "  FDB of $s" "want: $(want_fdb "$s")" "got: $(fdb "$s")"
done

json=$(cli_json a vxlan show)
check_jq "A: vxlan show counts 2 local MACs mirrored to zebra, 2 remote in the FDB" "$json" \
	'.[0].local_macs == 2 and .[0].remote_macs == 2 and .[0].state == "up"'
out=$(in_site a "$XDPBR" vxlan show 2>&1)
check_eq "A: vxlan show, text" \
	"$BR: vni 100 local_ip 198.19.0.1 dstport 4789 underlay u0 vxlan $BR-vx kernel_bridge $BR-kbr gateway $BR-gw state up local_macs 2 remote_macs 2" \
	"$out"

# --- unicast to a remote MAC is not flooded locally
cap=$XT_TMP/cap.a2
ip netns exec "${HNS[a2]}" timeout 20 tcpdump -i e0 -nn -e -l \
	"icmp and ether dst ${HMAC[b1]}" >"$cap" 2>&1 &
XT_PIDS+=("$!")
capb=$XT_TMP/cap.b1
ip netns exec "${HNS[b1]}" timeout 20 tcpdump -i e0 -nn -e -l \
	"icmp and ether dst ${HMAC[b1]}" >"$capb" 2>&1 &
XT_PIDS+=("$!")
xt_poll 10 captured "$cap" && xt_poll 10 captured "$capb"
ip netns exec "${HNS[a1]}" ping -c 20 -i 0.1 -W 1 "${HIP4[b1]}" >/dev/null 2>&1
sleep 1
nb=$(grep -c "${HMAC[b1]}" "$capb")
na=$(grep -c "${HMAC[b1]}" "$cap")
check "b1 received the 20 echo requests from a1 (a positive control: $nb)" test "$nb" -ge 20
check_eq "a2 (a local port of A) saw none of a1's unicast to remote b1" 0 "$na" "$(cat "$cap")"

# --- a host moves from site A to site B
ip -n "${SNS[a]}" link del p1
host a1 b p3 || abort "re-creating a1 at site B"
t0=$(date +%s%N)
in_site b "$XDPBR" link add dev p3 master "$BR" >"$XT_TMP/linkadd.log" 2>&1 ||
	abort "xdpbr link add dev p3 at B" "$(cat "$XT_TMP/linkadd.log")"
moved()
{
	ping_h a1 a2 && ping_h a2 a1 && ping_h b1 a1
}
# converged WHAT WHERE: a1 reachable from both sites within 5 s of t0
# (the time printed), then both FDBs and both zebras agree on WHERE it is.
converged()
{
	local what=$1 where=$2 ms
	if xt_poll 20 moved; then
		ms=$((($(date +%s%N) - t0) / 1000000))
		echo "# a1 $what: reachable again after $ms ms"
		check "a1 $what: reachable from both sites within 5 s ($ms ms)" \
			test "$ms" -le 5000
	else
		fail "a1 $what: reachable from both sites within 5 s (not in 20 s)"
	fi
	for s in a b; do
		check "$s: a1 $what: xdpbr's FDB agrees ($where) (10 s)" \
			xt_poll 10 fdb_agrees "$s"
		fdb_agrees "$s" || fail "  FDB of $s" "want: $(want_fdb "$s")" "got: $(fdb "$s")"
		check "$s: a1 $what: zebra agrees (10 s)" xt_poll 10 zebra_agrees "$s"
	done
	check "a1 $what: every host pings every host, IPv4" xt_poll 10 all_ping -4
}
converged "moved from A to B" "on B's p3"

# --- a1 moves back to A while its old port at B stays up (a migrated VM:
# the old port is silent, nothing is deleted): the remote entry of A's
# FDB must give way to a1's first frame at A, and B must follow zebra
# (no addresses left: it answers nothing, so every reply below comes from
# the host at A)
old_ns=${HNS[a1]}
ip netns exec "$old_ns" sysctl -q -w net.ipv6.conf.e0.disable_ipv6=1
ip -n "$old_ns" addr flush dev e0
ip -n "$old_ns" neigh flush dev e0
sleep 1
p1_is_port()
{
	json_is array '.[0].ifname == "p1"' -- cli_json a link show dev p1
}
host a1 a p1 "xt$ID-a1n" || abort "a1 at site A again"
xt_poll 20 p1_is_port || abort "A's daemon did not take p1 (configured) back" \
	"$(cat "${DLOG[a]}")"
t0=$(date +%s%N)
converged "moved back to A, its old port at B up" "on A's p1"

# --- a site's bgpd stops: its MACs leave the other side after the hold time
# (SIGSTOP: no NOTIFICATION, no TCP reset, as when a machine hangs; only
# the hold timer of B's bgpd, 9 s, ends the session)
no_remote_in_b()
{
	[ -z "$(evpn_macs b remote)" ] && ! fdb b | grep -q ':remote$'
}
bgpd_a=$(cat "/run/frr/${SNS[a]}/bgpd.pid")
kill -STOP "$bgpd_a"
t0=$(date +%s%N)
check "A's bgpd stopped: B drops A's MACs, from zebra and xdpbr's FDB (40 s)" \
	xt_poll 40 no_remote_in_b
ms=$((($(date +%s%N) - t0) / 1000000))
echo "# A's MACs withdrawn at B after $ms ms (hold time 9 s)"
# The hold timer runs from the last keepalive B got, up to 3 s before the
# stop: 6 to 9 s after it, with slack for a loaded machine.
check "... after the hold time, not before ($ms ms >= 5000)" test "$ms" -ge 5000
kill -KILL "$bgpd_a"
xt_poll 10 test ! -e "/proc/$bgpd_a"
frr_start a bgpd || abort "restarting A's bgpd" "$(cat "$XT_TMP/frr.a.log")"
check "A's bgpd back: session established (60 s)" xt_poll 60 established a
check "... and B's FDB has A's MACs again (30 s)" xt_poll 30 fdb_agrees b

# --- a daemon restart (SIGKILL, start) loses no frame of a running flow
ip netns exec "${HNS[a2]}" ping -c 1 -W 1 "${HIP4[b1]}" >/dev/null
ip netns exec "${HNS[a2]}" ping -c 150 -i 0.1 -W 1 "${HIP4[b1]}" >"$XT_TMP/ping.log" 2>&1 &
ping_pid=$!
XT_PIDS+=("$ping_pid")
sleep 2
kill -KILL "${DPID[b]}"
wait "${DPID[b]}" 2>/dev/null
daemon_up b || fail "B's xdpbrd started again" "$XT_WHY"
check "B's restarted xdpbrd took the overlay over" \
	grep -q "overlay: taken over" "${DLOG[b]}"
check_fail "B's restarted xdpbrd did not make the overlay anew" \
	grep -q "overlay: vni" "${DLOG[b]}"
wait "$ping_pid"
check "a2 -> b1 ping at 10/s across B's restart: no loss" \
	grep -q " 0% packet loss" "$XT_TMP/ping.log"
grep "packet loss" "$XT_TMP/ping.log" | sed 's/^/# /'
check "after the restart, B's FDB agrees (10 s)" xt_poll 10 fdb_agrees b

# --- a normal stop deletes the overlay
stop_pid "${DPID[a]}" TERM 10
check_eq "A's xdpbrd exits 0 on SIGTERM" 0 "$STOP_RC" "$(cat "${DLOG[a]}")"
check_fail "A: the overlay's objects are gone" in_site a ip link show dev "$BR-kbr"
check_fail "A: ... $BR-vx too" in_site a ip link show dev "$BR-vx"
check_fail "A: ... $BR-gw too" in_site a ip link show dev "$BR-gw"
json=$(cli_json b vxlan show)
check_jq "B (still running): vxlan show lists its overlay" "$json" 'length == 1' 

# --- a foreign object of an overlay name is an error
in_site a ip link add "$BR-kbr" type bridge
: >"${DLOG[a]}"
check_err "A: an interface $BR-kbr not made by xdpbrd: the daemon refuses to start" \
	in_site a timeout 20 "$XDPBRD" -d "$XT_DATAPATH" -c "${CONF[a]}"

finish

#!/usr/bin/env bash
# A bridge run entirely inside a network namespace with `ip netns exec`, and
# a second bridge of the same name in a second namespace, side by side.
#
# Each `ip netns exec` is a mount namespace of its own whose /sys has no
# bpffs: the daemon and every CLI call (each a new `ip netns exec`) must
# agree on the pins all the same. They are in the host's bpffs under
# xdpbr-netns/cookie-COOKIE/BRIDGE, the event socket in
# /run/xdpbr/netns-cookie-COOKIE/ (lib/paths.h); the host's `xdpbr` sees
# neither bridge.
#
#   namespace A (xt$ID-bra): ports p1 p2 p3 <-> hosts xt$ID-a1..a3
#   namespace B (xt$ID-brb): ports p1 p2    <-> hosts xt$ID-b1..b2
#   both bridges are called $BR, and their ports have the same names and
#   ifindexes, so anything keyed by name or ifindex alone would mix them.
#
# Run on both datapaths; on the XDP path also: frames the kernel drops after
# a redirect in A (tx_dropped, redirect_errors: machine-wide tracepoints)
# must be counted by A's bridge only, not by B's port of the same ifindex.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check / xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

# By side (a, b): bridge namespace, its inode and cookie, daemon PID and
# log, ports.
declare -A BRNS=() INO=() COOKIE=() DPID=() DLOG=() NPORTS=()
declare -A HNS=() HMAC=() HIP4=() HIP6=()	# by "a1", "b2", ...

# nsx_side S N: namespace S (a or b) with a bridge namespace and N hosts,
# host i behind port p$i. Host i of side a has 198.18.1.i, of side b
# 198.18.2.i; MACs 02:00:00:II:II:Si (S: 0xa or 0xb).
nsx_side()
{
	local s=$1 n=$2 i h ns sub=1 m=10
	[ "$s" = a ] || sub=2 m=11
	BRNS[$s]=xt$ID-br$s
	NPORTS[$s]=$n
	XT_CLEANUP_CMDS+=("ip netns pids ${BRNS[$s]} | xargs -r kill -KILL; ip netns del ${BRNS[$s]}")
	ip netns add "${BRNS[$s]}" || abort "ip netns add ${BRNS[$s]}"
	ip -n "${BRNS[$s]}" link set dev lo up || abort "lo up in ${BRNS[$s]}"
	INO[$s]=$(stat -L -c %i "/run/netns/${BRNS[$s]}")
	[ -n "${INO[$s]}" ] || abort "no inode for /run/netns/${BRNS[$s]}"
	COOKIE[$s]=$("$NETNSCOOKIE" "/run/netns/${BRNS[$s]}") || abort "no cookie for ${BRNS[$s]}"
	# what a daemon that was killed leaves, gone in any case
	XT_CLEANUP_CMDS+=("rm -rf $(pins_of "$s") /run/xdpbr/netns-cookie-${COOKIE[$s]}")
	XT_CLEANUP_CMDS+=("rmdir /sys/fs/bpf/xdpbr-netns")
	for ((i = 1; i <= n; i++)); do
		h=$s$i
		ns=xt$ID-$h
		HNS[$h]=$ns
		HMAC[$h]=$(printf '02:00:00:%02x:%02x:%x%x' $((ID >> 8)) $((ID & 255)) "$m" "$i")
		HIP4[$h]=198.18.$sub.$i
		HIP6[$h]=2001:2:0:$sub::$i
		XT_CLEANUP_CMDS+=("ip netns pids $ns | xargs -r kill -KILL; ip netns del $ns")
		ip netns add "$ns" || abort "ip netns add $ns"
		{
			ip -n "${BRNS[$s]}" link add "p$i" type veth peer name e0 netns "$ns" &&
			ip -n "${BRNS[$s]}" link set dev "p$i" up &&
			ip netns exec "${BRNS[$s]}" sysctl -q -w "net.ipv6.conf.p$i.disable_ipv6=1" &&
			ip -n "$ns" link set dev lo up &&
			ip -n "$ns" link set dev e0 address "${HMAC[$h]}" &&
			ip -n "$ns" addr add "${HIP4[$h]}/24" dev e0 &&
			ip -n "$ns" addr add "${HIP6[$h]}/64" dev e0 nodad &&
			ip -n "$ns" link set dev e0 up &&
			host_offloads "$ns"
		} >"$XT_TMP/topo.log" 2>&1 || abort "setting up host $h" "$(cat "$XT_TMP/topo.log")"
	done
}

# in_br S CMD...: CMD in side S's bridge namespace, a new `ip netns exec`.
in_br()
{
	local s=$1
	shift
	ip netns exec "${BRNS[$s]}" "$@"
}

# cli S ARG...: `xdpbr ARG...` from a new `ip netns exec` of side S, with no
# -b: the only bridge of the namespace.
cli()
{
	local s=$1
	shift
	in_br "$s" "$XDPBR" "$@"
}

# cli_json S ARG...: `xdpbr -j ARG...` of side S; fails on an error or on
# no output (jq 1.6 -e passes on empty input).
cli_json()
{
	local out
	out=$(cli "$1" -j "${@:2}" 2>&1) || { echo "$out"; return 1; }
	[ -n "$out" ] || { echo "(no output)"; return 1; }
	echo "$out"
}

# ping_h H1 H2 [-6]: one ping from host H1 to host H2.
ping_h()
{
	if [ "${3:-}" = -6 ]; then
		ip netns exec "${HNS[$1]}" ping -6 -c 1 -W 2 "${HIP6[$2]}"
	else
		ip netns exec "${HNS[$1]}" ping -c 1 -W 2 "${HIP4[$2]}"
	fi
}

# ready S: side S's CLI lists all its ports with the datapath attached.
ready()
{
	local n
	n=$(cli "$1" -j link show 2>/dev/null |
		jq '[.[] | select(.datapath != "none" and .host_interface == null)] | length' \
			2>/dev/null)
	[ "${n:-}" = "${NPORTS[$1]}" ] && grep -q "forwarding on" "${DLOG[$1]}"
}

# daemon_in S: start `ip netns exec BRNS xdpbrd $BR p1..pN` in the
# background (its PID is xdpbrd's: ip netns exec execs it) and wait until
# side S's CLI, from another `ip netns exec`, sees it ready (10 s).
daemon_in()
{
	local s=$1 ports=() i
	for ((i = 1; i <= NPORTS[$s]; i++)); do
		ports+=("p$i")
	done
	DLOG[$s]=$XT_TMP/xdpbrd.$s.log
	ip netns exec "${BRNS[$s]}" "$XDPBRD" -d "$XT_DATAPATH" "$BR" "${ports[@]}" \
		>"${DLOG[$s]}" 2>&1 &
	DPID[$s]=$!
	XT_PIDS+=("$!")
	if ! xt_poll 10 ready "$s"; then
		XT_WHY="xdpbrd in ${BRNS[$s]} not seen ready by its CLI in 10 s;
xdpbr -j link show: $(cli "$s" -j link show 2>&1)
xdpbrd log: $(cat "${DLOG[$s]}")"
		return 1
	fi
}

# daemon_out S: SIGTERM side S's daemon and wait for it (10 s); its exit
# status in STOP_RC.
daemon_out()
{
	stop_pid "${DPID[$1]}" TERM 10
	DPID[$1]=
}

# pins_of S, pin_dir_of S, sock_of S: side S's namespace's pin directory,
# its bridge's, and its event socket, as the host sees them.
pins_of()
{
	echo "/sys/fs/bpf/xdpbr-netns/cookie-${COOKIE[$1]}"
}
pin_dir_of()
{
	echo "$(pins_of "$1")/$BR"
}
sock_of()
{
	echo "/run/xdpbr/netns-cookie-${COOKIE[$1]}/$BR.sock"
}

# no_dp_left S: no port of side S has an XDP program or xdpbr's TC filter
# (prints what is left).
no_dp_left()
{
	local i x t rc=0
	for ((i = 1; i <= NPORTS[$1]; i++)); do
		x=$(in_br "$1" ip -j link show dev "p$i" | jq -c '.[0].xdp // empty')
		t=$(in_br "$1" tc -j filter show dev "p$i" ingress 2>/dev/null |
			jq -c '.[] | select(.options.handle == "0x7862")')
		[ -z "$x$t" ] || { echo "p$i: $x $t"; rc=1; }
	done
	return "$rc"
}

# fdb_macs S: the MACs of side S's FDB with their ports, "MAC@PORT" sorted.
fdb_macs()
{
	cli_json "$1" fdb show |
		jq -r '.[] | select(.state != "permanent") | "\(.mac | ascii_downcase)@\(.ifname)"' | sort
}

# want_macs S: what fdb_macs S should print once every host of S spoke.
want_macs()
{
	local i
	for ((i = 1; i <= NPORTS[$1]; i++)); do
		echo "${HMAC[$1$i]}@p$i"
	done | sort
}

# counter S PORT NAME: counter NAME of PORT on side S (`xdpbr -j stats`).
counter()
{
	cli_json "$1" stats dev "$2" | jq -r --arg n "$3" '.[0][$n] // "none"'
}

xt_require
xt_need stat:coreutils nsenter:util-linux curl

nsx_side a 3
nsx_side b 2

# --- a bridge run entirely in namespace A
daemon_in a || abort "xdpbrd in ${BRNS[a]}" "$XT_WHY"
check "A: xdpbrd says its state is under xdpbr-netns/cookie-${COOKIE[a]}/$BR" \
	grep -q "state in .*/xdpbr-netns/cookie-${COOKIE[a]}/$BR)" "${DLOG[a]}"
json=$(cli_json a link show)
check_jq "A: link show from another ip netns exec: p1 p2 p3 of $BR and its host port" "$json" \
	'length == 4 and ([.[] | select(.host_interface == null) | .ifname] | sort) == ["p1","p2","p3"] and
	 all(.[] | select(.host_interface == null); .master == $br and .state == "forwarding") and
	 ([.[] | select(.host_interface == $br) | .ifname] == [$br + "-host"])' --arg br "$BR"
json=$(cli_json a bridge show)
check_jq "A: bridge show: $BR, its daemon reached on its socket, its namespace's cookie" \
	"$json" 'length == 1 and .[0].ifname == $br and .[0].daemon == true and .[0].ports == 4 and
	 .[0].netns_cookie == ($c | tonumber)' --arg br "$BR" --arg c "${COOKIE[a]}"
check "A: pins in the host's bpffs, keyed by the namespace ($(pin_dir_of a))" \
	test -e "$(pin_dir_of a)/xdpbr_fdb" -a -e "$(pin_dir_of a)/prog_tc"
check "A: event socket $(sock_of a)" test -S "$(sock_of a)"
check_fail "A: no host event socket /run/xdpbr/$BR.sock" test -e "/run/xdpbr/$BR.sock"
check "A: nsenter --net (the host's mounts) finds the same bridge" \
	test "$(nsenter --net="/run/netns/${BRNS[a]}" "$XDPBR" -j bridge show 2>&1 |
		jq -r '.[0].ifname')" = "$BR"

for p in "a1 a2" "a2 a3" "a3 a1"; do
	read -r x y <<<"$p"
	check "A: ping $x -> $y" ping_h "$x" "$y"
done
check "A: ping a1 -> a2 IPv6" ping_h a1 a2 -6
check_eq "A: fdb show (another ip netns exec) has a1..a3 on p1..p3" \
	"$(want_macs a)" "$(fdb_macs a 2>&1)"
check "A: stats from another ip netns exec: p1 received frames" \
	test "$(counter a p1 rx_packets)" -gt 0 2>/dev/null
check "A: HTTP /stats in the namespace, port 9638" \
	in_br a curl -fsS --max-time 2 -o /dev/null http://127.0.0.1:9638/stats

# --- a second bridge of the same name in namespace B
daemon_in b || abort "xdpbrd $BR in ${BRNS[b]} next to A's" "$XT_WHY"
check "A and B are two namespaces (${INO[a]}, ${INO[b]})" test "${INO[a]}" != "${INO[b]}"
check "B: ping b1 -> b2" ping_h b1 b2
check "B: ping b2 -> b1 IPv6" ping_h b2 b1 -6
check "A still forwards: ping a1 -> a3" ping_h a1 a3
json=$(cli_json b link show)
check_jq "B: link show: only B's p1 p2 (and its host port)" "$json" \
	'length == 3 and ([.[] | select(.host_interface == null) | .ifname] | sort) == ["p1","p2"] and
	 all(.[]; .master == $br)' --arg br "$BR"
json=$(cli_json a link show)
check_jq "A: link show: still only A's p1 p2 p3 (and its host port)" "$json" 'length == 4'
check_eq "B: fdb show has b1 b2 only" "$(want_macs b)" "$(fdb_macs b 2>&1)"
check_eq "A: fdb show has a1..a3 only" "$(want_macs a)" "$(fdb_macs a 2>&1)"
json=$(cli_json b bridge show)
check_jq "B: bridge show: $BR, 2 ports, its own daemon" "$json" \
	'.[0].ifname == $br and .[0].ports == 3 and .[0].daemon == true' --arg br "$BR"
check "B: HTTP /stats in its namespace, the same port as A's" \
	in_br b curl -fsS --max-time 2 -o /dev/null http://127.0.0.1:9638/stats

# --- each bridge's host interface, named $BR in its own namespace
mac_a=$(ip -n "${BRNS[a]}" -j link show dev "$BR" 2>/dev/null | jq -r '.[0].address // empty')
mac_b=$(ip -n "${BRNS[b]}" -j link show dev "$BR" 2>/dev/null | jq -r '.[0].address // empty')
check "A and B: a host interface $BR in each namespace ($mac_a, $mac_b)" \
	test -n "$mac_a" -a -n "$mac_b"
check "... with different addresses (the namespace is part of the derived MAC)" \
	test "$mac_a" != "$mac_b"
check_fail "host: no interface $BR" ip link show dev "$BR"
in_br a ip addr add 198.18.1.254/24 dev "$BR" && in_br a ip link set dev "$BR" up
check "A: the namespace's host pings a1 through its host interface" \
	xt_poll 5 in_br a ping -c 1 -W 1 "${HIP4[a1]}"
check "A: a2 pings the namespace's host" ip netns exec "${HNS[a2]}" ping -c 1 -W 2 198.18.1.254

# --- the host sees neither
check_fail "host: xdpbr -b $BR bridge show finds no such bridge" \
	"$XDPBR" -b "$BR" bridge show
# host_unlisted BR: the host's bridge show answers, and BR is not in it:
# a list without it, the error naming several bridges (other runs'), or,
# when the host has no bridge at all, that error.
host_unlisted()
{
	local out
	if out=$("$XDPBR" -j bridge show 2>&1); then
		jq_true "$out" 'all(.[]; .ifname != $br)' --arg br "$1" || { echo "$out"; return 1; }
	elif grep -q "several bridges:" <<<"$out"; then
		! grep -qFw -- "$1" <<<"$out" || { echo "$out"; return 1; }
	else
		grep -q "no bridge found in $PIN_ROOT" <<<"$out" || { echo "$out"; return 1; }
	fi
}
check "host: xdpbr bridge show does not list $BR" host_unlisted "$BR"
check_fail "host: no /sys/fs/bpf/xdpbr/$BR" test -e "$PIN_DIR"
check_fail "a host namespace with no bridge: xdpbr link show fails" \
	ip netns exec "${HNS[a1]}" "$XDPBR" link show

# --- drops after a redirect, counted by A's bridge alone (XDP path)
if [ "$XT_DATAPATH" = xdp ]; then
	ifa=$(in_br a cat /sys/class/net/p2/ifindex)
	ifb=$(in_br b cat /sys/class/net/p2/ifindex)
	ifa1=$(in_br a cat /sys/class/net/p1/ifindex)
	ifb1=$(in_br b cat /sys/class/net/p1/ifindex)
	check_same "p2 has one ifindex in A and B (the drops below could be mixed up)" \
		"$ifa" "$ifb"
	check_same "p1 has one ifindex in A and B" "$ifa1" "$ifb1"
	# a2's MTU below the frames: veth refuses the redirected frames
	# (tx_dropped of A's p2); a3 without GRO: the redirect fails
	# (redirect_errors of A's p1), see test_counters.
	ping_h a1 a2 >/dev/null; ping_h a1 a3 >/dev/null
	da0=$(counter a p2 tx_dropped) db0=$(counter b p2 tx_dropped)
	ra0=$(counter a p1 redirect_errors) rb0=$(counter b p1 redirect_errors)
	ip -n "${HNS[a2]}" link set dev e0 mtu 1000
	ip netns exec "${HNS[a1]}" ping -c 3 -i 0.2 -W 1 -s 1200 "${HIP4[a2]}" >/dev/null 2>&1
	ip netns exec "${HNS[a3]}" ethtool -K e0 gro off >/dev/null
	ip netns exec "${HNS[a1]}" ping -c 3 -i 0.2 -W 1 "${HIP4[a3]}" >/dev/null 2>&1
	da1=$(counter a p2 tx_dropped) db1=$(counter b p2 tx_dropped)
	ra1=$(counter a p1 redirect_errors) rb1=$(counter b p1 redirect_errors)
	check "A: tx_dropped of p2 grew by 3 or more ($da0 -> $da1)" \
		test "$((da1 - da0))" -ge 3
	check_same "B: tx_dropped of its p2 (same ifindex) did not move" "$db0" "$db1"
	check "A: redirect_errors of p1 grew by 3 or more ($ra0 -> $ra1)" \
		test "$((ra1 - ra0))" -ge 3
	check_same "B: redirect_errors of its p1 (same ifindex) did not move" "$rb0" "$rb1"
	ip -n "${HNS[a2]}" link set dev e0 mtu 1500
	ip netns exec "${HNS[a3]}" ethtool -K e0 gro on >/dev/null
fi

# --- each daemon cleans up after itself, the other one going on
daemon_out a
check_eq "A: xdpbrd exits 0 on SIGTERM" 0 "$STOP_RC" "$(cat "${DLOG[a]}")"
check_fail "A: its pins are gone" test -e "$(pins_of a)"
check_fail "A: its socket and run directory are gone" test -e "/run/xdpbr/netns-cookie-${COOKIE[a]}"
check "A: no datapath program left on p1..p3" no_dp_left a
check_fail "A: the CLI finds no bridge any more" cli a link show
check "B goes on: ping b1 -> b2" ping_h b1 b2
json=$(cli_json b bridge show)
check_jq "B goes on: bridge show, its daemon still there" "$json" '.[0].daemon == true'
daemon_out b
check_eq "B: xdpbrd exits 0 on SIGTERM" 0 "$STOP_RC" "$(cat "${DLOG[b]}")"
check_fail "B: its pins are gone" test -e "$(pins_of b)"
check_fail "B: its socket and run directory are gone" test -e "/run/xdpbr/netns-cookie-${COOKIE[b]}"

xt_cleanup
left=$({
	ip netns list | grep "^xt$ID-"
	for s in a b; do
		[ -e "$(pins_of "$s")" ] && pins_of "$s"
		[ -e "/run/xdpbr/netns-cookie-${COOKIE[$s]}" ] && echo "/run/xdpbr/netns-cookie-${COOKIE[$s]}"
	done
} 2>/dev/null)
check_eq "cleanup leaves none of the namespaces, pins or sockets" "" "$left"
finish

#!/usr/bin/env bash
# datapaths: auto
# Many containers on one bridge device through the CNI bridge plugin
# (issue 28's 100-container test; test_cni.sh has the protocol): CNI_N
# containers (100 by default; a bridge holds 1024 ports) are added one by
# one, each container's veth an xdpbr port within 1 s of its ADD, the time
# of each ADD measured. Then every container pings the next one (the last
# the first), every ping answered, and xdpbr's rx_packets on each
# container's port grew by exactly what the container's eth0 sent (IPv6
# off in the containers: nothing else is sent). One broadcast from the
# first reaches each of the others exactly once. CNI DEL then takes each
# container's port and its FDB entry away within 1 s. On the skb path only
# (auto: a container's veth is a TC port), for CI's time.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317,SC2016 # functions run through xt_poll; a script for bash -c
. "$(dirname "$0")/lib.sh"
# shellcheck source=cni_lib.sh
. "$(dirname "$0")/cni_lib.sh"

CNI_N=${CNI_N:-100}

xt_require
cni_setup 198.18.4.0/24
ports_json() { json_of array "$XDPBR" -b "$BR" -j link show; }
is_port() { jq_true "$(ports_json)" 'any(.[]; .ifname == $p)' --arg p "$1"; }
not_port() { ports_json >/dev/null && ! is_port "$1"; }
fdb_lacks_mac() { ! "$XDPBR" -b "$BR" fdb show | grep -qi "^$1 "; }
# eth0 C WHAT: container C's eth0 counter WHAT (tx_packets, ...).
eth0() { ip netns exec "xt$ID-c$1" cat "/sys/class/net/eth0/statistics/$2"; }
# rx_of_ports: "ifname rx_packets" of every port, one line each.
rx_of_ports() { json_of array "$XDPBR" -b "$BR" -j stats | jq -r '.[] | "\(.ifname) \(.rx_packets)"'; }

daemon_start || abort "xdpbrd" "$XT_WHY"
ip link set dev "$BR" up
declare -a CIP CMAC HOSTV ADD_MS JOIN_MS
late=0
for ((c = 1; c <= CNI_N; c++)); do
	ns=xt$ID-c$c
	ip netns add "$ns" || abort "ip netns add $ns"
	XT_CLEANUP_CMDS+=("ip netns del $ns")
	ip netns exec "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 >/dev/null
	t0=${EPOCHREALTIME/./}
	res=$(cni ADD "$c") || abort "CNI ADD container $c" "$res"
	t1=${EPOCHREALTIME/./}
	ADD_MS[c]=$(((t1 - t0) / 1000))
	HOSTV[c]=$(jq -r '.interfaces[] | select(.sandbox == null and .mac != null and .name != $br) |
		.name' --arg br "$BR" <<<"$res" | head -1)
	if ! xt_poll 1 is_port "${HOSTV[c]}"; then
		late=$((late + 1))
		fail "CNI ADD container $c: its veth ${HOSTV[c]} an xdpbr port within 1 s" \
			"$(tail -5 "$DAEMON_LOG")"
	fi
	JOIN_MS[c]=$(((${EPOCHREALTIME/./} - t1) / 1000))
	printf '%s\n' "$res" >"$XT_TMP/add.$c"
	CIP[c]=$(jq -r '.ips[0].address | sub("/.*"; "")' <<<"$res")
	CMAC[c]=$(jq -r '.interfaces[] | select(.sandbox != null) | .mac' <<<"$res" | head -1)
	# As a test host's (host_offloads): checksums done, NAPI for XDP redirects.
	ip netns exec "$ns" ethtool -K eth0 tx off gro on >/dev/null 2>&1
done
check_eq "CNI ADD: all $CNI_N veths xdpbr ports within 1 s of their ADD" 0 "$late"
check_eq "xdpbr has $((CNI_N + 2)) ports (h1's, the host interface's, the containers')" \
	$((CNI_N + 2)) "$(ports_json | jq length)"
# spread WHAT MS...: WHAT's median, max and total of the MS.
spread()
{
	local what=$1 sorted
	shift
	sorted=$(printf '%s\n' "$@" | sort -n)
	echo "# $what, ms each: median $(sed -n "$((($# + 1) / 2))p" <<<"$sorted")," \
		"max $(tail -1 <<<"$sorted"), total $(awk '{ t += $1 } END { print t }' <<<"$sorted")" \
		"(load $(cut -d' ' -f1 /proc/loadavg))"
}
spread "CNI ADD (the plugin's run)" "${ADD_MS[@]:1}"
spread "from the ADD's result to an xdpbr port (polled every 0.1 s)" "${JOIN_MS[@]:1}"

# Every container pings the next; xdpbr counts exactly what each sent.
declare -A RX0
while read -r p n; do RX0[$p]=$n; done < <(rx_of_ports)
declare -a TX0
for ((c = 1; c <= CNI_N; c++)); do
	TX0[c]=$(eth0 "$c" tx_packets)
done
lost=()
for ((c = 1; c <= CNI_N; c++)); do
	d=$((c % CNI_N + 1))
	ip netns exec "xt$ID-c$c" ping -c 2 -i 0.2 -W 2 "${CIP[d]}" >"$XT_TMP/ping.$c" 2>&1 ||
		lost+=("$c->$d")
done
check_eq "every container pinged the next, every ping answered" "" "${lost[*]}" \
	"$(for c in "${lost[@]%%->*}"; do tail -2 "$XT_TMP/ping.$c"; done)"
# xdpbr's counters read between two reads of the containers' (an ARP
# probe may go out meanwhile): compared once both reads agree.
declare -A RX1
declare -a TXA TXB
for ((try = 0; try < 5; try++)); do
	sleep 1
	for ((c = 1; c <= CNI_N; c++)); do TXA[c]=$(eth0 "$c" tx_packets); done
	while read -r p n; do RX1[$p]=$n; done < <(rx_of_ports)
	for ((c = 1; c <= CNI_N; c++)); do TXB[c]=$(eth0 "$c" tx_packets); done
	[ "${TXA[*]}" = "${TXB[*]}" ] && break
done
check "the containers were quiet while xdpbr's counters were read (try $((try + 1)) of 5)" \
	test "${TXA[*]}" = "${TXB[*]}"
off=()
for ((c = 1; c <= CNI_N; c++)); do
	sent=$((TXB[c] - TX0[c]))
	got=$((${RX1[${HOSTV[c]}]:-0} - ${RX0[${HOSTV[c]}]:-0}))
	[ "$sent" -gt 0 ] && [ "$sent" = "$got" ] || off+=("c$c:sent=$sent,xdpbr=$got")
done
check_eq "xdpbr's rx_packets on each container's port = what its eth0 sent" "" "${off[*]}"
kl=$(bridge -j fdb show br "$BR" | jq -r '.[] | select((.state // "") != "permanent" and (.flags // [] | index("extern_learn") | not)) | .mac + " " + .ifname')
check_eq "the kernel bridge learned nothing" "" "$kl"
check "xdpbr learned every container's MAC" bash -c '
	f=$("$1" -b "$2" fdb show); shift 2
	for m; do grep -qi "^$m " <<<"$f" || exit 1; done' _ "$XDPBR" "$BR" "${CMAC[@]:1}"

# One broadcast from c1 (EtherType 0x88b5, local experimental): each other
# container's eth0 receives exactly one frame more, c1's none. Tried again
# while some container sent something of its own meanwhile (an ARP probe).
declare -a RXA RXB TXQ TXR
frame="ff:ff:ff:ff:ff:ff ${CMAC[1]} 88b5 $(printf '00%.0s' {1..46})"
for ((try = 0; try < 3; try++)); do
	for ((c = 1; c <= CNI_N; c++)); do
		RXA[c]=$(eth0 "$c" rx_packets) TXQ[c]=$(eth0 "$c" tx_packets)
	done
	# shellcheck disable=SC2086 # the frame's bytes, one word each
	ip netns exec "xt$ID-c1" "$XT_BUILD/tools/sendframe" eth0 $frame ||
		fail "c1 sends a broadcast frame"
	sleep 1
	quiet=1
	for ((c = 1; c <= CNI_N; c++)); do
		RXB[c]=$(eth0 "$c" rx_packets) TXR[c]=$(eth0 "$c" tx_packets)
		[ $((TXR[c] - TXQ[c])) = $((c == 1)) ] || quiet=0
	done
	[ "$quiet" = 1 ] && break
done
check "the containers were quiet while c1's broadcast went out (try $((try + 1)) of 3)" \
	test "$quiet" = 1
off=()
for ((c = 1; c <= CNI_N; c++)); do
	[ $((RXB[c] - RXA[c])) = $((c != 1)) ] || off+=("c$c:$((RXB[c] - RXA[c]))")
done
check_eq "c1's broadcast reached each of the other $((CNI_N - 1)) containers once, c1 none" \
	"" "${off[*]}"

gone=()
for ((c = 1; c <= CNI_N; c++)); do
	cni DEL "$c" >/dev/null || fail "CNI DEL container $c"
	xt_poll 1 not_port "${HOSTV[c]}" && xt_poll 1 fdb_lacks_mac "${CMAC[c]}" || gone+=("$c")
done
check_eq "CNI DEL: each container's port and FDB entry gone within 1 s" "" "${gone[*]}"
check_eq "xdpbr has its 2 ports left" 2 "$(ports_json | jq length)"
daemon_stop
finish

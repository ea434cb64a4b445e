# shellcheck shell=bash
# shellcheck disable=SC2034 # variables set here for the test scripts
#
# stp_lib.sh - helpers of the spanning tree suites (test_stp*.sh). Source it
# after lib.sh. Timers are shortened as the suites need: hello_time 1,
# forward_delay 4, max_age 6 (the lowest 802.1D allows with
# 2 * (forward_delay - 1) >= max_age).
#
#   BR2              a second xdpbr bridge (xt${ID}b), run by its own xdpbrd
#                    (stp_br2_start), pins in $PIN_ROOT/$BR2
#   stp_link A B     a veth pair A <-> B in the root namespace (a cable
#                    between two bridges, or a bridge and a peer)
#
# Everything made here is removed by lib.sh's cleanup (XT_CLEANUP_CMDS).

STP_HELLO=1
STP_FWD=4
STP_MAXAGE=6
BR2=${BR}b
PIN_DIR2=$PIN_ROOT/$BR2
BR2_PID=
BR2_LOG=$XT_TMP/xdpbrd2.log
STP_LINKS=()

XT_CLEANUP_CMDS+=('stp_cleanup')

stp_cleanup()
{
	local l
	if [ -n "$BR2_PID" ]; then
		stop_pid "$BR2_PID" TERM 5
		BR2_PID=
	fi
	for l in "${STP_LINKS[@]}"; do
		ip link del dev "$l"
	done
	rm -rf "$PIN_DIR2"
	ip link del dev "$BR2"
	rm -f "/run/xdpbr/$BR2.sock"
}

# stp_link A B: a veth pair between two bridges' ports, up, no IPv6.
stp_link()
{
	ip link add "$1" type veth peer name "$2" || return 1
	STP_LINKS+=("$1")
	sysctl -q -w "net.ipv6.conf.$1.disable_ipv6=1" >/dev/null
	sysctl -q -w "net.ipv6.conf.$2.disable_ipv6=1" >/dev/null
	ip link set dev "$1" up && ip link set dev "$2" up
}

# stp_bridge_conf FILE NAME PRIORITY EDGE-PORTS LINK-PORTS [EXTRA-BRIDGE-LINES]:
# a configuration with stp on and the short timers; EDGE-PORTS (a host's
# port each) are admin edge ports, LINK-PORTS plain ones (edge =
# $STP_LINK_EDGE if set); the HTTP endpoint on $STP_LISTEN (default none).
stp_bridge_conf()
{
	local f=$1 name=$2 prio=$3 p
	{
		printf '[bridge]\nname = %s\nlisten = %s\nstp = on\npriority = %s\n' "$name" \
			"${STP_LISTEN:-none}" "$prio"
		printf 'hello_time = %s\nmax_age = %s\nforward_delay = %s\n' \
			"$STP_HELLO" "$STP_MAXAGE" "$STP_FWD"
		[ -n "${6:-}" ] && printf '%s\n' "$6"
		for p in $4; do
			printf '[port %s]\nedge = on\n' "$p"
		done
		for p in $5; do
			printf '[port %s]\n' "$p"
			[ -n "${STP_LINK_EDGE:-}" ] && printf 'edge = %s\n' "$STP_LINK_EDGE"
		done
	} >"$f"
}

# stp_br2_start ARG...: the second bridge's xdpbrd (no host interface),
# started with ARG (-c FILE), waited for (10 s). 1, reason in XT_WHY, if it
# did not come up.
stp_br2_start()
{
	: >"$BR2_LOG"
	"$XDPBRD" -d "$XT_DATAPATH" -H off "$@" >>"$BR2_LOG" 2>&1 &
	BR2_PID=$!
	if xt_poll 10 grep -q "bridge $BR2: forwarding on" "$BR2_LOG"; then
		return 0
	fi
	XT_WHY="second xdpbrd ($BR2) not ready; its log:
$(cat "$BR2_LOG")"
	return 1
}

# stp_show BRIDGE: `xdpbr -b BRIDGE -j stp show`, if it printed an object.
stp_show()
{
	json_of object "$XDPBR" -b "$1" -j stp show
}

# stp_port BRIDGE PORT FIELD: a port's FIELD in stp show (raw jq output).
stp_port()
{
	local j
	j=$(stp_show "$1") || return 1
	jq -r --arg p "$2" --arg f "$3" 'first(.ports[] | select(.ifname == $p) | .[$f])' <<<"$j"
}

# stp_roles BRIDGE PORT...: "PORT:ROLE/STATE" for each PORT, on one line.
stp_roles()
{
	local j
	j=$(stp_show "$1") || return 1
	shift
	jq -r --arg ps "$*" '[($ps | split(" ")) as $want | .ports[] |
		select(.ifname as $n | $want | index($n)) |
		"\(.ifname):\(.role)/\(.state)"] | join(" ")' <<<"$j"
}

# What stp_roles prints when it read every port (check_same_match).
STP_ROLES_RE='[^ :]+:[a-z]+/[a-z]+( [^ :]+:[a-z]+/[a-z]+)*'

# stp_blocked_count "BRIDGE:PORT ...": how many of the ports are
# alternate or backup and discarding; and every other one forwarding
# (else prints "bad"). Prints the count.
stp_blocked_count()
{
	local bp br p role state n=0
	for bp in $1; do
		br=${bp%%:*}
		p=${bp#*:}
		role=$(stp_port "$br" "$p" role) || { echo bad; return 1; }
		state=$(stp_port "$br" "$p" state)
		case $role/$state in
		alternate/discarding | backup/discarding) n=$((n + 1)) ;;
		root/forwarding | designated/forwarding) ;;
		*) echo bad; return 1 ;;
		esac
	done
	echo "$n"
}

# stp_one_blocked "BRIDGE:PORT ...": exactly one of the ports blocks, the
# others forward.
stp_one_blocked()
{
	[ "$(stp_blocked_count "$1")" = 1 ]
}

# stp_same_root BRIDGE...: every bridge names the same root.
stp_same_root()
{
	local b r first=
	for b in "$@"; do
		r=$(stp_show "$b" | jq -r .root_id) || return 1
		[ -n "$r" ] && [ "$r" != null ] || return 1
		[ -z "$first" ] && first=$r
		[ "$r" = "$first" ] || return 1
	done
}

# stp_time_until SECONDS CMD...: poll CMD every 0.1 s; prints the seconds
# it took (3 decimals) and returns 0, or returns 1 after SECONDS.
stp_time_until()
{
	local secs=$1 t0 now
	shift
	t0=${EPOCHREALTIME/./}
	while :; do
		if "$@" >/dev/null 2>&1; then
			now=${EPOCHREALTIME/./}
			awk -v d=$((now - t0)) 'BEGIN { printf "%.3f\n", d / 1e6 }'
			return 0
		fi
		now=${EPOCHREALTIME/./}
		((now - t0 < secs * 1000000)) || return 1
		sleep 0.1
	done
}

STP_PING_INTERVAL=0.1

# stp_ping_start KEY I J: ping host J from host I every STP_PING_INTERVAL
# s, each reply timestamped (-D), in the background.
stp_ping_start()
{
	ip netns exec "${NS[$2]}" ping -n -D -i "$STP_PING_INTERVAL" -W 1 "${IP4[$3]}" \
		>"$XT_TMP/ping.$1.out" 2>&1 &
	PFX_PING_PID[$1]=$!
	XT_PIDS+=("$!")
}

# stp_ping_gap KEY: the longest silence in seconds (3 decimals) of the ping
# KEY, stopped by pfx_ping_stop: between two replies (their timestamps),
# and before the first and after the last reply (the requests lost there,
# by icmp_seq and ping's count of those it sent, one still in flight
# allowed, times STP_PING_INTERVAL). 99 when fewer than 2 replies came or
# ping printed no summary: an outage that never ended is no short gap.
stp_ping_gap()
{
	local out=$XT_TMP/ping.$1.out
	[ -f "$out" ] || { echo 99; return; }
	awk -v iv="$STP_PING_INTERVAL" '
		/bytes from/ && match($0, /icmp_seq=[0-9]+/) {
			t = substr($1, 2, length($1) - 2) + 0
			seq = substr($0, RSTART + 9, RLENGTH - 9) + 0
			if (n == 0) { first = seq } else if (t - prev > gap) { gap = t - prev }
			prev = t; last = seq; n++
		}
		/packets transmitted/ { tx = $1 + 0 }
		END {
			if (n < 2 || tx == 0) { print "99"; exit }
			if ((first - 1) * iv > gap) gap = (first - 1) * iv
			if ((tx - last - 1) * iv > gap) gap = (tx - last - 1) * iv
			printf "%.3f\n", gap
		}' "$out"
}

# stp_bcast_once I "J..." : one broadcast frame (EtherType 0x88b5) from host
# I; every host J must receive it exactly once, and host I never (a loop
# would bring it back, a storm many times). Prints what each saw.
stp_bcast_once()
{
	local i=$1 j ok=0 n
	for j in $2 $i; do
		stp_cap "bc$j" "$j" "ether proto 0x88b5" 4 || {
			echo "capture on host $j: $XT_WHY"
			return 1
		}
	done
	pfx_send "$i" ff:ff:ff:ff:ff:ff || return 1
	for j in $2 $i; do
		n=$(pfx_cap_n "bc$j")
		echo "host $j received $n"
		if [ "$j" = "$i" ]; then
			[ "$n" = 0 ] || ok=1
		else
			[ "$n" = 1 ] || ok=1
		fi
	done
	return $ok
}

# stp_roles_is BRIDGE "PORT:ROLE/STATE ...": stp_roles says exactly that.
stp_roles_is()
{
	local want=$2 ports
	ports=$(sed 's/:[^ ]*//g' <<<"$want")
	# shellcheck disable=SC2086 # the port names, one word each
	[ "$(stp_roles "$1" $ports)" = "$want" ]
}

# STP_PORT_NS[I]: the namespace host I's port is in, when it is not the
# root namespace (a port of a kernel bridge or an Open vSwitch in a
# namespace of their own).
declare -A STP_PORT_NS=()

# stp_cap KEY I FILTER SECONDS: pfx_cap for frames host I receives, its
# probes sent out of host I's port wherever that port is (STP_PORT_NS).
stp_cap()
{
	local key=$1 i=$2 probe k ns=${STP_PORT_NS[$2]:-}
	local out=$XT_TMP/cap.$key.out err=$XT_TMP/cap.$key.err

	pfx_cap_start "$key" "$i" "$3" "$4" "" in
	probe=$(pfx_probe_mac)
	for ((k = 0; k < 50; k++)); do
		grep -qsF "> $probe," "$out" && return 0
		proc_alive "${CAP_PID[$key]}" || break
		if grep -qs '^listening on' "$err"; then
			${ns:+ip netns exec "$ns"} "$SENDFRAME" "${PORT[i]}" \
				"$(eth_frame "$probe" "$probe" 88b6)" >/dev/null 2>&1
		fi
		sleep 0.1
	done
	XT_WHY="capture $key on e0 of ${NS[i]} did not get ready (no probe seen):
$(cat "$out" "$err" 2>&1)"
	return 1
}

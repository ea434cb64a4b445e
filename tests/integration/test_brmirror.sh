#!/usr/bin/env bash
# iproute2 as a view and a control of xdpbr (daemon/brmirror.c): with a
# Linux bridge device named after the bridge whose ports are xdpbr's
# ports, `bridge fdb`, `bridge link` and `ip link ... type bridge
# ageing_time` and xdpbr's own CLI see and change one state, in both
# directions, and the traffic shows the datapath obeys. The test makes the
# device itself (the kernel bridge forwards and learns nothing: its ports
# are listening) and runs xdpbrd with -H off on its ports.
# datapaths: auto
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and xt_poll
# shellcheck disable=SC2016 # commands and failure reports evaluated later (shows, eval)
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off

# kfdb MAC: the kernel FDB's line for MAC on the device (empty: none).
kfdb()
{
	bridge fdb show br "$BR" | grep -i "^$1 " || true
}

# kfdb_is MAC PORT WORD...: the kernel holds MAC on PORT with every WORD
# (extern_learn, static, sticky), and none of the other two.
kfdb_is()
{
	local line w mac=$1 port=$2
	shift 2
	line=$(kfdb "$mac")
	[[ "$line" == *" dev $port "* ]] || return 1
	for w in extern_learn static sticky; do
		if [[ " $* " == *" $w "* ]]; then
			[[ "$line" == *" $w"* ]] || return 1
		else
			[[ "$line" != *" $w"* ]] || return 1
		fi
	done
}

kfdb_lacks()
{
	[ -z "$(kfdb "$1")" ]
}

# klink PORT FLAG: on or off, as `bridge -d link show` says.
klink()
{
	bridge -d link show dev "$1" | grep -o " $2 o[nf]*" | awk '{ print $2 }'
}

klink_is()
{
	[ "$(klink "$1" "$2")" = "$3" ]
}

kageing()
{
	ip -d link show dev "$BR" | grep -o 'ageing_time [0-9]*' | awk '{ print $2 }'
}

kageing_is()
{
	[ "$(kageing)" = "$1" ]
}

xageing_is()
{
	[ "$(bridge_field ageing_time)" = "$1" ]
}

# shows NAME WHAT CMD...: check that CMD comes true within 3 s (the mirror
# looks once a second); the failure shows WHAT.
shows()
{
	local name=$1 what=$2
	shift 2
	if xt_poll 3 "$@"; then
		pass "$name"
	else
		fail "$name" "$(eval "$what" 2>&1)"
	fi
}

xt_require
topo_up 3
kbr_listening
daemon_start -a 250 || abort "xdpbrd start" "$XT_WHY"
hosts_quiet || abort "hosts_quiet"
log_poll "$DAEMON_LOG" "mirroring" 5 || abort "the mirror did not start" "$(cat "$DAEMON_LOG")"
# At start xdpbr's ageing wins over the device's (300 s, the kernel's default).
shows "at start xdpbrd -a 250 wins: the device's ageing_time is 25000" \
	'ip -d link show dev "$BR"' kageing_is 25000
check "... and xdpbr's is still 250" xageing_is 250

P1=${PORT[1]} P2=${PORT[2]} P3=${PORT[3]}
FDBK='bridge fdb show br "$BR"; "$XDPBR" -b "$BR" fdb show'

# --- the FDB, xdpbr -> kernel
check "ping h1 -> h2" hping 1 2
shows "learned entries are extern_learn entries on their ports" "$FDBK" \
	eval 'kfdb_is "${MAC[1]}" "$P1" extern_learn && kfdb_is "${MAC[2]}" "$P2" extern_learn'
S1=$(test_mac 1)
check "xdpbr fdb add static" "$XDPBR" -b "$BR" fdb add "$S1" dev "$P3" static
shows "xdpbr's static entry shows as static sticky" "$FDBK" kfdb_is "$S1" "$P3" static sticky
shows "... and so it does in xdpbr fdb show" "$FDBK" \
	eval '"$XDPBR" -b "$BR" fdb show | grep -qi "^$S1 dev $P3 .* static sticky "'
check "xdpbr fdb del" "$XDPBR" -b "$BR" fdb del "$S1" dev "$P3"
shows "xdpbr's delete deletes the kernel's entry" "$FDBK" kfdb_lacks "$S1"
sleep 1.5
check "the mirror's writes are not read back as users' adds: a learned entry stays dynamic" \
	fdb_has "${MAC[1]}" "$P1" ""
check "... and a deleted static entry stays deleted" fdb_lacks "$S1"
check_fail "... and none is logged as a user's" \
	grep -qi "bridge fdb: ${MAC[1]}\|bridge fdb: $S1" "$DAEMON_LOG"

# --- the FDB, kernel -> xdpbr
S2=$(test_mac 2) S3=$(test_mac 3)
check "bridge fdb add static" bridge fdb add "$S2" dev "$P2" master static
check "bridge fdb add static sticky" bridge fdb add "$S3" dev "$P2" master static sticky
shows "bridge fdb add static: in xdpbr's FDB, never aged, shown as the kernel's: static" "$FDBK" \
	fdb_has "$S2" "$P2" static
shows "... and the kernel still shows it static, not sticky" "$FDBK" kfdb_is "$S2" "$P2" static
shows "... and so does xdpbr fdb show: static, not sticky, not remote" "$FDBK" \
	eval '"$XDPBR" -b "$BR" fdb show | grep -i "^$S2 dev $P2 " | grep -q " static updated"'
shows "... and xdpbr fdb show static lists it" "$FDBK" \
	eval '"$XDPBR" -b "$BR" fdb show static | grep -qi "^$S2 "'
shows "bridge fdb add static sticky: a static entry of xdpbr's" "$FDBK" fdb_has "$S3" "$P2" static
# static sticky never moves: xdpbr drops a frame claiming it elsewhere
pfx_send 1 "${MAC[3]}" "$S3" || fail "sendframe from h1 as $S3"
shows "static sticky: heard on another port, it stays" "$FDBK" fdb_has "$S3" "$P2" static
# static moves, as the kernel's does
pfx_send 1 "${MAC[3]}" "$S2" || fail "sendframe from h1 as $S2"
shows "static: heard on another port, it moves (both views)" "$FDBK" \
	eval 'fdb_has "$S2" "$P1" && kfdb_is "$S2" "$P1" extern_learn'
check "bridge fdb del" bridge fdb del "$S3" dev "$P2" master
shows "bridge fdb del deletes xdpbr's entry" "$FDBK" fdb_lacks "$S3"
# extern_learn, as the kernel keeps one: never ages, moves (and is then
# learned where it moved to), shows as extern_learn; the mirror writes
# extern_learn entries too, for what xdpbr learned, and must neither take
# a user's for a stale one of its own nor its own for a user's
S4=$(test_mac 5)
check "bridge fdb add extern_learn" bridge fdb add "$S4" dev "$P2" master extern_learn
shows "bridge fdb add extern_learn: in xdpbr's FDB as extern_learn" "$FDBK" \
	fdb_has "$S4" "$P2" extern_learn
sleep 1.5
check "... and after the mirror's next look both views still have it" \
	eval 'fdb_has "$S4" "$P2" extern_learn && kfdb_is "$S4" "$P2" extern_learn'
check "... and xdpbr fdb show says extern_learn" \
	eval '"$XDPBR" -b "$BR" fdb show | grep -i "^$S4 dev $P2 " | grep -q " extern_learn updated"'

# --- ageing, both ways; aged entries leave the kernel's FDB
check "ip link set type bridge ageing_time 200" ip link set dev "$BR" type bridge ageing_time 200
shows "the kernel's ageing_time is xdpbr's" '"$XDPBR" -b "$BR" bridge show' xageing_is 2
shows "entries aged out by xdpbr leave the kernel's FDB" "$FDBK" \
	eval 'kfdb_lacks "${MAC[1]}" && fdb_lacks "${MAC[1]}"'
sleep 2.5
check "... but a user's extern_learn entry never ages (both views)" \
	eval 'fdb_has "$S4" "$P2" extern_learn && kfdb_is "$S4" "$P2" extern_learn'
pfx_send 1 "${MAC[3]}" "$S4" || fail "sendframe from h1 as $S4"
shows "extern_learn: heard on another port, it moves and is learned there (both views)" \
	"$FDBK" eval 'fdb_has "$S4" "$P1" "" && kfdb_is "$S4" "$P1" extern_learn'
check "xdpbr bridge set ageing_time 300" "$XDPBR" -b "$BR" bridge set ageing_time 300
shows "xdpbr's ageing_time shows in ip -d link show" 'ip -d link show dev "$BR"' kageing_is 30000

# --- port flags, kernel -> xdpbr -> kernel, each one
for f in learning flood mcast_flood bcast_flood isolated hairpin locked; do
	def=$(pfx_link_field "$P3" "$f")
	if [ "$def" = true ]; then new=off back=on; else new=on back=off; fi
	check "bridge link set dev $P3 $f $new" bridge link set dev "$P3" "$f" "$new"
	shows "bridge link $f $new shows in xdpbr link show" '"$XDPBR" -b "$BR" link show' \
		eval "[ \"\$(pfx_link_field \"$P3\" $f)\" = $([ "$new" = on ] && echo true || echo false) ]"
	check "xdpbr link set dev $P3 $f $back" "$XDPBR" -b "$BR" link set dev "$P3" "$f" "$back"
	shows "xdpbr link $f $back shows in bridge -d link show" 'bridge -d link show' \
		klink_is "$P3" "$f" "$back"
done

# --- the datapath obeys what bridge link set says
L=$(test_mac 4)
check "bridge link set dev $P2 learning off" bridge link set dev "$P2" learning off
# The mirror looks at the device on the port's link event, not at its next
# once-a-second look: a frame 0.2 s later already meets learning off (the
# kernel's selftests send right after bridge link set).
sleep 0.2
pfx_send 2 "${MAC[1]}" "$L" || fail "sendframe from h2 as $L"
sleep 0.3
check "learning off: a new source on $P2 sent 0.2 s after it is not learned" fdb_lacks "$L"
check "learning off in xdpbr" pfx_link_is "$P2" learning false
check "bridge link set dev $P2 learning on" bridge link set dev "$P2" learning on
shows "learning on in xdpbr" '"$XDPBR" -b "$BR" link show' pfx_link_is "$P2" learning true
pfx_send 2 "${MAC[1]}" "$L" || fail "sendframe from h2 as $L"
shows "learning on: it is learned, in both views" "$FDBK" \
	eval 'fdb_has "$L" "$P2" && kfdb_is "$L" "$P2" extern_learn'

check "bridge link set dev $P1 isolated on" bridge link set dev "$P1" isolated on
check "bridge link set dev $P2 isolated on" bridge link set dev "$P2" isolated on
shows "isolated on in xdpbr" '"$XDPBR" -b "$BR" link show' \
	eval 'pfx_link_is "$P1" isolated true && pfx_link_is "$P2" isolated true'
check_fail "isolated: h1 and h2 don't reach each other" hping 1 2
check "isolated: h1 reaches h3" hping 1 3
check "xdpbr link set dev $P1 isolated off" "$XDPBR" -b "$BR" link set dev "$P1" isolated off
shows "isolated off shows in bridge -d link show" 'bridge -d link show' klink_is "$P1" isolated off
check "isolated off: h1 reaches h2 again" hping 1 2

# --- a flag set while no mirror runs (the daemon killed: the pins stay):
# at the next start xdpbr's wins
daemon_stop KILL
check "no daemon: xdpbr link set dev $P3 hairpin on" "$XDPBR" -b "$BR" link set dev "$P3" hairpin on
check "... the kernel's is still off" klink_is "$P3" hairpin off
daemon_start || abort "xdpbrd start again" "$XT_WHY"
log_poll "$DAEMON_LOG" "mirroring" 5 || fail "the mirror did not start again" "$(cat "$DAEMON_LOG")"
shows "restart: xdpbr's hairpin on reaches bridge -d link show" 'bridge -d link show' \
	klink_is "$P3" hairpin on
check "restart: ... and xdpbr keeps it" pfx_link_is "$P3" hairpin true

check "before the stop: learned entries in the kernel's FDB" kfdb_is "$L" "$P2" extern_learn
S5=$(test_mac 6)
check "bridge fdb add extern_learn before the stop" \
	bridge fdb add "$S5" dev "$P3" master extern_learn
shows "... in xdpbr's FDB" "$FDBK" fdb_has "$S5" "$P3" extern_learn
daemon_stop || fail "xdpbrd stops" "$(cat "$DAEMON_LOG")"
check "a stop takes xdpbr's extern_learn entries away (the kernel never ages them)" \
	eval '! bridge fdb show br "$BR" | grep extern_learn | grep -vqi "^$S5 "'
check "... and leaves a user's" kfdb_is "$S5" "$P3" extern_learn

finish

#!/usr/bin/env bash
# datapaths: auto
# The pins of a network namespace's bridges are keyed by its cookie, which
# the kernel never hands out again, and go when the namespace goes
# (lib/netns.h):
#
#  - a bridge whose daemon was SIGKILLed and whose namespace was deleted is
#    seen by no later namespace, also not by one the kernel gave the dead
#    one's inode (forced and checked here); its pins are removed by the
#    next `xdpbr bridge show` or xdpbrd start, in any namespace (here: the
#    namespace of the reused inode, and the host's);
#  - a live namespace's bridge is never removed: one whose daemon runs, a
#    daemonless one (`xdpbr bridge add`), one left with --keep in a
#    namespace only a /run/netns bind mount keeps alive;
#  - a namespace directory without its proof of life is kept;
#  - the inode layout of an earlier version: a bridge whose ports run in
#    the namespace of that inode is moved by its next xdpbrd; another is
#    reported and kept.
#
# Each bridge has one port p1 (a veth pair p1/q1 inside its namespace):
# nothing is forwarded, the pins and their removal are what is checked.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and xt_poll
. "$(dirname "$0")/lib.sh"

NETNS_DIR=/sys/fs/bpf/xdpbr-netns
LIFE=netns_proof_of_life	# lib/netns.h
declare -A GNS=() INO=() COOKIE=() DPID=() DLOG=()

xt_require
command -v bpftool >/dev/null || abort "bpftool not installed (run make deps)"
[ -x "$NETNSCOOKIE" ] || abort "missing: $NETNSCOOKIE (make check-bins)"

# pins_of N, run_of N: namespace N's pin and socket directories.
pins_of()
{
	echo "$NETNS_DIR/cookie-${COOKIE[$1]}"
}
run_of()
{
	echo "/run/xdpbr/netns-cookie-${COOKIE[$1]}"
}

# ns_register N NAME: namespace NAME (made) is N: its inode and cookie, and
# its cleanup.
ns_register()
{
	local n=$1 name=$2
	GNS[$n]=$name
	INO[$n]=$(stat -L -c %i "/run/netns/$name") &&
		COOKIE[$n]=$("$NETNSCOOKIE" "/run/netns/$name") || return 1
	XT_CLEANUP_CMDS+=("ip netns pids $name | xargs -r kill -KILL; ip netns del $name")
	XT_CLEANUP_CMDS+=("rm -rf $(pins_of "$n") $(run_of "$n")")
}

# links_up N: lo, and p1 (veth to q1), up in namespace N.
links_up()
{
	local name=${GNS[$1]}
	ip -n "$name" link set dev lo up &&
		ip -n "$name" link add p1 type veth peer name q1 &&
		ip -n "$name" link set dev p1 up && ip -n "$name" link set dev q1 up
}

# ns_up N: a namespace xt$ID-N with its links up.
ns_up()
{
	ip netns add "xt$ID-$1" && ns_register "$1" "xt$ID-$1" && links_up "$1"
}

in_ns()
{
	local n=$1
	shift
	ip netns exec "${GNS[$n]}" "$@"
}

# daemon_up N [ARG...]: xdpbrd $BR p1 in namespace N, until it forwards
# (its PID in DPID: ip netns exec execs it).
daemon_up()
{
	local n=$1
	shift
	DLOG[$n]=$XT_TMP/xdpbrd.$n.$SECONDS.log
	ip netns exec "${GNS[$n]}" "$XDPBRD" -d "$XT_DATAPATH" --listen none "$@" "$BR" p1 \
		>"${DLOG[$n]}" 2>&1 &
	DPID[$n]=$!
	XT_PIDS+=("$!")
	xt_poll 15 grep -q "forwarding on" "${DLOG[$n]}" ||
		{ XT_WHY=$(cat "${DLOG[$n]}"); return 1; }
}

# life_ino N: the inode the proof of life of namespace N's pins names (0:
# its namespace is gone).
life_ino()
{
	bpftool -j link show pinned "$(pins_of "$1")/$LIFE" | jq -r '.netns_ino'
}

life_gone()
{
	[ "$(life_ino "$1")" = 0 ]
}

# gone N: namespace N (its daemon dead or stopped) deleted, and dead as its
# proof of life says.
gone()
{
	ip netns del "${GNS[$1]}" && xt_poll 10 life_gone "$1"
}

# bridge_lives N: the pins of N's bridge are there, and its CLI sees it.
bridge_lives()
{
	[ -e "$(pins_of "$1")/$BR/xdpbr_fdb" ] &&
		jq_true "$(in_ns "$1" "$XDPBR" -j bridge show 2>/dev/null)" '.[0].ifname == $br' \
			--arg br "$BR"
}

# --- a bridge whose daemon is killed, in a namespace that is then deleted
ns_up a || abort "namespace a"
daemon_up a || abort "xdpbrd in ${GNS[a]}" "$XT_WHY"
check "a: pins under $(pins_of a)/$BR" test -e "$(pins_of a)/$BR/xdpbr_fdb"
check_eq "a: its proof of life names its namespace's inode" "${INO[a]}" "$(life_ino a)"
json=$(in_ns a "$XDPBR" -j bridge show 2>/dev/null)
check_jq "a: bridge show says its netns_cookie" "$json" \
	'.[0].netns_cookie == ($c | tonumber)' --arg c "${COOKIE[a]}"
stop_pid "${DPID[a]}" KILL 5
check "a: SIGKILLed, its pins stay" test -e "$(pins_of a)/$BR/xdpbr_fdb"

# --- live namespaces' bridges, which must survive every collection below
ns_up l1 || abort "namespace l1"
check "l1: a bridge without a daemon (xdpbr bridge add)" in_ns l1 "$XDPBR" bridge add "$BR"
ns_up l2 || abort "namespace l2"
daemon_up l2 || abort "xdpbrd in ${GNS[l2]}" "$XT_WHY"
ns_up l3 || abort "namespace l3"
daemon_up l3 --keep || abort "xdpbrd --keep in ${GNS[l3]}" "$XT_WHY"
stop_pid "${DPID[l3]}" TERM 10
check_eq "l3: xdpbrd --keep stopped, no process left in the namespace (only its bind mount)" \
	"" "$(ip netns pids "${GNS[l3]}")"

# --- the dead namespace's inode handed out again
check "a: deleted, its proof of life says it is gone" gone a
# reuse N: hold new namespaces xt$ID-rK until one has N's inode (then its
# name is in $reused, the others deleted), for up to 100 tries. Inode
# numbers come from one allocator for every kind of namespace, lowest free
# first: on a machine where other processes make namespaces too, one of
# them may get it first.
RK=0
reuse()
{
	local want=${INO[$1]} k held=()
	reused=
	for ((k = 0; k < 100; k++, RK++)); do
		ip netns add "xt$ID-r$RK" || break
		ns_register "r$RK" "xt$ID-r$RK" || break
		if [ "${INO[r$RK]}" = "$want" ]; then
			reused=r$RK
			break
		else
			held+=("xt$ID-r$RK")
		fi
	done
	for k in "${held[@]}"; do
		ip netns del "$k"
	done
	[ -n "$reused" ]
}

dead=a
reuse a
# Missed (another process took it): more dead namespaces, a daemonless
# bridge in each, until one's inode is handed to us.
for ((v = 0; v < 5; v++)); do
	[ -z "$reused" ] || break
	ns_up "v$v" && in_ns "v$v" "$XDPBR" bridge add "$BR" && gone "v$v" || break
	reuse "v$v" && dead=v$v
done
if [ -z "$reused" ]; then
	fail "a new namespace gets a dead one's inode again (6 dead namespaces, 100 tries each)"
else
	n=$reused
	check_eq "the kernel gave a new namespace $dead's inode" "${INO[$dead]}" "${INO[$n]}"
	check "... and another cookie (${COOKIE[$dead]} -> ${COOKIE[$n]})" \
		test "${COOKIE[$dead]}" != "${COOKIE[$n]}"
	out=$(in_ns "$n" "$XDPBR" fdb show 2>&1)
	check_eq "it finds no bridge (xdpbr fdb show)" 1 "$?" "$out"
	check_fail "it can't open $BR (xdpbr -b $BR link show)" in_ns "$n" "$XDPBR" -b "$BR" link show
	check "$dead's pins are still there before any collection" test -e "$(pins_of "$dead")/$BR"
	in_ns "$n" "$XDPBR" bridge show >/dev/null 2>&1
	check_fail "xdpbr bridge show in it removed $dead's pins" test -e "$(pins_of "$dead")"
	check_fail "... and $dead's socket directory" test -e "$(run_of "$dead")"
	check_fail "... and a's (SIGKILLed daemon)" test -e "$(pins_of a)"

	# --- collected by an xdpbrd start in another namespace
	ns_up b || abort "namespace b"
	check "b: a bridge without a daemon" in_ns b "$XDPBR" bridge add "$BR"
	check "b: deleted, gone" gone b
	links_up "$n" && daemon_up "$n" || abort "xdpbrd in ${GNS[$n]}" "$XT_WHY"
	check_fail "an xdpbrd starting in the reused namespace removed b's pins" \
		test -e "$(pins_of b)"
	check "... and says so" grep -q "cookie ${COOKIE[b]} is gone: removed" "${DLOG[$n]}"
	check "... its own bridge under its own cookie" \
		test -e "$(pins_of "$n")/$BR/xdpbr_fdb"
fi

# --- collected by the host's xdpbr bridge show
ns_up c || abort "namespace c"
check "c: a bridge without a daemon" in_ns c "$XDPBR" bridge add "$BR"
check "c: deleted, gone" gone c
"$XDPBR" bridge show >/dev/null 2>&1
check_fail "xdpbr bridge show in the host's namespace removed c's pins" test -e "$(pins_of c)"

# --- no proof of life: kept
FAKE=$((9000000000000000000 + ID))
XT_CLEANUP_CMDS+=("rm -rf $NETNS_DIR/cookie-$FAKE")
mkdir -p "$NETNS_DIR/cookie-$FAKE/$BR"
"$XDPBR" bridge show >/dev/null 2>&1
check "a directory without a proof of life is kept" test -d "$NETNS_DIR/cookie-$FAKE/$BR"
rm -rf "$NETNS_DIR/cookie-$FAKE"

# --- the live ones came through all of it
check "l1: its daemonless bridge lives" bridge_lives l1
check "l2: its bridge lives, its daemon runs" bridge_lives l2
json=$(in_ns l2 "$XDPBR" -j bridge show 2>/dev/null)
check_jq "l2: ... reached on its socket" "$json" '.[0].daemon == true'
check "l3: its --keep bridge lives (the namespace kept by its bind mount)" bridge_lives l3
check_eq "l3: its proof of life names it" "${INO[l3]}" "$(life_ino l3)"
check "l3: p1 still runs the datapath" \
	test -n "$(in_ns l3 ip -j link show dev p1 | jq -r '.[0].xdp.prog.id // empty')$(
		in_ns l3 tc filter show dev p1 ingress 2>/dev/null)$(
		in_ns l3 "$TCXPROGS" p1 2>/dev/null)"

# --- the inode layout of an earlier version
# m: a bridge left forwarding (--keep), its pins put where an earlier
# version had them; its next xdpbrd moves them back and adopts the bridge.
ns_up m || abort "namespace m"
daemon_up m --keep || abort "xdpbrd --keep in ${GNS[m]}" "$XT_WHY"
stop_pid "${DPID[m]}" TERM 10
XT_CLEANUP_CMDS+=("rm -rf $NETNS_DIR/${INO[m]} /run/xdpbr/netns-${INO[m]}")
mkdir -p "$NETNS_DIR/${INO[m]}" && mv "$(pins_of m)/$BR" "$NETNS_DIR/${INO[m]}/" &&
	rm -f "$(pins_of m)/$LIFE" && rmdir "$(pins_of m)" ||
	abort "moving m's pins into $NETNS_DIR/${INO[m]}"
daemon_up m || abort "xdpbrd in ${GNS[m]} with the pins of an earlier version" "$XT_WHY"
check "m: xdpbrd moved its bridge from the inode layout" \
	grep -q "moved from $NETNS_DIR/${INO[m]} (the layout of an earlier version)" "${DLOG[m]}"
check "m: ... and adopted it" grep -q "adopted the pinned bridge" "${DLOG[m]}"
check "m: its pins under its cookie" test -e "$(pins_of m)/$BR/xdpbr_fdb"
check_fail "m: nothing left in the inode layout" test -e "$NETNS_DIR/${INO[m]}"
# an inode no namespace of ours has: whose it is can't be told
OLD=$((4000000000 + ID))
XT_CLEANUP_CMDS+=("rm -rf $NETNS_DIR/$OLD")
mkdir -p "$NETNS_DIR/$OLD/$BR"
out=$("$XDPBR" bridge show 2>&1)
check "the inode layout of an unknown namespace is reported" \
	grep -q "$NETNS_DIR/$OLD: pins of an earlier version (bridges: $BR)" <<<"$out"
check "... and kept" test -d "$NETNS_DIR/$OLD/$BR"
rm -rf "${NETNS_DIR:?}/$OLD"

# Last of the cleanup, after every namespace's pins: their directory, if
# that left it empty (the daemons made it).
XT_CLEANUP_CMDS+=("rmdir $NETNS_DIR")
xt_cleanup
left=$(for n in "${!COOKIE[@]}"; do
	[ -e "$(pins_of "$n")" ] && pins_of "$n"
	[ -e "$(run_of "$n")" ] && run_of "$n"
done; ip netns list | grep "^xt$ID-")
check_eq "cleanup leaves none of the namespaces, pins or sockets" "" "$left"
finish

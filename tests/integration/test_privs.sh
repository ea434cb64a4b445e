#!/usr/bin/env bash
# datapaths: auto
# Privilege separation in xdpbrd (daemon/privs.h, daemon/http.h), read from
# /proc/PID/status, /proc/PID/fd and /proc/PID/fdinfo of the running daemon
# and of its HTTP process:
#  - the daemon has one thread, which keeps exactly CAP_BPF, CAP_NET_ADMIN,
#    CAP_PERFMON, CAP_NET_RAW and, for the HTTP process, CAP_SETUID,
#    CAP_SETGID, CAP_SETPCAP and CAP_KILL (effective and permitted);
#  - the HTTP endpoint is a child process (xdpbrd-http) of uid and gid
#    nobody with no supplementary group, no capability in any set (the
#    bounding one too), no_new_privs and a seccomp filter; its descriptors
#    are /dev/null (0, 1), the daemon's log (2), the listening socket the
#    daemon holds too, read-only map descriptors (one per map it reads), its
#    epoll instance and the read end of the status pipe, nothing else;
#  - the kernel refuses a write through each of its map descriptors (EPERM),
#    while a write through the daemon's own descriptor of the same map works;
#  - a killed HTTP process is restarted, stripped the same, and said so in
#    the log; one that dies again soon waits twice as long; it dies with the
#    daemon (SIGKILL), and a reload that moves the endpoint replaces it;
#  - a daemon that is not permitted a capability it keeps refuses to start
#    and says which, leaving no pins and no program on the ports;
#  - under the systemd unit's bounding set (no new privileges) it starts,
#    says nothing about a failed drop, and both processes hold the same.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check and xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

# CAP_KILL (5), CAP_SETGID (6), CAP_SETUID (7), CAP_SETPCAP (8),
# CAP_NET_ADMIN (12), CAP_NET_RAW (13), CAP_PERFMON (38) and CAP_BPF (39),
# as /proc shows a set.
MAIN_CAPS=$(printf '%016x' $(((1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 12) |
	(1 << 13) | (1 << 38) | (1 << 39))))
NONE_CAPS=0000000000000000
# The maps the HTTP endpoint reads (lib/report.c, daemon/http.c).
HTTP_MAPS="xdpbr_bridge xdpbr_config xdpbr_fdb xdpbr_learned xdpbr_ports xdpbr_stats xdpbr_stp_stat"

# conf FILE LISTEN: the bridge with hosts 1 and 2 as its ports, the
# endpoint on 127.0.0.1:LISTEN.
conf()
{
	printf '[bridge]\nname = %s\nlisten = 127.0.0.1:%s\n[port %s]\n[port %s]\n' \
		"$BR" "$2" "${PORT[1]}" "${PORT[2]}" >"$1"
}

# threads PID: one line per thread: TID NAME CapEff CapPrm CapInh CapAmb.
threads()
{
	local t
	for t in /proc/"$1"/task/*; do
		awk -v tid="${t##*/}" '
			$1 == "Name:" { name = $2 }
			$1 ~ /^Cap(Eff|Prm|Inh|Amb):$/ { c[$1] = $2 }
			END { print tid, name, c["CapEff:"], c["CapPrm:"], c["CapInh:"], c["CapAmb:"] }
		' "$t/status"
	done
}

# check_threads NAME PID: the daemon has one thread, whose effective and
# permitted sets are MAIN_CAPS, its inheritable and ambient ones empty.
check_threads()
{
	local name=$1 t
	t=$(threads "$2")
	check_eq "$name" "$2 xdpbrd $MAIN_CAPS $MAIN_CAPS $NONE_CAPS $NONE_CAPS" "$t" \
		"TID NAME CapEff CapPrm CapInh CapAmb:"
}

# http_pid: the daemon's HTTP process (empty when there is none, or more
# than one).
http_pid()
{
	local p
	p=$(pgrep -P "$DAEMON_PID" -x xdpbrd-http)
	[ "$(wc -w <<<"$p")" = 1 ] && echo "$p"
}

# http_wait OLD: waits (8 s at most) for an HTTP process other than OLD;
# prints its pid.
http_wait()
{
	local i p
	for ((i = 0; i < 80; i++)); do
		p=$(http_pid)
		if [ -n "$p" ] && [ "$p" != "$1" ]; then
			echo "$p"
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# check_stripped NAME PID: uid and gid nobody, no group, every capability
# set empty, no_new_privs, seccomp filtering, one thread.
check_stripped()
{
	local name=$1 pid=$2 u g want got
	u=$(id -u nobody)
	g=$(id -g nobody)
	want="Uid: $u $u $u $u|Gid: $g $g $g $g|Groups:|Threads: 1|CapInh: $NONE_CAPS|"
	want+="CapPrm: $NONE_CAPS|CapEff: $NONE_CAPS|CapBnd: $NONE_CAPS|CapAmb: $NONE_CAPS|"
	want+="NoNewPrivs: 1|Seccomp: 2|"
	got=$(awk '$1 ~ /^(Uid|Gid|Groups|Threads|Cap...|NoNewPrivs|Seccomp):$/ {
		$1 = $1; printf "%s|", $0 }' "/proc/$pid/status" 2>/dev/null)
	check_eq "$name" "$want" "$got" "(/proc/$pid/status)"
}

# http_fds PID: one line per descriptor of the HTTP process PID that is not
# what it should hold (check_fds).
http_fds()
{
	local pid=$1 f fd what flags log lsock
	log=$(readlink "/proc/$DAEMON_PID/fd/2")
	lsock=$(ss -Hltnp "( sport = :${OBS_HTTP##*:} )" | grep -o "pid=$pid,fd=[0-9]*" |
		cut -d= -f3)
	for f in /proc/"$pid"/fd/*; do
		fd=${f##*/}
		what=$(readlink "$f")
		flags=$(awk '$1 == "flags:" { print $2 }' "/proc/$pid/fdinfo/$fd")
		case "$fd:$what" in
		0:/dev/null | 1:/dev/null) continue ;;
		"2:$log") continue ;;
		*:anon_inode:bpf-map) (((8#$flags & 3) == 0)) && continue ;;
		*:anon_inode:\[eventpoll\]) continue ;;
		*:pipe:*) (((8#$flags & 3) == 0)) && continue ;;
		*:socket:*) [ "$fd" = "$lsock" ] && continue ;;
		esac
		echo "fd $fd: $what (flags $flags)"
	done
}

# check_fds NAME PID: the HTTP process holds nothing but std fds to
# /dev/null and the log, the listening socket, read-only map descriptors,
# its epoll instance and the read end of a pipe.
check_fds()
{
	local bad
	bad=$(http_fds "$2")
	check_eq "$1" "" "$bad" "$(ls -l "/proc/$2/fd/")"
}

# map_fds PID: one line per BPF map descriptor of PID: FD MODE MAP-NAME,
# MODE ro or rw from the descriptor's open flags in fdinfo.
map_fds()
{
	local f fd flags id name
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = anon_inode:bpf-map ] || continue
		fd=${f##*/}
		flags=$(awk '$1 == "flags:" { print $2 }' "/proc/$1/fdinfo/$fd")
		id=$(awk '$1 == "map_id:" { print $2 }' "/proc/$1/fdinfo/$fd")
		if [ -z "$flags" ] || [ -z "$id" ]; then
			continue
		fi
		name=$(bpftool -j map show id "$id" 2>/dev/null | jq -r '.name // empty')
		if (((8#$flags & 3) == 0)); then
			echo "$fd ro ${name:-?}"
		else
			echo "$fd rw ${name:-?}"
		fi
	done
}

# mapwrite PID FD: the kernel's answer to a write through descriptor FD of
# PID (taken with pidfd_getfd): the first element's value written back as
# read (BPF_EXIST: nothing new is created). Prints 0 or the errno name.
MAPWRITE=$XT_TMP/mapwrite
build_mapwrite()
{
	cat >"$XT_TMP/mapwrite.c" <<'EOF'
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/syscall.h>

static long bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

int main(int argc, char **argv)
{
	static char key[512], val[1 << 16];
	struct bpf_map_info info = { 0 };
	union bpf_attr a;
	int pidfd, fd;

	if (argc != 3)
		return 2;
	pidfd = syscall(SYS_pidfd_open, atoi(argv[1]), 0);
	fd = pidfd < 0 ? -1 : syscall(SYS_pidfd_getfd, pidfd, atoi(argv[2]), 0);
	if (fd < 0) {
		perror("pidfd_getfd");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(info);
	a.info.info = (unsigned long)&info;
	if (bpf(BPF_OBJ_GET_INFO_BY_FD, &a) || info.key_size > sizeof(key)) {
		perror("BPF_OBJ_GET_INFO_BY_FD");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (unsigned long)key;
	a.value = (unsigned long)val;
	bpf(BPF_MAP_LOOKUP_ELEM, &a);		/* the value to write back */
	a.flags = BPF_EXIST;
	if (bpf(BPF_MAP_UPDATE_ELEM, &a))
		printf("%s\n", errno == EPERM ? "EPERM" : strerror(errno));
	else
		printf("0\n");
	return 0;
}
EOF
	gcc -O2 -o "$MAPWRITE" "$XT_TMP/mapwrite.c" 2>"$XT_TMP/mapwrite.err"
}

# check_ro_maps NAME PID: the HTTP side's read-only descriptors cover the
# maps it reads, and a write through any read-only one is refused.
check_ro_maps()
{
	local name=$1 pid=$2 fds ro m missing='' fd mode mname got bad=''
	fds=$(map_fds "$pid")
	ro=$(awk '$2 == "ro" { print $3 }' <<<"$fds" | sort)
	for m in $HTTP_MAPS; do
		grep -qx "$m" <<<"$ro" || missing+="$m "
	done
	check_eq "$name: read-only descriptors for every map the HTTP side reads" "" \
		"$missing" "missing: $missing" "FD MODE MAP:" "$fds"
	while read -r fd mode mname; do
		[ "$mode" = ro ] || continue
		got=$("$MAPWRITE" "$pid" "$fd" 2>&1)
		[ "$got" = EPERM ] || bad+="fd $fd ($mname): $got; "
	done <<<"$fds"
	if [ -n "$ro" ] && [ -z "$bad" ]; then
		pass "$name: the kernel refuses a write through each of the $(wc -l <<<"$ro") read-only descriptors (EPERM)"
	else
		fail "$name: the kernel refuses a write through each read-only descriptor" \
			"${bad:-no read-only descriptors}" "FD MODE MAP:" "$fds"
	fi
}

xt_require
xt_need curl
xt_need bpftool
build_mapwrite || abort "building the mapwrite helper" "$(cat "$XT_TMP/mapwrite.err")"
topo_up 2
CONF=$XT_TMP/xdpbrd.conf
# Not in $(...): obs_pick_port remembers the last port in OBS_LAST_PORT.
obs_pick_port >/dev/null || abort "no free loopback port"
LISTEN1=$OBS_LAST_PORT
obs_pick_port >/dev/null || abort "no free loopback port"
LISTEN2=$OBS_LAST_PORT
OBS_HTTP=127.0.0.1:$LISTEN1
conf "$CONF" "$LISTEN1"
pfx_daemon_start 2 -c "$CONF" || abort "xdpbrd -c $CONF" "$XT_WHY"
obs_http_wait 5 || abort "no answer on $OBS_HTTP" "$(cat "$DAEMON_LOG")"

# ------------------------------------------ the daemon and its HTTP process

check_threads "daemon: one thread, exactly its eight capabilities" "$DAEMON_PID"
HTTP_PID=$(http_pid)
[ -n "$HTTP_PID" ] || abort "no HTTP process (xdpbrd-http) under xdpbrd $DAEMON_PID" \
	"$(ps -o pid,ppid,user,comm --ppid "$DAEMON_PID")"
check_stripped "HTTP process $HTTP_PID: nobody, no capability in any set, no_new_privs, seccomp" \
	"$HTTP_PID"
check_fds "HTTP process: only the listening socket, read-only maps, std fds, epoll, the pipe" \
	"$HTTP_PID"
check "ping h1 -> h2" hping 1 2
stats=$(obs_get /stats)
check_jq "GET /stats from the HTTP process: both ports, h1's pings counted" \
	"${stats:-null}" '(.ports | length) >= 2 and
	 any(.ports[]; .ifname == $p and .counters.forwarded >= 1)' --arg p "${PORT[1]}"
fdb=$(obs_get "/fdb?port=${PORT[1]}")
check_jq "GET /fdb?port= from the HTTP process: h1's MAC, its port named" "${fdb:-null}" \
	'any(.entries[]; .mac == $m and .ifname == $p)' --arg m "${MAC[1]}" --arg p "${PORT[1]}"
metrics=$(obs_get /metrics)
check "GET /metrics from the HTTP process" grep -q '^xdpbr_' <<<"$metrics"
check_stripped "after serving requests: the HTTP process is the same and as stripped" \
	"$(http_pid)"

# ------------------------------------------------- read-only map descriptors

check_ro_maps "HTTP process" "$HTTP_PID"
check_eq "HTTP process: no read-write map descriptor" "" \
	"$(map_fds "$HTTP_PID" | awk '$2 != "ro"')"
cfg_rw=$(map_fds "$DAEMON_PID" | awk '$2 == "rw" && $3 == "xdpbr_config" { print $1; exit }')
check_eq "control: a write through the daemon's own descriptor of xdpbr_config works" 0 \
	"$([ -n "$cfg_rw" ] && "$MAPWRITE" "$DAEMON_PID" "$cfg_rw" 2>&1)" \
	"$(map_fds "$DAEMON_PID")"

# ----------------------------------------------- a killed HTTP process

kill -KILL "$HTTP_PID"
new=$(http_wait "$HTTP_PID")
check "killed: a new HTTP process comes (was $HTTP_PID, now ${new:-none})" test -n "$new"
check "killed: the daemon says it died and when it comes back" \
	grep -q "HTTP process (pid $HTTP_PID) was killed by signal 9 .*; restarting it in 1 s" \
	"$DAEMON_LOG"
check_stripped "killed: the new HTTP process is as stripped" "${new:-0}"
check_fds "killed: the new HTTP process holds what the first did" "${new:-0}"
check "killed: the endpoint answers again" obs_http_wait 5
kill -KILL "${new:-0}"
again=$(http_wait "$new")
check "killed again within 10 s of its start: it waits twice as long" \
	grep -q "HTTP process (pid $new) was killed .*; restarting it in 2 s" "$DAEMON_LOG"
check "killed again: it comes back too" test -n "$again"
check "the daemon forwards throughout: ping h1 -> h2" hping 1 2

# -------------------------------------------- a reload moves the endpoint

old=$(http_pid)
conf "$CONF" "$LISTEN2"
kill -HUP "$DAEMON_PID"
OBS_HTTP=127.0.0.1:$LISTEN2
check "reload: the endpoint answers on its new port $LISTEN2 (was $LISTEN1)" obs_http_wait 5
check_fail "reload: the old HTTP process ($old) is gone" test -e "/proc/${old:-none}"
check_stripped "reload: the new HTTP process holds none either" "$(http_pid)"
check_ro_maps "reload: HTTP process" "$(http_pid)"

# ------------------------------------------- it dies with the daemon

old=$(http_pid)
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=
check_fail "daemon killed: its HTTP process ($old) dies with it" \
	xt_poll 2 proc_alive "${old:-1}"
# The pinned bridge forwards on; a new daemon adopts it and cleans up.
pfx_daemon_start 2 -c "$CONF" || abort "xdpbrd -c $CONF after a kill" "$XT_WHY"
check "restarted daemon: the endpoint answers" obs_http_wait 5
hpid=$(http_pid)
[ -n "$hpid" ] || abort "no HTTP process under the restarted daemon" "$(cat "$DAEMON_LOG")"
daemon_stop
check_eq "SIGTERM: xdpbrd exits 0" 0 "$DAEMON_RC" "$(cat "$DAEMON_LOG")"
# By its PID: once the daemon is gone, an orphan would have another parent.
check "SIGTERM: no HTTP process is left (pid $hpid)" xt_poll 5 bash -c "! kill -0 $hpid 2>/dev/null"

# ----------------------------- a capability it keeps is not permitted

# Root's permitted set is its bounding set: without CAP_PERFMON there, the
# daemon can't end up with the set it documents.
timeout 10 setpriv --bounding-set=-perfmon "$XDPBRD" -d "$XT_DATAPATH" -c "$CONF" \
	>"$XT_TMP/noperfmon.log" 2>&1
rc=$?
check_eq "without CAP_PERFMON permitted: xdpbrd refuses to start (exit status 1)" 1 "$rc" \
	"$(cat "$XT_TMP/noperfmon.log")"
check "without CAP_PERFMON permitted: it says CAP_PERFMON is missing" \
	grep -q "without CAP_PERFMON" "$XT_TMP/noperfmon.log"
check "without CAP_PERFMON permitted: no program left on the ports" no_xdp_anywhere
check_fail "without CAP_PERFMON permitted: no pins left" test -e "$PIN_DIR"

# ------------------------------------- the systemd unit's bounding set

# systemd/xdpbrd@.service: CapabilityBoundingSet= and NoNewPrivileges=yes.
unit_caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$XT_ROOT/systemd/xdpbrd@.service")
bset=-all
for c in $unit_caps; do
	c=${c#CAP_}
	bset+=",+${c,,}"
done
cat >"$XT_TMP/xdpbrd-unit" <<EOF
#!/bin/sh
exec setpriv --bounding-set=$bset --no-new-privs "$XDPBRD" "\$@"
EOF
chmod +x "$XT_TMP/xdpbrd-unit"
XDPBRD=$XT_TMP/xdpbrd-unit
OBS_HTTP=127.0.0.1:$LISTEN2
if pfx_daemon_start 2 -c "$CONF"; then
	pass "under the unit's bounding set ($bset): xdpbrd starts"
	check "under the unit's bounding set: the endpoint answers" obs_http_wait 5
	check_threads "under the unit's bounding set: the daemon exactly its eight" "$DAEMON_PID"
	check_stripped "under the unit's bounding set: the HTTP process is as stripped" \
		"$(http_pid)"
	check_fail "under the unit's bounding set: no warning about dropping capabilities" \
		grep -i "capabilit" "$DAEMON_LOG"
	daemon_stop
	check_eq "under the unit's bounding set: SIGTERM, exit 0" 0 "$DAEMON_RC" \
		"$(cat "$DAEMON_LOG")"
else
	fail "under the unit's bounding set ($bset): xdpbrd starts" "$XT_WHY"
fi

finish

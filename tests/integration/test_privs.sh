#!/usr/bin/env bash
# datapaths: auto
# Privilege separation in xdpbrd (daemon/privs.h, daemon/http.h), read from
# /proc/PID/task/*/status and /proc/PID/fdinfo of the running daemon:
#  - the main thread keeps exactly CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON
#    (effective and permitted), and every other thread, the HTTP
#    endpoint's, none at all, before and after serving requests, and also
#    the new one a reload makes when it moves the endpoint;
#  - the HTTP side reads the maps through read-only descriptors: one per
#    map it reads, opened BPF_F_RDONLY (fdinfo flags O_RDONLY), and the
#    kernel refuses a write through each (EPERM), while a write through
#    the daemon's own descriptor of the same map works;
#  - a daemon that is not permitted a capability it keeps refuses to start
#    and says which, leaving no pins and no program on the ports;
#  - under the systemd unit's bounding set (no CAP_SETPCAP, no new
#    privileges) it starts, says nothing about a failed drop, and its
#    threads hold the same sets.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check and xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

# CAP_NET_ADMIN (12), CAP_PERFMON (38) and CAP_BPF (39), as /proc shows a
# set.
MAIN_CAPS=$(printf '%016x' $(((1 << 12) | (1 << 13) | (1 << 38) | (1 << 39))))
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

# check_threads NAME PID: the main thread's effective and permitted sets
# are MAIN_CAPS, its inheritable and ambient ones empty; every other
# thread's sets are all empty; and there is an HTTP thread (xdpbrd-http),
# exactly one.
check_threads()
{
	local name=$1 pid=$2 t bad='' http=0
	t=$(threads "$pid")
	while read -r tid tname eff prm inh amb; do
		if [ "$tid" = "$pid" ]; then
			[ "$eff $prm $inh $amb" = "$MAIN_CAPS $MAIN_CAPS $NONE_CAPS $NONE_CAPS" ] ||
				bad+="main thread $tid: Eff $eff Prm $prm Inh $inh Amb $amb; "
			continue
		fi
		[ "$tname" = xdpbrd-http ] && http=$((http + 1))
		[ "$eff $prm $inh $amb" = "$NONE_CAPS $NONE_CAPS $NONE_CAPS $NONE_CAPS" ] ||
			bad+="thread $tid ($tname): Eff $eff Prm $prm Inh $inh Amb $amb; "
	done <<<"$t"
	[ "$http" = 1 ] || bad+="$http threads named xdpbrd-http (want 1); "
	if [ -z "$bad" ] && [ -n "$t" ]; then
		pass "$name ($(wc -l <<<"$t") threads)"
		return 0
	fi
	fail "$name" "${bad:-no threads read}" "want: main $MAIN_CAPS, the others $NONE_CAPS" \
		"TID NAME CapEff CapPrm CapInh CapAmb:" "$t"
	return 1
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

# ------------------------------------------------------- the threads' sets

check_threads "main thread: exactly CAP_BPF, CAP_NET_ADMIN, CAP_PERFMON; other threads: none" \
	"$DAEMON_PID"
check "ping h1 -> h2" hping 1 2
stats=$(obs_get /stats)
check_jq "GET /stats from the capability-free thread: both ports, h1's pings counted" \
	"${stats:-null}" '(.ports | length) >= 2 and
	 any(.ports[]; .ifname == $p and .counters.forwarded >= 1)' --arg p "${PORT[1]}"
fdb=$(obs_get /fdb)
check_jq "GET /fdb from the capability-free thread: h1's MAC" "${fdb:-null}" \
	'any(.entries[]; .mac == $m)' --arg m "${MAC[1]}"
check_threads "after serving requests: still none in the HTTP thread" "$DAEMON_PID"

# ------------------------------------------------- read-only map descriptors

check_ro_maps "HTTP side" "$DAEMON_PID"
cfg_rw=$(map_fds "$DAEMON_PID" | awk '$2 == "rw" && $3 == "xdpbr_config" { print $1; exit }')
check_eq "control: a write through the daemon's own descriptor of xdpbr_config works" 0 \
	"$([ -n "$cfg_rw" ] && "$MAPWRITE" "$DAEMON_PID" "$cfg_rw" 2>&1)" \
	"$(map_fds "$DAEMON_PID")"

# -------------------------------------------- a reload moves the endpoint

http_tid=$(threads "$DAEMON_PID" | awk '$2 == "xdpbrd-http" { print $1 }')
conf "$CONF" "$LISTEN2"
kill -HUP "$DAEMON_PID"
OBS_HTTP=127.0.0.1:$LISTEN2
check "reload: the endpoint answers on its new port $LISTEN2 (was $LISTEN1)" obs_http_wait 5
check_fail "reload: the old HTTP thread ($http_tid) is gone" \
	test -e "/proc/$DAEMON_PID/task/${http_tid:-none}"
check_threads "reload: the new HTTP thread holds none either" \
	"$DAEMON_PID"
check_ro_maps "reload: HTTP side" "$DAEMON_PID"
daemon_stop
check_eq "SIGTERM: xdpbrd exits 0" 0 "$DAEMON_RC" "$(cat "$DAEMON_LOG")"

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

# systemd/xdpbrd@.service: CapabilityBoundingSet= without CAP_SETPCAP, so
# the bounding set can't be reduced further, and NoNewPrivileges=yes.
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
	check_threads "under the unit's bounding set: main thread exactly its three, HTTP thread none" \
		"$DAEMON_PID"
	check_fail "under the unit's bounding set: no warning about dropping capabilities" \
		grep -i "capabilit" "$DAEMON_LOG"
	daemon_stop
	check_eq "under the unit's bounding set: SIGTERM, exit 0" 0 "$DAEMON_RC" \
		"$(cat "$DAEMON_LOG")"
else
	fail "under the unit's bounding set ($bset): xdpbrd starts" "$XT_WHY"
fi

finish

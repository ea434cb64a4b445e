# checked_daemon.sh - the daemon's whole life under a memory checker,
# sourced by test_valgrind.sh (CHECKER=valgrind) and test_asan.sh
# (CHECKER=asan, the build-san/ build of xdpbrd): start from a
# configuration file, traffic and HTTP requests, reloads on SIGHUP (a
# changed file: settings, ports added and removed, statics, a new listen
# address; a broken file; the first file again), then SIGTERM.
#
# valgrind (memcheck) must find no error and no definite leak:
#
#   valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
#
# tests/valgrind.supp holds the suppressions for the bpf() system call,
# which valgrind (3.19, Debian 12) does not know well; see that file.
# AddressSanitizer and UndefinedBehaviorSanitizer must report nothing (leak
# check at exit; any UB is fatal). Either way xdpbrd must exit 0.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check and xt_poll
. "$(dirname "$0")/lib.sh"

SUPP=$XT_ROOT/tests/valgrind.supp
# Where the checker writes its report: valgrind's log, or ASan's and
# UBSan's log_path prefix (they append .PID).
VG_LOG=$XT_TMP/checker.log
CONF=$XT_TMP/xdpbrd.conf
STATIC1=$(test_mac 1)
STATIC2=$(test_mac 2)

# write_conf LISTEN AGEING MAX PORTS...: the configuration file. Port 1 has
# a static entry, port 2 a learning limit; PORTS are the ports listed.
write_conf()
{
	local listen=$1 ageing=$2 max=$3 p
	shift 3
	{
		printf '[bridge]\nname = %s\nageing_time = %s\nfdb_max_learned = %s\n' \
			"$BR" "$ageing" "$max"
		printf 'fdb_size = 1024\nlisten = %s\n' "$listen"
		for p in "$@"; do
			printf '\n[port %s]\n' "$p"
			case $p in
			"${PORT[1]}") printf 'static = %s\n' "$STATIC1" ;;
			"${PORT[2]}") printf 'max_learned = 16\nstatic = %s\n' "$STATIC2" ;;
			"${PORT[3]}") printf 'isolated = on\nstorm_bcast = 1000\n' ;;
			esac
		done
	} >"$CONF"
}

# ports_with_xdp N: N ports run the datapath (not counting the host
# interface's, lib.sh ports_attached).
ports_with_xdp()
{
	[ "$(ports_attached)" = "$1" ]
}

# reloads_at_least N: the daemon logged "reloaded" N times or more.
reloads_at_least()
{
	[ "$(grep -c 'reloaded ' "$DAEMON_LOG")" -ge "$1" ]
}

# hup NAME N: SIGHUP; wait (30 s) until "reloaded" was logged N times.
hup()
{
	kill -HUP "$DAEMON_PID"
	if xt_poll 30 reloads_at_least "$2"; then
		pass "$1: SIGHUP: xdpbrd reloaded the file"
	else
		fail "$1: SIGHUP: xdpbrd reloaded the file (within 30 s)" "$(cat "$DAEMON_LOG")"
	fi
}

case ${CHECKER:-} in
valgrind)
	[ "${SANITIZE:-}" = 1 ] && skip "valgrind can't run an ASan build (SANITIZE=1)"
	xt_require
	xt_need valgrind
	[ -f "$SUPP" ] || abort "missing $SUPP"
	# Not the HTTP process (a fork): under its seccomp filter valgrind can
	# neither read a map's sizes from /proc/self/fdinfo (so every value a
	# lookup returns looks uninitialised) nor run seccomp(2). Its code is
	# checked in-process by fuzz_http under ASan and UBSan.
	CHECK_CMD=(valgrind -q --error-exitcode=99 --leak-check=full
		--errors-for-leak-kinds=definite --suppressions="$SUPP"
		--child-silent-after-fork=yes --log-file="$VG_LOG" "$XDPBRD")
	;;
asan)
	xt_require
	# grep without -q reads to the end: nm never dies of SIGPIPE (pipefail)
	nm -u "$XDPBRD" 2>/dev/null | grep __asan_init >/dev/null ||
		abort "$XDPBRD is not built with -fsanitize=address (make SANITIZE=1 BUILD=${XT_BUILD##*/})"
	export ASAN_OPTIONS="detect_leaks=1:log_path=$VG_LOG"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$VG_LOG"
	CHECK_CMD=("$XDPBRD")
	;;
*)
	abort "CHECKER must be valgrind or asan, not '${CHECKER:-}'"
	;;
esac
# checker_log: everything the checker reported.
checker_log()
{
	cat "$VG_LOG"* 2>/dev/null
}
topo_up 3
# Two different free ports: obs_pick_port remembers the last one it handed
# out in OBS_LAST_PORT, which a $(...) subshell does not pass back.
P1=$(obs_pick_port) || abort "no free loopback port"
OBS_LAST_PORT=$P1
P2=$(obs_pick_port) || abort "no second free loopback port"
write_conf "127.0.0.1:$P1" 120 1000 "${PORT[1]}" "${PORT[2]}"

: >"$DAEMON_LOG"
"${CHECK_CMD[@]}" -d "$XT_DATAPATH" -c "$CONF" >"$XT_TMP/xdpbrd.stdout" 2>"$DAEMON_LOG" &
DAEMON_PID=$!
for ((k = 0; k < 600; k++)); do
	ports_with_xdp 2 && break
	proc_alive "$DAEMON_PID" || break
	sleep 0.1
done
if ! ports_with_xdp 2; then
	abort "xdpbrd -c under $CHECKER: 2 ports with XDP within 60 s" \
		"$(cat "$DAEMON_LOG"; checker_log)"
fi
pass "start under $CHECKER: 2 ports with XDP"
OBS_HTTP=127.0.0.1:$P1
check "start: GET /stats answers (within 20 s)" obs_http_wait 20
check "start: ping h1 -> h2" pfx_poll 5 hping 1 2
check "start: GET /metrics" obs_get /metrics -o /dev/null
check "start: GET /fdb" obs_get /fdb -o /dev/null
check "start: fdb show: static $STATIC1 on ${PORT[1]}" fdb_has "$STATIC1" "${PORT[1]}" static
check_eq "start: bridge show: ageing_time 120" 120 "$(bridge_field ageing_time 2>&1)"

# A changed file: new settings and listen address, port 3 added, port 2's
# static dropped.
write_conf "127.0.0.1:$P2" 60 500 "${PORT[1]}" "${PORT[3]}" "${PORT[2]}"
sed -i "/^static = $STATIC2/d" "$CONF"
hup "changed" 1
check "changed: 3 ports with XDP" xt_poll 10 ports_with_xdp 3
check_eq "changed: bridge show: ageing_time 60" 60 "$(bridge_field ageing_time 2>&1)"
check_eq "changed: bridge show: fdb_max_learned 500" 500 "$(bridge_field fdb_max_learned 2>&1)"
check "changed: static $STATIC2 removed" fdb_lacks "$STATIC2"
OBS_HTTP=127.0.0.1:$P2
check "changed: GET /stats on the new address" obs_http_wait 20
check_fail "changed: the old address no longer answers" \
	curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:$P1/stats"
check "changed: ping h3 -> h1" pfx_poll 5 hping 3 1

# A broken file: the running configuration stays.
printf '[bridge]\nname = %s\nageing_time = soon\n' "$BR" >"$CONF"
kill -HUP "$DAEMON_PID"
if log_poll "$DAEMON_LOG" 'keeping the running configuration' 30; then
	pass "broken: SIGHUP: xdpbrd keeps the running configuration"
else
	fail "broken: SIGHUP: xdpbrd keeps the running configuration" "$(cat "$DAEMON_LOG")"
fi
check_eq "broken: ageing_time still 60" 60 "$(bridge_field ageing_time 2>&1)"

# The first file again: port 3 leaves, the old address comes back.
write_conf "127.0.0.1:$P1" 120 1000 "${PORT[1]}" "${PORT[2]}"
hup "first again" 2
check "first again: 2 ports with XDP" xt_poll 10 ports_with_xdp 2
OBS_HTTP=127.0.0.1:$P1
check "first again: GET /stats" obs_http_wait 20
check_fail "first again: the second address no longer answers" \
	curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:$P2/stats"
check "first again: ping h1 -> h2" pfx_poll 5 hping 1 2

# A reload with no change at all.
hup "unchanged" 3

stop_pid "$DAEMON_PID" TERM 60
DAEMON_PID=
[ -n "${VG_KEEP_LOG:-}" ] && checker_log >"$VG_KEEP_LOG"
check_eq "SIGTERM: xdpbrd under $CHECKER exits 0 (99: valgrind found errors)" 0 "$STOP_RC" \
	"$CHECKER report:" "$(checker_log)" "xdpbrd log:" "$(tail -n 20 "$DAEMON_LOG")"
check_eq "$CHECKER: no error, no definite leak (the report is empty)" "" \
	"$(checker_log | grep -v -e '^==[0-9]*== *$' -e '^--[0-9]*-- WARNING: unhandled eBPF command')"
for i in 1 2 3; do
	check_eq "SIGTERM: no XDP program left on ${PORT[i]}" null "$(port_xdp "${PORT[i]}")"
done

finish

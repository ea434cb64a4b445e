# shellcheck shell=bash
# shellcheck disable=SC2034 # variables set here for the test scripts
# shellcheck disable=SC2016 # jq variables in single-quoted filters
#
# lib.sh - shared helpers for the integration tests (netns + veth, real
# traffic). Source it first thing from a test script:
#
#   . "$(dirname "$0")/lib.sh"
#   xt_require                      # skip (77) unless root with netns
#   topo_up 3                       # h1..h3, each behind root-side port
#   daemon_start                    # build/xdpbrd $BR ports..., wait ready
#   check "ping h1 -> h2" hexec 1 ping -c 1 -W 2 198.18.0.2
#   finish                          # cleanup, "N passed, N failed", exit
#
# Names are unique per run and fit IFNAMSIZ (15): ID is a number below
# 10000 this run has claimed (xt_claim_id: from PID % 10000 on, the first
# no other live run holds and no leftover uses), and every name a test
# makes starts with xt$ID and a non-digit (so xt12 never matches xt123's):
#   bridge       xt$ID              pins in /sys/fs/bpf/xdpbr/xt$ID
#   host i       netns xt$ID-h$i, interface e0, MAC 02:00:00:II:II:0i,
#                198.18.0.i/24 and 2001:2::i/64
#   its port     xt${ID}p$i in the root namespace (the bridge port)
#
# Everything a test creates is removed by an EXIT/INT/TERM trap, also when
# the test fails or is interrupted. The daemon and the CLI run in the root
# namespace (test_netns runs them under `ip netns exec`).
#
# Output: one "ok - NAME" or "FAIL - NAME" line per check, the details of a
# failure (command, exit status, output) indented below it, and exactly
# "N passed, N failed" as the last line. Exit status 0 when nothing failed,
# 1 otherwise, 77 when skipped.

set -u
set -o pipefail

XT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
XT_BUILD=${BUILD:-build}
case $XT_BUILD in
/*) ;;
*) XT_BUILD=$XT_ROOT/$XT_BUILD ;;
esac
XDPBRD=$XT_BUILD/xdpbrd
XDPBR=$XT_BUILD/xdpbr
SENDFRAME=$XT_BUILD/tools/sendframe
NETNSCOOKIE=$XT_BUILD/tools/netnscookie
TCXPROGS=$XT_BUILD/tools/tcxprogs
BPF_OBJ=$XT_BUILD/xdpbr.bpf.o
XDPBR_H=$XT_ROOT/include/xdpbr.h
XDPBR_MAPS_H=$XT_ROOT/include/xdpbr_maps.h
PIN_ROOT=/sys/fs/bpf/xdpbr

# ---------------------------------------------------------------- the ID

# xt_leftovers ID: everything named for run ID that is there: namespaces,
# links of the root namespace, pins (the bridges' directories, in the
# host's namespace and keyed by another), event sockets and FRR's
# directories. A name is ID's when it is xt$ID followed by a non-digit or
# nothing. One a line; nothing when there is none.
xt_leftovers()
{
	local id=$1 p
	{
		ip netns list 2>/dev/null | cut -d' ' -f1
		ls /sys/class/net
		ls -d "$PIN_ROOT"/* "$PIN_ROOT"-netns/*/* /run/xdpbr/*.sock \
			/run/xdpbr/netns-*/*.sock /etc/frr/* /run/frr/*
	} 2>/dev/null | while IFS= read -r p; do
		[[ ${p##*/} =~ ^xt$id([^0-9]|$) ]] && printf '%s\n' "$p"
	done
}

# Claims: /run/xdpbr-tests/ID is a directory made (mkdir is atomic) by the
# run that owns ID, its file "owner" the PID and start time of that run.
XT_CLAIMS=/run/xdpbr-tests
XT_CLAIM=
XT_IDS=10000		# IDs 0..9999: xt9999p15 fits IFNAMSIZ

# xt_proc_start PID: the start time of PID (field 22 of /proc/PID/stat,
# the 20th after the command's parentheses), nothing if it is gone.
xt_proc_start()
{
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	cut -d' ' -f20 <<<"$st"
}

# xt_owner_alive DIR: the run that wrote DIR's owner file still runs.
xt_owner_alive()
{
	local pid start
	read -r pid start 2>/dev/null <"$1/owner" || return 1
	[ -n "$start" ] && [ "$(xt_proc_start "$pid")" = "$start" ]
}

# xt_claim_id: sets ID to a number below 10000 that this run claims (from
# PID % 10000 on: the first no live run holds and nothing left over uses)
# and XT_CLAIM to its claim. A claim whose owner is gone is taken over,
# renamed away first so that of two runs taking it one wins; one younger
# than 2 s is left alone (its owner may be writing its owner file).
# Without root (no /run/xdpbr-tests) ID is the PID's number, unclaimed:
# such a run makes no namespaces, links or pins.
xt_claim_id()
{
	local k dir me
	ID=$(($$ % XT_IDS))
	mkdir -p "$XT_CLAIMS" 2>/dev/null && [ -w "$XT_CLAIMS" ] || return 0
	me="$$ $(xt_proc_start $$)"
	for ((k = 0; k < XT_IDS; k++, ID = (ID + 1) % XT_IDS)); do
		dir=$XT_CLAIMS/$ID
		if ! mkdir "$dir" 2>/dev/null; then
			xt_owner_alive "$dir" && continue
			(($(date +%s) - $(stat -c %Y "$dir" 2>/dev/null || echo 0) < 2)) && continue
			mv "$dir" "$dir.stale.$$" 2>/dev/null || continue
			rm -rf "$dir.stale.$$"
			mkdir "$dir" 2>/dev/null || continue
		fi
		echo "$me" >"$dir/owner"
		if [ -n "$(xt_leftovers "$ID")" ]; then
			rm -rf "$dir"
			continue
		fi
		XT_CLAIM=$dir
		return 0
	done
	ID=$(($$ % XT_IDS))
}

# xt_release_claim: give ID back (at the very end, after the leftovers
# check).
xt_release_claim()
{
	[ -n "$XT_CLAIM" ] && rm -rf "$XT_CLAIM"
	XT_CLAIM=
}

xt_claim_id
BR=xt$ID
PIN_DIR=$PIN_ROOT/$BR
XT_TEST=$(basename "$0" .sh)
XT_TMP=$(mktemp -d "/tmp/xdpbr-$XT_TEST.XXXXXX")

NHOSTS=0
NS=()		# NS[i]    netns of host i (1-based)
PORT=()		# PORT[i]  root-side veth of host i: the bridge port
MAC=()		# MAC[i]   MAC of host i's e0
IP4=()		# IP4[i]   198.18.0.i
IP6=()		# IP6[i]   2001:2::i
PORTS=()	# all ports, in order (0-based): the daemon's arguments

DAEMON_PID=
DAEMON_RC=
STOP_RC=
XT_WHY=			# why the last helper failed (for failure details)
DAEMON_LOG=$XT_TMP/xdpbrd.log

T_PASS=0
T_FAIL=0
XT_CLEANED=
XT_PIDS=()		# background processes to kill on cleanup
XT_CLEANUP_CMDS=()	# extra commands (eval'ed) to run on cleanup
declare -A CAP_PID=()	# tcpdump captures by key

trap 'xt_cleanup; xt_release_claim' EXIT
trap 'xt_cleanup; xt_release_claim; exit 130' INT
trap 'xt_cleanup; xt_release_claim; exit 143' TERM

# ---------------------------------------------------------------- results

# pass NAME
pass()
{
	T_PASS=$((T_PASS + 1))
	echo "ok - $1"
}

# fail NAME [DETAIL...]: details are printed indented under the FAIL line.
fail()
{
	local name=$1
	shift
	T_FAIL=$((T_FAIL + 1))
	echo "FAIL - $name"
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@" | sed 's/^/    # /'
	fi
}

# check NAME CMD...: CMD must exit 0. Its output is shown only on failure.
check()
{
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "$name"
		return 0
	fi
	fail "$name" "command: $*" "exit status: $rc" "${out:-(no output)}"
	return 1
}

# check_fail NAME CMD...: CMD must exit non-zero, and not by a signal (a
# crash is not the failure a check expects): status 1..128.
check_fail()
{
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -le 128 ]; then
		pass "$name"
		return 0
	fi
	fail "$name" "command: $*" \
		"expected a failure (status 1..128), got exit status $rc$( ((rc > 128)) &&
			echo " (killed by signal $((rc - 128)))")" "${out:-(no output)}"
	return 1
}

# check_err NAME CMD...: CMD must fail (exit 1..127, not a crash) and say
# why on stderr: a command refusing what it was asked.
check_err()
{
	local name=$1 err rc
	shift
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ge 1 ] && [ $rc -lt 128 ] && [ -n "$err" ]; then
		pass "$name"
		return 0
	fi
	fail "$name" "command: $*" "exit status: $rc (expected 1..127)" \
		"stderr: ${err:-(nothing)}"
	return 1
}

# check_same NAME BEFORE AFTER [DETAIL...]: two reads of a counter (or any
# count) that must not have changed: both numbers, and equal. Two failed
# reads (empty, "null") are equal too, and prove nothing.
check_same()
{
	local name=$1 a=$2 b=$3
	shift 3
	if [[ $a =~ ^[0-9]+$ ]] && [ "$a" = "$b" ]; then
		pass "$name ($a)"
		return 0
	fi
	fail "$name" "expected the same number twice, got '$a' then '$b'" "$@"
	return 1
}

# A MAC address as ip and xdpbr print it (check_same_match).
XT_MAC_RE='([0-9a-f]{2}:){5}[0-9a-f]{2}'

# check_same_match NAME ERE BEFORE AFTER [DETAIL...]: check_same for reads
# that are not numbers (a MAC, a list of program ids): both match the
# extended regular expression ERE whole, and are equal.
check_same_match()
{
	local name=$1 re=$2 a=$3 b=$4
	shift 4
	if [[ $a =~ ^($re)$ ]] && [ "$a" = "$b" ]; then
		pass "$name ($a)"
		return 0
	fi
	fail "$name" "expected the same value (matching '$re') twice, got '$a' then '$b'" "$@"
	return 1
}

# check_same_json NAME BEFORE AFTER [DETAIL...]: two snapshots (an FDB, a
# page of counters) that must be equal: each exactly one JSON value, not
# null, and the same. Two failed reads (nothing, the same error text) are
# not a snapshot.
check_same_json()
{
	local name=$1 a=$2 b=$3 ca cb
	shift 3
	ca=$(jq -sc 'if length == 1 and .[0] != null then .[0] else error("") end' \
		<<<"$a" 2>/dev/null)
	cb=$(jq -sc 'if length == 1 and .[0] != null then .[0] else error("") end' \
		<<<"$b" 2>/dev/null)
	if [ -n "$ca" ] && [ "$ca" = "$cb" ]; then
		pass "$name"
		return 0
	fi
	fail "$name" "expected the same JSON value twice, got:" "${a:-(nothing)}" \
		"then:" "${b:-(nothing)}" "$@"
	return 1
}

# check_eq NAME EXPECTED ACTUAL [DETAIL...]
check_eq()
{
	local name=$1 want=$2 got=$3
	shift 3
	if [ "$want" = "$got" ]; then
		pass "$name"
		return 0
	fi
	fail "$name" "expected: $want" "got:      $got" "$@"
	return 1
}

# check_jq NAME JSON FILTER [JQ-ARGS...]: FILTER applied to JSON must print
# "true". On failure the JSON is shown.
check_jq()
{
	local name=$1 json=$2 filter=$3 got
	shift 3
	got=$(printf '%s' "$json" | jq -c "$@" "$filter" 2>&1)
	if [ "$got" = true ]; then
		pass "$name"
		return 0
	fi
	fail "$name" "jq filter: $filter $*" "result: $got" "input:" "$json"
	return 1
}

# json_of TYPE CMD...: CMD's output, if CMD exited 0 and printed exactly
# one JSON value of TYPE (array, object, number, string, boolean);
# otherwise nothing, the reason on stderr, and status 1. For helpers that
# read JSON: jq -e (jq 1.6) exits 0 on empty input, so `CMD | jq -e ...`
# passes when CMD prints nothing, and a pipe hides CMD's failure or crash.
json_of()
{
	local type=$1 out rc
	shift
	out=$("$@")
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "json_of: '$*' exited with status $rc${out:+: ${out:0:300}}" >&2
		return 1
	fi
	if ! jq -se --arg t "$type" 'length == 1 and (.[0] | type) == $t' \
		<<<"$out" >/dev/null 2>&1; then
		echo "json_of: '$*' printed no JSON $type: '${out:0:300}'" >&2
		return 1
	fi
	printf '%s\n' "$out"
}

# jq_true JSON FILTER [JQ-ARG...]: FILTER applied to JSON prints exactly
# "true". Unlike jq -e, empty input, several values or an error are false.
jq_true()
{
	local json=$1 filter=$2
	shift 2
	[ "$(jq -c "$@" "$filter" <<<"$json" 2>/dev/null)" = true ]
}

# json_is TYPE FILTER [JQ-ARG...] -- CMD...: CMD exits 0 and prints one
# JSON value of TYPE, and FILTER on it is true: `check "..." json_is array
# '.[0].mtu == 1500' -- ip -j link show dev X` instead of `ip ... | jq -e`.
json_is()
{
	local type=$1 filter=$2 j
	local -a args=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	j=$(json_of "$type" "$@") || return 1
	jq_true "$j" "$filter" "${args[@]}" && return 0
	echo "json_is: '$filter' is not true of: ${j:0:500}" >&2
	return 1
}

# finish: tear everything down, check that nothing was left behind, print
# the summary line and exit.
finish()
{
	xt_cleanup
	xt_check_leftovers
	xt_release_claim
	echo "$T_PASS passed, $T_FAIL failed"
	trap - EXIT
	[ "$T_FAIL" -eq 0 ]
	exit
}

# abort REASON: a step the rest of the test depends on failed.
abort()
{
	fail "$XT_TEST: $1 (remaining checks not run)" "${@:2}"
	finish
}

# skip REASON: only when this machine can't run the suite (tests/run.sh
# says which cases those are: not root, no namespaces, a tool not
# installed, a kernel without or with what the suite is about, a resource
# someone else holds), never to hide a failure. Exits 77; in CI (CI=true)
# run.sh counts it as a failure.
skip()
{
	echo "SKIP - $XT_TEST: $*"
	trap - EXIT
	xt_cleanup
	xt_release_claim
	exit 77
}

# ---------------------------------------------------------------- setup

# xt_need CMD[:PACKAGE]...: skip unless every CMD (a name on PATH or an
# absolute path) is installed; the reason names the Debian PACKAGE that
# tools/deps.sh installs (default: CMD).
xt_need()
{
	local t missing=()
	for t in "$@"; do
		command -v "${t%%:*}" >/dev/null || missing+=("${t%%:*} (package ${t#*:})")
	done
	[ ${#missing[@]} -eq 0 ] ||
		skip "not installed: ${missing[*]}; tools/deps.sh (make deps) installs it"
}

# xt_require: skip unless the machine can run the tests (root, namespaces,
# the tools every suite uses); fail when the build is missing (make check
# builds it: not the machine's fault).
xt_require()
{
	local t missing=()

	[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, XDP)"
	if ! ip netns add "xt$ID-probe" 2>/dev/null; then
		skip "cannot create network namespaces"
	fi
	ip netns del "xt$ID-probe"
	xt_need jq ethtool tcpdump ping:iputils-ping arping timeout:coreutils \
		setpriv:util-linux clang gcc
	for t in "$XDPBRD" "$XDPBR" "$SENDFRAME"; do
		[ -x "$t" ] || missing+=("$t")
	done
	[ -f "$BPF_OBJ" ] || missing+=("$BPF_OBJ")
	if [ ${#missing[@]} -gt 0 ]; then
		abort "missing: ${missing[*]} (run make all build/tools/sendframe, or make check)"
	fi
}

# XT_HOSTIF: whether the tests' xdpbrd makes its host interface (-H): on,
# the default, as for users; a suite whose checks enumerate exactly the
# ports, counters and FDB entries it made sets it to off after sourcing
# this file (test_hostif.sh tests the host interface itself). Empty: no
# -H, the configuration file decides.
XT_HOSTIF=on

# XT_DATAPATH: the datapath the tests' xdpbrd gives its ports (-d): auto
# (veth ports take the skb path, TC) unless a test is about the XDP path
# and sets xdp before sourcing this file.
XT_DATAPATH=${XT_DATAPATH:-auto}

# XT_START_SECS: how long daemon_start waits for the daemon to be ready
# (10 s; more for a suite run in the VM lane's TCG guest).
XT_START_SECS=${XT_START_SECS:-10}

# host_offloads NS: a host on an XDP port stands for a host behind a
# physical NIC, whose frames arrive complete: GRO on its e0 (an XDP
# redirect into a veth needs NAPI on the peer, see MACHINE-FACTS.md) and
# checksums finished in software. Hosts on the skb path keep the defaults
# every container has.
host_offloads()
{
	[ "$XT_DATAPATH" = xdp ] || return 0
	ip netns exec "$1" ethtool -K e0 gro on &&
		ip netns exec "$1" ethtool -K e0 tx off
}

# topo_up N [FIRST]: hosts FIRST (default 1)..N, each a netns whose e0 is the peer of a root-side
# port. GRO is on for e0, or frames the bridge redirects into the port would
# be dropped (see MACHINE-FACTS.md). It must be turned on while e0 is up:
# turned on while e0 is down, ethtool shows it on but the kernel (6.18) does
# not make the port a redirect target, and redirected frames still vanish.
# Root-side ports get no IPv6, so the only frames on the bridge are the
# hosts'.
topo_up()
{
	local n=$1 i ns port mac

	for ((i = ${2:-1}; i <= n; i++)); do
		ns=xt$ID-h$i
		port=xt${ID}p$i
		mac=$(printf '02:00:00:%02x:%02x:%02x' $((ID >> 8)) $((ID & 255)) "$i")
		NS[i]=$ns
		PORT[i]=$port
		MAC[i]=$mac
		IP4[i]=198.18.0.$i
		IP6[i]=2001:2::$i
		PORTS+=("$port")
		NHOSTS=$i
		ip netns add "$ns" || abort "topo_up: ip netns add $ns"
		ip link add "$port" type veth peer name e0 netns "$ns" ||
			abort "topo_up: ip link add $port"
		sysctl -q -w "net.ipv6.conf.$port.disable_ipv6=1" >/dev/null
		ip link set dev "$port" up || abort "topo_up: $port up"
		{
			ip -n "$ns" link set dev lo up &&
			ip -n "$ns" link set dev e0 address "$mac" &&
			ip -n "$ns" addr add "${IP4[i]}/24" dev e0 &&
			ip -n "$ns" addr add "${IP6[i]}/64" dev e0 nodad &&
			ip -n "$ns" link set dev e0 up &&
			host_offloads "$ns"
		} >"$XT_TMP/topo.log" 2>&1 ||
			abort "topo_up: configuring host $i" "$(cat "$XT_TMP/topo.log")"
	done
}

# stp_helper_on: xdpbr's user-space STP helper (daemon/bridge-stp) in
# /sbin/bridge-stp, as make install and the package put it, so that the
# Linux bridge device of an xdpbr bridge in the host's namespace runs as
# user-space STP (stp_state 2); removed at cleanup if this test put it
# there. Skips where a helper of another's (mstpd's) is there.
STP_HELPER=/sbin/bridge-stp
stp_helper_on()
{
	if [ -e "$STP_HELPER" ]; then
		grep -q '^# xdpbr-bridge-stp:' "$STP_HELPER" ||
			skip "$STP_HELPER is not xdpbr's (mstpd's?): user-space STP can't be tested"
		return 0
	fi
	install -m 0755 "$XT_ROOT/daemon/bridge-stp" "$STP_HELPER" ||
		abort "installing $STP_HELPER"
	XT_CLEANUP_CMDS+=("rm -f $STP_HELPER")
}

# kbr_stp_state BR: the stp_state iproute2 shows for Linux bridge BR.
kbr_stp_state()
{
	ip -j -d link show dev "$1" | jq -r '.[0].linkinfo.info_data.stp_state'
}

# kbr_listening: a Linux bridge device $BR whose ports are PORTS, each
# listening: the kernel bridge neither forwards nor learns (blocking would
# turn forwarding at once), for the suites of the mirror of
# daemon/brmirror.c, whose xdpbrd runs -H off on the same ports.
kbr_listening()
{
	local p
	ip link add "$BR" type bridge || abort "ip link add $BR type bridge"
	for p in "${PORTS[@]}"; do
		ip link set dev "$p" master "$BR" || abort "ip link set $p master $BR"
	done
	ip link set dev "$BR" up
	for p in "${PORTS[@]}"; do
		bridge link set dev "$p" state 1 || abort "bridge link set dev $p state 1"
	done
}

# hexec I CMD...: run CMD in host I's network namespace.
hexec()
{
	local i=$1
	shift
	ip netns exec "${NS[i]}" "$@"
}

# hping I J [-6]: one ping from host I to host J, 2 s deadline.
hping()
{
	if [ "${3:-}" = -6 ]; then
		hexec "$1" ping -6 -c 1 -W 2 "${IP6[$2]}"
	else
		hexec "$1" ping -c 1 -W 2 "${IP4[$2]}"
	fi
}

# ping_all I COUNT PING-ARG...: COUNT pings from host I (0: the root
# namespace), every one answered; PING-ARG... ends with the address. Not
# `ping -c COUNT`, which exits 0 when a single reply came: ping's summary
# must say COUNT received (and no duplicates, which a loop would bring).
ping_all()
{
	local i=$1 n=$2 out
	shift 2
	if [ "$i" = 0 ]; then
		out=$(ping -c "$n" "$@" 2>&1)
	else
		out=$(hexec "$i" ping -c "$n" "$@" 2>&1)
	fi
	printf '%s\n' "$out"
	grep -q "^$n packets transmitted, $n received, 0% packet loss" <<<"$out"
}

# port_tc PORT: xdpbr's TC program on PORT's ingress as tc's JSON: its
# filter on the clsact ingress (handle 0x7862), else the last program on
# its TCX hook (Linux 6.6 on, which tc does not show) as
# {"kind":"tcx","options":{"prog":{"id":ID}}}; "null" if neither.
port_tc()
{
	local f id
	f=$(tc -j filter show dev "$1" ingress 2>/dev/null |
		jq -c '[.[] | select(.options.handle == "0x7862")][0] // null')
	if [ "${f:-null}" = null ]; then
		id=$("$TCXPROGS" "$1" 2>/dev/null | tail -n 1)
		[ -z "$id" ] || f="{\"kind\":\"tcx\",\"options\":{\"prog\":{\"id\":$id}}}"
	fi
	echo "${f:-null}"
}

# port_xdp PORT: the datapath program attached to PORT: its XDP state as
# iproute2's JSON, or xdpbr's TC filter (port_tc); "null" if neither.
port_xdp()
{
	local x
	x=$(ip -j link show dev "$1" | jq -c '.[0].xdp')
	if [ "$x" = null ]; then
		port_tc "$1"
	else
		echo "$x"
	fi
}

# port_prog_id PORT: id of the datapath program on PORT (XDP, else the TC
# filter's), empty when none.
port_prog_id()
{
	local id
	id=$(ip -j link show dev "$1" | jq -r '.[0].xdp.prog.id // empty')
	if [ -z "$id" ]; then
		id=$(port_tc "$1" | jq -r '.options.prog.id // empty')
	fi
	echo "$id"
}

# no_xdp_anywhere: no port has a datapath program, XDP or TC (prints what
# is left).
no_xdp_anywhere()
{
	local p x rc=0
	for p in "${PORTS[@]}"; do
		x=$(port_xdp "$p")
		if [ "$x" != null ]; then
			echo "$p: $x"
			rc=1
		fi
		x=$(port_tc "$p")
		if [ "$x" != null ]; then
			echo "$p: TC filter left: $x"
			rc=1
		fi
	done
	return "$rc"
}

# xdp_everywhere: every port has its datapath program (XDP, or TC on the
# skb path).
xdp_everywhere()
{
	local p rc=0
	for p in "${PORTS[@]}"; do
		if [ -z "$(port_prog_id "$p")" ]; then
			echo "$p: no datapath program"
			rc=1
		fi
	done
	return "$rc"
}

# port_prog_name PORT: name of the datapath program on PORT.
port_prog_name()
{
	local n
	n=$(ip -j link show dev "$1" | jq -r '.[0].xdp.prog.name // empty')
	[ -n "$n" ] || n=$(port_tc "$1" | jq -r '.options.prog.name // empty')
	# A TCX program: tc names none, bpftool does.
	[ -n "$n" ] || n=$(bpftool -j prog show id "$(port_prog_id "$1")" 2>/dev/null |
		jq -r '.name // empty')
	echo "$n"
}

# DP_PIN DP_PROG: the pinned program and its name that ports run on
# XT_DATAPATH's path.
if [ "$XT_DATAPATH" = xdp ]; then
	DP_PIN=prog_rx DP_PROG=xdpbr_rx
else
	DP_PIN=prog_tc DP_PROG=xdpbr_tc_rx
fi

# DP_KEY DP_VAL: the `link show -j` field and value that say a port runs
# the datapath of XT_DATAPATH: xdp_mode "native" on the XDP path,
# datapath "tc" on veth ports otherwise. For jq: --argjson.
if [ "$XT_DATAPATH" = xdp ]; then
	DP_KEY=xdp_mode DP_VAL='"native"'
else
	DP_KEY=datapath DP_VAL='"tc"'
fi

# port_counter PORT NAME: counter NAME of PORT from `xdpbr -j stats`; 1
# (and nothing printed, the reason on stderr) when it can't be read.
port_counter()
{
	local j v
	j=$(json_of array "$XDPBR" -b "$BR" -j stats dev "$1") || return 1
	v=$(jq -r --arg n "$2" '.[0][$n]' <<<"$j")
	if ! [[ $v =~ ^[0-9]+$ ]]; then
		echo "port_counter: no counter $2 of $1 in: $j" >&2
		return 1
	fi
	echo "$v"
}

# counter_table: the rows of include/xdpbr.h's XDPBR_COUNTERS(X) table, and
# not those of its other X-macro tables (XDPBR_MODES has rows of the same
# shape): from the #define to its first line without a continuation.
counter_table()
{
	sed -n '/^#define XDPBR_COUNTERS(X)/,/[^\\]$/p' "$XDPBR_H"
}

# map_pin_names: the names the bridge's maps are pinned under, one per
# line: the rows of XDPBR_MAPS_PINNED(X) in include/xdpbr_maps.h.
map_pin_names()
{
	sed -n '/^#define XDPBR_MAPS_PINNED(X)/,/[^\\]$/p' "$XDPBR_MAPS_H" |
		sed -n 's/^[[:space:]]*X(\([a-z0-9_]*\),.*/xdpbr_\1/p'
}

# counter_names: the counter names of include/xdpbr.h, one per line.
counter_names()
{
	counter_table | sed -n 's/^[[:space:]]*X([A-Z0-9_]*,[[:space:]]*"\([a-z0-9_]*\)").*/\1/p'
}

# ---------------------------------------------------------------- processes

# proc_alive PID: PID exists and is not a zombie.
proc_alive()
{
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

# stop_pid PID SIGNAL SECONDS: signal PID, wait for it to exit (bounded),
# SIGKILL it after SECONDS. Sets STOP_RC to its exit status ("killed" if it
# had to be killed). PID must be a child of this shell, so never call this
# in a $(...) subshell.
stop_pid()
{
	local pid=$1 sig=$2 secs=$3 i

	kill -s "$sig" "$pid" 2>/dev/null
	for ((i = 0; i < secs * 10; i++)); do
		proc_alive "$pid" || break
		sleep 0.1
	done
	if proc_alive "$pid"; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		STOP_RC=killed
		return
	fi
	wait "$pid" 2>/dev/null
	STOP_RC=$?
}

# ports_attached: how many ports of $BR run a datapath program, not
# counting the bridge's end of its host interface (a port the daemon adds
# by itself, after the others).
ports_attached()
{
	"$XDPBR" -b "$BR" -j link show 2>/dev/null |
		jq '[.[] | select(.datapath != "none" and .host_interface == null)] | length' \
			2>/dev/null
}

# daemon_started: the daemon said it is forwarding (the last step of its
# start, after the host interface and the configuration).
daemon_started()
{
	grep -q "bridge $BR: forwarding on" "$DAEMON_LOG" 2>/dev/null
}

# XT_STP: set to on (test_*_stp.sh wrappers), daemon_start runs the bridge
# with the spanning tree on (802.1D's default timers: a restart must come
# within max age, 20 s, and loading the datapath takes seconds on a busy
# machine), turned on with `xdpbr bridge set stp on` once the daemon is up
# (a request kept in the pins, so the daemons that take over run it too,
# and the suite's own settings are not a configuration file's), and waits
# until every port that is up forwards (hosts' ports: edge ports by auto
# detection, 3 s).
XT_STP=${XT_STP:-}

# stp_forwarding: every port of $BR whose link is up forwards (stp show).
stp_forwarding()
{
	json_is object '.enabled and ([.ports[] | select(.link_up) | .state == "forwarding"] |
		       length > 0 and all)' -- "$XDPBR" -b "$BR" -j stp show 2>/dev/null
}

# daemon_start [OPTION...]: start `xdpbrd OPTION... $BR PORTS...` in the
# background, stdout and stderr to $DAEMON_LOG, and wait (10 s at most)
# until `xdpbr link show` lists every port with XDP attached. Returns 1, with
# the reason and the daemon's log in XT_WHY, if the daemon exits or is not
# ready in time.
# shellcheck disable=SC2120 # the options are optional
daemon_start()
{
	local i n

	: >"$DAEMON_LOG"
	"$XDPBRD" -d "$XT_DATAPATH" ${XT_HOSTIF:+-H "$XT_HOSTIF"} "$@" "$BR" "${PORTS[@]}" \
		>>"$DAEMON_LOG" 2>&1 &
	DAEMON_PID=$!
	DAEMON_RC=
	for ((i = 0; i < XT_START_SECS * 10; i++)); do
		if ! proc_alive "$DAEMON_PID"; then
			wait "$DAEMON_PID"
			DAEMON_RC=$?
			DAEMON_PID=
			XT_WHY="xdpbrd exited with status $DAEMON_RC while starting; its log:
$(cat "$DAEMON_LOG")"
			return 1
		fi
		n=$(ports_attached)
		if [ "${n:-}" = "${#PORTS[@]}" ] && daemon_started; then
			[ "$XT_STP" = on ] || return 0
			stp_forwarding ||
				"$XDPBR" -b "$BR" bridge set stp on >>"$DAEMON_LOG" 2>&1
			xt_poll 20 stp_forwarding && return 0
			XT_WHY="xdpbrd with stp on: its ports did not all forward in 20 s:
$("$XDPBR" -b "$BR" stp show 2>&1)
xdpbrd log:
$(cat "$DAEMON_LOG")"
			return 1
		fi
		sleep 0.1
	done
	XT_WHY="xdpbrd not ready after $XT_START_SECS s; xdpbr -b $BR -j link show:
$("$XDPBR" -b "$BR" -j link show 2>&1)
xdpbrd log:
$(cat "$DAEMON_LOG")"
	return 1
}

# daemon_stop [SIGNAL]: stop the daemon (SIGTERM by default), wait for it
# (10 s at most, then SIGKILL). Sets DAEMON_RC to its exit status, or
# "killed". Returns 0 if it exited by itself.
# shellcheck disable=SC2120 # the signal is optional
daemon_stop()
{
	[ -n "$DAEMON_PID" ] || return 1
	stop_pid "$DAEMON_PID" "${1:-TERM}" 10
	DAEMON_RC=$STOP_RC
	DAEMON_PID=
	[ "$DAEMON_RC" != killed ]
}

# ---------------------------------------------------------------- capture

# Captures run in immediate mode: buffered, the last packets before tcpdump
# is stopped would never be printed, and a capture that must see nothing
# could pass because it saw too late.
#
# Every capture has a KEY: its tcpdump (started by cap_launch) prints to
# $XT_TMP/cap.KEY.out and .err, its PID is CAP_PID[KEY]; cap_end waits for
# it to end, cap_lines reads its packets, cap_show prints it. Two ways to
# know it is ready: cap_start waits for tcpdump's "listening on"; pfx_cap
# (below) sends probe frames until it sees one, and leaves them out of what
# it counts (pfx_cap_lines).

# cap_start KEY I FILTER [SECONDS] [COUNT]: capture on host I's e0 for at
# most SECONDS (default 4), stopping after COUNT packets if given. Returns
# once tcpdump is listening (5 s at most), 1 (reason in XT_WHY) if it could
# not start.
cap_start()
{
	cap_launch "$1" e0 "$3" "${4:-4}" "${5:-}" "" ip netns exec "${NS[$2]}"
	cap_listening "$1" "${NS[$2]}" e0 "$3"
}

# cap_start_root KEY DEV FILTER [SECONDS] [COUNT]: the same on DEV in the
# root namespace (what the host stack behind a bridge port receives).
cap_start_root()
{
	cap_launch "$1" "$2" "$3" "${4:-4}" "${5:-}" ""
	cap_listening "$1" root "$2" "$3"
}

# cap_launch KEY DEV FILTER SECONDS COUNT DIR [PREFIX...]: start capture
# KEY in the background: tcpdump FILTER on DEV for at most SECONDS, stopping
# after COUNT packets unless COUNT is empty, only those DEV receives if DIR
# is "in" (tcpdump -Q; empty: both ways), run by PREFIX (ip netns exec NS)
# if given.
cap_launch()
{
	local key=$1 dev=$2 filter=$3 secs=$4 count=$5 dir=$6

	shift 6
	"$@" timeout "$secs" tcpdump ${dir:+-Q "$dir"} -i "$dev" -nn -e -l --immediate-mode \
		${count:+-c "$count"} "$filter" >"$XT_TMP/cap.$key.out" 2>"$XT_TMP/cap.$key.err" &
	CAP_PID[$key]=$!
	XT_PIDS+=("$!")
}

# cap_listening KEY WHERE DEV FILTER: wait until the tcpdump of capture KEY
# (FILTER on DEV in namespace WHERE) listens, 5 s at most; 1, with the
# reason in XT_WHY, if it did not start.
cap_listening()
{
	local key=$1 where=$2 dev=$3 filter=$4 k
	local err=$XT_TMP/cap.$key.err

	for ((k = 0; k < 50; k++)); do
		# "listening on" comes a little before tcpdump really receives:
		# without a pause a frame sent at once is missed now and then.
		grep -qs '^listening on' "$err" && { sleep 0.3; return 0; }
		proc_alive "${CAP_PID[$key]}" || break
		sleep 0.1
	done
	XT_WHY="tcpdump '$filter' on $dev ($where) did not start:
$(cat "$err")"
	return 1
}

# cap_end KEY: return once capture KEY has ended (its SECONDS, or its
# COUNT). Also in a $(...) subshell, where the capture is no child and
# `wait` returns at once: it polls until the capture has exited (its
# timeout bounds this), so a capture that must see nothing has run for its
# whole time.
cap_end()
{
	local pid=${CAP_PID[$1]} k

	wait "$pid" 2>/dev/null
	for ((k = 0; k < 600; k++)); do
		proc_alive "$pid" || break
		sleep 0.05
	done
	return 0
}

# cap_lines KEY: the packets capture KEY printed so far, one line each. A
# packet is a line starting with its timestamp; continuation lines (hex
# dumps) are indented, and tcpdump adds an empty line when killed.
cap_lines()
{
	grep '^[0-9]' "$XT_TMP/cap.$1.out"
}

# cap_wait KEY: wait for capture KEY to end; prints how many packets it saw.
cap_wait()
{
	cap_end "$1"
	cap_lines "$1" | grep -c .
}

# cap_show KEY: what capture KEY printed (for failure details).
cap_show()
{
	cat "$XT_TMP/cap.$1.out" "$XT_TMP/cap.$1.err"
}

# ---------------------------------------------------------------- teardown

# xt_cleanup: kill what we started, delete links, namespaces and pins.
# Idempotent; runs from finish and from the EXIT/INT/TERM traps.
xt_cleanup()
{
	local pid i cmd

	[ -z "$XT_CLEANED" ] || return 0
	XT_CLEANED=1
	for pid in "${XT_PIDS[@]}"; do
		proc_alive "$pid" && stop_pid "$pid" TERM 2
	done
	if [ -n "$DAEMON_PID" ]; then
		stop_pid "$DAEMON_PID" TERM 5
		DAEMON_PID=
	fi
	for cmd in "${XT_CLEANUP_CMDS[@]}"; do
		eval "$cmd" >/dev/null 2>&1
	done
	for ((i = 1; i <= NHOSTS; i++)); do
		# Processes still inside a test namespace were started by this
		# test (a stray ping or capture).
		ip netns pids "${NS[i]}" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		ip link del dev "${PORT[i]}" 2>/dev/null
		ip netns del "${NS[i]}" 2>/dev/null
	done
	if [ -e "$PIN_DIR" ]; then
		rm -rf "$PIN_DIR"
	fi
	# the host interface of a daemon that was killed or kept the bridge:
	# the bridge device and the veth pair into it
	ip link del dev "$BR" 2>/dev/null
	ip link del dev "$BR-host" 2>/dev/null
	# the event socket of a daemon that was killed, not stopped
	rm -f "/run/xdpbr/$BR.sock"
	rm -rf "$XT_TMP"
	return 0
}

# xt_check_leftovers: after xt_cleanup, nothing of this run may remain:
# nothing named for ID (xt_leftovers), whatever made it.
xt_check_leftovers()
{
	local left l

	# %q: a name with control bytes (test_names) shown readably
	left=$(xt_leftovers "$ID" | while IFS= read -r l; do printf '%q\n' "$l"; done)
	if [ -z "$left" ]; then
		pass "cleanup leaves no namespaces, links or pins"
	else
		fail "cleanup leaves no namespaces, links or pins" "$left"
	fi
}

# ================================================================
# Helpers for test_ageing, test_static, test_limits, test_restart and
# test_adopt_iproute2 (FDB ageing, static entries, learning limits, daemon
# restarts). Added as one block; the helpers above are unchanged.
# ================================================================

# xt_poll SECONDS CMD...: run CMD every 0.1 s until it exits 0 (return 0)
# or SECONDS have passed (return 1). CMD's output is discarded.
xt_poll()
{
	local secs=$1 end
	shift
	end=$((SECONDS + secs))
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.1
	done
	"$@" >/dev/null 2>&1
}

# hosts_quiet: make the hosts send nothing the test does not ask for, so
# that the FDB changes only through the test's own traffic: no IPv6 on e0
# (router solicitations, MLD, ND) and a permanent ARP entry for every other
# host (no ARP requests, no ARP probes of stale entries).
hosts_quiet()
{
	local i j
	for ((i = 1; i <= NHOSTS; i++)); do
		hexec "$i" sysctl -q -w net.ipv6.conf.e0.disable_ipv6=1 >/dev/null ||
			return 1
		for ((j = 1; j <= NHOSTS; j++)); do
			[ "$i" = "$j" ] && continue
			hexec "$i" ip neigh replace "${IP4[j]}" lladdr "${MAC[j]}" \
				nud permanent dev e0 || return 1
		done
	done
}

# test_mac N: an extra locally administered MAC of this run (no host has
# it): 02:00:01:II:II:NN, N in 0..255.
test_mac()
{
	printf '02:00:01:%02x:%02x:%02x' $((ID >> 8)) $((ID & 255)) "$1"
}

# eth_frame DST SRC [ETHERTYPE]: hex of a 60-byte Ethernet frame for
# sendframe, EtherType 0x88b5 (local experimental) unless given, payload
# "xdpbr" then zeros.
eth_frame()
{
	local hex="${1//:/}${2//:/}${3:-88b5}7864706272"
	while [ ${#hex} -lt 120 ]; do
		hex+=00
	done
	echo "$hex"
}

# fdb_json [ARG...]: `xdpbr -b $BR -j fdb show ARG...`.
# shellcheck disable=SC2120 # the arguments are optional
fdb_json()
{
	"$XDPBR" -b "$BR" -j fdb show "$@"
}

# fdb_has MAC PORT [STATE]: the FDB has MAC on PORT (with .state STATE if
# given: "static" or ""). False when fdb show fails or prints no array.
# shellcheck disable=SC2119 # fdb_json without arguments: the whole FDB
fdb_has()
{
	local j
	j=$(json_of array fdb_json) || return 1
	jq_true "$j" 'any(.[]; (.mac | ascii_downcase) == $mac and .ifname == $port and
			  ($st == "any" or .state == $st))' \
		--arg mac "$1" --arg port "$2" --arg st "${3-any}"
}

# fdb_lacks MAC: fdb show works and has no entry for MAC (on any port, any
# VLAN).
# shellcheck disable=SC2119 # fdb_json without arguments: the whole FDB
fdb_lacks()
{
	local j
	j=$(json_of array fdb_json) || return 1
	jq_true "$j" 'all(.[]; (.mac | ascii_downcase) != $mac)' --arg mac "$1"
}

# bridge_field NAME: field NAME of `xdpbr -b $BR -j bridge show`.
bridge_field()
{
	"$XDPBR" -b "$BR" -j bridge show | jq -r --arg n "$1" '.[0][$n]'
}

# log_poll FILE REGEX SECONDS: wait until FILE has a line matching the
# extended REGEX (case-insensitive).
log_poll()
{
	xt_poll "$3" grep -qiE "$2" "$1"
}
# ================================================================ end of block

# ================================================================
# pfx_* helpers for test_portflags, test_ports_runtime, test_linkevents
# and test_config (port flags, ports added and removed at run time, link
# events, the configuration file). Added as one block; the helpers above
# are unchanged.
# ================================================================

declare -A PFX_PING_PID=()	# continuous pings by key

# pfx_poll SECONDS CMD...: run CMD every 0.1 s until it exits 0 (return 0)
# or SECONDS (may be fractional) have passed (return 1, after one last try).
# CMD's output is discarded.
pfx_poll()
{
	local end
	end=$(awk -v s="$1" 'BEGIN { printf "%d", s * 1000000 }')
	end=$((${EPOCHREALTIME//[!0-9]/} + end))
	shift
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		((${EPOCHREALTIME//[!0-9]/} < end)) || break
		sleep 0.1
	done
	"$@" >/dev/null 2>&1
}

# pfx_mac N: an extra locally administered MAC of this run that no host
# has: 02:00:02:II:II:NN, N in 0..255.
pfx_mac()
{
	printf '02:00:02:%02x:%02x:%02x' $((ID >> 8)) $((ID & 255)) "$1"
}

# pfx_send I DST [SRC]: send one 0x88b5 frame to DST out of host I's e0,
# from SRC (default: host I's own MAC).
pfx_send()
{
	hexec "$1" "$SENDFRAME" e0 "$(eth_frame "$2" "${3:-${MAC[$1]}}")"
}

# pfx_link_json [DEV]: `xdpbr -b $BR -j link show [dev DEV]`.
# shellcheck disable=SC2120 # the device is optional
pfx_link_json()
{
	"$XDPBR" -b "$BR" -j link show ${1:+dev "$1"}
}

# pfx_link_field DEV FIELD: FIELD of DEV's entry in `xdpbr -j link show`
# ("null" when DEV is not listed).
pfx_link_field()
{
	# shellcheck disable=SC2119 # the whole list
	pfx_link_json | jq -c --arg d "$1" --arg f "$2" \
		'first((.[] | select(.ifname == $d) | .[$f]), null)'
}

# pfx_link_is DEV FIELD JSONVALUE: DEV's FIELD equals JSONVALUE (compact
# JSON: true, "disabled", 5).
pfx_link_is()
{
	[ "$(pfx_link_field "$1" "$2")" = "$3" ]
}

# pfx_listed DEV: `xdpbr link show` lists DEV.
pfx_listed()
{
	local j
	# shellcheck disable=SC2119 # the whole list
	j=$(json_of array pfx_link_json) || return 1
	jq_true "$j" 'any(.[]; .ifname == $d)' --arg d "$1"
}

# pfx_unlisted DEV: `xdpbr link show` works and does not list DEV (not
# `! pfx_listed`, which a failing or crashing CLI would satisfy).
pfx_unlisted()
{
	local j
	# shellcheck disable=SC2119 # the whole list
	j=$(json_of array pfx_link_json) || return 1
	jq_true "$j" 'all(.[]; .ifname != $d)' --arg d "$1"
}

# pfx_fdb_has MAC PORT [STATE], pfx_fdb_lacks MAC: fdb_has, fdb_lacks.
pfx_fdb_has()
{
	fdb_has "$@"
}
pfx_fdb_lacks()
{
	fdb_lacks "$@"
}

# pfx_fdb_count PORT [STATE]: number of FDB entries on PORT (with .state
# STATE if given: "static" or "" for dynamic ones).
pfx_fdb_count()
{
	"$XDPBR" -b "$BR" -j fdb show |
		jq --arg p "$1" --arg s "${2-any}" \
		'[.[] | select(.ifname == $p and ($s == "any" or .state == $s))] | length'
}

# Captures that are ready when they return, and counted after they end.
#
# tcpdump prints "listening on" a little before it really receives: a frame
# sent right after cap_start returns is missed now and then (measured here:
# 3 in 10 rounds). pfx_cap therefore waits until the capture has seen a
# probe: a frame to pfx_probe_mac (EtherType 0x88b6) sent from the root
# namespace out of the host's port straight to its e0, past the bridge.
# Probes are left out of every count.
declare -A PFX_CAP_WANT=()	# COUNT of each pfx_cap capture

# pfx_probe_mac: the probe's MAC (locally administered, of this run).
pfx_probe_mac()
{
	pfx_mac 250
}

# pfx_cap KEY I FILTER [SECONDS] [COUNT] [in]: capture FILTER on host I's
# e0 for at most SECONDS (default 3); pfx_cap_n stops it early once COUNT
# frames (not counting probes) were seen. "in": only frames e0 receives
# (tcpdump -Q in), not those it sends. Returns once the capture has seen a
# probe (5 s at most); 1, with the reason in XT_WHY, if it did not.
pfx_cap()
{
	pfx_cap_start "$@" && pfx_cap_ready "$1" "$2"
}

# pfx_cap_start KEY I FILTER [SECONDS] [COUNT] [in]: pfx_cap without
# waiting until it is ready: start several, then pfx_cap_ready each. COUNT
# is pfx_cap_n's to act on: tcpdump's own would count the probes.
pfx_cap_start()
{
	local key=$1 i=$2 filter=$3 secs=${4:-3} dir=${6:-}

	PFX_CAP_WANT[$key]=${5:-}
	cap_launch "$key" e0 "($filter) or (ether dst $(pfx_probe_mac))" "$secs" "" "$dir" \
		ip netns exec "${NS[i]}"
}

# pfx_cap_ready KEY I: probe capture KEY on host I until it has seen a
# probe (5 s at most); 1, with the reason in XT_WHY, if it did not.
pfx_cap_ready()
{
	local key=$1 i=$2 probe k
	local out=$XT_TMP/cap.$key.out err=$XT_TMP/cap.$key.err

	probe=$(pfx_probe_mac)
	for ((k = 0; k < 50; k++)); do
		grep -qsF "> $probe," "$out" && return 0
		proc_alive "${CAP_PID[$key]}" || break
		if grep -qs '^listening on' "$err"; then
			"$SENDFRAME" "${PORT[i]}" "$(eth_frame "$probe" "$probe" 88b6)" \
				>/dev/null 2>&1
		fi
		sleep 0.1
	done
	XT_WHY="capture $key on e0 of ${NS[i]} did not get ready (no probe seen):
$(cat "$out" "$err" 2>&1)"
	return 1
}

# pfx_cap_n KEY [ERE]: wait for capture KEY to end (its SECONDS, or its
# COUNT of frames), then print how many frames it saw, probes left out
# (only those whose line matches the extended regular expression ERE if
# given, e.g. '> ff:ff:ff:ff:ff:ff,'). Works in $(...), unlike cap_wait (a
# subshell can't `wait` for this shell's children): it polls /proc.
pfx_cap_n()
{
	local key=$1 pid=${CAP_PID[$1]} want=${PFX_CAP_WANT[$1]:-} k

	for ((k = 0; k < 300 && ${#want} > 0; k++)); do
		proc_alive "$pid" || break
		if [ "$(pfx_cap_lines "$key" | grep -c .)" -ge "$want" ]; then
			kill -TERM "$pid" 2>/dev/null
			break
		fi
		sleep 0.1
	done
	cap_end "$key"
	pfx_cap_lines "$key" | grep -cE -- "${2:-.}"
}

# pfx_cap_lines KEY: cap_lines KEY without the probes.
pfx_cap_lines()
{
	cap_lines "$1" | grep -vF "> $(pfx_probe_mac),"
}

# pfx_ping_start KEY I J [INTERVAL]: ping host J from host I continuously
# (every INTERVAL s, default 0.02) in the background.
pfx_ping_start()
{
	# Not through hexec: $! must be ping itself, not a subshell around it.
	ip netns exec "${NS[$2]}" ping -n -i "${4:-0.02}" "${IP4[$3]}" \
		>"$XT_TMP/ping.$1.out" 2>&1 &
	PFX_PING_PID[$1]=$!
	XT_PIDS+=("$!")
}

# pfx_ping_stop KEY: stop ping KEY (SIGALRM: ping exits as at its deadline,
# printing everything). Not in a $(...) subshell: it waits for the ping.
pfx_ping_stop()
{
	[ -n "${PFX_PING_PID[$1]:-}" ] || return 0
	stop_pid "${PFX_PING_PID[$1]}" ALRM 3
	PFX_PING_PID[$1]=
}

# pfx_ping_check KEY [MIN]: the stopped ping KEY lost nothing: ping's own
# summary says it received every request it sent but at most the last one,
# still in flight when it was stopped; at least MIN (default 20) replies
# came; and the replies ("bytes from" lines, not "Destination Host
# Unreachable" ones) are requests 1..received, without a gap. Prints a
# summary.
pfx_ping_check()
{
	local out=$XT_TMP/ping.$1.out min=${2:-20} line tx rx seqs n missing

	line=$(grep 'packets transmitted' "$out" 2>/dev/null)
	tx=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' <<<"$line")
	rx=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$line")
	seqs=$(grep 'bytes from' "$out" 2>/dev/null | grep -o 'icmp_seq=[0-9]*' |
		cut -d= -f2 | sort -nu)
	n=$(grep -c . <<<"$seqs")
	missing=$(comm -23 <(seq 1 "${rx:-0}" | sort) <(printf '%s\n' "$seqs" | sort) |
		sort -n | head -n 20 | tr '\n' ' ')
	echo "sent: ${tx:-?}, received: ${rx:-?} (ping's summary), replies: $n," \
		"missing (first 20): ${missing:-none}"
	tail -n 3 "$out" 2>/dev/null
	[[ $tx =~ ^[0-9]+$ && $rx =~ ^[0-9]+$ ]] && ((rx >= min && tx - rx <= 1)) &&
		[ "$n" = "$rx" ] && [ -z "$missing" ]
}

# pfx_daemon_start NPORTS ARG...: start `xdpbrd ARG...` in the background,
# stderr to $DAEMON_LOG and stdout to $XT_TMP/xdpbrd.stdout, and wait (10 s
# at most) until `xdpbr -b $BR link show` lists NPORTS ports with XDP.
# Unlike daemon_start, the bridge and its ports come from ARG (e.g. -c
# FILE). Returns 1, reason in XT_WHY, if the daemon exits or is not ready.
pfx_daemon_start()
{
	local want=$1 i n
	shift

	: >"$DAEMON_LOG"
	"$XDPBRD" -d "$XT_DATAPATH" ${XT_HOSTIF:+-H "$XT_HOSTIF"} "$@" \
		>"$XT_TMP/xdpbrd.stdout" 2>>"$DAEMON_LOG" &
	DAEMON_PID=$!
	DAEMON_RC=
	for ((i = 0; i < 100; i++)); do
		if ! proc_alive "$DAEMON_PID"; then
			wait "$DAEMON_PID"
			DAEMON_RC=$?
			DAEMON_PID=
			XT_WHY="xdpbrd $* exited with status $DAEMON_RC while starting; its stderr:
$(cat "$DAEMON_LOG")"
			return 1
		fi
		n=$(ports_attached)
		[ "${n:-}" = "$want" ] && daemon_started && return 0
		sleep 0.1
	done
	XT_WHY="xdpbrd $* not ready after 10 s; xdpbr -b $BR -j link show:
$("$XDPBR" -b "$BR" -j link show 2>&1)
xdpbrd stderr:
$(cat "$DAEMON_LOG")"
	return 1
}

# pfx_host_relink I [NAME [IFINDEX]]: create host I's veth pair again
# (after `ip link del`), in its existing namespace and configured as topo_up
# does; its root-side end named NAME (default: the port's name) and given
# IFINDEX if set.
pfx_host_relink()
{
	local i=$1 port=${2:-${PORT[$1]}}

	{
		ip link add "$port" ${3:+index "$3"} type veth peer name e0 netns "${NS[i]}" &&
		sysctl -q -w "net.ipv6.conf.$port.disable_ipv6=1" &&
		ip link set dev "$port" up &&
		ip -n "${NS[i]}" link set dev e0 address "${MAC[i]}" &&
		ip -n "${NS[i]}" addr add "${IP4[i]}/24" dev e0 &&
		ip -n "${NS[i]}" addr add "${IP6[i]}/64" dev e0 nodad &&
		ip -n "${NS[i]}" link set dev e0 up &&
		host_offloads "${NS[i]}"
	} >"$XT_TMP/relink.log" 2>&1 && return 0
	XT_WHY=$(cat "$XT_TMP/relink.log")
	return 1
}
# pfx_counter_ge PORT COUNTER MIN: counter COUNTER of PORT is at least MIN.
pfx_counter_ge()
{
	local v
	v=$(port_counter "$1" "$2")
	[[ $v =~ ^[0-9]+$ ]] && ((v >= $3))
}

# pfx_check_grew NAME PORT COUNTER BEFORE [BY]: counter COUNTER of PORT
# reaches BEFORE + BY (default 1) within 2 s (the datapath counts a frame
# a little after sendframe returns).
pfx_check_grew()
{
	local name=$1 port=$2 cnt=$3 before=$4 by=${5:-1} now

	if [[ $before =~ ^[0-9]+$ ]] &&
		pfx_poll 2 pfx_counter_ge "$port" "$cnt" $((before + by)); then
		now=$(port_counter "$port" "$cnt")
		pass "$name ($cnt on $port: $before -> $now)"
		return 0
	fi
	fail "$name" "$cnt on $port: expected at least $before + $by," \
		"got $(port_counter "$port" "$cnt" 2>&1)" \
		"$("$XDPBR" -b "$BR" -j stats dev "$port" 2>&1)"
	return 1
}

# pfx_check_error NAME WORD CMD...: CMD must fail (non-zero exit status)
# and say why: its output (stdout and stderr) contains WORD.
pfx_check_error()
{
	local name=$1 word=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -qF -- "$word" <<<"$out"; then
		pass "$name"
		return 0
	fi
	fail "$name" "command: $*" "exit status: $rc (expected non-zero)" \
		"expected a message with '$word', got:" "${out:-(no output)}"
	return 1
}

# pfx_check_daemon NAME: the daemon started by daemon_start or
# pfx_daemon_start still runs; if not, its exit status and log are shown.
# Not in a $(...) subshell: it waits for the daemon.
pfx_check_daemon()
{
	local rc
	if [ -n "$DAEMON_PID" ] && proc_alive "$DAEMON_PID"; then
		pass "$1"
		return 0
	fi
	if [ -n "$DAEMON_PID" ]; then
		wait "$DAEMON_PID"
		rc=$?
		DAEMON_PID=
	fi
	fail "$1" "xdpbrd is gone (exit status ${rc:-unknown}); its log:" \
		"$(cat "$DAEMON_LOG" 2>&1)"
	return 1
}

# ================================================ end of the pfx_* block

# ================================================================
# obs_* helpers for test_observability, test_http and test_monitor (the
# counters seen through `xdpbr -j stats`, the HTTP endpoint and the event
# stream). Added as one block; the helpers above are unchanged.
# ================================================================

OBS_HTTP=			# ADDR:PORT of the daemon's HTTP endpoint
OBS_LAST_PORT=			# last port obs_pick_port handed out
declare -A OBS_MON_PID=()	# `xdpbr monitor` processes by key

# obs_pick_port: a loopback TCP port of this run that nothing listens on:
# 20000 + ID, or the next free one after the last port handed out (a test
# that restarts the daemon gets a fresh port, never one in TIME_WAIT).
obs_pick_port()
{
	local p=${OBS_LAST_PORT:-$((20000 + ID - 1))} k

	for ((k = 0; k < 200; k++)); do
		p=$((p + 1))
		((p < 65000)) || p=20000
		if [ -z "$(ss -Htan "( sport = :$p )" 2>/dev/null)" ]; then
			OBS_LAST_PORT=$p
			echo "$p"
			return 0
		fi
	done
	return 1
}

# obs_mac N: an extra locally administered MAC of this run that no host
# has: 02:00:03:II:II:NN, N in 0..255.
obs_mac()
{
	printf '02:00:03:%02x:%02x:%02x' $((ID >> 8)) $((ID & 255)) "$1"
}

# obs_send I COUNT DST [SRC] [ETHERTYPE]: send COUNT 60-byte frames (see
# eth_frame) to DST out of host I's e0, from SRC (default: host I's MAC).
obs_send()
{
	hexec "$1" "$SENDFRAME" -c "$2" e0 \
		"$(eth_frame "$3" "${4:-${MAC[$1]}}" "${5:-88b5}")"
}

# obs_url PATH: the URL of PATH on the daemon's endpoint ($OBS_HTTP).
obs_url()
{
	echo "http://$OBS_HTTP$1"
}

# obs_get PATH [CURL-ARG...]: GET PATH, print the body; fails on an HTTP
# error status, a refused connection or after 5 s.
obs_get()
{
	local path=$1
	shift
	curl -fsS --max-time 5 "$@" "$(obs_url "$path")"
}

# obs_req METHOD PATH [CURL-ARG...]: one request; prints the status code
# (000: no answer). Headers in $XT_TMP/obs.hdr, body in $XT_TMP/obs.body,
# curl's complaints in $XT_TMP/obs.err.
obs_req()
{
	local method=$1 path=$2 how
	shift 2
	if [ "$method" = HEAD ]; then
		how=(--head)
	else
		how=(-X "$method")
	fi
	: >"$XT_TMP/obs.hdr"
	: >"$XT_TMP/obs.body"
	curl -sS --max-time 5 "${how[@]}" "$@" -D "$XT_TMP/obs.hdr" \
		-o "$XT_TMP/obs.body" -w '%{http_code}' "$(obs_url "$path")" \
		2>"$XT_TMP/obs.err"
}

# obs_header NAME: the value of header NAME in the last obs_req answer.
obs_header()
{
	tr -d '\r' <"$XT_TMP/obs.hdr" |
		awk -v n="$1" 'BEGIN { n = tolower(n) ":" }
		     tolower(substr($0, 1, length(n))) == n {
			sub(/^[^:]*:[ \t]*/, ""); print; exit }'
}

# obs_http_wait SECONDS: wait until GET /stats answers 200.
obs_http_wait()
{
	xt_poll "$1" curl -fsS --max-time 1 -o /dev/null "$(obs_url /stats)"
}

# obs_daemon_http [OPTION...]: daemon_start --listen 127.0.0.1:PORT on a
# fresh port (OBS_HTTP) and wait (5 s) for the endpoint. 1 and XT_WHY when
# either fails.
obs_daemon_http()
{
	local p
	p=$(obs_pick_port) || { XT_WHY="no free loopback port"; return 1; }
	OBS_HTTP=127.0.0.1:$p
	daemon_start --listen "$OBS_HTTP" "$@" || return 1
	obs_http_wait 5 && return 0
	XT_WHY="no answer on http://$OBS_HTTP/stats after 5 s; xdpbrd log:
$(cat "$DAEMON_LOG")"
	return 1
}

# obs_counter_names: the counter names of xdpbr.h as a JSON array. Unlike
# counter_names, also those with digits (drop_8021ad).
obs_counter_names()
{
	counter_table | sed -n 's/^[[:space:]]*X([A-Z0-9_]*,[[:space:]]*"\([a-z0-9_]*\)").*/\1/p' |
		jq -R . | jq -sc .
}

# obs_outcome_names: the outcome counters of xdpbr.h as a JSON array: those
# from XDPBR_CNT_OUTCOME_FIRST to XDPBR_CNT_OUTCOME_LAST in the table (not
# every flood_* is an outcome: flood_filtered counts refused copies).
obs_outcome_names()
{
	local first last
	first=$(awk '$2 == "XDPBR_CNT_OUTCOME_FIRST" { print $3 }' "$XDPBR_H")
	last=$(awk '$2 == "XDPBR_CNT_OUTCOME_LAST" { print $3 }' "$XDPBR_H")
	counter_table |
		sed -n 's/^[[:space:]]*X(\([A-Z0-9_]*\),[[:space:]]*"\([a-z0-9_]*\)").*/XDPBR_CNT_\1 \2/p' |
		awk -v first="$first" -v last="$last" '
			$1 == first { on = 1 }
			on { print $2 }
			$1 == last { on = 0 }' | jq -R . | jq -sc .
}

# counters_add_up: on every port of `xdpbr -j stats`, rx_packets is the
# sum of the outcome counters (prints the ports when not).
counters_add_up()
{
	local json
	json=$(obs_cli_ports) || return 1
	jq_true "$json" 'length > 0 and all(.[]; .rx_packets == ([.[$o[]]] | add))' \
		--argjson o "$(obs_outcome_names)" || { echo "$json"; return 1; }
}

# iproute2 pins the maps of an object it loads under one directory that
# everything it loads on this machine shares. The suites that load the
# datapath with `ip link ... xdp obj` (test_iproute2, test_daemonless,
# test_adopt_iproute2, in this run or another's) take turns through a lock
# (ip_pins_claim), and remove exactly the pins they made, never a glob.
IP_PIN_DIR=/sys/fs/bpf/tc/globals
IP_PIN_LOCK=$XT_CLAIMS/tc-globals.lock

# ip_map_pins: the path each of the datapath's maps gets in $IP_PIN_DIR
# (its name, from include/xdpbr_maps.h), one a line.
ip_map_pins()
{
	map_pin_names | sed "s|^|$IP_PIN_DIR/|"
}

# ip_pins_claim PIN...: take the lock of $IP_PIN_DIR (waiting 300 s at
# most) for the rest of the run, then make sure no PIN is there (skip when
# one is: another loader's, left alone); each PIN is removed on cleanup.
# The lock's descriptor is inherited by what the run starts, and closes
# when the last of them exits.
ip_pins_claim()
{
	local p theirs=()
	if ! mkdir -p "$XT_CLAIMS" || ! exec {IP_PIN_FD}>>"$IP_PIN_LOCK"; then
		abort "ip_pins_claim: can't open $IP_PIN_LOCK"
	fi
	flock -w 300 "$IP_PIN_FD" ||
		skip "$IP_PIN_DIR: another run held $IP_PIN_LOCK for 300 s"
	for p in "$@"; do
		[ -e "$p" ] && theirs+=("$p")
	done
	[ ${#theirs[@]} -eq 0 ] ||
		skip "pins of another loader in $IP_PIN_DIR, left alone: ${theirs[*]}"
	XT_CLEANUP_CMDS+=("rm -f $*")
}

# ip_attach_all PIN: the bridge's ports attached by iproute2 alone, as
# doc/cli.md says: the first gets the object (`ip link ... xdp obj`), the
# others its program through a bpftool pin at PIN. IP_ID is that program.
ip_attach_all()
{
	local pin=$1 i
	check "ip link set dev ${PORT[1]} xdp obj xdpbr.bpf.o sec xdp.frags" \
		ip link set dev "${PORT[1]}" xdp obj "$BPF_OBJ" sec xdp.frags
	IP_ID=$(port_prog_id "${PORT[1]}")
	[ -n "$IP_ID" ] || abort "no XDP program on ${PORT[1]} after ip link ... xdp obj"
	check "bpftool prog pin id $IP_ID $pin" bpftool prog pin id "$IP_ID" "$pin"
	for ((i = 2; i <= NHOSTS; i++)); do
		check "ip link set dev ${PORT[i]} xdp pinned $pin" \
			ip link set dev "${PORT[i]}" xdp pinned "$pin"
	done
}

# obs_cli_ports: the port elements of `xdpbr -b $BR -j stats` (JSON array).
obs_cli_ports()
{
	local out
	out=$("$XDPBR" -b "$BR" -j stats 2>&1) || { echo "$out"; return 1; }
	jq -c '[.[] | select(.type == "port")]' <<<"$out" 2>&1 || {
		echo "$out"
		return 1
	}
}

# obs_settled SECONDS: the counters of the CLI no longer change (read
# 0.5 s apart), at most SECONDS. Leaves the last reading in SETTLED.
obs_settled()
{
	local end=$((SECONDS + $1)) prev
	SETTLED=$(obs_cli_ports)
	while :; do
		sleep 0.5
		prev=$SETTLED
		SETTLED=$(obs_cli_ports)
		[ "$prev" = "$SETTLED" ] && return 0
		[ "$SECONDS" -lt "$end" ] || return 1
	done
}

# obs_host_rx: what each host's e0 received, by the kernel's count, as
# {PORT: packets}: the copies the bridge delivered through that port.
obs_host_rx()
{
	local i n
	for ((i = 1; i <= NHOSTS; i++)); do
		n=$(ip -n "${NS[i]}" -j -s link show dev e0 | jq '.[0].stats64.rx.packets')
		jq -n -c --arg p "${PORT[i]}" --argjson n "${n:-null}" '{($p): $n}'
	done | jq -s -c add
}

# obs_stats_ports: the ports of a /stats document on stdin, as the CLI
# shows them: [{ifname, <counter>: n, ..., drops: {...}}].
obs_stats_ports()
{
	jq -c '[.ports[] | {ifname} + .counters]'
}

# obs_metrics_ports: the per-port counters of the Prometheus text on stdin
# (bridge $BR only), as the CLI shows them: xdpbr_<c>_total{port=P} is
# counter c, xdpbr_dropped_total{port=P,reason=R} is drop_R. Adds "_samples",
# the number of samples read for the port (a duplicate would hide here).
# shellcheck disable=SC2016 # jq variables
obs_metrics_ports()
{
	jq -R -s -c --arg br "$BR" '
		split("\n")
		| map(select(test("^xdpbr_[a-z0-9_]+_total[{]"))
		      | capture("^xdpbr_(?<fam>[a-z0-9_]+)_total[{](?<lab>.*)[}] (?<val>[^ ]+)$")
		      | .l = ([.lab | scan("([a-zA-Z_]+)=\"((?:[^\"\\\\]|\\\\.)*)\"")
			       | {key: .[0], value: .[1]}] | from_entries)
		      | select(.l.bridge == $br and .l.port != null))
		| group_by(.l.port)
		| map({ifname: .[0].l.port, _samples: length} +
		      (map({key: (if .fam == "dropped" then "drop_" + .l.reason
				  else .fam end),
			    value: (.val | tonumber)}) | from_entries))'
}

# obs_only_counters NAMES: keep ifname and the counters NAMES (a JSON array)
# of each port of the array on stdin; a missing counter becomes null.
# shellcheck disable=SC2016 # jq variables
obs_only_counters()
{
	jq -c --argjson n "$1" \
		'map(. as $o | {ifname} + ([$n[] | {key: ., value: $o[.]}] | from_entries))
		 | sort_by(.ifname)'
}

# obs_monitor_start KEY ARG...: run `xdpbr -b $BR ARG...` (a monitor) in the
# background, stdout to $XT_TMP/mon.KEY.out, stderr to .err, and wait (3 s
# at most) for its line "xdpbr: monitoring events of bridge $BR" on stderr.
# Returns 0 once the line is there, 2 if the monitor runs but did not print
# it, 1 (XT_WHY) if it exited.
obs_monitor_start()
{
	local key=$1 k pid
	shift
	"$XDPBR" -b "$BR" "$@" >"$XT_TMP/mon.$key.out" 2>"$XT_TMP/mon.$key.err" &
	pid=$!
	OBS_MON_PID[$key]=$pid
	XT_PIDS+=("$pid")
	for ((k = 0; k < 30; k++)); do
		grep -qF "xdpbr: monitoring events of bridge $BR" \
			"$XT_TMP/mon.$key.err" 2>/dev/null && return 0
		proc_alive "$pid" || break
		sleep 0.1
	done
	if proc_alive "$pid"; then
		XT_WHY="after 3 s, no line 'xdpbr: monitoring events of bridge $BR' on its stderr: '$(cat "$XT_TMP/mon.$key.err")'"
		return 2
	fi
	XT_WHY="xdpbr $* exited while starting; stderr: $(cat "$XT_TMP/mon.$key.err")"
	return 1
}

# obs_monitor_stop KEY: stop monitor KEY (SIGINT). STOP_RC: its status.
# Not in a $(...) subshell: it waits for the monitor.
obs_monitor_stop()
{
	[ -n "${OBS_MON_PID[$1]:-}" ] || return 0
	stop_pid "${OBS_MON_PID[$1]}" INT 3
	OBS_MON_PID[$1]=
}

# obs_events KEY: the JSON lines monitor KEY printed so far, as one array.
obs_events()
{
	jq -c -s . <"$XT_TMP/mon.$1.out" 2>/dev/null || echo '"unparsable"'
}

# obs_event_count KEY FILTER [JQ-ARG...]: how many events of monitor KEY
# match the jq boolean FILTER.
obs_event_count()
{
	local key=$1 filter=$2
	shift 2
	obs_events "$key" | jq "$@" "[.[]? | select($filter)] | length"
}

# obs_event_seen KEY FILTER [JQ-ARG...]: monitor KEY printed such an event.
obs_event_seen()
{
	local n
	n=$(obs_event_count "$@")
	[ "${n:-0}" -ge 1 ] 2>/dev/null
}
# ================================================ end of the obs_* block

# ================================================================
# vl_* helpers for test_vlan and test_vlan_config (802.1Q VLAN-aware
# bridging). This kernel has no 802.1Q devices: tagged frames are sent with
# sendframe and read back with `tcpdump -e`. Added as one block; the
# helpers above are unchanged.
# ================================================================

# vl_frame DST SRC [TAG...]: hex of an Ethernet frame for sendframe with the
# tags given, outermost first: VID (802.1Q, TPID 0x8100; 0 = priority tag)
# or ad:VID (802.1ad S-tag, 0x88a8); then EtherType 0x88b5 (local
# experimental; $VL_ETYPE if set) and a payload long enough that the frame
# is 60 bytes or more with every tag removed.
vl_frame()
{
	local hex="${1//:/}${2//:/}" tag len
	shift 2
	len=60
	for tag in "$@"; do
		case $tag in
		ad:*) hex+=$(printf '88a8%04x' "${tag#ad:}") ;;
		*) hex+=$(printf '8100%04x' "$tag") ;;
		esac
		len=$((len + 4))
	done
	hex+=${VL_ETYPE:-88b5}766c616e	# "vlan"
	while [ ${#hex} -lt $((len * 2)) ]; do
		hex+=00
	done
	echo "$hex"
}

# vl_send I DST SRC [TAG...]: send vl_frame DST SRC TAG... out of host I.
vl_send()
{
	local i=$1
	shift
	hexec "$i" "$SENDFRAME" e0 "$(vl_frame "$@")"
}

# vl_filter SRC: tcpdump filter for the frames vl_frame builds from SRC,
# tagged (one tag) or not.
vl_filter()
{
	echo "ether src $1 and (ether proto 0x88b5 or (vlan and ether proto 0x88b5))"
}

# vl_cap_count KEY any|untagged|VID: packets of the finished capture KEY
# (probes left out): all of them, those without an 802.1Q tag, or those
# tagged VID (the outer tag, as `tcpdump -e` prints it: "vlan VID,").
vl_cap_count()
{
	local pk
	pk=$(pfx_cap_lines "$1")
	case $2 in
	any) grep -c . <<<"$pk" ;;
	untagged) grep -v -c -e '802\.1Q' -e '^$' <<<"$pk" ;;
	*) grep -c ": vlan $2," <<<"$pk" ;;
	esac
}

# vl_have_cli: the CLI has the vlan commands.
vl_have_cli()
{
	"$XDPBR" vlan help 2>&1 | grep -q 'vlan show'
}

# vl_members JSON: `xdpbr -j vlan show` output as sorted lines
# "IFNAME VID FLAGS" (ranges expanded, flags sorted, comma-separated, "-"
# for none), for this run's ports only.
vl_members()
{
	printf '%s' "$1" | jq -r --arg pre "xt${ID}p" '
		.[] | select(.ifname | startswith($pre)) | .ifname as $n |
		.vlans[] | (.flags // [] | sort | join(",")) as $f |
		range(.vlan; (.vlanEnd // .vlan) + 1) |
		"\($n) \(.) \(if $f == "" then "-" else $f end)"' | sort
}
# vl_caps KEY FILTER SECONDS HOST...: capture FILTER on each HOST's e0
# (received frames only, tcpdump -Q in) for SECONDS, as captures
# KEY<host>, started together, each ready once it has seen a probe (as
# pfx_cap). vl_cap_count
# leaves probes out. A capture not ready within 5 s is a failure.
vl_caps()
{
	local key=$1 filter=$2 secs=$3 i
	shift 3
	for i in "$@"; do
		pfx_cap_start "$key$i" "$i" "$filter" "$secs" "" in
	done
	for i in "$@"; do
		pfx_cap_ready "$key$i" "$i" ||
			fail "capture '$filter' in h$i ready (probe seen)" "$XT_WHY"
	done
}

# vl_wait KEY HOST...: wait until the captures of vl_caps KEY have ended.
vl_wait()
{
	local key=$1 i
	shift
	for i in "$@"; do
		cap_end "$key$i"
	done
}

# vl_counts KEY WHAT HOST...: vl_cap_count of each (ended) capture of
# vl_caps KEY, space-separated.
vl_counts()
{
	local key=$1 what=$2 i out=()
	shift 2
	for i in "$@"; do
		out+=("$(vl_cap_count "$key$i" "$what")")
	done
	echo "${out[*]}"
}

# vl_shows KEY HOST...: what the captures of vl_caps KEY printed, per host
# (for failure details).
vl_shows()
{
	local key=$1 i
	shift
	for i in "$@"; do
		echo "h$i:"
		cap_show "$key$i"
	done
}

# vl_filtering_is true|false: `xdpbr bridge show` says vlan_filtering is.
vl_filtering_is()
{
	[ "$(bridge_field vlan_filtering)" = "$1" ]
}

# ================================================ end of the vl_* block

# ================================================================
# flt_* helpers for test_faults, test_macflood, test_valgrind and the soak
# runner (tests/soak/run.sh): faults while traffic flows, MAC floods,
# daemon resources. Added as one block; the helpers above are unchanged.
# ================================================================

PKTGEN=$XT_BUILD/tools/pktgen
declare -A FLT_IPERF_PID=()	# iperf3 clients by key
FLT_IPERF_RC=			# exit status of the last flt_iperf_wait
FLT_IPERF_MBPS=			# its receiver bit rate, Mbit/s

# flt_fdb_snapshot: the FDB without timestamps, sorted, one JSON line.
# shellcheck disable=SC2119 # the whole FDB
flt_fdb_snapshot()
{
	local j
	j=$(json_of array fdb_json) || return 1
	jq -c '[.[] | {mac: (.mac | ascii_downcase), ifname, vlan, state}] | sort' <<<"$j"
}

# flt_rx_all: rx_packets of each port of $PORTS, space-separated.
flt_rx_all()
{
	"$XDPBR" -b "$BR" -j stats | jq -r --args \
		'[.[] | select(.type == "port")] as $s |
		 [$ARGS.positional[] as $p | (first($s[] | select(.ifname == $p) |
		  .rx_packets) // "none")] | map(tostring) | join(" ")' "${PORTS[@]}"
}

# flt_check_rx_kept NAME BEFORE AFTER: two flt_rx_all results; no port's
# rx_packets went backwards.
flt_check_rx_kept()
{
	local name=$1 a b i bad=
	local -a x y
	read -ra x <<<"$2"
	read -ra y <<<"$3"
	for i in "${!x[@]}"; do
		a=${x[i]}
		b=${y[i]:-none}
		[[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ ]] && ((b >= a)) && continue
		bad+="${PORTS[i]}: $a -> $b; "
	done
	if [ -z "$bad" ] && [ ${#x[@]} -gt 0 ]; then
		pass "$name (rx_packets $2-> $3)"
		return 0
	fi
	fail "$name" "${bad:-no counters: '$2' -> '$3'}"
	return 1
}

# flt_prog_ids: "PORT:ID" of the XDP program of every port of $PORTS.
flt_prog_ids()
{
	local p
	for p in "${PORTS[@]}"; do
		printf '%s:%s ' "$p" "$(port_prog_id "$p" 2>/dev/null)"
	done
}

# flt_iperf_start KEY I J SECONDS: an iperf3 TCP test from host I to host J
# for SECONDS in the background (server: `iperf3 -s -1` in J, started and
# listening first). 1 and XT_WHY when the server does not listen in 5 s.
flt_iperf_start()
{
	local key=$1 i=$2 j=$3 secs=$4 k

	ip netns exec "${NS[j]}" iperf3 -s -1 -p 5201 >"$XT_TMP/iperfs.$key.out" 2>&1 &
	XT_PIDS+=("$!")
	for ((k = 0; k < 50; k++)); do
		[ -n "$(ip netns exec "${NS[j]}" ss -Htln '( sport = :5201 )' 2>/dev/null)" ] &&
			break
		sleep 0.1
	done
	if ((k == 50)); then
		XT_WHY="iperf3 -s in ${NS[j]} not listening after 5 s: $(cat "$XT_TMP/iperfs.$key.out")"
		return 1
	fi
	ip netns exec "${NS[i]}" iperf3 -c "${IP4[j]}" -p 5201 -t "$secs" -J \
		--connect-timeout 3000 >"$XT_TMP/iperf.$key.json" 2>"$XT_TMP/iperf.$key.err" &
	FLT_IPERF_PID[$key]=$!
	XT_PIDS+=("$!")
}

# flt_iperf_wait KEY SECONDS: wait (SECONDS at most, then kill) for iperf3
# client KEY; FLT_IPERF_RC is its exit status, FLT_IPERF_MBPS the rate the
# receiver saw. Returns 0 if it completed (status 0). Not in $(...).
flt_iperf_wait()
{
	local key=$1 secs=$2 pid=${FLT_IPERF_PID[$1]:-} k

	FLT_IPERF_RC=none FLT_IPERF_MBPS=0
	[ -n "$pid" ] || return 1
	for ((k = 0; k < secs * 10; k++)); do
		proc_alive "$pid" || break
		sleep 0.1
	done
	stop_pid "$pid" TERM 2
	FLT_IPERF_RC=$STOP_RC
	FLT_IPERF_PID[$key]=
	FLT_IPERF_MBPS=$(jq -r '(.end.sum_received.bits_per_second // 0) / 1e6 | floor' \
		"$XT_TMP/iperf.$key.json" 2>/dev/null)
	FLT_IPERF_MBPS=${FLT_IPERF_MBPS:-0}
	# iperf3 -J may exit 0 after "unable to connect": its error counts.
	[ "$FLT_IPERF_RC" = 0 ] && [ "$FLT_IPERF_MBPS" -gt 0 ] &&
		json_is object '.error == null' -- cat "$XT_TMP/iperf.$key.json" 2>/dev/null
}

# flt_hosts_csum_off: no TX checksum offload on the hosts' e0. A TCP or
# UDP frame a veth sends with offload on carries only a partial checksum
# (CHECKSUM_PARTIAL: the "hardware" is to finish it); XDP redirects the
# frame as it is, the skb's checksum state is lost on the way, and the
# receiving host drops the segment as corrupt (tcpdump -vv in the receiver:
# "cksum 0x... (incorrect -> 0x...)"). Real NICs finish the checksum in
# hardware before the wire, so this only concerns veth hosts on the XDP
# path; on the skb path (TC) the skb keeps its checksum state and nothing
# is turned off. ICMP and ARP are not affected (no offloaded checksum).
flt_hosts_csum_off()
{
	local i
	[ "$XT_DATAPATH" = xdp ] || return 0	# the skb path keeps the state
	for ((i = 1; i <= NHOSTS; i++)); do
		hexec "$i" ethtool -K e0 tx off >/dev/null 2>&1 || return 1
	done
}

# flt_iperf_show KEY: iperf3's error and stderr (failure details).
flt_iperf_show()
{
	jq -r '.error // empty' "$XT_TMP/iperf.$1.json" 2>/dev/null
	tail -n 5 "$XT_TMP/iperf.$1.err" "$XT_TMP/iperfs.$1.out" 2>/dev/null
}

# flt_rss_kib PID: VmRSS of PID in KiB (empty if gone).
flt_rss_kib()
{
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null
}

# flt_http_ms URL: time to the complete answer of GET URL in ms (integer),
# "fail" when it did not answer 200 within 2 s.
flt_http_ms()
{
	local t
	t=$(curl -fsS -o /dev/null --max-time 2 -w '%{time_total}' "$1" 2>/dev/null) ||
		{ echo fail; return 1; }
	awk -v t="$t" 'BEGIN { printf "%d\n", t * 1000 + 0.5 }'
}

# flt_bridge_json: `xdpbr -b $BR -j bridge show`, the bridge's object.
flt_bridge_json()
{
	"$XDPBR" -b "$BR" -j bridge show | jq -c '.[0]'
}

# flt_bridge_counter NAME: counter NAME summed over the bridge's ports
# (`xdpbr -j stats`).
flt_bridge_counter()
{
	"$XDPBR" -b "$BR" -j stats |
		jq --arg n "$1" '[.[] | select(.type == "port") | .[$n] // 0] | add // 0'
}

# flt_daemon_alive: the daemon started by daemon_start still runs (kill -0,
# and not a zombie).
flt_daemon_alive()
{
	[ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null && proc_alive "$DAEMON_PID"
}
# ================================================ end of the flt_* block

# fdb_where MAC: "PORT STATE" of MAC's FDB entries (comma-separated), "none"
# when it has none; fails when the FDB can't be read (nothing to compare).
fdb_where()
{
	local json
	json=$(json_of array fdb_json) || return 1
	jq -r --arg m "$1" \
		'[.[] | select((.mac | ascii_downcase) == $m) | "\(.ifname) \(.state)"] |
		 if length == 0 then "none" else join(",") end' <<<"$json"
}

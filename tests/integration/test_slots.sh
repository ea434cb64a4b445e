#!/usr/bin/env bash
# datapaths: auto
# Port slots claimed at once by the CLI and the daemon never collide: while
# the daemon adds the ports a reloaded configuration file names (SIGHUP),
# `xdpbr link add` adds others: in rounds 1 and 3 twenty commands in
# parallel, in round 2 one after the other (so that only the daemon can
# meet them). Every port must end with a slot of its own, the slot ->
# ifindex map must lead back to it, and hosts on ports added either way
# must reach each other. Ports of a round are removed before the next (by
# the file, and by link del).
#
# Choosing a slot and writing it takes a few hundred microseconds, so on a
# busy machine the processes rarely meet in it by chance. To make them
# meet, every bpf() call of the daemon and the CLIs is slowed by
# SLOW_BPF_US (an LD_PRELOAD shim around libc's syscall(), through which
# libbpf makes them): a claim then takes tens of milliseconds, and twenty
# of them started together overlap unless something keeps them apart.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # functions that run through check and xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# its checks count exactly the ports it made

NCONF=20	# ports the reloaded file adds
NCLI=20		# ports `xdpbr link add` adds at the same time
ROUNDS=3
SLOW_BPF_US=300
SLOW=$XT_TMP/slowbpf.so

# build_slowbpf: $SLOW, which delays each bpf() syscall made through
# syscall() by $SLOW_BPF_US microseconds when that is in the environment.
build_slowbpf()
{
	cat >"$XT_TMP/slowbpf.c" <<'END'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

long syscall(long n, ...)
{
	static long (*real)(long, ...);
	const char *us = getenv("SLOW_BPF_US");
	long a[6];
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (n == SYS_bpf && us)
		usleep((useconds_t)atoi(us));
	return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
END
	gcc -O2 -shared -fPIC -o "$SLOW" "$XT_TMP/slowbpf.c" -ldl 2>"$XT_TMP/slowbpf.err"
}

# conf [FIRST LAST]: the bridge with port 1, and ports FIRST..LAST.
conf()
{
	local i
	{
		printf '[bridge]\nname = %s\nlisten = none\n[port %s]\n' "$BR" "${PORT[1]}"
		if [ $# -eq 2 ]; then
			for ((i = $1; i <= $2; i++)); do
				printf '[port %s]\n' "${PORT[i]}"
			done
		fi
	} >"$CONF"
}

# ports_json: `xdpbr -j link show`, or nothing.
ports_json()
{
	"$XDPBR" -b "$BR" -j link show 2>/dev/null
}

# nports_is N: the bridge has N ports.
nports_is()
{
	local j
	j=$(ports_json)
	[ -n "$j" ] && [ "$(jq length <<<"$j")" = "$1" ]
}

# slotif_json: the slot -> ifindex map as [{slot, ifindex}], in use only.
slotif_json()
{
	bpftool -j map dump pinned "$PIN_DIR/xdpbr_slotif" 2>/dev/null |
		jq -c '[.[].formatted | {slot: .key, ifindex: .value} | select(.ifindex != 0)]'
}

# shared_slots: "SLOT: IFNAME IFNAME..." for each slot that more than one
# port of `xdpbr -j link show` holds; nothing when each has its own.
shared_slots()
{
	jq -r 'group_by(.slot)[] | select(length > 1) |
		"\(.[0].slot): \([.[].ifname] | join(" "))"' <<<"$1"
}

# slot_mismatches: "IFNAME slot S, but xdpbr_slotif[S] = IFINDEX" for each
# port whose slot leads elsewhere.
slot_mismatches()
{
	jq -r --argjson s "$2" '.[] | .slot as $k | .ifindex as $i |
		select(any($s[]; .slot == $k and .ifindex == $i) | not) |
		"\(.ifname) slot \($k), but xdpbr_slotif[\($k)] = \([$s[] | select(.slot == $k) | .ifindex][0])"' \
		<<<"$1"
}

# check_round R: ports 1..1+NCONF+NCLI, each on a slot of its own, and the
# slot map leads back to each.
check_round()
{
	local r=$1 want=$((1 + NCONF + NCLI)) ports slotif n
	check "round $r: all $want ports listed within 20 s" xt_poll 20 nports_is "$want"
	ports=$(ports_json)
	slotif=$(slotif_json)
	n=$(jq length <<<"${ports:-null}")
	if [ -n "$ports" ] && [ "$n" = "$want" ] && [ -z "$(shared_slots "$ports")" ]; then
		pass "round $r: $want ports, each on a slot of its own"
	else
		fail "round $r: $want ports, each on a slot of its own" "ports: ${n:-none}" \
			"shared slots:" "$(shared_slots "${ports:-[]}")"
	fi
	if [ -n "$slotif" ] && [ -n "$ports" ] &&
		[ -z "$(slot_mismatches "$ports" "$slotif")" ]; then
		pass "round $r: each port's slot maps back to its ifindex (xdpbr_slotif)"
	else
		fail "round $r: each port's slot maps back to its ifindex (xdpbr_slotif)" \
			"$(slot_mismatches "${ports:-[]}" "${slotif:-[]}")"
	fi
}

xt_require
xt_need bpftool
build_slowbpf || abort "building the slowbpf shim" "$(cat "$XT_TMP/slowbpf.err")"
N=$((1 + NCONF + NCLI))
topo_up "$N"
CONF=$XT_TMP/xdpbrd.conf
conf
SLOW_BPF_US=$SLOW_BPF_US LD_PRELOAD=$SLOW pfx_daemon_start 1 -c "$CONF" ||
	abort "xdpbrd -c $CONF" "$XT_WHY"

FIRST_CLI=$((2 + NCONF))
for ((r = 1; r <= ROUNDS; r++)); do
	conf 2 $((1 + NCONF))
	if ((r % 2)); then
		way=parallel
		kill -HUP "$DAEMON_PID"
	else
		way="one after the other"
	fi
	pids=()
	for ((i = FIRST_CLI; i <= N; i++)); do
		SLOW_BPF_US=$SLOW_BPF_US LD_PRELOAD=$SLOW \
			"$XDPBR" link add dev "${PORT[i]}" master "$BR" >"$XT_TMP/add.$i.out" 2>&1 &
		pids+=("$!")
		if [ "$i" = "$FIRST_CLI" ] && ! ((r % 2)); then
			kill -HUP "$DAEMON_PID"
		fi
		((r % 2)) || wait "$!"
	done
	bad=''
	for ((k = 0; k < ${#pids[@]}; k++)); do
		wait "${pids[k]}" || bad+="${PORT[FIRST_CLI + k]}: $(cat "$XT_TMP/add.$((FIRST_CLI + k)).out"); "
	done
	check_eq "round $r: $NCLI 'xdpbr link add' ($way) all succeed" "" "$bad"
	check_round "$r"
	check "round $r: ping h2 (added by the file) -> h$N (added by the CLI)" hping 2 "$N"
	# Back to one port for the next round.
	conf
	kill -HUP "$DAEMON_PID"
	for ((i = FIRST_CLI; i <= N; i++)); do
		"$XDPBR" -b "$BR" link del dev "${PORT[i]}" >/dev/null 2>&1
	done
	check "round $r: back to 1 port" xt_poll 20 nports_is 1
done
pfx_check_daemon "xdpbrd still runs"

finish

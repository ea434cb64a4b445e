# shellcheck shell=bash
# docs_sandbox.sh - runs one runnable block of the documentation for
# test_docs.sh (the convention: doc/writing.md). Two modes:
#
#   ip netns exec SANDBOX bash docs_sandbox.sh sandbox
#       from the block's work directory (the current one, where build/ is
#       the build under test, the tree's files beside it, and block.sh,
#       steps): private /run/netns and /tmp, lo up, the block's ports and
#       daemons, then the block (`block` mode, a process of its own), then
#       the daemons stopped with SIGINT and everything the block left in
#       the namespaces it made removed. Exit status 0 when the block and
#       the daemons did what they must; what went wrong is on stdout.
#   bash docs_sandbox.sh block [background]
#       block.sh, one complete command at a time, each checked: the first
#       that exits non-zero ends the block with "FILE:LINE: exit status
#       N".
#       With background, each command is started in the background
#       instead, must come up, and must exit 0 on SIGINT.
#   bash docs_sandbox.sh unpin
#       removes every bridge pinned for this network namespace.
#
# The work directory must not be under /tmp, which the sandbox covers with
# a tmpfs of the block's own (the tree may be: it is bound back).

set -u
set -o pipefail

XDPBR=build/xdpbr
READY_SECS=${DOCS_READY_SECS:-30}	# a loaded 2-core machine loads the datapath slowly
DAEMON_PIDS=()
DAEMON_CMDS=()
DAEMON_LOGS=()

say()
{
	printf '%s\n' "$*"
}

# where LINE: FILE:LINE of the block's LINE, from test_docs.sh's
# DOCS_FILE and DOCS_LINE0 (the block's first line).
where()
{
	echo "${DOCS_FILE:-block.sh}:$((${DOCS_LINE0:-1} + $1 - 1))"
}

# is_xdpbrd CMD: CMD starts xdpbrd (ready when it says "forwarding on").
is_xdpbrd()
{
	[[ $1 == *xdpbrd* ]]
}

# start_bg LOG CMD: CMD in the background, its own process group, output
# to LOG; its PID in DAEMON_PIDS.
start_bg()
{
	local log=$1 cmd=$2

	set -m
	(eval "exec $cmd") >"$log" 2>&1 </dev/null &
	set +m
	DAEMON_PIDS+=("$!")
	DAEMON_CMDS+=("$cmd")
	DAEMON_LOGS+=("$log")
}

# came_up PID LOG CMD: CMD (PID, output in LOG) is running and ready; says
# why not.
came_up()
{
	local pid=$1 log=$2 cmd=$3 i

	for ((i = 0; i < READY_SECS * 10; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			say "'$cmd' exited with status $? instead of running; its output:"
			sed 's/^/    /' "$log"
			return 1
		fi
		if is_xdpbrd "$cmd"; then
			grep -q 'forwarding on' "$log" && return 0
		elif ((i >= 10)); then
			return 0
		fi
		sleep 0.1
	done
	say "'$cmd' not ready after $READY_SECS s; its output:"
	sed 's/^/    /' "$log"
	return 1
}

# stop_all: SIGINT to every process started by start_bg, last first; each
# must exit 0 within 10 s. Says which did not.
stop_all()
{
	local i k pid rc bad=0

	for ((i = ${#DAEMON_PIDS[@]} - 1; i >= 0; i--)); do
		pid=${DAEMON_PIDS[i]}
		kill -INT "$pid" 2>/dev/null
		for ((k = 0; k < 100; k++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			say "'${DAEMON_CMDS[i]}' still ran 10 s after SIGINT (killed)"
			bad=1
			continue
		fi
		wait "$pid"
		rc=$?
		if [ "$rc" -ne 0 ]; then
			say "'${DAEMON_CMDS[i]}' exited with status $rc on SIGINT; its output:"
			sed 's/^/    /' "${DAEMON_LOGS[i]}"
			bad=1
		fi
	done
	DAEMON_PIDS=() DAEMON_CMDS=() DAEMON_LOGS=()
	return $bad
}

# commands FILE: the complete commands of FILE, as "LINE<TAB>TEXT" records
# ended by NUL; a command spans lines until bash finds it complete
# (continuations, quotes, compound commands). Comment-only and blank lines
# are skipped.
commands()
{
	local line n=0 first=0 acc=""

	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		if [ -z "$acc" ]; then
			[[ $line =~ ^[[:space:]]*(#.*)?$ ]] && continue
			first=$n
			acc=$line
		else
			acc+=$'\n'$line
		fi
		[[ $acc == *\\ ]] && continue
		bash -n -c "$acc" 2>/dev/null || continue
		printf '%s\t%s\0' "$first" "$acc"
		acc=""
	done <"$1"
	[ -z "$acc" ] || printf '%s\t%s\0' "$first" "$acc"
}

# run_block: each command of block.sh in this shell, checked.
run_block()
{
	local rec line cmd rc

	while IFS= read -r -d '' -u 3 rec; do
		line=${rec%%$'\t'*}
		cmd=${rec#*$'\t'}
		say "+ $cmd"
		eval "$cmd" </dev/null
		rc=$?
		if [ "$rc" -ne 0 ]; then
			say "$(where "$line"): exit status $rc"
			exit 1
		fi
	done 3< <(commands block.sh)
}

# run_background: each command of block.sh started in the background,
# checked to come up, then all stopped with SIGINT.
run_background()
{
	local rec line cmd i=0

	while IFS= read -r -d '' -u 3 rec; do
		line=${rec%%$'\t'*}
		cmd=${rec#*$'\t'}
		say "+ $cmd &"
		start_bg "bg$i.log" "$cmd"
		if ! came_up "${DAEMON_PIDS[i]}" "bg$i.log" "$cmd"; then
			say "$(where "$line"): did not come up"
			stop_all >/dev/null
			exit 1
		fi
		i=$((i + 1))
	done 3< <(commands block.sh)
	stop_all || exit 1
}

# --------------------------------------------------------------- sandbox

# add_port I [NS:]IF: IF (in NS, made if needed) the peer of e0 in host
# namespace hI.
add_port()
{
	local i=$1 spec=$2 ns="" ifname=$2 h=h$1

	if [[ $spec == *:* ]]; then
		ns=${spec%%:*}
		ifname=${spec#*:}
		if [ ! -e "/run/netns/$ns" ]; then
			ip netns add "$ns" && ip -n "$ns" link set lo up || return 1
		fi
	fi
	ip netns add "$h" &&
		ip -n "$h" link set lo up &&
		ip link add "$ifname" type veth peer name e0 netns "$h" &&
		ip -n "$h" link set e0 address "$(printf '02:00:00:00:00:%02x' "$i")" &&
		ip -n "$h" addr add "198.18.0.$i/24" dev e0 &&
		ip -n "$h" addr add "2001:2::$i/64" dev e0 nodad &&
		ip -n "$h" link set e0 up || return 1
	if [ -n "$ns" ]; then
		ip link set "$ifname" netns "$ns" && ip -n "$ns" link set "$ifname" up
	else
		ip link set "$ifname" up
	fi
}

# bridges_here: the bridges of this network namespace, as xdpbr names
# them (one: bridge show; several: the error that lists them).
bridges_here()
{
	local out

	if out=$("$XDPBR" -j bridge show 2>&1); then
		jq -r '.[].ifname' <<<"$out" 2>/dev/null
	else
		sed -n 's/^xdpbr: several bridges: \(.*\); choose one.*/\1/p' <<<"$out" | tr ' ' '\n'
	fi
}

# unpin: every bridge pinned for this network namespace removed.
unpin()
{
	local b

	for b in $(bridges_here); do
		"$XDPBR" bridge del "$b" >/dev/null 2>&1
	done
}

# clean_netns NS: every process of namespace NS but this shell ended, then
# the bridges pinned for it removed.
clean_netns()
{
	local ns=$1 pids

	pids=$(ip netns pids "$ns" 2>/dev/null | grep -vx "$$")
	if [ -n "$pids" ]; then
		# shellcheck disable=SC2086 # one PID a word
		kill -TERM $pids 2>/dev/null
		sleep 0.5
		pids=$(ip netns pids "$ns" 2>/dev/null | grep -vx "$$")
		# shellcheck disable=SC2086
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
	fi
	if [ "$ns" = sandbox ]; then
		unpin
	else
		ip netns exec "$ns" bash "$0" unpin
	fi
}

# sandbox_cleanup: what the block and its steps left, gone.
sandbox_cleanup()
{
	local ns

	stop_all >/dev/null
	for ns in /run/netns/*; do
		ns=${ns##*/}
		[ "$ns" = sandbox ] || [ "$ns" = "*" ] || clean_netns "$ns"
	done
	clean_netns sandbox
	for ns in /run/netns/*; do
		ns=${ns##*/}
		[ "$ns" = sandbox ] || [ "$ns" = "*" ] || ip netns del "$ns" 2>/dev/null
	done
}

sandbox()
{
	local step words i=0 n=0 rc=0 background="" root rfd

	# The tree may itself be under /tmp (a CI clone): kept open across the
	# tmpfs and bound back at its path, so the block's links into it (and
	# this script) still resolve.
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	exec {rfd}<"$root"
	if ! { mount -t tmpfs -o mode=0755 xdpbr-docs /run/netns &&
		mount -t tmpfs -o mode=1777 xdpbr-docs /tmp &&
		{ [[ $root != /tmp/* ]] ||
			{ mkdir -p "$root" &&
			  mount --no-canonicalize --bind "/proc/self/fd/$rfd" "$root"; }; } &&
		touch /run/netns/sandbox &&
		mount --bind /proc/self/ns/net /run/netns/sandbox &&
		ip link set lo up; }; then
		say "sandbox: private /run/netns, /tmp or lo failed"
		exit 1
	fi
	trap 'sandbox_cleanup' EXIT
	trap 'exit 143' TERM
	while IFS= read -r step; do
		read -r -a words <<<"$step"
		case ${words[0]} in
		ports)
			for spec in "${words[@]:1}"; do
				n=$((n + 1))
				add_port "$n" "$spec" >setup.log 2>&1 ||
					{ say "ports: $spec failed:"; sed 's/^/    /' setup.log; exit 1; }
			done ;;
		daemon)
			say "+ ${step#daemon } &    (step)"
			start_bg "step$i.log" "${step#daemon }"
			came_up "${DAEMON_PIDS[i]}" "step$i.log" "${step#daemon }" || exit 1
			i=$((i + 1)) ;;
		background)
			background=background ;;
		*)
			say "unknown step: $step"
			exit 1 ;;
		esac
	done <steps
	# In the background, so that a TERM (the test's timeout) ends this
	# shell's wait at once and the EXIT trap cleans up.
	bash "$0" block $background &
	wait $! || rc=1
	if [ "${#DAEMON_PIDS[@]}" -gt 0 ]; then
		stop_all || rc=1
	fi
	exit $rc
}

case ${1:-} in
sandbox) sandbox ;;
block) if [ "${2:-}" = background ]; then run_background; else run_block; fi ;;
unpin) unpin ;;
*) echo "usage: docs_sandbox.sh sandbox | block [background] | unpin" >&2; exit 2 ;;
esac

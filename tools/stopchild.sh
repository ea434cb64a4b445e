# shellcheck shell=bash
# stopchild.sh - sourced by the benchmark tools (bench.sh, benchlib.sh,
# fdbscale.sh): one way to end a child they started.

# stop_child PID: SIGTERM, up to 10 s to exit, then SIGKILL; reaps it.
# An empty PID is nothing to stop.
stop_child()
{
	local pid=$1 i
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

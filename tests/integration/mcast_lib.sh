#!/usr/bin/env bash
# mcast_lib.sh - hosts that join multicast groups with real sockets, for
# the snooping suites (sourced after lib.sh). PEER is mcpeer.py, whose
# modes its header gives.
# shellcheck disable=SC2034 # PEER is the suites'

PEER=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/mcpeer.py
declare -A JOINER

# join KEY I MODE GROUP [SRC]: host I runs `mcpeer.py MODE GROUP [SRC]`, a
# membership held until `leave KEY`.
join()
{
	ip netns exec "${NS[$2]}" python3 "$PEER" "${@:3}" >"$XT_TMP/join.$1" 2>&1 &
	JOINER[$1]=$!
	XT_PIDS+=("$!")
}

leave()
{
	stop_pid "${JOINER[$1]}" TERM 5
}

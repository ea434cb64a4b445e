#!/usr/bin/env bash
# mcast_lib.sh - hosts that join multicast groups with real sockets, for
# the snooping suites (sourced after lib.sh). PEER is mcpeer.py, whose
# modes its header gives. The suite sets N, the datagrams of a stream.
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

# mc_stream FROM GROUP: host FROM sends N datagrams to GROUP (mcpeer.py
# send) while every other host captures; sets GOT[i] to the copies host i
# received (GOT[FROM]: -). FROM 0: the host's stack sends, on BR.
declare -a GOT
mc_stream()
{
	local i from=$1 f="udp port 4242 and dst $2"

	for ((i = 1; i <= NHOSTS; i++)); do
		[ "$i" = "$from" ] && continue
		cap_start "s$i" "$i" "$f" 30 || fail "capture on h$i" "$XT_WHY"
	done
	if [ "$from" = 0 ]; then
		MCPEER_DEV=$BR python3 "$PEER" send "$2" "$N" || fail "the host sends to $2"
	else
		hexec "$from" python3 "$PEER" send "$2" "$N" || fail "h$from sends to $2"
	fi
	# The stream has gone: a second for the last copies, then the
	# captures end (on a loaded machine a fixed window may close first).
	sleep 1
	for ((i = 1; i <= NHOSTS; i++)); do
		GOT[i]=-
		[ "$i" = "$from" ] && continue
		kill -TERM "${CAP_PID[s$i]}" 2>/dev/null
		cap_end "s$i"
		GOT[i]=$(cap_lines "s$i" | grep -c .)
	done
}

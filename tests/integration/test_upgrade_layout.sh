#!/usr/bin/env bash
# Adopting counters pinned by an older build, whose layout differs: before
# drop_port_state (issue 12) xdpbr_stats held 29 counters a slot, and
# libbpf reuses a pin only with the value size the object declares. The
# old layout is pinned here by hand (bpftool) with known values; xdpbrd
# starting over it must adopt the bridge, say it moved the counters to its
# layout, pin a map of that layout in the old one's place with every
# counter under its own name (drop_redirect, events_dropped moved one
# place on; drop_port_state 0), and forward.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off

OLD_COUNTERS=29
OLD_DROP_REDIRECT=20	# index in the old layout
OLD_EVENTS_DROPPED=28
NEW_DROP_PORT_STATE=20	# indexes in this build's (include/xdpbr.h)
NEW_DROP_REDIRECT=21
NEW_EVENTS_DROPPED=29

# u64le N: N as 8 little-endian bytes in hex words.
u64le()
{
	local n=$1 i out=()
	for ((i = 0; i < 8; i++)); do
		out+=("$(printf '%02x' $(((n >> (8 * i)) & 255)))")
	done
	echo "${out[*]}"
}

# counter_at JSON CPU INDEX: counter INDEX of CPU's value in bpftool's JSON
# of a per-CPU entry (bytes as "0x.." strings, little-endian u64s).
counter_at()
{
	jq -r --argjson c "$2" --argjson i "$3" \
		'.values[] | select(.cpu == $c) | .value[($i * 8):($i * 8 + 8)] |
		 reverse | map(ltrimstr("0x")) | join("")' <<<"$1" | { read -r h && echo $((16#$h)); }
}

xt_require
command -v bpftool >/dev/null || abort "missing: bpftool (tools/deps.sh installs it)"
n=$(counter_names | grep -c .)
check_eq "this build has one counter more than the old layout" $((OLD_COUNTERS + 1)) "$n"
check_eq "drop_port_state, drop_redirect, events_dropped are at 20, 21, 29" \
	"drop_port_state drop_redirect events_dropped" \
	"$(counter_names | sed -n "$((NEW_DROP_PORT_STATE + 1))p;$((NEW_DROP_REDIRECT + 1))p;$((NEW_EVENTS_DROPPED + 1))p" | xargs)"

topo_up 2
# The old layout's counters, slot 0 (frames on non-ports: no port of the
# new daemon resets it): drop_redirect 3 and events_dropped 5 on every CPU.
mkdir -p "$PIN_DIR" && chmod 700 "$PIN_DIR" || abort "mkdir $PIN_DIR"
check "pin xdpbr_stats in the old layout ($OLD_COUNTERS counters)" \
	bpftool map create "$PIN_DIR/xdpbr_stats" type percpu_array key 4 \
	value $((OLD_COUNTERS * 8)) entries 64 name xdpbr_stats
old=()
for ((i = 0; i < OLD_COUNTERS; i++)); do
	case $i in
	"$OLD_DROP_REDIRECT") old+=("$(u64le 3)") ;;
	"$OLD_EVENTS_DROPPED") old+=("$(u64le 5)") ;;
	*) old+=("$(u64le 0)") ;;
	esac
done
# shellcheck disable=SC2068 # the bytes are words
check "old counters written" bpftool map update pinned "$PIN_DIR/xdpbr_stats" \
	key 0 0 0 0 value hex ${old[@]}

daemon_start || abort "xdpbrd over the old layout" "$XT_WHY"
check "xdpbrd says it adopted the bridge" grep -qi adopt "$DAEMON_LOG"
check "xdpbrd says it moved the counters to its layout" \
	grep -q "counters moved to this build's layout" "$DAEMON_LOG"
j=$(bpftool -j map show pinned "$PIN_DIR/xdpbr_stats")
check_jq "the pin now holds $((OLD_COUNTERS + 1)) counters a slot" "$j" \
	".bytes_value == $(((OLD_COUNTERS + 1) * 8))"
j=$(bpftool -j map lookup pinned "$PIN_DIR/xdpbr_stats" key 0 0 0 0)
check_eq "CPU 0: drop_redirect, drop_port_state, events_dropped = 3 0 5" "3 0 5" \
	"$(counter_at "$j" 0 $NEW_DROP_REDIRECT) $(counter_at "$j" 0 $NEW_DROP_PORT_STATE) $(counter_at "$j" 0 $NEW_EVENTS_DROPPED)" \
	"$j"
check "ping h1 -> h2 over the adopted bridge" hping 1 2
check "the CLI reads the ports' counters" port_counter "${PORT[1]}" rx_packets
check "no pin left behind by the move" test ! -e "$PIN_DIR/xdpbr_stats_upgrade"

finish

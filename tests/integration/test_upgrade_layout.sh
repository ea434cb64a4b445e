#!/usr/bin/env bash
# datapaths: auto
# Adopting counters pinned by an older build, whose layout differs: before
# jumbo frames xdpbr_stats held 29 counters a slot, before drop_port_state
# (issue 12) 31, before drop_linklocal_limit 32, before bpdu_socket_limit
# 33, and libbpf reuses a pin only with the value size the object declares.
# Each old layout is pinned here by hand (bpftool) with known values;
# xdpbrd starting over it must adopt the bridge, say it moved the counters
# to its layout, pin a map of that layout in the old one's place with every
# counter under its own name (drop_redirect and
# events_dropped keep theirs; drop_port_state is 0), and forward.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off

# Older layouts (lib/upgrade.c), by their counters' names: 29 before jumbo
# frames and port states, 31 before drop_port_state, 32 before
# drop_linklocal_limit, 33 before bpdu_socket_limit.
V29=(rx_packets rx_bytes tx_packets tx_bytes forwarded flood_broadcast
	flood_multicast flood_unknown pass_linklocal pass_not_port drop_runt
	drop_bad_src drop_same_port drop_spoofed_static drop_isolated
	drop_vlan_filtered drop_8021ad drop_storm_broadcast drop_storm_multicast
	drop_storm_unknown drop_redirect learned moved learn_failed learn_limit
	flood_filtered tx_dropped redirect_errors events_dropped)
V31=("${V29[@]:0:21}" drop_mtu "${V29[@]:21:6}" tx_dropped_mtu redirect_errors
	events_dropped)
V32=("${V29[@]:0:20}" drop_port_state drop_redirect drop_mtu "${V29[@]:21:6}" tx_dropped_mtu
	redirect_errors events_dropped)
V33=("${V32[@]:0:20}" drop_linklocal_limit "${V32[@]:20}")

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

# now_index NAME: where counter NAME is in this build (include/xdpbr.h).
now_index()
{
	counter_names | grep -nx -- "$1" | cut -d: -f1 | { read -r n && echo $((n - 1)); }
}

# round KEY NAME...: pin xdpbr_stats in the layout of the counters NAME...
# with drop_redirect 3 and events_dropped 5 (slot 0, frames on non-ports:
# no port the daemon adds resets it), start xdpbrd over it, check.
round()
{
	local key=$1 i j old=() n
	shift
	n=$#
	mkdir -p "$PIN_DIR" && chmod 700 "$PIN_DIR" || abort "mkdir $PIN_DIR"
	check "$key: pin xdpbr_stats in the old layout ($n counters)" \
		bpftool map create "$PIN_DIR/xdpbr_stats" type percpu_array key 4 \
		value $((n * 8)) entries 64 name xdpbr_stats
	for name in "$@"; do
		case $name in
		drop_redirect) old+=("$(u64le 3)") ;;
		events_dropped) old+=("$(u64le 5)") ;;
		*) old+=("$(u64le 0)") ;;
		esac
	done
	# shellcheck disable=SC2068 # the bytes are words
	check "$key: old counters written" bpftool map update pinned "$PIN_DIR/xdpbr_stats" \
		key 0 0 0 0 value hex ${old[@]}

	daemon_start || abort "$key: xdpbrd over the old layout" "$XT_WHY"
	check "$key: xdpbrd says it adopted the bridge" grep -qi adopt "$DAEMON_LOG"
	check "$key: xdpbrd says it moved the counters to its layout" \
		grep -q "counters moved to this build's layout" "$DAEMON_LOG"
	j=$(bpftool -j map show pinned "$PIN_DIR/xdpbr_stats")
	check_jq "$key: the pin now holds $NOW counters a slot" "$j" ".bytes_value == $((NOW * 8))"
	j=$(bpftool -j map lookup pinned "$PIN_DIR/xdpbr_stats" key 0 0 0 0)
	check_eq "$key: CPU 0: drop_redirect, drop_port_state, events_dropped = 3 0 5" "3 0 5" \
		"$(counter_at "$j" 0 "$(now_index drop_redirect)") $(counter_at "$j" 0 "$(now_index drop_port_state)") $(counter_at "$j" 0 "$(now_index events_dropped)")" \
		"$j"
	check "$key: ping h1 -> h2 over the adopted bridge" hping 1 2
	check "$key: the CLI reads the ports' counters" port_counter "${PORT[1]}" rx_packets
	check "$key: no pin left behind by the move" test ! -e "$PIN_DIR/xdpbr_stats_upgrade"
	daemon_stop TERM
	rm -rf "$PIN_DIR"
}

xt_require
xt_need bpftool
NOW=$(counter_names | grep -c .)
check_eq "this build has 34 counters (add its layout to lib/upgrade.c and here when not)" \
	34 "$NOW"
topo_up 2
round v29 "${V29[@]}"
round v31 "${V31[@]}"
round v32 "${V32[@]}"
round v33 "${V33[@]}"

finish

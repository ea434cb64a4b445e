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
# events_dropped keep theirs; drop_port_state is 0) in a map of this
# build's slots (those pins have the 64 of before 1024 ports), and forward.
# Then the real last build before 1024 ports (commit OLD64_COMMIT, every
# slot map of 64 entries), built from this repository's history into
# $XT_BUILD: its bridge, killed under a 50 pps ping, is adopted by this
# xdpbrd without a lost reply, its FDB, port settings and counters kept in
# maps of XDPBR_MAX_PORTS entries (the fast flood's of 64), and the slow
# flood's small maps it had not made and ready; this build's CLI reads
# and writes the old bridge before that. The fast
# flood's maps as the builds after it pinned them (XDPBR_MAX_PORTS
# entries) are moved into maps of 64. A slot map of neither size is
# refused.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off

# Older layouts (lib/upgrade.c), by their counters' names: 29 before jumbo
# frames and port states, 31 before drop_port_state, 32 before
# drop_linklocal_limit, 33 before bpdu_socket_limit, 34 before drop_locked.
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
V34=("${V33[@]}" bpdu_socket_limit)

# u32le N: N as 4 little-endian bytes in hex words.
u32le()
{
	printf '%02x %02x %02x %02x\n' $(($1 & 255)) $((($1 >> 8) & 255)) \
		$((($1 >> 16) & 255)) $((($1 >> 24) & 255))
}

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
	j=$(bpftool -j map show pinned "$PIN_DIR/xdpbr_stats")
	check_jq "$key: ... and $SLOTS slots, not 64" "$j" ".max_entries == $SLOTS"
	check "$key: no pin left behind by the move" test ! -e "$PIN_DIR/xdpbr_stats_upgrade"
	daemon_stop TERM
	rm -rf "$PIN_DIR"
}

# The last build with 64 port slots (lib/upgrade.h), and where it is built.
OLD64_COMMIT=4c8ee6c
OLD64_DIR=$XT_BUILD/old64-$OLD64_COMMIT

# old64_build: OLD64_COMMIT's xdpbrd and xdpbr in $OLD64_DIR/build, built
# once (one run at a time builds, the others wait), from `git archive`.
# 2 (reason in XT_WHY) when this tree has no history to build it from.
old64_build()
{
	local t0=$SECONDS
	[ -x "$OLD64_DIR/build/xdpbrd" ] && [ -x "$OLD64_DIR/build/xdpbr" ] && return 0
	if ! git -C "$XT_ROOT" cat-file -e "$OLD64_COMMIT^{commit}" 2>/dev/null; then
		XT_WHY="commit $OLD64_COMMIT is not in this tree's git history"
		return 2
	fi
	(
		flock 9
		[ -x "$OLD64_DIR/build/xdpbrd" ] && exit 0
		rm -rf "$OLD64_DIR.tmp" && mkdir -p "$OLD64_DIR.tmp" &&
			git -C "$XT_ROOT" archive "$OLD64_COMMIT" | tar -x -C "$OLD64_DIR.tmp" &&
			make -C "$OLD64_DIR.tmp" -j2 build/xdpbrd build/xdpbr \
				>"$XT_TMP/old64.make" 2>&1 &&
			rm -rf "$OLD64_DIR" && mv "$OLD64_DIR.tmp" "$OLD64_DIR"
	) 9>"$XT_BUILD/old64.lock" || {
		XT_WHY="building $OLD64_COMMIT: $(tail -n 20 "$XT_TMP/old64.make" 2>/dev/null)"
		return 1
	}
	echo "# built $OLD64_COMMIT's xdpbrd and xdpbr in $((SECONDS - t0)) s"
}

# pins_of_entries N: the bridge's pinned maps of N entries, one a line.
pins_of_entries()
{
	local pin
	for pin in "$PIN_DIR"/xdpbr_*; do
		bpftool -j map show pinned "$pin" 2>/dev/null |
			jq -r --argjson n "$1" --arg p "${pin##*/}" 'select(.max_entries == $n) | $p'
	done
}

# port_view PORT: what the port's settings are, as `xdpbr link show` says.
port_view()
{
	json_of array "$1" -b "$BR" -j link show dev "$2" |
		jq -c '.[0] | {learning, flood, mcast_flood, bcast_flood, isolated,
			       max_learned, storm}'
}

# fdb_view XDPBR: the FDB's entries (MAC, port, state), sorted.
fdb_view()
{
	json_of array "$1" -b "$BR" -j fdb show |
		jq -c '[.[] | {mac: (.mac | ascii_downcase), ifname, state}] | sort_by(.mac)'
}

round_old64()
{
	local ob=$OLD64_DIR/build rc j old64 now64 fdb0 view0 rx0 rx1 id0 id1 static=02:00:00:aa:bb:01
	old64_build
	rc=$?
	if [ "$rc" = 2 ]; then
		echo "# SKIP round old64: $XT_WHY"
		return 0
	fi
	if [ "$rc" != 0 ]; then
		fail "old64: $OLD64_COMMIT built" "$XT_WHY"
		return 1
	fi
	pass "old64: $OLD64_COMMIT built"
	XDPBRD=$ob/xdpbrd XDPBR=$ob/xdpbr daemon_start ||
		abort "old64: $OLD64_COMMIT's xdpbrd" "$XT_WHY"
	check "old64: ping h1 -> h2 over the old bridge" hping 1 2
	check "old64: the old CLI adds a static entry" \
		"$ob/xdpbr" -b "$BR" fdb add "$static" dev "${PORT[1]}"
	check "old64: ... and sets a port's flooding, learn limit and storm limit" \
		"$ob/xdpbr" -b "$BR" link set dev "${PORT[2]}" mcast_flood off max_learned 100 \
		storm bcast 5000
	check "old64: 300 frames from h1 for the counters" \
		hexec 1 ping -q -c 300 -i 0.002 -W 1 "${IP4[2]}"
	old64=$(pins_of_entries 64 | sort)
	check "old64: its slot maps have 64 entries" grep -qx xdpbr_portcfg <<<"$old64"
	fdb0=$(fdb_view "$ob/xdpbr")
	view0=$(port_view "$ob/xdpbr" "${PORT[2]}")
	rx0=$(XDPBR=$ob/xdpbr port_counter "${PORT[1]}" rx_packets)
	id0=$(port_prog_id "${PORT[1]}")
	# shellcheck disable=SC2016 # jq variables
	check "old64: its FDB has h1, h2 and the static entry" \
		jq_true "$fdb0" 'all($a, $b, $s; . as $m | any($f[]; .mac == $m))' \
		--arg a "${MAC[1]}" --arg b "${MAC[2]}" --arg s "$static" --argjson f "$fdb0"
	daemon_stop KILL
	check "old64: killed, it leaves the bridge forwarding" hping 1 2
	check "old64: this build's CLI reads the old bridge's ports" \
		json_is array "length == 2" -- "$XDPBR" -b "$BR" -j link show
	check "old64: ... and its FDB" test "$(fdb_view "$XDPBR")" = "$fdb0"
	check "old64: ... and sets a port's flag on it (pins without the small flood maps)" \
		"$XDPBR" -b "$BR" link set dev "${PORT[2]}" mcast_flood off

	pfx_ping_start up 1 2 0.02
	sleep 0.5
	daemon_start || abort "old64: this xdpbrd over $OLD64_COMMIT's pins" "$XT_WHY"
	sleep 1
	pfx_ping_stop up
	check "old64: a 50 pps ping h1 -> h2 across the adoption lost nothing" pfx_ping_check up 40
	check "old64: xdpbrd says it moved the maps to its layout" \
		grep -q "pinned maps moved to this build's layout ($SLOTS port slots" "$DAEMON_LOG"
	id1=$(port_prog_id "${PORT[1]}")
	check "old64: the port runs this build's program ($id0 -> $id1)" \
		test -n "$id1" -a "$id0" != "$id1"
	now64=$(pins_of_entries 64 | sort)
	check_eq "old64: no pinned map has 64 entries left but the fast and small flood maps" \
		"$MAPS64" "$now64"
	check_eq "old64: every other one has $SLOTS" "$(comm -23 <(echo "$old64") <(echo "$FAST_MAPS"))" \
		"$(pins_of_entries "$SLOTS" | sort)"
	check_eq "old64: the FDB is kept (learned and static entries)" "$fdb0" "$(fdb_view "$XDPBR")"
	check_eq "old64: the port's settings are kept" "$view0" "$(port_view "$XDPBR" "${PORT[2]}")"
	check_eq "old64: the slow flood's small maps, which it had not, hold both ports (P2 not multicast's)" \
		"2 1 2" "$(for m in xdpbr_flood_bc_small xdpbr_flood_mc_small xdpbr_flood_uu_small; do
			bpftool -j map dump pinned "$PIN_DIR/$m" | jq length; done | xargs)"
	check_jq "old64: ... and are ready" "$(bpftool -j map lookup pinned \
		"$PIN_DIR/xdpbr_flood_fast" key 0 0 0 0)" \
		'.value[30] != "0x00"'	# small, after the masks, ready and top
	rx1=$(port_counter "${PORT[1]}" rx_packets)
	check "old64: the counters are kept (rx_packets $rx0 -> $rx1)" \
		test "${rx0:-0}" -ge 300 -a "${rx1:-0}" -ge "${rx0:-0}"
	check "old64: no pin left behind by the move" \
		bash -c "! ls '$PIN_DIR' | grep -q _upgrade"
	check "old64: ping h2 -> h1 over the adopted bridge" hping 2 1
	daemon_stop TERM
	rm -rf "$PIN_DIR"
}

# The fast flood's maps as the builds from 1024 ports until they were made
# small again pinned them: XDPBR_MAX_PORTS entries, which a broadcast walks
# bucket by bucket. This build's bridge, killed, its fast maps pinned again
# in that size with the same entries: the next xdpbrd moves them into maps
# of 64, and a broadcast takes the fast flood to every port.
round_fast1025()
{
	local m v k ifi
	daemon_start || abort "fast1025: xdpbrd" "$XT_WHY"
	check "fast1025: ping h1 -> h2" hping 1 2
	daemon_stop KILL
	for m in $FAST_MAPS; do
		v=$(bpftool -j map dump pinned "$PIN_DIR/$m") || fail "fast1025: dump $m"
		rm -f "$PIN_DIR/$m"
		bpftool map create "$PIN_DIR/$m" type devmap_hash key 4 value 8 \
			entries "$SLOTS" name "${m:0:15}" || fail "fast1025: pin $m with $SLOTS entries"
		for k in $(jq -r '.[] | .key | if type == "array" then map(ltrimstr("0x")) |
				reverse | join("") else tostring end' <<<"$v"); do
			ifi=$((16#$k))
			# shellcheck disable=SC2046 # the bytes are words
			bpftool map update pinned "$PIN_DIR/$m" key hex $(u32le "$ifi") \
				value hex $(u32le "$ifi") 00 00 00 00 ||
				fail "fast1025: $m: entry $ifi"
		done
	done
	check_eq "fast1025: the fast flood's maps pinned with $SLOTS entries" "$FAST_MAPS" \
		"$(pins_of_entries "$SLOTS" | grep _fast | sort)"
	daemon_start || abort "fast1025: this xdpbrd over them" "$XT_WHY"
	check "fast1025: xdpbrd says it moved the maps to its layout" \
		grep -q "pinned maps moved to this build's layout" "$DAEMON_LOG"
	check_eq "fast1025: the fast flood's maps have 64 entries (as the small ones)" "$MAPS64" \
		"$(pins_of_entries 64 | sort)"
	check_eq "fast1025: ... holding both ports" "2 2 2" "$(for m in $FAST_MAPS; do
		bpftool -j map dump pinned "$PIN_DIR/$m" | jq length; done | xargs)"
	check_jq "fast1025: the fast flood is ready" "$(bpftool -j map lookup pinned \
		"$PIN_DIR/xdpbr_flood_fast" key 0 0 0 0)" \
		'.value[24] != "0x00"'	# ready, after the three 64-bit masks
	# arping's requests only: h1's kernel may probe h2 by unicast ARP meanwhile
	cap_start bc 2 "ether broadcast and arp and src host ${IP4[1]} and dst host 198.18.0.99" 4 ||
		fail "fast1025: capture on h2" "$XT_TMP"
	hexec 1 arping -c 3 -w 3 -I e0 198.18.0.99 >/dev/null 2>&1
	cap_end bc
	check_eq "fast1025: h2 got h1's 3 ARP broadcasts" 3 "$(cap_lines bc | grep -c .)" \
		"$(cap_lines bc)"
	daemon_stop TERM
	rm -rf "$PIN_DIR"
}

# A slot map of neither layout (128 entries): refused, said which, and
# nothing attached.
round_refused()
{
	mkdir -p "$PIN_DIR" && chmod 700 "$PIN_DIR" || abort "mkdir $PIN_DIR"
	check "refused: pin xdpbr_slotif with 128 entries" \
		bpftool map create "$PIN_DIR/xdpbr_slotif" type array key 4 value 4 entries 128 \
		name xdpbr_slotif
	XT_START_SECS=5 daemon_start
	check "refused: xdpbrd exits with a failure" test -n "$DAEMON_RC" -a "${DAEMON_RC:-0}" != 0
	check "refused: ... and says which map and why" \
		grep -q "xdpbr_slotif pinned in $PIN_DIR has a layout this xdpbrd doesn't know.*128 entries.*$SLOTS entries, or 64 before 1024 ports" \
		"$DAEMON_LOG"
	check "refused: no port is left with a program" no_xdp_anywhere
	daemon_stop KILL
	rm -rf "$PIN_DIR"
}

xt_require
xt_need bpftool
NOW=$(counter_names | grep -c .)
SLOTS=$(sed -n 's/^#define XDPBR_MAX_PORTS \([0-9]*\).*/\1/p' "$XDPBR_H")
FAST_MAPS=$(printf 'xdpbr_flood_%s_fast\n' bc mc uu | sort)
# the maps of 64 entries: the fast flood's and the slow flood's small ones
MAPS64=$(printf 'xdpbr_flood_%s\n' bc_fast mc_fast uu_fast bc_small mc_small uu_small | sort)
check_eq "this build has 35 counters (add its layout to lib/upgrade.c and here when not)" \
	35 "$NOW"
topo_up 2
round v29 "${V29[@]}"
round v31 "${V31[@]}"
round v32 "${V32[@]}"
round v33 "${V33[@]}"
round v34 "${V34[@]}"
round_old64
round_fast1025
round_refused

finish

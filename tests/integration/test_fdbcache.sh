#!/usr/bin/env bash
# The datapath's per-CPU FDB cache as the loader sizes it (xdpbrd -C /
# --fdb-cache, config key fdb_cache): unset, it sizes itself from the FDB's
# size and the possible CPUs (include/fdbc_size.h: the FDB size rounded up
# to a power of two, at most 2 MiB a CPU and 64 MiB in all, at least 4096
# entries), for the default FDB and for -s 131072, and says so with -v;
# a cache of 4 entries that the flows keep evicting, 64 from a
# configuration file, and 0 (off).
# Whatever its size, every pair of hosts reaches each other, known unicast
# is never flooded, and a MAC deleted from the FDB (xdpbr fdb del) is
# flooded again at its next frame.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

# cache_state: {cache: max_entries of fdbc_cache (the sets of all CPUs),
# bits and cpus: fdbc_bits and fdbc_cpus of the .rodata} of the running
# program.
cache_state()
{
	local prog m json cache='' bits='' cpus=''

	prog=$(bpftool -j prog show pinned "$PIN_DIR/prog_rx" | jq '.id') || return 1
	for m in $(bpftool -j prog show id "$prog" | jq '.map_ids[]'); do
		json=$(bpftool -j map show id "$m")
		case $(jq -r .name <<<"$json") in
		fdbc_cache) cache=$(jq .max_entries <<<"$json") ;;
		*.rodata)
			json=$(bpftool -j map dump id "$m")
			bits=$(jq '.[0].formatted.value[".rodata"][] | select(has("fdbc_bits")) | .fdbc_bits' <<<"$json")
			cpus=$(jq '.[0].formatted.value[".rodata"][] | select(has("fdbc_cpus")) | .fdbc_cpus' <<<"$json")
			;;
		esac
	done
	echo "{\"cache\": ${cache:-null}, \"bits\": ${bits:-null}, \"cpus\": ${cpus:-null}}"
}

# all_pairs NAME: every host pings every other once.
all_pairs()
{
	local i j
	for i in 1 2 3; do
		for j in 1 2 3; do
			[ "$i" = "$j" ] && continue
			check "$1: ping h$i -> h$j" pfx_poll 5 hping "$i" "$j"
		done
	done
}

# no_unicast_flood NAME: 20 pings h1 -> h2 flood nothing (flood_unknown of
# p1 unchanged).
no_unicast_flood()
{
	local before
	before=$(port_counter "${PORT[1]}" flood_unknown)
	check "$1: 20 pings h1 -> h2 after learning" \
		ping_all 1 20 -i 0.01 -W 1 "${IP4[2]}"
	check_same "$1: ... flood nothing: flood_unknown of ${PORT[1]} unchanged" \
		"$before" "$(port_counter "${PORT[1]}" flood_unknown 2>&1)"
}

# deleted_floods NAME: `xdpbr fdb del` of h2, then a ping h1 -> h2: its
# first frame is unknown unicast (flooded), though h1's CPU had h2 cached.
# A frame h2 sends on its own between the delete and the ping (a neighbour
# probe) learns it again; so up to 3 tries, each with a delete that worked.
deleted_floods()
{
	local before after try out
	for try in 1 2 3; do
		hexec 1 ping -c 3 -i 0.01 -W 1 "${IP4[2]}" >/dev/null 2>&1
		before=$(port_counter "${PORT[1]}" flood_unknown)
		if ! out=$("$XDPBR" -b "$BR" fdb del "${MAC[2]}" dev "${PORT[2]}" 2>&1); then
			fail "$1: fdb del h2" "$out"
			return
		fi
		hexec 1 ping -c 1 -W 1 "${IP4[2]}" >/dev/null 2>&1
		after=$(port_counter "${PORT[1]}" flood_unknown)
		if [[ $before =~ ^[0-9]+$ && $after =~ ^[0-9]+$ ]] && ((after - before >= 1)); then
			pass "$1: fdb del h2, ping h1 -> h2: flooded as unknown ($((after - before)), try $try)"
			return
		fi
	done
	fail "$1: fdb del h2, ping h1 -> h2: flooded as unknown" \
		"flood_unknown of ${PORT[1]}: $before -> $after (3 tries)"
}

# auto_entries FDB_SIZE NCPUS: the rule of include/fdbc_size.h, written
# out again here as the test's own oracle.
auto_entries()
{
	local fdb=$1 ncpu=$2 want=1 cap=$((2 * 1024 * 1024 / 16)) total=1
	while ((want < fdb)); do want=$((want * 2)); done
	while ((total * 2 <= 64 * 1024 * 1024 / 16 / ncpu)); do total=$((total * 2)); done
	((want > cap)) && want=$cap
	((want > total)) && want=$total
	((want < 4096)) && want=4096
	echo "$want"
}

# log2 N of a power of two N
log2()
{
	local n=$1 b=0
	while ((n > 1)); do n=$((n / 2)); b=$((b + 1)); done
	echo "$b"
}

xt_require
xt_need bpftool
topo_up 3

# possible CPUs, as the per-CPU maps count them ("0-1", "0", "0-3,5")
NPOSS=$(awk -F, '{ n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-");
	n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }' /sys/devices/system/cpu/possible)
E_DEF=$(auto_entries 65536 "$NPOSS")
E_128K=$(auto_entries 131072 "$NPOSS")

# sets: 4 entries (ways) each, 2 at least; the map holds every possible
# CPU's sets, one CPU after the other
for spec in "default:-v:$((E_DEF / 4 * NPOSS)):$(($(log2 "$E_DEF") - 2)):$E_DEF:65536" \
	"fdb 131072:-v -s 131072:$((E_128K / 4 * NPOSS)):$(($(log2 "$E_128K") - 2)):$E_128K:131072" \
	"4 entries:-C 4 -v:$((2 * NPOSS)):1:4:set" "off:-C 0:1:0" "config 64:config:$((16 * NPOSS)):4"; do
	IFS=: read -r name opt sets bits entries fdb <<<"$spec"
	args=()
	case $opt in
	config)
		printf '[bridge]\nname = %s\nfdb_cache = 64\nlisten = none\n' "$BR" >"$XT_TMP/c.conf"
		args=(-c "$XT_TMP/c.conf")
		;;
	?*) read -ra args <<<"$opt" ;;
	esac
	daemon_start "${args[@]}" -l none || abort "$name: xdpbrd ${args[*]}" "$XT_WHY"
	state=$(cache_state)
	check_eq "$name: fdbc_cache has $sets sets" "$sets" "$(jq .cache <<<"$state")" "$state"
	check_eq "$name: fdbc_bits $bits" "$bits" "$(jq .bits <<<"$state")" "$state"
	check_eq "$name: fdbc_cpus $NPOSS (sets for every possible CPU)" "$NPOSS" \
		"$(jq .cpus <<<"$state")" "$state"
	case $fdb in
	set)
		check "$name: -v logs the size it was given" grep -qF \
			"bridge $BR: FDB cache $entries entries a CPU (set by fdb_cache / -C)" "$DAEMON_LOG"
		;;
	?*)
		check "$name: -v logs the size it chose and why" grep -qF \
			"bridge $BR: FDB cache $entries entries a CPU ($((entries * 16 / 1024)) KiB on each of $NPOSS possible CPUs), sized for an FDB of $fdb entries" \
			"$DAEMON_LOG"
		;;
	esac
	all_pairs "$name"
	no_unicast_flood "$name"
	deleted_floods "$name"
	daemon_stop || fail "$name: xdpbrd stops on SIGTERM" "$(cat "$DAEMON_LOG")"
done

# A size that is not a power of two is refused, and says what it wants.
out=$(timeout 10 "$XDPBRD" -C 3 -l none "$BR" "${PORTS[@]}" 2>&1)
rc=$?
check_eq "-C 3: exit status 2" 2 "$rc" "$out"
if grep -q "power of two" <<<"$out"; then
	pass "-C 3: the message says 'power of two'"
else
	fail "-C 3: the message says 'power of two'" "$out"
fi

finish

#!/usr/bin/env bash
# datapaths: xdp
# tools/bpfperf.sh and build/tools/jitlines, the profiler the performance
# notes rest on: jitlines gives the running xdpbr_rx's source lines in
# address order, by id and by name, and refuses what is not loaded;
# bpfperf puts the perf samples of a ping flood through the bridge on
# xdpbr_rx's source lines (shares of its samples, the hottest first), and
# says so when the program got no samples or does not exist.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
XT_DATAPATH=xdp
. "$(dirname "$0")/lib.sh"

JITLINES=$XT_BUILD/tools/jitlines
BPFPERF=$XT_ROOT/tools/bpfperf.sh

# refuses NAME RC TEXT CMD...: CMD exits with RC and says TEXT on stderr.
refuses()
{
	local name=$1 want=$2 text=$3 err rc
	shift 3
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = "$want" ] && grep -qF -- "$text" <<<"$err"; then
		pass "$name"
	else
		fail "$name" "command: $*" "exit status: $rc (expected $want)" \
			"stderr: ${err:-(nothing)} (expected: $text)"
	fi
}

xt_require
xt_need perf:linux-perf
[ -x "$JITLINES" ] || abort "$JITLINES not built (make)"
topo_up 2
daemon_start || abort "xdpbrd start" "$XT_WHY"
check "ping h1 -> h2" pfx_poll 5 hping 1 2

id=$(port_prog_id "${PORT[1]}")
check "${PORT[1]} runs an XDP program" test -n "$id"

# --- jitlines: by id, by name, and what is not loaded
lines=$("$JITLINES" "$id" 2>&1)
check "jitlines $id: lines of xdpbr.bpf.c" grep -qP '^ffff[0-9a-f]{12}\txdpbr\.bpf\.c:[0-9]+\t' <<<"$lines"
check "jitlines $id: lines of the headers (pipeline.h)" grep -qP '\tpipeline\.h:[0-9]+\t' <<<"$lines"
check_eq "jitlines $id: addresses in order" "$(cut -f1 <<<"$lines")" \
	"$(cut -f1 <<<"$lines" | LC_ALL=C sort)"
check "jitlines xdpbr_rx: the program by name too" \
	grep -qF "$(head -1 <<<"$lines")" <<<"$("$JITLINES" xdpbr_rx)"
refuses "jitlines of a name nobody loaded fails and says so" 1 \
	"no program named xt_no_such_prog is loaded" "$JITLINES" xt_no_such_prog

# --- bpfperf during a ping flood h1 -> h2 through the bridge
hexec 1 ping -f -q -w 6 "${IP4[2]}" >/dev/null 2>&1 &
flood=$!
sleep 0.5
out=$(JITLINES=$JITLINES "$BPFPERF" -d 3 -n 5 xdpbr_rx 2>&1)
rc=$?
wait "$flood"
check_eq "bpfperf -d 3 -n 5 xdpbr_rx: exit status 0" 0 "$rc" "$out"
check_eq "bpfperf: a header and 1-5 lines" 1 \
	"$(awk 'NR == 1 && /^ *SAMPLES +SHARE +FILE:LINE +SOURCE$/ { h = 1 }
		NR > 1 && $2 ~ /%$/ && $3 ~ /^[a-z_.]+\.[ch]:[0-9]+$/ { n++ }
		END { print (h && n >= 1 && n <= 5 && NR == n + 1) ? 1 : 0 }' <<<"$out")" "$out"
check_eq "bpfperf: the hottest line first" \
	"$(awk 'NR > 1 { print $1 }' <<<"$out" | sort -nr)" \
	"$(awk 'NR > 1 { print $1 }' <<<"$out")" "$out"
check "bpfperf: shares of the program's samples, at most 100% in all" \
	awk 'NR > 1 { sub(/%/, "", $2); s += $2 } END { exit !(s > 0 && s <= 100.05) }' <<<"$out"

# --- what it refuses
refuses "bpfperf with no traffic: no samples, says so" 1 \
	"no samples in xdpbr_rx" env JITLINES="$JITLINES" "$BPFPERF" -d 1 xdpbr_rx
refuses "bpfperf of a program nobody loaded" 1 \
	"no program named xt_no_such_prog" env JITLINES="$JITLINES" "$BPFPERF" -d 1 xt_no_such_prog
refuses "bpfperf -d x: a usage error" 2 "-d: a number of seconds" env JITLINES="$JITLINES" "$BPFPERF" -d x xdpbr_rx

daemon_stop || fail "xdpbrd stops on SIGTERM" "$(cat "$DAEMON_LOG")"
finish

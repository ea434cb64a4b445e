#!/usr/bin/env bash
# datapaths: auto
# The helpers of lib.sh that other suites' verdicts rest on must fail when
# what they read is broken, or a check built on them passes without
# checking anything. Each helper that reads the CLI's JSON is run against
# a stand-in for xdpbr that prints nothing, fails, crashes (SIGSEGV),
# prints text, prints the wrong JSON type or two documents: it must fail
# every time; and with good JSON it must pass (a control: the stand-in and
# the call are right). The same for ping's output (pfx_ping_check), two
# reads of a counter (check_same) and commands that crash (check_fail,
# check_err).
#
# Needs no root and no namespaces: nothing here touches the network.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check
. "$(dirname "$0")/lib.sh"

# The stand-in: what it prints depends on STUB_MODE (and STUB_JSON).
XDPBR=$XT_TMP/xdpbr-stub
cat >"$XDPBR" <<'EOF'
#!/bin/sh
case $STUB_MODE in
empty) exit 0 ;;
fail) echo "xdpbr: can't open bridge" >&2; exit 1 ;;
segv) kill -SEGV $$ ;;
text) echo "this is not JSON" ;;
object) echo '{"error": "an object where an array belongs"}' ;;
two) echo '[]'; echo '[]' ;;
good) printf '%s\n' "$STUB_JSON" ;;
esac
EOF
chmod +x "$XDPBR"
BAD_MODES=(empty fail segv text object two)
declare -A WHAT=([empty]="prints nothing" [fail]="fails (status 1)"
	[segv]="crashes (SIGSEGV)" [text]="prints text" [object]="prints an object"
	[two]="prints two documents")

M1=02:00:00:00:00:01
M2=02:00:00:00:00:02
FDB='[{"mac": "02:00:00:00:00:01", "ifname": "p1", "vlan": 0, "state": ""}]'
LINKS='[{"ifname": "p1"}]'
STATS='[{"ifname": "p1", "rx_packets": 5}]'

# against GOOD-JSON HELPER ARG...: HELPER fails whatever xdpbr does wrong,
# and passes when it prints GOOD-JSON.
against()
{
	local good=$1 m
	shift
	for m in "${BAD_MODES[@]}"; do
		STUB_MODE=$m check_fail "$1 fails when xdpbr ${WHAT[$m]}" "$@"
	done
	STUB_MODE=good STUB_JSON=$good check "$1 passes on good JSON (control)" "$@"
}

# outcome CHECK...: what a check-style helper (check_fail, check_same, ...)
# reported, "ok" or "FAIL"; it runs in a subshell, so its verdict is not
# counted as this test's.
outcome()
{
	local out
	out=$("$@" 2>&1)
	case $out in
	"ok - "*) echo ok ;;
	"FAIL - "*) echo FAIL ;;
	*) echo "unclear: $out" ;;
	esac
}

# --- helpers that read the CLI's JSON
against "$FDB" fdb_has "$M1" p1
against "$FDB" fdb_lacks "$M2"
against "$FDB" pfx_fdb_has "$M1" p1
against "$FDB" pfx_fdb_lacks "$M2"
against "$LINKS" pfx_listed p1
against "$LINKS" pfx_unlisted p2
against "$STATS" port_counter p1 rx_packets
against "$FDB" flt_fdb_snapshot
outcomes=$(jq -nc --argjson o "$(obs_outcome_names)" \
	'[{type: "port", ifname: "p1", rx_packets: 1} +
	  ([$o[] | {key: ., value: 0}] | from_entries) + {forwarded: 1}]')
against "$outcomes" counters_add_up
STUB_MODE=good STUB_JSON=$FDB check_fail "fdb_has: a MAC the FDB lacks" fdb_has "$M2" p1
STUB_MODE=good STUB_JSON=$FDB check_fail "fdb_lacks: a MAC the FDB has" fdb_lacks "$M1"
STUB_MODE=good STUB_JSON=$LINKS check_fail "pfx_unlisted: a listed port" pfx_unlisted p1
STUB_MODE=good STUB_JSON='[{"ifname": "p1"}]' check_fail \
	"port_counter: a counter the port lacks (null)" port_counter p1 rx_packets
check_eq "port_counter prints the counter" 5 \
	"$(STUB_MODE=good STUB_JSON=$STATS port_counter p1 rx_packets)"

# --- json_of, jq_true, json_is themselves
against '[]' json_of array "$XDPBR"
check_fail "json_of: a number where an array belongs" json_of array echo 5
check_fail "jq_true: no input" jq_true "" 'true'
check_fail "jq_true: false" jq_true '[]' 'length > 0'
check_fail "jq_true: two values" jq_true '[] []' 'length == 0'
check "jq_true: true" jq_true '[1]' 'length == 1'
check_fail "json_is: a command that prints nothing" json_is array 'true' -- true
check_fail "json_is: a command that fails" json_is array 'true' -- false
check_fail "json_is: a filter that is false" json_is array 'length > 0' -- echo '[]'
check "json_is: a filter that is true" json_is array '.[0] == $v' --argjson v 1 -- echo '[1]'

# --- check_fail, check_err: a crash is not the failure a check expects
segv='kill -SEGV $$'
check_eq "check_fail: a command killed by SIGSEGV is a FAIL" FAIL \
	"$(outcome check_fail x sh -c "$segv")"
check_eq "check_fail: a command that exits 1 is ok" ok "$(outcome check_fail x false)"
check_eq "check_fail: a command that exits 0 is a FAIL" FAIL "$(outcome check_fail x true)"
check_eq "check_err: a crash is a FAIL" FAIL \
	"$(outcome check_err x sh -c "echo refused >&2; $segv")"
check_eq "check_err: exit 1 without a message is a FAIL" FAIL "$(outcome check_err x false)"
check_eq "check_err: exit 1 with a message is ok" ok \
	"$(outcome check_err x sh -c 'echo refused >&2; exit 1')"

# --- check_same: two failed reads prove nothing
check_eq "check_same: two empty reads are a FAIL" FAIL "$(outcome check_same x '' '')"
check_eq "check_same: two nulls are a FAIL" FAIL "$(outcome check_same x null null)"
check_eq "check_same: 5 then 6 is a FAIL" FAIL "$(outcome check_same x 5 6)"
check_eq "check_same: 5 then 5 is ok" ok "$(outcome check_same x 5 5)"

# --- pfx_ping_check on ping's output (what `ping -n -i ...` prints)
# ping_out KEY SENT REPLIES [UNREACHABLE]: $XT_TMP/ping.KEY.out of a ping
# that sent SENT requests and got replies to requests 1..REPLIES (a list
# "1 2 4" for a gap), or "Destination Host Unreachable" for the first
# UNREACHABLE requests and no reply at all.
ping_out()
{
	local key=$1 sent=$2 replies=$3 unreach=${4:-0} s n=0
	{
		echo "PING 198.18.0.2 (198.18.0.2) 56(84) bytes of data."
		if ((unreach > 0)); then
			for ((s = 1; s <= unreach; s++)); do
				echo "From 198.18.0.1 icmp_seq=$s Destination Host Unreachable"
			done
		else
			[[ $replies == *" "* ]] || replies=$(seq -s ' ' 1 "$replies")
			for s in $replies; do
				echo "64 bytes from 198.18.0.2: icmp_seq=$s ttl=64 time=0.050 ms"
				n=$((n + 1))
			done
		fi
		echo
		echo "--- 198.18.0.2 ping statistics ---"
		if ((unreach > 0)); then
			echo "$sent packets transmitted, 0 received, +$unreach errors, 100% packet loss, time 800ms"
		else
			echo "$sent packets transmitted, $n received, $((100 * (sent - n) / sent))% packet loss, time 800ms"
		fi
	} >"$XT_TMP/ping.$key.out"
}
ping_out good 30 30
check "pfx_ping_check: 30 sent, 30 replies" pfx_ping_check good 20
ping_out inflight 31 30
check "pfx_ping_check: the last request still in flight is no loss" pfx_ping_check inflight 20
ping_out tail 400 30
check_fail "pfx_ping_check: 400 sent, 30 replies (lost after the last reply)" \
	pfx_ping_check tail 20
ping_out unreach 30 0 30
check_fail "pfx_ping_check: 30 'Destination Host Unreachable' are no replies" \
	pfx_ping_check unreach 20
ping_out gap 30 "$(seq -s ' ' 1 4) $(seq -s ' ' 6 30)"
check_fail "pfx_ping_check: request 5 lost" pfx_ping_check gap 20
ping_out few 10 10
check_fail "pfx_ping_check: 10 replies, 20 wanted" pfx_ping_check few 20
head -n 31 "$XT_TMP/ping.good.out" >"$XT_TMP/ping.nosum.out"
check_fail "pfx_ping_check: no summary (ping killed)" pfx_ping_check nosum 20
: >"$XT_TMP/ping.empty.out"
check_fail "pfx_ping_check: no output" pfx_ping_check empty 20
check_fail "pfx_ping_check: no file" pfx_ping_check nosuch 20

finish

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
# Needs no root and no namespaces: nothing here touches the network, but
# for xt_leftovers's checks, which make a veth pair and pin directories
# when run as root.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check
. "$(dirname "$0")/lib.sh"
# shellcheck source=stp_lib.sh
. "$(dirname "$0")/stp_lib.sh"

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

# --- check_same_json, check_same_match: two failed reads prove nothing
check_eq "check_same_json: two empty reads are a FAIL" FAIL "$(outcome check_same_json x '' '')"
check_eq "check_same_json: the same error text twice is a FAIL" FAIL \
	"$(outcome check_same_json x 'xdpbr: no bridge' 'xdpbr: no bridge')"
check_eq "check_same_json: null twice is a FAIL" FAIL "$(outcome check_same_json x null null)"
check_eq "check_same_json: two documents twice is a FAIL" FAIL \
	"$(outcome check_same_json x '[] []' '[] []')"
check_eq "check_same_json: [1] then [2] is a FAIL" FAIL "$(outcome check_same_json x '[1]' '[2]')"
check_eq "check_same_json: the same array, spaced differently, is ok" ok \
	"$(outcome check_same_json x '[1, 2]' '[1,2]')"
check_eq "check_same_match: two empty reads are a FAIL" FAIL \
	"$(outcome check_same_match x "$XT_MAC_RE" '' '')"
check_eq "check_same_match: the same error text twice is a FAIL" FAIL \
	"$(outcome check_same_match x "$XT_MAC_RE" 'Device not found' 'Device not found')"
check_eq "check_same_match: the same MAC twice is ok" ok \
	"$(outcome check_same_match x "$XT_MAC_RE" 02:00:00:00:00:01 02:00:00:00:00:01)"
check_eq "check_same_match: a roles line with a port missing is a FAIL" FAIL \
	"$(outcome check_same_match x "$STP_ROLES_RE" 'p1:root/forwarding ' 'p1:root/forwarding ')"

# --- ping_all: every ping answered, not ping's exit status
# ping STUB-ARGS: a stand-in for ping (ping_all's host 0 runs it here) that
# prints PING_STUB's summary and exits 0, as ping does with one reply.
ping()
{
	printf '%s\n' "--- 198.18.0.2 ping statistics ---" "$PING_STUB"
}
PING_STUB="3 packets transmitted, 3 received, 0% packet loss, time 402ms"
check "ping_all: 3 of 3 answered (control)" ping_all 0 3 198.18.0.2
PING_STUB="3 packets transmitted, 1 received, 66.6667% packet loss, time 402ms"
check_fail "ping_all: 1 of 3 answered (ping exits 0)" ping_all 0 3 198.18.0.2
PING_STUB="3 packets transmitted, 3 received, +3 duplicates, 0% packet loss, time 402ms"
check_fail "ping_all: 3 of 3 with duplicates (a loop)" ping_all 0 3 198.18.0.2
PING_STUB=""
check_fail "ping_all: no summary" ping_all 0 3 198.18.0.2
unset -f ping

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

# --- stp_ping_gap on `ping -D -i 0.1` output: the silence after the last
# reply is an outage too
# ping_d_out KEY SENT SEQ...: $XT_TMP/ping.KEY.out of a ping that sent SENT
# requests, 0.1 s apart, and got replies to SEQ... ("" for SENT: no summary,
# as when ping is killed).
ping_d_out()
{
	local key=$1 sent=$2 s n=0
	shift 2
	{
		echo "PING 198.18.0.2 (198.18.0.2) 56(84) bytes of data."
		for s in "$@"; do
			printf '[%s] 64 bytes from 198.18.0.2: icmp_seq=%s ttl=64 time=0.050 ms\n' \
				"$(awk -v s="$s" 'BEGIN { printf "%.6f", 1700000000 + s * 0.1 }')" "$s"
			n=$((n + 1))
		done
		if [ -n "$sent" ]; then
			echo
			echo "--- 198.18.0.2 ping statistics ---"
			echo "$sent packets transmitted, $n received, $((100 * (sent - n) / sent))% packet loss, time 6000ms"
		fi
	} >"$XT_TMP/ping.$key.out"
}
# gap_under KEY SECONDS: stp_ping_gap KEY is below SECONDS.
gap_under()
{
	local g
	g=$(stp_ping_gap "$1")
	echo "gap: $g"
	awk -v g="$g" -v s="$2" 'BEGIN { exit !(g + 0 < s) }'
}
ping_d_out all 61 $(seq 1 60)
check "stp_ping_gap: 60 replies, the 61st in flight: no gap (control)" gap_under all 0.2
ping_d_out tail 60 $(seq 1 20)
check_fail "stp_ping_gap: 20 replies, then 40 requests lost" gap_under tail 3
ping_d_out middle 60 $(seq 1 20) $(seq 51 60)
check_fail "stp_ping_gap: requests 21..50 lost" gap_under middle 3
ping_d_out head 60 $(seq 31 60)
check_fail "stp_ping_gap: requests 1..30 lost" gap_under head 3
ping_d_out killed "" $(seq 1 60)
check_fail "stp_ping_gap: no summary (ping killed)" gap_under killed 3
ping_d_out none 60
check_fail "stp_ping_gap: no reply" gap_under none 3
check_fail "stp_ping_gap: no file" gap_under nosuch 3

# --- xt_claim_id: a run's ID is none that another live run holds
# claim_from CLAIMS: the ID xt_claim_id picks with claims in CLAIMS.
claim_from()
{
	(XT_CLAIMS=$1 && xt_claim_id && echo "$ID")
}
C=$XT_TMP/claims
S=$(($$ % 10000))
N1=$(((S + 1) % 10000)) N2=$(((S + 2) % 10000))
mkdir -p "$C/$S" "$C/$N1"
echo "$$ $(xt_proc_start $$)" >"$C/$S/owner"		# live: this shell
echo "$$ 1" >"$C/$N1/owner"				# this PID, another start: gone
touch -d '10 seconds ago' "$C/$N1"
check_eq "xt_claim_id: a live run's ID is skipped, a dead run's claim taken over" \
	"$N1" "$(claim_from "$C")"
check_eq "... and the claim is this run's now" "$$ $(xt_proc_start $$)" "$(cat "$C/$N1/owner")"
rm -rf "${C:?}/$N1"
mkdir "$C/$N1"						# no owner yet: being made
check_eq "xt_claim_id: a claim made under 2 s ago is left alone" "$N2" "$(claim_from "$C")"

# --- xt_leftovers: whatever a run made that is named for its ID (with
# root: it makes them)
if [ "$(id -u)" -eq 0 ]; then
	if ! ip link add "xt${ID}q" type veth peer name "xt${ID}b" ||
		! mkdir -p "$PIN_ROOT/xt${ID}b" "$PIN_ROOT-netns/1/xt$ID"; then
		abort "making the leftovers"
	fi
	XT_CLEANUP_CMDS+=("ip link del xt${ID}q" "rmdir $PIN_ROOT/xt${ID}b $PIN_ROOT-netns/1/xt$ID")
	left=$(xt_leftovers "$ID" | sort | tr '\n' ' ')
	check_eq "xt_leftovers: links and pins named for the ID, whatever their suffix" \
		"$PIN_ROOT-netns/1/xt$ID $PIN_ROOT/xt${ID}b xt${ID}b xt${ID}q " "$left"
	check_eq "xt_leftovers: nothing of ID ${ID}0 (another run's) among them" "" \
		"$(xt_leftovers "${ID}0" | grep -F "xt${ID}q")"
	ip link del "xt${ID}q"
	rmdir "$PIN_ROOT/xt${ID}b" "$PIN_ROOT-netns/1/xt$ID"
	rmdir "$PIN_ROOT-netns/1" 2>/dev/null
fi

# --- the suites' scripts: none of the traps above written out by hand
# lint ERE WHY: no line of the test scripts (comments aside, this file
# aside) matches ERE; the lines that do are shown with WHY.
lint()
{
	local hits
	hits=$(cd "$XT_ROOT" && grep -nE -- "$1" tests/integration/*.sh tests/vm/*.sh \
		tests/soak/*.sh | grep -v '^tests/integration/test_helpers\.sh:' |
		grep -vE '^[^:]+:[0-9]+:[[:space:]]*#')
	if [ -z "$hits" ]; then
		pass "no script $2"
	else
		fail "no script $2" "$hits"
	fi
}
lint 'jq +(-[a-z]+ +)*-e\b' "reads JSON with jq -e (it passes on empty input: json_is, jq_true)"
lint 'pgrep +(-[a-z]+ +)*-x +xdpbrd' "looks for xdpbrd machine-wide (other runs' daemons)"
lint 'tc/globals/[a-z_]*\*|IP_PIN_DIR"?/[a-z_]*\*' \
	"globs over iproute2's shared pins (another loader's: ip_pins_claim)"
lint '^[[:space:]]*check +("[^"]*"|[^ ]+) +(hexec +[^ ]+ +)?ping +(-[a-zA-Z0-9]+ +)*-c +([2-9]|[1-9][0-9]+)' \
	"checks ping -c N (N > 1) by its exit status, which one reply makes 0 (ping_all)"
lint '\$\(\(\$\$ % [0-9]+\)\)' "makes its IDs from its PID (lib.sh claims ID)"

finish

# shellcheck shell=bash
#
# guest_selftests.sh - the guest's side of tests/vm/test_selftests.sh: runs
# one of the kernel's bridge selftests (tools/testing/selftests/net/
# forwarding/bridge_*.sh, extracted on the host by tests/vm/selftests.sh)
# unchanged, with tests/vm/selftests-bin first in its PATH: that ip wrapper
# makes xdpbrd take over the bridge the selftest creates (see its header).
# Sourced after guest-lib.sh.

GS_BIN=$PWD/tests/vm/selftests-bin
GS_WORK=/tmp/selftests
GS_ST=/tmp/xdpbr-st

# gs_config DIR: DIR/forwarding.config: veth pairs veth0..veth9 (p1..p10),
# made by lib.sh itself (NETIF_CREATE), mausezahn from netsniff-ng.
gs_config()
{
	local i
	{
		echo "declare -A NETIFS"
		for ((i = 1; i <= 10; i++)); do
			echo "NETIFS[p$i]=veth$((i - 1))"
		done
		cat <<-'EOF'
			NETIF_TYPE=veth
			NETIF_CREATE=yes
			MZ=mausezahn
			PING=ping
			PING6=ping6
			WAIT_TIME=5
			PAUSE_ON_FAIL=no
			PAUSE_ON_CLEANUP=no
			PING_TIMEOUT=5
			LOW_AGEING_TIME=1000
			TC_FLAG=skip_hw
		EOF
	} >"$1/forwarding.config"
}

# gs_evidence: what xdpbr forwarded for each bridge the selftest made
# (the wrapper's snapshots before each delete), and what the kernel
# bridge did: FDB entries it learned itself (not xdpbr's extern_learn
# mirror, not static or permanent) and the samples of its port states
# (the wrapper's BR.states) in which it had a port but the host
# interface's BR-dev forwarding (the ports must be "learning", where the
# kernel snoops multicast and drops, "blocking" until their mute under
# xdpbr's user-space STP, or "disabled" while down: the kernel forwards
# nothing there). Last line:
# "EVIDENCE takeovers failures rx tx learned samples-forwarding".
gs_evidence()
{
	local s br n=0 bad rx=0 tx=0 kl=0 nl=0 r t l f m
	bad=$(grep -c FAILED "$GS_ST/takeover.log" 2>/dev/null)
	for s in "$GS_ST"/*-*.stats.json; do
		[ -e "$s" ] || continue
		n=$((n + 1))
		br=${s##*/}
		br=${br#*-}
		br=${br%.stats.json}
		r=$(jq '[.[] | select(.type == "port") | .rx_packets] | add // 0' "$s")
		t=$(jq '[.[] | select(.type == "port") | .tx_packets] | add // 0' "$s")
		l=$(jq '[.[] | select(has("master") and (.flags // [] | index("extern_learn") | not)
			and ((.state // "") == "" or .state == "dynamic"))] | length' "${s%.stats.json}.fdb.json")
		# samples in which the kernel bridge had a port (not BR-dev)
		# forwarding; none sampled counts as one
		f=$(jq -s --arg b "$br" '[.[] | [.[] | select(.master == $b and .ifname != ($b + "-dev")
			and .state == "forwarding")] | length | select(. > 0)] |
			length' "$GS_ST/$br.states" 2>/dev/null)
		m=$(grep -c . "$GS_ST/$br.states" 2>/dev/null)
		[ "${m:-0}" -gt 0 ] || f=1
		echo "bridge $br: xdpbr's ports received $r and sent $t frames;" \
			"the kernel bridge learned $l entries itself and had a port forwarding in $f of" \
			"${m:-0} samples (once a second)"
		jq -r '.[] | select(.type == "port") | "  \(.ifname): rx \(.rx_packets) tx \(.tx_packets) forwarded \(.forwarded)"' "$s"
		rx=$((rx + ${r:-0})) tx=$((tx + ${t:-0})) kl=$((kl + ${l:-0})) nl=$((nl + ${f:-0}))
	done
	echo "EVIDENCE $n ${bad:-0} $rx $tx $kl $nl"
}

# gs_release: each bridge xdpbrd still runs (a selftest stopped before it
# deleted its bridge) deleted through the wrapper, which snapshots the
# evidence first and stops the daemon: else no evidence, and a daemon and
# its sampler (which holds the output's pipe) outlive the selftest.
gs_release()
{
	local p br

	for p in "$GS_ST"/*.pid; do
		[ -s "$p" ] || continue
		br=${p##*/}
		br=${br%.pid}
		echo "# $br: still taken over after the selftest; released here"
		PATH=$GS_BIN:$PATH XDPBR_ST_DIR=$GS_ST XDPBR_ST_BUILD=$XT_BUILD ip link del dev "$br"
	done
}

# gs_run DIR NAME SECONDS [TAKEOVER]: selftest NAME (bridge_vlan_aware.sh)
# from DIR in a fresh copy, within SECONDS: sent SIGTERM after SECONDS - 90
# (its cleanup trap then deletes its bridge through the wrapper, which can
# take a minute under TCG), SIGKILL 60 s later; TAKEOVER 0 runs it on the
# plain kernel bridge (the control). Prints its output, xdpbr's logs and
# the evidence, then "RESULT NAME RC OK FAIL".
gs_run()
{
	local dir=$1 name=$2 secs=$3 take=${4:-1} rc ok fail
	rm -rf "$GS_WORK" "$GS_ST" && mkdir -p "$GS_ST" && cp -r "$dir" "$GS_WORK" || return 1
	gs_config "$GS_WORK"
	# ping6 is ping in Debian's iputils; the scripts call both.
	[ -x "$(command -v ping6)" ] || { mkdir -p "$GS_ST/bin" && ln -s "$(command -v ping)" "$GS_ST/bin/ping6"; }
	(
		cd "$GS_WORK" &&
			PATH=$GS_BIN:$GS_ST/bin:$PATH XDPBR_ST_DIR=$GS_ST XDPBR_ST_BUILD=$XT_BUILD \
				XDPBR_ST_TAKEOVER=$take timeout -k 60 $((secs - 90)) bash "./$name"
		rc=$?
		gs_release
		exit "$rc"
	) 2>&1 | tee "$GS_ST/out"
	rc=${PIPESTATUS[0]}
	echo "---- takeover log"
	cat "$GS_ST/takeover.log" 2>/dev/null
	for f in "$GS_ST"/*.log; do
		[ "$f" = "$GS_ST/takeover.log" ] || [ ! -e "$f" ] || { echo "---- $f"; cat "$f"; }
	done
	echo "---- evidence"
	gs_evidence
	ok=$(grep -c '\[ OK \]' "$GS_ST/out")
	fail=$(grep -c '\[FAIL\]' "$GS_ST/out")
	echo "RESULT $name $rc $ok $fail"
}

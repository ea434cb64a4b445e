#!/usr/bin/env bash
# iproute2's `bridge vlan`, vlan_filtering and vlan_default_pvid as a view
# and a control of xdpbr's VLANs, on a kernel that has them: Debian 12's
# own (6.1, CONFIG_BRIDGE_VLAN_FILTERING and 8021q as modules), which
# this machine's kernel lacks. The checks are
# tests/integration/test_brvlan.sh's, run whole in a QEMU guest
# (tests/vm/lib.sh): its hosts are the guest's network namespaces on
# guest veths, h2 and h3 with 802.1Q devices, so the guest needs no NIC.
# Each of the guest suite's checks is one check here; the suite must take
# its VLAN-filtering path (on this machine it checks only that the mirror
# degrades).
#
# Runs once (tests/run.sh: "vm/test_brvlan"); skips (77) without QEMU.
# shellcheck source=../integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/../integration/lib.sh"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

vm_require
vm_boot

# TCG: the daemon starts in tens of seconds, and a look of the mirror
# (once a second) with the CLI around it takes several.
out=$(vm_exec "tests/vm/guest-modprobe bridge && tests/vm/guest-modprobe 8021q || exit 3
	XT_START_SECS=150 XT_SHOWS_SECS=15 bash tests/integration/test_brvlan.sh" 1500)
rc=$?
n=0
while IFS= read -r line; do
	case $line in
	"ok - "*)
		pass "guest: ${line#ok - }"
		n=$((n + 1)) ;;
	"FAIL - "*)
		# the failure's details: the indented lines after it
		fail "guest: ${line#FAIL - }" "$(awk -v l="$line" 'f && !/^ / { exit }
			f { print } $0 == l { f = 1 }' <<<"$out")"
		n=$((n + 1)) ;;
	esac
done <<<"$out"
if [ "$rc" = 0 ] && [ "$n" -gt 20 ] && grep -q "^ok - at start xdpbr's VLANs win" <<<"$out"; then
	pass "the guest ran the suite's VLAN-filtering checks ($n), all passed"
else
	fail "the guest ran the suite's VLAN-filtering checks" "exit status $rc, $n checks" \
		"$(tail -n 40 <<<"$out")"
fi

vm_poweroff
finish

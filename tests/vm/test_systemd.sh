#!/usr/bin/env bash
# The packaged unit xdpbrd@.service under a real systemd: a QEMU guest on
# Debian 12's kernel with systemd as PID 1 (tests/vm/guest-systemd.sh, the
# host's root under a writable overlay), the .deb that `make deb` builds
# (made while the guest boots) installed with dpkg -i, and two instances,
# xdpbrd@br0 and xdpbrd@br1, in a loop: two links between them, STP on,
# a host on each, br0 with its host interface, br1 with a [vxlan] overlay
# to a VTEP in a namespace (tests/vm/guest_systemd.sh draws it). Under the
# unit's sandbox:
#
#   start    Type=notify: when systemctl start returns the unit is active
#            with the status of READY=1's message and its ports attached;
#            br1 joins a running br0 while h1 broadcasts 10 frames a
#            second; no warning in the journal but the one that proves the
#            daemon entered a veth peer's namespace (setns); modules
#            loaded on demand
#   STP      one of the four link ends blocks, BPDUs are heard on both
#            bridges, a broadcast reaches the other host once and never
#            comes back (no storm, also while br1 joined), the hosts ping
#   services the HTTP endpoint (/metrics, /stats), the event socket (mode
#            0600 in a 0700 /run/xdpbr, xdpbr monitor), the host interface
#            (pings through it), the overlay (pings across the vxlan
#            tunnel, the FDB mirror's extern_learn entry)
#   reload   systemctl reload with br1's priority changed: br1 becomes the
#            root, the same process (applied as a diff: no port attached
#            again), RELOADING=1 then READY=1 seen by PID 1, still no storm;
#            a file with an error fails the reload, naming file:line, and
#            the bridge runs on unchanged
#   crash    SIGKILL: restarted, the pinned bridge adopted, counters kept,
#            no storm
#   stop     systemctl stop: exit 0, pins, programs, host interface and
#            overlay gone, STOPPING=1 seen by PID 1
#   bpffs    none mounted: the unit does not start (it may not mount one of
#            its own) and says so
#
# Runs once (no veth on the host side). Needs what make deb needs
# (debhelper); skips (77) without QEMU. About 4 minutes (TCG, 2 cores).
# datapaths: auto
# shellcheck source=../integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/../integration/lib.sh"
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

GS=". tests/vm/guest_systemd.sh"

vm_require
for t in dpkg-buildpackage dh; do
	command -v "$t" >/dev/null || abort "missing: $t (run make deps)"
done

# The package, built while the guest boots. The make running this test
# (make check) must not hand the inner one its jobserver or its goals.
(unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
	exec make -C "$XT_ROOT" --no-print-directory deb DEB_DIR="$XT_TMP/deb") \
	>"$XT_TMP/deb.log" 2>&1 &
DEB_PID=$!
XT_PIDS+=("$DEB_PID")
VM_SYSTEMD=1
vm_boot
wait "$DEB_PID" || abort "make deb" "$(tail -n 40 "$XT_TMP/deb.log")"
deb=$(ls "$XT_TMP"/deb/xdpbr_*_*.deb 2>/dev/null | head -n 1)
[ -f "$deb" ] || abort "make deb made no package" "$(tail -n 20 "$XT_TMP/deb.log")"
cp "$deb" "$VM_IO/xdpbr.deb" || abort "copying $deb for the guest"

# diag: what the guest's units and bridges say (after a failure).
diag()
{
	vm_exec "$GS; systemctl status --no-pager -l 'xdpbrd@*' 2>&1 | tail -n 40
		journalctl -b -p info --no-pager -o short-monotonic -u 'xdpbrd@*' | tail -n 60
		gs_roles" 60 | sed 's/^/    # guest: /'
}

# ---- the guest: systemd, the package, the topology
vm_check "systemd is PID 1 and the system is up (systemctl is-system-running)" \
	'[ "$(cat /proc/1/comm)" = systemd ] && systemctl is-system-running --wait' 60 ||
	{ vm_exec 'systemctl --failed --no-pager'; abort "no systemd in the guest"; }
vm_check "dpkg -i installs the package; systemd finds its unit there" \
	'dpkg -i /run/xdpbr-vm/io/xdpbr.deb >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; exit 1; }
	 f=$(systemctl show -p FragmentPath --value xdpbrd@br0); echo "FragmentPath: $f"
	 [ "$f" = /lib/systemd/system/xdpbrd@.service ]' 240 ||
	abort "the package does not install"
vm_check "topology: hosts h1, h2, links l1 and l2; sch_ingress, cls_bpf, vxlan, bridge not loaded yet" \
	"$GS; gs_topology && ! grep -E '^(sch_ingress|cls_bpf|vxlan|bridge) ' /proc/modules" ||
	abort "no topology"

# ---- start: Type=notify; a bridge joining a running one; the sandbox's
# journal. The status comes in the daemon's READY=1 message, the only one
# with STATUS=, sent once the ports are attached: a unit that is active
# with it as soon as systemctl start returns is one systemd waited for.
# (The ports take tens of seconds in this guest: a Type=simple unit would
# be active long before.)
vm_check "systemctl start xdpbrd@br0: when it returns, active with READY=1's status, ports attached" \
	"$GS; systemctl start xdpbrd@br0 && gs_started br0" 240 ||
	{ diag; abort "xdpbrd@br0 did not start"; }
vm_check "br0 forwards on both links (no peer yet: designated)" \
	"$GS; g_poll 30 gs_forwards br0 l1a l2a; gs_forwards br0 l1a l2a" 60
# br1 joins a live network: until its engine has decided them, its link
# ports must not forward, or it closes the loop br0 keeps open.
vm_check "systemctl start xdpbrd@br1 while h1 broadcasts 10 frames a second: active, READY=1's status, ports attached" \
	"$GS; gs_flood_start && systemctl start xdpbrd@br1 && gs_started br1" 240 ||
	{ diag; abort "xdpbrd@br1 did not start"; }
vm_check "setns under the sandbox: the daemons checked h1p's and h2p's veth peers in their namespaces" \
	"$GS; gs_journal xdpbrd@br0 -p warning | grep 'port h1p: its veth peer e0 in netns h1 has transmit checksum' &&
	 gs_journal xdpbrd@br1 -p warning | grep 'port h2p: its veth peer e0 in netns h2 has transmit checksum'"
# A port that forwards before the engine has decided it, while the other
# bridge forwards on both links, is a loop: MACs flap between the links.
vm_check "no MAC moved between the links while the bridges started (no loop before STP decided)" \
	"$GS; ! { gs_journal xdpbrd@br0 -p warning; gs_journal xdpbrd@br1 -p warning; } | grep 'moved from'"
vm_check "no other warning or error in the units' journal" \
	"$GS; ! { gs_journal xdpbrd@br0 -p warning; gs_journal xdpbrd@br1 -p warning; } |
		grep -v -e 'its veth peer e0 in netns h[12] has transmit checksum' -e 'moved from'"
vm_check "the kernel loaded sch_ingress, cls_bpf, vxlan and bridge when the daemons needed them" \
	'for m in sch_ingress cls_bpf vxlan bridge; do grep -q "^$m " /proc/modules || { echo "no $m"; exit 1; }; done'

# ---- STP: no loop, BPDUs both ways
vm_check "STP converged: one of the four link ends blocks, br0 (priority 4096) the root for both" \
	"$GS; g_poll 40 gs_one_blocked; gs_one_blocked && gs_root_is br0" 60 || diag
vm_check "no storm while the units started: h1's broadcasts, 10 a second, never came back" \
	"$GS; gs_flood_end"
vm_check "BPDUs sent and heard on both bridges' links" "$GS; gs_bpdus_both"
vm_check "no storm: 5 broadcasts from h1 reach h2 once each, none come back" "$GS; gs_bcast 5" 60
vm_check "h1 <-> h2 ping across the loop" "$GS; gs_ping h1 198.18.0.2 && gs_ping h2 198.18.0.1" 90

# ---- the services under the sandbox
vm_check "HTTP: br1's /metrics counts BPDUs heard on l1b, br0's /stats has its tree" \
	"m=\$(curl -sf http://127.0.0.1:9639/metrics) || exit 1
	 grep '^xdpbr_stp_bpdus_total{.*port=\"l1b\".*direction=\"in\"} [1-9]' <<<\"\$m\" || exit 1
	 j=\$(curl -sf http://127.0.0.1:9638/stats) || exit 1
	 [ \"\$(jq -c '.stp.ports | length >= 3' <<<\"\$j\")\" = true ] || { head -c 500 <<<\"\$j\"; exit 1; }"
vm_check "event socket: 0600 in a 0700 /run/xdpbr; xdpbr monitor connects to br0's" \
	"$GS; stat -c '%n %a' /run/xdpbr /run/xdpbr/br0.sock /run/xdpbr/br1.sock
	 [ \"\$(stat -c %a /run/xdpbr /run/xdpbr/br0.sock /run/xdpbr/br1.sock | paste -sd' ')\" = '700 600 600' ] &&
	 (\$XDPBR -b br0 -j monitor >/tmp/mon.out 2>/tmp/mon.err &) &&
	 g_poll 20 grep -q 'monitoring events of bridge br0' /tmp/mon.err || { cat /tmp/mon.err; exit 1; }"
vm_check "host interface br0: marked as ours, pings h1 and h2 through the bridge" \
	"$GS; ip -d link show dev br0 | grep -q 'alias xdpbr host interface of bridge br0' &&
	 ip addr add 198.18.0.100/24 dev br0 && ip link set dev br0 up &&
	 g_poll 30 ping -c 1 -W 2 198.18.0.1 && g_poll 30 ping -c 1 -W 2 198.18.0.2" 90
# zebra would write the flood entry from the site's type-3 route
vm_check "overlay: h2 pings the site across br1's vxlan tunnel; h2's MAC mirrored into br1-kbr (extern_learn)" \
	"$GS; gs_site && bridge fdb append 00:00:00:00:00:00 dev br1-vx dst 198.19.0.2 &&
	 \$XDPBR -b br1 vxlan show && gs_ping h2 198.18.0.3 &&
	 g_poll 10 sh -c 'bridge fdb show br br1-kbr | grep \"02:00:00:00:00:02 dev br1-gwk .*extern_learn\"'" 90

# ---- reload: a change applied as a diff; a file with an error refused.
# PID 1 at debug level (for this part only: it is verbose) logs each
# sd_notify message it gets and each state the unit goes through.
PID1=$(vm_exec "$GS; gs_prop xdpbrd@br1 MainPID" | tail -n 1)
vm_check "systemctl reload xdpbrd@br1 with priority 0: br1 becomes the root" \
	"$GS; gs_journal xdpbrd@br1 >/tmp/before.log
	 sed -i 's/^priority = 32768/priority = 0/' /etc/xdpbr/br1.conf &&
	 systemd-analyze log-level debug && systemctl reload xdpbrd@br1 || exit 1
	 g_poll 30 gs_root_is br1; systemd-analyze log-level info; gs_root_is br1" 60 || diag
vm_check "the reload: the same process, 'reloaded' logged, no port attached again" \
	"$GS; p=\$(gs_prop xdpbrd@br1 MainPID); echo \"MainPID \$p (was $PID1)\"
	 new=\$(gs_journal xdpbrd@br1 | tail -n +\$((\$(wc -l </tmp/before.log) + 1)))
	 grep -v '^xdpbrd@br1.service: \\|^/run/systemd/\\|^Bind-mounting \\|namespace mount\\|^Successfully mounted' <<<\"\$new\"
	 [ \"\$p\" = '$PID1' ] && grep -qx 'reloaded /etc/xdpbr/br1.conf' <<<\"\$new\" &&
	 ! grep -E '^port [^ ]+ \\(ifindex [0-9]+, ' <<<\"\$new\""
vm_check "Type=notify: PID 1 got RELOADING=1, then READY=1, from the reloading daemon" \
	"j=\$(journalctl -b _PID=1 --no-pager -o cat -u xdpbrd@br1.service | grep -E 'Got notification message|Changed .* -> ')
	 echo \"\$j\"
	 grep -A9999 -F 'Got notification message from PID $PID1 (RELOADING=1)' <<<\"\$j\" |
		grep -qF 'Got notification message from PID $PID1 (READY=1)'"
vm_check "the monitor saw br0's new root" \
	"g_poll 10 grep -q '\"event\":\"stp_root\"' /tmp/mon.out; grep stp_root /tmp/mon.out"
vm_check "after the new root: one link end blocks, no storm" \
	"$GS; g_poll 30 gs_one_blocked && gs_bcast 5" 90
vm_check "a reload of a file with an error fails, naming file:line; the bridge runs on as it was" \
	"$GS; echo 'no such key = 1' >>/etc/xdpbr/br1.conf
	 out=\$(systemctl reload xdpbrd@br1 2>&1) && { echo \"reload passed: \$out\"; exit 1; }
	 echo \"\$out\"; sed -i '\$d' /etc/xdpbr/br1.conf
	 gs_journal xdpbrd@br1 | grep '^/etc/xdpbr/br1.conf:[0-9]*: ' &&
	 gs_unit_is xdpbrd@br1 active running && [ \"\$(gs_prop xdpbrd@br1 MainPID)\" = '$PID1' ] &&
	 gs_root_is br1"

# ---- a crash: Restart=on-failure starts a new daemon, which adopts the
# pinned bridge (its counters go on) and closes no loop
vm_check "SIGKILL to xdpbrd@br1: restarted (a new process), adopts the pinned bridge, counters kept" \
	"$GS; rx0=\$(gs_rx br1 h2p) || exit 1
	 systemctl kill -s KILL xdpbrd@br1 && g_poll 120 gs_restarted xdpbrd@br1 '$PID1' || exit 1
	 gs_started br1 && rx1=\$(gs_rx br1 h2p) && echo \"h2p rx_packets \$rx0 -> \$rx1\" &&
	 [ \"\$rx1\" -ge \"\$rx0\" ] && [ \"\$rx0\" -gt 0 ] &&
	 gs_journal xdpbrd@br1 | grep 'bridge br1: forwarding on 4 ports (adopted the pinned bridge'" 180 || diag
vm_check "after the restart: one link end blocks, no storm" \
	"$GS; g_poll 30 gs_one_blocked && gs_bcast 5" 90

# ---- stop: detached, pins gone
PID0=$(vm_exec "$GS; gs_prop xdpbrd@br0 MainPID" | tail -n 1)
vm_check "systemctl stop xdpbrd@br0: inactive, result success, STOPPING=1 seen" \
	"$GS; systemd-analyze log-level debug; systemctl stop xdpbrd@br0; rc=\$?
	 systemd-analyze log-level info; [ \$rc = 0 ] && gs_unit_is xdpbrd@br0 inactive dead &&
	 [ \"\$(gs_prop xdpbrd@br0 Result)\" = success ] &&
	 journalctl -b _PID=1 --no-pager -o cat -u xdpbrd@br0.service |
		grep -F 'Got notification message from PID $PID0 (STOPPING=1)' &&
	 gs_journal xdpbrd@br0 | grep 'caught signal 15, detaching'" 120
vm_check "br0 stopped: no pins, no program on its ports, no host interface, no socket" \
	"! ls /sys/fs/bpf/xdpbr/br0 2>/dev/null && ! ip link show dev br0 2>/dev/null &&
	 ! [ -e /run/xdpbr/br0.sock ] && ! ip link show dev h1p | grep xdp &&
	 for p in l1a l2a; do [ -z \"\$(tc filter show dev \$p ingress)\" ] || exit 1; done"
vm_check "br1 forwards on alone: h2 pings the site" "$GS; gs_ping h2 198.18.0.3" 60
vm_check "systemctl stop xdpbrd@br1: its overlay, pins and socket gone" \
	"$GS; systemctl stop xdpbrd@br1 && gs_unit_is xdpbrd@br1 inactive dead &&
	 for l in br1-kbr br1-vx br1-gw br1-gwk; do ! ip link show dev \$l 2>/dev/null || exit 1; done &&
	 ! ls /sys/fs/bpf/xdpbr/br1 2>/dev/null && ! [ -e /run/xdpbr/br1.sock ]" 120

# ---- no bpffs: the unit may not mount one of its own (it would be the
# unit's alone and gone when the daemon stops), so it stops and says so.
vm_check "with /sys/fs/bpf unmounted xdpbrd@br0 does not start; its journal says to mount bpffs" \
	"$GS; umount /sys/fs/bpf || exit 1
	 systemctl start xdpbrd@br0; rc=\$?
	 systemctl stop xdpbrd@br0; systemctl reset-failed xdpbrd@br0
	 mount -t bpf -o mode=0700 bpf /sys/fs/bpf
	 gs_journal xdpbrd@br0 | grep \"Couldn't mount bpffs on /sys/fs/bpf: Operation not permitted\" &&
	 [ \$rc != 0 ]" 120

vm_poweroff
finish

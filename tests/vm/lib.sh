# shellcheck shell=bash
# shellcheck disable=SC2034 # variables set here for the test scripts
#
# lib.sh - the VM lane's host side: Debian 12's own kernel (tests/vm/kernel.sh)
# booted in QEMU on this host's userland (9p, read-only), with e1000e and
# virtio-net NICs, each behind a tap whose other end is a test host in a
# network namespace here. Source it after tests/integration/lib.sh, whose
# results, captures and cleanup it uses:
#
#   . tests/integration/lib.sh; . tests/vm/lib.sh
#   vm_require                      # skip (77) without QEMU
#   vm_host e1k 0; vm_host vio 0    # host i: netns xt$ID-hI, tap xt${ID}pI
#   vm_boot                         # QEMU up, agent ready, taps moved
#   vm_exec 'xdpbr link show'       # a shell script in the guest
#   finish
#
# With VM_SYSTEMD=1 set before vm_boot, the guest runs systemd as PID 1
# on a writable overlay of the host's root (tests/vm/guest-systemd.sh): for
# suites that test what runs under systemd (the unit, the package).
#
# Guest NICs are named by kind and number (e1k0, vio1: guest-init.sh
# renames them by MAC, 02:76:6d:00:KK:NN); host i's tap is PORT[i], in
# NS[i], MAC[i], IP4[i] = 198.18.0.i/24; GNIC[i] is the guest NIC behind it.
# QEMU is killed by its pid file on cleanup, also on failure.

VM_DIR=$XT_ROOT/tests/vm
VM_IO=$XT_TMP/vm-io		# the guest's read-write share (cmd/, out/, rc/)
VM_LOG=$XT_TMP/vm-console.log	# the serial console
VM_PIDFILE=$XT_TMP/vm-qemu.pid
VM_QEMU=${XDPBR_VM_QEMU:-qemu-system-x86_64}
VM_SMP=${XDPBR_VM_SMP:-2}
VM_MEM=${XDPBR_VM_MEM:-768}
VM_QUEUES=$((2 * VM_SMP))	# virtio-net queue pairs: one per CPU, one more per CPU for XDP
VM_BOOT_TIMEOUT=${XDPBR_VM_BOOT_TIMEOUT:-240}
VM_SYSTEMD=${VM_SYSTEMD:-0}
VM_NETARGS=()
VM_HOSTS=()		# the hosts vm_host made (topo_up's may be there too)
VM_NICS_EXTRA=0		# guest NICs not behind a vm_host (vm_nic_bridge)
VM_KDIR=
VM_ACCEL=
VM_KVERSION=
GNIC=()
XT_CLEANUP_CMDS+=("vm_kill")

# vm_require: skip unless QEMU is installed; the rest is xt_require's.
vm_require()
{
	xt_require
	xt_need "$VM_QEMU:qemu-system-x86" dpkg-deb:dpkg depmod:kmod cpio busybox
}

# vm_host KIND N: a test host behind guest NIC KIND N (e1k: e1000e, vio:
# virtio-net, igb: igb where vm_has_device igb): its tap is made now, in the root namespace, for QEMU to open
# by name; vm_boot moves it into the host's namespace afterwards.
vm_host()
{
	local kind=$1 n=$2 i tap mac dev opts=
	i=$((NHOSTS + 1))
	tap=xt${ID}p$i
	NS[i]=xt$ID-h$i
	PORT[i]=$tap
	MAC[i]=$(printf '02:00:00:%02x:%02x:%02x' $((ID >> 8)) $((ID & 255)) "$i")
	IP4[i]=198.18.0.$i
	GNIC[i]=$kind$n
	NHOSTS=$i
	VM_HOSTS+=("$i")
	case $kind in
	e1k) mac=02:76:6d:00:01:$(printf %02x "$n") dev="e1000e" ;;
	vio) mac=02:76:6d:00:02:$(printf %02x "$n")
	     dev="virtio-net-pci,mq=on,vectors=$((2 * VM_QUEUES + 2))"
	     opts=",queues=$VM_QUEUES" ;;
	igb) mac=02:76:6d:00:03:$(printf %02x "$n") dev="igb" ;;	# QEMU 8.0 and later
	*) abort "vm_host: unknown NIC kind $kind" ;;
	esac
	ip netns add "${NS[i]}" || abort "vm_host: ip netns add ${NS[i]}"
	ip tuntap add dev "$tap" mode tap ${opts:+multi_queue} ||
		abort "vm_host: ip tuntap add $tap"
	VM_NETARGS+=(-netdev "tap,id=n$i,ifname=$tap,script=no,downscript=no$opts"
		-device "$dev,netdev=n$i,mac=$mac")
}

# vm_nic_bridge BR N: guest NIC vioN (virtio-net) on the host's bridge BR
# through QEMU's own `-netdev bridge` (qemu-bridge-helper makes a tap and
# adds it to BR, which /etc/qemu/bridge.conf must allow), as QEMU users
# without libvirt attach a VM to a bridge.
vm_nic_bridge()
{
	VM_NETARGS+=(-netdev "bridge,id=b$2,br=$1,helper=${VM_BRIDGE_HELPER:-/usr/lib/qemu/qemu-bridge-helper}"
		-device "virtio-net-pci,netdev=b$2,mac=02:76:6d:00:02:$(printf %02x "$2")")
	VM_NICS_EXTRA=$((VM_NICS_EXTRA + 1))
}

# vm_has_device NAME: the QEMU in use has device model NAME (igb came in
# QEMU 8.0; Debian 12 has 7.2).
vm_has_device()
{
	"$VM_QEMU" -device help 2>/dev/null | grep -q "name \"$1\""
}

# vm_accel: kvm if /dev/kvm opens and the CPU has vmx or svm (nested KVM
# without them hangs the guest silently), else tcg. XDPBR_VM_ACCEL forces
# one. vm_boot falls back to tcg if a KVM guest doesn't come up.
vm_accel()
{
	if [ -n "${XDPBR_VM_ACCEL:-}" ]; then
		echo "$XDPBR_VM_ACCEL"
	elif [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
		echo kvm
	else
		echo tcg
	fi
}

# vm_start ACCEL: start QEMU in the background (daemonized, pid file).
vm_start()
{
	local init=$VM_DIR/guest-init.sh root=
	[ "$VM_SYSTEMD" = 1 ] && init=$VM_DIR/guest-systemd.sh root="vmroot=overlay "
	rm -rf "$VM_IO" && mkdir -p "$VM_IO"/cmd || return 1
	: >"$VM_LOG"
	"$VM_QEMU" -name xdpbr-vm -machine q35 -accel "$1" -m "$VM_MEM" -smp "$VM_SMP" \
		-display none -monitor none -serial "file:$VM_LOG" -no-reboot \
		-daemonize -pidfile "$VM_PIDFILE" \
		-kernel "$VM_KDIR/vmlinuz" -initrd "$VM_KDIR/initrd.img" \
		-append "console=ttyS0 panic=-1 loglevel=4 ${root}vminit=$init vmkdir=$VM_KDIR/root vmtree=$XT_ROOT vmnics=$((${#VM_HOSTS[@]} + VM_NICS_EXTRA))" \
		-fsdev local,id=root,path=/,readonly=on,security_model=none \
		-device virtio-9p-pci,fsdev=root,mount_tag=root \
		-fsdev "local,id=vm,path=$VM_IO,security_model=none" \
		-device virtio-9p-pci,fsdev=vm,mount_tag=vm \
		"${VM_NETARGS[@]}" >"$XT_TMP/vm-qemu.out" 2>&1
}

# vm_ready SECONDS: the guest's agent is up (VM_IO/ready) within SECONDS.
vm_ready()
{
	local end=$((SECONDS + $1))
	while [ "$SECONDS" -lt "$end" ]; do
		[ -s "$VM_IO/ready" ] && return 0
		vm_alive || return 1
		sleep 0.2
	done
	return 1
}

vm_pid()
{
	cat "$VM_PIDFILE" 2>/dev/null
}

vm_alive()
{
	local pid
	pid=$(vm_pid)
	[ -n "$pid" ] && proc_alive "$pid"
}

# vm_kill: QEMU gone (by its pid file), at most 5 s after SIGTERM.
vm_kill()
{
	local pid
	pid=$(vm_pid)
	[ -n "$pid" ] && proc_alive "$pid" && stop_pid "$pid" TERM 5
	rm -f "$VM_PIDFILE"
}

# vm_boot: fetch and prepare the kernel, boot it, wait for the guest's
# agent, then move each tap into its host's namespace and configure it.
vm_boot()
{
	local accel t0 i
	VM_KDIR=$("$VM_DIR"/kernel.sh 2>"$XT_TMP/kernel.log") ||
		abort "fetching Debian's kernel (tests/vm/kernel.sh)" "$(cat "$XT_TMP/kernel.log")"
	VM_KVERSION=$(cat "$VM_KDIR/VERSION")
	accel=$(vm_accel)
	t0=$SECONDS
	vm_start "$accel" || abort "starting QEMU" "$(cat "$XT_TMP/vm-qemu.out")"
	if ! vm_ready "$([ "$accel" = kvm ] && echo 30 || echo "$VM_BOOT_TIMEOUT")"; then
		if [ "$accel" = kvm ] && [ -z "${XDPBR_VM_ACCEL:-}" ]; then
			echo "# a KVM guest did not come up within 30 s: using TCG"
			vm_kill
			accel=tcg
			vm_start tcg || abort "starting QEMU" "$(cat "$XT_TMP/vm-qemu.out")"
		fi
		vm_ready "$VM_BOOT_TIMEOUT" ||
			abort "guest boot ($accel, ${VM_BOOT_TIMEOUT} s)" \
				"$(cat "$XT_TMP/vm-qemu.out")" "$(tail -n 40 "$VM_LOG")"
	fi
	VM_ACCEL=$accel
	echo "# guest up in $((SECONDS - t0)) s: $VM_KVERSION, kernel $(cat "$VM_IO/ready"), QEMU $accel"
	for i in "${VM_HOSTS[@]}"; do
		vm_host_up "$i" || abort "configuring host $i behind ${GNIC[i]}" "$XT_WHY"
	done
}

# vm_host_up I: tap I (opened by QEMU) into host I's namespace, with its
# MAC and address; no IPv6 (only the test's frames); checksums in software
# (a tap's frames go to QEMU as they are, see MACHINE-FACTS.md).
vm_host_up()
{
	local i=$1 ns=${NS[$1]} tap=${PORT[$1]}
	XT_WHY=$({
		ip link set dev "$tap" netns "$ns" &&
			ip -n "$ns" link set dev lo up &&
			ip -n "$ns" link set dev "$tap" address "${MAC[i]}" &&
			ip netns exec "$ns" sysctl -q -w "net.ipv6.conf.$tap.disable_ipv6=1" &&
			ip -n "$ns" addr add "${IP4[i]}/24" dev "$tap" &&
			ip -n "$ns" link set dev "$tap" up &&
			{ ip netns exec "$ns" ethtool -K "$tap" tx off >/dev/null 2>&1 || :; }
	} 2>&1) || return 1
	XT_WHY=
}

# vm_cmd_next: the number of the next command for the guest. Kept in a
# file: vm_exec runs in $(...) subshells too (check), where a variable's
# increment would be lost and a number used twice.
vm_cmd_next()
{
	local n
	n=$(($(cat "$XT_TMP/vm-cmd-n" 2>/dev/null || echo 0) + 1))
	echo "$n" >"$XT_TMP/vm-cmd-n"
	echo "$n"
}

# vm_exec SCRIPT [SECONDS]: run SCRIPT (bash) in the guest, wait for it
# (default 120 s), print its output; its exit status is the script's (124
# if it did not finish in time, 125 if the guest is gone).
vm_exec()
{
	local script=$1 secs=${2:-120} n end
	n=$(vm_cmd_next)
	printf 'set -u\nexport PATH=%q XT_BUILD=%q\ncd %q\n. tests/vm/guest-lib.sh\n%s\n' \
		"$PATH" "$XT_BUILD" "$XT_ROOT" "$script" >"$VM_IO/cmd/.$n"
	mv "$VM_IO/cmd/.$n" "$VM_IO/cmd/$n"
	end=$((SECONDS + secs))
	while [ ! -e "$VM_IO/rc/$n" ]; do
		if ! vm_alive; then
			echo "(the guest is gone)"
			tail -n 20 "$VM_LOG"
			return 125
		fi
		if [ "$SECONDS" -ge "$end" ]; then
			echo "(no result from the guest in $secs s)"
			cat "$VM_IO/out/$n" 2>/dev/null
			return 124
		fi
		sleep 0.1
	done
	cat "$VM_IO/out/$n"
	return "$(cat "$VM_IO/rc/$n")"
}

# vm_check NAME SCRIPT [SECONDS]: a check that SCRIPT exits 0 in the guest.
vm_check()
{
	check "$1" vm_exec "$2" "${3:-120}"
}

# vm_poweroff: the guest's agent stops and the guest powers off (30 s),
# else QEMU is killed.
vm_poweroff()
{
	local k n
	vm_alive || return 0
	n=$(vm_cmd_next)
	echo poweroff >"$VM_IO/cmd/.$n" && mv "$VM_IO/cmd/.$n" "$VM_IO/cmd/$n"
	for ((k = 0; k < 300; k++)); do
		vm_alive || return 0
		sleep 0.1
	done
	vm_kill
}

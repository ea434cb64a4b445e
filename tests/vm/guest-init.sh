#!/bin/bash
#
# guest-init.sh - PID 1 of the VM lane's guest (tests/vm/lib.sh boots it):
# Debian 12's kernel on the host's userland, shared read-only over 9p.
#
#   - tmpfs where the guest writes (/run, /tmp, /var), bpffs, tracefs;
#   - the kernel package's modules (never in the host's /lib/modules): its
#     unpacked tree is bound at /run/xdpbr-vm/kernel, and the kernel's own
#     module loader runs tests/vm/guest-modprobe, which points modprobe there;
#   - the NICs renamed by MAC (02:76:6d:00:KK:NN, KK 01 e1000e, 02
#     virtio-net): e1k0, e1k1, ... and vio0, vio1, ...;
#   - then an agent: the host writes numbered shell scripts into the
#     read-write 9p share "vm" (mounted at /run/xdpbr-vm/io): cmd/N; the
#     guest runs each in turn and leaves its output in out/N and its exit
#     status in rc/N. A script "poweroff" ends the guest.
#
# Everything the guest says goes to the serial console (the host's log).
# Kernel command line: vmkdir=DIR (the unpacked kernel package, on the
# host's /), vmtree=DIR (this tree), vmnics=N; vminit= is the initramfs's.
#
# guest-init.sh --agent: the same under systemd as PID 1 (guest-systemd.sh
# boots it; its unit xdpbr-vm-agent.service runs this, with the kernel
# command line's variables in its environment): systemd has mounted the
# API filesystems and the root is writable, so only the kernel's modules
# and the share are mounted, then the modules, the NICs and the agent.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C
VM=/run/xdpbr-vm
HERE=$(dirname "$(readlink -f "$0")")

say()
{
	local up
	read -r up _ </proc/uptime
	echo "guest [$up]: $*" >/dev/console
}

halt()
{
	sync
	say "powering off"
	echo o >/proc/sysrq-trigger
	sleep 10
}

# tree_back: a tree under /tmp or /var (a CI checkout) is hidden by the
# tmpfs there: bind it back from the host's /, seen under $VM/host.
tree_back()
{
	case ${vmtree:-} in
	/tmp/* | /var/*) mkdir -p "$vmtree" && mount --bind "$VM/host$vmtree" "$vmtree" ;;
	esac
}

mounts()
{
	mount -t proc proc /proc &&
		mount -t sysfs sysfs /sys &&
		mount -t devtmpfs devtmpfs /dev &&
		mount -t tmpfs -o mode=0755 tmpfs /run &&
		mkdir -p $VM/kernel $VM/io $VM/host &&
		mount --bind "$vmkdir" $VM/kernel &&
		mount --bind / $VM/host &&
		mount -t tmpfs tmpfs /tmp &&
		mount -t tmpfs tmpfs /var &&
		tree_back &&
		mount -t bpf bpf /sys/fs/bpf &&
		mount -t tracefs tracefs /sys/kernel/tracing &&
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vm $VM/io
}

# modules [MODULE...]: the kernel loads modules through guest-modprobe;
# the NICs' drivers now, and the MODULEs.
modules()
{
	local m
	echo "$HERE/guest-modprobe" >/proc/sys/kernel/modprobe
	for m in e1000e virtio_net "$@"; do
		"$HERE"/guest-modprobe "$m" || say "modprobe $m failed"
	done
	# QEMU's igb model (8.0 and later) is an 82576, PCI id 8086:10c9.
	if grep -qx 0x10c9 /sys/bus/pci/devices/*/device 2>/dev/null; then
		"$HERE"/guest-modprobe igb || say "modprobe igb failed"
	fi
}

# rename_nics: ethN -> e1kN / vioN by the lane's MAC plan, once each is there.
rename_nics()
{
	local k dev mac kind n left
	for ((k = 0; k < 100; k++)); do
		left=0
		for dev in /sys/class/net/eth*; do
			[ -e "$dev" ] || continue
			mac=$(cat "$dev"/address)
			case $mac in
			02:76:6d:00:01:*) kind=e1k ;;
			02:76:6d:00:02:*) kind=vio ;;
			02:76:6d:00:03:*) kind=igb ;;
			*) continue ;;
			esac
			n=$((16#${mac##*:}))
			ip link set dev "${dev##*/}" name "$kind$n" || left=1
		done
		[ "$(ls /sys/class/net | grep -c -E '^(e1k|vio|igb)[0-9]')" -ge "${vmnics:-0}" ] &&
			[ $left = 0 ] && return 0
		sleep 0.1
	done
	say "NICs: expected ${vmnics:-0}, have: $(ls /sys/class/net | tr '\n' ' ')"
}

# agent: run cmd/1, cmd/2, ... as they come.
agent()
{
	local n=1 f
	mkdir -p $VM/io/out $VM/io/rc
	echo "$(uname -r)" >$VM/io/ready
	say "agent ready ($(uname -r))"
	while :; do
		f=$VM/io/cmd/$n
		if [ ! -e "$f" ]; then
			sleep 0.1
			continue
		fi
		[ "$(cat "$f")" = poweroff ] && return 0
		(cd /tmp && bash "$f") >$VM/io/out/$n 2>&1 </dev/null
		echo $? >$VM/io/rc/$n.tmp
		mv $VM/io/rc/$n.tmp $VM/io/rc/$n
		n=$((n + 1))
	done
}

# agent_mounts: under systemd, only what the lane adds to its mounts.
agent_mounts()
{
	mkdir -p $VM/kernel $VM/io &&
		mount --bind "$vmkdir" $VM/kernel &&
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vm $VM/io
}

# Under systemd the kernel loads what the bridge needs on demand, as on a
# machine of its own (the unit's ProtectKernelModules= must not stop it).
if [ "${1:-}" = --agent ]; then
	agent_mounts || { say "mounts failed"; halt; }
	say "mounted"
	modules
else
	mounts || { say "mounts failed"; halt; }
	say "mounted"
	modules veth sch_ingress cls_bpf
fi
say "modules loaded"
ip link set dev lo up
rename_nics
for dev in /sys/class/net/e1k* /sys/class/net/vio* /sys/class/net/igb*; do
	[ -e "$dev" ] && ip link set dev "${dev##*/}" up
done
agent
halt

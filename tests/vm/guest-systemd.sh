#!/bin/bash
#
# guest-systemd.sh - the VM lane's guest with systemd as PID 1 (tests/vm/lib.sh
# boots it when VM_SYSTEMD=1). The root is the host's / under an overlay
# with a tmpfs upper layer (initrd-init, vmroot=overlay): what the guest
# writes, such as an installed package, is the guest's alone.
#
# This script runs first, as PID 1: it makes the guest's systemd lean and
# deterministic, then hands over to systemd, which boots to xdpbr-vm.target:
# basic.target, the journal (in /run only) and the agent
# (guest-init.sh --agent, with the kernel command line's variables). What
# the host's units would start (fstab mounts, timers, sockets, gettys,
# generators) is masked: a TCG guest pays for every unit, and the lane
# wants the same boot every time.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
HERE=$(dirname "$(readlink -f "$0")")
ETC=/etc/systemd/system

say()
{
	echo "guest-systemd: $*" >/dev/console
}

# mask UNIT...: UNIT never starts (a link to /dev/null in /etc wins).
mask()
{
	local u
	for u in "$@"; do
		ln -sfn /dev/null "$ETC/$u"
	done
}

# lean: every unit the early targets would pull in but the journal's; the
# host's fstab, generators and enabled units; no man-db rebuild after
# dpkg -i.
lean()
{
	local d u g
	for d in /lib/systemd/system /etc/systemd/system; do
		for u in "$d"/{sysinit,sockets,timers,paths,local-fs,multi-user}.target.wants/*; do
			[ -e "$u" ] || [ -L "$u" ] || continue
			u=${u##*/}
			case $u in
			systemd-journald*) ;;
			*) mask "$u" ;;
			esac
		done
	done
	rm -rf "$ETC"/*.target.wants "$ETC"/*.requires
	mask systemd-udevd.service systemd-udev-trigger.service systemd-udev-settle.service \
		systemd-journal-flush.service systemd-logind.service dbus.service dbus.socket \
		systemd-networkd.service systemd-resolved.service networking.service \
		getty.target serial-getty@.service getty@.service tmp.mount
	mkdir -p /etc/systemd/system-generators
	for g in /lib/systemd/system-generators/*; do
		[ -e "$g" ] && ln -sfn /dev/null "/etc/systemd/system-generators/${g##*/}"
	done
	: >/etc/fstab
	# The host may be a container: its marker would make systemd skip
	# what it does only on a machine (mounting bpffs, among others).
	rm -f /.dockerenv /run/.containerenv
	mkdir -p /etc/systemd/journald.conf.d
	printf '[Journal]\nStorage=volatile\nForwardToConsole=no\n' \
		>/etc/systemd/journald.conf.d/xdpbr-vm.conf
	rm -f /var/lib/man-db/auto-update
}

# units: the boot target and the agent.
units()
{
	printf 'vmkdir=%s\nvmtree=%s\nvmnics=%s\n' "${vmkdir:-}" "${vmtree:-}" "${vmnics:-0}" \
		>/etc/xdpbr-vm.env
	cat >"$ETC/xdpbr-vm.target" <<-EOF
	[Unit]
	Description=xdpbr VM lane
	Wants=basic.target xdpbr-vm-agent.service
	After=basic.target
	AllowIsolate=yes
	EOF
	cat >"$ETC/xdpbr-vm-agent.service" <<-EOF
	[Unit]
	Description=xdpbr VM lane agent (tests/vm/guest-init.sh --agent)
	DefaultDependencies=no
	After=systemd-journald.socket

	[Service]
	EnvironmentFile=/etc/xdpbr-vm.env
	ExecStart=$HERE/guest-init.sh --agent
	StandardOutput=journal+console
	StandardError=journal+console
	EOF
}

mount -t proc proc /proc
lean
units
umount /proc
say "handing over to systemd"
exec /lib/systemd/systemd --unit=xdpbr-vm.target

#!/usr/bin/env bash
#
# kernel.sh - fetch Debian 12's own kernel for the VM lane and prepare it,
# without installing anything on this host:
#
#   1. the newest linux-image-6.1.0-N-amd64 that apt knows (the one
#      linux-image-amd64 depends on), fetched with `apt-get download`;
#   2. unpacked with dpkg-deb -x into CACHE/VERSION/ (vmlinuz, config,
#      modules) and depmod run on that tree only (-b), so `modprobe -d
#      CACHE/VERSION` works in the guest;
#   3. a tiny initramfs (busybox and the modules that mount a 9p root:
#      virtio_pci, 9p and overlay are modules in Debian's config, not built
#      in) whose /init mounts the host's / over virtio 9p read-only (or
#      under a writable overlay) and hands over to the guest's init.
#
# usage: tests/vm/kernel.sh [CACHE]   (default $XDPBR_VM_CACHE or
#        /var/cache/xdpbr-vm); prints the prepared directory, which holds
#        vmlinuz, initrd.img, root (the unpacked package) and VERSION.
# Needs apt-get (and the network, the first time), dpkg-deb, depmod,
# cpio, busybox. Exits 1 with a message on any failure.

set -euo pipefail

CACHE=${1:-${XDPBR_VM_CACHE:-/var/cache/xdpbr-vm}}
# The modules that mount the root: the order is modules.dep's.
ROOT_MODULES=(9p 9pnet_virtio virtio_pci overlay)

die()
{
	echo "vm kernel: $*" >&2
	exit 1
}

# pick_package: the linux-image-6.1.0-N-amd64 that linux-image-amd64 (Debian
# 12's kernel metapackage) depends on, or the newest such name apt knows.
pick_package()
{
	local p
	p=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-6\.1[.0-9]*-[0-9]*-amd64\)$/\1/p' | head -n 1)
	if [ -z "$p" ]; then
		p=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' 2>/dev/null |
			awk '{print $1}' | sort -V | tail -n 1)
	fi
	echo "$p"
}

fetch_deb()
{
	local pkg=$1 dir=$2 deb
	deb=$(ls "$dir"/"${pkg}"_*.deb 2>/dev/null | tail -n 1 || true)
	if [ -z "$deb" ]; then
		# apt-get download writes into the current directory; as root it
		# warns that _apt can't write there, which is harmless.
		(cd "$dir" && apt-get download -q "$pkg" >&2) ||
			die "apt-get download $pkg failed (network? apt-get update?)"
		deb=$(ls "$dir"/"${pkg}"_*.deb 2>/dev/null | tail -n 1 || true)
		[ -n "$deb" ] || die "apt-get download $pkg left no .deb in $dir"
	fi
	echo "$deb"
}

# make_initrd KDIR KVER: KDIR/initrd.img with busybox (and the libraries
# it links), the root's modules in dependency order, and tests/vm/initrd-init.
make_initrd()
{
	local kdir=$1 kver=$2 tmp bb lib m f
	tmp=$(mktemp -d /tmp/xdpbr-vm-initrd.XXXXXX)
	mkdir -p "$tmp"/bin "$tmp"/modules "$tmp"/newroot "$tmp"/proc "$tmp"/sys "$tmp"/dev
	bb=$(command -v busybox) || die "busybox is not installed (tools/deps.sh installs it)"
	cp "$bb" "$tmp"/bin/busybox
	for lib in $(ldd "$bb" 2>/dev/null | grep -o '/[^ ]*'); do
		mkdir -p "$tmp$(dirname "$lib")"
		cp -L "$lib" "$tmp$lib"
	done
	ln -s busybox "$tmp"/bin/sh
	: >"$tmp"/modules/order
	for m in "${ROOT_MODULES[@]}"; do
		modprobe -d "$kdir"/root -S "$kver" --show-depends "$m" |
			awk '$1 == "insmod" {print $2}'
	done | awk '!seen[$0]++' | while read -r f; do
		cp "$f" "$tmp"/modules/
		basename "$f" >>"$tmp"/modules/order
	done
	[ -s "$tmp"/modules/order ] || die "no module found for the 9p root"
	cp "$(dirname "$0")"/initrd-init "$tmp"/init
	chmod 0755 "$tmp"/init
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$kdir"/initrd.img.tmp
	rm -rf "$tmp"
	mv "$kdir"/initrd.img.tmp "$kdir"/initrd.img
}

main()
{
	local pkg deb kver kdir
	command -v apt-get >/dev/null || die "apt-get not found: the VM lane needs Debian's kernel package"
	mkdir -p "$CACHE"
	# One preparation at a time: lanes run in parallel share the cache.
	exec 9>"$CACHE/.lock"
	flock 9
	pkg=$(pick_package)
	if [ -z "$pkg" ]; then
		echo "vm kernel: apt knows no linux-image-6.1 package; running apt-get update" >&2
		apt-get update -q >&2 || die "apt-get update failed"
		pkg=$(pick_package)
	fi
	[ -n "$pkg" ] || die "no linux-image-6.1.0-N-amd64 package in apt's lists (is this Debian 12?)"
	kver=${pkg#linux-image-}
	kdir=$CACHE/$kver
	# initrd-init and this script make the initrd: a change to either makes
	# a new one.
	if [ -e "$kdir"/ready ] && [ "$kdir"/ready -nt "$(dirname "$0")"/initrd-init ] &&
		[ "$kdir"/ready -nt "$0" ]; then
		echo "$kdir"
		return 0
	fi
	deb=$(fetch_deb "$pkg" "$CACHE")
	rm -rf "$kdir"
	mkdir -p "$kdir"/root
	dpkg-deb -x "$deb" "$kdir"/root || die "dpkg-deb -x $deb failed"
	depmod -b "$kdir"/root "$kver" || die "depmod -b $kdir/root $kver failed"
	ln -s root/boot/vmlinuz-"$kver" "$kdir"/vmlinuz
	make_initrd "$kdir" "$kver"
	dpkg-deb -f "$deb" Package Version | tr '\n' ' ' | sed 's/Package: //;s/ Version: /=/;s/ $//' >"$kdir"/VERSION
	echo >>"$kdir"/VERSION
	touch "$kdir"/ready
	echo "$kdir"
}

main

#!/usr/bin/env bash
#
# selftests.sh - the kernel's bridge selftests for the VM lane: extracts
# tools/testing/selftests/net/forwarding/ (only that directory) from
# Debian's linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz, installed
# by tools/deps.sh) into CACHE/selftests-VERSION/forwarding, once per
# package version, and prints that directory.
#
# usage: tests/vm/selftests.sh [CACHE]   (default $XDPBR_VM_CACHE or
#        /var/cache/xdpbr-vm). Exits 1 with a message on any failure.

set -euo pipefail

CACHE=${1:-${XDPBR_VM_CACHE:-/var/cache/xdpbr-vm}}
TARBALL=${XDPBR_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
SUBDIR=tools/testing/selftests/net/forwarding

die()
{
	echo "vm selftests: $*" >&2
	exit 1
}

[ -r "$TARBALL" ] || die "$TARBALL missing: install linux-source-6.1 (tools/deps.sh)"
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || ver=unknown
dir=$CACHE/selftests-$ver
mkdir -p "$CACHE"
exec 9>"$CACHE/.selftests.lock"
flock 9
if [ ! -e "$dir/ready" ] || [ "$dir/ready" -ot "$TARBALL" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$TARBALL" -C "$dir" --strip-components=5 --wildcards \
		"linux-source-6.1/$SUBDIR/*" || die "extracting $SUBDIR from $TARBALL failed"
	[ -e "$dir/forwarding/lib.sh" ] || die "no forwarding/lib.sh in $TARBALL"
	touch "$dir/ready"
fi
echo "$dir/forwarding"

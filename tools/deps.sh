#!/usr/bin/env bash
# Install every build and test dependency of xdpbr on Debian 12.
# Does nothing when they are all present already. Must run as root to install.
set -euo pipefail

PKGS=(
	clang llvm make gcc pkg-config
	libclang-rt-14-dev libasan8 libubsan1	# make fuzz, make check SANITIZE=1
	libbpf-dev libxdp-dev xdp-tools bpftool libelf-dev zlib1g-dev
	libcmocka-dev libjson-c-dev libmnl-dev libinih-dev libsystemd-dev libmicrohttpd-dev libcap-ng-dev
	iproute2 ethtool tcpdump iputils-ping arping iperf3 jq curl
	procps kmod prometheus
	valgrind		# tests/integration/test_valgrind.sh
	dnsmasq-base busybox	# test_hostif.sh: a DHCP server and client on the host interface
	qemu-system-x86 cpio	# tests/vm/ (make check-vm): Debian's kernel in QEMU, its initramfs
)

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}" >&2
	echo "deps: run 'make deps' as root to install them" >&2
	exit 1
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# Install every build and test dependency of xdpbr on Debian 12.
# Installs nothing when they are all present already. Must run as root to install.
#
# Prometheus is here for promtool (test_observability, test_names) and for
# the server tests/integration/test_grafana.sh runs itself, with its own
# configuration, for as long as the test. The package's service, a server
# on :9090 enabled at boot, is not wanted: the package is installed with
# service starts denied (a policy-rc.d answering 101 for the length of its
# apt-get) and its service is then disabled and stopped. That is also done
# for a service an earlier deps.sh left running, as long as its
# configuration is the package's own: a server someone configured is theirs
# and left alone.
set -euo pipefail

PKGS=(
	clang llvm make gcc pkg-config
	libclang-rt-14-dev libasan8 libubsan1	# make fuzz, make check SANITIZE=1
	libbpf-dev libxdp-dev xdp-tools bpftool libelf-dev zlib1g-dev
	libcmocka-dev libjson-c-dev libmnl-dev libinih-dev libsystemd-dev libmicrohttpd-dev libcap-ng-dev libseccomp-dev
	iproute2 ethtool tcpdump iputils-ping arping iperf3 jq curl
	procps kmod
	prometheus		# promtool; test_grafana.sh's server (no service)
	valgrind		# tests/integration/test_valgrind.sh
	dnsmasq-base busybox	# test_hostif.sh: a DHCP server and client on the host interface
	bridge-utils		# test_brdev.sh: brctl addif/delif on the bridge device
	containernetworking-plugins	# test_cni.sh: the CNI bridge plugin attaches containers
	openvswitch-switch	# test_stp_ovs.sh: RSTP interop with Open vSwitch (netdev datapath)
	debhelper lintian	# make deb, test_package.sh: build the Debian package and check it
	bash-completion		# test_package.sh: bash-completion loads the packaged completion
	gnuplot-nox		# make bench, make bench-fdb, make plots; test_plots.sh
	libxml2-utils		# xmllint: test_plots.sh checks the SVGs are well-formed
	frr			# test_evpn.sh: zebra and bgpd, started by the test in its namespaces
	qemu-system-x86 cpio	# tests/vm/ (make check-vm): Debian's kernel in QEMU, its initramfs
	linux-source-6.1 netsniff-ng	# tests/vm/test_selftests.sh: the kernel's bridge selftests, mausezahn
	linux-perf		# tools/bpfperf.sh, test_bpfperf.sh: perf samples on BPF source lines
)
QUIET_PKG=prometheus	# installed without starting its service

# The file invoke-rc.d and deb-systemd-invoke ask before starting a service.
POLICY_RC_D=${POLICY_RC_D:-/usr/sbin/policy-rc.d}
# The package's configuration: a service with other contents is someone's.
PROM_CONFIGS=(/etc/prometheus/prometheus.yml /etc/default/prometheus)

installed()
{
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

systemd_running()
{
	[ -d /run/systemd/system ]
}

# service_on: the prometheus service is enabled at boot or running.
service_on()
{
	if command -v systemctl >/dev/null &&
		systemctl is-enabled --quiet prometheus.service 2>/dev/null; then
		return 0
	fi
	if systemd_running; then
		systemctl is-active --quiet prometheus.service
		return
	fi
	# SysV init, or no init at all (a container): rc links, a server
	# started as the package's user
	compgen -G '/etc/rc[2345].d/S*prometheus' >/dev/null ||
		pgrep -x -u prometheus prometheus >/dev/null 2>&1
}

# stock_config: prometheus's configuration files are the package's own
# (their checksums are those dpkg recorded for its conffiles).
stock_config()
{
	local f sum want
	for f in "${PROM_CONFIGS[@]}"; do
		want=$(dpkg-query -W -f='${Conffiles}\n' prometheus |
			awk -v f="$f" '$1 == f { print $2 }')
		[ -n "$want" ] || continue
		[ -e "$f" ] || continue
		sum=$(md5sum <"$f" | cut -d' ' -f1)
		[ "$sum" = "$want" ] || return 1
	done
}

# service_off: disable the prometheus service at boot and stop it.
service_off()
{
	if command -v systemctl >/dev/null; then
		if systemd_running; then
			systemctl disable --now prometheus.service
		else
			systemctl disable prometheus.service
		fi
	fi
	if [ -x /etc/init.d/prometheus ] && command -v update-rc.d >/dev/null; then
		update-rc.d prometheus disable >/dev/null
		systemd_running || /etc/init.d/prometheus stop >/dev/null || true
	fi
}

# quiet_prometheus: a prometheus service with the package's configuration
# is not left enabled or running (see the top of this file).
quiet_prometheus()
{
	installed prometheus && service_on || return 0
	if ! stock_config; then
		echo "deps: leaving the prometheus service alone: its configuration was changed" >&2
		return 0
	fi
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: the prometheus package's service is on; xdpbr needs only the" \
			"package's programs: run 'make deps' as root to disable it" >&2
		return 0
	fi
	echo "deps: disabling and stopping the prometheus service (xdpbr needs only the" \
		"package's programs; 'systemctl enable --now prometheus' brings it back)"
	service_off
}

# deny_starts: from now until allow_starts, policy-rc.d denies every
# service start (101); one already there is kept aside and put back.
deny_starts()
{
	if [ -e "$POLICY_RC_D" ] || [ -L "$POLICY_RC_D" ]; then
		mv "$POLICY_RC_D" "$POLICY_RC_D.xdpbr-deps"
	fi
	trap allow_starts EXIT
	printf '#!/bin/sh\n# tools/deps.sh of xdpbr: no service starts while it installs\nexit 101\n' \
		>"$POLICY_RC_D"
	chmod 755 "$POLICY_RC_D"
}

allow_starts()
{
	rm -f "$POLICY_RC_D"
	if [ -e "$POLICY_RC_D.xdpbr-deps" ] || [ -L "$POLICY_RC_D.xdpbr-deps" ]; then
		mv "$POLICY_RC_D.xdpbr-deps" "$POLICY_RC_D"
	fi
	trap - EXIT
}

# install_pkgs PKG...: apt-get install PKG..., QUIET_PKG with service starts
# denied and its service turned off after.
install_pkgs()
{
	local p quiet=() others=()
	for p in "$@"; do
		if [ "$p" = "$QUIET_PKG" ]; then
			quiet+=("$p")
		else
			others+=("$p")
		fi
	done
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	if [ ${#others[@]} -gt 0 ]; then
		apt-get install -y -q --no-install-recommends "${others[@]}"
	fi
	if [ ${#quiet[@]} -gt 0 ]; then
		deny_starts
		apt-get install -y -q --no-install-recommends "${quiet[@]}"
		allow_starts
	fi
}

main()
{
	local p missing=()
	for p in "${PKGS[@]}"; do
		installed "$p" || missing+=("$p")
	done

	if [ ${#missing[@]} -gt 0 ]; then
		if [ "$(id -u)" -ne 0 ]; then
			echo "deps: missing packages: ${missing[*]}" >&2
			echo "deps: run 'make deps' as root to install them" >&2
			exit 1
		fi
		echo "deps: installing ${missing[*]}"
		install_pkgs "${missing[@]}"
	fi
	quiet_prometheus
}

# tests/integration/test_deps.sh sources this file for its functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main "$@"
fi

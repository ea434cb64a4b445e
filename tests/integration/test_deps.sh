#!/usr/bin/env bash
# datapaths: auto
# tools/deps.sh (make deps) and the prometheus package: it is installed
# with service starts denied (policy-rc.d answers 101 during its apt-get,
# and only during its), a policy-rc.d already there is put back, and a
# prometheus service with the package's configuration is disabled and
# stopped after an install and also when an earlier deps.sh left it on,
# while a service whose configuration someone changed is left alone.
#
# deps.sh's functions run here with apt-get, dpkg-query, systemctl,
# update-rc.d and pgrep replaced by shell functions that record what they
# were asked, and policy-rc.d and the configuration files in the test's
# temp directory: nothing is installed and no service of this machine is
# touched. Then the real deps.sh runs on this machine (everything is
# installed: it installs nothing) when run as root, and no prometheus
# service may run after it (unless its configuration was changed: then it
# is someone's own server, which deps.sh leaves alone).
# shellcheck disable=SC2317 # the replacements are called by deps.sh
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

DEPS=$XT_ROOT/tools/deps.sh
CALLS=$XT_TMP/calls		# what the replacements were asked, one line each

# shellcheck source=../../tools/deps.sh
. "$DEPS" || abort "sourcing $DEPS"
set +e				# deps.sh's set -e is not the checks'
POLICY_RC_D=$XT_TMP/policy-rc.d
PROM_CONFIGS=("$XT_TMP/prometheus.yml" "$XT_TMP/default")

# The machine the replacements stand for: F_SYSTEMD (systemd runs),
# F_ENABLED (the service is enabled), F_INSTALLED (packages installed,
# "all" or a list).
F_SYSTEMD=1 F_ENABLED=1 F_INSTALLED=all

apt-get()
{
	local policy=none
	[ -x "$POLICY_RC_D" ] && { "$POLICY_RC_D" prometheus start; policy=$?; }
	echo "apt-get $* (policy-rc.d: $policy)" >>"$CALLS"
}

dpkg-query()
{
	case "$*" in
	*Conffiles*)
		echo " ${PROM_CONFIGS[0]} $STOCK_SUM0"
		echo " ${PROM_CONFIGS[1]} $STOCK_SUM1"
		;;
	*Status*)
		local p=${*: -1}
		[ "$F_INSTALLED" = all ] || [[ " $F_INSTALLED " == *" $p "* ]] || return 1
		echo "install ok installed"
		;;
	esac
}

systemctl()
{
	echo "systemctl $*" >>"$CALLS"
	case "$*" in
	*is-enabled*) [ "$F_ENABLED" = 1 ] ;;
	*is-active*) [ "$F_ENABLED" = 1 ] ;;
	esac
}

update-rc.d() { echo "update-rc.d $*" >>"$CALLS"; }
pgrep() { return 1; }
systemd_running() { [ "$F_SYSTEMD" = 1 ]; }

echo "global: {}" >"${PROM_CONFIGS[0]}"
echo 'ARGS=""' >"${PROM_CONFIGS[1]}"
STOCK_SUM0=$(md5sum <"${PROM_CONFIGS[0]}" | cut -d' ' -f1)
STOCK_SUM1=$(md5sum <"${PROM_CONFIGS[1]}" | cut -d' ' -f1)

# deps.sh's policy-rc.d juggling sets its own EXIT trap and clears it:
# lib.sh's cleanup is put back after each call that may have done so.
lib_trap()
{
	trap 'xt_cleanup' EXIT
}

# calls: what the replacements recorded (and start afresh).
calls()
{
	cat "$CALLS" 2>/dev/null
	: >"$CALLS"
}

# ---------------------------------------------------------------- installing

printf '#!/bin/sh\nexit 0\n' >"$POLICY_RC_D"
chmod 755 "$POLICY_RC_D"
ORIG=$(cat "$POLICY_RC_D")
F_ENABLED=0	# as a fresh install finds it before the package's postinst
install_pkgs jq prometheus >/dev/null 2>&1
lib_trap
got=$(calls)
check_eq "install: other packages with the machine's policy, prometheus with starts denied" \
	"apt-get update -q (policy-rc.d: 0)
apt-get install -y -q --no-install-recommends jq (policy-rc.d: 0)
apt-get install -y -q --no-install-recommends prometheus (policy-rc.d: 101)" "$got"
check_eq "install: the policy-rc.d that was there is back" "$ORIG" "$(cat "$POLICY_RC_D" 2>&1)"
check "install: nothing left aside" test ! -e "$POLICY_RC_D.xdpbr-deps"

rm -f "$POLICY_RC_D"
install_pkgs prometheus >/dev/null 2>&1
lib_trap
check_eq "install on a machine without policy-rc.d: starts denied during the install" \
	"apt-get update -q (policy-rc.d: none)
apt-get install -y -q --no-install-recommends prometheus (policy-rc.d: 101)" "$(calls)"
check "install on a machine without policy-rc.d: none left after" test ! -e "$POLICY_RC_D"

# ---------------------------------------------------------------- the service

F_SYSTEMD=1 F_ENABLED=1
quiet_prometheus >/dev/null 2>&1
check_eq "systemd, service enabled, package's configuration: disabled and stopped" \
	"systemctl is-enabled --quiet prometheus.service
systemctl disable --now prometheus.service" "$(calls | grep -v update-rc.d)"

F_SYSTEMD=0 F_ENABLED=1
quiet_prometheus >/dev/null 2>&1
check_eq "no systemd running (a container), service enabled: disabled" \
	"systemctl is-enabled --quiet prometheus.service
systemctl disable prometheus.service" "$(calls | grep -v update-rc.d)"

F_SYSTEMD=1 F_ENABLED=0
quiet_prometheus >/dev/null 2>&1
check_eq "service neither enabled nor running: nothing done" \
	"systemctl is-enabled --quiet prometheus.service
systemctl is-active --quiet prometheus.service" "$(calls)"

F_SYSTEMD=1 F_ENABLED=1
echo "scrape_configs: []" >>"${PROM_CONFIGS[0]}"
msg=$(quiet_prometheus 2>&1)
check_eq "a changed configuration: the service is left alone" \
	"systemctl is-enabled --quiet prometheus.service" "$(calls)"
check_eq "a changed configuration: deps.sh says so" \
	"deps: leaving the prometheus service alone: its configuration was changed" "$msg"
echo "global: {}" >"${PROM_CONFIGS[0]}"

# An earlier deps.sh installed prometheus and let its service start:
# everything is installed now, main installs nothing and turns it off.
F_INSTALLED=all F_SYSTEMD=1 F_ENABLED=1
main >/dev/null 2>&1
lib_trap
check_eq "everything installed, service left on by an earlier deps.sh: turned off" \
	"systemctl is-enabled --quiet prometheus.service
systemctl disable --now prometheus.service" "$(calls | grep -v update-rc.d)"

F_INSTALLED="jq curl" F_ENABLED=0
main >/dev/null 2>&1
lib_trap
got=$(calls)
check "prometheus missing: installed with starts denied" \
	grep -qx "apt-get install -y -q --no-install-recommends prometheus (policy-rc.d: 101)" \
	<<<"$got"

# ---------------------------------------------------------------- this machine

# A service is a prometheus running as the package's user (test_grafana's
# servers run as root). One whose configuration someone changed is theirs.
unset -f apt-get dpkg-query systemctl update-rc.d pgrep systemd_running
PROM_CONFIGS=(/etc/prometheus/prometheus.yml /etc/default/prometheus)
if [ "$(id -u)" -eq 0 ]; then
	check "tools/deps.sh as root on this machine" "$DEPS"
	if ! installed prometheus || stock_config; then
		check_eq "no prometheus service runs after deps.sh (no prometheus as user prometheus)" \
			"" "$(id prometheus >/dev/null 2>&1 && pgrep -a -x -u prometheus prometheus)"
	else
		pass "the prometheus service's configuration was changed: it is not deps.sh's"
	fi
fi

finish

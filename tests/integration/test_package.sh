#!/usr/bin/env bash
# datapaths: auto
# The Debian package: `make deb` builds xdpbr_VERSION_ARCH.deb with
# dpkg-buildpackage (in a copy of the tree: this checkout stays as it was),
# lintian finds no error in it, and unpacked into a fresh directory root
# (dpkg -x: nothing is installed on this machine) it holds the daemon and
# the CLI, which run from there (--version, -n -c on the packaged example),
# the datapath object, the systemd template unit that no maintainer script
# enables or starts, the man pages, the bash completion of both commands,
# the example configuration in /usr/share/doc/xdpbr/examples, the README
# and the handbook (doc/*.md) and the configuration directory /etc/xdpbr.
#
# Needs debhelper and lintian (tools/deps.sh) and the build dependencies of
# debian/control; no root and no namespaces. Takes about 35 s to build and
# 10 s for lintian on an idle machine.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

# The make running this test (make check) must not hand the inner ones its
# jobserver or its goals.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

xt_need dpkg-buildpackage:dpkg-dev dh:debhelper lintian dpkg-deb:dpkg readelf:binutils
[ -e /usr/share/bash-completion/bash_completion ] ||
	skip "not installed: /usr/share/bash-completion/bash_completion (package bash-completion); tools/deps.sh (make deps) installs it"

version=$(sed -n 's/^VERSION *:= *//p' "$XT_ROOT/Makefile")
arch=$(dpkg --print-architecture)
in_git=
[ "$(git -C "$XT_ROOT" rev-parse --show-toplevel 2>/dev/null)" = "$XT_ROOT" ] && in_git=1

# --- the build
status_before=$([ -z "$in_git" ] || git -C "$XT_ROOT" status --porcelain)
start=$(date +%s)
make -C "$XT_ROOT" --no-print-directory deb DEB_DIR="$XT_TMP/deb" >"$XT_TMP/deb.log" 2>&1
rc=$?
secs=$(($(date +%s) - start))
deb=$XT_TMP/deb/xdpbr_${version}_$arch.deb
if [ $rc -ne 0 ] || [ ! -f "$deb" ]; then
	fail "make deb builds xdpbr_${version}_$arch.deb" "exit status $rc" \
		"$(tail -n 40 "$XT_TMP/deb.log")" "made: $(ls "$XT_TMP/deb" 2>&1)"
	abort "no package to test"
fi
pass "make deb builds xdpbr_${version}_$arch.deb ($secs s)"
if [ -n "$in_git" ]; then
	check_eq "make deb leaves the checkout as it was (git status)" "$status_before" \
		"$(git -C "$XT_ROOT" status --porcelain)"
fi
check_eq "the package's version is the Makefile's ($version)" "$version" \
	"$(dpkg-deb -f "$deb" Version)"
check "its Depends are the shared libraries the binaries link (libbpf1)" \
	grep -q 'libbpf1' <<<"$(dpkg-deb -f "$deb" Depends)"

# --- lintian: no error (warnings are printed, and allowed)
lint=$(lintian "$deb" 2>&1)
rc=$?
errors=$(grep '^E:' <<<"$lint")
if [ $rc -eq 0 ] && [ -z "$errors" ]; then
	pass "lintian: no errors ($(grep -c '^W:' <<<"$lint") warnings)"
else
	fail "lintian: no errors" "exit status $rc" "$lint"
fi
grep '^W:' <<<"$lint"

# --- unpacked into a fresh root
root=$XT_TMP/root
mkdir -p "$root"
check "dpkg -x into a fresh directory" dpkg -x "$deb" "$root"
missing=
for f in usr/sbin/xdpbrd usr/sbin/xdpbr usr/lib/xdpbr/xdpbr.bpf.o sbin/bridge-stp \
	lib/systemd/system/xdpbrd@.service \
	usr/share/man/man8/xdpbrd.8.gz usr/share/man/man8/xdpbr.8.gz \
	usr/share/man/man5/xdpbrd.conf.5.gz \
	usr/share/bash-completion/completions/xdpbr \
	usr/share/bash-completion/completions/xdpbrd \
	usr/share/doc/xdpbr/examples/xdpbrd.conf usr/share/doc/xdpbr/copyright \
	usr/share/doc/xdpbr/grafana/xdpbr.json; do
	[ -e "$root/$f" ] || missing+=" $f"
done
check_eq "the package holds the binaries, the object, the STP helper, the unit, the man pages, the completion, the example, the dashboard" \
	"" "$missing"

# The README and the handbook (doc/*.md), compressed or not.
missing=
for f in "$XT_ROOT"/README.md "$XT_ROOT"/doc/*.md; do
	f=usr/share/doc/xdpbr/${f##*/}
	[ -e "$root/$f" ] || [ -e "$root/$f.gz" ] || missing+=" $f"
done
check_eq "the package holds the README and the handbook, doc/*.md" "" "$missing"

xdpbrd=$root/usr/sbin/xdpbrd
said=$("$xdpbrd" --version 2>&1)
if [[ $said =~ ^xdpbrd\ $version\ \(git\ ([^\ ()]+)\)$ ]]; then
	pass "the packaged xdpbrd --version: $said"
	if [ -n "$in_git" ]; then
		check_eq "it names the checkout's revision" \
			"$(git -C "$XT_ROOT" describe --always --dirty)" "${BASH_REMATCH[1]}"
	fi
else
	fail "the packaged xdpbrd --version prints 'xdpbrd $version (git REVISION)'" "$said"
fi
check_eq "the packaged xdpbr -V names the same" "${said/xdpbrd/xdpbr}" \
	"$("$root/usr/sbin/xdpbr" -V 2>&1)"
example=$root/usr/share/doc/xdpbr/examples/xdpbrd.conf
check_eq "the packaged xdpbrd -n -c checks the packaged example" \
	"$example: configuration OK" "$("$xdpbrd" -n -c "$example" 2>&1)"
check "the packaged datapath object is BPF" \
	grep -q 'Machine: *Linux BPF' <<<"$(readelf -h "$root/usr/lib/xdpbr/xdpbr.bpf.o" 2>&1)"

# --- the unit: installed, running the packaged daemon, enabled and started
# by no maintainer script
unit=$root/lib/systemd/system/xdpbrd@.service
check_eq "the unit runs /usr/sbin/xdpbrd on /etc/xdpbr/BRIDGE.conf" \
	"ExecStart=/usr/sbin/xdpbrd -c /etc/xdpbr/%i.conf %i" "$(grep '^ExecStart=' "$unit")"
ctl=$XT_TMP/control
check "dpkg-deb -e: the control files" dpkg-deb -e "$deb" "$ctl"
scripts='' bad=''
for s in preinst postinst prerm postrm; do
	[ -f "$ctl/$s" ] || continue
	scripts+=" $s"
	# shellcheck disable=SC2016 # $_dh_action: the word in debhelper's scripts
	bad+=$(grep -nE 'deb-systemd-helper +(--[a-z-]+ +)*(enable|reenable)|deb-systemd-invoke +(--[a-z-]+ +)*(start|restart|reload|\$_dh_action)|systemctl +(--[a-z-]+ +)*(enable|start|restart)' \
		"$ctl/$s" | sed "s|^|$s:|")
done
check_eq "no maintainer script enables or starts a unit (scripts:${scripts:- none})" "" "$bad"

# --- /etc: the configuration directory, and no file the admin would have
# to merge on upgrade
check_eq "the package makes /etc/xdpbr and puts nothing else in /etc" \
	"./etc/
./etc/xdpbr/" "$(dpkg-deb -c "$deb" | awk '{ print $6 }' | grep '^\./etc/')"
check "/etc/xdpbr is a directory of mode 0755" \
	test "$(stat -c %a "$root/etc/xdpbr" 2>&1)" = 755
check_eq "no conffiles" "" "$(cat "$ctl/conffiles" 2>/dev/null)"

# --- the packaged completion, with the packaged commands on PATH
# shellcheck disable=SC2016 # expanded by the inner bash
said=$(PATH=$root/usr/sbin:$PATH bash -c '
	. "$1/usr/share/bash-completion/completions/xdpbr"
	complete -p xdpbr xdpbrd
	COMP_WORDS=(xdpbr ""); COMP_CWORD=1; _xdpbr; echo "xdpbr: ${COMPREPLY[*]}"
	COMP_WORDS=(xdpbrd --c); COMP_CWORD=1; _xdpbrd; echo "xdpbrd: ${COMPREPLY[*]}"
' _ "$root" 2>&1)
# the objects the packaged xdpbr names in its usage, then help
objects=$("$root/usr/sbin/xdpbr" help 2>&1 | sed -n 's/.*OBJECT := {\(.*\)}.*/\1/p' | tr -d '|' | xargs)
check "the packaged xdpbr names its objects (bridge ... stp)" \
	grep -q '^bridge link fdb vlan .*stp' <<<"$objects"
check_eq "the packaged completion: complete -p, xdpbr <TAB>, xdpbrd --c<TAB>" \
	"complete -F _xdpbr xdpbr
complete -F _xdpbrd xdpbrd
xdpbr: $objects help
xdpbrd: --config --check" "$said"

# bash-completion finds it by the command's name, for each command, in the
# package's completions directory (XDG_DATA_DIRS points it at the root)
# shellcheck disable=SC2016 # expanded by the inner bash
said=$(XDG_DATA_DIRS=$root/usr/share bash -c '
	. /usr/share/bash-completion/bash_completion
	shopt -s extdebug
	for c in xdpbr xdpbrd; do
		__load_completion "$c" && declare -F "_$c" | cut -d" " -f1,3
	done
' 2>&1)
check_eq "bash-completion loads each command's completion from the package" \
	"_xdpbr $root/usr/share/bash-completion/completions/xdpbr
_xdpbrd $root/usr/share/bash-completion/completions/xdpbrd" "$said"

finish

#!/usr/bin/env bash
# datapaths: auto
# make install and make uninstall, into a scratch DESTDIR: install puts the
# binaries, the datapath object, the unit (naming the daemon where it went),
# the man pages, the bash completion of both commands and the example
# configuration in place, and the installed daemon runs; uninstall removes
# exactly that again: no file of it is left, xdpbr's own directories go,
# and what make install did not put there (a configuration of yours in
# /etc/xdpbr, a neighbour's file in sbin) stays.
#
# Needs no root and no namespaces; uses the checkout's build (make check
# has made it).
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

# The make running this test (make check) must not hand the inner ones its
# jobserver or its goals.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

for t in "$XDPBRD" "$XDPBR" "$BPF_OBJ"; do
	[ -e "$t" ] || abort "missing: $t (run make)"
done

# mk TARGET VAR=VALUE...: make TARGET on this checkout's build; its output
# in $XT_TMP/make.out.
# shellcheck disable=SC2317 # called through check
mk()
{
	make -C "$XT_ROOT" --no-print-directory BUILD="$XT_BUILD" "$@" >"$XT_TMP/make.out" 2>&1
}

# files_in DIR: every non-directory under DIR, relative, sorted.
files_in()
{
	(cd "$1" && find . ! -type d | sed 's|^\./||' | sort)
}

# --- into an empty DESTDIR, PREFIX /usr/local
dest=$XT_TMP/dest
mkdir -p "$dest"
if ! check "make install DESTDIR=$dest" mk install DESTDIR="$dest"; then
	cat "$XT_TMP/make.out"
	abort "make install failed"
fi
want="etc/xdpbr/example.conf
sbin/bridge-stp
usr/local/lib/systemd/system/xdpbrd@.service
usr/local/lib/xdpbr/xdpbr.bpf.o
usr/local/sbin/xdpbr
usr/local/sbin/xdpbrd
usr/local/share/bash-completion/completions/xdpbr
usr/local/share/bash-completion/completions/xdpbrd
usr/local/share/man/man5/xdpbrd.conf.5
usr/local/share/man/man8/xdpbr.8
usr/local/share/man/man8/xdpbrd.8"
check_eq "make install installs the binaries, the datapath object, the unit, the man pages, the completion, the example and the STP helper (in /sbin, where the kernel runs it)" \
	"$want" "$(files_in "$dest")"
check "the configuration directory etc/xdpbr is made" test -d "$dest/etc/xdpbr"
check "the installed xdpbrd and xdpbr are executable" \
	test -x "$dest/usr/local/sbin/xdpbrd" -a -x "$dest/usr/local/sbin/xdpbr"
check_eq "the installed xdpbrd runs: --version" "$("$XDPBRD" --version 2>&1)" \
	"$("$dest/usr/local/sbin/xdpbrd" --version 2>&1)"
check_eq "the installed xdpbrd checks the installed example" \
	"$dest/etc/xdpbr/example.conf: configuration OK" \
	"$("$dest/usr/local/sbin/xdpbrd" -n -c "$dest/etc/xdpbr/example.conf" 2>&1)"
check_eq "the unit runs the daemon from SBINDIR" \
	"ExecStart=/usr/local/sbin/xdpbrd -c /etc/xdpbr/%i.conf %i" \
	"$(grep '^ExecStart=' "$dest/usr/local/lib/systemd/system/xdpbrd@.service")"
check "the completion file is tools/completion/xdpbr, for both commands" \
	cmp "$XT_ROOT/tools/completion/xdpbr" \
	"$dest/usr/local/share/bash-completion/completions/xdpbrd"

check "make uninstall DESTDIR=$dest" mk uninstall DESTDIR="$dest"
check_eq "make uninstall leaves no file" "" "$(files_in "$dest")"
check_eq "make uninstall removes xdpbr's own directories (lib/xdpbr, etc/xdpbr)" "" \
	"$(cd "$dest" && find . -type d -name '*xdpbr*')"

# --- files that are not make install's stay: a configuration in
# /etc/xdpbr, a neighbour's file in sbin, another's STP helper (mstpd's);
# other variables: the unit follows SBINDIR
dest=$XT_TMP/dest2
mkdir -p "$dest/etc/xdpbr" "$dest/usr/sbin" "$dest/sbin"
echo "[bridge]" >"$dest/etc/xdpbr/br0.conf"
echo "#!/bin/sh" >"$dest/usr/sbin/other"
printf '#!/bin/sh\n# mstpd\n' >"$dest/sbin/bridge-stp"
vars=(DESTDIR="$dest" PREFIX=/usr SBINDIR=/usr/sbin UNITDIR=/lib/systemd/system)
check "make install PREFIX=/usr SBINDIR=/usr/sbin UNITDIR=/lib/systemd/system" \
	mk install "${vars[@]}"
check "make install leaves another's /sbin/bridge-stp, and says so" \
	grep -q "sbin/bridge-stp is not xdpbr's (mstpd's?): left as it is" "$XT_TMP/make.out"
check_eq "... its contents untouched" "$(printf '#!/bin/sh\n# mstpd')" "$(cat "$dest/sbin/bridge-stp")"
check_eq "the unit names /usr/sbin/xdpbrd" \
	"ExecStart=/usr/sbin/xdpbrd -c /etc/xdpbr/%i.conf %i" \
	"$(grep '^ExecStart=' "$dest/lib/systemd/system/xdpbrd@.service" 2>&1)"
check "make uninstall with the same variables" mk uninstall "${vars[@]}"
check_eq "make uninstall keeps what it did not install, and only that" \
	"etc/xdpbr/br0.conf
sbin/bridge-stp
usr/sbin/other" "$(files_in "$dest")"
check "make uninstall says why it kept etc/xdpbr" \
	grep -q "kept $dest/etc/xdpbr: not empty" "$XT_TMP/make.out"
check_eq "make uninstall removes usr/lib/xdpbr" "" "$(cd "$dest" && find . -path '*lib/xdpbr*')"

finish

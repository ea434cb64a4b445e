#!/usr/bin/env bash
# checkdeps.sh [test] - what `make` needs to build xdpbr, checked before
# anything is compiled; with "test", also what `make check-bins` needs.
# Each need is looked for as what it is (a command, a pkg-config module, a
# header the BPF compiler must find), not as a package, so a library built
# from source counts too. Prints what is missing with the Debian package
# that provides it, points to `make deps`, and exits 1; silent and 0 when
# nothing is missing.
#
# The Makefile passes its CC, CLANG, BPFTOOL, PKG_CONFIG and MULTIARCH.
set -u

CC=${CC:-cc}
CLANG=${CLANG:-clang}
BPFTOOL=${BPFTOOL:-bpftool}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
# shellcheck disable=SC2086 # CC and CLANG may be a command with options
MULTIARCH=${MULTIARCH-$($CC -print-multiarch 2>/dev/null)}

missing=()	# "what (Debian package)"
pkgs=()		# the packages, once each

need()
{
	missing+=("$1 ($2)")
	[[ " ${pkgs[*]} " == *" $2 "* ]] || pkgs+=("$2")
}

# have_cmd COMMAND: COMMAND's first word runs (CC may be "ccache gcc").
have_cmd()
{
	command -v "${1%% *}" >/dev/null 2>&1
}

# cmd COMMAND PACKAGE
cmd()
{
	have_cmd "$1" || need "command $1" "$2"
}

# pc MODULE PACKAGE: a library the C code links, through pkg-config.
pc()
{
	have_cmd "$PKG_CONFIG" || return 0	# reported once, as a command
	"$PKG_CONFIG" --exists "$1" 2>/dev/null || need "pkg-config module $1" "$2"
}

# bpf_header HEADER PACKAGE: clang finds HEADER when it compiles for BPF,
# with the include path the Makefile gives it.
# shellcheck disable=SC2086 # CLANG may be a command with options
bpf_header()
{
	have_cmd "$CLANG" || return 0		# reported once, as a command
	printf '#include <%s>\n' "$1" |
		$CLANG -target bpf ${MULTIARCH:+-I/usr/include/$MULTIARCH} -E -x c - \
			>/dev/null 2>&1 || need "header <$1>" "$2"
}

cmd "$CC" gcc
cmd "$CLANG" clang
cmd "$BPFTOOL" bpftool
cmd "$PKG_CONFIG" pkg-config
bpf_header linux/bpf.h linux-libc-dev
bpf_header asm/types.h linux-libc-dev
bpf_header bpf/bpf_helpers.h libbpf-dev
pc libbpf libbpf-dev
pc libelf libelf-dev
pc zlib zlib1g-dev
pc libmnl libmnl-dev
pc json-c libjson-c-dev
pc libsystemd libsystemd-dev
pc libmicrohttpd libmicrohttpd-dev
pc inih libinih-dev
pc libcap-ng libcap-ng-dev
if [ "${1:-}" = test ]; then
	pc cmocka libcmocka-dev
fi

[ ${#missing[@]} -eq 0 ] && exit 0
{
	echo "xdpbr can't be built here, missing:"
	printf '  %s\n' "${missing[@]}"
	echo "On Debian 12: apt-get install ${pkgs[*]}"
	echo "or 'make deps' (as root) to install everything the build and the tests need."
} >&2
exit 1

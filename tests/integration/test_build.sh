#!/usr/bin/env bash
# datapaths: auto
# What the build tells a person: `make` on a machine that lacks a library
# or the BPF headers names the Debian packages and `make deps` before it
# compiles anything (not the compiler's "'bpf/bpf_helpers.h' file not
# found"); `xdpbrd --version` and `xdpbr -V` print the version and the git
# revision the binaries were built from, "unknown" for a tree outside git.
#
# Needs no root and no namespaces: it runs make into scratch build
# directories and leaves the checkout's own build alone.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

# The make running this test (make check) must not hand the inner ones its
# jobserver or its goals.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

# version_ok NAME LINE: LINE is "NAME VERSION (git REVISION)".
version_ok()
{
	[[ $2 =~ ^$1\ [0-9]+\.[0-9]+\.[0-9]+\ \(git\ [^\ ()]+\)$ ]]
}

# rev_of LINE: the revision in a version line.
rev_of()
{
	sed -n 's/.*(git \([^ ()]*\))$/\1/p' <<<"$1"
}

# check_version NAME CMD...: CMD exits 0 and prints one version line of NAME.
check_version()
{
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && version_ok "$name" "$out"; then
		pass "$* prints '$out'"
		return 0
	fi
	fail "$* prints '$name VERSION (git REVISION)'" "exit status: $rc" "${out:-(no output)}"
	return 1
}

# make_fails NAME WORD... -- MAKE-ARG...: make MAKE-ARG... fails before
# compiling: its output names each WORD and `make deps`, no BPF object was
# made and the compiler never ran into a missing file. BUILD_DIR: the build
# directory the MAKE-ARGs name.
make_fails()
{
	local name=$1 out rc w bad=
	local -a words=()
	shift
	while [ "$1" != -- ]; do
		words+=("$1")
		shift
	done
	shift
	out=$(make -C "$XT_ROOT" "$@" 2>&1)
	rc=$?
	[ $rc -ne 0 ] || bad+="exit status 0; "
	for w in "${words[@]}" "make deps"; do
		grep -qF -- "$w" <<<"$out" || bad+="no '$w' in the output; "
	done
	grep -q "file not found\|No such file" <<<"$out" && bad+="the compiler ran; "
	[ -z "$(find "$BUILD_DIR" -name '*.o' 2>/dev/null)" ] || bad+="objects were built; "
	if [ -z "$bad" ]; then
		pass "$name: make fails first, naming ${words[*]} and make deps"
		return 0
	fi
	fail "$name: make fails first, naming ${words[*]} and make deps" "$bad" \
		"make $* (exit status $rc):" "$out"
	return 1
}

for t in "$XDPBRD" "$XDPBR"; do
	[ -x "$t" ] || abort "missing: $t (run make)"
done

# --- the binaries of this build
check_version xdpbrd "$XDPBRD" --version
check_version xdpbrd "$XDPBRD" -V
check_version xdpbr "$XDPBR" -V
check_version xdpbr "$XDPBR" -Version
check_version xdpbr "$XDPBR" --version
rev=$(rev_of "$("$XDPBR" -V 2>&1)")
if [ -n "$rev" ] && [ "$rev" = "$(rev_of "$("$XDPBRD" -V 2>&1)")" ]; then
	pass "xdpbrd and xdpbr name the same revision ($rev)"
else
	fail "xdpbrd and xdpbr name the same revision" "$("$XDPBR" -V 2>&1)" \
		"$("$XDPBRD" -V 2>&1)"
fi
if [ "$(git -C "$XT_ROOT" rev-parse --show-toplevel 2>/dev/null)" = "$XT_ROOT" ]; then
	check "the revision ($rev) is a commit of this checkout" \
		git -C "$XT_ROOT" rev-parse -q --verify "${rev%-dirty}^{commit}"
else
	check_eq "a checkout outside git: revision unknown" unknown "$rev"
fi

# --- a tree outside git: revision "unknown", the same version
if [ "$(git -C "$XT_ROOT" rev-parse --show-toplevel 2>/dev/null)" = "$XT_ROOT" ]; then
	tree=$XT_TMP/tree
	mkdir -p "$tree"
	(cd "$XT_ROOT" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -t "$tree" 2>/dev/null)
	if out=$(make -C "$tree" BUILD="$tree/b" -j2 "$tree/b/xdpbr" 2>&1); then
		check_eq "built outside git: xdpbr -V says git unknown, the same version" \
			"xdpbr $(cut -d' ' -f2 <<<"$("$XDPBR" -V)") (git unknown)" \
			"$("$tree/b/xdpbr" -V 2>&1)"
	else
		fail "make xdpbr in a copy of the tree without .git" "$(tail -n 20 <<<"$out")"
	fi
fi

# --- libraries missing: pkg-config finds none of them
BUILD_DIR=$XT_TMP/nolibs
make_fails "no libraries" libbpf-dev libmnl-dev libjson-c-dev libsystemd-dev \
	libmicrohttpd-dev libinih-dev libcap-ng-dev -- \
	BUILD="$BUILD_DIR" PKG_CONFIG_LIBDIR="$XT_TMP/empty-pkgconfig"

# --- libbpf's headers missing: clang sees a system root with the kernel's
# UAPI headers only (what a machine without libbpf-dev has)
root=$XT_TMP/sysroot
mkdir -p "$root/usr/include"
ln -s /usr/include/linux "$root/usr/include/linux"
ln -s /usr/include/asm-generic "$root/usr/include/asm-generic"
printf '#!/bin/sh\nexec clang --sysroot=%s "$@"\n' "$root" >"$XT_TMP/clang"
chmod +x "$XT_TMP/clang"
BUILD_DIR=$XT_TMP/noheaders
make_fails "no bpf/bpf_helpers.h" "bpf/bpf_helpers.h" libbpf-dev -- \
	BUILD="$BUILD_DIR" CLANG="$XT_TMP/clang"

# --- and nothing is missing here: the check says nothing
check_eq "tools/checkdeps.sh test: nothing missing on this machine" "" \
	"$(MULTIARCH=$(gcc -print-multiarch) "$XT_ROOT/tools/checkdeps.sh" test 2>&1)"

finish

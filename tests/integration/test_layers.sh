#!/usr/bin/env bash
# datapaths: auto
# lib/'s layer order (doc/architecture.md, "lib/ in layers"): every
# #include of lib/ goes down it (tools/layers.sh), and the check fails,
# naming the file and the include, on a copy of lib/ with an include that
# goes up the order, one of a daemon header, a file the order does not
# place, and an order naming a file that is not there.
#
# Needs no root: it reads the tree and copies of it.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

LAYERS=$XT_ROOT/tools/layers.sh
COPY=$XT_TMP/tree

check_eq "tools/layers.sh: lib/ includes go down the order" "" "$("$LAYERS" "$XT_ROOT" 2>&1)"

# broken WHAT EDIT...: on a fresh copy of lib/, include/ and the doc, with
# the shell commands EDIT run in it, layers.sh fails and prints WHAT.
broken()
{
	local what=$1 out rc
	shift
	if ! { rm -rf "$COPY" && mkdir -p "$COPY/doc" &&
	       cp -r "$XT_ROOT/lib" "$XT_ROOT/include" "$COPY/" &&
	       cp "$XT_ROOT/doc/architecture.md" "$COPY/doc/"; }; then
		abort "copying the tree"
	fi
	(cd "$COPY" && eval "$*") || abort "editing the copy: $*"
	out=$("$LAYERS" "$COPY" 2>&1)
	rc=$?
	if [ "$rc" -eq 1 ] && grep -qF "$what" <<<"$out"; then
		pass "layers.sh fails on: $what"
	else
		fail "layers.sh fails on: $what" "exit status $rc, output:" "${out:-(none)}"
	fi
}

broken 'lib/ports.c:3: includes "bridge.h" (bridge.h), which comes after ports' \
	"sed -i '3i #include \"bridge.h\"' lib/ports.c"
broken 'lib/hook.c:15: includes "load.h" (load), which comes after hook' \
	"sed -i '15i #include \"load.h\"' lib/hook.c"
broken 'lib/util.c:5: includes "config.h", which is neither in include/ nor' \
	"sed -i '5i #include \"config.h\"' lib/util.c"
broken 'lib/fresh.c: not in the layer order' "touch lib/fresh.c"
broken 'layer order names gone, which is no file of lib/' \
	"sed -i 's/^    ports ctl /    ports ctl gone /' doc/architecture.md"

finish

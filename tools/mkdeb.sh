#!/usr/bin/env bash
# mkdeb.sh [OUTDIR [GIT_REV]] - build the Debian package of xdpbr (make deb).
#
# dpkg-buildpackage writes its results into the parent directory of the
# tree and scratch files into debian/, so it runs on a copy of the tree in
# a temporary directory: this checkout stays as it was (git status clean).
# The copy holds the files git knows and the untracked ones it does not
# ignore (what a commit of the working tree would hold); outside git, the
# whole tree but its build directories. The .deb, .buildinfo and .changes
# go to OUTDIR (default build/deb); the last line printed is the .deb's
# path. GIT_REV: the revision xdpbrd --version names (default unknown).
#
# Needs the Build-Depends of debian/control (make deps installs them) and
# debhelper; no root (Rules-Requires-Root: no).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-build/deb}
rev=${2:-unknown}
mkdir -p "$out"
out=$(cd "$out" && pwd)

tmp=$(mktemp -d /tmp/xdpbr-deb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/xdpbr

# copy_tree DEST: the source tree of $top, without build outputs.
copy_tree()
{
	mkdir -p "$1"
	if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
		(cd "$top" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do
				[ -e "$f" ] && printf '%s\0' "$f"
			done | xargs -0 -r cp -a --parents -t "$1")
	else
		tar -C "$top" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$1" -xf -
	fi
}

copy_tree "$tree"
echo "mkdeb: building in $tree (dpkg-buildpackage -us -uc -b)"
if ! (cd "$tree" && XDPBR_GIT_REV=$rev dpkg-buildpackage -us -uc -b -J2) \
	>"$tmp/build.log" 2>&1; then
	tail -n 40 "$tmp/build.log" >&2
	echo "mkdeb: dpkg-buildpackage failed (the last 40 lines of its output above)" >&2
	exit 1
fi
debs=("$tmp"/*.deb)
[ -e "${debs[0]}" ] || { echo "mkdeb: dpkg-buildpackage made no .deb" >&2; exit 1; }
mv -f "$tmp"/*.deb "$tmp"/*.buildinfo "$tmp"/*.changes "$out"/
for d in "${debs[@]}"; do
	echo "$out/$(basename "$d")"
done

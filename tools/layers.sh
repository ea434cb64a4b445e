#!/usr/bin/env bash
#
# layers.sh - checks every #include "..." in lib/ against lib/'s layer
# order, written in doc/architecture.md between the lines
# "<!-- lib-layers" and "<!-- /lib-layers -->": module names, lowest
# first ("# ..." a comment). A file may include include/'s headers, its
# own header and those of the modules before it; a name with an extension
# (bridge.h) places that one file apart from its module.
#
# usage: tools/layers.sh [ROOT]   ROOT: the tree (default: this one)
#
# One line per include that goes against the order, per file the order
# does not place and per name it gives that no file has; exit status 1 if
# any, 0 (silent) if none.

set -u
ROOT=${1:-$(dirname "$0")/..}
DOC=$ROOT/doc/architecture.md

declare -A POS=()
n=0
while read -r line; do
	for name in ${line%%#*}; do
		POS[$name]=$n
		n=$((n + 1))
	done
done < <(sed -n '/^<!-- lib-layers/,/^<!-- \/lib-layers -->/{/^<!--/d;p}' "$DOC")
if [ "$n" -eq 0 ]; then
	echo "$DOC: no layer order (the lines between <!-- lib-layers and <!-- /lib-layers -->)"
	exit 1
fi

# key FILE: KEY is the name the order places FILE (a basename) under, or
# empty (no subshell: it runs for every include).
key()
{
	KEY=
	if [ -n "${POS[$1]+x}" ]; then
		KEY=$1
	elif [ -n "${POS[${1%.*}]+x}" ]; then
		KEY=${1%.*}
	fi
}

bad=0
declare -A USED=()
for f in "$ROOT"/lib/*.[ch]; do
	file=${f##*/}
	key "$file"
	k=$KEY
	if [ -z "$k" ]; then
		echo "lib/$file: not in the layer order of doc/architecture.md"
		bad=1
		continue
	fi
	USED[$k]=1
	while IFS=: read -r lineno inc; do
		[ -e "$ROOT/include/$inc" ] && continue
		key "$inc"
		ik=$KEY
		if [ -z "$ik" ]; then
			echo "lib/$file:$lineno: includes \"$inc\", which is neither in include/ nor in lib/'s layer order"
			bad=1
		elif [ "${POS[$ik]}" -gt "${POS[$k]}" ]; then
			echo "lib/$file:$lineno: includes \"$inc\" ($ik), which comes after $k in lib/'s layer order"
			bad=1
		fi
	done < <(grep -n '^#[[:space:]]*include[[:space:]]*"' "$f" |
		 sed 's/^\([0-9]*\):#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1:\2/')
done
for name in "${!POS[@]}"; do
	case $name in
	*.skel.h) ;;		# generated into the build directory
	*) [ -n "${USED[$name]+x}" ] || { echo "doc/architecture.md: layer order names $name, which is no file of lib/"; bad=1; } ;;
	esac
done
exit "$bad"

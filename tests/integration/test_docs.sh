#!/usr/bin/env bash
# datapaths: auto
# The documentation is true to the tree (the convention: doc/writing.md):
#
#   - every code block of README.md and doc/*.md marked runnable
#     (`<!-- runnable[: STEPS] -->` on the line before it) runs, each
#     alone in a sandbox of its own (tests/integration/docs_sandbox.sh: a
#     network namespace, private /run/netns and /tmp, the ports and daemons
#     its steps ask for), and every command in it exits 0; configuration
#     blocks pass `xdpbrd -n -c`; nothing is left behind;
#   - every relative link of the README, the handbook and the other
#     Markdown files of the tree resolves, #anchors included (GitHub's
#     heading ids);
#   - the layout in doc/architecture.md names every source file, and no
#     file that is not there.
#
# usage: tests/integration/test_docs.sh [FILE.md...]   only these files' blocks
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

SANDBOX=$XT_ROOT/tests/integration/docs_sandbox.sh
BLOCK_TIMEOUT=120	# a block that takes longer hangs
DOCS_JOBS=${DOCS_JOBS:-2}	# blocks run at the same time, each in its own sandbox
STEP_WORDS=" ports daemon background config "

xt_require
cd "$XT_ROOT" || abort "cd $XT_ROOT"
if [ $# -gt 0 ]; then
	DOCS=("$@")
else
	DOCS=(README.md doc/*.md)
fi
if git rev-parse --show-toplevel >/dev/null 2>&1; then
	mapfile -t MARKDOWN < <(git ls-files '*.md')
else
	mapfile -t MARKDOWN < <(find . -name '*.md' -not -path './build*' | sed 's|^\./||')
fi

# ---------------------------------------------------------------- links

# code_free FILE: FILE's lines outside code blocks, as "LINE<TAB>TEXT"
# (indented blocks after a blank line, fenced blocks).
code_free()
{
	awk '
		/^```/ { fence = !fence; next }
		fence { next }
		/^(    |\t)/ && (prev_blank || in_code) { in_code = 1; next }
		{ in_code = 0; prev_blank = ($0 ~ /^[ \t]*$/); print NR "\t" $0 }
	' "$1"
}

# anchors FILE: the ids GitHub gives FILE's headings: lower case, without
# punctuation, spaces as '-', "-1", "-2"... for repeats.
anchors()
{
	code_free "$1" | cut -f2- | LC_ALL=C awk '
		/^#+ / {
			s = tolower($0)
			sub(/^#+ +/, "", s)
			gsub(/[^a-z0-9 _-]/, "", s)
			gsub(/ /, "-", s)
			if (s in seen) { print s "-" seen[s]; seen[s]++ } else { print s; seen[s] = 1 }
		}'
}

# links FILE: FILE's link targets, as "LINE<TAB>TARGET".
links()
{
	code_free "$1" | awk -F'\t' '{
		line = $2
		while (match(line, /\]\([^) ]+\)/)) {
			print $1 "\t" substr(line, RSTART + 2, RLENGTH - 3)
			line = substr(line, RSTART + RLENGTH)
		}
	}'
}

# link_ok FILE TARGET: TARGET, relative to FILE, is there (and its anchor).
link_ok()
{
	local file=$1 target=$2 path anchor dest

	case $target in
	http://* | https://* | mailto:*) return 0 ;;
	esac
	path=${target%%#*}
	anchor=
	[[ $target == *#* ]] && anchor=${target#*#}
	if [ -z "$path" ]; then
		dest=$file
	else
		dest=$(dirname "$file")/$path
	fi
	[ -e "$dest" ] || { echo "no file $dest"; return 1; }
	[ -z "$anchor" ] && return 0
	[[ $dest == *.md ]] || { echo "an anchor into $dest, not Markdown"; return 1; }
	anchors "$dest" | grep -qxF -- "$anchor" ||
		{ echo "no heading #$anchor in $dest (it has: $(anchors "$dest" | tr '\n' ' '))"; return 1; }
}

bad_links=
nlinks=0
for f in "${MARKDOWN[@]}"; do
	while IFS=$'\t' read -r line target; do
		nlinks=$((nlinks + 1))
		why=$(link_ok "$f" "$target") || bad_links+="$f:$line: ($target) $why"$'\n'
	done < <(links "$f")
done
check_eq "the $nlinks links of the ${#MARKDOWN[@]} Markdown files resolve" "" "$bad_links"

# ---------------------------------------------------------------- layout

# The layout section of doc/architecture.md.
layout=$(sed -n '/^## Layout$/,/^## /p' doc/architecture.md)
[ -n "$layout" ] || fail "doc/architecture.md has a '## Layout' section"

# Each source file is named there: its name, or a tool by its command's.
unnamed=
while IFS= read -r f; do
	base=${f##*/}
	case $f in
	lib/*.h | daemon/*.h | cli/*.h) continue ;;	# a .c's interface
	tools/completion/*) base=completion/ ;;
	esac
	grep -qF -- "$base" <<<"$layout" && continue
	grep -qw -- "${base%.*}" <<<"$layout" && continue
	unnamed+=" $f"
done < <(git ls-files bpf include lib daemon cli tools 2>/dev/null ||
	find bpf include lib daemon cli tools -type f)
check_eq "doc/architecture.md's layout names every source file" "" "$unnamed"

# Each file named there exists.
all_files=$(git ls-files 2>/dev/null || find . -type f -not -path './build*')
gone=
while IFS= read -r name; do
	grep -qE "(^|/)${name//./\\.}\$" <<<"$all_files" || gone+=" $name"
done < <(grep -oE '[A-Za-z0-9_.-]+\.(c|h|sh)\b' <<<"$layout" | sort -u)
check_eq "doc/architecture.md's layout names no file that is not there" "" "$gone"

# ---------------------------------------------------------------- blocks

# extract FILE DIR: FILE's runnable blocks into DIR/N/ (block.sh, steps,
# where: FILE and the block's first line); a marker not followed by a code
# block goes to DIR/errors.
extract()
{
	awk -v dir="$2" -v file="$1" -v n="$(find "$2" -mindepth 1 -maxdepth 1 -type d | wc -l)" '
		function begin(start) {
			n++; d = dir "/" n; nl = 0; first = start
			system("mkdir -p " d)
			printf "%s", steps > (d "/steps"); close(d "/steps")
		}
		function end(   i) {
			while (nl > 0 && body[nl] ~ /^[ \t]*$/) nl--
			for (i = 1; i <= nl; i++) print body[i] > (d "/block.sh")
			close(d "/block.sh")
			print file "\t" first > (d "/where"); close(d "/where")
			state = 0
		}
		function marker(   s) {
			s = $0
			sub(/^<!-- runnable:? */, "", s); sub(/ *-->$/, "", s)
			gsub(/ *; */, "\n", s)
			steps = (s == "" ? "" : s "\n")
			mline = FNR; state = 1
		}
		state == 3 { if (/^```/) end(); else body[++nl] = $0; next }
		state == 2 {
			if (/^    / || /^[ \t]*$/) { s = $0; sub(/^    /, "", s); body[++nl] = s; next }
			end()
		}
		state == 1 {
			if (/^[ \t]*$/) next
			if (/^```/) { begin(FNR + 1); state = 3; next }
			if (/^    /) { begin(FNR); state = 2; s = $0; sub(/^    /, "", s); body[++nl] = s; next }
			print file ":" mline ": a runnable marker not followed by a code block" >> (dir "/errors")
			state = 0
		}
		/^```/ { fence = !fence; next }
		!fence && /^<!-- runnable(:.*)? -->$/ { marker(); next }
		!fence && /^<!-- *runnable/ {
			print file ":" FNR ": a malformed runnable marker: " $0 >> (dir "/errors")
		}
		END {
			if (state == 2) end()
			if (state == 3) print file ":" first ": a runnable block without its closing fence" >> (dir "/errors")
			if (state == 1) print file ":" mline ": a runnable marker not followed by a code block" >> (dir "/errors")
		}
	' "$1"
}

# steps_ok DIR: the block's steps are known words; says which is not.
steps_ok()
{
	local step

	while IFS= read -r step; do
		[[ $STEP_WORDS == *" ${step%% *} "* ]] || { echo "unknown step '$step'"; return 1; }
	done <"$1/steps"
}

# has_step DIR WORD
has_step()
{
	grep -q "^$2\\b" "$1/steps"
}

# sandbox_gone NS: the sandbox namespace NS and what its block pinned for
# it removed (while the namespace lives, its inode can't name another's
# pins).
sandbox_gone()
{
	local ino

	ino=$(stat -L -c %i "/run/netns/$1" 2>/dev/null)
	ip netns pids "$1" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	if [ -n "$ino" ]; then
		rm -rf "/sys/fs/bpf/xdpbr-netns/$ino" "/run/xdpbr/netns-$ino"
	fi
	ip netns del "$1" 2>/dev/null
}

# workdir DIR: DIR made a checkout whose build/ is the build under test.
workdir()
{
	local e

	mkdir -p "$1"
	for e in "$XT_ROOT"/* "$XT_ROOT"/.[!.]*; do
		[ -e "$e" ] || continue
		case ${e##*/} in
		build | .git) continue ;;
		esac
		ln -s "$e" "$1/${e##*/}"
	done
	ln -s "$XT_BUILD" "$1/build"
}

# run_config DIR NAME: a configuration block passes xdpbrd -n -c.
run_config()
{
	local conf=$1/block.conf out

	cp "$1/block.sh" "$conf"
	out=$("$XDPBRD" -n -c "$conf" 2>&1)
	check_eq "$2" "$conf: configuration OK" "$out"
}

# sandbox_job K: block K run in a fresh sandbox (namespace xt$ID-dK), its
# exit status in DIR/rc, its output in DIR/out and what it left behind in
# DIR/left; the sandbox is gone afterwards.
sandbox_job()
{
	local dir=$blocks/$1 ns=xt$ID-d$1 file line0 ino

	IFS=$'\t' read -r file line0 <"$dir/where"
	workdir "$dir/work"
	cp "$dir/block.sh" "$dir/steps" "$dir/work/"
	if ! ip netns add "$ns" 2>"$dir/out"; then
		echo 1 >"$dir/rc"
		return
	fi
	ino=$(stat -L -c %i "/run/netns/$ns")
	(cd "$dir/work" && DOCS_FILE=$file DOCS_LINE0=$line0 \
		timeout -k 5 "$BLOCK_TIMEOUT" ip netns exec "$ns" bash "$SANDBOX" sandbox) >"$dir/out" 2>&1
	echo $? >"$dir/rc"
	{
		ip netns pids "$ns" | sed 's/^/process /'
		ls -d "/sys/fs/bpf/xdpbr-netns/$ino" "/run/xdpbr/netns-$ino" 2>/dev/null
	} >"$dir/left"
	sandbox_gone "$ns"
}

# sandbox_verdict K NAME: what sandbox_job K found, as a check.
sandbox_verdict()
{
	local dir=$blocks/$1 name=$2 rc

	rc=$(cat "$dir/rc" 2>/dev/null)
	if [ "$rc" != 0 ]; then
		fail "$name" "exit status ${rc:-none}$( [ "$rc" = 124 ] && echo " (timed out after $BLOCK_TIMEOUT s)")" \
			"the block:" "$(sed 's/^/  /' "$dir/block.sh")" "what it did:" "$(cat "$dir/out")"
	elif [ -s "$dir/left" ]; then
		fail "$name" "it left behind:" "$(cat "$dir/left")" "what it did:" "$(cat "$dir/out")"
	else
		pass "$name"
	fi
}

# Outside /tmp, which the sandbox covers with a tmpfs of its own (bash
# makes a relative command path absolute from $PWD: a covered one fails).
blocks=/run/xt$ID-docs
XT_CLEANUP_CMDS+=("rm -rf $blocks")
mkdir -p "$blocks"
for f in "${DOCS[@]}"; do
	extract "$f" "$blocks"
done
check_eq "every runnable marker is followed by a code block" "" "$(cat "$blocks/errors" 2>/dev/null)"
nblocks=$(find "$blocks" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$nblocks" -gt 0 ] || fail "the documentation has runnable blocks" "none in ${DOCS[*]}"

# The sandboxes first, DOCS_JOBS at a time (each mostly waits for the
# verifier or a ping), then every verdict in the documents' order.
for ((k = 1; k <= nblocks; k++)); do
	if ! steps_ok "$blocks/$k" >/dev/null || has_step "$blocks/$k" config; then
		continue
	fi
	while [ "$(jobs -rp | wc -l)" -ge "$DOCS_JOBS" ]; do
		wait -n
	done
	XT_CLEANUP_CMDS+=("sandbox_gone xt$ID-d$k")
	sandbox_job "$k" &
	XT_PIDS+=("$!")
done
wait

for ((k = 1; k <= nblocks; k++)); do
	dir=$blocks/$k
	IFS=$'\t' read -r file line0 <"$dir/where"
	steps=$(paste -sd';' "$dir/steps")
	name="$file:$line0 runs${steps:+ ($steps)}"
	if ! why=$(steps_ok "$dir"); then
		fail "$name" "$why"
	elif has_step "$dir" config; then
		run_config "$dir" "$file:$line0 passes xdpbrd -n -c"
	else
		sandbox_verdict "$k" "$name"
	fi
done

finish

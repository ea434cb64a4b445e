#!/usr/bin/env bash
# datapaths: auto
# Bash completion of xdpbr and xdpbrd (tools/completion/xdpbr): sourced,
# it registers both commands, and the completion function, driven the way
# bash drives it (COMP_WORDS, COMP_CWORD, then COMPREPLY), offers objects,
# commands, keywords, their values, interface and bridge names and the
# daemon's options.
#
# The completion reads its words from the CLI's usage; this test finds the
# CLI's objects and commands another way, through the parser itself (every
# one-letter abbreviation names an object, or several, or none), so an
# object or a command the completion misses fails here; and every keyword
# the completion offers must be one the parser takes.
#
# Needs root: the bridge names are completed from /sys/fs/bpf/xdpbr,
# which only root reads, and the test makes a bridge there (xdpbr bridge
# add) so that the list it checks is never empty.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

xt_require
COMPLETION=${COMPLETION:-$XT_ROOT/tools/completion/xdpbr}
for t in "$XDPBRD" "$XDPBR" "$COMPLETION"; do
	[ -e "$t" ] || abort "missing: $t (run make)"
done

# shellcheck source=../../tools/completion/xdpbr
. "$COMPLETION"

# comp WORD...: what completing the last WORD offers, sorted, one a line.
comp()
{
	local f=_xdpbr
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	[[ $1 == *xdpbrd ]] && f=_xdpbrd
	$f "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]:-}"
	[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort
}

# words WORD...: the WORDs sorted, one a line.
words()
{
	[ $# -eq 0 ] || printf '%s\n' "$@" | sort
}

# check_offers NAME WANT WORD...: completing WORD... offers exactly WANT
# (a sorted list, one a line).
check_offers()
{
	local name=$1 want=$2
	shift 2
	check_eq "$name" "$want" "$(comp "$@")" "completing: $*"
}

# check_includes NAME WANTED WORD...: completing WORD... offers at least
# the WANTED words (space-separated).
check_includes()
{
	local name=$1 w got missing=
	local -a wanted
	read -r -a wanted <<<"$2"
	shift 2
	got=$(comp "$@")
	for w in "${wanted[@]}"; do
		grep -qxF -- "$w" <<<"$got" || missing+=" $w"
	done
	if [ -z "$missing" ]; then
		pass "$name"
	else
		fail "$name" "completing: $*" "missing:$missing" "offered: $(tr '\n' ' ' <<<"$got")"
	fi
}

# check_listing NAME LIST WORD...: completing WORD... offers what the
# function LIST prints (sorted), read before and after; other runs add and
# remove interfaces and bridges meanwhile, so until two reads agree. An
# empty LIST is a failure: nothing offered would equal it.
check_listing()
{
	local name=$1 list=$2 want got
	shift 2
	for _ in 1 2 3 4 5; do
		want=$($list)
		got=$(comp "$@")
		[ "$want" = "$($list)" ] && break
	done
	if [ -z "$want" ]; then
		fail "$name" "$list lists nothing: nothing to compare the completion with"
		return 1
	fi
	check_eq "$name" "$want" "$got" "completing: $*"
}

# shellcheck disable=SC2317 # called through check_listing
ifaces_now()
{
	local d
	for d in /sys/class/net/*; do
		[ -e "$d" ] && basename "$d"
	done | sort
}

# shellcheck disable=SC2317 # called through check_listing
bridges_now()
{
	local d
	for d in /sys/fs/bpf/xdpbr/*/; do
		[ -d "$d" ] && basename "$d"
	done | sort
}

# --- registered for both commands
check_eq "complete -p xdpbr" "complete -F _xdpbr xdpbr" "$(complete -p xdpbr 2>&1)"
check_eq "complete -p xdpbrd" "complete -F _xdpbrd xdpbrd" "$(complete -p xdpbrd 2>&1)"

# --- the parser's objects, found through its abbreviations: 'xdpbr P help'
# prints the usage of the one object P abbreviates, or names the objects
# it could be ("ambiguous object 'x' (a, b)"). Prefixes of one letter, and
# of two and three letters under those that name one object: an object
# added later may take a longer prefix only (stp: "s" and "st" stay stats).
probe_object()
{
	local out
	out=$(timeout 5 "$XDPBR" "$1" help 2>&1)
	sed -n "s/.*ambiguous object '$1' (\(.*\)).*/\1/p" <<<"$out" | tr -d ',' | tr ' ' '\n'
	sed -n '1s/^Usage: xdpbr \[OPTIONS\] \([a-z][a-z_]*\) .*/\1/p' <<<"$out"
}
parser_objects()
{
	local p l found prefixes=({a..z}) next len
	for len in 1 2 3; do
		next=()
		for p in "${prefixes[@]}"; do
			found=$(probe_object "$p" | grep -v '^$')
			[ -n "$found" ] || continue
			echo "$found"
			[ "$(wc -l <<<"$found")" = 1 ] || continue
			for l in {a..z}; do
				next+=("$p$l")
			done
		done
		prefixes=("${next[@]}")
	done | sort -u
}
objects=$(parser_objects)
if [ "$(wc -l <<<"$objects")" -ge 6 ]; then
	pass "the parser's objects, found by abbreviation: $(tr '\n' ' ' <<<"$objects")"
else
	fail "the parser's objects, found by abbreviation" "found: $objects"
fi
# shellcheck disable=SC2086 # the objects, one word each
check_offers "xdpbr <TAB>: the parser's objects and help" "$(words $objects help)" \
	"$XDPBR" ""
check_offers "xdpbr f<TAB>: fdb" "fdb" "$XDPBR" "f"
# shellcheck disable=SC2086
check_offers "xdpbr -j <TAB>: options don't hide the objects" "$(words $objects help)" \
	"$XDPBR" -j ""
check_includes "xdpbr -<TAB>: the options" "-json -pretty -bridge -rate -Version -help" \
	"$XDPBR" "-"

# parser_verbs OBJECT: the commands the parser takes for OBJECT, by their
# names in the usage ('xdpbr fdb l help' is the usage of 'fdb show').
parser_verbs()
{
	local l out
	for l in {a..z}; do
		out=$(timeout 5 "$XDPBR" -b xt-none "$1" "$l" help 2>&1)
		sed -n "s/.*ambiguous command '$l' for '$1' (\(.*\)).*/\1/p" <<<"$out" |
			tr -d ',' | tr ' ' '\n'
		grep -q "^Usage: xdpbr \[OPTIONS\] $1 " <<<"$out" || continue
		# one command's usage: its first line names it
		[ "$(grep -c "^ *\(Usage: \)\{0,1\}xdpbr \[OPTIONS\]" <<<"$out")" -eq 1 ] || continue
		sed -n "1s/^Usage: xdpbr \[OPTIONS\] $1 \[\{0,1\} *\([a-z][a-z_]*\).*/\1/p" <<<"$out"
	done | grep -v '^$' | sort -u
}

# parser_takes OBJECT VERB KEYWORD: the parser knows KEYWORD in OBJECT VERB.
# Two words follow it that nothing takes ("!x" is no value, MAC, bridge name
# or storm class the parser accepts), so the parse always fails and the
# command never runs (bridge del NAME would delete NAME): the complaint
# must be about them, not about KEYWORD.
parser_takes()
{
	local out rc
	out=$(timeout 5 "$XDPBR" -b xt-none "$1" "$2" "$3" '!x' '!x' 2>&1)
	rc=$?
	# 2: the parser refused the command line (it ran nothing)
	[ $rc -eq 2 ] && [ -n "$out" ] || return 1
	! grep -qF -e "argument '$3'" -e "'$3' is neither" -e "keyword '$3'" <<<"$out"
}

for obj in $objects; do
	pverbs=$(parser_verbs "$obj")
	got=$(comp "$XDPBR" "$obj" "")
	bad=
	for v in $pverbs help; do
		grep -qxF "$v" <<<"$got" || bad+=" $v"
	done
	if [ -n "$pverbs" ] && [ -z "$bad" ]; then
		pass "xdpbr $obj <TAB> offers its commands: $(tr '\n' ' ' <<<"$pverbs")"
	else
		fail "xdpbr $obj <TAB> offers its commands" "the parser's: $pverbs" \
			"missing:${bad:- (none found)}" "offered: $(tr '\n' ' ' <<<"$got")"
	fi
	for v in $pverbs; do
		bad=
		kws=$(comp "$XDPBR" "$obj" "$v" "")
		for k in $kws; do
			# a bridge name (bridge del NAME) is no keyword
			[ ! -d "/sys/fs/bpf/xdpbr/$k" ] || continue
			parser_takes "$obj" "$v" "$k" || bad+=" $k"
		done
		if [ -z "$bad" ]; then
			pass "xdpbr $obj $v <TAB>: every keyword offered is the parser's ($(tr '\n' ' ' <<<"$kws"))"
		else
			fail "xdpbr $obj $v <TAB>: every keyword offered is the parser's" \
				"not taken by the parser:$bad"
		fi
	done
done

# --- the cases a person meets
check_offers "xdpbr fdb <TAB>: its commands" "$(words add del flush help show)" \
	"$XDPBR" fdb ""
check_listing "xdpbr link set dev <TAB>: the interfaces (/sys/class/net)" ifaces_now \
	"$XDPBR" link set dev ""
check_includes "xdpbr link set dev l<TAB>: lo" "lo" "$XDPBR" link set dev l
check_includes "xdpbr l set dev lo <TAB> (abbreviated): link set's keywords" \
	"learning flood max_learned storm" "$XDPBR" l set dev lo ""
check_offers "xdpbr link set dev lo learning <TAB>: on, off" "$(words on off)" \
	"$XDPBR" link set dev lo learning ""
check_offers "xdpbr link add dev lo mode <TAB>: the modes" "$(words auto generic native)" \
	"$XDPBR" link add dev lo mode ""
check_includes "xdpbr link set dev lo storm <TAB>: the storm classes" \
	"bcast mcast unknown" "$XDPBR" link set dev lo storm ""
check_offers "xdpbr vlan add dev lo vid 10 <TAB>: the flags" "$(words pvid untagged)" \
	"$XDPBR" vlan add dev lo vid 10 ""
check_offers "xdpbr fdb show dynamic <TAB>: the keywords not given" \
	"$(words dev static vlan)" "$XDPBR" fdb show dynamic ""
check_includes "xdpbr stats <TAB>: show, and the keywords of stats show" "show dev rate" \
	"$XDPBR" stats ""

# bridge names: the directories of /sys/fs/bpf/xdpbr, one of them this
# test's bridge (daemonless; lib.sh's cleanup removes its pins)
check "xdpbr bridge add $BR (a bridge to complete)" "$XDPBR" bridge add "$BR"
check_includes "xdpbr -b <TAB>: $BR among the bridges" "$BR" "$XDPBR" -b ""
check_listing "xdpbr -b <TAB>: the bridges (/sys/fs/bpf/xdpbr/*)" bridges_now "$XDPBR" -b ""
check_listing "xdpbr link add dev lo master <TAB>: the bridges" bridges_now \
	"$XDPBR" link add dev lo master ""
check_listing "xdpbrd <TAB>: the bridges" bridges_now "$XDPBRD" ""
check "xdpbr bridge del $BR" "$XDPBR" bridge del "$BR"

# --- xdpbrd: its options, each one getopt takes
longs=$(timeout 5 "$XDPBRD" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u)
check_offers "xdpbrd --<TAB>: the long options of xdpbrd --help" "$longs" "$XDPBRD" "--"
check_includes "xdpbrd --<TAB>: --config, --check, --version" "--config --check --version" \
	"$XDPBRD" "--"
bad=
for o in $(comp "$XDPBRD" "-"); do
	timeout 5 "$XDPBRD" "$o" x --help 2>&1 | grep -q "unrecognized option\|invalid option" &&
		bad+=" $o"
done
check_eq "xdpbrd -<TAB>: every option offered is one xdpbrd takes" "" "$bad"
check_offers "xdpbrd --mode <TAB>" "$(words auto generic native)" "$XDPBRD" --mode ""
check_offers "xdpbrd -d <TAB>" "$(words auto tc xdp)" "$XDPBRD" -d ""
check_offers "xdpbrd -H <TAB>" "$(words off on)" "$XDPBRD" -H ""
check_offers "xdpbrd -c FILE: file names" "$XT_ROOT/etc/xdpbrd.conf" \
	"$XDPBRD" -c "$XT_ROOT/etc/xdpbrd.c"
check_listing "xdpbrd -c F br0 <TAB>: the interfaces" ifaces_now "$XDPBRD" -c f br0 ""

finish

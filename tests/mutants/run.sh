#!/usr/bin/env bash
#
# run.sh - mutation checks (`make mutants`): proof that the suites can fail.
# Each mutant of tests/mutants/list is a deliberate bug: its edits are
# applied to a scratch copy of this tree (the files git tracks or would
# track, as they are in the work tree; the tree itself is never touched),
# the copy is built (make check-bins) and the suites the mutant names run
# in it (tests/run.sh WORD...), one mutant after the other. Per mutant one
# line: "killed" with the suites and checks that failed, or "SURVIVED".
#
# usage: tests/mutants/run.sh [--apply-only] [NAME...]
#   NAME...       only these mutants
#   --apply-only  only check that each mutant still applies (seconds; no
#                 build, no suite)
#
# Exit status 1 if a mutant survived, no longer applies (its function or
# text is gone: update the list) or does not build; 0 when every mutant
# was killed. Needs what the suites need (root for the datapath and
# integration ones). The logs stay in $MUTANTS_LOGS (build/mutants/ by
# default): NAME.log per mutant, and summary.txt.

set -u
set -o pipefail

cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
LIST=${MUTANTS_LIST:-tests/mutants/list}
LOG_DIR=${MUTANTS_LOGS:-build/mutants}
EDIT=$TOP/tests/mutants/edit.pl

NAMES=()
declare -A SUITES=() EDITS=()

# The list, read into NAMES, SUITES[NAME] and EDITS[NAME] (one edit a
# line, its words shell-quoted).
load_list()
{
	local line cur="" words
	while IFS= read -r line; do
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		eval "words=($line)" || { echo "$LIST: bad line: $line" >&2; return 1; }
		case ${words[0]} in
		mutant)
			cur=${words[1]}
			NAMES+=("$cur")
			SUITES[$cur]=${words[*]:2}
			EDITS[$cur]=""
			;;
		edit)
			if [ -z "$cur" ] || [ ${#words[@]} -ne 4 ]; then
				echo "$LIST: bad edit: $line" >&2
				return 1
			fi
			EDITS[$cur]+="$(printf '%q ' "${words[@]:1}")"$'\n'
			;;
		*)
			echo "$LIST: neither mutant nor edit: $line" >&2
			return 1
			;;
		esac
	done <"$LIST"
}

# scratch_copy DIR: the tree's files (tracked, and untracked ones not
# ignored), as they are now, copied into DIR.
scratch_copy()
{
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar -c --null -T - -f - | tar -x -C "$1" -f -
}

# apply NAME DIR: NAME's edits in DIR. 1 when one no longer applies.
apply()
{
	local line args
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		eval "args=($line)"
		(cd "$2" && perl "$EDIT" "${args[@]}") || return 1
	done <<<"${EDITS[$1]}"
}

# failed_checks LOGDIR: per failed suite (its log kept in LOGDIR), its
# name and the first SHOW_CHECKS checks that failed (FAIL lines, cmocka's
# [  FAILED  ]), each cut to 100 characters, or a note when the log names
# none (a timeout, a crash).
SHOW_CHECKS=4
failed_checks()
{
	local log checks n
	for log in "$1"/*.log; do
		[ -e "$log" ] || continue
		checks=$(sed -n 's/^FAIL - //p; s/^\[  FAILED  \] \([a-z_0-9]*\)$/\1/p' "$log")
		n=$(grep -c . <<<"$checks")
		echo "$(basename "$log" .log): $n failed"
		[ -n "$checks" ] || { echo "  (no check named: a timeout or a crash, see the log)"; continue; }
		head -n "$SHOW_CHECKS" <<<"$checks" | cut -c1-100 | sed 's/^/  /'
		[ "$n" -le "$SHOW_CHECKS" ] || echo "  ... and $((n - SHOW_CHECKS)) more"
	done
}

# run_mutant NAME: builds and tests NAME in a scratch copy; prints its
# line; 0 killed, 1 survived or broken.
run_mutant()
{
	local name=$1 log=$LOG_DIR/$1.log dir rc t0 secs
	dir=$(mktemp -d "${TMPDIR:-/tmp}/xdpbr-mutant.XXXXXX") || return 1
	t0=$SECONDS
	rc=1
	{
		if ! scratch_copy "$dir"; then
			echo "mutant $name: cannot copy the tree"
		elif ! apply "$name" "$dir"; then
			echo "mutant $name no longer applies: update it in $LIST"
		elif ! make -C "$dir" -j2 check-bins >"$dir/build.log" 2>&1; then
			tail -n 20 "$dir/build.log"
			echo "mutant $name does not build: update it in $LIST"
		else
			# shellcheck disable=SC2086 # the suite words, split
			(cd "$dir" && SAN_BUILD=build CHECK_LOGS="$dir/check-logs" \
				tests/run.sh ${SUITES[$name]})
			rc=$?
			[ "$rc" -eq 0 ] && rc=2 || rc=0
		fi
	} >"$log" 2>&1
	secs=$((SECONDS - t0))
	case $rc in
	0)
		printf 'killed    %-24s %4d s\n' "$name" "$secs"
		failed_checks "$dir/check-logs" | sed 's/^/          | /'
		;;
	2)
		printf 'SURVIVED  %-24s %4d s  (%s all passed)\n' "$name" "$secs" "${SUITES[$name]}"
		;;
	*)
		printf 'BROKEN    %-24s %4d s  %s\n' "$name" "$secs" "$(tail -n 1 "$log")"
		;;
	esac
	rm -rf "$dir"
	[ "$rc" -eq 0 ]
}

APPLY_ONLY=0
if [ "${1:-}" = --apply-only ]; then
	APPLY_ONLY=1
	shift
fi
load_list || exit 1
SELECT=("$@")
if [ ${#SELECT[@]} -gt 0 ]; then
	for n in "${SELECT[@]}"; do
		[ -n "${SUITES[$n]+x}" ] || { echo "no mutant $n in $LIST" >&2; exit 1; }
	done
	NAMES=("${SELECT[@]}")
fi

if [ "$APPLY_ONLY" = 1 ]; then
	bad=0
	for n in "${NAMES[@]}"; do
		dir=$(mktemp -d "${TMPDIR:-/tmp}/xdpbr-mutant.XXXXXX") || exit 1
		if scratch_copy "$dir" && apply "$n" "$dir"; then
			echo "applies   $n"
		else
			echo "mutant $n no longer applies: update it in $LIST"
			bad=$((bad + 1))
		fi
		rm -rf "$dir"
	done
	[ "$bad" -eq 0 ]
	exit
fi
mkdir -p "$LOG_DIR" || exit 1
LOG_DIR=$(cd "$LOG_DIR" && pwd)
rm -f "$LOG_DIR"/*.log "$LOG_DIR/summary.txt"
for n in "${NAMES[@]}"; do
	run_mutant "$n"
done 2>&1 | tee "$LOG_DIR/summary.txt"
read -r killed bad < <(awk '/^killed /{k++} /^(SURVIVED|BROKEN) /{b++} END{print k+0, b+0}' \
	"$LOG_DIR/summary.txt")
if [ $((${killed:-0} + ${bad:-0})) -ne ${#NAMES[@]} ]; then
	echo "mutants: $LOG_DIR/summary.txt lacks a mutant's line" >&2
	exit 1
fi
echo "mutants: $killed killed, $bad not (logs: $LOG_DIR/)" | tee -a "$LOG_DIR/summary.txt"
[ "$bad" -eq 0 ]

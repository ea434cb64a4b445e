#!/usr/bin/env bash
# datapaths: auto
# GET /fdb at 1,000,000 entries (doc/http-api.md): the whole table is
# walked by pages, each entry exactly once, also while entries are added
# and aged out under the walk; a filter's pages read a bounded part of the
# table each; /stats and /metrics answer in under 100 ms while maximal pages
# are served over and over, to fast and to slow readers; the daemon's
# memory stays bounded. The figures are printed (ok lines).
#
# The FDB is filled with tools/fdbfill (MACs 06:...), not with traffic: the
# hosts stay quiet, so the table holds exactly what the test put there, and
# no frame crosses the bridge: one run, on either datapath, says it all.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# no local entry: the table is exactly what fdbfill wrote

xt_require
xt_need curl
FDBFILL=$XT_BUILD/tools/fdbfill
[ -x "$FDBFILL" ] || abort "missing: $FDBFILL (make check-bins)"
PAGE_MAX=$(awk '$2 == "HTTP_FDB_PAGE_MAX" { print $3 }' "$XT_ROOT/daemon/http.h")
READ_MAX=$(awk '$2 == "HTTP_FDB_READ_MAX" { print $3 }' "$XT_ROOT/daemon/http.h")
if [ -z "$PAGE_MAX" ] || [ -z "$READ_MAX" ]; then
	abort "HTTP_FDB_PAGE_MAX or HTTP_FDB_READ_MAX not found in daemon/http.h"
fi
N=1000000		# entries on P1
CHURN=100000		# added during a walk, already stale: aged out under it
N2=1000			# entries on P2
LATENCY_MAX=0.100	# seconds, /stats and /metrics
RSS_MAX_KB=65536	# the goal of doc/performance.md's control-plane table

topo_up 2
P1=${PORT[1]} P2=${PORT[2]}
hosts_quiet || abort "hosts_quiet"
obs_daemon_http -s 1200000 || abort "xdpbrd start with an FDB of 1,200,000" "$XT_WHY"
check "fdbfill: $N entries on $P1" "$FDBFILL" "$BR" "$P1" "$N"
check "fdbfill: $N2 entries on $P2" "$FDBFILL" -o 2000000 "$BR" "$P2" "$N2"
TOTAL=$((N + N2))

# PAGE_AWK: reads a page of /fdb (the server's own layout, one object a
# record); appends "VLAN MAC PORT" per entry to the file `out` and prints
# "ok|bad ENTRIES NEXT" (NEXT empty for null). jq takes several times as long
# on a page of 1 MB, so it checks only every tenth page (see walk).
# shellcheck disable=SC2016 # awk's own $
PAGE_AWK='
BEGIN { RS = "\\{\"mac\":"; FS = "\"" }
NR == 1 {
	first = $0
	gsub(/ /, "", first)	# the server fills with spaces between pieces
	next
}
{
	v = $9
	gsub(/[:,]/, "", v)
	print v, $2, $6 >>out
	n++
	last = $0
}
END {
	if (n)
		ok = first == "{\"entries\":[" && match(last, /\],"next":("[0-9]+"|null)\}\n?$/)
	else
		ok = match(first, /^\{"entries":\[\],"next":("[0-9]+"|null)\}\n?$/)
	nx = n ? last : first
	sub(/.*\],"next":/, "", nx)
	sub(/\}\n?$/, "", nx)
	gsub(/"/, "", nx)
	if (nx == "null")
		nx = ""
	print (ok ? "ok" : "bad"), n + 0, nx
}'

# walk OUT [QUERY]: GET /fdb?limit=PAGE_MAX[&QUERY] from the start,
# following "next" until it is null. Each entry as "VLAN MAC PORT" into OUT,
# each page's cursor into OUT.cursors; PAGES, PAGE_MOST (entries of the
# fullest page), WALK_S (seconds). 1 and XT_WHY when a page is not a page:
# PAGE_AWK's layout, and, every tenth page and the last, jq's view: an
# object of exactly "entries" and "next", as many entries, the same next.
walk()
{
	local dest=$1 query=${2:+&$2} after='' next n ok body=$XT_TMP/page.json t0 want
	: >"$dest"
	: >"$dest.cursors"
	PAGES=0 PAGE_MOST=0
	t0=$(date +%s.%N)
	while :; do
		if ! curl -fsS --max-time 10 -o "$body" \
			"$(obs_url "/fdb?limit=$PAGE_MAX$query${after:+&after=$after}")" \
			2>"$XT_TMP/page.err"; then
			XT_WHY="page $PAGES (after=$after): $(cat "$XT_TMP/page.err" "$body" 2>&1)"
			return 1
		fi
		read -r ok n next < <(awk -v out="$dest" "$PAGE_AWK" "$body")
		if [ "$ok" != ok ]; then
			XT_WHY="page $PAGES (after=$after) is not {entries, next}: $(head -c 300 "$body")"
			return 1
		fi
		if [ -z "$next" ] || ((PAGES % 10 == 0)); then
			want=$(jq -r --argjson n "$n" --arg next "$next" \
				'keys == ["entries", "next"] and (.entries | length) == $n and
				 ((.next == null and $next == "") or .next == $next)' "$body" 2>&1)
			if [ "$want" != true ]; then
				XT_WHY="page $PAGES (after=$after): jq says $want: $(head -c 300 "$body")"
				return 1
			fi
		fi
		echo "$after" >>"$dest.cursors"
		PAGES=$((PAGES + 1))
		((n > PAGE_MOST)) && PAGE_MOST=$n
		[ -n "$next" ] || break
		if [ "$next" = "$after" ]; then
			XT_WHY="page $PAGES: next did not move on ($next)"
			return 1
		fi
		after=$next
		if ((PAGES > 5000)); then
			XT_WHY="more than 5000 pages"
			return 1
		fi
	done
	WALK_S=$(echo "$(date +%s.%N) - $t0" | bc)
}

# dups FILE: lines of the sorted FILE that are there more than once (at
# most 3).
dups()
{
	uniq -d "$1" | head -n 3
}

# ---------------------------------------------------------------- a full walk

if walk "$XT_TMP/walk1"; then
	pass "walk: $PAGES pages of at most $PAGE_MAX in $(printf %.1f "$WALK_S") s"
	sort "$XT_TMP/walk1" >"$XT_TMP/walk1.sorted"
	check_eq "walk: $TOTAL entries" "$TOTAL" "$(wc -l <"$XT_TMP/walk1")"
	check_eq "walk: no entry twice" "" "$(dups "$XT_TMP/walk1.sorted")"
	check_eq "walk: the $N entries of $P1 and the $N2 of $P2" "$N $N2" \
		"$(grep -c " $P1\$" "$XT_TMP/walk1") $(grep -c " $P2\$" "$XT_TMP/walk1")"
	check_eq "walk: no page over $PAGE_MAX entries, the fullest exactly that" \
		"$PAGE_MAX" "$PAGE_MOST"
else
	fail "walk the FDB by pages" "$XT_WHY"
fi

# A filter: P2's entries, a thousandth of the table. Each page reads at most
# HTTP_FDB_READ_MAX entries of the table, so the walk takes about
# table / READ_MAX pages, most of them empty, and finds all of them.
if walk "$XT_TMP/walk2" "port=$P2"; then
	pass "walk ?port=$P2: $PAGES pages in $(printf %.1f "$WALK_S") s"
	check_eq "walk ?port=$P2: its $N2 entries, once each" "$N2 $N2" \
		"$(grep -c " $P2\$" "$XT_TMP/walk2") $(sort -u "$XT_TMP/walk2" | wc -l)"
	if ((PAGES >= TOTAL / READ_MAX && PAGES <= 2 * (TOTAL / READ_MAX + 1))); then
		pass "walk ?port=$P2: $PAGES pages, each read at most $READ_MAX entries"
	else
		fail "walk ?port=$P2: about $((TOTAL / READ_MAX + 1)) pages of $READ_MAX entries read" \
			"got $PAGES pages"
	fi
else
	fail "walk ?port=$P2 by pages" "$XT_WHY"
fi

# Under change: CHURN entries, stale already (-a 400), are added 1 s into the
# walk; the daemon's ageing sweep deletes them while it goes on. Each of the
# entries there throughout still comes exactly once.
# Their MACs are 06:01:... (fdbfill's ids from 2^32).
(sleep 1 && "$FDBFILL" -a 400 -o 4294967296 "$BR" "$P1" "$CHURN" &&
	date +%s.%N >"$XT_TMP/churn.done") >"$XT_TMP/churn.log" 2>&1 &
XT_PIDS+=($!)
churn_pid=$!
start=$(date +%s.%N)
if walk "$XT_TMP/walk3"; then
	wait "$churn_pid"
	end=$(date +%s.%N)
	if [ -s "$XT_TMP/churn.done" ] &&
		[ "$(echo "$(cat "$XT_TMP/churn.done") < $end" | bc)" = 1 ]; then
		pass "walk under change: $CHURN entries added (and ageing) during the walk of $(
			printf %.1f "$WALK_S") s"
	else
		fail "walk under change: the entries were added during the walk" \
			"$(cat "$XT_TMP/churn.log")" "walk: $start..$end, fill done: $(
			cat "$XT_TMP/churn.done" 2>/dev/null)"
	fi
	sort "$XT_TMP/walk3" >"$XT_TMP/walk3.sorted"
	grep -v ' 06:01:' "$XT_TMP/walk3.sorted" >"$XT_TMP/walk3.steady"
	check_eq "walk under change: no entry twice, the changing ones neither" "" \
		"$(dups "$XT_TMP/walk3.sorted")"
	check "walk under change: each of the $TOTAL entries there throughout, as in the first walk" \
		cmp "$XT_TMP/walk1.sorted" "$XT_TMP/walk3.steady"
	pass "walk under change: $(grep -c ' 06:01:' "$XT_TMP/walk3") of the $CHURN added-and-aged entries seen"
else
	wait "$churn_pid"
	fail "walk the FDB by pages under change" "$XT_WHY"
fi
if log_poll "$DAEMON_LOG" "aged out" 15; then
	pass "the daemon ages the added stale entries out"
else
	fail "the daemon ages the added stale entries out" "$(tail -n 5 "$DAEMON_LOG")"
fi

# ---------------------------------------------------------------- latency

# While pages of PAGE_MAX entries are fetched back to back (from cursors
# spread over the table), the default page too, and eight clients hold
# maximal pages half-read (they read nothing: the server's stream waits in
# the middle of the page): /stats and /metrics, 20 times each. The peak of
# the daemon's resident memory meanwhile (clear_refs 5 resets it).
mapfile -t cursors < <(awk 'NR % 10 == 1' "$XT_TMP/walk1.cursors")
((${#cursors[@]})) || cursors=("")	# (no walk: from the start)
(
	i=0
	while :; do
		c=${cursors[i % ${#cursors[@]}]}
		curl -s -o /dev/null --max-time 20 -w '%{http_code} %{time_total} %{size_download}\n' \
			"$(obs_url "/fdb?limit=$PAGE_MAX${c:+&after=$c}")"
		curl -s -o /dev/null --max-time 20 -w '%{http_code} %{time_total} %{size_download}\n' \
			"$(obs_url /fdb)"
		i=$((i + 1))
	done
) >"$XT_TMP/pages.log" 2>&1 &
XT_PIDS+=($!)
loader=$!
echo 5 >"/proc/$DAEMON_PID/clear_refs"
rss0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$DAEMON_PID/status")
parked=()
for i in 1 2 3 4 5 6 7 8; do
	c=${cursors[i % ${#cursors[@]}]}
	if exec {fd}<>"/dev/tcp/127.0.0.1/${OBS_HTTP##*:}"; then
		printf 'GET /fdb?limit=%s%s HTTP/1.1\r\nHost: x\r\n\r\n' "$PAGE_MAX" \
			"${c:+&after=$c}" >&"$fd"
		parked+=("$fd")
	fi
done
sleep 0.5
: >"$XT_TMP/latency"
for i in $(seq 20); do
	for path in /stats /metrics; do
		curl -s -o /dev/null --max-time 5 -w "$path %{http_code} %{time_total}\n" \
			"$(obs_url "$path")" >>"$XT_TMP/latency" 2>&1
	done
	sleep 0.1
done
est=$(ss -Htn state established "( sport = :${OBS_HTTP##*:} )" | wc -l)
rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$DAEMON_PID/status")
kill "$loader" 2>/dev/null
wait "$loader" 2>/dev/null
for fd in "${parked[@]}"; do
	exec {fd}>&-
done

pages=$(awk '$1 == 200 && $3 > 500000' "$XT_TMP/pages.log" | wc -l)
page_ms=$(awk '$1 == 200 && $3 > 500000 { if ($2 > m) m = $2 } END { printf "%d", m * 1000 }' \
	"$XT_TMP/pages.log")
if ((pages >= 5)); then
	pass "meanwhile: $pages maximal pages served (up to $page_ms ms each)"
else
	fail "meanwhile: maximal pages were served" "$(head -n 5 "$XT_TMP/pages.log")"
fi
if ((est >= 8)); then
	pass "meanwhile: the 8 half-read pages held their connections ($est open)"
else
	fail "meanwhile: the 8 half-read pages held their connections" "$est open"
fi
for path in /stats /metrics; do
	got=$(awk -v p="$path" '$1 == p' "$XT_TMP/latency")
	ok=$(awk -v p="$path" -v lim="$LATENCY_MAX" '$1 == p && $2 == 200 && $3 < lim' \
		"$XT_TMP/latency" | wc -l)
	fig=$(awk -v p="$path" '$1 == p { print $3 * 1000 }' "$XT_TMP/latency" | sort -n |
		awk '{ t[++n] = $1 } END { if (n) printf "median %.1f ms, max %.1f ms",
			t[int((n + 1) / 2)], t[n] }')
	if [ "$ok" = 20 ]; then
		pass "$path during maximal /fdb pages: 20 answers under ${LATENCY_MAX}s ($fig)"
	else
		fail "$path during maximal /fdb pages: 20 answers under ${LATENCY_MAX}s" \
			"$ok of 20 ($fig)" "$got"
	fi
done
if [ -n "$rss" ] && ((rss < RSS_MAX_KB)); then
	pass "meanwhile: xdpbrd's resident memory at most $((rss / 1024)) MB ($((rss0 / 1024)) MB before)"
else
	fail "meanwhile: xdpbrd's resident memory under $((RSS_MAX_KB / 1024)) MB" \
		"VmHWM ${rss:-?} kB, ${rss0:-?} kB before"
fi
check "xdpbrd still running" proc_alive "$DAEMON_PID"
finish

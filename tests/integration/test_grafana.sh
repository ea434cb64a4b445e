#!/usr/bin/env bash
# datapaths: auto
# The Grafana dashboard (doc/grafana/xdpbr.json) against the real thing: a
# real Prometheus server (Debian's prometheus, run directly with its own
# config and storage in the test's temp directory, on a free loopback port)
# scrapes a running xdpbrd's /metrics every second while known traffic goes
# through the bridge: a broadcast from each host, unknown unicast, a MAC
# that moves and is deleted, frames with a multicast source (dropped), a
# broadcast storm cut by storm control, and a ping flow (known unicast).
#
# Then every query of every panel of the dashboard, whatever panels it has,
# goes through Prometheus's query API with the dashboard's variables set as
# Grafana would ($instance, $bridge, $port as the regex of all their values,
# $__rate_interval a window over all the test's traffic) and must return
# at least one series carrying the bridge and instance labels and every
# label its legend names; every metric a query names must exist (a panel
# on a metric xdpbrd does not export fails even inside an `or`). Some
# values are checked against the traffic sent: the forwarding rate against
# the ping flow, the FDB fill against the hosts, the drops, the storm
# drops, the moves and deletions. The template variables' label_values()
# queries must find this daemon, bridge and ports. The scrape
# configuration doc/observability.md shows must pass promtool check config.
#
# (That `make deps` leaves no Prometheus service running is test_deps's.)
#
# XT_DASHBOARD=FILE checks another dashboard file instead.
# shellcheck disable=SC2016 # jq variables in single-quoted filters
# shellcheck disable=SC2317 # helpers called through check and xt_poll
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# the FDB fill must be exactly the hosts'
XT_STP=on	# the spanning tree panels query metrics that exist only with STP on

DASH=${XT_DASHBOARD:-$XT_ROOT/doc/grafana/xdpbr.json}
PROMETHEUS=/usr/bin/prometheus	# Debian's package (tools/deps.sh)
FDB_SIZE=4096			# xdpbrd -s: the size the fill is measured against
MAX_LEARNED=100			# bridge-wide learning limit
STORM_PPS=10			# broadcast limit on h3's port
STORM_N=200			# broadcast frames h3 sends at once
PINGS=40			# the known-unicast flow: h1 pings h2 every 0.2 s
BC=ff:ff:ff:ff:ff:ff

# ---------------------------------------------------------------- helpers

# prom_url PATH: the URL of PATH on the test's Prometheus.
prom_url()
{
	echo "http://127.0.0.1:$PROM_PORT$1"
}

# prom_query EXPR [TIME]: the answer of /api/v1/query (JSON) for EXPR at
# TIME (unix seconds; default: now). Fails on an HTTP error.
prom_query()
{
	curl -fsS --max-time 10 -G "$(prom_url /api/v1/query)" \
		--data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"}
}

# prom_scalar EXPR: the value of the single series EXPR returns now, empty
# when there is not exactly one.
prom_scalar()
{
	local j
	j=$(json_of object prom_query "$1") || return 1
	jq -r 'if (.data.result | length) == 1 then .data.result[0].value[1] else empty end' \
		<<<"$j"
}

# prom_ready: the server answers /-/ready and has scraped xdpbrd at least
# 3 times, the last time successfully.
prom_ready()
{
	curl -fsS --max-time 2 -o /dev/null "$(prom_url /-/ready)" &&
		[ "$(prom_scalar 'up{job="xdpbr"}')" = 1 ] &&
		[ "$(prom_scalar 'count_over_time(up{job="xdpbr"}[1m])')" -ge 3 ] 2>/dev/null
}

# prom_start: write the scrape config, check it with promtool, start the
# server in the background (killed by the cleanup trap) and wait until it
# has scraped the daemon. 1 and XT_WHY when it fails.
prom_start()
{
	local dir=$XT_TMP/prometheus
	mkdir -p "$dir/data"
	PROM_PORT=$(obs_pick_port) || { XT_WHY="no free loopback port"; return 1; }
	cat >"$dir/prometheus.yml" <<-EOF
	global:
	  scrape_interval: 1s
	  scrape_timeout: 1s
	  evaluation_interval: 1s
	scrape_configs:
	  - job_name: xdpbr
	    static_configs:
	      - targets: ['$OBS_HTTP']
	EOF
	if ! XT_WHY=$(promtool check config "$dir/prometheus.yml" 2>&1); then
		return 1
	fi
	"$PROMETHEUS" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
		--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn \
		>"$dir/log" 2>&1 &
	PROM_PID=$!
	XT_PIDS+=("$PROM_PID")
	xt_poll 60 prom_ready && return 0
	XT_WHY="Prometheus on 127.0.0.1:$PROM_PORT not scraping $OBS_HTTP after 60 s:
$(tail -n 20 "$dir/log")
targets: $(curl -sS --max-time 2 "$(prom_url /api/v1/targets)" 2>&1 | head -c 1000)"
	return 1
}

# re_escape S: S as Grafana writes a value of a multi-value variable into a
# PromQL regex: special characters escaped for the regex, the backslash
# doubled for the string literal.
# shellcheck disable=SC2001 # a class of characters, not one string
re_escape()
{
	sed 's/[][\\.^$*+?(){}|]/\\\\&/g' <<<"$1"
}

# dash_vars: the values the test gives the dashboard's variables, a JSON
# object: the instance, bridge and ports as Grafana's "All" expands them,
# the interval variables as a window over the test's traffic.
dash_vars()
{
	local ports=() p
	for p in "${PORTS[@]}"; do
		ports+=("$(re_escape "$p")")
	done
	jq -n -c --arg inst "($(re_escape "$OBS_HTTP"))" --arg br "($(re_escape "$BR"))" \
		--arg port "($(IFS='|'; echo "${ports[*]}"))" --arg w "${WINDOW}s" '{
		__rate_interval: $w, __interval: "1s", __range: $w,
		instance: $inst, bridge: $br, port: $port}'
}

# JQ_SUBST: a jq function subst($v) that sets Grafana's variables ($name,
# ${name}, ${name:format}, [[name]]) of a string to the values of object $v.
JQ_SUBST='def subst($v): reduce ($v | to_entries[]) as $e (.;
	gsub("\\$\\{" + $e.key + "(:[a-z]+)?\\}|\\$" + $e.key + "\\b|\\[\\[" + $e.key + "\\]\\]";
	     $e.value));'

# dash_queries: every query of every panel (also inside rows), one JSON
# object a line: {title, refId, expr (variables set), legend}. A target
# without an expression has expr "".
dash_queries()
{
	jq -c --argjson v "$(dash_vars)" "$JQ_SUBST"'
		.. | objects | select((.targets? | type) == "array") | .title as $t
		| .targets[] | {title: $t, refId: (.refId // "?"),
				 expr: ((.expr // "") | subst($v)), legend: (.legendFormat // "")}' \
		"$DASH"
}

# dash_expr TITLE REFID: the expression (variables set) of query REFID of
# the panel TITLE; fails when there is no such query.
dash_expr()
{
	local e
	e=$(dash_queries | jq -r --arg t "$1" --arg r "$2" \
		'select(.title == $t and .refId == $r) | .expr')
	if [ -z "$e" ] || [ "$(wc -l <<<"$e")" -ne 1 ]; then
		echo "the dashboard has not exactly one query $2 in a panel '$1': '$e'" >&2
		return 1
	fi
	echo "$e"
}

# metric_names EXPR: the metric names EXPR selects, one a line: every
# identifier followed by a label matcher or a range, and every xdpbr_ name.
metric_names()
{
	{
		grep -oE '[a-zA-Z_:][a-zA-Z0-9_:]*[[:space:]]*[{[]' <<<"$1" | sed 's/[[:space:]{[]*$//'
		grep -oE '\bxdpbr_[a-zA-Z0-9_:]+' <<<"$1"
	} | grep -vxE 'by|without|on|ignoring|group_left|group_right' | sort -u
}

# query_ok EXPR LEGEND: EXPR at T_EVAL returns a vector of at least one
# series, each with this bridge, this instance and the labels LEGEND names
# ({{label}}); every metric EXPR names exists. Prints what is wrong.
query_ok()
{
	local expr=$1 legend=$2 j m rc=0
	if [ -z "$expr" ]; then
		echo "a target without an expression"
		return 1
	fi
	if grep -qE '\$|\[\[' <<<"$expr"; then
		echo "a variable the test does not know is left: $expr"
		return 1
	fi
	j=$(json_of object prom_query "$expr" "$T_EVAL") || return 1
	if ! jq_true "$j" '
		.status == "success" and .data.resultType == "vector" and
		(.data.result | length) >= 1 and
		all(.data.result[]; .metric.bridge == $br and .metric.instance == $inst and
		    (.metric as $m | all($labels[]; $m[.] != null)))' \
		--arg br "$BR" --arg inst "$OBS_HTTP" \
		--argjson labels "$(jq -c -n --arg l "$legend" \
			'[$l | scan("\\{\\{ *([a-zA-Z_][a-zA-Z0-9_]*) *\\}\\}")[0]]')"; then
		echo "expected >= 1 series, each with bridge=\"$BR\", instance=\"$OBS_HTTP\" and the legend's labels ($legend); got: ${j:0:1500}"
		rc=1
	fi
	for m in $(metric_names "$expr"); do
		j=$(json_of object prom_query "group($m)" "$T_EVAL") || return 1
		jq_true "$j" '(.data.result | length) == 1' && continue
		echo "metric $m: no such series in Prometheus (xdpbrd does not export it)"
		rc=1
	done
	return "$rc"
}

# series_value TITLE REFID FILTER [JQ-ARG...]: the value at T_EVAL of the
# one series of query REFID of panel TITLE whose labels (.metric) pass the
# jq boolean FILTER. Fails (reason on stderr) unless there is exactly one.
series_value()
{
	local e j n
	e=$(dash_expr "$1" "$2") || return 1
	j=$(json_of object prom_query "$e" "$T_EVAL") || return 1
	n=$(jq -r "${@:4}" "[.data.result[] | select(.metric | $3)] |
		if length == 1 then .[0].value[1] else \"\(length) series\" end" <<<"$j")
	if ! [[ $n =~ ^-?[0-9.e+-]+$ ]]; then
		echo "panel '$1' query $2: $3: $n in: ${j:0:800}" >&2
		return 1
	fi
	echo "$n"
}

# check_near NAME GOT WANT TOL: GOT (a number) is WANT within TOL, absolute.
check_near()
{
	local name=$1 got=$2 want=$3 tol=$4
	if [ -n "$got" ] && awk -v g="$got" -v w="$want" -v t="$tol" \
		'BEGIN { d = g - w; exit !(d <= t && -d <= t) }'; then
		pass "$name: $got (expected $want +- $tol)"
		return 0
	fi
	fail "$name" "expected $want +- $tol, got '${got:-nothing}'"
	return 1
}

# check_panel_near NAME TITLE REFID FILTER WANT TOL [JQ-ARG...]: the value
# of that series (series_value), times WINDOW when the query is a rate
# (TIMES=WINDOW), is WANT within TOL.
check_panel_near()
{
	local name=$1 title=$2 ref=$3 filter=$4 want=$5 tol=$6 v
	shift 6
	if ! v=$(series_value "$title" "$ref" "$filter" "$@" 2>&1); then
		fail "$name" "$v"
		return 1
	fi
	v=$(awk -v v="$v" -v k="${TIMES:-1}" 'BEGIN { printf "%.6f\n", v * k }')
	check_near "$name" "$v" "$want" "$tol"
}

# tol PCT N [MIN]: PCT percent of N, at least MIN (default 1).
tol()
{
	awk -v p="$1" -v n="$2" -v m="${3:-1}" 'BEGIN { t = p * n / 100; print (t < m ? m : t) }'
}

# ---------------------------------------------------------------- the dashboard file

xt_require
xt_need curl promtool:prometheus "$PROMETHEUS:prometheus"

DASH_JSON=$(json_of object cat "$DASH") || abort "$DASH is not one JSON object"
check_jq "dashboard: schemaVersion of Grafana 9/10 (36..39), a title and a uid" "$DASH_JSON" \
	'(.schemaVersion >= 36 and .schemaVersion <= 39) and (.title | length > 0) and
	 (.uid | length > 0)'
check_jq "dashboard: variables datasource (prometheus), instance, bridge, port" "$DASH_JSON" \
	'[.templating.list[] | {key: .name, value: .}] | from_entries |
	 .datasource.type == "datasource" and .datasource.query == "prometheus" and
	 .instance.type == "query" and .bridge.type == "query" and .port.type == "query"'
check_jq "dashboard: every panel with queries reads the datasource variable" "$DASH_JSON" \
	'[.. | objects | select((.targets? | type) == "array")] as $p |
	 ($p | length) > 0 and
	 all($p[]; .datasource.uid == "${datasource}" and
		   all(.targets[]; .datasource.uid == "${datasource}"))'
NQUERIES=$(jq '[.. | objects | select((.targets? | type) == "array") | .targets[]] | length' \
	<<<"$DASH_JSON")
[ "${NQUERIES:-0}" -ge 10 ] || fail "dashboard: at least 10 queries" "got: ${NQUERIES:-none}"

# The scrape configuration doc/observability.md shows is one Prometheus
# accepts.
doc_scrape_config()
{
	sed -n '/^    # \/etc\/prometheus\/prometheus.yml$/,/^$/p' "$XT_ROOT/doc/observability.md" |
		sed 's/^    //' >"$XT_TMP/doc.yml"
	grep -q 'job_name: xdpbr' "$XT_TMP/doc.yml" &&
		promtool check config "$XT_TMP/doc.yml"
}
check "doc/observability.md's scrape configuration passes promtool check config" doc_scrape_config

# ---------------------------------------------------------------- the bridge and Prometheus

topo_up 3
hosts_quiet || abort "making the hosts quiet"
P1=${PORT[1]} P2=${PORT[2]} P3=${PORT[3]}
obs_daemon_http -s "$FDB_SIZE" || abort "xdpbrd start with an HTTP endpoint" "$XT_WHY"
check "bridge set fdb_max_learned $MAX_LEARNED" \
	"$XDPBR" -b "$BR" bridge set fdb_max_learned "$MAX_LEARNED"
check "link set dev $P3 storm bcast $STORM_PPS" \
	"$XDPBR" -b "$BR" link set dev "$P3" storm bcast "$STORM_PPS"
prom_start || abort "Prometheus scraping xdpbrd at $OBS_HTTP" "$XT_WHY"
pass "Prometheus on 127.0.0.1:$PROM_PORT scrapes xdpbrd's /metrics every second"

# ---------------------------------------------------------------- the traffic

T0=$(date +%s)
sent=1
for i in 1 2 3; do
	obs_send "$i" 1 "$BC" || sent=0
	xt_poll 5 fdb_has "${MAC[i]}" "${PORT[i]}" || sent=0
done
check_eq "each host learned on its port after a broadcast" 1 "$sent" "$(fdb_json 2>&1)"

UNKNOWN=$(obs_mac 2)
check "4 frames to an unknown MAC from h1" obs_send 1 4 "$UNKNOWN"

MOVER=$(obs_mac 1)
obs_send 1 1 "$BC" "$MOVER" && xt_poll 5 fdb_has "$MOVER" "$P1" &&
	obs_send 2 1 "$BC" "$MOVER" && xt_poll 5 fdb_has "$MOVER" "$P2"
check "a MAC learned on $P1 moves to $P2" fdb_has "$MOVER" "$P2"
check "fdb del $MOVER" "$XDPBR" -b "$BR" fdb del "$MOVER"

BADSRC=03:00:03:$(printf '%02x:%02x' $((ID >> 8)) $((ID & 255))):01
check "2 frames with a multicast source from h1 (dropped)" obs_send 1 2 "${MAC[2]}" "$BADSRC"

check "a storm: $STORM_N broadcasts at once from h3" obs_send 3 "$STORM_N" "$BC"

PING_OUT=$(hexec 1 ping -i 0.2 -c "$PINGS" -W 2 "${IP4[2]}" 2>&1)
TX=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1/p' <<<"$PING_OUT")
RX=$(sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\2/p' <<<"$PING_OUT")
if [ "${TX:-0}" -ge $((PINGS - 2)) ] && [ "${RX:-0}" -ge $((TX - 2)) ]; then
	pass "h1 pings h2: $TX echo requests, $RX replies"
else
	fail "h1 pings h2 ($PINGS echo requests, every 0.2 s)" "$PING_OUT"
fi

# Prometheus has the final counters: its last scrape of h1's forwarded
# frames shows what the CLI shows now (the traffic is over).
fwd_scraped()
{
	local want
	want=$(port_counter "$P1" forwarded) || return 1
	[ "$(prom_scalar "xdpbr_forwarded_total{bridge=\"$BR\",port=\"$P1\"}")" = "$want" ]
}
check "Prometheus scraped the counters as they are after the traffic" xt_poll 20 fwd_scraped
sleep 1
T_EVAL=$(date +%s)
WINDOW=$((T_EVAL - T0 + 2))	# from a scrape before the traffic to now

# ---------------------------------------------------------------- every query

n=0
while IFS= read -r q; do
	n=$((n + 1))
	title=$(jq -r .title <<<"$q")
	ref=$(jq -r .refId <<<"$q")
	check "panel '$title' query $ref: series with the expected labels, metrics that exist" \
		query_ok "$(jq -r .expr <<<"$q")" "$(jq -r .legend <<<"$q")"
done < <(dash_queries)
check_eq "every query of the dashboard was checked" "$NQUERIES" "$n"

# The variables' label_values(SELECTOR, LABEL) find this daemon, bridge
# and ports (with the variables before them set).
# var_values NAME: the values Prometheus has for variable NAME's query.
var_values()
{
	local q sel label
	q=$(jq -r --arg n "$1" --argjson v "$(dash_vars)" "$JQ_SUBST"'
		.templating.list[] | select(.name == $n) |
		(.query | if type == "object" then .query else . end) | subst($v)' "$DASH")
	[[ $q =~ ^label_values\((.*),[[:space:]]*([a-zA-Z_]+)\)$ ]] ||
		{ echo "not label_values(SELECTOR, LABEL): '$q'"; return 1; }
	sel=${BASH_REMATCH[1]} label=${BASH_REMATCH[2]}
	json_of object curl -fsS --max-time 10 -G "$(prom_url "/api/v1/label/$label/values")" \
		--data-urlencode "match[]=$sel" --data-urlencode "start=$T0" \
		--data-urlencode "end=$T_EVAL" | jq -c '.data | sort'
}
check_eq "variable instance: label_values finds xdpbrd's endpoint" "[\"$OBS_HTTP\"]" \
	"$(var_values instance 2>&1)"
check_eq "variable bridge: label_values finds the bridge" "[\"$BR\"]" "$(var_values bridge 2>&1)"
check_eq "variable port: label_values finds the ports" \
	"$(printf '%s\n' "${PORTS[@]}" | jq -R . | jq -sc 'sort')" "$(var_values port 2>&1)"

# ---------------------------------------------------------------- plausible values

# Rates times the window are the frames counted in it, plus up to 10%:
# Prometheus extrapolates a rate from the first and last sample in the
# window to the window's edges, here a second or so more than those
# samples span.
TIMES=$WINDOW
check_panel_near "forwarding rate on $P1 x ${WINDOW}s = h1's echo requests" \
	"Forwarded frames per port (known unicast)" A '.port == $p' "$TX" "$(tol 15 "$TX" 2)" \
	--arg p "$P1"
check_panel_near "forwarding rate on $P2 x ${WINDOW}s = h2's echo replies" \
	"Forwarded frames per port (known unicast)" A '.port == $p' "$RX" "$(tol 15 "$RX" 2)" \
	--arg p "$P2"
check_panel_near "unknown-unicast flood rate on $P1 x ${WINDOW}s = 4 frames" \
	"Flooded frames per port, by class" C '.port == $p' 4 1 --arg p "$P1"
check_panel_near "drops by reason: bad_src x ${WINDOW}s = 2 frames" \
	"Drops by reason" A '.reason == "bad_src"' 2 0.5
check_panel_near "moves x ${WINDOW}s = 1" "Learn, move and age rates" B 'true' 1 0.3
check_panel_near "deletions x ${WINDOW}s = 1 (fdb del)" "Learn, move and age rates" D 'true' 1 0.3
check_panel_near "learns on $P2 x ${WINDOW}s = 1 (h2)" "Learning per port" A '.port == $p' 1 0.3 \
	--arg p "$P2"
# Storm control: about STORM_PPS frames a second pass (and a burst of a
# frame per CPU), the rest of the storm is dropped: 0.85 to 1.1 times it.
check_panel_near "storm-control drops on $P3 x ${WINDOW}s: most of the $STORM_N broadcasts" \
	"Storm-control drops per port" A '.port == $p and .reason == "storm_broadcast"' \
	"$((STORM_N * 975 / 1000))" "$((STORM_N * 125 / 1000))" --arg p "$P3"
TIMES=1
check_panel_near "FDB fill: the 3 hosts' entries" "FDB fill against its size and limits" A true 3 0
check_panel_near "FDB fill: 3 dynamic entries" "FDB fill against its size and limits" B true 3 0
check_panel_near "FDB fill: the size given to xdpbrd -s" \
	"FDB fill against its size and limits" D true "$FDB_SIZE" 0
check_panel_near "FDB fill: the learning limit" \
	"FDB fill against its size and limits" E true "$MAX_LEARNED" 0
check_panel_near "FDB fill gauge: 3 of $FDB_SIZE entries in percent" "FDB fill" A true \
	"$(awk -v s="$FDB_SIZE" 'BEGIN { printf "%.4f", 300 / s }')" 0.0001
check_panel_near "learning limit gauge: 3 of $MAX_LEARNED in percent" "Learning limit fill" A \
	true "$(awk -v s="$MAX_LEARNED" 'BEGIN { printf "%.4f", 300 / s }')" 0.0001
check_panel_near "Ports stat: 3" "Ports" A true 3 0

finish

# shellcheck shell=bash
#
# guest-lib.sh - helpers for the scripts tests/vm/lib.sh's vm_exec runs in
# the guest (it sources this first, with XT_BUILD set). Each prints what a
# person needs to see when it fails, and returns non-zero then.

XDPBRD=$XT_BUILD/xdpbrd
XDPBR=$XT_BUILD/xdpbr

# g_poll SECONDS CMD...: CMD exits 0 within SECONDS (every 0.2 s).
g_poll()
{
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# g_ports_up BR N: `xdpbr link show` lists N ports of BR running a program.
g_ports_up()
{
	local n
	n=$("$XDPBR" -b "$1" -j link show 2>/dev/null |
		jq '[.[] | select(.xdp_prog_id != null and .xdp_prog_id > 0)] | length' 2>/dev/null)
	[ "${n:-0}" -ge "$2" ]
}

# g_start BR NPORTS ARG...: xdpbrd ARG... in the background (log
# /tmp/xdpbrd-BR.log), ready when NPORTS ports run its program (90 s: TCG
# is slow) and it says it forwards (180 s more: a port adopted from the
# pins runs a program before the daemon has replaced it, and putting a
# component into libxdp's dispatcher took over 60 s under TCG once, on a
# loaded CI runner); the log is printed either way.
g_start()
{
	local br=$1 n=$2
	shift 2
	setsid "$XDPBRD" "$@" >>"/tmp/xdpbrd-$br.log" 2>&1 </dev/null &
	echo $! >"/tmp/xdpbrd-$br.pid"
	if ! g_poll 90 g_ports_up "$br" "$n" ||
		! g_poll 180 grep -q "bridge $br: forwarding on" "/tmp/xdpbrd-$br.log"; then
		echo "xdpbrd $* did not bring up $n ports (90 s) and forward (180 s more):"
		cat "/tmp/xdpbrd-$br.log"
		"$XDPBR" -b "$br" link show
		return 1
	fi
	cat "/tmp/xdpbrd-$br.log"
}

# g_stop BR: SIGTERM to BR's xdpbrd, which exits within 30 s.
g_stop()
{
	local pid
	pid=$(cat "/tmp/xdpbrd-$1.pid" 2>/dev/null) || return 0
	kill -TERM "$pid" 2>/dev/null
	if ! g_poll 30 sh -c "! kill -0 $pid"; then
		echo "xdpbrd of $1 (pid $pid) still runs 30 s after SIGTERM"
		return 1
	fi
	rm -f "/tmp/xdpbrd-$1.pid"
	: >"/tmp/xdpbrd-$1.log.done"
	cat "/tmp/xdpbrd-$1.log" >>"/tmp/xdpbrd-$1.log.done"
	: >"/tmp/xdpbrd-$1.log"
}

# g_link BR IF FIELD: FIELD of IF in `xdpbr -j link show`.
g_link()
{
	"$XDPBR" -b "$1" -j link show | jq -r --arg n "$2" ".[] | select(.ifname == \$n) | .$3"
}

# g_mode_is BR IF DATAPATH MODE: IF is on DATAPATH (xdp, tc) in MODE
# (native, generic; - for tc); prints the port's line.
g_mode_is()
{
	local dp mode
	"$XDPBR" -b "$1" link show dev "$2"
	dp=$(g_link "$1" "$2" datapath)
	mode=$(g_link "$1" "$2" xdp_mode)
	[ "$dp" = "$3" ] && { [ "$4" = - ] || [ "$mode" = "$4" ]; }
}

# g_fdb_has BR MAC IF [VLAN]: the FDB has MAC on IF (in VLAN, default 0).
g_fdb_has()
{
	local j
	# not `xdpbr ... | jq -e`: jq 1.6 passes empty input
	j=$("$XDPBR" -b "$1" -j fdb show) && [ -n "$j" ] || return 1
	[ "$(jq -c --arg m "$2" --arg i "$3" --argjson v "${4:-0}" \
		'[.[] | select(.mac == $m and .ifname == $i and .vlan == $v)] | length == 1' \
		<<<"$j" 2>/dev/null)" = true ]
}

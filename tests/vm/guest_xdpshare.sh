# shellcheck shell=bash
#
# guest_xdpshare.sh - guest-side helpers of tests/vm/test_xdpshare.sh
# (xdpbr sharing a port with xdp-filter through libxdp's dispatcher). The
# host side sources it in each vm_exec script, after tests/vm/guest-lib.sh:
#
#   vm_exec ". tests/vm/guest_xdpshare.sh; gx_has IF xdpbr_rx 50"
#
# Each helper prints what a person needs to see when it fails.

# gx_status IF: `xdp-loader status IF`.
gx_status()
{
	xdp-loader status "$1" 2>&1
}

# gx_comp IF NAME: the id of the dispatcher's component NAME on IF (empty
# if none). xdp-loader status prints components as
#   " =>  PRIO  NAME  ID  TAG  ACTIONS".
gx_comp()
{
	gx_status "$1" | awk -v n="$2" '$1 == "=>" && $3 == n { print $4; exit }'
}

# gx_has IF NAME PRIO: NAME runs on IF as a component of the dispatcher
# with run priority PRIO.
gx_has()
{
	if gx_status "$1" | awk -v n="$2" -v p="$3" \
		'$1 == "=>" && $2 == p && $3 == n { f = 1 } END { exit !f }'; then
		return 0
	fi
	echo "$1: no component $2 at priority $3 in:"
	gx_status "$1"
	return 1
}

# gx_lacks IF NAME: no component (nor program) NAME on IF.
gx_lacks()
{
	if gx_status "$1" | awk -v n="$2" '$3 == n || $2 == n { f = 1 } END { exit !f }'; then
		echo "$1 still runs $2:"
		gx_status "$1"
		return 1
	fi
}

# gx_count IF NAME: how many components NAME run on IF.
gx_count()
{
	gx_status "$1" | awk -v n="$2" '$1 == "=>" && $3 == n { c++ } END { print c + 0 }'
}

# gx_no_xdp IF: no XDP program at all on IF.
gx_no_xdp()
{
	local x
	x=$(ip -j link show dev "$1" | jq -c '.[0].xdp // empty')
	[ -z "$x" ] && return 0
	echo "$1 still has an XDP program: $x"
	return 1
}

# gx_rx BR IF: the bridge's rx_packets counter of port IF.
gx_rx()
{
	"$XDPBR" -b "$1" -j stats dev "$2" | jq -r '.[0].rx_packets'
}

# gx_attach BR IF: `link show -j`'s "xdp_mode xdp_attach" of IF, and its
# text line.
gx_attach()
{
	"$XDPBR" -b "$1" -j link show dev "$2" | jq -r '.[0] | "\(.xdp_mode) \(.xdp_attach)"'
}

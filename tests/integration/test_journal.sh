#!/usr/bin/env bash
# datapaths: auto
# xdpbrd's log under systemd: when stderr is the journal's stream
# (JOURNAL_STREAM names its device and inode, systemd.exec(5)), each line
# starts with its syslog priority, which the journal files it under
# (`journalctl -p warning` shows the warnings): <3> what stops the daemon,
# <4> warnings, <6> information, <7> debug (-v). Otherwise, and when
# JOURNAL_STREAM names another file, the lines are "xdpbrd: message" as
# ever. Here stderr is a file whose device and inode JOURNAL_STREAM names,
# as systemd would set it.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
# shellcheck disable=SC2317 # functions that run through check
. "$(dirname "$0")/lib.sh"
XT_HOSTIF=off	# no host interface: the log holds only the bridge's lines

# dev_ino FILE: FILE's device and inode as systemd writes JOURNAL_STREAM.
dev_ino()
{
	stat -L -c '%d:%i' "$1"
}

# log_has NAME ERE: check that the daemon's log has a line matching ERE.
log_has()
{
	if grep -qE -- "$2" "$DAEMON_LOG"; then
		pass "$1"
	else
		fail "$1" "no line matching /$2/ in:" "$(cat "$DAEMON_LOG")"
	fi
}

# all_lines NAME ERE: every line of the daemon's log matches ERE (and it
# has some).
all_lines()
{
	local bad
	bad=$(grep -vE -- "$2" "$DAEMON_LOG")
	if [ -s "$DAEMON_LOG" ] && [ -z "$bad" ]; then
		pass "$1"
	else
		fail "$1" "lines not matching /$2/:" "${bad:-(the log is empty)}"
	fi
}

# move_h1 LABEL: h1's MAC, learned on P1, shows up behind P2: the daemon
# logs the move as a warning.
move_h1()
{
	check "$1: ping h1 -> h2 (h1 learned on ${PORT[1]})" hping 1 2
	check "$1: a frame from h2 with h1's MAC" pfx_send 2 "${MAC[3]}" "${MAC[1]}"
	log_poll "$DAEMON_LOG" "moved from ${PORT[1]} to ${PORT[2]}" 3
}

xt_require
topo_up 3
: >"$DAEMON_LOG"
JS=$(dev_ino "$DAEMON_LOG")

# --- stderr is the journal
JOURNAL_STREAM=$JS daemon_start -v --listen none || abort "xdpbrd start" "$XT_WHY"
move_h1 journal
daemon_stop || fail "xdpbrd exits on SIGTERM" "status: $DAEMON_RC"
all_lines "journal: every line starts with a priority" '^<[0-7]>'
log_has "journal: the start is information (<6>)" "^<6>bridge $BR: forwarding on 3 ports"
log_has "journal: the MAC move is a warning (<4>)" \
	"^<4>MAC ${MAC[1]} vlan 0 moved from ${PORT[1]} to ${PORT[2]}"
log_has "journal: -v adds debug lines (<7>), libbpf's too" '^<7>libbpf: '
log_has "journal: SIGTERM is information (<6>)" '^<6>caught signal 15'
log_has "journal: no ident before the message (the journal has it)" '^<6>bridge '

# What stops the daemon is an error (<3>): a file it can't read.
JOURNAL_STREAM=$JS "$XDPBRD" -n -c "$XT_TMP/nosuch.conf" >/dev/null 2>>"$DAEMON_LOG"
log_has "journal: xdpbrd -n of a missing file: an error (<3>)" \
	"^<3>$XT_TMP/nosuch.conf: No such file"

# --- stderr is not the journal: plain lines, as always
: >"$DAEMON_LOG"
daemon_start --listen none || abort "xdpbrd start (no JOURNAL_STREAM)" "$XT_WHY"
move_h1 plain
daemon_stop || fail "xdpbrd exits on SIGTERM" "status: $DAEMON_RC"
all_lines "plain: every line starts with 'xdpbrd: '" '^xdpbrd: '
log_has "plain: the start" "^xdpbrd: bridge $BR: forwarding on 3 ports"
log_has "plain: the MAC move" "^xdpbrd: MAC ${MAC[1]} vlan 0 moved from ${PORT[1]}"

# --- JOURNAL_STREAM inherited, but stderr goes elsewhere (another file)
: >"$XT_TMP/other"
: >"$DAEMON_LOG"
JOURNAL_STREAM=$(dev_ino "$XT_TMP/other") daemon_start --listen none ||
	abort "xdpbrd start (JOURNAL_STREAM of another file)" "$XT_WHY"
daemon_stop || fail "xdpbrd exits on SIGTERM" "status: $DAEMON_RC"
all_lines "JOURNAL_STREAM of another file: plain lines" '^xdpbrd: '

finish

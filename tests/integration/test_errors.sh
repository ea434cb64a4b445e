#!/usr/bin/env bash
# Start-up errors: xdpbrd must fail with a message a person can act on and
# leave nothing behind: no XDP program on any port, no pins.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC2119
. "$(dirname "$0")/lib.sh"

# run_xdpbrd [PREFIX...] -- ARGS...: run xdpbrd in the foreground (10 s at
# most: it must fail, not start serving). Sets RUN_RC and RUN_OUT.
run_xdpbrd()
{
	local -a prefix=()
	while [ "$1" != -- ]; do
		prefix+=("$1")
		shift
	done
	shift
	RUN_OUT=$("${prefix[@]}" timeout -k 2 10 "$XDPBRD" "$@" 2>&1)
	RUN_RC=$?
}

# check_failed NAME WORDS-REGEX: the last run_xdpbrd failed (not timed out)
# and its message matches WORDS-REGEX (extended, case-insensitive).
check_failed()
{
	local name=$1 re=$2
	if [ "$RUN_RC" -eq 0 ] || [ "$RUN_RC" -eq 124 ] || [ "$RUN_RC" -eq 137 ]; then
		fail "$name: non-zero exit" "exit status: $RUN_RC (124/137: still running after 10 s)" \
			"$RUN_OUT"
	else
		pass "$name: non-zero exit ($RUN_RC)"
	fi
	if grep -qiE -- "$re" <<<"$RUN_OUT"; then
		pass "$name: message matches /$re/"
	else
		fail "$name: message matches /$re/" "${RUN_OUT:-(no output)}"
	fi
}

# check_nothing_left NAME PORT...: no XDP on PORTs, no pins for the bridge.
check_nothing_left()
{
	local name=$1 p
	shift
	for p in "$@"; do
		check_eq "$name: no XDP program on $p" null "$(port_xdp "$p")"
	done
	check_fail "$name: no pins in $PIN_DIR" test -e "$PIN_DIR"
}

xt_require
topo_up 3
P1=${PORT[1]} P2=${PORT[2]} P3=${PORT[3]}
NOSUCH=xt${ID}nx

# --- an interface that does not exist, last and first
run_xdpbrd -- "$BR" "$P1" "$NOSUCH"
check_failed "unknown interface as 2nd port" "$NOSUCH"
check_nothing_left "unknown interface as 2nd port" "$P1"

run_xdpbrd -- "$BR" "$NOSUCH" "$P1"
check_failed "unknown interface as 1st port" "$NOSUCH"
check_nothing_left "unknown interface as 1st port" "$P1"

# --- a port that already runs another XDP program
other=$XT_TMP/other_xdp
cat >"$other.c" <<'EOF'
#include <linux/bpf.h>
/* Someone else's XDP program: passes everything. */
__attribute__((section("xdp"), used)) int other_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}
char _license[] __attribute__((section("license"), used)) = "GPL";
EOF
if out=$(clang -O2 -g -target bpf -I"/usr/include/$(gcc -print-multiarch)" \
	-c "$other.c" -o "$other.o" 2>&1) &&
	out=$(ip link set dev "$P2" xdp obj "$other.o" sec xdp 2>&1); then
	other_id=$(port_prog_id "$P2")
	run_xdpbrd -- "$BR" "$P1" "$P2" "$P3"
	check_failed "2nd port has another XDP program" "$P2"
	check_nothing_left "2nd port has another XDP program" "$P1" "$P3"
	check_same "2nd port has another XDP program: that program stays on $P2" \
		"$other_id" "$(port_prog_id "$P2")"
	ip link set dev "$P2" xdp off
else
	fail "attach another XDP program to $P2" "$out"
fi

# --- not root. The unprivileged user runs a copy of xdpbrd in a directory
# it may enter: the checkout may live where it can't (a 0700 home), and
# then it would get "Permission denied" instead of xdpbrd's message.
UNPRIV_DIR=$(mktemp -d /tmp/xdpbr-unpriv.XXXXXX) || abort "mktemp -d"
XT_CLEANUP_CMDS+=("rm -rf '$UNPRIV_DIR'")
if ! { install -m 0755 "$XDPBRD" "$UNPRIV_DIR/xdpbrd" && chmod 0755 "$UNPRIV_DIR"; }; then
	abort "copy xdpbrd to $UNPRIV_DIR"
fi
XDPBRD=$UNPRIV_DIR/xdpbrd run_xdpbrd setpriv --reuid=65534 --regid=65534 --clear-groups -- \
	"$BR" "$P1" "$P2"
check_failed "not root" "root|privilege|CAP_(BPF|NET_ADMIN|SYS_ADMIN)"
check_nothing_left "not root" "$P1" "$P2"

# --- a kernel without BTF (hidden in a private mount namespace)
# shellcheck disable=SC2016 # $@ is for the inner sh
run_xdpbrd unshare -m sh -c 'mount -t tmpfs none /sys/kernel/btf && exec "$@"' sh -- \
	"$BR" "$P1" "$P2"
check_failed "no kernel BTF" "needs the kernel's BTF.*CONFIG_DEBUG_INFO_BTF"
check_nothing_left "no kernel BTF" "$P1" "$P2"

# --- and after all that, the bridge starts normally
if daemon_start; then
	pass "xdpbrd starts after the failed attempts"
	sleep 1
	check "ping h1 -> h2" hping 1 2
else
	fail "xdpbrd starts after the failed attempts" "$XT_WHY"
fi

finish

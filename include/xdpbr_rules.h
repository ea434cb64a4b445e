/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdpbr_rules.h - the rules both sides of the BPF / user-space boundary
 * apply, written once: compiled into the datapath (bpf/) and into the
 * library, the daemon, the CLI and the tests, on the types of xdpbr.h.
 */
#ifndef XDPBR_RULES_H
#define XDPBR_RULES_H

#include "xdpbr.h"

#ifdef __BPF__
#define XDPBR_RULE static __attribute__((always_inline)) inline
#else
#define XDPBR_RULE static inline
#endif

/* VLAN bitmaps (struct xdpbr_vlan_port member[], untagged[]): bit vid. The
 * word index is masked, so any vid stays inside the array. */
XDPBR_RULE int xdpbr_vlan_test(const __u64 *bits, __u16 vid)
{
	return (bits[(vid >> 6) & (XDPBR_VLAN_WORDS - 1)] >> (vid & 63)) & 1;
}

XDPBR_RULE void xdpbr_vlan_set(__u64 *bits, __u16 vid, int on)
{
	__u64 *w = &bits[(vid >> 6) & (XDPBR_VLAN_WORDS - 1)];
	__u64 bit = 1ULL << (vid & 63);

	if (on)
		*w |= bit;
	else
		*w &= ~bit;
}

/* The default PVID (default_pvid), as on the kernel bridge: a port that
 * follows it has it as its PVID and is an untagged member of that VLAN;
 * xdpbr_vlan_default() makes v so (on) or undoes it, for pvid 0 (none)
 * nothing. A port follows the default def while its PVID is def and it is
 * an untagged member of def; else someone configured it otherwise. */
XDPBR_RULE void xdpbr_vlan_default(struct xdpbr_vlan_port *v, __u16 pvid, int on)
{
	if (!pvid)
		return;
	xdpbr_vlan_set(v->member, pvid, on);
	xdpbr_vlan_set(v->untagged, pvid, on);
}

XDPBR_RULE int xdpbr_vlan_follows_default(const struct xdpbr_vlan_port *v, __u16 port_pvid,
					  __u16 def)
{
	return port_pvid == def && xdpbr_vlan_test(v->untagged, def);
}

/* A station's address: unicast (the I/G bit clear) and not all zero. Only
 * one can be learned, be a static or remote FDB entry, or be a source the
 * datapath accepts. */
XDPBR_RULE int xdpbr_mac_station(const __u8 *mac)
{
	return !(mac[0] & 1) && (mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]);
}

/* The port flag that puts a port in the flood set of storm class c
 * (enum xdpbr_storm_class): flood, mcast_flood or bcast_flood. A port is
 * in a class's flood maps when it is up and has that flag (lib/ctl.c
 * ctl_port_apply writes them so; the skb path floods by it). */
XDPBR_RULE __u32 xdpbr_flood_flag(__u32 c)
{
	if (c == XDPBR_STORM_BCAST)
		return XDPBR_PORT_BCAST_FLOOD;
	if (c == XDPBR_STORM_MCAST)
		return XDPBR_PORT_MCAST_FLOOD;
	return XDPBR_PORT_FLOOD;
}

XDPBR_RULE int xdpbr_flood_member(__u32 c, __u32 port_flags)
{
	return !(port_flags & XDPBR_PORT_DOWN) && (port_flags & xdpbr_flood_flag(c));
}

/* Ageing time of dynamic FDB entries: xdpbr_config.ageing_ns, where 0 (or
 * no config entry) means the default and XDPBR_AGEING_NEVER never. */
#define XDPBR_DEFAULT_AGEING_NS	(XDPBR_DEFAULT_AGEING_S * XDPBR_NSEC_PER_SEC)

XDPBR_RULE __u64 xdpbr_ageing_ns(const struct xdpbr_config *cfg)
{
	if (!cfg || !cfg->ageing_ns)
		return XDPBR_DEFAULT_AGEING_NS;
	return cfg->ageing_ns;
}

/* The link-local limit, frames a second per port and CPU:
 * xdpbr_config.linklocal_pps, where 0 (or no config entry) means the
 * default and XDPBR_LINKLOCAL_NONE no limit. */
XDPBR_RULE __u32 xdpbr_linklocal_pps(const struct xdpbr_config *cfg)
{
	if (!cfg || !cfg->linklocal_pps)
		return XDPBR_LINKLOCAL_PPS;
	return cfg->linklocal_pps;
}

/* An entry older than the ageing time is unknown to the datapath, whether or
 * not the daemon has deleted it yet; static and remote entries never age. */
XDPBR_RULE int xdpbr_fdb_stale(const struct xdpbr_fdb_val *v, __u64 now, __u64 ageing_ns)
{
	if (v->flags & (XDPBR_FDB_STATIC | XDPBR_FDB_REMOTE) || ageing_ns == XDPBR_AGEING_NEVER)
		return 0;
	return now > v->last_seen && now - v->last_seen > ageing_ns;
}

/* The dynamic entries of a slot: the datapath's count (xdpbr_learned) plus
 * user space's (xdpbr_learned_user), both signed. A sum below zero is a
 * drift (a race of a move with a delete, two CPUs moving one MAC) and
 * counts as none, so it never wraps into a count that blocks learning. */
XDPBR_RULE __u64 xdpbr_learned_count(__u64 dp, __u64 user)
{
	__s64 n = (__s64)(dp + user);

	return n < 0 ? 0 : (__u64)n;
}

/* Learning limits (fdb_max_learned, max_learned): n entries already learned
 * leave no room for another; a limit of 0 is no limit. */
XDPBR_RULE int xdpbr_limit_reached(__u64 n, __u32 limit)
{
	return limit && n >= limit;
}

/* Whether the daemon's heartbeat is older than its timeout at now (the
 * datapath's clock, CLOCK_MONOTONIC ns). A beat read ahead of a coarse
 * clock is not old; a timeout of 0 never expires. */
XDPBR_RULE int xdpbr_stp_expired(const struct xdpbr_stp_beat *b, __u64 now)
{
	return b && b->timeout_ns && now > b->beat_ns && now - b->beat_ns > b->timeout_ns;
}

/*
 * The state the datapath enforces on a port: the state in its word
 * (xdpbr_stp_port), except that with STP on and the heartbeat expired a
 * port that is not an edge port discards. The host interface's port counts
 * as an edge: only the host is behind it.
 */
XDPBR_RULE enum xdpbr_stp_state xdpbr_stp_effective(__u32 word, __u32 port_flags,
						     int stp_on, int expired)
{
	__u32 st = word & XDPBR_STP_STATE_MASK;

	if (stp_on && expired && !(word & XDPBR_STP_EDGE) && !(port_flags & XDPBR_PORT_HOST))
		return XDPBR_STP_DISCARDING;
	return st > XDPBR_STP_DISCARDING ? XDPBR_STP_DISCARDING : (enum xdpbr_stp_state)st;
}

/* FDB generation steps (xdpbr_fdbgen): the datapath adds this one when it
 * moves a MAC, user space XDPBR_FDBGEN_USER_STEP (xdpbr.h). */
#define XDPBR_FDBGEN_DP_STEP	1ULL

#endif /* XDPBR_RULES_H */

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * verdict.h - whether one copy of a frame may leave one port: the single
 * rule behind known unicast (XDP and TC), every flooded copy on the skb
 * path (xdpbr_tc_copy), the XDP egress program (xdpbr_egress) and the
 * count of the copies a devmap broadcast skips for their MTU. It plays the
 * part of the kernel's should_deliver() (net/bridge/br_forward.c), which
 * serves unicast and floods alike.
 *
 * The rules, in the order they are asked:
 *   - the flood set: a flooded copy goes only to ports in its class's
 *     set (bcast_flood, mcast_flood, flood), but a pruned multicast
 *     frame's (MC_FILTER) goes to its members and router ports whatever
 *     their mcast_flood, as in the kernel's br_multicast_flood;
 *   - never back out of the ingress port, unless it is in hairpin mode;
 *   - not between two isolated ports;
 *   - only out of a forwarding port (spanning tree), where a non-edge port
 *     discards while the daemon's heartbeat is past its timeout;
 *   - multicast snooping: a pruned frame only to the group's member ports,
 *     router ports and the host's port;
 *   - with VLAN filtering, only into the VLAN's member ports, tagged or
 *     untagged as the port sends that VLAN.
 * What is left is mechanics that need the frame (the tag written, the MTU
 * checked, the redirect): the caller's.
 *
 * Each rule is arithmetic or one array lookup, and no rule keeps state of
 * its own, so a loop over the slots (xdpbr_tc_flood_out) stays cheap to
 * verify.
 */
#ifndef XDPBR_BPF_VERDICT_H
#define XDPBR_BPF_VERDICT_H

#include "xdpbr_rules.h"
#include "maps.h"
#include "portcfg.h"
#include "stp.h"
#include "vlan.h"
#include "mcast.h"

/* The class of a copy that is not flooded (known unicast), or whose flood
 * set is already chosen (a devmap broadcast's egress program): no flood set
 * to ask. */
#define COPY_NO_FLOOD_SET	XDPBR_STORM__MAX

/* What the verdict needs of the frame and its ingress port. */
struct copy_src {
	const struct xdpbr_port *port;	/* the ingress port, or NULL */
	__u32 slot;			/* its slot; 0 when not a port */
	__u32 fc;			/* enum xdpbr_storm_class, or COPY_NO_FLOOD_SET */
	__u32 stp_block;		/* stp_flood_prepare(): non-edge ports discard */
	__u32 mc;			/* the snooping word (mcast.h), 0 for unicast */
	__u32 vlan_on;			/* VLAN filtering */
	__u16 vid;
};

enum copy_verdict {
	COPY_TAGGED,		/* goes; tagged, where VLAN filtering is on */
	COPY_UNTAGGED,		/* goes, untagged */
	COPY_NONE,		/* not a copy this port gets: out of the flood set,
				 * or its ingress without hairpin */
	COPY_PORT_STATE,	/* filtered: the port does not forward */
	COPY_ISOLATED,		/* filtered: both ports isolated */
	COPY_PRUNED,		/* filtered: multicast snooping */
	COPY_NOT_MEMBER,	/* filtered: not in the frame's VLAN */
};

/* Whether the copy goes. */
static __always_inline int copy_goes(enum copy_verdict v)
{
	return v <= COPY_UNTAGGED;
}

/*
 * The verdict on the copy of a frame from src to the port in slot (out: its
 * entry; NULL when the slot holds none, which only the unicast path may
 * ask about: an FDB entry of a port just removed).
 */
static __always_inline enum copy_verdict copy_verdict(const struct copy_src *src, __u32 slot,
						      const struct xdpbr_port *out)
{
	__u32 in_flags = src->port ? src->port->flags : 0;
	__u32 out_flags = out ? out->flags : 0;
	enum vlan_egress ve;

	if (src->fc < COPY_NO_FLOOD_SET && !(out_flags & xdpbr_flood_flag(src->fc)) &&
	    !(src->mc & MC_FILTER))
		return COPY_NONE;
	if (slot == src->slot) {
		if (!(in_flags & XDPBR_PORT_HAIRPIN))
			return COPY_NONE;
	} else if (in_flags & out_flags & XDPBR_PORT_ISOLATED) {
		return COPY_ISOLATED;
	}
	if (!stp_copy_forwards(src->stp_block, slot, out_flags))
		return COPY_PORT_STATE;
	if (!mcast_copy_ok(src->mc, slot, src->vid))
		return COPY_PRUNED;
	if (!src->vlan_on)
		return COPY_TAGGED;
	ve = vlan_egress_of(slot, src->vid);
	if (ve == VLAN_EG_NOT_MEMBER)
		return COPY_NOT_MEMBER;
	return ve == VLAN_EG_UNTAGGED ? COPY_UNTAGGED : COPY_TAGGED;
}

/* What a copy that does not go counts on its egress port: nothing when it
 * was never the port's (COPY_NONE), else flood_filtered. */
static __always_inline int copy_filtered(enum copy_verdict v)
{
	return v > COPY_NONE;
}

#endif /* XDPBR_BPF_VERDICT_H */

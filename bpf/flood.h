/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * flood.h - the copies of a flooded frame, after storm control admitted it
 * (the entry programs in xdpbr.bpf.c decide to flood):
 *   XDP  one devmap broadcast: the fast flood where no copy can need a
 *        rule, else the flood set with the egress program (xdpbr_egress),
 *        which judges each copy by copy_verdict (verdict.h); the copies a
 *        broadcast skips for their MTU counted first (xdpbr_xdp_copy_mtu);
 *   TC   a clone per slot (xdpbr_tc_copy), judged by the same verdict.
 * The copies' work is in global functions, which the verifier checks once
 * whatever calls them; they take scalars, packed here (pack.h).
 */
#ifndef XDPBR_BPF_FLOOD_H
#define XDPBR_BPF_FLOOD_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "pipeline.h"
#include "verdict.h"
#include "mtu.h"
#include "mcast.h"
#include "pack.h"
#include "skb.h"

/* ------------------------------------------------- a frame, as scalars */

/* What xdpbr_xdp_flood_out needs of a frame besides copy_in's: its
 * length, hairpin, and whether anything rules the fast flood out (a
 * pruned frame takes it to its group's ports only: xdp_mcast_set). */
static __always_inline __u64 flood_in(const struct frame *f, __u32 l3)
{
	__u64 block = (__u64)f->vlan_on | (__u64)f->stp.on |
		      (f->port->flags & XDPBR_PORT_ISOLATED);

	return PACK(FI_L3, l3) | PACK(FI_HAIRPIN, !!(f->port->flags & XDPBR_PORT_HAIRPIN)) |
	       PACK(FI_BLOCK, !!block);
}

/*
 * What a flooded copy needs of its frame, as scalars: the copy is a global
 * function (below), which the verifier checks once, whatever calls it, and
 * which takes no pointer into its caller's stack. Inlined into the loop
 * over 63 slots, each branch of the copy multiplied the paths the verifier
 * walked, and an egress MTU check took it past its limit of a million
 * instructions.
 *
 * The ingress slot, flood class, VLAN filtering and tag, and the spanning
 * tree's block (stp_flood_prepare: non-edge ports discard). */
static __always_inline __u64 copy_in(struct frame *f, enum xdpbr_storm_class fc)
{
	return PACK(CI_SLOT, f->slot) | PACK(CI_CLASS, fc) |
	       PACK(CI_VLAN_ON, !!f->vlan_on) | PACK(CI_TAGGED, !!f->vi.tagged) |
	       PACK(CI_STP_BLOCK, stp_flood_prepare(&f->stp));
}

/* The VLAN, and in bits 32-63 the snooping word (bpf/mcast.h). */
static __always_inline __u64 copy_vlan(const struct frame *f)
{
	return PACK(CV_VID, f->vi.vid) | PACK(CV_TCI, f->vi.tci) | PACK(CV_MC, f->mc);
}

static __always_inline __u64 copy_lens(const struct frame *f)
{
	return PACK(CL_SEGS, f->segs) | PACK(CL_MTU_L3, f->mtu_l3);
}

/* A copy's copy_src (verdict.h), from what copy_in and copy_vlan packed. */
static __always_inline void copy_src_unpack(struct copy_src *src, __u64 in, __u64 vlan)
{
	src->slot = UNPACK(CI_SLOT, in);
	src->port = port_at(src->slot);
	src->fc = UNPACK(CI_CLASS, in);
	src->stp_block = UNPACK(CI_STP_BLOCK, in);
	src->mc = UNPACK(CV_MC, vlan);
	src->vlan_on = UNPACK(CI_VLAN_ON, in);
	src->vid = UNPACK(CV_VID, vlan);
}

/* ------------------------------------------------------------------ XDP */

/*
 * A devmap broadcast skips, silently, every port whose MTU the frame
 * exceeds (the kernel's xdp_ok_fwd_dev): no egress program runs for that
 * copy and no tracepoint fires. So a frame longer than the bridge's
 * smallest MTU counts, before it is flooded, the copies the ports of its
 * flood set will not get. A global function per port, like xdpbr_tc_copy,
 * keeps the loop cheap to verify; it runs only for such frames.
 */
__noinline int xdpbr_xdp_copy_mtu(struct xdp_md *ctx, __u32 slot, __u64 in, __u64 vlan,
				  __u32 l3)
{
	struct xdpbr_port *out = port_at(slot);
	__u32 out_ifindex = port_tx_ifindex(out, slot), mtu_len = l3;
	struct copy_src src;
	enum copy_verdict v;

	if (!ctx || !out_ifindex)
		return 0;
	if (bpf_check_mtu(ctx, out_ifindex, &mtu_len, 0, 0) != BPF_MTU_CHK_RET_FRAG_NEEDED)
		return 0;	/* the egress program's to judge and count */
	copy_src_unpack(&src, in, vlan);
	v = copy_verdict(&src, slot, out);
	/* counted as the egress program would have: filtered first */
	if (copy_goes(v))
		count(stats_of(slot), XDPBR_CNT_TX_DROPPED_MTU);
	else if (copy_filtered(v))
		count(stats_of(slot), XDPBR_CNT_FLOOD_FILTERED);
	return 0;
}

static __always_inline void xdp_flood_mtu(struct xdp_md *ctx, const struct xdpbr_config *cfg,
					  __u64 in, __u64 vlan, __u32 l3)
{
	__u32 slot, top;

	if (l3 <= mtu_min(cfg))
		return;
	top = flood_top();
#pragma clang loop unroll(disable)
	for_each_flood_slot(slot, top)
		xdpbr_xdp_copy_mtu(ctx, slot, in, vlan, l3);
}

/* 1 if x is not 0, without a branch: x | -x has its top bit set then. */
static __always_inline __u64 nonzero(__u64 x)
{
	return (x | -x) >> 63;
}

/* The index of the one bit set in b: a binary search in six steps, each
 * asking which half of the remaining span holds it (BPF has no ctz). */
static __always_inline __u32 bit_index(__u64 b)
{
	return (__u32)(nonzero(b & 0xffffffff00000000ULL) << 5 |
		       nonzero(b & 0xffff0000ffff0000ULL) << 4 |
		       nonzero(b & 0xff00ff00ff00ff00ULL) << 3 |
		       nonzero(b & 0xf0f0f0f0f0f0f0f0ULL) << 2 |
		       nonzero(b & 0xccccccccccccccccULL) << 1 |
		       nonzero(b & 0xaaaaaaaaaaaaaaaaULL));
}

/* The tx of a copy of len bytes to each slot of mask (below
 * XDPBR_FLOOD_FAST_SLOTS), counted by the ingress: walking only the set
 * bits. */
static __always_inline void count_tx_mask(__u64 mask, __u64 len)
{
	__u64 bit;
	__u32 i;

	for (i = 0; i < XDPBR_FLOOD_FAST_SLOTS && mask; i++) {
		bit = mask & -mask;
		mask &= ~bit;
		count_tx(stats_of(bit_index(bit)), len, 1);
	}
}

/*
 * The fast flood. Most floods need none of the egress program's per-copy
 * rules, and running it cost ~60 ns of BPF time per copy plus the kernel's
 * call: broadcast to 3 ports delivered ~0.63 of a bare devmap broadcast.
 * So a flood goes into the class's fast map (xdpbr_flood_*_fast: the same
 * ports, no egress program) when no copy can need a rule:
 *   - xdpbr_flood_fast is ready (user space found the fast maps as the
 *     ports say, and no port in a spanning tree state set by hand);
 *   - VLAN filtering is off (no tag to check or pop per port);
 *   - STP is off (port states, and the dead-daemon rule, per copy);
 *   - the ingress port is not isolated (isolation drops a copy only
 *     between two isolated ports);
 *   - the frame is within the bridge's smallest MTU (no copy too big).
 * The ingress then counts each copy's tx itself: one count_tx per slot of
 * the class's mask (less the ingress slot, unless hairpin), walking only
 * the set bits. Drops of the driver are still counted by the
 * xdp_devmap_xmit tracepoint (xdpbr_xmit, keyed by the egress device),
 * and the flood and outcome counters are the slow path's.
 * Known inexactness: a copy in flight while user space flips a port's
 * membership (ctl_port_apply writes the maps, then recounts the mask) can
 * be counted against the other map's membership, for the nanoseconds the
 * reconfiguration takes.
 * The redirect's verdict, or -1 when the fast maps are not ready.
 */
static __always_inline long xdp_flood_fast(__u32 fc, __u64 flags, __u32 in_slot, __u64 len)
{
	struct xdpbr_flood_fast *ff;
	__u32 zero = 0;
	__u64 mask;
	long r;

	ff = bpf_map_lookup_elem(&xdpbr_flood_fast, &zero);
	if (!ff || !ff->ready)
		return -1;
	if (fc == XDPBR_STORM_BCAST) {
		mask = ff->mask[XDPBR_STORM_BCAST];
		r = bpf_redirect_map(&xdpbr_flood_bc_fast, 0, flags);
	} else if (fc == XDPBR_STORM_MCAST) {
		mask = ff->mask[XDPBR_STORM_MCAST];
		r = bpf_redirect_map(&xdpbr_flood_mc_fast, 0, flags);
	} else {
		mask = ff->mask[XDPBR_STORM_UNKNOWN];
		r = bpf_redirect_map(&xdpbr_flood_uu_fast, 0, flags);
	}
	/* ready: every slot, the ingress's too, is below XDPBR_FLOOD_FAST_SLOTS */
	if (flags & BPF_F_EXCLUDE_INGRESS)
		mask &= ~(1ULL << (in_slot & 63));
	if (r != XDP_REDIRECT)
		return r;
	count_tx_mask(mask, len);
	return XDP_REDIRECT;
}

/*
 * A pruned frame (multicast snooping, mc its word) where the fast flood
 * could serve it: to its group's ports (bpf/mcast.h mcast_set, less the
 * ingress unless hairpin) with no egress program, instead of a copy to
 * every port that the egress program then refuses but its ports (20
 * ports: ~3.6 us a frame). One port: one devmap redirect, as known
 * unicast goes; more: a broadcast into the group's own devmap
 * (xdpbr_mdb_devs). The ingress counts the copies' tx. XDP_DROP when the
 * group has no port to go to (the frame is the flood's all the same: its
 * outcome is flood_multicast), or -1: the slow flood, for a group without
 * a set or its devmap, one with a port that is down (out of the flood
 * maps and the tx map), and while the fast maps are not ready (a port
 * state set by hand).
 * Known inexactness: user space writes a changed set's devmap and mask
 * one after the other; a frame between the two counts its copies by the
 * other one.
 */
static __always_inline long xdp_mcast_set(__u32 mc, __u64 flags, __u32 in_slot, __u64 len)
{
	__u32 zero = 0, slot, k = mc & (MC_IP6 | MC_GID_MASK);
	struct xdpbr_flood_fast *ff;
	const __u64 *set;
	void *devs;
	__u64 mask;

	ff = bpf_map_lookup_elem(&xdpbr_flood_fast, &zero);
	if (!ff || !ff->ready)
		return -1;
	set = mcast_set(mc);
	if (!set)
		return -1;
	mask = *set;
	/* ready: every slot, the ingress's too, is below XDPBR_FLOOD_FAST_SLOTS */
	if (flags & BPF_F_EXCLUDE_INGRESS)
		mask &= ~(1ULL << (in_slot & 63));
	if (!mask)
		return XDP_DROP;
	/* A port of the set that is down is in no flood map, and gets no
	 * copy: the slow flood then. (No port has mcast_flood off here: a
	 * pruned frame goes the skb path while one has, XDPBR_MCAST_MC_OUT.) */
	if (mask & ~ff->mask[XDPBR_STORM_MCAST])
		return -1;
	if (!(mask & (mask - 1))) {
		slot = bit_index(mask);
		if (bpf_redirect_map(&xdpbr_tx, slot, 0) != XDP_REDIRECT)
			return -1;
		count_tx(stats_of(slot), len, 1);
		return XDP_REDIRECT;
	}
	devs = bpf_map_lookup_elem(&xdpbr_mdb_devs, &k);
	if (!devs || bpf_redirect_map(devs, 0, flags) != XDP_REDIRECT)
		return -1;
	count_tx_mask(mask, len);
	return XDP_REDIRECT;
}

/*
 * The slow flood: into the class's flood set with the egress program, which
 * applies every per-copy rule. A devmap broadcast visits every bucket of
 * its map, 2,048 for the maps of a full bridge: the small maps of 64 when
 * every port is in them (xdpbr_flood_fast.small). The redirect's verdict.
 */
static __always_inline long xdp_flood_slow(__u32 fc, __u64 flags)
{
	struct xdpbr_flood_fast *ff;
	__u32 zero = 0;

	ff = bpf_map_lookup_elem(&xdpbr_flood_fast, &zero);
	if (ff && ff->small) {
		if (fc == XDPBR_STORM_BCAST)
			return bpf_redirect_map(&xdpbr_flood_bc_small, 0, flags);
		if (fc == XDPBR_STORM_MCAST)
			return bpf_redirect_map(&xdpbr_flood_mc_small, 0, flags);
		return bpf_redirect_map(&xdpbr_flood_uu_small, 0, flags);
	}
	if (fc == XDPBR_STORM_BCAST)
		return bpf_redirect_map(&xdpbr_flood_bc, 0, flags);
	if (fc == XDPBR_STORM_MCAST)
		return bpf_redirect_map(&xdpbr_flood_mc, 0, flags);
	return bpf_redirect_map(&xdpbr_flood_uu, 0, flags);
}

/*
 * The broadcast of a flood: the fast flood where it may (xdp_flood_fast;
 * a pruned frame xdp_mcast_set), else the slow flood (xdp_flood_slow),
 * after counting the copies the kernel will skip for their MTU
 * (xdp_flood_mtu). A global
 * function taking scalars, like xdpbr_xdp_copy_mtu: the verifier checks
 * its branches and loops once, not in every path of xdpbr_rx that floods
 * (inlined, the fast flood's choice made it walk ~60k instructions more).
 * in is packed by flood_in (pack.h FI_*), ci and cv by copy_in and
 * copy_vlan; len is the frame's length. The redirect's verdict, or XDP_DROP:
 * pruned to no port.
 */
__noinline int xdpbr_xdp_flood_out(struct xdp_md *ctx, __u64 in, __u64 ci, __u64 cv, __u64 len)
{
	__u32 l3 = UNPACK(FI_L3, in), in_slot = UNPACK(CI_SLOT, ci), fc = UNPACK(CI_CLASS, ci);
	__u32 mc = UNPACK(CV_MC, cv);
	struct xdpbr_config *cfg = config_get();
	__u64 flags = BPF_F_BROADCAST;
	long r;

	if (!ctx)
		return XDP_ABORTED;
	if (!UNPACK(FI_HAIRPIN, in))
		flags |= BPF_F_EXCLUDE_INGRESS;
	if (!UNPACK(FI_BLOCK, in) && l3 <= mtu_min(cfg)) {
		if (mc & MC_FILTER)
			r = xdp_mcast_set(mc, flags, in_slot, len);
		else
			r = xdp_flood_fast(fc, flags, in_slot, len);
		if (r >= 0)
			return (int)r;
	}
	xdp_flood_mtu(ctx, cfg, ci, cv, l3);
	return (int)xdp_flood_slow(fc, flags);
}

/* ------------------------------------------------------------------- TC */

/*
 * One flooded copy to the port in slot, if copy_verdict lets it go: tagged
 * as the port sends the VLAN, not larger than the port's MTU, a clone of
 * the skb with its offload state. Arguments packed by copy_in/vlan/lens.
 */
__noinline int xdpbr_tc_copy(struct __sk_buff *skb, __u32 slot, __u64 in, __u64 vlan,
			     __u64 lens)
{
	struct vlan_info vi = {
		.vid = UNPACK(CV_VID, vlan), .tci = UNPACK(CV_TCI, vlan),
		.tagged = UNPACK(CI_TAGGED, in),
	};
	__u32 segs = UNPACK(CL_SEGS, lens), mtu_l3 = UNPACK(CL_MTU_L3, lens);
	struct xdpbr_port *out = port_at(slot);
	__u32 out_ifindex = port_tx_ifindex(out, slot);
	struct xdpbr_stats *st;
	struct copy_src src;
	enum copy_verdict v;

	if (!skb || !out_ifindex)
		return 0;
	copy_src_unpack(&src, in, vlan);
	if (!src.port)
		return 0;
	v = copy_verdict(&src, slot, out);
	st = stats_of(slot);
	if (!copy_goes(v) || (src.vlan_on && tc_set_tag(skb, &vi, v == COPY_UNTAGGED))) {
		if (v != COPY_NONE)	/* filtered, or its tag not written */
			count(st, XDPBR_CNT_FLOOD_FILTERED);
		return 0;
	}
	if (mtu_l3 && tc_too_big(skb, out_ifindex, mtu_l3)) {
		count(st, XDPBR_CNT_TX_DROPPED_MTU);
		return 0;
	}
	if (bpf_clone_redirect(skb, out_ifindex, 0))
		count(st, XDPBR_CNT_TX_DROPPED);
	else
		count_tx(st, wire_len(skb), segs);
	return 0;
}

/*
 * The copies of a flood, one per slot in use (flood_top: a bridge of 3
 * ports walks 3 slots, one of 1024 all of them); of a pruned frame, one
 * per port of its group's set where it has one (bpf/mcast.h mcast_set),
 * each still judged by copy_verdict. A global function, as
 * xdpbr_tc_copy is: the verifier walks the loop's up to XDPBR_MAX_PORTS - 1
 * turns once, not in every path of xdpbr_tc_rx that floods. A loop, not
 * unrolled: copies of the body would outgrow the branch offsets.
 */
__noinline int xdpbr_tc_flood_out(struct __sk_buff *skb, __u64 in, __u64 vlan, __u64 lens)
{
	__u32 slot, top = flood_top(), mc = UNPACK(CV_MC, vlan), i;
	const __u64 *set = mc & MC_FILTER ? mcast_set(mc) : NULL;
	__u64 mask, bit;

	if (!skb)
		return 0;
	if (set) {
		mask = *set;
#pragma clang loop unroll(disable)
		for (i = 0; i < XDPBR_FLOOD_FAST_SLOTS && mask; i++) {
			bit = mask & -mask;
			mask &= ~bit;
			xdpbr_tc_copy(skb, bit_index(bit), in, vlan, lens);
		}
		return 0;
	}
#pragma clang loop unroll(disable)
	for_each_flood_slot(slot, top)
		xdpbr_tc_copy(skb, slot, in, vlan, lens);
	return 0;
}

#endif /* XDPBR_BPF_FLOOD_H */

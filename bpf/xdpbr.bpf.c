// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpbr.bpf.c - the bridge datapath.
 *
 * The same steps (pipeline.h) behind two entries:
 *   xdpbr_rx      XDP, on physical ports: devmap redirect for known
 *                 unicast, devmap broadcast for floods, and a devmap egress
 *                 program (xdpbr_egress) per flooded copy where a copy
 *                 needs per-port rules (else the fast flood, no program);
 *   xdpbr_tc_rx   TC (clsact ingress), on virtual ports (veth, tap): the
 *                 skb keeps its GSO and checksum-offload state, known
 *                 unicast is one bpf_redirect, floods a clone per port.
 *   xdpbr_bpdu_sock  socket filter of the daemon's BPDU sockets (below).
 * In a bridge that mixes the two, an XDP port hands the frames it can't
 * deliver itself (to a virtual port, and floods) to the stack, where the TC
 * program on the same port forwards them: counted once, learned once.
 *
 * Attach by hand with iproute2 (maps are pinned by name):
 *   ip link set dev eth1 xdp obj build/xdpbr.bpf.o sec xdp.frags
 *   tc qdisc add dev veth1 clsact
 *   tc filter add dev veth1 ingress bpf da obj build/xdpbr.bpf.o sec tc
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "xdpbr.h"
#include "pipeline.h"
#include "linklocal.h"
#include "mtu.h"
#include "mcast.h"
#include "pack.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* ------------------------------------------------------------------ XDP */

static __always_inline int xdp_end(struct frame *f, enum xdpbr_counter c, int action)
{
	outcome(f, c);
	return action;
}

/*
 * A devmap broadcast skips, silently, every port whose MTU the frame
 * exceeds (the kernel's xdp_ok_fwd_dev): no egress program runs for that
 * copy and no tracepoint fires. So a frame longer than the bridge's
 * smallest MTU counts, before it is flooded, the copies the ports of its
 * flood set will not get. A global function per port, like xdpbr_tc_copy,
 * keeps the loop cheap to verify; it runs only for such frames.
 */
__noinline int xdpbr_xdp_copy_mtu(struct xdp_md *ctx, __u32 slot, __u32 in_ifindex,
				  __u32 fc_block, __u32 l3)
{
	struct xdpbr_port *out = port_at(slot);
	__u32 out_ifindex = port_tx_ifindex(out, slot), mtu_len = l3;

	if (!ctx || !out_ifindex || out_ifindex == in_ifindex ||
	    !in_flood_set((enum xdpbr_storm_class)(fc_block & 3), out) ||
	    !stp_copy_forwards(fc_block >> 2, slot, out))
		return 0;
	if (bpf_check_mtu(ctx, out_ifindex, &mtu_len, 0, 0) == BPF_MTU_CHK_RET_FRAG_NEEDED)
		count(stats_of(slot), XDPBR_CNT_TX_DROPPED_MTU);
	return 0;
}

static __always_inline void xdp_flood_mtu(struct xdp_md *ctx, const struct xdpbr_config *cfg,
					  __u32 in_ifindex, __u32 fc, __u32 l3)
{
	__u32 slot, fc_block, top;
	struct stp_view stp;

	if (l3 <= mtu_min(cfg))
		return;
	/* the class, and whether non-edge ports discard (stp_flood_prepare) */
	stp_view_init(&stp, cfg);
	fc_block = (fc & 3) | stp_flood_prepare(&stp) << 2;
	top = flood_top();
#pragma clang loop unroll(disable)
	for_each_flood_slot(slot, top)
		xdpbr_xdp_copy_mtu(ctx, slot, in_ifindex, fc_block, l3);
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
	__u32 zero = 0, i;
	__u64 mask, bit;
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
	for (i = 0; i < XDPBR_FLOOD_FAST_SLOTS && mask; i++) {
		bit = mask & -mask;
		mask &= ~bit;
		count_tx(stats_of(bit_index(bit)), len, 1);
	}
	return XDP_REDIRECT;
}

/*
 * The broadcast of a flood: the fast flood where it may (xdp_flood_fast),
 * else into the flood set with the egress program, after counting the
 * copies the kernel will skip for their MTU (xdp_flood_mtu). A global
 * function taking scalars, like xdpbr_xdp_copy_mtu: the verifier checks
 * its branches and loops once, not in every path of xdpbr_rx that floods
 * (inlined, the fast flood's choice made it walk ~60k instructions more).
 * in is packed by flood_in (pack.h FI_*); len is the frame's length. The
 * redirect's verdict.
 */
__noinline int xdpbr_xdp_flood_out(struct xdp_md *ctx, __u64 in, __u64 len)
{
	__u32 l3 = UNPACK(FI_L3, in), in_slot = UNPACK(FI_SLOT, in), fc = UNPACK(FI_CLASS, in);
	struct xdpbr_config *cfg = config_get();
	__u64 flags = BPF_F_BROADCAST;
	long r;

	if (!ctx)
		return XDP_ABORTED;
	if (!UNPACK(FI_HAIRPIN, in))
		flags |= BPF_F_EXCLUDE_INGRESS;
	if (!UNPACK(FI_BLOCK, in) && l3 <= mtu_min(cfg)) {
		r = xdp_flood_fast(fc, flags, in_slot, len);
		if (r >= 0)
			return (int)r;
	}
	xdp_flood_mtu(ctx, cfg, ctx->ingress_ifindex, fc, l3);
	if (fc == XDPBR_STORM_BCAST)
		r = bpf_redirect_map(&xdpbr_flood_bc, 0, flags);
	else if (fc == XDPBR_STORM_MCAST)
		r = bpf_redirect_map(&xdpbr_flood_mc, 0, flags);
	else
		r = bpf_redirect_map(&xdpbr_flood_uu, 0, flags);
	return (int)r;
}

/* What xdpbr_xdp_flood_out needs of a frame, as one scalar. */
static __always_inline __u64 flood_in(const struct frame *f, enum xdpbr_storm_class fc,
				      __u32 l3)
{
	__u64 block = (__u64)f->vlan_on | (__u64)f->stp.on |
		      (f->port->flags & XDPBR_PORT_ISOLATED) | (f->mc & MC_FILTER);

	return PACK(FI_L3, l3) | PACK(FI_HAIRPIN, !!(f->port->flags & XDPBR_PORT_HAIRPIN)) |
	       PACK(FI_BLOCK, !!block) | PACK(FI_SLOT, f->slot) | PACK(FI_CLASS, fc);
}

/* Flood inside XDP: one devmap broadcast into the flood set of the class,
 * after storm control, with a VLAN-aware frame normalised to carry its tag
 * (the egress programs tag per port). The ingress port gets a copy only
 * in hairpin mode. */
static __always_inline int xdp_flood(struct xdp_md *ctx, struct frame *f,
				     enum xdpbr_storm_class fc)
{
	enum xdpbr_counter c = flood_admit(f, fc);
	__u64 len;

	if (c != STEP_OK)
		return xdp_end(f, c, XDP_DROP);
	if (f->vlan_on && vlan_egress_fix(ctx, &f->vi, 0))
		return xdp_end(f, XDPBR_CNT_DROP_REDIRECT, XDP_DROP);
	len = xdp_frame_len(ctx);
	if (xdpbr_xdp_flood_out(ctx, flood_in(f, fc, mtu_l3_len(len, xdp_proto(ctx))), len) !=
	    XDP_REDIRECT)
		return xdp_end(f, XDPBR_CNT_DROP_REDIRECT, XDP_DROP);
	return xdp_end(f, flood_counter(fc), XDP_REDIRECT);
}

/* Known unicast larger than what the egress port in slot takes. */
static __always_inline int xdp_too_big(struct xdp_md *ctx, const struct frame *f,
				       __u32 slot, __u64 len)
{
	__u32 l3 = mtu_l3_len(len, xdp_proto(ctx)), ifindex;

	if (l3 <= mtu_min(f->cfg))
		return 0;
	ifindex = port_tx_ifindex(port_at(slot), slot);
	return ifindex && mtu_exceeded(ctx, f->cfg, ifindex, l3);
}

/* Known unicast: tag or untag for the egress port, one devmap redirect. */
static __always_inline int xdp_forward(struct xdp_md *ctx, struct frame *f,
				       const struct egress *eg)
{
	enum xdpbr_counter c = check_pair(f, eg);
	__u64 len;

	if (c != STEP_OK)
		return xdp_end(f, c, XDP_DROP);
	if (f->vlan_on) {
		enum vlan_egress ve = vlan_egress_of(eg->slot, f->vi.vid);
		int untag = ve == VLAN_EG_UNTAGGED;

		if (ve == VLAN_EG_NOT_MEMBER)
			return xdp_end(f, XDPBR_CNT_DROP_VLAN, XDP_DROP);
		if (vlan_egress_fix(ctx, &f->vi, untag))
			return xdp_end(f, XDPBR_CNT_DROP_REDIRECT, XDP_DROP);
		/* vi now describes the rewritten frame, for a fallback flood */
		f->vi.tagged = !untag;
	}
	len = xdp_frame_len(ctx);
	if (xdp_too_big(ctx, f, eg->slot, len))
		return xdp_end(f, XDPBR_CNT_DROP_MTU, XDP_DROP);
	/* A port that has left the tx map (removed, link down) is unknown. */
	if (bpf_redirect_map(&xdpbr_tx, eg->slot, 0) != XDP_REDIRECT)
		return xdp_flood(ctx, f, XDPBR_STORM_UNKNOWN);
	count_tx(stats_of(eg->slot), len, 1);
	return xdp_end(f, XDPBR_CNT_FORWARDED, XDP_REDIRECT);
}

/* A multicast frame's snooping word (bpf/mcast.h), as a global function:
 * verified once, not again in each program and path that asks (Debian
 * 12's 6.1 verifier gives up on xdpbr_rx with it inlined). The egress
 * program asks too: the ingress program's word is not handed over. */
__noinline int xdpbr_mcast_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + ETH_HLEN > data_end || !(*(__u8 *)data & 1))
		return 0;
	return (int)mcast_classify(data, data_end);
}

SEC("xdp.frags")
int xdpbr_rx(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;		/* the head of a multi-buffer frame */
	void *data_end = (void *)(long)ctx->data_end;
	struct frame f = {};
	struct egress eg;
	struct ethhdr *eth;
	enum xdpbr_counter c;
	int mixed;

	/* Attached but not (yet) a port of the bridge: leave it to the host. */
	if (!frame_begin(&f, ctx->ingress_ifindex, xdp_frame_len(ctx), 1, 1))
		return xdp_end(&f, XDPBR_CNT_PASS_NOT_PORT, XDP_PASS);

	/* parse, classify */
	eth = parse_eth(data, data_end);
	if (!eth)
		return xdp_end(&f, XDPBR_CNT_DROP_RUNT, XDP_DROP);
	c = check_addresses(&f, eth->h_dest, eth->h_source);
	if (c == XDPBR_CNT_PASS_LINKLOCAL)
		c = linklocal_admit(&f, eth->h_dest);
	if (c == XDPBR_CNT_PASS_LINKLOCAL)
		return xdp_end(&f, c, XDP_PASS);
	if (c != STEP_OK)
		return xdp_end(&f, c, XDP_DROP);
	frame_config(&f);
	c = stp_ingress(&f);
	if (c != STEP_OK)
		return xdp_end(&f, c, XDP_DROP);
	if (f.vlan_on) {
		c = vlan_outcome(vlan_ingress(eth, data_end, f.port, &f.vi));
		if (c != STEP_OK)
			return xdp_end(&f, c, XDP_DROP);
	}

	/* learn; a learning port forwards nothing */
	c = learn_source(&f, eth->h_source);
	if (c == STEP_OK)
		c = stp_learned(&f);
	if (c != STEP_OK)
		return xdp_end(&f, c, XDP_DROP);

	/* forward / flood; what only the skb path can deliver goes to the
	 * stack, to this port's TC program, which counts its outcome. */
	/* A port in generic XDP mode redirects through the stack
	 * (dev_queue_xmit), which every port takes: it hands nothing over.
	 * Nor could it: with a multi-buffer program, generic XDP gives the
	 * stack a copy of the skb that bpf_clone_redirect() at TC ingress then
	 * sends without its Ethernet header (seen on 6.18). */
	mixed = f.port->mode != XDPBR_MODE_GENERIC && skb_ports_present();
	/* IGMP/MLD go to the stack too, where this port's TC program floods
	 * them and hands them on to the kernel bridge, which snoops; so does
	 * a pruned frame while a port is out of the multicast flood set, as
	 * the TC program's copies ask mcast_copy_ok alone (mcast_some_out). */
	if (f.cls == DST_MULTICAST) {
		f.mc = (__u32)xdpbr_mcast_xdp(ctx);
		if ((f.mc & MC_CONTROL || (f.mc & MC_FILTER && mcast_some_out())) &&
		    f.port->mode != XDPBR_MODE_GENERIC)
			return XDP_PASS;
	}
	if (f.cls != DST_UNICAST)
		return mixed ? XDP_PASS : xdp_flood(ctx, &f, flood_class(f.cls));
	if (!lookup_dst(&f, eth->h_dest, &eg))
		return mixed ? XDP_PASS : xdp_flood(ctx, &f, XDPBR_STORM_UNKNOWN);
	if (mixed && port_is_skb(eg.slot))
		return XDP_PASS;
	return xdp_forward(ctx, &f, &eg);
}

/* Runs for every flooded copy, on the egress port: drop a copy to a port
 * that is not forwarding (spanning tree) or that multicast snooping
 * prunes (neither a member of the group nor a router port), between two
 * isolated ports, for
 * a VLAN the port is not in, or larger than the port's MTU; untag it where
 * the port sends that VLAN untagged; count the rest as the port's
 * transmissions. */
SEC("xdp.frags/devmap")
int xdpbr_egress(struct xdp_md *ctx)
{
	__u32 ifindex = ctx->egress_ifindex;
	__u32 in_ifindex = ctx->ingress_ifindex;
	struct xdpbr_port *port;
	struct xdpbr_config *cfg;
	struct xdpbr_stats *st;
	struct stp_view stp;
	__u64 len;

	port = port_of(ifindex);
	if (!port)
		return XDP_PASS;
	st = stats_of(port->slot);
	cfg = config_get();
	stp_view_init(&stp, cfg);
	if (!stp_forwards(&stp, port->slot, port) ||
	    !mcast_copy_ok((__u32)xdpbr_mcast_xdp(ctx), port->slot) ||
	    ((port->flags & XDPBR_PORT_ISOLATED) &&
	     copy_isolated(port_of(in_ifindex), in_ifindex, port, ifindex))) {
		count(st, XDPBR_CNT_FLOOD_FILTERED);
		return XDP_DROP;
	}
	if (cfg && cfg->flags & XDPBR_CFG_VLAN_FILTERING) {
		void *data = (void *)(long)ctx->data;
		void *data_end = (void *)(long)ctx->data_end;
		struct ethhdr *eth = data;
		struct vlan_hdr *vh = (void *)(eth + 1);
		enum vlan_egress ve;

		/* The ingress program tagged every flooded frame. */
		if ((void *)(vh + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_8021Q)) {
			count(st, XDPBR_CNT_FLOOD_FILTERED);
			return XDP_DROP;
		}
		ve = vlan_egress_of(port->slot, bpf_ntohs(vh->tci) & VLAN_VID_MASK);
		if (ve == VLAN_EG_NOT_MEMBER ||
		    (ve == VLAN_EG_UNTAGGED && vlan_pop(ctx))) {
			count(st, XDPBR_CNT_FLOOD_FILTERED);
			return XDP_DROP;
		}
	}
	len = xdp_frame_len(ctx);
	if (mtu_exceeded(ctx, cfg, ifindex, mtu_l3_len(len, xdp_proto(ctx)))) {
		count(st, XDPBR_CNT_TX_DROPPED_MTU);
		return XDP_DROP;
	}
	count_tx(st, len, 1);
	return XDP_PASS;
}

/* ------------------------------------------------------------------- TC */

/* The skb path's frames, as the wire sees them: a hardware-accelerated
 * VLAN tag (the stack moved it out of the frame) still takes 4 bytes. */
static __always_inline __u64 wire_len(const struct __sk_buff *skb)
{
	return skb->len + (skb->vlan_present ? 4 : 0);
}

/*
 * The wire frames a GSO packet stands for. The stack fills gso_segs for
 * what it builds; a tap's (a VM's) super-frames come with gso_size only,
 * so count them from the headers: Ethernet, IPv4 or IPv6, TCP or UDP.
 */
static __always_inline __u32 gso_frames(struct __sk_buff *skb)
{
	__u32 hdr = ETH_HLEN, payload;
	__u8 ip[10], l4 = 0, doff;

	if (!skb->gso_size)
		return 1;
	if (skb->gso_segs)
		return skb->gso_segs;
	if (bpf_skb_load_bytes(skb, ETH_HLEN, ip, sizeof(ip)))
		return 1;
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		hdr += (ip[0] & 0x0f) * 4;
		l4 = ip[9];
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		hdr += 40;		/* no extension headers in GSO packets */
		l4 = ip[6];
	}
	if (l4 == IPPROTO_TCP && !bpf_skb_load_bytes(skb, hdr + 12, &doff, 1))
		hdr += (doff >> 4) * 4;
	else if (l4 == IPPROTO_UDP)
		hdr += 8;
	if (skb->len <= hdr)
		return 1;
	payload = skb->len - hdr;
	return (payload + skb->gso_size - 1) / skb->gso_size;
}

static __always_inline int tc_end(struct frame *f, enum xdpbr_counter c, int action)
{
	outcome(f, c);
	return action;
}

/* Makes the skb carry what the egress wants: VLAN vi tagged, or untagged.
 * The tag stays in the skb's metadata (as the stack put it there), and the
 * egress device or the stack inserts it. 0 or a negative error. */
static __always_inline int tc_set_tag(struct __sk_buff *skb, const struct vlan_info *vi,
				      int untagged)
{
	__u16 tci = vlan_out_tci(vi);

	if (untagged)
		return skb->vlan_present ? bpf_skb_vlan_pop(skb) : 0;
	if (skb->vlan_present) {
		if (skb->vlan_proto == bpf_htons(ETH_P_8021Q) && skb->vlan_tci == tci)
			return 0;
		if (bpf_skb_vlan_pop(skb))
			return -1;
	}
	return bpf_skb_vlan_push(skb, bpf_htons(ETH_P_8021Q), tci);
}

/* Whether the skb is larger than what ifindex takes: a GSO packet by the
 * segments it stands for, others by their network-layer length l3. */
static __always_inline int tc_too_big(struct __sk_buff *skb, __u32 ifindex, __u32 l3)
{
	__u32 mtu_len = 0;

	if (skb->gso_size)
		return bpf_check_mtu(skb, ifindex, &mtu_len, 0, BPF_MTU_CHK_SEGS) ==
		       BPF_MTU_CHK_RET_SEGS_TOOBIG;
	mtu_len = l3;
	return bpf_check_mtu(skb, ifindex, &mtu_len, 0, 0) == BPF_MTU_CHK_RET_FRAG_NEEDED;
}

/* Whether the skb may be too big for some port: larger than the bridge's
 * smallest MTU, or a GSO packet. 0, or the length to check. */
static __always_inline __u32 tc_mtu_len(struct __sk_buff *skb, const struct frame *f)
{
	__u32 l3 = mtu_l3_len(skb->len, skb->protocol);

	if (skb->gso_size)
		return l3 ? l3 : 1;
	return l3 > mtu_min(f->cfg) ? l3 : 0;
}

/*
 * What a flooded copy needs of its frame, as scalars: the copy is a global
 * function (below), which the verifier checks once, whatever calls it, and
 * which takes no pointer into its caller's stack. Inlined into the loop
 * over 63 slots, each branch of the copy multiplied the paths the verifier
 * walked, and an egress MTU check took it past its limit of a million
 * instructions.
 */
/* The ingress ifindex, slot, flood class, VLAN filtering and tag, and the
 * spanning tree's block (stp_flood_prepare: non-edge ports discard). */
static __always_inline __u64 copy_in(struct frame *f, enum xdpbr_storm_class fc)
{
	return PACK(CI_IFINDEX, f->ifindex) | PACK(CI_SLOT, f->slot) | PACK(CI_CLASS, fc) |
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

/*
 * One flooded copy to the port in slot, with the rules the XDP egress
 * program applies per copy: only to a forwarding port (spanning tree) that
 * multicast snooping does not prune, not
 * back out the ingress (unless hairpin), not between isolated ports, only
 * into the VLAN's members and tagged as the
 * port sends it, not larger than the port's MTU. The copy is a clone of the
 * skb, with its offload state. Arguments packed by copy_in/vlan/lens.
 */
__noinline int xdpbr_tc_copy(struct __sk_buff *skb, __u32 slot, __u64 in, __u64 vlan,
			     __u64 lens)
{
	__u32 in_ifindex = UNPACK(CI_IFINDEX, in), in_slot = UNPACK(CI_SLOT, in);
	enum xdpbr_storm_class fc = UNPACK(CI_CLASS, in);
	struct vlan_info vi = {
		.vid = UNPACK(CV_VID, vlan), .tci = UNPACK(CV_TCI, vlan),
		.tagged = UNPACK(CI_TAGGED, in),
	};
	__u32 segs = UNPACK(CL_SEGS, lens), mtu_l3 = UNPACK(CL_MTU_L3, lens);
	struct xdpbr_port *out = port_at(slot), *port = port_at(in_slot);
	__u32 out_ifindex = port_tx_ifindex(out, slot);
	struct xdpbr_stats *st;

	/* A pruned frame's copy goes to its members and router ports whatever
	 * their mcast_flood (the kernel's br_multicast_flood): mcast_copy_ok. */
	if (!skb || !port || !out_ifindex ||
	    (!in_flood_set(fc, out) && !(UNPACK(CV_MC, vlan) & MC_FILTER)))
		return 0;
	if (out_ifindex == in_ifindex && !(port->flags & XDPBR_PORT_HAIRPIN))
		return 0;
	st = stats_of(slot);
	if (!stp_copy_forwards(UNPACK(CI_STP_BLOCK, in), slot, out) ||
	    !mcast_copy_ok(UNPACK(CV_MC, vlan), slot) ||
	    copy_isolated(port, in_ifindex, out, out_ifindex)) {
		count(st, XDPBR_CNT_FLOOD_FILTERED);
		return 0;
	}
	if (UNPACK(CI_VLAN_ON, in)) {
		enum vlan_egress ve = vlan_egress_of(slot, vi.vid);

		if (ve == VLAN_EG_NOT_MEMBER ||
		    tc_set_tag(skb, &vi, ve == VLAN_EG_UNTAGGED)) {
			count(st, XDPBR_CNT_FLOOD_FILTERED);
			return 0;
		}
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
 * ports walks 3 slots, one of 1024 all of them). A global function, as
 * xdpbr_tc_copy is: the verifier walks the loop's up to XDPBR_MAX_PORTS - 1
 * turns once, not in every path of xdpbr_tc_rx that floods. A loop, not
 * unrolled: copies of the body would outgrow the branch offsets.
 */
__noinline int xdpbr_tc_flood_out(struct __sk_buff *skb, __u64 in, __u64 vlan, __u64 lens)
{
	__u32 slot, top = flood_top();

	if (!skb)
		return 0;
#pragma clang loop unroll(disable)
	for_each_flood_slot(slot, top)
		xdpbr_tc_copy(skb, slot, in, vlan, lens);
	return 0;
}

static __always_inline int tc_flood(struct __sk_buff *skb, struct frame *f,
				    enum xdpbr_storm_class fc)
{
	enum xdpbr_counter c = flood_admit(f, fc);

	if (c != STEP_OK)
		return tc_end(f, c, TC_ACT_SHOT);
	f->mtu_l3 = tc_mtu_len(skb, f);
	xdpbr_tc_flood_out(skb, copy_in(f, fc), copy_vlan(f), copy_lens(f));
	/* Every copy has gone; the original is spent, not dropped, but for
	 * IGMP/MLD, which goes on to the kernel bridge on this port: it snoops
	 * (the port's state, learning, has it drop the frame after that). */
	return tc_end(f, flood_counter(fc), f->mc & MC_CONTROL ? TC_ACT_OK : TC_ACT_SHOT);
}

static __always_inline int tc_forward(struct __sk_buff *skb, struct frame *f,
				      const struct egress *eg)
{
	enum xdpbr_counter c = check_pair(f, eg);
	struct xdpbr_port *out;
	__u32 out_ifindex;

	if (c != STEP_OK)
		return tc_end(f, c, TC_ACT_SHOT);
	/* A port that has left the tx map (removed, link down) is unknown. */
	out = port_at(eg->slot);
	out_ifindex = port_tx_ifindex(out, eg->slot);
	if (!out_ifindex)
		return tc_flood(skb, f, XDPBR_STORM_UNKNOWN);
	if (f->vlan_on) {
		enum vlan_egress ve = vlan_egress_of(eg->slot, f->vi.vid);

		if (ve == VLAN_EG_NOT_MEMBER)
			return tc_end(f, XDPBR_CNT_DROP_VLAN, TC_ACT_SHOT);
		if (tc_set_tag(skb, &f->vi, ve == VLAN_EG_UNTAGGED))
			return tc_end(f, XDPBR_CNT_DROP_REDIRECT, TC_ACT_SHOT);
	}
	/* Larger than the egress port's MTU: dropped, as a NIC would (and
	 * the kernel bridge does), with its own reason. */
	f->mtu_l3 = tc_mtu_len(skb, f);
	if (f->mtu_l3 && tc_too_big(skb, out_ifindex, f->mtu_l3))
		return tc_end(f, XDPBR_CNT_DROP_MTU, TC_ACT_SHOT);
	outcome(f, XDPBR_CNT_FORWARDED);
	count_tx(stats_of(eg->slot), wire_len(skb), f->segs);
	/* Into a container's namespace: straight to the veth's peer, the way
	 * Cilium does, skipping the egress queue and a second softirq. */
	if (out && (out->flags & XDPBR_PORT_PEER_NS))
		return bpf_redirect_peer(out_ifindex, 0);
	return bpf_redirect(out_ifindex, 0);
}

/* A multicast skb's snooping word (bpf/mcast.h): its headers pulled into
 * the linear part first, as far as the word looks (Ethernet, a tag, IPv6
 * and a hop-by-hop header, the ICMPv6 type). */
__noinline int xdpbr_mcast_skb(struct __sk_buff *skb)
{
	__u32 want = ETH_HLEN + 4 + 40 + 8 + 1;

	if ((long)skb->data + want > (long)skb->data_end)
		bpf_skb_pull_data(skb, skb->len < want ? skb->len : want);
	return (int)mcast_classify((void *)(long)skb->data, (void *)(long)skb->data_end);
}

/* The frame's outer VLAN tag: in the skb's metadata at TC ingress (the
 * stack untags before tc), else still in the frame. */
static __always_inline enum vlan_verdict tc_vlan(struct __sk_buff *skb, struct frame *f)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;

	if (skb->vlan_present)
		return vlan_classify(f->port, bpf_ntohs(skb->vlan_proto),
				     skb->vlan_tci, &f->vi);
	if ((void *)(eth + 1) > data_end)
		return VLAN_RUNT;
	return vlan_ingress(eth, data_end, f->port, &f->vi);
}

/*
 * The skb path, on the clsact ingress of virtual ports and, in a bridge
 * with both kinds, of XDP ports, where it forwards what the XDP program
 * handed to the stack (that program has counted and learned the frame).
 */
SEC("tc")
int xdpbr_tc_rx(struct __sk_buff *skb)
{
	struct xdpbr_port *port = port_of(skb->ifindex);
	int handoff = port && port->mode != XDPBR_MODE_TC;
	__u8 dst[ETH_ALEN], src[ETH_ALEN];
	void *data, *data_end;
	struct frame f = {};
	struct ethhdr *eth;
	struct egress eg;
	enum xdpbr_counter c;

	if (!frame_begin(&f, skb->ifindex, wire_len(skb), gso_frames(skb), !handoff))
		return tc_end(&f, XDPBR_CNT_PASS_NOT_PORT, TC_ACT_OK);

	/* parse, classify */
	if (skb->len < ETH_HLEN)
		return tc_end(&f, XDPBR_CNT_DROP_RUNT, TC_ACT_SHOT);
	data = (void *)(long)skb->data;
	data_end = (void *)(long)skb->data_end;
	if (data + ETH_HLEN > data_end) {
		if (bpf_skb_pull_data(skb, ETH_HLEN))
			return tc_end(&f, XDPBR_CNT_DROP_RUNT, TC_ACT_SHOT);
		data = (void *)(long)skb->data;
		data_end = (void *)(long)skb->data_end;
	}
	eth = data;
	if ((void *)(eth + 1) > data_end)
		return tc_end(&f, XDPBR_CNT_DROP_RUNT, TC_ACT_SHOT);
	__builtin_memcpy(dst, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(src, eth->h_source, ETH_ALEN);
	c = check_addresses(&f, dst, src);
	if (handoff && c == XDPBR_CNT_PASS_LINKLOCAL)
		return TC_ACT_OK;		/* XDP counted it */
	if (c == XDPBR_CNT_PASS_LINKLOCAL)
		c = linklocal_admit(&f, dst);
	if (c == XDPBR_CNT_PASS_LINKLOCAL)
		return tc_end(&f, c, TC_ACT_OK);
	if (c != STEP_OK)
		return tc_end(&f, c, TC_ACT_SHOT);
	frame_config(&f);
	c = stp_ingress(&f);
	if (c != STEP_OK)
		return tc_end(&f, c, TC_ACT_SHOT);
	if (f.vlan_on) {
		c = vlan_outcome(tc_vlan(skb, &f));
		if (c != STEP_OK)
			return tc_end(&f, c, TC_ACT_SHOT);
	}

	/* learn (the XDP program did, for a frame it handed over); a
	 * learning port forwards nothing */
	c = handoff ? STEP_OK : learn_source(&f, src);
	if (c == STEP_OK)
		c = stp_learned(&f);
	if (c != STEP_OK)
		return tc_end(&f, c, TC_ACT_SHOT);

	/* forward / flood */
	if (f.cls == DST_MULTICAST)
		f.mc = (__u32)xdpbr_mcast_skb(skb);
	if (f.cls != DST_UNICAST)
		return tc_flood(skb, &f, flood_class(f.cls));
	if (!lookup_dst(&f, dst, &eg))
		return tc_flood(skb, &f, XDPBR_STORM_UNKNOWN);
	return tc_forward(skb, &f, &eg);
}

/* ----------------------------------------------------- kernel drop points */

/*
 * Frames the kernel drops after the program has decided: the driver of an
 * egress port refusing redirected frames (a veth whose peer runs no NAPI, a
 * full ring), and redirects that fail in xdp_do_redirect. Attached by the
 * daemon; they touch only this bridge's ports.
 *
 * The tracepoints fire for every device of the machine, and an ifindex
 * names a port only within its network namespace (every namespace has its
 * ifindex 2, 3, ...): a bridge counts a device only when it is in the
 * bridge's namespace, whose cookie the loader sets here (0: any, for a
 * loader that doesn't, as the BPF_PROG_RUN tests). Not its inode: the
 * links are pinned and outlive a namespace whose inode the next one gets.
 */
const volatile __u64 netns_cookie = 0;

/* Only the fields the program reads; libbpf relocates their offsets
 * against the running kernel's BTF (CO-RE). */
struct net {
	__u64 net_cookie;
} __attribute__((preserve_access_index));

typedef struct {
	struct net *net;
} __attribute__((preserve_access_index)) possible_net_t;

struct net_device {
	int ifindex;
	possible_net_t nd_net;
} __attribute__((preserve_access_index));

/* The port of dev, if dev is in the bridge's network namespace. */
static __always_inline struct xdpbr_port *port_of_dev(const struct net_device *dev)
{
	if (netns_cookie && dev->nd_net.net->net_cookie != netns_cookie)
		return NULL;
	return port_of((__u32)dev->ifindex);
}

/*
 * The tracepoint's drops include the copies our own devmap egress program
 * refused (isolation, VLAN, MTU), already counted as flood_filtered or
 * tx_dropped_mtu. The egress program runs in the same per-CPU flush just
 * before the tracepoint fires, so what this CPU added to those since the
 * last firing (kept in xdpbr_xmit_seen) is exactly that share: subtract it,
 * and count only what the driver dropped.
 *
 * A BTF tracepoint (tp_btf), not the perf-style one: it fires once per
 * flush of redirected frames, on the hot path, and the perf-style one first
 * builds a record of its arguments in a per-CPU buffer, which cost about 2%
 * of the one-flow rate; this one gets the arguments as they are.
 */
SEC("tp_btf/xdp_devmap_xmit")
int BPF_PROG(xdpbr_xmit, const struct net_device *from_dev,
	     const struct net_device *to_dev, int sent, int drops, int err)
{
	struct xdpbr_port *port;
	struct xdpbr_stats *st;
	__u64 *seen, refused, filtered, ndrops;
	__u32 slot;

	port = port_of_dev(to_dev);
	if (!port)
		return 0;
	slot = port->slot;
	st = stats_of(slot);
	seen = bpf_map_lookup_elem(&xdpbr_xmit_seen, &slot);
	if (!st || !seen)
		return 0;
	refused = st->c[XDPBR_CNT_FLOOD_FILTERED] + st->c[XDPBR_CNT_TX_DROPPED_MTU];
	filtered = refused - *seen;
	*seen = refused;
	ndrops = drops > 0 ? (__u64)drops : 0;
	if (ndrops > filtered)
		st->c[XDPBR_CNT_TX_DROPPED] += ndrops - filtered;
	return 0;
}

/* A BTF tracepoint too, for its device (the perf-style record has only
 * the ifindex); only the first argument, the ingress device, is read: it
 * has been the first in every kernel that has the tracepoint. */
SEC("tp_btf/xdp_redirect_err")
int BPF_PROG(xdpbr_redirect_err, const struct net_device *dev)
{
	struct xdpbr_port *port;

	port = port_of_dev(dev);
	if (port)
		count(stats_of(port->slot), XDPBR_CNT_REDIRECT_ERRORS);
	return 0;
}

/* ------------------------------------------------------- BPDU sockets */

/*
 * The filter of the daemon's BPDU socket on each port (daemon/stpd.c):
 * only 802.3 LLC frames (DSAP and SSAP 0x42, UI) to 01:80:c2:00:00:00, and
 * of those only as many as the link-local limit lets through, per port and
 * CPU, in a bucket of their own (xdpbr_bpdusock_state). On the skb path a
 * packet socket sees a frame before the clsact ingress program does, so the
 * datapath's own limit can't spare the daemon a flood; refused here, a
 * frame is never queued and the daemon never wakes for it. Counted as
 * bpdu_socket_limit on the port. What passes is checked again in user
 * space. Returns the bytes to queue: all or nothing.
 */
SEC("socket")
int xdpbr_bpdu_sock(struct __sk_buff *skb)
{
	struct xdpbr_bpdusock_bucket *b;
	struct xdpbr_port *port;
	__u8 h[ETH_HLEN + 3];
	__u64 rate;
	__u32 slot;

	if (bpf_skb_load_bytes(skb, 0, h, sizeof(h)) || !mac_is_bpdu(h) ||
	    ((__u32)h[12] << 8 | h[13]) > ETH_DATA_LEN ||
	    h[14] != 0x42 || h[15] != 0x42 || h[16] != 0x03)
		return 0;
	port = port_of(skb->ifindex);
	rate = xdpbr_linklocal_pps(config_get());
	if (!port || rate == XDPBR_LINKLOCAL_NONE)
		return skb->len;
	slot = port->slot;
	b = bpf_map_lookup_elem(&xdpbr_bpdusock_state, &slot);
	if (!b || linklocal_take(&b->last_ns, &b->tokens, rate, bpf_ktime_get_coarse_ns()))
		return skb->len;
	count(stats_of(slot), XDPBR_CNT_BPDU_SOCKET_LIMIT);
	return 0;
}

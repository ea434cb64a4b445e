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
 * Whether a copy may leave a port is one rule for all of them (verdict.h);
 * the copies of a flood are in flood.h.
 * In a bridge that mixes the two, an XDP port hands the frames it can't
 * deliver itself (to a virtual port, and floods) to the stack, where the TC
 * program on the same port forwards and counts them: counted once (where
 * a frame ends, pipeline.h outcome()), learned once.
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
#include "verdict.h"
#include "skb.h"
#include "flood.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* ------------------------------------------------------------------ XDP */

static __always_inline int xdp_end(struct frame *f, enum xdpbr_counter c, int action)
{
	outcome(f, c);
	return action;
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
	int r;

	if (c != STEP_OK)
		return xdp_end(f, c, XDP_DROP);
	if (f->vlan_on && vlan_egress_fix(ctx, &f->vi, 0))
		return xdp_end(f, XDPBR_CNT_DROP_REDIRECT, XDP_DROP);
	len = xdp_frame_len(ctx);
	r = xdpbr_xdp_flood_out(ctx, flood_in(f, mtu_l3_len(len, xdp_proto(ctx))),
				copy_in(f, fc), copy_vlan(f), len);
	if (r == XDP_DROP)	/* pruned to no port: the flood's, no copy */
		return xdp_end(f, flood_counter(fc), XDP_DROP);
	if (r != XDP_REDIRECT)
		return xdp_end(f, XDPBR_CNT_DROP_REDIRECT, XDP_DROP);
	return xdp_end(f, flood_counter(fc), XDP_REDIRECT);
}

/* Known unicast larger than what the egress port takes. */
static __always_inline int xdp_too_big(struct xdp_md *ctx, const struct frame *f,
				       const struct egress *eg, __u64 len)
{
	__u32 l3 = mtu_l3_len(len, xdp_proto(ctx)), ifindex;

	if (l3 <= mtu_min(f->cfg))
		return 0;
	ifindex = port_tx_ifindex(eg->port, eg->slot);
	return ifindex && mtu_exceeded(ctx, f->cfg, ifindex, l3);
}

/* Known unicast: tag or untag for the egress port, one devmap redirect;
 * to a port on the skb path, the stack (pipeline.h port_takes_stack). */
static __always_inline int xdp_forward(struct xdp_md *ctx, struct frame *f,
				       struct egress *eg)
{
	int untag = 0;
	enum xdpbr_counter c = unicast_verdict(f, eg, &untag);
	__u64 len;

	if (c != STEP_OK)
		return xdp_end(f, c, XDP_DROP);
	if (port_takes_stack(f->port, eg->port))
		return XDP_PASS;
	if (f->vlan_on) {
		if (vlan_egress_fix(ctx, &f->vi, untag))
			return xdp_end(f, XDPBR_CNT_DROP_REDIRECT, XDP_DROP);
		/* vi now describes the rewritten frame, for a fallback flood */
		f->vi.tagged = !untag;
	}
	len = xdp_frame_len(ctx);
	if (xdp_too_big(ctx, f, eg, len))
		return xdp_end(f, XDPBR_CNT_DROP_MTU, XDP_DROP);
	/* A port that has left the tx map (removed, link down) is unknown. */
	if (bpf_redirect_map(&xdpbr_tx, eg->slot, 0) != XDP_REDIRECT)
		return xdp_flood(ctx, f, XDPBR_STORM_UNKNOWN);
	count_tx(stats_of(eg->slot), len, 1);
	return xdp_end(f, XDPBR_CNT_FORWARDED, XDP_REDIRECT);
}

/* A multicast frame's snooping word (bpf/mcast.h) in VLAN vid where the
 * frame has no tag, as a global function: verified once, not again in
 * each program and path that asks (Debian 12's 6.1 verifier gives up on
 * xdpbr_rx with it inlined). The egress program asks too: the ingress
 * program's word is not handed over (its frame is tagged then, with VLAN
 * filtering on). */
__noinline int xdpbr_mcast_xdp(struct xdp_md *ctx, __u32 vid)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + ETH_HLEN > data_end || !(*(__u8 *)data & 1))
		return 0;
	return (int)mcast_classify(data, data_end, vid);
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
	if (!frame_begin(&f, ctx->ingress_ifindex, xdp_frame_len(ctx), 1))
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
	 * stack, uncounted, to this port's TC program, which counts it. */
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
		f.mc = (__u32)xdpbr_mcast_xdp(ctx, f.vi.vid);
		if ((f.mc & MC_CONTROL || (f.mc & MC_FILTER && mcast_some_out())) &&
		    f.port->mode != XDPBR_MODE_GENERIC)
			return XDP_PASS;
	}
	if (f.cls != DST_UNICAST)
		return mixed ? XDP_PASS : xdp_flood(ctx, &f, flood_class(f.cls));
	if (!lookup_dst(&f, eth->h_dest, &eg))
		return mixed ? XDP_PASS : xdp_flood(ctx, &f, XDPBR_STORM_UNKNOWN);
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
	struct xdpbr_port *port;
	struct xdpbr_config *cfg;
	struct xdpbr_stats *st;
	struct copy_src src = { .fc = COPY_NO_FLOOD_SET };	/* the devmap's set */
	struct stp_view stp;
	enum copy_verdict v;
	__u64 len;

	port = port_of(ifindex);
	if (!port)
		return XDP_PASS;
	st = stats_of(port->slot);
	cfg = config_get();
	/* The ingress port's entry only where a rule reads its flags: a copy
	 * back out of it (hairpin), or into an isolated port. */
	if (ctx->ingress_ifindex == ifindex)
		src.port = port;
	else if (port->flags & XDPBR_PORT_ISOLATED)
		src.port = port_of(ctx->ingress_ifindex);
	src.slot = src.port ? src.port->slot : 0;
	stp_view_init(&stp, cfg);
	src.stp_block = stp_flood_prepare(&stp);
	src.mc = (__u32)xdpbr_mcast_xdp(ctx, 0);
	src.vlan_on = cfg && cfg->flags & XDPBR_CFG_VLAN_FILTERING;
	if (src.vlan_on) {
		void *data = (void *)(long)ctx->data;
		void *data_end = (void *)(long)ctx->data_end;
		struct ethhdr *eth = data;
		struct vlan_hdr *vh = (void *)(eth + 1);

		/* The ingress program tagged every flooded frame. */
		if ((void *)(vh + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_8021Q)) {
			count(st, XDPBR_CNT_FLOOD_FILTERED);
			return XDP_DROP;
		}
		src.vid = bpf_ntohs(vh->tci) & VLAN_VID_MASK;
	}
	v = copy_verdict(&src, port->slot, port);
	if (!copy_goes(v) || (v == COPY_UNTAGGED && vlan_pop(ctx))) {
		count(st, XDPBR_CNT_FLOOD_FILTERED);
		return XDP_DROP;
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

static __always_inline int tc_end(struct frame *f, enum xdpbr_counter c, int action)
{
	outcome(f, c);
	return action;
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

/* tc_forward's word for a frame to flood after all: its port has left. */
#define TC_GO_FLOOD	(-100)

/* Known unicast to eg: the verdict, or TC_GO_FLOOD. */
static __always_inline int tc_forward(struct __sk_buff *skb, struct frame *f,
				      struct egress *eg)
{
	int untag = 0;
	enum xdpbr_counter c = unicast_verdict(f, eg, &untag);
	const struct xdpbr_port *out = eg->port;
	__u32 out_ifindex;

	if (c != STEP_OK)
		return tc_end(f, c, TC_ACT_SHOT);
	/* A port that has left the tx map (removed, link down) is unknown. */
	out_ifindex = port_tx_ifindex(out, eg->slot);
	if (!out_ifindex)
		return TC_GO_FLOOD;
	if (f->vlan_on && tc_set_tag(skb, &f->vi, untag))
		return tc_end(f, XDPBR_CNT_DROP_REDIRECT, TC_ACT_SHOT);
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

/* A multicast skb's snooping word (bpf/mcast.h) in VLAN vid (the skb's
 * tag is not in its data): its headers pulled into the linear part first,
 * as far as the word looks (Ethernet, a tag, IPv6 and a hop-by-hop header,
 * the ICMPv6 type). */
__noinline int xdpbr_mcast_skb(struct __sk_buff *skb, __u32 vid)
{
	__u32 want = ETH_HLEN + 4 + 40 + 8 + 1;

	if ((long)skb->data + want > (long)skb->data_end)
		bpf_skb_pull_data(skb, skb->len < want ? skb->len : want);
	return (int)mcast_classify((void *)(long)skb->data, (void *)(long)skb->data_end, vid);
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
 * The skb path, on the TC ingress of virtual ports and, in a bridge with
 * both kinds, of XDP ports, where it forwards and counts what the XDP
 * program handed to the stack (that program has learned the frame, and
 * counted the link-local ones it passes to the host). A port in no mode
 * yet is one joining on XDP whose XDP program is not attached yet
 * (lib/brport.c writes the mode just before): what comes in there is this
 * program's own to learn. Counting does not depend on the mode: a frame
 * that slips in between the mode's write and the XDP attach is counted
 * here, in and out; only a link-local one is then counted by neither
 * program (taken for one the XDP program passed to the host and counted).
 */
SEC("tc")
int xdpbr_tc_rx(struct __sk_buff *skb)
{
	struct xdpbr_port *port = port_of(skb->ifindex);
	int handoff = port && (port->mode == XDPBR_MODE_NATIVE ||
			       port->mode == XDPBR_MODE_GENERIC);
	__u8 dst[ETH_ALEN], src[ETH_ALEN];
	void *data, *data_end;
	struct frame f = {};
	struct ethhdr *eth;
	enum xdpbr_storm_class fc;
	struct egress eg;
	enum xdpbr_counter c;
	int action;

	if (!frame_begin(&f, skb->ifindex, wire_len(skb), gso_frames(skb)))
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

	/* forward / flood: one way into tc_flood, which the verifier then
	 * walks once for all three causes (Debian 12's 6.1 verifier came
	 * within 5% of its limit on xdpbr_tc_rx with three) */
	if (f.cls == DST_MULTICAST)
		f.mc = (__u32)xdpbr_mcast_skb(skb, f.vi.vid);
	if (f.cls != DST_UNICAST) {
		fc = flood_class(f.cls);
	} else if (!lookup_dst(&f, dst, &eg)) {
		fc = XDPBR_STORM_UNKNOWN;
	} else {
		action = tc_forward(skb, &f, &eg);
		if (action != TC_GO_FLOOD)
			return action;
		fc = XDPBR_STORM_UNKNOWN;
	}
	return tc_flood(skb, &f, fc);
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

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pipeline.h - the bridge's steps, the same for both hooks:
 *
 *   parse -> classify -> learn -> forward / flood -> count
 *
 * The XDP entry (xdpbr_rx, physical ports) and the TC entry (xdpbr_tc_rx,
 * virtual ports: veth, tap) run these steps in the same order; they differ
 * only in how they read the frame and how they move it (devmap redirects
 * for XDP, skb redirects and clones for TC). So learning, lookups, VLAN
 * rules, isolation, storm control and counting are written once.
 *
 * A step that ends the frame returns the outcome counter to count; STEP_OK
 * means "go on".
 */
#ifndef XDPBR_PIPELINE_H
#define XDPBR_PIPELINE_H

#include <linux/if_ether.h>
#include "xdpbr_rules.h"
#include "maps.h"
#include "parsing.h"
#include "portcfg.h"
#include "stats.h"
#include "fdb.h"
#include "vlan.h"
#include "stp.h"
#include "bucket.h"
#include "verdict.h"

#define STEP_OK	XDPBR_CNT__MAX		/* not a counter: no outcome yet */

/* Frame classes after parsing the destination. */
enum dst_class {
	DST_UNICAST,
	DST_BROADCAST,
	DST_MULTICAST,
	DST_LINK_LOCAL,
};

/* One frame on its way through the bridge, whichever hook it came in on. */
struct frame {
	__u32 ifindex;			/* ingress port */
	__u32 slot;			/* its slot; 0 when not a port */
	__u32 segs;			/* wire frames it stands for: 1, or a
					 * GSO packet's segments (TC) */
	__u64 len;			/* its bytes on the wire */
	struct xdpbr_port *port;
	struct xdpbr_stats *st;		/* the ingress port's counters */
	struct xdpbr_config *cfg;
	int vlan_on;
	enum dst_class cls;
	struct vlan_info vi;
	struct stp_view stp;
	enum xdpbr_stp_state state;	/* the ingress port's */
	__u64 now;			/* coarse clock, read at most once */
	__u64 j, ageing;		/* jiffies, ageing time */
	__u32 gen;			/* FDB generation, fdbc_gen() */
	__u32 mtu_l3;			/* TC: length to check against egress MTUs, 0: none */
	__u32 mc;			/* multicast: its snooping word (bpf/mcast.h) */
};

/* A known unicast destination. */
struct egress {
	__u32 slot;
	const struct xdpbr_port *port;	/* its entry (unicast_verdict), or NULL */
};

/* The coarse clock, read at most once per frame and only where needed: a
 * frame of a cached flow never reads it. */
static __always_inline __u64 frame_now(struct frame *f)
{
	if (!f->now)
		f->now = bpf_ktime_get_coarse_ns();
	return f->now;
}

/* The frame's end: counted in, with what became of it. A frame is counted
 * in where it ends, not where it arrives: one an XDP port hands to the
 * skb path is its TC program's to count, in and out, so no frame is
 * counted by one program and finished by the other (which the port's
 * mode, written before the XDP attach, can't tell reliably). */
static __always_inline void outcome(struct frame *f, enum xdpbr_counter c)
{
	if (!f->st)
		return;
	f->st->c[XDPBR_CNT_RX_PACKETS] += f->segs;
	f->st->c[XDPBR_CNT_RX_BYTES] += f->len;
	count_n(f->st, c, f->segs);
}

/* The ingress port, and the frame's counters (slot 0 when the interface is
 * not a port). 0 when it is not a port. */
static __always_inline int frame_begin(struct frame *f, __u32 ifindex, __u64 len,
				       __u32 segs)
{
	f->ifindex = ifindex;
	f->segs = segs;
	f->len = len;
	f->port = port_of(ifindex);
	f->slot = f->port ? f->port->slot : 0;
	f->st = stats_of(f->slot);
	return f->port != NULL;
}

static __always_inline enum dst_class classify(const __u8 *dst)
{
	if (!mac_is_multicast(dst))
		return DST_UNICAST;
	if (mac_is_broadcast(dst))
		return DST_BROADCAST;
	if (mac_is_link_local(dst))
		return DST_LINK_LOCAL;
	return DST_MULTICAST;
}

/* Whether STP is on; read only for BPDUs, before the frame's config. */
static __always_inline int stp_is_on(void)
{
	struct xdpbr_config *cfg = config_get();

	return cfg && (cfg->flags & XDPBR_CFG_STP);
}

/* A source that can't be a station is dropped; link-local control frames
 * go to the host untouched, before the port's state, learning and VLAN
 * rules, like the kernel bridge. BPDUs too while STP is on; with STP off
 * they are bridged like any multicast, as the kernel bridge does, so the
 * neighbours' spanning trees see a loop through this bridge. */
static __always_inline enum xdpbr_counter
check_addresses(struct frame *f, const __u8 *dst, const __u8 *src)
{
	if (!xdpbr_mac_station(src))
		return XDPBR_CNT_DROP_BAD_SRC;
	f->cls = classify(dst);
	if (f->cls != DST_LINK_LOCAL)
		return STEP_OK;
	if (mac_is_bpdu(dst) && !stp_is_on()) {
		f->cls = DST_MULTICAST;
		return STEP_OK;
	}
	return XDPBR_CNT_PASS_LINKLOCAL;
}

/* The bridge's knobs, the FDB's generation and the clock of the cache. */
static __always_inline void frame_config(struct frame *f)
{
	f->cfg = config_get();
	f->vlan_on = f->cfg && (f->cfg->flags & XDPBR_CFG_VLAN_FILTERING);
	f->j = bpf_jiffies64();
	f->gen = fdbc_gen(fdbgen_get());
	f->ageing = xdpbr_ageing_ns(f->cfg);
	stp_view_init(&f->stp, f->cfg);
}

/* The ingress port's spanning tree state: a discarding port's frames go no
 * further, not even to learning. */
static __always_inline enum xdpbr_counter stp_ingress(struct frame *f)
{
	f->state = stp_state(&f->stp, f->slot, f->port);
	return f->state == XDPBR_STP_DISCARDING ? XDPBR_CNT_DROP_PORT_STATE : STEP_OK;
}

/* After learning: only a forwarding port's frames are forwarded. */
static __always_inline enum xdpbr_counter stp_learned(struct frame *f)
{
	return f->state == XDPBR_STP_FORWARDING ? STEP_OK : XDPBR_CNT_DROP_PORT_STATE;
}

/* The VLAN decides the frame's FDB and its egress ports. */
static __always_inline enum xdpbr_counter vlan_outcome(enum vlan_verdict v)
{
	switch (v) {
	case VLAN_RUNT:
		return XDPBR_CNT_DROP_RUNT;
	case VLAN_FILTERED:
		return XDPBR_CNT_DROP_VLAN;
	case VLAN_8021AD:
		return XDPBR_CNT_DROP_8021AD;
	case VLAN_OK:
		break;
	}
	return STEP_OK;
}

/* learn: a source this CPU has cached on this port is known and costs no
 * FDB lookup; anything else goes through the FDB. */
static __always_inline enum xdpbr_counter learn_source(struct frame *f, const __u8 *src)
{
	struct xdpbr_fdb_key key = {};
	struct fdbc_set *set;
	struct fdbc_ent *hit;
	__u64 k, seen = 0;
	__u16 fdb_flags = 0;

	k = fdbc_key(f->vi.vid, src);
	set = fdbc_set_of(k);
	hit = fdbc_find(set, k, f->gen, f->j);
	if (hit && fdbc_slot(hit) == f->slot)
		return STEP_OK;
	key.vlan = f->vi.vid;
	__builtin_memcpy(key.mac, src, ETH_ALEN);
	switch (fdb_learn(&key, f->ifindex, f->slot, f->port, frame_now(f), f->st,
			  &seen, &fdb_flags)) {
	case LEARN_SPOOFED:
		return XDPBR_CNT_DROP_SPOOFED;
	case LEARN_LOCKED:
		return XDPBR_CNT_DROP_LOCKED;
	case LEARN_HERE:
		fdbc_fill(set, k, f->gen, f->j, f->slot, fdb_flags, seen,
			  f->now, f->ageing);
		break;
	case LEARN_OK:
		break;
	}
	return STEP_OK;
}

/* The port the FDB has for dst, from this CPU's cache or the table: 1, or
 * 0 when dst is unknown (absent, or older than the ageing time). */
static __always_inline int lookup_dst(struct frame *f, const __u8 *dst, struct egress *eg)
{
	struct xdpbr_fdb_key key = {};
	struct xdpbr_fdb_val *v;
	struct fdbc_set *set;
	struct fdbc_ent *hit;
	__u64 k;

	k = fdbc_key(f->vi.vid, dst);
	set = fdbc_set_of(k);
	hit = fdbc_find(set, k, f->gen, f->j);
	if (hit) {
		eg->slot = fdbc_slot(hit);
		return 1;
	}
	key.vlan = f->vi.vid;
	__builtin_memcpy(key.mac, dst, ETH_ALEN);
	v = bpf_map_lookup_elem(&xdpbr_fdb, &key);
	if (!v || xdpbr_fdb_stale(v, frame_now(f), f->ageing))
		return 0;
	eg->slot = v->slot;
	fdbc_fill(set, k, f->gen, f->j, v->slot, v->flags, v->last_seen,
		  f->now, f->ageing);
	return 1;
}

/* The copy_src (verdict.h) of frame f, for copies of flood class fc, or
 * COPY_NO_FLOOD_SET. */
static __always_inline void copy_src_of(struct frame *f, __u32 fc, struct copy_src *src)
{
	src->port = f->port;
	src->slot = f->slot;
	src->fc = fc;
	src->stp_block = stp_flood_prepare(&f->stp);
	src->mc = f->mc;
	src->vlan_on = f->vlan_on;
	src->vid = f->vi.vid;
}

/* Known unicast to eg, by the rule of every copy (copy_verdict): STEP_OK,
 * with *untag set for a port that sends the VLAN untagged, or the counter
 * of the drop (known unicast is dropped, not flooded, as the kernel
 * bridge does). Fills in eg->port. */
static __always_inline enum xdpbr_counter unicast_verdict(struct frame *f, struct egress *eg,
							  int *untag)
{
	struct copy_src src;

	copy_src_of(f, COPY_NO_FLOOD_SET, &src);
	src.mc = 0;		/* snooping prunes floods only */
	eg->port = port_at(eg->slot);
	switch (copy_verdict(&src, eg->slot, eg->port)) {
	case COPY_TAGGED:
		*untag = 0;
		return STEP_OK;
	case COPY_UNTAGGED:
		*untag = 1;
		return STEP_OK;
	case COPY_NONE:		/* no flood set asked: the ingress port */
		return XDPBR_CNT_DROP_SAME_PORT;
	case COPY_ISOLATED:
		return XDPBR_CNT_DROP_ISOLATED;
	case COPY_NOT_MEMBER:
		return XDPBR_CNT_DROP_VLAN;
	default:
		return XDPBR_CNT_DROP_PORT_STATE;
	}
}

/* Floods come in the three storm-control classes. */
static __always_inline enum xdpbr_storm_class flood_class(enum dst_class cls)
{
	return cls == DST_BROADCAST ? XDPBR_STORM_BCAST : XDPBR_STORM_MCAST;
}

static __always_inline enum xdpbr_counter flood_counter(enum xdpbr_storm_class fc)
{
	switch (fc) {
	case XDPBR_STORM_BCAST:
		return XDPBR_CNT_FLOOD_BCAST;
	case XDPBR_STORM_MCAST:
		return XDPBR_CNT_FLOOD_MCAST;
	default:
		return XDPBR_CNT_FLOOD_UNKNOWN;
	}
}

/*
 * Storm control: whether this CPU's bucket of the port has a token for one
 * more flooded frame of class c. Runs only for flooded frames, and touches
 * only per-CPU memory.
 */
static __always_inline int storm_allows(__u32 slot, __u32 c, __u64 now)
{
	struct xdpbr_storm_bucket *b;
	struct xdpbr_storm *lim;
	__u64 rate, burst;

	lim = bpf_map_lookup_elem(&xdpbr_storm, &slot);
	if (!lim || c >= XDPBR_STORM__MAX || !lim->pps[c])
		return 1;
	b = bpf_map_lookup_elem(&xdpbr_storm_state, &slot);
	if (!b)
		return 1;
	rate = lim->pps_cpu[c] ? lim->pps_cpu[c] : 1;
	burst = rate * XDPBR_STORM_BURST_MS / 1000;
	return bucket_take(&b->last_ns[c], &b->tokens[c], rate, burst ? burst : 1, now);
}

/* Whether storm control lets this flood go. */
static __always_inline enum xdpbr_counter flood_admit(struct frame *f, enum xdpbr_storm_class fc)
{
	if (storm_allows(f->slot, fc, frame_now(f)))
		return STEP_OK;
	switch (fc) {
	case XDPBR_STORM_BCAST:
		return XDPBR_CNT_DROP_STORM_BCAST;
	case XDPBR_STORM_MCAST:
		return XDPBR_CNT_DROP_STORM_MCAST;
	default:
		return XDPBR_CNT_DROP_STORM_UNKNOWN;
	}
}

/* The slots a flood walks are 1 .. flood_top() - 1: every port's slot is
 * below it (user space keeps it in xdpbr_flood_fast.top, lib/ctl.c
 * flood_fast_sync); all of them when it is not known. The walks stop at
 * XDPBR_MAX_PORTS whatever it says. */
static __always_inline __u32 flood_top(void)
{
	struct xdpbr_flood_fast *ff;
	__u32 zero = 0;

	ff = bpf_map_lookup_elem(&xdpbr_flood_fast, &zero);
	return ff && ff->top ? ff->top : XDPBR_MAX_PORTS;
}

/* Whether slot is past the flood's last: top hidden from the compiler in
 * every turn, so that a loop keeps its two exits (the verifier needs the
 * constant one, XDPBR_MAX_PORTS, to bound it) and doesn't merge them. */
static __always_inline int flood_slot_past(__u32 slot, __u32 top)
{
	barrier_var(top);
	return slot >= top;
}

/* for_each_flood_slot(slot, top) BODY: slot from 1 to top - 1, never past
 * XDPBR_MAX_PORTS - 1 (top from flood_top). */
#define for_each_flood_slot(slot, top) \
	for ((slot) = 1; (slot) < XDPBR_MAX_PORTS && !flood_slot_past((slot), (top)); (slot)++)

/* Whether some port of the bridge needs the stack (lib/ctl.c
 * port_needs_stack): then frames from XDP ports that must reach one, every
 * flood among them, are handed to the stack, where the TC program of the
 * same port forwards them. */
static __always_inline int skb_ports_present(void)
{
	__u32 zero = 0, *n = bpf_map_lookup_elem(&xdpbr_skbports, &zero);

	return n && *n;
}

/* Whether known unicast from port in to port out goes to the stack, for
 * in's TC program to forward: out is on the skb path, whose frames keep
 * the checksum and GSO state that a redirect would lose (an skb-path port
 * that a redirect reaches, XDPBR_PORT_XDP_TARGET, takes only floods from
 * XDP), or in generic XDP mode. A port in generic XDP mode counts as one of
 * the skb path for frames from a native port: a driver without native XDP
 * has no ndo_xdp_xmit (e1000e), and on 6.1 virtio-net takes redirected
 * frames only while it runs a native program itself, so a redirect into
 * such a port is dropped (tx_dropped). The stack and the TC program deliver
 * them instead. A port in generic mode itself redirects through the stack
 * (dev_queue_xmit), which every port takes. */
static __always_inline int port_takes_stack(const struct xdpbr_port *in,
					    const struct xdpbr_port *out)
{
	return out && in->mode != XDPBR_MODE_GENERIC &&
	       (out->mode == XDPBR_MODE_TC || out->mode == XDPBR_MODE_GENERIC);
}

#endif /* XDPBR_PIPELINE_H */

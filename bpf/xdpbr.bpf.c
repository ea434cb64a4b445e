// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpbr.bpf.c - the bridge datapath.
 *
 * One program, attached to every port of a bridge:
 *   parse -> classify -> learn -> forward / flood -> count
 * and one devmap egress program on the flood sets that counts what each port
 * transmits.
 *
 * Attach by hand with iproute2 (maps are pinned by name):
 *   ip link set dev eth1 xdp obj build/xdpbr.bpf.o sec xdp
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "xdpbr.h"
#include "maps.h"
#include "parsing.h"
#include "stats.h"
#include "fdb.h"
#include "vlan.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* The coarse clock, read at most once per frame and only where needed: a
 * frame of a cached flow never reads it. */
static __always_inline __u64 clock_now(__u64 *now)
{
	if (!*now)
		*now = bpf_ktime_get_coarse_ns();
	return *now;
}

/* Frame classes after parsing the destination. */
enum dst_class {
	DST_UNICAST,
	DST_BROADCAST,
	DST_MULTICAST,
	DST_LINK_LOCAL,
};

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

static __always_inline int verdict(struct xdpbr_stats *st,
				   enum xdpbr_counter c, int action)
{
	count(st, c);
	return action;
}

/* Flood inside XDP: one devmap broadcast into the flood set of the frame's
 * class. The ingress port gets a copy only when it is in hairpin mode. */
static __always_inline int flood(void *map, const struct xdpbr_port *port,
				 struct xdpbr_stats *st, enum xdpbr_counter c)
{
	__u64 flags = BPF_F_BROADCAST;

	if (!(port->flags & XDPBR_PORT_HAIRPIN))
		flags |= BPF_F_EXCLUDE_INGRESS;
	if (bpf_redirect_map(map, 0, flags) != XDP_REDIRECT)
		return verdict(st, XDPBR_CNT_DROP_REDIRECT, XDP_DROP);
	return verdict(st, c, XDP_REDIRECT);
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
	__u64 rate, burst, fill;

	lim = bpf_map_lookup_elem(&xdpbr_storm, &slot);
	if (!lim || c >= XDPBR_STORM__MAX || !lim->pps[c])
		return 1;
	b = bpf_map_lookup_elem(&xdpbr_storm_state, &slot);
	if (!b)
		return 1;
	rate = lim->pps_cpu[c] ? lim->pps_cpu[c] : 1;
	burst = rate * XDPBR_STORM_BURST_MS / 1000;
	burst = (burst ? burst : 1) * XDPBR_NSEC_PER_SEC;
	/* Idle long enough to refill the whole burst: full. Else the
	 * product stays below the burst, so it can't overflow. */
	if (!b->last_ns[c] || now - b->last_ns[c] >= burst / rate)
		fill = burst;
	else
		fill = now > b->last_ns[c] ? (now - b->last_ns[c]) * rate : 0;
	b->last_ns[c] = now;
	b->tokens[c] += fill;
	if (b->tokens[c] > burst)
		b->tokens[c] = burst;
	if (b->tokens[c] < XDPBR_NSEC_PER_SEC)
		return 0;
	b->tokens[c] -= XDPBR_NSEC_PER_SEC;
	return 1;
}

/* Unknown unicast, after a VLAN-aware frame is normalised to carry its tag
 * (the egress programs tag per port). */
static __always_inline int flood_unknown(struct xdp_md *ctx, const struct xdpbr_port *port,
					 struct xdpbr_stats *st, int vlan_on,
					 const struct vlan_info *vi, __u64 now)
{
	if (!storm_allows(port->slot, XDPBR_STORM_UNKNOWN, now))
		return verdict(st, XDPBR_CNT_DROP_STORM_UNKNOWN, XDP_DROP);
	if (vlan_on && vlan_egress_fix(ctx, vi, 0))
		return verdict(st, XDPBR_CNT_DROP_REDIRECT, XDP_DROP);
	return flood(&xdpbr_flood_uu, port, st, XDPBR_CNT_FLOOD_UNKNOWN);
}

/* Port isolation: an isolated port talks only to ports that are not. */
static __always_inline int isolated_pair(const struct xdpbr_port *in, __u32 out_ifindex)
{
	struct xdpbr_port *out;

	if (!(in->flags & XDPBR_PORT_ISOLATED))
		return 0;
	out = port_of(out_ifindex);
	return out && (out->flags & XDPBR_PORT_ISOLATED);
}

SEC("xdp")
int xdpbr_rx(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 ifindex = ctx->ingress_ifindex;
	__u64 len = data_end - data;
	struct xdpbr_fdb_key key = {};
	struct xdpbr_fdb_val *dst;
	struct fdbc_set *set;
	struct fdbc_ent *ce;
	__u64 now = 0, j, gen, ageing, k;
	__u32 out_ifindex;
	__u16 out_slot;
	struct xdpbr_stats *st, *st_out;
	struct xdpbr_port *port;
	struct xdpbr_config *cfg;
	struct vlan_info vi = {};
	struct ethhdr *eth;
	int vlan_on;
	__u32 slot;

	port = port_of(ifindex);
	slot = port ? port->slot : 0;
	st = stats_of(slot);
	if (st) {
		st->c[XDPBR_CNT_RX_PACKETS]++;
		st->c[XDPBR_CNT_RX_BYTES] += len;
	}
	/* Attached but not (yet) a port of the bridge: leave it to the host. */
	if (!port)
		return verdict(st, XDPBR_CNT_PASS_NOT_PORT, XDP_PASS);

	/* parse */
	eth = parse_eth(data, data_end);
	if (!eth)
		return verdict(st, XDPBR_CNT_DROP_RUNT, XDP_DROP);
	if (mac_is_multicast(eth->h_source) || mac_is_zero(eth->h_source))
		return verdict(st, XDPBR_CNT_DROP_BAD_SRC, XDP_DROP);

	/* classify: link-local control frames go to the host untouched,
	 * before learning and VLAN rules, like the kernel bridge. */
	enum dst_class cls = classify(eth->h_dest);
	if (cls == DST_LINK_LOCAL)
		return verdict(st, XDPBR_CNT_PASS_LINKLOCAL, XDP_PASS);

	/* VLAN: the frame's VLAN decides its FDB and its egress ports. */
	cfg = config_get();
	vlan_on = cfg && (cfg->flags & XDPBR_CFG_VLAN_FILTERING);
	if (vlan_on) {
		switch (vlan_ingress(eth, data_end, port, &vi)) {
		case VLAN_RUNT:
			return verdict(st, XDPBR_CNT_DROP_RUNT, XDP_DROP);
		case VLAN_FILTERED:
			return verdict(st, XDPBR_CNT_DROP_VLAN, XDP_DROP);
		case VLAN_8021AD:
			return verdict(st, XDPBR_CNT_DROP_8021AD, XDP_DROP);
		case VLAN_OK:
			break;
		}
	}

	/* learn: a source this CPU has cached on this port is known and
	 * costs no FDB lookup; anything else goes through the FDB. */
	j = bpf_jiffies64();
	gen = fdbgen_get();
	ageing = config_ageing_ns(cfg);
	k = fdbc_key(vi.vid, eth->h_source);
	set = fdbc_set_of(k);
	ce = fdbc_find(set, k, gen, j);
	if (!ce || ce->ifindex != ifindex) {
		__u64 seen = 0;
		__u16 fl = 0;

		key.vlan = vi.vid;
		__builtin_memcpy(key.mac, eth->h_source, ETH_ALEN);
		switch (fdb_learn(&key, ifindex, slot, port, clock_now(&now), st, &seen, &fl)) {
		case LEARN_SPOOFED:
			return verdict(st, XDPBR_CNT_DROP_SPOOFED, XDP_DROP);
		case LEARN_HERE:
			fdbc_fill(set, k, gen, j, ifindex, slot, fl, seen, now, ageing);
			break;
		case LEARN_OK:
			break;
		}
	}

	/* forward / flood */
	if (cls != DST_UNICAST) {
		int bc = cls == DST_BROADCAST;

		if (!storm_allows(slot, bc ? XDPBR_STORM_BCAST : XDPBR_STORM_MCAST,
				  clock_now(&now)))
			return verdict(st, bc ? XDPBR_CNT_DROP_STORM_BCAST
					      : XDPBR_CNT_DROP_STORM_MCAST, XDP_DROP);
		if (vlan_on && vlan_egress_fix(ctx, &vi, 0))
			return verdict(st, XDPBR_CNT_DROP_REDIRECT, XDP_DROP);
		if (bc)
			return flood(&xdpbr_flood_bc, port, st, XDPBR_CNT_FLOOD_BCAST);
		return flood(&xdpbr_flood_mc, port, st, XDPBR_CNT_FLOOD_MCAST);
	}

	k = fdbc_key(vi.vid, eth->h_dest);
	set = fdbc_set_of(k);
	ce = fdbc_find(set, k, gen, j);
	if (ce) {
		out_ifindex = ce->ifindex;
		out_slot = ce->slot;
	} else {
		key.vlan = vi.vid;
		__builtin_memcpy(key.mac, eth->h_dest, ETH_ALEN);
		dst = bpf_map_lookup_elem(&xdpbr_fdb, &key);
		if (!dst || fdb_is_stale(dst, clock_now(&now), ageing))
			return flood_unknown(ctx, port, st, vlan_on, &vi, clock_now(&now));
		out_ifindex = dst->ifindex;
		out_slot = dst->slot;
		fdbc_fill(set, k, gen, j, out_ifindex, out_slot, dst->flags,
			  dst->last_seen, now, ageing);
	}
	if (out_ifindex == ifindex && !(port->flags & XDPBR_PORT_HAIRPIN))
		return verdict(st, XDPBR_CNT_DROP_SAME_PORT, XDP_DROP);
	if (out_ifindex != ifindex && isolated_pair(port, out_ifindex))
		return verdict(st, XDPBR_CNT_DROP_ISOLATED, XDP_DROP);

	slot = out_slot;
	if (vlan_on) {
		struct xdpbr_vlan_port *vl = vlan_of(slot);
		int untag;

		if (!vl || !vlan_bit(vl->member, vi.vid))
			return verdict(st, XDPBR_CNT_DROP_VLAN, XDP_DROP);
		untag = vlan_bit(vl->untagged, vi.vid);
		if (vlan_egress_fix(ctx, &vi, untag))
			return verdict(st, XDPBR_CNT_DROP_REDIRECT, XDP_DROP);
		/* vi now describes the rewritten frame, for a fallback flood */
		vi.tagged = !untag;
		len = (long)ctx->data_end - (long)ctx->data;
	}
	/* A port that has left the tx map (removed, link down) is unknown. */
	if (bpf_redirect_map(&xdpbr_tx, slot, 0) != XDP_REDIRECT)
		return flood_unknown(ctx, port, st, vlan_on, &vi, clock_now(&now));
	st_out = stats_of(slot);
	count_tx(st_out, len);
	return verdict(st, XDPBR_CNT_FORWARDED, XDP_REDIRECT);
}

/* Runs for every flooded copy, on the egress port: drop a copy between two
 * isolated ports, or for a VLAN the port is not in; untag it where the port
 * sends that VLAN untagged; count the rest as the port's transmissions. */
SEC("xdp/devmap")
int xdpbr_egress(struct xdp_md *ctx)
{
	__u32 ifindex = ctx->egress_ifindex;
	__u32 in_ifindex = ctx->ingress_ifindex;
	struct xdpbr_port *port, *in;
	struct xdpbr_config *cfg;
	struct xdpbr_stats *st;

	port = port_of(ifindex);
	if (!port)
		return XDP_PASS;
	st = stats_of(port->slot);
	if (port->flags & XDPBR_PORT_ISOLATED && in_ifindex != ifindex) {
		in = port_of(in_ifindex);
		if (in && in->flags & XDPBR_PORT_ISOLATED) {
			count(st, XDPBR_CNT_FLOOD_FILTERED);
			return XDP_DROP;
		}
	}
	cfg = config_get();
	if (cfg && cfg->flags & XDPBR_CFG_VLAN_FILTERING) {
		void *data = (void *)(long)ctx->data;
		void *data_end = (void *)(long)ctx->data_end;
		struct ethhdr *eth = data;
		struct vlan_hdr *vh = (void *)(eth + 1);
		struct xdpbr_vlan_port *vl;
		__u16 vid;

		/* The ingress program tagged every flooded frame. */
		if ((void *)(vh + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_8021Q)) {
			count(st, XDPBR_CNT_FLOOD_FILTERED);
			return XDP_DROP;
		}
		vid = bpf_ntohs(vh->tci) & VLAN_VID_MASK;
		vl = vlan_of(port->slot);
		if (!vl || !vlan_bit(vl->member, vid)) {
			count(st, XDPBR_CNT_FLOOD_FILTERED);
			return XDP_DROP;
		}
		if (vlan_bit(vl->untagged, vid) && vlan_pop(ctx)) {
			count(st, XDPBR_CNT_FLOOD_FILTERED);
			return XDP_DROP;
		}
	}
	count_tx(st, (__u64)((long)ctx->data_end - (long)ctx->data));
	return XDP_PASS;
}

/*
 * Frames the kernel drops after the program has decided: the driver of an
 * egress port refusing redirected frames (a veth whose peer runs no NAPI, a
 * full ring), and redirects that fail in xdp_do_redirect. Attached by the
 * daemon; they touch only this bridge's ports.
 */
/* Only the field the program reads; libbpf relocates its offset against
 * the running kernel's BTF (CO-RE). */
struct net_device {
	int ifindex;
} __attribute__((preserve_access_index));

/*
 * The tracepoint's drops include the copies our own devmap egress program
 * refused (isolation, VLAN), already counted as flood_filtered. The egress
 * program runs in the same per-CPU flush just before the tracepoint fires,
 * so the flood_filtered this CPU added since the last firing is exactly
 * that share: subtract it, and count only what the driver dropped.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_xmit_seen SEC(".maps");

/*
 * A BTF tracepoint (tp_btf), not the perf-style one: it fires once per
 * flush of redirected frames, on the hot path, and the perf-style one first
 * builds a record of its arguments in a per-CPU buffer, which cost about 2%
 * of the one-flow rate; this one gets the arguments as they are.
 */
SEC("tp_btf/xdp_devmap_xmit")
int BPF_PROG(xdpbr_xmit, const struct net_device *from_dev,
	     const struct net_device *to_dev, int sent, int drops, int err)
{
	__u32 ifindex = (__u32)to_dev->ifindex, slot;
	struct xdpbr_port *port;
	struct xdpbr_stats *st;
	__u64 *seen, filtered, ndrops;

	port = port_of(ifindex);
	if (!port)
		return 0;
	slot = port->slot;
	st = stats_of(slot);
	seen = bpf_map_lookup_elem(&xdpbr_xmit_seen, &slot);
	if (!st || !seen)
		return 0;
	filtered = st->c[XDPBR_CNT_FLOOD_FILTERED] - *seen;
	*seen = st->c[XDPBR_CNT_FLOOD_FILTERED];
	ndrops = drops > 0 ? (__u64)drops : 0;
	if (ndrops > filtered)
		st->c[XDPBR_CNT_TX_DROPPED] += ndrops - filtered;
	return 0;
}

struct redirect_err_args {		/* xdp:xdp_redirect_err (6.x: also map redirects) */
	__u64 common;
	int prog_id;
	__u32 act;
	int ifindex;
	int err;
	int to_ifindex;
	__u32 map_id;
	int map_index;
};

SEC("tracepoint/xdp/xdp_redirect_err")
int xdpbr_redirect_err(struct redirect_err_args *a)
{
	__u32 ifindex = (__u32)a->ifindex;
	struct xdpbr_port *port;

	port = port_of(ifindex);
	if (port)
		count(stats_of(port->slot), XDPBR_CNT_REDIRECT_ERRORS);
	return 0;
}

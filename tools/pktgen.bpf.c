// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pktgen.bpf.c - the XDP programs of the packet generator (tools/pktgen.c).
 *
 *   pktgen_tx    the generator. Never attached: user space runs it with
 *                BPF_PROG_RUN in live-frames mode (BPF_F_TEST_XDP_LIVE_FRAMES),
 *                where every XDP_REDIRECT really transmits the frame. It
 *                rewrites the source (and destination) MAC per frame from a
 *                per-CPU counter and redirects through a one-entry devmap to
 *                the transmit interface.
 *   pktgen_probe drops: run once in live-frames mode, it tells whether the
 *                kernel allows that mode at all.
 *   pktgen_amp   the amplifier, for kernels that refuse live frames
 *                (--tx-mode amp): attached to a veth of pktgen's own that
 *                user space feeds with AF_PACKET, it broadcasts each frame
 *                to the AMP_COPIES entries of amp_ports, every one the
 *                transmit interface, whose program pktgen_amp_tx cycles
 *                the MACs of each copy as pktgen_tx does. It counts the
 *                copies as it makes them, and ends the CPU's share of
 *                --count one copy a frame (amp_one), never by dropping
 *                copies: a devmap flush whose frames its program all
 *                dropped skips the transmit, and with it the wake-up of
 *                the receiving veth, stranding what an earlier flush of
 *                the same poll queued there.
 *   pktgen_sink  the receiver, attached to each sink interface: counts frames
 *                and bytes per CPU and per interface, then drops them.
 *   pktgen_sink_tc  the same at TC (clsact) ingress, for skbs that never
 *                meet the interface's XDP hook (see pktgen --rx-tc).
 *   pktgen_fwd   the "ceiling" DUT of the benchmark: a bare devmap redirect
 *                with no FDB. Unicast goes to entry 0 of fwd_ports; a frame
 *                with a group destination is broadcast to every entry except
 *                the ingress port. What any XDP bridge can reach on the path.
 *
 * In live-frames mode the kernel initialises each page of its page pool from
 * the input frame once and recycles it: what the program writes stays in the
 * frame, so the program writes absolute values (never increments a field).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by user space before loading. */
const volatile __u32 n_src = 1;		/* source MACs to cycle through */
const volatile __u32 n_dst = 1;		/* destination MACs to cycle through */
const volatile __u32 src_base = 0;	/* low 24 bits of the first source MAC */
const volatile __u32 dst_base = 0;	/* low 24 bits of the first destination MAC */

/* Per-CPU generator state: where each CPU is in its MAC cycles, and how
 * many frames it has generated. User space seeds the indexes so that CPUs
 * start at different points of the cycle. */
struct gen_state {
	__u32 src_idx;
	__u32 dst_idx;
	__u64 frames;
	__u64 limit;		/* amplifier: the CPU's share of --count; 0 none */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gen_state);
} gen_state SEC(".maps");

/* Entry 0: the transmit interface. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} tx_port SEC(".maps");

static __always_inline void set_low24(__u8 *mac, __u32 v)
{
	mac[3] = (__u8)(v >> 16);
	mac[4] = (__u8)(v >> 8);
	mac[5] = (__u8)v;
}

/* The next frame of st's cycles: its MACs written. */
static __always_inline void gen_next(struct ethhdr *eth, struct gen_state *st)
{
	if (n_src > 1) {
		set_low24(eth->h_source, src_base + st->src_idx);
		if (++st->src_idx >= n_src)
			st->src_idx = 0;
	}
	if (n_dst > 1) {
		set_low24(eth->h_dest, dst_base + st->dst_idx);
		if (++st->dst_idx >= n_dst)
			st->dst_idx = 0;
	}
}

/* The frame's Ethernet header in *eth and this CPU's state, or NULL. */
static __always_inline struct gen_state *gen_frame(struct xdp_md *ctx, struct ethhdr **eth)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 zero = 0;

	*eth = data;
	if ((void *)(*eth + 1) > data_end)
		return NULL;
	return bpf_map_lookup_elem(&gen_state, &zero);
}

SEC("xdp")
int pktgen_tx(struct xdp_md *ctx)
{
	struct gen_state *st;
	struct ethhdr *eth;

	st = gen_frame(ctx, &eth);
	if (!st)
		return XDP_ABORTED;
	gen_next(eth, st);
	st->frames++;
	return bpf_redirect_map(&tx_port, 0, 0);
}

/* Copies of each frame the amplifier makes: a devmap broadcast clones the
 * frame once per entry. Keys 0..AMP_COPIES-1, all the transmit interface. */
#define AMP_COPIES 32

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, AMP_COPIES);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} amp_ports SEC(".maps");

/* Entry 0: the transmit interface, with pktgen_amp_tx: one copy. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} amp_one SEC(".maps");

SEC("xdp.frags")
int pktgen_amp(struct xdp_md *ctx)
{
	struct gen_state *st;
	__u32 zero = 0;

	st = bpf_map_lookup_elem(&gen_state, &zero);
	if (!st)
		return XDP_DROP;
	if (!st->limit || st->limit - st->frames >= AMP_COPIES) {
		st->frames += AMP_COPIES;
		return bpf_redirect_map(&amp_ports, 0, BPF_F_BROADCAST);
	}
	if (st->frames >= st->limit)
		return XDP_DROP;
	st->frames++;
	return bpf_redirect_map(&amp_one, 0, 0);
}

/* Each copy, on its way to the transmit interface: the next frame of the
 * CPU's cycles. */
SEC("xdp.frags/devmap")
int pktgen_amp_tx(struct xdp_md *ctx)
{
	struct gen_state *st;
	struct ethhdr *eth;

	st = gen_frame(ctx, &eth);
	if (!st)
		return XDP_DROP;
	gen_next(eth, st);
	return XDP_PASS;
}

SEC("xdp")
int pktgen_probe(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_DROP;
}

/* Sink counters per CPU, indexed by the interface's ifindex (in the sink's
 * namespace) modulo SINK_SLOTS; user space checks that its sinks do not
 * collide. An array, not a hash: the sink's cost is part of every figure. */
#define SINK_SLOTS 256

struct sink_count {
	__u64 packets;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SINK_SLOTS);
	__type(key, __u32);
	__type(value, struct sink_count);
} sink_counts SEC(".maps");

SEC("xdp")
int pktgen_sink(struct xdp_md *ctx)
{
	__u32 slot = ctx->ingress_ifindex & (SINK_SLOTS - 1);
	struct sink_count *c;

	c = bpf_map_lookup_elem(&sink_counts, &slot);
	if (c) {
		c->packets++;
		c->bytes += (__u64)(ctx->data_end - ctx->data);
	}
	return XDP_DROP;
}

SEC("tc")
int pktgen_sink_tc(struct __sk_buff *skb)
{
	__u32 slot = skb->ifindex & (SINK_SLOTS - 1);
	struct sink_count *c;

	c = bpf_map_lookup_elem(&sink_counts, &slot);
	if (c) {
		c->packets++;
		c->bytes += skb->len;
	}
	return TC_ACT_SHOT;
}

/* Egress ports of the ceiling DUT: entry 0 takes unicast, all take floods.
 * Sized to the --to list at load (pktgen.c load_skel): a broadcast walks
 * every entry, so 128 here would cost a 3-port flood 125 empty ones. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 128);
	__type(key, __u32);
	__type(value, __u32);
} fwd_ports SEC(".maps");

SEC("xdp")
int pktgen_fwd(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	if (eth->h_dest[0] & 1)
		return bpf_redirect_map(&fwd_ports, 0,
					BPF_F_BROADCAST | BPF_F_EXCLUDE_INGRESS);
	return bpf_redirect_map(&fwd_ports, 0, 0);
}

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * stp.h - spanning tree port states, as the datapath enforces them.
 *
 * The daemon (or, with STP off, the CLI) writes a word per port slot
 * (xdpbr_stp_port: state and edge bit, include/xdpbr.h) and a heartbeat
 * (xdpbr_stp_beat). Here they are only read: the ingress port's word once
 * per frame, each egress port's as a copy or a known unicast frame goes
 * to it. With STP on, a non-edge port whose daemon has been silent past
 * the heartbeat's timeout discards: the heartbeat is read at most once per
 * frame, and only then; nothing shared is written. The verdict is kept per
 * CPU for the rest of the jiffy (stp_expiry below): reading the clock for
 * every frame (a helper call) cost about 8 ns a frame with STP on
 * (doc/performance.md "Figures behind the datapath's choices").
 */
#ifndef XDPBR_STP_H
#define XDPBR_STP_H

#include "xdpbr_rules.h"
#include "maps.h"
#include "parsing.h"
#include "portcfg.h"

/* What one frame (or one flooded copy) knows of the spanning tree. */
struct stp_view {
	int on;			/* XDPBR_CFG_STP */
	int expired;		/* the heartbeat's verdict; -1: not read yet */
};

static __always_inline void stp_view_init(struct stp_view *v, const struct xdpbr_config *cfg)
{
	v->on = cfg && (cfg->flags & XDPBR_CFG_STP);
	v->expired = -1;
}

/* This CPU's last verdict on the heartbeat: trusted while the jiffy and
 * the heartbeat are the ones it was made with (so it lags the truth by
 * less than a jiffy). Not pinned, and so not named xdpbr_*: a cache, not
 * state. */
struct stp_expiry {
	__u64 j;			/* bpf_jiffies64() when decided */
	__u64 beat_ns, timeout_ns;	/* the heartbeat it was decided on */
	__u64 expired;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stp_expiry);
} stp_expiry_cache SEC(".maps");

/* 01:80:c2:00:00:00, the bridge group address STP and RSTP send BPDUs to. */
static __always_inline int mac_is_bpdu(const __u8 *mac)
{
	return mac_is_link_local(mac) && mac[5] == 0x00;
}

/* Whether the daemon's heartbeat is older than its timeout: read once per
 * view, and only when a non-edge port's state depends on it. */
static __always_inline int stp_expired(struct stp_view *v)
{
	struct xdpbr_stp_beat *b;
	struct stp_expiry *c;
	__u32 zero = 0;
	__u64 j;

	if (v->expired >= 0)
		return v->expired;
	v->expired = 0;
	b = bpf_map_lookup_elem(&xdpbr_stp_beat, &zero);
	if (!b || !b->timeout_ns)
		return 0;
	j = bpf_jiffies64();
	c = bpf_map_lookup_elem(&stp_expiry_cache, &zero);
	if (c && c->j == j && c->beat_ns == b->beat_ns && c->timeout_ns == b->timeout_ns) {
		v->expired = c->expired ? 1 : 0;
		return v->expired;
	}
	v->expired = xdpbr_stp_expired(b, bpf_ktime_get_coarse_ns());
	if (c) {
		c->j = j;
		c->beat_ns = b->beat_ns;
		c->timeout_ns = b->timeout_ns;
		c->expired = (__u64)v->expired;
	}
	return v->expired;
}

/* The state enforced on the port in slot (p: its entry, or NULL to look it
 * up only if needed). */
static __always_inline enum xdpbr_stp_state stp_state(struct stp_view *v, __u32 slot,
						      const struct xdpbr_port *p)
{
	__u32 *w = bpf_map_lookup_elem(&xdpbr_stp_port, &slot);
	__u32 word = w ? *w : 0;
	int expired = 0;

	if (!(word | v->on))		/* the common case: no STP, forwarding */
		return XDPBR_STP_FORWARDING;
	/* the port's flags (is it the host's?) matter only past the
	 * heartbeat: looked up only then */
	if (v->on && !(word & XDPBR_STP_EDGE) && stp_expired(v)) {
		expired = 1;
		if (!p)
			p = port_at(slot);
	}
	return xdpbr_stp_effective(word, p ? p->flags : 0, v->on, expired);
}

/* Whether the port in slot may send: known unicast and flooded copies
 * leave only through a forwarding port. */
static __always_inline int stp_forwards(struct stp_view *v, __u32 slot,
					const struct xdpbr_port *p)
{
	return stp_state(v, slot, p) == XDPBR_STP_FORWARDING;
}

/*
 * The same for the copies of one flood on the skb path, one per slot in a
 * loop the verifier walks slot by slot: the heartbeat is read before the
 * loop (stp_flood_prepare), so a copy's check has no state of its own to
 * keep and the walk's states don't multiply.
 */
static __always_inline __u32 stp_flood_prepare(struct stp_view *v)
{
	return v->on && stp_expired(v) ? 1 : 0;
}

/* xdpbr_stp_effective(...) == XDPBR_STP_FORWARDING, in arithmetic rather
 * than branches: block is stp_flood_prepare()'s 1 when non-edge ports
 * must discard; port_flags the port's (0 for none). */
static __always_inline int stp_copy_forwards(__u32 block, __u32 slot, __u32 port_flags)
{
	__u32 *w = bpf_map_lookup_elem(&xdpbr_stp_port, &slot);
	__u32 word = w ? *w : 0;
	/* the host interface's port counts as an edge: XDPBR_PORT_HOST
	 * (bit 18) shifted onto XDPBR_STP_EDGE (bit 2) */
	__u32 edge = (word | (port_flags >> 16)) & XDPBR_STP_EDGE;

	return ((word & XDPBR_STP_STATE_MASK) | (block & ~(edge >> 2) & 1)) == 0;
}
_Static_assert(XDPBR_PORT_HOST >> 16 == XDPBR_STP_EDGE, "host bit onto the edge bit");

#endif /* XDPBR_STP_H */

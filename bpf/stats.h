/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* stats.h - per-CPU, per-port counters. Plain increments: the array is
 * per-CPU, so no atomics and no shared cache line. */
#ifndef XDPBR_STATS_H
#define XDPBR_STATS_H

#include "maps.h"

/* The port behind ifindex, or NULL. */
static __always_inline struct xdpbr_port *port_of(__u32 ifindex)
{
	struct xdpbr_port *p;
	__u32 *slot;

	if (ifindex >= XDPBR_IFINDEX_FAST)
		return bpf_map_lookup_elem(&xdpbr_ports, &ifindex);
	slot = bpf_map_lookup_elem(&xdpbr_ifslot, &ifindex);
	if (!slot || !*slot)
		return NULL;
	p = bpf_map_lookup_elem(&xdpbr_portcfg, slot);
	return p && p->slot ? p : NULL;
}

static __always_inline struct xdpbr_stats *stats_of(__u32 slot)
{
	return bpf_map_lookup_elem(&xdpbr_stats, &slot);
}

static __always_inline void count(struct xdpbr_stats *st, enum xdpbr_counter c)
{
	if (st && c < XDPBR_CNT__MAX)
		st->c[c]++;
}

static __always_inline void count_tx(struct xdpbr_stats *st, __u64 bytes)
{
	if (st) {
		st->c[XDPBR_CNT_TX_PACKETS]++;
		st->c[XDPBR_CNT_TX_BYTES] += bytes;
	}
}

#endif /* XDPBR_STATS_H */

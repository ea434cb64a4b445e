/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* stats.h - per-CPU, per-port counters. Plain increments: the array is
 * per-CPU, so no atomics and no shared cache line. */
#ifndef XDPBR_STATS_H
#define XDPBR_STATS_H

#include "maps.h"

static __always_inline struct xdpbr_stats *stats_of(__u32 slot)
{
	return bpf_map_lookup_elem(&xdpbr_stats, &slot);
}

static __always_inline void count(struct xdpbr_stats *st, enum xdpbr_counter c)
{
	if (st && c < XDPBR_CNT__MAX)
		st->c[c]++;
}

/* n frames of one kind at once: a GSO packet on the skb path stands for
 * the frames it will be cut into on the wire. */
static __always_inline void count_n(struct xdpbr_stats *st, enum xdpbr_counter c, __u32 n)
{
	if (st && c < XDPBR_CNT__MAX)
		st->c[c] += n;
}

static __always_inline void count_tx(struct xdpbr_stats *st, __u64 bytes, __u32 frames)
{
	if (st) {
		st->c[XDPBR_CNT_TX_PACKETS] += frames;
		st->c[XDPBR_CNT_TX_BYTES] += bytes;
	}
}

#endif /* XDPBR_STATS_H */

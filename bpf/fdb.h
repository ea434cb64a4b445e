/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fdb.h - learning and lookup.
 *
 * Times are CLOCK_MONOTONIC nanoseconds from bpf_ktime_get_coarse_ns(): a
 * tick or so of resolution is plenty for a one-second refresh and ageing in
 * seconds, and it is cheaper per packet than the precise clock.
 */
#ifndef XDPBR_FDB_H
#define XDPBR_FDB_H

#include "maps.h"
#include "stats.h"

enum learn_result {
	LEARN_OK = 0,		/* known or learned: carry on */
	LEARN_SPOOFED,		/* source is a static MAC of another port: drop */
};

static __always_inline __u64 config_ageing_ns(void)
{
	__u32 zero = 0;
	struct xdpbr_config *cfg = bpf_map_lookup_elem(&xdpbr_config, &zero);

	if (!cfg || !cfg->ageing_ns)
		return XDPBR_DEFAULT_AGEING_S * XDPBR_NSEC_PER_SEC;
	return cfg->ageing_ns;
}

/* An entry older than the ageing time is unknown, whether or not the daemon
 * has swept it yet. */
static __always_inline int fdb_is_stale(const struct xdpbr_fdb_val *v,
					__u64 now, __u64 ageing_ns)
{
	if (v->flags & XDPBR_FDB_STATIC || ageing_ns == XDPBR_AGEING_NEVER)
		return 0;
	return now > v->last_seen && now - v->last_seen > ageing_ns;
}

/*
 * Learn the source MAC of a frame that arrived on ifindex/slot.
 * Writes only when the MAC is new, has moved, or was last refreshed more than
 * XDPBR_REFRESH_NS ago: a steady flow from a known host costs one lookup and
 * no store to the shared table.
 */
static __always_inline enum learn_result
fdb_learn(const struct xdpbr_fdb_key *key, __u32 ifindex, __u32 slot,
	  __u32 port_flags, __u64 now, struct xdpbr_stats *st)
{
	struct xdpbr_fdb_val *v, nv = {};

	v = bpf_map_lookup_elem(&xdpbr_fdb, key);
	if (v) {
		if (v->ifindex == ifindex) {
			if (!(v->flags & XDPBR_FDB_STATIC) &&
			    now - v->last_seen >= XDPBR_REFRESH_NS)
				v->last_seen = now;
			return LEARN_OK;
		}
		if (v->flags & XDPBR_FDB_STATIC)
			return LEARN_SPOOFED;
	}
	if (!(port_flags & XDPBR_PORT_LEARNING))
		return LEARN_OK;

	nv.ifindex = ifindex;
	nv.slot = slot;
	nv.last_seen = now;
	if (bpf_map_update_elem(&xdpbr_fdb, key, &nv, BPF_ANY))
		count(st, XDPBR_CNT_LEARN_FAILED);
	else
		count(st, v ? XDPBR_CNT_MOVED : XDPBR_CNT_LEARNED);
	return LEARN_OK;
}

#endif /* XDPBR_FDB_H */

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

#include <linux/errno.h>
#include "xdpbr_rules.h"
#include "maps.h"
#include "portcfg.h"
#include "stats.h"
#include "fdbcache.h"

enum learn_result {
	LEARN_OK = 0,		/* carry on; the source is not (yet) in the FDB
				 * on this port (limits, learning off) */
	LEARN_HERE,		/* known or learned on this port: carry on, and
				 * *last_seen is its entry's */
	LEARN_SPOOFED,		/* source is a static MAC of another port: drop */
	LEARN_LOCKED,		/* a locked port, and the FDB has the source
				 * elsewhere or not at all: drop, learn nothing */
};

/*
 * The dynamic entries of a slot (XDPBR_LEARNED_TOTAL: the bridge) are the
 * sum of two counts: the datapath's own (xdpbr_learned) and user space's
 * (xdpbr_learned_user), each written by its side alone, so no change of
 * one side ever overwrites one of the other (xdpbr_rules.h).
 */
static __always_inline __u64 learned_count(__u32 slot)
{
	__u64 *dp = bpf_map_lookup_elem(&xdpbr_learned, &slot);
	__u64 *us = bpf_map_lookup_elem(&xdpbr_learned_user, &slot);

	return xdpbr_learned_count(dp ? *dp : 0, us ? *us : 0);
}

/* Whether a new dynamic entry on this port would pass the bridge-wide and
 * the port's limit. Reads four shared counters that change only when an
 * entry is learned, moved or removed, never per packet. */
static __always_inline int learn_allowed(const struct xdpbr_port *port, __u32 slot)
{
	struct xdpbr_config *cfg = config_get();

	if (cfg && cfg->fdb_max_learned &&
	    xdpbr_limit_reached(learned_count(XDPBR_LEARNED_TOTAL), cfg->fdb_max_learned))
		return 0;
	if (port->max_learned && xdpbr_limit_reached(learned_count(slot), port->max_learned))
		return 0;
	return 1;
}

/* Adds d to the datapath's count of slot: atomically, and with no floor (a
 * test of the old value then a decrement would let two CPUs moving the same
 * MAC take it below zero and wrap); the counts are signed. */
static __always_inline void learned_add(__u32 slot, __s64 d)
{
	__u64 *n = bpf_map_lookup_elem(&xdpbr_learned, &slot);

	if (n)
		__sync_fetch_and_add(n, d);
}

/* Reports a learn or move to the daemon, within the per-CPU token bucket:
 * a MAC flood costs each CPU at most XDPBR_EV_RATE events a second. Runs
 * only on the (rare) learn and move paths. */
static __always_inline void fdb_event(__u32 type, const struct xdpbr_fdb_key *key,
				      __u32 ifindex, __u32 old_ifindex, __u64 now,
				      struct xdpbr_stats *st)
{
	const __u64 cost = XDPBR_NSEC_PER_SEC;	/* one event, in token units */
	struct xdpbr_evbudget *b;
	struct xdpbr_event *ev;
	__u32 zero = 0;
	__u64 fill;

	b = bpf_map_lookup_elem(&xdpbr_evbudget, &zero);
	if (!b)
		return;
	fill = (now - b->last_ns) * XDPBR_EV_RATE;
	if (now < b->last_ns || fill > XDPBR_EV_BURST * cost)
		fill = XDPBR_EV_BURST * cost;	/* idle long enough: full bucket */
	b->tokens += fill;
	if (b->tokens > XDPBR_EV_BURST * cost)
		b->tokens = XDPBR_EV_BURST * cost;
	b->last_ns = now;
	if (b->tokens < cost) {
		count(st, XDPBR_CNT_EVENTS_DROPPED);
		return;
	}
	b->tokens -= cost;

	ev = bpf_ringbuf_reserve(&xdpbr_events, sizeof(*ev), 0);
	if (!ev) {
		count(st, XDPBR_CNT_EVENTS_DROPPED);
		return;
	}
	ev->ts = now;
	ev->type = type;
	ev->ifindex = ifindex;
	ev->old_ifindex = old_ifindex;
	ev->vlan = key->vlan;
	__builtin_memcpy(ev->mac, key->mac, 6);
	bpf_ringbuf_submit(ev, 0);
}

/*
 * Learn the source MAC of a frame that arrived on port (ifindex, slot).
 * Writes only when the MAC is new, has moved, or was last refreshed more than
 * XDPBR_REFRESH_NS ago: a steady flow from a known host costs one lookup and
 * no store to the shared table.
 */
static __always_inline enum learn_result
fdb_learn(const struct xdpbr_fdb_key *key, __u32 ifindex, __u32 slot,
	  const struct xdpbr_port *port, __u64 now, struct xdpbr_stats *st,
	  __u64 *last_seen, __u16 *fdb_flags)
{
	struct xdpbr_fdb_val *v, nv = {};
	__u32 old_slot = 0, old_ifindex = 0;
	long err;

	v = bpf_map_lookup_elem(&xdpbr_fdb, key);
	if (v) {
		if (v->ifindex == ifindex) {
			if (!(v->flags & XDPBR_FDB_STATIC) &&
			    now - v->last_seen >= XDPBR_REFRESH_NS)
				v->last_seen = now;
			*last_seen = v->last_seen;
			*fdb_flags = v->flags;
			return LEARN_HERE;
		}
		if (v->flags & XDPBR_FDB_STATIC)
			return LEARN_SPOOFED;
		old_slot = v->slot;
		old_ifindex = v->ifindex;
	}
	/* A locked port (802.1X) admits only the sources a user put in
	 * the FDB on it, as the kernel bridge's does: it neither learns a
	 * new one nor moves one from another port. */
	if (port->flags & XDPBR_PORT_LOCKED)
		return LEARN_LOCKED;
	if (!(port->flags & XDPBR_PORT_LEARNING))
		return LEARN_OK;
	/* The limits bound new entries; a move keeps the count. */
	if (!v && !learn_allowed(port, slot)) {
		count(st, XDPBR_CNT_LEARN_LIMIT);
		return LEARN_OK;
	}

	nv.ifindex = ifindex;
	nv.slot = slot;
	nv.last_seen = now;
	/* A new entry only if there is none (another CPU may have learned
	 * the MAC since the lookup: it counted it), a move only if the entry
	 * is still there (user space may have deleted it: not counted
	 * again). Each entry is counted once. */
	err = bpf_map_update_elem(&xdpbr_fdb, key, &nv, v ? BPF_EXIST : BPF_NOEXIST);
	if (err) {
		if (err != -EEXIST && err != -ENOENT)
			count(st, XDPBR_CNT_LEARN_FAILED);
		return LEARN_OK;
	}
	*last_seen = now;
	*fdb_flags = 0;
	if (v) {
		/* After the update: a CPU that reads the new generation
		 * finds the new port in the FDB. */
		fdbgen_bump_dp();
		count(st, XDPBR_CNT_MOVED);
		fdb_event(XDPBR_EV_MOVE, key, ifindex, old_ifindex, now, st);
		if (old_slot != slot && old_slot != XDPBR_LEARNED_TOTAL &&
		    old_slot < XDPBR_MAX_PORTS) {
			learned_add(old_slot, -1);
			learned_add(slot, 1);
		}
	} else {
		count(st, XDPBR_CNT_LEARNED);
		learned_add(slot, 1);
		learned_add(XDPBR_LEARNED_TOTAL, 1);
		fdb_event(XDPBR_EV_LEARN, key, ifindex, 0, now, st);
	}
	return LEARN_HERE;
}

#endif /* XDPBR_FDB_H */

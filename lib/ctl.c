// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ctl.c - operations on a bridge's pinned maps (see ctl.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ctl.h"
#include "fault.h"
#include "fdbtab.h"
#include "pins.h"
#include "ports.h"
#include "util.h"
#include "xdpbr_rules.h"

/* ---- learned counts: the datapath's (xdpbr_learned) plus user space's
 * (xdpbr_learned_user, the only one written here); see xdpbr.h. */

int ctl_learned_get(const struct xdpbr_maps *m, uint32_t slot, uint64_t *n)
{
	__u64 dp = 0, user = 0;

	if (bpf_map_lookup_elem(m->learned, &slot, &dp) ||
	    bpf_map_lookup_elem(m->learned_user, &slot, &user))
		return -errno;
	*n = xdpbr_learned_count(dp, user);
	return 0;
}

static void learned_user_add(const struct xdpbr_maps *m, uint32_t slot, int64_t d)
{
	__u64 v = 0;

	if (!d || bpf_map_lookup_elem(m->learned_user, &slot, &v))
		return;
	v += (__u64)d;
	bpf_map_update_elem(m->learned_user, &slot, &v, 0);
}

/* A read and a write: two user-space writers at once (the daemon's sweep
 * and a CLI flush) can lose one's change, which a quiet sweep repairs
 * (learned_repair); a change of the datapath's, in the other map, is never
 * lost. */
void ctl_learned_adjust(const struct xdpbr_maps *m, uint32_t slot, int64_t d)
{
	learned_user_add(m, slot, d);
	if (slot != XDPBR_LEARNED_TOTAL)
		learned_user_add(m, XDPBR_LEARNED_TOTAL, d);
}

/* The slot's count starts again from 0: its port left, or a new one takes
 * it. The bridge's total keeps the entries it counts. */
static void learned_reset(const struct xdpbr_maps *m, uint32_t slot)
{
	__u64 dp = 0, user;

	bpf_map_lookup_elem(m->learned, &slot, &dp);
	user = -dp;
	bpf_map_update_elem(m->learned_user, &slot, &user, 0);
}

/* Both sides' counts of every slot, and the datapath's moves so far (the low
 * half of the FDB generation, xdpbr.h). 0 or -errno. */
static int learned_snapshot(const struct xdpbr_maps *m, uint64_t dp[XDPBR_MAX_PORTS],
			    uint64_t user[XDPBR_MAX_PORTS], uint32_t *moves)
{
	__u64 gen = 0;
	__u32 zero = 0;

	for (__u32 s = 0; s < XDPBR_MAX_PORTS; s++) {
		__u64 a = 0, b = 0;

		if (bpf_map_lookup_elem(m->learned, &s, &a) ||
		    bpf_map_lookup_elem(m->learned_user, &s, &b))
			return -errno;
		dp[s] = a;
		user[s] = b;
	}
	if (bpf_map_lookup_elem(m->fdbgen, &zero, &gen))
		return -errno;
	*moves = (uint32_t)gen;
	return 0;
}

/*
 * At the end of an ageing pass: when nothing but the pass itself changed
 * the counts while it ran (the datapath learned and moved nothing, user
 * space changed nothing but the pass's own deletions), what the pass
 * counted is the table, and the counts become that. A pass during which
 * anything else changed proves nothing and leaves them as they are, so
 * the counts are never overwritten with an old picture of a table that
 * is filling (what let a flood overshoot the limits). 1 if repaired.
 */
static int learned_repair(const struct xdpbr_maps *m, const struct fdb_sweep *sw)
{
	uint64_t dp[XDPBR_MAX_PORTS], user[XDPBR_MAX_PORTS];
	uint32_t moves;
	int fixed = 0;

	if (learned_snapshot(m, dp, user, &moves) || moves != sw->moves0)
		return 0;
	for (__u32 s = 0; s < XDPBR_MAX_PORTS; s++)
		if (dp[s] != sw->dp0[s] || user[s] != sw->user0[s] - sw->aged_slot[s])
			return 0;
	for (__u32 s = 0; s < XDPBR_MAX_PORTS; s++) {
		__u64 want = sw->counts[s] - dp[s];

		if (want != user[s] && !bpf_map_update_elem(m->learned_user, &s, &want, 0))
			fixed = 1;
	}
	return fixed;
}

void ctl_bridge_stats_add(const struct xdpbr_maps *m, uint64_t aged, uint64_t flushed)
{
	struct xdpbr_bridge_stats bs = { 0 };
	__u32 zero = 0;

	if (!aged && !flushed)
		return;
	/* Read-modify-write: the daemon and a CLI flush racing can lose an
	 * increment of these informational totals, never an entry. */
	bpf_map_lookup_elem(m->bridge, &zero, &bs);
	bs.aged += aged;
	bs.flushed += flushed;
	bpf_map_update_elem(m->bridge, &zero, &bs, 0);
}

/* Entries were deleted (aged, flushed): the datapath's per-CPU caches must
 * not use them any more (bpf/fdbcache.h), and the bridge's totals grow. */
static void fdb_removed(const struct xdpbr_maps *m, uint64_t aged, uint64_t flushed)
{
	if (!aged && !flushed)
		return;
	fdbgen_bump_user(m);
	ctl_bridge_stats_add(m, aged, flushed);
}

static void (*delete_hook)(const struct xdpbr_fdb_key *, const struct xdpbr_fdb_val *, void *);
static void *delete_hook_arg;

void ctl_set_delete_hook(void (*fn)(const struct xdpbr_fdb_key *k,
				    const struct xdpbr_fdb_val *v, void *arg), void *arg)
{
	delete_hook = fn;
	delete_hook_arg = arg;
}

/* Deletes one entry and tells the hook; the learned counts are the
 * caller's. */
static int fdb_unlink(const struct xdpbr_maps *m, const struct fdb_entry *e)
{
	if (bpf_map_delete_elem(m->fdb, &e->key))
		return -errno;
	if (delete_hook)
		delete_hook(&e->key, &e->val, delete_hook_arg);
	return 0;
}

/* Deletes one entry; keeps the learned counts in step for dynamic ones. */
static int fdb_delete(const struct xdpbr_maps *m, const struct fdb_entry *e)
{
	int err = fdb_unlink(m, e);

	if (!err && !(e->val.flags & XDPBR_FDB_STATIC))
		ctl_learned_adjust(m, e->val.slot, -1);
	return err;
}

int ctl_port_get(const struct xdpbr_maps *m, uint32_t ifindex, struct xdpbr_port *p)
{
	if (bpf_map_lookup_elem(m->ports, &ifindex, p))
		return errno == ENOENT ? -ENODEV : -errno;
	return 0;
}

/* Whether the XDP path can't deliver to a port: one on the skb (TC) path
 * that no redirect reaches (XDPBR_PORT_XDP_TARGET), or one in generic XDP
 * mode (which can't take a native port's redirect: bpf/pipeline.h). */
static bool port_needs_stack(const struct xdpbr_port *p)
{
	return (p->mode == XDPBR_MODE_TC && !(p->flags & XDPBR_PORT_XDP_TARGET)) ||
	       p->mode == XDPBR_MODE_GENERIC;
}

/* Recounts the ports that need the stack (port_needs_stack) into
 * xdpbr_skbports: while there are none, the XDP program floods every frame
 * with its devmap broadcast, and hands the stack only known unicast to an
 * skb-path port. */
static int skbports_recount(const struct xdpbr_maps *m)
{
	struct xdpbr_port p[XDPBR_MAX_PORTS];
	__u32 zero = 0, n = 0;
	int err = slots_read(m->portcfg, sizeof(*p), p);

	if (err)
		return err;
	for (__u32 slot = 1; slot < XDPBR_MAX_PORTS; slot++)
		if (p[slot].slot && port_needs_stack(&p[slot]))
			n++;
	return bpf_map_update_elem(m->skbports, &zero, &n, 0) ? -errno : 0;
}

int ctl_port_write(const struct xdpbr_maps *m, uint32_t ifindex, const struct xdpbr_port *p)
{
	/* The port first, then the way to it: a frame never finds a slot
	 * whose port is not written yet. */
	if (p->slot >= XDPBR_MAX_PORTS)
		return -EINVAL;
	if (bpf_map_update_elem(m->portcfg, &p->slot, p, 0))
		return -errno;
	if (bpf_map_update_elem(m->slotif, &p->slot, &ifindex, 0))
		return -errno;
	if (ifindex < XDPBR_IFINDEX_FAST &&
	    bpf_map_update_elem(m->ifslot, &ifindex, &p->slot, 0))
		return -errno;
	if (fault_hit("ctl_port_write"))
		abort();	/* a crash here: ctl_slots_reconcile's case */
	if (bpf_map_update_elem(m->ports, &ifindex, p, 0))
		return -errno;
	return skbports_recount(m);
}

static void slot_clear(const struct xdpbr_maps *m, uint32_t slot)
{
	struct xdpbr_port none = { 0 };
	__u32 zero = 0;

	bpf_map_update_elem(m->portcfg, &slot, &none, 0);
	bpf_map_update_elem(m->slotif, &slot, &zero, 0);
}

/* The reverse of ctl_port_write: the way to the port first. */
static void port_erase(const struct xdpbr_maps *m, uint32_t ifindex, uint32_t slot)
{
	__u32 zero = 0;

	if (ifindex < XDPBR_IFINDEX_FAST)
		bpf_map_update_elem(m->ifslot, &ifindex, &zero, 0);
	if (slot < XDPBR_MAX_PORTS)
		slot_clear(m, slot);
	bpf_map_delete_elem(m->ports, &ifindex);
}


static int fdb_write(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		     uint32_t ifindex, uint32_t flags)
{
	bool is_static = flags & XDPBR_FDB_STATIC;
	struct xdpbr_fdb_key key = { .vlan = vlan };
	struct xdpbr_fdb_val old, val = {
		.ifindex = ifindex,
		.flags = (uint16_t)flags,
		.last_seen = mono_ns(),
	};
	struct xdpbr_port p;
	bool had;
	int err;

	if (!xdpbr_mac_station(mac) || vlan > XDPBR_VLAN_MAX)
		return -EINVAL;
	err = ctl_port_get(m, ifindex, &p);
	if (err)
		return err;
	val.slot = (uint16_t)p.slot;
	memcpy(key.mac, mac, 6);
	had = !bpf_map_lookup_elem(m->fdb, &key, &old);
	if (bpf_map_update_elem(m->fdb, &key, &val, BPF_ANY))
		return -errno;
	if (had)
		fdbgen_bump_user(m);
	if (had && !(old.flags & XDPBR_FDB_STATIC))
		ctl_learned_adjust(m, old.slot, -1);
	if (!is_static)
		ctl_learned_adjust(m, val.slot, 1);
	return 0;
}

int ctl_fdb_add(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		uint32_t ifindex, bool is_static)
{
	return fdb_write(m, mac, vlan, ifindex, is_static ? XDPBR_FDB_STATIC : 0);
}

/* Writes an entry with exactly flags unless it is there already: 1 if
 * written, 0 if it was, -errno. */
static int fdb_set_flagged(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
			   uint32_t ifindex, uint32_t flags)
{
	struct xdpbr_fdb_key key = { .vlan = vlan };
	struct xdpbr_fdb_val v;

	memcpy(key.mac, mac, 6);
	if (!bpf_map_lookup_elem(m->fdb, &key, &v) && v.ifindex == ifindex && v.flags == flags)
		return 0;
	return fdb_write(m, mac, vlan, ifindex, flags) ?: 1;
}

int ctl_fdb_local_set(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		      uint32_t ifindex)
{
	return fdb_set_flagged(m, mac, vlan, ifindex, XDPBR_FDB_STATIC | XDPBR_FDB_LOCAL);
}

int ctl_fdb_remote_set(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		       uint32_t ifindex)
{
	return fdb_set_flagged(m, mac, vlan, ifindex, XDPBR_FDB_REMOTE);
}

int ctl_fdb_movable_set(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
			uint32_t ifindex)
{
	return fdb_set_flagged(m, mac, vlan, ifindex, XDPBR_FDB_REMOTE | XDPBR_FDB_USER);
}

int ctl_fdb_extern_set(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		       uint32_t ifindex)
{
	return fdb_set_flagged(m, mac, vlan, ifindex, XDPBR_FDB_REMOTE | XDPBR_FDB_EXTERN);
}

/* Deletes the entry of {vlan, mac} if it is still on ifindex and has flag:
 * 1 if deleted, 0 if not (none, or someone else's entry now), -errno. */
static int fdb_del_flagged(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
			   uint32_t ifindex, uint32_t flag)
{
	struct fdb_entry e = { .key.vlan = vlan };
	int err;

	memcpy(e.key.mac, mac, 6);
	if (bpf_map_lookup_elem(m->fdb, &e.key, &e.val))
		return errno == ENOENT ? 0 : -errno;
	if (!(e.val.flags & flag) || e.val.ifindex != ifindex)
		return 0;
	err = fdb_delete(m, &e);
	if (!err)
		fdbgen_bump_user(m);
	return err ?: 1;
}

int ctl_fdb_local_del(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		      uint32_t ifindex)
{
	int ret = fdb_del_flagged(m, mac, vlan, ifindex, XDPBR_FDB_LOCAL);

	return ret < 0 ? ret : 0;
}

int ctl_fdb_remote_del(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		       uint32_t ifindex)
{
	return fdb_del_flagged(m, mac, vlan, ifindex, XDPBR_FDB_REMOTE);
}

int ctl_fdb_del(const struct xdpbr_maps *m, const uint8_t mac[6],
		const struct fdb_filter *f)
{
	struct fdb_entry e;
	int n = 0, err = 0;

	memcpy(e.key.mac, mac, 6);
	for (int vlan = 0; vlan <= XDPBR_VLAN_MAX; vlan++) {
		if (f->vlan >= 0 && vlan != f->vlan)
			continue;
		e.key.vlan = (uint16_t)vlan;
		if (bpf_map_lookup_elem(m->fdb, &e.key, &e.val))
			continue;
		if (!fdb_filter_match(&e, f))
			continue;
		err = fdb_delete(m, &e);
		if (err && err != -ENOENT)
			break;
		n += !err;
		err = 0;
	}
	fdb_removed(m, 0, (uint64_t)n);
	if (err)
		return err;
	return n ? n : -ENOENT;
}

/* A flush: one pass over the table (no copy, no sort), deleting what
 * matches; the learned counts are adjusted once per port at the end, not
 * per entry. */
struct flush {
	const struct xdpbr_maps *m;
	const struct fdb_filter *f;
	int lo, hi;			/* VLANs */
	const uint32_t *ports;		/* and one of these ports, if nports */
	size_t nports;
	/* dynamic entries deleted, by slot ([XDPBR_MAX_PORTS]: a bad slot,
	 * which only the total counts, as ctl_learned_adjust does) */
	uint64_t dynamic[XDPBR_MAX_PORTS + 1];
	int deleted;
};

static bool flush_match(const struct flush *fl, const struct fdb_entry *e)
{
	bool port = !fl->nports;

	if (e->key.vlan < fl->lo || e->key.vlan > fl->hi || !fdb_filter_match(e, fl->f))
		return false;
	for (size_t i = 0; !port && i < fl->nports; i++)
		port = e->val.ifindex == fl->ports[i];
	return port;
}

static int flush_one(const struct fdb_entry *e, void *arg)
{
	struct flush *fl = arg;
	int err;

	if (!flush_match(fl, e))
		return 0;
	err = fdb_unlink(fl->m, e);
	if (err)
		return err == -ENOENT ? 0 : err;
	if (!(e->val.flags & XDPBR_FDB_STATIC))
		fl->dynamic[e->val.slot < XDPBR_MAX_PORTS ? e->val.slot : XDPBR_MAX_PORTS]++;
	fl->deleted++;
	return 0;
}

/* Deletes the entries that match f, lie in VLANs lo..hi and, if nports,
 * are on one of ports; the number deleted or -errno. */
static int fdb_flush_in(const struct xdpbr_maps *m, const struct fdb_filter *f,
			int lo, int hi, const uint32_t *ports, size_t nports)
{
	struct flush fl = { .m = m, .f = f, .lo = lo, .hi = hi,
			    .ports = ports, .nports = nports };
	int err = fdb_walk(m->fdb, flush_one, &fl);

	for (uint32_t s = 0; s <= XDPBR_MAX_PORTS; s++)
		if (fl.dynamic[s])
			ctl_learned_adjust(m, s, -(int64_t)fl.dynamic[s]);
	fdb_removed(m, 0, (uint64_t)fl.deleted);
	return err ? err : fl.deleted;
}

int ctl_fdb_flush(const struct xdpbr_maps *m, const struct fdb_filter *f)
{
	return fdb_flush_in(m, f, 0, UINT16_MAX, NULL, 0);	/* every VLAN */
}

int ctl_config_get(const struct xdpbr_maps *m, struct xdpbr_config *c)
{
	__u32 zero = 0;

	memset(c, 0, sizeof(*c));
	return bpf_map_lookup_elem(m->config, &zero, c) ? -errno : 0;
}

int ctl_config_set(const struct xdpbr_maps *m, const struct xdpbr_config *c)
{
	__u32 zero = 0;

	if (bpf_map_update_elem(m->config, &zero, c, 0))
		return -errno;
	/* A shorter ageing time can make cached entries stale. */
	fdbgen_bump_user(m);
	return 0;
}

/*
 * Ageing sweep in bounded steps. The cursor is the hash map's batch cursor
 * (a bucket index), so a step costs at most `budget` entries and one
 * syscall per FDB_AGE_BATCH of them, and a table of a million entries is
 * walked over several ticks without stalling the daemon's loop. Memory is
 * a fixed batch buffer, whatever the table's size.
 */
#define FDB_AGE_BATCH 4096

/* Deletes keys in batches; a key already gone is skipped and marked in
 * gone[]. The number deleted, or -errno. */
static int delete_keys(int fd, const struct xdpbr_fdb_key *k, uint32_t n, bool *gone)
{
	uint32_t done = 0, count;
	int deleted = 0;

	memset(gone, 0, n * sizeof(*gone));
	while (done < n) {
		count = n - done;
		if (!bpf_map_delete_batch(fd, k + done, &count, NULL)) {
			deleted += (int)count;
			break;
		}
		if (errno != ENOENT)
			return -errno;
		/* count entries went; the next one was gone already */
		deleted += (int)count;
		gone[done + count] = true;
		done += count + 1;
	}
	return deleted;
}

/* A pass begins: the counts it may repair at its end, as they are now. */
static int sweep_begin(const struct xdpbr_maps *m, struct fdb_sweep *sw)
{
	void (*cb)(const struct xdpbr_fdb_key *, const struct xdpbr_fdb_val *, void *) =
		sw->on_aged;
	void *arg = sw->arg;

	memset(sw, 0, sizeof(*sw));
	sw->on_aged = cb;
	sw->arg = arg;
	sw->running = true;
	return learned_snapshot(m, sw->dp0, sw->user0, &sw->moves0);
}

/* The entries of one step that the sweep deleted (not those gone before):
 * counted out, and told to on_aged. */
static void sweep_aged(const struct xdpbr_maps *m, struct fdb_sweep *sw,
		       const struct xdpbr_fdb_key *k, const struct xdpbr_fdb_val *v,
		       const bool *gone, uint32_t n)
{
	int64_t per_slot[XDPBR_MAX_PORTS] = { 0 };

	for (uint32_t i = 0; i < n; i++) {
		if (gone[i])
			continue;
		if (v[i].slot < XDPBR_MAX_PORTS && !(v[i].flags & XDPBR_FDB_STATIC))
			per_slot[v[i].slot]++;
		if (sw->on_aged)
			sw->on_aged(&k[i], &v[i], sw->arg);
	}
	for (uint32_t s = 0; s < XDPBR_MAX_PORTS; s++) {
		if (!per_slot[s])
			continue;
		ctl_learned_adjust(m, s, -per_slot[s]);
		sw->aged_slot[s] += (uint64_t)per_slot[s];
		if (s != XDPBR_LEARNED_TOTAL)
			sw->aged_slot[XDPBR_LEARNED_TOTAL] += (uint64_t)per_slot[s];
	}
}

int ctl_fdb_age(const struct xdpbr_maps *m, uint64_t now_ns, uint32_t budget,
		struct fdb_sweep *sw)
{
	static struct xdpbr_fdb_key keys[FDB_AGE_BATCH], stale[FDB_AGE_BATCH];
	static struct xdpbr_fdb_val vals[FDB_AGE_BATCH], stale_val[FDB_AGE_BATCH];
	static bool gone[FDB_AGE_BATCH];
	struct xdpbr_config cfg;
	uint64_t ageing;
	uint32_t looked = 0, nstale;
	bool done = false;
	int err;

	err = ctl_config_get(m, &cfg);
	if (err)
		return err;
	ageing = xdpbr_ageing_ns(&cfg);
	if (!sw->running) {
		err = sweep_begin(m, sw);
		if (err)
			return err;
	}

	while (!done && looked < budget) {
		__u64 in = sw->cursor, out = 0;
		__u32 count = FDB_AGE_BATCH;

		err = bpf_map_lookup_batch(m->fdb, sw->cursor ? &in : NULL, &out,
					   keys, vals, &count, NULL);
		if (err) {
			if (errno != ENOENT)
				return -errno;
			done = true;
		}
		looked += count;
		sw->seen += count;
		sw->cursor = out;
		nstale = 0;
		for (__u32 i = 0; i < count; i++) {
			if (xdpbr_fdb_stale(&vals[i], now_ns, ageing)) {
				stale_val[nstale] = vals[i];
				stale[nstale++] = keys[i];
				continue;
			}
			if (vals[i].flags & XDPBR_FDB_STATIC)
				sw->statics++;
			else if (vals[i].slot < XDPBR_MAX_PORTS)
				sw->counts[vals[i].slot]++;
		}
		/* A host heard from between the read and the delete is learned
		 * again by its next frame: one flooded frame, no lasting harm,
		 * and a lookup per entry would double the sweep's cost. */
		err = delete_keys(m->fdb, stale, nstale, gone);
		if (err < 0)
			return err;
		sw->aged += (uint64_t)err;
		fdb_removed(m, (uint64_t)err, 0);
		sweep_aged(m, sw, stale, stale_val, gone, nstale);
	}
	if (!done)
		return 0;

	sw->running = false;
	sw->cursor = 0;
	for (__u32 s = 1; s < XDPBR_MAX_PORTS; s++)
		sw->counts[XDPBR_LEARNED_TOTAL] += sw->counts[s];
	sw->repaired = learned_repair(m, sw);
	return 1;
}

/* The entries of a flush step that it deleted (not those gone before):
 * told to the hook, counted out per slot and as flushed. */
static void flush_step_done(const struct xdpbr_maps *m, const struct fdb_entry *e,
			    const bool *gone, uint32_t n)
{
	int64_t per_slot[XDPBR_MAX_PORTS] = { 0 };
	uint64_t deleted = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (gone[i])
			continue;
		deleted++;
		per_slot[e[i].val.slot]++;
		if (delete_hook)
			delete_hook(&e[i].key, &e[i].val, delete_hook_arg);
	}
	for (uint32_t s = 1; s < XDPBR_MAX_PORTS; s++)
		if (per_slot[s])
			ctl_learned_adjust(m, s, -per_slot[s]);
	fdb_removed(m, 0, deleted);
}

int ctl_fdb_flush_step(const struct xdpbr_maps *m, struct fdb_flush_walk *w,
		       uint32_t budget)
{
	static struct fdb_entry e[FDB_BATCH], del[FDB_BATCH];
	static struct xdpbr_fdb_key keys[FDB_BATCH];
	static bool gone[FDB_BATCH];
	uint32_t looked = 0;
	bool end = false;

	while (!end && looked < budget) {
		int n = fdb_read(m->fdb, &w->cursor, FDB_BATCH, e, &end), err;
		uint32_t nd = 0;

		if (n < 0)
			return n;
		if (!n && !end)
			return -ENOSPC;		/* a bucket of over FDB_BATCH entries */
		looked += (uint32_t)n;
		for (int i = 0; i < n; i++) {
			__u32 slot = e[i].val.slot;

			if (e[i].val.flags & XDPBR_FDB_STATIC || !slot_set_has(&w->slots, slot))
				continue;
			keys[nd] = e[i].key;
			del[nd++] = e[i];
		}
		err = delete_keys(m->fdb, keys, nd, gone);
		if (err < 0)
			return err;
		w->deleted += (uint64_t)err;
		flush_step_done(m, del, gone, nd);
	}
	if (end)
		w->cursor = 0;
	return end;
}

static void (*port_flush_hook)(uint32_t, void *);
static void *port_flush_hook_arg;

void ctl_set_port_flush_hook(void (*fn)(uint32_t slot, void *arg), void *arg)
{
	port_flush_hook = fn;
	port_flush_hook_arg = arg;
}

static int devmap_set(int fd, uint32_t key, uint32_t ifindex, int prog_fd, bool on)
{
	struct bpf_devmap_val v = { .ifindex = ifindex, .bpf_prog.fd = prog_fd };

	if (on)
		return bpf_map_update_elem(fd, &key, &v, 0) ? -errno : 0;
	if (bpf_map_delete_elem(fd, &key) && errno != ENOENT)
		return -errno;
	return 0;
}

/* The three sets of flood devmaps (bpf/maps.h). */
enum flood_kind {
	FLOOD_ALL,	/* every slot, the egress program on every entry */
	FLOOD_SMALL,	/* the same, slots below XDPBR_FLOOD_FAST_SLOTS only */
	FLOOD_FAST,	/* slots below XDPBR_FLOOD_FAST_SLOTS, no program */
};

/* The flood devmap of storm class c, of kind k. */
static int flood_fd(const struct xdpbr_maps *m, __u32 c, enum flood_kind k)
{
	const int bc[] = { m->flood_bc, m->flood_bc_small, m->flood_bc_fast };
	const int mc[] = { m->flood_mc, m->flood_mc_small, m->flood_mc_fast };
	const int uu[] = { m->flood_uu, m->flood_uu_small, m->flood_uu_fast };

	if (c == XDPBR_STORM_BCAST)
		return bc[k];
	if (c == XDPBR_STORM_MCAST)
		return mc[k];
	return uu[k];
}

/* The classes whose flood sets a port with these flags is in, a bit each. */
static __u32 flood_classes(__u32 flags)
{
	__u32 in = 0;

	for (__u32 c = 0; c < XDPBR_STORM__MAX; c++)
		in |= (__u32)!!xdpbr_flood_member(c, flags) << c;
	return in;
}

/* One port's part of the fast flood: the bits of its slot in the classes
 * whose fast map has it, and ready cleared when a fast map disagrees with
 * the membership rule (pins an upgrade created, before every port was
 * applied again) or its spanning tree state (word) needs the egress
 * program; small cleared when a small map disagrees with the rule.
 * ifindex: the slot's, 0 if none. */
static void flood_fast_port(const struct xdpbr_maps *m, const struct xdpbr_port *p,
			    __u32 ifindex, __u32 word, struct xdpbr_flood_fast *ff)
{
	__u32 want = flood_classes(p->flags);
	struct bpf_devmap_val v;
	bool in, want_in;

	if (!ifindex || (word & XDPBR_STP_STATE_MASK) != XDPBR_STP_FORWARDING)
		ff->ready = 0;
	if (!ifindex)
		ff->small = 0;
	for (__u32 c = 0; c < XDPBR_STORM__MAX; c++) {
		want_in = want & (1U << c);
		in = ifindex && !bpf_map_lookup_elem(flood_fd(m, c, FLOOD_FAST), &ifindex, &v);
		if (in)
			ff->mask[c] |= 1ULL << p->slot;
		if (in != want_in)
			ff->ready = 0;
		in = ifindex && !bpf_map_lookup_elem(flood_fd(m, c, FLOOD_SMALL), &ifindex, &v);
		if (in != want_in)
			ff->small = 0;
	}
}

/*
 * Recomputes xdpbr_flood_fast whole from the ports and the fast and small
 * maps, as skbports_recount does its count: the daemon and the CLI both
 * write ports, and a read-modify-write by one could undo the other's. Only
 * a recount that found everything in place says ready, or small. top is
 * one past the highest slot that holds anything; a port at or above
 * XDPBR_FLOOD_FAST_SLOTS has no bit in the masks, so neither the fast
 * flood nor the small maps are ready, and their maps are not even looked
 * at.
 */
static int flood_fast_sync(const struct xdpbr_maps *m)
{
	struct xdpbr_flood_fast ff = { .ready = 1, .top = 1, .small = 1 };
	struct xdpbr_port p[XDPBR_MAX_PORTS];
	__u32 ifindex[XDPBR_MAX_PORTS], word[XDPBR_MAX_PORTS], zero = 0;
	int err = slots_read(m->portcfg, sizeof(*p), p) ?:
		  slots_read(m->slotif, sizeof(*ifindex), ifindex) ?:
		  slots_read(m->stp_port, sizeof(*word), word);

	if (err)
		return err;
	for (__u32 slot = 1; slot < XDPBR_MAX_PORTS; slot++)
		if (p[slot].slot || ifindex[slot])
			ff.top = slot + 1;
	if (ff.top > XDPBR_FLOOD_FAST_SLOTS)
		ff.ready = ff.small = 0;
	/* none in an older build's pins (maps_open_pinned), even with no
	 * port to look for in them */
	for (__u32 c = 0; c < XDPBR_STORM__MAX; c++)
		if (flood_fd(m, c, FLOOD_SMALL) < 0)
			ff.small = 0;
	for (__u32 slot = 1; ff.top <= XDPBR_FLOOD_FAST_SLOTS && slot < ff.top; slot++)
		if (p[slot].slot == slot)
			flood_fast_port(m, &p[slot], ifindex[slot], word[slot], &ff);
	return bpf_map_update_elem(m->flood_fast, &zero, &ff, 0) ? -errno : 0;
}

/* Whether the fast flood and the small maps were both found in place by
 * their last recount. */
static bool flood_fast_ready(const struct xdpbr_maps *m)
{
	struct xdpbr_flood_fast ff;
	__u32 zero = 0;

	return !bpf_map_lookup_elem(m->flood_fast, &zero, &ff) && ff.ready && ff.small;
}

/* The port in the flood maps of each class it floods, in none of the
 * others: the full ones first, so the smaller ones never have a port the
 * full one lacks. The small and fast maps hold the slots below
 * XDPBR_FLOOD_FAST_SLOTS only, their size. */
static int flood_sets_write(const struct xdpbr_maps *m, uint32_t ifindex,
			    const struct xdpbr_port *p, int egress_fd)
{
	bool fits = p->slot < XDPBR_FLOOD_FAST_SLOTS;
	int err = 0;

	for (__u32 c = 0; c < XDPBR_STORM__MAX && !err; c++) {
		bool on = xdpbr_flood_member(c, p->flags);

		err = devmap_set(flood_fd(m, c, FLOOD_ALL), ifindex, ifindex, egress_fd, on) ?:
		      devmap_set(flood_fd(m, c, FLOOD_FAST), ifindex, ifindex, 0, on && fits);
		/* none in an older build's pins (maps_open_pinned): not ready */
		if (!err && flood_fd(m, c, FLOOD_SMALL) >= 0)
			err = devmap_set(flood_fd(m, c, FLOOD_SMALL), ifindex, ifindex,
					 egress_fd, on && fits);
	}
	return err;
}

int ctl_port_apply(const struct xdpbr_maps *m, uint32_t ifindex,
		   const struct xdpbr_port *p, int egress_fd)
{
	bool up = !(p->flags & XDPBR_PORT_DOWN);
	struct xdpbr_port old;
	bool known, was_up;
	int err;

	known = !ctl_port_get(m, ifindex, &old);
	was_up = known && !(old.flags & XDPBR_PORT_DOWN);
	err = ctl_port_write(m, ifindex, p);
	if (err)
		return err;
	err = devmap_set(m->tx, p->slot, ifindex, 0, up);
	if (!err)
		err = flood_sets_write(m, ifindex, p, egress_fd);
	/* A port whose flood sets stay the same leaves the recount as it is
	 * (what a VLAN change of every port would otherwise pay per port). */
	if (!err && (!known || old.slot != p->slot || !flood_fast_ready(m) ||
		     flood_classes(old.flags) != flood_classes(p->flags)))
		err = flood_fast_sync(m);
	if (!err && was_up && !up && port_flush_hook) {
		port_flush_hook(p->slot, port_flush_hook_arg);
	} else if (!err && was_up && !up) {
		struct fdb_filter f = { .ifindex = ifindex, .vlan = -1,
					.kind = FDB_KIND_DYNAMIC };

		err = ctl_fdb_flush(m, &f);
		err = err < 0 ? err : 0;
	}
	return err;
}

int ctl_port_remove(const struct xdpbr_maps *m, uint32_t ifindex)
{
	struct fdb_filter f = { .ifindex = ifindex, .vlan = -1, .kind = FDB_KIND_ANY };
	struct xdpbr_port p = { .slot = XDPBR_MAX_PORTS };	/* none */
	int err;

	for (__u32 c = 0; c < XDPBR_STORM__MAX; c++)
		for (enum flood_kind k = FLOOD_ALL; k <= FLOOD_FAST; k++)
			bpf_map_delete_elem(flood_fd(m, c, k), &ifindex);
	if (!ctl_port_get(m, ifindex, &p))
		bpf_map_delete_elem(m->tx, &p.slot);
	else
		p.slot = XDPBR_MAX_PORTS;
	err = ctl_fdb_flush(m, &f);
	if (err < 0)
		return err;
	port_erase(m, ifindex, p.slot);
	skbports_recount(m);
	if (p.slot < XDPBR_MAX_PORTS)
		ctl_slot_reset(m, p.slot);	/* afresh for its next port */
	return flood_fast_sync(m);
}

/* A slot written by a ctl_port_write that never reached the ports hash,
 * for interface ifindex (0: not written yet): erased, with whatever the
 * datapath may have learned on it meanwhile, unless the interface is a
 * port in another slot, whose way stays. */
static void slot_orphan_erase(const struct xdpbr_maps *m, uint32_t slot, uint32_t ifindex)
{
	struct fdb_filter f = { .ifindex = ifindex, .vlan = -1, .kind = FDB_KIND_ANY };
	struct xdpbr_port p;

	bpf_map_delete_elem(m->tx, &slot);
	if (!ifindex) {
		slot_clear(m, slot);
	} else if (!ctl_port_get(m, ifindex, &p)) {
		slot_clear(m, slot);
		ctl_port_write(m, ifindex, &p);		/* its ifslot back */
	} else {
		ctl_fdb_flush(m, &f);
		port_erase(m, ifindex, slot);
	}
	ctl_slot_reset(m, slot);
}

int ctl_slots_reconcile(const struct xdpbr_maps *m)
{
	struct xdpbr_port cfg[XDPBR_MAX_PORTS];
	__u32 ifindex[XDPBR_MAX_PORTS], owner[XDPBR_MAX_PORTS] = { 0 };
	struct port_entry *ports;
	size_t nports;
	int n = 0, err;

	/* Three batch reads, not three lookups a slot: this runs on every
	 * port add. owner: the ifindex the ports map gives each slot. */
	err = slots_read(m->portcfg, sizeof(*cfg), cfg) ?:
	      slots_read(m->slotif, sizeof(*ifindex), ifindex) ?:
	      ports_dump(m->ports, &ports, &nports);
	if (err)
		return err;
	for (size_t i = 0; i < nports; i++)
		if (ports[i].port.slot < XDPBR_MAX_PORTS)
			owner[ports[i].port.slot] = ports[i].ifindex;
	free(ports);
	for (__u32 slot = 1; slot < XDPBR_MAX_PORTS; slot++) {
		if (!cfg[slot].slot && !ifindex[slot])
			continue;
		if (ifindex[slot] && owner[slot] == ifindex[slot])
			continue;
		slot_orphan_erase(m, slot, ifindex[slot]);
		n++;
	}
	if (!n)
		return 0;
	skbports_recount(m);
	return flood_fast_sync(m) ?: n;
}

/* Zeroes a slot of a per-CPU map: every CPU's value (of value_size bytes,
 * which the kernel lays out 8-byte aligned). */
static int percpu_zero(int fd, uint32_t slot, size_t value_size)
{
	int ncpus = libbpf_num_possible_cpus(), err = 0;
	void *zero;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	zero = calloc((size_t)ncpus, (value_size + 7) & ~(size_t)7);
	if (!zero)
		return -ENOMEM;
	if (bpf_map_update_elem(fd, &slot, zero, 0))
		err = -errno;
	free(zero);
	return err;
}

static int zero_at(int fd, uint32_t slot, const void *zero)
{
	return bpf_map_update_elem(fd, &slot, zero, 0) ? -errno : 0;
}

/* The spanning tree word a new port starts with: forwarding, or with STP
 * on discarding and not an edge (RSTP's BEGIN), until the daemon decides;
 * with no daemon it stays so, and makes no loop. */
static int stp_slot_reset(const struct xdpbr_maps *m, uint32_t slot)
{
	int on = ctl_stp_enabled(m);
	__u32 word = on > 0 ? XDPBR_STP_DISCARDING : XDPBR_STP_FORWARDING;

	return bpf_map_update_elem(m->stp_port, &slot, &word, 0) ? -errno : 0;
}

/* Every part is reset even when one fails: the first error. */
int ctl_slot_reset(const struct xdpbr_maps *m, uint32_t slot)
{
	static const struct xdpbr_vlan_port no_vlans;
	static const struct xdpbr_storm no_limits;
	static const struct xdpbr_port_name no_name;
	int errs[9], err = 0;

	if (!slot || slot >= XDPBR_MAX_PORTS)
		return -EINVAL;
	learned_reset(m, slot);
	errs[0] = percpu_zero(m->stats, slot, sizeof(struct xdpbr_stats));
	errs[1] = percpu_zero(m->storm_state, slot, sizeof(struct xdpbr_storm_bucket));
	errs[2] = percpu_zero(m->xmit_seen, slot, sizeof(__u64));
	errs[3] = zero_at(m->storm, slot, &no_limits);
	errs[4] = zero_at(m->vlans, slot, &no_vlans);
	errs[5] = zero_at(m->portname, slot, &no_name);
	errs[6] = stp_slot_reset(m, slot);
	errs[7] = percpu_zero(m->linklocal_state, slot, sizeof(struct xdpbr_linklocal_bucket));
	errs[8] = percpu_zero(m->bpdusock_state, slot, sizeof(struct xdpbr_bpdusock_bucket));
	for (size_t i = 0; i < ARRAY_SIZE(errs) && !err; i++)
		err = errs[i];
	return err;
}

int ctl_port_name_get(const struct xdpbr_maps *m, uint32_t slot, char name[XDPBR_IFNAMSIZ])
{
	struct xdpbr_port_name pn = { 0 };

	if (bpf_map_lookup_elem(m->portname, &slot, &pn))
		return -errno;
	memcpy(name, pn.name, XDPBR_IFNAMSIZ);
	name[XDPBR_IFNAMSIZ - 1] = '\0';
	return 0;
}

int ctl_port_name_set(const struct xdpbr_maps *m, uint32_t slot, const char *name)
{
	struct xdpbr_port_name pn = { 0 };

	snprintf(pn.name, sizeof(pn.name), "%s", name);
	return bpf_map_update_elem(m->portname, &slot, &pn, 0) ? -errno : 0;
}

/* ---------------------------------------------------------------- VLANs */

uint16_t ctl_default_pvid(const struct xdpbr_config *c)
{
	return c->flags & XDPBR_CFG_PVID_SET ? c->default_pvid : XDPBR_DEFAULT_PVID;
}

int ctl_vlan_get(const struct xdpbr_maps *m, uint32_t slot, struct xdpbr_vlan_port *v)
{
	return bpf_map_lookup_elem(m->vlans, &slot, v) ? -errno : 0;
}

static int vlan_put(const struct xdpbr_maps *m, uint32_t slot, const struct xdpbr_vlan_port *v)
{
	return bpf_map_update_elem(m->vlans, &slot, v, 0) ? -errno : 0;
}

int ctl_vlan_port_init(const struct xdpbr_maps *m, struct xdpbr_port *p)
{
	struct xdpbr_vlan_port v = { 0 };
	struct xdpbr_config c;
	int err = ctl_config_get(m, &c);

	if (err)
		return err;
	p->pvid = ctl_default_pvid(&c);
	xdpbr_vlan_default(&v, p->pvid, 1);
	return vlan_put(m, p->slot, &v);
}

/* Sets (add) or clears VLANs from..to of a port; returns the port entry. */
static int vlan_range(const struct xdpbr_maps *m, uint32_t ifindex, uint16_t from,
		      uint16_t to, bool add, bool untagged, struct xdpbr_port *p)
{
	struct xdpbr_vlan_port v;
	int err;

	if (!from || from > to || to > XDPBR_VLAN_MAX)
		return -EINVAL;
	err = ctl_port_get(m, ifindex, p);
	if (!err)
		err = ctl_vlan_get(m, p->slot, &v);
	if (err)
		return err;
	for (uint32_t vid = from; vid <= to; vid++) {
		xdpbr_vlan_set(v.member, (uint16_t)vid, add);
		xdpbr_vlan_set(v.untagged, (uint16_t)vid, add && untagged);
	}
	return vlan_put(m, p->slot, &v);
}

static int port_set_pvid(const struct xdpbr_maps *m, uint32_t ifindex,
			 struct xdpbr_port *p, uint16_t pvid)
{
	p->pvid = pvid;
	return ctl_port_write(m, ifindex, p);
}

int ctl_vlan_add(const struct xdpbr_maps *m, uint32_t ifindex, uint16_t from,
		 uint16_t to, bool pvid, bool untagged)
{
	struct xdpbr_port p;
	int err;

	if (pvid && from != to)
		return -EINVAL;
	err = vlan_range(m, ifindex, from, to, true, untagged, &p);
	if (err)
		return err;
	if (pvid)
		return port_set_pvid(m, ifindex, &p, from);
	/* Re-adding the PVID's VLAN without 'pvid' takes the PVID away, as
	 * `bridge vlan add` does. */
	if (p.pvid >= from && p.pvid <= to)
		return port_set_pvid(m, ifindex, &p, 0);
	return 0;
}

/* Entries of ports in VLANs from..to: they can't be used any more. */
static int fdb_flush_vlans(const struct xdpbr_maps *m, const uint32_t *ports,
			   size_t nports, uint16_t from, uint16_t to)
{
	const struct fdb_filter f = { .vlan = -1, .kind = FDB_KIND_ANY };
	int n = nports ? fdb_flush_in(m, &f, from, to, ports, nports) : 0;

	return n < 0 ? n : 0;
}

int ctl_vlan_del(const struct xdpbr_maps *m, uint32_t ifindex, uint16_t from, uint16_t to)
{
	struct xdpbr_port p;
	int err = vlan_range(m, ifindex, from, to, false, false, &p);

	if (!err && p.pvid && p.pvid >= from && p.pvid <= to)
		err = port_set_pvid(m, ifindex, &p, 0);
	return err ? err : fdb_flush_vlans(m, &ifindex, 1, from, to);
}

int ctl_vlan_set_port(const struct xdpbr_maps *m, uint32_t ifindex,
		      const struct xdpbr_vlan_port *v, uint16_t pvid)
{
	struct xdpbr_port p;
	int err = ctl_port_get(m, ifindex, &p);

	if (err)
		return err;
	if (pvid > XDPBR_VLAN_MAX || (pvid && !xdpbr_vlan_test(v->member, pvid)))
		return -EINVAL;
	err = vlan_put(m, p.slot, v);
	return err ? err : port_set_pvid(m, ifindex, &p, pvid);
}

int ctl_vlan_filtering(const struct xdpbr_maps *m, bool on)
{
	struct xdpbr_config c;
	int err = ctl_config_get(m, &c);

	if (err)
		return err;
	c.flags = on ? c.flags | XDPBR_CFG_VLAN_FILTERING : c.flags & ~XDPBR_CFG_VLAN_FILTERING;
	return ctl_config_set(m, &c);
}

int ctl_set_default_pvid(const struct xdpbr_maps *m, uint16_t pvid, int egress_fd)
{
	struct port_entry *ports;
	struct xdpbr_config c;
	uint32_t *moved;
	size_t n, nmoved = 0;
	uint16_t old;
	int err;

	if (pvid > XDPBR_VLAN_MAX)
		return -EINVAL;
	err = ctl_config_get(m, &c);
	if (err)
		return err;
	old = ctl_default_pvid(&c);
	c.default_pvid = pvid;
	c.flags |= XDPBR_CFG_PVID_SET;
	err = ctl_config_set(m, &c);
	if (err || old == pvid)
		return err;
	err = ports_dump(m->ports, &ports, &n);
	if (err)
		return err;
	moved = calloc(n ? n : 1, sizeof(*moved));
	if (!moved) {
		free(ports);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && !err; i++) {
		struct xdpbr_port p = ports[i].port;
		struct xdpbr_vlan_port v;

		if (ctl_vlan_get(m, p.slot, &v))
			continue;
		/* As the kernel: leave a port the user configured (its PVID is
		 * not the old default as an untagged member), or one already
		 * in the new VLAN. */
		if (old && !xdpbr_vlan_follows_default(&v, p.pvid, old))
			continue;
		if (pvid && xdpbr_vlan_test(v.member, pvid))
			continue;
		xdpbr_vlan_default(&v, old, 0);
		xdpbr_vlan_default(&v, pvid, 1);
		p.pvid = pvid;
		err = vlan_put(m, p.slot, &v);
		if (!err)
			err = ctl_port_apply(m, ports[i].ifindex, &p, egress_fd);
		if (!err)
			moved[nmoved++] = ports[i].ifindex;
	}
	free(ports);
	/* The moved ports' entries in the old VLAN, in one pass for all. */
	if (old) {
		int ferr = fdb_flush_vlans(m, moved, nmoved, old, old);

		err = err ? err : ferr;
	}
	free(moved);
	return err;
}

/* ---------------------------------------------------------------- storms */

int ctl_storm_get(const struct xdpbr_maps *m, uint32_t ifindex, struct xdpbr_storm *st)
{
	struct xdpbr_port p;
	int err = ctl_port_get(m, ifindex, &p);

	if (err)
		return err;
	return bpf_map_lookup_elem(m->storm, &p.slot, st) ? -errno : 0;
}

int ctl_storm_set(const struct xdpbr_maps *m, uint32_t ifindex,
		  const uint32_t pps[XDPBR_STORM__MAX])
{
	/* Frames arrive on online CPUs only: share the limit among those. */
	int ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct xdpbr_storm st = { 0 };
	struct xdpbr_port p;
	int err;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	err = ctl_port_get(m, ifindex, &p);
	if (err)
		return err;
	for (int c = 0; c < XDPBR_STORM__MAX; c++) {
		st.pps[c] = pps[c];
		/* an even share per CPU, rounded up, at least one frame */
		st.pps_cpu[c] = pps[c] ? (pps[c] + (uint32_t)ncpus - 1) / (uint32_t)ncpus : 0;
	}
	return bpf_map_update_elem(m->storm, &p.slot, &st, 0) ? -errno : 0;
}

/* --------------------------------------------------------- spanning tree */

static int stp_word_get(const struct xdpbr_maps *m, uint32_t slot, __u32 *word)
{
	*word = 0;
	return bpf_map_lookup_elem(m->stp_port, &slot, word) ? -errno : 0;
}

int ctl_port_stp_set(const struct xdpbr_maps *m, uint32_t ifindex,
		     enum xdpbr_stp_state st, bool edge)
{
	__u32 word = (__u32)st | (edge ? XDPBR_STP_EDGE : 0);
	struct xdpbr_port p;
	int err;

	if ((__u32)st > XDPBR_STP_DISCARDING)
		return -EINVAL;
	err = ctl_port_get(m, ifindex, &p);
	if (err)
		return err;
	if (!p.slot || p.slot >= XDPBR_MAX_PORTS)
		return -ENODEV;
	if (bpf_map_update_elem(m->stp_port, &p.slot, &word, 0))
		return -errno;
	/* With STP off a state set by hand needs the egress program; with
	 * it on the datapath floods through it anyway, and turning it off
	 * recounts (ctl_stp_enable). */
	return ctl_stp_enabled(m) == 0 ? flood_fast_sync(m) : 0;
}

int ctl_port_stp_get(const struct xdpbr_maps *m, uint32_t ifindex,
		     enum xdpbr_stp_state *st, bool *edge)
{
	struct xdpbr_port p;
	__u32 word;
	int err = ctl_port_get(m, ifindex, &p);

	if (!err)
		err = stp_word_get(m, p.slot, &word);
	if (err)
		return err;
	*st = xdpbr_stp_effective(word, 0, 0, 0);
	*edge = word & XDPBR_STP_EDGE;
	return 0;
}

int ctl_stp_beat_get(const struct xdpbr_maps *m, struct xdpbr_stp_beat *b)
{
	__u32 zero = 0;

	memset(b, 0, sizeof(*b));
	return bpf_map_lookup_elem(m->stp_beat, &zero, b) ? -errno : 0;
}

int ctl_port_stp_effective(const struct xdpbr_maps *m, const struct xdpbr_port *p,
			   enum xdpbr_stp_state *st)
{
	struct xdpbr_stp_beat b;
	struct xdpbr_config c;
	__u32 word;
	int err = stp_word_get(m, p->slot, &word);

	if (!err)
		err = ctl_config_get(m, &c);
	if (!err)
		err = ctl_stp_beat_get(m, &b);
	if (err)
		return err;
	*st = xdpbr_stp_effective(word, p->flags, !!(c.flags & XDPBR_CFG_STP),
				  xdpbr_stp_expired(&b, mono_ns()));
	return 0;
}

int ctl_stp_enabled(const struct xdpbr_maps *m)
{
	struct xdpbr_config c;
	int err = ctl_config_get(m, &c);

	return err ? err : !!(c.flags & XDPBR_CFG_STP);
}

/* Every port's state back to forwarding, its edge bit kept. */
static int stp_all_forwarding(const struct xdpbr_maps *m)
{
	int err = 0;

	for (__u32 slot = 1; slot < XDPBR_MAX_PORTS; slot++) {
		__u32 word;

		if (stp_word_get(m, slot, &word)) {
			err = err ? err : -errno;
			continue;
		}
		word &= XDPBR_STP_EDGE;
		if (bpf_map_update_elem(m->stp_port, &slot, &word, 0))
			err = err ? err : -errno;
	}
	return err;
}

int ctl_stp_enable(const struct xdpbr_maps *m, bool on)
{
	struct xdpbr_config c;
	bool was;
	int err = ctl_config_get(m, &c);

	if (err)
		return err;
	was = c.flags & XDPBR_CFG_STP;
	if (was == on)
		return 0;
	c.flags = on ? c.flags | XDPBR_CFG_STP : c.flags & ~XDPBR_CFG_STP;
	err = ctl_config_set(m, &c);
	if (err || on)
		return err;
	err = stp_all_forwarding(m);
	return err ? err : flood_fast_sync(m);
}

int ctl_stp_heartbeat(const struct xdpbr_maps *m, uint64_t timeout_ns)
{
	struct xdpbr_stp_beat b = { .beat_ns = mono_ns(), .timeout_ns = timeout_ns };
	__u32 zero = 0;

	return bpf_map_update_elem(m->stp_beat, &zero, &b, 0) ? -errno : 0;
}

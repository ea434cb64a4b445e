// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fdbtab.c - reading the forwarding database from its map. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "fdbtab.h"
#include "util.h"		/* VALGRIND_MAKE_MEM_DEFINED */

static int fdb_cmp(const void *a, const void *b)
{
	const struct fdb_entry *x = a, *y = b;

	if (x->key.vlan != y->key.vlan)
		return x->key.vlan < y->key.vlan ? -1 : 1;
	return memcmp(x->key.mac, y->key.mac, sizeof(x->key.mac));
}

/* Batches of the hash map's own cursor, not get_next_key: a get_next_key
 * walk starts again from the top when its cursor key is deleted, and
 * costs a system call per entry. */
int fdb_read(int map_fd, uint64_t *cursor, uint32_t max, struct fdb_entry *e, bool *end)
{
	struct xdpbr_fdb_key keys[FDB_BATCH];
	struct xdpbr_fdb_val vals[FDB_BATCH];
	__u64 in = *cursor, out = 0;
	__u32 count = max < FDB_BATCH ? max : FDB_BATCH;
	int err;

	*end = false;
	if (!count)
		return -EINVAL;
	err = bpf_map_lookup_batch(map_fd, in ? &in : NULL, &out, keys, vals, &count, NULL);
	if (err && errno == ENOSPC)
		return 0;
	if (err && errno != ENOENT)
		return -errno;
	*end = err != 0;
	VALGRIND_MAKE_MEM_DEFINED(keys, count * sizeof(keys[0]));
	VALGRIND_MAKE_MEM_DEFINED(vals, count * sizeof(vals[0]));
	for (__u32 i = 0; i < count; i++) {
		e[i].key = keys[i];
		e[i].val = vals[i];
	}
	*cursor = out;
	return (int)count;
}

int fdb_walk(int map_fd, int (*fn)(const struct fdb_entry *e, void *arg), void *arg)
{
	struct fdb_entry e[FDB_BATCH];
	uint64_t cursor = 0;
	bool end = false;
	int n, ret;

	while (!end) {
		n = fdb_read(map_fd, &cursor, FDB_BATCH, e, &end);
		if (n < 0)
			return n;
		if (!n && !end)
			return -ENOSPC;		/* a bucket of over FDB_BATCH entries */
		for (int i = 0; i < n; i++) {
			ret = fn(&e[i], arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

int fdb_page_next(struct fdb_page *pg, struct fdb_entry *e)
{
	size_t max = min_size(min_size(pg->room, pg->budget), FDB_BATCH);
	bool end;
	int n, k = 0;

	if (pg->done)
		return 0;
	if (pg->grow > max)
		max = pg->grow;
	if (!max) {
		pg->done = true;
		return 0;
	}
	n = fdb_read(pg->fd, &pg->cursor, (uint32_t)max, e, &end);
	if (n < 0)
		return n;
	if (!n && !end) {
		/* The next bucket doesn't fit: the page ends before it,
		 * unless it is the page's first. */
		if (!pg->started && max == FDB_BATCH)
			return -ENOSPC;
		if (pg->started)
			pg->done = true;
		else
			pg->grow = (uint32_t)min_size(max * 2, FDB_BATCH);
		return 0;
	}
	pg->started = true;
	pg->grow = 0;
	pg->budget -= min_size((size_t)n, pg->budget);
	for (int i = 0; i < n; i++)
		if (!pg->match || pg->match(&e[i], pg->arg))
			e[k++] = e[i];
	pg->room -= min_size((size_t)k, pg->room);
	pg->end = end;
	pg->done = end || !pg->room || !pg->budget;
	return k;
}

struct dump {
	struct fdb_entry *v;
	size_t len, cap;
};

static int dump_one(const struct fdb_entry *e, void *arg)
{
	struct dump *d = arg;

	if (d->len == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : FDB_BATCH;
		struct fdb_entry *tmp = realloc(d->v, cap * sizeof(*tmp));

		if (!tmp)
			return -ENOMEM;
		d->v = tmp;
		d->cap = cap;
	}
	d->v[d->len++] = *e;
	return 0;
}

int fdb_dump(int map_fd, struct fdb_entry **out, size_t *n)
{
	struct dump d = { 0 };
	int err = fdb_walk(map_fd, dump_one, &d);

	*out = NULL;
	*n = 0;
	if (err) {
		free(d.v);
		return err;
	}
	if (d.len)
		qsort(d.v, d.len, sizeof(*d.v), fdb_cmp);
	*out = d.v;
	*n = d.len;
	return 0;
}

uint64_t fdb_updated_s(const struct xdpbr_fdb_val *v, uint64_t now)
{
	if (now <= v->last_seen)
		return 0;
	return (now - v->last_seen) / XDPBR_NSEC_PER_SEC;
}

bool fdb_filter_match(const struct fdb_entry *e, const void *filter)
{
	const struct fdb_filter *f = filter;
	bool is_static = e->val.flags & (XDPBR_FDB_STATIC | XDPBR_FDB_USER);

	return (!f->ifindex || e->val.ifindex == f->ifindex) &&
	       (f->vlan < 0 || e->key.vlan == f->vlan) &&
	       (f->kind != FDB_KIND_STATIC || is_static) &&
	       (f->kind != FDB_KIND_DYNAMIC || !is_static);
}

bool fdb_is_sticky(const struct xdpbr_fdb_val *v)
{
	return (v->flags & (XDPBR_FDB_STATIC | XDPBR_FDB_LOCAL)) == XDPBR_FDB_STATIC;
}

const char *fdb_state_name(const struct xdpbr_fdb_val *v)
{
	if (v->flags & XDPBR_FDB_LOCAL)
		return "permanent";
	if (v->flags & XDPBR_FDB_REMOTE)
		return v->flags & XDPBR_FDB_USER ? "static" :
		       v->flags & XDPBR_FDB_EXTERN ? "extern_learn" : "remote";
	return v->flags & XDPBR_FDB_STATIC ? "static" : "";
}

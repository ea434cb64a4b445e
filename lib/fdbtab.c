// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fdbtab.c - reading the forwarding database from its map. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "fdbtab.h"

static int fdb_cmp(const void *a, const void *b)
{
	const struct fdb_entry *x = a, *y = b;

	if (x->key.vlan != y->key.vlan)
		return x->key.vlan < y->key.vlan ? -1 : 1;
	return memcmp(x->key.mac, y->key.mac, sizeof(x->key.mac));
}

/*
 * Batched reads: consistent under concurrent learning and deletion (a
 * get_next_key walk restarts from the top when its cursor key is deleted),
 * and one syscall per FDB_BATCH entries for large tables.
 */
#define FDB_BATCH 1024

int fdb_dump(int map_fd, struct fdb_entry **out, size_t *n)
{
	struct xdpbr_fdb_key keys[FDB_BATCH];
	struct xdpbr_fdb_val vals[FDB_BATCH];
	struct fdb_entry *v = NULL, *tmp;
	size_t len = 0, cap = 0;
	__u64 batch = 0;
	bool first = true, done = false;
	__u32 count, i;
	int err;

	*out = NULL;
	*n = 0;
	while (!done) {
		count = FDB_BATCH;
		err = bpf_map_lookup_batch(map_fd, first ? NULL : &batch, &batch,
					   keys, vals, &count, NULL);
		first = false;
		if (err) {
			if (errno != ENOENT) {
				err = -errno;
				free(v);
				return err;
			}
			done = true;
		}
		if (len + count > cap) {
			cap = (len + count) * 2;
			tmp = realloc(v, cap * sizeof(*v));
			if (!tmp) {
				free(v);
				return -ENOMEM;
			}
			v = tmp;
		}
		for (i = 0; i < count; i++) {
			v[len].key = keys[i];
			v[len].val = vals[i];
			len++;
		}
	}
	if (len)
		qsort(v, len, sizeof(*v), fdb_cmp);
	*out = v;
	*n = len;
	return 0;
}

uint64_t fdb_updated_s(const struct xdpbr_fdb_val *v, uint64_t now)
{
	if (now <= v->last_seen)
		return 0;
	return (now - v->last_seen) / XDPBR_NSEC_PER_SEC;
}

const char *fdb_state_name(const struct xdpbr_fdb_val *v)
{
	if (v->flags & XDPBR_FDB_LOCAL)
		return "permanent";
	return v->flags & XDPBR_FDB_STATIC ? "static" : "";
}

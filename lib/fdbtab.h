/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_FDBTAB_H
#define XDPBR_FDBTAB_H

#include <stddef.h>
#include <stdint.h>
#include "xdpbr.h"

struct fdb_entry {
	struct xdpbr_fdb_key key;
	struct xdpbr_fdb_val val;
};

/* Reads the whole FDB into a malloc'd array sorted by (vlan, mac).
 * 0 or -errno; *out is NULL when empty. */
int fdb_dump(int map_fd, struct fdb_entry **out, size_t *n);

/* Seconds since the entry was last seen, given now (CLOCK_MONOTONIC ns). */
uint64_t fdb_updated_s(const struct xdpbr_fdb_val *v, uint64_t now);

/* An entry's state as `bridge fdb show` words it: "permanent" for the
 * bridge's own address (XDPBR_FDB_LOCAL), "static", or "" (learned). */
const char *fdb_state_name(const struct xdpbr_fdb_val *v);

#endif

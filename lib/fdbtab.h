/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_FDBTAB_H
#define XDPBR_FDBTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "xdpbr.h"

struct fdb_entry {
	struct xdpbr_fdb_key key;
	struct xdpbr_fdb_val val;
};

/* Which entries an operation or a listing selects (fdb show, flush, del,
 * GET /fdb, the daemon's flushes of a port). */
enum fdb_kind { FDB_KIND_ANY, FDB_KIND_DYNAMIC, FDB_KIND_STATIC };

struct fdb_filter {
	uint32_t ifindex;		/* 0: any port */
	int vlan;			/* -1: any VLAN */
	enum fdb_kind kind;		/* static: XDPBR_FDB_STATIC set; dynamic: not */
};

/* Whether entry e is one filter (a struct fdb_filter) selects; the
 * signature of fdb_page.match. */
bool fdb_filter_match(const struct fdb_entry *e, const void *filter);

/* Entries read per system call. */
#define FDB_BATCH 1024

/*
 * Walking the FDB in the table's own order: its hash buckets, one after
 * the other (not sorted). A cursor is the bucket to go on from, 0 for the
 * first. The kernel never moves an entry to another bucket, so a walk that
 * follows the cursor meets each entry that is there throughout exactly
 * once, whatever is learned, moved or deleted meanwhile, and needs no copy
 * of the table.
 */

/* Reads the entries of the buckets from *cursor on into e, at most max
 * (1..FDB_BATCH) and never part of a bucket, and moves *cursor past them.
 * Returns how many; 0 (and *cursor unchanged) when the next bucket alone
 * holds more than max; -errno. *end: the last bucket has been read. */
int fdb_read(int map_fd, uint64_t *cursor, uint32_t max, struct fdb_entry *e, bool *end);

/* One pass over the table: fn(entry, arg) for each entry, which may delete
 * it. Stops at fn's first non-zero return and returns it; else 0 or -errno. */
int fdb_walk(int map_fd, int (*fn)(const struct fdb_entry *e, void *arg), void *arg);

/*
 * A page of the entries that match, from a cursor (the HTTP GET /fdb):
 * at most room of them, reading at most budget entries of the table (a
 * filter that matches few can't make a page read the whole table). Set
 * the fields above the line, then call fdb_page_next until done is set.
 * A page ends before a bucket that doesn't fit in what room is left;
 * only a first bucket bigger than room itself is taken whole.
 */
struct fdb_page {
	int fd;
	uint64_t cursor;	/* where the page starts; once done: the next page's */
	size_t room;		/* entries the page may still take */
	size_t budget;		/* entries of the table it may still read */
	bool (*match)(const struct fdb_entry *e, const void *arg);	/* NULL: all */
	const void *arg;
	/* ---- */
	bool done;		/* the page is complete */
	bool end;		/* ... and it reached the table's end: no next page */
	bool started;		/* the page has read something */
	uint32_t grow;		/* read size for a first bucket bigger than room */
};

/* One read of the page into e (room for FDB_BATCH): how many of the
 * entries read match (0 too while the page goes on), or -errno. */
int fdb_page_next(struct fdb_page *pg, struct fdb_entry *e);

/* Reads the whole FDB into a malloc'd array sorted by (vlan, mac).
 * 0 or -errno; *out is NULL when empty. */
int fdb_dump(int map_fd, struct fdb_entry **out, size_t *n);

/* Seconds since the entry was last seen, given now (CLOCK_MONOTONIC ns). */
uint64_t fdb_updated_s(const struct xdpbr_fdb_val *v, uint64_t now);

/* An entry's state as `bridge fdb show` words it: "permanent" for the
 * bridge's own address (XDPBR_FDB_LOCAL), "static" (also the kernel's
 * static written on the bridge device, XDPBR_FDB_USER), "extern_learn" (a
 * user's extern_learn on the device, XDPBR_FDB_EXTERN), "remote" (a
 * remote VTEP's), or "" (learned). */
const char *fdb_state_name(const struct xdpbr_fdb_val *v);
/* Whether it is static and never moves, a user's (not the bridge's own
 * address): the kernel's "sticky", which the JSON's flags and the text
 * say after "static", as `bridge fdb show` does; a static entry written
 * with `bridge fdb add ... static` (XDPBR_FDB_USER) moves, and is not. */
bool fdb_is_sticky(const struct xdpbr_fdb_val *v);

#endif

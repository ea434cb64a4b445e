/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_HTTP_H
#define XDPBR_HTTP_H

/*
 * http - the read-only statistics endpoint (libmicrohttpd, in its own
 * thread, so a slow client never delays forwarding or ageing):
 *
 *   GET /stats     the JSON document (README "Stats endpoint")
 *   GET /metrics   Prometheus text format
 *   GET /fdb       a page of the FDB, keys as `xdpbr -j fdb show`:
 *                  {"entries": [...], "next": CURSOR or null};
 *                  ?port=IFNAME&vlan=VID&limit=N&after=CURSOR
 *
 * Unknown paths 404, other methods 405, bad parameters 400. Connections are
 * bounded in number, per client and in time; a page of /fdb in size and in
 * the entries of the table it reads, and it is streamed as it is read, a
 * bounded step at a time: one batch of entries per connection whatever the
 * page or the table, and /stats and /metrics wait for one step at most.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "pins.h"

#define HTTP_MAX_CONNECTIONS	64
#define HTTP_MAX_PER_IP		16
#define HTTP_TIMEOUT_S		5
#define HTTP_FDB_PAGE		1000	/* entries of an /fdb page by default */
#define HTTP_FDB_PAGE_MAX	10000	/* ... at most (limit=) */
#define HTTP_FDB_READ_MAX	65536	/* entries of the table a page reads at most */

struct MHD_Daemon;

struct http {
	struct MHD_Daemon *mhd;
	const struct xdpbr_maps *maps;
	char bridge[16];
	char listen[64];
	uint64_t start_ns;
	/* FDB composition from the daemon's last complete ageing pass. */
	pthread_mutex_t lock;
	bool fdb_known;
	uint64_t fdb_entries, fdb_dynamic, fdb_static, fdb_at_ns;
};

/* Starts serving on listen ("ADDR:PORT", "[ADDR]:PORT"). 0 or -errno. */
int http_start(struct http *h, const struct xdpbr_maps *m, const char *bridge,
	       const char *listen, uint64_t start_ns);
void http_stop(struct http *h);
void http_set_fdb(struct http *h, uint64_t entries, uint64_t dynamic, uint64_t statics);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_HTTP_H
#define XDPBR_HTTP_H

/*
 * http - the read-only statistics endpoint (libmicrohttpd, in its own
 * thread, so a slow client never delays forwarding or ageing):
 *
 *   GET /stats     the JSON document (doc/http-api.md)
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
 *
 * It is the code that parses network input, so it runs with nothing it
 * does not need: its thread is ours (libmicrohttpd runs without a thread
 * of its own, driven by MHD_run), and gives up every capability
 * (privs_drop_thread) before the first connection is accepted; the maps
 * it reads are descriptors of its own opened read-only (BPF_F_RDONLY), so
 * no request can make it write one.
 */
#include <pthread.h>
#include <semaphore.h>
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
	bool open;			/* http_start was called: http_stop undoes it */
	struct MHD_Daemon *mhd;
	const struct xdpbr_maps *maps;	/* &ro: what requests read through */
	struct xdpbr_maps ro;		/* the bridge's maps, read-only fds */
	int stp_fd;			/* xdpbr_stp_status, read-only; -1: none */
	pthread_t thread;
	int stop_fd;			/* eventfd: http_stop ends the thread */
	sem_t ready;			/* posted once the thread dropped them */
	int thread_err;			/* privs_drop_thread's result */
	bool running;			/* the thread runs */
	char bridge[16];
	char listen[64];
	uint64_t start_ns;
	/* FDB composition from the daemon's last complete ageing pass. */
	pthread_mutex_t lock;
	bool fdb_known;
	uint64_t fdb_entries, fdb_dynamic, fdb_static, fdb_at_ns;
};

/* Starts serving bridge's maps, opened read-only from its pins, on
 * listen ("ADDR:PORT", "[ADDR]:PORT"): binds in the calling thread (a port
 * below 1024 needs its CAP_NET_BIND_SERVICE), serves in a new one without
 * capabilities. 0 or -errno (-EPERM: the thread could not drop them). */
int http_start(struct http *h, const char *bridge, const char *listen, uint64_t start_ns);
void http_stop(struct http *h);
void http_set_fdb(struct http *h, uint64_t entries, uint64_t dynamic, uint64_t statics);

#endif

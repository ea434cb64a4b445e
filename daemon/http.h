/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_HTTP_H
#define XDPBR_HTTP_H

/*
 * http - the read-only statistics endpoint (libmicrohttpd, in a process of
 * its own, so a slow client never delays forwarding or ageing):
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
 * It is the code that parses network input, so it runs in a process of its
 * own (httpproc.c), forked and stripped before it reads a byte: another
 * uid, no capability in any set, no_new_privs, a seccomp filter
 * (sandbox.c), and no descriptor but the listening socket, read-only map
 * descriptors (BPF_F_RDONLY) and the read end of a pipe the daemon writes
 * the FDB's composition into (struct http_fdb). Nothing it can reach
 * writes a map or leads back into the daemon.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pins.h"

#define HTTP_MAX_CONNECTIONS	64
#define HTTP_MAX_PER_IP		16
#define HTTP_TIMEOUT_S		5
#define HTTP_FDB_PAGE		1000	/* entries of an /fdb page by default */
#define HTTP_FDB_PAGE_MAX	10000	/* ... at most (limit=) */
#define HTTP_FDB_READ_MAX	65536	/* entries of the table a page reads at most */
#define HTTP_USER		"nobody"	/* the HTTP process's uid and gid */
#define HTTP_RESTART_MIN_S	1	/* a dead HTTP process is restarted after this, */
#define HTTP_RESTART_MAX_S	60	/* doubled up to this while it keeps dying */
#define HTTP_STABLE_S		10	/* ... within this of its start */

struct MHD_Daemon;

/* One record on the status pipe: the FDB's composition from the daemon's
 * last complete ageing pass (at_ns: CLOCK_MONOTONIC, the same in both
 * processes). */
struct http_fdb {
	uint64_t entries, dynamic, statics, at_ns;
};

/* The server, in whichever process runs it (the HTTP process; the fuzzer's
 * thread). */
struct http_server {
	struct MHD_Daemon *mhd;
	struct xdpbr_maps maps;		/* the bridge's maps, read-only fds */
	int stp_fd;			/* xdpbr_stp_status, read-only; -1: none */
	int status_fd;			/* read end: http_fdb records; EOF: stop */
	char bridge[16];
	uint64_t start_ns;
	bool fdb_known;
	struct http_fdb fdb;
};

/* A bound, listening TCP socket on listen ("ADDR:PORT", "[ADDR]:PORT"),
 * close-on-exec and non-blocking, or -errno (-EINVAL: no address). A port
 * below 1024 needs CAP_NET_BIND_SERVICE. */
int http_listen(const char *listen);

/* Opens bridge's maps read-only from their pins and readies libmicrohttpd
 * on listen_fd; reads nothing from the network yet. 0 or -errno. */
int http_server_open(struct http_server *s, const char *bridge, int listen_fd,
		     int status_fd, uint64_t start_ns);
/* Serves until status_fd reaches its end (the writer closed it): 0, or
 * -errno. */
int http_server_run(struct http_server *s);
/* Closes what http_server_open opened (not listen_fd nor status_fd). */
void http_server_close(struct http_server *s);

/* The daemon's side (httpproc.c): the HTTP process, restarted when it dies
 * alone. */
struct http {
	bool on;			/* http_start succeeded: http_stop undoes it */
	pid_t pid;			/* the HTTP process; 0: none right now */
	int listen_fd;			/* held across restarts: the port stays ours */
	int status_fd;			/* write end of the status pipe */
	uid_t uid;
	gid_t gid;
	char bridge[16];
	uint64_t start_ns;		/* the daemon's, for uptime */
	uint64_t born_ns;		/* when the current process was started */
	uint64_t restart_ns;		/* when a dead one is started again */
	unsigned int delay_s;		/* the wait before the next restart */
	bool fdb_known;
	struct http_fdb fdb;		/* the last record, for a restarted process */
};

/* Binds listen here (a port below 1024 needs CAP_NET_BIND_SERVICE) and
 * starts the HTTP process. 0 or -errno. */
int http_start(struct http *h, const char *bridge, const char *listen, uint64_t start_ns);
/* Ends the HTTP process and closes the socket. */
void http_stop(struct http *h);
/* Called every loop turn: reaps a dead HTTP process, says why it died,
 * restarts it when its delay is over. */
void http_watch(struct http *h);
void http_set_fdb(struct http *h, uint64_t entries, uint64_t dynamic, uint64_t statics);

#endif

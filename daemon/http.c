// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* http.c - the statistics endpoint (see http.h). */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

#include "config.h"
#include "ctl.h"
#include "fdbtab.h"
#include "http.h"
#include "json.h"
#include "log.h"
#include "pins.h"
#include "report.h"
#include "stpmap.h"
#include "util.h"

#define CT_JSON "application/json"
#define CT_PROM "text/plain; version=0.0.4; charset=utf-8"
#define HTTP_FDB_BLOCK (16 * 1024)	/* bytes of a streamed body per write */
#define HTTP_FDB_READS 4		/* FDB reads per write at most */

/* Sends r with the headers of every answer. */
static enum MHD_Result queue(struct MHD_Connection *c, unsigned int status,
			     const char *type, struct MHD_Response *r)
{
	enum MHD_Result ret;

	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *type, char *body, size_t len)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	return queue(c, status, type, r);
}

static enum MHD_Result reply_json(struct MHD_Connection *c, unsigned int status,
				  struct json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(s);
	char *body = malloc(len + 2);

	if (!body) {
		json_object_put(o);
		return MHD_NO;
	}
	memcpy(body, s, len);
	body[len++] = '\n';
	body[len] = '\0';
	json_object_put(o);
	return reply(c, status, CT_JSON, body, len);
}

static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned int status,
				   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned int status,
				   const char *fmt, ...)
{
	struct json_object *o = json_object_new_object();
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_object_object_add(o, "error", json_object_new_string(msg));
	json_object_object_add(o, "status", json_object_new_int((int)status));
	return reply_json(c, status, o);
}

/* Query parameters: which are allowed per path, and their values. */
struct query {
	const char *const *allowed;
	const char *port;
	const char *vlan;
	const char *limit;
	const char *after;
	const char *bad;		/* first parameter not allowed */
};

static enum MHD_Result query_cb(void *cls, enum MHD_ValueKind kind, const char *key,
				const char *value)
{
	struct query *q = cls;
	bool ok = false;

	for (const char *const *a = q->allowed; a && *a; a++)
		ok |= !strcmp(key, *a);
	if (!ok) {
		if (!q->bad)
			q->bad = key;
		return MHD_YES;
	}
	if (!strcmp(key, "port"))
		q->port = value ? value : "";
	else if (!strcmp(key, "vlan"))
		q->vlan = value ? value : "";
	else if (!strcmp(key, "limit"))
		q->limit = value ? value : "";
	else if (!strcmp(key, "after"))
		q->after = value ? value : "";
	return MHD_YES;
}

static int collect(struct http_server *h, struct report *r)
{
	int err = report_collect(&h->maps, h->bridge, r);

	if (err)
		return err;
	r->uptime_s = (double)(mono_ns() - h->start_ns) / 1e9;
	r->stp_status = h->stp_fd >= 0 ? malloc(sizeof(*r->stp_status)) : NULL;
	if (r->stp_status && stpmap_read(h->stp_fd, r->stp_status)) {
		free(r->stp_status);
		r->stp_status = NULL;
	}
	if (h->fdb_known) {
		r->fdb_known = true;
		r->fdb_entries = h->fdb.entries;
		r->fdb_dynamic = h->fdb.dynamic;
		r->fdb_static = h->fdb.statics;
		r->fdb_age_s = (double)(mono_ns() - h->fdb.at_ns) / 1e9;
	}
	return 0;
}

static enum MHD_Result get_stats(struct http_server *h, struct MHD_Connection *c)
{
	struct report r;
	int err = collect(h, &r);

	if (err)
		return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "can't read the bridge: %s", strerror(-err));
	struct json_object *doc = report_json_doc(&r);

	report_free(&r);
	return reply_json(c, MHD_HTTP_OK, doc);
}

static enum MHD_Result get_metrics(struct http_server *h, struct MHD_Connection *c)
{
	struct report r;
	char *body = NULL;
	size_t len = 0;
	FILE *out;
	int err = collect(h, &r);

	if (err)
		return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "can't read the bridge: %s", strerror(-err));
	out = open_memstream(&body, &len);
	if (!out) {
		report_free(&r);
		return MHD_NO;
	}
	err = report_metrics(&r, out);
	report_free(&r);
	if (fclose(out) || err) {
		free(body);
		return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "can't render metrics");
	}
	return reply(c, MHD_HTTP_OK, CT_PROM, body, len);
}

/*
 * GET /fdb: one page, streamed as it is read (fdb_page, lib/fdbtab.h): the
 * body is written a piece at a time into libmicrohttpd's buffer as the
 * client takes it, so a connection holds one batch of entries and one
 * entry's text whatever the page's size, the table is never copied, and
 * one write (HTTP_FDB_BLOCK bytes, HTTP_FDB_READS reads of the table at
 * most) is all the server's thread does for it before it serves the other
 * connections again: a big page never holds up /stats or /metrics.
 */
struct fdb_stream {
	struct fdb_page pg;
	struct fdb_filter filter;	/* the entries asked for (port, vlan) */
	struct fdb_entry e[FDB_BATCH];
	int n, i;			/* entries in e; the next to send */
	int reads;			/* reads of the table in this write */
	bool any;			/* an entry was sent (a comma before the next) */
	enum { FS_OPEN, FS_ENTRIES, FS_CLOSE, FS_DONE } step;
	bool failed;
	char piece[512];		/* the text being sent, and how far */
	size_t len, off;
	char bridge[16];
	uint64_t now_ns;
	struct ifname_cache names;
};

static int piece(struct fdb_stream *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int piece(struct fdb_stream *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s->piece, sizeof(s->piece), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(s->piece))
		return -EOVERFLOW;
	s->len = (size_t)n;
	s->off = 0;
	return 0;
}

static int piece_entry(struct fdb_stream *s, const struct fdb_entry *e)
{
	struct json_object *o = json_fdb_entry(e, s->bridge, s->now_ns, &s->names);
	int err = piece(s, "%s%s", s->any ? "," : "",
			json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE));

	json_object_put(o);
	s->any = true;
	return err;
}

/* The next piece of the body: 0; 1 when the body is complete; 2 when this
 * write has read the table enough times; -errno. */
static int fdb_stream_next(struct fdb_stream *s)
{
	int n;

	switch (s->step) {
	case FS_OPEN:
		s->step = FS_ENTRIES;
		return piece(s, "{\"entries\":[");
	case FS_ENTRIES:
		if (s->i < s->n)
			return piece_entry(s, &s->e[s->i++]);
		if (s->pg.done) {
			s->step = FS_CLOSE;
			return fdb_stream_next(s);
		}
		if (s->reads == HTTP_FDB_READS)
			return 2;
		n = fdb_page_next(&s->pg, s->e);
		if (n < 0)
			return n;
		s->reads++;
		s->n = n;
		s->i = 0;
		return fdb_stream_next(s);
	case FS_CLOSE:
		s->step = FS_DONE;
		if (s->pg.end)
			return piece(s, "],\"next\":null}\n");
		return piece(s, "],\"next\":\"%llu\"}\n", (unsigned long long)s->pg.cursor);
	case FS_DONE:
		break;
	}
	return 1;
}

/* libmicrohttpd's reader: fills buf with the next max bytes of the body. A
 * failure after the status was sent can only cut the body short: the
 * client sees a truncated chunked body (or connection), never a page that
 * looks complete. */
static ssize_t fdb_stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct fdb_stream *s = cls;
	size_t out = 0, k;
	int ret = 0;

	s->reads = 0;
	while (out < max && !s->failed && ret != 1) {
		if (s->off == s->len) {
			ret = fdb_stream_next(s);
			if (ret == 2 && out)
				break;
			if (ret == 2)	/* reads that matched nothing: send a */
				ret = piece(s, " ");	/* space, JSON's filler */
			s->failed = ret < 0;
			continue;
		}
		k = s->len - s->off < max - out ? s->len - s->off : max - out;
		memcpy(buf + out, s->piece + s->off, k);
		s->off += k;
		out += k;
	}
	if (out)
		return (ssize_t)out;
	return s->failed ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
}

static enum MHD_Result get_fdb(struct http_server *h, struct MHD_Connection *c,
			       const struct query *q, bool head)
{
	struct fdb_stream *s;
	struct MHD_Response *r;
	uint64_t vid = 0, limit = HTTP_FDB_PAGE, after = 0;
	uint32_t dev = 0;

	if (q->port) {
		struct xdpbr_port p;

		dev = if_nametoindex(q->port);
		if (!dev || ctl_port_get(&h->maps, dev, &p))
			return reply_error(c, MHD_HTTP_BAD_REQUEST,
					   "port '%.32s' is not a port of bridge %s", q->port,
					   h->bridge);
	}
	if (q->vlan && parse_u64(q->vlan, XDPBR_VLAN_MAX, &vid))
		return reply_error(c, MHD_HTTP_BAD_REQUEST,
				   "vlan '%.16s' is not a VLAN id (0-%d)", q->vlan, XDPBR_VLAN_MAX);
	if (q->limit && (parse_u64(q->limit, HTTP_FDB_PAGE_MAX, &limit) || !limit))
		return reply_error(c, MHD_HTTP_BAD_REQUEST,
				   "limit '%.16s' is not a page size (1-%d)", q->limit,
				   HTTP_FDB_PAGE_MAX);
	if (q->after && parse_u64(q->after, UINT32_MAX, &after))
		return reply_error(c, MHD_HTTP_BAD_REQUEST,
				   "after '%.24s' is not a cursor (the \"next\" of a page)",
				   q->after);
	s = calloc(1, sizeof(*s));
	if (!s)
		return MHD_NO;
	s->pg = (struct fdb_page){ .fd = h->maps.fdb, .cursor = after, .room = limit,
				   .budget = HTTP_FDB_READ_MAX, .match = fdb_filter_match,
				   .arg = &s->filter };
	s->filter = (struct fdb_filter){ .ifindex = dev, .vlan = q->vlan ? (int)vid : -1,
					 .kind = FDB_KIND_ANY };
	snprintf(s->bridge, sizeof(s->bridge), "%s", h->bridge);
	s->now_ns = mono_ns();
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, HTTP_FDB_BLOCK,
					      fdb_stream_read, s, free);
	if (!r) {
		free(s);
		return MHD_NO;
	}
	/* libmicrohttpd 0.9.75 sends the last chunk ("0\r\n\r\n") after the
	 * headers of a chunked answer to HEAD, which is no body: answer HEAD
	 * without chunks, closing the connection after the headers. */
	if (head)
		MHD_set_response_options(r, MHD_RF_HTTP_VERSION_1_0_ONLY, MHD_RO_END);
	return queue(c, MHD_HTTP_OK, CT_JSON, r);
}

static const char *const no_params[] = { NULL };
static const char *const fdb_params[] = { "port", "vlan", "limit", "after", NULL };

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version,
			      const char *upload_data, size_t *upload_size, void **state)
{
	/* Per-connection state, by address: headers seen; a body seen. */
	static int headers_seen, body_seen;
	struct http_server *h = cls;
	struct query q = { 0 };

	if (!*state) {		/* headers only so far: answer on the next call */
		*state = &headers_seen;
		if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
			return reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED,
					   "method %.16s not allowed: the endpoint is read-only "
					   "(GET, HEAD)", method);
		return MHD_YES;
	}
	if (*upload_size) {	/* a GET with a body: swallow it, answer at the end */
		*upload_size = 0;
		*state = &body_seen;
		return MHD_YES;
	}
	if (*state == &body_seen)
		return reply_error(c, MHD_HTTP_BAD_REQUEST, "a GET request takes no body");

	if (!strcmp(url, "/stats"))
		q.allowed = no_params;
	else if (!strcmp(url, "/metrics"))
		q.allowed = no_params;
	else if (!strcmp(url, "/fdb"))
		q.allowed = fdb_params;
	else
		return reply_error(c, MHD_HTTP_NOT_FOUND,
				   "no such path; try /stats, /metrics or /fdb");
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, query_cb, &q);
	if (q.bad)
		return reply_error(c, MHD_HTTP_BAD_REQUEST, "unknown parameter '%.32s' for %s",
				   q.bad, url);
	if (!strcmp(url, "/stats"))
		return get_stats(h, c);
	if (!strcmp(url, "/metrics"))
		return get_metrics(h, c);
	return get_fdb(h, c, &q, !strcmp(method, MHD_HTTP_METHOD_HEAD));
}

/* The status records written since the last turn: the last one counts.
 * 0; 1 at the end of the pipe; -errno. */
static int status_read(struct http_server *h)
{
	struct http_fdb f;
	ssize_t n;

	for (;;) {
		n = read(h->status_fd, &f, sizeof(f));
		if (n == sizeof(f)) {
			h->fdb = f;
			h->fdb_known = true;
			continue;
		}
		if (n == 0)
			return 1;
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		return n < 0 ? -errno : -EPROTO;	/* records are written whole */
	}
}

int http_server_run(struct http_server *h)
{
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	MHD_UNSIGNED_LONG_LONG ms;
	struct pollfd pfd[2];
	int err;

	if (!info)
		return -EINVAL;
	pfd[0] = (struct pollfd){ .fd = info->epoll_fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = h->status_fd, .events = POLLIN };
	for (;;) {
		int timeout = -1;

		if (MHD_get_timeout(h->mhd, &ms) == MHD_YES)
			timeout = ms < INT_MAX ? (int)ms : INT_MAX;
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			return -errno;
		if (pfd[1].revents) {
			err = status_read(h);
			if (err)
				return err < 0 ? err : 0;
		}
		MHD_run(h->mhd);
	}
}

int http_listen(const char *addr)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	int fd, one = 1;

	if (config_listen_parse(addr, &sa, &salen) || sa.ss_family == AF_UNSPEC)
		return -EINVAL;		/* no address, or none: nothing to serve */
	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (sa.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (struct sockaddr *)&sa, salen) || listen(fd, SOMAXCONN)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* libmicrohttpd without a thread of its own, on the socket given: requests
 * parsed only in http_server_run. */
int http_server_open(struct http_server *h, const char *bridge, int listen_fd,
		     int status_fd, uint64_t start_ns)
{
	struct sockaddr_storage sa;
	socklen_t salen = sizeof(sa);
	unsigned int flags = MHD_USE_EPOLL;
	int err;

	memset(h, 0, sizeof(*h));
	memset(&h->maps, 0xff, sizeof(h->maps));	/* every fd -1 */
	h->status_fd = status_fd;
	h->start_ns = start_ns;
	snprintf(h->bridge, sizeof(h->bridge), "%s", bridge);
	if (getsockname(listen_fd, (struct sockaddr *)&sa, &salen))
		return -errno;
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	err = maps_open_pinned_ro(bridge, &h->maps);
	/* The spanning tree's status, when the daemon made its map. */
	h->stp_fd = stpmap_open(bridge, STPMAP_STATUS, true, false);
	if (err)
		goto fail;
	h->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handle, h,
				  MHD_OPTION_LISTEN_SOCKET, listen_fd,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNECTIONS,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_PER_IP,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
				  MHD_OPTION_END);
	if (h->mhd)
		return 0;
	err = errno ? -errno : -EINVAL;
fail:
	http_server_close(h);
	return err;
}

void http_server_close(struct http_server *h)
{
	if (h->mhd) {
		MHD_quiesce_daemon(h->mhd);	/* the listening socket stays the caller's */
		MHD_stop_daemon(h->mhd);
	}
	h->mhd = NULL;
	maps_close(&h->maps);
	if (h->stp_fd >= 0)
		close(h->stp_fd);
	h->stp_fd = -1;
}

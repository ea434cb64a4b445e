// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* http.c - the statistics endpoint (see http.h). */
#include <errno.h>
#include <stdarg.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "config.h"
#include "ctl.h"
#include "fdbtab.h"
#include "http.h"
#include "json.h"
#include "log.h"
#include "report.h"
#include "util.h"

#define CT_JSON "application/json"
#define CT_PROM "text/plain; version=0.0.4; charset=utf-8"

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *type, char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
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
	return MHD_YES;
}

static int collect(struct http *h, struct report *r)
{
	int err = report_collect(h->maps, h->bridge, r);

	if (err)
		return err;
	r->uptime_s = (double)(mono_ns() - h->start_ns) / 1e9;
	pthread_mutex_lock(&h->lock);
	if (h->fdb_known) {
		r->fdb_known = true;
		r->fdb_entries = h->fdb_entries;
		r->fdb_dynamic = h->fdb_dynamic;
		r->fdb_static = h->fdb_static;
		r->fdb_age_s = (double)(mono_ns() - h->fdb_at_ns) / 1e9;
	}
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static enum MHD_Result get_stats(struct http *h, struct MHD_Connection *c)
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

static enum MHD_Result get_metrics(struct http *h, struct MHD_Connection *c)
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

static enum MHD_Result get_fdb(struct http *h, struct MHD_Connection *c,
			       const struct query *q)
{
	struct fdb_entry *e;
	struct json_object *arr;
	uint32_t dev = 0;
	uint64_t vid = 0;
	size_t n, k = 0;
	int err;

	if (q->port) {
		struct xdpbr_port p;

		dev = if_nametoindex(q->port);
		if (!dev || ctl_port_get(h->maps, dev, &p))
			return reply_error(c, MHD_HTTP_BAD_REQUEST,
					   "port '%.32s' is not a port of bridge %s", q->port,
					   h->bridge);
	}
	if (q->vlan && parse_u64(q->vlan, XDPBR_VLAN_MAX, &vid))
		return reply_error(c, MHD_HTTP_BAD_REQUEST,
				   "vlan '%.16s' is not a VLAN id (0-%d)", q->vlan, XDPBR_VLAN_MAX);
	err = fdb_dump(h->maps->fdb, &e, &n);
	if (err)
		return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "can't read the FDB: %s", strerror(-err));
	for (size_t i = 0; i < n; i++)
		if ((!dev || e[i].val.ifindex == dev) && (!q->vlan || e[i].key.vlan == vid))
			e[k++] = e[i];
	arr = json_fdb(e, k, h->bridge, mono_ns());
	free(e);
	return reply_json(c, MHD_HTTP_OK, arr);
}

static const char *const no_params[] = { NULL };
static const char *const fdb_params[] = { "port", "vlan", NULL };

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version,
			      const char *upload_data, size_t *upload_size, void **state)
{
	/* Per-connection state, by address: headers seen; a body seen. */
	static int headers_seen, body_seen;
	struct http *h = cls;
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
	return get_fdb(h, c, &q);
}

int http_start(struct http *h, const struct xdpbr_maps *m, const char *bridge,
	       const char *listen, uint64_t start_ns)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;

	memset(h, 0, sizeof(*h));
	h->maps = m;
	h->start_ns = start_ns;
	snprintf(h->bridge, sizeof(h->bridge), "%s", bridge);
	snprintf(h->listen, sizeof(h->listen), "%s", listen);
	pthread_mutex_init(&h->lock, NULL);
	if (config_listen_parse(listen, &sa, &salen) || sa.ss_family == AF_UNSPEC)
		return -EINVAL;		/* no address, or none: nothing to serve */
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handle, h,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNECTIONS,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_PER_IP,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
				  MHD_OPTION_END);
	if (!h->mhd)
		return errno ? -errno : -EADDRINUSE;
	return 0;
}

void http_stop(struct http *h)
{
	if (h->mhd)
		MHD_stop_daemon(h->mhd);
	h->mhd = NULL;
}

void http_set_fdb(struct http *h, uint64_t entries, uint64_t dynamic, uint64_t statics)
{
	pthread_mutex_lock(&h->lock);
	h->fdb_known = true;
	h->fdb_entries = entries;
	h->fdb_dynamic = dynamic;
	h->fdb_static = statics;
	h->fdb_at_ns = mono_ns();
	pthread_mutex_unlock(&h->lock);
}

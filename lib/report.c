// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* report.c - the bridge's figures as JSON and Prometheus text. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "ctl.h"
#include "fdbtab.h"
#include "json.h"
#include "portstats.h"
#include "report.h"
#include "util.h"
#include "xdpbr_rules.h"

int report_collect(const struct xdpbr_maps *m, const char *bridge, struct report *r)
{
	struct bpf_map_info mi = {};
	__u32 len = sizeof(mi), zero = 0;
	int err;

	memset(r, 0, sizeof(*r));
	r->uptime_s = -1;
	snprintf(r->bridge, sizeof(r->bridge), "%s", bridge);
	err = ctl_config_get(m, &r->cfg);
	if (!err && bpf_obj_get_info_by_fd(m->fdb, &mi, &len))
		err = -errno;
	if (err)
		return err;
	r->fdb_size = mi.max_entries;
	ctl_learned_get(m, XDPBR_LEARNED_TOTAL, &r->learned_total);
	bpf_map_lookup_elem(m->bridge, &zero, &r->bs);
	err = ports_dump(m->ports, &r->ports, &r->nports);
	if (err)
		return err;
	r->stats = calloc(r->nports + 1, sizeof(*r->stats));
	r->stp = calloc(r->nports + 1, sizeof(*r->stp));
	if (!r->stats || !r->stp) {
		report_free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nports && !err; i++)
		err = stats_read(m->stats, r->ports[i].port.slot, &r->stats[i]) ?:
		      ctl_port_stp_effective(m, &r->ports[i].port, &r->stp[i]);
	if (!err)
		err = stats_read(m->stats, 0, &r->nonport);
	if (err)
		report_free(r);
	return err;
}

void report_free(struct report *r)
{
	free(r->stp_status);
	r->stp_status = NULL;
	free(r->ports);
	free(r->stats);
	free(r->stp);
	r->ports = NULL;
	r->stats = NULL;
	r->stp = NULL;
	r->nports = 0;
}

int report_count_fdb(const struct xdpbr_maps *m, struct report *r)
{
	struct fdb_entry *e;
	size_t n;
	int err = fdb_dump(m->fdb, &e, &n);

	if (err)
		return err;
	r->fdb_entries = n;
	r->fdb_static = 0;
	for (size_t i = 0; i < n; i++)
		r->fdb_static += !!(e[i].val.flags & XDPBR_FDB_STATIC);
	r->fdb_dynamic = n - r->fdb_static;
	r->fdb_known = true;
	r->fdb_age_s = 0;
	free(e);
	return 0;
}

uint64_t report_sum(const struct report *r, enum xdpbr_counter c)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->nports; i++)
		n += r->stats[i].c[c];
	return n;
}

static bool is_drop(int c)
{
	return !strncmp(counter_names[c], "drop_", 5);
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

/* Flat counters plus "drops": {reason: n} (reason: the name after drop_). */
static void add_counters(struct json_object *o, const struct xdpbr_stats *s)
{
	struct json_object *drops = json_object_new_object();

	for (int c = 0; c < XDPBR_CNT__MAX; c++) {
		add_u64(o, counter_names[c], s->c[c]);
		if (is_drop(c))
			add_u64(drops, counter_names[c] + 5, s->c[c]);
	}
	json_object_object_add(o, "drops", drops);
}

static uint64_t ageing_s(const struct xdpbr_config *c)
{
	if (c->ageing_ns == XDPBR_AGEING_NEVER)
		return 0;
	return xdpbr_ageing_ns(c) / XDPBR_NSEC_PER_SEC;
}

/* Bridge-wide figures: the fields of the CLI's bridge element and of the
 * document's "bridge" object. */
static void add_bridge_figures(struct json_object *o, const struct report *r)
{
	struct json_object *fdb = json_object_new_object();

	add_u64(o, "ageing_time", ageing_s(&r->cfg));
	add_u64(o, "fdb_max_learned", r->cfg.fdb_max_learned);
	add_u64(o, "fdb_size", r->fdb_size);
	add_u64(o, "ports", r->nports);
	json_object_object_add(o, "vlan_filtering",
			       json_object_new_boolean(r->cfg.flags & XDPBR_CFG_VLAN_FILTERING));
	add_u64(o, "default_pvid", ctl_default_pvid(&r->cfg));
	add_u64(o, "learned", report_sum(r, XDPBR_CNT_LEARNED));
	add_u64(o, "moved", report_sum(r, XDPBR_CNT_MOVED));
	add_u64(o, "aged", r->bs.aged);
	add_u64(o, "flushed", r->bs.flushed);
	add_u64(o, "learn_limit", report_sum(r, XDPBR_CNT_LEARN_LIMIT));
	add_u64(o, "learn_failed", report_sum(r, XDPBR_CNT_LEARN_FAILED));
	add_u64(o, "events_dropped", report_sum(r, XDPBR_CNT_EVENTS_DROPPED));
	add_u64(o, "pass_not_port", r->nonport.c[XDPBR_CNT_PASS_NOT_PORT]);
	add_u64(fdb, "dynamic_live", r->learned_total);
	if (r->fdb_known) {
		add_u64(fdb, "entries", r->fdb_entries);
		add_u64(fdb, "dynamic", r->fdb_dynamic);
		add_u64(fdb, "static", r->fdb_static);
		json_object_object_add(fdb, "as_of_s", json_object_new_double(r->fdb_age_s));
	}
	json_object_object_add(o, "fdb", fdb);
	if (r->uptime_s >= 0)
		json_object_object_add(o, "uptime_s", json_object_new_double(r->uptime_s));
}

struct json_object *report_json_cli(const struct report *r, uint32_t dev)
{
	struct json_object *arr = json_object_new_array(), *b;

	for (size_t i = 0; i < r->nports; i++) {
		struct json_object *o;

		if (dev && r->ports[i].ifindex != dev)
			continue;
		o = json_port_stats(&r->ports[i], &r->stats[i]);
		json_object_object_add(o, "type", json_object_new_string("port"));
		json_object_object_add(o, "master", json_object_new_string(r->bridge));
		add_counters(o, &r->stats[i]);
		json_object_array_add(arr, o);
	}
	if (dev)
		return arr;
	b = json_object_new_object();
	json_object_object_add(b, "type", json_object_new_string("bridge"));
	json_object_object_add(b, "ifname", json_object_new_string(r->bridge));
	add_bridge_figures(b, r);
	json_object_array_add(arr, b);
	return arr;
}

/* Forwarding for a report made without the states (tests). */
static enum xdpbr_stp_state report_port_stp(const struct report *r, size_t i)
{
	return r->stp ? r->stp[i] : XDPBR_STP_FORWARDING;
}

const char *report_port_state(const struct report *r, size_t i, const struct port_link *l)
{
	return port_state_name(&r->ports[i], l, report_port_stp(r, i),
			       r->cfg.flags & XDPBR_CFG_STP);
}

struct json_object *report_json_doc(const struct report *r)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *b = json_object_new_object();
	struct json_object *ports = json_object_new_array();

	add_u64(doc, "schema_version", REPORT_SCHEMA_VERSION);
	json_object_object_add(b, "name", json_object_new_string(r->bridge));
	add_bridge_figures(b, r);
	json_object_object_add(doc, "bridge", b);
	for (size_t i = 0; i < r->nports; i++) {
		struct json_object *c = json_object_new_object();
		struct json_object *o;
		struct port_link l;

		port_link_read(&r->ports[i], &l);
		o = json_port(&r->ports[i], &l, report_port_state(r, i, &l), r->bridge);

		add_counters(c, &r->stats[i]);
		json_object_object_add(o, "counters", c);
		json_object_array_add(ports, o);
	}
	json_object_object_add(doc, "ports", ports);
	if (r->stp_status)
		json_object_object_add(doc, "stp", stpmap_json(r->stp_status, mono_ns()));
	return doc;
}

/*
 * Prometheus names. Per port, labels bridge and port:
 *   xdpbr_<counter>_total for every counter but the drops, which are one
 *   family xdpbr_dropped_total{reason=...}.
 * Per bridge: gauges for the FDB and the settings, counters aged/flushed.
 */
static const char *const help_of[XDPBR_CNT__MAX] = {
	[XDPBR_CNT_RX_PACKETS] = "Frames received on the port.",
	[XDPBR_CNT_RX_BYTES] = "Bytes received on the port.",
	[XDPBR_CNT_TX_PACKETS] = "Frames the bridge sent out of the port.",
	[XDPBR_CNT_TX_BYTES] = "Bytes the bridge sent out of the port.",
	[XDPBR_CNT_FORWARDED] = "Frames forwarded to one port (known unicast).",
	[XDPBR_CNT_FLOOD_BCAST] = "Broadcast frames flooded.",
	[XDPBR_CNT_FLOOD_MCAST] = "Multicast frames flooded.",
	[XDPBR_CNT_FLOOD_UNKNOWN] = "Unknown unicast frames flooded.",
	[XDPBR_CNT_PASS_LINKLOCAL] = "Link-local control frames passed to the host.",
	[XDPBR_CNT_PASS_NOT_PORT] = "Frames passed to the host from a non-port.",
	[XDPBR_CNT_LEARNED] = "Source MACs learned.",
	[XDPBR_CNT_MOVED] = "Source MACs that moved to this port.",
	[XDPBR_CNT_LEARN_FAILED] = "Learns that failed (FDB full).",
	[XDPBR_CNT_LEARN_LIMIT] = "Learns refused by a learning limit.",
	[XDPBR_CNT_FLOOD_FILTERED] = "Flooded copies refused by the port (isolation, VLAN, multicast snooping).",
	[XDPBR_CNT_TX_DROPPED] = "Redirected frames the egress driver dropped.",
	[XDPBR_CNT_REDIRECT_ERRORS] = "Redirects the kernel failed after the program.",
	[XDPBR_CNT_EVENTS_DROPPED] = "FDB events lost to the rate limit or a full ring.",
	[XDPBR_CNT_BPDU_SOCKET_LIMIT] = "BPDUs the daemon's socket refused over the link-local limit.",
};

static void prom_label_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', out);
		if (*s == '\n') {
			fputs("\\n", out);
			continue;
		}
		fputc(*s, out);
	}
}

static void prom_port_labels(FILE *out, const struct report *r, size_t i)
{
	char ifname[IFNAME_SHOWN];

	fputs("{bridge=\"", out);
	prom_label_escape(out, r->bridge);
	fputs("\",port=\"", out);
	prom_label_escape(out, ifname_shown(r->ports[i].ifindex, ifname));
	fputc('"', out);
}

int report_metrics(const struct report *r, FILE *out)
{
	/* One family per counter, each with all ports. */
	for (int c = 0; c < XDPBR_CNT__MAX; c++) {
		if (is_drop(c))
			continue;
		fprintf(out, "# HELP xdpbr_%s_total %s\n# TYPE xdpbr_%s_total counter\n",
			counter_names[c], help_of[c] ? help_of[c] : counter_names[c],
			counter_names[c]);
		for (size_t i = 0; i < r->nports; i++) {
			fprintf(out, "xdpbr_%s_total", counter_names[c]);
			prom_port_labels(out, r, i);
			fprintf(out, "} %llu\n", (unsigned long long)r->stats[i].c[c]);
		}
	}
	fputs("# HELP xdpbr_dropped_total Frames dropped by the datapath, by reason.\n"
	      "# TYPE xdpbr_dropped_total counter\n", out);
	for (size_t i = 0; i < r->nports; i++)
		for (int c = 0; c < XDPBR_CNT__MAX; c++) {
			if (!is_drop(c))
				continue;
			fputs("xdpbr_dropped_total", out);
			prom_port_labels(out, r, i);
			fprintf(out, ",reason=\"%s\"} %llu\n", counter_names[c] + 5,
				(unsigned long long)r->stats[i].c[c]);
		}

	fputs("# HELP xdpbr_port_info Port attachment: datapath (xdp, tc) and state (always 1).\n"
	      "# TYPE xdpbr_port_info gauge\n", out);
	for (size_t i = 0; i < r->nports; i++) {
		fputs("xdpbr_port_info", out);
		prom_port_labels(out, r, i);
		fprintf(out, ",slot=\"%u\",state=\"%s\",datapath=\"%s\"} 1\n",
			r->ports[i].port.slot,
			r->ports[i].port.flags & XDPBR_PORT_DOWN ? "disabled" :
			stp_state_word(report_port_stp(r, i), r->cfg.flags & XDPBR_CFG_STP),
			port_datapath_name(r->ports[i].port.mode));
	}

#define BRIDGE_METRIC(name, type, help, value)					\
	do {									\
		fprintf(out, "# HELP xdpbr_%s %s\n# TYPE xdpbr_%s %s\nxdpbr_%s{bridge=\"", \
			name, help, name, type, name);				\
		prom_label_escape(out, r->bridge);				\
		fprintf(out, "\"} %llu\n", (unsigned long long)(value));	\
	} while (0)
	BRIDGE_METRIC("fdb_dynamic_entries", "gauge",
		      "Dynamic FDB entries (live count used by the learning limits).",
		      r->learned_total);
	if (r->fdb_known) {
		BRIDGE_METRIC("fdb_entries", "gauge",
			      "FDB entries at the last walk of the table.", r->fdb_entries);
		BRIDGE_METRIC("fdb_static_entries", "gauge",
			      "Static FDB entries at the last walk of the table.",
			      r->fdb_static);
	}
	BRIDGE_METRIC("fdb_size", "gauge", "FDB capacity in entries.", r->fdb_size);
	BRIDGE_METRIC("fdb_max_learned", "gauge",
		      "Bridge-wide learning limit (0: none).", r->cfg.fdb_max_learned);
	BRIDGE_METRIC("vlan_filtering", "gauge",
		      "1 when the bridge is VLAN-aware (802.1Q filtering).",
		      !!(r->cfg.flags & XDPBR_CFG_VLAN_FILTERING));
	BRIDGE_METRIC("ageing_time_seconds", "gauge",
		      "Ageing time of dynamic entries (0: never).", ageing_s(&r->cfg));
	BRIDGE_METRIC("fdb_aged_total", "counter",
		      "FDB entries the daemon aged out.", r->bs.aged);
	BRIDGE_METRIC("fdb_flushed_total", "counter",
		      "FDB entries deleted by del, flush or a port going down.", r->bs.flushed);
	BRIDGE_METRIC("not_port_frames_total", "counter",
		      "Frames seen on an interface that is not a port.",
		      r->nonport.c[XDPBR_CNT_PASS_NOT_PORT]);
#undef BRIDGE_METRIC
	if (r->uptime_s >= 0) {
		fputs("# HELP xdpbr_daemon_uptime_seconds Seconds since xdpbrd started.\n"
		      "# TYPE xdpbr_daemon_uptime_seconds gauge\n"
		      "xdpbr_daemon_uptime_seconds{bridge=\"", out);
		prom_label_escape(out, r->bridge);
		fprintf(out, "\"} %.3f\n", r->uptime_s);
	}
	if (r->stp_status)
		stpmap_metrics(r->stp_status, r->bridge, out);
	return ferror(out) ? -EIO : 0;
}

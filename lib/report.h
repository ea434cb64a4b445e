/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_REPORT_H
#define XDPBR_REPORT_H

/*
 * report - one consistent read of a bridge's figures, and the documents made
 * from it: `xdpbr -j stats`, the HTTP /stats JSON and /metrics (Prometheus
 * text). One reader, one table of names (include/xdpbr.h), so the three
 * always agree.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

#include "xdpbr.h"
#include "pins.h"
#include "ports.h"
#include "stpmap.h"

#define REPORT_SCHEMA_VERSION 1

struct report {
	char bridge[16];
	struct xdpbr_config cfg;
	uint32_t fdb_size;		/* max_entries of the FDB map */
	uint64_t learned_total;		/* live dynamic-entry count (xdpbr_learned[0]) */
	struct xdpbr_bridge_stats bs;	/* aged, flushed */
	struct port_entry *ports;	/* by slot */
	struct xdpbr_stats *stats;	/* summed over CPUs, one per port */
	enum xdpbr_stp_state *stp;	/* the spanning tree state enforced, one per port */
	size_t nports;
	struct xdpbr_stats nonport;	/* slot 0: frames on a non-port */
	/* FDB composition: known only where someone walked the table (the
	 * daemon's last ageing pass, or the CLI's own walk). */
	bool fdb_known;
	uint64_t fdb_entries, fdb_dynamic, fdb_static;
	double fdb_age_s;		/* how old those figures are */
	double uptime_s;		/* the daemon's, or < 0 */
	/* The spanning tree's status (the daemon's xdpbr_stp_status), or
	 * NULL: no daemon, or none that writes it. Freed by report_free. */
	struct stpmap_snapshot *stp_status;
};

/* Reads everything but the FDB composition. 0 or -errno. */
int report_collect(const struct xdpbr_maps *m, const char *bridge, struct report *r);
void report_free(struct report *r);

/* Walks the FDB to fill the composition (the CLI; the daemon uses its sweep). */
int report_count_fdb(const struct xdpbr_maps *m, struct report *r);

/* Port i's state word (port_state_name), its link l as read. */
const char *report_port_state(const struct report *r, size_t i, const struct port_link *l);

/* Sum of one counter over the ports. */
uint64_t report_sum(const struct report *r, enum xdpbr_counter c);

/* `xdpbr -j stats`: [{"type":"port", "ifname", "ifindex", <counters>,
 * "drops":{reason: n}}, ..., {"type":"bridge", "ifname": BRIDGE, ...}].
 * dev: only that port (and no bridge element) when non-zero. */
struct json_object *report_json_cli(const struct report *r, uint32_t dev);

/* HTTP /stats: the documented, versioned document (doc/http-api.md). */
struct json_object *report_json_doc(const struct report *r);

/* HTTP /metrics: Prometheus text exposition format 0.0.4. */
int report_metrics(const struct report *r, FILE *out);

#endif

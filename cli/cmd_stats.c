// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_stats.c - xdpbr stats [ rate SECONDS [ count N ] ]: the counters. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "portstats.h"
#include "print.h"
#include "report.h"
#include "util.h"

/* The columns of the stats tables: traffic, and the outcomes in groups. */
enum column {
	COL_RX_PACKETS, COL_RX_BYTES, COL_TX_PACKETS, COL_TX_BYTES,
	COL_FORWARDED, COL_FLOODED, COL_PASSED, COL_DROPPED, COL__MAX
};

static const struct {
	const char *name;
	int width;		/* of the counters table; the rates' is 2 more */
	const char *rate_fmt;	/* its cell in the rates table */
} columns[COL__MAX] = {
	[COL_RX_PACKETS] = { "rx_packets", 12, " %14.1f" },
	[COL_RX_BYTES] = { "rx_bytes", 14, " %16.1f" },
	[COL_TX_PACKETS] = { "tx_packets", 12, " %14.1f" },
	[COL_TX_BYTES] = { "tx_bytes", 14, " %16.1f" },
	[COL_FORWARDED] = { "forwarded", 10, " %12.1f" },
	[COL_FLOODED] = { "flooded", 10, " %12.1f" },
	[COL_PASSED] = { "passed", 10, " %12.1f" },
	[COL_DROPPED] = { "dropped", 10, " %12.1f" },
};

static void column_values(const struct xdpbr_stats *s, uint64_t v[COL__MAX])
{
	const __u64 *c = s->c;

	v[COL_RX_PACKETS] = c[XDPBR_CNT_RX_PACKETS];
	v[COL_RX_BYTES] = c[XDPBR_CNT_RX_BYTES];
	v[COL_TX_PACKETS] = c[XDPBR_CNT_TX_PACKETS];
	v[COL_TX_BYTES] = c[XDPBR_CNT_TX_BYTES];
	v[COL_FORWARDED] = c[XDPBR_CNT_FORWARDED];
	v[COL_FLOODED] = c[XDPBR_CNT_FLOOD_BCAST] + c[XDPBR_CNT_FLOOD_MCAST] +
			 c[XDPBR_CNT_FLOOD_UNKNOWN];
	v[COL_PASSED] = c[XDPBR_CNT_PASS_LINKLOCAL] + c[XDPBR_CNT_PASS_NOT_PORT];
	v[COL_DROPPED] = 0;
	for (int d = XDPBR_CNT_DROP_RUNT; d <= XDPBR_CNT_DROP_REDIRECT; d++)
		v[COL_DROPPED] += c[d];
}

/* ------------------------------------------------------------ counters */

/* port rx_packets ... dropped, one line per port */
static void print_counter_table(const struct report *r, uint32_t dev)
{
	char ifname[IFNAME_SHOWN];

	print_text("%-15s", "port");
	for (int k = 0; k < COL__MAX; k++)
		print_text(" %*s", columns[k].width, columns[k].name);
	print_nl();
	for (size_t i = 0; i < r->nports; i++) {
		uint64_t v[COL__MAX];

		if (dev && r->ports[i].ifindex != dev)
			continue;
		column_values(&r->stats[i], v);
		print_text("%-15s", ifname_shown(r->ports[i].ifindex, ifname));
		for (int k = 0; k < COL__MAX; k++)
			print_text(" %*llu", columns[k].width, (unsigned long long)v[k]);
		print_nl();
	}
}

/* Non-zero detail counters, one line per port, like `ip -s -s`. */
static void print_counter_details(const struct report *r, uint32_t dev)
{
	char ifname[IFNAME_SHOWN];

	for (size_t i = 0; i < r->nports; i++) {
		bool any = false;

		if (dev && r->ports[i].ifindex != dev)
			continue;
		for (int d = XDPBR_CNT_FORWARDED + 1; d < XDPBR_CNT__MAX; d++) {
			if (!r->stats[i].c[d])
				continue;
			if (!any)
				print_text("%s:", ifname_shown(r->ports[i].ifindex, ifname));
			any = true;
			print_text(" %s %llu", counter_names[d],
				   (unsigned long long)r->stats[i].c[d]);
		}
		if (any)
			print_nl();
	}
}

static void print_bridge_counters(const struct report *r)
{
	print_text("bridge %s: learned %llu moved %llu aged %llu flushed %llu learn_limit %llu "
		   "events_dropped %llu fdb dynamic %llu\n", r->bridge,
		   (unsigned long long)report_sum(r, XDPBR_CNT_LEARNED),
		   (unsigned long long)report_sum(r, XDPBR_CNT_MOVED),
		   (unsigned long long)r->bs.aged, (unsigned long long)r->bs.flushed,
		   (unsigned long long)report_sum(r, XDPBR_CNT_LEARN_LIMIT),
		   (unsigned long long)report_sum(r, XDPBR_CNT_EVENTS_DROPPED),
		   (unsigned long long)(r->fdb_known ? r->fdb_dynamic : r->learned_total));
}

/*
 * The counters: a table, the detail counters and the bridge's line; or
 * the JSON document of lib/report.c (report_json_cli()), whose bridge
 * figures are those of the daemon's GET /stats. The two differ in shape,
 * so they are two formatters over the same report.
 */
static void print_counters(const struct report *r, uint32_t dev)
{
	if (print_is_json()) {
		print_json_object(NULL, report_json_cli(r, dev));
		return;
	}
	print_counter_table(r, dev);
	print_counter_details(r, dev);
	if (!dev)
		print_bridge_counters(r);
}

/* ------------------------------------------------------------ rates */

/* The index in a of port p of b if it was a port, in the same slot, at
 * both reads; a->nports if not. */
static size_t same_port(const struct report *a, const struct port_entry *p)
{
	size_t j;

	for (j = 0; j < a->nports; j++)
		if (a->ports[j].ifindex == p->ifindex && a->ports[j].port.slot == p->port.slot)
			break;
	return j;
}

static void print_rate_header(double secs)
{
	char name[32];

	print_text("%-15s", "port");
	for (int k = 0; k < COL__MAX; k++) {
		snprintf(name, sizeof(name), "%s/s", columns[k].name);
		print_text(" %*s", columns[k].width + 2, name);
	}
	print_text("   (over %.2f s)\n", secs);
}

/* One port's line, or {"ifname", "interval_s", "<column>_per_s", ...}. */
static void print_port_rates(const struct xdpbr_stats *s0, const struct xdpbr_stats *s1,
			     uint32_t ifindex, double secs)
{
	uint64_t v0[COL__MAX], v1[COL__MAX];
	char ifname[IFNAME_SHOWN], key[32];

	column_values(s0, v0);
	column_values(s1, v1);
	print_open_object(NULL);
	print_string(PRINT_ANY, "ifname", "%-15s", ifname_shown(ifindex, ifname));
	print_rate(PRINT_JSON, "interval_s", NULL, secs);
	for (int k = 0; k < COL__MAX; k++) {
		/* a counter never goes back; if it did, the port was reset */
		uint64_t d = v1[k] >= v0[k] ? v1[k] - v0[k] : 0;

		snprintf(key, sizeof(key), "%s_per_s", columns[k].name);
		print_rate(PRINT_ANY, key, columns[k].rate_fmt, (double)d / secs);
	}
	print_close_object();
	print_nl();
}

/* The per-second rates between two reads, secs apart. A port counts only
 * when it was a port, in the same slot, at both reads. */
static void print_rates(const struct report *a, const struct report *b, double secs,
			uint32_t dev)
{
	print_rate_header(secs);
	print_open_array(NULL);
	for (size_t i = 0; i < b->nports; i++) {
		const struct port_entry *p = &b->ports[i];
		size_t j = same_port(a, p);

		if ((dev && p->ifindex != dev) || j == a->nports)
			continue;
		print_port_rates(&a->stats[j], &b->stats[i], p->ifindex, secs);
	}
	print_close_array();
}

/* stats rate SECONDS [count N]: N intervals, each from the read before. */
static int stats_rates(const struct cli_cmd *c, struct target *t, uint32_t dev)
{
	uint64_t interval = (uint64_t)c->rate_s * XDPBR_NSEC_PER_SEC, t0, t1;
	uint32_t n = c->count ? c->count : 1;
	struct report prev, cur;
	sigset_t waitmask;
	int err;

	catch_signals(&waitmask);
	err = report_collect(&t->m, t->br, &prev);
	t0 = mono_ns();
	for (uint32_t k = 0; !err && k < n; k++) {
		if (sleep_until(t0 + interval, &waitmask))
			break;		/* interrupted: a clean end */
		err = report_collect(&t->m, t->br, &cur);
		t1 = mono_ns();
		if (err)
			break;
		print_begin(c->json, c->pretty);
		if (k)
			print_nl();	/* between the tables */
		print_rates(&prev, &cur, (double)(t1 - t0) / 1e9, dev);
		print_end();
		report_free(&prev);
		prev = cur;
		t0 = t1;
	}
	if (err)
		return cli_error(err, "can't read the counters of bridge %s: %s%s", t->br,
				 strerror(-err), errno_hint(err));
	report_free(&prev);
	return 0;
}

int do_stats(const struct cli_cmd *c, struct target *t)
{
	struct report r;
	uint32_t dev;
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = report_collect(&t->m, t->br, &r);
	if (!err && !dev && !c->rate_s)		/* the bridge line's FDB figures */
		err = report_count_fdb(&t->m, &r);
	if (err) {
		report_free(&r);	/* report_collect() left it empty or whole */
		return cli_error(err, "can't read the counters of bridge %s: %s%s", t->br,
				 strerror(-err), errno_hint(err));
	}
	if (dev && !ports_find(r.ports, r.nports, dev)) {
		report_free(&r);
		return port_error(-ENODEV, c, t, "show the counters of");
	}
	if (c->rate_s) {
		report_free(&r);
		return stats_rates(c, t, dev);
	}
	print_begin(c->json, c->pretty);
	print_counters(&r, dev);
	print_end();
	report_free(&r);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_report.c - lib/report.c: one read of a bridge's figures (over the
 * fake maps of mock_bpf.c) and the three documents made from it: the CLI's
 * `xdpbr -j stats`, the HTTP /stats document and the Prometheus /metrics
 * text, which is checked line by line against the exposition format.
 */
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "xdpbr.h"
#include "pins.h"
#include "portstats.h"
#include "report.h"
#include "util.h"
#include "mock_bpf.h"

#define NCPUS		4
#define FDB_SIZE	1024
#define NO_IFINDEX(n)	(900000u + (n))		/* no such interface: "if9000NN" */
#define PROMTOOL	"/usr/bin/promtool"

/* The fake bridge: three ports, inserted out of slot order. */
static const struct {
	uint32_t ifindex;
	uint32_t slot;
	uint32_t flags;
} fake_ports[] = {
	{ NO_IFINDEX(3), 9, XDPBR_PORT_DEFAULT_FLAGS | XDPBR_PORT_DOWN },
	{ NO_IFINDEX(1), 1, XDPBR_PORT_DEFAULT_FLAGS },
	{ NO_IFINDEX(2), 2, XDPBR_PORT_DEFAULT_FLAGS | XDPBR_PORT_ISOLATED },
};
#define NPORTS ARRAY_SIZE(fake_ports)

/* Ports by slot, as report_collect() must order them. */
static const uint32_t by_slot[NPORTS] = { NO_IFINDEX(1), NO_IFINDEX(2), NO_IFINDEX(3) };
static const uint32_t slot_of[NPORTS] = { 1, 2, 9 };

#define AGEING_S	120
#define FDB_MAX		500
#define LEARNED_LIVE	7
#define AGED		11
#define FLUSHED		13
#define N_DYNAMIC	3
#define N_STATIC	2

/* Counter c of slot s on one CPU: distinct everywhere, so a counter read
 * from the wrong slot, CPU or index shows. */
static uint64_t cpu_value(uint32_t slot, int cpu, int c)
{
	return (uint64_t)slot * 1000000 + (uint64_t)(cpu + 1) * 1000 + (uint64_t)c + 1;
}

static uint64_t want(uint32_t slot, int c)
{
	uint64_t sum = 0;

	for (int cpu = 0; cpu < NCPUS; cpu++)
		sum += cpu_value(slot, cpu, c);
	return sum;
}

static uint64_t want_sum(int c)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < NPORTS; i++)
		sum += want(slot_of[i], c);
	return sum;
}

static bool is_drop_name(const char *name)
{
	return !strncmp(name, "drop_", 5);
}

static size_t n_drop_counters(void)
{
	size_t n = 0;

	for (int c = 0; c < XDPBR_CNT__MAX; c++)
		n += is_drop_name(counter_names[c]);
	return n;
}

static void make_bridge(struct xdpbr_maps *m)
{
	struct xdpbr_stats percpu[NCPUS];
	struct xdpbr_config cfg = {
		.ageing_ns = AGEING_S * XDPBR_NSEC_PER_SEC, .fdb_max_learned = FDB_MAX,
	};
	struct xdpbr_bridge_stats bs = { .aged = AGED, .flushed = FLUSHED };
	/* learned by the datapath, 3 of them deleted by user space */
	__u64 dp_learned = LEARNED_LIVE + 3, user_learned = (__u64)-3;
	__u32 zero = 0;

	memset(m, 0xff, sizeof(*m));		/* every fd -1 */
	mock_set_ncpus(NCPUS);
	m->fdb = mock_map_create(MOCK_HASH, sizeof(struct xdpbr_fdb_key),
				 sizeof(struct xdpbr_fdb_val), FDB_SIZE);
	m->ports = mock_map_create(MOCK_HASH, sizeof(__u32), sizeof(struct xdpbr_port),
				   XDPBR_MAX_PORTS);
	m->stats = mock_map_create(MOCK_PERCPU_ARRAY, sizeof(__u32),
				   sizeof(struct xdpbr_stats), XDPBR_MAX_PORTS);
	m->config = mock_map_create(MOCK_ARRAY, sizeof(__u32), sizeof(cfg), 1);
	m->learned = mock_map_create(MOCK_ARRAY, sizeof(__u32), sizeof(__u64),
				     XDPBR_MAX_PORTS);
	m->learned_user = mock_map_create(MOCK_ARRAY, sizeof(__u32), sizeof(__u64),
					  XDPBR_MAX_PORTS);
	m->bridge = mock_map_create(MOCK_ARRAY, sizeof(__u32), sizeof(bs), 1);
	m->stp_port = mock_map_create(MOCK_ARRAY, sizeof(__u32), sizeof(__u32), XDPBR_MAX_PORTS);
	m->stp_beat = mock_map_create(MOCK_ARRAY, sizeof(__u32), sizeof(struct xdpbr_stp_beat), 1);
	assert_true(m->fdb >= 0 && m->ports >= 0 && m->stats >= 0 && m->config >= 0 &&
		    m->learned >= 0 && m->learned_user >= 0 && m->bridge >= 0 &&
		    m->stp_port >= 0 && m->stp_beat >= 0);

	for (size_t i = 0; i < NPORTS; i++) {
		struct xdpbr_port p = { .slot = fake_ports[i].slot, .flags = fake_ports[i].flags };

		assert_int_equal(mock_map_update(m->ports, &fake_ports[i].ifindex, &p), 0);
	}
	for (uint32_t s = 0; s < XDPBR_MAX_PORTS; s++) {
		for (int cpu = 0; cpu < NCPUS; cpu++)
			for (int c = 0; c < XDPBR_CNT__MAX; c++)
				percpu[cpu].c[c] = cpu_value(s, cpu, c);
		assert_int_equal(mock_map_update(m->stats, &s, percpu), 0);
	}
	assert_int_equal(mock_map_update(m->config, &zero, &cfg), 0);
	assert_int_equal(mock_map_update(m->learned, &zero, &dp_learned), 0);
	assert_int_equal(mock_map_update(m->learned_user, &zero, &user_learned), 0);
	assert_int_equal(mock_map_update(m->bridge, &zero, &bs), 0);
	for (int i = 0; i < N_DYNAMIC + N_STATIC; i++) {
		struct xdpbr_fdb_key k = { .vlan = 0, .mac = { 2, 0, 0x5e, 0, 0x53, (__u8)i } };
		struct xdpbr_fdb_val v = {
			.ifindex = i < N_DYNAMIC ? NO_IFINDEX(1) : NO_IFINDEX(2),
			.slot = i < N_DYNAMIC ? 1 : 2,
			.flags = i < N_DYNAMIC ? 0 : XDPBR_FDB_STATIC,
		};

		assert_int_equal(mock_map_update(m->fdb, &k, &v), 0);
	}
}

/* A bridge collected from the fake maps, as the CLI reads it. */
static void collect(struct report *r)
{
	struct xdpbr_maps m;

	make_bridge(&m);
	assert_int_equal(report_collect(&m, "lab0", r), 0);
	assert_int_equal(report_count_fdb(&m, r), 0);
}

/* A report built by hand, as the daemon's HTTP server could hold one, with
 * a bridge name that needs escaping in a label value. */
static struct port_entry hand_ports[2] = {
	{ NO_IFINDEX(7), { .slot = 1, .flags = XDPBR_PORT_DEFAULT_FLAGS } },
	{ NO_IFINDEX(8), { .slot = 4, .flags = XDPBR_PORT_DOWN } },
};
static struct xdpbr_stats hand_stats[2];

static struct report hand_report(const char *bridge, double uptime)
{
	struct report r;

	memset(&r, 0, sizeof(r));
	snprintf(r.bridge, sizeof(r.bridge), "%s", bridge);
	r.cfg.ageing_ns = XDPBR_AGEING_NEVER;
	r.fdb_size = 64;
	r.learned_total = 3;
	r.bs.aged = 5;
	r.bs.flushed = 6;
	r.ports = hand_ports;
	r.stats = hand_stats;
	r.nports = 2;
	for (int c = 0; c < XDPBR_CNT__MAX; c++) {
		hand_stats[0].c[c] = (uint64_t)c * 10;
		hand_stats[1].c[c] = UINT64_MAX - (uint64_t)c;	/* big counters */
	}
	r.nonport.c[XDPBR_CNT_PASS_NOT_PORT] = 17;
	r.fdb_known = true;
	r.fdb_entries = 4;
	r.fdb_dynamic = 3;
	r.fdb_static = 1;
	r.fdb_age_s = 0.5;
	r.uptime_s = uptime;
	return r;
}

/* ------------------------------------------------------------ JSON helpers */

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("key '%s' missing in %s", key,
			 json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	return v;
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	if (!json_object_is_type(v, json_type_string))
		fail_msg("'%s' is not a string", key);
	return json_object_get_string(v);
}

static uint64_t get_u64(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	if (!json_object_is_type(v, json_type_int))
		fail_msg("'%s' is not an integer", key);
	return json_object_get_uint64(v);
}

/* Every counter, flat, plus "drops" with exactly the drop reasons. */
static void assert_counters(struct json_object *o, uint32_t slot)
{
	struct json_object *drops = get(o, "drops");
	char reason[64];

	for (int c = 0; c < XDPBR_CNT__MAX; c++) {
		if (get_u64(o, counter_names[c]) != want(slot, c))
			fail_msg("slot %u counter %s: %llu, want %llu", slot, counter_names[c],
				 (unsigned long long)get_u64(o, counter_names[c]),
				 (unsigned long long)want(slot, c));
		if (!is_drop_name(counter_names[c]))
			continue;
		snprintf(reason, sizeof(reason), "%s", counter_names[c] + 5);
		assert_int_equal(get_u64(drops, reason), want(slot, c));
	}
	assert_true(json_object_is_type(drops, json_type_object));
	assert_int_equal(json_object_object_length(drops), n_drop_counters());
	json_object_object_foreach(drops, k, v) {
		char full[64];

		(void)v;
		snprintf(full, sizeof(full), "drop_%s", k);
		if (!get(o, full))
			fail_msg("drops.%s is no drop_ counter", k);
	}
}

/* ------------------------------------------------------------ collect */

static void test_collect(void **state)
{
	struct report r;

	collect(&r);
	assert_string_equal(r.bridge, "lab0");
	assert_int_equal(r.cfg.ageing_ns, AGEING_S * XDPBR_NSEC_PER_SEC);
	assert_int_equal(r.cfg.fdb_max_learned, FDB_MAX);
	assert_int_equal(r.fdb_size, FDB_SIZE);		/* the map's max_entries */
	assert_int_equal(r.learned_total, LEARNED_LIVE);
	assert_int_equal(r.bs.aged, AGED);
	assert_int_equal(r.bs.flushed, FLUSHED);
	assert_int_equal(r.nports, NPORTS);
	for (size_t i = 0; i < NPORTS; i++) {
		assert_int_equal(r.ports[i].ifindex, by_slot[i]);	/* by slot */
		assert_int_equal(r.ports[i].port.slot, slot_of[i]);
		for (int c = 0; c < XDPBR_CNT__MAX; c++)
			assert_int_equal(r.stats[i].c[c], want(slot_of[i], c));
	}
	for (int c = 0; c < XDPBR_CNT__MAX; c++)
		assert_int_equal(r.nonport.c[c], want(0, c));		/* slot 0 */
	assert_true(r.uptime_s < 0);			/* no daemon in the CLI */
	assert_true(r.fdb_known);
	assert_int_equal(r.fdb_entries, N_DYNAMIC + N_STATIC);
	assert_int_equal(r.fdb_dynamic, N_DYNAMIC);
	assert_int_equal(r.fdb_static, N_STATIC);
	assert_int_equal(report_sum(&r, XDPBR_CNT_LEARNED), want_sum(XDPBR_CNT_LEARNED));
	report_free(&r);
	assert_null(r.ports);
	assert_null(r.stats);
	assert_int_equal(r.nports, 0);
	report_free(&r);				/* twice is harmless */
}

static void test_collect_fdb_unknown_without_walk(void **state)
{
	struct xdpbr_maps m;
	struct report r;

	make_bridge(&m);
	assert_int_equal(report_collect(&m, "lab0", &r), 0);
	assert_false(r.fdb_known);
	assert_int_equal(r.fdb_entries, 0);
	report_free(&r);
}

static void test_collect_empty_bridge(void **state)
{
	struct xdpbr_maps m;
	struct report r;
	__u32 k;

	make_bridge(&m);
	for (size_t i = 0; i < NPORTS; i++) {
		k = fake_ports[i].ifindex;
		assert_int_equal(mock_map_delete(m.ports, &k), 0);
	}
	assert_int_equal(report_collect(&m, "lab0", &r), 0);
	assert_int_equal(r.nports, 0);
	assert_int_equal(report_sum(&r, XDPBR_CNT_RX_PACKETS), 0);
	report_free(&r);
}

static void test_collect_errors(void **state)
{
	struct xdpbr_maps m;
	struct report r;

	make_bridge(&m);
	mock_fail(MOCK_OP_LOOKUP_ELEM, 0, EPERM);		/* the config */
	assert_int_equal(report_collect(&m, "lab0", &r), -EPERM);
	assert_null(r.ports);

	mock_fail(MOCK_OP_LOOKUP_BATCH, 0, EIO);		/* the port walk */
	assert_int_equal(report_collect(&m, "lab0", &r), -EIO);
	assert_null(r.ports);
	assert_null(r.stats);

	mock_set_ncpus(-ENOENT);				/* the counters */
	assert_int_equal(report_collect(&m, "lab0", &r), -ENOENT);
	assert_null(r.ports);
	assert_int_equal(r.nports, 0);
	mock_set_ncpus(NCPUS);

	m.fdb = 4242;						/* no such map */
	assert_int_equal(report_collect(&m, "lab0", &r), -EBADF);
	assert_null(r.ports);
}

/* ------------------------------------------------------------ CLI JSON */

static void test_json_cli(void **state)
{
	struct report r;
	struct json_object *a, *o;
	char name[IF_NAMESIZE];

	collect(&r);
	a = report_json_cli(&r, 0);
	assert_true(json_object_is_type(a, json_type_array));
	assert_int_equal(json_object_array_length(a), NPORTS + 1);
	for (size_t i = 0; i < NPORTS; i++) {
		o = json_object_array_get_idx(a, i);
		assert_string_equal(get_str(o, "type"), "port");
		snprintf(name, sizeof(name), "if%u", by_slot[i]);
		assert_string_equal(get_str(o, "ifname"), name);
		assert_int_equal(get_u64(o, "ifindex"), by_slot[i]);
		assert_string_equal(get_str(o, "master"), "lab0");
		assert_counters(o, slot_of[i]);
	}
	o = json_object_array_get_idx(a, NPORTS);		/* last: the bridge */
	assert_string_equal(get_str(o, "type"), "bridge");
	assert_string_equal(get_str(o, "ifname"), "lab0");
	assert_int_equal(get_u64(o, "learned"), want_sum(XDPBR_CNT_LEARNED));
	assert_int_equal(get_u64(o, "moved"), want_sum(XDPBR_CNT_MOVED));
	assert_int_equal(get_u64(o, "aged"), AGED);
	assert_int_equal(get_u64(o, "flushed"), FLUSHED);
	assert_int_equal(get_u64(o, "learn_limit"), want_sum(XDPBR_CNT_LEARN_LIMIT));
	assert_int_equal(get_u64(o, "events_dropped"), want_sum(XDPBR_CNT_EVENTS_DROPPED));
	assert_int_equal(get_u64(o, "pass_not_port"), want(0, XDPBR_CNT_PASS_NOT_PORT));
	assert_int_equal(get_u64(o, "ageing_time"), AGEING_S);
	assert_int_equal(get_u64(o, "fdb_max_learned"), FDB_MAX);
	assert_int_equal(get_u64(o, "fdb_size"), FDB_SIZE);
	assert_int_equal(get_u64(o, "ports"), NPORTS);
	assert_int_equal(get_u64(get(o, "fdb"), "dynamic_live"), LEARNED_LIVE);
	assert_int_equal(get_u64(get(o, "fdb"), "dynamic"), N_DYNAMIC);
	assert_int_equal(get_u64(get(o, "fdb"), "static"), N_STATIC);
	assert_int_equal(get_u64(get(o, "fdb"), "entries"), N_DYNAMIC + N_STATIC);
	assert_null(json_object_object_get(o, "uptime_s"));	/* not a daemon */
	json_object_put(a);
	report_free(&r);
}

static void test_json_cli_dev(void **state)
{
	struct report r;
	struct json_object *a, *o;

	collect(&r);
	a = report_json_cli(&r, NO_IFINDEX(2));		/* only that port, no bridge */
	assert_int_equal(json_object_array_length(a), 1);
	o = json_object_array_get_idx(a, 0);
	assert_string_equal(get_str(o, "type"), "port");
	assert_int_equal(get_u64(o, "ifindex"), NO_IFINDEX(2));
	assert_counters(o, 2);
	json_object_put(a);

	a = report_json_cli(&r, NO_IFINDEX(99));	/* not a port: nothing */
	assert_int_equal(json_object_array_length(a), 0);
	json_object_put(a);
	report_free(&r);
}

static void test_json_cli_fdb_unknown(void **state)
{
	struct report r = hand_report("br0", -1);
	struct json_object *a, *fdb;

	r.fdb_known = false;
	a = report_json_cli(&r, 0);
	fdb = get(json_object_array_get_idx(a, 2), "fdb");
	assert_int_equal(get_u64(fdb, "dynamic_live"), 3);
	/* figures nobody counted are left out, not shown as 0 */
	assert_null(json_object_object_get(fdb, "entries"));
	assert_null(json_object_object_get(fdb, "dynamic"));
	assert_int_equal(get_u64(json_object_array_get_idx(a, 2), "ageing_time"), 0); /* never */
	json_object_put(a);
}

/* ------------------------------------------------------------ /stats */

static void test_json_doc(void **state)
{
	struct report r;
	struct json_object *doc, *b, *ports, *o;
	char name[IF_NAMESIZE];

	collect(&r);
	r.uptime_s = 42.5;
	doc = report_json_doc(&r);
	assert_int_equal(get_u64(doc, "schema_version"), REPORT_SCHEMA_VERSION);
	assert_int_equal(REPORT_SCHEMA_VERSION, 1);
	b = get(doc, "bridge");
	assert_string_equal(get_str(b, "name"), "lab0");
	assert_int_equal(get_u64(b, "learned"), want_sum(XDPBR_CNT_LEARNED));
	assert_int_equal(get_u64(b, "aged"), AGED);
	assert_int_equal(get_u64(b, "flushed"), FLUSHED);
	assert_int_equal(get_u64(b, "fdb_size"), FDB_SIZE);
	assert_true(json_object_get_double(get(b, "uptime_s")) == 42.5);
	ports = get(doc, "ports");
	assert_true(json_object_is_type(ports, json_type_array));
	assert_int_equal(json_object_array_length(ports), NPORTS);
	for (size_t i = 0; i < NPORTS; i++) {
		o = json_object_array_get_idx(ports, i);
		snprintf(name, sizeof(name), "if%u", by_slot[i]);
		assert_string_equal(get_str(o, "ifname"), name);
		assert_int_equal(get_u64(o, "slot"), slot_of[i]);
		assert_string_equal(get_str(o, "master"), "lab0");
		assert_counters(get(o, "counters"), slot_of[i]);
		/* counters live under "counters" only */
		assert_null(json_object_object_get(o, "rx_packets"));
	}
	json_object_put(doc);
	report_free(&r);
}

/* ------------------------------------------------------------ /metrics */

/* The exposition, parsed: families and samples (label values unescaped,
 * as "name=value,..." in the order given). */
#define MAX_FAMILIES 64
#define MAX_SAMPLES 1024

struct family {
	char name[128];
	char type[16];
	bool help, typed;
	int samples;
};

struct sample {
	char name[128];
	char labels[256];
	double value;
};

struct expo {
	struct family fam[MAX_FAMILIES];
	int nfam;
	struct sample smp[MAX_SAMPLES];
	int nsmp;
};

static char *render(const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_metrics(r, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static struct family *family_of(struct expo *e, const char *name, bool create,
				const char *line)
{
	for (int i = 0; i < e->nfam; i++)
		if (!strcmp(e->fam[i].name, name))
			return &e->fam[i];
	if (!create)
		return NULL;
	if (e->nfam == MAX_FAMILIES)
		fail_msg("too many families at: %s", line);
	snprintf(e->fam[e->nfam].name, sizeof(e->fam[0].name), "%s", name);
	return &e->fam[e->nfam++];
}

static bool name_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' || c == ':' ||
	       (!first && isdigit((unsigned char)c));
}

/* A metric name at *p; advances *p. */
static void parse_name(const char **p, char *out, size_t len, const char *line)
{
	size_t n = 0;

	if (!name_char(**p, true))
		fail_msg("no metric name in: %s", line);
	while (name_char(**p, n == 0)) {
		if (n + 1 >= len)
			fail_msg("name too long in: %s", line);
		out[n++] = *(*p)++;
	}
	out[n] = '\0';
}

/* {name="value",...} at *p (the '{' already passed), unescaping. */
static void parse_labels(const char **p, char *out, size_t len, const char *line)
{
	size_t n = 0;

	out[0] = '\0';
	for (;;) {
		if (!isalpha((unsigned char)**p) && **p != '_')
			fail_msg("bad label name in: %s", line);
		while (isalnum((unsigned char)**p) || **p == '_') {
			if (n + 1 >= len)
				fail_msg("labels too long: %s", line);
			out[n++] = *(*p)++;
		}
		if (*(*p)++ != '=' || *(*p)++ != '"')
			fail_msg("label without =\"value\" in: %s", line);
		out[n++] = '=';
		for (;;) {
			char c = *(*p)++;

			if (c == '\0')
				fail_msg("unterminated label value in: %s", line);
			if (c == '"')
				break;
			if (c == '\\') {
				c = *(*p)++;
				if (c == 'n')
					c = '\n';
				else if (c != '\\' && c != '"')
					fail_msg("bad escape \\%c in: %s", c ? c : '0', line);
			}
			if (n + 2 >= len)
				fail_msg("labels too long: %s", line);
			out[n++] = c;
		}
		if (**p == '}') {
			(*p)++;
			break;
		}
		if (*(*p)++ != ',')
			fail_msg("labels not separated by ',' in: %s", line);
		out[n++] = ',';
	}
	out[n] = '\0';
}

/*
 * Checks the text exposition format 0.0.4 as Prometheus reads it: every
 * line a comment or `name{labels} value`; each family one HELP and one
 * TYPE, both before its samples, which follow as one block; counters named
 * *_total; no family and no series twice; label values escaped.
 */
static void parse_exposition(const char *text, struct expo *e)
{
	char *copy = strdup(text), *save = NULL, *line;
	struct family *cur = NULL;
	size_t len = strlen(text);

	memset(e, 0, sizeof(*e));
	assert_non_null(copy);
	assert_true(len > 0 && text[len - 1] == '\n');		/* ends with a newline */
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *p = line;
		struct sample *s;
		char name[128], *end;

		if (!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7)) {
			bool help = line[2] == 'H';
			struct family *f;

			p += 7;
			parse_name(&p, name, sizeof(name), line);
			if (*p++ != ' ' || !*p)
				fail_msg("no text after the name in: %s", line);
			f = family_of(e, name, true, line);
			if (f->samples)
				fail_msg("%s after the samples of %s", help ? "HELP" : "TYPE", name);
			if (cur != f && (f->help || f->typed))	/* back to an old one */
				fail_msg("family %s is not one block: %s", name, line);
			if (help ? f->help : f->typed)
				fail_msg("second %s for %s", help ? "HELP" : "TYPE", name);
			if (help) {
				f->help = true;
			} else {
				if (strcmp(p, "counter") && strcmp(p, "gauge"))
					fail_msg("type '%s' of %s is neither counter nor gauge", p, name);
				snprintf(f->type, sizeof(f->type), "%s", p);
				f->typed = true;
				if (!strcmp(p, "counter") &&
				    (strlen(name) < 6 || strcmp(name + strlen(name) - 6, "_total")))
					fail_msg("counter %s is not named *_total", name);
			}
			cur = f;
			continue;
		}
		if (line[0] == '#')
			continue;				/* another comment */
		if (e->nsmp == MAX_SAMPLES)
			fail_msg("too many samples");
		s = &e->smp[e->nsmp];
		parse_name(&p, s->name, sizeof(s->name), line);
		if (*p == '{') {
			p++;
			parse_labels(&p, s->labels, sizeof(s->labels), line);
		}
		if (*p++ != ' ')
			fail_msg("no ' value' after the name in: %s", line);
		s->value = strtod(p, &end);
		if (end == p || *end)
			fail_msg("bad value '%s' in: %s", p, line);
		if (!cur || strcmp(cur->name, s->name))
			fail_msg("sample outside its family's block (HELP/TYPE): %s", line);
		if (!cur->help || !cur->typed)
			fail_msg("sample before both HELP and TYPE of %s: %s", cur->name, line);
		for (int i = 0; i < e->nsmp; i++)
			if (!strcmp(e->smp[i].name, s->name) &&
			    !strcmp(e->smp[i].labels, s->labels))
				fail_msg("series twice: %s", line);
		cur->samples++;
		e->nsmp++;
	}
	for (int i = 0; i < e->nfam; i++)
		if (!e->fam[i].help || !e->fam[i].typed || !e->fam[i].samples)
			fail_msg("family %s lacks HELP, TYPE or samples", e->fam[i].name);
	free(copy);
}

static const struct sample *find_sample(const struct expo *e, const char *name,
					const char *labels)
{
	for (int i = 0; i < e->nsmp; i++)
		if (!strcmp(e->smp[i].name, name) && !strcmp(e->smp[i].labels, labels))
			return &e->smp[i];
	fail_msg("no sample %s{%s}", name, labels);
	return NULL;
}

static const struct family *find_family(const struct expo *e, const char *name)
{
	for (int i = 0; i < e->nfam; i++)
		if (!strcmp(e->fam[i].name, name))
			return &e->fam[i];
	fail_msg("no family %s", name);
	return NULL;
}

/* promtool's own check of the text, when it is installed. */
static void promtool_check(const char *text)
{
	FILE *p;
	int st;

	if (access(PROMTOOL, X_OK)) {
		print_message("promtool not installed (%s): its check of /metrics skipped\n",
			      PROMTOOL);
		return;
	}
	p = popen(PROMTOOL " check metrics 1>&2", "w");
	assert_non_null(p);
	fputs(text, p);
	st = pclose(p);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("promtool check metrics failed (status %d) on:\n%s", st, text);
}

static struct expo expo;	/* big: not on the stack */

static void test_metrics_collected(void **state)
{
	struct report r;
	char labels[256], name[128];
	char *text;

	collect(&r);
	text = render(&r);
	parse_exposition(text, &expo);

	for (int c = 0; c < XDPBR_CNT__MAX; c++) {
		const struct family *f;

		if (is_drop_name(counter_names[c]))
			continue;
		snprintf(name, sizeof(name), "xdpbr_%s_total", counter_names[c]);
		f = find_family(&expo, name);
		assert_string_equal(f->type, "counter");
		assert_int_equal(f->samples, NPORTS);
		for (size_t i = 0; i < NPORTS; i++) {
			snprintf(labels, sizeof(labels), "bridge=lab0,port=if%u", by_slot[i]);
			assert_true(find_sample(&expo, name, labels)->value ==
				    (double)want(slot_of[i], c));
		}
	}
	/* the drops: one family, a reason per drop counter */
	assert_int_equal(find_family(&expo, "xdpbr_dropped_total")->samples,
			 NPORTS * n_drop_counters());
	for (int c = 0; c < XDPBR_CNT__MAX; c++) {
		if (!is_drop_name(counter_names[c]))
			continue;
		snprintf(labels, sizeof(labels), "bridge=lab0,port=if%u,reason=%s",
			 by_slot[1], counter_names[c] + 5);
		assert_true(find_sample(&expo, "xdpbr_dropped_total", labels)->value ==
			    (double)want(slot_of[1], c));
	}
	assert_true(find_sample(&expo, "xdpbr_fdb_aged_total", "bridge=lab0")->value == AGED);
	assert_true(find_sample(&expo, "xdpbr_fdb_flushed_total", "bridge=lab0")->value ==
		    FLUSHED);
	assert_true(find_sample(&expo, "xdpbr_fdb_size", "bridge=lab0")->value == FDB_SIZE);
	assert_true(find_sample(&expo, "xdpbr_fdb_dynamic_entries", "bridge=lab0")->value ==
		    LEARNED_LIVE);
	assert_true(find_sample(&expo, "xdpbr_fdb_static_entries", "bridge=lab0")->value ==
		    N_STATIC);
	assert_true(find_sample(&expo, "xdpbr_ageing_time_seconds", "bridge=lab0")->value ==
		    AGEING_S);
	snprintf(labels, sizeof(labels), "bridge=lab0,port=if%u,slot=9,state=disabled,datapath=none",
		 NO_IFINDEX(3));
	assert_true(find_sample(&expo, "xdpbr_port_info", labels)->value == 1);
	promtool_check(text);
	free(text);
	report_free(&r);
}

static void test_metrics_hand_built(void **state)
{
	struct report r = hand_report("a\"b\\c", -1);	/* a"b\c */
	char labels[256];
	char *text;

	text = render(&r);
	if (!strstr(text, "bridge=\"a\\\"b\\\\c\""))
		fail_msg("bridge label not escaped as a\\\"b\\\\c:\n%s", text);
	parse_exposition(text, &expo);
	snprintf(labels, sizeof(labels), "bridge=a\"b\\c,port=if%u", NO_IFINDEX(7));
	assert_true(find_sample(&expo, "xdpbr_forwarded_total", labels)->value ==
		    (double)(XDPBR_CNT_FORWARDED * 10));
	assert_true(find_sample(&expo, "xdpbr_fdb_entries", "bridge=a\"b\\c")->value == 4);
	assert_true(find_sample(&expo, "xdpbr_not_port_frames_total", "bridge=a\"b\\c")->value ==
		    17);
	assert_true(find_sample(&expo, "xdpbr_ageing_time_seconds", "bridge=a\"b\\c")->value ==
		    0);						/* never */
	/* a counter near 2^64 is printed whole, not rounded to a float */
	if (!strstr(text, " 18446744073709551615\n"))
		fail_msg("UINT64_MAX not printed as an integer:\n%s", text);
	free(text);

	/* no ports: the families are still well formed */
	r.nports = 0;
	text = render(&r);
	if (strstr(text, "port=\""))
		fail_msg("a port sample without ports:\n%s", text);
	free(text);
}

/* The daemon's uptime carries the bridge label too: escaped like the rest. */
static void test_metrics_uptime(void **state)
{
	struct report r = hand_report("br0", 3.25);
	char *text;

	text = render(&r);
	parse_exposition(text, &expo);
	assert_true(find_sample(&expo, "xdpbr_daemon_uptime_seconds", "bridge=br0")->value ==
		    3.25);
	assert_string_equal(find_family(&expo, "xdpbr_daemon_uptime_seconds")->type, "gauge");
	promtool_check(text);
	free(text);

	r = hand_report("a\"b\\c", 3.25);
	text = render(&r);
	parse_exposition(text, &expo);
	assert_true(find_sample(&expo, "xdpbr_daemon_uptime_seconds", "bridge=a\"b\\c")->value ==
		    3.25);
	free(text);
}

static void test_metrics_write_error(void **state)
{
	struct report r = hand_report("br0", 1);
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		skip();
	setvbuf(f, NULL, _IONBF, 0);			/* every write fails now */
	assert_int_equal(report_metrics(&r, f), -EIO);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_collect, mock_bpf_fixture),
		cmocka_unit_test_setup(test_collect_fdb_unknown_without_walk, mock_bpf_fixture),
		cmocka_unit_test_setup(test_collect_empty_bridge, mock_bpf_fixture),
		cmocka_unit_test_setup(test_collect_errors, mock_bpf_fixture),
		cmocka_unit_test_setup(test_json_cli, mock_bpf_fixture),
		cmocka_unit_test_setup(test_json_cli_dev, mock_bpf_fixture),
		cmocka_unit_test(test_json_cli_fdb_unknown),
		cmocka_unit_test_setup(test_json_doc, mock_bpf_fixture),
		cmocka_unit_test_setup(test_metrics_collected, mock_bpf_fixture),
		cmocka_unit_test(test_metrics_hand_built),
		cmocka_unit_test(test_metrics_uptime),
		cmocka_unit_test(test_metrics_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, mock_bpf_fixture);
}

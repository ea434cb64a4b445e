// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpbr - inspect and configure a running bridge, in the style of iproute2's
 * `bridge`.
 *
 * Works from the pinned maps only: with or without xdpbrd running. Every
 * change is made live in the maps the datapath reads (through ctl.c).
 * Internal functions print what went wrong for a person and return 0 or
 * -errno; main() maps that to the exit status: 2 for a usage error, 1 for
 * anything else.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bridge.h"
#include "cli.h"
#include "ctl.h"
#include "fdb.h"
#include "json.h"
#include "log.h"
#include "maps.h"
#include "ports.h"
#include "stats.h"
#include "util.h"

/* The bridge to work on: -b, or the only one pinned. 0 or -errno. */
static int pick_bridge(const char *want, char *out, size_t len)
{
	char names[512] = "";
	struct dirent *de;
	size_t used = 0;
	int n = 0;
	DIR *d;

	if (want) {
		snprintf(out, len, "%s", want);
		return 0;
	}
	d = opendir(XDPBR_PIN_ROOT);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || bridge_name_valid(de->d_name))
			continue;
		/* bridge_name_valid() bounds the name to 15 characters */
		if (!n++ && strlen(de->d_name) < len)
			memcpy(out, de->d_name, strlen(de->d_name) + 1);
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used,
						 " %s", de->d_name);
	}
	if (d)
		closedir(d);
	if (n == 0) {
		fprintf(stderr, "xdpbr: no bridge found in %s (is xdpbrd running?)\n",
			XDPBR_PIN_ROOT);
		return -ENOENT;
	}
	if (n > 1) {
		fprintf(stderr, "xdpbr: several bridges:%s; choose one with -b BRIDGE\n", names);
		return -EINVAL;
	}
	return 0;
}

/* What the command works on: the bridge's name and its pinned maps. */
struct target {
	const char *br;
	struct xdpbr_maps m;
};

/* Prints "xdpbr: <message>" and returns err. */
static int report(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int report(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("xdpbr: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return err;
}

/* A hint for errors every command can meet. */
static const char *hint(int err)
{
	switch (err) {
	case -EPERM:
	case -EACCES:
		return " (run as root)";
	default:
		return "";
	}
}

static void print_json(struct json_object *o, const struct cli_cmd *c)
{
	int flags = c->pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN;

	puts(json_object_to_json_string_ext(o, flags | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* dev DEV -> ifindex (0: no dev given). */
static int dev_ifindex(const struct cli_cmd *c, uint32_t *ifindex)
{
	*ifindex = 0;
	if (!c->dev)
		return 0;
	*ifindex = if_nametoindex(c->dev);
	if (!*ifindex)
		return report(-ENODEV, "unknown interface '%s' (see 'ip link show')", c->dev);
	return 0;
}

/* The message for an operation on DEV that needs DEV to be a port. */
static int port_error(int err, const struct cli_cmd *c, const struct target *t,
		      const char *what)
{
	if (err == -ENODEV)
		return report(err, "'%s' is not a port of bridge %s (add it with "
			      "'xdpbr link add dev %s master %s')", c->dev, t->br, c->dev, t->br);
	return report(err, "can't %s '%s': %s%s", what, c->dev, strerror(-err), hint(err));
}

/* ------------------------------------------------------------ bridge */

/* The ageing time as the user sets it: seconds, 0 = never. */
static uint64_t ageing_s(const struct xdpbr_config *cfg)
{
	if (cfg->ageing_ns == XDPBR_AGEING_NEVER)
		return 0;
	if (cfg->ageing_ns == 0)
		return XDPBR_DEFAULT_AGEING_S;
	return cfg->ageing_ns / XDPBR_NSEC_PER_SEC;
}

static int do_bridge_show(const struct cli_cmd *c, struct target *t)
{
	struct bpf_map_info mi = {};
	__u32 mlen = sizeof(mi);
	struct xdpbr_config cfg;
	struct fdb_entry *e = NULL;
	struct port_entry *p = NULL;
	size_t ne = 0, np = 0, nstatic = 0;
	uint64_t learned = 0;
	struct json_object *o;
	int err;

	err = ctl_config_get(&t->m, &cfg);
	if (!err && bpf_obj_get_info_by_fd(t->m.fdb, &mi, &mlen))
		err = -errno;
	if (!err)
		err = fdb_dump(t->m.fdb, &e, &ne);
	if (!err)
		err = ctl_learned_get(&t->m, XDPBR_LEARNED_TOTAL, &learned);
	if (!err)
		err = ports_dump(t->m.ports, &p, &np);
	if (err) {
		free(e);
		return report(err, "can't read bridge %s: %s%s", t->br, strerror(-err), hint(err));
	}
	for (size_t i = 0; i < ne; i++)
		nstatic += !!(e[i].val.flags & XDPBR_FDB_STATIC);
	free(e);
	free(p);

	o = json_object_new_object();
	json_object_object_add(o, "ifname", json_object_new_string(t->br));
	json_object_object_add(o, "ageing_time", json_object_new_uint64(ageing_s(&cfg)));
	json_object_object_add(o, "fdb_max_learned", json_object_new_uint64(cfg.fdb_max_learned));
	json_object_object_add(o, "fdb_size", json_object_new_uint64(mi.max_entries));
	json_object_object_add(o, "fdb_entries", json_object_new_uint64(ne));
	json_object_object_add(o, "fdb_dynamic", json_object_new_uint64(ne - nstatic));
	json_object_object_add(o, "fdb_static", json_object_new_uint64(nstatic));
	json_object_object_add(o, "learned", json_object_new_uint64(learned));
	json_object_object_add(o, "ports", json_object_new_uint64(np));
	if (c->json) {
		struct json_object *arr = json_object_new_array();

		json_object_array_add(arr, o);
		print_json(arr, c);
		json_object_put(arr);
		return 0;
	}
	printf("%s:", t->br);
	json_object_object_foreach(o, k, v)
		if (strcmp(k, "ifname"))
			printf(" %s %s", k, json_object_get_string(v));
	putchar('\n');
	json_object_put(o);
	return 0;
}

static int do_bridge_set(const struct cli_cmd *c, struct target *t)
{
	struct xdpbr_config cfg;
	int err;

	err = ctl_config_get(&t->m, &cfg);
	if (!err) {
		if (c->seen & KW_AGEING)
			cfg.ageing_ns = c->ageing_ns;
		if (c->seen & KW_FDB_MAX)
			cfg.fdb_max_learned = c->fdb_max_learned;
		err = ctl_config_set(&t->m, &cfg);
	}
	if (err)
		return report(err, "can't configure bridge %s: %s%s", t->br, strerror(-err),
			      hint(err));
	return 0;
}

/* ------------------------------------------------------------ fdb */

static bool fdb_wanted(const struct fdb_entry *e, uint32_t dev, const struct cli_cmd *c)
{
	bool is_static = e->val.flags & XDPBR_FDB_STATIC;

	return (!dev || e->val.ifindex == dev) &&
	       (c->vlan < 0 || e->key.vlan == c->vlan) &&
	       (c->kind != FDB_KIND_STATIC || is_static) &&
	       (c->kind != FDB_KIND_DYNAMIC || !is_static);
}

static int do_fdb_show(const struct cli_cmd *c, struct target *t)
{
	struct fdb_entry *e;
	size_t n, k = 0;
	uint32_t dev;
	uint64_t now = mono_ns();
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = fdb_dump(t->m.fdb, &e, &n);
	if (err)
		return report(err, "can't read the FDB: %s%s", strerror(-err), hint(err));
	for (size_t i = 0; i < n; i++)		/* filter in place */
		if (fdb_wanted(&e[i], dev, c))
			e[k++] = e[i];
	if (c->json) {
		struct json_object *o = json_fdb(e, k, t->br, now);

		print_json(o, c);
		json_object_put(o);
	} else {
		char mac[MAC_STRLEN], ifname[IF_NAMESIZE];

		for (size_t i = 0; i < k; i++)
			printf("%s dev %s vlan %u master %s%s updated %llu\n",
			       mac_format(e[i].key.mac, mac),
			       ifname_of(e[i].val.ifindex, ifname), e[i].key.vlan, t->br,
			       e[i].val.flags & XDPBR_FDB_STATIC ? " static" : "",
			       (unsigned long long)fdb_updated_s(&e[i].val, now));
	}
	free(e);
	return 0;
}

static int do_fdb_add(const struct cli_cmd *c, struct target *t)
{
	char mac[MAC_STRLEN];
	uint32_t dev;
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = ctl_fdb_add(&t->m, c->mac, c->vlan < 0 ? 0 : (uint16_t)c->vlan, dev,
			  c->kind != FDB_KIND_DYNAMIC);
	if (err == -E2BIG || err == -ENOSPC)
		return report(err, "can't add %s: the FDB of bridge %s is full (see 'xdpbr "
			      "bridge show'; flush dynamic entries with 'xdpbr fdb flush dynamic')",
			      mac_format(c->mac, mac), t->br);
	if (err)
		return port_error(err, c, t, "add an FDB entry on");
	return 0;
}

/* " dev DEV vlan VID" of the filters given, for messages. */
static const char *filter_text(const struct cli_cmd *c, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s%s", c->dev ? " dev " : "", c->dev ? c->dev : "");

	if (c->vlan >= 0 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " vlan %d", c->vlan);
	return buf;
}

static int do_fdb_del(const struct cli_cmd *c, struct target *t)
{
	struct fdb_filter f = { .vlan = c->vlan, .kind = FDB_KIND_ANY };
	char mac[MAC_STRLEN], what[64];
	int n;

	n = dev_ifindex(c, &f.ifindex);
	if (n)
		return n;
	n = ctl_fdb_del(&t->m, c->mac, &f);
	if (n == -ENOENT)
		return report(n, "no such entry: %s%s in bridge %s (see 'xdpbr fdb show')",
			      mac_format(c->mac, mac), filter_text(c, what, sizeof(what)), t->br);
	if (n < 0)
		return report(n, "can't delete %s: %s%s", mac_format(c->mac, mac),
			      strerror(-n), hint(n));
	return 0;
}

static int do_fdb_flush(const struct cli_cmd *c, struct target *t)
{
	struct fdb_filter f = { .vlan = c->vlan, .kind = c->kind };
	int n;

	n = dev_ifindex(c, &f.ifindex);
	if (n)
		return n;
	n = ctl_fdb_flush(&t->m, &f);
	if (n < 0)
		return report(n, "can't flush the FDB of bridge %s: %s%s", t->br,
			      strerror(-n), hint(n));
	if (c->json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "flushed", json_object_new_int(n));
		print_json(o, c);
		json_object_put(o);
	} else {
		printf("flushed %d entries\n", n);
	}
	return 0;
}

/* ------------------------------------------------------------ link */

static const char *onoff(struct json_object *o, const char *k)
{
	return json_object_get_boolean(json_object_object_get(o, k)) ? "on" : "off";
}

static int do_link_show(const struct cli_cmd *c, struct target *t)
{
	struct json_object *arr;
	struct port_entry *p;
	uint32_t dev;
	size_t n;
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = ports_dump(t->m.ports, &p, &n);
	if (err)
		return report(err, "can't read the ports of bridge %s: %s%s", t->br,
			      strerror(-err), hint(err));
	arr = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		if (!dev || p[i].ifindex == dev)
			json_object_array_add(arr, json_port(&p[i], t->br));
	if (c->json) {
		print_json(arr, c);
	} else {
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			struct json_object *o = json_object_array_get_idx(arr, i);
			struct json_object *fl = json_object_object_get(o, "flags");
#define S(k) json_object_get_string(json_object_object_get(o, k))
#define U(k) (unsigned long long)json_object_get_uint64(json_object_object_get(o, k))
			printf("%llu: %s: <", U("ifindex"), S("ifname"));
			for (size_t f = 0; f < json_object_array_length(fl); f++)
				printf("%s%s", f ? "," : "",
				       json_object_get_string(json_object_array_get_idx(fl, f)));
			printf("> mtu %llu master %s state %s xdp %s",
			       U("mtu"), S("master"), S("state"), S("xdp_mode"));
			if (U("xdp_prog_id"))
				printf(" id %llu", U("xdp_prog_id"));
			printf(" learning %s flood %s mcast_flood %s bcast_flood %s"
			       " isolated %s hairpin %s max_learned %llu\n",
			       onoff(o, "learning"), onoff(o, "flood"),
			       onoff(o, "mcast_flood"), onoff(o, "bcast_flood"),
			       onoff(o, "isolated"), onoff(o, "hairpin"), U("max_learned"));
#undef S
#undef U
		}
	}
	json_object_put(arr);
	free(p);
	return 0;
}

static int do_link_set(const struct cli_cmd *c, struct target *t)
{
	struct xdpbr_port p;
	char path[PATH_MAX];
	uint32_t dev;
	int err, egress;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = ctl_port_get(&t->m, dev, &p);
	if (err)
		return port_error(err, c, t, "configure");
	err = pin_path(path, sizeof(path), t->br, XDPBR_PIN_PROG_EGRESS);
	if (err)
		return report(err, "bridge name '%s' too long", t->br);
	egress = bpf_obj_get(path);
	if (egress < 0) {
		err = -errno;
		return report(err, "can't open the egress program of bridge %s at %s: %s%s",
			      t->br, path, strerror(-err), hint(err));
	}
	p.flags = (p.flags | c->flags_set) & ~c->flags_clear;
	if (c->seen & KW_MAX_LEARNED)
		p.max_learned = c->max_learned;
	err = ctl_port_apply(&t->m, dev, &p, egress);
	close(egress);
	if (err)
		return port_error(err, c, t, "configure");
	return 0;
}

static int do_link_add(const struct cli_cmd *c, struct target *t)
{
	struct bridge br;
	uint32_t dev;
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = bridge_open_pinned(&br, t->br);
	if (err)
		return report(err, "can't open bridge %s: %s%s", t->br, strerror(-err), hint(err));
	br.mode = c->mode;
	err = bridge_add_port(&br, c->dev);	/* logs the reason of a failure */
	bridge_close_pinned(&br);
	if (err)
		return report(err, "couldn't add '%s' to bridge %s: %s", c->dev, t->br,
			      strerror(-err));
	return 0;
}

static int do_link_del(const struct cli_cmd *c, struct target *t)
{
	struct xdpbr_port p;
	struct bridge br;
	uint32_t dev;
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = ctl_port_get(&t->m, dev, &p);	/* checked here for the CLI's message */
	if (err)
		return port_error(err, c, t, "remove");
	err = bridge_open_pinned(&br, t->br);
	if (err)
		return report(err, "can't open bridge %s: %s%s", t->br, strerror(-err), hint(err));
	err = bridge_del_port(&br, c->dev);
	bridge_close_pinned(&br);
	if (err)
		return report(err, "couldn't remove '%s' from bridge %s: %s%s", c->dev, t->br,
			      strerror(-err), hint(err));
	return 0;
}

/* ------------------------------------------------------------ stats */

static int do_stats(const struct cli_cmd *c, struct target *t)
{
	struct json_object *arr = json_object_new_array();
	struct xdpbr_stats *s = NULL;
	struct port_entry *p = NULL;
	char ifname[IF_NAMESIZE];
	uint32_t dev;
	size_t n = 0, k = 0;
	int err;

	err = dev_ifindex(c, &dev);
	if (err) {
		json_object_put(arr);
		return err;
	}
	err = ports_dump(t->m.ports, &p, &n);
	if (!err && !(s = calloc(n + 1, sizeof(*s))))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < n; i++) {
		if (dev && p[i].ifindex != dev)
			continue;
		err = stats_read(t->m.stats, p[i].port.slot, &s[k]);
		if (!err)
			json_object_array_add(arr, json_port_stats(&p[i], &s[k]));
		p[k++] = p[i];
	}
	if (err) {
		report(err, "can't read counters: %s%s", strerror(-err), hint(err));
		goto out;
	}
	if (c->json) {
		print_json(arr, c);
		goto out;
	}
	printf("%-15s %12s %14s %12s %14s %10s %10s %10s %10s\n", "port",
	       "rx_packets", "rx_bytes", "tx_packets", "tx_bytes",
	       "forwarded", "flooded", "passed", "dropped");
	for (size_t i = 0; i < k; i++) {
		const __u64 *v = s[i].c;
		uint64_t dropped = 0;

		for (int d = XDPBR_CNT_DROP_RUNT; d <= XDPBR_CNT_DROP_REDIRECT; d++)
			dropped += v[d];
		printf("%-15s %12llu %14llu %12llu %14llu %10llu %10llu %10llu %10llu\n",
		       ifname_of(p[i].ifindex, ifname),
		       (unsigned long long)v[XDPBR_CNT_RX_PACKETS],
		       (unsigned long long)v[XDPBR_CNT_RX_BYTES],
		       (unsigned long long)v[XDPBR_CNT_TX_PACKETS],
		       (unsigned long long)v[XDPBR_CNT_TX_BYTES],
		       (unsigned long long)v[XDPBR_CNT_FORWARDED],
		       (unsigned long long)(v[XDPBR_CNT_FLOOD_BCAST] + v[XDPBR_CNT_FLOOD_MCAST] +
					    v[XDPBR_CNT_FLOOD_UNKNOWN]),
		       (unsigned long long)(v[XDPBR_CNT_PASS_LINKLOCAL] + v[XDPBR_CNT_PASS_NOT_PORT]),
		       (unsigned long long)dropped);
	}
	/* Non-zero detail counters, one line per port, like `ip -s -s`. */
	for (size_t i = 0; i < k; i++) {
		bool any = false;

		for (int d = XDPBR_CNT_FORWARDED + 1; d < XDPBR_CNT__MAX; d++) {
			if (!s[i].c[d])
				continue;
			if (!any)
				printf("%s:", ifname_of(p[i].ifindex, ifname));
			any = true;
			printf(" %s %llu", counter_names[d], (unsigned long long)s[i].c[d]);
		}
		if (any)
			putchar('\n');
	}
out:
	json_object_put(arr);
	free(s);
	free(p);
	return err;
}

/* ------------------------------------------------------------ main */

static const struct {
	enum cli_object obj;
	enum cli_verb verb;
	int (*run)(const struct cli_cmd *c, struct target *t);
} handlers[] = {
	{ OBJ_BRIDGE, VERB_SHOW, do_bridge_show },
	{ OBJ_BRIDGE, VERB_SET, do_bridge_set },
	{ OBJ_LINK, VERB_SHOW, do_link_show },
	{ OBJ_LINK, VERB_SET, do_link_set },
	{ OBJ_LINK, VERB_ADD, do_link_add },
	{ OBJ_LINK, VERB_DEL, do_link_del },
	{ OBJ_FDB, VERB_SHOW, do_fdb_show },
	{ OBJ_FDB, VERB_ADD, do_fdb_add },
	{ OBJ_FDB, VERB_DEL, do_fdb_del },
	{ OBJ_FDB, VERB_FLUSH, do_fdb_flush },
	{ OBJ_STATS, VERB_SHOW, do_stats },
};

static int run(const struct cli_cmd *c)
{
	char br[IF_NAMESIZE];
	struct target t = { .br = br };
	int err;

	/* link add names its bridge with master (cli_parse() checked -b agrees) */
	err = pick_bridge(c->master ? c->master : c->bridge, br, sizeof(br));
	if (err)
		return err;
	err = maps_open_pinned(br, &t.m);
	if (err)
		return report(err, "can't open bridge '%s' in %s/%s: %s%s", br, XDPBR_PIN_ROOT,
			      br, strerror(-err), err == -ENOENT ? " (is xdpbrd running?)" :
			      hint(err));
	err = -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(handlers); i++)
		if (handlers[i].obj == c->object && handlers[i].verb == c->verb)
			err = handlers[i].run(c, &t);
	maps_close(&t.m);
	return err;
}

int main(int argc, char **argv)
{
	char err[256];
	struct cli_cmd c;

	log_init("xdpbr", LOG_LVL_WARN, false);
	log_libbpf();
	if (cli_parse(argc, argv, &c, err, sizeof(err))) {
		fprintf(stderr, "xdpbr: %s\n", err);
		return 2;
	}
	if (c.object == OBJ_HELP) {
		fputs(cli_usage(OBJ_NONE, VERB_HELP), stdout);
		return 0;
	}
	if (c.verb == VERB_HELP || c.help) {
		fputs(cli_usage(c.object, c.verb), stdout);
		return 0;
	}
	return run(&c) ? 1 : 0;
}

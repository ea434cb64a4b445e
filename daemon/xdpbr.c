// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpbr - inspect a running bridge, in the style of iproute2's `bridge`.
 *
 * Works from the pinned maps only: with or without xdpbrd running.
 */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "cli.h"
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

static void print_json(struct json_object *o, const struct cli_cmd *c)
{
	puts(json_object_to_json_string_ext(o, c->pretty ? JSON_C_TO_STRING_PRETTY
							   : JSON_C_TO_STRING_PLAIN));
}

/* dev DEV filter -> ifindex (0: no filter). */
static int dev_filter(const struct cli_cmd *c, uint32_t *ifindex)
{
	*ifindex = 0;
	if (!c->dev)
		return 0;
	*ifindex = if_nametoindex(c->dev);
	if (!*ifindex) {
		fprintf(stderr, "xdpbr: unknown interface '%s'\n", c->dev);
		return -ENODEV;
	}
	return 0;
}

static int do_fdb(const struct cli_cmd *c, const char *br, struct xdpbr_maps *m)
{
	struct fdb_entry *e;
	size_t n, k = 0;
	uint32_t dev;
	uint64_t now = mono_ns();
	int err;

	err = dev_filter(c, &dev);
	if (err)
		return err;
	err = fdb_dump(m->fdb, &e, &n);
	if (err) {
		fprintf(stderr, "xdpbr: can't read the FDB: %s\n", strerror(-err));
		return err;
	}
	for (size_t i = 0; i < n; i++)		/* filter in place */
		if ((!dev || e[i].val.ifindex == dev) &&
		    (c->vlan < 0 || e[i].key.vlan == c->vlan))
			e[k++] = e[i];
	if (c->json) {
		struct json_object *o = json_fdb(e, k, br, now);

		print_json(o, c);
		json_object_put(o);
	} else {
		char mac[MAC_STRLEN], ifname[IF_NAMESIZE];

		for (size_t i = 0; i < k; i++)
			printf("%s dev %s vlan %u master %s%s updated %llu\n",
			       mac_format(e[i].key.mac, mac),
			       ifname_of(e[i].val.ifindex, ifname), e[i].key.vlan, br,
			       e[i].val.flags & XDPBR_FDB_STATIC ? " static" : "",
			       (unsigned long long)fdb_updated_s(&e[i].val, now));
	}
	free(e);
	return 0;
}

static const char *onoff(struct json_object *o, const char *k)
{
	return json_object_get_boolean(json_object_object_get(o, k)) ? "on" : "off";
}

static int do_link(const struct cli_cmd *c, const char *br, struct xdpbr_maps *m)
{
	struct json_object *arr = json_object_new_array();
	struct port_entry *p;
	uint32_t dev;
	size_t n;
	int err;

	err = dev_filter(c, &dev);
	if (!err)
		err = ports_dump(m->ports, &p, &n);
	if (err) {
		json_object_put(arr);
		return err;
	}
	for (size_t i = 0; i < n; i++)
		if (!dev || p[i].ifindex == dev)
			json_object_array_add(arr, json_port(&p[i], br));
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
			printf(" learning %s flood %s mcast_flood %s bcast_flood %s\n",
			       onoff(o, "learning"), onoff(o, "flood"),
			       onoff(o, "mcast_flood"), onoff(o, "bcast_flood"));
#undef S
#undef U
		}
	}
	json_object_put(arr);
	free(p);
	return 0;
}

static int do_stats(const struct cli_cmd *c, const char *br, struct xdpbr_maps *m)
{
	struct json_object *arr = json_object_new_array();
	struct xdpbr_stats *s = NULL;
	struct port_entry *p;
	char ifname[IF_NAMESIZE];
	uint32_t dev;
	size_t n = 0, k = 0;
	int err;

	err = dev_filter(c, &dev);
	if (!err)
		err = ports_dump(m->ports, &p, &n);
	if (!err && !(s = calloc(n + 1, sizeof(*s))))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < n; i++) {
		if (dev && p[i].ifindex != dev)
			continue;
		err = stats_read(m->stats, p[i].port.slot, &s[k]);
		if (!err)
			json_object_array_add(arr, json_port_stats(&p[i], &s[k]));
		p[k++] = p[i];
	}
	if (err) {
		fprintf(stderr, "xdpbr: can't read counters: %s\n", strerror(-err));
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

int main(int argc, char **argv)
{
	char err[256], br[IF_NAMESIZE];
	struct xdpbr_maps m;
	struct cli_cmd c;
	int ret;

	log_init("xdpbr", LOG_LVL_WARN, false);
	log_libbpf();
	if (cli_parse(argc, argv, &c, err, sizeof(err))) {
		fprintf(stderr, "xdpbr: %s\n", err);
		return 2;
	}
	if (c.object == OBJ_HELP || c.verb == VERB_HELP) {
		fputs(cli_usage(c.object == OBJ_HELP ? OBJ_NONE : c.object), stdout);
		return 0;
	}
	if (pick_bridge(c.bridge, br, sizeof(br)))
		return 1;
	ret = maps_open_pinned(br, &m);
	if (ret) {
		fprintf(stderr, "xdpbr: can't open bridge '%s' in %s/%s: %s%s\n", br,
			XDPBR_PIN_ROOT, br, strerror(-ret),
			ret == -EPERM || ret == -EACCES ? " (run as root)" : "");
		return 1;
	}
	switch (c.object) {
	case OBJ_FDB:
		ret = do_fdb(&c, br, &m);
		break;
	case OBJ_LINK:
		ret = do_link(&c, br, &m);
		break;
	case OBJ_STATS:
		ret = do_stats(&c, br, &m);
		break;
	default:
		ret = -EINVAL;
	}
	maps_close(&m);
	return ret ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpbr - inspect and configure a running bridge, in the style of iproute2's
 * `bridge`.
 *
 * Works from the pinned maps only: with or without xdpbrd running. Every
 * change is made live in the maps the datapath reads (through ctl.c). The
 * one exception is `monitor`, which reads the daemon's event stream.
 * Internal functions print what went wrong for a person and return 0 or
 * -errno; main() maps that to the exit status: 2 for a usage error, 1 for
 * anything else.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bridge.h"
#include "cli.h"
#include "ctl.h"
#include "events.h"
#include "fdbtab.h"
#include "json.h"
#include "log.h"
#include "pins.h"
#include "ports.h"
#include "portstats.h"
#include "report.h"
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
	fflush(stdout);		/* a reader at the other end of a pipe sees it now */
}

/* ------------------------------------------------------------ signals */

/* The commands that wait (monitor, stats rate) end cleanly on SIGINT or
 * SIGTERM. The handler only sets this flag; the signals stay blocked but
 * inside ppoll(), so none slips in between a check of the flag and a wait. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = 1;
}

/* Installs the handler; *waitmask is the mask to wait with. */
static void catch_signals(sigset_t *waitmask)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Sleeps until the CLOCK_MONOTONIC time deadline (ns). 0, or -EINTR when
 * interrupted by SIGINT or SIGTERM. */
static int sleep_until(uint64_t deadline, const sigset_t *waitmask)
{
	uint64_t now;

	while (!interrupted && (now = mono_ns()) < deadline) {
		uint64_t left = deadline - now;
		struct timespec ts = {
			.tv_sec = (time_t)(left / XDPBR_NSEC_PER_SEC),
			.tv_nsec = (long)(left % XDPBR_NSEC_PER_SEC),
		};

		ppoll(NULL, 0, &ts, waitmask);
	}
	return interrupted ? -EINTR : 0;
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

/* Opens the bridge's devmap egress program (for the flood sets that
 * ctl_port_apply() rewrites): a descriptor, or -errno with a message. */
static int open_egress(const struct target *t)
{
	char path[PATH_MAX];
	int fd, err;

	err = pin_path(path, sizeof(path), t->br, XDPBR_PIN_PROG_EGRESS);
	if (err)
		return report(err, "bridge name '%s' too long", t->br);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		err = -errno;
		return report(err, "can't open the egress program of bridge %s at %s: %s%s",
			      t->br, path, strerror(-err), hint(err));
	}
	return fd;
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
	json_object_object_add(o, "vlan_filtering",
			       json_object_new_boolean(cfg.flags & XDPBR_CFG_VLAN_FILTERING));
	json_object_object_add(o, "default_pvid",
			       json_object_new_uint64(ctl_default_pvid(&cfg)));
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
			printf(" %s %s", k, json_object_is_type(v, json_type_boolean) ?
			       (json_object_get_boolean(v) ? "on" : "off") :
			       json_object_get_string(v));
	putchar('\n');
	json_object_put(o);
	return 0;
}

/*
 * The knobs in the config map, then the default PVID, then vlan_filtering
 * on: like the kernel bridge, the default PVID changes only while VLAN
 * filtering is off, so `vlan_filtering off default_pvid N` turns it off
 * first and `vlan_filtering on default_pvid N` turns it on last.
 */
static int do_bridge_set(const struct cli_cmd *c, struct target *t)
{
	bool pvid_change, filtering;
	struct xdpbr_config cfg;
	int err, egress;

	err = ctl_config_get(&t->m, &cfg);
	if (err)
		return report(err, "can't read the settings of bridge %s: %s%s", t->br,
			      strerror(-err), hint(err));
	filtering = cfg.flags & XDPBR_CFG_VLAN_FILTERING;
	pvid_change = (c->seen & KW_DEFAULT_PVID) && c->default_pvid != ctl_default_pvid(&cfg);
	if (pvid_change && filtering && !((c->seen & KW_VLAN_FILTERING) && !c->vlan_filtering))
		return report(-EBUSY, "can't change the default_pvid of bridge %s while "
			      "vlan_filtering is on (as with the kernel bridge); use "
			      "'xdpbr bridge set vlan_filtering off default_pvid %u', then "
			      "'vlan_filtering on'", t->br, c->default_pvid);
	if (c->seen & KW_AGEING)
		cfg.ageing_ns = c->ageing_ns;
	if (c->seen & KW_FDB_MAX)
		cfg.fdb_max_learned = c->fdb_max_learned;
	if ((c->seen & KW_VLAN_FILTERING) && !c->vlan_filtering)
		cfg.flags &= ~XDPBR_CFG_VLAN_FILTERING;
	err = ctl_config_set(&t->m, &cfg);
	if (err)
		return report(err, "can't configure bridge %s: %s%s", t->br, strerror(-err),
			      hint(err));
	if (pvid_change) {
		egress = open_egress(t);
		if (egress < 0)
			return egress;
		err = ctl_set_default_pvid(&t->m, c->default_pvid, egress);
		close(egress);
		if (err)
			return report(err, "can't set the default_pvid of bridge %s: %s%s",
				      t->br, strerror(-err), hint(err));
	}
	if ((c->seen & KW_VLAN_FILTERING) && c->vlan_filtering) {
		err = ctl_vlan_filtering(&t->m, true);
		if (err)
			return report(err, "can't turn on vlan_filtering of bridge %s: %s%s",
				      t->br, strerror(-err), hint(err));
	}
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

/* "storm": {"broadcast": N, "multicast": N, "unknown": N}, the configured
 * limits (frames per second, 0 = none), added to a port's object. */
static int add_storm(struct json_object *o, const struct target *t, uint32_t ifindex)
{
	static const char *const names[XDPBR_STORM__MAX] = {
		[XDPBR_STORM_BCAST] = "broadcast",
		[XDPBR_STORM_MCAST] = "multicast",
		[XDPBR_STORM_UNKNOWN] = "unknown",
	};
	struct xdpbr_storm st = { 0 };
	struct json_object *so;
	int err = ctl_storm_get(&t->m, ifindex, &st);

	if (err && err != -ENODEV)	/* ENODEV: removed since the dump */
		return err;
	so = json_object_new_object();
	for (int cls = 0; cls < XDPBR_STORM__MAX; cls++)
		json_object_object_add(so, names[cls], json_object_new_uint64(st.pps[cls]));
	json_object_object_add(o, "storm", so);
	return 0;
}

/* For a show command: the port its 'dev' names (0: all), and the bridge's
 * ports. 0 or the reported error. */
static int shown_ports(const struct cli_cmd *c, struct target *t, uint32_t *dev,
		       struct port_entry **p, size_t *n)
{
	int err = dev_ifindex(c, dev);

	if (err)
		return err;
	err = ports_dump(t->m.ports, p, n);
	if (err)
		return report(err, "can't read the ports of bridge %s: %s%s", t->br,
			      strerror(-err), hint(err));
	return 0;
}

static int do_link_show(const struct cli_cmd *c, struct target *t)
{
	struct json_object *arr;
	struct port_entry *p;
	uint32_t dev;
	size_t n;
	int err;

	err = shown_ports(c, t, &dev, &p, &n);
	if (err)
		return err;
	arr = json_object_new_array();
	for (size_t i = 0; i < n && !err; i++) {
		struct json_object *o;

		if (dev && p[i].ifindex != dev)
			continue;
		o = json_port(&p[i], t->br);
		json_object_array_add(arr, o);
		err = add_storm(o, t, p[i].ifindex);
	}
	if (err) {
		json_object_put(arr);
		free(p);
		return report(err, "can't read the storm control limits of bridge %s: %s%s",
			      t->br, strerror(-err), hint(err));
	}
	if (c->json) {
		print_json(arr, c);
	} else {
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			struct json_object *o = json_object_array_get_idx(arr, i);
			struct json_object *fl = json_object_object_get(o, "flags");
			struct json_object *so = json_object_object_get(o, "storm");
#define S(k) json_object_get_string(json_object_object_get(o, k))
#define U(k) (unsigned long long)json_object_get_uint64(json_object_object_get(o, k))
#define SU(k) (unsigned long long)json_object_get_uint64(json_object_object_get(so, k))
			printf("%llu: %s: <", U("ifindex"), S("ifname"));
			for (size_t f = 0; f < json_object_array_length(fl); f++)
				printf("%s%s", f ? "," : "",
				       json_object_get_string(json_object_array_get_idx(fl, f)));
			printf("> mtu %llu master %s state %s kind %s datapath %s xdp %s",
			       U("mtu"), S("master"), S("state"), S("kind"), S("datapath"),
			       S("xdp_mode"));
			if (U("xdp_prog_id"))
				printf(" id %llu", U("xdp_prog_id"));
			printf(" learning %s flood %s mcast_flood %s bcast_flood %s"
			       " isolated %s hairpin %s max_learned %llu pvid %llu",
			       onoff(o, "learning"), onoff(o, "flood"),
			       onoff(o, "mcast_flood"), onoff(o, "bcast_flood"),
			       onoff(o, "isolated"), onoff(o, "hairpin"), U("max_learned"),
			       U("pvid"));
			/* storm limits only where there are some */
			if (SU("broadcast") || SU("multicast") || SU("unknown"))
				printf(" storm bcast %llu mcast %llu unknown %llu",
				       SU("broadcast"), SU("multicast"), SU("unknown"));
			putchar('\n');
#undef S
#undef U
#undef SU
		}
	}
	json_object_put(arr);
	free(p);
	return 0;
}

static int do_link_set(const struct cli_cmd *c, struct target *t)
{
	struct xdpbr_port p;
	uint32_t dev;
	int err, egress;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = ctl_port_get(&t->m, dev, &p);
	if (err)
		return port_error(err, c, t, "configure");
	if ((c->flags_set | c->flags_clear) || (c->seen & KW_MAX_LEARNED)) {
		egress = open_egress(t);
		if (egress < 0)
			return egress;
		p.flags = (p.flags | c->flags_set) & ~c->flags_clear;
		if (c->seen & KW_MAX_LEARNED)
			p.max_learned = c->max_learned;
		err = ctl_port_apply(&t->m, dev, &p, egress);
		close(egress);
		if (err)
			return port_error(err, c, t, "configure");
	}
	if (c->seen & KW_STORM) {
		struct xdpbr_storm st;
		uint32_t pps[XDPBR_STORM__MAX];

		/* the classes not given keep their limits */
		err = ctl_storm_get(&t->m, dev, &st);
		for (int cls = 0; !err && cls < XDPBR_STORM__MAX; cls++)
			pps[cls] = c->storm_set & (1U << cls) ? c->storm[cls] : st.pps[cls];
		if (!err)
			err = ctl_storm_set(&t->m, dev, pps);
		if (err)
			return port_error(err, c, t, "set the storm control limits of");
	}
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

/* ------------------------------------------------------------ vlan */

static bool vlan_member(const struct xdpbr_vlan_port *v, unsigned int vid)
{
	return (v->member[vid / 64] >> (vid % 64)) & 1;
}

/* "VID" or "VID-VID" of vid, for messages. */
static const char *vid_text(const struct cli_cmd *c, char *buf, size_t len)
{
	if (c->vid_from == c->vid_to)
		snprintf(buf, len, "%u", c->vid_from);
	else
		snprintf(buf, len, "%u-%u", c->vid_from, c->vid_to);
	return buf;
}

/* The text of `bridge vlan show`: a header, then a port's name on the line
 * of its first VLAN (range), the others indented under it. */
static void print_vlans(struct json_object *arr)
{
	printf("%-16s  %s\n", "port", "vlan-id");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct json_object *vl = json_object_object_get(o, "vlans");
		const char *name = json_object_get_string(json_object_object_get(o, "ifname"));

		if (!json_object_array_length(vl))
			printf("%-16s  none\n", name);
		for (size_t k = 0; k < json_object_array_length(vl); k++) {
			struct json_object *e = json_object_array_get_idx(vl, k);
			struct json_object *end = json_object_object_get(e, "vlanEnd");
			struct json_object *fl = json_object_object_get(e, "flags");

			printf("%-16s  %s", k ? "" : name,
			       json_object_get_string(json_object_object_get(e, "vlan")));
			if (end)
				printf("-%s", json_object_get_string(end));
			for (size_t f = 0; f < json_object_array_length(fl); f++)
				printf(" %s", json_object_get_string(json_object_array_get_idx(fl, f)));
			putchar('\n');
		}
	}
}

static int do_vlan_show(const struct cli_cmd *c, struct target *t)
{
	char ifname[IF_NAMESIZE];
	struct json_object *arr;
	struct port_entry *p;
	uint32_t dev;
	size_t n;
	int err;

	err = shown_ports(c, t, &dev, &p, &n);
	if (err)
		return err;
	if (dev && !ports_find(p, n, dev)) {
		free(p);
		return port_error(-ENODEV, c, t, "show the VLANs of");
	}
	arr = json_object_new_array();
	for (size_t i = 0; i < n && !err; i++) {
		struct xdpbr_vlan_port v;

		if (dev && p[i].ifindex != dev)
			continue;
		err = ctl_vlan_get(&t->m, p[i].port.slot, &v);
		if (!err)
			json_object_array_add(arr, json_vlan_port(ifname_of(p[i].ifindex, ifname),
								  &v, p[i].port.pvid));
	}
	free(p);
	if (err) {
		json_object_put(arr);
		return report(err, "can't read the VLANs of bridge %s: %s%s", t->br,
			      strerror(-err), hint(err));
	}
	if (c->json)
		print_json(arr, c);
	else
		print_vlans(arr);
	json_object_put(arr);
	return 0;
}

static int do_vlan_add(const struct cli_cmd *c, struct target *t)
{
	uint32_t dev;
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = ctl_vlan_add(&t->m, dev, c->vid_from, c->vid_to, c->pvid, c->untagged);
	if (err)
		return port_error(err, c, t, "add VLANs to");
	return 0;
}

/* Like the kernel, deleting a VLAN the port is not in is an error; here
 * nothing of the range is deleted then. */
static int do_vlan_del(const struct cli_cmd *c, struct target *t)
{
	struct xdpbr_vlan_port v;
	struct xdpbr_port p;
	char vids[16];
	uint32_t dev;
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = ctl_port_get(&t->m, dev, &p);
	if (!err)
		err = ctl_vlan_get(&t->m, p.slot, &v);
	if (err)
		return port_error(err, c, t, "remove VLANs from");
	for (unsigned int vid = c->vid_from; vid <= c->vid_to; vid++) {
		if (vlan_member(&v, vid))
			continue;
		if (c->vid_from == c->vid_to)
			return report(-ENOENT, "'%s' is not in VLAN %u (see 'xdpbr vlan show "
				      "dev %s')", c->dev, vid, c->dev);
		return report(-ENOENT, "'%s' is not in VLAN %u, so nothing of %s was removed "
			      "(see 'xdpbr vlan show dev %s')", c->dev, vid,
			      vid_text(c, vids, sizeof(vids)), c->dev);
	}
	err = ctl_vlan_del(&t->m, dev, c->vid_from, c->vid_to);
	if (err)
		return port_error(err, c, t, "remove VLANs from");
	return 0;
}

/* ------------------------------------------------------------ stats */

/* The columns of the stats table: traffic, and the outcomes in groups. */
enum column {
	COL_RX_PACKETS, COL_RX_BYTES, COL_TX_PACKETS, COL_TX_BYTES,
	COL_FORWARDED, COL_FLOODED, COL_PASSED, COL_DROPPED, COL__MAX
};

static const char *const column_names[COL__MAX] = {
	"rx_packets", "rx_bytes", "tx_packets", "tx_bytes",
	"forwarded", "flooded", "passed", "dropped",
};

static void columns(const struct xdpbr_stats *s, uint64_t v[COL__MAX])
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

/* Column widths of the tables (port name first). */
static const int col_width[COL__MAX] = { 12, 14, 12, 14, 10, 10, 10, 10 };

static void print_counters(const struct report *r, uint32_t dev)
{
	char ifname[IF_NAMESIZE];

	printf("%-15s", "port");
	for (int k = 0; k < COL__MAX; k++)
		printf(" %*s", col_width[k], column_names[k]);
	putchar('\n');
	for (size_t i = 0; i < r->nports; i++) {
		uint64_t v[COL__MAX];

		if (dev && r->ports[i].ifindex != dev)
			continue;
		columns(&r->stats[i], v);
		printf("%-15s", ifname_of(r->ports[i].ifindex, ifname));
		for (int k = 0; k < COL__MAX; k++)
			printf(" %*llu", col_width[k], (unsigned long long)v[k]);
		putchar('\n');
	}
	/* Non-zero detail counters, one line per port, like `ip -s -s`. */
	for (size_t i = 0; i < r->nports; i++) {
		bool any = false;

		if (dev && r->ports[i].ifindex != dev)
			continue;
		for (int d = XDPBR_CNT_FORWARDED + 1; d < XDPBR_CNT__MAX; d++) {
			if (!r->stats[i].c[d])
				continue;
			if (!any)
				printf("%s:", ifname_of(r->ports[i].ifindex, ifname));
			any = true;
			printf(" %s %llu", counter_names[d], (unsigned long long)r->stats[i].c[d]);
		}
		if (any)
			putchar('\n');
	}
	if (dev)
		return;
	printf("bridge %s: learned %llu moved %llu aged %llu flushed %llu learn_limit %llu "
	       "events_dropped %llu fdb dynamic %llu\n", r->bridge,
	       (unsigned long long)report_sum(r, XDPBR_CNT_LEARNED),
	       (unsigned long long)report_sum(r, XDPBR_CNT_MOVED),
	       (unsigned long long)r->bs.aged, (unsigned long long)r->bs.flushed,
	       (unsigned long long)report_sum(r, XDPBR_CNT_LEARN_LIMIT),
	       (unsigned long long)report_sum(r, XDPBR_CNT_EVENTS_DROPPED),
	       (unsigned long long)(r->fdb_known ? r->fdb_dynamic : r->learned_total));
}

/* A JSON number with three decimals, printed as such. */
static struct json_object *json_rate(double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.3f", v);
	return json_object_new_double_s(v, buf);
}

/*
 * The per-second rates between two reads, secs apart: a table, or with -j
 * one array [{"ifname", "interval_s", "<column>_per_s"}, ...]. A port
 * counts only when it was a port, in the same slot, at both reads.
 */
static void print_rates(const struct cli_cmd *c, const struct report *a,
			const struct report *b, double secs, uint32_t dev)
{
	struct json_object *arr = json_object_new_array();
	char ifname[IF_NAMESIZE], name[32];

	for (size_t i = 0; i < b->nports; i++) {
		const struct port_entry *p = &b->ports[i];
		uint64_t v0[COL__MAX], v1[COL__MAX];
		struct json_object *o;
		size_t j;

		if (dev && p->ifindex != dev)
			continue;
		for (j = 0; j < a->nports; j++)
			if (a->ports[j].ifindex == p->ifindex &&
			    a->ports[j].port.slot == p->port.slot)
				break;
		if (j == a->nports)
			continue;
		columns(&a->stats[j], v0);
		columns(&b->stats[i], v1);
		o = json_object_new_object();
		json_object_object_add(o, "ifname",
				       json_object_new_string(ifname_of(p->ifindex, ifname)));
		json_object_object_add(o, "interval_s", json_rate(secs));
		for (int k = 0; k < COL__MAX; k++) {
			/* a counter never goes back; if it did, the port was reset */
			uint64_t d = v1[k] >= v0[k] ? v1[k] - v0[k] : 0;

			snprintf(name, sizeof(name), "%s_per_s", column_names[k]);
			json_object_object_add(o, name, json_rate((double)d / secs));
		}
		json_object_array_add(arr, o);
	}
	if (c->json) {
		print_json(arr, c);
		json_object_put(arr);
		return;
	}
	printf("%-15s", "port");
	for (int k = 0; k < COL__MAX; k++) {
		snprintf(name, sizeof(name), "%s/s", column_names[k]);
		printf(" %*s", col_width[k] + 2, name);
	}
	printf("   (over %.2f s)\n", secs);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);

		printf("%-15s", json_object_get_string(json_object_object_get(o, "ifname")));
		for (int k = 0; k < COL__MAX; k++) {
			snprintf(name, sizeof(name), "%s_per_s", column_names[k]);
			printf(" %*.1f", col_width[k] + 2,
			       json_object_get_double(json_object_object_get(o, name)));
		}
		putchar('\n');
	}
	fflush(stdout);
	json_object_put(arr);
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
		if (!c->json && k)
			putchar('\n');	/* between the tables */
		print_rates(c, &prev, &cur, (double)(t1 - t0) / 1e9, dev);
		report_free(&prev);
		prev = cur;
		t0 = t1;
	}
	if (err)
		return report(err, "can't read the counters of bridge %s: %s%s", t->br,
			      strerror(-err), hint(err));
	report_free(&prev);
	return 0;
}

static int do_stats(const struct cli_cmd *c, struct target *t)
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
		return report(err, "can't read the counters of bridge %s: %s%s", t->br,
			      strerror(-err), hint(err));
	}
	if (dev && !ports_find(r.ports, r.nports, dev)) {
		report_free(&r);
		return port_error(-ENODEV, c, t, "show the counters of");
	}
	if (c->rate_s) {
		report_free(&r);
		return stats_rates(c, t, dev);
	}
	if (c->json) {
		struct json_object *arr = report_json_cli(&r, dev);

		print_json(arr, c);
		json_object_put(arr);
	} else {
		print_counters(&r, dev);
	}
	report_free(&r);
	return 0;
}

/* ------------------------------------------------------------ monitor */

/* One event line from the daemon: as received (-j), pretty (-p), or as
 * text in the words of `bridge monitor fdb`. 0, or -EINVAL for a line that
 * is not an event. */
static int print_event(const struct cli_cmd *c, const char *line)
{
	struct json_object *o, *from;

	if (c->json && !c->pretty) {
		puts(line);
		fflush(stdout);
		return 0;
	}
	o = json_tokener_parse(line);
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get(o, "event")) {
		json_object_put(o);
		return report(-EINVAL, "ignoring a line of the event stream that is not "
			      "an event: %.80s", line);
	}
	if (c->json) {
		print_json(o, c);
		json_object_put(o);
		return 0;
	}
#define S(k) (json_object_object_get(o, k) ? \
	      json_object_get_string(json_object_object_get(o, k)) : "?")
	printf("%s %s dev %s vlan %s master %s", S("event"), S("mac"), S("ifname"),
	       S("vlan"), S("master"));
	from = json_object_object_get(o, "from");
	if (from)
		printf(" from %s", json_object_get_string(from));
#undef S
	putchar('\n');
	fflush(stdout);
	json_object_put(o);
	return 0;
}

/* Connects to the bridge's event stream: a descriptor or -errno. */
static int monitor_connect(const char *br)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	err = events_path(sa.sun_path, sizeof(sa.sun_path), br);
	if (err)
		return report(err, "bridge name '%s' too long", br);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return report(-errno, "can't create a socket: %s", strerror(errno));
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	err = -errno;
	close(fd);
	/* no socket, or a dead daemon's */
	if (err == -ENOENT || err == -ECONNREFUSED)
		return report(err, "no event stream for bridge %s: is xdpbrd running? "
			      "(xdpbr monitor needs the daemon)", br);
	return report(err, "can't connect to the event stream %s: %s%s", sa.sun_path,
		      strerror(-err), hint(err));
}

/* monitor [fdb] [count N]: until N events, SIGINT/SIGTERM (0) or the end of
 * the stream (the daemon stopped: -EPIPE). */
static int do_monitor(const struct cli_cmd *c, struct target *t)
{
	char buf[16384];
	size_t used = 0;
	uint32_t seen = 0;
	bool skip = false;	/* in the rest of a line too long to keep */
	sigset_t waitmask;
	int fd, err = 0;

	fd = monitor_connect(t->br);
	if (fd < 0)
		return fd;
	catch_signals(&waitmask);
	while (!interrupted && (!c->count || seen < c->count)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char *line, *nl;
		ssize_t n;

		if (ppoll(&pfd, 1, NULL, &waitmask) < 0) {
			if (errno == EINTR)
				continue;
			err = report(-errno, "waiting for events: %s", strerror(errno));
			break;
		}
		n = read(fd, buf + used, sizeof(buf) - used);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			err = report(-errno, "reading the event stream of bridge %s: %s",
				     t->br, strerror(errno));
			break;
		}
		if (n == 0) {
			err = report(-EPIPE, "the event stream of bridge %s ended: xdpbrd "
				     "stopped (or dropped this monitor as too slow)", t->br);
			break;
		}
		used += (size_t)n;
		line = buf;
		while ((!c->count || seen < c->count) &&
		       (nl = memchr(line, '\n', used - (size_t)(line - buf)))) {
			*nl = '\0';
			if (!skip && !strncmp(line, EVENTS_HELLO_PREFIX, strlen(EVENTS_HELLO_PREFIX))) {
				/* The daemon has registered us: from here on no
				 * event is missed. On stderr, for scripts that wait
				 * for it; stdout carries the events. */
				fprintf(stderr, "xdpbr: monitoring events of bridge %s\n", t->br);
			} else if (!skip && nl > line && !print_event(c, line)) {
				seen++;
			}
			skip = false;
			line = nl + 1;
		}
		used -= (size_t)(line - buf);
		memmove(buf, line, used);
		if (used == sizeof(buf)) {
			if (!skip)
				report(0, "ignoring an event line longer than %zu bytes",
				       sizeof(buf));
			skip = true;
			used = 0;
		}
	}
	close(fd);
	return err;
}

/* ------------------------------------------------------------ main */

static const struct {
	enum cli_object obj;
	enum cli_verb verb;
	int (*run)(const struct cli_cmd *c, struct target *t);
	bool no_maps;		/* works without the pinned maps */
} handlers[] = {
	{ OBJ_BRIDGE, VERB_SHOW, do_bridge_show, false },
	{ OBJ_BRIDGE, VERB_SET, do_bridge_set, false },
	{ OBJ_LINK, VERB_SHOW, do_link_show, false },
	{ OBJ_LINK, VERB_SET, do_link_set, false },
	{ OBJ_LINK, VERB_ADD, do_link_add, false },
	{ OBJ_LINK, VERB_DEL, do_link_del, false },
	{ OBJ_FDB, VERB_SHOW, do_fdb_show, false },
	{ OBJ_FDB, VERB_ADD, do_fdb_add, false },
	{ OBJ_FDB, VERB_DEL, do_fdb_del, false },
	{ OBJ_FDB, VERB_FLUSH, do_fdb_flush, false },
	{ OBJ_VLAN, VERB_SHOW, do_vlan_show, false },
	{ OBJ_VLAN, VERB_ADD, do_vlan_add, false },
	{ OBJ_VLAN, VERB_DEL, do_vlan_del, false },
	{ OBJ_STATS, VERB_SHOW, do_stats, false },
	{ OBJ_MONITOR, VERB_FDB, do_monitor, true },
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
	for (size_t i = 0; i < ARRAY_SIZE(handlers); i++)
		if (handlers[i].obj == c->object && handlers[i].verb == c->verb &&
		    handlers[i].no_maps)
			return handlers[i].run(c, &t);
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

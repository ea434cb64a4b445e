// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpbrd - the xdpbr daemon.
 *
 * Loads (or adopts) the datapath and attaches it to the ports, then stays in
 * the foreground for what needs a long-lived process: ageing sweeps, link
 * events, configuration reloads. Forwarding never depends on it: the pinned
 * maps are the bridge, and a crash of the daemon loses nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <systemd/sd-daemon.h>
#include <bpf/libbpf.h>

#include "bridge.h"
#include "config.h"
#include "ctl.h"
#include "events.h"
#include "brmirror.h"
#include "mcast.h"
#include "evpn.h"
#include "fault.h"
#include "fdbflush.h"
#include "hostdev.h"
#include "http.h"
#include "json.h"
#include "log.h"
#include "netns.h"
#include "netlink.h"
#include "ports.h"
#include "privs.h"
#include "stpd.h"
#include "util.h"
#include "version.h"
#include "xdpbr_rules.h"

/* One ageing step per tick looks at no more than this many entries: a
 * million-entry table is swept over a few seconds without a stall. */
#define AGE_TICK_MS	250
#define AGE_BUDGET	65536
#define MOVE_LOG_BURST		5
#define MOVE_LOG_PERIOD_S	10

static volatile sig_atomic_t quit, reload;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload = 1;
	else
		quit = sig;
}

struct daemon {
	struct bridge br;
	struct config cfg;		/* the running configuration */
	const char *cfg_path;		/* NULL: command line only */
	char **cli_ports;		/* ports named on the command line */
	int ncli_ports;
	bool keep;
	struct fdb_sweep sweep;
	uint64_t sweep_cpu_ns;		/* CPU time of the current pass */
	uint64_t start_ns;
	const char *listen;		/* --listen, or NULL: the config's */
	struct http http;
	struct events events;
	struct ring_buffer *rb;		/* learn/move events from the datapath */
	bool pins_lost;			/* said so already */
	const struct config *pending_cfg; /* a reload's new configuration */
	/* Move log rate limit: a flapping MAC is the classic loop symptom;
	 * say so, but at most MOVE_LOG_BURST lines per MOVE_LOG_PERIOD_S. */
	uint64_t move_window_ns;
	unsigned int move_logged, move_suppressed;
	struct mnl_socket *nl;
	struct hostdev host;		/* the host interface (hostdev.h) */
	unsigned int ticks;
	uint64_t ageing_opt_ns;		/* -a, or 0: the file's, else the default */
	uint64_t ageing_kept_ns;	/* a taken-over bridge's, the default then */
	/* Static entries of the file that could not be written (the FDB was
	 * full, ...): retried every second and on each reload. */
	struct pending_static *pending;
	size_t npending;
	struct evpn evpn;		/* the [vxlan] overlay (evpn.h) */
	struct brmirror mirror;		/* the Linux bridge device's view (brmirror.h) */
	struct mcast mcast;		/* its MDB, mirrored (mcast.h) */
	struct stpd stp;		/* the spanning tree */
	struct fdbflush flush;		/* flushes of ports down and topology changes */
};

struct pending_static {
	char port[IF_NAMESIZE];
	struct config_static s;
};

static const char usage[] =
	"Usage: xdpbrd [OPTIONS] [BRIDGE [PORT...]]\n"
	"  -c, --config FILE      read the bridge and its ports from FILE (INI);\n"
	"                         SIGHUP reloads it\n"
	"  -n, --check            check the configuration and exit\n"
	"  -m, --mode MODE        XDP mode: native, generic or auto (default auto:\n"
	"                         native, generic only where the driver has none)\n"
	"  -d, --datapath PATH    datapath of ports: xdp, tc or auto (default auto:\n"
	"                         tc for veth and tap ports, xdp for the others)\n"
	"      --xdp-share[=on|off]\n"
	"                         XDP ports share their XDP hook with other programs\n"
	"                         through libxdp's dispatcher (default off: exclusive)\n"
	"  -k, --keep             leave the bridge forwarding when the daemon exits\n"
	"  -s, --fdb-size N       FDB capacity in entries (default %u)\n"
	"  -C, --fdb-cache N      entries of the datapath's per-CPU FDB cache: a\n"
	"                         power of two, 0 = off (default: sized from the FDB\n"
	"                         size and the CPUs, at most 2 MiB a CPU; -v says)\n"
	"  -a, --ageing-time SEC  age out dynamic FDB entries after SEC seconds\n"
	"                         (default %u; 0 = never)\n"
	"  -l, --listen ADDR:PORT HTTP statistics endpoint (default %s;\n"
	"                         'none' to disable)\n"
	"  -H, --host-interface on|off\n"
	"                         the host's interface on the bridge, a netdev\n"
	"                         named BRIDGE (default on)\n"
	"  -v, --verbose          debug logging, including libbpf's\n"
	"  -V, --version          the version and git revision, then exit\n"
	"  -h, --help             this text\n";

static void print_usage(FILE *f)
{
	fprintf(f, usage, XDPBR_FDB_SIZE, XDPBR_DEFAULT_AGEING_S,
		CONFIG_LISTEN_DEFAULT);
}

#define OPT_XDP_SHARE 0x100		/* long only */

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "check", no_argument, NULL, 'n' },
	{ "mode", required_argument, NULL, 'm' },
	{ "datapath", required_argument, NULL, 'd' },
	{ "keep", no_argument, NULL, 'k' },
	{ "xdp-share", optional_argument, NULL, OPT_XDP_SHARE },
	{ "fdb-size", required_argument, NULL, 's' },
	{ "fdb-cache", required_argument, NULL, 'C' },
	{ "ageing-time", required_argument, NULL, 'a' },
	{ "listen", required_argument, NULL, 'l' },
	{ "host-interface", required_argument, NULL, 'H' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static bool is_cli_port(const struct daemon *d, const char *name)
{
	for (int i = 0; i < d->ncli_ports; i++)
		if (!strcmp(d->cli_ports[i], name))
			return true;
	return false;
}

static uint64_t ageing_ns_of(uint64_t s)
{
	return s ? s * XDPBR_NSEC_PER_SEC : XDPBR_AGEING_NEVER;
}

static uint16_t default_pvid_of(const struct config *c)
{
	return (uint16_t)setting_value(&c->set, SET_DEFAULT_PVID);
}

/* Bridge-wide settings of the config file, applied live. */
static int apply_bridge_cfg(struct daemon *d, const struct config *c)
{
	struct xdpbr_config xc;
	int err = ctl_config_get(&d->br.maps, &xc);

	if (err)
		return err;
	/* -a wins; a file without ageing_time means the default, so that
	 * removing the key from the file restores it on reload. */
	/* the limits as the file says or their defaults; the ageing time only if
	 * given, else 0, the datapath's default */
	xc.ageing_ns = 0;
	settings_config_put(&c->set, c->set.given | 1ULL << SET_FDB_MAX_LEARNED |
			    1ULL << SET_LINKLOCAL_LIMIT, &xc);
	if (!setting_given(&c->set, SET_AGEING_TIME) && d->ageing_kept_ns)
		xc.ageing_ns = d->ageing_kept_ns;
	if (d->ageing_opt_ns)
		xc.ageing_ns = d->ageing_opt_ns;
	err = ctl_config_set(&d->br.maps, &xc);
	if (!err)
		err = ctl_set_default_pvid(&d->br.maps, default_pvid_of(c), d->br.prog_egress_fd);
	if (!err)
		err = ctl_vlan_filtering(&d->br.maps, setting_value(&c->set, SET_VLAN_FILTERING));
	return err;
}

/* A port's VLANs as the file says; a port with no VLAN keys is an untagged
 * member of the default PVID, like a new port of the kernel bridge. */
static int apply_port_vlans(struct daemon *d, const struct config *c,
			    const struct config_port *cp, uint32_t ifindex)
{
	struct xdpbr_vlan_port v = { 0 };
	uint16_t pvid = setting_given(&cp->set, SET_PVID) ? (uint16_t)cp->set.v[SET_PVID] :
			default_pvid_of(c);

	for (int w = 0; w < XDPBR_VLAN_WORDS; w++) {
		v.member[w] = cp->vlans[w] | cp->untagged[w];
		v.untagged[w] = cp->untagged[w];
	}
	if (!config_port_vlans_set(cp))
		xdpbr_vlan_default(&v, pvid, 1);
	if (pvid && !xdpbr_vlan_test(v.member, pvid))
		pvid = 0;	/* the default PVID is not among the port's VLANs */
	return ctl_vlan_set_port(&d->br.maps, ifindex, &v, pvid);
}

static bool static_in(const struct config_port *cp, const struct config_static *s)
{
	for (size_t i = 0; cp && i < cp->nstatics; i++)
		if (cp->statics[i].vlan == s->vlan && !memcmp(cp->statics[i].mac, s->mac, 6))
			return true;
	return false;
}

static const struct config_port *cfg_port(const struct daemon *d, const char *name)
{
	return d->cfg_path ? config_port_find(&d->cfg, name) : NULL;
}

/* Forgets the static entries of port still to be written (it is being
 * applied again). */
static void pending_drop_port(struct daemon *d, const char *port)
{
	for (size_t i = 0; i < d->npending;) {
		if (strcmp(d->pending[i].port, port))
			i++;
		else
			d->pending[i] = d->pending[--d->npending];
	}
}

/* The FDB refused a static entry of the file (full, most likely, after a
 * MAC flood): said, and kept to be tried again every second and at each
 * reload (statics_retry). The bridge runs on without it meanwhile. */
static void static_failed(struct daemon *d, const char *port, const struct config_static *s,
			  int err)
{
	struct pending_static *t = realloc(d->pending, (d->npending + 1) * sizeof(*t));
	char mac[MAC_STRLEN];

	log_warn("%s:%d: Couldn't write static entry %s vlan %u on %s: %s; trying again "
		 "every second", d->cfg_path, s->line, mac_format(s->mac, mac), s->vlan, port,
		 err == -E2BIG ? "the FDB is full (a larger fdb_size, or fdb_max_learned "
		 "below it, leaves room)" : strerror(-err));
	if (!t)
		return;
	d->pending = t;
	t = &d->pending[d->npending++];
	snprintf(t->port, sizeof(t->port), "%s", port);
	t->s = *s;
}

/* A port's flags, limits (learning, storm control) and static entries; old
 * is what was applied before (NULL: nothing), so that statics dropped from
 * the file are removed. Storm limits are always written: a key dropped from
 * the file lifts its limit. A static entry the FDB refuses is no error: it
 * is said and tried again (static_failed). */
static int apply_port_cfg(struct daemon *d, const struct config_port *old,
			  const struct config_port *cp, const struct config *c)
{
	uint32_t ifindex = if_nametoindex(cp->name), storm[XDPBR_STORM__MAX];
	struct xdpbr_port p;
	int err;

	if (!ifindex)
		return -ENODEV;
	if (fault_hit("apply_port"))
		return -EIO;
	err = ctl_port_get(&d->br.maps, ifindex, &p);
	if (err)
		return err;
	/* every row of the section: a key left out is its default again; the
	 * state bits (XDPBR_PORT_DOWN) stay */
	settings_port_put(&cp->set, ~0ULL, &p);
	settings_storm_put(&cp->set, ~0ULL, storm);
	err = ctl_port_apply(&d->br.maps, ifindex, &p, d->br.prog_egress_fd);
	if (!err)
		err = apply_port_vlans(d, c, cp, ifindex);
	if (!err)
		err = ctl_storm_set(&d->br.maps, ifindex, storm);
	if (err)
		return err;
	for (size_t i = 0; old && i < old->nstatics; i++) {
		struct fdb_filter f = { .ifindex = ifindex, .vlan = old->statics[i].vlan,
					.kind = FDB_KIND_STATIC };

		if (!static_in(cp, &old->statics[i]))
			ctl_fdb_del(&d->br.maps, old->statics[i].mac, &f);
	}
	pending_drop_port(d, cp->name);
	for (size_t i = 0; i < cp->nstatics; i++) {
		err = ctl_fdb_add(&d->br.maps, cp->statics[i].mac, cp->statics[i].vlan,
				  ifindex, true);
		if (err)
			static_failed(d, cp->name, &cp->statics[i], err);
	}
	return 0;
}

/* Tries the static entries the FDB refused again: those still in the
 * running file are written when they can be, the others forgotten. */
static void statics_retry(struct daemon *d)
{
	char mac[MAC_STRLEN];
	size_t i = 0;

	while (i < d->npending) {
		const struct pending_static *ps = &d->pending[i];
		uint32_t ifindex = if_nametoindex(ps->port);
		struct xdpbr_port p;
		int err = -ENODEV;

		if (!static_in(cfg_port(d, ps->port), &ps->s)) {
			d->pending[i] = d->pending[--d->npending];
			continue;
		}
		if (ifindex && !ctl_port_get(&d->br.maps, ifindex, &p))
			err = ctl_fdb_add(&d->br.maps, ps->s.mac, ps->s.vlan, ifindex, true);
		if (err) {
			i++;
			continue;
		}
		log_info("%s:%d: static entry %s vlan %u on %s written at last", d->cfg_path,
			 ps->s.line, mac_format(ps->s.mac, mac), ps->s.vlan, ps->port);
		d->pending[i] = d->pending[--d->npending];
	}
}

/* The configuration of port ifname, from the file being applied (a reload)
 * or the running one; NULL when it has none. */
static const struct config_port *cfg_port_applying(const struct daemon *d, const char *ifname)
{
	if (!d->cfg_path)
		return NULL;
	return config_port_find(d->pending_cfg ? d->pending_cfg : &d->cfg, ifname);
}

/* bridge_policy.port_init: a configured port is attached with its own flags and
 * limit, never briefly with the defaults. */
static void init_port_from_cfg(const char *ifname, struct xdpbr_port *p, void *arg)
{
	const struct config_port *cp = cfg_port_applying(arg, ifname);

	if (cp)
		settings_port_put(&cp->set, ~0ULL, p);
}

/* A port's xdp_share as the file says; XDP_SHARE_DEFAULT: the bridge's. */
static enum xdp_share share_of(const struct config_port *cp)
{
	if (!cp || !setting_given(&cp->set, SET_PORT_XDP_SHARE))
		return XDP_SHARE_DEFAULT;
	return cp->set.v[SET_PORT_XDP_SHARE] ? XDP_SHARE_ON : XDP_SHARE_OFF;
}

/* bridge_policy.port_share: whether a port shares its XDP hook (default: the
 * bridge's). */
static enum xdp_share port_share_from_cfg(const char *ifname, void *arg)
{
	return share_of(cfg_port_applying(arg, ifname));
}

/* bridge_policy.port_path: a port's configured datapath (auto: the bridge's). */
static enum port_path port_path_from_cfg(const char *ifname, void *arg)
{
	const struct config_port *cp = cfg_port_applying(arg, ifname);

	return cp ? (enum port_path)setting_value(&cp->set, SET_PORT_DATAPATH) : PORT_PATH_AUTO;
}

/* Marks a port down (out of tx and flood sets, dynamic entries flushed) or
 * up again, when its link state differs from what the maps say. */
static void port_link_state(struct daemon *d, uint32_t ifindex, unsigned int flags)
{
	char name[IF_NAMESIZE] = "?";
	struct xdpbr_port p;
	bool up = LINK_UP(flags), was_up;
	int err;

	if (ctl_port_get(&d->br.maps, ifindex, &p))
		return;
	was_up = !(p.flags & XDPBR_PORT_DOWN);
	if (up == was_up)
		return;
	p.flags = up ? p.flags & ~XDPBR_PORT_DOWN : p.flags | XDPBR_PORT_DOWN;
	err = ctl_port_apply(&d->br.maps, ifindex, &p, d->br.prog_egress_fd);
	if_indextoname(ifindex, name);
	if (err)
		log_warn("port %s: couldn't mark it %s: %s", name, up ? "up" : "down",
			 strerror(-err));
	else
		log_info("port %s: link %s%s", name, up ? "up, forwarding again" : "down",
			 up ? "" : ": out of forwarding and flooding, its learned entries flushed");
}

/* Keeps the datapath's MTU threshold (bpf/mtu.h) right after a port was
 * added, removed or changed its MTU; says when the ports' MTUs differ, as
 * frames larger than an egress port's MTU are then dropped there. */
static void mtus_follow(struct daemon *d, bool at_start)
{
	char lo[IF_NAMESIZE] = "?", hi[IF_NAMESIZE] = "?";
	struct bridge_mtus mt;
	int changed = bridge_mtu_refresh(&d->br.maps, &mt);

	if (changed < 0) {
		log_warn("couldn't record the ports' smallest MTU: %s", strerror(-changed));
		return;
	}
	if ((!changed && !at_start) || mt.min == mt.max)
		return;
	if_indextoname(mt.min_ifindex, lo);
	if_indextoname(mt.max_ifindex, hi);
	log_warn("bridge %s: its ports have different MTUs (%d on %s, %d on %s): a frame "
		 "larger than its egress port's MTU is dropped there (counted as drop_mtu)",
		 d->br.name, mt.min, lo, mt.max, hi);
}

/* An interface that is not a port: a configured port that (re)appears,
 * or one some tool made a port of the bridge device, joins the bridge. */
static void port_appeared(struct daemon *d, const struct link_event *ev)
{
	char name[IF_NAMESIZE];
	const struct config_port *cp;
	struct xdpbr_port p;
	int err;

	if (ev->deleted || !if_indextoname(ev->ifindex, name))
		return;
	cp = cfg_port(d, name);
	if (cp || is_cli_port(d, name))
		log_info("port %s appeared (ifindex %u): adding it", name, ev->ifindex);
	else if (hostdev_joined(&d->host, ev->ifindex))
		log_info("port %s joined the bridge device %s (ifindex %u): adding it", name,
			 d->host.hif.name, ev->ifindex);
	else
		return;
	err = bridge_add_port(&d->br, name);
	if (err && !cp && !is_cli_port(d, name)) {
		hostdev_refuse(&d->host, ev->ifindex, name, err);
		return;
	}
	if (!err && cp && apply_port_cfg(d, NULL, cp, &d->cfg))
		d->cfg.ports[cp - d->cfg.ports].unapplied = true;
	if (!ctl_port_get(&d->br.maps, ev->ifindex, &p))
		port_link_state(d, ev->ifindex, ev->flags);
	hostdev_port_event(&d->host, ev->ifindex);
	mtus_follow(d, false);
}

static void on_link_event(const struct link_event *ev, void *arg)
{
	struct daemon *d = arg;
	char name[IF_NAMESIZE];
	struct xdpbr_port p;

	if (hostdev_link(&d->host, ev))
		return;
	if (ctl_port_get(&d->br.maps, ev->ifindex, &p)) {
		port_appeared(d, ev);
		return;
	}
	if (!ev->deleted && if_indextoname(ev->ifindex, name) && !cfg_port(d, name) &&
	    !is_cli_port(d, name) && hostdev_left(&d->host, ev->ifindex, p.slot)) {
		log_info("port %s left the bridge device %s: removed from the bridge", name,
			 d->host.hif.name);
		bridge_del_port(&d->br, name);
		mtus_follow(d, false);
		return;
	}
	if (!ev->deleted && bridge_port_name_follow(&d->br, ev->ifindex, p.slot) == 1 &&
	    if_indextoname(ev->ifindex, name))
		log_info("port (ifindex %u) renamed %s", ev->ifindex, name);
	if (ev->deleted) {
		ctl_port_remove(&d->br.maps, ev->ifindex);
		for (int i = 0; i < d->br.nports; i++)
			if (d->br.ports[i].ifindex == ev->ifindex) {
				log_info("port %s (ifindex %u) was deleted: removed from the bridge",
					 d->br.ports[i].ifname, ev->ifindex);
				d->br.ports[i] = d->br.ports[--d->br.nports];
				break;
			}
		mtus_follow(d, false);
		return;
	}
	port_link_state(d, ev->ifindex, ev->flags);
	hostdev_port_event(&d->host, ev->ifindex);
	mtus_follow(d, false);
}

/* After lost events (or at start): read every port's link state. */
static void resync_links(struct daemon *d)
{
	hostdev_resync(&d->host);
	for (int i = 0; i < d->br.nports; i++) {
		struct link_info li;
		struct link_event ev = { .ifindex = d->br.ports[i].ifindex };

		if (link_get_info(ev.ifindex, &li)) {
			ev.deleted = true;
		} else {
			ev.flags = li.flags;
		}
		on_link_event(&ev, d);
	}
}

static const char *listen_of(const struct daemon *d, const struct config *c)
{
	if (d->listen)
		return d->listen;
	return c->listen[0] ? c->listen : CONFIG_LISTEN_DEFAULT;
}

static bool vxlan_same(const struct config_vxlan *a, const struct config_vxlan *b)
{
	return !a->line == !b->line && a->vni == b->vni && a->dstport == b->dstport &&
	       a->local_ip.s_addr == b->local_ip.s_addr && !strcmp(a->underlay, b->underlay);
}

static void do_reload(struct daemon *d)
{
	struct config nc = { 0 };
	char err[512];

	if (!d->cfg_path) {
		log_info("SIGHUP: no configuration file to reload");
		return;
	}
	sd_notify(0, "RELOADING=1");
	if (config_parse_file(d->cfg_path, &nc, err, sizeof(err))) {
		log_warn("%s; keeping the running configuration", err);
		sd_notify(0, "READY=1");
		return;
	}
	if (nc.name[0] && strcmp(nc.name, d->br.name))
		log_warn("%s: bridge name changed to '%s': takes effect on restart only",
			 d->cfg_path, nc.name);
	if (!setting_same(&nc.set, &d->cfg.set, SET_FDB_SIZE) ||
	    !setting_same(&nc.set, &d->cfg.set, SET_FDB_CACHE) ||
	    !setting_same(&nc.set, &d->cfg.set, SET_MODE))
		log_warn("%s: fdb_size, fdb_cache and mode take effect on restart only",
			 d->cfg_path);
	if (apply_bridge_cfg(d, &nc))
		log_warn("couldn't apply the bridge settings");
	if (!vxlan_same(&nc.vxlan, &d->cfg.vxlan))
		log_warn("%s: [vxlan] takes effect on restart only", d->cfg_path);
	if (strcmp(listen_of(d, &nc), listen_of(d, &d->cfg))) {
		const char *listen = listen_of(d, &nc);

		http_stop(&d->http);
		if (!config_listen_none(listen) &&
		    http_start(&d->http, d->br.name, listen, d->start_ns))
			log_warn("Couldn't serve statistics on %s", listen);
		else if (!config_listen_none(listen))
			log_info("statistics now on http://%s/", listen);
	}

	/* Ports that left the file (and the command line) leave the bridge. */
	for (size_t i = 0; i < d->cfg.nports; i++) {
		const char *name = d->cfg.ports[i].name;

		if (!config_port_find(&nc, name) && !is_cli_port(d, name)) {
			hostdev_port_left(&d->host, name);
			bridge_del_port(&d->br, name);
		}
	}
	d->pending_cfg = &nc;
	hostdev_reload(&d->host, &d->cfg, &nc);
	for (size_t i = 0; i < nc.nports; i++) {
		const struct config_port *cp = &nc.ports[i];
		const struct config_port *old = config_port_find(&d->cfg, cp->name);
		uint32_t ifindex = if_nametoindex(cp->name);
		struct xdpbr_port p;
		bool is_new = !ifindex || ctl_port_get(&d->br.maps, ifindex, &p);

		if (is_new && bridge_add_port(&d->br, cp->name)) {
			log_warn("%s:%d: couldn't add port %s", d->cfg_path, cp->line, cp->name);
			continue;
		}
		if (is_new) {
			struct link_info li;

			old = NULL;
			if (!link_get_info(if_nametoindex(cp->name), &li))
				port_link_state(d, if_nametoindex(cp->name), li.flags);
		}
		if ((is_new || !old || old->unapplied || !config_port_equal(old, cp) ||
		     default_pvid_of(&nc) != default_pvid_of(&d->cfg)) &&
		    apply_port_cfg(d, old, cp, &nc)) {
			log_warn("%s:%d: couldn't apply port %s; the next reload tries again",
				 d->cfg_path, cp->line, cp->name);
			nc.ports[i].unapplied = true;
		}
	}
	d->pending_cfg = NULL;
	hostdev_ports_follow(&d->host);
	{
		uint8_t mac[6];

		hostdev_mac(&d->host, &nc, mac);
		stpd_reload(&d->stp, &nc.stp, mac);
	}
	config_free(&d->cfg);
	d->cfg = nc;
	statics_retry(d);
	log_info("reloaded %s", d->cfg_path);
	sd_notify(0, "READY=1");
}

static void log_move(struct daemon *d, const struct xdpbr_event *e)
{
	char mac[MAC_STRLEN], from[IF_NAMESIZE], to[IF_NAMESIZE];
	uint64_t now = mono_ns();

	if (now - d->move_window_ns > MOVE_LOG_PERIOD_S * XDPBR_NSEC_PER_SEC) {
		if (d->move_suppressed)
			log_warn("%u more MAC moves not logged in the last %d s",
				 d->move_suppressed, MOVE_LOG_PERIOD_S);
		d->move_window_ns = now;
		d->move_logged = d->move_suppressed = 0;
	}
	if (d->move_logged >= MOVE_LOG_BURST) {
		d->move_suppressed++;
		return;
	}
	d->move_logged++;
	log_warn("MAC %s vlan %u moved from %s to %s (a MAC that keeps moving "
		 "suggests a loop)", mac_format(e->mac, mac), e->vlan,
		 ifname_of(e->old_ifindex, from), ifname_of(e->ifindex, to));
}

static int on_ringbuf_event(void *ctx, void *data, size_t len)
{
	struct daemon *d = ctx;
	const struct xdpbr_event *e = data;

	if (len < sizeof(*e))
		return 0;
	if (e->type == XDPBR_EV_MOVE)
		log_move(d, e);
	evpn_fdb_event(&d->evpn, e);
	brmirror_fdb_event(&d->mirror, e);
	events_send(&d->events, e);
	return 0;
}

static void emit_deleted(struct daemon *d, uint32_t type, const struct xdpbr_fdb_key *k,
			 const struct xdpbr_fdb_val *v)
{
	struct xdpbr_event e = {
		.ts = mono_ns(), .type = type, .ifindex = v->ifindex, .vlan = k->vlan,
	};

	evpn_fdb_deleted(&d->evpn, k, v);
	brmirror_fdb_deleted(&d->mirror, k);
	if (!events_listening(&d->events))
		return;
	memcpy(e.mac, k->mac, 6);
	events_send(&d->events, &e);
}

static void on_aged(const struct xdpbr_fdb_key *k, const struct xdpbr_fdb_val *v, void *arg)
{
	emit_deleted(arg, XDPBR_EV_AGE, k, v);
}

static void on_deleted(const struct xdpbr_fdb_key *k, const struct xdpbr_fdb_val *v, void *arg)
{
	emit_deleted(arg, XDPBR_EV_FLUSH, k, v);
}

/* The pins are the bridge's name for everyone else: keep them there. */
static void check_pins(struct daemon *d)
{
	int ret = bridge_pins_check(&d->br);

	if (ret == 1) {
		log_warn("the pins of bridge %s were removed: pinned its maps and programs "
			 "again in %s", d->br.name, d->br.dir);
		d->pins_lost = false;
	} else if (ret < 0 && !d->pins_lost) {
		/* Said once; forwarding is not affected. */
		log_warn("the pins of bridge %s are gone and can't be put back (%s)%s; the "
			 "bridge keeps forwarding, but xdpbr and a restarted xdpbrd won't find "
			 "it until they are", d->br.name, strerror(-ret),
			 ret == -ENOENT ? ": bpffs is not mounted on /sys/fs/bpf; mount it with "
			 "'mount -t bpf bpf /sys/fs/bpf' and they will be" : "");
		d->pins_lost = true;
	}
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * XDPBR_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* One bounded step of the ageing sweep; a finished pass is logged with
 * what it cost (debug level, or info when it aged anything out). */
static void age_step(struct daemon *d)
{
	uint64_t t0 = cpu_ns();
	int ret = ctl_fdb_age(&d->br.maps, mono_ns(), AGE_BUDGET, &d->sweep);

	d->sweep_cpu_ns += cpu_ns() - t0;
	if (ret < 0) {
		log_warn("ageing sweep failed: %s", strerror(-ret));
		d->sweep.running = false;
		d->sweep_cpu_ns = 0;
		return;
	}
	if (ret == 0)
		return;
	{
		uint64_t dyn = 0;

		for (int i = 1; i < XDPBR_MAX_PORTS; i++)
			dyn += d->sweep.counts[i];
		if (d->http.on)
			http_set_fdb(&d->http, dyn + d->sweep.statics, dyn, d->sweep.statics);
	}
	if (d->sweep.repaired)
		log_debug("learned counts set to what the quiet sweep counted (they had "
			  "drifted)");
	if (d->sweep.aged)
		log_info("aged out %llu FDB entries (sweep of %llu entries, %.1f ms CPU)",
			 (unsigned long long)d->sweep.aged, (unsigned long long)d->sweep.seen,
			 (double)d->sweep_cpu_ns / 1e6);
	else
		log_debug("sweep of %llu entries: nothing aged, %.1f ms CPU",
			  (unsigned long long)d->sweep.seen, (double)d->sweep_cpu_ns / 1e6);
	d->sweep_cpu_ns = 0;
}

static int run(struct daemon *d)
{
	enum { PFD_NETLINK, PFD_EVENTS, PFD_MONITOR, PFD_EVPN, PFD_MIRROR, PFD_MCAST, PFD_N };
	struct pollfd pfd[PFD_N + XDPBR_MAX_PORTS] = {
		[PFD_NETLINK] = { .fd = mnl_socket_get_fd(d->nl), .events = POLLIN },
		[PFD_EVENTS] = { .fd = d->rb ? ring_buffer__epoll_fd(d->rb) : -1, .events = POLLIN },
		[PFD_MONITOR] = { .fd = d->events.listen_fd, .events = POLLIN },
		[PFD_EVPN] = { .fd = evpn_fd(&d->evpn), .events = POLLIN },
	};
	/* A flush under way goes on in steps, one a turn: no sleep meanwhile. */
	const struct timespec now = { 0 };
	uint64_t next_age = mono_ns(), next_stp = mono_ns();
	struct timespec tick;
	sigset_t none;
	int n, nstp, err, wait_ms;

	sigemptyset(&none);
	brmirror_init(&d->mirror, &d->br);
	mcast_init(&d->mcast, &d->br);
	while (!quit) {
		nstp = stpd_pollfds(&d->stp, pfd + PFD_N, XDPBR_MAX_PORTS);
		/* The spanning tree's tick is the shortest, unless the EVPN
		 * mirror has work queued. */
		wait_ms = STPD_TICK_MS;
		evpn_wait(&d->evpn, &wait_ms);
		brmirror_wait(&d->mirror, &wait_ms);
		pfd[PFD_MIRROR] = (struct pollfd){ .fd = brmirror_fd(&d->mirror), .events = POLLIN };
		pfd[PFD_MCAST] = (struct pollfd){ .fd = mcast_fd(&d->mcast), .events = POLLIN };
		tick = (struct timespec){ wait_ms / 1000, (wait_ms % 1000) * 1000000L };
		/* Signals are blocked except inside ppoll: no lost wake-up. */
		n = ppoll(pfd, PFD_N + (nfds_t)nstp, fdbflush_busy(&d->flush) ? &now : &tick,
			  &none);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (quit)
			break;
		/* First in the turn: the heartbeat waits for nothing else. */
		if (mono_ns() >= next_stp) {
			next_stp = mono_ns() + STPD_TICK_MS * 1000000ULL;
			stpd_tick(&d->stp);
		}
		if (reload) {
			reload = 0;
			do_reload(d);
		}
		if (n > 0 && pfd[PFD_NETLINK].revents & POLLIN) {
			err = linkwatch_read(d->nl, on_link_event, d);
			if (err == -ENOBUFS) {
				log_warn("link events were lost: rereading every port's state");
				resync_links(d);
			}
		}
		if (n > 0 && pfd[PFD_MONITOR].revents & POLLIN)
			events_accept(&d->events);
		if (n > 0 && pfd[PFD_EVPN].revents & POLLIN)
			evpn_read(&d->evpn);
		if (n > 0 && pfd[PFD_MIRROR].revents & POLLIN)
			brmirror_read(&d->mirror);
		if (n > 0 && pfd[PFD_MCAST].revents & POLLIN)
			mcast_read(&d->mcast);
		if (n > 0)
			stpd_input(&d->stp, pfd + PFD_N, nstp);
		if (d->rb)
			ring_buffer__consume(d->rb);
		evpn_step(&d->evpn);
		brmirror_step(&d->mirror);
		mcast_step(&d->mcast);
		fdbflush_step(&d->flush);
		/* Events must not speed up the ageing tick. */
		if (mono_ns() >= next_age) {
			next_age = mono_ns() + AGE_TICK_MS * 1000000ULL;
			age_step(d);
			check_pins(d);
			http_watch(&d->http);
			if (++d->ticks % (1000 / AGE_TICK_MS) == 0) {
				hostdev_sync(&d->host);
				statics_retry(d);
			}
		}
	}
	return 0;
}

/* Whether the endpoint's port needs CAP_NET_BIND_SERVICE. */
static bool listen_port_low(const char *listen)
{
	const char *colon = strrchr(listen, ':');

	return !config_listen_none(listen) && colon && atoi(colon + 1) < 1024;
}

/* The HTTP endpoint, the event stream and the ring buffer reader. None is
 * needed to forward: a failure is a warning, and the bridge runs on. */
static void start_services(struct daemon *d)
{
	const char *listen = listen_of(d, &d->cfg);
	int err;

	if (!config_listen_none(listen)) {
		err = http_start(&d->http, d->br.name, listen, d->start_ns);
		if (err)
			log_warn("Couldn't serve statistics on %s: %s (choose another address "
				 "with --listen or 'listen =' in the configuration)", listen,
				 strerror(-err));
		else
			log_info("statistics on http://%s/stats, /metrics and /fdb", listen);
	}
	err = events_open(&d->events, d->br.name);
	if (err)
		log_warn("Couldn't open the event stream %s: %s (xdpbr monitor won't work)",
			 d->events.path, strerror(-err));
	d->rb = ring_buffer__new(d->br.maps.events, on_ringbuf_event, d, NULL);
	if (!d->rb)
		log_warn("Couldn't read the datapath's event ring buffer: %s", strerror(errno));
}

static void stop_services(struct daemon *d)
{
	http_stop(&d->http);
	events_close(&d->events);
	ring_buffer__free(d->rb);
	d->rb = NULL;
}

static int add_unique(char ***v, int *n, const char *s)
{
	char **t;

	for (int i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s))
			return 0;
	t = realloc(*v, (size_t)(*n + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	*v = t;
	(*v)[(*n)++] = (char *)s;
	return 0;
}

/* The command line; merge() completes it from the configuration file. */
struct cmdline {
	struct bridge_opts o;		/* what bridge_open is given */
	bool mode_set;			/* -m: wins over the file's mode */
	bool path_set;			/* -d: wins over the file's datapath */
	bool share_set;			/* --xdp-share: wins over the file's */
	bool check_only;		/* -n */
	bool help;			/* -h */
	bool version;			/* -V */
	enum log_level level;
	char **args;			/* BRIDGE [PORT...] */
	int nargs;
	const char *name;		/* the bridge: first argument or the file's */
	char **ports;			/* the file's ports, then the command line's */
	int nports;
};

/* One option into cl (or d); 0 or -EINVAL, having said why. */
static int parse_option(struct daemon *d, struct cmdline *cl, int opt, const char *arg)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	uint64_t v;

	switch (opt) {
	case 'c':
		d->cfg_path = arg;
		return 0;
	case 'n':
		cl->check_only = true;
		return 0;
	case 'm':
		if (port_mode_parse(arg, &cl->o.mode)) {
			fprintf(stderr, "xdpbrd: invalid mode '%s' (native, generic or auto)\n", arg);
			return -EINVAL;
		}
		cl->mode_set = true;
		return 0;
	case 'd':
		if (port_path_parse(arg, &cl->o.path)) {
			fprintf(stderr, "xdpbrd: invalid datapath '%s' (xdp, tc or auto)\n", arg);
			return -EINVAL;
		}
		cl->path_set = true;
		return 0;
	case 'k':
		d->keep = true;
		return 0;
	case OPT_XDP_SHARE:
		if (arg && strcmp(arg, "on") && strcmp(arg, "off")) {
			fprintf(stderr, "xdpbrd: invalid --xdp-share '%s' (on or off)\n", arg);
			return -EINVAL;
		}
		cl->o.xdp_share = !arg || !strcmp(arg, "on");
		cl->share_set = true;
		return 0;
	case 's':
		if (parse_u64(arg, UINT64_MAX, &v) || setting_check(&settings[SET_FDB_SIZE], v)) {
			fprintf(stderr, "xdpbrd: invalid FDB size '%s' (%u to %u)\n",
				arg, XDPBR_FDB_SIZE_MIN, XDPBR_FDB_SIZE_MAX);
			return -EINVAL;
		}
		cl->o.fdb_size = (uint32_t)v;
		return 0;
	case 'C':
		if (parse_u64(arg, UINT64_MAX, &v) || setting_check(&settings[SET_FDB_CACHE], v)) {
			fprintf(stderr, "xdpbrd: invalid FDB cache size '%s' "
				"(0 = off, or a power of two from 4 to %u)\n",
				arg, XDPBR_FDB_CACHE_MAX);
			return -EINVAL;
		}
		cl->o.fdb_cache = (uint32_t)v;
		cl->o.fdb_cache_set = true;
		return 0;
	case 'a':
		if (parse_u64(arg, UINT64_MAX, &v) || setting_check(&settings[SET_AGEING_TIME], v)) {
			fprintf(stderr, "xdpbrd: invalid ageing time '%s' (0 to %u s)\n",
				arg, XDPBR_AGEING_MAX_S);
			return -EINVAL;
		}
		cl->o.ageing_ns = ageing_ns_of(v);
		d->ageing_opt_ns = cl->o.ageing_ns;
		return 0;
	case 'l':
		if (config_listen_parse(arg, &ss, &sl)) {
			fprintf(stderr, "xdpbrd: invalid listen address '%s' "
				"(ADDR:PORT, [ADDR]:PORT or none)\n", arg);
			return -EINVAL;
		}
		d->listen = arg;
		return 0;
	case 'H':
		if (strcmp(arg, "on") && strcmp(arg, "off")) {
			fprintf(stderr, "xdpbrd: invalid host interface setting '%s' (on or off)\n",
				arg);
			return -EINVAL;
		}
		d->host.opt = !strcmp(arg, "on");
		return 0;
	case 'v':
		cl->level = LOG_LVL_DEBUG;
		return 0;
	case 'V':
		cl->version = true;
		return 0;
	case 'h':
		cl->help = true;
		return 0;
	default:
		print_usage(stderr);
		return -EINVAL;
	}
}

/* Options up to -h or the first error; the arguments after them. */
static int parse_options(struct daemon *d, struct cmdline *cl, int argc, char **argv)
{
	int opt, err;

	while ((opt = getopt_long(argc, argv, "c:nm:d:ks:C:a:l:H:vVh", long_opts, NULL)) != -1) {
		err = parse_option(d, cl, opt, optarg);
		if (err || cl->help || cl->version)
			return err;
	}
	cl->args = argv + optind;
	cl->nargs = argc - optind;
	return 0;
}

static int load_config(struct daemon *d)
{
	char err[512];
	int ret = config_parse_file(d->cfg_path, &d->cfg, err, sizeof(err));

	if (ret)
		log_err("%s", err);
	return ret;
}

/* -n: the file parsed; say so. */
static int check_config(const struct daemon *d)
{
	if (!d->cfg_path) {
		log_err("-n needs a configuration file (-c FILE)");
		return -EINVAL;
	}
	printf("%s: configuration OK\n", d->cfg_path);
	return 0;
}

/* The bridge's name: the first argument, or the file's, which must agree. */
static int merge_name(const struct daemon *d, struct cmdline *cl)
{
	if (cl->nargs > 0) {
		cl->name = cl->args[0];
		cl->args++;
		cl->nargs--;
	}
	if (d->cfg_path && d->cfg.name[0]) {
		if (cl->name && strcmp(cl->name, d->cfg.name)) {
			log_err("bridge '%s' on the command line, '%s' in %s",
				cl->name, d->cfg.name, d->cfg_path);
			return -EINVAL;
		}
		cl->name = d->cfg.name;
	}
	if (!cl->name) {
		print_usage(stderr);
		return -EINVAL;
	}
	if (bridge_name_valid(cl->name)) {
		log_err("invalid bridge name '%s' (1-15 characters of "
			"letters, digits, '_', '.', '-')", cl->name);
		return -EINVAL;
	}
	return 0;
}

/* The ports of the file, then those of the command line it does not have. */
static int merge_ports(struct daemon *d, struct cmdline *cl)
{
	for (int i = 0; i < cl->nargs; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(cl->args[i], cl->args[j])) {
				log_err("port '%s' is given twice", cl->args[i]);
				return -EINVAL;
			}
	d->cli_ports = cl->args;
	d->ncli_ports = cl->nargs;
	for (size_t i = 0; i < d->cfg.nports; i++)
		if (add_unique(&cl->ports, &cl->nports, d->cfg.ports[i].name))
			return -ENOMEM;
	for (int i = 0; i < d->ncli_ports; i++)
		if (add_unique(&cl->ports, &cl->nports, d->cli_ports[i]))
			return -ENOMEM;
	/* With the bridge device, ports may come from it (hostdev.h). */
	if (cl->nports < 1 && !hostdev_wanted(&d->host, &d->cfg)) {
		log_err("no ports: name them on the command line or in "
			"[port NAME] sections of the configuration");
		return -EINVAL;
	}
	if (cl->nports > XDPBR_PORTS_PER_BRIDGE) {
		log_err("too many ports (at most %d)", XDPBR_PORTS_PER_BRIDGE);
		return -EINVAL;
	}
	return 0;
}

/* The file's settings where the command line gave none: it wins. 0, or
 * -EINVAL (a usage error, said) or -ENOMEM. */
static int merge(struct daemon *d, struct cmdline *cl)
{
	const struct config *c = &d->cfg;
	int err = merge_name(d, cl);

	if (!err)
		err = merge_ports(d, cl);
	if (err)
		return err;
	if (!cl->mode_set && setting_given(&c->set, SET_MODE))
		cl->o.mode = (enum xdpbr_mode)c->set.v[SET_MODE];
	if (!cl->path_set)
		cl->o.path = (enum port_path)setting_value(&c->set, SET_DATAPATH);
	if (!cl->share_set && setting_given(&c->set, SET_XDP_SHARE))
		cl->o.xdp_share = c->set.v[SET_XDP_SHARE];
	if (!cl->o.fdb_size && setting_given(&c->set, SET_FDB_SIZE))
		cl->o.fdb_size = (uint32_t)c->set.v[SET_FDB_SIZE];
	if (!cl->o.fdb_cache_set && setting_given(&c->set, SET_FDB_CACHE)) {
		cl->o.fdb_cache = (uint32_t)c->set.v[SET_FDB_CACHE];
		cl->o.fdb_cache_set = true;
	}
	if (!cl->o.ageing_ns && setting_given(&c->set, SET_AGEING_TIME))
		cl->o.ageing_ns = ageing_ns_of(c->set.v[SET_AGEING_TIME]);
	return 0;
}

/* Handlers only set flags; the signals are delivered inside ppoll(). */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* From here on they wait for ppoll() (run): no wake-up is lost. */
static void block_signals(void)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, NULL);
}

/* stpd.h: a port's section of the file (NULL: none). */
static const struct config_port *stp_port_cfg(const char *ifname, void *arg)
{
	return cfg_port_applying(arg, ifname);
}

/* ctl's port flush hook: a port gone down loses its entries in steps. */
static void on_port_flush(uint32_t slot, void *arg)
{
	struct daemon *d = arg;

	fdbflush_port(&d->flush, slot);
}

/* Before any port is attached: flushes in steps, and the spanning tree
 * decides whether the pinned port states still hold. */
static void stp_begin(struct daemon *d)
{
	fdbflush_init(&d->flush, &d->br.maps);
	ctl_set_port_flush_hook(on_port_flush, d);
	d->stp.port_cfg = stp_port_cfg;
	d->stp.arg = d;
	stpd_begin(&d->stp, &d->br, &d->flush, &d->cfg.stp);
}

/* No ageing asked for: a taken-over Linux bridge's is kept (brmirror's
 * first look then finds both sides agreed). */
static int keep_ageing(struct daemon *d)
{
	struct xdpbr_config xc;
	int err;

	d->ageing_kept_ns = hostdev_ageing_ns(&d->host);
	if (!d->ageing_kept_ns)
		return 0;
	err = ctl_config_get(&d->br.maps, &xc);
	if (!err) {
		xc.ageing_ns = d->ageing_kept_ns;
		err = ctl_config_set(&d->br.maps, &xc);
	}
	if (err)
		log_warn("Couldn't set the ageing time: %s", strerror(-err));
	return err;
}

/* Loads or adopts the bridge, attaches its ports, applies the file, and
 * watches the links. 0 or -errno (said why); the caller undoes it. */
static int open_bridge(struct daemon *d, const struct cmdline *cl)
{
	int err;

	stpd_peek(cl->name);
	err = bridge_open(&d->br, cl->name, &cl->o);
	if (!err)
		stp_begin(d);
	d->br.policy = (struct bridge_policy){
		.port_init = init_port_from_cfg,
		.port_path = port_path_from_cfg,
		.port_share = port_share_from_cfg,
		.arg = d,
	};
	/* Ports whose interface went while no daemon ran go before any port is
	 * added: an interface that got one's ifindex is not that port. */
	if (!err && d->br.adopted) {
		int gone = bridge_reconcile_ports(&d->br);

		if (gone < 0)
			log_warn("Couldn't check the pinned ports against the interfaces: %s",
				 strerror(-gone));
	}
	if (!err && hostdev_wanted(&d->host, &d->cfg))
		err = hostdev_open(&d->host, &d->cfg);
	if (!err && !cl->o.ageing_ns)
		err = keep_ageing(d);
	if (!err && d->cfg.vxlan.line)
		err = evpn_open(&d->evpn, d->br.name, &d->cfg.vxlan, &d->br.maps);
	/* Check every port before attaching any: nothing half-attached. */
	for (int i = 0; !err && i < cl->nports; i++)
		err = bridge_check_port(&d->br, cl->ports[i]);
	for (int i = 0; !err && i < cl->nports; i++)
		err = quit ? -EINTR : bridge_add_port(&d->br, cl->ports[i]);
	if (!err)
		err = quit ? -EINTR : bridge_adopt_ports(&d->br);
	if (!err)
		err = hostdev_attach(&d->host);
	if (!err && d->cfg.vxlan.line)
		err = evpn_attach(&d->evpn, &d->br);
	if (!err && d->cfg_path) {
		err = apply_bridge_cfg(d, &d->cfg);
		for (size_t i = 0; !err && i < d->cfg.nports; i++)
			err = apply_port_cfg(d, NULL, &d->cfg.ports[i], &d->cfg);
	}
	if (!err) {
		d->nl = linkwatch_open();
		if (!d->nl) {
			err = -errno;
			log_warn("Couldn't watch link events over netlink: %s", strerror(-err));
		}
	}
	return err;
}

/* A start that failed: what it did undone (an adopted bridge keeps its
 * pins and the ports it had). */
static void start_failed(struct daemon *d, const char *name)
{
	stpd_close(&d->stp);
	hostdev_hand_back(&d->host);
	bridge_close(&d->br, false, true);
	if (d->host.made)
		hostdev_close(&d->host);
	evpn_close(&d->evpn, !d->evpn.made);
	log_err("bridge %s not started", name);
	config_free(&d->cfg);
}

static void stp_open(struct daemon *d)
{
	uint8_t mac[6];

	hostdev_mac(&d->host, &d->cfg, mac);
	stpd_open(&d->stp, &d->events, mac);
}

/* The bridge forwarding, the services up, privileges dropped. 0 or -errno;
 * nothing is left behind on failure. */
/* Whether the bridge or any configured port shares its XDP hook. */
static bool share_wanted(const struct daemon *d, const struct cmdline *cl)
{
	bool any = cl->o.xdp_share;

	for (size_t i = 0; i < d->cfg.nports; i++)
		any |= share_of(&d->cfg.ports[i]) == XDP_SHARE_ON;
	return any;
}

static int start(struct daemon *d, const struct cmdline *cl)
{
	bool low_port;
	int err;

	log_init("xdpbrd", cl->level, false);
	log_libbpf();
	if (geteuid() != 0) {
		log_err("must be run as root: loading XDP programs needs CAP_BPF, "
			 "CAP_NET_ADMIN and CAP_SYS_ADMIN");
		return -EPERM;
	}
	low_port = listen_port_low(listen_of(d, &d->cfg));
	if (share_wanted(d, cl))
		privs_keep_sys_admin();
	err = privs_check(low_port);
	if (err) {
		config_free(&d->cfg);
		return err;
	}
	catch_signals();
	netns_collect();	/* dead namespaces' pins; ours in the old layout moved */
	err = open_bridge(d, cl);
	if (err) {
		start_failed(d, cl->name);
		return err;
	}
	d->start_ns = mono_ns();
	ctl_set_delete_hook(on_deleted, d);
	d->sweep.on_aged = on_aged;
	d->sweep.arg = d;
	resync_links(d);
	hostdev_ports_follow(&d->host);
	mtus_follow(d, true);
	stp_open(d);
	start_services(d);
	block_signals();
	err = privs_drop(low_port);
	if (err) {
		stop_services(d);
		start_failed(d, cl->name);
		return err;
	}
	log_info("bridge %s: forwarding on %d ports (%s, state in %s)", cl->name, d->br.nports,
		 d->br.adopted ? "adopted the pinned bridge" : "new bridge", d->br.dir);
	sd_notifyf(0, "READY=1\nSTATUS=forwarding on %d ports", d->br.nports);
	return 0;
}

/* After the loop: why it ended, then the bridge left forwarding (--keep)
 * or taken down. */
static void stop(struct daemon *d, int ret)
{
	const char *what = d->keep ? "leaving the bridge forwarding" : "detaching";

	sd_notify(0, "STOPPING=1");
	if (quit)
		log_info("caught signal %d, %s", (int)quit, what);
	else
		log_err("main loop failed: %s; %s", strerror(-ret), what);
	stpd_close(&d->stp);
	stop_services(d);
	mcast_close(&d->mcast);		/* while the maps are open */
	if (!d->keep)
		hostdev_hand_back(&d->host);
	bridge_close(&d->br, d->keep, false);
	if (!d->keep)
		hostdev_close(&d->host);
	evpn_close(&d->evpn, d->keep);
	brmirror_close(&d->mirror, d->keep);
	linkwatch_close(d->nl);
	config_free(&d->cfg);
	free(d->pending);
}

/* Exit status: 0, 1 for a failure, 2 for a usage error. */
int main(int argc, char **argv)
{
	static struct daemon d;
	struct cmdline cl = { .o.mode = XDPBR_MODE_NONE, .level = LOG_LVL_INFO };
	int ret;

	hostdev_init(&d.host, &d.br, -1);
	/* before the first message: start() sets the level of -v */
	log_init("xdpbrd", LOG_LVL_INFO, false);
	if (parse_options(&d, &cl, argc, argv))
		return 2;
	if (cl.help) {
		print_usage(stdout);
		return 0;
	}
	if (cl.version) {
		puts(version_line("xdpbrd"));
		return 0;
	}
	if (d.cfg_path && load_config(&d))
		return 1;
	if (cl.check_only)
		return check_config(&d) ? 2 : 0;
	ret = merge(&d, &cl);
	if (ret)
		return ret == -EINVAL ? 2 : 1;
	ret = start(&d, &cl);
	free(cl.ports);
	if (ret)
		return 1;
	ret = run(&d);
	stop(&d, ret);
	return ret ? 1 : 0;
}

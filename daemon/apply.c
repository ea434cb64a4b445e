// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* apply.c - the configuration applied: at start, to ports as they
 * appear, and on reloads (daemon.h). */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "config.h"
#include "ctl.h"
#include "daemon.h"
#include "fault.h"
#include "log.h"
#include "netlink.h"
#include "settings.h"
#include "util.h"
#include "xdpbr_rules.h"

bool is_cli_port(const struct daemon *d, const char *name)
{
	for (int i = 0; i < d->ap.ncli_ports; i++)
		if (!strcmp(d->ap.cli_ports[i], name))
			return true;
	return false;
}

/* The file's, else a taken-over bridge's, else the default. */
static uint16_t default_pvid_of(const struct daemon *d, const struct config *c)
{
	if (!setting_given(&c->set, SET_DEFAULT_PVID) && d->ap.vlan_kept)
		return d->ap.pvid_kept;
	return (uint16_t)setting_value(&c->set, SET_DEFAULT_PVID);
}

static bool vlan_filtering_of(const struct daemon *d, const struct config *c)
{
	if (!setting_given(&c->set, SET_VLAN_FILTERING) && d->ap.vlan_kept)
		return d->ap.filtering_kept;
	return setting_value(&c->set, SET_VLAN_FILTERING);
}

/* Bridge-wide settings of the config file, applied live. */
int apply_bridge_cfg(struct daemon *d, const struct config *c)
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
	if (!setting_given(&c->set, SET_AGEING_TIME) && d->ap.ageing_kept_ns)
		xc.ageing_ns = d->ap.ageing_kept_ns;
	if (d->ap.ageing_opt_ns)
		xc.ageing_ns = d->ap.ageing_opt_ns;
	err = ctl_config_set(&d->br.maps, &xc);
	if (!err)
		err = ctl_set_default_pvid(&d->br.maps, default_pvid_of(d, c), d->br.prog_egress_fd);
	if (!err)
		err = ctl_vlan_filtering(&d->br.maps, vlan_filtering_of(d, c));
	return err;
}

/* A port's VLANs as the file says; a port with no VLAN keys is an untagged
 * member of the default PVID, like a new port of the kernel bridge. */
static int apply_port_vlans(struct daemon *d, const struct config *c,
			    const struct config_port *cp, uint32_t ifindex)
{
	struct xdpbr_vlan_port v = { 0 };
	uint16_t pvid = setting_given(&cp->set, SET_PVID) ? (uint16_t)cp->set.v[SET_PVID] :
			default_pvid_of(d, c);

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

const struct config_port *cfg_port(const struct daemon *d, const char *name)
{
	return d->ap.cfg_path ? config_port_find(&d->ap.cfg, name) : NULL;
}

/* Forgets the static entries of port still to be written (it is being
 * applied again). */
static void pending_drop_port(struct daemon *d, const char *port)
{
	for (size_t i = 0; i < d->ap.npending;) {
		if (strcmp(d->ap.pending[i].port, port))
			i++;
		else
			d->ap.pending[i] = d->ap.pending[--d->ap.npending];
	}
}

/* The FDB refused a static entry of the file (full, most likely, after a
 * MAC flood): said, and kept to be tried again every second and at each
 * reload (statics_retry). The bridge runs on without it meanwhile. */
static void static_failed(struct daemon *d, const char *port, const struct config_static *s,
			  int err)
{
	struct pending_static *t = realloc(d->ap.pending, (d->ap.npending + 1) * sizeof(*t));
	char mac[MAC_STRLEN];

	log_warn("%s:%d: Couldn't write static entry %s vlan %u on %s: %s; trying again "
		 "every second", d->ap.cfg_path, s->line, mac_format(s->mac, mac), s->vlan, port,
		 err == -E2BIG ? "the FDB is full (a larger fdb_size, or fdb_max_learned "
		 "below it, leaves room)" : strerror(-err));
	if (!t)
		return;
	d->ap.pending = t;
	t = &d->ap.pending[d->ap.npending++];
	snprintf(t->port, sizeof(t->port), "%s", port);
	t->s = *s;
}

/* A port's flags, limits (learning, storm control) and static entries; old
 * is what was applied before (NULL: nothing), so that statics dropped from
 * the file are removed. Storm limits are always written: a key dropped from
 * the file lifts its limit. A static entry the FDB refuses is no error: it
 * is said and tried again (static_failed). */
int apply_port_cfg(struct daemon *d, const struct config_port *old,
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
void statics_retry(struct daemon *d)
{
	char mac[MAC_STRLEN];
	size_t i = 0;

	while (i < d->ap.npending) {
		const struct pending_static *ps = &d->ap.pending[i];
		uint32_t ifindex = if_nametoindex(ps->port);
		struct xdpbr_port p;
		int err = -ENODEV;

		if (!static_in(cfg_port(d, ps->port), &ps->s)) {
			d->ap.pending[i] = d->ap.pending[--d->ap.npending];
			continue;
		}
		if (ifindex && !ctl_port_get(&d->br.maps, ifindex, &p))
			err = ctl_fdb_add(&d->br.maps, ps->s.mac, ps->s.vlan, ifindex, true);
		if (err) {
			i++;
			continue;
		}
		log_info("%s:%d: static entry %s vlan %u on %s written at last", d->ap.cfg_path,
			 ps->s.line, mac_format(ps->s.mac, mac), ps->s.vlan, ps->port);
		d->ap.pending[i] = d->ap.pending[--d->ap.npending];
	}
}

/* The configuration of port ifname, from the file being applied (a reload)
 * or the running one; NULL when it has none. */
const struct config_port *cfg_port_applying(const struct daemon *d, const char *ifname)
{
	if (!d->ap.cfg_path)
		return NULL;
	return config_port_find(d->ap.pending_cfg ? d->ap.pending_cfg : &d->ap.cfg, ifname);
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
enum xdp_share share_of(const struct config_port *cp)
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

struct bridge_policy apply_policy(struct daemon *d)
{
	return (struct bridge_policy){
		.port_init = init_port_from_cfg,
		.port_path = port_path_from_cfg,
		.port_share = port_share_from_cfg,
		.arg = d,
	};
}

/* stpd.h: a port's section of the file (NULL: none). */
const struct config_port *stp_port_cfg(const char *ifname, void *arg)
{
	return cfg_port_applying(arg, ifname);
}

/* No ageing asked for: a taken-over Linux bridge's is kept (brmirror's
 * first look then finds both sides agreed). */
int keep_ageing(struct daemon *d)
{
	struct xdpbr_config xc;
	int err;

	d->ap.ageing_kept_ns = hostdev_ageing_ns(&d->host);
	if (!d->ap.ageing_kept_ns)
		return 0;
	err = ctl_config_get(&d->br.maps, &xc);
	if (!err) {
		xc.ageing_ns = d->ap.ageing_kept_ns;
		err = ctl_config_set(&d->br.maps, &xc);
	}
	if (err)
		log_warn("Couldn't set the ageing time: %s", strerror(-err));
	return err;
}

int keep_vlans(struct daemon *d)
{
	const struct config *c = &d->ap.cfg;
	bool fk = !setting_given(&c->set, SET_VLAN_FILTERING);
	bool pk = !setting_given(&c->set, SET_DEFAULT_PVID);
	int err;

	d->ap.vlan_kept = hostdev_vlans(&d->host, &d->ap.filtering_kept, &d->ap.pvid_kept);
	if (!d->ap.vlan_kept)
		return 0;
	if (fk && pk)
		log_info("Linux bridge %s: its vlan_filtering %d and default_pvid %u kept",
			 d->host.hif.name, d->ap.filtering_kept, d->ap.pvid_kept);
	else if (fk || pk)
		log_info("Linux bridge %s: its %s kept (the file gives the other)",
			 d->host.hif.name, fk ? "vlan_filtering" : "default_pvid");
	err = ctl_set_default_pvid(&d->br.maps, default_pvid_of(d, c), d->br.prog_egress_fd);
	if (!err)
		err = ctl_vlan_filtering(&d->br.maps, vlan_filtering_of(d, c));
	if (err)
		log_warn("Couldn't set vlan_filtering and default_pvid: %s", strerror(-err));
	return err;
}

bool kernel_vlans_kept(uint32_t ifindex, void *arg)
{
	const struct daemon *d = arg;
	const struct config_port *cp;
	char name[IF_NAMESIZE];

	if (!d->ap.vlan_kept || !if_indextoname(ifindex, name))
		return false;
	cp = cfg_port(d, name);
	return !cp || (!config_port_vlans_set(cp) && !setting_given(&cp->set, SET_PVID));
}

const char *listen_of(const struct daemon *d, const struct config *c)
{
	if (d->ap.listen)
		return d->ap.listen;
	return c->listen[0] ? c->listen : CONFIG_LISTEN_DEFAULT;
}

static bool vxlan_same(const struct config_vxlan *a, const struct config_vxlan *b)
{
	return !a->line == !b->line && a->vni == b->vni && a->dstport == b->dstport &&
	       a->local_ip.s_addr == b->local_ip.s_addr && !strcmp(a->underlay, b->underlay);
}

void apply_reload(struct daemon *d)
{
	struct config nc = { 0 };
	char err[512];

	if (!d->ap.cfg_path) {
		log_info("SIGHUP: no configuration file to reload");
		return;
	}
	sd_notify(0, "RELOADING=1");
	if (config_parse_file(d->ap.cfg_path, &nc, err, sizeof(err))) {
		log_warn("%s; keeping the running configuration", err);
		sd_notify(0, "READY=1");
		return;
	}
	if (nc.name[0] && strcmp(nc.name, d->br.name))
		log_warn("%s: bridge name changed to '%s': takes effect on restart only",
			 d->ap.cfg_path, nc.name);
	if (!setting_same(&nc.set, &d->ap.cfg.set, SET_FDB_SIZE) ||
	    !setting_same(&nc.set, &d->ap.cfg.set, SET_FDB_CACHE) ||
	    !setting_same(&nc.set, &d->ap.cfg.set, SET_MODE))
		log_warn("%s: fdb_size, fdb_cache and mode take effect on restart only",
			 d->ap.cfg_path);
	if (apply_bridge_cfg(d, &nc))
		log_warn("couldn't apply the bridge settings");
	if (!vxlan_same(&nc.vxlan, &d->ap.cfg.vxlan))
		log_warn("%s: [vxlan] takes effect on restart only", d->ap.cfg_path);
	if (strcmp(listen_of(d, &nc), listen_of(d, &d->ap.cfg))) {
		const char *listen = listen_of(d, &nc);

		http_stop(&d->http);
		if (!config_listen_none(listen) &&
		    http_start(&d->http, d->br.name, listen, d->lp.start_ns))
			log_warn("Couldn't serve statistics on %s", listen);
		else if (!config_listen_none(listen))
			log_info("statistics now on http://%s/", listen);
	}

	/* Ports that left the file (and the command line) leave the bridge. */
	for (size_t i = 0; i < d->ap.cfg.nports; i++) {
		const char *name = d->ap.cfg.ports[i].name;

		if (!config_port_find(&nc, name) && !is_cli_port(d, name)) {
			hostdev_port_left(&d->host, name);
			bridge_del_port(&d->br, name);
		}
	}
	d->ap.pending_cfg = &nc;
	hostdev_reload(&d->host, &d->ap.cfg, &nc);
	host_port_follow(d);
	for (size_t i = 0; i < nc.nports; i++) {
		const struct config_port *cp = &nc.ports[i];
		const struct config_port *old = config_port_find(&d->ap.cfg, cp->name);
		uint32_t ifindex = if_nametoindex(cp->name);
		struct xdpbr_port p;
		bool is_new = !ifindex || ctl_port_get(&d->br.maps, ifindex, &p);

		if (is_new && bridge_add_port(&d->br, cp->name)) {
			log_warn("%s:%d: couldn't add port %s", d->ap.cfg_path, cp->line, cp->name);
			continue;
		}
		if (is_new) {
			struct link_info li;

			old = NULL;
			if (!link_get_info(if_nametoindex(cp->name), &li))
				port_link_state(d, if_nametoindex(cp->name), li.flags);
		}
		if ((is_new || !old || old->unapplied || !config_port_equal(old, cp) ||
		     default_pvid_of(d, &nc) != default_pvid_of(d, &d->ap.cfg)) &&
		    apply_port_cfg(d, old, cp, &nc)) {
			log_warn("%s:%d: couldn't apply port %s; the next reload tries again",
				 d->ap.cfg_path, cp->line, cp->name);
			nc.ports[i].unapplied = true;
		}
	}
	d->ap.pending_cfg = NULL;
	hostdev_ports_follow(&d->host);
	{
		uint8_t mac[6];

		hostdev_mac(&d->host, &nc, mac);
		stpd_reload(&d->stp, &nc.stp, mac);
	}
	config_free(&d->ap.cfg);
	d->ap.cfg = nc;
	statics_retry(d);
	log_info("reloaded %s", d->ap.cfg_path);
	sd_notify(0, "READY=1");
}

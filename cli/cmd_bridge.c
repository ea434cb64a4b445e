// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_bridge.c - xdpbr bridge show | set | add | del: the bridge-wide settings
 * and figures, and a bridge with no daemon made and ended. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bridge.h"
#include "common.h"
#include "ctl.h"
#include "events.h"
#include "fdbtab.h"
#include "xdpbr_rules.h"
#include "paths.h"
#include "ports.h"
#include "print.h"

/* What bridge show shows, read from the maps. */
struct bridge_info {
	struct xdpbr_config cfg;
	uint32_t fdb_size;
	size_t fdb_entries, fdb_static;
	uint64_t learned;
	size_t ports;
	bool daemon;			/* an xdpbrd runs it */
	uint64_t netns_cookie;		/* its network namespace's, if not the host's */
};

/* The ageing time as the user sets it: seconds, 0 = never. */
static uint64_t ageing_s(const struct xdpbr_config *cfg)
{
	if (cfg->ageing_ns == XDPBR_AGEING_NEVER)
		return 0;
	if (cfg->ageing_ns == 0)
		return XDPBR_DEFAULT_AGEING_S;
	return cfg->ageing_ns / XDPBR_NSEC_PER_SEC;
}

/* The link-local limit as the user sets it: frames a second, 0 = none. */
static uint64_t linklocal_limit(const struct xdpbr_config *cfg)
{
	__u32 pps = xdpbr_linklocal_pps(cfg);

	return pps == XDPBR_LINKLOCAL_NONE ? 0 : pps;
}

static size_t count_static(const struct fdb_entry *e, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += !!(e[i].val.flags & XDPBR_FDB_STATIC);
	return k;
}

static int bridge_info_read(const struct target *t, struct bridge_info *b)
{
	struct bpf_map_info mi = {};
	__u32 mlen = sizeof(mi);
	struct fdb_entry *e = NULL;
	struct port_entry *p = NULL;
	const struct xdpbr_paths *paths;
	int err;

	memset(b, 0, sizeof(*b));
	err = ctl_config_get(&t->m, &b->cfg);
	if (!err && bpf_obj_get_info_by_fd(t->m.fdb, &mi, &mlen))
		err = -errno;
	if (!err)
		err = fdb_dump(t->m.fdb, &e, &b->fdb_entries);
	if (!err)
		err = ctl_learned_get(&t->m, XDPBR_LEARNED_TOTAL, &b->learned);
	if (!err)
		err = ports_dump(t->m.ports, &p, &b->ports);
	if (!err) {
		b->fdb_size = mi.max_entries;
		b->fdb_static = count_static(e, b->fdb_entries);
		b->daemon = events_daemon_runs(t->br);
		b->netns_cookie = paths_get(&paths) || !paths->keyed ? 0 : paths->cookie;
	}
	free(e);
	free(p);
	return err;
}

/* "BRIDGE: ageing_time N ...", or [{"ifname": BRIDGE, "ageing_time": N, ...}]. */
static void print_bridge(const char *br, const struct bridge_info *b)
{
	print_open_array(NULL);
	print_open_object(NULL);
	print_string(PRINT_ANY, "ifname", "%s:", br);
	print_u64(PRINT_ANY, "ageing_time", " ageing_time %llu", ageing_s(&b->cfg));
	print_u64(PRINT_ANY, "fdb_max_learned", " fdb_max_learned %llu",
		  b->cfg.fdb_max_learned);
	print_u64(PRINT_ANY, "linklocal_limit", " linklocal_limit %llu", linklocal_limit(&b->cfg));
	print_onoff(PRINT_ANY, "vlan_filtering", " vlan_filtering %s",
		    b->cfg.flags & XDPBR_CFG_VLAN_FILTERING);
	print_u64(PRINT_ANY, "default_pvid", " default_pvid %llu", ctl_default_pvid(&b->cfg));
	print_u64(PRINT_ANY, "fdb_size", " fdb_size %llu", b->fdb_size);
	print_u64(PRINT_ANY, "fdb_entries", " fdb_entries %llu", b->fdb_entries);
	print_u64(PRINT_ANY, "fdb_dynamic", " fdb_dynamic %llu",
		  b->fdb_entries - b->fdb_static);
	print_u64(PRINT_ANY, "fdb_static", " fdb_static %llu", b->fdb_static);
	print_u64(PRINT_ANY, "learned", " learned %llu", b->learned);
	print_u64(PRINT_ANY, "ports", " ports %llu", b->ports);
	/* where a person finds its pins: xdpbr-netns/cookie-C/ */
	if (b->netns_cookie)
		print_u64(PRINT_ANY, "netns_cookie", " netns_cookie %llu", b->netns_cookie);
	/* What a bridge without its daemon lacks, said where it is shown. */
	print_onoff(PRINT_JSON, "daemon", NULL, b->daemon);
	print_string(PRINT_FP, NULL, " daemon %s", b->daemon ? "running" :
		     "none (no ageing sweeps: aged entries are ignored, not removed; "
		     "no link events, HTTP or events)");
	print_close_object();
	print_close_array();
	print_nl();
}

int do_bridge_add(const struct cli_cmd *c, struct target *t)
{
	int err = bridge_create(c->name);	/* logs the reason of a failure */

	if (err)
		return cli_error(err, "couldn't add bridge %s: %s%s", c->name, strerror(-err),
				 errno_hint(err));
	return 0;
}

int do_bridge_del(const struct cli_cmd *c, struct target *t)
{
	int err = bridge_destroy(c->name);

	if (err)
		return cli_error(err, "couldn't delete bridge %s: %s%s", c->name,
				 strerror(-err), errno_hint(err));
	return 0;
}

int do_bridge_show(const struct cli_cmd *c, struct target *t)
{
	struct bridge_info b;
	int err = bridge_info_read(t, &b);

	if (err)
		return cli_error(err, "can't read bridge %s: %s%s", t->br, strerror(-err),
				 errno_hint(err));
	print_begin(c->json, c->pretty);
	print_bridge(t->br, &b);
	print_end();
	return 0;
}

/* Sets the default PVID: ctl rewrites the flood sets through the bridge's
 * egress program. */
static int set_default_pvid(const struct target *t, uint16_t pvid)
{
	int egress = open_egress(t), err;

	if (egress < 0)
		return egress;
	err = ctl_set_default_pvid(&t->m, pvid, egress);
	close(egress);
	if (err)
		return cli_error(err, "can't set the default_pvid of bridge %s: %s%s", t->br,
				 strerror(-err), errno_hint(err));
	return 0;
}

static bool filtering_given(const struct cli_cmd *c, bool on)
{
	return setting_given(&c->set, SET_VLAN_FILTERING) && c->set.v[SET_VLAN_FILTERING] == on;
}

/* The knobs in the config map: ageing, the learning limit, filtering off. */
static int set_config(const struct cli_cmd *c, const struct target *t,
		      struct xdpbr_config *cfg)
{
	int err;

	settings_config_put(&c->set, c->set.given, cfg);
	if (filtering_given(c, false))
		cfg->flags &= ~XDPBR_CFG_VLAN_FILTERING;
	err = ctl_config_set(&t->m, cfg);
	if (err)
		return cli_error(err, "can't configure bridge %s: %s%s", t->br, strerror(-err),
				 errno_hint(err));
	return 0;
}

/*
 * The knobs in the config map, then the default PVID, then vlan_filtering
 * on: like the kernel bridge, the default PVID changes only while VLAN
 * filtering is off, so `vlan_filtering off default_pvid N` turns it off
 * first and `vlan_filtering on default_pvid N` turns it on last.
 */
int do_bridge_set(const struct cli_cmd *c, struct target *t)
{
	uint64_t stp = settings_mask(SETTING_BRIDGE, SETTING_AT_STP);
	uint16_t pvid = (uint16_t)c->set.v[SET_DEFAULT_PVID];
	struct xdpbr_config cfg;
	bool pvid_change;
	int err;

	if (c->set.given & stp) {
		err = stp_request(c, t, 0);
		if (err || !(c->set.given & ~stp))
			return err;
	}
	err = ctl_config_get(&t->m, &cfg);
	if (err)
		return cli_error(err, "can't read the settings of bridge %s: %s%s", t->br,
				 strerror(-err), errno_hint(err));
	pvid_change = setting_given(&c->set, SET_DEFAULT_PVID) && pvid != ctl_default_pvid(&cfg);
	if (pvid_change && (cfg.flags & XDPBR_CFG_VLAN_FILTERING) && !filtering_given(c, false))
		return cli_error(-EBUSY, "can't change the default_pvid of bridge %s while "
				 "vlan_filtering is on (as with the kernel bridge); use "
				 "'xdpbr bridge set vlan_filtering off default_pvid %u', then "
				 "'vlan_filtering on'", t->br, pvid);
	err = set_config(c, t, &cfg);
	if (!err && pvid_change)
		err = set_default_pvid(t, pvid);
	if (err || !filtering_given(c, true))
		return err;
	err = ctl_vlan_filtering(&t->m, true);
	if (err)
		return cli_error(err, "can't turn on vlan_filtering of bridge %s: %s%s", t->br,
				 strerror(-err), errno_hint(err));
	return 0;
}

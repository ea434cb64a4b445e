// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * json.c - bridge state as json-c objects (the daemon's HTTP API, the
 * CLI's stats -j). Formatting: what a port's interface is comes gathered
 * (port_link_read()); the one lookup left here is ifname_shown() for the
 * names of FDB entries' (through a cache) and counters' ports. Interface
 * names are escaped (name_escape): a name may hold any byte but '/', ':'
 * and whitespace, and JSON must be valid UTF-8.
 */
#include <net/if.h>

#include "json.h"
#include "portstats.h"
#include "util.h"
#include "xdpbr_rules.h"

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void add_bool(struct json_object *o, const char *k, int v)
{
	json_object_object_add(o, k, json_object_new_boolean(v != 0));
}

struct json_object *json_fdb_entry(const struct fdb_entry *e, const char *bridge,
				   uint64_t now_ns, struct ifname_cache *names)
{
	struct json_object *o = json_object_new_object();
	struct json_object *flags = json_object_new_array();
	char mac[MAC_STRLEN], ifname[IFNAME_SHOWN];

	add_str(o, "mac", mac_format(e->key.mac, mac));
	add_str(o, "ifname", ifname_cached(names, e->val.ifindex, ifname));
	add_u64(o, "vlan", e->key.vlan);
	add_str(o, "master", bridge);
	add_str(o, "state", fdb_state_name(&e->val));
	if (e->val.flags & XDPBR_FDB_LOCAL)
		json_object_array_add(flags, json_object_new_string("self"));
	else if (fdb_is_sticky(&e->val))
		json_object_array_add(flags, json_object_new_string("sticky"));
	json_object_object_add(o, "flags", flags);
	add_u64(o, "updated", fdb_updated_s(&e->val, now_ns));
	return o;
}

struct json_object *json_port(const struct port_entry *p, const struct port_link *l,
			      const char *state, const char *bridge)
{
	struct json_object *o = json_object_new_object();
	struct json_object *flags = json_object_new_array();

	for (size_t i = 0; i < PORT_IFF_NAMES; i++)
		if (l->ifflags & port_iff_names[i].bit)
			json_object_array_add(flags, json_object_new_string(port_iff_names[i].name));
	add_u64(o, "ifindex", p->ifindex);
	add_str(o, "ifname", l->ifname);
	json_object_object_add(o, "flags", flags);
	add_u64(o, "mtu", (uint64_t)l->mtu);
	add_str(o, "master", bridge);
	add_str(o, "state", state);
	add_str(o, "kind", l->kind);
	add_str(o, "datapath", l->datapath ? l->datapath : "none");
	if (p->port.flags & XDPBR_PORT_HOST)
		add_str(o, "host_interface", l->host_interface);
	add_str(o, "xdp_mode", port_mode_name(l->xdp_mode));
	add_str(o, "xdp_attach", l->xdp_attach ? l->xdp_attach : "none");
	add_u64(o, "xdp_prog_id", l->xdp_prog_id);
	add_u64(o, "slot", p->port.slot);
#define ADD_FLAG(e, bit, name, nl) add_bool(o, name, p->port.flags & XDPBR_PORT_##e);
	XDPBR_PORT_FLAGS(ADD_FLAG)
#undef ADD_FLAG
	add_u64(o, "max_learned", p->port.max_learned);
	add_u64(o, "pvid", p->port.pvid);
	return o;
}

struct json_object *json_storm(const struct xdpbr_storm *st)
{
	struct json_object *o = json_object_new_object();

	add_u64(o, "broadcast", st->pps[XDPBR_STORM_BCAST]);
	add_u64(o, "multicast", st->pps[XDPBR_STORM_MCAST]);
	add_u64(o, "unknown", st->pps[XDPBR_STORM_UNKNOWN]);
	return o;
}

struct json_object *json_port_stats(const struct port_entry *p,
				    const struct xdpbr_stats *s)
{
	struct json_object *o = json_object_new_object();
	char ifname[IFNAME_SHOWN];

	add_str(o, "ifname", p ? ifname_shown(p->ifindex, ifname) : "");
	add_u64(o, "ifindex", p ? p->ifindex : 0);
	for (int c = 0; c < XDPBR_CNT__MAX; c++)
		add_u64(o, counter_names[c], s->c[c]);
	return o;
}

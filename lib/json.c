// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* json.c - bridge state as json-c objects (CLI -j, later the HTTP API). */
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bridge.h"
#include "json.h"
#include "netlink.h"
#include "portstats.h"
#include "util.h"
#include "xdpbr_rules.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000	/* <linux/if.h>, which clashes with <net/if.h> */
#endif

const char *ifname_of(uint32_t ifindex, char *buf)
{
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "if%u", ifindex);
	return buf;
}

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

struct json_object *json_fdb(const struct fdb_entry *e, size_t n,
			     const char *bridge, uint64_t now_ns)
{
	struct json_object *arr = json_object_new_array();
	char mac[MAC_STRLEN], ifname[IF_NAMESIZE];

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();
		struct json_object *flags = json_object_new_array();
		int is_static = e[i].val.flags & XDPBR_FDB_STATIC;

		add_str(o, "mac", mac_format(e[i].key.mac, mac));
		add_str(o, "ifname", ifname_of(e[i].val.ifindex, ifname));
		add_u64(o, "vlan", e[i].key.vlan);
		add_str(o, "master", bridge);
		add_str(o, "state", is_static ? "static" : "");
		if (e[i].val.flags & XDPBR_FDB_LOCAL)
			json_object_array_add(flags, json_object_new_string("self"));
		json_object_object_add(o, "flags", flags);
		add_u64(o, "updated", fdb_updated_s(&e[i].val, now_ns));
		json_object_array_add(arr, o);
	}
	return arr;
}

static const struct {
	unsigned int bit;
	const char *name;
} iff_names[] = {
	{ IFF_BROADCAST, "BROADCAST" }, { IFF_MULTICAST, "MULTICAST" },
	{ IFF_UP, "UP" }, { IFF_LOWER_UP, "LOWER_UP" },
};

struct json_object *json_port(const struct port_entry *p, const char *bridge)
{
	struct json_object *o = json_object_new_object();
	struct json_object *flags = json_object_new_array();
	char ifname[IF_NAMESIZE];
	struct ifreq ifr = {};
	uint32_t prog_id = 0, mode = XDPBR_MODE_NONE, tc_id = 0;
	char kind[IF_NAMESIZE];
	const char *datapath;
	unsigned int ifflags = 0;
	int mtu = 0, fd;

	ifname_of(p->ifindex, ifname);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
		if (!ioctl(fd, SIOCGIFFLAGS, &ifr))
			ifflags = (unsigned short)ifr.ifr_flags;
		if (!ioctl(fd, SIOCGIFMTU, &ifr))
			mtu = ifr.ifr_mtu;
		close(fd);
	}
	/* IFF_LOWER_UP does not fit ifr_flags (short); carrier is in sysfs. */
	if (ifflags & IFF_RUNNING)
		ifflags |= IFF_LOWER_UP;
	for (size_t i = 0; i < ARRAY_SIZE(iff_names); i++)
		if (ifflags & iff_names[i].bit)
			json_object_array_add(flags, json_object_new_string(iff_names[i].name));
	/* What the interface really runs, not what was recorded. */
	xdp_query(p->ifindex, &prog_id, &mode);
	if (port_kind(p->ifindex, kind, sizeof(kind)))
		snprintf(kind, sizeof(kind), "?");
	if (p->port.mode == XDPBR_MODE_TC)
		datapath = !tc_query(p->ifindex, &tc_id) && tc_id ? "tc" : "none";
	else
		datapath = prog_id ? "xdp" : "none";

	add_u64(o, "ifindex", p->ifindex);
	add_str(o, "ifname", ifname);
	json_object_object_add(o, "flags", flags);
	add_u64(o, "mtu", (uint64_t)mtu);
	add_str(o, "master", bridge);
	/* Forwarding only when the link is up and the datapath uses the port. */
	add_str(o, "state", (ifflags & IFF_UP) && (ifflags & IFF_RUNNING) &&
		!(p->port.flags & XDPBR_PORT_DOWN) ? "forwarding" : "disabled");
	add_str(o, "kind", kind);
	add_str(o, "datapath", datapath);
	add_str(o, "xdp_mode", port_mode_name(mode));
	add_u64(o, "xdp_prog_id", prog_id);
	add_u64(o, "slot", p->port.slot);
#define ADD_FLAG(e, bit, name) add_bool(o, name, p->port.flags & XDPBR_PORT_##e);
	XDPBR_PORT_FLAGS(ADD_FLAG)
#undef ADD_FLAG
	add_u64(o, "max_learned", p->port.max_learned);
	add_u64(o, "pvid", p->port.pvid);
	return o;
}

struct json_object *json_port_stats(const struct port_entry *p,
				    const struct xdpbr_stats *s)
{
	struct json_object *o = json_object_new_object();
	char ifname[IF_NAMESIZE];

	add_str(o, "ifname", p ? ifname_of(p->ifindex, ifname) : "");
	add_u64(o, "ifindex", p ? p->ifindex : 0);
	for (int c = 0; c < XDPBR_CNT__MAX; c++)
		add_u64(o, counter_names[c], s->c[c]);
	return o;
}

struct json_object *json_vlan_port(const char *ifname, const struct xdpbr_vlan_port *v,
				   uint16_t pvid)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr = json_object_new_array();

	add_str(o, "ifname", ifname);
	for (unsigned int vid = 1; vid <= XDPBR_VLAN_MAX; vid++) {
		struct json_object *e, *flags;
		unsigned int end = vid;
		bool untagged;

		if (!xdpbr_vlan_test(v->member, vid))
			continue;
		untagged = xdpbr_vlan_test(v->untagged, vid);
		/* A range: consecutive members with the same flags, no PVID. */
		if (vid != pvid)
			while (end < XDPBR_VLAN_MAX && end + 1 != pvid &&
			       xdpbr_vlan_test(v->member, end + 1) &&
			       xdpbr_vlan_test(v->untagged, end + 1) == untagged)
				end++;
		e = json_object_new_object();
		flags = json_object_new_array();
		add_u64(e, "vlan", vid);
		if (end != vid)
			add_u64(e, "vlanEnd", end);
		if (vid == pvid)
			json_object_array_add(flags, json_object_new_string("PVID"));
		if (untagged)
			json_object_array_add(flags, json_object_new_string("Egress Untagged"));
		json_object_object_add(e, "flags", flags);
		json_object_array_add(arr, e);
		vid = end;
	}
	json_object_object_add(o, "vlans", arr);
	return o;
}

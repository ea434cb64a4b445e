// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* overlay.c - the kernel objects of a bridge's VXLAN overlay (overlay.h). */
#include <errno.h>
#include <linux/ethtool.h>
#include <stdio.h>
#include <string.h>

#include "hostif.h"
#include "log.h"
#include "overlay.h"

static const char *const suffix[OV__MAX] = { "-kbr", "-vx", "-gwk", "-gw" };
static const char hash_letter[OV__MAX] = { 'b', 'x', 'k', 'g' };
static const char *const what[OV__MAX] = {
	"kernel bridge", "vxlan device", "gateway (kernel bridge end)", "gateway (port)",
};

void overlay_names(const char *bridge, struct overlay *o)
{
	char h[IF_NAMESIZE];

	memset(o, 0, sizeof(*o));
	/* hostif's hash of the name: "xbh" + 8 hex digits. */
	hostif_port_name_hashed(bridge, h);
	for (int i = 0; i < OV__MAX; i++) {
		char full[2 * IF_NAMESIZE + 8];

		snprintf(full, sizeof(full), "%s%s", bridge, suffix[i]);
		if (strlen(full) < IF_NAMESIZE)
			memcpy(o->name[i], full, strlen(full) + 1);
		else
			snprintf(o->name[i], IF_NAMESIZE, "xv%c%s", hash_letter[i], h + 3);
	}
}

/* 0: ours (or not there), -EEXIST: someone else's, said in why. */
static int check_ours(const char *bridge, const struct overlay *o, int i, char *why,
		      size_t len)
{
	char alias[64];
	struct link_info li;
	int err = link_get_info(o->ifindex[i], &li);

	if (err)
		return err;
	snprintf(alias, sizeof(alias), OVERLAY_ALIAS_FMT, bridge);
	if (!strcmp(li.alias, alias))
		return 0;
	snprintf(why, len, "%s, the name of the overlay's %s, is taken by %s%s%s%s", o->name[i],
		 what[i], li.kind[0] ? li.kind : "a device with no link kind",
		 li.alias[0] ? " (alias '" : "", li.alias, li.alias[0] ? "')" : "");
	return -EEXIST;
}

int overlay_find(const char *bridge, struct overlay *o, char *why, size_t len)
{
	int err;

	overlay_names(bridge, o);
	for (int i = 0; i < OV__MAX; i++) {
		o->ifindex[i] = if_nametoindex(o->name[i]);
		if (!o->ifindex[i])
			continue;
		err = check_ours(bridge, o, i, why, len);
		if (err)
			return err;
	}
	return 0;
}

bool overlay_matches(const struct overlay *o, const struct vxlan_info *want)
{
	struct link_info li;

	for (int i = 0; i < OV__MAX; i++)
		if (!o->ifindex[i])
			return false;
	if (link_get_info(o->ifindex[OV_VXLAN], &li) || strcmp(li.kind, "vxlan"))
		return false;
	return li.vxlan.vni == want->vni && li.vxlan.local.s_addr == want->local.s_addr &&
	       li.vxlan.dstport == want->dstport && li.vxlan.link == want->link &&
	       li.master == o->ifindex[OV_KBRIDGE];
}

static int make(const char *bridge, const struct vxlan_info *v, struct overlay *o)
{
	char alias[64];
	struct link_set ls = { .alias = alias, .no_ipv6_addresses = true };
	int err;

	/* No IPv6 addresses of their own before they go up: the overlay's
	 * objects are plumbing, and any frame they sent would be a MAC that
	 * the bridges learn and zebra advertises. */
	snprintf(alias, sizeof(alias), OVERLAY_ALIAS_FMT, bridge);
	err = link_add_bridge(o->name[OV_KBRIDGE]);
	if (!err)
		err = link_add_vxlan(o->name[OV_VXLAN], v);
	if (!err)
		err = link_add_veth(o->name[OV_GWK], NULL, o->name[OV_GW]);
	for (int i = 0; !err && i < OV__MAX; i++) {
		o->ifindex[i] = if_nametoindex(o->name[i]);
		err = o->ifindex[i] ? link_set(o->ifindex[i], &ls) : -ENODEV;
	}
	ls = (struct link_set){ .master = o->ifindex[OV_KBRIDGE] };
	if (!err)
		err = link_set(o->ifindex[OV_VXLAN], &ls);
	if (!err)
		err = link_set(o->ifindex[OV_GWK], &ls);
	if (!err)
		err = link_brport_learning(o->ifindex[OV_VXLAN], false);
	if (!err)
		err = link_brport_learning(o->ifindex[OV_GWK], false);
	return err;
}

int overlay_xdp_ready(const struct overlay *o)
{
	int err = 0;

	for (int i = OV_GWK; !err && i <= OV_GW; i++) {
		err = ethtool_set_flag(o->name[i], ETHTOOL_SGRO, true);
		if (!err)
			err = ethtool_set_flag(o->name[i], ETHTOOL_STXCSUM, false);
	}
	return err;
}

/* Up, the xdpbr bridge's end last. */
static int bring_up(struct overlay *o)
{
	struct link_set up = { .up = true };
	int err = 0;

	for (int i = 0; !err && i < OV__MAX; i++)
		err = link_set(o->ifindex[i], &up);
	return err;
}

int overlay_create(const char *bridge, const struct vxlan_info *v, struct overlay *o)
{
	int err;

	overlay_names(bridge, o);
	err = make(bridge, v, o);
	if (!err)
		err = bring_up(o);
	if (err) {
		log_warn("Couldn't create the overlay of bridge %s (%s, %s, %s/%s): %s", bridge,
			 o->name[OV_KBRIDGE], o->name[OV_VXLAN], o->name[OV_GWK], o->name[OV_GW],
			 strerror(-err));
		for (int i = 0; i < OV__MAX; i++)
			o->ifindex[i] = if_nametoindex(o->name[i]);
		overlay_delete(o);
	}
	return err;
}

void overlay_delete(struct overlay *o)
{
	for (int i = 0; i < OV__MAX; i++) {
		int err = o->ifindex[i] && i != OV_GW ? link_del(o->ifindex[i]) : 0;

		if (err && err != -ENODEV)
			log_warn("Couldn't delete %s: %s", o->name[i], strerror(-err));
		o->ifindex[i] = 0;
	}
}

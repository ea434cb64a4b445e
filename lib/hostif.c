// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* hostif.c - the bridge's host interface (see hostif.h). */
#include <errno.h>
#include <linux/ethtool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "hook.h"
#include "hostif.h"
#include "kbridge.h"
#include "log.h"
#include "netlink.h"
#include "paths.h"
#include "util.h"
#include "xdpbr_rules.h"

#define HOSTIF_SUFFIX	"-host"
#define DEV_SUFFIX	"-dev"
#define MACHINE_ID	"/etc/machine-id"
#define STP_HELPER	"/sbin/bridge-stp"
/* A line of xdpbr's helper (daemon/bridge-stp). Anyone else's (mstpd's)
 * would start a spanning tree of its own on the bridge. */
#define STP_HELPER_MARK	"xdpbr-bridge-stp:"
#define BRPORT_STATE_BLOCKING 4	/* BR_STATE_BLOCKING of <linux/if_bridge.h> */

/* FNV-1a, 64 bits: a stable hash of a few bytes, not a secret. */
static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (uint8_t)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ULL

void hostif_port_name_hashed(const char *bridge, char buf[IF_NAMESIZE])
{
	snprintf(buf, IF_NAMESIZE, "xbh%08x",
		 (unsigned int)(fnv1a(FNV_OFFSET, bridge, strlen(bridge)) & 0xffffffffu));
}

void hostif_port_name(const char *bridge, char buf[IF_NAMESIZE])
{
	if (strlen(bridge) + sizeof(HOSTIF_SUFFIX) <= IF_NAMESIZE)
		snprintf(buf, IF_NAMESIZE, "%s%s", bridge, HOSTIF_SUFFIX);
	else
		hostif_port_name_hashed(bridge, buf);
}

/* The device's end: "BRIDGE-dev", else "xbd" and the same 8 hex digits. */
void hostif_dev_name(const char *bridge, char buf[IF_NAMESIZE])
{
	if (strlen(bridge) + sizeof(DEV_SUFFIX) <= IF_NAMESIZE) {
		snprintf(buf, IF_NAMESIZE, "%s%s", bridge, DEV_SUFFIX);
		return;
	}
	hostif_port_name_hashed(bridge, buf);
	buf[2] = 'd';
}

static void names(const char *bridge, struct hostif *h)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", bridge);
	hostif_port_name(bridge, h->port);
	hostif_dev_name(bridge, h->dev);
}

void hostif_mac_derive(const char *machine_id, const char *bridge, uint8_t mac[6])
{
	uint64_t h = fnv1a(FNV_OFFSET, machine_id, strlen(machine_id) + 1);

	h = fnv1a(h, "xdpbr host interface", sizeof("xdpbr host interface"));
	h = fnv1a(h, bridge, strlen(bridge));
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)(h >> (8 * i));
	mac[0] = (uint8_t)((mac[0] & 0xfe) | 0x02);	/* unicast, locally administered */
}

void hostif_mac_default(const char *bridge, uint8_t mac[6])
{
	const struct xdpbr_paths *paths;
	char id[64] = "", name[64];
	FILE *f = fopen(MACHINE_ID, "re");

	if (f) {
		if (!fgets(id, sizeof(id), f))
			id[0] = '\0';
		id[strcspn(id, "\n")] = '\0';
		fclose(f);
	}
	/* Same-named bridges in two network namespaces of one machine may
	 * meet on one LAN: the namespace is part of the name. */
	if (!paths_get(&paths) && paths->keyed)
		snprintf(name, sizeof(name), "%s netns %llu", bridge,
			 (unsigned long long)paths->netns);
	else
		snprintf(name, sizeof(name), "%s", bridge);
	hostif_mac_derive(id, name, mac);
}

/* The veth pair into the device, both ends up and mute. */
static int make_pair(struct hostif *h)
{
	struct link_set port = { .up = true, .no_ipv6_addresses = true };
	struct link_set mute = { .no_ipv6_addresses = true };
	struct link_set dev = { .up = true, .master = h->ifindex };
	int err = link_add_veth(h->dev, NULL, h->port);

	if (err)
		return err;
	h->dev_ifindex = if_nametoindex(h->dev);
	h->port_ifindex = if_nametoindex(h->port);
	err = !h->dev_ifindex || !h->port_ifindex ? -ENODEV : 0;
	/* Mute before they go up. */
	if (!err)
		err = link_set(h->port_ifindex, &port);
	/* In a message of its own: with IFLA_MASTER in the same one, the
	 * device's end still got an IPv6 link-local address (and sent from
	 * it into the datapath). */
	if (!err)
		err = link_set(h->dev_ifindex, &mute);
	if (!err)
		err = link_set(h->dev_ifindex, &dev);
	if (!err)
		err = link_brport_learning(h->dev_ifindex, false);
	return err;
}

/* What an interface named like the bridge is, for a message. */
static void describe(const struct link_info *li, char *why, size_t len)
{
	snprintf(why, len, "%s%s%s%s", li->kind[0] ? li->kind : "a device with no link kind",
		 li->alias[0] ? ", alias '" : "", li->alias, li->alias[0] ? "'" : "");
}

int hostif_find(const char *bridge, struct hostif *h, char *why, size_t len)
{
	char alias[sizeof(((struct link_info *)0)->alias)];
	struct link_info li, dev;
	int err;

	names(bridge, h);
	h->ifindex = if_nametoindex(bridge);
	if (!h->ifindex)
		return errno == ENODEV || errno == ENXIO ? -ENOENT : -errno;
	err = link_get_info(h->ifindex, &li);
	if (err)
		return err;
	snprintf(alias, sizeof(alias), HOSTIF_ALIAS_FMT, bridge);
	if (strcmp(li.kind, "bridge")) {
		describe(&li, why, len);
		return -EEXIST;
	}
	h->foreign = strcmp(li.alias, alias) != 0;
	h->dev_ifindex = if_nametoindex(h->dev);
	h->port_ifindex = if_nametoindex(h->port);
	if (h->foreign && !h->dev_ifindex && !h->port_ifindex)
		return make_pair(h);
	err = h->dev_ifindex && h->port_ifindex ? link_get_info(h->dev_ifindex, &dev) : -ENOENT;
	if (err || dev.master != h->ifindex || dev.peer_ifindex != (int32_t)h->port_ifindex ||
	    dev.peer_nsid >= 0) {
		snprintf(why, len, "ours, but its ports %s and %s are not a veth pair into it",
			 h->dev, h->port);
		return -EEXIST;
	}
	return 0;
}

int hostif_create(const char *bridge, const uint8_t mac[6], struct hostif *h)
{
	char alias[64];
	struct link_set host = { .alias = alias, .mac = mac };
	int err;

	names(bridge, h);
	snprintf(alias, sizeof(alias), HOSTIF_ALIAS_FMT, bridge);
	err = link_add_bridge(h->name);
	if (err) {
		log_warn("Couldn't create the host interface %s (a bridge device): %s", h->name,
			 strerror(-err));
		return err;
	}
	h->ifindex = if_nametoindex(h->name);
	err = h->ifindex ? link_set(h->ifindex, &host) : -ENODEV;
	if (!err)
		err = make_pair(h);
	if (err) {
		log_warn("Couldn't set up the host interface %s (its ports %s and %s): %s%s",
			 h->name, h->dev, h->port, strerror(-err), err == -EEXIST ?
			 " (an interface has one of those names)" : "");
		hostif_delete(h);
		return err;
	}
	return 0;
}

int hostif_prepare(const struct hostif *h, bool xdp)
{
	int err = ethtool_set_flag(h->dev, ETHTOOL_SGRO, true);

	if (err) {
		log_warn("host interface %s: Couldn't set GRO on on %s, which XDP redirects "
			 "need: %s", h->name, h->dev, strerror(-err));
		return err;
	}
	if (!xdp)
		return 0;
	err = ethtool_set_flag(h->dev, ETHTOOL_STXCSUM, false);
	if (err)
		log_warn("host interface %s: Couldn't set transmit checksum offload off on "
			 "%s for the XDP path: %s", h->name, h->dev, strerror(-err));
	return 0;	/* NAPI runs: that is what the caller asks */
}

void hostif_up(const struct hostif *h)
{
	int err = ethtool_set_flag(h->dev, ETHTOOL_SGRO, false);

	if (!err)
		err = ethtool_set_flag(h->dev, ETHTOOL_SGRO, true);
	if (err)
		log_warn("host interface %s: Couldn't restart GRO on %s for XDP redirects: %s",
			 h->name, h->dev, strerror(-err));
}

/* The state of port ifindex of a kernel bridge (BR_STATE_*), -1 if it is
 * none's (sysfs: rtnetlink gives a port's state only in AF_BRIDGE dumps). */
static int brport_state(uint32_t ifindex)
{
	char name[IF_NAMESIZE], path[96];
	FILE *f;
	int c;

	if (!if_indextoname(ifindex, name))
		return -1;
	snprintf(path, sizeof(path), "/sys/class/net/%s/brport/state", name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	c = fgetc(f);
	fclose(f);
	return c >= '0' && c <= '9' ? c - '0' : -1;
}

/* Whether port ifindex is as link_brport_mute leaves it, learning. */
static bool brport_muted(uint32_t ifindex)
{
	return brport_state(ifindex) == BRPORT_STATE_LEARNING;
}

int hostif_port_join(const struct hostif *h, uint32_t ifindex)
{
	struct link_set ls = { .master = h->ifindex };
	struct link_info li;
	int err = link_get_info(ifindex, &li);

	if (err || ifindex == h->port_ifindex || (li.master && li.master != h->ifindex))
		return err;
	if (li.master != h->ifindex)
		err = link_set(ifindex, &ls);
	/* Muting makes a link event of its own: only when something differs. */
	if (!err && !brport_muted(ifindex))
		err = link_brport_mute(ifindex);
	/* Down (or no carrier), the kernel refuses a state but keeps the port
	 * disabled, forwarding nothing; its coming up is a link event, which
	 * mutes it. */
	return err == -ENETDOWN ? 0 : err;
}

void hostif_port_leave(const struct hostif *h, uint32_t ifindex)
{
	struct link_set ls = { .nomaster = true };
	struct link_info li;

	if (!link_get_info(ifindex, &li) && li.master == h->ifindex && ifindex != h->dev_ifindex)
		link_set(ifindex, &ls);
}

void hostif_each_port(const struct hostif *h, void (*fn)(uint32_t ifindex, void *arg),
		      void *arg)
{
	struct if_nameindex *all = if_nameindex(), *i;
	struct link_info li;

	for (i = all; i && i->if_index; i++)
		if (i->if_index != h->dev_ifindex && !link_get_info(i->if_index, &li) &&
		    li.master == h->ifindex)
			fn(i->if_index, arg);
	if (all)
		if_freenameindex(all);
}

static void unmute(uint32_t ifindex, void *arg)
{
	char name[IF_NAMESIZE] = "?";
	int err = link_brport_unmute(ifindex);

	if (err) {
		if_indextoname(ifindex, name);
		log_warn("port %s: Couldn't hand it back to the kernel bridge %s: %s", name,
			 ((const struct hostif *)arg)->name, strerror(-err));
	}
}

int hostif_steer(const struct hostif *h)
{
	return tc_egress_redirect(h->ifindex, h->dev_ifindex, h->name) ?:
	       tc_ingress_reports_to(h->dev_ifindex, h->ifindex, h->name);
}

static bool stp_helper_ours(void)
{
	char buf[2048];
	FILE *f = fopen(STP_HELPER, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, STP_HELPER_MARK) != NULL;
}

int hostif_user_stp(struct hostif *h, char *why, size_t len)
{
	const struct xdpbr_paths *paths;
	uint32_t st;
	int err = kbr_stp_get(h->ifindex, &st);

	if (err)
		return err;
	/* An earlier daemon's (SIGKILL, --keep): still ours. */
	if (st == KBR_STP_USER) {
		h->user_stp = true;
		return 1;
	}
	if (st == KBR_STP_KERNEL) {
		snprintf(why, len, "the kernel's own STP runs on it");
		return 0;
	}
	if (paths_get(&paths) || paths->keyed) {
		snprintf(why, len, "not in the host's network namespace, the only one where "
			 "the kernel asks user space");
		return 0;
	}
	if (!stp_helper_ours()) {
		snprintf(why, len, "%s is not xdpbr's (make install and the package install it)",
			 STP_HELPER);
		return 0;
	}
	err = kbr_stp_set(h->ifindex, KBR_STP_KERNEL);
	if (!err)
		err = kbr_stp_get(h->ifindex, &st);
	if (!err && st == KBR_STP_USER) {
		h->user_stp = true;
		return 1;
	}
	/* The kernel's STP instead: off again. It leaves learning (muted)
	 * ports as they are; this runs before any is muted anyway. */
	kbr_stp_set(h->ifindex, KBR_STP_OFF);
	if (err)
		return err;
	snprintf(why, len, "%s said no", STP_HELPER);
	return 0;
}

void hostif_dev_forward(const struct hostif *h)
{
	int err;

	if (!h->user_stp || !h->dev_ifindex ||
	    brport_state(h->dev_ifindex) != BRPORT_STATE_BLOCKING)
		return;
	err = link_brport_unmute(h->dev_ifindex);
	if (err)
		log_warn("host interface %s: Couldn't make its end %s forwarding in the kernel "
			 "bridge: %s", h->name, h->dev, strerror(-err));
}

void hostif_hand_back(struct hostif *h)
{
	int err;

	hostif_each_port(h, unmute, h);
	/* After the ports: stopping user-space STP leaves their states as
	 * they are (the kernel reselects them only at a link event). */
	if (h->user_stp) {
		err = kbr_stp_set(h->ifindex, KBR_STP_OFF);
		if (err)
			log_warn("Linux bridge %s: Couldn't set stp_state 0 again: %s", h->name,
				 strerror(-err));
		h->user_stp = false;
	}
	tc_egress_del(h->ifindex);
	if (h->port_ifindex)
		link_del(h->port_ifindex);
	h->port_ifindex = h->dev_ifindex = 0;
}

int hostif_delete(const struct hostif *h)
{
	int err = 0;

	/* The pair goes with either end; the device with its ifindex. */
	if (h->port_ifindex || h->dev_ifindex)
		err = link_del(h->port_ifindex ? h->port_ifindex : h->dev_ifindex);
	if (h->ifindex) {
		int e = link_del(h->ifindex);

		err = err && err != -ENODEV ? err : e;
	}
	return err;
}

static void vids_desired(const struct xdpbr_maps *m, uint32_t slot,
			 __u64 vids[XDPBR_VLAN_WORDS])
{
	struct xdpbr_vlan_port v;
	struct xdpbr_config c;

	memset(vids, 0, XDPBR_VLAN_WORDS * sizeof(vids[0]));
	if (ctl_config_get(m, &c) || !(c.flags & XDPBR_CFG_VLAN_FILTERING)) {
		vids[0] = 1;		/* VLAN 0: the key of a VLAN-unaware bridge */
		return;
	}
	if (!ctl_vlan_get(m, slot, &v))
		memcpy(vids, v.member, sizeof(v.member));
}

void hostif_fdb_clear(const struct xdpbr_maps *m, const struct hostif *h,
		      struct hostif_fdb *st)
{
	if (!st->installed)
		return;
	for (uint16_t vid = 0; vid <= XDPBR_VLAN_MAX; vid++)
		if (xdpbr_vlan_test(st->vids, vid))
			ctl_fdb_local_del(m, st->mac, vid, h->port_ifindex);
	st->installed = false;
}

int hostif_fdb_sync(const struct xdpbr_maps *m, const struct hostif *h,
		    struct hostif_fdb *st)
{
	struct xdpbr_port p;
	struct link_info li;
	__u64 want[XDPBR_VLAN_WORDS];
	int err, n = 0;

	err = link_get_info(h->ifindex, &li);
	if (!err)
		err = ctl_port_get(m, h->port_ifindex, &p);
	if (err)
		return err;
	vids_desired(m, p.slot, want);
	if (st->installed && memcmp(st->mac, li.mac, 6)) {
		char a[MAC_STRLEN], b[MAC_STRLEN];

		log_info("host interface %s: address %s -> %s", h->name,
			 mac_format(st->mac, a), mac_format(li.mac, b));
		hostif_fdb_clear(m, h, st);
		n++;
	}
	if (!st->installed) {
		memcpy(st->mac, li.mac, 6);
		memset(st->vids, 0, sizeof(st->vids));
		st->installed = true;
	}
	for (uint16_t vid = 0; vid <= XDPBR_VLAN_MAX; vid++) {
		bool want_it = xdpbr_vlan_test(want, vid);

		if (want_it) {
			err = ctl_fdb_local_set(m, st->mac, vid, h->port_ifindex);
			if (err < 0)
				return err;
			n += err;
			xdpbr_vlan_set(st->vids, vid, 1);
		} else if (xdpbr_vlan_test(st->vids, vid)) {
			ctl_fdb_local_del(m, st->mac, vid, h->port_ifindex);
			xdpbr_vlan_set(st->vids, vid, 0);
			n++;
		}
	}
	return n;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* hostdev.c - the daemon's part of the host interface (see hostdev.h). */
#include <errno.h>
#include <net/if.h>
#include <string.h>

#include "ctl.h"
#include "hostdev.h"
#include "kbridge.h"
#include "log.h"
#include "settings.h"
#include "util.h"

void hostdev_init(struct hostdev *h, struct bridge *br, int opt)
{
	memset(h, 0, sizeof(*h));
	h->br = br;
	h->opt = opt;
}

bool hostdev_wanted(const struct hostdev *h, const struct config *c)
{
	if (h->opt >= 0)
		return h->opt;
	return setting_value(&c->set, SET_HOST_INTERFACE);
}

void hostdev_mac(const struct hostdev *h, const struct config *c, uint8_t mac[6])
{
	if (setting_given(&c->set, SET_MAC))
		memcpy(mac, c->mac, 6);
	else
		hostif_mac_default(h->br->name, mac);
}

/* xdpbr the device's user-space spanning tree (hostif_user_stp), before
 * any port is muted. */
static void user_stp(struct hostdev *h)
{
	char why[160] = "";
	int ret = hostif_user_stp(&h->hif, why, sizeof(why));

	if (ret > 0)
		log_info("Linux bridge %s: stp_state 2, xdpbr's user-space spanning tree: the "
			 "kernel sets no port state itself, so never forwards on a port", h->hif.name);
	else if (ret == 0)
		log_info("Linux bridge %s: no user-space spanning tree (%s): a port that joins "
			 "or comes up forwards in the kernel until xdpbrd mutes it", h->hif.name,
			 why);
	else
		log_warn("Linux bridge %s: Couldn't read or set its stp_state: %s", h->hif.name,
			 strerror(-ret));
}

int hostdev_open(struct hostdev *h, const struct config *c)
{
	const char *name = h->br->name;
	char why[160], mac_s[MAC_STRLEN];
	uint8_t mac[6];
	int err = hostif_find(name, &h->hif, why, sizeof(why));

	hostdev_mac(h, c, mac);
	if (err == -EEXIST) {
		log_warn("an interface named %s exists and is not the host interface of "
			 "bridge %s (it is %s): delete or rename it, or set host_interface = "
			 "off (-H off)", name, name, why);
	} else if (err == -ENOENT) {
		err = hostif_create(name, mac, &h->hif);
		if (!err) {
			h->made = true;
			log_info("host interface %s created, address %s (the bridge's end: "
				 "port %s)", h->hif.name, mac_format(mac, mac_s), h->hif.port);
		}
	} else if (err) {
		log_warn("Couldn't look for the host interface %s: %s", name, strerror(-err));
	} else if (h->hif.foreign) {
		log_info("Linux bridge %s: taken over with its ports (forwarding in xdpbr; "
			 "handed back to the kernel on stop)", h->hif.name);
	} else {
		log_info("host interface %s: taken over (the bridge's end: port %s)",
			 h->hif.name, h->hif.port);
	}
	if (err)
		memset(&h->hif, 0, sizeof(h->hif));
	else
		user_stp(h);
	return err;
}

uint64_t hostdev_ageing_ns(const struct hostdev *h)
{
	uint32_t cs;
	int err;

	if (!h->hif.foreign || !h->hif.ifindex)
		return 0;
	err = kbr_ageing_get(h->hif.ifindex, &cs);
	if (!err)
		err = setting_check(&settings[SET_AGEING_TIME], (cs + 99) / 100);
	if (err) {
		log_warn("Linux bridge %s: Couldn't keep its ageing time (%s): xdpbr's default "
			 "instead", h->hif.name, strerror(-err));
		return 0;
	}
	log_info("Linux bridge %s: its ageing time %u.%02u s kept", h->hif.name, cs / 100,
		 cs % 100);
	return cs ? cs * KBR_CS_NS : XDPBR_AGEING_NEVER;
}

bool hostdev_vlans(const struct hostdev *h, bool *filtering, uint16_t *pvid)
{
	int err;

	if (!h->hif.foreign || !h->hif.ifindex)
		return false;
	err = kbr_vlan_get(h->hif.ifindex, filtering, pvid);
	if (err == -ENOTSUP)
		return false;		/* nothing to keep: no VLAN filtering */
	if (!err)
		err = setting_check(&settings[SET_DEFAULT_PVID], *pvid);
	if (err) {
		log_warn("Linux bridge %s: Couldn't keep its VLAN settings (%s): xdpbr's "
			 "instead", h->hif.name, strerror(-err));
		return false;
	}
	return true;
}

void hostdev_sync(struct hostdev *h)
{
	int ret;

	if (!h->port)
		return;
	ret = hostif_fdb_sync(&h->br->maps, &h->hif, &h->fdb);
	if (ret < 0 && ret != h->err)
		log_warn("host interface %s: Couldn't write its local FDB entries: %s",
			 h->hif.name, strerror(-ret));
	h->err = ret < 0 ? ret : 0;
}

static bool host_end_up(const struct hostdev *h)
{
	struct link_info li;

	return !link_get_info(h->hif.ifindex, &li) && (li.flags & IFF_UP);
}

/* A port the device had when it was taken over, or got while no daemon ran. */
static void join_device_port(uint32_t ifindex, void *arg)
{
	struct hostdev *h = arg;
	char name[IF_NAMESIZE];
	struct xdpbr_port p;
	int err;

	if (ifindex == h->hif.port_ifindex || !ctl_port_get(&h->br->maps, ifindex, &p) ||
	    !if_indextoname(ifindex, name))
		return;
	err = bridge_add_port(h->br, name);
	if (err)
		hostdev_refuse(h, ifindex, name, err);
}

int hostdev_attach(struct hostdev *h)
{
	struct bridge *br = h->br;
	uint32_t ifindex = h->hif.port_ifindex;
	const __u32 state = XDPBR_PORT_HOST | XDPBR_PORT_XDP_TARGET;
	struct xdpbr_port p;
	__u32 want;
	int err;

	if (!h->hif.ifindex)
		return 0;
	/* Ready for XDP redirects before the port is checked and attached. */
	h->napi = !hostif_prepare(&h->hif, bridge_port_path(br, h->hif.port) == PORT_PATH_XDP);
	err = ctl_port_get(&br->maps, ifindex, &p);
	if (err == -ENODEV)
		err = bridge_add_port(br, h->hif.port);
	if (!err)
		err = ctl_port_get(&br->maps, ifindex, &p);
	if (!err) {
		/* On the skb path, a target of the XDP ports' floods too
		 * while its peer runs NAPI; else they hand every flood to
		 * the stack. */
		want = XDPBR_PORT_HOST |
		       (h->napi && p.mode == XDPBR_MODE_TC ? XDPBR_PORT_XDP_TARGET : 0);
		if ((p.flags & state) != want) {
			p.flags = (p.flags & ~state) | want;
			err = ctl_port_apply(&br->maps, ifindex, &p, br->prog_egress_fd);
		}
	}
	if (err) {
		log_warn("host interface %s: Couldn't make %s a port: %s", h->hif.name,
			 h->hif.port, strerror(-err));
		return err;
	}
	err = hostif_steer(&h->hif);
	if (err)
		return err;
	/* Up already: taken over from an earlier daemon, which restarted its
	 * NAPI when it came up (hostdev_link); doing it again could drop a
	 * frame in flight. */
	h->was_up = host_end_up(h);
	memset(&h->fdb, 0, sizeof(h->fdb));
	h->port = true;
	hostdev_sync(h);
	/* Muted later (hostdev_ports_follow), once the datapath forwards on
	 * them: a muted port xdpbr does not forward on yet loses frames. */
	hostif_each_port(&h->hif, join_device_port, h);
	return 0;
}

void hostdev_hand_back(struct hostdev *h)
{
	if (!h->hif.foreign || !h->hif.ifindex)
		return;
	hostif_hand_back(&h->hif);
	log_info("Linux bridge %s handed back: forwarding in the kernel again", h->hif.name);
	memset(&h->hif, 0, sizeof(h->hif));
	h->port = false;
}

static uint32_t master_of(uint32_t ifindex)
{
	struct link_info li;

	return link_get_info(ifindex, &li) ? 0 : li.master;
}

void hostdev_port_event(struct hostdev *h, uint32_t ifindex)
{
	char name[IF_NAMESIZE] = "?";
	struct xdpbr_port p;
	int err;

	if (!h->port)
		return;
	err = hostif_port_join(&h->hif, ifindex);
	if (!err && !ctl_port_get(&h->br->maps, ifindex, &p) && p.slot < XDPBR_MAX_PORTS)
		h->on_dev[p.slot] = master_of(ifindex) == h->hif.ifindex;
	if (err) {
		if_indextoname(ifindex, name);
		log_warn("port %s: Couldn't make it a port of the bridge device %s that the "
			 "kernel bridge does not forward on: %s", name, h->hif.name,
			 strerror(-err));
	}
}

void hostdev_ports_follow(struct hostdev *h)
{
	for (int i = 0; i < h->br->nports; i++)
		hostdev_port_event(h, h->br->ports[i].ifindex);
}

bool hostdev_joined(const struct hostdev *h, uint32_t ifindex)
{
	return h->port && ifindex != h->hif.dev_ifindex && ifindex != h->hif.port_ifindex &&
	       master_of(ifindex) == h->hif.ifindex;
}

bool hostdev_left(struct hostdev *h, uint32_t ifindex, uint32_t slot)
{
	if (!h->port || slot >= XDPBR_MAX_PORTS || !h->on_dev[slot] ||
	    master_of(ifindex) == h->hif.ifindex)
		return false;
	h->on_dev[slot] = false;
	return true;
}

void hostdev_refuse(struct hostdev *h, uint32_t ifindex, const char *name, int err)
{
	log_err("port %s joined the bridge device %s, but bridge %s can't run it (%s): "
		"taken off the device again", name, h->hif.name, h->br->name, strerror(-err));
	hostif_port_leave(&h->hif, ifindex);
}

void hostdev_port_left(struct hostdev *h, const char *name)
{
	uint32_t ifindex = if_nametoindex(name);

	if (h->port && ifindex)
		hostif_port_leave(&h->hif, ifindex);
}

/* Not with --keep or a crash: then its addresses wait for the next daemon. */
void hostdev_close(struct hostdev *h)
{
	int err;

	if (!h->hif.ifindex)
		return;
	err = hostif_delete(&h->hif);
	if (err && err != -ENODEV)
		log_warn("Couldn't delete the host interface %s: %s", h->hif.name,
			 strerror(-err));
	else
		log_info("host interface %s deleted", h->hif.name);
	memset(&h->hif, 0, sizeof(h->hif));
	h->port = false;
}

void hostdev_reload(struct hostdev *h, const struct config *old, const struct config *nc)
{
	uint8_t mac[6], was[6];
	bool want = hostdev_wanted(h, nc);

	if (want && !h->port) {
		if (!hostdev_open(h, nc))
			hostdev_attach(h);
		return;
	}
	if (!want && h->port) {
		hostif_fdb_clear(&h->br->maps, &h->hif, &h->fdb);
		bridge_del_port(h->br, h->hif.port);
		if (h->hif.foreign)
			hostdev_hand_back(h);
		else
			hostdev_close(h);
		return;
	}
	hostdev_mac(h, nc, mac);
	hostdev_mac(h, old, was);
	if (want && memcmp(mac, was, 6)) {
		struct link_set ls = { .mac = mac };
		int err = link_set(h->hif.ifindex, &ls);

		if (err)
			log_warn("host interface %s: Couldn't set its address: %s",
				 h->hif.name, strerror(-err));
		hostdev_sync(h);
	}
}

bool hostdev_port_open(const struct hostdev *h, uint32_t ifindex)
{
	return !h->port || ifindex != h->hif.port_ifindex || h->was_up;
}

/* The host's end went up or down (it is not a port). */
static void host_end_link(struct hostdev *h, bool up)
{
	if (up && !h->was_up && h->napi)
		hostif_up(&h->hif);
	h->was_up = up;
}

bool hostdev_link(struct hostdev *h, const struct link_event *ev)
{
	if (!h->port)
		return false;
	if (ev->ifindex == h->hif.ifindex || ev->ifindex == h->hif.dev_ifindex)
		hostif_dev_forward(&h->hif);
	if (ev->ifindex == h->hif.ifindex) {
		host_end_link(h, !ev->deleted && (ev->flags & IFF_UP));
		return true;
	}
	if (ev->deleted && ev->ifindex == h->hif.port_ifindex) {
		log_warn("host interface %s was deleted; SIGHUP or a restart makes a new one",
			 h->hif.name);
		memset(&h->hif, 0, sizeof(h->hif));
		h->port = false;
	}
	return false;
}

void hostdev_resync(struct hostdev *h)
{
	if (!h->port)
		return;
	hostif_dev_forward(&h->hif);
	host_end_link(h, host_end_up(h));
}

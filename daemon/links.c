// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* links.c - link events: ports that appear, join or leave the bridge
 * device, go down or up, change their MTU, or go (daemon.h). */
#include <net/if.h>
#include <string.h>

#include "ctl.h"
#include "daemon.h"
#include "log.h"
#include "netlink.h"

/* Marks a port down (out of tx and flood sets, dynamic entries flushed) or
 * up again, when its link state differs from what the maps say. The host
 * interface's bridge end is down too while the device is. */
void port_link_state(struct daemon *d, uint32_t ifindex, unsigned int flags)
{
	char name[IF_NAMESIZE] = "?";
	struct xdpbr_port p;
	bool open = hostdev_port_open(&d->host, ifindex);
	bool up = LINK_UP(flags) && open, was_up;
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
	else if (!open && LINK_UP(flags))
		log_info("port %s: the host interface %s is down: out of forwarding and "
			 "flooding", name, d->host.hif.name);
	else
		log_info("port %s: link %s%s", name, up ? "up, forwarding again" : "down",
			 up ? "" : ": out of forwarding and flooding, its learned entries flushed");
}

void host_port_follow(struct daemon *d)
{
	struct link_info li;
	uint32_t ifindex = d->host.hif.port_ifindex;

	if (d->host.port && ifindex && !link_get_info(ifindex, &li))
		port_link_state(d, ifindex, li.flags);
}

/* Keeps the datapath's MTU threshold (bpf/mtu.h) right after a port was
 * added, removed or changed its MTU; says when the ports' MTUs differ, as
 * frames larger than an egress port's MTU are then dropped there. */
void mtus_follow(struct daemon *d, bool at_start)
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
	if (!err && cp && apply_port_cfg(d, NULL, cp, &d->ap.cfg))
		d->ap.cfg.ports[cp - d->ap.cfg.ports].unapplied = true;
	if (!ctl_port_get(&d->br.maps, ev->ifindex, &p))
		port_link_state(d, ev->ifindex, ev->flags);
	hostdev_port_event(&d->host, ev->ifindex);
	mtus_follow(d, false);
}

void on_link_event(const struct link_event *ev, void *arg)
{
	struct daemon *d = arg;
	char name[IF_NAMESIZE];
	struct xdpbr_port p;

	brmirror_poke(&d->mirror);
	if (hostdev_link(&d->host, ev)) {
		host_port_follow(d);
		return;
	}
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
void resync_links(struct daemon *d)
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

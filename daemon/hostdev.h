/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_HOSTDEV_H
#define XDPBR_HOSTDEV_H

/*
 * hostdev - the daemon's part of the host interface (lib/hostif.h): found
 * or made before the ports are attached (so a [port BRIDGE-host] section
 * applies to its bridge end as to any port), its bridge end a port after
 * them, its local FDB entries kept in step, and its life across reloads
 * and link events. The state here is the daemon's alone; the interface
 * itself is a kernel object that outlives the daemon.
 */
#include <stdbool.h>
#include <stdint.h>

#include "bridge.h"
#include "config.h"
#include "hostif.h"
#include "netlink.h"

struct hostdev {
	struct bridge *br;
	int opt;			/* --host-interface: -1 unset, 0 off, 1 on */
	struct hostif hif;		/* valid while hif.ifindex != 0 */
	bool made;			/* created by this start: undone if it fails */
	bool port;			/* its bridge end is a port of the bridge */
	bool napi;			/* the device's end runs NAPI: XDP redirects reach it */
	bool was_up;			/* the host's end was up (IFF_UP) */
	struct hostif_fdb fdb;		/* its local FDB entries */
	int err;			/* last sync error, said once */
	bool on_dev[XDPBR_MAX_PORTS];	/* by slot: a port of the device */
};

/* opt -1 (unset: the file says), 0 or 1. */
void hostdev_init(struct hostdev *h, struct bridge *br, int opt);
/* Whether the bridge has a host interface with configuration c. */
bool hostdev_wanted(const struct hostdev *h, const struct config *c);
/* The bridge's address with configuration c: the file's mac, else the
 * derived one (hostif_mac_default). The spanning tree's too. */
void hostdev_mac(const struct hostdev *h, const struct config *c, uint8_t mac[6]);
/* Finds the host interface or creates it. 0 or -errno, said. */
int hostdev_open(struct hostdev *h, const struct config *c);
/* A Linux bridge taken over keeps its ageing time when none was asked
 * for (-a, the file): xdpbr's ageing for it (XDPBR_AGEING_NEVER for the
 * kernel's 0), or 0: nothing to keep (made by xdpbr, or out of xdpbr's
 * range, said). */
uint64_t hostdev_ageing_ns(const struct hostdev *h);
/* ... and its vlan_filtering and default_pvid: true and them, or false:
 * nothing to keep (made by xdpbr, or a kernel without VLAN filtering,
 * or unreadable, said). */
bool hostdev_vlans(const struct hostdev *h, bool *filtering, uint16_t *pvid);
/* Its bridge end a port (marked XDPBR_PORT_HOST), after the others. 0 or
 * -errno, said. */
int hostdev_attach(struct hostdev *h);
/* Whether port ifindex may forward as far as the host interface goes: all
 * but its bridge end, which does while the device is up (the host takes
 * nothing while it is down, so a flood copies nothing into it). */
bool hostdev_port_open(const struct hostdev *h, uint32_t ifindex);
/* Every port of the bridge a port of the device, the kernel bridge
 * forwarding on none of them (hostif_port_join); after ports were added. */
void hostdev_ports_follow(struct hostdev *h);
/* The same for one port, on each of its link events: the kernel puts a
 * muted port back to forwarding when it reselects port states. */
void hostdev_port_event(struct hostdev *h, uint32_t ifindex);
/* Ports follow the device (issue 28): whether ifindex, not a port of the
 * bridge, was made a port of the device by some tool (ip link set X master
 * BRIDGE, brctl addif, the CNI bridge plugin) and should join. */
bool hostdev_joined(const struct hostdev *h, uint32_t ifindex);
/* Whether the port in slot, once a port of the device, left it (ip link
 * set X nomaster): it leaves the bridge. Forgets it. */
bool hostdev_left(struct hostdev *h, uint32_t ifindex, uint32_t slot);
/* A port that joined the device and that the bridge can't run (err) is
 * taken off the device again, said as an error: never half-bridged. */
void hostdev_refuse(struct hostdev *h, uint32_t ifindex, const char *name, int err);
/* Port name left the bridge: it leaves the device too. */
void hostdev_port_left(struct hostdev *h, const char *name);
/* Keeps its local FDB entries in step; every second and after changes. */
void hostdev_sync(struct hostdev *h);
/* A Linux bridge taken over forwards in the kernel again (a stop without
 * --keep, a failed start): before the datapath leaves its ports. */
void hostdev_hand_back(struct hostdev *h);
/* Deletes the interface (a stop without --keep, a failed start that made
 * it, host_interface turned off). */
void hostdev_close(struct hostdev *h);
/* A reload from configuration old to nc: turned on or off, a new address. */
void hostdev_reload(struct hostdev *h, const struct config *old, const struct config *nc);
/* A link event. true: it was the host's end (consumed). A deleted bridge
 * end is forgotten (false: the caller removes the port). */
bool hostdev_link(struct hostdev *h, const struct link_event *ev);
/* After lost events or at start: the host's end's link state read. */
void hostdev_resync(struct hostdev *h);

#endif

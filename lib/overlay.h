/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_OVERLAY_H
#define XDPBR_OVERLAY_H

/*
 * overlay - the kernel objects that carry a bridge's VXLAN overlay and that
 * FRR's zebra understands (doc/evpn.md):
 *
 *   xdpbr bridge --port-- GW --veth-- GWK --port-- KBR (kernel bridge) -- VX (vxlan)
 *
 * VX is the vxlan device of the VNI (nolearning: zebra fills its FDB from
 * EVPN routes), a port of the kernel bridge KBR; the veth pair GW/GWK joins
 * the two bridges: GW is an ordinary port of the xdpbr bridge (a member of
 * its flood sets, so BUM traffic reaches the overlay), GWK a port of KBR
 * with learning off: its FDB entries are the ones the daemon mirrors from
 * xdpbr (extern_learn, daemon/evpn.c). All four carry the alias
 * OVERLAY_ALIAS_FMT, which marks them as the daemon's; they outlive the
 * daemon (SIGKILL, --keep) and the next one takes them over.
 */
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netlink.h"

#define OVERLAY_ALIAS_FMT	"xdpbr overlay of bridge %s"
#define OVERLAY_DSTPORT		4789	/* IANA's VXLAN port */
#define OVERLAY_VNI_MAX		16777215

enum overlay_obj { OV_KBRIDGE, OV_VXLAN, OV_GWK, OV_GW, OV__MAX };

struct overlay {
	char name[OV__MAX][IF_NAMESIZE];
	uint32_t ifindex[OV__MAX];	/* 0: not there */
};

/* The names for bridge: "BRIDGE-kbr", "BRIDGE-vx", "BRIDGE-gwk", "BRIDGE-gw"
 * when they fit in an interface name, else "xv" + a letter + 8 hex digits
 * of a hash of the bridge's name. */
void overlay_names(const char *bridge, struct overlay *o);

/* Fills o with the names and the ifindexes of those that exist. 0: all or
 * none exist and all that do are ours; -EEXIST: one is not ours (why says
 * which and what it is); -errno: a query failed. */
int overlay_find(const char *bridge, struct overlay *o, char *why, size_t len);

/* Whether the existing vxlan device of o has the settings of want. */
bool overlay_matches(const struct overlay *o, const struct vxlan_info *want);

/* Creates the four objects, up, learning off on the kernel bridge's ports.
 * Nothing left behind on failure. 0 or -errno, said. */
int overlay_create(const char *bridge, const struct vxlan_info *v, struct overlay *o);

/* The gateway's veth ends ready for the XDP path, where frames are
 * redirected into them: GRO on (veth needs NAPI to take them) and transmit
 * checksum offload off (an XDP redirect passes unfinished checksums on;
 * MACHINE-FACTS). The skb path needs neither, and keeps TSO/GSO. 0 or
 * -errno. */
int overlay_xdp_ready(const struct overlay *o);

/* Deletes every object of o that exists (the veth pair goes with GWK). */
void overlay_delete(struct overlay *o);

#endif

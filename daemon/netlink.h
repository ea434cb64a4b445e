/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_NETLINK_H
#define XDPBR_NETLINK_H

#include <stdint.h>

/* veth delivers an XDP-redirected frame to its peer only when the peer runs
 * NAPI: it has GRO on or an XDP program. Otherwise the frame is dropped and
 * counted nowhere obvious. For a veth port, check the peer (in whatever
 * network namespace it lives, if that namespace is named in /run/netns) and
 * warn with the fix. Returns 1 when the peer can't receive, 0 when it can or
 * the port is no veth, -errno when the check itself failed. */
int veth_peer_check(uint32_t ifindex, const char *ifname);

struct link_info {
	char kind[16];			/* "veth", ... ("" when none) */
	int32_t peer_ifindex;		/* IFLA_LINK, or 0 */
	int32_t peer_nsid;		/* IFLA_LINK_NETNSID, or -1: same netns */
};

/* RTM_GETLINK for ifindex in the current network namespace. */
int link_get_info(uint32_t ifindex, struct link_info *li);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_KBRIDGE_H
#define XDPBR_KBRIDGE_H

/*
 * kbridge - a Linux bridge device's settings over rtnetlink, in xdpbr's
 * terms: its ports' flags (IFLA_BRPORT_*, what `bridge link set` writes)
 * as XDPBR_PORT_* bits, through the settings rows that name an attribute
 * (lib/settings.c), its ageing time (IFLA_BR_AGEING_TIME), its VLAN
 * filtering and default PVID, and its ports' VLANs (what `bridge vlan`
 * reads and writes) as xdpbr's bitmaps, for the mirror of
 * daemon/brmirror.c; and its multicast snooping settings, for
 * daemon/mdbmirror.c. One parser of the bridge's IFLA_INFO_DATA for both.
 */
#include <stdbool.h>
#include <stdint.h>

#include "xdpbr.h"

/* The XDPBR_PORT_* bits with a port attribute: the ones kbridge reads. */
uint32_t kbr_port_mask(void);

/* The ports of Linux bridge bridge, each to cb with its flags
 * (kbr_port_mask bits). 0 or -errno. */
typedef void (*kbr_port_cb)(uint32_t ifindex, uint32_t flags, void *arg);
int kbr_ports(uint32_t bridge, kbr_port_cb cb, void *arg);

/* Sets the attributes of port ifindex for the bits of mask to flags'. 0
 * or -errno. */
int kbr_port_set(uint32_t ifindex, uint32_t flags, uint32_t mask);

/* Whether ifindex is a Linux bridge device: 1, 0, or -errno. */
int kbr_is_bridge(uint32_t ifindex);

#define KBR_CS_NS	10000000ULL	/* a centisecond, the kernel's clock_t */

/* The bridge's multicast snooping settings and querier state. */
struct kbr_mcast {
	bool snooping, querier;		/* mcast_snooping, mcast_querier */
	uint64_t resp_cs;		/* mcast_query_response_interval (cs) */
	uint64_t other4, other6;	/* other queriers' timers (0: none) */
	uint8_t igmp_version;		/* mcast_igmp_version: 2, 3 (0: not given) */
	uint8_t mld_version;		/* mcast_mld_version: 1, 2 (0: not given) */
	bool vlan_filtering;		/* the MDB is per VLAN */
	bool vlan_snooping;		/* mcast_vlan_snooping: a context per VLAN */
};

/* An IFLA_BR_MCAST_QUERIER_STATE (or a VLAN's querier state) nest: the
 * other queriers' timers into mc->other4/6. */
struct nlattr;
void kbr_querier_state(const struct nlattr *nest, struct kbr_mcast *mc);

/* The bridge's snooping settings. 0, -ENOTSUP (not a bridge, or a kernel
 * without snooping), or -errno. */
int kbr_mcast_get(uint32_t bridge, struct kbr_mcast *mc);

/* The bridge's ageing time in centiseconds (the kernel's clock_t), read
 * and set. 0 or -errno. */
int kbr_ageing_get(uint32_t bridge, uint32_t *cs);
int kbr_ageing_set(uint32_t bridge, uint32_t cs);

/* The bridge's stp_state as the kernel reports it: KBR_STP_OFF, KBR_STP_KERNEL
 * (its own STP runs), KBR_STP_USER (user space runs the spanning tree and
 * sets the port states: the kernel never changes one itself). Set with 0
 * (off) or 1 (on: the kernel asks /sbin/bridge-stp BRIDGE start whether
 * user space runs it, in the host's network namespace only; no, or no
 * helper, is KBR_STP_KERNEL). 0 or -errno. */
#define KBR_STP_OFF	0	/* BR_NO_STP */
#define KBR_STP_KERNEL	1	/* BR_KERNEL_STP */
#define KBR_STP_USER	2	/* BR_USER_STP */
int kbr_stp_get(uint32_t bridge, uint32_t *state);
int kbr_stp_set(uint32_t bridge, uint32_t state);

/* vlan_filtering and vlan_default_pvid (0: none). -ENOTSUP if the kernel
 * has no VLAN filtering (CONFIG_BRIDGE_VLAN_FILTERING: no such attribute). */
int kbr_vlan_get(uint32_t bridge, bool *filtering, uint16_t *default_pvid);
/* Sets vlan_filtering, and default_pvid too if pvid_change (the kernel
 * takes a new one only with filtering off: it goes first). 0 or -errno. */
int kbr_vlan_set(uint32_t bridge, bool filtering, uint16_t default_pvid, bool pvid_change);

/* The VLANs of each port of bridge to cb: members, egress untagged, PVID
 * (0: none); and the bridge device's own (`bridge vlan ... self`), with
 * bridge as ifindex. 0 or -errno. */
typedef void (*kbr_vlan_cb)(uint32_t ifindex, const struct xdpbr_vlan_port *v, uint16_t pvid,
			    void *arg);
int kbr_port_vlans(uint32_t bridge, kbr_vlan_cb cb, void *arg);

/* Makes port ifindex's VLANs (self: the bridge device ifindex's own) want
 * and pvid, from have and have_pvid (what it holds): deletes, then adds
 * and flag changes, in ranges. 0 or the first -errno. */
int kbr_vlans_write(uint32_t ifindex, bool self, const struct xdpbr_vlan_port *want,
		    uint16_t pvid, const struct xdpbr_vlan_port *have, uint16_t have_pvid);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_MDBMIRROR_H
#define XDPBR_MDBMIRROR_H

/*
 * mdbmirror - IGMP/MLD snooping: the Linux bridge device's MDB, mirrored into
 * the datapath (the xdpbr_mdb* maps, bpf/mcast.h).
 *
 * The kernel bridge snoops: the datapath hands it every IGMP/MLD frame on
 * the port it came in on (whose kernel state, learning, makes the kernel
 * drop it after snooping), and the kernel keeps groups, router ports,
 * querier election, timeouts, leaves and static groups (`bridge mdb add
 * ... permanent`) as it always does, with the bridge's own settings
 * (mcast_snooping, mcast_querier, ... of `ip link set BR type bridge`, a
 * port's mcast_router of `bridge link set`). This mirror reads the MDB
 * (a dump at the start, then each notification's entry as it comes, and
 * a dump once a second that writes only what differs: the safety net for
 * lost notifications), and the bridge's snooping and querier state, and
 * writes what the datapath prunes by: groups ((*,G), and the (S,G) of
 * IGMPv3/MLDv2) with the member slots the kernel forwards to,
 * router slots, whether a querier exists per family, and the host's slot.
 * Where the bridge has a multicast context per VLAN (mcast_vlan_snooping,
 * with VLAN filtering), each VLAN's snooping, queriers and router ports
 * are its own (`bridge vlan global set vid V ...`, `bridge vlan set vid V
 * dev P mcast_router R`), read once a second from the bridge's global
 * VLAN options.
 * What the kernel held while the daemon was down is in the first dump: a
 * restart loses nothing.
 * Each group's ports are also written as one mask (xdpbr_mdb_set: its
 * members, the family's router ports and the host's port, where all are
 * below slot 64), by which a pruned frame visits its ports only, and
 * where that is two ports or more, as a devmap of them (xdpbr_mdb_devs).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdpbr.h"

struct bridge;
struct mnl_socket;

/* A group as the datapath keys it: {key, src} (the layout of struct
 * xdpbr_mdb_src_key), a (*,G) entry's src all zero (xdpbr_mdb), an
 * (S,G) entry's its source (xdpbr_mdb_src). */
struct mcast_group {
	struct xdpbr_mdb_key key;
	__u8 src[16];
	__u32 gid;
};

/* One entry of the kernel's MDB: a group's port (or the bridge itself:
 * the host) for a source (all zero: the (*,G) entry). */
struct mcast_member {
	struct xdpbr_mdb_key key;
	__u8 src[16];
	uint32_t ifindex;
	bool fwd;			/* the kernel forwards the group to it */
	__u32 slot;			/* the port's slot, as written (0: none,
					 * or not fwd) */
};

/* A group's port set as written to xdpbr_mdb_set: its key (group id and
 * family, XDPBR_MDB_SET_IP6) and mask; of two ports or more, also its
 * devmap in xdpbr_mdb_devs, whose ports' ifindexes sig sums up. */
struct mcast_set {
	__u32 key;
	__u64 mask;
	__u64 sig;
};

/* With a multicast context per VLAN (mcast_vlan_snooping): what
 * xdpbr_mcast_vlan and xdpbr_mrouter_vlan hold, and each VLAN's querier
 * timing (as struct mcast's querier_on_ns for the bridge). */
struct mcast_vlans {
	bool fresh;			/* the maps' contents unknown: write all */
	__u32 flags[XDPBR_MCAST_VLANS];
	uint64_t querier_on_ns[XDPBR_MCAST_VLANS];
	__u32 (*r)[2];			/* router entries {key, fam}, sorted by key */
	size_t nr;
};

struct mcast {
	struct bridge *br;		/* set by mcast_init */
	uint32_t kbr;			/* the Linux bridge's ifindex; 0: none */
	struct mnl_socket *nl;		/* MDB notifications */
	bool dirty;			/* read again now (lost or router notifications) */
	bool full;			/* the next read writes all and prunes */
	bool snooping;			/* as last read */
	uint64_t look_ns;		/* the next periodic read */
	uint64_t querier_on_ns;		/* since when mcast_querier is on; 0: off */
	__u32 next_gid;
	struct mcast_group *groups;	/* what the maps hold, by key */
	size_t ngroups, capgroups;
	struct mcast_member *mem;	/* ... and the entries that made it, sorted */
	size_t nmem, capmem;
	struct mcast_vlans *vl;		/* NULL until the bridge has VLAN contexts */
	struct mcast_set *sets;		/* what xdpbr_mdb_set holds, by key */
	size_t nsets;
	bool sets_on;			/* sets may be written (no VLAN contexts) */
	bool sets_swept;		/* an earlier run's entries were pruned */
	__u64 rmask[2];			/* router ports below slot 64, IPv4 and IPv6 */
	bool rhigh[2];			/* ... and whether one is above */
	bool vlan_warned;		/* writing a VLAN's context failed, and was said */
};

void mcast_init(struct mcast *m, struct bridge *br);
/* The fd to poll (-1: none), and reading what is queued on it. */
int mcast_fd(const struct mcast *m);
void mcast_read(struct mcast *m);
/* Once a main-loop turn: reads and writes again when due. */
void mcast_step(struct mcast *m);
/* Empties the datapath's snooping state (flood everything), closes. */
void mcast_close(struct mcast *m);

#endif

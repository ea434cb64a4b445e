/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_MCAST_H
#define XDPBR_MCAST_H

/*
 * mcast - IGMP/MLD snooping: the Linux bridge device's MDB, mirrored into
 * the datapath (the xdpbr_mdb* maps, bpf/mcast.h).
 *
 * The kernel bridge snoops: the datapath hands it every IGMP/MLD frame on
 * the port it came in on (whose kernel state, learning, makes the kernel
 * drop it after snooping), and the kernel keeps groups, router ports,
 * querier election, timeouts, leaves and static groups (`bridge mdb add
 * ... permanent`) as it always does, with the bridge's own settings
 * (mcast_snooping, mcast_querier, ... of `ip link set BR type bridge`, a
 * port's mcast_router of `bridge link set`). This mirror reads the MDB (a
 * dump, again on each MDB notification and once a second), and the
 * bridge's snooping and querier state, and writes what the datapath
 * prunes by: groups with their member slots, router slots, whether a
 * querier exists per family, and the host's slot. What the kernel held
 * while the daemon was down is in the first dump: a restart loses nothing.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdpbr.h"

struct bridge;
struct mnl_socket;

struct mcast_group {
	struct xdpbr_mdb_key key;
	__u32 gid;
};

struct mcast {
	struct bridge *br;		/* set by mcast_init */
	uint32_t kbr;			/* the Linux bridge's ifindex; 0: none */
	struct mnl_socket *nl;		/* MDB notifications */
	bool dirty;			/* a notification came: read again */
	uint64_t look_ns;		/* the next periodic read */
	uint64_t querier_on_ns;		/* since when mcast_querier is on; 0: off */
	__u32 next_gid;
	struct mcast_group *groups;	/* what the maps hold, as last written */
	size_t ngroups;
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

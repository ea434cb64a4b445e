/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_UPGRADE_H
#define XDPBR_UPGRADE_H

/*
 * upgrade - adopting the pins of an older build whose map layouts differ.
 *
 * libbpf reuses a pinned map only when its key and value sizes are the
 * ones the object declares, so a layout change would make the new daemon
 * fail to load over the old bridge. Each layout change says here how the
 * old values become new ones.
 *
 * xdpbr_stats (one __u64 per counter of XDPBR_COUNTERS, per CPU and slot)
 * is told by its size, each older layout by the names of its counters
 * (lib/upgrade.c), which take their values along:
 *   29 counters  before jumbo frames and port states
 *   31           + drop_mtu, tx_dropped_mtu (jumbo frames)
 *   32           + drop_port_state (spanning tree port states, issue 12)
 *   33           + drop_linklocal_limit (the link-local rate limit)
 *   34           + bpdu_socket_limit (the same limit on the BPDU sockets)
 *   35           + drop_locked (locked ports)
 *
 * Every map indexed by port slot (max_entries XDPBR_MAX_PORTS: the port
 * tables, counters, VLANs, storm control, learn counts, STP states, the
 * unicast devmap and the flood sets, the spanning tree's two maps) had 64
 * entries until a bridge held 1024 ports (XDPBR_MAX_PORTS 64, up to commit
 * 4c8ee6c): such a map is recreated at this build's size with its entries
 * copied (a devmap's egress program by id), the counters in their layout.
 * A pinned map of any other layout is refused (-EPROTO).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

/* The names of the counters of the older layout of n counters, or NULL. */
const char *const *stats_layout(size_t n);

/* Where counter name is now (enum xdpbr_counter), or -1. */
int stats_index(const char *name);

/* The slot maps' size before a bridge held 1024 ports. (The fast flood's
 * maps had XDPBR_MAX_PORTS entries from then until they were made
 * XDPBR_FLOOD_FAST_SLOTS again: a pin of that size is older too, copied
 * into the smaller map as far as it fits.) */
#define UPGRADE_SLOTS_V64	64

/* A map's layout as bpf_map_info tells it; max_entries 0 in a wanted
 * layout: any (the loader sizes the map from its pin, e.g. the FDB). */
struct map_layout {
	enum bpf_map_type type;
	__u32 key_size, value_size, max_entries, flags;
};

/*
 * When the map pinned at pin (named name) has an older layout than want:
 * a new empty map of want's layout in *new_fd (else -1), for the object
 * to use (bpf_map__reuse_fd) instead of the pinned one until
 * map_upgrade_finish fills it. The pinned map's layout in *have. 0 or
 * -errno; -EPROTO for a layout this build does not know.
 */
int map_upgrade_start(const char *pin, const char *name, const struct map_layout *want,
		      struct map_layout *have, int *new_fd);

/* Copies every entry of the map pinned at pin into new_fd (from
 * map_upgrade_start), each value in new_fd's layout: once the object that
 * uses new_fd has loaded, so that the old datapath's last writes are in.
 * 0 or -errno. */
int map_upgrade_fill(const char *pin, int new_fd);

/* Points pin at the map new_fd: pinned beside it, then renamed over it.
 * 0 or -errno. */
int map_upgrade_pin(const char *pin, int new_fd);

#endif

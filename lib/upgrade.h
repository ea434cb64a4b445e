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
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The names of the counters of the older layout of n counters, or NULL. */
const char *const *stats_layout(size_t n);

/* Where counter name is now (enum xdpbr_counter), or -1. */
int stats_index(const char *name);

/*
 * When the counters pinned at pin (a path) have an older layout: a new
 * map of this layout holding the same counts, as a new fd in *new_fd
 * (else -1), for the object to use (bpf_map__reuse_fd) instead of the
 * pinned one. 0 or -errno; -EPROTO for a layout this build does not know.
 */
int stats_upgrade(const char *pin, int *new_fd);

/* Points pin at the map new_fd (after the object that uses it loaded):
 * pinned beside it, then renamed over the old pin. 0 or -errno. */
int stats_upgrade_pin(const char *pin, int new_fd);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_PORTSTATS_H
#define XDPBR_PORTSTATS_H

#include <stdint.h>
#include "xdpbr.h"

/* JSON/CLI name of each counter, indexed by enum xdpbr_counter. */
extern const char *const counter_names[XDPBR_CNT__MAX];

/* Sums the per-CPU counters of one slot. 0 or -errno. */
int stats_read(int map_fd, uint32_t slot, struct xdpbr_stats *sum);

/* Sum of the outcome counters: equals rx_packets when every frame is
 * accounted for exactly once. */
uint64_t stats_outcomes(const struct xdpbr_stats *s);

#endif

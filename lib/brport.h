/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* brport.h - what the bridge's life (bridge.c) asks of its ports (brport.c). */
#ifndef XDPBR_BRPORT_H
#define XDPBR_BRPORT_H

#include <stdint.h>

struct bridge;

/* ifindex detached from the bridge's programs (XDP, TC), out of
 * promiscuous mode; the maps are left as they are. */
void detach_one(struct bridge *br, uint32_t ifindex);
/* Every port's TCX link this process holds pinned again (bridge_pins_check). */
void tc_links_repin(struct bridge *br);
/* Closes them: their pins hold them. */
void tc_links_close(struct bridge *br);
/* ifindex out of every map of the bridge. */
void port_maps_del(struct bridge *br, uint32_t ifindex);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_PORTS_H
#define XDPBR_PORTS_H

#include <stddef.h>
#include <stdint.h>
#include "xdpbr.h"

struct port_entry {
	uint32_t ifindex;
	struct xdpbr_port port;
};

/* Reads the ports map, sorted by slot. 0 or -errno. *out is malloc'd. */
int ports_dump(int map_fd, struct port_entry **out, size_t *n);

/* Lowest slot in 1..XDPBR_MAX_PORTS-1 not used by ports[]; -ENOSPC if full. */
int ports_free_slot(const struct port_entry *ports, size_t n);

/* The entry for ifindex, or NULL. */
const struct port_entry *ports_find(const struct port_entry *ports, size_t n,
				    uint32_t ifindex);

/* The name of an attach mode (XDPBR_MODES): "none" for any unknown one. */
const char *port_mode_name(uint32_t mode);

/* A requested attach mode by name: XDPBR_MODE_AUTO_NAME ("auto") for
 * XDPBR_MODE_NONE (native where the driver has it, else generic), or the
 * name of a mode the loader attaches ("native", "generic"). 0 or -EINVAL. */
int port_mode_parse(const char *name, enum xdpbr_mode *mode);

/*
 * Which datapath a port runs. Virtual ports (veth, tap) take the skb path
 * (TC): their frames carry GSO and checksum-offload state that an XDP
 * redirect would lose. Every other port takes XDP. Config and the command
 * line can force either.
 */
enum port_path { PORT_PATH_AUTO, PORT_PATH_XDP, PORT_PATH_TC };

/* "auto", "xdp" or "tc". 0 or -EINVAL. */
int port_path_parse(const char *s, enum port_path *path);
/* What auto means for a port of this kind (netlink.h port_kind()). */
enum port_path port_path_of_kind(const char *kind);
/* The datapath a recorded mode (enum xdpbr_mode) means: "xdp", "tc" or
 * "none". */
const char *port_datapath_name(uint32_t mode);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_PORTS_H
#define XDPBR_PORTS_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "xdpbr.h"
#include "util.h"		/* IFNAME_SHOWN */
#include "stpstate.h"

struct port_entry {
	uint32_t ifindex;
	struct xdpbr_port port;
};

/* Reads the ports map, sorted by slot. 0 or -errno. *out is malloc'd. */
int ports_dump(int map_fd, struct port_entry **out, size_t *n);


/* Lowest slot in 1..XDPBR_MAX_PORTS-1 not used by ports[]; -ENOSPC if full. */
int ports_free_slot(const struct port_entry *ports, size_t n);

/* The slot for a new port: the lowest one that neither the slot -> ifindex
 * array (slotif_fd, xdpbr_slotif) nor the ports map (ports_fd) gives to a
 * port. Both are read: the array is written in place and so read whole
 * whatever else changes; a walk of the ports hash can miss an entry
 * rewritten meanwhile (the kernel links the new copy at the head of its
 * bucket, behind the walk), but shows a port whose removal stopped after
 * its slot was cleared. The caller holds the slot lock (lock.h). A slot,
 * -ENOSPC or -errno. */
int ports_slot_for_new(int ports_fd, int slotif_fd);

/* The entry for ifindex, or NULL. */
const struct port_entry *ports_find(const struct port_entry *ports, size_t n,
				    uint32_t ifindex);

/* The name of an attach mode (XDPBR_MODES): "none" for any unknown one. */
const char *port_mode_name(uint32_t mode);

/* A requested attach mode by name: XDPBR_MODE_AUTO_NAME ("auto") for
 * XDPBR_MODE_NONE (native where the driver has it, else generic), or the
 * name of a mode the loader attaches ("native", "generic"). 0 or -EINVAL. */
int port_mode_parse(const char *name, enum xdpbr_mode *mode);

/* Whether an XDP port shares its XDP hook with other programs through
 * libxdp's dispatcher (lib/xdpshare.h) or holds it alone (exclusive, the
 * default). XDP_SHARE_DEFAULT: the bridge's setting. */
enum xdp_share {
	XDP_SHARE_DEFAULT,
	XDP_SHARE_OFF,
	XDP_SHARE_ON,
};

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

/* What the kernel says about a port's interface; the ports map says the
 * rest. Gathered by port_link_read(), shown by the CLI and lib/json.c. */
struct port_link {
	char ifname[IFNAME_SHOWN];	/* shown (name_escape); "if<N>" if gone */
	unsigned int ifflags;		/* IFF_*, IFF_LOWER_UP from IFF_RUNNING */
	int mtu;			/* 0 if unknown */
	uint32_t xdp_prog_id;		/* what the interface really runs, */
	uint32_t xdp_mode;		/* ... not what was recorded (enum xdpbr_mode) */
	const char *xdp_attach;		/* how: "exclusive" (the program alone),
					 * "dispatcher" (libxdp's) or "none" */
	uint32_t tc_prog_id;		/* xdpbr's TC program (TCX link or clsact filter) */
	char kind[IF_NAMESIZE];		/* veth, tap, physical, ... (port_kind) */
	const char *datapath;		/* what runs: "xdp", "tc" or "none" */
	char host_interface[IFNAME_SHOWN]; /* the host's end (shown), for
					 * the port flagged XDPBR_PORT_HOST; else "" */
};

/* Asks the kernel (ioctl, XDP and TC queries, netlink) about port p's
 * interface; what it can't learn stays 0. */
void port_link_read(const struct port_entry *p, struct port_link *l);

/* Forwarding only when the link is up and the datapath uses the port. */
bool port_forwarding(const struct port_entry *p, const struct port_link *l);

/* What link show says of a port: "disabled" when its link is down (or the
 * datapath does not use it), else port_stp_word(). */
const char *port_state_name(const struct port_entry *p, const struct port_link *l,
			    enum xdpbr_stp_state st, bool stp_on);

/* The interface flags shown for a port, in iproute2's order. */
#define PORT_IFF_NAMES 4
extern const struct port_iff_name {
	unsigned int bit;
	const char *name;
} port_iff_names[PORT_IFF_NAMES];

/* Interface name for ifindex into buf (IF_NAMESIZE), "if<N>" if gone. */
const char *ifname_of(uint32_t ifindex, char *buf);
/* The same as it is shown, in text and JSON: escaped by name_escape()
 * into buf (IFNAME_SHOWN). */
const char *ifname_shown(uint32_t ifindex, char *buf);

/* Interface names as shown, for a run of lookups (a page of FDB entries,
 * most on a few ports): each ifindex is asked of the kernel and escaped
 * once, up to IFNAME_CACHE of them; zero it to start. */
#define IFNAME_CACHE XDPBR_MAX_PORTS
struct ifname_cache {
	unsigned int n;
	uint32_t ifindex[IFNAME_CACHE];
	char name[IFNAME_CACHE][IFNAME_SHOWN];
};

/* ifname_shown(), through the cache; buf (IFNAME_SHOWN) is used only when
 * it is full. */
const char *ifname_cached(struct ifname_cache *c, uint32_t ifindex, char *buf);

#endif

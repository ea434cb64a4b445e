/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_CONFIG_H
#define XDPBR_CONFIG_H

/*
 * config - xdpbrd's configuration file, INI (see etc/xdpbrd.conf):
 *
 *   [bridge]        name, ageing_time, fdb_max_learned, fdb_size, fdb_cache,
 *                   mode, listen, vlan_filtering, default_pvid,
 *                   host_interface, mac, stp, priority, hello_time,
 *                   max_age, forward_delay
 *   [port IFNAME]   learning, flood, mcast_flood, bcast_flood, isolated,
 *                   hairpin, max_learned, static (repeatable), pvid, vlans,
 *                   untagged, storm_bcast, storm_mcast, storm_unknown,
 *                   path_cost, port_priority, edge, bpdu_guard,
 *                   bpdu_guard_timeout, root_guard
 *   [vxlan]         vni, local_ip, dstport, underlay (the overlay: doc/evpn.md)
 *
 * Strict: an unknown section or key, a key given twice, a value out of range
 * or with trailing junk is an error, reported as "FILE:LINE: message". Lines
 * are "key = value"; comments are whole lines starting with ';' or '#', or
 * " ; text" at the end of a line. Leading whitespace is ignored (it never
 * continues the previous line's value, whatever inih would do).
 *
 * Parsing fills a fresh struct config; the caller swaps it in only when
 * parsing succeeded (reload keeps the running config on an error).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "xdpbr.h"
#include "ports.h"		/* enum port_path */
#include "stp.h"			/* struct stp_port_cfg */

/*
 * The limits of the values are include/xdpbr.h's (XDPBR_*_MAX, ...).
 *
 * The endpoint's default port: 9638, the first one the Prometheus
 * project's list of exporter ports ("Default port allocations", its wiki)
 * left unallocated in the copy read for this; 9100, the default before,
 * is node_exporter's, taken on any monitored machine. Loopback only. One
 * daemon per bridge: a second bridge on the same machine needs its own
 * listen = (xdpbrd@.service: in its /etc/xdpbr/BRIDGE.conf); on a port
 * already taken the daemon runs on without the endpoint and says so.
 */
#define CONFIG_LISTEN_DEFAULT	"127.0.0.1:9638"
#define CONFIG_LISTEN_NONE	"none"		/* listen value: no endpoint */

/* One "static = MAC [vlan ID]" line of a port. */
struct config_static {
	uint8_t mac[6];			/* unicast, non-zero */
	uint16_t vlan;			/* 0..XDPBR_VLAN_MAX */
	int line;			/* where it was given */
};

struct config_port {
	char name[16];			/* interface name */
	uint32_t flags;			/* XDPBR_PORT_* user flags, default
					 * XDPBR_PORT_DEFAULT_FLAGS */
	uint32_t max_learned;		/* dynamic entries on this port; 0 = no limit */
	struct config_static *statics;	/* in file order */
	size_t nstatics;
	/*
	 * 802.1Q (enforced while the bridge's vlan_filtering is on). Bit vid of
	 * vlans[] = tagged member of VLAN vid, of untagged[] = untagged member
	 * (egress untagged); no VLAN is in both. vlans_set: "vlans" or
	 * "untagged" was given. pvid (0 = none: untagged ingress is dropped) is
	 * a member when non-zero. !pvid_set: the port gets the bridge's default
	 * PVID, as a kernel bridge port does (PVID and untagged member).
	 */
	bool pvid_set;
	uint16_t pvid;			/* 0..XDPBR_VLAN_MAX, 0 unless pvid_set */
	bool vlans_set;
	__u64 vlans[XDPBR_VLAN_WORDS];	/* the datapath's bitmap type */
	__u64 untagged[XDPBR_VLAN_WORDS];
	/* Storm control: frames per second received on the port that the
	 * bridge may flood, by enum xdpbr_storm_class; 0 = no limit. */
	uint32_t storm[XDPBR_STORM__MAX];
	enum port_path path;		/* datapath: auto (the bridge's), xdp, tc */
	/* Spanning tree settings (used while the bridge's stp is on), as
	 * given: config_stp_port() completes them. edge_set: edge was given
	 * (else on for the host interface's port, auto for the others). */
	struct stp_port_cfg stp;
	bool edge_set;
	bool priority_set;		/* port_priority (else 128) */
	enum xdp_share xdp_share;	/* XDP hook shared through libxdp's
					 * dispatcher; default: the bridge's */
	int line;			/* line of its [port ...] header */
};

#define CONFIG_VNI_MAX		16777215	/* 24 bits */
#define CONFIG_DSTPORT_DEFAULT	4789		/* IANA's VXLAN port */

/* [vxlan]: the bridge's VXLAN overlay, with FRR's EVPN as control plane. */
struct config_vxlan {
	int line;			/* of [vxlan]; 0: no overlay */
	uint32_t vni;			/* 1..CONFIG_VNI_MAX */
	struct in_addr local_ip;	/* the VTEP address */
	uint16_t dstport;		/* UDP port, default CONFIG_DSTPORT_DEFAULT */
	char underlay[16];		/* interface for the tunnels, "" = any */
};

/* [bridge] spanning tree keys, 802.1D-2004 defaults unless given. */
#define CONFIG_STP_PRIORITY	32768
#define CONFIG_STP_HELLO	2
#define CONFIG_STP_MAX_AGE	20
#define CONFIG_STP_FWD_DELAY	15
#define CONFIG_STP_PORT_PRIO	128
struct config_stp {
	bool on;			/* stp = on (default off, as the kernel bridge) */
	bool priority_set;
	uint16_t priority;		/* 0..61440, a multiple of 4096 */
	unsigned int hello_time, max_age, forward_delay;	/* seconds; 0: not given */
};

struct config {
	char name[16];			/* bridge name; "" if not set */
	bool ageing_set;
	uint64_t ageing_s;		/* 0 = never */
	uint32_t fdb_max_learned;	/* dynamic entries in the bridge; 0 = no limit */
	uint32_t fdb_size;		/* FDB capacity; 0 = default (XDPBR_FDB_SIZE) */
	bool fdb_cache_set;
	uint32_t fdb_cache;		/* per-CPU FDB cache entries; 0 = off */
	bool mode_set;
	enum xdpbr_mode mode;		/* XDPBR_MODE_NONE: auto */
	enum port_path path;		/* default datapath of ports: auto = by kind */
	bool xdp_share_set;
	bool xdp_share;			/* ports share their XDP hook (libxdp's
					 * dispatcher); off unless set */
	char listen[64];		/* stats endpoint; "" = CONFIG_LISTEN_DEFAULT */
	bool vlan_filtering_set;
	bool vlan_filtering;		/* 802.1Q VLAN-aware; off unless set */
	bool default_pvid_set;
	uint16_t default_pvid;		/* 0..XDPBR_VLAN_MAX, 0 = none; when
					 * !default_pvid_set: XDPBR_DEFAULT_PVID */
	bool host_interface_set;
	bool host_interface;		/* a host interface named after the
					 * bridge; on unless set */
	bool mac_set;
	uint8_t mac[6];			/* its address; derived when !mac_set */
	struct config_stp stp;
	struct config_port *ports;	/* in file order */
	size_t nports;
	struct config_vxlan vxlan;
};

/*
 * Parse a file or a string (name is used in messages). 0, or -EINVAL for
 * bad content, -errno when the file can't be read, -ENOMEM; err then holds
 * "FILE:LINE: message" (or "FILE: message" for open/read errors). *c is
 * overwritten, not freed: pass a fresh struct. On error it is left zeroed;
 * on success release it with config_free(). err may be NULL.
 */
int config_parse_file(const char *path, struct config *c, char *err, size_t errlen);
int config_parse_string(const char *name, const char *text, struct config *c,
			char *err, size_t errlen);

/* Frees what a successful parse allocated and zeroes *c. */
void config_free(struct config *c);

/* The port called name, or NULL. */
const struct config_port *config_port_find(const struct config *c, const char *name);

/* Same name, flags, max_learned, set of static entries (order and line
 * numbers don't matter), pvid (and whether it was set), VLAN bitmaps and
 * storm limits:
 * false means the daemon must reapply the port. A port without pvid follows
 * the bridge's default_pvid, which this does not see: when that changes,
 * such ports need reapplying too. */
bool config_port_equal(const struct config_port *a, const struct config_port *b);

/* The spanning tree settings in use: the file's, defaults for what it
 * does not give (a zeroed struct config gives every default). A port's:
 * cp NULL for a port with no [port] section; host says whether it is the
 * host interface's port (an edge port by default). */
void config_stp_effective(const struct config_stp *in, struct config_stp *out);
void config_stp_port(const struct config_port *cp, bool host, struct stp_port_cfg *out);
/* A listen value (the file's listen =, xdpbrd -l): "ADDR:PORT" (IPv4) or
 * "[ADDR]:PORT" (IPv6), numeric only, port 1..65535, into a socket address;
 * or CONFIG_LISTEN_NONE, no endpoint: sa's family is then AF_UNSPEC and
 * *salen 0. 0 or -EINVAL. */
int config_listen_parse(const char *s, struct sockaddr_storage *sa, socklen_t *salen);

/* Whether a listen value turns the endpoint off (CONFIG_LISTEN_NONE). */
bool config_listen_none(const char *s);

/* A size of the datapath's per-CPU FDB cache: 0 (off) or a power of two
 * from 4 to XDPBR_FDB_CACHE_MAX entries (the loader makes 4 two sets of 4
 * ways: fdbc_bits 0 means off). */
bool config_fdb_cache_valid(uint64_t v);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_CONFIG_H
#define XDPBR_CONFIG_H

/*
 * config - xdpbrd's configuration file, INI (see etc/xdpbrd.conf):
 *
 *   [bridge]        the bridge rows of lib/settings.c (name, ageing_time, ...)
 *   [port IFNAME]   its port rows (learning, ..., static, repeatable)
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
#include "settings.h"
#include "rstp.h"			/* struct stp_port_cfg */

/*
 * The ranges and defaults of the bridge's and the ports' keys are their
 * rows' (lib/settings.c); their values are read into struct settings.
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
	/* Its keys, by row (SET_LEARNING, SET_MAX_LEARNED, ...): mode and
	 * datapath as enum xdpbr_mode / enum port_path. Those without a
	 * constant default: datapath and xdp_share not given are the
	 * bridge's; edge on for the host interface's port (config_stp_port);
	 * pvid the bridge's default_pvid, as a kernel bridge port's (PVID and
	 * untagged member). */
	struct settings set;
	struct config_static *statics;	/* in file order */
	size_t nstatics;
	/*
	 * 802.1Q (enforced while the bridge's vlan_filtering is on). Bit vid of
	 * vlans[] = tagged member of VLAN vid, of untagged[] = untagged member
	 * (egress untagged); no VLAN is in both. A non-zero pvid is a member.
	 */
	__u64 vlans[XDPBR_VLAN_WORDS];	/* the datapath's bitmap type */
	__u64 untagged[XDPBR_VLAN_WORDS];
	int line;			/* line of its [port ...] header */
	bool unapplied;			/* xdpbrd failed to apply it: the next
					 * reload tries again, same or not */
};

/* "vlans" or "untagged" given: the port's VLANs are the file's, not the
 * default PVID's alone. */
static inline bool config_port_vlans_set(const struct config_port *cp)
{
	return setting_given(&cp->set, SET_VLANS) || setting_given(&cp->set, SET_UNTAGGED);
}

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

/* [bridge] spanning tree keys, 802.1D-2004 defaults unless given: their
 * rows' (new code reads settings[] itself). */
#define CONFIG_STP_PRIORITY	((uint16_t)settings[SET_PRIORITY].def)
#define CONFIG_STP_HELLO	((unsigned int)settings[SET_HELLO_TIME].def)
#define CONFIG_STP_MAX_AGE	((unsigned int)settings[SET_MAX_AGE].def)
#define CONFIG_STP_FWD_DELAY	((unsigned int)settings[SET_FORWARD_DELAY].def)
#define CONFIG_STP_PORT_PRIO	((uint8_t)settings[SET_PORT_PRIORITY].def)
/* The [bridge] spanning tree rows in the form xdpbrd's spanning tree
 * (daemon/stpd.c) takes them, filled from set at the section's end. */
struct config_stp {
	bool on;			/* stp = on (default off, as the kernel bridge) */
	bool priority_set;
	uint16_t priority;		/* as its row says (lib/settings.c) */
	unsigned int hello_time, max_age, forward_delay;	/* seconds; 0: not given */
};

struct config {
	/* The [bridge] keys, by row (SET_AGEING_TIME, ...); mode and datapath
	 * as enum xdpbr_mode / enum port_path. */
	struct settings set;
	char name[16];			/* bridge name; "" if not set */
	char listen[64];		/* stats endpoint; "" = CONFIG_LISTEN_DEFAULT */
	uint8_t mac[6];			/* the host interface's, if SET_MAC given */
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

/* Same name and the same of what the daemon applies to a port: the rows
 * that live in its entry, storm limits and VLANs (lib/settings.h
 * settings_same), the VLAN bitmaps and the set of static entries (order and
 * line numbers don't matter). false means the daemon must reapply the
 * port. A port without pvid follows the bridge's default_pvid, which this
 * does not see: when that changes, such ports need reapplying too. */
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

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_HOSTIF_H
#define XDPBR_HOSTIF_H

/*
 * hostif - the bridge's host interface: the netdev named after the bridge
 * that puts the host itself on the bridged LAN (addresses, DHCP, SSH), as a
 * kernel bridge's br0 does.
 *
 * It is a veth pair: the host's end carries the bridge's name and address;
 * the other end (HOSTIF_PORT_FMT) is an ordinary port of the bridge, on
 * the path any veth port takes. The host's address is a local FDB entry on
 * that port (static, never ages or moves), so frames to the host are known
 * unicast and floods reach it like any port; nothing else in the datapath
 * knows about it, and bridged traffic between other ports pays nothing.
 * The pair is a kernel object: it outlives the daemon (SIGKILL, --keep)
 * with its addresses, and the next daemon adopts it. doc/architecture.md
 * says why this and not a tap or XDP_PASS.
 */
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pins.h"
#include "xdpbr.h"

/* The alias that marks the host's end as ours (ip link show shows it). */
#define HOSTIF_ALIAS_FMT	"xdpbr host interface of bridge %s"

struct hostif {
	char name[IF_NAMESIZE];		/* the host's end: the bridge's name */
	char port[IF_NAMESIZE];		/* the bridge's end, a port */
	uint32_t ifindex;		/* of name */
	uint32_t port_ifindex;		/* of port */
};

/* The name of the bridge's end for bridge: "BRIDGE-host" when it fits in
 * an interface name, else "xbh" and 8 hex digits of a hash of the name. */
void hostif_port_name(const char *bridge, char buf[IF_NAMESIZE]);
/* Always the hashed form, "xbh" and 8 hex digits (lib/overlay.c names its
 * objects with the same digits). */
void hostif_port_name_hashed(const char *bridge, char buf[IF_NAMESIZE]);

/* A stable locally administered unicast address for bridge on the machine
 * whose id is machine_id (may be ""): a hash of both, as systemd-networkd
 * derives the addresses of the bridges it creates. */
void hostif_mac_derive(const char *machine_id, const char *bridge, uint8_t mac[6]);
/* The same with /etc/machine-id, and the network namespace's inode in the
 * name outside the host's namespace (lib/paths.h). */
void hostif_mac_default(const char *bridge, uint8_t mac[6]);

/*
 * Finds the host interface of bridge. 0: it exists and is ours (*h filled);
 * -ENOENT: no interface has the bridge's name; -EEXIST: one has and it is
 * not ours (why says what it is); other -errno: the query failed.
 */
int hostif_find(const char *bridge, struct hostif *h, char *why, size_t len);

/* Creates the pair with the host's end at mac, down (the user brings it
 * up, as with `ip link add ... type bridge`), the bridge's end up and mute
 * (no IPv6 addresses of its own). 0 or -errno, said in the log; nothing is
 * left behind on failure. */
int hostif_create(const char *bridge, const uint8_t mac[6], struct hostif *h);

/* Makes the host's end able to take frames the bridge's end is sent by an
 * XDP redirect (veth needs NAPI: GRO on) and able to send frames the XDP
 * path can forward (checksums done in software). For xdp false (the skb
 * path), offloads stay as they are. Warns on failure. */
void hostif_prepare(const struct hostif *h, bool xdp);

/* The host's end came up. On the XDP path its NAPI must run now: veth
 * starts it when GRO is switched on while the device is up, but (seen on
 * Linux 6.18) not always for a GRO setting made while it was down, and
 * then every frame redirected to the host is dropped (redirect_errors).
 * So GRO is switched off and on again. Warns on failure. */
void hostif_up(const struct hostif *h, bool xdp);

/* Deletes the pair (both ends). 0 or -errno. */
int hostif_delete(const struct hostif *h);

/* The local FDB entries of the host interface: its current address in
 * every VLAN its port is a member of (VLAN 0 when VLAN filtering is off).
 * The daemon calls hostif_fdb_sync() periodically: it follows the host
 * end's address (ip link set BRIDGE address ...), the port's VLANs, and
 * puts back entries a flush removed. */
struct hostif_fdb {
	bool installed;			/* mac/vids describe what is in the FDB */
	uint8_t mac[6];
	__u64 vids[XDPBR_VLAN_WORDS];	/* bit v: entry in VLAN v */
};
/* Entries written or removed, or -errno. */
int hostif_fdb_sync(const struct xdpbr_maps *m, const struct hostif *h,
		    struct hostif_fdb *st);
/* Removes every entry st says is installed. */
void hostif_fdb_clear(const struct xdpbr_maps *m, const struct hostif *h,
		      struct hostif_fdb *st);

#endif

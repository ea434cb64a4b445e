/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_HOSTIF_H
#define XDPBR_HOSTIF_H

/*
 * hostif - the bridge's host interface: the netdev named after the bridge
 * that puts the host itself on the bridged LAN (addresses, DHCP, SSH), as a
 * kernel bridge's br0 does.
 *
 * It is a Linux bridge device (`ip -d link show BRIDGE` says bridge), so
 * the host's addresses, DHCP and routes live where every tool expects
 * them, and xdpbr's ports are its ports. The kernel bridge forwards
 * nothing: every port but one is muted (link_brport_mute: no learning, no
 * flooding), and the datapath redirects what it forwards before the
 * kernel bridge sees it. The one unmuted port, the device's end
 * ("BRIDGE-dev"), is a veth whose peer, the bridge's end
 * ("BRIDGE-host"), is an ordinary xdpbr port on the path any veth port
 * takes: frames for the host cross it into the device's stack, frames the
 * host sends on the device leave through it (the kernel bridge floods
 * them only there) into the datapath. The host's address is a local FDB
 * entry on that port (static, never ages or moves), so frames to the host
 * are known unicast and floods reach it like any port; nothing else in
 * the datapath knows about it, and bridged traffic between other ports
 * pays nothing. All three are kernel objects: they outlive the daemon
 * (SIGKILL, --keep) with the addresses, and the next daemon adopts them.
 * doc/architecture.md says why this and not a tap or XDP_PASS.
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
	char port[IF_NAMESIZE];		/* the bridge's end, an xdpbr port */
	char dev[IF_NAMESIZE];		/* the device's end, a port of name */
	uint32_t ifindex;		/* of name */
	uint32_t port_ifindex;		/* of port */
	uint32_t dev_ifindex;		/* of dev */
	bool foreign;			/* a Linux bridge that was there: handed back */
	bool user_stp;			/* stp_state 2: hostif_user_stp made it so */
};

/* The name of the bridge's end for bridge: "BRIDGE-host" when it fits in
 * an interface name, else "xbh" and 8 hex digits of a hash of the name. */
void hostif_port_name(const char *bridge, char buf[IF_NAMESIZE]);
/* The name of the device's end: "BRIDGE-dev", else "xbd" and the same hash. */
void hostif_dev_name(const char *bridge, char buf[IF_NAMESIZE]);
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
 * Finds the host interface of bridge. 0: it exists and is ours (*h filled)
 * or is a Linux bridge that someone else made (h->foreign: taken over,
 * its veth pair made if missing, handed back by hostif_hand_back);
 * -ENOENT: no interface has the bridge's name; -EEXIST: one has and it is
 * no bridge device (why says what it is); other -errno: the query failed.
 */
int hostif_find(const char *bridge, struct hostif *h, char *why, size_t len);

/* Creates the device at mac, down (the user brings it up, as with `ip
 * link add ... type bridge`), and the veth pair into it, up and mute (no
 * IPv6 addresses of their own). 0 or -errno, said in the log; nothing is
 * left behind on failure. */
int hostif_create(const char *bridge, const uint8_t mac[6], struct hostif *h);

/* Makes the device's end able to take frames the bridge's end is sent by
 * an XDP redirect (veth needs NAPI: GRO on), on either path (the skb
 * path's port takes the XDP ports' floods, XDPBR_PORT_XDP_TARGET); for xdp
 * true (the XDP path), also able to send frames the XDP path can forward
 * (checksums done in software), where on the skb path offloads stay as
 * they are. 0 when GRO is on (NAPI runs), else the error; each failure
 * said in a warning. */
int hostif_prepare(const struct hostif *h, bool xdp);

/* The host's end came up. The device's end's NAPI must run now: veth
 * starts it when GRO is switched on while the device is up, but (seen on
 * Linux 6.18) not always for a GRO setting made while it was down, and
 * then every frame redirected to the host is dropped (redirect_errors).
 * So GRO is switched off and on again. Warns on failure. */
void hostif_up(const struct hostif *h);

/* Makes ifindex a port of the device the kernel bridge never forwards on
 * (link_brport_mute); a port of another bridge (the overlay's gateway) is
 * left there. 0 for a port that is down, which the kernel keeps disabled
 * until it comes up (call it again then), or -errno. */
int hostif_port_join(const struct hostif *h, uint32_t ifindex);
/* ifindex leaves the device, if it is a port of it. */
void hostif_port_leave(const struct hostif *h, uint32_t ifindex);

/* Calls fn for every port of the device but the device's end. */
void hostif_each_port(const struct hostif *h, void (*fn)(uint32_t ifindex, void *arg),
		      void *arg);
/* What the host sends on the device goes into the datapath through the
 * pair (BR-dev to BR-host): the device's clsact egress redirects every
 * frame to its end of the pair before br_dev_xmit sees it, so the kernel
 * bridge never forwards the host's frames itself (with the ports muted,
 * the FDB entries the mirror writes would send them to a port that drops
 * them). And the reports among the frames for the host (the datapath's
 * copies of IGMP/MLD reports to the device's end) go to the device's
 * stack past the kernel bridge, which snooped them on their own port
 * already (tc_ingress_reports_to). 0 or -errno, said in the log. */
int hostif_steer(const struct hostif *h);
/*
 * Makes xdpbr the device's user-space spanning tree, as mstpd is a kernel
 * bridge's: stp_state 1 asks the kernel, which runs /sbin/bridge-stp
 * BRIDGE start and, on its yes (xdpbr's helper, daemon/bridge-stp, says
 * yes for a bridge whose pins are in the host's bpffs), reports stp_state
 * 2 and never again changes a port's state itself. A port that joins the
 * device or comes up is then blocking until the daemon mutes it, where
 * without it the kernel makes the port forwarding at once and forwards on
 * it until the mute. Only in the host's network namespace (the kernel asks
 * nowhere else), with xdpbr's helper installed, on a device that does not
 * run the kernel's STP. 1: on (h->user_stp; also when an earlier daemon
 * left it on), 0: not (why says why), -errno.
 */
int hostif_user_stp(struct hostif *h, char *why, size_t len);
/* Under user-space STP, the device's end (BRIDGE-dev) comes back from a
 * link change (its own, the device's) blocking: makes it forwarding, the
 * one port the kernel bridge forwards on (the host's frames). */
void hostif_dev_forward(const struct hostif *h);

/* A taken-over bridge forwards in the kernel again: each port unmuted
 * (forwarding state), its stp_state 0 again if hostif_user_stp set it, the
 * egress redirect removed, the veth pair deleted. */
void hostif_hand_back(struct hostif *h);

/* Deletes the device and the pair. 0 or -errno. */
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

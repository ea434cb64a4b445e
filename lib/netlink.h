/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_NETLINK_H
#define XDPBR_NETLINK_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000	/* <linux/if.h>, which clashes with <net/if.h> */
#endif

/* veth delivers an XDP-redirected frame to its peer only when the peer runs
 * NAPI: it has GRO on or an XDP program. Otherwise the frame is dropped and
 * counted nowhere obvious. For a veth port, check the peer (in whatever
 * network namespace it lives, if that namespace is named in /run/netns) and
 * warn with the fix; also warn when the peer has transmit checksum offload
 * on (its TCP/UDP would arrive with unfinished checksums). Returns 1 when
 * the peer can't receive, 0 when it can or
 * the port is no veth, -errno when the check itself failed. */
int veth_peer_check(uint32_t ifindex, const char *ifname);

/* The settings of a vxlan device (IFLA_VXLAN_*). */
struct vxlan_info {
	uint32_t vni;			/* IFLA_VXLAN_ID */
	struct in_addr local;		/* IFLA_VXLAN_LOCAL, the VTEP address */
	uint16_t dstport;		/* IFLA_VXLAN_PORT, host byte order */
	uint32_t link;			/* IFLA_VXLAN_LINK: underlay ifindex, or 0 */
	uint8_t learning;		/* IFLA_VXLAN_LEARNING */
};

/* Turns receive VLAN offload (tag stripping, "rx-vlan-offload") off on
 * interface name: a NIC that strips 802.1Q tags into the socket buffer
 * hides them from generic XDP. 1 if it was on, 0 if it was off already,
 * -errno on error. */
int ethtool_rxvlan_off(const char *name);

/* virtio-net sends the frames XDP redirects into it through queues of its
 * own, one per CPU, on top of the queue pairs in use; where the device has
 * too few, the driver (5.12 and later) falls back to its shared queues
 * under a lock. But with more queue pairs in use than CPUs, 6.1's driver
 * picks a queue that isn't there for them and crashes. For a port about
 * to get native XDP: VIRTIO_XDP_OK (enough queues, or no virtio-net),
 * VIRTIO_XDP_LOCKED (too few: slower, warned with the fix),
 * VIRTIO_XDP_UNSAFE (the crash case: warned with the fix; no native XDP
 * there), or -errno when the check itself failed. */
enum { VIRTIO_XDP_OK, VIRTIO_XDP_LOCKED, VIRTIO_XDP_UNSAFE };
int virtio_xdp_check(const char *ifname);

struct link_info {
	unsigned int flags;		/* IFF_* of the ifinfomsg, incl. IFF_LOWER_UP */
	char kind[16];			/* "veth", ... ("" when none) */
	int32_t peer_ifindex;		/* IFLA_LINK, or 0 */
	int32_t peer_nsid;		/* IFLA_LINK_NETNSID, or -1: same netns */
	char alias[64];			/* IFLA_IFALIAS, truncated ("" when none) */
	uint8_t mac[6];			/* IFLA_ADDRESS of an Ethernet device */
	uint32_t master;		/* IFLA_MASTER (a bridge port's bridge), or 0 */
	struct vxlan_info vxlan;	/* kind "vxlan": its settings */
	uint32_t xdp_drv_id;		/* IFLA_XDP: the XDP program in native mode, */
	uint32_t xdp_skb_id;		/* ... generic mode, */
	uint32_t xdp_hw_id;		/* ... offloaded; 0 where none */
};

/* RTM_GETLINK for ifindex in the current network namespace. */
int link_get_info(uint32_t ifindex, struct link_info *li);

/* XDP program attached to ifindex and its mode (enum xdpbr_mode). */
int xdp_query(uint32_t ifindex, uint32_t *prog_id, uint32_t *mode);

/* Creates a veth pair: name with address mac (NULL: the kernel's choice),
 * and its peer (address chosen by the kernel), both down, in the current namespace. 0 or -errno
 * (-EEXIST: a name is taken). */
int link_add_veth(const char *name, const uint8_t mac[6], const char *peer);

/* Creates a kernel bridge (VLAN-unaware, no STP), down. 0 or -errno. */
/* A request about one link (RTM_*LINK with flags, ifinfomsg of family
 * and ifindex) in buf of MNL_SOCKET_BUFFER_SIZE bytes. The buffer is
 * zeroed first: libmnl 1.0.4 leaves the padding after an attribute as it
 * was. */
struct nlmsghdr *link_msg_family(char *buf, uint16_t type, uint16_t flags, uint8_t family,
				 int ifindex);
int link_add_bridge(const char *name);
/* Creates a vxlan device with v's settings, down. 0 or -errno. */
int link_add_vxlan(const char *name, const struct vxlan_info *v);
/* Learning on or off on a port of a kernel bridge (IFLA_BRPORT_LEARNING). */
int link_brport_learning(uint32_t ifindex, bool on);
/* A port of a kernel bridge the kernel never forwards to: in the learning
 * state, where the kernel bridge drops what it is handed after its taps
 * (BPDUs reach the daemon's sockets) and after snooping IGMP/MLD (the
 * datapath hands it those, bpf/mcast.h: the kernel keeps the MDB); not
 * listening, which drops before snooping; not blocking, which the
 * kernel's state selection turns back into forwarding at once while it
 * runs no STP. The kernel learns only from the few frames it is handed
 * (IGMP/MLD), of hosts the datapath learned from the same frame, whose
 * entries the mirror makes extern_learn (daemon/brmirror.c);
 * its learned entries flushed (a tool's port forwarded in the kernel until
 * it joined). Its flags (learning, flood, ...) are left alone: they are
 * the user's, mirrored with xdpbr's (daemon/brmirror.c). The kernel puts a
 * port back to forwarding when it reselects states (a port's link comes
 * up): the daemon mutes it again on that link event. */
#define BRPORT_STATE_LEARNING 2	/* BR_STATE_LEARNING of <linux/if_bridge.h> */
int link_brport_mute(uint32_t ifindex);
/* Forwarding in the kernel bridge again. */
int link_brport_unmute(uint32_t ifindex);

/* What link_set() changes; NULL/false leaves a property alone. */
struct link_set {
	bool up;			/* set IFF_UP */
	const char *alias;		/* IFLA_IFALIAS */
	uint32_t master;		/* IFLA_MASTER: enslave to this bridge */
	bool nomaster;			/* IFLA_MASTER 0: leave its bridge */
	const uint8_t *mac;		/* IFLA_ADDRESS, 6 bytes */
	bool no_ipv6_addresses;		/* IPv6 addrgenmode none */
	int promisc;			/* 1 set IFF_PROMISC, -1 clear it, 0 leave it */
};
int link_set(uint32_t ifindex, const struct link_set *ls);
int link_del(uint32_t ifindex);

/* Sets an ethtool flag (ETHTOOL_S*, e.g. ETHTOOL_SGRO) of interface name.
 * 0 or -errno. */
int ethtool_set_flag(const char *name, uint32_t cmd, bool on);

/* The kind of port ifindex is: "veth", "tap", "physical" (a device with no
 * link kind: a NIC's driver), or its link kind ("vxlan", "macvlan", ...).
 * 0 or -errno. */
int port_kind(uint32_t ifindex, char *kind, size_t len);

/* One rtnetlink request and its reply, on a socket of its own; cb (may be
 * NULL) gets each message of the reply. 0 or -errno. */
struct nlmsghdr;
typedef int (*nl_reply_cb)(const struct nlmsghdr *nlh, void *data);
int nl_request(struct nlmsghdr *nlh, nl_reply_cb cb, void *data);

/* A non-blocking rtnetlink socket subscribed to groups (RTMGRP_* bits);
 * NULL with errno on failure. nl_read_all hands each message queued on it
 * to cb: 0, or -errno (-ENOBUFS: notifications were lost); nl_read_some
 * the same from at most reads reads (a read takes one notification): 1
 * when it stopped there (more may be queued), 0 when none is left. */
struct mnl_socket;
struct mnl_socket *nl_subscribe(unsigned int groups);
/* The same with a receive buffer of NL_BURST_RCVBUF, for groups whose
 * notifications come in bursts (a kernel bridge's FDB, its MDB): room
 * for them between two reads. */
#define NL_BURST_RCVBUF	(8 << 20)
struct mnl_socket *nl_subscribe_burst(unsigned int groups);
int nl_read_all(struct mnl_socket *nl, nl_reply_cb cb, void *data);
int nl_read_some(struct mnl_socket *nl, nl_reply_cb cb, void *data, unsigned int reads);

/* Up for bridging: administratively up and with carrier. */
#define LINK_UP(flags) (((flags) & IFF_UP) && ((flags) & IFF_LOWER_UP))

/* Link events from the kernel (RTNLGRP_LINK). */
struct link_event {
	uint32_t ifindex;
	unsigned int flags;		/* IFF_*, valid unless deleted */
	bool deleted;
};

struct mnl_socket;
typedef void (*link_event_cb)(const struct link_event *ev, void *arg);

/* Opens a non-blocking netlink socket subscribed to link events; its fd
 * is mnl_socket_get_fd(). NULL with errno on failure. */
struct mnl_socket *linkwatch_open(void);
/* Reads what is queued and calls cb for each link message. 0 or -errno;
 * -ENOBUFS means events were lost: the caller should resynchronise. */
int linkwatch_read(struct mnl_socket *nl, link_event_cb cb, void *arg);
void linkwatch_close(struct mnl_socket *nl);

#endif

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* netlink.c - rtnetlink queries (libmnl). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/veth.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <bpf/libbpf.h>

#include "xdpbr.h"
#include "hook.h"
#include "log.h"
#include "netlink.h"

#define NETNS_RUN_DIR "/run/netns"

/* One request, its reply and the ack (or an error). cb may be NULL. */
int nl_request(struct nlmsghdr *nlh, nl_reply_cb cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl;
	unsigned int portid, seq;
	int ret;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	/* The ack ends the exchange: a non-dump reply has no NLMSG_DONE. */
	nlh->nlmsg_flags |= NLM_F_ACK;
	seq = nlh->nlmsg_seq = (unsigned int)time(NULL);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	ret = (int)mnl_socket_recvfrom(nl, buf, sizeof(buf));
	while (ret > 0) {
		ret = mnl_cb_run(buf, (size_t)ret, seq, portid, cb, data);
		if (ret <= MNL_CB_STOP)
			break;
		ret = (int)mnl_socket_recvfrom(nl, buf, sizeof(buf));
	}
	ret = ret < 0 ? -errno : 0;
out:
	mnl_socket_close(nl);
	return ret;
}

static int vxlan_data_cb(const struct nlattr *attr, void *data)
{
	struct link_info *li = data;

	switch (mnl_attr_get_type(attr)) {
	case IFLA_VXLAN_ID:
		li->vxlan.vni = mnl_attr_get_u32(attr);
		break;
	case IFLA_VXLAN_LOCAL:
		if (mnl_attr_get_payload_len(attr) == sizeof(li->vxlan.local))
			memcpy(&li->vxlan.local, mnl_attr_get_payload(attr),
			       sizeof(li->vxlan.local));
		break;
	case IFLA_VXLAN_PORT:
		li->vxlan.dstport = ntohs(mnl_attr_get_u16(attr));
		break;
	case IFLA_VXLAN_LINK:
		li->vxlan.link = mnl_attr_get_u32(attr);
		break;
	case IFLA_VXLAN_LEARNING:
		li->vxlan.learning = mnl_attr_get_u8(attr);
		break;
	}
	return MNL_CB_OK;
}

/* IFLA_INFO_KIND comes before IFLA_INFO_DATA, whose layout it gives. */
static int linkinfo_kind_cb(const struct nlattr *attr, void *data)
{
	struct link_info *li = data;

	if (mnl_attr_get_type(attr) == IFLA_INFO_KIND)
		snprintf(li->kind, sizeof(li->kind), "%s", mnl_attr_get_str(attr));
	else if (mnl_attr_get_type(attr) == IFLA_INFO_DATA && !strcmp(li->kind, "vxlan"))
		mnl_attr_parse_nested(attr, vxlan_data_cb, li);
	return MNL_CB_OK;
}

/* IFLA_XDP's program of each mode: the kernel reports every mode that has
 * one (rtnl_xdp_fill), IFLA_XDP_PROG_ID besides when only one has. */
static int xdp_attr_cb(const struct nlattr *attr, void *data)
{
	struct link_info *li = data;

	if (mnl_attr_get_payload_len(attr) < sizeof(uint32_t))
		return MNL_CB_OK;
	switch (mnl_attr_get_type(attr)) {
	case IFLA_XDP_DRV_PROG_ID:
		li->xdp_drv_id = mnl_attr_get_u32(attr);
		break;
	case IFLA_XDP_SKB_PROG_ID:
		li->xdp_skb_id = mnl_attr_get_u32(attr);
		break;
	case IFLA_XDP_HW_PROG_ID:
		li->xdp_hw_id = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

static int link_attr_cb(const struct nlattr *attr, void *data)
{
	struct link_info *li = data;

	switch (mnl_attr_get_type(attr)) {
	case IFLA_XDP:
		mnl_attr_parse_nested(attr, xdp_attr_cb, li);
		break;
	case IFLA_LINK:
		li->peer_ifindex = (int32_t)mnl_attr_get_u32(attr);
		break;
	case IFLA_LINK_NETNSID:
		li->peer_nsid = (int32_t)mnl_attr_get_u32(attr);
		break;
	case IFLA_LINKINFO:
		mnl_attr_parse_nested(attr, linkinfo_kind_cb, li);
		break;
	case IFLA_MASTER:
		li->master = mnl_attr_get_u32(attr);
		break;
	case IFLA_IFALIAS:
		snprintf(li->alias, sizeof(li->alias), "%s", mnl_attr_get_str(attr));
		break;
	case IFLA_ADDRESS:
		if (mnl_attr_get_payload_len(attr) == sizeof(li->mac))
			memcpy(li->mac, mnl_attr_get_payload(attr), sizeof(li->mac));
		break;
	}
	return MNL_CB_OK;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct link_info *li = data;

	li->flags = ifm->ifi_flags;
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), link_attr_cb, data);
}

int link_get_info(uint32_t ifindex, struct link_info *li)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;

	memset(li, 0, sizeof(*li));
	li->peer_nsid = -1;
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = (int)ifindex;
	return nl_request(nlh, link_cb, li);
}

/* One RTM_GETLINK of the interface, not libbpf's bpf_xdp_query: that one
 * dumps every link of the namespace to find one, and `xdpbr link show`
 * of a bridge of 1024 veth ports (2,048 links) took 10 s. */
int xdp_query(uint32_t ifindex, uint32_t *prog_id, uint32_t *mode)
{
	struct link_info li;
	int err = link_get_info(ifindex, &li);

	*prog_id = 0;
	*mode = XDPBR_MODE_NONE;
	if (err)
		return err;
	if (li.xdp_drv_id) {
		*prog_id = li.xdp_drv_id;
		*mode = XDPBR_MODE_NATIVE;
	} else if (li.xdp_skb_id) {
		*prog_id = li.xdp_skb_id;
		*mode = XDPBR_MODE_GENERIC;
	} else if (li.xdp_hw_id) {
		*prog_id = li.xdp_hw_id;	/* offloaded: not ours to touch */
		*mode = XDPBR_MODE_NONE;
	}
	return 0;
}

struct nlmsghdr *link_msg_family(char *buf, uint16_t type, uint16_t flags, uint8_t family,
				 int ifindex)
{
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;

	memset(buf, 0, MNL_SOCKET_BUFFER_SIZE);
	nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = family;
	ifm->ifi_index = ifindex;
	return nlh;
}

static struct nlmsghdr *link_msg(char *buf, uint16_t type, uint16_t flags, int ifindex)
{
	return link_msg_family(buf, type, flags, AF_UNSPEC, ifindex);
}

int link_add_veth(const char *name, const uint8_t mac[6], const char *peer)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	struct nlattr *info, *data, *pinfo;
	struct ifinfomsg *pifm;

	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	if (mac)
		mnl_attr_put(nlh, IFLA_ADDRESS, 6, mac);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	/* VETH_INFO_PEER holds a whole ifinfomsg and its attributes. */
	pinfo = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	pifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*pifm));
	pifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, peer);
	mnl_attr_nest_end(nlh, pinfo);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return nl_request(nlh, NULL, NULL);
}

int link_set(uint32_t ifindex, const struct link_set *ls)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_SETLINK, 0, (int)ifindex);
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);

	if (ls->up) {
		ifm->ifi_flags |= IFF_UP;
		ifm->ifi_change |= IFF_UP;
	}
	if (ls->promisc) {
		ifm->ifi_flags |= ls->promisc > 0 ? IFF_PROMISC : 0;
		ifm->ifi_change |= IFF_PROMISC;
	}
	if (ls->alias)
		mnl_attr_put_strz(nlh, IFLA_IFALIAS, ls->alias);
	if (ls->master || ls->nomaster)
		mnl_attr_put_u32(nlh, IFLA_MASTER, ls->master);
	if (ls->mac)
		mnl_attr_put(nlh, IFLA_ADDRESS, 6, ls->mac);
	if (ls->no_ipv6_addresses) {
		/* addrgenmode none: no link-local address, so the interface
		 * never speaks IPv6 (no DAD, no MLD) on its own. */
		struct nlattr *af = mnl_attr_nest_start(nlh, IFLA_AF_SPEC);
		struct nlattr *in6 = mnl_attr_nest_start(nlh, AF_INET6);

		mnl_attr_put_u8(nlh, IFLA_INET6_ADDR_GEN_MODE, IN6_ADDR_GEN_MODE_NONE);
		mnl_attr_nest_end(nlh, in6);
		mnl_attr_nest_end(nlh, af);
	}
	return nl_request(nlh, NULL, NULL);
}

int link_add_bridge(const char *name)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	struct nlattr *info;

	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "bridge");
	mnl_attr_nest_end(nlh, info);
	return nl_request(nlh, NULL, NULL);
}

int link_add_vxlan(const char *name, const struct vxlan_info *v)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	struct nlattr *info, *data;

	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "vxlan");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u32(nlh, IFLA_VXLAN_ID, v->vni);
	mnl_attr_put(nlh, IFLA_VXLAN_LOCAL, sizeof(v->local), &v->local);
	mnl_attr_put_u16(nlh, IFLA_VXLAN_PORT, htons(v->dstport));
	mnl_attr_put_u8(nlh, IFLA_VXLAN_LEARNING, v->learning);
	if (v->link)
		mnl_attr_put_u32(nlh, IFLA_VXLAN_LINK, v->link);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return nl_request(nlh, NULL, NULL);
}

/* <linux/if_bridge.h>, which clashes with <netinet/in.h> */
#define BR_STATE_FORWARDING 3

struct brport_attr {
	uint16_t type;			/* IFLA_BRPORT_*, a u8 */
	uint8_t value;
};

/* Sets n bridge attributes of a port (IFLA_INFO_SLAVE_DATA). */
static int brport_set(uint32_t ifindex, const struct brport_attr *a, size_t n)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, 0, (int)ifindex);
	struct nlattr *info, *data;

	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_SLAVE_KIND, "bridge");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_SLAVE_DATA);
	for (size_t i = 0; i < n; i++)
		if (a[i].type == IFLA_BRPORT_FLUSH)	/* NLA_FLAG: no payload */
			mnl_attr_put(nlh, a[i].type, 0, NULL);
		else
			mnl_attr_put_u8(nlh, a[i].type, a[i].value);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return nl_request(nlh, NULL, NULL);
}

int link_brport_learning(uint32_t ifindex, bool on)
{
	const struct brport_attr a = { IFLA_BRPORT_LEARNING, on };

	return brport_set(ifindex, &a, 1);
}

int link_brport_mute(uint32_t ifindex)
{
	static const struct brport_attr a[] = {
		{ IFLA_BRPORT_STATE, BRPORT_STATE_LEARNING },
		/* What it learned before: the host's frames would go there. */
		{ IFLA_BRPORT_FLUSH, 0 },
	};

	return brport_set(ifindex, a, sizeof(a) / sizeof(a[0]));
}

int link_brport_unmute(uint32_t ifindex)
{
	static const struct brport_attr a[] = {
		{ IFLA_BRPORT_STATE, BR_STATE_FORWARDING },
	};

	return brport_set(ifindex, a, sizeof(a) / sizeof(a[0]));
}

int link_del(uint32_t ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	return nl_request(link_msg(buf, RTM_DELLINK, 0, (int)ifindex), NULL, NULL);
}

static int nsid_attr_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == NETNSA_NSID)
		*(int32_t *)data = (int32_t)mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static int nsid_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct rtgenmsg), nsid_attr_cb, data);
}

/* The nsid the current namespace uses for the namespace behind fd, or -1. */
static int32_t nsid_of_fd(int fd)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtgenmsg *g;
	int32_t nsid = -1;

	nlh->nlmsg_type = RTM_GETNSID;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->rtgen_family = AF_UNSPEC;
	mnl_attr_put_u32(nlh, NETNSA_FD, (uint32_t)fd);
	if (nl_request(nlh, nsid_cb, &nsid))
		return -1;
	return nsid;
}

/* Opens the named namespace (in /run/netns) whose nsid is nsid. */
static int netns_open_by_nsid(int32_t nsid, char *name, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(NETNS_RUN_DIR);
	int fd = -1;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[512];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (nsid_of_fd(fd) == nsid) {
			snprintf(name, len, "%s", de->d_name);
			break;
		}
		close(fd);
		fd = -1;
	}
	closedir(d);
	return fd;
}

int port_kind(uint32_t ifindex, char *kind, size_t len)
{
	struct link_info li;
	int err = link_get_info(ifindex, &li);

	if (err)
		return err;
	if (!li.kind[0])
		snprintf(kind, len, "physical");
	else if (!strcmp(li.kind, "tun"))	/* tun and tap share a driver */
		snprintf(kind, len, "tap");
	else
		snprintf(kind, len, "%s", li.kind);
	return 0;
}

/* SIOCETHTOOL with an ethtool command structure (any, its cmd first) on
 * interface name, in the current namespace. 0 or -errno. */
static int ethtool_ioctl(const char *name, void *cmd)
{
	struct ifreq ifr = {};
	int fd, ret;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_data = cmd;
	ret = ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
	close(fd);
	return ret;
}

/* An ethtool flag (ETHTOOL_G*) of interface name: 1 on, 0 off, -errno. */
static int ethtool_flag(const char *name, __u32 cmd)
{
	struct ethtool_value ev = { .cmd = cmd };
	int ret = ethtool_ioctl(name, &ev);

	return ret ? ret : ev.data != 0;
}

int ethtool_set_flag(const char *name, uint32_t cmd, bool on)
{
	struct ethtool_value ev = { .cmd = cmd, .data = on };

	return ethtool_ioctl(name, &ev);
}

/* In the current namespace: 1 if ifindex can receive redirected frames
 * (GRO on or an XDP program attached), 0 if not, -errno on error. */
static int peer_receives(uint32_t ifindex, char *name)
{
	uint32_t prog_id, mode;

	if (!if_indextoname(ifindex, name))
		return -errno;
	if (!xdp_query(ifindex, &prog_id, &mode) && prog_id)
		return 1;
	return ethtool_flag(name, ETHTOOL_GGRO);
}

/* In the current namespace: 1 if ifindex has transmit checksum offload on.
 * Its TCP/UDP frames then carry a checksum the stack left for the device to
 * finish; a veth would finish it on delivery, but an XDP redirect passes
 * the frame on as it is and the receiver drops it as corrupt. */
static int peer_tx_csum(uint32_t ifindex)
{
	char name[IF_NAMESIZE];

	if (!if_indextoname(ifindex, name))
		return -errno;
	return ethtool_flag(name, ETHTOOL_GTXCSUM);
}

int veth_peer_check(uint32_t ifindex, const char *ifname)
{
	char ns[256] = "", peer[IF_NAMESIZE] = "?";
	struct link_info li;
	int self = -1, nsfd = -1, ret, csum;

	ret = link_get_info(ifindex, &li);
	if (ret || strcmp(li.kind, "veth") || li.peer_ifindex <= 0)
		return ret;

	if (li.peer_nsid >= 0) {
		nsfd = netns_open_by_nsid(li.peer_nsid, ns, sizeof(ns));
		if (nsfd < 0) {
			log_info("port %s: can't check its veth peer (its network namespace "
				 "is not named in %s); make sure the peer has GRO on or an "
				 "XDP program", ifname, NETNS_RUN_DIR);
			return 0;
		}
		self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (self < 0 || setns(nsfd, CLONE_NEWNET)) {
			ret = -errno;
			goto out;
		}
	}
	ret = peer_receives((uint32_t)li.peer_ifindex, peer);
	csum = peer_tx_csum((uint32_t)li.peer_ifindex);
	if (self >= 0 && setns(self, CLONE_NEWNET))
		log_warn("Couldn't return to the daemon's network namespace: %s",
			 strerror(errno));
	if (ret == 0) {
		log_warn("port %s: its veth peer %s%s%s has neither GRO nor an XDP program, "
			 "so frames the bridge redirects into %s are dropped silently; fix: "
			 "%s%s%sethtool -K %s gro on", ifname, peer, ns[0] ? " in netns " : "",
			 ns, ifname, ns[0] ? "ip netns exec " : "", ns, ns[0] ? " " : "", peer);
		ret = 1;
	} else if (ret > 0) {
		ret = 0;
	}
	if (csum == 1)
		log_warn("port %s: its veth peer %s%s%s has transmit checksum offload on: TCP "
			 "and UDP it sends through the bridge arrive with unfinished checksums "
			 "and are dropped by the receiver (ping works); fix: %s%s%sethtool -K %s "
			 "tx off", ifname, peer, ns[0] ? " in netns " : "", ns,
			 ns[0] ? "ip netns exec " : "", ns, ns[0] ? " " : "", peer);
out:
	if (self >= 0)
		close(self);
	if (nsfd >= 0)
		close(nsfd);
	return ret;
}

int ethtool_rxvlan_off(const char *name)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_GFLAGS };
	int err = ethtool_ioctl(name, &ev);

	if (err)
		return err;
	if (!(ev.data & ETH_FLAG_RXVLAN))
		return 0;
	ev.cmd = ETHTOOL_SFLAGS;
	ev.data &= ~(__u32)ETH_FLAG_RXVLAN;
	err = ethtool_ioctl(name, &ev);
	return err ? err : 1;
}

int virtio_xdp_check(const char *ifname)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	int cpus = libbpf_num_possible_cpus();
	uint32_t ncpu, want, fewer;
	int err = ethtool_ioctl(ifname, &di);

	if (err || strcmp(di.driver, "virtio_net"))
		return err;
	err = ethtool_ioctl(ifname, &ch);
	if (err)
		return err;
	if (cpus <= 0)
		return cpus;
	ncpu = (uint32_t)cpus;
	want = ch.combined_count + ncpu;
	if (want <= ch.max_combined)
		return VIRTIO_XDP_OK;
	fewer = ch.max_combined > ncpu ? ch.max_combined - ncpu : 0;
	if (ch.combined_count > ncpu) {
		log_warn("port %s: virtio-net uses %u queue pairs of %u, more than the %u CPUs "
			 "but too few for native XDP's own queues (one per CPU): on Linux 6.1 "
			 "(Debian 12) a frame redirected into such a device crashes the kernel "
			 "(NULL pointer in virtqueue_get_buf, seen on 6.1.192), so no native XDP "
			 "here. Fix: ethtool -L %s combined %u (or fewer), or give the VM %u "
			 "queue pairs (QEMU: -netdev tap,...,queues=%u -device "
			 "virtio-net-pci,mq=on,vectors=%u)", ifname, ch.combined_count,
			 ch.max_combined, ncpu, ifname, fewer ? fewer : ncpu, want, want,
			 2 * want + 2);
		return VIRTIO_XDP_UNSAFE;
	}
	log_warn("port %s: virtio-net uses %u queue pairs of %u; native XDP wants one more "
		 "per CPU (%u) to send the frames the bridge redirects into it, and without "
		 "them the driver sends those through its shared queues under a lock "
		 "(slower). Fix: give the VM %u queue pairs (QEMU: -netdev tap,...,queues=%u "
		 "-device virtio-net-pci,mq=on,vectors=%u)", ifname, ch.combined_count,
		 ch.max_combined, ncpu, want, want, 2 * want + 2);
	return VIRTIO_XDP_LOCKED;
}

struct mnl_socket *nl_subscribe(unsigned int groups)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (!nl)
		return NULL;
	if (mnl_socket_bind(nl, groups, MNL_SOCKET_AUTOPID) < 0) {
		int err = errno;

		mnl_socket_close(nl);
		errno = err;
		return NULL;
	}
	return nl;
}

struct mnl_socket *nl_subscribe_burst(unsigned int groups)
{
	struct mnl_socket *nl = nl_subscribe(groups);
	int size = NL_BURST_RCVBUF;

	/* As root past net.core.rmem_max; else what rmem_max allows. */
	if (nl && setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &size,
			     sizeof(size)))
		setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	return nl;
}

int nl_read_some(struct mnl_socket *nl, nl_reply_cb cb, void *data, unsigned int reads)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int done = 0;
	ssize_t n;

	while (done < reads) {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		done++;
		/* Multicast notifications: no sequence or port to match. */
		if (mnl_cb_run(buf, (size_t)n, 0, 0, cb, data) < 0 && errno != EAGAIN)
			return -errno;
	}
	return 1;
}

int nl_read_all(struct mnl_socket *nl, nl_reply_cb cb, void *data)
{
	int ret = nl_read_some(nl, cb, data, UINT_MAX);

	return ret < 0 ? ret : 0;
}

struct mnl_socket *linkwatch_open(void)
{
	return nl_subscribe(RTMGRP_LINK);
}

struct watch_ctx {
	link_event_cb cb;
	void *arg;
};

static int linkwatch_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct watch_ctx *w = data;
	/* A kernel bridge says RTM_DELLINK (AF_BRIDGE) of a port that left
	 * it: the interface is still there. */
	struct link_event ev = {
		.ifindex = (uint32_t)ifm->ifi_index,
		.flags = ifm->ifi_flags,
		.deleted = nlh->nlmsg_type == RTM_DELLINK && ifm->ifi_family != AF_BRIDGE,
	};

	if (nlh->nlmsg_type == RTM_NEWLINK || nlh->nlmsg_type == RTM_DELLINK)
		w->cb(&ev, w->arg);
	return MNL_CB_OK;
}

int linkwatch_read(struct mnl_socket *nl, link_event_cb cb, void *arg)
{
	struct watch_ctx w = { cb, arg };

	return nl_read_all(nl, linkwatch_msg_cb, &w);
}

void linkwatch_close(struct mnl_socket *nl)
{
	if (nl)
		mnl_socket_close(nl);
}

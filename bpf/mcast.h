/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mcast.h - IGMP/MLD snooping in the datapath: which flooded copies of a
 * multicast frame go, by the kernel bridge's MDB that user space mirrors
 * into the xdpbr_mdb* maps (daemon/mdbmirror.c). The kernel snoops: the
 * datapath hands it every IGMP/MLD frame on its ingress port (and floods
 * the frame itself), and prunes data copies by what the kernel learned.
 *
 * A frame is summed up once at ingress as a 32-bit word (mcast_classify),
 * which the per-copy functions take as a scalar:
 *   MC_CONTROL  IGMP or MLD: flooded, and handed to the kernel bridge;
 *   MC_FILTER   pruned: only to member ports (the group id in the low
 *               bits, 0: no group, an unregistered one), router ports of
 *               the family (MC_IP6 set: IPv6's, else IPv4's) and the
 *               host's port (mcast_copy_ok);
 *   0           flooded per mcast_flood, as without snooping.
 * The rules are the kernel's br_handle_frame_finish and br_multicast_rcv
 * (6.x): with mcast_snooping on and a querier for the family, IPv4 data
 * outside 224.0.0.0/24 and IPv6 data to other than ff02::1 go only to the
 * group's ports and the router ports; a registered L2 (MAC) group prunes
 * even without a querier; everything else floods. Under IGMPv3/MLDv2 the
 * group is the frame's (S,G) entry where there is one, else its (*,G)
 * one; the mirror writes as member ports only those the kernel's
 * br_multicast_flood delivers to (no INCLUDE-mode port of a (*,G) entry,
 * no blocked port of an (S,G) one).
 */
#ifndef XDPBR_BPF_MCAST_H
#define XDPBR_BPF_MCAST_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xdpbr.h"
#include "maps.h"

#define MC_FILTER	(1U << 31)
#define MC_CONTROL	(1U << 30)
#define MC_IP6		(1U << 29)	/* IPv6: its router ports */
#define MC_GID_MASK	(MC_IP6 - 1)
#define MC_VID_MASK	0x0fff		/* a TCI's VLAN (vlan.h's VLAN_VID_MASK) */

#define MC_IPPROTO_IGMP		2
#define MC_IPPROTO_HOPOPTS	0
#define MC_IPPROTO_ICMPV6	58

static __always_inline const struct xdpbr_mcast *mcast_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&xdpbr_mcast, &zero);
}

/* The word of a data frame to group key k with the family's querier bit
 * q (0: prunes without a querier, an L2 group), under the snooping flags
 * f (the bridge's or the frame's VLAN's). */
static __always_inline __u32 mcast_data(__u32 f, const struct xdpbr_mdb_key *k, __u32 q)
{
	__u32 *gid = bpf_map_lookup_elem(&xdpbr_mdb, k);

	/* An L2 group prunes without a querier (the kernel's
	 * br_multicast_querier_exists for other protocols: the group's entry). */
	if (!q)
		return gid && f & XDPBR_MCAST_SNOOPING ? MC_FILTER | (*gid & MC_GID_MASK) : 0;
	if (!(f & q))
		return 0;
	return MC_FILTER | (gid ? *gid & MC_GID_MASK : 0);
}

/* The word of a data frame to group k from source src (len bytes) while
 * the family runs IGMPv3/MLDv2: its (S,G) entry's, looked up before the
 * group's own as the kernel's br_mdb_get does; NO_SG without one. */
#define MC_NO_SG	MC_CONTROL	/* never a data frame's word */

static __always_inline __u32 mcast_sg(__u32 f, const struct xdpbr_mdb_key *k,
				      const __u8 *src, __u32 len, __u32 q)
{
	struct xdpbr_mdb_src_key sk = { .grp = *k };
	__u32 *gid;

	if (len == 4)
		__builtin_memcpy(sk.src, src, 4);
	else
		__builtin_memcpy(sk.src, src, 16);
	gid = bpf_map_lookup_elem(&xdpbr_mdb_src, &sk);
	if (!gid)
		return MC_NO_SG;
	return f & q ? MC_FILTER | (*gid & MC_GID_MASK) : 0;
}

/* Whether ICMPv6 type t is MLD (query, v1 report, done, v2 report). */
static __always_inline int mld_type(__u8 t)
{
	return (t >= 130 && t <= 132) || t == 143;
}

/* IPv6 at l3: the word. MLD comes after a hop-by-hop header (router
 * alert); the kernel's ipv6_mc_check_mld looks no further either. */
static __always_inline __u32 mcast_ip6(__u32 f, void *l3, void *end, struct xdpbr_mdb_key *k)
{
	__u8 *ip6 = l3, *h, nh;

	if ((void *)(ip6 + 40) > end || ip6[24] != 0xff)
		return 0;
	nh = ip6[6];
	h = ip6 + 40;
	if (nh == MC_IPPROTO_HOPOPTS) {
		if ((void *)(h + 2) > end)
			return 0;
		nh = h[0];
		h += ((__u32)h[1] + 1) * 8;
	}
	if (nh == MC_IPPROTO_ICMPV6 && (void *)(h + 1) <= end && mld_type(h[0]))
		return MC_CONTROL;
	/* ff02::1, all nodes: flooded */
	if (ip6[25] == 0x02 && ip6[39] == 1 && !(ip6[26] | ip6[27] | ip6[28] | ip6[29] |
	    ip6[30] | ip6[31] | ip6[32] | ip6[33] | ip6[34] | ip6[35] | ip6[36] | ip6[37] |
	    ip6[38]))
		return 0;
	k->proto = XDPBR_MDB_IP6;
	__builtin_memcpy(k->addr, ip6 + 24, 16);
	if (f & XDPBR_MCAST_SRC6) {
		__u32 w = mcast_sg(f, k, ip6 + 8, 16, XDPBR_MCAST_QUERIER6);

		if (w != MC_NO_SG)
			return w | MC_IP6;
	}
	return mcast_data(f, k, XDPBR_MCAST_QUERIER6) | MC_IP6;
}

/* IPv4 at l3: the word. */
static __always_inline __u32 mcast_ip4(__u32 f, void *l3, void *end, struct xdpbr_mdb_key *k)
{
	__u8 *ip = l3;

	if ((void *)(ip + 20) > end || (ip[16] & 0xf0) != 0xe0)
		return 0;
	if (ip[9] == MC_IPPROTO_IGMP)
		return MC_CONTROL;
	/* 224.0.0.0/24, local network control: flooded */
	if (ip[16] == 224 && !ip[17] && !ip[18])
		return 0;
	k->proto = XDPBR_MDB_IP4;
	__builtin_memcpy(k->addr, ip + 16, 4);
	if (f & XDPBR_MCAST_SRC4) {
		__u32 w = mcast_sg(f, k, ip + 12, 4, XDPBR_MCAST_QUERIER4);

		if (w != MC_NO_SG)
			return w;
	}
	return mcast_data(f, k, XDPBR_MCAST_QUERIER4);
}

/* The snooping flags of frames in VLAN vid: the bridge's, or with
 * contexts per VLAN the VLAN's own (none for a VLAN without one: it
 * floods, as the kernel's br_multicast_rcv does while the VLAN's
 * mcast_snooping is off). */
static __always_inline __u32 mcast_flags_of(const struct xdpbr_mcast *m, __u32 vid)
{
	__u32 *f;

	if (!(m->flags & XDPBR_MCAST_VLAN_CTX))
		return m->flags;
	vid &= MC_VID_MASK;
	f = bpf_map_lookup_elem(&xdpbr_mcast_vlan, &vid);
	return f ? *f : 0;
}

/*
 * The word of the multicast frame at data: its Ethernet header (a VLAN
 * tag in the frame is stepped over), and the network header after it.
 * With the kernel bridge's VLAN filtering on (XDPBR_MCAST_VLAN) its MDB
 * is per VLAN, as br_mdb_get looks it up: the group's VLAN is the frame's
 * tag's, or vid (the VLAN the ingress classified it in: the port's PVID
 * for an untagged frame, the skb's tag on the skb path); else VLAN 0.
 * That VLAN's flags decide, with contexts per VLAN (mcast_flags_of).
 */
static __always_inline __u32 mcast_classify(void *data, void *end, __u32 vid)
{
	const struct xdpbr_mcast *m = mcast_get();
	struct xdpbr_mdb_key k = {};
	struct ethhdr *eth = data;
	void *l3 = eth + 1;
	__u16 proto, tci = 0;
	__u32 f;

	if (!m || !(m->flags & XDPBR_MCAST_SNOOPING) || (void *)(eth + 1) > end)
		return 0;
	proto = eth->h_proto;
	if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)) {
		if (l3 + 4 > end)
			return 0;
		if (proto == bpf_htons(ETH_P_8021Q))
			tci = bpf_ntohs(*(__u16 *)l3) & MC_VID_MASK;
		proto = *(__u16 *)(l3 + 2);
		l3 += 4;
	}
	if (m->flags & XDPBR_MCAST_VLAN)
		k.vid = tci ? tci : (__u16)vid;
	/* IGMP/MLD go to the kernel whatever the VLAN's flags say (it knows
	 * whether the VLAN snoops, and a VLAN newer than the daemon's last
	 * read loses no join); data floods while they lack SNOOPING. */
	f = mcast_flags_of(m, k.vid);
	if (proto == bpf_htons(ETH_P_IP))
		return mcast_ip4(f, l3, end, &k);
	if (proto == bpf_htons(ETH_P_IPV6))
		return mcast_ip6(f, l3, end, &k);
	k.proto = XDPBR_MDB_L2;
	__builtin_memcpy(k.addr, eth->h_dest, ETH_ALEN);
	return mcast_data(f, &k, 0);
}

/* A pruned frame's ports: its group's xdpbr_mdb_set entry, a mask of
 * slots below XDPBR_FLOOD_FAST_SLOTS (the member ports, the family's
 * router ports, the host's port), or NULL: then every port is asked
 * (mcast_copy_ok), as for a group user space has no set for. */
_Static_assert(MC_IP6 == XDPBR_MDB_SET_IP6, "the set's key is the word's family and group");

static __always_inline const __u64 *mcast_set(__u32 mc)
{
	__u32 k = mc & (MC_IP6 | MC_GID_MASK);

	return bpf_map_lookup_elem(&xdpbr_mdb_set, &k);
}

/* Whether some port has mcast_flood off: a member or router port gets a
 * pruned frame's copy all the same (the kernel's br_multicast_flood asks
 * no flag), which a devmap flood set of the class can't give it. */
static __always_inline int mcast_some_out(void)
{
	const struct xdpbr_mcast *m = mcast_get();

	return m && (m->flags & XDPBR_MCAST_MC_OUT);
}

/* Whether a flooded copy of a frame with word mc, in VLAN vid, goes to
 * slot: always unless pruned; then to the group's member ports, the
 * router ports (the VLAN's, with contexts per VLAN) and the host's port
 * (whose Linux bridge device applies its own snooping to what the host
 * receives). */
static __always_inline int mcast_copy_ok(__u32 mc, __u32 slot, __u32 vid)
{
	struct xdpbr_mdb_port_key k = { .gid = mc & MC_GID_MASK, .slot = slot };
	const struct xdpbr_mcast *m;
	__u32 *router, rk;

	if (!(mc & MC_FILTER))
		return 1;
	m = mcast_get();
	if (!m || slot == m->host_slot)
		return 1;
	if (m->flags & XDPBR_MCAST_VLAN_CTX) {
		rk = XDPBR_MROUTER_VLAN_KEY(vid & MC_VID_MASK, slot);
		router = bpf_map_lookup_elem(&xdpbr_mrouter_vlan, &rk);
	} else {
		router = bpf_map_lookup_elem(&xdpbr_mrouter, &slot);
	}
	if (router && *router & (mc & MC_IP6 ? XDPBR_MROUTER_IP6 : XDPBR_MROUTER_IP4))
		return 1;
	return k.gid && bpf_map_lookup_elem(&xdpbr_mdb_port, &k);
}

#endif /* XDPBR_BPF_MCAST_H */

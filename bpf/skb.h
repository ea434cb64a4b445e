/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * skb.h - what the TC path needs of an skb: its length on the wire, the
 * frames a GSO packet stands for, its VLAN tag as an egress port sends it,
 * and whether it fits a port's MTU.
 */
#ifndef XDPBR_BPF_SKB_H
#define XDPBR_BPF_SKB_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "pipeline.h"
#include "mtu.h"

/* The skb path's frames, as the wire sees them: a hardware-accelerated
 * VLAN tag (the stack moved it out of the frame) still takes 4 bytes. */
static __always_inline __u64 wire_len(const struct __sk_buff *skb)
{
	return skb->len + (skb->vlan_present ? 4 : 0);
}

/*
 * The wire frames a GSO packet stands for. The stack fills gso_segs for
 * what it builds; a tap's (a VM's) super-frames come with gso_size only,
 * so count them from the headers: Ethernet, IPv4 or IPv6, TCP or UDP.
 */
static __always_inline __u32 gso_frames(struct __sk_buff *skb)
{
	__u32 hdr = ETH_HLEN, payload;
	__u8 ip[10], l4 = 0, doff;

	if (!skb->gso_size)
		return 1;
	if (skb->gso_segs)
		return skb->gso_segs;
	if (bpf_skb_load_bytes(skb, ETH_HLEN, ip, sizeof(ip)))
		return 1;
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		hdr += (ip[0] & 0x0f) * 4;
		l4 = ip[9];
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		hdr += 40;		/* no extension headers in GSO packets */
		l4 = ip[6];
	}
	if (l4 == IPPROTO_TCP && !bpf_skb_load_bytes(skb, hdr + 12, &doff, 1))
		hdr += (doff >> 4) * 4;
	else if (l4 == IPPROTO_UDP)
		hdr += 8;
	if (skb->len <= hdr)
		return 1;
	payload = skb->len - hdr;
	return (payload + skb->gso_size - 1) / skb->gso_size;
}

/* Makes the skb carry what the egress wants: VLAN vi tagged, or untagged.
 * The tag stays in the skb's metadata (as the stack put it there), and the
 * egress device or the stack inserts it. 0 or a negative error. */
static __always_inline int tc_set_tag(struct __sk_buff *skb, const struct vlan_info *vi,
				      int untagged)
{
	__u16 tci = vlan_out_tci(vi);

	if (untagged)
		return skb->vlan_present ? bpf_skb_vlan_pop(skb) : 0;
	if (skb->vlan_present) {
		if (skb->vlan_proto == bpf_htons(ETH_P_8021Q) && skb->vlan_tci == tci)
			return 0;
		if (bpf_skb_vlan_pop(skb))
			return -1;
	}
	return bpf_skb_vlan_push(skb, bpf_htons(ETH_P_8021Q), tci);
}

/* Whether the skb is larger than what ifindex takes: a GSO packet by the
 * segments it stands for, others by their network-layer length l3. */
static __always_inline int tc_too_big(struct __sk_buff *skb, __u32 ifindex, __u32 l3)
{
	__u32 mtu_len = 0;

	if (skb->gso_size)
		return bpf_check_mtu(skb, ifindex, &mtu_len, 0, BPF_MTU_CHK_SEGS) ==
		       BPF_MTU_CHK_RET_SEGS_TOOBIG;
	mtu_len = l3;
	return bpf_check_mtu(skb, ifindex, &mtu_len, 0, 0) == BPF_MTU_CHK_RET_FRAG_NEEDED;
}

/* Whether the skb may be too big for some port: larger than the bridge's
 * smallest MTU, or a GSO packet. 0, or the length to check. */
static __always_inline __u32 tc_mtu_len(struct __sk_buff *skb, const struct frame *f)
{
	__u32 l3 = mtu_l3_len(skb->len, skb->protocol);

	if (skb->gso_size)
		return l3 ? l3 : 1;
	return l3 > mtu_min(f->cfg) ? l3 : 0;
}

#endif /* XDPBR_BPF_SKB_H */

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * vlan.h - 802.1Q VLAN-aware bridging (only with XDPBR_CFG_VLAN_FILTERING).
 *
 * Where the tagging happens, and why: known unicast has one egress port, so
 * the ingress program tags or untags the frame for it before the redirect.
 * A flood has many, each with its own membership and tagging, so the ingress
 * program hands the flood a frame normalised to carry its VLAN's tag, and the
 * devmap egress program of each port drops the copy if the port is not in
 * that VLAN and pops the tag if the port sends it untagged. The alternative,
 * one flood devmap per VLAN, would be 4094 x 3 maps to keep in step; the
 * egress program already runs per flooded copy (tx counting), so filtering
 * there costs a bit test. With VLAN filtering off, none of this runs.
 */
#ifndef XDPBR_VLAN_H
#define XDPBR_VLAN_H

#include <linux/if_ether.h>
#include <bpf/bpf_endian.h>
#include "xdpbr_rules.h"
#include "maps.h"

#ifndef ETH_P_8021Q
#define ETH_P_8021Q	0x8100
#endif
#ifndef ETH_P_8021AD
#define ETH_P_8021AD	0x88A8
#endif
#define VLAN_VID_MASK	0x0fff

struct vlan_hdr {
	__be16 tci;
	__be16 proto;
};

/* A frame's 802.1Q tag as parsed at ingress. */
struct vlan_info {
	__u16 vid;		/* the frame's VLAN (tag, or the port's PVID) */
	__u16 tci;		/* host order; 0 when untagged */
	__u8 tagged;		/* has an 802.1Q tag (priority tag included) */
};

static __always_inline struct xdpbr_vlan_port *vlan_of(__u32 slot)
{
	return bpf_map_lookup_elem(&xdpbr_vlans, &slot);
}

enum vlan_verdict { VLAN_OK, VLAN_RUNT, VLAN_FILTERED, VLAN_8021AD };

/*
 * Ingress classification of a frame whose outer tag (if any) the caller has
 * read, from the frame (XDP) or from the skb (TC: the stack has moved it
 * there): tagged frames keep their VID, untagged and priority-tagged ones
 * get the port's PVID; the port must be a member of the VLAN. 802.1ad
 * (S-tag) frames are not bridged.
 */
static __always_inline enum vlan_verdict
vlan_classify(const struct xdpbr_port *port, __u16 tpid, __u16 tci,
	      struct vlan_info *vi)
{
	struct xdpbr_vlan_port *vl;

	vi->tagged = 0;
	vi->tci = 0;
	if (tpid == ETH_P_8021AD)
		return VLAN_8021AD;
	if (tpid == ETH_P_8021Q) {
		vi->tagged = 1;
		vi->tci = tci;
	}
	vi->vid = vi->tci & VLAN_VID_MASK;
	if (!vi->vid)
		vi->vid = port->pvid;		/* untagged or priority-tagged */
	if (!vi->vid || vi->vid > XDPBR_VLAN_MAX)
		return VLAN_FILTERED;
	vl = vlan_of(port->slot);
	if (!vl || !xdpbr_vlan_test(vl->member, vi->vid))
		return VLAN_FILTERED;
	return VLAN_OK;
}

/* The same for a frame in an XDP buffer, whose tag is in the frame. */
static __always_inline enum vlan_verdict
vlan_ingress(struct ethhdr *eth, void *data_end, const struct xdpbr_port *port,
	     struct vlan_info *vi)
{
	__u16 tpid = bpf_ntohs(eth->h_proto), tci = 0;
	struct vlan_hdr *vh;

	if (tpid == ETH_P_8021Q) {
		vh = (void *)(eth + 1);
		if ((void *)(vh + 1) > data_end)
			return VLAN_RUNT;
		tci = bpf_ntohs(vh->tci);
	}
	return vlan_classify(port, tpid, tci, vi);
}

/* Whether the egress port in slot takes VLAN vid, and untagged or not. */
enum vlan_egress { VLAN_EG_TAGGED, VLAN_EG_UNTAGGED, VLAN_EG_NOT_MEMBER };

static __always_inline enum vlan_egress vlan_egress_of(__u32 slot, __u16 vid)
{
	struct xdpbr_vlan_port *vl = vlan_of(slot);

	/* Linux 6.1's verifier knows nothing of a byte-swapped value: without
	 * the barrier clang folds the caller's VLAN_VID_MASK and the bitmap's
	 * word mask into a 64-bit swap, and 6.1 rejects the bitmap read as out
	 * of bounds ("invalid access to map value"; 6.18 accepts it). */
	barrier_var(vid);
	if (!vl || !xdpbr_vlan_test(vl->member, vid))
		return VLAN_EG_NOT_MEMBER;
	return xdpbr_vlan_test(vl->untagged, vid) ? VLAN_EG_UNTAGGED : VLAN_EG_TAGGED;
}

/* The TCI a frame of VLAN vi carries out of a tagged port: the frame's
 * priority bits with the bridge's VID (a priority tag gets its PVID). */
static __always_inline __u16 vlan_out_tci(const struct vlan_info *vi)
{
	return (vi->tci & ~VLAN_VID_MASK) | vi->vid;
}

/* Inserts an 802.1Q tag after the MACs. 0 or -1. */
static __always_inline int vlan_push(struct xdp_md *ctx, __u16 tci)
{
	void *data, *data_end;
	struct ethhdr *eth;
	struct vlan_hdr *vh;
	__u8 macs[12];

	if (bpf_xdp_adjust_head(ctx, -(int)sizeof(struct vlan_hdr)))
		return -1;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	eth = data;
	vh = data + sizeof(struct ethhdr);
	if ((void *)(vh + 1) > data_end)
		return -1;
	/* the MACs were 4 bytes further on */
	__builtin_memcpy(macs, data + sizeof(struct vlan_hdr), 12);
	__builtin_memcpy(eth, macs, 12);
	eth->h_proto = bpf_htons(ETH_P_8021Q);
	vh->tci = bpf_htons(tci);
	/* vh->proto is the original EtherType, already in place */
	return 0;
}

/* Removes the outer 802.1Q tag. 0 or -1. */
static __always_inline int vlan_pop(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct vlan_hdr *vh;
	__u8 macs[12];

	if (data + sizeof(struct ethhdr) + sizeof(struct vlan_hdr) > data_end)
		return -1;
	vh = data + sizeof(struct ethhdr);
	__builtin_memcpy(macs, data, 12);
	/* the inner EtherType stays where the tag's proto field is */
	__builtin_memcpy(data + sizeof(struct vlan_hdr), macs, 12);
	(void)vh;
	return bpf_xdp_adjust_head(ctx, (int)sizeof(struct vlan_hdr)) ? -1 : 0;
}

/* Sets the VID of the frame's outer tag (a priority tag gets its PVID). */
static __always_inline int vlan_set_vid(struct xdp_md *ctx, __u16 tci)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct vlan_hdr *vh = data + sizeof(struct ethhdr);

	if ((void *)(vh + 1) > data_end)
		return -1;
	vh->tci = bpf_htons(tci);
	return 0;
}

/*
 * Makes the frame carry exactly what the egress wants: tagged with vi's VLAN
 * (untagged = 0) or untagged (untagged = 1). 0 or -1.
 */
static __always_inline int vlan_egress_fix(struct xdp_md *ctx, const struct vlan_info *vi,
					   int untagged)
{
	__u16 tci = vlan_out_tci(vi);

	if (vi->tagged)
		return untagged ? vlan_pop(ctx) : vlan_set_vid(ctx, tci);
	return untagged ? 0 : vlan_push(ctx, tci);
}

#endif /* XDPBR_VLAN_H */

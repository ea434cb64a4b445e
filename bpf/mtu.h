/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mtu.h - jumbo frames: the length of a multi-buffer XDP frame, and the
 * egress port's MTU.
 *
 * The XDP programs are built for multi-buffer XDP (SEC("xdp.frags")): a
 * frame larger than a page arrives as a linear head plus fragments, and
 * ctx->data_end - ctx->data is only the head. Headers are parsed from the
 * head (bounds-checked against data_end, as always); lengths come from
 * bpf_xdp_get_buff_len().
 *
 * A frame larger than its egress port's MTU would be dropped by the driver
 * (and counted nowhere but tx_dropped). The datapath checks it first and
 * counts the drop as its own reason. Only frames longer than the bridge's
 * smallest port MTU (xdpbr_config.mtu_min) pay for the check, so with
 * equal MTUs on every port no frame does.
 */
#ifndef XDPBR_MTU_H
#define XDPBR_MTU_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdpbr.h"

/* Network-layer length of a frame of len bytes whose outer EtherType is
 * proto (network order): what an MTU is compared with. */
static __always_inline __u32 mtu_l3_len(__u64 len, __u16 proto)
{
	__u32 hdr = ETH_HLEN;

	if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD))
		hdr += 4;
	return len > hdr ? (__u32)(len - hdr) : 0;
}

static __always_inline __u32 mtu_min(const struct xdpbr_config *cfg)
{
	return cfg && cfg->mtu_min ? cfg->mtu_min : XDPBR_MTU_DEFAULT;
}

/* Whether l3 bytes exceed what ifindex takes; ctx is the program's context
 * (xdp_md or __sk_buff). The length is passed in, so the helper never
 * looks at a multi-buffer frame's head only. An ifindex the helper can't
 * find is not a reason to drop here (the redirect fails and is counted). */
static __always_inline int mtu_exceeded(void *ctx, const struct xdpbr_config *cfg,
					__u32 ifindex, __u32 l3)
{
	__u32 mtu_len = l3;

	if (l3 <= mtu_min(cfg))
		return 0;
	return bpf_check_mtu(ctx, ifindex, &mtu_len, 0, 0) == BPF_MTU_CHK_RET_FRAG_NEEDED;
}

/* The whole frame's length, head and fragments. */
static __always_inline __u64 xdp_frame_len(struct xdp_md *ctx)
{
	return bpf_xdp_get_buff_len(ctx);
}

/* Outer EtherType of an XDP frame (network order), 0 for a runt. */
static __always_inline __u16 xdp_proto(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > (void *)(long)ctx->data_end)
		return 0;
	return eth->h_proto;
}

#endif /* XDPBR_MTU_H */

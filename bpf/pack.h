/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pack.h - the scalars the datapath's global functions take.
 *
 * A global BPF function is verified once, whatever calls it, and takes no
 * pointer into its caller's stack: what it needs of a frame travels as
 * 64-bit scalars. Each field of such a scalar has a name, a first bit and
 * a width here, and is put and got only through pack_put/pack_get, so a
 * field that grows (the slot, with XDPBR_MAX_PORTS) moves in one place and
 * the asserts below say when two fields would overlap.
 */
#ifndef XDPBR_PACK_H
#define XDPBR_PACK_H

#include "xdpbr.h"

/* Bits of a slot: 1..XDPBR_MAX_PORTS-1 must fit. */
#define PACK_SLOT_BITS	11

#define PACK_FIELD(name, shift, width)	PACK_##name##_SHIFT = (shift), PACK_##name##_WIDTH = (width)
#define PACK_END(name)			(PACK_##name##_SHIFT + PACK_##name##_WIDTH)

/* flood_in: a frame as xdpbr_xdp_flood_out takes it, with copy_in. BLOCK:
 * anything that rules the fast flood out (VLAN filtering, STP, an isolated
 * ingress, snooping). */
enum {
	PACK_FIELD(FI_L3, 0, 32),		/* network-layer length */
	PACK_FIELD(FI_HAIRPIN, 32, 1),
	PACK_FIELD(FI_BLOCK, 33, 1),
};

/* copy_in: the ingress side of a flood's copies (xdpbr_tc_copy,
 * xdpbr_xdp_copy_mtu). */
enum {
	PACK_FIELD(CI_SLOT, 0, PACK_SLOT_BITS),	/* the ingress slot */
	PACK_FIELD(CI_CLASS, 16, 2),
	PACK_FIELD(CI_VLAN_ON, 18, 1),		/* VLAN filtering */
	PACK_FIELD(CI_TAGGED, 19, 1),		/* the frame's tag */
	PACK_FIELD(CI_STP_BLOCK, 20, 1),	/* stp_flood_prepare */
};

/* copy_vlan: the frame's VLAN (vid, and the tci it goes out with), and its
 * multicast snooping word (bpf/mcast.h). */
enum {
	PACK_FIELD(CV_VID, 0, 16),
	PACK_FIELD(CV_TCI, 16, 16),
	PACK_FIELD(CV_MC, 32, 32),
};

/* copy_lens: segments and the length to check against MTUs. */
enum {
	PACK_FIELD(CL_SEGS, 0, 32),
	PACK_FIELD(CL_MTU_L3, 32, 32),
};

_Static_assert(XDPBR_MAX_PORTS - 1 < (1 << PACK_SLOT_BITS), "a slot fits PACK_SLOT_BITS");
_Static_assert(PACK_END(FI_L3) <= PACK_FI_HAIRPIN_SHIFT &&
	       PACK_END(FI_HAIRPIN) <= PACK_FI_BLOCK_SHIFT && PACK_END(FI_BLOCK) <= 64,
	       "flood_in fields overlap");
_Static_assert(PACK_END(CI_SLOT) <= PACK_CI_CLASS_SHIFT &&
	       PACK_END(CI_CLASS) <= PACK_CI_VLAN_ON_SHIFT &&
	       PACK_END(CI_VLAN_ON) <= PACK_CI_TAGGED_SHIFT &&
	       PACK_END(CI_TAGGED) <= PACK_CI_STP_BLOCK_SHIFT && PACK_END(CI_STP_BLOCK) <= 64,
	       "copy_in fields overlap");
_Static_assert(PACK_END(CV_VID) <= PACK_CV_TCI_SHIFT && PACK_END(CV_TCI) <= PACK_CV_MC_SHIFT &&
	       PACK_END(CV_MC) <= 64,
	       "copy_vlan fields overlap");
_Static_assert(PACK_END(CL_SEGS) <= PACK_CL_MTU_L3_SHIFT && PACK_END(CL_MTU_L3) <= 64,
	       "copy_lens fields overlap");

static __always_inline __u64 pack_mask(unsigned int width)
{
	return width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

/* v into the field at shift of width bits (higher bits of v dropped). */
static __always_inline __u64 pack_put(__u64 v, unsigned int shift, unsigned int width)
{
	return (v & pack_mask(width)) << shift;
}

static __always_inline __u32 pack_get(__u64 w, unsigned int shift, unsigned int width)
{
	return (__u32)((w >> shift) & pack_mask(width));
}

/* PACK(CI_SLOT, slot), UNPACK(CI_SLOT, in) */
#define PACK(name, v)	pack_put((__u64)(v), PACK_##name##_SHIFT, PACK_##name##_WIDTH)
#define UNPACK(name, w)	pack_get((w), PACK_##name##_SHIFT, PACK_##name##_WIDTH)

#endif /* XDPBR_PACK_H */

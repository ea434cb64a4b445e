/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* linklocal.h - the per-port limit on link-local frames handed to the host
 * (include/xdpbr.h says why and how much). */
#ifndef XDPBR_LINKLOCAL_H
#define XDPBR_LINKLOCAL_H

#include "bucket.h"
#include "pipeline.h"

/* Whether a bucket of the limit, filled at rate frames a second (not
 * XDPBR_LINKLOCAL_NONE) with a second's worth at most, has a token at
 * now; taken if so. */
static __always_inline int linklocal_take(__u64 *last_ns, __u64 *tokens, __u64 rate, __u64 now)
{
	__u64 burst = rate * XDPBR_LINKLOCAL_BURST_MS / 1000;

	return bucket_take(last_ns, tokens, rate, burst ? burst : 1, now);
}

/* A link-local frame to dst on port f->slot: pass_linklocal while the
 * bucket of its class (BPDU or not) on this CPU has a token, else
 * drop_linklocal_limit. */
static __always_inline enum xdpbr_counter linklocal_admit(struct frame *f, const __u8 *dst)
{
	__u64 rate = xdpbr_linklocal_pps(config_get());
	__u32 c = mac_is_bpdu(dst) ? XDPBR_LINKLOCAL_BPDU : XDPBR_LINKLOCAL_OTHER;
	struct xdpbr_linklocal_bucket *b;

	if (rate == XDPBR_LINKLOCAL_NONE)
		return XDPBR_CNT_PASS_LINKLOCAL;
	b = bpf_map_lookup_elem(&xdpbr_linklocal_state, &f->slot);
	if (!b)
		return XDPBR_CNT_PASS_LINKLOCAL;
	if (linklocal_take(&b->last_ns[c], &b->tokens[c], rate, frame_now(f)))
		return XDPBR_CNT_PASS_LINKLOCAL;
	return XDPBR_CNT_DROP_LINKLOCAL;
}

#endif /* XDPBR_LINKLOCAL_H */

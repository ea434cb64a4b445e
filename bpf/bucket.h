/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* bucket.h - the token bucket of storm control and the link-local limit. */
#ifndef XDPBR_BUCKET_H
#define XDPBR_BUCKET_H

#include "xdpbr.h"

/*
 * Whether a bucket of rate frames a second (>= 1) holding burst frames
 * (>= 1) has a token for one more frame at now; taken if so. Tokens are
 * frames * 1e9, so a refill is a product, no division per frame. Callers
 * pass per-CPU memory: no shared write.
 */
static __always_inline int bucket_take(__u64 *last_ns, __u64 *tokens, __u64 rate,
				       __u64 burst, __u64 now)
{
	__u64 fill;

	burst *= XDPBR_NSEC_PER_SEC;
	/* Idle long enough to refill the whole burst: full. Else the
	 * product stays below the burst, so it can't overflow. */
	if (!*last_ns || now - *last_ns >= burst / rate)
		fill = burst;
	else
		fill = now > *last_ns ? (now - *last_ns) * rate : 0;
	*last_ns = now;
	*tokens += fill;
	if (*tokens > burst)
		*tokens = burst;
	if (*tokens < XDPBR_NSEC_PER_SEC)
		return 0;
	*tokens -= XDPBR_NSEC_PER_SEC;
	return 1;
}

#endif /* XDPBR_BUCKET_H */

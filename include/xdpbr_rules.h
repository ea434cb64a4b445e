/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdpbr_rules.h - the rules both sides compute, written once.
 *
 * Compiled into the datapath (bpf/) and into user space (lib/, daemon/,
 * cli/, tests), so a rule such as "an entry older than the ageing time is
 * unknown" cannot mean one thing in XDP and another in the ageing sweep.
 * Plain C on the types of xdpbr.h: no helpers, no libc.
 */
#ifndef XDPBR_RULES_H
#define XDPBR_RULES_H

#include "xdpbr.h"

#ifdef __BPF__
#define XDPBR_RULE static __attribute__((always_inline)) inline
#else
#define XDPBR_RULE static inline
#endif

/* --- VLAN bitmaps (struct xdpbr_vlan_port member[] / untagged[]) --- */

XDPBR_RULE int xdpbr_vlan_test(const __u64 *bits, __u16 vid)
{
	__u32 w = (vid >> 6) & (XDPBR_VLAN_WORDS - 1);

	return (bits[w] >> (vid & 63)) & 1;
}

XDPBR_RULE void xdpbr_vlan_set(__u64 *bits, __u16 vid, int on)
{
	__u32 w = (vid >> 6) & (XDPBR_VLAN_WORDS - 1);

	if (on)
		bits[w] |= 1ULL << (vid & 63);
	else
		bits[w] &= ~(1ULL << (vid & 63));
}

/* --- ageing --- */

#define XDPBR_DEFAULT_AGEING_NS	(XDPBR_DEFAULT_AGEING_S * XDPBR_NSEC_PER_SEC)

/* The ageing time in force: 0 in the config map means the default. */
XDPBR_RULE __u64 xdpbr_ageing_ns(const struct xdpbr_config *cfg)
{
	if (!cfg || !cfg->ageing_ns)
		return XDPBR_DEFAULT_AGEING_NS;
	return cfg->ageing_ns;
}

/* An entry older than the ageing time is unknown, whether or not the
 * daemon has swept it yet. Static entries and "never" do not age. */
XDPBR_RULE int xdpbr_fdb_stale(const struct xdpbr_fdb_val *v, __u64 now,
			       __u64 ageing_ns)
{
	if (v->flags & XDPBR_FDB_STATIC || ageing_ns == XDPBR_AGEING_NEVER)
		return 0;
	return now > v->last_seen && now - v->last_seen > ageing_ns;
}

/* --- learning limits (xdpbr_config.fdb_max_learned, xdpbr_port.max_learned) --- */

/* Whether a count of n dynamic entries has reached limit (0 = no limit). */
XDPBR_RULE int xdpbr_limit_reached(__u64 n, __u32 limit)
{
	return limit && n >= limit;
}

/* --- FDB generation (xdpbr_fdbgen): who adds what --- */

/* The datapath adds this when it moves a MAC; user space adds
 * XDPBR_FDBGEN_USER_STEP after it writes or deletes. Different steps keep
 * the two writers' changes apart when a generation is read in a dump. */
#define XDPBR_FDBGEN_DP_STEP	1ULL

#endif /* XDPBR_RULES_H */

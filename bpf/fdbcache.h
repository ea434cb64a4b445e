/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fdbcache.h - a per-CPU cache in front of the shared FDB hash.
 *
 * Why: on a known flow the two FDB hash lookups (source and destination)
 * and the clock read were most of the program's cost, and most of that is
 * the call and return of each helper, which CPU mitigations (retpolines,
 * return thunks) make dear. A hit here is inlined: one array lookup, a
 * multiply and a few compares, and no call at all.
 *
 * What: a 4-way set-associative table per CPU, keyed by the FDB key packed
 * into a __u64, holding the entry's port (its slot). Nothing is shared, so a
 * fill is a plain store to this CPU's memory. An entry is 16 bytes, a set
 * one cache line: with many sources every frame's lookup is a cache miss,
 * and the fewer bytes a MAC takes, the more of them the CPU's own caches
 * hold (32-byte entries, 2 ways, before).
 *
 * Where: one plain array, CPU after CPU (set i of CPU c at c << fdbc_bits | i),
 * page-aligned (BPF_F_MMAPABLE) so that each set is one cache line. Not a
 * per-CPU array: that one keeps a pointer per element, so a lookup first
 * reads the element's pointer from a table as large as the cache's sets and
 * then the element, two cache misses a frame when the sources are many.
 * With 100,000 source MACs perf put 64% of xdpbr_rx's samples on those two
 * loads (tools/bench.sh macs100k, perf record -a, samples mapped to source
 * lines with the program's jited line info).
 *
 * When an entry may be used, all three must hold:
 *   - the FDB generation (xdpbr_fdbgen) is the one read before the FDB
 *     lookup that filled it: every move, replacement or deletion of an
 *     existing FDB entry changes it, from the datapath or user space. The
 *     entry keeps it folded to 32 bits (fdbc_gen(): each change adds 1 to
 *     the fold), so only 2^32 changes could bring it back;
 *   - it was filled less than FDBC_JIFFIES ago (bpf_jiffies64, inlined by
 *     the verifier): at most 2.56 s at HZ=100, 1.02 s at HZ=250, 256 ms at
 *     HZ=1000 (jiffies kept to 24 bits: an entry left alone for 2^24
 *     jiffies, 4.6 hours at HZ=1000, with the generation unchanged all that
 *     time, would look fresh again for a window; unchanged, the FDB still
 *     maps the MAC there, unless it aged out with no daemon to sweep it). This
 *     bounds every way a cached entry could still be wrong (two user-space
 *     writers racing on the generation, weak memory ordering) and makes the
 *     source path go back to the FDB often enough to refresh last_seen;
 *   - it was not filled within FDBC_MIN_LIFE_NS of ageing out, so a cached
 *     destination can never outlive the FDB entry's ageing time.
 *
 * Misses (unknown MACs, new flows, churn beyond the cache's size) take the
 * uncached path: the hash lookup, learning and the clock, as before.
 *
 * The window was 64 jiffies (256 ms at HZ=250). With 100,000 active MACs a
 * MAC comes back only every 100,000 / rate seconds (over 256 ms below
 * 400,000 frames a second on a core, as on a loaded machine), so nearly
 * every frame missed; 256 jiffies cut the run time by about a third
 * (doc/performance.md "Figures behind the datapath's choices").
 * The loader sizes the cache (include/fdbc_size.h) and says how many CPUs
 * it holds; FDBC_SETS for each of FDBC_CPUS CPUs is the object's default
 * for loaders that don't (iproute2): CPUs beyond go to the FDB every time.
 */
#ifndef XDPBR_FDBCACHE_H
#define XDPBR_FDBCACHE_H

#include "xdpbr_rules.h"
#include "maps.h"

#define FDBC_WAYS	4
#define FDBC_SETS_BITS	12			/* the default */
#define FDBC_SETS	(1U << FDBC_SETS_BITS)	/* x 4 ways x 16 B = 256 KiB a CPU */
#define FDBC_CPUS	4			/* the default, for FDBC_CPUS x FDBC_SETS */
#define FDBC_JIFFIES	256
#define FDBC_MIN_LIFE_NS (3 * XDPBR_NSEC_PER_SEC)	/* > FDBC_JIFFIES at any HZ >= 100 */
#define FDBC_SLOT_MASK	0xffU			/* of jslot; slot 0: empty */

struct fdbc_ent {
	__u64 key;			/* fdbc_key(): {vlan, mac} */
	__u32 gen;			/* fdbc_gen() when filled */
	__u32 jslot;			/* jiffies when filled << 8 | the port's slot */
};

struct fdbc_set {
	struct fdbc_ent way[FDBC_WAYS];	/* way[0] the newest fill */
};

_Static_assert(sizeof(struct fdbc_ent) == 16, "XDPBR_FDBC_ENTRY_BYTES of fdbc_size.h");
_Static_assert(sizeof(struct fdbc_set) == 64, "one cache line a set");
_Static_assert(FDBC_WAYS * FDBC_SETS == XDPBR_FDB_CACHE_DEFAULT, "default size");
/* Slots above FDBC_SLOT_MASK are not cached (fdbc_fill refuses them):
 * their frames take the FDB's lookup, as a cache miss does. */
_Static_assert(FDBC_SLOT_MASK >= XDPBR_FLOOD_FAST_SLOTS, "the small bridges' slots are cached");

/* log2 of the number of sets a CPU, 1 at least; 0: no cache (every lookup
 * goes to the FDB). The loader sets it with the map's size (xdpbrd --fdb-cache, config
 * key fdb_cache); a loader that doesn't (iproute2) gets the default. */
const volatile __u32 fdbc_bits = FDBC_SETS_BITS;
/* The CPUs the map has sets for (the possible CPUs, from the loader); a CPU
 * beyond them has no cache. */
const volatile __u32 fdbc_cpus = FDBC_CPUS;

/* Not pinned, and so not named xdpbr_*: a cache, not state; it starts empty
 * with each load of the program. fdbc_cpus << fdbc_bits sets. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* page-aligned values */
	__uint(max_entries, FDBC_CPUS * FDBC_SETS);
	__type(key, __u32);
	__type(value, struct fdbc_set);
} fdbc_cache SEC(".maps");

static __always_inline __u64 fdbgen_get(void)
{
	__u32 zero = 0;
	__u64 *g = bpf_map_lookup_elem(&xdpbr_fdbgen, &zero);

	return g ? *g : 0;
}

/* The generation folded to 32 bits: a change adds 1 to one half or the
 * other (XDPBR_FDBGEN_DP_STEP, XDPBR_FDBGEN_USER_STEP), so 1 to the sum. */
static __always_inline __u32 fdbc_gen(__u64 gen)
{
	return (__u32)gen + (__u32)(gen >> 32);
}

/* The datapath's step of the generation (a MAC moved); user space's is
 * fdbgen_bump_user() in lib/. */
static __always_inline void fdbgen_bump_dp(void)
{
	__u32 zero = 0;
	__u64 *g = bpf_map_lookup_elem(&xdpbr_fdbgen, &zero);

	if (g)
		__sync_fetch_and_add(g, XDPBR_FDBGEN_DP_STEP);
}

/* {vlan, mac} packed into a __u64, read straight from the frame: three
 * 16-bit loads (the MACs of an Ethernet header are 2-byte aligned). Building
 * struct xdpbr_fdb_key byte by byte on the stack and reading it back as one
 * word stalled the store forwarding on every frame; the struct is built only
 * for the FDB, on a miss. */
static __always_inline __u64 fdbc_key(__u16 vid, const __u8 *mac)
{
	const __u16 *m = (const __u16 *)mac;

	return (__u64)vid | (__u64)m[0] << 16 | (__u64)m[1] << 32 | (__u64)m[2] << 48;
}

/* This CPU's set for key k; NULL when the cache is off. The CPU can't
 * change under a program (softirq, or preemption off), and no other CPU
 * reads or writes its sets. */
static __always_inline struct fdbc_set *fdbc_set_of(__u64 k)
{
	__u32 idx, cpu;

	if (!fdbc_bits || fdbc_bits > 31)
		return NULL;
	cpu = bpf_get_smp_processor_id();	/* inlined on x86-64 since 6.10 */
	if (cpu >= fdbc_cpus)
		return NULL;
	idx = (__u32)((k * 0x9E3779B97F4A7C15ULL) >> (64 - fdbc_bits));
	idx |= cpu << fdbc_bits;
	return bpf_map_lookup_elem(&fdbc_cache, &idx);
}

/* gen: fdbc_gen(); j: jiffies. The age is counted in 24 bits. */
static __always_inline int fdbc_usable(const struct fdbc_ent *e, __u64 k,
				       __u32 gen, __u64 j)
{
	__u32 js = e->jslot;

	return e->key == k && e->gen == gen && (js & FDBC_SLOT_MASK) &&
	       ((__u32)j << 8) - (js & ~FDBC_SLOT_MASK) < (__u32)FDBC_JIFFIES << 8;
}

/* The slot of the port a usable entry has. */
static __always_inline __u32 fdbc_slot(const struct fdbc_ent *e)
{
	return e->jslot & FDBC_SLOT_MASK;
}

/* The cached entry for k, or NULL. */
static __always_inline struct fdbc_ent *fdbc_find(struct fdbc_set *s, __u64 k,
						  __u32 gen, __u64 j)
{
	if (!s)
		return NULL;
	if (fdbc_usable(&s->way[0], k, gen, j))
		return &s->way[0];
	if (fdbc_usable(&s->way[1], k, gen, j))
		return &s->way[1];
	if (fdbc_usable(&s->way[2], k, gen, j))
		return &s->way[2];
	if (fdbc_usable(&s->way[3], k, gen, j))
		return &s->way[3];
	return NULL;
}

/* Whether way e holds an entry still usable for its own key. */
static __always_inline int fdbc_live(const struct fdbc_ent *e, __u32 gen, __u64 j)
{
	return fdbc_usable(e, e->key, gen, j);
}

/* Cache FDB entry v of key k, looked up after reading generation gen
 * (fdbc_gen()), unless it ages out within FDBC_MIN_LIFE_NS. The newest fill
 * goes to way[0] and the ways before k's move down one. When k is not
 * there, the first way that is no longer usable (empty, too old, of an
 * older generation) makes the room; when all four still are, k takes
 * way[3], the next fill's to lose, and the other three stay. So more
 * sources than the set holds, coming round in turn (an RFC 2889 test, a
 * scan, a flood), churn one way of it and hit in the other three, where
 * pushing every fill in at way[0] lost each entry before it came round
 * again, and nothing hit (100,000 sources cycling through 65,536 entries
 * a CPU: doc/performance.md). */
static __always_inline void fdbc_fill(struct fdbc_set *s, __u64 k, __u32 gen, __u64 j,
				      __u32 slot, __u16 fdb_flags,
				      __u64 last_seen, __u64 now, __u64 ageing_ns)
{
	if (!s)
		return;
	if (!(fdb_flags & XDPBR_FDB_STATIC) && ageing_ns != XDPBR_AGEING_NEVER) {
		__u64 age = now > last_seen ? now - last_seen : 0;

		if (age + FDBC_MIN_LIFE_NS >= ageing_ns)
			return;
	}
	if (!slot)
		return;
	if (slot > FDBC_SLOT_MASK) {
		/* not cached; nor is where k lived before (it moved here) */
		if (s->way[0].key == k)
			s->way[0].jslot = 0;
		if (s->way[1].key == k)
			s->way[1].jslot = 0;
		if (s->way[2].key == k)
			s->way[2].jslot = 0;
		if (s->way[3].key == k)
			s->way[3].jslot = 0;
		return;
	}
	if (s->way[0].key != k && s->way[1].key != k && s->way[2].key != k &&
	    s->way[3].key != k && fdbc_live(&s->way[0], gen, j) &&
	    fdbc_live(&s->way[1], gen, j) && fdbc_live(&s->way[2], gen, j) &&
	    fdbc_live(&s->way[3], gen, j)) {
		s->way[3].key = k;
		s->way[3].gen = gen;
		s->way[3].jslot = (__u32)j << 8 | slot;
		return;
	}
	/* k's way, or the first one not live, or the last: the room */
	if (s->way[0].key != k && fdbc_live(&s->way[0], gen, j)) {
		if (s->way[1].key != k && fdbc_live(&s->way[1], gen, j)) {
			if (s->way[2].key != k && fdbc_live(&s->way[2], gen, j))
				s->way[3] = s->way[2];
			s->way[2] = s->way[1];
		}
		s->way[1] = s->way[0];
	}
	s->way[0].key = k;
	s->way[0].gen = gen;
	s->way[0].jslot = (__u32)j << 8 | slot;
}

#endif /* XDPBR_FDBCACHE_H */

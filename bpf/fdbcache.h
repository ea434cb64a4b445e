/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fdbcache.h - a per-CPU cache in front of the shared FDB hash.
 *
 * Why: on a known flow the two FDB hash lookups (source and destination)
 * and the clock read were most of the program's cost, and most of that is
 * the call and return of each helper, which CPU mitigations (retpolines,
 * return thunks) make dear. A hit here is inlined: one per-CPU array
 * lookup, a multiply and two compares, and no call at all.
 *
 * What: a 2-way set-associative table per CPU, keyed by the FDB key packed
 * into a __u64, holding the entry's port. Nothing is shared, so a fill is a plain
 * store to this CPU's memory.
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
 *     existing FDB entry changes it, from the datapath or user space;
 *   - it was filled less than FDBC_JIFFIES ago (bpf_jiffies64, inlined by
 *     the verifier): at most 2.56 s at HZ=100, 1.02 s at HZ=250, 256 ms at
 *     HZ=1000. This
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
 * every frame missed. At 256 jiffies the BPF run time of xdpbr_rx with
 * 100,000 source MACs went from 627/652/428 to 434/402/340 ns a frame
 * (three alternating runs each, 1 core, loaded machine: tools/bench.sh
 * --smoke --duts xdpbr --scenarios unicast,macs100k --duration 1).
 * The loader sizes the cache (include/fdbc_size.h) and says how many CPUs
 * it holds; FDBC_SETS for one CPU is the object's default for loaders that
 * don't (iproute2): then the other CPUs go to the FDB every time.
 */
#ifndef XDPBR_FDBCACHE_H
#define XDPBR_FDBCACHE_H

#include "xdpbr_rules.h"
#include "maps.h"

#define FDBC_SETS_BITS	13			/* the default */
#define FDBC_SETS	(1U << FDBC_SETS_BITS)	/* x 2 ways x 32 B = 512 KiB a CPU */
#define FDBC_JIFFIES	256
#define FDBC_MIN_LIFE_NS (3 * XDPBR_NSEC_PER_SEC)	/* > FDBC_JIFFIES at any HZ >= 100 */
#define FDBC_VALID	1

struct fdbc_ent {
	__u64 key;			/* fdbc_key(): {vlan, mac} */
	__u64 gen;			/* xdpbr_fdbgen when filled */
	__u64 fill_j;			/* jiffies when filled */
	__u32 ifindex;
	__u16 slot;
	__u16 valid;
};

struct fdbc_set {
	struct fdbc_ent way[2];		/* way[0] the newest fill */
};

_Static_assert(sizeof(struct fdbc_set) == 64, "one cache line a set");
_Static_assert(2 * FDBC_SETS == XDPBR_FDB_CACHE_DEFAULT, "default size");

/* log2 of the number of sets a CPU; 0: no cache (every lookup goes to the
 * FDB). The loader sets it with the map's size (xdpbrd --fdb-cache, config
 * key fdb_cache); a loader that doesn't (iproute2) gets the default. */
const volatile __u32 fdbc_bits = FDBC_SETS_BITS;
/* The CPUs the map has sets for (the possible CPUs, from the loader); a CPU
 * beyond them has no cache. */
const volatile __u32 fdbc_cpus = 1;

/* Not pinned, and so not named xdpbr_*: a cache, not state; it starts empty
 * with each load of the program. fdbc_cpus << fdbc_bits sets. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* page-aligned values */
	__uint(max_entries, FDBC_SETS);
	__type(key, __u32);
	__type(value, struct fdbc_set);
} fdbc_cache SEC(".maps");

static __always_inline __u64 fdbgen_get(void)
{
	__u32 zero = 0;
	__u64 *g = bpf_map_lookup_elem(&xdpbr_fdbgen, &zero);

	return g ? *g : 0;
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

static __always_inline int fdbc_usable(const struct fdbc_ent *e, __u64 k,
				       __u64 gen, __u64 j)
{
	return e->valid && e->key == k && e->gen == gen && j - e->fill_j < FDBC_JIFFIES;
}

/* The cached entry for k, or NULL. */
static __always_inline struct fdbc_ent *fdbc_find(struct fdbc_set *s, __u64 k,
						  __u64 gen, __u64 j)
{
	if (!s)
		return NULL;
	if (fdbc_usable(&s->way[0], k, gen, j))
		return &s->way[0];
	if (fdbc_usable(&s->way[1], k, gen, j))
		return &s->way[1];
	return NULL;
}

/* Cache FDB entry v of key k, looked up after reading generation gen, unless
 * it ages out within FDBC_MIN_LIFE_NS. The newest fill goes to way[0]; what
 * was there moves to way[1] unless it was k itself. */
static __always_inline void fdbc_fill(struct fdbc_set *s, __u64 k, __u64 gen, __u64 j,
				      __u32 ifindex, __u16 slot, __u16 fdb_flags,
				      __u64 last_seen, __u64 now, __u64 ageing_ns)
{
	if (!s)
		return;
	if (!(fdb_flags & XDPBR_FDB_STATIC) && ageing_ns != XDPBR_AGEING_NEVER) {
		__u64 age = now > last_seen ? now - last_seen : 0;

		if (age + FDBC_MIN_LIFE_NS >= ageing_ns)
			return;
	}
	if (s->way[0].key != k)
		s->way[1] = s->way[0];
	s->way[0].key = k;
	s->way[0].gen = gen;
	s->way[0].fill_j = j;
	s->way[0].ifindex = ifindex;
	s->way[0].slot = slot;
	s->way[0].valid = FDBC_VALID;
}

#endif /* XDPBR_FDBCACHE_H */

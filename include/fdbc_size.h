/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fdbc_size.h - how big the datapath's per-CPU FDB cache (bpf/fdbcache.h)
 * is when nobody says (no xdpbrd -C, no fdb_cache key).
 *
 * The rule: one cache entry per FDB entry, the FDB size rounded up to a
 * power of two, so that a full FDB fits (4 ways a set keep the conflicts
 * low); then bounded by memory, since every possible CPU has its own copy:
 * at most XDPBR_FDBC_CPU_BUDGET bytes a CPU and XDPBR_FDBC_TOTAL_BUDGET
 * over all CPUs (each rounded down to a power of two of entries), and never
 * fewer than XDPBR_FDBC_FLOOR entries.
 *
 * Why this big: with 100,000 source MACs the 16,384 entries of the old fixed
 * cache missed on nearly every frame, and each miss costs two FDB hash
 * lookups (helper calls): over four times a hit's run time
 * (doc/performance.md "Figures behind the datapath's choices"). An entry is
 * 16 bytes; a cache larger than the CPU's last-level cache still saves the
 * helper calls, at the price of a memory access.
 *
 * Why no bigger than 2 MiB a CPU (the L2 of a server core; it was 8 MiB):
 * with 100,000 sources and an FDB of 2,097,152 the 8 MiB cache spread them
 * over 100,000 lines of 8 MiB, and xdpbr_rx took 375 ns a frame against
 * 246-251 with 2 MiB, in alternating runs; 1,000,000 sources, which no
 * cache this size holds, 784-853 against 664-762 (doc/performance.md).
 * The sources that collide in a set then are what the cache's fill
 * (bpf/fdbcache.h) keeps three of four of.
 *
 * Examples (2 CPUs): FDB 65,536 (default) -> 65,536 entries, 1 MiB a CPU;
 * FDB 131,072 -> 131,072 (2 MiB); FDB 2,097,152 -> 131,072 too (2 MiB, the
 * per-CPU cap). 64 CPUs, default FDB -> 65,536 (1 MiB a CPU, 64 MiB in all);
 * 96 CPUs -> 32,768.
 */
#ifndef XDPBR_FDBC_SIZE_H
#define XDPBR_FDBC_SIZE_H

#include <stdint.h>

#define XDPBR_FDBC_ENTRY_BYTES	16U		/* struct fdbc_ent */
#define XDPBR_FDBC_WAYS		4U		/* entries a set (FDBC_WAYS) */
#define XDPBR_FDBC_FLOOR	4096U		/* 64 KiB a CPU */
#define XDPBR_FDBC_CPU_BUDGET	(2U << 20)	/* bytes a CPU: 131,072 entries */
#define XDPBR_FDBC_TOTAL_BUDGET	(64ULL << 20)	/* bytes over all possible CPUs */

/* The largest power of two <= v (v >= 1). */
static inline uint32_t xdpbr_pow2_floor(uint64_t v)
{
	uint32_t p = 1;

	while (p <= (1U << 30) && (uint64_t)p * 2 <= v)
		p *= 2;
	return p;
}

/* The smallest power of two >= v, at most 2^31. */
static inline uint32_t xdpbr_pow2_ceil(uint64_t v)
{
	uint32_t p = 1;

	while (p < v && p < (1U << 31))
		p *= 2;
	return p;
}

/* Cache entries a CPU for an FDB of fdb_size entries on ncpus possible
 * CPUs (0 counts as 1): a power of two from XDPBR_FDBC_FLOOR up. */
static inline uint32_t xdpbr_fdb_cache_auto(uint32_t fdb_size, uint32_t ncpus)
{
	uint32_t want = xdpbr_pow2_ceil(fdb_size ? fdb_size : 1);
	uint32_t cpu_cap = XDPBR_FDBC_CPU_BUDGET / XDPBR_FDBC_ENTRY_BYTES;
	uint32_t total_cap = xdpbr_pow2_floor(XDPBR_FDBC_TOTAL_BUDGET /
					      XDPBR_FDBC_ENTRY_BYTES / (ncpus ? ncpus : 1));

	if (want > cpu_cap)
		want = cpu_cap;
	if (want > total_cap)
		want = total_cap;
	return want < XDPBR_FDBC_FLOOR ? XDPBR_FDBC_FLOOR : want;
}

#endif /* XDPBR_FDBC_SIZE_H */

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_fdbcache.c - include/fdbc_size.h: the per-CPU FDB cache's size when
 * nobody sets it, from the FDB's size and the possible CPUs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "xdpbr.h"
#include "fdbc_size.h"

static void test_pow2(void **state)
{
	assert_int_equal(xdpbr_pow2_ceil(1), 1);
	assert_int_equal(xdpbr_pow2_ceil(3), 4);
	assert_int_equal(xdpbr_pow2_ceil(65536), 65536);
	assert_int_equal(xdpbr_pow2_ceil(65537), 131072);
	assert_int_equal(xdpbr_pow2_ceil(1ULL << 40), 1U << 31);
	assert_int_equal(xdpbr_pow2_floor(1), 1);
	assert_int_equal(xdpbr_pow2_floor(5), 4);
	assert_int_equal(xdpbr_pow2_floor(1U << 20), 1U << 20);
	assert_int_equal(xdpbr_pow2_floor(1ULL << 40), 1U << 31);
}

/* One entry per FDB entry, rounded up to a power of two, while the memory
 * budgets allow. */
static void test_follows_fdb_size(void **state)
{
	assert_int_equal(xdpbr_fdb_cache_auto(65536, 2), 65536);
	assert_int_equal(xdpbr_fdb_cache_auto(100000, 2), 131072);
	assert_int_equal(xdpbr_fdb_cache_auto(131072, 2), 131072);
	assert_int_equal(xdpbr_fdb_cache_auto(20000, 4), 32768);
}

/* Never below the floor, also for a tiny FDB or a zero. */
static void test_floor(void **state)
{
	assert_int_equal(xdpbr_fdb_cache_auto(16, 2), XDPBR_FDBC_FLOOR);
	assert_int_equal(xdpbr_fdb_cache_auto(0, 0), XDPBR_FDBC_FLOOR);
	assert_int_equal(xdpbr_fdb_cache_auto(XDPBR_FDB_SIZE_MAX, 100000), XDPBR_FDBC_FLOOR);
}

/* 2 MiB a CPU at most, whatever the FDB. */
static void test_cpu_budget(void **state)
{
	uint32_t cap = XDPBR_FDBC_CPU_BUDGET / XDPBR_FDBC_ENTRY_BYTES;

	assert_int_equal(cap, 131072);
	assert_int_equal(xdpbr_fdb_cache_auto(1U << 21, 2), cap);
	assert_int_equal(xdpbr_fdb_cache_auto(XDPBR_FDB_SIZE_MAX, 1), cap);
}

/* 64 MiB over all CPUs at most: more CPUs, a smaller cache each. */
static void test_total_budget(void **state)
{
	assert_int_equal(xdpbr_fdb_cache_auto(65536, 64), 65536);	/* 64 MiB */
	assert_int_equal(xdpbr_fdb_cache_auto(65536, 128), 32768);
	assert_int_equal(xdpbr_fdb_cache_auto(65536, 96), 32768);	/* rounded down */
	assert_int_equal(xdpbr_fdb_cache_auto(1U << 21, 32), 131072);
	assert_int_equal(xdpbr_fdb_cache_auto(1U << 21, 64), 65536);
}

/* Whatever the input: a power of two the loader and config accept. */
static void test_always_valid(void **state)
{
	static const uint32_t sizes[] = { 1, 16, 1000, 65536, 99999, 1U << 22, XDPBR_FDB_SIZE_MAX };
	static const uint32_t cpus[] = { 1, 2, 3, 7, 64, 256, 4096 };
	size_t i, j;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (j = 0; j < sizeof(cpus) / sizeof(cpus[0]); j++) {
			uint32_t n = xdpbr_fdb_cache_auto(sizes[i], cpus[j]);

			assert_true(n >= XDPBR_FDBC_FLOOR && n <= XDPBR_FDB_CACHE_MAX);
			assert_int_equal(n & (n - 1), 0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pow2),
		cmocka_unit_test(test_follows_fdb_size),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_cpu_budget),
		cmocka_unit_test(test_total_budget),
		cmocka_unit_test(test_always_valid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

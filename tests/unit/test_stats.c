// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_stats.c - lib/portstats.c: per-CPU sums and the one counter table. */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "xdpbr.h"
#include "portstats.h"
#include "upgrade.h"
#include "mock_bpf.h"

#define NCPUS 4

/* A per-CPU stats array of XDPBR_MAX_PORTS slots on NCPUS CPUs, where
 * counter c of slot s on CPU cpu is value(s, cpu, c). */
static uint64_t value(uint32_t slot, int cpu, int c)
{
	return (uint64_t)slot * 1000000 + (uint64_t)(cpu + 1) * 1000 + (uint64_t)c;
}

static int stats_map(int ncpus)
{
	struct xdpbr_stats *percpu = calloc((size_t)ncpus, sizeof(*percpu));
	int fd;

	mock_set_ncpus(ncpus);
	fd = mock_map_create(MOCK_PERCPU_ARRAY, sizeof(__u32), sizeof(struct xdpbr_stats),
			     XDPBR_MAX_PORTS);
	assert_true(fd >= 0);
	assert_non_null(percpu);
	for (uint32_t s = 0; s < XDPBR_MAX_PORTS; s++) {
		for (int cpu = 0; cpu < ncpus; cpu++)
			for (int c = 0; c < XDPBR_CNT__MAX; c++)
				percpu[cpu].c[c] = value(s, cpu, c);
		assert_int_equal(mock_map_update(fd, &s, percpu), 0);
	}
	free(percpu);
	return fd;
}

static uint64_t want_sum(uint32_t slot, int ncpus, int c)
{
	uint64_t sum = 0;

	for (int cpu = 0; cpu < ncpus; cpu++)
		sum += value(slot, cpu, c);
	return sum;
}

static void test_read_sums_cpus(void **state)
{
	int fd = stats_map(NCPUS);
	struct xdpbr_stats s;

	for (uint32_t slot = 0; slot < 3; slot++) {
		memset(&s, 0xff, sizeof(s));
		assert_int_equal(stats_read(fd, slot, &s), 0);
		for (int c = 0; c < XDPBR_CNT__MAX; c++)
			assert_int_equal(s.c[c], want_sum(slot, NCPUS, c));
	}
	/* the last slot, e.g. counter 0 on 4 CPUs: 63*4e6 + (1+2+3+4)*1000 */
	assert_int_equal(stats_read(fd, XDPBR_MAX_PORTS - 1, &s), 0);
	assert_int_equal(s.c[XDPBR_CNT_RX_PACKETS],
			 (uint64_t)(XDPBR_MAX_PORTS - 1) * 4000000 + 10000);
}

static void test_read_one_and_many_cpus(void **state)
{
	struct xdpbr_stats s;
	int fd = stats_map(1);

	assert_int_equal(stats_read(fd, 5, &s), 0);
	assert_int_equal(s.c[XDPBR_CNT_TX_BYTES], value(5, 0, XDPBR_CNT_TX_BYTES));

	mock_bpf_reset();
	fd = stats_map(128);
	assert_int_equal(stats_read(fd, 5, &s), 0);
	for (int c = 0; c < XDPBR_CNT__MAX; c++)
		assert_int_equal(s.c[c], want_sum(5, 128, c));
}

static void test_read_lookup_error(void **state)
{
	int fd = stats_map(NCPUS);
	struct xdpbr_stats s;

	mock_fail(MOCK_OP_LOOKUP_ELEM, 0, EPERM);
	assert_int_equal(stats_read(fd, 1, &s), -EPERM);
	/* out of range slot: the kernel's ENOENT */
	assert_int_equal(stats_read(fd, XDPBR_MAX_PORTS, &s), -ENOENT);
	assert_int_equal(stats_read(4242, 1, &s), -EBADF);
	/* and a good read still works afterwards */
	assert_int_equal(stats_read(fd, 1, &s), 0);
	assert_int_equal(s.c[XDPBR_CNT_FORWARDED], want_sum(1, NCPUS, XDPBR_CNT_FORWARDED));
}

static void test_read_cpu_count_error(void **state)
{
	struct xdpbr_stats s;
	int fd = stats_map(NCPUS);

	mock_set_ncpus(-ENOENT);	/* libbpf could not read possible CPUs */
	assert_int_equal(stats_read(fd, 1, &s), -ENOENT);
	mock_set_ncpus(0);
	assert_int_equal(stats_read(fd, 1, &s), -EINVAL);
	assert_int_equal(mock_calls(MOCK_OP_LOOKUP_ELEM), 0);
}

static void test_outcomes(void **state)
{
	struct xdpbr_stats s;
	uint64_t want;

	/* distinct bits: any counter wrongly in or out of the sum shows */
	for (int c = 0; c < XDPBR_CNT__MAX; c++)
		s.c[c] = 1ULL << c;
	want = s.c[XDPBR_CNT_FORWARDED] + s.c[XDPBR_CNT_FLOOD_BCAST] +
	       s.c[XDPBR_CNT_FLOOD_MCAST] + s.c[XDPBR_CNT_FLOOD_UNKNOWN] +
	       s.c[XDPBR_CNT_PASS_LINKLOCAL] + s.c[XDPBR_CNT_PASS_NOT_PORT] +
	       s.c[XDPBR_CNT_DROP_RUNT] + s.c[XDPBR_CNT_DROP_BAD_SRC] +
	       s.c[XDPBR_CNT_DROP_SAME_PORT] + s.c[XDPBR_CNT_DROP_SPOOFED] +
	       s.c[XDPBR_CNT_DROP_LOCKED] +
	       s.c[XDPBR_CNT_DROP_ISOLATED] + s.c[XDPBR_CNT_DROP_VLAN] +
	       s.c[XDPBR_CNT_DROP_8021AD] + s.c[XDPBR_CNT_DROP_STORM_BCAST] +
	       s.c[XDPBR_CNT_DROP_STORM_MCAST] + s.c[XDPBR_CNT_DROP_STORM_UNKNOWN] +
	       s.c[XDPBR_CNT_DROP_LINKLOCAL] +
	       s.c[XDPBR_CNT_DROP_PORT_STATE] +
	       s.c[XDPBR_CNT_DROP_REDIRECT] + s.c[XDPBR_CNT_DROP_MTU];
	assert_int_equal(stats_outcomes(&s), want);

	memset(&s, 0, sizeof(s));
	assert_int_equal(stats_outcomes(&s), 0);
	/* rx/tx, bytes and learning events are not outcomes */
	s.c[XDPBR_CNT_RX_PACKETS] = 5;
	s.c[XDPBR_CNT_RX_BYTES] = 500;
	s.c[XDPBR_CNT_TX_PACKETS] = 3;
	s.c[XDPBR_CNT_TX_BYTES] = 300;
	s.c[XDPBR_CNT_LEARNED] = 2;
	s.c[XDPBR_CNT_MOVED] = 1;
	s.c[XDPBR_CNT_LEARN_FAILED] = 1;
	assert_int_equal(stats_outcomes(&s), 0);
	/* a balanced port: rx == outcomes */
	s.c[XDPBR_CNT_FORWARDED] = 3;
	s.c[XDPBR_CNT_FLOOD_BCAST] = 1;
	s.c[XDPBR_CNT_DROP_RUNT] = 1;
	assert_int_equal(stats_outcomes(&s), s.c[XDPBR_CNT_RX_PACKETS]);
}

static void test_counter_names_unique(void **state)
{
	for (int c = 0; c < XDPBR_CNT__MAX; c++) {
		const char *name = counter_names[c];

		if (!name)
			fail_msg("counter %d has no name", c);
		assert_true(strlen(name) > 0);
		/* JSON keys: lower case words and digits joined by '_' */
		for (const char *p = name; *p; p++)
			if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) &&
			    *p != '_')
				fail_msg("counter name '%s' is not a plain key", name);
		for (int d = 0; d < c; d++)
			if (!strcmp(counter_names[d], name))
				fail_msg("counters %d and %d are both '%s'", d, c, name);
	}
}

static void test_counter_names_known(void **state)
{
	assert_string_equal(counter_names[XDPBR_CNT_RX_PACKETS], "rx_packets");
	assert_string_equal(counter_names[XDPBR_CNT_RX_BYTES], "rx_bytes");
	assert_string_equal(counter_names[XDPBR_CNT_TX_PACKETS], "tx_packets");
	assert_string_equal(counter_names[XDPBR_CNT_TX_BYTES], "tx_bytes");
	assert_string_equal(counter_names[XDPBR_CNT_FORWARDED], "forwarded");
	assert_string_equal(counter_names[XDPBR_CNT_LEARNED], "learned");
	assert_int_equal(XDPBR_CNT_OUTCOME_FIRST, XDPBR_CNT_FORWARDED);
	assert_true(XDPBR_CNT_OUTCOME_LAST < XDPBR_CNT__MAX);
	assert_int_equal(sizeof(struct xdpbr_stats), XDPBR_CNT__MAX * sizeof(__u64));
}

/* Every counter of the older layouts lib/upgrade.c adopts still exists,
 * once each, and only those layouts are known. */
static void test_old_layouts(void **state)
{
	static const size_t sizes[] = { 29, 31 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		const char *const *names = stats_layout(sizes[k]);
		bool seen[XDPBR_CNT__MAX] = { false };

		assert_non_null(names);
		for (size_t i = 0; i < sizes[k]; i++) {
			int c = stats_index(names[i]);

			if (c < 0 || seen[c])
				fail_msg("layout %zu: counter '%s' unknown or twice", sizes[k],
					 names[i]);
			seen[c] = true;
		}
	}
	assert_null(stats_layout(XDPBR_CNT__MAX));
	assert_null(stats_layout(30));
	assert_int_equal(stats_index("drop_port_state"), XDPBR_CNT_DROP_PORT_STATE);
	assert_int_equal(stats_index("no_such_counter"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_read_sums_cpus, mock_bpf_fixture),
		cmocka_unit_test_setup(test_read_one_and_many_cpus, mock_bpf_fixture),
		cmocka_unit_test_setup(test_read_lookup_error, mock_bpf_fixture),
		cmocka_unit_test_setup(test_read_cpu_count_error, mock_bpf_fixture),
		cmocka_unit_test(test_outcomes),
		cmocka_unit_test(test_counter_names_unique),
		cmocka_unit_test(test_counter_names_known),
		cmocka_unit_test(test_old_layouts),
	};

	return cmocka_run_group_tests(tests, NULL, mock_bpf_fixture);
}

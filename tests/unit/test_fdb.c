// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_fdb.c - lib/fdbtab.c: dumping the FDB map and entry age
 * (staleness: test_rules.c). */
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "xdpbr.h"
#include "fdbtab.h"
#include "util.h"
#include "mock_bpf.h"

#define SEC XDPBR_NSEC_PER_SEC

static int fdb_map(unsigned int max)
{
	int fd = mock_map_create(MOCK_HASH, sizeof(struct xdpbr_fdb_key),
				 sizeof(struct xdpbr_fdb_val), max);

	assert_true(fd >= 0);
	return fd;
}

static void add(int fd, __u16 vlan, const char *mac, __u32 ifindex, __u16 flags,
		__u64 last_seen)
{
	struct xdpbr_fdb_key k = { .vlan = vlan };
	struct xdpbr_fdb_val v = { .ifindex = ifindex, .slot = (__u16)ifindex,
				   .flags = flags, .last_seen = last_seen };

	assert_int_equal(mac_parse(mac, k.mac), 0);
	assert_int_equal(mock_map_update(fd, &k, &v), 0);
}

/* The i-th of many distinct keys, in an order unrelated to the sort order. */
static struct xdpbr_fdb_key nth_key(unsigned int i)
{
	unsigned int h = i * 2654435761u;
	struct xdpbr_fdb_key k = { .vlan = (__u16)(h % 7) };

	k.mac[0] = 0x02;
	k.mac[1] = (__u8)(h >> 24);
	k.mac[2] = (__u8)(h >> 16);
	k.mac[3] = (__u8)(h >> 8);
	k.mac[4] = (__u8)(i >> 8);	/* (i >> 8, i) keeps the keys distinct */
	k.mac[5] = (__u8)i;
	return k;
}

static size_t heap_in_use(void)
{
	return mallinfo2().uordblks;
}

static void test_dump_empty(void **state)
{
	int fd = fdb_map(16);
	struct fdb_entry *e = (struct fdb_entry *)&e;	/* must be overwritten */
	size_t n = 99;

	assert_int_equal(fdb_dump(fd, &e, &n), 0);
	assert_null(e);
	assert_int_equal(n, 0);
	assert_int_equal(mock_calls(MOCK_OP_LOOKUP_BATCH), 1);
}

static void test_dump_sorted_by_vlan_then_mac(void **state)
{
	int fd = fdb_map(16);
	struct fdb_entry *e;
	size_t n;
	char mac[MAC_STRLEN];

	/* inserted (and so iterated) out of order */
	add(fd, 20, "02:00:00:00:00:01", 3, 0, 30 * SEC);
	add(fd, 0, "02:00:00:00:00:ff", 2, XDPBR_FDB_STATIC, 20 * SEC);
	add(fd, 0, "02:00:00:00:00:0a", 1, XDPBR_FDB_LOCAL, 10 * SEC);

	assert_int_equal(fdb_dump(fd, &e, &n), 0);
	assert_int_equal(n, 3);
	assert_non_null(e);

	assert_int_equal(e[0].key.vlan, 0);
	assert_string_equal(mac_format(e[0].key.mac, mac), "02:00:00:00:00:0a");
	assert_int_equal(e[0].val.ifindex, 1);
	assert_int_equal(e[0].val.flags, XDPBR_FDB_LOCAL);
	assert_int_equal(e[0].val.last_seen, 10 * SEC);

	assert_int_equal(e[1].key.vlan, 0);
	assert_string_equal(mac_format(e[1].key.mac, mac), "02:00:00:00:00:ff");
	assert_int_equal(e[1].val.ifindex, 2);
	assert_int_equal(e[1].val.flags, XDPBR_FDB_STATIC);

	assert_int_equal(e[2].key.vlan, 20);
	assert_string_equal(mac_format(e[2].key.mac, mac), "02:00:00:00:00:01");
	assert_int_equal(e[2].val.ifindex, 3);
	assert_int_equal(e[2].val.slot, 3);
	assert_int_equal(e[2].val.last_seen, 30 * SEC);
	free(e);
}

/* MAC order is byte order, first octet most significant. */
static void test_dump_mac_order(void **state)
{
	int fd = fdb_map(16);
	struct fdb_entry *e;
	size_t n;
	char mac[MAC_STRLEN];

	add(fd, 1, "02:00:00:00:01:00", 1, 0, 0);
	add(fd, 1, "01:ff:ff:ff:ff:ff", 1, 0, 0);
	add(fd, 1, "02:00:00:00:00:ff", 1, 0, 0);
	add(fd, 0, "ff:ff:ff:ff:ff:ff", 1, 0, 0);
	add(fd, 256, "00:00:00:00:00:00", 1, 0, 0);	/* vlan compared as a number */

	assert_int_equal(fdb_dump(fd, &e, &n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(mac_format(e[0].key.mac, mac), "ff:ff:ff:ff:ff:ff");
	assert_string_equal(mac_format(e[1].key.mac, mac), "01:ff:ff:ff:ff:ff");
	assert_string_equal(mac_format(e[2].key.mac, mac), "02:00:00:00:00:ff");
	assert_string_equal(mac_format(e[3].key.mac, mac), "02:00:00:00:01:00");
	assert_int_equal(e[4].key.vlan, 256);
	free(e);
}

/* Checks a dump of `count` entries made by nth_key(): all there, once each,
 * values matching keys, in (vlan, mac) order. */
static void check_many(int fd, unsigned int count)
{
	struct fdb_entry *e;
	size_t n;
	unsigned char *seen = calloc(count, 1);

	assert_non_null(seen);
	assert_int_equal(fdb_dump(fd, &e, &n), 0);
	assert_int_equal(n, count);
	for (size_t i = 0; i < n; i++) {
		unsigned int id = e[i].val.ifindex;
		struct xdpbr_fdb_key k;

		assert_true(id < count);
		k = nth_key(id);
		assert_memory_equal(&e[i].key, &k, sizeof(k));
		assert_false(seen[id]);
		seen[id] = 1;
		if (i > 0) {
			const struct xdpbr_fdb_key *a = &e[i - 1].key, *b = &e[i].key;

			assert_true(a->vlan < b->vlan ||
				    (a->vlan == b->vlan &&
				     memcmp(a->mac, b->mac, sizeof(a->mac)) < 0));
		}
	}
	free(seen);
	free(e);
}

static void fill_many(int fd, unsigned int count)
{
	for (unsigned int i = 0; i < count; i++) {
		struct xdpbr_fdb_key k = nth_key(i);
		struct xdpbr_fdb_val v = { .ifindex = i, .last_seen = i };

		assert_int_equal(mock_map_update(fd, &k, &v), 0);
	}
	assert_int_equal(mock_map_len(fd), count);
}

static void test_dump_several_batches(void **state)
{
	int fd = fdb_map(4096);

	fill_many(fd, 2500);
	check_many(fd, 2500);
	/* 1024 + 1024 + 452 (the last one ends with ENOENT) */
	assert_int_equal(mock_calls(MOCK_OP_LOOKUP_BATCH), 3);
}

/* A batch that fills exactly returns 0; the end is an empty ENOENT batch. */
static void test_dump_exact_batches(void **state)
{
	int fd = fdb_map(4096);

	fill_many(fd, 2048);
	check_many(fd, 2048);
	assert_int_equal(mock_calls(MOCK_OP_LOOKUP_BATCH), 3);
}

static void test_dump_one_short_of_a_batch(void **state)
{
	int fd = fdb_map(4096);

	fill_many(fd, 1023);
	check_many(fd, 1023);
	assert_int_equal(mock_calls(MOCK_OP_LOOKUP_BATCH), 1);
}

static void test_dump_error_first_batch(void **state)
{
	int fd = fdb_map(16);
	struct fdb_entry *e = (struct fdb_entry *)&e;
	size_t n = 99;

	add(fd, 0, "02:00:00:00:00:01", 1, 0, 0);
	mock_fail(MOCK_OP_LOOKUP_BATCH, 0, EPERM);
	assert_int_equal(fdb_dump(fd, &e, &n), -EPERM);
	assert_null(e);
	assert_int_equal(n, 0);
}

/* An error after entries were collected: -errno, nothing returned, nothing
 * leaked. */
static void test_dump_error_later_batch_frees(void **state)
{
	int fd = fdb_map(4096);
	struct fdb_entry *e = (struct fdb_entry *)&e;
	size_t n = 99, before;

	fill_many(fd, 2500);
	mock_fail(MOCK_OP_LOOKUP_BATCH, 2, EINTR);
	before = heap_in_use();
	assert_int_equal(fdb_dump(fd, &e, &n), -EINTR);
	assert_int_equal(heap_in_use(), before);
	assert_null(e);
	assert_int_equal(n, 0);
	assert_int_equal(mock_calls(MOCK_OP_LOOKUP_BATCH), 3);
}

static void test_dump_bad_fd(void **state)
{
	struct fdb_entry *e;
	size_t n;

	assert_int_equal(fdb_dump(12345, &e, &n), -EBADF);
	assert_null(e);
	assert_int_equal(n, 0);
}

static void test_updated_s(void **state)
{
	struct xdpbr_fdb_val v = { .last_seen = 100 * SEC };

	assert_int_equal(fdb_updated_s(&v, 100 * SEC), 0);
	assert_int_equal(fdb_updated_s(&v, 100 * SEC + SEC - 1), 0);	/* rounds down */
	assert_int_equal(fdb_updated_s(&v, 101 * SEC), 1);
	assert_int_equal(fdb_updated_s(&v, 400 * SEC + 5), 300);
	/* an entry touched after `now` was read is fresh, not 584 years old */
	assert_int_equal(fdb_updated_s(&v, 99 * SEC), 0);
	v.last_seen = 0;
	assert_int_equal(fdb_updated_s(&v, 7 * SEC), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_dump_empty, mock_bpf_fixture),
		cmocka_unit_test_setup(test_dump_sorted_by_vlan_then_mac, mock_bpf_fixture),
		cmocka_unit_test_setup(test_dump_mac_order, mock_bpf_fixture),
		cmocka_unit_test_setup(test_dump_several_batches, mock_bpf_fixture),
		cmocka_unit_test_setup(test_dump_exact_batches, mock_bpf_fixture),
		cmocka_unit_test_setup(test_dump_one_short_of_a_batch, mock_bpf_fixture),
		cmocka_unit_test_setup(test_dump_error_first_batch, mock_bpf_fixture),
		cmocka_unit_test_setup(test_dump_error_later_batch_frees, mock_bpf_fixture),
		cmocka_unit_test_setup(test_dump_bad_fd, mock_bpf_fixture),
		cmocka_unit_test(test_updated_s),
	};

	return cmocka_run_group_tests(tests, NULL, mock_bpf_fixture);
}

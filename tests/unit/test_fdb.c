// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_fdb.c - lib/fdbtab.c: dumping the FDB map and entry age
 * (staleness: test_rules.c), walking it in one pass and by pages. */
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

/* ------------------------------------------------------------ walks */

struct visits {
	int fd;
	unsigned char *seen;	/* by nth_key id (the value's ifindex) */
	unsigned int count, calls, stop_at;
	bool delete;
};

static int visit(const struct fdb_entry *e, void *arg)
{
	struct visits *v = arg;

	assert_true(e->val.ifindex < v->count);
	assert_int_equal(v->seen[e->val.ifindex]++, 0);
	if (v->delete)
		assert_int_equal(mock_map_delete(v->fd, &e->key), 0);
	if (++v->calls == v->stop_at)
		return -EINTR;
	return 0;
}

/* One pass: each entry once, fn may delete what it is given, nothing is
 * skipped for it. */
static void test_walk_deleting(void **state)
{
	struct visits v = { .fd = fdb_map(4096), .count = 2500, .delete = true };

	v.seen = calloc(v.count, 1);
	assert_non_null(v.seen);
	fill_many(v.fd, v.count);
	assert_int_equal(fdb_walk(v.fd, visit, &v), 0);
	assert_int_equal(v.calls, v.count);
	assert_int_equal(mock_map_len(v.fd), 0);
	assert_int_equal(mock_walks(v.fd), 1);
	assert_int_equal(mock_entries_read(v.fd), v.count);
	free(v.seen);
}

static void test_walk_stops(void **state)
{
	struct visits v = { .fd = fdb_map(4096), .count = 2500, .stop_at = 1500 };

	v.seen = calloc(v.count, 1);
	assert_non_null(v.seen);
	fill_many(v.fd, v.count);
	assert_int_equal(fdb_walk(v.fd, visit, &v), -EINTR);
	assert_int_equal(v.calls, 1500);
	/* a read that fails after the first batch */
	memset(v.seen, 0, v.count);
	v.calls = v.stop_at = 0;
	mock_fail(MOCK_OP_LOOKUP_BATCH, 1, EIO);
	assert_int_equal(fdb_walk(v.fd, visit, &v), -EIO);
	assert_int_equal(v.calls, FDB_BATCH);
	free(v.seen);
}

/* ------------------------------------------------------------ pages */

static bool every_tenth(const struct fdb_entry *e, const void *arg)
{
	return e->val.ifindex % 10 == 0;
}

/* Follows pages of room entries from the start; marks what they hold in
 * seen (once each) and returns how many pages it took. */
static unsigned int pages(int fd, size_t room, size_t budget, unsigned int count,
			  unsigned char *seen, void (*between)(unsigned int page))
{
	static struct fdb_entry e[FDB_BATCH];
	uint64_t cursor = 0;
	unsigned int npages = 0;

	for (;;) {
		struct fdb_page pg = { .fd = fd, .cursor = cursor, .room = room,
				       .budget = budget, .match = budget ? every_tenth : NULL };
		size_t got = 0;
		int n;

		if (!budget)
			pg.budget = SIZE_MAX;
		while (!pg.done) {
			n = fdb_page_next(&pg, e);
			assert_true(n >= 0);
			for (int i = 0; i < n; i++) {
				unsigned int id = e[i].val.ifindex;

				if (id < count && seen[id]++)
					fail_msg("entry %u twice (page %u)", id, npages);
			}
			got += (size_t)n;
		}
		assert_int_equal(fdb_page_next(&pg, e), 0);
		assert_true(got <= room);
		npages++;
		if (pg.end)
			return npages;
		assert_true(pg.cursor > cursor);
		cursor = pg.cursor;
		if (between)
			between(npages);
	}
}

/* Pages of room entries (and a budget, with the one-in-ten filter) over a
 * table of 2500: want_pages of them, every entry that matches once, the
 * table read once. */
static void check_pages(size_t room, size_t budget, unsigned int want_pages)
{
	int fd = fdb_map(4096);
	unsigned char *seen = calloc(2500, 1);

	assert_non_null(seen);
	fill_many(fd, 2500);
	assert_int_equal(pages(fd, room, budget, 2500, seen, NULL), want_pages);
	for (unsigned int i = 0; i < 2500; i++)
		assert_int_equal(seen[i], !budget || i % 10 == 0);
	assert_int_equal(mock_entries_read(fd), 2500);
	free(seen);
}

static void test_pages_whole_table(void **state)
{
	/* 7 a page: 358 pages, the last short and ending the walk */
	check_pages(7, 0, 358);
}

/* A filter that matches one in ten: a page reads no more than its budget,
 * even when that fills it only partly. */
static void test_pages_filter_budget(void **state)
{
	/* room 100 would take 1000 entries; the budget of 300 ends each page
	 * first: 9 pages (8 of 300 read, 30 kept; then 100) */
	check_pages(100, 300, 9);
}

static int churn_fd;

/* Between pages: delete 50 entries not read yet and add 50 new ones. */
static void churn(unsigned int page)
{
	for (unsigned int i = 0; i < 50; i++) {
		struct xdpbr_fdb_key k = nth_key(2000 + page * 50 + i);
		struct xdpbr_fdb_key add_k = nth_key(5000 + page * 50 + i);
		struct xdpbr_fdb_val v = { .ifindex = 5000 + page * 50 + i };

		mock_map_delete(churn_fd, &k);
		assert_int_equal(mock_map_update(churn_fd, &add_k, &v), 0);
	}
}

/* Entries learned and deleted between pages: each entry there throughout
 * comes exactly once (pages() fails on a second time). */
static void test_pages_under_change(void **state)
{
	unsigned char *seen = calloc(2000, 1);

	churn_fd = fdb_map(8192);
	assert_non_null(seen);
	fill_many(churn_fd, 3000);
	pages(churn_fd, 500, 0, 2000, seen, churn);
	for (unsigned int i = 0; i < 2000; i++)
		assert_int_equal(seen[i], 1);
	free(seen);
}

/* The next bucket doesn't fit (ENOSPC from the kernel): after entries, the
 * page ends before it; as the page's first, it is read with more room. */
static void test_page_bucket_too_big(void **state)
{
	static struct fdb_entry e[FDB_BATCH];
	int fd = fdb_map(4096);
	struct fdb_page pg = { .fd = fd, .room = 2000, .budget = SIZE_MAX };

	fill_many(fd, 2500);
	mock_fail(MOCK_OP_LOOKUP_BATCH, 1, ENOSPC);
	assert_int_equal(fdb_page_next(&pg, e), FDB_BATCH);
	assert_false(pg.done);
	assert_int_equal(fdb_page_next(&pg, e), 0);
	assert_true(pg.done && !pg.end);
	assert_int_equal(pg.cursor, FDB_BATCH);	/* the mock's cursor: a slot */

	pg = (struct fdb_page){ .fd = fd, .cursor = pg.cursor, .room = 1, .budget = SIZE_MAX };
	mock_fail(MOCK_OP_LOOKUP_BATCH, 0, ENOSPC);
	assert_int_equal(fdb_page_next(&pg, e), 0);	/* too small a read */
	assert_false(pg.done);
	assert_int_equal(fdb_page_next(&pg, e), 2);	/* the read of 2 */
	assert_true(pg.done && !pg.end);		/* room was 1: full */

	/* a bucket over FDB_BATCH: an error, not a page that never moves */
	pg = (struct fdb_page){ .fd = fd, .room = 5000, .budget = SIZE_MAX };
	mock_fail(MOCK_OP_LOOKUP_BATCH, 0, ENOSPC);
	assert_int_equal(fdb_page_next(&pg, e), -ENOSPC);

	pg = (struct fdb_page){ .fd = fd, .room = 5000, .budget = SIZE_MAX };
	mock_fail(MOCK_OP_LOOKUP_BATCH, 0, EPERM);
	assert_int_equal(fdb_page_next(&pg, e), -EPERM);
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
		cmocka_unit_test_setup(test_walk_deleting, mock_bpf_fixture),
		cmocka_unit_test_setup(test_walk_stops, mock_bpf_fixture),
		cmocka_unit_test_setup(test_pages_whole_table, mock_bpf_fixture),
		cmocka_unit_test_setup(test_pages_filter_budget, mock_bpf_fixture),
		cmocka_unit_test_setup(test_pages_under_change, mock_bpf_fixture),
		cmocka_unit_test_setup(test_page_bucket_too_big, mock_bpf_fixture),
		cmocka_unit_test(test_updated_s),
	};

	return cmocka_run_group_tests(tests, NULL, mock_bpf_fixture);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_rules.c - include/xdpbr_rules.h: the rules the datapath and user space
 * share (VLAN bitmap, ageing default, staleness, learning limits), and the
 * rules of lib/ every user-space part applies (the FDB filter). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fdbtab.h"
#include "xdpbr_rules.h"

#define SEC XDPBR_NSEC_PER_SEC

static void test_vlan_set_and_test(void **state)
{
	struct xdpbr_vlan_port v;
	static const __u16 vids[] = { 0, 1, 63, 64, 65, 127, 128, 4094, 4095 };

	memset(&v, 0, sizeof(v));
	for (size_t i = 0; i < sizeof(vids) / sizeof(vids[0]); i++) {
		assert_int_equal(xdpbr_vlan_test(v.member, vids[i]), 0);
		xdpbr_vlan_set(v.member, vids[i], 1);
		assert_int_equal(xdpbr_vlan_test(v.member, vids[i]), 1);
	}
	/* bit vid of word vid / 64, and nothing else */
	assert_true(v.member[0] == (1ULL | 2ULL | 1ULL << 63));
	assert_true(v.member[1] == (1ULL | 2ULL | 1ULL << 63));
	assert_true(v.member[2] == 1ULL);
	assert_true(v.member[63] == (1ULL << 62 | 1ULL << 63));
	for (int w = 3; w < 63; w++)
		assert_true(v.member[w] == 0);
	assert_int_equal(xdpbr_vlan_test(v.member, 2), 0);
	assert_int_equal(xdpbr_vlan_test(v.untagged, 1), 0);	/* other bitmap */

	xdpbr_vlan_set(v.member, 64, 0);
	assert_int_equal(xdpbr_vlan_test(v.member, 64), 0);
	assert_int_equal(xdpbr_vlan_test(v.member, 63), 1);	/* neighbours stay */
	assert_int_equal(xdpbr_vlan_test(v.member, 65), 1);
	xdpbr_vlan_set(v.member, 64, 0);			/* clearing twice */
	assert_true(v.member[1] == (2ULL | 1ULL << 63));
	xdpbr_vlan_set(v.member, 65, 1);			/* setting twice */
	assert_true(v.member[1] == (2ULL | 1ULL << 63));
}

/* Any 16-bit vid stays inside the 64 words: the index is masked. */
static void test_vlan_index_masked(void **state)
{
	__u64 bits[XDPBR_VLAN_WORDS + 1];

	memset(bits, 0, sizeof(bits));
	xdpbr_vlan_set(bits, 4096 + 10, 1);	/* wraps onto vid 10 */
	assert_int_equal(xdpbr_vlan_test(bits, 10), 1);
	xdpbr_vlan_set(bits, 0xffff, 1);	/* wraps onto 4095 */
	assert_int_equal(xdpbr_vlan_test(bits, 4095), 1);
	assert_true(bits[XDPBR_VLAN_WORDS] == 0);
}

/* The default PVID: followed means PVID and untagged member; 0 is none. */
static void test_vlan_default(void **state)
{
	struct xdpbr_vlan_port v;

	memset(&v, 0, sizeof(v));
	xdpbr_vlan_default(&v, 0, 1);			/* none: nothing */
	assert_true(!memcmp(&v, &(struct xdpbr_vlan_port){ 0 }, sizeof(v)));
	xdpbr_vlan_default(&v, 100, 1);
	assert_true(xdpbr_vlan_test(v.member, 100) && xdpbr_vlan_test(v.untagged, 100));
	assert_true(xdpbr_vlan_follows_default(&v, 100, 100));
	assert_false(xdpbr_vlan_follows_default(&v, 0, 100));	/* its PVID taken away */
	assert_false(xdpbr_vlan_follows_default(&v, 100, 1));	/* another default */
	xdpbr_vlan_set(v.untagged, 100, 0);			/* tagged member now */
	assert_false(xdpbr_vlan_follows_default(&v, 100, 100));
	xdpbr_vlan_set(v.member, 7, 1);
	xdpbr_vlan_default(&v, 100, 0);
	assert_false(xdpbr_vlan_test(v.member, 100) || xdpbr_vlan_test(v.untagged, 100));
	assert_true(xdpbr_vlan_test(v.member, 7));		/* the others stay */
}

/* A station's address: any unicast address but zero, whichever byte is
 * non-zero; the I/G bit of the first octet makes any address a group one. */
static void test_mac_station(void **state)
{
	static const __u8 ok[][6] = {
		{ 0x02, 0, 0, 0, 0, 0x01 }, { 0, 0, 0, 0, 0, 0x01 }, { 0x02, 0, 0, 0, 0, 0 },
		{ 0, 0, 0x5e, 0, 0, 0 }, { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	static const __u8 bad[][6] = {
		{ 0, 0, 0, 0, 0, 0 }, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		{ 0x01, 0, 0x5e, 0, 0, 0x01 }, { 0x33, 0x33, 0, 0, 0, 0x01 },
		{ 0x01, 0x80, 0xc2, 0, 0, 0 }, { 0x01, 0, 0, 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_true(xdpbr_mac_station(ok[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(xdpbr_mac_station(bad[i]));
	for (int byte = 0; byte < 6; byte++) {
		__u8 m[6] = { 0 };

		m[byte] = byte ? 0x01 : 0x02;	/* one non-zero byte, anywhere */
		assert_true(xdpbr_mac_station(m));
	}
}

/* The FDB filter of fdb show/flush/del and GET /fdb: each field narrows,
 * its "any" value (0, -1, FDB_KIND_ANY) does not. */
static void test_fdb_filter(void **state)
{
	const struct fdb_entry dyn = { .key = { .vlan = 10 }, .val = { .ifindex = 3 } };
	const struct fdb_entry st = { .key = { .vlan = 0 },
				      .val = { .ifindex = 4, .flags = XDPBR_FDB_STATIC } };
	const struct fdb_entry local = { .val = { .ifindex = 4,
					       .flags = XDPBR_FDB_STATIC | XDPBR_FDB_LOCAL } };
	const struct fdb_entry remote = { .val = { .ifindex = 5, .flags = XDPBR_FDB_REMOTE } };
	struct fdb_filter any = { .vlan = -1, .kind = FDB_KIND_ANY }, f;

	assert_true(fdb_filter_match(&dyn, &any));
	assert_true(fdb_filter_match(&st, &any));
	f = any, f.ifindex = 3;
	assert_true(fdb_filter_match(&dyn, &f));
	assert_false(fdb_filter_match(&st, &f));
	f = any, f.vlan = 10;
	assert_true(fdb_filter_match(&dyn, &f));
	assert_false(fdb_filter_match(&st, &f));
	f = any, f.vlan = 0;			/* VLAN 0 is a VLAN, not "any" */
	assert_false(fdb_filter_match(&dyn, &f));
	assert_true(fdb_filter_match(&st, &f));
	f = any, f.kind = FDB_KIND_STATIC;
	assert_false(fdb_filter_match(&dyn, &f));
	assert_true(fdb_filter_match(&st, &f));
	assert_true(fdb_filter_match(&local, &f));	/* the bridge's own: static */
	assert_false(fdb_filter_match(&remote, &f));	/* a remote entry moves: dynamic */
	f.kind = FDB_KIND_DYNAMIC;
	assert_true(fdb_filter_match(&dyn, &f));
	assert_false(fdb_filter_match(&st, &f));
	assert_false(fdb_filter_match(&local, &f));
	assert_true(fdb_filter_match(&remote, &f));
	f = (struct fdb_filter){ .ifindex = 4, .vlan = 0, .kind = FDB_KIND_STATIC };
	assert_true(fdb_filter_match(&st, &f));		/* all three at once */
	f.ifindex = 3;
	assert_false(fdb_filter_match(&st, &f));
}

static void test_ageing_default(void **state)
{
	struct xdpbr_config c = { 0 };

	assert_true(XDPBR_DEFAULT_AGEING_NS == 300 * SEC);
	assert_true(xdpbr_ageing_ns(NULL) == XDPBR_DEFAULT_AGEING_NS);
	assert_true(xdpbr_ageing_ns(&c) == XDPBR_DEFAULT_AGEING_NS);	/* 0: default */
	c.ageing_ns = 10 * SEC;
	assert_true(xdpbr_ageing_ns(&c) == 10 * SEC);
	c.ageing_ns = XDPBR_AGEING_NEVER;
	assert_true(xdpbr_ageing_ns(&c) == XDPBR_AGEING_NEVER);
}

static void test_stale_dynamic(void **state)
{
	const uint64_t ageing = 300 * SEC;
	struct xdpbr_fdb_val v = { .last_seen = 1000 * SEC };

	assert_int_equal(xdpbr_fdb_stale(&v, 1000 * SEC, ageing), 0);
	assert_int_equal(xdpbr_fdb_stale(&v, 1000 * SEC + ageing, ageing), 0);	/* exactly the ageing time */
	assert_int_equal(xdpbr_fdb_stale(&v, 1000 * SEC + ageing + 1, ageing), 1);
	assert_int_equal(xdpbr_fdb_stale(&v, 5000 * SEC, ageing), 1);
	assert_int_equal(xdpbr_fdb_stale(&v, 999 * SEC, ageing), 0);	/* seen after now */
	v.flags = XDPBR_FDB_LOCAL;	/* local alone does not pin an entry */
	assert_int_equal(xdpbr_fdb_stale(&v, 5000 * SEC, ageing), 1);
}

static void test_stale_static_never(void **state)
{
	struct xdpbr_fdb_val v = { .last_seen = 0, .flags = XDPBR_FDB_STATIC };

	assert_int_equal(xdpbr_fdb_stale(&v, UINT64_MAX, 1), 0);
	v.flags = XDPBR_FDB_STATIC | XDPBR_FDB_LOCAL;
	assert_int_equal(xdpbr_fdb_stale(&v, UINT64_MAX, 1), 0);
	/* a MAC behind a remote VTEP: zebra withdraws it, nothing ages it */
	v.flags = XDPBR_FDB_REMOTE;
	assert_int_equal(xdpbr_fdb_stale(&v, UINT64_MAX, 1), 0);
}

static void test_stale_never_ageing(void **state)
{
	struct xdpbr_fdb_val v = { .last_seen = 0 };

	assert_int_equal(xdpbr_fdb_stale(&v, UINT64_MAX, XDPBR_AGEING_NEVER), 0);
	/* the same entry does age with any finite ageing time */
	assert_int_equal(xdpbr_fdb_stale(&v, UINT64_MAX, XDPBR_AGEING_NEVER - 1), 1);
}

static void test_limit_reached(void **state)
{
	assert_int_equal(xdpbr_limit_reached(0, 0), 0);		/* 0: no limit */
	assert_int_equal(xdpbr_limit_reached(UINT64_MAX, 0), 0);
	assert_int_equal(xdpbr_limit_reached(0, 1), 0);
	assert_int_equal(xdpbr_limit_reached(1, 1), 1);		/* at the limit */
	assert_int_equal(xdpbr_limit_reached(2, 3), 0);		/* one below */
	assert_int_equal(xdpbr_limit_reached(4, 3), 1);		/* above (a race) */
	assert_int_equal(xdpbr_limit_reached(UINT32_MAX, UINT32_MAX), 1);
	assert_int_equal(xdpbr_limit_reached((__u64)UINT32_MAX + 1, UINT32_MAX), 1);
}

/* The two sides' counts add up, signed; below zero is none, never a huge
 * count that would stop learning. */
static void test_learned_count(void **state)
{
	assert_int_equal(xdpbr_learned_count(0, 0), 0);
	assert_int_equal(xdpbr_learned_count(5, 0), 5);
	assert_int_equal(xdpbr_learned_count(5, (__u64)-3), 2);	/* 3 deleted */
	assert_int_equal(xdpbr_learned_count(2, (__u64)-2), 0);
	assert_int_equal(xdpbr_learned_count((__u64)-1, 0), 0);	/* a race's -1 */
	assert_int_equal(xdpbr_learned_count(1, (__u64)-4), 0);
	assert_int_equal(xdpbr_learned_count((__u64)-2, 7), 5);	/* moved off, added by hand */
	assert_int_equal(xdpbr_limit_reached(xdpbr_learned_count((__u64)-1, 0), 1), 0);
	assert_true(xdpbr_learned_count((__u64)INT64_MAX, 0) == (__u64)INT64_MAX);
}

/* The heartbeat: older than its timeout at now, strictly; a beat ahead of
 * the (coarse) clock is not old; timeout 0 never expires. */
static void test_stp_expired(void **state)
{
	const struct xdpbr_stp_beat b = { .beat_ns = 100, .timeout_ns = 10 };
	const struct xdpbr_stp_beat never = { .beat_ns = 100, .timeout_ns = 0 };

	assert_false(xdpbr_stp_expired(&b, 110));
	assert_true(xdpbr_stp_expired(&b, 111));
	assert_false(xdpbr_stp_expired(&b, 50));
	assert_false(xdpbr_stp_expired(&never, 1000000));
	assert_false(xdpbr_stp_expired(NULL, 1000000));
}

/* The state enforced: the word's, but discarding for a non-edge port that
 * is not the host's when STP is on and the heartbeat expired; a state
 * value past discarding discards. */
static void test_stp_effective(void **state)
{
	const __u32 fwd = XDPBR_STP_FORWARDING, lrn = XDPBR_STP_LEARNING;

	assert_int_equal(xdpbr_stp_effective(fwd, 0, 0, 0), XDPBR_STP_FORWARDING);
	assert_int_equal(xdpbr_stp_effective(lrn, 0, 1, 0), XDPBR_STP_LEARNING);
	assert_int_equal(xdpbr_stp_effective(XDPBR_STP_DISCARDING, 0, 0, 0),
			 XDPBR_STP_DISCARDING);
	assert_int_equal(xdpbr_stp_effective(3, 0, 0, 0), XDPBR_STP_DISCARDING);
	assert_int_equal(xdpbr_stp_effective(fwd, 0, 1, 1), XDPBR_STP_DISCARDING);
	assert_int_equal(xdpbr_stp_effective(lrn, 0, 1, 1), XDPBR_STP_DISCARDING);
	assert_int_equal(xdpbr_stp_effective(fwd, 0, 0, 1), XDPBR_STP_FORWARDING);
	assert_int_equal(xdpbr_stp_effective(fwd | XDPBR_STP_EDGE, 0, 1, 1),
			 XDPBR_STP_FORWARDING);
	assert_int_equal(xdpbr_stp_effective(lrn | XDPBR_STP_EDGE, 0, 1, 1),
			 XDPBR_STP_LEARNING);
	assert_int_equal(xdpbr_stp_effective(fwd, XDPBR_PORT_HOST, 1, 1), XDPBR_STP_FORWARDING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vlan_set_and_test),
		cmocka_unit_test(test_vlan_index_masked),
		cmocka_unit_test(test_vlan_default),
		cmocka_unit_test(test_mac_station),
		cmocka_unit_test(test_fdb_filter),
		cmocka_unit_test(test_ageing_default),
		cmocka_unit_test(test_stale_dynamic),
		cmocka_unit_test(test_stale_static_never),
		cmocka_unit_test(test_stale_never_ageing),
		cmocka_unit_test(test_limit_reached),
		cmocka_unit_test(test_learned_count),
		cmocka_unit_test(test_stp_expired),
		cmocka_unit_test(test_stp_effective),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

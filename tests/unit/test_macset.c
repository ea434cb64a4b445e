// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_macset.c - daemon/macset.c: the EVPN mirror's MAC table and queue,
 * against a plain array of what should be in it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "macset.h"

#define N 20000

static void mac_of(uint32_t i, uint8_t mac[6])
{
	/* sequential ones, as tools/fdbfill writes, and a scattered half */
	uint32_t v = i & 1 ? i * 2654435761u : i;

	mac[0] = 0x06;
	mac[1] = (uint8_t)(i >> 24);
	mac[2] = (uint8_t)(v >> 24);
	mac[3] = (uint8_t)(v >> 16);
	mac[4] = (uint8_t)(v >> 8);
	mac[5] = (uint8_t)v;
}

/* Every MAC i < n with in[i] is found with flags i % 251 + 1, no other. */
static void check_all(const struct macset *s, const bool *in, uint32_t n)
{
	size_t count = 0;
	uint8_t mac[6];

	for (uint32_t i = 0; i < n; i++) {
		struct macset_slot *x;

		mac_of(i, mac);
		x = macset_find(s, mac);
		if (in[i]) {
			assert_non_null(x);
			assert_memory_equal(x->mac, mac, 6);
			assert_int_equal(x->flags, i % 251 + 1);
			count++;
		} else {
			assert_null(x);
		}
	}
	assert_int_equal(s->n, count);
	count = 0;
	for (size_t i = 0; i < s->cap; i++)
		count += macset_at(s, i) != NULL;
	assert_int_equal(s->n, count);
}

/* Added past its first size, deleted in another order: what is left is
 * found, what went is not (backward shift keeps every probe chain whole). */
static void test_add_find_del(void **state)
{
	static bool in[N];
	struct macset s;
	bool grew, any_grew = false;
	uint8_t mac[6];

	assert_int_equal(macset_init(&s, 100), 0);
	for (uint32_t i = 0; i < N; i++) {
		struct macset_slot *x;

		mac_of(i, mac);
		x = macset_add(&s, mac, &grew);
		assert_non_null(x);
		any_grew |= grew;
		assert_int_equal(x->flags, 0);
		x->flags = (uint8_t)(i % 251 + 1);
		in[i] = true;
	}
	assert_true(any_grew);
	assert_true(s.n <= s.cap / 4 * 3);
	check_all(&s, in, N);
	/* added again: the same slot, its flags kept */
	mac_of(7, mac);
	assert_int_equal(macset_add(&s, mac, &grew)->flags, 7 % 251 + 1);
	assert_false(grew);
	for (uint32_t i = 0; i < N; i += 3) {
		mac_of(i, mac);
		macset_del(&s, macset_find(&s, mac));
		in[i] = false;
	}
	check_all(&s, in, N);
	for (uint32_t i = N; i-- > 0;) {
		if (!in[i] || i % 2)
			continue;
		mac_of(i, mac);
		macset_del(&s, macset_find(&s, mac));
		in[i] = false;
	}
	check_all(&s, in, N);
	macset_free(&s);
}

/* Sized for expect entries: no growing until then. */
static void test_presized(void **state)
{
	struct macset s;
	bool grew;
	uint8_t mac[6];

	assert_int_equal(macset_init(&s, 5000), 0);
	for (uint32_t i = 0; i < 5000; i++) {
		mac_of(i, mac);
		assert_non_null(macset_add(&s, mac, &grew));
		assert_false(grew);
	}
	macset_free(&s);
}

/* The all-zero MAC marks a free slot: never an entry. */
static void test_zero_mac(void **state)
{
	static const uint8_t zero[6];
	struct macset s;
	bool grew;

	assert_int_equal(macset_init(&s, 10), 0);
	assert_null(macset_add(&s, zero, &grew));
	assert_null(macset_find(&s, zero));
	assert_int_equal(s.n, 0);
	macset_free(&s);
}

/* A MAC in two VLANs is two entries, each found and deleted alone, also
 * across growing; the queue keeps each MAC's VLAN. */
static void test_vlans(void **state)
{
	struct macset s;
	struct macq q = { 0 };
	struct macset_slot *x;
	bool grew;
	uint8_t mac[6], got[6];
	uint16_t vlan;

	assert_int_equal(macset_init(&s, 10), 0);
	for (uint32_t i = 0; i < 300; i++) {
		mac_of(i, mac);
		for (uint16_t v = 0; v < 3; v++) {
			x = macset_add_vlan(&s, mac, (uint16_t)(v * 1000), &grew);
			assert_non_null(x);
			x->val = i * 10 + v;
		}
	}
	assert_int_equal(s.n, 900);
	mac_of(5, mac);
	assert_int_equal(macset_find(&s, mac)->val, 50);
	assert_int_equal(macset_find_vlan(&s, mac, 2000)->val, 52);
	assert_null(macset_find_vlan(&s, mac, 3000));
	macset_del(&s, macset_find_vlan(&s, mac, 1000));
	assert_null(macset_find_vlan(&s, mac, 1000));
	assert_int_equal(macset_find_vlan(&s, mac, 0)->val, 50);
	assert_int_equal(macset_find_vlan(&s, mac, 2000)->val, 52);
	macset_free(&s);

	for (uint16_t v = 0; v < 2000; v++) {
		mac_of(v, mac);
		assert_int_equal(macq_push_vlan(&q, mac, v), 0);
	}
	for (uint16_t v = 0; v < 2000; v++) {
		assert_true(macq_pop_vlan(&q, got, &vlan));
		mac_of(v, mac);
		assert_memory_equal(got, mac, 6);
		assert_int_equal(vlan, v);
	}
	macq_free(&q);
}

/* First in, first out, also across the ring's growing when it wraps. */
static void test_queue(void **state)
{
	struct macq q = { 0 };
	uint8_t mac[6], want[6];
	uint32_t next = 0, out = 0;

	for (int round = 0; round < 5; round++) {
		for (int i = 0; i < 1500; i++) {
			mac_of(next++, mac);
			assert_int_equal(macq_push(&q, mac), 0);
		}
		for (int i = 0; i < 1000; i++) {
			assert_true(macq_pop(&q, mac));
			mac_of(out++, want);
			assert_memory_equal(mac, want, 6);
		}
	}
	while (macq_pop(&q, mac)) {
		mac_of(out++, want);
		assert_memory_equal(mac, want, 6);
	}
	assert_int_equal(out, next);
	assert_false(macq_pop(&q, mac));
	macq_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find_del),
		cmocka_unit_test(test_presized),
		cmocka_unit_test(test_zero_mac),
		cmocka_unit_test(test_queue),
		cmocka_unit_test(test_vlans),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

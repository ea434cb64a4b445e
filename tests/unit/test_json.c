// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_json.c - lib/json.c: the documents behind `xdpbr -j`. */
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "xdpbr.h"
#include "json.h"
#include "portstats.h"
#include "util.h"

#define SEC XDPBR_NSEC_PER_SEC
#define NO_IFINDEX 999999u	/* no such interface */

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("key '%s' missing in %s", key, json_object_to_json_string(o));
	return v;
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_string));
	return json_object_get_string(v);
}

static uint64_t get_u64(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_int));
	return json_object_get_uint64(v);
}

static struct fdb_entry entry(__u16 vlan, const char *mac, __u32 ifindex, __u16 flags,
			      __u64 last_seen)
{
	struct fdb_entry e = {
		.key.vlan = vlan,
		.val = { .ifindex = ifindex, .slot = 1, .flags = flags, .last_seen = last_seen },
	};

	assert_int_equal(mac_parse(mac, e.key.mac), 0);
	return e;
}

static void test_ifname_of(void **state)
{
	char buf[IF_NAMESIZE];

	assert_string_equal(ifname_of(1, buf), "lo");
	assert_string_equal(ifname_of(NO_IFINDEX, buf), "if999999");
	assert_string_equal(ifname_of(0, buf), "if0");
	assert_string_equal(ifname_of(UINT32_MAX, buf), "if4294967295");
}

/* The names of a page's ports, each asked of the kernel once; past its
 * capacity, the cache still answers right. */
static void test_ifname_cache(void **state)
{
	struct ifname_cache c = { 0 };
	char buf[IFNAME_SHOWN];

	assert_string_equal(ifname_cached(&c, 1, buf), "lo");
	assert_string_equal(ifname_cached(&c, NO_IFINDEX, buf), "if999999");
	assert_string_equal(ifname_cached(&c, 1, buf), "lo");
	assert_int_equal(c.n, 2);
	for (uint32_t i = 0; i < 2 * IFNAME_CACHE; i++) {
		char want[IF_NAMESIZE];

		snprintf(want, sizeof(want), "if%u", NO_IFINDEX + 1 + i);
		assert_string_equal(ifname_cached(&c, NO_IFINDEX + 1 + i, buf), want);
	}
	assert_int_equal(c.n, IFNAME_CACHE);
	assert_string_equal(ifname_cached(&c, 1, buf), "lo");
}

static void test_fdb_entries(void **state)
{
	const uint64_t now = 1000 * SEC;
	const struct fdb_entry e[6] = {
		entry(0, "02:00:5e:00:53:01", 1, XDPBR_FDB_STATIC, now - 5 * SEC),
		entry(10, "02:00:5E:00:53:AA", NO_IFINDEX, 0, now - 42 * SEC - 1),
		entry(4094, "02:00:5e:00:53:02", 1, XDPBR_FDB_LOCAL | XDPBR_FDB_STATIC,
		      now + SEC),	/* seen after now was read */
		entry(0, "02:00:5e:00:53:03", 1, XDPBR_FDB_REMOTE | XDPBR_FDB_USER, now),
		entry(0, "02:00:5e:00:53:04", 1, XDPBR_FDB_REMOTE, now),
		entry(0, "02:00:5e:00:53:05", 1, XDPBR_FDB_REMOTE | XDPBR_FDB_EXTERN, now),
	};
	struct ifname_cache names = { 0 };
	struct json_object *a = json_object_new_array(), *o, *flags;

	for (int i = 0; i < 6; i++)
		json_object_array_add(a, json_fdb_entry(&e[i], "lab", now, &names));
	o = json_object_array_get_idx(a, 0);
	assert_int_equal(json_object_object_length(o), 7);	/* nothing else */
	assert_string_equal(get_str(o, "mac"), "02:00:5e:00:53:01");
	assert_string_equal(get_str(o, "ifname"), "lo");
	assert_int_equal(get_u64(o, "vlan"), 0);
	assert_string_equal(get_str(o, "master"), "lab");
	assert_string_equal(get_str(o, "state"), "static");
	flags = get(o, "flags");
	assert_true(json_object_is_type(flags, json_type_array));
	/* xdpbr's static never moves: the kernel's sticky */
	assert_int_equal(json_object_array_length(flags), 1);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(flags, 0)), "sticky");
	assert_int_equal(get_u64(o, "updated"), 5);

	o = json_object_array_get_idx(a, 1);
	assert_int_equal(json_object_object_length(o), 7);
	assert_string_equal(get_str(o, "mac"), "02:00:5e:00:53:aa");	/* lower case */
	assert_string_equal(get_str(o, "ifname"), "if999999");		/* vanished port */
	assert_int_equal(get_u64(o, "vlan"), 10);
	assert_string_equal(get_str(o, "state"), "");			/* dynamic */
	assert_int_equal(json_object_array_length(get(o, "flags")), 0);
	assert_int_equal(get_u64(o, "updated"), 42);

	o = json_object_array_get_idx(a, 2);
	assert_int_equal(get_u64(o, "vlan"), 4094);
	assert_string_equal(get_str(o, "state"), "permanent");	/* local: iproute2's word */
	flags = get(o, "flags");
	assert_int_equal(json_object_array_length(flags), 1);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(flags, 0)), "self");
	assert_int_equal(get_u64(o, "updated"), 0);

	/* the kernel's static, written on the bridge device: static, moves */
	o = json_object_array_get_idx(a, 3);
	assert_string_equal(get_str(o, "state"), "static");
	assert_int_equal(json_object_array_length(get(o, "flags")), 0);
	/* a remote VTEP's */
	o = json_object_array_get_idx(a, 4);
	assert_string_equal(get_str(o, "state"), "remote");
	assert_int_equal(json_object_array_length(get(o, "flags")), 0);
	/* a user's extern_learn, written on the bridge device: moves, no sticky */
	o = json_object_array_get_idx(a, 5);
	assert_string_equal(get_str(o, "state"), "extern_learn");
	assert_int_equal(json_object_array_length(get(o, "flags")), 0);
	json_object_put(a);
}

/* The text a script sees, keys in iproute2's `bridge -j fdb` order. */
static void test_fdb_text(void **state)
{
	const struct fdb_entry e = entry(0, "02:00:5e:00:53:01", 1, XDPBR_FDB_LOCAL, 7 * SEC);
	struct ifname_cache names = { 0 };
	struct json_object *a = json_fdb_entry(&e, "br0", 10 * SEC, &names);

	assert_string_equal(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN),
			    "{\"mac\":\"02:00:5e:00:53:01\",\"ifname\":\"lo\",\"vlan\":0,"
			    "\"master\":\"br0\",\"state\":\"permanent\",\"flags\":[\"self\"],"
			    "\"updated\":3}");
	json_object_put(a);
}

static void test_port_stats(void **state)
{
	const struct port_entry p = { .ifindex = 1, .port.slot = 3 };
	struct xdpbr_stats s;
	struct json_object *o;

	for (int c = 0; c < XDPBR_CNT__MAX; c++)
		s.c[c] = 1000 + (uint64_t)c;
	s.c[XDPBR_CNT_RX_BYTES] = UINT64_MAX;	/* no truncation to int64 */
	o = json_port_stats(&p, &s);
	assert_true(json_object_is_type(o, json_type_object));
	assert_int_equal(json_object_object_length(o), 2 + XDPBR_CNT__MAX);
	assert_string_equal(get_str(o, "ifname"), "lo");
	assert_int_equal(get_u64(o, "ifindex"), 1);
	for (int c = 0; c < XDPBR_CNT__MAX; c++)
		if (get_u64(o, counter_names[c]) != s.c[c])
			fail_msg("%s: %llu, want %llu", counter_names[c],
				 (unsigned long long)get_u64(o, counter_names[c]),
				 (unsigned long long)s.c[c]);
	assert_int_equal(get_u64(o, "rx_packets"), 1000 + XDPBR_CNT_RX_PACKETS);
	assert_int_equal(get_u64(o, "forwarded"), 1000 + XDPBR_CNT_FORWARDED);
	assert_true(get_u64(o, "rx_bytes") == UINT64_MAX);
	assert_non_null(strstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			       "\"rx_bytes\":18446744073709551615"));
	json_object_put(o);
}

static void test_port_stats_no_port(void **state)
{
	struct xdpbr_stats s;
	struct json_object *o;

	memset(&s, 0, sizeof(s));
	s.c[XDPBR_CNT_PASS_NOT_PORT] = 9;
	o = json_port_stats(NULL, &s);
	assert_string_equal(get_str(o, "ifname"), "");
	assert_int_equal(get_u64(o, "ifindex"), 0);
	assert_int_equal(get_u64(o, "pass_not_port"), 9);
	assert_int_equal(get_u64(o, "tx_packets"), 0);
	json_object_put(o);
}

static void test_port_stats_vanished_port(void **state)
{
	const struct port_entry p = { .ifindex = NO_IFINDEX, .port.slot = 2 };
	struct xdpbr_stats s;
	struct json_object *o;

	memset(&s, 0, sizeof(s));
	o = json_port_stats(&p, &s);
	assert_string_equal(get_str(o, "ifname"), "if999999");
	assert_int_equal(get_u64(o, "ifindex"), NO_IFINDEX);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ifname_of),
		cmocka_unit_test(test_ifname_cache),
		cmocka_unit_test(test_fdb_entries),
		cmocka_unit_test(test_fdb_text),
		cmocka_unit_test(test_port_stats),
		cmocka_unit_test(test_port_stats_no_port),
		cmocka_unit_test(test_port_stats_vanished_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

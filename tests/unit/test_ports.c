// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_ports.c - lib/ports.c: the port table and slot allocation. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "xdpbr.h"
#include "ports.h"
#include "stpmap.h"
#include "util.h"
#include "mock_bpf.h"

static int ports_map(void)
{
	int fd = mock_map_create(MOCK_HASH, sizeof(__u32), sizeof(struct xdpbr_port),
				 XDPBR_MAX_PORTS);

	assert_true(fd >= 0);
	return fd;
}

static void add(int fd, __u32 ifindex, __u32 slot, __u32 mode)
{
	struct xdpbr_port p = { .slot = slot, .flags = XDPBR_PORT_DEFAULT_FLAGS,
				.mode = mode };

	assert_int_equal(mock_map_update(fd, &ifindex, &p), 0);
}

/* ifindex i lives in slot slot_of(i) in the tables below */
static const __u32 ifindexes[] = { 40, 7, 12, 3, 1000 };
static const __u32 slots[] = { 4, 2, 5, 1, 3 };

static void add_five(int fd)
{
	for (size_t i = 0; i < ARRAY_SIZE(ifindexes); i++)
		add(fd, ifindexes[i], slots[i], XDPBR_MODE_NATIVE);
}

static void test_dump_empty(void **state)
{
	int fd = ports_map();
	struct port_entry *p = NULL;
	size_t n = 99;

	assert_int_equal(ports_dump(fd, &p, &n), 0);
	assert_int_equal(n, 0);
	free(p);
}

static void test_dump_sorted_by_slot(void **state)
{
	static const __u32 want_ifindex[] = { 3, 7, 1000, 40, 12 };
	int fd = ports_map();
	struct port_entry *p;
	size_t n;

	add_five(fd);
	assert_int_equal(ports_dump(fd, &p, &n), 0);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(p[i].port.slot, i + 1);
		assert_int_equal(p[i].ifindex, want_ifindex[i]);
		assert_int_equal(p[i].port.flags, XDPBR_PORT_DEFAULT_FLAGS);
		assert_int_equal(p[i].port.mode, XDPBR_MODE_NATIVE);
	}
	free(p);
}

static void test_dump_full_table(void **state)
{
	unsigned int batch0, elem0, next0;
	int fd = ports_map();
	struct port_entry *p;
	size_t n;

	/* every slot 1..MAX-1, plus a stray slot-0 entry: MAX entries in all */
	for (__u32 s = 0; s < XDPBR_MAX_PORTS; s++)
		add(fd, 5000 - s, s, XDPBR_MODE_GENERIC);
	batch0 = mock_calls(MOCK_OP_LOOKUP_BATCH);
	elem0 = mock_calls(MOCK_OP_LOOKUP_ELEM);
	next0 = mock_calls(MOCK_OP_GET_NEXT_KEY);
	assert_int_equal(ports_dump(fd, &p, &n), 0);
	assert_int_equal(n, XDPBR_MAX_PORTS);
	/* in batches: no lookup a port */
	assert_true(mock_calls(MOCK_OP_LOOKUP_BATCH) - batch0 <= 2);
	assert_int_equal(mock_calls(MOCK_OP_LOOKUP_ELEM), elem0);
	assert_int_equal(mock_calls(MOCK_OP_GET_NEXT_KEY), next0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(p[i].port.slot, i);
		assert_int_equal(p[i].ifindex, 5000 - i);
	}
	free(p);
}

static void test_dump_walk_error(void **state)
{
	int fd = ports_map();
	struct port_entry *p = NULL;
	size_t n = 99;
	int rc;

	add_five(fd);
	mock_fail(MOCK_OP_LOOKUP_BATCH, 0, EPERM);
	rc = ports_dump(fd, &p, &n);
	if (!rc)
		free(p);
	assert_int_equal(rc, -EPERM);
	assert_null(p);
	assert_int_equal(n, 0);
}

static void test_free_slot_empty(void **state)
{
	assert_int_equal(ports_free_slot(NULL, 0), 1);	/* slot 0 is reserved */
}

static void test_free_slot_holes(void **state)
{
	struct port_entry p[4] = {
		{ .ifindex = 10, .port.slot = 1 },
		{ .ifindex = 11, .port.slot = 2 },
		{ .ifindex = 12, .port.slot = 4 },
		{ .ifindex = 13, .port.slot = 6 },
	};

	assert_int_equal(ports_free_slot(p, 4), 3);
	p[1].port.slot = 3;
	assert_int_equal(ports_free_slot(p, 4), 2);
	p[1].port.slot = 5;
	p[0].port.slot = 2;
	assert_int_equal(ports_free_slot(p, 4), 1);
	/* only the first n entries count */
	p[0].port.slot = 1;
	p[1].port.slot = 2;
	p[2].port.slot = 3;
	assert_int_equal(ports_free_slot(p, 2), 3);
	assert_int_equal(ports_free_slot(p, 3), 4);
}

static void test_free_slot_ignores_bad_slots(void **state)
{
	struct port_entry p[3] = {
		{ .ifindex = 10, .port.slot = 0 },
		{ .ifindex = 11, .port.slot = XDPBR_MAX_PORTS },
		{ .ifindex = 12, .port.slot = UINT32_MAX },
	};

	assert_int_equal(ports_free_slot(p, 3), 1);
}

static void test_free_slot_full(void **state)
{
	struct port_entry p[XDPBR_MAX_PORTS - 1];

	memset(p, 0, sizeof(p));
	for (size_t i = 0; i < ARRAY_SIZE(p); i++) {
		p[i].ifindex = 100 + (uint32_t)i;
		p[i].port.slot = XDPBR_MAX_PORTS - 1 - (uint32_t)i;	/* any order */
	}
	assert_int_equal(ports_free_slot(p, ARRAY_SIZE(p)), -ENOSPC);
	p[5].port.slot = 1;	/* a duplicate frees the slot it held */
	assert_int_equal(ports_free_slot(p, ARRAY_SIZE(p)), XDPBR_MAX_PORTS - 1 - 5);
	p[5].port.slot = XDPBR_MAX_PORTS - 1 - 5;
	assert_int_equal(ports_free_slot(p, ARRAY_SIZE(p) - 1), 1);	/* the last is slot 1 */
}

static int slotif_map(void)
{
	int fd = mock_map_create(MOCK_ARRAY, sizeof(__u32), sizeof(__u32), XDPBR_MAX_PORTS);

	assert_true(fd >= 0);
	return fd;
}

static void slotif_set(int fd, __u32 slot, __u32 ifindex)
{
	assert_int_equal(mock_map_update(fd, &slot, &ifindex), 0);
}

/* A port's slot counts as held when either map says so: the ports map
 * (slots 1, 2, 4, 5 and 3 from add_five) or the slot -> ifindex array. */
static void test_slot_for_new(void **state)
{
	int ports = ports_map(), slotif = slotif_map();

	assert_int_equal(ports_slot_for_new(ports, slotif), 1);
	add_five(ports);
	assert_int_equal(ports_slot_for_new(ports, slotif), 6);
	slotif_set(slotif, 6, 77);
	assert_int_equal(ports_slot_for_new(ports, slotif), 7);
}

/* A port a walk of the ports hash did not see (rewritten during the walk:
 * the kernel moves the new copy to the head of its bucket) still holds
 * its slot through the array; a port whose removal stopped after the
 * array was cleared still holds it through the ports map. */
static void test_slot_for_new_either_map(void **state)
{
	int ports = ports_map(), slotif = slotif_map();

	add(ports, 10, 1, XDPBR_MODE_TC);
	slotif_set(slotif, 2, 11);		/* in the array only */
	assert_int_equal(ports_slot_for_new(ports, slotif), 3);
	slotif_set(slotif, 3, 12);
	slotif_set(slotif, 2, 0);		/* freed */
	assert_int_equal(ports_slot_for_new(ports, slotif), 2);
}

static void test_slot_for_new_full(void **state)
{
	int ports = ports_map(), slotif = slotif_map();

	for (__u32 s = 1; s < XDPBR_MAX_PORTS; s++)
		slotif_set(slotif, s, 100 + s);
	assert_int_equal(ports_slot_for_new(ports, slotif), -ENOSPC);
}

static void test_slot_for_new_read_error(void **state)
{
	int ports = ports_map(), slotif = slotif_map();

	mock_fail(MOCK_OP_LOOKUP_BATCH, 1, EPERM);	/* the slotif array's */
	assert_int_equal(ports_slot_for_new(ports, slotif), -EPERM);
}

static void test_find(void **state)
{
	const struct port_entry p[3] = {
		{ .ifindex = 10, .port.slot = 1 },
		{ .ifindex = 20, .port.slot = 2 },
		{ .ifindex = 30, .port.slot = 3 },
	};

	assert_ptr_equal(ports_find(p, 3, 10), &p[0]);
	assert_ptr_equal(ports_find(p, 3, 30), &p[2]);
	assert_null(ports_find(p, 3, 15));
	assert_null(ports_find(p, 2, 30));	/* beyond n */
	assert_null(ports_find(NULL, 0, 10));
}

static void test_mode_name(void **state)
{
	assert_string_equal(port_mode_name(XDPBR_MODE_NATIVE), "native");
	assert_string_equal(port_mode_name(XDPBR_MODE_GENERIC), "generic");
	assert_string_equal(port_mode_name(XDPBR_MODE_NONE), "none");
	assert_string_equal(port_mode_name(77), "none");
}

/* Every mode of the XDPBR_MODES table has its name; "tc" too. */
static void test_mode_name_tc(void **state)
{
	assert_string_equal(port_mode_name(XDPBR_MODE_TC), "tc");
	assert_string_equal(port_mode_name(XDPBR_MODE_TC + 1), "none");
}

/* A request names auto, native or generic: the modes the loader attaches. */
static void test_mode_parse(void **state)
{
	static const char *const bad[] = {
		"none", "tc", "Native", "AUTO", "", "auto ", "nativ", "xdp", "skb",
	};
	enum xdpbr_mode m = XDPBR_MODE_TC;

	assert_int_equal(port_mode_parse("auto", &m), 0);
	assert_int_equal(m, XDPBR_MODE_NONE);
	assert_int_equal(port_mode_parse("native", &m), 0);
	assert_int_equal(m, XDPBR_MODE_NATIVE);
	assert_int_equal(port_mode_parse("generic", &m), 0);
	assert_int_equal(m, XDPBR_MODE_GENERIC);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = XDPBR_MODE_TC;
		if (port_mode_parse(bad[i], &m) != -EINVAL)
			fail_msg("port_mode_parse(\"%s\") accepted", bad[i]);
		assert_int_equal(m, XDPBR_MODE_TC);	/* untouched */
	}
}

/* One table of state words: what link show and stp show print, and the
 * status pin's codes, which keep their meaning across an upgrade. */
static void test_stp_state_words(void **state)
{
	(void)state;
	assert_string_equal(stp_state_word(XDPBR_STP_FORWARDING, false), "forwarding");
	assert_string_equal(stp_state_word(XDPBR_STP_LEARNING, true), "learning");
	assert_string_equal(stp_state_word(XDPBR_STP_DISCARDING, false), "blocking");
	assert_string_equal(stp_state_word(XDPBR_STP_DISCARDING, true), "discarding");
	assert_string_equal(stp_state_word((enum xdpbr_stp_state)7, true), "?");
	/* bridge(8)'s numbers are the rows' indexes */
	assert_string_equal(stp_state_words[0].name, "disabled");
	assert_string_equal(stp_state_words[4].name, "blocking");
	assert_int_equal(stpmap_state_code(XDPBR_STP_DISCARDING), 0);
	assert_int_equal(stpmap_state_code(XDPBR_STP_LEARNING), 1);
	assert_int_equal(stpmap_state_code(XDPBR_STP_FORWARDING), 2);
	for (unsigned int c = 0; c < STPMAP_STATES; c++)
		assert_int_equal(stpmap_state_code(stpmap_state(c)), c);
	assert_string_equal(stpmap_state_name(0), "discarding");
	assert_string_equal(stpmap_state_name(2), "forwarding");
	assert_string_equal(stpmap_state_name(STPMAP_STATES), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stp_state_words),
		cmocka_unit_test_setup(test_dump_empty, mock_bpf_fixture),
		cmocka_unit_test_setup(test_dump_sorted_by_slot, mock_bpf_fixture),
		cmocka_unit_test_setup(test_dump_full_table, mock_bpf_fixture),
		cmocka_unit_test_setup(test_dump_walk_error, mock_bpf_fixture),
		cmocka_unit_test(test_free_slot_empty),
		cmocka_unit_test(test_free_slot_holes),
		cmocka_unit_test(test_free_slot_ignores_bad_slots),
		cmocka_unit_test(test_free_slot_full),
		cmocka_unit_test_setup(test_slot_for_new, mock_bpf_fixture),
		cmocka_unit_test_setup(test_slot_for_new_either_map, mock_bpf_fixture),
		cmocka_unit_test_setup(test_slot_for_new_full, mock_bpf_fixture),
		cmocka_unit_test_setup(test_slot_for_new_read_error, mock_bpf_fixture),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_mode_name),
		cmocka_unit_test(test_mode_name_tc),
		cmocka_unit_test(test_mode_parse),
	};

	return cmocka_run_group_tests(tests, NULL, mock_bpf_fixture);
}

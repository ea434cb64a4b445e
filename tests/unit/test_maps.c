// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_maps.c - lib/pins.c: opening a bridge's pinned maps by name. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "xdpbr.h"
#include "paths.h"
#include "pins.h"
#include "mock_bpf.h"

/* In the order of struct xdpbr_maps. */
static const char *const names[] = {
	XDPBR_MAP_FDB, XDPBR_MAP_PORTS, XDPBR_MAP_STATS, XDPBR_MAP_CONFIG,
	XDPBR_MAP_TX, XDPBR_MAP_FLOOD_BC, XDPBR_MAP_FLOOD_MC, XDPBR_MAP_FLOOD_UU,
	XDPBR_MAP_FLOOD_BC_FAST, XDPBR_MAP_FLOOD_MC_FAST, XDPBR_MAP_FLOOD_UU_FAST,
	XDPBR_MAP_FLOOD_FAST,
	XDPBR_MAP_LEARNED, XDPBR_MAP_LEARNED_USER, XDPBR_MAP_EVENTS, XDPBR_MAP_EVBUDGET, XDPBR_MAP_BRIDGE,
	XDPBR_MAP_VLANS, XDPBR_MAP_STORM, XDPBR_MAP_IFSLOT, XDPBR_MAP_PORTCFG,
	XDPBR_MAP_FDBGEN, XDPBR_MAP_SLOTIF, XDPBR_MAP_SKBPORTS, XDPBR_MAP_PORTNAME,
	XDPBR_MAP_STP_PORT, XDPBR_MAP_STP_BEAT,
	XDPBR_MAP_STORM_STATE, XDPBR_MAP_XMIT_SEEN,
};
#define NMAPS (sizeof(names) / sizeof(names[0]))
_Static_assert(NMAPS * sizeof(int) == sizeof(struct xdpbr_maps), "one name per map");

/* The paths of the host's network namespace, wherever the test runs. */
static int host_paths(void **state)
{
	const struct ns_ids host = { 1, 2, 1, 2, 1 };
	struct xdpbr_paths p;

	if (paths_build(&p, &host, -1))
		return -1;
	paths_set(&p);
	return 0;
}

/* Pins a fake hash map per name under /sys/fs/bpf/xdpbr/<bridge>/, except
 * the one at index `skip`; map i holds i + 1 entries so it can be told
 * apart through any descriptor. */
static void pin_all(const char *bridge, size_t skip)
{
	char path[256];

	for (size_t i = 0; i < NMAPS; i++) {
		int fd = mock_map_create(MOCK_HASH, sizeof(__u32), sizeof(__u32), 32);

		assert_true(fd >= 0);
		for (__u32 k = 0; k <= i; k++)
			assert_int_equal(mock_map_update(fd, &k, &k), 0);
		if (i == skip)
			continue;
		snprintf(path, sizeof(path), "/sys/fs/bpf/xdpbr/%s/%s", bridge, names[i]);
		mock_pin(path, fd);
	}
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static int fd_at(const struct xdpbr_maps *m, size_t i)
{
	int fds[NMAPS];

	memcpy(fds, m, sizeof(fds));
	return fds[i];
}

static void assert_all_closed(const struct xdpbr_maps *m)
{
	for (size_t i = 0; i < NMAPS; i++)
		assert_int_equal(fd_at(m, i), -1);
}

static void test_open_all(void **state)
{
	struct xdpbr_maps m;
	int before = open_fds(), fds[NMAPS];

	pin_all("br0", NMAPS);
	assert_int_equal(maps_open_pinned("br0", &m), 0);
	assert_int_equal(open_fds(), before + (int)NMAPS);
	for (size_t i = 0; i < NMAPS; i++) {
		fds[i] = fd_at(&m, i);
		assert_true(fds[i] >= 0);
		if (mock_map_len(fds[i]) != i + 1)
			fail_msg("field %zu opened the wrong pin", i);
	}
	assert_int_equal(mock_map_len(m.fdb), 1);
	assert_int_equal(mock_map_len(m.xmit_seen), NMAPS);	/* the last field */

	maps_close(&m);
	assert_all_closed(&m);
	assert_int_equal(open_fds(), before);
	for (size_t i = 0; i < NMAPS; i++)
		assert_int_equal(fcntl(fds[i], F_GETFD), -1);
	maps_close(&m);		/* closing twice is harmless */
	assert_all_closed(&m);
}

/* Only this bridge's pins are opened. */
static void test_open_other_bridge(void **state)
{
	struct xdpbr_maps m;
	int before = open_fds();

	pin_all("br0", NMAPS);
	assert_int_equal(maps_open_pinned("br1", &m), -ENOENT);
	assert_all_closed(&m);
	assert_int_equal(open_fds(), before);
	assert_int_equal(mock_calls(MOCK_OP_OBJ_GET), 1);
}

/* A missing pin half way: -ENOENT and nothing stays open. */
static void test_open_missing_pin(void **state)
{
	struct xdpbr_maps m;
	int before = open_fds();

	pin_all("br0", 4);		/* xdpbr_tx */
	assert_int_equal(maps_open_pinned("br0", &m), -ENOENT);
	assert_all_closed(&m);
	assert_int_equal(open_fds(), before);
	assert_int_equal(mock_calls(MOCK_OP_OBJ_GET), 5);
}

static void test_open_error_propagates(void **state)
{
	struct xdpbr_maps m;
	int before = open_fds();

	pin_all("br0", NMAPS);
	mock_fail(MOCK_OP_OBJ_GET, NMAPS - 1, EPERM);	/* the last one */
	assert_int_equal(maps_open_pinned("br0", &m), -EPERM);
	assert_all_closed(&m);
	assert_int_equal(open_fds(), before);
}

static void test_open_name_too_long(void **state)
{
	struct xdpbr_maps m;
	char *name = malloc(5000);

	assert_non_null(name);
	memset(name, 'b', 4999);
	name[4999] = '\0';
	assert_int_equal(maps_open_pinned(name, &m), -ENAMETOOLONG);
	assert_all_closed(&m);
	assert_int_equal(mock_calls(MOCK_OP_OBJ_GET), 0);
	free(name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_open_all, mock_bpf_fixture),
		cmocka_unit_test_setup(test_open_other_bridge, mock_bpf_fixture),
		cmocka_unit_test_setup(test_open_missing_pin, mock_bpf_fixture),
		cmocka_unit_test_setup(test_open_error_propagates, mock_bpf_fixture),
		cmocka_unit_test_setup(test_open_name_too_long, mock_bpf_fixture),
	};

	return cmocka_run_group_tests(tests, host_paths, mock_bpf_fixture);
}

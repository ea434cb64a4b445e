// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_maps.c - include/xdpbr_maps.h against the datapath object, and
 * lib/pins.c: opening a bridge's pinned maps by name. */
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
#include <bpf/libbpf.h>

#include "xdpbr.h"
#include "xdpbr_maps.h"
#include "xdpbr.skel.h"
#include "paths.h"
#include "pins.h"
#include "mock_bpf.h"

/* In the order of struct xdpbr_maps. */
static const char *const names[] = {
#define NAME(name, type) XDPBR_MAP_NAME(name),
	XDPBR_MAPS_PINNED(NAME)
#undef NAME
};
#define NMAPS (sizeof(names) / sizeof(names[0]))
_Static_assert(NMAPS * sizeof(int) == sizeof(struct xdpbr_maps), "one name per map");

/* A row of include/xdpbr_maps.h: the map's name in the object, its type,
 * and whether it is pinned by name. */
static const struct row {
	const char *name;
	enum bpf_map_type type;
	bool pinned;
} rows[] = {
#define PINNED(name, type) { XDPBR_MAP_NAME(name), BPF_MAP_TYPE_##type, true },
#define LOCAL(name, type) { #name, BPF_MAP_TYPE_##type, false },
	XDPBR_MAPS_PINNED(PINNED)
	XDPBR_MAPS_LOCAL(LOCAL)
#undef PINNED
#undef LOCAL
};

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
		int fd = mock_map_create(MOCK_HASH, sizeof(__u32), sizeof(__u32), 64);

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
	assert_int_equal(mock_map_len(m.mdb_devs), NMAPS);	/* the last field */

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

	pin_all("br0", 4);		/* xdpbr_ifslot */
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

static const struct row *row_of(const char *name)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

/* Every map of the datapath object has its row in include/xdpbr_maps.h and
 * every row its map, of the row's type and pinned by name exactly when the
 * row says: a map added to bpf/ without its row would be neither opened
 * nor unpinned by user space, nor adopted by an upgrade. */
static void test_table_is_the_object(void **state)
{
	struct xdpbr *skel = xdpbr__open();
	const struct bpf_map *map;
	size_t seen = 0;

	assert_non_null(skel);
	bpf_object__for_each_map(map, skel->obj) {
		const char *name = bpf_map__name(map);
		const struct row *r = row_of(name);

		if (bpf_map__is_internal(map))
			continue;	/* .rodata: the loader's knobs */
		if (!r)
			fail_msg("map %s of the object has no row in include/xdpbr_maps.h", name);
		if (bpf_map__type(map) != r->type)
			fail_msg("map %s: type %d in the object, %d in include/xdpbr_maps.h",
				 name, bpf_map__type(map), r->type);
		if ((bpf_map__pin_path(map) != NULL) != r->pinned)
			fail_msg("map %s: %s in the object, %s in include/xdpbr_maps.h", name,
				 bpf_map__pin_path(map) ? "pinned by name" : "not pinned",
				 r->pinned ? "pinned" : "local");
		seen++;
	}
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!bpf_object__find_map_by_name(skel->obj, rows[i].name))
			fail_msg("row %s of include/xdpbr_maps.h: no such map in the object",
				 rows[i].name);
	assert_int_equal(seen, sizeof(rows) / sizeof(rows[0]));
	xdpbr__destroy(skel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_open_all, mock_bpf_fixture),
		cmocka_unit_test_setup(test_open_other_bridge, mock_bpf_fixture),
		cmocka_unit_test_setup(test_open_missing_pin, mock_bpf_fixture),
		cmocka_unit_test_setup(test_open_error_propagates, mock_bpf_fixture),
		cmocka_unit_test_setup(test_open_name_too_long, mock_bpf_fixture),
		cmocka_unit_test(test_table_is_the_object),
	};

	return cmocka_run_group_tests(tests, host_paths, mock_bpf_fixture);
}

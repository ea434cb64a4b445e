// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_ctl.c - lib/ctl.c against the mocked maps: what flushes and default
 * PVID changes delete, and that each costs one pass over the FDB whatever
 * the number of ports, with no copy of the table and no round trip to the
 * learned counters per entry; what an ageing pass does to the learned
 * counts. */
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "xdpbr.h"
#include "xdpbr_rules.h"
#include "ctl.h"
#include "fdbtab.h"
#include "pins.h"
#include "util.h"
#include "mock_bpf.h"

#define NPORTS		63	/* slots 1..63: the costs per entry, not per port */
#define PER_PORT	100			/* entries per port */
#define IFINDEX(slot)	(100 + (slot))
#define VLAN_OTHER	10

static struct xdpbr_maps m;

static int map(enum mock_map_type t, size_t k, size_t v, unsigned int n)
{
	int fd = mock_map_create(t, k, v, n);

	assert_true(fd >= 0);
	return fd;
}

/* A devmap as a hash (the mock has no devmap: a hash of the same key and
 * value does what ctl.c asks). */
static int devmap(__u32 entries)
{
	return map(MOCK_HASH, sizeof(__u32), sizeof(struct bpf_devmap_val), entries);
}

/* Every map ctl.c touches. */
static void maps_make(void)
{
	const struct xdpbr_config cfg = { .ageing_ns = 300 * XDPBR_NSEC_PER_SEC };
	__u32 zero = 0;

	m.fdb = map(MOCK_HASH, sizeof(struct xdpbr_fdb_key), sizeof(struct xdpbr_fdb_val),
		    NPORTS * PER_PORT * 2);
	m.ports = map(MOCK_HASH, sizeof(__u32), sizeof(struct xdpbr_port), XDPBR_MAX_PORTS);
	m.config = map(MOCK_ARRAY, sizeof(__u32), sizeof(struct xdpbr_config), 1);
	m.tx = devmap(XDPBR_MAX_PORTS);
	m.flood_bc = devmap(XDPBR_MAX_PORTS);
	m.flood_mc = devmap(XDPBR_MAX_PORTS);
	m.flood_uu = devmap(XDPBR_MAX_PORTS);
	m.flood_bc_fast = devmap(XDPBR_MAX_PORTS);
	m.flood_mc_fast = devmap(XDPBR_MAX_PORTS);
	m.flood_uu_fast = devmap(XDPBR_MAX_PORTS);
	m.flood_bc_small = devmap(XDPBR_FLOOD_FAST_SLOTS);
	m.flood_mc_small = devmap(XDPBR_FLOOD_FAST_SLOTS);
	m.flood_uu_small = devmap(XDPBR_FLOOD_FAST_SLOTS);
	m.flood_fast = map(MOCK_ARRAY, sizeof(__u32), sizeof(struct xdpbr_flood_fast), 1);
	m.learned = map(MOCK_ARRAY, sizeof(__u32), sizeof(__u64), XDPBR_MAX_PORTS);
	m.learned_user = map(MOCK_ARRAY, sizeof(__u32), sizeof(__u64), XDPBR_MAX_PORTS);
	m.bridge = map(MOCK_ARRAY, sizeof(__u32), sizeof(struct xdpbr_bridge_stats), 1);
	m.vlans = map(MOCK_ARRAY, sizeof(__u32), sizeof(struct xdpbr_vlan_port), XDPBR_MAX_PORTS);
	m.storm = map(MOCK_ARRAY, sizeof(__u32), sizeof(struct xdpbr_storm), XDPBR_MAX_PORTS);
	m.ifslot = map(MOCK_ARRAY, sizeof(__u32), sizeof(__u32), XDPBR_IFINDEX_FAST);
	m.portcfg = map(MOCK_ARRAY, sizeof(__u32), sizeof(struct xdpbr_port), XDPBR_MAX_PORTS);
	m.fdbgen = map(MOCK_ARRAY, sizeof(__u32), sizeof(__u64), 1);
	m.slotif = map(MOCK_ARRAY, sizeof(__u32), sizeof(__u32), XDPBR_MAX_PORTS);
	m.skbports = map(MOCK_ARRAY, sizeof(__u32), sizeof(__u32), 1);
	m.portname = map(MOCK_ARRAY, sizeof(__u32), sizeof(struct xdpbr_port_name),
			 XDPBR_MAX_PORTS);
	m.stats = map(MOCK_PERCPU_ARRAY, sizeof(__u32), sizeof(struct xdpbr_stats),
		      XDPBR_MAX_PORTS);
	m.stp_port = map(MOCK_ARRAY, sizeof(__u32), sizeof(__u32), XDPBR_MAX_PORTS);
	m.stp_beat = map(MOCK_ARRAY, sizeof(__u32), sizeof(struct xdpbr_stp_beat), 1);
	m.storm_state = map(MOCK_PERCPU_ARRAY, sizeof(__u32), sizeof(struct xdpbr_storm_bucket),
			    XDPBR_MAX_PORTS);
	m.linklocal_state = map(MOCK_PERCPU_ARRAY, sizeof(__u32),
				sizeof(struct xdpbr_linklocal_bucket), XDPBR_MAX_PORTS);
	m.bpdusock_state = map(MOCK_PERCPU_ARRAY, sizeof(__u32),
			       sizeof(struct xdpbr_bpdusock_bucket), XDPBR_MAX_PORTS);
	m.xmit_seen = map(MOCK_PERCPU_ARRAY, sizeof(__u32), sizeof(__u64), XDPBR_MAX_PORTS);
	m.events = m.evbudget = -1;
	assert_int_equal(mock_map_update(m.config, &zero, &cfg), 0);
}

/* Entry i of a port: VLAN 1 (the default PVID) for even i, VLAN_OTHER for
 * odd; every tenth static. */
static struct fdb_entry entry_of(uint32_t slot, unsigned int i)
{
	struct fdb_entry e = {
		.key = { .vlan = i % 2 ? VLAN_OTHER : XDPBR_DEFAULT_PVID,
			 .mac = { 0x02, 0x00, (__u8)slot, (__u8)(i >> 8), (__u8)i, 0x01 } },
		.val = { .ifindex = IFINDEX(slot), .slot = (__u16)slot,
			 .flags = i % 10 == 9 ? XDPBR_FDB_STATIC : 0, .last_seen = 1 },
	};

	return e;
}

static bool is_static(unsigned int i)
{
	return i % 10 == 9;
}

/* NPORTS ports, each an untagged member of the default PVID, with
 * PER_PORT entries, and learned counters that agree with them. */
static int bridge_setup(void **state)
{
	__u64 learned[XDPBR_MAX_PORTS] = { 0 };

	mock_bpf_reset();
	maps_make();
	for (uint32_t slot = 1; slot <= NPORTS; slot++) {
		struct xdpbr_port p = { .slot = slot, .flags = XDPBR_PORT_DEFAULT_FLAGS };

		assert_int_equal(ctl_vlan_port_init(&m, &p), 0);
		assert_int_equal(p.pvid, XDPBR_DEFAULT_PVID);
		assert_int_equal(ctl_port_apply(&m, IFINDEX(slot), &p, -1), 0);
		for (unsigned int i = 0; i < PER_PORT; i++) {
			struct fdb_entry e = entry_of(slot, i);

			assert_int_equal(mock_map_update(m.fdb, &e.key, &e.val), 0);
			if (!is_static(i)) {
				learned[slot]++;
				learned[XDPBR_LEARNED_TOTAL]++;
			}
		}
	}
	for (__u32 s = 0; s < XDPBR_MAX_PORTS; s++)
		assert_int_equal(mock_map_update(m.learned, &s, &learned[s]), 0);
	return 0;
}

static bool fdb_has(uint32_t slot, unsigned int i)
{
	struct fdb_entry e = entry_of(slot, i);
	struct xdpbr_fdb_val v;

	return !bpf_map_lookup_elem(m.fdb, &e.key, &v);
}

static uint64_t learned_of(__u32 slot)
{
	uint64_t n = 0;

	assert_int_equal(ctl_learned_get(&m, slot, &n), 0);
	return n;
}

static __u64 flushed_total(void)
{
	struct xdpbr_bridge_stats bs = { 0 };
	__u32 zero = 0;

	assert_int_equal(bpf_map_lookup_elem(m.bridge, &zero, &bs), 0);
	return bs.flushed;
}

/* Bytes allocated: from the arena and mmap()ed (a big copy of the table
 * is the latter), or ASan's own count in a SANITIZE=1 build, where
 * mallinfo2() knows nothing. */
#ifdef __SANITIZE_ADDRESS__
size_t __sanitizer_get_current_allocated_bytes(void);	/* gcc 12 has no header */
static size_t heap_in_use(void)
{
	return __sanitizer_get_current_allocated_bytes();
}
#else
static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}
#endif

static size_t heap_at_first_delete;

static void note_heap(void *arg)
{
	heap_at_first_delete = heap_in_use();
}

static unsigned int hook_calls;

static void count_deleted(const struct xdpbr_fdb_key *k, const struct xdpbr_fdb_val *v,
			  void *arg)
{
	hook_calls++;
}

/* What one flush must cost, whatever it deletes: one walk that reads
 * the table once; no copy of it (the heap at the first delete is what it
 * was before, give or take a few allocations); and no lookup per entry
 * (the learned counts are adjusted per port, at the end). */
struct cost {
	unsigned int walks;
	size_t read, before, lookups;
};

/* first_delete: which delete_elem call is the flush's first (a port's
 * removal deletes from the devmaps before). */
static void cost_start(struct cost *c, unsigned int first_delete)
{
	c->walks = mock_walks(m.fdb);
	c->read = mock_entries_read(m.fdb);
	c->lookups = mock_calls(MOCK_OP_LOOKUP_ELEM);
	heap_at_first_delete = 0;
	mock_hook(MOCK_OP_DELETE_ELEM, first_delete, note_heap, NULL);
	c->before = heap_in_use();
}

static void cost_check(const struct cost *c, size_t table, size_t lookups_max)
{
	size_t lookups = mock_calls(MOCK_OP_LOOKUP_ELEM) - c->lookups;

	if (mock_walks(m.fdb) - c->walks != 1)
		fail_msg("%u walks over the FDB, want 1",
			 mock_walks(m.fdb) - c->walks);
	assert_int_equal(mock_entries_read(m.fdb) - c->read, table);
	assert_true(heap_at_first_delete > 0);
	if (heap_at_first_delete > c->before + 4096)
		fail_msg("%zu bytes more on the heap at the first delete: a copy of the "
			 "table (%zu entries)", heap_at_first_delete - c->before, table);
	if (lookups > lookups_max)
		fail_msg("%zu lookups for one flush, want at most %zu (none per entry)",
			 lookups, lookups_max);
}

/* A reload that changes the default PVID of every port: one pass, the
 * entries of the old default VLAN flushed on every port that moved, as
 * before. */
static void test_default_pvid_all_ports_one_pass(void **state)
{
	const size_t table = NPORTS * PER_PORT;
	unsigned int dynamic_per_port = 0, deleted_per_port = 0;
	struct cost c;

	for (unsigned int i = 0; i < PER_PORT; i++)
		if (!(i % 2)) {
			deleted_per_port++;
			dynamic_per_port += !is_static(i);
		}
	ctl_set_delete_hook(count_deleted, NULL);
	hook_calls = 0;
	cost_start(&c, 1);
	assert_int_equal(ctl_set_default_pvid(&m, 5, -1), 0);
	ctl_set_delete_hook(NULL, NULL);
	/* ctl_port_apply and the rest read ports and VLANs per port: bounded
	 * by the ports, not the table. */
	cost_check(&c, table, NPORTS * (XDPBR_MAX_PORTS + 16));

	for (uint32_t slot = 1; slot <= NPORTS; slot++) {
		struct xdpbr_vlan_port v;
		struct xdpbr_port p;

		assert_int_equal(ctl_port_get(&m, IFINDEX(slot), &p), 0);
		assert_int_equal(p.pvid, 5);
		assert_int_equal(ctl_vlan_get(&m, slot, &v), 0);
		assert_true(xdpbr_vlan_test(v.member, 5) && xdpbr_vlan_test(v.untagged, 5));
		assert_false(xdpbr_vlan_test(v.member, XDPBR_DEFAULT_PVID));
		for (unsigned int i = 0; i < PER_PORT; i++)
			if (fdb_has(slot, i) != (i % 2 == 1))
				fail_msg("slot %u entry %u (vlan %u): %s", slot, i,
					 entry_of(slot, i).key.vlan,
					 fdb_has(slot, i) ? "kept" : "deleted");
		assert_int_equal(learned_of(slot), (PER_PORT - PER_PORT / 10) - dynamic_per_port);
	}
	assert_int_equal(mock_map_len(m.fdb), table - NPORTS * deleted_per_port);
	assert_int_equal(hook_calls, NPORTS * deleted_per_port);
	assert_int_equal(flushed_total(), NPORTS * deleted_per_port);
	assert_int_equal(learned_of(XDPBR_LEARNED_TOTAL),
			 NPORTS * ((PER_PORT - PER_PORT / 10) - dynamic_per_port));
}

/* Ports the user gave their own PVID stay, with their entries; with no
 * port to move, the FDB is not even read. */
static void test_default_pvid_configured_ports_stay(void **state)
{
	struct cost c;

	assert_int_equal(ctl_vlan_add(&m, IFINDEX(3), VLAN_OTHER, VLAN_OTHER, true, true), 0);
	assert_int_equal(ctl_vlan_add(&m, IFINDEX(4), VLAN_OTHER, VLAN_OTHER, true, true), 0);
	cost_start(&c, 1);
	assert_int_equal(ctl_set_default_pvid(&m, 7, -1), 0);
	cost_check(&c, NPORTS * PER_PORT, NPORTS * (XDPBR_MAX_PORTS + 16));
	for (uint32_t slot = 1; slot <= NPORTS; slot++) {
		struct xdpbr_port p;
		bool stays = slot == 3 || slot == 4;

		assert_int_equal(ctl_port_get(&m, IFINDEX(slot), &p), 0);
		assert_int_equal(p.pvid, stays ? VLAN_OTHER : 7);
		assert_int_equal(fdb_has(slot, 0), stays);	/* VLAN 1 */
		assert_true(fdb_has(slot, 1));			/* VLAN_OTHER */
	}

	/* Every port has its own PVID now: nothing moves, nothing is read. */
	for (uint32_t slot = 1; slot <= NPORTS; slot++)
		assert_int_equal(ctl_vlan_add(&m, IFINDEX(slot), VLAN_OTHER, VLAN_OTHER,
					      true, true), 0);
	c.walks = mock_walks(m.fdb);
	assert_int_equal(ctl_set_default_pvid(&m, 8, -1), 0);
	assert_int_equal(mock_walks(m.fdb), c.walks);
}

/* A flush of one port's dynamic entries: one pass over the table, the
 * port's learned counter down by what went, the rest untouched. */
static void test_flush_port_one_pass(void **state)
{
	const struct fdb_filter f = { .ifindex = IFINDEX(7), .vlan = -1,
				      .kind = FDB_KIND_DYNAMIC };
	const size_t table = NPORTS * PER_PORT, dynamic = PER_PORT - PER_PORT / 10;
	__u64 total = learned_of(XDPBR_LEARNED_TOTAL);
	struct cost c;

	cost_start(&c, 1);
	assert_int_equal(ctl_fdb_flush(&m, &f), (int)dynamic);
	cost_check(&c, table, 8);
	for (unsigned int i = 0; i < PER_PORT; i++) {
		assert_int_equal(fdb_has(7, i), is_static(i));
		assert_true(fdb_has(6, i) && fdb_has(8, i));
	}
	assert_int_equal(learned_of(7), 0);
	assert_int_equal(learned_of(8), dynamic);
	assert_int_equal(learned_of(XDPBR_LEARNED_TOTAL), total - dynamic);
	assert_int_equal(flushed_total(), dynamic);
	assert_int_equal(mock_map_len(m.fdb), table - dynamic);
}

/* Filters by VLAN and kind, over every port: the same single pass. */
static void test_flush_vlan_static(void **state)
{
	const struct fdb_filter f = { .vlan = VLAN_OTHER, .kind = FDB_KIND_STATIC };
	unsigned int want = 0;
	struct cost c;

	for (unsigned int i = 0; i < PER_PORT; i++)
		want += i % 2 && is_static(i);
	cost_start(&c, 1);
	assert_int_equal(ctl_fdb_flush(&m, &f), (int)(NPORTS * want));
	cost_check(&c, NPORTS * PER_PORT, 8);
	for (unsigned int i = 0; i < PER_PORT; i++)
		assert_int_equal(fdb_has(9, i), !(i % 2 && is_static(i)));
	assert_int_equal(learned_of(9), PER_PORT - PER_PORT / 10);
}

/* Removing a port flushes all its entries, static ones too, in one pass. */
static void test_port_remove_one_pass(void **state)
{
	const size_t table = NPORTS * PER_PORT;
	struct xdpbr_port p;
	struct cost c;

	cost_start(&c, 8);	/* after the flood maps (3 slow, 3 fast) and tx */
	assert_int_equal(ctl_port_remove(&m, IFINDEX(12)), 0);
	/* and the fast flood's recount: per slot its port, per port its
	 * ifindex, STP word and fast flood maps */
	cost_check(&c, table, 3 * XDPBR_MAX_PORTS + 6 * XDPBR_MAX_PORTS);
	assert_int_equal(ctl_port_get(&m, IFINDEX(12), &p), -ENODEV);
	for (unsigned int i = 0; i < PER_PORT; i++)
		assert_false(fdb_has(12, i));
	assert_int_equal(mock_map_len(m.fdb), table - PER_PORT);
	assert_int_equal(learned_of(12), 0);
}

/* Every byte of a slot of map fd (per-CPU: every CPU's) is b. */
static bool slot_all(int fd, __u32 slot, size_t size, unsigned char b)
{
	unsigned char v[4096];

	assert_true(size <= sizeof(v));
	memset(v, ~b, size);
	assert_int_equal(bpf_map_lookup_elem(fd, &slot, v), 0);
	for (size_t i = 0; i < size; i++)
		if (v[i] != b)
			return false;
	return true;
}

static void slot_fill(int fd, __u32 slot, size_t size)
{
	unsigned char v[4096];

	memset(v, 0x5a, size);
	assert_int_equal(mock_map_update(fd, &slot, v), 0);
}

/* A port leaves its slot as a new port must find it: counters, storm
 * limits and buckets, the xmit tracepoint's bookkeeping, VLANs, name and
 * learned count all zero (a gone port's used to be inherited). */
static void test_port_remove_resets_its_slot(void **state)
{
	const size_t cpus = 4;	/* the mock's */
	const struct {
		int fd;
		size_t size;
	} parts[] = {
		{ m.stats, cpus * sizeof(struct xdpbr_stats) },
		{ m.storm_state, cpus * sizeof(struct xdpbr_storm_bucket) },
		{ m.linklocal_state, cpus * sizeof(struct xdpbr_linklocal_bucket) },
		{ m.bpdusock_state, cpus * sizeof(struct xdpbr_bpdusock_bucket) },
		{ m.xmit_seen, cpus * sizeof(__u64) },
		{ m.storm, sizeof(struct xdpbr_storm) },
		{ m.vlans, sizeof(struct xdpbr_vlan_port) },
		{ m.portname, sizeof(struct xdpbr_port_name) },
	};
	char name[XDPBR_IFNAMSIZ];

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		slot_fill(parts[i].fd, 12, parts[i].size);
	assert_int_equal(ctl_port_name_set(&m, 12, "eth12"), 0);
	assert_int_equal(ctl_port_name_get(&m, 12, name), 0);
	assert_string_equal(name, "eth12");
	assert_int_equal(ctl_port_remove(&m, IFINDEX(12)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (!slot_all(parts[i].fd, 12, parts[i].size, 0))
			fail_msg("part %zu of slot 12 not reset", i);
	assert_int_equal(learned_of(12), 0);
	assert_int_equal(ctl_port_name_get(&m, 12, name), 0);
	assert_string_equal(name, "");
	/* the neighbours keep theirs */
	assert_false(slot_all(m.vlans, 11, sizeof(struct xdpbr_vlan_port), 0));
	assert_int_equal(learned_of(11), PER_PORT - PER_PORT / 10);
	assert_int_equal(ctl_slot_reset(&m, 0), -EINVAL);	/* slot 0 is no port's */
}

/* A delete that fails mid-walk stops the flush with its error; what went
 * before it is counted. */
static void test_flush_error(void **state)
{
	const struct fdb_filter f = { .ifindex = IFINDEX(2), .vlan = -1, .kind = FDB_KIND_ANY };

	mock_fail(MOCK_OP_DELETE_ELEM, 10, EPERM);
	assert_int_equal(ctl_fdb_flush(&m, &f), -EPERM);
	assert_int_equal(mock_map_len(m.fdb), NPORTS * PER_PORT - 10);
	assert_int_equal(flushed_total(), 10);
	/* the same flush again finishes the job */
	assert_int_equal(ctl_fdb_flush(&m, &f), PER_PORT - 10);
}

/* A flush of three ports in steps (the daemon's topology change flushes):
 * one walk of the table however many steps, each step looking at no more
 * than its budget (a batch more at worst), the three ports' dynamic
 * entries gone and told to the hook, their learned counts down, the rest
 * and the static entries untouched. */
static void test_flush_steps_one_walk(void **state)
{
	const uint32_t slots[] = { 3, 7, 40 };
	const size_t table = NPORTS * PER_PORT, dynamic = PER_PORT - PER_PORT / 10;
	struct fdb_flush_walk w = { 0 };
	size_t read0 = mock_entries_read(m.fdb), read;
	unsigned int walks0 = mock_walks(m.fdb), steps = 0;
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(slots); i++)
		slot_set_add(&w.slots, slots[i]);
	hook_calls = 0;
	ctl_set_delete_hook(count_deleted, NULL);
	do {
		read = mock_entries_read(m.fdb);
		ret = ctl_fdb_flush_step(&m, &w, 1000);
		assert_true(ret >= 0);
		assert_true(mock_entries_read(m.fdb) - read <= 1000 + FDB_BATCH);
		steps++;
	} while (!ret);
	ctl_set_delete_hook(NULL, NULL);
	assert_true(steps >= table / (1000 + FDB_BATCH));
	assert_int_equal(mock_walks(m.fdb) - walks0, 1);
	assert_int_equal(mock_entries_read(m.fdb) - read0, table);
	assert_int_equal(w.deleted, 3 * dynamic);
	assert_int_equal(hook_calls, 3 * dynamic);
	assert_int_equal(flushed_total(), 3 * dynamic);
	for (unsigned int i = 0; i < PER_PORT; i++) {
		assert_int_equal(fdb_has(7, i), is_static(i));
		assert_true(fdb_has(6, i) && fdb_has(8, i));
	}
	assert_int_equal(learned_of(40), 0);
	assert_int_equal(learned_of(41), dynamic);
	assert_int_equal(mock_map_len(m.fdb), table - 3 * dynamic);
	assert_int_equal(w.cursor, 0);
}

static uint32_t flush_asked;

static void note_flush(uint32_t slot, void *arg)
{
	flush_asked = slot;
}

/* With a port flush hook (the daemon's), a port going down is not flushed
 * at once: its slot goes to the hook. */
static void test_port_down_flush_hook(void **state)
{
	struct xdpbr_port p;
	unsigned int walks0 = mock_walks(m.fdb);

	assert_int_equal(ctl_port_get(&m, IFINDEX(5), &p), 0);
	p.flags |= XDPBR_PORT_DOWN;
	flush_asked = 0;
	ctl_set_port_flush_hook(note_flush, NULL);
	assert_int_equal(ctl_port_apply(&m, IFINDEX(5), &p, -1), 0);
	ctl_set_port_flush_hook(NULL, NULL);
	assert_int_equal(flush_asked, 5);
	assert_int_equal(mock_walks(m.fdb), walks0);
	assert_true(fdb_has(5, 0));
}

/* ---- the ageing sweep and the learned counts */

#define NOW	(1000 * XDPBR_NSEC_PER_SEC)	/* ageing time: 300 s (maps_make) */

static struct fdb_entry sweep_entry(unsigned int i, __u8 kind, __u64 last_seen)
{
	struct fdb_entry e = {
		.key.mac = { 0x02, kind, (__u8)(i >> 16), (__u8)(i >> 8), (__u8)i, 0x01 },
		.val = { .ifindex = IFINDEX(1), .slot = 1, .last_seen = last_seen },
	};

	return e;
}

/* Slot 1's side of the learned counts, and the bridge's. */
static void counts_set(int fd, __u64 n)
{
	__u32 one = 1, total = XDPBR_LEARNED_TOTAL;

	assert_int_equal(mock_map_update(fd, &one, &n), 0);
	assert_int_equal(mock_map_update(fd, &total, &n), 0);
}

/* One port (slot 1) with `stale` entries older than the ageing time,
 * first in the table, then `fresh` ones; the datapath counted them all. */
static void sweep_setup(unsigned int stale, unsigned int fresh)
{
	mock_bpf_reset();
	maps_make();
	for (unsigned int i = 0; i < stale + fresh; i++) {
		struct fdb_entry e = sweep_entry(i, 1, i < stale ? 1 : NOW);

		assert_int_equal(mock_map_update(m.fdb, &e.key, &e.val), 0);
	}
	counts_set(m.learned, stale + fresh);
}

static int age_to_end(struct fdb_sweep *sw, uint32_t budget)
{
	int ret, steps = 0;

	while (!(ret = ctl_fdb_age(&m, NOW, budget, sw)))
		steps++;
	assert_int_equal(ret, 1);
	return steps + 1;
}

/*
 * The datapath learns while a pass runs, into buckets the pass has already
 * read: the counts must still say what the table holds. (A pass used to
 * end by writing the counts it had taken, here 7000 for 10000 entries, and
 * a flood went on learning past the limit by the difference.)
 */
static void test_age_pass_while_the_datapath_learns(void **state)
{
	struct fdb_sweep sw = { 0 };

	sweep_setup(3000, 7000);
	assert_int_equal(ctl_fdb_age(&m, NOW, 4096, &sw), 0);	/* 3000 aged */
	assert_int_equal(learned_of(XDPBR_LEARNED_TOTAL), 7000);
	/* 3000 new MACs, in the slots the aged entries left: behind the pass */
	for (unsigned int i = 0; i < 3000; i++) {
		struct fdb_entry e = sweep_entry(i, 2, NOW);

		assert_int_equal(mock_map_update(m.fdb, &e.key, &e.val), 0);
	}
	counts_set(m.learned, 13000);
	age_to_end(&sw, 4096);
	assert_int_equal(sw.aged, 3000);
	assert_int_equal(sw.counts[XDPBR_LEARNED_TOTAL], 7000);	/* what it saw */
	assert_false(sw.repaired);
	assert_int_equal(mock_map_len(m.fdb), 10000);
	assert_int_equal(learned_of(1), 10000);
	assert_int_equal(learned_of(XDPBR_LEARNED_TOTAL), 10000);
}

/* A pass during which nothing else changed the table mends a drift (a
 * user-space change lost in a race): the counts become what it counted. */
static void test_age_quiet_pass_mends_a_drift(void **state)
{
	struct fdb_sweep sw = { 0 };

	sweep_setup(0, 5000);
	counts_set(m.learned_user, 7);
	assert_int_equal(learned_of(XDPBR_LEARNED_TOTAL), 5007);
	assert_true(age_to_end(&sw, 2048) >= 2);	/* a pass of several steps */
	assert_true(sw.repaired);
	assert_int_equal(learned_of(1), 5000);
	assert_int_equal(learned_of(XDPBR_LEARNED_TOTAL), 5000);
	/* the next quiet pass has nothing to mend */
	age_to_end(&sw, 2048);
	assert_false(sw.repaired);
	assert_int_equal(learned_of(XDPBR_LEARNED_TOTAL), 5000);
}

/* A CLI flush of one stale entry between the pass's read and its delete:
 * the entry, and counting it out, are the flush's. */
static void cli_deletes_entry_10(void *arg)
{
	struct fdb_entry gone = sweep_entry(10, 1, 1);

	assert_int_equal(mock_map_delete(m.fdb, &gone.key), 0);
	counts_set(m.learned_user, (__u64)-1);
}

/* What a pass ages out leaves the counts as it goes, and only what it
 * deleted itself. */
static void test_age_counts_out_what_it_deletes(void **state)
{
	struct fdb_sweep sw = { 0 };

	sweep_setup(2000, 6000);
	mock_hook(MOCK_OP_DELETE_BATCH, 1, cli_deletes_entry_10, NULL);
	assert_int_equal(ctl_fdb_age(&m, NOW, 4096, &sw), 0);	/* the 1st batch */
	assert_int_equal(sw.aged, 1999);
	assert_int_equal(learned_of(XDPBR_LEARNED_TOTAL), 8000 - 1 - 1999);
	age_to_end(&sw, 4096);
	assert_int_equal(sw.aged, 1999);
	assert_int_equal(learned_of(1), 6000);
	assert_int_equal(learned_of(XDPBR_LEARNED_TOTAL), 6000);
}

/* ---- spanning tree ---- */

static __u32 stp_word_of(uint32_t slot)
{
	__u32 w = 0xdead;

	assert_int_equal(bpf_map_lookup_elem(m.stp_port, &slot, &w), 0);
	return w;
}

static void assert_stp(uint32_t slot, enum xdpbr_stp_state want, bool want_edge)
{
	enum xdpbr_stp_state st;
	bool edge;

	assert_int_equal(ctl_port_stp_get(&m, IFINDEX(slot), &st, &edge), 0);
	assert_int_equal(st, want);
	assert_int_equal(edge, want_edge);
}

/* One word per slot, state and edge bit together; only that slot's. */
static void test_stp_set_get(void **state)
{
	enum xdpbr_stp_state st;
	bool edge;

	assert_stp(5, XDPBR_STP_FORWARDING, false);	/* a zeroed map forwards */
	assert_int_equal(ctl_port_stp_set(&m, IFINDEX(5), XDPBR_STP_LEARNING, true), 0);
	assert_int_equal(stp_word_of(5), XDPBR_STP_LEARNING | XDPBR_STP_EDGE);
	assert_stp(5, XDPBR_STP_LEARNING, true);
	assert_int_equal(ctl_port_stp_set(&m, IFINDEX(5), XDPBR_STP_DISCARDING, false), 0);
	assert_int_equal(stp_word_of(5), XDPBR_STP_DISCARDING);
	assert_stp(4, XDPBR_STP_FORWARDING, false);
	assert_stp(6, XDPBR_STP_FORWARDING, false);

	assert_int_equal(ctl_port_stp_set(&m, IFINDEX(5), (enum xdpbr_stp_state)3, false),
			 -EINVAL);
	assert_int_equal(stp_word_of(5), XDPBR_STP_DISCARDING);
	assert_int_equal(ctl_port_stp_set(&m, 99999, XDPBR_STP_FORWARDING, false), -ENODEV);
	assert_int_equal(ctl_port_stp_get(&m, 99999, &st, &edge), -ENODEV);
	/* writing a state touches no FDB entry and no generation */
	assert_int_equal(mock_calls(MOCK_OP_DELETE_ELEM) + mock_calls(MOCK_OP_DELETE_BATCH), 0);
}

/* On: states stay (a restarted daemon disturbs nothing), off: every port
 * forwards again, edges kept; the same value twice changes nothing. */
static void test_stp_enable(void **state)
{
	assert_int_equal(ctl_stp_enabled(&m), 0);
	assert_int_equal(ctl_port_stp_set(&m, IFINDEX(1), XDPBR_STP_DISCARDING, false), 0);
	assert_int_equal(ctl_port_stp_set(&m, IFINDEX(2), XDPBR_STP_LEARNING, true), 0);
	assert_int_equal(ctl_stp_enable(&m, true), 0);
	assert_int_equal(ctl_stp_enabled(&m), 1);
	assert_stp(1, XDPBR_STP_DISCARDING, false);
	assert_stp(2, XDPBR_STP_LEARNING, true);
	assert_int_equal(ctl_stp_enable(&m, true), 0);
	assert_stp(1, XDPBR_STP_DISCARDING, false);

	assert_int_equal(ctl_stp_enable(&m, false), 0);
	assert_int_equal(ctl_stp_enabled(&m), 0);
	assert_stp(1, XDPBR_STP_FORWARDING, false);
	assert_stp(2, XDPBR_STP_FORWARDING, true);
	/* off again: a state set by hand stays */
	assert_int_equal(ctl_port_stp_set(&m, IFINDEX(3), XDPBR_STP_DISCARDING, false), 0);
	assert_int_equal(ctl_stp_enable(&m, false), 0);
	assert_stp(3, XDPBR_STP_DISCARDING, false);
}

/* A port added while STP runs starts discarding; with STP off, forwarding
 * (whatever the slot's last port left). */
static void test_stp_new_slot(void **state)
{
	assert_int_equal(ctl_port_stp_set(&m, IFINDEX(7), XDPBR_STP_DISCARDING, true), 0);
	assert_int_equal(ctl_slot_reset(&m, 7), 0);
	assert_int_equal(stp_word_of(7), XDPBR_STP_FORWARDING);
	assert_int_equal(ctl_stp_enable(&m, true), 0);
	assert_int_equal(ctl_slot_reset(&m, 7), 0);
	assert_int_equal(stp_word_of(7), XDPBR_STP_DISCARDING);
}

/* The heartbeat records now and the timeout; past it, with STP on, the
 * state enforced on a non-edge port (and only there) is discarding. */
static void test_stp_heartbeat(void **state)
{
	struct xdpbr_stp_beat b = { 0 };
	struct xdpbr_port p8, p9;
	enum xdpbr_stp_state st;
	uint64_t t0 = mono_ns(), t1;
	__u32 zero = 0;

	assert_int_equal(ctl_stp_heartbeat(&m, 6 * XDPBR_NSEC_PER_SEC), 0);
	t1 = mono_ns();
	assert_int_equal(ctl_stp_beat_get(&m, &b), 0);
	assert_true(b.beat_ns >= t0 && b.beat_ns <= t1);
	assert_int_equal(b.timeout_ns, 6 * XDPBR_NSEC_PER_SEC);

	assert_int_equal(ctl_port_get(&m, IFINDEX(8), &p8), 0);
	assert_int_equal(ctl_port_get(&m, IFINDEX(9), &p9), 0);
	assert_int_equal(ctl_port_stp_set(&m, IFINDEX(9), XDPBR_STP_FORWARDING, true), 0);
	assert_int_equal(ctl_stp_enable(&m, true), 0);
	assert_int_equal(ctl_port_stp_effective(&m, &p8, &st), 0);
	assert_int_equal(st, XDPBR_STP_FORWARDING);		/* alive */

	b.beat_ns = t0 - 7 * XDPBR_NSEC_PER_SEC;		/* 7 s > 6 s ago */
	assert_int_equal(bpf_map_update_elem(m.stp_beat, &zero, &b, 0), 0);
	assert_int_equal(ctl_port_stp_effective(&m, &p8, &st), 0);
	assert_int_equal(st, XDPBR_STP_DISCARDING);		/* expired, not an edge */
	assert_int_equal(ctl_port_stp_effective(&m, &p9, &st), 0);
	assert_int_equal(st, XDPBR_STP_FORWARDING);		/* an edge */
	assert_stp(8, XDPBR_STP_FORWARDING, false);		/* the word is unchanged */

	assert_int_equal(ctl_stp_enable(&m, false), 0);		/* STP off: no fallback */
	assert_int_equal(ctl_port_stp_effective(&m, &p8, &st), 0);
	assert_int_equal(st, XDPBR_STP_FORWARDING);
	assert_int_equal(ctl_stp_heartbeat(&m, 0), 0);		/* 0: never expires */
	assert_int_equal(ctl_stp_enable(&m, true), 0);
	b.timeout_ns = 0;
	assert_int_equal(bpf_map_update_elem(m.stp_beat, &zero, &b, 0), 0);
	assert_int_equal(ctl_port_stp_effective(&m, &p8, &st), 0);
	assert_int_equal(st, XDPBR_STP_FORWARDING);
}

/* ---------------------------------------------------------- fast flood */

static struct xdpbr_flood_fast flood_fast(void)
{
	struct xdpbr_flood_fast ff;
	__u32 zero = 0;

	memset(&ff, 0xff, sizeof(ff));
	assert_int_equal(bpf_map_lookup_elem(m.flood_fast, &zero, &ff), 0);
	return ff;
}

/* The fast flood's maps (small false) or the slow flood's small ones, by
 * class. */
static const int *class_fds(bool small)
{
	static int fds[2][XDPBR_STORM__MAX];

	fds[small][XDPBR_STORM_BCAST] = small ? m.flood_bc_small : m.flood_bc_fast;
	fds[small][XDPBR_STORM_MCAST] = small ? m.flood_mc_small : m.flood_mc_fast;
	fds[small][XDPBR_STORM_UNKNOWN] = small ? m.flood_uu_small : m.flood_uu_fast;
	return fds[small];
}

static const int *fast_fds(void)
{
	return class_fds(false);
}

static const int *small_fds(void)
{
	return class_fds(true);
}

/* Whether the port in slot is in the class c map of fds. */
static bool in_map(const int *fds, int c, uint32_t slot)
{
	struct bpf_devmap_val v;
	__u32 ifindex = IFINDEX(slot);

	return !bpf_map_lookup_elem(fds[c], &ifindex, &v);
}

static void port_flags_set(uint32_t slot, __u32 clear, __u32 set)
{
	struct xdpbr_port p;

	assert_int_equal(ctl_port_get(&m, IFINDEX(slot), &p), 0);
	p.flags = (p.flags & ~clear) | set;
	assert_int_equal(ctl_port_apply(&m, IFINDEX(slot), &p, -1), 0);
}

#define ALL_SLOTS	(~0ULL << 1)	/* slots 1..63 */

/* Each class's mask is the slots in its fast map, which hold no program;
 * flags and link state take a port out of the classes they concern, and a
 * removed port out of all. The small maps hold the same ports as the fast
 * ones, with the egress program. */
static void test_flood_fast_follows_ports(void **state)
{
	struct xdpbr_flood_fast ff = flood_fast();
	struct bpf_devmap_val v;
	__u32 ifindex = IFINDEX(9);

	assert_int_equal(ff.ready, 1);
	assert_int_equal(ff.small, 1);
	for (int c = 0; c < XDPBR_STORM__MAX; c++) {
		assert_true(ff.mask[c] == ALL_SLOTS);
		assert_int_equal(bpf_map_lookup_elem(fast_fds()[c], &ifindex, &v), 0);
		assert_int_equal(v.ifindex, ifindex);
		assert_int_equal(v.bpf_prog.fd, 0);
		assert_int_equal(bpf_map_lookup_elem(small_fds()[c], &ifindex, &v), 0);
		assert_int_equal(v.ifindex, ifindex);
		assert_int_equal(v.bpf_prog.fd, -1);	/* the egress program bridge_setup gave */
	}
	port_flags_set(5, XDPBR_PORT_BCAST_FLOOD, 0);
	port_flags_set(6, 0, XDPBR_PORT_DOWN);
	port_flags_set(8, XDPBR_PORT_FLOOD, 0);
	assert_int_equal(ctl_port_remove(&m, IFINDEX(7)), 0);
	ff = flood_fast();
	assert_int_equal(ff.ready, 1);
	assert_int_equal(ff.small, 1);
	assert_true(ff.mask[XDPBR_STORM_BCAST] == (ALL_SLOTS & ~(1ULL << 5 | 1ULL << 6 | 1ULL << 7)));
	assert_true(ff.mask[XDPBR_STORM_MCAST] == (ALL_SLOTS & ~(1ULL << 6 | 1ULL << 7)));
	assert_true(ff.mask[XDPBR_STORM_UNKNOWN] == (ALL_SLOTS & ~(1ULL << 6 | 1ULL << 7 | 1ULL << 8)));
	for (uint32_t slot = 1; slot <= NPORTS; slot++)
		for (int c = 0; c < XDPBR_STORM__MAX; c++)
			assert_int_equal(in_map(small_fds(), c, slot), in_map(fast_fds(), c, slot));
	port_flags_set(5, 0, XDPBR_PORT_BCAST_FLOOD);
	assert_true(flood_fast().mask[XDPBR_STORM_BCAST] & 1ULL << 5);
	assert_true(in_map(small_fds(), XDPBR_STORM_BCAST, 5));
}

/* Fast and small maps an upgrade just created are empty while the ports
 * map is full: neither ready until every port has been applied again. */
static void test_flood_fast_ready_after_upgrade(void **state)
{
	const struct xdpbr_flood_fast none = { 0 };
	__u32 zero = 0;

	for (uint32_t slot = 1; slot <= NPORTS; slot++) {
		__u32 ifindex = IFINDEX(slot);

		for (int c = 0; c < XDPBR_STORM__MAX; c++) {
			assert_int_equal(bpf_map_delete_elem(fast_fds()[c], &ifindex), 0);
			assert_int_equal(bpf_map_delete_elem(small_fds()[c], &ifindex), 0);
		}
	}
	assert_int_equal(mock_map_update(m.flood_fast, &zero, &none), 0);
	for (uint32_t slot = 1; slot <= NPORTS; slot++) {
		port_flags_set(slot, 0, 0);
		assert_int_equal(flood_fast().ready, slot == NPORTS);
		assert_int_equal(flood_fast().small, slot == NPORTS);
	}
	assert_true(flood_fast().mask[XDPBR_STORM_BCAST] == ALL_SLOTS);
}

/* A small map that lost a port (an interrupted write) is not used; the
 * fast flood, whose maps are in place, still is. */
static void test_flood_small_checked(void **state)
{
	__u32 ifindex = IFINDEX(4);

	assert_int_equal(bpf_map_delete_elem(m.flood_mc_small, &ifindex), 0);
	assert_int_equal(ctl_port_remove(&m, IFINDEX(9)), 0);	/* a recount */
	assert_int_equal(flood_fast().small, 0);
	assert_int_equal(flood_fast().ready, 1);
	port_flags_set(4, 0, 0);
	assert_int_equal(flood_fast().small, 1);
}

/* An older build's pins have no small maps (maps_open_pinned gives -1):
 * ports are applied all the same, and the small maps are never ready, not
 * even with every port down (none of them to look for). */
static void test_flood_small_missing(void **state)
{
	const int mc_small = m.flood_mc_small;

	m.flood_mc_small = -1;
	for (uint32_t slot = 1; slot <= NPORTS; slot++)
		port_flags_set(slot, 0, XDPBR_PORT_DOWN);
	assert_int_equal(flood_fast().small, 0);
	port_flags_set(3, XDPBR_PORT_DOWN, 0);
	assert_int_equal(flood_fast().small, 0);
	assert_int_equal(flood_fast().ready, 1);
	assert_true(in_map(small_fds(), XDPBR_STORM_BCAST, 3));
	m.flood_mc_small = mc_small;
}

/* A spanning tree state set by hand (STP off) needs the egress program:
 * not ready while a port is not forwarding (the small maps, which have
 * it, are); STP turned off makes every port forward, and ready again. */
static void test_flood_fast_stp_states(void **state)
{
	assert_int_equal(ctl_port_stp_set(&m, IFINDEX(5), XDPBR_STP_DISCARDING, false), 0);
	assert_int_equal(flood_fast().ready, 0);
	assert_int_equal(flood_fast().small, 1);
	assert_int_equal(ctl_port_stp_set(&m, IFINDEX(5), XDPBR_STP_FORWARDING, true), 0);
	assert_int_equal(flood_fast().ready, 1);
	assert_int_equal(ctl_stp_enable(&m, true), 0);
	assert_int_equal(ctl_port_stp_set(&m, IFINDEX(3), XDPBR_STP_LEARNING, false), 0);
	assert_int_equal(ctl_stp_enable(&m, false), 0);
	assert_int_equal(flood_fast().ready, 1);
}

/* A port in a slot the fast flood does not serve (64 and up) is in the
 * full maps only: the fast and small maps have 64 entries; and neither is
 * ready while it is there. */
static void test_flood_fast_low_slots_only(void **state)
{
	struct xdpbr_port p = { .slot = XDPBR_FLOOD_FAST_SLOTS + 6,
				.flags = XDPBR_PORT_DEFAULT_FLAGS };
	__u32 ifindex = IFINDEX(p.slot);
	struct bpf_devmap_val v;

	assert_int_equal(ctl_port_apply(&m, ifindex, &p, -1), 0);
	for (int c = 0; c < XDPBR_STORM__MAX; c++) {
		assert_int_not_equal(bpf_map_lookup_elem(fast_fds()[c], &ifindex, &v), 0);
		assert_int_not_equal(bpf_map_lookup_elem(small_fds()[c], &ifindex, &v), 0);
	}
	assert_int_equal(bpf_map_lookup_elem(m.flood_bc, &ifindex, &v), 0);
	assert_int_equal(flood_fast().ready, 0);
	assert_int_equal(flood_fast().small, 0);
	assert_int_equal(ctl_port_remove(&m, ifindex), 0);
	assert_int_equal(flood_fast().ready, 1);
	assert_int_equal(flood_fast().small, 1);
}

static __u32 skbports(void)
{
	__u32 zero = 0, n = UINT32_MAX;

	assert_int_equal(bpf_map_lookup_elem(m.skbports, &zero, &n), 0);
	return n;
}

static void port_mode_set(uint32_t slot, __u16 mode)
{
	struct xdpbr_port p;

	assert_int_equal(ctl_port_get(&m, IFINDEX(slot), &p), 0);
	p.mode = mode;
	assert_int_equal(ctl_port_apply(&m, IFINDEX(slot), &p, -1), 0);
}

/* xdpbr_skbports counts the ports the XDP path can't reach: those on the
 * skb path, but the one a redirect reaches (the host interface's,
 * XDPBR_PORT_XDP_TARGET), and those in generic XDP mode; a removed port
 * leaves the count. */
static void test_skbports_count(void **state)
{
	assert_int_equal(skbports(), 0);
	port_mode_set(2, XDPBR_MODE_TC);
	port_mode_set(3, XDPBR_MODE_TC);
	port_mode_set(4, XDPBR_MODE_GENERIC);
	assert_int_equal(skbports(), 3);
	port_flags_set(3, 0, XDPBR_PORT_HOST | XDPBR_PORT_XDP_TARGET);
	assert_int_equal(skbports(), 2);
	port_flags_set(2, 0, XDPBR_PORT_XDP_TARGET);
	assert_int_equal(skbports(), 1);
	assert_int_equal(ctl_port_remove(&m, IFINDEX(4)), 0);
	assert_int_equal(skbports(), 0);
	port_flags_set(3, XDPBR_PORT_XDP_TARGET, 0);
	assert_int_equal(skbports(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_default_pvid_all_ports_one_pass, bridge_setup),
		cmocka_unit_test_setup(test_default_pvid_configured_ports_stay, bridge_setup),
		cmocka_unit_test_setup(test_flush_port_one_pass, bridge_setup),
		cmocka_unit_test_setup(test_flush_vlan_static, bridge_setup),
		cmocka_unit_test_setup(test_port_remove_one_pass, bridge_setup),
		cmocka_unit_test_setup(test_port_remove_resets_its_slot, bridge_setup),
		cmocka_unit_test_setup(test_flush_error, bridge_setup),
		cmocka_unit_test_setup(test_flush_steps_one_walk, bridge_setup),
		cmocka_unit_test_setup(test_port_down_flush_hook, bridge_setup),
		cmocka_unit_test_setup(test_stp_set_get, bridge_setup),
		cmocka_unit_test_setup(test_stp_enable, bridge_setup),
		cmocka_unit_test_setup(test_stp_new_slot, bridge_setup),
		cmocka_unit_test_setup(test_stp_heartbeat, bridge_setup),
		cmocka_unit_test_setup(test_flood_fast_follows_ports, bridge_setup),
		cmocka_unit_test_setup(test_flood_fast_ready_after_upgrade, bridge_setup),
		cmocka_unit_test_setup(test_flood_small_checked, bridge_setup),
		cmocka_unit_test_setup(test_flood_small_missing, bridge_setup),
		cmocka_unit_test_setup(test_flood_fast_stp_states, bridge_setup),
		cmocka_unit_test_setup(test_skbports_count, bridge_setup),
		cmocka_unit_test_setup(test_flood_fast_low_slots_only, bridge_setup),
		cmocka_unit_test(test_age_pass_while_the_datapath_learns),
		cmocka_unit_test(test_age_quiet_pass_mends_a_drift),
		cmocka_unit_test(test_age_counts_out_what_it_deletes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

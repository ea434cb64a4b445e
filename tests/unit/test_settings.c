// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_settings.c - lib/settings.c: the table of the bridge's and the ports'
 * settings is whole and consistent, its checks and writers do what the
 * rows say. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "settings.h"
#include "stpmap.h"
#include "util.h"

/* Every row is there (the table's initializers leave no hole), named,
 * explained, and a row of one scope; names are unique in a scope, as the
 * CLI's words are. */
static void test_rows_whole(void **state)
{
	for (int i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i];

		if (!s->name || !s->help || !s->in)
			fail_msg("row %d: no name, help or reader", i);
		assert_true(s->scope == SETTING_BRIDGE || s->scope == SETTING_PORT);
		assert_int_equal(setting_id_of(s), i);
		assert_ptr_equal(setting_find(s->scope, s->in, s->name), s);
		for (int j = 0; j < i; j++) {
			const struct setting *o = &settings[j];

			if (o->scope == s->scope && (o->in & s->in) && !strcmp(o->name, s->name))
				fail_msg("rows %d and %d: both %s", j, i, s->name);
			if (o->scope == s->scope && s->nl && o->nl == s->nl)
				fail_msg("rows %s and %s: both netlink attribute %u", o->name,
					 s->name, s->nl);
		}
	}
	assert_null(setting_find(SETTING_PORT, SETTING_FILE, "ageing_time"));
	assert_null(setting_find(SETTING_BRIDGE, SETTING_CLI, "fdb_size"));	/* file only */
	assert_null(setting_find(SETTING_PORT, SETTING_FILE, "state"));		/* CLI only */
	assert_non_null(setting_find(SETTING_PORT, SETTING_CLI, "state"));
}

/* A number's range holds its default and its step's multiples; a boolean's
 * default is one of its words; what the CLI takes has a name in its usage. */
static void test_rows_consistent(void **state)
{
	for (int i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i];

		if (s->type == SETTING_NUM) {
			if (s->min > s->max || (s->step > 1 && (s->min % s->step ||
								s->max % s->step)))
				fail_msg("%s: range %llu..%llu, step %llu", s->name,
					 (unsigned long long)s->min,
					 (unsigned long long)s->max,
					 (unsigned long long)s->step);
			if (!s->def_text && setting_check(s, s->def))
				fail_msg("%s: default %llu outside its own rules", s->name,
					 (unsigned long long)s->def);
			if ((s->in & SETTING_CLI) && !s->metavar)
				fail_msg("%s: a number of the CLI without a metavar", s->name);
		} else if (s->type == SETTING_BOOL) {
			assert_true(s->def <= (s->also ? 2 : 1));
		}
		assert_true(!s->also || s->type == SETTING_BOOL);
		assert_true(!s->zero || (s->type == SETTING_NUM && s->min == 0));
	}
}

/* Where a value lives: a field inside the struct of its home, of a width
 * the writers know; flags and requests name their bit. */
static void test_rows_homes(void **state)
{
	static const size_t home_size[] = {
		[SETTING_AT_CONFIG] = sizeof(struct xdpbr_config),
		[SETTING_AT_PORT] = sizeof(struct xdpbr_port),
		[SETTING_AT_STORM] = sizeof(struct xdpbr_storm),
		[SETTING_AT_STP] = sizeof(struct stpmap_req),
	};

	for (int i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i];
		size_t limit = s->home < ARRAY_SIZE(home_size) ? home_size[s->home] : 0;

		if (!limit)
			continue;
		if (!s->size && s->home != SETTING_AT_STP)
			fail_msg("%s: no field in its home", s->name);
		if (s->size && (s->field + s->size > limit ||
				(s->size != 1 && s->size != 2 && s->size != 4 && s->size != 8)))
			fail_msg("%s: field %zu+%zu in a struct of %zu", s->name, s->field,
				 s->size, limit);
		if ((s->home == SETTING_AT_STP && s->size) || s->home == SETTING_AT_STORM)
			assert_true(s->bit && !(s->bit & (s->bit - 1)));
	}
	assert_int_equal(settings[SET_HAIRPIN].bit, XDPBR_PORT_HAIRPIN);
	assert_int_equal(settings[SET_STORM_UNKNOWN].bit, 1U << XDPBR_STORM_UNKNOWN);
}

static void test_check(void **state)
{
	const struct setting *prio = &settings[SET_PRIORITY];
	const struct setting *cache = &settings[SET_FDB_CACHE];

	assert_int_equal(setting_check(prio, 0), 0);
	assert_int_equal(setting_check(prio, 61440), 0);
	assert_int_equal(setting_check(prio, 4097), -EDOM);
	assert_int_equal(setting_check(prio, 65536), -ERANGE);
	assert_int_equal(setting_check(&settings[SET_HELLO_TIME], 0), -ERANGE);
	assert_int_equal(setting_check(&settings[SET_HELLO_TIME], 11), -ERANGE);
	assert_int_equal(setting_check(&settings[SET_MAX_LEARNED], XDPBR_LEARNED_MAX), 0);
	assert_int_equal(setting_check(&settings[SET_MAX_LEARNED], XDPBR_LEARNED_MAX + 1ULL),
			 -ERANGE);
	assert_int_equal(setting_check(cache, 0), 0);
	assert_int_equal(setting_check(cache, 4), 0);
	assert_int_equal(setting_check(cache, 2), -EINVAL);
	assert_int_equal(setting_check(cache, 12), -EINVAL);
	assert_int_equal(setting_check(cache, XDPBR_FDB_CACHE_MAX), 0);
	assert_int_equal(setting_check(cache, 2ULL * XDPBR_FDB_CACHE_MAX), -ERANGE);
}

static void test_texts(void **state)
{
	char buf[64];

	assert_string_equal(setting_range(&settings[SET_AGEING_TIME], buf, sizeof(buf)),
			    "0 (never) .. 1000000");
	assert_string_equal(setting_range(&settings[SET_PRIORITY], buf, sizeof(buf)),
			    "0 .. 61440 in steps of 4096");
	assert_string_equal(setting_range(&settings[SET_HELLO_TIME], buf, sizeof(buf)),
			    "1 .. 10");
	assert_string_equal(setting_range(&settings[SET_STORM_BCAST], buf, sizeof(buf)),
			    "0 (no limit) .. 100000000");
	assert_string_equal(setting_range(&settings[SET_PATH_COST], buf, 8), "0 (from");
	assert_string_equal(setting_default(&settings[SET_AGEING_TIME], buf, sizeof(buf)),
			    "300");
	assert_string_equal(setting_default(&settings[SET_LEARNING], buf, sizeof(buf)), "on");
	assert_string_equal(setting_default(&settings[SET_HAIRPIN], buf, sizeof(buf)), "off");
	assert_string_equal(setting_default(&settings[SET_PORT_XDP_SHARE], buf, sizeof(buf)),
			    "the bridge's");
	assert_null(setting_default(&settings[SET_VLANS], buf, sizeof(buf)));
}

/* The writers: only the rows of the mask, the default where not given,
 * the bits of other flags and the fields of other rows untouched. */
static void test_put(void **state)
{
	struct settings s = { 0 };
	struct xdpbr_port p = { .slot = 3, .flags = XDPBR_PORT_DOWN | XDPBR_PORT_HAIRPIN,
				.pvid = 7, .max_learned = 9 };
	struct xdpbr_config c = { .ageing_ns = 1, .fdb_max_learned = 2, .default_pvid = 5 };
	uint32_t pps[XDPBR_STORM__MAX] = { 1, 2, 3 };

	setting_set(&s, SET_LEARNING, 0);
	setting_set(&s, SET_MAX_LEARNED, 100);
	setting_set(&s, SET_STORM_MCAST, 50);
	settings_port_put(&s, s.given, &p);
	assert_int_equal(p.flags, XDPBR_PORT_DOWN | XDPBR_PORT_HAIRPIN);
	assert_int_equal(p.max_learned, 100);
	assert_int_equal(p.slot, 3);
	assert_int_equal(p.pvid, 7);
	settings_port_put(&s, ~0ULL, &p);	/* the file's: defaults where not given */
	assert_int_equal(p.flags, XDPBR_PORT_DOWN | (XDPBR_PORT_DEFAULT_FLAGS &
						     ~XDPBR_PORT_LEARNING));
	settings_storm_put(&s, s.given, pps);
	assert_true(pps[0] == 1 && pps[1] == 50 && pps[2] == 3);
	settings_storm_put(&s, ~0ULL, pps);
	assert_true(pps[0] == 0 && pps[1] == 50 && pps[2] == 0);

	settings_config_put(&s, s.given, &c);	/* neither given */
	assert_true(c.ageing_ns == 1 && c.fdb_max_learned == 2);
	setting_set(&s, SET_AGEING_TIME, 0);
	setting_set(&s, SET_FDB_MAX_LEARNED, 10);
	settings_config_put(&s, s.given, &c);
	assert_true(c.ageing_ns == XDPBR_AGEING_NEVER && c.fdb_max_learned == 10);
	setting_set(&s, SET_AGEING_TIME, 60);
	settings_config_put(&s, s.given, &c);
	assert_true(c.ageing_ns == 60 * XDPBR_NSEC_PER_SEC && c.default_pvid == 5);
}

/* Same settings: by the value in use for a row with a constant default,
 * by whether and what was given for one without. */
static void test_same(void **state)
{
	struct settings a = { 0 }, b = { 0 };

	setting_set(&a, SET_LEARNING, 1);		/* the default, given */
	assert_true(setting_same(&a, &b, SET_LEARNING));
	assert_true(settings_same(&a, &b, SETTING_PORT, SETTING_AT_PORT));
	setting_set(&b, SET_MAX_LEARNED, 5);
	assert_false(settings_same(&a, &b, SETTING_PORT, SETTING_AT_PORT));
	assert_true(settings_same(&a, &b, SETTING_PORT, SETTING_AT_STORM));
	setting_set(&a, SET_PVID, 0);			/* "none", given */
	assert_false(setting_same(&a, &b, SET_PVID));	/* not the bridge's default */
	setting_set(&b, SET_PVID, 0);
	assert_true(setting_same(&a, &b, SET_PVID));
	b.v[SET_PVID] = 3;
	assert_false(settings_same(&a, &b, SETTING_PORT, SETTING_AT_VLAN));
	assert_true(settings_same(&a, &b, SETTING_BRIDGE, SETTING_AT_VLAN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_whole),
		cmocka_unit_test(test_rows_consistent),
		cmocka_unit_test(test_rows_homes),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_texts),
		cmocka_unit_test(test_put),
		cmocka_unit_test(test_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

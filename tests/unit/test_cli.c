// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_cli.c - daemon/cli.c: the argument grammar of xdpbr. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cli.h"
#include "util.h"

static char err[256];

/* Parses a NULL-terminated word list as argv after the program name.
 * err starts as junk so a success must clear it. */
static int parse_v(struct cli_cmd *cmd, const char *const *words)
{
	char *argv[16];
	int argc = 0;

	argv[argc++] = (char *)"xdpbr";
	while (*words)
		argv[argc++] = (char *)*words++;
	argv[argc] = NULL;
	memset(err, 'J', sizeof(err) - 1);
	err[sizeof(err) - 1] = '\0';
	return cli_parse(argc, argv, cmd, err, sizeof(err));
}
#define PARSE(cmd, ...) parse_v(cmd, (const char *const[]){ __VA_ARGS__, NULL })

/* A successful parse: 0 and no message. */
static void parse_ok(struct cli_cmd *cmd, const char *const *words)
{
	int rc = parse_v(cmd, words);

	if (rc)
		fail_msg("parse failed (%d): %s", rc, err);
	assert_string_equal(err, "");
}
#define OK(cmd, ...) parse_ok(cmd, (const char *const[]){ __VA_ARGS__, NULL })

/* A rejected parse: -EINVAL and a message that names the culprit. */
static void parse_bad(const char *culprit, const char *const *words)
{
	struct cli_cmd cmd;

	assert_int_equal(parse_v(&cmd, words), -EINVAL);
	assert_true(strlen(err) > 0);
	assert_true(err[0] != 'J');		/* really written */
	if (culprit && !strstr(err, culprit))
		fail_msg("message '%s' does not mention '%s'", err, culprit);
}
#define BAD(culprit, ...) parse_bad(culprit, (const char *const[]){ __VA_ARGS__, NULL })

static void assert_defaults(const struct cli_cmd *c)
{
	assert_false(c->json);
	assert_false(c->pretty);
	assert_null(c->bridge);
	assert_null(c->dev);
	assert_int_equal(c->vlan, -1);
}

static void test_no_args_is_help(void **state)
{
	struct cli_cmd c;
	char *argv[] = { (char *)"xdpbr", NULL };

	memset(&c, 0xff, sizeof(c));
	strcpy(err, "junk");
	assert_int_equal(cli_parse(1, argv, &c, err, sizeof(err)), 0);
	assert_int_equal(c.object, OBJ_HELP);
	assert_string_equal(err, "");
	assert_defaults(&c);
}

static void test_objects_and_prefixes(void **state)
{
	static const struct {
		const char *word;
		enum cli_object obj;
	} cases[] = {
		{ "fdb", OBJ_FDB }, { "fd", OBJ_FDB }, { "f", OBJ_FDB },
		{ "link", OBJ_LINK }, { "lin", OBJ_LINK }, { "l", OBJ_LINK },
		{ "stats", OBJ_STATS }, { "st", OBJ_STATS }, { "s", OBJ_STATS },
	};
	struct cli_cmd c;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&c, 0xff, sizeof(c));
		OK(&c, cases[i].word);
		if (c.object != cases[i].obj)
			fail_msg("'%s' parsed as object %d, want %d", cases[i].word,
				 c.object, cases[i].obj);
		assert_int_equal(c.verb, VERB_SHOW);	/* the default verb */
		assert_defaults(&c);
	}
}

static void test_unknown_object(void **state)
{
	BAD("fdbx", "fdbx");
	BAD("x", "x");
	BAD("FDB", "FDB");		/* case matters */
	BAD("-", "-");			/* a lone dash is not an option */
	BAD("show", "show");		/* verbs are not objects */
}

static void test_verbs(void **state)
{
	struct cli_cmd c;

	OK(&c, "fdb", "show");
	assert_int_equal(c.object, OBJ_FDB);
	assert_int_equal(c.verb, VERB_SHOW);
	OK(&c, "fdb", "list");
	assert_int_equal(c.verb, VERB_SHOW);
	OK(&c, "link", "li");
	assert_int_equal(c.object, OBJ_LINK);
	assert_int_equal(c.verb, VERB_SHOW);
	OK(&c, "stats", "sh");
	assert_int_equal(c.object, OBJ_STATS);
	assert_int_equal(c.verb, VERB_SHOW);
}

static void test_help(void **state)
{
	static const char *const objects[] = { "fdb", "link", "stats" };
	static const enum cli_object objs[] = { OBJ_FDB, OBJ_LINK, OBJ_STATS };
	struct cli_cmd c;

	OK(&c, "help");
	assert_int_equal(c.object, OBJ_HELP);
	OK(&c, "h");
	assert_int_equal(c.object, OBJ_HELP);
	OK(&c, "-h");
	assert_int_equal(c.object, OBJ_HELP);
	OK(&c, "--help");
	assert_int_equal(c.object, OBJ_HELP);
	OK(&c, "-j", "help");
	assert_int_equal(c.object, OBJ_HELP);
	assert_true(c.json);

	for (size_t i = 0; i < ARRAY_SIZE(objects); i++) {
		OK(&c, objects[i], "help");
		assert_int_equal(c.object, objs[i]);
		assert_int_equal(c.verb, VERB_HELP);
		OK(&c, objects[i], "he");
		assert_int_equal(c.object, objs[i]);
		assert_int_equal(c.verb, VERB_HELP);
	}
}

static void test_unknown_command(void **state)
{
	BAD("frobnicate", "fdb", "frobnicate");
	BAD("fdb", "fdb", "frobnicate");	/* and points at the object's help */
	BAD("link", "link", "add");
	BAD("showx", "stats", "showx");
	BAD("-j", "fdb", "-j");			/* options come before the object */
}

static void test_options(void **state)
{
	struct cli_cmd c;

	OK(&c, "-j", "fdb");
	assert_true(c.json);
	assert_false(c.pretty);
	assert_int_equal(c.object, OBJ_FDB);
	OK(&c, "-json", "fdb");
	assert_true(c.json);
	OK(&c, "--json", "fdb");
	assert_true(c.json);
	OK(&c, "-p", "link");
	assert_true(c.pretty);
	assert_true(c.json);			/* pretty implies json */
	OK(&c, "-b", "br0", "stats");
	assert_non_null(c.bridge);
	assert_string_equal(c.bridge, "br0");
	assert_false(c.json);
	assert_int_equal(c.object, OBJ_STATS);
	OK(&c, "--bridge", "lab_1", "-j", "-p", "fdb", "show");
	assert_string_equal(c.bridge, "lab_1");
	assert_true(c.json);
	assert_true(c.pretty);
	assert_int_equal(c.object, OBJ_FDB);
	assert_int_equal(c.verb, VERB_SHOW);
}

static void test_options_without_object(void **state)
{
	struct cli_cmd c;

	OK(&c, "-j");
	assert_int_equal(c.object, OBJ_HELP);
	assert_true(c.json);
	OK(&c, "-b", "br0");
	assert_int_equal(c.object, OBJ_HELP);
	assert_string_equal(c.bridge, "br0");
}

static void test_bad_options(void **state)
{
	BAD("-x", "-x", "fdb");
	BAD("--frob", "--frob", "fdb");
	BAD("--", "--", "fdb");
	BAD("-jx", "-jx", "fdb");
	BAD("-b", "-b");			/* missing name */
	BAD("../x", "-b", "../x", "fdb");
	BAD("a/b", "-b", "a/b", "fdb");
	BAD("abcdefghijklmnop", "-b", "abcdefghijklmnop", "fdb");
	BAD("''", "-b", "", "fdb");
}

static void test_dev(void **state)
{
	struct cli_cmd c;

	OK(&c, "fdb", "dev", "eth0");
	assert_int_equal(c.object, OBJ_FDB);
	assert_int_equal(c.verb, VERB_SHOW);	/* dev right after the object */
	assert_string_equal(c.dev, "eth0");
	assert_int_equal(c.vlan, -1);
	OK(&c, "link", "show", "dev", "veth-a");
	assert_int_equal(c.object, OBJ_LINK);
	assert_string_equal(c.dev, "veth-a");
	OK(&c, "stats", "dev", "abcdefghijklmno");	/* 15: IFNAMSIZ - 1 */
	assert_string_equal(c.dev, "abcdefghijklmno");

	BAD("dev", "fdb", "dev");
	BAD("abcdefghijklmnop", "stats", "dev", "abcdefghijklmnop");
}

static void test_vlan(void **state)
{
	struct cli_cmd c;

	OK(&c, "fdb", "vlan", "10");
	assert_int_equal(c.vlan, 10);
	assert_null(c.dev);
	OK(&c, "fdb", "vlan", "0");
	assert_int_equal(c.vlan, 0);
	OK(&c, "fdb", "vlan", "4094");
	assert_int_equal(c.vlan, 4094);
	OK(&c, "fdb", "show", "dev", "eth1", "vlan", "7");
	assert_string_equal(c.dev, "eth1");
	assert_int_equal(c.vlan, 7);
	OK(&c, "f", "vlan", "7", "dev", "eth1");
	assert_string_equal(c.dev, "eth1");
	assert_int_equal(c.vlan, 7);

	BAD("vlan", "fdb", "vlan");
	BAD("4095", "fdb", "vlan", "4095");
	BAD("abc", "fdb", "vlan", "abc");
	BAD("-1", "fdb", "vlan", "-1");
	BAD("10x", "fdb", "vlan", "10x");
	BAD("99999999999999999999", "fdb", "vlan", "99999999999999999999");
}

static void test_vlan_only_for_fdb(void **state)
{
	BAD("vlan", "link", "vlan", "10");
	BAD("vlan", "stats", "show", "vlan", "10");
}

static void test_unexpected_argument(void **state)
{
	BAD("extra", "fdb", "show", "extra");
	BAD("show", "fdb", "show", "show");
	BAD("eth0", "link", "dev", "eth0", "eth0");
}

static void test_error_truncated(void **state)
{
	char want[8];
	char *argv[] = { (char *)"xdpbr", (char *)"frobnicate", NULL };
	struct cli_cmd c;
	struct {
		char buf[8];
		char guard[8];
	} e;

	memset(&e, 'G', sizeof(e));
	assert_int_equal(cli_parse(2, argv, &c, e.buf, sizeof(e.buf)), -EINVAL);
	assert_int_equal(strlen(e.buf), sizeof(e.buf) - 1);
	memset(want, 'G', sizeof(want));
	assert_memory_equal(e.guard, want, sizeof(e.guard));	/* no overrun */
}

static void test_usage(void **state)
{
	assert_non_null(strstr(cli_usage(OBJ_NONE), "OBJECT"));
	assert_non_null(strstr(cli_usage(OBJ_HELP), "OBJECT"));
	assert_non_null(strstr(cli_usage(OBJ_FDB), " fdb "));
	assert_non_null(strstr(cli_usage(OBJ_FDB), "vlan"));
	assert_non_null(strstr(cli_usage(OBJ_LINK), " link "));
	assert_null(strstr(cli_usage(OBJ_LINK), "vlan"));
	assert_non_null(strstr(cli_usage(OBJ_STATS), " stats "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_args_is_help),
		cmocka_unit_test(test_objects_and_prefixes),
		cmocka_unit_test(test_unknown_object),
		cmocka_unit_test(test_verbs),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_unknown_command),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_options_without_object),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_dev),
		cmocka_unit_test(test_vlan),
		cmocka_unit_test(test_vlan_only_for_fdb),
		cmocka_unit_test(test_unexpected_argument),
		cmocka_unit_test(test_error_truncated),
		cmocka_unit_test(test_usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_cli.c - cli/cli.c: the argument grammar of xdpbr. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cli.h"
#include "settings.h"
#include "common.h"
#include "util.h"

static char err[256];

/* The settings a command was given, by row (lib/settings.c). */
#define BIT(ID) (1ULL << SET_##ID)
#define V(c, ID) ((c).set.v[SET_##ID])

/* The port flags the settings given turn on (on 1) or off (on 0). */
static uint32_t flags_to(const struct cli_cmd *c, uint64_t on)
{
	uint32_t f = 0;

	for (int i = 0; i < SET__N; i++)
		if (settings[i].home == SETTING_AT_PORT && settings[i].bit &&
		    setting_given(&c->set, (enum setting_id)i) && c->set.v[i] == on)
			f |= settings[i].bit;
	return f;
}
#define FLAGS_SET(c) flags_to(&(c), 1)
#define FLAGS_CLEAR(c) flags_to(&(c), 0)

/* Parses a NULL-terminated word list as argv after the program name.
 * err starts as junk so a success must clear it. */
static int parse_v(struct cli_cmd *cmd, const char *const *words)
{
	char *argv[32];
	int argc = 0;

	argv[argc++] = (char *)"xdpbr";
	while (*words) {
		assert_true(argc < (int)ARRAY_SIZE(argv) - 1);
		argv[argc++] = (char *)*words++;
	}
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
	assert_false(c->help);
	assert_int_equal(c->seen, 0);
	assert_int_equal(c->kind, FDB_KIND_ANY);
	assert_true(c->set.given == 0 && c->set.acted == 0);
	assert_null(c->master);
	assert_int_equal(c->mode, XDPBR_MODE_NONE);
	assert_int_equal(c->rate_s, 0);
	assert_int_equal(c->count, 0);
	assert_int_equal(c->vid_from, 0);
	assert_int_equal(c->vid_to, 0);
	assert_false(c->pvid);
	assert_false(c->untagged);
	for (int i = 0; i < SET__N; i++)
		assert_true(c->set.v[i] == 0);
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
		{ "bridge", OBJ_BRIDGE }, { "br", OBJ_BRIDGE }, { "b", OBJ_BRIDGE },
		{ "monitor", OBJ_MONITOR }, { "mon", OBJ_MONITOR }, { "m", OBJ_MONITOR },
		{ "vlan", OBJ_VLAN }, { "vl", OBJ_VLAN },
		{ "vxlan", OBJ_VXLAN }, { "vx", OBJ_VXLAN },
	};
	struct cli_cmd c;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&c, 0xff, sizeof(c));
		OK(&c, cases[i].word);
		if (c.object != cases[i].obj)
			fail_msg("'%s' parsed as object %d, want %d", cases[i].word,
				 c.object, cases[i].obj);
		/* the default command: show, but monitor's is fdb */
		assert_int_equal(c.verb, cases[i].obj == OBJ_MONITOR ? VERB_FDB : VERB_SHOW);
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
	BAD("ambiguous object 'v' (vlan, vxlan)", "v");
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
	/* `fdb` is a command of monitor only: "f" for fdb is still flush */
	OK(&c, "fdb", "f");
	assert_int_equal(c.verb, VERB_FLUSH);
	BAD("fdb", "fdb", "fdb");
	BAD("fdb", "stats", "fdb");
}

static void test_help(void **state)
{
	static const char *const objects[] = { "fdb", "link", "stats", "bridge", "monitor",
					       "vlan" };
	static const enum cli_object objs[] = { OBJ_FDB, OBJ_LINK, OBJ_STATS, OBJ_BRIDGE,
						OBJ_MONITOR, OBJ_VLAN };
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
		assert_false(c.help);
	}
}

/* -V, -Version and --version (iproute2's and GNU's spellings): the
 * version, whatever follows. */
static void test_version(void **state)
{
	static const char *const spellings[] = { "-V", "-Version", "--version", "-Ver" };
	struct cli_cmd c;

	for (size_t i = 0; i < ARRAY_SIZE(spellings); i++) {
		OK(&c, spellings[i]);
		assert_int_equal(c.object, OBJ_VERSION);
	}
	OK(&c, "-j", "-V", "fdb", "frobnicate");
	assert_int_equal(c.object, OBJ_VERSION);
	BAD("-Vx", "-Vx");
	BAD("version", "version");		/* an option, not an object */
}

static void test_unknown_command(void **state)
{
	BAD("frobnicate", "fdb", "frobnicate");
	BAD("fdb", "fdb", "frobnicate");	/* and points at the object's help */
	BAD("link", "link", "frob");
	BAD("set", "fdb", "set");		/* a command of another object */
	BAD("flush", "link", "flush");
	BAD("add", "stats", "add");
	BAD("flush", "bridge", "flush");
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

/* ------------------------------------------------------------ bridge */

static void test_bridge_show(void **state)
{
	struct cli_cmd c;

	OK(&c, "bridge");
	assert_int_equal(c.object, OBJ_BRIDGE);
	assert_int_equal(c.verb, VERB_SHOW);
	assert_defaults(&c);
	OK(&c, "-j", "b", "sh");
	assert_int_equal(c.object, OBJ_BRIDGE);
	assert_int_equal(c.verb, VERB_SHOW);
	assert_true(c.json);

	BAD("dev", "bridge", "show", "dev", "eth0");	/* takes no arguments */
	BAD("s", "bridge", "s");			/* show or set */
}

static void test_bridge_set(void **state)
{
	struct cli_cmd c;

	OK(&c, "bridge", "set", "ageing_time", "300");
	assert_int_equal(c.object, OBJ_BRIDGE);
	assert_int_equal(c.verb, VERB_SET);
	assert_int_equal(c.seen, KW_BRIDGE_SET);
	assert_true(c.set.given == BIT(AGEING_TIME));
	assert_true(V(c, AGEING_TIME) == 300);

	OK(&c, "bridge", "set", "ageing_time", "0");	/* 0: never age */
	assert_true(c.set.given == BIT(AGEING_TIME) && V(c, AGEING_TIME) == 0);
	OK(&c, "bridge", "set", "ageing_time", "1000000");
	assert_true(V(c, AGEING_TIME) == 1000000);

	OK(&c, "br", "se", "fdb_max_learned", "1000");
	assert_true(c.set.given == BIT(FDB_MAX_LEARNED));
	assert_int_equal(V(c, FDB_MAX_LEARNED), 1000);

	OK(&c, "bridge", "set", "fdb", "0", "ag", "5");	/* prefixes, 0 = no limit */
	assert_true(c.set.given == (BIT(AGEING_TIME) | BIT(FDB_MAX_LEARNED)));
	assert_int_equal(V(c, FDB_MAX_LEARNED), 0);
	assert_true(V(c, AGEING_TIME) == 5);
	OK(&c, "bridge", "set", "fdb_max_learned", "67108864");	/* XDPBR_LEARNED_MAX */
	assert_int_equal(V(c, FDB_MAX_LEARNED), 67108864);

	BAD("ageing_time", "bridge", "set");		/* nothing to set */
	BAD("ageing_time", "bridge", "set", "ageing_time");
	BAD("1000001", "bridge", "set", "ageing_time", "1000001");
	BAD("-1", "bridge", "set", "ageing_time", "-1");
	BAD("5s", "bridge", "set", "ageing_time", "5s");
	BAD("67108865", "bridge", "set", "fdb_max_learned", "67108865");
	BAD("4294967296", "bridge", "set", "fdb_max_learned", "4294967296");
	BAD("many", "bridge", "set", "fdb_max_learned", "many");
	BAD("ageing_time", "bridge", "set", "ageing_time", "1", "ageing_time", "2");
	BAD("fdb_max_learned", "bridge", "set", "fdb_max_learned", "1", "f", "2");
	BAD("learning", "bridge", "set", "learning", "on");
}

static void test_bridge_set_vlan(void **state)
{
	struct cli_cmd c;

	OK(&c, "bridge", "set", "vlan_filtering", "on");
	assert_int_equal(c.verb, VERB_SET);
	assert_true(c.set.given == BIT(VLAN_FILTERING));
	assert_true(V(c, VLAN_FILTERING));
	OK(&c, "bridge", "set", "vlan_filtering", "off");
	assert_true(c.set.given == BIT(VLAN_FILTERING));
	assert_false(V(c, VLAN_FILTERING));

	OK(&c, "bridge", "set", "default_pvid", "10");
	assert_true(c.set.given == BIT(DEFAULT_PVID));
	assert_int_equal(V(c, DEFAULT_PVID), 10);
	OK(&c, "bridge", "set", "default_pvid", "0");		/* none */
	assert_true(c.set.given == BIT(DEFAULT_PVID));
	assert_int_equal(V(c, DEFAULT_PVID), 0);
	OK(&c, "bridge", "set", "default_pvid", "4094");
	assert_int_equal(V(c, DEFAULT_PVID), 4094);

	/* with the other knobs, in any order, abbreviated */
	OK(&c, "b", "se", "d", "20", "v", "on", "ag", "60", "fdb", "5");
	assert_true(c.set.given == (BIT(DEFAULT_PVID) | BIT(VLAN_FILTERING) | BIT(AGEING_TIME) |
				    BIT(FDB_MAX_LEARNED)));
	assert_int_equal(V(c, DEFAULT_PVID), 20);
	assert_true(V(c, VLAN_FILTERING));
	assert_true(V(c, AGEING_TIME) == 60);
	assert_int_equal(V(c, FDB_MAX_LEARNED), 5);
	OK(&c, "-b", "br0", "bridge", "set", "vlan_f", "off", "default_p", "1");
	assert_false(V(c, VLAN_FILTERING));
	assert_int_equal(V(c, DEFAULT_PVID), 1);

	BAD("vlan_filtering", "bridge", "set", "vlan_filtering");
	BAD("yes", "bridge", "set", "vlan_filtering", "yes");
	BAD("1", "bridge", "set", "vlan_filtering", "1");	/* on|off, not ip's 1|0 */
	BAD("ON", "bridge", "set", "vlan_filtering", "ON");
	BAD("vlan_filtering", "bridge", "set", "vlan_filtering", "on",
	    "vlan_filtering", "off");
	BAD("default_pvid", "bridge", "set", "default_pvid");
	BAD("4095", "bridge", "set", "default_pvid", "4095");
	BAD("-1", "bridge", "set", "default_pvid", "-1");
	BAD("ten", "bridge", "set", "default_pvid", "ten");
	BAD("10-20", "bridge", "set", "default_pvid", "10-20");
	BAD("default_pvid", "bridge", "set", "default_pvid", "1", "default_pvid", "2");
	BAD("vid", "bridge", "set", "vid", "10");		/* a vlan keyword */
	BAD("pvid", "bridge", "set", "pvid");
	/* the message lists every knob */
	BAD("vlan_filtering", "bridge", "set");
	BAD("default_pvid", "bridge", "set");
}

/* ------------------------------------------------------------ link */

static void test_link_set(void **state)
{
	struct cli_cmd c;

	OK(&c, "link", "set", "dev", "p1", "learning", "off");
	assert_int_equal(c.object, OBJ_LINK);
	assert_int_equal(c.verb, VERB_SET);
	assert_string_equal(c.dev, "p1");
	assert_int_equal(FLAGS_SET(c), 0);
	assert_int_equal(FLAGS_CLEAR(c), XDPBR_PORT_LEARNING);
	assert_int_equal(c.seen, KW_DEV | KW_PORT_SET);
	assert_true(c.set.given == BIT(LEARNING));

	OK(&c, "link", "set", "dev", "p1", "learning", "on", "flood", "off",
	   "mcast_flood", "on", "bcast_flood", "off", "isolated", "on", "hairpin", "on",
	   "max_learned", "100");
	assert_int_equal(FLAGS_SET(c), XDPBR_PORT_LEARNING | XDPBR_PORT_MCAST_FLOOD |
			 XDPBR_PORT_ISOLATED | XDPBR_PORT_HAIRPIN);
	assert_int_equal(FLAGS_CLEAR(c), XDPBR_PORT_FLOOD | XDPBR_PORT_BCAST_FLOOD);
	assert_true(setting_given(&c.set, SET_MAX_LEARNED));
	assert_int_equal(V(c, MAX_LEARNED), 100);

	/* max_learned alone; 0 lifts the limit */
	OK(&c, "link", "set", "max_learned", "0", "dev", "p2");
	assert_true(setting_given(&c.set, SET_MAX_LEARNED));
	assert_int_equal(V(c, MAX_LEARNED), 0);
	assert_int_equal(FLAGS_SET(c) | FLAGS_CLEAR(c), 0);

	/* prefixes of the command and the keywords */
	OK(&c, "l", "se", "d", "p1", "i", "on", "ha", "off", "mc", "off", "b", "on", "le", "on",
	   "lo", "off");
	assert_int_equal(FLAGS_SET(c), XDPBR_PORT_ISOLATED | XDPBR_PORT_BCAST_FLOOD |
			 XDPBR_PORT_LEARNING);
	assert_int_equal(FLAGS_CLEAR(c), XDPBR_PORT_HAIRPIN | XDPBR_PORT_MCAST_FLOOD |
			 XDPBR_PORT_LOCKED);
	BAD("ambiguous keyword 'l' for 'link set' (learning, locked)",
	    "link", "set", "dev", "p1", "l", "on");
	OK(&c, "link", "set", "dev", "p1", "fl", "on", "max", "7");
	assert_int_equal(FLAGS_SET(c), XDPBR_PORT_FLOOD);
	assert_int_equal(V(c, MAX_LEARNED), 7);

	BAD("dev", "link", "set", "learning", "on");		/* which port? */
	BAD("learning", "link", "set", "dev", "p1");		/* nothing to change */
	BAD("yes", "link", "set", "dev", "p1", "learning", "yes");
	BAD("On", "link", "set", "dev", "p1", "flood", "On");	/* on|off only */
	BAD("1", "link", "set", "dev", "p1", "hairpin", "1");
	BAD("isolated", "link", "set", "dev", "p1", "isolated");
	BAD("dev", "link", "set", "dev");
	BAD("learning", "link", "set", "dev", "p1", "learning", "on", "learning", "off");
	BAD("dev", "link", "set", "dev", "p1", "dev", "p2", "flood", "on");
	BAD("mcast_flood", "link", "set", "dev", "p1", "m", "on");	/* or max_learned */
	BAD("hairpin", "link", "set", "dev", "p1", "h", "on");		/* or help */
	BAD("-5", "link", "set", "dev", "p1", "max_learned", "-5");
	BAD("1e3", "link", "set", "dev", "p1", "max_learned", "1e3");
	BAD("4294967296", "link", "set", "dev", "p1", "max_learned", "4294967296");
	BAD("vlan", "link", "set", "dev", "p1", "vlan", "3");
	BAD("abcdefghijklmnop", "link", "set", "dev", "abcdefghijklmnop", "flood", "on");
	BAD("s", "link", "s");					/* set or show */
}

/* link set state: the kernel bridge's words and bridge(8)'s numbers. */
static void test_link_set_state(void **state)
{
	static const struct {
		const char *word;
		enum xdpbr_stp_state st;
	} words[] = {
		{ "disabled", XDPBR_STP_DISCARDING }, { "0", XDPBR_STP_DISCARDING },
		{ "listening", XDPBR_STP_DISCARDING }, { "1", XDPBR_STP_DISCARDING },
		{ "learning", XDPBR_STP_LEARNING }, { "2", XDPBR_STP_LEARNING },
		{ "forwarding", XDPBR_STP_FORWARDING }, { "3", XDPBR_STP_FORWARDING },
		{ "blocking", XDPBR_STP_DISCARDING }, { "4", XDPBR_STP_DISCARDING },
		{ "fo", XDPBR_STP_FORWARDING }, { "b", XDPBR_STP_DISCARDING },
	};
	struct cli_cmd c;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		OK(&c, "link", "set", "dev", "p1", "state", words[i].word);
		assert_true(c.seen == (KW_DEV | KW_PORT_SET) && c.set.given == BIT(STATE));
		if (V(c, STATE) != words[i].st)
			fail_msg("state %s: %d, want %d", words[i].word, (int)V(c, STATE),
				 (int)words[i].st);
	}
	/* with the other keywords */
	OK(&c, "link", "set", "dev", "p1", "learning", "off", "state", "learning");
	assert_true(c.set.given == (BIT(LEARNING) | BIT(STATE)));
	assert_int_equal(V(c, STATE), XDPBR_STP_LEARNING);
	assert_int_equal(FLAGS_CLEAR(c), XDPBR_PORT_LEARNING);

	BAD("5", "link", "set", "dev", "p1", "state", "5");
	BAD("l", "link", "set", "dev", "p1", "state", "l");	/* listening or learning */
	BAD("discarding", "link", "set", "dev", "p1", "state", "discarding");
	/* the message lists the words from lib/stpstate.c's table */
	BAD("0 disabled, 1 listening, 2 learning, 3 forwarding, 4 blocking", "link", "set", "dev",
	    "p1", "state", "bogus");
	BAD("-1", "link", "set", "dev", "p1", "state", "-1");
	BAD("state", "link", "set", "dev", "p1", "state");
	BAD("state", "link", "set", "dev", "p1", "state", "0", "state", "3");
}

/* Storm limits after storm, as given; the classes not given are marked so. */
static void assert_storm(const struct cli_cmd *c, long bc, long mc, long uu)
{
	const long want[XDPBR_STORM__MAX] = {
		[XDPBR_STORM_BCAST] = bc, [XDPBR_STORM_MCAST] = mc, [XDPBR_STORM_UNKNOWN] = uu,
	};

	assert_true(c->seen & KW_PORT_SET);
	for (int cls = 0; cls < XDPBR_STORM__MAX; cls++) {
		enum setting_id id = (enum setting_id)(SET_STORM_BCAST + cls);
		bool given = want[cls] >= 0;

		if (setting_given(&c->set, id) != given)
			fail_msg("storm class %d: given %d, want %d", cls,
				 setting_given(&c->set, id), given);
		assert_int_equal(c->set.v[id], given ? (uint32_t)want[cls] : 0);
	}
}
#define NO (-1)		/* assert_storm: the class was not given */

static void test_link_set_storm(void **state)
{
	struct cli_cmd c;

	OK(&c, "link", "set", "dev", "p1", "storm", "bcast", "100");
	assert_int_equal(c.object, OBJ_LINK);
	assert_int_equal(c.verb, VERB_SET);
	assert_string_equal(c.dev, "p1");
	assert_int_equal(c.seen, KW_DEV | KW_PORT_SET);
	assert_int_equal(FLAGS_SET(c) | FLAGS_CLEAR(c), 0);
	assert_storm(&c, 100, NO, NO);

	/* every class, any order; 0 lifts a limit; the edges */
	OK(&c, "link", "set", "dev", "p1", "storm", "unknown", "0", "bcast", "100000000",
	   "mcast", "1");
	assert_storm(&c, 100000000, 1, 0);
	OK(&c, "link", "set", "dev", "p1", "storm", "mcast", "5", "unknown", "7");
	assert_storm(&c, NO, 5, 7);

	/* mixed with the other keywords, before and after */
	OK(&c, "link", "set", "storm", "bcast", "10", "learning", "off", "dev", "p2",
	   "max_learned", "3");
	assert_storm(&c, 10, NO, NO);
	assert_string_equal(c.dev, "p2");
	assert_int_equal(FLAGS_CLEAR(c), XDPBR_PORT_LEARNING);
	assert_int_equal(V(c, MAX_LEARNED), 3);
	assert_true(c.set.given == (BIT(STORM_BCAST) | BIT(LEARNING) | BIT(MAX_LEARNED)));
	OK(&c, "link", "set", "dev", "p1", "bcast_flood", "on", "storm", "mcast", "9",
	   "mcast_flood", "off");
	assert_storm(&c, NO, 9, NO);
	assert_int_equal(FLAGS_SET(c), XDPBR_PORT_BCAST_FLOOD);
	assert_int_equal(FLAGS_CLEAR(c), XDPBR_PORT_MCAST_FLOOD);

	/* prefixes and the long names of the classes */
	OK(&c, "l", "se", "d", "p1", "sto", "b", "1", "m", "2", "u", "3");
	assert_storm(&c, 1, 2, 3);
	OK(&c, "link", "set", "dev", "p1", "storm", "broadcast", "4", "multicast", "5",
	   "unk", "6");
	assert_storm(&c, 4, 5, 6);
	OK(&c, "link", "set", "dev", "p1", "storm", "bc", "010");	/* decimal */
	assert_storm(&c, 10, NO, NO);

	/* storm alone is enough to change something */
	OK(&c, "link", "set", "storm", "unknown", "0", "dev", "p1");
	assert_storm(&c, NO, NO, 0);

	/* at least one class after storm */
	BAD("storm", "link", "set", "dev", "p1", "storm");
	BAD("'learning'", "link", "set", "dev", "p1", "storm", "learning", "on");
	BAD("'100'", "link", "set", "dev", "p1", "storm", "100");
	BAD("'flood'", "link", "set", "dev", "p1", "storm", "flood", "on", "bcast", "1");
	/* a class needs its rate */
	BAD("bcast", "link", "set", "dev", "p1", "storm", "bcast");
	BAD("mcast", "link", "set", "dev", "p1", "storm", "bcast", "1", "mcast");
	/* rates: 0 .. 100000000, decimal digits only */
	BAD("100000001", "link", "set", "dev", "p1", "storm", "bcast", "100000001");
	BAD("4294967296", "link", "set", "dev", "p1", "storm", "mcast", "4294967296");
	BAD("-1", "link", "set", "dev", "p1", "storm", "unknown", "-1");
	BAD("1e3", "link", "set", "dev", "p1", "storm", "bcast", "1e3");
	BAD("100pps", "link", "set", "dev", "p1", "storm", "bcast", "100pps");
	BAD("off", "link", "set", "dev", "p1", "storm", "bcast", "off");
	BAD("''", "link", "set", "dev", "p1", "storm", "bcast", "");
	/* the same class twice, also by another name; storm twice */
	BAD("bcast", "link", "set", "dev", "p1", "storm", "bcast", "1", "bcast", "2");
	BAD("mcast", "link", "set", "dev", "p1", "storm", "mcast", "1", "multicast", "2");
	BAD("storm", "link", "set", "dev", "p1", "storm", "bcast", "1", "learning", "on",
	    "storm", "mcast", "2");
	/* the classes are words of storm only */
	BAD("bcast", "link", "set", "dev", "p1", "bcast", "100");
	BAD("unknown", "link", "set", "dev", "p1", "unknown", "100");
	/* a word after the list that is neither a class nor a keyword */
	BAD("frob", "link", "set", "dev", "p1", "storm", "bcast", "1", "frob");
	/* storm is a link set keyword only */
	BAD("storm", "bridge", "set", "storm", "bcast", "1");
	BAD("storm", "link", "add", "dev", "p1", "master", "br0", "storm", "bcast", "1");
	BAD("storm", "link", "show", "dev", "p1", "storm", "bcast", "1");
}

static void test_link_add(void **state)
{
	struct cli_cmd c;

	OK(&c, "link", "add", "dev", "p3", "master", "br0");
	assert_int_equal(c.object, OBJ_LINK);
	assert_int_equal(c.verb, VERB_ADD);
	assert_string_equal(c.dev, "p3");
	assert_string_equal(c.master, "br0");
	assert_int_equal(c.mode, XDPBR_MODE_NONE);
	assert_int_equal(c.seen, KW_DEV | KW_MASTER);

	OK(&c, "link", "add", "master", "br0", "dev", "p3", "mode", "native");
	assert_int_equal(c.mode, XDPBR_MODE_NATIVE);
	OK(&c, "l", "a", "d", "p3", "mas", "br0", "mo", "generic");
	assert_int_equal(c.mode, XDPBR_MODE_GENERIC);
	OK(&c, "link", "add", "dev", "p3", "master", "br0", "mode", "auto");
	assert_int_equal(c.mode, XDPBR_MODE_NONE);
	assert_true(c.seen & KW_MODE);
	OK(&c, "link", "add", "dev", "p3", "master", "br0", "mode", "g");
	assert_int_equal(c.mode, XDPBR_MODE_GENERIC);
	OK(&c, "-b", "br0", "link", "add", "dev", "p3", "master", "br0");	/* agree */
	assert_string_equal(c.bridge, "br0");

	BAD("master", "link", "add", "dev", "p3");
	BAD("dev", "link", "add", "master", "br0");
	BAD("master", "link", "add", "dev", "p3", "master");
	BAD("a/b", "link", "add", "dev", "p3", "master", "a/b");
	BAD("offload", "link", "add", "dev", "p3", "master", "br0", "mode", "offload");
	BAD("mode", "link", "add", "dev", "p3", "master", "br0", "mode", "native",
	    "mode", "generic");
	BAD("master", "link", "add", "dev", "p3", "master", "br0", "master", "br1");
	BAD("br1", "-b", "br1", "link", "add", "dev", "p3", "master", "br0");
	BAD("learning", "link", "add", "dev", "p3", "master", "br0", "learning", "on");
}

static void test_link_del(void **state)
{
	struct cli_cmd c;

	OK(&c, "link", "del", "dev", "p3");
	assert_int_equal(c.verb, VERB_DEL);
	assert_string_equal(c.dev, "p3");
	OK(&c, "link", "delete", "dev", "p3");
	assert_int_equal(c.verb, VERB_DEL);
	OK(&c, "l", "d", "d", "p3");		/* del and delete are one command */
	assert_int_equal(c.verb, VERB_DEL);

	BAD("dev", "link", "del");
	BAD("p4", "link", "del", "dev", "p3", "p4");
	BAD("master", "link", "del", "dev", "p3", "master", "br0");

	/* a port whose interface is gone, by its slot */
	OK(&c, "link", "del", "slot", "7");
	assert_true(c.seen & KW_SLOT);
	assert_null(c.dev);
	assert_int_equal(c.slot, 7);
	OK(&c, "link", "del", "s", "1024");
	assert_int_equal(c.slot, XDPBR_PORTS_PER_BRIDGE);
	BAD("slot", "link", "del", "slot", "0");	/* slot 0 is no port's */
	BAD("1025", "link", "del", "slot", "1025");
	BAD("x", "link", "del", "slot", "x");
	BAD("slot", "link", "del", "slot");
	BAD("one", "link", "del", "dev", "p3", "slot", "2");
	BAD("slot", "link", "set", "slot", "2", "learning", "off");
}

static void test_link_show(void **state)
{
	struct cli_cmd c;

	OK(&c, "link", "show", "dev", "p1");
	assert_int_equal(c.verb, VERB_SHOW);
	assert_string_equal(c.dev, "p1");
	BAD("learning", "link", "show", "learning", "on");
	BAD("dev", "link", "show", "dev", "p1", "dev", "p2");
}

/* ------------------------------------------------------------ fdb */

static const uint8_t mac1[6] = { 0x02, 0x00, 0x5e, 0x00, 0x53, 0x01 };

static void test_fdb_show_kind(void **state)
{
	struct cli_cmd c;

	OK(&c, "fdb");
	assert_int_equal(c.kind, FDB_KIND_ANY);
	OK(&c, "fdb", "show", "dynamic");
	assert_int_equal(c.kind, FDB_KIND_DYNAMIC);
	assert_int_equal(c.seen, KW_KIND);
	OK(&c, "fdb", "static", "dev", "p1");		/* a keyword right after fdb */
	assert_int_equal(c.verb, VERB_SHOW);
	assert_int_equal(c.kind, FDB_KIND_STATIC);
	assert_string_equal(c.dev, "p1");
	OK(&c, "fdb", "show", "permanent");		/* iproute2's word */
	assert_int_equal(c.kind, FDB_KIND_STATIC);
	OK(&c, "fdb", "show", "dy");
	assert_int_equal(c.kind, FDB_KIND_DYNAMIC);
	OK(&c, "fdb", "show", "st", "vl", "3");
	assert_int_equal(c.kind, FDB_KIND_STATIC);
	assert_int_equal(c.vlan, 3);

	BAD("dynamic", "fdb", "show", "dynamic", "static");
	BAD("static", "fdb", "show", "static", "static");
	BAD("permanent", "fdb", "show", "static", "permanent");	/* the same, twice */
	BAD("d", "fdb", "show", "d", "p1");		/* dev or dynamic */
	BAD("vlan", "fdb", "show", "vlan", "1", "vlan", "2");
}

static void test_fdb_add(void **state)
{
	struct cli_cmd c;

	OK(&c, "fdb", "add", "02:00:5e:00:53:01", "dev", "p1");
	assert_int_equal(c.object, OBJ_FDB);
	assert_int_equal(c.verb, VERB_ADD);
	assert_memory_equal(c.mac, mac1, 6);
	assert_string_equal(c.dev, "p1");
	assert_int_equal(c.vlan, -1);
	assert_int_equal(c.kind, FDB_KIND_STATIC);	/* like `bridge fdb add` */
	assert_int_equal(c.seen, KW_LLADDR | KW_DEV);

	OK(&c, "fdb", "add", "dev", "p1", "02-00-5E-00-53-01", "vlan", "4094", "dynamic");
	assert_memory_equal(c.mac, mac1, 6);
	assert_int_equal(c.vlan, 4094);
	assert_int_equal(c.kind, FDB_KIND_DYNAMIC);
	OK(&c, "f", "a", "02:00:5e:00:53:01", "de", "p1", "s");
	assert_int_equal(c.verb, VERB_ADD);
	assert_int_equal(c.kind, FDB_KIND_STATIC);
	OK(&c, "fdb", "add", "2:0:5e:0:53:1", "dev", "p1");	/* as `bridge` takes it */
	assert_memory_equal(c.mac, mac1, 6);

	BAD("dev", "fdb", "add", "02:00:5e:00:53:01", "d", "p1");	/* or dynamic */
	BAD("LLADDR", "fdb", "add", "dev", "p1");
	BAD("dev", "fdb", "add", "02:00:5e:00:53:01");
	BAD("dev", "fdb", "add", "02:00:5e:00:53:01", "dev");
	BAD("02:00:5e:00:53", "fdb", "add", "02:00:5e:00:53", "dev", "p1");
	BAD("02:00:5e:00:53:0g", "fdb", "add", "02:00:5e:00:53:0g", "dev", "p1");
	BAD("02:00:5e:00:53:01:", "fdb", "add", "02:00:5e:00:53:01:", "dev", "p1");
	BAD("multicast", "fdb", "add", "01:00:5e:00:00:01", "dev", "p1");
	BAD("multicast", "fdb", "add", "ff:ff:ff:ff:ff:ff", "dev", "p1");
	BAD("00:00:00:00:00:00", "fdb", "add", "00:00:00:00:00:00", "dev", "p1");
	BAD("02:00:5e:00:53:02", "fdb", "add", "02:00:5e:00:53:01", "02:00:5e:00:53:02",
	    "dev", "p1");
	BAD("4095", "fdb", "add", "02:00:5e:00:53:01", "dev", "p1", "vlan", "4095");
	BAD("dynamic", "fdb", "add", "02:00:5e:00:53:01", "dev", "p1", "static", "dynamic");
	BAD("dev", "fdb", "add", "02:00:5e:00:53:01", "dev", "p1", "dev", "p2");
	BAD("master", "fdb", "add", "02:00:5e:00:53:01", "dev", "p1", "master", "br0");
}

static void test_fdb_del(void **state)
{
	struct cli_cmd c;

	OK(&c, "fdb", "del", "02:00:5e:00:53:01");
	assert_int_equal(c.verb, VERB_DEL);
	assert_memory_equal(c.mac, mac1, 6);
	assert_null(c.dev);
	assert_int_equal(c.vlan, -1);
	assert_int_equal(c.kind, FDB_KIND_ANY);
	OK(&c, "fdb", "delete", "02:00:5e:00:53:01", "dev", "p1", "vlan", "0");
	assert_string_equal(c.dev, "p1");
	assert_int_equal(c.vlan, 0);
	OK(&c, "fdb", "d", "02:00:5e:00:53:01");		/* not dev: a command */
	assert_int_equal(c.verb, VERB_DEL);

	BAD("LLADDR", "fdb", "del");
	BAD("LLADDR", "fdb", "del", "dev", "p1");
	BAD("zz", "fdb", "del", "zz");
	BAD("static", "fdb", "del", "02:00:5e:00:53:01", "static");
}

static void test_fdb_flush(void **state)
{
	struct cli_cmd c;

	OK(&c, "fdb", "flush");
	assert_int_equal(c.verb, VERB_FLUSH);
	assert_null(c.dev);
	assert_int_equal(c.vlan, -1);
	assert_int_equal(c.kind, FDB_KIND_ANY);
	OK(&c, "fdb", "fl", "dev", "p1", "vlan", "9", "dynamic");
	assert_int_equal(c.verb, VERB_FLUSH);
	assert_string_equal(c.dev, "p1");
	assert_int_equal(c.vlan, 9);
	assert_int_equal(c.kind, FDB_KIND_DYNAMIC);
	OK(&c, "fdb", "f", "static");			/* the only f-command of fdb */
	assert_int_equal(c.verb, VERB_FLUSH);
	assert_int_equal(c.kind, FDB_KIND_STATIC);

	BAD("02:00:5e:00:53:01", "fdb", "flush", "02:00:5e:00:53:01");
	BAD("dev", "fdb", "flush", "dev");
	BAD("dynamic", "fdb", "flush", "static", "dynamic");
}

static void test_stats(void **state)
{
	struct cli_cmd c;

	OK(&c, "stats", "show", "dev", "p1");
	assert_int_equal(c.object, OBJ_STATS);
	assert_string_equal(c.dev, "p1");
	OK(&c, "stats", "d", "p1");			/* show is optional */
	assert_int_equal(c.verb, VERB_SHOW);
	assert_string_equal(c.dev, "p1");
	BAD("set", "stats", "set");
	BAD("dev", "stats", "dev", "p1", "dev", "p2");
}

static void test_stats_rate(void **state)
{
	struct cli_cmd c;

	OK(&c, "stats");
	assert_int_equal(c.rate_s, 0);		/* the counters, not rates */
	assert_int_equal(c.count, 0);
	OK(&c, "stats", "rate", "2");
	assert_int_equal(c.object, OBJ_STATS);
	assert_int_equal(c.verb, VERB_SHOW);
	assert_int_equal(c.rate_s, 2);
	assert_int_equal(c.count, 0);		/* one interval */
	assert_null(c.dev);
	OK(&c, "stats", "show", "dev", "p1", "rate", "1", "count", "3");
	assert_string_equal(c.dev, "p1");
	assert_int_equal(c.rate_s, 1);
	assert_int_equal(c.count, 3);
	OK(&c, "s", "r", "3600", "c", "4294967295", "d", "p2");	/* prefixes, limits */
	assert_int_equal(c.rate_s, CLI_RATE_MAX_S);
	assert_int_equal(c.count, UINT32_MAX);
	assert_string_equal(c.dev, "p2");
	assert_true(c.seen & KW_RATE);
	assert_true(c.seen & KW_COUNT);

	/* the option, iproute2 style: before the object */
	OK(&c, "-r", "5", "stats");
	assert_int_equal(c.rate_s, 5);
	assert_false(c.seen & KW_RATE);
	OK(&c, "-j", "-rate", "1", "-b", "br0", "stats", "dev", "p1", "count", "2");
	assert_true(c.json);
	assert_int_equal(c.rate_s, 1);
	assert_int_equal(c.count, 2);
	assert_string_equal(c.bridge, "br0");
	OK(&c, "--rate", "7", "stats", "show");
	assert_int_equal(c.rate_s, 7);

	BAD("rate", "stats", "rate");			/* no interval */
	BAD("'0'", "stats", "rate", "0");
	BAD("3601", "stats", "rate", "3601");
	BAD("1.5", "stats", "rate", "1.5");
	BAD("-1", "stats", "rate", "-1");
	BAD("abc", "stats", "rate", "abc");
	BAD("rate", "stats", "rate", "1", "rate", "2");
	BAD("count", "stats", "count", "3");		/* count without rate */
	BAD("rate", "stats", "count", "3");		/* ... says what it needs */
	BAD("'0'", "stats", "rate", "1", "count", "0");
	BAD("4294967296", "stats", "rate", "1", "count", "4294967296");
	BAD("count", "stats", "rate", "1", "count");
	BAD("-r", "-r", "1", "stats", "rate", "2");	/* both: give one */
	BAD("-r", "-r", "1", "-r", "2", "stats");
	BAD("-r", "-r");
	BAD("0", "-r", "0", "stats");
	BAD("x", "-r", "x", "stats");
	BAD("stats", "-r", "1", "fdb");			/* for stats only */
	BAD("stats", "-r", "1", "link", "show");
	BAD("'link'", "-r", "1", "l");			/* names the object in full */
	BAD("rate", "fdb", "show", "rate", "1");
	BAD("count", "link", "count", "1");
}

/* ------------------------------------------------------------ vlan */

static void test_vlan_show(void **state)
{
	struct cli_cmd c;

	OK(&c, "vlan");
	assert_int_equal(c.object, OBJ_VLAN);
	assert_int_equal(c.verb, VERB_SHOW);
	assert_defaults(&c);
	OK(&c, "-j", "vlan", "show");
	assert_true(c.json);
	assert_int_equal(c.verb, VERB_SHOW);
	assert_null(c.dev);
	OK(&c, "vlan", "show", "dev", "p1");
	assert_string_equal(c.dev, "p1");
	assert_int_equal(c.seen, KW_DEV);
	OK(&c, "vl", "dev", "p1");			/* show is the default */
	assert_int_equal(c.verb, VERB_SHOW);
	assert_string_equal(c.dev, "p1");
	OK(&c, "vlan", "list");
	assert_int_equal(c.verb, VERB_SHOW);

	BAD("vid", "vlan", "show", "vid", "10");
	BAD("dev", "vlan", "show", "dev");
	BAD("dev", "vlan", "show", "dev", "p1", "dev", "p2");
	BAD("p2", "vlan", "show", "dev", "p1", "p2");
	BAD("set", "vlan", "set");
	BAD("flush", "vlan", "flush");
	BAD("pvid", "vlan", "pvid");			/* not a keyword of show */
}

static void test_vlan_add(void **state)
{
	struct cli_cmd c;

	OK(&c, "vlan", "add", "dev", "p1", "vid", "10");
	assert_int_equal(c.object, OBJ_VLAN);
	assert_int_equal(c.verb, VERB_ADD);
	assert_string_equal(c.dev, "p1");
	assert_int_equal(c.vid_from, 10);
	assert_int_equal(c.vid_to, 10);
	assert_false(c.pvid);
	assert_false(c.untagged);
	assert_int_equal(c.seen, KW_DEV | KW_VID);
	assert_int_equal(c.vlan, -1);			/* not the fdb keyword */

	OK(&c, "vlan", "add", "dev", "p1", "vid", "10", "pvid", "untagged");
	assert_true(c.pvid);
	assert_true(c.untagged);
	assert_int_equal(c.seen, KW_DEV | KW_VID | KW_PVID | KW_UNTAGGED);
	OK(&c, "vlan", "add", "untagged", "vid", "1", "dev", "p1", "pvid");	/* any order */
	assert_true(c.pvid);
	assert_true(c.untagged);
	assert_int_equal(c.vid_from, 1);

	OK(&c, "vlan", "add", "dev", "p1", "vid", "10-20");
	assert_int_equal(c.vid_from, 10);
	assert_int_equal(c.vid_to, 20);
	OK(&c, "vlan", "add", "dev", "p1", "vid", "1-4094", "untagged");
	assert_int_equal(c.vid_from, 1);
	assert_int_equal(c.vid_to, 4094);
	assert_true(c.untagged);
	assert_false(c.pvid);
	OK(&c, "vlan", "add", "dev", "p1", "vid", "4094");
	assert_int_equal(c.vid_from, 4094);
	/* equal ends are one VLAN, which may be the PVID */
	OK(&c, "vlan", "add", "dev", "p1", "vid", "7-7", "pvid");
	assert_int_equal(c.vid_from, 7);
	assert_int_equal(c.vid_to, 7);
	assert_true(c.pvid);
	OK(&c, "vl", "a", "d", "p1", "v", "5", "p", "u");	/* prefixes */
	assert_int_equal(c.verb, VERB_ADD);
	assert_int_equal(c.vid_from, 5);
	assert_true(c.pvid);
	assert_true(c.untagged);
	OK(&c, "-b", "br0", "vlan", "add", "dev", "p1", "vid", "010");	/* decimal */
	assert_int_equal(c.vid_from, 10);

	/* required keywords */
	BAD("vid", "vlan", "add", "dev", "p1");
	BAD("dev", "vlan", "add", "vid", "10");
	BAD("dev", "vlan", "add");
	BAD("vid", "vlan", "add", "dev", "p1", "vid");
	/* VLAN ids: 1..4094 */
	BAD("'0'", "vlan", "add", "dev", "p1", "vid", "0");
	BAD("4095", "vlan", "add", "dev", "p1", "vid", "4095");
	BAD("1-4094", "vlan", "add", "dev", "p1", "vid", "4095");	/* says the limits */
	BAD("65536", "vlan", "add", "dev", "p1", "vid", "65536");
	BAD("ten", "vlan", "add", "dev", "p1", "vid", "ten");
	BAD("10x", "vlan", "add", "dev", "p1", "vid", "10x");
	BAD("''", "vlan", "add", "dev", "p1", "vid", "");
	BAD("+5", "vlan", "add", "dev", "p1", "vid", "+5");
	/* ranges */
	BAD("20-10", "vlan", "add", "dev", "p1", "vid", "20-10");
	BAD("10-20", "vlan", "add", "dev", "p1", "vid", "20-10");	/* suggests the order */
	BAD("0-10", "vlan", "add", "dev", "p1", "vid", "0-10");
	BAD("10-4095", "vlan", "add", "dev", "p1", "vid", "10-4095");
	BAD("10-", "vlan", "add", "dev", "p1", "vid", "10-");
	BAD("-10", "vlan", "add", "dev", "p1", "vid", "-10");
	BAD("-", "vlan", "add", "dev", "p1", "vid", "-");
	BAD("1-2-3", "vlan", "add", "dev", "p1", "vid", "1-2-3");
	BAD("1--2", "vlan", "add", "dev", "p1", "vid", "1--2");
	BAD("a-b", "vlan", "add", "dev", "p1", "vid", "a-b");
	BAD("123456789-10", "vlan", "add", "dev", "p1", "vid", "123456789-10");
	BAD("1,2", "vlan", "add", "dev", "p1", "vid", "1,2");
	/* one PVID per port */
	BAD("10-20", "vlan", "add", "dev", "p1", "vid", "10-20", "pvid");
	BAD("single", "vlan", "add", "dev", "p1", "pvid", "vid", "10-20");
	/* repeats and strangers */
	BAD("pvid", "vlan", "add", "dev", "p1", "vid", "1", "pvid", "pvid");
	BAD("untagged", "vlan", "add", "dev", "p1", "vid", "1", "untagged", "u");
	BAD("vid", "vlan", "add", "dev", "p1", "vid", "1", "vid", "2");
	BAD("dev", "vlan", "add", "dev", "p1", "dev", "p2", "vid", "1");
	BAD("vlan", "vlan", "add", "dev", "p1", "vlan", "1");
	BAD("tagged", "vlan", "add", "dev", "p1", "vid", "1", "tagged");
	BAD("master", "vlan", "add", "dev", "p1", "vid", "1", "master", "br0");
	BAD("abcdefghijklmnop", "vlan", "add", "dev", "abcdefghijklmnop", "vid", "1");
	BAD("stats", "-r", "1", "vlan", "add", "dev", "p1", "vid", "1");
}

static void test_vlan_del(void **state)
{
	struct cli_cmd c;

	OK(&c, "vlan", "del", "dev", "p1", "vid", "10");
	assert_int_equal(c.verb, VERB_DEL);
	assert_string_equal(c.dev, "p1");
	assert_int_equal(c.vid_from, 10);
	assert_int_equal(c.vid_to, 10);
	assert_int_equal(c.seen, KW_DEV | KW_VID);
	OK(&c, "vlan", "delete", "vid", "100-200", "dev", "p1");
	assert_int_equal(c.verb, VERB_DEL);
	assert_int_equal(c.vid_from, 100);
	assert_int_equal(c.vid_to, 200);
	OK(&c, "vl", "d", "d", "p1", "v", "1");
	assert_int_equal(c.verb, VERB_DEL);
	assert_int_equal(c.vid_from, 1);

	BAD("vid", "vlan", "del", "dev", "p1");
	BAD("dev", "vlan", "del", "vid", "1");
	BAD("pvid", "vlan", "del", "dev", "p1", "vid", "1", "pvid");	/* add only */
	BAD("untagged", "vlan", "del", "dev", "p1", "vid", "1", "untagged");
	BAD("'0'", "vlan", "del", "dev", "p1", "vid", "0");
	BAD("4095", "vlan", "del", "dev", "p1", "vid", "4095");
	BAD("9-3", "vlan", "del", "dev", "p1", "vid", "9-3");
	BAD("x", "vlan", "del", "dev", "p1", "vid", "x");
}

/* ------------------------------------------------------------ monitor */

static void test_monitor(void **state)
{
	struct cli_cmd c;

	OK(&c, "monitor");
	assert_int_equal(c.object, OBJ_MONITOR);
	assert_int_equal(c.verb, VERB_FDB);		/* the default, and only, one */
	assert_int_equal(c.count, 0);			/* until interrupted */
	assert_false(c.help);
	OK(&c, "monitor", "fdb");
	assert_int_equal(c.verb, VERB_FDB);
	OK(&c, "mon", "f");
	assert_int_equal(c.object, OBJ_MONITOR);
	assert_int_equal(c.verb, VERB_FDB);
	OK(&c, "monitor", "count", "3");		/* fdb is optional */
	assert_int_equal(c.verb, VERB_FDB);
	assert_int_equal(c.count, 3);
	OK(&c, "-j", "-b", "br0", "monitor", "fdb", "count", "1");
	assert_true(c.json);
	assert_string_equal(c.bridge, "br0");
	assert_int_equal(c.count, 1);
	OK(&c, "m", "c", "4294967295");
	assert_int_equal(c.count, UINT32_MAX);
	OK(&c, "monitor", "help");
	assert_int_equal(c.verb, VERB_HELP);
	OK(&c, "monitor", "fdb", "help");
	assert_true(c.help);
	assert_int_equal(c.verb, VERB_FDB);

	BAD("show", "monitor", "show");			/* not a command of monitor */
	BAD("monitor", "monitor", "link");
	BAD("dev", "monitor", "fdb", "dev", "p1");
	BAD("fdb", "monitor", "fdb", "fdb");
	BAD("'0'", "monitor", "count", "0");
	BAD("count", "monitor", "count");
	BAD("count", "monitor", "count", "1", "count", "2");
	BAD("rate", "monitor", "rate", "1");
	BAD("stats", "-r", "1", "monitor");
}

/* ------------------------------------------------------------ help */

static void test_help_per_command(void **state)
{
	static const struct {
		const char *const words[9];
		enum cli_object obj;
		enum cli_verb verb;
	} cases[] = {
		{ { "fdb", "add", "help" }, OBJ_FDB, VERB_ADD },
		{ { "fdb", "del", "help" }, OBJ_FDB, VERB_DEL },
		{ { "fdb", "flush", "help" }, OBJ_FDB, VERB_FLUSH },
		{ { "fdb", "show", "help" }, OBJ_FDB, VERB_SHOW },
		{ { "link", "set", "help" }, OBJ_LINK, VERB_SET },
		{ { "link", "add", "help" }, OBJ_LINK, VERB_ADD },
		{ { "link", "del", "help" }, OBJ_LINK, VERB_DEL },
		{ { "link", "show", "help" }, OBJ_LINK, VERB_SHOW },
		{ { "vlan", "show", "help" }, OBJ_VLAN, VERB_SHOW },
		{ { "vlan", "add", "help" }, OBJ_VLAN, VERB_ADD },
		{ { "vlan", "del", "help" }, OBJ_VLAN, VERB_DEL },
		{ { "vlan", "add", "dev", "p1", "vid", "10-20", "help" }, OBJ_VLAN, VERB_ADD },
		{ { "bridge", "set", "help" }, OBJ_BRIDGE, VERB_SET },
		{ { "bridge", "show", "help" }, OBJ_BRIDGE, VERB_SHOW },
		{ { "stats", "show", "help" }, OBJ_STATS, VERB_SHOW },
		{ { "stats", "rate", "1", "help" }, OBJ_STATS, VERB_SHOW },
		{ { "monitor", "fdb", "help" }, OBJ_MONITOR, VERB_FDB },
		{ { "monitor", "count", "2", "help" }, OBJ_MONITOR, VERB_FDB },
		{ { "-j", "fdb", "add", "he" }, OBJ_FDB, VERB_ADD },
		/* help after some arguments: they need not be complete */
		{ { "fdb", "add", "02:00:5e:00:53:01", "help" }, OBJ_FDB, VERB_ADD },
		{ { "link", "set", "dev", "p1", "help" }, OBJ_LINK, VERB_SET },
		{ { "link", "set", "dev", "p1", "storm", "help" }, OBJ_LINK, VERB_SET },
		{ { "link", "set", "dev", "p1", "storm", "bcast", "5", "help" }, OBJ_LINK,
		  VERB_SET },
	};
	struct cli_cmd c;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		parse_ok(&c, cases[i].words);
		if (!c.help || c.object != cases[i].obj || c.verb != cases[i].verb)
			fail_msg("case %zu: help %d object %d verb %d", i, c.help,
				 c.object, c.verb);
	}
	/* a word before help must still be valid */
	BAD("zz", "fdb", "add", "zz", "help");
}

static void test_usage(void **state)
{
	static const struct {
		enum cli_object obj;
		enum cli_verb verb;
		const char *has, *lacks;
	} cases[] = {
		{ OBJ_NONE, VERB_HELP, "OBJECT", NULL },
		{ OBJ_HELP, VERB_HELP, "OBJECT", NULL },
		{ OBJ_NONE, VERB_HELP, "bridge", NULL },
		{ OBJ_FDB, VERB_HELP, " fdb add LLADDR", NULL },
		{ OBJ_FDB, VERB_HELP, " fdb flush", NULL },
		{ OBJ_FDB, VERB_HELP, "vlan", NULL },
		{ OBJ_FDB, VERB_ADD, " fdb add LLADDR dev DEV", "flush" },
		{ OBJ_FDB, VERB_DEL, " fdb del LLADDR", " fdb add" },
		{ OBJ_FDB, VERB_FLUSH, " fdb flush", " fdb add" },
		{ OBJ_LINK, VERB_HELP, " link set dev DEV", "vlan" },
		{ OBJ_LINK, VERB_HELP, " link add dev DEV master BRIDGE", NULL },
		{ OBJ_LINK, VERB_SET, "max_learned", " link add" },
		{ OBJ_LINK, VERB_SET, "hairpin", NULL },
		{ OBJ_LINK, VERB_SET, "isolated", NULL },
		{ OBJ_LINK, VERB_SET, "[ storm [ bcast PPS ] [ mcast PPS ] [ unknown PPS ] ]",
		  NULL },
		{ OBJ_LINK, VERB_SET, "100000000", NULL },
		{ OBJ_LINK, VERB_HELP, "storm", NULL },
		{ OBJ_LINK, VERB_ADD, "mode", " link set" },
		{ OBJ_LINK, VERB_DEL, " link del { dev DEV | slot N }", " link set" },
		{ OBJ_BRIDGE, VERB_HELP, " bridge set", NULL },
		{ OBJ_BRIDGE, VERB_SET, "ageing_time", " bridge show" },
		{ OBJ_BRIDGE, VERB_SHOW, " bridge show", " bridge set" },
		{ OBJ_STATS, VERB_HELP, " stats ", NULL },
		{ OBJ_STATS, VERB_SHOW, " stats ", NULL },
		{ OBJ_STATS, VERB_SHOW, "rate SECONDS [ count N ]", NULL },
		{ OBJ_STATS, VERB_SHOW, "-r[ate] SECONDS", NULL },
		{ OBJ_STATS, VERB_HELP, "-r SECONDS", NULL },
		{ OBJ_NONE, VERB_HELP, "monitor", NULL },
		{ OBJ_NONE, VERB_HELP, "-r[ate] SECONDS", NULL },
		{ OBJ_NONE, VERB_HELP, "stats rate SECONDS", NULL },
		{ OBJ_MONITOR, VERB_HELP, " monitor [ fdb ] [ count N ]", " stats" },
		{ OBJ_MONITOR, VERB_FDB, " monitor [ fdb ] [ count N ]", "-r" },
		{ OBJ_MONITOR, VERB_FDB, "xdpbrd", NULL },
		{ OBJ_FDB, VERB_HELP, "-j[son]", "-r" },	/* -r is for stats only */
		{ OBJ_NONE, VERB_HELP, "vlan", NULL },
		{ OBJ_VLAN, VERB_HELP, " vlan show [ dev DEV ]", NULL },
		{ OBJ_VLAN, VERB_HELP, " vlan add dev DEV vid VID[-VID] [ pvid ] [ untagged ]",
		  NULL },
		{ OBJ_VLAN, VERB_HELP, " vlan del dev DEV vid VID[-VID]", NULL },
		{ OBJ_VLAN, VERB_HELP, "vlan_filtering", NULL },
		{ OBJ_VLAN, VERB_ADD, "1 .. 4094", " vlan del" },
		{ OBJ_VLAN, VERB_DEL, " vlan del dev DEV vid", " vlan add" },
		{ OBJ_VLAN, VERB_SHOW, " vlan show", " vlan add" },
		{ OBJ_BRIDGE, VERB_SET, "vlan_filtering { on | off }", NULL },
		{ OBJ_BRIDGE, VERB_SET, "default_pvid VID", NULL },
		{ OBJ_BRIDGE, VERB_HELP, "0 (none)", NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *u = cli_usage(cases[i].obj, cases[i].verb);

		if (strncmp(u, "Usage: ", 7))
			fail_msg("case %zu: usage does not start with 'Usage: '", i);
		if (!strstr(u, cases[i].has))
			fail_msg("case %zu: usage lacks '%s':\n%s", i, cases[i].has, u);
		if (cases[i].lacks && strstr(u, cases[i].lacks))
			fail_msg("case %zu: usage has '%s':\n%s", i, cases[i].lacks, u);
	}
}

static void test_messages_point_to_help(void **state)
{
	BAD("xdpbr fdb add help", "fdb", "add", "dev", "p1");
	BAD("xdpbr link help", "link", "frob");
	BAD("xdpbr help", "frob");
	BAD("xdpbr link set help", "link", "set", "dev", "p1", "frob", "on");
}


/* The one command table dispatches too: every command parses to the
 * function of its object file, and only monitor and bridge add/del run
 * without the maps. */
static void test_dispatch(void **state)
{
	static const struct {
		const char *words[4];
		cli_run_fn *run;
		bool no_maps;
	} cases[] = {
		{ { "bridge" }, do_bridge_show, false },
		{ { "bridge", "set", "ageing_time", "10" }, do_bridge_set, false },
		{ { "bridge", "add", "br0" }, do_bridge_add, true },
		{ { "bridge", "del", "br0" }, do_bridge_del, true },
		{ { "bridge", "add" }, NULL, true },			/* needs NAME */
		{ { "link" }, do_link_show, false },
		{ { "link", "set", "dev", "e0" }, NULL, false },	/* needs a setting */
		{ { "link", "add", "dev", "e0" }, NULL, false },	/* needs master */
		{ { "link", "del", "dev", "e0" }, do_link_del, false },
		{ { "fdb", "show" }, do_fdb_show, false },
		{ { "fdb", "add", "02:00:00:00:00:01" }, NULL, false },	/* needs dev */
		{ { "fdb", "del", "02:00:00:00:00:01" }, do_fdb_del, false },
		{ { "fdb", "flush" }, do_fdb_flush, false },
		{ { "vlan" }, do_vlan_show, false },
		{ { "vlan", "del", "dev", "e0" }, NULL, false },	/* needs vid */
		{ { "stats" }, do_stats, false },
		{ { "monitor" }, do_monitor, true },
		{ { "monitor", "fdb" }, do_monitor, true },
	};
	struct cli_cmd c;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *w[5] = { cases[i].words[0], cases[i].words[1], cases[i].words[2],
				     cases[i].words[3], NULL };

		if (!cases[i].run) {
			assert_int_equal(parse_v(&c, w), -EINVAL);
			continue;
		}
		parse_ok(&c, w);
		assert_ptr_equal(c.run, cases[i].run);
		assert_int_equal(c.no_maps, cases[i].no_maps);
	}
	OK(&c, "link", "set", "dev", "e0", "learning", "off");
	assert_ptr_equal(c.run, do_link_set);
	OK(&c, "link", "add", "dev", "e0", "master", "br0");
	assert_ptr_equal(c.run, do_link_add);
	OK(&c, "fdb", "add", "02:00:00:00:00:01", "dev", "e0");
	assert_ptr_equal(c.run, do_fdb_add);
	OK(&c, "vlan", "add", "dev", "e0", "vid", "5");
	assert_ptr_equal(c.run, do_vlan_add);
	OK(&c, "vlan", "del", "dev", "e0", "vid", "5");
	assert_ptr_equal(c.run, do_vlan_del);
	OK(&c, "help");
	assert_null(c.run);		/* help runs nothing */
}

/* bridge add/del NAME: the name is positional, required, once, valid. */
static void test_bridge_add_del(void **state)
{
	struct cli_cmd c;

	OK(&c, "bridge", "add", "br0");
	assert_int_equal(c.object, OBJ_BRIDGE);
	assert_int_equal(c.verb, VERB_ADD);
	assert_string_equal(c.name, "br0");
	assert_true(c.no_maps);
	OK(&c, "br", "del", "lab-1.x");
	assert_int_equal(c.verb, VERB_DEL);
	assert_string_equal(c.name, "lab-1.x");
	BAD("NAME", "bridge", "add");
	BAD("br1", "bridge", "add", "br0", "br1");
	BAD("bad/name", "bridge", "del", "bad/name");
	BAD("0123456789abcdef", "bridge", "add", "0123456789abcdef");
}

/* The spanning tree's words of bridge set and link set, and stp show. */
static void test_stp_words(void **state)
{
	struct cli_cmd c;

	OK(&c, "bridge", "set", "stp", "on", "priority", "4096", "hello_time", "1",
	   "max_age", "6", "forward_delay", "4");
	assert_true(c.set.given == (BIT(STP) | BIT(PRIORITY) | BIT(HELLO_TIME) | BIT(MAX_AGE) |
				    BIT(FORWARD_DELAY)));
	assert_true(V(c, STP));
	assert_int_equal(V(c, PRIORITY), 4096);
	assert_int_equal(V(c, HELLO_TIME), 1);
	assert_int_equal(V(c, MAX_AGE), 6);
	assert_int_equal(V(c, FORWARD_DELAY), 4);
	OK(&c, "bridge", "set", "stp", "off", "ageing_time", "60");
	assert_true(c.set.given == (BIT(STP) | BIT(AGEING_TIME)));
	assert_false(V(c, STP));
	/* bpdu_guard reset is an action on the guard, no value of it */
	OK(&c, "link", "set", "dev", "eth1", "path_cost", "0", "port_priority", "240",
	   "edge", "auto", "bpdu_guard", "reset", "root_guard", "on");
	assert_true(c.set.given == (BIT(PATH_COST) | BIT(PORT_PRIORITY) | BIT(EDGE) |
				    BIT(ROOT_GUARD)));
	assert_true(c.set.acted == BIT(BPDU_GUARD));
	assert_int_equal(V(c, EDGE), 2);
	assert_true(V(c, ROOT_GUARD));
	OK(&c, "link", "set", "dev", "eth1", "edge", "on", "bpdu_guard", "on");
	assert_int_equal(V(c, EDGE), 1);
	assert_true(V(c, BPDU_GUARD));
	assert_true(c.set.acted == 0);
	/* prefixes of 3 letters at least: shorter ones keep their old words */
	OK(&c, "link", "set", "dev", "eth1", "b", "off");
	assert_true(c.set.given == BIT(BCAST_FLOOD));
	OK(&c, "link", "set", "dev", "eth1", "bpd", "on", "pat", "100");
	assert_true(c.set.given == (BIT(BPDU_GUARD) | BIT(PATH_COST)));
	OK(&c, "bridge", "set", "f", "10");
	assert_true(c.set.given == BIT(FDB_MAX_LEARNED));
	OK(&c, "stats");
	assert_int_equal(c.object, OBJ_STATS);
	OK(&c, "st");
	assert_int_equal(c.object, OBJ_STATS);
	OK(&c, "stp", "show");
	assert_int_equal(c.object, OBJ_STP);
	OK(&c, "-j", "stp");
	assert_int_equal(c.object, OBJ_STP);
	assert_true(c.json);

	BAD("4097", "bridge", "set", "priority", "4097");
	BAD("61441", "bridge", "set", "priority", "61441");
	BAD("11", "bridge", "set", "hello_time", "11");
	BAD("5", "bridge", "set", "max_age", "5");
	BAD("3", "bridge", "set", "forward_delay", "3");
	BAD("maybe", "bridge", "set", "stp", "maybe");
	BAD("100", "link", "set", "dev", "eth1", "port_priority", "100");
	BAD("200000001", "link", "set", "dev", "eth1", "path_cost", "200000001");
	BAD("sometimes", "link", "set", "dev", "eth1", "edge", "sometimes");
	BAD("reset", "link", "set", "dev", "eth1", "root_guard", "reset");
	BAD("edge", "link", "set", "dev", "eth1", "edge", "on", "edge", "off");
	BAD("bpdu_guard", "link", "set", "dev", "eth1", "bpdu_guard", "reset", "bpdu_guard",
	    "on");
	BAD("path_cost", "bridge", "set", "path_cost", "10");	/* a port's word */
	BAD("priority", "link", "set", "dev", "eth1", "priority", "4096");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_args_is_help),
		cmocka_unit_test(test_objects_and_prefixes),
		cmocka_unit_test(test_unknown_object),
		cmocka_unit_test(test_verbs),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_unknown_command),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_options_without_object),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_dev),
		cmocka_unit_test(test_vlan),
		cmocka_unit_test(test_vlan_only_for_fdb),
		cmocka_unit_test(test_unexpected_argument),
		cmocka_unit_test(test_error_truncated),
		cmocka_unit_test(test_bridge_show),
		cmocka_unit_test(test_bridge_set),
		cmocka_unit_test(test_bridge_set_vlan),
		cmocka_unit_test(test_link_set),
		cmocka_unit_test(test_link_set_storm),
		cmocka_unit_test(test_link_set_state),
		cmocka_unit_test(test_link_add),
		cmocka_unit_test(test_link_del),
		cmocka_unit_test(test_link_show),
		cmocka_unit_test(test_fdb_show_kind),
		cmocka_unit_test(test_fdb_add),
		cmocka_unit_test(test_fdb_del),
		cmocka_unit_test(test_fdb_flush),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_stats_rate),
		cmocka_unit_test(test_vlan_show),
		cmocka_unit_test(test_vlan_add),
		cmocka_unit_test(test_vlan_del),
		cmocka_unit_test(test_monitor),
		cmocka_unit_test(test_help_per_command),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_messages_point_to_help),
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_bridge_add_del),
		cmocka_unit_test(test_stp_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_config.c - daemon/config.c: xdpbrd's INI file, values, errors as
 * "file:line: message", and the port comparison the reload diff uses. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "xdpbr.h"
#include "config.h"
#include "ports.h"
#include "settings.h"
#include "util.h"

#define NAME "test.conf"
#define ALL_FLAGS XDPBR_PORT_USER_FLAGS

/* A row's value in use (given, or the default), and whether it was given. */
#define VAL(s, ID) setting_value(&(s), SET_##ID)
#define GIVEN(s, ID) setting_given(&(s), SET_##ID)

static char err[512];

/* A port section's flags, as the daemon writes them into its entry. */
static uint32_t flags_of(const struct config_port *cp)
{
	struct xdpbr_port p = { 0 };

	settings_port_put(&cp->set, ~0ULL, &p);
	return p.flags;
}

/* Parses text as NAME. err and *c start as junk so that a success must clear
 * err and an error must zero *c. */
static int parse(const char *text, struct config *c)
{
	memset(c, 0xa5, sizeof(*c));
	memset(err, 'J', sizeof(err) - 1);
	err[sizeof(err) - 1] = '\0';
	return config_parse_string(NAME, text, c, err, sizeof(err));
}

static void parse_ok(const char *text, struct config *c)
{
	int rc = parse(text, c);

	if (rc)
		fail_msg("parse failed (%d): %s\n--- input ---\n%s", rc, err, text);
	assert_string_equal(err, "");
}

static void assert_zeroed(const struct config *c)
{
	static const struct config zero;

	assert_memory_equal(c, &zero, sizeof(zero));
}

/* A temporary file holding len bytes of text; path receives its name. */
static void write_temp(char *path, size_t pathlen, const char *text, size_t len)
{
	int fd;

	snprintf(path, pathlen, "/tmp/test_config.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/*
 * Whether a VLAN bitmap holds exactly the VLANs of want, "A" or "A-B" items
 * separated by commas, in ascending order ("" = none). Printed when not.
 */
static bool vlans_are(const __u64 *map, const char *want)
{
	__u64 expect[XDPBR_VLAN_WORDS] = { 0 };
	const char *s = want;
	unsigned int from, to;
	int n;

	while (*s) {
		if (sscanf(s, "%u-%u%n", &from, &to, &n) == 2) {
			;
		} else if (sscanf(s, "%u%n", &from, &n) == 1) {
			to = from;
		} else {
			fail_msg("vlans_are: bad list '%s'", want);
		}
		for (unsigned int v = from; v <= to; v++)
			expect[v / 64] |= 1ULL << (v % 64);
		s += n;
		if (*s == ',')
			s++;
	}
	if (!memcmp(map, expect, sizeof(expect)))
		return true;
	fprintf(stderr, "VLANs: got");
	for (unsigned int v = 0; v < XDPBR_VLAN_WORDS * 64; v++)
		if (map[v / 64] >> (v % 64) & 1)
			fprintf(stderr, " %u", v);
	fprintf(stderr, ", want %s\n", want);
	return false;
}

static const uint8_t mac1[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t mac2[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };

static const char example[] =
	"; xdpbrd test configuration\n"				/* 1 */
	"[bridge]\n"						/* 2 */
	"name = br-lab              ; the bridge\n"		/* 3 */
	"ageing_time = 120\n"					/* 4 */
	"fdb_max_learned = 1000\n"				/* 5 */
	"fdb_size = 131072\n"					/* 6 */
	"mode = native\n"					/* 7 */
	"listen = [::1]:9200\n"					/* 8 */
	"\n"							/* 9 */
	"# the uplink\n"					/* 10 */
	"[port eth1]                ; uplink\n"			/* 11 */
	"learning = off\n"					/* 12 */
	"flood = on\n"						/* 13 */
	"mcast_flood = no\n"					/* 14 */
	"bcast_flood = yes\n"					/* 15 */
	"isolated = true\n"					/* 16 */
	"hairpin = 1\n"						/* 17 */
	"max_learned = 50\n"					/* 18 */
	"static = 02:00:00:00:00:01\n"				/* 19 */
	"static = 02:00:00:00:00:02 vlan 10   ; printer\n"	/* 20 */
	"\n"							/* 21 */
	"[port veth-a.10]\n";					/* 22 */

static void check_example(const struct config *c)
{
	const struct config_port *p;

	assert_string_equal(c->name, "br-lab");
	assert_true(GIVEN(c->set, AGEING_TIME));
	assert_int_equal(VAL(c->set, AGEING_TIME), 120);
	assert_int_equal(VAL(c->set, FDB_MAX_LEARNED), 1000);
	assert_int_equal(VAL(c->set, FDB_SIZE), 131072);
	assert_true(GIVEN(c->set, MODE));
	assert_int_equal(VAL(c->set, MODE), XDPBR_MODE_NATIVE);
	assert_string_equal(c->listen, "[::1]:9200");
	assert_int_equal(c->nports, 2);

	p = &c->ports[0];
	assert_string_equal(p->name, "eth1");
	assert_int_equal(p->line, 11);
	assert_int_equal(flags_of(p), XDPBR_PORT_FLOOD | XDPBR_PORT_BCAST_FLOOD |
			 XDPBR_PORT_ISOLATED | XDPBR_PORT_HAIRPIN);
	assert_int_equal(VAL(p->set, MAX_LEARNED), 50);
	assert_int_equal(p->nstatics, 2);
	assert_memory_equal(p->statics[0].mac, mac1, 6);
	assert_int_equal(p->statics[0].vlan, 0);
	assert_int_equal(p->statics[0].line, 19);
	assert_memory_equal(p->statics[1].mac, mac2, 6);
	assert_int_equal(p->statics[1].vlan, 10);
	assert_int_equal(p->statics[1].line, 20);

	p = &c->ports[1];
	assert_string_equal(p->name, "veth-a.10");
	assert_int_equal(p->line, 22);
	assert_int_equal(flags_of(p), XDPBR_PORT_DEFAULT_FLAGS);
	assert_int_equal(VAL(p->set, MAX_LEARNED), 0);
	assert_int_equal(p->nstatics, 0);
	assert_null(p->statics);
}

/* The table and the parser agree: every row the file takes is a key of its
 * section, in no other section, and read into its row. */
static void test_every_row_is_a_key(void **state)
{
	static const char *const text_sample[SET__N] = {
		[SET_NAME] = "br0", [SET_MODE] = "generic", [SET_DATAPATH] = "tc",
		[SET_LISTEN] = "none", [SET_MAC] = "02:00:00:00:00:01",
		[SET_PORT_DATAPATH] = "xdp", [SET_STATIC] = "02:00:00:00:00:01",
		[SET_VLANS] = "10", [SET_UNTAGGED] = "20",
	};
	/* what a row needs beside it in its section */
	static const char *const with[SET__N] = { [SET_BPDU_GUARD] = "edge = on\n" };
	char text[128], value[32];
	struct config c;

	for (int i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i];
		bool port = s->scope == SETTING_PORT;
		const char *v = value;

		if (!(s->in & SETTING_FILE))
			continue;
		if (s->type == SETTING_NUM)
			snprintf(value, sizeof(value), "%llu",	/* the timers' relation holds */
				 (unsigned long long)(s->def_text ? s->min : s->def));
		else if (s->type == SETTING_BOOL)
			v = "on";
		else
			v = text_sample[i];
		if (!v)
			fail_msg("row %s: no sample value in this test", s->name);
		snprintf(text, sizeof(text), "%s\n%s%s = %s\n", port ? "[port eth1]" : "[bridge]",
			 with[i] ? with[i] : "", s->name, v);
		parse_ok(text, &c);
		if (!setting_given(port ? &c.ports[0].set : &c.set, (enum setting_id)i))
			fail_msg("row %s: '%s' parsed, and the row is not given", s->name, text);
		config_free(&c);
		snprintf(text, sizeof(text), "%s\n%s = %s\n", port ? "[bridge]" : "[port eth1]",
			 s->name, v);
		if (!setting_find(port ? SETTING_BRIDGE : SETTING_PORT, SETTING_FILE, s->name))
			assert_int_equal(parse(text, &c), -EINVAL);
	}
}

static void test_full_example(void **state)
{
	struct config c;

	parse_ok(example, &c);
	check_example(&c);
	config_free(&c);
	assert_zeroed(&c);
}

static void test_defaults(void **state)
{
	struct config c;

	parse_ok("[bridge]\n[port eth1]\n", &c);
	assert_string_equal(c.name, "");
	assert_false(GIVEN(c.set, AGEING_TIME));
	assert_int_equal(VAL(c.set, AGEING_TIME), XDPBR_DEFAULT_AGEING_S);
	assert_int_equal(VAL(c.set, FDB_MAX_LEARNED), 0);
	assert_false(GIVEN(c.set, FDB_SIZE));
	assert_int_equal(VAL(c.set, FDB_SIZE), XDPBR_FDB_SIZE);
	assert_false(GIVEN(c.set, MODE));
	assert_int_equal(VAL(c.set, MODE), XDPBR_MODE_NONE);
	assert_string_equal(c.listen, "");
	/* a port section without keys is still a port, with default flags */
	assert_int_equal(c.nports, 1);
	assert_string_equal(c.ports[0].name, "eth1");
	assert_int_equal(c.ports[0].line, 2);
	assert_int_equal(flags_of(&c.ports[0]), XDPBR_PORT_DEFAULT_FLAGS);
	assert_int_equal(VAL(c.ports[0].set, MAX_LEARNED), 0);
	assert_int_equal(c.ports[0].nstatics, 0);
	/* VLANs: nothing set, the bridge default PVID applies */
	assert_false(GIVEN(c.set, VLAN_FILTERING));
	assert_false(VAL(c.set, VLAN_FILTERING));
	assert_false(GIVEN(c.set, DEFAULT_PVID));
	assert_int_equal(VAL(c.set, DEFAULT_PVID), XDPBR_DEFAULT_PVID);
	assert_false(GIVEN(c.ports[0].set, PVID));
	assert_int_equal(VAL(c.ports[0].set, PVID), 0);
	assert_false(config_port_vlans_set(&c.ports[0]));
	assert_true(vlans_are(c.ports[0].vlans, ""));
	assert_true(vlans_are(c.ports[0].untagged, ""));
	/* storm control: no limits */
	for (int cls = 0; cls < XDPBR_STORM__MAX; cls++)
		assert_int_equal(setting_value(&c.ports[0].set, (enum setting_id)(SET_STORM_BCAST + cls)), 0);
	config_free(&c);
}

/* No [bridge] at all: the name comes from the command line. */
static void test_ports_only(void **state)
{
	struct config c;

	parse_ok("[port eth1]\n[port eth2]\nisolated = on\n[port eth3]\n", &c);
	assert_string_equal(c.name, "");
	assert_int_equal(c.nports, 3);
	assert_string_equal(c.ports[0].name, "eth1");
	assert_string_equal(c.ports[1].name, "eth2");
	assert_string_equal(c.ports[2].name, "eth3");
	assert_int_equal(flags_of(&c.ports[1]), XDPBR_PORT_DEFAULT_FLAGS | XDPBR_PORT_ISOLATED);
	assert_int_equal(c.ports[2].line, 4);
	config_free(&c);
}

static void test_empty(void **state)
{
	static const char *const texts[] = {
		"",
		"\n\n\n",
		"; only comments\n# and more comments\n   ; indented\n",
		"\t \n",
	};
	struct config c;

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		parse_ok(texts[i], &c);
		assert_zeroed(&c);
		config_free(&c);
	}
}

static void test_booleans(void **state)
{
	static const struct {
		const char *key;
		uint32_t bit;
	} keys[] = {
		{ "learning", XDPBR_PORT_LEARNING },
		{ "flood", XDPBR_PORT_FLOOD },
		{ "mcast_flood", XDPBR_PORT_MCAST_FLOOD },
		{ "bcast_flood", XDPBR_PORT_BCAST_FLOOD },
		{ "isolated", XDPBR_PORT_ISOLATED },
		{ "hairpin", XDPBR_PORT_HAIRPIN },
		{ "locked", XDPBR_PORT_LOCKED },
	};
	static const char *const on[] = { "on", "yes", "true", "1", "ON", "Yes", "TRUE" };
	static const char *const off[] = { "off", "no", "false", "0", "OFF", "No", "False" };
	char text[128];
	struct config c;

	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		for (size_t i = 0; i < ARRAY_SIZE(on); i++) {
			/* from all flags off, each key sets exactly its bit */
			snprintf(text, sizeof(text), "[port eth1]\n%s = %s\n", keys[k].key, on[i]);
			parse_ok(text, &c);
			assert_int_equal(flags_of(&c.ports[0]) & keys[k].bit, keys[k].bit);
			config_free(&c);
			snprintf(text, sizeof(text), "[port eth1]\n%s = %s\n", keys[k].key, off[i]);
			parse_ok(text, &c);
			assert_int_equal(flags_of(&c.ports[0]),
					 XDPBR_PORT_DEFAULT_FLAGS & ~keys[k].bit);
			config_free(&c);
		}
	}
	/* all on, all off */
	parse_ok("[port a]\nlearning=1\nflood=1\nmcast_flood=1\nbcast_flood=1\n"
		 "isolated=1\nhairpin=1\nlocked=1\n"
		 "[port b]\nlearning=0\nflood=0\nmcast_flood=0\nbcast_flood=0\n"
		 "isolated=0\nhairpin=0\nlocked=0\n", &c);
	assert_int_equal(flags_of(&c.ports[0]), ALL_FLAGS);
	assert_int_equal(flags_of(&c.ports[1]), 0);
	config_free(&c);
}

static void test_modes(void **state)
{
	static const struct {
		const char *word;
		enum xdpbr_mode mode;
	} modes[] = {
		{ "native", XDPBR_MODE_NATIVE }, { "generic", XDPBR_MODE_GENERIC }, { "auto", XDPBR_MODE_NONE },
	};
	char text[64];
	struct config c;

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		snprintf(text, sizeof(text), "[bridge]\nmode = %s\n", modes[i].word);
		parse_ok(text, &c);
		assert_true(GIVEN(c.set, MODE));
		assert_int_equal(VAL(c.set, MODE), modes[i].mode);
		config_free(&c);
	}
}

/* The edges of every numeric range are accepted. */
static void test_number_ranges(void **state)
{
	struct config c;

	parse_ok("[bridge]\nageing_time = 0\nfdb_size = 16\nfdb_max_learned = 0\n"
		 "[port eth1]\nmax_learned = 0\nstatic = 02:00:00:00:00:01 vlan 0\n", &c);
	assert_true(GIVEN(c.set, AGEING_TIME));
	assert_int_equal(VAL(c.set, AGEING_TIME), 0);
	assert_int_equal(VAL(c.set, FDB_SIZE), 16);
	assert_int_equal(c.ports[0].statics[0].vlan, 0);
	config_free(&c);

	parse_ok("[bridge]\nlisten = none\n", &c);
	assert_string_equal(c.listen, "none");
	config_free(&c);

	/* fdb_cache: 0 is "off", not "unset"; the powers of two at the ends */
	parse_ok("[bridge]\nfdb_cache = 0\n", &c);
	assert_true(GIVEN(c.set, FDB_CACHE));
	assert_int_equal(VAL(c.set, FDB_CACHE), 0);
	config_free(&c);
	parse_ok("[bridge]\nfdb_cache = 4\n", &c);
	assert_int_equal(VAL(c.set, FDB_CACHE), 4);
	config_free(&c);
	parse_ok("[bridge]\nfdb_cache = 1048576\n", &c);
	assert_int_equal(VAL(c.set, FDB_CACHE), 1048576);
	config_free(&c);
	parse_ok("[bridge]\n", &c);
	assert_false(GIVEN(c.set, FDB_CACHE));
	config_free(&c);

	parse_ok("[bridge]\nageing_time = 1000000\nfdb_size = 67108864\n"
		 "fdb_max_learned = 67108864\n"
		 "[port eth1]\nmax_learned = 67108864\nstatic = 02:00:00:00:00:01 vlan 4094\n", &c);
	assert_int_equal(VAL(c.set, AGEING_TIME), 1000000);
	assert_int_equal(VAL(c.set, FDB_SIZE), 67108864);
	assert_int_equal(VAL(c.set, FDB_MAX_LEARNED), 67108864);
	assert_int_equal(VAL(c.ports[0].set, MAX_LEARNED), 67108864);
	assert_int_equal(c.ports[0].statics[0].vlan, 4094);
	config_free(&c);
}

static void test_repeated_static(void **state)
{
	static const uint8_t mac3[6] = { 0x0a, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	struct config c;

	parse_ok("[port eth1]\n"
		 "static = 02:00:00:00:00:01\n"
		 "static = 02:00:00:00:00:01 vlan 10\n"	/* same MAC, other VLAN */
		 "static = 0A-BB-CC-DD-EE-FF\tvlan\t4094\n"
		 "learning = off\n"
		 "static = 2:0:0:0:0:2\n"		/* short octets, as `bridge` */
		 "[port eth2]\n"
		 "static = 02:00:00:00:00:01 vlan 11\n", &c);
	assert_int_equal(c.nports, 2);
	assert_int_equal(c.ports[0].nstatics, 4);
	assert_memory_equal(c.ports[0].statics[0].mac, mac1, 6);
	assert_int_equal(c.ports[0].statics[0].vlan, 0);
	assert_int_equal(c.ports[0].statics[0].line, 2);
	assert_memory_equal(c.ports[0].statics[1].mac, mac1, 6);
	assert_int_equal(c.ports[0].statics[1].vlan, 10);
	assert_int_equal(c.ports[0].statics[1].line, 3);
	assert_memory_equal(c.ports[0].statics[2].mac, mac3, 6);
	assert_int_equal(c.ports[0].statics[2].vlan, 4094);
	assert_int_equal(c.ports[0].statics[2].line, 4);
	assert_memory_equal(c.ports[0].statics[3].mac, mac2, 6);
	assert_int_equal(c.ports[0].statics[3].line, 6);
	assert_int_equal(flags_of(&c.ports[0]), XDPBR_PORT_DEFAULT_FLAGS & ~XDPBR_PORT_LEARNING);
	assert_int_equal(c.ports[1].nstatics, 1);
	assert_int_equal(c.ports[1].statics[0].vlan, 11);
	assert_int_equal(c.ports[1].statics[0].line, 8);
	config_free(&c);
}

static void test_comments(void **state)
{
	struct config c;

	parse_ok("# full-line comment\n"
		 "; another\n"
		 "[bridge] ; header comment\n"
		 "name = br0 ; value comment\n"
		 "ageing_time = 60\t; after a tab\n"
		 "listen = 10.0.0.1:80 ; colon in the value, comment after\n"
		 "[port eth1];no space needed after a header\n"
		 "flood = off ;\n"
		 "static = 02:00:00:00:00:01 vlan 7 ; comment\n"
		 "  # indented comment\n", &c);
	assert_string_equal(c.name, "br0");
	assert_int_equal(VAL(c.set, AGEING_TIME), 60);
	assert_string_equal(c.listen, "10.0.0.1:80");
	assert_int_equal(c.nports, 1);
	assert_int_equal(flags_of(&c.ports[0]), XDPBR_PORT_DEFAULT_FLAGS & ~XDPBR_PORT_FLOOD);
	assert_int_equal(c.ports[0].statics[0].vlan, 7);
	config_free(&c);
}

/* inih (INI_ALLOW_MULTILINE) would take an indented line as the value of the
 * previous key: "flood = off" as learning's value, "[port eth2]" as well. */
static void test_indented_lines_stand_alone(void **state)
{
	struct config c;

	parse_ok("[port eth1]\n"
		 "    learning = off\n"
		 "    flood = off\n"
		 "  [port eth2]\n"
		 "\thairpin = on\n", &c);
	assert_int_equal(c.nports, 2);
	assert_int_equal(flags_of(&c.ports[0]), XDPBR_PORT_MCAST_FLOOD | XDPBR_PORT_BCAST_FLOOD);
	assert_string_equal(c.ports[1].name, "eth2");
	assert_int_equal(c.ports[1].line, 4);
	assert_int_equal(flags_of(&c.ports[1]), XDPBR_PORT_DEFAULT_FLAGS | XDPBR_PORT_HAIRPIN);
	config_free(&c);
}

/* Windows line endings, a UTF-8 byte order mark, no final newline. */
static void test_crlf_bom(void **state)
{
	struct config c;

	parse_ok("\xef\xbb\xbf[bridge]\r\nname = br0\r\n[port eth1]\r\nflood = off", &c);
	assert_string_equal(c.name, "br0");
	assert_int_equal(c.nports, 1);
	assert_int_equal(flags_of(&c.ports[0]), XDPBR_PORT_DEFAULT_FLAGS & ~XDPBR_PORT_FLOOD);
	config_free(&c);

	/* line numbers still count from 1 after a BOM and with CRs */
	assert_int_equal(parse("\xef\xbb\xbf[bridge]\r\n\r\nbogus = 1\r\n", &c), -EINVAL);
	assert_string_equal(err, NAME ":3: unknown key 'bogus' in [bridge]");
}

struct error_case {
	const char *text;
	const char *msg;		/* the whole message */
};

static void check_errors(const struct error_case *cases, size_t n)
{
	struct config c;

	for (size_t i = 0; i < n; i++) {
		int rc = parse(cases[i].text, &c);

		if (rc != -EINVAL)
			fail_msg("case %zu: got %d (%s), want -EINVAL\n--- input ---\n%s",
				 i, rc, rc ? err : "no error", cases[i].text);
		if (strcmp(err, cases[i].msg))
			fail_msg("case %zu: message\n  got:  %s\n  want: %s\n--- input ---\n%s",
				 i, err, cases[i].msg, cases[i].text);
		assert_zeroed(&c);
	}
}
#define CHECK_ERRORS(cases) check_errors(cases, ARRAY_SIZE(cases))

static void test_vxlan(void **state)
{
	struct config c;

	parse_ok("[bridge]\nname = br0\n[vxlan]\nvni = 100\nlocal_ip = 198.18.0.1\n", &c);
	assert_int_equal(c.vxlan.line, 3);
	assert_int_equal(c.vxlan.vni, 100);
	assert_int_equal(ntohl(c.vxlan.local_ip.s_addr), 0xc6120001);
	assert_int_equal(c.vxlan.dstport, 4789);
	assert_string_equal(c.vxlan.underlay, "");
	config_free(&c);

	parse_ok("[vxlan]\nunderlay = eth0\ndstport = 8472\nlocal_ip = 10.0.0.1\n"
		 "vni = 16777215\n[port eth1]\n", &c);
	assert_int_equal(c.vxlan.vni, 16777215);
	assert_int_equal(c.vxlan.dstport, 8472);
	assert_string_equal(c.vxlan.underlay, "eth0");
	assert_int_equal(c.nports, 1);
	config_free(&c);

	/* no [vxlan]: no overlay */
	parse_ok("[bridge]\nname = br0\n", &c);
	assert_int_equal(c.vxlan.line, 0);
	config_free(&c);
}

static void test_errors_vxlan(void **state)
{
	static const struct error_case cases[] = {
		{ "[vxlan]\nvni = 100\n", NAME ":1: [vxlan] needs local_ip = A.B.C.D" },
		{ "[bridge]\n[vxlan]\nlocal_ip = 10.0.0.1\n[port eth1]\n",
		  NAME ":2: [vxlan] needs vni = N" },
		{ "[vxlan]\n", NAME ":1: [vxlan] needs vni = N and local_ip = A.B.C.D" },
		{ "[vxlan]\nvni = 0\n", NAME ":2: vni: 0 is out of range (1..16777215)" },
		{ "[vxlan]\nvni = 16777216\n",
		  NAME ":2: vni: 16777216 is out of range (1..16777215)" },
		{ "[vxlan]\nvni = x\n", NAME ":2: vni: 'x' is not a number" },
		{ "[vxlan]\nvni = 1\nlocal_ip = 10.0.0\n",
		  NAME ":3: local_ip: '10.0.0' is not a unicast IPv4 address (the VTEP address, "
		  "like 192.0.2.1)" },
		{ "[vxlan]\nlocal_ip = 239.1.1.1\n",
		  NAME ":2: local_ip: '239.1.1.1' is not a unicast IPv4 address (the VTEP "
		  "address, like 192.0.2.1)" },
		{ "[vxlan]\nlocal_ip = 0.0.0.0\n",
		  NAME ":2: local_ip: '0.0.0.0' is not a unicast IPv4 address (the VTEP "
		  "address, like 192.0.2.1)" },
		{ "[vxlan]\ndstport = 0\n", NAME ":2: dstport: 0 is out of range (1..65535)" },
		{ "[vxlan]\ndstport = 65536\n",
		  NAME ":2: dstport: 65536 is out of range (1..65535)" },
		{ "[vxlan]\nunderlay = a/b\n",
		  NAME ":2: underlay: 'a/b' is not a valid interface name" },
		{ "[vxlan]\nvni = 1\nvni = 2\n",
		  NAME ":3: duplicate key 'vni' in [vxlan] (first on line 2)" },
		{ "[vxlan]\nlearning = on\n", NAME ":2: unknown key 'learning' in [vxlan]" },
		{ "[vxlan]\nvni = 1\nlocal_ip = 10.0.0.1\n[vxlan]\n",
		  NAME ":4: duplicate [vxlan] section (first on line 1)" },
	};

	CHECK_ERRORS(cases);
}

static void test_errors_sections(void **state)
{
	static const struct error_case cases[] = {
		{ "[bridge]\n[global]\n",
		  NAME ":2: unknown section [global] (expected [bridge], [port IFNAME] or [vxlan])" },
		{ "[]\n", NAME ":1: unknown section [] (expected [bridge], [port IFNAME] or [vxlan])" },
		{ "[Bridge]\n", NAME ":1: unknown section [Bridge] (expected [bridge], [port IFNAME] or [vxlan])" },
		{ "[porteth1]\n",
		  NAME ":1: unknown section [porteth1] (expected [bridge], [port IFNAME] or [vxlan])" },
		{ "[bridge]\nname = br0\n[bridge]\n",
		  NAME ":3: duplicate [bridge] section (first on line 1)" },
		{ "[port eth1]\n\n[port eth2]\n; x\n[port eth1]\n",
		  NAME ":5: duplicate [port eth1] section (first on line 1)" },
		{ "[port]\n", NAME ":1: [port] needs an interface name, e.g. [port eth1]" },
		{ "[bridge]\n[port   ]\n", NAME ":2: [port] needs an interface name, e.g. [port eth1]" },
		{ "\n[port abcdefghijklmnop]\n",
		  NAME ":2: port name 'abcdefghijklmnop' is too long (at most 15 characters)" },
		{ "[port eth1 eth2]\n", NAME ":1: port name 'eth1 eth2' is not a valid interface name" },
		{ "[port eth/1]\n", NAME ":1: port name 'eth/1' is not a valid interface name" },
		{ "[port eth:1]\n", NAME ":1: port name 'eth:1' is not a valid interface name" },
		{ "[port ..]\n", NAME ":1: port name '..' is not a valid interface name" },
		{ "[bridge\nname = br0\n", NAME ":1: no ']' at the end of the section header" },
		{ "[bridge] name = br0\n",
		  NAME ":1: unexpected text after the section header: 'name = br0'" },
		{ "[port eth1] # uplink\n",
		  NAME ":1: unexpected text after the section header: '# uplink'" },
	};

	CHECK_ERRORS(cases);
}

static void test_errors_keys(void **state)
{
	static const struct error_case cases[] = {
		{ "name = br0\n[bridge]\n",
		  NAME ":1: 'name' is outside a section (put it under [bridge] or [port IFNAME])" },
		{ "[bridge]\nname = br0\nlearning = on\n",
		  NAME ":3: unknown key 'learning' in [bridge]" },
		{ "[port eth1]\nlearning = on\nfdb_size = 1024\n",
		  NAME ":3: unknown key 'fdb_size' in [port eth1]" },
		{ "[port eth1]\nLearning = on\n", NAME ":2: unknown key 'Learning' in [port eth1]" },
		{ "[bridge]\nname = br0\nageing_time = 10\n\nname = br1\n",
		  NAME ":5: duplicate key 'name' in [bridge] (first on line 2)" },
		{ "[bridge]\nmode = auto\nmode = auto\n",
		  NAME ":3: duplicate key 'mode' in [bridge] (first on line 2)" },
		{ "[port eth1]\nflood = on\nlearning = off\nflood = off\n",
		  NAME ":4: duplicate key 'flood' in [port eth1] (first on line 2)" },
		{ "[port eth1]\nmax_learned = 1\n[port eth2]\nmax_learned = 2\nmax_learned = 3\n",
		  NAME ":5: duplicate key 'max_learned' in [port eth2] (first on line 4)" },
		{ "[bridge]\nname =\n", NAME ":2: 'name' has no value" },
		{ "[bridge]\nname = ; comment only\n", NAME ":2: 'name' has no value" },
		{ "[port eth1]\nstatic =   \n", NAME ":2: 'static' has no value" },
		{ "[bridge]\n= br0\n", NAME ":2: no key name before '='" },
		{ "[bridge]\nname br0\n", NAME ":2: expected 'key = value', got 'name br0'" },
		{ "[port eth1]\nstatic 02:00:00:00:00:01\n",
		  NAME ":2: expected 'key = value', got 'static 02:00:00:00:00:01'" },
		{ "[bridge]\nname: br0\n", NAME ":2: expected 'key = value', got 'name: br0'" },
		{ "[bridge]\nname ; = br0\n", NAME ":2: expected 'key = value', got 'name ; = br0'" },
		{ "[bridge]\nname = br0\n  oops\n", NAME ":3: expected 'key = value', got 'oops'" },
	};

	CHECK_ERRORS(cases);
}

static void test_errors_values(void **state)
{
	static const struct error_case cases[] = {
		/* booleans */
		{ "[port eth1]\nlearning = enabled\n",
		  NAME ":2: learning: 'enabled' is not a boolean (on/off, yes/no, true/false, 1/0)" },
		{ "[port eth1]\n\nhairpin = 2\n",
		  NAME ":3: hairpin: '2' is not a boolean (on/off, yes/no, true/false, 1/0)" },
		{ "[port eth1]\nisolated = on # no\n",
		  NAME ":2: isolated: 'on # no' is not a boolean (on/off, yes/no, true/false, 1/0)" },
		/* numbers */
		{ "[bridge]\nageing_time = 1000001\n",
		  NAME ":2: ageing_time: 1000001 is out of range (0..1000000)" },
		{ "[bridge]\nageing_time = 300s\n", NAME ":2: ageing_time: '300s' is not a number" },
		{ "[bridge]\nageing_time = -1\n", NAME ":2: ageing_time: '-1' is not a number" },
		{ "[bridge]\nageing_time = 3 00\n", NAME ":2: ageing_time: '3 00' is not a number" },
		{ "[bridge]\nageing_time = 0x10\n", NAME ":2: ageing_time: '0x10' is not a number" },
		{ "[bridge]\nfdb_size = 15\n", NAME ":2: fdb_size: 15 is out of range (16..67108864)" },
		{ "[bridge]\nfdb_size = 67108865\n",
		  NAME ":2: fdb_size: 67108865 is out of range (16..67108864)" },
		{ "[bridge]\nfdb_size = 99999999999999999999999\n",
		  NAME ":2: fdb_size: 99999999999999999999999 is out of range (16..67108864)" },
		{ "[bridge]\nfdb_cache = 3\n",
		  NAME ":2: fdb_cache: 3 is not 0 (off) or a power of two from 4 to 1048576" },
		{ "[bridge]\nfdb_cache = 2\n",
		  NAME ":2: fdb_cache: 2 is not 0 (off) or a power of two from 4 to 1048576" },
		{ "[bridge]\nfdb_cache = 2097152\n",
		  NAME ":2: fdb_cache: 2097152 is out of range (0..1048576)" },
		{ "[bridge]\nfdb_max_learned = 67108865\n",
		  NAME ":2: fdb_max_learned: 67108865 is out of range (0..67108864)" },
		{ "[port eth1]\nmax_learned = many\n", NAME ":2: max_learned: 'many' is not a number" },
		{ "[port eth1]\nmax_learned = 4294967296\n",
		  NAME ":2: max_learned: 4294967296 is out of range (0..67108864)" },
		/* bridge name, mode */
		{ "[bridge]\nname = br 0\n",
		  NAME ":2: name: 'br 0' is not a valid bridge name (1-15 characters of "
		  "letters, digits, '_', '.', '-')" },
		{ "[bridge]\nname = \"br0\"\n",
		  NAME ":2: name: '\"br0\"' is not a valid bridge name (1-15 characters of "
		  "letters, digits, '_', '.', '-')" },
		{ "[bridge]\nname = abcdefghijklmnop\n",
		  NAME ":2: name: 'abcdefghijklmnop' is not a valid bridge name (1-15 characters of "
		  "letters, digits, '_', '.', '-')" },
		{ "[bridge]\nmode = xdp\n", NAME ":2: mode: 'xdp' is not native, generic or auto" },
		{ "[bridge]\nmode = Native\n", NAME ":2: mode: 'Native' is not native, generic or auto" },
		/* output names that are no request: none is auto's outcome, tc
		 * not attachable by the loader yet */
		{ "[bridge]\nmode = none\n", NAME ":2: mode: 'none' is not native, generic or auto" },
		{ "[bridge]\nmode = tc\n", NAME ":2: mode: 'tc' is not native, generic or auto" },
		/* listen */
		{ "[bridge]\nlisten = 127.0.0.1\n",
		  NAME ":2: listen: '127.0.0.1': no ':PORT' (expected ADDR:PORT, [IPv6]:PORT or none, "
		  "e.g. 127.0.0.1:9638)" },
		{ "[bridge]\nlisten = localhost:9638\n",
		  NAME ":2: listen: 'localhost:9638': not an IPv4 address (expected ADDR:PORT, "
		  "[IPv6]:PORT or none, e.g. 127.0.0.1:9638)" },
		{ "[bridge]\nlisten = 127.0.0.1:0\n",
		  NAME ":2: listen: '127.0.0.1:0': the port is not a number in 1..65535 (expected "
		  "ADDR:PORT, [IPv6]:PORT or none, e.g. 127.0.0.1:9638)" },
		{ "[bridge]\nlisten = ::1:9638\n",
		  NAME ":2: listen: '::1:9638': an IPv6 address goes in brackets: [ADDR]:PORT "
		  "(expected ADDR:PORT, [IPv6]:PORT or none, e.g. 127.0.0.1:9638)" },
		{ "[bridge]\nlisten = [::1]\n",
		  NAME ":2: listen: '[::1]': no ':PORT' after ']' (expected ADDR:PORT, "
		  "[IPv6]:PORT or none, e.g. 127.0.0.1:9638)" },
		{ "[bridge]\nlisten = [127.0.0.1]:80\n",
		  NAME ":2: listen: '[127.0.0.1]:80': not an IPv6 address (expected ADDR:PORT, "
		  "[IPv6]:PORT or none, e.g. 127.0.0.1:9638)" },
	};

	CHECK_ERRORS(cases);
}

static void test_errors_static(void **state)
{
	static const struct error_case cases[] = {
		{ "[port eth1]\nstatic = 02:00:00:00:00\n",
		  NAME ":2: static: '02:00:00:00:00' is not a MAC address" },
		{ "[port eth1]\nstatic = 01:00:5e:00:00:01\n",
		  NAME ":2: static: 01:00:5e:00:00:01 is a multicast address (static entries "
		  "must be unicast)" },
		{ "[port eth1]\nstatic = FF:FF:FF:FF:FF:FF\n",
		  NAME ":2: static: ff:ff:ff:ff:ff:ff is a multicast address (static entries "
		  "must be unicast)" },
		{ "[port eth1]\nstatic = 00:00:00:00:00:00 vlan 3\n",
		  NAME ":2: static: 00:00:00:00:00:00 is the zero address" },
		{ "[port eth1]\nstatic = 02:00:00:00:00:01 vlan 4095\n",
		  NAME ":2: static: vlan 4095 is out of range (0..4094)" },
		{ "[port eth1]\nstatic = 02:00:00:00:00:01 vlan ten\n",
		  NAME ":2: static: vlan 'ten' is not a number" },
		{ "[port eth1]\nstatic = 02:00:00:00:00:01 vlan -1\n",
		  NAME ":2: static: vlan '-1' is not a number" },
		{ "[port eth1]\nstatic = 02:00:00:00:00:01 vlan\n",
		  NAME ":2: static: expected 'MAC' or 'MAC vlan ID', got '02:00:00:00:00:01 vlan'" },
		{ "[port eth1]\nstatic = 02:00:00:00:00:01 10\n",
		  NAME ":2: static: expected 'MAC' or 'MAC vlan ID', got '02:00:00:00:00:01 10'" },
		{ "[port eth1]\nstatic = 02:00:00:00:00:01 vlan 10 eth2\n",
		  NAME ":2: static: expected 'MAC' or 'MAC vlan ID', got "
		  "'02:00:00:00:00:01 vlan 10 eth2'" },
		{ "[port eth1]\nstatic = 02:00:00:00:00:01 # printer\n",
		  NAME ":2: static: expected 'MAC' or 'MAC vlan ID', got "
		  "'02:00:00:00:00:01 # printer'" },
		{ "[port eth1]\nstatic = 02:00:00:00:00:01\nstatic = 02:00:00:00:00:02\n"
		  "static = 02-00-00-00-00-01\n",
		  NAME ":4: duplicate static 02:00:00:00:00:01 in [port eth1] (first on line 2)" },
		{ "[port eth1]\nstatic = 02:00:00:00:00:01 vlan 5\nstatic = 02:00:00:00:00:01 vlan 5\n",
		  NAME ":3: duplicate static 02:00:00:00:00:01 vlan 5 in [port eth1] "
		  "(first on line 2)" },
		/* one FDB entry per {vlan, MAC}: not on two ports either */
		{ "[port eth1]\nstatic = 02:00:00:00:00:01\n[port eth2]\nstatic = 02:00:00:00:00:01\n",
		  NAME ":4: static 02:00:00:00:00:01 is already on [port eth1] (line 2)" },
	};

	CHECK_ERRORS(cases);
}

/* --- storm control --- */

/* Each storm_* key sets its class only (index: enum xdpbr_storm_class),
 * over the whole range; ports don't share their limits. */
static void test_storm(void **state)
{
	static const struct {
		const char *key;
		enum xdpbr_storm_class cls;
	} keys[] = {
		{ "storm_bcast", XDPBR_STORM_BCAST },
		{ "storm_mcast", XDPBR_STORM_MCAST },
		{ "storm_unknown", XDPBR_STORM_UNKNOWN },
	};
	static const struct {
		const char *value;
		uint32_t pps;
	} values[] = {
		{ "0", 0 }, { "1", 1 }, { "100", 100 }, { "0100", 100 },
		{ "100000000", XDPBR_STORM_MAX_PPS },
		{ "5000   ; a comment", 5000 },
	};
	char text[128];
	struct config c;

	assert_int_equal(XDPBR_STORM_MAX_PPS, 100000000);
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		for (size_t v = 0; v < ARRAY_SIZE(values); v++) {
			snprintf(text, sizeof(text), "[port eth1]\n%s = %s\n", keys[k].key,
				 values[v].value);
			parse_ok(text, &c);
			for (int cls = 0; cls < XDPBR_STORM__MAX; cls++)
				if (setting_value(&c.ports[0].set, (enum setting_id)(SET_STORM_BCAST + cls)) !=
				    ((enum xdpbr_storm_class)cls == keys[k].cls ? values[v].pps : 0))
					fail_msg("%s = %s: storm[%d] = %u", keys[k].key,
						 values[v].value, cls, setting_value(&c.ports[0].set, (enum setting_id)(SET_STORM_BCAST + cls)));
			/* nothing else of the port changes */
			assert_int_equal(flags_of(&c.ports[0]), XDPBR_PORT_DEFAULT_FLAGS);
			assert_int_equal(VAL(c.ports[0].set, MAX_LEARNED), 0);
			config_free(&c);
		}
	}

	parse_ok("[port eth1]\n"
		 "storm_unknown = 30\n"
		 "learning = off\n"
		 "storm_bcast = 10\n"
		 "storm_mcast = 20\n"
		 "[port eth2]\n"
		 "storm_mcast = 7\n"
		 "[port eth3]\n", &c);
	assert_int_equal(c.nports, 3);
	assert_int_equal(VAL(c.ports[0].set, STORM_BCAST), 10);
	assert_int_equal(VAL(c.ports[0].set, STORM_MCAST), 20);
	assert_int_equal(VAL(c.ports[0].set, STORM_UNKNOWN), 30);
	assert_int_equal(flags_of(&c.ports[0]), XDPBR_PORT_DEFAULT_FLAGS & ~XDPBR_PORT_LEARNING);
	assert_int_equal(VAL(c.ports[1].set, STORM_BCAST), 0);
	assert_int_equal(VAL(c.ports[1].set, STORM_MCAST), 7);
	assert_int_equal(VAL(c.ports[1].set, STORM_UNKNOWN), 0);
	for (int cls = 0; cls < XDPBR_STORM__MAX; cls++)
		assert_int_equal(setting_value(&c.ports[2].set, (enum setting_id)(SET_STORM_BCAST + cls)), 0);
	config_free(&c);
}

static void test_errors_storm(void **state)
{
	static const struct error_case cases[] = {
		{ "[port eth1]\nstorm_bcast = 100000001\n",
		  NAME ":2: storm_bcast: 100000001 is out of range (0..100000000)" },
		{ "[port eth1]\nlearning = on\n\nstorm_mcast = 4294967296\n",
		  NAME ":4: storm_mcast: 4294967296 is out of range (0..100000000)" },
		{ "[port eth1]\nstorm_unknown = 99999999999999999999999\n",
		  NAME ":2: storm_unknown: 99999999999999999999999 is out of range "
		  "(0..100000000)" },
		{ "[port eth1]\nstorm_bcast = -1\n", NAME ":2: storm_bcast: '-1' is not a number" },
		{ "[port eth1]\nstorm_bcast = 100pps\n",
		  NAME ":2: storm_bcast: '100pps' is not a number" },
		{ "[port eth1]\nstorm_mcast = 1e6\n", NAME ":2: storm_mcast: '1e6' is not a number" },
		{ "[port eth1]\nstorm_unknown = off\n",
		  NAME ":2: storm_unknown: 'off' is not a number" },
		{ "[port eth1]\nstorm_bcast =\n", NAME ":2: 'storm_bcast' has no value" },
		{ "[port eth1]\nstorm_bcast = 10\nstorm_mcast = 10\nstorm_bcast = 20\n",
		  NAME ":4: duplicate key 'storm_bcast' in [port eth1] (first on line 2)" },
		{ "[port eth1]\nstorm_unknown = 1\n[port eth2]\nstorm_unknown = 1\n"
		  "storm_unknown = 2\n",
		  NAME ":5: duplicate key 'storm_unknown' in [port eth2] (first on line 4)" },
		/* per port, not bridge-wide; no other spellings */
		{ "[bridge]\nname = br0\nstorm_bcast = 10\n",
		  NAME ":3: unknown key 'storm_bcast' in [bridge]" },
		{ "[port eth1]\nstorm_broadcast = 10\n",
		  NAME ":2: unknown key 'storm_broadcast' in [port eth1]" },
		{ "[port eth1]\nstorm = 10\n", NAME ":2: unknown key 'storm' in [port eth1]" },
	};

	CHECK_ERRORS(cases);
}

/* --- 802.1Q --- */

static void test_vlan_bridge(void **state)
{
	static const struct {
		const char *text;
		bool filtering;
		uint16_t pvid;
	} cases[] = {
		{ "[bridge]\nvlan_filtering = on\ndefault_pvid = 1\n", true, 1 },
		{ "[bridge]\ndefault_pvid = 0\nvlan_filtering = off\n", false, 0 },
		{ "[bridge]\nvlan_filtering = Yes\ndefault_pvid = 4094\n", true, 4094 },
		{ "[bridge]\nvlan_filtering = 0\ndefault_pvid = 100  ; voice\n", false, 100 },
	};
	struct config c;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		parse_ok(cases[i].text, &c);
		assert_true(GIVEN(c.set, VLAN_FILTERING));
		assert_int_equal(VAL(c.set, VLAN_FILTERING), cases[i].filtering);
		assert_true(GIVEN(c.set, DEFAULT_PVID));
		assert_int_equal(VAL(c.set, DEFAULT_PVID), cases[i].pvid);
		config_free(&c);
	}

	/* each one alone leaves the other unset */
	parse_ok("[bridge]\nvlan_filtering = true\n", &c);
	assert_true(GIVEN(c.set, VLAN_FILTERING));
	assert_true(VAL(c.set, VLAN_FILTERING));
	assert_false(GIVEN(c.set, DEFAULT_PVID));
	assert_int_equal(VAL(c.set, DEFAULT_PVID), XDPBR_DEFAULT_PVID);
	config_free(&c);
	parse_ok("[bridge]\ndefault_pvid = 0\n", &c);
	assert_false(GIVEN(c.set, VLAN_FILTERING));
	assert_true(GIVEN(c.set, DEFAULT_PVID));
	assert_int_equal(VAL(c.set, DEFAULT_PVID), 0);
	config_free(&c);
}

/* LISTs: VIDs and ranges, whitespace around commas, "tagged" after vlans. */
static void test_vlan_lists(void **state)
{
	static const struct {
		const char *list;
		const char *want;	/* for vlans_are() */
	} lists[] = {
		{ "10", "10" },
		{ "1", "1" },
		{ "4094", "4094" },
		{ "10,20-30, 40", "10,20-30,40" },
		{ "10 ,20-30 ,  40", "10,20-30,40" },
		{ "10\t,\t20-30,\t40", "10,20-30,40" },
		{ "40,10,20-30", "10,20-30,40" },		/* any order */
		{ "5-5", "5" },
		{ "1-4094", "1-4094" },
		{ "1-63,64,65-127,128", "1-128" },		/* bitmap word edges */
		{ "007,0100-0101", "7,100-101" },		/* leading zeros: decimal */
		{ "4093-4094,1-2", "1-2,4093-4094" },
	};
	char text[128];
	struct config c;

	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		snprintf(text, sizeof(text), "[port eth1]\nvlans = %s\n", lists[i].list);
		parse_ok(text, &c);
		assert_true(config_port_vlans_set(&c.ports[0]));
		if (!vlans_are(c.ports[0].vlans, lists[i].want))
			fail_msg("case %zu: vlans = %s", i, lists[i].list);
		assert_true(vlans_are(c.ports[0].untagged, ""));
		assert_false(GIVEN(c.ports[0].set, PVID));
		config_free(&c);

		snprintf(text, sizeof(text), "[port eth1]\nuntagged = %s\n", lists[i].list);
		parse_ok(text, &c);
		assert_true(config_port_vlans_set(&c.ports[0]));
		if (!vlans_are(c.ports[0].untagged, lists[i].want))
			fail_msg("case %zu: untagged = %s", i, lists[i].list);
		assert_true(vlans_are(c.ports[0].vlans, ""));
		config_free(&c);

		/* "tagged" at the end of vlans changes nothing */
		snprintf(text, sizeof(text), "[port eth1]\nvlans = %s tagged\n", lists[i].list);
		parse_ok(text, &c);
		if (!vlans_are(c.ports[0].vlans, lists[i].want))
			fail_msg("case %zu: vlans = %s tagged", i, lists[i].list);
		config_free(&c);
	}

	parse_ok("[port eth1]\nvlans = 10,20-30\ttagged   ; trunk\n", &c);
	assert_true(vlans_are(c.ports[0].vlans, "10,20-30"));
	config_free(&c);
}

/* A port's pvid, vlans and untagged together, in any order, and per port. */
static void test_vlan_ports(void **state)
{
	struct config c;

	parse_ok("[port eth1]\n"			/* 1 */
		 "pvid = 1\n"				/* 2: before its lists */
		 "vlans = 10,20-30 tagged\n"		/* 3 */
		 "untagged = 1\n"			/* 4 */
		 "[port eth2]\n"			/* 5 */
		 "untagged = 10\n"			/* 6 */
		 "pvid = 10\n"				/* 7 */
		 "[port eth3]\n"			/* 8 */
		 "pvid = 0\n"				/* 9: no PVID, no lists */
		 "[port eth4]\n"			/* 10 */
		 "vlans = 5\n"				/* 11 */
		 "pvid = 5\n"				/* 12: a tagged member is fine */
		 "[port eth5]\n"			/* 13 */
		 "vlans = 7\n"				/* 14: no pvid: the default */
		 "[port eth6]\n", &c);			/* 15 */
	assert_int_equal(c.nports, 6);
	assert_true(GIVEN(c.ports[0].set, PVID));
	assert_int_equal(VAL(c.ports[0].set, PVID), 1);
	assert_true(config_port_vlans_set(&c.ports[0]));
	assert_true(vlans_are(c.ports[0].vlans, "10,20-30"));
	assert_true(vlans_are(c.ports[0].untagged, "1"));

	assert_true(GIVEN(c.ports[1].set, PVID));
	assert_int_equal(VAL(c.ports[1].set, PVID), 10);
	assert_true(config_port_vlans_set(&c.ports[1]));	/* untagged alone sets it */
	assert_true(vlans_are(c.ports[1].vlans, ""));
	assert_true(vlans_are(c.ports[1].untagged, "10"));

	assert_true(GIVEN(c.ports[2].set, PVID));
	assert_int_equal(VAL(c.ports[2].set, PVID), 0);
	assert_false(config_port_vlans_set(&c.ports[2]));

	assert_int_equal(VAL(c.ports[3].set, PVID), 5);
	assert_true(vlans_are(c.ports[3].vlans, "5"));

	assert_false(GIVEN(c.ports[4].set, PVID));
	assert_int_equal(VAL(c.ports[4].set, PVID), 0);
	assert_true(config_port_vlans_set(&c.ports[4]));
	assert_true(vlans_are(c.ports[4].vlans, "7"));

	assert_false(GIVEN(c.ports[5].set, PVID));
	assert_false(config_port_vlans_set(&c.ports[5]));
	assert_true(vlans_are(c.ports[5].vlans, ""));
	assert_true(vlans_are(c.ports[5].untagged, ""));
	config_free(&c);

	/* disjoint lists, up to the last VLAN; the pvid at the end of the file */
	parse_ok("[bridge]\nvlan_filtering = on\ndefault_pvid = 0\n"
		 "[port eth1]\nvlans = 1-99, 101-4093\nuntagged = 100,4094\npvid = 4094\n", &c);
	assert_true(vlans_are(c.ports[0].vlans, "1-99,101-4093"));
	assert_true(vlans_are(c.ports[0].untagged, "100,4094"));
	assert_int_equal(VAL(c.ports[0].set, PVID), 4094);
	config_free(&c);
}

static void test_errors_vlan(void **state)
{
	static const struct error_case cases[] = {
		/* [bridge] */
		{ "[bridge]\nvlan_filtering = maybe\n",
		  NAME ":2: vlan_filtering: 'maybe' is not a boolean (on/off, yes/no, "
		  "true/false, 1/0)" },
		{ "[bridge]\nvlan_filtering = enabled\n",
		  NAME ":2: vlan_filtering: 'enabled' is not a boolean (on/off, yes/no, "
		  "true/false, 1/0)" },
		{ "[bridge]\nvlan_filtering =\n", NAME ":2: 'vlan_filtering' has no value" },
		{ "[bridge]\ndefault_pvid = 4095\n",
		  NAME ":2: default_pvid: 4095 is out of range (0..4094)" },
		{ "[bridge]\ndefault_pvid = -1\n", NAME ":2: default_pvid: '-1' is not a number" },
		{ "[bridge]\ndefault_pvid = none\n", NAME ":2: default_pvid: 'none' is not a number" },
		{ "[bridge]\nvlan_filtering = on\n\nvlan_filtering = off\n",
		  NAME ":4: duplicate key 'vlan_filtering' in [bridge] (first on line 2)" },
		{ "[bridge]\ndefault_pvid = 1\nname = br0\ndefault_pvid = 1\n",
		  NAME ":4: duplicate key 'default_pvid' in [bridge] (first on line 2)" },
		{ "[bridge]\npvid = 1\n", NAME ":2: unknown key 'pvid' in [bridge]" },
		{ "[port eth1]\nvlan_filtering = on\n",
		  NAME ":2: unknown key 'vlan_filtering' in [port eth1]" },
		{ "[port eth1]\ndefault_pvid = 1\n",
		  NAME ":2: unknown key 'default_pvid' in [port eth1]" },

		/* pvid */
		{ "[port eth1]\npvid = 4095\n", NAME ":2: pvid: 4095 is out of range (0..4094)" },
		{ "[port eth1]\npvid = ten\n", NAME ":2: pvid: 'ten' is not a number" },
		{ "[port eth1]\npvid = 10 tagged\n", NAME ":2: pvid: '10 tagged' is not a number" },
		{ "[port eth1]\npvid = 10,20\n", NAME ":2: pvid: '10,20' is not a number" },
		{ "[port eth1]\nuntagged = 1\npvid = 1\npvid = 1\n",
		  NAME ":4: duplicate key 'pvid' in [port eth1] (first on line 3)" },

		/* VIDs out of range */
		{ "[port eth1]\nvlans = 0\n", NAME ":2: vlans: 0 is out of range (1..4094)" },
		{ "[port eth1]\nvlans = 4095\n", NAME ":2: vlans: 4095 is out of range (1..4094)" },
		{ "[port eth1]\nvlans = 10, 4095 tagged\n",
		  NAME ":2: vlans: 4095 is out of range (1..4094)" },
		{ "[port eth1]\nvlans = 0-10\n", NAME ":2: vlans: 0 is out of range (1..4094)" },
		{ "[port eth1]\nvlans = 4000-4095\n",
		  NAME ":2: vlans: 4095 is out of range (1..4094)" },
		{ "[port eth1]\nuntagged = 99999999999999999999999\n",
		  NAME ":2: untagged: 99999999999999999999999 is out of range (1..4094)" },
		{ "[port eth1]\nuntagged = 1,2,0\n", NAME ":2: untagged: 0 is out of range (1..4094)" },
		{ "[port eth1]\nuntagged = 00\n", NAME ":2: untagged: 00 is out of range (1..4094)" },

		/* reversed range */
		{ "[port eth1]\nvlans = 30-20\n",
		  NAME ":2: vlans: range 30-20 is reversed (FIRST-LAST, FIRST <= LAST)" },
		{ "[port eth1]\nuntagged = 5, 4094-1\n",
		  NAME ":2: untagged: range 4094-1 is reversed (FIRST-LAST, FIRST <= LAST)" },

		/* junk */
		{ "[port eth1]\nvlans = ten\n",
		  NAME ":2: vlans: 'ten' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nvlans = 10-\n",
		  NAME ":2: vlans: '10-' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nvlans = -10\n",
		  NAME ":2: vlans: '-10' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nvlans = 10-20-30\n",
		  NAME ":2: vlans: '10-20-30' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nvlans = 10..20\n",
		  NAME ":2: vlans: '10..20' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nvlans = 0x10\n",
		  NAME ":2: vlans: '0x10' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nvlans = +5\n",
		  NAME ":2: vlans: '+5' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nvlans = 10;20\n",
		  NAME ":2: vlans: '10;20' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nvlans = 10tagged\n",
		  NAME ":2: vlans: '10tagged' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nvlans = tagged\n",
		  NAME ":2: vlans: 'tagged' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nvlans = 10, tagged\n",
		  NAME ":2: vlans: 'tagged' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nuntagged = x-5\n",
		  NAME ":2: untagged: 'x-5' is not a VLAN ID or a FIRST-LAST range" },
		/* junk wins over range: the item as a whole is not a range */
		{ "[port eth1]\nuntagged = 0-x\n",
		  NAME ":2: untagged: '0-x' is not a VLAN ID or a FIRST-LAST range" },

		/* what may follow the list */
		{ "[port eth1]\nvlans = 10 20\n",
		  NAME ":2: vlans: unexpected '20' after '10' (VLANs are separated by commas; "
		  "only 'tagged' may follow the list)" },
		{ "[port eth1]\nvlans = 20 - 30\n",
		  NAME ":2: vlans: unexpected '- 30' after '20' (VLANs are separated by commas; "
		  "only 'tagged' may follow the list)" },
		{ "[port eth1]\nvlans = 10,20-30 untagged\n",
		  NAME ":2: vlans: unexpected 'untagged' after '20-30' (VLANs are separated by "
		  "commas; only 'tagged' may follow the list)" },
		{ "[port eth1]\nvlans = 10 Tagged\n",
		  NAME ":2: vlans: unexpected 'Tagged' after '10' (VLANs are separated by commas; "
		  "only 'tagged' may follow the list)" },
		{ "[port eth1]\nvlans = 10 tagged tagged\n",
		  NAME ":2: vlans: unexpected 'tagged tagged' after '10' (VLANs are separated by "
		  "commas; only 'tagged' may follow the list)" },
		{ "[port eth1]\nvlans = 10 tagged, 20\n",
		  NAME ":2: vlans: unexpected 'tagged, 20' after '10' (VLANs are separated by "
		  "commas; only 'tagged' may follow the list)" },
		{ "[port eth1]\nvlans = 10 # trunk\n",
		  NAME ":2: vlans: unexpected '# trunk' after '10' (VLANs are separated by "
		  "commas; only 'tagged' may follow the list)" },
		{ "[port eth1]\nuntagged = 10 tagged\n",
		  NAME ":2: untagged: unexpected 'tagged' after '10' (VLANs are separated by "
		  "commas)" },
		{ "[port eth1]\nuntagged = 10 untagged\n",
		  NAME ":2: untagged: unexpected 'untagged' after '10' (VLANs are separated by "
		  "commas)" },

		/* empty items */
		{ "[port eth1]\nvlans = 10,,20\n",
		  NAME ":2: vlans: empty item in '10,,20' (expected VLAN IDs and FIRST-LAST "
		  "ranges separated by commas)" },
		{ "[port eth1]\nvlans = 10, ,20\n",
		  NAME ":2: vlans: empty item in '10, ,20' (expected VLAN IDs and FIRST-LAST "
		  "ranges separated by commas)" },
		{ "[port eth1]\nvlans = ,10\n",
		  NAME ":2: vlans: empty item in ',10' (expected VLAN IDs and FIRST-LAST "
		  "ranges separated by commas)" },
		{ "[port eth1]\nuntagged = 10,\n",
		  NAME ":2: untagged: empty item in '10,' (expected VLAN IDs and FIRST-LAST "
		  "ranges separated by commas)" },
		{ "[port eth1]\nvlans = 10, tagged,\n",
		  NAME ":2: vlans: 'tagged' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nvlans = 10 , tagged\n",
		  NAME ":2: vlans: 'tagged' is not a VLAN ID or a FIRST-LAST range" },
		{ "[port eth1]\nuntagged = ,\n",
		  NAME ":2: untagged: empty item in ',' (expected VLAN IDs and FIRST-LAST "
		  "ranges separated by commas)" },
		{ "[port eth1]\nvlans =   \n", NAME ":2: 'vlans' has no value" },
		{ "[port eth1]\nuntagged = ; none\n", NAME ":2: 'untagged' has no value" },

		/* a VLAN twice in one list */
		{ "[port eth1]\nvlans = 10,10\n", NAME ":2: vlans: VLAN 10 is listed twice" },
		{ "[port eth1]\nvlans = 10-20, 15\n", NAME ":2: vlans: VLAN 15 is listed twice" },
		{ "[port eth1]\nuntagged = 1-5,5-9\n", NAME ":2: untagged: VLAN 5 is listed twice" },

		/* a VLAN in both lists: at the later key */
		{ "[port eth1]\nvlans = 10-20\nuntagged = 5,15\n",
		  NAME ":3: untagged: VLAN 15 is also in 'vlans' (line 2); a port is a tagged "
		  "or an untagged member of a VLAN, not both" },
		{ "[port eth1]\nuntagged = 1, 200-300\npvid = 1\n\nvlans = 2, 250-260 tagged\n",
		  NAME ":5: vlans: VLAN 250 is also in 'untagged' (line 2); a port is a tagged "
		  "or an untagged member of a VLAN, not both" },

		/* duplicate keys */
		{ "[port eth1]\nvlans = 10\nvlans = 20\n",
		  NAME ":3: duplicate key 'vlans' in [port eth1] (first on line 2)" },
		{ "[port eth1]\nuntagged = 10\nvlans = 20\nuntagged = 30\n",
		  NAME ":4: duplicate key 'untagged' in [port eth1] (first on line 2)" },

		/* a non-zero pvid must be a member: reported at the pvid line, when
		 * the section ends (the lists may come after it) */
		{ "[port eth1]\npvid = 30\nvlans = 10-20\nuntagged = 40\n",
		  NAME ":2: pvid: VLAN 30 is not a member of [port eth1] (add it to its "
		  "'vlans' or 'untagged')" },
		{ "[port eth1]\nflood = off\npvid = 1\n\n[port eth2]\n",
		  NAME ":3: pvid: VLAN 1 is not a member of [port eth1] (add it to its "
		  "'vlans' or 'untagged')" },
		{ "[port eth1]\nuntagged = 1\npvid = 1\n[port eth2]\nvlans = 5-9\npvid = 10\n"
		  "[bridge]\nname = br0\n",
		  NAME ":6: pvid: VLAN 10 is not a member of [port eth2] (add it to its "
		  "'vlans' or 'untagged')" },
		/* the section's end comes before what is wrong with the next header */
		{ "[port eth1]\npvid = 7\n[port eth1]\n",
		  NAME ":2: pvid: VLAN 7 is not a member of [port eth1] (add it to its "
		  "'vlans' or 'untagged')" },
		/* an error inside the section comes first: parsing stops there */
		{ "[port eth1]\npvid = 5\nflood = maybe\n",
		  NAME ":3: flood: 'maybe' is not a boolean (on/off, yes/no, true/false, 1/0)" },
	};

	CHECK_ERRORS(cases);
}

/* The error frees a port's VLAN lists and statics alike (valgrind). */
static void test_vlan_error_frees(void **state)
{
	struct config c;

	assert_int_equal(parse("[bridge]\nvlan_filtering = on\ndefault_pvid = 1\n"
			       "[port eth1]\nvlans = 1-4094\nstatic = 02:00:00:00:00:01\n"
			       "[port eth2]\nuntagged = 10\npvid = 11\n", &c), -EINVAL);
	assert_string_equal(err, NAME ":9: pvid: VLAN 11 is not a member of [port eth2] "
			    "(add it to its 'vlans' or 'untagged')");
	assert_zeroed(&c);
}

/* Parsing stops at the first error, whatever kind the later ones are. */
static void test_first_error_wins(void **state)
{
	static const struct error_case cases[] = {
		{ "[bridge]\nbogus = 1\nno equals sign\n[nope]\n",
		  NAME ":2: unknown key 'bogus' in [bridge]" },
		{ "[bridge]\nno equals sign\nbogus = 1\n",
		  NAME ":2: expected 'key = value', got 'no equals sign'" },
		{ "[nope]\nbogus = 1\n",
		  NAME ":1: unknown section [nope] (expected [bridge], [port IFNAME] or [vxlan])" },
		{ "[port eth1]\nflood = maybe\n[port eth1]\n",
		  NAME ":2: flood: 'maybe' is not a boolean (on/off, yes/no, true/false, 1/0)" },
	};

	CHECK_ERRORS(cases);
}

static void test_error_line_deep_in_file(void **state)
{
	char text[4096] = "";
	struct config c;

	strcat(text, "[bridge]\n");			/* 1 */
	for (int i = 2; i <= 41; i++)			/* 2..41 */
		strcat(text, "; comment\n");
	strcat(text, "[port eth1]\n");			/* 42 */
	for (int i = 43; i <= 99; i++)			/* 43..99 */
		strcat(text, i % 2 ? "\n" : "   # indented comment\n");
	strcat(text, "static = 02:00:00:00:00:01 vlan 1\n");	/* 100 */
	strcat(text, "static = 02:00:00:00:00:01 vlan 1\n");	/* 101 */
	assert_int_equal(parse(text, &c), -EINVAL);
	assert_string_equal(err, NAME ":101: duplicate static 02:00:00:00:00:01 vlan 1 in "
			    "[port eth1] (first on line 100)");
	assert_zeroed(&c);
}

static void test_host_interface(void **state)
{
	struct config c;
	const uint8_t want[6] = { 0x02, 0x00, 0x5e, 0x00, 0x53, 0xfe };

	parse_ok("[bridge]\n", &c);			/* default: on, derived mac */
	assert_false(GIVEN(c.set, HOST_INTERFACE));
	assert_false(GIVEN(c.set, MAC));
	config_free(&c);
	parse_ok("[bridge]\nhost_interface = off\nmac = 02:00:5e:00:53:FE\n", &c);
	assert_true(GIVEN(c.set, HOST_INTERFACE));
	assert_false(VAL(c.set, HOST_INTERFACE));
	assert_true(GIVEN(c.set, MAC));
	assert_memory_equal(c.mac, want, 6);
	config_free(&c);
	parse_ok("[bridge]\nhost_interface = on\n", &c);
	assert_true(VAL(c.set, HOST_INTERFACE));
	config_free(&c);

	assert_int_equal(parse("[bridge]\n\nmac = 01:00:5e:00:00:01\n", &c), -EINVAL);
	assert_string_equal(err, NAME ":3: mac: '01:00:5e:00:00:01' is not a unicast MAC "
			    "address (like 02:00:5e:00:53:01)");
	assert_zeroed(&c);
	assert_int_equal(parse("[bridge]\nmac = 00:00:00:00:00:00\n", &c), -EINVAL);
	assert_int_equal(parse("[bridge]\nmac = 02:00:5e:00:53\n", &c), -EINVAL);
	assert_int_equal(parse("[bridge]\nhost_interface = maybe\n", &c), -EINVAL);
	assert_int_equal(parse("[port eth1]\nhost_interface = on\n", &c), -EINVAL);
}

static void test_too_many_ports(void **state)
{
	static char text[32 * (XDPBR_PORTS_PER_BRIDGE + 2)];
	char line[32], want[64], last[16];
	struct config c;
	int i;

	text[0] = 0;
	for (i = 1; i <= XDPBR_PORTS_PER_BRIDGE; i++) {
		snprintf(line, sizeof(line), "[port p%d]\n", i);
		strcat(text, line);
	}
	parse_ok(text, &c);
	assert_int_equal(c.nports, XDPBR_PORTS_PER_BRIDGE);
	snprintf(last, sizeof(last), "p%d", XDPBR_PORTS_PER_BRIDGE);
	assert_string_equal(c.ports[XDPBR_PORTS_PER_BRIDGE - 1].name, last);
	config_free(&c);

	strcat(text, "[port one-too-many]\n");
	assert_int_equal(parse(text, &c), -EINVAL);
	snprintf(want, sizeof(want), NAME ":%d: too many ports (at most %d)",
		 XDPBR_PORTS_PER_BRIDGE + 1, XDPBR_PORTS_PER_BRIDGE);
	assert_string_equal(err, want);
	assert_zeroed(&c);
}

/* inih would cut a long line in two and parse the rest as a new line. */
static void test_long_line(void **state)
{
	char text[1200];
	struct config c;

	snprintf(text, sizeof(text), "[bridge]\nname = br0\nlisten = %0*d\nname = x\n", 1000, 0);
	assert_int_equal(parse(text, &c), -EINVAL);
	assert_string_equal(err, NAME ":3: line too long (at most 198 characters)");
	assert_zeroed(&c);

	/* 198 characters are fine (and too long an address for listen) */
	snprintf(text, sizeof(text), "[bridge]\nname = br0\nlisten = %0*d\n", 198 - 9, 0);
	assert_int_equal(parse(text, &c), -EINVAL);
	assert_int_equal(strncmp(err, NAME ":3: listen: '000", 20), 0);
	snprintf(text, sizeof(text), "[bridge]\nname = br0\nlisten = %0*d\n", 199 - 9, 0);
	assert_int_equal(parse(text, &c), -EINVAL);
	assert_string_equal(err, NAME ":3: line too long (at most 198 characters)");

	/* comments may be as long as they like */
	snprintf(text, sizeof(text), "[bridge]\n; %0*d\n   #%0*d\nname = br0\n", 1000, 0, 150, 0);
	parse_ok(text, &c);
	assert_string_equal(c.name, "br0");
	config_free(&c);
}

/* An error after ports and statics were allocated frees them (valgrind
 * checks the "frees"), leaves *c zeroed, and the caller's err is set. */
static void test_error_frees_and_zeroes(void **state)
{
	struct config c;

	assert_int_equal(parse("[bridge]\nname = br0\n"
			       "[port eth1]\nstatic = 02:00:00:00:00:01\nstatic = 02:00:00:00:00:02\n"
			       "[port eth2]\nstatic = 02:00:00:00:00:03\n"
			       "[port eth3]\nstatic = 02:00:00:00:00:01 vlan 1\nmax_learned = x\n",
			       &c), -EINVAL);
	assert_string_equal(err, NAME ":10: max_learned: 'x' is not a number");
	assert_zeroed(&c);
	/* freeing a zeroed config is harmless */
	config_free(&c);
	assert_zeroed(&c);
}

/* Messages are truncated to the caller's buffer, never overrun it; err may
 * be NULL. */
static void test_error_buffer(void **state)
{
	char small[16];
	struct config c;

	memset(small, 'J', sizeof(small));
	assert_int_equal(config_parse_string("x.conf", "[nope]\n", &c, small, 12), -EINVAL);
	assert_string_equal(small, "x.conf:1: u");
	assert_int_equal(small[12], 'J');
	assert_int_equal(config_parse_string("x.conf", "[nope]\n", &c, NULL, 0), -EINVAL);
	assert_zeroed(&c);
	assert_int_equal(config_parse_string("x.conf", "[bridge]\n", &c, NULL, 0), 0);
	config_free(&c);
}

/* Parses text from a temporary file (removed before anything is checked, so
 * a failing assertion leaves nothing behind); path receives its name. */
static int parse_temp(char *path, size_t pathlen, const char *text, size_t len,
		      struct config *c)
{
	int rc;

	write_temp(path, pathlen, text, len);
	memset(c, 0xa5, sizeof(*c));
	memset(err, 'J', sizeof(err) - 1);
	err[sizeof(err) - 1] = '\0';
	rc = config_parse_file(path, c, err, sizeof(err));
	unlink(path);
	return rc;
}

static void test_parse_file(void **state)
{
	char path[64], want[128];
	struct config c;

	assert_int_equal(parse_temp(path, sizeof(path), example, strlen(example), &c), 0);
	assert_string_equal(err, "");
	check_example(&c);
	config_free(&c);

	/* errors name the file */
	assert_int_equal(parse_temp(path, sizeof(path), "[bridge]\n\n\nmode = fast\n", 24, &c),
			 -EINVAL);
	snprintf(want, sizeof(want), "%s:4: mode: 'fast' is not native, generic or auto", path);
	assert_string_equal(err, want);
	assert_zeroed(&c);

	/* a file can hold a NUL byte, which would hide the rest of the line */
	assert_int_equal(parse_temp(path, sizeof(path), "[bridge]\nname = br0\0junk\n", 25, &c),
			 -EINVAL);
	snprintf(want, sizeof(want), "%s:2: the line contains a NUL byte", path);
	assert_string_equal(err, want);
	assert_zeroed(&c);

	/* an empty file is a valid, empty config */
	assert_int_equal(parse_temp(path, sizeof(path), "", 0, &c), 0);
	assert_string_equal(err, "");
	assert_zeroed(&c);
}

static void test_parse_file_unreadable(void **state)
{
	struct config c;

	memset(&c, 0xa5, sizeof(c));
	assert_int_equal(config_parse_file("/nonexistent/xdpbrd.conf", &c, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent/xdpbrd.conf: No such file or directory");
	assert_zeroed(&c);

	memset(&c, 0xa5, sizeof(c));
	assert_int_equal(config_parse_file("/", &c, err, sizeof(err)), -EISDIR);
	assert_string_equal(err, "/: Is a directory");
	assert_zeroed(&c);
}

/* The example shipped in etc/ must stay valid (run from the source tree). */
static void test_shipped_example(void **state)
{
	static const char path[] = "etc/xdpbrd.conf";
	const struct config_port *p;
	struct config c;

	if (access(path, R_OK))
		fail_msg("%s: not found; run the test from the top of the source tree", path);
	if (config_parse_file(path, &c, err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(c.name, "br0");
	assert_true(c.nports >= 1);
	/* its VLAN keys are the defaults, or examples that take effect only
	 * with vlan_filtering on */
	assert_true(GIVEN(c.set, VLAN_FILTERING));
	assert_false(VAL(c.set, VLAN_FILTERING));
	assert_true(GIVEN(c.set, DEFAULT_PVID));
	assert_int_equal(VAL(c.set, DEFAULT_PVID), XDPBR_DEFAULT_PVID);
	/* storm control: the uplink shows the keys with no limit, the host
	 * port eth2 has limits on broadcast and multicast */
	p = config_port_find(&c, "eth1");
	assert_non_null(p);
	for (int cls = 0; cls < XDPBR_STORM__MAX; cls++)
		assert_int_equal(setting_value(&p->set, (enum setting_id)(SET_STORM_BCAST + cls)), 0);
	p = config_port_find(&c, "eth2");
	assert_non_null(p);
	assert_int_equal(VAL(p->set, STORM_BCAST), 1000);
	assert_int_equal(VAL(p->set, STORM_MCAST), 1000);
	assert_int_equal(VAL(p->set, STORM_UNKNOWN), 0);
	config_free(&c);
}

static void test_port_find(void **state)
{
	struct config c;

	parse_ok("[port eth1]\n[port eth10]\n[port eth2]\n", &c);
	assert_ptr_equal(config_port_find(&c, "eth1"), &c.ports[0]);
	assert_ptr_equal(config_port_find(&c, "eth10"), &c.ports[1]);
	assert_ptr_equal(config_port_find(&c, "eth2"), &c.ports[2]);
	assert_null(config_port_find(&c, "eth"));
	assert_null(config_port_find(&c, "eth3"));
	config_free(&c);
	assert_null(config_port_find(&c, "eth1"));
}

static void test_port_equal(void **state)
{
	struct config a, b;

	parse_ok("[port eth1]\nisolated = on\nmax_learned = 5\n"
		 "static = 02:00:00:00:00:01\nstatic = 02:00:00:00:00:02 vlan 3\n", &a);

	/* the same port written differently: other order, lines, spelling */
	parse_ok("\n\n[port eth1]\nstatic = 02-00-00-00-00-02 vlan 3\nmax_learned = 5\n"
		 "isolated = yes\nlearning = on\nstatic = 02:00:00:00:00:01 vlan 0\n", &b);
	assert_true(config_port_equal(&a.ports[0], &b.ports[0]));
	assert_true(config_port_equal(&b.ports[0], &a.ports[0]));
	config_free(&b);

	static const char *const differ[] = {
		"[port eth2]\nisolated = on\nmax_learned = 5\n"
		"static = 02:00:00:00:00:01\nstatic = 02:00:00:00:00:02 vlan 3\n",
		"[port eth1]\nisolated = off\nmax_learned = 5\n"
		"static = 02:00:00:00:00:01\nstatic = 02:00:00:00:00:02 vlan 3\n",
		"[port eth1]\nisolated = on\nmax_learned = 6\n"
		"static = 02:00:00:00:00:01\nstatic = 02:00:00:00:00:02 vlan 3\n",
		"[port eth1]\nisolated = on\nmax_learned = 5\n"
		"static = 02:00:00:00:00:01\nstatic = 02:00:00:00:00:02 vlan 4\n",
		"[port eth1]\nisolated = on\nmax_learned = 5\n"
		"static = 02:00:00:00:00:01\nstatic = 02:00:00:00:00:03 vlan 3\n",
		"[port eth1]\nisolated = on\nmax_learned = 5\n"
		"static = 02:00:00:00:00:01\n",
		"[port eth1]\nisolated = on\nmax_learned = 5\n"
		"static = 02:00:00:00:00:01\nstatic = 02:00:00:00:00:02 vlan 3\n"
		"static = 02:00:00:00:00:03\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(differ); i++) {
		parse_ok(differ[i], &b);
		if (config_port_equal(&a.ports[0], &b.ports[0]) ||
		    config_port_equal(&b.ports[0], &a.ports[0]))
			fail_msg("case %zu: ports compare equal", i);
		config_free(&b);
	}
	config_free(&a);
}

/* Each storm limit counts; absent and 0 are the same (no limit). */
static void test_port_equal_storm(void **state)
{
	static const char base[] =
		"[port eth1]\nstorm_bcast = 100\nstorm_mcast = 200\n";
	static const char *const same[] = {
		"[port eth1]\nstorm_mcast = 200\nstorm_bcast = 0100\n",
		"[port eth1]\nstorm_bcast = 100\nstorm_unknown = 0\nstorm_mcast = 200\n",
	};
	static const char *const differ[] = {
		"[port eth1]\nstorm_bcast = 101\nstorm_mcast = 200\n",
		"[port eth1]\nstorm_bcast = 100\nstorm_mcast = 199\n",
		"[port eth1]\nstorm_bcast = 100\nstorm_mcast = 200\nstorm_unknown = 1\n",
		"[port eth1]\nstorm_mcast = 200\n",		/* a limit removed */
		"[port eth1]\nstorm_bcast = 200\nstorm_mcast = 100\n",	/* swapped */
		"[port eth1]\n",
	};
	struct config a, b;

	parse_ok(base, &a);
	for (size_t i = 0; i < ARRAY_SIZE(same); i++) {
		parse_ok(same[i], &b);
		if (!config_port_equal(&a.ports[0], &b.ports[0]) ||
		    !config_port_equal(&b.ports[0], &a.ports[0]))
			fail_msg("same case %zu: ports compare different", i);
		config_free(&b);
	}
	for (size_t i = 0; i < ARRAY_SIZE(differ); i++) {
		parse_ok(differ[i], &b);
		if (config_port_equal(&a.ports[0], &b.ports[0]) ||
		    config_port_equal(&b.ports[0], &a.ports[0]))
			fail_msg("differ case %zu: ports compare equal", i);
		config_free(&b);
	}
	config_free(&a);
}

/* Each VLAN field of a port counts; the spelling of a list does not. */
static void test_port_equal_vlans(void **state)
{
	static const char base[] =
		"[port eth1]\npvid = 10\nvlans = 20-22, 4094\nuntagged = 1,10\n";
	static const char *const same[] = {
		"[port eth1]\nuntagged = 10,1\nvlans = 4094,20,21,22 tagged\npvid = 10\n",
		"\n[port eth1]\nvlans = 20-21,22-22,4094\npvid = 010\nuntagged = 1-1, 10\n",
	};
	static const char *const differ[] = {
		/* pvid: value, unset, 0 */
		"[port eth1]\npvid = 1\nvlans = 20-22, 4094\nuntagged = 1,10\n",
		"[port eth1]\nvlans = 20-22, 4094\nuntagged = 1,10\n",
		"[port eth1]\npvid = 0\nvlans = 20-22, 4094\nuntagged = 1,10\n",
		/* vlans: one more, one less, moved to untagged */
		"[port eth1]\npvid = 10\nvlans = 20-23, 4094\nuntagged = 1,10\n",
		"[port eth1]\npvid = 10\nvlans = 20-22\nuntagged = 1,10\n",
		"[port eth1]\npvid = 10\nvlans = 20-21, 4094\nuntagged = 1,10,22\n",
		/* untagged: one more, one less */
		"[port eth1]\npvid = 10\nvlans = 20-22, 4094\nuntagged = 1,10,4093\n",
		"[port eth1]\npvid = 10\nvlans = 20-22, 4094\nuntagged = 10\n",
		/* a VLAN of the other 64-bit word */
		"[port eth1]\npvid = 10\nvlans = 20-22, 4094\nuntagged = 1,10,64\n",
	};
	struct config a, b;

	parse_ok(base, &a);
	for (size_t i = 0; i < ARRAY_SIZE(same); i++) {
		parse_ok(same[i], &b);
		if (!config_port_equal(&a.ports[0], &b.ports[0]) ||
		    !config_port_equal(&b.ports[0], &a.ports[0]))
			fail_msg("same case %zu: ports compare different", i);
		config_free(&b);
	}
	for (size_t i = 0; i < ARRAY_SIZE(differ); i++) {
		parse_ok(differ[i], &b);
		if (config_port_equal(&a.ports[0], &b.ports[0]) ||
		    config_port_equal(&b.ports[0], &a.ports[0]))
			fail_msg("differ case %zu: ports compare equal", i);
		config_free(&b);
	}
	config_free(&a);

	/* the "set" flags alone: pvid = 0 against no pvid, and a port whose
	 * lists are empty but set (made by hand: a parsed list is never empty)
	 * against one without lists */
	parse_ok("[port eth1]\n", &a);
	parse_ok("[port eth1]\npvid = 0\n", &b);
	assert_true(GIVEN(b.ports[0].set, PVID));
	assert_false(config_port_equal(&a.ports[0], &b.ports[0]));
	assert_false(config_port_equal(&b.ports[0], &a.ports[0]));
	b.ports[0].set.given &= ~(1ULL << SET_PVID);
	assert_true(config_port_equal(&a.ports[0], &b.ports[0]));
	b.ports[0].set.given |= 1ULL << SET_VLANS;
	assert_false(config_port_equal(&a.ports[0], &b.ports[0]));
	assert_false(config_port_equal(&b.ports[0], &a.ports[0]));
	config_free(&b);
	config_free(&a);
}

static void test_listen_parse(void **state)
{
	static const char *const bad[] = {
		"", "127.0.0.1", "127.0.0.1:", ":9638", "127.0.0.1:0", "127.0.0.1:65536",
		"127.0.0.1:+80", "127.0.0.1:80x", "127.1:80", "256.0.0.1:80", "localhost:80",
		"::1:80", "[::1]", "[::1]80", "[::1:80", "[]:80", "[127.0.0.1]:80",
		"[fe80::1%eth0]:80", " 127.0.0.1:80",
	};
	struct sockaddr_storage sa;
	struct sockaddr_in *sin = (struct sockaddr_in *)&sa;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&sa;
	socklen_t len = 0;
	struct in6_addr want6;

	assert_int_equal(config_listen_parse("127.0.0.1:9638", &sa, &len), 0);
	assert_int_equal(sin->sin_family, AF_INET);
	assert_int_equal(ntohs(sin->sin_port), 9638);
	assert_int_equal(ntohl(sin->sin_addr.s_addr), 0x7f000001);
	assert_int_equal(len, sizeof(*sin));

	assert_int_equal(config_listen_parse("0.0.0.0:65535", &sa, &len), 0);
	assert_int_equal(ntohs(sin->sin_port), 65535);
	assert_int_equal(sin->sin_addr.s_addr, 0);

	assert_int_equal(config_listen_parse("[2001:db8::1]:1", &sa, &len), 0);
	assert_int_equal(sin6->sin6_family, AF_INET6);
	assert_int_equal(ntohs(sin6->sin6_port), 1);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8::1", &want6), 1);
	assert_memory_equal(&sin6->sin6_addr, &want6, sizeof(want6));
	assert_int_equal(len, sizeof(*sin6));

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (config_listen_parse(bad[i], &sa, &len) != -EINVAL)
			fail_msg("config_listen_parse(\"%s\") accepted", bad[i]);
	assert_int_equal(config_listen_parse(NULL, &sa, &len), -EINVAL);
}

/* datapath: the bridge's default and a port's own; anything else is an
 * error at its line. */
static void test_datapath(void **state)
{
	struct config c;

	parse_ok("[bridge]\nname = br0\n[port eth1]\n", &c);
	assert_int_equal(VAL(c.set, DATAPATH), PORT_PATH_AUTO);
	assert_int_equal(VAL(c.ports[0].set, PORT_DATAPATH), PORT_PATH_AUTO);
	config_free(&c);

	parse_ok("[bridge]\nname = br0\ndatapath = tc\n[port eth1]\ndatapath = xdp\n"
		 "[port eth2]\n", &c);
	assert_int_equal(VAL(c.set, DATAPATH), PORT_PATH_TC);
	assert_int_equal(VAL(c.ports[0].set, PORT_DATAPATH), PORT_PATH_XDP);
	assert_int_equal(VAL(c.ports[1].set, PORT_DATAPATH), PORT_PATH_AUTO);
	config_free(&c);

	assert_int_equal(parse("[bridge]\nname = br0\n[port eth1]\ndatapath = dpdk\n", &c),
			 -EINVAL);
	assert_non_null(strstr(err, NAME ":4:"));
	assert_non_null(strstr(err, "auto, xdp or tc"));
	assert_zeroed(&c);
}

/* "none" is a listen value (no endpoint), in the file as with xdpbrd -l: the
 * file stores it as given, and the one parser of listen values accepts what
 * the file stored (a fuzz finding: the two disagreed). */
static void test_listen_none(void **state)
{
	struct sockaddr_storage sa;
	socklen_t len = 99;
	struct config c;

	parse_ok("[bridge]\nname = br0\nlisten = none\n", &c);
	assert_string_equal(c.listen, CONFIG_LISTEN_NONE);
	assert_true(config_listen_none(c.listen));
	memset(&sa, 0xff, sizeof(sa));
	assert_int_equal(config_listen_parse(c.listen, &sa, &len), 0);
	assert_int_equal(sa.ss_family, AF_UNSPEC);
	assert_int_equal(len, 0);
	config_free(&c);

	assert_false(config_listen_none("127.0.0.1:9638"));
	assert_false(config_listen_none(""));
	assert_false(config_listen_none(NULL));
	assert_false(config_listen_none("None"));
	assert_int_equal(config_listen_parse("None", &sa, &len), -EINVAL);
	assert_int_equal(config_listen_parse("none:80", &sa, &len), -EINVAL);
	assert_int_equal(config_listen_parse("none ", &sa, &len), -EINVAL);
	assert_int_equal(parse("[bridge]\nlisten = None\n", &c), -EINVAL);
	assert_string_equal(err, NAME ":2: listen: 'None': no ':PORT' (expected ADDR:PORT, "
			    "[IPv6]:PORT or none, e.g. 127.0.0.1:9638)");
	assert_zeroed(&c);
}

/* The spanning tree keys: defaults (zero = not given), values, the host
 * port's edge default, and what config_stp_effective completes. */
static void test_stp_keys(void **state)
{
	struct config c;
	struct config_stp e;
	struct stp_port_cfg pc;

	parse_ok("", &c);
	config_stp_effective(&c.stp, &e);
	assert_false(e.on);
	assert_int_equal(e.priority, 32768);
	assert_int_equal(e.hello_time, 2);
	assert_int_equal(e.max_age, 20);
	assert_int_equal(e.forward_delay, 15);
	config_stp_port(NULL, false, &pc);
	assert_int_equal(pc.priority, 128);
	assert_int_equal(pc.edge, STP_EDGE_AUTO);
	config_stp_port(NULL, true, &pc);
	assert_int_equal(pc.edge, STP_EDGE_ON);	/* the host interface's port */
	config_free(&c);

	parse_ok("[bridge]\nstp = on\npriority = 0\nhello_time = 1\nmax_age = 6\n"
		 "forward_delay = 4\n[port eth1]\npath_cost = 12345\nport_priority = 0\n"
		 "edge = off\nroot_guard = yes\n"
		 "[port eth2]\nedge = auto\n"
		 "[port eth3]\nbpdu_guard = on\nbpdu_guard_timeout = 30\nedge = on\n", &c);
	config_stp_effective(&c.stp, &e);
	assert_true(e.on);
	assert_int_equal(e.priority, 0);
	assert_int_equal(e.hello_time, 1);
	assert_int_equal(e.max_age, 6);
	assert_int_equal(e.forward_delay, 4);
	config_stp_port(&c.ports[0], true, &pc);
	assert_int_equal(pc.path_cost, 12345);
	assert_int_equal(pc.priority, 0);
	assert_int_equal(pc.edge, STP_EDGE_OFF);	/* given: wins over the host default */
	assert_false(pc.bpdu_guard);
	assert_true(pc.root_guard);
	config_stp_port(&c.ports[1], false, &pc);
	assert_int_equal(pc.edge, STP_EDGE_AUTO);
	assert_int_equal(pc.priority, 128);
	assert_false(pc.bpdu_guard);
	assert_false(pc.root_guard);	/* off unless set */
	config_stp_port(&c.ports[2], false, &pc);
	assert_int_equal(pc.edge, STP_EDGE_ON);
	assert_true(pc.bpdu_guard);
	assert_int_equal(pc.bpdu_guard_timeout, 30);
	config_free(&c);
}

static void test_stp_errors(void **state)
{
	static const struct error_case cases[] = {
		{ "[bridge]\nstp = maybe\n",
		  NAME ":2: stp: 'maybe' is not a boolean (on/off, yes/no, true/false, 1/0)" },
		{ "[bridge]\npriority = 4097\n",
		  NAME ":2: priority: 4097 is not a multiple of 4096 (0, 4096, ... 61440; "
		  "lower wins the root election)" },
		{ "[bridge]\npriority = 65536\n",
		  NAME ":2: priority: 65536 is out of range (0..61440)" },
		{ "[bridge]\nhello_time = 0\n", NAME ":2: hello_time: 0 is out of range (1..10)" },
		{ "[bridge]\nmax_age = 41\n", NAME ":2: max_age: 41 is out of range (6..40)" },
		{ "[bridge]\nforward_delay = 3\n",
		  NAME ":2: forward_delay: 3 is out of range (4..30)" },
		/* the relation, at the last timer key given, defaults for the others */
		{ "[bridge]\nforward_delay = 4\nstp = on\n",
		  NAME ":2: max_age is more than 2 * (forward_delay - 1) (hello_time 2, "
		  "max_age 20, forward_delay 4; 802.1D requires 2 * (forward_delay - 1) >= "
		  "max_age >= 2 * (hello_time + 1))" },
		{ "[bridge]\nmax_age = 6\nhello_time = 4\n[port eth1]\n",
		  NAME ":3: max_age is less than 2 * (hello_time + 1) (hello_time 4, max_age 6, "
		  "forward_delay 15; 802.1D requires 2 * (forward_delay - 1) >= max_age >= "
		  "2 * (hello_time + 1))" },
		{ "[port eth1]\npath_cost = 200000001\n",
		  NAME ":2: path_cost: 200000001 is out of range (0..200000000)" },
		{ "[port eth1]\nport_priority = 100\n",
		  NAME ":2: port_priority: 100 is not a multiple of 16 (0, 16, ... 240)" },
		{ "[port eth1]\nedge = sometimes\n",
		  NAME ":2: edge: 'sometimes' is not on, off or auto" },
		{ "[port eth1]\nbpdu_guard_timeout = 86401\n",
		  NAME ":2: bpdu_guard_timeout: 86401 is out of range (0..86400)" },
		{ "[port eth1]\nedge = on\nedge = off\n",
		  NAME ":3: duplicate key 'edge' in [port eth1] (first on line 2)" },
		/* a guard that could never act */
		{ "[port eth1]\nbpdu_guard = on\n[port eth2]\n",
		  NAME ":2: bpdu_guard: acts only on an admin edge port: add 'edge = on' to "
		  "[port eth1] (with edge auto, the default, it would never shut the port)" },
		{ "[port eth1]\nbpdu_guard = yes\nedge = off\n",
		  NAME ":2: bpdu_guard: acts only on an admin edge port: add 'edge = on' to "
		  "[port eth1] (with edge off it would never shut the port)" },
		{ "[port eth1]\nedge = auto\nbpdu_guard = on\n",
		  NAME ":3: bpdu_guard: acts only on an admin edge port: add 'edge = on' to "
		  "[port eth1] (with edge auto it would never shut the port)" },
	};

	check_errors(cases, ARRAY_SIZE(cases));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_row_is_a_key),
		cmocka_unit_test(test_full_example),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_ports_only),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_booleans),
		cmocka_unit_test(test_host_interface),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_number_ranges),
		cmocka_unit_test(test_repeated_static),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_indented_lines_stand_alone),
		cmocka_unit_test(test_crlf_bom),
		cmocka_unit_test(test_errors_sections),
		cmocka_unit_test(test_errors_keys),
		cmocka_unit_test(test_errors_values),
		cmocka_unit_test(test_errors_static),
		cmocka_unit_test(test_storm),
		cmocka_unit_test(test_errors_storm),
		cmocka_unit_test(test_vlan_bridge),
		cmocka_unit_test(test_vlan_lists),
		cmocka_unit_test(test_vlan_ports),
		cmocka_unit_test(test_errors_vlan),
		cmocka_unit_test(test_vlan_error_frees),
		cmocka_unit_test(test_first_error_wins),
		cmocka_unit_test(test_error_line_deep_in_file),
		cmocka_unit_test(test_too_many_ports),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_error_frees_and_zeroes),
		cmocka_unit_test(test_error_buffer),
		cmocka_unit_test(test_parse_file),
		cmocka_unit_test(test_parse_file_unreadable),
		cmocka_unit_test(test_shipped_example),
		cmocka_unit_test(test_port_find),
		cmocka_unit_test(test_port_equal),
		cmocka_unit_test(test_port_equal_vlans),
		cmocka_unit_test(test_port_equal_storm),
		cmocka_unit_test(test_listen_parse),
		cmocka_unit_test(test_datapath),
		cmocka_unit_test(test_listen_none),
		cmocka_unit_test(test_vxlan),
		cmocka_unit_test(test_errors_vxlan),
		cmocka_unit_test(test_stp_keys),
		cmocka_unit_test(test_stp_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_util.c - lib/util.c: MAC text, names, prefixes, numbers, clocks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "xdpbr.h"
#include "util.h"

static void test_mac_parse_valid(void **state)
{
	static const uint8_t want[6] = { 0x02, 0x00, 0x5e, 0x00, 0x53, 0x01 };
	uint8_t mac[6];

	assert_int_equal(mac_parse("02:00:5e:00:53:01", mac), 0);
	assert_memory_equal(mac, want, 6);
}

static void test_mac_parse_uppercase_and_dashes(void **state)
{
	static const uint8_t want[6] = { 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	uint8_t mac[6];

	assert_int_equal(mac_parse("AA:BB:CC:DD:EE:FF", mac), 0);
	assert_memory_equal(mac, want, 6);
	memset(mac, 0, sizeof(mac));
	assert_int_equal(mac_parse("aa-bb-cc-dd-ee-ff", mac), 0);
	assert_memory_equal(mac, want, 6);
}

/* One or two digits an octet, as iproute2's `bridge fdb add` takes them. */
static void test_mac_parse_short_octets(void **state)
{
	static const uint8_t want[6] = { 0x02, 0x00, 0x5e, 0x00, 0x53, 0x01 };
	static const char *const forms[] = {
		"2:0:5e:0:53:1", "02:0:5E:00:53:1", "2-0-5e-0-53-1", "02:00:5e:00:53:1",
	};
	uint8_t mac[6];

	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		memset(mac, 0xff, sizeof(mac));
		if (mac_parse(forms[i], mac))
			fail_msg("mac_parse(\"%s\") refused", forms[i]);
		assert_memory_equal(mac, want, 6);
	}
	assert_int_equal(mac_parse("a:b:c:d:e:f", mac), 0);
	assert_int_equal(mac[0], 0x0a);
	assert_int_equal(mac[5], 0x0f);
}

static void test_mac_parse_invalid(void **state)
{
	static const char *const bad[] = {
		"",
		"02",
		"02:00:5e:00:53",		/* five octets */
		"02:00:5e:00:53:",		/* separator, no octet */
		"02:00:5e:00:53:01:",		/* trailing separator */
		"02:00:5e:00:53:01:02",		/* seven octets */
		"02:00:5e:00:53:01 ",		/* trailing space */
		" 02:00:5e:00:53:01",		/* leading space */
		"02:00:5e:00:53:0g",		/* bad hex */
		"0x:00:5e:00:53:01",
		"02.00.5e.00.53.01",		/* wrong separator */
		"02:00:5e:00:5301",		/* missing separator */
		"020:0:5e:00:53:01",		/* three digits */
		"02:00:5e:00:53:001",
		"::5e:00:53:01",		/* an empty octet */
		"02:00:5e:00::01",
	};
	uint8_t mac[6];

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (mac_parse(bad[i], mac) != -EINVAL)
			fail_msg("mac_parse(\"%s\") accepted", bad[i]);
	}
	assert_int_equal(mac_parse(NULL, mac), -EINVAL);
}

/* Interface names may hold any byte but '/', ':' and whitespace: shown as
 * printable ASCII and valid UTF-8, the rest as \xNN, '\' doubled. */
static void test_name_escape(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "eth0", "eth0" },
		{ "", "" },
		{ "a\x01" "b", "a\\x01b" },			/* a control character */
		{ "a\x1b[2J", "a\\x1b[2J" },		/* ESC: no terminal tricks */
		{ "a\x7f", "a\\x7f" },			/* DEL */
		{ "x\xff\xfe", "x\\xff\\xfe" },		/* not UTF-8 */
		{ "caf\xc3\xa9", "caf\xc3\xa9" },		/* valid UTF-8: kept */
		{ "\xe2\x82\xac" "1", "\xe2\x82\xac" "1" },	/* U+20AC, 3 bytes */
		{ "\xf0\x9f\x90\xa7", "\xf0\x9f\x90\xa7" },	/* U+1F427, 4 bytes */
		{ "\xc3", "\\xc3" },				/* cut short by the NUL */
		{ "\xc3(", "\\xc3(" },			/* a bad continuation */
		{ "\xc0\xaf", "\\xc0\\xaf" },		/* overlong '/' */
		{ "\xe0\x80\xaf", "\\xe0\\x80\\xaf" },	/* overlong, 3 bytes */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },	/* a surrogate */
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },	/* > U+10FFFF */
		{ "\xc2\x9b", "\\xc2\\x9b" },		/* C1 control (CSI) */
		{ "\xc2\xa0", "\xc2\xa0" },			/* U+00A0: printable */
		{ "a\\b", "a\\\\b" },			/* a backslash, doubled */
		{ "a b", "a\\x20b" },				/* a space */
	};
	char out[IFNAME_SHOWN];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		name_escape(cases[i].in, out, sizeof(out));
		if (strcmp(out, cases[i].out))
			fail_msg("case %zu: got '%s', want '%s'", i, out, cases[i].out);
	}
	/* the longest name: 15 bytes, 4 characters each */
	assert_string_equal(name_escape("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a"
					"\x0b\x0c\x0d\x0e\x0f", out, sizeof(out)),
			    "\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\x09\\x0a"
			    "\\x0b\\x0c\\x0d\\x0e\\x0f");
	/* truncated, never cut inside an escape */
	assert_string_equal(name_escape("ab\x01", out, 6), "ab");
	assert_string_equal(name_escape("ab\x01", out, 7), "ab\\x01");
	assert_string_equal(name_escape("abc", out, 1), "");
}

/* A message: the same, but spaces, newlines and '\' are kept. */
static void test_text_escape(void **state)
{
	char out[64];

	assert_string_equal(text_escape("port a\x01\xff b\\c\nnext", out, sizeof(out)),
			    "port a\\x01\\xff b\\c\nnext");
	assert_string_equal(text_escape("tab\there caf\xc3\xa9", out, sizeof(out)),
			    "tab\\x09here caf\xc3\xa9");
}

static void test_mac_format(void **state)
{
	static const uint8_t mac[6] = { 0x02, 0x0a, 0xf0, 0x00, 0x53, 0xff };
	char buf[MAC_STRLEN + 4];
	uint8_t back[6];

	memset(buf, 'X', sizeof(buf));
	assert_ptr_equal(mac_format(mac, buf), buf);
	assert_string_equal(buf, "02:0a:f0:00:53:ff");	/* lower case, zero padded */
	assert_int_equal(strlen(buf), MAC_STRLEN - 1);
	assert_int_equal(buf[MAC_STRLEN], 'X');		/* nothing written past it */
	assert_int_equal(mac_parse(buf, back), 0);
	assert_memory_equal(back, mac, 6);
}

static void test_mac_round_trip(void **state)
{
	char buf[MAC_STRLEN];
	uint8_t mac[6], back[6];

	for (unsigned int v = 0; v < 256; v++) {
		for (int i = 0; i < 6; i++)
			mac[i] = (uint8_t)(v * 37 + (unsigned int)i * 101);
		assert_int_equal(mac_parse(mac_format(mac, buf), back), 0);
		assert_memory_equal(back, mac, 6);
	}
}

static void test_bridge_name_valid(void **state)
{
	static const char *const good[] = {
		"br0", "b", "my_bridge-1.2", "...", "BR0",
		"abcdefghijklmno",		/* 15 characters: the limit */
	};
	static const char *const bad[] = {
		"", ".", "..", "br/0", "/", "../br0", "br 0", " br0", "br0\n",
		"br0:1", "br\xc3\xa9",
		"abcdefghijklmnop",		/* 16 characters */
	};

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (bridge_name_valid(good[i]))
			fail_msg("bridge name '%s' rejected", good[i]);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (bridge_name_valid(bad[i]) != -EINVAL)
			fail_msg("bridge name '%s' accepted", bad[i]);
	assert_int_equal(bridge_name_valid(NULL), -EINVAL);
}

static void test_matches(void **state)
{
	assert_true(matches("f", "fdb"));
	assert_true(matches("fd", "fdb"));
	assert_true(matches("fdb", "fdb"));
	assert_false(matches("fdbx", "fdb"));	/* longer than the word */
	assert_false(matches("", "fdb"));	/* empty is no abbreviation */
	assert_false(matches("db", "fdb"));	/* not a prefix */
	assert_false(matches("F", "fdb"));	/* case matters */
	assert_false(matches("x", ""));
}

static void test_parse_u64_valid(void **state)
{
	uint64_t v = 7;

	assert_int_equal(parse_u64("0", 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_u64("4094", 4094, &v), 0);	/* max is inclusive */
	assert_int_equal(v, 4094);
	assert_int_equal(parse_u64("007", 10, &v), 0);		/* decimal, not octal */
	assert_int_equal(v, 7);
	assert_int_equal(parse_u64("18446744073709551615", UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
}

static void test_parse_u64_invalid(void **state)
{
	static const char *const bad[] = {
		"", "-1", "+1", " 1", "1 ", "12a", "0x10", "1.5", "abc", "1e3",
	};
	uint64_t v = 1234;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (parse_u64(bad[i], UINT64_MAX, &v) != -EINVAL)
			fail_msg("parse_u64(\"%s\") did not fail with -EINVAL", bad[i]);
	assert_int_equal(parse_u64(NULL, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(v, 1234);		/* untouched on error */
}

static void test_parse_u64_range(void **state)
{
	uint64_t v = 1234;

	assert_int_equal(parse_u64("4095", 4094, &v), -ERANGE);
	assert_int_equal(parse_u64("18446744073709551616", UINT64_MAX, &v), -ERANGE);
	assert_int_equal(parse_u64("99999999999999999999999", UINT64_MAX, &v), -ERANGE);
	assert_int_equal(parse_u64("1", 0, &v), -ERANGE);
	assert_int_equal(v, 1234);
}

static void test_mono_ns(void **state)
{
	uint64_t a = mono_ns(), b = mono_ns();

	assert_true(a > 0);
	assert_true(b >= a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mac_parse_valid),
		cmocka_unit_test(test_mac_parse_uppercase_and_dashes),
		cmocka_unit_test(test_mac_parse_short_octets),
		cmocka_unit_test(test_mac_parse_invalid),
		cmocka_unit_test(test_name_escape),
		cmocka_unit_test(test_text_escape),
		cmocka_unit_test(test_mac_format),
		cmocka_unit_test(test_mac_round_trip),
		cmocka_unit_test(test_bridge_name_valid),
		cmocka_unit_test(test_matches),
		cmocka_unit_test(test_parse_u64_valid),
		cmocka_unit_test(test_parse_u64_invalid),
		cmocka_unit_test(test_parse_u64_range),
		cmocka_unit_test(test_mono_ns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_hostif.c - lib/hostif.c: the names and the address of a bridge's
 * host interface (the netlink side is tested by test_hostif.sh). */
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hostif.h"
#include "overlay.h"

static void test_port_name_short(void **state)
{
	char buf[IF_NAMESIZE];

	hostif_port_name("br0", buf);
	assert_string_equal(buf, "br0-host");
	hostif_port_name("abcdefghij", buf);		/* 10 + 5 = 15: fits */
	assert_string_equal(buf, "abcdefghij-host");
}

static void test_port_name_long(void **state)
{
	char a[IF_NAMESIZE], b[IF_NAMESIZE], c[IF_NAMESIZE];

	hostif_port_name("abcdefghijk", a);		/* 16 would not fit */
	hostif_port_name("abcdefghijl", b);
	hostif_port_name("abcdefghijk", c);
	assert_int_equal(strlen(a), 11);
	assert_memory_equal(a, "xbh", 3);
	assert_string_not_equal(a, b);			/* the hash tells them apart */
	assert_string_equal(a, c);			/* and is stable */
	hostif_port_name("0123456789abcde", a);	/* the longest bridge name */
	assert_true(strlen(a) < IF_NAMESIZE);
}

/* The overlay's objects (lib/overlay.h) are named like the host
 * interface's port: after the bridge when that fits, else by its hash. */
static void test_overlay_names(void **state)
{
	char h[IF_NAMESIZE];
	struct overlay o;

	overlay_names("br0", &o);
	assert_string_equal(o.name[OV_KBRIDGE], "br0-kbr");
	assert_string_equal(o.name[OV_VXLAN], "br0-vx");
	assert_string_equal(o.name[OV_GWK], "br0-gwk");
	assert_string_equal(o.name[OV_GW], "br0-gw");
	overlay_names("abcdefghijk", &o);		/* 11 + "-kbr" = 15 */
	assert_string_equal(o.name[OV_KBRIDGE], "abcdefghijk-kbr");
	overlay_names("abcdefghijkl", &o);		/* 12: hashed, all but -vx/-gw */
	hostif_port_name_hashed("abcdefghijkl", h);
	assert_string_equal(o.name[OV_VXLAN], "abcdefghijkl-vx");
	assert_string_equal(o.name[OV_GW], "abcdefghijkl-gw");
	assert_int_equal(strlen(o.name[OV_KBRIDGE]), 11);
	assert_memory_equal(o.name[OV_KBRIDGE], "xvb", 3);
	assert_string_equal(o.name[OV_KBRIDGE] + 3, h + 3);
	assert_string_equal(o.name[OV_GWK] + 3, h + 3);
	assert_memory_equal(o.name[OV_GWK], "xvk", 3);
	overlay_names("abcdefghijklmno", &o);	/* 15 */
	for (int i = 0; i < OV__MAX; i++)
		assert_true(strlen(o.name[i]) < IF_NAMESIZE);
	assert_string_not_equal(o.name[OV_GW], o.name[OV_GWK]);
}

static void test_mac_derived(void **state)
{
	uint8_t a[6], b[6], c[6], d[6];

	hostif_mac_derive("0123456789abcdef0123456789abcdef", "br0", a);
	hostif_mac_derive("0123456789abcdef0123456789abcdef", "br0", b);
	hostif_mac_derive("0123456789abcdef0123456789abcdef", "br1", c);
	hostif_mac_derive("fedcba9876543210fedcba9876543210", "br0", d);
	assert_memory_equal(a, b, 6);			/* the same after a restart */
	assert_memory_not_equal(a, c, 6);		/* per bridge */
	assert_memory_not_equal(a, d, 6);		/* per machine */
	for (int i = 0; i < 4; i++) {
		const uint8_t *m = (const uint8_t *[]){ a, b, c, d }[i];

		assert_int_equal(m[0] & 1, 0);		/* unicast */
		assert_int_equal(m[0] & 2, 2);		/* locally administered */
	}
}

static void test_mac_without_machine_id(void **state)
{
	uint8_t a[6], b[6];
	static const uint8_t zero[6];

	hostif_mac_derive("", "br0", a);
	hostif_mac_derive("", "br0", b);
	assert_memory_equal(a, b, 6);
	assert_memory_not_equal(a, zero, 6);
	assert_int_equal(a[0] & 3, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_name_short),
		cmocka_unit_test(test_port_name_long),
		cmocka_unit_test(test_overlay_names),
		cmocka_unit_test(test_mac_derived),
		cmocka_unit_test(test_mac_without_machine_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

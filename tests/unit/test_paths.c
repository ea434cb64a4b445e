// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_paths.c - lib/paths.c: where the pins and the event socket are, for
 * each place a process can run in (the namespace inodes injected). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "xdpbr.h"
#include "xdpbr_maps.h"
#include "paths.h"

#define HOST_NET 4026531833ULL
#define HOST_MNT 4026531832ULL
#define NS_NET 4026532322ULL
#define NS_MNT 4026532391ULL
#define NS_COOKIE 4097ULL

/* The host itself, and a service of the host's network namespace in a
 * mount namespace of its own (systemd's sandboxing, tests' private bpffs):
 * the paths of before, in its own /sys/fs/bpf. */
static void test_host_netns(void **state)
{
	const struct ns_ids ids[] = {
		{ HOST_NET, HOST_MNT, HOST_NET, HOST_MNT, 1 },
		{ HOST_NET, NS_MNT, HOST_NET, HOST_MNT, 1 },
	};
	struct xdpbr_paths p;

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		assert_false(paths_need_host_bpffs(&ids[i]));
		assert_int_equal(paths_build(&p, &ids[i], -1), 0);
		assert_false(p.keyed);
		assert_false(p.remote);
		assert_int_equal(p.netns, HOST_NET);
		assert_string_equal(p.bpffs, "/sys/fs/bpf");
		assert_string_equal(p.pin_root, "/sys/fs/bpf/xdpbr");
		assert_string_equal(p.pin_root_shown, "/sys/fs/bpf/xdpbr");
		assert_string_equal(p.netns_dir, "/sys/fs/bpf/xdpbr-netns");	/* to collect */
		assert_string_equal(p.run_dir, "/run/xdpbr");
		assert_string_equal(p.iproute2_dir, "/sys/fs/bpf/tc/globals");
	}
}

/* The host's namespaces unreadable (a sandbox without CAP_SYS_PTRACE), or
 * ours (no /proc): taken for the host, as before namespaces were told
 * apart. */
static void test_unknown_is_host(void **state)
{
	const struct ns_ids ids[] = {
		{ NS_NET, NS_MNT, 0, 0, NS_COOKIE },
		{ 0, 0, HOST_NET, HOST_MNT, 0 },
		{ 0, 0, 0, 0, 0 },
	};
	struct xdpbr_paths p;

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		assert_false(paths_need_host_bpffs(&ids[i]));
		assert_int_equal(paths_build(&p, &ids[i], -1), 0);
		assert_false(p.keyed);
		assert_string_equal(p.pin_root, "/sys/fs/bpf/xdpbr");
		assert_string_equal(p.run_dir, "/run/xdpbr");
	}
	assert_int_equal(p.netns, 0);	/* the datapath then counts any device */
}

/* Another network namespace entered alone (nsenter --net): the host's own
 * /sys/fs/bpf, keyed by the namespace. */
static void test_netns_host_mounts(void **state)
{
	const struct ns_ids ids = { NS_NET, HOST_MNT, HOST_NET, HOST_MNT, NS_COOKIE };
	struct xdpbr_paths p;

	assert_false(paths_need_host_bpffs(&ids));
	assert_int_equal(paths_build(&p, &ids, -1), 0);
	assert_true(p.keyed);
	assert_false(p.remote);
	assert_int_equal(p.netns, NS_NET);
	assert_int_equal(p.cookie, NS_COOKIE);
	assert_string_equal(p.bpffs, "/sys/fs/bpf");
	assert_string_equal(p.netns_dir, "/sys/fs/bpf/xdpbr-netns");
	assert_string_equal(p.pin_root, "/sys/fs/bpf/xdpbr-netns/cookie-4097");
	assert_string_equal(p.pin_root_shown, p.pin_root);
	assert_string_equal(p.run_dir, "/run/xdpbr/netns-cookie-4097");
	assert_string_equal(p.iproute2_dir, "/sys/fs/bpf/tc/globals");
}

/* ip netns exec: another network and mount namespace; the host's bpffs
 * through the descriptor, never the /sys/fs/bpf of this mount namespace. */
static void test_ip_netns_exec(void **state)
{
	const struct ns_ids ids = { NS_NET, NS_MNT, HOST_NET, HOST_MNT, NS_COOKIE };
	struct xdpbr_paths p;

	assert_true(paths_need_host_bpffs(&ids));
	assert_int_equal(paths_build(&p, &ids, 7), 0);
	assert_true(p.keyed);
	assert_true(p.remote);
	assert_string_equal(p.bpffs, "/proc/self/fd/7");
	assert_string_equal(p.netns_dir, "/proc/self/fd/7/xdpbr-netns");
	assert_string_equal(p.pin_root, "/proc/self/fd/7/xdpbr-netns/cookie-4097");
	assert_string_equal(p.pin_root_shown, "/sys/fs/bpf/xdpbr-netns/cookie-4097");
	assert_string_equal(p.run_dir, "/run/xdpbr/netns-cookie-4097");
	assert_string_equal(p.iproute2_dir, "/proc/self/fd/7/tc/globals");
	/* without the descriptor there is nothing to build on */
	assert_int_equal(paths_build(&p, &ids, -1), -EBADF);
}

/* Another namespace without a cookie (a kernel before 5.14): no paths,
 * rather than ones keyed by an inode number the kernel hands out again. */
static void test_netns_needs_cookie(void **state)
{
	const struct ns_ids ids = { NS_NET, HOST_MNT, HOST_NET, HOST_MNT, 0 };
	struct xdpbr_paths p;

	assert_int_equal(paths_build(&p, &ids, -1), -EOPNOTSUPP);
}

/* The inode is the one a later namespace may get; the cookie is not. */
static void test_same_inode_apart(void **state)
{
	const struct ns_ids dead = { NS_NET, HOST_MNT, HOST_NET, HOST_MNT, NS_COOKIE };
	const struct ns_ids next = { NS_NET, HOST_MNT, HOST_NET, HOST_MNT, NS_COOKIE + 1 };
	struct xdpbr_paths pa, pb;

	assert_int_equal(paths_build(&pa, &dead, -1), 0);
	assert_int_equal(paths_build(&pb, &next, -1), 0);
	assert_string_not_equal(pa.pin_root, pb.pin_root);
	assert_string_not_equal(pa.run_dir, pb.run_dir);
}

/* Two namespaces: two places for a bridge of the same name. */
static void test_two_netns_apart(void **state)
{
	const struct ns_ids a = { NS_NET, NS_MNT, HOST_NET, HOST_MNT, NS_COOKIE };
	const struct ns_ids b = { NS_NET + 1, NS_MNT + 1, HOST_NET, HOST_MNT, NS_COOKIE + 1 };
	struct xdpbr_paths pa, pb;
	char x[128], y[128];

	assert_int_equal(paths_build(&pa, &a, 3), 0);
	assert_int_equal(paths_build(&pb, &b, 3), 0);
	assert_int_equal(pin_path_in(&pa, x, sizeof(x), "br0", NULL), 0);
	assert_int_equal(pin_path_in(&pb, y, sizeof(y), "br0", NULL), 0);
	assert_string_not_equal(x, y);
	assert_int_equal(sock_path_in(&pa, x, sizeof(x), "br0"), 0);
	assert_int_equal(sock_path_in(&pb, y, sizeof(y), "br0"), 0);
	assert_string_not_equal(x, y);
}

static void test_pin_path(void **state)
{
	const struct ns_ids host = { HOST_NET, HOST_MNT, HOST_NET, HOST_MNT, 1 };
	const struct ns_ids ns = { NS_NET, NS_MNT, HOST_NET, HOST_MNT, NS_COOKIE };
	struct xdpbr_paths p;
	char buf[128];

	assert_int_equal(paths_build(&p, &host, -1), 0);
	assert_int_equal(pin_path_in(&p, buf, sizeof(buf), "br0", NULL), 0);
	assert_string_equal(buf, "/sys/fs/bpf/xdpbr/br0");
	assert_int_equal(pin_path_in(&p, buf, sizeof(buf), "br0", XDPBR_MAP_NAME(fdb)), 0);
	assert_string_equal(buf, "/sys/fs/bpf/xdpbr/br0/xdpbr_fdb");
	assert_int_equal(paths_build(&p, &ns, 12), 0);
	assert_int_equal(pin_path_in(&p, buf, sizeof(buf), "br0", XDPBR_MAP_NAME(fdb)), 0);
	assert_string_equal(buf, "/proc/self/fd/12/xdpbr-netns/cookie-4097/br0/xdpbr_fdb");
}

static void test_pin_path_too_long(void **state)
{
	const struct ns_ids host = { HOST_NET, HOST_MNT, HOST_NET, HOST_MNT, 1 };
	const char *want = "/sys/fs/bpf/xdpbr/br0/xdpbr_fdb";
	size_t len = strlen(want);
	struct xdpbr_paths p;
	char buf[64];

	assert_int_equal(paths_build(&p, &host, -1), 0);
	/* exactly enough room for the text and its NUL */
	assert_int_equal(pin_path_in(&p, buf, len + 1, "br0", XDPBR_MAP_NAME(fdb)), 0);
	assert_string_equal(buf, want);
	/* one byte short */
	assert_int_equal(pin_path_in(&p, buf, len, "br0", XDPBR_MAP_NAME(fdb)), -ENAMETOOLONG);
	assert_int_equal(pin_path_in(&p, buf, 8, "br0", NULL), -ENAMETOOLONG);
}

/* The longest names still fit: every field, and the socket's path a
 * sockaddr_un (108 bytes). */
static void test_longest(void **state)
{
	const struct ns_ids ids = { UINT32_MAX, NS_MNT, HOST_NET, HOST_MNT, UINT64_MAX };
	struct xdpbr_paths p;
	char sock[108];

	assert_int_equal(paths_build(&p, &ids, 2147483647), 0);
	assert_string_equal(p.pin_root, "/proc/self/fd/2147483647/xdpbr-netns/cookie-18446744073709551615");
	assert_int_equal(sock_path_in(&p, sock, sizeof(sock), "abcdefghijklmno"), 0);
	assert_string_equal(sock, "/run/xdpbr/netns-cookie-18446744073709551615/abcdefghijklmno.sock");
}

/* paths_set gives the process its paths: pin_path follows them. */
static void test_paths_set(void **state)
{
	const struct ns_ids ns = { NS_NET, HOST_MNT, HOST_NET, HOST_MNT, NS_COOKIE };
	const struct xdpbr_paths *got;
	struct xdpbr_paths p;
	char buf[128];

	assert_int_equal(paths_build(&p, &ns, -1), 0);
	paths_set(&p);
	assert_int_equal(paths_get(&got), 0);
	assert_string_equal(got->pin_root, "/sys/fs/bpf/xdpbr-netns/cookie-4097");
	assert_int_equal(pin_path(buf, sizeof(buf), "br0", XDPBR_PIN_PROG_RX), 0);
	assert_string_equal(buf, "/sys/fs/bpf/xdpbr-netns/cookie-4097/br0/prog_rx");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_netns),
		cmocka_unit_test(test_unknown_is_host),
		cmocka_unit_test(test_netns_host_mounts),
		cmocka_unit_test(test_ip_netns_exec),
		cmocka_unit_test(test_netns_needs_cookie),
		cmocka_unit_test(test_same_inode_apart),
		cmocka_unit_test(test_two_netns_apart),
		cmocka_unit_test(test_pin_path),
		cmocka_unit_test(test_pin_path_too_long),
		cmocka_unit_test(test_longest),
		cmocka_unit_test(test_paths_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

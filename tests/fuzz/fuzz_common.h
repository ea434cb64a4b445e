/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fuzz_common.h - what the libFuzzer harnesses of tests/fuzz/ share: a
 * private network namespace with veth pairs, and how an invariant that does
 * not hold is reported (a message, then abort(): libFuzzer keeps the input
 * as a crash-* reproducer).
 */
#ifndef XDPBR_FUZZ_COMMON_H
#define XDPBR_FUZZ_COMMON_H

#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "xdpbr.h"
#include "paths.h"

/* An invariant did not hold: say which, then let libFuzzer keep the input. */
__attribute__((format(printf, 1, 2), noreturn))
static inline void fz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\n==fuzz== invariant broken: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* The harness cannot run at all (no root, no BPF): not a finding. */
__attribute__((format(printf, 1, 2), noreturn))
static inline void fz_setup_failed(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: setup failed: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* libbpf's messages only with FUZZ_VERBOSE=1 in the environment. */
__attribute__((format(printf, 2, 0)))
static inline int fz_libbpf_print(enum libbpf_print_level level, const char *fmt,
				  va_list ap)
{
	static int verbose = -1;

	if (verbose < 0) {
		const char *v = getenv("FUZZ_VERBOSE");

		verbose = v && *v == '1';
	}
	if (!verbose && level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/*
 * Moves the process into a network namespace of its own (it dies with the
 * process: nothing to clean up) with lo up and n veth pairs names[i] <->
 * peers[i], all up. ifindex[i] receives the index of names[i].
 */
static inline void fz_netns(const char *const *names, const char *const *peers,
			    unsigned int *ifindex, int n)
{
	char cmd[256];

	if (unshare(CLONE_NEWNET))
		fz_setup_failed("unshare(CLONE_NEWNET): %s (needs root)", strerror(errno));
	if (system("ip link set dev lo up"))
		fz_setup_failed("ip link set dev lo up failed");
	for (int i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd),
			 "ip link add %s type veth peer name %s && "
			 "ip link set dev %s up && ip link set dev %s up",
			 names[i], peers[i], names[i], peers[i]);
		if (system(cmd))
			fz_setup_failed("'%s' failed", cmd);
		ifindex[i] = if_nametoindex(names[i]);
		if (!ifindex[i])
			fz_setup_failed("no interface %s: %s", names[i], strerror(errno));
	}
}

/*
 * A bpffs of the process's own at /sys/fs/bpf (in a mount namespace of its
 * own: nothing shows outside, and it goes when the process does), with the
 * pin directory of bridge under it, which it returns. The datapath is then
 * loaded with its maps pinned there, and the daemon's code opens them its
 * own way (maps_open_pinned), whatever maps the datapath has grown: with
 * the paths of the host's network namespace, set here, although the
 * harness moves to a network namespace of its own.
 */
static inline const char *fz_private_bpffs(const char *bridge)
{
	static const struct ns_ids host = { 1, 2, 1, 2, 1 };
	static char dir[128];
	struct xdpbr_paths p;

	if (unshare(CLONE_NEWNS))
		fz_setup_failed("unshare(CLONE_NEWNS): %s (needs root)", strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		fz_setup_failed("making / private: %s", strerror(errno));
	if (mount("bpf", PATHS_BPFFS, "bpf", 0, "mode=0700"))
		fz_setup_failed("mounting bpffs: %s", strerror(errno));
	if (paths_build(&p, &host, -1) || pin_path_in(&p, dir, sizeof(dir), bridge, NULL))
		fz_setup_failed("no pin path for bridge %s", bridge);
	paths_set(&p);
	if ((mkdir(p.pin_root, 0700) && errno != EEXIST) ||
	    (mkdir(dir, 0700) && errno != EEXIST))
		fz_setup_failed("mkdir %s: %s", dir, strerror(errno));
	return dir;
}

#endif /* XDPBR_FUZZ_COMMON_H */

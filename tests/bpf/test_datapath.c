// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_datapath.c - table-driven BPF_PROG_RUN tests of the datapath.
 *
 * Loads the real program xdpbr_rx from the skeleton (build/xdpbr.skel.h) in a
 * private network namespace with three veth ports and one veth that is not a
 * port, then runs each case of the tables through BPF_PROG_RUN:
 *
 *   reset the FDB, ports (flags, limits, PVID), VLAN membership, config
 *   (VLAN filtering, bridge limit), learned counts, storm limits and storm
 *   buckets to the case's values -> case setup (FDB entries, learned counts,
 *   a storm bucket's state, a burst of frames right before) -> snapshot
 *   counters and FDB -> run one frame -> compare verdict, output frame (byte
 *   for byte), the counters of every slot, the accounting invariant, the FDB
 *   entries ({vlan, mac}) named by the case and every slot of xdpbr_learned.
 *
 * Storm buckets are per CPU, so the test pins itself to one CPU. They
 * refill with time: a storm case that fails after running slowly enough for
 * a refill to matter is run again (STORM_TRIES times at most).
 *
 * Frames may carry up to two tags (802.1Q or 802.1ad, any TCI). With VLAN
 * filtering on, known unicast is rewritten by xdpbr_rx for its egress port
 * (tag pushed, popped or its VID set) and a flood is normalised to carry its
 * VLAN's tag: BPF_PROG_RUN returns the frame as the program left it, and the
 * case states the tags it must then have. The per-port tagging and filtering
 * of flooded copies happens in xdpbr_egress and is not seen here.
 *
 * Plain (not live-frames) BPF_PROG_RUN: the program runs and its verdict is
 * returned, but a redirect is not carried out, so the devmap egress program
 * does not run. Unicast tx is counted by xdpbr_rx itself and is checked;
 * flooded copies are counted by the egress program and are not seen here,
 * nor is its isolation filter (flood_filtered), nor whether a flood from a
 * hairpin port includes the ingress port (BPF_F_EXCLUDE_INGRESS): those need
 * real traffic (tests/integration).
 *
 * xdpbr_egress itself cannot be run here either: BPF_PROG_RUN refuses a
 * program whose expected attach type is BPF_XDP_DEVMAP with EINVAL (measured
 * on 6.18, with and without an xdp_md carrying egress_ifindex and
 * ingress_ifindex), and loaded as a plain XDP program the verifier would
 * refuse its read of egress_ifindex.
 *
 * Needs root (BPF, netns). Exits 77 (skip) when not root. Maps are not pinned:
 * nothing is left behind in bpffs, and the namespace dies with the process.
 *
 * Output: "ok - <case>" or "FAIL - <case>: <what differed>" per case, then
 * "N passed, N failed". Exit status 0 only when nothing failed.
 *
 * Files: harness.{c,h} load the datapath and write, read and run it (shared
 * with tests/fuzz/fuzz_datapath.c); fixture.{c,h} are what a case says and
 * how one is run and checked; cases_*.c the tables, one per feature; this
 * file sets up and runs them all.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "fixture.h"

/* Every table, in the order they run. */
static const struct case_table *const tables[] = {
	&learning_cases,
	&limits_cases,
	&forwarding_cases,
	&portflags_cases,
	&flooding_cases,
	&ingress_cases,
	&vlan_cases,
	&storm_cases,
	&mtu_cases,
	&stp_cases,
};
static const struct seq_table *const seq_tables[] = {
	&cache_seqs,
};

static bool verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* The test's veths in a network namespace of its own: 0, 77 (skip) or 1. */
static int setup_netns(void)
{
	const char *names[PORT_ID_MAX - P1], *peers[PORT_ID_MAX - P1];
	unsigned int ifindex[PORT_ID_MAX - P1];
	enum port_id p;
	int err;

	for (p = P1; p < PORT_ID_MAX; p++) {
		names[p - P1] = ports[p].name;
		peers[p - P1] = ports[p].peer;
	}
	err = dp_netns(names, peers, ifindex, PORT_ID_MAX - P1);
	if (err == -EPERM) {
		printf("skip: cannot create a network namespace: %s\n",
		       strerror(-err));
		return 77;
	}
	if (err) {
		fprintf(stderr, "test_datapath: cannot set up veth ports in a private network namespace: %s\n",
			strerror(-err));
		return 1;
	}
	for (p = P1; p < PORT_ID_MAX; p++)
		ports[p].ifindex = ifindex[p - P1];
	return 0;
}

int main(int argc, char **argv)
{
	struct tally tally = { 0, 0 };
	size_t i;
	int err;

	verbose = argc > 1 && !strcmp(argv[1], "-v");
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (geteuid() != 0) {
		printf("skip: test_datapath needs root (BPF programs, network namespaces)\n");
		return 77;
	}
	err = setup_netns();
	if (err)
		return err;
	if (dp_coarse_ns() <= OLDEST_SETUP_NS) {
		fprintf(stderr, "test_datapath: CLOCK_MONOTONIC is below %llu s: cannot backdate FDB entries\n",
			(unsigned long long)(OLDEST_SETUP_NS / XDPBR_NSEC_PER_SEC));
		return 1;
	}

	libbpf_set_print(libbpf_print);
	err = dp_load(NULL);
	if (err) {
		fprintf(stderr, "test_datapath: cannot load build/xdpbr.bpf.o: %s\n",
			strerror(-err));
		return 1;
	}

	tally_check(&tally, dp_build_frame_selftest(),
		    "harness: the frame builder writes tags as on the wire");
	err = pin_cpu();
	if (err) {
		fprintf(stderr, "test_datapath: cannot pin to one CPU: %s\n", strerror(-err));
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(tables); i++)
		run_case_table(tables[i], &tally);
	for (i = 0; i < ARRAY_SIZE(seq_tables); i++)
		run_seq_table(seq_tables[i], &tally);

	dp_unload();
	tally_print(&tally);
	return tally.failed ? 1 : 0;
}

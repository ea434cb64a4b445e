// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cases_ingress.c - frames that are not bridged: to the host (link-local,
 * frames on a device that is not a port) and malformed ones (runts, bad
 * source MACs).
 */
#include "fixture.h"

static const struct test_case cases[] = {
	/* to the host */
	{
		.desc = "link-local: 01:80:c2:00:00:00 (STP) passes with STP on, source not learned",
		.in = P1,
		.frame = { STP, HOST_A, ETH_P_STP_LEN, 38 },
		.cfg_flags = STP_ON,
		.verdict = XDP_PASS,
		.cnt = { { P1, XDPBR_CNT_PASS_LINKLOCAL, 1 } },
		.after = { { HOST_A, FDB_ABSENT } },
	},
	{
		.desc = "link-local: 01:80:c2:00:00:0e (LLDP) passes, source not learned",
		.in = P2,
		.frame = { LLDP, HOST_B, 0x88cc, 46 },
		.verdict = XDP_PASS,
		.cnt = { { P2, XDPBR_CNT_PASS_LINKLOCAL, 1 } },
		.after = { { HOST_B, FDB_ABSENT } },
	},
	{
		.desc = "not a port: frame on n1 passes, counted in the not-a-port slot",
		.in = NP,
		.frame = { HOST_B, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_B, P2, 0, 0 } },
		.verdict = XDP_PASS,
		.cnt = { { NP, XDPBR_CNT_PASS_NOT_PORT, 1 } },
		.after = { { HOST_A, FDB_ABSENT },
			   { HOST_B, FDB_PRESENT, P2, 0, TS_UNCHANGED } },
	},

	/* malformed */
	{
		/*
		 * BPF_PROG_RUN refuses XDP input shorter than ETH_HLEN with
		 * EINVAL (measured on 6.18 for 0..13 bytes, and also when
		 * xdp_md.data puts metadata in front so that fewer than 14
		 * bytes remain), so drop_runt cannot be reached this way:
		 * run_case() then checks that the refused frame left no trace,
		 * and checks drop_runt on a kernel that accepts the frame.
		 */
		.desc = "runt: 10-byte frame is dropped (drop_runt) or refused before XDP",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, 0, 10 },
		.verdict = XDP_DROP,
		.cnt = { { P1, XDPBR_CNT_DROP_RUNT, 1 } },
		.after = { { HOST_A, FDB_ABSENT } },
	},
	{
		.desc = "runt boundary: 14-byte header-only frame is parsed and learned",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, 0 },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 },
			 { P1, XDPBR_CNT_LEARNED, 1 } },
		.after = { { HOST_A, FDB_PRESENT, P1, 0, TS_REFRESHED } },
		.learned_after = LEARNED(1, 1, 0, 0),
	},
	{
		.desc = "bad source: multicast source MAC is dropped, not learned",
		.in = P1,
		.frame = { HOST_B, MAC(01, 00, 5e, 00, 00, 01), ETH_P_IP, 46 },
		.fdb = { { HOST_B, P2, 0, 0 } },
		.verdict = XDP_DROP,
		.cnt = { { P1, XDPBR_CNT_DROP_BAD_SRC, 1 } },
		.after = { { MAC(01, 00, 5e, 00, 00, 01), FDB_ABSENT } },
	},
	{
		.desc = "bad source: broadcast source MAC is dropped, not learned",
		.in = P1,
		.frame = { BCAST, BCAST, ETH_P_IP, 46 },
		.verdict = XDP_DROP,
		.cnt = { { P1, XDPBR_CNT_DROP_BAD_SRC, 1 } },
		.after = { { BCAST, FDB_ABSENT } },
	},
	{
		.desc = "bad source: all-zero source MAC is dropped, not learned",
		.in = P1,
		.frame = { HOST_B, ZERO, ETH_P_IP, 46 },
		.fdb = { { HOST_B, P2, 0, 0 } },
		.verdict = XDP_DROP,
		.cnt = { { P1, XDPBR_CNT_DROP_BAD_SRC, 1 } },
		.after = { { ZERO, FDB_ABSENT } },
	},
};

CASE_TABLE(ingress_cases, cases);

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cases_learning.c - learning: a new source is learned, a known one
 * refreshed at most once a second or moved to its new port; learning off;
 * static entries neither move nor refresh, and a frame from a static source
 * on another port is dropped as spoofed.
 */
#include "fixture.h"

static const struct test_case cases[] = {
	{
		.desc = "learn: new source MAC on p1 is learned",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, 46 },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 },
			 { P1, XDPBR_CNT_LEARNED, 1 } },
		.after = { { HOST_A, FDB_PRESENT, P1, 0, TS_REFRESHED } },
		.learned_after = LEARNED(1, 1, 0, 0),
	},
	{
		.desc = "refresh: known source seen again within 1s writes nothing",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, 46 },
		.presend = true,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 } },
		.after = { { HOST_A, FDB_PRESENT, P1, 0, TS_UNCHANGED } },
		.learned_after = LEARNED(1, 1, 0, 0),	/* by the presend */
	},
	{
		.desc = "refresh: known source last seen 0.5s ago writes nothing",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, XDPBR_NSEC_PER_SEC / 2 } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 } },
		.after = { { HOST_A, FDB_PRESENT, P1, 0, TS_UNCHANGED } },
	},
	{
		.desc = "refresh: known source last seen 2s ago gets last_seen updated",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, SEC_NS(2) } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 } },
		.after = { { HOST_A, FDB_PRESENT, P1, 0, TS_REFRESHED } },
	},
	{
		/* seen 0.5 s ago: a move writes even inside the refresh time */
		.desc = "move: MAC known on p1 arriving on p2 moves to p2",
		.in = P2,
		.frame = { BCAST, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, XDPBR_NSEC_PER_SEC / 2 } },
		.learned = LEARNED(1, 1, 0, 0),
		.verdict = XDP_REDIRECT,
		.cnt = { { P2, XDPBR_CNT_FLOOD_BCAST, 1 },
			 { P2, XDPBR_CNT_MOVED, 1 } },
		.after = { { HOST_A, FDB_PRESENT, P2, 0, TS_REFRESHED } },
		.learned_after = LEARNED(1, 0, 1, 0),
	},
	{
		.desc = "learning off: new source on p1 is not learned",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, 46 },
		.clear_flags = { [P1] = XDPBR_PORT_LEARNING },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 } },
		.after = { { HOST_A, FDB_ABSENT } },
	},
	{
		.desc = "learning off: MAC known on p2 arriving on p1 does not move",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P2, 0, SEC_NS(2) } },
		.clear_flags = { [P1] = XDPBR_PORT_LEARNING },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 } },
		.after = { { HOST_A, FDB_PRESENT, P2, 0, TS_UNCHANGED } },
	},
	{
		.desc = "static: source static on p1 spoofed from p2 is dropped",
		.in = P2,
		.frame = { BCAST, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, XDPBR_FDB_STATIC, SEC_NS(2) } },
		.verdict = XDP_DROP,
		.cnt = { { P2, XDPBR_CNT_DROP_SPOOFED, 1 } },
		.after = { { HOST_A, FDB_PRESENT, P1, XDPBR_FDB_STATIC,
			     TS_UNCHANGED } },
	},
	{
		.desc = "static: source static on its own port is neither refreshed nor relearned",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, XDPBR_FDB_STATIC, SEC_NS(2) } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 } },
		.after = { { HOST_A, FDB_PRESENT, P1, XDPBR_FDB_STATIC,
			     TS_UNCHANGED } },
	},
	{
		/* MAC mobility with EVPN: a host that moved here from a
		 * remote site wins locally with its first frame */
		.desc = "remote: MAC remote on p1 (the overlay gateway) heard on p2 moves there, learned",
		.in = P2,
		.frame = { BCAST, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, XDPBR_FDB_REMOTE, SEC_NS(2) } },
		.learned = LEARNED(1, 1, 0, 0),	/* counted as dynamic (ctl.h) */
		.verdict = XDP_REDIRECT,
		.cnt = { { P2, XDPBR_CNT_FLOOD_BCAST, 1 },
			 { P2, XDPBR_CNT_MOVED, 1 } },
		.after = { { HOST_A, FDB_PRESENT, P2, 0, TS_REFRESHED } },
		.learned_after = LEARNED(1, 0, 1, 0),
	},
};

CASE_TABLE(learning_cases, cases);

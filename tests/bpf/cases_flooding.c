// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cases_flooding.c - flooding: broadcast, multicast and unknown unicast are
 * flooded, each counted as its own kind.
 */
#include "fixture.h"

static const struct test_case cases[] = {
	{
		.desc = "flood: unknown unicast dst is flooded, dst not learned",
		.in = P1,
		.frame = { HOST_C, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_UNKNOWN, 1 } },
		.after = { { HOST_C, FDB_ABSENT },
			   { HOST_A, FDB_PRESENT, P1, 0, TS_UNCHANGED } },
	},
	{
		.desc = "flood: broadcast from p3 is flooded as broadcast",
		.in = P3,
		.frame = { BCAST, HOST_C, ETH_P_ARP, 28 },
		.fdb = { { HOST_C, P3, 0, 0 } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P3, XDPBR_CNT_FLOOD_BCAST, 1 } },
		.after = { { BCAST, FDB_ABSENT } },
	},
	{
		.desc = "flood: IPv4 multicast 01:00:5e:00:00:fb is flooded as multicast",
		.in = P1,
		.frame = { MCAST4, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_MCAST, 1 } },
		.after = { { MCAST4, FDB_ABSENT } },
	},
	{
		.desc = "flood: IPv6 multicast 33:33:00:00:00:01 is flooded as multicast",
		.in = P2,
		.frame = { MCAST6, HOST_B, ETH_P_IPV6, 72 },
		.fdb = { { HOST_B, P2, 0, 0 } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P2, XDPBR_CNT_FLOOD_MCAST, 1 } },
		.after = { { MCAST6, FDB_ABSENT } },
	},
	{
		.desc = "flood: 01:80:c2:00:00:10 is past the reserved range, flooded as multicast",
		.in = P1,
		.frame = { NOT_LL, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_MCAST, 1 } },
	},
};

CASE_TABLE(flooding_cases, cases);

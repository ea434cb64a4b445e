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

	/* The slow flood of a bridge whose ports are all in slots below 64:
	 * through the small maps (the full ones are empty here), the egress
	 * program counting each copy. */
	{
		.desc = "slow flood, small maps: live broadcast reaches p2 and p3 through them",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_ARP, 28 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.small = true,
		.live = true,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 },
			 { P2, XDPBR_CNT_TX_PACKETS, 1 }, { P2, XDPBR_CNT_TX_BYTES, FRAME_LEN },
			 { P3, XDPBR_CNT_TX_PACKETS, 1 }, { P3, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
	},

	/* The fast flood (no per-copy rule to apply): the copies go out
	 * without xdpbr_egress, and xdpbr_rx counts their tx, once each. */
	{
		.desc = "fast flood: broadcast from p1, p2 and p3 tx counted by the ingress",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_ARP, 28 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.fast = true,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 },
			 { P2, XDPBR_CNT_TX_PACKETS, 1 }, { P2, XDPBR_CNT_TX_BYTES, FRAME_LEN },
			 { P3, XDPBR_CNT_TX_PACKETS, 1 }, { P3, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
	},
	{
		.desc = "fast flood: live frames, each copy's tx counted once (no egress program)",
		.in = P2,
		.frame = { MCAST4, HOST_B, ETH_P_IP, 46 },
		.fdb = { { HOST_B, P2, 0, 0 } },
		.fast = true,
		.live = true,
		.cnt = { { P2, XDPBR_CNT_FLOOD_MCAST, 1 },
			 { P1, XDPBR_CNT_TX_PACKETS, 1 }, { P1, XDPBR_CNT_TX_BYTES, FRAME_LEN },
			 { P3, XDPBR_CNT_TX_PACKETS, 1 }, { P3, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
	},
	{
		.desc = "fast flood: hairpin p1 gets its own copy, counted",
		.in = P1,
		.frame = { HOST_C, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.set_flags = { [P1] = XDPBR_PORT_HAIRPIN },
		.fast = true,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_UNKNOWN, 1 },
			 { P1, XDPBR_CNT_TX_PACKETS, 1 }, { P1, XDPBR_CNT_TX_BYTES, FRAME_LEN },
			 { P2, XDPBR_CNT_TX_PACKETS, 1 }, { P2, XDPBR_CNT_TX_BYTES, FRAME_LEN },
			 { P3, XDPBR_CNT_TX_PACKETS, 1 }, { P3, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
		.after = { { HOST_C, FDB_ABSENT } },
	},
	{
		.desc = "fast flood: bcast_flood off on p3, out of the mask: p2 only",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_ARP, 28 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.clear_flags = { [P3] = XDPBR_PORT_BCAST_FLOOD },
		.fast = true,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 },
			 { P2, XDPBR_CNT_TX_PACKETS, 1 }, { P2, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
	},
	/* A rule to apply: the slow flood, whose egress program (not run by a
	 * plain BPF_PROG_RUN) would count tx. */
	{
		.desc = "fast flood ready, but the ingress p1 is isolated: the egress program's flood",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_ARP, 28 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.set_flags = { [P1] = XDPBR_PORT_ISOLATED },
		.fast = true,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 } },
	},
	{
		.desc = "fast flood ready, but STP on: the egress program's flood",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_ARP, 28 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.cfg_flags = STP_ON,
		.stp = { [P1] = XDPBR_STP_EDGE, [P2] = XDPBR_STP_EDGE, [P3] = XDPBR_STP_EDGE },
		.fast = true,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 } },
	},
	{
		.desc = "fast flood ready, but larger than the smallest MTU: the egress program's flood",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, 1400 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.mtu = { [P1] = 1500, [P2] = 1500, [P3] = 1280 },
		.fast = true,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 },
			 { P3, XDPBR_CNT_TX_DROPPED_MTU, 1 } },
	},
	{
		.desc = "fast flood not ready: the egress program's flood",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_ARP, 28 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 } },
	},
};

CASE_TABLE(flooding_cases, cases);

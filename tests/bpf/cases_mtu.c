// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cases_mtu.c - jumbo frames (multi-buffer XDP: a frame of more than a page
 * reaches the program as a head and fragments) and the egress port's MTU:
 * counted whole, forwarded whole where the port takes it, dropped as
 * drop_mtu (known unicast) or counted as the port's tx_dropped_mtu (a
 * flooded copy) where it does not. The interfaces' MTUs are set per case.
 */
#include "fixture.h"

#define J9000		{ [P1] = 9000, [P2] = 9000, [P3] = 9000 }
#define J9000_P2_1500	{ [P1] = 9000, [P2] = 1500, [P3] = 9000 }
/* The largest payload a port of MTU 9000 takes: 9000 bytes of IP packet. */
#define PAYLOAD_9000	9000
#define PAYLOAD_1500	1500

static const struct test_case cases[] = {
	{
		.desc = "jumbo: 9014-byte frame to a known dst on p2 (MTU 9000) is forwarded and counted whole",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IP, PAYLOAD_9000 },
		.fdb = { { HOST_A, P1, 0, 0 }, { HOST_B, P2, 0, 0 } },
		.mtu = J9000,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FORWARDED, 1 },
			 { P2, XDPBR_CNT_TX_PACKETS, 1 },
			 { P2, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
	},
	{
		.desc = "jumbo: 9014-byte frame to a known dst on p2 (MTU 1500) is dropped as drop_mtu",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IP, PAYLOAD_9000 },
		.fdb = { { HOST_A, P1, 0, 0 }, { HOST_B, P2, 0, 0 } },
		.mtu = J9000_P2_1500,
		.verdict = XDP_DROP,
		.cnt = { { P1, XDPBR_CNT_DROP_MTU, 1 } },
	},
	{
		.desc = "jumbo: 1514-byte frame to p2 (MTU 1500) beside MTU 9000 ports is forwarded",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IP, PAYLOAD_1500 },
		.fdb = { { HOST_A, P1, 0, 0 }, { HOST_B, P2, 0, 0 } },
		.mtu = J9000_P2_1500,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FORWARDED, 1 },
			 { P2, XDPBR_CNT_TX_PACKETS, 1 },
			 { P2, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
	},
	{
		.desc = "jumbo: 1518-byte tagged frame (1500 bytes of IP) to p2 (MTU 1500) is forwarded",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IP, PAYLOAD_1500, .tags = { TAG(10) } },
		.fdb = { { HOST_A, P1, 0, 0 }, { HOST_B, P2, 0, 0 } },
		.mtu = J9000_P2_1500,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FORWARDED, 1 },
			 { P2, XDPBR_CNT_TX_PACKETS, 1 },
			 { P2, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
	},
	{
		.desc = "jumbo: 1515-byte frame to p2 (MTU 1500) is dropped as drop_mtu",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IP, PAYLOAD_1500 + 1 },
		.fdb = { { HOST_A, P1, 0, 0 }, { HOST_B, P2, 0, 0 } },
		.mtu = J9000_P2_1500,
		.verdict = XDP_DROP,
		.cnt = { { P1, XDPBR_CNT_DROP_MTU, 1 } },
	},
	{
		.desc = "jumbo: broadcast of 9014 bytes is flooded; p2 (MTU 1500) counts tx_dropped_mtu",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, PAYLOAD_9000 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.mtu = J9000_P2_1500,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 },
			 { P2, XDPBR_CNT_TX_DROPPED_MTU, 1 } },
	},
	{
		/* the devmap skips p2's copy for its MTU, so the ingress counts
		 * it, by the egress program's rules: filtered before too big */
		.desc = "jumbo: broadcast of 9014 bytes between isolated ports: p2 (MTU 1500) counts flood_filtered, not tx_dropped_mtu",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, PAYLOAD_9000 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.mtu = J9000_P2_1500,
		.set_flags = { [P1] = XDPBR_PORT_ISOLATED, [P2] = XDPBR_PORT_ISOLATED },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 },
			 { P2, XDPBR_CNT_FLOOD_FILTERED, 1 } },
	},
	{
		.desc = "jumbo: broadcast of 9014 bytes with MTU 9000 everywhere: no copy refused",
		.in = P1,
		.frame = { BCAST, HOST_A, ETH_P_IP, PAYLOAD_9000 },
		.fdb = { { HOST_A, P1, 0, 0 } },
		.mtu = J9000,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_BCAST, 1 } },
	},
};

CASE_TABLE(mtu_cases, cases);

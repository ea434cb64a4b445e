// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cases_forwarding.c - known unicast: forwarded to the port the FDB names
 * and counted as its tx; dropped when that is the ingress port; flooded as
 * unknown when the entry is past the ageing time (statics never are) or its
 * port is not in xdpbr_tx.
 */
#include "fixture.h"

static const struct test_case cases[] = {
	{
		.desc = "unicast: known dst on p2 is redirected and counted as p2 tx",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IP, 86 },
		.fdb = { { HOST_A, P1, 0, 0 }, { HOST_B, P2, 0, 0 } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FORWARDED, 1 },
			 { P2, XDPBR_CNT_TX_PACKETS, 1 },
			 { P2, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
		.after = { { HOST_A, FDB_PRESENT, P1, 0, TS_UNCHANGED },
			   { HOST_B, FDB_PRESENT, P2, 0, TS_UNCHANGED } },
	},
	{
		.desc = "unicast: new source to known dst on p3 learns and forwards",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IPV6, 100 },
		.fdb = { { HOST_B, P3, 0, 0 } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FORWARDED, 1 },
			 { P1, XDPBR_CNT_LEARNED, 1 },
			 { P3, XDPBR_CNT_TX_PACKETS, 1 },
			 { P3, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
		.after = { { HOST_A, FDB_PRESENT, P1, 0, TS_REFRESHED },
			   { HOST_B, FDB_PRESENT, P3, 0, TS_UNCHANGED } },
		.learned_after = LEARNED(1, 1, 0, 0),
	},
	{
		.desc = "same port: dst known on the ingress port is dropped",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, 0 }, { HOST_B, P1, 0, 0 } },
		.verdict = XDP_DROP,
		.cnt = { { P1, XDPBR_CNT_DROP_SAME_PORT, 1 } },
		.after = { { HOST_B, FDB_PRESENT, P1, 0, TS_UNCHANGED } },
	},
	{
		.desc = "ageing: dst 5s old, within the 10s ageing time, is forwarded",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, 0 }, { HOST_B, P2, 0, SEC_NS(5) } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FORWARDED, 1 },
			 { P2, XDPBR_CNT_TX_PACKETS, 1 },
			 { P2, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
		.after = { { HOST_B, FDB_PRESENT, P2, 0, TS_UNCHANGED } },
	},
	{
		.desc = "ageing: dst 20s old, past the 10s ageing time, is flooded as unknown",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, 0 }, { HOST_B, P2, 0, SEC_NS(20) } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_UNKNOWN, 1 } },
		.after = { { HOST_B, FDB_PRESENT, P2, 0, TS_UNCHANGED } },
	},
	{
		.desc = "ageing: static dst 20s old never goes stale and is forwarded",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, 0 },
			 { HOST_B, P2, XDPBR_FDB_STATIC, SEC_NS(20) } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FORWARDED, 1 },
			 { P2, XDPBR_CNT_TX_PACKETS, 1 },
			 { P2, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
		.after = { { HOST_B, FDB_PRESENT, P2, XDPBR_FDB_STATIC,
			     TS_UNCHANGED } },
	},
	{
		.desc = "ageing: remote dst (EVPN) 20s old never goes stale and is forwarded",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, 0 },
			 { HOST_B, P2, XDPBR_FDB_REMOTE, SEC_NS(20) } },
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FORWARDED, 1 },
			 { P2, XDPBR_CNT_TX_PACKETS, 1 },
			 { P2, XDPBR_CNT_TX_BYTES, FRAME_LEN } },
		.after = { { HOST_B, FDB_PRESENT, P2, XDPBR_FDB_REMOTE,
			     TS_UNCHANGED } },
	},
	{
		.desc = "unicast: dst on a port missing from xdpbr_tx is flooded as unknown",
		.in = P1,
		.frame = { HOST_B, HOST_A, ETH_P_IP, 46 },
		.fdb = { { HOST_A, P1, 0, 0 }, { HOST_B, P2, 0, 0 } },
		.remove_tx = P2,
		.verdict = XDP_REDIRECT,
		.cnt = { { P1, XDPBR_CNT_FLOOD_UNKNOWN, 1 } },
		.after = { { HOST_B, FDB_PRESENT, P2, 0, TS_UNCHANGED } },
	},
};

CASE_TABLE(forwarding_cases, cases);

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cases_cache.c - the per-CPU FDB cache (bpf/fdbcache.h), in sequences:
 * frames and changes made to the FDB by user space in turn, the way the
 * daemon and the CLI make them (daemon/ctl.c), each frame's outcome checked.
 * They run on one CPU (main pins the test), so every frame after the first
 * of a flow can be served from that CPU's cache; a wrong answer from a stale
 * cache shows as the wrong outcome or port.
 */
#include "fixture.h"

static const struct seq_case cases[] = {
	{
		.desc = "cache: a destination deleted by user space (fdb del) is unknown at the next frame",
		.fdb = { { HOST_B, P2, 0, 0, 0 } },
		.steps = {
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			{ .op = S_DEL, .dst = HOST_B },
			FRAME(P1, HOST_A, HOST_B, FLOOD_UNKNOWN, PORT_NONE),
		},
	},
	{
		.desc = "cache: the next frame of a flow is served without the FDB; a new generation ends that",
		.fdb = { { HOST_B, P2, 0, 0, 0 } },
		.steps = {
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			{ .op = S_RAW_DEL, .dst = HOST_B },
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			{ .op = S_BUMP },
			FRAME(P1, HOST_A, HOST_B, FLOOD_UNKNOWN, PORT_NONE),
		},
	},
	{
		.desc = "cache: a destination that moves (learned on p3) is forwarded to p3 at once",
		.fdb = { { HOST_B, P2, 0, 0, 0 } },
		.steps = {
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			FRAME_EV(P3, HOST_B, HOST_A, FORWARDED, P1, MOVED),
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P3),
			FRAME_EV(P2, HOST_B, HOST_A, FORWARDED, P1, MOVED),
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
		},
	},
	{
		.desc = "cache: a move learned on another CPU reaches this CPU's cache at once",
		.fdb = { { HOST_B, P2, 0, 0, 0 } },
		.steps = {
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			FRAME_EV_OTHER_CPU(P3, HOST_B, HOST_A, FORWARDED, P1, MOVED),
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P3),
		},
	},
	{
		.desc = "cache: a destination replaced by a static entry on p3 (fdb replace) goes to p3",
		.fdb = { { HOST_B, P2, 0, 0, 0 } },
		.steps = {
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			{ .op = S_STATIC, .in = P3, .dst = HOST_B },
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P3),
			FRAME(P2, HOST_B, HOST_A, DROP_SPOOFED, PORT_NONE),
		},
	},
	{
		.desc = "cache: a cached source is learned again after fdb flush",
		.steps = {
			FRAME_EV(P1, HOST_A, BCAST, FLOOD_BCAST, PORT_NONE, LEARNED),
			FRAME(P1, HOST_A, BCAST, FLOOD_BCAST, PORT_NONE),
			{ .op = S_FLUSH },
			FRAME_EV(P1, HOST_A, BCAST, FLOOD_BCAST, PORT_NONE, LEARNED),
			FRAME(P2, HOST_B, HOST_A, FORWARDED, P1),
		},
	},
	{
		.desc = "cache: a cached destination is unknown at once when a shorter ageing time makes it stale",
		.ageing_ns = XDPBR_AGEING_NEVER,
		.fdb = { { HOST_B, P2, 0, SEC_NS(20), 0 } },
		.steps = {
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			{ .op = S_AGEING, .ageing_ns = SEC_NS(10) },
			FRAME(P1, HOST_A, HOST_B, FLOOD_UNKNOWN, PORT_NONE),
		},
	},
	{
		.desc = "cache: a cached destination is not used past the ageing time (2 s)",
		.ageing_ns = SEC_NS(2),
		.fdb = { { HOST_B, P2, 0, SEC_NS(0.8), 0 } },
		.steps = {
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			FRAME(P1, HOST_A, HOST_B, FORWARDED, P2),
			{ .op = S_SLEEP_MS, .ms = 1300 },
			FRAME(P1, HOST_A, HOST_B, FLOOD_UNKNOWN, PORT_NONE),
		},
	},
};

SEQ_TABLE(cache_seqs, cases);

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

/* Five MACs whose cache keys (VLAN 0) fall in one set of the cache
 * (4 ways, the object's default 4096 sets), which HOST_A's does not. */
#define SET_D1	MAC(02, 00, cc, 00, 00, 8d)
#define SET_D2	MAC(02, 00, cc, 00, 0c, c0)
#define SET_D3	MAC(02, 00, cc, 00, 18, f3)
#define SET_D4	MAC(02, 00, cc, 00, 24, 26)
#define SET_D5	MAC(02, 00, cc, 00, 3d, 00)
/* all five on p2; frames to D1..D4 in turn, which fill the set */
#define SET_FDB { { SET_D1, P2, 0, 0, 0 }, { SET_D2, P2, 0, 0, 0 }, { SET_D3, P2, 0, 0, 0 }, \
		  { SET_D4, P2, 0, 0, 0 }, { SET_D5, P2, 0, 0, 0 } }
#define SET_FILL4 FRAME(P1, HOST_A, SET_D1, FORWARDED, P2), \
		  FRAME(P1, HOST_A, SET_D2, FORWARDED, P2), \
		  FRAME(P1, HOST_A, SET_D3, FORWARDED, P2), \
		  FRAME(P1, HOST_A, SET_D4, FORWARDED, P2)

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
	{
		/* way[0..3] = D4 D3 D2 D1; D5 takes way[3], then D1 does
		 * again: D2..D4 stay. Pushing each fill in at way[0] would
		 * have lost D2 to D1, and D2's frame would flood. */
		.desc = "cache: a full set of live entries gives a new one its last way and keeps the other three",
		.fdb = SET_FDB,
		.steps = {
			SET_FILL4,
			FRAME(P1, HOST_A, SET_D5, FORWARDED, P2),
			FRAME(P1, HOST_A, SET_D1, FORWARDED, P2),
			{ .op = S_RAW_DEL, .dst = SET_D2 },
			FRAME(P1, HOST_A, SET_D2, FORWARDED, P2),
		},
	},
	{
		/* D1..D4 cached, then D5 and D1 again after the generation
		 * changed: no entry is live, D5 and D1 take way[0] each, and
		 * D2's frame goes to the FDB, which no longer has it. */
		.desc = "cache: a set whose entries are of an older generation is refilled from way[0]",
		.fdb = SET_FDB,
		.steps = {
			SET_FILL4,
			{ .op = S_RAW_DEL, .dst = SET_D2 },
			{ .op = S_BUMP },
			FRAME(P1, HOST_A, SET_D5, FORWARDED, P2),
			FRAME(P1, HOST_A, SET_D2, FLOOD_UNKNOWN, PORT_NONE),
		},
	},
};

SEQ_TABLE(cache_seqs, cases);

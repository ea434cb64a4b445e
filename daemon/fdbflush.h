/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_FDBFLUSH_H
#define XDPBR_FDBFLUSH_H

/*
 * fdbflush - the daemon's flushes of learned entries, in steps. Topology
 * changes (stpd) and ports going down (link events) ask for a port's
 * dynamic entries to go; what was asked while no walk ran is done by one
 * walk of the table for all those ports, FDBFLUSH_STEP entries a turn of
 * the main loop, and what is asked during a walk by the next one (those
 * entries may have been learned after the walk passed them). So however
 * many BPDUs or link events ask, the table is walked at most twice for
 * them, and the heartbeat, BPDUs and link events never wait for a walk of
 * a million entries (about 0.3 s in one go).
 */
#include <stdbool.h>
#include <stdint.h>

#include "ctl.h"

#define FDBFLUSH_STEP	16384		/* entries looked at per step */

struct fdbflush {
	const struct xdpbr_maps *m;
	struct slot_set want;		/* slots asked for, not in the walk */
	struct fdb_flush_walk walk;	/* walk.slots empty: none under way */
	uint64_t walks;			/* walks finished */
	uint64_t walk_ns;		/* the walk under way began */
	unsigned int steps;		/* ... and has taken so many */
};

void fdbflush_init(struct fdbflush *f, const struct xdpbr_maps *m);
/* Asks for the dynamic entries of the port in slot to go. */
void fdbflush_port(struct fdbflush *f, uint32_t slot);
/* Whether a walk is under way or asked for: the loop should not sleep. */
bool fdbflush_busy(const struct fdbflush *f);
/* One step of the walk, if any (the next one begun when it ends). */
void fdbflush_step(struct fdbflush *f);

#endif

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fdbflush.c - the daemon's flushes of learned entries, in steps (fdbflush.h). */
#include <string.h>

#include "fdbflush.h"
#include "log.h"
#include "util.h"

_Static_assert(XDPBR_MAX_PORTS <= 64, "a slot is a bit of a 64-bit mask");

void fdbflush_init(struct fdbflush *f, const struct xdpbr_maps *m)
{
	memset(f, 0, sizeof(*f));
	f->m = m;
}

void fdbflush_port(struct fdbflush *f, uint32_t slot)
{
	if (slot && slot < XDPBR_MAX_PORTS)
		f->want |= 1ULL << slot;
}

bool fdbflush_busy(const struct fdbflush *f)
{
	return f->want || f->walk.slots;
}

void fdbflush_step(struct fdbflush *f)
{
	int ret;

	if (!f->walk.slots) {
		if (!f->want)
			return;
		f->walk = (struct fdb_flush_walk){ .slots = f->want };
		f->want = 0;
		f->walk_ns = mono_ns();
		f->steps = 0;
	}
	ret = ctl_fdb_flush_step(f->m, &f->walk, FDBFLUSH_STEP);
	f->steps++;
	if (ret == 0)
		return;
	if (ret < 0)
		log_warn("Couldn't flush learned entries: %s (they age out instead)",
			 strerror(-ret));
	else
		log_debug("flushed %llu learned entries of %d port(s): one walk, %u steps, "
			  "%.1f ms", (unsigned long long)f->walk.deleted,
			  __builtin_popcountll(f->walk.slots), f->steps,
			  (double)(mono_ns() - f->walk_ns) / 1e6);
	f->walks++;
	f->walk.slots = 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fdbflush.c - the daemon's flushes of learned entries, in steps (fdbflush.h). */
#include <string.h>

#include "fdbflush.h"
#include "log.h"
#include "util.h"

void fdbflush_init(struct fdbflush *f, const struct xdpbr_maps *m)
{
	memset(f, 0, sizeof(*f));
	f->m = m;
}

void fdbflush_port(struct fdbflush *f, uint32_t slot)
{
	slot_set_add(&f->want, slot);
}

bool fdbflush_busy(const struct fdbflush *f)
{
	return slot_set_count(&f->want) || slot_set_count(&f->walk.slots);
}

void fdbflush_step(struct fdbflush *f)
{
	int ret;

	if (!slot_set_count(&f->walk.slots)) {
		if (!slot_set_count(&f->want))
			return;
		f->walk = (struct fdb_flush_walk){ .slots = f->want };
		f->want = (struct slot_set){ 0 };
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
			  slot_set_count(&f->walk.slots), f->steps,
			  (double)(mono_ns() - f->walk_ns) / 1e6);
	f->walks++;
	f->walk.slots = (struct slot_set){ 0 };
}

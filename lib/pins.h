/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_PINS_H
#define XDPBR_PINS_H

#include "xdpbr_maps.h"

/* File descriptors of one bridge's maps (include/xdpbr_maps.h), from the
 * skeleton or the pins. */
#define XDPBR_MAP_FD(name, type) int name;
struct xdpbr_maps {
	XDPBR_MAPS_PINNED(XDPBR_MAP_FD)
};
#undef XDPBR_MAP_FD

/* Opens the maps pinned in the bridge's directory (/sys/fs/bpf/xdpbr/<bridge>/
 * in the host's network namespace, see paths.h). 0 or -errno; on error
 * nothing stays open. A map newer than the oldest layout this build
 * adopts (the slow flood's small maps) may be missing: its fd is then -1. */
int maps_open_pinned(const char *bridge, struct xdpbr_maps *m);
/* The same, every descriptor read-only (BPF_F_RDONLY): lookups work, the
 * kernel refuses updates and deletes through them. */
int maps_open_pinned_ro(const char *bridge, struct xdpbr_maps *m);
void maps_close(struct xdpbr_maps *m);

/* Removes every map pin of the bridge (those of struct xdpbr_maps and the
 * datapath's own); what is not there is skipped. */
void maps_unpin(const char *bridge);

/* Pins the maps m that are not pinned in the bridge's directory (which
 * must exist); a pin that is there is left as it is. 0 or -errno. */
int maps_pin(const char *bridge, const struct xdpbr_maps *m);

/* Moves the map pins found in directory from (iproute2's tc/globals in
 * the bpffs, where `ip link ... xdp obj` pins them by name)
 * into the bridge's directory, which must exist. The number moved, or
 * -errno (what was moved stays moved). */
int maps_adopt_pins(const char *from, const char *bridge);

/* After user space changed or deleted FDB entries that existed: move the FDB
 * generation on, so no CPU's cache uses the old ones (bpf/fdbcache.h). A
 * read and a write, not atomic: a datapath move racing with it can be lost,
 * which the step of XDPBR_FDBGEN_USER_STEP makes harmless (the value still
 * differs from every one the caches saw); what is left, two user-space
 * writers racing, the caches' time limit (FDBC_JIFFIES) bounds. */
int fdbgen_bump_user(const struct xdpbr_maps *m);

/* Entries 0..XDPBR_MAX_PORTS-1 of the slot-keyed array map fd (values of
 * value_size bytes) into vals, in batches: a few calls, not one a slot.
 * Slots the map lacks (a smaller map pinned by an older build) read as
 * zeroes. 0 or -errno. */
int slots_read(int fd, size_t value_size, void *vals);

#endif

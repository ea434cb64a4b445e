/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * load.h - a bridge's datapath object and pins (load.c), for the layers
 * above it in the bridge: brport.c and bridge.c. Each 0 or -errno, with
 * the reason logged.
 */
#ifndef XDPBR_LOAD_H
#define XDPBR_LOAD_H

#include <stdbool.h>
#include <stdint.h>

struct bridge;
struct bridge_opts;

/* The directory of the bridges' pin directories made (and bpffs mounted
 * first, with mount_bpffs); a directory made private (0700). */
int pin_root_prepare(bool mount_bpffs);
int mkdir_private(const char *path);
/* Every pin of the bridge removed, its directory too, and the pin root
 * when no other bridge is left. */
void unpin_all(struct bridge *br);

/* The datapath object, in order: opened reusing the pinned maps, sized,
 * loaded, its handles kept in br, its programs pinned (and tracepoints
 * attached); closed (keep: the tracepoints stay attached). */
int skel_open(struct bridge *br);
int skel_size(struct bridge *br, const struct bridge_opts *o);
int skel_load(struct bridge *br);
int skel_handles(struct bridge *br);
int pin_programs(struct bridge *br);
void skel_close(struct bridge *br, bool keep);

/* The receive program loaded again as a component for libxdp's dispatcher
 * and attached to ifindex in mode; its id in *comp_id. */
int share_load_attach(struct bridge *br, uint32_t ifindex, uint32_t mode, uint32_t *comp_id);

#endif

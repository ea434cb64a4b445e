// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pins.c - the pinned maps are the bridge: open them by name. */
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "xdpbr.h"
#include "pins.h"
#include "paths.h"
#include "util.h"

static const struct {
	const char *name;
	size_t off;
} map_pins[] = {
	{ XDPBR_MAP_FDB,	offsetof(struct xdpbr_maps, fdb) },
	{ XDPBR_MAP_PORTS,	offsetof(struct xdpbr_maps, ports) },
	{ XDPBR_MAP_STATS,	offsetof(struct xdpbr_maps, stats) },
	{ XDPBR_MAP_CONFIG,	offsetof(struct xdpbr_maps, config) },
	{ XDPBR_MAP_TX,		offsetof(struct xdpbr_maps, tx) },
	{ XDPBR_MAP_FLOOD_BC,	offsetof(struct xdpbr_maps, flood_bc) },
	{ XDPBR_MAP_FLOOD_MC,	offsetof(struct xdpbr_maps, flood_mc) },
	{ XDPBR_MAP_FLOOD_UU,	offsetof(struct xdpbr_maps, flood_uu) },
	{ XDPBR_MAP_FLOOD_BC_FAST, offsetof(struct xdpbr_maps, flood_bc_fast) },
	{ XDPBR_MAP_FLOOD_MC_FAST, offsetof(struct xdpbr_maps, flood_mc_fast) },
	{ XDPBR_MAP_FLOOD_UU_FAST, offsetof(struct xdpbr_maps, flood_uu_fast) },
	{ XDPBR_MAP_FLOOD_FAST,	offsetof(struct xdpbr_maps, flood_fast) },
	{ XDPBR_MAP_LEARNED,	offsetof(struct xdpbr_maps, learned) },
	{ XDPBR_MAP_LEARNED_USER, offsetof(struct xdpbr_maps, learned_user) },
	{ XDPBR_MAP_EVENTS,	offsetof(struct xdpbr_maps, events) },
	{ XDPBR_MAP_EVBUDGET,	offsetof(struct xdpbr_maps, evbudget) },
	{ XDPBR_MAP_BRIDGE,	offsetof(struct xdpbr_maps, bridge) },
	{ XDPBR_MAP_VLANS,	offsetof(struct xdpbr_maps, vlans) },
	{ XDPBR_MAP_STORM,	offsetof(struct xdpbr_maps, storm) },
	{ XDPBR_MAP_IFSLOT,	offsetof(struct xdpbr_maps, ifslot) },
	{ XDPBR_MAP_PORTCFG,	offsetof(struct xdpbr_maps, portcfg) },
	{ XDPBR_MAP_FDBGEN,	offsetof(struct xdpbr_maps, fdbgen) },
	{ XDPBR_MAP_SLOTIF,	offsetof(struct xdpbr_maps, slotif) },
	{ XDPBR_MAP_SKBPORTS,	offsetof(struct xdpbr_maps, skbports) },
	{ XDPBR_MAP_PORTNAME,	offsetof(struct xdpbr_maps, portname) },
	{ XDPBR_MAP_STP_PORT,	offsetof(struct xdpbr_maps, stp_port) },
	{ XDPBR_MAP_STP_BEAT,	offsetof(struct xdpbr_maps, stp_beat) },
	{ XDPBR_MAP_STORM_STATE, offsetof(struct xdpbr_maps, storm_state) },
	{ XDPBR_MAP_XMIT_SEEN,	offsetof(struct xdpbr_maps, xmit_seen) },
};

#define MAP_FD(m, i) ((int *)((char *)(m) + map_pins[i].off))

/* A pin opened read-write (flags 0) or read-only (BPF_F_RDONLY). */
static int obj_get(const char *path, __u32 flags)
{
	LIBBPF_OPTS(bpf_obj_get_opts, o, .file_flags = flags);

	return flags ? bpf_obj_get_opts(path, &o) : bpf_obj_get(path);
}

static int open_pinned(const char *bridge, struct xdpbr_maps *m, __u32 flags)
{
	char path[PATH_MAX];
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(map_pins); i++)
		*MAP_FD(m, i) = -1;
	for (i = 0; i < ARRAY_SIZE(map_pins); i++) {
		err = pin_path(path, sizeof(path), bridge, map_pins[i].name);
		if (err)
			goto fail;
		*MAP_FD(m, i) = obj_get(path, flags);
		if (*MAP_FD(m, i) < 0) {
			err = -errno;
			goto fail;
		}
	}
	return 0;
fail:
	maps_close(m);
	return err;
}

int maps_open_pinned(const char *bridge, struct xdpbr_maps *m)
{
	return open_pinned(bridge, m, 0);
}

int maps_open_pinned_ro(const char *bridge, struct xdpbr_maps *m)
{
	return open_pinned(bridge, m, BPF_F_RDONLY);
}

void maps_close(struct xdpbr_maps *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(map_pins); i++) {
		if (*MAP_FD(m, i) >= 0)
			close(*MAP_FD(m, i));
		*MAP_FD(m, i) = -1;
	}
}

void maps_unpin(const char *bridge)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map_pins); i++)
		if (!pin_path(path, sizeof(path), bridge, map_pins[i].name))
			unlink(path);
}

/* A map pin of from/ into the bridge's directory: 1 moved, 0 none, -errno. */
static int adopt_pin(const char *from, const char *bridge, const char *name)
{
	char src[PATH_MAX], dst[PATH_MAX];
	int n = snprintf(src, sizeof(src), "%s/%s", from, name);

	if (n < 0 || (size_t)n >= sizeof(src))
		return -ENAMETOOLONG;
	if (access(src, F_OK))
		return 0;
	if (pin_path(dst, sizeof(dst), bridge, name))
		return -ENAMETOOLONG;
	return rename(src, dst) ? -errno : 1;
}

int maps_adopt_pins(const char *from, const char *bridge)
{
	int moved = 0, r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map_pins); i++) {
		r = adopt_pin(from, bridge, map_pins[i].name);
		if (r < 0)
			return r;
		moved += r;
	}
	return moved;
}

int fdbgen_bump_user(const struct xdpbr_maps *m)
{
	__u64 gen = 0;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(m->fdbgen, &zero, &gen))
		return -errno;
	gen += XDPBR_FDBGEN_USER_STEP;
	return bpf_map_update_elem(m->fdbgen, &zero, &gen, BPF_ANY) ? -errno : 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pins.c - the pinned maps are the bridge: open them by name. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
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
#define MAP_PIN(name, type) { XDPBR_MAP_NAME(name), offsetof(struct xdpbr_maps, name) },
	XDPBR_MAPS_PINNED(MAP_PIN)
#undef MAP_PIN
};

#define MAP_FD(m, i) ((int *)((char *)(m) + map_pins[i].off))

/* Maps that builds this one adopts the pins of had not: a client opening
 * such a bridge (this build's CLI, before this build's xdpbrd adopted it)
 * finds no pin, and goes without (-1). ctl.c uses each only when there. */
static const char *const maps_newer[] = {
	XDPBR_MAP_NAME(flood_bc_small), XDPBR_MAP_NAME(flood_mc_small),
	XDPBR_MAP_NAME(flood_uu_small), XDPBR_MAP_NAME(mdb_src),
	XDPBR_MAP_NAME(mcast_vlan), XDPBR_MAP_NAME(mrouter_vlan),
	XDPBR_MAP_NAME(mdb_set), XDPBR_MAP_NAME(mdb_devs),
};

static bool map_newer(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(maps_newer); i++)
		if (!strcmp(maps_newer[i], name))
			return true;
	return false;
}

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
		if (*MAP_FD(m, i) < 0 && !(errno == ENOENT && map_newer(map_pins[i].name))) {
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

int maps_pin(const char *bridge, const struct xdpbr_maps *m)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(map_pins); i++) {
		int fd = *(const int *)((const char *)m + map_pins[i].off);

		if (pin_path(path, sizeof(path), bridge, map_pins[i].name))
			continue;
		if (bpf_obj_pin(fd, path) && errno != EEXIST)
			return -errno;
	}
	return 0;
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

int slots_read(int fd, size_t value_size, void *vals)
{
	__u32 keys[XDPBR_MAX_PORTS];		/* the kernel writes them; unread */
	__u64 in = 0, out = 0;			/* the cursor: a key (array) */
	__u32 done = 0, count;
	int err;

	memset(vals, 0, XDPBR_MAX_PORTS * value_size);
	while (done < XDPBR_MAX_PORTS) {
		count = XDPBR_MAX_PORTS - done;
		err = bpf_map_lookup_batch(fd, done ? &in : NULL, &out, keys,
					   (char *)vals + (size_t)done * value_size, &count, NULL);
		if (err && errno != ENOENT)
			return -errno;
		VALGRIND_MAKE_MEM_DEFINED((char *)vals + (size_t)done * value_size,
					  count * value_size);
		done += count;
		in = out;
		if (err || !count)
			break;			/* the end of the map */
	}
	return 0;
}

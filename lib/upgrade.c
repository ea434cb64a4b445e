// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* upgrade.c - older pinned map layouts made current (see upgrade.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpbr.h"
#include "xdpbr_maps.h"
#include "portstats.h"
#include "upgrade.h"

/* The older layouts of xdpbr_stats, by the names of their counters. */
#define STATS_V29_DROPS							\
	"rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "forwarded",	\
	"flood_broadcast", "flood_multicast", "flood_unknown",		\
	"pass_linklocal", "pass_not_port", "drop_runt", "drop_bad_src",	\
	"drop_same_port", "drop_spoofed_static", "drop_isolated",		\
	"drop_vlan_filtered", "drop_8021ad", "drop_storm_broadcast",	\
	"drop_storm_multicast", "drop_storm_unknown"
#define STATS_V29	STATS_V29_DROPS, "drop_redirect"
#define STATS_V29_EVENTS						\
	"learned", "moved", "learn_failed", "learn_limit", "flood_filtered", \
	"tx_dropped"
static const char *const stats_v29[] = {
	STATS_V29, STATS_V29_EVENTS, "redirect_errors", "events_dropped",
};
static const char *const stats_v31[] = {
	STATS_V29, "drop_mtu", STATS_V29_EVENTS, "tx_dropped_mtu", "redirect_errors",
	"events_dropped",
};
static const char *const stats_v32[] = {
	STATS_V29_DROPS, "drop_port_state", "drop_redirect", "drop_mtu", STATS_V29_EVENTS,
	"tx_dropped_mtu", "redirect_errors", "events_dropped",
};
#define STATS_V33							\
	STATS_V29_DROPS, "drop_linklocal_limit", "drop_port_state", "drop_redirect", "drop_mtu", \
	STATS_V29_EVENTS, "tx_dropped_mtu", "redirect_errors", "events_dropped"
static const char *const stats_v33[] = {
	STATS_V33,
};
static const char *const stats_v34[] = {
	STATS_V33, "bpdu_socket_limit",
};
_Static_assert(sizeof(stats_v29) / sizeof(stats_v29[0]) == 29, "29 counters");
_Static_assert(sizeof(stats_v31) / sizeof(stats_v31[0]) == 31, "31 counters");
_Static_assert(sizeof(stats_v32) / sizeof(stats_v32[0]) == 32, "32 counters");
_Static_assert(sizeof(stats_v33) / sizeof(stats_v33[0]) == 33, "33 counters");
_Static_assert(sizeof(stats_v34) / sizeof(stats_v34[0]) == 34, "34 counters");
_Static_assert(XDPBR_CNT__MAX == 35,
	       "a new counter: add the layout before it to stats_layout() and upgrade.h");

const char *const *stats_layout(size_t n)
{
	switch (n) {
	case 29:
		return stats_v29;
	case 31:
		return stats_v31;
	case 32:
		return stats_v32;
	case 33:
		return stats_v33;
	case 34:
		return stats_v34;
	default:
		return NULL;
	}
}

int stats_index(const char *name)
{
	for (int c = 0; c < XDPBR_CNT__MAX; c++)
		if (!strcmp(counter_names[c], name))
			return c;
	return -1;
}

/* The layout of the map fd; its kernel name in name (BPF_OBJ_NAME_LEN). */
static int layout_of(int fd, struct map_layout *l, char *name)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*l = (struct map_layout){ .type = info.type, .key_size = info.key_size,
				  .value_size = info.value_size,
				  .max_entries = info.max_entries, .flags = info.map_flags };
	if (name)
		memcpy(name, info.name, BPF_OBJ_NAME_LEN);
	return 0;
}

/* The names of the counters of have, when it is a layout of xdpbr_stats
 * older than this build's, else NULL. */
static const char *const *counters_older(const struct map_layout *have)
{
	if (have->type != BPF_MAP_TYPE_PERCPU_ARRAY || have->value_size % sizeof(__u64) ||
	    have->value_size == sizeof(struct xdpbr_stats))
		return NULL;
	return stats_layout(have->value_size / sizeof(__u64));
}

/* 1 if have is want, 0 if it is an older layout of it this build knows
 * (slots of 64, counters of stats_layout), -EPROTO if neither. */
static int layout_older(const char *name, const struct map_layout *want,
			const struct map_layout *have)
{
	bool value = have->value_size == want->value_size ||
		     (!strcmp(name, XDPBR_MAP_NAME(stats)) && counters_older(have));
	bool entries = !want->max_entries || have->max_entries == want->max_entries;
	bool slots64 = want->max_entries == XDPBR_MAX_PORTS &&
		       have->max_entries == UPGRADE_SLOTS_V64;
	bool fast1025 = want->max_entries == XDPBR_FLOOD_FAST_SLOTS &&
			have->max_entries == XDPBR_MAX_PORTS;

	if (have->type != want->type || have->key_size != want->key_size || !value ||
	    !(entries || slots64 || fast1025))
		return -EPROTO;
	return have->value_size == want->value_size && entries;
}

int map_upgrade_start(const char *pin, const char *name, const struct map_layout *want,
		      struct map_layout *have, int *new_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = want->flags);
	char kname[BPF_OBJ_NAME_LEN];
	int fd = bpf_obj_get(pin), err;

	*new_fd = -1;
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;	/* nothing to adopt */
	err = layout_of(fd, have, kname);
	close(fd);
	if (!err)
		err = layout_older(name, want, have);
	if (err)
		return err < 0 ? err : 0;		/* current: 1 */
	fd = bpf_map_create(want->type, kname, want->key_size, want->value_size,
			    want->max_entries ?: have->max_entries, &o);
	if (fd < 0)
		return -errno;
	*new_fd = fd;
	return 0;
}

/* What a value of one map becomes in another: counters by name, a devmap
 * entry's egress program from its id to an fd (in *prog_fd, to close). */
struct entry_copy {
	int ncpus;
	const char *const *names;	/* older counters, or NULL */
	size_t n;			/* how many */
	bool devmap;
	void *in, *out;			/* ncpus values of either map */
	size_t in_len, out_len;		/* bytes of one CPU's value (8-aligned) */
};

static void counters_convert(const struct entry_copy *c)
{
	const __u64 *old = c->in;
	struct xdpbr_stats *now = c->out;

	memset(now, 0, (size_t)c->ncpus * sizeof(*now));
	for (int cpu = 0; cpu < c->ncpus; cpu++)
		for (size_t i = 0; i < c->n; i++) {
			int to = stats_index(c->names[i]);

			if (to >= 0)
				now[cpu].c[to] = old[(size_t)cpu * c->n + i];
		}
}

static int entry_copy(int old_fd, int new_fd, const void *key, struct entry_copy *c)
{
	struct bpf_devmap_val *dv = c->out;
	int prog_fd = -1, err = 0;

	if (bpf_map_lookup_elem(old_fd, key, c->in))
		return errno == ENOENT ? 0 : -errno;	/* an empty devmap slot */
	if (c->names)
		counters_convert(c);
	else
		memcpy(c->out, c->in, (size_t)c->ncpus * c->out_len);
	if (c->devmap && c->out_len >= sizeof(*dv) && dv->bpf_prog.id) {
		prog_fd = bpf_prog_get_fd_by_id(dv->bpf_prog.id);
		if (prog_fd < 0)
			return -errno;
		dv->bpf_prog.fd = prog_fd;
	}
	if (bpf_map_update_elem(new_fd, key, c->out, BPF_ANY))
		err = -errno;
	if (prog_fd >= 0)
		close(prog_fd);
	return err;
}

static bool is_percpu(enum bpf_map_type t)
{
	return t == BPF_MAP_TYPE_PERCPU_ARRAY || t == BPF_MAP_TYPE_PERCPU_HASH ||
	       t == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

/* Every entry of old_fd (of layout have) into new_fd (of now). */
static int map_copy(int old_fd, const struct map_layout *have, int new_fd,
		    const struct map_layout *now)
{
	struct entry_copy c = {
		.ncpus = is_percpu(have->type) ? libbpf_num_possible_cpus() : 1,
		.names = counters_older(have),
		.n = have->value_size / sizeof(__u64),
		.devmap = have->type == BPF_MAP_TYPE_DEVMAP ||
			  have->type == BPF_MAP_TYPE_DEVMAP_HASH,
		.in_len = (have->value_size + 7) & ~7U,
		.out_len = (now->value_size + 7) & ~7U,
	};
	void *key;
	int err = 0;

	if (c.ncpus <= 0)
		return c.ncpus ? c.ncpus : -EINVAL;
	key = calloc(1, have->key_size ?: 1);
	if (have->value_size == now->value_size)
		c.names = NULL;
	c.in = calloc((size_t)c.ncpus, c.in_len);
	c.out = calloc((size_t)c.ncpus, c.out_len);
	if (!key || !c.in || !c.out)
		err = -ENOMEM;
	/* key is the cursor and the next key at once: the kernel reads the
	 * one before it writes the other */
	for (bool first = true; !err; first = false) {
		if (bpf_map_get_next_key(old_fd, first ? NULL : key, key)) {
			err = errno == ENOENT ? 0 : -errno;
			break;
		}
		err = entry_copy(old_fd, new_fd, key, &c);
		/* A devmap this build keeps smaller (the fast flood's) holds
		 * what fits: more ports than that, and the fast flood was not
		 * in use (xdpbr_flood_fast says so), and each port applied
		 * again writes it. Any other map loses no entry. */
		if (err == -E2BIG && c.devmap && now->max_entries < have->max_entries)
			err = 0;
	}
	free(key);
	free(c.in);
	free(c.out);
	return err;
}

int map_upgrade_fill(const char *pin, int new_fd)
{
	struct map_layout have, now;
	int old_fd = bpf_obj_get(pin), err;

	if (old_fd < 0)
		return -errno;
	err = layout_of(old_fd, &have, NULL) ?: layout_of(new_fd, &now, NULL) ?:
	      map_copy(old_fd, &have, new_fd, &now);
	close(old_fd);
	return err;
}

int map_upgrade_pin(const char *pin, int new_fd)
{
	char tmp[PATH_MAX];
	/* bpffs refuses names with a dot */
	int n = snprintf(tmp, sizeof(tmp), "%s_upgrade", pin);

	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	if (bpf_obj_pin(new_fd, tmp))
		return -errno;
	if (rename(tmp, pin)) {
		int err = -errno;

		unlink(tmp);
		return err;
	}
	return 0;
}

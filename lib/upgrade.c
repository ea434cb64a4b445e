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
static const char *const stats_v33[] = {
	STATS_V29_DROPS, "drop_linklocal_limit", "drop_port_state", "drop_redirect", "drop_mtu",
	STATS_V29_EVENTS, "tx_dropped_mtu", "redirect_errors", "events_dropped",
};
_Static_assert(sizeof(stats_v29) / sizeof(stats_v29[0]) == 29, "29 counters");
_Static_assert(sizeof(stats_v31) / sizeof(stats_v31[0]) == 31, "31 counters");
_Static_assert(sizeof(stats_v32) / sizeof(stats_v32[0]) == 32, "32 counters");
_Static_assert(sizeof(stats_v33) / sizeof(stats_v33[0]) == 33, "33 counters");
_Static_assert(XDPBR_CNT__MAX == 34,
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

/* Slot slot of the map old_fd, of the layout names (n counters), into the
 * new map new_fd, CPU by CPU, each count under its name. */
static int stats_copy_slot(int old_fd, int new_fd, __u32 slot, int ncpus,
			   const char *const *names, size_t n)
{
	__u64 *old = calloc((size_t)ncpus, n * sizeof(__u64));
	struct xdpbr_stats *now = calloc((size_t)ncpus, sizeof(*now));
	int err = 0;

	if (!old || !now) {
		err = -ENOMEM;
		goto out;
	}
	if (bpf_map_lookup_elem(old_fd, &slot, old)) {
		err = -errno;
		goto out;
	}
	for (int cpu = 0; cpu < ncpus; cpu++)
		for (size_t c = 0; c < n; c++) {
			int to = stats_index(names[c]);

			if (to >= 0)
				now[cpu].c[to] = old[(size_t)cpu * n + c];
		}
	if (bpf_map_update_elem(new_fd, &slot, now, 0))
		err = -errno;
out:
	free(old);
	free(now);
	return err;
}

int stats_upgrade(const char *pin, int *new_fd)
{
	struct bpf_map_info info = { 0 };
	const char *const *names;
	__u32 len = sizeof(info);
	int old_fd, fd = -1, ncpus, err = 0;
	size_t n;

	*new_fd = -1;
	old_fd = bpf_obj_get(pin);
	if (old_fd < 0)
		return errno == ENOENT ? 0 : -errno;	/* nothing to adopt */
	if (bpf_obj_get_info_by_fd(old_fd, &info, &len)) {
		err = -errno;
		goto out;
	}
	if (info.value_size == sizeof(struct xdpbr_stats))
		goto out;				/* current */
	n = info.value_size / sizeof(__u64);
	names = stats_layout(n);
	if (!names || info.value_size % sizeof(__u64) ||
	    info.type != BPF_MAP_TYPE_PERCPU_ARRAY || info.key_size != sizeof(__u32)) {
		err = -EPROTO;
		goto out;
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		err = ncpus ? ncpus : -EINVAL;
		goto out;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, XDPBR_MAP_NAME(stats), sizeof(__u32),
			    sizeof(struct xdpbr_stats), info.max_entries, NULL);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	for (__u32 slot = 0; slot < info.max_entries && !err; slot++)
		err = stats_copy_slot(old_fd, fd, slot, ncpus, names, n);
	if (err)
		close(fd);
	else
		*new_fd = fd;
out:
	close(old_fd);
	return err;
}

int stats_upgrade_pin(const char *pin, int new_fd)
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

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
#include "upgrade.h"

#define STATS_V1_COUNTERS	29

_Static_assert(XDPBR_CNT__MAX == STATS_V1_COUNTERS + 1,
	       "a new counter: add its layout to upgrade.h and stats_upgrade()");

int stats_v1_index(int old)
{
	return old < XDPBR_CNT_DROP_PORT_STATE ? old : old + 1;
}

/* Slot slot of the v1 map old_fd into the new map new_fd, CPU by CPU. */
static int stats_copy_slot(int old_fd, int new_fd, __u32 slot, int ncpus)
{
	const size_t old_sz = STATS_V1_COUNTERS * sizeof(__u64);
	__u64 *old = calloc((size_t)ncpus, old_sz);
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
		for (int c = 0; c < STATS_V1_COUNTERS; c++)
			now[cpu].c[stats_v1_index(c)] = old[cpu * STATS_V1_COUNTERS + c];
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
	__u32 len = sizeof(info);
	int old_fd, fd = -1, ncpus, err = 0;

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
	if (info.value_size != STATS_V1_COUNTERS * sizeof(__u64) ||
	    info.type != BPF_MAP_TYPE_PERCPU_ARRAY || info.key_size != sizeof(__u32)) {
		err = -EPROTO;
		goto out;
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		err = ncpus ? ncpus : -EINVAL;
		goto out;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, XDPBR_MAP_STATS, sizeof(__u32),
			    sizeof(struct xdpbr_stats), info.max_entries, NULL);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	for (__u32 slot = 0; slot < info.max_entries && !err; slot++)
		err = stats_copy_slot(old_fd, fd, slot, ncpus);
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

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* portstats.c - summing the per-CPU counters; their names come from one table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "portstats.h"

#define XDPBR_NAME_ENTRY(e, name) [XDPBR_CNT_##e] = name,
const char *const counter_names[XDPBR_CNT__MAX] = {
	XDPBR_COUNTERS(XDPBR_NAME_ENTRY)
};
#undef XDPBR_NAME_ENTRY

int stats_read(int map_fd, uint32_t slot, struct xdpbr_stats *sum)
{
	int ncpus = libbpf_num_possible_cpus();
	struct xdpbr_stats *percpu;
	int err = 0;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	percpu = calloc((size_t)ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	memset(sum, 0, sizeof(*sum));
	if (bpf_map_lookup_elem(map_fd, &slot, percpu)) {
		err = -errno;
		goto out;
	}
	for (int cpu = 0; cpu < ncpus; cpu++)
		for (int c = 0; c < XDPBR_CNT__MAX; c++)
			sum->c[c] += percpu[cpu].c[c];
out:
	free(percpu);
	return err;
}

uint64_t stats_outcomes(const struct xdpbr_stats *s)
{
	uint64_t n = 0;

	for (int c = XDPBR_CNT_OUTCOME_FIRST; c <= XDPBR_CNT_OUTCOME_LAST; c++)
		n += s->c[c];
	return n;
}

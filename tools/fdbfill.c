// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fdbfill - fill a bridge's FDB with N dynamic entries, for measuring the
 * control plane as the table grows (ageing sweep time, daemon memory).
 *
 *   fdbfill [-a AGE_S] [-o OFFSET] BRIDGE PORT N
 *
 * Entries get locally administered MACs 06:xx:xx:xx:xx:xx (so they never
 * clash with test hosts' 02:...), vlan 0, port PORT, and a last-seen time
 * AGE_S seconds in the past (default 0: fresh). They count toward the
 * learning limits like learned ones.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "ctl.h"
#include "pins.h"
#include "util.h"

#define BATCH 8192

int main(int argc, char **argv)
{
	static struct xdpbr_fdb_key keys[BATCH];
	static struct xdpbr_fdb_val vals[BATCH];
	uint64_t age = 0, n, offset = 0, done = 0;
	struct xdpbr_maps m;
	struct xdpbr_port p;
	uint32_t ifindex;
	int opt, err;

	while ((opt = getopt(argc, argv, "a:o:")) != -1) {
		if (opt == 'a' && !parse_u64(optarg, 1000000, &age))
			continue;
		if (opt == 'o' && !parse_u64(optarg, 1ULL << 40, &offset))
			continue;
		fprintf(stderr, "usage: fdbfill [-a AGE_S] [-o OFFSET] BRIDGE PORT N\n");
		return 2;
	}
	if (argc - optind != 3 || parse_u64(argv[optind + 2], 1ULL << 32, &n)) {
		fprintf(stderr, "usage: fdbfill [-a AGE_S] [-o OFFSET] BRIDGE PORT N\n");
		return 2;
	}
	err = maps_open_pinned(argv[optind], &m);
	if (err) {
		fprintf(stderr, "fdbfill: bridge '%s': %s\n", argv[optind], strerror(-err));
		return 1;
	}
	ifindex = if_nametoindex(argv[optind + 1]);
	if (!ifindex || ctl_port_get(&m, ifindex, &p)) {
		fprintf(stderr, "fdbfill: '%s' is not a port of '%s'\n", argv[optind + 1],
			argv[optind]);
		return 1;
	}
	uint64_t seen = mono_ns() - age * XDPBR_NSEC_PER_SEC;

	while (done < n) {
		__u32 count = (__u32)(n - done < BATCH ? n - done : BATCH);

		for (__u32 i = 0; i < count; i++) {
			uint64_t id = offset + done + i;

			keys[i] = (struct xdpbr_fdb_key){ .vlan = 0 };
			keys[i].mac[0] = 0x06;
			for (int b = 0; b < 5; b++)
				keys[i].mac[5 - b] = (uint8_t)(id >> (8 * b));
			vals[i] = (struct xdpbr_fdb_val){ .ifindex = ifindex,
							  .slot = (uint16_t)p.slot,
							  .last_seen = seen };
		}
		if (bpf_map_update_batch(m.fdb, keys, vals, &count, NULL)) {
			ctl_learned_adjust(&m, p.slot, (int64_t)(done + count));
			fprintf(stderr, "fdbfill: after %llu entries: %s%s\n",
				(unsigned long long)(done + count), strerror(errno),
				errno == E2BIG || errno == ENOSPC ? " (FDB full: start xdpbrd with -s)" : "");
			return 1;
		}
		done += count;
	}
	ctl_learned_adjust(&m, p.slot, (int64_t)done);
	printf("fdbfill: %llu entries on %s\n", (unsigned long long)done, argv[optind + 1]);
	maps_close(&m);
	return 0;
}

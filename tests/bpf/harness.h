/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * harness.h - running the real datapath (xdpbr_rx from build/xdpbr.skel.h)
 * under BPF_PROG_RUN, shared by the fixture tables of tests/bpf/ and the
 * libFuzzer harness tests/fuzz/fuzz_datapath.c.
 *
 * dp_load() loads one instance; every other function works on that one. The
 * map helpers write and read the datapath's maps directly, as the datapath
 * sees them (per-CPU values summed or written the same on every CPU). All
 * return 0 or -errno unless they say otherwise.
 */
#ifndef XDPBR_TESTS_HARNESS_H
#define XDPBR_TESTS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/if_ether.h>

#include "xdpbr.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define SEC_NS(s)	((__u64)((s) * XDPBR_NSEC_PER_SEC))
#define MAC(a, b, c, d, e, f) { 0x##a, 0x##b, 0x##c, 0x##d, 0x##e, 0x##f }

struct xdpbr;

/* The loaded datapath, and the number of possible CPUs (per-CPU maps). */
extern struct xdpbr *dp_skel;
extern int dp_ncpus;

/* Counter names by enum xdpbr_counter, from XDPBR_COUNTERS. */
extern const char *const dp_cnt_names[XDPBR_CNT__MAX];

/* ---- setup ---- */

/* Moves the process into a network namespace of its own (it dies with the
 * process) with lo up and n veth pairs names[i] <-> peers[i], all up;
 * ifindex[i] receives the index of names[i]. -EIO if an ip command failed. */
int dp_netns(const char *const *names, const char *const *peers,
	     unsigned int *ifindex, int n);

/* Opens and loads the skeleton into dp_skel, and counts CPUs. pin_root:
 * where the maps are pinned (libbpf's pin_root_path), or NULL for no pins
 * at all: then the instance lives and dies with the process. */
int dp_load(const char *pin_root);
void dp_unload(void);

/* ---- time and names ---- */

/* CLOCK_MONOTONIC_COARSE, the clock bpf_ktime_get_coarse_ns() reads: what
 * the datapath stores as last_seen and storm bucket times. */
__u64 dp_coarse_ns(void);
/* CLOCK_MONOTONIC, for how long something took. */
__u64 dp_mono_ns(void);

const char *dp_mac_str(const __u8 *m, char buf[18]);
const char *dp_verdict_name(__u32 verdict);

/* ---- frames ---- */

#define MAX_TAGS	2	/* tags a test frame may carry */
#define JUMBO_BUF	9216	/* bytes a test frame may have */

/* One VLAN tag of a test frame, outermost first; tpid 0 ends the list. */
struct vlan_tag {
	__u16 tpid;			/* ETH_P_8021Q or ETH_P_8021AD */
	__u16 tci;			/* PCP(3) DEI(1) VID(12), host order */
};
#define TAG(tci)	{ ETH_P_8021Q, (tci) }
#define STAG(tci)	{ ETH_P_8021AD, (tci) }
#define PCP(p)		((__u16)((p) << 13))

/* Ethernet frame: dst, src, each tag (TPID, TCI) up to the first with TPID
 * 0 (MAX_TAGS at most), ethertype, then payload_len bytes of a counting
 * pattern; multi-byte fields in network order. Returns the frame length, 0
 * if it does not fit in size. */
size_t dp_build_frame(__u8 *buf, size_t size, const __u8 *dst, const __u8 *src,
		      const struct vlan_tag *tags, __u16 ethertype, size_t payload_len);

/* dp_build_frame() against a frame written out by hand. */
bool dp_build_frame_selftest(void);

/* One BPF_PROG_RUN of xdpbr_rx on frame as received on ifindex: the verdict
 * and the frame the program handed on (out, *out_len). */
int dp_prog_run(__u32 ifindex, const __u8 *frame, size_t len, __u8 *out,
		size_t out_size, __u32 *out_len, __u32 *verdict);

/* The same in live-frames mode (BPF_F_TEST_XDP_LIVE_FRAMES): what the
 * program redirects is really sent, so the devmap egress program runs on
 * each flooded copy. No verdict nor output frame comes back. Where the
 * kernel refuses live frames (EPERM), xdpbr_rx is attached to the port
 * instead and the frame sent in through its peer veth (dp_netns's), and
 * this returns once the counters have moved and settled. */
int dp_prog_run_live(__u32 ifindex, const __u8 *frame, size_t len);

/* ---- maps ---- */

/* Every counter of every slot of xdpbr_stats, summed over the CPUs. */
int dp_stats_read(__u64 out[XDPBR_MAX_PORTS][XDPBR_CNT__MAX]);
/* Every slot of xdpbr_learned (the datapath's counts). */
int dp_learned_read(__u64 out[XDPBR_MAX_PORTS]);
int dp_learned_set(__u32 slot, __u64 n);
/* A slot of xdpbr_learned_user (user space's counts). */
int dp_learned_user_set(__u32 slot, __u64 n);

struct xdpbr_fdb_key dp_fdb_key(const __u8 *mac, __u16 vlan);
/* Entry {vlan, mac}: 1 and *v filled when present, 0 when absent, -errno
 * on error. */
int dp_fdb_get(const __u8 *mac, __u16 vlan, struct xdpbr_fdb_val *v);
/* Deletes every entry. */
int dp_fdb_flush(void);

/* xdpbr_vlans[slot]: member of every VID of tagged[] and untagged[], and
 * untagged in those of untagged[]; each list ends at n or its first 0, and
 * may be NULL. */
int dp_vlans_set(__u32 slot, const __u16 *tagged, size_t ntagged,
		 const __u16 *untagged, size_t nuntagged);

/* xdpbr_storm[slot]: each class's per-CPU share pps_cpu[class] (NULL: no
 * limits), with pps written as ctl_storm_set() would: pps_cpu * CPUs. */
int dp_storm_set(__u32 slot, const __u32 *pps_cpu);
/* xdpbr_storm_state[slot]: *b on every CPU (NULL: every bucket zero, never
 * used: it fills up on its first frame). */
int dp_buckets_set(__u32 slot, const struct xdpbr_storm_bucket *b);

#endif /* XDPBR_TESTS_HARNESS_H */

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_datapath.c - libFuzzer harness for the datapath program xdpbr_rx.
 *
 * Loads the real program from the skeleton (build/xdpbr.skel.h) in a
 * private network namespace with five veth ports and one veth that is not a
 * port, gives it a bridge (below), and runs every input as one frame through
 * BPF_PROG_RUN, all through the datapath test's harness (tests/bpf/harness.h:
 * loading, running, reading and writing the maps). The maps are pinned, but
 * in a bpffs of the harness's own (a private mount namespace: nothing shows
 * outside, nothing stays behind), so that the daemon's own code can open
 * them (maps_open_pinned) and set the ports up (ctl_port_apply): however the
 * datapath comes to keep its port table, the harness writes it the way
 * xdpbrd does. Input:
 *
 *   byte 0   bit 0     VLAN filtering on
 *            bits 1-3  ingress: 0-4 p1..p5 (ports), 5 n1 (not a port),
 *                      6 ingress_ifindex 0 (the kernel uses lo), 7 an
 *                      ifindex that does not exist (BPF_PROG_RUN refuses it)
 *            bit 4     learning off on the ingress port
 *            bit 5     bridge at its learning limit (fdb_max_learned)
 *            bit 6     ageing time "never" (else 10 s: one entry is stale)
 *            bit 7     ingress port at its own limit (max_learned)
 *   byte 1   bits 0-1  storm control of the ingress port: 0 none, 1 limits
 *                      with a full bucket, 2 limits with an empty one
 *            bits 2-7  unused
 *   byte 2.. the frame, as received
 *
 * The bridge (see ports[] and fdb0[]): p1 an access port of VLAN 10; p2 an
 * isolated trunk (10, 20); p3 isolated and hairpin, access port of 20 and
 * tagged in 30; p4 hairpin, PVID 10, tagged in 20 and 30; p5 down (in no tx
 * or flood map). The FDB holds statics on p1 and p2 and dynamic entries on
 * every port in VLANs 0, 10, 20 and 30, one of them stale, two on a port
 * that is not in their VLAN. Every input starts from that state: whatever a
 * frame changed is put back after it.
 *
 * After each frame, what must hold (abort() with the reason otherwise, and
 * libFuzzer keeps the input):
 *  - BPF_PROG_RUN refuses only frames shorter than ETH_HLEN and the
 *    nonexistent ifindex, and a refused frame leaves no trace;
 *  - the verdict is XDP_PASS, XDP_DROP or XDP_REDIRECT (never ABORTED, TX);
 *  - the ingress slot's rx_packets grew by one, rx_bytes by the frame's
 *    whole length (multi-buffer XDP: head and fragments), exactly one outcome counter (XDPBR_CNT_OUTCOME_FIRST..
 *    LAST) by one, and it agrees with the verdict (forwarded/flood_* with
 *    REDIRECT, pass_* with PASS, drop_* with DROP); learned/moved agree with
 *    the FDB and the ring buffer's events; tx counters grew only for a
 *    forwarded frame, on one slot, by its output length, or for a fast
 *    flood (no per-copy rule: VLAN filtering off, the ingress not
 *    isolated, within the MTU), by one frame of its length on every other
 *    port of its class's flood set (and the ingress if hairpin); for a
 *    flooded frame longer than 1500 bytes of IP (the ports' MTU), on each
 *    port whose copy it was, tx_dropped_mtu, or flood_filtered where the
 *    copy's rules (isolation, VLAN membership) drop it first (mtu_copy);
 *    nothing else moved;
 *  - the FDB never holds a multicast or all-zero MAC, nor an entry on an
 *    ifindex that is not a port (or with another port's slot); statics
 *    never change; the only entry a frame may add, move or refresh is its
 *    own source in its own VLAN, onto its ingress port, and the learned
 *    counts (xdpbr_learned) follow; and a frame that gets as far as
 *    learning does learn: a new source is added (unless learning is off,
 *    or at a limit: then learn_limit counts it), one known on another port
 *    moves, one static on another port is never moved and its frame is
 *    dropped as spoofed;
 *  - the bridge's rules: not-a-port frames pass; bad sources drop;
 *    link-local passes (but BPDUs, to 01:80:c2:00:00:00, are bridged as
 *    multicast: STP is off here, as on the kernel bridge); a frame claiming another port's static MAC is never
 *    bridged; known unicast goes to the port the FDB names, never back out
 *    of its ingress unless hairpin, never between two isolated ports, never
 *    into a VLAN the egress is not in; with VLAN filtering no frame leaves
 *    in a VLAN its ingress is not in, and 802.1ad frames are not bridged;
 *    storm control drops only with a limit and an empty bucket;
 *  - the output frame is the input (VLAN filtering off, and every PASS) or,
 *    with filtering on, the same addresses and payload carrying exactly the
 *    tag its egress wants (floods: the frame's VLAN tag; forwarded: that
 *    tag, or none where the egress port is an untagged member): its length
 *    stays within the input's +-4.
 *
 * BPF_PROG_RUN runs the program but does not carry out a redirect, so the
 * devmap egress program (per-port VLAN tagging and isolation of flooded
 * copies) does not run here: tests/integration covers it. A fast flood's
 * tx, counted by the ingress program, is checked here.
 *
 * Coverage: libFuzzer sees only this harness's own code, not the BPF
 * program. The outcome of each frame (counter, verdict, learn/move events,
 * tag change, egress slot, per ingress and VLAN mode) is fed back to it as
 * extra coverage counters, so inputs that reach a new datapath path are kept.
 *
 * Needs root (BPF, netns). FUZZ_VERBOSE=1 shows libbpf's messages.
 */
#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>

#include "xdpbr.h"
#include "xdpbr_rules.h"
#include "xdpbr.skel.h"
#include "ctl.h"
#include "pins.h"
#include "fuzz_common.h"
#include "harness.h"		/* tests/bpf/: loading, running, map helpers */

#define NSLOTS		XDPBR_MAX_PORTS
#define ETH_P_8021Q_	0x8100
#define ETH_P_8021AD_	0x88a8
#define CFG_AGEING_NS	(10 * XDPBR_NSEC_PER_SEC)
/* Baseline timestamps are renewed this often, so fresh entries stay fresh
 * (well inside the 10 s ageing time) and the stale one stays stale. */
#define RESTAMP_NS	(XDPBR_NSEC_PER_SEC / 2)
#define FDB_READ_MAX	256
#define MAX_EVENTS	16
#define DEF		XDPBR_PORT_DEFAULT_FLAGS
#define BRIDGE		"fz"

/* ------------------------------------------------------------ the bridge */

enum { P1, P2, P3, P4, P5, NPORTS };

static struct fz_port {
	const char *name, *peer;
	__u32 slot;
	__u32 flags;
	__u16 pvid;
	__u16 tagged[3];		/* tagged member of these VLANs (0 ends) */
	__u16 untagged[2];		/* untagged member of these */
	__u32 ifindex;			/* at setup */
	struct xdpbr_port cur;		/* as the map holds it now */
} ports[NPORTS] = {
#define PORT(n, s, f, pv, t, u) { .name = "p" #n, .peer = "q" #n, .slot = (s), \
				  .flags = (f), .pvid = (pv), .tagged = t, .untagged = u }
#define L(...) { __VA_ARGS__ }
	[P1] = PORT(1, 1, DEF, 10, L(0), L(10)),
	[P2] = PORT(2, 2, DEF | XDPBR_PORT_ISOLATED, 0, L(10, 20), L(0)),
	[P3] = PORT(3, 3, DEF | XDPBR_PORT_ISOLATED | XDPBR_PORT_HAIRPIN, 20, L(30), L(20)),
	[P4] = PORT(4, 4, DEF | XDPBR_PORT_HAIRPIN, 10, L(20, 30), L(10)),
	[P5] = PORT(5, 5, DEF | XDPBR_PORT_DOWN, 0, L(10, 20), L(0)),
#undef L
#undef PORT
};
static unsigned int np_ifindex;		/* n1: a device that is not a port */
#define BOGUS_IFINDEX	0x7ffffff0u

static const struct fz_fdb {
	__u8 mac[ETH_ALEN];
	__u16 vlan;
	int port;
	__u16 flags;
	__u64 age_ns;
} fdb0[] = {
	{ MAC(02, 00, 00, 00, 00, a1), 0, P1, XDPBR_FDB_STATIC, 0 },
	{ MAC(02, 00, 00, 00, 00, a1), 10, P1, XDPBR_FDB_STATIC, 0 },
	{ MAC(02, 00, 00, 00, 00, b2), 20, P2, XDPBR_FDB_STATIC, 0 },
	{ MAC(02, 00, 00, 00, 00, c3), 0, P3, 0, 0 },
	{ MAC(02, 00, 00, 00, 00, c3), 20, P3, 0, 0 },
	{ MAC(02, 00, 00, 00, 00, d4), 0, P2, 0, SEC_NS(20) },	/* stale at 10 s */
	{ MAC(02, 00, 00, 00, 00, e5), 10, P4, 0, 0 },
	{ MAC(02, 00, 00, 00, 00, f6), 0, P5, 0, 0 },		/* port down */
	{ MAC(02, 00, 00, 00, 00, 07), 10, P2, 0, 0 },
	{ MAC(02, 00, 00, 00, 00, 08), 30, P4, 0, 0 },
	{ MAC(02, 00, 00, 00, 00, 09), 0, P1, 0, 0 },
	/* on a port not in the entry's VLAN: a static put there by hand, a
	 * dynamic one whose port left the VLAN since */
	{ MAC(02, 00, 00, 00, 00, 0a), 20, P1, XDPBR_FDB_STATIC, 0 },
	{ MAC(02, 00, 00, 00, 00, 0b), 30, P2, 0, 0 },
};
#define NFDB0 ARRAY_SIZE(fdb0)

static struct xdpbr_maps maps;
static int egress_fd;
static int fd_fdb;
static struct ring_buffer *rb;
static __u32 linear_max;		/* 9000 when BPF_PROG_RUN takes multi-buffer frames */
static __u64 stamp_ns;			/* when the baseline was last stamped */
static __u64 learned0[NSLOTS];		/* xdpbr_learned of the baseline */
static __u64 stats_prev[NSLOTS][XDPBR_CNT__MAX];
static struct xdpbr_config cfg_cur;
static int storm_slot;			/* slot whose storm entry is set, or 0 */
static int outcome_verdict[XDPBR_CNT__MAX];	/* by counter, for outcomes */

static struct {
	unsigned long long frames, refused, verdict[5], outcome[XDPBR_CNT__MAX];
} tally;

/* Extra coverage for libFuzzer: one byte per datapath feature seen. */
#define FEATURES 4096
__attribute__((used, section("__libfuzzer_extra_counters")))
static uint8_t features[FEATURES];

static void feature(unsigned int region, unsigned long long v)
{
	unsigned long long h = (v + 1) * 0x9e3779b97f4a7c15ULL;

	features[(region * 1024 + (unsigned int)(h >> 54)) % FEATURES]++;
}

static bool mac_multicast(const __u8 *m) { return m[0] & 1; }
static bool mac_zero(const __u8 *m) { return !(m[0] | m[1] | m[2] | m[3] | m[4] | m[5]); }
static bool mac_bcast(const __u8 *m) { return (m[0] & m[1] & m[2] & m[3] & m[4] & m[5]) == 0xff; }
/* A link-local group the bridge keeps local: 01:80:c2:00:00:01-0f. The
 * BPDU address, 01:80:c2:00:00:00, is bridged while STP is off, which it
 * always is here. */
static bool mac_link_local(const __u8 *m)
{
	static const __u8 ll[5] = { 0x01, 0x80, 0xc2, 0x00, 0x00 };

	return !memcmp(m, ll, 5) && !(m[5] & 0xf0) && m[5] != 0x00;
}

static __u16 get_be16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static bool vid_in(const __u16 *list, size_t n, __u16 vid)
{
	for (size_t i = 0; i < n && list[i]; i++)
		if (list[i] == vid)
			return true;
	return false;
}

static bool member(const struct fz_port *p, __u16 vid)
{
	return vid_in(p->tagged, ARRAY_SIZE(p->tagged), vid) ||
	       vid_in(p->untagged, ARRAY_SIZE(p->untagged), vid);
}

static struct fz_port *port_by_ifindex(__u32 ifindex)
{
	for (int i = 0; i < NPORTS; i++)
		if (ports[i].ifindex == ifindex)
			return &ports[i];
	return NULL;
}

static struct fz_port *port_by_slot(__u32 slot)
{
	for (int i = 0; i < NPORTS; i++)
		if (ports[i].slot == slot)
			return &ports[i];
	return NULL;
}

/* ------------------------------------------------------------ maps */

static void must(int err, const char *what)
{
	if (err)
		fz_setup_failed("%s: %s", what, strerror(-err));
}

struct fdb_ent {
	struct xdpbr_fdb_key k;
	struct xdpbr_fdb_val v;
};

/* The whole FDB; fails the run if it is larger than FDB_READ_MAX. */
static size_t fdb_snapshot(struct fdb_ent *out)
{
	static struct xdpbr_fdb_key keys[FDB_READ_MAX];
	static struct xdpbr_fdb_val vals[FDB_READ_MAX];
	__u32 count = FDB_READ_MAX;
	__u64 next = 0;
	int err;

	err = bpf_map_lookup_batch(fd_fdb, NULL, &next, keys, vals, &count, NULL);
	if (err && errno != ENOENT)
		fz_setup_failed("reading xdpbr_fdb: %s", strerror(errno));
	if (!err)
		fz_fail("the FDB holds %u or more entries after one frame (baseline %zu)",
			count, NFDB0);
	for (__u32 i = 0; i < count; i++) {
		out[i].k = keys[i];
		out[i].v = vals[i];
	}
	return count;
}

static struct xdpbr_fdb_val val_of(const struct fz_fdb *e)
{
	struct xdpbr_fdb_val v = {
		.ifindex = ports[e->port].ifindex,
		.slot = (__u16)ports[e->port].slot,
		.flags = e->flags,
		.last_seen = stamp_ns - e->age_ns,
	};

	return v;
}

static const struct fz_fdb *fdb0_find(const struct xdpbr_fdb_key *k)
{
	for (size_t i = 0; i < NFDB0; i++)
		if (fdb0[i].vlan == k->vlan && !memcmp(fdb0[i].mac, k->mac, ETH_ALEN))
			return &fdb0[i];
	return NULL;
}

static void fdb_stamp(void)
{
	stamp_ns = dp_coarse_ns();
	for (size_t i = 0; i < NFDB0; i++) {
		struct xdpbr_fdb_key k = dp_fdb_key(fdb0[i].mac, fdb0[i].vlan);
		struct xdpbr_fdb_val v = val_of(&fdb0[i]);

		must(bpf_map_update_elem(fd_fdb, &k, &v, BPF_ANY), "writing the FDB");
	}
	must(fdbgen_bump_user(&maps), "moving the FDB generation on");
}

static void port_write(struct fz_port *p, __u32 flags, __u32 max_learned)
{
	struct xdpbr_port v = {
		.slot = p->slot,
		.flags = flags,
		.mode = XDPBR_MODE_NATIVE,
		.pvid = p->pvid,
		.max_learned = max_learned,
	};

	int err;

	if (!memcmp(&v, &p->cur, sizeof(v)))
		return;
	err = ctl_port_apply(&maps, p->ifindex, &v, egress_fd);
	if (err)
		fz_setup_failed("ctl_port_apply(%s): %s", p->name, strerror(-err));
	p->cur = v;
}

static void config_write(__u32 flags, __u32 fdb_max_learned, __u64 ageing_ns)
{
	struct xdpbr_config c = {
		.ageing_ns = ageing_ns,
		.flags = flags,
		.fdb_max_learned = fdb_max_learned,
	};

	if (!memcmp(&c, &cfg_cur, sizeof(c)))
		return;
	/* as the daemon writes it: with a new FDB generation */
	must(ctl_config_set(&maps, &c), "writing xdpbr_config");
	cfg_cur = c;
}

/* Storm control of slot: mode 0 none, 1 a limit and a full bucket (never
 * used), 2 a limit and an empty bucket (just emptied). The limit is one
 * frame a second on every CPU: the bucket holds one frame and refills in a
 * second, so an empty one stays empty for the frame. */
static void storm_write(__u32 slot, int mode)
{
	static const __u32 one_a_second[XDPBR_STORM__MAX] = {
		[0 ... XDPBR_STORM__MAX - 1] = 1,
	};
	struct xdpbr_storm_bucket b = { 0 };

	if (storm_slot && (storm_slot != (int)slot || !mode)) {
		must(dp_storm_set((__u32)storm_slot, NULL), "writing xdpbr_storm");
		storm_slot = 0;
	}
	if (!mode)
		return;
	if (mode == 2) {
		__u64 now = dp_coarse_ns();

		for (int c = 0; c < XDPBR_STORM__MAX; c++)
			b.last_ns[c] = now;	/* tokens 0 */
	}
	must(dp_buckets_set(slot, &b), "writing xdpbr_storm_state");
	if (storm_slot != (int)slot) {
		must(dp_storm_set(slot, one_a_second), "writing xdpbr_storm");
		storm_slot = (int)slot;
	}
}

static struct {
	struct xdpbr_event ev[MAX_EVENTS];
	int n;
} events;

static int on_event(void *ctx, void *data, size_t size)
{
	if (size != sizeof(struct xdpbr_event))
		fz_fail("ring buffer record of %zu bytes, expected %zu", size,
			sizeof(struct xdpbr_event));
	if (events.n < MAX_EVENTS)
		memcpy(&events.ev[events.n], data, size);
	events.n++;
	return 0;
}

/* ------------------------------------------------------------ setup */

/* The ports (each in tx and the flood sets, unless down: ctl_port_apply
 * does that), their VLANs, the config, the FDB and the learned counts. */
static void bridge_setup(void)
{
	for (int i = 0; i < NPORTS; i++) {
		struct fz_port *p = &ports[i];

		memset(&p->cur, 0xff, sizeof(p->cur));
		port_write(p, p->flags, 0);
		must(dp_vlans_set(p->slot, p->tagged, ARRAY_SIZE(p->tagged), p->untagged,
				  ARRAY_SIZE(p->untagged)), "writing xdpbr_vlans");
	}
	memset(&cfg_cur, 0xff, sizeof(cfg_cur));
	config_write(0, 0, CFG_AGEING_NS);
	fdb_stamp();
	for (size_t i = 0; i < NFDB0; i++) {
		if (fdb0[i].flags & XDPBR_FDB_STATIC)
			continue;
		learned0[ports[fdb0[i].port].slot]++;
		learned0[XDPBR_LEARNED_TOTAL]++;
	}
	for (__u32 s = 0; s < NSLOTS; s++)
		must(dp_learned_set(s, learned0[s]), "writing xdpbr_learned");
}

/* Whether BPF_PROG_RUN takes frames larger than a page (it then puts the
 * rest in fragments): measured with a frame to the not-a-port device,
 * whose rx_bytes must count the whole frame (bpf_xdp_get_buff_len). */
static void calibrate(void)
{
	static __u8 frame[9000], out[9100];
	static __u64 before[NSLOTS][XDPBR_CNT__MAX], after[NSLOTS][XDPBR_CNT__MAX];
	__u32 out_len, verdict;
	int err;

	memset(frame, 0x5a, sizeof(frame));
	frame[0] = 0x02;
	must(dp_stats_read(before), "reading xdpbr_stats");
	err = dp_prog_run(np_ifindex, frame, sizeof(frame), out, sizeof(out), &out_len, &verdict);
	must(dp_stats_read(after), "reading xdpbr_stats");
	if (err) {
		linear_max = 0;		/* jumbo frames refused: see the run */
		return;
	}
	linear_max = (__u32)(after[0][XDPBR_CNT_RX_BYTES] - before[0][XDPBR_CNT_RX_BYTES]);
	if (linear_max != sizeof(frame))
		fz_setup_failed("calibration: a 9000-byte frame counted %u rx bytes, not the "
				"whole frame", linear_max);
}

static void report(void)
{
	fprintf(stderr, "fuzz_datapath: %llu frames (%llu PASS, %llu DROP, %llu REDIRECT), "
		"%llu refused by BPF_PROG_RUN; frames of %u bytes counted whole\n", tally.frames,
		tally.verdict[XDP_PASS], tally.verdict[XDP_DROP], tally.verdict[XDP_REDIRECT],
		tally.refused, linear_max);
	fprintf(stderr, "fuzz_datapath: outcomes:");
	for (int c = XDPBR_CNT_OUTCOME_FIRST; c <= XDPBR_CNT_OUTCOME_LAST; c++)
		fprintf(stderr, " %s=%llu", dp_cnt_names[c], tally.outcome[c]);
	fputc('\n', stderr);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *names[NPORTS + 1], *peers[NPORTS + 1], *dir;
	unsigned int idx[NPORTS + 1];
	int err;

	setvbuf(stderr, NULL, _IOLBF, 0);
	dir = fz_private_bpffs(BRIDGE);
	for (int i = 0; i < NPORTS; i++) {
		names[i] = ports[i].name;
		peers[i] = ports[i].peer;
	}
	names[NPORTS] = "n1";
	peers[NPORTS] = "m1";
	fz_netns(names, peers, idx, NPORTS + 1);
	for (int i = 0; i < NPORTS; i++)
		ports[i].ifindex = idx[i];
	np_ifindex = idx[NPORTS];

	libbpf_set_print(fz_libbpf_print);
	err = dp_load(dir);
	if (err)
		fz_setup_failed("loading build/xdpbr.bpf.o: %s (FUZZ_VERBOSE=1 for the verifier log)",
				strerror(-err));
	err = maps_open_pinned(BRIDGE, &maps);
	if (err)
		fz_setup_failed("maps_open_pinned: %s", strerror(-err));
	egress_fd = bpf_program__fd(dp_skel->progs.xdpbr_egress);
	fd_fdb = maps.fdb;
	rb = ring_buffer__new(maps.events, on_event, NULL, NULL);
	if (!rb)
		fz_setup_failed("ring buffer: %s", strerror(errno));

	/* Which verdict each outcome counter stands for, from its name. */
	for (int c = XDPBR_CNT_OUTCOME_FIRST; c <= XDPBR_CNT_OUTCOME_LAST; c++) {
		const char *n = dp_cnt_names[c];

		if (!strcmp(n, "forwarded") || !strncmp(n, "flood_", 6))
			outcome_verdict[c] = XDP_REDIRECT;
		else if (!strncmp(n, "pass_", 5))
			outcome_verdict[c] = XDP_PASS;
		else if (!strncmp(n, "drop_", 5))
			outcome_verdict[c] = XDP_DROP;
		else
			fz_setup_failed("outcome counter '%s': which verdict? (teach %s)", n,
					__FILE__);
	}

	bridge_setup();
	calibrate();
	must(dp_stats_read(stats_prev), "reading xdpbr_stats");
	atexit(report);
	return 0;
}

/* ------------------------------------------------------------ one frame */

/* What the harness knows about a frame before running it. */
struct frame_info {
	const __u8 *in;
	size_t len;
	size_t lin;			/* what the program sees (linear part) */
	unsigned int ing;		/* the input's ingress choice, 0..7 */
	__u32 ifindex;
	struct fz_port *port;		/* ingress port, NULL if not a port */
	__u32 slot;			/* its stats slot (0: not a port) */
	bool vlan_on, learning;
	bool at_limit;			/* a new entry would pass no limit */
	bool tagged;			/* outer 802.1Q tag with room for it */
	__u16 tci;			/* its TCI */
	__u16 vid;			/* the frame's VLAN when VLAN filtering is on */
	__u16 kvlan;			/* the VLAN of its FDB keys */
	int storm;
};

/* What one run did. */
struct result {
	int err;
	__u32 verdict;
	__u8 out[16384];
	__u32 out_len;
	__u64 t0, t1;			/* the clock just before and after */
	__u64 d[NSLOTS][XDPBR_CNT__MAX];	/* counter deltas */
	int outcome;			/* the outcome counter that grew, or -1 */
	int egress;			/* slot whose tx grew, or -1 */
	struct fdb_ent fdb[FDB_READ_MAX];	/* the FDB after it */
	size_t nfdb;
	__u64 learned[NSLOTS];		/* xdpbr_learned after it */
	int changed, changed_at;	/* FDB entries changed, the last one */
	int nnew, nmoved;		/* ... of which new, and moved */
	const struct fz_port *moved_from;
	bool learns;			/* got as far as learning */
};

static void describe(const struct frame_info *f, const struct result *r)
{
	char s[18], d[18];

	fprintf(stderr, "==fuzz== frame: %zu bytes, %s -> %s, type/tpid 0x%04x, ingress %s "
		"(ifindex %u), vlan filtering %s, vid %u, learning %s, storm %d; verdict %u, "
		"outcome %s\n", f->len, f->len >= 12 ? dp_mac_str(f->in + 6, s) : "?",
		f->len >= 12 ? dp_mac_str(f->in, d) : "?", f->len >= 14 ? get_be16(f->in + 12) : 0,
		f->port ? f->port->name : "(not a port)", f->ifindex, f->vlan_on ? "on" : "off",
		f->vid, f->learning ? "on" : "off", f->storm, r->verdict,
		r->outcome >= 0 ? dp_cnt_names[r->outcome] : "none");
}

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		describe(f, r);						\
		fz_fail(__VA_ARGS__);					\
	}								\
} while (0)

/* The frame the program must hand on: the input's addresses and payload,
 * carrying the frame's VLAN tag (tagged) or no tag, written into want.
 * Returns its length. */
static size_t expected_frame(const struct frame_info *f, bool tagged, __u8 *want)
{
	size_t rest_off = 12 + (f->tagged ? 4 : 0);
	size_t rest = f->len - rest_off;
	__u16 tci = (__u16)((f->tagged ? f->tci & 0xf000 : 0) | f->vid);

	memcpy(want, f->in, 12);
	if (!tagged) {
		memcpy(want + 12, f->in + rest_off, rest);
		return 12 + rest;
	}
	want[12] = 0x81;
	want[13] = 0x00;
	want[14] = (__u8)(tci >> 8);
	want[15] = (__u8)tci;
	memcpy(want + 16, f->in + rest_off, rest);
	return 16 + rest;
}

/* The live (non-stale) FDB entry for {vlan, mac} in table t. */
static const struct fdb_ent *fdb_live(const struct fdb_ent *t, size_t n, __u16 vlan,
				      const __u8 *mac, __u64 now)
{
	__u64 ageing = cfg_cur.ageing_ns ? cfg_cur.ageing_ns : SEC_NS(XDPBR_DEFAULT_AGEING_S);

	for (size_t i = 0; i < n; i++) {
		const struct fdb_ent *e = &t[i];

		if (e->k.vlan != vlan || memcmp(e->k.mac, mac, ETH_ALEN))
			continue;
		if (!(e->v.flags & XDPBR_FDB_STATIC) && ageing != XDPBR_AGEING_NEVER &&
		    now > e->v.last_seen && now - e->v.last_seen > ageing)
			return NULL;
		return e;
	}
	return NULL;
}

/* The input's control bytes into the bridge's state, and what the frame is
 * as the datapath should see it. */
static void prepare(const uint8_t *data, size_t size, struct frame_info *f)
{
	f->in = data + 2;
	f->len = size - 2;
	f->vlan_on = data[0] & 1;
	f->ing = (data[0] >> 1) & 7;
	f->learning = !(data[0] & 0x10);
	f->storm = data[1] & 3;
	if (f->storm == 3)
		f->storm = 0;
	switch (f->ing) {
	case 0: case 1: case 2: case 3: case 4:
		f->port = &ports[f->ing];
		f->ifindex = f->port->ifindex;
		break;
	case 5:
		f->ifindex = np_ifindex;
		break;
	case 6:
		f->ifindex = 0;
		break;
	default:
		f->ifindex = BOGUS_IFINDEX;
		break;
	}
	f->slot = f->port ? f->port->slot : 0;

	if (dp_coarse_ns() - stamp_ns > RESTAMP_NS)
		fdb_stamp();
	config_write(f->vlan_on ? XDPBR_CFG_VLAN_FILTERING : 0,
		     data[0] & 0x20 ? (__u32)learned0[XDPBR_LEARNED_TOTAL] : 0,
		     data[0] & 0x40 ? XDPBR_AGEING_NEVER : CFG_AGEING_NS);
	for (int i = 0; i < NPORTS; i++) {
		struct fz_port *p = &ports[i];
		__u32 flags = p->flags, lim = 0;

		if (p == f->port) {
			if (!f->learning)
				flags &= ~XDPBR_PORT_LEARNING;
			if (data[0] & 0x80)
				lim = learned0[p->slot] ? (__u32)learned0[p->slot] : 1;
		}
		port_write(p, flags, lim);
	}
	if (f->port && !(f->port->flags & XDPBR_PORT_LEARNING))
		f->learning = false;
	f->at_limit = (data[0] & 0x20) || ((data[0] & 0x80) && learned0[f->slot]);
	storm_write(f->slot, f->port ? f->storm : 0);

	f->lin = f->len;	/* counted whole: head and fragments */
	if (f->len >= 18 && get_be16(f->in + 12) == ETH_P_8021Q_) {
		f->tagged = true;
		f->tci = get_be16(f->in + 14);
	}
	f->vid = f->tci & 0xfff;
	if (!f->vid && f->port)
		f->vid = f->port->pvid;
	f->kvlan = f->vlan_on ? f->vid : 0;
}

/* One BPF_PROG_RUN, and the state it left: counter deltas and the outcome,
 * the FDB, the learned counts, the events. */
static void run(const struct frame_info *f, struct result *r)
{
	events.n = 0;
	r->t0 = dp_coarse_ns();
	r->err = dp_prog_run(f->ifindex, f->in, f->len, r->out, sizeof(r->out), &r->out_len,
			  &r->verdict);
	r->t1 = dp_coarse_ns();
	ring_buffer__consume(rb);
	must(dp_stats_read(r->d), "reading xdpbr_stats");
	r->nfdb = fdb_snapshot(r->fdb);
	must(dp_learned_read(r->learned), "reading xdpbr_learned");

	for (int s = 0; s < NSLOTS; s++)
		for (int c = 0; c < XDPBR_CNT__MAX; c++) {
			__u64 a = r->d[s][c];

			r->d[s][c] = a - stats_prev[s][c];
			stats_prev[s][c] = a;
		}
	r->outcome = -1;
	for (int c = XDPBR_CNT_OUTCOME_FIRST; c <= XDPBR_CNT_OUTCOME_LAST; c++)
		if (r->d[f->slot][c])
			r->outcome = c;
	r->egress = -1;
	r->changed_at = -1;
}

/* A frame BPF_PROG_RUN refused: one it must refuse, and no trace of it. */
static void check_refused(const struct frame_info *f, const struct result *r)
{
	CHECK((r->err == -EINVAL && f->len < ETH_HLEN) ||
	      (r->err == -ENODEV && f->ifindex == BOGUS_IFINDEX) ||
	      (r->err == -EINVAL && !linear_max && f->len > 3000),
	      "BPF_PROG_RUN refused the frame: %s", strerror(-r->err));
	for (int s = 0; s < NSLOTS; s++)
		for (int c = 0; c < XDPBR_CNT__MAX; c++)
			CHECK(!r->d[s][c], "a refused frame changed counter %s of slot %d",
			      dp_cnt_names[c], s);
	CHECK(r->nfdb == NFDB0 && !events.n, "a refused frame changed the FDB");
}

static bool flood_outcome(int o)
{
	return o >= XDPBR_CNT_FLOOD_BCAST && o <= XDPBR_CNT_FLOOD_UNKNOWN;
}

static __u32 flood_class_of(int o)
{
	return o == XDPBR_CNT_FLOOD_BCAST ? XDPBR_STORM_BCAST :
	       o == XDPBR_CNT_FLOOD_MCAST ? XDPBR_STORM_MCAST : XDPBR_STORM_UNKNOWN;
}

/* The frame's length past its link header, as bpf/mtu.h mtu_l3_len sees
 * it when it floods: with VLAN filtering an untagged frame has gained a
 * tag by then, which adds to the header what it adds to the frame. */
static size_t flood_l3(const struct frame_info *f)
{
	__u16 type = f->len >= 14 ? get_be16(f->in + 12) : 0;
	size_t hdr = 14 + (type == ETH_P_8021Q_ || type == ETH_P_8021AD_ ? 4 : 0);

	return f->lin > hdr ? f->lin - hdr : 0;
}

/* Whether a flood of class c from f's ingress has a copy for port p: p is
 * in the class's flood set (and up), and is not the ingress unless that is
 * hairpin. */
static bool flood_copy_for(const struct frame_info *f, __u32 c, const struct fz_port *p)
{
	return xdpbr_flood_member(c, p->cur.flags) &&
	       (p != f->port || (p->cur.flags & XDPBR_PORT_HAIRPIN));
}

/* The slots a flood of outcome o counts tx on in the ingress program, the
 * fast flood (bpf/xdpbr.bpf.c): with VLAN filtering off (STP always is),
 * from a port that is not isolated, a frame within the ports' MTU, every
 * port of the class's flood set, less the ingress unless it is hairpin.
 * 0 when the flood goes through the egress program, which BPF_PROG_RUN
 * does not run. */
static __u64 fast_flood_slots(const struct frame_info *f, int o)
{
	__u64 slots = 0;

	if (!flood_outcome(o) || f->vlan_on || !f->port ||
	    (f->port->cur.flags & XDPBR_PORT_ISOLATED) || flood_l3(f) > XDPBR_MTU_DEFAULT)
		return 0;
	for (int i = 0; i < NPORTS; i++)
		if (flood_copy_for(f, flood_class_of(o), &ports[i]))
			slots |= 1ULL << ports[i].slot;
	return slots;
}

/* What a flood larger than the ports' MTU (1500) counts on port p before
 * its broadcast, which skips p's copy unseen (bpf/flood.h
 * xdpbr_xdp_copy_mtu): what the egress program would have counted, had the
 * copy reached it. Nothing for a copy that was never p's (out of the
 * class's flood set, down, or p the ingress without hairpin); the copy's
 * rules first (flood_filtered: two isolated ports, a VLAN p is not in);
 * else tx_dropped_mtu. */
enum mtu_copy { MTU_COPY_NONE, MTU_COPY_DROPPED, MTU_COPY_FILTERED };

static enum mtu_copy mtu_copy(const struct frame_info *f, int o, const struct fz_port *p)
{
	__u32 in_flags = f->port ? f->port->cur.flags : 0;

	if (!flood_outcome(o) || flood_l3(f) <= XDPBR_MTU_DEFAULT ||
	    !flood_copy_for(f, flood_class_of(o), p))
		return MTU_COPY_NONE;
	if (p != f->port && (in_flags & p->cur.flags & XDPBR_PORT_ISOLATED))
		return MTU_COPY_FILTERED;
	if (f->vlan_on && !member(p, f->vid))
		return MTU_COPY_FILTERED;
	return MTU_COPY_DROPPED;
}

/* The verdict, and every counter of every slot. */
static void check_counters(const struct frame_info *f, struct result *r)
{
	__u64 (*d)[XDPBR_CNT__MAX] = r->d, sum = 0, fast;
	__u32 in = f->slot;

	CHECK(f->ifindex != BOGUS_IFINDEX, "BPF_PROG_RUN accepted ifindex %u", f->ifindex);
	CHECK(r->verdict == XDP_PASS || r->verdict == XDP_DROP || r->verdict == XDP_REDIRECT,
	      "verdict %u is not XDP_PASS, XDP_DROP or XDP_REDIRECT", r->verdict);
	CHECK(d[in][XDPBR_CNT_RX_PACKETS] == 1, "rx_packets of slot %u grew by %llu", in,
	      (unsigned long long)d[in][XDPBR_CNT_RX_PACKETS]);
	CHECK(d[in][XDPBR_CNT_RX_BYTES] == f->lin, "rx_bytes of slot %u grew by %llu, not %zu",
	      in, (unsigned long long)d[in][XDPBR_CNT_RX_BYTES], f->lin);
	for (int c = XDPBR_CNT_OUTCOME_FIRST; c <= XDPBR_CNT_OUTCOME_LAST; c++)
		sum += d[in][c];
	CHECK(sum == 1, "the outcome counters of slot %u grew by %llu, not 1", in,
	      (unsigned long long)sum);
	CHECK(outcome_verdict[r->outcome] == (int)r->verdict, "outcome %s with verdict %u",
	      dp_cnt_names[r->outcome], r->verdict);

	fast = fast_flood_slots(f, r->outcome);
	/* the fast flood's slots are all below 64 (fast_flood_slots) */
	for (int s = 0; s < NSLOTS; s++) {
		if (s < 64 && fast & 1ULL << s) {
			CHECK(d[s][XDPBR_CNT_TX_PACKETS] == 1 && d[s][XDPBR_CNT_TX_BYTES] == f->lin,
			      "fast flood: tx of slot %d grew by %llu frames, %llu bytes, not 1, %zu",
			      s, (unsigned long long)d[s][XDPBR_CNT_TX_PACKETS],
			      (unsigned long long)d[s][XDPBR_CNT_TX_BYTES], f->lin);
		} else if (d[s][XDPBR_CNT_TX_PACKETS]) {
			CHECK(r->outcome == XDPBR_CNT_FORWARDED && r->egress < 0 &&
			      d[s][XDPBR_CNT_TX_PACKETS] == 1,
			      "tx_packets of slot %d grew by %llu (outcome %s)", s,
			      (unsigned long long)d[s][XDPBR_CNT_TX_PACKETS], dp_cnt_names[r->outcome]);
			r->egress = s;
		}
		for (int c = 0; c < XDPBR_CNT__MAX; c++) {
			bool ok;

			if (!d[s][c] || c == XDPBR_CNT_TX_PACKETS || c == XDPBR_CNT_TX_BYTES)
				continue;
			switch (c) {
			case XDPBR_CNT_RX_PACKETS:
			case XDPBR_CNT_RX_BYTES:
				ok = (__u32)s == in;
				break;
			case XDPBR_CNT_TX_DROPPED_MTU:
			case XDPBR_CNT_FLOOD_FILTERED:
				/* on a port only; how much: mtu_copy, below */
				ok = port_by_slot((__u32)s) != NULL;
				break;
			case XDPBR_CNT_LEARNED:
			case XDPBR_CNT_MOVED:
			case XDPBR_CNT_LEARN_LIMIT:
			case XDPBR_CNT_EVENTS_DROPPED:
			case XDPBR_CNT_LEARN_FAILED:
				ok = (__u32)s == in && d[s][c] == 1 && f->port;
				break;
			default:
				ok = (__u32)s == in && c >= XDPBR_CNT_OUTCOME_FIRST &&
				     c <= XDPBR_CNT_OUTCOME_LAST;
				break;
			}
			CHECK(ok, "counter %s of slot %d grew by %llu", dp_cnt_names[c], s,
			      (unsigned long long)d[s][c]);
		}
	}
	for (int i = 0; i < NPORTS; i++) {
		const struct fz_port *p = &ports[i];
		enum mtu_copy m = mtu_copy(f, r->outcome, p);

		CHECK(d[p->slot][XDPBR_CNT_TX_DROPPED_MTU] == (m == MTU_COPY_DROPPED) &&
		      d[p->slot][XDPBR_CNT_FLOOD_FILTERED] == (m == MTU_COPY_FILTERED),
		      "%s: tx_dropped_mtu grew by %llu, flood_filtered by %llu (outcome %s, "
		      "the MTU's model: %s)", p->name,
		      (unsigned long long)d[p->slot][XDPBR_CNT_TX_DROPPED_MTU],
		      (unsigned long long)d[p->slot][XDPBR_CNT_FLOOD_FILTERED],
		      r->outcome >= 0 ? dp_cnt_names[r->outcome] : "none",
		      m == MTU_COPY_DROPPED ? "dropped" : m == MTU_COPY_FILTERED ? "filtered" :
		      "none");
	}
	CHECK((r->outcome == XDPBR_CNT_FORWARDED) == (r->egress >= 0),
	      "outcome %s, tx counted on %s slot", dp_cnt_names[r->outcome],
	      r->egress >= 0 ? "a" : "no");
	CHECK(r->out_len + 4 >= f->len && r->out_len <= f->len + 4,
	      "output frame of %u bytes from %zu", r->out_len, f->len);
	if (r->egress >= 0) {
		__u64 tb = d[r->egress][XDPBR_CNT_TX_BYTES];

		if (f->len <= f->lin)
			CHECK(tb == r->out_len, "tx_bytes of slot %d grew by %llu, output %u bytes",
			      r->egress, (unsigned long long)tb, r->out_len);
		else
			CHECK(tb + 4 >= f->lin && tb <= f->lin + 4,
			      "tx_bytes of slot %d grew by %llu for a linear part of %zu",
			      r->egress, (unsigned long long)tb, f->lin);
	}
}

/* The FDB: what holds of every entry, and what this frame changed. */
static void check_fdb(const struct frame_info *f, struct result *r)
{
	for (size_t i = 0; i < r->nfdb; i++) {
		const struct fdb_ent *e = &r->fdb[i];
		const struct fz_fdb *b = fdb0_find(&e->k);
		const struct fz_port *p = port_by_ifindex(e->v.ifindex);
		struct xdpbr_fdb_val bv;
		char m[18];

		dp_mac_str(e->k.mac, m);
		CHECK(!mac_multicast(e->k.mac) && !mac_zero(e->k.mac), "the FDB holds %s (vlan %u)",
		      m, e->k.vlan);
		CHECK(e->k.vlan <= XDPBR_VLAN_MAX, "FDB key with vlan %u", e->k.vlan);
		CHECK(p && p->slot == e->v.slot, "FDB entry %s vlan %u on ifindex %u slot %u: "
		      "not a port, or another port's slot", m, e->k.vlan, e->v.ifindex, e->v.slot);
		CHECK(!(e->v.flags & ~(XDPBR_FDB_STATIC | XDPBR_FDB_LOCAL)),
		      "FDB entry %s with flags 0x%x", m, e->v.flags);
		if (b) {
			bv = val_of(b);
			if (!memcmp(&bv, &e->v, sizeof(bv)))
				continue;
			CHECK(!(b->flags & XDPBR_FDB_STATIC), "static entry %s vlan %u changed", m,
			      e->k.vlan);
			if (bv.ifindex == e->v.ifindex) {	/* a refresh */
				CHECK(e->v.slot == bv.slot && e->v.flags == bv.flags,
				      "entry %s vlan %u changed other than its last_seen", m,
				      e->k.vlan);
			} else {
				r->nmoved++;
				r->moved_from = &ports[b->port];
			}
		} else {
			r->nnew++;
		}
		r->changed++;
		r->changed_at = (int)i;
		CHECK(f->port && e->v.ifindex == f->ifindex && e->v.slot == f->slot &&
		      !e->v.flags && e->k.vlan == f->kvlan && !memcmp(e->k.mac, f->in + 6, 6),
		      "the frame changed FDB entry %s vlan %u (ifindex %u slot %u flags 0x%x): "
		      "only its own source in vlan %u on its ingress may change", m, e->k.vlan,
		      e->v.ifindex, e->v.slot, e->v.flags, f->kvlan);
		CHECK(e->v.last_seen >= r->t0 && e->v.last_seen <= r->t1,
		      "FDB entry %s learned/refreshed with last_seen %llu outside [%llu, %llu]", m,
		      (unsigned long long)e->v.last_seen, (unsigned long long)r->t0,
		      (unsigned long long)r->t1);
	}
	CHECK(r->changed <= 1, "one frame changed %d FDB entries", r->changed);
	CHECK(r->nfdb == NFDB0 + (size_t)r->nnew, "the FDB went from %zu to %zu entries (%d new)",
	      NFDB0, r->nfdb, r->nnew);
	CHECK(f->learning || (!r->nnew && !r->nmoved), "learned or moved with learning off");
	CHECK(r->d[f->slot][XDPBR_CNT_LEARNED] == (__u64)r->nnew &&
	      r->d[f->slot][XDPBR_CNT_MOVED] == (__u64)r->nmoved,
	      "learned +%llu moved +%llu, but %d new and %d moved entries",
	      (unsigned long long)r->d[f->slot][XDPBR_CNT_LEARNED],
	      (unsigned long long)r->d[f->slot][XDPBR_CNT_MOVED], r->nnew, r->nmoved);
	CHECK(!r->d[f->slot][XDPBR_CNT_LEARN_LIMIT] || !r->nnew, "learn_limit and a new entry");
}

/* The learned counts follow the entries; the events describe them. */
static void check_learned_events(const struct frame_info *f, const struct result *r)
{
	__u64 want[NSLOTS];

	memcpy(want, learned0, sizeof(want));
	if (r->nnew) {
		want[f->slot]++;
		want[XDPBR_LEARNED_TOTAL]++;
	}
	if (r->nmoved && r->moved_from->slot != f->slot) {
		want[r->moved_from->slot]--;
		want[f->slot]++;
	}
	for (int s = 0; s < NSLOTS; s++)
		CHECK(r->learned[s] == want[s], "xdpbr_learned[%d] is %llu, expected %llu", s,
		      (unsigned long long)r->learned[s], (unsigned long long)want[s]);

	CHECK((__u64)events.n + r->d[f->slot][XDPBR_CNT_EVENTS_DROPPED] ==
	      (__u64)(r->nnew + r->nmoved), "%d events + %llu dropped for %d learned and %d moved",
	      events.n, (unsigned long long)r->d[f->slot][XDPBR_CNT_EVENTS_DROPPED], r->nnew,
	      r->nmoved);
	for (int i = 0; i < events.n && i < MAX_EVENTS; i++) {
		const struct xdpbr_event *ev = &events.ev[i];

		CHECK((ev->type == XDPBR_EV_LEARN && r->nnew) ||
		      (ev->type == XDPBR_EV_MOVE && r->nmoved), "event type %u", ev->type);
		CHECK(ev->ifindex == f->ifindex && ev->vlan == f->kvlan &&
		      !memcmp(ev->mac, f->in + 6, 6) && ev->ts >= r->t0 && ev->ts <= r->t1,
		      "event on ifindex %u vlan %u does not describe the frame", ev->ifindex,
		      ev->vlan);
		CHECK(ev->type != XDPBR_EV_MOVE || ev->old_ifindex == r->moved_from->ifindex,
		      "move event from ifindex %u, the entry was on %u", ev->old_ifindex,
		      r->moved_from->ifindex);
	}
}

/* Ingress: what happens to a frame before learning, in the datapath's
 * order; r->learns when it gets as far as learning. */
static void check_ingress(const struct frame_info *f, struct result *r)
{
	int o = r->outcome;

	if (!f->port)
		CHECK(o == XDPBR_CNT_PASS_NOT_PORT, "a frame on a non-port was not passed");
	else if (mac_multicast(f->in + 6) || mac_zero(f->in + 6))
		CHECK(o == XDPBR_CNT_DROP_BAD_SRC, "a bad source MAC was not dropped");
	else if (mac_link_local(f->in))
		CHECK(o == XDPBR_CNT_PASS_LINKLOCAL, "a link-local frame was not passed");
	else if (f->vlan_on && get_be16(f->in + 12) == ETH_P_8021AD_)
		CHECK(o == XDPBR_CNT_DROP_8021AD, "an 802.1ad frame was not dropped");
	else if (f->vlan_on && get_be16(f->in + 12) == ETH_P_8021Q_ && !f->tagged)
		CHECK(o == XDPBR_CNT_DROP_RUNT, "a truncated tag was not dropped");
	else if (f->vlan_on && (!f->vid || f->vid > XDPBR_VLAN_MAX || !member(f->port, f->vid)))
		CHECK(o == XDPBR_CNT_DROP_VLAN, "a frame in VLAN %u entered %s", f->vid,
		      f->port->name);
	else
		r->learns = true;
}

/* Learning: what the frame's source must have done to the FDB. */
static void check_learning(const struct frame_info *f, const struct result *r)
{
	struct xdpbr_fdb_key k = { .vlan = f->kvlan };
	const __u64 *d = r->d[f->slot];
	const struct fz_fdb *known;
	bool limited = false;
	char m[18];

	if (!r->learns) {
		CHECK(!r->changed && r->outcome != XDPBR_CNT_DROP_SPOOFED &&
		      !d[XDPBR_CNT_LEARN_LIMIT],
		      "the frame never reached learning, yet the FDB or its counters changed");
		return;
	}
	memcpy(k.mac, f->in + 6, 6);
	known = fdb0_find(&k);
	dp_mac_str(k.mac, m);
	if (known && &ports[known->port] == f->port) {
		CHECK(!r->nnew && !r->nmoved, "%s, known on %s, was relearned", m, f->port->name);
	} else if (known && (known->flags & XDPBR_FDB_STATIC)) {
		CHECK(r->outcome == XDPBR_CNT_DROP_SPOOFED && !r->changed,
		      "a frame claiming %s's static MAC %s on %s was not dropped as spoofed",
		      ports[known->port].name, m, f->port->name);
	} else if (known) {
		CHECK(r->nmoved == f->learning, "%s, known on %s, %s to %s", m,
		      ports[known->port].name, r->nmoved ? "moved" : "did not move", f->port->name);
	} else if (!f->learning) {
		CHECK(!r->nnew, "%s learned on %s with learning off", m, f->port->name);
	} else if (f->at_limit) {
		limited = true;
		CHECK(!r->nnew && d[XDPBR_CNT_LEARN_LIMIT] == 1,
		      "at the learning limit: %d new entries, learn_limit +%llu", r->nnew,
		      (unsigned long long)d[XDPBR_CNT_LEARN_LIMIT]);
	} else {
		CHECK(r->nnew == 1 || d[XDPBR_CNT_LEARN_FAILED] == 1,
		      "new source %s in vlan %u was not learned on %s", m, f->kvlan, f->port->name);
	}
	CHECK(r->outcome != XDPBR_CNT_DROP_SPOOFED ||
	      (known && known->flags & XDPBR_FDB_STATIC && &ports[known->port] != f->port),
	      "%s dropped as spoofed", m);
	CHECK(limited || !d[XDPBR_CNT_LEARN_LIMIT], "learn_limit counted for %s", m);
}

/* Forwarding and flooding: where the frame went, and why. */
static void check_forwarding(const struct frame_info *f, const struct result *r)
{
	const struct fdb_ent *e;
	const struct fz_port *ep;
	int o = r->outcome;

	if (o >= XDPBR_CNT_DROP_STORM_BCAST && o <= XDPBR_CNT_DROP_STORM_UNKNOWN)
		CHECK(f->storm == 2, "storm drop with storm mode %d", f->storm);
	if (r->verdict == XDP_REDIRECT && o != XDPBR_CNT_FORWARDED)
		CHECK(f->storm != 2, "a flood passed an empty storm bucket");
	if (o == XDPBR_CNT_FLOOD_BCAST)
		CHECK(mac_bcast(f->in), "flooded as broadcast");
	if (o == XDPBR_CNT_FLOOD_MCAST)
		CHECK(mac_multicast(f->in) && !mac_bcast(f->in) && !mac_link_local(f->in),
		      "flooded as multicast");
	if (o != XDPBR_CNT_FLOOD_UNKNOWN && o != XDPBR_CNT_FORWARDED &&
	    o != XDPBR_CNT_DROP_SAME_PORT && o != XDPBR_CNT_DROP_ISOLATED &&
	    o != XDPBR_CNT_DROP_STORM_UNKNOWN)
		return;

	/* unicast: the FDB after learning says where the destination is */
	e = fdb_live(r->fdb, r->nfdb, f->kvlan, f->in, r->t0);
	ep = e ? port_by_ifindex(e->v.ifindex) : NULL;
	CHECK(!mac_multicast(f->in), "multicast dst handled as unicast");
	if (o == XDPBR_CNT_FLOOD_UNKNOWN || o == XDPBR_CNT_DROP_STORM_UNKNOWN)
		CHECK(!ep || (ep->flags & XDPBR_PORT_DOWN), "dst known on %s flooded as unknown",
		      ep->name);
	if (o == XDPBR_CNT_FORWARDED) {
		CHECK(ep && port_by_slot((__u32)r->egress) == ep,
		      "forwarded to slot %d, the FDB says %s", r->egress, ep ? ep->name : "nothing");
		CHECK(!(ep->flags & XDPBR_PORT_DOWN), "forwarded to a port that is down");
		CHECK(ep != f->port || (f->port->flags & XDPBR_PORT_HAIRPIN),
		      "sent back out of %s, not a hairpin port", ep->name);
		CHECK(ep == f->port || !(ep->flags & f->port->flags & XDPBR_PORT_ISOLATED),
		      "forwarded between isolated ports %s and %s", f->port->name, ep->name);
		CHECK(!f->vlan_on || member(ep, f->vid), "forwarded in VLAN %u to %s, not a member",
		      f->vid, ep->name);
	}
	if (o == XDPBR_CNT_DROP_SAME_PORT)
		CHECK(ep == f->port && !(f->port->flags & XDPBR_PORT_HAIRPIN),
		      "dropped as same port");
	if (o == XDPBR_CNT_DROP_ISOLATED)
		CHECK(ep && ep != f->port && (ep->flags & f->port->flags & XDPBR_PORT_ISOLATED),
		      "dropped as isolated");
}

/* The frame handed on: unchanged, or tagged or untagged for its egress. */
static void check_output(const struct frame_info *f, const struct result *r)
{
	static __u8 want[sizeof(r->out)];
	bool tagged = true;
	size_t n;

	if (r->verdict == XDP_PASS || (r->verdict == XDP_REDIRECT && !f->vlan_on)) {
		CHECK(r->out_len == f->len && !memcmp(r->out, f->in, f->len),
		      "the frame was changed (%u bytes out of %zu)", r->out_len, f->len);
		return;
	}
	if (r->verdict != XDP_REDIRECT)
		return;
	if (r->outcome == XDPBR_CNT_FORWARDED) {
		const struct fz_port *ep = port_by_slot((__u32)r->egress);

		tagged = !vid_in(ep->untagged, ARRAY_SIZE(ep->untagged), f->vid);
	}
	n = expected_frame(f, tagged, want);
	CHECK(r->out_len == n && !memcmp(r->out, want, n), "output frame (%u bytes) is not the "
	      "input %s VLAN %u (%zu bytes)", r->out_len, tagged ? "tagged for" : "untagged, of",
	      f->vid, n);
}

/* Tells libFuzzer which datapath path this frame took. */
static void feedback(const struct frame_info *f, const struct result *r)
{
	const __u64 *d = r->d[f->slot];
	unsigned long long ev = (unsigned long long)(d[XDPBR_CNT_LEARNED] |
		d[XDPBR_CNT_MOVED] << 1 | d[XDPBR_CNT_LEARN_LIMIT] << 2 |
		d[XDPBR_CNT_EVENTS_DROPPED] << 3);
	unsigned long long o = (unsigned long long)r->outcome;
	int tagd = (int)r->out_len - (int)f->len + 4;

	feature(1, o << 8 | f->ing << 1 | f->vlan_on);
	feature(2, o << 8 | ev << 4 | (unsigned int)f->storm);
	feature(3, o << 16 | (unsigned int)tagd << 8 | (unsigned int)(r->egress + 1) << 1 |
		f->tagged);
}

/* Puts back what the frame changed: the next one starts from the baseline. */
static void restore(const struct result *r)
{
	if (r->changed_at >= 0) {
		const struct xdpbr_fdb_key *k = &r->fdb[r->changed_at].k;
		const struct fz_fdb *b = fdb0_find(k);

		if (b) {
			struct xdpbr_fdb_val bv = val_of(b);

			must(bpf_map_update_elem(fd_fdb, k, &bv, BPF_ANY), "restoring the FDB");
		} else {
			must(bpf_map_delete_elem(fd_fdb, k), "restoring the FDB");
		}
		must(fdbgen_bump_user(&maps), "moving the FDB generation on");
	}
	for (__u32 s = 0; s < NSLOTS; s++)
		if (r->learned[s] != learned0[s])
			must(dp_learned_set(s, learned0[s]), "restoring xdpbr_learned");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct result res;
	struct frame_info fi = { 0 };

	if (size < 2 || size - 2 > sizeof(res.out) - 8)
		return -1;		/* not added to the corpus */
	memset(&res, 0, sizeof(res));
	prepare(data, size, &fi);
	run(&fi, &res);
	if (res.err) {
		tally.refused++;
		check_refused(&fi, &res);
		feature(0, (unsigned long long)-res.err);
		return 0;
	}
	check_counters(&fi, &res);
	tally.frames++;
	tally.verdict[res.verdict]++;
	tally.outcome[res.outcome]++;
	check_fdb(&fi, &res);
	check_learned_events(&fi, &res);
	check_ingress(&fi, &res);
	check_learning(&fi, &res);
	check_forwarding(&fi, &res);
	check_output(&fi, &res);
	feedback(&fi, &res);
	restore(&res);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fixture.h - the BPF_PROG_RUN fixture tables of tests/bpf/: what a case
 * says (struct test_case: setup, one frame, expected verdict, output frame,
 * counters, FDB and learned counts; struct seq_case: a sequence of frames
 * and user-space FDB changes) and running one (fixture.c).
 *
 * The tables themselves are in the cases_*.c files, one per feature, each
 * exporting a struct case_table (or struct seq_table); test_datapath.c runs
 * them all.
 */
#ifndef XDPBR_TESTS_FIXTURE_H
#define XDPBR_TESTS_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/bpf.h>		/* XDP_* verdicts */

#include "xdpbr.h"
#include "harness.h"

/* ------------------------------------------------------------------------ */
/* Topology                                                                  */

/* Ports of the test bridge. NP is a device the program could run on that is
 * not a port: its frames are counted in the not-a-port slot. */
enum port_id {
	PORT_NONE = 0,		/* terminator in the case tables */
	P1, P2, P3,
	NP,
	PORT_ID_MAX,
};

/* xdpbr_stats slot of frames received on a device that is not a port
 * (include/xdpbr.h: "slot 0 is reserved", "0 = not a port"). */
#define SLOT_NOT_PORT 0

struct port {
	const char *name;	/* our end of the veth */
	const char *peer;
	__u32 slot;		/* stats / tx slot given to the port */
	__u32 ifindex;		/* filled in at setup */
};
extern struct port ports[PORT_ID_MAX];	/* by port_id (fixture.c) */

/* Ageing time the test writes to xdpbr_config: much shorter than the 300 s
 * default, so an entry 20 s old is stale only if the datapath reads it. */
#define CFG_AGEING_NS		(10 * XDPBR_NSEC_PER_SEC)
#define OLDEST_SETUP_NS		SEC_NS(20)	/* largest age used in the table */
/* Gap between a presend and the test run: several ticks of the coarse clock
 * (one tick is 1-10 ms), so a write of last_seen would change its value. */
#define PRESEND_GAP_NS		(XDPBR_NSEC_PER_SEC / 20)

/* ------------------------------------------------------------------------ */
/* The table                                                                 */

#define HOST_A	MAC(02, 00, 00, 00, 00, 0a)
#define HOST_B	MAC(02, 00, 00, 00, 00, 0b)
#define HOST_C	MAC(02, 00, 00, 00, 00, 0c)
#define BCAST	MAC(ff, ff, ff, ff, ff, ff)
#define MCAST4	MAC(01, 00, 5e, 00, 00, fb)	/* mDNS 224.0.0.251 */
#define MCAST6	MAC(33, 33, 00, 00, 00, 01)	/* all-nodes ff02::1 */
#define STP	MAC(01, 80, c2, 00, 00, 00)
#define EAPOL	MAC(01, 80, c2, 00, 00, 03)	/* 802.1X PAE group address */
#define LLDP	MAC(01, 80, c2, 00, 00, 0e)
#define NOT_LL	MAC(01, 80, c2, 00, 00, 10)	/* just past 01:80:c2:00:00:0f */
#define ZERO	MAC(00, 00, 00, 00, 00, 00)

#define ETH_P_STP_LEN	0x0026	/* 802.3 length field of a config BPDU */

#define MAX_SETUP	5
#define MAX_DELTAS	8
#define MAX_CHECKS	3
#define MAX_VIDS	4	/* VLANs a port's member/untagged list may name */

/* A counter delta of FRAME_LEN means "the length of this case's frame" (as
 * sent), OUT_LEN "the length of the frame the program hands on" (after a
 * tag push or pop; the same as FRAME_LEN when the frame is unchanged). */
#define FRAME_LEN	UINT64_MAX
#define OUT_LEN		(UINT64_MAX - 1)

/* VLAN settings of one port: xdpbr_port.pvid and the bits of its
 * xdpbr_vlans entry. VID 0 ends a list. */
struct port_vlan {
	__u16 pvid;			/* 0 = none */
	__u16 member[MAX_VIDS];
	__u16 untagged[MAX_VIDS];	/* each must be in member[] too */
};
/* Access port of VLAN v: PVID v, sends it untagged. */
#define ACCESS(v)	{ .pvid = (v), .member = { (v) }, .untagged = { (v) } }
/* Trunk: tagged member of the VLANs given, no PVID. */
#define TRUNK(...)	{ .member = { __VA_ARGS__ } }

#define VLAN_ON		XDPBR_CFG_VLAN_FILTERING
#define STP_ON		XDPBR_CFG_STP

/* The frame the program must hand on when it is not the frame sent: the
 * same addresses, EtherType and payload, carrying exactly these tags. */
struct frame_out {
	bool rewritten;			/* false: output == input, byte for byte */
	struct vlan_tag tags[MAX_TAGS];
};
#define OUT_TAGS(...)	{ .rewritten = true, .tags = { __VA_ARGS__ } }
#define OUT_UNTAGGED	{ .rewritten = true }

/* FDB entry inserted before the frame is sent. */
struct fdb_setup {
	__u8 mac[ETH_ALEN];
	enum port_id port;		/* PORT_NONE ends the list */
	__u16 flags;			/* XDPBR_FDB_* */
	__u64 age_ns;			/* last_seen = now - age_ns */
	__u16 vlan;			/* key's VLAN: 0 when filtering is off */
};

enum fdb_state {
	FDB_UNCHECKED = 0,		/* ends the list */
	FDB_ABSENT,
	FDB_PRESENT,
};

enum ts_check {
	TS_ANY = 0,
	TS_UNCHANGED,			/* last_seen as before the frame */
	TS_REFRESHED,			/* last_seen = the time of the frame */
};

/* FDB entry expected after the frame. */
struct fdb_check {
	__u8 mac[ETH_ALEN];
	enum fdb_state state;
	enum port_id port;		/* FDB_PRESENT: ifindex and slot of it */
	__u16 flags;
	enum ts_check ts;
	__u16 vlan;			/* key's VLAN */
};

/*
 * Values of xdpbr_learned (or of xdpbr_learned_user): the bridge total
 * (slot XDPBR_LEARNED_TOTAL) and the count of each port, at that port's
 * slot. Every other slot is 0. NP has no count of its own: its stats slot is
 * slot 0, which here is the total. Signed: (__u64)-1 is -1.
 */
struct learned {
	__u64 total;
	__u64 port[PORT_ID_MAX];	/* by port_id: P1..P3 only */
};
#define LEARNED(t, n1, n2, n3)	{ .total = (t), .port = { [P1] = (n1), \
				  [P2] = (n2), [P3] = (n3) } }

/*
 * Storm control. A case gives each port's per-CPU share of each class's
 * limit (xdpbr_storm.pps_cpu; pps is written as pps_cpu * CPUs, as
 * ctl_storm_set() would). A bucket of pps_cpu frames a second holds
 * STORM_BURST(pps_cpu) frames and starts full.
 */
#define STORM_BURST(pps_cpu) \
	((pps_cpu) * XDPBR_STORM_BURST_MS / 1000 ? (pps_cpu) * XDPBR_STORM_BURST_MS / 1000 : 1)
#define STORM(bc, mc, uu) { [XDPBR_STORM_BCAST] = (bc), [XDPBR_STORM_MCAST] = (mc), \
			    [XDPBR_STORM_UNKNOWN] = (uu) }

/* The state of one bucket (xdpbr_storm_state[slot], class cls), the same on
 * every CPU: last filled age_ns before the case, holding `frames` tokens. */
struct bucket_setup {
	enum port_id port;		/* PORT_NONE: none set (all zero) */
	enum xdpbr_storm_class cls;
	__u64 age_ns;			/* must leave last_ns non-zero */
	__u64 frames;
};

/* Frames sent right before the test run, back to back (unlike presend, no
 * gap: a bucket refills meanwhile); each must be flooded or forwarded. */
struct burst_setup {
	unsigned int n;			/* 0: none */
	enum port_id in;		/* PORT_NONE: the case's ingress */
	__u8 dst[ETH_ALEN];		/* zero: the case's frame's */
	__u8 src[ETH_ALEN];		/* zero: the case's frame's */
	__u64 sleep_ns;			/* then this long a pause */
};

/* Expected change of one counter of one port's slot. rx_packets and
 * rx_bytes of the ingress slot are implied (every frame is received). */
struct cnt_delta {
	enum port_id port;		/* PORT_NONE ends the list */
	enum xdpbr_counter c;
	__u64 n;
};

struct test_case {
	const char *desc;
	enum port_id in;		/* ingress device */
	struct {
		__u8 dst[ETH_ALEN];
		__u8 src[ETH_ALEN];
		__u16 ethertype;	/* host byte order; after the tags */
		size_t payload;		/* bytes after the (inner) EtherType */
		size_t runt_len;	/* if set: send only this many bytes */
		struct vlan_tag tags[MAX_TAGS];	/* after the source MAC */
	} frame;

	/* setup, all undone before the next case */
	struct fdb_setup fdb[MAX_SETUP];
	/* Every port starts with XDPBR_PORT_DEFAULT_FLAGS and no limit. */
	__u32 set_flags[PORT_ID_MAX];	/* XDPBR_PORT_* added, by port */
	__u32 clear_flags[PORT_ID_MAX];	/* XDPBR_PORT_* removed, by port */
	__u32 max_learned[PORT_ID_MAX];	/* xdpbr_port.max_learned, by port */
	__u32 fdb_max_learned;		/* xdpbr_config.fdb_max_learned */
	struct learned learned;		/* xdpbr_learned (else all 0) */
	struct learned learned_user;	/* xdpbr_learned_user (else all 0) */
	__u32 cfg_flags;		/* xdpbr_config.flags (VLAN_ON) */
	__u32 mtu[PORT_ID_MAX];		/* the port's interface MTU (0: 1500); the
					 * smallest is xdpbr_config.mtu_min */
	struct port_vlan vlan[PORT_ID_MAX];	/* PVID and membership, by port */
	enum port_id remove_tx;		/* port taken out of xdpbr_tx */
	bool presend;			/* send the same frame once first,
					 * PRESEND_GAP_NS before the test run */
	__u32 storm[PORT_ID_MAX][XDPBR_STORM__MAX];	/* pps_cpu by port, class;
							 * 0 = no limit */
	struct bucket_setup bucket;
	struct burst_setup burst;
	/* spanning tree: each port's word in xdpbr_stp_port (state | edge;
	 * 0: forwarding), and the daemon's heartbeat, last written
	 * beat.age_ns before the run, with its timeout (0: none written) */
	__u32 stp[PORT_ID_MAX];
	struct { __u64 age_ns, timeout_ns; } beat;
	/* run in live-frames mode: flooded copies really go out, through
	 * xdpbr_egress, whose counters (tx, flood_filtered) are then checked;
	 * the verdict and output frame are not (none come back) */
	bool live;
	/* the fast flood ready: xdpbr_flood_*_fast hold the ports of each
	 * class by their flags (xdpbr_flood_member) and xdpbr_flood_fast says
	 * so; a flood with no per-copy rule then counts its copies' tx in
	 * xdpbr_rx. Else (every other case) not ready. */
	bool fast;
	/* the slow flood's small maps ready: xdpbr_flood_*_small hold the
	 * ports (every class, the egress program on each entry) and
	 * xdpbr_flood_fast says so, and the full maps are emptied, so that
	 * a copy that goes out went through the small ones. Else the small
	 * maps are empty and not ready. */
	bool small;

	/* expectations */
	__u32 verdict;
	struct frame_out out;		/* frame handed on (else the input) */
	struct cnt_delta cnt[MAX_DELTAS];
	struct fdb_check after[MAX_CHECKS];
	/* all of xdpbr_learned after the case (absolute, presend included);
	 * every slot is checked, so a case that learns must say so */
	struct learned learned_after;
};

/* ------------------------------------------------------------------------ */
/* Sequences                                                                 */

/*
 * Sequences for the per-CPU FDB cache (bpf/fdbcache.h): frames and changes
 * made to the FDB by user space in turn, the way the daemon and the CLI make
 * them (daemon/ctl.c), each frame's outcome checked. They run on one CPU
 * (main pins the test), so every frame after the first of a flow can be
 * served from that CPU's cache; a wrong answer from a stale cache shows as
 * the wrong outcome or port.
 */
enum seq_op {
	S_END = 0,
	S_FRAME,		/* in: src -> dst; want (+1 on in), to (tx +1),
				 * event (+1 on in; other events unchecked) */
	S_DEL,			/* ctl_fdb_del(mac) */
	S_FLUSH,		/* ctl_fdb_flush(everything) */
	S_STATIC,		/* ctl_fdb_add(mac, port, static) */
	S_RAW_DEL,		/* bpf_map_delete_elem(mac), behind the cache's back */
	S_BUMP,			/* fdbgen_bump_user() alone */
	S_SLEEP_MS,
	S_AGEING,		/* ctl_config_set() with ageing_ns */
};

struct seq_step {
	enum seq_op op;
	enum port_id in;		/* S_FRAME: ingress; S_STATIC: the port */
	__u8 src[ETH_ALEN];
	__u8 dst[ETH_ALEN];		/* S_DEL, S_STATIC, S_RAW_DEL: the MAC */
	enum xdpbr_counter want;	/* outcome on the ingress port */
	enum port_id to;		/* FORWARDED: tx of this port +1 */
	enum xdpbr_counter event;	/* also +1 on the ingress port (0: none) */
	unsigned int ms;		/* S_SLEEP_MS */
	__u64 ageing_ns;		/* S_AGEING */
	bool other_cpu;			/* S_FRAME: on another CPU than the rest */
};

#define MAX_STEPS 8

struct seq_case {
	const char *desc;
	__u64 ageing_ns;		/* 0: CFG_AGEING_NS */
	struct fdb_setup fdb[MAX_SETUP];
	struct seq_step steps[MAX_STEPS];
};

#define FRAME(i, s, d, w, t)	{ S_FRAME, (i), s, d, XDPBR_CNT_##w, (t), 0, 0 }
#define FRAME_EV(i, s, d, w, t, e) { S_FRAME, (i), s, d, XDPBR_CNT_##w, (t), XDPBR_CNT_##e, 0 }
#define FRAME_EV_OTHER_CPU(i, s, d, w, t, e) \
	{ S_FRAME, (i), s, d, XDPBR_CNT_##w, (t), XDPBR_CNT_##e, 0, true }

/* ------------------------------------------------------------------------ */
/* The tables                                                                */

struct case_table {
	const struct test_case *cases;
	size_t n;
};
struct seq_table {
	const struct seq_case *cases;
	size_t n;
};
#define CASE_TABLE(name, array) \
	const struct case_table name = { (array), ARRAY_SIZE(array) }
#define SEQ_TABLE(name, array) \
	const struct seq_table name = { (array), ARRAY_SIZE(array) }

/* In the order test_datapath.c runs them. */
extern const struct case_table learning_cases;		/* cases_learning.c */
extern const struct case_table limits_cases;		/* cases_limits.c */
extern const struct case_table forwarding_cases;	/* cases_forwarding.c */
extern const struct case_table portflags_cases;		/* cases_portflags.c */
extern const struct case_table flooding_cases;		/* cases_flooding.c */
extern const struct case_table ingress_cases;		/* cases_ingress.c */
extern const struct case_table vlan_cases;		/* cases_vlan.c */
extern const struct case_table storm_cases;		/* cases_storm.c */
extern const struct case_table mtu_cases;		/* cases_mtu.c */
extern const struct case_table stp_cases;		/* cases_stp.c */
extern const struct seq_table cache_seqs;		/* cases_cache.c */

/* ------------------------------------------------------------------------ */
/* Running them (fixture.c)                                                  */

/* Passed and failed checks, for the summary line. */
struct tally {
	int passed, failed;
};

/* Pins the test to the CPU it runs on: storm buckets are per CPU, so the
 * bucket setup, the burst and the test run of a case must all run on one,
 * and the cache sequences want one CPU's cache. Also notes another CPU the
 * sequences may use. 0 or -errno. */
int pin_cpu(void);

/* Prints "ok - <desc>[: <note>]" or "FAIL - <desc>: <what differed>" for
 * each case of t, counted in *tally. */
void run_case_table(const struct case_table *t, struct tally *tally);
void run_seq_table(const struct seq_table *t, struct tally *tally);
/* One check that is not a table case. */
void tally_check(struct tally *tally, bool ok, const char *desc);
/* The last line: "N passed, N failed". */
void tally_print(const struct tally *tally);

#endif /* XDPBR_TESTS_FIXTURE_H */

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fixture.c - running the fixture tables of tests/bpf/ (fixture.h): each
 * case on a bridge reset to the case's setup, its frame through
 * BPF_PROG_RUN (harness.c), then every expectation checked.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpbr.skel.h"
#include "pins.h"
#include "bridge.h"
#include "ctl.h"
#include "fixture.h"
#include "xdpbr_rules.h"

struct port ports[PORT_ID_MAX] = {
	[P1] = { "p1", "q1", 1, 0 },
	[P2] = { "p2", "q2", 2, 0 },
	[P3] = { "p3", "q3", 3, 0 },
	[NP] = { "n1", "m1", SLOT_NOT_PORT, 0 },
};

/* ------------------------------------------------------------------------ */
/* Results                                                                   */

static const char *mac_vlan_str(const __u8 *m, __u16 vlan, char buf[32])
{
	char mac[18];

	snprintf(buf, 32, "%s vlan %u", dp_mac_str(m, mac), vlan);
	return buf;
}

/* Failure reasons of one case, "; "-separated. */
struct result {
	char why[1024];
	size_t len;
	bool failed;
};

__attribute__((format(printf, 2, 3)))
static void failf(struct result *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	r->failed = true;
	if (r->len >= sizeof(r->why) - 1)
		return;
	if (r->len) {
		n = snprintf(r->why + r->len, sizeof(r->why) - r->len, "; ");
		r->len += n > 0 ? (size_t)n : 0;
	}
	va_start(ap, fmt);
	n = vsnprintf(r->why + r->len, sizeof(r->why) - r->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		r->len += (size_t)n;
	if (r->len > sizeof(r->why) - 1)
		r->len = sizeof(r->why) - 1;
}

/* ------------------------------------------------------------------------ */
/* Setting the bridge up                                                     */

/* The skeleton's maps as the daemon's code (daemon/ctl.c) takes them. */
static struct xdpbr_maps skel_maps(void)
{
	struct xdpbr_maps m;

	bridge_skel_maps(dp_skel, &m);
	return m;
}

/* After the flush: entries the previous case left in the datapath's
 * per-CPU cache are no longer used (as the daemon does after a flush). */
static int fdbgen_next(void)
{
	struct xdpbr_maps m = skel_maps();

	return fdbgen_bump_user(&m);
}

/* Inserts the FDB entries of a case's setup (up to MAX_SETUP, ended by
 * PORT_NONE), last_seen their age before now. */
static int fdb_setup(const struct fdb_setup *fs)
{
	__u64 t0 = dp_coarse_ns();
	int err = 0;

	for (int i = 0; i < MAX_SETUP && fs[i].port && !err; i++) {
		struct xdpbr_fdb_key k = dp_fdb_key(fs[i].mac, fs[i].vlan);
		struct xdpbr_fdb_val v = {
			.ifindex = ports[fs[i].port].ifindex,
			.slot = (__u16)ports[fs[i].port].slot,
			.flags = fs[i].flags,
			.last_seen = t0 - fs[i].age_ns,
		};

		err = bpf_map__update_elem(dp_skel->maps.xdpbr_fdb, &k, sizeof(k),
					   &v, sizeof(v), BPF_NOEXIST);
	}
	return err;
}

/* The port table and its per-packet mirror, written by the daemon's own
 * ctl_port_write(): however the datapath comes to find its ports, the test
 * sets them up the way xdpbrd does. */
static int port_set(enum port_id p, __u32 flags, __u32 max_learned, __u16 pvid)
{
	struct xdpbr_maps m = skel_maps();
	struct xdpbr_port v = {
		.slot = ports[p].slot,
		.flags = flags,
		.mode = XDPBR_MODE_NATIVE,
		.pvid = pvid,
		.max_learned = max_learned,
	};

	return ctl_port_write(&m, ports[p].ifindex, &v);
}

static int tx_set(enum port_id p)
{
	struct bpf_devmap_val v = { .ifindex = ports[p].ifindex };

	return bpf_map__update_elem(dp_skel->maps.xdpbr_tx, &ports[p].slot,
				    sizeof(__u32), &v, sizeof(v), 0);
}

static int flood_set(struct bpf_map *map, enum port_id p, int egress_fd)
{
	struct bpf_devmap_val v = {
		.ifindex = ports[p].ifindex,
		.bpf_prog.fd = egress_fd,
	};

	return bpf_map__update_elem(map, &ports[p].ifindex, sizeof(__u32),
				    &v, sizeof(v), 0);
}

/* The flood maps, as lib/ctl.c names them. */
enum flood_kind { FLOOD_ALL, FLOOD_SMALL, FLOOD_FAST };

/* The flood map of class c, of kind k. */
static struct bpf_map *flood_map(__u32 c, enum flood_kind k)
{
	struct bpf_map *bc[] = { dp_skel->maps.xdpbr_flood_bc, dp_skel->maps.xdpbr_flood_bc_small,
				 dp_skel->maps.xdpbr_flood_bc_fast };
	struct bpf_map *mc[] = { dp_skel->maps.xdpbr_flood_mc, dp_skel->maps.xdpbr_flood_mc_small,
				 dp_skel->maps.xdpbr_flood_mc_fast };
	struct bpf_map *uu[] = { dp_skel->maps.xdpbr_flood_uu, dp_skel->maps.xdpbr_flood_uu_small,
				 dp_skel->maps.xdpbr_flood_uu_fast };

	if (c == XDPBR_STORM_BCAST)
		return bc[k];
	if (c == XDPBR_STORM_MCAST)
		return mc[k];
	return uu[k];
}

/* Every port in the full flood maps, or (tc->small) in the small ones
 * only; the others emptied. */
static int slow_set(const struct test_case *tc)
{
	int egress_fd = bpf_program__fd(dp_skel->progs.xdpbr_egress), err = 0;
	enum flood_kind in = tc->small ? FLOOD_SMALL : FLOOD_ALL;
	enum flood_kind out = tc->small ? FLOOD_ALL : FLOOD_SMALL;
	enum port_id p;
	__u32 c;

	for (p = P1; p <= P3 && !err; p++)
		for (c = 0; c < XDPBR_STORM__MAX && !err; c++) {
			bpf_map__delete_elem(flood_map(c, out), &ports[p].ifindex,
					     sizeof(__u32), 0);
			err = flood_set(flood_map(c, in), p, egress_fd);
		}
	return err;
}

/* The fast flood as user space keeps it (lib/ctl.c): each port in the
 * fast map of every class it floods (no program on the entry), its slot
 * in that class's mask; ready, and small, as the case says. */
static int fast_set(const struct test_case *tc)
{
	struct xdpbr_flood_fast ff = { .ready = tc->fast, .small = tc->small };
	__u32 zero = 0, c, flags;
	enum port_id p;
	int err = 0;

	for (p = P1; p <= P3 && !err; p++) {
		flags = (XDPBR_PORT_DEFAULT_FLAGS | tc->set_flags[p]) & ~tc->clear_flags[p];
		for (c = 0; c < XDPBR_STORM__MAX && !err; c++) {
			if (!xdpbr_flood_member(c, flags)) {
				bpf_map__delete_elem(flood_map(c, FLOOD_FAST), &ports[p].ifindex,
						     sizeof(__u32), 0);
				continue;
			}
			ff.mask[c] |= 1ULL << ports[p].slot;
			err = flood_set(flood_map(c, FLOOD_FAST), p, 0);
		}
	}
	return err ?: bpf_map__update_elem(dp_skel->maps.xdpbr_flood_fast, &zero, sizeof(zero),
					   &ff, sizeof(ff), 0);
}

static int config_set(__u32 flags, __u32 fdb_max_learned, __u16 mtu_min)
{
	struct xdpbr_config cfg = {
		.ageing_ns = CFG_AGEING_NS,
		.flags = flags,
		.fdb_max_learned = fdb_max_learned,
		.mtu_min = mtu_min,
	};
	__u32 zero = 0;

	return bpf_map__update_elem(dp_skel->maps.xdpbr_config, &zero, sizeof(zero),
				    &cfg, sizeof(cfg), 0);
}

/* xdpbr_vlans[slot] = the membership and untagged bits of pv (NULL: none). */
static int vlans_set(__u32 slot, const struct port_vlan *pv)
{
	return dp_vlans_set(slot, pv ? pv->member : NULL, MAX_VIDS,
			    pv ? pv->untagged : NULL, MAX_VIDS);
}

/* xdpbr_storm_state[slot] on every CPU: every class's bucket zero (never
 * used: it fills up on its first frame), but class cls, when b is not
 * NULL, filled b->age_ns before now, holding b->frames. */
static int bucket_set(__u32 slot, const struct bucket_setup *b, __u64 now)
{
	struct xdpbr_storm_bucket v;

	memset(&v, 0, sizeof(v));
	if (b) {
		v.last_ns[b->cls] = now - b->age_ns;
		v.tokens[b->cls] = b->frames * XDPBR_NSEC_PER_SEC;
	}
	return dp_buckets_set(slot, &v);
}

/* xdpbr_stp_beat: last beat age_ns ago, with timeout_ns (both 0: none). */
static int beat_set(__u64 age_ns, __u64 timeout_ns)
{
	struct xdpbr_stp_beat b = { 0 };
	__u32 zero = 0;

	if (age_ns || timeout_ns)
		b = (struct xdpbr_stp_beat){ .beat_ns = dp_mono_ns() - age_ns,
					     .timeout_ns = timeout_ns };
	return bpf_map__update_elem(dp_skel->maps.xdpbr_stp_beat, &zero, sizeof(zero),
				    &b, sizeof(b), 0);
}

/* Every case starts from: empty FDB, every learned count 0 (the datapath's
 * and user space's), no VLAN membership anywhere, no storm limits and every
 * storm bucket zero (fresh), all ports in tx and in every flood set (the
 * fast ones by their flags, ready only for a fast case), the
 * test's ageing time; then the case's config flags and bridge limit, and
 * each port's flags (XDPBR_PORT_DEFAULT_FLAGS plus/minus the case's),
 * learning limit, PVID, VLAN membership and storm limits (none unless the
 * case gives them). */
/* The MTU of port p's interface (what bpf_check_mtu reads). */
static int mtu_set(enum port_id p, __u32 mtu)
{
	struct ifreq ifr = { .ifr_mtu = (int)mtu };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ports[p].name);
	if (ioctl(fd, SIOCSIFMTU, &ifr))
		err = -errno;
	close(fd);
	return err;
}

/* The case's MTUs on the interfaces, and their smallest as the config's
 * mtu_min, as user space keeps it (bridge_mtu_refresh). */
static int mtus_set(const struct test_case *tc, __u16 *mtu_min)
{
	enum port_id p;
	int err = 0;

	*mtu_min = 0;
	for (p = P1; p <= P3 && !err; p++) {
		__u32 mtu = tc->mtu[p] ? tc->mtu[p] : XDPBR_MTU_DEFAULT;

		err = mtu_set(p, mtu);
		if (!*mtu_min || mtu < *mtu_min)
			*mtu_min = (__u16)mtu;
	}
	return err;
}

static int reset_bridge(const struct test_case *tc)
{
	enum port_id p;
	__u16 mtu_min;
	__u32 slot;
	int err;

	err = dp_fdb_flush() ?: fdbgen_next() ?: mtus_set(tc, &mtu_min) ?:
	      config_set(tc->cfg_flags, tc->fdb_max_learned, mtu_min);
	for (slot = 0; slot < XDPBR_MAX_PORTS && !err; slot++)
		err = dp_learned_set(slot, 0) ?: dp_learned_user_set(slot, 0) ?:
		      vlans_set(slot, NULL) ?:
		      dp_storm_set(slot, NULL) ?: bucket_set(slot, NULL, 0);
	for (p = P1; p <= P3 && !err; p++) {
		err = port_set(p, (XDPBR_PORT_DEFAULT_FLAGS | tc->set_flags[p]) &
				  ~tc->clear_flags[p], tc->max_learned[p],
			       tc->vlan[p].pvid) ?:
		      vlans_set(ports[p].slot, &tc->vlan[p]) ?:
		      dp_storm_set(ports[p].slot, tc->storm[p]) ?:
		      tx_set(p);
	}
	for (slot = 0; slot < XDPBR_MAX_PORTS && !err; slot++) {
		__u32 word = 0;

		for (p = P1; p <= P3; p++)
			if (ports[p].slot == slot)
				word = tc->stp[p];
		err = bpf_map__update_elem(dp_skel->maps.xdpbr_stp_port, &slot, sizeof(slot),
					   &word, sizeof(word), 0);
	}
	return err ?: beat_set(tc->beat.age_ns, tc->beat.timeout_ns) ?: slow_set(tc) ?:
	       fast_set(tc);
}

/* One BPF_PROG_RUN of xdpbr_rx on frame as received by ingress. */
static int prog_run(enum port_id ingress, const __u8 *frame, size_t len,
		    __u8 *out, size_t out_size, __u32 *out_len, __u32 *verdict)
{
	return dp_prog_run(ports[ingress].ifindex, frame, len, out, out_size,
			   out_len, verdict);
}

/* ------------------------------------------------------------------------ */
/* Running a case                                                            */

/* CASE_RETRY: failed, but a storm case took so long that its buckets may
 * have refilled: worth running again. */
enum outcome { CASE_OK, CASE_FAIL, CASE_NOTE, CASE_RETRY };

static void check_counters(const struct test_case *tc, size_t len, size_t out_len,
			   __u64 before[XDPBR_MAX_PORTS][XDPBR_CNT__MAX],
			   __u64 after[XDPBR_MAX_PORTS][XDPBR_CNT__MAX],
			   struct result *r)
{
	static __u64 want[XDPBR_MAX_PORTS][XDPBR_CNT__MAX];
	__u32 in_slot = ports[tc->in].slot;
	__u64 got, outcomes = 0;
	const struct cnt_delta *d;
	__u32 slot;
	int c;

	memset(want, 0, sizeof(want));
	want[in_slot][XDPBR_CNT_RX_PACKETS] = 1;
	want[in_slot][XDPBR_CNT_RX_BYTES] = len;
	for (d = tc->cnt; d < tc->cnt + MAX_DELTAS && d->port; d++)
		want[ports[d->port].slot][d->c] += d->n == FRAME_LEN ? len :
						   d->n == OUT_LEN ? out_len : d->n;

	/* Every counter of every slot: what the case names, and 0 elsewhere. */
	for (slot = 0; slot < XDPBR_MAX_PORTS; slot++) {
		for (c = 0; c < XDPBR_CNT__MAX; c++) {
			got = after[slot][c] - before[slot][c];
			if (got != want[slot][c])
				failf(r, "slot %u %s %+lld, expected %+lld",
				      slot, dp_cnt_names[c], (long long)got,
				      (long long)want[slot][c]);
		}
	}

	/* Accounting invariant: one outcome per received frame. */
	for (c = XDPBR_CNT_OUTCOME_FIRST; c <= XDPBR_CNT_OUTCOME_LAST; c++)
		outcomes += after[in_slot][c] - before[in_slot][c];
	got = after[in_slot][XDPBR_CNT_RX_PACKETS] -
	      before[in_slot][XDPBR_CNT_RX_PACKETS];
	if (got != outcomes || got != 1)
		failf(r, "invariant: slot %u rx_packets %+lld but outcomes %+lld, expected 1 each",
		      in_slot, (long long)got, (long long)outcomes);
}

static void check_fdb(const struct fdb_check *fc, bool had,
		      const struct xdpbr_fdb_val *old, __u64 t0, __u64 t1,
		      struct result *r)
{
	struct xdpbr_fdb_val v;
	char mac[32];
	int ret;

	mac_vlan_str(fc->mac, fc->vlan, mac);
	ret = dp_fdb_get(fc->mac, fc->vlan, &v);
	if (ret < 0) {
		failf(r, "fdb lookup %s: %s", mac, strerror(-ret));
		return;
	}
	if (fc->state == FDB_ABSENT) {
		if (ret)
			failf(r, "fdb %s present (ifindex %u slot %u), expected absent",
			      mac, v.ifindex, v.slot);
		return;
	}
	if (!ret) {
		failf(r, "fdb %s absent, expected on %s", mac,
		      ports[fc->port].name);
		return;
	}
	if (v.ifindex != ports[fc->port].ifindex || v.slot != ports[fc->port].slot)
		failf(r, "fdb %s on ifindex %u slot %u, expected %s (ifindex %u slot %u)",
		      mac, v.ifindex, v.slot, ports[fc->port].name,
		      ports[fc->port].ifindex, ports[fc->port].slot);
	if (v.flags != fc->flags)
		failf(r, "fdb %s flags %#x, expected %#x", mac, v.flags, fc->flags);

	switch (fc->ts) {
	case TS_ANY:
		break;
	case TS_UNCHANGED:
		if (!had)
			failf(r, "fdb %s: table error, TS_UNCHANGED on a new entry",
			      mac);
		else if (v.last_seen != old->last_seen)
			failf(r, "fdb %s last_seen changed by %+lld ns, expected unchanged",
			      mac, (long long)(v.last_seen - old->last_seen));
		break;
	case TS_REFRESHED:
		if (v.last_seen < t0 || v.last_seen > t1)
			failf(r, "fdb %s last_seen %llu outside the run [%llu, %llu]",
			      mac, (unsigned long long)v.last_seen,
			      (unsigned long long)t0, (unsigned long long)t1);
		else if (had && v.last_seen == old->last_seen)
			failf(r, "fdb %s last_seen unchanged, expected refreshed",
			      mac);
		break;
	}
}

/* Every slot of xdpbr_learned against the case's values: the total, the
 * count of each port, 0 in every other slot. */
static void check_learned(const struct learned *want, const __u64 got[XDPBR_MAX_PORTS],
			  struct result *r)
{
	__u64 w[XDPBR_MAX_PORTS] = { 0 };
	const char *name[XDPBR_MAX_PORTS] = { NULL };
	enum port_id p;
	__u32 slot;

	w[XDPBR_LEARNED_TOTAL] = want->total;
	name[XDPBR_LEARNED_TOTAL] = "total";
	for (p = P1; p <= P3; p++) {
		w[ports[p].slot] = want->port[p];
		name[ports[p].slot] = ports[p].name;
	}
	for (slot = 0; slot < XDPBR_MAX_PORTS; slot++) {
		if (got[slot] == w[slot])
			continue;
		if (name[slot])
			failf(r, "learned[%u] (%s) %llu, expected %llu", slot,
			      name[slot], (unsigned long long)got[slot],
			      (unsigned long long)w[slot]);
		else
			failf(r, "learned[%u] %llu, expected 0", slot,
			      (unsigned long long)got[slot]);
	}
}

static bool vid_listed(const __u16 *list, __u16 vid)
{
	size_t i;

	for (i = 0; i < MAX_VIDS && list[i]; i++)
		if (list[i] == vid)
			return true;
	return false;
}

/* Settings the table cannot mean: a port setting on something that is not
 * a port of the test bridge, a learned count NP cannot have, a VID that
 * does not fit the membership bitmap, an untagged VLAN the port is not in,
 * a rewritten output of a truncated frame. */
static bool table_error(const struct test_case *tc, struct result *r)
{
	static const __u32 nostorm[XDPBR_STORM__MAX];
	static const struct port_vlan none;
	enum port_id p;
	size_t i;

	for (p = PORT_NONE; p < PORT_ID_MAX; p++) {
		if (p >= P1 && p <= P3)
			continue;
		if (tc->set_flags[p] || tc->clear_flags[p] || tc->max_learned[p] ||
		    tc->learned.port[p] || tc->learned_after.port[p] ||
		    tc->learned_user.port[p] ||
		    memcmp(&tc->vlan[p], &none, sizeof(none)) ||
		    memcmp(tc->storm[p], nostorm, sizeof(nostorm)) ||
		    (p && (tc->bucket.port == p || tc->burst.in == p))) {
			failf(r, "table error: port setting or learned count on a non-port (%d)",
			      (int)p);
			return true;
		}
	}
	for (p = P1; p <= P3; p++) {
		for (i = 0; i < MAX_VIDS; i++) {
			if (tc->vlan[p].member[i] >= XDPBR_VLAN_WORDS * 64 ||
			    tc->vlan[p].untagged[i] >= XDPBR_VLAN_WORDS * 64) {
				failf(r, "table error: VID out of range on %s",
				      ports[p].name);
				return true;
			}
			if (tc->vlan[p].untagged[i] &&
			    !vid_listed(tc->vlan[p].member, tc->vlan[p].untagged[i])) {
				failf(r, "table error: %s untagged in VLAN %u but not a member",
				      ports[p].name, tc->vlan[p].untagged[i]);
				return true;
			}
		}
	}
	if (tc->out.rewritten && tc->frame.runt_len) {
		failf(r, "table error: a rewritten output of a truncated frame");
		return true;
	}
	if (tc->bucket.port && (tc->bucket.cls >= XDPBR_STORM__MAX || !tc->bucket.age_ns)) {
		failf(r, "table error: a bucket of no class, or one filled now (age 0 "
		      "is last_ns 0 only at boot)");
		return true;
	}
	if ((tc->burst.n || tc->bucket.port) && tc->presend) {
		failf(r, "table error: presend and a storm burst or bucket together");
		return true;
	}
	return false;
}

#define HEX_BYTES	12	/* shown after the MACs: tags, EtherType, payload */

/* Bytes 12 .. 12 + HEX_BYTES of a frame, in hex. */
static const char *hex_str(const __u8 *p, size_t len, char buf[3 * HEX_BYTES + 1])
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 2 * ETH_ALEN; i < len && i < 2 * ETH_ALEN + HEX_BYTES; i++)
		o += (size_t)snprintf(buf + o, 4, "%s%02x", o ? " " : "", p[i]);
	return buf;
}

/* Compares the frame the program handed on with the expected one. */
static void check_output(const __u8 *got, size_t got_len, const __u8 *want,
			 size_t want_len, size_t in_len, struct result *r)
{
	size_t i, n = got_len < want_len ? got_len : want_len;
	char hex[2][3 * HEX_BYTES + 1];

	if (got_len == want_len && !memcmp(got, want, want_len))
		return;
	for (i = 0; i < n && got[i] == want[i]; i++)
		;
	if (i < n)
		failf(r, "output frame %zu bytes (sent %zu), expected %zu; first difference at byte %zu: 0x%02x, expected 0x%02x",
		      got_len, in_len, want_len, i, got[i], want[i]);
	else
		failf(r, "output frame %zu bytes (sent %zu), expected %zu; equal up to byte %zu",
		      got_len, in_len, want_len, n);
	failf(r, "output bytes 12.. %s, expected %s", hex_str(got, got_len, hex[0]),
	      hex_str(want, want_len, hex[1]));
}

/* The fastest per-CPU storm rate of a case (frames a second), 0 if none. */
static __u32 storm_fastest(const struct test_case *tc)
{
	__u32 fastest = 0;
	enum port_id p;
	int c;

	for (p = P1; p <= P3; p++)
		for (c = 0; c < XDPBR_STORM__MAX; c++)
			if (tc->storm[p][c] > fastest)
				fastest = tc->storm[p][c];
	return fastest;
}

/*
 * A storm case's buckets start from a known state (fresh, or as the case
 * sets one) and then refill with time: at pps_cpu frames a second. If the
 * case, from the bucket setup to the test run (without its intended pause),
 * took long enough for half a frame to come in, plus a tick of the coarse
 * clock the datapath reads, a refill may explain a failure.
 */
static bool storm_overrun(const struct test_case *tc, __u64 busy_ns)
{
	__u32 fastest = storm_fastest(tc);
	struct timespec res = { 0 };
	__u64 tick;

	if (!fastest)
		return false;
	clock_getres(CLOCK_MONOTONIC_COARSE, &res);
	tick = (__u64)res.tv_sec * XDPBR_NSEC_PER_SEC + (__u64)res.tv_nsec;
	return (busy_ns + tick) * fastest >= XDPBR_NSEC_PER_SEC / 2;
}

/* A storm case's setup: the bucket it describes, then its burst of frames,
 * each of which must be flooded or forwarded, then its pause. *slept: how
 * long the pause took. 0, or the failure in r and CASE_FAIL. */
static int storm_setup(const struct test_case *tc, __u64 *slept, struct result *r)
{
	const struct burst_setup *b = &tc->burst;
	static const __u8 zero[ETH_ALEN];
	static __u8 frame[JUMBO_BUF], out[JUMBO_BUF];
	__u32 verdict, out_len;
	enum port_id in = b->in ? b->in : tc->in;
	size_t len;
	unsigned int i;
	int err;

	*slept = 0;
	if (tc->bucket.port) {
		err = bucket_set(ports[tc->bucket.port].slot, &tc->bucket, dp_coarse_ns());
		if (err) {
			failf(r, "setup: storm bucket: %s", strerror(-err));
			return CASE_FAIL;
		}
	}
	if (!b->n)
		return 0;
	len = dp_build_frame(frame, sizeof(frame),
			  memcmp(b->dst, zero, ETH_ALEN) ? b->dst : tc->frame.dst,
			  memcmp(b->src, zero, ETH_ALEN) ? b->src : tc->frame.src,
			  tc->frame.tags, tc->frame.ethertype, tc->frame.payload);
	if (!len) {
		failf(r, "table error: burst frame too long");
		return CASE_FAIL;
	}
	for (i = 0; i < b->n; i++) {
		err = prog_run(in, frame, len, out, sizeof(out), &out_len, &verdict);
		if (err) {
			failf(r, "setup: burst frame %u: BPF_PROG_RUN: %s", i + 1,
			      strerror(-err));
			return CASE_FAIL;
		}
		if (verdict != XDP_REDIRECT) {
			failf(r, "setup: burst frame %u of %u from %s: verdict %s, expected "
			      "XDP_REDIRECT", i + 1, b->n, ports[in].name, dp_verdict_name(verdict));
			return CASE_FAIL;
		}
	}
	if (b->sleep_ns) {
		struct timespec pause = {
			.tv_sec = (time_t)(b->sleep_ns / XDPBR_NSEC_PER_SEC),
			.tv_nsec = (long)(b->sleep_ns % XDPBR_NSEC_PER_SEC),
		};
		__u64 t = dp_mono_ns();

		nanosleep(&pause, NULL);
		*slept = dp_mono_ns() - t;
	}
	return 0;
}

static enum outcome run_case(const struct test_case *tc, struct result *r)
{
	static __u64 before[XDPBR_MAX_PORTS][XDPBR_CNT__MAX];
	static __u64 after[XDPBR_MAX_PORTS][XDPBR_CNT__MAX];
	__u64 learned_before[XDPBR_MAX_PORTS], learned_now[XDPBR_MAX_PORTS];
	struct xdpbr_fdb_val old[MAX_CHECKS];
	bool had[MAX_CHECKS] = { false };
	static __u8 frame[JUMBO_BUF], want[JUMBO_BUF], out[JUMBO_BUF];
	__u32 verdict, out_len;
	size_t len, want_len, i;
	enum port_id p;
	__u64 t0, t1, storm_t0, storm_t1, slept;
	int err;

	if (table_error(tc, r))
		return CASE_FAIL;
	len = dp_build_frame(frame, sizeof(frame), tc->frame.dst, tc->frame.src,
			  tc->frame.tags, tc->frame.ethertype, tc->frame.payload);
	if (!len) {
		failf(r, "table error: frame too long");
		return CASE_FAIL;
	}
	if (tc->frame.runt_len) {
		if (tc->frame.runt_len > len) {
			failf(r, "table error: runt_len longer than the frame");
			return CASE_FAIL;
		}
		len = tc->frame.runt_len;
	}
	/* the frame the program must hand on */
	if (tc->out.rewritten) {
		want_len = dp_build_frame(want, sizeof(want), tc->frame.dst,
				       tc->frame.src, tc->out.tags,
				       tc->frame.ethertype, tc->frame.payload);
		if (!want_len) {
			failf(r, "table error: output frame too long");
			return CASE_FAIL;
		}
	} else {
		memcpy(want, frame, len);
		want_len = len;
	}

	/* setup */
	err = reset_bridge(tc);
	if (err) {
		failf(r, "setup: reset maps: %s", strerror(-err));
		return CASE_FAIL;
	}
	err = fdb_setup(tc->fdb);
	if (err) {
		failf(r, "setup: fdb insert: %s", strerror(-err));
		return CASE_FAIL;
	}
	err = dp_learned_set(XDPBR_LEARNED_TOTAL, tc->learned.total) ?:
	      dp_learned_user_set(XDPBR_LEARNED_TOTAL, tc->learned_user.total);
	for (p = P1; p <= P3 && !err; p++)
		err = dp_learned_set(ports[p].slot, tc->learned.port[p]) ?:
		      dp_learned_user_set(ports[p].slot, tc->learned_user.port[p]);
	if (err) {
		failf(r, "setup: limits: %s", strerror(-err));
		return CASE_FAIL;
	}
	if (tc->remove_tx &&
	    (err = bpf_map__delete_elem(dp_skel->maps.xdpbr_tx,
					&ports[tc->remove_tx].slot,
					sizeof(__u32), 0))) {
		failf(r, "setup: tx delete: %s", strerror(-err));
		return CASE_FAIL;
	}
	storm_t0 = dp_mono_ns();
	if (storm_setup(tc, &slept, r))
		return CASE_FAIL;
	if (tc->presend) {
		struct timespec gap = { .tv_nsec = PRESEND_GAP_NS };

		err = prog_run(tc->in, frame, len, out, sizeof(out), &out_len,
			       &verdict);
		if (err) {
			failf(r, "setup: first BPF_PROG_RUN: %s", strerror(-err));
			return CASE_FAIL;
		}
		t0 = dp_coarse_ns();
		nanosleep(&gap, NULL);
		/* else a rewrite of last_seen would store the same value */
		if (dp_coarse_ns() == t0) {
			failf(r, "setup: CLOCK_MONOTONIC_COARSE did not advance in %llu ns",
			      (unsigned long long)PRESEND_GAP_NS);
			return CASE_FAIL;
		}
	}

	/* snapshot */
	err = dp_stats_read(before) ?: dp_learned_read(learned_before);
	for (i = 0; i < MAX_CHECKS && tc->after[i].state && !err; i++) {
		err = dp_fdb_get(tc->after[i].mac, tc->after[i].vlan, &old[i]);
		had[i] = err == 1;
		err = err < 0 ? err : 0;
	}
	if (err) {
		failf(r, "setup: snapshot: %s", strerror(-err));
		return CASE_FAIL;
	}

	/* run */
	t0 = dp_coarse_ns();
	if (tc->live) {
		err = dp_prog_run_live(ports[tc->in].ifindex, frame, len);
		out_len = (__u32)want_len;	/* as sent: OUT_LEN deltas */
	} else {
		err = prog_run(tc->in, frame, len, out, sizeof(out), &out_len, &verdict);
	}
	t1 = dp_coarse_ns();
	storm_t1 = dp_mono_ns();
	if (err == -EINVAL && len < ETH_HLEN) {
		/* The kernel refuses the runt before the program runs: then it
		 * must have left no trace in the counters or the FDB. */
		err = dp_stats_read(after);
		if (err) {
			failf(r, "read counters: %s", strerror(-err));
			return CASE_FAIL;
		}
		if (memcmp(before, after, sizeof(before))) {
			failf(r, "a %zu-byte frame refused by BPF_PROG_RUN changed counters", len);
			return CASE_FAIL;
		}
		err = dp_learned_read(learned_now);
		if (err) {
			failf(r, "read xdpbr_learned: %s", strerror(-err));
			return CASE_FAIL;
		}
		if (memcmp(learned_before, learned_now, sizeof(learned_now))) {
			failf(r, "a %zu-byte frame refused by BPF_PROG_RUN changed xdpbr_learned", len);
			return CASE_FAIL;
		}
		for (i = 0; i < MAX_CHECKS && tc->after[i].state; i++) {
			struct xdpbr_fdb_val v;

			if (dp_fdb_get(tc->after[i].mac, tc->after[i].vlan, &v) !=
			    (had[i] ? 1 : 0)) {
				failf(r, "a refused runt changed the FDB");
				return CASE_FAIL;
			}
		}
		snprintf(r->why, sizeof(r->why), "refused by BPF_PROG_RUN (EINVAL below "
			 "ETH_HLEN) before reaching XDP; nothing counted or learned");
		return CASE_NOTE;
	}
	if (err) {
		failf(r, "BPF_PROG_RUN: %s", strerror(-err));
		return CASE_FAIL;
	}

	/* verdict and frame: unchanged unless the case says how it is
	 * rewritten (VLAN tag pushed, popped or set) */
	if (!tc->live && verdict != tc->verdict)
		failf(r, "verdict %s, expected %s", dp_verdict_name(verdict),
		      dp_verdict_name(tc->verdict));
	if (!tc->live)
		check_output(out, out_len, want, want_len, len, r);

	/* counters */
	err = dp_stats_read(after);
	if (err) {
		failf(r, "read stats: %s", strerror(-err));
		return CASE_FAIL;
	}
	check_counters(tc, len, want_len, before, after, r);

	/* FDB */
	for (i = 0; i < MAX_CHECKS && tc->after[i].state; i++)
		check_fdb(&tc->after[i], had[i], &old[i], t0, t1, r);

	/* learned counts */
	err = dp_learned_read(learned_now);
	if (err)
		failf(r, "read xdpbr_learned: %s", strerror(-err));
	else
		check_learned(&tc->learned_after, learned_now, r);

	if (r->failed && storm_overrun(tc, storm_t1 - storm_t0 - slept)) {
		failf(r, "(a storm case that took %llu ms: buckets may have refilled)",
		      (unsigned long long)((storm_t1 - storm_t0 - slept) / 1000000));
		return CASE_RETRY;
	}
	return r->failed ? CASE_FAIL : CASE_OK;
}

/* ------------------------------------------------------------------------ */
/* CPUs                                                                      */

/* Runs of a storm case that may have been too slow before it counts as
 * failed. */
#define STORM_TRIES	3

static int test_cpu, other_cpu = -1;	/* the one main pins to, another */

/* Pins the test to the CPU it runs on (test_cpu); other_cpu is another one
 * it may use, or -1. */
int pin_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -errno;
	if (!sched_getaffinity(0, sizeof(set), &set))
		for (int c = 0; c < CPU_SETSIZE && other_cpu < 0; c++)
			if (c != cpu && CPU_ISSET(c, &set))
				other_cpu = c;
	test_cpu = cpu;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static int run_on(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* ------------------------------------------------------------------------ */
/* Sequences                                                                 */

/* One frame of a sequence: its outcome, the tx port, the event. */
static void seq_frame(const struct seq_step *st, int n, struct result *r)
{
	static __u64 before[XDPBR_MAX_PORTS][XDPBR_CNT__MAX];
	static __u64 after[XDPBR_MAX_PORTS][XDPBR_CNT__MAX];
	static const struct vlan_tag none[MAX_TAGS];
	__u8 frame[128], out[256];
	__u32 verdict, out_len, in = ports[st->in].slot;
	size_t len;
	int err, c;

	len = dp_build_frame(frame, sizeof(frame), st->dst, st->src, none, ETH_P_IP, 46);
	err = dp_stats_read(before) ?: (st->other_cpu ? run_on(other_cpu) : 0) ?:
	      prog_run(st->in, frame, len, out, sizeof(out), &out_len, &verdict) ?:
	      (st->other_cpu ? run_on(test_cpu) : 0) ?: dp_stats_read(after);
	if (err) {
		failf(r, "step %d: %s", n, strerror(-err));
		return;
	}
	/* Every outcome, and the event the step names (learned, moved). */
	for (c = XDPBR_CNT_FORWARDED; c < XDPBR_CNT__MAX; c++) {
		__u64 d = after[in][c] - before[in][c];
		__u64 w = (c == (int)st->want) + (st->event && c == (int)st->event);

		if (c > XDPBR_CNT_OUTCOME_LAST && c != (int)st->event)
			continue;
		if (d != w)
			failf(r, "step %d (frame on %s): %s %+lld, want %+lld", n,
			      ports[st->in].name, dp_cnt_names[c], (long long)d, (long long)w);
	}
	for (enum port_id p = P1; p <= P3; p++) {
		__u32 s = ports[p].slot;
		__u64 d = after[s][XDPBR_CNT_TX_PACKETS] - before[s][XDPBR_CNT_TX_PACKETS];
		__u64 w = st->want == XDPBR_CNT_FORWARDED && p == st->to;

		if (d != w)
			failf(r, "step %d (frame on %s): tx_packets of %s %+lld, want %+lld", n,
			      ports[st->in].name, ports[p].name, (long long)d, (long long)w);
	}
}

static void run_seq(const struct seq_case *sc, struct result *r)
{
	struct xdpbr_maps m = skel_maps();
	struct fdb_filter all = { .ifindex = 0, .vlan = -1, .kind = FDB_KIND_ANY };
	struct xdpbr_config cfg = { 0 };
	int err, i;

	err = reset_bridge(&(struct test_case){ .desc = sc->desc });
	cfg.ageing_ns = sc->ageing_ns ? sc->ageing_ns : CFG_AGEING_NS;
	err = err ?: ctl_config_set(&m, &cfg) ?: fdb_setup(sc->fdb);
	if (err) {
		failf(r, "setup: %s", strerror(-err));
		return;
	}
	for (i = 0; i < MAX_STEPS && sc->steps[i].op != S_END && !r->failed; i++) {
		const struct seq_step *st = &sc->steps[i];
		struct xdpbr_fdb_key k = dp_fdb_key(st->dst, 0);

		switch (st->op) {
		case S_FRAME:
			if (st->other_cpu && other_cpu < 0) {
				failf(r, "step %d wants a second CPU, and the test may use one only",
				      i + 1);
				continue;
			}
			seq_frame(st, i + 1, r);
			continue;
		case S_DEL:
			err = ctl_fdb_del(&m, st->dst, &all);
			err = err == 1 ? 0 : err < 0 ? err : -EEXIST;
			break;
		case S_FLUSH:
			err = ctl_fdb_flush(&m, &all);
			err = err < 0 ? err : 0;
			break;
		case S_STATIC:
			err = ctl_fdb_add(&m, st->dst, 0, ports[st->in].ifindex, true);
			break;
		case S_RAW_DEL:
			err = bpf_map__delete_elem(dp_skel->maps.xdpbr_fdb, &k, sizeof(k), 0);
			break;
		case S_BUMP:
			err = fdbgen_bump_user(&m);
			break;
		case S_SLEEP_MS:
			err = usleep(st->ms * 1000) ? -errno : 0;
			break;
		case S_AGEING:
			cfg.ageing_ns = st->ageing_ns;
			err = ctl_config_set(&m, &cfg);
			break;
		case S_END:
			break;
		}
		if (err)
			failf(r, "step %d: %s", i + 1, strerror(-err));
	}
}

/* ------------------------------------------------------------------------ */
/* The tables and the tally                                                  */

void tally_check(struct tally *tally, bool ok, const char *desc)
{
	printf("%s - %s\n", ok ? "ok" : "FAIL", desc);
	if (ok)
		tally->passed++;
	else
		tally->failed++;
}

void run_case_table(const struct case_table *t, struct tally *tally)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct test_case *tc = &t->cases[i];
		struct result r = { .len = 0 };
		enum outcome o;
		int tries = 0;

		while ((o = run_case(tc, &r)) == CASE_RETRY && ++tries < STORM_TRIES)
			r = (struct result){ .len = 0 };
		switch (o) {
		case CASE_OK:
			printf("ok - %s\n", tc->desc);
			tally->passed++;
			break;
		case CASE_NOTE:
			printf("ok - %s: %s\n", tc->desc, r.why);
			tally->passed++;
			break;
		case CASE_FAIL:
		case CASE_RETRY:
			printf("FAIL - %s: %s\n", tc->desc, r.why);
			tally->failed++;
			break;
		}
	}
}

void run_seq_table(const struct seq_table *t, struct tally *tally)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct seq_case *sc = &t->cases[i];
		struct result r = { .len = 0 };

		run_seq(sc, &r);
		printf("%s - %s%s%s\n", r.failed ? "FAIL" : "ok", sc->desc,
		       r.failed ? ": " : "", r.failed ? r.why : "");
		if (r.failed)
			tally->failed++;
		else
			tally->passed++;
	}
}

void tally_print(const struct tally *tally)
{
	printf("%d passed, %d failed\n", tally->passed, tally->failed);
}

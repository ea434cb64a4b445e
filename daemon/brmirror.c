// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* brmirror.c - the Linux bridge device as a view and control (brmirror.h). */
#include <errno.h>
#include <linux/neighbour.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <bpf/bpf.h>

#include "bridge.h"
#include "brmirror.h"
#include "ctl.h"
#include "hostif.h"
#include "kbridge.h"
#include "log.h"
#include "netlink.h"
#include "settings.h"
#include "util.h"
#include "xdpbr_rules.h"

/* The picture's flags: the kind of entry the kernel holds for a MAC (on
 * port val), and the mirror's marks. */
#define KM_EXTERN	0x01	/* extern_learn: ours, of a learned entry */
#define KM_STATIC	0x02	/* static: never ages, moves */
#define KM_STICKY	0x04	/* static sticky (or permanent sticky) */
#define KM_PERM		0x08	/* permanent: a user's, or the port's own address */
#define KM_DYN		0x10	/* learned by the kernel: not ours */
#define KM_HELD		0x1f
#define KM_QUEUED	0x20
#define KM_ASKED	0x40	/* we wrote or deleted it: its echo is ours */
#define KM_USERDEL	0x80	/* deleted by someone else, from port val: in b->dels */

enum { PASS_IDLE, PASS_PINNED, PASS_KERNEL };

#define PASS_PERIOD_NS	XDPBR_NSEC_PER_SEC

void brmirror_init(struct brmirror *b, struct bridge *br)
{
	memset(b, 0, sizeof(*b));
	b->br = br;
}

int brmirror_fd(const struct brmirror *b)
{
	return b->nl ? mnl_socket_get_fd(b->nl) : -1;
}

static const struct xdpbr_maps *maps(const struct brmirror *b)
{
	return &b->br->maps;
}

/* --- the picture and the queue --- */

static struct macset_slot *km_get(struct brmirror *b, const uint8_t mac[6], uint16_t vlan)
{
	bool grew;
	struct macset_slot *x = macset_add_vlan(&b->km, mac, vlan, &grew);

	if (grew)
		b->slot = 0;
	if (x && !x->flags)
		x->mark = (uint8_t)(b->pass_no - 1);
	return x;
}

static void km_settle(struct brmirror *b, struct macset_slot *x)
{
	if (x && !x->flags)
		macset_del(&b->km, x);
}

static void queue(struct brmirror *b, const uint8_t mac[6], uint16_t vlan)
{
	struct macset_slot *x = km_get(b, mac, vlan);

	if (!x || x->flags & KM_QUEUED)
		return;
	if (macq_push_vlan(&b->todo, mac, vlan))
		km_settle(b, x);
	else
		x->flags |= KM_QUEUED;
}

/* --- the one rule: what the kernel should hold for a MAC --- */

struct want {
	unsigned int kind;		/* KM_EXTERN, KM_STATIC, KM_STICKY; 0: nothing */
	uint32_t ifindex;
};

static bool on_device(const struct brmirror *b, const struct xdpbr_fdb_val *v)
{
	return v->slot < XDPBR_MAX_PORTS && v->ifindex && b->member[v->slot] == v->ifindex;
}

static struct want want_of(const struct brmirror *b, const struct xdpbr_fdb_val *v,
			   uint64_t now)
{
	struct want w = { 0 };

	if (!v || v->flags & XDPBR_FDB_LOCAL || !on_device(b, v) ||
	    xdpbr_fdb_stale(v, now, b->ageing_ns))
		return w;
	w.ifindex = v->ifindex;
	w.kind = v->flags & XDPBR_FDB_STATIC ? KM_STICKY :
		 (v->flags & (XDPBR_FDB_REMOTE | XDPBR_FDB_EXTERN)) == XDPBR_FDB_REMOTE ? KM_STATIC :
		 KM_EXTERN;
	return w;
}

/* Whether what the kernel holds (x, NULL: nothing) is in line with w. What
 * the kernel learned itself, and permanent entries we did not ask for, are
 * not ours to delete (a port's own address is one). */
static bool in_line(const struct macset_slot *x, struct want w)
{
	unsigned int held = x ? x->flags & KM_HELD : 0;

	if (!w.kind)
		return !(held & (KM_EXTERN | KM_STATIC | KM_STICKY));
	return held && x->val == w.ifindex &&
	       (held == w.kind || (w.kind == KM_STICKY && held == KM_PERM));
}

static int lookup(const struct brmirror *b, const uint8_t mac[6], uint16_t vlan,
		  struct xdpbr_fdb_val *v)
{
	struct xdpbr_fdb_key k = { .vlan = vlan };

	memcpy(k.mac, mac, 6);
	return bpf_map_lookup_elem(maps(b)->fdb, &k, v) ? -errno : 0;
}

/* Brings mac in vlan in line: 0, or -ENOSPC (the writer is full this turn). */
static int check(struct brmirror *b, const uint8_t mac[6], uint16_t vlan, uint64_t now)
{
	struct macset_slot *x = macset_find_vlan(&b->km, mac, vlan);
	struct xdpbr_fdb_val v;
	struct want w = want_of(b, lookup(b, mac, vlan, &v) ? NULL : &v, now);
	unsigned int held = x ? x->flags & KM_HELD : 0;
	int err = 0;

	if (in_line(x, w) || (x && x->flags & KM_USERDEL))
		return 0;	/* a delete to look at first (user_deletes) */
	if (b->w->n + 2 > KFDB_BATCH)
		return -ENOSPC;
	/* A change of kind is a delete first (kfdb.h). */
	if (held && (!w.kind || held != w.kind))
		err = kfdb_put_vlan(b->w, x->val, mac, vlan, false, KFDB_EXTERN);
	if (!err && w.kind)
		err = kfdb_put_vlan(b->w, w.ifindex, mac, vlan, true,
				    w.kind == KM_EXTERN ? KFDB_EXTERN :
				    w.kind == KM_STATIC ? KFDB_STATIC : KFDB_STICKY);
	x = x ?: km_get(b, mac, vlan);
	if (x)
		x->flags |= KM_ASKED;
	return err;
}

static void drain(struct brmirror *b, uint64_t now)
{
	struct macset_slot *x;
	uint8_t mac[6];
	uint16_t vlan;

	for (int i = 0; !b->behind && i < BRMIRROR_TURN_CHECKS &&
	     macq_pop_vlan(&b->todo, mac, &vlan); i++) {
		x = macset_find_vlan(&b->km, mac, vlan);
		if (x)
			x->flags &= ~KM_QUEUED;
		if (check(b, mac, vlan, now) == -ENOSPC) {
			queue(b, mac, vlan);
			break;
		}
		km_settle(b, macset_find_vlan(&b->km, mac, vlan));
	}
}

/* --- what users do with `bridge fdb` --- */

static bool still_port(const struct brmirror *b, uint32_t ifindex)
{
	struct link_info li;

	return !link_get_info(ifindex, &li) && li.master == b->kbr;
}

static void user_added(struct brmirror *b, const struct kfdb_entry *k, unsigned int kind)
{
	struct xdpbr_fdb_val v;
	struct link_info li;
	char s[MAC_STRLEN];
	int err;

	if (kind == KM_EXTERN) {
		/* An extern_learn entry is also what the mirror writes for
		 * every learned one: a user's only where xdpbr holds none (a
		 * late echo of ours finds the entry, wherever it has moved). */
		if (!lookup(b, k->mac, k->vlan, &v))
			return;
	} else if (!lookup(b, k->mac, k->vlan, &v) && v.ifindex == k->ifindex &&
		   !(v.flags & XDPBR_FDB_LOCAL) &&
		   (v.flags & XDPBR_FDB_STATIC ? kind != KM_STATIC : kind == KM_STATIC)) {
		return;		/* what xdpbr holds already: our own write's echo */
	}
	if (kind == KM_PERM && (link_get_info(k->ifindex, &li) || !memcmp(li.mac, k->mac, 6)))
		return;		/* the kernel's entry for a port's own address */
	err = kind == KM_STATIC ? ctl_fdb_movable_set(maps(b), k->mac, k->vlan, k->ifindex) :
	      kind == KM_EXTERN ? ctl_fdb_extern_set(maps(b), k->mac, k->vlan, k->ifindex) :
	      ctl_fdb_add(maps(b), k->mac, k->vlan, k->ifindex, true);
	mac_format(k->mac, s);
	if (err < 0)
		log_warn("bridge fdb add %s vlan %u: Couldn't add it to the FDB: %s", s, k->vlan,
			 strerror(-err));
	else
		log_info("bridge fdb: %s vlan %u added on ifindex %u (%s)", s, k->vlan, k->ifindex,
			 kind == KM_STATIC ? "static" : kind == KM_EXTERN ? "extern_learn" :
			 "static sticky");
}

static void user_deleted(struct brmirror *b, const struct kfdb_entry *k)
{
	struct fdb_filter f = { .ifindex = k->ifindex, .vlan = k->vlan };
	struct xdpbr_fdb_val v;
	char s[MAC_STRLEN];
	int ret;

	/* A port that left the device (or a device deleted) takes its
	 * entries with it in the kernel: no user's delete. */
	if (lookup(b, k->mac, k->vlan, &v) || v.ifindex != k->ifindex || v.flags & XDPBR_FDB_LOCAL ||
	    !still_port(b, k->ifindex))
		return;
	ret = ctl_fdb_del(maps(b), k->mac, &f);
	if (ret < 0 && ret != -ENOENT)
		log_warn("bridge fdb del %s: Couldn't delete it from the FDB: %s",
			 mac_format(k->mac, s), strerror(-ret));
}

/* --- what the kernel says --- */

static unsigned int kind_of(const struct kfdb_entry *k)
{
	if (k->flags & NTF_EXT_LEARNED)
		return KM_EXTERN;
	if (k->state & (NUD_PERMANENT | NUD_NOARP))
		return k->flags & NTF_STICKY ? KM_STICKY :
		       k->state & NUD_PERMANENT ? KM_PERM : KM_STATIC;
	return KM_DYN;
}

static bool ours(const struct brmirror *b, const struct kfdb_entry *k)
{
	return !(k->flags & NTF_SELF) && k->master == b->kbr && k->vlan <= XDPBR_VLAN_MAX &&
	       k->ifindex != b->kbr && xdpbr_mac_station(k->mac);
}

static void on_deleted_neigh(struct brmirror *b, const struct kfdb_entry *k)
{
	struct macset_slot *x = macset_find_vlan(&b->km, k->mac, k->vlan);
	bool asked;

	if (!x || !(x->flags & KM_HELD) || x->val != k->ifindex)
		return;		/* not what the picture holds: an older word */
	asked = x->flags & KM_ASKED;
	x->flags &= (uint8_t)~(KM_HELD | KM_ASKED);
	if (!asked && b->synced && !(x->flags & KM_USERDEL) &&
	    !macq_push_vlan(&b->dels, k->mac, k->vlan))
		x->flags |= KM_USERDEL;
	queue(b, k->mac, k->vlan);
}

/* Deletes that were no echo of ours, a look after they came: by then a
 * port that left the device (its entries deleted on the way out) has
 * left (the kernel deletes them before it unlinks the port). */
static void user_deletes(struct brmirror *b)
{
	struct kfdb_entry k = { 0 };
	struct macset_slot *x;

	for (int i = 0; i < BRMIRROR_TURN_SCAN && macq_pop_vlan(&b->dels, k.mac, &k.vlan); i++) {
		x = macset_find_vlan(&b->km, k.mac, k.vlan);
		if (!x || !(x->flags & KM_USERDEL))
			continue;	/* added again meanwhile */
		x->flags &= (uint8_t)~KM_USERDEL;
		k.ifindex = x->val;
		user_deleted(b, &k);
		queue(b, k.mac, k.vlan);
	}
}

static void on_neigh(const struct kfdb_entry *k, void *arg)
{
	struct brmirror *b = arg;
	struct macset_slot *x;
	unsigned int kind;
	bool asked;

	if (!ours(b, k))
		return;
	if (k->deleted) {
		on_deleted_neigh(b, k);
		return;
	}
	x = km_get(b, k->mac, k->vlan);
	if (!x)
		return;
	kind = kind_of(k);
	asked = x->flags & KM_ASKED;
	x->flags = (uint8_t)((x->flags & ~(KM_HELD | KM_ASKED | KM_USERDEL)) | kind);
	x->val = k->ifindex;
	if (!asked && b->synced && kind & (KM_EXTERN | KM_STATIC | KM_STICKY | KM_PERM))
		user_added(b, k, kind);
	if (kind != KM_DYN)
		queue(b, k->mac, k->vlan);
	km_settle(b, x);
}

static void on_dumped(const struct kfdb_entry *k, void *arg)
{
	struct brmirror *b = arg;
	struct macset_slot *x;

	if (!ours(b, k) || !(x = km_get(b, k->mac, k->vlan)))
		return;
	x->flags = (uint8_t)((x->flags & ~KM_HELD) | kind_of(k));
	x->val = k->ifindex;
}

/* The kernel's FDB read into an empty picture, a part a turn; then a
 * pass makes it xdpbr's. */
static void resync_start(struct brmirror *b)
{
	int err;

	b->synced = false;
	b->lost = false;
	macset_free(&b->km);
	macq_free(&b->todo);
	macq_free(&b->dels);
	err = macset_init(&b->km, 1024);
	if (!err)
		err = kfdb_dump_start(&b->dump, b->kbr);
	if (err) {
		log_warn("bridge %s: Couldn't read the Linux bridge's FDB: %s", b->br->name,
			 strerror(-err));
		b->lost = true;
	}
}

static void resync_step(struct brmirror *b)
{
	int ret;

	if (!b->dump.nl)
		return;
	ret = kfdb_dump_step(&b->dump, on_dumped, b, BRMIRROR_TURN_DUMP_READS);
	if (ret == 1) {
		b->synced = true;
		b->pass_ns = 0;		/* a pass now */
	} else if (ret < 0) {
		b->lost = true;
	}
}

/* --- the repair pass --- */

static void pass_met(struct brmirror *b, const struct fdb_entry *f, uint64_t now)
{
	struct macset_slot *x;

	if (!xdpbr_mac_station(f->key.mac))
		return;
	x = macset_find_vlan(&b->km, f->key.mac, f->key.vlan);
	if (x)
		x->mark = b->pass_no;
	if (!in_line(x, want_of(b, &f->val, now)))
		queue(b, f->key.mac, f->key.vlan);
}

static void pass_pinned(struct brmirror *b, uint64_t now)
{
	bool end = false;
	int n;

	if (now < b->read_ns)
		return;
	n = fdb_read(maps(b)->fdb, &b->cursor, FDB_BATCH, b->batch, &end);
	if (n < 0 || (n == 0 && !end)) {
		b->phase = PASS_IDLE;
		return;
	}
	b->read_ns = now + (uint64_t)n * XDPBR_NSEC_PER_SEC / BRMIRROR_PASS_RATE;
	for (int i = 0; i < n; i++)
		pass_met(b, &b->batch[i], now);
	if (end)
		b->phase = PASS_KERNEL;
}

/* What the kernel holds that the walk did not meet. */
static void pass_kernel(struct brmirror *b)
{
	size_t stop = b->slot + BRMIRROR_TURN_SCAN;
	struct macset_slot *x;

	while (b->slot < stop && b->slot < b->km.cap) {
		x = macset_at(&b->km, b->slot);
		if (x && !x->flags) {
			macset_del(&b->km, x);
			continue;
		}
		if (x && x->mark != b->pass_no) {
			x->mark = b->pass_no;
			if (!in_line(x, (struct want){ 0 }))
				queue(b, x->mac, x->vlan);
		}
		b->slot++;
	}
	if (b->slot >= b->km.cap)
		b->phase = PASS_IDLE;
}

static void pass_step(struct brmirror *b, uint64_t now)
{
	struct xdpbr_config c;

	if (b->phase == PASS_IDLE && b->synced && now - b->pass_ns >= PASS_PERIOD_NS) {
		b->ageing_ns = xdpbr_ageing_ns(ctl_config_get(maps(b), &c) ? NULL : &c);
		b->phase = PASS_PINNED;
		b->pass_no++;
		b->cursor = 0;
		b->slot = 0;
		b->pass_ns = now;
	}
	if (b->phase == PASS_PINNED)
		pass_pinned(b, now);
	else if (b->phase == PASS_KERNEL)
		pass_kernel(b);
}

/* --- ports' flags and the ageing time, once a second --- */

/* Flags that changed on one side since they last agreed go to the other;
 * the kernel's word wins where both changed. Returns the agreed flags. */
static uint32_t merge(uint32_t agreed, uint32_t kernel, uint32_t ours)
{
	uint32_t kc = kernel ^ agreed, oc = ours ^ agreed;

	return (agreed & ~(kc | oc)) | (kernel & kc) | (ours & oc & ~kc);
}

static void port_sync(struct brmirror *b, uint32_t ifindex, uint32_t kflags,
		      struct xdpbr_port *p)
{
	uint32_t mask = kbr_port_mask(), ours = p->flags & mask, now;
	char name[IF_NAMESIZE];
	int err = 0;

	bool fresh = b->agreed_if[p->slot] != ifindex;

	/* A new port: xdpbr's flags win, so the kernel's count as agreed
	 * (taking xdpbr's as agreed made the kernel's look changed: a flag
	 * set just before a crash was lost at the restart). */
	if (fresh) {
		b->agreed_if[p->slot] = ifindex;
		b->agreed[p->slot] = kflags & mask;
	}
	now = merge(b->agreed[p->slot], kflags, ours);
	if (now != ours) {
		p->flags = (p->flags & ~mask) | now;
		err = ctl_port_apply(maps(b), ifindex, p, b->br->prog_egress_fd);
	}
	if (!err && now != kflags)
		err = kbr_port_set(ifindex, now, mask);
	if (err) {
		log_warn("bridge link %s: Couldn't bring its flags in line: %s",
			 if_indextoname(ifindex, name) ?: "?", strerror(-err));
		if (fresh)
			b->agreed_if[p->slot] = 0;	/* new again at the next look */
	} else {
		b->agreed[p->slot] = now;
	}
}

static void on_kport(uint32_t ifindex, uint32_t kflags, void *arg)
{
	struct brmirror *b = arg;
	struct xdpbr_port p;

	if (ctl_port_get(maps(b), ifindex, &p) || p.slot >= XDPBR_MAX_PORTS)
		return;		/* no port of xdpbr's (yet) */
	b->member[p.slot] = ifindex;
	port_sync(b, ifindex, kflags, &p);
}

/* xdpbr's ageing in centiseconds, 0 for never (the kernel has no never:
 * its 0 ages at once). */
static uint32_t ours_cs(const struct xdpbr_config *c)
{
	uint64_t ns = xdpbr_ageing_ns(c);

	return ns == XDPBR_AGEING_NEVER ? 0 : (uint32_t)(ns / KBR_CS_NS);
}

static int ageing_to_xdpbr(struct brmirror *b, struct xdpbr_config *c, uint32_t cs)
{
	int err = setting_check(&settings[SET_AGEING_TIME], (cs + 99) / 100);

	if (err) {
		log_warn("bridge %s: ageing_time %u.%02u s is out of xdpbr's range; keeping "
			 "%u s", b->br->name, cs / 100, cs % 100, ours_cs(c) / 100);
		return err;
	}
	c->ageing_ns = cs ? cs * KBR_CS_NS : XDPBR_AGEING_NEVER;
	return ctl_config_set(maps(b), c);
}

static void ageing_sync(struct brmirror *b)
{
	struct xdpbr_config c;
	uint32_t k, ours, now;
	int err;

	if (ctl_config_get(maps(b), &c) || kbr_ageing_get(b->kbr, &k))
		return;
	ours = ours_cs(&c);
	/* At start xdpbr's wins (-a, the file; a taken-over bridge's own when
	 * neither gave one, keep_ageing in xdpbrd.c): the kernel's counts as
	 * agreed. */
	if (!b->ageing_agreed)
		b->ageing_cs = k;
	now = k != b->ageing_cs ? k : ours;
	err = now != ours ? ageing_to_xdpbr(b, &c, now) : 0;
	if (err)
		now = ours;
	if (now != k)
		err = kbr_ageing_set(b->kbr, now);
	if (err)
		log_warn("bridge %s: Couldn't bring the ageing time in line: %s", b->br->name,
			 strerror(-err));
	b->ageing_cs = now;
	b->ageing_agreed = true;
}

/* --- VLANs: the bridge's filtering and default PVID, ports' VLANs --- */

static uint64_t merge64(uint64_t agreed, uint64_t kernel, uint64_t ours)
{
	uint64_t kc = kernel ^ agreed, oc = ours ^ agreed;

	return (agreed & ~(kc | oc)) | (kernel & kc) | (ours & oc & ~kc);
}

/* The kernel without CONFIG_BRIDGE_VLAN_FILTERING: said once, and the
 * VLANs are left alone (xdpbr's own keep working). */
static bool vlans_off(struct brmirror *b, int err)
{
	if (err != -ENOTSUP)
		return false;
	log_info("bridge %s: the Linux bridge has no VLAN filtering (kernel without "
		 "CONFIG_BRIDGE_VLAN_FILTERING): not mirroring VLANs", b->br->name);
	b->vlan_off = true;
	return true;
}

/* vlan_filtering and vlan_default_pvid, as the ageing time: a side that
 * changed wins, the kernel's if both did; at start xdpbr's. */
static int vlan_bridge_sync(struct brmirror *b)
{
	struct xdpbr_config c;
	bool kf, of, nf;
	uint16_t kp, op, np;
	int err;

	err = kbr_vlan_get(b->kbr, &kf, &kp);
	if (vlans_off(b, err) || err || ctl_config_get(maps(b), &c))
		return -1;
	of = c.flags & XDPBR_CFG_VLAN_FILTERING;
	op = ctl_default_pvid(&c);
	if (!b->vlan_agreed) {
		b->filtering = kf;
		b->default_pvid = kp;
	}
	nf = kf != b->filtering ? kf : of;
	np = kp != b->default_pvid ? kp : op;
	err = 0;
	if (np != op)
		err = ctl_set_default_pvid(maps(b), np, b->br->prog_egress_fd);
	if (!err && nf != of)
		err = ctl_vlan_filtering(maps(b), nf);
	if (!err && (nf != kf || np != kp))
		err = kbr_vlan_set(b->kbr, nf, np, np != kp);
	if (err) {
		log_warn("bridge %s: Couldn't bring vlan_filtering and default_pvid in line: %s",
			 b->br->name, strerror(-err));
		return -1;
	}
	b->filtering = nf;
	b->default_pvid = np;
	b->vlan_agreed = true;
	return 0;
}

/* Takes VLANs xdpbr's port has and want lacks away first (with their
 * FDB entries, as `xdpbr vlan del`), then sets the rest. */
static int vlans_to_xdpbr(struct brmirror *b, uint32_t ifindex,
			  const struct xdpbr_vlan_port *have, const struct xdpbr_vlan_port *want,
			  uint16_t pvid)
{
	uint32_t from = 0;
	int err = 0;

	for (uint32_t vid = 1; !err && vid <= XDPBR_VLAN_MAX + 1; vid++) {
		bool gone = vid <= XDPBR_VLAN_MAX && xdpbr_vlan_test(have->member, (uint16_t)vid) &&
			    !xdpbr_vlan_test(want->member, (uint16_t)vid);

		if (gone && !from)
			from = vid;
		if (!gone && from) {
			err = ctl_vlan_del(maps(b), ifindex, (uint16_t)from, (uint16_t)(vid - 1));
			from = 0;
		}
	}
	return err ? err : ctl_vlan_set_port(maps(b), ifindex, want, pvid);
}

static void on_kvlans(uint32_t ifindex, const struct xdpbr_vlan_port *kv, uint16_t kpvid,
		      void *arg)
{
	struct brmirror *b = arg;
	struct brmirror_vlans *a;
	struct xdpbr_vlan_port ov, nv;
	struct xdpbr_port p;
	char name[IF_NAMESIZE];
	uint32_t kif = ifindex;		/* the kernel's side: the port, or the device */
	bool self = ifindex == b->kbr;
	uint16_t pvid;
	bool fresh;
	int err = 0;

	if (b->dev_if && ifindex == b->dev_if) {	/* follows the device's (vlan_sync) */
		b->dev = (struct brmirror_vlans){ .v = *kv, .pvid = kpvid, .ifindex = ifindex };
		b->have_dev = true;
		return;
	}
	if (self && !(ifindex = b->host_if))
		return;		/* no host port: the device's own VLANs are the kernel's */
	if (ctl_port_get(maps(b), ifindex, &p) || p.slot >= XDPBR_MAX_PORTS ||
	    ctl_vlan_get(maps(b), p.slot, &ov))
		return;		/* no port of xdpbr's (yet) */
	a = &b->vlans[p.slot];
	/* A new port: xdpbr's VLANs win (the kernel's count as agreed), but
	 * where the kernel's are to be kept (xdpbr's count as agreed). */
	fresh = a->ifindex != ifindex;
	if (fresh && b->kernel_vlans && b->kernel_vlans(ifindex, b->arg)) {
		a->ifindex = ifindex;
		a->v = ov;
		a->pvid = p.pvid;
	} else if (fresh) {
		a->ifindex = ifindex;
		a->v = *kv;
		a->pvid = kpvid;
	}
	for (int w = 0; w < XDPBR_VLAN_WORDS; w++) {
		nv.member[w] = merge64(a->v.member[w], kv->member[w], ov.member[w]);
		nv.untagged[w] = merge64(a->v.untagged[w], kv->untagged[w], ov.untagged[w]) &
				 nv.member[w];
	}
	pvid = kpvid != a->pvid ? kpvid : p.pvid;
	if (pvid && !xdpbr_vlan_test(nv.member, pvid))
		pvid = 0;
	if (memcmp(&nv, &ov, sizeof(nv)) || pvid != p.pvid)
		err = vlans_to_xdpbr(b, ifindex, &ov, &nv, pvid);
	if (!err && (memcmp(&nv, kv, sizeof(nv)) || pvid != kpvid))
		err = kbr_vlans_write(kif, self, &nv, pvid, kv, kpvid);
	if (err) {
		log_warn("bridge vlan %s%s: Couldn't bring its VLANs in line: %s",
			 if_indextoname(kif, name) ?: "?", self ? " self" : "", strerror(-err));
		if (fresh)
			a->ifindex = 0;		/* new again at the next look */
		return;
	}
	a->v = nv;
	a->pvid = pvid;
	if (self) {
		b->self = *a;
		b->have_self = true;
	}
}

static void vlan_sync(struct brmirror *b)
{
	char name[IF_NAMESIZE];
	int err;

	if (b->vlan_off || vlan_bridge_sync(b))
		return;
	hostif_port_name(b->br->name, name);
	b->host_if = if_nametoindex(name);
	hostif_dev_name(b->br->name, name);
	b->dev_if = b->host_if ? if_nametoindex(name) : 0;
	b->have_self = b->have_dev = false;
	err = kbr_port_vlans(b->kbr, on_kvlans, b);
	if (err) {
		log_warn("bridge %s: Couldn't read the Linux bridge's VLANs: %s", b->br->name,
			 strerror(-err));
		return;
	}
	if (!b->have_self || !b->have_dev ||
	    (!memcmp(&b->self.v, &b->dev.v, sizeof(b->self.v)) && b->self.pvid == b->dev.pvid))
		return;
	err = kbr_vlans_write(b->dev_if, false, &b->self.v, b->self.pvid, &b->dev.v, b->dev.pvid);
	if (err)
		log_warn("bridge vlan %s: Couldn't give it the VLANs of %s: %s", name, b->br->name,
			 strerror(-err));
}

/* --- the device: found, watched, lost --- */

static void mirror_stop(struct brmirror *b)
{
	if (b->nl)
		mnl_socket_close(b->nl);
	b->nl = NULL;
	if (b->w)
		kfdb_writer_close(b->w);
	free(b->w);
	b->w = NULL;
	kfdb_dump_stop(&b->dump);
	macset_free(&b->km);
	macq_free(&b->todo);
	macq_free(&b->dels);
	free(b->batch);
	b->batch = NULL;
	b->kbr = 0;
	b->synced = false;
	b->ageing_agreed = false;
	b->vlan_agreed = false;
	b->vlan_off = false;
	free(b->vlans);
	b->vlans = NULL;
	b->phase = PASS_IDLE;
	memset(b->agreed_if, 0, sizeof(b->agreed_if));
}

static int mirror_start(struct brmirror *b, uint32_t kbr)
{
	int err;

	b->kbr = kbr;
	b->batch = calloc(FDB_BATCH, sizeof(*b->batch));
	b->vlans = calloc(XDPBR_MAX_PORTS, sizeof(*b->vlans));
	b->w = b->batch && b->vlans ? calloc(1, sizeof(*b->w)) : NULL;
	if (!b->w)
		return -ENOMEM;
	err = kfdb_writer_open(b->w);
	if (err)
		return err;
	b->nl = kfdb_watch_open();
	if (!b->nl)
		return -errno;
	resync_start(b);
	log_info("bridge %s: mirroring xdpbr's FDB, port flags, ageing and VLANs with the Linux "
		 "bridge device %s", b->br->name, b->br->name);
	return 0;
}

/* Once a second: whether the device is (still) there, and its ports. */
static void look(struct brmirror *b)
{
	uint32_t kbr = if_nametoindex(b->br->name);
	int err;

	if (b->kbr && kbr != b->kbr) {
		log_info("bridge %s: the Linux bridge device is gone: not mirroring",
			 b->br->name);
		mirror_stop(b);
	}
	if (!b->kbr && kbr && kbr_is_bridge(kbr) == 1) {
		err = mirror_start(b, kbr);
		if (err) {
			log_warn("bridge %s: Couldn't mirror the Linux bridge device: %s",
				 b->br->name, strerror(-err));
			mirror_stop(b);
			return;
		}
	}
	if (!b->kbr)
		return;
	memset(b->member, 0, sizeof(b->member));
	err = kbr_ports(b->kbr, on_kport, b);
	if (err)
		log_warn("bridge %s: Couldn't read the Linux bridge's ports: %s", b->br->name,
			 strerror(-err));
	ageing_sync(b);
	vlan_sync(b);
	user_deletes(b);
}

/* --- a turn --- */

static void on_refused(const struct kfdb_entry *req, int err, void *arg)
{
	struct brmirror *b = arg;
	struct macset_slot *x = macset_find_vlan(&b->km, req->mac, req->vlan);
	char s[MAC_STRLEN];

	if (x)
		x->flags &= (uint8_t)~KM_ASKED;
	log_debug("bridge %s: %s %s: %s (the repair pass tries again)", b->br->name,
		  req->deleted ? "deleting" : "adding", mac_format(req->mac, s), strerror(-err));
}

void brmirror_read(struct brmirror *b)
{
	int ret;

	if (!b->nl)
		return;
	ret = kfdb_watch_read(b->nl, on_neigh, b, BRMIRROR_TURN_READS);
	b->behind = ret == 1;
	if (ret == -ENOBUFS) {
		log_warn("bridge %s: notifications of the Linux bridge's FDB were lost: "
			 "reading it again (xdpbr's FDB wins)", b->br->name);
		b->lost = true;
	}
}

void brmirror_fdb_event(struct brmirror *b, const struct xdpbr_event *ev)
{
	if (b->synced && (ev->type == XDPBR_EV_LEARN || ev->type == XDPBR_EV_MOVE))
		queue(b, ev->mac, ev->vlan);
}

void brmirror_fdb_deleted(struct brmirror *b, const struct xdpbr_fdb_key *k)
{
	if (b->synced)
		queue(b, k->mac, k->vlan);
}

void brmirror_step(struct brmirror *b)
{
	uint64_t now = mono_ns();

	if (now >= b->look_ns) {
		b->look_ns = now + XDPBR_NSEC_PER_SEC;
		look(b);
	}
	if (!b->nl)
		return;
	if (b->behind)
		brmirror_read(b);
	if (b->lost && !b->dump.nl)
		resync_start(b);
	resync_step(b);
	pass_step(b, now);
	drain(b, now);
	if (kfdb_flush(b->w) == 0)
		kfdb_writer_errors(b->w, on_refused, b, BRMIRROR_TURN_READS);
}

/* Looks on link events come at most this often: a look writes what
 * differs, and its writes are link events too. */
#define POKE_GAP_NS	(50 * 1000000ULL)

void brmirror_poke(struct brmirror *b)
{
	uint64_t last = b->look_ns > XDPBR_NSEC_PER_SEC ? b->look_ns - XDPBR_NSEC_PER_SEC : 0;

	if (last + POKE_GAP_NS < b->look_ns)
		b->look_ns = last + POKE_GAP_NS;
}

void brmirror_wait(const struct brmirror *b, int *wait_ms)
{
	uint64_t now = mono_ns(), due = b->look_ns;

	if (b->nl && (b->todo.len || b->dump.nl || b->behind || b->phase == PASS_KERNEL)) {
		*wait_ms = 0;
		return;
	}
	if (b->nl && b->phase == PASS_PINNED && b->read_ns < due)
		due = b->read_ns;
	else if (b->nl && b->synced && b->phase == PASS_IDLE && b->pass_ns + PASS_PERIOD_NS < due)
		due = b->pass_ns + PASS_PERIOD_NS;
	if (due <= now)
		*wait_ms = 0;
	else if ((due - now) / 1000000 + 1 < (uint64_t)*wait_ms)
		*wait_ms = (int)((due - now) / 1000000 + 1);
}

/* The kernel never ages extern_learn entries: a device left to forward
 * by itself must not keep ones nobody refreshes. Static ones stay, and so
 * do a user's extern_learn ones. */
static void withdraw(struct brmirror *b)
{
	struct macset_slot *x;
	struct xdpbr_fdb_val v;

	for (size_t i = 0; i < b->km.cap; i++) {
		x = macset_at(&b->km, i);
		if (!x || !(x->flags & KM_EXTERN))
			continue;
		if (!lookup(b, x->mac, x->vlan, &v) && v.ifindex == x->val &&
		    v.flags & XDPBR_FDB_EXTERN)
			continue;
		if (b->w->n == KFDB_BATCH)
			kfdb_flush(b->w);
		kfdb_put_vlan(b->w, x->val, x->mac, x->vlan, false, KFDB_EXTERN);
	}
}

void brmirror_close(struct brmirror *b, bool keep)
{
	if (b->w && !keep)
		withdraw(b);
	if (b->w)
		kfdb_flush(b->w);
	mirror_stop(b);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* evpn.c - the overlay and the FDB mirror for FRR's zebra (see evpn.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <linux/neighbour.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <bpf/bpf.h>

#include "bridge.h"
#include "ctl.h"
#include "evpn.h"
#include "fdbtab.h"
#include "kfdb.h"
#include "log.h"
#include "util.h"
#include "xdpbr_rules.h"

/* The overlay carries the bridge's untagged LAN: FDB key VLAN 0 (a
 * VLAN-unaware bridge), the kernel bridge's only VLAN. */
#define EVPN_VLAN	0

static uint32_t gw(const struct evpn *e)
{
	return e->ov.ifindex[OV_GW];
}

static uint32_t gwk(const struct evpn *e)
{
	return e->ov.ifindex[OV_GWK];
}

static uint32_t vx(const struct evpn *e)
{
	return e->ov.ifindex[OV_VXLAN];
}

static void vxlan_of(const struct config_vxlan *c, struct vxlan_info *v)
{
	memset(v, 0, sizeof(*v));
	v->vni = c->vni;
	v->local = c->local_ip;
	v->dstport = c->dstport;
	v->link = c->underlay[0] ? if_nametoindex(c->underlay) : 0;
}

int evpn_open(struct evpn *e, const char *bridge, const struct config_vxlan *c,
	      const struct xdpbr_maps *m)
{
	char why[160], ip[INET_ADDRSTRLEN];
	int err;

	memset(e, 0, sizeof(*e));
	vxlan_of(c, &e->vx);
	if (c->underlay[0] && !e->vx.link) {
		log_err("[vxlan] underlay %s: no such interface", c->underlay);
		return -ENODEV;
	}
	err = overlay_find(bridge, &e->ov, why, sizeof(why));
	if (err == -EEXIST) {
		log_err("%s: delete or rename it; the overlay's objects are named after the "
			"bridge", why);
		return err;
	}
	if (err) {
		log_err("Couldn't look for the overlay of bridge %s: %s", bridge, strerror(-err));
		return err;
	}
	inet_ntop(AF_INET, &c->local_ip, ip, sizeof(ip));
	if (overlay_matches(&e->ov, &e->vx)) {
		log_info("overlay: taken over (vni %u, local %s, %s in %s, gateway port %s)",
			 c->vni, ip, e->ov.name[OV_VXLAN], e->ov.name[OV_KBRIDGE],
			 e->ov.name[OV_GW]);
		return 0;
	}
	/* Some missing or other settings: made anew, and the old gateway
	 * port's pinned entry goes with its interface. */
	if (e->ov.ifindex[OV_GW])
		ctl_port_remove(m, e->ov.ifindex[OV_GW]);
	overlay_delete(&e->ov);
	err = overlay_create(bridge, &e->vx, &e->ov);
	if (err)
		return err;
	e->made = true;
	log_info("overlay: vni %u, local %s, dstport %u%s%s: vxlan %s in kernel bridge %s, "
		 "gateway port %s", c->vni, ip, c->dstport, c->underlay[0] ? ", underlay " : "",
		 c->underlay, e->ov.name[OV_VXLAN], e->ov.name[OV_KBRIDGE], e->ov.name[OV_GW]);
	return 0;
}

static void resync_start(struct evpn *e);

static int mirror_open(struct evpn *e)
{
	struct bpf_map_info mi = {};
	__u32 len = sizeof(mi);
	int err;

	/* The kernel's picture sized for a full FDB: it need not grow. */
	if (bpf_obj_get_info_by_fd(e->maps->fdb, &mi, &len))
		mi.max_entries = 0;
	err = macset_init(&e->km, mi.max_entries);
	e->batch = err ? NULL : calloc(FDB_BATCH, sizeof(*e->batch));
	e->w = e->batch ? calloc(1, sizeof(*e->w)) : NULL;
	if (!e->w)
		return -ENOMEM;
	err = kfdb_writer_open(e->w);
	if (err)
		return err;
	e->nl = kfdb_watch_open();
	return e->nl ? 0 : -errno;
}

int evpn_attach(struct evpn *e, struct bridge *br)
{
	struct xdpbr_port p;
	int err;

	e->maps = &br->maps;
	if (bridge_port_path(br, e->ov.name[OV_GW]) == PORT_PATH_XDP) {
		err = overlay_xdp_ready(&e->ov);
		if (err)
			log_warn("overlay: Couldn't set GRO on and transmit checksum offload "
				 "off on %s/%s for the XDP path: %s", e->ov.name[OV_GW],
				 e->ov.name[OV_GWK], strerror(-err));
	}
	err = ctl_port_get(&br->maps, gw(e), &p);
	if (err == -ENODEV)
		err = bridge_add_port(br, e->ov.name[OV_GW]);
	if (err) {
		log_err("overlay: Couldn't make %s a port: %s", e->ov.name[OV_GW], strerror(-err));
		return err;
	}
	err = mirror_open(e);
	if (err) {
		log_err("overlay: Couldn't watch and write the kernel's FDB over netlink: %s",
			strerror(-err));
		return err;
	}
	resync_start(e);
	return 0;
}

int evpn_fd(const struct evpn *e)
{
	return e->nl ? mnl_socket_get_fd(e->nl) : -1;
}

/* --- the kernel's picture (e->km) --- */

/* A slot's flags: what the kernel bridge holds for its MAC, and where the
 * mirror is with it. */
#define KM_LOCAL	0x01	/* an extern_learn entry on the gateway's kernel end */
#define KM_REMOTE	0x02	/* one on the vxlan device: zebra's */
#define KM_HELD		(KM_LOCAL | KM_REMOTE)
#define KM_QUEUED	0x04	/* in e->todo */
#define KM_ASKED_ADD	0x08	/* we asked for KM_LOCAL: its notification needs no look */
#define KM_ASKED_DEL	0x10	/* we asked for it to go */
#define KM_DUMPED	0x20	/* met by the resync dump under way */
#define KM_NOTIFIED	0x40	/* notified of since the resync dump began */

enum { PASS_IDLE, PASS_PINNED, PASS_KERNEL };

static uint32_t kbr(const struct evpn *e)
{
	return e->ov.ifindex[OV_KBRIDGE];
}

/* Logged together, once a second (evpn_step): a failing write must not
 * flood the log from every pass. */
static void failed(struct evpn *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failed(struct evpn *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->fail_why, sizeof(e->fail_why), fmt, ap);
	va_end(ap);
	e->failed++;
}

static void failures_report(struct evpn *e, uint64_t now)
{
	if (now - e->failed_ns < XDPBR_NSEC_PER_SEC)
		return;
	if (e->failed)
		log_warn("overlay: %u change%s of the FDBs failed in the last %.0f s (the last: %s); "
			 "the repair pass tries again", e->failed, e->failed == 1 ? "" : "s",
			 (double)(now - e->failed_ns) / 1e9, e->fail_why);
	e->failed = 0;
	e->failed_ns = now;
}

/* mac's slot, made if it was not there (NULL: no memory; the next pass
 * finds the MAC again). A new one is not marked as met by the pass. */
static struct macset_slot *km_get(struct evpn *e, const uint8_t mac[6])
{
	bool grew;
	struct macset_slot *x = macset_add(&e->km, mac, &grew);

	if (grew)
		e->pass.slot = 0;	/* slots moved: the kernel walk starts over */
	if (x && !x->flags)
		x->mark = (uint8_t)(e->pass.no - 1);
	return x;
}

/* A slot that holds nothing and waits for nothing goes. */
static void km_settle(struct evpn *e, struct macset_slot *x)
{
	if (x && !x->flags)
		macset_del(&e->km, x);
}

/* mac to be brought in line (once in the queue however often asked). */
static void queue(struct evpn *e, const uint8_t mac[6])
{
	struct macset_slot *x = km_get(e, mac);

	if (!x || x->flags & KM_QUEUED)
		return;
	if (macq_push(&e->todo, mac)) {
		km_settle(e, x);
		return;
	}
	x->flags |= KM_QUEUED;
}

/* --- the one rule --- */

enum act { ACT_NONE, ACT_LOCAL_ADD, ACT_LOCAL_DEL, ACT_REMOTE_SET, ACT_REMOTE_DEL };

/* What brings a MAC's kernel entry (held: KM_LOCAL, KM_REMOTE or 0) and its
 * pinned one (x, NULL if none) in line. */
static enum act act_of(const struct evpn *e, const struct xdpbr_fdb_val *x, unsigned int held,
		       uint64_t now)
{
	bool local = x && x->ifindex != gw(e) && !xdpbr_fdb_stale(x, now, e->ageing_ns);
	bool remote = x && x->ifindex == gw(e) && x->flags & XDPBR_FDB_REMOTE;

	if (held == KM_REMOTE) {
		/* zebra's word beats a learned entry: it settled a move by
		 * sequence; a static entry of ours is asserted again */
		if (local && x->flags & XDPBR_FDB_STATIC)
			return ACT_LOCAL_ADD;
		return remote ? ACT_NONE : ACT_REMOTE_SET;
	}
	if (remote)
		return ACT_REMOTE_DEL;		/* zebra withdrew it */
	if (local && held != KM_LOCAL)
		return ACT_LOCAL_ADD;
	return !local && held == KM_LOCAL ? ACT_LOCAL_DEL : ACT_NONE;
}

static int local_put(struct evpn *e, const uint8_t mac[6], struct macset_slot *x, bool add)
{
	char s[MAC_STRLEN];
	int err = kfdb_put(e->w, gwk(e), mac, add);

	if (err)
		return err;
	x = x ?: km_get(e, mac);
	if (x) {
		x->flags &= ~(KM_ASKED_ADD | KM_ASKED_DEL);
		x->flags |= add ? KM_ASKED_ADD : KM_ASKED_DEL;
	}
	log_debug("overlay: local %s %s", mac_format(mac, s), add ? "advertised" : "withdrawn");
	return 0;
}

static void remote_write(struct evpn *e, const uint8_t mac[6], bool set)
{
	char s[MAC_STRLEN];
	int ret = set ? ctl_fdb_remote_set(e->maps, mac, EVPN_VLAN, gw(e))
		      : ctl_fdb_remote_del(e->maps, mac, EVPN_VLAN, gw(e));

	if (ret < 0)
		failed(e, "%s remote MAC %s: %s", set ? "writing" : "deleting", mac_format(mac, s),
		       strerror(-ret));
	else if (ret)
		log_debug("overlay: remote %s %s", mac_format(mac, s), set ? "installed" : "withdrawn");
}

/* Brings mac in line now: 0, or -ENOSPC (the writer is full this turn). */
static int check(struct evpn *e, const uint8_t mac[6], uint64_t now)
{
	struct xdpbr_fdb_key k = { .vlan = EVPN_VLAN };
	struct macset_slot *x = macset_find(&e->km, mac);
	struct xdpbr_fdb_val v;
	bool have;

	memcpy(k.mac, mac, 6);
	have = !bpf_map_lookup_elem(e->maps->fdb, &k, &v);
	switch (act_of(e, have ? &v : NULL, x ? x->flags & KM_HELD : 0, now)) {
	case ACT_LOCAL_ADD:
		return local_put(e, mac, x, true);
	case ACT_LOCAL_DEL:
		return local_put(e, mac, x, false);
	case ACT_REMOTE_SET:
		remote_write(e, mac, true);
		return 0;
	case ACT_REMOTE_DEL:
		remote_write(e, mac, false);
		return 0;
	default:
		return 0;
	}
}

/* The queue, EVPN_TURN_CHECKS of it at most; none while notifications
 * are left to read (each write makes one: the socket would overflow). */
static void drain(struct evpn *e, uint64_t now)
{
	struct macset_slot *x;
	uint8_t mac[6];

	for (int i = 0; !e->behind && i < EVPN_TURN_CHECKS && macq_pop(&e->todo, mac); i++) {
		x = macset_find(&e->km, mac);
		if (x)
			x->flags &= ~KM_QUEUED;
		if (check(e, mac, now) == -ENOSPC) {
			queue(e, mac);
			break;
		}
		km_settle(e, macset_find(&e->km, mac));
	}
}

/* --- what the kernel says --- */

/* Whether k is an entry of our kernel bridge the mirror cares for. */
static bool kernel_ours(const struct evpn *e, const struct kfdb_entry *k)
{
	return !(k->flags & NTF_SELF) && xdpbr_mac_station(k->mac) &&
	       (k->ifindex == gwk(e) || k->ifindex == vx(e) || k->master == kbr(e));
}

/* What an entry the kernel has (not a delete) is to the mirror. */
static unsigned int held_of(const struct evpn *e, const struct kfdb_entry *k)
{
	if (!(k->flags & NTF_EXT_LEARNED))
		return 0;
	return k->ifindex == gwk(e) ? KM_LOCAL : k->ifindex == vx(e) ? KM_REMOTE : 0;
}

/* Whether a notification is what we asked for (then no look is needed). */
static bool asked(struct macset_slot *x, const struct kfdb_entry *k, unsigned int held)
{
	unsigned int f = x->flags;

	x->flags &= ~(KM_ASKED_ADD | KM_ASKED_DEL);
	return (f & KM_ASKED_ADD && held == KM_LOCAL) || (f & KM_ASKED_DEL && k->deleted && !held);
}

/* A notification: the picture follows it, and the MAC is checked unless
 * the kernel did what we asked. During a resync the notifications are the
 * newer word (a part of the dump may have been made before them). */
static void on_neigh(const struct kfdb_entry *k, void *arg)
{
	struct evpn *e = arg;
	struct macset_slot *x;
	unsigned int was, held;

	if (!kernel_ours(e, k))
		return;
	x = k->deleted ? macset_find(&e->km, k->mac) : km_get(e, k->mac);
	if (!x)
		return;
	was = x->flags & KM_HELD;
	held = !k->deleted ? held_of(e, k) :
	       (was == KM_LOCAL && k->ifindex == gwk(e)) ||
	       (was == KM_REMOTE && k->ifindex == vx(e)) ? 0 : was;
	x->flags = (uint8_t)((x->flags & ~KM_HELD) | held | (e->dump.nl ? KM_NOTIFIED : 0));
	if (asked(x, k, held))
		km_settle(e, x);
	else
		queue(e, k->mac);
}

static void on_dumped(const struct kfdb_entry *k, void *arg)
{
	struct evpn *e = arg;
	struct macset_slot *x;
	unsigned int held;

	if (!kernel_ours(e, k) || !(held = held_of(e, k)))
		return;
	x = km_get(e, k->mac);
	if (x && !(x->flags & KM_NOTIFIED))
		x->flags = (uint8_t)((x->flags & ~KM_HELD) | held | KM_DUMPED);
	km_settle(e, x);
}

/* A dump of the kernel bridge's FDB, read a part a turn: at attach, and
 * when notifications were lost. The pass waits for it. */
static void resync_start(struct evpn *e)
{
	struct macset_slot *x;
	int err;

	for (size_t i = 0; i < e->km.cap; i++)
		if ((x = macset_at(&e->km, i)))
			x->flags &= ~(KM_DUMPED | KM_NOTIFIED);
	e->pass.phase = PASS_IDLE;
	err = kfdb_dump_start(&e->dump, kbr(e));
	e->resync = err != 0;
	e->resync_ns = mono_ns() + XDPBR_NSEC_PER_SEC;
	if (err)
		failed(e, "dumping the kernel bridge's FDB: %s", strerror(-err));
}

/* What neither the dump nor a notification met, the kernel doesn't hold
 * (slots left empty go in the next kernel walk). */
static void resync_end(struct evpn *e)
{
	struct macset_slot *x;

	for (size_t i = 0; i < e->km.cap; i++) {
		x = macset_at(&e->km, i);
		if (!x)
			continue;
		if (!(x->flags & (KM_DUMPED | KM_NOTIFIED)))
			x->flags &= ~KM_HELD;
		x->flags &= ~(KM_DUMPED | KM_NOTIFIED);
	}
	e->pass.start_ns = 0;	/* a pass now */
	log_debug("overlay: the kernel bridge's FDB read: %zu entries of ours", e->km.n);
}

static void resync_step(struct evpn *e, uint64_t now)
{
	int ret;

	if (e->resync && !e->dump.nl && now >= e->resync_ns)
		resync_start(e);
	if (!e->dump.nl)
		return;
	ret = kfdb_dump_step(&e->dump, on_dumped, e, EVPN_TURN_DUMP_READS);
	if (ret == 1) {
		resync_end(e);
		if (e->resync)
			resync_start(e);	/* notifications were lost meanwhile */
	} else if (ret < 0) {
		failed(e, "reading the kernel bridge's FDB: %s", strerror(-ret));
		e->resync = true;
		e->resync_ns = now + XDPBR_NSEC_PER_SEC;
	}
}

/* --- the repair pass --- */

static void pass_begin(struct evpn *e, uint64_t now)
{
	struct evpn_pass *p = &e->pass;
	struct xdpbr_config c;

	e->ageing_ns = xdpbr_ageing_ns(ctl_config_get(e->maps, &c) ? NULL : &c);
	p->phase = PASS_PINNED;
	p->no++;
	p->cursor = 0;
	p->slot = 0;
	p->start_ns = now;
	p->seen = p->queued = 0;
}

/* A pinned entry the walk met: its MAC queued if the kernel's picture
 * disagrees. */
static void pass_met(struct evpn *e, const struct fdb_entry *f, uint64_t now)
{
	struct macset_slot *x;

	if (f->key.vlan != EVPN_VLAN || !xdpbr_mac_station(f->key.mac))
		return;
	x = macset_find(&e->km, f->key.mac);
	if (x)
		x->mark = e->pass.no;
	if (act_of(e, &f->val, x ? x->flags & KM_HELD : 0, now) != ACT_NONE) {
		queue(e, f->key.mac);
		e->pass.queued++;
	}
}

/* One read of the pinned FDB, when the rate allows a whole one. */
static void pass_pinned(struct evpn *e, uint64_t now)
{
	struct evpn_pass *p = &e->pass;
	bool end = false;
	int n;

	if (p->tokens < FDB_BATCH)
		return;
	n = fdb_read(e->maps->fdb, &p->cursor, FDB_BATCH, e->batch, &end);
	if (n < 0 || (n == 0 && !end)) {
		failed(e, "reading the FDB for the repair pass: %s",
		       n < 0 ? strerror(-n) : "a bucket too large to read");
		p->phase = PASS_IDLE;
		return;
	}
	p->tokens -= (uint64_t)n;
	p->seen += (uint64_t)n;
	for (int i = 0; i < n; i++)
		pass_met(e, &e->batch[i], now);
	if (end)
		p->phase = PASS_KERNEL;
}

/* A pass that found work says so, and the first that found none after. */
static void pass_report(struct evpn *e, uint64_t now)
{
	const struct evpn_pass *p = &e->pass;
	double secs = (double)(now - p->start_ns) / 1e9;

	if (p->queued)
		log_info("overlay: repair pass: %llu MACs to bring in line (%llu pinned entries, "
			 "%zu in the kernel's picture, %.1f s)", (unsigned long long)p->queued,
			 (unsigned long long)p->seen, e->km.n, secs);
	else if (e->repairing)
		log_info("overlay: repair pass: the FDBs agree (%llu pinned entries, %zu in the "
			 "kernel's picture, %.1f s)", (unsigned long long)p->seen, e->km.n, secs);
	e->repairing = p->queued != 0;
}

/* What the kernel holds that the walk of the pinned FDB did not meet,
 * EVPN_TURN_SCAN slots a turn; empty slots go. */
static void pass_kernel(struct evpn *e, uint64_t now)
{
	struct evpn_pass *p = &e->pass;
	size_t stop = p->slot + EVPN_TURN_SCAN;
	struct macset_slot *x;

	while (p->slot < stop && p->slot < e->km.cap) {
		x = macset_at(&e->km, p->slot);
		if (x && !x->flags) {
			macset_del(&e->km, x);	/* another may move into this slot */
			continue;
		}
		if (x && x->mark != p->no) {
			x->mark = p->no;
			if (x->flags & KM_HELD) {
				queue(e, x->mac);
				p->queued++;
			}
		}
		p->slot++;
	}
	if (p->slot < e->km.cap)
		return;
	p->phase = PASS_IDLE;
	pass_report(e, now);
}

static void pass_step(struct evpn *e, uint64_t now)
{
	struct evpn_pass *p = &e->pass;
	uint64_t dt = now - p->refill_ns;

	/* EVPN_PASS_RATE tokens a second, at most one read's worth saved */
	if (dt > XDPBR_NSEC_PER_SEC)
		dt = XDPBR_NSEC_PER_SEC;
	p->tokens += dt * EVPN_PASS_RATE / XDPBR_NSEC_PER_SEC;
	if (p->tokens > FDB_BATCH)
		p->tokens = FDB_BATCH;
	p->refill_ns = now;
	if (p->phase == PASS_IDLE && !e->dump.nl && !e->resync &&
	    now - p->start_ns >= EVPN_PASS_PERIOD_NS)
		pass_begin(e, now);
	if (p->phase == PASS_PINNED)
		pass_pinned(e, now);
	else if (p->phase == PASS_KERNEL)
		pass_kernel(e, now);
}

/* --- a turn --- */

static void on_refused(const struct kfdb_entry *req, int err, void *arg)
{
	struct evpn *e = arg;
	struct macset_slot *x = macset_find(&e->km, req->mac);
	char s[MAC_STRLEN];

	if (x)
		x->flags &= ~(KM_ASKED_ADD | KM_ASKED_DEL);
	km_settle(e, x);
	failed(e, "%s %s %s the kernel bridge's FDB: %s", req->deleted ? "deleting" : "adding",
	       mac_format(req->mac, s), req->deleted ? "from" : "to", strerror(-err));
}

void evpn_read(struct evpn *e)
{
	int ret;

	if (!e->nl || !e->maps)
		return;
	ret = kfdb_watch_read(e->nl, on_neigh, e, EVPN_TURN_READS);
	e->behind = ret == 1;
	if (ret == -ENOBUFS) {
		log_warn("overlay: notifications of the kernel's FDB were lost: reading it again");
		/* after the one under way, if any: it will have made progress */
		if (e->dump.nl)
			e->resync = true;
		else
			resync_start(e);
	} else if (ret < 0) {
		log_warn("overlay: reading FDB notifications: %s", strerror(-ret));
	}
}

void evpn_fdb_event(struct evpn *e, const struct xdpbr_event *ev)
{
	if (e->maps && ev->vlan == EVPN_VLAN && xdpbr_mac_station(ev->mac) &&
	    (ev->type == XDPBR_EV_LEARN || ev->type == XDPBR_EV_MOVE))
		queue(e, ev->mac);
}

void evpn_fdb_deleted(struct evpn *e, const struct xdpbr_fdb_key *k,
		      const struct xdpbr_fdb_val *v)
{
	if (e->maps && k->vlan == EVPN_VLAN && xdpbr_mac_station(k->mac))
		queue(e, k->mac);
}

void evpn_step(struct evpn *e)
{
	uint64_t now = mono_ns();
	int err;

	if (!e->maps || !e->nl)
		return;
	if (e->behind)
		evpn_read(e);	/* no wake-up comes for what is left queued */
	resync_step(e, now);
	pass_step(e, now);
	drain(e, now);
	err = kfdb_flush(e->w);
	if (err)
		failed(e, "writing to the kernel bridge's FDB: %s", strerror(-err));
	err = kfdb_writer_errors(e->w, on_refused, e, EVPN_TURN_READS);
	if (err)
		failed(e, "reading the kernel's answers: %s", strerror(-err));
	failures_report(e, now);
}

void evpn_wait(const struct evpn *e, int *wait_ms)
{
	const struct evpn_pass *p = &e->pass;
	uint64_t now, due;

	if (!e->maps || !e->nl)
		return;
	if (e->todo.len || e->dump.nl || e->behind || p->phase == PASS_KERNEL) {
		*wait_ms = 0;
		return;
	}
	now = mono_ns();
	if (p->phase == PASS_PINNED)
		due = p->refill_ns + (FDB_BATCH - p->tokens) * XDPBR_NSEC_PER_SEC / EVPN_PASS_RATE;
	else
		due = e->resync ? e->resync_ns : p->start_ns + EVPN_PASS_PERIOD_NS;
	if (due <= now)
		*wait_ms = 0;
	else if ((due - now) / 1000000 + 1 < (uint64_t)*wait_ms)
		*wait_ms = (int)((due - now) / 1000000 + 1);
}

void evpn_close(struct evpn *e, bool keep)
{
	if (e->nl)
		mnl_socket_close(e->nl);
	e->nl = NULL;
	if (e->w) {
		kfdb_flush(e->w);
		kfdb_writer_close(e->w);
	}
	free(e->w);
	e->w = NULL;
	kfdb_dump_stop(&e->dump);
	macset_free(&e->km);
	macq_free(&e->todo);
	free(e->batch);
	e->batch = NULL;
	e->maps = NULL;
	if (!keep && vx(e)) {
		overlay_delete(&e->ov);
		log_info("overlay deleted");
	}
}

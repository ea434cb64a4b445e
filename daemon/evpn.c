// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* evpn.c - the overlay and the FDB mirror for FRR's zebra (see evpn.h). */
#include <arpa/inet.h>
#include <errno.h>
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
	e->nl = kfdb_watch_open();
	if (!e->nl) {
		err = -errno;
		log_err("overlay: Couldn't watch the kernel's FDB over netlink: %s",
			strerror(-err));
		return err;
	}
	evpn_reconcile(e);
	return 0;
}

int evpn_fd(const struct evpn *e)
{
	return e->nl ? mnl_socket_get_fd(e->nl) : -1;
}

/* --- xdpbr -> kernel: local MACs --- */

static void local_set(struct evpn *e, const uint8_t mac[6], bool add)
{
	char s[MAC_STRLEN];
	int err = kfdb_set(gwk(e), mac, add);

	if (err)
		log_warn("overlay: Couldn't %s %s %s the kernel bridge's FDB: %s",
			 add ? "add" : "delete", mac_format(mac, s), add ? "to" : "from",
			 strerror(-err));
	else
		log_debug("overlay: local %s %s", mac_format(mac, s), add ? "advertised" :
			  "withdrawn");
}

void evpn_fdb_event(struct evpn *e, const struct xdpbr_event *ev)
{
	if (!e->maps || ev->vlan != EVPN_VLAN || !xdpbr_mac_station(ev->mac))
		return;
	if (ev->type == XDPBR_EV_LEARN || ev->type == XDPBR_EV_MOVE)
		local_set(e, ev->mac, ev->ifindex != gw(e));
}

void evpn_fdb_deleted(struct evpn *e, const struct xdpbr_fdb_key *k,
		      const struct xdpbr_fdb_val *v)
{
	if (e->maps && k->vlan == EVPN_VLAN && v->ifindex != gw(e) && xdpbr_mac_station(k->mac))
		local_set(e, k->mac, false);
}

/* --- kernel -> xdpbr: remote MACs --- */

/* zebra installed mac for a remote VTEP. It settled a move by the EVPN
 * sequence numbers, so its word beats a learned entry here (the host, if
 * it is still here after all, moves it back with its next frame); a static
 * entry of ours is asserted again as local instead. */
static void remote_install(struct evpn *e, const uint8_t mac[6])
{
	struct xdpbr_fdb_key k = { .vlan = EVPN_VLAN };
	struct xdpbr_fdb_val v;
	char s[MAC_STRLEN];
	int ret;

	memcpy(k.mac, mac, 6);
	if (!bpf_map_lookup_elem(e->maps->fdb, &k, &v) && v.ifindex != gw(e) &&
	    v.flags & XDPBR_FDB_STATIC) {
		local_set(e, mac, true);
		return;
	}
	ret = ctl_fdb_remote_set(e->maps, mac, EVPN_VLAN, gw(e));
	if (ret < 0)
		log_warn("overlay: Couldn't write remote MAC %s: %s", mac_format(mac, s),
			 strerror(-ret));
	else if (ret)
		log_debug("overlay: remote %s installed", mac_format(mac, s));
}

static void remote_remove(struct evpn *e, const uint8_t mac[6])
{
	char s[MAC_STRLEN];

	if (ctl_fdb_remote_del(e->maps, mac, EVPN_VLAN, gw(e)) > 0)
		log_debug("overlay: remote %s withdrawn", mac_format(mac, s));
}

/* An entry of the bridge (not the vxlan device's own, NTF_SELF) on the
 * vxlan device: what zebra installs for a remote MAC. */
static bool is_remote(const struct evpn *e, const struct kfdb_entry *k)
{
	return k->ifindex == vx(e) && !(k->flags & NTF_SELF) && xdpbr_mac_station(k->mac);
}

static void on_neigh(const struct kfdb_entry *k, void *arg)
{
	struct evpn *e = arg;

	if (!is_remote(e, k))
		return;
	if (k->deleted)
		remote_remove(e, k->mac);
	else if (k->flags & NTF_EXT_LEARNED)
		remote_install(e, k->mac);
}

void evpn_read(struct evpn *e)
{
	int err;

	if (!e->nl || !e->maps)
		return;
	err = kfdb_watch_read(e->nl, on_neigh, e);
	if (err == -ENOBUFS) {
		log_warn("overlay: FDB events were lost: reconciling");
		evpn_reconcile(e);
	} else if (err) {
		log_warn("overlay: reading FDB events: %s", strerror(-err));
	}
}

/* --- the reconcile pass --- */

struct macset {
	uint8_t (*mac)[6];
	size_t n, cap;
};

static int mac_cmp(const void *a, const void *b)
{
	return memcmp(a, b, 6);
}

static void macset_add(struct macset *s, const uint8_t mac[6])
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		void *t = realloc(s->mac, cap * 6);

		if (!t)
			return;		/* the next pass tries again */
		s->mac = t;
		s->cap = cap;
	}
	memcpy(s->mac[s->n++], mac, 6);
}

static bool macset_has(const struct macset *s, const uint8_t mac[6])
{
	return s->n && bsearch(mac, s->mac, s->n, 6, mac_cmp);
}

struct kstate {
	const struct evpn *e;
	struct macset local, remote;
};

static void on_dump(const struct kfdb_entry *k, void *arg)
{
	struct kstate *ks = arg;

	if (k->deleted || !(k->flags & NTF_EXT_LEARNED) || !xdpbr_mac_station(k->mac))
		return;
	if (k->ifindex == gwk(ks->e))
		macset_add(&ks->local, k->mac);
	else if (is_remote(ks->e, k))
		macset_add(&ks->remote, k->mac);
}

static int entry_cmp(const void *key, const void *elem)
{
	const struct fdb_entry *x = elem;

	if (x->key.vlan != EVPN_VLAN)
		return EVPN_VLAN < x->key.vlan ? -1 : 1;
	return memcmp(key, x->key.mac, 6);
}

/* The entry for mac in VLAN 0 of the sorted dump, or NULL. */
static const struct fdb_entry *find(const struct fdb_entry *t, size_t n, const uint8_t mac[6])
{
	return n ? bsearch(mac, t, n, sizeof(*t), entry_cmp) : NULL;
}

struct pass {
	struct evpn *e;
	const struct fdb_entry *t;
	size_t n;
	uint64_t now, ageing;
};

/* Alive on a port of ours: what the kernel bridge should hold as local. */
static bool is_local(const struct pass *ps, const struct fdb_entry *x)
{
	return x && x->val.ifindex != gw(ps->e) &&
	       !xdpbr_fdb_stale(&x->val, ps->now, ps->ageing);
}

static void reconcile_xdpbr(struct pass *ps, const struct kstate *ks)
{
	for (size_t i = 0; i < ps->n; i++) {
		const struct fdb_entry *x = &ps->t[i];

		if (x->key.vlan != EVPN_VLAN || !xdpbr_mac_station(x->key.mac))
			continue;
		if (x->val.ifindex == gw(ps->e) && x->val.flags & XDPBR_FDB_REMOTE &&
		    !macset_has(&ks->remote, x->key.mac))
			remote_remove(ps->e, x->key.mac);
		else if (is_local(ps, x) && macset_has(&ks->remote, x->key.mac))
			remote_install(ps->e, x->key.mac);
		else if (is_local(ps, x) && !macset_has(&ks->local, x->key.mac))
			local_set(ps->e, x->key.mac, true);
	}
}

static void reconcile_kernel(struct pass *ps, const struct kstate *ks)
{
	for (size_t i = 0; i < ks->local.n; i++)
		if (!is_local(ps, find(ps->t, ps->n, ks->local.mac[i])))
			local_set(ps->e, ks->local.mac[i], false);
	for (size_t i = 0; i < ks->remote.n; i++) {
		const struct fdb_entry *x = find(ps->t, ps->n, ks->remote.mac[i]);

		if (!x || (x->val.ifindex == gw(ps->e) && !(x->val.flags & XDPBR_FDB_REMOTE)))
			remote_install(ps->e, ks->remote.mac[i]);
	}
}

void evpn_reconcile(struct evpn *e)
{
	struct kstate ks = { .e = e };
	struct pass ps = { .e = e, .now = mono_ns() };
	struct fdb_entry *t = NULL;
	struct xdpbr_config c;
	int err;

	if (!e->maps || !e->nl)
		return;
	err = kfdb_dump(on_dump, &ks);
	if (!err)
		err = fdb_dump(e->maps->fdb, &t, &ps.n);
	if (err) {
		log_warn("overlay: reconcile: %s", strerror(-err));
		goto out;
	}
	qsort(ks.local.mac, ks.local.n, 6, mac_cmp);
	qsort(ks.remote.mac, ks.remote.n, 6, mac_cmp);
	ps.t = t;
	ps.ageing = xdpbr_ageing_ns(ctl_config_get(e->maps, &c) ? NULL : &c);
	reconcile_xdpbr(&ps, &ks);
	reconcile_kernel(&ps, &ks);
out:
	free(t);
	free(ks.local.mac);
	free(ks.remote.mac);
}

void evpn_close(struct evpn *e, bool keep)
{
	if (e->nl)
		mnl_socket_close(e->nl);
	e->nl = NULL;
	e->maps = NULL;
	if (!keep && vx(e)) {
		overlay_delete(&e->ov);
		log_info("overlay deleted");
	}
}

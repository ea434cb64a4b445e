// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* mcast.c - the kernel bridge's MDB, mirrored into the datapath (mcast.h). */
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <bpf/bpf.h>

#include "bridge.h"
#include "ctl.h"
#include "hostif.h"
#include "kbridge.h"
#include "log.h"
#include "mcast.h"
#include "netlink.h"
#include "util.h"

#define LOOK_PERIOD_NS	XDPBR_NSEC_PER_SEC
#define CS_NS		10000000ULL	/* a centisecond, the kernel's clock_t */
#define MAX_ROUTERS	XDPBR_MAX_PORTS

/* What one read of the kernel found. */
struct kentry {
	struct xdpbr_mdb_key key;
	uint32_t ifindex;		/* a member port (or the bridge: the host) */
};

struct kview {
	uint32_t kbr;
	struct kentry *e;
	size_t n, cap;
	uint32_t router[MAX_ROUTERS];	/* router ports' ifindexes */
	__u32 router_fam[MAX_ROUTERS];	/* ... XDPBR_MROUTER_IP4/6 each */
	size_t nrouter;
	int err;
	struct kbr_mcast set;		/* the bridge's settings */
};

void mcast_init(struct mcast *m, struct bridge *br)
{
	memset(m, 0, sizeof(*m));
	m->br = br;
	m->next_gid = 1;
}

int mcast_fd(const struct mcast *m)
{
	return m->nl ? mnl_socket_get_fd(m->nl) : -1;
}

static int note_cb(const struct nlmsghdr *nlh, void *data)
{
	((struct mcast *)data)->dirty = true;
	return MNL_CB_OK;
}

void mcast_read(struct mcast *m)
{
	if (m->nl && nl_read_all(m->nl, note_cb, m) == -ENOBUFS)
		m->dirty = true;
}

/* --- reading the kernel --- */

static int entry_add(struct kview *v, const struct br_mdb_entry *be)
{
	struct kentry *e;

	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		struct kentry *ne = realloc(v->e, cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		v->e = ne;
		v->cap = cap;
	}
	e = &v->e[v->n];
	memset(e, 0, sizeof(*e));
	e->ifindex = be->ifindex;
	e->key.vid = be->vid;
	if (be->addr.proto == htons(ETH_P_IP)) {
		e->key.proto = XDPBR_MDB_IP4;
		memcpy(e->key.addr, &be->addr.u.ip4, 4);
	} else if (be->addr.proto == htons(ETH_P_IPV6)) {
		e->key.proto = XDPBR_MDB_IP6;
		memcpy(e->key.addr, &be->addr.u.ip6, 16);
	} else {
		e->key.proto = XDPBR_MDB_L2;
		memcpy(e->key.addr, be->addr.u.mac_addr, 6);
	}
	v->n++;
	return 0;
}

/* An (S,G) entry of IGMPv3/MLDv2 carries its source (MDBA_MDB_EATTR_SOURCE):
 * the datapath keys groups only, so the port counts for the group. */
static int mdb_entry_cb(const struct nlattr *a, void *data)
{
	struct kview *v = data;

	if (mnl_attr_get_type(a) == MDBA_MDB_ENTRY_INFO &&
	    mnl_attr_get_payload_len(a) >= sizeof(struct br_mdb_entry) && !v->err)
		v->err = entry_add(v, mnl_attr_get_payload(a));
	return MNL_CB_OK;
}

static int mdb_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == MDBA_MDB_ENTRY)
		mnl_attr_parse_nested(a, mdb_entry_cb, data);
	return MNL_CB_OK;
}

/* A router port's attributes: a timer per family it is a router port of. */
static int router_attr_cb(const struct nlattr *a, void *data)
{
	__u32 *fam = data;

	if (mnl_attr_get_type(a) == MDBA_ROUTER_PATTR_INET_TIMER)
		*fam |= XDPBR_MROUTER_IP4;
	else if (mnl_attr_get_type(a) == MDBA_ROUTER_PATTR_INET6_TIMER)
		*fam |= XDPBR_MROUTER_IP6;
	return MNL_CB_OK;
}

/* MDBA_ROUTER_PORT: the port's ifindex (a u32), then its attributes. A
 * kernel that gives no family timers gives a router of both. */
static int router_cb(const struct nlattr *a, void *data)
{
	struct kview *v = data;
	const char *p = mnl_attr_get_payload(a);
	uint16_t len = mnl_attr_get_payload_len(a);
	__u32 fam = 0;

	if (mnl_attr_get_type(a) != MDBA_ROUTER_PORT || len < 4 || v->nrouter >= MAX_ROUTERS)
		return MNL_CB_OK;
	memcpy(&v->router[v->nrouter], p, 4);
	if (len > 4)
		mnl_attr_parse_payload(p + 4, len - 4, router_attr_cb, &fam);
	v->router_fam[v->nrouter++] = fam ? fam : XDPBR_MROUTER_IP4 | XDPBR_MROUTER_IP6;
	return MNL_CB_OK;
}

static int top_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == MDBA_MDB)
		mnl_attr_parse_nested(a, mdb_cb, data);
	else if (mnl_attr_get_type(a) == MDBA_ROUTER)
		mnl_attr_parse_nested(a, router_cb, data);
	return MNL_CB_OK;
}

static int mdb_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct br_port_msg *bpm = mnl_nlmsg_get_payload(nlh);
	struct kview *v = data;

	/* A dump's messages say RTM_GETMDB (br_mdb_dump), notifications NEWMDB. */
	if ((nlh->nlmsg_type == RTM_GETMDB || nlh->nlmsg_type == RTM_NEWMDB) &&
	    bpm->ifindex == v->kbr)
		mnl_attr_parse(nlh, sizeof(*bpm), top_cb, v);
	return MNL_CB_OK;
}

static int mdb_dump(struct kview *v)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct br_port_msg *bpm;
	int err;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETMDB;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	bpm = mnl_nlmsg_put_extra_header(nlh, sizeof(*bpm));
	bpm->family = AF_BRIDGE;
	bpm->ifindex = v->kbr;
	err = nl_request(nlh, mdb_msg_cb, v);
	return err ? err : v->err;
}

/* Whether the bridge device has an IPv6 address: the kernel's own MLD
 * querier needs one to send from. */
static bool has_ipv6(const char *name)
{
	struct ifaddrs *all, *i;
	bool found = false;

	if (getifaddrs(&all))
		return false;
	for (i = all; i && !found; i = i->ifa_next)
		found = i->ifa_addr && i->ifa_addr->sa_family == AF_INET6 &&
			!strcmp(i->ifa_name, name);
	freeifaddrs(all);
	return found;
}

/* --- writing the datapath --- */

static const struct xdpbr_maps *maps(const struct mcast *m)
{
	return &m->br->maps;
}

static uint32_t slot_of(const struct mcast *m, uint32_t ifindex)
{
	struct xdpbr_port p;

	return ifindex && !ctl_port_get(maps(m), ifindex, &p) ? p.slot : 0;
}

static struct mcast_group *group_find(struct mcast_group *g, size_t n,
				      const struct xdpbr_mdb_key *k)
{
	for (size_t i = 0; i < n; i++)
		if (!memcmp(&g[i].key, k, sizeof(*k)))
			return &g[i];
	return NULL;
}

/* The groups of v, each with the id it had (else a new one). */
static struct mcast_group *groups_of(struct mcast *m, const struct kview *v, size_t *n)
{
	struct mcast_group *g = calloc(v->n ? v->n : 1, sizeof(*g)), *old;

	*n = 0;
	for (size_t i = 0; g && i < v->n; i++) {
		if (group_find(g, *n, &v->e[i].key))
			continue;
		g[*n].key = v->e[i].key;
		old = group_find(m->groups, m->ngroups, &v->e[i].key);
		g[*n].gid = old ? old->gid : m->next_gid++;
		if (m->next_gid > XDPBR_MDB_GID_MAX)
			m->next_gid = 1;	/* 2^30 groups later */
		(*n)++;
	}
	return g;
}

static bool member_wanted(const struct mcast *m, const struct kview *v,
			  const struct mcast_group *g, size_t ng,
			  const struct xdpbr_mdb_port_key *k)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct mcast_group *x = group_find((struct mcast_group *)g, ng, &v->e[i].key);

		if (x && x->gid == k->gid && slot_of(m, v->e[i].ifindex) == k->slot)
			return true;
	}
	return false;
}

/* Members first, then groups; stale groups go before their members, so a
 * frame never finds a group without the ports it had. */
static void write_groups(struct mcast *m, const struct kview *v)
{
	const struct xdpbr_maps *mp = maps(m);
	struct xdpbr_mdb_port_key k, next, *prev = NULL;
	struct mcast_group *g;
	const __u32 one = 1;
	size_t ng;

	g = groups_of(m, v, &ng);
	if (!g) {
		log_warn("bridge %s: Couldn't mirror the MDB: %s", m->br->name, strerror(ENOMEM));
		return;
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct mcast_group *x = group_find(g, ng, &v->e[i].key);
		struct xdpbr_mdb_port_key pk = { .gid = x->gid, .slot = slot_of(m, v->e[i].ifindex) };

		if (pk.slot && bpf_map_update_elem(mp->mdb_port, &pk, &one, BPF_ANY))
			log_warn("bridge %s: Couldn't write an MDB port entry: %s", m->br->name,
				 strerror(errno));
	}
	for (size_t i = 0; i < ng; i++)
		if (bpf_map_update_elem(mp->mdb, &g[i].key, &g[i].gid, BPF_ANY))
			log_warn("bridge %s: Couldn't write an MDB group: %s", m->br->name,
				 strerror(errno));
	for (size_t i = 0; i < m->ngroups; i++)
		if (!group_find(g, ng, &m->groups[i].key))
			bpf_map_delete_elem(mp->mdb, &m->groups[i].key);
	while (!bpf_map_get_next_key(mp->mdb_port, prev, &next)) {
		k = next;
		if (!member_wanted(m, v, g, ng, &k)) {
			bpf_map_delete_elem(mp->mdb_port, &k);
			continue;	/* from the same key again: it is gone */
		}
		prev = &k;
	}
	free(m->groups);
	m->groups = g;
	m->ngroups = ng;
}

static void write_routers(struct mcast *m, const struct kview *v)
{
	for (__u32 slot = 1; slot < XDPBR_MAX_PORTS; slot++) {
		__u32 want = 0, cur = 0;

		for (size_t i = 0; i < v->nrouter; i++)
			if (slot_of(m, v->router[i]) == slot)
				want |= v->router_fam[i];
		if (!bpf_map_lookup_elem(maps(m)->mrouter, &slot, &cur) && cur != want)
			bpf_map_update_elem(maps(m)->mrouter, &slot, &want, BPF_ANY);
	}
}

/* The kernel's "a querier exists" (br_multicast_querier_exists): its own
 * (mcast_querier, and for MLD an IPv6 address to send from) or another's
 * heard lately, once the query response interval has passed since
 * either appeared, which it waits for the hosts' reports. */
static __u32 mcast_flags(struct mcast *m, const struct kbr_mcast *v, uint64_t now)
{
	uint64_t delay = v->resp_cs * CS_NS;
	bool own_ok, v6;
	__u32 f = 0;

	if (!v->snooping) {
		m->querier_on_ns = 0;
		return 0;
	}
	f |= XDPBR_MCAST_SNOOPING;
	if (!v->querier && !v->other4 && !v->other6)
		m->querier_on_ns = 0;
	else if (!m->querier_on_ns)
		m->querier_on_ns = now;
	own_ok = m->querier_on_ns && now - m->querier_on_ns >= delay;
	v6 = v->querier && has_ipv6(m->br->name);
	if (own_ok && (v->querier || v->other4))
		f |= XDPBR_MCAST_QUERIER4;
	if (own_ok && (v6 || v->other6))
		f |= XDPBR_MCAST_QUERIER6;
	return f;
}

static void write_state(struct mcast *m, __u32 flags)
{
	char host[IF_NAMESIZE];
	struct xdpbr_mcast st = { .flags = flags }, cur;
	__u32 zero = 0;

	hostif_port_name(m->br->name, host);
	st.host_slot = slot_of(m, if_nametoindex(host));
	if (bpf_map_lookup_elem(maps(m)->mcast, &zero, &cur) || memcmp(&cur, &st, sizeof(st)))
		bpf_map_update_elem(maps(m)->mcast, &zero, &st, BPF_ANY);
}

static void sync_all(struct mcast *m)
{
	struct kview v = { .kbr = m->kbr };
	int err = kbr_mcast_get(m->kbr, &v.set);

	if (err == -ENOTSUP)	/* a kernel without snooping: none to mirror */
		err = 0;
	if (!err && v.set.snooping)
		err = mdb_dump(&v);
	if (err) {
		log_warn("bridge %s: Couldn't read the Linux bridge's MDB: %s", m->br->name,
			 strerror(-err));
		free(v.e);
		return;
	}
	/* Groups and routers before the flags that make the datapath use them. */
	write_groups(m, &v);
	write_routers(m, &v);
	write_state(m, mcast_flags(m, &v.set, mono_ns()));
	free(v.e);
}

static void clear_all(struct mcast *m)
{
	struct kview v = { 0 };

	write_state(m, 0);
	write_groups(m, &v);
	write_routers(m, &v);
}

/* The groups the maps hold from an earlier run (the pins outlive the
 * daemon): known, so the first write deletes what the kernel no longer
 * has, and no new id is one of theirs. */
static void adopt(struct mcast *m)
{
	struct xdpbr_mdb_key k, *prev = NULL;
	struct mcast_group *g;
	__u32 gid;

	while (!bpf_map_get_next_key(maps(m)->mdb, prev, &k)) {
		g = realloc(m->groups, (m->ngroups + 1) * sizeof(*g));
		if (!g)
			break;
		m->groups = g;
		if (bpf_map_lookup_elem(maps(m)->mdb, &k, &gid))
			break;
		g[m->ngroups].key = k;
		g[m->ngroups].gid = gid;
		prev = &g[m->ngroups++].key;
		if (gid >= m->next_gid && gid < XDPBR_MDB_GID_MAX)
			m->next_gid = gid + 1;
	}
}

void mcast_step(struct mcast *m)
{
	uint64_t now = mono_ns();
	uint32_t kbr;

	if (!m->dirty && now < m->look_ns)
		return;
	m->dirty = false;
	m->look_ns = now + LOOK_PERIOD_NS;
	kbr = if_nametoindex(m->br->name);
	if (kbr && kbr_is_bridge(kbr) != 1)
		kbr = 0;
	if (kbr != m->kbr && m->kbr) {
		clear_all(m);
		m->kbr = 0;
	}
	if (kbr && !m->nl) {
		m->nl = nl_subscribe(1U << (RTNLGRP_MDB - 1));
		if (!m->nl)
			log_warn("bridge %s: Couldn't watch the MDB (reading it once a second): %s",
				 m->br->name, strerror(errno));
	}
	if (!kbr)
		return;
	if (!m->kbr) {
		log_info("bridge %s: mirroring the Linux bridge device's multicast snooping",
			 m->br->name);
		adopt(m);
	}
	m->kbr = kbr;
	sync_all(m);
}

/* With no mirror the datapath floods, as without snooping: the maps left
 * behind would prune by a state nobody keeps up to date. */
void mcast_close(struct mcast *m)
{
	if (m->kbr)
		clear_all(m);
	if (m->nl)
		mnl_socket_close(m->nl);
	m->nl = NULL;
	free(m->groups);
	m->groups = NULL;
	m->ngroups = 0;
	m->kbr = 0;
}

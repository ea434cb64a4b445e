// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* mdbmirror.c - the kernel bridge's MDB, mirrored into the datapath (mdbmirror.h). */
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <bpf/bpf.h>

#include "bridge.h"
#include "ctl.h"
#include "hostif.h"
#include "kbridge.h"
#include "log.h"
#include "mdbmirror.h"
#include "netlink.h"
#include "util.h"

#define LOOK_PERIOD_NS	XDPBR_NSEC_PER_SEC
#define MAX_ROUTERS	XDPBR_MAX_PORTS

/* At most this many entries a resync finds changed are written one by
 * one; more (notifications lost) and it writes all and prunes. */
#define DIFF_MAX	256

/* What one read of the kernel found (a dump, or one notification). */
struct kview {
	uint32_t kbr;
	struct mcast_member *e;
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
	m->full = true;
}

int mcast_fd(const struct mcast *m)
{
	return m->nl ? mnl_socket_get_fd(m->nl) : -1;
}

/* --- reading the kernel --- */

/* Room for one more in *a (n held, *cap allocated). 0 or -ENOMEM. */
static int reserve(void **a, size_t n, size_t *cap, size_t sz)
{
	size_t c = *cap ? 2 * *cap : 64;
	void *na;

	if (n < *cap)
		return 0;
	na = realloc(*a, c * sz);
	if (!na)
		return -ENOMEM;
	*a = na;
	*cap = c;
	return 0;
}

/* An entry's attributes of interest: its source, and its port's filter
 * mode (given in IGMPv3/MLDv2 mode only). */
struct eattrs {
	struct mcast_member *e;
	int mode;
};

static int src_cb(const struct nlattr *a, void *data)
{
	struct eattrs *ea = data;
	uint16_t len = mnl_attr_get_payload_len(a);

	if (mnl_attr_get_type(a) == MDBA_MDB_EATTR_SOURCE && len <= sizeof(ea->e->src))
		memcpy(ea->e->src, mnl_attr_get_payload(a), len);
	else if (mnl_attr_get_type(a) == MDBA_MDB_EATTR_GROUP_MODE &&
		 !mnl_attr_validate(a, MNL_TYPE_U8))
		ea->mode = mnl_attr_get_u8(a);
	return MNL_CB_OK;
}

static bool src_any(const __u8 *src)
{
	static const __u8 zero[16];

	return memcmp(src, zero, sizeof(zero)) != 0;
}

/*
 * MDBA_MDB_ENTRY_INFO: a struct br_mdb_entry, then its own attributes
 * (MDBA_MDB_EATTR_*). The source of an (S,G) entry makes it a group of
 * its own in the datapath. Whether the kernel forwards to the entry's
 * port is its br_multicast_flood's: never to a blocked source's port of
 * an (S,G) entry, and, in IGMPv3/MLDv2 mode (where the kernel gives a
 * filter mode), not to a (*,G) entry's port in INCLUDE mode, which wants
 * its sources only: their (S,G) entries name it.
 */
static int entry_add(struct kview *v, const struct nlattr *a)
{
	const struct br_mdb_entry *be = mnl_attr_get_payload(a);
	uint16_t len = mnl_attr_get_payload_len(a), off = MNL_ALIGN(sizeof(*be));
	struct eattrs ea = { .mode = -1 };
	struct mcast_member *e;

	if (reserve((void **)&v->e, v->n, &v->cap, sizeof(*v->e)))
		return -ENOMEM;
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
	ea.e = e;
	if (len > off)
		mnl_attr_parse_payload((const char *)be + off, len - off, src_cb, &ea);
	e->fwd = !(be->flags & MDB_FLAGS_BLOCKED) &&
		 (src_any(e->src) || ea.mode != MCAST_INCLUDE);
	v->n++;
	return 0;
}

static int mdb_entry_cb(const struct nlattr *a, void *data)
{
	struct kview *v = data;

	if (mnl_attr_get_type(a) == MDBA_MDB_ENTRY_INFO &&
	    mnl_attr_get_payload_len(a) >= sizeof(struct br_mdb_entry) && !v->err)
		v->err = entry_add(v, a);
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

	/* A dump's messages say RTM_GETMDB (br_mdb_dump), notifications NEWMDB
	 * or DELMDB. */
	if ((nlh->nlmsg_type == RTM_GETMDB || nlh->nlmsg_type == RTM_NEWMDB ||
	     nlh->nlmsg_type == RTM_DELMDB) &&
	    nlh->nlmsg_len >= mnl_nlmsg_size(sizeof(*bpm)) && bpm->ifindex == v->kbr)
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

/* Both arrays are kept sorted: groups by {key, src}, members by {key,
 * src} and port, so a group's members are one run and every lookup a
 * bisection. (Both begin as struct xdpbr_mdb_src_key does: gkey_cmp
 * compares either with such a key.) */
_Static_assert(offsetof(struct mcast_group, key) == offsetof(struct xdpbr_mdb_src_key, grp) &&
		       offsetof(struct mcast_group, src) == offsetof(struct xdpbr_mdb_src_key, src),
	       "a group begins with its datapath key");
_Static_assert(offsetof(struct mcast_member, key) == offsetof(struct xdpbr_mdb_src_key, grp) &&
		       offsetof(struct mcast_member, src) == offsetof(struct xdpbr_mdb_src_key, src),
	       "a member begins with its group's key");

static int gkey_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct xdpbr_mdb_src_key));
}

static int member_cmp(const void *a, const void *b)
{
	const struct mcast_member *x = a, *y = b;
	int c = gkey_cmp(x, y);

	return c ? c : (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

static int port_key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct xdpbr_mdb_port_key));
}

/* The first of sorted a[0..n) (of size sz each) not below k. */
static size_t lower_bound(const void *a, size_t n, size_t sz, const void *k,
			  int (*cmp)(const void *, const void *))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp((const char *)a + mid * sz, k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Moves a[at..n) up by one (room reserved), for a new a[at]. */
static void open_gap(void *a, size_t n, size_t sz, size_t at)
{
	memmove((char *)a + (at + 1) * sz, (char *)a + at * sz, (n - at) * sz);
}

/* The group of gkey k (a group's, a member's or a struct xdpbr_mdb_src_key). */
static struct mcast_group *group_find(struct mcast_group *g, size_t n, const void *k)
{
	size_t i = lower_bound(g, n, sizeof(*g), k, gkey_cmp);

	return i < n && !gkey_cmp(&g[i], k) ? &g[i] : NULL;
}

static __u32 gid_new(struct mcast *m)
{
	__u32 gid = m->next_gid++;

	if (m->next_gid > XDPBR_MDB_GID_MAX)
		m->next_gid = 1;	/* 2^30 groups later */
	return gid;
}

static void map_write(struct mcast *m, int fd, const void *k, const void *val, const char *what)
{
	if (!bpf_map_update_elem(fd, k, val, BPF_ANY))
		return;
	log_warn("bridge %s: Couldn't write an MDB %s: %s", m->br->name, what, strerror(errno));
	m->full = true;		/* the next resync writes everything again */
}

/* A group's datapath entry: (*,G) in xdpbr_mdb, (S,G) in xdpbr_mdb_src. */
static void group_put(struct mcast *m, const struct mcast_group *g)
{
	if (src_any(g->src))
		map_write(m, maps(m)->mdb_src, g, &g->gid, "source group");
	else
		map_write(m, maps(m)->mdb, &g->key, &g->gid, "group");
}

static void group_drop(struct mcast *m, const struct mcast_group *g)
{
	if (src_any(g->src))
		bpf_map_delete_elem(maps(m)->mdb_src, g);
	else
		bpf_map_delete_elem(maps(m)->mdb, &g->key);
}

/* The run of m's members of group k (a gkey): [*lo, *hi). */
static void group_run(const struct mcast *m, const void *k, size_t *lo, size_t *hi)
{
	*lo = lower_bound(m->mem, m->nmem, sizeof(*m->mem), k, gkey_cmp);
	for (*hi = *lo; *hi < m->nmem && !gkey_cmp(&m->mem[*hi], k); (*hi)++)
		;
}

static bool slot_held(const struct mcast *m, size_t lo, size_t hi, __u32 slot)
{
	for (size_t i = lo; i < hi; i++)
		if (m->mem[i].slot == slot)
			return true;
	return false;
}

static void member_del(struct mcast *m, const struct mcast_member *e);

/* One entry the kernel added: its port goes into the group (members
 * first, then the group, so a frame never finds a group without the
 * ports it has). */
static void member_add(struct mcast *m, const struct mcast_member *e)
{
	size_t i = lower_bound(m->mem, m->nmem, sizeof(*e), e, member_cmp), lo, hi, gi;
	struct mcast_group *g;
	__u32 gid;
	const __u32 one = 1;

	if (i < m->nmem && !member_cmp(&m->mem[i], e)) {
		if (m->mem[i].slot == e->slot)
			return;		/* a refresh, or known from the dump */
		member_del(m, &m->mem[i]);
	}
	g = group_find(m->groups, m->ngroups, e);
	gid = g ? g->gid : gid_new(m);
	group_run(m, e, &lo, &hi);
	if (reserve((void **)&m->mem, m->nmem, &m->capmem, sizeof(*e)) ||
	    reserve((void **)&m->groups, m->ngroups, &m->capgroups, sizeof(*g))) {
		log_warn("bridge %s: Couldn't mirror the MDB: %s", m->br->name, strerror(ENOMEM));
		m->full = true;
		return;
	}
	g = group_find(m->groups, m->ngroups, e);	/* the array may have moved */
	if (e->slot && !slot_held(m, lo, hi, e->slot)) {
		struct xdpbr_mdb_port_key pk = { .gid = gid, .slot = e->slot };

		map_write(m, maps(m)->mdb_port, &pk, &one, "port entry");
	}
	i = lower_bound(m->mem, m->nmem, sizeof(*e), e, member_cmp);
	open_gap(m->mem, m->nmem++, sizeof(*e), i);
	m->mem[i] = *e;
	if (!g) {
		gi = lower_bound(m->groups, m->ngroups, sizeof(*g), e, gkey_cmp);
		open_gap(m->groups, m->ngroups, sizeof(*g), gi);
		m->groups[gi] = (struct mcast_group){ .key = e->key, .gid = gid };
		memcpy(m->groups[gi].src, e->src, sizeof(e->src));
		m->ngroups++;
		group_put(m, &m->groups[gi]);
	}
}

/* One entry the kernel deleted: its port leaves the group when no other
 * entry of the group names it, and the group goes (first) with its last. */
static void member_del(struct mcast *m, const struct mcast_member *e)
{
	size_t i = lower_bound(m->mem, m->nmem, sizeof(*e), e, member_cmp), lo, hi;
	struct mcast_member old;
	struct mcast_group *g;

	if (i == m->nmem || member_cmp(&m->mem[i], e))
		return;
	old = m->mem[i];
	memmove(&m->mem[i], &m->mem[i + 1], (m->nmem - i - 1) * sizeof(*e));
	m->nmem--;
	g = group_find(m->groups, m->ngroups, &old);
	if (!g)
		return;
	group_run(m, &old, &lo, &hi);
	if (lo == hi)
		group_drop(m, g);
	if (old.slot && !slot_held(m, lo, hi, old.slot)) {
		struct xdpbr_mdb_port_key pk = { .gid = g->gid, .slot = old.slot };

		bpf_map_delete_elem(maps(m)->mdb_port, &pk);
	}
	if (lo == hi) {
		memmove(g, g + 1, (size_t)(m->groups + m->ngroups - g - 1) * sizeof(*g));
		m->ngroups--;
	}
}

/* Everything again from e[0..n) (sorted, no two alike; m takes it):
 * members first, then groups; stale groups go before their members, and
 * whatever else the maps hold (an earlier run's, a failed write's) goes. */
static void write_all(struct mcast *m, struct mcast_member *e, size_t n)
{
	const struct xdpbr_maps *mp = maps(m);
	struct xdpbr_mdb_port_key kept, next, *want;
	bool have_kept = false;
	struct mcast_group *g, *old;
	size_t ng = 0, nw = 0;
	const __u32 one = 1;

	g = calloc(n ? n : 1, sizeof(*g));
	want = calloc(n ? n : 1, sizeof(*want));
	if (!g || !want) {
		log_warn("bridge %s: Couldn't mirror the MDB: %s", m->br->name, strerror(ENOMEM));
		free(g);
		free(want);
		free(e);
		m->full = true;
		return;
	}
	m->full = false;
	for (size_t i = 0; i < n; i++) {
		if (!ng || gkey_cmp(&g[ng - 1], &e[i])) {
			g[ng].key = e[i].key;
			memcpy(g[ng].src, e[i].src, sizeof(e[i].src));
			old = group_find(m->groups, m->ngroups, &e[i]);
			g[ng++].gid = old ? old->gid : gid_new(m);
		}
		if (!e[i].slot)
			continue;
		want[nw] = (struct xdpbr_mdb_port_key){ .gid = g[ng - 1].gid, .slot = e[i].slot };
		map_write(m, mp->mdb_port, &want[nw++], &one, "port entry");
	}
	for (size_t i = 0; i < ng; i++)
		group_put(m, &g[i]);
	for (size_t i = 0; i < m->ngroups; i++)
		if (!group_find(g, ng, &m->groups[i]))
			group_drop(m, &m->groups[i]);
	qsort(want, nw, sizeof(*want), port_key_cmp);
	/* On from the last key kept: a deleted one would start the walk over
	 * (a hash map's next key of a missing one is its first). */
	while (!bpf_map_get_next_key(mp->mdb_port, have_kept ? &kept : NULL, &next)) {
		if (!bsearch(&next, want, nw, sizeof(*want), port_key_cmp)) {
			bpf_map_delete_elem(mp->mdb_port, &next);
			continue;
		}
		kept = next;
		have_kept = true;
	}
	free(want);
	free(m->groups);
	m->groups = g;
	m->ngroups = ng;
	m->capgroups = n ? n : 1;
	free(m->mem);
	m->mem = e;
	m->nmem = n;
	m->capmem = n;
}

/* From what the maps hold (m's arrays) to e[0..n) (sorted, no two alike;
 * m takes it): the entries that differ one by one, as notifications would
 * have; all again when many do, or when a write failed. */
static void write_diff(struct mcast *m, struct mcast_member *e, size_t n)
{
	size_t i = 0, j = 0, ndiff = 0;

	while (!m->full && ndiff <= DIFF_MAX && (i < m->nmem || j < n)) {
		int c = i == m->nmem ? 1 : j == n ? -1 : member_cmp(&m->mem[i], &e[j]);

		if (c || m->mem[i].slot != e[j].slot)
			ndiff++;
		i += c <= 0;
		j += c >= 0;
	}
	if (m->full || ndiff > DIFF_MAX) {
		write_all(m, e, n);
		return;
	}
	/* Deletes first, from the top down (one moves only what is done), then adds. */
	for (i = m->nmem; i-- > 0;) {
		size_t at = lower_bound(e, n, sizeof(*e), &m->mem[i], member_cmp);

		if (at == n || member_cmp(&e[at], &m->mem[i]) || e[at].slot != m->mem[i].slot) {
			struct mcast_member gone = m->mem[i];

			member_del(m, &gone);
		}
	}
	for (j = 0; j < n; j++)
		member_add(m, &e[j]);
	free(e);
}

/* v's entries with their slots, sorted and each once (v gives them up). */
static struct mcast_member *members_of(struct mcast *m, struct kview *v, size_t *n)
{
	struct { uint32_t ifindex; __u32 slot; } seen[64];
	size_t nseen = 0, k = 0;

	for (size_t i = 0; i < v->n; i++) {
		size_t s;

		for (s = 0; s < nseen && seen[s].ifindex != v->e[i].ifindex; s++)
			;
		if (s == nseen) {
			s = nseen < ARRAY_SIZE(seen) ? nseen++ : 0;
			seen[s].ifindex = v->e[i].ifindex;
			seen[s].slot = slot_of(m, v->e[i].ifindex);
		}
		v->e[i].slot = v->e[i].fwd ? seen[s].slot : 0;
	}
	if (v->n)
		qsort(v->e, v->n, sizeof(*v->e), member_cmp);
	for (size_t i = 0; i < v->n; i++)
		if (!k || member_cmp(&v->e[k - 1], &v->e[i]))
			v->e[k++] = v->e[i];
	*n = k;
	v->n = 0;
	return v->e;
}

static void write_routers(struct mcast *m, const struct kview *v)
{
	__u32 slot_at[MAX_ROUTERS];

	memset(m->rmask, 0, sizeof(m->rmask));
	memset(m->rhigh, 0, sizeof(m->rhigh));
	for (size_t i = 0; i < v->nrouter; i++) {
		slot_at[i] = slot_of(m, v->router[i]);
		for (int f = 0; f < 2; f++) {
			if (!slot_at[i] || !(v->router_fam[i] & (f ? XDPBR_MROUTER_IP6 : XDPBR_MROUTER_IP4)))
				continue;
			if (slot_at[i] < XDPBR_FLOOD_FAST_SLOTS)
				m->rmask[f] |= 1ULL << slot_at[i];
			else
				m->rhigh[f] = true;
		}
	}
	for (__u32 slot = 1; slot < XDPBR_MAX_PORTS; slot++) {
		__u32 want = 0, cur = 0;

		for (size_t i = 0; i < v->nrouter; i++)
			if (slot_at[i] == slot)
				want |= v->router_fam[i];
		if (!bpf_map_lookup_elem(maps(m)->mrouter, &slot, &cur) && cur != want)
			bpf_map_update_elem(maps(m)->mrouter, &slot, &want, BPF_ANY);
	}
}

/* Whether the bridge device has an IPv6 address, asked once a read
 * (*has6: -1 not yet). */
static bool own6(const struct mcast *m, int *has6)
{
	if (*has6 < 0)
		*has6 = has_ipv6(m->br->name);
	return *has6;
}

/* The kernel's "a querier exists" (br_multicast_querier_exists) in one
 * multicast context, the bridge's or a VLAN's: its own (mcast_querier,
 * and for MLD an IPv6 address to send from) or another's heard lately,
 * once the query response interval has passed since either appeared
 * (*on_ns: since when), which it waits for the hosts' reports. */
static __u32 ctx_flags(const struct mcast *m, const struct kbr_mcast *v, uint64_t *on_ns,
		       uint64_t now, int *has6)
{
	uint64_t delay = v->resp_cs * KBR_CS_NS;
	bool own_ok;
	__u32 f = 0;

	if (!v->snooping) {
		*on_ns = 0;
		return 0;
	}
	f |= XDPBR_MCAST_SNOOPING;
	/* The kernel's br_mdb_get looks an (S,G) entry up first in these
	 * modes only (br_multicast_should_handle_mode). */
	if (v->igmp_version == 3)
		f |= XDPBR_MCAST_SRC4;
	if (v->mld_version == 2)
		f |= XDPBR_MCAST_SRC6;
	if (!v->querier && !v->other4 && !v->other6)
		*on_ns = 0;
	else if (!*on_ns)
		*on_ns = now;
	own_ok = *on_ns && now - *on_ns >= delay;
	if (own_ok && (v->querier || v->other4))
		f |= XDPBR_MCAST_QUERIER4;
	if (own_ok && ((v->querier && own6(m, has6)) || v->other6))
		f |= XDPBR_MCAST_QUERIER6;
	return f;
}

/* The bridge's flags: its context's, and how the MDB and the contexts
 * are kept (per VLAN with VLAN filtering; mcast_vlan_snooping needs it). */
static __u32 mcast_flags(struct mcast *m, const struct kbr_mcast *v, uint64_t now, int *has6)
{
	__u32 f = ctx_flags(m, v, &m->querier_on_ns, now, has6);

	if (f && v->vlan_filtering)
		f |= XDPBR_MCAST_VLAN;
	/* (the VLANs' maps are there once this build's datapath runs) */
	if (f && v->vlan_filtering && v->vlan_snooping && maps(m)->mcast_vlan >= 0 &&
	    maps(m)->mrouter_vlan >= 0)
		f |= XDPBR_MCAST_VLAN_CTX;
	return f;
}

/* --- multicast contexts per VLAN --- */

/* One range of VLANs as the bridge's global VLAN options give it (`bridge
 * vlan global show`): the kernel dumps VLANs of equal options as one
 * range, with its first VLAN's querier state and router ports. A VLAN
 * with router ports is never in a range of more (6.1's
 * br_multicast_ctx_options_equal); another querier usually makes its port
 * one, but not on a port with mcast_router 0: so only the first VLAN of a
 * range is known to have another querier, and the others are taken for
 * having none (they flood, as the kernel does without a querier, rather
 * than prune as the first VLAN's querier would have them). */
struct vctx {
	uint16_t vid, vid_end;
	struct kbr_mcast set;
	size_t router0, nrouter;	/* its router ports: the read's vr[router0..] */
};

struct vrouter {
	uint32_t ifindex;
	__u32 fam;			/* XDPBR_MROUTER_IP4/6 */
	__u32 slot;			/* its port's (0: none), found once a read */
};

/* What one read of the global VLAN options found. */
struct vread {
	uint32_t kbr;
	struct vctx *vc;
	size_t nvc, capvc;
	struct vrouter *vr;
	size_t nvr, capvr;
	struct kview *scratch;		/* router ports of one range, parsed */
	int err;
};

/* A range's router ports: BRIDGE_VLANDB_GOPTS_MCAST_ROUTER_PORTS holds an
 * MDBA_ROUTER nest, as the MDB dump's (router_cb). */
static int vrouters_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == MDBA_ROUTER)
		mnl_attr_parse_nested(a, router_cb, data);
	return MNL_CB_OK;
}

static int gopt_cb(const struct nlattr *a, void *data)
{
	struct vread *r = data;
	struct vctx *c = &r->vc[r->nvc];

	switch (mnl_attr_get_type(a)) {
	case BRIDGE_VLANDB_GOPTS_ID:
		if (!mnl_attr_validate(a, MNL_TYPE_U16))
			c->vid = mnl_attr_get_u16(a);
		break;
	case BRIDGE_VLANDB_GOPTS_RANGE:
		if (!mnl_attr_validate(a, MNL_TYPE_U16))
			c->vid_end = mnl_attr_get_u16(a);
		break;
	case BRIDGE_VLANDB_GOPTS_MCAST_SNOOPING:
		if (!mnl_attr_validate(a, MNL_TYPE_U8))
			c->set.snooping = mnl_attr_get_u8(a);
		break;
	case BRIDGE_VLANDB_GOPTS_MCAST_QUERIER:
		if (!mnl_attr_validate(a, MNL_TYPE_U8))
			c->set.querier = mnl_attr_get_u8(a);
		break;
	case BRIDGE_VLANDB_GOPTS_MCAST_QUERIER_STATE:
		kbr_querier_state(a, &c->set);
		break;
	case BRIDGE_VLANDB_GOPTS_MCAST_QUERY_RESPONSE_INTVL:
		if (!mnl_attr_validate(a, MNL_TYPE_U64))
			c->set.resp_cs = mnl_attr_get_u64(a);
		break;
	case BRIDGE_VLANDB_GOPTS_MCAST_IGMP_VERSION:
		if (!mnl_attr_validate(a, MNL_TYPE_U8))
			c->set.igmp_version = mnl_attr_get_u8(a);
		break;
	case BRIDGE_VLANDB_GOPTS_MCAST_MLD_VERSION:
		if (!mnl_attr_validate(a, MNL_TYPE_U8))
			c->set.mld_version = mnl_attr_get_u8(a);
		break;
	case BRIDGE_VLANDB_GOPTS_MCAST_ROUTER_PORTS:
		r->scratch->nrouter = 0;
		mnl_attr_parse_nested(a, vrouters_cb, r->scratch);
		for (size_t i = 0; i < r->scratch->nrouter; i++) {
			if (reserve((void **)&r->vr, r->nvr, &r->capvr, sizeof(*r->vr))) {
				r->err = -ENOMEM;
				break;
			}
			r->vr[r->nvr++] = (struct vrouter){ .ifindex = r->scratch->router[i],
							    .fam = r->scratch->router_fam[i] };
			c->nrouter++;
		}
		break;
	}
	return MNL_CB_OK;
}

static int gopts_cb(const struct nlattr *a, void *data)
{
	struct vread *r = data;

	if (mnl_attr_get_type(a) != BRIDGE_VLANDB_GLOBAL_OPTIONS || r->err)
		return MNL_CB_OK;
	if (reserve((void **)&r->vc, r->nvc, &r->capvc, sizeof(*r->vc))) {
		r->err = -ENOMEM;
		return MNL_CB_OK;
	}
	memset(&r->vc[r->nvc], 0, sizeof(r->vc[r->nvc]));
	r->vc[r->nvc].router0 = r->nvr;
	mnl_attr_parse_nested(a, gopt_cb, r);
	if (r->vc[r->nvc].vid_end < r->vc[r->nvc].vid)
		r->vc[r->nvc].vid_end = r->vc[r->nvc].vid;
	if (r->vc[r->nvc].vid && r->vc[r->nvc].vid_end < XDPBR_MCAST_VLANS)
		r->nvc++;
	return MNL_CB_OK;
}

static int vlan_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct br_vlan_msg *bvm = mnl_nlmsg_get_payload(nlh);
	struct vread *r = data;

	if (nlh->nlmsg_type == RTM_NEWVLAN && nlh->nlmsg_len >= mnl_nlmsg_size(sizeof(*bvm)) &&
	    bvm->ifindex == r->kbr)
		mnl_attr_parse(nlh, sizeof(*bvm), gopts_cb, r);
	return MNL_CB_OK;
}

/* The bridge's global VLAN options (RTM_GETVLAN, BRIDGE_VLANDB_DUMPF_GLOBAL). */
static int vlan_dump(struct vread *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct br_vlan_msg *bvm;
	int err;

	r->scratch = calloc(1, sizeof(*r->scratch));
	if (!r->scratch)
		return -ENOMEM;
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETVLAN;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	bvm = mnl_nlmsg_put_extra_header(nlh, sizeof(*bvm));
	bvm->family = AF_BRIDGE;
	bvm->ifindex = r->kbr;
	mnl_attr_put_u32(nlh, BRIDGE_VLANDB_DUMP_FLAGS, BRIDGE_VLANDB_DUMPF_GLOBAL);
	err = nl_request(nlh, vlan_msg_cb, r);
	free(r->scratch);
	r->scratch = NULL;
	return err ? err : r->err;
}

static void vread_free(struct vread *r)
{
	free(r->vc);
	free(r->vr);
}

static int rkey_cmp(const void *a, const void *b)
{
	const __u32 *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* xdpbr_mrouter_vlan from {key, fam} pairs want[0..n) (sorted by key, each
 * once; m keeps them as what it holds): what differs from what it held,
 * and everything else out when its contents are unknown. False if some
 * write failed. */
static bool vrouters_write(struct mcast *m, __u32 (*want)[2], size_t n)
{
	struct mcast_vlans *vl = m->vl;
	int fd = maps(m)->mrouter_vlan;
	size_t i = 0, j = 0;
	bool ok = true;

	if (vl->fresh) {
		__u32 k, next;
		bool have = false;

		while (!bpf_map_get_next_key(fd, have ? &k : NULL, &next)) {
			if (!bsearch(&next, want, n, sizeof(*want), rkey_cmp)) {
				bpf_map_delete_elem(fd, &next);
				continue;
			}
			k = next;
			have = true;
		}
		vl->nr = 0;
	}
	while (i < vl->nr || j < n) {
		int c = i == vl->nr ? 1 : j == n ? -1 : rkey_cmp(vl->r[i], want[j]);

		if (c < 0)
			bpf_map_delete_elem(fd, &vl->r[i][0]);
		else if ((c > 0 || vl->r[i][1] != want[j][1]) &&
			 bpf_map_update_elem(fd, &want[j][0], &want[j][1], BPF_ANY))
			ok = false;
		i += c <= 0;
		j += c >= 0;
	}
	free(vl->r);
	vl->r = want;
	vl->nr = n;
	return ok;
}

/* Each VLAN's flags and router ports from r (NULL: none, every VLAN's
 * entry emptied), routers first: a VLAN's flags never ask for routers
 * not yet written. False if the maps may not say what r does. */
static bool write_vlans(struct mcast *m, struct vread *r, uint64_t now, int *has6)
{
	struct mcast_vlans *vl = m->vl;
	__u32 (*want)[2] = NULL, *f = NULL;
	size_t n = 0, cap = 0, k = 0;
	bool ok;

	if (!vl) {
		vl = m->vl = calloc(1, sizeof(*vl));
		if (!vl) {
			log_warn("bridge %s: Couldn't mirror the VLANs' multicast contexts: %s",
				 m->br->name, strerror(ENOMEM));
			return false;
		}
		vl->fresh = true;
	}
	f = calloc(XDPBR_MCAST_VLANS, sizeof(*f));
	if (!f)
		goto nomem;
	for (size_t x = 0; r && x < r->nvr; x++)	/* each router port's slot, once */
		r->vr[x].slot = slot_of(m, r->vr[x].ifindex);
	for (size_t i = 0; r && i < r->nvc; i++) {
		const struct vctx *c = &r->vc[i];
		struct kbr_mcast rest = c->set;	/* the range's other VLANs */

		rest.other4 = rest.other6 = 0;
		for (uint32_t vid = c->vid; vid <= c->vid_end; vid++) {
			f[vid] = ctx_flags(m, vid == c->vid ? &c->set : &rest,
					   &vl->querier_on_ns[vid], now, has6);
			for (size_t x = c->router0; x < c->router0 + c->nrouter; x++) {
				__u32 slot = r->vr[x].slot;

				if (!slot)
					continue;
				if (reserve((void **)&want, n, &cap, sizeof(*want)))
					goto nomem;
				want[n][0] = XDPBR_MROUTER_VLAN_KEY(vid, slot);
				want[n++][1] = r->vr[x].fam;
			}
		}
	}
	if (n)
		qsort(want, n, sizeof(*want), rkey_cmp);
	for (size_t i = 0; i < n; i++) {	/* a port named twice: one entry, both families */
		if (k && want[k - 1][0] == want[i][0])
			want[k - 1][1] |= want[i][1];
		else
			memcpy(want[k++], want[i], sizeof(*want));
	}
	ok = vrouters_write(m, want, k);
	want = NULL;		/* m's now */
	for (__u32 vid = 0; vid < XDPBR_MCAST_VLANS; vid++) {
		if (!f[vid])	/* no context, or no querier: its delay starts over */
			vl->querier_on_ns[vid] = 0;
		if (!vl->fresh && f[vid] == vl->flags[vid])
			continue;
		if (!bpf_map_update_elem(maps(m)->mcast_vlan, &vid, &f[vid], BPF_ANY))
			vl->flags[vid] = f[vid];
		else
			ok = false;
	}
	if (!ok && !m->vlan_warned)	/* said once until a write succeeds */
		log_warn("bridge %s: Couldn't write a VLAN's multicast context (flooding until it is): %s",
			 m->br->name, strerror(errno));
	m->vlan_warned = !ok;
	vl->fresh = !ok;	/* all again at the next read */
	free(want);
	free(f);
	return ok;
nomem:
	log_warn("bridge %s: Couldn't mirror the VLANs' multicast contexts: %s", m->br->name,
		 strerror(ENOMEM));
	free(want);
	free(f);
	return false;
}

/* Whether some port has mcast_flood off (XDPBR_MCAST_MC_OUT). */
static bool mc_out_ports(const struct mcast *m)
{
	uint32_t key, next, *prev = NULL;
	struct xdpbr_port p;

	while (!bpf_map_get_next_key(maps(m)->ports, prev, &next)) {
		if (!bpf_map_lookup_elem(maps(m)->ports, &next, &p) &&
		    !(p.flags & XDPBR_PORT_MCAST_FLOOD))
			return true;
		key = next;
		prev = &key;
	}
	return false;
}

/* The host interface's port's slot (0: none). */
static __u32 host_slot(const struct mcast *m)
{
	char host[IF_NAMESIZE];

	hostif_port_name(m->br->name, host);
	return slot_of(m, if_nametoindex(host));
}

/* --- the groups' port sets (xdpbr_mdb_set) --- */

static int set_cmp(const void *a, const void *b)
{
	const struct mcast_set *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

/* A set not written (slot 0 is never one's: no real set's mask). */
#define SET_UNWRITTEN	(~0ULL)

/* Adds slot to *mask; false for one past the mask (no set then). Slot 0
 * (none, or not forwarded to) adds nothing. */
static bool set_add(__u64 *mask, __u32 slot)
{
	if (!slot)
		return true;
	if (slot >= XDPBR_FLOOD_FAST_SLOTS)
		return false;
	*mask |= 1ULL << slot;
	return true;
}

/* What identifies the ports of mask, given each slot's ifindex: a set
 * whose slots are the same but one of them another port's now needs a
 * new devmap. 0 for fewer than two ports (no devmap). */
static __u64 set_sig(__u64 mask, const __u32 *ifx)
{
	__u64 h = 1469598103934665603ULL;	/* FNV-1a */

	if (!(mask & (mask - 1)))
		return 0;
	for (; mask; mask &= mask - 1) {
		h ^= ifx[__builtin_ctzll(mask)];
		h *= 1099511628211ULL;
	}
	return h | 1;
}

/* The sets m's groups, router ports and host port make, sorted by key,
 * in *out (m->sets_on false: none), ifx each slot's ifindex. -ENOMEM, or
 * their number. */
static long sets_want(const struct mcast *m, const __u32 *ifx, struct mcast_set **out)
{
	__u32 host = host_slot(m);
	struct mcast_set *w;
	size_t n = 0;

	*out = NULL;
	if (!m->sets_on)
		return 0;
	w = calloc(m->ngroups + 2, sizeof(*w));
	if (!w)
		return -ENOMEM;
	/* unregistered groups: to the family's router ports */
	for (int f = 0; f < 2; f++) {
		__u64 mask = m->rmask[f];

		if (!m->rhigh[f] && set_add(&mask, host))
			w[n++] = (struct mcast_set){ f ? XDPBR_MDB_SET_IP6 : 0, mask,
						     set_sig(mask, ifx) };
	}
	for (size_t i = 0; i < m->ngroups; i++) {
		const struct mcast_group *g = &m->groups[i];
		int f = g->key.proto == XDPBR_MDB_IP6;
		__u64 mask = m->rmask[f];
		bool ok = !m->rhigh[f] && set_add(&mask, host);
		size_t lo, hi;

		group_run(m, g, &lo, &hi);
		for (size_t j = lo; ok && j < hi; j++)
			ok = set_add(&mask, m->mem[j].slot);
		if (ok)
			w[n++] = (struct mcast_set){ g->gid | (f ? XDPBR_MDB_SET_IP6 : 0), mask,
						     set_sig(mask, ifx) };
	}
	qsort(w, n, sizeof(*w), set_cmp);
	*out = w;
	return (long)n;
}

/* The devmap of set s (two ports or more) into xdpbr_mdb_devs, a new one
 * (the outer map's update replaces the old one whole); false when it
 * can't be: none then, and the group's frames take the slow flood. */
static bool devs_put(struct mcast *m, const struct mcast_set *s, const __u32 *ifx)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_DEVMAP_HASH, "xdpbr_mdbdevs", sizeof(__u32),
				sizeof(struct bpf_devmap_val), XDPBR_FLOOD_FAST_SLOTS, NULL);
	bool ok = fd >= 0;

	for (__u64 mask = s->mask; ok && mask; mask &= mask - 1) {
		__u32 ifindex = ifx[__builtin_ctzll(mask)];
		struct bpf_devmap_val v = { .ifindex = ifindex };

		ok = ifindex && !bpf_map_update_elem(fd, &ifindex, &v, BPF_ANY);
	}
	ok = ok && !bpf_map_update_elem(maps(m)->mdb_devs, &s->key, &fd, BPF_ANY);
	if (fd >= 0)
		close(fd);
	if (!ok)
		bpf_map_delete_elem(maps(m)->mdb_devs, &s->key);
	return ok;
}

/* One set written: the devmap first when it grows one, the mask, then
 * the devmap gone when it needs none. False if the mask is not written
 * (deleted then: its group's frames ask every port, as before); a devmap
 * not written is tried again next time (s->sig 0 then). */
static bool set_put(struct mcast *m, struct mcast_set *s, const __u32 *ifx)
{
	int fd = maps(m)->mdb_set;

	if (s->sig && !devs_put(m, s, ifx))
		s->sig = 0;
	if (bpf_map_update_elem(fd, &s->key, &s->mask, BPF_ANY)) {
		bpf_map_delete_elem(fd, &s->key);
		bpf_map_delete_elem(maps(m)->mdb_devs, &s->key);
		return false;
	}
	if (!s->sig)
		bpf_map_delete_elem(maps(m)->mdb_devs, &s->key);
	return true;
}

/* Deletes from map fd every key that is not one of w[0..n) (with a
 * devmap, for devs). */
static void sets_sweep(int fd, const struct mcast_set *w, size_t n, bool devs)
{
	__u32 key, next, *prev = NULL;
	const struct mcast_set *cur;
	struct mcast_set k;

	/* On from the last key kept: a deleted one would start the walk over. */
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k.key = next;
		cur = bsearch(&k, w, n, sizeof(*w), set_cmp);
		if (!cur || cur->mask == SET_UNWRITTEN || (devs && !cur->sig)) {
			bpf_map_delete_elem(fd, &next);
			continue;
		}
		key = next;
		prev = &key;
	}
}

/*
 * xdpbr_mdb_set (and xdpbr_mdb_devs) as m's state says: changed and new
 * sets written, gone ones deleted (after the members and routers they are
 * made of, before the flags that make the datapath prune). A set that
 * can't be written is deleted instead: its group's frames ask every port,
 * as before. The first time, whatever else the maps hold (an earlier
 * run's) goes too.
 */
static void sets_write(struct mcast *m)
{
	__u32 ifx[XDPBR_FLOOD_FAST_SLOTS] = { 0 };
	struct mcast_set *w;
	size_t i = 0, j = 0, n;
	long got;

	for (__u32 s = 1; s < XDPBR_FLOOD_FAST_SLOTS; s++)
		if (bpf_map_lookup_elem(maps(m)->slotif, &s, &ifx[s]))
			ifx[s] = 0;
	got = sets_want(m, ifx, &w);
	if (got < 0) {
		log_warn("bridge %s: Couldn't write the groups' port sets: %s", m->br->name,
			 strerror(ENOMEM));
		got = 0;	/* none: every group asks every port */
	}
	n = (size_t)got;
	while (i < m->nsets || j < n) {
		int c = i == m->nsets ? 1 : j == n ? -1 : set_cmp(&m->sets[i], &w[j]);

		if (c < 0) {
			bpf_map_delete_elem(maps(m)->mdb_set, &m->sets[i].key);
			bpf_map_delete_elem(maps(m)->mdb_devs, &m->sets[i].key);
		} else if ((c > 0 || m->sets[i].mask != w[j].mask || m->sets[i].sig != w[j].sig) &&
			   !set_put(m, &w[j], ifx)) {
			w[j].mask = SET_UNWRITTEN;	/* differs from any next time */
		}
		i += c <= 0;
		j += c >= 0;
	}
	if (!m->sets_swept) {
		sets_sweep(maps(m)->mdb_set, w, n, false);
		sets_sweep(maps(m)->mdb_devs, w, n, true);
		m->sets_swept = true;
	}
	free(m->sets);
	m->sets = w;
	m->nsets = n;
}

static void write_state(struct mcast *m, __u32 flags)
{
	struct xdpbr_mcast st = { .flags = flags }, cur;
	__u32 zero = 0;

	st.host_slot = host_slot(m);
	if (bpf_map_lookup_elem(maps(m)->mcast, &zero, &cur) || memcmp(&cur, &st, sizeof(st)))
		bpf_map_update_elem(maps(m)->mcast, &zero, &st, BPF_ANY);
}

/* Forgets the VLANs' contexts: what the maps hold is not read while
 * XDPBR_MCAST_VLAN_CTX is off, and written whole when it is on again. */
static void vlans_forget(struct mcast *m)
{
	if (!m->vl)
		return;
	free(m->vl->r);
	free(m->vl);
	m->vl = NULL;
}

/* With contexts per VLAN, each VLAN's; a read that fails empties them
 * all: every VLAN floods, as without snooping, until one succeeds. False
 * if the maps may not say what the kernel does. */
static bool sync_vlans(struct mcast *m, uint64_t now, int *has6)
{
	struct vread r = { .kbr = m->kbr };
	int err = vlan_dump(&r);
	bool ok;

	if (err)
		log_warn("bridge %s: Couldn't read the Linux bridge's VLAN multicast options: %s",
			 m->br->name, strerror(-err));
	ok = write_vlans(m, err ? NULL : &r, now, has6);
	vread_free(&r);
	return ok;
}

static void sync_all(struct mcast *m)
{
	struct kview v = { .kbr = m->kbr };
	struct mcast_member *e;
	uint64_t now = mono_ns();
	int has6 = -1;
	__u32 flags;
	size_t n;
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
	e = members_of(m, &v, &n);
	if (m->full)
		write_all(m, e, n);
	else
		write_diff(m, e, n);
	m->snooping = v.set.snooping;
	write_routers(m, &v);
	flags = mcast_flags(m, &v.set, now, &has6);
	/* VLANs' maps not as the kernel says: no pruning (flood) until they are */
	if (flags & XDPBR_MCAST_VLAN_CTX && !sync_vlans(m, now, &has6))
		flags = 0;
	/* with router ports per VLAN, none of the bridge's sets is right */
	m->sets_on = !(flags & XDPBR_MCAST_VLAN_CTX);
	sets_write(m);
	write_state(m, flags | (v.set.snooping && mc_out_ports(m) ? XDPBR_MCAST_MC_OUT : 0));
	if (!(flags & XDPBR_MCAST_VLAN_CTX))
		vlans_forget(m);
}

static void clear_all(struct mcast *m)
{
	struct kview v = { 0 };

	write_state(m, 0);
	vlans_forget(m);
	m->snooping = false;
	write_all(m, NULL, 0);
	write_routers(m, &v);
	m->sets_on = false;
	sets_write(m);
}

/* A notification: the entry it adds or deletes, written at once; a
 * router port's change (rare, and with a family the message lacks), or
 * what cannot be read, is for the resync. Another bridge's is not ours. */
static int note_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mcast *m = data;
	struct kview v = { .kbr = m->kbr };
	size_t n;

	/* A VLAN's options or a port VLAN's changed: with contexts per VLAN,
	 * its querier or router ports may have (read now, not within a second). */
	if (nlh->nlmsg_type == RTM_NEWVLAN || nlh->nlmsg_type == RTM_DELVLAN) {
		if (m->vl)
			m->dirty = true;
		return MNL_CB_OK;
	}
	if (nlh->nlmsg_type != RTM_NEWMDB && nlh->nlmsg_type != RTM_DELMDB)
		return MNL_CB_OK;
	mdb_msg_cb(nlh, &v);
	if (v.err || v.nrouter || !m->kbr || !m->snooping || m->full) {
		m->dirty = true;
		free(v.e);
		return MNL_CB_OK;
	}
	members_of(m, &v, &n);
	for (size_t i = 0; i < n; i++) {
		if (nlh->nlmsg_type == RTM_NEWMDB)
			member_add(m, &v.e[i]);
		else
			member_del(m, &v.e[i]);
	}
	sets_write(m);
	free(v.e);
	return MNL_CB_OK;
}

void mcast_read(struct mcast *m)
{
	if (m->nl && nl_read_all(m->nl, note_cb, m) == -ENOBUFS)
		m->dirty = true;	/* lost some: the resync finds them */
}

/* The groups the maps hold from an earlier run (the pins outlive the
 * daemon): known, so the first write deletes what the kernel no longer
 * has, and no new id is one of theirs. */
static void adopt_map(struct mcast *m, int fd, size_t klen)
{
	struct xdpbr_mdb_src_key k, prev;
	struct mcast_group *g;
	bool first = true;
	__u32 gid;

	while (!bpf_map_get_next_key(fd, first ? NULL : &prev, &k)) {
		g = realloc(m->groups, (m->ngroups + 1) * sizeof(*g));
		if (!g)
			break;
		m->groups = g;
		if (bpf_map_lookup_elem(fd, &k, &gid))
			break;
		memset(&g[m->ngroups], 0, sizeof(*g));
		memcpy(&g[m->ngroups], &k, klen);
		g[m->ngroups++].gid = gid;
		if (gid >= m->next_gid && gid < XDPBR_MDB_GID_MAX)
			m->next_gid = gid + 1;
		prev = k;
		first = false;
	}
}

static void adopt(struct mcast *m)
{
	adopt_map(m, maps(m)->mdb, sizeof(struct xdpbr_mdb_key));
	adopt_map(m, maps(m)->mdb_src, sizeof(struct xdpbr_mdb_src_key));
	m->capgroups = m->ngroups;
	if (m->ngroups)
		qsort(m->groups, m->ngroups, sizeof(*m->groups), gkey_cmp);
	m->full = true;
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
		unsigned int brvlan = RTNLGRP_BRVLAN;

		m->nl = nl_subscribe_burst(1U << (RTNLGRP_MDB - 1));
		if (!m->nl)
			log_warn("bridge %s: Couldn't watch the MDB (reading it once a second): %s",
				 m->br->name, strerror(errno));
		else if (mnl_socket_setsockopt(m->nl, NETLINK_ADD_MEMBERSHIP, &brvlan,
					       sizeof(brvlan)))
			log_warn("bridge %s: Couldn't watch its VLANs' multicast options (reading them once a second): %s",
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
	vlans_forget(m);
	if (m->nl)
		mnl_socket_close(m->nl);
	m->nl = NULL;
	free(m->groups);
	m->groups = NULL;
	m->ngroups = m->capgroups = 0;
	free(m->mem);
	m->mem = NULL;
	m->nmem = m->capmem = 0;
	free(m->sets);
	m->sets = NULL;
	m->nsets = 0;
	m->kbr = 0;
}

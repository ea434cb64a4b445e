// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kbridge.c - a Linux bridge device's settings over rtnetlink (kbridge.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "kbridge.h"
#include "netlink.h"
#include "settings.h"
#include "xdpbr_rules.h"

static bool port_row(const struct setting *s)
{
	return s->scope == SETTING_PORT && s->home == SETTING_AT_PORT && s->bit && s->nl;
}

uint32_t kbr_port_mask(void)
{
	uint32_t m = 0;

	for (size_t i = 0; i < SET__N; i++)
		if (port_row(&settings[i]))
			m |= settings[i].bit;
	return m;
}

/* A dump of the bridge's ports: their flags to cb, or their VLANs to vcb. */
struct ports_ctx {
	uint32_t bridge, master, flags;
	kbr_port_cb cb;
	kbr_vlan_cb vcb;
	void *arg;
	struct xdpbr_vlan_port v;
	uint16_t pvid, begin;		/* begin: of a VLAN range under way, else 0 */
};

static int protinfo_cb(const struct nlattr *a, void *data)
{
	struct ports_ctx *c = data;
	uint16_t type = mnl_attr_get_type(a);

	for (size_t i = 0; i < SET__N; i++)
		if (port_row(&settings[i]) && settings[i].nl == type &&
		    !mnl_attr_validate(a, MNL_TYPE_U8) && mnl_attr_get_u8(a))
			c->flags |= settings[i].bit;
	return MNL_CB_OK;
}

static void vlans_mark(struct ports_ctx *c, uint16_t from, uint16_t to, uint16_t flags)
{
	for (uint32_t vid = from; vid <= to && vid <= XDPBR_VLAN_MAX; vid++) {
		xdpbr_vlan_set(c->v.member, (uint16_t)vid, 1);
		xdpbr_vlan_set(c->v.untagged, (uint16_t)vid, flags & BRIDGE_VLAN_INFO_UNTAGGED);
	}
	if (flags & BRIDGE_VLAN_INFO_PVID)
		c->pvid = from;
}

static int vlan_info_cb(const struct nlattr *a, void *data)
{
	struct ports_ctx *c = data;
	const struct bridge_vlan_info *vi;

	if (mnl_attr_get_type(a) != IFLA_BRIDGE_VLAN_INFO ||
	    mnl_attr_get_payload_len(a) < sizeof(*vi))
		return MNL_CB_OK;
	vi = mnl_attr_get_payload(a);
	if (!vi->vid || vi->vid > XDPBR_VLAN_MAX)
		return MNL_CB_OK;
	if (vi->flags & BRIDGE_VLAN_INFO_RANGE_BEGIN)
		c->begin = vi->vid;
	else if (vi->flags & BRIDGE_VLAN_INFO_RANGE_END && c->begin && c->begin <= vi->vid)
		vlans_mark(c, c->begin, vi->vid, vi->flags), c->begin = 0;
	else
		vlans_mark(c, vi->vid, vi->vid, vi->flags);
	return MNL_CB_OK;
}

static int port_attr_cb(const struct nlattr *a, void *data)
{
	struct ports_ctx *c = data;

	if (mnl_attr_get_type(a) == IFLA_MASTER && !mnl_attr_validate(a, MNL_TYPE_U32))
		c->master = mnl_attr_get_u32(a);
	else if (mnl_attr_get_type(a) == IFLA_PROTINFO)
		mnl_attr_parse_nested(a, protinfo_cb, c);
	else if (mnl_attr_get_type(a) == IFLA_AF_SPEC && c->vcb)
		mnl_attr_parse_nested(a, vlan_info_cb, c);
	return MNL_CB_OK;
}

static int port_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct ports_ctx *c = data;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	c->master = 0;
	c->flags = 0;
	c->pvid = c->begin = 0;
	memset(&c->v, 0, sizeof(c->v));
	mnl_attr_parse(nlh, sizeof(*ifm), port_attr_cb, c);
	/* The bridge's own entry (its master is itself) is in a VLAN dump only. */
	if (c->master != c->bridge || ((uint32_t)ifm->ifi_index == c->bridge && !c->vcb))
		return MNL_CB_OK;
	if (c->vcb)
		c->vcb((uint32_t)ifm->ifi_index, &c->v, c->pvid, c->arg);
	else
		c->cb((uint32_t)ifm->ifi_index, c->flags, c->arg);
	return MNL_CB_OK;
}

int kbr_ports(uint32_t bridge, kbr_port_cb cb, void *arg)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ports_ctx c = { .bridge = bridge, .cb = cb, .arg = arg };

	return nl_request(link_msg_family(buf, RTM_GETLINK, NLM_F_DUMP, AF_BRIDGE, 0), port_msg_cb, &c);
}

int kbr_port_set(uint32_t ifindex, uint32_t flags, uint32_t mask)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg_family(buf, RTM_SETLINK, 0, AF_BRIDGE, (int)ifindex);
	struct nlattr *nest = mnl_attr_nest_start(nlh, IFLA_PROTINFO);

	for (size_t i = 0; i < SET__N; i++)
		if (port_row(&settings[i]) && (mask & settings[i].bit))
			mnl_attr_put_u8(nlh, settings[i].nl, !!(flags & settings[i].bit));
	mnl_attr_nest_end(nlh, nest);
	return nl_request(nlh, NULL, NULL);
}

struct info_ctx {
	bool bridge;
	bool have_filtering, have_pvid;
	bool filtering;
	uint16_t pvid;
	bool have_mcast;
	struct kbr_mcast mc;
	uint16_t u32_attr;		/* one u32 attribute asked for (0: none) */
	bool have_u32;
	uint32_t u32;
};

static int querier_cb(const struct nlattr *a, void *data)
{
	struct kbr_mcast *mc = data;

	if (mnl_attr_validate(a, MNL_TYPE_U64))
		return MNL_CB_OK;
	if (mnl_attr_get_type(a) == BRIDGE_QUERIER_IP_OTHER_TIMER)
		mc->other4 = mnl_attr_get_u64(a);
	else if (mnl_attr_get_type(a) == BRIDGE_QUERIER_IPV6_OTHER_TIMER)
		mc->other6 = mnl_attr_get_u64(a);
	return MNL_CB_OK;
}

void kbr_querier_state(const struct nlattr *nest, struct kbr_mcast *mc)
{
	mnl_attr_parse_nested(nest, querier_cb, mc);
}

/* The snooping attributes of IFLA_INFO_DATA: true if a's is one. */
static bool mcast_attr(const struct nlattr *a, struct kbr_mcast *mc)
{
	switch (mnl_attr_get_type(a)) {
	case IFLA_BR_MCAST_SNOOPING:
		mc->snooping = mnl_attr_get_u8(a);
		return true;
	case IFLA_BR_MCAST_QUERIER:
		mc->querier = mnl_attr_get_u8(a);
		return true;
	case IFLA_BR_MCAST_QUERY_RESPONSE_INTVL:
		if (!mnl_attr_validate(a, MNL_TYPE_U64))
			mc->resp_cs = mnl_attr_get_u64(a);
		return true;
	case IFLA_BR_MCAST_QUERIER_STATE:
		kbr_querier_state(a, mc);
		return true;
	case IFLA_BR_MULTI_BOOLOPT:
		if (mnl_attr_get_payload_len(a) >= sizeof(struct br_boolopt_multi)) {
			const struct br_boolopt_multi *bm = mnl_attr_get_payload(a);

			mc->vlan_snooping = bm->optval & (1U << BR_BOOLOPT_MCAST_VLAN_SNOOPING);
		}
		return false;	/* not snooping's alone */
	case IFLA_BR_MCAST_IGMP_VERSION:
		if (!mnl_attr_validate(a, MNL_TYPE_U8))
			mc->igmp_version = mnl_attr_get_u8(a);
		return true;
	case IFLA_BR_MCAST_MLD_VERSION:
		if (!mnl_attr_validate(a, MNL_TYPE_U8))
			mc->mld_version = mnl_attr_get_u8(a);
		return true;
	}
	return false;
}

static int br_data_cb(const struct nlattr *a, void *data)
{
	struct info_ctx *c = data;
	uint16_t type = mnl_attr_get_type(a);

	if (mcast_attr(a, &c->mc))
		c->have_mcast = true;
	else if (c->u32_attr && type == c->u32_attr && !mnl_attr_validate(a, MNL_TYPE_U32)) {
		c->u32 = mnl_attr_get_u32(a);
		c->have_u32 = true;
	} else if (type == settings[SET_VLAN_FILTERING].nl && !mnl_attr_validate(a, MNL_TYPE_U8)) {
		c->filtering = mnl_attr_get_u8(a);
		c->have_filtering = true;
	} else if (type == settings[SET_DEFAULT_PVID].nl && !mnl_attr_validate(a, MNL_TYPE_U16)) {
		c->pvid = mnl_attr_get_u16(a);
		c->have_pvid = true;
	}
	return MNL_CB_OK;
}

static int linkinfo_cb(const struct nlattr *a, void *data)
{
	struct info_ctx *c = data;

	if (mnl_attr_get_type(a) == IFLA_INFO_KIND && !mnl_attr_validate(a, MNL_TYPE_STRING))
		c->bridge = !strcmp(mnl_attr_get_str(a), "bridge");
	else if (mnl_attr_get_type(a) == IFLA_INFO_DATA)
		mnl_attr_parse_nested(a, br_data_cb, c);
	return MNL_CB_OK;
}

static int info_attr_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == IFLA_LINKINFO)
		mnl_attr_parse_nested(a, linkinfo_cb, data);
	return MNL_CB_OK;
}

static int info_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type == RTM_NEWLINK)
		mnl_attr_parse(nlh, sizeof(struct ifinfomsg), info_attr_cb, data);
	return MNL_CB_OK;
}

/* The link's bridge attributes, and its IFLA_BR_ attribute u32_attr (a
 * u32; 0: none) in c->u32. */
static int info_get_u32(uint32_t ifindex, uint16_t u32_attr, struct info_ctx *c)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	memset(c, 0, sizeof(*c));
	c->u32_attr = u32_attr;
	return nl_request(link_msg_family(buf, RTM_GETLINK, 0, AF_UNSPEC, (int)ifindex), info_msg_cb, c);
}

static int info_get(uint32_t ifindex, struct info_ctx *c)
{
	return info_get_u32(ifindex, 0, c);
}

int kbr_is_bridge(uint32_t ifindex)
{
	struct info_ctx c;
	int err = info_get(ifindex, &c);

	return err ? err : c.bridge;
}

int kbr_mcast_get(uint32_t bridge, struct kbr_mcast *mc)
{
	struct info_ctx c;
	int err = info_get(bridge, &c);

	if (!err && !(c.bridge && c.have_mcast))
		err = -ENOTSUP;
	*mc = c.mc;
	mc->vlan_filtering = c.have_filtering && c.filtering;
	return err;
}

/* The bridge's u32 attribute attr, read and set: 0, -ENOTSUP (not a
 * bridge, or no such attribute) or -errno. */
static int br_u32_get(uint32_t bridge, uint16_t attr, uint32_t *v)
{
	struct info_ctx c;
	int err = info_get_u32(bridge, attr, &c);

	if (!err && !(c.bridge && c.have_u32))
		err = -ENOTSUP;
	*v = c.u32;
	return err;
}

/* An RTM_NEWLINK of the bridge's IFLA_INFO_DATA: its nest to fill in
 * *data, closed by br_data_end. */
static struct nlmsghdr *br_data_start(char *buf, uint32_t bridge, struct nlattr **info,
				      struct nlattr **data)
{
	struct nlmsghdr *nlh = link_msg_family(buf, RTM_NEWLINK, 0, AF_UNSPEC, (int)bridge);

	*info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "bridge");
	*data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	return nlh;
}

static int br_data_end(struct nlmsghdr *nlh, struct nlattr *info, struct nlattr *data)
{
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return nl_request(nlh, NULL, NULL);
}

static int br_u32_set(uint32_t bridge, uint16_t attr, uint32_t v)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlattr *info, *data;
	struct nlmsghdr *nlh = br_data_start(buf, bridge, &info, &data);

	mnl_attr_put_u32(nlh, attr, v);
	return br_data_end(nlh, info, data);
}

int kbr_ageing_get(uint32_t bridge, uint32_t *cs)
{
	return br_u32_get(bridge, settings[SET_AGEING_TIME].nl, cs);
}

int kbr_ageing_set(uint32_t bridge, uint32_t cs)
{
	return br_u32_set(bridge, settings[SET_AGEING_TIME].nl, cs);
}

int kbr_stp_get(uint32_t bridge, uint32_t *state)
{
	return br_u32_get(bridge, IFLA_BR_STP_STATE, state);
}

int kbr_stp_set(uint32_t bridge, uint32_t state)
{
	return br_u32_set(bridge, IFLA_BR_STP_STATE, state);
}

int kbr_vlan_get(uint32_t bridge, bool *filtering, uint16_t *default_pvid)
{
	struct info_ctx c;
	int err = info_get(bridge, &c);

	if (!err && !(c.bridge && c.have_filtering && c.have_pvid))
		err = -ENOTSUP;
	*filtering = c.filtering;
	*default_pvid = c.pvid;
	return err;
}

/* The kernel changes the default PVID only while filtering is off, and
 * reads vlan_filtering before vlan_default_pvid in one request: a new PVID
 * goes with filtering off, then filtering as asked. */
int kbr_vlan_set(uint32_t bridge, bool filtering, uint16_t default_pvid, bool pvid_change)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlattr *info, *data;
	struct nlmsghdr *nlh;
	int err;

	if (pvid_change) {
		nlh = br_data_start(buf, bridge, &info, &data);
		mnl_attr_put_u8(nlh, settings[SET_VLAN_FILTERING].nl, 0);
		mnl_attr_put_u16(nlh, settings[SET_DEFAULT_PVID].nl, default_pvid);
		err = br_data_end(nlh, info, data);
		if (err || !filtering)
			return err;
	}
	nlh = br_data_start(buf, bridge, &info, &data);
	mnl_attr_put_u8(nlh, settings[SET_VLAN_FILTERING].nl, filtering);
	return br_data_end(nlh, info, data);
}

/* --- ports' VLANs (IFLA_AF_SPEC's IFLA_BRIDGE_VLAN_INFO) --- */

int kbr_port_vlans(uint32_t bridge, kbr_vlan_cb cb, void *arg)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg_family(buf, RTM_GETLINK, NLM_F_DUMP, AF_BRIDGE, 0);
	struct ports_ctx c = { .bridge = bridge, .vcb = cb, .arg = arg };

	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_BRVLAN_COMPRESSED);
	return nl_request(nlh, port_msg_cb, &c);
}

/* A request of VLAN changes to a port, sent when full. */
#define VREQ_SIZE 8192	/* MNL_SOCKET_BUFFER_SIZE's most */

struct vlan_req {
	char buf[VREQ_SIZE];
	struct nlmsghdr *nlh;
	struct nlattr *spec;
	uint16_t type;
	uint32_t ifindex;
	bool self;			/* the bridge device's own VLANs */
	int err;
};

static void vreq_open(struct vlan_req *r)
{
	r->nlh = link_msg_family(r->buf, r->type, 0, AF_BRIDGE, (int)r->ifindex);
	r->spec = mnl_attr_nest_start(r->nlh, IFLA_AF_SPEC);
	if (r->self)
		mnl_attr_put_u16(r->nlh, IFLA_BRIDGE_FLAGS, BRIDGE_FLAGS_SELF);
}

static void vreq_send(struct vlan_req *r)
{
	int err;

	if (!r->nlh)
		return;
	mnl_attr_nest_end(r->nlh, r->spec);
	err = nl_request(r->nlh, NULL, NULL);
	if (!r->err)
		r->err = err;
	r->nlh = NULL;
}

static void vreq_put(struct vlan_req *r, uint16_t flags, uint16_t vid)
{
	struct bridge_vlan_info vi = { .flags = flags, .vid = vid };

	if (!r->nlh)
		vreq_open(r);
	if (!mnl_attr_put_check(r->nlh, sizeof(r->buf), IFLA_BRIDGE_VLAN_INFO, sizeof(vi), &vi)) {
		vreq_send(r);
		vreq_open(r);
		mnl_attr_put(r->nlh, IFLA_BRIDGE_VLAN_INFO, sizeof(vi), &vi);
	}
}

/* from..to with flags, as one entry or a range (two: a range's ends go
 * in one request). */
static void vreq_range(struct vlan_req *r, uint16_t from, uint16_t to, uint16_t flags)
{
	if (from == to) {
		vreq_put(r, flags, from);
		return;
	}
	if (r->nlh && r->nlh->nlmsg_len +
	    2 * MNL_ALIGN(MNL_ATTR_HDRLEN + sizeof(struct bridge_vlan_info)) > sizeof(r->buf))
		vreq_send(r);
	vreq_put(r, flags | BRIDGE_VLAN_INFO_RANGE_BEGIN, from);
	vreq_put(r, flags | BRIDGE_VLAN_INFO_RANGE_END, to);
}

/* The flags VLAN vid is to have: -1 for none (no member). */
static int want_flags(const struct xdpbr_vlan_port *v, uint16_t pvid, uint16_t vid)
{
	if (!xdpbr_vlan_test(v->member, vid))
		return -1;
	return (xdpbr_vlan_test(v->untagged, vid) ? BRIDGE_VLAN_INFO_UNTAGGED : 0) |
	       (vid == pvid ? BRIDGE_VLAN_INFO_PVID : 0);
}

/* Sends, by ranges of equal flags, the deletes (VLANs have holds that want
 * lacks) or the adds (VLANs of want whose flags have lacks). */
static void vreq_walk(struct vlan_req *r, const struct xdpbr_vlan_port *want, uint16_t pvid,
		      const struct xdpbr_vlan_port *have, uint16_t have_pvid, bool add)
{
	uint16_t from = 0, to = 0;
	int flags = 0, f, h;

	for (uint32_t vid = 1; vid <= XDPBR_VLAN_MAX + 1; vid++) {
		f = vid <= XDPBR_VLAN_MAX ? want_flags(want, pvid, (uint16_t)vid) : -1;
		h = vid <= XDPBR_VLAN_MAX ? want_flags(have, have_pvid, (uint16_t)vid) : -1;
		/* add: a member whose flags change; del: a member no more */
		if (add ? (f < 0 || f == h) : (h < 0 || f >= 0))
			f = -2;
		else if (!add)
			f = 0;
		if (from && (f != flags || f == -2 || flags & BRIDGE_VLAN_INFO_PVID ||
			     f & BRIDGE_VLAN_INFO_PVID)) {
			vreq_range(r, from, to, (uint16_t)flags);
			from = 0;
		}
		if (f == -2)
			continue;
		if (!from)
			from = (uint16_t)vid, flags = f;
		to = (uint16_t)vid;
	}
}

int kbr_vlans_write(uint32_t ifindex, bool self, const struct xdpbr_vlan_port *want,
		    uint16_t pvid, const struct xdpbr_vlan_port *have, uint16_t have_pvid)
{
	struct vlan_req *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return -ENOMEM;
	r->ifindex = ifindex;
	r->self = self;
	r->type = RTM_DELLINK;
	vreq_walk(r, want, pvid, have, have_pvid, false);
	vreq_send(r);
	r->type = RTM_SETLINK;
	vreq_walk(r, want, pvid, have, have_pvid, true);
	vreq_send(r);
	err = r->err;
	free(r);
	return err;
}

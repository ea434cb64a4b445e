// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kbridge.c - a Linux bridge device's settings over rtnetlink (kbridge.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "kbridge.h"
#include "netlink.h"
#include "settings.h"

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

struct ports_ctx {
	uint32_t bridge, master, flags;
	kbr_port_cb cb;
	void *arg;
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

static int port_attr_cb(const struct nlattr *a, void *data)
{
	struct ports_ctx *c = data;

	if (mnl_attr_get_type(a) == IFLA_MASTER && !mnl_attr_validate(a, MNL_TYPE_U32))
		c->master = mnl_attr_get_u32(a);
	else if (mnl_attr_get_type(a) == IFLA_PROTINFO)
		mnl_attr_parse_nested(a, protinfo_cb, c);
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
	mnl_attr_parse(nlh, sizeof(*ifm), port_attr_cb, c);
	if (c->master == c->bridge && (uint32_t)ifm->ifi_index != c->bridge)
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
	bool have_ageing;
	uint32_t ageing;
};

static int br_data_cb(const struct nlattr *a, void *data)
{
	struct info_ctx *c = data;

	if (mnl_attr_get_type(a) == settings[SET_AGEING_TIME].nl &&
	    !mnl_attr_validate(a, MNL_TYPE_U32)) {
		c->ageing = mnl_attr_get_u32(a);
		c->have_ageing = true;
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

static int info_get(uint32_t ifindex, struct info_ctx *c)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	memset(c, 0, sizeof(*c));
	return nl_request(link_msg_family(buf, RTM_GETLINK, 0, AF_UNSPEC, (int)ifindex), info_msg_cb, c);
}

int kbr_is_bridge(uint32_t ifindex)
{
	struct info_ctx c;
	int err = info_get(ifindex, &c);

	return err ? err : c.bridge;
}

int kbr_ageing_get(uint32_t bridge, uint32_t *cs)
{
	struct info_ctx c;
	int err = info_get(bridge, &c);

	if (!err && !(c.bridge && c.have_ageing))
		err = -ENOTSUP;
	*cs = c.ageing;
	return err;
}

int kbr_ageing_set(uint32_t bridge, uint32_t cs)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg_family(buf, RTM_NEWLINK, 0, AF_UNSPEC, (int)bridge);
	struct nlattr *info = mnl_attr_nest_start(nlh, IFLA_LINKINFO), *data;

	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "bridge");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u32(nlh, settings[SET_AGEING_TIME].nl, cs);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return nl_request(nlh, NULL, NULL);
}

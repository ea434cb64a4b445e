// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kfdb.c - the kernel bridge's FDB over rtnetlink (see kfdb.h). */
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>

#include "kfdb.h"
#include "netlink.h"

int kfdb_set(uint32_t ifindex, const uint8_t mac[6], bool add)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct ndmsg *ndm;
	int err;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = add ? RTM_NEWNEIGH : RTM_DELNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | (add ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = AF_BRIDGE;
	ndm->ndm_ifindex = (int)ifindex;
	ndm->ndm_state = NUD_REACHABLE;
	ndm->ndm_flags = NTF_MASTER | (add ? NTF_EXT_LEARNED : 0);
	mnl_attr_put(nlh, NDA_LLADDR, 6, mac);
	err = nl_request(nlh, NULL, NULL);
	return !add && err == -ENOENT ? 0 : err;
}

struct kfdb_ctx {
	kfdb_cb cb;
	void *arg;
};

static int kfdb_attr_cb(const struct nlattr *attr, void *data)
{
	struct kfdb_entry *e = data;

	if (mnl_attr_get_type(attr) == NDA_LLADDR && mnl_attr_get_payload_len(attr) == 6)
		memcpy(e->mac, mnl_attr_get_payload(attr), 6);
	return MNL_CB_OK;
}

static int kfdb_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ndmsg *ndm = mnl_nlmsg_get_payload(nlh);
	struct kfdb_ctx *c = data;
	struct kfdb_entry e = { 0 };

	if ((nlh->nlmsg_type != RTM_NEWNEIGH && nlh->nlmsg_type != RTM_DELNEIGH) ||
	    ndm->ndm_family != AF_BRIDGE)
		return MNL_CB_OK;
	e.ifindex = (uint32_t)ndm->ndm_ifindex;
	e.flags = ndm->ndm_flags;
	e.state = ndm->ndm_state;
	e.deleted = nlh->nlmsg_type == RTM_DELNEIGH;
	mnl_attr_parse(nlh, sizeof(*ndm), kfdb_attr_cb, &e);
	c->cb(&e, c->arg);
	return MNL_CB_OK;
}

int kfdb_dump(kfdb_cb cb, void *arg)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct kfdb_ctx c = { cb, arg };
	struct ndmsg *ndm;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = AF_BRIDGE;
	return nl_request(nlh, kfdb_msg_cb, &c);
}

struct mnl_socket *kfdb_watch_open(void)
{
	return nl_subscribe(1U << (RTNLGRP_NEIGH - 1));
}

int kfdb_watch_read(struct mnl_socket *nl, kfdb_cb cb, void *arg)
{
	struct kfdb_ctx c = { cb, arg };

	return nl_read_all(nl, kfdb_msg_cb, &c);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kfdb.c - the kernel bridge's FDB over rtnetlink (see kfdb.h). */
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <libmnl/libmnl.h>

#include "kfdb.h"
#include "netlink.h"

#define KFDB_DUMP_BUF		32768	/* the most the kernel puts in a part */

/* Builds the request of kfdb_set (kind KFDB_EXTERN) at buf (room for
 * KFDB_MSG_MAX). */
static struct nlmsghdr *set_msg(char *buf, uint32_t ifindex, const uint8_t mac[6],
				uint16_t vlan, bool add, enum kfdb_kind kind)
{
	struct nlmsghdr *nlh;
	struct ndmsg *ndm;

	memset(buf, 0, KFDB_MSG_MAX);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = add ? RTM_NEWNEIGH : RTM_DELNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | (add ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = AF_BRIDGE;
	ndm->ndm_ifindex = (int)ifindex;
	ndm->ndm_state = kind == KFDB_EXTERN ? NUD_REACHABLE : NUD_NOARP;
	ndm->ndm_flags = NTF_MASTER | (add && kind == KFDB_EXTERN ? NTF_EXT_LEARNED : 0) |
			 (add && kind == KFDB_STICKY ? NTF_STICKY : 0);
	mnl_attr_put(nlh, NDA_LLADDR, 6, mac);
	if (vlan)
		mnl_attr_put_u16(nlh, NDA_VLAN, vlan);
	return nlh;
}

int kfdb_set(uint32_t ifindex, const uint8_t mac[6], bool add)
{
	char buf[KFDB_MSG_MAX];
	int err = nl_request(set_msg(buf, ifindex, mac, 0, add, KFDB_EXTERN), NULL, NULL);

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
	else if (mnl_attr_get_type(attr) == NDA_MASTER && !mnl_attr_validate(attr, MNL_TYPE_U32))
		e->master = mnl_attr_get_u32(attr);
	else if (mnl_attr_get_type(attr) == NDA_VLAN && !mnl_attr_validate(attr, MNL_TYPE_U16))
		e->vlan = mnl_attr_get_u16(attr);
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

/* The dump request of kfdb_dump(_start) at buf: of bridge master, if set. */
static struct nlmsghdr *dump_msg(char *buf, uint32_t master)
{
	struct nlmsghdr *nlh;
	struct ndmsg *ndm;

	memset(buf, 0, KFDB_MSG_MAX);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = AF_BRIDGE;
	if (master)
		mnl_attr_put_u32(nlh, NDA_MASTER, master);
	return nlh;
}

int kfdb_dump(kfdb_cb cb, void *arg)
{
	char buf[KFDB_MSG_MAX];
	struct kfdb_ctx c = { cb, arg };

	return nl_request(dump_msg(buf, 0), kfdb_msg_cb, &c);
}

/* A non-blocking socket of its own (bound: its portid). NULL, errno set. */
static struct mnl_socket *sock_open(void)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	int err;

	if (nl && mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = errno;
		mnl_socket_close(nl);
		errno = err;
		return NULL;
	}
	return nl;
}

int kfdb_dump_start(struct kfdb_dump *d, uint32_t master)
{
	char buf[KFDB_MSG_MAX];
	struct nlmsghdr *nlh = dump_msg(buf, master);

	kfdb_dump_stop(d);
	d->nl = sock_open();
	if (!d->nl)
		return -errno;
	d->portid = mnl_socket_get_portid(d->nl);
	d->seq = nlh->nlmsg_seq = (unsigned int)time(NULL);
	if (mnl_socket_sendto(d->nl, nlh, nlh->nlmsg_len) < 0) {
		int err = -errno;

		kfdb_dump_stop(d);
		return err;
	}
	return 0;
}

int kfdb_dump_step(struct kfdb_dump *d, kfdb_cb cb, void *arg, unsigned int reads)
{
	/* The kernel makes each part as large as the reader's buffer, and
	 * walks its table from the start for every part (a bridge's FDB dump
	 * costs parts x entries): large parts, few of them. */
	char buf[KFDB_DUMP_BUF];
	struct kfdb_ctx c = { cb, arg };
	ssize_t n;
	int ret;

	while (d->nl && reads--) {
		n = mnl_socket_recvfrom(d->nl, buf, sizeof(buf));
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		ret = n < 0 ? -1 : mnl_cb_run(buf, (size_t)n, d->seq, d->portid, kfdb_msg_cb, &c);
		if (ret <= MNL_CB_STOP) {
			ret = ret < 0 ? -errno : 1;	/* NLMSG_DONE: 0 */
			kfdb_dump_stop(d);
			return ret;
		}
	}
	return d->nl ? 0 : -EBADF;
}

void kfdb_dump_stop(struct kfdb_dump *d)
{
	if (d->nl)
		mnl_socket_close(d->nl);
	d->nl = NULL;
}

int kfdb_writer_open(struct kfdb_writer *w)
{
	w->n = 0;
	w->len = 0;
	w->seq = (unsigned int)time(NULL);
	w->nl = sock_open();
	return w->nl ? 0 : -errno;
}

void kfdb_writer_close(struct kfdb_writer *w)
{
	if (w->nl)
		mnl_socket_close(w->nl);
	w->nl = NULL;
}

static int put(struct kfdb_writer *w, uint32_t ifindex, const uint8_t mac[6], uint16_t vlan,
	       bool add, enum kfdb_kind kind)
{
	struct nlmsghdr *nlh;

	if (w->n == KFDB_BATCH)
		return -ENOSPC;
	nlh = set_msg(w->buf + w->len, ifindex, mac, vlan, add, kind);
	nlh->nlmsg_seq = ++w->seq;
	w->len += NLMSG_ALIGN(nlh->nlmsg_len);
	w->n++;
	return 0;
}

int kfdb_put(struct kfdb_writer *w, uint32_t ifindex, const uint8_t mac[6], bool add)
{
	return put(w, ifindex, mac, 0, add, KFDB_EXTERN);
}

int kfdb_put_kind(struct kfdb_writer *w, uint32_t ifindex, const uint8_t mac[6],
		  enum kfdb_kind kind)
{
	return put(w, ifindex, mac, 0, true, kind);
}

int kfdb_put_vlan(struct kfdb_writer *w, uint32_t ifindex, const uint8_t mac[6], uint16_t vlan,
		  bool add, enum kfdb_kind kind)
{
	return put(w, ifindex, mac, vlan, add, kind);
}

int kfdb_flush(struct kfdb_writer *w)
{
	ssize_t sent = w->len ? mnl_socket_sendto(w->nl, w->buf, w->len) : 0;

	w->n = 0;
	w->len = 0;
	return sent < 0 ? -errno : 0;
}

/* An NLMSG_ERROR answer to a request of ours: the request is in it. */
static void error_msg(const struct nlmsghdr *nlh, kfdb_err_cb cb, void *arg)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlmsghdr *req = &e->msg;
	struct kfdb_entry k = { 0 };
	const struct ndmsg *ndm;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)) || !e->error)
		return;
	if (req->nlmsg_len < NLMSG_LENGTH(sizeof(*ndm)) ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)) - sizeof(*req) + req->nlmsg_len)
		return;		/* the request not quoted in full */
	ndm = mnl_nlmsg_get_payload(req);
	k.ifindex = (uint32_t)ndm->ndm_ifindex;
	k.flags = ndm->ndm_flags;
	k.deleted = req->nlmsg_type == RTM_DELNEIGH;
	mnl_attr_parse(req, sizeof(*ndm), kfdb_attr_cb, &k);
	if (!(k.deleted && e->error == -ENOENT))
		cb(&k, e->error, arg);
}

int kfdb_writer_errors(struct kfdb_writer *w, kfdb_err_cb cb, void *arg, unsigned int reads)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	const struct nlmsghdr *nlh;
	int n;

	while (reads--) {
		n = (int)mnl_socket_recvfrom(w->nl, buf, sizeof(buf));
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, n);
		     nlh = mnl_nlmsg_next(nlh, &n))
			if (nlh->nlmsg_type == NLMSG_ERROR)
				error_msg(nlh, cb, arg);
	}
	return 0;
}

struct mnl_socket *kfdb_watch_open(void)
{
	/* A kernel bridge's FDB changes in bursts (a MAC flood, a BGP
	 * session's routes). */
	return nl_subscribe_burst(1U << (RTNLGRP_NEIGH - 1));
}

int kfdb_watch_read(struct mnl_socket *nl, kfdb_cb cb, void *arg, unsigned int reads)
{
	struct kfdb_ctx c = { cb, arg };

	return nl_read_some(nl, kfdb_msg_cb, &c, reads);
}

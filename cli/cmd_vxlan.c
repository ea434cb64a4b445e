// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cmd_vxlan.c - xdpbr vxlan show: the bridge's VXLAN overlay (doc/evpn.md).
 *
 * The overlay is kernel objects that xdpbrd makes and names after the
 * bridge (lib/overlay.h), so the CLI reads them over netlink, as zebra
 * does: they are the truth FRR acts on, they outlive the daemon as the
 * pinned maps do, and nothing needs copying into a map of its own. The
 * count of remote MACs comes from the pinned FDB (XDPBR_FDB_REMOTE), that
 * of mirrored local MACs from the kernel bridge's FDB.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/neighbour.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "fdbtab.h"
#include "kfdb.h"
#include "overlay.h"
#include "print.h"

struct vxlan_view {
	struct overlay ov;
	struct link_info vx;
	char underlay[IF_NAMESIZE];
	uint64_t remote, local;		/* MACs in xdpbr's FDB / mirrored to the kernel */
};

static void count_local(const struct kfdb_entry *k, void *arg)
{
	struct vxlan_view *v = arg;

	if (!k->deleted && k->ifindex == v->ov.ifindex[OV_GWK] && k->flags & NTF_EXT_LEARNED)
		v->local++;
}

static int count_remote(const struct target *t, struct vxlan_view *v)
{
	struct fdb_entry *e = NULL;
	size_t n;
	int err = fdb_dump(t->m.fdb, &e, &n);

	for (size_t i = 0; !err && i < n; i++)
		v->remote += (e[i].val.flags &
			      (XDPBR_FDB_REMOTE | XDPBR_FDB_USER | XDPBR_FDB_EXTERN)) ==
				     XDPBR_FDB_REMOTE &&
			     e[i].val.ifindex == v->ov.ifindex[OV_GW];
	free(e);
	return err;
}

/* 0 with *v filled, 1: no overlay, -errno. */
static int vxlan_read(const struct target *t, struct vxlan_view *v)
{
	char why[160];
	int err;

	memset(v, 0, sizeof(*v));
	err = overlay_find(t->br, &v->ov, why, sizeof(why));
	if (err == -EEXIST || (!err && !v->ov.ifindex[OV_VXLAN]))
		return 1;
	if (!err)
		err = link_get_info(v->ov.ifindex[OV_VXLAN], &v->vx);
	if (!err && v->vx.vxlan.link && !if_indextoname(v->vx.vxlan.link, v->underlay))
		snprintf(v->underlay, sizeof(v->underlay), "?");
	if (!err)
		err = count_remote(t, v);
	if (!err)
		err = kfdb_dump(count_local, v);
	return err;
}

static void print_vxlan(const char *br, const struct vxlan_view *v)
{
	char ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &v->vx.vxlan.local, ip, sizeof(ip));
	print_open_object(NULL);
	print_string(PRINT_ANY, "bridge", "%s:", br);
	print_u64(PRINT_ANY, "vni", " vni %llu", v->vx.vxlan.vni);
	print_string(PRINT_ANY, "local_ip", " local_ip %s", ip);
	print_u64(PRINT_ANY, "dstport", " dstport %llu", v->vx.vxlan.dstport);
	if (v->underlay[0])
		print_string(PRINT_ANY, "underlay", " underlay %s", v->underlay);
	print_string(PRINT_ANY, "vxlan", " vxlan %s", v->ov.name[OV_VXLAN]);
	print_string(PRINT_ANY, "kernel_bridge", " kernel_bridge %s", v->ov.name[OV_KBRIDGE]);
	print_string(PRINT_ANY, "gateway", " gateway %s", v->ov.name[OV_GW]);
	print_string(PRINT_ANY, "state", " state %s", LINK_UP(v->vx.flags) ? "up" : "down");
	print_u64(PRINT_ANY, "local_macs", " local_macs %llu", v->local);
	print_u64(PRINT_ANY, "remote_macs", " remote_macs %llu", v->remote);
	print_close_object();
	print_nl();
}

int do_vxlan_show(const struct cli_cmd *c, struct target *t)
{
	struct vxlan_view v;
	int ret = vxlan_read(t, &v);

	if (ret < 0)
		return cli_error(ret, "can't read the overlay of bridge %s: %s%s", t->br,
				 strerror(-ret), errno_hint(ret));
	print_begin(c->json, c->pretty);
	print_open_array(NULL);
	if (ret == 0)
		print_vxlan(t->br, &v);
	print_close_array();
	print_end();
	return 0;
}

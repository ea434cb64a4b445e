// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_vlan.c - xdpbr vlan show | add | del: the VLANs of the ports. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "xdpbr_rules.h"
#include "ctl.h"
#include "ports.h"
#include "print.h"

/* What vlan show shows of one port. */
struct vlan_info {
	char ifname[IFNAME_SHOWN];	/* as shown (name_escape) */
	struct xdpbr_vlan_port v;
	uint16_t pvid;
};

/* VLANs shown as one: consecutive members with the same flags; the PVID
 * always alone. */
struct vlan_range {
	unsigned int from, to;
	bool pvid, untagged;
};

/* The range that starts at the first member from vid on; false if none. */
static bool next_vlan_range(const struct vlan_info *vi, unsigned int vid, struct vlan_range *r)
{
	const struct xdpbr_vlan_port *v = &vi->v;

	while (vid <= XDPBR_VLAN_MAX && !xdpbr_vlan_test(v->member, (__u16)vid))
		vid++;
	if (vid > XDPBR_VLAN_MAX)
		return false;
	r->from = r->to = vid;
	r->pvid = vid == vi->pvid;
	r->untagged = xdpbr_vlan_test(v->untagged, (__u16)vid);
	if (r->pvid)
		return true;
	while (r->to < XDPBR_VLAN_MAX && r->to + 1 != vi->pvid &&
	       xdpbr_vlan_test(v->member, (__u16)(r->to + 1)) &&
	       xdpbr_vlan_test(v->untagged, (__u16)(r->to + 1)) == r->untagged)
		r->to++;
	return true;
}

/* The ports dev selects (0: all) into vi[]: their number, or the reported
 * error. */
static int vlans_read(const struct cli_cmd *c, const struct target *t,
		      const struct port_entry *p, size_t n, uint32_t dev, struct vlan_info *vi)
{
	size_t k = 0;
	int err;

	if (dev && !ports_find(p, n, dev))
		return port_error(-ENODEV, c, t, "show the VLANs of");
	for (size_t i = 0; i < n; i++) {
		if (dev && p[i].ifindex != dev)
			continue;
		err = ctl_vlan_get(&t->m, p[i].port.slot, &vi[k].v);
		if (err)
			return cli_error(err, "can't read the VLANs of bridge %s: %s%s", t->br,
					 strerror(-err), errno_hint(err));
		ifname_shown(p[i].ifindex, vi[k].ifname);
		vi[k++].pvid = p[i].port.pvid;
	}
	return (int)k;
}

/* "VID[-VID] [PVID] [Egress Untagged]", or {"vlan", "vlanEnd"?, "flags"}. */
static void print_vlan_range(const struct vlan_range *r)
{
	print_open_object(NULL);
	print_u64(PRINT_ANY, "vlan", "%llu", r->from);
	if (r->to != r->from)
		print_u64(PRINT_ANY, "vlanEnd", "-%llu", r->to);
	print_open_array("flags");
	if (r->pvid)
		print_string(PRINT_ANY, NULL, " %s", "PVID");
	if (r->untagged)
		print_string(PRINT_ANY, NULL, " %s", "Egress Untagged");
	print_close_array();
	print_close_object();
	print_nl();
}

/* As `bridge vlan show`: the port's name on the line of its first VLAN
 * (range), the others indented under it; with -j {"ifname", "vlans"}. */
static void print_vlan_port(const struct vlan_info *vi)
{
	struct vlan_range r;
	bool first = true;

	print_open_object(NULL);
	print_string(PRINT_JSON, "ifname", NULL, vi->ifname);
	print_open_array("vlans");
	for (unsigned int vid = 1; next_vlan_range(vi, vid, &r); vid = r.to + 1) {
		print_text("%-16s  ", first ? vi->ifname : "");
		print_vlan_range(&r);
		first = false;
	}
	if (first)
		print_text("%-16s  none\n", vi->ifname);
	print_close_array();
	print_close_object();
}

int do_vlan_show(const struct cli_cmd *c, struct target *t)
{
	struct vlan_info *vi;
	struct port_entry *p;
	uint32_t dev;
	size_t n;
	int k;

	k = shown_ports(c, t, &dev, &p, &n);
	if (k)
		return k;
	vi = calloc(n + 1, sizeof(*vi));
	if (!vi) {
		free(p);
		return cli_error(-ENOMEM, "out of memory");
	}
	k = vlans_read(c, t, p, n, dev, vi);
	if (k >= 0) {
		print_begin(c->json, c->pretty);
		print_text("%-16s  %s\n", "port", "vlan-id");
		print_open_array(NULL);
		for (int i = 0; i < k; i++)
			print_vlan_port(&vi[i]);
		print_close_array();
		print_end();
	}
	free(vi);
	free(p);
	return k < 0 ? k : 0;
}

int do_vlan_add(const struct cli_cmd *c, struct target *t)
{
	uint32_t dev;
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = ctl_vlan_add(&t->m, dev, c->vid_from, c->vid_to, c->pvid, c->untagged);
	if (err)
		return port_error(err, c, t, "add VLANs to");
	return 0;
}

/* "VID" or "VID-VID" of vid, for messages. */
static const char *vid_text(const struct cli_cmd *c, char *buf, size_t len)
{
	if (c->vid_from == c->vid_to)
		snprintf(buf, len, "%u", c->vid_from);
	else
		snprintf(buf, len, "%u-%u", c->vid_from, c->vid_to);
	return buf;
}

/* Every VLAN of vid is one of DEV's: 0, or the reported -ENOENT. */
static int check_members(const struct cli_cmd *c, const struct xdpbr_vlan_port *v)
{
	char vids[16];

	for (unsigned int vid = c->vid_from; vid <= c->vid_to; vid++) {
		if (xdpbr_vlan_test(v->member, (__u16)vid))
			continue;
		if (c->vid_from == c->vid_to)
			return cli_error(-ENOENT, "'%s' is not in VLAN %u (see 'xdpbr vlan show "
					 "dev %s')", c->dev, vid, c->dev);
		return cli_error(-ENOENT, "'%s' is not in VLAN %u, so nothing of %s was "
				 "removed (see 'xdpbr vlan show dev %s')", c->dev, vid,
				 vid_text(c, vids, sizeof(vids)), c->dev);
	}
	return 0;
}

/* Like the kernel, deleting a VLAN the port is not in is an error; here
 * nothing of the range is deleted then. */
int do_vlan_del(const struct cli_cmd *c, struct target *t)
{
	struct xdpbr_vlan_port v;
	struct xdpbr_port p;
	uint32_t dev;
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = ctl_port_get(&t->m, dev, &p);
	if (!err)
		err = ctl_vlan_get(&t->m, p.slot, &v);
	if (err)
		return port_error(err, c, t, "remove VLANs from");
	err = check_members(c, &v);
	if (err)
		return err;
	err = ctl_vlan_del(&t->m, dev, c->vid_from, c->vid_to);
	if (err)
		return port_error(err, c, t, "remove VLANs from");
	return 0;
}

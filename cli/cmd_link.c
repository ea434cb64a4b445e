// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_link.c - xdpbr link show | set | add | del: the bridge's ports. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge.h"
#include "common.h"
#include "ctl.h"
#include "json.h"
#include "ports.h"
#include "print.h"

/* What link show shows of one port: the ports map's entry, what the kernel
 * says of its interface, its storm control limits. */
struct link_info {
	const struct port_entry *p;
	struct port_link l;
	struct xdpbr_storm storm;
	enum xdpbr_stp_state stp;	/* the state the datapath enforces */
	bool stp_on;
	bool gone;		/* its interface is gone: l.ifname is the name it had */
};

int shown_ports(const struct cli_cmd *c, struct target *t, uint32_t *dev,
		struct port_entry **p, size_t *n)
{
	int err = dev_ifindex(c, dev);

	if (err)
		return err;
	err = ports_dump(t->m.ports, p, n);
	if (err)
		return cli_error(err, "can't read the ports of bridge %s: %s%s", t->br,
				 strerror(-err), errno_hint(err));
	return 0;
}

/* Whether the port's interface is gone (deleted while no daemon ran, or its
 * ifindex now another interface's, running none of the bridge's programs):
 * then l->ifname becomes the name it had. */
static bool link_gone(const struct target *t, const struct port_entry *p,
		      struct port_link *l)
{
	char had[XDPBR_IFNAMSIZ] = "", now[IF_NAMESIZE];

	ctl_port_name_get(&t->m, p->port.slot, had);
	if (if_indextoname(p->ifindex, now) &&
	    (!had[0] || !strcmp(had, now) || strcmp(l->datapath, "none")))
		return false;
	if (had[0])
		snprintf(l->ifname, sizeof(l->ifname), "%s", had);
	return true;
}

static int link_info_read(const struct target *t, const struct port_entry *p,
			  struct link_info *li)
{
	int err;

	li->p = p;
	port_link_read(p, &li->l);
	li->gone = link_gone(t, p, &li->l);
	memset(&li->storm, 0, sizeof(li->storm));
	li->stp_on = ctl_stp_enabled(&t->m) > 0;
	err = ctl_port_stp_effective(&t->m, &p->port, &li->stp) ?:
	      ctl_storm_get(&t->m, p->ifindex, &li->storm);
	return err == -ENODEV ? 0 : err;	/* ENODEV: removed since the dump */
}

/* The ports dev selects (0: all), read into li[]: their number, or the
 * reported error. */
static int links_read(const struct target *t, const struct port_entry *p, size_t n,
		      uint32_t dev, struct link_info *li)
{
	size_t k = 0;
	int err;

	for (size_t i = 0; i < n; i++) {
		if (dev && p[i].ifindex != dev)
			continue;
		err = link_info_read(t, &p[i], &li[k++]);
		if (err)
			return cli_error(err, "can't read the state and storm control limits "
					 "of bridge %s: %s%s", t->br, strerror(-err),
					 errno_hint(err));
	}
	return (int)k;
}

/* <BROADCAST,MULTICAST,UP,LOWER_UP> */
static void print_ifflags(unsigned int ifflags)
{
	const char *sep = "";

	print_text("<");
	for (size_t i = 0; i < PORT_IFF_NAMES; i++) {
		if (!(ifflags & port_iff_names[i].bit))
			continue;
		print_text("%s%s", sep, port_iff_names[i].name);
		sep = ",";
	}
	print_text(">");
}

static const char *link_state(const struct link_info *li)
{
	return li->gone ? "gone" : port_state_name(li->p, &li->l, li->stp, li->stp_on);
}

/* The port's object of GET /stats (json_port()), with its storm control
 * limits, frames per second, 0 = none: "storm": {"broadcast", ...}. */
static struct json_object *link_json(const struct link_info *li, const char *br)
{
	struct json_object *o = json_port(li->p, &li->l, link_state(li), br);

	json_object_object_add(o, "storm", json_storm(&li->storm));
	return o;
}

/* One line of link show, like `ip link`'s; the storm control limits only
 * where there are some. */
static void print_link_text(const struct link_info *li, const char *br)
{
	const struct port_entry *p = li->p;
	const __u32 *pps = li->storm.pps;

	print_text("%u: %s: ", p->ifindex, li->l.ifname);
	print_ifflags(li->l.ifflags);
	print_text(" mtu %d master %s state %s kind %s datapath %s", li->l.mtu, br,
		   link_state(li), li->l.kind, li->l.datapath ? li->l.datapath : "none");
	if (p->port.flags & XDPBR_PORT_HOST)
		print_text(" host_interface %s", li->l.host_interface);
	print_text(" xdp %s", port_mode_name(li->l.xdp_mode));
	if (li->l.xdp_attach && !strcmp(li->l.xdp_attach, "dispatcher"))
		print_text(" %s", li->l.xdp_attach);
	if (li->l.xdp_prog_id)
		print_text(" id %u", li->l.xdp_prog_id);
	if (li->gone)
		print_text(" slot %u", p->port.slot);
#define PRINT_FLAG(NAME, bit, word, nl) \
	print_text(" " word " %s", p->port.flags & XDPBR_PORT_##NAME ? "on" : "off");
	XDPBR_PORT_FLAGS(PRINT_FLAG)
#undef PRINT_FLAG
	print_text(" max_learned %u pvid %u", p->port.max_learned, p->port.pvid);
	if (pps[XDPBR_STORM_BCAST] || pps[XDPBR_STORM_MCAST] || pps[XDPBR_STORM_UNKNOWN])
		print_text(" storm bcast %u mcast %u unknown %u", pps[XDPBR_STORM_BCAST],
			   pps[XDPBR_STORM_MCAST], pps[XDPBR_STORM_UNKNOWN]);
	print_nl();
}

static void print_link(const struct link_info *li, const char *br)
{
	if (print_is_json())
		print_json_object(NULL, link_json(li, br));
	else
		print_link_text(li, br);
}

int do_link_show(const struct cli_cmd *c, struct target *t)
{
	struct link_info *li;
	struct port_entry *p;
	uint32_t dev;
	size_t n;
	int k;

	k = shown_ports(c, t, &dev, &p, &n);
	if (k)
		return k;
	li = calloc(n + 1, sizeof(*li));
	if (!li) {
		free(p);
		return cli_error(-ENOMEM, "out of memory");
	}
	k = links_read(t, p, n, dev, li);
	if (k >= 0) {
		print_begin(c->json, c->pretty);
		print_open_array(NULL);
		for (int i = 0; i < k; i++)
			print_link(&li[i], t->br);
		print_close_array();
		print_end();
	}
	free(li);
	free(p);
	return k < 0 ? k : 0;
}

/* The port flags and learning limit: ctl rewrites the flood sets through
 * the bridge's egress program. */
static int set_port(const struct cli_cmd *c, const struct target *t, uint32_t dev,
		    struct xdpbr_port *p)
{
	int egress = open_egress(t), err;

	if (egress < 0)
		return egress;
	settings_port_put(&c->set, c->set.given, p);
	err = ctl_port_apply(&t->m, dev, p, egress);
	close(egress);
	return err ? port_error(err, c, t, "configure") : 0;
}

/* The storm control limits given; the classes not given keep theirs. */
static int set_storm(const struct cli_cmd *c, const struct target *t, uint32_t dev)
{
	struct xdpbr_storm st;
	int err;

	err = ctl_storm_get(&t->m, dev, &st);
	if (!err) {
		settings_storm_put(&c->set, c->set.given, st.pps);
		err = ctl_storm_set(&t->m, dev, st.pps);
	}
	return err ? port_error(err, c, t, "set the storm control limits of") : 0;
}

/* A port's spanning tree state, by hand: only while STP is off (while it
 * runs, the daemon owns the states). The edge bit stays. */
static int set_state(const struct cli_cmd *c, const struct target *t, uint32_t dev)
{
	int on = ctl_stp_enabled(&t->m), err = on < 0 ? on : 0;
	enum xdpbr_stp_state st;
	bool edge = false;

	if (on > 0)
		return cli_error(-EBUSY, "can't set the state of '%s': the spanning tree sets "
				 "the port states of bridge %s while STP is on (turn it off "
				 "first: 'xdpbr bridge set stp off')", c->dev, t->br);
	if (!err)
		err = ctl_port_stp_get(&t->m, dev, &st, &edge);
	if (!err)
		err = ctl_port_stp_set(&t->m, dev, (enum xdpbr_stp_state)c->set.v[SET_STATE], edge);
	return err ? port_error(err, c, t, "set the state of") : 0;
}

/* The settings given, by where they live. */
static bool given_at(const struct cli_cmd *c, enum setting_home home)
{
	return (c->set.given | c->set.acted) & settings_mask(SETTING_PORT, home);
}

int do_link_set(const struct cli_cmd *c, struct target *t)
{
	struct xdpbr_port p;
	uint32_t dev;
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = ctl_port_get(&t->m, dev, &p);
	if (err)
		return port_error(err, c, t, "configure");
	if (given_at(c, SETTING_AT_STP_PORT))	/* first: refused while STP runs */
		err = set_state(c, t, dev);
	if (!err && given_at(c, SETTING_AT_PORT))
		err = set_port(c, t, dev, &p);
	if (!err && given_at(c, SETTING_AT_STORM))
		err = set_storm(c, t, dev);
	if (!err && given_at(c, SETTING_AT_STP))
		err = stp_request(c, t, dev);
	return err;
}

int do_link_add(const struct cli_cmd *c, struct target *t)
{
	struct bridge br;
	uint32_t dev;
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = bridge_open_pinned(&br, t->br);
	if (err)
		return cli_error(err, "can't open bridge %s: %s%s", t->br, strerror(-err),
				 errno_hint(err));
	br.mode = c->mode;
	err = bridge_add_port(&br, c->dev);	/* logs the reason of a failure */
	bridge_close_pinned(&br);
	if (err)
		return cli_error(err, "couldn't add '%s' to bridge %s: %s", c->dev, t->br,
				 strerror(-err));
	return 0;
}

/* By the port's name (or the one it had, if its interface is gone) or by
 * its slot; bridge_del_* say why one isn't there. */
int do_link_del(const struct cli_cmd *c, struct target *t)
{
	struct bridge br;
	char what[32];
	int err;

	err = bridge_open_pinned(&br, t->br);
	if (err)
		return cli_error(err, "can't open bridge %s: %s%s", t->br, strerror(-err),
				 errno_hint(err));
	err = c->dev ? bridge_del_port(&br, c->dev) : bridge_del_slot(&br, c->slot);
	bridge_close_pinned(&br);
	if (!err)
		return 0;
	if (c->dev)
		snprintf(what, sizeof(what), "'%s'", c->dev);
	else
		snprintf(what, sizeof(what), "the port in slot %u", c->slot);
	return cli_error(err, "couldn't remove %s from bridge %s: %s%s", what, t->br,
			 strerror(-err), err == -ENODEV ? " (see 'xdpbr link show')" :
			 errno_hint(err));
}

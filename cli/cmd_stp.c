// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_stp.c - xdpbr stp show, and the spanning tree words of bridge set and
 * link set: the spanning tree runs in xdpbrd, so both go through the pinned
 * maps it reads and writes (lib/stpmap.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "ctl.h"
#include "events.h"
#include "print.h"
#include "settings.h"
#include "stpmap.h"
#include "util.h"

/* The daemon runs the tree: without it, say so (exit status non-zero). */
static int need_daemon(const struct target *t, const char *what)
{
	if (events_daemon_runs(t->br))
		return 0;
	return cli_error(-ESRCH, "%s needs xdpbrd: the spanning tree runs in the daemon, and "
			 "no xdpbrd runs bridge %s (start it, with stp = on in its "
			 "configuration file or followed by 'xdpbr bridge set stp on')", what,
			 t->br);
}

static int open_map(const struct target *t, const char *name, bool ro)
{
	int fd = stpmap_open(t->br, name, ro, false);

	if (fd == -ENOENT)
		return cli_error(fd, "bridge %s has no %s map: its xdpbrd predates the spanning "
				 "tree; restart it", t->br, name);
	if (fd < 0)
		return cli_error(fd, "can't open the %s map of bridge %s: %s%s", name, t->br,
				 strerror(-fd), errno_hint(fd));
	return fd;
}


/* The timers the daemon will use, checked against each other before the
 * request goes: the configured ones it reports, with those given. */
static int check_timers(const struct target *t, const struct stpmap_req *r)
{
	struct stpmap_bridge b;
	unsigned int h, m, f;
	const char *why;
	int fd = open_map(t, STPMAP_STATUS, true), err;

	if (fd < 0)
		return fd;
	err = stpmap_get(fd, 0, &b, sizeof(b));
	close(fd);
	if (err || !b.cfg_max_age)
		return 0;		/* the daemon checks it again */
	h = r->set & STPREQ_HELLO ? r->hello_time : b.cfg_hello_time;
	m = r->set & STPREQ_MAX_AGE ? r->max_age : b.cfg_max_age;
	f = r->set & STPREQ_FWD_DELAY ? r->forward_delay : b.cfg_forward_delay;
	why = stpmap_timers_check(h, m, f);
	if (!why)
		return 0;
	return cli_error(-EINVAL, "%s (hello_time %u, max_age %u, forward_delay %u): 802.1D "
			 "requires 2 * (forward_delay - 1) >= max_age >= 2 * (hello_time + 1)",
			 why, h, m, f);
}

/* bpdu_guard acts only on an admin edge port (the file refuses it
 * otherwise): the port's settings once the request is applied, those it
 * does not give as the daemon reports them. */
static int check_guard(const struct target *t, uint32_t slot, const struct stpmap_req *r)
{
	struct stpmap_port p;
	unsigned int edge;
	bool guard;
	int fd = open_map(t, STPMAP_STATUS, true), err;

	if (fd < 0)
		return fd;
	err = stpmap_get(fd, slot, &p, sizeof(p));
	close(fd);
	if (err || p.ifindex != r->ifindex)
		return 0;		/* the daemon warns */
	guard = r->set & STPREQ_BPDU_GUARD ? r->bpdu_guard : p.flags & STPMAP_P_BPDU_GUARD;
	edge = r->set & STPREQ_EDGE ? r->edge : p.admin_edge;
	if (!guard || edge == STPMAP_EDGE_ON)
		return 0;
	return cli_error(-EINVAL, "bpdu_guard acts only on an admin edge port: with edge %s it "
			 "would never shut %s (give edge on with it, or bpdu_guard off)",
			 stpmap_edge_name(edge), p.ifname);
}

int stp_request(const struct cli_cmd *c, const struct target *t, uint32_t dev)
{
	struct stpmap_req r = { 0 };
	uint32_t key = 0;
	struct xdpbr_port p;
	int fd, err;

	err = need_daemon(t, dev ? "link set path_cost/edge/..." : "bridge set stp/priority/...");
	if (err)
		return err;
	if (dev) {
		err = ctl_port_get(&t->m, dev, &p);
		if (err)
			return port_error(err, c, t, "configure the spanning tree of");
		key = p.slot;
	}
	fd = open_map(t, STPMAP_CFG, false);
	if (fd < 0)
		return fd;
	err = stpmap_get(fd, key, &r, sizeof(r));
	if (!err && dev && r.ifindex != dev)
		r = (struct stpmap_req){ .seq = r.seq, .ifindex = dev };	/* a new port */
	if (!err) {	/* over the request there (r.set accumulates) */
		settings_stp_put(&c->set, dev ? SETTING_PORT : SETTING_BRIDGE, &r);
		r.seq++;
	}
	if (!err && !dev)
		err = check_timers(t, &r);
	else if (!err)
		err = check_guard(t, key, &r);
	else if (err)
		err = cli_error(err, "can't read the spanning tree requests of bridge %s: %s",
				t->br, strerror(-err));
	if (!err) {
		err = stpmap_put(fd, key, &r, sizeof(r));
		if (err)
			cli_error(err, "can't write the spanning tree request: %s%s",
				  strerror(-err), errno_hint(err));
	}
	close(fd);
	return err;
}

/* --- stp show --- */

static void print_port_text(const struct stpmap_port *p)
{
	char db[32];

	print_text("  %s: role %s state %s cost %u priority %u%s%s%s\n", p->ifname,
		   stpmap_role_name(p->role), stpmap_state_name(p->state), p->path_cost,
		   p->port_id >> 8 & 0xf0, p->flags & STPMAP_P_LINK_UP ? "" : " link down",
		   p->flags & STPMAP_P_GUARD ? " GUARD TRIPPED" : "",
		   p->flags & STPMAP_P_HELD ? " HELD DISCARDING" : "");
	if (p->sock_err)
		print_text("    no BPDU socket: %s\n", strerror((int)p->sock_err));
	print_text("    designated bridge %s port 0x%04x cost %u\n",
		   stpmap_id_format(p->designated_bridge, db, sizeof(db)), p->designated_port,
		   p->designated_cost);
	print_text("    edge %s (admin %s) p2p %s protocol %s bpdu_guard %s root_guard %s\n",
		   p->flags & STPMAP_P_EDGE ? "yes" : "no", stpmap_edge_name(p->admin_edge),
		   p->flags & STPMAP_P_P2P ? "yes" : "no",
		   p->flags & STPMAP_P_LEGACY ? "stp" : "rstp",
		   p->flags & STPMAP_P_BPDU_GUARD ? "on" : "off",
		   p->flags & STPMAP_P_ROOT_GUARD ? "on" : "off");
	print_text("    bpdus in %llu out %llu bad %llu aged %llu clamped %llu, tc in %llu out "
		   "%llu, guard trips %llu\n",
		   (unsigned long long)p->bpdus_in, (unsigned long long)p->bpdus_out,
		   (unsigned long long)p->bad_bpdus, (unsigned long long)p->aged_bpdus,
		   (unsigned long long)p->clamped_bpdus, (unsigned long long)p->tc_in,
		   (unsigned long long)p->tc_out, (unsigned long long)p->guard_trips);
}

static void print_text_show(const char *br, const struct stpmap_snapshot *s, uint64_t now)
{
	const struct stpmap_bridge *b = &s->br;
	char id[32], root[32];
	const char *rp = "";

	if (!b->enabled) {
		print_text("bridge %s: stp off (xdpbr bridge set stp on)\n", br);
		return;
	}
	for (int i = 1; i < XDPBR_MAX_PORTS; i++)
		if (b->root_ifindex && s->ports[i].ifindex == b->root_ifindex)
			rp = s->ports[i].ifname;
	print_text("bridge %s: stp on\n  bridge id %s\n  root id %s%s\n", br,
		   stpmap_id_format(b->bridge_id, id, sizeof(id)),
		   stpmap_id_format(b->root_id, root, sizeof(root)),
		   b->root_ifindex ? "" : " (this bridge)");
	if (b->root_ifindex)
		print_text("  root port %s, root path cost %u\n", rp, b->root_path_cost);
	print_text("  hello_time %u max_age %u forward_delay %u\n", b->hello_time, b->max_age,
		   b->forward_delay);
	if (b->last_tc_ns && now >= b->last_tc_ns)
		print_text("  topology changes %llu, the last %.1f s ago%s\n",
			   (unsigned long long)b->topology_changes,
			   (double)(now - b->last_tc_ns) / 1e9,
			   b->tc_active ? " (still propagating)" : "");
	else
		print_text("  topology changes %llu\n", (unsigned long long)b->topology_changes);
	print_text("  fdb flushes %llu%s\n", (unsigned long long)b->fdb_flushes,
		   b->fdb_flush_running ? " (one under way)" : "");
	for (int i = 1; i < XDPBR_MAX_PORTS; i++)
		if (s->ports[i].ifindex)
			print_port_text(&s->ports[i]);
}

int do_stp_show(const struct cli_cmd *c, struct target *t)
{
	struct stpmap_snapshot s;
	int fd, err = need_daemon(t, "stp show");

	if (err)
		return err;
	fd = open_map(t, STPMAP_STATUS, true);
	if (fd < 0)
		return fd;
	err = stpmap_read(fd, &s);
	close(fd);
	if (err)
		return cli_error(err, "can't read the spanning tree status of bridge %s: %s%s",
				 t->br, strerror(-err), errno_hint(err));
	print_begin(c->json, c->pretty);
	if (c->json)
		print_json_object(NULL, stpmap_json(&s, mono_ns()));
	else
		print_text_show(t->br, &s, mono_ns());
	print_end();
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_fdb.c - xdpbr fdb show | add | del | flush: the forwarding database. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "ctl.h"
#include "fdbtab.h"
#include "json.h"
#include "ports.h"
#include "print.h"
#include "util.h"

/* The entries f selects, in place; their number. */
static size_t fdb_select(struct fdb_entry *e, size_t n, const struct fdb_filter *f)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (fdb_filter_match(&e[i], f))
			e[k++] = e[i];
	return k;
}

/* "MAC dev DEV vlan VID master BRIDGE [static] updated S", or the
 * entry's object of the daemon's GET /fdb (json_fdb_entry()). */
static void print_fdb_entry(const struct fdb_entry *e, const char *br, uint64_t now,
			    struct ifname_cache *names)
{
	char mac[MAC_STRLEN], ifname[IFNAME_SHOWN];

	if (print_is_json()) {
		print_json_object(NULL, json_fdb_entry(e, br, now, names));
		return;
	}
	print_text("%s dev %s vlan %u master %s", mac_format(e->key.mac, mac),
		   ifname_cached(names, e->val.ifindex, ifname), e->key.vlan, br);
	if (e->val.flags & (XDPBR_FDB_STATIC | XDPBR_FDB_REMOTE))
		print_text(" %s%s", fdb_state_name(&e->val), fdb_is_sticky(&e->val) ? " sticky" : "");
	print_text(" updated %llu", (unsigned long long)fdb_updated_s(&e->val, now));
	print_nl();
}

int do_fdb_show(const struct cli_cmd *c, struct target *t)
{
	struct fdb_filter f = { .vlan = c->vlan, .kind = c->kind };
	struct ifname_cache names = { 0 };
	struct fdb_entry *e;
	uint64_t now = mono_ns();
	size_t n;
	int err;

	err = dev_ifindex(c, &f.ifindex);
	if (err)
		return err;
	err = fdb_dump(t->m.fdb, &e, &n);
	if (err)
		return cli_error(err, "can't read the FDB: %s%s", strerror(-err), errno_hint(err));
	n = fdb_select(e, n, &f);
	print_begin(c->json, c->pretty);
	print_open_array(NULL);
	for (size_t i = 0; i < n; i++)
		print_fdb_entry(&e[i], t->br, now, &names);
	print_close_array();
	print_end();
	free(e);
	return 0;
}

int do_fdb_add(const struct cli_cmd *c, struct target *t)
{
	char mac[MAC_STRLEN];
	uint32_t dev;
	int err;

	err = dev_ifindex(c, &dev);
	if (err)
		return err;
	err = ctl_fdb_add(&t->m, c->mac, c->vlan < 0 ? 0 : (uint16_t)c->vlan, dev,
			  c->kind != FDB_KIND_DYNAMIC);
	if (err == -E2BIG || err == -ENOSPC)
		return cli_error(err, "can't add %s: the FDB of bridge %s is full (see 'xdpbr "
				 "bridge show'; flush dynamic entries with 'xdpbr fdb flush "
				 "dynamic')", mac_format(c->mac, mac), t->br);
	if (err)
		return port_error(err, c, t, "add an FDB entry on");
	return 0;
}

/* " dev DEV vlan VID" of the filters given, for messages. */
static const char *filter_text(const struct cli_cmd *c, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s%s", c->dev ? " dev " : "", c->dev ? c->dev : "");

	if (c->vlan >= 0 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " vlan %d", c->vlan);
	return buf;
}

int do_fdb_del(const struct cli_cmd *c, struct target *t)
{
	struct fdb_filter f = { .vlan = c->vlan, .kind = FDB_KIND_ANY };
	char mac[MAC_STRLEN], what[64];
	int n;

	n = dev_ifindex(c, &f.ifindex);
	if (n)
		return n;
	n = ctl_fdb_del(&t->m, c->mac, &f);
	if (n == -ENOENT)
		return cli_error(n, "no such entry: %s%s in bridge %s (see 'xdpbr fdb show')",
				 mac_format(c->mac, mac), filter_text(c, what, sizeof(what)),
				 t->br);
	if (n < 0)
		return cli_error(n, "can't delete %s: %s%s", mac_format(c->mac, mac),
				 strerror(-n), errno_hint(n));
	return 0;
}

int do_fdb_flush(const struct cli_cmd *c, struct target *t)
{
	struct fdb_filter f = { .vlan = c->vlan, .kind = c->kind };
	int n;

	n = dev_ifindex(c, &f.ifindex);
	if (n)
		return n;
	n = ctl_fdb_flush(&t->m, &f);
	if (n < 0)
		return cli_error(n, "can't flush the FDB of bridge %s: %s%s", t->br,
				 strerror(-n), errno_hint(n));
	print_begin(c->json, c->pretty);
	print_open_object(NULL);
	print_int(PRINT_ANY, "flushed", "flushed %d entries", n);
	print_close_object();
	print_nl();
	print_end();
	return 0;
}

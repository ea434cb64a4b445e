// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpbr - inspect and configure a running bridge, in the style of iproute2's
 * `bridge`.
 *
 * Works from the pinned maps only: with or without xdpbrd running. Every
 * change is made live in the maps the datapath reads (through ctl.c). The
 * one exception is `monitor`, which reads the daemon's event stream.
 * cli.c parses the command line against the command table, which names the
 * function of cli/OBJECT.c that runs the command. Those print what went
 * wrong for a person and return 0 or -errno; main() maps that to the exit
 * status: 2 for a usage error, 1 for anything else.
 */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "log.h"
#include "netns.h"
#include "paths.h"
#include "pins.h"
#include "util.h"
#include "version.h"

/* The bridge to work on: -b, or the only one pinned in this network
 * namespace. 0 or -errno. */
static int pick_bridge(const char *want, char *out, size_t len)
{
	const struct xdpbr_paths *p;
	char names[512] = "";
	struct dirent *de;
	size_t used = 0;
	int n = 0, err;
	DIR *d;

	if (want) {
		snprintf(out, len, "%s", want);
		return 0;
	}
	err = paths_get(&p);	/* logs why not */
	if (err)
		return err;
	d = opendir(p->pin_root);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || bridge_name_valid(de->d_name))
			continue;
		/* bridge_name_valid() bounds the name to 15 characters */
		if (!n++ && strlen(de->d_name) < len)
			memcpy(out, de->d_name, strlen(de->d_name) + 1);
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used,
						 " %s", de->d_name);
	}
	if (d)
		closedir(d);
	if (n == 0)
		return cli_error(-ENOENT, "no bridge found in %s (is xdpbrd running?)",
				 p->pin_root_shown);
	if (n > 1)
		return cli_error(-EINVAL, "several bridges:%s; choose one with -b BRIDGE", names);
	return 0;
}

/* Runs the parsed command on its bridge, with the pinned maps open unless
 * it works without them. */
static int run(const struct cli_cmd *c)
{
	char br[IF_NAMESIZE];
	struct target t = { .br = br };
	int err;

	/* bridge add/del NAME works on a bridge that need not exist yet or
	 * may be the only one left to pick */
	if (c->object == OBJ_BRIDGE && (c->verb == VERB_SHOW || c->verb == VERB_ADD))
		netns_collect();	/* dead namespaces' pins (lib/netns.h) */
	if (c->name)
		return c->run(c, &(struct target){ .br = c->name });
	/* link add names its bridge with master (cli_parse() checked -b agrees) */
	err = pick_bridge(c->master ? c->master : c->bridge, br, sizeof(br));
	if (err)
		return err;
	if (c->no_maps)
		return c->run(c, &t);
	err = maps_open_pinned(br, &t.m);
	if (err) {
		const struct xdpbr_paths *p;

		return cli_error(err, "can't open bridge '%s' in %s/%s: %s%s", br,
				 paths_get(&p) ? "?" : p->pin_root_shown, br, strerror(-err),
				 err == -ENOENT ? " (is xdpbrd running?)" : errno_hint(err));
	}
	err = c->run(c, &t);
	maps_close(&t.m);
	return err;
}

int main(int argc, char **argv)
{
	char err[256];
	struct cli_cmd c;

	log_init("xdpbr", LOG_LVL_WARN, false);
	log_libbpf();
	if (cli_parse(argc, argv, &c, err, sizeof(err))) {
		fprintf(stderr, "xdpbr: %s\n", err);
		return 2;
	}
	if (c.object == OBJ_HELP) {
		fputs(cli_usage(OBJ_NONE, VERB_HELP), stdout);
		return 0;
	}
	if (c.object == OBJ_VERSION) {
		puts(version_line("xdpbr"));
		return 0;
	}
	if (c.verb == VERB_HELP || c.help) {
		fputs(cli_usage(c.object, c.verb), stdout);
		return 0;
	}
	return run(&c) ? 1 : 0;
}

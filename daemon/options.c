// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* options.c - xdpbrd's command line, and its merge with the file (daemon.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "daemon.h"
#include "log.h"
#include "settings.h"
#include "util.h"

static const char usage[] =
	"Usage: xdpbrd [OPTIONS] [BRIDGE [PORT...]]\n"
	"  -c, --config FILE      read the bridge and its ports from FILE (INI);\n"
	"                         SIGHUP reloads it\n"
	"  -n, --check            check the configuration and exit\n"
	"  -m, --mode MODE        XDP mode: native, generic or auto (default auto:\n"
	"                         native, generic only where the driver has none)\n"
	"  -d, --datapath PATH    datapath of ports: xdp, tc or auto (default auto:\n"
	"                         tc for veth and tap ports, xdp for the others)\n"
	"      --xdp-share[=on|off]\n"
	"                         XDP ports share their XDP hook with other programs\n"
	"                         through libxdp's dispatcher (default off: exclusive)\n"
	"  -k, --keep             leave the bridge forwarding when the daemon exits\n"
	"  -s, --fdb-size N       FDB capacity in entries (default %u)\n"
	"  -C, --fdb-cache N      entries of the datapath's per-CPU FDB cache: a\n"
	"                         power of two, 0 = off (default: sized from the FDB\n"
	"                         size and the CPUs, at most 2 MiB a CPU; -v says)\n"
	"  -a, --ageing-time SEC  age out dynamic FDB entries after SEC seconds\n"
	"                         (default %u; 0 = never)\n"
	"  -l, --listen ADDR:PORT HTTP statistics endpoint (default %s;\n"
	"                         'none' to disable)\n"
	"  -H, --host-interface on|off\n"
	"                         the host's interface on the bridge, a netdev\n"
	"                         named BRIDGE (default on)\n"
	"  -v, --verbose          debug logging, including libbpf's\n"
	"  -V, --version          the version and git revision, then exit\n"
	"  -h, --help             this text\n";

void print_usage(FILE *f)
{
	fprintf(f, usage, XDPBR_FDB_SIZE, XDPBR_DEFAULT_AGEING_S,
		CONFIG_LISTEN_DEFAULT);
}

#define OPT_XDP_SHARE 0x100		/* long only */

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "check", no_argument, NULL, 'n' },
	{ "mode", required_argument, NULL, 'm' },
	{ "datapath", required_argument, NULL, 'd' },
	{ "keep", no_argument, NULL, 'k' },
	{ "xdp-share", optional_argument, NULL, OPT_XDP_SHARE },
	{ "fdb-size", required_argument, NULL, 's' },
	{ "fdb-cache", required_argument, NULL, 'C' },
	{ "ageing-time", required_argument, NULL, 'a' },
	{ "listen", required_argument, NULL, 'l' },
	{ "host-interface", required_argument, NULL, 'H' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static uint64_t ageing_ns_of(uint64_t s)
{
	return s ? s * XDPBR_NSEC_PER_SEC : XDPBR_AGEING_NEVER;
}

static int add_unique(char ***v, int *n, const char *s)
{
	char **t;

	for (int i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s))
			return 0;
	t = realloc(*v, (size_t)(*n + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	*v = t;
	(*v)[(*n)++] = (char *)s;
	return 0;
}

/* One option into cl (or d); 0 or -EINVAL, having said why. */
static int parse_option(struct daemon *d, struct cmdline *cl, int opt, const char *arg)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	uint64_t v;

	switch (opt) {
	case 'c':
		d->ap.cfg_path = arg;
		return 0;
	case 'n':
		cl->check_only = true;
		return 0;
	case 'm':
		if (port_mode_parse(arg, &cl->o.mode)) {
			fprintf(stderr, "xdpbrd: invalid mode '%s' (native, generic or auto)\n", arg);
			return -EINVAL;
		}
		cl->mode_set = true;
		return 0;
	case 'd':
		if (port_path_parse(arg, &cl->o.path)) {
			fprintf(stderr, "xdpbrd: invalid datapath '%s' (xdp, tc or auto)\n", arg);
			return -EINVAL;
		}
		cl->path_set = true;
		return 0;
	case 'k':
		d->keep = true;
		return 0;
	case OPT_XDP_SHARE:
		if (arg && strcmp(arg, "on") && strcmp(arg, "off")) {
			fprintf(stderr, "xdpbrd: invalid --xdp-share '%s' (on or off)\n", arg);
			return -EINVAL;
		}
		cl->o.xdp_share = !arg || !strcmp(arg, "on");
		cl->share_set = true;
		return 0;
	case 's':
		if (parse_u64(arg, UINT64_MAX, &v) || setting_check(&settings[SET_FDB_SIZE], v)) {
			fprintf(stderr, "xdpbrd: invalid FDB size '%s' (%u to %u)\n",
				arg, XDPBR_FDB_SIZE_MIN, XDPBR_FDB_SIZE_MAX);
			return -EINVAL;
		}
		cl->o.fdb_size = (uint32_t)v;
		return 0;
	case 'C':
		if (parse_u64(arg, UINT64_MAX, &v) || setting_check(&settings[SET_FDB_CACHE], v)) {
			fprintf(stderr, "xdpbrd: invalid FDB cache size '%s' "
				"(0 = off, or a power of two from 4 to %u)\n",
				arg, XDPBR_FDB_CACHE_MAX);
			return -EINVAL;
		}
		cl->o.fdb_cache = (uint32_t)v;
		cl->o.fdb_cache_set = true;
		return 0;
	case 'a':
		if (parse_u64(arg, UINT64_MAX, &v) || setting_check(&settings[SET_AGEING_TIME], v)) {
			fprintf(stderr, "xdpbrd: invalid ageing time '%s' (0 to %u s)\n",
				arg, XDPBR_AGEING_MAX_S);
			return -EINVAL;
		}
		cl->o.ageing_ns = ageing_ns_of(v);
		d->ap.ageing_opt_ns = cl->o.ageing_ns;
		return 0;
	case 'l':
		if (config_listen_parse(arg, &ss, &sl)) {
			fprintf(stderr, "xdpbrd: invalid listen address '%s' "
				"(ADDR:PORT, [ADDR]:PORT or none)\n", arg);
			return -EINVAL;
		}
		d->ap.listen = arg;
		return 0;
	case 'H':
		if (strcmp(arg, "on") && strcmp(arg, "off")) {
			fprintf(stderr, "xdpbrd: invalid host interface setting '%s' (on or off)\n",
				arg);
			return -EINVAL;
		}
		d->host.opt = !strcmp(arg, "on");
		return 0;
	case 'v':
		cl->level = LOG_LVL_DEBUG;
		return 0;
	case 'V':
		cl->version = true;
		return 0;
	case 'h':
		cl->help = true;
		return 0;
	default:
		print_usage(stderr);
		return -EINVAL;
	}
}

/* Options up to -h or the first error; the arguments after them. */
int options_parse(struct daemon *d, struct cmdline *cl, int argc, char **argv)
{
	int opt, err;

	while ((opt = getopt_long(argc, argv, "c:nm:d:ks:C:a:l:H:vVh", long_opts, NULL)) != -1) {
		err = parse_option(d, cl, opt, optarg);
		if (err || cl->help || cl->version)
			return err;
	}
	cl->args = argv + optind;
	cl->nargs = argc - optind;
	return 0;
}

int options_load(struct daemon *d)
{
	char err[512];
	int ret = config_parse_file(d->ap.cfg_path, &d->ap.cfg, err, sizeof(err));

	if (ret)
		log_err("%s", err);
	return ret;
}

/* -n: the file parsed; say so. */
int options_check(const struct daemon *d)
{
	if (!d->ap.cfg_path) {
		log_err("-n needs a configuration file (-c FILE)");
		return -EINVAL;
	}
	printf("%s: configuration OK\n", d->ap.cfg_path);
	return 0;
}

/* The bridge's name: the first argument, or the file's, which must agree. */
static int merge_name(const struct daemon *d, struct cmdline *cl)
{
	if (cl->nargs > 0) {
		cl->name = cl->args[0];
		cl->args++;
		cl->nargs--;
	}
	if (d->ap.cfg_path && d->ap.cfg.name[0]) {
		if (cl->name && strcmp(cl->name, d->ap.cfg.name)) {
			log_err("bridge '%s' on the command line, '%s' in %s",
				cl->name, d->ap.cfg.name, d->ap.cfg_path);
			return -EINVAL;
		}
		cl->name = d->ap.cfg.name;
	}
	if (!cl->name) {
		print_usage(stderr);
		return -EINVAL;
	}
	if (bridge_name_valid(cl->name)) {
		log_err("invalid bridge name '%s' (1-15 characters of "
			"letters, digits, '_', '.', '-')", cl->name);
		return -EINVAL;
	}
	return 0;
}

/* The ports of the file, then those of the command line it does not have. */
static int merge_ports(struct daemon *d, struct cmdline *cl)
{
	for (int i = 0; i < cl->nargs; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(cl->args[i], cl->args[j])) {
				log_err("port '%s' is given twice", cl->args[i]);
				return -EINVAL;
			}
	d->ap.cli_ports = cl->args;
	d->ap.ncli_ports = cl->nargs;
	for (size_t i = 0; i < d->ap.cfg.nports; i++)
		if (add_unique(&cl->ports, &cl->nports, d->ap.cfg.ports[i].name))
			return -ENOMEM;
	for (int i = 0; i < d->ap.ncli_ports; i++)
		if (add_unique(&cl->ports, &cl->nports, d->ap.cli_ports[i]))
			return -ENOMEM;
	/* With the bridge device, ports may come from it (hostdev.h). */
	if (cl->nports < 1 && !hostdev_wanted(&d->host, &d->ap.cfg)) {
		log_err("no ports: name them on the command line or in "
			"[port NAME] sections of the configuration");
		return -EINVAL;
	}
	if (cl->nports > XDPBR_PORTS_PER_BRIDGE) {
		log_err("too many ports (at most %d)", XDPBR_PORTS_PER_BRIDGE);
		return -EINVAL;
	}
	return 0;
}

/* The file's settings where the command line gave none: it wins. 0, or
 * -EINVAL (a usage error, said) or -ENOMEM. */
int options_merge(struct daemon *d, struct cmdline *cl)
{
	const struct config *c = &d->ap.cfg;
	int err = merge_name(d, cl);

	if (!err)
		err = merge_ports(d, cl);
	if (err)
		return err;
	if (!cl->mode_set && setting_given(&c->set, SET_MODE))
		cl->o.mode = (enum xdpbr_mode)c->set.v[SET_MODE];
	if (!cl->path_set)
		cl->o.path = (enum port_path)setting_value(&c->set, SET_DATAPATH);
	if (!cl->share_set && setting_given(&c->set, SET_XDP_SHARE))
		cl->o.xdp_share = c->set.v[SET_XDP_SHARE];
	if (!cl->o.fdb_size && setting_given(&c->set, SET_FDB_SIZE))
		cl->o.fdb_size = (uint32_t)c->set.v[SET_FDB_SIZE];
	if (!cl->o.fdb_cache_set && setting_given(&c->set, SET_FDB_CACHE)) {
		cl->o.fdb_cache = (uint32_t)c->set.v[SET_FDB_CACHE];
		cl->o.fdb_cache_set = true;
	}
	if (!cl->o.ageing_ns && setting_given(&c->set, SET_AGEING_TIME))
		cl->o.ageing_ns = ageing_ns_of(c->set.v[SET_AGEING_TIME]);
	return 0;
}

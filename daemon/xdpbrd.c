// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpbrd - the xdpbr daemon: loads (or adopts) the datapath, attaches it to
 * the ports, and stays in the foreground until SIGINT/SIGTERM.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge.h"
#include "log.h"
#include "util.h"

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	quit = sig;
}

static const char usage[] =
	"Usage: xdpbrd [OPTIONS] BRIDGE PORT...\n"
	"  -m, --mode MODE        XDP mode: native, generic or auto (default auto:\n"
	"                         native, generic only where the driver has none)\n"
	"  -k, --keep             leave the bridge forwarding when the daemon exits\n"
	"  -s, --fdb-size N       FDB capacity in entries (default %u)\n"
	"  -a, --ageing-time SEC  age out dynamic FDB entries after SEC seconds\n"
	"                         (default %u; 0 = never)\n"
	"  -v, --verbose          debug logging, including libbpf's\n"
	"  -h, --help             this text\n";

static const struct option long_opts[] = {
	{ "mode", required_argument, NULL, 'm' },
	{ "keep", no_argument, NULL, 'k' },
	{ "fdb-size", required_argument, NULL, 's' },
	{ "ageing-time", required_argument, NULL, 'a' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct {
	const char *name;
	enum attach_mode mode;
} modes[] = {
	{ "auto", ATTACH_AUTO }, { "native", ATTACH_NATIVE }, { "generic", ATTACH_GENERIC },
};

int main(int argc, char **argv)
{
	struct bridge_opts o = { .mode = ATTACH_AUTO };
	enum log_level level = LOG_LVL_INFO;
	struct sigaction sa = { .sa_handler = on_signal };
	static struct bridge br;
	bool keep = false, found;
	uint64_t v;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "m:ks:a:vh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			found = false;
			for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
				if (!strcmp(optarg, modes[i].name)) {
					o.mode = modes[i].mode;
					found = true;
				}
			if (!found) {
				fprintf(stderr, "xdpbrd: invalid mode '%s' (native, generic or auto)\n",
					optarg);
				return 2;
			}
			break;
		case 'k':
			keep = true;
			break;
		case 's':
			if (parse_u64(optarg, 1U << 26, &v) || v < 16) {
				fprintf(stderr, "xdpbrd: invalid FDB size '%s' (16 to %u)\n",
					optarg, 1U << 26);
				return 2;
			}
			o.fdb_size = (uint32_t)v;
			break;
		case 'a':
			if (parse_u64(optarg, 1000000, &v)) {
				fprintf(stderr, "xdpbrd: invalid ageing time '%s' (0 to 1000000 s)\n",
					optarg);
				return 2;
			}
			o.ageing_ns = v ? v * XDPBR_NSEC_PER_SEC : XDPBR_AGEING_NEVER;
			break;
		case 'v':
			level = LOG_LVL_DEBUG;
			break;
		case 'h':
			printf(usage, XDPBR_FDB_SIZE, XDPBR_DEFAULT_AGEING_S);
			return 0;
		default:
			fprintf(stderr, usage, XDPBR_FDB_SIZE, XDPBR_DEFAULT_AGEING_S);
			return 2;
		}
	}
	if (argc - optind < 2) {
		fprintf(stderr, usage, XDPBR_FDB_SIZE, XDPBR_DEFAULT_AGEING_S);
		return 2;
	}
	const char *name = argv[optind];
	if (bridge_name_valid(name)) {
		fprintf(stderr, "xdpbrd: invalid bridge name '%s' (1-15 characters of "
			"letters, digits, '_', '.', '-')\n", name);
		return 2;
	}
	if (argc - optind - 1 > XDPBR_MAX_PORTS - 1) {
		fprintf(stderr, "xdpbrd: too many ports (at most %d)\n", XDPBR_MAX_PORTS - 1);
		return 2;
	}

	for (int i = optind + 1; i < argc; i++)
		for (int j = optind + 1; j < i; j++)
			if (!strcmp(argv[i], argv[j])) {
				fprintf(stderr, "xdpbrd: port '%s' is given twice\n", argv[i]);
				return 2;
			}

	log_init("xdpbrd", level, false);
	log_libbpf();
	if (geteuid() != 0) {
		log_warn("must be run as root: loading XDP programs needs CAP_BPF, "
			 "CAP_NET_ADMIN and CAP_SYS_ADMIN");
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	err = bridge_open(&br, name, &o);
	/* Check every port before attaching any: nothing half-attached. */
	for (int i = optind + 1; !err && i < argc; i++)
		err = bridge_check_port(&br, argv[i]);
	for (int i = optind + 1; !err && i < argc; i++)
		err = quit ? -EINTR : bridge_add_port(&br, argv[i]);
	if (!err)
		err = quit ? -EINTR : bridge_adopt_ports(&br);
	if (err) {
		bridge_close(&br, false, true);
		log_warn("bridge %s not started", name);
		return 1;
	}
	log_info("bridge %s: forwarding on %d ports (%s, state in %s)", name, br.nports,
		 br.adopted ? "adopted the pinned bridge" : "new bridge", br.dir);

	while (!quit) {
		/* Signals interrupt poll; the timeout is the tick of future
		 * periodic work (ageing sweeps, link checks). */
		poll(NULL, 0, 1000);
	}
	log_info("caught signal %d, %s", (int)quit,
		 keep ? "leaving the bridge forwarding" : "detaching");
	bridge_close(&br, keep, false);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpbrd - the xdpbr daemon.
 *
 * Loads (or adopts) the datapath and attaches it to the ports, then stays in
 * the foreground for what needs a long-lived process: ageing sweeps, link
 * events, configuration reloads. Forwarding never depends on it: the pinned
 * maps are the bridge, and a crash of the daemon loses nothing. This file
 * starts and stops it; daemon.h says which file does the rest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "ctl.h"
#include "daemon.h"
#include "log.h"
#include "netns.h"
#include "privs.h"
#include "util.h"
#include "version.h"

/* Whether the endpoint's port needs CAP_NET_BIND_SERVICE. */
static bool listen_port_low(const char *listen)
{
	const char *colon = strrchr(listen, ':');

	return !config_listen_none(listen) && colon && atoi(colon + 1) < 1024;
}

/* ctl's port flush hook: a port gone down loses its entries in steps. */
static void on_port_flush(uint32_t slot, void *arg)
{
	struct daemon *d = arg;

	fdbflush_port(&d->flush, slot);
}

/* Before any port is attached: flushes in steps, and the spanning tree
 * decides whether the pinned port states still hold. */
static void stp_begin(struct daemon *d)
{
	fdbflush_init(&d->flush, &d->br.maps);
	ctl_set_port_flush_hook(on_port_flush, d);
	d->stp.port_cfg = stp_port_cfg;
	d->stp.arg = d;
	stpd_begin(&d->stp, &d->br, &d->flush, &d->ap.cfg.stp);
}

/* Loads or adopts the bridge, attaches its ports, applies the file, and
 * watches the links. 0 or -errno (said why); the caller undoes it. */
static int open_bridge(struct daemon *d, const struct cmdline *cl)
{
	int err;

	stpd_peek(cl->name);
	err = bridge_open(&d->br, cl->name, &cl->o);
	if (!err)
		stp_begin(d);
	d->br.policy = apply_policy(d);
	/* Ports whose interface went while no daemon ran go before any port is
	 * added: an interface that got one's ifindex is not that port. */
	if (!err && d->br.adopted) {
		int gone = bridge_reconcile_ports(&d->br);

		if (gone < 0)
			log_warn("Couldn't check the pinned ports against the interfaces: %s",
				 strerror(-gone));
	}
	if (!err && hostdev_wanted(&d->host, &d->ap.cfg))
		err = hostdev_open(&d->host, &d->ap.cfg);
	if (!err && !cl->o.ageing_ns)
		err = keep_ageing(d);
	if (!err)
		err = keep_vlans(d);
	if (!err && d->ap.cfg.vxlan.line)
		err = evpn_open(&d->evpn, d->br.name, &d->ap.cfg.vxlan, &d->br.maps);
	/* Check every port before attaching any: nothing half-attached. */
	for (int i = 0; !err && i < cl->nports; i++)
		err = bridge_check_port(&d->br, cl->ports[i]);
	for (int i = 0; !err && i < cl->nports; i++)
		err = loop_quit() ? -EINTR : bridge_add_port(&d->br, cl->ports[i]);
	if (!err)
		err = loop_quit() ? -EINTR : bridge_adopt_ports(&d->br);
	if (!err)
		err = hostdev_attach(&d->host);
	if (!err && d->ap.cfg.vxlan.line)
		err = evpn_attach(&d->evpn, &d->br);
	if (!err && d->ap.cfg_path) {
		err = apply_bridge_cfg(d, &d->ap.cfg);
		for (size_t i = 0; !err && i < d->ap.cfg.nports; i++)
			err = apply_port_cfg(d, NULL, &d->ap.cfg.ports[i], &d->ap.cfg);
	}
	if (!err) {
		d->lp.nl = linkwatch_open();
		if (!d->lp.nl) {
			err = -errno;
			log_warn("Couldn't watch link events over netlink: %s", strerror(-err));
		}
	}
	return err;
}

/* A start that failed: what it did undone (an adopted bridge keeps its
 * pins and the ports it had). */
static void start_failed(struct daemon *d, const char *name)
{
	stpd_close(&d->stp);
	hostdev_hand_back(&d->host);
	bridge_close(&d->br, false, true);
	if (d->host.made)
		hostdev_close(&d->host);
	evpn_close(&d->evpn, !d->evpn.made);
	log_err("bridge %s not started", name);
	config_free(&d->ap.cfg);
}

static void stp_open(struct daemon *d)
{
	uint8_t mac[6];

	hostdev_mac(&d->host, &d->ap.cfg, mac);
	stpd_open(&d->stp, &d->events, mac);
}

/* Whether the bridge or any configured port shares its XDP hook. */
static bool share_wanted(const struct daemon *d, const struct cmdline *cl)
{
	bool any = cl->o.xdp_share;

	for (size_t i = 0; i < d->ap.cfg.nports; i++)
		any |= share_of(&d->ap.cfg.ports[i]) == XDP_SHARE_ON;
	return any;
}

/* The bridge forwarding, the services up, privileges dropped. 0 or -errno;
 * nothing is left behind on failure. */
static int start(struct daemon *d, const struct cmdline *cl)
{
	bool low_port;
	int err;

	log_init("xdpbrd", cl->level, false);
	log_libbpf();
	if (geteuid() != 0) {
		log_err("must be run as root: loading XDP programs needs CAP_BPF, "
			 "CAP_NET_ADMIN and CAP_SYS_ADMIN");
		return -EPERM;
	}
	low_port = listen_port_low(listen_of(d, &d->ap.cfg));
	if (share_wanted(d, cl))
		privs_keep_sys_admin();
	err = privs_check(low_port);
	if (err) {
		config_free(&d->ap.cfg);
		return err;
	}
	loop_signals_catch();
	netns_collect();	/* dead namespaces' pins; ours in the old layout moved */
	err = open_bridge(d, cl);
	if (err) {
		start_failed(d, cl->name);
		return err;
	}
	d->lp.start_ns = mono_ns();
	loop_hooks(d);
	resync_links(d);
	hostdev_ports_follow(&d->host);
	mtus_follow(d, true);
	stp_open(d);
	loop_services_start(d);
	loop_signals_block();
	err = privs_drop(low_port);
	if (err) {
		loop_services_stop(d);
		start_failed(d, cl->name);
		return err;
	}
	log_info("bridge %s: forwarding on %d ports (%s, state in %s)", cl->name, d->br.nports,
		 d->br.adopted ? "adopted the pinned bridge" : "new bridge", d->br.dir);
	sd_notifyf(0, "READY=1\nSTATUS=forwarding on %d ports", d->br.nports);
	return 0;
}

/* After the loop: why it ended, then the bridge left forwarding (--keep)
 * or taken down. */
static void stop(struct daemon *d, int ret)
{
	const char *what = d->keep ? "leaving the bridge forwarding" : "detaching";

	sd_notify(0, "STOPPING=1");
	if (loop_quit())
		log_info("caught signal %d, %s", loop_quit(), what);
	else
		log_err("main loop failed: %s; %s", strerror(-ret), what);
	stpd_close(&d->stp);
	loop_services_stop(d);
	mcast_close(&d->mcast);		/* while the maps are open */
	brmirror_close(&d->mirror, d->keep);	/* so too: a user's entries stay */
	if (!d->keep)
		hostdev_hand_back(&d->host);
	bridge_close(&d->br, d->keep, false);
	if (!d->keep)
		hostdev_close(&d->host);
	evpn_close(&d->evpn, d->keep);
	linkwatch_close(d->lp.nl);
	config_free(&d->ap.cfg);
	free(d->ap.pending);
}

/* Exit status: 0, 1 for a failure, 2 for a usage error. */
int main(int argc, char **argv)
{
	static struct daemon d;
	struct cmdline cl = { .o.mode = XDPBR_MODE_NONE, .level = LOG_LVL_INFO };
	int ret;

	hostdev_init(&d.host, &d.br, -1);
	/* before the first message: start() sets the level of -v */
	log_init("xdpbrd", LOG_LVL_INFO, false);
	if (options_parse(&d, &cl, argc, argv))
		return 2;
	if (cl.help) {
		print_usage(stdout);
		return 0;
	}
	if (cl.version) {
		puts(version_line("xdpbrd"));
		return 0;
	}
	if (d.ap.cfg_path && options_load(&d))
		return 1;
	if (cl.check_only)
		return options_check(&d) ? 2 : 0;
	ret = options_merge(&d, &cl);
	if (ret)
		return ret == -EINVAL ? 2 : 1;
	ret = start(&d, &cl);
	free(cl.ports);
	if (ret)
		return 1;
	ret = loop_run(&d);
	stop(&d, ret);
	return ret ? 1 : 0;
}

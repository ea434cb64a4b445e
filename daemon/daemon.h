/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_DAEMON_H
#define XDPBR_DAEMON_H

/*
 * daemon - xdpbrd itself: its state, a composition of what each part owns,
 * and the calls between the parts.
 *
 *   xdpbrd.c   main: start (the bridge opened, its ports attached), stop
 *   options.c  the command line and its merge with the file (struct cmdline)
 *   apply.c    the configuration applied at start, to ports as they
 *              appear, and on reloads (struct applied)
 *   links.c    link events: ports that appear, join or leave the bridge
 *              device, go down or up, change their MTU, or go
 *   loop.c     the main loop, its signals and its services: the ageing
 *              sweep, the datapath's events, the pins, HTTP (struct loop)
 *
 * The host interface (hostdev.h), the spanning tree (stpd.h), the mirrors
 * (evpn.h, brmirror.h, mdbmirror.h) and the stepped flushes (fdbflush.h) are
 * modules of their own with their own state, which struct daemon holds.
 */
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bridge.h"
#include "brmirror.h"
#include "config.h"
#include "events.h"
#include "evpn.h"
#include "fdbflush.h"
#include "hostdev.h"
#include "http.h"
#include "log.h"
#include "mdbmirror.h"
#include "netlink.h"
#include "stpd.h"

/* The command line; options_merge() completes it from the configuration file. */
struct cmdline {
	struct bridge_opts o;		/* what bridge_open is given */
	bool mode_set;			/* -m: wins over the file's mode */
	bool path_set;			/* -d: wins over the file's datapath */
	bool share_set;			/* --xdp-share: wins over the file's */
	bool check_only;		/* -n */
	bool help;			/* -h */
	bool version;			/* -V */
	enum log_level level;
	char **args;			/* BRIDGE [PORT...] */
	int nargs;
	const char *name;		/* the bridge: first argument or the file's */
	char **ports;			/* the file's ports, then the command line's */
	int nports;
};

/* A static entry of the file that the FDB refused, tried again. */
struct pending_static {
	char port[IF_NAMESIZE];
	struct config_static s;
};

/* apply.c's: the running configuration and what applying it left to do. */
struct applied {
	struct config cfg;		/* the running configuration */
	const char *cfg_path;		/* NULL: command line only */
	char **cli_ports;		/* ports named on the command line */
	int ncli_ports;
	const char *listen;		/* --listen, or NULL: the config's */
	uint64_t ageing_opt_ns;		/* -a, or 0: the file's, else the default */
	uint64_t ageing_kept_ns;	/* a taken-over bridge's, the default then */
	bool vlan_kept;			/* a taken-over bridge's VLAN settings, */
	bool filtering_kept;		/* the defaults then */
	uint16_t pvid_kept;
	const struct config *pending_cfg; /* a reload's new configuration */
	/* Static entries of the file that could not be written (the FDB was
	 * full, ...): retried every second and on each reload. */
	struct pending_static *pending;
	size_t npending;
};

/* loop.c's: the loop's sockets, ticks and rate limits. */
struct loop {
	struct mnl_socket *nl;		/* link events */
	struct ring_buffer *rb;		/* learn/move events from the datapath */
	struct fdb_sweep sweep;
	uint64_t sweep_cpu_ns;		/* CPU time of the current pass */
	uint64_t start_ns;
	unsigned int ticks;
	bool pins_lost;			/* said so already */
	/* Move log rate limit: a flapping MAC is the classic loop symptom;
	 * say so, but at most MOVE_LOG_BURST lines per MOVE_LOG_PERIOD_S. */
	uint64_t move_window_ns;
	unsigned int move_logged, move_suppressed;
};

struct daemon {
	struct bridge br;
	bool keep;			/* -k */
	struct applied ap;
	struct loop lp;
	struct http http;
	struct events events;
	struct hostdev host;		/* the host interface (hostdev.h) */
	struct evpn evpn;		/* the [vxlan] overlay (evpn.h) */
	struct brmirror mirror;		/* the Linux bridge device's view (brmirror.h) */
	struct mcast mcast;		/* its MDB, mirrored (mdbmirror.h) */
	struct stpd stp;		/* the spanning tree */
	struct fdbflush flush;		/* flushes of ports down and topology changes */
};

/* options.c */
void print_usage(FILE *f);
/* Options up to -h or the first error; the arguments after them. 0, or
 * -EINVAL having said why. */
int options_parse(struct daemon *d, struct cmdline *cl, int argc, char **argv);
/* The file (-c) parsed into d->ap.cfg. 0 or -errno, said. */
int options_load(struct daemon *d);
/* -n: the file parsed; say so. */
int options_check(const struct daemon *d);
/* The file's settings where the command line gave none: it wins. 0, or
 * -EINVAL (a usage error, said) or -ENOMEM. */
int options_merge(struct daemon *d, struct cmdline *cl);

/* apply.c */
bool is_cli_port(const struct daemon *d, const char *name);
/* A port's section of the running file (NULL: none, or no file). */
const struct config_port *cfg_port(const struct daemon *d, const char *name);
/* The same from the file being applied (a reload), else the running one. */
const struct config_port *cfg_port_applying(const struct daemon *d, const char *ifname);
/* stpd.h's port_cfg: cfg_port_applying. */
const struct config_port *stp_port_cfg(const char *ifname, void *arg);
enum xdp_share share_of(const struct config_port *cp);
/* The bridge's policy for ports it attaches: the file's flags, path and
 * sharing for a configured port. */
struct bridge_policy apply_policy(struct daemon *d);
const char *listen_of(const struct daemon *d, const struct config *c);
/* Bridge-wide settings of c, applied live. 0 or -errno. */
int apply_bridge_cfg(struct daemon *d, const struct config *c);
/* Port cp of configuration c, old what was applied before (NULL: nothing).
 * 0 or -errno. */
int apply_port_cfg(struct daemon *d, const struct config_port *old,
		   const struct config_port *cp, const struct config *c);
/* The static entries the FDB refused, tried again. */
void statics_retry(struct daemon *d);
/* No ageing asked for: a taken-over Linux bridge's kept. 0 or -errno. */
int keep_ageing(struct daemon *d);
/* The same for its vlan_filtering and default_pvid, unless the file
 * gives them. 0 or -errno. */
int keep_vlans(struct daemon *d);
/* brmirror's kernel_vlans: a port of a taken-over bridge (keep_vlans)
 * that the file gives no VLANs keeps the kernel's. */
bool kernel_vlans_kept(uint32_t ifindex, void *arg);
/* SIGHUP: the file read again and applied as a difference. */
void apply_reload(struct daemon *d);

/* links.c */
/* Marks a port down or up again when its link state differs from the maps'. */
void port_link_state(struct daemon *d, uint32_t ifindex, unsigned int flags);
/* The host interface's bridge end up or down as the device and its link
 * are (hostdev_port_open): on the device's link events, and after a reload
 * made it. */
void host_port_follow(struct daemon *d);
/* The datapath's MTU threshold after a port change; at_start: said anyway. */
void mtus_follow(struct daemon *d, bool at_start);
/* linkwatch_read's callback; arg is the daemon. */
void on_link_event(const struct link_event *ev, void *arg);
/* After lost events (or at start): every port's link state read. */
void resync_links(struct daemon *d);

/* loop.c */
/* The signal that ends the loop (SIGINT, SIGTERM), or 0. */
int loop_quit(void);
/* Handlers only set flags; the signals are delivered inside ppoll(). */
void loop_signals_catch(void);
/* From here on they wait for ppoll() (loop_run): no wake-up is lost. */
void loop_signals_block(void);
/* The hooks that turn the FDB's deletes into events. */
void loop_hooks(struct daemon *d);
/* The HTTP endpoint, the event stream and the ring buffer reader: a
 * failure is a warning, and the bridge runs on. */
void loop_services_start(struct daemon *d);
void loop_services_stop(struct daemon *d);
/* Until a signal ends it: 0, or -errno if polling failed. */
int loop_run(struct daemon *d);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_CLI_COMMON_H
#define XDPBR_CLI_COMMON_H

/*
 * common.h - what the command files of xdpbr (cli/cmd_bridge.c, cmd_link.c,
 * cmd_fdb.c, ...: one per object) share, as iproute2's bridge/br_common.h:
 * the bridge a command works on, the messages, and the functions the
 * command table (cli.c) runs. Not named xdpbr.h: include/xdpbr.h is the
 * BPF/user boundary.
 */
#include <signal.h>
#include <stdint.h>

#include "cli.h"
#include "pins.h"

/* What a command works on: the bridge's name and its pinned maps. */
struct target {
	const char *br;
	struct xdpbr_maps m;
};

/* Prints "xdpbr: <message>" on stderr and returns err. */
int cli_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* " (run as root)" for the errors every command can meet, else "". */
const char *errno_hint(int err);

/* dev DEV -> ifindex (0: no dev given); 0 or the reported error. */
int dev_ifindex(const struct cli_cmd *c, uint32_t *ifindex);

/* For a show command: the port its 'dev' names (0: all), and the bridge's
 * ports (*p malloc'd). 0 or the reported error. */
struct port_entry;
int shown_ports(const struct cli_cmd *c, struct target *t, uint32_t *dev,
		struct port_entry **p, size_t *n);

/* The message for an operation on DEV that needs DEV to be a port. */
int port_error(int err, const struct cli_cmd *c, const struct target *t, const char *what);

/* The bridge's devmap egress program (for the flood sets that
 * ctl_port_apply() rewrites): a descriptor, or the reported -errno. */
int open_egress(const struct target *t);

/*
 * The commands that wait (monitor, stats rate) end cleanly on SIGINT or
 * SIGTERM. The handler only sets `interrupted`; the signals stay blocked
 * but inside ppoll() with *waitmask, so none slips in between a check of
 * the flag and a wait.
 */
extern volatile sig_atomic_t interrupted;
void catch_signals(sigset_t *waitmask);
/* Sleeps until the CLOCK_MONOTONIC deadline (ns): 0, or -EINTR when
 * interrupted. */
int sleep_until(uint64_t deadline, const sigset_t *waitmask);

/* The commands, by object (cli/OBJECT.c). */
cli_run_fn do_bridge_show, do_bridge_set, do_bridge_add, do_bridge_del;
cli_run_fn do_link_show, do_link_set, do_link_add, do_link_del;
cli_run_fn do_fdb_show, do_fdb_add, do_fdb_del, do_fdb_flush;
cli_run_fn do_vlan_show, do_vlan_add, do_vlan_del;
cli_run_fn do_stats;
cli_run_fn do_monitor;
cli_run_fn do_vxlan_show;
cli_run_fn do_stp_show;
/* bridge set / link set (dev 0): the spanning tree words given, as a
 * request to xdpbrd. 0 or the reported error. */
int stp_request(const struct cli_cmd *c, const struct target *t, uint32_t dev);

#endif

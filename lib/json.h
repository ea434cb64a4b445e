/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_JSON_H
#define XDPBR_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "fdbtab.h"
#include "ports.h"

/*
 * JSON documents of the bridge state, with the keys of iproute2's
 * `bridge -j` where the concept matches: the daemon's HTTP API and the
 * CLI's -j of stats, link show and fdb show (cli/print.h writes them). ifname lookups go through ifname_shown() (ports.h); a
 * vanished port prints as "if<N>".
 */

/* One FDB entry: {"mac","ifname","vlan","master","state","flags",
 * "updated"}, its port's name through names (a page's cache). */
struct json_object *json_fdb_entry(const struct fdb_entry *e, const char *bridge,
				   uint64_t now_ns, struct ifname_cache *names);

/* One port, from the ports map and its interface (port_link_read()):
 * {"ifindex","ifname","flags","mtu","master","state","kind","datapath",
 * ["host_interface",] "xdp_mode","xdp_attach","xdp_prog_id","slot",
 * "learning","flood","mcast_flood","bcast_flood","isolated","hairpin",
 * "max_learned","pvid"}; state is the word port_state_name() gives (the
 * CLI's link show -j: "gone" for a port whose interface is gone). */
struct json_object *json_port(const struct port_entry *p, const struct port_link *l,
			      const char *state, const char *bridge);

/* A port's storm control limits, frames per second, 0 = none:
 * {"broadcast","multicast","unknown"} (link show -j's "storm"). */
struct json_object *json_storm(const struct xdpbr_storm *st);

/* One port's counters: {"ifname","ifindex", <counter name>: N, ...}. */
struct json_object *json_port_stats(const struct port_entry *p,
				    const struct xdpbr_stats *s);

#endif

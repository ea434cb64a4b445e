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
 * `bridge -j` where the concept matches. Shared by the CLI and the daemon.
 * ifname lookups go through if_indextoname(); a vanished port prints as
 * "if<N>".
 */

/* [{"mac","ifname","vlan","master","state","flags","updated"}, ...] */
struct json_object *json_fdb(const struct fdb_entry *e, size_t n,
			     const char *bridge, uint64_t now_ns);

/* One port: {"ifindex","ifname","master","state","flags","mtu","xdp_mode",
 * "xdp_prog_id","slot","learning","flood","mcast_flood","bcast_flood",
 * "isolated","hairpin","max_learned","pvid"}. */
struct json_object *json_port(const struct port_entry *p, const char *bridge);

/* One port's counters: {"ifname","ifindex", <counter name>: N, ...}. */
struct json_object *json_port_stats(const struct port_entry *p,
				    const struct xdpbr_stats *s);

/* One port's VLANs as `bridge -j vlan show` does: {"ifname", "vlans":
 * [{"vlan", "vlanEnd"?, "flags": ["PVID", "Egress Untagged"]}]}, with
 * consecutive VLANs of the same flags folded into ranges. */
struct json_object *json_vlan_port(const char *ifname, const struct xdpbr_vlan_port *v,
				   uint16_t pvid);

/* Interface name for ifindex into buf (IF_NAMESIZE), "if<N>" if gone. */
const char *ifname_of(uint32_t ifindex, char *buf);

#endif

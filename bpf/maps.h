/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * maps.h - every pinned map of the datapath (the bridge's state), one
 * comment each. The per-CPU FDB cache, which is not state and is not
 * pinned, lives with its code in fdbcache.h.
 *
 * All are pinned by name (LIBBPF_PIN_BY_NAME): xdpbrd sets the pin root to
 * /sys/fs/bpf/xdpbr/<bridge>/ (another network namespace's: lib/paths.h),
 * iproute2 pins them under its own root. The pins
 * are the bridge's state; the daemon and CLI are clients of them.
 */
#ifndef XDPBR_MAPS_H
#define XDPBR_MAPS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdpbr.h"

/* A pinned (PERCPU_)ARRAY of n vtype values keyed by a __u32: the slot
 * arrays (XDPBR_MAX_PORTS, indexed by port slot) and the one-entry ones. */
#define XDPBR_ARRAY_MAP(name, kind, n, vtype)			\
struct {							\
	__uint(type, BPF_MAP_TYPE_##kind);			\
	__uint(max_entries, n);					\
	__type(key, __u32);					\
	__type(value, vtype);					\
	__uint(pinning, LIBBPF_PIN_BY_NAME);			\
} name SEC(".maps")

/*
 * FDB {vlan, mac} -> {port, flags, last_seen}.
 * A shared (RCU read-side) hash, not PERCPU_HASH: a lookup hit writes
 * nothing, so the table stays read-mostly and every CPU sees a learned MAC at
 * once; a per-CPU copy would need the daemon to fan each learn out to every
 * CPU, and frames would flood until it did. Not LRU: an LRU evicts the known
 * hosts first under a MAC flood; a full table refuses to learn instead
 * (counted as learn_failed). Capacity is set by the loader.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XDPBR_FDB_SIZE);
	__type(key, struct xdpbr_fdb_key);
	__type(value, struct xdpbr_fdb_val);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_fdb SEC(".maps");

/* FDB generation, entry 0 (see struct xdpbr_fdb_val in xdpbr.h). Read per
 * frame, written only when an existing entry changes. */
XDPBR_ARRAY_MAP(xdpbr_fdbgen, ARRAY, 1, __u64);

/* How many ports run the skb (TC) path, entry 0; user space recounts it
 * whenever it writes a port. While it is 0 the XDP program never hands a
 * frame to the stack for them, and the bridge is XDP end to end. */
XDPBR_ARRAY_MAP(xdpbr_skbports, ARRAY, 1, __u32);

/* Ports: ingress/egress ifindex -> slot and flags. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpbr_port);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_ports SEC(".maps");

/*
 * The same port table for the per-packet path: ifindex -> slot in a flat
 * array, slot -> port in another; two inlined array lookups instead of a
 * hash (measured: the ports hash was about a fifth of the program's cost on
 * one flow). ifindexes past XDPBR_IFINDEX_FAST fall back to xdpbr_ports.
 * User space (ctl_port_write) keeps the three in step.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XDPBR_IFINDEX_FAST);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_ifslot SEC(".maps");

XDPBR_ARRAY_MAP(xdpbr_portcfg, ARRAY, XDPBR_MAX_PORTS, struct xdpbr_port);

/* slot -> ifindex, the reverse of xdpbr_ifslot (0: a free slot), for the
 * skb path: a TC program may not use the devmaps (the kernel gives a map
 * that can hold programs one owner program type, here XDP). */
XDPBR_ARRAY_MAP(xdpbr_slotif, ARRAY, XDPBR_MAX_PORTS, __u32);

/* slot -> the name of its port's interface (struct xdpbr_port_name),
 * written by user space when it adds the port; never read here. */
XDPBR_ARRAY_MAP(xdpbr_portname, ARRAY, XDPBR_MAX_PORTS, struct xdpbr_port_name);

/* Per-CPU counters, indexed by port slot (0: frames on a non-port). */
XDPBR_ARRAY_MAP(xdpbr_stats, PERCPU_ARRAY, XDPBR_MAX_PORTS, struct xdpbr_stats);

/* Dynamic entries per port slot, bridge total in slot 0, for the learning
 * limits: the datapath's count, changed atomically on a learn and a move
 * only; and user space's, changed on its adds and deletes only (a signed
 * __u64 each; their sum is the count, xdpbr_rules.h). Two maps, so neither
 * side's write can lose one of the other's. */
XDPBR_ARRAY_MAP(xdpbr_learned, ARRAY, XDPBR_MAX_PORTS, __u64);
XDPBR_ARRAY_MAP(xdpbr_learned_user, ARRAY, XDPBR_MAX_PORTS, __u64);

/* VLAN membership and egress tagging per port slot. */
XDPBR_ARRAY_MAP(xdpbr_vlans, ARRAY, XDPBR_MAX_PORTS, struct xdpbr_vlan_port);

/* Storm control limits per port slot, and the per-CPU token buckets. */
XDPBR_ARRAY_MAP(xdpbr_storm, ARRAY, XDPBR_MAX_PORTS, struct xdpbr_storm);

XDPBR_ARRAY_MAP(xdpbr_storm_state, PERCPU_ARRAY, XDPBR_MAX_PORTS, struct xdpbr_storm_bucket);

/* Per-CPU token buckets of the link-local limit, by slot (bpf/linklocal.h). */
XDPBR_ARRAY_MAP(xdpbr_linklocal_state, PERCPU_ARRAY, XDPBR_MAX_PORTS,
		struct xdpbr_linklocal_bucket);

/* The same limit on the BPDUs the daemon's sockets take, by slot
 * (xdpbr_bpdu_sock): a bucket of its own, as a frame on the skb path meets
 * the socket before the datapath (packet taps run before clsact). */
XDPBR_ARRAY_MAP(xdpbr_bpdusock_state, PERCPU_ARRAY, XDPBR_MAX_PORTS, struct xdpbr_bpdusock_bucket);

/* Learn/move events to the daemon (rate-limited per CPU). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, XDPBR_EV_RINGBUF_SIZE);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_events SEC(".maps");

/* Per-CPU token buckets of the event rate limit. */
XDPBR_ARRAY_MAP(xdpbr_evbudget, PERCPU_ARRAY, 1, struct xdpbr_evbudget);

/* Bridge-wide figures kept by user space (aged, flushed). */
XDPBR_ARRAY_MAP(xdpbr_bridge, ARRAY, 1, struct xdpbr_bridge_stats);

/* Bridge-wide runtime knobs, entry 0 (ageing time, ...). */
XDPBR_ARRAY_MAP(xdpbr_config, ARRAY, 1, struct xdpbr_config);

/* Known-unicast egress: slot -> ifindex. An array devmap: the cheapest
 * lookup for the hottest path, and no egress program on it. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_tx SEC(".maps");

/*
 * Flood sets, one per traffic class (broadcast, multicast, unknown unicast),
 * keyed by ifindex, used with BPF_F_BROADCAST | BPF_F_EXCLUDE_INGRESS. Hash
 * devmaps because a broadcast walks the whole table: every bucket of it
 * (max_entries rounded up to a power of two), whatever it holds. One map
 * per class lets a port opt out of a class (flood/mcast_flood/bcast_flood
 * off) by leaving that map, at no per-packet cost. Entries carry the
 * egress program, which applies the per-copy rules and counts tx per port.
 */
#define XDPBR_FLOOD_MAP(name, entries)				\
struct {							\
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);			\
	__uint(max_entries, entries);				\
	__type(key, __u32);					\
	__type(value, struct bpf_devmap_val);			\
	__uint(pinning, LIBBPF_PIN_BY_NAME);			\
} name SEC(".maps")

XDPBR_FLOOD_MAP(xdpbr_flood_bc, XDPBR_MAX_PORTS);
XDPBR_FLOOD_MAP(xdpbr_flood_mc, XDPBR_MAX_PORTS);
XDPBR_FLOOD_MAP(xdpbr_flood_uu, XDPBR_MAX_PORTS);

/*
 * The same flood sets with no egress program on their entries, for the
 * XDP fast flood (when it applies: xdp_flood_fast in flood.h, and
 * doc/architecture.md "The fast flood"). Membership is the slow maps'
 * rule, for the ports in slots below XDPBR_FLOOD_FAST_SLOTS only, the
 * ones the fast flood serves: a broadcast walks 64 buckets, not the 2,048
 * of the slow maps. ctl_port_apply and ctl_port_remove write both.
 */
XDPBR_FLOOD_MAP(xdpbr_flood_bc_fast, XDPBR_FLOOD_FAST_SLOTS);
XDPBR_FLOOD_MAP(xdpbr_flood_mc_fast, XDPBR_FLOOD_FAST_SLOTS);
XDPBR_FLOOD_MAP(xdpbr_flood_uu_fast, XDPBR_FLOOD_FAST_SLOTS);

/*
 * The flood sets again, egress program on, for the ports in slots below
 * XDPBR_FLOOD_FAST_SLOTS only: the slow flood's maps for a bridge whose
 * ports are all there (xdpbr_flood_fast.small), most bridges. The slow
 * flood (VLAN filtering, STP, an isolated ingress, a frame over the
 * smallest MTU) then walks 64 buckets, not 2,048. ctl_port_apply and
 * ctl_port_remove write them with the others.
 */
XDPBR_FLOOD_MAP(xdpbr_flood_bc_small, XDPBR_FLOOD_FAST_SLOTS);
XDPBR_FLOOD_MAP(xdpbr_flood_mc_small, XDPBR_FLOOD_FAST_SLOTS);
XDPBR_FLOOD_MAP(xdpbr_flood_uu_small, XDPBR_FLOOD_FAST_SLOTS);

/* Entry 0: the fast flood maps' slots per class and whether they are
 * ready, and whether the small ones are (struct xdpbr_flood_fast);
 * written whole by user space only. */
XDPBR_ARRAY_MAP(xdpbr_flood_fast, ARRAY, 1, struct xdpbr_flood_fast);

/*
 * Drops the driver reported since the tracepoint last fired on this CPU,
 * per slot (see xdpbr_xmit in xdpbr.bpf.c): datapath-only bookkeeping.
 */
XDPBR_ARRAY_MAP(xdpbr_xmit_seen, PERCPU_ARRAY, XDPBR_MAX_PORTS, __u64);

/* ---- spanning tree (stp-dp): port states and the daemon's heartbeat ---- */

/* A port's spanning tree word by slot (state and edge bit, xdpbr.h): read
 * per frame for the ingress port and for each egress port; written by
 * ctl_port_stp_set only. */
XDPBR_ARRAY_MAP(xdpbr_stp_port, ARRAY, XDPBR_MAX_PORTS, __u32);

/* The daemon's heartbeat, entry 0 (struct xdpbr_stp_beat): read, never
 * written, by the datapath, and only while STP is on. */
XDPBR_ARRAY_MAP(xdpbr_stp_beat, ARRAY, 1, struct xdpbr_stp_beat);

/* ---- IGMP/MLD snooping: the kernel's MDB, mirrored (daemon/mdbmirror.c) ---- */

/* Group {vid, proto, address} -> group id: read once per multicast data
 * frame while a querier exists; written by user space only. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XDPBR_MDB_SIZE);
	__type(key, struct xdpbr_mdb_key);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_mdb SEC(".maps");

/* {group id, slot} -> 1 for each member port: read per pruned copy. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XDPBR_MDB_PORT_SIZE);
	__type(key, struct xdpbr_mdb_port_key);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_mdb_port SEC(".maps");

/* An (S,G) entry {group, source} -> its group id: read once per IPv4
 * (IPv6) multicast data frame while the bridge runs IGMPv3 (MLDv2:
 * XDPBR_MCAST_SRC4/6); written by user space only. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XDPBR_MDB_SRC_SIZE);
	__type(key, struct xdpbr_mdb_src_key);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_mdb_src SEC(".maps");

/* Slot -> 1 when the kernel counts the port as a multicast router port. */
XDPBR_ARRAY_MAP(xdpbr_mrouter, ARRAY, XDPBR_MAX_PORTS, __u32);

/* Entry 0: struct xdpbr_mcast (snooping on, queriers, the host's slot). */
XDPBR_ARRAY_MAP(xdpbr_mcast, ARRAY, 1, struct xdpbr_mcast);

/* With multicast contexts per VLAN (XDPBR_MCAST_VLAN_CTX): VLAN -> its
 * XDPBR_MCAST_SNOOPING, _QUERIER4/6 and _SRC4/6, read once per multicast
 * frame; and XDPBR_MROUTER_VLAN_KEY(VLAN, slot) -> XDPBR_MROUTER_*, read
 * per pruned copy. Written by user space only. */
XDPBR_ARRAY_MAP(xdpbr_mcast_vlan, ARRAY, XDPBR_MCAST_VLANS, __u32);
XDPBR_ARRAY_MAP(xdpbr_mrouter_vlan, HASH, XDPBR_MROUTER_VLAN_SIZE, __u32);

/* A group's ports as one mask (xdpbr.h XDPBR_MDB_SET_IP6): read once per
 * pruned frame; written by user space only. */
XDPBR_ARRAY_MAP(xdpbr_mdb_set, HASH, XDPBR_MDB_SET_SIZE, __u64);

/* ... and, for a set of two ports or more, a devmap of them (ifindex ->
 * ifindex, no egress program), the broadcast of a pruned frame on the XDP
 * fast path: read once per such frame; written by user space only. */
struct xdpbr_mdb_devs_inner {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, XDPBR_FLOOD_FAST_SLOTS);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, XDPBR_MDB_SET_SIZE);
	__type(key, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
	__array(values, struct xdpbr_mdb_devs_inner);	/* last: a flexible array */
} xdpbr_mdb_devs SEC(".maps");

#endif /* XDPBR_MAPS_H */

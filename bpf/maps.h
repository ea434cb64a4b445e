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
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_fdbgen SEC(".maps");

/* How many ports run the skb (TC) path, entry 0; user space recounts it
 * whenever it writes a port. While it is 0 the XDP program never hands a
 * frame to the stack for them, and the bridge is XDP end to end. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_skbports SEC(".maps");

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

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpbr_port);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_portcfg SEC(".maps");

/* slot -> ifindex, the reverse of xdpbr_ifslot (0: a free slot), for the
 * skb path: a TC program may not use the devmaps (the kernel gives a map
 * that can hold programs one owner program type, here XDP). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_slotif SEC(".maps");

/* slot -> the name of its port's interface (struct xdpbr_port_name),
 * written by user space when it adds the port; never read here. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpbr_port_name);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_portname SEC(".maps");

/* Per-CPU counters, indexed by port slot (0: frames on a non-port). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpbr_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_stats SEC(".maps");

/* Dynamic entries per port slot, bridge total in slot 0, for the learning
 * limits: the datapath's count, changed atomically on a learn and a move
 * only; and user space's, changed on its adds and deletes only (a signed
 * __u64 each; their sum is the count, xdpbr_rules.h). Two maps, so neither
 * side's write can lose one of the other's. */
#define XDPBR_LEARNED_MAP(name)					\
struct {							\
	__uint(type, BPF_MAP_TYPE_ARRAY);			\
	__uint(max_entries, XDPBR_MAX_PORTS);			\
	__type(key, __u32);					\
	__type(value, __u64);					\
	__uint(pinning, LIBBPF_PIN_BY_NAME);			\
} name SEC(".maps")

XDPBR_LEARNED_MAP(xdpbr_learned);
XDPBR_LEARNED_MAP(xdpbr_learned_user);

/* VLAN membership and egress tagging per port slot. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpbr_vlan_port);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_vlans SEC(".maps");

/* Storm control limits per port slot, and the per-CPU token buckets. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpbr_storm);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_storm SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpbr_storm_bucket);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_storm_state SEC(".maps");

/* Per-CPU token buckets of the link-local limit, by slot (bpf/linklocal.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpbr_linklocal_bucket);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_linklocal_state SEC(".maps");

/* The same limit on the BPDUs the daemon's sockets take, by slot
 * (xdpbr_bpdu_sock): a bucket of its own, as a frame on the skb path meets
 * the socket before the datapath (packet taps run before clsact). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xdpbr_bpdusock_bucket);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_bpdusock_state SEC(".maps");

/* Learn/move events to the daemon (rate-limited per CPU). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, XDPBR_EV_RINGBUF_SIZE);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_events SEC(".maps");

/* Per-CPU token buckets of the event rate limit. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpbr_evbudget);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_evbudget SEC(".maps");

/* Bridge-wide figures kept by user space (aged, flushed). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpbr_bridge_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_bridge SEC(".maps");

/* Bridge-wide runtime knobs, entry 0 (ageing time, ...). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpbr_config);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_config SEC(".maps");

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
 * devmaps because a broadcast walks the whole table: a dense hash of
 * XDPBR_MAX_PORTS buckets. One map per class lets a port opt out of a class
 * (flood/mcast_flood/bcast_flood off) by leaving that map, at no per-packet
 * cost. Entries carry the egress program, which applies the per-copy
 * rules and counts tx per port.
 */
#define XDPBR_FLOOD_MAP(name)					\
struct {							\
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);			\
	__uint(max_entries, XDPBR_MAX_PORTS);			\
	__type(key, __u32);					\
	__type(value, struct bpf_devmap_val);			\
	__uint(pinning, LIBBPF_PIN_BY_NAME);			\
} name SEC(".maps")

XDPBR_FLOOD_MAP(xdpbr_flood_bc);
XDPBR_FLOOD_MAP(xdpbr_flood_mc);
XDPBR_FLOOD_MAP(xdpbr_flood_uu);

/*
 * The same flood sets with no egress program on their entries, for the
 * XDP fast flood (when it applies: xdp_flood_fast in xdpbr.bpf.c, and
 * doc/architecture.md "The fast flood"). Membership is the slow maps'
 * rule; ctl_port_apply and ctl_port_remove write both.
 */
XDPBR_FLOOD_MAP(xdpbr_flood_bc_fast);
XDPBR_FLOOD_MAP(xdpbr_flood_mc_fast);
XDPBR_FLOOD_MAP(xdpbr_flood_uu_fast);

/* Entry 0: the fast flood maps' slots per class and whether they are
 * ready (struct xdpbr_flood_fast); written whole by user space only. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpbr_flood_fast);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_flood_fast SEC(".maps");

/*
 * Drops the driver reported since the tracepoint last fired on this CPU,
 * per slot (see xdpbr_xmit in xdpbr.bpf.c): datapath-only bookkeeping.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_xmit_seen SEC(".maps");

/* ---- spanning tree (stp-dp): port states and the daemon's heartbeat ---- */

/* A port's spanning tree word by slot (state and edge bit, xdpbr.h): read
 * per frame for the ingress port and for each egress port; written by
 * ctl_port_stp_set only. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_stp_port SEC(".maps");

/* The daemon's heartbeat, entry 0 (struct xdpbr_stp_beat): read, never
 * written, by the datapath, and only while STP is on. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpbr_stp_beat);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_stp_beat SEC(".maps");

/* ---- IGMP/MLD snooping: the kernel's MDB, mirrored (daemon/mcast.c) ---- */

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

/* Slot -> 1 when the kernel counts the port as a multicast router port. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XDPBR_MAX_PORTS);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_mrouter SEC(".maps");

/* Entry 0: struct xdpbr_mcast (snooping on, queriers, the host's slot). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpbr_mcast);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xdpbr_mcast SEC(".maps");

#endif /* XDPBR_MAPS_H */

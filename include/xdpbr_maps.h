/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdpbr_maps.h - every map of the datapath object, one row each, in the
 * order of bpf/maps.h. The rows make struct xdpbr_maps (lib/pins.h), the
 * pin table (lib/pins.c) and the skeleton lookup (bridge_skel_maps); a new
 * map is its definition in bpf/ and a row here. tests/unit/test_maps.c
 * checks that the rows and the object's maps are the same, of the same
 * types and pinned as said.
 *
 * X(name, type): type is the map's BPF_MAP_TYPE_<type>.
 * XDPBR_MAPS_PINNED: the bridge's state, pinned by name (LIBBPF_PIN_BY_NAME)
 * as "xdpbr_" name (XDPBR_MAP_NAME), also its name in the object, so
 * iproute2 pins it under the same name. These names are what every
 * earlier build pinned and what an upgrade adopts (lib/upgrade.c): never
 * rename one.
 * XDPBR_MAPS_LOCAL: the loader's alone, not pinned and not state, named
 * in the object as here (without "xdpbr_").
 * The spanning tree's request and status maps, pinned next to these, are
 * no maps of the object: xdpbrd creates them (lib/stpmap.h).
 */
#ifndef XDPBR_MAPS_TABLE_H
#define XDPBR_MAPS_TABLE_H

#define XDPBR_MAP_NAME(name)	"xdpbr_" #name

#define XDPBR_MAPS_PINNED(X)						\
	X(fdb,		HASH)		/* {vlan, mac} -> port, flags, last_seen */ \
	X(fdbgen,	ARRAY)		/* FDB generation, for the per-CPU cache */ \
	X(skbports,	ARRAY)		/* how many ports run the skb (TC) path */ \
	X(ports,	HASH)		/* ifindex -> port */		\
	X(ifslot,	ARRAY)		/* ifindex -> slot, the fast path's */	\
	X(portcfg,	ARRAY)		/* slot -> port, the fast path's */	\
	X(slotif,	ARRAY)		/* slot -> ifindex */		\
	X(portname,	ARRAY)		/* slot -> interface name */	\
	X(stats,	PERCPU_ARRAY)	/* counters per slot */		\
	X(learned,	ARRAY)		/* dynamic entries per slot, the datapath's */ \
	X(learned_user,	ARRAY)		/* ... and user space's count */ \
	X(vlans,	ARRAY)		/* VLAN membership and tagging per slot */ \
	X(storm,	ARRAY)		/* storm control limits per slot */ \
	X(storm_state,	PERCPU_ARRAY)	/* their token buckets (the datapath's) */ \
	X(linklocal_state, PERCPU_ARRAY) /* link-local limit's buckets (the datapath's) */ \
	X(bpdusock_state, PERCPU_ARRAY) /* ... and the BPDU sockets' (xdpbr_bpdu_sock) */ \
	X(events,	RINGBUF)	/* learn and move events */	\
	X(evbudget,	PERCPU_ARRAY)	/* the events' rate limit (the datapath's) */ \
	X(bridge,	ARRAY)		/* bridge-wide figures of user space */ \
	X(config,	ARRAY)		/* bridge-wide runtime knobs */	\
	X(tx,		DEVMAP)		/* known unicast egress: slot -> ifindex */ \
	X(flood_bc,	DEVMAP_HASH)	/* flood sets, egress program on */ \
	X(flood_mc,	DEVMAP_HASH)					\
	X(flood_uu,	DEVMAP_HASH)					\
	X(flood_bc_fast, DEVMAP_HASH)	/* the same without it (fast flood) */ \
	X(flood_mc_fast, DEVMAP_HASH)					\
	X(flood_uu_fast, DEVMAP_HASH)					\
	X(flood_bc_small, DEVMAP_HASH)	/* the first ones, slots < 64 only */ \
	X(flood_mc_small, DEVMAP_HASH)					\
	X(flood_uu_small, DEVMAP_HASH)					\
	X(flood_fast,	ARRAY)		/* the fast flood's slots and readiness */ \
	X(xmit_seen,	PERCPU_ARRAY)	/* driver drops already counted (the datapath's) */ \
	X(stp_port,	ARRAY)		/* spanning tree state per slot */ \
	X(stp_beat,	ARRAY)		/* the daemon's heartbeat */ \
	X(mdb,		HASH)		/* multicast group -> group id (snooping) */ \
	X(mdb_port,	HASH)		/* {group id, slot}: a member port */ \
	X(mdb_src,	HASH)		/* (S,G) -> group id (IGMPv3, MLDv2) */ \
	X(mrouter,	ARRAY)		/* slot -> multicast router port */ \
	X(mcast,	ARRAY)		/* snooping on, queriers, the host's slot */ \
	X(mcast_vlan,	ARRAY)		/* VLAN -> its own snooping and queriers */ \
	X(mrouter_vlan,	HASH)		/* {VLAN, slot} -> multicast router port */ \
	X(mdb_set,	HASH)		/* group id -> its ports below slot 64 */ \
	X(mdb_devs,	HASH_OF_MAPS)	/* ... as a devmap, for two or more */

#define XDPBR_MAPS_LOCAL(X)						\
	X(fdbc_cache,	ARRAY)		/* per-CPU FDB cache (bpf/fdbcache.h) */ \
	X(stp_expiry_cache, PERCPU_ARRAY) /* heartbeat verdict per CPU (bpf/stp.h) */

#endif

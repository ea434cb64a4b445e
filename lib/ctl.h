/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_CTL_H
#define XDPBR_CTL_H

/*
 * ctl - operations on a bridge's pinned state, shared by the CLI (xdpbr),
 * the daemon (config, netlink events, ageing) and the tests. All return 0 (or
 * a count where said) or -errno; none prints.
 */
#include <stdbool.h>
#include <stdint.h>

#include "xdpbr.h"
#include "fdbtab.h"		/* struct fdb_filter */
#include "pins.h"

/* Adds (or replaces) an entry. static: never ages, never moves, and frames
 * claiming its MAC on another port are dropped. -EINVAL for a multicast or
 * zero MAC, -ENODEV if ifindex is not a port of the bridge. */
int ctl_fdb_add(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		uint32_t ifindex, bool is_static);

/* The bridge's own address on a port (the host interface): a static entry
 * flagged XDPBR_FDB_LOCAL. ..._set writes it unless it is already there:
 * 1 if written, 0 if it was, -errno. ..._del deletes it if it is still a
 * local entry of ifindex: 0 or -errno. */
int ctl_fdb_local_set(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		      uint32_t ifindex);
int ctl_fdb_local_del(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		      uint32_t ifindex);

/* A MAC behind a remote VTEP (XDPBR_FDB_REMOTE) on the overlay's gateway
 * port: counted as a dynamic entry, never aged, moves when heard on another
 * port. ..._set: 1 if written, 0 if it was there, -errno. ..._del deletes it
 * if it is still a remote entry on ifindex: 1 if deleted, 0 if not, -errno. */
int ctl_fdb_remote_set(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		       uint32_t ifindex);
int ctl_fdb_remote_del(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		       uint32_t ifindex);
/* The kernel's `static` written on the Linux bridge device: the remote
 * entry's rules (never aged, moves), flagged as a user's (XDPBR_FDB_USER).
 * 1 if written, 0 if it was there, -errno. */
int ctl_fdb_movable_set(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
			uint32_t ifindex);
/* The kernel's `extern_learn` written on the Linux bridge device: the same
 * rules, flagged XDPBR_FDB_EXTERN. 1 if written, 0 if it was there, -errno. */
int ctl_fdb_extern_set(const struct xdpbr_maps *m, const uint8_t mac[6], uint16_t vlan,
		       uint32_t ifindex);

/* Deletes the entries for mac that match f (ifindex/vlan/kind). Returns the
 * number deleted, -ENOENT when none matched. */
int ctl_fdb_del(const struct xdpbr_maps *m, const uint8_t mac[6],
		const struct fdb_filter *f);

/* Deletes every entry matching f, in one pass over the table. Returns the
 * number deleted. */
int ctl_fdb_flush(const struct xdpbr_maps *m, const struct fdb_filter *f);

/* State of an ageing sweep that runs over several calls. */
struct fdb_sweep {
	uint64_t cursor;		/* batch cursor; 0: start of a pass */
	bool running;			/* a pass is under way */
	uint64_t counts[XDPBR_MAX_PORTS]; /* dynamic entries seen so far, per slot */
	uint64_t seen;			/* entries looked at in this pass */
	uint64_t aged;			/* entries deleted in this pass */
	uint64_t statics;		/* static entries seen in this pass */
	bool repaired;			/* the pass set the learned counts right */
	/* The learned counts as the pass began (both sides', and the
	 * datapath's moves) and what it deleted per slot: whether anything
	 * else changed them meanwhile. */
	uint64_t dp0[XDPBR_MAX_PORTS], user0[XDPBR_MAX_PORTS];
	uint32_t moves0;
	uint64_t aged_slot[XDPBR_MAX_PORTS];
	/* Called for each entry aged out, if set (events to `xdpbr monitor`). */
	void (*on_aged)(const struct xdpbr_fdb_key *k, const struct xdpbr_fdb_val *v,
			void *arg);
	void *arg;
};

/*
 * Deletes dynamic entries older than the ageing time, looking at no more
 * than budget entries, and takes what it deleted off the learned counts.
 * Call it repeatedly with the same sweep: a pass over the table ends when
 * ctl_fdb_age returns 1 (after that sw->seen and sw->aged describe the
 * pass). If nothing else changed the learned counts while the pass ran,
 * they are then set to what it counted (sw->repaired when that changed
 * them): a drift from a race is mended with no second walk and no copy of
 * the table. 0 while the pass goes on, -errno on error.
 */
int ctl_fdb_age(const struct xdpbr_maps *m, uint64_t now_ns, uint32_t budget,
		struct fdb_sweep *sw);

/* A set of slots, a bit each (slot 0 never a member). */
struct slot_set {
	uint64_t w[(XDPBR_MAX_PORTS + 63) / 64];
};

static inline void slot_set_add(struct slot_set *s, uint32_t slot)
{
	if (slot && slot < XDPBR_MAX_PORTS)
		s->w[slot / 64] |= 1ULL << (slot % 64);
}

static inline bool slot_set_has(const struct slot_set *s, uint32_t slot)
{
	return slot < XDPBR_MAX_PORTS && (s->w[slot / 64] >> (slot % 64) & 1);
}

static inline unsigned int slot_set_count(const struct slot_set *s)
{
	unsigned int n = 0;

	for (size_t i = 0; i < sizeof(s->w) / sizeof(s->w[0]); i++)
		n += (unsigned int)__builtin_popcountll(s->w[i]);
	return n;
}

/* A flush of the dynamic entries of a set of ports done in steps (the
 * daemon's, daemon/fdbflush.h), so that a table of a million entries does
 * not stall its loop. */
struct fdb_flush_walk {
	struct slot_set slots;		/* the ports' slots */
	uint64_t cursor;		/* batch cursor; 0: the start */
	uint64_t deleted;		/* by this walk so far */
};

/* One step of a walk: at most budget entries looked at (a batch more at
 * worst). Entries learned while the walk goes on may go or stay: they are
 * news. 1 when the walk is done, 0 while it goes on, -errno. */
int ctl_fdb_flush_step(const struct xdpbr_maps *m, struct fdb_flush_walk *w,
		       uint32_t budget);

/* Called instead of a flush when a port goes down (ctl_port_apply), with
 * the port's slot, if set: the daemon defers it to its own walks. NULL:
 * flushed at once, as for the CLI. */
void ctl_set_port_flush_hook(void (*fn)(uint32_t slot, void *arg), void *arg);

/* The dynamic entries of a slot (XDPBR_LEARNED_TOTAL: the bridge), the
 * datapath's count and user space's together. */
int ctl_learned_get(const struct xdpbr_maps *m, uint32_t slot, uint64_t *n);

/* Adds d to user space's count of a slot and of the bridge: for entries
 * written or deleted other than through these functions (tools/fdbfill). */
void ctl_learned_adjust(const struct xdpbr_maps *m, uint32_t slot, int64_t d);

/* Called for every entry a del, flush or port-down deletes (the daemon
 * turns them into events); NULL to stop. */
void ctl_set_delete_hook(void (*fn)(const struct xdpbr_fdb_key *k,
				    const struct xdpbr_fdb_val *v, void *arg), void *arg);

/* Adds to the bridge-wide figures kept by user space (xdpbr_bridge[0]). */
void ctl_bridge_stats_add(const struct xdpbr_maps *m, uint64_t aged, uint64_t flushed);

/* The bridge-wide knobs (xdpbr_config[0]). */
int ctl_config_get(const struct xdpbr_maps *m, struct xdpbr_config *c);
int ctl_config_set(const struct xdpbr_maps *m, const struct xdpbr_config *c);

/* A port's entry. -ENODEV if ifindex is not a port. */
int ctl_port_get(const struct xdpbr_maps *m, uint32_t ifindex, struct xdpbr_port *p);

/* Writes a port's entry to the port table and its per-packet mirror
 * (xdpbr_portcfg by slot, xdpbr_ifslot by ifindex). */
int ctl_port_write(const struct xdpbr_maps *m, uint32_t ifindex, const struct xdpbr_port *p);

/*
 * Writes a port's entry and makes the egress maps agree with it: the port is
 * in xdpbr_tx and in each flood set whose flag it has, unless it is
 * XDPBR_PORT_DOWN, when it is in none. egress_fd is the devmap egress
 * program for the flood sets; the fast flood sets (xdpbr_flood_*_fast)
 * get the same ports without it, and xdpbr_flood_fast is recounted when
 * the port's flood sets change (or it is not ready). Turning a port down
 * also flushes its dynamic FDB entries.
 */
int ctl_port_apply(const struct xdpbr_maps *m, uint32_t ifindex,
		   const struct xdpbr_port *p, int egress_fd);

/* ---- VLANs (enforced only while vlan_filtering is on) ---- */

/* The default PVID of new ports (1 unless set; 0 = none). */
uint16_t ctl_default_pvid(const struct xdpbr_config *c);

/* Gives a new port (p->slot) the default PVID as its PVID and only,
 * untagged, VLAN; sets p->pvid. Call before ctl_port_apply(). */
int ctl_vlan_port_init(const struct xdpbr_maps *m, struct xdpbr_port *p);

int ctl_vlan_get(const struct xdpbr_maps *m, uint32_t slot, struct xdpbr_vlan_port *v);

/* Adds VLANs from..to (1..4094) to a port: tagged, or untagged on egress;
 * pvid: the port's PVID becomes `from` (from must equal to). A VLAN already
 * there gets the new untagged setting, like `bridge vlan add`. */
int ctl_vlan_add(const struct xdpbr_maps *m, uint32_t ifindex, uint16_t from,
		 uint16_t to, bool pvid, bool untagged);

/* Removes VLANs from..to from a port; removing its PVID's VLAN leaves it
 * with no PVID (untagged frames are then dropped). */
int ctl_vlan_del(const struct xdpbr_maps *m, uint32_t ifindex, uint16_t from, uint16_t to);

/* Replaces a port's VLANs: members and egress-untagged bitmaps, PVID. */
int ctl_vlan_set_port(const struct xdpbr_maps *m, uint32_t ifindex,
		      const struct xdpbr_vlan_port *v, uint16_t pvid);

/* vlan_filtering on/off, and the default PVID: ports whose PVID was the old
 * default move to the new one (as untagged members), like the kernel, and
 * their entries in the old VLAN go, in one pass over the table for all. */
int ctl_vlan_filtering(const struct xdpbr_maps *m, bool on);
int ctl_set_default_pvid(const struct xdpbr_maps *m, uint16_t pvid, int egress_fd);

/* Storm control limits of a port (pps per class, 0 = none); the per-CPU
 * shares are derived here. */
int ctl_storm_get(const struct xdpbr_maps *m, uint32_t ifindex, struct xdpbr_storm *s);
int ctl_storm_set(const struct xdpbr_maps *m, uint32_t ifindex,
		  const uint32_t pps[XDPBR_STORM__MAX]);

/* Removes a port from every map and flushes all its FDB entries; its slot
 * is reset (ctl_slot_reset) and xdpbr_flood_fast recounted. Works for a
 * port whose interface is gone. */
int ctl_port_remove(const struct xdpbr_maps *m, uint32_t ifindex);

/* A slot as a new port must find it: its counters, storm limits and
 * buckets, link-local buckets, VLANs, learned count and name all zero. 0
 * or -errno. */
int ctl_slot_reset(const struct xdpbr_maps *m, uint32_t slot);

/*
 * Frees the slots a crash in the middle of ctl_port_write left behind:
 * written (xdpbr_portcfg, xdpbr_slotif) but without their port in the
 * ports hash, which nothing else walks, so they would stay taken and keep
 * the fast flood off for good. Call with the slot lock held (lock.h): an
 * add in progress looks the same. The number freed, or -errno.
 */
int ctl_slots_reconcile(const struct xdpbr_maps *m);

/* The name of the port in slot when it was added (xdpbr_portname; "" if
 * none was recorded), and recording it. 0 or -errno. */
int ctl_port_name_get(const struct xdpbr_maps *m, uint32_t slot, char name[XDPBR_IFNAMSIZ]);
int ctl_port_name_set(const struct xdpbr_maps *m, uint32_t slot, const char *name);

/* ---- spanning tree: port states the datapath enforces ---- */

/*
 * Sets a port's state and operational-edge bit in one store (a frame sees
 * the old word or the new one). The datapath reads the state per frame and
 * caches none of it (the per-CPU FDB cache holds ports, not their states),
 * so no cached entry needs invalidating: known unicast to the port and
 * every flooded copy check it as they go. Entries learned on a port that
 * stops forwarding stay until the caller flushes them (ctl_fdb_flush), as
 * RSTP's topology change rules say when. With STP off it recounts
 * xdpbr_flood_fast: a state set by hand needs the egress program, so the
 * fast flood is ready only while every port forwards. -EINVAL for an
 * unknown state,
 * -ENODEV if ifindex is not a port.
 */
int ctl_port_stp_set(const struct xdpbr_maps *m, uint32_t ifindex,
		     enum xdpbr_stp_state st, bool edge);
int ctl_port_stp_get(const struct xdpbr_maps *m, uint32_t ifindex,
		     enum xdpbr_stp_state *st, bool *edge);

/* The state the datapath enforces on port p now: its state, or discarding
 * for a non-edge port while STP is on and the heartbeat has expired. */
int ctl_port_stp_effective(const struct xdpbr_maps *m, const struct xdpbr_port *p,
			   enum xdpbr_stp_state *st);

/* Whether STP is on (XDPBR_CFG_STP). 1, 0 or -errno. */
int ctl_stp_enabled(const struct xdpbr_maps *m);

/*
 * XDPBR_CFG_STP on or off. On: BPDUs (01:80:c2:00:00:00) go to the host on
 * every port whatever its state, and the heartbeat rule applies; the
 * ports keep the states they have (the daemon sets them as RSTP begins; a
 * port added while STP is on starts discarding, see ctl_slot_reset). Off,
 * from on: BPDUs are flooded like the kernel bridge's without STP, and
 * every port goes back to forwarding (its edge bit kept), as a bridge with
 * no spanning tree. Setting what is already set changes nothing, so a
 * restarted daemon calling it disturbs no port.
 */
int ctl_stp_enable(const struct xdpbr_maps *m, bool on);

/* The daemon's heartbeat, every tick: records now (CLOCK_MONOTONIC, the
 * clock of bpf_ktime_get_ns) and the timeout (hello_time + 1 s, see daemon/stpd.c) after which, with
 * STP on, the datapath treats non-edge ports as discarding. 0: no fallback. */
int ctl_stp_heartbeat(const struct xdpbr_maps *m, uint64_t timeout_ns);
int ctl_stp_beat_get(const struct xdpbr_maps *m, struct xdpbr_stp_beat *b);

#endif

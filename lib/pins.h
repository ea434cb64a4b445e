/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_PINS_H
#define XDPBR_PINS_H

/* File descriptors of one bridge's maps, from the skeleton or the pins. */
struct xdpbr_maps {
	int fdb;
	int ports;
	int stats;
	int config;
	int tx;
	int flood_bc;
	int flood_mc;
	int flood_uu;
	int flood_bc_fast;		/* the flood sets without the egress */
	int flood_mc_fast;		/* program, and which slots they hold */
	int flood_uu_fast;
	int flood_fast;
	int learned;
	int learned_user;
	int events;
	int evbudget;
	int bridge;
	int vlans;
	int storm;
	int ifslot;
	int portcfg;
	int fdbgen;
	int slotif;
	int skbports;
	int portname;
	int stp_port;			/* spanning tree word per slot */
	int stp_beat;			/* the daemon's heartbeat */
	int storm_state;		/* the datapath's own (per-CPU buckets), */
	int xmit_seen;			/* written here only to reset a slot */
};

/* Opens the maps pinned in the bridge's directory (/sys/fs/bpf/xdpbr/<bridge>/
 * in the host's network namespace, see paths.h). 0 or -errno; on error
 * nothing stays open. */
int maps_open_pinned(const char *bridge, struct xdpbr_maps *m);
/* The same, every descriptor read-only (BPF_F_RDONLY): lookups work, the
 * kernel refuses updates and deletes through them. */
int maps_open_pinned_ro(const char *bridge, struct xdpbr_maps *m);
void maps_close(struct xdpbr_maps *m);

/* Removes every map pin of the bridge (those of struct xdpbr_maps and the
 * datapath's own); what is not there is skipped. */
void maps_unpin(const char *bridge);

/* Moves the map pins found in directory from (iproute2's tc/globals in
 * the bpffs, where `ip link ... xdp obj` pins them by name)
 * into the bridge's directory, which must exist. The number moved, or
 * -errno (what was moved stays moved). */
int maps_adopt_pins(const char *from, const char *bridge);

/* After user space changed or deleted FDB entries that existed: move the FDB
 * generation on, so no CPU's cache uses the old ones (bpf/fdbcache.h). A
 * read and a write, not atomic: a datapath move racing with it can be lost,
 * which the step of XDPBR_FDBGEN_USER_STEP makes harmless (the value still
 * differs from every one the caches saw); what is left, two user-space
 * writers racing, the caches' time limit (FDBC_JIFFIES) bounds. */
int fdbgen_bump_user(const struct xdpbr_maps *m);

#endif

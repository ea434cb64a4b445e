/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_BRMIRROR_H
#define XDPBR_BRMIRROR_H

/*
 * brmirror - iproute2's view and control of the bridge: while a Linux
 * bridge device named after the bridge exists in the daemon's namespace,
 * its FDB, its ports' flags and its ageing time and xdpbr's are one state
 * (doc/architecture.md, "The Linux bridge device as a view").
 *
 *  - FDB, per VLAN (xdpbr's VLAN N is the kernel's `vlan N`, 0 none): what
 *    xdpbr holds on a port of the device is in the kernel's FDB, learned entries
 *    as extern_learn (the kernel never ages them), static ones as `static
 *    sticky`, those that never age but move as `static`; what xdpbr no
 *    longer holds goes. `bridge fdb add MAC dev X master static` adds one
 *    that never ages but moves, `sticky` or `permanent` one that never
 *    moves either; `bridge fdb del` deletes xdpbr's entry (at the next
 *    look: the entries a port takes with it when it leaves the device are
 *    no user's deletes). The mirror's own
 *    writes are known by their echo (asked for, or already what xdpbr
 *    holds): they are never read back as a user's.
 *  - Port flags (learning, flood, mcast_flood, bcast_flood, isolated,
 *    hairpin), ageing_time, vlan_filtering, vlan_default_pvid and each
 *    port's VLANs (`bridge vlan`: members, egress untagged, PVID), compared
 *    once a second with what was last agreed: a side that changed wins
 *    (the kernel's, if both did; per VLAN for a port's VLANs). A kernel
 *    without VLAN filtering: VLANs not mirrored (one log line).
 *  - At start, and after lost notifications, xdpbr's state wins.
 *
 * Work per main-loop turn is bounded (BRMIRROR_TURN_*), as in evpn.c:
 * events queue MACs, a repair pass walks the pinned FDB at
 * BRMIRROR_PASS_RATE entries a second and then the kernel's picture.
 */
#include <stdbool.h>
#include <stdint.h>

#include "fdbtab.h"
#include "kfdb.h"
#include "macset.h"
#include "xdpbr.h"

#define BRMIRROR_TURN_READS	(4 * KFDB_BATCH)	/* notifications read */
#define BRMIRROR_TURN_DUMP_READS 2			/* reads of a dump */
#define BRMIRROR_TURN_CHECKS	(KFDB_BATCH / 2)	/* MACs brought in line */
#define BRMIRROR_TURN_SCAN	65536			/* picture slots looked at */
#define BRMIRROR_PASS_RATE	100000			/* pinned entries a second */

struct bridge;
struct mnl_socket;

/* A port's VLANs as last agreed (ifindex 0: none yet). */
struct brmirror_vlans {
	struct xdpbr_vlan_port v;
	uint16_t pvid;
	uint32_t ifindex;
};
struct xdpbr_event;

struct brmirror {
	struct bridge *br;		/* set by brmirror_init */
	uint32_t kbr;			/* the Linux bridge's ifindex; 0: no mirror */
	uint64_t look_ns;		/* the next look at the device (once a second) */
	struct mnl_socket *nl;		/* neighbour notifications */
	struct kfdb_writer *w;
	struct kfdb_dump dump;		/* the kernel's FDB read under way */
	bool synced;			/* the picture is whole: users' changes count */
	bool behind;			/* notifications left to read: no writes */
	bool lost;			/* notifications were lost: read it again */
	struct macset km;		/* the kernel's FDB: MAC -> port (val), kind */
	struct macq todo;
	struct macq dels;		/* users' deletes, looked at once a second */
	struct fdb_entry *batch;	/* FDB_BATCH, for the pass */
	int phase;			/* of the repair pass */
	uint8_t pass_no;
	uint64_t cursor, pass_ns, read_ns;
	size_t slot;
	uint64_t ageing_ns;		/* the bridge's, as of the pass */
	uint32_t member[XDPBR_MAX_PORTS];	/* by slot: the port's ifindex if a
						 * port of the device, else 0 */
	uint32_t agreed[XDPBR_MAX_PORTS];	/* by slot: its flags as last agreed */
	uint32_t agreed_if[XDPBR_MAX_PORTS];	/* ... for this ifindex (0: none) */
	uint32_t ageing_cs;		/* the ageing time last agreed */
	bool ageing_agreed;
	bool vlan_off;			/* the kernel has no VLAN filtering */
	bool vlan_agreed;		/* filtering, default_pvid: agreed once */
	bool filtering;			/* ... as last agreed */
	uint16_t default_pvid;
	struct brmirror_vlans *vlans;	/* XDPBR_MAX_PORTS, by slot */
	/* The device's own VLANs (`bridge vlan ... self`) are its host port's
	 * (BR-host's) in xdpbr, and the device's end of the pair (BR-dev) gets
	 * them in the kernel: what the host sends crosses into BR-host as it
	 * left BR, what it receives crosses BR-dev into BR as it left BR-host. */
	uint32_t host_if, dev_if;	/* BR-host's, BR-dev's ifindex as of a look */
	bool have_self, have_dev;	/* ... each found in the look's dump */
	struct brmirror_vlans self, dev; /* the device's as agreed, BR-dev's as found */
	/* Whether a port new to the mirror keeps the kernel's VLANs (a port of
	 * a taken-over bridge whose VLANs the file does not give) rather than
	 * take xdpbr's. NULL: xdpbr's, always. */
	bool (*kernel_vlans)(uint32_t ifindex, void *arg);
	void *arg;
};

void brmirror_init(struct brmirror *b, struct bridge *br);
/* The fd to poll (-1: none), and reading it (a bounded part). */
int brmirror_fd(const struct brmirror *b);
void brmirror_read(struct brmirror *b);
/* The datapath's learn/move events; entries the daemon deleted. */
void brmirror_fdb_event(struct brmirror *b, const struct xdpbr_event *ev);
void brmirror_fdb_deleted(struct brmirror *b, const struct xdpbr_fdb_key *k);
/* A turn's work; lowers *wait_ms to when there is more. */
void brmirror_step(struct brmirror *b);
/* A link event (a port's flags changed, the device's ageing time, ...):
 * the device is looked at in the next turn, not at the next second, so a
 * `bridge link set` takes effect before the frames that follow it. */
void brmirror_poke(struct brmirror *b);
void brmirror_wait(const struct brmirror *b, int *wait_ms);
/* Stops mirroring; unless keep (the bridge goes on forwarding), deletes
 * the extern_learn entries it wrote. */
void brmirror_close(struct brmirror *b, bool keep);

#endif

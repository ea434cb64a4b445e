/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_EVPN_H
#define XDPBR_EVPN_H

/*
 * evpn - the bridge's VXLAN overlay with FRR's EVPN as its control plane
 * (doc/evpn.md): the kernel objects zebra understands (lib/overlay.h) and
 * the FDB mirror between them and the pinned FDB, the way SONiC's fdbsyncd
 * ties a switch ASIC to FRR:
 *
 *  - MACs xdpbr knows on its own ports (learned or static, not on the
 *    gateway) are extern_learn entries of the kernel bridge on the gateway's
 *    kernel end while they live in xdpbr: zebra advertises them (type-2);
 *  - MACs zebra installs for remote VTEPs (extern_learn on the vxlan
 *    device) are XDPBR_FDB_REMOTE entries on the gateway port, so unicast
 *    to them is forwarded to the overlay, never flooded; they leave when
 *    zebra withdraws them;
 *  - MAC mobility: a remote entry moves like a learned one when the MAC is
 *    heard on a local port (the datapath's move event makes it local in the
 *    kernel bridge at once: zebra re-advertises it with a higher sequence);
 *    a remote install for a MAC xdpbr holds as learned wins (zebra settled
 *    the move by sequence; a host still here moves it back with its next
 *    frame), one for a static entry of ours is answered by asserting it
 *    local again.
 *
 * Its work is bounded per main-loop turn, whatever the table's size (the
 * STP heartbeat is written from the same loop): events (ring buffer
 * learn/move, the daemon's age/flush hook, neighbour notifications) queue
 * MACs to be brought in line, a few hundred a turn (EVPN_TURN_*); the
 * kernel bridge's FDB is known from its notifications (a dump, read a
 * part a turn, at start and when notifications were lost), so nothing
 * asks the kernel for the whole table again; writes to it go out on one
 * socket, KFDB_BATCH a sendmsg. A repair pass walks the pinned FDB at
 * EVPN_PASS_RATE entries a second, then what the kernel holds that the
 * walk did not meet, and queues what differs (rate-limited learn events,
 * refused writes, anything events missed); it starts again a second after
 * the last began, or later when the table takes longer to walk.
 */
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "fdbtab.h"
#include "kfdb.h"
#include "macset.h"
#include "overlay.h"
#include "pins.h"

/* Per main-loop turn, at most: */
#define EVPN_TURN_READS		(4 * KFDB_BATCH)	/* neighbour notifications read */
#define EVPN_TURN_DUMP_READS	2	/* reads of a dump under way (kfdb.h) */
#define EVPN_TURN_CHECKS	KFDB_BATCH	/* MACs brought in line, a map lookup each */
#define EVPN_TURN_SCAN		65536	/* slots of the kernel's picture looked at */
#define EVPN_PASS_RATE		100000	/* pinned entries a second the repair pass reads */
#define EVPN_PASS_PERIOD_NS	XDPBR_NSEC_PER_SEC

struct bridge;
struct mnl_socket;

/* The repair pass (evpn.c). */
struct evpn_pass {
	int phase;
	uint8_t no;			/* the mark of what this pass met */
	uint64_t cursor;		/* in the pinned FDB (fdbtab.h) */
	size_t slot;			/* in the kernel's picture */
	uint64_t start_ns, refill_ns, tokens;
	uint64_t seen, queued;		/* entries read, MACs queued */
};

struct evpn {
	struct overlay ov;		/* ov.ifindex[OV_VXLAN] != 0: on */
	struct vxlan_info vx;		/* the settings it was made with */
	const struct xdpbr_maps *maps;	/* set by evpn_attach */
	struct mnl_socket *nl;		/* neighbour notifications */
	struct kfdb_writer *w;		/* the kernel bridge's FDB, written */
	struct kfdb_dump dump;		/* a resync of km under way */
	bool resync;			/* one is due (at resync_ns, or after this one) */
	bool behind;			/* notifications are left to read: no writes */
	uint64_t resync_ns;
	struct macset km;		/* what the kernel bridge holds, by MAC */
	struct macq todo;		/* MACs to bring in line */
	struct evpn_pass pass;
	bool repairing;			/* the last pass found work */
	struct fdb_entry *batch;	/* FDB_BATCH, for the pass */
	uint64_t ageing_ns;		/* the bridge's, as of the pass */
	unsigned int failed;		/* changes refused since the last report */
	uint64_t failed_ns;		/* ... which was then */
	char fail_why[96];		/* the last of them */
	bool made;			/* created by this daemon (not taken over) */
};

/* Finds the overlay's kernel objects of bridge and takes them over, or
 * (re)creates them for c (settings changed, some missing). Before the ports
 * are attached. 0 or -errno, said. */
int evpn_open(struct evpn *e, const char *bridge, const struct config_vxlan *c,
	      const struct xdpbr_maps *m);

/* The gateway as a port of br (after the other ports), the neighbour
 * watch and the writer, and the dump of the kernel's FDB started. 0 or
 * -errno, said. */
int evpn_attach(struct evpn *e, struct bridge *br);

/* The fd to poll for neighbour notifications (-1: none), and reading
 * them (a bounded part). */
int evpn_fd(const struct evpn *e);
void evpn_read(struct evpn *e);

/* A learn/move event of the datapath; an entry the daemon deleted (aged,
 * flushed): queued. */
void evpn_fdb_event(struct evpn *e, const struct xdpbr_event *ev);
void evpn_fdb_deleted(struct evpn *e, const struct xdpbr_fdb_key *k,
		      const struct xdpbr_fdb_val *v);

/* A turn's work: the dump, the pass, the queue, the writes. */
void evpn_step(struct evpn *e);

/* Lowers *wait_ms to when evpn_step has work next (0: now). */
void evpn_wait(const struct evpn *e, int *wait_ms);

/* Stops mirroring; unless keep, deletes the kernel objects (their FDB
 * entries go with them, the gateway port with its remote entries). */
void evpn_close(struct evpn *e, bool keep);

#endif

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
 *    a remote install for a MAC xdpbr holds locally wins unless xdpbr heard
 *    it within EVPN_LOCAL_FRESH_NS (zebra settled the move by sequence).
 *
 * Events drive it (ring buffer learn/move, the daemon's age/flush hook,
 * neighbour notifications); a reconcile pass each second repairs whatever
 * events missed (rate-limited learn events, a lost netlink message, a
 * daemon restart).
 */
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "overlay.h"
#include "pins.h"

#define EVPN_LOCAL_FRESH_NS	(2 * XDPBR_NSEC_PER_SEC)

struct bridge;
struct mnl_socket;

struct evpn {
	struct overlay ov;		/* ov.ifindex[OV_VXLAN] != 0: on */
	struct vxlan_info vx;		/* the settings it was made with */
	const struct xdpbr_maps *maps;	/* set by evpn_attach */
	struct mnl_socket *nl;		/* neighbour events */
	bool made;			/* created by this daemon (not taken over) */
};

/* Finds the overlay's kernel objects of bridge and takes them over, or
 * (re)creates them for c (settings changed, some missing). Before the ports
 * are attached. 0 or -errno, said. */
int evpn_open(struct evpn *e, const char *bridge, const struct config_vxlan *c,
	      const struct xdpbr_maps *m);

/* The gateway as a port of br (after the other ports), the neighbour
 * watch, and a first reconcile. 0 or -errno, said. */
int evpn_attach(struct evpn *e, struct bridge *br);

/* The fd to poll for neighbour events (-1: none), and reading them. */
int evpn_fd(const struct evpn *e);
void evpn_read(struct evpn *e);

/* A learn/move event of the datapath; an entry the daemon deleted (aged,
 * flushed). */
void evpn_fdb_event(struct evpn *e, const struct xdpbr_event *ev);
void evpn_fdb_deleted(struct evpn *e, const struct xdpbr_fdb_key *k,
		      const struct xdpbr_fdb_val *v);

/* Brings both FDBs in line (each second). */
void evpn_reconcile(struct evpn *e);

/* Stops mirroring; unless keep, deletes the kernel objects (their FDB
 * entries go with them, the gateway port with its remote entries). */
void evpn_close(struct evpn *e, bool keep);

#endif

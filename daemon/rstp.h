/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_RSTP_H
#define XDPBR_RSTP_H

/*
 * rstp - Rapid Spanning Tree (IEEE 802.1D-2004 clause 17) for one bridge,
 * with STP compatibility (clause 17.4: a port that hears configuration or
 * TCN BPDUs talks legacy 802.1D there, and goes back to RSTP when the peer
 * does, through mcheck/migration).
 *
 * The engine is pure: no sockets, no maps, no clock of its own. The daemon
 * feeds it received BPDUs (stp_rx) and the time (stp_tick), and the engine
 * acts through the callbacks in struct stp_ops: a port state for the
 * datapath, a flush of a port's learned entries on a topology change, a BPDU
 * to send, an event to log and publish. So it is unit-tested by wiring
 * several engines together in memory with a simulated clock.
 *
 * Ports are numbered by the bridge's slot (1..XDPBR_MAX_PORTS-1); the port
 * identifier in BPDUs is (port_priority << 8 | port number) as 802.1D-2004
 * 9.2.7 (4-bit priority in steps of 16, 12-bit number).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdpbr.h"		/* enum xdpbr_stp_state: what the datapath enforces */

/* Named by lib/stpmap.c's stpmap_role_name(), in this order. */
enum stp_role {
	STP_ROLE_DISABLED,
	STP_ROLE_ROOT,
	STP_ROLE_DESIGNATED,
	STP_ROLE_ALTERNATE,
	STP_ROLE_BACKUP,
};

enum stp_edge { STP_EDGE_OFF, STP_EDGE_ON, STP_EDGE_AUTO };

/* What the engine reports through stp_ops.event. */
enum stp_event {
	STP_EV_ROLE,		/* port's role changed */
	STP_EV_STATE,		/* port's state changed (after set_state) */
	STP_EV_TOPOLOGY_CHANGE,	/* a topology change began: some tcWhile started while
				 * none ran (port: where it was detected or heard) */
	STP_EV_ROOT_CHANGE,	/* the bridge has a new root (or became it) */
	STP_EV_BPDU_GUARD,	/* an edge port with bpdu_guard heard a BPDU: shut */
	STP_EV_ROOT_GUARD,	/* a root_guard port heard a superior BPDU: blocked */
	STP_EV_PROTOCOL,	/* a port migrated between RSTP and legacy STP */
	STP_EV_BAD_BPDU,	/* a malformed BPDU was dropped */
	STP_EV_CLAMPED,		/* a BPDU's times were out of 802.1D's ranges: clamped */
};

struct stp_ops {
	/* Put port's state into the datapath. edge: the port is an operational
	 * edge port (the datapath's dead-daemon fallback leaves edge ports
	 * forwarding). Returns 0 or -errno; the engine logs nothing itself. */
	int (*set_state)(void *arg, unsigned int port, enum xdpbr_stp_state state, bool edge);
	/* Flush the dynamic (learned) FDB entries of port (17.21.1 flush). A
	 * port is asked once per topology change however many BPDUs announce
	 * it; the flush may be done later, in steps (17.19.7 allows it). */
	void (*flush)(void *arg, unsigned int port);
	/* Send one BPDU out of port: frame is the whole Ethernet frame
	 * (01:80:c2:00:00:00, the bridge's address as source, 802.3 length,
	 * LLC 42 42 03), len bytes. 0 or -errno. */
	int (*send)(void *arg, unsigned int port, const void *frame, size_t len);
	/* Something worth a log line, a counter and a `xdpbr monitor` event. */
	void (*event)(void *arg, enum stp_event ev, unsigned int port);
};

/* The ranges of the configuration and of a received BPDU's times (clamped
 * to the timers' ranges before they are used) are lib/settings.c's rows:
 * priority, hello_time, max_age, forward_delay; path_cost, port_priority. */
struct stp_bridge_cfg {
	uint16_t priority;		/* lower wins the root election */
	uint8_t mac[6];			/* the bridge address of the bridge id */
	unsigned int hello_time, max_age, forward_delay;	/* seconds */
	unsigned int tx_hold_count;	/* BPDUs per hello at most (default 6) */
	bool force_stp;			/* ForceProtocolVersion 0: legacy STP only */
};

struct stp_port_cfg {
	uint32_t path_cost;		/* 0: from the link speed (17.14) */
	uint8_t priority;		/* the port's, in its port id */
	enum stp_edge edge;		/* admin edge, or auto detection (default auto) */
	bool bpdu_guard;
	bool root_guard;
	uint32_t bpdu_guard_timeout;	/* seconds a tripped port stays shut; 0: until reset */
};

/* What `xdpbr stp show` prints. Ids are 8 bytes: priority (2, big endian,
 * system id extension 0) + MAC, as in BPDUs. */
struct stp_bridge_info {
	uint8_t bridge_id[8], root_id[8];
	unsigned int root_port;		/* 0: this bridge is the root */
	uint32_t root_path_cost;
	uint64_t topology_changes;	/* as 802.1D-2004 14.8.1.1.3 counts them */
	uint64_t last_tc_ms;		/* time of the last change (stp_tick clock); 0: never */
	bool tc_active;			/* tcWhile running on some port */
	unsigned int hello_time, max_age, forward_delay;	/* in use (the root's) */
};

struct stp_port_info {
	enum stp_role role;
	enum xdpbr_stp_state state;
	uint32_t path_cost;		/* in use */
	uint16_t port_id;
	uint8_t designated_bridge[8], designated_root[8];
	uint16_t designated_port;
	uint32_t designated_cost;
	bool edge;			/* operational edge */
	bool p2p;			/* operational point-to-point */
	bool legacy;			/* talking 802.1D STP (sendRSTP false) */
	bool guard_tripped;		/* shut by bpdu_guard (or root_guard blocking) */
	bool held;			/* stp_port_hold */
	bool link_up;
	uint64_t bpdus_in, bpdus_out, bad_bpdus, tc_in, tc_out;
	uint64_t aged_bpdus;		/* dropped: message age + 1 s past max age */
	uint64_t clamped_bpdus;		/* times out of 802.1D's ranges, clamped */
};

struct stp_bridge;

/* A new engine for a bridge, its ports to be added with stp_port_add. The
 * ops are called only from within the stp_* calls. NULL with errno set on
 * a bad cfg. */
struct stp_bridge *stp_new(const struct stp_bridge_cfg *cfg,
			   const struct stp_ops *ops, void *arg);
void stp_free(struct stp_bridge *b);
/* Changes the bridge's settings at run time (SIGHUP, xdpbr bridge set):
 * re-runs role selection. 0 or -EINVAL. */
int stp_bridge_set(struct stp_bridge *b, const struct stp_bridge_cfg *cfg);

/* Adds port (slot number) with its settings, link state and speed in Mb/s
 * (0: unknown, a cost of 20000 as for 1 Gb/s). A new port starts discarding
 * unless it is an admin edge port. 0 or -errno (-EEXIST, -EINVAL). */
int stp_port_add(struct stp_bridge *b, unsigned int port,
		 const struct stp_port_cfg *cfg, bool link_up, uint32_t speed_mbps);
int stp_port_set(struct stp_bridge *b, unsigned int port, const struct stp_port_cfg *cfg);
void stp_port_del(struct stp_bridge *b, unsigned int port);
/* The port's carrier went up or down (and its speed, for an auto cost). */
void stp_port_link(struct stp_bridge *b, unsigned int port, bool up, uint32_t speed_mbps);
/* `xdpbr link set dev X bpdu_guard reset`: clears a trip. 0 or -ENOENT. */
int stp_port_guard_reset(struct stp_bridge *b, unsigned int port);
/* held: the port can't take part in the protocol (the daemon could not
 * open its BPDU socket): not portEnabled, so role disabled, discarding and
 * not an edge port, until released. 0 or -ENOENT. */
int stp_port_hold(struct stp_bridge *b, unsigned int port, bool held);
/* Forces BPDU protocol migration check on port (or all ports with 0). */
void stp_port_mcheck(struct stp_bridge *b, unsigned int port);

/* A BPDU received on port: data/len is the LLC payload, from the protocol
 * identifier on (the 802.3 header and LLC 42 42 03 already checked and
 * removed by the caller). Malformed input is counted (bad_bpdus) and
 * reported as STP_EV_BAD_BPDU, never trusted; times out of the ranges
 * above are clamped (clamped_bpdus, STP_EV_CLAMPED); information too old
 * to be held for a second (message age + 1 s > max age, 9.3.4 and
 * 17.21.23) is dropped (aged_bpdus). */
void stp_rx(struct stp_bridge *b, unsigned int port, const uint8_t *data, size_t len);

/* Advances the engine's clock to now_ms (monotonic milliseconds). Call it
 * at least every 100 ms; the state machines run on the 1 s tick of 17.22
 * and a BPDU is sent at once when one is due (newInfo). */
void stp_tick(struct stp_bridge *b, uint64_t now_ms);

/* Reads the state for show/stats. 0 or -ENOENT (port not added). */
void stp_bridge_get(const struct stp_bridge *b, struct stp_bridge_info *info);
int stp_port_get(const struct stp_bridge *b, unsigned int port, struct stp_port_info *info);


/*
 * Resuming after a restart, before the first stp_tick. The daemon passes
 * what the datapath holds: a port resumed forwarding is kept forwarding
 * unless the tree the engine learns says otherwise (an edge port stays
 * an edge port); one not resumed starts as a new port (discarding). The
 * daemon resumes only what is still the tree's (see daemon/stpd.c).
 */
void stp_port_resume(struct stp_bridge *b, unsigned int port, enum xdpbr_stp_state state,
		     bool edge);
/* A resume of non-edge ports: root_port was the root port before the
 * restart (0: this bridge was the root). Until that port has heard a BPDU
 * (at once for a root; at most hello_time + 1 s), resumed ports send
 * nothing and no port is promoted, edge ports excepted. */
void stp_resume_hold(struct stp_bridge *b, unsigned int root_port);

#endif /* XDPBR_RSTP_H */

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_STPD_H
#define XDPBR_STPD_H

/*
 * stpd - the spanning tree in xdpbrd: the RSTP engine (stp.h) wired to the
 * bridge.
 *
 *  - BPDUs: one AF_PACKET socket per port, bound to its ifindex and to
 *    802.2 LLC frames, with a classic BPF filter that lets through only
 *    01:80:c2:00:00:00 frames with LLC 42 42 03; the frame is checked again
 *    here (802.3 length, LLC) and the payload handed to stp_rx. The
 *    datapath passes those frames to the host on every port while STP is
 *    on (ctl_stp_enable). BPDUs are parsed in the daemon's main thread,
 *    which keeps CAP_NET_RAW for the sockets of ports added at run time:
 *    the parser is the engine's codec, which the fuzzers run (fuzz_bpdu).
 *  - Time: stpd_tick every STPD_TICK_MS drives stp_tick, and writes the
 *    heartbeat (ctl_stp_heartbeat, max age) with which the datapath falls
 *    back to discarding when the daemon is gone, and the status map.
 *  - The engine's ops: port states into the datapath (ctl_port_stp_set),
 *    flushes (ctl_fdb_flush of the port's dynamic entries), BPDUs out of
 *    the port's socket, events as log lines and `xdpbr monitor` JSON.
 *  - Ports follow the ports map: added, removed, link up/down (the
 *    XDPBR_PORT_DOWN flag the daemon keeps from link events) reach the
 *    engine at the next tick.
 *  - Restart: a bridge whose pins say STP was on resumes each port in the
 *    state the datapath holds (stp_port_resume), so nothing is lost.
 *  - Requests of `xdpbr bridge set stp ...` / `xdpbr link set ...` arrive
 *    through the pinned xdpbr_stp_cfg map (stpmap.h), the status leaves
 *    through xdpbr_stp_status.
 */
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "bridge.h"
#include "config.h"
#include "events.h"
#include "stp.h"

#define STPD_TICK_MS	100

struct stpd_port {
	uint32_t ifindex;		/* 0: no port in this slot */
	char ifname[IF_NAMESIZE];
	int fd;				/* packet socket, -1 while STP is off */
	bool up;
	bool host;			/* the host interface's port */
	struct stp_port_cfg cfg;	/* in use: the file's + requests */
	uint32_t speed;			/* Mb/s, 0 unknown */
	uint64_t bad_frames;		/* dropped here: not 802.3 LLC BPDUs */
	uint64_t guard_trips;
	uint32_t req_seq;		/* last request applied */
};

struct stpd {
	struct bridge *br;
	struct events *events;
	/* The configuration of a port by name (NULL: none). */
	const struct config_port *(*port_cfg)(const char *ifname, void *arg);
	void *arg;
	struct stp_bridge *eng;		/* NULL while STP is off */
	struct config_stp file;		/* the file's bridge settings */
	struct config_stp cur;		/* in use: the file's + requests */
	uint8_t mac[6];			/* of the bridge id */
	int cfg_fd, status_fd;		/* the pinned maps, -1 if unavailable */
	uint32_t req_seq;		/* bridge request last applied */
	bool resuming;			/* adding ports whose states are kept */
	bool resume;			/* the pins say STP was on: resume */
	struct stpd_port ports[XDPBR_MAX_PORTS];	/* by slot */
};

/* Opens (or creates) the pinned maps, takes the requests they hold and
 * starts the engine when STP is on. mac: the bridge address. 0 or -errno
 * (said); STP stays off on failure. */
int stpd_open(struct stpd *s, struct bridge *br, struct events *ev, const uint8_t mac[6],
	      const struct config_stp *c);
/* Stops the engine; leaves the datapath's states (dead-daemon rule). */
void stpd_close(struct stpd *s);
/* SIGHUP: the file's settings, the requests cleared. */
void stpd_reload(struct stpd *s, const struct config_stp *c, const uint8_t mac[6]);
/* The packet sockets to poll: fills up to max, returns how many. */
int stpd_pollfds(const struct stpd *s, struct pollfd *pfd, int max);
/* Reads what the sockets of pfd (as stpd_pollfds filled them) have. */
void stpd_input(struct stpd *s, const struct pollfd *pfd, int n);
/* Every STPD_TICK_MS. */
void stpd_tick(struct stpd *s);

#endif

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
 *    A port whose socket can't be opened is held discarding (stp_port_hold:
 *    it can't tell a loop), its error logged at priority err, tried again
 *    every STPD_SOCK_RETRY_S; the host interface's port excepted (only the
 *    host is behind it, as for the dead-daemon rule).
 *  - Time: stpd_tick every STPD_TICK_MS drives stp_tick, and writes the
 *    heartbeat (ctl_stp_heartbeat) with which the datapath falls back to
 *    discarding when the daemon has been silent longer than the
 *    heartbeat's timeout (hello_time + 1 s, max age if shorter), and the
 *    status map. The main
 *    loop calls it first in its turn, and its other work per turn is
 *    bounded (BPDUs: STPD_RX_BURST a port; flushes: fdbflush.h).
 *  - The engine's ops: port states into the datapath (ctl_port_stp_set),
 *    flushes (fdbflush_port: one walk for many ports, in steps), BPDUs out
 *    of the port's socket, events as log lines (topology changes and
 *    clamped BPDUs at most one line per STPD_LOG_PERIOD_S) and `xdpbr
 *    monitor` JSON.
 *  - Ports follow the ports map: added, removed, link up/down (the
 *    XDPBR_PORT_DOWN flag the daemon keeps from link events) reach the
 *    engine at the next tick.
 *  - Restart (stpd_peek before the datapath is loaded, stpd_begin before
 *    any port is attached): the pinned states are kept only while they are
 *    still the tree's, i.e. the datapath still enforces them: STP was on
 *    and the last daemon's heartbeat is younger than its timeout. Then the
 *    heartbeat is renewed once (stpd_peek), each port resumes the state
 *    the datapath holds (stp_port_resume) and the
 *    engine holds its BPDUs until its old root port hears one
 *    (stp_resume_hold): a quick restart loses nothing. Otherwise (the
 *    timeout ran out, no heartbeat, STP was off) the states are history:
 *    every port but the edge ports (those the datapath kept forwarding as
 *    edges, the host interface's) is set discarding before anything else,
 *    and forwards only once the engine has decided it from what it hears
 *    now (proposal/agreement or forward delay).
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
#include "fdbflush.h"
#include "rstp.h"

#define STPD_TICK_MS		100
#define STPD_RX_BURST		8	/* BPDUs read from a port per loop turn */
#define STPD_SOCK_RETRY_S	10	/* a failed BPDU socket tried again after */
#define STPD_LOG_PERIOD_S	10	/* a kind of line at most once per */

/* A kind of log line at most once per STPD_LOG_PERIOD_S. */
struct stpd_ratelimit {
	uint64_t last_ns;
	unsigned int missed;		/* lines not logged since */
};

struct stpd_port {
	uint32_t ifindex;		/* 0: no port in this slot */
	char ifname[IF_NAMESIZE];
	int fd;				/* packet socket, -1 while STP is off */
	int sock_err;			/* -errno of the socket's last open; 0: open */
	uint64_t sock_retry_ns;		/* when to try it again */
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
	struct fdbflush *flush;		/* where the engine's flushes go */
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
	bool starting;			/* stp_start: ports resume what they hold */
	bool resume;			/* the pinned states are current: kept */
	unsigned int resume_root;	/* the old root port (0: it was the root;
					 * XDPBR_MAX_PORTS: unknown) */
	struct stpd_ratelimit tc_log, clamp_log;
	struct stpd_port ports[XDPBR_MAX_PORTS];	/* by slot */
};

/* First of all, before the datapath is loaded (seconds on a busy machine):
 * if the pins hold current port states, the heartbeat is renewed once,
 * with its timeout, so that they stay current while this daemon loads;
 * stpd_begin keeps them only if it comes within that time. Says how old
 * the heartbeat was. */
void stpd_peek(const char *bridge);
/* Before the bridge's ports are attached (so that none forwards on stale
 * states): opens (or creates) the pinned maps, takes the requests they
 * hold and decides how the tree starts (see Restart above). */
void stpd_begin(struct stpd *s, struct bridge *br, struct fdbflush *flush,
		const struct config_stp *c);
/* Starts the engine when STP is on. mac: the bridge address. 0 or -errno
 * (said); STP stays off on failure. */
int stpd_open(struct stpd *s, struct events *ev, const uint8_t mac[6]);
/* Stops the engine; leaves the datapath's states (dead-daemon rule).
 * Nothing to do if stpd_begin was not called. */
void stpd_close(struct stpd *s);
/* SIGHUP: the file's settings, the requests cleared. */
void stpd_reload(struct stpd *s, const struct config_stp *c, const uint8_t mac[6]);
/* The packet sockets to poll: fills up to max, returns how many. */
int stpd_pollfds(const struct stpd *s, struct pollfd *pfd, int max);
/* Reads what the sockets of pfd (as stpd_pollfds filled them) have. */
void stpd_input(struct stpd *s, const struct pollfd *pfd, int n);
/* Every STPD_TICK_MS, first in the loop's turn. */
void stpd_tick(struct stpd *s);

#endif

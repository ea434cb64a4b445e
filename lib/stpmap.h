/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_STPMAP_H
#define XDPBR_STPMAP_H

/*
 * stpmap - the spanning tree's two pinned maps, user space only (the
 * datapath never reads them; it gets port states through ctl_port_stp_set):
 *
 *   xdpbr_stp_cfg     requests of `xdpbr bridge set stp ...` and `xdpbr link
 *                     set dev X path_cost ...` to the daemon: entry 0 the
 *                     bridge's, entry SLOT a port's. A request bumps seq; the
 *                     daemon applies the fields in `set` within a tick, on top
 *                     of its configuration file, until the next reload
 *                     (SIGHUP), which clears them.
 *   xdpbr_stp_status  what the daemon's engine says, written every tick:
 *                     entry 0 the bridge (struct stpmap_bridge), entry SLOT a
 *                     port (struct stpmap_port). Read by `xdpbr stp show`
 *                     and by the HTTP thread (read-only descriptor).
 *
 * Values are STPMAP_VALUE bytes whatever the structs' sizes: a field is
 * added at a struct's end, and reads as 0 from an older daemon's entry.
 *
 * Both are arrays of XDPBR_MAX_PORTS entries pinned next to the datapath's
 * maps (/sys/fs/bpf/xdpbr/BRIDGE/), created by xdpbrd when missing and
 * adopted as they are when present, so requests and status survive a
 * restart of the daemon like the rest of the bridge's state.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>
#include <linux/types.h>

#include "xdpbr.h"

#define STPMAP_CFG	"xdpbr_stp_cfg"
#define STPMAP_STATUS	"xdpbr_stp_status"
#define STPMAP_VALUE	192		/* bytes of a value of either map */

/* Fields of a request (struct stpmap_req.set). */
enum {
	STPREQ_ON		= 1U << 0,	/* bridge: stp on/off */
	STPREQ_PRIORITY		= 1U << 1,	/* bridge priority / port_priority */
	STPREQ_HELLO		= 1U << 2,
	STPREQ_MAX_AGE		= 1U << 3,
	STPREQ_FWD_DELAY	= 1U << 4,
	STPREQ_PATH_COST	= 1U << 5,	/* port */
	STPREQ_EDGE		= 1U << 6,
	STPREQ_BPDU_GUARD	= 1U << 7,
	STPREQ_ROOT_GUARD	= 1U << 8,
	STPREQ_GUARD_RESET	= 1U << 9,	/* an action: cleared by the next request */
};
#define STPREQ_BRIDGE (STPREQ_ON | STPREQ_PRIORITY | STPREQ_HELLO | STPREQ_MAX_AGE | \
		       STPREQ_FWD_DELAY)
#define STPREQ_PORT (STPREQ_PRIORITY | STPREQ_PATH_COST | STPREQ_EDGE | STPREQ_BPDU_GUARD | \
		     STPREQ_ROOT_GUARD | STPREQ_GUARD_RESET)

struct stpmap_req {
	__u32 seq;			/* bumped by each request */
	__u32 set;			/* STPREQ_* given (accumulated) */
	__u32 ifindex;			/* port entries: the port it was made for */
	__u8 on;			/* bridge: STP on */
	__u8 edge;			/* enum stp_edge: 0 off, 1 on, 2 auto */
	__u8 bpdu_guard;
	__u8 root_guard;
	__u32 priority;			/* bridge 0..61440 / port 0..240 */
	__u32 hello_time, max_age, forward_delay;	/* seconds */
	__u32 path_cost;		/* 0: from the link speed */
};

/* Entry 0 of the status map. */
struct stpmap_bridge {
	__u8 enabled;			/* STP on */
	__u8 tc_active;
	__u8 pad[2];
	__u32 root_ifindex;		/* 0: this bridge is the root */
	__u8 bridge_id[8], root_id[8];
	__u32 root_path_cost;
	__u32 hello_time, max_age, forward_delay;	/* in use */
	__u32 cfg_hello_time, cfg_max_age, cfg_forward_delay;	/* configured */
	__u32 pid;			/* the daemon that wrote it */
	__u64 topology_changes;
	__u64 last_tc_ns;		/* CLOCK_MONOTONIC; 0: never */
	__u64 updated_ns;		/* CLOCK_MONOTONIC of this write */
	__u64 fdb_flushes;		/* walks of the FDB for flushes, done */
	__u8 fdb_flush_running;		/* one under way or asked for */
	__u8 pad2[7];
};

/* enum stp_edge's values (daemon/rstp.h), for those who don't link the engine. */
enum { STPMAP_EDGE_OFF, STPMAP_EDGE_ON, STPMAP_EDGE_AUTO };

/* struct stpmap_port.state: the numbering the pin has had from the start
 * (a new CLI reads what an older daemon wrote), the reverse of enum
 * xdpbr_stp_state's. Written and read through the two functions below. */
enum { STPMAP_STATE_DISCARDING, STPMAP_STATE_LEARNING, STPMAP_STATE_FORWARDING,
       STPMAP_STATES };
__u8 stpmap_state_code(enum xdpbr_stp_state st);
enum xdpbr_stp_state stpmap_state(unsigned int code);

/* Port flags (struct stpmap_port.flags). */
enum {
	STPMAP_P_EDGE		= 1U << 0,	/* operational edge */
	STPMAP_P_P2P		= 1U << 1,
	STPMAP_P_LEGACY		= 1U << 2,	/* talking 802.1D STP */
	STPMAP_P_GUARD		= 1U << 3,	/* shut by a guard */
	STPMAP_P_LINK_UP	= 1U << 4,
	STPMAP_P_BPDU_GUARD	= 1U << 5,	/* configured */
	STPMAP_P_ROOT_GUARD	= 1U << 6,
	STPMAP_P_HELD		= 1U << 7,	/* held discarding: no BPDU socket */
};

/* Entry SLOT of the status map; ifindex 0: no port there. */
struct stpmap_port {
	__u32 ifindex;
	__u8 role;			/* enum stp_role */
	__u8 state;			/* STPMAP_STATE_*, not enum xdpbr_stp_state */
	__u8 admin_edge;		/* enum stp_edge */
	__u8 pad;
	__u32 flags;			/* STPMAP_P_* */
	__u32 path_cost;
	__u16 port_id, designated_port;
	__u8 designated_bridge[8], designated_root[8];
	__u32 designated_cost;
	__u64 bpdus_in, bpdus_out, bad_bpdus, tc_in, tc_out, guard_trips;
	char ifname[16];
	__u64 aged_bpdus;		/* dropped: too old (message age) */
	__u64 clamped_bpdus;		/* times out of 802.1D's ranges */
	__u32 sock_err;			/* errno of the BPDU socket's open; 0: open */
	__u32 pad2;
};

_Static_assert(sizeof(struct stpmap_req) <= STPMAP_VALUE, "stpmap value too small");
_Static_assert(sizeof(struct stpmap_bridge) <= STPMAP_VALUE, "stpmap value too small");
_Static_assert(sizeof(struct stpmap_port) <= STPMAP_VALUE, "stpmap value too small");

/* Opens a pinned map of bridge (STPMAP_CFG or STPMAP_STATUS), read-only
 * when ro; create: make and pin it when missing (the daemon). A descriptor
 * or -errno (-ENOENT: no such pin, an older daemon or none ever ran). */
int stpmap_open(const char *bridge, const char *name, bool ro, bool create);
/* Removes both pins (the bridge is taken down). */
void stpmap_unpin(const char *bridge);

/* Reads/writes one entry as its type: 0 or -errno. */
int stpmap_get(int fd, uint32_t key, void *val, size_t len);
int stpmap_put(int fd, uint32_t key, const void *val, size_t len);

/* One read of the status map. */
struct stpmap_snapshot {
	struct stpmap_bridge br;
	struct stpmap_port ports[XDPBR_MAX_PORTS];	/* by slot */
};
int stpmap_read(int fd, struct stpmap_snapshot *s);

/* The timers' relation of 802.1D-2004 17.14: 2 * (forward_delay - 1) >=
 * max_age >= 2 * (hello_time + 1). NULL when it holds, else why not. */
const char *stpmap_timers_check(unsigned int hello, unsigned int max_age,
				unsigned int fwd_delay);

/* Names of a state's code (stp_state_word's) and of the engine's enums, for
 * those who do not link it. */
const char *stpmap_state_name(unsigned int code);
const char *stpmap_role_name(unsigned int r);
const char *stpmap_edge_name(unsigned int e);
/* "8000.02:00:00:00:00:01" (priority in hex, as brctl and mstpctl write it). */
char *stpmap_id_format(const uint8_t id[8], char *buf, size_t len);

/* `xdpbr -j stp show` and the "stp" member of HTTP /stats. now_ns:
 * CLOCK_MONOTONIC, for the time since the last topology change. */
struct json_object *stpmap_json(const struct stpmap_snapshot *s, uint64_t now_ns);
/* The xdpbr_stp_* Prometheus families. */
void stpmap_metrics(const struct stpmap_snapshot *s, const char *bridge, FILE *out);

#endif

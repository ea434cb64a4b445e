/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * bridge.h - a bridge (struct bridge) and every bridge_* call, for the
 * daemon, the CLI, the tools and the tests. Implemented in three layers
 * (doc/architecture.md, "lib/ in layers"): load.c, brport.c, bridge.c.
 */
#ifndef XDPBR_BRIDGE_H
#define XDPBR_BRIDGE_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "xdpbr.h"
#include "hook.h"
#include "pins.h"
#include "ports.h"

/* The maps an upgrade may move (lib/upgrade.h): the object's pinned ones
 * and the spanning tree's two (lib/stpmap.h). */
#define BRIDGE_MAP_COUNT_ONE(name, type) + 1
#define BRIDGE_UPGRADE_MAPS (0 XDPBR_MAPS_PINNED(BRIDGE_MAP_COUNT_ONE) + 2)

struct bridge_opts {
	enum xdpbr_mode mode;		/* requested; XDPBR_MODE_NONE: auto */
	bool xdp_share;			/* ports share their XDP hook (libxdp) */
	enum port_path path;		/* default for ports: auto, xdp or tc */
	uint32_t fdb_size;		/* 0: the object's default */
	bool fdb_cache_set;
	uint32_t fdb_cache;		/* per-CPU cache entries, 0 = off
					 * (when set; else the default) */
	uint64_t ageing_ns;		/* 0: leave as pinned (default 300 s) */
};

struct bridge_port {
	uint32_t ifindex;
	char ifname[IF_NAMESIZE];
	uint32_t mode;			/* enum xdpbr_mode actually attached */
	uint32_t comp_id;		/* our component in libxdp's dispatcher
					 * attached by this process, or 0 */
	bool attached_now;		/* attached by this process (undo on failure) */
	int tc_link_fd;			/* its TCX link, held while this process runs
					 * (-1: none, or a clsact filter): a removed
					 * pin does not detach it, and is put back
					 * (bridge_pins_check) */
};

/* What the bridge's owner (the daemon's configuration) says of a port
 * before it is attached; each member optional, all given arg. */
struct bridge_policy {
	/* Settles a new port's flags and limit, so no frame ever sees the
	 * defaults of a port configured otherwise. */
	void (*port_init)(const char *ifname, struct xdpbr_port *p, void *arg);
	/* The datapath the port is configured for (PORT_PATH_AUTO: the
	 * bridge's default, then the port's kind decides). */
	enum port_path (*port_path)(const char *ifname, void *arg);
	/* Whether it shares its XDP hook (XDP_SHARE_DEFAULT: the bridge's
	 * xdp_share). */
	enum xdp_share (*port_share)(const char *ifname, void *arg);
	void *arg;
};

struct xdpbr;				/* the skeleton */
struct bpf_link;

struct bridge {
	char name[IF_NAMESIZE];
	char dir[PATH_MAX];
	struct xdpbr *skel;
	struct xdpbr_maps maps;
	int prog_rx_fd;
	int prog_egress_fd;
	int prog_tc_fd;			/* the skb path (-1: none pinned) */
	int prog_bpdu_fd;		/* BPDU sockets' filter (-1: none loaded) */
	uint32_t prog_rx_id;
	uint32_t prog_tc_id;
	uint32_t fdb_map_id;		/* identifies this bridge's programs */
	struct bpf_link *tp_links[2];	/* drop-counting tracepoints */
	struct bridge_policy policy;	/* what the owner says of a port */
	enum port_path path;		/* the bridge's default */
	bool xdp_share;			/* the bridge's default */
	int share_ok;			/* libxdp's dispatcher runs here: 1 yes,
					 * 0 not probed yet, -1 no (share_why) */
	char share_why[160];
	bool adopted;			/* pins existed: never remove them on failure */
	int upgrade_fd[BRIDGE_UPGRADE_MAPS]; /* pinned maps in this build's layout,
					 * to fill and pin once loaded (lib/load.c
					 * upgrade_pins); -1: none */
	int lock_fd;			/* one process per bridge: the flock on
					 * dir (lib/lock.h), -1 when not held */
	enum xdpbr_mode mode;		/* requested; XDPBR_MODE_NONE: auto */
	struct bridge_port ports[XDPBR_MAX_PORTS];
	int nports;
};

/* ---- bridge.c: its life */

/* Mounts bpffs if needed, takes the bridge's lock (one daemon per bridge:
 * -EBUSY, said with the pid of the process that runs it, before anything
 * is changed; held until bridge_close), loads the datapath (reusing
 * pinned maps: a restarted daemon adopts the bridge), pins maps and
 * programs under /sys/fs/bpf/xdpbr/<name>/ (another network namespace's:
 * paths.h). 0 or -errno, with the reason logged. */
int bridge_open(struct bridge *br, const char *name, const struct bridge_opts *o);

/* Stops the bridge. keep: leave it forwarding (programs attached, maps
 * pinned). Otherwise detach from every port and remove the pins; when
 * failed is set, undo only what this process did (an adopted bridge keeps
 * its pins and ports). */
void bridge_close(struct bridge *br, bool keep, bool failed);

/* Opens an existing bridge from its pins (CLI: link add/del). No skeleton:
 * close with bridge_close_pinned(). 0 or -errno. */
int bridge_open_pinned(struct bridge *br, const char *name);
void bridge_close_pinned(struct bridge *br);

/*
 * A bridge with no daemon (xdpbr bridge add NAME): the datapath loaded and
 * left standing under /sys/fs/bpf/xdpbr/NAME, as `xdpbrd --keep` leaves it,
 * taking over first the map pins of an `ip link ... xdp obj` in
 * iproute2's tc/globals of the same bpffs. -EEXIST if the bridge exists. 0 or -errno, said.
 */
int bridge_create(const char *name);

/* Its end (xdpbr bridge del NAME): detached from every port, every pin
 * removed. -EBUSY while an xdpbrd runs it (its SIGTERM does this). */
int bridge_destroy(const char *name);

/* Puts back the bridge's pins if they were removed. 0: all there; 1: put
 * back; -ENOENT: bpffs is not mounted; -errno. */
int bridge_pins_check(struct bridge *br);

/* ---- load.c: its datapath object */

/* The map descriptors of a loaded skeleton. */
void bridge_skel_maps(const struct xdpbr *skel, struct xdpbr_maps *m);

/* Before load: the FDB cache of an opened skeleton for every possible CPU,
 * with 2^bits sets each (0: off), as bpf/fdbcache.h lays it out. */
int bridge_skel_fdbc(struct xdpbr *skel, uint32_t bits);

/* ---- brport.c: its ports */

/* Validates an interface before anything is attached: it exists and has no
 * foreign XDP program. 0 or -errno, with the reason logged. */
int bridge_check_port(struct bridge *br, const char *ifname);

/* Adds ifname to the bridge's maps and attaches the program. A new port's
 * slot is claimed under the slot lock (lib/lock.h), so processes adding
 * ports at once never share one. */
int bridge_add_port(struct bridge *br, const char *ifname);

/* The datapath bridge_add_port() would give ifname (PORT_PATH_XDP or
 * PORT_PATH_TC; PORT_PATH_AUTO when there is no such interface). */
enum port_path bridge_port_path(struct bridge *br, const char *ifname);

/* Takes over the ports of an adopted bridge that this run did not name:
 * each is switched atomically to the new program. */
int bridge_adopt_ports(struct bridge *br);

/* Detaches a port, removes it from the maps and flushes its FDB entries.
 * ifname is the port's interface, or the name a port whose interface is
 * gone had (deleted while no daemon ran). -ENODEV (said) if neither. */
int bridge_del_port(struct bridge *br, const char *ifname);

/* The same for the port in slot, whatever became of its interface.
 * -ENODEV (said) if the slot has no port. */
int bridge_del_slot(struct bridge *br, uint32_t slot);

/*
 * Removes the pinned ports whose interface is gone: deleted while no daemon
 * ran (a crash, --keep, a bridge without a daemon), or whose ifindex is now
 * another interface's, which must not inherit the port's slot, settings,
 * static entries or counters. The others keep everything; their recorded
 * name follows a rename. The number removed, or -errno.
 */
int bridge_reconcile_ports(struct bridge *br);

/* Records the name the interface of the port (ifindex, slot) has now: 1 if
 * it was renamed, 0 if not, -errno. */
int bridge_port_name_follow(struct bridge *br, uint32_t ifindex, uint32_t slot);

/* The ports' MTUs: the smallest and largest, and a port that has each
 * (the host interface's port is left out: it follows the host's end). */
struct bridge_mtus {
	int min, max;			/* 0 when no port */
	uint32_t min_ifindex, max_ifindex;
};

/* Reads the MTU of every port of the bridge whose maps are m and records
 * the smallest in the config, for the datapath's egress MTU check
 * (bpf/mtu.h): frames longer than it are checked against their egress
 * port. 1 if the recorded value changed, 0 if not, -errno. */
int bridge_mtu_refresh(const struct xdpbr_maps *m, struct bridge_mtus *mt);

#endif

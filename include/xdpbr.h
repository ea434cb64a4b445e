/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdpbr.h - everything that crosses the BPF / user-space boundary.
 *
 * Included by the datapath (bpf/) and by the daemon, CLI and tests, so both
 * sides agree on one layout, one set of flag bits and one counter table.
 * Fixed-width fields, explicit padding, sizes asserted at the bottom.
 */
#ifndef XDPBR_H
#define XDPBR_H

#include <linux/types.h>

/* Capacities. Both sides must see the same numbers: override with -D for
 * both builds, never for one. */
#ifndef XDPBR_MAX_PORTS
#define XDPBR_MAX_PORTS 1025		/* ports per bridge; slot 0 is reserved */
#endif
/* The XDP fast flood counts its copies with a 64-bit mask of slots: it
 * runs only while every port has a slot below this (doc/ports.md). */
#define XDPBR_FLOOD_FAST_SLOTS 64
/* ifindexes below this find their port through two array lookups
 * (xdpbr_ifslot, xdpbr_portcfg); larger ones through the xdpbr_ports hash. */
#ifndef XDPBR_IFINDEX_FAST
#define XDPBR_IFINDEX_FAST 65536
#endif
#ifndef XDPBR_FDB_SIZE
#define XDPBR_FDB_SIZE 65536		/* default FDB capacity (daemon may resize) */
#endif

/* Limits of what user space accepts (config file, xdpbrd's options, the
 * CLI, HTTP queries): one number each. */
#define XDPBR_PORTS_PER_BRIDGE	(XDPBR_MAX_PORTS - 1)	/* slot 0 is reserved */
#define XDPBR_FDB_SIZE_MIN	16
#define XDPBR_FDB_SIZE_MAX	(1U << 26)	/* 67108864 entries */
#define XDPBR_LEARNED_MAX	XDPBR_FDB_SIZE_MAX	/* fdb_max_learned, max_learned */
#define XDPBR_AGEING_MAX_S	1000000		/* ageing time, seconds */
#define XDPBR_STORM_MAX_PPS	100000000	/* storm control, frames per second */
#define XDPBR_LINKLOCAL_MAX_PPS	XDPBR_STORM_MAX_PPS	/* linklocal_limit */

#define XDPBR_NSEC_PER_SEC	1000000000ULL
/* A MAC seen again on its own port refreshes last_seen at most this often:
 * a hit on a known source writes nothing shared in between. */
#define XDPBR_REFRESH_NS	XDPBR_NSEC_PER_SEC
#define XDPBR_DEFAULT_AGEING_S	300

/* Names of the pinned objects in a bridge's pin directory (where that is:
 * lib/paths.h) besides the maps (xdpbr_maps.h). */
#define XDPBR_PIN_LINK_XMIT	"link_devmap_xmit"
#define XDPBR_PIN_LINK_REDIR	"link_redirect_err"
#define XDPBR_PIN_PROG_RX	"prog_rx"
#define XDPBR_PIN_PROG_EGRESS	"prog_egress"
#define XDPBR_PIN_PROG_TC	"prog_tc"
/* + the port's ifindex: its TCX link (lib/hook.c) */
#define XDPBR_PIN_LINK_TC	"link_tc_"

/* Section names: `ip link set dev X xdp obj xdpbr.bpf.o sec xdp.frags`,
 * `tc filter add dev X ingress bpf da obj xdpbr.bpf.o sec tc` */
#define XDPBR_SEC_RX		"xdp.frags"
#define XDPBR_SEC_TC		"tc"
/* The loader's cls_bpf filter on a port's clsact ingress: this handle and
 * priority, so it finds and removes its own filter and no one else's. */
#define XDPBR_TC_HANDLE		0x7862
#define XDPBR_TC_PRIO		0x7862

/* FDB key: {vlan, mac}. vlan is 0 until VLAN filtering exists. */
struct xdpbr_fdb_key {
	__u16 vlan;			/* host byte order */
	__u8  mac[6];
};

/* FDB value flags */
#define XDPBR_FDB_STATIC	(1U << 0)	/* never ages, never moves */
#define XDPBR_FDB_LOCAL		(1U << 1)	/* the bridge's own address */
/* A MAC behind a remote VTEP, written by the daemon's FDB mirror from what
 * FRR's zebra installs (daemon/evpn.c) on the overlay's gateway port: it
 * never ages (zebra withdraws it), but unlike a static entry it moves when
 * the MAC is heard on another port (MAC mobility: the datapath then learns
 * it there as an ordinary dynamic entry). */
#define XDPBR_FDB_REMOTE	(1U << 2)
/* With XDPBR_FDB_REMOTE: a static entry a user wrote on the Linux bridge
 * device (`bridge fdb add ... master static`, daemon/brmirror.c), which
 * follows the same rules (never ages, moves) and is no remote VTEP's: it
 * shows as the kernel shows it, "static". */
#define XDPBR_FDB_USER		(1U << 3)
/* With XDPBR_FDB_REMOTE: an entry a user wrote on the Linux bridge device
 * with `bridge fdb add ... master extern_learn`: as the kernel treats one,
 * it never ages and moves (and, heard on another port, is learned there as
 * an ordinary dynamic entry); it shows as "extern_learn". */
#define XDPBR_FDB_EXTERN	(1U << 4)

struct xdpbr_fdb_val {
	__u32 ifindex;			/* port the MAC lives behind */
	__u16 slot;			/* that port's slot (stats, tx devmap) */
	__u16 flags;			/* XDPBR_FDB_* */
	__u64 last_seen;		/* CLOCK_MONOTONIC ns, coarse */
};

/*
 * FDB generation (xdpbr_fdbgen, entry 0, a __u64): changes after every change
 * to an entry that already existed (moved, replaced, deleted). The
 * datapath's per-CPU lookup cache (bpf/fdbcache.h) trusts an entry only
 * while the generation is the one it was filled at. Adding a new key needs
 * no change: nothing can be cached for a key that was not there. The
 * datapath adds XDPBR_FDBGEN_DP_STEP (1, atomically; xdpbr_rules.h) when it
 * moves a MAC; user space adds XDPBR_FDBGEN_USER_STEP after it writes or
 * deletes (fdbgen_bump_user(), lib/pins.c).
 */
#define XDPBR_FDBGEN_USER_STEP	(1ULL << 32)

/* The datapath's per-CPU FDB cache (bpf/fdbcache.h), in entries per CPU: 0
 * (off) or a power of two from 4, 2 ways a set. Set by the loader. */
#define XDPBR_FDB_CACHE_DEFAULT	16384
#define XDPBR_FDB_CACHE_MAX	(1U << 20)

/*
 * Port flags a user sets (xdpbr_port.flags). One table, as XDPBR_COUNTERS:
 * XDPBR_PORT_FLAGS(X) expands X(suffix, bit, "name", nl) and gives the
 * constant XDPBR_PORT_<suffix> = 1U << bit. The name is the config key
 * ([port X] learning = on), the CLI keyword (link set dev X learning on) and
 * the JSON key of a port (xdpbr -j link show, GET /stats), in this order;
 * IFLA_BRPORT_<nl> is the Linux bridge's port attribute (lib/settings.c).
 */
#define XDPBR_PORT_FLAGS(X)						\
	X(LEARNING,	0,	"learning",	LEARNING)		\
	X(FLOOD,	1,	"flood",	UNICAST_FLOOD)	/* unknown unicast */ \
	X(MCAST_FLOOD,	2,	"mcast_flood",	MCAST_FLOOD)		\
	X(BCAST_FLOOD,	3,	"bcast_flood",	BCAST_FLOOD)		\
	X(ISOLATED,	4,	"isolated",	ISOLATED) /* no traffic to other isolated ports */ \
	X(HAIRPIN,	5,	"hairpin",	MODE)	/* may send a frame back out its ingress */ \
	X(LOCKED,	6,	"locked",	LOCKED)	/* forwards only sources the FDB has on it */

#define XDPBR_PORT_FLAG_ENTRY(e, bit, name, nl) XDPBR_PORT_##e = 1U << (bit),
enum xdpbr_port_flag {
	XDPBR_PORT_FLAGS(XDPBR_PORT_FLAG_ENTRY)
};
#undef XDPBR_PORT_FLAG_ENTRY
#define XDPBR_PORT_FLAG_OR(e, bit, name, nl) | XDPBR_PORT_##e
#define XDPBR_PORT_USER_FLAGS	(0U XDPBR_PORT_FLAGS(XDPBR_PORT_FLAG_OR))
#define XDPBR_PORT_DEFAULT_FLAGS (XDPBR_PORT_LEARNING | XDPBR_PORT_FLOOD | \
				  XDPBR_PORT_MCAST_FLOOD | XDPBR_PORT_BCAST_FLOOD)
#define XDPBR_PORT_DOWN		(1U << 16)	/* state, set by the daemon: link down */
#define XDPBR_PORT_PEER_NS	(1U << 17)	/* state, set by the loader: a veth whose
						 * peer is in another network namespace:
						 * the skb path delivers to it with
						 * bpf_redirect_peer */
#define XDPBR_PORT_HOST		(1U << 18)	/* state, set by the daemon: the bridge's
						 * side of its host interface; the host's
						 * address is a local FDB entry on it */
#define XDPBR_PORT_XDP_TARGET	(1U << 19)	/* state, set by the daemon: a port on
						 * the skb path that an XDP redirect
						 * reaches too (the host interface's
						 * veth, whose peer runs NAPI): floods
						 * from XDP ports take it into their
						 * devmap broadcast; known unicast to
						 * it still goes through the stack */

/*
 * How a port's frames enter the datapath, recorded by the loader
 * (xdpbr_port.mode): XDP in the driver (native) or after the skb is built
 * (generic), or the skb path: a TC (clsact ingress) program, for virtual
 * ports (veth, tap) whose frames carry GSO and checksum offload state that
 * an XDP redirect would lose (doc/architecture.md).
 */
enum xdpbr_mode {
	XDPBR_MODE_NONE = 0,
	XDPBR_MODE_NATIVE,
	XDPBR_MODE_GENERIC,
	XDPBR_MODE_TC,
};

/*
 * Names of the attach modes: XDPBR_MODES(X) expands X(suffix, "name") for
 * XDPBR_MODE_<suffix>, every value of enum xdpbr_mode. The name is what
 * outputs print (a port's "xdp_mode" in JSON) and what a request names (the
 * config file's mode =, xdpbrd -m, xdpbr link add ... mode), except that a
 * request for no mode in particular (native where the driver has it, else
 * generic: XDPBR_MODE_NONE) is spelled XDPBR_MODE_AUTO_NAME. TC is the skb
 * path: a TC (clsact ingress) program, for virtual ports.
 */
#define XDPBR_MODES(X)							\
	X(NONE,		"none")						\
	X(NATIVE,	"native")					\
	X(GENERIC,	"generic")					\
	X(TC,		"tc")
#define XDPBR_MODE_AUTO_NAME	"auto"

/* Value of xdpbr_ports, keyed by ifindex (__u32). */
struct xdpbr_port {
	__u32 slot;			/* 1..XDPBR_MAX_PORTS-1; 0 = not a port */
	__u32 flags;			/* XDPBR_PORT_* */
	__u16 mode;			/* enum xdpbr_mode */
	__u16 pvid;			/* VLAN of untagged ingress; 0 = none */
	__u32 max_learned;		/* dynamic entries learned here; 0 = no limit */
};

/* The interface name of the port in a slot, as user space added it
 * (xdpbr_portname, ARRAY indexed by slot; "" for a free slot). The datapath
 * never reads it: it names a port whose interface is gone (deleted while no
 * daemon ran), for the log and for `xdpbr link del dev OLDNAME`. */
#define XDPBR_IFNAMSIZ		16	/* IFNAMSIZ, with its NUL */
struct xdpbr_port_name {
	char name[XDPBR_IFNAMSIZ];
};

/* VLAN membership of a port (xdpbr_vlans, ARRAY indexed by slot): bit vid of
 * member[] = the port is in VLAN vid; of untagged[] = it sends that VLAN's
 * frames untagged. Enforced only with XDPBR_CFG_VLAN_FILTERING. */
#define XDPBR_VLAN_MAX		4094
#define XDPBR_VLAN_WORDS	64	/* 4096 bits */
struct xdpbr_vlan_port {
	__u64 member[XDPBR_VLAN_WORDS];
	__u64 untagged[XDPBR_VLAN_WORDS];
};
#define XDPBR_DEFAULT_PVID	1

/* Bridge-wide runtime knobs: xdpbr_config[0], written by the daemon/CLI.
 * A zeroed map (e.g. right after `ip link ... xdp obj`) means defaults. */
struct xdpbr_config {
	__u64 ageing_ns;		/* 0 = use the default; XDPBR_AGEING_NEVER = never */
	__u32 flags;			/* XDPBR_CFG_* */
	__u32 fdb_max_learned;		/* dynamic entries in the bridge; 0 = no limit */
	__u16 default_pvid;		/* PVID of new ports; 0 = none (1 if never set) */
	__u16 mtu_min;			/* smallest MTU of the ports (0: 1500), see below */
	__u32 linklocal_pps;		/* link-local frames to the host, per port and
					 * CPU a second: 0 = XDPBR_LINKLOCAL_PPS,
					 * XDPBR_LINKLOCAL_NONE = no limit */
};
#define XDPBR_CFG_VLAN_FILTERING	(1U << 0)	/* 802.1Q VLAN-aware bridging */
#define XDPBR_CFG_PVID_SET		(1U << 1)	/* default_pvid was set (0 = none) */
/* The bridge's default datapath for new ports, recorded by the daemon so
 * that ports added later (xdpbr link add) follow it; neither: by kind. */
#define XDPBR_CFG_DP_XDP		(1U << 2)
#define XDPBR_CFG_DP_TC			(1U << 3)
/* Spanning tree on (the daemon runs RSTP): BPDUs (01:80:c2:00:00:00) go
 * to the host on every port whatever its state, port states belong to the
 * daemon, and a daemon silent for longer than its heartbeat's timeout
 * leaves every non-edge port discarding. Off: BPDUs are flooded like any
 * multicast, as the kernel bridge does without STP, and port states are
 * set by hand (xdpbr link set dev X state ...). */
#define XDPBR_CFG_STP			(1U << 4)
#define XDPBR_AGEING_NEVER	(~0ULL)

/* Frames whose network-layer length (without Ethernet header and VLAN tag)
 * exceeds the smallest port MTU of the bridge (mtu_min, which user space
 * keeps up to date; 0 means this) are checked against the egress port's
 * MTU and dropped as drop_mtu / tx_dropped_mtu when larger. Smaller frames
 * fit every port and pay no check. */
#define XDPBR_MTU_DEFAULT	1500

/*
 * Spanning tree port states, as the datapath enforces them (802.1D-2004
 * 17.4: RSTP has three; STP's disabled, blocking and listening are all
 * discarding here). 0 is forwarding, so a port of a zeroed or older map
 * forwards, as every port did before states existed.
 *   forwarding   learns, forwards, receives floods and known unicast;
 *   learning     learns from what it receives, forwards and receives nothing;
 *   discarding   neither learns nor forwards nor receives anything.
 * BPDUs reach the host whatever the state while XDPBR_CFG_STP is on.
 * The one enum of states: the datapath's, the RSTP engine's (daemon/rstp.c)
 * and the CLI's; their words are lib/stpstate.c's stp_state_words[].
 */
enum xdpbr_stp_state {
	XDPBR_STP_FORWARDING = 0,
	XDPBR_STP_LEARNING = 1,
	XDPBR_STP_DISCARDING = 2,
};

/*
 * A port's spanning tree word (xdpbr_stp_port, ARRAY of __u32 by slot):
 * the state in the low bits and the operational-edge bit, written in one
 * store, so a frame sees the old word or the new one, never a mix. A
 * separate map from xdpbr_ports, whose entries other writers rewrite whole
 * (link flags, link down): the state has one writer, the daemon while STP
 * is on, the CLI while it is off.
 */
#define XDPBR_STP_STATE_MASK	0x3U
#define XDPBR_STP_EDGE		(1U << 2)	/* an edge port: keeps its state
						 * when the heartbeat expires */

/*
 * The daemon's heartbeat (xdpbr_stp_beat[0]): written every tick while STP
 * runs (ctl_stp_heartbeat). Once the datapath's clock is more than
 * timeout_ns past beat_ns, it treats every non-edge port as discarding,
 * until the daemon beats again; a read per frame, no write. timeout_ns 0:
 * no fallback.
 */
struct xdpbr_stp_beat {
	__u64 beat_ns;			/* CLOCK_MONOTONIC of the last beat */
	__u64 timeout_ns;		/* hello_time + 1 s, max age if shorter
					 * (daemon/stpd.c); 0 = never */
};

/*
 * Per-port counters. One table, used for the array index in the datapath and
 * for names in the CLI/JSON: XDPBR_COUNTERS(X) expands X(enum, "json_name").
 * Every received frame ends in exactly one outcome counter (forwarded,
 * flood_*, pass_*, drop_*): rx_packets == sum of outcomes. The others are
 * events: learned/moved/learn_failed/learn_limit on the ingress port,
 * flood_filtered on an egress port that refused a flooded copy (isolation,
 * VLAN, or a spanning tree state that is not forwarding),
 * tx_dropped_mtu on an egress port that refused a flooded copy larger than
 * its MTU (a known-unicast frame that is: the ingress port's drop_mtu),
 * tx_dropped on an egress port whose driver dropped redirected frames
 * (tracepoint xdp:xdp_devmap_xmit), redirect_errors on the ingress port when
 * the kernel failed a redirect after the program returned
 * (xdp:xdp_redirect_err), events_dropped when the event rate limit or a
 * full ring buffer swallowed a learn/move event, bpdu_socket_limit when
 * the daemon's BPDU socket on the port refused a BPDU over the link-local
 * limit (xdpbr_bpdu_sock; the frame has its outcome too). A new counter
 * changes the value of the pinned xdpbr_stats: lib/upgrade.c must learn to adopt the
 * layout before it (a _Static_assert there says so).
 */
#define XDPBR_COUNTERS(X)						\
	X(RX_PACKETS,		"rx_packets")				\
	X(RX_BYTES,		"rx_bytes")				\
	X(TX_PACKETS,		"tx_packets")				\
	X(TX_BYTES,		"tx_bytes")				\
	X(FORWARDED,		"forwarded")				\
	X(FLOOD_BCAST,		"flood_broadcast")			\
	X(FLOOD_MCAST,		"flood_multicast")			\
	X(FLOOD_UNKNOWN,	"flood_unknown")			\
	X(PASS_LINKLOCAL,	"pass_linklocal")			\
	X(PASS_NOT_PORT,	"pass_not_port")			\
	X(DROP_RUNT,		"drop_runt")				\
	X(DROP_BAD_SRC,		"drop_bad_src")				\
	X(DROP_SAME_PORT,	"drop_same_port")			\
	X(DROP_SPOOFED,		"drop_spoofed_static")			\
	X(DROP_LOCKED,		"drop_locked")				\
	X(DROP_ISOLATED,	"drop_isolated")			\
	X(DROP_VLAN,		"drop_vlan_filtered")			\
	X(DROP_8021AD,		"drop_8021ad")				\
	X(DROP_STORM_BCAST,	"drop_storm_broadcast")			\
	X(DROP_STORM_MCAST,	"drop_storm_multicast")			\
	X(DROP_STORM_UNKNOWN,	"drop_storm_unknown")			\
	X(DROP_LINKLOCAL,	"drop_linklocal_limit")			\
	X(DROP_PORT_STATE,	"drop_port_state")			\
	X(DROP_REDIRECT,	"drop_redirect")			\
	X(DROP_MTU,		"drop_mtu")				\
	X(LEARNED,		"learned")				\
	X(MOVED,		"moved")				\
	X(LEARN_FAILED,		"learn_failed")				\
	X(LEARN_LIMIT,		"learn_limit")				\
	X(FLOOD_FILTERED,	"flood_filtered")			\
	X(TX_DROPPED,		"tx_dropped")				\
	X(TX_DROPPED_MTU,	"tx_dropped_mtu")			\
	X(REDIRECT_ERRORS,	"redirect_errors")			\
	X(EVENTS_DROPPED,	"events_dropped")			\
	X(BPDU_SOCKET_LIMIT,	"bpdu_socket_limit")

#define XDPBR_ENUM_ENTRY(e, name) XDPBR_CNT_##e,
enum xdpbr_counter {
	XDPBR_COUNTERS(XDPBR_ENUM_ENTRY)
	XDPBR_CNT__MAX
};
#undef XDPBR_ENUM_ENTRY

/* First and last outcome counter: the accounting invariant sums this range. */
#define XDPBR_CNT_OUTCOME_FIRST	XDPBR_CNT_FORWARDED
#define XDPBR_CNT_OUTCOME_LAST	XDPBR_CNT_DROP_MTU

/* Dynamic FDB entries per port slot, with the bridge total in slot 0: the
 * sum of the datapath's count, xdpbr_learned (changed atomically when it
 * learns or moves an entry), and user space's, xdpbr_learned_user (changed
 * when it adds or deletes one), signed __u64s both (xdpbr_learned_count()).
 * The daemon repairs a drift from a race after an ageing pass during which
 * nothing else changed the table. */
#define XDPBR_LEARNED_TOTAL	0

/*
 * Storm control: per-port limits on flooded frames, per class, in packets
 * per second (xdpbr_storm, ARRAY by slot; 0 = no limit). Enforced with a
 * token bucket per CPU and port (no shared write): each online CPU gets an
 * even share of the limit, pps_cpu, which user space computes. A port whose
 * frames all arrive on one CPU is therefore held to pps / ncpus; the bucket
 * holds XDPBR_STORM_BURST_MS worth of frames.
 */
enum xdpbr_storm_class {
	XDPBR_STORM_BCAST,
	XDPBR_STORM_MCAST,
	XDPBR_STORM_UNKNOWN,
	XDPBR_STORM__MAX,
};
#define XDPBR_STORM_BURST_MS	100

struct xdpbr_storm {
	__u32 pps[XDPBR_STORM__MAX];		/* configured limit, 0 = none */
	__u32 pps_cpu[XDPBR_STORM__MAX];	/* each CPU's share (>= 1 if pps) */
};

/*
 * Link-local frames (01:80:c2:00:00:0X) go to the host on every port, in
 * every state and outside storm control, so they get their own limit: token
 * buckets per port and CPU (xdpbr_linklocal_state, by slot) of
 * xdpbr_config.linklocal_pps frames a second, holding a second's worth.
 * Over it they are dropped as drop_linklocal_limit. BPDUs have a bucket of
 * their own: a flood of LLDP or LACP frames must not starve the spanning
 * tree, which would open a loop when a blocked port stops hearing its
 * BPDUs. The default is ten times what the protocols that use these
 * addresses send a neighbour at their fastest: RSTP at most TxHoldCount (6)
 * BPDUs a second, LACP's fast rate 1 a second, LLDP's fast start 1 a
 * second, an 802.1X exchange a few frames. Each CPU gets the whole rate
 * (unlike storm control): a port's BPDUs must never lose to how RSS
 * spreads them.
 */
#define XDPBR_LINKLOCAL_PPS	100
#define XDPBR_LINKLOCAL_NONE	0xffffffffU
#define XDPBR_LINKLOCAL_BURST_MS	1000
enum xdpbr_linklocal_class {
	XDPBR_LINKLOCAL_BPDU,			/* 01:80:c2:00:00:00 */
	XDPBR_LINKLOCAL_OTHER,			/* the rest of 01:80:c2:00:00:0X */
	XDPBR_LINKLOCAL__MAX,
};

struct xdpbr_linklocal_bucket {
	__u64 last_ns[XDPBR_LINKLOCAL__MAX];
	__u64 tokens[XDPBR_LINKLOCAL__MAX];	/* frames * 1e9 */
};

/* The BPDU sockets' own bucket of the same limit, per port and CPU
 * (xdpbr_bpdusock_state; bpf/xdpbr.bpf.c xdpbr_bpdu_sock). */
struct xdpbr_bpdusock_bucket {
	__u64 last_ns;
	__u64 tokens;				/* frames * 1e9 */
};

struct xdpbr_storm_bucket {
	__u64 last_ns[XDPBR_STORM__MAX];
	__u64 tokens[XDPBR_STORM__MAX];		/* frames * 1e9 */
};

/*
 * The XDP fast flood (xdpbr_flood_fast, entry 0; bpf/maps.h): which slots
 * have an entry in each class's fast flood map (xdpbr_flood_*_fast, the
 * flood sets without the egress program), so the ingress program can count
 * the copies' tx itself. Recomputed whole by user space after every port
 * change (lib/ctl.c flood_fast_sync); ready is 1 only when the fast maps
 * hold every port the ports map says they should, every port's slot fits
 * the mask (below XDPBR_FLOOD_FAST_SLOTS) and no port has a spanning tree
 * state that is not forwarding: else the datapath floods through the
 * egress program, as without this. top bounds the TC flood's walk over
 * the slots (and the XDP flood's MTU count): a bridge of 3 ports walks 3
 * slots, not XDPBR_MAX_PORTS - 1. small is 1 when the slow flood's small
 * maps (xdpbr_flood_*_small) hold every port they should and every
 * port's slot is below XDPBR_FLOOD_FAST_SLOTS, whatever the spanning tree
 * states: the slow flood then takes them. small shares the word an older
 * build read as a 32-bit top, which to it is then a larger bound than
 * needed, never a smaller one (an upgrade runs its programs on these pins
 * until the new ones replace them).
 */
struct xdpbr_flood_fast {
	__u64 mask[XDPBR_STORM__MAX];	/* per class: bit s = slot s is in */
	__u32 ready;
	__u16 top;			/* every port's slot is below it; 0: unknown */
	__u16 small;			/* the small maps are ready */
};

/*
 * IGMP/MLD snooping: the kernel bridge device snoops, and user space
 * (daemon/mdbmirror.c) mirrors its MDB into five maps (bpf/maps.h, bpf/mcast.h):
 *   xdpbr_mdb       group {vid, proto, address} -> group id (never 0);
 *   xdpbr_mdb_src   an IGMPv3/MLDv2 (S,G) entry {group, source} -> its
 *                   group id: looked up first while the family is in
 *                   that mode (XDPBR_MCAST_SRC4/6), as the kernel's
 *                   br_mdb_get does;
 *   xdpbr_mdb_port  {group id, slot} -> 1: the slot is a member (of
 *                   those, the ones the kernel forwards to: in that mode
 *                   not a (*,G) port in INCLUDE mode, nor a blocked
 *                   source's port of an (S,G) entry);
 *   xdpbr_mrouter   slot -> XDPBR_MROUTER_*: a multicast router port of
 *                   IPv4, IPv6 (the kernel keeps the two apart);
 *   xdpbr_mcast     entry 0: whether snooping prunes, and the host's slot;
 *   xdpbr_mcast_vlan    VLAN -> its own XDPBR_MCAST_SNOOPING, _QUERIER4/6
 *                   and _SRC4/6, in place of xdpbr_mcast's while the
 *                   kernel bridge has multicast contexts per VLAN
 *                   (mcast_vlan_snooping: XDPBR_MCAST_VLAN_CTX);
 *   xdpbr_mrouter_vlan  {VLAN, slot} -> XDPBR_MROUTER_*: then the router
 *                   ports, each VLAN's own, in place of xdpbr_mrouter.
 * Keyed by slot, not by a mask of ports: any number of ports. Group ids
 * are never reused while the daemon runs (a new group, a new id), so a
 * member entry left behind by a deleted group can't make a port a member
 * of another.
 */
#define XDPBR_MDB_SIZE		4096	/* groups (the kernel's default hash_max) */
#define XDPBR_MDB_PORT_SIZE	16384	/* group memberships of ports */
#define XDPBR_MDB_SRC_SIZE	4096	/* (S,G) entries */
#define XDPBR_MDB_GID_MAX	((1U << 29) - 1)	/* fits bpf/mcast.h's word */
#define XDPBR_MROUTER_IP4	(1U << 0)
#define XDPBR_MROUTER_IP6	(1U << 1)
#define XDPBR_MCAST_VLANS	4096	/* xdpbr_mcast_vlan: one entry a VLAN id */
#define XDPBR_MROUTER_VLAN_SIZE	16384	/* router ports of VLANs */
/* xdpbr_mrouter_vlan's key: a VLAN and a slot in one word. */
#define XDPBR_MROUTER_VLAN_KEY(vid, slot)	((__u32)(vid) << 16 | (__u32)(slot))

/*
 * xdpbr_mdb_set: a group's ports as one mask, so that a pruned frame
 * visits its ports only, not every port to ask each whether it is one
 * (bpf/flood.h). Key: the group id with XDPBR_MDB_SET_IP6 for an IPv6
 * group (group id 0: an unregistered group of the family, which goes to
 * the router ports); value: a bit per slot below XDPBR_FLOOD_FAST_SLOTS,
 * the group's member ports, the family's router ports and the host's
 * port, what mcast_copy_ok lets through. User space writes an entry only
 * where all of these are below that slot and the router ports are the
 * bridge's (no multicast contexts per VLAN); without its entry a group's
 * frame asks every port, as before.
 */
#define XDPBR_MDB_SET_IP6	(1U << 29)	/* bpf/mcast.h's MC_IP6 */
#define XDPBR_MDB_SET_SIZE	(XDPBR_MDB_SIZE + XDPBR_MDB_SRC_SIZE + 2)

enum xdpbr_mdb_proto {
	XDPBR_MDB_L2 = 0,		/* a MAC address (bridge mdb add ... grp MAC) */
	XDPBR_MDB_IP4 = 4,
	XDPBR_MDB_IP6 = 6,
};

struct xdpbr_mdb_key {
	__u16 vid;			/* the VLAN; 0 without VLAN filtering */
	__u8 proto;			/* enum xdpbr_mdb_proto */
	__u8 pad;
	__u8 addr[16];			/* IPv4: 4 bytes, IPv6: 16, L2: 6; rest 0 */
};

struct xdpbr_mdb_src_key {
	struct xdpbr_mdb_key grp;	/* the group (IPv4, IPv6) */
	__u8 src[16];			/* its source: IPv4 4 bytes, IPv6 16; rest 0 */
};

struct xdpbr_mdb_port_key {
	__u32 gid;
	__u32 slot;
};

/* Snooping prunes IPv4 / IPv6 data (the kernel's "a querier exists" for
 * each family, with mcast_snooping on); snooping on at all (L2 groups and
 * control frames handed to the kernel). */
#define XDPBR_MCAST_SNOOPING	(1U << 0)
#define XDPBR_MCAST_QUERIER4	(1U << 1)
#define XDPBR_MCAST_QUERIER6	(1U << 2)
/* Some port is out of the multicast flood set (mcast_flood off), which the
 * kernel applies to unregistered multicast only: a pruned frame then goes
 * the skb path (bpf/mcast.h mcast_some_out). */
#define XDPBR_MCAST_MC_OUT	(1U << 3)
/* IGMPv3 (mcast_igmp_version 3) / MLDv2 (mcast_mld_version 2), with some
 * (S,G) entry of the family mirrored: data looks up its (S,G) entry
 * first (bpf/mcast.h). */
#define XDPBR_MCAST_SRC4	(1U << 4)
#define XDPBR_MCAST_SRC6	(1U << 5)
/* The kernel bridge filters VLANs: its MDB is per VLAN (bpf/mcast.h). */
#define XDPBR_MCAST_VLAN	(1U << 6)
/* ... and has a multicast context per VLAN (mcast_vlan_snooping): each
 * VLAN's snooping, queriers and versions are its xdpbr_mcast_vlan entry's,
 * its router ports xdpbr_mrouter_vlan's. */
#define XDPBR_MCAST_VLAN_CTX	(1U << 7)

struct xdpbr_mcast {
	__u32 flags;			/* XDPBR_MCAST_* */
	__u32 host_slot;		/* the host interface's port: never pruned; 0 none */
};

/* FDB events from the datapath (ring buffer xdpbr_events: learn, move)
 * and, with the same layout, from the daemon to `xdpbr monitor` (age, and
 * flush for what the daemon deletes: port down, removal, reload). */
enum xdpbr_event_type {
	XDPBR_EV_LEARN = 1,		/* new dynamic entry */
	XDPBR_EV_MOVE,			/* entry moved from old_ifindex to ifindex */
	XDPBR_EV_AGE,			/* aged out (daemon) */
	XDPBR_EV_FLUSH,			/* deleted by the daemon (port down, ...) */
};

struct xdpbr_event {
	__u64 ts;			/* CLOCK_MONOTONIC ns */
	__u32 type;			/* enum xdpbr_event_type */
	__u32 ifindex;
	__u32 old_ifindex;		/* MOVE: where it was */
	__u16 vlan;
	__u8  mac[6];
};

/* Event rate limit: a token bucket per CPU, so a MAC flood costs each CPU
 * at most XDPBR_EV_RATE events a second (burst XDPBR_EV_BURST). */
#ifndef XDPBR_EV_RATE
#define XDPBR_EV_RATE		1000
#endif
#define XDPBR_EV_BURST		256
#define XDPBR_EV_RINGBUF_SIZE	(256 * 1024)

struct xdpbr_evbudget {
	__u64 last_ns;
	__u64 tokens;			/* in 1/XDPBR_EV_RATE s units * 1e9 */
};

/* Bridge-wide figures kept by user space (xdpbr_bridge[0]). */
struct xdpbr_bridge_stats {
	__u64 aged;			/* entries the daemon aged out */
	__u64 flushed;			/* entries deleted by del/flush/port down */
};

/* Value of xdpbr_stats (PERCPU_ARRAY indexed by port slot). Slot 0 counts
 * frames that arrive on an interface the program runs on but that is not a
 * configured port. */
struct xdpbr_stats {
	__u64 c[XDPBR_CNT__MAX];
};

#ifndef __BPF__
_Static_assert(sizeof(struct xdpbr_fdb_key) == 8, "fdb key layout");
_Static_assert(sizeof(struct xdpbr_fdb_val) == 16, "fdb value layout");
_Static_assert(sizeof(struct xdpbr_port) == 16, "port layout");
_Static_assert(sizeof(struct xdpbr_config) == 24, "config layout");
_Static_assert(sizeof(struct xdpbr_vlan_port) == 1024, "vlan layout");
_Static_assert(sizeof(struct xdpbr_event) == 32, "event layout");
_Static_assert(sizeof(struct xdpbr_storm) == 24, "storm layout");
_Static_assert(sizeof(struct xdpbr_port_name) == 16, "port name layout");
_Static_assert(sizeof(struct xdpbr_stp_beat) == 16, "stp heartbeat layout");
_Static_assert(sizeof(struct xdpbr_flood_fast) == 32, "fast flood layout");
_Static_assert(XDPBR_MAX_PORTS <= 0xffff, "a slot bound fits xdpbr_flood_fast.top");
_Static_assert(sizeof(struct xdpbr_mdb_key) == 20, "mdb key layout");
_Static_assert(sizeof(struct xdpbr_mdb_port_key) == 8, "mdb port key layout");
_Static_assert(XDPBR_MDB_GID_MAX < XDPBR_MDB_SET_IP6, "a group id and the family bit apart");
_Static_assert(sizeof(struct xdpbr_mdb_src_key) == 36, "mdb source key layout");
_Static_assert(sizeof(struct xdpbr_mcast) == 8, "mcast layout");
_Static_assert(XDPBR_FLOOD_FAST_SLOTS <= 64, "a fast flood slot must fit its mask");
_Static_assert(XDPBR_STP_DISCARDING <= XDPBR_STP_STATE_MASK, "stp state fits its mask");
_Static_assert(XDPBR_MAX_PORTS <= 65535, "slot must fit fdb_val.slot");
#define XDPBR_MODE_COUNT_ONE(e, name) + 1
_Static_assert(0 XDPBR_MODES(XDPBR_MODE_COUNT_ONE) == XDPBR_MODE_TC + 1,
	       "XDPBR_MODES names every enum xdpbr_mode");
#undef XDPBR_MODE_COUNT_ONE
_Static_assert(!(XDPBR_PORT_USER_FLAGS & (XDPBR_PORT_DOWN | XDPBR_PORT_PEER_NS | XDPBR_PORT_HOST |
					  XDPBR_PORT_XDP_TARGET)),
	       "state bit among user flags");
#endif

#endif /* XDPBR_H */

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_CLI_H
#define XDPBR_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdpbr.h"		/* enum xdpbr_mode, enum xdpbr_stp_state */
#include "fdbtab.h"		/* enum fdb_kind */

/*
 * The port flags the CLI sets (link set) and shows (link show), in the
 * order it shows them: include/xdpbr.h's table, X(NAME, bit, "word", nl) for
 * the flag XDPBR_PORT_NAME, the keyword bit KW_NAME and the word.
 */
#define CLI_PORT_FLAGS(X) XDPBR_PORT_FLAGS(X)

/* OBJ_HELP: the usage; OBJ_VERSION: -V, the version. */
enum cli_object { OBJ_NONE, OBJ_BRIDGE, OBJ_FDB, OBJ_LINK, OBJ_VLAN, OBJ_STATS, OBJ_MONITOR,
		  OBJ_VXLAN, OBJ_STP, OBJ_HELP, OBJ_VERSION };
/* VERB_FDB: `monitor fdb`, the events monitor knows (and its default). */
enum cli_verb { VERB_SHOW, VERB_SET, VERB_ADD, VERB_DEL, VERB_FLUSH, VERB_FDB, VERB_HELP };

/* Keywords a command was given (cli_cmd.seen). */
enum cli_kw {
	KW_DEV		= 1U << 0,
	KW_VLAN		= 1U << 1,
	KW_KIND		= 1U << 2,	/* dynamic | static */
	KW_LEARNING	= 1U << 3,
	KW_FLOOD	= 1U << 4,
	KW_MCAST_FLOOD	= 1U << 5,
	KW_BCAST_FLOOD	= 1U << 6,
	KW_ISOLATED	= 1U << 7,
	KW_HAIRPIN	= 1U << 8,
	KW_MAX_LEARNED	= 1U << 9,
	KW_AGEING	= 1U << 10,	/* ageing_time */
	KW_FDB_MAX	= 1U << 11,	/* fdb_max_learned */
	KW_MASTER	= 1U << 12,
	KW_MODE		= 1U << 13,
	KW_LLADDR	= 1U << 14,	/* the positional MAC of fdb add/del */
	KW_RATE		= 1U << 15,	/* stats rate SECONDS (or the option -r) */
	KW_COUNT	= 1U << 16,	/* stats rate .. count N, monitor count N */
	KW_VID		= 1U << 17,	/* vlan add/del vid VID[-VID] */
	KW_PVID		= 1U << 18,	/* vlan add .. pvid */
	KW_UNTAGGED	= 1U << 19,	/* vlan add .. untagged */
	KW_VLAN_FILTERING = 1U << 20,	/* bridge set vlan_filtering */
	KW_DEFAULT_PVID	= 1U << 21,	/* bridge set default_pvid */
	KW_STORM	= 1U << 22,	/* link set storm CLASS PPS ... */
	KW_NAME		= 1U << 23,	/* the positional NAME of bridge add/del */
	KW_SLOT		= 1U << 24,	/* link del slot N */
	KW_STATE	= 1U << 25,	/* link set state STATE */
	/* The spanning tree's words, each also a bit of cli_stp.set (its
	 * STPREQ_* field, lib/stpmap.h): */
	KW_STP_BRIDGE	= 1U << 29,	/* bridge set stp/priority/hello_time/.. */
	KW_STP_PORT	= 1U << 30,	/* link set path_cost/edge/bpdu_guard/.. */
};

/* bridge set / link set: the spanning tree settings given (a request to
 * xdpbrd through the pinned xdpbr_stp_cfg map). */
struct cli_stp {
	unsigned int set;		/* STPREQ_* given */
	bool on;			/* stp on */
	uint32_t priority;		/* bridge 0..61440 step 4096; port 0..240 step 16 */
	uint32_t hello_time, max_age, forward_delay;
	uint32_t path_cost;		/* 0: from the link speed */
	uint8_t edge;			/* enum stp_edge: 0 off, 1 on, 2 auto */
	bool bpdu_guard, root_guard;	/* bpdu_guard reset: STPREQ_GUARD_RESET */
};

#define CLI_AGEING_MAX_S 1000000	/* ageing_time limit, seconds */
#define CLI_RATE_MAX_S 3600		/* stats rate interval limit, seconds */
#define CLI_STORM_MAX_PPS 100000000	/* storm control limit, frames per second */

struct cli_cmd;
struct target;			/* common.h: the bridge a command works on */

/* Runs a parsed command: 0 or -errno, with the message printed. */
typedef int cli_run_fn(const struct cli_cmd *c, struct target *t);

struct cli_cmd {
	/* from the command table: what runs it, and whether it works without
	 * the bridge's pinned maps (monitor) */
	cli_run_fn *run;
	bool no_maps;
	bool json;
	bool pretty;
	const char *bridge;		/* -b, or NULL: the only one */
	enum cli_object object;
	enum cli_verb verb;
	bool help;			/* `OBJECT COMMAND help`: usage of the command */
	unsigned int seen;		/* enum cli_kw bits */
	const char *dev;		/* dev DEV, or NULL */
	uint32_t slot;			/* link del slot N (1..XDPBR_MAX_PORTS-1) */
	int vlan;			/* vlan VID, or -1 */
	enum fdb_kind kind;		/* fdb add: FDB_KIND_STATIC unless dynamic */
	uint8_t mac[6];			/* LLADDR */
	uint32_t flags_set;		/* link set: XDPBR_PORT_* to turn on */
	uint32_t flags_clear;		/* ... and to turn off */
	uint32_t max_learned;		/* link set max_learned (0 = no limit) */
	uint64_t ageing_ns;		/* bridge set ageing_time, XDPBR_AGEING_NEVER for 0 */
	uint32_t fdb_max_learned;	/* bridge set fdb_max_learned (0 = no limit) */
	const char *master;		/* link add master BRIDGE */
	const char *name;		/* bridge add/del NAME */
	enum xdpbr_mode mode;		/* link add mode (default auto) */
	unsigned int rate_s;		/* stats: rate interval, seconds; 0: counters */
	uint32_t count;			/* stats rate: intervals; monitor: events;
					 * 0: not given (one interval; no end) */
	uint16_t vid_from, vid_to;	/* vlan add/del vid: 1..4094, from <= to */
	bool pvid;			/* vlan add pvid (then vid_from == vid_to) */
	bool untagged;			/* vlan add untagged */
	bool vlan_filtering;		/* bridge set vlan_filtering on (seen: given) */
	uint16_t default_pvid;		/* bridge set default_pvid, 0 = none */
	/* link set storm: frames per second by enum xdpbr_storm_class, 0 = no
	 * limit; only the classes in storm_set (bit 1 << class) were given */
	uint32_t storm[XDPBR_STORM__MAX];
	unsigned int storm_set;
	struct cli_stp stp;
	enum xdpbr_stp_state stp_state;	/* link set state */
};

/*
 * Parses `xdpbr [OPTIONS] OBJECT [COMMAND [ARGS]]` (argv[0] is the program).
 * Objects, commands and keywords accept unambiguous prefixes, like iproute2.
 * Pure: no system calls, so nothing is checked against the running system
 * (whether DEV exists is the caller's business).
 * 0, or -EINVAL with a message for a person in err.
 */
int cli_parse(int argc, char **argv, struct cli_cmd *cmd, char *err, size_t errlen);

/* Usage text: of the whole tool (OBJ_NONE or OBJ_HELP), of an object
 * (verb VERB_HELP) or of one command. */
const char *cli_usage(enum cli_object obj, enum cli_verb verb);

#endif

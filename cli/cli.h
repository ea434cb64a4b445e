/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_CLI_H
#define XDPBR_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdpbr.h"		/* enum xdpbr_mode */
#include "fdbtab.h"		/* enum fdb_kind */
#include "settings.h"

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
	KW_BRIDGE_SET	= 1U << 3,	/* a setting of bridge set / link set (lib/ */
	KW_PORT_SET	= 1U << 14,	/* settings.c's rows): which, in cli_cmd.set */
	KW_MASTER	= 1U << 4,
	KW_MODE		= 1U << 5,
	KW_LLADDR	= 1U << 6,	/* the positional MAC of fdb add/del */
	KW_RATE		= 1U << 7,	/* stats rate SECONDS (or the option -r) */
	KW_COUNT	= 1U << 8,	/* stats rate .. count N, monitor count N */
	KW_VID		= 1U << 9,	/* vlan add/del vid VID[-VID] */
	KW_PVID		= 1U << 10,	/* vlan add .. pvid */
	KW_UNTAGGED	= 1U << 11,	/* vlan add .. untagged */
	KW_NAME		= 1U << 12,	/* the positional NAME of bridge add/del */
	KW_SLOT		= 1U << 13,	/* link del slot N */
};

#define CLI_RATE_MAX_S 3600		/* stats rate interval limit, seconds */

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
	/* bridge set / link set: the settings given, by row; state as enum
	 * xdpbr_stp_state, bpdu_guard reset as the row's action (set.acted) */
	struct settings set;
	const char *master;		/* link add master BRIDGE */
	const char *name;		/* bridge add/del NAME */
	enum xdpbr_mode mode;		/* link add mode (default auto) */
	unsigned int rate_s;		/* stats: rate interval, seconds; 0: counters */
	uint32_t count;			/* stats rate: intervals; monitor: events;
					 * 0: not given (one interval; no end) */
	uint16_t vid_from, vid_to;	/* vlan add/del vid: 1..4094, from <= to */
	bool pvid;			/* vlan add pvid (then vid_from == vid_to) */
	bool untagged;			/* vlan add untagged */
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

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_SETTINGS_H
#define XDPBR_SETTINGS_H

/*
 * settings - every setting of a bridge and of its ports, one row each
 * (settings[] in settings.c): its name (the key of xdpbrd.conf(5) and the
 * word of `xdpbr bridge set` / `link set`), its scope, type, range, step
 * and default, a line of help, where its value lives once applied, and
 * the Linux bridge's netlink attribute it stands for. The config parser,
 * the CLI's keywords and usage, the range checks and the man-page test
 * (tests/unit/test_settings.c) read it.
 *
 * Parsed values are kept by row (struct settings), so reading, comparing
 * and applying a setting is the same code for every row: a new setting is
 * a row here, the field where it lives and the control call that writes
 * it (settings_port_put and the like, for the fields they cover).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdpbr.h"

struct stpmap_req;		/* stpmap.h */

/* The rows, in the order the usage lists them. */
#define SETTING_FLAG_ID(NAME, bit, word, nl) SET_##NAME,
enum setting_id {
	/* [bridge], xdpbr bridge set */
	SET_NAME, SET_AGEING_TIME, SET_FDB_MAX_LEARNED, SET_FDB_SIZE, SET_FDB_CACHE,
	SET_MODE, SET_DATAPATH, SET_XDP_SHARE, SET_LISTEN, SET_HOST_INTERFACE, SET_MAC,
	SET_VLAN_FILTERING, SET_DEFAULT_PVID, SET_STP, SET_PRIORITY, SET_HELLO_TIME,
	SET_MAX_AGE, SET_FORWARD_DELAY, SET_LINKLOCAL_LIMIT,
	/* [port IFNAME], xdpbr link set */
	XDPBR_PORT_FLAGS(SETTING_FLAG_ID)
	SET_PORT_DATAPATH, SET_PORT_XDP_SHARE, SET_MAX_LEARNED, SET_STORM_BCAST,
	SET_STORM_MCAST, SET_STORM_UNKNOWN, SET_PATH_COST, SET_PORT_PRIORITY, SET_EDGE,
	SET_BPDU_GUARD, SET_BPDU_GUARD_TIMEOUT, SET_ROOT_GUARD, SET_STATIC, SET_PVID,
	SET_VLANS, SET_UNTAGGED, SET_STATE,
	SET__N
};
#undef SETTING_FLAG_ID

enum setting_scope { SETTING_BRIDGE, SETTING_PORT };

enum setting_type {
	SETTING_NUM,		/* a whole number, min..max, a multiple of step */
	SETTING_BOOL,		/* on (1) or off (0); or the row's third word (2) */
	SETTING_TEXT,		/* a name, an address, a list: the reader's own */
};

/* Who reads it: the configuration file, the CLI. */
#define SETTING_FILE	(1U << 0)
#define SETTING_CLI	(1U << 1)

/* Where the value lives once applied: what writes it there, what a mirror
 * of the Linux bridge device writes (field and bit, below). */
enum setting_home {
	SETTING_AT_CONFIG,	/* struct xdpbr_config (ctl_config_set) */
	SETTING_AT_PORT,	/* struct xdpbr_port (ctl_port_apply); flags: bit */
	SETTING_AT_STORM,	/* struct xdpbr_storm (ctl_storm_set) */
	SETTING_AT_VLAN,	/* a port's VLANs and PVID (ctl_vlan_set_port); the
				 * bridge's vlan_filtering and default_pvid, in
				 * xdpbr_config (ctl_vlan_filtering,
				 * ctl_set_default_pvid: it moves ports) */
	SETTING_AT_FDB,		/* static FDB entries (ctl_fdb_add) */
	SETTING_AT_STP,		/* xdpbrd's spanning tree: struct stpmap_req (the
				 * CLI's request), the daemon's engine */
	SETTING_AT_STP_PORT,	/* the port's state word (ctl_port_stp_set) */
	SETTING_AT_LOAD,	/* read when the datapath loads or a port joins */
	SETTING_AT_DAEMON,	/* xdpbrd's own: its endpoint, the host interface */
};

struct setting {
	const char *name;	/* config key; CLI word unless cli says otherwise */
	const char *cli;	/* the CLI's words for it when not name ("storm bcast") */
	enum setting_scope scope;
	enum setting_type type;
	unsigned int in;	/* SETTING_FILE, SETTING_CLI */
	uint64_t min, max, step;	/* SETTING_NUM; step 0 counts as 1 */
	uint64_t def;		/* the default, unless def_text says what it is */
	const char *def_text;	/* a default that is no constant ("the bridge's") */
	const char *zero;	/* what 0 means, if not a plain 0 ("no limit") */
	const char *unit;	/* of a number: "seconds" */
	const char *metavar;	/* the CLI usage's name of the value (N, VID) */
	const char *also;	/* SETTING_BOOL: a third word, value 2 ("auto") */
	const char *action;	/* a word the CLI takes instead of a value: an
				 * action on the setting ("reset") */
	uint32_t action_bit;	/* SETTING_AT_STP: the action's STPREQ_* */
	const char *hint;	/* why a step, or a range ("lower wins") */
	bool (*valid)(uint64_t v);	/* a number's own rule, past its range */
	const char *valid_text;	/* ... what it accepts, for messages */
	bool repeat;		/* may be given more than once (static) */
	enum setting_home home;
	size_t field, size;	/* offset and size of its field in home's struct */
	uint32_t bit;		/* SETTING_AT_PORT flags: XDPBR_PORT_*; SETTING_AT_STP:
				 * STPREQ_*; SETTING_AT_STORM: 1 << class */
	uint16_t nl;		/* IFLA_BR_* / IFLA_BRPORT_* of the Linux bridge
				 * it stands for; 0: none */
	const char *help;	/* what it is, in a line */
};

extern const struct setting settings[SET__N];

/* Values read by row: v[id] is meaningful where given has bit id. */
struct settings {
	uint64_t given;		/* 1 << id: given */
	uint64_t acted;		/* 1 << id: the row's action word was given (CLI) */
	uint64_t v[SET__N];
};
_Static_assert(SET__N <= 64, "struct settings: one bit per row");

static inline bool setting_given(const struct settings *s, enum setting_id id)
{
	return (s->given >> id) & 1;
}

/* The value given, else the row's default (def: callers of rows with a
 * def_text check setting_given first). */
uint64_t setting_value(const struct settings *s, enum setting_id id);

/* Records value v for row id, given. */
void setting_set(struct settings *s, enum setting_id id, uint64_t v);

/* The row of name in scope read by whom (SETTING_FILE / SETTING_CLI), or
 * NULL. An exact name only: the CLI resolves prefixes itself. */
const struct setting *setting_find(enum setting_scope scope, unsigned int whom,
				   const char *name);

static inline enum setting_id setting_id_of(const struct setting *s)
{
	return (enum setting_id)(s - settings);
}

/*
 * A number for row s, already read as one (parse_u64 and the like): 0,
 * -ERANGE (outside min..max), -EDOM (no multiple of step) or -EINVAL (not
 * what the row's own rule takes). The one range check of every reader.
 */
int setting_check(const struct setting *s, uint64_t v);

/* "0 (no limit) .. 67108864", "0 .. 61440 in steps of 4096" into buf. */
const char *setting_range(const struct setting *s, char *buf, size_t len);

/* The default as the man pages and the usage write it: "300", "on",
 * "auto", the def_text. NULL for a text row without one. */
const char *setting_default(const struct setting *s, char *buf, size_t len);

/* The values of the settings that live in a port's entry and in its storm
 * control limits, written into those (the fields the rows name): the rows
 * in mask only (a command line's: its given; the file's: every row, so
 * that a key left out restores its default). */
void settings_port_put(const struct settings *s, uint64_t mask, struct xdpbr_port *p);
void settings_storm_put(const struct settings *s, uint64_t mask, uint32_t *pps);

/* The spanning tree settings of scope given (and the actions) into a
 * request to xdpbrd: their fields, their bits added to r->set; an action
 * of an earlier request is dropped, as it was done. */
void settings_stp_put(const struct settings *s, enum setting_scope scope,
		      struct stpmap_req *r);

/* The bridge settings of the config map (ageing_time, fdb_max_learned) of
 * mask into c. */
void settings_config_put(const struct settings *s, uint64_t mask, struct xdpbr_config *c);

/* Whether a and b say the same of row id: the value in use (given, or
 * the default) of a row with a constant default; for one without (or a
 * text row), whether it was given, and the value if so. */
bool setting_same(const struct settings *a, const struct settings *b, enum setting_id id);

/* Whether two sets of values give the same settings to the rows of scope
 * whose home is home: the values in use (given, or the default), and for
 * a row without a constant default whether it was given. */
bool settings_same(const struct settings *a, const struct settings *b,
		   enum setting_scope scope, enum setting_home home);

/* The rows of scope and home as a mask (1 << id). */
uint64_t settings_mask(enum setting_scope scope, enum setting_home home);

#endif

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cli.c - argument grammar of xdpbr: tables, not if-chains.
 *
 * `xdpbr [OPTIONS] OBJECT [COMMAND [ARGS]]`, iproute2 style. Every word
 * (option, object, command, keyword, mode) may be abbreviated to any
 * unambiguous prefix; an exact match always wins. Parsing is pure: values
 * are checked for form (a MAC, a VLAN id, a number in range), never against
 * the running system.
 *
 * One table of commands (commands[] below) drives the parsing (the
 * keywords each command takes), the help (its usage) and the dispatch (the
 * function in cli/OBJECT.c that runs it), so the three cannot disagree.
 * The words of bridge set and link set, their values, ranges and usage are
 * lib/settings.c's rows.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ports.h"		/* port_mode_name() */
#include "common.h"
#include "util.h"
#include "settings.h"
#include "xdpbr_rules.h"

struct word {
	const char *name;
	int value;
};

/* ------------------------------------------------------------ usage */

#define U_BRIDGE_SHOW	"xdpbr [OPTIONS] bridge show\n"
#define U_BRIDGE_SET	"xdpbr [OPTIONS] bridge set"	/* + the settings (made[]) */
#define U_BRIDGE_ADD	"xdpbr [OPTIONS] bridge add NAME\n"
#define U_BRIDGE_DEL	"xdpbr [OPTIONS] bridge del NAME\n"
#define N_BRIDGE_ADD	"       NAME := 1-15 characters of A-Z a-z 0-9 _ . -: the bridge's state goes\n" \
			"       in /sys/fs/bpf/xdpbr/NAME; add takes over the pins that\n" \
			"       'ip link ... xdp obj xdpbr.bpf.o' left in /sys/fs/bpf/tc/globals; del\n" \
			"       detaches the bridge from every port and removes the pins\n"
#define U_LINK_SHOW	"xdpbr [OPTIONS] link show [ dev DEV ]\n"
#define U_LINK_SET	"xdpbr [OPTIONS] link set dev DEV"	/* + the settings */
#define U_LINK_ADD	"xdpbr [OPTIONS] link add dev DEV master BRIDGE\n" \
			"              [ mode { native | generic | auto } ]\n"
#define U_LINK_DEL	"xdpbr [OPTIONS] link del { dev DEV | slot N }\n"
#define U_FDB_SHOW	"xdpbr [OPTIONS] fdb show [ dev DEV ] [ vlan VID ] [ dynamic | static ]\n"
#define U_FDB_ADD	"xdpbr [OPTIONS] fdb add LLADDR dev DEV [ vlan VID ] [ static | dynamic ]\n"
#define U_FDB_DEL	"xdpbr [OPTIONS] fdb del LLADDR [ dev DEV ] [ vlan VID ]\n"
#define U_FDB_FLUSH	"xdpbr [OPTIONS] fdb flush [ dev DEV ] [ vlan VID ] [ dynamic | static ]\n"
#define U_VLAN_SHOW	"xdpbr [OPTIONS] vlan show [ dev DEV ]\n"
#define U_VXLAN_SHOW	"xdpbr [OPTIONS] vxlan show\n"
#define U_VLAN_ADD	"xdpbr [OPTIONS] vlan add dev DEV vid VID[-VID] [ pvid ] [ untagged ]\n"
#define U_VLAN_DEL	"xdpbr [OPTIONS] vlan del dev DEV vid VID[-VID]\n"
#define U_STATS_SHOW	"xdpbr [OPTIONS] stats [ show ] [ dev DEV ] [ rate SECONDS [ count N ] ]\n"
#define U_MONITOR	"xdpbr [OPTIONS] monitor [ fdb ] [ count N ]\n"
#define U_STP_SHOW	"xdpbr [OPTIONS] stp show\n"
#define U_OPTIONS	"where  OPTIONS := { -j[son] | -p[retty] | -b[ridge] BRIDGE }\n"
#define U_OPTIONS_STATS	"where  OPTIONS := { -j[son] | -p[retty] | -b[ridge] BRIDGE | -r[ate] SECONDS }\n"

/* What the settings' lines (settings_notes) don't say. */
#define N_BRIDGE	"       default_pvid: the PVID of new ports and of ports still on the old\n" \
			"       default; like the kernel bridge's, it changes only while\n" \
			"       vlan_filtering is off\n" \
			"       stp .. forward_delay: the spanning tree (RSTP), run by xdpbrd (lower\n" \
			"       priority wins the root election), with\n" \
			"       2 * (forward_delay - 1) >= max_age >= 2 * (hello_time + 1);\n" \
			"       they last until xdpbrd reloads its configuration file\n"
#define N_LINK_SET	"       storm: frames per second received on DEV that the bridge floods, per\n" \
			"       class (broadcast, multicast, unknown unicast); each CPU gets an even\n" \
			"       share, rounded up; a class not given keeps its limit\n" \
			"       edge auto: an edge port until it hears a BPDU;\n" \
			"       bpdu_guard reset: a port shut by a guard forwards again\n" \
			"       state: the port's spanning tree state, set by hand while STP is off,\n" \
			"       also as bridge(8)'s numbers: 0 disabled, 1 listening, 2 learning,\n" \
			"       3 forwarding, 4 blocking; all but learning and forwarding block\n"
#define N_LINK_ADD	"       BRIDGE := a bridge running from /sys/fs/bpf/xdpbr/BRIDGE\n"
#define N_LINK_DEL	"       DEV := a port, or the name a port had whose interface is gone (deleted\n" \
			"       while no xdpbrd ran); N := the slot of a port, as link show says\n"
#define N_FDB		"       LLADDR := xx:xx:xx:xx:xx:xx, VID := 0 .. 4094\n"
#define N_FDB_ADD	"       fdb add: VID 0 unless given, a static entry unless 'dynamic' is given\n"
#define N_VLAN		"       VID := 1 .. 4094; pvid (a single VID only): untagged frames received\n" \
			"       on DEV belong to VID; untagged: DEV sends the frames of VID untagged.\n" \
			"       Enforced while the bridge has vlan_filtering on (xdpbr bridge set)\n"
#define N_STATS		"       rate SECONDS (or -r SECONDS): per-second rates over SECONDS, 1 .. 3600,\n" \
			"       printed for N intervals, 1 (default) .. 4294967295\n"
#define N_MONITOR	"       prints the FDB events of xdpbrd (learn, move, age, flush) as they happen,\n" \
			"       until interrupted or N (1 .. 4294967295) events; -j: one JSON object a line\n"

#define N_STP		"       the spanning tree of the bridge as xdpbrd runs it (needs xdpbrd)\n"

#define MORE		"       "

static const char usage_main[] =
	"Usage: xdpbr [OPTIONS] OBJECT { COMMAND | help }\n"
	"       xdpbr [OPTIONS] OBJECT COMMAND help\n"
	"where  OBJECT := { bridge | link | fdb | vlan | stats | monitor | vxlan | stp }\n"
	"       OPTIONS := { -j[son] | -p[retty] | -b[ridge] BRIDGE | -r[ate] SECONDS |\n"
	"                    -V[ersion] | -h[elp] }\n"
	"       BRIDGE defaults to the only bridge of this network namespace\n"
	"       -r SECONDS: stats as per-second rates over SECONDS (= stats rate SECONDS)\n";
static const char usage_fdb[] =
	"Usage: " U_FDB_SHOW MORE U_FDB_ADD MORE U_FDB_DEL MORE U_FDB_FLUSH U_OPTIONS N_FDB N_FDB_ADD;
static const char usage_vlan[] =
	"Usage: " U_VLAN_SHOW MORE U_VLAN_ADD MORE U_VLAN_DEL U_OPTIONS N_VLAN;
static const char usage_stats[] = "Usage: " U_STATS_SHOW U_OPTIONS_STATS N_STATS;
static const char usage_monitor[] = "Usage: " U_MONITOR U_OPTIONS N_MONITOR;
static const char usage_vxlan[] = "Usage: " U_VXLAN_SHOW U_OPTIONS;
static const char usage_stp[] = "Usage: " U_STP_SHOW U_OPTIONS N_STP;

/* ------------------------------------------------------------ errors */

static int fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ------------------------------------------------------------ lookup */

#define AMBIGUOUS (-2)
#define UNKNOWN (-1)

/*
 * Resolves an abbreviation against a table whose entries start with a
 * struct word (stride: the entry size), considering only the entries ok()
 * accepts (all when ok is NULL). Returns the index of the entry, UNKNOWN,
 * or AMBIGUOUS with the candidates listed in cands. An exact match always
 * wins; names with one value are aliases, so a prefix of several of them is
 * not ambiguous.
 */
static int lookup(const void *tab, size_t n, size_t stride, const char *w,
		  bool (*ok)(const void *entry, const void *ctx), const void *ctx,
		  char *cands, size_t clen)
{
#define ENTRY(i) ((const struct word *)((const char *)tab + (i) * stride))
	int found = UNKNOWN;
	size_t used = 0;

	for (size_t i = 0; i < n; i++)
		if ((!ok || ok(ENTRY(i), ctx)) && !strcmp(w, ENTRY(i)->name))
			return (int)i;
	if (cands && clen)
		cands[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if ((ok && !ok(ENTRY(i), ctx)) || !matches(w, ENTRY(i)->name))
			continue;
		if (cands && used < clen)
			used += (size_t)snprintf(cands + used, clen - used, "%s%s",
						 used ? ", " : "", ENTRY(i)->name);
		if (found == UNKNOWN)
			found = (int)i;
		else if (found >= 0 && ENTRY(found)->value != ENTRY(i)->value)
			found = AMBIGUOUS;
	}
	return found;
#undef ENTRY
}

/* The same for a table of struct word: the value, UNKNOWN or AMBIGUOUS. */
static int lookup_word(const struct word *tab, size_t n, const char *w,
		       bool (*ok)(const void *entry, const void *ctx), const void *ctx,
		       char *cands, size_t clen)
{
	int i = lookup(tab, n, sizeof(*tab), w, ok, ctx, cands, clen);

	return i < 0 ? i : tab[i].value;
}

static const char *name_of(const struct word *tab, size_t n, int value)
{
	for (size_t i = 0; i < n; i++)
		if (tab[i].value == value)
			return tab[i].name;
	return "?";
}

/* ------------------------------------------------------------ options */

enum opt { OPT_JSON, OPT_PRETTY, OPT_BRIDGE, OPT_RATE, OPT_HELP, OPT_VERSION };

/* -V[ersion] as iproute2 spells it, and the --version of GNU tools. */
static const struct word options[] = {
	{ "json", OPT_JSON },
	{ "pretty", OPT_PRETTY },
	{ "bridge", OPT_BRIDGE },
	{ "rate", OPT_RATE },
	{ "help", OPT_HELP },
	{ "Version", OPT_VERSION },
	{ "version", OPT_VERSION },
};

/* A rate interval: whole seconds, 1 .. CLI_RATE_MAX_S. */
static int parse_rate(const char *v, unsigned int *out)
{
	uint64_t s;

	if (parse_u64(v, CLI_RATE_MAX_S, &s) || !s)
		return -EINVAL;
	*out = (unsigned int)s;
	return 0;
}

/* ------------------------------------------------------------ objects, verbs */

struct object {
	struct word w;
	const char *usage;	/* `xdpbr OBJECT help` */
};

static const struct object objects[] = {
	{ { "bridge", OBJ_BRIDGE }, NULL },	/* NULL: made[] */
	{ { "fdb", OBJ_FDB }, usage_fdb },
	{ { "link", OBJ_LINK }, NULL },
	{ { "vlan", OBJ_VLAN }, usage_vlan },
	{ { "stats", OBJ_STATS }, usage_stats },
	{ { "monitor", OBJ_MONITOR }, usage_monitor },
	{ { "vxlan", OBJ_VXLAN }, usage_vxlan },
	{ { "stp", OBJ_STP }, usage_stp },
	{ { "help", OBJ_HELP }, usage_main },
};

static const struct object *object_of(enum cli_object obj)
{
	for (size_t i = 0; i < ARRAY_SIZE(objects); i++)
		if (objects[i].w.value == (int)obj)
			return &objects[i];
	return NULL;
}

/* lookup() filter: "s" and "st" stay stats, as before stp came. */
static bool object_ok(const void *entry, const void *ctx)
{
	const struct object *o = entry;

	return o->w.value != OBJ_STP || strlen(ctx) >= 3;
}

static const char *object_name(enum cli_object obj)
{
	const struct object *o = object_of(obj);

	return o ? o->w.name : "?";
}

static const struct word verbs[] = {	/* canonical name first */
	{ "show", VERB_SHOW },
	{ "list", VERB_SHOW },
	{ "set", VERB_SET },
	{ "add", VERB_ADD },
	{ "del", VERB_DEL },
	{ "delete", VERB_DEL },
	{ "flush", VERB_FLUSH },
	{ "fdb", VERB_FDB },
	{ "help", VERB_HELP },
};

/* ------------------------------------------------------------ keywords */

struct keyword;
typedef int (*kw_parse_fn)(struct cli_cmd *c, const struct keyword *k, const char *v,
			   char *err, size_t len);
/* A keyword followed by words of its own (storm CLASS PPS ...): argv[*i] is
 * the keyword; *i is left on the last word it took. */
typedef int (*kw_list_fn)(struct cli_cmd *c, const struct keyword *k, int argc,
			  char **argv, int *i, char *err, size_t len);

struct keyword {
	struct word w;		/* name, and an id that aliases share */
	unsigned int bit;	/* enum cli_kw; words sharing a bit exclude each other */
	kw_parse_fn parse;
	const char *value;	/* what follows it, for messages; NULL: no value */
	uint32_t arg;		/* parse-specific: a port flag, an fdb kind */
	kw_list_fn list;	/* instead of parse and value: it reads its words */
};

static int kw_dev(struct cli_cmd *c, const struct keyword *k, const char *v,
		  char *err, size_t len)
{
	if (!v[0])
		return fail(err, len, "'dev' needs an interface name, not an empty word");
	if (strlen(v) >= 16)
		return fail(err, len, "interface name '%s' is too long (at most 15 characters)", v);
	c->dev = v;
	return 0;
}

static int kw_vlan(struct cli_cmd *c, const struct keyword *k, const char *v,
		   char *err, size_t len)
{
	uint64_t vid;

	if (parse_u64(v, 4094, &vid))
		return fail(err, len, "invalid VLAN id '%s' (0-4094)", v);
	c->vlan = (int)vid;
	return 0;
}

static int kw_kind(struct cli_cmd *c, const struct keyword *k, const char *v,
		   char *err, size_t len)
{
	c->kind = (enum fdb_kind)k->arg;
	return 0;
}

/* A VLAN id of a port, 1..XDPBR_VLAN_MAX. */
static int parse_vid(const char *v, uint16_t *out)
{
	uint64_t vid;

	if (parse_u64(v, XDPBR_VLAN_MAX, &vid) || !vid)
		return -EINVAL;
	*out = (uint16_t)vid;
	return 0;
}

/* vid VID or VID-VID; VID-VID with equal ends is VID. */
static int kw_vid(struct cli_cmd *c, const struct keyword *k, const char *v,
		  char *err, size_t len)
{
	const char *dash = strchr(v, '-');
	char from[8];

	if (!dash) {
		if (parse_vid(v, &c->vid_from))
			return fail(err, len, "invalid VLAN id '%s' (1-%d)", v, XDPBR_VLAN_MAX);
		c->vid_to = c->vid_from;
		return 0;
	}
	if ((size_t)(dash - v) >= sizeof(from))
		return fail(err, len, "invalid VLAN range '%s' (VID-VID, each 1-%d)", v,
			    XDPBR_VLAN_MAX);
	memcpy(from, v, (size_t)(dash - v));
	from[dash - v] = '\0';
	if (parse_vid(from, &c->vid_from) || parse_vid(dash + 1, &c->vid_to))
		return fail(err, len, "invalid VLAN range '%s' (VID-VID, each 1-%d)", v,
			    XDPBR_VLAN_MAX);
	if (c->vid_to < c->vid_from)
		return fail(err, len, "invalid VLAN range '%s': it ends below its start "
			    "(try '%d-%d')", v, c->vid_to, c->vid_from);
	return 0;
}

/* pvid, untagged: flags of vlan add. */
static int kw_vlan_flag(struct cli_cmd *c, const struct keyword *k, const char *v,
			char *err, size_t len)
{
	if (k->bit == KW_PVID)
		c->pvid = true;
	else
		c->untagged = true;
	return 0;
}

static int kw_slot(struct cli_cmd *c, const struct keyword *k, const char *v,
		   char *err, size_t len)
{
	uint64_t n;

	if (parse_u64(v, XDPBR_PORTS_PER_BRIDGE, &n) || !n)
		return fail(err, len, "invalid slot '%s' (1-%d)", v, XDPBR_PORTS_PER_BRIDGE);
	c->slot = (uint32_t)n;
	return 0;
}

static int kw_master(struct cli_cmd *c, const struct keyword *k, const char *v,
		     char *err, size_t len)
{
	if (bridge_name_valid(v))
		return fail(err, len, "invalid bridge name '%s' (1-15 characters of "
			    "A-Z a-z 0-9 _ . -)", v);
	c->master = v;
	return 0;
}

static int kw_rate(struct cli_cmd *c, const struct keyword *k, const char *v,
		   char *err, size_t len)
{
	if (c->rate_s)
		return fail(err, len, "'rate' and the option -r both give the interval; "
			    "give one");
	if (parse_rate(v, &c->rate_s))
		return fail(err, len, "invalid rate interval '%s' (whole seconds, 1 .. %u)",
			    v, CLI_RATE_MAX_S);
	return 0;
}

static int kw_count(struct cli_cmd *c, const struct keyword *k, const char *v,
		    char *err, size_t len)
{
	uint64_t n;

	if (parse_u64(v, UINT32_MAX, &n) || !n)
		return fail(err, len, "invalid count '%s' (a number, 1 .. %u)", v, UINT32_MAX);
	c->count = (uint32_t)n;
	return 0;
}

/* --- the settings of bridge set and link set (lib/settings.c's rows) --- */

/* "invalid NAME 'V' (0 (no limit) .. 67108864 frames per second)" and the
 * like: a row's number out of its range or step. */
static int bad_number(const struct setting *s, const char *what, const char *v,
		      char *err, size_t len)
{
	char range[80];

	return fail(err, len, "invalid %s '%s' (%s%s%s)", what, v,
		    setting_range(s, range, sizeof(range)), s->unit ? " " : "",
		    s->unit ? s->unit : "");
}

static int read_number(struct cli_cmd *c, const struct setting *s, const char *what,
		       const char *v, char *err, size_t len)
{
	uint64_t n;

	if (parse_u64(v, UINT64_MAX, &n) || setting_check(s, n))
		return bad_number(s, what, v, err, len);
	setting_set(&c->set, setting_id_of(s), n);
	return 0;
}

/* on or off, exactly; the row's third word (edge: auto) is 2; its action
 * word (bpdu_guard: reset) is done instead of a value. */
static int read_onoff(struct cli_cmd *c, const struct setting *s, const char *v,
		      char *err, size_t len)
{
	enum setting_id id = setting_id_of(s);

	if (s->action && !strcmp(v, s->action)) {
		c->set.acted |= 1ULL << id;
		return 0;
	}
	if (!strcmp(v, "on") || !strcmp(v, "off") || (s->also && !strcmp(v, s->also))) {
		setting_set(&c->set, id, !strcmp(v, "on") ? 1 : !strcmp(v, "off") ? 0 : 2);
		return 0;
	}
	if (s->also || s->action)
		return fail(err, len, "'%s' takes 'on', 'off' or '%s', not '%s'", s->name,
			    s->also ? s->also : s->action, v);
	return fail(err, len, "'%s' takes 'on' or 'off', not '%s'", s->name, v);
}

/* storm CLASS PPS [CLASS PPS]...: the classes, canonical name (the row's
 * word after "storm ") first. */
static const struct word storm_classes[] = {
	{ "bcast", XDPBR_STORM_BCAST },
	{ "mcast", XDPBR_STORM_MCAST },
	{ "unknown", XDPBR_STORM_UNKNOWN },
	{ "broadcast", XDPBR_STORM_BCAST },
	{ "multicast", XDPBR_STORM_MCAST },
};
_Static_assert(SET_STORM_MCAST == SET_STORM_BCAST + XDPBR_STORM_MCAST &&
	       SET_STORM_UNKNOWN == SET_STORM_BCAST + XDPBR_STORM_UNKNOWN,
	       "a storm class's row is SET_STORM_BCAST + class");

/*
 * The CLASS PPS pairs after storm, at least one. The list ends at the first
 * word that is not a class (or a prefix of one): the next keyword of the
 * command, so storm mixes with the others (storm bcast 100 learning off).
 */
static int kw_storm(struct cli_cmd *c, const struct keyword *k, int argc, char **argv,
		    int *i, char *err, size_t len)
{
	bool any = false;

	while (*i + 1 < argc) {
		const char *w = argv[*i + 1];
		int cls = lookup_word(storm_classes, ARRAY_SIZE(storm_classes), w, NULL, NULL,
				      NULL, 0);
		const struct setting *s;
		char what[32], range[80];

		if (cls < 0)	/* aliases only: never AMBIGUOUS */
			break;
		s = &settings[SET_STORM_BCAST + cls];
		if (setting_given(&c->set, setting_id_of(s)))
			return fail(err, len, "'%s' given twice", s->cli);
		if (*i + 2 >= argc)
			return fail(err, len, "'%s' needs a value: %s %s", s->cli,
				    setting_range(s, range, sizeof(range)), s->unit);
		snprintf(what, sizeof(what), "%s rate", s->cli);
		if (read_number(c, s, what, argv[*i + 2], err, len))
			return -EINVAL;
		any = true;
		*i += 2;
	}
	if (any)
		return 0;
	/* `storm help` asks for the usage, like help after any keyword */
	if (*i + 1 < argc && strlen(argv[*i + 1]) >= 2 && matches(argv[*i + 1], "help"))
		return 0;
	if (*i + 1 < argc)
		return fail(err, len, "'storm' needs a class, bcast, mcast or unknown, then "
			    "packets per second, not '%s'", argv[*i + 1]);
	return fail(err, len, "'storm' needs a class, bcast, mcast or unknown, then "
		    "packets per second");
}

static bool state_read(const void *entry, const void *ctx)
{
	(void)ctx;
	return ((const struct stp_state_word *)entry)->use & STP_WORD_READ;
}

/* "0 disabled, 1 listening, ...": the words link set state reads. */
static const char *state_words(char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < STP_STATE_WORDS && k < len; i++)
		if (stp_state_words[i].use & STP_WORD_READ)
			k += (size_t)snprintf(buf + k, len - k, "%s%zu %s", k ? ", " : "", i,
					      stp_state_words[i].name);
	return buf;
}

/* link set state: the kernel bridge's words, or its numbers (bridge(8)),
 * from lib/stpstate.c's table. Disabled, listening and blocking all discard. */
static int read_state(struct cli_cmd *c, const struct setting *s, const char *v,
		      char *err, size_t len)
{
	_Static_assert(offsetof(struct stp_state_word, name) == offsetof(struct word, name) &&
		       offsetof(struct stp_state_word, state) == offsetof(struct word, value),
		       "stp_state_words[] entries start with a struct word");
	char words[128];
	uint64_t n;
	int i;

	if (!parse_u64(v, STP_STATE_WORDS - 1, &n) && (stp_state_words[n].use & STP_WORD_READ))
		i = (int)n;
	else
		i = lookup(stp_state_words, STP_STATE_WORDS, sizeof(stp_state_words[0]), v,
			   state_read, NULL, NULL, 0);
	if (i < 0)
		return fail(err, len, "invalid state '%s' (%s: a word or its number, as "
			    "bridge(8))", v, state_words(words, sizeof(words)));
	setting_set(&c->set, SET_STATE, (uint64_t)stp_state_words[i].state);
	return 0;
}

/* The CLI's text rows: how each is read, what its usage says it takes. */
static const struct {
	int (*read)(struct cli_cmd *c, const struct setting *s, const char *v, char *err,
		    size_t len);
	const char *usage;
	const char *value;	/* what follows it, for messages */
} text_rows[SET__N] = {
	[SET_STATE] = { read_state,
			"{ disabled | blocking | listening | learning | forwarding }",
			"disabled, blocking, listening, learning, forwarding or 0-4" },
};

/* A setting's word k and its value v. */
static int kw_setting(struct cli_cmd *c, const struct keyword *k, const char *v,
		      char *err, size_t len)
{
	const struct setting *s = &settings[k->arg];

	if (s->type == SETTING_NUM)
		return read_number(c, s, s->name, v, err, len);
	if (s->type == SETTING_BOOL)
		return read_onoff(c, s, v, err, len);
	return text_rows[k->arg].read(c, s, v, err, len);
}

/* The modes `link add mode` asks for, named by include/xdpbr.h's table. */
static int kw_mode(struct cli_cmd *c, const struct keyword *k, const char *v,
		   char *err, size_t len)
{
	const struct word modes[] = {
		{ port_mode_name(XDPBR_MODE_NATIVE), XDPBR_MODE_NATIVE },
		{ port_mode_name(XDPBR_MODE_GENERIC), XDPBR_MODE_GENERIC },
		{ XDPBR_MODE_AUTO_NAME, XDPBR_MODE_NONE },
	};
	int m = lookup_word(modes, ARRAY_SIZE(modes), v, NULL, NULL, NULL, 0);

	if (m < 0)
		return fail(err, len, "invalid mode '%s' (native, generic or auto)", v);
	c->mode = (enum xdpbr_mode)m;
	return 0;
}

#define KW_HELP (1U << 31)	/* `help` among the arguments; every command has it */

enum kw_id {
	K_DEV, K_VLAN, K_DYNAMIC, K_STATIC, K_MASTER, K_MODE, K_RATE, K_COUNT, K_VID, K_PVID,
	K_UNTAGGED, K_STORM, K_SLOT, K_HELP,
	K_SETTING,		/* K_SETTING + id: a setting's word */
};

static const struct keyword fixed_keywords[] = {
	{ { "dev", K_DEV }, KW_DEV, kw_dev, "an interface name", 0, NULL },
	{ { "vlan", K_VLAN }, KW_VLAN, kw_vlan, "a VLAN id (0-4094)", 0, NULL },
	{ { "dynamic", K_DYNAMIC }, KW_KIND, kw_kind, NULL, FDB_KIND_DYNAMIC, NULL },
	{ { "static", K_STATIC }, KW_KIND, kw_kind, NULL, FDB_KIND_STATIC, NULL },
	{ { "permanent", K_STATIC }, KW_KIND, kw_kind, NULL, FDB_KIND_STATIC, NULL }, /* iproute2 */
	{ { "master", K_MASTER }, KW_MASTER, kw_master, "a bridge name", 0, NULL },
	{ { "mode", K_MODE }, KW_MODE, kw_mode, "native, generic or auto", 0, NULL },
	{ { "rate", K_RATE }, KW_RATE, kw_rate, "an interval in seconds (1 .. 3600)", 0, NULL },
	{ { "count", K_COUNT }, KW_COUNT, kw_count, "a number (at least 1)", 0, NULL },
	{ { "vid", K_VID }, KW_VID, kw_vid, "a VLAN id or range (VID or VID-VID, 1-4094)",
	  0, NULL },
	{ { "pvid", K_PVID }, KW_PVID, kw_vlan_flag, NULL, 0, NULL },
	{ { "untagged", K_UNTAGGED }, KW_UNTAGGED, kw_vlan_flag, NULL, 0, NULL },
	/* the storm control rows, as one word and a list of classes */
	{ { "storm", K_STORM }, KW_PORT_SET, NULL, NULL, SET_STORM_BCAST, kw_storm },
	{ { "slot", K_SLOT }, KW_SLOT, kw_slot, "a slot number (see link show)", 0,
	  NULL },
	{ { "help", K_HELP }, KW_HELP, NULL, NULL, 0, NULL },
};

/* The fixed keywords, then a keyword for each setting the CLI takes by its
 * name, in the table's order; made at the first use. */
static struct keyword keywords[ARRAY_SIZE(fixed_keywords) + SET__N];
static size_t nkeywords;

/* What follows a setting's word, for "'WORD' needs a value: ...". */
static const char *setting_value_text(const struct setting *s, char *buf, size_t len)
{
	if (s->type == SETTING_NUM) {
		char range[80];

		snprintf(buf, len, "%s%s%s", setting_range(s, range, sizeof(range)),
			 s->unit ? " " : "", s->unit ? s->unit : "");
	} else if (s->type == SETTING_BOOL) {
		snprintf(buf, len, "on%s off%s%s", s->also || s->action ? "," : " or",
			 s->also || s->action ? " or " : "",
			 s->also ? s->also : s->action ? s->action : "");
	} else {
		snprintf(buf, len, "%s", text_rows[setting_id_of(s)].value);
	}
	return buf;
}

static void keywords_init(void)
{
	static char values[SET__N][96];

	if (nkeywords)
		return;
	memcpy(keywords, fixed_keywords, sizeof(fixed_keywords));
	nkeywords = ARRAY_SIZE(fixed_keywords);
	for (size_t i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i];

		if (!(s->in & SETTING_CLI) || s->cli)	/* storm's: through storm */
			continue;
		keywords[nkeywords++] = (struct keyword){
			.w = { s->name, K_SETTING + (int)i },
			.bit = s->scope == SETTING_PORT ? KW_PORT_SET : KW_BRIDGE_SET,
			.parse = kw_setting,
			.value = setting_value_text(s, values[i], sizeof(values[i])),
			.arg = (uint32_t)i,
		};
	}
}

/* ------------------------------------------------------------ commands */

struct command {
	enum cli_object obj;
	enum cli_verb verb;
	unsigned int kw;	/* keywords it takes (KW_LLADDR: the positional MAC) */
	unsigned int need;	/* ... of which these are required */
	unsigned int any;	/* ... and at least one of these */
	int (*check)(struct cli_cmd *c, char *err, size_t len);
	const char *usage;	/* `xdpbr OBJECT COMMAND help`; NULL: made[] */
	cli_run_fn *run;	/* in cli/OBJECT.c */
	bool no_maps;		/* runs without the pinned maps */
};

#define KW_SETTINGS	(KW_BRIDGE_SET | KW_PORT_SET)

/* fdb add: only a unicast address can live behind a port; static unless
 * said otherwise, like `bridge fdb add`. */
static int check_fdb_add(struct cli_cmd *c, char *err, size_t len)
{
	char mac[MAC_STRLEN];

	if (!xdpbr_mac_station(c->mac))
		return fail(err, len, c->mac[0] & 1 ? "'%s' is a multicast address; the FDB "
			    "holds unicast addresses only" : "'%s' is not a usable address "
			    "(all zero)", mac_format(c->mac, mac));
	if (c->kind == FDB_KIND_ANY)
		c->kind = FDB_KIND_STATIC;
	return 0;
}

/* link add: the bridge is named by master; -b may only agree. */
static int check_link_add(struct cli_cmd *c, char *err, size_t len)
{
	if (c->bridge && strcmp(c->bridge, c->master))
		return fail(err, len, "-b %s and master %s name different bridges; "
			    "drop -b", c->bridge, c->master);
	return 0;
}

/* link del: one port, by its name or by its slot. */
static int check_link_del(struct cli_cmd *c, char *err, size_t len)
{
	if ((c->seen & KW_DEV) && (c->seen & KW_SLOT))
		return fail(err, len, "'dev' and 'slot' both name a port; give one");
	return 0;
}

/* vlan add: a port has one PVID, so pvid takes a single VLAN. */
static int check_vlan_add(struct cli_cmd *c, char *err, size_t len)
{
	if (c->pvid && c->vid_from != c->vid_to)
		return fail(err, len, "'pvid' needs a single VLAN id, not the range %d-%d "
			    "(a port has one PVID)", c->vid_from, c->vid_to);
	return 0;
}

/* stats: count is a number of rate intervals. */
static int check_stats(struct cli_cmd *c, char *err, size_t len)
{
	if ((c->seen & KW_COUNT) && !c->rate_s)
		return fail(err, len, "'count' is a number of rate intervals: it needs "
			    "'rate SECONDS' (or -r SECONDS); try 'xdpbr stats help'");
	return 0;
}

/* The first command of an object is its default (show; monitor: fdb). */
static const struct command commands[] = {
	{ OBJ_BRIDGE, VERB_SHOW, 0, 0, 0, NULL, "Usage: " U_BRIDGE_SHOW U_OPTIONS,
	  do_bridge_show, false },
	{ OBJ_BRIDGE, VERB_SET, KW_BRIDGE_SET, 0, KW_BRIDGE_SET, NULL, NULL, do_bridge_set,
	  false },
	{ OBJ_BRIDGE, VERB_ADD, KW_NAME, KW_NAME, 0, NULL,
	  "Usage: " U_BRIDGE_ADD U_OPTIONS N_BRIDGE_ADD, do_bridge_add, true },
	{ OBJ_BRIDGE, VERB_DEL, KW_NAME, KW_NAME, 0, NULL,
	  "Usage: " U_BRIDGE_DEL U_OPTIONS N_BRIDGE_ADD, do_bridge_del, true },
	{ OBJ_LINK, VERB_SHOW, KW_DEV, 0, 0, NULL, "Usage: " U_LINK_SHOW U_OPTIONS,
	  do_link_show, false },
	{ OBJ_LINK, VERB_SET, KW_DEV | KW_PORT_SET, KW_DEV, KW_PORT_SET, NULL, NULL,
	  do_link_set, false },
	{ OBJ_LINK, VERB_ADD, KW_DEV | KW_MASTER | KW_MODE, KW_DEV | KW_MASTER, 0,
	  check_link_add, "Usage: " U_LINK_ADD U_OPTIONS N_LINK_ADD, do_link_add, false },
	{ OBJ_LINK, VERB_DEL, KW_DEV | KW_SLOT, 0, KW_DEV | KW_SLOT, check_link_del,
	  "Usage: " U_LINK_DEL U_OPTIONS N_LINK_DEL, do_link_del, false },
	{ OBJ_FDB, VERB_SHOW, KW_DEV | KW_VLAN | KW_KIND, 0, 0, NULL,
	  "Usage: " U_FDB_SHOW U_OPTIONS, do_fdb_show, false },
	{ OBJ_FDB, VERB_ADD, KW_LLADDR | KW_DEV | KW_VLAN | KW_KIND, KW_LLADDR | KW_DEV, 0,
	  check_fdb_add, "Usage: " U_FDB_ADD U_OPTIONS N_FDB N_FDB_ADD, do_fdb_add, false },
	{ OBJ_FDB, VERB_DEL, KW_LLADDR | KW_DEV | KW_VLAN, KW_LLADDR, 0, NULL,
	  "Usage: " U_FDB_DEL U_OPTIONS N_FDB, do_fdb_del, false },
	{ OBJ_FDB, VERB_FLUSH, KW_DEV | KW_VLAN | KW_KIND, 0, 0, NULL,
	  "Usage: " U_FDB_FLUSH U_OPTIONS, do_fdb_flush, false },
	{ OBJ_VLAN, VERB_SHOW, KW_DEV, 0, 0, NULL, "Usage: " U_VLAN_SHOW U_OPTIONS,
	  do_vlan_show, false },
	{ OBJ_VLAN, VERB_ADD, KW_DEV | KW_VID | KW_PVID | KW_UNTAGGED, KW_DEV | KW_VID, 0,
	  check_vlan_add, "Usage: " U_VLAN_ADD U_OPTIONS N_VLAN, do_vlan_add, false },
	{ OBJ_VLAN, VERB_DEL, KW_DEV | KW_VID, KW_DEV | KW_VID, 0, NULL,
	  "Usage: " U_VLAN_DEL U_OPTIONS N_VLAN, do_vlan_del, false },
	{ OBJ_STATS, VERB_SHOW, KW_DEV | KW_RATE | KW_COUNT, 0, 0, check_stats,
	  "Usage: " U_STATS_SHOW U_OPTIONS_STATS N_STATS, do_stats, false },
	{ OBJ_MONITOR, VERB_FDB, KW_COUNT, 0, 0, NULL, "Usage: " U_MONITOR U_OPTIONS N_MONITOR,
	  do_monitor, true },
	{ OBJ_VXLAN, VERB_SHOW, 0, 0, 0, NULL, "Usage: " U_VXLAN_SHOW U_OPTIONS,
	  do_vxlan_show, false },
	{ OBJ_STP, VERB_SHOW, 0, 0, 0, NULL, "Usage: " U_STP_SHOW U_OPTIONS N_STP, do_stp_show,
	  false },
};

static const struct command *find_command(enum cli_object obj, enum cli_verb verb)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (commands[i].obj == obj && commands[i].verb == verb)
			return &commands[i];
	return NULL;
}

static const struct command *default_command(enum cli_object obj)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (commands[i].obj == obj)
			return &commands[i];
	return NULL;
}

/* lookup() filters */
static bool verb_of_object(const void *entry, const void *ctx)
{
	const struct word *verb = entry;
	enum cli_object obj = *(const enum cli_object *)ctx;

	return verb->value == VERB_HELP || find_command(obj, (enum cli_verb)verb->value);
}

static bool keyword_of_command(const void *entry, const void *ctx)
{
	const struct keyword *k = entry;
	const struct command *cmd = ctx;

	return k->bit == KW_HELP || (k->bit & cmd->kw);
}

/* A keyword of the command, for the word the user gave. The spanning
 * tree's words came last: they take a prefix of 3 letters at least, so
 * none takes a shorter one that meant another word before ("b" is still
 * bcast_flood, "f" fdb_max_learned). */
struct kw_ctx {
	const struct command *cmd;
	const char *word;
};

static bool keyword_for_word(const void *entry, const void *ctx)
{
	const struct keyword *k = entry;
	const struct kw_ctx *x = ctx;

	if (!keyword_of_command(entry, x->cmd))
		return false;
	return !(k->bit & KW_SETTINGS) || settings[k->arg].home != SETTING_AT_STP ||
	       strlen(x->word) >= 3;
}

/* ------------------------------------------------------------ usage of settings */

struct text {
	char *buf;
	size_t len, used;
	size_t col;		/* of the line being written */
};

static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(struct text *t, const char *fmt, ...)
{
	size_t start = t->used;
	va_list ap;
	int n;

	if (t->used + 1 >= t->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	t->used += (size_t)n < t->len - t->used ? (size_t)n : t->len - t->used - 1;
	for (size_t i = start; i < t->used; i++)
		t->col = t->buf[i] == '\n' ? 0 : t->col + 1;
}

/* " [ WORD VALUE ]" at the end of the line, or on a new one, indented as
 * the usage's continuations are, when it would pass 79 columns. */
static void text_item(struct text *t, const char *item)
{
	if (t->col + 1 + strlen(item) > 79)
		text_add(t, "\n             ");
	text_add(t, " %s", item);
}

/* What a setting takes in the usage: { on | off }, its metavar, ... */
static const char *setting_syntax(const struct setting *s, char *buf, size_t len)
{
	if (s->type == SETTING_NUM)
		return s->metavar;
	if (s->type == SETTING_TEXT)
		return text_rows[setting_id_of(s)].usage;
	snprintf(buf, len, "{ on | off%s%s }", s->also || s->action ? " | " : "",
		 s->also ? s->also : s->action ? s->action : "");
	return buf;
}

/* The synopsis of the settings of scope: [ learning { on | off } ] ...;
 * rows the CLI spells "GROUP WORD" (storm bcast) in one item of the group:
 * [ storm [ bcast PPS ] [ mcast PPS ] [ unknown PPS ] ]. */
static void settings_synopsis(struct text *t, enum setting_scope scope)
{
	char item[160], syntax[48];
	size_t n = 0;

	for (size_t i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i], *next = i + 1 < SET__N ? s + 1 : NULL;
		const char *word = s->cli ? strchr(s->cli, ' ') : NULL;

		if (s->scope != scope || !(s->in & SETTING_CLI))
			continue;
		if (!word) {
			snprintf(item, sizeof(item), "[ %s %s ]", s->name,
				 setting_syntax(s, syntax, sizeof(syntax)));
			text_item(t, item);
			continue;
		}
		if (!n)
			n = (size_t)snprintf(item, sizeof(item), "[ %.*s", (int)(word - s->cli),
					     s->cli);
		n += (size_t)snprintf(item + n, sizeof(item) - n, " [%s %s ]", word, s->metavar);
		if (next && next->cli && !strncmp(next->cli, s->cli, (size_t)(word - s->cli + 1)))
			continue;
		snprintf(item + n, sizeof(item) - n, " ]");
		text_item(t, item);
		n = 0;
	}
	text_add(t, "\n");
}

/* One line per setting of scope: its range (or words) and default, the
 * default on a line of its own where one would pass 79 columns. */
static void settings_notes(struct text *t, enum setting_scope scope)
{
	char value[96], def[32];
	const char *d;

	for (size_t i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i];

		if (s->scope != scope || !(s->in & SETTING_CLI))
			continue;
		d = setting_default(s, def, sizeof(def));
		setting_value_text(s, value, sizeof(value));
		text_add(t, "       %-16s %s", s->cli ? s->cli : s->name, value);
		if (d)
			text_add(t, t->col + strlen(d) + 10 > 79 ? ",\n%24sdefault %s" :
				 "%s, default %s", "", d);
		text_add(t, "\n");
	}
}

/*
 * The usages with settings in them: a command's (bridge set, link set) or
 * an object's (VERB_HELP): head, the settings' synopsis, tail, a line per
 * setting, notes. Made at the first use.
 */
static const struct made_usage {
	enum cli_object obj;
	enum cli_verb verb;
	enum setting_scope scope;
	const char *head, *tail, *notes;
} made[] = {
	{ OBJ_BRIDGE, VERB_HELP, SETTING_BRIDGE, "Usage: " U_BRIDGE_SHOW MORE U_BRIDGE_SET,
	  MORE U_BRIDGE_ADD MORE U_BRIDGE_DEL U_OPTIONS, N_BRIDGE N_BRIDGE_ADD },
	{ OBJ_BRIDGE, VERB_SET, SETTING_BRIDGE, "Usage: " U_BRIDGE_SET, U_OPTIONS, N_BRIDGE },
	{ OBJ_LINK, VERB_HELP, SETTING_PORT, "Usage: " U_LINK_SHOW MORE U_LINK_SET,
	  MORE U_LINK_ADD MORE U_LINK_DEL U_OPTIONS, N_LINK_SET N_LINK_DEL },
	{ OBJ_LINK, VERB_SET, SETTING_PORT, "Usage: " U_LINK_SET, U_OPTIONS, N_LINK_SET },
};

static const char *made_usage(size_t i)
{
	static char buf[ARRAY_SIZE(made)][4096];
	struct text t = { buf[i], sizeof(buf[i]), 0, 0 };

	if (buf[i][0])
		return buf[i];
	text_add(&t, "%s", made[i].head);
	settings_synopsis(&t, made[i].scope);
	text_add(&t, "%s", made[i].tail);
	settings_notes(&t, made[i].scope);
	text_add(&t, "%s", made[i].notes);
	return buf[i];
}

const char *cli_usage(enum cli_object obj, enum cli_verb verb)
{
	const struct command *cmd = find_command(obj, verb);
	const struct object *o = object_of(obj);

	if (verb != VERB_HELP && !cmd)
		verb = VERB_HELP;
	for (size_t i = 0; i < ARRAY_SIZE(made); i++)
		if (made[i].obj == obj && made[i].verb == verb)
			return made_usage(i);
	if (verb != VERB_HELP)
		return cmd->usage;
	return o ? o->usage : usage_main;
}

/* ------------------------------------------------------------ the parser */

static int parse_options(int argc, char **argv, int *i, struct cli_cmd *c,
			 char *err, size_t len)
{
	char cands[64];

	for (; *i < argc && argv[*i][0] == '-' && argv[*i][1]; (*i)++) {
		const char *w = argv[*i];
		const char *o = w + 1 + (w[1] == '-');
		int v = lookup_word(options, ARRAY_SIZE(options), o, NULL, NULL,
				    cands, sizeof(cands));

		switch (v) {
		case OPT_JSON:
			c->json = true;
			break;
		case OPT_PRETTY:
			c->pretty = c->json = true;
			break;
		case OPT_BRIDGE:
			if (++*i >= argc)
				return fail(err, len, "option %s needs a bridge name", w);
			if (bridge_name_valid(argv[*i]))
				return fail(err, len, "invalid bridge name '%s' (1-15 characters "
					    "of A-Z a-z 0-9 _ . -)", argv[*i]);
			c->bridge = argv[*i];
			break;
		case OPT_RATE:
			if (++*i >= argc)
				return fail(err, len, "option %s needs an interval in seconds", w);
			if (c->rate_s)
				return fail(err, len, "option %s given twice", w);
			if (parse_rate(argv[*i], &c->rate_s))
				return fail(err, len, "invalid interval '%s' for %s (whole seconds, "
					    "1 .. %u)", argv[*i], w, CLI_RATE_MAX_S);
			break;
		case OPT_HELP:
			c->object = OBJ_HELP;
			return 1;
		case OPT_VERSION:
			c->object = OBJ_VERSION;
			return 1;
		case AMBIGUOUS:
			return fail(err, len, "ambiguous option '%s' (%s); try 'xdpbr help'",
				    w, cands);
		default:
			return fail(err, len, "unknown option '%s'; try 'xdpbr help'", w);
		}
	}
	return 0;
}

/* The command word after the object; none, or a keyword of the object's
 * default command there, means that command (show; monitor: fdb). */
static int parse_verb(int argc, char **argv, int *i, struct cli_cmd *c,
		      char *err, size_t len)
{
	const char *obj = object_name(c->object);
	const struct command *def = default_command(c->object);
	char cands[64];
	int v;

	c->verb = def ? def->verb : VERB_SHOW;
	if (*i >= argc)
		return 0;
	v = lookup_word(verbs, ARRAY_SIZE(verbs), argv[*i], verb_of_object, &c->object,
		   cands, sizeof(cands));
	if (v == AMBIGUOUS)
		return fail(err, len, "ambiguous command '%s' for '%s' (%s); try 'xdpbr %s help'",
			    argv[*i], obj, cands, obj);
	if (v >= 0) {
		c->verb = (enum cli_verb)v;
		(*i)++;
		return 0;
	}
	if (def && lookup(keywords, nkeywords, sizeof(keywords[0]), argv[*i],
			  keyword_of_command, def, NULL, 0) >= 0)
		return 0;
	return fail(err, len, "unknown command '%s' for '%s'; try 'xdpbr %s help'",
		    argv[*i], obj, obj);
}

/* A word that is no keyword of the command: its positional MAC (LLADDR),
 * if it takes one. */
/* The positional NAME of bridge add/del. */
static int parse_name(struct cli_cmd *c, const struct command *cmd, const char *w,
		      char *err, size_t len)
{
	if (c->seen & KW_NAME)
		return fail(err, len, "unexpected argument '%s' (NAME is already given); "
			    "try 'xdpbr bridge %s help'", w,
			    name_of(verbs, ARRAY_SIZE(verbs), (int)cmd->verb));
	if (bridge_name_valid(w))
		return fail(err, len, "invalid bridge name '%s' (1-15 characters "
			    "of A-Z a-z 0-9 _ . -)", w);
	c->name = w;
	c->seen |= KW_NAME;
	return 0;
}

static int parse_lladdr(struct cli_cmd *c, const struct command *cmd, const char *w,
			char *err, size_t len)
{
	const char *obj = object_name(cmd->obj);
	const char *verb = name_of(verbs, ARRAY_SIZE(verbs), (int)cmd->verb);

	if (cmd->kw & KW_NAME)
		return parse_name(c, cmd, w, err, len);
	if (!(cmd->kw & KW_LLADDR))
		return fail(err, len, "unexpected argument '%s'; try 'xdpbr %s %s help'",
			    w, obj, verb);
	if (c->seen & KW_LLADDR)
		return fail(err, len, "unexpected argument '%s' (LLADDR is "
			    "already given); try 'xdpbr %s %s help'", w, obj, verb);
	if (mac_parse(w, c->mac))
		return fail(err, len, "'%s' is neither a keyword of '%s %s' nor "
			    "a MAC address (xx:xx:xx:xx:xx:xx); try 'xdpbr %s %s help'",
			    w, obj, verb, obj, verb);
	c->seen |= KW_LLADDR;
	return 0;
}

/* Keyword k at argv[*i] and what follows it; *i is left on the last word
 * it took. */
static int parse_keyword(int argc, char **argv, int *i, struct cli_cmd *c,
			 const struct keyword *k, char *err, size_t len)
{
	int r;

	if (k->bit & KW_SETTINGS) {
		const struct setting *s = &settings[k->arg];
		uint64_t rows = k->list ? settings_mask(s->scope, s->home) : 1ULL << k->arg;

		if ((c->set.given | c->set.acted) & rows)	/* storm: any class */
			return fail(err, len, "'%s' given twice", k->w.name);
	} else if (c->seen & k->bit) {
		if (k->bit == KW_KIND && c->kind != (enum fdb_kind)k->arg)
			return fail(err, len, "'%s' contradicts the 'dynamic' or 'static' "
				    "before it; give only one", k->w.name);
		return fail(err, len, "'%s' given twice", k->w.name);
	}
	if (k->list) {
		r = k->list(c, k, argc, argv, i, err, len);
	} else if (k->value) {
		if (++*i >= argc)
			return fail(err, len, "'%s' needs a value: %s", k->w.name, k->value);
		r = k->parse(c, k, argv[*i], err, len);
	} else {
		r = k->parse(c, k, NULL, err, len);
	}
	if (!r)
		c->seen |= k->bit;
	return r;
}

/* The keywords the command needs, and one of those it needs one of. */
static int check_required(const struct cli_cmd *c, const struct command *cmd,
			  char *err, size_t len)
{
	const char *obj = object_name(cmd->obj);
	const char *verb = name_of(verbs, ARRAY_SIZE(verbs), (int)cmd->verb);
	unsigned int missing = cmd->need & ~c->seen;
	char cands[128];
	size_t used = 0;

	if (missing & KW_LLADDR)
		return fail(err, len, "'%s %s' needs a MAC address (LLADDR); try 'xdpbr %s %s help'",
			    obj, verb, obj, verb);
	if (missing & KW_NAME)
		return fail(err, len, "'%s %s' needs the bridge's NAME; try 'xdpbr %s %s help'",
			    obj, verb, obj, verb);
	for (size_t j = 0; missing && j < nkeywords; j++)
		if (missing & keywords[j].bit)
			return fail(err, len, "'%s %s' needs '%s' with %s; try 'xdpbr %s %s help'",
				    obj, verb, keywords[j].w.name, keywords[j].value, obj, verb);
	if (!cmd->any || (c->seen & cmd->any))
		return 0;
	cands[0] = '\0';
	for (size_t j = 0; j < nkeywords; j++)
		if ((keywords[j].bit & cmd->any) && used < sizeof(cands))
			used += (size_t)snprintf(cands + used, sizeof(cands) - used,
						 "%s%s", used ? ", " : "", keywords[j].w.name);
	return fail(err, len, "'%s %s' needs at least one of: %s", obj, verb, cands);
}

static int parse_args(int argc, char **argv, int i, struct cli_cmd *c,
		      const struct command *cmd, char *err, size_t len)
{
	const char *obj = object_name(cmd->obj);
	const char *verb = name_of(verbs, ARRAY_SIZE(verbs), (int)cmd->verb);
	char cands[128];
	int r;

	for (; i < argc; i++) {
		struct kw_ctx x = { cmd, argv[i] };
		int idx = lookup(keywords, nkeywords, sizeof(keywords[0]), argv[i],
				 keyword_for_word, &x, cands, sizeof(cands));

		if (idx == AMBIGUOUS)
			return fail(err, len, "ambiguous keyword '%s' for '%s %s' (%s); "
				    "try 'xdpbr %s %s help'", argv[i], obj, verb, cands, obj, verb);
		if (idx >= 0 && keywords[idx].bit == KW_HELP) {
			c->help = true;
			return 0;
		}
		if (idx == UNKNOWN)
			r = parse_lladdr(c, cmd, argv[i], err, len);
		else
			r = parse_keyword(argc, argv, &i, c, &keywords[idx], err, len);
		if (r)
			return r;
	}
	r = check_required(c, cmd, err, len);
	return r ? r : cmd->check ? cmd->check(c, err, len) : 0;
}

int cli_parse(int argc, char **argv, struct cli_cmd *cmd, char *err, size_t errlen)
{
	const struct command *c;
	char cands[64];
	int i = 1, v;

	keywords_init();
	memset(cmd, 0, sizeof(*cmd));
	cmd->vlan = -1;
	cmd->kind = FDB_KIND_ANY;
	cmd->mode = XDPBR_MODE_NONE;
	if (errlen)
		err[0] = '\0';

	v = parse_options(argc, argv, &i, cmd, err, errlen);
	if (v)
		return v > 0 ? 0 : v;
	if (i >= argc) {
		cmd->object = OBJ_HELP;
		return 0;
	}
	v = lookup(objects, ARRAY_SIZE(objects), sizeof(objects[0]), argv[i], object_ok,
		   argv[i], cands, sizeof(cands));
	if (v >= 0)
		v = objects[v].w.value;
	if (v == AMBIGUOUS)
		return fail(err, errlen, "ambiguous object '%s' (%s); try 'xdpbr help'",
			    argv[i], cands);
	if (v < 0)
		return fail(err, errlen, "unknown object '%s'; try 'xdpbr help'", argv[i]);
	cmd->object = (enum cli_object)v;
	if (cmd->object == OBJ_HELP)
		return 0;
	if (cmd->rate_s && cmd->object != OBJ_STATS)
		return fail(err, errlen, "option -r (a rate interval) is for 'stats' only, "
			    "not '%s'; try 'xdpbr help'",
			    object_name(cmd->object));
	i++;

	v = parse_verb(argc, argv, &i, cmd, err, errlen);
	if (v || cmd->verb == VERB_HELP)
		return v;
	c = find_command(cmd->object, cmd->verb);
	cmd->run = c->run;
	cmd->no_maps = c->no_maps;
	return parse_args(argc, argv, i, cmd, c, err, errlen);
}

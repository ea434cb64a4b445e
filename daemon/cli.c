// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cli.c - argument grammar of xdpbr: tables, not if-chains. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "util.h"

struct word {
	const char *name;
	int value;
};

static const struct word objects[] = {
	{ "fdb", OBJ_FDB },
	{ "link", OBJ_LINK },
	{ "stats", OBJ_STATS },
	{ "help", OBJ_HELP },
};

static const struct word verbs[] = {
	{ "show", VERB_SHOW },
	{ "list", VERB_SHOW },
	{ "help", VERB_HELP },
};

static const char usage_main[] =
	"Usage: xdpbr [OPTIONS] OBJECT { COMMAND | help }\n"
	"where  OBJECT := { fdb | link | stats }\n"
	"       OPTIONS := { -j[son] | -p[retty] | -b[ridge] BRIDGE | -h[elp] }\n";
static const char usage_fdb[] =
	"Usage: xdpbr [-j [-p]] [-b BRIDGE] fdb [ show ] [ dev DEV ] [ vlan VID ]\n";
static const char usage_link[] =
	"Usage: xdpbr [-j [-p]] [-b BRIDGE] link [ show ] [ dev DEV ]\n";
static const char usage_stats[] =
	"Usage: xdpbr [-j [-p]] [-b BRIDGE] stats [ show ] [ dev DEV ]\n";

const char *cli_usage(enum cli_object obj)
{
	switch (obj) {
	case OBJ_FDB:
		return usage_fdb;
	case OBJ_LINK:
		return usage_link;
	case OBJ_STATS:
		return usage_stats;
	default:
		return usage_main;
	}
}

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

/* Resolves an abbreviation against a table: the value, -1 if unknown,
 * -2 if ambiguous. An exact match always wins. */
static int lookup(const struct word *tab, size_t n, const char *w)
{
	int found = -1;

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(w, tab[i].name))
			return tab[i].value;
		if (matches(w, tab[i].name)) {
			if (found >= 0 && found != tab[i].value)
				return -2;
			found = tab[i].value;
		}
	}
	return found;
}

int cli_parse(int argc, char **argv, struct cli_cmd *cmd, char *err, size_t errlen)
{
	int i = 1, v;

	memset(cmd, 0, sizeof(*cmd));
	cmd->vlan = -1;
	err[0] = '\0';

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *o = argv[i] + 1 + (argv[i][1] == '-');

		if (matches(o, "json")) {
			cmd->json = true;
		} else if (matches(o, "pretty")) {
			cmd->pretty = cmd->json = true;
		} else if (matches(o, "bridge")) {
			if (++i >= argc)
				return fail(err, errlen, "option -b needs a bridge name");
			if (bridge_name_valid(argv[i]))
				return fail(err, errlen, "invalid bridge name '%s'", argv[i]);
			cmd->bridge = argv[i];
		} else if (matches(o, "help")) {
			cmd->object = OBJ_HELP;
			return 0;
		} else {
			return fail(err, errlen, "unknown option '%s'; try 'xdpbr help'", argv[i]);
		}
	}
	if (i >= argc) {
		cmd->object = OBJ_HELP;
		return 0;
	}
	v = lookup(objects, ARRAY_SIZE(objects), argv[i]);
	if (v < 0)
		return fail(err, errlen, "%s object '%s'; try 'xdpbr help'",
			    v == -2 ? "ambiguous" : "unknown", argv[i]);
	cmd->object = (enum cli_object)v;
	if (cmd->object == OBJ_HELP)
		return 0;
	i++;

	cmd->verb = VERB_SHOW;
	if (i < argc && strcmp(argv[i], "dev") && strcmp(argv[i], "vlan")) {
		v = lookup(verbs, ARRAY_SIZE(verbs), argv[i]);
		if (v < 0)
			return fail(err, errlen, "%s command '%s' for '%s'; try 'xdpbr %s help'",
				    v == -2 ? "ambiguous" : "unknown", argv[i],
				    objects[cmd->object - 1].name, objects[cmd->object - 1].name);
		cmd->verb = (enum cli_verb)v;
		i++;
	}
	if (cmd->verb == VERB_HELP)
		return 0;

	for (; i < argc; i++) {
		if (!strcmp(argv[i], "dev")) {
			if (++i >= argc)
				return fail(err, errlen, "'dev' needs an interface name");
			if (strlen(argv[i]) >= 16)
				return fail(err, errlen, "interface name '%s' is too long", argv[i]);
			cmd->dev = argv[i];
		} else if (!strcmp(argv[i], "vlan") && cmd->object == OBJ_FDB) {
			uint64_t vid;

			if (++i >= argc)
				return fail(err, errlen, "'vlan' needs a VLAN id");
			if (parse_u64(argv[i], 4094, &vid))
				return fail(err, errlen, "invalid VLAN id '%s' (0-4094)", argv[i]);
			cmd->vlan = (int)vid;
		} else {
			return fail(err, errlen, "unexpected argument '%s'; try 'xdpbr %s help'",
				    argv[i], objects[cmd->object - 1].name);
		}
	}
	return 0;
}

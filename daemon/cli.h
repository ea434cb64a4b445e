/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_CLI_H
#define XDPBR_CLI_H

#include <stdbool.h>
#include <stddef.h>

enum cli_object { OBJ_NONE, OBJ_FDB, OBJ_LINK, OBJ_STATS, OBJ_HELP };
enum cli_verb { VERB_SHOW, VERB_HELP };

struct cli_cmd {
	bool json;
	bool pretty;
	const char *bridge;		/* -b, or NULL: the only one */
	enum cli_object object;
	enum cli_verb verb;
	const char *dev;		/* dev DEV filter, or NULL */
	int vlan;			/* vlan VID filter, or -1 */
};

/*
 * Parses `xdpbr [OPTIONS] OBJECT [COMMAND [ARGS]]` (argv[0] is the program).
 * Objects and commands accept unambiguous prefixes, like iproute2.
 * 0, or -EINVAL with a message for a person in err.
 */
int cli_parse(int argc, char **argv, struct cli_cmd *cmd, char *err, size_t errlen);

/* Usage text for an object (OBJ_NONE: the whole tool). */
const char *cli_usage(enum cli_object obj);

#endif

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* version.c - the version and git revision the Makefile built in. Only this
 * file is rebuilt when the revision changes. */
#include <stdio.h>

#include "version.h"

#ifndef XDPBR_VERSION
#define XDPBR_VERSION "unknown"
#endif
#ifndef XDPBR_GIT
#define XDPBR_GIT "unknown"
#endif

const char *version_line(const char *name)
{
	static char line[128];

	snprintf(line, sizeof(line), "%s %s (git %s)", name, XDPBR_VERSION, XDPBR_GIT);
	return line;
}

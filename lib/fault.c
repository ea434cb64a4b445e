// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fault.c - fault points for the tests (see fault.h). */
#include <stdlib.h>
#include <string.h>

#include "fault.h"

bool fault_hit(const char *name)
{
	static unsigned long passed;
	const char *f = getenv("XDPBR_FAULT");
	size_t n = strlen(name);
	unsigned long nth = 1;

	if (!f || strncmp(f, name, n) || (f[n] && f[n] != '@'))
		return false;
	if (f[n] == '@')
		nth = strtoul(f + n + 1, NULL, 10);
	return ++passed == nth;
}

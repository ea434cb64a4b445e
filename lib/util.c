// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* util.c - small pure helpers: MAC text, names, numbers, clocks. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xdpbr.h"
#include "util.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int mac_parse(const char *s, uint8_t mac[6])
{
	int i, hi, lo;

	if (!s)
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		hi = hexval(*s++);
		if (hi < 0)
			return -EINVAL;
		/* one or two digits an octet, as iproute2's `bridge` takes */
		lo = hexval(*s);
		if (lo >= 0)
			s++;
		mac[i] = (uint8_t)(lo < 0 ? hi : hi << 4 | lo);
		if (i < 5) {
			if (*s != ':' && *s != '-')
				return -EINVAL;
			s++;
		}
	}
	return *s ? -EINVAL : 0;
}

char *mac_format(const uint8_t mac[6], char *buf)
{
	snprintf(buf, MAC_STRLEN, "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}

int bridge_name_valid(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > 15 || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
			return -EINVAL;
	return 0;
}

bool matches(const char *word, const char *full)
{
	size_t n = strlen(word);

	return n > 0 && n <= strlen(full) && !strncmp(word, full, n);
}

int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * XDPBR_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

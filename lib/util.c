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

/* The length of the UTF-8 sequence at s if it is valid (shortest form,
 * not a surrogate, at most U+10FFFF) and encodes a printable character (not
 * a C1 control, U+0080..U+009F); else 0. Reads no further than a byte that
 * ends it early, such as the NUL. */
static size_t utf8_printable(const unsigned char *s)
{
	unsigned int cp, min;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f, min = 0xa0;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* name_escape, or with text a message: spaces and newlines kept, '\' as
 * it is. */
static char *escape(const char *in, bool text, char *out, size_t len)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0, n;

	/* each step writes at most 4 characters: one more for the NUL */
	while (*s && o + 5 <= len) {
		if (*s == '\\' && !text) {
			out[o++] = '\\';
			out[o++] = '\\';
			s++;
		} else if ((*s > 0x20 && *s < 0x7f) || (text && (*s == ' ' || *s == '\n'))) {
			out[o++] = (char)*s++;
		} else if ((n = utf8_printable(s))) {
			memcpy(out + o, s, n);
			o += n;
			s += n;
		} else {
			snprintf(out + o, 5, "\\x%02x", *s++);
			o += 4;
		}
	}
	out[o] = '\0';
	return out;
}

char *name_escape(const char *name, char *out, size_t len)
{
	return escape(name, false, out, len);
}

char *text_escape(const char *text, char *out, size_t len)
{
	return escape(text, true, out, len);
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

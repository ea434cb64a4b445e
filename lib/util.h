/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_UTIL_H
#define XDPBR_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* valgrind does not know BPF_MAP_LOOKUP_BATCH ("unhandled eBPF command"):
 * what the kernel wrote would look uninitialised below every reader. Its
 * client request says so (a no-op outside valgrind); without the header,
 * nothing. */
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#else
#define VALGRIND_MAKE_MEM_DEFINED(addr, len) ((void)0)
#endif

#define MAC_STRLEN 18	/* "xx:xx:xx:xx:xx:xx" + NUL */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Parses "02:00:5e:00:53:01", also '-' separated and with one or two hex
 * digits an octet, as `bridge` does ("2:0:5e:0:53:1"). 0 or -EINVAL. */
int mac_parse(const char *s, uint8_t mac[6]);
/* Formats into buf (at least MAC_STRLEN bytes); returns buf. */
char *mac_format(const uint8_t mac[6], char *buf);

/*
 * A name (an interface's) as text a person or a JSON parser can take:
 * printable ASCII and valid UTF-8 of printable characters as they are,
 * '\' as "\\", every other byte (control characters, bytes that are not
 * valid UTF-8) as "\xNN". The kernel allows most bytes in interface names.
 * Truncated to fit len (at least 1); returns out. IFNAME_SHOWN holds any
 * interface name so escaped.
 */
#define IFNAME_SHOWN 64		/* 15 bytes, 4 characters each, NUL */
char *name_escape(const char *name, char *out, size_t len);
/* The same for a message that may contain such a name (a log line):
 * spaces and newlines kept, '\' as it is. len: 4 times the text's length
 * and one holds any text. */
char *text_escape(const char *text, char *out, size_t len);

/* Bridge names become pin directories and interface-like names:
 * 1..15 chars of [A-Za-z0-9_.-], not "." or "..". 0 or -EINVAL. */
int bridge_name_valid(const char *name);

/* iproute2-style abbreviation: word is a non-empty prefix of full. */
bool matches(const char *word, const char *full);

/* Strict unsigned parse of a whole string within [0, max]. 0 or -EINVAL/-ERANGE. */
int parse_u64(const char *s, uint64_t max, uint64_t *out);

/* CLOCK_MONOTONIC in ns: the datapath's clock (bpf_ktime_get_coarse_ns). */
uint64_t mono_ns(void);

#endif

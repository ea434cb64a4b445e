/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_CLI_PRINT_H
#define XDPBR_CLI_PRINT_H

/*
 * print - the one way xdpbr writes its output, as iproute2's
 * lib/json_print.c does: each call names a value once, with its JSON key
 * and its text format, and writes whichever the command was asked for
 * (-j, -p or text):
 *
 *	print_string(PRINT_ANY, "ifname", " dev %s", name);
 *
 * PRINT_FP writes only the text, PRINT_JSON only the JSON member. In JSON
 * the values go into a json-c document that print_end() writes as one line
 * (or pretty with -p); text goes to stdout as it comes. A text format has
 * exactly one conversion, for the value's type (%s, %llu, %d, %f).
 */
#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

enum print_type {
	PRINT_FP = 1,		/* text only */
	PRINT_JSON = 2,		/* JSON only */
	PRINT_ANY = PRINT_FP | PRINT_JSON,
};

/* Starts one document: JSON (pretty or not) or text. */
void print_begin(bool json, bool pretty);
/* Ends it: writes the JSON document, if any, and flushes stdout. */
void print_end(void);
bool print_is_json(void);

/* JSON containers: key NULL inside an array or for the document itself.
 * Nothing in text. */
void print_open_object(const char *key);
void print_close_object(void);
void print_open_array(const char *key);
void print_close_array(void);

void print_string(enum print_type t, const char *key, const char *fmt, const char *v);
void print_u64(enum print_type t, const char *key, const char *fmt, uint64_t v);
void print_int(enum print_type t, const char *key, const char *fmt, int v);
/* JSON true/false; text "on"/"off" through fmt's %s. */
void print_onoff(enum print_type t, const char *key, const char *fmt, bool v);
/* A per-second rate: JSON with three decimals; text through fmt's %f. */
void print_rate(enum print_type t, const char *key, const char *fmt, double v);
/* Text only: printf. */
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Ends a line of text. */
void print_nl(void);

/* A document made elsewhere (lib/report.c, the daemon's event line), as
 * the whole JSON output or as a member: print takes the reference. */
void print_json_object(const char *key, struct json_object *o);

#endif

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * print.c - text or JSON from one call (see print.h).
 *
 * JSON is built as a json-c tree and written by json-c at the end, so its
 * bytes (number forms, escaping, -p's layout) are json-c's, the same as the
 * daemon's documents.
 */
#include <stdarg.h>
#include <stdio.h>

#include "print.h"

#define MAX_DEPTH 8

static struct {
	bool json;
	bool pretty;
	struct json_object *root;
	struct json_object *stack[MAX_DEPTH];	/* open containers, innermost last */
	int depth;
} out;

void print_begin(bool json, bool pretty)
{
	out.json = json;
	out.pretty = pretty;
	out.root = NULL;
	out.depth = 0;
}

static void write_document(struct json_object *doc)
{
	int flags = out.pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN;

	puts(json_object_to_json_string_ext(doc, flags | JSON_C_TO_STRING_NOSLASHESCAPE));
}

void print_end(void)
{
	if (out.root)
		write_document(out.root);
	json_object_put(out.root);
	out.root = NULL;
	out.depth = 0;
	fflush(stdout);		/* a reader at the other end of a pipe sees it now */
}

bool print_is_json(void)
{
	return out.json;
}

/* Puts v into the innermost container under key (arrays ignore it), or
 * makes it the document. */
static void add_value(const char *key, struct json_object *v)
{
	struct json_object *top;

	if (!out.depth) {
		json_object_put(out.root);
		out.root = v;
		return;
	}
	top = out.stack[out.depth - 1];
	if (json_object_is_type(top, json_type_array))
		json_object_array_add(top, v);
	else
		json_object_object_add(top, key, v);
}

static void open_container(const char *key, struct json_object *c)
{
	if (!out.json) {
		json_object_put(c);
		return;
	}
	add_value(key, c);
	if (out.depth < MAX_DEPTH)
		out.stack[out.depth++] = c;
}

static void close_container(void)
{
	if (out.json && out.depth)
		out.depth--;
}

void print_open_object(const char *key)
{
	open_container(key, out.json ? json_object_new_object() : NULL);
}

void print_close_object(void)
{
	close_container();
}

void print_open_array(const char *key)
{
	open_container(key, out.json ? json_object_new_array() : NULL);
}

void print_close_array(void)
{
	close_container();
}

void print_json_object(const char *key, struct json_object *o)
{
	if (out.json)
		add_value(key, o);
	else
		json_object_put(o);
}

/* Whether the call writes text: a text document, a text part and a format. */
static bool text_wanted(enum print_type t, const char *fmt)
{
	return !out.json && (t & PRINT_FP) && fmt;
}

static bool json_wanted(enum print_type t)
{
	return out.json && (t & PRINT_JSON);
}

/* The formats are the callers' string literals, one conversion each, as in
 * iproute2's json_print.c; they cannot be checked here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void print_string(enum print_type t, const char *key, const char *fmt, const char *v)
{
	if (json_wanted(t))
		add_value(key, json_object_new_string(v));
	else if (text_wanted(t, fmt))
		printf(fmt, v);
}

void print_u64(enum print_type t, const char *key, const char *fmt, uint64_t v)
{
	if (json_wanted(t))
		add_value(key, json_object_new_uint64(v));
	else if (text_wanted(t, fmt))
		printf(fmt, (unsigned long long)v);
}

void print_int(enum print_type t, const char *key, const char *fmt, int v)
{
	if (json_wanted(t))
		add_value(key, json_object_new_int(v));
	else if (text_wanted(t, fmt))
		printf(fmt, v);
}

void print_onoff(enum print_type t, const char *key, const char *fmt, bool v)
{
	if (json_wanted(t))
		add_value(key, json_object_new_boolean(v));
	else if (text_wanted(t, fmt))
		printf(fmt, v ? "on" : "off");
}

void print_rate(enum print_type t, const char *key, const char *fmt, double v)
{
	char buf[64];

	if (json_wanted(t)) {
		snprintf(buf, sizeof(buf), "%.3f", v);
		add_value(key, json_object_new_double_s(v, buf));
	} else if (text_wanted(t, fmt)) {
		printf(fmt, v);
	}
}

#pragma GCC diagnostic pop

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (out.json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void print_nl(void)
{
	if (!out.json)
		putchar('\n');
}

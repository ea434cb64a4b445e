// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_cli.c - libFuzzer harness for the argument grammar of xdpbr
 * (cli_parse, cli/cli.c).
 *
 * Each input is a command line: it is split into words at every NUL or
 * newline byte (an empty word is a word), each word in a buffer of its own
 * size so that ASan sees a read past its end, and parsed as
 * `xdpbr WORD...`. What must hold:
 *  - no crash, no leak, no undefined behaviour;
 *  - the same result and the same struct when parsed again, and the same
 *    result with a small message buffer (1..16 bytes, exactly allocated);
 *  - on error: -EINVAL and a message; on success: no message, and a struct
 *    that keeps the promises of cli/cli.h: a known object and command;
 *    each value present exactly when its keyword was given (cmd.seen), in its
 *    documented range; dev, bridge and master pointing into argv and valid
 *    names; the settings given (bridge set, link set) of the command's
 *    scope, each with a value its row of lib/settings.c allows and named in
 *    the usage; pvid on a single VLAN; fdb add of a unicast,
 *    non-zero MAC, static unless dynamic was given; link add's -b agreeing
 *    with master; stats count only with a rate; -r only for stats;
 *  - the keywords given are among those the command's usage text
 *    (cli_usage) lists, and the ones it lists outside brackets were given:
 *    the parser and what `xdpbr ... help` tells a person agree;
 *  - a function of the command table runs it, with the pinned maps unless
 *    it is monitor, or bridge add/del (which make and end them) with the
 *    bridge's NAME.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "settings.h"
#include "util.h"
#include "fuzz_common.h"

#define MAX_WORDS 64
#define ARRAY_SIZE_(a) (sizeof(a) / sizeof((a)[0]))

#define CHECK(cond, ...) do { if (!(cond)) fz_fail(__VA_ARGS__); } while (0)

/* The keywords of enum cli_kw and their words in the usage texts. */
static const struct {
	unsigned int bit;
	const char *names[2];
} kw_words[] = {
	{ KW_DEV, { "dev" } },
	{ KW_VLAN, { "vlan" } },
	{ KW_KIND, { "dynamic", "static" } },
	{ KW_MASTER, { "master" } },
	{ KW_MODE, { "mode" } },
	{ KW_LLADDR, { "LLADDR" } },
	{ KW_RATE, { "rate" } },
	{ KW_COUNT, { "count" } },
	{ KW_VID, { "vid" } },
	{ KW_PVID, { "pvid" } },
	{ KW_UNTAGGED, { "untagged" } },
	{ KW_NAME, { "NAME" } },
	{ KW_SLOT, { "slot" } },
};

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * How the usage text of a command names one of the words (names[2]): 0 not
 * at all, 1 in brackets or braces (optional), 2 outside them (required).
 * Only the command's syntax counts: the text up to the "where" line.
 */
static int usage_names(const char *usage, const char *const *names)
{
	const char *end = strstr(usage, "\nwhere"), *start;
	int depth = 0, best = 0;

	if (!end)
		end = usage + strlen(usage);
	/* after "xdpbr [OPTIONS] OBJECT": the object's name is no keyword */
	start = strstr(usage, "[OPTIONS] ");
	if (!start || start > end)
		return -1;
	start += strlen("[OPTIONS] ");
	while (start < end && word_char(*start))
		start++;
	for (const char *p = start; p < end; p++) {
		if (*p == '[' || *p == '{')
			depth++;
		else if (*p == ']' || *p == '}')
			depth--;
		if (!word_char(*p) || (p > start && word_char(p[-1])))
			continue;
		for (int n = 0; n < 2 && names[n]; n++) {
			size_t len = strlen(names[n]);

			if ((size_t)(end - p) >= len && !strncmp(p, names[n], len) &&
			    !word_char(p[len])) {
				int m = depth > 0 ? 1 : 2;

				if (m > best)
					best = m;
			}
		}
	}
	return best;
}

/* The settings given: only to bridge set and link set, of their scope,
 * each a value its row allows, each named in the usage (the storm classes
 * as storm's), the others zero. */
static void check_settings(const struct cli_cmd *c, const char *usage)
{
	bool set = c->verb == VERB_SET && (c->object == OBJ_BRIDGE || c->object == OBJ_LINK);
	enum setting_scope scope = c->object == OBJ_LINK ? SETTING_PORT : SETTING_BRIDGE;

	CHECK(set || !(c->set.given | c->set.acted), "settings for object %d verb %d",
	      (int)c->object, (int)c->verb);
	CHECK(!!(c->seen & (KW_BRIDGE_SET | KW_PORT_SET)) == !!(c->set.given | c->set.acted),
	      "settings and seen disagree");
	for (int i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i];
		const char *names[2] = { s->cli ? "storm" : s->name, NULL };
		bool given = setting_given(&c->set, (enum setting_id)i);
		uint64_t v = c->set.v[i];

		if ((c->set.acted >> i) & 1)
			CHECK(s->action && !given, "%s: acted, no action or also given", s->name);
		if (!given) {
			CHECK(!v, "%s not given, and %llu", s->name, (unsigned long long)v);
			continue;
		}
		CHECK(s->scope == scope && (s->in & SETTING_CLI), "%s given", s->name);
		CHECK(usage_names(usage, names) == 1, "setting %s given, not in the usage:\n%s",
		      s->name, usage);
		if (s->type == SETTING_NUM)
			CHECK(!setting_check(s, v), "%s %llu", s->name, (unsigned long long)v);
		else if (s->type == SETTING_BOOL)
			CHECK(v <= (s->also ? 2 : 1), "%s %llu", s->name, (unsigned long long)v);
		else	/* state */
			CHECK(v <= XDPBR_STP_DISCARDING, "%s %llu", s->name, (unsigned long long)v);
	}
}

/* p is one of the words: a pointer into argv, not a copy. */
static bool in_argv(const char *p, int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (p == argv[i])
			return true;
	return false;
}

static void check_cmd(const struct cli_cmd *c, int argc, char **argv)
{
	const char *usage;
	unsigned int known = 0;

	CHECK(!c->pretty || c->json, "pretty without json");
	CHECK(!c->bridge || (in_argv(c->bridge, argc, argv) && !bridge_name_valid(c->bridge)),
	      "bridge '%s'", c->bridge);
	CHECK(c->rate_s <= CLI_RATE_MAX_S, "rate %u", c->rate_s);
	CHECK(c->object >= OBJ_NONE && c->object <= OBJ_VERSION, "object %d", (int)c->object);
	if (c->object == OBJ_HELP || c->object == OBJ_NONE || c->object == OBJ_VERSION)
		return;
	CHECK(!c->rate_s || c->object == OBJ_STATS, "rate %u for object %d", c->rate_s,
	      (int)c->object);
	CHECK(c->verb >= VERB_SHOW && c->verb <= VERB_HELP, "verb %d", (int)c->verb);
	usage = cli_usage(c->object, c->verb);
	CHECK(usage && *usage, "no usage for object %d verb %d", (int)c->object, (int)c->verb);
	if (c->verb == VERB_HELP || c->help)
		return;
	CHECK(c->run, "no function runs object %d verb %d", (int)c->object, (int)c->verb);
	CHECK(!c->no_maps || c->object == OBJ_MONITOR ||
	      (c->object == OBJ_BRIDGE && (c->verb == VERB_ADD || c->verb == VERB_DEL) && c->name),
	      "object %d runs without the maps", (int)c->object);
	CHECK(!c->name || (c->seen & KW_NAME), "a NAME that was not given");

	/* the keywords against the usage text */
	for (size_t k = 0; k < ARRAY_SIZE_(kw_words); k++) {
		unsigned int bit = kw_words[k].bit;
		int m = usage_names(usage, kw_words[k].names);

		known |= bit;
		CHECK(m >= 0, "no '[OPTIONS] OBJECT' in the usage:\n%s", usage);
		CHECK(!(c->seen & bit) || m > 0, "keyword %s given, not in the usage:\n%s",
		      kw_words[k].names[0], usage);
		CHECK(m != 2 || (c->seen & bit), "keyword %s required by the usage, not given:\n%s",
		      kw_words[k].names[0], usage);
	}
	/* the settings: one bit for all of a scope, cli_cmd.set says which */
	known |= KW_BRIDGE_SET | KW_PORT_SET;
	check_settings(c, usage);
	CHECK(!(c->seen & ~known), "seen has bits 0x%x this harness does not know (teach it)",
	      c->seen & ~known);

	/* each value present exactly when its keyword was given */
	CHECK(!!(c->seen & KW_DEV) == !!c->dev, "dev and seen disagree");
	CHECK(c->seen & KW_SLOT ? c->slot >= 1 && c->slot <= XDPBR_PORTS_PER_BRIDGE : !c->slot,
	      "slot %u", c->slot);
	CHECK(!(c->seen & KW_SLOT) || !(c->seen & KW_DEV), "both dev and slot name the port");
	CHECK(!c->dev || (in_argv(c->dev, argc, argv) && strlen(c->dev) >= 1 &&
			  strlen(c->dev) <= 15), "dev '%s'", c->dev);
	CHECK(c->seen & KW_VLAN ? c->vlan >= 0 && c->vlan <= 4094 : c->vlan == -1,
	      "vlan %d", c->vlan);
	if (c->seen & KW_KIND)
		CHECK(c->kind == FDB_KIND_DYNAMIC || c->kind == FDB_KIND_STATIC, "kind %d",
		      (int)c->kind);
	else if (c->object == OBJ_FDB && c->verb == VERB_ADD)
		CHECK(c->kind == FDB_KIND_STATIC, "fdb add: kind %d, not static", (int)c->kind);
	else
		CHECK(c->kind == FDB_KIND_ANY, "kind %d without dynamic/static", (int)c->kind);
	if (c->seen & KW_LLADDR) {
		static const uint8_t zero[6];

		if (c->object == OBJ_FDB && c->verb == VERB_ADD)
			CHECK(!(c->mac[0] & 1) && memcmp(c->mac, zero, 6),
			      "fdb add of a multicast or zero MAC");
	} else {
		static const uint8_t zero[6];

		CHECK(!memcmp(c->mac, zero, 6), "a MAC without LLADDR");
	}
	CHECK(!!(c->seen & KW_MASTER) == !!c->master, "master and seen disagree");
	CHECK(!c->master || (in_argv(c->master, argc, argv) && !bridge_name_valid(c->master)),
	      "master '%s'", c->master);
	if (c->master && c->bridge)
		CHECK(!strcmp(c->master, c->bridge), "-b %s and master %s", c->bridge, c->master);
	CHECK(c->mode == XDPBR_MODE_NONE || c->mode == XDPBR_MODE_NATIVE || c->mode == XDPBR_MODE_GENERIC,
	      "mode %d", (int)c->mode);
	CHECK((c->seen & KW_MODE) || c->mode == XDPBR_MODE_NONE, "mode without keyword");
	CHECK((c->seen & KW_RATE) || !c->rate_s || c->object == OBJ_STATS, "rate");
	CHECK(c->seen & KW_COUNT ? c->count >= 1 : !c->count, "count %u", c->count);
	CHECK(!(c->object == OBJ_STATS && c->count) || c->rate_s, "stats count without rate");
	if (c->seen & KW_VID)
		CHECK(c->vid_from >= 1 && c->vid_from <= c->vid_to && c->vid_to <= XDPBR_VLAN_MAX,
		      "vid %u-%u", c->vid_from, c->vid_to);
	else
		CHECK(!c->vid_from && !c->vid_to, "vid without keyword");
	CHECK(c->pvid == !!(c->seen & KW_PVID), "pvid and seen disagree");
	CHECK(!c->pvid || c->vid_from == c->vid_to, "pvid on %u-%u", c->vid_from, c->vid_to);
	CHECK(c->untagged == !!(c->seen & KW_UNTAGGED), "untagged and seen disagree");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_WORDS + 2];
	struct cli_cmd c1, c2;
	char err[256], *small;
	size_t start = 0, smallen;
	int argc = 1, r1, r2, r3;

	argv[0] = strdup("xdpbr");
	if (!argv[0])
		fz_setup_failed("out of memory");
	/* no input: `xdpbr` alone; a final separator ends the last word */
	for (size_t i = 0; size && i <= size && argc <= MAX_WORDS; i++) {
		if (i < size && data[i] && data[i] != '\n')
			continue;
		if (i == size && start == size)
			break;
		argv[argc] = malloc(i - start + 1);
		if (!argv[argc])
			fz_setup_failed("out of memory");
		memcpy(argv[argc], data + start, i - start);
		argv[argc][i - start] = '\0';
		argc++;
		start = i + 1;
	}
	argv[argc] = NULL;

	memset(err, 'x', sizeof(err));
	r1 = cli_parse(argc, argv, &c1, err, sizeof(err));
	CHECK(memchr(err, 0, sizeof(err)), "message not terminated");
	if (r1) {
		CHECK(r1 == -EINVAL, "cli_parse returned %d", r1);
		CHECK(err[0], "error without a message");
	} else {
		CHECK(!err[0], "success with message '%s'", err);
		check_cmd(&c1, argc, argv);
	}

	r2 = cli_parse(argc, argv, &c2, err, sizeof(err));
	CHECK(r1 == r2 && (r1 || !memcmp(&c1, &c2, sizeof(c1))), "a second parse differs");

	smallen = 1 + (size ? data[0] % 16 : 0);
	small = malloc(smallen);
	if (!small)
		fz_setup_failed("out of memory");
	r3 = cli_parse(argc, argv, &c2, small, smallen);
	CHECK(r1 == r3, "parse with a %zu-byte message buffer returned %d, not %d", smallen, r3,
	      r1);
	CHECK(memchr(small, 0, smallen), "short message not terminated");
	free(small);

	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return 0;
}

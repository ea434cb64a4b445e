// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_settings.c - lib/settings.c: the table of the bridge's and the ports'
 * settings is whole and consistent, its checks and writers do what the
 * rows say, and the man pages document every row (xdpbrd.conf(5): key,
 * range, default; xdpbr(8): word and range) and no setting that is none. */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>

#include "settings.h"
#include "stpmap.h"
#include "util.h"

/* Every row is there (the table's initializers leave no hole), named,
 * explained, and a row of one scope; names are unique in a scope, as the
 * CLI's words are. */
static void test_rows_whole(void **state)
{
	for (int i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i];

		if (!s->name || !s->help || !s->in)
			fail_msg("row %d: no name, help or reader", i);
		assert_true(s->scope == SETTING_BRIDGE || s->scope == SETTING_PORT);
		assert_int_equal(setting_id_of(s), i);
		assert_ptr_equal(setting_find(s->scope, s->in, s->name), s);
		for (int j = 0; j < i; j++) {
			const struct setting *o = &settings[j];

			if (o->scope == s->scope && (o->in & s->in) && !strcmp(o->name, s->name))
				fail_msg("rows %d and %d: both %s", j, i, s->name);
			if (o->scope == s->scope && s->nl && o->nl == s->nl)
				fail_msg("rows %s and %s: both netlink attribute %u", o->name,
					 s->name, s->nl);
		}
	}
	assert_null(setting_find(SETTING_PORT, SETTING_FILE, "ageing_time"));
	assert_null(setting_find(SETTING_BRIDGE, SETTING_CLI, "fdb_size"));	/* file only */
	assert_null(setting_find(SETTING_PORT, SETTING_FILE, "state"));		/* CLI only */
	assert_non_null(setting_find(SETTING_PORT, SETTING_CLI, "state"));
}

/* A number's range holds its default and its step's multiples; a boolean's
 * default is one of its words; what the CLI takes has a name in its usage. */
static void test_rows_consistent(void **state)
{
	for (int i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i];

		if (s->type == SETTING_NUM) {
			if (s->min > s->max || (s->step > 1 && (s->min % s->step ||
								s->max % s->step)))
				fail_msg("%s: range %llu..%llu, step %llu", s->name,
					 (unsigned long long)s->min,
					 (unsigned long long)s->max,
					 (unsigned long long)s->step);
			if (!s->def_text && setting_check(s, s->def))
				fail_msg("%s: default %llu outside its own rules", s->name,
					 (unsigned long long)s->def);
			if ((s->in & SETTING_CLI) && !s->metavar)
				fail_msg("%s: a number of the CLI without a metavar", s->name);
		} else if (s->type == SETTING_BOOL) {
			assert_true(s->def <= (s->also ? 2 : 1));
		}
		assert_true(!s->also || s->type == SETTING_BOOL);
		assert_true(!s->zero || (s->type == SETTING_NUM && s->min == 0));
	}
}

/* Where a value lives: a field inside the struct of its home, of a width
 * the writers know; flags and requests name their bit. */
static void test_rows_homes(void **state)
{
	static const size_t home_size[] = {
		[SETTING_AT_CONFIG] = sizeof(struct xdpbr_config),
		[SETTING_AT_PORT] = sizeof(struct xdpbr_port),
		[SETTING_AT_STORM] = sizeof(struct xdpbr_storm),
		[SETTING_AT_STP] = sizeof(struct stpmap_req),
	};

	for (int i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i];
		size_t limit = s->home < ARRAY_SIZE(home_size) ? home_size[s->home] : 0;

		if (!limit)
			continue;
		if (!s->size && s->home != SETTING_AT_STP)
			fail_msg("%s: no field in its home", s->name);
		if (s->size && (s->field + s->size > limit ||
				(s->size != 1 && s->size != 2 && s->size != 4 && s->size != 8)))
			fail_msg("%s: field %zu+%zu in a struct of %zu", s->name, s->field,
				 s->size, limit);
		if ((s->home == SETTING_AT_STP && s->size) || s->home == SETTING_AT_STORM)
			assert_true(s->bit && !(s->bit & (s->bit - 1)));
	}
	assert_int_equal(settings[SET_HAIRPIN].bit, XDPBR_PORT_HAIRPIN);
	assert_int_equal(settings[SET_STORM_UNKNOWN].bit, 1U << XDPBR_STORM_UNKNOWN);
}

static void test_check(void **state)
{
	const struct setting *prio = &settings[SET_PRIORITY];
	const struct setting *cache = &settings[SET_FDB_CACHE];

	assert_int_equal(setting_check(prio, 0), 0);
	assert_int_equal(setting_check(prio, 61440), 0);
	assert_int_equal(setting_check(prio, 4097), -EDOM);
	assert_int_equal(setting_check(prio, 65536), -ERANGE);
	assert_int_equal(setting_check(&settings[SET_HELLO_TIME], 0), -ERANGE);
	assert_int_equal(setting_check(&settings[SET_HELLO_TIME], 11), -ERANGE);
	assert_int_equal(setting_check(&settings[SET_MAX_LEARNED], XDPBR_LEARNED_MAX), 0);
	assert_int_equal(setting_check(&settings[SET_MAX_LEARNED], XDPBR_LEARNED_MAX + 1ULL),
			 -ERANGE);
	assert_int_equal(setting_check(cache, 0), 0);
	assert_int_equal(setting_check(cache, 4), 0);
	assert_int_equal(setting_check(cache, 2), -EINVAL);
	assert_int_equal(setting_check(cache, 12), -EINVAL);
	assert_int_equal(setting_check(cache, XDPBR_FDB_CACHE_MAX), 0);
	assert_int_equal(setting_check(cache, 2ULL * XDPBR_FDB_CACHE_MAX), -ERANGE);
}

static void test_texts(void **state)
{
	char buf[64];

	assert_string_equal(setting_range(&settings[SET_AGEING_TIME], buf, sizeof(buf)),
			    "0 (never) .. 1000000");
	assert_string_equal(setting_range(&settings[SET_PRIORITY], buf, sizeof(buf)),
			    "0 .. 61440 in steps of 4096");
	assert_string_equal(setting_range(&settings[SET_HELLO_TIME], buf, sizeof(buf)),
			    "1 .. 10");
	assert_string_equal(setting_range(&settings[SET_STORM_BCAST], buf, sizeof(buf)),
			    "0 (no limit) .. 100000000");
	assert_string_equal(setting_range(&settings[SET_PATH_COST], buf, 8), "0 (from");
	assert_string_equal(setting_default(&settings[SET_AGEING_TIME], buf, sizeof(buf)),
			    "300");
	assert_string_equal(setting_default(&settings[SET_LEARNING], buf, sizeof(buf)), "on");
	assert_string_equal(setting_default(&settings[SET_HAIRPIN], buf, sizeof(buf)), "off");
	assert_string_equal(setting_default(&settings[SET_PORT_XDP_SHARE], buf, sizeof(buf)),
			    "the bridge's");
	assert_null(setting_default(&settings[SET_VLANS], buf, sizeof(buf)));
}

/* The writers: only the rows of the mask, the default where not given,
 * the bits of other flags and the fields of other rows untouched. */
static void test_put(void **state)
{
	struct settings s = { 0 };
	struct xdpbr_port p = { .slot = 3, .flags = XDPBR_PORT_DOWN | XDPBR_PORT_HAIRPIN,
				.pvid = 7, .max_learned = 9 };
	struct xdpbr_config c = { .ageing_ns = 1, .fdb_max_learned = 2, .default_pvid = 5 };
	uint32_t pps[XDPBR_STORM__MAX] = { 1, 2, 3 };

	setting_set(&s, SET_LEARNING, 0);
	setting_set(&s, SET_MAX_LEARNED, 100);
	setting_set(&s, SET_STORM_MCAST, 50);
	settings_port_put(&s, s.given, &p);
	assert_int_equal(p.flags, XDPBR_PORT_DOWN | XDPBR_PORT_HAIRPIN);
	assert_int_equal(p.max_learned, 100);
	assert_int_equal(p.slot, 3);
	assert_int_equal(p.pvid, 7);
	settings_port_put(&s, ~0ULL, &p);	/* the file's: defaults where not given */
	assert_int_equal(p.flags, XDPBR_PORT_DOWN | (XDPBR_PORT_DEFAULT_FLAGS &
						     ~XDPBR_PORT_LEARNING));
	settings_storm_put(&s, s.given, pps);
	assert_true(pps[0] == 1 && pps[1] == 50 && pps[2] == 3);
	settings_storm_put(&s, ~0ULL, pps);
	assert_true(pps[0] == 0 && pps[1] == 50 && pps[2] == 0);

	settings_config_put(&s, s.given, &c);	/* neither given */
	assert_true(c.ageing_ns == 1 && c.fdb_max_learned == 2);
	setting_set(&s, SET_AGEING_TIME, 0);
	setting_set(&s, SET_FDB_MAX_LEARNED, 10);
	settings_config_put(&s, s.given, &c);
	assert_true(c.ageing_ns == XDPBR_AGEING_NEVER && c.fdb_max_learned == 10);
	setting_set(&s, SET_AGEING_TIME, 60);
	settings_config_put(&s, s.given, &c);
	assert_true(c.ageing_ns == 60 * XDPBR_NSEC_PER_SEC && c.default_pvid == 5);
}

/* Same settings: by the value in use for a row with a constant default,
 * by whether and what was given for one without. */
static void test_same(void **state)
{
	struct settings a = { 0 }, b = { 0 };

	setting_set(&a, SET_LEARNING, 1);		/* the default, given */
	assert_true(setting_same(&a, &b, SET_LEARNING));
	assert_true(settings_same(&a, &b, SETTING_PORT, SETTING_AT_PORT));
	setting_set(&b, SET_MAX_LEARNED, 5);
	assert_false(settings_same(&a, &b, SETTING_PORT, SETTING_AT_PORT));
	assert_true(settings_same(&a, &b, SETTING_PORT, SETTING_AT_STORM));
	setting_set(&a, SET_PVID, 0);			/* "none", given */
	assert_false(setting_same(&a, &b, SET_PVID));	/* not the bridge's default */
	setting_set(&b, SET_PVID, 0);
	assert_true(setting_same(&a, &b, SET_PVID));
	b.v[SET_PVID] = 3;
	assert_false(settings_same(&a, &b, SETTING_PORT, SETTING_AT_VLAN));
	assert_true(settings_same(&a, &b, SETTING_BRIDGE, SETTING_AT_VLAN));
}

/* ------------------------------------------------------------ the man pages */

#define MAN_LINES 2048

struct man {
	char *text;			/* the file, its lines cut at '\n' */
	char *line[MAN_LINES];
	int n;
};

static void man_load(struct man *m, const char *path)
{
	FILE *f = fopen(path, "re");
	long len;

	if (!f)
		fail_msg("%s: can't open it (the tests run from the source tree)", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	rewind(f);
	m->text = calloc(1, (size_t)len + 1);
	assert_non_null(m->text);
	assert_int_equal(fread(m->text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	m->n = 0;
	for (char *p = m->text, *nl; *p && m->n < MAN_LINES; p = nl + 1) {
		m->line[m->n++] = p;
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
	}
}

/* The text of lines from..to (exclusive) as a reader sees it: font escapes
 * (\fB, \fR, \fP, \fI) and quotes gone, \- a '-', lines joined by spaces. */
static void man_text(const struct man *m, int from, int to, char *out, size_t len)
{
	size_t k = 0;

	for (int i = from; i < to; i++) {
		for (const char *p = m->line[i]; *p && k + 2 < len; p++) {
			if (p[0] == '\\' && p[1] == 'f' && p[2]) {
				p += 2;
				continue;
			}
			if (p[0] == '\\' && p[1] == '-')
				p++;
			if (*p != '"')
				out[k++] = *p;
		}
		if (k + 2 < len)
			out[k++] = ' ';
	}
	out[k] = '\0';
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The line of a list entry's end: the next .TP, .SS, .SH or .PP. */
static int entry_end(const struct man *m, int i)
{
	for (i++; i < m->n; i++)
		if (starts(m->line[i], ".TP") || starts(m->line[i], ".SS") ||
		    starts(m->line[i], ".SH") || starts(m->line[i], ".PP"))
			break;
	return i;
}

/* word as a whole word in text, case-insensitive when fold. */
static const char *find_word(const char *text, const char *word, bool fold)
{
	size_t n = strlen(word);

	for (const char *p = text; *p; p++) {
		if ((fold ? strncasecmp(p, word, n) : strncmp(p, word, n)) ||
		    (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
			continue;
		if (!isalnum((unsigned char)p[n]) && p[n] != '_')
			return p;
	}
	return NULL;
}

/* "default D" (or "Default: D") somewhere in text; D NULL: any default. */
static bool says_default(const char *text, const char *d)
{
	for (const char *p = text; (p = find_word(p, "default", true)); p++) {
		const char *q = p + strlen("default");

		while (*q == ':' || *q == ' ')
			q++;
		if (!d || (!strncmp(q, d, strlen(d)) && !isalnum((unsigned char)q[strlen(d)])))
			return true;
	}
	return false;
}

/* The keys an entry's tag line names: .B KEY, or the bold words of .BR
 * and .BI (every other token, quoted ones are text). */
static int tag_keys(const char *tag, char keys[][32], int max)
{
	int n = 0, tok = 0;
	const char *p = tag;

	if (!starts(p, ".B ") && !starts(p, ".BR ") && !starts(p, ".BI "))
		return 0;
	p = strchr(p, ' ');
	while (p && *p && n < max) {
		const char *start;
		size_t len;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (*p == '"') {
			start = ++p;
			p = strchr(p, '"');
			len = p ? (size_t)(p - start) : strlen(start);
			p = p ? p + 1 : NULL;
		} else {
			start = p;
			len = strcspn(p, " ");
			p += len;
		}
		if (tok++ % 2 == 0 && len < 32 && strspn(start, "abcdefghijklmnopqrstuvwxyz_") == len) {
			memcpy(keys[n], start, len);
			keys[n++][len] = '\0';
		}
		if (starts(tag, ".B "))
			break;
	}
	return n;
}

/* A number of row s that takes steps (priorities) says them: "steps of N". */
static bool says_step(const struct setting *s, const char *text)
{
	char steps[48];

	if (s->type != SETTING_NUM || s->step <= 1)
		return true;
	snprintf(steps, sizeof(steps), "steps of %llu", (unsigned long long)s->step);
	return strstr(text, steps) != NULL;
}

struct conf_entry {
	char key[32];
	int from, to;
};

/* The keys of the entries of section title of xdpbrd.conf(5). */
static int conf_entries(const struct man *m, const char *title, struct conf_entry *e, int max)
{
	int n = 0, i = 0;

	while (i < m->n && strcmp(m->line[i], title))
		i++;
	if (i == m->n)
		fail_msg("no section '%s' in man/xdpbrd.conf.5", title);
	for (i++; i < m->n && !starts(m->line[i], ".SS") && !starts(m->line[i], ".SH"); i++) {
		char keys[16][32];
		int k;

		if (!starts(m->line[i], ".TP") || i + 1 >= m->n)
			continue;
		k = tag_keys(m->line[i + 1], keys, 16);
		for (int j = 0; j < k && n < max; j++, n++) {
			snprintf(e[n].key, sizeof(e[n].key), "%s", keys[j]);
			e[n].from = i + 1;
			e[n].to = entry_end(m, i + 1);
		}
	}
	return n;
}

/* xdpbrd.conf(5) documents every row the file takes, in its section, with
 * its range and default; and no key that is no row. */
static void check_conf_section(const struct man *m, const char *title,
			       enum setting_scope scope)
{
	static struct conf_entry e[64];
	static char text[16384];
	int n = conf_entries(m, title, e, 64);
	char range[48], def[32];

	for (int j = 0; j < n; j++)
		if (!setting_find(scope, SETTING_FILE, e[j].key))
			fail_msg("%s: the man page has key %s, no row of lib/settings.c", title,
				 e[j].key);
	for (int i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i];
		const char *d;
		int j;

		if (s->scope != scope || !(s->in & SETTING_FILE))
			continue;
		for (j = 0; j < n && strcmp(e[j].key, s->name); j++)
			;
		if (j == n)
			fail_msg("%s: %s is not documented in man/xdpbrd.conf.5", title, s->name);
		man_text(m, e[j].from, e[j].to, text, sizeof(text));
		snprintf(range, sizeof(range), "%llu..%llu", (unsigned long long)s->min,
			 (unsigned long long)s->max);
		if (s->type == SETTING_NUM && !strstr(text, range))
			fail_msg("%s: %s: the man page does not give its range %s:\n%s", title,
				 s->name, range, text);
		if (!says_step(s, text))
			fail_msg("%s: %s: the man page does not give its steps of %llu:\n%s",
				 title, s->name, (unsigned long long)s->step, text);
		d = setting_default(s, def, sizeof(def));
		if (d && !says_default(text, s->def_text ? NULL : d))
			fail_msg("%s: %s: the man page does not say its default (%s):\n%s",
				 title, s->name, d, text);
	}
}

/* The words of xdpbr(8)'s entries of a command (bridge set, link set dev),
 * with the paragraphs that follow them. */
static void cli_entries(const struct man *m, const char *cmd, char *text, size_t len,
			char *synopsis, size_t slen)
{
	char tag[64];
	size_t k = 0, ks = 0;

	snprintf(tag, sizeof(tag), ".BI \"%s\"", cmd);
	text[0] = synopsis[0] = '\0';
	for (int i = 0; i < m->n; i++) {
		if (!starts(m->line[i], tag) || k >= len)
			continue;
		man_text(m, i, entry_end(m, i), text + k, len - k);
		k += strlen(text + k);
		if (ks < slen)
			ks += (size_t)snprintf(synopsis + ks, slen - ks, "%s\n", m->line[i]);
	}
	if (!k)
		fail_msg("no entry '%s' in man/xdpbr.8", tag);
}

/* The keywords of a synopsis: the words after "[\fP" or "|\fP" that are no
 * value (on, off, ...); each is one the CLI takes. */
static void check_cli_synopsis(const char *synopsis, enum setting_scope scope)
{
	static const char *const values[] = { "on", "off", "auto", "reset", "dev", "storm" };

	for (const char *p = synopsis; (p = strstr(p, "\\fP")); p += 3) {
		char w[32];
		size_t n = strspn(p + 3, "abcdefghijklmnopqrstuvwxyz_");
		bool known = false;

		if (p == synopsis || (p[-1] != '[' && p[-1] != '|') || !n || n >= sizeof(w))
			continue;
		memcpy(w, p + 3, n);
		w[n] = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(values); i++)
			known |= !strcmp(w, values[i]);
		for (int i = 0; i < SET__N; i++) {
			const struct setting *s = &settings[i];
			const char *cli = s->cli ? strchr(s->cli, ' ') + 1 : s->name;

			known |= s->scope == scope && (s->in & SETTING_CLI) && !strcmp(cli, w);
		}
		if (!known)
			fail_msg("man/xdpbr.8 has keyword %s, which the CLI does not take", w);
	}
}

/* xdpbr(8) documents every setting the CLI takes, with its range; its
 * synopses name no other. */
static void check_cli_command(const struct man *m, const char *cmd, enum setting_scope scope)
{
	static char text[32768], synopsis[4096];
	char range[48];

	cli_entries(m, cmd, text, sizeof(text), synopsis, sizeof(synopsis));
	check_cli_synopsis(synopsis, scope);
	for (int i = 0; i < SET__N; i++) {
		const struct setting *s = &settings[i];
		const char *word = s->cli ? strchr(s->cli, ' ') + 1 : s->name;

		if (s->scope != scope || !(s->in & SETTING_CLI))
			continue;
		if (!find_word(text, word, false))
			fail_msg("xdpbr(8) %s: %s is not documented", cmd, word);
		snprintf(range, sizeof(range), "%llu..%llu", (unsigned long long)s->min,
			 (unsigned long long)s->max);
		if (s->type == SETTING_NUM && !strstr(text, range))
			fail_msg("xdpbr(8) %s: %s: no range %s", cmd, word, range);
		if (!says_step(s, text))
			fail_msg("xdpbr(8) %s: %s: no steps of %llu", cmd, word,
				 (unsigned long long)s->step);
	}
}

static void test_man_pages(void **state)
{
	struct man conf, cli;

	man_load(&conf, "man/xdpbrd.conf.5");
	check_conf_section(&conf, ".SS [bridge]", SETTING_BRIDGE);
	check_conf_section(&conf, ".SS [port \\fIifname\\fP]", SETTING_PORT);
	free(conf.text);
	man_load(&cli, "man/xdpbr.8");
	check_cli_command(&cli, "bridge set", SETTING_BRIDGE);
	check_cli_command(&cli, "link set dev", SETTING_PORT);
	free(cli.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_whole),
		cmocka_unit_test(test_rows_consistent),
		cmocka_unit_test(test_rows_homes),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_texts),
		cmocka_unit_test(test_put),
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_man_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_config.c - libFuzzer harness for xdpbrd's configuration parser
 * (daemon/config.c).
 *
 * Each input is a configuration file. It is parsed twice, the ways xdpbrd
 * does: as a string (config_parse_string) and as a file (config_parse_file,
 * on a memfd), and checked:
 *  - no crash, no leak (ASan/LSan), no undefined behaviour (UBSan);
 *  - the two parses agree: same result, same struct, same message (a NUL
 *    byte ends the string but is an error in the file, so inputs with one
 *    are only parsed, not compared);
 *  - on error: -EINVAL (or -ENOMEM), a message "NAME:LINE: ..." with LINE
 *    one of the input's lines, and the struct left zeroed;
 *  - on success: an empty message and a struct that keeps the promises of
 *    daemon/config.h: every value a row of lib/settings.c allows it (its
 *    scope, range, step, words), "not given" means zero, a valid bridge
 *    name and listen address, at most 63 ports with valid and distinct
 *    interface names in file order, statics unicast and non-zero with a VLAN in range and
 *    never two for one {vlan, MAC}, VLAN bitmaps within 1..4094 with no
 *    VLAN both tagged and untagged, a non-zero PVID a member, and every
 *    port equal to itself (config_port_equal).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "ports.h"
#include "settings.h"
#include "util.h"
#include "xdpbr_rules.h"
#include "fuzz_common.h"

static int memfd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	memfd = memfd_create("fuzz.conf", MFD_CLOEXEC);
	if (memfd < 0)
		fz_setup_failed("memfd_create: %s", strerror(errno));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

static bool ifname_ok(const char *s)
{
	size_t n = strnlen(s, 16);

	if (n == 0 || n > 15 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isgraph((unsigned char)s[i]) || s[i] == '/' || s[i] == ':')
			return false;
	return true;
}

static bool bit(const __u64 *map, unsigned int vid)
{
	return map[vid / 64] >> (vid % 64) & 1;
}

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

#define CHECK(cond, ...) do { if (!(cond)) fz_fail(__VA_ARGS__); } while (0)

/* What a text row's reader may leave in its value. */
static bool text_value_ok(enum setting_id id, uint64_t v)
{
	switch (id) {
	case SET_MODE:
		return v == XDPBR_MODE_NONE || v == XDPBR_MODE_NATIVE || v == XDPBR_MODE_GENERIC;
	case SET_DATAPATH:
	case SET_PORT_DATAPATH:
		return v == PORT_PATH_AUTO || v == PORT_PATH_XDP || v == PORT_PATH_TC;
	default:
		return v == 0;
	}
}

/* The values of a section (where): only rows of its scope that the file
 * takes are given, each with a value its row allows; the others are 0. */
static void check_values(const struct settings *s, enum setting_scope scope,
			 const char *where)
{
	CHECK(!s->acted, "%s: an action of the CLI's", where);
	for (int i = 0; i < SET__N; i++) {
		const struct setting *r = &settings[i];
		uint64_t v = s->v[i];

		if (!setting_given(s, (enum setting_id)i)) {
			CHECK(!v, "%s: %s not given, and %llu", where, r->name,
			      (unsigned long long)v);
			continue;
		}
		CHECK(r->scope == scope && (r->in & SETTING_FILE), "%s: %s given", where,
		      r->name);
		if (r->type == SETTING_NUM)
			CHECK(!setting_check(r, v), "%s: %s %llu", where, r->name,
			      (unsigned long long)v);
		else if (r->type == SETTING_BOOL)
			CHECK(v <= (r->also ? 2 : 1), "%s: %s %llu", where, r->name,
			      (unsigned long long)v);
		else
			CHECK(text_value_ok((enum setting_id)i, v), "%s: %s %llu", where,
			      r->name, (unsigned long long)v);
	}
}

static void check_port(const struct config *c, size_t i)
{
	const struct config_port *p = &c->ports[i];
	unsigned int pvid = (unsigned int)p->set.v[SET_PVID];

	CHECK(ifname_ok(p->name), "port %zu: name '%.16s' is not a valid interface name", i,
	      p->name);
	CHECK(config_port_find(c, p->name) == p, "port %s: config_port_find finds another",
	      p->name);
	CHECK(config_port_equal(p, p), "port %s: not equal to itself", p->name);
	check_values(&p->set, SETTING_PORT, p->name);
	CHECK(setting_given(&p->set, SET_STATIC) == !!p->nstatics, "port %s: static given, "
	      "%zu statics", p->name, p->nstatics);
	CHECK(p->line >= 1, "port %s: line %d", p->name, p->line);
	CHECK(i == 0 || p->line > c->ports[i - 1].line, "port %s: not in file order", p->name);
	CHECK(!p->nstatics || p->statics, "port %s: %zu statics and no array", p->name,
	      p->nstatics);
	for (size_t j = 0; j < p->nstatics; j++) {
		const struct config_static *st = &p->statics[j];
		static const uint8_t zero[6];
		char m[MAC_STRLEN];

		mac_format(st->mac, m);
		CHECK(!(st->mac[0] & 1), "port %s: static %s is multicast", p->name, m);
		CHECK(memcmp(st->mac, zero, 6), "port %s: static %s is zero", p->name, m);
		CHECK(st->vlan <= XDPBR_VLAN_MAX, "port %s: static %s vlan %u", p->name, m,
		      st->vlan);
		CHECK(st->line > p->line, "port %s: static %s on line %d, header on %d", p->name,
		      m, st->line, p->line);
		for (size_t k = 0; k <= i; k++) {
			const struct config_port *q = &c->ports[k];

			for (size_t l = 0; l < (k == i ? j : q->nstatics); l++)
				CHECK(q->statics[l].vlan != st->vlan ||
				      memcmp(q->statics[l].mac, st->mac, 6),
				      "static %s vlan %u on both %s and %s", m, st->vlan, q->name,
				      p->name);
		}
	}
	CHECK(config_port_vlans_set(p) || (all_zero(p->vlans, sizeof(p->vlans)) &&
					    all_zero(p->untagged, sizeof(p->untagged))),
	      "port %s: VLANs without vlans/untagged", p->name);
	for (unsigned int w = 0; w < XDPBR_VLAN_WORDS; w++)
		CHECK(!(p->vlans[w] & p->untagged[w]), "port %s: a VLAN in %u..%u is both "
		      "tagged and untagged", p->name, w * 64, w * 64 + 63);
	CHECK(!bit(p->vlans, 0) && !bit(p->untagged, 0) && !bit(p->vlans, 4095) &&
	      !bit(p->untagged, 4095), "port %s: VLAN 0 or 4095 is a member", p->name);
	CHECK(!pvid || bit(p->vlans, pvid) || bit(p->untagged, pvid),
	      "port %s: pvid %u is not a member", p->name, pvid);
}

static void check_config(const struct config *c)
{
	struct sockaddr_storage sa;
	socklen_t salen;

	CHECK(memchr(c->name, 0, sizeof(c->name)), "name not terminated");
	CHECK(!c->name[0] || !bridge_name_valid(c->name), "name '%s' is not a bridge name",
	      c->name);
	check_values(&c->set, SETTING_BRIDGE, "[bridge]");
	CHECK(setting_given(&c->set, SET_MAC) ? xdpbr_mac_station(c->mac) :
	      all_zero(c->mac, sizeof(c->mac)), "mac");
	CHECK(memchr(c->listen, 0, sizeof(c->listen)), "listen not terminated");
	CHECK(!c->listen[0] || !config_listen_parse(c->listen, &sa, &salen),
	      "listen '%s' does not parse", c->listen);
	CHECK(c->nports <= XDPBR_PORTS_PER_BRIDGE, "%zu ports", c->nports);
	CHECK(!c->nports || c->ports, "%zu ports and no array", c->nports);
	for (size_t i = 0; i < c->nports; i++)
		check_port(c, i);
}

/* Both parses gave the same configuration. */
static void check_same(const struct config *a, const struct config *b)
{
	CHECK(!strcmp(a->name, b->name) && !memcmp(&a->set, &b->set, sizeof(a->set)) &&
	      !strcmp(a->listen, b->listen) && !memcmp(a->mac, b->mac, sizeof(a->mac)) &&
	      !memcmp(&a->stp, &b->stp, sizeof(a->stp)) && a->nports == b->nports,
	      "string and file parses differ in [bridge] or the number of ports");
	for (size_t i = 0; i < a->nports; i++)
		CHECK(config_port_equal(&a->ports[i], &b->ports[i]) &&
		      a->ports[i].line == b->ports[i].line,
		      "string and file parses differ in port %zu (%s)", i, a->ports[i].name);
}

static void check_error(int ret, const char *err, const struct config *c, size_t nlines)
{
	size_t n = strlen(path);
	char *end;
	long line;

	CHECK(ret == -EINVAL || ret == -ENOMEM, "error %d (%s)", ret, strerror(-ret));
	CHECK(all_zero(c, sizeof(*c)), "error, and the struct is not zeroed");
	CHECK(!strncmp(err, path, n) && err[n] == ':', "message '%s' does not start with the "
	      "name", err);
	if (ret != -EINVAL)
		return;
	line = strtol(err + n + 1, &end, 10);
	CHECK(end != err + n + 1 && *end == ':' && end[1] == ' ' && line >= 1 &&
	      (size_t)line <= nlines, "message '%s': not NAME:LINE: with a line in 1..%zu",
	      err, nlines);
	CHECK(end[2], "message '%s' says nothing", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config cs, cf;
	char es[1024], ef[1024];
	char *text = malloc(size + 1);
	bool has_nul = memchr(data, 0, size) != NULL;
	size_t nlines = 1;
	int rs, rf;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t i = 0; i + 1 < size; i++)	/* a final '\n' starts no line */
		nlines += data[i] == '\n';

	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		fz_setup_failed("writing the memfd: %s", strerror(errno));

	memset(&cs, 0xa5, sizeof(cs));		/* "overwritten, not freed" */
	memset(&cf, 0xa5, sizeof(cf));
	memset(es, 'x', sizeof(es));
	memset(ef, 'x', sizeof(ef));
	rs = config_parse_string(path, text, &cs, es, sizeof(es));
	rf = config_parse_file(path, &cf, ef, sizeof(ef));
	CHECK(memchr(es, 0, sizeof(es)) && memchr(ef, 0, sizeof(ef)),
	      "message not terminated");

	if (rs)
		check_error(rs, es, &cs, nlines);
	else {
		CHECK(!es[0], "success with message '%s'", es);
		check_config(&cs);
	}
	if (rf)
		check_error(rf, ef, &cf, nlines);
	else {
		CHECK(!ef[0], "success with message '%s'", ef);
		check_config(&cf);
	}
	if (!has_nul) {
		CHECK(rs == rf, "string parse %d ('%s'), file parse %d ('%s')", rs, es, rf, ef);
		CHECK(!strcmp(es, ef), "string parse says '%s', file parse '%s'", es, ef);
		if (!rs)
			check_same(&cs, &cf);
	}
	if (!rs)
		config_free(&cs);
	if (!rf)
		config_free(&cf);
	CHECK(all_zero(&cs, sizeof(cs)) && all_zero(&cf, sizeof(cf)),
	      "config_free left the struct non-zero");
	free(text);
	return 0;
}

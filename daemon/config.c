// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * config.c - xdpbrd's INI configuration file (format in config.h and
 * etc/xdpbrd.conf).
 *
 * inih splits "key = value" lines and strips comments; this file feeds it
 * through a line reader of its own (ini_parse_stream) because of what
 * Debian's libinih (55, default options) does not give us:
 *
 *  - the handler has no line number (INI_HANDLER_LINENO is 0 and the library
 *    is built that way; defining it here would break the ABI): the reader
 *    counts lines, one per call, so the handler knows its line;
 *  - the handler is not called on a section header, so an empty [port X]
 *    or a duplicate header would go unseen: the reader parses headers itself;
 *  - INI_ALLOW_MULTILINE: an indented line continues the previous key's value
 *    ("  flood = off" after "learning = on" gives learning "flood = off"):
 *    the reader strips leading whitespace, so every line stands alone;
 *  - a line longer than INI_MAX_LINE (200) is silently split in two, the rest
 *    parsed as a line of its own, and text after "[section]" is ignored: the
 *    reader rejects both (comments are exempt from the length limit: inih
 *    gets an empty line for them);
 *  - "key: value" is accepted as "key = value": the reader requires '=' (a
 *    forgotten '=' in "static 02:00:..." would otherwise become key "static 02").
 *
 * Inline comments are inih's: ';' preceded by whitespace. '#' only starts a
 * comment at the beginning of a line. Values are not unquoted.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "stpmap.h"
#include "ports.h"
#include "util.h"
#include "xdpbr_rules.h"

enum section { SEC_NONE, SEC_BRIDGE, SEC_PORT, SEC_VXLAN };

struct parser;

/* How a row's value is read (its type's reader, or a text row's own). */
typedef int row_reader(struct parser *p, const struct setting *s, const char *value);

/* The keys of [vxlan]: the overlay's, no bridge or port setting. */
struct vxlan_key {
	const char *name;
	int (*set)(struct parser *p, const char *name, const char *value);
};

#define MAX_KEYS 64

struct parser {
	const char *file;		/* for messages */
	FILE *f;			/* the source: a file, */
	const char *s;			/* or the rest of a string */
	char *line;			/* the current raw line */
	size_t cap;
	int lineno;
	struct config *c;
	enum section sec;
	size_t port;			/* current port (SEC_PORT) */
	char where[32];			/* "[bridge]" or "[port eth1]" */
	int bridge_line;		/* line of [bridge], 0 if none yet */
	int key_line[MAX_KEYS];		/* first line of each key in this section,
					 * by row (by vxlan_keys[] in [vxlan]) */
	int err;			/* first error: -EINVAL, -errno */
	int err_line;
	char msg[512];
};
_Static_assert(SET__N <= MAX_KEYS, "key_line too small");

__attribute__((format(printf, 4, 5)))
static int fail_at(struct parser *p, int err, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->err)			/* the first error is the one reported */
		return p->err;
	if (line > 0)
		n = snprintf(p->msg, sizeof(p->msg), "%s:%d: ", p->file, line);
	else
		n = snprintf(p->msg, sizeof(p->msg), "%s: ", p->file);
	if (n < 0 || (size_t)n >= sizeof(p->msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(p->msg + n, sizeof(p->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	p->err = err;
	p->err_line = line;
	return err;
}

#define fail(p, ...) fail_at(p, -EINVAL, (p)->lineno, __VA_ARGS__)

static struct config_port *cur_port(struct parser *p)
{
	return &p->c->ports[p->port];
}

/* The values of the section being read: the bridge's or the port's. */
static struct settings *cur_set(struct parser *p)
{
	return p->sec == SEC_PORT ? &cur_port(p)->set : &p->c->set;
}

/* --- values --- */

static int get_u64(struct parser *p, const char *name, const char *value,
		   uint64_t min, uint64_t max, uint64_t *out)
{
	int err = parse_u64(value, max, out);

	if (err == -EINVAL)
		return fail(p, "%s: '%s' is not a number", name, value);
	if (err || *out < min)
		return fail(p, "%s: %s is out of range (%llu..%llu)", name, value,
			    (unsigned long long)min, (unsigned long long)max);
	return 0;
}

/* on/yes/true/1 or off/no/false/0, any case: 1, 0, or -EINVAL unsaid. */
static int bool_word(const char *value)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(value, yes[i]))
			return 1;
		if (!strcasecmp(value, no[i]))
			return 0;
	}
	return -EINVAL;
}

/* A number row: its range, its step, its own rule (lib/settings.c). */
static int read_num(struct parser *p, const struct setting *s, const char *value)
{
	uint64_t v;
	int err;

	if (get_u64(p, s->name, value, s->min, s->max, &v))
		return p->err;
	err = setting_check(s, v);
	if (err == -EDOM)
		return fail(p, "%s: %s is not a multiple of %llu (0, %llu, ... %llu%s%s)",
			    s->name, value, (unsigned long long)s->step,
			    (unsigned long long)s->step, (unsigned long long)s->max,
			    s->hint ? "; " : "", s->hint ? s->hint : "");
	if (err)
		return fail(p, "%s: %s is not %s", s->name, value, s->valid_text);
	setting_set(cur_set(p), setting_id_of(s), v);
	return 0;
}

/* An on/off row; with a third word (edge: auto), that word is 2. */
static int read_bool(struct parser *p, const struct setting *s, const char *value)
{
	int v = s->also && !strcasecmp(value, s->also) ? 2 : bool_word(value);

	if (v < 0 && s->also)
		return fail(p, "%s: '%s' is not on, off or %s", s->name, value, s->also);
	if (v < 0)
		return fail(p, "%s: '%s' is not a boolean (on/off, yes/no, true/false, 1/0)",
			    s->name, value);
	setting_set(cur_set(p), setting_id_of(s), (uint64_t)v);
	return 0;
}

/* Listen address: why it is wrong, or NULL when it is right. */
static const char *listen_check(const char *s, struct sockaddr_storage *sa,
				socklen_t *salen)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)sa;
	char addr[INET6_ADDRSTRLEN];
	const char *colon, *start = s;
	uint64_t port;
	size_t n;
	bool v6 = s[0] == '[';

	if (v6) {
		const char *close = strchr(s, ']');

		if (!close)
			return "no ']' after the IPv6 address";
		start = s + 1;
		n = (size_t)(close - start);
		colon = close + 1;
		if (*colon != ':')
			return "no ':PORT' after ']'";
	} else {
		colon = strchr(s, ':');
		if (!colon)
			return "no ':PORT'";
		if (strchr(colon + 1, ':'))
			return "an IPv6 address goes in brackets: [ADDR]:PORT";
		n = (size_t)(colon - s);
	}
	if (n == 0)
		return "no address";
	if (n >= sizeof(addr))
		return v6 ? "not an IPv6 address" : "not an IPv4 address";
	memcpy(addr, start, n);
	addr[n] = '\0';
	if (parse_u64(colon + 1, 65535, &port) || port == 0)
		return "the port is not a number in 1..65535";

	memset(sa, 0, sizeof(*sa));
	if (v6) {
		if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) != 1)
			return "not an IPv6 address";
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		*salen = sizeof(*sin6);
	} else {
		if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1)
			return "not an IPv4 address";
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		*salen = sizeof(*sin);
	}
	return NULL;
}

bool config_listen_none(const char *s)
{
	return s && !strcmp(s, CONFIG_LISTEN_NONE);
}

int config_listen_parse(const char *s, struct sockaddr_storage *sa, socklen_t *salen)
{
	if (config_listen_none(s)) {
		memset(sa, 0, sizeof(*sa));	/* AF_UNSPEC */
		*salen = 0;
		return 0;
	}
	return s && !listen_check(s, sa, salen) ? 0 : -EINVAL;
}

/* --- the text rows of [bridge] --- */

static int set_name(struct parser *p, const struct setting *s, const char *value)
{
	if (bridge_name_valid(value))
		return fail(p, "name: '%s' is not a valid bridge name (1-15 characters "
			    "of letters, digits, '_', '.', '-')", value);
	snprintf(p->c->name, sizeof(p->c->name), "%s", value);
	return 0;
}

static int set_mode(struct parser *p, const struct setting *s, const char *value)
{
	enum xdpbr_mode mode;

	if (port_mode_parse(value, &mode))
		return fail(p, "mode: '%s' is not native, generic or auto", value);
	setting_set(&p->c->set, SET_MODE, mode);
	return 0;
}

/* datapath = auto | xdp | tc, in [bridge] (the default) or [port X]. */
static int set_datapath(struct parser *p, const struct setting *s, const char *value)
{
	enum port_path path;

	if (port_path_parse(value, &path))
		return fail(p, "datapath: '%s' is not auto, xdp or tc", value);
	setting_set(cur_set(p), setting_id_of(s), path);
	return 0;
}

static int set_mac(struct parser *p, const struct setting *s, const char *value)
{
	if (mac_parse(value, p->c->mac) || !xdpbr_mac_station(p->c->mac))
		return fail(p, "mac: '%s' is not a unicast MAC address (like 02:00:5e:00:53:01)",
			    value);
	return 0;
}

static int set_listen(struct parser *p, const struct setting *s, const char *value)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	const char *why;

	if (strlen(value) >= sizeof(p->c->listen))
		why = "too long";
	else if (config_listen_none(value))	/* no endpoint, as -l none */
		why = NULL;
	else
		why = listen_check(value, &sa, &salen);
	if (why)
		return fail(p, "listen: '%s': %s (expected ADDR:PORT, [IPv6]:PORT "
			    "or none, e.g. " CONFIG_LISTEN_DEFAULT ")", value, why);
	snprintf(p->c->listen, sizeof(p->c->listen), "%s", value);
	return 0;
}

/* --- spanning tree --- */

void config_stp_effective(const struct config_stp *in, struct config_stp *out)
{
	*out = *in;
	if (!in->priority_set)
		out->priority = CONFIG_STP_PRIORITY;
	out->priority_set = true;
	out->hello_time = in->hello_time ? in->hello_time : CONFIG_STP_HELLO;
	out->max_age = in->max_age ? in->max_age : CONFIG_STP_MAX_AGE;
	out->forward_delay = in->forward_delay ? in->forward_delay : CONFIG_STP_FWD_DELAY;
}

/* [bridge]'s spanning tree rows as xdpbrd's spanning tree takes them: a
 * timer not given is 0. */
static void stp_of(const struct settings *s, struct config_stp *out)
{
	*out = (struct config_stp){
		.on = setting_value(s, SET_STP),
		.priority_set = setting_given(s, SET_PRIORITY),
		.priority = setting_given(s, SET_PRIORITY) ? (uint16_t)s->v[SET_PRIORITY] : 0,
		.hello_time = setting_given(s, SET_HELLO_TIME) ? (unsigned int)s->v[SET_HELLO_TIME] : 0,
		.max_age = setting_given(s, SET_MAX_AGE) ? (unsigned int)s->v[SET_MAX_AGE] : 0,
		.forward_delay = setting_given(s, SET_FORWARD_DELAY) ?
				 (unsigned int)s->v[SET_FORWARD_DELAY] : 0,
	};
}

void config_stp_port(const struct config_port *cp, bool host, struct stp_port_cfg *out)
{
	static const struct settings none;
	const struct settings *s = cp ? &cp->set : &none;

	*out = (struct stp_port_cfg){
		.path_cost = (uint32_t)setting_value(s, SET_PATH_COST),
		.priority = (uint8_t)setting_value(s, SET_PORT_PRIORITY),
		.edge = setting_given(s, SET_EDGE) ? (enum stp_edge)s->v[SET_EDGE] :
			host ? STP_EDGE_ON : STP_EDGE_AUTO,
		.bpdu_guard = setting_value(s, SET_BPDU_GUARD),
		.root_guard = setting_value(s, SET_ROOT_GUARD),
		.bpdu_guard_timeout = (uint32_t)setting_value(s, SET_BPDU_GUARD_TIMEOUT),
	};
}

/* --- static entries --- */

static void static_label(const struct config_static *st, char *buf, size_t len)
{
	char mac[MAC_STRLEN];

	mac_format(st->mac, mac);
	if (st->vlan)
		snprintf(buf, len, "%s vlan %u", mac, st->vlan);
	else
		snprintf(buf, len, "%s", mac);
}

/* "MAC [vlan ID]" into st; 0 or the error. tokens is modified. */
static int static_parse(struct parser *p, const char *value, char *tokens,
			struct config_static *st)
{
	char *save, *mac, *kw, *vlan, *extra;
	char label[MAC_STRLEN];
	uint64_t v = 0;
	int err;

	mac = strtok_r(tokens, " \t", &save);
	kw = strtok_r(NULL, " \t", &save);
	vlan = strtok_r(NULL, " \t", &save);
	extra = strtok_r(NULL, " \t", &save);
	if (!mac || (kw && (strcmp(kw, "vlan") || !vlan)) || extra)
		return fail(p, "static: expected 'MAC' or 'MAC vlan ID', got '%s'", value);
	if (mac_parse(mac, st->mac))
		return fail(p, "static: '%s' is not a MAC address", mac);
	mac_format(st->mac, label);
	if (!xdpbr_mac_station(st->mac))
		return fail(p, st->mac[0] & 1 ? "static: %s is a multicast address (static "
			    "entries must be unicast)" : "static: %s is the zero address", label);
	if (vlan) {
		err = parse_u64(vlan, XDPBR_VLAN_MAX, &v);
		if (err == -EINVAL)
			return fail(p, "static: vlan '%s' is not a number", vlan);
		if (err)
			return fail(p, "static: vlan %s is out of range (0..%d)", vlan,
				    XDPBR_VLAN_MAX);
	}
	st->vlan = (uint16_t)v;
	st->line = p->lineno;
	return 0;
}

/* The FDB holds one entry per {vlan, MAC}: a second static for it, on this
 * port or another, is an error rather than a silent overwrite. */
static int static_unique(struct parser *p, const struct config_static *st)
{
	char label[MAC_STRLEN + 16];

	for (size_t i = 0; i < p->c->nports; i++) {
		const struct config_port *port = &p->c->ports[i];

		for (size_t j = 0; j < port->nstatics; j++) {
			const struct config_static *o = &port->statics[j];

			if (o->vlan != st->vlan || memcmp(o->mac, st->mac, 6))
				continue;
			static_label(st, label, sizeof(label));
			if (i == p->port)
				return fail(p, "duplicate static %s in %s (first on line %d)",
					    label, p->where, o->line);
			return fail(p, "static %s is already on [port %s] (line %d)",
				    label, port->name, o->line);
		}
	}
	return 0;
}

static int add_static(struct parser *p, const struct setting *s, const char *value)
{
	struct config_port *port = cur_port(p);
	struct config_static st = { 0 }, *n;
	char *tokens = strdup(value);
	int err;

	if (!tokens)
		return fail_at(p, -ENOMEM, p->lineno, "out of memory");
	err = static_parse(p, value, tokens, &st);
	free(tokens);
	if (err || static_unique(p, &st))
		return p->err;
	n = realloc(port->statics, (port->nstatics + 1) * sizeof(*n));
	if (!n)
		return fail_at(p, -ENOMEM, p->lineno, "out of memory");
	n[port->nstatics++] = st;
	port->statics = n;
	return 0;
}

/* --- VLAN lists --- */

/* The lowest VLAN in both maps, or 0 (never a member) when none is. */
static unsigned int vlan_common(const __u64 *a, const __u64 *b)
{
	for (unsigned int w = 0; w < XDPBR_VLAN_WORDS; w++)
		if (a[w] & b[w])
			return w * 64 + (unsigned int)__builtin_ctzll(a[w] & b[w]);
	return 0;
}

/* The n characters at s as a VID: 0, -EINVAL (not only digits) or -ERANGE
 * (outside 1..XDPBR_VLAN_MAX). */
static int vid_parse(const char *s, size_t n, unsigned int *out)
{
	unsigned int v = 0;

	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		if (v <= XDPBR_VLAN_MAX)	/* past it, only "too big" matters */
			v = v * 10 + (unsigned int)(s[i] - '0');
	}
	if (v < 1 || v > XDPBR_VLAN_MAX)
		return -ERANGE;
	*out = v;
	return 0;
}

/* One list item, "VID" or "FIRST-LAST" (n characters at item), into map. */
static int vlan_item(struct parser *p, const char *name, const char *item, size_t n,
		     __u64 *map)
{
	const char *dash = memchr(item, '-', n);
	size_t n1 = dash ? (size_t)(dash - item) : n;
	const char *last = dash ? dash + 1 : item;
	size_t n2 = dash ? n - n1 - 1 : n;
	unsigned int from = 0, to = 0;
	int e1 = vid_parse(item, n1, &from), e2 = vid_parse(last, n2, &to);

	if (e1 == -EINVAL || e2 == -EINVAL)
		return fail(p, "%s: '%.*s' is not a VLAN ID or a FIRST-LAST range",
			    name, (int)n, item);
	if (e1)
		return fail(p, "%s: %.*s is out of range (1..%d)", name, (int)n1, item,
			    XDPBR_VLAN_MAX);
	if (e2)
		return fail(p, "%s: %.*s is out of range (1..%d)", name, (int)n2, last,
			    XDPBR_VLAN_MAX);
	if (from > to)
		return fail(p, "%s: range %.*s is reversed (FIRST-LAST, FIRST <= LAST)",
			    name, (int)n, item);
	for (unsigned int vid = from; vid <= to; vid++) {
		if (xdpbr_vlan_test(map, (__u16)vid))
			return fail(p, "%s: VLAN %u is listed twice", name, vid);
		xdpbr_vlan_set(map, (__u16)vid, 1);
	}
	return 0;
}

/*
 * "10,20-30, 40" into map (zeroed by the caller): VIDs and ascending ranges
 * in 1..XDPBR_VLAN_MAX, separated by commas, whitespace allowed around
 * them. suffix, if not NULL, is a word the list may end with, after
 * whitespace ("vlans = 10 tagged").
 */
static int vlan_list(struct parser *p, const char *name, const char *value,
		     const char *suffix, __u64 *map)
{
	const char *s = value, *item;
	size_t n;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		item = s;
		while (*s && *s != ',' && !isspace((unsigned char)*s))
			s++;
		n = (size_t)(s - item);
		if (n == 0)
			return fail(p, "%s: empty item in '%s' (expected VLAN IDs and "
				    "FIRST-LAST ranges separated by commas)", name, value);
		if (vlan_item(p, name, item, n, map))
			return p->err;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return 0;
		if (*s == ',') {
			s++;
			continue;
		}
		if (suffix && !strcmp(s, suffix))	/* a space came before it */
			return 0;
		return fail(p, "%s: unexpected '%s' after '%.*s' (VLANs are separated by "
			    "commas%s)", name, s, (int)n, item,
			    suffix ? "; only 'tagged' may follow the list" : "");
	}
}

/* "vlans" or "untagged" (row s): the list into map, where other (the other
 * row's map) must not have any of its VLANs. */
static int set_members(struct parser *p, const struct setting *s, const char *value,
		       const char *suffix, __u64 *map, const __u64 *other,
		       enum setting_id other_id)
{
	__u64 list[XDPBR_VLAN_WORDS] = { 0 };
	unsigned int vid;

	if (vlan_list(p, s->name, value, suffix, list))
		return p->err;
	vid = vlan_common(list, other);
	if (vid)
		return fail(p, "%s: VLAN %u is also in '%s' (line %d); a port is a tagged "
			    "or an untagged member of a VLAN, not both", s->name, vid,
			    settings[other_id].name, p->key_line[other_id]);
	memcpy(map, list, sizeof(list));
	return 0;
}

static int set_vlans(struct parser *p, const struct setting *s, const char *value)
{
	struct config_port *port = cur_port(p);

	return set_members(p, s, value, "tagged", port->vlans, port->untagged, SET_UNTAGGED);
}

static int set_untagged(struct parser *p, const struct setting *s, const char *value)
{
	struct config_port *port = cur_port(p);

	return set_members(p, s, value, NULL, port->untagged, port->vlans, SET_VLANS);
}

/* The readers of the text rows; the others are read by their type. */
static row_reader *const text_readers[SET__N] = {
	[SET_NAME] = set_name, [SET_MODE] = set_mode, [SET_DATAPATH] = set_datapath,
	[SET_LISTEN] = set_listen, [SET_MAC] = set_mac,
	[SET_PORT_DATAPATH] = set_datapath, [SET_STATIC] = add_static,
	[SET_VLANS] = set_vlans, [SET_UNTAGGED] = set_untagged,
};

static row_reader *reader_of(const struct setting *s)
{
	switch (s->type) {
	case SETTING_NUM:
		return read_num;
	case SETTING_BOOL:
		return read_bool;
	default:
		return text_readers[setting_id_of(s)];
	}
}

/* --- [vxlan] keys --- */

static bool ifname_valid(const char *s, size_t n);

static int set_vni(struct parser *p, const char *name, const char *value)
{
	uint64_t v;

	if (get_u64(p, name, value, 1, CONFIG_VNI_MAX, &v))
		return p->err;
	p->c->vxlan.vni = (uint32_t)v;
	return 0;
}

static int set_local_ip(struct parser *p, const char *name, const char *value)
{
	if (inet_pton(AF_INET, value, &p->c->vxlan.local_ip) != 1 ||
	    !p->c->vxlan.local_ip.s_addr || IN_MULTICAST(ntohl(p->c->vxlan.local_ip.s_addr)))
		return fail(p, "local_ip: '%s' is not a unicast IPv4 address (the VTEP "
			    "address, like 192.0.2.1)", value);
	return 0;
}

static int set_dstport(struct parser *p, const char *name, const char *value)
{
	uint64_t v;

	if (get_u64(p, name, value, 1, 65535, &v))
		return p->err;
	p->c->vxlan.dstport = (uint16_t)v;
	return 0;
}

static int set_underlay(struct parser *p, const char *name, const char *value)
{
	if (!ifname_valid(value, strlen(value)))
		return fail(p, "underlay: '%s' is not a valid interface name", value);
	snprintf(p->c->vxlan.underlay, sizeof(p->c->vxlan.underlay), "%s", value);
	return 0;
}

static const struct vxlan_key vxlan_keys[] = {
	{ .name = "vni", .set = set_vni },
	{ .name = "local_ip", .set = set_local_ip },
	{ .name = "dstport", .set = set_dstport },
	{ .name = "underlay", .set = set_underlay },
};

/* --- the end of a section --- */

/* The bridge's timers against each other (802.1D-2004 17.14), reported
 * at the last of the timer keys given. */
static int stp_timers_end(struct parser *p)
{
	static const enum setting_id timers[] = { SET_HELLO_TIME, SET_MAX_AGE,
						  SET_FORWARD_DELAY };
	struct config_stp e, *t = &e;
	const char *why;
	int line = 0;

	config_stp_effective(&p->c->stp, &e);
	why = stpmap_timers_check(t->hello_time, t->max_age, t->forward_delay);
	if (!why)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(timers); i++)
		if (p->key_line[timers[i]] > line)
			line = p->key_line[timers[i]];
	return fail_at(p, -EINVAL, line, "%s (hello_time %u, max_age %u, forward_delay %u; "
		       "802.1D requires 2 * (forward_delay - 1) >= max_age >= "
		       "2 * (hello_time + 1))", why, t->hello_time, t->max_age,
		       t->forward_delay);
}

static int bridge_end(struct parser *p)
{
	stp_of(&p->c->set, &p->c->stp);
	return stp_timers_end(p);
}

/* Keys may come in any order, so a port's pvid is checked here against
 * its vlans/untagged; the error is reported at the pvid line. */
static int port_end(struct parser *p)
{
	const struct config_port *port = cur_port(p);
	uint16_t pvid = (uint16_t)port->set.v[SET_PVID];

	if (setting_given(&port->set, SET_PVID) && pvid &&
	    !xdpbr_vlan_test(port->vlans, pvid) && !xdpbr_vlan_test(port->untagged, pvid))
		return fail_at(p, -EINVAL, p->key_line[SET_PVID],
			       "pvid: VLAN %u is not a member of %s (add it to its 'vlans' "
			       "or 'untagged')", pvid, p->where);
	/* Refused, not warned about: a guard that can't act would leave the
	 * port unprotected while the file says otherwise, and -n tells. */
	if (setting_value(&port->set, SET_BPDU_GUARD) &&
	    (!setting_given(&port->set, SET_EDGE) || port->set.v[SET_EDGE] != STP_EDGE_ON))
		return fail_at(p, -EINVAL, p->key_line[SET_BPDU_GUARD],
			       "bpdu_guard: acts only on an admin edge port: add 'edge = on' to "
			       "%s (with edge %s it would never shut the port)", p->where,
			       setting_given(&port->set, SET_EDGE) ?
				       stpmap_edge_name((uint8_t)port->set.v[SET_EDGE]) :
				       "auto, the default,");
	return 0;
}

static int vxlan_end(struct parser *p)
{
	const struct config_vxlan *x = &p->c->vxlan;

	if (!x->vni || !x->local_ip.s_addr)
		return fail_at(p, -EINVAL, x->line, "[vxlan] needs %s%s%s",
			       x->vni ? "" : "vni = N",
			       !x->vni && !x->local_ip.s_addr ? " and " : "",
			       x->local_ip.s_addr ? "" : "local_ip = A.B.C.D");
	return 0;
}

/* Checks that need the whole section, before the next one (or the end of
 * the input): one function per kind of section. */
static int section_end(struct parser *p)
{
	static int (*const end[])(struct parser *p) = {
		[SEC_BRIDGE] = bridge_end, [SEC_PORT] = port_end, [SEC_VXLAN] = vxlan_end,
	};

	if (p->err)
		return p->err;
	return end[p->sec] ? end[p->sec](p) : 0;
}

/* --- keys --- */

/* What every key must be: given a value, and once in its section unless
 * repeatable (line: where it was first). */
static int key_ok(struct parser *p, const char *name, const char *value, int *line,
		  bool repeat)
{
	if (!value || !*value)
		return fail(p, "'%s' has no value", name);
	if (repeat)
		return 0;
	if (*line)
		return fail(p, "duplicate key '%s' in %s (first on line %d)", name,
			    p->where, *line);
	*line = p->lineno;
	return 0;
}

static int vxlan_key(struct parser *p, const char *name, const char *value)
{
	for (size_t i = 0; i < ARRAY_SIZE(vxlan_keys); i++)
		if (!strcmp(name, vxlan_keys[i].name))
			return key_ok(p, name, value, &p->key_line[i], false) ?:
			       vxlan_keys[i].set(p, name, value);
	return fail(p, "unknown key '%s' in %s", name, p->where);
}

static int setting_key(struct parser *p, const char *name, const char *value)
{
	const struct setting *s = setting_find(p->sec == SEC_PORT ? SETTING_PORT :
					       SETTING_BRIDGE, SETTING_FILE, name);

	if (!s)
		return fail(p, "unknown key '%s' in %s", name, p->where);
	if (key_ok(p, name, value, &p->key_line[setting_id_of(s)], s->repeat) ||
	    reader_of(s)(p, s, value))
		return p->err;
	cur_set(p)->given |= 1ULL << setting_id_of(s);	/* text rows keep their own */
	return 0;
}

/* inih's handler: one "key = value" of the current line. Nonzero = fine. */
static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parser *p = user;

	if (!name)			/* a section start, in builds that report it */
		return 1;
	if (p->err)
		return 0;
	if (p->sec == SEC_NONE)
		fail(p, "'%s' is outside a section (put it under [bridge] or "
		     "[port IFNAME])", name);
	else if (!*name)
		fail(p, "no key name before '='");
	else if (p->sec == SEC_VXLAN)
		vxlan_key(p, name, value);
	else
		setting_key(p, name, value);
	return !p->err;
}

/* --- lines and section headers --- */

/* Interface names as the kernel takes them (dev_valid_name): 1..15 bytes,
 * not "." or "..", no '/', ':' or whitespace; printable ASCII here. */
static bool ifname_valid(const char *s, size_t n)
{
	if (n == 0 || n > 15 || (n == 1 && s[0] == '.') ||
	    (n == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isgraph((unsigned char)s[i]) || s[i] == '/' || s[i] == ':')
			return false;
	return true;
}

static int port_begin(struct parser *p, const char *name, size_t n)
{
	struct config_port *ports;
	const struct config_port *dup;
	char ifname[16];

	if (n == 0)
		return fail(p, "[port] needs an interface name, e.g. [port eth1]");
	if (n > 15)
		return fail(p, "port name '%.*s' is too long (at most 15 characters)",
			    (int)n, name);
	if (!ifname_valid(name, n))
		return fail(p, "port name '%.*s' is not a valid interface name",
			    (int)n, name);
	memcpy(ifname, name, n);
	ifname[n] = '\0';
	dup = config_port_find(p->c, ifname);
	if (dup)
		return fail(p, "duplicate [port %s] section (first on line %d)",
			    ifname, dup->line);
	if (p->c->nports >= XDPBR_PORTS_PER_BRIDGE)
		return fail(p, "too many ports (at most %d)", XDPBR_PORTS_PER_BRIDGE);
	ports = realloc(p->c->ports, (p->c->nports + 1) * sizeof(*ports));
	if (!ports)
		return fail_at(p, -ENOMEM, p->lineno, "out of memory");
	p->c->ports = ports;
	p->port = p->c->nports++;
	ports[p->port] = (struct config_port){ .line = p->lineno };
	memcpy(ports[p->port].name, ifname, n + 1);
	p->sec = SEC_PORT;
	snprintf(p->where, sizeof(p->where), "[port %s]", ifname);
	return 0;
}

/* "[bridge]" or "[port IFNAME]", optionally followed by a ';' comment. */
static int section_begin(struct parser *p, const char *s)
{
	const char *close = strchr(s, ']'), *rest, *name, *end;

	if (section_end(p))
		return p->err;
	if (!close)
		return fail(p, "no ']' at the end of the section header");
	for (rest = close + 1; isspace((unsigned char)*rest); rest++)
		;
	if (*rest && *rest != ';')
		return fail(p, "unexpected text after the section header: '%s'", rest);
	for (name = s + 1; isspace((unsigned char)*name); name++)
		;
	for (end = close; end > name && isspace((unsigned char)end[-1]); end--)
		;
	memset(p->key_line, 0, sizeof(p->key_line));

	if (end - name == 6 && !strncmp(name, "bridge", 6)) {
		if (p->bridge_line)
			return fail(p, "duplicate [bridge] section (first on line %d)",
				    p->bridge_line);
		p->bridge_line = p->lineno;
		p->sec = SEC_BRIDGE;
		snprintf(p->where, sizeof(p->where), "[bridge]");
		return 0;
	}
	if (end - name == 5 && !strncmp(name, "vxlan", 5)) {
		if (p->c->vxlan.line)
			return fail(p, "duplicate [vxlan] section (first on line %d)",
				    p->c->vxlan.line);
		p->c->vxlan.line = p->lineno;
		p->c->vxlan.dstport = CONFIG_DSTPORT_DEFAULT;
		p->sec = SEC_VXLAN;
		snprintf(p->where, sizeof(p->where), "[vxlan]");
		return 0;
	}
	if (end - name >= 4 && !strncmp(name, "port", 4) &&
	    (end - name == 4 || isspace((unsigned char)name[4]))) {
		for (name += 4; name < end && isspace((unsigned char)*name); name++)
			;
		return port_begin(p, name, (size_t)(end - name));
	}
	return fail(p, "unknown section [%.*s] (expected [bridge], [port IFNAME] "
		    "or [vxlan])", (int)(end - name), name);
}

/* Key lines must be "key = value": '=' before any ':' or inline comment. */
static int check_key_line(struct parser *p, const char *s)
{
	bool was_space = false;

	for (const char *q = s; *q; q++) {
		if (*q == '=')
			return 0;
		if (*q == ':' || (*q == ';' && was_space))
			break;
		was_space = isspace((unsigned char)*q);
	}
	return fail(p, "expected 'key = value', got '%s'", s);
}

/* The next raw line into p->line: its length, 0 at the end, or the error. */
static ssize_t next_line(struct parser *p)
{
	ssize_t n;

	if (p->f) {
		errno = 0;
		n = getline(&p->line, &p->cap, p->f);
		if (n >= 0)
			return n;
		if (ferror(p->f)) {
			int e = errno ? errno : EIO;

			return fail_at(p, -e, 0, "%s", strerror(e));
		}
		return 0;
	}
	n = (ssize_t)strcspn(p->s, "\n");
	if (p->s[n] == '\n')
		n++;
	if ((size_t)n + 1 > p->cap) {
		char *line = realloc(p->line, (size_t)n + 1);

		if (!line)
			return fail_at(p, -ENOMEM, 0, "out of memory");
		p->line = line;
		p->cap = (size_t)n + 1;
	}
	memcpy(p->line, p->s, (size_t)n);
	p->line[n] = '\0';
	p->s += n;
	return n;
}

/* inih's reader (fgets-like): hands inih one line at a time, stripped of
 * leading whitespace, after checking what inih would get wrong. NULL ends
 * the parse: at the end of input or at the first error. */
static char *read_line(char *buf, int size, void *stream)
{
	struct parser *p = stream;
	ssize_t n;
	size_t len;
	char *s;

	if (p->err)
		return NULL;
	n = next_line(p);
	if (n <= 0)
		return NULL;
	p->lineno++;
	s = p->line;
	if (strlen(s) != (size_t)n) {
		fail(p, "the line contains a NUL byte");
		return NULL;
	}
	if (p->lineno == 1 && !strncmp(s, "\xef\xbb\xbf", 3))	/* UTF-8 BOM */
		s += 3;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == ';' || *s == '#')	/* a comment, of any length: inih gets */
		*s = '\0';		/* an empty line, counted all the same */
	len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	if (size < 2 || len > (size_t)size - 2) {	/* room for "\n\0" */
		fail(p, "line too long (at most %d characters)", size - 2);
		return NULL;
	}
	if (*s == '[') {
		if (section_begin(p, s))
			return NULL;
	} else if (*s) {
		if (check_key_line(p, s))
			return NULL;
	}
	memcpy(buf, s, len);
	buf[len] = '\n';
	buf[len + 1] = '\0';
	return buf;
}

static int parse(struct parser *p, struct config *out, char *err, size_t errlen)
{
	struct config c = { 0 };
	int ret;

	p->c = &c;
	ret = ini_parse_stream(read_line, p, on_key, p);
	if (ret >= 0)
		section_end(p);		/* the last section's */
	if (ret > 0 && (!p->err || ret < p->err_line)) {
		/* inih found a line it can't parse that the reader let through */
		p->err = 0;
		fail_at(p, -EINVAL, ret, "syntax error (expected 'key = value')");
	} else if (ret < 0 && !p->err) {
		fail_at(p, ret == -2 ? -ENOMEM : -EIO, 0, "%s",
			strerror(ret == -2 ? ENOMEM : EIO));
	}
	free(p->line);
	p->line = NULL;
	if (p->err) {
		config_free(&c);
		*out = c;
		if (err && errlen)
			snprintf(err, errlen, "%s", p->msg);
		return p->err;
	}
	*out = c;
	if (err && errlen)
		err[0] = '\0';
	return 0;
}

int config_parse_string(const char *name, const char *text, struct config *c,
			char *err, size_t errlen)
{
	struct parser p = { .file = name ? name : "(string)", .s = text ? text : "" };

	return parse(&p, c, err, errlen);
}

int config_parse_file(const char *path, struct config *c, char *err, size_t errlen)
{
	struct parser p = { .file = path };
	int ret;

	p.f = fopen(path, "re");
	if (!p.f) {
		ret = -errno;
		memset(c, 0, sizeof(*c));
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = parse(&p, c, err, errlen);
	fclose(p.f);
	return ret;
}

void config_free(struct config *c)
{
	for (size_t i = 0; i < c->nports; i++)
		free(c->ports[i].statics);
	free(c->ports);
	memset(c, 0, sizeof(*c));
}

const struct config_port *config_port_find(const struct config *c, const char *name)
{
	for (size_t i = 0; i < c->nports; i++)
		if (!strcmp(c->ports[i].name, name))
			return &c->ports[i];
	return NULL;
}

static bool static_in(const struct config_static *st, const struct config_port *port)
{
	for (size_t i = 0; i < port->nstatics; i++)
		if (port->statics[i].vlan == st->vlan &&
		    !memcmp(port->statics[i].mac, st->mac, 6))
			return true;
	return false;
}

bool config_port_equal(const struct config_port *a, const struct config_port *b)
{
	if (strcmp(a->name, b->name) || a->nstatics != b->nstatics ||
	    !settings_same(&a->set, &b->set, SETTING_PORT, SETTING_AT_PORT) ||
	    !settings_same(&a->set, &b->set, SETTING_PORT, SETTING_AT_STORM) ||
	    !settings_same(&a->set, &b->set, SETTING_PORT, SETTING_AT_VLAN) ||
	    memcmp(a->vlans, b->vlans, sizeof(a->vlans)) ||
	    memcmp(a->untagged, b->untagged, sizeof(a->untagged)))
		return false;
	/* a parsed port has no duplicate statics: same count + inclusion = same set */
	for (size_t i = 0; i < a->nstatics; i++)
		if (!static_in(&a->statics[i], b))
			return false;
	return true;
}

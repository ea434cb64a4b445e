// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* settings.c - the table of a bridge's and its ports' settings (settings.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_link.h>

#include "settings.h"
#include "stpmap.h"
#include "util.h"

#define AT(type, member) \
	.field = offsetof(struct type, member), .size = sizeof(((struct type *)0)->member)

/* 0 or a power of two from 4: the datapath indexes the cache by a shift, in
 * sets of 2 ways at least (XDPBR_FDB_CACHE_MAX, xdpbr.h). */
static bool fdb_cache_valid(uint64_t v)
{
	return v == 0 || (v >= 4 && !(v & (v - 1)));
}

#define FLAG_ROW(NAME, b, word, attr) \
	[SET_##NAME] = { .name = word, .scope = SETTING_PORT, .type = SETTING_BOOL, \
			 .in = SETTING_FILE | SETTING_CLI, \
			 .def = !!(XDPBR_PORT_DEFAULT_FLAGS & XDPBR_PORT_##NAME), \
			 .home = SETTING_AT_PORT, AT(xdpbr_port, flags), \
			 .bit = XDPBR_PORT_##NAME, .nl = IFLA_BRPORT_##attr, \
			 .help = "the kernel bridge's port flag of that name" },

#define BOTH	(SETTING_FILE | SETTING_CLI)
#define STORM_ROW(ID, word, cls, what) \
	[ID] = { .name = "storm_" word, .cli = "storm " word, .scope = SETTING_PORT, \
		 .type = SETTING_NUM, .in = BOTH, .max = XDPBR_STORM_MAX_PPS, \
		 .zero = "no limit", .unit = "frames per second", .metavar = "PPS", \
		 .home = SETTING_AT_STORM, AT(xdpbr_storm, pps[cls]), .bit = 1U << (cls), \
		 .help = "storm control: the " what " received per second that the " \
			 "bridge floods" }

const struct setting settings[SET__N] = {
	/* ---- [bridge], xdpbr bridge set */
	[SET_NAME] = { .name = "name", .scope = SETTING_BRIDGE, .type = SETTING_TEXT,
		       .in = SETTING_FILE,
		       .home = SETTING_AT_DAEMON,
		       .help = "the bridge's name, 1-15 of A-Z a-z 0-9 _ . -" },
	[SET_AGEING_TIME] = { .name = "ageing_time", .scope = SETTING_BRIDGE,
			      .type = SETTING_NUM, .in = BOTH, .max = XDPBR_AGEING_MAX_S,
			      .def = XDPBR_DEFAULT_AGEING_S, .zero = "never",
			      .unit = "seconds", .metavar = "SECONDS",
			      .home = SETTING_AT_CONFIG, AT(xdpbr_config, ageing_ns),
			      .nl = IFLA_BR_AGEING_TIME,
			      .help = "how long an unused dynamic FDB entry is kept" },
	/* IFLA_BR_FDB_MAX_LEARNED (Linux 6.8) is newer than Debian 12's
	 * headers: no attribute here yet. */
	[SET_FDB_MAX_LEARNED] = { .name = "fdb_max_learned", .scope = SETTING_BRIDGE,
				  .type = SETTING_NUM, .in = BOTH, .max = XDPBR_LEARNED_MAX,
				  .zero = "no limit", .metavar = "N",
				  .home = SETTING_AT_CONFIG,
				  AT(xdpbr_config, fdb_max_learned),
				  .help = "dynamic FDB entries the bridge may learn" },
	[SET_FDB_SIZE] = { .name = "fdb_size", .scope = SETTING_BRIDGE, .type = SETTING_NUM,
			   .in = SETTING_FILE, .min = XDPBR_FDB_SIZE_MIN,
			   .max = XDPBR_FDB_SIZE_MAX, .def = XDPBR_FDB_SIZE,
			   .unit = "entries", .home = SETTING_AT_LOAD,
			   .help = "the FDB's capacity, when the bridge is created" },
	[SET_FDB_CACHE] = { .name = "fdb_cache", .scope = SETTING_BRIDGE, .type = SETTING_NUM,
			    .in = SETTING_FILE, .max = XDPBR_FDB_CACHE_MAX,
			    .def_text = "sized from the FDB", .zero = "off",
			    .unit = "entries", .home = SETTING_AT_LOAD,
			    .valid = fdb_cache_valid,
			    .valid_text = "0 (off) or a power of two from 4 to 1048576",
			    .help = "entries of the datapath's per-CPU FDB cache" },
	[SET_MODE] = { .name = "mode", .scope = SETTING_BRIDGE, .type = SETTING_TEXT,
		       .in = SETTING_FILE, .def_text = "auto", .home = SETTING_AT_LOAD,
		       .help = "XDP mode of the ports: native, generic or auto" },
	[SET_DATAPATH] = { .name = "datapath", .scope = SETTING_BRIDGE, .type = SETTING_TEXT,
			   .in = SETTING_FILE, .def_text = "auto", .home = SETTING_AT_LOAD,
			   .help = "datapath of the ports: auto, xdp or tc" },
	[SET_XDP_SHARE] = { .name = "xdp_share", .scope = SETTING_BRIDGE, .type = SETTING_BOOL,
			    .in = SETTING_FILE, .home = SETTING_AT_LOAD,
			    .help = "XDP ports share their hook through libxdp's dispatcher" },
	[SET_LISTEN] = { .name = "listen", .scope = SETTING_BRIDGE, .type = SETTING_TEXT,
			 .in = SETTING_FILE, .def_text = "127.0.0.1:9638",
			 .home = SETTING_AT_DAEMON,
			 .help = "the statistics endpoint: ADDR:PORT, [IPv6]:PORT or none" },
	[SET_HOST_INTERFACE] = { .name = "host_interface", .scope = SETTING_BRIDGE,
				 .type = SETTING_BOOL, .in = SETTING_FILE, .def = 1,
				 .home = SETTING_AT_DAEMON,
				 .help = "an interface of the host named after the bridge" },
	[SET_MAC] = { .name = "mac", .scope = SETTING_BRIDGE, .type = SETTING_TEXT,
		      .in = SETTING_FILE, .def_text = "derived from /etc/machine-id",
		      .home = SETTING_AT_DAEMON,
		      .help = "the host interface's MAC address" },
	[SET_VLAN_FILTERING] = { .name = "vlan_filtering", .scope = SETTING_BRIDGE,
				 .type = SETTING_BOOL, .in = BOTH, .home = SETTING_AT_VLAN,
				 AT(xdpbr_config, flags), .bit = XDPBR_CFG_VLAN_FILTERING,
				 .nl = IFLA_BR_VLAN_FILTERING,
				 .help = "802.1Q VLAN-aware bridging" },
	[SET_DEFAULT_PVID] = { .name = "default_pvid", .scope = SETTING_BRIDGE,
			       .type = SETTING_NUM, .in = BOTH, .max = XDPBR_VLAN_MAX,
			       .def = XDPBR_DEFAULT_PVID, .zero = "none", .metavar = "VID",
			       .home = SETTING_AT_VLAN, AT(xdpbr_config, default_pvid),
			       .nl = IFLA_BR_VLAN_DEFAULT_PVID,
			       .help = "the PVID, untagged, of ports that set none" },
	[SET_STP] = { .name = "stp", .scope = SETTING_BRIDGE, .type = SETTING_BOOL, .in = BOTH,
		      .home = SETTING_AT_STP, AT(stpmap_req, on), .bit = STPREQ_ON,
		      .nl = IFLA_BR_STP_STATE,
		      .help = "the spanning tree (RSTP), run by xdpbrd" },
	[SET_PRIORITY] = { .name = "priority", .scope = SETTING_BRIDGE, .type = SETTING_NUM,
			   .in = BOTH, .max = 61440, .step = 4096, .def = 32768,
			   .metavar = "PRIO", .hint = "lower wins the root election",
			   .home = SETTING_AT_STP, AT(stpmap_req, priority),
			   .bit = STPREQ_PRIORITY, .nl = IFLA_BR_PRIORITY,
			   .help = "the bridge priority" },
	/* The timers' ranges: 802.1D-2004 Table 17-1 (hello_time's from 802.1D-1998
	 * Table 8-3, as the kernel bridge and mstpd take it): what a bridge may be
	 * configured with, and what the engine clamps a received BPDU's times to. */
	[SET_HELLO_TIME] = { .name = "hello_time", .scope = SETTING_BRIDGE, .type = SETTING_NUM,
			     .in = BOTH, .min = 1, .max = 10, .def = 2, .unit = "seconds",
			     .metavar = "SECONDS", .home = SETTING_AT_STP,
			     AT(stpmap_req, hello_time), .bit = STPREQ_HELLO,
			     .nl = IFLA_BR_HELLO_TIME, .help = "between BPDUs" },
	[SET_MAX_AGE] = { .name = "max_age", .scope = SETTING_BRIDGE, .type = SETTING_NUM,
			  .in = BOTH, .min = 6, .max = 40, .def = 20, .unit = "seconds",
			  .metavar = "SECONDS", .home = SETTING_AT_STP,
			  AT(stpmap_req, max_age), .bit = STPREQ_MAX_AGE,
			  .nl = IFLA_BR_MAX_AGE, .help = "how long a BPDU's information lasts" },
	[SET_FORWARD_DELAY] = { .name = "forward_delay", .scope = SETTING_BRIDGE,
				.type = SETTING_NUM, .in = BOTH, .min = 4, .max = 30, .def = 15,
				.unit = "seconds", .metavar = "SECONDS",
				.home = SETTING_AT_STP, AT(stpmap_req, forward_delay),
				.bit = STPREQ_FWD_DELAY, .nl = IFLA_BR_FORWARD_DELAY,
				.help = "of each of listening and learning, with legacy STP" },
	[SET_LINKLOCAL_LIMIT] = { .name = "linklocal_limit", .scope = SETTING_BRIDGE,
				  .type = SETTING_NUM, .in = BOTH,
				  .max = XDPBR_LINKLOCAL_MAX_PPS, .def = XDPBR_LINKLOCAL_PPS,
				  .zero = "no limit", .unit = "frames per second",
				  .metavar = "PPS", .home = SETTING_AT_CONFIG,
				  AT(xdpbr_config, linklocal_pps),
				  .help = "link-local frames (01:80:c2:00:00:0X) each port "
					  "hands the host a second" },

	/* ---- [port IFNAME], xdpbr link set */
	XDPBR_PORT_FLAGS(FLAG_ROW)
	[SET_PORT_DATAPATH] = { .name = "datapath", .scope = SETTING_PORT,
				.type = SETTING_TEXT, .in = SETTING_FILE,
				.def_text = "the bridge's", .home = SETTING_AT_LOAD,
				.help = "this port's datapath: auto, xdp or tc" },
	[SET_PORT_XDP_SHARE] = { .name = "xdp_share", .scope = SETTING_PORT,
				 .type = SETTING_BOOL, .in = SETTING_FILE,
				 .def_text = "the bridge's", .home = SETTING_AT_LOAD,
				 .help = "this port shares its XDP hook (libxdp's dispatcher)" },
	[SET_MAX_LEARNED] = { .name = "max_learned", .scope = SETTING_PORT, .type = SETTING_NUM,
			      .in = BOTH, .max = XDPBR_LEARNED_MAX, .zero = "no limit",
			      .metavar = "N", .home = SETTING_AT_PORT,
			      AT(xdpbr_port, max_learned),
			      .help = "dynamic FDB entries learned on the port" },
	STORM_ROW(SET_STORM_BCAST, "bcast", XDPBR_STORM_BCAST, "broadcast frames"),
	STORM_ROW(SET_STORM_MCAST, "mcast", XDPBR_STORM_MCAST, "multicast frames"),
	STORM_ROW(SET_STORM_UNKNOWN, "unknown", XDPBR_STORM_UNKNOWN,
		  "frames to unknown unicast addresses"),
	[SET_PATH_COST] = { .name = "path_cost", .scope = SETTING_PORT, .type = SETTING_NUM,
			    .in = BOTH, .max = 200000000, .zero = "from the link speed",
			    .metavar = "COST", .home = SETTING_AT_STP,
			    AT(stpmap_req, path_cost), .bit = STPREQ_PATH_COST,
			    .nl = IFLA_BRPORT_COST,
			    .help = "the port's spanning tree cost" },
	[SET_PORT_PRIORITY] = { .name = "port_priority", .scope = SETTING_PORT,
				.type = SETTING_NUM, .in = BOTH, .max = 240, .step = 16,
				.def = 128, .metavar = "PRIO", .home = SETTING_AT_STP,
				AT(stpmap_req, priority), .bit = STPREQ_PRIORITY,
				.nl = IFLA_BRPORT_PRIORITY,
				.help = "the port's spanning tree priority" },
	[SET_EDGE] = { .name = "edge", .scope = SETTING_PORT, .type = SETTING_BOOL, .in = BOTH,
		       .also = "auto", .def = 2,
		       .def_text = "auto (on for the host interface's port)",
		       .home = SETTING_AT_STP, AT(stpmap_req, edge), .bit = STPREQ_EDGE,
		       .help = "an edge port (a host, no bridge); auto: until a BPDU comes" },
	[SET_BPDU_GUARD] = { .name = "bpdu_guard", .scope = SETTING_PORT, .type = SETTING_BOOL,
			     .in = BOTH, .action = "reset", .action_bit = STPREQ_GUARD_RESET,
			     .home = SETTING_AT_STP,
			     AT(stpmap_req, bpdu_guard), .bit = STPREQ_BPDU_GUARD,
			     .nl = IFLA_BRPORT_GUARD,
			     .help = "an edge port that hears a BPDU is shut; reset: it "
				     "forwards again" },
	[SET_BPDU_GUARD_TIMEOUT] = { .name = "bpdu_guard_timeout", .scope = SETTING_PORT,
				     .type = SETTING_NUM, .in = SETTING_FILE, .max = 86400,
				     .zero = "until reset", .unit = "seconds",
				     .home = SETTING_AT_STP,
				     .help = "how long a port bpdu_guard shut stays shut" },
	[SET_ROOT_GUARD] = { .name = "root_guard", .scope = SETTING_PORT, .type = SETTING_BOOL,
			     .in = BOTH, .home = SETTING_AT_STP, AT(stpmap_req, root_guard),
			     .bit = STPREQ_ROOT_GUARD, .nl = IFLA_BRPORT_PROTECT,
			     .help = "the port never becomes the root port" },
	[SET_STATIC] = { .name = "static", .scope = SETTING_PORT, .type = SETTING_TEXT,
			 .in = SETTING_FILE, .repeat = true, .home = SETTING_AT_FDB,
			 .help = "a static FDB entry: MAC [vlan VID]" },
	[SET_PVID] = { .name = "pvid", .scope = SETTING_PORT, .type = SETTING_NUM,
		       .in = SETTING_FILE, .max = XDPBR_VLAN_MAX, .zero = "none",
		       .def_text = "the bridge's default_pvid", .home = SETTING_AT_VLAN,
		       AT(xdpbr_port, pvid),
		       .help = "the VLAN of untagged frames received on the port" },
	[SET_VLANS] = { .name = "vlans", .scope = SETTING_PORT, .type = SETTING_TEXT,
			.in = SETTING_FILE, .home = SETTING_AT_VLAN,
			AT(xdpbr_vlan_port, member),
			.help = "the VLANs the port is a tagged member of" },
	[SET_UNTAGGED] = { .name = "untagged", .scope = SETTING_PORT, .type = SETTING_TEXT,
			   .in = SETTING_FILE, .home = SETTING_AT_VLAN,
			   AT(xdpbr_vlan_port, untagged),
			   .help = "the VLANs the port is an untagged member of" },
	[SET_STATE] = { .name = "state", .scope = SETTING_PORT, .type = SETTING_TEXT,
			.in = SETTING_CLI, .def_text = "forwarding",
			.home = SETTING_AT_STP_PORT, .nl = IFLA_BRPORT_STATE,
			.help = "the port's spanning tree state, set by hand while STP is off" },
};

uint64_t setting_value(const struct settings *s, enum setting_id id)
{
	return setting_given(s, id) ? s->v[id] : settings[id].def;
}

void setting_set(struct settings *s, enum setting_id id, uint64_t v)
{
	s->given |= 1ULL << id;
	s->v[id] = v;
}

const struct setting *setting_find(enum setting_scope scope, unsigned int whom,
				   const char *name)
{
	for (size_t i = 0; i < SET__N; i++)
		if (settings[i].scope == scope && (settings[i].in & whom) &&
		    !strcmp(settings[i].name, name))
			return &settings[i];
	return NULL;
}

int setting_check(const struct setting *s, uint64_t v)
{
	if (v < s->min || v > s->max)
		return -ERANGE;
	if (s->step > 1 && v % s->step)
		return -EDOM;
	return s->valid && !s->valid(v) ? -EINVAL : 0;
}

const char *setting_range(const struct setting *s, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%llu", (unsigned long long)s->min);

	if (n >= 0 && (size_t)n < len && s->min == 0 && s->zero)
		n += snprintf(buf + n, len - (size_t)n, " (%s)", s->zero);
	if (n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " .. %llu", (unsigned long long)s->max);
	if (n >= 0 && (size_t)n < len && s->step > 1)
		snprintf(buf + n, len - (size_t)n, " in steps of %llu",
			 (unsigned long long)s->step);
	return buf;
}

const char *setting_default(const struct setting *s, char *buf, size_t len)
{
	if (s->def_text)
		return s->def_text;
	if (s->type == SETTING_BOOL)
		return s->def == 2 ? s->also : s->def ? "on" : "off";
	if (s->type == SETTING_TEXT)
		return NULL;
	snprintf(buf, len, "%llu", (unsigned long long)s->def);
	return buf;
}

uint64_t settings_mask(enum setting_scope scope, enum setting_home home)
{
	uint64_t m = 0;

	for (size_t i = 0; i < SET__N; i++)
		if (settings[i].scope == scope && settings[i].home == home)
			m |= 1ULL << i;
	return m;
}

/* v into a field of size bytes at p (1, 2, 4, 8: the rows' AT()). */
static void field_put(void *p, size_t size, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	memcpy(p, size == 1 ? (void *)&u8 : size == 2 ? (void *)&u16 :
		  size == 4 ? (void *)&u32 : (void *)&v, size);
}

static void field_flag(uint32_t *flags, uint32_t bit, bool on)
{
	*flags = on ? *flags | bit : *flags & ~bit;
}

void settings_port_put(const struct settings *s, uint64_t mask, struct xdpbr_port *p)
{
	for (size_t i = 0; i < SET__N; i++) {
		const struct setting *r = &settings[i];

		if (!(mask >> i & 1) || r->home != SETTING_AT_PORT || r->scope != SETTING_PORT)
			continue;
		if (r->bit)
			field_flag(&p->flags, r->bit, setting_value(s, (enum setting_id)i));
		else
			field_put((char *)p + r->field, r->size,
				  setting_value(s, (enum setting_id)i));
	}
}

void settings_storm_put(const struct settings *s, uint64_t mask, uint32_t *pps)
{
	for (size_t i = 0; i < SET__N; i++)
		if ((mask >> i & 1) && settings[i].home == SETTING_AT_STORM)
			pps[__builtin_ctz(settings[i].bit)] =
				(uint32_t)setting_value(s, (enum setting_id)i);
}

void settings_config_put(const struct settings *s, uint64_t mask, struct xdpbr_config *c)
{
	uint64_t ageing = setting_value(s, SET_AGEING_TIME);

	if (mask >> SET_AGEING_TIME & 1)	/* 0 in the map is the default */
		c->ageing_ns = ageing ? ageing * XDPBR_NSEC_PER_SEC : XDPBR_AGEING_NEVER;
	if (mask >> SET_FDB_MAX_LEARNED & 1)
		c->fdb_max_learned = (uint32_t)setting_value(s, SET_FDB_MAX_LEARNED);
	if (mask >> SET_LINKLOCAL_LIMIT & 1)	/* no limit: NONE; 0 is the default */
		c->linklocal_pps = (uint32_t)setting_value(s, SET_LINKLOCAL_LIMIT) ?:
				   XDPBR_LINKLOCAL_NONE;
}

void settings_stp_put(const struct settings *s, enum setting_scope scope,
		      struct stpmap_req *r)
{
	for (size_t i = 0; i < SET__N; i++) {
		const struct setting *row = &settings[i];

		if (row->home != SETTING_AT_STP || row->scope != scope || !row->size)
			continue;
		r->set &= ~row->action_bit;
		if (s->acted >> i & 1)
			r->set |= row->action_bit;
		if (!(s->given >> i & 1))
			continue;
		field_put((char *)r + row->field, row->size, s->v[i]);
		r->set |= row->bit;
	}
}

bool setting_same(const struct settings *a, const struct settings *b, enum setting_id id)
{
	if (!settings[id].def_text && settings[id].type != SETTING_TEXT)
		return setting_value(a, id) == setting_value(b, id);
	return setting_given(a, id) == setting_given(b, id) &&
	       (!setting_given(a, id) || a->v[id] == b->v[id]);
}

bool settings_same(const struct settings *a, const struct settings *b,
		   enum setting_scope scope, enum setting_home home)
{
	for (size_t i = 0; i < SET__N; i++)
		if (settings[i].scope == scope && settings[i].home == home &&
		    !setting_same(a, b, (enum setting_id)i))
			return false;
	return true;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stpmap.c - the spanning tree's pinned request and status maps (stpmap.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "paths.h"
#include "pins.h"		/* slots_read */
#include "stpmap.h"
#include "stpstate.h"
#include "util.h"

/* The kernel's name of a map (15 characters at most). */
static const char *kernel_name(const char *pin)
{
	return strcmp(pin, STPMAP_STATUS) ? pin : "xdpbr_stp_stat";
}

static int map_create_pinned(const char *name, const char *path)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, kernel_name(name), sizeof(__u32), STPMAP_VALUE,
				XDPBR_MAX_PORTS, NULL);

	if (fd < 0)
		return -errno;
	if (bpf_obj_pin(fd, path)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int stpmap_open(const char *bridge, const char *name, bool ro, bool create)
{
	LIBBPF_OPTS(bpf_obj_get_opts, o, .file_flags = ro ? BPF_F_RDONLY : 0);
	char path[PATH_MAX];
	int err = pin_path(path, sizeof(path), bridge, name), fd;

	if (err)
		return err;
	fd = bpf_obj_get_opts(path, &o);
	if (fd >= 0)
		return fd;
	if (errno != ENOENT || !create)
		return -errno;
	return map_create_pinned(name, path);
}

void stpmap_unpin(const char *bridge)
{
	const char *names[] = { STPMAP_CFG, STPMAP_STATUS };
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!pin_path(path, sizeof(path), bridge, names[i]))
			unlink(path);
}

int stpmap_get(int fd, uint32_t key, void *val, size_t len)
{
	uint8_t buf[STPMAP_VALUE];

	if (len > sizeof(buf))
		return -EINVAL;
	if (bpf_map_lookup_elem(fd, &key, buf))
		return -errno;
	memcpy(val, buf, len);
	return 0;
}

int stpmap_put(int fd, uint32_t key, const void *val, size_t len)
{
	uint8_t buf[STPMAP_VALUE] = { 0 };

	if (len > sizeof(buf))
		return -EINVAL;
	memcpy(buf, val, len);
	return bpf_map_update_elem(fd, &key, buf, BPF_ANY) ? -errno : 0;
}

int stpmap_read(int fd, struct stpmap_snapshot *s)
{
	/* In batches: a snapshot of 1024 ports is a few calls, not 1025 */
	uint8_t *all = malloc((size_t)XDPBR_MAX_PORTS * STPMAP_VALUE);
	int err = all ? slots_read(fd, STPMAP_VALUE, all) : -ENOMEM;

	_Static_assert(sizeof(s->br) <= STPMAP_VALUE && sizeof(s->ports[0]) <= STPMAP_VALUE,
		       "a snapshot's entries fit the map's values");
	if (!err) {
		memcpy(&s->br, all, sizeof(s->br));
		memset(s->ports, 0, sizeof(s->ports[0]));
		for (size_t i = 1; i < XDPBR_MAX_PORTS; i++)
			memcpy(&s->ports[i], all + i * STPMAP_VALUE, sizeof(s->ports[i]));
	}
	free(all);
	return err;
}

const char *stpmap_timers_check(unsigned int hello, unsigned int max_age,
				unsigned int fwd_delay)
{
	if (2 * (fwd_delay - 1) < max_age)
		return "max_age is more than 2 * (forward_delay - 1)";
	if (max_age < 2 * (hello + 1))
		return "max_age is less than 2 * (hello_time + 1)";
	return NULL;
}

static const enum xdpbr_stp_state stpmap_states[STPMAP_STATES] = {
	[STPMAP_STATE_DISCARDING] = XDPBR_STP_DISCARDING,
	[STPMAP_STATE_LEARNING] = XDPBR_STP_LEARNING,
	[STPMAP_STATE_FORWARDING] = XDPBR_STP_FORWARDING,
};

__u8 stpmap_state_code(enum xdpbr_stp_state st)
{
	for (__u8 c = 0; c < STPMAP_STATES; c++)
		if (stpmap_states[c] == st)
			return c;
	return STPMAP_STATE_DISCARDING;
}

enum xdpbr_stp_state stpmap_state(unsigned int code)
{
	return code < STPMAP_STATES ? stpmap_states[code] : XDPBR_STP_DISCARDING;
}

/* The engine's enums (daemon/rstp.h), in their order. */
static const char *const role_names[] = { "disabled", "root", "designated", "alternate",
					  "backup" };
static const char *const edge_names[] = { "off", "on", "auto" };

const char *stpmap_state_name(unsigned int code)
{
	return code < STPMAP_STATES ? stp_state_word(stpmap_state(code), true) : "?";
}

const char *stpmap_role_name(unsigned int r)
{
	return r < ARRAY_SIZE(role_names) ? role_names[r] : "?";
}

const char *stpmap_edge_name(unsigned int e)
{
	return e < ARRAY_SIZE(edge_names) ? edge_names[e] : "?";
}

char *stpmap_id_format(const uint8_t id[8], char *buf, size_t len)
{
	snprintf(buf, len, "%02x%02x.%02x:%02x:%02x:%02x:%02x:%02x", id[0], id[1], id[2],
		 id[3], id[4], id[5], id[6], id[7]);
	return buf;
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void add_bool(struct json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

static void add_id(struct json_object *o, const char *k, const uint8_t id[8])
{
	char buf[32];

	add_str(o, k, stpmap_id_format(id, buf, sizeof(buf)));
}

static struct json_object *port_json(const struct stpmap_port *p, unsigned int slot)
{
	struct json_object *o = json_object_new_object();
	char name[IFNAME_SHOWN];

	add_str(o, "ifname", name_escape(p->ifname, name, sizeof(name)));
	add_u64(o, "ifindex", p->ifindex);
	add_u64(o, "port_no", slot);
	add_str(o, "role", stpmap_role_name(p->role));
	add_str(o, "state", stpmap_state_name(p->state));
	add_u64(o, "path_cost", p->path_cost);
	add_u64(o, "port_priority", p->port_id >> 8 & 0xf0);
	add_id(o, "designated_root", p->designated_root);
	add_id(o, "designated_bridge", p->designated_bridge);
	add_u64(o, "designated_port", p->designated_port);
	add_u64(o, "designated_cost", p->designated_cost);
	add_bool(o, "edge", p->flags & STPMAP_P_EDGE);
	add_str(o, "admin_edge", stpmap_edge_name(p->admin_edge));
	add_bool(o, "p2p", p->flags & STPMAP_P_P2P);
	add_str(o, "protocol", p->flags & STPMAP_P_LEGACY ? "stp" : "rstp");
	add_bool(o, "link_up", p->flags & STPMAP_P_LINK_UP);
	add_bool(o, "bpdu_guard", p->flags & STPMAP_P_BPDU_GUARD);
	add_bool(o, "root_guard", p->flags & STPMAP_P_ROOT_GUARD);
	add_bool(o, "guard_tripped", p->flags & STPMAP_P_GUARD);
	add_bool(o, "held", p->flags & STPMAP_P_HELD);
	json_object_object_add(o, "bpdu_socket_error", p->sock_err ?
			       json_object_new_string(strerror((int)p->sock_err)) : NULL);
	add_u64(o, "bpdus_in", p->bpdus_in);
	add_u64(o, "bpdus_out", p->bpdus_out);
	add_u64(o, "bad_bpdus", p->bad_bpdus);
	add_u64(o, "aged_bpdus", p->aged_bpdus);
	add_u64(o, "clamped_bpdus", p->clamped_bpdus);
	add_u64(o, "tc_in", p->tc_in);
	add_u64(o, "tc_out", p->tc_out);
	add_u64(o, "guard_trips", p->guard_trips);
	return o;
}

/* The root port's name, "" when this bridge is the root. */
static const char *root_port_name(const struct stpmap_snapshot *s)
{
	for (int i = 1; i < XDPBR_MAX_PORTS; i++)
		if (s->br.root_ifindex && s->ports[i].ifindex == s->br.root_ifindex)
			return s->ports[i].ifname;
	return "";
}

static void add_name(struct json_object *o, const char *k, const char *v)
{
	char name[IFNAME_SHOWN];

	add_str(o, k, name_escape(v, name, sizeof(name)));
}

struct json_object *stpmap_json(const struct stpmap_snapshot *s, uint64_t now_ns)
{
	struct json_object *o = json_object_new_object(), *ports;
	const struct stpmap_bridge *b = &s->br;

	add_bool(o, "enabled", b->enabled);
	add_id(o, "bridge_id", b->bridge_id);
	add_id(o, "root_id", b->root_id);
	add_bool(o, "root", !b->root_ifindex);
	add_name(o, "root_port", root_port_name(s));
	add_u64(o, "root_path_cost", b->root_path_cost);
	add_u64(o, "hello_time", b->hello_time);
	add_u64(o, "max_age", b->max_age);
	add_u64(o, "forward_delay", b->forward_delay);
	add_u64(o, "topology_changes", b->topology_changes);
	if (b->last_tc_ns && now_ns >= b->last_tc_ns)
		json_object_object_add(o, "time_since_topology_change",
				       json_object_new_double((double)(now_ns - b->last_tc_ns) /
							      1e9));
	else
		json_object_object_add(o, "time_since_topology_change", NULL);
	add_bool(o, "topology_change", b->tc_active);
	add_u64(o, "fdb_flushes", b->fdb_flushes);
	add_bool(o, "fdb_flush_running", b->fdb_flush_running);
	ports = json_object_new_array();
	for (unsigned int i = 1; i < XDPBR_MAX_PORTS; i++)
		if (s->ports[i].ifindex)
			json_object_array_add(ports, port_json(&s->ports[i], i));
	json_object_object_add(o, "ports", ports);
	return o;
}

static void label(FILE *out, const char *k, const char *v, bool comma)
{
	fprintf(out, "%s%s=\"", comma ? "," : "", k);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', out);
		fputc(*v, out);
	}
	fputc('"', out);
}

/* Names as the CLI shows them (name_escape), as lib/report.c's labels. */
static void port_labels(FILE *out, const char *bridge, const struct stpmap_port *p)
{
	char name[IFNAME_SHOWN];

	fputc('{', out);
	label(out, "bridge", bridge, false);
	label(out, "port", name_escape(p->ifname, name, sizeof(name)), true);
}

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A port's counter at offset off of its entry. */
static uint64_t counter_at(const struct stpmap_port *p, size_t off)
{
	return *(const __u64 *)((const char *)p + off);
}

/* 1 when the port has the flag, 0 when not. */
static uint64_t has_flag(const struct stpmap_port *p, size_t flag)
{
	return !!(p->flags & flag);
}

/* One value of every port, get(port, arg), with an optional extra label. */
static void port_values(FILE *out, const struct stpmap_snapshot *s, const char *bridge,
			const char *name, uint64_t (*get)(const struct stpmap_port *, size_t),
			size_t arg, const char *extra)
{
	for (int i = 1; i < XDPBR_MAX_PORTS; i++) {
		const struct stpmap_port *p = &s->ports[i];

		if (!p->ifindex)
			continue;
		fputs(name, out);
		port_labels(out, bridge, p);
		fprintf(out, "%s} %llu\n", extra ? extra : "", (unsigned long long)get(p, arg));
	}
}

static void port_counter(FILE *out, const struct stpmap_snapshot *s, const char *bridge,
			 const char *name, size_t off, const char *extra)
{
	port_values(out, s, bridge, name, counter_at, off, extra);
}

/* name{port,WHAT=x} 1 for the current x, 0 for the others. */
static void port_enum(FILE *out, const struct stpmap_snapshot *s, const char *bridge,
		      const char *name, const char *what, const char *(*names)(unsigned int),
		      unsigned int n, bool role)
{
	for (int i = 1; i < XDPBR_MAX_PORTS; i++) {
		const struct stpmap_port *p = &s->ports[i];

		for (unsigned int v = 0; p->ifindex && v < n; v++) {
			fputs(name, out);
			port_labels(out, bridge, p);
			label(out, what, names(v), true);
			fprintf(out, "} %d\n", (role ? p->role : p->state) == v);
		}
	}
}

/* The per-port counter families with no label of their own. */
static const struct {
	const char *name, *help;
	size_t off;
} port_counters[] = {
	{ "xdpbr_stp_bad_bpdus_total", "Malformed BPDUs received on a port and dropped.",
	  offsetof(struct stpmap_port, bad_bpdus) },
	{ "xdpbr_stp_aged_bpdus_total",
	  "BPDUs received on a port and dropped: their information too old to hold.",
	  offsetof(struct stpmap_port, aged_bpdus) },
	{ "xdpbr_stp_clamped_bpdus_total",
	  "BPDUs received on a port with times out of 802.1D's ranges, taken clamped.",
	  offsetof(struct stpmap_port, clamped_bpdus) },
	{ "xdpbr_stp_guard_trips_total", "Times bpdu_guard or root_guard shut a port.",
	  offsetof(struct stpmap_port, guard_trips) },
};

void stpmap_metrics(const struct stpmap_snapshot *s, const char *bridge, FILE *out)
{
	family(out, "xdpbr_stp_enabled", "gauge", "1 when the spanning tree runs.");
	fputs("xdpbr_stp_enabled{", out);
	label(out, "bridge", bridge, false);
	fprintf(out, "} %d\n", s->br.enabled);
	if (!s->br.enabled)
		return;
	family(out, "xdpbr_stp_topology_changes_total", "counter",
	       "Topology changes the spanning tree detected or was told of.");
	fputs("xdpbr_stp_topology_changes_total{", out);
	label(out, "bridge", bridge, false);
	fprintf(out, "} %llu\n", (unsigned long long)s->br.topology_changes);
	family(out, "xdpbr_stp_port_state", "gauge",
	       "Spanning tree state of a port: 1 for the current state.");
	port_enum(out, s, bridge, "xdpbr_stp_port_state", "state", stpmap_state_name,
		  STPMAP_STATES, false);
	family(out, "xdpbr_stp_port_role", "gauge",
	       "Spanning tree role of a port: 1 for the current role.");
	port_enum(out, s, bridge, "xdpbr_stp_port_role", "role", stpmap_role_name,
		  ARRAY_SIZE(role_names), true);
	family(out, "xdpbr_stp_bpdus_total", "counter", "BPDUs received and sent on a port.");
	port_counter(out, s, bridge, "xdpbr_stp_bpdus_total",
		     offsetof(struct stpmap_port, bpdus_in), ",direction=\"in\"");
	port_counter(out, s, bridge, "xdpbr_stp_bpdus_total",
		     offsetof(struct stpmap_port, bpdus_out), ",direction=\"out\"");
	for (size_t i = 0; i < ARRAY_SIZE(port_counters); i++) {
		family(out, port_counters[i].name, "counter", port_counters[i].help);
		port_counter(out, s, bridge, port_counters[i].name, port_counters[i].off, NULL);
	}
	family(out, "xdpbr_stp_port_held", "gauge",
	       "1 when a port is held discarding: its BPDU socket could not be opened.");
	port_values(out, s, bridge, "xdpbr_stp_port_held", has_flag, STPMAP_P_HELD, NULL);
	family(out, "xdpbr_stp_fdb_flushes_total", "counter",
	       "Walks of the FDB that flushed learned entries (topology changes, ports down).");
	fputs("xdpbr_stp_fdb_flushes_total{", out);
	label(out, "bridge", bridge, false);
	fprintf(out, "} %llu\n", (unsigned long long)s->br.fdb_flushes);
}

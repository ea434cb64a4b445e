// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stpd.c - the spanning tree engine wired to the bridge (see stpd.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctl.h"
#include "log.h"
#include "pins.h"
#include "ports.h"
#include "settings.h"
#include "stpd.h"
#include "stpmap.h"
#include "util.h"
#include "xdpbr_rules.h"

static const uint8_t bpdu_dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x00 };
_Static_assert((int)STPMAP_EDGE_ON == (int)STP_EDGE_ON && (int)STPMAP_EDGE_AUTO == (int)STP_EDGE_AUTO,
	       "stpmap's edge values are the engine's");

#define LLC_LEN		3		/* DSAP 0x42, SSAP 0x42, control 0x03 (UI) */
#define ETH_HLEN_	14
#define ETH_8023_MAX	1500		/* a length, not an EtherType */

static uint64_t now_ms(void)
{
	return mono_ns() / 1000000ULL;
}

/* Whether a line of this kind may be logged now; if so, *missed says how
 * many were not since the last one. */
static bool rl_allow(struct stpd_ratelimit *r, unsigned int *missed)
{
	uint64_t now = mono_ns();

	if (r->last_ns && now - r->last_ns < STPD_LOG_PERIOD_S * XDPBR_NSEC_PER_SEC) {
		r->missed++;
		return false;
	}
	r->last_ns = now;
	*missed = r->missed;
	r->missed = 0;
	return true;
}

/* --- packet sockets --- */

/*
 * The kernel-side filter: 01:80:c2:00:00:00, an 802.3 length (<= 1500),
 * LLC 42 42 03. What passes is checked again in bpdu_payload: the filter
 * only keeps other traffic out of the socket's buffer.
 */
static int attach_filter(int fd)
{
	static struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x0180c200, 0, 9),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x0000, 0, 7),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, ETH_8023_MAX, 5, 0),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 14),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x4242, 0, 3),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 16),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x03, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(code), .filter = code };

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ? -errno : 0;
}

/* What the BPDU socket may hold: about fifty BPDUs (the kernel doubles it
 * for its overhead), a few seconds of what the link-local limit lets
 * through; a burst over it waits in no queue. */
#define BPDU_RCVBUF	(32 * 1024)

/* A socket for the BPDUs of ifindex: filter first, then bound, so no
 * other frame is ever queued on it. The filter is the datapath's
 * xdpbr_bpdu_sock, which also holds the socket to the link-local limit,
 * when prog_fd is one (else the classic filter, with no limit). ETH_P_ALL,
 * not ETH_P_802_2: a port of the bridge device (hostdev.h) hands what the
 * datapath passes to the kernel bridge's rx_handler, which runs before the
 * protocol handlers and consumes BPDUs; taps run before it. A descriptor
 * or -errno. */
static int bpdu_socket(uint32_t ifindex, int prog_fd)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = (int)ifindex,
	};
	struct packet_mreq mr = {
		.mr_ifindex = (int)ifindex, .mr_type = PACKET_MR_MULTICAST, .mr_alen = 6,
	};
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int err, one = 1, rcvbuf = BPDU_RCVBUF;

	if (fd < 0)
		return -errno;
	memcpy(mr.mr_address, bpdu_dst, 6);
	if (prog_fd >= 0)
		err = setsockopt(fd, SOL_SOCKET, SO_ATTACH_BPF, &prog_fd, sizeof(prog_fd)) ?
		      -errno : 0;
	else
		err = attach_filter(fd);
	if (!err && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		err = -errno;
	/* Else every frame the port sends is cloned for the socket to drop. */
	if (!err && setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)))
		err = -errno;
	if (!err && bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		err = -errno;
	/* The port's driver must accept the group (a real NIC filters it). */
	if (!err && setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* The LLC payload of a received frame of n bytes (from the protocol
 * identifier on) and its length, or NULL when it is no BPDU frame. */
static const uint8_t *bpdu_payload(const uint8_t *f, size_t n, size_t *len)
{
	size_t l;

	if (n < ETH_HLEN_ + LLC_LEN || memcmp(f, bpdu_dst, 6))
		return NULL;
	l = (size_t)f[12] << 8 | f[13];
	/* an 802.3 length covering the LLC header, within what arrived
	 * (frames are padded to 60 bytes: what follows the length is padding) */
	if (l > ETH_8023_MAX || l < LLC_LEN || ETH_HLEN_ + l > n)
		return NULL;
	if (f[14] != 0x42 || f[15] != 0x42 || f[16] != 0x03)
		return NULL;
	*len = l - LLC_LEN;
	return f + ETH_HLEN_ + LLC_LEN;
}

/* --- the engine's ops --- */

static struct stpd_port *port_of(struct stpd *s, unsigned int slot)
{
	if (slot == 0 || slot >= XDPBR_MAX_PORTS || !s->ports[slot].ifindex)
		return NULL;
	return &s->ports[slot];
}

static int op_set_state(void *arg, unsigned int slot, enum xdpbr_stp_state st, bool edge)
{
	struct stpd *s = arg;
	struct stpd_port *p = port_of(s, slot);

	if (!p)
		return -ENODEV;
	/* While ports are resumed, the datapath already holds their states. */
	if (s->resuming)
		return 0;
	return ctl_port_stp_set(&s->br->maps, p->ifindex, st, edge);
}

static void op_flush(void *arg, unsigned int slot)
{
	struct stpd *s = arg;
	struct stpd_port *p = port_of(s, slot);

	if (!p)
		return;
	log_debug("stp: port %s: its learned entries go (topology change)", p->ifname);
	fdbflush_port(s->flush, slot);
}

static int op_send(void *arg, unsigned int slot, const void *frame, size_t len)
{
	struct stpd *s = arg;
	struct stpd_port *p = port_of(s, slot);

	if (!p || p->fd < 0)
		return -ENODEV;
	if (send(p->fd, frame, len, MSG_DONTWAIT) != (ssize_t)len)
		return -errno;
	return 0;
}

static struct json_object *event_new(const struct stpd *s, const char *name,
				     const struct stpd_port *p)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "event", json_object_new_string(name));
	if (p)
		json_object_object_add(o, "ifname", json_object_new_string(p->ifname));
	json_object_object_add(o, "master", json_object_new_string(s->br->name));
	return o;
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static const char *root_port_name(const struct stpd *s, const struct stp_bridge_info *bi)
{
	const struct stpd_port *p = bi->root_port < XDPBR_MAX_PORTS ?
				    &s->ports[bi->root_port] : NULL;

	return p && bi->root_port && p->ifindex ? p->ifname : "";
}

/* The log line and event object of a port's role or state change. */
static struct json_object *ev_port(struct stpd *s, enum stp_event ev, struct stpd_port *p)
{
	struct stp_port_info pi;
	const char *name = ev == STP_EV_STATE ? "stp_state" : "stp_role";
	struct json_object *o;

	if (stp_port_get(s->eng, (unsigned int)(p - s->ports), &pi))
		return NULL;
	o = event_new(s, name, p);
	add_str(o, "state", stp_state_word(pi.state, true));
	add_str(o, "role", stpmap_role_name(pi.role));
	if (ev == STP_EV_STATE)
		log_info("stp: port %s: state %s (role %s)", p->ifname, stp_state_word(pi.state, true),
			 stpmap_role_name(pi.role));
	else
		log_info("stp: port %s: role %s (state %s)", p->ifname, stpmap_role_name(pi.role),
			 stp_state_word(pi.state, true));
	return o;
}

static struct json_object *ev_root(struct stpd *s)
{
	struct stp_bridge_info bi;
	struct json_object *o = event_new(s, "stp_root", NULL);
	char id[32];

	stp_bridge_get(s->eng, &bi);
	stpmap_id_format(bi.root_id, id, sizeof(id));
	add_str(o, "root_id", id);
	add_str(o, "root_port", root_port_name(s, &bi));
	if (bi.root_port)
		log_info("stp: new root %s, through port %s (cost %u)", id,
			 root_port_name(s, &bi), bi.root_path_cost);
	else
		log_info("stp: this bridge is the root (%s)", id);
	return o;
}

static struct json_object *ev_tc(struct stpd *s, struct stpd_port *p)
{
	struct stp_bridge_info bi;
	struct json_object *o = event_new(s, "topology_change", p);
	unsigned int missed;

	stp_bridge_get(s->eng, &bi);
	json_object_object_add(o, "topology_changes",
			       json_object_new_uint64(bi.topology_changes));
	if (rl_allow(&s->tc_log, &missed))
		log_info("stp: topology change%s%s (%llu so far; %u not logged since the "
			 "last line)", p ? " on port " : "", p ? p->ifname : "",
			 (unsigned long long)bi.topology_changes, missed);
	return o;
}

static struct json_object *ev_other(struct stpd *s, enum stp_event ev, struct stpd_port *p)
{
	struct stp_port_info pi = { 0 };

	if (p)
		stp_port_get(s->eng, (unsigned int)(p - s->ports), &pi);
	switch (ev) {
	case STP_EV_BPDU_GUARD:
	case STP_EV_ROOT_GUARD:
		if (!p)
			return NULL;
		p->guard_trips++;
		log_warn("stp: port %s %s: shut to discarding (xdpbr link set dev %s "
			 "bpdu_guard reset brings it back)", p->ifname,
			 ev == STP_EV_BPDU_GUARD ? "is an edge port with bpdu_guard and "
			 "received a BPDU" : "has root_guard and heard a superior BPDU",
			 p->ifname);
		return event_new(s, ev == STP_EV_BPDU_GUARD ? "bpdu_guard" : "root_guard", p);
	case STP_EV_PROTOCOL: {
		struct json_object *o = event_new(s, "stp_protocol", p);

		add_str(o, "protocol", pi.legacy ? "stp" : "rstp");
		log_info("stp: port %s now talks %s", p ? p->ifname : "?",
			 pi.legacy ? "legacy 802.1D STP" : "RSTP");
		return o;
	}
	case STP_EV_BAD_BPDU:
		log_debug("stp: port %s: malformed BPDU dropped", p ? p->ifname : "?");
		return event_new(s, "bad_bpdu", p);
	case STP_EV_CLAMPED: {
		char age[32], hello[32], delay[32];
		unsigned int missed;

		if (p && rl_allow(&s->clamp_log, &missed))
			log_warn("stp: port %s: a BPDU with times outside 802.1D's ranges "
				 "(max_age %s, hello_time %s, forward_delay %s s), "
				 "taken clamped: is the neighbour misconfigured? (%llu on this "
				 "port; %u such lines not logged since the last)", p->ifname,
				 setting_range(&settings[SET_MAX_AGE], age, sizeof(age)),
				 setting_range(&settings[SET_HELLO_TIME], hello, sizeof(hello)),
				 setting_range(&settings[SET_FORWARD_DELAY], delay, sizeof(delay)),
				 (unsigned long long)pi.clamped_bpdus, missed);
		return NULL;
	}
	default:
		return NULL;
	}
}

static void op_event(void *arg, enum stp_event ev, unsigned int slot)
{
	struct stpd *s = arg;
	struct stpd_port *p = port_of(s, slot);
	struct json_object *o;

	switch (ev) {
	case STP_EV_ROLE:
	case STP_EV_STATE:
		o = p ? ev_port(s, ev, p) : NULL;
		break;
	case STP_EV_ROOT_CHANGE:
		o = ev_root(s);
		break;
	case STP_EV_TOPOLOGY_CHANGE:
		o = ev_tc(s, p);
		break;
	default:
		o = ev_other(s, ev, p);
		break;
	}
	if (!o)
		return;
	event_add_ts(o, mono_ns());
	events_send_json(s->events, o);
}

static const struct stp_ops ops = {
	.set_state = op_set_state,
	.flush = op_flush,
	.send = op_send,
	.event = op_event,
};

/* --- ports --- */

/* The link speed in Mb/s from sysfs (veth says -1): 0 when unknown. */
static uint32_t link_speed(const char *ifname)
{
	char path[64];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", ifname);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v > 0 && v < UINT32_MAX ? (uint32_t)v : 0;
}

/* A port's settings from the file (or the defaults). */
static void port_file_cfg(const struct stpd *s, const struct stpd_port *p,
			  struct stp_port_cfg *out)
{
	const struct config_port *cp = s->port_cfg ? s->port_cfg(p->ifname, s->arg) : NULL;

	config_stp_port(cp, p->host, out);
}

/* A request's fields over cfg. */
static void req_port_apply(const struct stpmap_req *r, struct stp_port_cfg *cfg)
{
	if (r->set & STPREQ_PRIORITY)
		cfg->priority = (uint8_t)r->priority;
	if (r->set & STPREQ_PATH_COST)
		cfg->path_cost = r->path_cost;
	if (r->set & STPREQ_EDGE)
		cfg->edge = (enum stp_edge)r->edge;
	if (r->set & STPREQ_BPDU_GUARD)
		cfg->bpdu_guard = r->bpdu_guard;
	if (r->set & STPREQ_ROOT_GUARD)
		cfg->root_guard = r->root_guard;
}

/* The request pending for a port slot, if it is for that port. */
static bool port_req(const struct stpd *s, unsigned int slot, struct stpmap_req *r)
{
	return s->cfg_fd >= 0 && !stpmap_get(s->cfg_fd, slot, r, sizeof(*r)) &&
	       r->ifindex == s->ports[slot].ifindex;
}

static void port_close(struct stpd_port *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* Where a packet socket is refused to a sandboxed daemon. */
static const char *sock_hint(int err)
{
	if (err != -EAFNOSUPPORT && err != -EPERM && err != -EACCES)
		return "";
	return " (a sandbox without packet sockets? The daemon needs AF_PACKET (systemd's "
	       "RestrictAddressFamilies) and CAP_NET_RAW)";
}

/* Opens the port's BPDU socket. A port without one is held discarding:
 * it can't hear a neighbour, so it can't tell a loop (and would become an
 * edge port by auto detection); the host interface's port goes on, as an
 * edge port. Said once per failure, at priority err. */
static void port_socket(struct stpd *s, unsigned int slot)
{
	struct stpd_port *p = &s->ports[slot];
	int fd = bpdu_socket(p->ifindex, s->br->prog_bpdu_fd);

	if (fd >= 0) {
		if (p->sock_err)
			log_info("stp: port %s: BPDU socket open: it takes part in the "
				 "spanning tree again", p->ifname);
		p->fd = fd;
		p->sock_err = 0;
		stp_port_hold(s->eng, slot, false);
		return;
	}
	p->sock_retry_ns = mono_ns() + STPD_SOCK_RETRY_S * XDPBR_NSEC_PER_SEC;
	if (p->sock_err == fd)
		return;
	p->sock_err = fd;
	log_err("stp: port %s: Couldn't open its BPDU socket: %s%s; %s", p->ifname,
		strerror(-fd), sock_hint(fd), p->host ?
		"the host interface's port goes on as an edge port" :
		"it is held discarding until it can hear BPDUs (tried again every 10 s)");
	if (!p->host)
		stp_port_hold(s->eng, slot, true);
}

/* What the datapath holds for the port, resumed: its state (discarding
 * where the heartbeat ran out) and its edge bit. */
static void port_resume(struct stpd *s, unsigned int slot)
{
	struct stpd_port *p = &s->ports[slot];
	enum xdpbr_stp_state st, word;
	struct xdpbr_port dp;
	bool edge;

	if (ctl_port_get(&s->br->maps, p->ifindex, &dp) ||
	    ctl_port_stp_effective(&s->br->maps, &dp, &st) ||
	    ctl_port_stp_get(&s->br->maps, p->ifindex, &word, &edge))
		return;
	stp_port_resume(s->eng, slot, st, edge);
}

/* Joins the engine: settings, link, socket; as the datapath holds it
 * while the engine starts (stp_start). */
static void port_start(struct stpd *s, unsigned int slot)
{
	struct stpd_port *p = &s->ports[slot];
	int err;

	p->speed = link_speed(p->ifname);
	s->resuming = s->starting;
	err = stp_port_add(s->eng, slot, &p->cfg, p->up, p->speed);
	if (!err && s->starting)
		port_resume(s, slot);
	s->resuming = false;
	if (err) {
		log_warn("stp: port %s: the spanning tree refused it: %s", p->ifname,
			 strerror(-err));
		return;
	}
	port_socket(s, slot);
}

static void port_join(struct stpd *s, const struct port_entry *e)
{
	unsigned int slot = e->port.slot;
	struct stpd_port *p = &s->ports[slot];
	struct stpmap_req r;

	*p = (struct stpd_port){
		.ifindex = e->ifindex, .fd = -1, .up = !(e->port.flags & XDPBR_PORT_DOWN),
		.host = !!(e->port.flags & XDPBR_PORT_HOST),
	};
	if (!if_indextoname(e->ifindex, p->ifname))
		snprintf(p->ifname, sizeof(p->ifname), "if%u", e->ifindex);
	port_file_cfg(s, p, &p->cfg);
	if (port_req(s, slot, &r)) {
		req_port_apply(&r, &p->cfg);
		p->req_seq = r.seq;
	}
	if (s->eng)
		port_start(s, slot);
}

static void port_leave(struct stpd *s, unsigned int slot)
{
	if (s->eng)
		stp_port_del(s->eng, slot);
	port_close(&s->ports[slot]);
	memset(&s->ports[slot], 0, sizeof(s->ports[slot]));
	s->ports[slot].fd = -1;
	if (s->status_fd >= 0) {
		struct stpmap_port none = { 0 };

		stpmap_put(s->status_fd, slot, &none, sizeof(none));
	}
}

/* The ports map against what the engine has: joins, leaves, links. */
static void ports_sync(struct stpd *s)
{
	bool seen[XDPBR_MAX_PORTS] = { false };
	struct port_entry *e = NULL;
	size_t n = 0;

	if (ports_dump(s->br->maps.ports, &e, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		unsigned int slot = e[i].port.slot;
		struct stpd_port *p;
		bool up = !(e[i].port.flags & XDPBR_PORT_DOWN);

		if (slot == 0 || slot >= XDPBR_MAX_PORTS)
			continue;
		seen[slot] = true;
		p = &s->ports[slot];
		if (p->ifindex != e[i].ifindex) {
			if (p->ifindex)
				port_leave(s, slot);
			port_join(s, &e[i]);
			continue;
		}
		if (p->up == up)
			continue;
		p->up = up;
		if (up)
			p->speed = link_speed(p->ifname);
		if (s->eng)
			stp_port_link(s->eng, slot, up, p->speed);
	}
	for (unsigned int slot = 1; slot < XDPBR_MAX_PORTS; slot++)
		if (!seen[slot] && s->ports[slot].ifindex)
			port_leave(s, slot);
	free(e);
}

/* --- on and off --- */

static void engine_cfg(const struct stpd *s, struct stp_bridge_cfg *bc)
{
	*bc = (struct stp_bridge_cfg){
		.priority = s->cur.priority, .hello_time = s->cur.hello_time,
		.max_age = s->cur.max_age, .forward_delay = s->cur.forward_delay,
		.tx_hold_count = 6,
	};
	memcpy(bc->mac, s->mac, 6);
}

/*
 * How long the datapath keeps the port states once the daemon is silent:
 * hello_time + 1 s, or max age if that is shorter. This bridge's own
 * hello_time, the one in its BPDUs by which its neighbours time it out,
 * not the root's (a rogue root's 255 s). Not max age itself: a
 * neighbour gives up on a silent bridge 3 x hello_time after the last BPDU
 * it heard (sent up to a hello_time before the daemon died), and one with
 * auto edge (mstpd's and Open vSwitch's default) forwards towards it a few
 * seconds later, well before max age (measured: 7.7 s with hello_time 2
 * and max_age 10, 17.7 s with 10 and 22). Ports the dead bridge still
 * forwarded on then closed a loop. Blocking at hello_time + 1 s comes
 * before any neighbour can act; the cost is that a restart slower than
 * that stops traffic on non-edge ports (links to other bridges) until the
 * new daemon beats, where it would have looped.
 */
static uint64_t heartbeat_timeout_ns(const struct stpd *s)
{
	struct stp_bridge_info info = { 0 };
	unsigned int t = (s->cur.hello_time ? s->cur.hello_time : CONFIG_STP_HELLO) + 1;

	if (s->eng)
		stp_bridge_get(s->eng, &info);	/* max age in use: the root's */
	if (!info.max_age)
		info.max_age = s->cur.max_age ? s->cur.max_age : CONFIG_STP_MAX_AGE;
	if (info.max_age < t)
		t = info.max_age;
	return (uint64_t)t * XDPBR_NSEC_PER_SEC;
}

static void heartbeat(struct stpd *s)
{
	int err = ctl_stp_heartbeat(&s->br->maps, heartbeat_timeout_ns(s));

	if (err)
		log_warn("stp: Couldn't write the heartbeat: %s", strerror(-err));
}

/* --- restart --- */

/* Whether the pinned port states are still the tree's: STP was on and the
 * last daemon's heartbeat is younger than its timeout, so the datapath
 * still enforces them. Asked before this daemon writes a heartbeat. */
static bool states_current(const struct stpd *s)
{
	struct xdpbr_stp_beat b;

	return ctl_stp_enabled(&s->br->maps) > 0 && !ctl_stp_beat_get(&s->br->maps, &b) &&
	       b.timeout_ns && !xdpbr_stp_expired(&b, mono_ns());
}

/* A port that keeps forwarding on a cold start: an edge port, the host
 * interface's or one the datapath kept forwarding as an edge while no
 * daemon ran. */
static bool keeps_forwarding(const struct stpd *s, const struct port_entry *e, bool was_on)
{
	enum xdpbr_stp_state st;
	bool edge;

	if (e->port.flags & XDPBR_PORT_HOST)
		return true;
	return was_on && !ctl_port_stp_get(&s->br->maps, e->ifindex, &st, &edge) && edge &&
	       st == XDPBR_STP_FORWARDING;
}

/* The pinned states are history: every port but the edge ports discards
 * (RSTP's BEGIN) until the engine decides it, and STP goes on in the
 * datapath, so ports attached from now on start discarding too. Before
 * any heartbeat: the datapath honours the states once one is fresh. */
static void cold_guard(struct stpd *s)
{
	bool was_on = ctl_stp_enabled(&s->br->maps) > 0;
	struct port_entry *e = NULL;
	size_t n = 0;
	int err = ports_dump(s->br->maps.ports, &e, &n);

	for (size_t i = 0; !err && i < n; i++) {
		bool keep = keeps_forwarding(s, &e[i], was_on);

		err = ctl_port_stp_set(&s->br->maps, e[i].ifindex,
				       keep ? XDPBR_STP_FORWARDING : XDPBR_STP_DISCARDING, keep);
	}
	free(e);
	if (!err)
		err = ctl_stp_enable(&s->br->maps, true);
	if (err)
		log_warn("stp: Couldn't set the ports discarding before the spanning tree "
			 "starts: %s", strerror(-err));
}

/* The root port of the daemon before, from the status it left: 0 when
 * this bridge was the root, XDPBR_MAX_PORTS when unknown. */
static unsigned int old_root_port(const struct stpd *s)
{
	struct stpmap_bridge b;
	struct xdpbr_port p;

	if (s->status_fd < 0 || stpmap_get(s->status_fd, 0, &b, sizeof(b)) || !b.enabled)
		return XDPBR_MAX_PORTS;
	if (!b.root_ifindex)
		return 0;
	return ctl_port_get(&s->br->maps, b.root_ifindex, &p) ? XDPBR_MAX_PORTS : p.slot;
}

static int stp_start(struct stpd *s)
{
	struct stp_bridge_cfg bc;
	int err;

	engine_cfg(s, &bc);
	s->eng = stp_new(&bc, &ops, s);
	if (!s->eng) {
		err = -errno;
		log_warn("stp: Couldn't start the spanning tree: %s", strerror(-err));
		return err;
	}
	if (!s->resume)
		cold_guard(s);
	/* Heartbeat first: the datapath must not find a stale one once STP
	 * is on (the fallback would block every port at once). */
	heartbeat(s);
	s->starting = true;
	for (unsigned int slot = 1; slot < XDPBR_MAX_PORTS; slot++)
		if (s->ports[slot].ifindex)
			port_start(s, slot);
	s->starting = false;
	if (s->resume)
		stp_resume_hold(s->eng, s->resume_root);
	err = ctl_stp_enable(&s->br->maps, true);
	if (err)
		log_warn("stp: Couldn't turn STP on in the datapath: %s", strerror(-err));
	log_info("stp: on (priority %u, hello_time %u, max_age %u, forward_delay %u): %s",
		 s->cur.priority, s->cur.hello_time, s->cur.max_age, s->cur.forward_delay,
		 s->resume ? "restarted within the datapath's timeout, ports resumed in the "
		 "states it holds" : "ports not edge discard until the tree decides them");
	s->resume = false;
	return err;
}

/* No port in the status map (STP off, or a previous daemon's ports). */
static void status_clear(struct stpd *s)
{
	struct stpmap_port none = { 0 };

	for (unsigned int slot = 1; s->status_fd >= 0 && slot < XDPBR_MAX_PORTS; slot++)
		stpmap_put(s->status_fd, slot, &none, sizeof(none));
}

/* STP off: every port forwards, BPDUs are flooded again. */
static void stp_stop(struct stpd *s)
{
	if (!s->eng)
		return;
	for (unsigned int slot = 1; slot < XDPBR_MAX_PORTS; slot++) {
		struct stpd_port *p = &s->ports[slot];

		if (!p->ifindex)
			continue;
		stp_port_del(s->eng, slot);
		port_close(p);
		p->sock_err = 0;
		ctl_port_stp_set(&s->br->maps, p->ifindex, XDPBR_STP_FORWARDING, false);
	}
	ctl_stp_enable(&s->br->maps, false);
	ctl_stp_heartbeat(&s->br->maps, 0);
	stp_free(s->eng);
	s->eng = NULL;
	status_clear(s);
	log_info("stp: off: every port forwards, BPDUs are flooded");
}

/* The settings in use changed: on, off, or new timers/priority. */
static void bridge_apply(struct stpd *s, const struct config_stp *next)
{
	struct stp_bridge_cfg bc;
	const char *why = stpmap_timers_check(next->hello_time, next->max_age,
						  next->forward_delay);
	bool was_on = s->eng;

	if (why) {
		log_warn("stp: settings refused: %s", why);
		return;
	}
	s->cur = *next;
	if (s->cur.on && !was_on) {
		stp_start(s);
		return;
	}
	if (!s->cur.on) {
		stp_stop(s);
		return;
	}
	engine_cfg(s, &bc);
	if (stp_bridge_set(s->eng, &bc))
		log_warn("stp: the engine refused the new bridge settings");
}

/* --- requests --- */

static void req_bridge_apply(const struct stpmap_req *r, struct config_stp *c)
{
	if (r->set & STPREQ_ON)
		c->on = r->on;
	if (r->set & STPREQ_PRIORITY)
		c->priority = (uint16_t)r->priority;
	if (r->set & STPREQ_HELLO)
		c->hello_time = r->hello_time;
	if (r->set & STPREQ_MAX_AGE)
		c->max_age = r->max_age;
	if (r->set & STPREQ_FWD_DELAY)
		c->forward_delay = r->forward_delay;
}

static void port_req_take(struct stpd *s, unsigned int slot)
{
	struct stpd_port *p = &s->ports[slot];
	struct stpmap_req r;

	if (!port_req(s, slot, &r) || r.seq == p->req_seq)
		return;
	p->req_seq = r.seq;
	port_file_cfg(s, p, &p->cfg);
	req_port_apply(&r, &p->cfg);
	log_info("stp: port %s: path_cost %u port_priority %u edge %s bpdu_guard %s "
		 "root_guard %s (xdpbr link set)", p->ifname, p->cfg.path_cost,
		 p->cfg.priority, stpmap_edge_name(p->cfg.edge),
		 p->cfg.bpdu_guard ? "on" : "off", p->cfg.root_guard ? "on" : "off");
	if (p->cfg.bpdu_guard && p->cfg.edge != STP_EDGE_ON)
		log_warn("stp: port %s: bpdu_guard does nothing with edge %s: it acts only on "
			 "an admin edge port (edge on)", p->ifname, stpmap_edge_name(p->cfg.edge));
	if (!s->eng)
		return;
	if (stp_port_set(s->eng, slot, &p->cfg))
		log_warn("stp: port %s: the engine refused its new settings", p->ifname);
	if ((r.set & STPREQ_GUARD_RESET) && !stp_port_guard_reset(s->eng, slot))
		log_info("stp: port %s: guard reset", p->ifname);
}

static void requests_take(struct stpd *s)
{
	struct stpmap_req r;

	if (s->cfg_fd < 0)
		return;
	if (!stpmap_get(s->cfg_fd, 0, &r, sizeof(r)) && r.seq != s->req_seq) {
		struct config_stp next = s->file;

		s->req_seq = r.seq;
		req_bridge_apply(&r, &next);
		log_info("stp: xdpbr bridge set: stp %s priority %u hello_time %u max_age %u "
			 "forward_delay %u", next.on ? "on" : "off", next.priority,
			 next.hello_time, next.max_age, next.forward_delay);
		bridge_apply(s, &next);
	}
	for (unsigned int slot = 1; slot < XDPBR_MAX_PORTS; slot++)
		if (s->ports[slot].ifindex)
			port_req_take(s, slot);
}

/* Reload: the requests so far give way to the file. */
static void requests_clear(struct stpd *s)
{
	for (uint32_t i = 0; s->cfg_fd >= 0 && i < XDPBR_MAX_PORTS; i++) {
		struct stpmap_req r;

		if (stpmap_get(s->cfg_fd, i, &r, sizeof(r)) || !r.set)
			continue;
		r.set = 0;
		stpmap_put(s->cfg_fd, i, &r, sizeof(r));
	}
}

/* --- status --- */

static void status_port(const struct stpd *s, unsigned int slot, struct stpmap_port *o)
{
	const struct stpd_port *p = &s->ports[slot];
	struct stp_port_info pi;

	memset(o, 0, sizeof(*o));
	if (stp_port_get(s->eng, slot, &pi))
		return;
	o->ifindex = p->ifindex;
	snprintf(o->ifname, sizeof(o->ifname), "%s", p->ifname);
	o->role = (__u8)pi.role;
	o->state = stpmap_state_code(pi.state);
	o->admin_edge = (__u8)p->cfg.edge;
	o->flags = (pi.edge ? STPMAP_P_EDGE : 0) | (pi.p2p ? STPMAP_P_P2P : 0) |
		   (pi.legacy ? STPMAP_P_LEGACY : 0) | (pi.guard_tripped ? STPMAP_P_GUARD : 0) |
		   (pi.link_up ? STPMAP_P_LINK_UP : 0) | (pi.held ? STPMAP_P_HELD : 0) |
		   (p->cfg.bpdu_guard ? STPMAP_P_BPDU_GUARD : 0) |
		   (p->cfg.root_guard ? STPMAP_P_ROOT_GUARD : 0);
	o->path_cost = pi.path_cost;
	o->port_id = pi.port_id;
	o->designated_port = pi.designated_port;
	memcpy(o->designated_bridge, pi.designated_bridge, 8);
	memcpy(o->designated_root, pi.designated_root, 8);
	o->designated_cost = pi.designated_cost;
	o->bpdus_in = pi.bpdus_in;
	o->bpdus_out = pi.bpdus_out;
	o->bad_bpdus = pi.bad_bpdus + p->bad_frames;
	o->tc_in = pi.tc_in;
	o->tc_out = pi.tc_out;
	o->guard_trips = p->guard_trips;
	o->aged_bpdus = pi.aged_bpdus;
	o->clamped_bpdus = pi.clamped_bpdus;
	o->sock_err = (__u32)-p->sock_err;
}

static void status_write(struct stpd *s)
{
	struct stpmap_bridge b = { .enabled = !!s->eng, .pid = (__u32)getpid() };
	struct stp_bridge_info bi;

	if (s->status_fd < 0)
		return;
	b.updated_ns = mono_ns();
	b.cfg_hello_time = s->cur.hello_time;
	b.cfg_max_age = s->cur.max_age;
	b.cfg_forward_delay = s->cur.forward_delay;
	if (s->eng) {
		stp_bridge_get(s->eng, &bi);
		memcpy(b.bridge_id, bi.bridge_id, 8);
		memcpy(b.root_id, bi.root_id, 8);
		b.root_ifindex = bi.root_port && bi.root_port < XDPBR_MAX_PORTS ?
				 s->ports[bi.root_port].ifindex : 0;
		b.root_path_cost = bi.root_path_cost;
		b.topology_changes = bi.topology_changes;
		b.last_tc_ns = bi.last_tc_ms * 1000000ULL;
		b.tc_active = bi.tc_active;
		b.hello_time = bi.hello_time;
		b.max_age = bi.max_age;
		b.forward_delay = bi.forward_delay;
	}
	b.fdb_flushes = s->flush->walks;
	b.fdb_flush_running = fdbflush_busy(s->flush);
	stpmap_put(s->status_fd, 0, &b, sizeof(b));
	/* The ports the engine has; the others were cleared as they left. */
	for (unsigned int slot = 1; s->eng && slot < XDPBR_MAX_PORTS; slot++) {
		struct stpmap_port o;

		if (!s->ports[slot].ifindex)
			continue;
		status_port(s, slot, &o);
		stpmap_put(s->status_fd, slot, &o, sizeof(o));
	}
}

/* --- the interface --- */

/* The settings to start with: the file's, and over them the requests made
 * with the CLI, which survive a restart as the pins do. */
static void start_cfg(const struct stpd *s, struct config_stp *next)
{
	struct stpmap_req r;

	*next = s->file;
	if (s->cfg_fd >= 0 && !stpmap_get(s->cfg_fd, 0, &r, sizeof(r)))
		req_bridge_apply(&r, next);
}

void stpd_peek(const char *bridge)
{
	struct xdpbr_stp_beat b;
	struct xdpbr_maps m;
	uint64_t now;

	if (maps_open_pinned(bridge, &m))
		return;			/* a new bridge */
	now = mono_ns();
	if (ctl_stp_enabled(&m) > 0 && !ctl_stp_beat_get(&m, &b) && b.timeout_ns) {
		bool current = !xdpbr_stp_expired(&b, now);

		/* Once, with the old timeout: however long loading takes, the
		 * states outlive the old daemon by two timeouts at most, before
		 * any neighbour gives up on this bridge (3 x hello_time). */
		if (current)
			ctl_stp_heartbeat(&m, b.timeout_ns);
		log_info("stp: the last daemon's heartbeat is %.1f s old (timeout %.1f s): the "
			 "pinned port states are %s", (double)(now - b.beat_ns) / 1e9,
			 (double)b.timeout_ns / 1e9, current ?
			 "still the tree's, kept while this daemon starts" : "history");
	}
	maps_close(&m);
}

void stpd_begin(struct stpd *s, struct bridge *br, struct fdbflush *flush,
		const struct config_stp *c)
{
	struct stpmap_req r;
	struct config_stp next;

	config_stp_effective(c, &s->file);
	s->br = br;
	s->flush = flush;
	for (int i = 0; i < XDPBR_MAX_PORTS; i++)
		s->ports[i].fd = -1;
	s->cfg_fd = stpmap_open(br->name, STPMAP_CFG, false, true);
	s->status_fd = stpmap_open(br->name, STPMAP_STATUS, false, true);
	if (s->cfg_fd < 0 || s->status_fd < 0)
		log_warn("stp: Couldn't open or pin the maps of the spanning tree (%s): "
			 "xdpbr bridge set stp and xdpbr stp show won't reach this daemon",
			 strerror(-(s->cfg_fd < 0 ? s->cfg_fd : s->status_fd)));
	if (s->cfg_fd >= 0 && !stpmap_get(s->cfg_fd, 0, &r, sizeof(r)))
		s->req_seq = r.seq;
	start_cfg(s, &next);
	s->cur = next;
	s->cur.on = false;
	if (!next.on)
		return;
	s->resume = states_current(s);
	if (s->resume)
		return;
	log_info("stp: no current port states in the pins (no heartbeat younger than its "
		 "timeout): every port but the edge ports discards until the spanning tree "
		 "has decided it");
	cold_guard(s);
}

int stpd_open(struct stpd *s, struct events *ev, const uint8_t mac[6])
{
	struct config_stp next;

	s->events = ev;
	memcpy(s->mac, mac, 6);
	start_cfg(s, &next);
	if (s->resume && !states_current(s)) {
		log_warn("stp: the datapath's timeout ran out while this daemon started: the "
			 "pinned port states are history");
		s->resume = false;
	}
	if (s->resume)
		s->resume_root = old_root_port(s);
	status_clear(s);
	ports_sync(s);
	bridge_apply(s, &next);
	if (!s->eng) {
		/* Off (or it failed): the datapath must not keep STP on. */
		ctl_stp_enable(&s->br->maps, false);
	}
	status_write(s);
	return 0;
}

void stpd_close(struct stpd *s)
{
	if (!s->br)
		return;
	for (unsigned int slot = 1; slot < XDPBR_MAX_PORTS; slot++)
		port_close(&s->ports[slot]);
	stp_free(s->eng);
	s->eng = NULL;
	if (s->cfg_fd >= 0)
		close(s->cfg_fd);
	if (s->status_fd >= 0)
		close(s->status_fd);
	s->cfg_fd = s->status_fd = -1;
	s->br = NULL;
}

void stpd_reload(struct stpd *s, const struct config_stp *c, const uint8_t mac[6])
{
	bool mac_changed = memcmp(mac, s->mac, 6);

	requests_clear(s);
	config_stp_effective(c, &s->file);
	memcpy(s->mac, mac, 6);
	if (mac_changed && s->eng)
		stp_stop(s);	/* a new bridge id: start over */
	bridge_apply(s, &s->file);
	for (unsigned int slot = 1; slot < XDPBR_MAX_PORTS; slot++) {
		struct stpd_port *p = &s->ports[slot];
		struct stp_port_cfg pc;

		if (!p->ifindex)
			continue;
		port_file_cfg(s, p, &pc);
		if (!memcmp(&pc, &p->cfg, sizeof(pc)))
			continue;
		p->cfg = pc;
		if (s->eng && stp_port_set(s->eng, slot, &pc))
			log_warn("stp: port %s: the engine refused its settings", p->ifname);
	}
}

int stpd_pollfds(const struct stpd *s, struct pollfd *pfd, int max)
{
	int n = 0;

	for (unsigned int slot = 1; slot < XDPBR_MAX_PORTS && n < max; slot++)
		if (s->ports[slot].fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = s->ports[slot].fd, .events = POLLIN };
	return n;
}

/* Reads one port's queue: at most a burst, so a flood can't hold the loop
 * (what it leaves waits for the next turn, or the socket drops it). */
static void port_input(struct stpd *s, unsigned int slot)
{
	struct stpd_port *p = &s->ports[slot];
	uint8_t buf[1600];

	for (int i = 0; i < STPD_RX_BURST && p->fd >= 0; i++) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(p->fd, buf, sizeof(buf), MSG_TRUNC, (struct sockaddr *)&from,
				     &fl);
		const uint8_t *pl;
		size_t len;

		if (n < 0)
			return;
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		pl = (size_t)n <= sizeof(buf) ? bpdu_payload(buf, (size_t)n, &len) : NULL;
		if (!pl) {
			p->bad_frames++;
			continue;
		}
		if (s->eng)
			stp_rx(s->eng, slot, pl, len);
	}
}

void stpd_input(struct stpd *s, const struct pollfd *pfd, int n)
{
	for (int i = 0; i < n; i++) {
		if (!(pfd[i].revents & POLLIN))
			continue;
		for (unsigned int slot = 1; slot < XDPBR_MAX_PORTS; slot++)
			if (s->ports[slot].fd == pfd[i].fd)
				port_input(s, slot);
	}
}

/* Ports whose BPDU socket failed: tried again when due. */
static void sockets_retry(struct stpd *s)
{
	uint64_t now = mono_ns();

	for (unsigned int slot = 1; slot < XDPBR_MAX_PORTS; slot++) {
		struct stpd_port *p = &s->ports[slot];

		if (p->ifindex && p->fd < 0 && p->sock_err && now >= p->sock_retry_ns)
			port_socket(s, slot);
	}
}

void stpd_tick(struct stpd *s)
{
	ports_sync(s);
	requests_take(s);
	if (s->eng) {
		sockets_retry(s);
		stp_tick(s->eng, now_ms());
		heartbeat(s);
	}
	status_write(s);
}

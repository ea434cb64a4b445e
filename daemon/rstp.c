// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rstp.c - Rapid Spanning Tree (IEEE 802.1D-2004 clause 17) for one bridge,
 * with STP compatibility (17.4, 17.24). See rstp.h for the interface.
 *
 * The state machines of clause 17 are written as one function each, named
 * after them: pim (Port Information, 17.27), prs (Port Role Selection,
 * 17.28), prt (Port Role Transitions, 17.29), pst (Port State Transition,
 * 17.30), tcm (Topology Change, 17.31), ppm (Port Protocol Migration, 17.24),
 * bdm (Bridge Detection, 17.25) and ptx (Port Transmit, 17.26); Port Receive
 * (17.23) is stp_rx itself and Port Timers (17.22) is tick_once. Each
 * machine function takes at most one transition and says whether it did;
 * run() calls them all until none moves, so the result is that of the
 * concurrent machines of the standard. States whose only exit is UCT are
 * not kept: their actions are done and the machine is left in the state
 * the UCT leads to (re-entering it, as the standard's diagrams do). Only
 * then does ptx transmit, so one BPDU carries the settled information.
 *
 * Names of the standard's variables are kept (rr_while is rrWhile, ...).
 * Times in priority vectors and BPDUs are in 1/256 s as on the wire;
 * timers count whole seconds, as 17.22's one-second tick.
 *
 * Choices where the standard leaves room or the daemon has no information:
 *  - every port is point-to-point (operPointToPointMAC TRUE): the ports are
 *    full-duplex Ethernet NICs and veths; so EdgeDelay is MigrateTime.
 *  - the flush of the INACTIVE state at BEGIN is not passed to ops->flush
 *    (nothing is learned yet); later ones are (a port leaving the active
 *    topology loses its entries, as 17.31 says).
 *  - a topology change is counted (and STP_EV_TOPOLOGY_CHANGE sent) as
 *    14.8.1.1.3 counts them: each time some tcWhile of this bridge runs
 *    where none ran; and, as an 802.1D-1998 bridge counts its Topology
 *    Change flag, while a legacy root's configuration BPDUs on the root
 *    port carry TC (it repeats them for max age + forward delay: one
 *    change). So a burst of TCNs is one change, a flood of them one change
 *    every hello_time + 1 s.
 *  - flushes: a port is flushed once per topology change however many
 *    BPDUs announce it (17.19.7's fdbFlush stays set until the entries are
 *    gone: asking again in the meantime asks for nothing more); a change
 *    this bridge detects (DETECTED) starts a new round.
 *  - received times are clamped to 802.1D's ranges (lib/settings.c), and
 *    information too old to be held for a second is dropped (decode).
 *  - a designated port that hears inferior designated information answers
 *    at once (pim_receive), as an 802.1D-1998 bridge does.
 *  - ops are called only once stp_tick has been called once: ports added
 *    and resumed before that do not touch the datapath (see stp_port_resume).
 *  - bpdu_guard: a tripped port is not portEnabled (role disabled, state
 *    discarding) until stp_port_guard_reset or bpdu_guard_timeout.
 *  - root_guard: a root_guard port whose received information would make it
 *    the root port is given the alternate role instead (discarding) and the
 *    root is chosen without it, for as long as that information is better
 *    (until it ages out, rcvdInfoWhile, or the peer sends worse).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xdpbr.h"
#include "settings.h"		/* the ranges */
#include "rstp.h"

#define MIGRATE_TIME	3	/* 17.13.9, seconds */
#define TX_HOLD_DEFAULT	6	/* 17.13.12 */
#define STP_MAX_PORT	(XDPBR_MAX_PORTS - 1)

/* BPDU types, flags and lengths (9.3) */
#define BPDU_CONFIG	0x00
#define BPDU_RST	0x02
#define BPDU_TCN	0x80
#define F_TC		0x01
#define F_PROPOSAL	0x02
#define F_ROLE_SHIFT	2
#define F_ROLE_MASK	0x0c
#define F_LEARNING	0x10
#define F_FORWARDING	0x20
#define F_AGREEMENT	0x40
#define F_TCA		0x80
#define ROLE_UNKNOWN	0
#define ROLE_ALT_BACKUP	1
#define ROLE_ROOT	2
#define ROLE_DESIGNATED	3
#define LEN_TCN		4
#define LEN_CONFIG	35
#define LEN_RST		36
#define ETH_HDR		14
#define LLC_HDR		3
#define FRAME_MIN	60

/* A priority vector (17.5, 17.6): the first four components are those of
 * BPDUs; rx_port (the receiving port's id) breaks ties between root paths. */
struct prio {
	uint8_t root[8];
	uint32_t cost;
	uint8_t bridge[8];
	uint16_t port;
	uint16_t rx_port;
};

struct times {				/* 1/256 s, as in BPDUs */
	uint16_t msg_age, max_age, hello, fwd_delay;
};

struct bpdu {
	uint8_t type, flags;
	struct prio prio;
	struct times times;
	bool clamped;			/* times brought into 802.1D's ranges */
};

enum info_is { INFO_DISABLED, INFO_RECEIVED, INFO_MINE, INFO_AGED };
enum rcvd_info { SUPERIOR_DESIGNATED, REPEATED_DESIGNATED, INFERIOR_DESIGNATED,
		 INFERIOR_ROOT_ALTERNATE, OTHER_INFO };
enum pim_state { PIM_DISABLED, PIM_AGED, PIM_CURRENT };
enum prt_state { PRT_ENTER, PRT_DISABLE, PRT_DISABLED, PRT_ROOT, PRT_DESIGNATED,
		 PRT_BLOCK, PRT_ALTERNATE };
enum tcm_state { TCM_INACTIVE, TCM_LEARNING, TCM_ACTIVE };
enum ppm_state { PPM_CHECKING_RSTP, PPM_SELECTING_STP, PPM_SENSING };

struct port {
	bool exists, link_up;
	struct stp_port_cfg cfg;
	uint32_t speed, path_cost;
	uint16_t port_id;

	/* 17.19 */
	bool agree, agreed, disputed, fdb_flush, forward, forwarding, learn, learning;
	bool mcheck, new_info, oper_edge, proposed, proposing, rcvd_msg, rcvd_rstp;
	bool rcvd_stp, rcvd_tc, rcvd_tcn, rcvd_tc_ack, re_root, reselect, selected;
	bool send_rstp, sync, synced, tc_ack, tc_prop, updt_info;
	enum info_is info_is;
	enum stp_role role, selected_role;
	struct prio port_prio, msg_prio, desg_prio;
	struct times port_times, msg_times, desg_times;
	struct bpdu rx;			/* what rcvdMsg refers to */

	/* 17.17 timers, seconds */
	unsigned int edge_delay_while, fd_while, hello_when, mdelay_while;
	unsigned int rb_while, rcvd_info_while, rr_while, tc_while, tx_count;

	enum pim_state pim;
	enum prt_state prt;
	enum tcm_state tcm;
	enum ppm_state ppm;
	bool ptx_init;

	bool guard_tripped, root_blocked, resumed, held;
	bool tc_flushed;		/* flushed in the current topology change */
	bool legacy_tc;			/* the last config BPDU had TC */
	unsigned int guard_while;
	bool pushed;			/* the datapath holds dp_state/dp_edge */
	enum xdpbr_stp_state dp_state;
	bool dp_edge;
	uint64_t bpdus_in, bpdus_out, bad_bpdus, tc_in, tc_out, aged_bpdus, clamped_bpdus;
};

struct stp_bridge {
	struct stp_bridge_cfg cfg;
	const struct stp_ops *ops;
	void *arg;
	uint8_t id[8];
	struct times bridge_times, root_times;
	struct prio root_prio;
	unsigned int root_port;
	bool started, in_run;
	uint64_t now_ms, sec_ms;
	unsigned int hold;		/* resume hold, seconds (stp_resume_hold) */
	unsigned int hold_port;		/* the hold ends when it hears a BPDU */
	uint64_t tc_count, last_tc_ms;
	unsigned int tc_origin;		/* where the last TC was detected or heard */
	bool tc_was_active;		/* at the end of the last run */
	struct port ports[XDPBR_MAX_PORTS];
};

#define for_each_port(b, p) \
	for (struct port *p = &(b)->ports[1]; p <= &(b)->ports[STP_MAX_PORT]; p++) \
		if (p->exists)

/* ---------------------------------------------------------------- helpers */

static void put16(uint8_t *o, uint16_t v) { o[0] = v >> 8; o[1] = v; }
static void put32(uint8_t *o, uint32_t v) { put16(o, v >> 16); put16(o + 2, v); }
static uint16_t get16(const uint8_t *i) { return (uint16_t)(i[0] << 8 | i[1]); }
static uint32_t get32(const uint8_t *i) { return (uint32_t)get16(i) << 16 | get16(i + 2); }

static unsigned int port_num(const struct stp_bridge *b, const struct port *p)
{
	return (unsigned int)(p - b->ports);
}

static struct port *get_port(struct stp_bridge *b, unsigned int num)
{
	if (num < 1 || num > STP_MAX_PORT || !b->ports[num].exists)
		return NULL;
	return &b->ports[num];
}

static void emit(struct stp_bridge *b, enum stp_event ev, unsigned int port)
{
	if (b->ops->event)
		b->ops->event(b->arg, ev, port);
}

/* Seconds of a 1/256 s time, rounded, at least min. */
static unsigned int secs(uint16_t t, unsigned int min)
{
	unsigned int s = (t + 128u) >> 8;

	return s < min ? min : s;
}

/* Compares the four BPDU components: <0 when a is better. */
static int prio_cmp(const struct prio *a, const struct prio *b)
{
	int c = memcmp(a->root, b->root, 8);

	if (c)
		return c;
	if (a->cost != b->cost)
		return a->cost < b->cost ? -1 : 1;
	c = memcmp(a->bridge, b->bridge, 8);
	if (c)
		return c;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	return 0;
}

static int root_path_cmp(const struct prio *a, const struct prio *b)
{
	int c = prio_cmp(a, b);

	if (c)
		return c;
	return a->rx_port == b->rx_port ? 0 : a->rx_port < b->rx_port ? -1 : 1;
}

/* 17.6: superior if better, or sent by the same designated bridge address
 * and port number (that port's information replaces what it sent before). */
static bool superior(const struct prio *msg, const struct prio *port)
{
	return prio_cmp(msg, port) < 0 ||
	       (!memcmp(msg->bridge + 2, port->bridge + 2, 6) &&
		(msg->port & 0xfff) == (port->port & 0xfff));
}

static bool times_eq(const struct times *a, const struct times *b)
{
	return a->msg_age == b->msg_age && a->max_age == b->max_age &&
	       a->hello == b->hello && a->fwd_delay == b->fwd_delay;
}

static bool same_address(const uint8_t *id_a, const uint8_t *id_b)
{
	return !memcmp(id_a + 2, id_b + 2, 6);
}

/* 17.14, Table 17-3: 20,000,000 / speed in Mb/s; unknown speed as 1 Gb/s. */
static uint32_t speed_cost(uint32_t mbps)
{
	uint32_t c;

	if (!mbps)
		return 20000;
	c = 20000000u / mbps;
	return c ? c : 1;
}

static bool enabled(const struct port *p)
{
	return p->exists && p->link_up && !p->guard_tripped && !p->held;
}

static bool rstp_version(const struct stp_bridge *b)
{
	return !b->cfg.force_stp;
}

/* 17.20 parameters of a port, from its designatedTimes */
static unsigned int hello_time(const struct port *p) { return secs(p->desg_times.hello, 1); }
static unsigned int max_age(const struct port *p) { return secs(p->desg_times.max_age, 1); }
static unsigned int fwd_delay(const struct port *p) { return secs(p->desg_times.fwd_delay, 1); }

static unsigned int forward_delay(const struct port *p)
{
	return p->send_rstp ? hello_time(p) : fwd_delay(p);
}

static unsigned int edge_delay(const struct port *p)
{
	return MIGRATE_TIME;		/* every port is point-to-point */
}

static bool admin_edge(const struct port *p) { return p->cfg.edge == STP_EDGE_ON; }
static bool auto_edge(const struct port *p) { return p->cfg.edge == STP_EDGE_AUTO; }

static bool root_or_designated(const struct port *p)
{
	return p->role == STP_ROLE_ROOT || p->role == STP_ROLE_DESIGNATED;
}

static void set_role(struct stp_bridge *b, struct port *p, enum stp_role r)
{
	if (p->role == r)
		return;
	p->role = r;
	emit(b, STP_EV_ROLE, port_num(b, p));
}

static bool tc_active(struct stp_bridge *b)
{
	for_each_port(b, p)
		if (p->tc_while || (p->role == STP_ROLE_ROOT && p->legacy_tc))
			return true;
	return false;
}

/* A new round of flushes: every port may be flushed once more. */
static void flush_round(struct stp_bridge *b)
{
	for_each_port(b, p)
		p->tc_flushed = false;
}

/* After each run: a topology change that began is counted, one that
 * ended lets every port be flushed again. */
static void tc_account(struct stp_bridge *b)
{
	bool active = tc_active(b);

	if (active && !b->tc_was_active) {
		b->tc_count++;
		b->last_tc_ms = b->now_ms ? b->now_ms : 1;
		emit(b, STP_EV_TOPOLOGY_CHANGE, b->tc_origin);
	} else if (!active && b->tc_was_active) {
		flush_round(b);
	}
	b->tc_was_active = active;
}

/* 17.21 procedures that act on the whole tree */
static void set_sync_tree(struct stp_bridge *b)
{
	for_each_port(b, p)
		p->sync = true;
}

static void set_reroot_tree(struct stp_bridge *b)
{
	for_each_port(b, p)
		p->re_root = true;
}

static void set_tc_prop_tree(struct stp_bridge *b, struct port *from)
{
	for_each_port(b, p)
		if (p != from)
			p->tc_prop = true;
}

static bool re_rooted(struct stp_bridge *b, const struct port *me)
{
	for_each_port(b, p)
		if (p != me && p->rr_while)
			return false;
	return true;
}

/* 17.20.3 allSynced, as refined in 802.1Q: every port selected with its
 * role in place, and synced for every port but the root port and me. */
static bool all_synced(struct stp_bridge *b, const struct port *me)
{
	for_each_port(b, p) {
		if (!p->selected || p->role != p->selected_role || p->updt_info)
			return false;
		if (p != me && p->role != STP_ROLE_ROOT && !p->synced)
			return false;
	}
	return true;
}

/* 17.21.7 */
static void new_tc_while(struct stp_bridge *b, struct port *p)
{
	if (p->tc_while)
		return;
	if (p->send_rstp) {
		p->tc_while = hello_time(p) + 1;
		p->new_info = true;
	} else {
		p->tc_while = secs(b->root_times.max_age, 1) + secs(b->root_times.fwd_delay, 1);
	}
}

/* ------------------------------------------------------------ BPDU codec */

static size_t encode(const struct stp_bridge *b, const struct port *p, uint8_t type,
		     uint8_t *o)
{
	uint8_t flags = 0;

	memset(o, 0, LEN_RST);
	o[2] = type == BPDU_RST ? 2 : 0;
	o[3] = type;
	if (type == BPDU_TCN)
		return LEN_TCN;
	if (p->tc_while)
		flags |= F_TC;
	if (type == BPDU_CONFIG) {
		if (p->tc_ack)
			flags |= F_TCA;
	} else {
		uint8_t role = ROLE_UNKNOWN;

		switch (p->role) {
		case STP_ROLE_ROOT: role = ROLE_ROOT; break;
		case STP_ROLE_DESIGNATED: role = ROLE_DESIGNATED; break;
		case STP_ROLE_ALTERNATE:
		case STP_ROLE_BACKUP: role = ROLE_ALT_BACKUP; break;
		case STP_ROLE_DISABLED: break;
		}
		flags |= role << F_ROLE_SHIFT;
		if (p->proposing)
			flags |= F_PROPOSAL;
		if (p->learning)
			flags |= F_LEARNING;
		if (p->forwarding)
			flags |= F_FORWARDING;
		if (p->agree)
			flags |= F_AGREEMENT;
	}
	o[4] = flags;
	memcpy(o + 5, p->desg_prio.root, 8);
	put32(o + 13, p->desg_prio.cost);
	memcpy(o + 17, p->desg_prio.bridge, 8);
	put16(o + 25, p->desg_prio.port);
	put16(o + 27, p->desg_times.msg_age);
	put16(o + 29, p->desg_times.max_age);
	put16(o + 31, p->desg_times.hello);
	put16(o + 33, p->desg_times.fwd_delay);
	return type == BPDU_RST ? LEN_RST : LEN_CONFIG;
}

/* t (1/256 s) into the seconds of row id's range; whether it had to be moved. */
static bool clamp_time(uint16_t *t, enum setting_id id)
{
	unsigned int lo = (unsigned int)settings[id].min, hi = (unsigned int)settings[id].max;
	uint16_t v = *t < lo << 8 ? (uint16_t)(lo << 8) :
		     *t > hi << 8 ? (uint16_t)(hi << 8) : *t;

	if (v == *t)
		return false;
	*t = v;
	return true;
}

/* A neighbour's times as this engine will use them (a bridge that sends
 * max age 255 s would otherwise keep dead information for minutes). */
static bool clamp_times(struct times *t)
{
	bool c = clamp_time(&t->max_age, SET_MAX_AGE);

	c |= clamp_time(&t->hello, SET_HELLO_TIME);
	c |= clamp_time(&t->fwd_delay, SET_FORWARD_DELAY);
	return c;
}

/* 9.3.4 validation. 0; -EBADMSG for anything not to be trusted; -ESTALE
 * for information too old to hold. */
static int decode(const uint8_t *d, size_t len, struct bpdu *out)
{
	memset(out, 0, sizeof(*out));
	if (!d || len < LEN_TCN || get16(d) != 0)
		return -EBADMSG;
	out->type = d[3];
	switch (d[3]) {
	case BPDU_TCN:
		return 0;
	case BPDU_CONFIG:
		if (len < LEN_CONFIG)
			return -EBADMSG;
		break;
	case BPDU_RST:
		if (d[2] < 2 || len < LEN_RST)
			return -EBADMSG;
		break;
	default:
		return -EBADMSG;
	}
	out->flags = d[4];
	if (out->type == BPDU_CONFIG)
		out->flags &= F_TC | F_TCA;
	memcpy(out->prio.root, d + 5, 8);
	out->prio.cost = get32(d + 13);
	memcpy(out->prio.bridge, d + 17, 8);
	out->prio.port = get16(d + 25);
	out->times.msg_age = get16(d + 27);
	out->times.max_age = get16(d + 29);
	out->times.hello = get16(d + 31);
	out->times.fwd_delay = get16(d + 33);
	out->clamped = clamp_times(&out->times);
	/* 9.3.4 a) says a config BPDU is valid while message age < max age;
	 * RST BPDUs too here, and a second earlier: such information would
	 * be aged at once (17.21.23 updtRcvdInfoWhile) after it replaced the
	 * port's, a root chosen and dropped in one go (a flap). */
	if ((uint32_t)out->times.msg_age + 256 > out->times.max_age)
		return -ESTALE;
	return 0;
}

static void transmit(struct stp_bridge *b, struct port *p, uint8_t type)
{
	uint8_t f[FRAME_MIN > ETH_HDR + LLC_HDR + LEN_RST ? FRAME_MIN : ETH_HDR + LLC_HDR + LEN_RST];
	static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x00 };
	size_t n, len;

	memset(f, 0, sizeof(f));
	n = encode(b, p, type, f + ETH_HDR + LLC_HDR);
	memcpy(f, dst, 6);
	memcpy(f + 6, b->cfg.mac, 6);
	put16(f + 12, (uint16_t)(LLC_HDR + n));
	f[14] = 0x42;
	f[15] = 0x42;
	f[16] = 0x03;
	len = ETH_HDR + LLC_HDR + n;
	if (len < FRAME_MIN)
		len = FRAME_MIN;	/* padded; the 802.3 length says what counts */
	p->bpdus_out++;
	if (type == BPDU_TCN || (f[ETH_HDR + LLC_HDR + 4] & F_TC))
		p->tc_out++;
	if (b->ops->send)
		b->ops->send(b->arg, port_num(b, p), f, len);
}

/* ------------------------------------------------- Port Information 17.27 */

static bool better_or_same_info(const struct port *p, enum info_is is)
{
	if (is == INFO_RECEIVED)
		return p->info_is == INFO_RECEIVED && prio_cmp(&p->msg_prio, &p->port_prio) <= 0;
	return p->info_is == INFO_MINE && prio_cmp(&p->desg_prio, &p->port_prio) <= 0;
}

/* The role a BPDU conveys: a config BPDU, and an RST BPDU of the Unknown
 * role (9.2.9 note), convey the designated role. */
static int rx_role(const struct bpdu *m)
{
	int role = (m->flags & F_ROLE_MASK) >> F_ROLE_SHIFT;

	if (m->type == BPDU_CONFIG || role == ROLE_UNKNOWN)
		return ROLE_DESIGNATED;
	return role;
}

/* 17.21.8 rcvInfo */
static enum rcvd_info rcv_info(struct port *p)
{
	const struct bpdu *m = &p->rx;
	int role = rx_role(m);
	int c;

	if (m->type == BPDU_TCN)
		return OTHER_INFO;
	p->msg_prio = m->prio;
	p->msg_prio.rx_port = p->port_id;
	p->msg_times = m->times;
	c = prio_cmp(&p->msg_prio, &p->port_prio);
	if (role == ROLE_DESIGNATED) {
		if (c == 0 && p->info_is == INFO_RECEIVED)
			return times_eq(&p->msg_times, &p->port_times) ?
			       REPEATED_DESIGNATED : SUPERIOR_DESIGNATED;
		if (superior(&p->msg_prio, &p->port_prio))
			return SUPERIOR_DESIGNATED;
		return INFERIOR_DESIGNATED;
	}
	if ((role == ROLE_ROOT || role == ROLE_ALT_BACKUP) && c >= 0)
		return INFERIOR_ROOT_ALTERNATE;
	return OTHER_INFO;
}

static void record_proposal(struct port *p)
{
	if (p->rx.type == BPDU_RST &&
	    (p->rx.flags & F_ROLE_MASK) >> F_ROLE_SHIFT == ROLE_DESIGNATED &&
	    (p->rx.flags & F_PROPOSAL))
		p->proposed = true;
}

static void set_tc_flags(struct port *p)
{
	if (p->rx.type == BPDU_TCN) {
		p->rcvd_tcn = true;
		return;
	}
	p->legacy_tc = p->rx.type == BPDU_CONFIG && (p->rx.flags & F_TC);
	if (p->rx.flags & F_TC)
		p->rcvd_tc = true;
	if (p->rx.type == BPDU_CONFIG && (p->rx.flags & F_TCA))
		p->rcvd_tc_ack = true;
}

static void record_dispute(struct port *p)
{
	if (p->rx.type == BPDU_RST && (p->rx.flags & F_LEARNING)) {
		p->disputed = true;
		p->agreed = false;
	}
}

/* 17.21.9, and the agreement must be about the root this port designates:
 * an agreement still in flight from before a root change (count to
 * infinity after the root is cut off) would otherwise open a loop. */
static void record_agreement(struct stp_bridge *b, struct port *p)
{
	if (rstp_version(b) && p->rx.type == BPDU_RST && (p->rx.flags & F_AGREEMENT) &&
	    !memcmp(p->rx.prio.root, p->port_prio.root, 8)) {
		p->agreed = true;
		p->proposing = false;
	} else {
		p->agreed = false;
	}
}

static void updt_rcvd_info_while(struct port *p)
{
	unsigned int hello = secs(p->port_times.hello, 1);

	if ((unsigned int)p->port_times.msg_age + 256 <= p->port_times.max_age)
		p->rcvd_info_while = 3 * hello;
	else
		p->rcvd_info_while = 0;
}

static void pim_enter_disabled(struct port *p)
{
	p->pim = PIM_DISABLED;
	p->legacy_tc = false;
	p->rcvd_msg = false;
	p->proposing = p->proposed = p->agree = p->agreed = false;
	p->rcvd_info_while = 0;
	p->info_is = INFO_DISABLED;
	p->reselect = true;
	p->selected = false;
}

static void pim_enter_aged(struct port *p)
{
	p->pim = PIM_AGED;
	p->legacy_tc = false;
	p->info_is = INFO_AGED;
	p->reselect = true;
	p->selected = false;
}

static void pim_update(struct port *p)
{
	p->proposing = p->proposed = false;
	p->agreed = p->agreed && better_or_same_info(p, INFO_MINE);
	p->synced = p->synced && p->agreed;
	p->port_prio = p->desg_prio;
	p->port_times = p->desg_times;
	p->updt_info = false;
	p->info_is = INFO_MINE;
	p->new_info = true;
	p->pim = PIM_CURRENT;
}

static void pim_receive(struct stp_bridge *b, struct port *p)
{
	switch (rcv_info(p)) {
	case SUPERIOR_DESIGNATED:
		p->agreed = p->proposing = false;
		record_proposal(p);
		set_tc_flags(p);
		p->agree = p->agree && better_or_same_info(p, INFO_RECEIVED);
		p->port_prio = p->msg_prio;
		p->port_times = p->msg_times;
		updt_rcvd_info_while(p);
		p->info_is = INFO_RECEIVED;
		p->reselect = true;
		p->selected = false;
		break;
	case REPEATED_DESIGNATED:
		record_proposal(p);
		set_tc_flags(p);
		updt_rcvd_info_while(p);
		break;
	case INFERIOR_DESIGNATED:
		record_dispute(p);
		/* Answered at once, as 802.1D-1998 8.7.1 answers one: the sender
		 * (a bridge just started claims to be the root) learns now, not a
		 * hello time later, that it is not designated here; with a hello
		 * time longer than its edge delay (3 s) it would otherwise take
		 * the link for an edge and forward. */
		if (p->info_is == INFO_MINE)
			p->new_info = true;
		break;
	case INFERIOR_ROOT_ALTERNATE:
		record_agreement(b, p);
		set_tc_flags(p);
		break;
	case OTHER_INFO:
		if (p->rx.type == BPDU_TCN)
			set_tc_flags(p);
		break;
	}
	p->rcvd_msg = false;
	p->pim = PIM_CURRENT;
}

static bool pim(struct stp_bridge *b, struct port *p)
{
	if (!enabled(p) && p->info_is != INFO_DISABLED) {
		pim_enter_disabled(p);
		return true;
	}
	switch (p->pim) {
	case PIM_DISABLED:
		if (p->rcvd_msg) {
			pim_enter_disabled(p);
			return true;
		}
		if (enabled(p)) {
			pim_enter_aged(p);
			return true;
		}
		return false;
	case PIM_AGED:
		if (p->selected && p->updt_info) {
			pim_update(p);
			return true;
		}
		return false;
	case PIM_CURRENT:
		if (p->selected && p->updt_info) {
			pim_update(p);
			return true;
		}
		if (p->info_is == INFO_RECEIVED && !p->rcvd_info_while && !p->updt_info &&
		    !p->rcvd_msg) {
			pim_enter_aged(p);
			return true;
		}
		if (p->rcvd_msg && !p->updt_info) {
			pim_receive(b, p);
			return true;
		}
		return false;
	}
	return false;
}

/* ----------------------------------------------- Port Role Selection 17.28 */

/* The best root path priority vector, ports with root_guard excluded when
 * theirs would win (they are blocked instead). NULL: this bridge is root. */
static struct port *best_root_path(struct stp_bridge *b, struct prio *best)
{
	struct port *root;

	for (;;) {
		memset(best, 0, sizeof(*best));
		memcpy(best->root, b->id, 8);
		memcpy(best->bridge, b->id, 8);
		root = NULL;
		for_each_port(b, p) {
			struct prio v;

			if (p->info_is != INFO_RECEIVED || p->root_blocked ||
			    same_address(p->port_prio.bridge, b->id))
				continue;
			v = p->port_prio;
			v.cost = v.cost > UINT32_MAX - p->path_cost ? UINT32_MAX : v.cost + p->path_cost;
			v.rx_port = p->port_id;
			if (root_path_cmp(&v, best) < 0) {
				*best = v;
				root = p;
			}
		}
		if (!root || !root->cfg.root_guard)
			return root;
		root->root_blocked = true;
	}
}

/* 17.21.25 updtRolesTree */
static void updt_roles_tree(struct stp_bridge *b)
{
	bool was_blocked[XDPBR_MAX_PORTS];
	uint8_t old_root[8];
	struct port *root;

	memcpy(old_root, b->root_prio.root, 8);
	for_each_port(b, p) {
		was_blocked[port_num(b, p)] = p->root_blocked;
		p->root_blocked = false;
	}
	root = best_root_path(b, &b->root_prio);
	b->root_port = root ? port_num(b, root) : 0;
	if (root) {
		b->root_times = root->port_times;
		b->root_times.msg_age = root->port_times.msg_age > UINT16_MAX - 256 ?
					UINT16_MAX : root->port_times.msg_age + 256;
	} else {
		b->root_times = b->bridge_times;
	}
	for_each_port(b, p) {
		memcpy(p->desg_prio.root, b->root_prio.root, 8);
		p->desg_prio.cost = b->root_prio.cost;
		memcpy(p->desg_prio.bridge, b->id, 8);
		p->desg_prio.port = p->desg_prio.rx_port = p->port_id;
		p->desg_times = b->root_times;
		p->desg_times.hello = b->bridge_times.hello;

		switch (p->info_is) {
		case INFO_DISABLED:
			p->selected_role = STP_ROLE_DISABLED;
			break;
		case INFO_AGED:
			p->selected_role = STP_ROLE_DESIGNATED;
			p->updt_info = true;
			break;
		case INFO_MINE:
			p->selected_role = STP_ROLE_DESIGNATED;
			if (prio_cmp(&p->port_prio, &p->desg_prio) ||
			    !times_eq(&p->port_times, &p->desg_times))
				p->updt_info = true;
			break;
		case INFO_RECEIVED:
			if (p == root) {
				p->selected_role = STP_ROLE_ROOT;
				p->updt_info = false;
			} else if (p->root_blocked) {
				p->selected_role = STP_ROLE_ALTERNATE;
				p->updt_info = false;
				if (!was_blocked[port_num(b, p)])
					emit(b, STP_EV_ROOT_GUARD, port_num(b, p));
			} else if (prio_cmp(&p->desg_prio, &p->port_prio) >= 0) {
				p->selected_role = same_address(p->port_prio.bridge, b->id) ?
						   STP_ROLE_BACKUP : STP_ROLE_ALTERNATE;
				p->updt_info = false;
			} else {
				p->selected_role = STP_ROLE_DESIGNATED;
				p->updt_info = true;
			}
			break;
		}
	}
	if (memcmp(old_root, b->root_prio.root, 8))
		emit(b, STP_EV_ROOT_CHANGE, b->root_port);
}

static bool prs(struct stp_bridge *b)
{
	bool any = false;

	for_each_port(b, p)
		if (p->reselect)
			any = true;
	if (!any)
		return false;
	for_each_port(b, p)
		p->reselect = false;
	updt_roles_tree(b);
	for_each_port(b, p)
		p->selected = true;
	return true;
}

/* --------------------------------------------- Port Role Transitions 17.29 */

static void prt_enter_disabled(struct port *p)
{
	p->prt = PRT_DISABLED;
	p->fd_while = max_age(p);
	p->synced = true;
	p->rr_while = 0;
	p->sync = p->re_root = false;
}

static void prt_enter_root(struct stp_bridge *b, struct port *p)
{
	p->prt = PRT_ROOT;
	set_role(b, p, STP_ROLE_ROOT);
	p->rr_while = fwd_delay(p);
}

static void prt_enter_alternate(struct port *p)
{
	p->prt = PRT_ALTERNATE;
	p->fd_while = forward_delay(p);
	p->synced = true;
	p->rr_while = 0;
	p->sync = p->re_root = false;
}

/* While a resumed bridge re-learns its tree (stp_port_resume), no port is
 * promoted to learning or forwarding, edge ports excepted. */
static bool may_promote(const struct stp_bridge *b, const struct port *p)
{
	return !b->hold || p->oper_edge;
}

static void prt_enter_role(struct stp_bridge *b, struct port *p)
{
	switch (p->selected_role) {
	case STP_ROLE_DISABLED:
		p->prt = PRT_DISABLE;
		set_role(b, p, p->selected_role);
		p->learn = p->forward = false;
		break;
	case STP_ROLE_ROOT:
		prt_enter_root(b, p);
		break;
	case STP_ROLE_DESIGNATED:
		p->prt = PRT_DESIGNATED;
		set_role(b, p, STP_ROLE_DESIGNATED);
		break;
	case STP_ROLE_ALTERNATE:
	case STP_ROLE_BACKUP:
		p->prt = PRT_BLOCK;
		set_role(b, p, p->selected_role);
		p->learn = p->forward = false;
		break;
	}
}

static bool prt_root(struct stp_bridge *b, struct port *p)
{
	bool go = !p->fd_while ||
		  (re_rooted(b, p) && !p->rb_while && rstp_version(b));

	if (p->proposed && !p->agree) {
		set_sync_tree(b);
		p->proposed = false;
	} else if ((all_synced(b, p) && !p->agree) || (p->proposed && p->agree)) {
		p->proposed = p->sync = false;
		p->agree = true;
		p->new_info = true;
	} else if (!p->forward && !p->re_root) {
		set_reroot_tree(b);
	} else if (p->rr_while != fwd_delay(p)) {
		/* re-entered below */
	} else if (p->re_root && p->forward) {
		p->re_root = false;
	} else if (go && !p->learn && may_promote(b, p)) {
		p->fd_while = forward_delay(p);
		p->learn = true;
	} else if (go && p->learn && !p->forward && may_promote(b, p)) {
		p->fd_while = 0;
		p->forward = true;
	} else {
		return false;
	}
	prt_enter_root(b, p);
	return true;
}

static bool prt_designated(struct stp_bridge *b, struct port *p)
{
	bool go = (!p->fd_while || p->agreed || p->oper_edge) &&
		  (!p->rr_while || !p->re_root) && !p->sync;

	if (!p->forward && !p->agreed && !p->proposing && !p->oper_edge) {
		p->proposing = true;
		p->edge_delay_while = edge_delay(p);
		p->new_info = true;
	} else if ((!p->learning && !p->forwarding && !p->synced) ||
		   (p->agreed && !p->synced) || (p->oper_edge && !p->synced) ||
		   (p->sync && p->synced)) {
		p->rr_while = 0;
		p->synced = true;
		p->sync = false;
	} else if (!p->rr_while && p->re_root) {
		p->re_root = false;
	} else if (((p->sync && !p->synced) || (p->re_root && p->rr_while) || p->disputed) &&
		   !p->oper_edge && (p->learn || p->forward)) {
		p->learn = p->forward = p->disputed = false;
		p->fd_while = forward_delay(p);
	} else if (go && !p->learn && may_promote(b, p)) {
		p->learn = true;
		p->fd_while = forward_delay(p);
	} else if (go && p->learn && !p->forward && may_promote(b, p)) {
		p->forward = true;
		p->fd_while = 0;
		p->agreed = p->send_rstp;
	} else {
		return false;
	}
	return true;
}

static bool prt_alternate(struct stp_bridge *b, struct port *p)
{
	if (p->proposed && !p->agree) {
		set_sync_tree(b);
		p->proposed = false;
	} else if ((all_synced(b, p) && !p->agree) || (p->proposed && p->agree)) {
		p->proposed = false;
		p->agree = true;
		p->new_info = true;
	} else if (p->role == STP_ROLE_BACKUP && p->rb_while != 2 * hello_time(p)) {
		p->rb_while = 2 * hello_time(p);
	} else if (p->fd_while != forward_delay(p) || p->sync || p->re_root || !p->synced) {
		/* re-entered below */
	} else {
		return false;
	}
	prt_enter_alternate(p);
	return true;
}

static bool prt(struct stp_bridge *b, struct port *p)
{
	if (!p->selected || p->updt_info)
		return false;
	if (p->prt == PRT_ENTER || p->role != p->selected_role) {
		prt_enter_role(b, p);
		return true;
	}
	switch (p->prt) {
	case PRT_ENTER:
		return false;
	case PRT_DISABLE:
		if (p->learning || p->forwarding)
			return false;
		prt_enter_disabled(p);
		return true;
	case PRT_DISABLED:
		if (p->fd_while == max_age(p) && !p->sync && !p->re_root && p->synced)
			return false;
		prt_enter_disabled(p);
		return true;
	case PRT_ROOT:
		return prt_root(b, p);
	case PRT_DESIGNATED:
		return prt_designated(b, p);
	case PRT_BLOCK:
		if (p->learning || p->forwarding)
			return false;
		prt_enter_alternate(p);
		return true;
	case PRT_ALTERNATE:
		return prt_alternate(b, p);
	}
	return false;
}

/* ---------------------------------------------- Port State Transition 17.30 */

static bool pst(struct stp_bridge *b, struct port *p)
{
	enum xdpbr_stp_state st = !p->learn ? XDPBR_STP_DISCARDING :
			    p->forward ? XDPBR_STP_FORWARDING : XDPBR_STP_LEARNING;
	bool edge = p->oper_edge && enabled(p);
	bool changed = p->learning != (st != XDPBR_STP_DISCARDING) ||
		       p->forwarding != (st == XDPBR_STP_FORWARDING);
	bool state_changed = !p->pushed || p->dp_state != st;

	p->learning = st != XDPBR_STP_DISCARDING;
	p->forwarding = st == XDPBR_STP_FORWARDING;
	if (p->pushed && p->dp_state == st && p->dp_edge == edge)
		return changed;

	p->pushed = true;
	p->dp_state = st;
	p->dp_edge = edge;
	if (b->ops->set_state)
		b->ops->set_state(b->arg, port_num(b, p), st, edge);
	if (state_changed)
		emit(b, STP_EV_STATE, port_num(b, p));
	return changed;
}

/* ------------------------------------------------- Topology Change 17.31 */

static void tcm_enter_learning(struct port *p)
{
	p->tcm = TCM_LEARNING;
	p->rcvd_tc = p->rcvd_tcn = p->rcvd_tc_ack = false;
	p->tc_prop = false;
}

static bool tcm(struct stp_bridge *b, struct port *p)
{
	bool rcvd = p->rcvd_tc || p->rcvd_tcn || p->rcvd_tc_ack || p->tc_prop;

	if (p->prt == PRT_ENTER)
		return false;		/* no role yet (a resumed port waits for one) */
	switch (p->tcm) {
	case TCM_INACTIVE:
		if (p->learn && !p->fdb_flush) {
			tcm_enter_learning(p);
			return true;
		}
		return false;
	case TCM_LEARNING:
		if (root_or_designated(p) && p->forward && !p->oper_edge) {
			/* DETECTED */
			b->tc_origin = port_num(b, p);
			flush_round(b);
			new_tc_while(b, p);
			set_tc_prop_tree(b, p);
			p->new_info = true;
			p->tcm = TCM_ACTIVE;
			return true;
		}
		if (rcvd) {
			tcm_enter_learning(p);
			return true;
		}
		if (!root_or_designated(p) && !(p->learn || p->learning)) {
			p->tcm = TCM_INACTIVE;
			p->fdb_flush = true;
			p->tc_while = 0;
			p->tc_ack = false;
			return true;
		}
		return false;
	case TCM_ACTIVE:
		if (!root_or_designated(p) || p->oper_edge) {
			tcm_enter_learning(p);
			return true;
		}
		if (p->rcvd_tcn || p->rcvd_tc) {
			/* NOTIFIED_TCN, NOTIFIED_TC */
			b->tc_origin = port_num(b, p);
			if (p->rcvd_tcn)
				new_tc_while(b, p);
			p->rcvd_tcn = p->rcvd_tc = false;
			if (p->role == STP_ROLE_DESIGNATED) {
				p->tc_ack = true;
				p->new_info = true;	/* acknowledge at once */
			}
			set_tc_prop_tree(b, p);
			return true;
		}
		if (p->tc_prop && !p->oper_edge) {
			/* PROPAGATING */
			new_tc_while(b, p);
			if (!p->tc_flushed)
				p->fdb_flush = p->tc_flushed = true;
			p->tc_prop = false;
			return true;
		}
		if (p->rcvd_tc_ack) {
			/* ACKNOWLEDGED */
			p->tc_while = 0;
			p->rcvd_tc_ack = false;
			return true;
		}
		return false;
	}
	return false;
}

/* 17.21.1: the FDB flush, done at once. */
static bool do_flush(struct stp_bridge *b, struct port *p)
{
	if (!p->fdb_flush)
		return false;
	p->fdb_flush = false;
	if (b->ops->flush)
		b->ops->flush(b->arg, port_num(b, p));
	return true;
}

/* ------------------------------------------ Port Protocol Migration 17.24 */

static void ppm_enter_checking(struct stp_bridge *b, struct port *p)
{
	bool was = p->send_rstp;

	p->ppm = PPM_CHECKING_RSTP;
	p->mcheck = false;
	p->send_rstp = rstp_version(b);
	p->mdelay_while = MIGRATE_TIME;
	if (was != p->send_rstp)
		emit(b, STP_EV_PROTOCOL, port_num(b, p));
}

static bool ppm(struct stp_bridge *b, struct port *p)
{
	bool en = enabled(p);

	switch (p->ppm) {
	case PPM_CHECKING_RSTP:
		if (!p->mdelay_while) {
			p->ppm = PPM_SENSING;
			p->rcvd_rstp = p->rcvd_stp = false;
			return true;
		}
		if (p->mdelay_while != MIGRATE_TIME && !en) {
			ppm_enter_checking(b, p);
			return true;
		}
		return false;
	case PPM_SELECTING_STP:
		if (!p->mdelay_while || !en || p->mcheck) {
			p->ppm = PPM_SENSING;
			p->rcvd_rstp = p->rcvd_stp = false;
			return true;
		}
		return false;
	case PPM_SENSING:
		if (!en || p->mcheck || (rstp_version(b) && !p->send_rstp && p->rcvd_rstp)) {
			ppm_enter_checking(b, p);
			return true;
		}
		if (p->send_rstp && p->rcvd_stp) {
			p->ppm = PPM_SELECTING_STP;
			p->send_rstp = false;
			p->mdelay_while = MIGRATE_TIME;
			emit(b, STP_EV_PROTOCOL, port_num(b, p));
			return true;
		}
		return false;
	}
	return false;
}

/* ------------------------------------------------ Bridge Detection 17.25 */

static bool bdm(struct stp_bridge *b, struct port *p)
{
	bool en = enabled(p);

	if (p->oper_edge) {
		if (!en && !admin_edge(p)) {
			p->oper_edge = false;
			return true;
		}
		return false;
	}
	if ((!en && admin_edge(p)) ||
	    (!p->edge_delay_while && auto_edge(p) && p->send_rstp && p->proposing)) {
		p->oper_edge = true;
		return true;
	}
	return false;
}

/* ---------------------------------------------------- Port Transmit 17.26 */

static void ptx(struct stp_bridge *b, struct port *p)
{
	if (!enabled(p)) {
		p->ptx_init = true;
		p->new_info = true;
		p->tx_count = 0;
		return;
	}
	if (p->ptx_init) {
		p->ptx_init = false;
		p->hello_when = hello_time(p);
	}
	if (!p->selected || p->updt_info || (b->hold && p->resumed))
		return;
	if (!p->hello_when) {
		p->new_info = p->new_info || p->role == STP_ROLE_DESIGNATED ||
			      (p->role == STP_ROLE_ROOT && p->tc_while);
		p->hello_when = hello_time(p);
	}
	if (!p->new_info || p->tx_count >= b->cfg.tx_hold_count)
		return;
	if (p->send_rstp) {
		transmit(b, p, BPDU_RST);
		p->tc_ack = false;
	} else if (p->role == STP_ROLE_ROOT) {
		transmit(b, p, BPDU_TCN);
	} else if (p->role == STP_ROLE_DESIGNATED) {
		/* a legacy bridge would discard it (9.3.4 a); 802.1D-1998
		 * bridges do not send it either */
		if (p->desg_times.msg_age < p->desg_times.max_age)
			transmit(b, p, BPDU_CONFIG);
		p->tc_ack = false;
	} else {
		return;
	}
	p->new_info = false;
	p->tx_count++;
	p->hello_when = hello_time(p);
}

/* ------------------------------------------------------------- the engine */

static void run(struct stp_bridge *b)
{
	if (!b->started || b->in_run)
		return;
	b->in_run = true;
	for (int i = 0; i < 1000; i++) {
		bool moved = prs(b);

		for_each_port(b, p) {
			moved |= pim(b, p);
			moved |= prt(b, p);
			moved |= pst(b, p);
			moved |= tcm(b, p);
			moved |= do_flush(b, p);
			moved |= ppm(b, p);
			moved |= bdm(b, p);
		}
		if (!moved)
			break;
	}
	tc_account(b);
	for_each_port(b, p)
		ptx(b, p);
	b->in_run = false;
}

static void dec(unsigned int *t)
{
	if (*t)
		(*t)--;
}

/* 17.22 Port Timers, and the guards' and resume hold's seconds. */
static void tick_once(struct stp_bridge *b)
{
	dec(&b->hold);
	for_each_port(b, p) {
		dec(&p->edge_delay_while);
		dec(&p->fd_while);
		dec(&p->hello_when);
		dec(&p->mdelay_while);
		dec(&p->rb_while);
		dec(&p->rcvd_info_while);
		dec(&p->rr_while);
		dec(&p->tc_while);
		dec(&p->tx_count);
		if (p->guard_tripped && p->guard_while && !--p->guard_while)
			p->guard_tripped = false;
	}
}

static void port_ids(struct stp_bridge *b, struct port *p)
{
	p->port_id = (uint16_t)(p->cfg.priority << 8 | (port_num(b, p) & 0xfff));
	p->path_cost = p->cfg.path_cost ? p->cfg.path_cost : speed_cost(p->speed);
}

/* BEGIN for one port: the initial states of every machine. */
static void port_begin(struct stp_bridge *b, struct port *p)
{
	pim_enter_disabled(p);
	p->rcvd_msg = p->rcvd_rstp = p->rcvd_stp = false;
	p->rcvd_tc = p->rcvd_tcn = p->rcvd_tc_ack = p->tc_prop = false;
	p->updt_info = p->disputed = false;
	p->selected_role = STP_ROLE_DISABLED;
	p->role = STP_ROLE_DISABLED;
	p->desg_times = b->bridge_times;
	p->port_times = b->bridge_times;
	/* INIT_PORT, then DISABLE_PORT */
	p->learn = p->forward = p->learning = p->forwarding = false;
	p->synced = false;
	p->sync = p->re_root = true;
	p->rr_while = fwd_delay(p);
	p->fd_while = max_age(p);
	p->rb_while = 0;
	p->prt = PRT_ENTER;
	/* INACTIVE (its flush skipped: nothing learned yet) */
	p->tcm = TCM_INACTIVE;
	p->fdb_flush = false;
	p->tc_while = 0;
	p->tc_ack = false;
	/* CHECKING_RSTP, EDGE or NOT_EDGE, TRANSMIT_INIT, DISCARD */
	p->ppm = PPM_CHECKING_RSTP;
	p->mcheck = false;
	p->send_rstp = rstp_version(b);
	p->mdelay_while = MIGRATE_TIME;
	p->oper_edge = admin_edge(p);
	p->ptx_init = true;
	p->new_info = true;
	p->tx_count = 0;
	p->edge_delay_while = MIGRATE_TIME;
	p->root_blocked = false;
}

static void reselect_all(struct stp_bridge *b)
{
	for_each_port(b, p) {
		p->reselect = true;
		p->selected = false;
	}
}

static bool in_range(enum setting_id id, uint64_t v)
{
	return !setting_check(&settings[id], v);
}

static int check_bridge_cfg(const struct stp_bridge_cfg *c)
{
	if (!c || !in_range(SET_PRIORITY, c->priority) || !in_range(SET_HELLO_TIME, c->hello_time) ||
	    !in_range(SET_MAX_AGE, c->max_age) || !in_range(SET_FORWARD_DELAY, c->forward_delay) ||
	    c->tx_hold_count > 10)
		return -EINVAL;
	return 0;
}

static int check_port_cfg(const struct stp_port_cfg *c)
{
	if (!c || !in_range(SET_PATH_COST, c->path_cost) ||
	    !in_range(SET_PORT_PRIORITY, c->priority) ||
	    (c->edge != STP_EDGE_OFF && c->edge != STP_EDGE_ON && c->edge != STP_EDGE_AUTO))
		return -EINVAL;
	return 0;
}

static void apply_bridge_cfg(struct stp_bridge *b, const struct stp_bridge_cfg *cfg)
{
	b->cfg = *cfg;
	if (!b->cfg.tx_hold_count)
		b->cfg.tx_hold_count = TX_HOLD_DEFAULT;
	put16(b->id, cfg->priority);
	memcpy(b->id + 2, cfg->mac, 6);
	b->bridge_times.msg_age = 0;
	b->bridge_times.max_age = (uint16_t)(cfg->max_age << 8);
	b->bridge_times.hello = (uint16_t)(cfg->hello_time << 8);
	b->bridge_times.fwd_delay = (uint16_t)(cfg->forward_delay << 8);
}

struct stp_bridge *stp_new(const struct stp_bridge_cfg *cfg, const struct stp_ops *ops,
			   void *arg)
{
	struct stp_bridge *b;

	if (check_bridge_cfg(cfg) || !ops) {
		errno = EINVAL;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->ops = ops;
	b->arg = arg;
	apply_bridge_cfg(b, cfg);
	memcpy(b->root_prio.root, b->id, 8);
	memcpy(b->root_prio.bridge, b->id, 8);
	b->root_times = b->bridge_times;
	return b;
}

void stp_free(struct stp_bridge *b)
{
	free(b);
}

int stp_bridge_set(struct stp_bridge *b, const struct stp_bridge_cfg *cfg)
{
	bool force_changed;

	if (check_bridge_cfg(cfg))
		return -EINVAL;
	force_changed = cfg->force_stp != b->cfg.force_stp;
	apply_bridge_cfg(b, cfg);
	if (force_changed)
		for_each_port(b, p)
			p->mcheck = true;	/* 17.13.4: migrate to the new version */
	reselect_all(b);
	run(b);
	return 0;
}

int stp_port_add(struct stp_bridge *b, unsigned int port, const struct stp_port_cfg *cfg,
		 bool link_up, uint32_t speed_mbps)
{
	struct port *p;

	if (port < 1 || port > STP_MAX_PORT || check_port_cfg(cfg))
		return -EINVAL;
	p = &b->ports[port];
	if (p->exists)
		return -EEXIST;
	memset(p, 0, sizeof(*p));
	p->exists = true;
	p->cfg = *cfg;
	p->link_up = link_up;
	p->speed = speed_mbps;
	port_ids(b, p);
	port_begin(b, p);
	reselect_all(b);
	run(b);
	return 0;
}

int stp_port_set(struct stp_bridge *b, unsigned int port, const struct stp_port_cfg *cfg)
{
	struct port *p = get_port(b, port);
	bool edge_changed;

	if (!p)
		return -ENOENT;
	if (check_port_cfg(cfg))
		return -EINVAL;
	edge_changed = cfg->edge != p->cfg.edge;
	p->cfg = *cfg;
	port_ids(b, p);
	if (edge_changed)
		p->oper_edge = admin_edge(p);
	if (!p->cfg.bpdu_guard || p->cfg.edge != STP_EDGE_ON)
		p->guard_tripped = false;
	if (p->info_is == INFO_MINE)
		p->updt_info = true;	/* the port id may have changed */
	reselect_all(b);
	run(b);
	return 0;
}

void stp_port_del(struct stp_bridge *b, unsigned int port)
{
	struct port *p = get_port(b, port);

	if (!p)
		return;
	memset(p, 0, sizeof(*p));
	reselect_all(b);
	run(b);
}

void stp_port_link(struct stp_bridge *b, unsigned int port, bool up, uint32_t speed_mbps)
{
	struct port *p = get_port(b, port);
	uint32_t cost;

	if (!p)
		return;
	p->link_up = up;
	p->speed = speed_mbps;
	cost = p->path_cost;
	port_ids(b, p);
	if (cost != p->path_cost)
		reselect_all(b);
	run(b);
}

int stp_port_hold(struct stp_bridge *b, unsigned int port, bool held)
{
	struct port *p = get_port(b, port);

	if (!p)
		return -ENOENT;
	p->held = held;
	run(b);
	return 0;
}

int stp_port_guard_reset(struct stp_bridge *b, unsigned int port)
{
	struct port *p = get_port(b, port);

	if (!p)
		return -ENOENT;
	p->guard_tripped = false;
	p->guard_while = 0;
	run(b);
	return 0;
}

void stp_port_mcheck(struct stp_bridge *b, unsigned int port)
{
	if (port) {
		struct port *p = get_port(b, port);

		if (p)
			p->mcheck = true;
	} else {
		for_each_port(b, p)
			p->mcheck = true;
	}
	run(b);
}

static void bad_bpdu(struct stp_bridge *b, struct port *p)
{
	p->bad_bpdus++;
	emit(b, STP_EV_BAD_BPDU, port_num(b, p));
}

/* Port Receive (17.23) with the guards in front of it. */
void stp_rx(struct stp_bridge *b, unsigned int port, const uint8_t *data, size_t len)
{
	struct port *p = get_port(b, port);
	struct bpdu m;
	int err;

	if (!p || !b->started)
		return;
	err = decode(data, len, &m);
	if (err == -EBADMSG) {
		bad_bpdu(b, p);
		return;
	}
	if (err) {
		p->aged_bpdus++;
		return;
	}
	if (!enabled(p))
		return;			/* DISCARD */
	if (m.clamped) {
		p->clamped_bpdus++;
		emit(b, STP_EV_CLAMPED, port);
	}
	p->bpdus_in++;
	if (m.type == BPDU_TCN || (m.flags & F_TC))
		p->tc_in++;
	if (m.type != BPDU_TCN && !memcmp(m.prio.bridge, b->id, 8) && m.prio.port == p->port_id)
		return;			/* our own, looped back to the port that sent it */
	if (p->cfg.bpdu_guard && admin_edge(p)) {
		p->guard_tripped = true;
		p->guard_while = p->cfg.bpdu_guard_timeout;
		emit(b, STP_EV_BPDU_GUARD, port);
		run(b);
		return;
	}
	p->rx = m;
	if (m.type == BPDU_RST)
		p->rcvd_rstp = true;
	else
		p->rcvd_stp = true;
	p->oper_edge = false;
	p->rcvd_msg = true;
	p->edge_delay_while = MIGRATE_TIME;
	run(b);
	if (b->hold && b->hold_port == port) {
		/* the old root port has heard: the tree is known again (once
		 * what it heard is in, so no port is promoted on the way) */
		b->hold = 0;
		run(b);
	}
}

void stp_tick(struct stp_bridge *b, uint64_t now_ms)
{
	uint64_t n;

	if (!b->started) {
		b->started = true;
		b->now_ms = b->sec_ms = now_ms;
		run(b);
		return;
	}
	if (now_ms <= b->now_ms)
		return;
	b->now_ms = now_ms;
	n = (now_ms - b->sec_ms) / 1000;
	if (n > 3600) {			/* a suspended machine: no need to replay it all */
		b->sec_ms = now_ms - 3600 * 1000;
		n = 3600;
	}
	for (uint64_t i = 0; i < n; i++) {
		b->sec_ms += 1000;
		tick_once(b);
		run(b);
	}
}

void stp_bridge_get(const struct stp_bridge *b, struct stp_bridge_info *info)
{
	memset(info, 0, sizeof(*info));
	memcpy(info->bridge_id, b->id, 8);
	memcpy(info->root_id, b->root_prio.root, 8);
	info->root_port = b->root_port;
	info->root_path_cost = b->root_prio.cost;
	info->topology_changes = b->tc_count;
	info->last_tc_ms = b->last_tc_ms;
	info->tc_active = tc_active((struct stp_bridge *)b);
	info->hello_time = secs(b->root_times.hello, 1);
	info->max_age = secs(b->root_times.max_age, 1);
	info->forward_delay = secs(b->root_times.fwd_delay, 1);
}

int stp_port_get(const struct stp_bridge *b, unsigned int port, struct stp_port_info *info)
{
	const struct port *p;
	const struct prio *v;

	if (port < 1 || port > STP_MAX_PORT || !b->ports[port].exists)
		return -ENOENT;
	p = &b->ports[port];
	memset(info, 0, sizeof(*info));
	info->role = p->role;
	info->state = !p->learning ? XDPBR_STP_DISCARDING :
		      p->forwarding ? XDPBR_STP_FORWARDING : XDPBR_STP_LEARNING;
	info->path_cost = p->path_cost;
	info->port_id = p->port_id;
	v = p->info_is == INFO_RECEIVED || p->info_is == INFO_MINE ? &p->port_prio : &p->desg_prio;
	memcpy(info->designated_bridge, v->bridge, 8);
	memcpy(info->designated_root, v->root, 8);
	info->designated_port = v->port;
	info->designated_cost = v->cost;
	info->edge = p->oper_edge;
	info->p2p = true;
	info->legacy = !p->send_rstp;
	info->guard_tripped = p->guard_tripped || p->root_blocked;
	info->held = p->held;
	info->link_up = p->link_up;
	info->bpdus_in = p->bpdus_in;
	info->bpdus_out = p->bpdus_out;
	info->bad_bpdus = p->bad_bpdus;
	info->tc_in = p->tc_in;
	info->tc_out = p->tc_out;
	info->aged_bpdus = p->aged_bpdus;
	info->clamped_bpdus = p->clamped_bpdus;
	return 0;
}

/*
 * Resuming after a restart. A port the datapath holds forwarding starts
 * as if its designated/root transition had completed (learn, forward,
 * synced, agreed; rrWhile 0; its Topology Change machine in ACTIVE, so
 * resuming is not a detected topology change and flushes nothing), an
 * edge port as an edge port. During the resume hold (stp_resume_hold):
 *  - resumed ports send no BPDU, so neighbours never see this bridge's
 *    half-learnt view (a bridge that has not heard its root yet claims to
 *    be the root, with the learning flag: the neighbour's designated port
 *    would take it for a dispute and block);
 *  - no port is promoted to learning/forwarding (edge ports excepted), so
 *    a partial view cannot open a loop.
 * The hold ends as soon as the old root port hears a BPDU (within the
 * root's hello_time), at once for a bridge that was the root (its view
 * is its own: it announces itself at once, before any neighbour gives up
 * on it), and after hello_time + 1 s at the latest.
 * Demotion is not delayed: a port becomes alternate or backup only on
 * information it received (fresh, from a neighbour that has a better path),
 * so a resumed port that the new tree blocks is blocked at once, and one
 * that stays root or designated keeps forwarding: as root port it never
 * needed more, as designated port it is synced (a sync from a new root
 * port's proposal finds it synced and agreed, as if its downstream had
 * agreed before the restart, which it had). Ports resumed as learning or
 * discarding start as new ports (discarding). Only before the first
 * stp_tick.
 */
void stp_port_resume(struct stp_bridge *b, unsigned int port, enum xdpbr_stp_state state,
		     bool edge)
{
	struct port *p = get_port(b, port);

	if (!p || b->started || state != XDPBR_STP_FORWARDING)
		return;
	p->resumed = true;
	p->learn = p->forward = p->learning = p->forwarding = true;
	p->synced = p->agreed = true;
	p->sync = p->re_root = false;
	p->rr_while = p->fd_while = 0;
	p->tcm = TCM_ACTIVE;
	p->oper_edge = edge || admin_edge(p);
}

void stp_resume_hold(struct stp_bridge *b, unsigned int root_port)
{
	if (b->started || !root_port)
		return;
	b->hold = b->cfg.hello_time + 1;
	b->hold_port = root_port;
}

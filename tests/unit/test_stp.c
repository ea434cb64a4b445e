// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_stp.c - daemon/rstp.c: the RSTP engine. Two to four engines are wired
 * together in memory: ops->send of one queues the BPDU for stp_rx of the
 * engine at the other end of the link (delivered after the call returns,
 * as sockets would), links go up and down, and a simulated clock advances
 * in 100 ms steps through stp_tick; a BPDU takes one step (100 ms) over a
 * link, so times count the hops of proposal/agreement. Ports not linked to an engine keep what
 * they send, for tests that play a peer by hand (legacy STP, malformed
 * BPDUs, guards). Times asserted are simulated seconds. After every BPDU,
 * tick and link change, no forwarding loop may exist. STPDEBUG=1 in the
 * environment prints a trace (BPDUs received, roles, states, links).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "xdpbr.h"
#include "rstp.h"
#include "stpstate.h"
#include "stpmap.h"
#include "settings.h"

#define NB	4		/* bridges */
#define NP	8		/* ports per bridge, 1..NP-1 */
#define NL	8		/* links */
#define QLEN	512
#define STEP	100		/* ms */
#define NEV	(STP_EV_CLAMPED + 1)

struct sim;

struct node {
	struct sim *s;
	struct stp_bridge *b;
	struct stp_bridge_cfg cfg;
	unsigned int flushes[NP];
	unsigned int events[NEV][NP];
	unsigned int set_states[NP];
	bool demoted[NP];		/* set_state other than forwarding seen */
	enum xdpbr_stp_state st[NP];
	bool edge[NP];
	/* what a port not linked to an engine sent: the BPDU (LLC payload) */
	uint8_t last[NP][64];
	size_t last_len[NP];
	unsigned int sent[NP];
	unsigned int sent_type[NP][3];	/* config, rst, tcn */
};

struct link {
	int a, pa, b, pb;
	bool up, cut;
};

struct msg {
	uint64_t due;
	int node, port;
	size_t len;
	uint8_t data[64];
};

struct sim {
	uint64_t now;
	uint64_t latency;		/* ms a BPDU takes over a link */
	bool loops_allowed;		/* a test that starts from one */
	struct node n[NB];
	struct link l[NL];
	int nl;
	struct msg q[QLEN];
	int qh, qt;
};

static struct sim S;

static struct link *link_of(struct sim *s, int node, int port, int *peer, int *pport)
{
	for (int i = 0; i < s->nl; i++) {
		struct link *l = &s->l[i];

		if (l->a == node && l->pa == port) {
			*peer = l->b;
			*pport = l->pb;
			return l;
		}
		if (l->b == node && l->pb == port) {
			*peer = l->a;
			*pport = l->pa;
			return l;
		}
	}
	return NULL;
}

static int op_set_state(void *arg, unsigned int port, enum xdpbr_stp_state st, bool edge)
{
	struct node *n = arg;

	assert_true(port > 0 && port < NP);
	n->st[port] = st;
	n->edge[port] = edge;
	n->set_states[port]++;
	if (getenv("STPDEBUG"))
		fprintf(stderr, "%6llu %c%u -> %s%s\n", (unsigned long long)S.now, 'A' + (int)(n - S.n), port,
			stp_state_word(st, true), edge ? " edge" : "");
	if (st != XDPBR_STP_FORWARDING)
		n->demoted[port] = true;
	return 0;
}

static void op_flush(void *arg, unsigned int port)
{
	struct node *n = arg;

	n->flushes[port]++;
}

static void op_event(void *arg, enum stp_event ev, unsigned int port)
{
	struct node *n = arg;

	assert_true(ev < NEV);
	if (getenv("STPDEBUG") && ev == STP_EV_ROLE) {
		struct stp_port_info pi;

		stp_port_get(n->b, port, &pi);
		fprintf(stderr, "%6llu %c%u role %s\n", (unsigned long long)S.now, 'A' + (int)(n - S.n), port, stpmap_role_name(pi.role));
	}
	if (getenv("STPDEBUG") && ev == STP_EV_ROOT_CHANGE) {
		struct stp_bridge_info bi;

		stp_bridge_get(n->b, &bi);
		fprintf(stderr, "%6llu %c root %02x%02x port %u cost %u\n", (unsigned long long)S.now, 'A' + (int)(n - S.n), bi.root_id[0], bi.root_id[1], bi.root_port, bi.root_path_cost);
	}
	if (port < NP)
		n->events[ev][port]++;
}

/* Checks the frame as 802.3 + LLC and passes its BPDU on. */
static int op_send(void *arg, unsigned int port, const void *frame, size_t len)
{
	static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x00 };
	struct node *n = arg;
	struct sim *s = n->s;
	const uint8_t *f = frame;
	size_t blen;
	struct link *l;
	int peer, pport;

	assert_true(port > 0 && port < NP);
	assert_true(len >= 60);
	assert_memory_equal(f, dst, 6);
	assert_memory_equal(f + 6, n->cfg.mac, 6);
	blen = (size_t)(f[12] << 8 | f[13]);
	assert_true(blen >= 3 + 4 && blen <= 3 + 36 && blen + 14 <= len);
	assert_int_equal(f[14], 0x42);
	assert_int_equal(f[15], 0x42);
	assert_int_equal(f[16], 0x03);
	blen -= 3;
	n->sent[port]++;
	n->sent_type[port][f[20] == 0x00 ? 0 : f[20] == 0x02 ? 1 : 2]++;
	memcpy(n->last[port], f + 17, blen);
	n->last_len[port] = blen;
	l = link_of(s, (int)(n - s->n), (int)port, &peer, &pport);
	if (!l || !l->up || l->cut)
		return 0;
	assert_true((s->qt + 1) % QLEN != s->qh);
	s->q[s->qt].due = s->now + s->latency;
	s->q[s->qt].node = peer;
	s->q[s->qt].port = pport;
	s->q[s->qt].len = blen;
	memcpy(s->q[s->qt].data, f + 17, blen);
	s->qt = (s->qt + 1) % QLEN;
	return 0;
}

static const struct stp_ops ops = {
	.set_state = op_set_state,
	.flush = op_flush,
	.send = op_send,
	.event = op_event,
};

static int uf_find(int *parent, int x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

/* No forwarding loop, ever: the links whose two ends the datapath holds
 * forwarding form a forest. Checked after every BPDU, tick and link change. */
static void check_no_loop(void)
{
	int parent[NB];

	if (S.loops_allowed)
		return;
	for (int i = 0; i < NB; i++)
		parent[i] = i;
	for (int i = 0; i < S.nl; i++) {
		const struct link *l = &S.l[i];
		int ra, rb;

		if (!l->up || S.n[l->a].st[l->pa] != XDPBR_STP_FORWARDING ||
		    S.n[l->b].st[l->pb] != XDPBR_STP_FORWARDING)
			continue;
		ra = uf_find(parent, l->a);
		rb = uf_find(parent, l->b);
		if (ra == rb)
			fail_msg("a forwarding loop at %llu ms, closed by link %d",
				 (unsigned long long)S.now, i);
		parent[ra] = rb;
	}
}

static void pump(void)
{
	int guard = 0;

	while (S.qh != S.qt && S.q[S.qh].due <= S.now) {
		struct msg m = S.q[S.qh];

		S.qh = (S.qh + 1) % QLEN;
		if (getenv("STPDEBUG"))
			fprintf(stderr, "%6llu rx %c%d flags %02x root %02x%02x cost %u bridge %02x%02x port %02x%02x age %u\n", (unsigned long long)S.now, 'A' + m.node, m.port, m.data[4], m.data[5], m.data[6], (unsigned)(m.data[13] << 24 | m.data[14] << 16 | m.data[15] << 8 | m.data[16]), m.data[17], m.data[18], m.data[25], m.data[26], m.data[27]);
		stp_rx(S.n[m.node].b, (unsigned int)m.port, m.data, m.len);
		check_no_loop();
		assert_true(++guard < 100000);
	}
}

static struct stp_bridge_cfg bcfg(uint16_t prio, uint8_t last)
{
	struct stp_bridge_cfg c = {
		.priority = prio,
		.mac = { 0x02, 0, 0, 0, 0, last },
		.hello_time = 2, .max_age = 20, .forward_delay = 15,
		.tx_hold_count = 6,
	};
	return c;
}

static struct stp_port_cfg pcfg(enum stp_edge edge)
{
	struct stp_port_cfg c = { .priority = 128, .edge = edge };

	return c;
}

/* A node's datapath before its engine speaks holds every port discarding,
 * as the daemon's cold start leaves it (a zeroed port word forwards). */
static void node_zero(int i)
{
	memset(&S.n[i], 0, sizeof(S.n[i]));
	for (int p = 0; p < NP; p++)
		S.n[i].st[p] = XDPBR_STP_DISCARDING;
}

static void sim_reset(void)
{
	for (int i = 0; i < NB; i++)
		if (S.n[i].b)
			stp_free(S.n[i].b);
	memset(&S, 0, sizeof(S));
	for (int i = 0; i < NB; i++)
		node_zero(i);
	S.now = 1000;
	S.latency = STEP;
}

static struct node *bridge(int i, uint16_t prio)
{
	struct node *n = &S.n[i];

	n->s = &S;
	n->cfg = bcfg(prio, (uint8_t)(i + 1));
	n->b = stp_new(&n->cfg, &ops, n);
	assert_non_null(n->b);
	return n;
}

static void port(int i, unsigned int p, enum stp_edge edge)
{
	struct stp_port_cfg c = pcfg(edge);

	assert_int_equal(stp_port_add(S.n[i].b, p, &c, true, 1000), 0);
}

static int connect(int a, int pa, int b, int pb)
{
	S.l[S.nl] = (struct link){ .a = a, .pa = pa, .b = b, .pb = pb, .up = true };
	return S.nl++;
}

static void start(void)
{
	for (int i = 0; i < NB; i++)
		if (S.n[i].b)
			stp_tick(S.n[i].b, S.now);
	pump();
}

static void step(void)
{
	S.now += STEP;
	for (int i = 0; i < NB; i++)
		if (S.n[i].b) {
			stp_tick(S.n[i].b, S.now);
			check_no_loop();
		}
	pump();
}

static void run_ms(uint64_t ms)
{
	for (uint64_t t = 0; t < ms; t += STEP)
		step();
}

static void link_set(int li, bool up)
{
	struct link *l = &S.l[li];

	l->up = up;
	if (getenv("STPDEBUG"))
		fprintf(stderr, "%6llu link %d %c%d-%c%d %s\n", (unsigned long long)S.now, li, 'A' + l->a, l->pa, 'A' + l->b, l->pb, up ? "up" : "down");
	stp_port_link(S.n[l->a].b, (unsigned int)l->pa, up, 1000);
	check_no_loop();
	stp_port_link(S.n[l->b].b, (unsigned int)l->pb, up, 1000);
	check_no_loop();
	pump();
}

static struct stp_port_info pinfo(int i, unsigned int p)
{
	struct stp_port_info pi;

	assert_int_equal(stp_port_get(S.n[i].b, p, &pi), 0);
	return pi;
}

static enum stp_role prole(int i, unsigned int p) { return pinfo(i, p).role; }
static enum xdpbr_stp_state pstate(int i, unsigned int p) { return pinfo(i, p).state; }

static struct stp_bridge_info binfo(int i)
{
	struct stp_bridge_info bi;

	stp_bridge_get(S.n[i].b, &bi);
	return bi;
}

static bool is(int i, unsigned int p, enum stp_role r, enum xdpbr_stp_state st)
{
	struct stp_port_info pi = pinfo(i, p);

	return pi.role == r && pi.state == st && S.n[i].st[p] == st;
}

typedef bool (*cond_fn)(void);

/* Steps until cond holds; the simulated ms it took, or fails after limit. */
static uint64_t until(cond_fn cond, uint64_t limit_ms, const char *what)
{
	uint64_t t0 = S.now;

	while (!cond()) {
		if (S.now - t0 > limit_ms)
			fail_msg("%s: not within %llu ms", what, (unsigned long long)limit_ms);
		step();
	}
	return S.now - t0;
}

/* ---------------------------------------------------------- BPDU builders */

static void put16(uint8_t *o, uint16_t v) { o[0] = v >> 8; o[1] = v & 0xff; }

/* A BPDU from bridge (prio, mac last byte) claiming root (rprio, rlast). */
static size_t mk_bpdu(uint8_t *o, uint8_t type, uint8_t flags, uint16_t rprio, uint8_t rlast,
		      uint32_t cost, uint16_t prio, uint8_t last, uint16_t port_id)
{
	memset(o, 0, 36);
	o[2] = type == 0x02 ? 2 : 0;
	o[3] = type;
	if (type == 0x80)
		return 4;
	o[4] = flags;
	put16(o + 5, rprio);
	o[7] = 0x02;
	o[12] = rlast;
	put16(o + 13, (uint16_t)(cost >> 16));
	put16(o + 15, (uint16_t)cost);
	put16(o + 17, prio);
	o[19] = 0x02;
	o[24] = last;
	put16(o + 25, port_id);
	put16(o + 27, 0);		/* message age */
	put16(o + 29, 20 << 8);
	put16(o + 31, 2 << 8);
	put16(o + 33, 15 << 8);
	return type == 0x02 ? 36 : 35;
}

#define ROLE_DESIG_FLAGS (3 << 2)

/* ------------------------------------------------------------------ tests */

/* A (mac ..01) and B (..02), same priority, joined by two links. */
static void two_bridges(void)
{
	sim_reset();
	bridge(0, 0x8000);
	bridge(1, 0x8000);
	for (unsigned int p = 1; p <= 2; p++) {
		port(0, p, STP_EDGE_AUTO);
		port(1, p, STP_EDGE_AUTO);
	}
	connect(0, 1, 1, 1);
	connect(0, 2, 1, 2);
}

static bool two_converged(void)
{
	return is(0, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING) &&
	       is(0, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING) &&
	       is(1, 1, STP_ROLE_ROOT, XDPBR_STP_FORWARDING) &&
	       is(1, 2, STP_ROLE_ALTERNATE, XDPBR_STP_DISCARDING);
}

static void test_two_bridges_two_links(void **state)
{
	uint64_t t;
	int discarding = 0;
	struct stp_bridge_info a, b;

	two_bridges();
	start();
	t = until(two_converged, 30000, "two bridges converge");
	/* proposal/agreement: two BPDU hops (100 ms each), no timer */
	assert_true(t <= 500);
	print_message("two bridges, two links: converged in %.1f s (simulated)\n", t / 1000.0);
	run_ms(30000);		/* and stays so, auto edge never kicking in */
	assert_true(two_converged());
	for (int i = 0; i < 2; i++)
		for (unsigned int p = 1; p <= 2; p++) {
			discarding += pstate(i, p) == XDPBR_STP_DISCARDING;
			assert_false(pinfo(i, p).edge);
			assert_true(pinfo(i, p).bpdus_out > 0);
		}
	assert_int_equal(discarding, 1);
	a = binfo(0);
	b = binfo(1);
	assert_int_equal(a.root_port, 0);
	assert_int_equal(b.root_port, 1);
	assert_memory_equal(a.root_id, a.bridge_id, 8);
	assert_memory_equal(b.root_id, a.bridge_id, 8);
	assert_int_equal(b.root_path_cost, 20000);
	assert_int_equal(pinfo(1, 2).designated_port, 0x8002);
	assert_memory_equal(pinfo(1, 2).designated_bridge, a.bridge_id, 8);
	assert_int_equal(a.forward_delay, 15);
	/* the root's ports never were anything but designated */
	assert_int_equal(S.n[0].events[STP_EV_ROOT_CHANGE][0], 0);
}

static bool failed_over(void)
{
	return is(1, 2, STP_ROLE_ROOT, XDPBR_STP_FORWARDING) &&
	       is(0, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING) &&
	       prole(1, 1) == STP_ROLE_DISABLED && pstate(1, 1) == XDPBR_STP_DISCARDING;
}

static void test_failover_and_back(void **state)
{
	uint64_t t;

	two_bridges();
	start();
	until(two_converged, 30000, "converge");
	run_ms(5000);
	link_set(0, false);
	t = until(failed_over, 10000, "failover");
	print_message("failover to the alternate port: %.1f s (simulated)\n", t / 1000.0);
	assert_true(t <= 1000);
	link_set(0, true);
	t = until(two_converged, 10000, "link back");
	print_message("link back up, topology restored: %.1f s (simulated)\n", t / 1000.0);
	assert_true(t <= 500);
	run_ms(10000);
	assert_true(two_converged());
}

/* A root (0x1000), B (0x2000), C (0x3000): A-B, A-C, B-C. */
static bool triangle_converged(void)
{
	return is(0, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING) &&
	       is(0, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING) &&
	       is(1, 1, STP_ROLE_ROOT, XDPBR_STP_FORWARDING) &&
	       is(2, 1, STP_ROLE_ROOT, XDPBR_STP_FORWARDING) &&
	       is(1, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING) &&
	       is(2, 2, STP_ROLE_ALTERNATE, XDPBR_STP_DISCARDING);
}

static bool c_through_b(void)
{
	return is(2, 2, STP_ROLE_ROOT, XDPBR_STP_FORWARDING) &&
	       is(1, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING);
}

static void test_triangle(void **state)
{
	uint64_t t;

	sim_reset();
	bridge(0, 0x1000);
	bridge(1, 0x2000);
	bridge(2, 0x3000);
	for (int i = 0; i < 3; i++)
		for (unsigned int p = 1; p <= 2; p++)
			port(i, p, STP_EDGE_AUTO);
	connect(0, 1, 1, 1);
	connect(0, 2, 2, 1);
	int bc = connect(1, 2, 2, 2);
	start();
	t = until(triangle_converged, 30000, "triangle");
	print_message("triangle: converged in %.1f s (simulated)\n", t / 1000.0);
	assert_true(t <= 500);
	run_ms(20000);
	assert_true(triangle_converged());
	assert_int_equal(binfo(2).root_path_cost, 20000);
	/* A-C goes down: C re-roots through B */
	link_set(1, false);
	t = until(c_through_b, 10000, "C re-roots through B");
	print_message("triangle, A-C down: C forwards through B after %.1f s\n", t / 1000.0);
	assert_true(t <= 1000);
	assert_int_equal(binfo(2).root_path_cost, 40000);
	(void)bc;
}

static bool b_is_root(void)
{
	return binfo(1).root_port == 0 && binfo(0).root_port == 1 &&
	       is(0, 1, STP_ROLE_ROOT, XDPBR_STP_FORWARDING) &&
	       is(0, 2, STP_ROLE_ALTERNATE, XDPBR_STP_DISCARDING) &&
	       is(1, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING) &&
	       is(1, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING);
}

static void test_priority_change_moves_root(void **state)
{
	struct stp_bridge_cfg c;
	uint64_t t;

	two_bridges();
	start();
	until(two_converged, 30000, "converge");
	c = S.n[1].cfg;
	c.priority = 0x1000;
	assert_int_equal(stp_bridge_set(S.n[1].b, &c), 0);
	pump();
	t = until(b_is_root, 40000, "B becomes root");
	print_message("priority change: new root in place after %.1f s (simulated)\n", t / 1000.0);
	assert_true(t <= 500);
	assert_true(S.n[0].events[STP_EV_ROOT_CHANGE][1] >= 1);
	c.priority = 1000;	/* not a multiple of 4096 */
	assert_int_equal(stp_bridge_set(S.n[1].b, &c), -EINVAL);
}

static void test_edge_admin_and_auto(void **state)
{
	uint8_t m[36];
	size_t n;
	uint64_t t0;

	sim_reset();
	bridge(0, 0x8000);
	port(0, 1, STP_EDGE_ON);
	port(0, 2, STP_EDGE_AUTO);
	port(0, 3, STP_EDGE_OFF);
	/* nothing reaches the datapath before the first tick */
	assert_int_equal(S.n[0].set_states[1], 0);
	start();
	assert_true(is(0, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_true(S.n[0].edge[1]);
	assert_true(pinfo(0, 1).edge);
	assert_int_equal(pstate(0, 2), XDPBR_STP_DISCARDING);
	t0 = S.now;
	while (pstate(0, 2) != XDPBR_STP_FORWARDING) {
		step();
		assert_true(S.now - t0 < 10000);
	}
	print_message("auto edge port forwarding after %.1f s (edgeDelay 3 s)\n",
		      (S.now - t0) / 1000.0);
	assert_true(S.now - t0 >= 2500 && S.now - t0 <= 4000);
	assert_true(pinfo(0, 2).edge);
	assert_true(S.n[0].edge[2]);
	/* a non-edge port with no peer waits for its timers */
	assert_int_equal(pstate(0, 3), XDPBR_STP_DISCARDING);
	/* a BPDU on the auto edge port: not edge any more */
	n = mk_bpdu(m, 0x02, ROLE_DESIG_FLAGS, 0xf000, 9, 0, 0xf000, 9, 0x8001);
	stp_rx(S.n[0].b, 2, m, n);
	pump();
	assert_false(pinfo(0, 2).edge);
	assert_false(S.n[0].edge[2]);
	/* inferior designated information: still designated and forwarding */
	assert_true(is(0, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	/* and the admin edge port loses operEdge on a BPDU too */
	stp_rx(S.n[0].b, 1, m, n);
	assert_false(pinfo(0, 1).edge);
	/* the ports without edge: discarding until fdWhile (max age) and
	 * forwardDelay have run */
	run_ms(25000);
	assert_int_equal(pstate(0, 3), XDPBR_STP_FORWARDING);
}

/* A root with ports 1,2 to B; B has 3 (admin edge) and 4 (non-edge, no peer). */
static void test_topology_change_flush(void **state)
{
	uint64_t tc_b, tc_a;
	unsigned int fl_b[NP], fl_a[NP];

	two_bridges();
	port(1, 3, STP_EDGE_ON);
	port(1, 4, STP_EDGE_OFF);
	port(0, 3, STP_EDGE_OFF);
	start();
	until(two_converged, 30000, "converge");
	run_ms(30000);
	assert_true(is(1, 4, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_true(is(0, 3, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_true(is(1, 3, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	run_ms(10000);		/* the start's topology changes are over */
	assert_false(binfo(0).tc_active);
	assert_false(binfo(1).tc_active);
	tc_b = binfo(1).topology_changes;
	tc_a = binfo(0).topology_changes;
	memcpy(fl_b, S.n[1].flushes, sizeof(fl_b));
	memcpy(fl_a, S.n[0].flushes, sizeof(fl_a));

	link_set(0, false);
	run_ms(1000);
	assert_true(failed_over());
	assert_int_equal(binfo(1).topology_changes, tc_b + 1);
	assert_true(binfo(1).last_tc_ms > 0);
	assert_true(S.n[1].events[STP_EV_TOPOLOGY_CHANGE][2] >= 1);
	/* B: port 4 flushed; 2 (detected it) and 3 (edge) not */
	assert_int_equal(S.n[1].flushes[4], fl_b[4] + 1);
	assert_int_equal(S.n[1].flushes[2], fl_b[2]);
	assert_int_equal(S.n[1].flushes[3], fl_b[3]);
	/* port 1 left the active topology: its entries went (17.31 INACTIVE) */
	assert_int_equal(S.n[1].flushes[1], fl_b[1] + 1);
	/* A heard the TC on port 2: flushes 3, not 2 */
	assert_int_equal(binfo(0).topology_changes, tc_a + 1);
	assert_int_equal(S.n[0].flushes[3], fl_a[3] + 1);
	assert_int_equal(S.n[0].flushes[2], fl_a[2]);
	assert_true(pinfo(0, 2).tc_in > 0);
	assert_true(pinfo(1, 2).tc_out > 0);
	run_ms(10000);
	assert_false(binfo(1).tc_active);
}

static void feed(unsigned int p, const uint8_t *m, size_t n)
{
	stp_rx(S.n[0].b, p, m, n);
	pump();
}

/* A legacy 802.1D bridge (0xf000, inferior) on A's port 1, played by hand. */
static void test_legacy_peer(void **state)
{
	uint8_t m[36];
	size_t n;
	uint64_t t_learn = 0, t_fwd = 0, t0;
	unsigned int cfg_sent, rst_sent;
	uint64_t tcs;

	sim_reset();
	bridge(0, 0x8000);
	port(0, 1, STP_EDGE_OFF);
	start();
	t0 = S.now;
	n = mk_bpdu(m, 0x00, 0, 0xf000, 9, 0, 0xf000, 9, 0x8001);
	/* the peer sends config BPDUs every 2 s until it hears ours */
	while (!pinfo(0, 1).legacy || S.n[0].sent_type[1][0] == 0) {
		if ((S.now - t0) % 2000 == 0)
			feed(1, m, n);
		step();
		assert_true(S.now - t0 < 10000);
	}
	print_message("legacy peer detected after %.1f s\n", (S.now - t0) / 1000.0);
	assert_int_equal(S.n[0].events[STP_EV_PROTOCOL][1], 1);
	assert_int_equal(S.n[0].last_len[1], 35);
	assert_int_equal(S.n[0].last[1][2], 0);		/* version 0 */
	assert_int_equal(S.n[0].last[1][3], 0x00);	/* config */
	assert_int_equal(S.n[0].last[1][4] & ~0x81, 0);	/* only TC/TCA flags */
	assert_int_equal(prole(0, 1), STP_ROLE_DESIGNATED);
	/* slow transitions: listening (discarding) then learning, fwd delay each */
	cfg_sent = S.n[0].sent_type[1][0];
	rst_sent = S.n[0].sent_type[1][1];
	while (!t_fwd) {
		step();
		if (!t_learn && S.n[0].st[1] == XDPBR_STP_LEARNING)
			t_learn = S.now;
		if (S.n[0].st[1] == XDPBR_STP_FORWARDING)
			t_fwd = S.now;
		assert_true(S.now - t0 < 60000);
	}
	print_message("legacy: learning after %.1f s, forwarding %.1f s later\n",
		      (t_learn - t0) / 1000.0, (t_fwd - t_learn) / 1000.0);
	assert_true(t_learn - t0 >= 15000);
	assert_true(t_fwd - t_learn >= 14000 && t_fwd - t_learn <= 16000);
	assert_int_equal(S.n[0].sent_type[1][1], rst_sent);	/* no RST meanwhile */
	assert_true(S.n[0].sent_type[1][0] > cfg_sent);	/* config every hello */
	/* a TCN from the peer: acknowledged (TCA) with TC set, counted */
	run_ms(40000);		/* our own change (port forwarding) is over */
	tcs = binfo(0).topology_changes;
	n = mk_bpdu(m, 0x80, 0, 0, 0, 0, 0, 0, 0);
	feed(1, m, n);
	assert_int_equal(S.n[0].last_len[1], 35);
	assert_int_equal(S.n[0].last[1][4] & 0x81, 0x81);
	assert_int_equal(binfo(0).topology_changes, tcs + 1);
	assert_true(pinfo(0, 1).tc_in >= 1);
	/* the TC flag lasts max age + forward delay */
	run_ms(30000);
	assert_int_equal(S.n[0].last[1][4] & 0x01, 0x01);
	run_ms(8000);
	assert_int_equal(S.n[0].last[1][4] & 0x01, 0);
	/* the peer now talks RSTP: back to RSTP after mdelayWhile */
	n = mk_bpdu(m, 0x02, ROLE_DESIG_FLAGS, 0xf000, 9, 0, 0xf000, 9, 0x8001);
	t0 = S.now;
	while (pinfo(0, 1).legacy) {
		if ((S.now - t0) % 2000 == 0)
			feed(1, m, n);
		step();
		assert_true(S.now - t0 < 10000);
	}
	run_ms(2100);
	assert_int_equal(S.n[0].last_len[1], 36);
	assert_int_equal(S.n[0].last[1][2], 2);
	assert_int_equal(S.n[0].last[1][3], 0x02);
	assert_int_equal(pstate(0, 1), XDPBR_STP_FORWARDING);
}

/* mcheck, and a legacy root: our root port sends TCNs until acknowledged. */
static void test_legacy_root_tcn_and_mcheck(void **state)
{
	uint8_t m[36];
	size_t n;
	unsigned int tcn, flushes, flushes1;
	uint64_t tcs;

	sim_reset();
	bridge(0, 0x8000);
	bridge(1, 0x9000);
	port(0, 1, STP_EDGE_OFF);
	port(0, 2, STP_EDGE_OFF);
	port(1, 1, STP_EDGE_OFF);
	connect(0, 2, 1, 1);
	start();
	n = mk_bpdu(m, 0x00, 0, 0x1000, 9, 0, 0x1000, 9, 0x8001);
	for (int i = 0; i < 60 * 10; i++) {
		if (i % 20 == 0)
			feed(1, m, n);
		step();
	}
	assert_true(pinfo(0, 1).legacy);
	assert_true(is(0, 1, STP_ROLE_ROOT, XDPBR_STP_FORWARDING));
	assert_true(is(0, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_true(is(1, 1, STP_ROLE_ROOT, XDPBR_STP_FORWARDING));
	/* a legacy root port sends no config BPDUs */
	assert_int_equal(S.n[0].sent_type[1][0], 0);
	/* a topology change behind A (B's link flaps): TCN towards the root */
	tcn = S.n[0].sent_type[1][2];
	link_set(0, false);
	link_set(0, true);
	for (int i = 0; i < 50; i++) {
		if (i % 20 == 0)
			feed(1, m, n);
		step();
	}
	assert_true(S.n[0].sent_type[1][2] > tcn);
	assert_int_equal(S.n[0].last_len[1], 4);
	assert_int_equal(S.n[0].last[1][3], 0x80);
	/* the root acknowledges: TCNs stop */
	m[4] = 0x81;
	feed(1, m, n);
	m[4] = 0;
	tcn = S.n[0].sent_type[1][2];
	for (int i = 0; i < 100; i++) {
		if (i % 20 == 0)
			feed(1, m, n);
		step();
	}
	assert_int_equal(S.n[0].sent_type[1][2], tcn);
	/* the legacy root sets TC in every config BPDU for max age + forward
	 * delay: that is one topology change, flushing the other ports */
	run_ms(60000);
	tcs = binfo(0).topology_changes;
	flushes = S.n[0].flushes[2];
	flushes1 = S.n[0].flushes[1];
	m[4] = 0x01;
	for (int i = 0; i < 350; i++) {
		if (i % 20 == 0)
			feed(1, m, n);
		step();
	}
	m[4] = 0;
	assert_int_equal(binfo(0).topology_changes, tcs + 1);
	assert_true(S.n[0].flushes[2] > flushes);
	assert_int_equal(S.n[0].flushes[1], flushes1);	/* not where it came from */
	/* mcheck: RSTP again at once (and back to legacy while the root is legacy) */
	stp_port_mcheck(S.n[0].b, 1);
	assert_false(pinfo(0, 1).legacy);
	assert_int_equal(S.n[0].events[STP_EV_PROTOCOL][1], 2);
	stp_port_mcheck(S.n[0].b, 0);
	for (int i = 0; i < 100; i++) {
		if (i % 20 == 0)
			feed(1, m, n);
		step();
	}
	assert_true(pinfo(0, 1).legacy);
	assert_true(is(0, 1, STP_ROLE_ROOT, XDPBR_STP_FORWARDING));
}

static void test_bpdu_guard(void **state)
{
	struct stp_port_cfg c = pcfg(STP_EDGE_ON);
	uint8_t m[36];
	size_t n;

	sim_reset();
	bridge(0, 0x8000);
	c.bpdu_guard = true;
	c.bpdu_guard_timeout = 10;
	assert_int_equal(stp_port_add(S.n[0].b, 1, &c, true, 1000), 0);
	start();
	assert_true(is(0, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	n = mk_bpdu(m, 0x02, ROLE_DESIG_FLAGS, 0xf000, 9, 0, 0xf000, 9, 0x8001);
	feed(1, m, n);
	assert_int_equal(S.n[0].events[STP_EV_BPDU_GUARD][1], 1);
	assert_int_equal(S.n[0].st[1], XDPBR_STP_DISCARDING);
	assert_true(pinfo(0, 1).guard_tripped);
	assert_false(S.n[0].edge[1]);
	run_ms(5000);
	assert_int_equal(pstate(0, 1), XDPBR_STP_DISCARDING);
	/* reset: forwarding at once (admin edge) */
	assert_int_equal(stp_port_guard_reset(S.n[0].b, 1), 0);
	assert_true(is(0, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_false(pinfo(0, 1).guard_tripped);
	assert_int_equal(stp_port_guard_reset(S.n[0].b, 5), -ENOENT);
	/* trip again, and the timeout lifts it */
	feed(1, m, n);
	assert_int_equal(S.n[0].events[STP_EV_BPDU_GUARD][1], 2);
	assert_int_equal(S.n[0].st[1], XDPBR_STP_DISCARDING);
	run_ms(8000);
	assert_int_equal(pstate(0, 1), XDPBR_STP_DISCARDING);
	run_ms(3000);
	assert_true(is(0, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	/* a port without the guard only loses edge */
	c.bpdu_guard = false;
	assert_int_equal(stp_port_set(S.n[0].b, 1, &c), 0);
	feed(1, m, n);
	assert_int_equal(S.n[0].events[STP_EV_BPDU_GUARD][1], 2);
	assert_false(pinfo(0, 1).guard_tripped);
}

static void test_root_guard(void **state)
{
	struct stp_port_cfg c = pcfg(STP_EDGE_AUTO);
	struct stp_bridge_cfg bc;

	sim_reset();
	bridge(0, 0x8000);
	bridge(1, 0x1000);	/* better */
	c.root_guard = true;
	assert_int_equal(stp_port_add(S.n[0].b, 1, &c, true, 1000), 0);
	port(0, 2, STP_EDGE_ON);
	port(1, 1, STP_EDGE_AUTO);
	connect(0, 1, 1, 1);
	start();
	run_ms(5000);
	assert_true(is(0, 1, STP_ROLE_ALTERNATE, XDPBR_STP_DISCARDING));
	assert_true(pinfo(0, 1).guard_tripped);
	assert_int_equal(S.n[0].events[STP_EV_ROOT_GUARD][1], 1);
	assert_int_equal(binfo(0).root_port, 0);	/* A stays its own root */
	assert_true(is(0, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	run_ms(20000);
	assert_int_equal(S.n[0].events[STP_EV_ROOT_GUARD][1], 1);
	assert_int_equal(pstate(0, 1), XDPBR_STP_DISCARDING);
	/* the superior information stops and ages out (3 x hello) */
	S.l[0].cut = true;
	run_ms(8000);
	assert_int_equal(prole(0, 1), STP_ROLE_DESIGNATED);
	assert_false(pinfo(0, 1).guard_tripped);
	/* the peer becomes inferior: the port is a normal designated port */
	S.l[0].cut = false;
	bc = S.n[1].cfg;
	bc.priority = 0xf000;
	assert_int_equal(stp_bridge_set(S.n[1].b, &bc), 0);
	pump();
	run_ms(40000);
	assert_true(is(0, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_true(is(1, 1, STP_ROLE_ROOT, XDPBR_STP_FORWARDING));
	assert_int_equal(S.n[0].events[STP_EV_ROOT_GUARD][1], 1);
}

static void test_malformed(void **state)
{
	uint8_t m[64];
	size_t n;
	uint64_t bad = 0;
	struct stp_bridge_info before;

	sim_reset();
	bridge(0, 0x8000);
	port(0, 1, STP_EDGE_OFF);
	start();
	run_ms(3000);
	before = binfo(0);

#define BAD(len) do { feed(1, m, (len)); bad++; \
		assert_int_equal(pinfo(0, 1).bad_bpdus, bad); \
		assert_int_equal(S.n[0].events[STP_EV_BAD_BPDU][1], bad); } while (0)
	/* better root claims, each malformed one way */
	n = mk_bpdu(m, 0x02, ROLE_DESIG_FLAGS, 0x1000, 9, 0, 0x1000, 9, 0x8001);
	BAD(3);				/* short */
	BAD(0);
	stp_rx(S.n[0].b, 1, NULL, 0);
	bad++;
	m[0] = 1;			/* protocol identifier */
	BAD(n);
	m[0] = 0;
	m[2] = 0;			/* RST type with version 0 */
	BAD(n);
	m[2] = 1;
	BAD(n);
	m[2] = 2;
	m[3] = 0x01;			/* unknown type */
	BAD(n);
	m[3] = 0xff;
	BAD(n);
	m[3] = 0x02;
	BAD(35);			/* truncated RST */
	BAD(20);
	n = mk_bpdu(m, 0x00, 0, 0x1000, 9, 0, 0x1000, 9, 0x8001);
	BAD(34);			/* truncated config */
#undef BAD
	/* information too old to hold: message age + 1 s past max age, config
	 * (9.3.4 a) or RST (it would age out at once, 17.21.23): dropped and
	 * counted as aged, not as malformed */
	put16(m + 27, 20 << 8);		/* message age == max age */
	feed(1, m, n);
	put16(m + 27, 21 << 8);
	feed(1, m, n);
	put16(m + 27, (19 << 8) + 128);	/* 19.5 s */
	feed(1, m, n);
	n = mk_bpdu(m, 0x02, ROLE_DESIG_FLAGS, 0x1000, 9, 0, 0x1000, 9, 0x8001);
	put16(m + 27, 20 << 8);
	feed(1, m, n);
	assert_int_equal(pinfo(0, 1).aged_bpdus, 4);
	assert_int_equal(pinfo(0, 1).bad_bpdus, bad);
	/* nothing of it was trusted */
	run_ms(3000);
	assert_memory_equal(binfo(0).root_id, before.root_id, 8);
	assert_int_equal(pinfo(0, 1).bpdus_in, 0);
	assert_int_equal(prole(0, 1), STP_ROLE_DESIGNATED);
	assert_int_equal(S.n[0].events[STP_EV_ROOT_CHANGE][0] + S.n[0].events[STP_EV_ROOT_CHANGE][1],
			 0);
	/* the same bytes, well formed, are */
	put16(m + 27, 19 << 8);		/* 19 s: held for a second */
	feed(1, m, n);
	assert_int_equal(pinfo(0, 1).bpdus_in, 1);
	assert_int_equal(pinfo(0, 1).aged_bpdus, 4);
	assert_int_equal(binfo(0).root_port, 1);
	n = mk_bpdu(m, 0x02, ROLE_DESIG_FLAGS, 0x1000, 9, 0, 0x1000, 9, 0x8001);
	feed(1, m, n);
	assert_int_equal(pinfo(0, 1).bpdus_in, 2);
	assert_int_equal(pinfo(0, 1).bad_bpdus, bad);
	assert_int_equal(binfo(0).root_port, 1);
	assert_int_equal(prole(0, 1), STP_ROLE_ROOT);
	/* config BPDUs of any version and RST of version > 2 are valid (9.3.4) */
	n = mk_bpdu(m, 0x00, 0, 0x1000, 9, 0, 0x1000, 9, 0x8001);
	m[2] = 3;
	feed(1, m, n);
	n = mk_bpdu(m, 0x02, ROLE_DESIG_FLAGS, 0x1000, 9, 0, 0x1000, 9, 0x8001);
	m[2] = 4;
	feed(1, m, n + 10);
	assert_int_equal(pinfo(0, 1).bpdus_in, 4);
	assert_int_equal(pinfo(0, 1).bad_bpdus, bad);
	/* a port that does not exist: ignored */
	stp_rx(S.n[0].b, 7, m, n);
	stp_rx(S.n[0].b, 0, m, n);
	stp_rx(S.n[0].b, 5000, m, n);
}

/* A superior BPDU whose times are out of 802.1D's ranges (255 s each): a
 * better root is a better root, but its times are taken clamped, so the
 * information ages within 3 x 10 s, not 12 minutes, and what the bridge
 * sends on is within range too. The same from the root itself (spoofed, or
 * misconfigured): the root stays, its times clamped. Max age 0: 6 s. */
static void test_rogue_timers(void **state)
{
	uint8_t m[36];
	size_t n;
	struct stp_bridge_info bi;

	sim_reset();
	bridge(0, 0x8000);
	port(0, 1, STP_EDGE_OFF);
	port(0, 2, STP_EDGE_OFF);
	start();
	run_ms(3000);
	n = mk_bpdu(m, 0x02, ROLE_DESIG_FLAGS, 0x1000, 9, 0, 0x1000, 9, 0x8001);
	put16(m + 29, 255 << 8);
	put16(m + 31, 255 << 8);
	put16(m + 33, 255 << 8);
	feed(1, m, n);
	bi = binfo(0);
	assert_int_equal(bi.root_port, 1);
	assert_int_equal(bi.max_age, settings[SET_MAX_AGE].max);
	assert_int_equal(bi.hello_time, settings[SET_HELLO_TIME].max);
	assert_int_equal(bi.forward_delay, settings[SET_FORWARD_DELAY].max);
	assert_int_equal(pinfo(0, 1).clamped_bpdus, 1);
	assert_int_equal(S.n[0].events[STP_EV_CLAMPED][1], 1);
	/* passed on clamped: max age, forward delay within range on port 2;
	 * the hello time in BPDUs is this bridge's own */
	run_ms(3000);
	assert_int_equal(S.n[0].last[2][29], settings[SET_MAX_AGE].max);
	assert_int_equal(S.n[0].last[2][33], settings[SET_FORWARD_DELAY].max);
	assert_int_equal(S.n[0].last[2][31], 2);
	/* the root repeats itself with times of 0: 6 s, 1 s, 4 s */
	put16(m + 29, 0);
	put16(m + 31, 0);
	put16(m + 33, 0);
	feed(1, m, n);
	bi = binfo(0);
	assert_int_equal(bi.root_port, 1);
	assert_int_equal(bi.max_age, settings[SET_MAX_AGE].min);
	assert_int_equal(bi.hello_time, settings[SET_HELLO_TIME].min);
	assert_int_equal(bi.forward_delay, settings[SET_FORWARD_DELAY].min);
	assert_int_equal(pinfo(0, 1).clamped_bpdus, 2);
	/* its information ages out after 3 x 1 s, as clamped */
	run_ms(3500);
	assert_int_equal(binfo(0).root_port, 0);
	/* in range: not counted */
	n = mk_bpdu(m, 0x02, ROLE_DESIG_FLAGS, 0x1000, 9, 0, 0x1000, 9, 0x8001);
	feed(1, m, n);
	assert_int_equal(pinfo(0, 1).clamped_bpdus, 2);
	assert_int_equal(binfo(0).max_age, 20);
}

/* A bridge with 7 ports (6 to peers that say nothing but are not edge, 1
 * an edge port) hears 300 TCNs on port 1 within a second: one topology
 * change, each other non-edge port flushed once, the edge port never, the
 * port they came from never. Once the change is over (tcWhile, hello + 1
 * s), the next TCN is a new change and flushes once more. A change the
 * bridge detects itself meanwhile starts a new round. */
static void test_tcn_burst_one_flush(void **state)
{
	uint8_t m[36];
	size_t n;
	uint64_t tcs;
	unsigned int fl[NP];

	sim_reset();
	bridge(0, 0x8000);
	for (unsigned int p = 1; p < NP; p++)
		port(0, p, p == NP - 1 ? STP_EDGE_ON : STP_EDGE_OFF);
	start();
	run_ms(60000);		/* every port forwarding, the start's changes over */
	for (unsigned int p = 1; p < NP; p++)
		assert_int_equal(pstate(0, p), XDPBR_STP_FORWARDING);
	assert_false(binfo(0).tc_active);
	tcs = binfo(0).topology_changes;
	memcpy(fl, S.n[0].flushes, sizeof(fl));
	n = mk_bpdu(m, 0x80, 0, 0, 0, 0, 0, 0, 0);
	for (int i = 0; i < 300; i++) {
		feed(1, m, n);
		if (i % 30 == 29)
			step();
	}
	assert_int_equal(binfo(0).topology_changes, tcs + 1);
	assert_int_equal(pinfo(0, 1).tc_in, 300);
	assert_int_equal(S.n[0].flushes[1], fl[1]);
	assert_int_equal(S.n[0].flushes[NP - 1], fl[NP - 1]);
	for (unsigned int p = 2; p < NP - 1; p++)
		assert_int_equal(S.n[0].flushes[p], fl[p] + 1);
	assert_int_equal(S.n[0].events[STP_EV_TOPOLOGY_CHANGE][1], 1);
	/* over after tcWhile (hello 2 + 1 s): the next TCN is a new change */
	run_ms(3100);
	assert_false(binfo(0).tc_active);
	feed(1, m, n);
	feed(1, m, n);
	assert_int_equal(binfo(0).topology_changes, tcs + 2);
	for (unsigned int p = 2; p < NP - 1; p++)
		assert_int_equal(S.n[0].flushes[p], fl[p] + 2);
	/* port 2 goes down and up: detected on port 2 when it forwards again,
	 * a new round (the others flushed again) within the change */
	link_set(0, false);
	stp_port_link(S.n[0].b, 2, false, 1000);
	stp_port_link(S.n[0].b, 2, true, 1000);
	run_ms(40000);
	assert_int_equal(S.n[0].flushes[3], fl[3] + 3);
	assert_int_equal(S.n[0].flushes[NP - 1], fl[NP - 1]);
}

/* A port without a BPDU socket (stp_port_hold): discarding, not edge,
 * even an admin edge port, until released. */
static void test_port_hold(void **state)
{
	sim_reset();
	bridge(0, 0x8000);
	port(0, 1, STP_EDGE_ON);
	port(0, 2, STP_EDGE_AUTO);
	assert_int_equal(stp_port_hold(S.n[0].b, 2, true), 0);
	start();
	run_ms(10000);		/* auto edge would have made it forward */
	assert_true(is(0, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_true(is(0, 2, STP_ROLE_DISABLED, XDPBR_STP_DISCARDING));
	assert_false(S.n[0].edge[2]);
	assert_true(pinfo(0, 2).held);
	assert_int_equal(S.n[0].sent[2], 0);
	assert_int_equal(stp_port_hold(S.n[0].b, 1, true), 0);
	assert_true(is(0, 1, STP_ROLE_DISABLED, XDPBR_STP_DISCARDING));
	assert_false(S.n[0].edge[1]);
	assert_int_equal(stp_port_hold(S.n[0].b, 1, false), 0);
	assert_true(is(0, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_int_equal(stp_port_hold(S.n[0].b, 2, false), 0);
	assert_false(pinfo(0, 2).held);
	run_ms(10000);
	assert_true(is(0, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_int_equal(stp_port_hold(S.n[0].b, 5, true), -ENOENT);
}

/* Node i restarts within the datapath's timeout: a new engine with the
 * same configuration (ports 1, 2 auto edge, port 3 admin edge), the
 * datapath keeping its states and edge bits, which the new engine resumes,
 * with the hold on the old root port (as daemon/stpd.c does); 1.5 s pass
 * (BPDUs to it are lost) before its first tick. */
static struct node *restart(int i, unsigned int nports)
{
	enum xdpbr_stp_state held[NP];
	bool edge[NP];
	uint16_t prio = S.n[i].cfg.priority;
	unsigned int root_port = binfo(i).root_port;
	struct node *n;

	memcpy(held, S.n[i].st, sizeof(held));
	memcpy(edge, S.n[i].edge, sizeof(edge));
	stp_free(S.n[i].b);
	node_zero(i);
	memcpy(S.n[i].st, held, sizeof(held));
	memcpy(S.n[i].edge, edge, sizeof(edge));
	n = bridge(i, prio);
	for (unsigned int p = 1; p <= nports; p++) {
		port(i, p, p == 3 ? STP_EDGE_ON : STP_EDGE_AUTO);
		stp_port_resume(n->b, p, held[p], edge[p]);
	}
	stp_resume_hold(n->b, root_port);
	assert_int_equal(n->set_states[1] + n->set_states[2], 0);
	run_ms(1500);
	stp_tick(n->b, S.now);
	pump();
	return n;
}

static void test_resume_keeps_forwarding(void **state)
{
	uint64_t tc_a;
	unsigned int fl_a[NP];
	struct node *b;

	two_bridges();
	port(1, 3, STP_EDGE_ON);
	start();
	until(two_converged, 30000, "converge");
	run_ms(30000);
	tc_a = binfo(0).topology_changes;
	memcpy(fl_a, S.n[0].flushes, sizeof(fl_a));

	b = restart(1, 3);
	run_ms(30000);
	assert_true(two_converged());
	assert_false(b->demoted[1]);
	assert_false(b->demoted[3]);
	assert_true(is(1, 3, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_int_equal(binfo(1).topology_changes, 0);
	assert_int_equal(binfo(0).topology_changes, tc_a);
	assert_memory_equal(S.n[0].flushes, fl_a, sizeof(fl_a));
	for (unsigned int p = 1; p <= 3; p++)
		assert_int_equal(b->flushes[p], 0);
	assert_int_equal(S.n[0].events[STP_EV_ROLE][1] + S.n[0].events[STP_EV_ROLE][2], 2);
}

/* The root restarts: its neighbour sees no change at all. */
static void test_resume_root_keeps_forwarding(void **state)
{
	uint64_t tc_b;
	unsigned int fl_b[NP];
	struct node *a;

	two_bridges();
	start();
	until(two_converged, 30000, "converge");
	run_ms(30000);
	tc_b = binfo(1).topology_changes;
	memcpy(fl_b, S.n[1].flushes, sizeof(fl_b));
	memset(S.n[1].demoted, 0, sizeof(S.n[1].demoted));
	a = restart(0, 2);
	run_ms(30000);
	assert_true(two_converged());
	assert_false(a->demoted[1]);
	assert_false(a->demoted[2]);
	assert_false(S.n[1].demoted[1]);
	assert_int_equal(binfo(0).topology_changes, 0);
	assert_int_equal(binfo(1).topology_changes, tc_b);
	assert_memory_equal(S.n[1].flushes, fl_b, sizeof(fl_b));
	assert_int_equal(S.n[1].events[STP_EV_ROOT_CHANGE][0] + S.n[1].events[STP_EV_ROOT_CHANGE][1], 1);
}

/* The tree changed while B was away: the datapath holds both of B's ports
 * forwarding (a loop). Resumed so, the port the tree blocks goes
 * discarding as soon as A's BPDU says so (A sends every hello), while the
 * root port never stops forwarding. */
static void test_resume_changed_tree_demotes(void **state)
{
	uint64_t t0;
	struct node *b;

	two_bridges();
	start();
	until(two_converged, 30000, "converge");
	run_ms(10000);
	S.loops_allowed = true;
	stp_free(S.n[1].b);
	node_zero(1);
	S.n[1].st[1] = S.n[1].st[2] = XDPBR_STP_FORWARDING;
	b = bridge(1, 0x8000);
	for (unsigned int p = 1; p <= 2; p++) {
		port(1, p, STP_EDGE_AUTO);
		stp_port_resume(b->b, p, XDPBR_STP_FORWARDING, false);
	}
	stp_resume_hold(b->b, 1);
	t0 = S.now;
	stp_tick(b->b, S.now);
	pump();
	while (S.n[1].st[2] != XDPBR_STP_DISCARDING) {
		step();
		assert_true(S.now - t0 <= 2500);
	}
	print_message("resumed into a changed tree: blocked after %.1f s\n", (S.now - t0) / 1000.0);
	assert_false(b->demoted[1]);
	S.loops_allowed = false;
	run_ms(10000);
	assert_true(two_converged());
	assert_false(b->demoted[1]);
}

/* The restarted root announces itself at its first tick (no hold: its
 * view is its own), and says nothing its neighbour did not know. */
static void test_resume_root_announces(void **state)
{
	two_bridges();
	start();
	until(two_converged, 30000, "converge");
	run_ms(30000);
	memset(S.n[1].demoted, 0, sizeof(S.n[1].demoted));
	restart(0, 2);
	assert_true(S.n[0].sent[1] >= 1 && S.n[0].sent[2] >= 1);
	assert_true(two_converged());
	assert_false(S.n[1].demoted[1]);
}

/* A restarted bridge that was not the root sends nothing on its resumed
 * ports until its old root port has heard the root (within the root's
 * hello, 2 s), then at once, not hello_time + 1 s later. A port that was
 * an edge by auto detection is resumed as one: it keeps the datapath's
 * edge bit (the dead-daemon rule spares it) and forwards throughout. */
static void test_resume_hold_until_root_heard(void **state)
{
	uint64_t t0;
	struct node *b;

	two_bridges();
	port(1, 3, STP_EDGE_ON);
	port(1, 4, STP_EDGE_AUTO);	/* no peer: an edge after 3 s */
	start();
	until(two_converged, 30000, "converge");
	run_ms(30000);
	assert_true(S.n[1].edge[4]);
	b = restart(1, 4);
	t0 = S.now;
	assert_int_equal(b->sent[1] + b->sent[3] + b->sent[4], 0);
	while (!b->sent[3]) {
		step();
		assert_true(S.now - t0 <= 2300);
	}
	print_message("restarted non-root: first BPDU on its edge port %.1f s after its start\n",
		      (S.now - t0) / 1000.0);
	assert_true(pinfo(1, 1).bpdus_in >= 1);
	run_ms(30000);
	assert_true(two_converged());
	assert_true(is(1, 4, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_true(S.n[1].edge[4]);
	assert_false(b->demoted[1]);
	assert_false(b->demoted[4]);
}

/* The root's daemon dies; its datapath blocks the links at its timeout,
 * its neighbour takes over (ages out the root, becomes the root, and by
 * auto edge forwards on both links); 10 s later the root's daemon starts
 * again after its datapath's timeout, so the pinned states are not
 * resumed (daemon/stpd.c): at no moment is there a loop (checked at every
 * step), and the tree comes back. Resuming them would have closed one
 * the moment the datapath honoured them again. */
static void test_cold_restart_after_takeover(void **state)
{
	uint64_t t0;

	two_bridges();
	start();
	until(two_converged, 30000, "converge");
	run_ms(10000);
	stp_free(S.n[0].b);
	S.n[0].b = NULL;
	S.l[0].cut = S.l[1].cut = true;		/* no one reads or sends BPDUs at A */
	S.n[0].st[1] = S.n[0].st[2] = XDPBR_STP_DISCARDING;	/* its datapath's rule */
	run_ms(10000);
	assert_true(is(1, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_true(is(1, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	node_zero(0);
	bridge(0, 0x8000);
	port(0, 1, STP_EDGE_AUTO);
	port(0, 2, STP_EDGE_AUTO);
	S.l[0].cut = S.l[1].cut = false;
	t0 = S.now;
	stp_tick(S.n[0].b, S.now);
	pump();
	assert_true(S.n[0].sent[1] >= 1 && S.n[0].sent[2] >= 1);
	until(two_converged, 10000, "converge after the cold restart");
	print_message("cold restart of the root after a takeover: converged in %.1f s\n",
		      (S.now - t0) / 1000.0);
}

/* A tree with hello_time 10 (longer than the edge delay, 3 s); B's
 * daemon starts again after its datapath's timeout (its ports discarding,
 * none resumed). B begins by claiming to be the root and proposing on both
 * links: A answers the proposals at once, so B never takes a link for an
 * edge; without the answer it would have heard nothing until A's next
 * hello, up to 10 s, and forwarded on both links after 3 (a loop). */
static void test_cold_restart_next_to_slow_root(void **state)
{
	two_bridges();
	for (int i = 0; i < 2; i++) {
		S.n[i].cfg.hello_time = 10;
		S.n[i].cfg.max_age = 22;
		S.n[i].cfg.forward_delay = 12;
		assert_int_equal(stp_bridge_set(S.n[i].b, &S.n[i].cfg), 0);
	}
	start();
	until(two_converged, 30000, "converge");
	run_ms(30000);
	stp_free(S.n[1].b);
	node_zero(1);
	S.n[1].cfg = S.n[0].cfg;
	S.n[1].cfg.mac[5] = 2;
	S.n[1].s = &S;
	S.n[1].b = stp_new(&S.n[1].cfg, &ops, &S.n[1]);
	assert_non_null(S.n[1].b);
	port(1, 1, STP_EDGE_AUTO);
	port(1, 2, STP_EDGE_AUTO);
	run_ms(3000);			/* A's hello is 7 s away at least */
	stp_tick(S.n[1].b, S.now);
	pump();
	until(two_converged, 2000, "converge after B's cold restart");
	run_ms(30000);
	assert_true(two_converged());
	assert_false(pinfo(1, 1).edge);
	assert_false(pinfo(1, 2).edge);
}

/* Without resume, the same restart demotes B's root port (the contrast). */
static void test_restart_without_resume_demotes(void **state)
{
	enum xdpbr_stp_state held[NP];
	struct node *b;

	two_bridges();
	start();
	until(two_converged, 30000, "converge");
	run_ms(10000);
	memcpy(held, S.n[1].st, sizeof(held));
	stp_free(S.n[1].b);
	node_zero(1);
	memcpy(S.n[1].st, held, sizeof(held));
	b = bridge(1, 0x8000);
	for (unsigned int p = 1; p <= 2; p++)
		port(1, p, STP_EDGE_AUTO);
	stp_tick(b->b, S.now);
	pump();
	assert_true(b->demoted[1]);
	run_ms(5000);
	assert_true(two_converged());
}

/* 17.13.12: at most TxHoldCount BPDUs a second on a port. */
static void test_tx_hold_count(void **state)
{
	uint8_t sup[36], inf[36];
	size_t n;
	unsigned int sent;

	sim_reset();
	bridge(0, 0x8000);
	port(0, 1, STP_EDGE_OFF);
	port(0, 2, STP_EDGE_OFF);
	start();
	run_ms(5000);
	/* port 2 hears a better root then loses it, again and again: each
	 * change is new information for port 1 */
	n = mk_bpdu(sup, 0x02, ROLE_DESIG_FLAGS, 0x1000, 9, 0, 0x1000, 9, 0x8001);
	mk_bpdu(inf, 0x02, ROLE_DESIG_FLAGS, 0x1000, 9, 0, 0x1000, 9, 0x8001);
	put16(inf + 5, 0x9000);
	sent = S.n[0].sent[1];
	for (int i = 0; i < 20; i++) {
		stp_rx(S.n[0].b, 2, sup, n);
		stp_rx(S.n[0].b, 2, inf, n);
	}
	assert_true(S.n[0].sent[1] - sent <= 6);
	assert_true(S.n[0].sent[1] - sent >= 2);
	/* the next second allows more */
	sent = S.n[0].sent[1];
	run_ms(1000);
	for (int i = 0; i < 20; i++) {
		stp_rx(S.n[0].b, 2, sup, n);
		stp_rx(S.n[0].b, 2, inf, n);
	}
	assert_true(S.n[0].sent[1] > sent);
}

static void test_path_cost_and_ids(void **state)
{
	struct stp_port_cfg c = pcfg(STP_EDGE_AUTO);
	static const struct { uint32_t mbps, cost; } t[] = {
		{ 0, 20000 }, { 10, 2000000 }, { 100, 200000 }, { 1000, 20000 },
		{ 10000, 2000 }, { 100000, 200 }, { 1, 20000000 },
	};
	struct stp_bridge_info bi;

	sim_reset();
	bridge(0, 0x7000);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(stp_port_add(S.n[0].b, (unsigned int)i + 1, &c, true, t[i].mbps), 0);
		assert_int_equal(pinfo(0, (unsigned int)i + 1).path_cost, t[i].cost);
	}
	stp_port_link(S.n[0].b, 1, true, 10000);
	assert_int_equal(pinfo(0, 1).path_cost, 2000);
	c.path_cost = 12345;
	c.priority = 32;
	assert_int_equal(stp_port_set(S.n[0].b, 1, &c), 0);
	assert_int_equal(pinfo(0, 1).path_cost, 12345);
	assert_int_equal(pinfo(0, 1).port_id, 0x2001);
	assert_int_equal(stp_port_add(S.n[0].b, 1, &c, true, 0), -EEXIST);
	assert_int_equal(stp_port_add(S.n[0].b, 0, &c, true, 0), -EINVAL);
	assert_int_equal(stp_port_add(S.n[0].b, XDPBR_MAX_PORTS, &c, true, 0), -EINVAL);
	c.priority = 8;
	assert_int_equal(stp_port_set(S.n[0].b, 1, &c), -EINVAL);
	assert_int_equal(stp_port_set(S.n[0].b, 40, &c), -ENOENT);
	stp_bridge_get(S.n[0].b, &bi);
	assert_int_equal(bi.bridge_id[0], 0x70);
	assert_int_equal(bi.bridge_id[1], 0x00);
	assert_int_equal(bi.bridge_id[2], 0x02);
	assert_int_equal(bi.bridge_id[7], 1);
	stp_port_del(S.n[0].b, 2);
	assert_int_equal(stp_port_get(S.n[0].b, 2, &(struct stp_port_info){ 0 }), -ENOENT);
	assert_string_equal(stp_state_word(XDPBR_STP_LEARNING, true), "learning");
	assert_string_equal(stpmap_role_name(STP_ROLE_ALTERNATE), "alternate");
	{
		struct stp_bridge_cfg bc = bcfg(0x8000, 1);

		bc.max_age = 50;
		assert_null(stp_new(&bc, &ops, NULL));
		assert_int_equal(errno, EINVAL);
	}
}

/* What goes on the wire: an RST BPDU field by field. */
static void test_rst_encoding(void **state)
{
	const uint8_t *o;

	two_bridges();
	start();
	until(two_converged, 30000, "converge");
	run_ms(5100);		/* the start's topology change (TC flag) is over */
	o = S.n[0].last[2];
	assert_int_equal(S.n[0].last_len[2], 36);
	assert_int_equal(o[0] | o[1], 0);
	assert_int_equal(o[2], 2);
	assert_int_equal(o[3], 0x02);
	assert_int_equal(o[4], 0x3c);		/* designated, learning, forwarding */
	assert_int_equal(o[5], 0x80);
	assert_int_equal(o[12], 1);
	assert_int_equal(o[13] | o[14] | o[15] | o[16], 0);
	assert_int_equal(o[25] << 8 | o[26], 0x8002);
	assert_int_equal(o[27] << 8 | o[28], 0);
	assert_int_equal(o[29] << 8 | o[30], 20 * 256);
	assert_int_equal(o[31] << 8 | o[32], 2 * 256);
	assert_int_equal(o[33] << 8 | o[34], 15 * 256);
	assert_int_equal(o[35], 0);
	/* B's alternate port: role alternate, discarding, cost 20000 */
	o = S.n[1].last[2];
	assert_int_equal(o[4] & 0x3c, 0x04);
	assert_int_equal(o[13] << 24 | o[14] << 16 | o[15] << 8 | o[16], 20000);
	assert_int_equal(o[27] << 8 | o[28], 256);	/* message age + 1 s */
}

/* A cable from port 1 to port 2 of the same bridge: one end designated,
 * the other backup (discarding), rbWhile running on it. */
static void test_backup_port_self_loop(void **state)
{
	sim_reset();
	bridge(0, 0x8000);
	port(0, 1, STP_EDGE_AUTO);
	port(0, 2, STP_EDGE_AUTO);
	port(0, 3, STP_EDGE_ON);
	connect(0, 1, 0, 2);
	start();
	run_ms(40000);
	assert_true(is(0, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING));
	assert_true(is(0, 2, STP_ROLE_BACKUP, XDPBR_STP_DISCARDING));
	assert_false(pinfo(0, 1).edge);
	assert_false(pinfo(0, 2).edge);
	assert_int_equal(binfo(0).root_port, 0);
	/* the designated end goes down: the backup end has nothing to back */
	S.l[0].up = false;
	stp_port_link(S.n[0].b, 1, false, 0);
	stp_port_link(S.n[0].b, 2, false, 0);
	run_ms(1000);
	assert_int_equal(prole(0, 2), STP_ROLE_DISABLED);
}

/* A ring of four: A (root) - B - C - D - A. C is two hops away both ways
 * and takes B (the better designated bridge); the C-D link blocks at C,
 * since D is nearer the root. */
static bool ring_converged(void)
{
	int discarding = 0;

	for (int i = 0; i < 4; i++)
		for (unsigned int p = 1; p <= 2; p++)
			discarding += pstate(i, p) == XDPBR_STP_DISCARDING ||
				      S.n[i].st[p] == XDPBR_STP_DISCARDING;
	return discarding == 1 && binfo(0).root_port == 0 &&
	       is(2, 2, STP_ROLE_ALTERNATE, XDPBR_STP_DISCARDING) &&
	       is(3, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING) &&
	       is(1, 1, STP_ROLE_ROOT, XDPBR_STP_FORWARDING) &&
	       is(3, 1, STP_ROLE_ROOT, XDPBR_STP_FORWARDING) &&
	       is(2, 1, STP_ROLE_ROOT, XDPBR_STP_FORWARDING);
}

static bool ring_rerooted(void)
{
	return is(3, 2, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING) &&
	       is(2, 2, STP_ROLE_ROOT, XDPBR_STP_FORWARDING) &&
	       is(2, 1, STP_ROLE_DESIGNATED, XDPBR_STP_FORWARDING) &&
	       is(1, 2, STP_ROLE_ROOT, XDPBR_STP_FORWARDING);
}

static void test_ring_of_four(void **state)
{
	uint64_t t;
	int ab;

	sim_reset();
	bridge(0, 0x1000);
	bridge(1, 0x2000);
	bridge(2, 0x3000);
	bridge(3, 0x4000);
	for (int i = 0; i < 4; i++)
		for (unsigned int p = 1; p <= 2; p++)
			port(i, p, STP_EDGE_AUTO);
	ab = connect(0, 1, 1, 1);	/* A1-B1 */
	connect(1, 2, 2, 1);		/* B2-C1 */
	connect(2, 2, 3, 2);		/* C2-D2 */
	connect(3, 1, 0, 2);		/* D1-A2 */
	start();
	t = until(ring_converged, 30000, "ring of four");
	print_message("ring of four: converged in %.1f s (simulated)\n", t / 1000.0);
	assert_true(t <= 500);
	run_ms(20000);
	assert_true(ring_converged());
	assert_int_equal(binfo(2).root_path_cost, 40000);
	/* A-B goes down: B and C re-root the other way round, through D */
	link_set(ab, false);
	t = until(ring_rerooted, 30000, "ring re-roots");
	print_message("ring of four, A-B down: B reached through D and C after %.1f s\n",
		      t / 1000.0);
	assert_true(t <= 500);
	assert_int_equal(binfo(1).root_path_cost, 60000);
}

/* An RST BPDU of the Unknown role conveys designated information (9.2.9). */
static void test_rst_unknown_role(void **state)
{
	uint8_t m[36];
	size_t n;

	sim_reset();
	bridge(0, 0x8000);
	port(0, 1, STP_EDGE_OFF);
	start();
	n = mk_bpdu(m, 0x02, 0, 0x1000, 9, 0, 0x1000, 9, 0x8001);
	feed(1, m, n);
	assert_int_equal(binfo(0).root_port, 1);
	assert_int_equal(prole(0, 1), STP_ROLE_ROOT);
	assert_false(pinfo(0, 1).legacy);
}

/* Four bridges, six links (a full mesh), links going down and up at
 * pseudo-random times (on average every half second) for ten simulated
 * minutes, twenty runs: never a forwarding loop (checked after every BPDU,
 * tick and link change), and once the flapping stops, a spanning tree
 * again within 2 s: one root that everyone agrees on, exactly three links
 * forwarding, every root and designated port forwarding and no other.
 * The root bridge always keeps one link: cut off from everyone, its stale
 * information counts to infinity, and RSTP (the standard's machines, not
 * only this engine) can then close a loop for a moment (Elmeleegy, Cox and
 * Ng, "On count-to-infinity induced forwarding loops in Ethernet
 * networks", 2006). */
static unsigned int forwarding_links(void)
{
	unsigned int n = 0;

	for (int i = 0; i < S.nl; i++) {
		const struct link *l = &S.l[i];

		n += l->up && S.n[l->a].st[l->pa] == XDPBR_STP_FORWARDING &&
		     S.n[l->b].st[l->pb] == XDPBR_STP_FORWARDING;
	}
	return n;
}

static bool mesh_converged(void)
{
	for (int i = 0; i < 4; i++) {
		struct stp_bridge_info bi = binfo(i);

		if (memcmp(bi.root_id, binfo(0).bridge_id, 8))
			return false;
		for (unsigned int p = 1; p <= 3; p++) {
			enum stp_role r = prole(i, p);
			bool fwd = S.n[i].st[p] == XDPBR_STP_FORWARDING;

			if ((r == STP_ROLE_ROOT || r == STP_ROLE_DESIGNATED) != fwd)
				return false;
		}
	}
	return forwarding_links() == 3;
}

static int root_links_up(void)
{
	int n = 0;

	for (int i = 0; i < S.nl; i++)
		n += S.l[i].up && (S.l[i].a == 0 || S.l[i].b == 0);
	return n;
}

static uint64_t mesh_flapping(uint32_t seed)
{
	unsigned int next[4] = { 1, 1, 1, 1 };
	uint32_t rnd = seed;

	sim_reset();
	for (int i = 0; i < 4; i++) {
		bridge(i, (uint16_t)(0x1000 * (i + 1)));
		for (unsigned int p = 1; p <= 3; p++)
			port(i, p, STP_EDGE_AUTO);
	}
	for (int a = 0; a < 4; a++)
		for (int b = a + 1; b < 4; b++)
			connect(a, (int)next[a]++, b, (int)next[b]++);
	start();
	until(mesh_converged, 5000, "mesh converges");
	for (int i = 0; i < 6000; i++) {	/* 600 s */
		rnd = rnd * 1103515245u + 12345u;
		if ((rnd >> 16) % 5 == 0) {
			int li = (int)((rnd >> 20) % (uint32_t)S.nl);

			if (!S.l[li].up || S.l[li].a != 0 || root_links_up() > 1)
				link_set(li, !S.l[li].up);
		}
		step();
	}
	assert_true(binfo(3).topology_changes > 10);
	for (int i = 0; i < S.nl; i++)
		if (!S.l[i].up)
			link_set(i, true);
	return until(mesh_converged, 60000, "mesh converges after the flapping");
}

static void test_mesh_flapping_never_loops(void **state)
{
	uint64_t worst = 0;

	for (uint32_t seed = 1; seed <= 20; seed++) {
		uint64_t t = mesh_flapping(seed);

		if (t > worst)
			worst = t;
		run_ms(30000);
		assert_true(mesh_converged());
	}
	print_message("mesh, 20 x 10 min of link flaps: a spanning tree again at most %.1f s after the last\n",
		      worst / 1000.0);
	assert_true(worst <= 2000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_bridges_two_links),
		cmocka_unit_test(test_failover_and_back),
		cmocka_unit_test(test_triangle),
		cmocka_unit_test(test_priority_change_moves_root),
		cmocka_unit_test(test_edge_admin_and_auto),
		cmocka_unit_test(test_topology_change_flush),
		cmocka_unit_test(test_legacy_peer),
		cmocka_unit_test(test_legacy_root_tcn_and_mcheck),
		cmocka_unit_test(test_bpdu_guard),
		cmocka_unit_test(test_root_guard),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_rogue_timers),
		cmocka_unit_test(test_tcn_burst_one_flush),
		cmocka_unit_test(test_port_hold),
		cmocka_unit_test(test_resume_keeps_forwarding),
		cmocka_unit_test(test_resume_root_keeps_forwarding),
		cmocka_unit_test(test_resume_changed_tree_demotes),
		cmocka_unit_test(test_restart_without_resume_demotes),
		cmocka_unit_test(test_resume_root_announces),
		cmocka_unit_test(test_resume_hold_until_root_heard),
		cmocka_unit_test(test_cold_restart_after_takeover),
		cmocka_unit_test(test_cold_restart_next_to_slow_root),
		cmocka_unit_test(test_tx_hold_count),
		cmocka_unit_test(test_path_cost_and_ids),
		cmocka_unit_test(test_rst_encoding),
		cmocka_unit_test(test_backup_port_self_loop),
		cmocka_unit_test(test_ring_of_four),
		cmocka_unit_test(test_rst_unknown_role),
		cmocka_unit_test(test_mesh_flapping_never_loops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_bpdu.c - libFuzzer harness for the RSTP engine's receive path
 * (stp_rx, daemon/rstp.c) and the state machines behind it.
 *
 * An input is one settings byte, then records until the input ends:
 *     CTL LEN BYTES[LEN]
 * BYTES go to stp_rx as a BPDU (the LLC payload) on port 1 or 2 (CTL bit
 * 0); before it, CTL bit 4 flaps that port's link and bit 5 asks for an
 * mcheck, bit 6 resets a bpdu_guard trip; after it, the clock moves on by
 * CTL bits 1-3 seconds (+ 100 ms). A truncated record is fed as it is. The
 * settings byte: port 2 edge (bits 0-1: off, on, auto), bpdu_guard on
 * port 2 (bit 2), root_guard on port 1 (bit 3), force_stp (bit 4), ports 1
 * and 2 cabled to each other (bit 5: what one sends the other receives,
 * a self-loop, at most 64 frames a record), tx_hold_count 1 (bit 6).
 *
 * What must hold:
 *  - no crash, no leak, no undefined behaviour;
 *  - bad_bpdus (and STP_EV_BAD_BPDU) grows by one exactly for each input
 *    that 802.1D 9.3.4 rejects as malformed (checked here independently:
 *    length, protocol identifier, type, version), and aged_bpdus for each
 *    well-formed one too old to hold (message age + 1 s past its max age
 *    clamped to 6..40 s);
 *  - the times in use (the root's) are within 802.1D's ranges, whatever
 *    was received;
 *  - what the engine sends is a well-formed frame (01:80:c2:00:00:00, the
 *    bridge's address, 802.3 length, LLC 42 42 03, at least 60 bytes) with
 *    a BPDU that 9.3.4 accepts (a config BPDU's message age below its max
 *    age), of its version (config 0, TCN 0, RST 2);
 *  - at most tx_hold_count BPDUs per port between two ticks (17.13.12);
 *  - set_state only with a known state, and what stp_port_get reports is
 *    what the datapath was last told; only root and designated ports
 *    forward or learn; a tripped bpdu_guard port discards;
 *  - the root is never worse than this bridge; root_port 0 exactly when
 *    the root is this bridge, else a port whose role is root.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rstp.h"
#include "stpstate.h"
#include "stpmap.h"
#include "settings.h"
#include "fuzz_common.h"

#define CHECK(cond, ...) do { if (!(cond)) fz_fail(__VA_ARGS__); } while (0)
#define NPORT 3			/* slots 1 and 2 */
#define QMAX 64

static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0x0b, 0x01 };

static struct {
	enum xdpbr_stp_state st[NPORT];
	bool told[NPORT];
	unsigned int sent_since_tick[NPORT];
	uint64_t bad_events[NPORT];
	bool loop;
	uint8_t q[QMAX][64];
	size_t qlen[QMAX];
	unsigned int qport[QMAX];
	unsigned int qn;
	unsigned int tx_hold;
} h;

static struct {
	unsigned long long records, valid, bad, aged, sent;
} tally;

static void report(void)
{
	fprintf(stderr, "fuzz_bpdu: %llu BPDUs fed: %llu valid, %llu malformed, %llu aged; "
		"%llu sent\n", tally.records, tally.valid, tally.bad, tally.aged, tally.sent);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	atexit(report);
	return 0;
}

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/* 9.3.4's format rules, written apart from the engine's own check. */
static bool valid_bpdu(const uint8_t *d, size_t len)
{
	if (len < 4 || d[0] || d[1])
		return false;
	if (d[3] == 0x80)
		return true;
	if (d[3] == 0x00)
		return len >= 35;
	if (d[3] == 0x02)
		return d[2] >= 2 && len >= 36;
	return false;
}

/* A valid BPDU whose information is too old to hold: message age + 1 s
 * past max age, clamped to 802.1D's range (1/256 s). */
static bool aged_bpdu(const uint8_t *d)
{
	unsigned int max_age;

	if (d[3] == 0x80)
		return false;
	max_age = get16(d + 29);
	if (max_age < settings[SET_MAX_AGE].min << 8)
		max_age = settings[SET_MAX_AGE].min << 8;
	if (max_age > settings[SET_MAX_AGE].max << 8)
		max_age = settings[SET_MAX_AGE].max << 8;
	return get16(d + 27) + 256u > max_age;
}

static bool in_range(enum setting_id id, unsigned int v)
{
	return v >= settings[id].min && v <= settings[id].max;
}

static int op_set_state(void *arg, unsigned int port, enum xdpbr_stp_state st, bool edge)
{
	CHECK(port == 1 || port == 2, "set_state on port %u", port);
	CHECK(st == XDPBR_STP_DISCARDING || st == XDPBR_STP_LEARNING || st == XDPBR_STP_FORWARDING,
	      "set_state with state %d", (int)st);
	h.st[port] = st;
	h.told[port] = true;
	return 0;
}

static void op_flush(void *arg, unsigned int port)
{
	CHECK(port == 1 || port == 2, "flush of port %u", port);
}

static int op_send(void *arg, unsigned int port, const void *frame, size_t len)
{
	static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x00 };
	const uint8_t *f = frame;
	size_t blen;

	CHECK(port == 1 || port == 2, "send on port %u", port);
	CHECK(len >= 60 && len <= 1514, "frame of %zu bytes", len);
	CHECK(!memcmp(f, dst, 6) && !memcmp(f + 6, mac, 6), "frame addresses");
	blen = get16(f + 12);
	CHECK(blen >= 3 && blen + 14 <= len, "802.3 length %zu in a %zu-byte frame", blen, len);
	CHECK(f[14] == 0x42 && f[15] == 0x42 && f[16] == 0x03, "LLC header");
	blen -= 3;
	CHECK(valid_bpdu(f + 17, blen) &&
	      (f[20] != 0x00 || get16(f + 17 + 27) < get16(f + 17 + 29)),
	      "sent a BPDU that 9.3.4 rejects (%zu bytes)", blen);
	CHECK(blen == (f[20] == 0x80 ? 4u : f[20] == 0x00 ? 35u : 36u), "BPDU type %#x of %zu bytes",
	      f[20], blen);
	CHECK(f[19] == (f[20] == 0x02 ? 2 : 0), "BPDU type %#x of version %u", f[20], f[19]);
	CHECK(++h.sent_since_tick[port] <= h.tx_hold, "port %u sent %u BPDUs in one second",
	      port, h.sent_since_tick[port]);
	tally.sent++;
	if (h.loop && h.qn < QMAX && blen <= sizeof(h.q[0])) {
		memcpy(h.q[h.qn], f + 17, blen);
		h.qlen[h.qn] = blen;
		h.qport[h.qn] = port == 1 ? 2 : 1;
		h.qn++;
	}
	return 0;
}

static void op_event(void *arg, enum stp_event ev, unsigned int port)
{
	CHECK(ev <= STP_EV_CLAMPED, "event %d", (int)ev);
	if (ev == STP_EV_BPDU_GUARD && port < NPORT)
		h.sent_since_tick[port] = 0;	/* disabled: TRANSMIT_INIT, txCount 0 */
	if (ev == STP_EV_BAD_BPDU) {
		CHECK(port == 1 || port == 2, "bad BPDU event on port %u", port);
		h.bad_events[port]++;
	}
}

static const struct stp_ops ops = {
	.set_state = op_set_state, .flush = op_flush, .send = op_send, .event = op_event,
};

static void check_engine(struct stp_bridge *b)
{
	struct stp_bridge_info bi;
	struct stp_port_info pi;

	stp_bridge_get(b, &bi);
	CHECK(memcmp(bi.root_id, bi.bridge_id, 8) <= 0, "root worse than the bridge");
	CHECK(in_range(SET_HELLO_TIME, bi.hello_time) && in_range(SET_MAX_AGE, bi.max_age) &&
	      in_range(SET_FORWARD_DELAY, bi.forward_delay),
	      "times in use out of range: hello %u max age %u forward delay %u", bi.hello_time,
	      bi.max_age, bi.forward_delay);
	CHECK((bi.root_port == 0) == !memcmp(bi.root_id, bi.bridge_id, 8),
	      "root port %u with root %s this bridge", bi.root_port,
	      memcmp(bi.root_id, bi.bridge_id, 8) ? "not" : "");
	for (unsigned int p = 1; p < NPORT; p++) {
		CHECK(stp_port_get(b, p, &pi) == 0, "port %u gone", p);
		CHECK(h.told[p] && pi.state == h.st[p], "port %u: reports %s, datapath holds %s", p,
		      stp_state_word(pi.state, true), stp_state_word(h.st[p], true));
		CHECK(pi.bad_bpdus == h.bad_events[p], "port %u: %llu bad BPDUs, %llu events", p,
		      (unsigned long long)pi.bad_bpdus, (unsigned long long)h.bad_events[p]);
		if (pi.state != XDPBR_STP_DISCARDING)
			CHECK(pi.role == STP_ROLE_ROOT || pi.role == STP_ROLE_DESIGNATED,
			      "port %u %s as %s", p, stp_state_word(pi.state, true), stpmap_role_name(pi.role));
		if (pi.guard_tripped)
			CHECK(pi.state == XDPBR_STP_DISCARDING, "tripped port %u %s", p,
			      stp_state_word(pi.state, true));
		if (pi.role == STP_ROLE_ROOT)
			CHECK(bi.root_port == p, "port %u root, bridge's root port %u", p, bi.root_port);
	}
	if (bi.root_port) {
		CHECK(stp_port_get(b, bi.root_port, &pi) == 0 && pi.role == STP_ROLE_ROOT,
		      "root port %u has role %s", bi.root_port, stpmap_role_name(pi.role));
	}
}

static void deliver_loop(struct stp_bridge *b)
{
	for (unsigned int n = 0; n < QMAX && h.qn; n++) {
		uint8_t m[64];
		size_t len = h.qlen[0];
		unsigned int port = h.qport[0];

		memcpy(m, h.q[0], len);
		h.qn--;
		memmove(h.q, h.q + 1, h.qn * sizeof(h.q[0]));
		memmove(h.qlen, h.qlen + 1, h.qn * sizeof(h.qlen[0]));
		memmove(h.qport, h.qport + 1, h.qn * sizeof(h.qport[0]));
		stp_rx(b, port, m, len);
	}
	h.qn = 0;
}

static void tick(struct stp_bridge *b, uint64_t *now, uint64_t ms)
{
	for (uint64_t t = 0; t < ms; t += 100) {
		uint64_t before = *now / 1000;

		*now += 100;
		if (*now / 1000 != before)
			memset(h.sent_since_tick, 0, sizeof(h.sent_since_tick));
		stp_tick(b, *now);
		deliver_loop(b);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stp_bridge_cfg bc = {
		.priority = 0x8000, .hello_time = 2, .max_age = 20, .forward_delay = 15,
	};
	struct stp_port_cfg p1 = { .priority = 128, .edge = STP_EDGE_AUTO };
	struct stp_port_cfg p2 = { .priority = 128, .bpdu_guard_timeout = 5 };
	struct stp_bridge *b;
	uint64_t now = 1000;
	uint8_t set;
	size_t i = 1;

	if (!size)
		return 0;
	set = data[0];
	memset(&h, 0, sizeof(h));
	memcpy(bc.mac, mac, 6);
	bc.force_stp = set & 0x10;
	bc.tx_hold_count = set & 0x40 ? 1 : 6;
	h.tx_hold = bc.tx_hold_count;
	h.loop = set & 0x20;
	p2.edge = (set & 3) == 1 ? STP_EDGE_ON : (set & 3) == 2 ? STP_EDGE_AUTO : STP_EDGE_OFF;
	p2.bpdu_guard = set & 0x04;
	p1.root_guard = set & 0x08;
	b = stp_new(&bc, &ops, NULL);
	if (!b)
		fz_setup_failed("stp_new: %s", strerror(errno));
	CHECK(stp_port_add(b, 1, &p1, true, 1000) == 0, "port 1 not added");
	CHECK(stp_port_add(b, 2, &p2, true, 0) == 0, "port 2 not added");
	stp_tick(b, now);
	deliver_loop(b);
	check_engine(b);

	while (i < size) {
		uint8_t ctl = data[i++];
		unsigned int port = (ctl & 1) + 1;
		size_t len = i < size ? data[i++] : 0;
		struct stp_port_info before, after;

		if (len > size - i)
			len = size - i;
		if (ctl & 0x10) {
			h.sent_since_tick[port] = 0;	/* TRANSMIT_INIT */
			stp_port_link(b, port, false, 0);
			check_engine(b);
			stp_port_link(b, port, true, 1000);
		}
		if (ctl & 0x20)
			stp_port_mcheck(b, ctl & 0x80 ? 0 : port);
		if (ctl & 0x40)
			stp_port_guard_reset(b, port);
		deliver_loop(b);
		CHECK(stp_port_get(b, port, &before) == 0, "port %u gone", port);
		stp_rx(b, port, data + i, len);
		CHECK(stp_port_get(b, port, &after) == 0, "port %u gone", port);
		tally.records++;
		if (valid_bpdu(data + i, len)) {
			bool aged = aged_bpdu(data + i);

			tally.valid++;
			tally.aged += aged;
			CHECK(after.bad_bpdus == before.bad_bpdus,
			      "a valid BPDU of %zu bytes counted as bad", len);
			CHECK(after.aged_bpdus == before.aged_bpdus + aged,
			      "a BPDU %s too old: aged %llu -> %llu", aged ? "" : "not",
			      (unsigned long long)before.aged_bpdus,
			      (unsigned long long)after.aged_bpdus);
		} else {
			tally.bad++;
			CHECK(after.bad_bpdus == before.bad_bpdus + 1,
			      "a malformed BPDU of %zu bytes not counted", len);
		}
		deliver_loop(b);
		check_engine(b);
		i += len;
		tick(b, &now, 100 + 1000u * ((ctl >> 1) & 7));
		check_engine(b);
	}
	stp_free(b);
	return 0;
}

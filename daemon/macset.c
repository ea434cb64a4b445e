// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* macset.c - MACs with flags, and a FIFO of MACs (see macset.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macset.h"

static const uint8_t zero_mac[6];

static bool is_free(const struct macset_slot *x)
{
	return !memcmp(x->mac, zero_mac, 6);
}

/* The slot a MAC (and VLAN) would like: the 48 bits and the VLAN's 12
 * above them multiplied by 2^64/phi, the top bits (sequential MACs spread
 * over the whole table). */
static size_t home(const struct macset *s, const uint8_t mac[6], uint16_t vlan)
{
	uint64_t v = vlan;

	for (int i = 0; i < 6; i++)
		v = v << 8 | mac[i];
	return (size_t)((v * 0x9e3779b97f4a7c15ULL) >> 32) & (s->cap - 1);
}

static size_t cap_for(size_t expect)
{
	size_t cap = 64;

	while (cap / 4 * 3 < expect)
		cap *= 2;
	return cap;
}

int macset_init(struct macset *s, size_t expect)
{
	s->n = 0;
	s->cap = cap_for(expect);
	s->slot = calloc(s->cap, sizeof(*s->slot));
	if (!s->slot) {
		s->cap = 0;
		return -ENOMEM;
	}
	return 0;
}

void macset_free(struct macset *s)
{
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

static struct macset_slot *probe(const struct macset *s, const uint8_t mac[6], uint16_t vlan)
{
	size_t i = home(s, mac, vlan);

	while (!is_free(&s->slot[i]) &&
	       (memcmp(s->slot[i].mac, mac, 6) || s->slot[i].vlan != vlan))
		i = (i + 1) & (s->cap - 1);
	return &s->slot[i];
}

struct macset_slot *macset_find_vlan(const struct macset *s, const uint8_t mac[6],
				     uint16_t vlan)
{
	struct macset_slot *x;

	if (!s->cap || !memcmp(mac, zero_mac, 6))
		return NULL;
	x = probe(s, mac, vlan);
	return is_free(x) ? NULL : x;
}

struct macset_slot *macset_find(const struct macset *s, const uint8_t mac[6])
{
	return macset_find_vlan(s, mac, 0);
}

static int grow(struct macset *s)
{
	struct macset bigger = { .cap = s->cap * 2 };

	bigger.slot = calloc(bigger.cap, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (!is_free(&s->slot[i]))
			*probe(&bigger, s->slot[i].mac, s->slot[i].vlan) = s->slot[i];
	bigger.n = s->n;
	free(s->slot);
	*s = bigger;
	return 0;
}

struct macset_slot *macset_add_vlan(struct macset *s, const uint8_t mac[6], uint16_t vlan,
				    bool *grew)
{
	struct macset_slot *x;

	*grew = false;
	if (!s->cap || !memcmp(mac, zero_mac, 6))
		return NULL;
	x = probe(s, mac, vlan);
	if (!is_free(x))
		return x;
	if (s->n + 1 > s->cap / 4 * 3) {
		if (grow(s))
			return NULL;
		*grew = true;
		x = probe(s, mac, vlan);
	}
	memcpy(x->mac, mac, 6);
	x->vlan = vlan;
	x->flags = x->mark = 0;
	x->val = 0;
	s->n++;
	return x;
}

struct macset_slot *macset_add(struct macset *s, const uint8_t mac[6], bool *grew)
{
	return macset_add_vlan(s, mac, 0, grew);
}

/* Whether slot k, an entry's home, lies cyclically in (i, j]: then the
 * entry at j may not move back to i. */
static bool home_between(size_t k, size_t i, size_t j)
{
	return i <= j ? (k > i && k <= j) : (k > i || k <= j);
}

void macset_del(struct macset *s, struct macset_slot *x)
{
	size_t mask = s->cap - 1, i = (size_t)(x - s->slot), j = i;

	for (;;) {
		j = (j + 1) & mask;
		if (is_free(&s->slot[j]))
			break;
		if (home_between(home(s, s->slot[j].mac, s->slot[j].vlan), i, j))
			continue;
		s->slot[i] = s->slot[j];
		i = j;
	}
	memset(&s->slot[i], 0, sizeof(s->slot[i]));
	s->n--;
}

struct macset_slot *macset_at(const struct macset *s, size_t i)
{
	return i < s->cap && !is_free(&s->slot[i]) ? &s->slot[i] : NULL;
}

int macq_push_vlan(struct macq *q, const uint8_t mac[6], uint16_t vlan)
{
	struct macq_item *it;

	if (q->len == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 1024;
		struct macq_item *t = malloc(cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		/* unrolled from head, so the ring starts at 0 again */
		for (size_t i = 0; i < q->len; i++)
			t[i] = q->item[(q->head + i) % q->cap];
		free(q->item);
		q->item = t;
		q->cap = cap;
		q->head = 0;
	}
	it = &q->item[(q->head + q->len) % q->cap];
	memcpy(it->mac, mac, 6);
	it->vlan = vlan;
	q->len++;
	return 0;
}

int macq_push(struct macq *q, const uint8_t mac[6])
{
	return macq_push_vlan(q, mac, 0);
}

bool macq_pop_vlan(struct macq *q, uint8_t mac[6], uint16_t *vlan)
{
	if (!q->len)
		return false;
	memcpy(mac, q->item[q->head].mac, 6);
	*vlan = q->item[q->head].vlan;
	q->head = (q->head + 1) % q->cap;
	q->len--;
	return true;
}

bool macq_pop(struct macq *q, uint8_t mac[6])
{
	uint16_t vlan;

	return macq_pop_vlan(q, mac, &vlan);
}

void macq_free(struct macq *q)
{
	free(q->item);
	memset(q, 0, sizeof(*q));
}

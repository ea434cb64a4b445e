/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_MACSET_H
#define XDPBR_MACSET_H

/*
 * macset - MAC addresses with a byte of flags, a byte of mark and a word each, and
 * a FIFO of MACs: the FDB mirrors' pictures of a kernel bridge's FDB and
 * their work queues (daemon/evpn.c, daemon/brmirror.c).
 *
 * Open addressing with linear probing in a power-of-two table at most 3/4
 * full, deletion by backward shift (no tombstones: the table holds what
 * is there, whatever has come and gone). The all-zero MAC marks a free
 * slot; it is no unicast address and never stored. 16 bytes an entry.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct macset_slot {
	uint8_t mac[6];
	uint16_t vlan;
	uint8_t flags;			/* the user's */
	uint8_t mark;			/* the user's */
	uint32_t val;			/* the user's */
};

struct macset {
	struct macset_slot *slot;
	size_t cap;			/* a power of two, or 0 */
	size_t n;
};

/* An empty set with room for expect entries before it grows. 0 or
 * -ENOMEM. */
int macset_init(struct macset *s, size_t expect);
void macset_free(struct macset *s);

/* The entry of mac (in vlan), or NULL. */
struct macset_slot *macset_find(const struct macset *s, const uint8_t mac[6]);
struct macset_slot *macset_find_vlan(const struct macset *s, const uint8_t mac[6],
				     uint16_t vlan);

/* The entry of mac, added with flags, mark and val 0 if it was not there (the
 * table may grow: earlier pointers and slot numbers are void then; *grew
 * says so). NULL (-ENOMEM) for no memory, or for the all-zero MAC. */
struct macset_slot *macset_add(struct macset *s, const uint8_t mac[6], bool *grew);
struct macset_slot *macset_add_vlan(struct macset *s, const uint8_t mac[6], uint16_t vlan,
				    bool *grew);

/* Deletes the entry x points to; a later entry may move into its slot
 * (walk from the same slot number again). */
void macset_del(struct macset *s, struct macset_slot *x);

/* Slot i (< cap) if it holds an entry, else NULL: for walks by slot. */
struct macset_slot *macset_at(const struct macset *s, size_t i);

/* A FIFO of MACs (with a VLAN) that grows as needed. */
struct macq_item {
	uint8_t mac[6];
	uint16_t vlan;
};

struct macq {
	struct macq_item *item;
	size_t head, len, cap;
};

/* 0 or -ENOMEM (the MAC is not queued). */
int macq_push(struct macq *q, const uint8_t mac[6]);
int macq_push_vlan(struct macq *q, const uint8_t mac[6], uint16_t vlan);
/* The oldest MAC into mac (its VLAN into *vlan): false when empty. */
bool macq_pop(struct macq *q, uint8_t mac[6]);
bool macq_pop_vlan(struct macq *q, uint8_t mac[6], uint16_t *vlan);
void macq_free(struct macq *q);

#endif

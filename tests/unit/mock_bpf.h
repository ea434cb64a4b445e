/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mock_bpf.h - an in-memory stand-in for the kernel below libbpf.
 *
 * The unit tests are linked with -Wl,--wrap=<fn> for the libbpf calls the
 * daemon modules make, so those calls land in __wrap_<fn> here instead of
 * in the kernel. A test creates fake maps (each gets a fake fd), fills them,
 * and the wrappers serve them with the kernel's semantics: libbpf's return
 * convention (negative errno, errno set), get_next_key restarting from the
 * first key when the cursor key is gone, lookup_batch ending with ENOENT,
 * per-CPU values laid out as ncpus rounded-up values.
 *
 * One failure can be injected per operation, and one hook can run before a
 * chosen call (to delete an entry mid-walk, say).
 */
#ifndef XDPBR_MOCK_BPF_H
#define XDPBR_MOCK_BPF_H

#include <stddef.h>
#include <linux/types.h>

struct bpf_map_batch_opts;

enum mock_map_type {
	MOCK_HASH,		/* BPF_MAP_TYPE_HASH: iteration in insertion order */
	MOCK_ARRAY,		/* BPF_MAP_TYPE_ARRAY: __u32 keys 0..max-1, zeroed */
	MOCK_PERCPU_ARRAY,	/* BPF_MAP_TYPE_PERCPU_ARRAY: one value per CPU */
};

enum mock_op {
	MOCK_OP_LOOKUP_BATCH,
	MOCK_OP_GET_NEXT_KEY,
	MOCK_OP_LOOKUP_ELEM,
	MOCK_OP_OBJ_GET,
	MOCK_OP_UPDATE_ELEM,
	MOCK_OP_DELETE_ELEM,
	MOCK_OP_DELETE_BATCH,
	MOCK_OP__MAX,
};

/* Drops every fake map, pin, injected failure and hook; CPUs back to 4. */
void mock_bpf_reset(void);

/* The same, as a cmocka setup/teardown function. */
int mock_bpf_fixture(void **state);

/* What libbpf_num_possible_cpus() returns (a negative errno to fail). Set it
 * before creating per-CPU maps: they are sized for the CPUs of that moment. */
void mock_set_ncpus(int ncpus);

/* A new fake map; returns its fd (>= 1000, never a real descriptor). */
int mock_map_create(enum mock_map_type type, size_t key_size, size_t value_size,
		    unsigned int max_entries);

/* Insert or replace (hash), or overwrite (arrays). For a per-CPU map value
 * holds ncpus values, each rounded up to 8 bytes, as the kernel expects.
 * 0 or -errno (-E2BIG when a hash is full, -ENOENT for an array index out
 * of range). */
int mock_map_update(int fd, const void *key, const void *value);
/* Hash only: 0 or -ENOENT. */
int mock_map_delete(int fd, const void *key);
/* Entries in a hash, max_entries for an array. */
size_t mock_map_len(int fd);

/* bpf_obj_get(path) opens a new descriptor for the map at fd. */
void mock_pin(const char *path, int fd);

/* Lets `pass` calls of op through, then fails the next one with -err,
 * once. */
void mock_fail(enum mock_op op, unsigned int pass, int err);

/* Runs fn(arg) right before the nth (1-based) call of op from now. */
void mock_hook(enum mock_op op, unsigned int nth, void (*fn)(void *), void *arg);

/* Calls of op since the last reset. */
unsigned int mock_calls(enum mock_op op);

/* Of the map at fd, since it was made: how many walks began (a
 * lookup_batch without a cursor, a get_next_key without a key), and how
 * many entries lookup_batch and get_next_key handed out. One pass over a
 * table of n entries: 1 walk, n entries. */
unsigned int mock_walks(int fd);
size_t mock_entries_read(int fd);

/* The wrappers (prototypes of the libbpf functions they replace). */
int __wrap_bpf_map_lookup_batch(int fd, void *in_batch, void *out_batch,
				void *keys, void *values, __u32 *count,
				const struct bpf_map_batch_opts *opts);
int __wrap_bpf_map_get_next_key(int fd, const void *key, void *next_key);
int __wrap_bpf_map_lookup_elem(int fd, const void *key, void *value);
int __wrap_bpf_map_update_elem(int fd, const void *key, const void *value, __u64 flags);
int __wrap_bpf_map_delete_elem(int fd, const void *key);
int __wrap_bpf_map_delete_batch(int fd, const void *keys, __u32 *count,
				const struct bpf_map_batch_opts *opts);
int __wrap_bpf_obj_get(const char *pathname);
int __wrap_libbpf_num_possible_cpus(void);

#endif

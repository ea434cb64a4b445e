// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* mock_bpf.c - fake BPF maps behind the libbpf calls of the daemon modules. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>

#include "mock_bpf.h"

#define MAX_MAPS	64
#define MAX_PINS	64
#define MAX_ALIASES	64
#define FAKE_FD_BASE	1000

struct fake_map {
	int fd;
	enum mock_map_type type;
	size_t key_size;
	size_t value_size;		/* as created: one CPU's, for per-CPU maps */
	size_t slot_size;		/* bytes stored and copied per key */
	unsigned int max_entries;
	unsigned int n;			/* hash: entries in use */
	unsigned int slots;		/* hash: slots ever used, 0..slots-1 */
	unsigned char *used;		/* hash: which of them hold an entry */
	unsigned char *keys;		/* hash: by slot */
	unsigned char *vals;
	unsigned int walks;		/* walks begun (mock_walks) */
	size_t read;			/* entries handed out by walks */
};

static struct fake_map maps[MAX_MAPS];
static int nmaps;

static struct {
	char path[256];
	int fd;
} pins[MAX_PINS];
static int npins;

/* Descriptors handed out by bpf_obj_get: a real fd (of /dev/null, so that
 * the code under test can close it) standing for a fake map. */
static struct {
	int fd;
	int map_fd;
} aliases[MAX_ALIASES];
static int naliases;

static int ncpus = 4;

static unsigned int calls[MOCK_OP__MAX];
static struct {
	bool armed;
	unsigned int at;
	int err;
} fails[MOCK_OP__MAX];
static struct {
	void (*fn)(void *);
	void *arg;
	unsigned int at;
} hooks[MOCK_OP__MAX];

/* libbpf's convention: negative errno returned, errno set as well. */
static int fail_errno(int err)
{
	errno = err;
	return -err;
}

void mock_bpf_reset(void)
{
	for (int i = 0; i < nmaps; i++) {
		free(maps[i].used);
		free(maps[i].keys);
		free(maps[i].vals);
	}
	memset(maps, 0, sizeof(maps));
	nmaps = npins = naliases = 0;
	ncpus = 4;
	memset(calls, 0, sizeof(calls));
	memset(fails, 0, sizeof(fails));
	memset(hooks, 0, sizeof(hooks));
}

int mock_bpf_fixture(void **state)
{
	mock_bpf_reset();
	return 0;
}

void mock_set_ncpus(int n)
{
	ncpus = n;
}

static struct fake_map *map_of(int fd)
{
	for (int i = naliases - 1; i >= 0; i--)	/* newest first: fds get reused */
		if (aliases[i].fd == fd) {
			fd = aliases[i].map_fd;
			break;
		}
	for (int i = 0; i < nmaps; i++)
		if (maps[i].fd == fd)
			return &maps[i];
	return NULL;
}

int mock_map_create(enum mock_map_type type, size_t key_size, size_t value_size,
		    unsigned int max_entries)
{
	struct fake_map *m;

	if (nmaps == MAX_MAPS || !max_entries || !key_size || !value_size)
		return -EINVAL;
	if (type != MOCK_HASH && key_size != sizeof(__u32))
		return -EINVAL;
	m = &maps[nmaps];
	m->fd = FAKE_FD_BASE + nmaps;
	m->type = type;
	m->key_size = key_size;
	m->value_size = value_size;
	m->max_entries = max_entries;
	if (type == MOCK_PERCPU_ARRAY)
		m->slot_size = ((value_size + 7) & ~(size_t)7) * (size_t)(ncpus > 0 ? ncpus : 1);
	else
		m->slot_size = value_size;
	m->vals = calloc(max_entries, m->slot_size);
	if (type == MOCK_HASH) {
		m->keys = calloc(max_entries, key_size);
		m->used = calloc(max_entries, 1);
	} else {
		m->n = max_entries;
	}
	if (!m->vals || (type == MOCK_HASH && (!m->keys || !m->used))) {
		free(m->vals);
		free(m->keys);
		free(m->used);
		memset(m, 0, sizeof(*m));
		return -ENOMEM;
	}
	nmaps++;
	return m->fd;
}

static long hash_find(const struct fake_map *m, const void *key)
{
	for (unsigned int i = 0; i < m->slots; i++)
		if (m->used[i] && !memcmp(m->keys + (size_t)i * m->key_size, key, m->key_size))
			return i;
	return -1;
}

/* The first slot from i on that holds an entry; m->slots if none. */
static unsigned int hash_next(const struct fake_map *m, unsigned int i)
{
	while (i < m->slots && !m->used[i])
		i++;
	return i;
}

int mock_map_update(int fd, const void *key, const void *value)
{
	struct fake_map *m = map_of(fd);
	long i;

	if (!m)
		return -EBADF;
	if (m->type != MOCK_HASH) {
		__u32 idx;

		memcpy(&idx, key, sizeof(idx));
		if (idx >= m->max_entries)
			return -ENOENT;
		memcpy(m->vals + (size_t)idx * m->slot_size, value, m->slot_size);
		return 0;
	}
	i = hash_find(m, key);
	if (i < 0) {
		if (m->n == m->max_entries)
			return -E2BIG;
		for (i = 0; i < m->slots && m->used[i]; i++)
			;	/* the first free slot, as a bucket could be anywhere */
		if (i == m->slots)
			m->slots++;
		m->used[i] = 1;
		m->n++;
		memcpy(m->keys + (size_t)i * m->key_size, key, m->key_size);
	}
	memcpy(m->vals + (size_t)i * m->slot_size, value, m->slot_size);
	return 0;
}

int mock_map_delete(int fd, const void *key)
{
	struct fake_map *m = map_of(fd);
	long i;

	if (!m || m->type != MOCK_HASH)
		return -EINVAL;
	i = hash_find(m, key);
	if (i < 0)
		return -ENOENT;
	m->n--;
	m->used[i] = 0;		/* the others keep their slots, as in buckets */
	return 0;
}

size_t mock_map_len(int fd)
{
	struct fake_map *m = map_of(fd);

	return m ? m->n : 0;
}

void mock_pin(const char *path, int fd)
{
	if (npins == MAX_PINS || strlen(path) >= sizeof(pins[0].path))
		abort();	/* a broken test, not a tested behaviour */
	strcpy(pins[npins].path, path);
	pins[npins].fd = fd;
	npins++;
}

void mock_fail(enum mock_op op, unsigned int pass, int err)
{
	fails[op].armed = true;
	fails[op].at = calls[op] + pass + 1;
	fails[op].err = err;
}

void mock_hook(enum mock_op op, unsigned int nth, void (*fn)(void *), void *arg)
{
	hooks[op].fn = fn;
	hooks[op].arg = arg;
	hooks[op].at = calls[op] + nth;
}

unsigned int mock_calls(enum mock_op op)
{
	return calls[op];
}

unsigned int mock_walks(int fd)
{
	struct fake_map *m = map_of(fd);

	return m ? m->walks : 0;
}

size_t mock_entries_read(int fd)
{
	struct fake_map *m = map_of(fd);

	return m ? m->read : 0;
}

/* Counts the call, runs a due hook; returns the injected errno, or 0. */
static int enter(enum mock_op op)
{
	unsigned int call = ++calls[op];

	if (hooks[op].fn && hooks[op].at == call) {
		void (*fn)(void *) = hooks[op].fn;

		hooks[op].fn = NULL;
		fn(hooks[op].arg);
	}
	if (fails[op].armed && fails[op].at == call) {
		fails[op].armed = false;
		return fails[op].err;
	}
	return 0;
}

/* Counts the call of op on fd and finds its map: NULL, with the errno to
 * fail with in *err, on an injected failure or an unknown fd. */
static struct fake_map *enter_map(enum mock_op op, int fd, int *err)
{
	struct fake_map *m;

	*err = enter(op);
	if (*err)
		return NULL;
	m = map_of(fd);
	if (!m)
		*err = EBADF;
	return m;
}

/* An array's batch, as the kernel's generic_map_lookup_batch: the cursor
 * is the next index (a __u32); at the end -ENOENT with *count the entries
 * copied. */
static int array_batch(struct fake_map *m, const void *in_batch, void *out_batch,
		       void *keys, void *values, __u32 *count)
{
	__u32 idx = 0, k = 0;

	if (in_batch)
		memcpy(&idx, in_batch, sizeof(idx));
	m->walks += !in_batch;
	for (; idx < m->max_entries && k < *count; idx++, k++) {
		memcpy((unsigned char *)keys + k * sizeof(idx), &idx, sizeof(idx));
		memcpy((unsigned char *)values + k * m->slot_size,
		       m->vals + (size_t)idx * m->slot_size, m->slot_size);
	}
	m->read += k;
	memcpy(out_batch, &idx, sizeof(idx));
	if (k < *count || idx >= m->max_entries) {
		*count = k;
		return fail_errno(ENOENT);
	}
	return 0;
}

/*
 * Hash maps as the kernel's htab does it: the cursor is opaque to the
 * caller (here: the slot to go on from as a __u64, and slots stay put as
 * buckets do, so deleting what a walk read doesn't make it skip). A call that runs
 * out of entries before filling *count returns -ENOENT with *count set to
 * what it did copy; a call that fills *count exactly returns 0, and the next
 * one -ENOENT with *count 0. An early failure leaves *count as it was, as
 * libbpf copies back the unchanged attr.
 */
int __wrap_bpf_map_lookup_batch(int fd, void *in_batch, void *out_batch,
				void *keys, void *values, __u32 *count,
				const struct bpf_map_batch_opts *opts)
{
	struct fake_map *m;
	__u64 start = 0, k = 0;
	int err;

	m = enter_map(MOCK_OP_LOOKUP_BATCH, fd, &err);
	if (!m)
		return fail_errno(err);
	if (!out_batch || !count)
		return fail_errno(EINVAL);
	if (!*count)
		return 0;
	if (m->type != MOCK_HASH)
		return array_batch(m, in_batch, out_batch, keys, values, count);
	if (in_batch)
		memcpy(&start, in_batch, sizeof(start));
	m->walks += !start;
	for (start = hash_next(m, (unsigned int)(start < m->slots ? start : m->slots));
	     start < m->slots && k < *count; start = hash_next(m, (unsigned int)start + 1)) {
		memcpy((unsigned char *)keys + k * m->key_size,
		       m->keys + start * m->key_size, m->key_size);
		memcpy((unsigned char *)values + k * m->slot_size,
		       m->vals + start * m->slot_size, m->slot_size);
		k++;
	}
	m->read += k;
	memcpy(out_batch, &start, sizeof(start));
	if (k < *count) {
		*count = (__u32)k;
		return fail_errno(ENOENT);
	}
	return 0;
}

int __wrap_bpf_map_get_next_key(int fd, const void *key, void *next_key)
{
	struct fake_map *m;
	__u32 idx;
	long i;
	int err;

	m = enter_map(MOCK_OP_GET_NEXT_KEY, fd, &err);
	if (!m)
		return fail_errno(err);
	if (m->type != MOCK_HASH) {
		/* array_map_get_next_key: NULL or out of range -> 0 */
		idx = UINT32_MAX;
		if (key)
			memcpy(&idx, key, sizeof(idx));
		if (idx >= m->max_entries)
			idx = 0;
		else if (idx == m->max_entries - 1)
			return fail_errno(ENOENT);
		else
			idx++;
		memcpy(next_key, &idx, sizeof(idx));
		return 0;
	}
	/* htab: a missing (e.g. just deleted) key restarts from the first */
	i = key ? hash_find(m, key) : -1;
	m->walks += !key;
	i = hash_next(m, i < 0 ? 0 : (unsigned int)i + 1);
	if ((unsigned long)i >= m->slots)
		return fail_errno(ENOENT);
	memcpy(next_key, m->keys + (size_t)i * m->key_size, m->key_size);
	m->read++;
	return 0;
}

int __wrap_bpf_map_lookup_elem(int fd, const void *key, void *value)
{
	struct fake_map *m;
	__u32 idx;
	long i;
	int err;

	m = enter_map(MOCK_OP_LOOKUP_ELEM, fd, &err);
	if (!m)
		return fail_errno(err);
	if (m->type == MOCK_HASH) {
		i = hash_find(m, key);
		if (i < 0)
			return fail_errno(ENOENT);
	} else {
		memcpy(&idx, key, sizeof(idx));
		if (idx >= m->max_entries)
			return fail_errno(ENOENT);
		i = idx;
	}
	memcpy(value, m->vals + (size_t)i * m->slot_size, m->slot_size);
	return 0;
}

/* BPF_ANY, BPF_NOEXIST, BPF_EXIST as the kernel's htab and array: an
 * array's keys all exist. */
int __wrap_bpf_map_update_elem(int fd, const void *key, const void *value, __u64 flags)
{
	struct fake_map *m;
	bool exists;
	int err;

	m = enter_map(MOCK_OP_UPDATE_ELEM, fd, &err);
	if (!m)
		return fail_errno(err);
	if (flags > BPF_EXIST)
		return fail_errno(EINVAL);
	exists = m->type != MOCK_HASH || hash_find(m, key) >= 0;
	if (flags == BPF_NOEXIST && exists)
		return fail_errno(EEXIST);
	if (flags == BPF_EXIST && !exists)
		return fail_errno(ENOENT);
	err = mock_map_update(fd, key, value);
	return err ? fail_errno(-err) : 0;
}

/* Hash maps only (an array's entries can't be deleted: EINVAL). */
int __wrap_bpf_map_delete_elem(int fd, const void *key)
{
	struct fake_map *m;
	int err;

	m = enter_map(MOCK_OP_DELETE_ELEM, fd, &err);
	if (!m)
		return fail_errno(err);
	err = mock_map_delete(fd, key);
	return err ? fail_errno(-err) : 0;
}

/* As the kernel's generic_map_delete_batch: key by key, stopping at the
 * first that fails, *count set to how many went. */
int __wrap_bpf_map_delete_batch(int fd, const void *keys, __u32 *count,
				const struct bpf_map_batch_opts *opts)
{
	struct fake_map *m;
	__u32 done = 0;
	int err;

	m = enter_map(MOCK_OP_DELETE_BATCH, fd, &err);
	if (!m)
		return fail_errno(err);
	for (; done < *count; done++) {
		err = mock_map_delete(fd, (const unsigned char *)keys + done * m->key_size);
		if (err)
			break;
	}
	*count = done;
	return err ? fail_errno(-err) : 0;
}

int __wrap_bpf_obj_get(const char *pathname)
{
	int err = enter(MOCK_OP_OBJ_GET), fd;

	if (err)
		return fail_errno(err);
	for (int i = 0; i < npins; i++) {
		if (strcmp(pins[i].path, pathname))
			continue;
		if (naliases == MAX_ALIASES)
			return fail_errno(EMFILE);
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail_errno(errno);
		aliases[naliases].fd = fd;
		aliases[naliases].map_fd = pins[i].fd;
		naliases++;
		return fd;
	}
	return fail_errno(ENOENT);
}

int __wrap_libbpf_num_possible_cpus(void)
{
	return ncpus;
}

/* Not in mock_bpf.h: the wrapper alone is the seam (report_collect() reads
 * the FDB's capacity). A fake map's type, sizes and max_entries, with the
 * kernel's truncation to *info_len. */
int __wrap_bpf_obj_get_info_by_fd(int bpf_fd, void *info, __u32 *info_len);

int __wrap_bpf_obj_get_info_by_fd(int bpf_fd, void *info, __u32 *info_len)
{
	static const __u32 types[] = {
		[MOCK_HASH] = BPF_MAP_TYPE_HASH,
		[MOCK_ARRAY] = BPF_MAP_TYPE_ARRAY,
		[MOCK_PERCPU_ARRAY] = BPF_MAP_TYPE_PERCPU_ARRAY,
	};
	struct fake_map *m = map_of(bpf_fd);
	struct bpf_map_info mi = { 0 };
	__u32 len;

	if (!m)
		return fail_errno(EBADF);
	if (!info || !info_len)
		return fail_errno(EINVAL);
	mi.type = types[m->type];
	mi.id = (__u32)m->fd;
	mi.key_size = (__u32)m->key_size;
	mi.value_size = (__u32)m->value_size;
	mi.max_entries = m->max_entries;
	len = *info_len < sizeof(mi) ? *info_len : (__u32)sizeof(mi);
	memcpy(info, &mi, len);
	*info_len = len;
	return 0;
}

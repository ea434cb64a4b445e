// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* netns.c - other network namespaces' pins: proof of life, collection of
 * the dead ones', the inode layout moved or reported (see netns.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "hook.h"
#include "xdpbr_maps.h"
#include "lock.h"
#include "log.h"
#include "netlink.h"
#include "netns.h"
#include "util.h"

enum life { LIFE_UNKNOWN, LIFE_ALIVE, LIFE_GONE };

#define PATH_OF(buf, ...) ((size_t)snprintf(buf, sizeof(buf), __VA_ARGS__) >= sizeof(buf))

static bool is_bpf_link(int fd)
{
	char fdpath[32], what[32] = "";

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	return readlink(fdpath, what, sizeof(what) - 1) > 0 && !strcmp(what, "anon_inode:bpf-link");
}

/* What the proof of life in dir says, and the inode it names (*ino). */
static enum life life_of(const char *dir, uint32_t *ino)
{
	struct bpf_link_info li = {};
	__u32 len = sizeof(li);
	enum life l = LIFE_UNKNOWN;
	char path[PATH_MAX];
	int fd;

	*ino = 0;
	if (PATH_OF(path, "%s/%s", dir, NETNS_LIFE_LINK))
		return LIFE_UNKNOWN;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return LIFE_UNKNOWN;
	if (is_bpf_link(fd) && !bpf_obj_get_info_by_fd(fd, &li, &len) &&
	    li.type == BPF_LINK_TYPE_NETNS && li.netns.attach_type == BPF_SK_LOOKUP) {
		*ino = li.netns.netns_ino;
		l = *ino ? LIFE_ALIVE : LIFE_GONE;
	}
	close(fd);
	return l;
}

/* A program that lets every socket lookup go on as if it were not there,
 * attached to our namespace's sk_lookup hook, the link pinned at path. */
static int life_link_make(const char *path)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = SK_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_SK_LOOKUP);
	int prog, ns = -1, link = -1, err = 0;

	prog = bpf_prog_load(BPF_PROG_TYPE_SK_LOOKUP, "xdpbr_netns", "GPL", insns,
			     ARRAY_SIZE(insns), &o);
	if (prog < 0)
		return -errno;
	ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		err = -errno;
	if (!err && (link = bpf_link_create(prog, ns, BPF_SK_LOOKUP, NULL)) < 0)
		err = -errno;
	if (!err && bpf_obj_pin(link, path))
		err = -errno;
	if (link >= 0)
		close(link);
	if (ns >= 0)
		close(ns);
	close(prog);
	return err;
}

void netns_mark(const struct xdpbr_paths *p)
{
	static bool warned;
	char path[PATH_MAX];
	uint32_t ino;
	int err;

	if (!p->keyed || PATH_OF(path, "%s/%s", p->pin_root, NETNS_LIFE_LINK))
		return;
	if (life_of(p->pin_root, &ino) == LIFE_ALIVE && ino == p->netns)
		return;
	unlink(path);		/* not ours: meanwhile the directory proves nothing */
	err = life_link_make(path);
	if (err && !warned) {
		warned = true;
		log_warn("Couldn't pin the proof of life of network namespace %" PRIu64 " in %s/%s: "
			 "%s; its bridges work, but their pins will stay when the namespace goes "
			 "(remove them with 'rm -r' then)", p->netns, p->pin_root_shown,
			 NETNS_LIFE_LINK, strerror(-err));
	}
}

static bool is_dot(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

/* Whether dir holds nothing but its proof of life. */
static bool only_life(const char *dir)
{
	struct dirent *de;
	bool only = true;
	DIR *d = opendir(dir);

	if (!d)
		return false;
	while (only && (de = readdir(d)))
		only = is_dot(de->d_name) || !strcmp(de->d_name, NETNS_LIFE_LINK);
	closedir(d);
	return only;
}

void netns_root_remove(const struct xdpbr_paths *p)
{
	char path[PATH_MAX];

	if (p->keyed && only_life(p->pin_root) &&
	    !PATH_OF(path, "%s/%s", p->pin_root, NETNS_LIFE_LINK)) {
		unlink(path);
		if (rmdir(p->pin_root))
			netns_mark(p);	/* a bridge came meanwhile */
	} else {
		rmdir(p->pin_root);
	}
	if (p->keyed)
		rmdir(p->netns_dir);
}

/* Unlinks what dir holds (pins, sockets: no directories) and dir. */
static int dir_remove(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	int err = 0;
	DIR *d = opendir(dir);

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)))
		if (!is_dot(de->d_name) && !PATH_OF(path, "%s/%s", dir, de->d_name) &&
		    unlink(path) && errno != ENOENT)
			err = -errno;
	closedir(d);
	if (rmdir(dir) && errno != ENOENT)
		err = err ?: -errno;
	return err;
}

/* Appends " name" to a list of names for a message (cut where it's full). */
static void name_add(char *list, size_t len, const char *name)
{
	size_t used = strlen(list);

	if (used + 1 < len && snprintf(list + used, len - used, " %s", name) < 0)
		list[used] = '\0';
}

/* A dead namespace's bridge: its pins, unless a process holds its lock. */
static int dead_bridge_remove(const char *dir, const char *shown, const char *br)
{
	char path[PATH_MAX];
	pid_t pid = 0;
	int lk = -1, err;

	if (PATH_OF(path, "%s/%s", dir, br))
		return -ENAMETOOLONG;
	err = lock_dir(path, &lk, &pid);
	if (err == -EBUSY)
		log_warn("%s: its network namespace is gone, but PID %d holds the lock of bridge "
			 "%s: left alone", shown, (int)pid, br);
	if (err)
		return err;
	err = dir_remove(path);
	lock_release(&lk);
	return err;
}

/* The socket directory of the namespace of cookie (the pins' are gone). */
static void dead_run_dir_remove(uint64_t cookie)
{
	char path[PATH_MAX];

	if (!PATH_OF(path, "%s/%s%" PRIu64, PATHS_RUN_DIR, PATHS_RUN_NETNS, cookie))
		dir_remove(path);
}

/* Everything of a namespace proven dead: 1 if its directory is gone. */
static int dead_ns_remove(const char *dir, const char *shown, uint64_t cookie)
{
	char path[PATH_MAX], names[256] = "";
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (is_dot(de->d_name) || !strcmp(de->d_name, NETNS_LIFE_LINK) ||
		    PATH_OF(path, "%s/%s", dir, de->d_name))
			continue;
		if (de->d_type != DT_DIR)
			unlink(path);
		else if (!dead_bridge_remove(dir, shown, de->d_name))
			name_add(names, sizeof(names), de->d_name);
	}
	closedir(d);
	/* The proof goes last: whatever is left is still proven dead. */
	if (!only_life(dir) || PATH_OF(path, "%s/%s", dir, NETNS_LIFE_LINK) || unlink(path) ||
	    rmdir(dir))
		return 0;
	dead_run_dir_remove(cookie);
	log_info("network namespace of cookie %" PRIu64 " is gone: removed %s (bridges:%s)",
		 cookie, shown, names[0] ? names : " none");
	return 1;
}

/* PATHS_NETNS_DIR/cookie-C: removed if its namespace is proven dead. */
static int cookie_dir_collect(const struct xdpbr_paths *p, const char *name, uint64_t cookie)
{
	char dir[PATH_MAX], shown[PATH_MAX];
	uint32_t ino;

	if ((p->keyed && cookie == p->cookie) || PATH_OF(dir, "%s/%s", p->netns_dir, name) ||
	    PATH_OF(shown, "%s/%s/%s", PATHS_BPFFS, PATHS_NETNS_DIR, name))
		return 0;
	switch (life_of(dir, &ino)) {
	case LIFE_GONE:
		return dead_ns_remove(dir, shown, cookie);
	case LIFE_ALIVE:
		log_debug("%s: network namespace %u lives", shown, ino);
		return 0;
	default:
		log_info("%s: no proof of life (%s): kept, as its namespace may live", shown,
			 NETNS_LIFE_LINK);
		return 0;
	}
}

/* Whether a program that uses map map_id runs on an XDP or TC hook of a
 * device of our namespace. */
static bool prog_uses(uint32_t prog_id, uint32_t map_id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), ids[64];
	bool uses = false;
	int fd;

	if (!prog_id || (fd = bpf_prog_get_fd_by_id(prog_id)) < 0)
		return false;
	info.nr_map_ids = ARRAY_SIZE(ids);
	info.map_ids = (__u64)(unsigned long)ids;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		for (__u32 i = 0; i < info.nr_map_ids && i < ARRAY_SIZE(ids); i++)
			uses |= ids[i] == map_id;
	close(fd);
	return uses;
}

/* Whether the bridge pinned in brdir forwards on a device of our
 * namespace: its datapath, which uses its FDB, runs on one's XDP or TC
 * hook. A bridge without ports proves nothing. */
static bool bridge_runs_here(const char *brdir)
{
	struct bpf_map_info mi = {};
	__u32 mlen = sizeof(mi);
	struct if_nameindex *ifs, *i;
	char path[PATH_MAX];
	uint32_t id, mode;
	bool here = false;
	int fd;

	if (PATH_OF(path, "%s/%s", brdir, XDPBR_MAP_NAME(fdb)) || (fd = bpf_obj_get(path)) < 0)
		return false;
	if (bpf_obj_get_info_by_fd(fd, &mi, &mlen))
		mi.id = 0;
	close(fd);
	ifs = mi.id ? if_nameindex() : NULL;
	for (i = ifs; i && i->if_index && !here; i++)
		here = (!xdp_query(i->if_index, &id, &mode) && prog_uses(id, mi.id)) ||
		       (!tc_query(i->if_index, 0, &id) && prog_uses(id, mi.id));
	if (ifs)
		if_freenameindex(ifs);
	return here;
}

/* One bridge of the inode layout of our own namespace's inode: moved into
 * our directory when it provably forwards here. */
static void legacy_bridge_take(const struct xdpbr_paths *p, const char *dir,
			       const char *shown, const char *br)
{
	char src[PATH_MAX], dst[PATH_MAX], sock[PATH_MAX];
	pid_t pid = 0;
	int lk = -1, err;

	if (PATH_OF(src, "%s/%s", dir, br) || PATH_OF(dst, "%s/%s", p->pin_root, br) ||
	    PATH_OF(sock, "%s/%s%" PRIu64 "/%s.sock", PATHS_RUN_DIR, PATHS_RUN_NETNS_INODE,
		    p->netns, br))
		return;
	if (!access(dst, F_OK)) {
		log_warn("%s/%s: bridge %s is also in %s: left alone", shown, br, br,
			 p->pin_root_shown);
		return;
	}
	err = lock_dir(src, &lk, &pid);
	if (err == -EBUSY)
		log_warn("%s/%s: bridge %s of this namespace is run by PID %d, an xdpbrd of an "
			 "earlier version: restart it to move the bridge to %s", shown, br, br,
			 (int)pid, p->pin_root_shown);
	else if (err)
		log_warn("Couldn't lock %s/%s: %s", shown, br, strerror(-err));
	if (err)
		return;
	if (!bridge_runs_here(src)) {
		log_warn("%s/%s: bridge %s is in the layout of an earlier version, keyed by an inode "
			 "number the kernel reuses, and none of its ports is here: can't tell "
			 "whether it is this namespace's; left alone (move it into %s if it is, "
			 "else remove it with 'rm -r')", shown, br, br, p->pin_root_shown);
	} else if ((mkdir(p->netns_dir, 0700) && errno != EEXIST) ||
		   (mkdir(p->pin_root, 0700) && errno != EEXIST) || rename(src, dst)) {
		log_warn("Couldn't move bridge %s from %s to %s: %s", br, shown, p->pin_root_shown,
			 strerror(errno));
	} else {
		netns_mark(p);
		unlink(sock);		/* no daemon: it held the lock */
		log_info("bridge %s: moved from %s (the layout of an earlier version) to %s", br,
			 shown, p->pin_root_shown);
	}
	lock_release(&lk);
}

/* PATHS_NETNS_DIR/INODE, the layout before cookies: what is provably ours
 * moved, the rest reported. */
static void legacy_dir_collect(const struct xdpbr_paths *p, const char *name, uint64_t ino)
{
	char dir[PATH_MAX], shown[PATH_MAX], names[256] = "";
	struct dirent *de;
	DIR *d;

	if (PATH_OF(dir, "%s/%s", p->netns_dir, name) ||
	    PATH_OF(shown, "%s/%s/%s", PATHS_BPFFS, PATHS_NETNS_DIR, name) || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		if (is_dot(de->d_name) || de->d_type != DT_DIR)
			continue;
		if (p->keyed && ino == p->netns)
			legacy_bridge_take(p, dir, shown, de->d_name);
		else
			name_add(names, sizeof(names), de->d_name);
	}
	closedir(d);
	if (names[0])
		log_warn("%s: pins of an earlier version (bridges:%s), keyed by a network namespace "
			 "inode, which the kernel reuses: whose they are can't be told from here. An "
			 "xdpbrd started in their namespace takes over those whose ports run there; "
			 "remove the others with 'rm -r %s'", shown, names, shown);
	if (!rmdir(dir) && !PATH_OF(dir, "%s/%s%" PRIu64, PATHS_RUN_DIR, PATHS_RUN_NETNS_INODE, ino))
		rmdir(dir);
}

int netns_collect(void)
{
	const size_t klen = strlen(PATHS_NETNS_KEY);
	const struct xdpbr_paths *p;
	struct dirent *de;
	uint64_t id;
	int err = paths_get(&p), n = 0;
	DIR *d;

	if (err)
		return err;
	d = opendir(p->netns_dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!strncmp(de->d_name, PATHS_NETNS_KEY, klen) &&
		    !parse_u64(de->d_name + klen, UINT64_MAX, &id))
			n += cookie_dir_collect(p, de->d_name, id);
		else if (!parse_u64(de->d_name, UINT64_MAX, &id))
			legacy_dir_collect(p, de->d_name, id);
	}
	closedir(d);
	if (n)
		rmdir(p->netns_dir);	/* if that was the last */
	return n;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* paths.c - where the pins and the event socket are (see paths.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "paths.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71	/* Linux 5.14 */
#endif

/* ------------------------------------------------------------ pure part */

static bool is_host_netns(const struct ns_ids *ns)
{
	/* unknown on either side: as before namespaces were told apart */
	return !ns->net || !ns->host_net || ns->net == ns->host_net;
}

bool paths_need_host_bpffs(const struct ns_ids *ns)
{
	return !is_host_netns(ns) && ns->mnt != ns->host_mnt;
}

/* snprintf into a fixed field: 0 or -ENAMETOOLONG. */
#define FIELD(dst, ...) \
	((size_t)snprintf(dst, sizeof(dst), __VA_ARGS__) >= sizeof(dst) ? -ENAMETOOLONG : 0)

int paths_build(struct xdpbr_paths *p, const struct ns_ids *ns, int host_fd)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->netns = ns->net;
	p->cookie = ns->cookie;
	p->keyed = !is_host_netns(ns);
	p->remote = paths_need_host_bpffs(ns);
	if (p->remote && host_fd < 0)
		return -EBADF;
	if (p->keyed && !p->cookie)
		return -EOPNOTSUPP;
	err = p->remote ? FIELD(p->bpffs, "/proc/self/fd/%d", host_fd)
			: FIELD(p->bpffs, "%s", PATHS_BPFFS);
	err = err ?: FIELD(p->iproute2_dir, "%s/%s", p->bpffs, PATHS_IPROUTE2_DIR);
	err = err ?: FIELD(p->netns_dir, "%s/%s", p->bpffs, PATHS_NETNS_DIR);
	if (err)
		return err;
	if (!p->keyed)
		return FIELD(p->pin_root, "%s/%s", p->bpffs, PATHS_PIN_DIR) ?:
		       FIELD(p->pin_root_shown, "%s/%s", PATHS_BPFFS, PATHS_PIN_DIR) ?:
		       FIELD(p->run_dir, "%s", PATHS_RUN_DIR);
	return FIELD(p->pin_root, "%s/%s%" PRIu64, p->netns_dir, PATHS_NETNS_KEY, p->cookie) ?:
	       FIELD(p->pin_root_shown, "%s/%s/%s%" PRIu64, PATHS_BPFFS, PATHS_NETNS_DIR,
		     PATHS_NETNS_KEY, p->cookie) ?:
	       FIELD(p->run_dir, "%s/%s%" PRIu64, PATHS_RUN_DIR, PATHS_RUN_NETNS, p->cookie);
}

int pin_path_in(const struct xdpbr_paths *p, char *buf, size_t len, const char *bridge,
		const char *name)
{
	int n;

	if (name)
		n = snprintf(buf, len, "%s/%s/%s", p->pin_root, bridge, name);
	else
		n = snprintf(buf, len, "%s/%s", p->pin_root, bridge);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int sock_path_in(const struct xdpbr_paths *p, char *buf, size_t len, const char *bridge)
{
	int n = snprintf(buf, len, "%s/%s.sock", p->run_dir, bridge);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* ------------------------------------------------- this process's paths */

static struct xdpbr_paths self_paths;
static int self_state;		/* 0: not worked out; 1: done; -errno: failed */

static uint64_t ns_inode(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

/* The process whose namespaces are the host's: PID 1, else kthreadd (the
 * kernel's), whichever we may look at; 0 if neither. */
static int host_pid(void)
{
	char comm[32] = "";
	FILE *f;

	if (ns_inode("/proc/1/ns/net"))
		return 1;
	f = fopen("/proc/2/comm", "re");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	return !strcmp(comm, "kthreadd\n") && ns_inode("/proc/2/ns/net") ? 2 : 0;
}

uint64_t paths_netns_cookie(void)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
		cookie = 0;
	close(fd);
	return cookie;
}

static void ns_ids_read(struct ns_ids *ns, int *pid)
{
	char path[32];

	memset(ns, 0, sizeof(*ns));
	ns->net = ns_inode("/proc/self/ns/net");
	ns->mnt = ns_inode("/proc/self/ns/mnt");
	ns->cookie = paths_netns_cookie();
	*pid = host_pid();
	if (!*pid)
		return;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", *pid);
	ns->host_net = ns_inode(path);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", *pid);
	ns->host_mnt = ns_inode(path);
}

/* In the child: the host's /sys/fs/bpf opened in the mount namespace
 * mntns, and sent to the parent with the errno of the first step that
 * failed. Only system calls: the parent may have threads. */
static void host_bpffs_child(int sock, const char *mntns)
{
	struct statfs st;
	int nsfd, fd = -1, err = 0;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u = {};
	struct iovec iov = { &err, sizeof(err) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	nsfd = open(mntns, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0 || setns(nsfd, CLONE_NEWNS))
		err = errno;
	else if ((fd = open(PATHS_BPFFS, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		err = errno;
	else if (fstatfs(fd, &st) || st.f_type != BPF_FS_MAGIC)
		err = ENOENT;
	if (!err) {
		struct cmsghdr *c;

		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(sock, &mh, 0) < 0)
		_exit(1);
	_exit(0);
}

/* The host's bpffs, as a descriptor: a child enters the host's mount
 * namespace (our own stays as it is, whatever our threads) and hands it
 * back. The descriptor or -errno. */
static int host_bpffs_open(int pid)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	int sv[2], err = EIO, fd = -1;
	struct iovec iov = { &err, sizeof(err) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	char mntns[32];
	pid_t child;

	snprintf(mntns, sizeof(mntns), "/proc/%d/ns/mnt", pid);
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	child = fork();
	if (child < 0) {
		err = errno;
		close(sv[0]);
		close(sv[1]);
		return -err;
	}
	if (child == 0) {
		close(sv[0]);
		host_bpffs_child(sv[1], mntns);
	}
	close(sv[1]);
	if (recvmsg(sv[0], &mh, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(err))
		err = EIO;
	c = err ? NULL : CMSG_FIRSTHDR(&mh);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	close(sv[0]);
	waitpid(child, NULL, 0);
	if (err)
		return -err;
	return fd >= 0 ? fd : -EIO;
}

static int paths_work_out(struct xdpbr_paths *p)
{
	struct ns_ids ns;
	int pid, fd = -1, err;

	ns_ids_read(&ns, &pid);
	if (paths_need_host_bpffs(&ns)) {
		fd = host_bpffs_open(pid);
		if (fd < 0) {
			log_warn("Couldn't reach the host's bpffs from network namespace %" PRIu64
				 " (%s in the mount namespace of PID %d): %s%s", ns.net,
				 PATHS_BPFFS, pid, strerror(-fd), fd == -ENOENT ?
				 "; mount it there with 'mount -t bpf bpf " PATHS_BPFFS "' (a bpffs "
				 "mounted inside 'ip netns exec' would be seen by no other one)" :
				 fd == -EPERM ? " (entering it needs CAP_SYS_ADMIN; run as root)" : "");
			return fd;
		}
	}
	err = paths_build(p, &ns, fd);
	if (err) {
		if (fd >= 0)
			close(fd);
		log_warn("Couldn't build the pin paths: %s%s", strerror(-err), err == -EOPNOTSUPP ?
			 " (a bridge outside the host's network namespace needs the namespace's "
			 "cookie, SO_NETNS_COOKIE: Linux 5.14 or later)" : "");
		return err;
	}
	if (p->keyed)
		log_info("network namespace %" PRIu64 " (cookie %" PRIu64 "): pins under %s%s%s%s, "
			 "event sockets in %s", p->netns, p->cookie, p->pin_root_shown,
			 p->remote ? " (the host's, reached as " : "", p->remote ? p->pin_root : "",
			 p->remote ? ")" : "", p->run_dir);
	return 0;
}

int paths_get(const struct xdpbr_paths **p)
{
	if (!self_state)
		self_state = paths_work_out(&self_paths) ?: 1;
	if (self_state < 0)
		return self_state;
	*p = &self_paths;
	return 0;
}

void paths_set(const struct xdpbr_paths *p)
{
	self_paths = *p;
	self_state = 1;
}

int pin_path(char *buf, size_t len, const char *bridge, const char *name)
{
	const struct xdpbr_paths *p;
	int err = paths_get(&p);

	return err ? err : pin_path_in(p, buf, len, bridge, name);
}

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_PATHS_H
#define XDPBR_PATHS_H

/*
 * paths - where a bridge's pins and event socket are, per network namespace.
 *
 * In the host's network namespace (PID 1's), as always:
 *   pins     /sys/fs/bpf/xdpbr/<bridge>/
 *   socket   /run/xdpbr/<bridge>.sock
 * In any other network namespace, the same bpffs and /run, keyed by the
 * namespace's cookie C (SO_NETNS_COOKIE: never reused while the machine
 * runs, where inode numbers are reused at once):
 *   pins     /sys/fs/bpf/xdpbr-netns/cookie-C/<bridge>/
 *   socket   /run/xdpbr/netns-cookie-C/<bridge>.sock
 * so two bridges of one name in two namespaces don't meet, the host's
 * `xdpbr` never lists another namespace's bridges, and a namespace made
 * after one died never sees its pins (lib/netns.h removes those).
 *
 * `ip netns exec` runs its command in a mount namespace of its own, where
 * /sys is a fresh sysfs without the host's bpffs. The pins must still be in
 * the host's bpffs, or the next `ip netns exec` of the same namespace would
 * not find them: a process whose mount namespace is not the host's reaches
 * the host's /sys/fs/bpf through a directory descriptor, opened by a child
 * that entered the host's mount namespace (setns), and names it
 * /proc/self/fd/FD. It never mounts a bpffs of its own there.
 *
 * The decision needs the host's namespaces: those of PID 1, else (PID 1
 * hidden, e.g. a non-dumpable init) those of kthreadd, which are the
 * kernel's. If neither can be read (no CAP_SYS_PTRACE, as in a sandboxed
 * service), the process is taken to be in the host's namespace.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PATHS_BPFFS		"/sys/fs/bpf"
#define PATHS_PIN_DIR		"xdpbr"		/* under the bpffs */
#define PATHS_NETNS_DIR		"xdpbr-netns"	/* under the bpffs */
#define PATHS_RUN_DIR		"/run/xdpbr"
#define PATHS_NETNS_KEY		"cookie-"	/* under PATHS_NETNS_DIR, + cookie */
#define PATHS_RUN_NETNS		"netns-cookie-"	/* under PATHS_RUN_DIR, + cookie */
/* The layout before cookies: "<PATHS_NETNS_DIR>/INODE/", "<PATHS_RUN_DIR>/
 * netns-INODE/" (lib/netns.c moves or reports what is left of it). */
#define PATHS_RUN_NETNS_INODE	"netns-"
/* Where iproute2 pins an object's maps by name, under the bpffs (xdpbr
 * bridge add takes them over). */
#define PATHS_IPROUTE2_DIR	"tc/globals"

/* The inodes of our network and mount namespaces and of the host's, and
 * our network namespace's cookie (0: unknown). */
struct ns_ids {
	uint64_t net, mnt;
	uint64_t host_net, host_mnt;
	uint64_t cookie;
};

struct xdpbr_paths {
	bool keyed;			/* not the host's netns: paths keyed by netns */
	bool remote;			/* the bpffs is the host's, reached by an fd */
	uint64_t netns;			/* our netns inode (0: unknown) */
	uint64_t cookie;		/* our netns cookie (0: unknown) */
	char bpffs[48];			/* "/sys/fs/bpf" or "/proc/self/fd/FD" */
	char netns_dir[96];		/* "<bpffs>/xdpbr-netns" */
	char pin_root[128];		/* "<bpffs>/xdpbr" or "<netns_dir>/cookie-C" */
	char pin_root_shown[96];	/* pin_root as the host names it, for people */
	char run_dir[48];		/* "/run/xdpbr" or "/run/xdpbr/netns-cookie-C" */
	char iproute2_dir[96];		/* "<bpffs>/tc/globals" */
};

/* Whether ns calls for the host's bpffs through a descriptor: another
 * network namespace and another mount namespace than the host's. */
bool paths_need_host_bpffs(const struct ns_ids *ns);

/* The paths for ns; host_fd is the descriptor of the host's bpffs when
 * paths_need_host_bpffs(ns), else ignored. 0, -EBADF (no host_fd where
 * needed), -EOPNOTSUPP (another namespace than the host's, but no cookie:
 * a kernel before 5.14) or -ENAMETOOLONG. */
int paths_build(struct xdpbr_paths *p, const struct ns_ids *ns, int host_fd);

/* The cookie of our network namespace (SO_NETNS_COOKIE), 0 if the kernel
 * has none (before 5.14). */
uint64_t paths_netns_cookie(void);

/* This process's paths, worked out at the first call (which, when the
 * host's bpffs must be reached by a descriptor, forks a child that needs
 * CAP_SYS_ADMIN and CAP_SYS_CHROOT: call it before dropping them). *p is
 * set on success; 0 or -errno, the reason logged once. */
int paths_get(const struct xdpbr_paths **p);

/* Sets this process's paths (tests, and harnesses that pin into a bpffs of
 * their own). */
void paths_set(const struct xdpbr_paths *p);

/* "<pin_root>/<bridge>[/<name>]" into buf. 0 or -errno (-ENAMETOOLONG). */
int pin_path_in(const struct xdpbr_paths *p, char *buf, size_t len, const char *bridge,
		const char *name);
/* The same with this process's paths. */
int pin_path(char *buf, size_t len, const char *bridge, const char *name);

/* "<run_dir>/<bridge>.sock" into buf. 0 or -errno. */
int sock_path_in(const struct xdpbr_paths *p, char *buf, size_t len, const char *bridge);

#endif

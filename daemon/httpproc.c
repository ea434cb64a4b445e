// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * httpproc.c - the HTTP endpoint's process (see http.h): forked by the
 * daemon, stripped before it reads a byte from the network, killed with
 * the daemon, restarted by it when it dies alone.
 *
 * The daemon binds the listening socket and keeps it: a restarted process
 * serves the same socket (what clients sent meanwhile waits in its
 * backlog), and a port below 1024 needs no capability in the HTTP process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "http.h"
#include "log.h"
#include "privs.h"
#include "sandbox.h"
#include "util.h"

/* The descriptors inherited from the daemon but keep1 and keep2 (and 0-2,
 * which are redirected): read before anything of the process's own is
 * opened, and closed once it is (fds_close). The maps must be opened first:
 * in a network namespace other than the host's, their pins are reached
 * through a descriptor of the host's bpffs the daemon holds (lib/paths.c). */
struct fdlist {
	int *fd;
	size_t n;
};

static int fds_inherited(struct fdlist *l, int keep1, int keep2)
{
	DIR *d = opendir("/proc/self/fd");
	const struct dirent *e;
	int dfd, fd;

	if (!d)
		return -errno;
	dfd = dirfd(d);
	while ((e = readdir(d))) {
		int *grown;

		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		if (fd <= 2 || fd == keep1 || fd == keep2 || fd == dfd)
			continue;
		grown = realloc(l->fd, (l->n + 1) * sizeof(*l->fd));
		if (!grown) {
			closedir(d);
			return -ENOMEM;
		}
		l->fd = grown;
		l->fd[l->n++] = fd;
	}
	closedir(d);
	return 0;
}

/* Every inherited descriptor closed; 0 and 1 on /dev/null, 2 stays (the
 * daemon's log). */
static int fds_close(struct fdlist *l)
{
	int null;

	for (size_t i = 0; i < l->n; i++)
		close(l->fd[i]);
	free(l->fd);
	l->fd = NULL;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
		return -errno;
	return null > 2 ? close(null) : 0;
}

/* Signals as a new program has them: default actions, none blocked (the
 * daemon blocks its own and catches some). SIGPIPE stays ignored. */
static void signals_reset(void)
{
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The HTTP process. Every step before http_server_run either succeeds or
 * ends it, said. */
static void __attribute__((noreturn)) child(const struct http *h, pid_t parent, int listen_fd,
					    int status_fd)
{
	struct http_server s;
	struct fdlist inherited = { 0 };
	const char *step = "dying with the daemon";
	int err = prctl(PR_SET_PDEATHSIG, SIGKILL) ? -errno : 0;

	if (!err && getppid() != parent)
		_exit(0);		/* the daemon is gone already */
	signals_reset();
	prctl(PR_SET_NAME, "xdpbrd-http");
	if (!err && (step = "listing the daemon's descriptors"))
		err = fds_inherited(&inherited, listen_fd, status_fd);
	if (!err && (step = "opening the maps read-only"))
		err = http_server_open(&s, h->bridge, listen_fd, status_fd, h->start_ns);
	if (!err && (step = "closing the daemon's descriptors"))
		err = fds_close(&inherited);
	if (!err && (step = "dropping privileges"))
		err = privs_drop_process(h->uid, h->gid);
	/* Again: a change of credentials clears the parent-death signal. */
	if (!err && (step = "dying with the daemon"))
		err = prctl(PR_SET_PDEATHSIG, SIGKILL) ? -errno : 0;
	if (!err && getppid() != parent)
		_exit(0);
	if (!err && (step = "loading its seccomp filter"))
		err = sandbox_http();
	if (!err && (step = "serving"))
		err = http_server_run(&s);
	if (err)
		log_err("HTTP process: %s failed: %s", step, strerror(-err));
	_exit(err ? 1 : 0);
}

/* The last FDB record to the HTTP process. A full pipe (a process that
 * does not read) loses it: the next ageing pass writes another. */
static void status_send(const struct http *h)
{
	const struct http_fdb f = h->fdb;	/* a copy: GCC's overread check */

	if (h->status_fd >= 0 && write(h->status_fd, &f, sizeof(f)) != (ssize_t)sizeof(f))
		log_debug("the HTTP process did not take the FDB's counts");
}

static int spawn(struct http *h)
{
	int pipefd[2];
	pid_t parent = getpid(), pid;

	if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (pid == 0)
		child(h, parent, h->listen_fd, pipefd[0]);
	close(pipefd[0]);
	h->status_fd = pipefd[1];
	h->pid = pid;
	h->born_ns = mono_ns();
	if (h->fdb_known)
		status_send(h);
	return 0;
}

/* The uid and gid the HTTP process runs as: HTTP_USER's, 65534 (the
 * kernel's overflow ids) when there is no such user. */
static void user_find(struct http *h)
{
	const struct passwd *pw = getpwnam(HTTP_USER);

	h->uid = pw && pw->pw_uid ? pw->pw_uid : 65534;
	h->gid = pw && pw->pw_gid ? pw->pw_gid : 65534;
}

int http_start(struct http *h, const char *bridge, const char *listen, uint64_t start_ns)
{
	int err;

	memset(h, 0, sizeof(*h));
	h->status_fd = -1;
	h->start_ns = start_ns;
	h->delay_s = 0;		/* the first death waits HTTP_RESTART_MIN_S */
	snprintf(h->bridge, sizeof(h->bridge), "%s", bridge);
	user_find(h);
	h->listen_fd = http_listen(listen);
	if (h->listen_fd < 0)
		return h->listen_fd;
	err = spawn(h);
	if (err) {
		close(h->listen_fd);
		return err;
	}
	h->on = true;
	return 0;
}

/* The end of the current process, as waitpid reported it. */
static void reaped(struct http *h, int status)
{
	char why[64];
	bool quick = mono_ns() - h->born_ns < HTTP_STABLE_S * 1000000000ULL;

	if (WIFSIGNALED(status))
		snprintf(why, sizeof(why), "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(why, sizeof(why), "exited with status %d", WEXITSTATUS(status));
	/* One that keeps dying soon after its start waits longer each time. */
	h->delay_s = quick ? h->delay_s * 2 : 0;
	if (h->delay_s < HTTP_RESTART_MIN_S)
		h->delay_s = HTTP_RESTART_MIN_S;
	if (h->delay_s > HTTP_RESTART_MAX_S)
		h->delay_s = HTTP_RESTART_MAX_S;
	log_warn("the HTTP process (pid %d) %s; restarting it in %u s", (int)h->pid, why,
		 h->delay_s);
	h->restart_ns = mono_ns() + h->delay_s * 1000000000ULL;
	h->pid = 0;
	close(h->status_fd);
	h->status_fd = -1;
}

void http_watch(struct http *h)
{
	int status, err;

	if (!h->on)
		return;
	if (h->pid && waitpid(h->pid, &status, WNOHANG) == h->pid)
		reaped(h, status);
	if (h->pid || mono_ns() < h->restart_ns)
		return;
	err = spawn(h);
	if (err) {
		log_warn("Couldn't restart the HTTP process: %s; trying again in %u s",
			 strerror(-err), h->delay_s);
		h->restart_ns = mono_ns() + h->delay_s * 1000000000ULL;
		return;
	}
	log_info("HTTP process restarted (pid %d)", (int)h->pid);
}

void http_stop(struct http *h)
{
	if (!h->on)
		return;
	if (h->pid) {
		kill(h->pid, SIGKILL);
		while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (h->status_fd >= 0)
		close(h->status_fd);
	close(h->listen_fd);
	h->on = false;
	h->pid = 0;
}

void http_set_fdb(struct http *h, uint64_t entries, uint64_t dynamic, uint64_t statics)
{
	h->fdb = (struct http_fdb){ .entries = entries, .dynamic = dynamic, .statics = statics,
				    .at_ns = mono_ns() };
	h->fdb_known = true;
	status_send(h);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* common.c - messages, ports by name and signals, for every object file. */
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>

#include "common.h"
#include "paths.h"
#include "util.h"

int cli_error(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("xdpbr: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return err;
}

const char *errno_hint(int err)
{
	switch (err) {
	case -EPERM:
	case -EACCES:
		return " (run as root)";
	default:
		return "";
	}
}

int dev_ifindex(const struct cli_cmd *c, uint32_t *ifindex)
{
	*ifindex = 0;
	if (!c->dev)
		return 0;
	*ifindex = if_nametoindex(c->dev);
	if (!*ifindex)
		return cli_error(-ENODEV, "unknown interface '%s' (see 'ip link show')", c->dev);
	return 0;
}

int port_error(int err, const struct cli_cmd *c, const struct target *t, const char *what)
{
	if (err == -ENODEV)
		return cli_error(err, "'%s' is not a port of bridge %s (add it with "
				 "'xdpbr link add dev %s master %s')", c->dev, t->br, c->dev,
				 t->br);
	return cli_error(err, "can't %s '%s': %s%s", what, c->dev, strerror(-err),
			 errno_hint(err));
}

int open_egress(const struct target *t)
{
	char path[PATH_MAX];
	int fd, err;

	err = pin_path(path, sizeof(path), t->br, XDPBR_PIN_PROG_EGRESS);
	if (err)
		return cli_error(err, "bridge name '%s' too long", t->br);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		err = -errno;
		return cli_error(err, "can't open the egress program of bridge %s at %s: %s%s",
				 t->br, path, strerror(-err), errno_hint(err));
	}
	return fd;
}

/* ------------------------------------------------------------ signals */

volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = 1;
}

void catch_signals(sigset_t *waitmask)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int sleep_until(uint64_t deadline, const sigset_t *waitmask)
{
	uint64_t now;

	while (!interrupted && (now = mono_ns()) < deadline) {
		uint64_t left = deadline - now;
		struct timespec ts = {
			.tv_sec = (time_t)(left / XDPBR_NSEC_PER_SEC),
			.tv_nsec = (long)(left % XDPBR_NSEC_PER_SEC),
		};

		ppoll(NULL, 0, &ts, waitmask);
	}
	return interrupted ? -EINTR : 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * netnscookie - print a network namespace's cookie (SO_NETNS_COOKIE), the
 * key of its bridges' pins (lib/paths.h), for the tests:
 *
 *   netnscookie [NSFILE]      NSFILE: /run/netns/NS, /proc/PID/ns/net;
 *                             default: our own namespace
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

int main(int argc, char **argv)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);
	int fd;

	if (argc > 2) {
		fprintf(stderr, "usage: netnscookie [NSFILE]\n");
		return 2;
	}
	if (argc == 2) {
		fd = open(argv[1], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET)) {
			fprintf(stderr, "netnscookie: %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
		close(fd);
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len)) {
		fprintf(stderr, "netnscookie: SO_NETNS_COOKIE: %s\n", strerror(errno));
		return 1;
	}
	printf("%" PRIu64 "\n", cookie);
	return 0;
}

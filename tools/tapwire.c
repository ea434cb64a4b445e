// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tapwire - a VM's network card for tests, without the VM.
 *
 *   tapwire PORT NS
 *
 * Creates two tap devices and carries frames between their file
 * descriptors, as a hypervisor carries them between a tap and a guest's
 * virtio-net card: PORT, in the current namespace, is the bridge port; the
 * other, moved into network namespace NS as "e0", is the guest's card.
 * Both use virtio-net headers with checksum and TSO/UFO offloads on, as
 * QEMU with vhost sets them up, so the host in NS sends GSO super-frames
 * with unfinished checksums through PORT, exactly like a guest with default
 * offloads. Runs until killed (SIGTERM); the taps go with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define FRAME_MAX (65536 + 64)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* A tap with virtio-net headers and offloads, named name, in the current
 * namespace. The fd, or -1 with a message. */
static int tap_open(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	unsigned int off = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN;
	int hdr = 12;		/* struct virtio_net_hdr_mrg_rxbuf, as QEMU */
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "tapwire: /dev/net/tun: %s\n", strerror(errno));
		return -1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) || ioctl(fd, TUNSETVNETHDRSZ, &hdr) ||
	    ioctl(fd, TUNSETOFFLOAD, off)) {
		fprintf(stderr, "tapwire: tap %s: %s\n", name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Moves one frame, header included, from fd in to fd out. */
static int carry(int in, int out, char *buf)
{
	ssize_t n = read(in, buf, FRAME_MAX);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (write(out, buf, (size_t)n) < 0 && errno != EAGAIN && errno != EIO)
		return -1;	/* EIO: the other tap is down, like a cable */
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[FRAME_MAX];
	struct sigaction sa = { .sa_handler = on_signal };
	struct pollfd pfd[2];
	char nspath[256];
	int port, guest, ns, self;

	if (argc != 3) {
		fprintf(stderr, "usage: tapwire PORT NS\n");
		return 2;
	}
	port = tap_open(argv[1]);
	if (port < 0)
		return 1;
	snprintf(nspath, sizeof(nspath), "/run/netns/%s", argv[2]);
	ns = open(nspath, O_RDONLY | O_CLOEXEC);
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns < 0 || self < 0 || setns(ns, CLONE_NEWNET)) {
		fprintf(stderr, "tapwire: netns %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	guest = tap_open("e0");
	if (guest < 0 || setns(self, CLONE_NEWNET))
		return 1;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);

	pfd[0] = (struct pollfd){ .fd = port, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = guest, .events = POLLIN };
	while (!stop) {
		if (poll(pfd, 2, 500) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if ((pfd[0].revents & POLLIN) && carry(port, guest, buf))
			return 1;
		if ((pfd[1].revents & POLLIN) && carry(guest, port, buf))
			return 1;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sendframe - send a raw Ethernet frame, given in hex, out of an interface.
 *
 *   sendframe [-c COUNT] [-i USEC] IFNAME HEXBYTES...
 *
 * The frame is every HEXBYTES argument concatenated: destination MAC,
 * source MAC, EtherType and payload, no FCS. Hex digits go in pairs; ':',
 * '-', '.', spaces and tabs between them are ignored, so
 *
 *   sendframe e0 01:80:c2:00:00:0e 02:00:00:00:00:01 88cc 0000
 *
 * sends a (truncated) LLDP frame. The frame goes out as is through an
 * AF_PACKET socket bound to IFNAME: the kernel adds no header and no
 * padding. Run it inside a test host's namespace with `ip netns exec NS`.
 * Needs CAP_NET_RAW. Exit status: 0 when every frame was sent, 1 otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAME 65535		/* what one AF_PACKET send can carry at most */

static const char *prog = "sendframe";

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s [-c COUNT] [-i USEC] IFNAME HEXBYTES...\n"
		"  Send the Ethernet frame HEXBYTES (dst MAC, src MAC, EtherType,\n"
		"  payload; no FCS) out of IFNAME through an AF_PACKET socket.\n"
		"  Hex digits in pairs; ':', '-', '.', blanks are ignored; several\n"
		"  HEXBYTES arguments are concatenated.\n"
		"  -c COUNT  send the frame COUNT times (default 1)\n"
		"  -i USEC   wait USEC microseconds between frames (default 0)\n"
		"  -h        show this help\n",
		prog);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int is_separator(char c)
{
	return c == ':' || c == '-' || c == '.' || c == ' ' || c == '\t' ||
	       c == '\n';
}

/*
 * Append the bytes spelled by @s to @buf (holding *@len of @cap bytes).
 * Returns 0, or -1 after printing what is wrong with @s.
 */
static int parse_hex(const char *s, unsigned char *buf, size_t cap, size_t *len)
{
	int hi = -1;

	for (const char *p = s; *p; p++) {
		int v;

		if (is_separator(*p)) {
			if (hi >= 0) {
				fprintf(stderr, "%s: odd hex digit before '%c' at offset %td of '%s' (write each byte as two digits)\n",
					prog, *p, p - s, s);
				return -1;
			}
			continue;
		}
		v = hexval(*p);
		if (v < 0) {
			fprintf(stderr, "%s: invalid character '%c' at offset %td of '%s' (expected hex digits)\n",
				prog, *p, p - s, s);
			return -1;
		}
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (*len >= cap) {
			fprintf(stderr, "%s: frame longer than %zu bytes\n", prog, cap);
			return -1;
		}
		buf[(*len)++] = (unsigned char)(hi << 4 | v);
		hi = -1;
	}
	if (hi >= 0) {
		fprintf(stderr, "%s: odd number of hex digits in '%s' (write each byte as two digits)\n",
			prog, s);
		return -1;
	}
	return 0;
}

/* Parse a decimal number in [min, max] for option -@opt. */
static int parse_num(char opt, const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: -%c: '%s' is not a number in %ld..%ld\n",
			prog, opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static void sleep_usec(long usec)
{
	struct timespec ts = {
		.tv_sec = usec / 1000000,
		.tv_nsec = (usec % 1000000) * 1000,
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	static unsigned char frame[MAX_FRAME];
	struct sockaddr_ll sll = { 0 };
	const char *ifname;
	long count = 1, interval = 0;
	unsigned int ifindex;
	size_t len = 0;
	int opt, fd;

	while ((opt = getopt(argc, argv, "c:i:h")) != -1) {
		switch (opt) {
		case 'c':
			if (parse_num('c', optarg, 1, LONG_MAX, &count))
				return 1;
			break;
		case 'i':
			if (parse_num('i', optarg, 0, LONG_MAX, &interval))
				return 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (argc - optind < 2) {
		usage(stderr);
		return 1;
	}

	ifname = argv[optind++];
	if (strlen(ifname) >= IFNAMSIZ) {
		fprintf(stderr, "%s: interface name '%s' is longer than %d characters\n",
			prog, ifname, IFNAMSIZ - 1);
		return 1;
	}
	for (; optind < argc; optind++)
		if (parse_hex(argv[optind], frame, sizeof(frame), &len))
			return 1;
	if (len == 0) {
		fprintf(stderr, "%s: empty frame\n", prog);
		return 1;
	}

	ifindex = if_nametoindex(ifname);
	if (!ifindex) {
		fprintf(stderr, "%s: no interface '%s' in this network namespace: %s\n",
			prog, ifname, strerror(errno));
		return 1;
	}

	/* Protocol 0: a send-only socket, it receives nothing. */
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		fprintf(stderr, "%s: couldn't open an AF_PACKET socket: %s%s\n",
			prog, strerror(errno),
			errno == EPERM ? " (needs root or CAP_NET_RAW)" : "");
		return 1;
	}

	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)ifindex;
	sll.sll_protocol = htons(ETH_P_ALL);
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fprintf(stderr, "%s: couldn't bind to '%s': %s\n",
			prog, ifname, strerror(errno));
		close(fd);
		return 1;
	}

	for (long i = 0; i < count; i++) {
		ssize_t n;

		if (i > 0 && interval > 0)
			sleep_usec(interval);
		n = send(fd, frame, len, 0);
		if (n < 0) {
			fprintf(stderr, "%s: couldn't send frame %ld of %ld (%zu bytes) on '%s': %s%s\n",
				prog, i + 1, count, len, ifname, strerror(errno),
				errno == ENETDOWN ? " (interface is down)" :
				errno == EMSGSIZE ? " (longer than the MTU allows)" :
				errno == EINVAL && len < ETH_HLEN ?
					" (shorter than an Ethernet header)" : "");
			close(fd);
			return 1;
		}
		if ((size_t)n != len) {
			fprintf(stderr, "%s: frame %ld of %ld on '%s': sent %zd of %zu bytes\n",
				prog, i + 1, count, ifname, n, len);
			close(fd);
			return 1;
		}
	}
	close(fd);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tcxprogs - print the ids of the programs on an interface's TCX ingress
 * (Linux 6.6 on), one a line, in the order they run, for the tests: tc
 * and Debian 12's bpftool (7.1) show only clsact filters.
 *
 *   tcxprogs DEV      exit 0 (nothing printed: none), 1 on error, 2 where
 *                     the kernel has no TCX
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>

#define TCX_INGRESS	46	/* enum bpf_attach_type, past libbpf 1.1's headers */

int main(int argc, char **argv)
{
	__u32 ids[64], n = 64, flags = 0;
	unsigned int ifindex;

	if (argc != 2) {
		fprintf(stderr, "usage: tcxprogs DEV\n");
		return 1;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "tcxprogs: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (bpf_prog_query((int)ifindex, TCX_INGRESS, 0, &flags, ids, &n)) {
		fprintf(stderr, "tcxprogs: %s: %s\n", argv[1], strerror(errno));
		return errno == EINVAL ? 2 : 1;
	}
	for (__u32 i = 0; i < n; i++)
		printf("%u\n", ids[i]);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* sandbox.c - the HTTP process's seccomp filter (see sandbox.h). */
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/bpf.h>
#include <linux/sockios.h>
#include <seccomp.h>

#include "util.h"
#include "sandbox.h"

/* Allowed whatever their arguments. */
static const int plain[] = {
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(close),
	SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(epoll_wait), SCMP_SYS(epoll_pwait),
	SCMP_SYS(epoll_ctl), SCMP_SYS(accept), SCMP_SYS(accept4), SCMP_SYS(recvfrom),
	SCMP_SYS(recvmsg), SCMP_SYS(sendto), SCMP_SYS(sendmsg), SCMP_SYS(shutdown),
	SCMP_SYS(setsockopt), SCMP_SYS(getsockopt), SCMP_SYS(getsockname),
	SCMP_SYS(getpeername), SCMP_SYS(fcntl), SCMP_SYS(fstat), SCMP_SYS(newfstatat),
	SCMP_SYS(lseek), SCMP_SYS(brk), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mremap),
	SCMP_SYS(madvise), SCMP_SYS(futex), SCMP_SYS(getrandom), SCMP_SYS(clock_gettime),
	SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep), SCMP_SYS(gettimeofday),
	SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getppid), SCMP_SYS(rt_sigreturn),
	SCMP_SYS(rt_sigprocmask), SCMP_SYS(restart_syscall), SCMP_SYS(exit),
	SCMP_SYS(exit_group),
};

/* bpf() commands that read a map through a descriptor already held. */
static const unsigned int bpf_reads[] = {
	BPF_MAP_LOOKUP_ELEM, BPF_MAP_LOOKUP_BATCH, BPF_MAP_GET_NEXT_KEY, BPF_OBJ_GET_INFO_BY_FD,
};

static const unsigned long ioctls[] = { SIOCGIFINDEX, SIOCGIFNAME };

/* (The comparisons name datum_b, unused by SCMP_CMP_EQ: clang warns of a
 * missing field otherwise.) */
static int rules(scmp_filter_ctx ctx)
{
	int err = 0;

	for (size_t i = 0; i < ARRAY_SIZE(plain) && !err; i++)
		err = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, plain[i], 0);
	for (size_t i = 0; i < ARRAY_SIZE(bpf_reads) && !err; i++)
		err = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(bpf), 1,
				       SCMP_A0(SCMP_CMP_EQ, bpf_reads[i], 0));
	for (size_t i = 0; i < ARRAY_SIZE(ioctls) && !err; i++)
		err = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_EQ, ioctls[i], 0));
	if (!err)
		err = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
				       SCMP_A0(SCMP_CMP_EQ, AF_UNIX, 0));
	if (!err)
		err = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
				       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	return err;
}

int sandbox_http(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	int err;

	if (!ctx)
		return -ENOMEM;
	err = rules(ctx);
	if (!err)
		err = seccomp_load(ctx);
	seccomp_release(ctx);
	return err;
}

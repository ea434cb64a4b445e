/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_SANDBOX_H
#define XDPBR_SANDBOX_H

/*
 * sandbox - the HTTP process's system call filter (libseccomp), loaded
 * after privs_drop_process and before the first request is read.
 *
 * Allowed: what serving takes, and nothing that opens anything. Memory
 * (no PROT_EXEC), time, poll/epoll on descriptors it has, accept and
 * socket I/O on the listening socket's connections, reads and writes (the
 * status pipe, stderr), close, and bpf() for map reads only
 * (BPF_MAP_LOOKUP_ELEM, BPF_MAP_LOOKUP_BATCH, BPF_MAP_GET_NEXT_KEY,
 * BPF_OBJ_GET_INFO_BY_FD); socket() for AF_UNIX alone, with ioctl
 * SIOCGIFINDEX and SIOCGIFNAME, since glibc's if_nametoindex and
 * if_indextoname (?port=, the FDB's port names) ask through one. No open,
 * no connect, no bind, no exec, no fork, no ptrace, no bpf() command that
 * writes, creates or gets a descriptor.
 *
 * Anything else fails with EPERM (not a kill: a call missed here costs a
 * failed request, not the endpoint; the process has nothing a refused call
 * could reach anyway).
 */
int sandbox_http(void);

#endif

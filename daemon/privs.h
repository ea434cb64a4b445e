/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_PRIVS_H
#define XDPBR_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Least privilege, per thread (capabilities are a thread's, not a
 * process's).
 *
 * The main thread: once the bridge is up, xdpbrd keeps only what its loop
 * needs (libcap-ng), in the effective and permitted sets, and in the
 * bounding set where it may reduce it (CAP_SETPCAP; under the systemd unit,
 * CapabilityBoundingSet= has done it):
 *
 *   CAP_BPF        every bpf() call of the loop (map reads/writes for
 *                  ageing, events, statistics, config reloads), since
 *                  Debian sets kernel.unprivileged_bpf_disabled
 *   CAP_NET_ADMIN  attaching and detaching XDP on ports that come and go,
 *                  and link events
 *   CAP_PERFMON    re-attaching the drop-counting tracepoints when their
 *                  pinned links were removed (see bridge_pins_check)
 *   CAP_NET_RAW    the spanning tree's BPDU sockets (AF_PACKET) of ports
 *                  added, and of STP turned on, while running
 *   CAP_NET_BIND_SERVICE  only when the stats endpoint's port is below 1024
 *   CAP_SETUID, CAP_SETGID, CAP_SETPCAP  (re)starting the HTTP process,
 *                  which must shed its bounding set and change its ids
 *   CAP_KILL       ending it: it runs as another uid
 *
 * Given up: CAP_SYS_ADMIN (mounting bpffs, entering other network
 * namespaces, turning program ids into fds), CAP_DAC_OVERRIDE and
 * everything else. Without them, a veth port added
 * while running is not checked for a peer that can't receive (the check
 * enters the peer's namespace) and a port that still runs an earlier
 * program of this bridge can't be taken over until a restart.
 *
 * The daemon has no other thread. The HTTP endpoint runs in a process of
 * its own (httpproc.c) that holds no capability in any set:
 * privs_drop_process. The only network input the daemon itself parses is
 * the BPDUs of its ports, in the main thread, and that is bounded: a
 * socket filter passes only 802.3 frames to 01:80:c2:00:00:00 with LLC
 * 42 42 03, stpd.c's bpdu_payload checks length and header again, and
 * rstp.c's decode() reads fixed-size fields within the length received (36
 * bytes at most, no loop, no allocation, no pointer kept); stp_rx and
 * everything behind it is fuzzed by tests/fuzz/fuzz_bpdu.c. The rest is
 * netlink from the kernel.
 */
/* The set the main thread keeps: PRIVS_KEPT, and CAP_NET_BIND_SERVICE
 * when bind_low_port, and CAP_SYS_ADMIN after privs_keep_sys_admin(). */
uint64_t privs_wanted(bool bind_low_port);

/* Ports that share their XDP hook through libxdp's dispatcher need
 * CAP_SYS_ADMIN as long as the daemon runs: libxdp reads the dispatcher
 * and its components by program id (BPF_PROG_GET_FD_BY_ID) to add or
 * remove one. Called before privs_check. */
void privs_keep_sys_admin(void);

/* Before anything is changed: the permitted set holds every capability
 * privs_drop will keep. 0, or -EPERM having said which are missing. */
int privs_check(bool bind_low_port);

/* Drops the main thread to privs_wanted(bind_low_port). What counts is
 * read back from the kernel, not libcap-ng's verdict (it reports a failure
 * when only the bounding set could not be reduced): 0 when the effective
 * and permitted sets are exactly that, else -EPERM, said. */
int privs_drop(bool bind_low_port);

/* The calling process (single-threaded) gives up every capability, the
 * bounding set included, and the right to gain any (no_new_privs), and
 * becomes uid, gid and no supplementary group; needs CAP_SETPCAP,
 * CAP_SETUID and CAP_SETGID until then. 0 when all of that reads back,
 * else -errno. */
int privs_drop_process(uid_t uid, gid_t gid);

/* "CAP_BPF, CAP_NET_ADMIN" for a mask of capability bits ("none" for 0). */
const char *privs_names(uint64_t mask, char *buf, size_t len);

#endif

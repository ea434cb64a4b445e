/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_PRIVS_H
#define XDPBR_PRIVS_H

#include <stdbool.h>

/*
 * Least privilege: once the bridge is up, xdpbrd keeps only what its loop
 * needs (libcap-ng), in the effective, permitted and bounding sets:
 *
 *   CAP_BPF        every bpf() call (map reads/writes for ageing, events,
 *                  statistics, config reloads), since Debian sets
 *                  kernel.unprivileged_bpf_disabled
 *   CAP_NET_ADMIN  attaching and detaching XDP on ports that come and go,
 *                  and link events
 *   CAP_PERFMON    re-attaching the drop-counting tracepoints when their
 *                  pinned links were removed (see bridge_pins_check)
 *   CAP_NET_BIND_SERVICE  only when the stats endpoint's port is below 1024
 *
 * Given up: CAP_SYS_ADMIN (mounting bpffs, entering other network
 * namespaces, turning program ids into fds), CAP_DAC_OVERRIDE and
 * everything else. Without them, a veth port added
 * while running is not checked for a peer that can't receive (the check
 * enters the peer's namespace) and a port that still runs an earlier
 * program of this bridge can't be taken over until a restart.
 */
int privs_drop(bool bind_low_port);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_XDPSHARE_H
#define XDPBR_XDPSHARE_H

/*
 * Sharing a port with other XDP programs through libxdp's dispatcher: the
 * bridge's receive program runs as one component (a freplace program,
 * BPF_PROG_TYPE_EXT) of the dispatcher libxdp attaches to the port, after
 * the components of lower run priority (xdp-filter runs at 10). The
 * components before it continue to it on XDP_PASS (their chain call
 * actions); the bridge's verdicts end the chain, but for XDP_PASS (libxdp
 * 1.3.1 keeps its default for a program it did not load itself).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The bridge's run priority in the dispatcher (libxdp's default is 50;
 * lower runs first). */
#define XDPSHARE_PRIO 50
/* The name libxdp's dispatcher program has in the kernel. */
#define XDPSHARE_DISPATCHER_NAME "xdp_dispatcher"

/* Whether the kernel runs freplace programs, which the dispatcher needs:
 * loads one extending target_fd's function func (a program with BTF).
 * 0: yes; -EOPNOTSUPP with why filled in (naming the kernel feature): no. */
int xdpshare_probe(int target_fd, const char *func, char *why, size_t len);

/* Whether prog_id is a libxdp dispatcher (by its name). */
bool xdpshare_is_dispatcher(uint32_t prog_id);

/* Looks through the dispatcher on ifindex for a component that ours()
 * accepts: its id in *comp_id (0: none). *nprogs: the components there.
 * 0 or -errno. */
int xdpshare_find(uint32_t ifindex, bool (*ours)(void *arg, uint32_t id), void *arg,
		  uint32_t *comp_id, int *nprogs);

/* Attaches prog_fd, a loaded freplace program (BPF_PROG_TYPE_EXT) whose
 * signature is the dispatcher slots' (int f(struct xdp_md *)), to ifindex
 * through the dispatcher, in mode (enum xdpbr_mode: native or generic),
 * at XDPSHARE_PRIO, chaining on XDP_PASS (libxdp's defaults: see
 * xdpshare.c). The component's id in *comp_id. 0 or -errno (libxdp's). */
int xdpshare_attach(int prog_fd, uint32_t ifindex, uint32_t mode, uint32_t *comp_id);

/* Removes the component comp_id from the dispatcher on ifindex, leaving
 * the other components running (the dispatcher goes with the last one).
 * 0 or -errno. */
int xdpshare_detach(uint32_t ifindex, uint32_t comp_id);

/* The names of the other components on ifindex ("a, b"), for messages. */
void xdpshare_others(uint32_t ifindex, uint32_t except_id, char *buf, size_t len);

#endif

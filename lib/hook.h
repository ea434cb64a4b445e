/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* hook.h - what runs on a port's XDP and TC hooks, libbpf only (hook.c). */
#ifndef XDPBR_HOOK_H
#define XDPBR_HOOK_H

#include <stdint.h>


/* The program on ifindex's TC ingress: prefer if it is one of those on
 * its TCX hook, else xdpbr's filter on its clsact ingress (handle and
 * priority XDPBR_TC_*), else the last program on the TCX hook (where
 * tc_attach appends), else 0. 0 or -errno; without CAP_NET_ADMIN, only the
 * clsact filter is seen (-EPERM if none). */
int tc_query(uint32_t ifindex, uint32_t prefer, uint32_t *prog_id);

/* The id of the program fd, or 0. */
uint32_t prog_id_of(int fd);

/* prog_fd on ifindex's TC ingress: by a TCX link pinned at pin (a kernel
 * with TCX, pin not NULL), else as the loader's filter on its clsact
 * ingress, the qdisc made if missing; what is there is replaced
 * atomically. 0 or -errno, said. */
int tc_attach(int prog_fd, uint32_t ifindex, const char *ifname, const char *pin);

/* Removes the loader's program from ifindex's TC ingress: the link pinned
 * at pin (if given; its pin goes even if its device went) and the clsact
 * filter; said if it can't. */
void tc_filter_del(uint32_t ifindex, const char *pin);

/* Every frame sent on ifindex (its clsact egress) is sent on to instead:
 * the Linux bridge device's own frames go into xdpbr's datapath through
 * its veth pair, never through the kernel bridge's forwarding (lib/hostif.c).
 * 0 or -errno, said in the log. */
int tc_egress_redirect(uint32_t ifindex, uint32_t to, const char *ifname);
/* Removes that program, if there. */
void tc_egress_del(uint32_t ifindex);

/* IGMP and MLD reports arriving on ifindex (the device's end of the pair)
 * go to to's ingress (the device), past the kernel bridge's snooping of
 * ifindex as a port (lib/hook.c). 0 or -errno, said in the log. */
int tc_ingress_reports_to(uint32_t ifindex, uint32_t to, const char *ifname);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_KFDB_H
#define XDPBR_KFDB_H

/*
 * kfdb - the kernel bridge's FDB over rtnetlink (AF_BRIDGE neighbours):
 * what `bridge fdb add|del|show` and `bridge monitor fdb` do, for the FDB
 * mirror between xdpbr and FRR's zebra (daemon/evpn.c).
 */
#include <stdbool.h>
#include <stdint.h>

struct kfdb_entry {
	uint32_t ifindex;		/* the bridge port (or vxlan device) */
	uint8_t mac[6];
	uint8_t flags;			/* NTF_* (NTF_EXT_LEARNED, NTF_MASTER, ...) */
	uint16_t state;			/* NUD_* */
	bool deleted;			/* an RTM_DELNEIGH */
};

typedef void (*kfdb_cb)(const struct kfdb_entry *e, void *arg);

/* Adds (add) or deletes an extern_learn entry for mac on ifindex, a port
 * of a kernel bridge (`bridge fdb add MAC dev PORT master extern_learn`):
 * the kernel never ages it, and zebra takes it for a local MAC. A delete
 * of an entry that is not there is 0. 0 or -errno. */
int kfdb_set(uint32_t ifindex, const uint8_t mac[6], bool add);

/* Every AF_BRIDGE FDB entry of the namespace, to cb. 0 or -errno. */
int kfdb_dump(kfdb_cb cb, void *arg);

/* A non-blocking socket subscribed to neighbour events (RTNLGRP_NEIGH);
 * NULL with errno on failure. kfdb_watch_read hands what is queued of the
 * AF_BRIDGE ones to cb: 0, or -ENOBUFS (events lost: dump again), -errno. */
struct mnl_socket;
struct mnl_socket *kfdb_watch_open(void);
int kfdb_watch_read(struct mnl_socket *nl, kfdb_cb cb, void *arg);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_KBRIDGE_H
#define XDPBR_KBRIDGE_H

/*
 * kbridge - a Linux bridge device's settings over rtnetlink, in xdpbr's
 * terms: its ports' flags (IFLA_BRPORT_*, what `bridge link set` writes)
 * as XDPBR_PORT_* bits, through the settings rows that name an attribute
 * (lib/settings.c), and its ageing time (IFLA_BR_AGEING_TIME), for the
 * mirror of daemon/brmirror.c.
 */
#include <stdint.h>

/* The XDPBR_PORT_* bits with a port attribute: the ones kbridge reads. */
uint32_t kbr_port_mask(void);

/* The ports of Linux bridge bridge, each to cb with its flags
 * (kbr_port_mask bits). 0 or -errno. */
typedef void (*kbr_port_cb)(uint32_t ifindex, uint32_t flags, void *arg);
int kbr_ports(uint32_t bridge, kbr_port_cb cb, void *arg);

/* Sets the attributes of port ifindex for the bits of mask to flags'. 0
 * or -errno. */
int kbr_port_set(uint32_t ifindex, uint32_t flags, uint32_t mask);

/* Whether ifindex is a Linux bridge device: 1, 0, or -errno. */
int kbr_is_bridge(uint32_t ifindex);

/* The bridge's ageing time in centiseconds (the kernel's clock_t), read
 * and set. 0 or -errno. */
int kbr_ageing_get(uint32_t bridge, uint32_t *cs);
int kbr_ageing_set(uint32_t bridge, uint32_t cs);

#endif

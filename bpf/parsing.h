/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* parsing.h - Ethernet header parsing and MAC address classification. */
#ifndef XDPBR_PARSING_H
#define XDPBR_PARSING_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

/* Returns the Ethernet header, or NULL when the frame is shorter than one. */
static __always_inline struct ethhdr *parse_eth(void *data, void *data_end)
{
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return NULL;
	return eth;
}

static __always_inline int mac_is_multicast(const __u8 *mac)
{
	return mac[0] & 1;
}

static __always_inline int mac_is_broadcast(const __u8 *mac)
{
	return (mac[0] & mac[1] & mac[2] & mac[3] & mac[4] & mac[5]) == 0xff;
}

/* IEEE 802.1D reserved link-local group addresses 01:80:c2:00:00:00-0f
 * (STP, LACP, LLDP, 802.1X ...): never bridged, handed to the host. */
static __always_inline int mac_is_link_local(const __u8 *mac)
{
	return mac[0] == 0x01 && mac[1] == 0x80 && mac[2] == 0xc2 &&
	       mac[3] == 0x00 && mac[4] == 0x00 && (mac[5] & 0xf0) == 0x00;
}

#endif /* XDPBR_PARSING_H */

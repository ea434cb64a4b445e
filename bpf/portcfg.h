/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * portcfg.h - the port and bridge configuration the datapath reads on every
 * frame: the port behind an ifindex, the port in a slot, and the bridge's
 * runtime knobs. Read-only; user space writes them (lib/ctl.c).
 */
#ifndef XDPBR_BPF_PORTCFG_H
#define XDPBR_BPF_PORTCFG_H

#include "maps.h"

/* The port behind ifindex, or NULL. */
static __always_inline struct xdpbr_port *port_of(__u32 ifindex)
{
	struct xdpbr_port *p;
	__u32 *slot;

	if (ifindex >= XDPBR_IFINDEX_FAST)
		return bpf_map_lookup_elem(&xdpbr_ports, &ifindex);
	slot = bpf_map_lookup_elem(&xdpbr_ifslot, &ifindex);
	if (!slot || !*slot)
		return NULL;
	p = bpf_map_lookup_elem(&xdpbr_portcfg, slot);
	return p && p->slot ? p : NULL;
}

/* The port in slot, or NULL. */
static __always_inline struct xdpbr_port *port_at(__u32 slot)
{
	struct xdpbr_port *p = bpf_map_lookup_elem(&xdpbr_portcfg, &slot);

	return p && p->slot ? p : NULL;
}

/* The ifindex the port in slot transmits on, or 0 when it does not
 * (removed, link down): what the XDP path learns from xdpbr_tx, for the
 * skb path, which may not read devmaps. */
static __always_inline __u32 port_tx_ifindex(const struct xdpbr_port *p, __u32 slot)
{
	__u32 *ifindex;

	if (!p || (p->flags & XDPBR_PORT_DOWN))
		return 0;
	ifindex = bpf_map_lookup_elem(&xdpbr_slotif, &slot);
	return ifindex ? *ifindex : 0;
}

static __always_inline struct xdpbr_config *config_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&xdpbr_config, &zero);
}

#endif /* XDPBR_BPF_PORTCFG_H */

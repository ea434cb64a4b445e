// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ports.c - reading the port table, allocating slots, asking the kernel
 * about a port's interface. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "hook.h"
#include "netlink.h"
#include "pins.h"
#include "ports.h"
#include "util.h"
#include "xdpshare.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000	/* <linux/if.h>, which clashes with <net/if.h> */
#endif

static int port_cmp(const void *a, const void *b)
{
	const struct port_entry *x = a, *y = b;

	return (x->port.slot > y->port.slot) - (x->port.slot < y->port.slot);
}

int ports_dump(int map_fd, struct port_entry **out, size_t *n)
{
	__u64 in = 0, out_batch = 0;		/* the cursor: a bucket (hash) */
	__u32 keys[XDPBR_MAX_PORTS], count;
	struct xdpbr_port *vals;
	struct port_entry *v;
	size_t len = 0, got = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	v = calloc(XDPBR_MAX_PORTS, sizeof(*v));
	vals = calloc(XDPBR_MAX_PORTS, sizeof(*vals));
	if (!v || !vals) {
		err = -ENOMEM;
		goto fail;
	}
	/* In batches (a few calls for a thousand ports, not two a port); the
	 * table holds at most XDPBR_MAX_PORTS entries. */
	while (got < XDPBR_MAX_PORTS) {
		count = (__u32)(XDPBR_MAX_PORTS - got);
		err = bpf_map_lookup_batch(map_fd, got ? &in : NULL, &out_batch, keys + got,
					   vals + got, &count, NULL);
		if (err && errno != ENOENT) {
			err = -errno;
			goto fail;
		}
		got += count;
		in = out_batch;
		if (err || !count)
			break;			/* the end of the table */
	}
	err = 0;
	VALGRIND_MAKE_MEM_DEFINED(keys, got * sizeof(keys[0]));
	VALGRIND_MAKE_MEM_DEFINED(vals, got * sizeof(vals[0]));
	for (size_t i = 0; i < got; i++) {
		if (ports_find(v, len, keys[i]))
			continue;
		v[len].ifindex = keys[i];
		v[len++].port = vals[i];
	}
	qsort(v, len, sizeof(*v), port_cmp);
	*out = v;
	*n = len;
	free(vals);
	return 0;
fail:
	free(v);
	free(vals);
	return err;
}

const struct port_entry *ports_find(const struct port_entry *ports, size_t n,
				    uint32_t ifindex)
{
	for (size_t i = 0; i < n; i++)
		if (ports[i].ifindex == ifindex)
			return &ports[i];
	return NULL;
}

int ports_free_slot(const struct port_entry *ports, size_t n)
{
	bool used[XDPBR_MAX_PORTS] = { true };	/* slot 0 is reserved */

	for (size_t i = 0; i < n; i++)
		if (ports[i].port.slot < XDPBR_MAX_PORTS)
			used[ports[i].port.slot] = true;
	for (int s = 1; s < XDPBR_MAX_PORTS; s++)
		if (!used[s])
			return s;
	return -ENOSPC;
}

int ports_slot_for_new(int ports_fd, int slotif_fd)
{
	__u32 ifindex[XDPBR_MAX_PORTS];
	struct port_entry *all, *ports;
	size_t n, k;
	int err = ports_dump(ports_fd, &ports, &n);

	if (err)
		return err;
	err = slots_read(slotif_fd, sizeof(*ifindex), ifindex);
	all = err ? NULL : realloc(ports, (n + XDPBR_MAX_PORTS) * sizeof(*ports));
	if (!all) {
		free(ports);
		return err ?: -ENOMEM;
	}
	k = n;
	for (__u32 slot = 1; slot < XDPBR_MAX_PORTS; slot++)
		if (ifindex[slot])
			all[k++] = (struct port_entry){ .ifindex = ifindex[slot], .port.slot = slot };
	err = ports_free_slot(all, k);
	free(all);
	return err;
}

static const char *const mode_names[] = {
#define MODE_NAME(e, name) [XDPBR_MODE_##e] = name,
	XDPBR_MODES(MODE_NAME)
#undef MODE_NAME
};

const char *port_mode_name(uint32_t mode)
{
	if (mode >= ARRAY_SIZE(mode_names) || !mode_names[mode])
		mode = XDPBR_MODE_NONE;
	return mode_names[mode];
}

/* The modes the loader (bridge_add_port) can be asked for. */
static bool mode_requestable(uint32_t mode)
{
	return mode == XDPBR_MODE_NATIVE || mode == XDPBR_MODE_GENERIC;
}

int port_mode_parse(const char *name, enum xdpbr_mode *mode)
{
	if (!strcmp(name, XDPBR_MODE_AUTO_NAME)) {
		*mode = XDPBR_MODE_NONE;
		return 0;
	}
	for (uint32_t m = 0; m < ARRAY_SIZE(mode_names); m++)
		if (mode_requestable(m) && mode_names[m] && !strcmp(name, mode_names[m])) {
			*mode = (enum xdpbr_mode)m;
			return 0;
		}
	return -EINVAL;
}

static const char *const port_path_names[] = {
	[PORT_PATH_AUTO] = "auto",
	[PORT_PATH_XDP] = "xdp",
	[PORT_PATH_TC] = "tc",
};

int port_path_parse(const char *s, enum port_path *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(port_path_names); i++)
		if (!strcmp(s, port_path_names[i])) {
			*path = (enum port_path)i;
			return 0;
		}
	return -EINVAL;
}

enum port_path port_path_of_kind(const char *kind)
{
	return !strcmp(kind, "veth") || !strcmp(kind, "tap") ? PORT_PATH_TC : PORT_PATH_XDP;
}

const char *port_datapath_name(uint32_t mode)
{
	if (mode == XDPBR_MODE_TC)
		return "tc";
	return mode == XDPBR_MODE_NONE ? "none" : "xdp";
}

const char *ifname_of(uint32_t ifindex, char *buf)
{
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "if%u", ifindex);
	return buf;
}

const char *ifname_shown(uint32_t ifindex, char *buf)
{
	char name[IF_NAMESIZE];

	return name_escape(ifname_of(ifindex, name), buf, IFNAME_SHOWN);
}

const char *ifname_cached(struct ifname_cache *c, uint32_t ifindex, char *buf)
{
	for (unsigned int i = 0; i < c->n; i++)
		if (c->ifindex[i] == ifindex)
			return c->name[i];
	if (c->n == IFNAME_CACHE)
		return ifname_shown(ifindex, buf);
	c->ifindex[c->n] = ifindex;
	return ifname_shown(ifindex, c->name[c->n++]);
}

const struct port_iff_name port_iff_names[PORT_IFF_NAMES] = {
	{ IFF_BROADCAST, "BROADCAST" }, { IFF_MULTICAST, "MULTICAST" },
	{ IFF_UP, "UP" }, { IFF_LOWER_UP, "LOWER_UP" },
};

void port_link_read(const struct port_entry *p, struct port_link *l)
{
	uint32_t ifindex = p->ifindex, p_flags = p->port.flags;
	struct ifreq ifr = {};
	bool tc_unseen;
	int fd;

	memset(l, 0, sizeof(*l));
	l->xdp_mode = XDPBR_MODE_NONE;
	ifname_shown(ifindex, l->ifname);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		ifname_of(ifindex, ifr.ifr_name);
		if (!ioctl(fd, SIOCGIFFLAGS, &ifr))
			l->ifflags = (unsigned short)ifr.ifr_flags;
		if (!ioctl(fd, SIOCGIFMTU, &ifr))
			l->mtu = ifr.ifr_mtu;
		close(fd);
	}
	/* IFF_LOWER_UP does not fit ifr_flags (short); carrier is in sysfs. */
	if (l->ifflags & IFF_RUNNING)
		l->ifflags |= IFF_LOWER_UP;
	xdp_query(ifindex, &l->xdp_prog_id, &l->xdp_mode);
	l->xdp_attach = !l->xdp_prog_id ? "none" :
			xdpshare_is_dispatcher(l->xdp_prog_id) ? "dispatcher" : "exclusive";
	tc_unseen = tc_query(ifindex, 0, &l->tc_prog_id) == -EPERM;
	if (port_kind(ifindex, l->kind, sizeof(l->kind)))
		snprintf(l->kind, sizeof(l->kind), "?");
	if (p_flags & XDPBR_PORT_HOST) {
		struct link_info li, peer;

		/* The peer is the device's end, a port of the bridge device. */
		if (!link_get_info(ifindex, &li) && li.peer_ifindex > 0 && li.peer_nsid < 0 &&
		    !link_get_info((uint32_t)li.peer_ifindex, &peer) && peer.master)
			ifname_shown(peer.master, l->host_interface);
	}
	/* An XDP port runs the TC program too, for frames it hands over. */
	l->datapath = l->xdp_prog_id ? "xdp" : l->tc_prog_id ? "tc" : "none";
	/* Without CAP_NET_ADMIN (the HTTP process), a TCX hook can't be
	 * seen: the ports map says what it runs. */
	if (tc_unseen && !l->xdp_prog_id && p->port.mode == XDPBR_MODE_TC)
		l->datapath = "tc";
}

bool port_forwarding(const struct port_entry *p, const struct port_link *l)
{
	return (l->ifflags & IFF_UP) && (l->ifflags & IFF_RUNNING) &&
	       !(p->port.flags & XDPBR_PORT_DOWN);
}

const char *port_state_name(const struct port_entry *p, const struct port_link *l,
			    enum xdpbr_stp_state st, bool stp_on)
{
	return port_forwarding(p, l) ? stp_state_word(st, stp_on) : "disabled";
}

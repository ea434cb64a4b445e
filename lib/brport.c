// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * brport.c - a bridge's ports: checked, put into the maps and attached on
 * their path (XDP alone, XDP in libxdp's dispatcher, or TC), removed, and
 * reconciled with the interfaces there are.
 */
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bridge.h"
#include "brport.h"
#include "load.h"
#include "ctl.h"
#include "fault.h"
#include "hook.h"
#include "lock.h"
#include "log.h"
#include "netlink.h"
#include "paths.h"
#include "ports.h"
#include "util.h"
#include "xdpshare.h"
/* How long a port's add or removal waits for another process's (each
 * takes milliseconds; a native XDP attach that resets a NIC, longer). */
#define SLOT_LOCK_WAIT_MS 5000

/*
 * A port runs this bridge's datapath when its XDP program uses this bridge's
 * FDB map: true for our current program, for one a previous daemon loaded
 * (adoption after a crash or an upgrade) and for one iproute2 attached with
 * the same pins.
 */
static bool prog_is_ours(struct bridge *br, uint32_t prog_id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), ids[16];
	bool ours = false;
	int fd;

	if (!prog_id)
		return false;
	if (prog_id == br->prog_rx_id || prog_id == br->prog_tc_id)
		return true;
	fd = bpf_prog_get_fd_by_id(prog_id);
	if (fd < 0)
		return false;
	info.nr_map_ids = ARRAY_SIZE(ids);
	info.map_ids = (__u64)(unsigned long)ids;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		for (__u32 i = 0; i < info.nr_map_ids && i < ARRAY_SIZE(ids); i++)
			ours |= ids[i] == br->fdb_map_id;
	close(fd);
	return ours;
}

/* ------------------------------------------ sharing the XDP hook (libxdp) */

static bool component_is_ours(void *arg, uint32_t id)
{
	return prog_is_ours(arg, id);
}

/* What runs on a port's XDP hook: the program attached (id, mode) and, when
 * that is libxdp's dispatcher, our component in it (comp) and how many
 * components it has. */
struct xdp_hook {
	uint32_t id, mode, comp;
	int nprogs;
};

/* Whether the port runs this bridge's datapath in XDP, alone or as a
 * component of a dispatcher. */
static bool xdp_hook_ours(struct bridge *br, uint32_t ifindex, struct xdp_hook *h)
{
	memset(h, 0, sizeof(*h));
	if (xdp_query(ifindex, &h->id, &h->mode) || !h->id)
		return false;
	if (prog_is_ours(br, h->id))
		return true;
	if (!xdpshare_is_dispatcher(h->id))
		return false;
	xdpshare_find(ifindex, component_is_ours, br, &h->comp, &h->nprogs);
	return h->comp != 0;
}

/* Whether ifname is to share its XDP hook: its own setting, else the
 * bridge's. */
static bool port_wants_share(struct bridge *br, const char *ifname)
{
	enum xdp_share s = br->policy.port_share ? br->policy.port_share(ifname, br->policy.arg)
						 : XDP_SHARE_DEFAULT;

	return s == XDP_SHARE_DEFAULT ? br->xdp_share : s == XDP_SHARE_ON;
}

/* Whether libxdp's dispatcher can run here (probed once): 1, or 0 with
 * br->share_why saying why not. */
static bool share_available(struct bridge *br)
{
	if (!br->share_ok)
		br->share_ok = xdpshare_probe(br->prog_rx_fd, "xdpbr_rx", br->share_why,
					      sizeof(br->share_why)) ? -1 : 1;
	return br->share_ok > 0;
}

int bridge_check_port(struct bridge *br, const char *ifname)
{
	uint32_t ifindex = if_nametoindex(ifname), prog_id, mode;
	struct xdp_hook h;
	int err;

	if (!ifindex) {
		log_warn("Unknown interface '%s'", ifname);
		return -ENODEV;
	}
	err = xdp_query(ifindex, &prog_id, &mode);
	if (err) {
		log_warn("Couldn't query XDP on '%s': %s", ifname, strerror(-err));
		return err;
	}
	if (!prog_id || xdp_hook_ours(br, ifindex, &h))
		return 0;
	if (port_wants_share(br, ifname) && !share_available(br)) {
		log_warn("Interface '%s' already has another XDP program (id %u) and can't "
			 "share it: %s; detach that program, or run the bridge on a kernel "
			 "that allows freplace programs", ifname, prog_id, br->share_why);
		return -EOPNOTSUPP;
	}
	if (port_wants_share(br, ifname) && br->skel)
		return 0;	/* libxdp adds us to its dispatcher, or says why not */
	log_warn("Interface '%s' already has another XDP program (id %u); "
		 "detach it first with 'ip link set dev %s xdp off', or share the port "
		 "through libxdp's dispatcher (xdpbrd --xdp-share)", ifname, prog_id, ifname);
	return -EBUSY;
}

static bool port_is_there(struct bridge *br, uint32_t ifindex);
static int port_remove(struct bridge *br, const struct port_entry *pe);

/* Puts the port into every map the datapath reads, keeping the slot, flags
 * and limit of a port the bridge already had (adoption). A pinned port of
 * this ifindex that is gone (the ifindex is now another interface's) is
 * removed first: the new interface starts afresh. Called with the slot
 * lock held (bridge_add_port). */
static int port_maps_add_locked(struct bridge *br, const char *ifname, uint32_t ifindex,
				uint32_t mode)
{
	struct xdpbr_port p;
	int slot, err = ctl_port_get(&br->maps, ifindex, &p);

	if (!err && !port_is_there(br, ifindex)) {
		const struct port_entry old = { .ifindex = ifindex, .port = p };

		err = port_remove(br, &old);
		if (err)
			return err;
		err = -ENODEV;
	}
	if (!err) {
		p.mode = mode;
		err = ctl_port_apply(&br->maps, ifindex, &p, br->prog_egress_fd);
		return err ? err : ctl_port_name_set(&br->maps, p.slot, ifname);
	}
	if (err != -ENODEV)
		return err;
	slot = ports_slot_for_new(br->maps.ports, br->maps.slotif);
	if (slot == -ENOSPC)
		log_warn("bridge %s is full (%d ports)", br->name, XDPBR_PORTS_PER_BRIDGE);
	if (slot < 0)
		return slot;
	p = (struct xdpbr_port){ .flags = XDPBR_PORT_DEFAULT_FLAGS, .mode = mode,
				 .slot = (uint32_t)slot };
	/* A new port starts with the slot's counters, limits and buckets
	 * zero, in the default VLAN, untagged, like on the kernel bridge;
	 * whatever an earlier port left is forgotten. */
	err = ctl_slot_reset(&br->maps, p.slot) ?: ctl_vlan_port_init(&br->maps, &p);
	if (err)
		return err;
	if (br->policy.port_init)
		br->policy.port_init(ifname, &p, br->policy.arg);
	err = ctl_port_apply(&br->maps, ifindex, &p, br->prog_egress_fd);
	return err ? err : ctl_port_name_set(&br->maps, p.slot, ifname);
}

/* A slot is chosen from the ports map and written back into it: two
 * processes doing that at once (the daemon and `xdpbr link add`, or two
 * CLIs) would choose the same one. And a port is judged there or gone by
 * its program (port_is_there): one process adding a port that another is
 * adding, between that one's map write and its attach, would take it for
 * a gone port's leftover and remove it, and the first one's attach would
 * then fail and remove the second's (seen: the daemon re-adding a port of
 * the bridge device that `xdpbr link del` had removed, while `xdpbr link
 * add` added it). So the slot lock on the pin root (lock.h) is held for a
 * port's whole add or removal: maps and attach, or detach and maps. */
static int slot_lock(const char *what, int *lk)
{
	const struct xdpbr_paths *p;
	pid_t pid = 0;
	int err = paths_get(&p);

	if (err)
		return err;
	err = lock_dir_wait(p->pin_root, SLOT_LOCK_WAIT_MS, lk, &pid);
	if (err == -EBUSY)
		log_warn("Couldn't %s: pid %d has held the port slot lock on %s for %d s",
			 what, (int)pid, p->pin_root_shown, SLOT_LOCK_WAIT_MS / 1000);
	else if (err)
		log_warn("Couldn't take the port slot lock on %s: %s", p->pin_root_shown,
			 strerror(-err));
	return err;
}

/* Under the slot lock, a slot written without its port is a crash's
 * leftover (ctl_slots_reconcile): freed, said. */
static void slots_reconcile_locked(struct bridge *br)
{
	int n = ctl_slots_reconcile(&br->maps);

	if (n > 0)
		log_warn("bridge %s: freed %d port slot(s) a crashed port write left without "
			 "their port", br->name, n);
	else if (n < 0)
		log_warn("bridge %s: Couldn't check the port slots: %s", br->name, strerror(-n));
}

/* With the slot lock held (bridge_add_port). */
static int port_maps_add(struct bridge *br, const char *ifname, uint32_t ifindex,
			 uint32_t mode)
{
	slots_reconcile_locked(br);
	return port_maps_add_locked(br, ifname, ifindex, mode);
}

void port_maps_del(struct bridge *br, uint32_t ifindex)
{
	ctl_port_remove(&br->maps, ifindex);
}

/* Where the port's TCX link is pinned (lib/hook.c), in buf; NULL if that
 * path does not fit. */
static const char *tc_pin(const struct bridge *br, uint32_t ifindex, char *buf, size_t len)
{
	char name[sizeof(XDPBR_PIN_LINK_TC) + 10];

	snprintf(name, sizeof(name), XDPBR_PIN_LINK_TC "%u", ifindex);
	return pin_path(buf, len, br->name, name) ? NULL : buf;
}

static int tc_attach_port(struct bridge *br, uint32_t ifindex, const char *ifname)
{
	char pin[PATH_MAX];

	return tc_attach(br->prog_tc_fd, ifindex, ifname, tc_pin(br, ifindex, pin, sizeof(pin)));
}

/* The port's TCX link, by its pin: -1 if none (a clsact filter). */
static int tc_link_open(const struct bridge *br, uint32_t ifindex)
{
	char buf[PATH_MAX];
	const char *pin = tc_pin(br, ifindex, buf, sizeof(buf));
	int fd = pin ? bpf_obj_get(pin) : -1;

	return fd < 0 ? -1 : fd;
}

void tc_links_repin(struct bridge *br)
{
	char buf[PATH_MAX];
	const char *pin;

	for (int i = 0; i < br->nports; i++) {
		if (br->ports[i].tc_link_fd < 0)
			continue;
		pin = tc_pin(br, br->ports[i].ifindex, buf, sizeof(buf));
		if (pin && access(pin, F_OK) && bpf_obj_pin(br->ports[i].tc_link_fd, pin))
			log_warn("Couldn't pin the TC link of '%s' again at %s: %s",
				 br->ports[i].ifname, pin, strerror(errno));
	}
}

void tc_links_close(struct bridge *br)
{
	for (int i = 0; i < br->nports; i++) {
		if (br->ports[i].tc_link_fd >= 0)
			close(br->ports[i].tc_link_fd);
		br->ports[i].tc_link_fd = -1;
	}
}

/* Whether the port's TC ingress runs this bridge's program. */
static bool tc_runs_ours(struct bridge *br, uint32_t ifindex)
{
	uint32_t id;

	return !tc_query(ifindex, br->prog_tc_id, &id) && prog_is_ours(br, id);
}

/* Removes our program, if it is still ours; the link's pin goes in any
 * case (its device may be gone). */
static void tc_detach(struct bridge *br, uint32_t ifindex)
{
	char buf[PATH_MAX];
	const char *pin = tc_pin(br, ifindex, buf, sizeof(buf));

	if (tc_runs_ours(br, ifindex))
		tc_filter_del(ifindex, pin);
	else if (pin)
		unlink(pin);
}

static bool port_runs_our_xdp(struct bridge *br, uint32_t ifindex)
{
	struct xdp_hook h;

	return xdp_hook_ours(br, ifindex, &h);
}

/* The path a new or adopted port takes: configured, else the bridge's
 * default, else its kind's. */
static enum port_path port_path_for(struct bridge *br, const char *ifname, uint32_t ifindex,
				    char *kind, size_t len)
{
	enum port_path path = br->policy.port_path ? br->policy.port_path(ifname, br->policy.arg)
						   : PORT_PATH_AUTO;

	if (port_kind(ifindex, kind, len))
		snprintf(kind, len, "physical");
	if (path == PORT_PATH_AUTO)
		path = br->path;
	if (path == PORT_PATH_AUTO && port_runs_our_xdp(br, ifindex))
		path = PORT_PATH_XDP;		/* `ip link ... xdp` chose it */
	if (path == PORT_PATH_AUTO && br->mode != XDPBR_MODE_NONE)
		path = PORT_PATH_XDP;		/* an XDP mode asks for XDP */
	if (path == PORT_PATH_AUTO)
		path = port_path_of_kind(kind);
	return path;
}

enum port_path bridge_port_path(struct bridge *br, const char *ifname)
{
	char kind[IF_NAMESIZE];
	uint32_t ifindex = if_nametoindex(ifname);

	return ifindex ? port_path_for(br, ifname, ifindex, kind, sizeof(kind)) : PORT_PATH_AUTO;
}

static int ifindex_mtu(uint32_t ifindex)
{
	struct ifreq ifr = {};
	int fd, mtu = 0;

	if (!if_indextoname(ifindex, ifr.ifr_name))
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (!ioctl(fd, SIOCGIFMTU, &ifr))
		mtu = ifr.ifr_mtu;
	close(fd);
	return mtu;
}

/*
 * Native XDP refused with err: whether that is final (mode native, or an
 * error no other mode would avoid), said either way. A driver without
 * native XDP says EOPNOTSUPP; one that can't take frames of the port's MTU
 * in XDP (no multi-buffer support) says ERANGE or EINVAL: mode auto runs
 * such a port in generic XDP, which takes any frame.
 */
static bool native_refused(struct bridge *br, uint32_t ifindex, const char *ifname, int err)
{
	int mtu = ifindex_mtu(ifindex);
	bool mtu_err = (err == -ERANGE || err == -EINVAL) && mtu > XDPBR_MTU_DEFAULT;
	char why[128] = "";

	if (err == -EOPNOTSUPP)
		snprintf(why, sizeof(why), "driver has no native XDP");
	else if (mtu_err)
		snprintf(why, sizeof(why), "the driver can't run native XDP with MTU %d "
			 "without multi-buffer XDP", mtu);
	if (br->mode == XDPBR_MODE_NATIVE || !why[0]) {
		log_warn("Couldn't attach XDP program to '%s' in native mode: %s%s%s%s",
			 ifname, strerror(-err), why[0] ? " (" : "", why,
			 !why[0] ? "" : mtu_err ? "; lower the MTU or try --mode generic)"
						: "; try --mode generic)");
		return true;
	}
	log_warn("'%s': %s, falling back to generic mode (slower: frames are "
		 "copied into socket buffers first)", ifname, why);
	return false;
}

/* The fault points port_attach_slow, port_xdp_attach_slow and
 * port_xdp_mode_slow (fault.h):
 * a window between two steps of a port's attach, as wide as a slow
 * driver's. */
static void attach_pause(const char *point)
{
	if (fault_hit(point))
		nanosleep(&(struct timespec){ .tv_nsec = 300 * 1000 * 1000 }, NULL);
}

/*
 * The XDP mode a port is about to run in, written just before its attach:
 * the TC program leaves the learning of a frame of a port in an XDP mode
 * to its XDP program, which handed it over, and learns a frame of a port
 * in none (its XDP program not attached yet: the TC program runs first).
 * Set after the attach, the mode left a window in which frames the XDP
 * program handed over were bridged a second time. Counting does not
 * depend on it: a frame is counted where it ends (bpf/pipeline.h
 * outcome()), so one that slips in between this write and the attach is
 * counted once too (port_xdp_mode_slow holds that window open).
 */
static void mode_before_attach(struct bridge *br, uint32_t ifindex, uint32_t mode)
{
	struct xdpbr_port p;

	if (ctl_port_get(&br->maps, ifindex, &p) || p.mode == mode)
		return;
	p.mode = (uint16_t)mode;
	ctl_port_write(&br->maps, ifindex, &p);
	if (mode != XDPBR_MODE_NONE)
		attach_pause("port_xdp_mode_slow");
}

static int attach_one(struct bridge *br, uint32_t ifindex, const char *ifname,
		      uint32_t cur_id, uint32_t cur_mode, bool native_ok, uint32_t *mode)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, ao);
	__u32 flags = XDP_FLAGS_UPDATE_IF_NOEXIST;
	int err;

	if (cur_id && cur_id == br->prog_rx_id) {
		*mode = cur_mode;
		return 0;
	}
	if (cur_id) {
		/* Adopting a port that runs an earlier program of this bridge:
		 * swap it atomically, in the mode it runs in. */
		ao.old_prog_fd = bpf_prog_get_fd_by_id(cur_id);
		if (ao.old_prog_fd < 0)
			return -errno;
		*mode = cur_mode;
		err = bpf_xdp_attach((int)ifindex, br->prog_rx_fd, XDP_FLAGS_REPLACE |
				     (cur_mode == XDPBR_MODE_GENERIC ? XDP_FLAGS_SKB_MODE
								     : XDP_FLAGS_DRV_MODE), &ao);
		close(ao.old_prog_fd);
		if (err)
			log_warn("Couldn't replace the XDP program on '%s': %s",
				 ifname, strerror(-err));
		return err;
	}

	if (br->mode != XDPBR_MODE_GENERIC && !native_ok) {
		if (br->mode == XDPBR_MODE_NATIVE)
			return -EOPNOTSUPP;
		log_warn("'%s': generic XDP instead (see above)", ifname);
	} else if (br->mode != XDPBR_MODE_GENERIC) {
		mode_before_attach(br, ifindex, XDPBR_MODE_NATIVE);
		err = bpf_xdp_attach((int)ifindex, br->prog_rx_fd,
				     flags | XDP_FLAGS_DRV_MODE, NULL);
		if (!err) {
			*mode = XDPBR_MODE_NATIVE;
			return 0;
		}
		if (native_refused(br, ifindex, ifname, err))
			return err;
	}
	mode_before_attach(br, ifindex, XDPBR_MODE_GENERIC);
	err = bpf_xdp_attach((int)ifindex, br->prog_rx_fd, flags | XDP_FLAGS_SKB_MODE, NULL);
	if (err) {
		mode_before_attach(br, ifindex, XDPBR_MODE_NONE);
		log_warn("Couldn't attach XDP program to '%s' in generic mode: %s",
			 ifname, strerror(-err));
		return err;
	}
	*mode = XDPBR_MODE_GENERIC;
	return 0;
}

/* A bridge port must receive frames for every MAC, not only its own: a
 * NIC filters the others out in hardware (e1000e, virtio-net in QEMU: the
 * unicast filter, and QEMU's virtio-net also drops frames of VLANs the guest
 * never registered). As the kernel bridge, the port goes promiscuous while
 * in the bridge (the flag stays on with --keep: the bridge still runs) and
 * leaves it when detached. veth has no filter to lift. */
static void port_promisc(uint32_t ifindex, const char *kind, bool on)
{
	struct link_set ls = { .promisc = on ? 1 : -1 };
	char name[IF_NAMESIZE] = "?";
	int err;

	if (kind && !strcmp(kind, "veth"))
		return;
	err = link_set(ifindex, &ls);
	if (err && on)
		log_warn("port %s: Couldn't turn promiscuous mode on: %s (frames to other "
			 "hosts' MACs may never reach the bridge)",
			 if_indextoname(ifindex, name) ?: "?", strerror(-err));
}

static void xdp_detach(struct bridge *br, uint32_t ifindex);

/* Records the mode the port really runs in and, for a veth on the skb path
 * whose peer is in another namespace, that the TC program may hand frames
 * straight to the peer (bpf_redirect_peer: no second trip through the
 * backlog). */
static void record_mode(struct bridge *br, uint32_t ifindex, uint32_t mode, const char *kind)
{
	struct link_info li;
	struct xdpbr_port p;

	if (ctl_port_get(&br->maps, ifindex, &p))
		return;
	p.mode = (uint16_t)mode;
	p.flags &= ~XDPBR_PORT_PEER_NS;
	if (mode == XDPBR_MODE_TC && !strcmp(kind, "veth") &&
	    !link_get_info(ifindex, &li) && li.peer_nsid >= 0)
		p.flags |= XDPBR_PORT_PEER_NS;
	ctl_port_write(&br->maps, ifindex, &p);
}

/* A port on the skb path: maps first (with its mode, so XDP ports start
 * handing it frames), then the TC filter; an XDP program of ours from an
 * earlier run on the other path goes. */

static int add_port_tc(struct bridge *br, const char *ifname, uint32_t ifindex,
		       bool *adopted)
{
	uint32_t cur_tc = 0;
	int err;

	tc_query(ifindex, br->prog_tc_id, &cur_tc);
	*adopted = prog_is_ours(br, cur_tc);
	err = port_maps_add(br, ifname, ifindex, XDPBR_MODE_TC);
	if (err) {
		log_warn("Couldn't add '%s' to the bridge's maps: %s", ifname, strerror(-err));
		if (!*adopted)
			port_maps_del(br, ifindex);
		return err;
	}
	attach_pause("port_attach_slow");
	err = tc_attach_port(br, ifindex, ifname);
	if (err) {
		if (!*adopted)
			port_maps_del(br, ifindex);
		return err;
	}
	xdp_detach(br, ifindex);	/* ours from an earlier run, if any */
	return 0;
}

/* The component this process attached to ifindex, or 0. */
static uint32_t comp_attached_now(struct bridge *br, uint32_t ifindex)
{
	for (int i = 0; i < br->nports; i++)
		if (br->ports[i].ifindex == ifindex)
			return br->ports[i].comp_id;
	return 0;
}

/*
 * The port's XDP hook shared through libxdp's dispatcher: our program
 * added as a component (the dispatcher made, or replaced atomically with
 * one that has it too); in mode auto natively, else generic where the
 * driver refuses. h: what runs there now. An earlier component of ours
 * (a restart, an upgrade) is removed only after the new one is in: while
 * both are, the first of them takes every frame and ends the chain, so
 * no frame goes unbridged.
 */
static int attach_shared(struct bridge *br, uint32_t ifindex, const char *ifname,
			 const struct xdp_hook *h, bool native_ok, uint32_t *mode,
			 uint32_t *comp_id)
{
	int err;

	if (h->comp && h->comp == comp_attached_now(br, ifindex)) {
		*mode = h->mode;
		*comp_id = h->comp;
		return 0;
	}
	/* A dispatcher there keeps its mode; else ours decides. */
	*mode = h->id ? h->mode : br->mode == XDPBR_MODE_GENERIC ? XDPBR_MODE_GENERIC
								  : XDPBR_MODE_NATIVE;
	if (!h->id && *mode == XDPBR_MODE_NATIVE && !native_ok) {
		if (br->mode == XDPBR_MODE_NATIVE)
			return -EOPNOTSUPP;
		log_warn("'%s': generic XDP instead (see above)", ifname);
		*mode = XDPBR_MODE_GENERIC;
	}
	mode_before_attach(br, ifindex, *mode);
	err = share_load_attach(br, ifindex, *mode, comp_id);
	if (err && !h->id && *mode == XDPBR_MODE_NATIVE &&
	    !native_refused(br, ifindex, ifname, err)) {
		*mode = XDPBR_MODE_GENERIC;
		mode_before_attach(br, ifindex, *mode);
		err = share_load_attach(br, ifindex, *mode, comp_id);
	}
	if (err) {
		if (!h->id)
			mode_before_attach(br, ifindex, XDPBR_MODE_NONE);
		log_warn("Couldn't add the bridge to libxdp's dispatcher on '%s' (%s mode): %s%s",
			 ifname, port_mode_name(*mode), strerror(-err),
			 h->id && !h->nprogs ? " (the program there is not a libxdp dispatcher: "
					       "libxdp shares only a hook it manages)" : "");
		return err;
	}
	if (h->comp) {
		err = xdpshare_detach(ifindex, h->comp);
		if (err)
			log_warn("'%s': couldn't remove the bridge's earlier program (id %u) "
				 "from the dispatcher: %s", ifname, h->comp, strerror(-err));
	}
	return 0;
}

/*
 * How the port's XDP hook is taken: shared (libxdp's dispatcher) when the
 * port runs our component already (adopted as it is), or is configured to
 * share and the dispatcher can run here; else alone. A port configured to
 * share where the dispatcher can't run is run alone, said (a port with
 * another program was refused by bridge_check_port); so is one that runs
 * our program alone already (moving it into a dispatcher would take the
 * hook away for a moment).
 */
static bool attach_as_shared(struct bridge *br, uint32_t ifindex, const char *ifname,
			     const struct xdp_hook *h, bool ours)
{
	if (h->comp)
		return true;
	if (!port_wants_share(br, ifname) || !br->skel)
		return false;
	if (ours) {
		log_warn("'%s' runs the bridge's XDP program alone from before: it stays so "
			 "(moving it into libxdp's dispatcher would drop frames; remove the "
			 "port and add it again to share its XDP hook)", ifname);
		return false;
	}
	if (share_available(br))
		return true;
	log_warn("'%s': can't share the XDP hook through libxdp's dispatcher: %s; "
		 "the port runs the bridge's program alone (exclusive)", ifname, br->share_why);
	return false;
}

/* A port on the XDP path: maps first (the first frame the program sees is
 * already bridged), then the TC program, for the frames the XDP program
 * hands to the stack in a bridge of both kinds (before the XDP program, so
 * none is handed over with no one there to count its outcome), then XDP. */
static int add_port_xdp(struct bridge *br, const char *ifname, uint32_t ifindex,
			uint32_t *mode, uint32_t *comp_id, bool *adopted)
{
	struct xdp_hook h;
	bool ours = xdp_hook_ours(br, ifindex, &h), shared, native_ok = true;
	int err;

	*adopted = ours;
	*comp_id = 0;
	shared = attach_as_shared(br, ifindex, ifname, &h, ours);
	err = port_maps_add(br, ifname, ifindex, ours ? h.mode : XDPBR_MODE_NONE);
	if (err) {
		log_warn("Couldn't add '%s' to the bridge's maps: %s", ifname, strerror(-err));
		if (!ours)
			port_maps_del(br, ifindex);
		return err;
	}
	attach_pause("port_attach_slow");
	err = tc_attach_port(br, ifindex, ifname);
	if (!err)	/* the TC program runs, the XDP program not yet */
		attach_pause("port_xdp_attach_slow");
	/* Before the attach: XDP's own queues count as in use after it. */
	if (!err && !h.id && br->mode != XDPBR_MODE_GENERIC)
		native_ok = virtio_xdp_check(ifname) != VIRTIO_XDP_UNSAFE;
	if (!err && shared)
		err = attach_shared(br, ifindex, ifname, &h, native_ok, mode, comp_id);
	else if (!err)
		err = attach_one(br, ifindex, ifname, ours ? h.id : 0, h.mode, native_ok, mode);
	if (err && !ours) {
		detach_one(br, ifindex);
		port_maps_del(br, ifindex);
	}
	return err;
}

/* Records a port the bridge now runs on, and says so. */
static void port_added(struct bridge *br, const char *ifname, uint32_t ifindex,
		       uint32_t mode, uint32_t comp_id, const char *kind, bool adopted)
{
	struct bridge_port *bp = &br->ports[br->nports++];
	char others[256];

	record_mode(br, ifindex, mode, kind);
	port_promisc(ifindex, kind, true);
	bp->ifindex = ifindex;
	bp->mode = mode;
	bp->comp_id = comp_id;
	bp->tc_link_fd = tc_link_open(br, ifindex);
	bp->attached_now = !adopted;
	snprintf(bp->ifname, sizeof(bp->ifname), "%s", ifname);
	if (mode == XDPBR_MODE_TC) {
		log_info("port %s (ifindex %u, %s): skb path (TC)%s", ifname, ifindex,
			 kind, adopted ? ", adopted" : "");
		return;
	}
	if (comp_id) {
		xdpshare_others(ifindex, comp_id, others, sizeof(others));
		log_info("port %s (ifindex %u, %s): %s XDP in libxdp's dispatcher "
			 "(program id %u, priority %u; other programs: %s)%s", ifname, ifindex, kind,
			 port_mode_name(mode), comp_id, XDPSHARE_PRIO, others,
			 adopted ? ", adopted" : "");
	} else {
		log_info("port %s (ifindex %u, %s): %s XDP, exclusive%s", ifname, ifindex, kind,
			 port_mode_name(mode), adopted ? ", adopted" : "");
	}
	/* Seen with e1000e on 6.1: tagged frames were learned in the PVID. */
	if (mode == XDPBR_MODE_GENERIC && ethtool_rxvlan_off(ifname) == 1)
		log_info("port %s: rx-vlan-offload turned off: generic XDP doesn't see the "
			 "802.1Q tags the NIC strips", ifname);
	veth_peer_check(ifindex, ifname);
}

static void mtus_add(struct bridge_mtus *mt, uint32_t ifindex, int mtu)
{
	if (mtu <= 0)
		return;
	if (!mt->min || mtu < mt->min) {
		mt->min = mtu;
		mt->min_ifindex = ifindex;
	}
	if (mtu > mt->max) {
		mt->max = mtu;
		mt->max_ifindex = ifindex;
	}
}

int bridge_mtu_refresh(const struct xdpbr_maps *m, struct bridge_mtus *mt)
{
	struct xdpbr_config cfg;
	struct port_entry *ports;
	struct bridge_mtus all = {};
	size_t n;
	uint16_t want;
	int err;

	*mt = (struct bridge_mtus){};
	err = ports_dump(m->ports, &ports, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		int mtu = ifindex_mtu(ports[i].ifindex);

		mtus_add(&all, ports[i].ifindex, mtu);
		if (!(ports[i].port.flags & XDPBR_PORT_HOST))
			mtus_add(mt, ports[i].ifindex, mtu);
	}
	free(ports);
	/* The check is skipped for frames within mtu_min: it must be the
	 * smallest of all ports, the host interface's included. */
	want = all.min <= 0 ? 0 : all.min > UINT16_MAX ? UINT16_MAX : (uint16_t)all.min;
	err = ctl_config_get(m, &cfg);
	if (err)
		return err;
	if (cfg.mtu_min == want)
		return 0;
	cfg.mtu_min = want;
	err = ctl_config_set(m, &cfg);
	return err ? err : 1;
}

int bridge_add_port(struct bridge *br, const char *ifname)
{
	uint32_t ifindex, mode = XDPBR_MODE_TC, comp_id = 0;
	char kind[IF_NAMESIZE], what[64];
	bool adopted = false;
	int lk = -1, err;

	if (br->nports >= XDPBR_PORTS_PER_BRIDGE)
		return -ENOSPC;
	err = bridge_check_port(br, ifname);
	if (err)
		return err;
	snprintf(what, sizeof(what), "add '%s'", ifname);
	err = slot_lock(what, &lk);
	if (err)
		return err;
	ifindex = if_nametoindex(ifname);
	if (port_path_for(br, ifname, ifindex, kind, sizeof(kind)) == PORT_PATH_TC)
		err = add_port_tc(br, ifname, ifindex, &adopted);
	else
		err = add_port_xdp(br, ifname, ifindex, &mode, &comp_id, &adopted);
	lock_release(&lk);
	if (err)
		return err;
	port_added(br, ifname, ifindex, mode, comp_id, kind, adopted);
	bridge_mtu_refresh(&br->maps, &(struct bridge_mtus){});
	return 0;
}

void detach_one(struct bridge *br, uint32_t ifindex)
{
	char kind[IF_NAMESIZE];

	xdp_detach(br, ifindex);
	tc_detach(br, ifindex);
	if (!port_kind(ifindex, kind, sizeof(kind)))
		port_promisc(ifindex, kind, false);
}

static void xdp_detach(struct bridge *br, uint32_t ifindex)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, ao);
	char name[IF_NAMESIZE] = "?";
	struct xdp_hook h;
	uint32_t id, mode;
	int err;

	if (!xdp_hook_ours(br, ifindex, &h))
		return;		/* gone, or someone else's program now: leave it */
	if (h.comp) {
		/* Only our component goes; the others keep running. */
		err = xdpshare_detach(ifindex, h.comp);
		if (err)
			log_warn("Couldn't remove the bridge's program from libxdp's dispatcher "
				 "on '%s': %s", if_indextoname(ifindex, name) ?: "?",
				 strerror(-err));
		return;
	}
	id = h.id;
	mode = h.mode;
	/* Our own program by the fd we hold: a daemon that dropped
	 * CAP_SYS_ADMIN can't turn an id into an fd. */
	ao.old_prog_fd = id == br->prog_rx_id ? dup(br->prog_rx_fd) : bpf_prog_get_fd_by_id(id);
	if (ao.old_prog_fd < 0) {
		log_warn("Couldn't detach XDP from '%s': %s", if_indextoname(ifindex, name) ?: "?",
			 strerror(errno));
		return;
	}
	if (bpf_xdp_detach((int)ifindex, XDP_FLAGS_REPLACE |
			   (mode == XDPBR_MODE_GENERIC ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE),
			   &ao))
		log_warn("Couldn't detach XDP from '%s'", if_indextoname(ifindex, name) ?: "?");
	close(ao.old_prog_fd);
}

int bridge_adopt_ports(struct bridge *br)
{
	struct port_entry *ports;
	size_t n;
	char name[IF_NAMESIZE];
	int err;

	err = ports_dump(br->maps.ports, &ports, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		uint32_t ifindex = ports[i].ifindex;
		bool known = false;

		for (int j = 0; j < br->nports; j++)
			known |= br->ports[j].ifindex == ifindex;
		if (known)
			continue;
		if (ports[i].port.mode == XDPBR_MODE_TC ? !tc_runs_ours(br, ifindex)
							: !port_runs_our_xdp(br, ifindex))
			continue;
		if (!if_indextoname(ifindex, name))
			continue;
		err = bridge_add_port(br, name);
		if (err)
			break;
	}
	free(ports);
	return err;
}

/*
 * Whether the interface of a pinned port is still that port: it exists and
 * runs this bridge's program (XDP, or TC on the skb path). A deleted
 * interface takes its programs along; one that got its ifindex afterwards
 * (created with that index, or numbering wrapped) has none of ours.
 */
static bool port_is_there(struct bridge *br, uint32_t ifindex)
{
	char name[IF_NAMESIZE];

	if (!if_indextoname(ifindex, name))
		return false;
	if (port_runs_our_xdp(br, ifindex))
		return true;
	return tc_runs_ours(br, ifindex);
}

/* Removes a port: detached if its interface is still there, out of every
 * map with its FDB entries, its slot reset, and no longer one of br's. */
static int port_remove(struct bridge *br, const struct port_entry *pe)
{
	char name[XDPBR_IFNAMSIZ] = "";
	bool there = port_is_there(br, pe->ifindex);
	int err;

	if (ctl_port_name_get(&br->maps, pe->port.slot, name) || !name[0])
		ifname_of(pe->ifindex, name);	/* added before names were kept */
	if (there)
		detach_one(br, pe->ifindex);
	else
		tc_detach(br, pe->ifindex);	/* its TCX link's pin */
	err = ctl_port_remove(&br->maps, pe->ifindex);
	for (int i = 0; i < br->nports; i++)
		if (br->ports[i].ifindex == pe->ifindex) {
			if (br->ports[i].tc_link_fd >= 0)
				close(br->ports[i].tc_link_fd);
			br->ports[i] = br->ports[--br->nports];
			break;
		}
	if (err)
		log_warn("Couldn't remove port %s (ifindex %u) from bridge %s: %s", name,
			 pe->ifindex, br->name, strerror(-err));
	else if (there)
		log_info("port %s (ifindex %u) removed from bridge %s", name, pe->ifindex,
			 br->name);
	else
		log_info("port %s (ifindex %u, slot %u) is gone: removed from bridge %s with "
			 "its FDB entries", name, pe->ifindex, pe->port.slot, br->name);
	return err;
}

/* The port whose interface is gone that was added under name (0 and *out),
 * or -ENODEV. */
static int port_gone_named(struct bridge *br, const char *name, struct port_entry *out)
{
	struct port_entry *ports;
	char had[XDPBR_IFNAMSIZ];
	size_t n;
	int err = ports_dump(br->maps.ports, &ports, &n);

	if (err)
		return err;
	err = -ENODEV;
	for (size_t i = 0; i < n && err; i++)
		if (!ctl_port_name_get(&br->maps, ports[i].port.slot, had) &&
		    !strcmp(had, name) && !port_is_there(br, ports[i].ifindex)) {
			*out = ports[i];
			err = 0;
		}
	free(ports);
	return err;
}

/* port_remove under the slot lock (slot_lock: never while another process
 * adds the same port). */
static int port_remove_locking(struct bridge *br, const struct port_entry *pe)
{
	int lk = -1, err = slot_lock("remove a port", &lk);

	if (err)
		return err;
	err = port_remove(br, pe);
	lock_release(&lk);
	return err;
}

int bridge_del_port(struct bridge *br, const char *ifname)
{
	struct port_entry pe = { .ifindex = if_nametoindex(ifname) };
	int err = pe.ifindex ? ctl_port_get(&br->maps, pe.ifindex, &pe.port) : -ENODEV;

	if (err == -ENODEV)
		err = port_gone_named(br, ifname, &pe);
	if (err == -ENODEV)
		log_warn("'%s' is not a port of bridge %s, nor the name of one whose "
			 "interface is gone", ifname, br->name);
	return err ? err : port_remove_locking(br, &pe);
}

int bridge_del_slot(struct bridge *br, uint32_t slot)
{
	struct port_entry *ports;
	size_t n;
	int err = ports_dump(br->maps.ports, &ports, &n);

	if (err)
		return err;
	err = -ENODEV;
	for (size_t i = 0; i < n && err == -ENODEV; i++)
		if (ports[i].port.slot == slot)
			err = port_remove_locking(br, &ports[i]);
	free(ports);
	if (err == -ENODEV)
		log_warn("bridge %s has no port in slot %u", br->name, slot);
	return err;
}

int bridge_port_name_follow(struct bridge *br, uint32_t ifindex, uint32_t slot)
{
	char had[XDPBR_IFNAMSIZ] = "", name[IF_NAMESIZE];

	if (!if_indextoname(ifindex, name))
		return -ENODEV;
	ctl_port_name_get(&br->maps, slot, had);
	if (!strcmp(had, name))
		return 0;
	for (int i = 0; i < br->nports; i++)
		if (br->ports[i].ifindex == ifindex)
			snprintf(br->ports[i].ifname, sizeof(br->ports[i].ifname), "%s", name);
	return ctl_port_name_set(&br->maps, slot, name) ?: 1;
}

int bridge_reconcile_ports(struct bridge *br)
{
	struct port_entry *ports = NULL;
	size_t n = 0;
	int lk = -1, err, gone = 0;

	/* The whole pass under the slot lock (slot_lock): a port another
	 * process is adding has no program yet, and would pass for gone. */
	if (!slot_lock("check the port slots", &lk))
		slots_reconcile_locked(br);
	err = ports_dump(br->maps.ports, &ports, &n);
	for (size_t i = 0; !err && i < n; i++) {
		if (port_is_there(br, ports[i].ifindex)) {
			/* renamed meanwhile, or added before names were kept */
			bridge_port_name_follow(br, ports[i].ifindex, ports[i].port.slot);
			continue;
		}
		err = port_remove(br, &ports[i]);
		gone += !err;
	}
	free(ports);
	lock_release(&lk);
	return err ? err : gone;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bridge.c - a bridge's life: opened (its datapath loaded, or adopted from
 * its pins), held by one process (the lock on its pin directory), closed;
 * created and destroyed without a daemon; its pins put back when removed.
 */
#include <errno.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bridge.h"
#include "load.h"
#include "brport.h"
#include "ctl.h"
#include "lock.h"
#include "log.h"
#include "paths.h"
#include "pins.h"
#include "ports.h"
/* What a second daemon for a running bridge is told. */
#define LOCK_HINT_DAEMON "one daemon per bridge; stop that one first"

/* An empty bridge called name: no fd open, its pin directory's path. */
static int bridge_init(struct bridge *br, const char *name, enum xdpbr_mode mode)
{
	memset(br, 0, sizeof(*br));
	br->prog_rx_fd = br->prog_egress_fd = br->prog_tc_fd = br->lock_fd = -1;
	br->prog_bpdu_fd = -1;
	for (size_t i = 0; i < ARRAY_SIZE(br->upgrade_fd); i++)
		br->upgrade_fd[i] = -1;
	memset(&br->maps, 0xff, sizeof(br->maps));	/* every fd -1 */
	br->mode = mode;
	snprintf(br->name, sizeof(br->name), "%s", name);
	return pin_path(br->dir, sizeof(br->dir), name, NULL);
}

/* The name of process pid (its comm) into buf; "?" if it is gone. */
static const char *proc_name(pid_t pid, char *buf, size_t len)
{
	char path[32];
	FILE *f;

	snprintf(buf, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	return buf;
}

/* One process runs a bridge: the lock on its pin directory (lock.h), held
 * until bridge_close. -EBUSY, said with the holder's pid and what to do
 * (hint), when another has it. */
static int bridge_lock(struct bridge *br, const char *hint)
{
	char name[32];
	pid_t pid = 0;
	int err = lock_dir(br->dir, &br->lock_fd, &pid);

	if (err == -EBUSY && pid)
		log_warn("bridge %s is run by %s (pid %d): %s", br->name,
			 proc_name(pid, name, sizeof(name)), (int)pid, hint);
	else if (err == -EBUSY)
		log_warn("bridge %s is run by another process (it holds the lock on %s): %s",
			 br->name, br->dir, hint);
	else if (err)
		log_warn("Couldn't lock %s: %s", br->dir, strerror(-err));
	return err;
}

/* bpffs mounted, the bridge's pin directory there and private, and locked
 * (bridge_lock) before anything in it is touched. A directory that was
 * there already means a bridge to adopt. */
static int pin_dir_prepare(struct bridge *br)
{
	struct stat st;
	int err = pin_root_prepare(true);

	if (err)
		return err;
	br->adopted = !stat(br->dir, &st);
	err = mkdir_private(br->dir);
	return err ? err : bridge_lock(br, LOCK_HINT_DAEMON);
}

/* What was asked for at start, over what is pinned: the ageing time (0:
 * keep), and the default datapath of ports, recorded so that ports added
 * later (xdpbr link add) follow it. */
static int config_set_start(struct bridge *br, uint64_t ageing_ns, enum port_path path)
{
	struct xdpbr_config cfg;

	ctl_config_get(&br->maps, &cfg);	/* zeroed if unreadable */
	if (ageing_ns)
		cfg.ageing_ns = ageing_ns;
	cfg.flags &= ~(XDPBR_CFG_DP_XDP | XDPBR_CFG_DP_TC);
	if (path == PORT_PATH_XDP)
		cfg.flags |= XDPBR_CFG_DP_XDP;
	else if (path == PORT_PATH_TC)
		cfg.flags |= XDPBR_CFG_DP_TC;
	return ctl_config_set(&br->maps, &cfg);
}

int bridge_open(struct bridge *br, const char *name, const struct bridge_opts *o)
{
	int err = bridge_init(br, name, o->mode);

	if (!err)
		err = pin_dir_prepare(br);
	if (!err)
		err = skel_open(br);
	if (!err)
		err = skel_size(br, o);
	if (!err)
		err = skel_load(br);
	if (!err)
		err = skel_handles(br);
	if (!err)
		err = pin_programs(br);
	if (!err)
		err = config_set_start(br, o->ageing_ns, o->path);
	if (err)
		return err;
	br->path = o->path;
	br->xdp_share = o->xdp_share;
	log_debug("bridge %s: %s datapath, state in %s", name,
		  br->adopted ? "adopted the pinned" : "loaded a new", br->dir);
	return 0;
}

void bridge_close(struct bridge *br, bool keep, bool failed)
{
	struct port_entry *ports = NULL;
	size_t n = 0;

	if (keep && !failed) {
		log_info("bridge %s: left forwarding (--keep); state stays in %s",
			 br->name, br->dir);
	} else if (failed) {
		for (int i = 0; i < br->nports; i++) {
			if (!br->ports[i].attached_now)
				continue;
			detach_one(br, br->ports[i].ifindex);
			port_maps_del(br, br->ports[i].ifindex);
		}
		if (!br->adopted && br->dir[0])
			unpin_all(br);
	} else if (br->skel) {
		/* Every port of the bridge, including ones this process did not
		 * attach itself (adopted, or attached by hand). */
		if (!ports_dump(br->maps.ports, &ports, &n))
			for (size_t i = 0; i < n; i++)
				detach_one(br, ports[i].ifindex);
		free(ports);
		unpin_all(br);
		log_info("bridge %s: detached from all ports, pins removed", br->name);
	}
	tc_links_close(br);
	skel_close(br, keep && !failed);
	lock_release(&br->lock_fd);
}

int bridge_create(const char *name)
{
	struct bridge_opts o = { .mode = XDPBR_MODE_NONE };
	const struct xdpbr_paths *p;
	struct bridge br;
	char dir[PATH_MAX];
	int err, moved;

	err = paths_get(&p);
	if (!err)
		err = pin_path(dir, sizeof(dir), name, NULL);
	if (err)
		return err;
	if (!access(dir, F_OK)) {
		log_warn("bridge %s exists (%s)", name, dir);
		return -EEXIST;
	}
	err = pin_root_prepare(true);
	if (!err)
		err = mkdir_private(dir);
	if (err)
		return err;
	moved = maps_adopt_pins(p->iproute2_dir, name);
	if (moved < 0) {
		log_warn("Couldn't move the pins of %s into %s: %s", p->iproute2_dir,
			 dir, strerror(-moved));
		return moved;
	}
	err = bridge_open(&br, name, &o);
	bridge_close(&br, true, err != 0);
	if (err == -EBUSY)
		return err;	/* a daemon took the bridge meanwhile: its pins */
	if (err && !moved) {
		maps_unpin(name);
		rmdir(dir);
	}
	if (!err && moved)
		log_info("bridge %s: took over %d map pins of %s", name, moved,
			 p->iproute2_dir);
	return err;
}

int bridge_destroy(const char *name)
{
	struct port_entry *ports;
	struct bridge br;
	size_t n;
	int err;

	err = bridge_open_pinned(&br, name);
	if (err)
		return err;
	/* Held while it goes: no daemon starts on it half-destroyed. */
	err = bridge_lock(&br, "stop it instead (SIGTERM detaches it and removes the pins)");
	if (err) {
		bridge_close_pinned(&br);
		return err;
	}
	err = ports_dump(br.maps.ports, &ports, &n);
	if (!err) {
		for (size_t i = 0; i < n; i++)
			detach_one(&br, ports[i].ifindex);
		free(ports);
	}
	bridge_close_pinned(&br);
	if (!err)
		unpin_all(&br);
	lock_release(&br.lock_fd);
	return err;
}

int bridge_open_pinned(struct bridge *br, const char *name)
{
	char path[PATH_MAX];
	struct bpf_map_info mi = {};
	__u32 mlen = sizeof(mi);
	int err = bridge_init(br, name, XDPBR_MODE_NONE);

	br->adopted = true;
	if (!err)
		err = maps_open_pinned(name, &br->maps);
	if (err)
		return err;
	if (!pin_path(path, sizeof(path), name, XDPBR_PIN_PROG_RX))
		br->prog_rx_fd = bpf_obj_get(path);
	if (!pin_path(path, sizeof(path), name, XDPBR_PIN_PROG_EGRESS))
		br->prog_egress_fd = bpf_obj_get(path);
	if (!pin_path(path, sizeof(path), name, XDPBR_PIN_PROG_TC))
		br->prog_tc_fd = bpf_obj_get(path);	/* optional: older pins */
	if (br->prog_rx_fd < 0 || br->prog_egress_fd < 0 ||
	    bpf_obj_get_info_by_fd(br->maps.fdb, &mi, &mlen)) {
		err = -errno;
		bridge_close_pinned(br);
		return err;
	}
	br->prog_rx_id = prog_id_of(br->prog_rx_fd);
	br->prog_tc_id = prog_id_of(br->prog_tc_fd);
	br->fdb_map_id = mi.id;
	/* New ports follow the datapath the daemon was told to use. */
	{
		struct xdpbr_config cfg;

		if (!ctl_config_get(&br->maps, &cfg))
			br->path = cfg.flags & XDPBR_CFG_DP_XDP ? PORT_PATH_XDP :
				   cfg.flags & XDPBR_CFG_DP_TC ? PORT_PATH_TC : PORT_PATH_AUTO;
	}
	return 0;
}

void bridge_close_pinned(struct bridge *br)
{
	tc_links_close(br);
	maps_close(&br->maps);
	if (br->prog_rx_fd >= 0)
		close(br->prog_rx_fd);
	if (br->prog_egress_fd >= 0)
		close(br->prog_egress_fd);
	if (br->prog_tc_fd >= 0)
		close(br->prog_tc_fd);
	br->prog_rx_fd = br->prog_egress_fd = br->prog_tc_fd = -1;
}

/*
 * Someone removed the pins (rm -r, or unmounted bpffs): the bridge goes on
 * forwarding, since the programs hold the maps, but the CLI and a later
 * daemon would not find it. Put the pins back from the maps this daemon
 * holds; that needs bpffs mounted, which after start-up only root outside
 * can do again.
 */
int bridge_pins_check(struct bridge *br)
{
	const struct xdpbr_paths *p;
	char path[PATH_MAX];
	struct statfs st;
	int err;

	if (!br->skel || pin_path(path, sizeof(path), br->name, XDPBR_MAP_NAME(fdb)))
		return 0;
	if (!access(path, F_OK))
		return 0;
	if (paths_get(&p) || statfs(p->bpffs, &st) || st.f_type != BPF_FS_MAGIC)
		return -ENOENT;		/* bpffs is gone: nothing to pin into */
	err = pin_root_prepare(false);
	if (!err)
		err = mkdir_private(br->dir);
	if (!err && br->lock_fd >= 0 && !lock_is_on(br->lock_fd, br->dir)) {
		/* The directory was made anew: the lock goes with it. */
		lock_release(&br->lock_fd);
		err = bridge_lock(br, LOCK_HINT_DAEMON);
	}
	if (err)
		return err;
	/* the tracepoints' links lived by their pins too; the ports' TCX
	 * links live by the descriptors this daemon holds as well */
	err = maps_pin(br->name, &br->maps) ?: pin_programs(br);
	if (!err)
		tc_links_repin(br);
	return err ? err : 1;
}

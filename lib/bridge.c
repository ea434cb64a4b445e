// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bridge.c - load or adopt the datapath, pin it, attach it to ports.
 *
 * The pins under /sys/fs/bpf/xdpbr/<bridge>/ (another network namespace's:
 * see paths.h) are the bridge. Loading with
 * pin_root_path set makes libbpf reuse maps already pinned there, so a daemon
 * restarted after a crash or with --keep picks up the FDB and counters as they
 * are, and replaces the program on each port atomically (XDP_FLAGS_REPLACE):
 * no frame is dropped and no entry is lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpbr.skel.h"
#include "fdbc_size.h"
#include "bridge.h"
#include "stpmap.h"
#include "ctl.h"
#include "fdbtab.h"
#include "lock.h"
#include "netns.h"
#include "log.h"
#include "netlink.h"
#include "paths.h"
#include "ports.h"
#include "upgrade.h"
#include "util.h"
#include "xdpshare.h"

#define KERNEL_BTF "/sys/kernel/btf/vmlinux"
/* How long a port's slot claim waits for another process's (each takes
 * milliseconds). */
#define SLOT_LOCK_WAIT_MS 5000
/* What a second daemon for a running bridge is told. */
#define LOCK_HINT_DAEMON "one daemon per bridge; stop that one first"

/* The bpffs the pins go to, mounted on /sys/fs/bpf if it is missing. The
 * host's, reached from another mount namespace (paths.h), was found a bpffs
 * when it was opened, and a bpffs mounted in an `ip netns exec` would be
 * seen by no other one: that one is never mounted here. */
static int bpffs_ensure(const struct xdpbr_paths *p)
{
	struct statfs st;

	if (!statfs(p->bpffs, &st) && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (p->remote) {
		log_warn("%s (the host's bpffs) is no bpffs any more", p->bpffs);
		return -ENOENT;
	}
	if (mount("bpf", PATHS_BPFFS, "bpf", 0, "mode=0700")) {
		int err = -errno;

		log_warn("Couldn't mount bpffs on %s: %s (mount it with 'mount -t bpf bpf %s')",
			 PATHS_BPFFS, strerror(-err), PATHS_BPFFS);
		return err;
	}
	log_info("mounted bpffs on %s", PATHS_BPFFS);
	return 0;
}

static int mkdir_private(const char *path)
{
	if (mkdir(path, 0700) && errno != EEXIST) {
		int err = -errno;

		log_warn("Couldn't create %s: %s", path, strerror(-err));
		return err;
	}
	if (chmod(path, 0700)) {
		int err = -errno;

		log_warn("Couldn't set mode 0700 on %s: %s", path, strerror(-err));
		return err;
	}
	return 0;
}

/* The directory the bridges' pin directories go in, private, and the one
 * of the network namespaces above it when keyed. mount: bpffs may be
 * mounted first. */
static int pin_root_prepare(bool mount_bpffs)
{
	const struct xdpbr_paths *p;
	int err = paths_get(&p);

	if (!err && mount_bpffs)
		err = bpffs_ensure(p);
	if (!err && p->keyed)
		err = mkdir_private(p->netns_dir);
	err = err ?: mkdir_private(p->pin_root);
	if (!err)
		netns_mark(p);
	return err;
}

/* Removes the directory of the bridges' pin directories, and the one of
 * the network namespaces above it, where no other bridge is left. */
static void pin_root_remove(void)
{
	const struct xdpbr_paths *p;

	if (!paths_get(&p))
		netns_root_remove(p);
}

/*
 * Tracepoints that count what the kernel drops after the program decided
 * (xmit drops per egress port, failed redirects). Their links are pinned
 * with the bridge, so they outlive a crash of the daemon; a new daemon
 * replaces them with its own. The daemon keeps its links open too, so that
 * pins removed by hand can be put back from them. Not being able to attach
 * them costs only those two counters: warn and go on.
 */
static void attach_tracepoints(struct bridge *br)
{
	static const struct {
		const char *pin;
		size_t prog_off;
	} tps[] = {
		{ XDPBR_PIN_LINK_XMIT, offsetof(struct xdpbr, progs.xdpbr_xmit) },
		{ XDPBR_PIN_LINK_REDIR, offsetof(struct xdpbr, progs.xdpbr_redirect_err) },
	};
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(tps); i++) {
		struct bpf_program *prog = *(struct bpf_program **)((char *)br->skel + tps[i].prog_off);

		if (pin_path(path, sizeof(path), br->name, tps[i].pin))
			continue;
		if (!br->tp_links[i]) {
			unlink(path);	/* the previous daemon's link, if any */
			br->tp_links[i] = bpf_program__attach(prog);
			if (!br->tp_links[i]) {
				log_warn("Couldn't attach %s: %s; tx_dropped and redirect_errors "
					 "will not be counted", bpf_program__section_name(prog),
					 strerror(errno));
				continue;
			}
		}
		if (bpf_obj_pin(bpf_link__fd(br->tp_links[i]), path) && errno != EEXIST)
			log_warn("Couldn't pin %s: %s", path, strerror(errno));
	}
}

/* Closes the daemon's handles on the tracepoint links; keep: leave them
 * attached (their pins hold them). */
static void release_tracepoints(struct bridge *br, bool keep)
{
	for (size_t i = 0; i < ARRAY_SIZE(br->tp_links); i++) {
		if (!br->tp_links[i])
			continue;
		if (keep)
			bpf_link__disconnect(br->tp_links[i]);
		bpf_link__destroy(br->tp_links[i]);
		br->tp_links[i] = NULL;
	}
}

int xdp_query(uint32_t ifindex, uint32_t *prog_id, uint32_t *mode)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int err = bpf_xdp_query((int)ifindex, 0, &q);

	*prog_id = 0;
	*mode = XDPBR_MODE_NONE;
	if (err)
		return err;
	if (q.drv_prog_id) {
		*prog_id = q.drv_prog_id;
		*mode = XDPBR_MODE_NATIVE;
	} else if (q.skb_prog_id) {
		*prog_id = q.skb_prog_id;
		*mode = XDPBR_MODE_GENERIC;
	} else if (q.prog_id) {
		*prog_id = q.prog_id;	/* offloaded: not ours to touch */
		*mode = XDPBR_MODE_NONE;
	}
	return 0;
}

static uint32_t prog_id_of(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}

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

static int pin_prog(struct bridge *br, struct bpf_program *prog, const char *name)
{
	char path[PATH_MAX];
	int err = pin_path(path, sizeof(path), br->name, name);

	if (err)
		return err;
	if (unlink(path) && errno != ENOENT)
		return -errno;
	err = bpf_program__pin(prog, path);
	if (err)
		log_warn("Couldn't pin program at %s: %s", path, strerror(-err));
	return err;
}

static void unpin_all(struct bridge *br)
{
	static const char *const names[] = {
		XDPBR_PIN_PROG_RX, XDPBR_PIN_PROG_EGRESS, XDPBR_PIN_PROG_TC,
		XDPBR_PIN_LINK_XMIT, XDPBR_PIN_LINK_REDIR,
	};
	char path[PATH_MAX];

	maps_unpin(br->name);
	stpmap_unpin(br->name);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!pin_path(path, sizeof(path), br->name, names[i]))
			unlink(path);
	if (rmdir(br->dir) && errno != ENOENT)
		log_warn("Couldn't remove %s: %s", br->dir, strerror(errno));
	pin_root_remove();
}

/*
 * The kernel marks every devmap BPF_F_RDONLY_PROG at creation, and libbpf 1.1
 * then refuses to reuse the pin ("parameter mismatch": the object declares
 * flags 0, and declaring the flag makes creation fail). Reuse pinned devmaps
 * by hand and keep libbpf's pinning for the maps it can handle.
 */
static int reuse_pinned_devmaps(struct bridge *br)
{
	struct bpf_map *map;
	char path[PATH_MAX];
	int fd, err;

	bpf_object__for_each_map(map, br->skel->obj) {
		enum bpf_map_type t = bpf_map__type(map);

		if (t != BPF_MAP_TYPE_DEVMAP && t != BPF_MAP_TYPE_DEVMAP_HASH)
			continue;
		err = pin_path(path, sizeof(path), br->name, bpf_map__name(map));
		if (err)
			return err;
		fd = bpf_obj_get(path);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;	/* new: libbpf creates and pins it */
			return -errno;
		}
		err = bpf_map__reuse_fd(map, fd);
		close(fd);		/* reuse_fd keeps its own duplicate */
		if (!err)
			err = bpf_map__set_pin_path(map, NULL);
		if (err)
			return err;
	}
	return 0;
}

void bridge_skel_maps(const struct xdpbr *skel, struct xdpbr_maps *m)
{
	*m = (struct xdpbr_maps){
		.fdb = bpf_map__fd(skel->maps.xdpbr_fdb),
		.ports = bpf_map__fd(skel->maps.xdpbr_ports),
		.stats = bpf_map__fd(skel->maps.xdpbr_stats),
		.config = bpf_map__fd(skel->maps.xdpbr_config),
		.tx = bpf_map__fd(skel->maps.xdpbr_tx),
		.flood_bc = bpf_map__fd(skel->maps.xdpbr_flood_bc),
		.flood_mc = bpf_map__fd(skel->maps.xdpbr_flood_mc),
		.flood_uu = bpf_map__fd(skel->maps.xdpbr_flood_uu),
		.flood_bc_fast = bpf_map__fd(skel->maps.xdpbr_flood_bc_fast),
		.flood_mc_fast = bpf_map__fd(skel->maps.xdpbr_flood_mc_fast),
		.flood_uu_fast = bpf_map__fd(skel->maps.xdpbr_flood_uu_fast),
		.flood_fast = bpf_map__fd(skel->maps.xdpbr_flood_fast),
		.learned = bpf_map__fd(skel->maps.xdpbr_learned),
		.learned_user = bpf_map__fd(skel->maps.xdpbr_learned_user),
		.events = bpf_map__fd(skel->maps.xdpbr_events),
		.evbudget = bpf_map__fd(skel->maps.xdpbr_evbudget),
		.bridge = bpf_map__fd(skel->maps.xdpbr_bridge),
		.vlans = bpf_map__fd(skel->maps.xdpbr_vlans),
		.storm = bpf_map__fd(skel->maps.xdpbr_storm),
		.ifslot = bpf_map__fd(skel->maps.xdpbr_ifslot),
		.portcfg = bpf_map__fd(skel->maps.xdpbr_portcfg),
		.fdbgen = bpf_map__fd(skel->maps.xdpbr_fdbgen),
		.slotif = bpf_map__fd(skel->maps.xdpbr_slotif),
		.skbports = bpf_map__fd(skel->maps.xdpbr_skbports),
		.portname = bpf_map__fd(skel->maps.xdpbr_portname),
		.stp_port = bpf_map__fd(skel->maps.xdpbr_stp_port),
		.stp_beat = bpf_map__fd(skel->maps.xdpbr_stp_beat),
		.storm_state = bpf_map__fd(skel->maps.xdpbr_storm_state),
		.xmit_seen = bpf_map__fd(skel->maps.xdpbr_xmit_seen),
	};
}

/* An empty bridge called name: no fd open, its pin directory's path. */
static int bridge_init(struct bridge *br, const char *name, enum xdpbr_mode mode)
{
	memset(br, 0, sizeof(*br));
	br->prog_rx_fd = br->prog_egress_fd = br->prog_tc_fd = br->lock_fd = -1;
	br->stats_upgrade_fd = -1;
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

/* Counters pinned by an older build, in another layout (upgrade.h): the
 * object gets a copy in its own layout, pinned in their place once it has
 * loaded (stats_upgrade_finish). Until each port runs the new program the
 * old one counts into the old map: those few frames' counts are lost. */
static int stats_upgrade_start(struct bridge *br)
{
	struct bpf_map *map = br->skel->maps.xdpbr_stats;
	char path[PATH_MAX];
	int fd, err = pin_path(path, sizeof(path), br->name, XDPBR_MAP_STATS);

	if (!err)
		err = stats_upgrade(path, &fd);
	if (err == -EPROTO)
		log_warn("The counters pinned in %s have a layout this xdpbrd doesn't know "
			 "(pinned by a newer xdpbr?): run that xdpbrd, or remove the bridge's pins",
			 br->dir);
	if (err || fd < 0)
		return err;
	err = bpf_map__reuse_fd(map, fd) ?: bpf_map__set_pin_path(map, NULL);
	if (err) {
		close(fd);
		return err;
	}
	br->stats_upgrade_fd = fd;
	return 0;
}

static void stats_upgrade_finish(struct bridge *br, bool loaded)
{
	char path[PATH_MAX];
	int err;

	if (br->stats_upgrade_fd < 0)
		return;
	if (loaded) {
		err = pin_path(path, sizeof(path), br->name, XDPBR_MAP_STATS) ?:
		      stats_upgrade_pin(path, br->stats_upgrade_fd);
		if (err)
			log_warn("Couldn't pin the counters in their new layout in %s: %s",
				 br->dir, strerror(-err));
		else
			log_info("bridge %s: counters moved to this build's layout (%d counters)",
				 br->name, XDPBR_CNT__MAX);
	}
	close(br->stats_upgrade_fd);
	br->stats_upgrade_fd = -1;
}

/* Opens the datapath object, set to reuse the maps pinned in the bridge's
 * directory, its drop-counting tracepoints to the devices of our network
 * namespace. */
static int skel_open(struct bridge *br)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = br->dir);
	const struct xdpbr_paths *p;
	int err;

	br->skel = xdpbr__open_opts(&oo);
	if (!br->skel) {
		err = -errno;
		log_warn("Couldn't open the datapath object: %s", strerror(-err));
		return err;
	}
	if (!paths_get(&p))
		br->skel->rodata->netns_cookie = p->cookie;
	err = reuse_pinned_devmaps(br);
	if (err)
		log_warn("Couldn't reuse the devmaps pinned in %s: %s", br->dir, strerror(-err));
	return err ?: stats_upgrade_start(br);
}

/* The FDB's capacity as the program will get it: the pinned map's when the
 * bridge's pins exist (they keep their size), else what the skeleton holds. */
static uint32_t fdb_size_effective(const struct bridge *br)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/xdpbr_fdb", br->dir) < (int)sizeof(path)) {
		fd = bpf_obj_get(path);
		if (fd >= 0) {
			int err = bpf_obj_get_info_by_fd(fd, &info, &len);

			close(fd);
			if (!err && info.max_entries)
				return info.max_entries;
		}
	}
	return bpf_map__max_entries(br->skel->maps.xdpbr_fdb);
}

/* The per-CPU FDB cache's entries: what -C / fdb_cache says, else the rule
 * of include/fdbc_size.h from the FDB's size and the possible CPUs. */
static uint32_t fdb_cache_entries(const struct bridge *br, const struct bridge_opts *o)
{
	uint32_t fdb = fdb_size_effective(br), n;
	int ncpus = libbpf_num_possible_cpus();

	if (ncpus < 1)
		ncpus = 1;
	if (o->fdb_cache_set) {
		log_debug("bridge %s: FDB cache %u entries a CPU (set by fdb_cache / -C)",
			 br->name, o->fdb_cache);
		return o->fdb_cache;
	}
	n = xdpbr_fdb_cache_auto(fdb, (uint32_t)ncpus);
	log_debug("bridge %s: FDB cache %u entries a CPU (%u KiB on each of %d possible CPUs), "
		 "sized for an FDB of %u entries", br->name, n,
		 n * XDPBR_FDBC_ENTRY_BYTES / 1024, ncpus, fdb);
	return n;
}

int bridge_skel_fdbc(struct xdpbr *skel, uint32_t bits)
{
	int ncpus = libbpf_num_possible_cpus();

	if (ncpus < 1)
		ncpus = 1;
	skel->rodata->fdbc_bits = bits;
	skel->rodata->fdbc_cpus = (uint32_t)ncpus;
	/* one array, CPU after CPU: the budgets of fdbc_size.h keep it far
	 * below 4 Gi entries (64 MiB in all) */
	return bpf_map__set_max_entries(skel->maps.fdbc_cache,
					bits ? (uint32_t)ncpus << bits : 1);
}

/* The sizes fixed at load time: FDB capacity and per-CPU FDB cache. */
static int skel_size(struct bridge *br, const struct bridge_opts *o)
{
	uint32_t entries, bits;
	int err;

	if (o->fdb_size) {
		err = bpf_map__set_max_entries(br->skel->maps.xdpbr_fdb, o->fdb_size);
		if (err)
			return err;
	}
	/* entries is 0 or a power of two >= 4: sets of XDPBR_FDBC_WAYS
	 * entries, 2 sets at least (fdbc_bits 0 is off) */
	entries = fdb_cache_entries(br, o);
	bits = entries ? (uint32_t)__builtin_ctz(entries) - (uint32_t)__builtin_ctz(XDPBR_FDBC_WAYS) : 0;
	if (entries && bits < 1)
		bits = 1;
	err = bridge_skel_fdbc(br->skel, bits);
	if (err)
		return err;
	if (!bits)
		log_debug("bridge %s: FDB cache off (every lookup goes to the FDB)", br->name);
	return 0;
}

/* Whether the kernel loads multi-buffer XDP programs (BPF_F_XDP_HAS_FRAGS,
 * Linux 5.18). */
static bool xdp_frags_supported(void)
{
	struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .prog_flags = BPF_F_XDP_HAS_FRAGS);
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, NULL, "GPL", prog, ARRAY_SIZE(prog), &opts);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int skel_load(struct bridge *br)
{
	int err;

	/* tx_dropped's program is a BTF tracepoint that reads the egress
	 * device through CO-RE, and libbpf (1.1) then wants the kernel's BTF
	 * for the whole object, whichever programs it loads. */
	if (access(KERNEL_BTF, R_OK)) {
		log_warn("Couldn't read %s: the datapath needs the kernel's BTF "
			 "(CONFIG_DEBUG_INFO_BTF=y, as in Debian's, Ubuntu's and Fedora's kernels)",
			 KERNEL_BTF);
		return -ENOENT;
	}
	/* Built for multi-buffer XDP (SEC("xdp.frags"), bpf_xdp_get_buff_len),
	 * so that drivers that support it take jumbo frames natively. */
	if (!xdp_frags_supported()) {
		log_warn("This kernel has no multi-buffer XDP (BPF_F_XDP_HAS_FRAGS, "
			 "Linux 5.18), which the datapath is built for");
		return -EOPNOTSUPP;
	}
	err = xdpbr__load(br->skel);
	stats_upgrade_finish(br, !err);
	if (!err)
		return 0;
	if (br->adopted)
		log_warn("Couldn't load the datapath reusing the maps pinned in %s: %s "
			 "(a pinned map may differ from this build, e.g. in FDB size; "
			 "use the same --fdb-size, or remove the bridge's pins)",
			 br->dir, strerror(-err));
	else
		log_warn("Couldn't load the datapath: %s (run with -v for the verifier log)",
			 strerror(-err));
	return err;
}

/* What the bridge keeps of the loaded object: map and program fds, and the
 * ids that tell its programs from others (prog_is_ours). */
static int skel_handles(struct bridge *br)
{
	struct bpf_map_info mi = {};
	__u32 mlen = sizeof(mi);

	bridge_skel_maps(br->skel, &br->maps);
	br->prog_rx_fd = bpf_program__fd(br->skel->progs.xdpbr_rx);
	br->prog_egress_fd = bpf_program__fd(br->skel->progs.xdpbr_egress);
	br->prog_tc_fd = bpf_program__fd(br->skel->progs.xdpbr_tc_rx);
	br->prog_rx_id = prog_id_of(br->prog_rx_fd);
	br->prog_tc_id = prog_id_of(br->prog_tc_fd);
	if (bpf_obj_get_info_by_fd(br->maps.fdb, &mi, &mlen))
		return -errno;
	br->fdb_map_id = mi.id;
	return 0;
}

/* The programs pinned next to the maps, and the drop-counting tracepoints
 * attached (their links pinned too). */
static int pin_programs(struct bridge *br)
{
	int err = pin_prog(br, br->skel->progs.xdpbr_rx, XDPBR_PIN_PROG_RX);

	if (!err)
		err = pin_prog(br, br->skel->progs.xdpbr_egress, XDPBR_PIN_PROG_EGRESS);
	if (!err)
		err = pin_prog(br, br->skel->progs.xdpbr_tc_rx, XDPBR_PIN_PROG_TC);
	if (err)
		return err;
	attach_tracepoints(br);
	return 0;
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
	enum xdp_share s = br->port_share ? br->port_share(ifname, br->port_init_arg)
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
 * lock held (port_maps_add). */
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
	if (br->port_init)
		br->port_init(ifname, &p, br->port_init_arg);
	err = ctl_port_apply(&br->maps, ifindex, &p, br->prog_egress_fd);
	return err ? err : ctl_port_name_set(&br->maps, p.slot, ifname);
}

/* A slot is chosen from the ports map and written back into it: two
 * processes doing that at once (the daemon and `xdpbr link add`, or two
 * CLIs) would choose the same one. The slot lock on the pin root (lock.h)
 * keeps them apart. */
static int port_maps_add(struct bridge *br, const char *ifname, uint32_t ifindex,
			 uint32_t mode)
{
	const struct xdpbr_paths *p;
	pid_t pid = 0;
	int lk = -1, err = paths_get(&p);

	if (err)
		return err;
	err = lock_dir_wait(p->pin_root, SLOT_LOCK_WAIT_MS, &lk, &pid);
	if (err == -EBUSY) {
		log_warn("Couldn't claim a slot for '%s': pid %d has held the port slot lock "
			 "on %s for %d s", ifname, (int)pid, p->pin_root_shown,
			 SLOT_LOCK_WAIT_MS / 1000);
		return err;
	}
	if (err) {
		log_warn("Couldn't take the port slot lock on %s: %s", p->pin_root_shown,
			 strerror(-err));
		return err;
	}
	err = port_maps_add_locked(br, ifname, ifindex, mode);
	lock_release(&lk);
	return err;
}

static void port_maps_del(struct bridge *br, uint32_t ifindex)
{
	ctl_port_remove(&br->maps, ifindex);
}

/* ------------------------------------------------------ the skb path (TC) */

#define TC_HOOK(name, ifidx) \
	LIBBPF_OPTS(bpf_tc_hook, name, .ifindex = (int)(ifidx), .attach_point = BPF_TC_INGRESS)
#define TC_FILTER(name) \
	LIBBPF_OPTS(bpf_tc_opts, name, .handle = XDPBR_TC_HANDLE, .priority = XDPBR_TC_PRIO)

int tc_query(uint32_t ifindex, uint32_t *prog_id)
{
	TC_HOOK(hook, ifindex);
	TC_FILTER(opts);
	int err;

	*prog_id = 0;
	err = bpf_tc_query(&hook, &opts);
	if (err == -ENOENT || err == -EINVAL)
		return 0;		/* no clsact qdisc, or no filter of ours */
	if (err)
		return err;
	*prog_id = opts.prog_id;
	return 0;
}

/*
 * Our filter on the port's clsact ingress (created if missing), swapped in
 * atomically when one is there (BPF_TC_F_REPLACE): a restarted daemon
 * replaces its predecessor's program without a gap, like XDP_FLAGS_REPLACE.
 * Ports on the skb path run only this; XDP ports run it too, for the
 * frames their XDP program hands to the stack in a bridge of both kinds.
 */
static int tc_attach(struct bridge *br, uint32_t ifindex, const char *ifname)
{
	TC_HOOK(hook, ifindex);
	TC_FILTER(opts);
	int err;

	if (br->prog_tc_fd < 0)
		return -ENOENT;
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		log_warn("Couldn't add a clsact qdisc to '%s': %s", ifname, strerror(-err));
		return err;
	}
	opts.prog_fd = br->prog_tc_fd;
	opts.flags = BPF_TC_F_REPLACE;
	err = bpf_tc_attach(&hook, &opts);
	if (err)
		log_warn("Couldn't attach the TC program to '%s': %s", ifname, strerror(-err));
	return err;
}

/* Removes our filter, if it is still ours; the clsact qdisc stays (other
 * filters may use it). */
static void tc_detach(struct bridge *br, uint32_t ifindex)
{
	TC_HOOK(hook, ifindex);
	TC_FILTER(opts);
	uint32_t id;
	char name[IF_NAMESIZE] = "?";

	if (tc_query(ifindex, &id) || !prog_is_ours(br, id))
		return;
	if (bpf_tc_detach(&hook, &opts))
		log_warn("Couldn't detach the TC program from '%s'",
			 if_indextoname(ifindex, name) ?: "?");
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
	enum port_path path = br->port_path ? br->port_path(ifname, br->port_init_arg)
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
		err = bpf_xdp_attach((int)ifindex, br->prog_rx_fd,
				     flags | XDP_FLAGS_DRV_MODE, NULL);
		if (!err) {
			*mode = XDPBR_MODE_NATIVE;
			return 0;
		}
		if (native_refused(br, ifindex, ifname, err))
			return err;
	}
	err = bpf_xdp_attach((int)ifindex, br->prog_rx_fd, flags | XDP_FLAGS_SKB_MODE, NULL);
	if (err) {
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

static void detach_one(struct bridge *br, uint32_t ifindex);
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

	tc_query(ifindex, &cur_tc);
	*adopted = prog_is_ours(br, cur_tc);
	err = port_maps_add(br, ifname, ifindex, XDPBR_MODE_TC);
	if (err) {
		log_warn("Couldn't add '%s' to the bridge's maps: %s", ifname, strerror(-err));
		if (!*adopted)
			port_maps_del(br, ifindex);
		return err;
	}
	err = tc_attach(br, ifindex, ifname);
	if (err) {
		if (!*adopted)
			port_maps_del(br, ifindex);
		return err;
	}
	xdp_detach(br, ifindex);	/* ours from an earlier run, if any */
	return 0;
}

/*
 * The receive program loaded once more as libxdp's dispatcher wants its
 * components: a freplace program (BPF_PROG_TYPE_EXT), with every map the
 * bridge's own, and attached to ifindex in mode. It is loaded here, not by
 * libxdp, for two reasons: libxdp (1.3.1) loads a component without the
 * multi-buffer flag, and the kernel then refuses it the bridge's devmaps,
 * which belong to multi-buffer programs (a map holding programs serves
 * programs of one kind, checked after verification, silently: EINVAL);
 * and a freplace program must name a target when loaded: our own receive
 * program, whose signature the dispatcher's slots share, serves until
 * libxdp links it into the dispatcher. Its id in *comp_id. 0 or -errno.
 */
static int share_load_attach(struct bridge *br, uint32_t ifindex, uint32_t mode,
			     uint32_t *comp_id)
{
	struct xdpbr *c = xdpbr__open();
	struct bpf_program *prog;
	struct bpf_map *map;
	int err = c ? 0 : -errno;

	if (err)
		return err;
	bpf_object__for_each_map(map, c->obj) {
		struct bpf_map *m = bpf_object__find_map_by_name(br->skel->obj,
								 bpf_map__name(map));

		err = m ? bpf_map__reuse_fd(map, bpf_map__fd(m)) : -ENOENT;
		if (!err)
			err = bpf_map__set_pin_path(map, NULL);
		if (err)
			goto out;
	}
	bpf_object__for_each_program(prog, c->obj)
		bpf_program__set_autoload(prog, prog == c->progs.xdpbr_rx);
	prog = c->progs.xdpbr_rx;
	err = bpf_program__set_type(prog, BPF_PROG_TYPE_EXT) ?:
	      bpf_program__set_expected_attach_type(prog, 0) ?:
	      bpf_program__set_flags(prog, bpf_program__flags(prog) | BPF_F_XDP_HAS_FRAGS) ?:
	      bpf_program__set_attach_target(prog, br->prog_rx_fd, "xdpbr_rx") ?:
	      bpf_object__load(c->obj);
	if (!err)
		err = xdpshare_attach(bpf_program__fd(prog), ifindex, mode, comp_id);
out:
	xdpbr__destroy(c);
	return err;
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
	err = share_load_attach(br, ifindex, *mode, comp_id);
	if (err && !h->id && *mode == XDPBR_MODE_NATIVE &&
	    !native_refused(br, ifindex, ifname, err)) {
		*mode = XDPBR_MODE_GENERIC;
		err = share_load_attach(br, ifindex, *mode, comp_id);
	}
	if (err) {
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
	err = tc_attach(br, ifindex, ifname);
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
	char kind[IF_NAMESIZE];
	bool adopted = false;
	int err;

	if (br->nports >= XDPBR_PORTS_PER_BRIDGE)
		return -ENOSPC;
	err = bridge_check_port(br, ifname);
	if (err)
		return err;
	ifindex = if_nametoindex(ifname);
	if (port_path_for(br, ifname, ifindex, kind, sizeof(kind)) == PORT_PATH_TC)
		err = add_port_tc(br, ifname, ifindex, &adopted);
	else
		err = add_port_xdp(br, ifname, ifindex, &mode, &comp_id, &adopted);
	if (err)
		return err;
	port_added(br, ifname, ifindex, mode, comp_id, kind, adopted);
	bridge_mtu_refresh(&br->maps, &(struct bridge_mtus){});
	return 0;
}

static void detach_one(struct bridge *br, uint32_t ifindex)
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
	release_tracepoints(br, keep && !failed);
	xdpbr__destroy(br->skel);
	br->skel = NULL;
	lock_release(&br->lock_fd);
}

int bridge_adopt_ports(struct bridge *br)
{
	struct port_entry *ports;
	size_t n;
	uint32_t id;
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
		if (ports[i].port.mode == XDPBR_MODE_TC ? tc_query(ifindex, &id) ||
							  !prog_is_ours(br, id)
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
	int err;

	memset(br, 0, sizeof(*br));
	br->prog_rx_fd = br->prog_egress_fd = br->prog_tc_fd = br->lock_fd = -1;
	br->stats_upgrade_fd = -1;
	br->adopted = true;
	snprintf(br->name, sizeof(br->name), "%s", name);
	err = pin_path(br->dir, sizeof(br->dir), name, NULL);
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
 * Whether the interface of a pinned port is still that port: it exists and
 * runs this bridge's program (XDP, or TC on the skb path). A deleted
 * interface takes its programs along; one that got its ifindex afterwards
 * (created with that index, or numbering wrapped) has none of ours.
 */
static bool port_is_there(struct bridge *br, uint32_t ifindex)
{
	char name[IF_NAMESIZE];
	uint32_t id;

	if (!if_indextoname(ifindex, name))
		return false;
	if (port_runs_our_xdp(br, ifindex))
		return true;
	return !tc_query(ifindex, &id) && prog_is_ours(br, id);
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
	err = ctl_port_remove(&br->maps, pe->ifindex);
	for (int i = 0; i < br->nports; i++)
		if (br->ports[i].ifindex == pe->ifindex) {
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

int bridge_del_port(struct bridge *br, const char *ifname)
{
	struct port_entry pe = { .ifindex = if_nametoindex(ifname) };
	int err = pe.ifindex ? ctl_port_get(&br->maps, pe.ifindex, &pe.port) : -ENODEV;

	if (err == -ENODEV)
		err = port_gone_named(br, ifname, &pe);
	if (err == -ENODEV)
		log_warn("'%s' is not a port of bridge %s, nor the name of one whose "
			 "interface is gone", ifname, br->name);
	return err ? err : port_remove(br, &pe);
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
			err = port_remove(br, &ports[i]);
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
	struct port_entry *ports;
	size_t n;
	int err = ports_dump(br->maps.ports, &ports, &n), gone = 0;

	if (err)
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		if (port_is_there(br, ports[i].ifindex)) {
			/* renamed meanwhile, or added before names were kept */
			bridge_port_name_follow(br, ports[i].ifindex, ports[i].port.slot);
			continue;
		}
		err = port_remove(br, &ports[i]);
		gone += !err;
	}
	free(ports);
	return err ? err : gone;
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
	struct bpf_map *map;
	struct statfs st;
	int err;

	if (!br->skel || pin_path(path, sizeof(path), br->name, XDPBR_MAP_FDB))
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
	bpf_object__for_each_map(map, br->skel->obj) {
		const char *name = bpf_map__name(map);

		if (strncmp(name, "xdpbr_", 6) || pin_path(path, sizeof(path), br->name, name))
			continue;	/* .rodata, fdbc_cache and friends are not state */
		if (bpf_obj_pin(bpf_map__fd(map), path) && errno != EEXIST)
			return -errno;
	}
	/* the tracepoints' links lived by their pins too */
	err = pin_programs(br);
	return err ? err : 1;
}

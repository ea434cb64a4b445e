// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * load.c - a bridge's datapath object: opened, sized and loaded reusing the
 * maps pinned in its directory, its programs pinned and its drop-counting
 * tracepoints attached; the pin directories; maps of an older layout
 * upgraded (upgrade.h).
 *
 * The pins under /sys/fs/bpf/xdpbr/<bridge>/ (another network namespace's:
 * see paths.h) are the bridge. Loading with
 * pin_root_path set makes libbpf reuse maps already pinned there, so a daemon
 * restarted after a crash or with --keep picks up the FDB and counters as they
 * are, and replaces the program on each port atomically (XDP_FLAGS_REPLACE):
 * no frame is dropped and no entry is lost.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpbr.skel.h"
#include "fdbc_size.h"
#include "bridge.h"
#include "load.h"
#include "hook.h"
#include "log.h"
#include "netns.h"
#include "paths.h"
#include "pins.h"
#include "stpmap.h"
#include "upgrade.h"
#include "util.h"
#include "xdpshare.h"
#define KERNEL_BTF "/sys/kernel/btf/vmlinux"

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

int mkdir_private(const char *path)
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
int pin_root_prepare(bool mount_bpffs)
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

/* The ports' TCX link pins that are left (a port whose device went while
 * no daemon ran): unpinned, a link goes. */
static void tc_links_unpin(const struct bridge *br)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(br->dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, XDPBR_PIN_LINK_TC, strlen(XDPBR_PIN_LINK_TC)) &&
		    !pin_path(path, sizeof(path), br->name, de->d_name))
			unlink(path);
	closedir(d);
}

void unpin_all(struct bridge *br)
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
	tc_links_unpin(br);
	if (rmdir(br->dir) && errno != ENOENT)
		log_warn("Couldn't remove %s: %s", br->dir, strerror(errno));
	pin_root_remove();
}

void bridge_skel_maps(const struct xdpbr *skel, struct xdpbr_maps *m)
{
	/* A row of include/xdpbr_maps.h that names no map of the object does
	 * not compile here. */
#define SKEL_MAP_FD(name, type) m->name = bpf_map__fd(skel->maps.xdpbr_##name);
	XDPBR_MAPS_PINNED(SKEL_MAP_FD)
#undef SKEL_MAP_FD
}

/* What an upgrade may move: the object's pinned maps, then the spanning
 * tree's, which no program uses (bridge.h BRIDGE_UPGRADE_MAPS). */
static const char *const upgrade_pins[] = {
#define UPGRADE_PIN(name, type) XDPBR_MAP_NAME(name),
	XDPBR_MAPS_PINNED(UPGRADE_PIN)
#undef UPGRADE_PIN
	STPMAP_CFG, STPMAP_STATUS,
};
_Static_assert(ARRAY_SIZE(upgrade_pins) == BRIDGE_UPGRADE_MAPS, "one fd a pin");

/* The layout the build wants of upgrade_pins[i]; its map in the object in
 * *map (NULL for the spanning tree's). Only the slot maps' size and the
 * fast flood maps' are told: the others' is the pin's (the FDB) or
 * libbpf's to check. */
static struct map_layout upgrade_want(const struct bridge *br, size_t i, struct bpf_map **map)
{
	struct map_layout l = { BPF_MAP_TYPE_ARRAY, sizeof(__u32), STPMAP_VALUE,
				XDPBR_MAX_PORTS, 0 };

	*map = bpf_object__find_map_by_name(br->skel->obj, upgrade_pins[i]);
	if (!*map)
		return l;
	l = (struct map_layout){ bpf_map__type(*map), bpf_map__key_size(*map),
				 bpf_map__value_size(*map), bpf_map__max_entries(*map),
				 bpf_map__map_flags(*map) };
	if (l.max_entries != XDPBR_MAX_PORTS && l.max_entries != XDPBR_FLOOD_FAST_SLOTS)
		l.max_entries = 0;
	return l;
}

static void upgrade_refused(const struct bridge *br, const char *name,
			    const struct map_layout *want, const struct map_layout *have)
{
	log_warn("%s pinned in %s has a layout this xdpbrd doesn't know (%s, key %u, value %u "
		 "bytes, %u entries; this build's: %s, key %u, value %u bytes, %u entries%s): "
		 "run the xdpbrd that pinned it, or remove the bridge's pins",
		 name, br->dir, libbpf_bpf_map_type_str(have->type), have->key_size,
		 have->value_size, have->max_entries, libbpf_bpf_map_type_str(want->type),
		 want->key_size, want->value_size, want->max_entries ?: have->max_entries,
		 want->max_entries == XDPBR_MAX_PORTS ? ", or 64 before 1024 ports" :
		 want->max_entries == XDPBR_FLOOD_FAST_SLOTS ? ", or 1025 before the fast "
		 "flood's maps were made small again" : "");
}

/* Pinned maps of an older build's layout (upgrade.h): the object gets new
 * ones in its own, filled and pinned in their place once it has loaded
 * (maps_upgrade_finish). Until each port runs the new program the old one
 * works on the old maps: what it counts or learns after the copy is not in
 * the new counters and learn counts (the FDB itself is kept, not copied). */
static int maps_upgrade_start(struct bridge *br)
{
	char path[PATH_MAX];
	int err = 0;

	for (size_t i = 0; i < ARRAY_SIZE(upgrade_pins) && !err; i++) {
		struct map_layout have, want;
		struct bpf_map *map;

		want = upgrade_want(br, i, &map);
		err = pin_path(path, sizeof(path), br->name, upgrade_pins[i]) ?:
		      map_upgrade_start(path, upgrade_pins[i], &want, &have, &br->upgrade_fd[i]);
		if (err == -EPROTO)
			upgrade_refused(br, upgrade_pins[i], &want, &have);
		if (!err && map && br->upgrade_fd[i] >= 0)
			err = bpf_map__reuse_fd(map, br->upgrade_fd[i]) ?:
			      bpf_map__set_pin_path(map, NULL);
	}
	return err;
}

static void maps_upgrade_close(struct bridge *br)
{
	for (size_t i = 0; i < ARRAY_SIZE(br->upgrade_fd); i++) {
		if (br->upgrade_fd[i] >= 0)
			close(br->upgrade_fd[i]);
		br->upgrade_fd[i] = -1;
	}
}

/* Once loaded: every new map filled from its pin, and only then, all of
 * them filled, pinned in the old ones' place, so that a failed copy leaves
 * the old bridge as it was. 0 or -errno. */
static int maps_upgrade_finish(struct bridge *br)
{
	char path[PATH_MAX];
	int err = 0, pass, moved = 0;
	bool counters = false;

	for (pass = 0; pass < 2 && !err; pass++)
		for (size_t i = 0; i < ARRAY_SIZE(upgrade_pins) && !err; i++) {
			int fd = br->upgrade_fd[i];

			if (fd < 0)
				continue;
			err = pin_path(path, sizeof(path), br->name, upgrade_pins[i]) ?:
			      (pass ? map_upgrade_pin(path, fd) : map_upgrade_fill(path, fd));
			if (err)
				log_warn("Couldn't %s %s in this build's layout: %s",
					 pass ? "pin" : "copy the entries of", path, strerror(-err));
			moved += pass && !err;
			counters |= pass && !strcmp(upgrade_pins[i], XDPBR_MAP_NAME(stats));
		}
	if (moved)
		log_info("bridge %s: %d pinned maps moved to this build's layout "
			 "(%d port slots, %d counters)", br->name, moved, XDPBR_MAX_PORTS,
			 XDPBR_CNT__MAX);
	if (counters)
		log_info("bridge %s: counters moved to this build's layout (%d counters)",
			 br->name, XDPBR_CNT__MAX);
	maps_upgrade_close(br);
	return err;
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

		if ((t != BPF_MAP_TYPE_DEVMAP && t != BPF_MAP_TYPE_DEVMAP_HASH) ||
		    !bpf_map__pin_path(map))
			continue;	/* or an upgrade's (maps_upgrade_start) */
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

/* Opens the datapath object, set to reuse the maps pinned in the bridge's
 * directory, its drop-counting tracepoints to the devices of our network
 * namespace. */
int skel_open(struct bridge *br)
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
	err = maps_upgrade_start(br);
	if (err)
		return err;
	err = reuse_pinned_devmaps(br);
	if (err)
		log_warn("Couldn't reuse the devmaps pinned in %s: %s", br->dir, strerror(-err));
	return err;
}

/* The capacity of the bridge's pinned FDB, 0 when it has none. */
static uint32_t fdb_size_pinned(const struct bridge *br)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);
	char path[PATH_MAX];
	int fd, err;

	if (pin_path(path, sizeof(path), br->name, XDPBR_MAP_NAME(fdb)))
		return 0;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	return err ? 0 : info.max_entries;
}

/* The FDB's capacity as the program will get it: the pinned map's when the
 * bridge's pins exist (they keep their size), else what the skeleton holds. */
static uint32_t fdb_size_effective(const struct bridge *br)
{
	uint32_t pinned = fdb_size_pinned(br);

	return pinned ? pinned : bpf_map__max_entries(br->skel->maps.xdpbr_fdb);
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
int skel_size(struct bridge *br, const struct bridge_opts *o)
{
	uint32_t entries, bits, fdb = fdb_size_pinned(br);
	int err;

	/* A bridge whose pins exist keeps its size: the pinned FDB is reused,
	 * and a map of another size would not load with it. */
	if (fdb && o->fdb_size && o->fdb_size != fdb)
		log_info("bridge %s: keeps the %u entries of its pinned FDB "
			 "(--fdb-size %u sizes a new bridge)", br->name, fdb, o->fdb_size);
	if (!fdb)
		fdb = o->fdb_size;
	if (fdb) {
		err = bpf_map__set_max_entries(br->skel->maps.xdpbr_fdb, fdb);
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

int skel_load(struct bridge *br)
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
	if (!err)
		return maps_upgrade_finish(br);
	maps_upgrade_close(br);
	if (br->adopted)
		log_warn("Couldn't load the datapath reusing the maps pinned in %s: %s "
			 "(a pinned map may differ from this build: run the xdpbrd "
			 "that pinned them, or remove the bridge's pins)",
			 br->dir, strerror(-err));
	else
		log_warn("Couldn't load the datapath: %s (run with -v for the verifier log)",
			 strerror(-err));
	return err;
}

/* What the bridge keeps of the loaded object: map and program fds, and the
 * ids that tell its programs from others (prog_is_ours). */
int skel_handles(struct bridge *br)
{
	struct bpf_map_info mi = {};
	__u32 mlen = sizeof(mi);

	bridge_skel_maps(br->skel, &br->maps);
	br->prog_rx_fd = bpf_program__fd(br->skel->progs.xdpbr_rx);
	br->prog_egress_fd = bpf_program__fd(br->skel->progs.xdpbr_egress);
	br->prog_tc_fd = bpf_program__fd(br->skel->progs.xdpbr_tc_rx);
	br->prog_bpdu_fd = bpf_program__fd(br->skel->progs.xdpbr_bpdu_sock);
	br->prog_rx_id = prog_id_of(br->prog_rx_fd);
	br->prog_tc_id = prog_id_of(br->prog_tc_fd);
	if (bpf_obj_get_info_by_fd(br->maps.fdb, &mi, &mlen))
		return -errno;
	br->fdb_map_id = mi.id;
	return 0;
}

/* The programs pinned next to the maps, and the drop-counting tracepoints
 * attached (their links pinned too). */
int pin_programs(struct bridge *br)
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

/* The loaded object closed; keep: its tracepoints stay attached. */
void skel_close(struct bridge *br, bool keep)
{
	release_tracepoints(br, keep);
	xdpbr__destroy(br->skel);
	br->skel = NULL;
	br->prog_bpdu_fd = -1;
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
int share_load_attach(struct bridge *br, uint32_t ifindex, uint32_t mode,
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

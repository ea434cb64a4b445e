// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpshare.c - the bridge's receive program as one component of libxdp's
 * dispatcher (xdpshare.h).
 *
 * libxdp (1.3.1) links a component into the dispatcher as a freplace
 * program: an already loaded XDP program can't be one (the kernel links
 * only BPF_PROG_TYPE_EXT programs into another program), so the component
 * is a second load of the receive program, typed EXT by libxdp, sharing
 * every map of the bridge. Adding or removing a component makes libxdp
 * build a new dispatcher and swap it in atomically (XDP_FLAGS_REPLACE):
 * the other components never stop, and an upgrade that adds the new
 * program before removing the old one loses no frame.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "log.h"
#include "util.h"
#include "xdpbr.h"
#include "xdpshare.h"

/* libxdp's messages are debug output, like libbpf's; ours say what
 * matters. */
__attribute__((format(printf, 2, 0)))
static int libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	log_debug("libxdp: %s", buf);
	return 0;
}

static void print_setup(void)
{
	static bool done;

	if (!done)
		libxdp_set_print(libxdp_print);
	done = true;
}

/* The BTF id of the function func in the program prog_fd's BTF, or
 * -errno. */
static int prog_func_btf_id(int prog_fd, const char *func)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct btf *btf;
	int id;

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	if (!info.btf_id)
		return -ENOENT;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf)
		return -errno;
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	btf__free(btf);
	return id;
}

int xdpshare_probe(int target_fd, const char *func, char *why, size_t len)
{
	struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .attach_prog_fd = target_fd);
	int id = prog_func_btf_id(target_fd, func), fd;

	snprintf(why, len, "-");
	if (id < 0) {
		snprintf(why, len, "the program has no BTF for %s: %s", func, strerror(-id));
		return -EOPNOTSUPP;
	}
	o.attach_btf_id = (__u32)id;
	/* Without BTF of its own the extension fails the kernel's type check
	 * (EINVAL: "Program extension requires BTF") where freplace exists;
	 * a kernel that refuses the program type says EPERM or EACCES before
	 * that, EINVAL never (5.6+ knows the type). */
	fd = bpf_prog_load(BPF_PROG_TYPE_EXT, "xdpbr_probe", "GPL", prog, ARRAY_SIZE(prog), &o);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == EINVAL)
		return 0;
	snprintf(why, len, "this kernel refuses freplace programs (BPF_PROG_TYPE_EXT: %s), "
		 "which libxdp's dispatcher is made of", strerror(errno));
	return -EOPNOTSUPP;
}

bool xdpshare_is_dispatcher(uint32_t prog_id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	bool is = false;
	int fd;

	if (!prog_id)
		return false;
	fd = bpf_prog_get_fd_by_id(prog_id);
	if (fd < 0)
		return false;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		is = !strcmp(info.name, XDPSHARE_DISPATCHER_NAME);
	close(fd);
	return is;
}

/* The dispatcher on ifindex (not a legacy single program), or NULL. */
static struct xdp_multiprog *dispatcher_get(uint32_t ifindex)
{
	struct xdp_multiprog *mp;

	print_setup();
	mp = xdp_multiprog__get_from_ifindex((int)ifindex);
	if (libxdp_get_error(mp))
		return NULL;
	if (!mp || xdp_multiprog__is_legacy(mp)) {
		xdp_multiprog__close(mp);
		return NULL;
	}
	return mp;
}

int xdpshare_find(uint32_t ifindex, bool (*ours)(void *arg, uint32_t id), void *arg,
		  uint32_t *comp_id, int *nprogs)
{
	struct xdp_multiprog *mp = dispatcher_get(ifindex);
	struct xdp_program *p = NULL;

	*comp_id = 0;
	*nprogs = 0;
	if (!mp)
		return 0;
	while ((p = xdp_multiprog__next_prog(p, mp))) {
		(*nprogs)++;
		if (!*comp_id && ours(arg, xdp_program__id(p)))
			*comp_id = xdp_program__id(p);
	}
	xdp_multiprog__close(mp);
	return 0;
}

void xdpshare_others(uint32_t ifindex, uint32_t except_id, char *buf, size_t len)
{
	struct xdp_multiprog *mp = dispatcher_get(ifindex);
	struct xdp_program *p = NULL;
	size_t n = 0;

	snprintf(buf, len, "none");
	if (!mp)
		return;
	while ((p = xdp_multiprog__next_prog(p, mp)) && n < len)
		if (xdp_program__id(p) != except_id)
			n += (size_t)snprintf(buf + n, len - n, "%s%s (id %u, priority %u)",
					      n ? ", " : "", xdp_program__name(p),
					      xdp_program__id(p), xdp_program__run_prio(p));
	xdp_multiprog__close(mp);
}

/*
 * libxdp (1.3.1) sets a component's run priority and chain call actions
 * only on a program it loads itself (or from the .xdp_run_config section
 * of its BTF, and then only the priority for a program it gets loaded);
 * it would load ours without the multi-buffer flag, which the bridge's
 * devmaps require (lib/load.c, share_load_attach). A program it gets
 * loaded runs with libxdp's defaults: priority 50 (XDPSHARE_PRIO), chain
 * call on XDP_PASS only, so every verdict of the bridge but XDP_PASS ends
 * the chain, and a frame it passes to the host goes on to a component of
 * a higher priority, if there is one.
 */
int xdpshare_attach(int prog_fd, uint32_t ifindex, uint32_t mode, uint32_t *comp_id)
{
	struct xdp_program *p;
	int err;

	print_setup();
	p = xdp_program__from_fd(prog_fd);
	err = (int)libxdp_get_error(p);
	if (err)
		return err;
	err = xdp_program__attach(p, (int)ifindex, mode == XDPBR_MODE_GENERIC ?
				  XDP_MODE_SKB : XDP_MODE_NATIVE, 0);
	*comp_id = err ? 0 : xdp_program__id(p);
	xdp_program__close(p);
	return err;
}

int xdpshare_detach(uint32_t ifindex, uint32_t comp_id)
{
	struct xdp_multiprog *mp = dispatcher_get(ifindex);
	struct xdp_program *p = NULL;
	int err = -ENOENT;

	if (!mp)
		return -ENOENT;
	while ((p = xdp_multiprog__next_prog(p, mp)))
		if (xdp_program__id(p) == comp_id) {
			err = xdp_program__detach(p, (int)ifindex,
						  xdp_multiprog__attach_mode(mp), 0);
			break;
		}
	xdp_multiprog__close(mp);
	return err;
}

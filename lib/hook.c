// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hook.c - the hooks a port's datapath runs on, XDP and TC clsact ingress:
 * what runs there, attaching and removing the loader's TC filter. libbpf
 * only: nothing here knows the bridge.
 */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpbr.h"
#include "hook.h"
#include "log.h"

uint32_t prog_id_of(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
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
int tc_attach(int prog_fd, uint32_t ifindex, const char *ifname)
{
	TC_HOOK(hook, ifindex);
	TC_FILTER(opts);
	int err;

	if (prog_fd < 0)
		return -ENOENT;
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		log_warn("Couldn't add a clsact qdisc to '%s': %s", ifname, strerror(-err));
		return err;
	}
	opts.prog_fd = prog_fd;
	opts.flags = BPF_TC_F_REPLACE;
	err = bpf_tc_attach(&hook, &opts);
	if (err)
		log_warn("Couldn't attach the TC program to '%s': %s", ifname, strerror(-err));
	return err;
}

/* Removes the loader's filter (handle and priority XDPBR_TC_*) from
 * ifindex's clsact ingress; the qdisc stays (other filters may use it). */
void tc_filter_del(uint32_t ifindex)
{
	TC_HOOK(hook, ifindex);
	TC_FILTER(opts);
	char name[IF_NAMESIZE] = "?";

	if (bpf_tc_detach(&hook, &opts))
		log_warn("Couldn't detach the TC program from '%s'",
			 if_indextoname(ifindex, name) ?: "?");
}

/* -------------------------------------- a device's egress to another one */

#define TC_EGRESS_HOOK(name, ifidx) \
	LIBBPF_OPTS(bpf_tc_hook, name, .ifindex = (int)(ifidx), .attach_point = BPF_TC_EGRESS)

/*
 * The program is four instructions, built here with to's ifindex as an
 * immediate: return bpf_redirect(to, 0). No object, no map, nothing to
 * pin: the filter holds the program, so it outlives the daemon (a crash or
 * SIGKILL leaves the host's frames flowing), and a restart replaces it.
 */
int tc_egress_redirect(uint32_t ifindex, uint32_t to, const char *ifname)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = (int32_t)to },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2, .imm = 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_redirect },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	TC_EGRESS_HOOK(hook, ifindex);
	TC_FILTER(opts);
	int fd, err;

	fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "xdpbr_hostout", "Dual BSD/GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), NULL);
	if (fd < 0) {
		log_warn("Couldn't load the egress program of '%s': %s", ifname, strerror(-fd));
		return fd;
	}
	err = bpf_tc_hook_create(&hook);
	if (!err || err == -EEXIST) {
		opts.prog_fd = fd;
		opts.flags = BPF_TC_F_REPLACE;
		err = bpf_tc_attach(&hook, &opts);
	}
	if (err)
		log_warn("Couldn't attach the egress program to '%s': %s", ifname, strerror(-err));
	close(fd);
	return err;
}

void tc_egress_del(uint32_t ifindex)
{
	TC_EGRESS_HOOK(hook, ifindex);
	TC_FILTER(opts);

	bpf_tc_detach(&hook, &opts);	/* none there: nothing to undo */
}

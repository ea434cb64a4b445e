// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hook.c - the hooks a port's datapath runs on, XDP and TC ingress (TCX
 * or clsact): what runs there, attaching and removing the loader's TC
 * program. libbpf only: nothing here knows the bridge.
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

/* Linux 6.6's, past what Debian 12's headers (libbpf 1.1) know. */
#define XDPBR_TCX_INGRESS	46	/* enum bpf_attach_type */
#define XDPBR_LINK_TYPE_TCX	11	/* enum bpf_link_type */

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

/* The clsact filter's program, or 0. */
static int clsact_query(uint32_t ifindex, uint32_t *prog_id)
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

/* Removes our clsact filter, if there. 0 or -errno. */
static int clsact_del(uint32_t ifindex)
{
	TC_HOOK(hook, ifindex);
	TC_FILTER(opts);
	uint32_t id;

	if (clsact_query(ifindex, &id) || !id)
		return 0;
	return bpf_tc_detach(&hook, &opts);
}

/* The programs on ifindex's TCX ingress, in the order they run: 0 and
 * *n, or -errno (-EINVAL: a kernel without TCX; -EPERM: no CAP_NET_ADMIN). */
static int tcx_query(uint32_t ifindex, uint32_t *ids, uint32_t *n)
{
	__u32 flags = 0;

	return bpf_prog_query((int)ifindex, XDPBR_TCX_INGRESS, 0, &flags, ids, n) ? -errno : 0;
}

int tc_query(uint32_t ifindex, uint32_t prefer, uint32_t *prog_id)
{
	uint32_t ids[16], n = 16;
	int tcx = tcx_query(ifindex, ids, &n), err;

	if (tcx)
		n = 0;
	for (uint32_t i = 0; i < n; i++)
		if (ids[i] == prefer) {
			*prog_id = prefer;
			return 0;
		}
	err = clsact_query(ifindex, prog_id);
	if (!err && !*prog_id && n)
		*prog_id = ids[n - 1];	/* ours is appended: the last */
	return !err && !*prog_id && tcx == -EPERM ? -EPERM : err;
}

/* The ifindex a TCX link is attached to; 0: detached (its device gone),
 * or not a TCX link. */
static uint32_t tcx_link_ifindex(int fd)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.type != XDPBR_LINK_TYPE_TCX)
		return 0;
	return info.xdp.ifindex;	/* tcx's ifindex is at the same place */
}

/*
 * TCX (Linux 6.6 on): prog_fd on ifindex's ingress by a BPF link pinned at
 * pin, replacing the program of the link already there atomically
 * (bpf_link_update). Unlike a clsact qdisc, which qdisc_graft() adds with
 * the device deactivated for an RCU grace period (what it sends then is
 * dropped: a frame a port when a running Linux bridge is taken over),
 * a TCX link touches no qdisc. The pin keeps it past the daemon. 0, or
 * -errno: -EOPNOTSUPP where the kernel has no TCX.
 */
static int tcx_attach(int prog_fd, uint32_t ifindex, const char *ifname, const char *pin)
{
	int fd = bpf_obj_get(pin);
	int err;

	if (fd >= 0 && tcx_link_ifindex(fd) == ifindex) {
		err = bpf_link_update(fd, prog_fd, NULL) ? -errno : 0;
		close(fd);
		if (err)
			log_warn("Couldn't replace the TC program of '%s': %s", ifname,
				 strerror(-err));
		return err;
	}
	if (fd >= 0) {
		close(fd);	/* a link whose device went: ifindex is another's now */
		unlink(pin);
	}
	fd = bpf_link_create(prog_fd, (int)ifindex, XDPBR_TCX_INGRESS, NULL);
	if (fd < 0)
		return errno == EINVAL ? -EOPNOTSUPP : -errno;
	err = bpf_obj_pin(fd, pin) ? -errno : 0;
	close(fd);		/* unpinned, that detaches it */
	if (err)
		log_warn("Couldn't pin the TC link of '%s' at %s: %s", ifname, pin,
			 strerror(-err));
	return err;
}

/*
 * Our program on the port's ingress: by a pinned TCX link where the kernel
 * has TCX and pin is given, else as a filter on its clsact ingress
 * (created if missing). What is there is replaced atomically (the link's
 * program; BPF_TC_F_REPLACE), so a restarted daemon replaces its
 * predecessor's program without a gap, like XDP_FLAGS_REPLACE; a filter of
 * an earlier build goes once the link runs (TCX runs first and decides).
 * Ports on the skb path run only this; XDP ports run it too, for the
 * frames their XDP program hands to the stack in a bridge of both kinds.
 */
int tc_attach(int prog_fd, uint32_t ifindex, const char *ifname, const char *pin)
{
	TC_HOOK(hook, ifindex);
	TC_FILTER(opts);
	int err;

	if (prog_fd < 0)
		return -ENOENT;
	err = pin ? tcx_attach(prog_fd, ifindex, ifname, pin) : -EOPNOTSUPP;
	if (!err) {
		clsact_del(ifindex);	/* an earlier build's filter */
		return 0;
	}
	if (err != -EOPNOTSUPP)
		log_warn("Couldn't attach the TC program to '%s' by TCX: %s; by clsact",
			 ifname, strerror(-err));
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

/* Removes the loader's program from ifindex's ingress: the link pinned at
 * pin (detached, unpinned), and the filter with handle and priority
 * XDPBR_TC_* on its clsact ingress; that qdisc stays (other filters may
 * use it). */
void tc_filter_del(uint32_t ifindex, const char *pin)
{
	char name[IF_NAMESIZE] = "?";
	int fd = pin ? bpf_obj_get(pin) : -1;

	if (fd >= 0) {
		if (tcx_link_ifindex(fd) && bpf_link_detach(fd))
			log_warn("Couldn't detach the TC link from '%s': %s",
				 if_indextoname(ifindex, name) ?: "?", strerror(errno));
		close(fd);
		unlink(pin);
	}
	if (clsact_del(ifindex))
		log_warn("Couldn't detach the TC program from '%s'",
			 if_indextoname(ifindex, name) ?: "?");
}

/* -------------------------------------- a device's egress to another one */

#define TC_EGRESS_HOOK(name, ifidx) \
	LIBBPF_OPTS(bpf_tc_hook, name, .ifindex = (int)(ifidx), .attach_point = BPF_TC_EGRESS)

/* The instructions of the programs built here. The packet loads are
 * classic ones (LD_ABS, LD_IND: R6 the skb, the byte at the offset in R0,
 * and a load past the frame's end returns 0 from the program, TC_ACT_OK). */
#define I_LD_B(off)	{ .code = BPF_LD | BPF_ABS | BPF_B, .imm = (off) }
#define I_LD_H(off)	{ .code = BPF_LD | BPF_ABS | BPF_H, .imm = (off) }
#define I_LD_IND_B(reg, off) \
	{ .code = BPF_LD | BPF_IND | BPF_B, .src_reg = (reg), .imm = (off) }
#define I_MOV(dst, k)	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = (dst), .imm = (k) }
#define I_MOVX(dst, src) \
	{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = (dst), .src_reg = (src) }
#define I_ALU(op, dst, k) { .code = BPF_ALU64 | (op) | BPF_K, .dst_reg = (dst), .imm = (k) }
#define I_ADDX(dst, src) \
	{ .code = BPF_ALU64 | BPF_ADD | BPF_X, .dst_reg = (dst), .src_reg = (src) }
#define I_JEQ(k, to)	{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0, .imm = (k), \
			  .off = (to) }
#define I_JNE(reg, k, to) \
	{ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = (reg), .imm = (k), .off = (to) }
#define I_JA(to)	{ .code = BPF_JMP | BPF_JA, .off = (to) }
#define I_CALL(fn)	{ .code = BPF_JMP | BPF_CALL, .imm = (fn) }
#define I_EXIT		{ .code = BPF_JMP | BPF_EXIT }

/* The program of n insns, named name, as our filter on hook (its clsact
 * made if missing), replacing one there; where says which ("egress"). */
static int tc_insns_attach(struct bpf_tc_hook *hook, const struct bpf_insn *insns, size_t n,
			   const char *name, const char *where, const char *ifname)
{
	TC_FILTER(opts);
	int fd, err;

	fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, name, "Dual BSD/GPL", insns, n, NULL);
	if (fd < 0) {
		log_warn("Couldn't load the %s program of '%s': %s", where, ifname, strerror(-fd));
		return fd;
	}
	err = bpf_tc_hook_create(hook);
	if (!err || err == -EEXIST) {
		opts.prog_fd = fd;
		opts.flags = BPF_TC_F_REPLACE;
		err = bpf_tc_attach(hook, &opts);
	}
	if (err)
		log_warn("Couldn't attach the %s program to '%s': %s", where, ifname,
			 strerror(-err));
	close(fd);
	return err;
}

/*
 * The program is four instructions, built here with to's ifindex as an
 * immediate: return bpf_redirect(to, 0). No object, no map, nothing to
 * pin: the filter holds the program, so it outlives the daemon (a crash or
 * SIGKILL leaves the host's frames flowing), and a restart replaces it.
 */
int tc_egress_redirect(uint32_t ifindex, uint32_t to, const char *ifname)
{
	const struct bpf_insn insns[] = {
		I_MOV(BPF_REG_1, (int32_t)to),
		I_MOV(BPF_REG_2, 0),
		I_CALL(BPF_FUNC_redirect),
		I_EXIT,
	};
	TC_EGRESS_HOOK(hook, ifindex);

	return tc_insns_attach(&hook, insns, sizeof(insns) / sizeof(insns[0]), "xdpbr_hostout",
			       "egress", ifname);
}

/* ------------------------------- reports on the device's end, to its stack */

/*
 * IGMP and MLD reports (membership reports, leaves, dones) arriving on the
 * device's end of the pair, host's copies of what xdpbr floods, go to the
 * device's own ingress: its stack receives them as the kernel bridge
 * would deliver them, but the kernel bridge does not snoop them a second
 * time, as reports of a member behind that port. It snoops each report
 * once, on the port it came in on (the datapath hands it over there);
 * a second set of entries on the device's end outlived a "bridge mdb del
 * ... port P" of the first (doc/selftests.md, bridge_igmp.sh). Queries go
 * on through the bridge: the host answers them, and the kernel's view of
 * the other querier stays its own. Built here with to's ifindex as an
 * immediate, as tc_egress_redirect's: the filter holds it, past a crash.
 */
int tc_ingress_reports_to(uint32_t ifindex, uint32_t to, const char *ifname)
{
	enum { ETH = 14, IP6 = ETH + 40, BR = 33 };	/* BR: the redirect, below */
	const struct bpf_insn insns[] = {
		/* 0 */  I_MOVX(BPF_REG_6, BPF_REG_1),
		/* 1 */  I_LD_H(12),			/* ethertype (a tag is off already) */
		/* 2 */  I_JEQ(0x0800, 6 - 3),
		/* 3 */  I_JEQ(0x86dd, 18 - 4),
		/* 4 */  I_MOV(BPF_REG_0, 0),		/* anything else: TC_ACT_OK */
		/* 5 */  I_EXIT,
		/* 6 */  I_LD_B(ETH + 9),		/* IPv4: its protocol */
		/* 7 */  I_JNE(BPF_REG_0, 2, 4 - 8),	/* not IGMP */
		/* 8 */  I_LD_B(ETH),			/* version and IHL */
		/* 9 */  I_ALU(BPF_AND, BPF_REG_0, 0xf),
		/* 10 */ I_ALU(BPF_LSH, BPF_REG_0, 2),
		/* 11 */ I_MOVX(BPF_REG_7, BPF_REG_0),
		/* 12 */ I_LD_IND_B(BPF_REG_7, ETH),	/* the IGMP type */
		/* 13 */ I_JEQ(0x12, BR - 14),		/* v1 report */
		/* 14 */ I_JEQ(0x16, BR - 15),		/* v2 report */
		/* 15 */ I_JEQ(0x17, BR - 16),		/* leave */
		/* 16 */ I_JEQ(0x22, BR - 17),		/* v3 report */
		/* 17 */ I_JA(4 - 18),			/* a query, or other IGMP */
		/* 18 */ I_MOV(BPF_REG_7, IP6),	/* IPv6: R7 the next header's offset */
		/* 19 */ I_LD_B(ETH + 6),		/* next header */
		/* 20 */ I_JEQ(58, 28 - 21),		/* ICMPv6 */
		/* 21 */ I_JNE(BPF_REG_0, 0, 4 - 22),	/* not hop-by-hop (MLD's router alert) */
		/* 22 */ I_LD_B(IP6 + 1),		/* hop-by-hop: its length */
		/* 23 */ I_ALU(BPF_ADD, BPF_REG_0, 1),
		/* 24 */ I_ALU(BPF_LSH, BPF_REG_0, 3),
		/* 25 */ I_ADDX(BPF_REG_7, BPF_REG_0),
		/* 26 */ I_LD_B(IP6),			/* ... and what follows it */
		/* 27 */ I_JNE(BPF_REG_0, 58, 4 - 28),
		/* 28 */ I_LD_IND_B(BPF_REG_7, 0),	/* the ICMPv6 type */
		/* 29 */ I_JEQ(131, BR - 30),		/* MLDv1 report */
		/* 30 */ I_JEQ(132, BR - 31),		/* done */
		/* 31 */ I_JEQ(143, BR - 32),		/* MLDv2 report */
		/* 32 */ I_JA(4 - 33),			/* a query, or other ICMPv6 */
		/* 33 */ I_MOV(BPF_REG_1, (int32_t)to),	/* BR: to the device's ingress */
		/* 34 */ I_MOV(BPF_REG_2, BPF_F_INGRESS),
		/* 35 */ I_CALL(BPF_FUNC_redirect),
		/* 36 */ I_EXIT,
	};
	TC_HOOK(hook, ifindex);

	return tc_insns_attach(&hook, insns, sizeof(insns) / sizeof(insns[0]), "xdpbr_hostin",
			       "ingress", ifname);
}

void tc_egress_del(uint32_t ifindex)
{
	TC_EGRESS_HOOK(hook, ifindex);
	TC_FILTER(opts);

	bpf_tc_detach(&hook, &opts);	/* none there: nothing to undo */
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * harness.c - the real datapath under BPF_PROG_RUN: loading it, writing and
 * reading its maps, building frames and running them (harness.h).
 */
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpbr.skel.h"
#include "bridge.h"
#include "harness.h"

struct xdpbr *dp_skel;
int dp_ncpus;

#define CNT_NAME(e, name) [XDPBR_CNT_##e] = name,
const char *const dp_cnt_names[XDPBR_CNT__MAX] = {
	XDPBR_COUNTERS(CNT_NAME)
};
#undef CNT_NAME

/* ------------------------------------------------------------------------ */
/* Setup                                                                     */

/* Each port and its peer: a live frame that the kernel will not take from
 * BPF_PROG_RUN is sent into the port through its peer instead. */
#define MAX_VETHS 8
static struct {
	unsigned int ifindex, peer;
	struct bpf_link *xdp;		/* xdpbr_rx on it, once it took a live frame */
} veths[MAX_VETHS];
static int n_veths;

int dp_netns(const char *const *names, const char *const *peers,
	     unsigned int *ifindex, int n)
{
	char cmd[256];

	if (n > MAX_VETHS)
		return -E2BIG;
	if (unshare(CLONE_NEWNET))
		return -errno;
	/* No IPv6 on the veths: their DAD and MLD frames would reach a port
	 * running xdpbr_rx for real (see dp_prog_run_live) in mid-case. */
	if (system("ip link set dev lo up && "
		   "sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
		   "net.ipv6.conf.default.disable_ipv6=1"))
		return -EIO;
	for (int i = 0; i < n; i++) {
		/* GRO on the peer: a veth takes redirected frames (is a
		 * valid devmap destination) only when its peer runs NAPI */
		snprintf(cmd, sizeof(cmd),
			 "ip link add %s type veth peer name %s && "
			 "ip link set dev %s up && ip link set dev %s up && "
			 "ethtool -K %s gro on >/dev/null",
			 names[i], peers[i], names[i], peers[i], peers[i]);
		if (system(cmd))
			return -EIO;
		ifindex[i] = if_nametoindex(names[i]);
		veths[i].ifindex = ifindex[i];
		veths[i].peer = if_nametoindex(peers[i]);
		if (!ifindex[i] || !veths[i].peer)
			return -ENODEV;
	}
	n_veths = n;
	return 0;
}

int dp_load(const char *pin_root)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = pin_root);
	struct bpf_map *map;
	int err;

	dp_skel = xdpbr__open_opts(&oo);
	if (!dp_skel)
		return -errno;
	/* No pins: this instance lives and dies with the process. */
	if (!pin_root) {
		bpf_object__for_each_map(map, dp_skel->obj) {
			err = bpf_map__set_pin_path(map, NULL);
			if (err)
				return err;
		}
	}
	/* The FDB cache for every CPU, as the loader lays it out, with the
	 * object's default sets: the object itself covers the first few CPUs
	 * only, and a case on another CPU would find no cache. */
	dp_ncpus = libbpf_num_possible_cpus();
	if (dp_ncpus <= 0)
		return dp_ncpus ? dp_ncpus : -EINVAL;
	err = bridge_skel_fdbc(dp_skel, dp_skel->rodata->fdbc_bits);
	if (err)
		return err;
	return xdpbr__load(dp_skel);
}

void dp_unload(void)
{
	for (int i = 0; i < n_veths; i++) {
		bpf_link__destroy(veths[i].xdp);
		veths[i].xdp = NULL;
	}
	xdpbr__destroy(dp_skel);
	dp_skel = NULL;
}

/* ------------------------------------------------------------------------ */
/* Time and names                                                            */

static __u64 clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (__u64)ts.tv_sec * XDPBR_NSEC_PER_SEC + (__u64)ts.tv_nsec;
}

__u64 dp_coarse_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC_COARSE);
}

__u64 dp_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

const char *dp_mac_str(const __u8 *m, char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x",
		 m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}

const char *dp_verdict_name(__u32 v)
{
	static const char *const names[] = {
		[XDP_ABORTED] = "XDP_ABORTED", [XDP_DROP] = "XDP_DROP",
		[XDP_PASS] = "XDP_PASS", [XDP_TX] = "XDP_TX",
		[XDP_REDIRECT] = "XDP_REDIRECT",
	};

	return v < ARRAY_SIZE(names) ? names[v] : "XDP_?";
}

/* ------------------------------------------------------------------------ */
/* Frames                                                                    */

static void put_be16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

size_t dp_build_frame(__u8 *buf, size_t size, const __u8 *dst, const __u8 *src,
		      const struct vlan_tag *tags, __u16 ethertype, size_t payload_len)
{
	size_t i, ntags = 0, off = 2 * ETH_ALEN;

	while (ntags < MAX_TAGS && tags[ntags].tpid)
		ntags++;
	if (off + 4 * ntags + 2 + payload_len > size)
		return 0;
	memcpy(buf, dst, ETH_ALEN);
	memcpy(buf + ETH_ALEN, src, ETH_ALEN);
	for (i = 0; i < ntags; i++, off += 4) {
		put_be16(buf + off, tags[i].tpid);
		put_be16(buf + off + 2, tags[i].tci);
	}
	put_be16(buf + off, ethertype);
	off += 2;
	for (i = 0; i < payload_len; i++)
		buf[off + i] = (__u8)i;
	return off + payload_len;
}

/* So that a mistake in the builder cannot hide in cases that compare its
 * output with its output. */
bool dp_build_frame_selftest(void)
{
	static const __u8 want[] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x0b,	/* dst */
		0x02, 0x00, 0x00, 0x00, 0x00, 0x0a,	/* src */
		0x88, 0xa8, 0x00, 0x64,			/* S-tag, VID 100 */
		0x81, 0x00, 0xa0, 0x0a,			/* C-tag, PCP 5, VID 10 */
		0x08, 0x00,				/* IPv4 */
		0x00, 0x01, 0x02,			/* payload */
	};
	static const __u8 dst[] = MAC(02, 00, 00, 00, 00, 0b);
	static const __u8 src[] = MAC(02, 00, 00, 00, 00, 0a);
	static const struct vlan_tag tags[MAX_TAGS] = {
		STAG(100), TAG(PCP(5) | 10),
	};
	__u8 buf[64];
	size_t len;

	len = dp_build_frame(buf, sizeof(buf), dst, src, tags, ETH_P_IP, 3);
	return len == sizeof(want) && !memcmp(buf, want, len);
}

int dp_prog_run(__u32 ifindex, const __u8 *frame, size_t len, __u8 *out,
		size_t out_size, __u32 *out_len, __u32 *verdict)
{
	struct xdp_md ctx = {
		.data = 0,			/* no metadata */
		.data_end = (__u32)len,
		.ingress_ifindex = ifindex,
		.rx_queue_index = 0,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = frame,
		.data_size_in = (__u32)len,
		.data_out = out,
		.data_size_out = (__u32)out_size,
		.ctx_in = &ctx,
		.ctx_size_in = sizeof(ctx),
		.repeat = 1,
	);

	if (bpf_prog_test_run_opts(bpf_program__fd(dp_skel->progs.xdpbr_rx), &opts))
		return -errno;
	*verdict = opts.retval;
	*out_len = opts.data_size_out;
	return 0;
}

/* Live frames where the kernel refuses them to BPF_PROG_RUN (EPERM, in some
 * sandboxes whatever the capabilities): xdpbr_rx attached to the port in
 * native mode, the frame sent through the port's peer with AF_PACKET. The
 * port's NAPI runs the program in softirq, so wait until the counters have
 * moved and then stood still: every copy has been through its egress
 * program by then. */
static int run_through_peer(__u32 ifindex, const __u8 *frame, size_t len)
{
	static __u64 before[XDPBR_MAX_PORTS][XDPBR_CNT__MAX];
	static __u64 now[XDPBR_MAX_PORTS][XDPBR_CNT__MAX];
	static __u64 last[XDPBR_MAX_PORTS][XDPBR_CNT__MAX];
	struct timespec tick = { .tv_nsec = 5 * 1000 * 1000 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	int i, s, err, still = 0;

	for (i = 0; i < n_veths && veths[i].ifindex != ifindex; i++)
		;
	if (i == n_veths)
		return -ENODEV;
	if (!veths[i].xdp) {
		veths[i].xdp = bpf_program__attach_xdp(dp_skel->progs.xdpbr_rx, (int)ifindex);
		if (!veths[i].xdp)
			return -errno;
	}
	sll.sll_ifindex = (int)veths[i].peer;
	err = dp_stats_read(before);
	if (err)
		return err;
	s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (sendto(s, frame, len, 0, (struct sockaddr *)&sll, sizeof(sll)) != (ssize_t)len) {
		err = -errno;
		close(s);
		return err;
	}
	close(s);
	memcpy(last, before, sizeof(last));
	for (int waited = 0; waited < 200 && still < 4; waited++) {
		nanosleep(&tick, NULL);
		err = dp_stats_read(now);
		if (err)
			return err;
		if (memcmp(now, before, sizeof(now)) && !memcmp(now, last, sizeof(now)))
			still++;
		else
			still = 0;
		memcpy(last, now, sizeof(last));
	}
	return still < 4 ? -ETIMEDOUT : 0;
}

int dp_prog_run_live(__u32 ifindex, const __u8 *frame, size_t len)
{
	static bool refused;
	struct xdp_md ctx = {
		.data = 0,
		.data_end = (__u32)len,
		.ingress_ifindex = ifindex,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = frame,
		.data_size_in = (__u32)len,
		.ctx_in = &ctx,
		.ctx_size_in = sizeof(ctx),
		.repeat = 1,
		.flags = BPF_F_TEST_XDP_LIVE_FRAMES,
	);

	if (!refused) {
		if (!bpf_prog_test_run_opts(bpf_program__fd(dp_skel->progs.xdpbr_rx), &opts))
			return 0;
		if (errno != EPERM)
			return -errno;
		refused = true;
		fprintf(stderr, "# live frames refused by BPF_PROG_RUN (EPERM): "
			"live cases run xdpbr_rx attached, fed through the peer veth\n");
	}
	return run_through_peer(ifindex, frame, len);
}

/* ------------------------------------------------------------------------ */
/* Maps                                                                      */

int dp_stats_read(__u64 out[XDPBR_MAX_PORTS][XDPBR_CNT__MAX])
{
	static struct xdpbr_stats *buf;		/* every slot on every CPU */
	__u32 keys[XDPBR_MAX_PORTS], count = XDPBR_MAX_PORTS, next = 0;
	int err;

	if (!buf)
		buf = calloc((size_t)XDPBR_MAX_PORTS * (size_t)dp_ncpus, sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	err = bpf_map_lookup_batch(bpf_map__fd(dp_skel->maps.xdpbr_stats), NULL, &next,
				   keys, buf, &count, NULL);
	if (err && err != -ENOENT)
		return err;
	if (count != XDPBR_MAX_PORTS)
		return -EIO;
	for (__u32 i = 0; i < count; i++) {
		if (keys[i] >= XDPBR_MAX_PORTS)
			return -EIO;
		for (int c = 0; c < XDPBR_CNT__MAX; c++) {
			__u64 sum = 0;

			for (int cpu = 0; cpu < dp_ncpus; cpu++)
				sum += buf[(size_t)i * (size_t)dp_ncpus + (size_t)cpu].c[c];
			out[keys[i]][c] = sum;
		}
	}
	return 0;
}

int dp_learned_read(__u64 out[XDPBR_MAX_PORTS])
{
	__u32 keys[XDPBR_MAX_PORTS], count = XDPBR_MAX_PORTS, next = 0;
	int err;

	err = bpf_map_lookup_batch(bpf_map__fd(dp_skel->maps.xdpbr_learned), NULL, &next,
				   keys, out, &count, NULL);
	if (err && err != -ENOENT)
		return err;
	if (count != XDPBR_MAX_PORTS)
		return -EIO;
	for (__u32 i = 0; i < count; i++)
		if (keys[i] != i)
			return -EIO;		/* out of order */
	return 0;
}

int dp_learned_set(__u32 slot, __u64 n)
{
	return bpf_map__update_elem(dp_skel->maps.xdpbr_learned, &slot,
				    sizeof(slot), &n, sizeof(n), 0);
}

int dp_learned_user_set(__u32 slot, __u64 n)
{
	return bpf_map__update_elem(dp_skel->maps.xdpbr_learned_user, &slot,
				    sizeof(slot), &n, sizeof(n), 0);
}

struct xdpbr_fdb_key dp_fdb_key(const __u8 *mac, __u16 vlan)
{
	struct xdpbr_fdb_key k = { .vlan = vlan };

	memcpy(k.mac, mac, ETH_ALEN);
	return k;
}

int dp_fdb_get(const __u8 *mac, __u16 vlan, struct xdpbr_fdb_val *v)
{
	struct xdpbr_fdb_key k = dp_fdb_key(mac, vlan);
	int err;

	err = bpf_map__lookup_elem(dp_skel->maps.xdpbr_fdb, &k, sizeof(k),
				   v, sizeof(*v), 0);
	if (err == -ENOENT)
		return 0;
	return err ? err : 1;
}

int dp_fdb_flush(void)
{
	struct xdpbr_fdb_key k;
	int err;

	while (!bpf_map__get_next_key(dp_skel->maps.xdpbr_fdb, NULL, &k,
				      sizeof(k))) {
		err = bpf_map__delete_elem(dp_skel->maps.xdpbr_fdb, &k,
					   sizeof(k), 0);
		if (err)
			return err;
	}
	return 0;
}

static void vid_set(__u64 *bits, __u16 vid)
{
	bits[vid / 64] |= 1ULL << (vid % 64);
}

int dp_vlans_set(__u32 slot, const __u16 *tagged, size_t ntagged,
		 const __u16 *untagged, size_t nuntagged)
{
	struct xdpbr_vlan_port v;
	size_t i;

	memset(&v, 0, sizeof(v));
	for (i = 0; tagged && i < ntagged && tagged[i]; i++)
		vid_set(v.member, tagged[i]);
	for (i = 0; untagged && i < nuntagged && untagged[i]; i++) {
		vid_set(v.member, untagged[i]);
		vid_set(v.untagged, untagged[i]);
	}
	return bpf_map__update_elem(dp_skel->maps.xdpbr_vlans, &slot, sizeof(slot),
				    &v, sizeof(v), 0);
}

int dp_storm_set(__u32 slot, const __u32 *pps_cpu)
{
	struct xdpbr_storm st;
	int c;

	memset(&st, 0, sizeof(st));
	for (c = 0; pps_cpu && c < XDPBR_STORM__MAX; c++) {
		st.pps_cpu[c] = pps_cpu[c];
		st.pps[c] = pps_cpu[c] * (__u32)dp_ncpus;
	}
	return bpf_map__update_elem(dp_skel->maps.xdpbr_storm, &slot, sizeof(slot),
				    &st, sizeof(st), 0);
}

int dp_buckets_set(__u32 slot, const struct xdpbr_storm_bucket *b)
{
	static struct xdpbr_storm_bucket *v;	/* one for each CPU */
	int cpu;

	if (!v)
		v = calloc((size_t)dp_ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (cpu = 0; cpu < dp_ncpus; cpu++) {
		if (b)
			v[cpu] = *b;
		else
			memset(&v[cpu], 0, sizeof(v[cpu]));
	}
	return bpf_map__update_elem(dp_skel->maps.xdpbr_storm_state, &slot, sizeof(slot),
				    v, sizeof(*v) * (size_t)dp_ncpus, 0);
}

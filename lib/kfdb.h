/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_KFDB_H
#define XDPBR_KFDB_H

/*
 * kfdb - the kernel bridge's FDB over rtnetlink (AF_BRIDGE neighbours):
 * what `bridge fdb add|del|show` and `bridge monitor fdb` do, for the FDB
 * mirror between xdpbr and FRR's zebra (daemon/evpn.c).
 */
#include <stdbool.h>
#include <stdint.h>

struct kfdb_entry {
	uint32_t ifindex;		/* the bridge port (or vxlan device) */
	uint32_t master;		/* its bridge (NDA_MASTER), 0 if not said */
	uint8_t mac[6];
	uint16_t vlan;			/* NDA_VLAN, 0 if not said */
	uint8_t flags;			/* NTF_* (NTF_EXT_LEARNED, NTF_MASTER, ...) */
	uint16_t state;			/* NUD_* */
	bool deleted;			/* an RTM_DELNEIGH */
};

typedef void (*kfdb_cb)(const struct kfdb_entry *e, void *arg);

/* Adds (add) or deletes an extern_learn entry for mac on ifindex, a port
 * of a kernel bridge (`bridge fdb add MAC dev PORT master extern_learn`):
 * the kernel never ages it, and zebra takes it for a local MAC. A delete
 * of an entry that is not there is 0. 0 or -errno. */
int kfdb_set(uint32_t ifindex, const uint8_t mac[6], bool add);

/* Every AF_BRIDGE FDB entry of the namespace, to cb. 0 or -errno. */
int kfdb_dump(kfdb_cb cb, void *arg);

/*
 * A dump read a bounded part at a time (the kernel makes each part when
 * the one before has been read, so nothing waits or overflows meanwhile):
 * kfdb_dump_start asks for the entries of kernel bridge master (0: all),
 * kfdb_dump_step hands at most reads reads' worth to cb and returns 1
 * when the dump is complete (its socket closed), 0 when it goes on, or
 * -errno (closed too). kfdb_dump_stop drops one under way. A read costs
 * the kernel a walk of the bridge's table up to where the last ended
 * (net/bridge/br_fdb.c skips what it dumped before): a whole dump of N
 * entries costs about N * N / 800 entries walked (400 a read).
 */
struct kfdb_dump {
	struct mnl_socket *nl;		/* NULL: none under way */
	unsigned int seq, portid;
};
int kfdb_dump_start(struct kfdb_dump *d, uint32_t master);
int kfdb_dump_step(struct kfdb_dump *d, kfdb_cb cb, void *arg, unsigned int reads);
void kfdb_dump_stop(struct kfdb_dump *d);

/*
 * kfdb_set's requests on one socket kept open, queued and sent together
 * (one sendmsg, which the kernel works through before it returns), with no
 * acks: the kernel answers only the ones that failed, read back by
 * kfdb_writer_errors.
 */
#define KFDB_BATCH	512		/* requests sent at once, at most */
#define KFDB_MSG_MAX	64		/* bytes a request takes, at most */
struct kfdb_writer {
	struct mnl_socket *nl;
	unsigned int n, seq;
	size_t len;
	char buf[KFDB_BATCH * KFDB_MSG_MAX];
};
/* 0 or -errno. */
int kfdb_writer_open(struct kfdb_writer *w);
void kfdb_writer_close(struct kfdb_writer *w);
/* Queues kfdb_set(ifindex, mac, add): 0, or -ENOSPC when KFDB_BATCH are
 * queued (flush first). */
int kfdb_put(struct kfdb_writer *w, uint32_t ifindex, const uint8_t mac[6], bool add);
/* What kfdb_put_kind adds: `extern_learn` (kfdb_put's), `static`, `static
 * sticky` (the kernel keeps extern_learn on a replace and ignores static
 * and sticky on an extern_learn add: a change of kind is a delete first). */
enum kfdb_kind { KFDB_EXTERN, KFDB_STATIC, KFDB_STICKY };
int kfdb_put_kind(struct kfdb_writer *w, uint32_t ifindex, const uint8_t mac[6],
		  enum kfdb_kind kind);
/* Either, in VLAN vlan (NDA_VLAN; 0: none said): add with kind, or delete. */
int kfdb_put_vlan(struct kfdb_writer *w, uint32_t ifindex, const uint8_t mac[6], uint16_t vlan,
		  bool add, enum kfdb_kind kind);
/* Sends what is queued. 0 or -errno (then none of it was done). */
int kfdb_flush(struct kfdb_writer *w);
/* The requests the kernel refused, from at most reads reads: cb(the
 * request, as an entry whose deleted says it was a delete; the -errno).
 * A delete of an entry that is not there is no failure. 0 or -errno
 * (-ENOBUFS: some answers were lost). */
typedef void (*kfdb_err_cb)(const struct kfdb_entry *req, int err, void *arg);
int kfdb_writer_errors(struct kfdb_writer *w, kfdb_err_cb cb, void *arg, unsigned int reads);

/* A non-blocking socket subscribed to neighbour events (RTNLGRP_NEIGH),
 * its receive buffer enlarged for bursts; NULL with errno on failure.
 * kfdb_watch_read hands the AF_BRIDGE ones of at most reads notifications
 * to cb: 0 when none is left, 1 when more may be, or -ENOBUFS (some were
 * lost: dump again), -errno. */
struct mnl_socket;
struct mnl_socket *kfdb_watch_open(void);
int kfdb_watch_read(struct mnl_socket *nl, kfdb_cb cb, void *arg, unsigned int reads);

#endif

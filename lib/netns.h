/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_NETNS_H
#define XDPBR_NETNS_H

/*
 * netns - the pins of other network namespaces (lib/paths.h): how a
 * namespace's directory proves its namespace alive, and the removal of
 * those whose namespace is gone.
 *
 * Proof of life: each namespace's directory holds a pinned BPF link
 * (NETNS_LIFE_LINK) attaching a program that does nothing (SK_PASS) to the
 * namespace's sk_lookup hook. Such a link holds no reference to its
 * namespace: the kernel detaches it when the namespace dies, and from then
 * on its info says netns_ino 0 (kernel/bpf/net_namespace.c). So a link that
 * names an inode proves the namespace alive, whoever keeps it (a process
 * we can't see, a bind mount in another mount namespace, an open fd); one
 * that names none proves it dead. A directory without the link (the kernel
 * refused it, a process is making it right now, the layout before cookies)
 * proves nothing and is never removed.
 *
 * The pins of a dead namespace are removed by the next netns_collect(),
 * which xdpbrd runs at start and `xdpbr bridge show|add` before they work,
 * in whatever namespace they run; a bridge whose directory lock is held
 * (by a process, so not a dead namespace's) is left alone.
 */
#include "paths.h"

#define NETNS_LIFE_LINK		"netns_proof_of_life"	/* not a bridge name: >15 */

/* Pins the proof of life in our namespace's pin directory, if keyed and
 * not there yet (the directory exists). Needs CAP_BPF and CAP_NET_ADMIN.
 * A failure is logged: the bridge works, but its pins will not be
 * removed when the namespace goes. */
void netns_mark(const struct xdpbr_paths *p);

/* Removes our pin directory if no bridge is left in it (its proof of life
 * with it), then the namespaces' directory if that is empty. */
void netns_root_remove(const struct xdpbr_paths *p);

/*
 * Removes the pins and socket directories of every namespace proven dead;
 * moves pins of the inode layout (PATHS_NETNS_DIR/INODE/BRIDGE) into our
 * directory when INODE is our namespace's and the bridge provably ours (a
 * device here runs a program that uses its FDB) and reports the rest
 * (warn). The number of namespaces removed, or -errno (no paths).
 */
int netns_collect(void);

#endif

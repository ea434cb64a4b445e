/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_LOCK_H
#define XDPBR_LOCK_H

/*
 * lock - exclusive flock(2)s on directories, for two rules:
 *
 *   one daemon per bridge    the bridge's pin directory, taken without
 *                            waiting when the bridge is opened and held
 *                            for the process's life (lib/bridge.c)
 *   one slot claim at once   the directory of the bridges' pin
 *                            directories (the pin root), held while a new
 *                            port's slot is chosen and written, by the
 *                            daemon and the CLI alike
 *
 * A flock belongs to the open file: it ends when its descriptor is closed,
 * so when its process ends, however (SIGKILL included). A lock left by a
 * dead process can't exist, and nothing has to be cleaned up.
 */
#include <stdbool.h>
#include <sys/types.h>

/* Takes an exclusive flock on directory dir without waiting. 0 and *fd
 * (close-on-exec) on success; -EBUSY when another open file holds it, with
 * *holder the pid that took it (/proc/locks; 0 if not found); or -errno.
 * The lock is on the directory the path names when it returns (one removed
 * and made again meanwhile is looked up afresh). */
int lock_dir(const char *dir, int *fd, pid_t *holder);

/* The same, waiting up to wait_ms for the holder to let go (-EBUSY after
 * that). */
int lock_dir_wait(const char *dir, unsigned int wait_ms, int *fd, pid_t *holder);

/* Lets go of a lock (closes *fd, sets it to -1); -1 is left alone. */
void lock_release(int *fd);

/* Whether fd is still the lock of directory dir: the path names the same
 * directory (not one removed and made again since). */
bool lock_is_on(int fd, const char *dir);

/* The pid that holds a flock on the file of fd, from /proc/locks (in our
 * pid namespace); 0 when none is found. */
pid_t lock_holder(int fd);

#endif

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* lock.c - exclusive flocks on directories (see lock.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "lock.h"

#define LOCK_TRIES	3	/* the directory replaced under us this often */
#define LOCK_POLL_MS	10

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

bool lock_is_on(int fd, const char *dir)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(dir, &b) && same_file(&a, &b);
}

pid_t lock_holder(int fd)
{
	unsigned int maj, min;
	unsigned long ino;
	char line[256], type[16];
	struct stat st;
	pid_t pid = 0;
	int p;
	FILE *f;

	if (fstat(fd, &st))
		return 0;
	f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 00:1f:5678 0 EOF"; waiters have
	 * "->" before the type and don't match. */
	while (!pid && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu", type, &p, &maj, &min,
			   &ino) == 5 &&
		    !strcmp(type, "FLOCK") && maj == major(st.st_dev) &&
		    min == minor(st.st_dev) && ino == st.st_ino && p > 0)
			pid = p;
	fclose(f);
	return pid;
}

/* One try: 0 locked, -EBUSY held elsewhere, -EAGAIN dir was replaced. */
static int lock_once(const char *dir, int *fd, pid_t *holder)
{
	int f = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (f < 0)
		return -errno;
	if (flock(f, LOCK_EX | LOCK_NB)) {
		int err = errno == EWOULDBLOCK ? -EBUSY : -errno;

		if (holder)
			*holder = err == -EBUSY ? lock_holder(f) : 0;
		close(f);
		return err;
	}
	if (!lock_is_on(f, dir)) {
		close(f);
		return -EAGAIN;
	}
	*fd = f;
	return 0;
}

int lock_dir(const char *dir, int *fd, pid_t *holder)
{
	int err = -EAGAIN;

	for (int i = 0; i < LOCK_TRIES && err == -EAGAIN; i++)
		err = lock_once(dir, fd, holder);
	return err;
}

int lock_dir_wait(const char *dir, unsigned int wait_ms, int *fd, pid_t *holder)
{
	const struct timespec poll = { .tv_nsec = LOCK_POLL_MS * 1000000L };
	int err = lock_dir(dir, fd, holder);

	for (unsigned int ms = 0; err == -EBUSY && ms < wait_ms; ms += LOCK_POLL_MS) {
		nanosleep(&poll, NULL);
		err = lock_dir(dir, fd, holder);
	}
	return err;
}

void lock_release(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

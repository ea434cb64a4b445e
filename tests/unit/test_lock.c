// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_lock.c - lib/lock.c: exclusive flocks on directories, on a
 * directory of its own under /tmp (no root needed). Another lock of the
 * same process is another open file, so it conflicts like another
 * process's would. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "lock.h"

static int setup(void **state)
{
	static char dir[] = "/tmp/xdpbr-test_lock.XXXXXX";

	strcpy(dir, "/tmp/xdpbr-test_lock.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	rmdir(*state);
	return 0;
}

/* A child that takes the lock on dir, tells through a pipe, and waits to
 * be killed. Its pid. */
static pid_t child_holding(const char *dir)
{
	int p[2], fd = -1;
	char c = 0;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		c = lock_dir(dir, &fd, NULL) ? 'n' : 'y';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	assert_int_equal(c, 'y');
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* One holder at a time; the other is told who holds it. */
static void test_exclusive(void **state)
{
	const char *dir = *state;
	int a = -1, b = -1;
	pid_t holder = -1;

	assert_int_equal(lock_dir(dir, &a, NULL), 0);
	assert_true(a >= 0);
	assert_true(lock_is_on(a, dir));
	assert_int_equal(lock_dir(dir, &b, &holder), -EBUSY);
	assert_int_equal(b, -1);
	assert_int_equal(holder, getpid());
	assert_int_equal(lock_holder(a), getpid());
	lock_release(&a);
	assert_int_equal(a, -1);
	lock_release(&a);		/* -1: nothing */
	assert_int_equal(lock_dir(dir, &b, NULL), 0);
	lock_release(&b);
}

/* Another process's lock names that process; SIGKILLed, it leaves no
 * stale lock behind. */
static void test_killed_holder(void **state)
{
	const char *dir = *state;
	pid_t child = child_holding(dir), holder = 0;
	int fd = -1;

	assert_int_equal(lock_dir(dir, &fd, &holder), -EBUSY);
	assert_int_equal(holder, child);
	reap(child);
	assert_int_equal(lock_dir(dir, &fd, &holder), 0);
	lock_release(&fd);
}

/* Waiting: given up after wait_ms while held; taken once the holder is
 * gone. */
static void test_wait(void **state)
{
	const char *dir = *state;
	pid_t child = child_holding(dir), holder = 0, killer;
	struct timespec t0, t1;
	int fd = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(lock_dir_wait(dir, 100, &fd, &holder), -EBUSY);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 100);
	assert_int_equal(holder, child);
	killer = fork();
	assert_true(killer >= 0);
	if (!killer) {
		usleep(200 * 1000);
		kill(child, SIGKILL);
		_exit(0);
	}
	assert_int_equal(lock_dir_wait(dir, 5000, &fd, NULL), 0);
	lock_release(&fd);
	waitpid(killer, NULL, 0);
	waitpid(child, NULL, 0);
}

/* A directory removed and made again: the old lock is not on it, and a
 * new one can be taken on it. */
static void test_dir_replaced(void **state)
{
	const char *dir = *state;
	int a = -1, b = -1;

	assert_int_equal(lock_dir(dir, &a, NULL), 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_false(lock_is_on(a, dir));
	assert_int_equal(lock_dir(dir, &b, NULL), 0);
	assert_true(lock_is_on(b, dir));
	lock_release(&a);
	lock_release(&b);
}

static void test_missing_dir(void **state)
{
	int fd = -1;
	pid_t holder = 7;

	assert_int_equal(lock_dir("/nonexistent/xdpbr", &fd, &holder), -ENOENT);
	assert_int_equal(fd, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exclusive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_holder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_replaced, setup, teardown),
		cmocka_unit_test(test_missing_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

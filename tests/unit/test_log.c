// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_log.c - lib/log.c: plain "ident: message" lines on stderr, and the
 * journal's priority prefixes when stderr is the stream JOURNAL_STREAM
 * names. stderr is a temporary file here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "log.h"

struct capture {
	int saved;		/* the real stderr */
	FILE *f;		/* the file stderr is now */
};

/* stderr into a fresh temporary file; JOURNAL_STREAM its device:inode
 * when journal, the given value when other is set, else unset. */
static void capture_start(struct capture *c, bool journal, const char *other)
{
	char js[64];
	struct stat st;

	fflush(stderr);
	c->saved = dup(STDERR_FILENO);
	c->f = tmpfile();
	assert_non_null(c->f);
	assert_int_equal(dup2(fileno(c->f), STDERR_FILENO), STDERR_FILENO);
	assert_int_equal(fstat(fileno(c->f), &st), 0);
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	if (journal)
		setenv("JOURNAL_STREAM", js, 1);
	else if (other)
		setenv("JOURNAL_STREAM", other, 1);
	else
		unsetenv("JOURNAL_STREAM");
}

/* Back to the real stderr; what was written, in out. */
static void capture_end(struct capture *c, char *out, size_t len)
{
	size_t n;

	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	rewind(c->f);
	n = fread(out, 1, len - 1, c->f);
	out[n] = '\0';
	fclose(c->f);
	unsetenv("JOURNAL_STREAM");
}

/* What fn logs at level, as "t", into out: with stderr the journal's
 * stream (journal), or JOURNAL_STREAM set to other, or unset. */
static void logged(bool journal, const char *other, enum log_level level,
		   void (*fn)(void), char *out, size_t len)
{
	struct capture c;

	capture_start(&c, journal, other);
	log_init("t", level, false);
	fn();
	capture_end(&c, out, len);
}

static void log_all(void)
{
	log_err("stopped: %d", 1);
	log_warn("warned %s", "here");
	log_info("info");
	log_debug("debug %u", 7u);
}

static void test_plain(void **state)
{
	char out[512];

	logged(false, NULL, LOG_LVL_DEBUG, log_all, out, sizeof(out));
	assert_string_equal(out, "t: stopped: 1\nt: warned here\nt: info\nt: debug 7\n");
}

static void test_journal_priorities(void **state)
{
	char out[512];

	logged(true, NULL, LOG_LVL_DEBUG, log_all, out, sizeof(out));
	assert_string_equal(out, "<3>stopped: 1\n<4>warned here\n<6>info\n<7>debug 7\n");
}

static void log_two_lines(void)
{
	log_warn("first\nsecond\n");
	log_debug("not shown at info level");
}

/* Every line of a message carries the priority, or the journal would file
 * the second one as info. */
static void test_journal_multiline(void **state)
{
	char out[512];

	logged(true, NULL, LOG_LVL_INFO, log_two_lines, out, sizeof(out));
	assert_string_equal(out, "<4>first\n<4>second\n");
	logged(false, NULL, LOG_LVL_INFO, log_two_lines, out, sizeof(out));
	assert_string_equal(out, "t: first\nsecond\n");
}

static void log_w(void)
{
	log_warn("w");
}

/* JOURNAL_STREAM inherited from a parent whose stderr was the journal,
 * while ours goes elsewhere, or malformed: plain lines. */
static void test_journal_stream_elsewhere(void **state)
{
	static const char *const others[] = { "0:0", "1:2", "", "12", "12:", ":12",
					       "1:2:3", "x:y", "1:2 " };
	char out[512];

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		logged(false, others[i], LOG_LVL_INFO, log_w, out, sizeof(out));
		if (strcmp(out, "t: w\n"))
			fail_msg("JOURNAL_STREAM='%s': got '%s'", others[i], out);
	}
}

static void log_odd_name(void)
{
	log_info("port %s added", "a\x1b[2J\xff");
}

/* An interface's name may hold control characters and bytes that are not
 * UTF-8: they are escaped, so no log line carries a terminal's escape or
 * breaks a UTF-8 reader. */
static void test_escaped(void **state)
{
	char out[512];

	logged(false, NULL, LOG_LVL_INFO, log_odd_name, out, sizeof(out));
	assert_string_equal(out, "t: port a\\x1b[2J\\xff added\n");
}

/* The detection itself: stderr is the stream JOURNAL_STREAM names. */
static void test_detection(void **state)
{
	struct capture c;

	capture_start(&c, true, NULL);
	assert_true(log_stderr_is_journal());
	capture_end(&c, (char[8]){ 0 }, 8);
	capture_start(&c, false, "1:2");
	assert_false(log_stderr_is_journal());
	capture_end(&c, (char[8]){ 0 }, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_journal_priorities),
		cmocka_unit_test(test_journal_multiline),
		cmocka_unit_test(test_journal_stream_elsewhere),
		cmocka_unit_test(test_escaped),
		cmocka_unit_test(test_detection),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * log.c - stderr or syslog, four levels; libbpf's chatter only with -v.
 *
 * Under systemd, stderr is a stream to the journal, which takes every line
 * as priority info unless it starts with a syslog priority in angle
 * brackets (sd-daemon(3): SD_ERR "<3>", SD_WARNING "<4>", ...). So when
 * stderr is that stream (JOURNAL_STREAM names its device and inode, see
 * systemd.exec(5)), each line gets its priority and no ident (the journal
 * records the process); otherwise lines are "ident: message" as ever.
 * Control characters and bytes that are not UTF-8 (an interface's name may
 * hold them) are written as \xNN (text_escape).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "util.h"

static const char *log_ident = "xdpbr";
static enum log_level log_level = LOG_LVL_INFO;
static bool log_syslog;
static bool log_journal;

bool log_stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	int end = 0;

	if (!js || sscanf(js, "%llu:%llu%n", &dev, &ino, &end) != 2 || js[end])
		return false;
	if (fstat(STDERR_FILENO, &st))
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_init(const char *ident, enum log_level level, bool use_syslog)
{
	log_ident = ident;
	log_level = level;
	log_syslog = use_syslog;
	log_journal = !use_syslog && log_stderr_is_journal();
	if (use_syslog)
		openlog(ident, LOG_PID, LOG_DAEMON);
}

/* text to stderr, one line at a time: each with the journal's <prio>
 * prefix, or the first with "ident: " and any further ones as they are. */
static void put_lines(int prio, const char *text)
{
	const char *p = text, *nl;
	int len;

	do {
		nl = strchr(p, '\n');
		len = nl ? (int)(nl - p) : (int)strlen(p);

		if (log_journal)
			fprintf(stderr, "<%d>%.*s\n", prio, len, p);
		else if (p == text)
			fprintf(stderr, "%s: %.*s\n", log_ident, len, p);
		else
			fprintf(stderr, "%.*s\n", len, p);
		p = nl ? nl + 1 : NULL;
	} while (p && *p);
}

__attribute__((format(printf, 3, 0)))
static void vlog(enum log_level lvl, int prio, const char *fmt, va_list ap)
{
	char buf[1024], shown[4 * sizeof(buf)];

	if (lvl > log_level)
		return;
	if (log_syslog) {
		vsyslog(prio, fmt, ap);
		return;
	}
	/* names of interfaces may hold control characters: escaped */
	vsnprintf(buf, sizeof(buf), fmt, ap);
	put_lines(prio, text_escape(buf, shown, sizeof(shown)));
}

#define LOG_FN(name, lvl, prio)				\
void name(const char *fmt, ...)				\
{							\
	va_list ap;					\
	va_start(ap, fmt);				\
	vlog(lvl, prio, fmt, ap);			\
	va_end(ap);					\
}
LOG_FN(log_err, LOG_LVL_WARN, LOG_ERR)
LOG_FN(log_warn, LOG_LVL_WARN, LOG_WARNING)
LOG_FN(log_info, LOG_LVL_INFO, LOG_INFO)
LOG_FN(log_debug, LOG_LVL_DEBUG, LOG_DEBUG)

/* libbpf's messages, already ending in a newline (taken off: put_lines
 * adds one to each line). */
__attribute__((format(printf, 2, 0)))
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[1024];
	size_t n;

	if (log_level < LOG_LVL_DEBUG)
		return 0;
	if (!log_journal)
		return vfprintf(stderr, fmt, ap);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	put_lines(LOG_DEBUG, buf);
	return (int)n;
}

void log_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

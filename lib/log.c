// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* log.c - stderr or syslog, three levels; libbpf's chatter only with -v. */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>
#include <bpf/libbpf.h>

#include "log.h"

static const char *log_ident = "xdpbr";
static enum log_level log_level = LOG_LVL_INFO;
static bool log_syslog;

void log_init(const char *ident, enum log_level level, bool use_syslog)
{
	log_ident = ident;
	log_level = level;
	log_syslog = use_syslog;
	if (use_syslog)
		openlog(ident, LOG_PID, LOG_DAEMON);
}

__attribute__((format(printf, 3, 0)))
static void vlog(enum log_level lvl, int prio, const char *fmt, va_list ap)
{
	if (lvl > log_level)
		return;
	if (log_syslog) {
		vsyslog(prio, fmt, ap);
		return;
	}
	fprintf(stderr, "%s: ", log_ident);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define LOG_FN(name, lvl, prio)				\
void name(const char *fmt, ...)				\
{							\
	va_list ap;					\
	va_start(ap, fmt);				\
	vlog(lvl, prio, fmt, ap);			\
	va_end(ap);					\
}
LOG_FN(log_warn, LOG_LVL_WARN, LOG_WARNING)
LOG_FN(log_info, LOG_LVL_INFO, LOG_INFO)
LOG_FN(log_debug, LOG_LVL_DEBUG, LOG_DEBUG)

__attribute__((format(printf, 2, 0)))
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (log_level < LOG_LVL_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void log_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_LOG_H
#define XDPBR_LOG_H

#include <stdbool.h>

enum log_level { LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* Foreground processes log to stderr; use_syslog sends to syslog/journal. */
void log_init(const char *ident, enum log_level level, bool use_syslog);
/* Route libbpf's messages through us (shown only at debug level). */
void log_libbpf(void);

void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

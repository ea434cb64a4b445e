/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef XDPBR_LOG_H
#define XDPBR_LOG_H

#include <stdbool.h>

enum log_level { LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* Foreground processes log to stderr, as "ident: message" lines, or as
 * lines with the journal's priority prefix ("<4>message") when stderr is
 * the journal (log_stderr_is_journal); use_syslog sends to syslog. */
void log_init(const char *ident, enum log_level level, bool use_syslog);
/* Whether stderr is a stream to systemd's journal: JOURNAL_STREAM names
 * its device and inode (systemd.exec(5)). */
bool log_stderr_is_journal(void);
/* Route libbpf's messages through us (shown only at debug level). */
void log_libbpf(void);

/* log_err: what stops the program (journal priority err); shown at every
 * level, as log_warn's. */
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

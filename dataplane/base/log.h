/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * log.h - leveled logging to stderr with sd-daemon priority prefixes
 * ("<3>" error ... "<7>" debug), which journald turns into priorities; on a
 * terminal the prefix is replaced by a readable level tag.
 *
 * Thread safety: one write(2) per message, so lines never interleave.
 * The hot path must use log_ratelimited(): at most `burst` messages per
 * second per call site, with a count of those suppressed.
 */
#ifndef XDPLANE_LOG_H
#define XDPLANE_LOG_H

#include <stdint.h>

enum log_level {
	LOG_LVL_ERR = 3,
	LOG_LVL_WARN = 4,
	LOG_LVL_NOTICE = 5,
	LOG_LVL_INFO = 6,
	LOG_LVL_DEBUG = 7,
};

void log_set_level(enum log_level lvl);
enum log_level log_get_level(void);
void log_msg(enum log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_LVL_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

/* Per call site state for rate limiting; owned by the thread that logs. */
struct log_ratelimit {
	uint64_t window_start_ns;
	uint32_t emitted;
	uint32_t suppressed;
};

void log_ratelimited(struct log_ratelimit *rl, uint32_t burst,
		     enum log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif

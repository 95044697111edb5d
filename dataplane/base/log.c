// SPDX-License-Identifier: BSD-2-Clause
/*
 * log.c - see log.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "log.h"

static enum log_level cur_level = LOG_LVL_INFO;

void log_set_level(enum log_level lvl)
{
	__atomic_store_n(&cur_level, lvl, __ATOMIC_RELAXED);
}

enum log_level log_get_level(void)
{
	return __atomic_load_n(&cur_level, __ATOMIC_RELAXED);
}

static void vlog(enum log_level lvl, const char *fmt, va_list ap)
{
	static const char *const tag[] = {
		"", "", "", "error: ", "warning: ", "notice: ", "", "debug: "};
	char buf[1024];
	int n;

	if (lvl > log_get_level())
		return;
	if (isatty(STDERR_FILENO))
		n = snprintf(buf, sizeof(buf), "xdplane: %s", tag[lvl]);
	else
		n = snprintf(buf, sizeof(buf), "<%d>", lvl);
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	(void)!write(STDERR_FILENO, buf, n);
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(lvl, fmt, ap);
	va_end(ap);
}

void log_ratelimited(struct log_ratelimit *rl, uint32_t burst,
		     enum log_level lvl, const char *fmt, ...)
{
	struct timespec ts;
	uint64_t now;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	if (now - rl->window_start_ns >= 1000000000ull) {
		if (rl->suppressed)
			log_msg(lvl, "(%u similar messages suppressed)",
				rl->suppressed);
		rl->window_start_ns = now;
		rl->emitted = 0;
		rl->suppressed = 0;
	}
	if (rl->emitted >= burst) {
		rl->suppressed++;
		return;
	}
	rl->emitted++;
	va_start(ap, fmt);
	vlog(lvl, fmt, ap);
	va_end(ap);
}

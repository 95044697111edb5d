/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * daemon_state.h - the control thread's state (daemon.h), shared by the
 * life cycle (daemon.c) and the control API's backends (daemon_api.c).
 * Not for use outside control/daemon/.
 *
 * Ownership: one struct daemon per process, allocated by daemon_run()
 * and touched by the control thread only (every callback that gets it
 * runs on that thread's event loop). cfg is the running configuration,
 * replaced only by a reload that was applied; config_text is its
 * config_dump(), kept for the API's "config".
 */
#ifndef XDPLANE_DAEMON_STATE_H
#define XDPLANE_DAEMON_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "config.h"
#include "ctl_server.h"
#include "evloop.h"
#include "gateway.h"
#include "health.h"
#include "job_table.h"
#include "linkwatch.h"
#include "log.h"
#include "metrics_server.h"
#include "snapshot.h"

struct daemon {
	const char *path;
	struct xdplane_config *cfg; /* the running configuration */
	struct gateway *gw;
	struct evloop loop;
	struct ctl_server ctl;
	struct ctl_server ctl_ro; /* control.readonly_group's socket */
	struct metrics_server metrics;
	struct ctl_backend be;
	int sig_fd, timer_fd;
	struct ev_watch sig_w, timer_w;
	struct snap_reload reload;
	double start_unix;
	bool stopping;
	int stop_signal;
	bool log_level_forced; /* -v / -q given: the file's level is ignored */
	uint64_t watchdog_usec;
	struct log_ratelimit stall_rl;
	struct linkwatch lw; /* the ports' links (rtnetlink) */
	int exit_status; /* non-zero: why the daemon stopped by itself */
	struct health health; /* judged at every snapshot (health.h) */
	bool degraded; /* as last logged by the stats timer */
	char *config_text; /* config_dump() of the running configuration */
	struct job_table *jobs; /* NULL: jobs.mode off (daemon_jobs.h) */
};

/* The wall clock, for the times the API reports (seconds since 1970). */
static inline double daemon_unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif

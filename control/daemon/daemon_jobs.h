/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * daemon_jobs.h - the daemon's job table (dataplane/jobs/job_table.h):
 * made from the configuration's jobs section when jobs.mode is not off,
 * expired on the stats timer with CLOCK_MONOTONIC, changed by the control
 * API's job-register and job-unregister (the backends below) and copied
 * into every snapshot (snap_jobs_take()) for the listing and /metrics.
 *
 * Ownership: the control thread owns d->jobs (NULL while jobs.mode is
 * off); every function here runs on it. A reload applies jobs.mode (on:
 * an empty table with the running bounds; off: the table and its
 * registrations are dropped) and jobs.idle; the bounds are cold
 * (config_diff.h), so a live table always has the file's bounds.
 */
#ifndef XDPLANE_DAEMON_JOBS_H
#define XDPLANE_DAEMON_JOBS_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "daemon_state.h"

/* The table of d->cfg, if its mode is not off: 0, or -1 and why. */
int daemon_jobs_start(struct daemon *d, char *err, size_t errlen);
/* What a reload to next changes of the table (mode, idle); before
 * next replaces d->cfg. */
void daemon_jobs_reload(struct daemon *d, const struct xdplane_config *next);
/* Expire the table's idle host pairs (the stats timer). */
void daemon_jobs_tick(struct daemon *d);
void daemon_jobs_stop(struct daemon *d);

/* The control API's backends (ctl_proto.h); ctx: the daemon. */
json_t *daemon_job_register(void *ctx, const struct job_reg *r,
			    struct ctl_err *err);
json_t *daemon_job_unregister(void *ctx, const char *id, struct ctl_err *err);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli_jobs.h - xdplanectl's output of the job table's verbs (jobs,
 * job-register, job-unregister; the protocol's result objects,
 * ctl_proto.h). Single-threaded, no state.
 */
#ifndef XDPLANE_CLI_JOBS_H
#define XDPLANE_CLI_JOBS_H

#include <jansson.h>

/* The table of jobs (one row each) and a summary line of the table. */
void cli_print_jobs(json_t *r);
/* "job ID registered" / "updated" / "unregistered". */
void cli_print_job_change(const char *verb, json_t *r);

#endif

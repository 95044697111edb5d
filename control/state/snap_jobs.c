// SPDX-License-Identifier: BSD-2-Clause
/*
 * snap_jobs.c - snap_jobs_take() (snapshot.h): the job table's live jobs
 * and counters copied into a snapshot, so that the renderers (the
 * control API's jobs, /metrics) never read the table. Runs on the
 * control thread, which owns the table.
 */
#include <stdlib.h>
#include <string.h>
#include "snapshot.h"

/* A CLOCK_MONOTONIC time of the snapshot's clock on the wall clock. */
static double unix_of(const struct stats_snapshot *s, uint64_t mono_ns)
{
	if (mono_ns >= s->now_mono_ns)
		return s->now_unix;
	return s->now_unix - (double)(s->now_mono_ns - mono_ns) / 1e9;
}

static void take_job(const struct stats_snapshot *s, const struct job *j,
		     struct snap_job *o)
{
	memset(o, 0, sizeof(*o));
	memcpy(o->id, j->id, sizeof(o->id));
	o->id[sizeof(o->id) - 1] = '\0';
	o->kind = j->kind;
	o->dscp = JOB_DSCP_NONE;
	if (j->kind == JOB_REGISTERED) {
		o->dscp = j->reg.dscp;
		o->n_prefixes = j->reg.n_prefixes < JOB_PREFIXES_MAX
					? j->reg.n_prefixes
					: JOB_PREFIXES_MAX;
		memcpy(o->prefixes, j->reg.prefixes,
		       o->n_prefixes * sizeof(o->prefixes[0]));
		memcpy(o->prio_class, j->reg.prio_class, sizeof(o->prio_class));
		o->prio_class[sizeof(o->prio_class) - 1] = '\0';
		o->gpus = j->reg.gpus;
	} else {
		o->hosts = j->hosts;
	}
	o->created_unix = unix_of(s, j->created_ns);
	o->last_unix = unix_of(s, j->last_ns);
	o->flows_seen = j->flows_seen;
}

int snap_jobs_take(struct stats_snapshot *s, const struct job_table *t,
		   const char *mode)
{
	uint32_t live = job_table_count(t, JOB_REGISTERED) +
			job_table_count(t, JOB_PASSIVE);
	struct snap_jobs *sj =
		calloc(1, sizeof(*sj) + live * sizeof(sj->job[0]));
	const struct job *j;

	if (!sj)
		return -1;
	sj->mode = mode;
	sj->max_registered = t->par.max_registered;
	sj->max_passive = t->par.max_passive;
	sj->registered = job_table_count(t, JOB_REGISTERED);
	sj->passive = job_table_count(t, JOB_PASSIVE);
	sj->hosts = job_table_hosts(t);
	sj->edges = job_table_edges(t);
	sj->st = t->st;
	for (uint32_t i = 0; i < t->max_jobs && sj->n < live; i++) {
		j = job_table_job(t, i);
		if (j && j->kind != JOB_FREE)
			take_job(s, j, &sj->job[sj->n++]);
	}
	free(s->jobs);
	s->jobs = sj;
	return 0;
}

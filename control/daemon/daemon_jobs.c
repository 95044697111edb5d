// SPDX-License-Identifier: BSD-2-Clause
/*
 * daemon_jobs.c - see daemon_jobs.h: the job table's life on the control
 * thread and the backends of job-register and job-unregister, whose
 * refusals carry the table's own reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include "daemon_jobs.h"
#include "prefix.h"

static uint64_t mono_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int make_table(struct daemon *d, const struct config_jobs *c, char *err,
		      size_t errlen)
{
	struct job_table_params p;
	struct job_table *t = calloc(1, sizeof(*t));

	if (!t) {
		snprintf(err, errlen, "job table: out of memory");
		return -1;
	}
	job_table_params_default(&p);
	p.max_registered = c->max_registered;
	p.max_passive = c->max_passive;
	p.max_hosts = c->max_hosts;
	p.max_edges = c->max_edges;
	p.idle_ns = c->idle_ns;
	/* hosts, not the gateway, choose the addresses the hash sees */
	if (getrandom(&p.seed, sizeof(p.seed), 0) != sizeof(p.seed))
		p.seed = mono_now_ns() ^ (uint64_t)(uintptr_t)t;
	if (job_table_init(t, &p, err, errlen)) {
		free(t);
		return -1;
	}
	d->jobs = t;
	log_info("jobs: %s, %u registered and %u passive slots",
		 config_jobs_mode_name(c->mode), c->max_registered,
		 c->max_passive);
	return 0;
}

static void drop_table(struct daemon *d)
{
	if (!d->jobs)
		return;
	job_table_fini(d->jobs);
	free(d->jobs);
	d->jobs = NULL;
}

int daemon_jobs_start(struct daemon *d, char *err, size_t errlen)
{
	if (d->cfg->jobs.mode == CONFIG_JOBS_OFF)
		return 0;
	return make_table(d, &d->cfg->jobs, err, errlen);
}

void daemon_jobs_reload(struct daemon *d, const struct xdplane_config *next)
{
	char err[256];
	uint32_t n;

	if (next->jobs.mode == CONFIG_JOBS_OFF && d->jobs) {
		n = job_table_count(d->jobs, JOB_REGISTERED);
		drop_table(d);
		log_notice("jobs: off, the table and its %u registration%s "
			   "dropped",
			   n, n == 1 ? "" : "s");
		return;
	}
	if (next->jobs.mode != CONFIG_JOBS_OFF && !d->jobs) {
		if (make_table(d, &next->jobs, err, sizeof(err)))
			log_err("jobs: %s; the table stays off", err);
		return;
	}
	if (d->jobs)
		d->jobs->par.idle_ns = next->jobs.idle_ns;
}

void daemon_jobs_tick(struct daemon *d)
{
	if (d->jobs)
		job_table_expire(d->jobs, mono_now_ns());
}

void daemon_jobs_stop(struct daemon *d)
{
	drop_table(d);
}

/* A refusal's code by the table's reason (job_table.h). */
static const char *refusal_code(const char *why)
{
	if (!strncmp(why, "job table full", 14))
		return "table_full";
	if (strstr(why, " overlap"))
		return "conflict";
	return "bad_request";
}

json_t *daemon_job_register(void *ctx, const struct job_reg *r,
			    struct ctl_err *err)
{
	struct daemon *d = ctx;
	char why[256] = "", pfx[PREFIX_TEXT_MAX];
	bool updated;

	if (!d->jobs) {
		ctl_err_set(err, "unavailable",
			    "jobs are off (jobs.mode: off)");
		return NULL;
	}
	updated = job_table_find(d->jobs, r->id) != JOB_NONE;
	if (job_table_register(d->jobs, r, mono_now_ns(), why, sizeof(why)) ==
	    JOB_NONE) {
		ctl_err_set(err, refusal_code(why), "job-register: %s", why);
		log_info("job-register %s refused: %s", r->id, why);
		return NULL;
	}
	if (r->n_prefixes)
		prefix_text(&r->prefixes[0], pfx, sizeof(pfx));
	log_info("job %s %s: %u prefix%s%s%s, dscp %d, class %s, %u GPUs",
		 r->id, updated ? "updated" : "registered", r->n_prefixes,
		 r->n_prefixes == 1 ? "" : "es", r->n_prefixes ? " from " : "",
		 r->n_prefixes ? pfx : "",
		 r->dscp == JOB_DSCP_NONE ? -1 : r->dscp,
		 r->prio_class[0] ? r->prio_class : "-", r->gpus);
	return json_pack("{s:s,s:b}", "job", r->id, "updated", updated);
}

json_t *daemon_job_unregister(void *ctx, const char *id, struct ctl_err *err)
{
	struct daemon *d = ctx;
	uint32_t i;
	const struct job *j;

	if (!d->jobs) {
		ctl_err_set(err, "unavailable",
			    "jobs are off (jobs.mode: off)");
		return NULL;
	}
	i = job_table_find(d->jobs, id);
	j = i == JOB_NONE ? NULL : job_table_job(d->jobs, i);
	if (j && j->kind == JOB_PASSIVE) {
		ctl_err_set(err, "bad_request",
			    "job-unregister: '%.63s' is a passive job; it "
			    "leaves when its flows stop",
			    id);
		return NULL;
	}
	if (!j || job_table_unregister(d->jobs, id)) {
		ctl_err_set(err, "not_found",
			    "job-unregister: no registered job '%.63s'", id);
		return NULL;
	}
	log_info("job %s unregistered", id);
	return json_pack("{s:s,s:b}", "job", id, "unregistered", 1);
}

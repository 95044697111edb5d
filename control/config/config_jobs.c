// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_jobs.c - jobs, the table of the training jobs whose traffic
 * crosses the gateway (dataplane/jobs/job_table.h), on its own (parts of
 * the loader: config_sections.h).
 *
 *   jobs.mode            off | observe; default off
 *   jobs.max_registered  0..4096; default 64 (slots for registrations)
 *   jobs.max_passive     0..4096; default 64 (slots for passive jobs);
 *                        with max_registered 1..4096 (JOB_TABLE_JOBS_MAX)
 *   jobs.max_hosts       2..65536; default 1024 (hosts of the passive
 *                        host graph)
 *   jobs.max_edges       1..262144; default 4096 (its host pairs)
 *   jobs.idle            time, 1s..3600s; default 10s (a host pair not seen
 *                        this long leaves the graph)
 * The defaults are the table's (job_table_params_default()). Every key is
 * checked on its own, whatever the mode, so that a file switched to
 * observe later does not hide an error until then. mode and idle are
 * applied on reload; the bounds at start (config_diff.c).
 */
#include "config_sections.h"
#include "job_table.h"

#define JOBS_IDLE_MIN_NS 1000000000ull
#define JOBS_IDLE_MAX_NS 3600000000000ull

/* jobs.<name> into *v, between min and max; -1 if written and refused. */
static int get_bound(const struct load_ctx *c, const char *name, uint32_t min,
		     uint32_t max, uint32_t *v)
{
	struct key k;

	if (!cfg_key_at(c, &k, "jobs.%s", name))
		return 0;
	return cfg_get_uint(c, &k, min, max, "", v);
}

/* max_registered + max_passive: 1..JOB_TABLE_JOBS_MAX, reported at
 * max_passive if it was written, else at max_registered. */
static int check_slots(const struct load_ctx *c, const struct config_jobs *j)
{
	uint32_t sum = j->max_registered + j->max_passive;
	struct key k;

	if (sum && sum <= JOB_TABLE_JOBS_MAX)
		return 0;
	if (!cfg_key_at(c, &k, "jobs.max_passive"))
		cfg_key_at(c, &k, "jobs.max_registered");
	if (!sum)
		return cfg_fail(c, k.n->val,
				"%s: with jobs.max_registered 0 and "
				"jobs.max_passive 0 the table has no slot; "
				"give one of them at least 1",
				k.path);
	return cfg_fail(c, k.n->val,
			"%s: jobs.max_registered %u + jobs.max_passive %u is "
			"above %u, the most jobs the table holds",
			k.path, j->max_registered, j->max_passive,
			JOB_TABLE_JOBS_MAX);
}

int cfg_load_jobs(const struct load_ctx *c, struct xdplane_config *cfg)
{
	struct config_jobs *j = &cfg->jobs;
	struct job_table_params def;
	int bad = 0, slots_bad;
	struct key k;

	job_table_params_default(&def);
	j->mode = cfg_enum_at(c, "jobs.mode", cfg_jobs_modes, CONFIG_JOBS_OFF);
	j->max_registered = def.max_registered;
	j->max_passive = def.max_passive;
	j->max_hosts = def.max_hosts;
	j->max_edges = def.max_edges;
	j->idle_ns = def.idle_ns;
	slots_bad = get_bound(c, "max_registered", 0, JOB_TABLE_JOBS_MAX,
			      &j->max_registered);
	slots_bad |= get_bound(c, "max_passive", 0, JOB_TABLE_JOBS_MAX,
			       &j->max_passive);
	bad |= slots_bad;
	bad |= get_bound(c, "max_hosts", 2, JOB_TABLE_HOSTS_MAX, &j->max_hosts);
	bad |= get_bound(c, "max_edges", 1, JOB_TABLE_EDGES_MAX, &j->max_edges);
	if (cfg_key_at(c, &k, "jobs.idle"))
		bad |= cfg_get_time(c, &k, JOBS_IDLE_MIN_NS, JOBS_IDLE_MAX_NS,
				    &j->idle_ns);
	if (!slots_bad)
		bad |= check_slots(c, j);
	return bad ? -1 : 0;
}

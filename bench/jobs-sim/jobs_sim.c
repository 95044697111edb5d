// SPDX-License-Identifier: BSD-2-Clause
/*
 * jobs_sim.c - periodic training jobs sharing one link in virtual time,
 * their shares from jobs/interleave.c or fair. The model: jobs_sim.h.
 */
#include "jobs_sim.h"
#include "phase_clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull

enum jstate { J_COMPUTE, J_HELD, J_COMM };

struct jrun {
	enum jstate st;
	uint64_t until_ns; /* compute or hold ends */
	double left; /* bytes of the phase still to send */
	double sent; /* bytes of the phase sent */
	uint64_t hold_pending; /* ns, at the next onset */
	uint64_t onset_ns; /* the current (or last) phase's first byte */
	uint64_t last_end_ns;
	uint64_t onsets[4], comms[3]; /* the last onsets, phase lengths */
	uint32_t n_onsets, n_comms;
	uint32_t iters;
	double *iter_ns; /* JOBS_SIM_MAX_ITERS */
	double step_bytes; /* sent in this step */
	double clock_carry; /* below one byte, for the phase clock */
	struct phase_clock pc;
	const struct phase_clock_est *est;
};

struct sim {
	const struct jobs_sim_cfg *c;
	struct jrun j[JOBS_SIM_MAX];
	double share[JOBS_SIM_MAX];
	uint64_t rng;
	/* overlap: ns with >= 2 sending, >= 1 sending; per job-0 iteration */
	uint64_t both, any;
	double it_ovl[JOBS_SIM_MAX_ITERS];
	uint64_t skip_both, skip_any; /* at the end of job 0's skip-th */
	uint64_t it_both, it_any; /* at the end of job 0's last */
	uint64_t start_both, start_any; /* at the end of its START_ITERS-th */
	uint64_t ticks, weight_ticks, locked_ticks;
	int mode; /* the last decision's */
	/* holds */
	int32_t held_job;
	uint32_t held_until_iter;
};

static double uniform(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
}

static uint64_t compute_time(struct sim *s, uint32_t i)
{
	double f = 1.0 + s->c->jitter * uniform(&s->rng);

	return (uint64_t)((double)s->c->job[i].compute_ns * f);
}

int jobs_sim_scenario(struct jobs_sim_cfg *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	c->link_bps = 100e6;
	c->jitter = 0.01;
	c->seed = 1;
	c->dt_ns = 50000;
	c->tick_ns = MS;
	c->skip = 20;
	c->arm = JOBS_SIM_FAIR;
	c->clock_ns = 10 * MS;
	interleave_params_default(&c->ip);
	if (!strcmp(name, "two")) {
		c->n = 2;
		for (uint32_t i = 0; i < 2; i++)
			c->job[i] = (struct jobs_sim_job){50 * MS, 625000, 0};
		c->duration_ns = 12000 * MS;
	} else if (!strcmp(name, "three")) {
		c->n = 3;
		for (uint32_t i = 0; i < 3; i++)
			c->job[i] = (struct jobs_sim_job){70 * MS, 312500, 0};
		c->duration_ns = 12000 * MS;
	} else if (!strcmp(name, "incompatible")) {
		c->n = 2;
		c->job[0] = (struct jobs_sim_job){50 * MS, 625000, 0};
		c->job[1] = (struct jobs_sim_job){91 * MS, 625000, 0};
		c->duration_ns = 12000 * MS;
	} else {
		return -EINVAL;
	}
	return 0;
}

const char *jobs_sim_arm_name(enum jobs_sim_arm a)
{
	static const char *const names[] = {"fair", "weight", "shift", "both"};

	return a < JOBS_SIM_ARMS ? names[a] : "?";
}

static uint64_t median3(const uint64_t *v)
{
	uint64_t a = v[0], b = v[1], c = v[2];

	if (a > b) {
		uint64_t t = a;

		a = b;
		b = t;
	}
	if (b > c)
		b = c;
	return a > b ? a : b;
}

/* What a perfect phase clock reports of job i at now. */
static struct interleave_job view(const struct sim *s, uint32_t i)
{
	const struct jrun *j = &s->j[i];
	struct interleave_job v = {.bytes_per_iter = s->c->job[i].bytes};
	uint64_t ivl[3];

	if (s->c->clock) {
		const struct phase_clock_est *e = j->est;

		if (!e || e->state != PHASE_CLOCK_LOCKED)
			return v;
		v.locked = true;
		v.period_ns = e->period_ns;
		v.comm_ns = e->comm_ns;
		v.bytes_per_iter = e->bytes_per_iter;
		v.next_onset_ns = e->next_onset_ns;
		v.phase_bytes = j->st == J_COMM ? (uint64_t)j->sent : 0;
		return v;
	}
	if (j->n_onsets < 4 || j->n_comms < 3)
		return v;
	for (int k = 0; k < 3; k++)
		ivl[k] = j->onsets[k + 1] - j->onsets[k];
	v.locked = true;
	v.period_ns = median3(ivl);
	v.comm_ns = (j->comms[0] + j->comms[1] + j->comms[2]) / 3;
	v.next_onset_ns = j->onsets[3] + v.period_ns;
	v.phase_bytes = j->st == J_COMM ? (uint64_t)j->sent : 0;
	return v;
}

static void push_onset(struct jrun *j, uint64_t t)
{
	if (j->n_onsets == 4) {
		memmove(j->onsets, j->onsets + 1, 3 * sizeof(j->onsets[0]));
		j->n_onsets = 3;
	}
	j->onsets[j->n_onsets++] = t;
}

static void push_comm(struct jrun *j, uint64_t d)
{
	if (j->n_comms == 3) {
		memmove(j->comms, j->comms + 1, 2 * sizeof(j->comms[0]));
		j->n_comms = 2;
	}
	j->comms[j->n_comms++] = d;
}

static void decide(struct sim *s, uint64_t now)
{
	const struct jobs_sim_cfg *c = s->c;
	struct interleave_job v[JOBS_SIM_MAX];
	struct interleave_decision d;
	bool weights = c->arm == JOBS_SIM_WEIGHT || c->arm == JOBS_SIM_BOTH;
	bool holds = c->arm == JOBS_SIM_SHIFT || c->arm == JOBS_SIM_BOTH;
	bool all = true;

	for (uint32_t i = 0; i < c->n; i++) {
		s->share[i] = 1.0 / c->n;
		v[i] = view(s, i);
		all &= v[i].locked;
	}
	s->locked_ticks += all;
	if (c->arm == JOBS_SIM_FAIR)
		return;
	if (interleave_decide(&c->ip, v, c->n, now, c->link_bps, holds, &d))
		return;
	s->weight_ticks += d.mode == INTERLEAVE_WEIGHT;
	s->mode = (int)d.mode;
	if (weights)
		memcpy(s->share, d.share, c->n * sizeof(double));
	if (!holds || d.hold_job < 0 || !d.hold_ns)
		return;
	if (s->held_job >= 0 && (s->j[s->held_job].hold_pending ||
				 s->j[s->held_job].iters < s->held_until_iter))
		return;
	if (s->j[d.hold_job].st != J_COMPUTE)
		return;
	s->j[d.hold_job].hold_pending = d.hold_ns;
	s->held_job = d.hold_job;
	s->held_until_iter = s->j[d.hold_job].iters + 3;
}

static void start_comm(struct sim *s, uint32_t i, uint64_t t)
{
	struct jrun *j = &s->j[i];

	j->st = J_COMM;
	j->left = (double)s->c->job[i].bytes;
	j->sent = 0.0;
	j->onset_ns = t;
	push_onset(j, t);
}

static void finish(struct sim *s, uint32_t i, uint64_t end)
{
	struct jrun *j = &s->j[i];
	uint64_t b = s->both - s->it_both, a = s->any - s->it_any;

	j->st = J_COMPUTE;
	j->until_ns = end + compute_time(s, i);
	push_comm(j, end - j->onset_ns);
	if (j->iters < JOBS_SIM_MAX_ITERS)
		j->iter_ns[j->iters] = (double)(end - j->last_end_ns);
	j->last_end_ns = end;
	j->iters++;
	if (i)
		return;
	if (j->iters <= JOBS_SIM_MAX_ITERS)
		s->it_ovl[j->iters - 1] = a ? (double)b / (double)a : 0.0;
	s->it_both = s->both;
	s->it_any = s->any;
	if (j->iters == JOBS_SIM_START_ITERS) {
		s->start_both = s->both;
		s->start_any = s->any;
	}
	if (j->iters == s->c->skip) {
		s->skip_both = s->both;
		s->skip_any = s->any;
	}
}

/* Share the step's bytes among the sending jobs by weight, work-conserving:
 * a job whose rest fits in its part finishes, the others share what it
 * left. */
static void send(struct sim *s, uint64_t t)
{
	const struct jobs_sim_cfg *c = s->c;
	double budget = c->link_bps * (double)c->dt_ns / 8e9;
	uint32_t act[JOBS_SIM_MAX], n = 0;

	for (uint32_t i = 0; i < c->n; i++)
		if (s->j[i].st == J_COMM)
			act[n++] = i;
	if (n)
		s->any += c->dt_ns;
	if (n >= 2)
		s->both += c->dt_ns;
	while (n) {
		uint32_t keep[JOBS_SIM_MAX], m = 0;
		double w = 0.0, used = 0.0;

		for (uint32_t k = 0; k < n; k++)
			w += s->share[act[k]];
		for (uint32_t k = 0; k < n; k++) {
			struct jrun *j = &s->j[act[k]];

			if (j->left <= budget * s->share[act[k]] / w) {
				used += j->left;
				j->step_bytes += j->left;
				j->sent += j->left;
				j->left = 0.0;
				finish(s, act[k], t + c->dt_ns);
			} else {
				keep[m++] = act[k];
			}
		}
		if (m == n) {
			for (uint32_t k = 0; k < n; k++) {
				struct jrun *j = &s->j[act[k]];
				double part = budget * s->share[act[k]] / w;

				j->left -= part;
				j->sent += part;
				j->step_bytes += part;
			}
			return;
		}
		budget -= used;
		memcpy(act, keep, m * sizeof(act[0]));
		n = m;
	}
}

/* The port's owner adds each job's step to its clock; every clock_ns the
 * control thread reads them. */
static void feed_clocks(struct sim *s, uint64_t t, bool read)
{
	for (uint32_t i = 0; i < s->c->n; i++) {
		struct jrun *j = &s->j[i];
		double b = j->step_bytes + j->clock_carry;
		uint32_t whole = (uint32_t)b;

		j->clock_carry = b - whole;
		j->step_bytes = 0.0;
		if (whole)
			phase_clock_add(&j->pc.w, t, whole);
		if (read)
			j->est = phase_clock_update(&j->pc, t);
	}
}

static int check(const struct jobs_sim_cfg *c, char *err, size_t errlen)
{
	const char *why = NULL;

	if (c->n < 1 || c->n > JOBS_SIM_MAX)
		why = "n: 1 .. 8 jobs";
	else if (!(c->link_bps > 0.0))
		why = "link_bps: must be above 0";
	else if (!c->dt_ns || !c->tick_ns || c->tick_ns % c->dt_ns)
		why = "tick_ns: must be a multiple of dt_ns > 0";
	else if (c->clock && (!c->clock_ns || c->clock_ns % c->dt_ns))
		why = "clock_ns: must be a multiple of dt_ns > 0";
	else if (!(c->jitter >= 0.0 && c->jitter <= 0.5))
		why = "jitter: must be 0 .. 0.5";
	else if (c->duration_ns / c->dt_ns > 1000000000ull)
		why = "duration_ns: at most 1e9 steps";
	else if (c->arm >= JOBS_SIM_ARMS)
		why = "arm: unknown";
	else
		interleave_params_check(&c->ip, &why);
	for (uint32_t i = 0; !why && i < c->n; i++)
		if (!c->job[i].compute_ns || !c->job[i].bytes)
			why = "job: compute_ns and bytes must be above 0";
	if (why)
		snprintf(err, errlen, "%s", why);
	return why ? -EINVAL : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void stats(const struct sim *s, struct jobs_sim_result *r, double *tmp)
{
	const struct jobs_sim_cfg *c = s->c;
	uint32_t it0 = s->j[0].iters < JOBS_SIM_MAX_ITERS ? s->j[0].iters
							  : JOBS_SIM_MAX_ITERS;
	uint32_t k;

	for (uint32_t i = 0; i < c->n; i++) {
		const struct jrun *j = &s->j[i];
		uint32_t n = j->iters < JOBS_SIM_MAX_ITERS ? j->iters
							   : JOBS_SIM_MAX_ITERS;
		double alone = (double)c->job[i].compute_ns +
			       (double)c->job[i].bytes * 8e9 / c->link_bps;
		double sum = 0.0;
		uint32_t m = 0;

		r->iters[i] = j->iters;
		r->alone_ms[i] = alone / 1e6;
		for (k = c->skip; k < n; k++) {
			tmp[m++] = j->iter_ns[k] / alone;
			sum += j->iter_ns[k] / alone;
		}
		if (!m)
			continue;
		qsort(tmp, m, sizeof(*tmp), cmp_double);
		r->mean_rel[i] = sum / m;
		r->p90_rel[i] = tmp[(m * 9 + 9) / 10 - 1];
	}
	r->overlap_start =
		s->start_any ? (double)s->start_both / (double)s->start_any
			     : 0.0;
	r->overlap_after = s->any > s->skip_any
				   ? (double)(s->both - s->skip_both) /
					     (double)(s->any - s->skip_any)
				   : 0.0;
	r->settle_iter = UINT32_MAX;
	for (k = it0; k > 0 && s->it_ovl[k - 1] <= 0.2; k--)
		if (k - 1 + JOBS_SIM_SETTLED_ITERS <= it0)
			r->settle_iter = k - 1;
	r->weight_time =
		s->ticks ? (double)s->weight_ticks / (double)s->ticks : 0.0;
	r->locked_time =
		s->ticks ? (double)s->locked_ticks / (double)s->ticks : 0.0;
}

static void trace(const struct sim *s, uint64_t t)
{
	FILE *f = s->c->trace;

	fprintf(f, "%.1f,%s", (double)t / 1e6,
		s->mode == INTERLEAVE_WEIGHT ? "weight" : "fair");
	for (uint32_t i = 0; i < s->c->n; i++)
		fprintf(f, ",%.3f", s->share[i]);
	for (uint32_t i = 0; i < s->c->n; i++)
		fprintf(f, ",%d", s->j[i].st == J_COMM);
	fputc('\n', f);
}

int jobs_sim_run(const struct jobs_sim_cfg *c, struct jobs_sim_result *r,
		 char *err, size_t errlen)
{
	uint64_t every, step = 0;
	struct sim *s;
	double *buf;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = check(c, err, errlen);
	if (rc)
		return rc;
	s = calloc(1, sizeof(*s));
	buf = calloc((size_t)(c->n + 1) * JOBS_SIM_MAX_ITERS, sizeof(*buf));
	if (!s || !buf) {
		free(s);
		free(buf);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->c = c;
	s->rng = c->seed;
	s->held_job = -1;
	for (uint32_t i = 0; i < c->n; i++) {
		s->j[i].iter_ns = buf + (size_t)i * JOBS_SIM_MAX_ITERS;
		s->j[i].st = J_COMPUTE;
		s->j[i].until_ns = c->job[i].start_ns + compute_time(s, i);
		s->j[i].last_end_ns = c->job[i].start_ns;
		s->share[i] = 1.0 / c->n;
	}
	if (c->clock) {
		struct phase_clock_params pp;

		phase_clock_params_default(&pp);
		for (uint32_t i = 0; i < c->n && !rc; i++)
			rc = phase_clock_init(&s->j[i].pc, &pp, 0);
		if (rc) {
			snprintf(err, errlen, "phase_clock_init: %d", rc);
			goto out;
		}
	}
	every = c->tick_ns / c->dt_ns;
	for (uint64_t t = 0; t < c->duration_ns; t += c->dt_ns, step++) {
		if (step % every == 0) {
			s->ticks++;
			decide(s, t);
			if (c->trace)
				trace(s, t);
		}
		for (uint32_t i = 0; i < c->n; i++) {
			struct jrun *j = &s->j[i];

			if (j->st == J_COMPUTE && t >= j->until_ns &&
			    j->hold_pending) {
				j->st = J_HELD;
				j->until_ns = t + j->hold_pending;
				r->holds++;
				if (j->hold_pending > r->hold_max_ns)
					r->hold_max_ns = j->hold_pending;
				j->hold_pending = 0;
			} else if (j->st != J_COMM && t >= j->until_ns) {
				start_comm(s, i, t);
			}
		}
		send(s, t);
		if (c->clock)
			feed_clocks(s, t, step % (c->clock_ns / c->dt_ns) == 0);
	}
	stats(s, r, buf + (size_t)c->n * JOBS_SIM_MAX_ITERS);
	for (uint32_t i = 0; c->clock && i < c->n; i++) {
		if (s->j[i].est) {
			r->locks[i] = s->j[i].est->locks;
			r->unlocks[i] = s->j[i].est->unlocks;
		}
	}
out:
	for (uint32_t i = 0; c->clock && i < c->n; i++)
		phase_clock_fini(&s->j[i].pc);
	free(buf);
	free(s);
	return rc;
}

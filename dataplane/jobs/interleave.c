// SPDX-License-Identifier: BSD-2-Clause
/*
 * interleave.c - the shares of the jobs in one egress class and the hold
 * that moves one job's phase away from the others'. The model, the rules
 * and who calls: interleave.h.
 */
#include "interleave.h"

#include <errno.h>
#include <math.h>
#include <string.h>

void interleave_params_default(struct interleave_params *p)
{
	*p = (struct interleave_params){
		.intercept = 1.0,
		.slope = 4.0,
		.floor = 0.05,
		.overlap_min = 0.1,
		.ratio_tol = 0.03,
		.ratio_max = 4,
		.hold_budget_ns = 8000000,
		.rc_timeout_ns = 67108864, /* 4.096 us x 2^14 */
		.shift_gain_min = 0.1,
	};
}

static bool in_range(double v, double lo, double hi)
{
	return v >= lo && v <= hi; /* false for NaN */
}

int interleave_params_check(const struct interleave_params *p, const char **why)
{
	const char *bad = NULL;

	if (!(p->intercept > 0.0) || p->intercept > 1e6)
		bad = "intercept: must be above 0, at most 1e6";
	else if (!in_range(p->slope, 0.0, 1e6))
		bad = "slope: must be 0 .. 1e6";
	else if (!in_range(p->floor, 0.0, 1.0 / INTERLEAVE_MAX_JOBS))
		bad = "floor: must be 0 .. 1/16";
	else if (!in_range(p->overlap_min, 0.0, 1.0))
		bad = "overlap_min: must be 0 .. 1";
	else if (!in_range(p->ratio_tol, 0.0, 0.2))
		bad = "ratio_tol: must be 0 .. 0.2";
	else if (p->ratio_max < 1 || p->ratio_max > 8)
		bad = "ratio_max: must be 1 .. 8";
	else if (p->rc_timeout_ns < 4096 || p->rc_timeout_ns > 300000000000ull)
		bad = "rc_timeout_ns: must be 4.096 us .. 300 s";
	else if (p->hold_budget_ns > p->rc_timeout_ns / 8)
		bad = "hold_budget_ns: must be at most rc_timeout_ns / 8";
	else if (!in_range(p->shift_gain_min, 0.0, 1.0))
		bad = "shift_gain_min: must be 0 .. 1";
	if (why)
		*why = bad;
	return bad ? -1 : 0;
}

int interleave_compatible(const struct interleave_params *p, uint64_t ta,
			  uint64_t tb, uint32_t *p_out, uint32_t *q_out)
{
	uint64_t lo = ta < tb ? ta : tb, hi = ta < tb ? tb : ta;
	double r;

	if (!lo)
		return 0;
	r = (double)hi / (double)lo;
	for (uint32_t a = 1; a <= p->ratio_max; a++) {
		for (uint32_t b = 1; b <= a; b++) {
			double pq = (double)a / (double)b;

			if (fabs(r - pq) > p->ratio_tol * pq)
				continue;
			if (p_out)
				*p_out = a;
			if (q_out)
				*q_out = b;
			return 1;
		}
	}
	return 0;
}

/* floor(a / b), b > 0 */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b && a < 0) ? q - 1 : q;
}

/* Time in [s, e) inside [x0 + kT, x0 + kT + c), any k. */
static int64_t cover(int64_t x0, int64_t t, int64_t c, int64_t s, int64_t e)
{
	int64_t sum = 0, st;

	if (e <= s || c <= 0)
		return 0;
	if (c >= t)
		return e - s;
	st = x0 + floor_div(s - x0, t) * t;
	for (; st < e; st += t) {
		int64_t lo = st > s ? st : s;
		int64_t hi = st + c < e ? st + c : e;

		if (hi > lo)
			sum += hi - lo;
	}
	return sum;
}

/* Both in a phase within [s, e); times relative to the same origin. */
static int64_t overlap_rel(int64_t a0, int64_t ta, int64_t ca, int64_t b0,
			   int64_t tb, int64_t cb, int64_t s, int64_t e)
{
	int64_t sum = 0, st;

	if (e <= s || ca <= 0 || cb <= 0)
		return 0;
	if (ca >= ta)
		return cover(b0, tb, cb, s, e);
	st = a0 + floor_div(s - a0, ta) * ta;
	for (; st < e; st += ta) {
		int64_t lo = st > s ? st : s;
		int64_t hi = st + ca < e ? st + ca : e;

		sum += cover(b0, tb, cb, lo, hi);
	}
	return sum;
}

uint64_t interleave_overlap_ns(uint64_t ta0, uint64_t ta, uint64_t ca,
			       uint64_t tb0, uint64_t tb, uint64_t cb,
			       uint64_t from, uint64_t to)
{
	if (!ta || !tb || to <= from)
		return 0;
	return (uint64_t)overlap_rel((int64_t)(ta0 - from), (int64_t)ta,
				     (int64_t)ca, (int64_t)(tb0 - from),
				     (int64_t)tb, (int64_t)cb, 0,
				     (int64_t)(to - from));
}

/* A locked job's prediction relative to now: onset in [0, T), length. */
struct pred {
	int64_t t0, per, c;
};

static struct pred predict(const struct interleave_job *j, uint64_t now_ns,
			   double class_bps)
{
	struct pred r = {.per = (int64_t)j->period_ns,
			 .c = (int64_t)j->comm_ns};
	int64_t d = (int64_t)(j->next_onset_ns - now_ns);

	r.t0 = d - floor_div(d, r.per) * r.per;
	if (class_bps > 0.0 && j->bytes_per_iter) {
		double alone = (double)j->bytes_per_iter * 8e9 / class_bps;

		if (alone < (double)r.c)
			r.c = (int64_t)alone;
	}
	if (r.c > r.per)
		r.c = r.per;
	return r;
}

/* The pair's common period H, or 0 if incompatible. */
static int64_t common_period(const struct interleave_params *p,
			     const struct pred *a, const struct pred *b)
{
	uint32_t pp, qq;

	if (!interleave_compatible(p, (uint64_t)a->per, (uint64_t)b->per, &pp,
				   &qq))
		return 0;
	return (int64_t)qq * (a->per > b->per ? a->per : b->per);
}

static bool usable(const struct interleave_job *j)
{
	return j->locked && j->period_ns &&
	       j->period_ns <= INTERLEAVE_MAX_PERIOD_NS && j->comm_ns;
}

/*
 * The overlap of job h's pairs, h's phases shifted by d, over [t, t + H)
 * for each pair, t h's next onset unshifted.
 */
static int64_t held_overlap(const struct interleave_params *p,
			    const struct pred *pr, const bool *ok, uint32_t n,
			    uint32_t h, int64_t d)
{
	int64_t sum = 0;

	for (uint32_t i = 0; i < n; i++) {
		int64_t hp;

		if (i == h || !ok[i])
			continue;
		hp = common_period(p, &pr[h], &pr[i]);
		if (!hp)
			continue;
		sum += overlap_rel(pr[h].t0 + d, pr[h].per, pr[h].c, pr[i].t0,
				   pr[i].per, pr[i].c, pr[h].t0, pr[h].t0 + hp);
	}
	return sum;
}

struct best {
	int64_t val, d;
};

static void try_shift(const struct interleave_params *p, const struct pred *pr,
		      const bool *ok, uint32_t n, uint32_t h, int64_t d,
		      struct best *b)
{
	int64_t v;

	if (d < 0 || d > (int64_t)p->hold_budget_ns)
		return;
	v = held_overlap(p, pr, ok, n, h, d);
	if (v < b->val || (v == b->val && d < b->d)) {
		b->val = v;
		b->d = d;
	}
}

/*
 * The overlap is piecewise linear in d, its breaks where an edge of h's
 * shifted phases meets an edge of another job's phases or the end of the
 * window: its minimum over [0, budget] lies at 0, at the budget or at one
 * of those.
 */
static struct best best_shift(const struct interleave_params *p,
			      const struct pred *pr, const bool *ok, uint32_t n,
			      uint32_t h)
{
	struct best b = {.val = INT64_MAX, .d = 0};
	int64_t budget = (int64_t)p->hold_budget_ns;

	try_shift(p, pr, ok, n, h, 0, &b);
	try_shift(p, pr, ok, n, h, budget, &b);
	for (uint32_t i = 0; i < n; i++) {
		int64_t hp, lo, hi;

		if (i == h || !ok[i])
			continue;
		hp = common_period(p, &pr[h], &pr[i]);
		if (!hp)
			continue;
		lo = pr[h].t0 - pr[i].per;
		hi = pr[h].t0 + hp + budget + pr[i].per;
		for (int64_t st =
			     pr[i].t0 +
			     floor_div(lo - pr[i].t0, pr[i].per) * pr[i].per;
		     st < hi; st += pr[i].per) {
			int64_t ei[2] = {st, st + pr[i].c};

			for (int64_t sh = pr[h].t0 - pr[h].per;
			     sh < pr[h].t0 + hp; sh += pr[h].per) {
				int64_t eh[2] = {sh, sh + pr[h].c};

				for (int x = 0; x < 2; x++)
					for (int y = 0; y < 2; y++)
						try_shift(p, pr, ok, n, h,
							  ei[x] - eh[y], &b);
			}
		}
		for (int64_t sh = pr[h].t0 - pr[h].per; sh < pr[h].t0 + hp;
		     sh += pr[h].per) {
			try_shift(p, pr, ok, n, h, pr[h].t0 + hp - sh, &b);
			try_shift(p, pr, ok, n, h, pr[h].t0 + hp - sh - pr[h].c,
				  &b);
		}
	}
	return b;
}

/* s_i = clamp(lambda x w_i, lo_i, hi_i), sum 1: bisection on lambda. */
static void fill_shares(const double *w, const double *lo, const double *hi,
			uint32_t n, double *s)
{
	double a = 0.0, b = 0.0, sum = 0.0;

	for (uint32_t i = 0; i < n; i++)
		if (hi[i] / w[i] > b)
			b = hi[i] / w[i];
	for (int it = 0; it < 200; it++) {
		double m = 0.5 * (a + b), t = 0.0;

		for (uint32_t i = 0; i < n; i++)
			t += fmin(fmax(m * w[i], lo[i]), hi[i]);
		if (t < 1.0)
			a = m;
		else
			b = m;
	}
	for (uint32_t i = 0; i < n; i++) {
		s[i] = fmin(fmax(b * w[i], lo[i]), hi[i]);
		sum += s[i];
	}
	for (uint32_t i = 0; i < n; i++)
		s[i] /= sum;
}

static int check_jobs(const struct interleave_params *p,
		      const struct interleave_job *jobs, uint32_t n, double *lo,
		      double *hi, const char **why)
{
	double slo = 0.0, shi = 0.0;

	if (n > INTERLEAVE_MAX_JOBS) {
		*why = "more jobs than INTERLEAVE_MAX_JOBS";
		return -EINVAL;
	}
	for (uint32_t i = 0; i < n; i++) {
		double f = jobs[i].floor, c = jobs[i].cap ? jobs[i].cap : 1.0;

		if (!in_range(f, 0.0, 1.0) || !in_range(c, 0.0, 1.0)) {
			*why = "a job's floor or cap outside 0 .. 1";
			return -EINVAL;
		}
		lo[i] = f > p->floor ? f : p->floor;
		hi[i] = c;
		if (lo[i] > hi[i]) {
			*why = "a job's floor above its cap";
			return -EINVAL;
		}
		slo += lo[i];
		shi += hi[i];
	}
	if (slo > 1.0 + 1e-12) {
		*why = "the jobs' floors sum above 1";
		return -EINVAL;
	}
	if (n && shi < 1.0)
		for (uint32_t i = 0; i < n; i++)
			hi[i] /= shi;
	return 0;
}

int interleave_decide(const struct interleave_params *p,
		      const struct interleave_job *jobs, uint32_t n,
		      uint64_t now_ns, double class_bps, bool want_hold,
		      struct interleave_decision *d)
{
	double lo[INTERLEAVE_MAX_JOBS], hi[INTERLEAVE_MAX_JOBS];
	double w[INTERLEAVE_MAX_JOBS];
	struct pred pr[INTERLEAVE_MAX_JOBS];
	bool ok[INTERLEAVE_MAX_JOBS];
	uint32_t locked = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	d->hold_job = -1;
	d->hold_why = "no hold asked";
	rc = check_jobs(p, jobs, n, lo, hi, &d->why);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < n; i++) {
		ok[i] = usable(&jobs[i]);
		if (ok[i]) {
			pr[i] = predict(&jobs[i], now_ns, class_bps);
			locked++;
		}
		w[i] = 1.0;
	}
	d->mode = INTERLEAVE_FAIR;
	if (locked < 2) {
		d->why = "fewer than 2 locked jobs";
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t j = i + 1; j < n; j++) {
			int64_t hp, ov, ci, cj, m;

			if (!ok[i] || !ok[j])
				continue;
			hp = common_period(p, &pr[i], &pr[j]);
			if (!hp)
				continue;
			ov = overlap_rel(pr[i].t0, pr[i].per, pr[i].c, pr[j].t0,
					 pr[j].per, pr[j].c, 0, hp);
			ci = cover(pr[i].t0, pr[i].per, pr[i].c, 0, hp);
			cj = cover(pr[j].t0, pr[j].per, pr[j].c, 0, hp);
			m = ci < cj ? ci : cj;
			if (m > 0 && (double)ov / (double)m > d->overlap)
				d->overlap = (double)ov / (double)m;
		}
	}
	if (d->overlap <= 0.0 || d->overlap < p->overlap_min) {
		d->why = "no compatible pair of locked jobs overlaps";
		goto out;
	}
	d->mode = INTERLEAVE_WEIGHT;
	d->why = "locked jobs overlap: weights by progress";
	for (uint32_t i = 0; i < n; i++) {
		double prog = 0.5;

		if (ok[i] && jobs[i].bytes_per_iter)
			prog = fmin(1.0,
				    (double)jobs[i].phase_bytes /
					    (double)jobs[i].bytes_per_iter);
		w[i] = p->intercept + p->slope * prog;
	}
	if (want_hold && locked < n) {
		d->hold_why = "a job of the class is not locked";
	} else if (want_hold && p->hold_budget_ns) {
		struct best top = {.val = INT64_MAX, .d = 0};
		int64_t base = 0;
		int32_t job = -1;

		for (uint32_t h = 0; h < n; h++) {
			struct best b;

			if (!ok[h])
				continue;
			b = best_shift(p, pr, ok, n, h);
			if (b.d > 0 && (job < 0 || b.val < top.val)) {
				top = b;
				job = (int32_t)h;
				base = held_overlap(p, pr, ok, n, h, 0);
			}
		}
		d->hold_why = "no hold within the budget lowers the overlap";
		if (job >= 0) {
			d->overlap_ns = (uint64_t)base;
			d->overlap_after_ns = (uint64_t)top.val;
			if ((double)(base - top.val) >=
				    p->shift_gain_min * (double)base &&
			    top.val < base) {
				d->hold_job = job;
				d->hold_ns = (uint64_t)top.d;
				d->hold_at_ns = now_ns + (uint64_t)pr[job].t0;
				d->hold_why = "the hold lowers the overlap";
			} else {
				d->hold_why = "the best hold gains less than "
					      "shift_gain_min";
			}
		}
	}
out:
	if (n)
		fill_shares(w, lo, hi, n, d->share);
	return 0;
}

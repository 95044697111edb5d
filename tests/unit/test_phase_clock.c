// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_phase_clock.c - the phase clock (jobs/phase_clock.h) on a fake
 * clock, default parameters (1 ms bins, k = 3, tolerance 10 %), fed packet
 * by packet by seeded generators, the control thread's update every 10 ms
 * unless a test says otherwise:
 *  - a job of period 50 / 100 / 500 ms, comm phase 40 %, onsets jittered by
 *    +-2 % of the period, bytes per iteration by +-5 %, 10 seeds each: locked
 *    within 5 iterations of its first burst, period error <= 3 %, comm
 *    length within 2 bins + 5 %, bytes per iteration within 6 %, every
 *    later onset within the tolerance of its prediction, no unlock;
 *  - the same with the update once a second: nothing lost, same lock;
 *  - a bucketed all-reduce (its comm phase 3 bursts with compute between):
 *    locked within 6 iterations, period error <= 3 %, comm phase within
 *    10 % of its span, no unlock;
 *  - a period change of +30 % and -30 %: relocked within 4 iterations of
 *    the new period, its error <= 3 %; a period drifting 20 % over 60
 *    iterations: followed without an unlock, its error <= 3 %;
 *  - zero locks on Poisson bursts of random and of equal sizes (20 seeds x
 *    60 s each) and on constant-rate
 *    bulk; zero locks on periodic storage: a stream modulated between 100 %
 *    and 40 % (no quiet gap), a writer pausing 10 ms in 100 (duty 0.9),
 *    checkpoints every 10 s (above the longest period), flushes whose size
 *    varies 5x at a fixed period;
 *  - a job that stops: lost within 2.3 periods of its last onset,
 *    searching after 8; restarted at another phase: locked again within
 *    5 iterations;
 *  - bytes conserved through the ring across irregular updates; a reader
 *    away longer than the ring counts what it lost; a bin the owner left
 *    open is final settle_ns after its end; on two real threads,
 *    an owner lapping a 64-bin ring, every bin the reader keeps is whole;
 *  - params_check names the bad field.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "phase_clock.h"

#define MS 1000000ull
#define SEC 1000000000ull
#define PKT 1500u

/* splitmix64: a seeded generator, the same numbers on every machine */
struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static double rng_u(struct rng *r)
{
	return (double)(rng_next(r) >> 11) / (double)(1ull << 53);
}

/* uniform in [-1, 1) */
static double rng_s(struct rng *r)
{
	return 2.0 * rng_u(r) - 1.0;
}

/* exponential of mean m */
static double rng_exp(struct rng *r, double m)
{
	return -m * log(1.0 - rng_u(r));
}

/*
 * A source of packets: bursts planned one at a time by plan(), each at
 * on_bps from start for len ns, off_bps between bursts. Packets of PKT
 * bytes, their spacing jittered by +-50 %.
 */
enum kind { JOB, POISSON, BULK, MODULATED, FLUSH, BUCKETS };

struct gen {
	enum kind kind;
	struct rng r;
	uint64_t t; /* next packet */
	uint64_t b_start, b_end; /* current burst */
	double on_bps, off_bps;
	/* JOB and the periodic kinds */
	uint64_t base; /* nominal onset of the current burst */
	uint64_t period, period2, change_at;
	uint64_t drift; /* added to the period every iteration */
	uint64_t stop_at, restart_at;
	uint64_t comm;
	double jitter; /* onsets, fraction of the period */
	double bytes_jitter; /* burst length, fraction */
	bool equal; /* POISSON: every burst 20 ms */
	/* BUCKETS: the comm phase as 3 bursts of comm / 3, gap apart */
	uint64_t bucket_gap;
	uint32_t bucket; /* the burst of the comm phase planned last */
	/* what was generated */
	uint64_t onsets[4096];
	uint32_t n_onsets;
	uint64_t bytes;
};

static void plan(struct gen *g)
{
	uint64_t start, len;

	switch (g->kind) {
	case BUCKETS:
		if (g->bucket % 3) {
			start = g->b_end + g->bucket_gap;
			len = g->comm / 3;
			g->bucket++;
			g->b_start = start;
			g->b_end = start + len;
			return; /* not an onset of the job */
		}
		g->bucket++;
		g->base += g->period;
		start = g->base +
			(int64_t)(rng_s(&g->r) * g->jitter * (double)g->period);
		len = g->comm / 3;
		break;
	case JOB:
	case FLUSH:
	case MODULATED:
		g->base += g->base >= g->change_at ? g->period2 : g->period;
		g->period += g->drift;
		if (g->base >= g->stop_at && g->base < g->restart_at)
			g->base = g->restart_at;
		start = g->base +
			(int64_t)(rng_s(&g->r) * g->jitter * (double)g->period);
		len = g->comm;
		if (g->kind == JOB)
			len = (uint64_t)((double)len *
					 (1.0 +
					  g->bytes_jitter * rng_s(&g->r)));
		else if (g->kind == FLUSH)
			len = (uint64_t)((double)len *
					 (0.2 + 1.8 * rng_u(&g->r)));
		break;
	case POISSON:
		start = g->b_end + (uint64_t)rng_exp(&g->r, 100.0 * MS);
		len = g->equal ? 20 * MS
			       : 5 * MS + (uint64_t)(rng_u(&g->r) * 35.0 * MS);
		break;
	case BULK:
	default:
		start = g->b_end;
		len = 1000 * SEC;
		break;
	}
	if (start < g->b_end)
		start = g->b_end;
	g->b_start = start;
	g->b_end = start + len;
	if (g->n_onsets < 4096)
		g->onsets[g->n_onsets++] = start;
}

static uint64_t spacing(struct gen *g, double bps)
{
	return (uint64_t)((double)PKT * 8.0 / bps * 1e9 *
			  (1.0 + 0.5 * rng_s(&g->r)));
}

/* The next packet's time; false when none before end. */
static bool gen_next(struct gen *g, uint64_t end, uint64_t *t)
{
	for (;;) {
		if (g->t >= g->b_end) {
			plan(g);
			if (g->off_bps > 0.0 && g->t < g->b_start) {
				/* off-rate packets until the burst */
			} else if (g->t < g->b_start) {
				g->t = g->b_start;
			}
		}
		if (g->t >= end)
			return false;
		if (g->t >= g->b_start) {
			*t = g->t;
			g->t += spacing(g, g->on_bps);
			g->bytes += PKT;
			return true;
		}
		/* between bursts, at the off rate */
		*t = g->t;
		g->t += spacing(g, g->off_bps);
		if (g->t > g->b_start)
			g->t = g->b_start;
		g->bytes += PKT;
		return true;
	}
}

static void gen_init(struct gen *g, enum kind kind, uint64_t seed,
		     uint64_t first)
{
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->r.s = seed;
	g->t = first;
	g->b_start = g->b_end = first;
	g->on_bps = 400e6;
	g->period = g->period2 = 100 * MS;
	g->change_at = g->stop_at = g->restart_at = UINT64_MAX;
	g->base = first - g->period;
	g->comm = 40 * MS;
	g->jitter = 0.02;
	g->bytes_jitter = 0.05;
}

/* What the control thread saw at each update. */
struct trace {
	uint64_t first_lock; /* time of the first update that saw LOCKED */
	uint64_t locks, unlocks;
	enum phase_clock_state state;
	uint64_t lost_at, searching_at;
	struct phase_clock_est last;
	/* onsets judged while locked: |actual - predicted| worst */
	uint64_t pred_err_max, preds;
	uint64_t pending_pred; /* the last update's next onset */
};

struct sim {
	struct phase_clock pc;
	struct gen g;
	struct trace tr;
	uint64_t now, update_ns;
};

static void sim_init(struct sim *s, enum kind kind, uint64_t seed,
		     const struct phase_clock_params *p)
{
	struct phase_clock_params d;

	if (!p) {
		phase_clock_params_default(&d);
		p = &d;
	}
	memset(&s->tr, 0, sizeof(s->tr));
	s->now = 1 * SEC;
	s->update_ns = 10 * MS;
	assert_int_equal(phase_clock_init(&s->pc, p, s->now), 0);
	gen_init(&s->g, kind, seed, s->now + 200 * MS);
}

static void observe(struct sim *s)
{
	const struct phase_clock_est *e;
	struct trace *tr = &s->tr;

	e = phase_clock_update(&s->pc, s->now);
	/* a new onset: the generated onset nearest to the prediction the
	 * last update made, against it */
	if (e->onsets != tr->last.onsets && tr->pending_pred) {
		uint64_t best = UINT64_MAX, d;
		uint32_t i;

		for (i = 0; i < s->g.n_onsets && s->g.onsets[i] <= s->now;
		     i++) {
			d = s->g.onsets[i] > tr->pending_pred
				    ? s->g.onsets[i] - tr->pending_pred
				    : tr->pending_pred - s->g.onsets[i];
			if (d < best)
				best = d;
		}
		if (best > tr->pred_err_max)
			tr->pred_err_max = best;
		tr->preds++;
	}
	if (e->state == PHASE_CLOCK_LOCKED && !tr->first_lock)
		tr->first_lock = s->now;
	if (e->state == PHASE_CLOCK_LOST && tr->state == PHASE_CLOCK_LOCKED)
		tr->lost_at = s->now;
	if (e->state == PHASE_CLOCK_SEARCHING && tr->state != e->state)
		tr->searching_at = s->now;
	tr->state = e->state;
	if (e->state == PHASE_CLOCK_LOCKED)
		tr->pending_pred = e->next_onset_ns;
	else
		tr->pending_pred = 0;
	tr->locks = e->locks;
	tr->unlocks = e->unlocks;
	tr->last = *e;
}

/* Run the source and the clock to time end. */
static void sim_run(struct sim *s, uint64_t end)
{
	uint64_t t, next_up = s->now + s->update_ns;

	while (gen_next(&s->g, end, &t)) {
		while (next_up <= t) {
			s->now = next_up;
			observe(s);
			next_up += s->update_ns;
		}
		s->now = t;
		phase_clock_add(&s->pc.w, t, PKT);
	}
	while (next_up <= end) {
		s->now = next_up;
		observe(s);
		next_up += s->update_ns;
	}
	s->now = end;
}

/* Complete iterations generated from onset i to time t. */
static double iters_before(const struct gen *g, uint32_t i, uint64_t t)
{
	uint32_t n = 0;

	for (i++; i < g->n_onsets && g->onsets[i] <= t; i++)
		n++;
	return n;
}

static double rel_err(double est, double truth)
{
	double d = est - truth;

	return (d < 0 ? -d : d) / truth;
}

/* Lock of a steady job: returns the worst iterations to lock (counted
 * from the first burst, in periods) and period error over seeds. */
static void steady(uint64_t period, uint64_t update_ns, uint64_t min_preds,
		   double *iters_max, double *err_max, uint64_t *pred_err_max)
{
	struct sim s;
	uint64_t seed;

	*iters_max = *err_max = 0.0;
	*pred_err_max = 0;
	for (seed = 1; seed <= 10; seed++) {
		double iters, err;

		sim_init(&s, JOB, seed, NULL);
		s.update_ns = update_ns;
		s.g.period = s.g.period2 = period;
		s.g.comm = period * 2 / 5;
		s.g.base = s.g.t - period;
		sim_run(&s, s.g.t + 40 * period);
		assert_int_not_equal(s.tr.first_lock, 0);
		iters = iters_before(&s.g, 0, s.tr.first_lock);
		err = rel_err((double)s.tr.last.period_ns, (double)period);
		if (iters > *iters_max)
			*iters_max = iters;
		if (err > *err_max)
			*err_max = err;
		if (s.tr.pred_err_max > *pred_err_max)
			*pred_err_max = s.tr.pred_err_max;
		assert_int_equal(s.tr.locks, 1);
		assert_int_equal(s.tr.unlocks, 0);
		assert_int_equal(s.tr.last.state, PHASE_CLOCK_LOCKED);
		assert_true(s.tr.preds >= min_preds);
		/* comm phase: 40 % +- 5 % jitter of the length, 2 bins */
		assert_true(
			rel_err((double)s.tr.last.comm_ns, (double)s.g.comm) <=
			0.05 + 2.0 * MS / (double)s.g.comm);
		assert_true(rel_err((double)s.tr.last.bytes_per_iter,
				    400e6 / 8 * (double)s.g.comm / 1e9) <=
			    0.06);
		assert_true(s.tr.last.spread_ns <= period / 20);
		assert_int_equal(s.tr.last.lost_bins, 0);
		phase_clock_fini(&s.pc);
	}
}

static void test_lock_steady_job(void **state)
{
	static const uint64_t periods[] = {50 * MS, 100 * MS, 500 * MS};
	double iters, err;
	uint64_t pe;
	unsigned i;

	(void)state;
	for (i = 0; i < 3; i++) {
		steady(periods[i], 10 * MS, 30, &iters, &err, &pe);
		print_message("period %3llu ms, onsets +-2 %%: locked within "
			      "%.0f iterations (worst of 10 seeds), period "
			      "error %.2f %%, onset vs prediction <= %.1f ms\n",
			      (unsigned long long)(periods[i] / MS), iters,
			      100.0 * err, (double)pe / 1e6);
		/* k + 2 onsets: the end of the 5th iteration */
		assert_true(iters <= 5.0);
		assert_true(err <= 0.03);
		assert_true((double)pe <= 0.1 * (double)periods[i]);
	}
}

/* A bucketed all-reduce: the comm phase is 3 bursts of 12 ms with 6 ms
 * of compute between them (idle_bins is 5: each burst alone has an
 * onset); one onset per iteration all the same. */
static void test_lock_bucketed_job(void **state)
{
	struct sim s;
	double iters, err;

	(void)state;
	sim_init(&s, BUCKETS, 9, NULL);
	s.g.comm = 36 * MS;
	s.g.bucket_gap = 6 * MS;
	sim_run(&s, s.g.t + 40 * s.g.period);
	iters = iters_before(&s.g, 0, s.tr.first_lock);
	err = rel_err((double)s.tr.last.period_ns, 100.0 * MS);
	print_message("bucketed all-reduce (3 x 12 ms, 6 ms apart), period "
		      "100 ms: locked within %.0f iterations, period error "
		      "%.2f %%, comm phase %.0f ms, %llu unlocks\n",
		      iters, 100.0 * err, (double)s.tr.last.comm_ns / 1e6,
		      (unsigned long long)s.tr.unlocks);
	assert_int_not_equal(s.tr.first_lock, 0);
	assert_true(iters <= 6.0);
	assert_true(err <= 0.03);
	/* from the first bucket's onset to the end of the last */
	assert_true(rel_err((double)s.tr.last.comm_ns, 48.0 * MS) <= 0.1);
	assert_int_equal(s.tr.unlocks, 0);
	assert_int_equal(s.tr.state, PHASE_CLOCK_LOCKED);
	phase_clock_fini(&s.pc);
}

/* The control thread once a second: the ring holds 8 s, nothing lost. */
static void test_lock_slow_reader(void **state)
{
	double iters, err;
	uint64_t pe;

	(void)state;
	steady(100 * MS, 1 * SEC, 3, &iters, &err, &pe);
	print_message("update every 1 s: locked at the first update, within "
		      "%.0f iterations, period error %.2f %%\n",
		      iters, 100.0 * err);
	/* k + 2 onsets, seen at the next update (10 periods later at most) */
	assert_true(iters <= 5.0 + 10.0);
	assert_true(err <= 0.03);
}

static void period_change(double factor, uint64_t *relock_iters, double *err)
{
	struct sim s;
	uint64_t t2;
	uint32_t i;

	sim_init(&s, JOB, 7, NULL);
	s.g.change_at = s.g.t + 30 * s.g.period;
	s.g.period2 = (uint64_t)((double)s.g.period * factor);
	sim_run(&s, s.g.change_at);
	assert_int_equal(s.tr.state, PHASE_CLOCK_LOCKED);
	s.tr.first_lock = 0;
	t2 = s.g.change_at + 40 * s.g.period2;
	/* run in steps to catch the relock */
	while (s.now < t2) {
		sim_run(&s, s.now + 10 * MS);
		if (s.tr.unlocks && s.tr.state == PHASE_CLOCK_LOCKED)
			break;
	}
	assert_int_equal(s.tr.unlocks, 1);
	assert_int_equal(s.tr.state, PHASE_CLOCK_LOCKED);
	/* the first onset at or after change_at ends the last interval of
	 * the old period: count the new intervals up to the relock */
	for (i = 0; i < s.g.n_onsets; i++)
		if (s.g.onsets[i] >= s.g.change_at)
			break;
	for (*relock_iters = 0, i++; i < s.g.n_onsets; i++)
		if (s.g.onsets[i] <= s.now)
			(*relock_iters)++;
	sim_run(&s, t2);
	*err = rel_err((double)s.tr.last.period_ns, (double)s.g.period2);
	assert_int_equal(s.tr.state, PHASE_CLOCK_LOCKED);
	assert_int_equal(s.tr.locks, 2);
	phase_clock_fini(&s.pc);
}

static void test_relock_period_change(void **state)
{
	uint64_t it;
	double err;

	(void)state;
	period_change(1.3, &it, &err);
	print_message("period 100 -> 130 ms: relocked within %llu "
		      "iterations of the new period, period error %.2f %%\n",
		      (unsigned long long)it, 100.0 * err);
	assert_true(it <= 4);
	assert_true(err <= 0.03);
	period_change(0.7, &it, &err);
	print_message("period 100 -> 70 ms: relocked within %llu "
		      "iterations of the new period, period error %.2f %%\n",
		      (unsigned long long)it, 100.0 * err);
	assert_true(it <= 4);
	assert_true(err <= 0.03);
}

/* A job whose period drifts 20 % over 60 iterations (100 -> 120 ms, a
 * step slowing down): followed, never unlocked, the period within 3 %. */
static void test_follow_drift(void **state)
{
	struct sim s;
	double err, worst = 0.0;
	uint64_t end;

	(void)state;
	sim_init(&s, JOB, 11, NULL);
	s.g.drift = 20 * MS / 60;
	s.g.period2 = UINT64_MAX; /* unused: no change_at */
	sim_run(&s, s.g.t + 10 * 100 * MS);
	assert_int_equal(s.tr.state, PHASE_CLOCK_LOCKED);
	end = s.g.t + 60 * 110 * MS;
	while (s.now < end && s.g.period < 120 * MS) {
		sim_run(&s, s.now + 100 * MS);
		err = rel_err((double)s.tr.last.period_ns, (double)s.g.period);
		if (err > worst)
			worst = err;
	}
	print_message("period drifting 100 -> %.0f ms over 60 iterations: "
		      "%llu unlocks, period error <= %.2f %%, onset vs "
		      "prediction <= %.1f ms\n",
		      (double)s.g.period / 1e6,
		      (unsigned long long)s.tr.unlocks, 100.0 * worst,
		      (double)s.tr.pred_err_max / 1e6);
	assert_int_equal(s.tr.unlocks, 0);
	assert_int_equal(s.tr.state, PHASE_CLOCK_LOCKED);
	assert_true(worst <= 0.03);
	phase_clock_fini(&s.pc);
}

static void test_no_lock_poisson(void **state)
{
	uint64_t seed, onsets, refused, locks;
	struct sim s;
	int equal;

	(void)state;
	for (equal = 0; equal <= 1; equal++) {
		onsets = refused = locks = 0;
		for (seed = 1; seed <= 20; seed++) {
			sim_init(&s, POISSON, seed, NULL);
			s.g.equal = equal;
			sim_run(&s, s.g.t + 60 * SEC);
			onsets += s.tr.last.onsets;
			refused += s.tr.last.refused;
			locks += s.tr.locks;
			phase_clock_fini(&s.pc);
		}
		print_message("Poisson bursts (gaps of mean 100 ms, %s), 20 x "
			      "60 s: %llu onsets, %llu runs of k hits refused, "
			      "%llu locks\n",
			      equal ? "all 20 ms" : "5..40 ms",
			      (unsigned long long)onsets,
			      (unsigned long long)refused,
			      (unsigned long long)locks);
		assert_true(onsets > 20 * 200);
		assert_int_equal(locks, 0);
	}
}

static void test_no_lock_bulk(void **state)
{
	struct sim s;

	(void)state;
	sim_init(&s, BULK, 3, NULL);
	sim_run(&s, s.g.t + 60 * SEC);
	print_message("constant-rate bulk, 60 s: %llu onsets, %llu locks\n",
		      (unsigned long long)s.tr.last.onsets,
		      (unsigned long long)s.tr.locks);
	assert_true(s.tr.last.onsets <= 1);
	assert_int_equal(s.tr.locks, 0);
	phase_clock_fini(&s.pc);
}

/* Periodic storage, each refused by one rule of phase_clock.h. */
static uint64_t storage(enum kind kind, uint64_t period, uint64_t on,
			double off_bps, uint64_t seed, uint64_t *onsets,
			uint64_t *refused)
{
	struct sim s;
	uint64_t locks;

	sim_init(&s, kind, seed, NULL);
	s.g.period = s.g.period2 = period;
	s.g.base = s.g.t - period;
	s.g.comm = on;
	s.g.off_bps = off_bps;
	s.g.jitter = 0.01;
	sim_run(&s, s.g.t + (period >= SEC ? 120 * SEC : 60 * SEC));
	locks = s.tr.locks;
	*onsets = s.tr.last.onsets;
	*refused = s.tr.last.refused;
	phase_clock_fini(&s.pc);
	return locks;
}

static void test_no_lock_periodic_storage(void **state)
{
	uint64_t on, ref, locks, seed, total = 0, flush_ref = 0;

	(void)state;
	/* a stream at 400 Mbit/s for 50 ms, 160 for 50 ms: no quiet gap */
	locks = storage(MODULATED, 100 * MS, 50 * MS, 160e6, 1, &on, &ref);
	print_message("modulated 100 %%/40 %% every 100 ms: %llu onsets, "
		      "%llu locks\n",
		      (unsigned long long)on, (unsigned long long)locks);
	assert_int_equal(locks, 0);
	/* a writer pausing 10 ms in every 100: duty 0.9 */
	locks = storage(MODULATED, 100 * MS, 90 * MS, 0.0, 2, &on, &ref);
	print_message("writer pausing 10 ms per 100 ms: %llu onsets, %llu "
		      "runs refused, %llu locks\n",
		      (unsigned long long)on, (unsigned long long)ref,
		      (unsigned long long)locks);
	assert_true(on > 500);
	assert_true(ref > 0);
	assert_int_equal(locks, 0);
	/* checkpoints of 1 s every 10 s: above max_period_ns */
	locks = storage(MODULATED, 10 * SEC, 1 * SEC, 0.0, 3, &on, &ref);
	print_message("checkpoint 1 s every 10 s: %llu onsets, %llu locks\n",
		      (unsigned long long)on, (unsigned long long)locks);
	assert_true(on >= 10);
	assert_int_equal(locks, 0);
	/* flushes every 100 ms of 0.2 .. 2 x 20 ms worth: sizes vary */
	for (seed = 1; seed <= 10; seed++) {
		total +=
			storage(FLUSH, 100 * MS, 20 * MS, 0.0, seed, &on, &ref);
		flush_ref += ref;
	}
	print_message("flushes of varying size every 100 ms, 10 x 60 s: "
		      "%llu runs refused, %llu locks\n",
		      (unsigned long long)flush_ref, (unsigned long long)total);
	assert_int_equal(total, 0);
}

/* A job that stops and starts again at another phase. */
static void test_stop_restart(void **state)
{
	struct sim s;
	uint64_t stop, last_onset = 0, restart;
	uint32_t i, first_after = 0;

	(void)state;
	sim_init(&s, JOB, 5, NULL);
	stop = s.g.t + 20 * s.g.period + 50 * MS;
	restart = stop + 3 * SEC + 37 * MS;
	s.g.stop_at = stop;
	s.g.restart_at = restart;
	sim_run(&s, stop);
	assert_int_equal(s.tr.state, PHASE_CLOCK_LOCKED);
	sim_run(&s, restart - 10 * MS);
	for (i = 0; i < s.g.n_onsets; i++)
		if (s.g.onsets[i] < stop)
			last_onset = s.g.onsets[i];
	print_message("job stops: lost %.2f periods after its last onset, "
		      "searching after %.2f\n",
		      (double)(s.tr.lost_at - last_onset) / (100.0 * MS),
		      (double)(s.tr.searching_at - last_onset) / (100.0 * MS));
	assert_int_not_equal(s.tr.lost_at, 0);
	assert_true(s.tr.lost_at - last_onset <= 220 * MS + 10 * MS);
	assert_int_equal(s.tr.state, PHASE_CLOCK_SEARCHING);
	assert_true(s.tr.searching_at - last_onset <= 820 * MS + 10 * MS);
	s.tr.first_lock = 0;
	sim_run(&s, restart + 20 * s.g.period);
	for (i = 0; i < s.g.n_onsets; i++)
		if (s.g.onsets[i] >= stop) {
			first_after = i;
			break;
		}
	print_message("job restarts: locked again within %.0f iterations, "
		      "period error %.2f %%\n",
		      iters_before(&s.g, first_after, s.tr.first_lock),
		      100.0 * rel_err((double)s.tr.last.period_ns, 100.0 * MS));
	assert_int_equal(s.tr.state, PHASE_CLOCK_LOCKED);
	assert_true(iters_before(&s.g, first_after, s.tr.first_lock) <= 5.0);
	assert_true(rel_err((double)s.tr.last.period_ns, 100.0 * MS) <= 0.03);
	phase_clock_fini(&s.pc);
}

/* Every byte added is consumed once across irregular updates; a reader
 * away longer than the ring counts the bins it lost. */
static void test_ring_conservation(void **state)
{
	struct phase_clock_params p;
	struct phase_clock pc;
	struct rng r = {42};
	uint64_t now = 5 * SEC, added = 0, next_up, end;

	(void)state;
	phase_clock_params_default(&p);
	p.bins = 1024;
	p.max_period_ns = 200 * MS;
	assert_int_equal(phase_clock_init(&pc, &p, now), 0);
	next_up = now + 1 * MS;
	end = now + 20 * SEC;
	while (now < end) {
		now += 1000 + rng_next(&r) % 200000;
		phase_clock_add(&pc.w, now, PKT);
		added += PKT;
		if (now >= next_up) {
			phase_clock_update(&pc, now);
			/* irregular: 1 ms .. 900 ms, within the 1.024 s ring */
			next_up = now + 1 * MS + rng_next(&r) % (900 * MS);
		}
	}
	phase_clock_update(&pc, now + 3 * MS);
	print_message("20 s of packets, updates 1..900 ms apart: %llu bytes "
		      "added, %llu consumed, %llu bins lost\n",
		      (unsigned long long)added,
		      (unsigned long long)pc.est.bytes,
		      (unsigned long long)pc.est.lost_bins);
	assert_int_equal(pc.est.bytes, added);
	assert_int_equal(pc.est.lost_bins, 0);
	/* a packet stamped before the open bin counts in the open bin */
	now += 10 * MS;
	phase_clock_add(&pc.w, now, PKT);
	phase_clock_add(&pc.w, now - 5 * MS, PKT);
	added += 2 * PKT;
	phase_clock_update(&pc, now + 3 * MS);
	assert_int_equal(pc.est.bytes, added);
	assert_int_equal(pc.hist[(now / MS) & pc.w.mask], 2 * PKT);
	/* an owner idle since its last packet: the open bin is final
	 * settle_ns (2 ms) after its end, not sooner */
	now += 10 * MS - now % MS; /* the start of a bin */
	phase_clock_add(&pc.w, now, PKT);
	phase_clock_update(&pc, now + 2 * MS + MS / 2);
	phase_clock_add(&pc.w, now + MS / 2, PKT); /* stamped late */
	added += 2 * PKT;
	phase_clock_update(&pc, now + 3 * MS);
	assert_int_equal(pc.est.bytes, added);
	phase_clock_add(&pc.w, now + MS / 2, PKT); /* later than settle */
	now += 20 * MS;
	phase_clock_update(&pc, now);
	assert_int_equal(pc.est.bytes, added);
	/* away 3 s: 3 s minus the ring's 1024 bins are lost */
	phase_clock_add(&pc.w, now + 10 * MS, PKT);
	phase_clock_add(&pc.w, now + 3 * SEC, PKT);
	phase_clock_update(&pc, now + 3 * SEC + 10 * MS);
	assert_true(pc.est.lost_bins >= 3000 - 1024);
	assert_true(pc.est.lost_bins <= 3010 - 1024 + 2);
	phase_clock_fini(&pc);
}

/*
 * The owner and the control thread at once, on real threads: the owner
 * fills every bin with exactly PER_BIN packets (synthetic time, a bin
 * every few microseconds, a ring of 64 bins so that it laps the reader
 * all the time) and publishes its time; the reader updates with that
 * time. Every bin the reader keeps must be whole: the bytes it consumed
 * are (bins consumed - bins lost) x PER_BIN x PKT exactly. A copy of a
 * slot the owner reused under it that the claim did not catch breaks
 * the equality.
 */
#define PER_BIN 8

struct race {
	struct phase_clock pc;
	uint64_t wtime; /* the owner's time: release store, acquire load */
	int stop;
};

static void *race_owner(void *arg)
{
	struct race *r = arg;
	uint64_t t = r->pc.w.open * MS, i = 0;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		phase_clock_add(&r->pc.w, t, PKT);
		__atomic_store_n(&r->wtime, t, __ATOMIC_RELEASE);
		if (++i % PER_BIN == 0)
			t += MS - (PER_BIN - 1) * (MS / PER_BIN);
		else
			t += MS / PER_BIN;
	}
	return NULL;
}

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

static void test_two_threads(void **state)
{
	struct phase_clock_params p;
	struct race r;
	pthread_t th;
	uint64_t end, updates = 0, kept, bins;

	(void)state;
	phase_clock_params_default(&p);
	p.bins = 64;
	p.min_period_ns = 7 * MS;
	p.max_period_ns = 16 * MS;
	memset(&r, 0, sizeof(r));
	assert_int_equal(phase_clock_init(&r.pc, &p, 10 * SEC), 0);
	r.wtime = 10 * SEC;
	assert_int_equal(pthread_create(&th, NULL, race_owner, &r), 0);
	end = real_ns() + 300 * MS;
	while (real_ns() < end) {
		phase_clock_update(&r.pc,
				   __atomic_load_n(&r.wtime, __ATOMIC_ACQUIRE));
		updates++;
		bins = r.pc.next_bin - r.pc.first_bin;
		kept = bins - r.pc.est.lost_bins;
		if (r.pc.est.bytes != kept * PER_BIN * PKT)
			break;
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	bins = r.pc.next_bin - r.pc.first_bin;
	kept = bins - r.pc.est.lost_bins;
	print_message("owner and reader on two threads, 300 ms, ring of 64 "
		      "bins: %llu updates, %llu bins, %llu lost, %llu bytes "
		      "for %llu whole bins\n",
		      (unsigned long long)updates, (unsigned long long)bins,
		      (unsigned long long)r.pc.est.lost_bins,
		      (unsigned long long)r.pc.est.bytes,
		      (unsigned long long)kept);
	assert_true(bins > 1000);
	assert_int_equal(r.pc.est.bytes, kept * PER_BIN * PKT);
	phase_clock_fini(&r.pc);
}

static void test_params_check(void **state)
{
	struct phase_clock_params p, d;
	const char *why = "x";

	(void)state;
	phase_clock_params_default(&d);
	assert_int_equal(phase_clock_params_check(&d, &why), 0);
	assert_null(why);
	p = d;
	p.bins = 1000;
	assert_int_equal(phase_clock_params_check(&p, &why), -1);
	assert_non_null(strstr(why, "bins"));
	p = d;
	p.max_period_ns = 3 * SEC;
	assert_int_equal(phase_clock_params_check(&p, &why), -1);
	assert_non_null(strstr(why, "4 x max_period_ns"));
	p = d;
	p.k = 1;
	assert_int_equal(phase_clock_params_check(&p, &why), -1);
	assert_non_null(strstr(why, "k:"));
	p = d;
	p.tolerance = 0.0 / 0.0;
	assert_int_equal(phase_clock_params_check(&p, &why), -1);
	assert_non_null(strstr(why, "tolerance"));
	p = d;
	p.min_period_ns = 3 * MS;
	assert_int_equal(phase_clock_params_check(&p, &why), -1);
	assert_non_null(strstr(why, "min_period_ns"));
	assert_string_equal(phase_clock_state_name(PHASE_CLOCK_LOST), "lost");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_check),
		cmocka_unit_test(test_ring_conservation),
		cmocka_unit_test(test_two_threads),
		cmocka_unit_test(test_lock_steady_job),
		cmocka_unit_test(test_lock_slow_reader),
		cmocka_unit_test(test_lock_bucketed_job),
		cmocka_unit_test(test_relock_period_change),
		cmocka_unit_test(test_follow_drift),
		cmocka_unit_test(test_no_lock_poisson),
		cmocka_unit_test(test_no_lock_bulk),
		cmocka_unit_test(test_no_lock_periodic_storage),
		cmocka_unit_test(test_stop_restart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

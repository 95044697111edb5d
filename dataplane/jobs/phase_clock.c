// SPDX-License-Identifier: BSD-2-Clause
/*
 * phase_clock.c - the phase clock of one job on one egress port: the
 * owner's bins and the control thread's estimator. The model, the rules
 * and who may call what: phase_clock.h.
 */
#include "phase_clock.h"

#include "dp_assert.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void phase_clock_params_default(struct phase_clock_params *p)
{
	*p = (struct phase_clock_params){
		.bin_ns = 1000000,
		.bins = 8192,
		.min_period_ns = 10000000,
		.max_period_ns = 2000000000,
		.active_bps = 10e6,
		.active_frac = 0.25,
		.idle_bins = 5,
		.k = 4,
		.tolerance = 0.1,
		.miss_max = 2,
		.acf_min = 0.5,
		.max_duty = 0.8,
		.bytes_tol = 0.3,
		.forget_periods = 8,
		.gap_frac = 0.25,
		.settle_ns = 2000000,
	};
}

static bool in_range(double v, double lo, double hi)
{
	return v >= lo && v <= hi; /* false for NaN */
}

int phase_clock_params_check(const struct phase_clock_params *p,
			     const char **why)
{
	const char *bad = NULL;

	if (p->bin_ns < 10000 || p->bin_ns > 10000000)
		bad = "bin_ns: must be 10 us .. 10 ms";
	else if (p->bins < 64 || p->bins > (1u << 20) ||
		 (p->bins & (p->bins - 1)))
		bad = "bins: must be a power of two, 64 .. 2^20";
	else if (p->idle_bins < 1 || p->idle_bins > 1000)
		bad = "idle_bins: must be 1 .. 1000";
	else if (p->min_period_ns < (uint64_t)(p->idle_bins + 2) * p->bin_ns)
		bad = "min_period_ns: must be at least idle_bins + 2 bins";
	else if (p->max_period_ns < 2 * p->min_period_ns)
		bad = "max_period_ns: must be at least 2 x min_period_ns";
	else if (p->max_period_ns / p->bin_ns > p->bins / 4)
		bad = "bins: must cover 4 x max_period_ns";
	else if (!in_range(p->active_bps, 0.0, 1e15))
		bad = "active_bps: must be 0 .. 1 Pbit/s";
	else if (!in_range(p->active_frac, 0.0, 1.0))
		bad = "active_frac: must be 0 .. 1";
	else if (p->k < 2 || p->k > PHASE_CLOCK_K_MAX)
		bad = "k: must be 2 .. 16";
	else if (!in_range(p->tolerance, 0.001, 0.5))
		bad = "tolerance: must be 0.001 .. 0.5";
	else if (p->miss_max < 1 || p->miss_max > 1000)
		bad = "miss_max: must be 1 .. 1000";
	else if (!in_range(p->acf_min, -1.0, 1.0))
		bad = "acf_min: must be -1 .. 1";
	else if (!in_range(p->max_duty, 0.0, 1.0))
		bad = "max_duty: must be 0 .. 1";
	else if (!in_range(p->bytes_tol, 0.0, 1e6))
		bad = "bytes_tol: must be 0 .. 1e6";
	else if (p->forget_periods < 1 || p->forget_periods > 1000000)
		bad = "forget_periods: must be 1 .. 10^6";
	else if (!in_range(p->gap_frac, 0.0, 0.9))
		bad = "gap_frac: must be 0 .. 0.9";
	else if (p->settle_ns < p->bin_ns || p->settle_ns > 1000000000)
		bad = "settle_ns: must be bin_ns .. 1 s";
	if (why)
		*why = bad;
	return bad ? -1 : 0;
}

const char *phase_clock_state_name(enum phase_clock_state s)
{
	switch (s) {
	case PHASE_CLOCK_SEARCHING:
		return "searching";
	case PHASE_CLOCK_LOCKED:
		return "locked";
	case PHASE_CLOCK_LOST:
		return "lost";
	}
	return "?";
}

int phase_clock_init(struct phase_clock *pc, const struct phase_clock_params *p,
		     uint64_t now_ns)
{
	if (phase_clock_params_check(p, NULL))
		return -EINVAL;
	memset(pc, 0, sizeof(*pc));
	pc->run_duty_ok = true;
	pc->run_min_bytes = UINT64_MAX;
	pc->w.ring = calloc(p->bins, sizeof(*pc->w.ring));
	pc->hist = calloc(p->bins, sizeof(*pc->hist));
	if (!pc->w.ring || !pc->hist) {
		phase_clock_fini(pc);
		return -ENOMEM;
	}
	pc->p = *p;
	pc->w.mask = p->bins - 1;
	pc->w.bin_ns = p->bin_ns;
	pc->w.open = now_ns / p->bin_ns;
	pc->w.open_end_ns = (pc->w.open + 1) * p->bin_ns;
	pc->w.pub = pc->w.open;
	pc->w.claim = pc->w.open;
	pc->next_bin = pc->w.open;
	pc->first_bin = pc->w.open;
	pc->active_min =
		(uint64_t)(p->active_bps / 8.0 * (double)p->bin_ns / 1e9);
	return 0;
}

void phase_clock_fini(struct phase_clock *pc)
{
	free(pc->w.ring);
	free(pc->hist);
	pc->w.ring = NULL;
	pc->hist = NULL;
}

/*
 * The owner moves the open bin to now_ns's. It announces the new index
 * (claim) before it zeroes the slots it reuses, and publishes it (pub)
 * after: a reader that copied a slot and then sees a claim at least the
 * slot's bin + bins knows the copy may be of the new bin's.
 */
void phase_clock_advance(struct phase_clock_writer *w, uint64_t now_ns)
{
	uint64_t b = now_ns / w->bin_ns, j, from;

	if (b <= w->open)
		return;
	__atomic_store_n(&w->claim, b, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	from = b - w->open > w->mask ? b - w->mask : w->open + 1;
	for (j = from; j <= b; j++)
		__atomic_store_n(&w->ring[j & w->mask], 0, __ATOMIC_RELAXED);
	w->open = b;
	w->open_end_ns = (b + 1) * w->bin_ns;
	__atomic_store_n(&w->pub, b, __ATOMIC_RELEASE);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of the last n of v[0..len) (the lower of the middle two). */
static uint64_t median_last(const uint64_t *v, uint32_t len, uint32_t n)
{
	uint64_t t[PHASE_CLOCK_K_MAX + 1];

	if (n > len)
		n = len;
	if (!n)
		return 0;
	memcpy(t, v + len - n, n * sizeof(*t));
	qsort(t, n, sizeof(*t), cmp_u64);
	return t[(n - 1) / 2];
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* sqrt for 0 <= a <= 1 without libm (Newton from 1: monotone). */
static double sqrt01(double a)
{
	double x = 1.0, y;
	int i;

	if (a <= 0.0)
		return 0.0;
	for (i = 0; i < 100; i++) {
		y = 0.5 * (x + a / x);
		if (y >= x)
			break;
		x = y;
	}
	return x;
}

/*
 * The normalized autocorrelation of the history at lag lag bins over the
 * window [end - win, end): the correlation of the first win - lag bins
 * with the last win - lag (around the window's mean).
 */
static double acf_at(const struct phase_clock *pc, uint64_t end, uint64_t win,
		     uint64_t lag)
{
	uint64_t s = end - win, i;
	double m = 0.0, num = 0.0, da = 0.0, db = 0.0, r;

	for (i = s; i < end; i++)
		m += pc->hist[i & pc->w.mask];
	m /= (double)win;
	for (i = s; i + lag < end; i++) {
		double a = pc->hist[i & pc->w.mask] - m;
		double b = pc->hist[(i + lag) & pc->w.mask] - m;

		num += a * b;
		da += a * a;
		db += b * b;
	}
	if (da <= 0.0 || db <= 0.0)
		return 0.0;
	r = num * num / (da * db);
	r = sqrt01(r > 1.0 ? 1.0 : r);
	return num < 0.0 ? -r : r;
}

static void run_reset(struct phase_clock *pc)
{
	pc->run = 0;
	pc->cand_bins = 0;
	pc->n_ivl = 0;
	pc->n_it = 0;
	pc->n_ron = 0;
	pc->run_duty_ok = true;
	pc->run_min_bytes = UINT64_MAX;
	pc->run_max_bytes = 0;
}

static void push_u64(uint64_t *v, uint32_t *n, uint32_t cap, uint64_t x)
{
	if (*n == cap) {
		memmove(v, v + 1, (cap - 1) * sizeof(*v));
		(*n)--;
	}
	v[(*n)++] = x;
}

/* T: the mean interval over the run's last onsets, ns. */
static uint64_t run_period_ns(const struct phase_clock *pc)
{
	uint64_t span = pc->ron[pc->n_ron - 1] - pc->ron[0];

	return (uint64_t)((double)span * (double)pc->p.bin_ns /
			  (double)(pc->n_ron - 1));
}

static void push_iter(struct phase_clock *pc, const struct phase_clock_iter *it)
{
	uint32_t cap = pc->p.k + 1;

	if (pc->n_it == cap) {
		memmove(pc->it, pc->it + 1, (cap - 1) * sizeof(pc->it[0]));
		pc->n_it--;
	}
	pc->it[pc->n_it++] = *it;
}

/* An iteration joins the run: its shape. */
static void run_note(struct phase_clock *pc, const struct phase_clock_iter *it)
{
	if ((double)it->comm_bins > pc->p.max_duty * (double)it->bins)
		pc->run_duty_ok = false;
	if (it->bytes < pc->run_min_bytes)
		pc->run_min_bytes = it->bytes;
	if (it->bytes > pc->run_max_bytes)
		pc->run_max_bytes = it->bytes;
}

/* Every iteration of the run has a job's shape. */
static bool run_shaped(const struct phase_clock *pc)
{
	return pc->run_duty_ok && pc->run_max_bytes &&
	       (double)pc->run_max_bytes <=
		       (1.0 + pc->p.bytes_tol) * (double)pc->run_min_bytes;
}

/* The medians of the run's last k iterations into the estimate. */
static void estimate_iters(struct phase_clock *pc)
{
	uint64_t c[PHASE_CLOCK_K_MAX + 1], b[PHASE_CLOCK_K_MAX + 1];
	uint32_t i;

	for (i = 0; i < pc->n_it; i++) {
		c[i] = pc->it[i].comm_bins;
		b[i] = pc->it[i].bytes;
	}
	pc->est.comm_ns = median_last(c, pc->n_it, pc->p.k) * pc->p.bin_ns;
	pc->est.bytes_per_iter = median_last(b, pc->n_it, pc->p.k);
}

static void estimate_spread(struct phase_clock *pc)
{
	uint64_t a[PHASE_CLOCK_K_MAX];
	uint32_t i;

	for (i = 0; i < pc->n_resid; i++)
		a[i] = (uint64_t)abs64(pc->resid[i]);
	pc->est.spread_ns = median_last(a, pc->n_resid, pc->p.k);
}

static void push_resid(struct phase_clock *pc, int64_t r)
{
	if (pc->n_resid == pc->p.k) {
		memmove(pc->resid, pc->resid + 1,
			(pc->p.k - 1) * sizeof(pc->resid[0]));
		pc->n_resid--;
	}
	pc->resid[pc->n_resid++] = r;
	pc->est.last_error_ns = r;
}

static void unlock(struct phase_clock *pc)
{
	pc->est.state = PHASE_CLOCK_LOST;
	pc->est.next_onset_ns = 0;
	pc->est.unlocks++;
}

/*
 * Hits needed to lock: k; k - 1 while LOCKED or LOST if every iteration
 * of the run carries the bytes of the iterations it was locked to (the
 * same job at a new pace: a slower step keeps its gradients' size).
 */
static uint32_t hits_to_lock(const struct phase_clock *pc)
{
	double b = (double)pc->est.bytes_per_iter, m = 1.0 + pc->p.bytes_tol;

	if (pc->est.state != PHASE_CLOCK_SEARCHING && pc->run_max_bytes &&
	    (double)pc->run_max_bytes <= m * b &&
	    (double)pc->run_min_bytes * m >= b)
		return pc->p.k - 1;
	return pc->p.k;
}

/* A run of k hits ending at the onset in bin j: lock if it looks like a
 * job and its bytes repeat at its period. */
static void try_lock(struct phase_clock *pc, uint64_t j)
{
	uint64_t lag = pc->cand_bins, win = 4 * lag;

	if (win > pc->p.bins)
		win = pc->p.bins;
	if (win > j - pc->first_bin)
		win = j - pc->first_bin;
	pc->est.acf = win >= 2 * lag ? acf_at(pc, j, win, lag) : 0.0;
	if (!run_shaped(pc) || pc->est.acf < pc->p.acf_min) {
		if (pc->run == hits_to_lock(pc))
			pc->est.refused++;
		return;
	}
	pc->est.state = PHASE_CLOCK_LOCKED;
	pc->est.locks++;
	pc->est.period_ns = run_period_ns(pc);
	pc->last_hit_ns = j * pc->p.bin_ns;
	pc->pred_ns = pc->last_hit_ns + pc->est.period_ns;
	pc->est.next_onset_ns = pc->pred_ns;
	pc->misses = 0;
	pc->n_resid = 0;
	push_resid(pc, 0);
	estimate_iters(pc);
	estimate_spread(pc);
}

static bool period_near(const struct phase_clock *pc, uint64_t t_ns)
{
	double d = (double)t_ns - (double)pc->est.period_ns;

	return (d < 0 ? -d : d) <= pc->p.tolerance * (double)pc->est.period_ns;
}

/* Locked: an onset in the window of the prediction is a hit; one outside
 * changes nothing (the window counts as missed when it passes empty). */
static void locked_onset(struct phase_clock *pc, uint64_t o_ns, bool run_hit)
{
	int64_t r = (int64_t)(o_ns - pc->pred_ns);
	double tol = pc->p.tolerance * (double)pc->est.period_ns;

	if ((double)abs64(r) <= tol) {
		pc->misses = 0;
		push_resid(pc, r);
		pc->last_hit_ns = o_ns;
		if (run_hit && period_near(pc, run_period_ns(pc)))
			pc->est.period_ns = run_period_ns(pc);
		pc->pred_ns = o_ns + pc->est.period_ns;
		estimate_iters(pc);
		estimate_spread(pc);
		pc->est.next_onset_ns = pc->pred_ns;
	} else {
		pc->est.last_error_ns = r;
	}
}

static void on_onset(struct phase_clock *pc, uint64_t j)
{
	uint64_t ivl, tol;
	bool hit = false;

	pc->est.onsets++;
	if (pc->seen_onset) {
		ivl = j - pc->cur.onset_bin;
		pc->cur.bins = ivl > UINT32_MAX ? UINT32_MAX : (uint32_t)ivl;
		tol = (uint64_t)(pc->p.tolerance * (double)pc->cand_bins);
		if (ivl * pc->p.bin_ns > pc->p.max_period_ns) {
			run_reset(pc);
		} else if (pc->cand_bins && ivl + tol >= pc->cand_bins &&
			   ivl <= pc->cand_bins + tol) {
			hit = true;
			pc->run++;
			push_u64(pc->ivl, &pc->n_ivl, pc->p.k, ivl);
			push_iter(pc, &pc->cur);
			run_note(pc, &pc->cur);
			push_u64(pc->ron, &pc->n_ron, PHASE_CLOCK_RUN_MAX + 1,
				 j);
			pc->cand_bins =
				median_last(pc->ivl, pc->n_ivl, pc->p.k);
		} else {
			run_reset(pc);
			push_u64(pc->ivl, &pc->n_ivl, pc->p.k, ivl);
			push_iter(pc, &pc->cur);
			run_note(pc, &pc->cur);
			push_u64(pc->ron, &pc->n_ron, PHASE_CLOCK_RUN_MAX + 1,
				 pc->cur.onset_bin);
			push_u64(pc->ron, &pc->n_ron, PHASE_CLOCK_RUN_MAX + 1,
				 j);
			pc->cand_bins = ivl;
		}
		if (pc->est.state == PHASE_CLOCK_LOCKED)
			locked_onset(pc, j * pc->p.bin_ns, hit);
		/* locked to a period the onsets left: k hits of another */
		if (pc->est.state == PHASE_CLOCK_LOCKED &&
		    pc->run >= hits_to_lock(pc) &&
		    !period_near(pc, pc->cand_bins * pc->p.bin_ns))
			unlock(pc);
		if (pc->est.state != PHASE_CLOCK_LOCKED &&
		    pc->run >= hits_to_lock(pc))
			try_lock(pc, j);
	}
	/* the closed iteration's compute gap: its longest pause, the one
	 * before this onset included */
	if (pc->idle_run > pc->iter_max_idle)
		pc->iter_max_idle = pc->idle_run;
	pc->gap_ref =
		pc->seen_onset && (j - pc->cur.onset_bin) * pc->p.bin_ns <=
					  pc->p.max_period_ns
			? pc->iter_max_idle
			: 0;
	pc->iter_max_idle = 0;
	pc->seen_onset = true;
	pc->cur = (struct phase_clock_iter){.onset_bin = j, .comm_bins = 1};
}

/* Time passes to the end of bin j: windows without an onset. */
static void on_time(struct phase_clock *pc, uint64_t j)
{
	uint64_t t = (j + 1) * pc->p.bin_ns;
	uint64_t tol = (uint64_t)(pc->p.tolerance * (double)pc->est.period_ns);

	if (pc->est.state == PHASE_CLOCK_LOCKED && t > pc->pred_ns + tol) {
		pc->est.last_error_ns = (int64_t)(t - pc->pred_ns);
		pc->pred_ns += pc->est.period_ns;
		if (++pc->misses >= pc->p.miss_max)
			unlock(pc);
		else
			pc->est.next_onset_ns = pc->pred_ns;
	}
	if (pc->est.state == PHASE_CLOCK_LOST &&
	    t - pc->last_hit_ns >
		    (uint64_t)pc->p.forget_periods * pc->est.period_ns) {
		pc->est.state = PHASE_CLOCK_SEARCHING;
		pc->est.period_ns = 0;
		pc->est.comm_ns = 0;
		pc->est.bytes_per_iter = 0;
		pc->est.spread_ns = 0;
	}
}

/*
 * Idle bins an onset needs: idle_bins, or gap_frac of the longest idle
 * run of the previous iteration (its compute gap) if more. Bursts after
 * a shorter pause are part of the same comm phase (the buckets of a
 * bucketed all-reduce, compute between them).
 */
static uint64_t idle_needed(const struct phase_clock *pc)
{
	uint64_t m = (uint64_t)(pc->p.gap_frac * (double)pc->gap_ref);

	return m > pc->p.idle_bins ? m : pc->p.idle_bins;
}

static void consume(struct phase_clock *pc, uint64_t j, uint64_t x)
{
	double thr = pc->p.active_frac * pc->level;
	bool active;

	if (thr < (double)pc->active_min)
		thr = (double)pc->active_min;
	active = x && (double)x >= thr;
	if (active) {
		if (pc->level == 0.0)
			pc->level = (double)x;
		else
			pc->level += ((double)x - pc->level) / 16.0;
		if (pc->idle_run >= idle_needed(pc) &&
		    (!pc->seen_onset ||
		     (j - pc->cur.onset_bin) * pc->p.bin_ns >=
			     pc->p.min_period_ns))
			on_onset(pc, j);
		else if (pc->idle_run > pc->iter_max_idle)
			pc->iter_max_idle = pc->idle_run;
		pc->idle_run = 0;
		if (pc->seen_onset && j - pc->cur.onset_bin < UINT32_MAX)
			pc->cur.comm_bins =
				(uint32_t)(j - pc->cur.onset_bin + 1);
	} else if (pc->idle_run < UINT32_MAX) {
		pc->idle_run++;
	}
	if (pc->seen_onset)
		pc->cur.bytes += x;
	/* no onset for longer than a period can be: pauses count again */
	if (pc->gap_ref &&
	    (!pc->seen_onset ||
	     (j - pc->cur.onset_bin) * pc->p.bin_ns > pc->p.max_period_ns))
		pc->gap_ref = 0;
	pc->est.bytes += x;
	on_time(pc, j);
}

/* The reader's invariants (XDPLANE_ASSERTS builds). */
static void check(const struct phase_clock *pc)
{
	const struct phase_clock_est *e = &pc->est;

	DP_ASSERT(pc->n_ivl <= pc->p.k && pc->n_it <= pc->p.k + 1);
	DP_ASSERT(pc->n_ron <= PHASE_CLOCK_RUN_MAX + 1 &&
		  pc->n_resid <= pc->p.k);
	DP_ASSERT(e->state <= PHASE_CLOCK_LOST);
	DP_ASSERT(e->state == PHASE_CLOCK_SEARCHING || e->period_ns > 0);
	DP_ASSERT(e->state != PHASE_CLOCK_LOCKED ||
		  (e->next_onset_ns == pc->pred_ns &&
		   pc->misses < pc->p.miss_max));
	DP_ASSERT(e->unlocks <= e->locks && e->locks <= e->onsets);
	DP_ASSERT(pc->next_bin >= pc->first_bin);
}

const struct phase_clock_est *phase_clock_update(struct phase_clock *pc,
						 uint64_t now_ns)
{
	struct phase_clock_writer *w = &pc->w;
	uint64_t pub = __atomic_load_n(&w->pub, __ATOMIC_ACQUIRE);
	uint64_t limit = pub, claim, j, settled;

	/* the open bin and those after it: closed settle_ns after their end */
	if (now_ns > pc->p.settle_ns) {
		settled = (now_ns - pc->p.settle_ns) / pc->p.bin_ns;
		if (settled > limit)
			limit = settled;
	}
	if (limit <= pc->next_bin)
		return &pc->est;
	if (limit - pc->next_bin > pc->p.bins) {
		/* away longer than the ring: what was missed is lost */
		pc->est.lost_bins += limit - pc->p.bins - pc->next_bin;
		pc->next_bin = limit - pc->p.bins;
		pc->seen_onset = false;
		pc->idle_run = 0;
		run_reset(pc);
		if (pc->est.state == PHASE_CLOCK_LOCKED)
			unlock(pc);
	}
	for (j = pc->next_bin; j < limit; j++)
		pc->hist[j & w->mask] =
			j <= pub ? __atomic_load_n(&w->ring[j & w->mask],
						   __ATOMIC_RELAXED)
				 : 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	claim = __atomic_load_n(&w->claim, __ATOMIC_RELAXED);
	for (j = pc->next_bin; j < limit && j + pc->p.bins <= claim; j++) {
		pc->hist[j & w->mask] = 0;
		pc->est.lost_bins++;
	}
	for (j = pc->next_bin; j < limit; j++)
		consume(pc, j, pc->hist[j & w->mask]);
	pc->next_bin = limit;
	check(pc);
	return &pc->est;
}

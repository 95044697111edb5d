/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * interleave.h - the shares of the jobs that send through one egress class
 * of one port, and a bounded one-time hold that moves one job's
 * communication phase away from the others'. A pure function of its
 * inputs: no state, no I/O, no clock of its own (now_ns comes from the
 * caller), no allocation, no lock.
 *
 * Model. Each job alternates compute (quiet) and a communication phase
 * that sends B bytes; its phase clock (phase_clock.h) gives the period T,
 * the phase length C, B and the next predicted onset t, valid while
 * locked. The caller adds the bytes the job has sent since its current
 * phase began. Jobs whose phases collide under fair sharing keep
 * colliding: each iteration stretches both alike. Two ways out:
 *  - weights (MLTCP's rule, applied by the network): a job's weight is
 *    intercept + slope x progress, progress = bytes sent in its current
 *    phase / B, in [0, 1]. The job further along gets more of the class,
 *    finishes first, starts its next phase earlier; the other's next phase
 *    starts later; the phases drift apart each iteration until they no
 *    longer overlap, where the rule falls back to fair share. A job that
 *    is not locked weighs as a locked one halfway through its phase.
 *  - a hold (CASSINI's time shift, executed by the gateway): the onset of
 *    one job's next phase is held back by d in [0, hold_budget_ns]; the
 *    next iteration starts when the collective ends, so the shift
 *    persists. d minimises the predicted overlap of the compatible pairs
 *    over their common period (below); taken only if it removes at least
 *    shift_gain_min of the overlap, and only while every job of the
 *    class is locked (a job whose phases are unknown may be where the
 *    hold pushes another).
 * Prediction: job i's phases are [t_i + kT_i, t_i + kT_i + c_i), k any
 * integer, c_i = C_i, or B_i / class rate if that is shorter (a phase
 * stretched by the collision it is in: its length alone is what must
 * fit). Two periods are compatible if the longer over the shorter is
 * within ratio_tol of p / q, 1 <= q <= p <= ratio_max; their common
 * period is H = q x T_long (= p x T_short within the tolerance). A pair's
 * overlap is the time in [now_ns, now_ns + H) both are in a phase, over
 * the smaller of their phase times in it (0 .. 1). A hold of job h by d
 * is judged by the summed overlap time of h's compatible pairs, each over
 * [t_h, t_h + H), h's phases moved by d.
 *
 * Rules, in order:
 *  1. fewer than 2 locked jobs: fair (equal weights);
 *  2. no pair of locked jobs with compatible periods whose overlap is
 *     at least overlap_min: fair (incompatible periods slide through each
 *     other: no weight settles them, so they are shared fairly);
 *  3. otherwise weights, and, if the caller asks, the best hold.
 * Shares: s_i = clamp(lambda x w_i, lo_i, hi_i) with lambda such that the
 * shares sum to 1 (w_i = 1 when fair); lo_i = max(floor, the job's floor),
 * hi_i = the job's cap (a share of the class: the weight never lifts a job
 * above the class it is configured in, and inside it never above its cap).
 *
 * Invariants of a decision (interleave_decide() returned 0): the shares
 * sum to 1 within 1e-9; each share is >= its lo_i and <= its hi_i (caps
 * that sum below 1 are raised in proportion first: DWRR is
 * work-conserving, a weight is relative); every job has a share > 0;
 * hold_ns <= hold_budget_ns, and hold_ns > 0 only for a locked job of a
 * compatible overlapping pair; the same inputs give the same decision.
 *
 * Who calls: the control thread (or whoever owns the class's scheduler
 * state), on the estimates of the jobs' phase clocks on that port, each
 * time it publishes weights; weights must follow progress at a fraction
 * of C (bench/jobs-sim, phases of 50 ms: every 10 ms interleaves, every
 * 100 ms does not), so the caller that owns the progress counters calls
 * it that often. Applying the shares to the scheduler and executing
 * the hold (at most one per iteration of the held job, only in the
 * gateway's own queue) are the caller's. Params are read only and must
 * pass interleave_params_check().
 */
#ifndef XDPLANE_INTERLEAVE_H
#define XDPLANE_INTERLEAVE_H

#include <stdbool.h>
#include <stdint.h>

#define INTERLEAVE_MAX_JOBS 16
#define INTERLEAVE_MAX_PERIOD_NS 1000000000000ull /* 1000 s */

/*
 * Parameters, defaults as interleave_params_default() sets them:
 *  intercept       weight at progress 0, > 0. 1.
 *  slope           weight added at progress 1, >= 0. 4 (the job at the
 *                  end of its phase weighs 5 x the one at its start).
 *  floor           share of the class no job goes below, 0 .. 1/16 (so
 *                  16 jobs fit). 0.05.
 *  overlap_min     0 .. 1: the overlap of a compatible pair of locked jobs
 *                  that turns the weights on. 0.1.
 *  ratio_tol       0 .. 0.2: how far the ratio of two periods may lie from
 *                  p / q and still be compatible. 0.03.
 *  ratio_max       largest p of p / q, 1 .. 8. 4.
 *  hold_budget_ns  longest hold, ns; <= rc_timeout_ns / 8. 8 ms.
 *  rc_timeout_ns   the shortest RoCE transport (local ACK) timeout of the
 *                  hosts, ns: 4.096 us x 2^timeout. 67.1 ms (timeout 14,
 *                  below NCCL's default NCCL_IB_TIMEOUT 20: 4.3 s).
 *  shift_gain_min  0 .. 1: a hold is taken only if it removes at least
 *                  this fraction of the pairs' predicted overlap. 0.1.
 */
struct interleave_params {
	double intercept;
	double slope;
	double floor;
	double overlap_min;
	double ratio_tol;
	uint32_t ratio_max;
	uint64_t hold_budget_ns;
	uint64_t rc_timeout_ns;
	double shift_gain_min;
};

/* One job in the class, from its phase clock on this port. */
struct interleave_job {
	bool locked; /* its clock is LOCKED: the rest below is valid (a job
			with no period, no phase or a period above
			INTERLEAVE_MAX_PERIOD_NS counts as not locked) */
	uint64_t period_ns; /* T */
	uint64_t comm_ns; /* C */
	uint64_t bytes_per_iter; /* B */
	uint64_t next_onset_ns; /* t, caller's clock */
	uint64_t phase_bytes; /* sent since its current phase began; 0 in
				 compute */
	double floor; /* its configured floor, share of the class 0 .. 1 */
	double cap; /* its cap from its priority, share of the class, floor ..
		       1; 0 means 1 */
};

enum interleave_mode {
	INTERLEAVE_FAIR = 0,
	INTERLEAVE_WEIGHT,
};

struct interleave_decision {
	enum interleave_mode mode;
	const char *why; /* static: the rule that chose the mode */
	double share[INTERLEAVE_MAX_JOBS]; /* of the class, sum 1 */
	double overlap; /* the largest compatible pair's overlap, 0 .. 1 */
	/* the hold: hold_job < 0 or hold_ns == 0: none */
	int32_t hold_job;
	uint64_t hold_ns; /* <= hold_budget_ns */
	uint64_t hold_at_ns; /* the held job's next predicted onset */
	uint64_t overlap_ns; /* the pairs' summed overlap over their H */
	uint64_t overlap_after_ns; /* the same with the hold */
	const char *hold_why; /* static: why this hold or none */
};

void interleave_params_default(struct interleave_params *p);
/* 0, or -1 with *why (if why) naming the first bad field (static). */
int interleave_params_check(const struct interleave_params *p,
			    const char **why);

/*
 * Decide the shares of jobs[0 .. n - 1] at now_ns; class_bps is the
 * class's rate (bit/s, 0: unknown: c_i = C_i); want_hold: also look for a
 * hold. 0, or -EINVAL with d->why naming the problem (n above
 * INTERLEAVE_MAX_JOBS, a floor above its cap, floors summing above 1).
 */
int interleave_decide(const struct interleave_params *p,
		      const struct interleave_job *jobs, uint32_t n,
		      uint64_t now_ns, double class_bps, bool want_hold,
		      struct interleave_decision *d);

/*
 * Compatible periods: 1 and *p_out / *q_out (the longer over the shorter),
 * or 0. Either may be NULL.
 */
int interleave_compatible(const struct interleave_params *p, uint64_t ta,
			  uint64_t tb, uint32_t *p_out, uint32_t *q_out);

/*
 * Time in [from, to) that both a (phases [ta0 + kTa, ta0 + kTa + ca)) and
 * b are in a phase, ns. Periods > 0.
 */
uint64_t interleave_overlap_ns(uint64_t ta0, uint64_t ta, uint64_t ca,
			       uint64_t tb0, uint64_t tb, uint64_t cb,
			       uint64_t from, uint64_t to);

#endif

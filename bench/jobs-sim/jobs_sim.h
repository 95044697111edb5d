/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jobs_sim.h - periodic training jobs sharing one link in virtual time,
 * their shares decided by the dataplane's interleaving (jobs/interleave.c,
 * the same object code as xdplane_core's) or fair.
 *
 * Model (fluid, fixed step dt, deterministic for a seed): job j computes
 * for compute_ns (x (1 + jitter x u), u uniform in [-1, 1], drawn per
 * iteration from the seed), then sends bytes; the next iteration's compute
 * starts when its last byte left. The link (link_bps) is shared among the
 * jobs sending, in proportion to their shares, work-conserving (a job that
 * finishes within a step leaves the rest to the others). A held job's
 * bytes wait in the gateway for the hold (it does not send).
 *
 * The gateway's view, with clock off what a perfect phase clock would
 * report: a job's onset is the time its first byte leaves; T the median
 * of its last 3 onset intervals, C the mean of its last 3 phase lengths
 * (onset to last byte), B its bytes, the next onset its last onset + T,
 * locked once it has 3 intervals. With clock on, the dataplane's phase
 * clock (jobs/phase_clock.c, default parameters) of each job, fed the
 * bytes it sends in each step, read every clock_ns: its state, T, C, B
 * and next onset. Either way the bytes sent in the current phase are the
 * simulator's. Every tick_ns the arm decides:
 *  fair    equal shares, no hold;
 *  weight  interleave_decide()'s shares;
 *  shift   equal shares, interleave_decide()'s hold: armed on a job that
 *          is computing (held at its next onset), one at a time, the next
 *          only once the held job has run 2 more iterations (its T
 *          measured past the hold);
 *  both    the weights and the holds.
 *
 * Reported: per job, the mean and p90 of its iteration time (the time
 * between the ends of successive phases) over alone (compute_ns + bytes /
 * link) after skip iterations; the overlap (time at least two jobs send
 * over time at least one does) in job 0's first START_ITERS iterations
 * (before any job can be locked) and after its first skip iterations; the
 * first iteration of job 0 from which every iteration's overlap stays at
 * or below 0.2, with at least SETTLED_ITERS iterations after it; the
 * holds.
 */
#ifndef XDPLANE_JOBS_SIM_H
#define XDPLANE_JOBS_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "interleave.h"

#define JOBS_SIM_MAX 8
#define JOBS_SIM_MAX_ITERS 1024
#define JOBS_SIM_START_ITERS 4
#define JOBS_SIM_SETTLED_ITERS 10

enum jobs_sim_arm {
	JOBS_SIM_FAIR = 0,
	JOBS_SIM_WEIGHT,
	JOBS_SIM_SHIFT,
	JOBS_SIM_BOTH,
	JOBS_SIM_ARMS,
};

struct jobs_sim_job {
	uint64_t compute_ns;
	uint64_t bytes; /* per iteration */
	uint64_t start_ns; /* its first compute starts */
};

struct jobs_sim_cfg {
	double link_bps;
	struct jobs_sim_job job[JOBS_SIM_MAX];
	uint32_t n;
	double jitter; /* of compute_ns, 0 .. 0.5 */
	uint64_t seed;
	uint64_t duration_ns;
	uint64_t dt_ns; /* the fluid step */
	uint64_t tick_ns; /* the decisions' interval, a multiple of dt_ns */
	uint32_t skip; /* iterations of each job left out of the stats */
	enum jobs_sim_arm arm;
	struct interleave_params ip;
	bool clock; /* the view from phase clocks, not the true onsets */
	uint64_t clock_ns; /* phase_clock_update() interval */
	FILE *trace; /* CSV per tick: t_ms,mode,share_j...,sending_j...; NULL */
};

struct jobs_sim_result {
	uint32_t iters[JOBS_SIM_MAX]; /* completed */
	double alone_ms[JOBS_SIM_MAX];
	double mean_rel[JOBS_SIM_MAX], p90_rel[JOBS_SIM_MAX];
	double overlap_start; /* job 0's first START_ITERS iterations */
	double overlap_after; /* after its first skip iterations */
	uint32_t settle_iter; /* UINT32_MAX: never */
	uint32_t holds;
	uint64_t hold_max_ns;
	double weight_time; /* fraction of ticks in INTERLEAVE_WEIGHT */
	uint64_t locks[JOBS_SIM_MAX], unlocks[JOBS_SIM_MAX]; /* clock on */
	double locked_time; /* clock on: fraction of ticks all locked */
};

/* The scenarios, on a 100 Mbit/s link, 1 % jitter, 50 us steps, 1 ms
 * ticks, 20 skipped iterations, interleave_params_default():
 *  "two"           two jobs, compute 50 ms, phase 50 ms alone, in step;
 *  "three"         three jobs, compute 70 ms, phase 25 ms alone, in step;
 *  "incompatible"  compute 50 / 91 ms, phase 50 ms alone (periods 100 and
 *                  141 ms), in step.
 * 0, or -EINVAL for an unknown name. */
int jobs_sim_scenario(struct jobs_sim_cfg *c, const char *name);
const char *jobs_sim_arm_name(enum jobs_sim_arm a);
/* 0, or -EINVAL / -ENOMEM with a reason in err. */
int jobs_sim_run(const struct jobs_sim_cfg *c, struct jobs_sim_result *r,
		 char *err, size_t errlen);

#endif

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_jobs_sim.c - the simulator's scenarios (jobs_sim.h: 100 Mbit/s,
 * 1 % compute jitter, default interleave parameters, hold budget 8 ms),
 * each arm against fair sharing in the same process:
 *  - two jobs in step, phase half the period: fair stays collided
 *    (overlap after 20 iterations >= 0.9, iterations >= 1.4x alone); the
 *    weights start as collided (>= 0.9 over iterations 1-4), settle
 *    (every iteration's overlap <= 0.2) within 12 iterations, overlap
 *    after 20 <= 0.1, each job's mean <= 1.05x and p90 <= 1.10x alone, at
 *    most 0.75x fair's mean; the same for seeds 1-5; the holds settle
 *    within 20 iterations, never above the budget;
 *  - three jobs in step, phase a quarter of the period: fair overlaps
 *    (>= 0.4, mean >= 1.10x); the weights bring the overlap to <= 0.05,
 *    each job's mean <= 1.05x and p90 <= 1.10x;
 *  - two jobs of periods 100 and 141 ms: the weights and the holds change
 *    each job's mean and p90 by at most 3 % against fair;
 *  - in exact lockstep (no jitter) the weights cannot tell the jobs apart
 *    (stay collided), the holds can (overlap after 20 <= 0.1);
 *  - the view from the dataplane's phase clocks instead of the true
 *    onsets: two jobs, the weights settle within 12 iterations, overlap
 *    after 20 <= 0.1, mean <= 1.05x, p90 <= 1.10x (fair >= 0.9 overlap);
 *    three jobs, seeds 1-6, each job's mean with the weights <= 0.9x
 *    fair's; incompatible periods: no hold, within 3 % of fair.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>
#include "jobs_sim.h"

static bool use_clock;

static void run(const char *sc, enum jobs_sim_arm a, uint64_t seed,
		double jitter, struct jobs_sim_result *r)
{
	struct jobs_sim_cfg c;
	char err[128];

	assert_int_equal(jobs_sim_scenario(&c, sc), 0);
	c.arm = a;
	c.seed = seed;
	c.jitter = jitter;
	c.clock = use_clock;
	assert_int_equal(jobs_sim_run(&c, r, err, sizeof(err)), 0);
	for (uint32_t i = 0; i < c.n; i++)
		print_message("%s%s %s seed %llu job %u: mean %.3f p90 %.3f "
			      "overlap start %.2f after %.2f settled %d holds "
			      "%u weight %.2f\n",
			      use_clock ? "clock " : "", sc,
			      jobs_sim_arm_name(a), (unsigned long long)seed, i,
			      r->mean_rel[i], r->p90_rel[i], r->overlap_start,
			      r->overlap_after, (int)r->settle_iter, r->holds,
			      r->weight_time);
}

static void test_two_in_step(void **state)
{
	struct jobs_sim_result f, w, s;

	run("two", JOBS_SIM_FAIR, 1, 0.01, &f);
	assert_true(f.overlap_after >= 0.9);
	for (int i = 0; i < 2; i++)
		assert_true(f.mean_rel[i] >= 1.4);

	for (uint64_t seed = 1; seed <= 5; seed++) {
		run("two", JOBS_SIM_WEIGHT, seed, 0.01, &w);
		assert_true(w.overlap_start >= 0.9);
		assert_true(w.settle_iter <= 12);
		assert_true(w.overlap_after <= 0.1);
		assert_int_equal(w.holds, 0);
		for (int i = 0; i < 2; i++) {
			assert_true(w.mean_rel[i] <= 1.05);
			assert_true(w.p90_rel[i] <= 1.10);
			assert_true(w.mean_rel[i] <= 0.75 * f.mean_rel[i]);
		}
	}

	run("two", JOBS_SIM_SHIFT, 1, 0.01, &s);
	assert_true(s.overlap_start >= 0.9);
	assert_true(s.settle_iter <= 20);
	assert_true(s.overlap_after <= 0.1);
	assert_true(s.holds >= 1);
	assert_true(s.hold_max_ns <= 8000000);
	for (int i = 0; i < 2; i++) {
		assert_true(s.mean_rel[i] <= 1.05);
		assert_true(s.p90_rel[i] <= 1.10);
	}
}

static void test_three_in_step(void **state)
{
	struct jobs_sim_result f, w;

	run("three", JOBS_SIM_FAIR, 1, 0.01, &f);
	assert_true(f.overlap_after >= 0.4);
	run("three", JOBS_SIM_WEIGHT, 1, 0.01, &w);
	assert_true(w.overlap_start >= 0.9);
	assert_true(w.overlap_after <= 0.05);
	for (int i = 0; i < 3; i++) {
		assert_true(f.mean_rel[i] >= 1.10);
		assert_true(w.mean_rel[i] <= 1.05);
		assert_true(w.p90_rel[i] <= 1.10);
	}
}

static void test_incompatible_no_harm(void **state)
{
	struct jobs_sim_result f, a;
	const enum jobs_sim_arm arms[] = {JOBS_SIM_WEIGHT, JOBS_SIM_SHIFT};

	run("incompatible", JOBS_SIM_FAIR, 1, 0.01, &f);
	assert_true(f.mean_rel[0] >= 1.10);
	for (int k = 0; k < 2; k++) {
		run("incompatible", arms[k], 1, 0.01, &a);
		assert_true(a.hold_max_ns <= 8000000);
		for (int i = 0; i < 2; i++) {
			assert_true(fabs(a.mean_rel[i] / f.mean_rel[i] - 1) <=
				    0.03);
			assert_true(fabs(a.p90_rel[i] / f.p90_rel[i] - 1) <=
				    0.03);
		}
	}
}

static void test_lockstep(void **state)
{
	struct jobs_sim_result w, s;

	run("two", JOBS_SIM_WEIGHT, 1, 0.0, &w);
	assert_true(w.overlap_after >= 0.9);
	run("two", JOBS_SIM_SHIFT, 1, 0.0, &s);
	assert_true(s.overlap_after <= 0.1);
	assert_true(s.hold_max_ns <= 8000000);
}

/* The gateway's view from the dataplane's phase clocks. */
static void test_clock_two(void **state)
{
	struct jobs_sim_result f, w;

	use_clock = true;
	run("two", JOBS_SIM_FAIR, 1, 0.01, &f);
	run("two", JOBS_SIM_WEIGHT, 1, 0.01, &w);
	use_clock = false;
	assert_true(f.overlap_after >= 0.9);
	assert_true(w.overlap_start >= 0.9);
	assert_true(w.settle_iter <= 12);
	assert_true(w.overlap_after <= 0.1);
	for (int i = 0; i < 2; i++) {
		assert_true(w.mean_rel[i] <= 1.05);
		assert_true(w.p90_rel[i] <= 1.10);
	}
}

static void test_clock_three(void **state)
{
	struct jobs_sim_result f, w;

	use_clock = true;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		run("three", JOBS_SIM_FAIR, seed, 0.01, &f);
		run("three", JOBS_SIM_WEIGHT, seed, 0.01, &w);
		for (int i = 0; i < 3; i++)
			assert_true(w.mean_rel[i] <= 0.9 * f.mean_rel[i]);
	}
	use_clock = false;
}

static void test_clock_incompatible(void **state)
{
	struct jobs_sim_result f, a;

	use_clock = true;
	run("incompatible", JOBS_SIM_FAIR, 1, 0.01, &f);
	run("incompatible", JOBS_SIM_BOTH, 1, 0.01, &a);
	use_clock = false;
	assert_int_equal(a.holds, 0);
	for (int i = 0; i < 2; i++) {
		assert_true(fabs(a.mean_rel[i] / f.mean_rel[i] - 1) <= 0.03);
		assert_true(fabs(a.p90_rel[i] / f.p90_rel[i] - 1) <= 0.03);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_in_step),
		cmocka_unit_test(test_three_in_step),
		cmocka_unit_test(test_incompatible_no_harm),
		cmocka_unit_test(test_lockstep),
		cmocka_unit_test(test_clock_two),
		cmocka_unit_test(test_clock_three),
		cmocka_unit_test(test_clock_incompatible),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_interleave.c - the shares of the jobs in one egress class and the
 * hold (jobs/interleave.h), default parameters unless a test says
 * otherwise (intercept 1, slope 4, floor 0.05, hold budget 8 ms):
 *  - two locked jobs of period 100 ms, comm 50 ms, in step: progress 0.8
 *    and 0.2 give shares 0.7 / 0.3; three at 0, 0.5, 1 give 1/9, 3/9, 5/9;
 *  - floors: progress 1 and 0 at slope 100 give 0.95 / 0.05 (the floor,
 *    not 1/102); a job floor of 0.2 holds; a cap of 0.6 holds; floors
 *    summing above 1 and a floor above its cap are refused;
 *  - fair (0.5 / 0.5 whatever the progress): phases that do not overlap,
 *    one job not locked, periods 100 and 141 ms (incompatible) in step;
 *  - the hold: phases [10, 60) and [30, 80) ms: job 1 held 8 ms (the
 *    budget), overlap 30 -> 22 ms; with a 30 ms budget, phases [10, 60)
 *    and [40, 90): job 1 held 20 ms, overlap 20 -> 0 (the smallest hold
 *    that reaches the minimum); in step: job 0 held 8 ms, 50 -> 42 ms;
 *    periods 100 and 200 ms, phases 50 ms in step: a hold that lowers
 *    their overlap; no hold while a job of the class is not locked, nor
 *    when the gain is below shift_gain_min; incompatible periods: no
 *    hold;
 *  - 2000 seeded random classes: the shares sum to 1, respect floors and
 *    caps, every hold is within the budget and never raises the overlap;
 *  - compatibility of periods; the overlap of two periodic phase sets;
 *    params_check names hold_budget_ns when it exceeds rc_timeout_ns / 8.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "interleave.h"

#define MS 1000000ull
#define NOW (1000 * MS)
#define EPS 1e-9

static struct interleave_job job(uint64_t t, uint64_t c, uint64_t onset_ms,
				 double progress)
{
	const uint64_t b = 1000000;

	return (struct interleave_job){
		.locked = true,
		.period_ns = t * MS,
		.comm_ns = c * MS,
		.bytes_per_iter = b,
		.next_onset_ns = NOW + onset_ms * MS,
		.phase_bytes = (uint64_t)(progress * (double)b),
	};
}

static void decide(const struct interleave_params *p,
		   const struct interleave_job *j, uint32_t n, bool hold,
		   struct interleave_decision *d)
{
	assert_int_equal(interleave_decide(p, j, n, NOW, 0.0, hold, d), 0);
}

static void test_weights_by_progress(void **state)
{
	struct interleave_params p;
	struct interleave_decision d;
	struct interleave_job j[3];

	interleave_params_default(&p);
	j[0] = job(100, 50, 0, 0.8);
	j[1] = job(100, 50, 0, 0.2);
	decide(&p, j, 2, false, &d);
	assert_int_equal(d.mode, INTERLEAVE_WEIGHT);
	assert_float_equal(d.overlap, 1.0, EPS);
	assert_float_equal(d.share[0], 0.7, EPS);
	assert_float_equal(d.share[1], 0.3, EPS);

	j[0] = job(100, 30, 0, 0.0);
	j[1] = job(100, 30, 0, 0.5);
	j[2] = job(100, 30, 0, 1.0);
	decide(&p, j, 3, false, &d);
	assert_int_equal(d.mode, INTERLEAVE_WEIGHT);
	assert_float_equal(d.share[0], 1.0 / 9, EPS);
	assert_float_equal(d.share[1], 3.0 / 9, EPS);
	assert_float_equal(d.share[2], 5.0 / 9, EPS);
}

static void test_floors_and_caps(void **state)
{
	struct interleave_params p;
	struct interleave_decision d;
	struct interleave_job j[2];

	interleave_params_default(&p);
	p.slope = 100.0;
	j[0] = job(100, 50, 0, 1.0);
	j[1] = job(100, 50, 0, 0.0);
	decide(&p, j, 2, false, &d);
	assert_float_equal(d.share[0], 0.95, EPS);
	assert_float_equal(d.share[1], 0.05, EPS);

	j[1].floor = 0.2;
	decide(&p, j, 2, false, &d);
	assert_float_equal(d.share[0], 0.8, EPS);
	assert_float_equal(d.share[1], 0.2, EPS);

	j[1].floor = 0.0;
	j[0].cap = 0.6;
	decide(&p, j, 2, false, &d);
	assert_float_equal(d.share[0], 0.6, EPS);
	assert_float_equal(d.share[1], 0.4, EPS);

	j[0].cap = 0.0;
	j[0].floor = 0.6;
	j[1].floor = 0.5;
	assert_int_equal(interleave_decide(&p, j, 2, NOW, 0.0, false, &d),
			 -EINVAL);
	assert_string_equal(d.why, "the jobs' floors sum above 1");
	j[1].floor = 0.3;
	j[1].cap = 0.2;
	assert_int_equal(interleave_decide(&p, j, 2, NOW, 0.0, false, &d),
			 -EINVAL);
	assert_string_equal(d.why, "a job's floor above its cap");
}

static void test_fair(void **state)
{
	struct interleave_params p;
	struct interleave_decision d;
	struct interleave_job j[2];

	interleave_params_default(&p);
	/* [0, 40) and [50, 90): apart */
	j[0] = job(100, 40, 0, 0.9);
	j[1] = job(100, 40, 50, 0.1);
	decide(&p, j, 2, true, &d);
	assert_int_equal(d.mode, INTERLEAVE_FAIR);
	assert_float_equal(d.overlap, 0.0, EPS);
	assert_float_equal(d.share[0], 0.5, EPS);
	assert_float_equal(d.share[1], 0.5, EPS);
	assert_int_equal(d.hold_job, -1);

	/* in step, one not locked */
	j[0] = job(100, 50, 0, 0.9);
	j[1] = job(100, 50, 0, 0.1);
	j[1].locked = false;
	decide(&p, j, 2, true, &d);
	assert_int_equal(d.mode, INTERLEAVE_FAIR);
	assert_string_equal(d.why, "fewer than 2 locked jobs");
	assert_float_equal(d.share[0], 0.5, EPS);

	/* in step, incompatible periods */
	j[1] = job(141, 50, 0, 0.1);
	decide(&p, j, 2, true, &d);
	assert_int_equal(d.mode, INTERLEAVE_FAIR);
	assert_float_equal(d.share[0], 0.5, EPS);
	assert_float_equal(d.share[1], 0.5, EPS);
	assert_int_equal(d.hold_job, -1);
	assert_int_equal(d.hold_ns, 0);

	/* below overlap_min (0.1): [0, 50) and [46, 96) overlap 4 of 50 */
	j[1] = job(100, 50, 46, 0.1);
	decide(&p, j, 2, true, &d);
	assert_float_equal(d.overlap, 0.08, EPS);
	assert_int_equal(d.mode, INTERLEAVE_FAIR);
}

static void test_hold_two_equal_periods(void **state)
{
	struct interleave_params p;
	struct interleave_decision d;
	struct interleave_job j[2];

	interleave_params_default(&p);
	j[0] = job(100, 50, 10, 0.0);
	j[1] = job(100, 50, 30, 0.0);
	decide(&p, j, 2, true, &d);
	assert_int_equal(d.mode, INTERLEAVE_WEIGHT);
	assert_float_equal(d.overlap, 0.6, EPS);
	assert_int_equal(d.hold_job, 1);
	assert_int_equal(d.hold_ns, 8 * MS);
	assert_int_equal(d.hold_at_ns, NOW + 30 * MS);
	assert_int_equal(d.overlap_ns, 30 * MS);
	assert_int_equal(d.overlap_after_ns, 22 * MS);

	/* a larger budget: the smallest hold that removes the overlap */
	p.rc_timeout_ns = 268435456; /* timeout 16 */
	p.hold_budget_ns = 30 * MS;
	assert_int_equal(interleave_params_check(&p, NULL), 0);
	j[1] = job(100, 50, 40, 0.0);
	decide(&p, j, 2, true, &d);
	assert_int_equal(d.hold_job, 1);
	assert_int_equal(d.hold_ns, 20 * MS);
	assert_int_equal(d.overlap_ns, 20 * MS);
	assert_int_equal(d.overlap_after_ns, 0);

	/* in step: either would do; the first, by the budget */
	interleave_params_default(&p);
	j[0] = job(100, 50, 0, 0.0);
	j[1] = job(100, 50, 0, 0.0);
	decide(&p, j, 2, true, &d);
	assert_int_equal(d.hold_job, 0);
	assert_int_equal(d.hold_ns, 8 * MS);
	assert_int_equal(d.overlap_ns, 50 * MS);
	assert_int_equal(d.overlap_after_ns, 42 * MS);

	/* 1:2 periods in step: the hold lowers the overlap */
	j[1] = job(200, 50, 0, 0.0);
	decide(&p, j, 2, true, &d);
	assert_int_equal(d.mode, INTERLEAVE_WEIGHT);
	assert_true(d.hold_job >= 0);
	assert_int_equal(d.hold_ns, 8 * MS);
	assert_int_equal(d.overlap_ns, 50 * MS);
	assert_int_equal(d.overlap_after_ns, 42 * MS);

	/* a third job not locked: weights, but no hold */
	{
		struct interleave_job k[3] = {j[0], j[0], j[0]};

		k[1].next_onset_ns += 10 * MS;
		k[2].locked = false;
		decide(&p, k, 3, true, &d);
		assert_int_equal(d.mode, INTERLEAVE_WEIGHT);
		assert_int_equal(d.hold_job, -1);
		assert_int_equal(d.hold_ns, 0);
		assert_string_equal(d.hold_why,
				    "a job of the class is not locked");
	}

	/* a period above INTERLEAVE_MAX_PERIOD_NS: not locked, fair */
	{
		struct interleave_job k[2] = {j[0], j[0]};

		k[1].period_ns = INTERLEAVE_MAX_PERIOD_NS + 1;
		decide(&p, k, 2, true, &d);
		assert_int_equal(d.mode, INTERLEAVE_FAIR);
		assert_int_equal(d.hold_job, -1);
	}

	/* a gain below shift_gain_min: no hold */
	p.shift_gain_min = 0.5;
	decide(&p, j, 2, true, &d);
	assert_int_equal(d.hold_job, -1);
	assert_int_equal(d.hold_ns, 0);
}

static void test_incompatible_no_hold(void **state)
{
	struct interleave_params p;
	struct interleave_decision d;
	struct interleave_job j[3];
	uint32_t a, b;

	interleave_params_default(&p);
	assert_int_equal(interleave_compatible(&p, 100, 100, &a, &b), 1);
	assert_int_equal(a * 10 + b, 11);
	assert_int_equal(interleave_compatible(&p, 100, 102, &a, &b), 1);
	assert_int_equal(interleave_compatible(&p, 200, 100, &a, &b), 1);
	assert_int_equal(a * 10 + b, 21);
	assert_int_equal(interleave_compatible(&p, 100, 150, &a, &b), 1);
	assert_int_equal(a * 10 + b, 32);
	assert_int_equal(interleave_compatible(&p, 100, 141, NULL, NULL), 0);
	assert_int_equal(interleave_compatible(&p, 100, 500, NULL, NULL), 0);

	j[0] = job(100, 50, 0, 0.5);
	j[1] = job(141, 60, 0, 0.5);
	j[2] = job(173, 60, 0, 0.5);
	decide(&p, j, 3, true, &d);
	assert_int_equal(d.mode, INTERLEAVE_FAIR);
	assert_int_equal(d.hold_job, -1);
	assert_int_equal(d.hold_ns, 0);
	for (int i = 0; i < 3; i++)
		assert_float_equal(d.share[i], 1.0 / 3, EPS);
}

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void test_random_invariants(void **state)
{
	struct interleave_params p;
	struct interleave_decision d;
	struct interleave_job j[INTERLEAVE_MAX_JOBS];
	uint64_t s = 33, holds = 0;
	const uint64_t periods[] = {50, 100, 100, 150, 200, 141};

	interleave_params_default(&p);
	for (int round = 0; round < 2000; round++) {
		uint32_t n = 1 + rng(&s) % 5;
		double sum = 0.0;

		for (uint32_t i = 0; i < n; i++) {
			uint64_t t = periods[rng(&s) % 6];

			j[i] = job(t, 5 + rng(&s) % (t - 5), rng(&s) % 300,
				   (double)(rng(&s) % 1001) / 1000.0);
			j[i].locked = rng(&s) % 8 != 0;
			j[i].floor = (double)(rng(&s) % 10) / 100.0;
			j[i].cap = rng(&s) % 2 ? 0.0 : 0.3 + j[i].floor;
		}
		decide(&p, j, n, true, &d);
		for (uint32_t i = 0; i < n; i++) {
			double lo = j[i].floor > p.floor ? j[i].floor : p.floor;

			sum += d.share[i];
			assert_true(d.share[i] > 0.0);
			assert_true(d.share[i] >= lo - EPS);
		}
		assert_float_equal(sum, 1.0, EPS);
		assert_true(d.hold_ns <= p.hold_budget_ns);
		if (d.hold_ns) {
			holds++;
			assert_true(d.hold_job >= 0 &&
				    (uint32_t)d.hold_job < n);
			for (uint32_t i = 0; i < n; i++)
				assert_true(j[i].locked);
			assert_true(d.overlap_after_ns < d.overlap_ns);
			assert_int_equal(d.mode, INTERLEAVE_WEIGHT);
		}
	}
	print_message("holds taken in %llu of 2000 random classes\n",
		      (unsigned long long)holds);
	assert_true(holds > 100);
}

static void test_overlap_and_params(void **state)
{
	struct interleave_params p;
	const char *why = NULL;

	/* over [0, 300): a [0, 50) [100, 150) [200, 250), b [30, 60) [90,
	 * 120) [150, 180) [210, 240) [270, 300): 20 + 20 + 30 */
	assert_int_equal(interleave_overlap_ns(0, 100, 50, 30, 60, 30, 0, 300),
			 70);
	assert_int_equal(
		interleave_overlap_ns(1000, 100, 50, 1000, 100, 50, 0, 1000),
		500);
	assert_int_equal(interleave_overlap_ns(0, 100, 50, 50, 100, 50, 0, 300),
			 0);

	interleave_params_default(&p);
	assert_int_equal(interleave_params_check(&p, &why), 0);
	assert_null(why);
	p.hold_budget_ns = p.rc_timeout_ns / 8 + 1;
	assert_int_equal(interleave_params_check(&p, &why), -1);
	assert_string_equal(
		why, "hold_budget_ns: must be at most rc_timeout_ns / 8");
	interleave_params_default(&p);
	p.floor = 0.1;
	assert_int_equal(interleave_params_check(&p, &why), -1);
	assert_string_equal(why, "floor: must be 0 .. 1/16");
	interleave_params_default(&p);
	p.intercept = 0.0;
	assert_int_equal(interleave_params_check(&p, &why), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights_by_progress),
		cmocka_unit_test(test_floors_and_caps),
		cmocka_unit_test(test_fair),
		cmocka_unit_test(test_hold_two_equal_periods),
		cmocka_unit_test(test_incompatible_no_hold),
		cmocka_unit_test(test_random_invariants),
		cmocka_unit_test(test_overlap_and_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

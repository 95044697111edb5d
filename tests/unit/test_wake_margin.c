// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_wake_margin.c - the worker's wake-up margin (wake_margin.h) on
 * made-up lateness sequences and a fake clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "wake_margin.h"

#define US 1000ull
#define MS 1000000ull

/* deterministic pseudo-random lateness: xorshift */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Lateness 10..30 us uniform, and 1 in 50 wake-ups 400 us late (a VM's
 * slow wake-up): the estimate settles near the 90th percentile of the
 * whole (28 us), the margin covers >= 90 % of the wake-ups and stays
 * far below the outliers and the cap. */
static void test_settles_at_percentile(void **state)
{
	struct wake_margin m;
	uint64_t s = 88172645463325252ull, now = 0, covered = 0, n = 20000;
	uint64_t sum = 0;

	(void)state;
	wake_margin_init(&m, 500 * US, false, now);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t late =
			i % 50 == 49 ? 400 * US : 10 * US + rnd(&s) % (20 * US);

		if (i >= n / 2) {
			covered += late <= wake_margin_ns(&m);
			sum += m.late_ns;
		}
		now += 200 * US;
		wake_margin_learn(&m, late, now);
	}
	/* the estimate's mean (it jumps 9 us at each outlier, then decays) */
	assert_in_range(sum / (n / 2), 24 * US, 32 * US);
	assert_in_range(wake_margin_ns(&m), 35 * US, 65 * US);
	assert_true(covered * 100 >= 95 * (n / 2)); /* outliers: 2 % */
}

/* One slow wake-up moves the estimate by at most 9 steps. */
static void test_outlier_bounded(void **state)
{
	struct wake_margin m;

	(void)state;
	wake_margin_init(&m, 500 * US, false, 0);
	for (int i = 0; i < 100; i++)
		wake_margin_learn(&m, 5 * US, i * MS);
	assert_in_range(m.late_ns, 4 * US, 5 * US); /* steps around 5 us */
	m.late_ns = 5 * US;
	wake_margin_learn(&m, 450 * US, 101 * MS);
	assert_int_equal(m.late_ns, 14 * US);
	assert_int_equal(wake_margin_ns(&m), 14 * US + 7 * US + 2 * US);
}

/* Never above the cap, never below the floor; spin mode is the cap. */
static void test_bounds_and_spin(void **state)
{
	struct wake_margin m;

	(void)state;
	wake_margin_init(&m, 30 * US, false, 0);
	for (int i = 0; i < 1000; i++)
		wake_margin_learn(&m, 800 * US, i * MS);
	assert_int_equal(wake_margin_ns(&m), 30 * US);
	for (int i = 1000; i < 3000; i++)
		wake_margin_learn(&m, 0, i * MS);
	assert_int_equal(m.late_ns, WAKE_MARGIN_FLOOR_NS);
	assert_int_equal(wake_margin_ns(&m),
			 WAKE_MARGIN_FLOOR_NS * 2 + WAKE_MARGIN_FLOOR_NS / 2);
	wake_margin_init(&m, 0, false, 0);
	assert_int_equal(wake_margin_ns(&m), 0); /* cap 0: never spins */
	wake_margin_init(&m, 500 * US, true, 0);
	assert_int_equal(wake_margin_ns(&m), 500 * US);
	wake_margin_learn(&m, 0, MS);
	assert_int_equal(wake_margin_ns(&m), 500 * US);
}

/* A margin that covers every deadline: the worker never sleeps, so it
 * never learns; aging narrows the estimate (only after `stale` without a
 * timed wake-up, 1/16 per wait) until deadlines 150 us apart fall
 * outside the margin again. */
static void test_aging_unsticks(void **state)
{
	struct wake_margin m;
	uint64_t now = 0, waits = 0;

	(void)state;
	wake_margin_init(&m, 500 * US, false, now);
	for (int i = 0; i < 40; i++) /* a burst of slow wake-ups */
		wake_margin_learn(&m, 300 * US, now += 100 * US);
	assert_int_equal(m.late_ns, 300 * US);
	assert_int_equal(wake_margin_ns(&m), 452 * US);
	/* deadlines every 150 us, all inside the margin: spin */
	while (wake_margin_ns(&m) >= 150 * US) {
		uint64_t before = m.late_ns;

		now += 150 * US;
		wake_margin_spun(&m, now);
		waits++;
		assert_true(m.late_ns <= before);
		assert_true(now < 2000 * MS);
	}
	/* no aging in the first 10 ms after the last wake-up */
	assert_true(waits > (WAKE_MARGIN_STALE_NS / (150 * US)));
	/* from the 300 us estimate, about 1/16 per 10 ms: < 300 ms */
	assert_true(now < 300 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settles_at_percentile),
		cmocka_unit_test(test_outlier_bounded),
		cmocka_unit_test(test_bounds_and_spin),
		cmocka_unit_test(test_aging_unsticks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

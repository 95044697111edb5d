// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_tbucket.c - the fixed-point token bucket against a fake clock (a
 * plain uint64_t): rate conformance from 1 Mbit/s to 400 Gbit/s with 64 B
 * and 9000 B frames over 1 s of virtual time, the burst after an idle
 * period, saturation at the burst for any idle gap (no overflow), the time
 * at which the bucket conforms again, and the input checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include "tbucket.h"

#define NS_PER_S 1000000000ull
#define STEP_NS 1000ull /* the caller reads the clock once per 1 us burst */

static const uint64_t rates[] = {
	1000000ull,
	10000000ull,
	1000000000ull,
	25000000000ull,
	100000000000ull,
	400000000000ull,
	1234567ull /* odd rates: mult */,
	33333333333ull /* is rounded */,
};
static const uint32_t frames[] = {64, 9000};

/*
 * Backlogged for 1 s of virtual time, polled every STEP_NS: at each poll
 * the bucket is refilled once and frames go while it conforms. The initial
 * burst is drained at t = 0 and not counted. Two measures:
 *  - window: bytes sent in (0, 1 s] against rate * 1 s. Frames are whole,
 *    so this carries up to one frame of quantisation (7 % for 9000 B at
 *    1 Mbit/s, where only ~14 frames fit in a second).
 *  - departures: bytes sent from the first to the last departure time
 *    (excluding the frames of the last poll) over that interval -- the
 *    rate the bucket actually enforces, free of frame quantisation (its
 *    own error is bounded by STEP_NS / 1 s = 1e-6).
 */
static void test_rate_conformance(void **state)
{
	printf("  %14s %6s %10s %12s %12s\n", "rate bit/s", "frame", "burst",
	       "window err", "depart. err");
	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (size_t f = 0; f < sizeof(frames) / sizeof(frames[0]);
		     f++) {
			uint64_t rate = rates[r], bps = rate / 8;
			uint32_t len = frames[f];
			/* big enough that polling never clips a refill */
			uint32_t burst =
				(uint32_t)(bps * 4 * STEP_NS / NS_PER_S) + len;
			uint64_t now = 0, bytes = 0, t_first = 0, t_last = 0;
			uint64_t b_first = 0, b_last = 0;
			struct tbucket tb = {0};
			double expect, werr, derr;

			assert_int_equal(tb_init(&tb, rate, burst, now), 0);
			while (tb_take(&tb, now, len))
				;
			for (now = STEP_NS; now <= NS_PER_S; now += STEP_NS) {
				uint64_t before = bytes;

				tb_refill(&tb, now);
				while (tb_conforms(&tb)) {
					tb_charge(&tb, len);
					bytes += len;
				}
				if (bytes != before) {
					if (!t_first) {
						t_first = now;
						b_first = before;
					}
					t_last = now;
					b_last = before;
				}
			}
			expect = (double)bps; /* bytes in 1 s */
			werr = ((double)bytes - expect) / expect;
			assert_true(t_last > t_first);
			derr = ((double)(b_last - b_first) * NS_PER_S /
					(double)(t_last - t_first) -
				expect) /
			       expect;
			printf("  %14llu %6u %10u %+11.5f%% %+11.6f%%\n",
			       (unsigned long long)rate, len, burst, werr * 100,
			       derr * 100);
			/* the enforced rate: +-0.5 % */
			assert_true(derr < 0.005 && derr > -0.005);
			/* the count: +-0.5 % plus at most one frame */
			assert_true(bytes <= expect * 1.005 + len);
			assert_true(bytes >= expect * 0.995 - len);
		}
	}
}

/* After a long idle period at most burst + one frame leaves at once, and
 * exactly floor(burst / len) + 1 frames (debt of at most one frame); with a
 * burst of 0, one frame. */
static void test_burst_after_idle(void **state)
{
	static const uint64_t gaps[] = {10 * NS_PER_S, 3600 * NS_PER_S,
					UINT64_MAX / 2};

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
			uint32_t burst = g ? 100000 : 0, len = 1500, n = 0;
			uint64_t now = 1000;
			struct tbucket tb = {0};

			assert_int_equal(tb_init(&tb, rates[r], burst, now), 0);
			while (tb_take(&tb, now, len))
				; /* drain */
			now += gaps[g];
			while (tb_take(&tb, now, len))
				n++;
			assert_int_equal(n, burst / len + 1);
			assert_true((uint64_t)n * len <= (uint64_t)burst + len);
		}
	}
}

/* Idle: tokens never exceed the burst, whatever the gap, and the refill is
 * exact (linear) below the fill time -- including at 400 Gbit/s with the
 * largest burst, where dt * mult would overflow 64 bits for gaps of more
 * than ~0.7 s without the cap. */
static void test_idle_saturates(void **state)
{
	static const uint32_t bursts[] = {0, 1500, 100000, UINT32_MAX};

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (size_t b = 0; b < sizeof(bursts) / sizeof(bursts[0]);
		     b++) {
			int64_t full =
				(int64_t)((uint64_t)bursts[b] << TB_FRAC);
			uint64_t gap, t0 = 5;
			struct tbucket tb = {0};

			assert_int_equal(tb_init(&tb, rates[r], bursts[b], t0),
					 0);
			assert_true(tb.tokens == full); /* starts full */
			/* deepest debt: one maximal frame */
			tb.tokens =
				-(int64_t)((uint64_t)TB_MAX_COST << TB_FRAC);
			for (gap = 1; gap < UINT64_MAX / 4; gap = gap * 3 + 1) {
				int64_t t = tb_tokens_at(&tb, t0 + gap);
				__extension__ __int128 exact =
					(__int128)tb.tokens +
					(__int128)gap * tb.mult;

				assert_true(t <= full);
				if (exact >= full)
					assert_true(t == full);
				else
					assert_true(t == (int64_t)exact);
			}
			/* saturated by a real refill, then a second idle
			 * period does not add to it */
			tb_refill(&tb, t0 + 1000000 * NS_PER_S);
			assert_true(tb.tokens == full);
			tb_refill(&tb, t0 + 3000000 * NS_PER_S);
			assert_true(tb.tokens == full);
		}
	}
}

/* tb_ready_ns(): the bucket does not conform one ns before, and does at. */
static void test_ready_time(void **state)
{
	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		uint64_t now = 123;
		struct tbucket tb = {0};

		assert_int_equal(tb_init(&tb, rates[r], 3000, now), 0);
		assert_int_equal(tb_ready_ns(&tb, now), now);
		for (int i = 0; i < 1000; i++) {
			uint64_t t;

			while (tb_take(&tb, now, 1000 + (uint32_t)i))
				;
			t = tb_ready_ns(&tb, now);
			assert_true(t > now);
			assert_true(tb_tokens_at(&tb, t - 1) < 0);
			assert_true(tb_tokens_at(&tb, t) >= 0);
			now = t + (uint64_t)i % 3;
		}
	}
}

/* Time going back is ignored: no refill, the bucket's clock stays. */
static void test_clock_backwards(void **state)
{
	struct tbucket tb = {0};

	assert_int_equal(tb_init(&tb, 1000000000ull, 1500, 1000000), 0);
	tb_charge(&tb, 3000);
	int64_t t = tb.tokens;

	tb_refill(&tb, 10);
	assert_true(tb.tokens == t);
	assert_int_equal(tb.last_ns, 1000000);
	assert_true(tb_ready_ns(&tb, 10) > 1000000);
}

static void test_init_checks(void **state)
{
	struct tbucket tb = {0};

	assert_int_equal(tb_init(&tb, 0, 1500, 0), -EINVAL);
	assert_int_equal(tb_init(&tb, TB_MAX_RATE + 1, 1500, 0), -EINVAL);
	assert_int_equal(tb_init(&tb, 1, 0, 0), 0);
	assert_true(tb.mult >= 1);
	assert_int_equal(tb_init(&tb, TB_MAX_RATE, UINT32_MAX, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_conformance),
		cmocka_unit_test(test_burst_after_idle),
		cmocka_unit_test(test_idle_saturates),
		cmocka_unit_test(test_ready_time),
		cmocka_unit_test(test_clock_backwards),
		cmocka_unit_test(test_init_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

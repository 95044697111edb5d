// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_dcqcn_catchup.c - DCQCN's closed-form catch-up
 * (dataplane/cc/dcqcn.c) against stepping one event at a time: the same
 * state after a long gap, byte runs against single events, and random
 * inputs.
 * The expected values are derived by hand from the rules in dcqcn.h, on a
 * fake clock (plain now_ns values). Rates are compared to 1e-9 relative;
 * the arithmetic of every expected value is in the comment next to it
 * (rates in Gbit/s there).
 */
#include "test_dcqcn.h"

/* ======================= catch-up vs stepping ======================= */

static void same_state(const struct dcqcn_rp *a, const struct dcqcn_rp *b,
		       double tol, int line)
{
	near_rel(b->rc, a->rc, tol, "rc", line);
	near_rel(b->rt, a->rt, tol, "rt", line);
	if (fabs(a->alpha - b->alpha) > tol * fabs(a->alpha) + 1e-15)
		fail_msg("line %d: alpha %.17g vs %.17g", line, a->alpha,
			 b->alpha);
}

/*
 * One catch-up call reaches the state of stepping every event, for short
 * runs (stepped) and long ones (closed forms), through the fast recovery,
 * additive and hyper phases and the cap: a 400G line leaves R_T = 20G
 * thousands of additive steps below it.
 */
static void test_catch_up_equals_stepping(void **state)
{
	static const uint64_t horizons[] = {1,	  2,	5,     8,     9,
					    10,	  12,	20,    100,   1000,
					    5000, 9000, 10000, 20000, 400000};
	struct dcqcn_params pp = paper(400 * G), px = connectx(400 * G);

	for (int sc = 0; sc < 4; sc++) {
		const struct dcqcn_params *p = sc < 2 ? &pp : &px;
		uint64_t period = p->inc_ns, t0 = 2 * US;
		struct dcqcn_rp base;

		dcqcn_rp_init(&base, p, 0);
		dcqcn_rp_on_cnp(&base, p, 0);
		if (sc == 0) {
			dcqcn_rp_on_cnp(&base, p, 1 * US); /* timer only */
		} else if (sc == 1) {
			dcqcn_rp_on_cnp(&base, p, 1 * US); /* BC = 7: hyper */
			for (int k = 0; k < 7; k++)
				dcqcn_rp_on_sent(&base, p, B_PAPER, t0);
		} else if (sc == 2) {
			/* a cut at 4 us, FR at 304 us, CNP: clamped cut */
			step_all(&base, p, 304 * US);
			dcqcn_rp_on_cnp(&base, p, 305 * US);
			t0 = 305 * US;
		}
		/* sc == 3: the first cut is still pending in the catch-up */
		for (size_t h = 0; h < sizeof(horizons) / sizeof(horizons[0]);
		     h++) {
			uint64_t now = t0 + horizons[h] * period + period / 2;
			struct dcqcn_rp a = base, b = base;

			step_all(&a, p, now);
			dcqcn_rp_catch_up(&b, p, now);
			same_state(&a, &b, 1e-12, __LINE__);
			assert_true(dcqcn_rp_next_ns(&a) ==
				    dcqcn_rp_next_ns(&b));
		}
	}
}

/* n B at once (closed form for n > 8) = n calls of one B each. */
static void test_byte_runs_equal_single_events(void **state)
{
	struct dcqcn_params p = paper(400 * G);

	for (uint64_t n = 1; n <= 20000; n = n < 12 ? n + 1 : n * 3) {
		struct dcqcn_rp a, b;

		dcqcn_rp_init(&a, &p, 0);
		dcqcn_rp_on_cnp(&a, &p, 0);
		dcqcn_rp_on_cnp(&a, &p, 1 * US);
		/* T = 7 first: the byte run is additive (BC 0..5), then
		 * hyper (BC > 5) */
		step_all(&a, &p, 1 * US + 7 * 55 * US);
		b = a;
		for (uint64_t k = 0; k < n; k++)
			dcqcn_rp_on_sent(&a, &p, B_PAPER, 400 * US);
		dcqcn_rp_on_sent(&b, &p, n * B_PAPER, 400 * US);
		same_state(&a, &b, 1e-12, __LINE__);
	}
}

/*
 * Random CNPs, sends and times (seeded): the flow stepped before every
 * input and the flow that only gets the inputs stay equal, and the
 * invariants R_min <= R_C <= R_T <= line, 0 <= alpha <= 1 hold.
 */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_random_inputs(void **state)
{
	uint64_t seed = 12345;

	for (int run = 0; run < 200; run++) {
		struct dcqcn_params p;
		struct dcqcn_rp a, b;
		uint64_t now = 0;

		dcqcn_params_default(&p, run & 1 ? DCQCN_CONNECTX : DCQCN_PAPER,
				     (double)(1 + rnd(&seed) % 400) * G);
		if (run % 4 == 2)
			p.byte_counter = 1000 + rnd(&seed) % 100000;
		if (run % 8 == 3)
			p.clamp_always = !p.clamp_always;
		assert_int_equal(dcqcn_params_check(&p, NULL), 0);
		dcqcn_rp_init(&a, &p, 0);
		dcqcn_rp_init(&b, &p, 0);
		for (int i = 0; i < 300; i++) {
			uint64_t r = rnd(&seed);
			uint64_t bytes = rnd(&seed) % (3 * B_PAPER);

			now += r % 4 == 0 ? rnd(&seed) % (2000 * US)
					  : rnd(&seed) % (20 * US);
			step_all(&a, &p, now);
			if (r % 3 == 0) {
				dcqcn_rp_on_cnp(&a, &p, now);
				dcqcn_rp_on_cnp(&b, &p, now);
			} else {
				dcqcn_rp_on_sent(&a, &p, bytes, now);
				dcqcn_rp_on_sent(&b, &p, bytes, now);
			}
			same_state(&a, &b, 1e-9, __LINE__);
			assert_true(b.rc >= p.min_bps && b.rc <= b.rt &&
				    b.rt <= p.line_bps);
			assert_true(b.alpha >= 0 && b.alpha <= 1);
			assert_true(dcqcn_rp_next_ns(&b) > now);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catch_up_equals_stepping),
		cmocka_unit_test(test_byte_runs_equal_single_events),
		cmocka_unit_test(test_random_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

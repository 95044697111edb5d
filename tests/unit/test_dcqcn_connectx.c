// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_dcqcn_connectx.c - DCQCN's ConnectX profile (dataplane/cc/dcqcn.c)
 * against step responses: first CNP, one cut per decrease tick, clamp only
 * after an increase, the cap at line, min_dec_factor and the floor, timers
 * racing with CNPs, the 300 us stages and ticks that resume in phase.
 * The expected values are derived by hand from the rules in dcqcn.h, on a
 * fake clock (plain now_ns values). Rates are compared to 1e-9 relative;
 * the arithmetic of every expected value is in the comment next to it
 * (rates in Gbit/s there).
 */
#include "test_dcqcn.h"

/* ======================= connectx ======================= */

/*
 * First CNP at 0 (40G, defaults, g = 5/1024): alpha = 1, the rate kept
 * (R_C = R_T = 40), not an arrival for alpha: ticks at 1..4 us decay,
 * a_k = (1019/1024)^k; the decrease tick at 4 us (after the alpha tick)
 * cuts: no increase yet, so R_T stays 40; R_C = 40 (1 - a_4 / 2) with
 * a_4 = 1019^4 / 2^40 = 1078193566321 / 1099511627776 -> 20.3877732789...
 * The increase timer starts: first event at 304 us.
 * first_cnp_bps = 10G: R_C = R_T = 10 at the CNP, 10 (1 - a_4 / 2) at 4 us.
 */
static void test_cx_first_cnp(void **state)
{
	struct dcqcn_params p = connectx(40 * G);
	struct dcqcn_rp rp;
	double a4 = 1078193566321.0 / 1099511627776.0;

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	assert_true(rp.alpha == 1.0);
	assert_true(rp.rc == 40 * G && rp.rt == 40 * G);
	assert_int_equal(dcqcn_rp_next_ns(&rp), 1 * US);
	EXPECT(&rp, &p, 3 * US, {AL, 1 * US}, {AL, 2 * US}, {AL, 3 * US});
	NEAR(rp.alpha, 1019.0 * 1019 * 1019 / (1024.0 * 1024 * 1024));
	assert_true(rp.rc == 40 * G); /* no cut before the tick */
	EXPECT(&rp, &p, 4 * US, {AL, 4 * US}, {CUT, 4 * US});
	NEAR(rp.alpha, a4);
	NEAR(rp.rc, 40 * G * (1 - a4 / 2));
	NEAR(rp.rc, 20.387773278907843632 * G);
	NEAR(rp.rt, 40 * G);
	assert_int_equal(rp.next_inc_ns, 304 * US);

	p.first_cnp_bps = 10 * G;
	assert_int_equal(dcqcn_params_check(&p, NULL), 0);
	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	assert_true(rp.rc == 10 * G && rp.rt == 10 * G);
	step_all(&rp, &p, 4 * US);
	NEAR(rp.rc, 10 * G * (1 - a4 / 2));
}

/*
 * The cut waits for the decrease tick, and several CNPs in one tick make
 * one cut. g = 1/4 for exact numbers. First CNP at 0: alpha 1, ticks
 * 1..4 us: 0.75, 0.5625, 0.421875, 0.31640625; cut at 4 us:
 * R_C = 40 (1 - 0.158203125) = 33.671875, R_T 40.
 * CNPs at 5, 6, 7.5 us (each after the tick at its time):
 *   5 us tick (no arrival yet): 0.31640625 * 0.75 = 0.2373046875
 *   6 us: 0.2373046875 * 0.75 + 0.25 = 0.427978515625
 *   7 us: 0.427978515625 * 0.75 + 0.25 = 0.57098388671875
 *   8 us: 0.57098388671875 * 0.75 + 0.25 = 0.6782379150390625
 * one cut at 8 us: R_C = 33.671875 (1 - 0.33911895751953125)
 *   = 22.25310385227203369140625; none at 12 us.
 */
static void test_cx_one_cut_per_tick(void **state)
{
	struct dcqcn_params p = connectx(40 * G);
	struct dcqcn_rp rp;

	p.g = 0.25;
	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	EXPECT(&rp, &p, 4 * US, {AL, 1 * US}, {AL, 2 * US}, {AL, 3 * US},
	       {AL, 4 * US}, {CUT, 4 * US});
	NEAR(rp.alpha, 0.31640625);
	NEAR(rp.rc, 33.671875 * G);
	EXPECT(&rp, &p, 5 * US, {AL, 5 * US});
	dcqcn_rp_on_cnp(&rp, &p, 5 * US);
	NEAR(rp.alpha, 0.2373046875);
	EXPECT(&rp, &p, 6 * US, {AL, 6 * US});
	dcqcn_rp_on_cnp(&rp, &p, 6 * US);
	NEAR(rp.alpha, 0.427978515625);
	EXPECT(&rp, &p, 7500, {AL, 7 * US});
	dcqcn_rp_on_cnp(&rp, &p, 7500);
	NEAR(rp.alpha, 0.57098388671875);
	NEAR(rp.rc, 33.671875 * G); /* no cut yet */
	EXPECT(&rp, &p, 8 * US, {AL, 8 * US}, {CUT, 8 * US});
	NEAR(rp.alpha, 0.6782379150390625);
	NEAR(rp.rc, 22.25310385227203369140625 * G);
	NEAR(rp.rt, 40 * G);
	EXPECT(&rp, &p, 12 * US, {AL, 9 * US}, {AL, 10 * US}, {AL, 11 * US},
	       {AL, 12 * US});
}

/*
 * Clamping only after an increase, and the increase stages (g = 0: alpha
 * stays 1, cuts halve; no alpha tick runs).
 *   CNP 0        cut at 4 us: no increase yet: R_T 40, R_C 20
 *   CNP 100 us   cut at 104 us: still none: R_T 40, R_C 10; timer 404
 *   404 us  stage 0 FR:  R_C (40 + 10)/2 = 25
 *   CNP 500 us   cut at 504 us: after an increase: R_T 25, R_C 12.5
 *   804 us  stage 0 FR:  R_C (25 + 12.5)/2 = 18.75
 *  1104 us  stage 1 AI:  R_T 25.005, R_C (25.005 + 18.75)/2 = 21.8775
 *  1404 us  stage 2 HAI: R_T 25.055, R_C (25.055 + 21.8775)/2 = 23.46625
 *  1704 us  stage 3 HAI: R_T 25.105, R_C (25.105 + 23.46625)/2 = 24.285625
 *  2004 us  stage 4 HAI: R_T 25.155, R_C (25.155 + 24.285625)/2
 *                                      = 24.7203125 (constant +0.05)
 * clamp_always: the cut at 104 us clamps: R_T 20, R_C 10.
 */
static void test_cx_clamp_and_stages(void **state)
{
	struct dcqcn_params p = connectx(40 * G);
	struct dcqcn_rp rp;

	p.g = 0;
	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	EXPECT(&rp, &p, 100 * US, {CUT, 4 * US});
	NEAR(rp.rt, 40 * G);
	NEAR(rp.rc, 20 * G);
	dcqcn_rp_on_cnp(&rp, &p, 100 * US);
	EXPECT(&rp, &p, 500 * US, {CUT, 104 * US}, {FR, 404 * US});
	NEAR(rp.rt, 40 * G);
	NEAR(rp.rc, 25 * G);
	dcqcn_rp_on_cnp(&rp, &p, 500 * US);
	EXPECT(&rp, &p, 804 * US, {CUT, 504 * US}, {FR, 804 * US});
	NEAR(rp.rt, 25 * G);
	NEAR(rp.rc, 18.75 * G);
	EXPECT(&rp, &p, 1104 * US, {AI, 1104 * US});
	NEAR(rp.rt, 25.005 * G);
	NEAR(rp.rc, 21.8775 * G);
	EXPECT(&rp, &p, 1404 * US, {HY, 1404 * US});
	NEAR(rp.rt, 25.055 * G);
	NEAR(rp.rc, 23.46625 * G);
	EXPECT(&rp, &p, 1704 * US, {HY, 1704 * US});
	NEAR(rp.rt, 25.105 * G);
	NEAR(rp.rc, 24.285625 * G);
	EXPECT(&rp, &p, 2004 * US, {HY, 2004 * US});
	NEAR(rp.rt, 25.155 * G);
	NEAR(rp.rc, 24.7203125 * G);

	p.clamp_always = true;
	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 100 * US);
	step_all(&rp, &p, 104 * US);
	NEAR(rp.rt, 20 * G);
	NEAR(rp.rc, 10 * G);
}

/*
 * R_T capped at line by AI and HAI: first CNP, cut at 4 us (R_T 40 not
 * clamped, R_C 20, g = 0); FR at 304 us: 30; AI at 604 us: R_T =
 * min(40, 40.005) = 40, R_C 35; HAI at 904 us: R_T 40, R_C 37.5.
 */
static void test_cx_cap_at_line(void **state)
{
	struct dcqcn_params p = connectx(40 * G);
	struct dcqcn_rp rp;

	p.g = 0;
	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	EXPECT(&rp, &p, 904 * US, {CUT, 4 * US}, {FR, 304 * US}, {AI, 604 * US},
	       {HY, 904 * US});
	assert_true(rp.rt == 40 * G);
	NEAR(rp.rc, 37.5 * G);
}

/*
 * min_dec_factor 0.8 (alpha 1, g = 0): the cut keeps max(0.5, 0.8) of
 * R_C: 40 -> 32. Floor: R_min 5G: cuts 40 -> 20 -> 10 -> 5 -> 5.
 */
static void test_cx_min_dec_and_floor(void **state)
{
	struct dcqcn_params p = connectx(40 * G);
	struct dcqcn_rp rp;
	static const double rc[] = {20, 10, 5, 5};

	p.g = 0;
	p.min_dec_factor = 0.8;
	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	step_all(&rp, &p, 4 * US);
	NEAR(rp.rc, 32 * G);

	p.min_dec_factor = 0.5;
	p.min_bps = 5 * G;
	dcqcn_rp_init(&rp, &p, 0);
	for (int k = 0; k < 4; k++) {
		/* a CNP at 1, 5, 9 us after the first: one cut per tick */
		dcqcn_rp_on_cnp(&rp, &p, k ? (4 * k - 3) * US : 0);
		step_all(&rp, &p, 4 * (k + 1) * US);
		NEAR(rp.rc, rc[k] * G);
	}
}

/*
 * Timers racing with CNPs (g = 0):
 *  - a CNP exactly at a decrease slot (8 us) is seen by the next one: the
 *    tick at 8 us fired first with no arrival; cut at 12 us: 20 -> 10.
 *  - the increase timer and a decrease tick due together (304 us, after a
 *    CNP at 301 us): the increase first (FR: (40 + 20)/2 = 30, stage 1),
 *    then the cut clamps: R_T 30, R_C 15; timer restarts: FR at 604 us:
 *    (30 + 15)/2 = 22.5.
 */
static void test_cx_timers_race(void **state)
{
	struct dcqcn_params p = connectx(40 * G);
	struct dcqcn_rp rp;

	p.g = 0;
	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	step_all(&rp, &p, 8 * US);
	dcqcn_rp_on_cnp(&rp, &p, 8 * US);
	NEAR(rp.rc, 20 * G);
	assert_int_equal(dcqcn_rp_next_ns(&rp), 12 * US);
	EXPECT(&rp, &p, 12 * US, {CUT, 12 * US});
	NEAR(rp.rc, 10 * G);

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 301 * US); /* cut at 4 us caught up */
	NEAR(rp.rc, 20 * G);
	EXPECT(&rp, &p, 304 * US, {FR, 304 * US}, {CUT, 304 * US});
	NEAR(rp.rt, 30 * G);
	NEAR(rp.rc, 15 * G);
	EXPECT(&rp, &p, 604 * US, {FR, 604 * US});
	NEAR(rp.rc, 22.5 * G);
}

/*
 * Stopped ticks resume in phase. First CNP at 500 ns: ticks at 500 + k us
 * (alpha) and 500 + 4k us (decrease). By 1 s alpha has decayed to 0 and
 * the rate is back at line: nothing runs. A CNP at 1 s + 250 ns: both
 * ticks resume at their next slot, 1 s + 500 ns; alpha = 0 (1 - g) + g =
 * 5/1024, then the cut with it: R_T = 40 (an increase happened: clamp),
 * R_C = 40 (1 - 5/2048).
 */
static void test_cx_ticks_resume_in_phase(void **state)
{
	struct dcqcn_params p = connectx(40 * G);
	struct dcqcn_rp rp;
	uint64_t s = 1000000 * US;

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 500);
	dcqcn_rp_catch_up(&rp, &p, s);
	assert_true(rp.alpha == 0);
	assert_true(rp.rc == 40 * G && rp.rt == 40 * G);
	assert_true(dcqcn_rp_next_ns(&rp) == NEVER);
	dcqcn_rp_on_cnp(&rp, &p, s + 250);
	assert_int_equal(rp.next_alpha_ns, s + 500);
	assert_int_equal(rp.next_dec_ns, s + 500);
	EXPECT(&rp, &p, s + 500, {AL, s + 500}, {CUT, s + 500});
	NEAR(rp.alpha, 5.0 / 1024);
	NEAR(rp.rt, 40 * G);
	NEAR(rp.rc, 40 * G * (1 - 5.0 / 2048));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cx_first_cnp),
		cmocka_unit_test(test_cx_one_cut_per_tick),
		cmocka_unit_test(test_cx_clamp_and_stages),
		cmocka_unit_test(test_cx_cap_at_line),
		cmocka_unit_test(test_cx_min_dec_and_floor),
		cmocka_unit_test(test_cx_timers_race),
		cmocka_unit_test(test_cx_ticks_resume_in_phase),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_dcqcn_paper.c - DCQCN's paper profile (dataplane/cc/dcqcn.c)
 * against step responses: the step response of one CNP; every branch (fast
 * recovery count, additive, hyper with i R_HAI growth, R_min floor, R_T cap
 * at line, byte counter and the mixed timer + byte classification, timers
 * racing with CNPs, alpha decay, the clamp options).
 * The expected values are derived by hand from the rules in dcqcn.h, on a
 * fake clock (plain now_ns values). Rates are compared to 1e-9 relative;
 * the arithmetic of every expected value is in the comment next to it
 * (rates in Gbit/s there).
 */
#include "test_dcqcn.h"

/* ======================= paper ======================= */

/*
 * The step response: one CNP at t = 0 on a 40 Gbit/s flow.
 * CNP: R_T = 40, R_C = 40 (1 - 1/2) = 20, alpha = (1 - g) 1 + g = 1.
 * Then at k 55 us the alpha timer (first) and the increase timer:
 * alpha = (255/256)^k, R_C = (40 + R_C) / 2 (fast recovery).
 */
static void test_paper_step_response(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	NEAR(rp.rc, 20 * G);
	NEAR(rp.rt, 40 * G);
	assert_true(rp.alpha == 1.0);
	assert_int_equal(dcqcn_rp_next_ns(&rp), 55 * US);

	EXPECT_NONE(&rp, &p, 55 * US - 1);
	EXPECT(&rp, &p, 55 * US, {AL, 55 * US}, {FR, 55 * US});
	NEAR(rp.rc, 30 * G); /* (40 + 20) / 2 */
	NEAR(rp.alpha, 0.99609375); /* 255/256 */
	EXPECT(&rp, &p, 110 * US, {AL, 110 * US}, {FR, 110 * US});
	NEAR(rp.rc, 35 * G); /* (40 + 30) / 2 */
	NEAR(rp.alpha, 0.9922027587890625); /* 65025/65536 */
	EXPECT(&rp, &p, 165 * US, {AL, 165 * US}, {FR, 165 * US});
	NEAR(rp.rc, 37.5 * G); /* (40 + 35) / 2 */
	NEAR(rp.alpha, 16581375.0 / 16777216); /* 0.98832613... */
	NEAR(rp.rt, 40 * G);
}

/*
 * A lone CNP is followed by exactly F = 5 fast-recovery events (T = 0..4
 * before the event); the 6th (T = 5) is additive: R_T = min(40, 40.04) =
 * 40 (the cap), R_C = (40 + 39.375) / 2 = 39.6875.
 */
static void test_paper_lone_cnp_f_fast_recoveries(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	EXPECT(&rp, &p, 275 * US, {AL, 55 * US}, {FR, 55 * US}, {AL, 110 * US},
	       {FR, 110 * US}, {AL, 165 * US}, {FR, 165 * US}, {AL, 220 * US},
	       {FR, 220 * US}, {AL, 275 * US}, {FR, 275 * US});
	NEAR(rp.rc, 39.375 * G); /* 37.5 -> 38.75 -> 39.375 */
	EXPECT(&rp, &p, 330 * US, {AL, 330 * US}, {AI, 330 * US});
	assert_true(rp.rt == 40 * G); /* capped, exactly */
	NEAR(rp.rc, 39.6875 * G);
}

/*
 * R_T below line: CNP at 0 (R_T 40, R_C 20, alpha 1), CNP at 1 us (no
 * timer due yet): R_T = 20, R_C = 20 (1 - 1/2) = 10, alpha = 1; timers
 * restart: events at 56, 111, ... us. Timer only: 5 fast recoveries
 * 15, 17.5, 18.75, 19.375, 19.6875; then additive for ever (BC = 0, never
 * hyper): 331 us R_T 20.04, R_C (20.04 + 19.6875) / 2 = 19.86375; 386 us
 * R_T 20.08, R_C (20.08 + 19.86375) / 2 = 19.971875. After 60 timer
 * events R_T = 20 + 55 * 0.04 = 22.2.
 */
static void test_paper_timer_additive(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;
	static const double fr[] = {15, 17.5, 18.75, 19.375, 19.6875};
	enum dcqcn_event e;
	uint64_t at;
	int incs = 0;

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 1 * US);
	NEAR(rp.rt, 20 * G);
	NEAR(rp.rc, 10 * G);
	assert_true(rp.alpha == 1.0);
	assert_int_equal(dcqcn_rp_next_ns(&rp), 56 * US);
	for (int k = 0; k < 5; k++) {
		uint64_t t = (56 + 55 * k) * US;

		EXPECT_NONE(&rp, &p, t - 1);
		assert_int_equal(dcqcn_rp_step(&rp, &p, t, &at), AL);
		assert_int_equal(dcqcn_rp_step(&rp, &p, t, &at), FR);
		NEAR(rp.rc, fr[k] * G);
		NEAR(rp.rt, 20 * G);
	}
	EXPECT(&rp, &p, 331 * US, {AL, 331 * US}, {AI, 331 * US});
	NEAR(rp.rt, 20.04 * G);
	NEAR(rp.rc, 19.86375 * G);
	EXPECT(&rp, &p, 386 * US, {AL, 386 * US}, {AI, 386 * US});
	NEAR(rp.rt, 20.08 * G);
	NEAR(rp.rc, 19.971875 * G);
	/* up to the 60th timer event: all additive */
	incs = 7;
	while (incs < 60) {
		e = dcqcn_rp_step(&rp, &p, UINT64_MAX - 1, &at);
		if (e == AL)
			continue;
		assert_int_equal(e, AI);
		incs++;
	}
	NEAR(rp.rt, 22.2 * G);
}

/*
 * Byte counter and the mixed classification. Start as above (R_T 20,
 * R_C 10 after CNPs at 0 and 1 us). One B each at 2..6 us: BC = 0..4
 * before -> fast recovery 15 .. 19.6875. At 7 us BC = 5 -> additive:
 * R_T 20.04, R_C 19.86375; BC = 6.
 * Timer events (T before, BC = 6): max >= F, min = T:
 *  56 us T0 AI  R_T 20.08  R_C (20.08 + 19.86375)/2      = 19.971875
 * 111 us T1 AI  R_T 20.12  R_C (20.12 + 19.971875)/2     = 20.0459375
 * 166 us T2 AI  R_T 20.16  R_C (20.16 + 20.0459375)/2    = 20.10296875
 * 221 us T3 AI  R_T 20.20  R_C (20.20 + 20.10296875)/2   = 20.151484375
 * 276 us T4 AI  R_T 20.24  R_C (20.24 + 20.151484375)/2  = 20.1957421875
 * 331 us T5 AI (min(5, 6) = 5 is not > 5)
 *               R_T 20.28  R_C (20.28 + 20.1957421875)/2 = 20.23787109375
 * 386 us T6 HYPER i=1: R_T 20.28 + 0.2 = 20.48,
 *               R_C (20.48 + 20.23787109375)/2 = 20.358935546875
 * 441 us T7 HYPER i=2: R_T 20.48 + 0.4 = 20.88,
 *               R_C (20.88 + 20.358935546875)/2 = 20.6194677734375
 * 442 us, one B (T 8, BC 6): HYPER i=3: R_T 20.88 + 0.6 = 21.48,
 *               R_C (21.48 + 20.6194677734375)/2 = 21.04973388671875
 */
static void test_paper_bytes_and_mixed(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;
	static const double fr[] = {15, 17.5, 18.75, 19.375, 19.6875};
	static const struct {
		enum dcqcn_event e;
		double rt, rc;
	} tm[] = {
		{AI, 20.08, 19.971875},	      {AI, 20.12, 20.0459375},
		{AI, 20.16, 20.10296875},     {AI, 20.20, 20.151484375},
		{AI, 20.24, 20.1957421875},   {AI, 20.28, 20.23787109375},
		{HY, 20.48, 20.358935546875}, {HY, 20.88, 20.6194677734375},
	};
	uint64_t at;

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 1 * US);
	for (int k = 0; k < 5; k++) {
		assert_int_equal(
			dcqcn_rp_on_sent(&rp, &p, B_PAPER, (2 + k) * US), FR);
		NEAR(rp.rc, fr[k] * G);
	}
	assert_int_equal(dcqcn_rp_on_sent(&rp, &p, B_PAPER, 7 * US), AI);
	NEAR(rp.rt, 20.04 * G);
	NEAR(rp.rc, 19.86375 * G);
	assert_int_equal(rp.bc_events, 6);
	for (int k = 0; k < 8; k++) {
		uint64_t t = (56 + 55 * k) * US;

		assert_int_equal(dcqcn_rp_step(&rp, &p, t, &at), AL);
		assert_int_equal(dcqcn_rp_step(&rp, &p, t, &at), tm[k].e);
		assert_int_equal(at, t);
		NEAR(rp.rt, tm[k].rt * G);
		NEAR(rp.rc, tm[k].rc * G);
	}
	assert_int_equal(dcqcn_rp_on_sent(&rp, &p, B_PAPER, 442 * US), HY);
	NEAR(rp.rt, 21.48 * G);
	NEAR(rp.rc, 21.04973388671875 * G);
	assert_int_equal(rp.hyper_steps, 3);
}

/*
 * R_T capped at line in hyper increase: one CNP on 40G (R_T 40, R_C 20),
 * 6 B at 1 us: 5 fast recoveries 30, 35, 37.5, 38.75, 39.375 and one
 * additive (BC = 5): R_T min(40.04, 40) = 40, R_C 39.6875. Timer events
 * at 55..330 us (T = 0..5, BC = 6): additive, R_C 39.84375, 39.921875,
 * 39.9609375, 39.98046875, 39.990234375, 39.9951171875; at 385 us T = 6,
 * BC = 6: hyper, R_T = min(40 + 0.2, 40) = 40, R_C 39.99755859375.
 */
static void test_paper_hyper_capped(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;
	static const double rc[] = {39.84375,	 39.921875,    39.9609375,
				    39.98046875, 39.990234375, 39.9951171875};
	uint64_t at;

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	assert_int_equal(dcqcn_rp_on_sent(&rp, &p, 6 * B_PAPER, 1 * US), AI);
	assert_true(rp.rt == 40 * G);
	NEAR(rp.rc, 39.6875 * G);
	for (int k = 0; k < 6; k++) {
		uint64_t t = (55 + 55 * k) * US;

		assert_int_equal(dcqcn_rp_step(&rp, &p, t, &at), AL);
		assert_int_equal(dcqcn_rp_step(&rp, &p, t, &at), AI);
		NEAR(rp.rc, rc[k] * G);
	}
	assert_int_equal(dcqcn_rp_step(&rp, &p, 385 * US, &at), AL);
	assert_int_equal(dcqcn_rp_step(&rp, &p, 385 * US, &at), HY);
	assert_true(rp.rt == 40 * G);
	NEAR(rp.rc, 39.99755859375 * G);
}

/*
 * The byte counter adds up partial sends, and a CNP restarts it: after the
 * CNPs at 0 and 1 us, B - 1 bytes then 1 byte make one event (fast
 * recovery, 10 -> 15); half a B, a CNP at 3 us, half a B: no event.
 */
static void test_paper_byte_counter_partial(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 1 * US);
	assert_int_equal(dcqcn_rp_on_sent(&rp, &p, B_PAPER - 1, 2 * US), NONE);
	NEAR(rp.rc, 10 * G);
	assert_int_equal(dcqcn_rp_on_sent(&rp, &p, 1, 2 * US), FR);
	NEAR(rp.rc, 15 * G);
	assert_int_equal(dcqcn_rp_on_sent(&rp, &p, B_PAPER / 2, 2 * US), NONE);
	dcqcn_rp_on_cnp(&rp, &p, 3 * US); /* R_T 15, R_C 7.5 */
	assert_int_equal(dcqcn_rp_on_sent(&rp, &p, B_PAPER / 2, 4 * US), NONE);
	NEAR(rp.rc, 7.5 * G);
	assert_int_equal(dcqcn_rp_on_sent(&rp, &p, B_PAPER / 2, 4 * US), FR);
	NEAR(rp.rc, 11.25 * G); /* (15 + 7.5) / 2 */
}

/*
 * Floor at R_min = 100 Mbit/s: CNPs 1 us apart with alpha = 1 halve R_C:
 * 20, 10, 5, 2.5, 1.25, 0.625, 0.3125, 0.15625, then 0.078125 -> 0.1;
 * the 10th: R_T = 0.1, R_C = max(0.1, 0.05) = 0.1.
 */
static void test_paper_floor(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;
	static const double rc[] = {20,	   10,	   5,	    2.5, 1.25,
				    0.625, 0.3125, 0.15625, 0.1, 0.1};

	dcqcn_rp_init(&rp, &p, 0);
	for (int k = 0; k < 10; k++) {
		dcqcn_rp_on_cnp(&rp, &p, k * US);
		NEAR(rp.rc, rc[k] * G);
		assert_true(rp.alpha == 1.0);
		if (k == 8)
			NEAR(rp.rt, 0.15625 * G);
	}
	NEAR(rp.rt, 0.1 * G);
	assert_true(rp.rc == p.min_bps);
}

/*
 * A CNP exactly when both timers are due: they fire first. CNP at 0;
 * at 55 us alpha = 255/256, R_C = 30; then the CNP: R_T = 30,
 * R_C = 30 (1 - 255/512) = 30 * 257/512 = 15.05859375,
 * alpha = (255/256)^2 + 1/256 = (65025 + 256)/65536 = 65281/65536.
 * Timers restart from 55 us: at 110 us alpha = 65281/65536 * 255/256,
 * R_C = (30 + 15.05859375)/2 = 22.529296875; the counts restarted too:
 * fast recovery at 110..330 us, additive at 385 us.
 */
static void test_paper_cnp_at_timer_due(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 55 * US);
	NEAR(rp.rt, 30 * G);
	NEAR(rp.rc, 15.05859375 * G);
	NEAR(rp.alpha, 65281.0 / 65536);
	assert_int_equal(dcqcn_rp_next_ns(&rp), 110 * US);
	EXPECT(&rp, &p, 110 * US, {AL, 110 * US}, {FR, 110 * US});
	NEAR(rp.rc, 22.529296875 * G);
	NEAR(rp.alpha, 65281.0 / 65536 * 255 / 256);
	EXPECT(&rp, &p, 385 * US, {AL, 165 * US}, {FR, 165 * US},
	       {AL, 220 * US}, {FR, 220 * US}, {AL, 275 * US}, {FR, 275 * US},
	       {AL, 330 * US}, {FR, 330 * US}, {AL, 385 * US}, {AI, 385 * US});
}

/*
 * A CNP between timer events restarts both timers from itself: CNP at 0,
 * at 55 us R_C 30 alpha 255/256, CNP at 80 us (same numbers as above:
 * R_T 30, R_C 15.05859375, alpha 65281/65536); nothing at 110 us; at
 * 135 us alpha 65281/65536 * 255/256 and R_C 22.529296875.
 */
static void test_paper_cnp_between_timers(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 80 * US);
	NEAR(rp.rt, 30 * G);
	NEAR(rp.rc, 15.05859375 * G);
	NEAR(rp.alpha, 65281.0 / 65536);
	EXPECT_NONE(&rp, &p, 134 * US);
	EXPECT(&rp, &p, 135 * US, {AL, 135 * US}, {FR, 135 * US});
	NEAR(rp.rc, 22.529296875 * G);
	NEAR(rp.alpha, 65281.0 / 65536 * 255 / 256);
}

/*
 * Alpha decays by 255/256 per 55 us: (255/256)^k, stepped for k = 1..20
 * and caught up in one call; k = 1000 closed form against pow(); below
 * 2^-64 (first at k = 11335: 11334 ln(255/256) = -44.3601 > -64 ln 2 =
 * -44.3614 > 11335 ln(255/256) = -44.3640) it is 0 and no timer runs.
 */
static void test_paper_alpha_decay(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp a, b;
	uint64_t at;

	dcqcn_rp_init(&a, &p, 0);
	dcqcn_rp_on_cnp(&a, &p, 0);
	b = a;
	for (int k = 1; k <= 20; k++) {
		while (dcqcn_rp_step(&a, &p, k * 55 * US, &at) != NONE)
			;
		NEAR(a.alpha, pow(255.0 / 256, k));
	}
	dcqcn_rp_catch_up(&b, &p, 20 * 55 * US);
	NEAR(b.alpha, pow(255.0 / 256, 20));
	NEAR(b.rc, a.rc);

	dcqcn_rp_catch_up(&b, &p, 1000 * 55 * US);
	NEAR(b.alpha, pow(255.0 / 256, 1000));
	dcqcn_rp_catch_up(&b, &p, 11334 * 55 * US);
	assert_true(b.alpha > 0);
	NEAR(b.alpha, pow(255.0 / 256, 11334));
	dcqcn_rp_catch_up(&b, &p, 11335 * 55 * US);
	assert_true(b.alpha == 0);
	/* long since at line: every timer stopped */
	assert_true(b.rc == 40 * G && b.rt == 40 * G);
	assert_true(dcqcn_rp_next_ns(&b) == NEVER);
}

/*
 * Before the first CNP: no timer, bytes not counted, alpha stays 1 however
 * long the flow runs; the first CNP (at 1 s) halves: R_C 20.
 */
static void test_paper_before_first_cnp(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;
	uint64_t at;

	dcqcn_rp_init(&rp, &p, 0);
	assert_true(dcqcn_rp_next_ns(&rp) == NEVER);
	assert_int_equal(dcqcn_rp_step(&rp, &p, 1000000 * US, &at), NONE);
	assert_int_equal(dcqcn_rp_on_sent(&rp, &p, 100 * B_PAPER, 1000000 * US),
			 NONE);
	assert_true(rp.rc == 40 * G && rp.rt == 40 * G);
	assert_true(rp.alpha == 1.0);
	assert_true(rp.bytes == 0);
	dcqcn_rp_on_cnp(&rp, &p, 1000000 * US);
	NEAR(rp.rc, 20 * G);
}

/*
 * Back at line the increase timer stops and bytes are not counted: a lone
 * CNP on 40G recovers to exactly 40/40 (R_C approaches by halving the gap:
 * well within 60 increase events) and then no increase event follows.
 */
static void test_paper_idle_at_line(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;
	enum dcqcn_event e;
	uint64_t at;
	int incs = 0;

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	while ((e = dcqcn_rp_step(&rp, &p, UINT64_MAX - 1, &at)) != NONE)
		incs += e != AL;
	assert_true(incs > 5 && incs <= 60);
	assert_true(rp.rc == 40 * G && rp.rt == 40 * G);
	assert_true(rp.alpha == 0);
	assert_true(dcqcn_rp_next_ns(&rp) == NEVER);
	assert_int_equal(dcqcn_rp_on_sent(&rp, &p, 3 * B_PAPER, at + 1), NONE);
	assert_true(rp.bytes == 0);
}

/*
 * C2 on a line rate whose last mantissa bit is odd: (line + (line - u)) / 2
 * ties to the even neighbour line - u, so the halving alone would stop one
 * ulp short for ever; the snap ends it at line and the timer stops.
 */
static void test_paper_recovery_reaches_odd_line(void **state)
{
	double line = ldexp(4503599627370497.0, -19); /* (2^52 + 1) 2^-19 */
	struct dcqcn_params p = paper(line);
	struct dcqcn_rp rp;
	enum dcqcn_event e;
	uint64_t at;
	int incs = 0;

	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	while ((e = dcqcn_rp_step(&rp, &p, UINT64_MAX - 1, &at)) != NONE &&
	       incs < 1000)
		incs += e != AL;
	assert_true(incs <= 60);
	assert_true(rp.rc == line && rp.rt == line);
	assert_true(dcqcn_rp_next_ns(&rp) == NEVER);
}

/*
 * The ns3-rdma order (alpha_before_cut) against the paper's, with
 * alpha_init 0.5: paper: R_C = 40 (1 - 0.25) = 30, then alpha =
 * (255/256) 0.5 + 1/256 = 128.5/256 = 0.501953125; before: alpha first
 * (0.501953125), R_C = 40 (1 - 0.2509765625) = 29.9609375.
 */
static void test_paper_alpha_order(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;

	p.alpha_init = 0.5;
	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	NEAR(rp.rc, 30 * G);
	NEAR(rp.alpha, 0.501953125);
	p.alpha_before_cut = true;
	assert_int_equal(dcqcn_params_check(&p, NULL), 0);
	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	NEAR(rp.rc, 29.9609375 * G);
	NEAR(rp.alpha, 0.501953125);
}

/*
 * Clamping off in the paper profile: R_T keeps 40 through two CNPs
 * (R_C 20, 10); clamp_after_inc: the second CNP clamps only if an increase
 * came between: CNP 0 (R_T 40, R_C 20), one B (fast recovery: R_C 30),
 * CNP: R_T = 30, R_C = 15.
 */
static void test_paper_clamp_options(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_rp rp;

	p.clamp_always = false;
	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 1 * US);
	NEAR(rp.rt, 40 * G);
	NEAR(rp.rc, 10 * G);

	p.clamp_after_inc = true;
	dcqcn_rp_init(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 1 * US); /* no increase yet */
	NEAR(rp.rt, 40 * G);
	NEAR(rp.rc, 10 * G);
	assert_int_equal(dcqcn_rp_on_sent(&rp, &p, B_PAPER, 2 * US), FR);
	NEAR(rp.rc, 25 * G); /* (40 + 10) / 2 */
	dcqcn_rp_on_cnp(&rp, &p, 3 * US);
	NEAR(rp.rt, 25 * G);
	NEAR(rp.rc, 12.5 * G);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paper_step_response),
		cmocka_unit_test(test_paper_lone_cnp_f_fast_recoveries),
		cmocka_unit_test(test_paper_timer_additive),
		cmocka_unit_test(test_paper_bytes_and_mixed),
		cmocka_unit_test(test_paper_hyper_capped),
		cmocka_unit_test(test_paper_byte_counter_partial),
		cmocka_unit_test(test_paper_floor),
		cmocka_unit_test(test_paper_cnp_at_timer_due),
		cmocka_unit_test(test_paper_cnp_between_timers),
		cmocka_unit_test(test_paper_alpha_decay),
		cmocka_unit_test(test_paper_before_first_cnp),
		cmocka_unit_test(test_paper_idle_at_line),
		cmocka_unit_test(test_paper_recovery_reaches_odd_line),
		cmocka_unit_test(test_paper_alpha_order),
		cmocka_unit_test(test_paper_clamp_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

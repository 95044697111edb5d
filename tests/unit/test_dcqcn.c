// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_dcqcn.c - DCQCN (dataplane/cc/dcqcn.c) against step responses derived
 * by hand from the rules in dcqcn.h, with a fake clock (plain now_ns
 * values): the step response of one CNP; every branch of both profiles (fast
 * recovery count, additive, hyper with i R_HAI growth, R_min floor, R_T cap
 * at line, byte counter and the mixed timer + byte classification, timers
 * racing with CNPs, alpha decay; ConnectX: first CNP, one cut per decrease
 * tick, clamp only after an increase, min_dec_factor, the 300 us stages);
 * the NP's immediate and coalesced deferred CNPs; the closed-form catch-up
 * against stepping one event at a time; parameter checks.
 *
 * Rates are compared to 1e-9 relative. The arithmetic of every expected
 * value is in the comment next to it (rates in Gbit/s there).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "dcqcn.h"

#define G 1e9
#define M 1e6
#define US 1000ull
#define NEVER UINT64_MAX
#define B_PAPER 10000000ull /* paper byte counter */

#define FR DCQCN_EV_FAST_RECOVERY
#define AI DCQCN_EV_ADDITIVE
#define HY DCQCN_EV_HYPER
#define AL DCQCN_EV_ALPHA
#define CUT DCQCN_EV_CUT
#define NONE DCQCN_EV_NONE

static void near_rel(double got, double want, double tol, const char *what,
		     int line)
{
	if (fabs(got - want) <= tol * fabs(want))
		return;
	fail_msg("line %d: %s = %.17g, want %.17g", line, what, got, want);
}

#define NEAR(got, want) near_rel((got), (want), 1e-9, #got, __LINE__)

struct ev {
	enum dcqcn_event e;
	uint64_t at;
};

/* Step every timer due by now_ns; the events must be exactly want[]. */
static void expect_events(struct dcqcn_rp *rp, const struct dcqcn_params *p,
			  uint64_t now_ns, const struct ev *want, size_t n,
			  int line)
{
	size_t i = 0;
	uint64_t at;
	enum dcqcn_event e;

	while ((e = dcqcn_rp_step(rp, p, now_ns, &at)) != NONE) {
		if (i >= n)
			fail_msg("line %d: extra event %s at %llu", line,
				 dcqcn_event_name(e), (unsigned long long)at);
		if (e != want[i].e || at != want[i].at)
			fail_msg("line %d: event %zu is %s at %llu, want %s "
				 "at %llu",
				 line, i, dcqcn_event_name(e),
				 (unsigned long long)at,
				 dcqcn_event_name(want[i].e),
				 (unsigned long long)want[i].at);
		i++;
	}
	if (i != n)
		fail_msg("line %d: %zu events, want %zu", line, i, n);
}

#define EXPECT(rp, p, now, ...)                                                \
	do {                                                                   \
		const struct ev w_[] = {__VA_ARGS__};                          \
		expect_events((rp), (p), (now), w_,                            \
			      sizeof(w_) / sizeof(w_[0]), __LINE__);           \
	} while (0)
#define EXPECT_NONE(rp, p, now)                                                \
	expect_events((rp), (p), (now), NULL, 0, __LINE__)

static struct dcqcn_params paper(double line)
{
	struct dcqcn_params p;

	dcqcn_params_default(&p, DCQCN_PAPER, line);
	assert_int_equal(dcqcn_params_check(&p, NULL), 0);
	return p;
}

static struct dcqcn_params connectx(double line)
{
	struct dcqcn_params p;

	dcqcn_params_default(&p, DCQCN_CONNECTX, line);
	assert_int_equal(dcqcn_params_check(&p, NULL), 0);
	return p;
}

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

/* ======================= catch-up vs stepping ======================= */

static void step_all(struct dcqcn_rp *rp, const struct dcqcn_params *p,
		     uint64_t now_ns)
{
	uint64_t at;

	while (dcqcn_rp_step(rp, p, now_ns, &at) != NONE)
		;
}

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

/* ======================= NP ======================= */

/* The first marked packet: a CNP at once; nothing is left pending. */
static void test_np_first_marked_immediate(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_np np;

	dcqcn_np_init(&np);
	assert_true(dcqcn_np_next_ns(&np) == NEVER);
	assert_false(dcqcn_np_poll(&np, &p, 1000 * US));
	assert_true(dcqcn_np_on_marked(&np, &p, 10 * US));
	assert_true(dcqcn_np_next_ns(&np) == NEVER);
	assert_false(dcqcn_np_poll(&np, &p, 60 * US));
	assert_false(dcqcn_np_poll(&np, &p, 1000 * US));
}

/*
 * N = 50 us. Marked at 10 (CNP), 20, 30 (coalesced): one deferred CNP at
 * 60; its window [60, 110): marked at 70 -> CNP at 110; window [110, 160)
 * passes unmarked; marked at 200: immediate. Without a poll: marked at
 * 300 (CNP), 310, then 350 = window end: one CNP for both, window from
 * 350: marked at 399.999 us waits for 400.
 */
static void test_np_deferred_and_coalesced(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_np np;

	dcqcn_np_init(&np);
	assert_true(dcqcn_np_on_marked(&np, &p, 10 * US));
	assert_false(dcqcn_np_on_marked(&np, &p, 20 * US));
	assert_false(dcqcn_np_on_marked(&np, &p, 30 * US));
	assert_int_equal(dcqcn_np_next_ns(&np), 60 * US);
	assert_false(dcqcn_np_poll(&np, &p, 60 * US - 1));
	assert_true(dcqcn_np_poll(&np, &p, 60 * US));
	assert_false(dcqcn_np_poll(&np, &p, 60 * US));
	assert_true(dcqcn_np_next_ns(&np) == NEVER);
	assert_false(dcqcn_np_on_marked(&np, &p, 70 * US));
	assert_int_equal(dcqcn_np_next_ns(&np), 110 * US);
	assert_true(dcqcn_np_poll(&np, &p, 110 * US));
	assert_false(dcqcn_np_poll(&np, &p, 160 * US));
	assert_true(dcqcn_np_on_marked(&np, &p, 200 * US));

	assert_true(dcqcn_np_on_marked(&np, &p, 300 * US));
	assert_false(dcqcn_np_on_marked(&np, &p, 310 * US));
	assert_true(dcqcn_np_on_marked(&np, &p, 350 * US));
	assert_true(dcqcn_np_next_ns(&np) == NEVER);
	assert_false(dcqcn_np_on_marked(&np, &p, 400 * US - 1));
	assert_int_equal(dcqcn_np_next_ns(&np), 400 * US);
}

/*
 * A burst: a marked packet every 1 us from 0 to 199 us, the caller polling
 * before each: CNPs at 0 (immediate), 50, 100, 150, 200 (deferred, each
 * window starting at the previous CNP), none at 250 (no mark in
 * [200, 250)). A late poll: marked at 0 and 10, polled at 75 -> CNP at 75,
 * the window runs [75, 125).
 */
static void test_np_burst(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_np np;
	uint64_t sent[16];
	int n = 0;

	dcqcn_np_init(&np);
	for (uint64_t t = 0; t < 200 * US; t += US) {
		if (dcqcn_np_poll(&np, &p, t))
			sent[n++] = t;
		if (dcqcn_np_on_marked(&np, &p, t))
			sent[n++] = t;
		assert_true(n < 16);
	}
	for (uint64_t t = 200 * US; t <= 300 * US; t += US)
		if (dcqcn_np_poll(&np, &p, t))
			sent[n++] = t;
	assert_int_equal(n, 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(sent[i], i * 50 * US);

	dcqcn_np_init(&np);
	assert_true(dcqcn_np_on_marked(&np, &p, 0));
	assert_false(dcqcn_np_on_marked(&np, &p, 10 * US));
	assert_true(dcqcn_np_poll(&np, &p, 75 * US));
	assert_false(dcqcn_np_on_marked(&np, &p, 100 * US));
	assert_false(dcqcn_np_poll(&np, &p, 125 * US - 1));
	assert_true(dcqcn_np_poll(&np, &p, 125 * US));
}

/* The ConnectX interval (4 us), and N = 0: a CNP per marked packet. */
static void test_np_intervals(void **state)
{
	struct dcqcn_params p = connectx(40 * G);
	struct dcqcn_np np;

	dcqcn_np_init(&np);
	assert_true(dcqcn_np_on_marked(&np, &p, 0));
	assert_false(dcqcn_np_on_marked(&np, &p, 1 * US));
	assert_int_equal(dcqcn_np_next_ns(&np), 4 * US);
	assert_true(dcqcn_np_poll(&np, &p, 4 * US));

	p.np_interval_ns = 0;
	dcqcn_np_init(&np);
	for (int i = 0; i < 5; i++)
		assert_true(dcqcn_np_on_marked(&np, &p, 7 * US));
	assert_true(dcqcn_np_next_ns(&np) == NEVER);
}

/* ======================= parameters, names ======================= */

static void test_params_defaults(void **state)
{
	struct dcqcn_params p;

	dcqcn_params_default(&p, DCQCN_PAPER, 40 * G);
	assert_true(p.profile == DCQCN_PAPER && p.line_bps == 40 * G);
	assert_true(p.min_bps == 100 * M && p.ai_bps == 40 * M &&
		    p.hai_bps == 200 * M);
	assert_true(p.g == 1.0 / 256 && p.alpha_init == 1.0);
	assert_true(p.alpha_ns == 55 * US && p.inc_ns == 55 * US &&
		    p.dec_ns == 0);
	assert_true(p.byte_counter == 10000000 && p.f == 5);
	assert_true(p.min_dec_factor == 0 && p.clamp_always &&
		    !p.clamp_after_inc && !p.alpha_before_cut);
	assert_true(p.np_interval_ns == 50 * US && p.first_cnp_bps == 0);

	dcqcn_params_default(&p, DCQCN_CONNECTX, 100 * G);
	assert_true(p.profile == DCQCN_CONNECTX && p.line_bps == 100 * G);
	assert_true(p.min_bps == 1 * M && p.ai_bps == 5 * M &&
		    p.hai_bps == 50 * M);
	assert_true(p.g == 5.0 / 1024 && p.alpha_init == 1.0);
	assert_true(p.alpha_ns == 1 * US && p.inc_ns == 300 * US &&
		    p.dec_ns == 4 * US);
	assert_true(p.byte_counter == 0 && p.f == 1);
	assert_true(p.min_dec_factor == 0.5 && !p.clamp_always &&
		    p.clamp_after_inc);
	assert_true(p.np_interval_ns == 4 * US && p.first_cnp_bps == 0);
}

/* Each case breaks one parameter of a valid default set. */
static const struct {
	enum dcqcn_profile prof;
	const char *field; /* the reason starts with it */
} bad_cases[] = {
	{DCQCN_PAPER, "profile"},
	{DCQCN_PAPER, "line_bps"},
	{DCQCN_PAPER, "line_bps"},
	{DCQCN_PAPER, "min_bps"},
	{DCQCN_PAPER, "min_bps"},
	{DCQCN_PAPER, "ai_bps"},
	{DCQCN_PAPER, "hai_bps"},
	{DCQCN_PAPER, "g"},
	{DCQCN_PAPER, "g"},
	{DCQCN_PAPER, "alpha_init"},
	{DCQCN_PAPER, "min_dec_factor"},
	{DCQCN_PAPER, "alpha_ns"},
	{DCQCN_PAPER, "inc_ns"},
	{DCQCN_PAPER, "dec_ns"},
	{DCQCN_PAPER, "first_cnp_bps"},
	{DCQCN_CONNECTX, "dec_ns"},
	{DCQCN_CONNECTX, "byte_counter"},
	{DCQCN_CONNECTX, "first_cnp_bps"},
	{DCQCN_CONNECTX, "alpha_before_cut"},
};

static void break_param(struct dcqcn_params *p, size_t i)
{
	switch (i) {
	case 0:
		p->profile = DCQCN_PROFILE_MAX;
		break;
	case 1:
		p->line_bps = 0;
		break;
	case 2:
		p->line_bps = NAN;
		break;
	case 3:
		p->min_bps = 41 * G;
		break;
	case 4:
		p->min_bps = 0;
		break;
	case 5:
		p->ai_bps = -1;
		break;
	case 6:
		p->hai_bps = INFINITY;
		break;
	case 7:
		p->g = 1.5;
		break;
	case 8:
		p->g = NAN;
		break;
	case 9:
		p->alpha_init = -0.1;
		break;
	case 10:
		p->min_dec_factor = 1.1;
		break;
	case 11:
		p->alpha_ns = 0;
		break;
	case 12:
		p->inc_ns = DCQCN_MAX_PERIOD_NS + 1;
		break;
	case 13:
		p->dec_ns = 4000;
		break;
	case 14:
		p->first_cnp_bps = G;
		break;
	case 15:
		p->dec_ns = 0;
		break;
	case 16:
		p->byte_counter = 1;
		break;
	case 17:
		p->first_cnp_bps = 1;
		break; /* below min_bps */
	case 18:
		p->alpha_before_cut = true;
		break;
	default:
		fail_msg("no case %zu", i);
	}
}

static void test_params_check(void **state)
{
	struct dcqcn_params p;
	const char *why = "x";

	for (int prof = 0; prof < DCQCN_PROFILE_MAX; prof++) {
		dcqcn_params_default(&p, prof, 40 * G);
		assert_int_equal(dcqcn_params_check(&p, &why), 0);
		assert_null(why);
		dcqcn_params_default(&p, prof, 0); /* line rate required */
		assert_int_equal(dcqcn_params_check(&p, NULL), -EINVAL);
	}
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const char *field = bad_cases[i].field;

		dcqcn_params_default(&p, bad_cases[i].prof, 40 * G);
		break_param(&p, i);
		why = NULL;
		assert_int_equal(dcqcn_params_check(&p, &why), -EINVAL);
		assert_non_null(why);
		if (strncmp(why, field, strlen(field)))
			fail_msg("case %zu (%s): reason '%s'", i, field, why);
	}
}

static void test_names(void **state)
{
	static const char *const ev[] = {"none",  "cnp",	   "cut",
					 "alpha", "fast_recovery", "additive",
					 "hyper"};

	for (int e = 0; e < DCQCN_EV_MAX; e++)
		assert_string_equal(dcqcn_event_name(e), ev[e]);
	assert_string_equal(dcqcn_event_name(DCQCN_EV_MAX), "unknown");
	assert_string_equal(dcqcn_event_name((enum dcqcn_event) - 1),
			    "unknown");
	assert_string_equal(dcqcn_profile_name(DCQCN_PAPER), "paper");
	assert_string_equal(dcqcn_profile_name(DCQCN_CONNECTX), "connectx");
	assert_string_equal(dcqcn_profile_name(DCQCN_PROFILE_MAX), "unknown");
	assert_int_equal(dcqcn_profile_from_name("paper"), DCQCN_PAPER);
	assert_int_equal(dcqcn_profile_from_name("connectx"), DCQCN_CONNECTX);
	assert_int_equal(dcqcn_profile_from_name("Paper"), -1);
	assert_int_equal(dcqcn_profile_from_name(""), -1);
	assert_int_equal(dcqcn_profile_from_name(NULL), -1);
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
		cmocka_unit_test(test_catch_up_equals_stepping),
		cmocka_unit_test(test_byte_runs_equal_single_events),
		cmocka_unit_test(test_random_inputs),
		cmocka_unit_test(test_cx_first_cnp),
		cmocka_unit_test(test_cx_one_cut_per_tick),
		cmocka_unit_test(test_cx_clamp_and_stages),
		cmocka_unit_test(test_cx_cap_at_line),
		cmocka_unit_test(test_cx_min_dec_and_floor),
		cmocka_unit_test(test_cx_timers_race),
		cmocka_unit_test(test_cx_ticks_resume_in_phase),
		cmocka_unit_test(test_np_first_marked_immediate),
		cmocka_unit_test(test_np_deferred_and_coalesced),
		cmocka_unit_test(test_np_burst),
		cmocka_unit_test(test_np_intervals),
		cmocka_unit_test(test_params_defaults),
		cmocka_unit_test(test_params_check),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

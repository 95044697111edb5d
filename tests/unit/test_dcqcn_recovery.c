// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_dcqcn_recovery.c - how long a reaction point of the paper profile
 * (dataplane/cc/dcqcn.c, the paper's defaults at 25 Gbit/s) takes to
 * recover, in undilated time, and that time dilation
 * (dcqcn_params_dilate(), what the benchmark's gateway and hosts run:
 * tests/tools/check_dcqcn_dilation.py) keeps the curve and only stretches
 * it.
 *
 * The flow is busy: every 1 us (x the dilation) it reports what it sent at
 * its R_C, so the byte counter runs as on a loaded link. A lone cut
 * recovers by fast recovery alone: F = 5 increase timer events of T = 55
 * us halve the gap each, so 275 us after the CNP R_C is within 1/64 of
 * line (98.4 %). After a deep cut (a CNP every N = 50 us, 4 times) R_C
 * climbs by fast recovery towards the last R_T, then mostly by additive
 * increase; the times below follow from these rules, in microseconds of
 * the fabric (x 1000: milliseconds of the bench's 25 Mbit/s testbed).
 */
#include "test_dcqcn.h"

#define LINE (25 * G)
#define TICK_NS 1000ull /* the busy flow reports every 1 us */

struct busy_flow {
	struct dcqcn_params p;
	struct dcqcn_rp rp;
	uint64_t x; /* dilation */
	uint64_t now; /* undilated ns */
	double carry; /* bits sent not yet a whole byte */
};

static void busy_init(struct busy_flow *f, uint64_t x)
{
	dcqcn_params_default(&f->p, DCQCN_PAPER, LINE);
	dcqcn_params_dilate(&f->p, x);
	assert_int_equal(dcqcn_params_check(&f->p, NULL), 0);
	f->x = x;
	f->now = 0;
	f->carry = 0;
	dcqcn_rp_init(&f->rp, &f->p, 0);
}

/* A CNP now (undilated time f->now, x the dilation on the flow's clock). */
static void busy_cnp(struct busy_flow *f)
{
	dcqcn_rp_on_cnp(&f->rp, &f->p, f->now * f->x);
}

/* Send at R_C for one tick. The bytes of a tick are the same at any
 * dilation (R_C / x for x times as long), computed from R_C / line so that
 * dilated and undilated runs report exactly the same counts. */
static void busy_tick(struct busy_flow *f)
{
	double bits = f->rp.rc / f->p.line_bps * LINE * (double)TICK_NS / 1e9 +
		      f->carry;
	uint64_t bytes = (uint64_t)(bits / 8);

	f->carry = bits - 8.0 * (double)bytes;
	f->now += TICK_NS;
	dcqcn_rp_on_sent(&f->rp, &f->p, bytes, f->now * f->x);
}

/* Undilated time from now until R_C >= share x line, ticking; NEVER if
 * not within limit_ns. */
static uint64_t busy_until(struct busy_flow *f, double share, uint64_t limit)
{
	uint64_t t0 = f->now;

	while (f->rp.rc < share * f->p.line_bps) {
		if (f->now - t0 >= limit)
			return NEVER;
		busy_tick(f);
	}
	return f->now - t0;
}

/* One CNP on a flow at line: 12.5 Gbit/s; the 4th fast recovery (220 us)
 * leaves it at 25 - 12.5 / 16 = 24.22 (96.9 %), the 5th (275 us) at
 * 25 - 12.5 / 32 = 24.61 (98.4 %): within 2 % of line at F T, the paper's
 * fast recovery. */
static void test_recovery_lone_cut_in_f_timer_periods(void **state)
{
	struct busy_flow f;

	busy_init(&f, 1);
	busy_cnp(&f);
	NEAR(f.rp.rc, 12.5 * G);
	while (f.now < 274 * US)
		busy_tick(&f);
	assert_true(f.rp.rc < 0.98 * LINE);
	NEAR(f.rp.rc, (25 - 12.5 / 16) * G);
	assert_int_equal(busy_until(&f, 0.98, 10 * US), 1 * US);
	NEAR(f.rp.rc, (25 - 12.5 / 32) * G);
	assert_int_equal(f.now, 275 * US);
}

/* Four CNPs N = 50 us apart (a backlog the CP keeps marking): R_C 25 ->
 * 12.5 -> 6.27 -> 3.15 -> 1.59 Gbit/s (alpha ~ 1, each about halves it;
 * the alpha timer K = 55 us never fires in between), and the last cut
 * clamps R_T to 3.15. Fast recovery brings R_C to about R_T within F T =
 * 275 us; then additive increase raises R_T by R_AI = 40 Mbit/s per T = 55
 * us, 0.727 Gbit/s per ms, and R_C follows half the gap behind. Hyper
 * increase needs more than F byte-counter events too, 60 MB at a few Gbit/s:
 * not before ~25 ms. So 50 % of line is (12.5 - 3.15) / 0.727 + 0.275 =
 * 13.1 ms after the last cut, 90 % (22.5 - 3.15) / 0.727 + 0.275 = 26.9 ms
 * (a few byte-counter events shorten it a little): the paper's rules
 * recover from a 1/16 cut in tens of milliseconds of the fabric, tens of
 * seconds on the bench's testbed dilated x 1000. */
static uint64_t deep_cut(struct busy_flow *f)
{
	for (int i = 0; i < 4; i++) {
		busy_cnp(f);
		for (int k = 0; k < 50; k++)
			busy_tick(f);
	}
	return f->now;
}

static void test_recovery_deep_cut_undilated(void **state)
{
	struct busy_flow f;
	uint64_t half, ninety;

	busy_init(&f, 1);
	deep_cut(&f);
	assert_true(f.rp.rc < 0.07 * LINE);
	assert_true(f.rp.rc > 0.06 * LINE);
	half = busy_until(&f, 0.5, 100000 * US);
	ninety = half + busy_until(&f, 0.9, 100000 * US);
	print_message("deep cut: 50 %% of line after %.3f ms, 90 %% after "
		      "%.3f ms (undilated)\n",
		      (double)half / 1e6, (double)ninety / 1e6);
	assert_true(half >= 12800 * US && half <= 13400 * US);
	assert_true(ninety >= 26000 * US && ninety <= 27200 * US);
}

/* The same deep cut dilated x 1000 (25 Mbit/s, T = 55 ms, R_AI = 40
 * kbit/s, bytes unchanged) follows the same curve: R_C / line at every
 * tick equal to 1e-9, so the recovery takes exactly 1000 x as long in the
 * testbed's time. */
static void test_recovery_dilation_keeps_curve(void **state)
{
	struct busy_flow a, b;

	busy_init(&a, 1);
	busy_init(&b, 1000);
	NEAR(b.p.line_bps, 25 * M);
	NEAR(b.p.ai_bps, 40e3);
	assert_int_equal(b.p.inc_ns, 55 * US * 1000);
	assert_int_equal(b.p.byte_counter, a.p.byte_counter);
	deep_cut(&a);
	deep_cut(&b);
	while (a.now < 35000 * US) {
		busy_tick(&a);
		busy_tick(&b);
		near_rel(b.rp.rc / b.p.line_bps, a.rp.rc / a.p.line_bps, 1e-9,
			 "R_C / line", __LINE__);
		assert_int_equal(a.rp.t_events, b.rp.t_events);
		assert_int_equal(a.rp.bc_events, b.rp.bc_events);
	}
	assert_true(a.rp.rc > 0.99 * LINE);
}

/* Dilation of the connectx profile: its decrease tick and CNP interval
 * stretch too; a period that would pass DCQCN_MAX_PERIOD_NS saturates and
 * dcqcn_params_check() still accepts the result. */
static void test_dilate_connectx_and_saturation(void **state)
{
	struct dcqcn_params p = connectx(100 * G);

	dcqcn_params_dilate(&p, 1000);
	NEAR(p.line_bps, 100 * M);
	NEAR(p.ai_bps, 5e3);
	assert_int_equal(p.dec_ns, 4000 * 1000);
	assert_int_equal(p.np_interval_ns, 4000 * 1000);
	assert_int_equal(p.alpha_ns, 1000 * 1000);
	assert_int_equal(dcqcn_params_check(&p, NULL), 0);
	p = paper(100 * G);
	dcqcn_params_dilate(&p, 1ull << 40);
	assert_int_equal(p.inc_ns, DCQCN_MAX_PERIOD_NS);
	p = paper(100 * G);
	dcqcn_params_dilate(&p, 1);
	NEAR(p.line_bps, 100 * G);
	assert_int_equal(p.inc_ns, 55 * US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recovery_lone_cut_in_f_timer_periods),
		cmocka_unit_test(test_recovery_deep_cut_undilated),
		cmocka_unit_test(test_recovery_dilation_keeps_curve),
		cmocka_unit_test(test_dilate_connectx_and_saturation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_edge_rate_law.c - the aggregate rate controller's law
 * (cc/edge_rate.h) on the fluid model of test_edge_rate.h. What is asserted,
 * with base RTT 1 ms and target 500 us:
 *  - a capacity step down (100 -> 50 %) is followed within 10 base RTTs: the
 *    rate cut to at most 105 % of C and the queue beyond back under the
 *    target delay; within 30 the rate is within [85 %, 105 %] of C;
 *  - a step up (50 -> 80 %) within 15 base RTTs: the rate >= 85 % of C;
 *  - on a steady path the rate moves by less than 12 % of C peak to peak (a
 *    slow sawtooth just under C) and the queue beyond stays below 1.5x the
 *    target (the feedback comes one round trip late), without a loss;
 *  - the rate never leaves [floor, max] whatever the estimates;
 *  - with the gateway as the bottleneck (C above max) it stays at max;
 *  - with no samples it holds max and says so; samples seen after the
 *    controller's now; the parameters' checks.
 */
#include "test_edge_rate.h"

static void test_step_down_followed(void **state)
{
	struct plant pl;

	plant_init(&pl, MAXBPS);
	run_for(&pl, 100 * BASE);
	pl.cap_bps = 0.5 * MAXBPS; /* cross-traffic takes half */
	run_for(&pl, 10 * BASE);
	print_message("step down: rate %.1f Mbit/s for C %.1f, queue %.0f us, "
		      "state %s\n",
		      pl.er.rate_bps / 1e6, pl.cap_bps / 1e6,
		      qdelay_ns(&pl) / 1e3, edge_rate_state_name(pl.er.state));
	/* within 10 base RTTs: cut, at most 5 % above C, the queue beyond
	 * back under the target */
	assert_true(pl.er.rate_bps <= 1.05 * pl.cap_bps);
	assert_true(qdelay_ns(&pl) < (double)pl.p.target_ns);
	assert_true(pl.er.cuts > 0);
	/* within 30: back up to within 15 % of C (the cut drained the
	 * queue; a clear path probes up, it never settles below) */
	run_for(&pl, 20 * BASE);
	print_message("  20 RTTs later: rate %.1f Mbit/s\n",
		      pl.er.rate_bps / 1e6);
	assert_true(pl.er.rate_bps >= 0.85 * pl.cap_bps);
	assert_true(pl.er.rate_bps <= 1.05 * pl.cap_bps);
}

static void test_step_up_followed(void **state)
{
	struct plant pl;

	plant_init(&pl, 0.5 * MAXBPS);
	run_for(&pl, 100 * BASE);
	pl.cap_bps = 0.8 * MAXBPS;
	run_for(&pl, 15 * BASE);
	print_message("step up: rate %.1f Mbit/s for C %.1f\n",
		      pl.er.rate_bps / 1e6, pl.cap_bps / 1e6);
	assert_true(pl.er.rate_bps >= 0.85 * pl.cap_bps);
}

static void test_steady_no_oscillation(void **state)
{
	struct plant pl;
	double lo = 1e18, hi = 0, qmax = 0;

	plant_init(&pl, 0.6 * MAXBPS);
	run_for(&pl, 100 * BASE);
	for (uint64_t end = pl.now + 200 * BASE; pl.now < end;) {
		step(&pl);
		lo = fmin(lo, pl.er.rate_bps);
		hi = fmax(hi, pl.er.rate_bps);
		qmax = fmax(qmax, qdelay_ns(&pl));
	}
	print_message("steady: rate %.1f..%.1f Mbit/s for C %.1f, queue max "
		      "%.0f us\n",
		      lo / 1e6, hi / 1e6, pl.cap_bps / 1e6, qmax / 1e3);
	assert_true(hi - lo < 0.12 * pl.cap_bps);
	assert_true(qmax < 1.5 * (double)pl.p.target_ns);
	assert_true(lo > 0.85 * pl.cap_bps);
	assert_true(pl.drops == 0);
}

static void test_rate_within_bounds(void **state)
{
	struct edge_rate_params p;
	struct edge_rate er;
	struct edge_est est = {.valid = true, .base_rtt_ns = 100 * US};
	uint64_t now = 0;

	edge_rate_params_default(&p, MAXBPS);
	p.floor_bps = 20e6;
	edge_rate_init(&er, &p);
	srandom(7);
	for (int i = 0; i < 100000; i++) {
		now += (uint64_t)(random() % 200) * US;
		est.srtt_ns =
			est.base_rtt_ns + (uint64_t)(random() % 5000) * US;
		est.delivery_bps = (double)(random() % 300) * 1e6;
		est.mark_frac = random() % 4 ? 0 : 0.2;
		est.last_sample_ns = now;
		edge_rate_update(&er, &p, &est, now);
		assert_true(er.rate_bps >= p.floor_bps);
		assert_true(er.rate_bps <= p.max_bps);
	}
}

static void test_gateway_is_bottleneck(void **state)
{
	struct plant pl;

	plant_init(&pl, 2 * MAXBPS); /* the path beyond is faster */
	run_for(&pl, 100 * BASE);
	assert_true(pl.er.rate_bps == MAXBPS);
	assert_int_equal(pl.er.state, EDGE_LINE);
	assert_int_equal(pl.er.cuts, 0);
}

static void test_no_samples_holds(void **state)
{
	struct edge_rate_params p;
	struct edge_rate er;
	struct edge_est est = {.valid = true,
			       .base_rtt_ns = BASE,
			       .srtt_ns = 10 * BASE,
			       .delivery_bps = 30e6};

	edge_rate_params_default(&p, MAXBPS);
	edge_rate_init(&er, &p);
	assert_int_equal(er.state, EDGE_NO_SAMPLES);
	assert_true(er.rate_bps == MAXBPS);
	/* congestion: cut */
	edge_rate_update(&er, &p, &est, 1 * MS);
	assert_int_equal(er.state, EDGE_DRAIN);
	assert_true(er.rate_bps < MAXBPS);
	/* the samples stop: after hold_ns back to max, said so */
	est.last_sample_ns = 1 * MS;
	edge_rate_update(&er, &p, &est, 1 * MS + p.hold_ns + 1);
	assert_int_equal(er.state, EDGE_NO_SAMPLES);
	assert_true(er.rate_bps == MAXBPS);
	assert_string_equal(edge_rate_state_name(er.state), "no_samples");
	/* and never valid: stays there */
	est.valid = false;
	edge_rate_update(&er, &p, &est, 10 * p.hold_ns);
	assert_true(er.rate_bps == MAXBPS);
	assert_int_equal(er.no_samples, 1);
}

/* The newest sample seen a little after the decision's now (the RX
 * task of another worker read its clock after this pass began): a
 * sample of age 0, not one older than hold_ns. The controller keeps its
 * state and its capacity estimate; never no_samples. */
static void test_sample_after_now(void **state)
{
	struct edge_rate_params p;
	struct edge_rate er;
	struct edge_est est = {.valid = true,
			       .base_rtt_ns = BASE,
			       .srtt_ns = 10 * BASE,
			       .delivery_bps = 30e6};
	uint64_t now = 1 * MS;

	edge_rate_params_default(&p, MAXBPS);
	edge_rate_init(&er, &p);
	edge_rate_update(&er, &p, &est, now);
	assert_int_equal(er.state, EDGE_DRAIN);
	for (int i = 0; i < 100; i++) {
		now = er.next_ns;
		est.last_sample_ns = now + 2 * US; /* seen 2 us "later" */
		/* the delay fell to the target: no more cuts */
		est.srtt_ns = BASE + p.target_ns / 2;
		edge_rate_update(&er, &p, &est, now);
		assert_int_not_equal(er.state, EDGE_NO_SAMPLES);
		assert_true(er.rate_bps < MAXBPS);
		/* too few samples in the window: held, not reset */
		est.valid = false;
		now = er.next_ns;
		edge_rate_update(&er, &p, &est, now);
		assert_int_not_equal(er.state, EDGE_NO_SAMPLES);
		est.valid = true;
	}
	assert_int_equal(er.no_samples, 0);
}

static void test_params_checked(void **state)
{
	struct edge_rate_params p;
	const char *why = NULL;

	edge_rate_params_default(&p, MAXBPS);
	assert_int_equal(edge_rate_params_check(&p, &why), 0);
	p.floor_bps = 2 * MAXBPS;
	assert_int_not_equal(edge_rate_params_check(&p, &why), 0);
	assert_non_null(strstr(why, "floor_bps"));
	edge_rate_params_default(&p, MAXBPS);
	p.max_cut = 0.9;
	assert_int_not_equal(edge_rate_params_check(&p, &why), 0);
	assert_non_null(strstr(why, "max_cut"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_down_followed),
		cmocka_unit_test(test_step_up_followed),
		cmocka_unit_test(test_steady_no_oscillation),
		cmocka_unit_test(test_rate_within_bounds),
		cmocka_unit_test(test_gateway_is_bottleneck),
		cmocka_unit_test(test_no_samples_holds),
		cmocka_unit_test(test_sample_after_now),
		cmocka_unit_test(test_params_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

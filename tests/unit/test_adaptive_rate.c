// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_adaptive_rate.c - the rate adaptive egress settles to, with numbers
 * (the simulation of test_adaptive.h):
 *  - bottleneck beyond at 50 % of ports[].rate: the shaper's rate settles
 *    within 15 % of C (mean over the last second), the queue beyond stays
 *    short (mean below 2 x target; without the controller the buffer
 *    fills: checked in the same test), utilisation of C >= 85 %, the
 *    rate's sawtooth at most 30 % of C peak to peak; marks of the port's
 *    own flows count port-wide;
 *  - a step of C from 100 % down to 50 % and back up to 80 %: followed,
 *    the rate within 15 % of the new C within 40 base RTTs of the step
 *    down and 80 of the step up (one flow: one RTT sample per RTT;
 *    measured 40 and 60: the cut waits 4 ms for the delay to stand, growth
 *    target / margin for each step of at most margin), then, once the
 *    step's queue drained, the same as above at the new C;
 *  - the gateway is the bottleneck (C above ports[].rate): the rate stays
 *    at ports[].rate (state line);
 *  - what the upper class sends is measured as the shaper charges it
 *    (64-byte frames, 24 bytes of overhead: within 3 %);
 *  - a backlog a class ceiling holds (40 % of the line), the path beyond
 *    faster, a delay that is no queue: the rate >= 75 % of the line (the
 *    port's sent rate measured, not taken for the shaper's: 36 %);
 *  - events seen after the consumer's now (1 in 50 by 2 us, every one by
 *    1 us: two workers' clocks): the same bounds, never no_samples;
 *  - no samples (UDP only): the rate is ports[].rate, state no_samples;
 *    samples stop: back to ports[].rate after the hold time (counted);
 *  - one of 3 queues (a per-queue max and floor that are no whole number
 *    of bit/s): at the max or the floor, decisions that keep the rate are
 *    no rate change (0 in a second).
 */
#include "test_adaptive.h"

/* The bottleneck beyond at half the line: the queue moves into the
 * gateway. Without the controller, the FIFO beyond fills. */
static void test_half_rate_beyond(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS / 2.0), *off;
	struct run_stats warm, st, st_off;
	struct adaptive_view v;

	(void)state;
	warm = run(m, 2000000000ull);
	m->rate_lo = 1e18;
	m->rate_hi = 0;
	st = run(m, 1000000000ull);
	print_message("on:  rate %.1f Mbit/s, queue beyond mean %.0f us max "
		      "%.0f us, utilisation %.3f (warm-up util %.3f)\n",
		      st.rate_mean / 1e6, st.queue_mean_ns / 1e3,
		      st.queue_max_ns / 1e3, st.util, warm.util);
	print_message("on:  rate from %.1f to %.1f Mbit/s\n", m->rate_lo / 1e6,
		      m->rate_hi / 1e6);
	assert_near(st.rate_mean, LINE_BPS / 2.0, 0.15);
	/* the steady sawtooth: at most 30 % of C peak to peak */
	assert_true(m->rate_hi - m->rate_lo <= 0.3 * LINE_BPS / 2.0);
	assert_true(st.queue_mean_ns < 2 * 500000.0);
	assert_true(st.util >= 0.85);
	assert_in_bounds(m);
	adaptive_read(&m->a, &v);
	assert_int_equal(v.on, 1);
	assert_int_equal(v.rate_bps, sched_port_rate(&m->s));
	assert_true(v.base_rtt_ns >= BASE_RTT && v.base_rtt_ns < 2 * BASE_RTT);
	assert_true(v.state == EDGE_PROBE || v.state == EDGE_HOLD ||
		    v.state == EDGE_DRAIN);
	assert_true(v.n_hist > 0);
	assert_true(ctr_read(&m->a.ctr.rtt_samples) > 100);
	assert_true(ctr_read(&m->a.ctr.cuts) > 0);
	sim_free(m);

	off = sim_new(false, LINE_BPS / 2.0);
	run(off, 2000000000ull);
	st_off = run(off, 1000000000ull);
	print_message("off: rate %.1f Mbit/s, queue beyond mean %.0f us\n",
		      st_off.rate_mean / 1e6, st_off.queue_mean_ns / 1e3);
	assert_true(st_off.rate_mean == (double)LINE_BPS);
	assert_true(st_off.queue_mean_ns > 10 * st.queue_mean_ns);
	assert_int_equal(ctr_read(&off->a.ctr.decisions), 0);
	sim_free(off);
}

/* The port's queues share their own marks: while queue 1's classes set
 * CE marks, the returning marks of queue 0's flows (25 % ECE, the path
 * beyond twice the line: no queue there) do not cut queue 0; once queue
 * 1 stopped marking for ADAPTIVE_OWN_MARKS_NS, they do. */
static void test_own_marks_port_wide(void **state)
{
	struct sim *m = sim_new(true, 2.0 * LINE_BPS),
		   *q1 = sim_new(true, 2.0 * LINE_BPS);
	struct adaptive_shared sh;

	(void)state;
	memset(&sh, 0, sizeof(sh));
	adaptive_share(&m->a, &sh);
	adaptive_share(&q1->a, &sh);
	m->peer = q1;
	m->peer_marks = 1;
	m->ece_every = 4;
	run(m, 500000000ull);
	print_message("queue 1 marking: queue 0's rate %.1f..%.1f Mbit/s, "
		      "%lu cuts\n",
		      m->rate_lo / 1e6, m->rate_hi / 1e6,
		      (unsigned long)ctr_read(&m->a.ctr.cuts));
	assert_int_equal(ctr_read(&m->a.ctr.cuts), 0);
	assert_true(m->rate_lo == (double)LINE_BPS);
	m->peer_marks = 0;
	run(m, 2 * ADAPTIVE_OWN_MARKS_NS);
	assert_true(ctr_read(&m->a.ctr.cuts) > 0);
	assert_true(m->rate_lo < 0.95 * LINE_BPS);
	sim_free(q1);
	sim_free(m);
}

/* Capacity steps 100 % -> 50 % -> 80 % of the line. */
static void test_steps(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS);
	static const double steps[] = {0.5, 0.8};
	/* base RTTs to follow each: growth is confirmed every target /
	 * margin (10 ms here), by at most 5 % */
	static const uint64_t bound[] = {40, 80};
	struct run_stats st;

	(void)state;
	run(m, 1000000000ull);
	assert_true((double)sched_port_rate(&m->s) >= 0.9 * LINE_BPS);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		uint64_t t0 = m->now, within = 0;
		double cap = steps[i] * LINE_BPS;

		m->cap_bps = cap;
		/* follow: bound[i] base RTTs at most */
		while (m->now - t0 < bound[i] * BASE_RTT) {
			run(m, BASE_RTT);
			double r = (double)sched_port_rate(&m->s);

			if (r >= cap * 0.85 && r <= cap * 1.15) {
				within = m->now - t0;
				break;
			}
		}
		print_message("step to %.0f %%: rate within 15 %% after %.1f "
			      "base RTTs\n",
			      steps[i] * 100, (double)within / BASE_RTT);
		assert_true(within > 0);
		run(m, 300000000ull); /* the queue of the step drains */
		st = run(m, 1000000000ull);
		print_message("  then: rate %.1f Mbit/s, queue beyond mean "
			      "%.0f us, utilisation %.3f\n",
			      st.rate_mean / 1e6, st.queue_mean_ns / 1e3,
			      st.util);
		assert_near(st.rate_mean, cap, 0.15);
		assert_true(st.util >= 0.85);
		assert_true(st.queue_mean_ns < 2 * 500000.0);
	}
	assert_in_bounds(m);
	sim_free(m);
}

/* A class above the TCP's (level 0, the TCP's class level 1) sends 88 %
 * of C: what it sends is kept by the cuts a delay that is no queue
 * beyond causes (1.5 ms more on every ACK for 300 ms: without it the
 * cuts go to 80 % of the estimate, below what that class sends). */
static void test_upper_classes_kept(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS / 2.0);
	struct qos_policy pol;
	uint64_t cuts;
	double kept = 0.44 * LINE_BPS * 1.05;

	(void)state;
	policy(&pol, true);
	pol.classes[0].level = 1;
	pol.classes[1] = pol.classes[0];
	snprintf(pol.classes[1].name, QOS_NAME_MAX, "upper");
	pol.classes[1].level = 0;
	pol.n_classes = 2;
	reconfigure(m, &pol);
	run(m, 2000000000ull); /* TCP alone settles at C */
	m->upper_bps = 0.44 * LINE_BPS;
	m->upper_next = m->now;
	run(m, 500000000ull);
	cuts = m->a.er.cuts;
	m->rate_lo = 1e18;
	m->upper_drops = 0;
	m->phantom_ns = 1500000;
	run(m, 300000000ull);
	m->phantom_ns = 0;
	print_message("upper class at %.1f Mbit/s: %llu cuts, %llu kept it, "
		      "rate down to %.1f Mbit/s\n",
		      m->upper_bps / 1e6,
		      (unsigned long long)(m->a.er.cuts - cuts),
		      (unsigned long long)m->a.er.kept_cuts, m->rate_lo / 1e6);
	assert_true(m->a.er.cuts > cuts);
	assert_true(m->a.er.kept_cuts > 0);
	assert_true(m->rate_lo >= 0.99 * kept);
	assert_int_equal(m->upper_drops, 0);
	assert_in_bounds(m);
	sim_free(m);
}

/* What the classes above the lowest level send is measured in the
 * shaper's units, as it charges them: each frame's length + the port's
 * overhead (24 bytes here). 64-byte frames at 20 Mbit/s charged: read
 * without the overhead, 64 / 88 of it. */
static void test_upper_sent_overhead(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS / 2.0);
	struct qos_policy pol;
	double want = 0.2 * LINE_BPS, lo = 1e18, hi = 0;

	(void)state;
	policy(&pol, true);
	pol.port[1].overhead = 24;
	pol.classes[0].level = 1;
	pol.classes[1] = pol.classes[0];
	snprintf(pol.classes[1].name, QOS_NAME_MAX, "upper");
	pol.classes[1].level = 0;
	pol.n_classes = 2;
	reconfigure(m, &pol);
	m->upper_bps = want;
	m->upper_payload = 10; /* 64-byte frames */
	m->upper_next = m->now;
	run(m, 1000000000ull);
	for (uint32_t i = 0; i < ADAPTIVE_PROTECT_N; i++) {
		lo = MIN(lo, m->a.prot_bps[i]);
		hi = MAX(hi, m->a.prot_bps[i]);
	}
	print_message("upper class, 64 B frames at %.1f Mbit/s charged: "
		      "measured %.2f..%.2f Mbit/s\n",
		      want / 1e6, lo / 1e6, hi / 1e6);
	assert_int_equal(m->upper_drops, 0);
	assert_true(m->a.n_prot >= ADAPTIVE_PROTECT_N);
	assert_near(lo, want, 0.03);
	assert_near(hi, want, 0.03);
	sim_free(m);
}

/* A backlog the port's shaper does not hold back (here a class ceiling
 * of 40 % of the line; on the veth bench the gateway's own DCQCN pacing
 * of the RoCE flows) leaves at less than the shaper's rate, and the path
 * delivers all of it: no capacity drop. The port's sent rate is measured,
 * not inferred from the backlog: taken for the shaper's rate, the
 * delivery rate read 60 % low, a delay that is no queue (1.5 ms on every
 * ACK, the path beyond faster than the line) was "proven" a drop, and the
 * rate went to 36 % of the line at once (measured on the veth bench:
 * 50 -> 27 Mbit/s, the bulk class's ACKs behind the RoCE class). */
static void test_backlog_below_rate_no_drop(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS * 1.25);
	struct qos_policy pol;

	(void)state;
	policy(&pol, true);
	pol.classes[0].ceil_bps = LINE_BPS * 4 / 10;
	pol.classes[0].ceil_burst = 16384;
	reconfigure(m, &pol);
	run(m, 1000000000ull);
	m->rate_lo = 1e18;
	m->phantom_ns = 1500000;
	run(m, 300000000ull);
	m->phantom_ns = 0;
	print_message("backlog held by a 40 %% ceiling, a delay that is no "
		      "queue: %llu cuts, rate down to %.1f Mbit/s\n",
		      (unsigned long long)m->a.er.cuts, m->rate_lo / 1e6);
	assert_true(m->a.er.cuts > 0);
	assert_true(m->rate_lo >= 0.75 * LINE_BPS);
	assert_in_bounds(m);
	sim_free(m);
}

/* Two workers: the RX task that posts an event and the egress task that
 * takes it read their clocks at the starts of their own passes, so an
 * event can be seen after the taker's now. The same bounds as
 * test_half_rate_beyond, and the controller never goes to no_samples
 * while samples flow. */
static void test_events_after_now(void **state)
{
	static const struct {
		uint32_t every;
		uint64_t skew_ns;
	} cases[] = {{50, 2000}, {1, 1000}};

	(void)state;
	for (uint32_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sim *m = sim_new(true, LINE_BPS / 2.0);
		struct run_stats st;

		m->skew_every = cases[i].every;
		m->skew_ns = cases[i].skew_ns;
		run(m, 2000000000ull);
		m->rate_lo = 1e18;
		m->rate_hi = 0;
		st = run(m, 1000000000ull);
		print_message(
			"1 event in %u seen %llu ns late: rate %.1f "
			"Mbit/s (%.1f-%.1f), queue beyond mean %.0f us, "
			"%llu times no_samples\n",
			cases[i].every, (unsigned long long)cases[i].skew_ns,
			st.rate_mean / 1e6, m->rate_lo / 1e6, m->rate_hi / 1e6,
			st.queue_mean_ns / 1e3,
			(unsigned long long)ctr_read(&m->a.ctr.no_samples));
		assert_int_equal(ctr_read(&m->a.ctr.no_samples), 0);
		assert_near(st.rate_mean, LINE_BPS / 2.0, 0.15);
		assert_true(m->rate_hi - m->rate_lo <= 0.3 * LINE_BPS / 2.0);
		assert_true(st.queue_mean_ns < 2 * 500000.0);
		assert_true(st.util >= 0.85);
		sim_free(m);
	}
}

/* The gateway is the bottleneck: nothing to do. */
static void test_gateway_is_bottleneck(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS * 1.25);
	struct adaptive_view v;

	(void)state;
	run(m, 2000000000ull);
	assert_int_equal(sched_port_rate(&m->s), LINE_BPS);
	assert_true(m->rate_lo >= 0.9 * LINE_BPS);
	adaptive_read(&m->a, &v);
	assert_int_equal(v.state, EDGE_LINE);
	sim_free(m);
}

/* No TCP or RC traffic: no samples, the rate held at ports[].rate. Then
 * samples that stop: back to it after the hold time. */
static void test_no_samples(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS / 2.0);
	struct adaptive_view v;

	(void)state;
	m->udp = true;
	run(m, 500000000ull);
	assert_int_equal(sched_port_rate(&m->s), LINE_BPS);
	assert_true(m->rate_lo == (double)LINE_BPS);
	adaptive_read(&m->a, &v);
	assert_int_equal(v.state, EDGE_NO_SAMPLES);
	assert_int_equal(ctr_read(&m->a.ctr.rtt_samples), 0);

	/* TCP: the rate comes down; then only UDP again */
	m->udp = false;
	m->busy_until = m->now;
	run(m, 1000000000ull);
	assert_true(sched_port_rate(&m->s) < 0.7 * LINE_BPS);
	m->udp = true;
	assert_int_equal(ctr_read(&m->a.ctr.no_samples), 0);
	run(m, 1500000000ull); /* past the hold time (1 s) */
	assert_int_equal(sched_port_rate(&m->s), LINE_BPS);
	assert_int_equal(ctr_read(&m->a.ctr.no_samples), 1);
	adaptive_read(&m->a, &v);
	assert_int_equal(v.state, EDGE_NO_SAMPLES);
	sim_free(m);
}

/* One of 3 queues: the per-queue max (ports[].rate / 3) and floor are not
 * whole numbers of bit/s. A decision that leaves the rate where it is
 * changes nothing: it is not counted as a rate change and the shaper is
 * not set again. At the max (the gateway is the bottleneck) and at the
 * floor (the path beyond far below it). */
static void test_rate_changes_real(void **state)
{
	/* the floor half the line (16.67 Mbit/s per queue), C just below it */
	static const double caps[] = {LINE_BPS * 1.25, LINE_BPS * 0.165};

	(void)state;
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		struct sim *m = sim_new(true, caps[i]);
		uint64_t dec, chg;

		m->pol.port[1].adaptive.floor_bps = LINE_BPS / 2;
		assert_int_equal(
			sched_set_queue_share(&m->s, 3, &m->pol, 1, m->now), 0);
		adaptive_configure(&m->a, &m->pol, &m->s, m->now);
		assert_true(m->a.par.max_bps !=
			    (double)(uint64_t)m->a.par.max_bps);
		assert_true(m->a.par.floor_bps !=
			    (double)(uint64_t)m->a.par.floor_bps);
		if (i) { /* settle above the floor first: a short queue */
			m->cap_bps = LINE_BPS * 0.3;
			run(m, 1000000000ull);
			m->cap_bps = caps[i];
		}
		run(m, 1000000000ull);
		dec = ctr_read(&m->a.ctr.decisions);
		chg = ctr_read(&m->a.ctr.rate_changes);
		m->rate_lo = 1e18;
		m->rate_hi = 0;
		run(m, 1000000000ull);
		dec = ctr_read(&m->a.ctr.decisions) - dec;
		chg = ctr_read(&m->a.ctr.rate_changes) - chg;
		print_message("1 of 3 queues, C %.1f Mbit/s: rate %.0f..%.0f "
			      "bit/s, %llu decisions, %llu rate changes\n",
			      caps[i] / 1e6, m->rate_lo, m->rate_hi,
			      (unsigned long long)dec, (unsigned long long)chg);
		assert_true(dec > 10);
		/* settled at the max or the floor: the rate stood still */
		assert_true(m->rate_lo == m->rate_hi);
		assert_true(m->rate_lo ==
			    (double)(uint64_t)(i ? m->a.par.floor_bps
						 : m->a.par.max_bps));
		assert_int_equal(chg, 0);
		sim_free(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half_rate_beyond),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_own_marks_port_wide),
		cmocka_unit_test(test_upper_classes_kept),
		cmocka_unit_test(test_upper_sent_overhead),
		cmocka_unit_test(test_events_after_now),
		cmocka_unit_test(test_gateway_is_bottleneck),
		cmocka_unit_test(test_backlog_below_rate_no_drop),
		cmocka_unit_test(test_no_samples),
		cmocka_unit_test(test_rate_changes_real),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

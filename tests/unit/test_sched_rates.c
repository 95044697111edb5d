// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_sched_rates.c - the egress scheduler's rates against a fake clock:
 * strict priority, a strict class capped by a ceiling (work-conserving),
 * DWRR shares with mixed frame sizes and the deficit reset, the guaranteed
 * minimum, a port rate set at run time, the queue share, ceilings that are
 * skipped, the next-event time.
 */
#include "test_sched.h"

static void test_strict_order(void **state)
{
	struct frame_desc out[300];
	struct qos_policy p;
	struct sched s;
	uint32_t n;

	policy_init(&p, 0, 0);
	add_class(&p, 1, 1500); /* class 0: low */
	add_class(&p, 0, 1500); /* class 1: high */
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(enq(&s, 0, 100, 0), 0);
		assert_int_equal(enq(&s, 1, 100, 0), 0);
	}
	assert_int_equal(sched_backlog_packets(&s), 200);
	n = sched_dequeue(&s, out, 150, 0);
	assert_int_equal(n, 150);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(frame_meta_class(out[i].meta),
				 i < 100 ? 1 : 0);
	/* FIFO inside a class */
	for (uint32_t i = 1; i < 100; i++)
		assert_true(out[i].addr > out[i - 1].addr);
	assert_int_equal(sched_dequeue(&s, out, 300, 0), 50);
	assert_int_equal(sched_dequeue(&s, out, 300, 0), 0);
	assert_int_equal(sched_backlog_packets(&s), 0);
	sched_fini(&s);
}

/* Both levels backlogged, the higher under its ceiling (50 G > port 10 G):
 * the lower sends nothing and the port rate is met. With only the lower
 * backlogged it gets the whole port. */
static void test_strict_starves_below_ceiling(void **state)
{
	struct qos_policy p;
	struct result r;
	struct sched s;
	struct qos_class *hi;

	policy_init(&p, 10000000000ull, 30000);
	hi = add_class(&p, 0, 1500);
	hi->ceil_bps = 50000000000ull;
	hi->ceil_burst = 100000;
	add_class(&p, 1, 1500);
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	fixed_len = 1500;
	run(&s, 3, 10 * NS_PER_MS, 100 * NS_PER_MS, size_fixed, &r);
	assert_int_equal(r.bytes[1], 0);
	assert_rel("port rate, high only", r.total * 8.0 * 10, 1e10, 0.005);
	sched_fini(&s);

	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	run(&s, 2, 10 * NS_PER_MS, 100 * NS_PER_MS, size_fixed, &r);
	assert_rel("port rate, low alone", r.bytes[1] * 8.0 * 10, 1e10, 0.005);
	sched_fini(&s);
}

/* The higher level capped by a ceiling at 30 % of a 10 Gbit/s port: it
 * gets 30 %, the lower the other 70 % (work-conserving). */
static void test_strict_with_ceiling(void **state)
{
	struct qos_policy p;
	struct result r;
	struct sched s;
	struct qos_class *hi;
	double port = 1e10, share;

	policy_init(&p, (uint64_t)port, 30000);
	hi = add_class(&p, 0, 1500);
	hi->ceil_share = SHARE(30);
	hi->ceil_burst = 15000;
	add_class(&p, 1, 1500);
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	fixed_len = 1500;
	run(&s, 3, 10 * NS_PER_MS, NS_PER_S, size_fixed, &r);
	share = (double)r.bytes[0] / r.total;
	assert_rel("high share of port", share, 0.30, 0.005);
	assert_rel("high rate", r.bytes[0] * 8.0, 0.3 * port, 0.005);
	assert_rel("low rate (the rest)", r.bytes[1] * 8.0, 0.7 * port, 0.005);
	assert_rel("port rate", r.total * 8.0, port, 0.005);
	sched_fini(&s);
}

/* 3 classes at one level, quanta 1500/3000/4500, frames 64..9000 B: shares
 * within 2 % of 1/6, 2/6, 3/6 -- shaped and unshaped port. */
static void test_dwrr_shares(void **state)
{
	static const uint32_t quanta[] = {1500, 3000, 4500};
	struct qos_policy p;
	struct result r;
	struct sched s;

	for (int shaped = 1; shaped >= 0; shaped--) {
		policy_init(&p, shaped ? 10000000000ull : 0, 30000);
		add_class(&p, 0, quanta[0]);
		add_class(&p, 0, quanta[1]);
		add_class(&p, 0, quanta[2]);
		assert_int_equal(sched_init(&s, &p, 0, 0), 0);
		lcg_state = 99;
		run_limited(&s, 7, 10 * NS_PER_MS,
			    shaped ? NS_PER_S : 100 * NS_PER_MS, size_mixed,
			    shaped ? UINT32_MAX : 16, &r);
		printf("  %s port, %llu bytes\n",
		       shaped ? "shaped" : "unshaped",
		       (unsigned long long)r.total);
		for (int c = 0; c < 3; c++) {
			char what[32];

			snprintf(what, sizeof(what), "share of quantum %u",
				 quanta[c]);
			assert_rel(what, (double)r.bytes[c] / r.total,
				   quanta[c] / 9000.0, 0.02);
		}
		if (shaped)
			assert_rel("port rate", r.total * 8.0, 1e10, 0.005);
		sched_fini(&s);
	}
}

/* A class that empties loses its deficit: after a drain, a burst of one
 * class is not followed by credit from before. */
static void test_dwrr_deficit_reset(void **state)
{
	struct frame_desc out[16];
	struct qos_policy p;
	struct sched s;

	policy_init(&p, 0, 0);
	add_class(&p, 0, 3000);
	add_class(&p, 0, 3000);
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	/* class 0 gets 3000, sends one 1000 B frame (+24) and empties */
	assert_int_equal(enq(&s, 0, 1000, 0), 0);
	assert_int_equal(sched_dequeue(&s, out, 16, 0), 1);
	/* now both backlogged with 1000 B frames: each turn carries
	 * floor(3000 / 1024) = 2 frames, class 0 first in slot order */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(enq(&s, 0, 1000, 0), 0);
		assert_int_equal(enq(&s, 1, 1000, 0), 0);
	}
	assert_int_equal(sched_dequeue(&s, out, 8, 0), 8);
	/* the turn was at class 0 (its deficit reset to 0 when it emptied):
	 * class 1 goes next with a fresh quantum */
	static const unsigned int want[] = {1, 1, 0, 0, 1, 1, 0, 0};
	for (int i = 0; i < 8; i++)
		assert_int_equal(frame_meta_class(out[i].meta), want[i]);
	sched_fini(&s);
}

/* A low-level class with a minimum of 20 % gets 20 % while a higher
 * level is backlogged (and the higher one the rest); as min_share and as
 * min_bps. A minimum above the class's ceiling is cut by the ceiling. */
static void test_min_guarantee(void **state)
{
	struct qos_policy p;
	struct result r;
	struct sched s;
	struct qos_class *lo;

	for (int as_bps = 0; as_bps < 2; as_bps++) {
		policy_init(&p, 10000000000ull, 30000);
		add_class(&p, 0, 1500);
		lo = add_class(&p, 1, 1500);
		if (as_bps)
			lo->min_bps = 2000000000ull;
		else
			lo->min_share = SHARE(20);
		lo->min_burst = 15000;
		assert_int_equal(sched_init(&s, &p, 0, 0), 0);
		lcg_state = 5;
		run(&s, 3, 10 * NS_PER_MS, NS_PER_S, size_mixed, &r);
		assert_true(r.bytes[1] * 8.0 >= 0.2 * 1e10 * 0.995);
		assert_rel("low (min 20 %) rate", r.bytes[1] * 8.0, 0.2 * 1e10,
			   0.005);
		assert_rel("high rate (the rest)", r.bytes[0] * 8.0, 0.8 * 1e10,
			   0.005);
		sched_fini(&s);
	}

	policy_init(&p, 10000000000ull, 30000);
	add_class(&p, 0, 1500);
	lo = add_class(&p, 1, 1500);
	lo->min_share = SHARE(50);
	lo->min_burst = 15000;
	lo->ceil_share = SHARE(10);
	lo->ceil_burst = 15000;
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	fixed_len = 1500;
	run(&s, 3, 10 * NS_PER_MS, NS_PER_S, size_fixed, &r);
	assert_rel("min 50 % under ceil 10 %", r.bytes[1] * 8.0, 0.1 * 1e10,
		   0.005);
	sched_fini(&s);
}

/* A 1 Gbit/s port, class 0 (level 0) with a ceiling of 50 % of the port,
 * class 1 (level 1) with an absolute ceiling of lo_ceil_bps. */
static void ceiled_pair(struct qos_policy *p, uint64_t lo_ceil_bps)
{
	struct qos_class *hi, *lo;

	policy_init(p, 1000000000ull, 30000);
	hi = add_class(p, 0, 1500);
	hi->ceil_share = SHARE(50);
	hi->ceil_burst = 15000;
	lo = add_class(p, 1, 1500);
	lo->ceil_bps = lo_ceil_bps;
	lo->ceil_burst = 15000;
}

/* The adaptive egress's knob: a new port rate applies from now on, and
 * the ceilings given as a share of the port follow it (absolute ones
 * stay); a reload starts again from the policy's rate. */
static void test_set_port_rate(void **state)
{
	struct qos_policy p;
	struct result r;
	struct sched s;

	ceiled_pair(&p, 300000000ull);
	assert_int_equal(sched_init_reloadable(&s, &p, 0, 4096, 0), 0);
	fixed_len = 1500;
	run_from = 0;
	run(&s, 3, 10 * NS_PER_MS, NS_PER_S, size_fixed, &r);
	assert_rel("1 Gbit/s: ceil 50 %", r.bytes[0] * 8.0, 0.5e9, 0.01);
	assert_rel("1 Gbit/s: ceil 300 Mbit/s", r.bytes[1] * 8.0, 0.3e9, 0.01);
	assert_int_equal(sched_port_rate(&s), 1000000000ull);

	run_from = NS_PER_S + 10 * NS_PER_MS;
	assert_int_equal(sched_set_port_rate(&s, 400000000ull, run_from), 0);
	assert_int_equal(sched_port_rate(&s), 400000000ull);
	run(&s, 3, 10 * NS_PER_MS, NS_PER_S, size_fixed, &r);
	assert_rel("400 Mbit/s: port", r.total * 8.0, 0.4e9, 0.01);
	assert_rel("400 Mbit/s: ceil 50 % of it", r.bytes[0] * 8.0, 0.2e9,
		   0.01);
	assert_rel("400 Mbit/s: the rest", r.bytes[1] * 8.0, 0.2e9, 0.01);

	assert_int_equal(sched_set_port_rate(&s, 0, run_from), -EINVAL);
	run_from = 3 * NS_PER_S;
	assert_int_equal(sched_reconfigure(&s, &p, 0, run_from), 0);
	assert_int_equal(sched_port_rate(&s), 1000000000ull);
	sched_fini(&s);

	/* unshaped: nothing to set */
	policy_init(&p, 0, 30000);
	add_class(&p, 0, 1500);
	assert_int_equal(sched_init_reloadable(&s, &p, 0, 64, 0), 0);
	assert_int_equal(sched_set_port_rate(&s, 1000, 0), -ENOENT);
	sched_fini(&s);
	run_from = 0;
}

/* One of 4 queues of a port: the port's rate and the class ceilings
 * (share and absolute) are a quarter each, kept across a reload. */
static void test_queue_share(void **state)
{
	struct qos_policy p;
	struct result r;
	struct sched s;

	ceiled_pair(&p, 100000000ull);
	assert_int_equal(sched_init_reloadable(&s, &p, 0, 4096, 0), 0);
	assert_int_equal(sched_set_queue_share(&s, 4, &p, 0, 0), 0);
	assert_int_equal(sched_port_rate(&s), 250000000ull);
	fixed_len = 1500;
	run_from = 0;
	run(&s, 3, 10 * NS_PER_MS, NS_PER_S, size_fixed, &r);
	assert_rel("a quarter: ceil 50 %", r.bytes[0] * 8.0, 0.125e9, 0.01);
	assert_rel("a quarter: ceil 100 Mbit/s", r.bytes[1] * 8.0, 0.025e9,
		   0.01);
	run_from = 2 * NS_PER_S;
	assert_int_equal(sched_reconfigure(&s, &p, 0, run_from), 0);
	assert_int_equal(sched_port_rate(&s), 250000000ull);
	assert_int_equal(sched_set_queue_share(&s, 0, &p, 0, run_from),
			 -EINVAL);
	sched_fini(&s);
	run_from = 0;
}

/* A class over its ceiling is skipped, not dropped; next_event says when
 * it may go again. */
static void test_ceiling_skips(void **state)
{
	struct frame_desc out[16];
	struct qos_policy p;
	struct sched s;
	struct qos_class *c;
	uint64_t t;

	policy_init(&p, 0, 0);
	c = add_class(&p, 0, 1500);
	c->ceil_bps = 1000000000ull; /* 1 Gbit/s: 8 ns per byte */
	c->ceil_burst = 0;
	assert_int_equal(sched_init(&s, &p, 0, 1000), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(enq(&s, 0, 1000, 1000), 0);
	assert_int_equal(sched_dequeue(&s, out, 16, 1000), 1);
	assert_int_equal(sched_dequeue(&s, out, 16, 1000), 0);
	assert_int_equal(sched_backlog_packets(&s), 4);
	t = sched_next_event_ns(&s, 1000);
	assert_int_equal(t, 1000 + 1024 * 8);
	assert_int_equal(sched_dequeue(&s, out, 16, t - 1), 0);
	assert_int_equal(sched_dequeue(&s, out, 16, t), 1);
	assert_int_equal(ctr_read(&sched_class_stats(&s, 0)->drops[1]) +
				 ctr_read(&sched_class_stats(&s, 0)->drops[2]),
			 0);
	sched_fini(&s);
}

/* next_event: now when sendable, the shaper's time when the port is in
 * debt, UINT64_MAX when empty. */
static void test_next_event(void **state)
{
	struct frame_desc out[16];
	struct qos_policy p;
	struct sched s;
	uint64_t now = 5000, t;

	policy_init(&p, 1000000000ull, 3000); /* 1 Gbit/s */
	add_class(&p, 0, 1500);
	add_class(&p, 1, 1500);
	assert_int_equal(sched_init(&s, &p, 1, now), 0);
	assert_true(sched_next_event_ns(&s, now) == UINT64_MAX);
	for (int i = 0; i < 10; i++)
		assert_int_equal(enq(&s, 1, 1476, now), 0);
	assert_int_equal(sched_next_event_ns(&s, now), now);
	/* burst 3000, frames charged 1500: 3000 -> 1500 -> 0 -> -1500 (a
	 * frame goes while tokens >= 0) */
	assert_int_equal(sched_dequeue(&s, out, 16, now), 3);
	t = sched_next_event_ns(&s, now);
	assert_int_equal(t, now + 1500 * 8); /* 1 bit per ns */
	assert_int_equal(sched_dequeue(&s, out, 16, t - 1), 0);
	assert_int_equal(sched_dequeue(&s, out, 16, t), 1);
	/* drain */
	for (now = t; sched_backlog_packets(&s); now += 100000)
		sched_dequeue(&s, out, 16, now);
	assert_true(sched_next_event_ns(&s, now) == UINT64_MAX);
	sched_fini(&s);
}

/* Tail drop at limit_packets and at limit_bytes, counted by reason. */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strict_order),
		cmocka_unit_test(test_strict_starves_below_ceiling),
		cmocka_unit_test(test_strict_with_ceiling),
		cmocka_unit_test(test_dwrr_shares),
		cmocka_unit_test(test_dwrr_deficit_reset),
		cmocka_unit_test(test_min_guarantee),
		cmocka_unit_test(test_set_port_rate),
		cmocka_unit_test(test_queue_share),
		cmocka_unit_test(test_ceiling_skips),
		cmocka_unit_test(test_next_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

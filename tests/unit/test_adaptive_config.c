// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_adaptive_config.c - adaptive egress's configuration and memory
 * (the simulation of test_adaptive.h): memory none while off; on, what the
 * queue plan needs, linear in the queues (measured as the gateway
 * allocates it); a floor below the shaper's lowest rate per queue is
 * refused; off costs nothing (no decision, rate = policy); a reload
 * turning it off puts the policy's rate back; a reload with a new floor
 * cuts the rate into the new bounds; the published view agrees with the
 * scheduler; on again after off, the monitor starts empty (no ACK credits
 * what left while it was off).
 */
#include "test_adaptive.h"

/* Reloads: off puts the policy's rate back; a new floor bounds the
 * rate; on again starts at ports[].rate. */
static void test_reload(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS * 0.4);
	struct qos_policy pol;
	struct adaptive_view v;

	(void)state;
	run(m, 1500000000ull);
	assert_true(sched_port_rate(&m->s) < 0.5 * LINE_BPS);

	/* a higher floor: the rate is cut into the new bounds at once */
	policy(&pol, true);
	pol.port[1].adaptive.floor_bps = LINE_BPS / 2;
	assert_int_equal(sched_reconfigure(&m->s, &pol, 1, m->now), 0);
	adaptive_configure(&m->a, &pol, &m->s, m->now);
	assert_true(sched_port_rate(&m->s) >= LINE_BPS / 2);
	m->pol = pol;
	m->rate_lo = 1e18;
	run(m, 500000000ull);
	assert_in_bounds(m);

	/* off: the policy's rate, no decisions */
	policy(&pol, false);
	assert_int_equal(sched_reconfigure(&m->s, &pol, 1, m->now), 0);
	adaptive_configure(&m->a, &pol, &m->s, m->now);
	assert_false(m->a.on);
	assert_int_equal(sched_port_rate(&m->s), LINE_BPS);
	adaptive_read(&m->a, &v);
	assert_int_equal(v.on, 0);
	assert_int_equal(v.rate_bps, LINE_BPS);

	/* on again: starts at ports[].rate with no samples */
	policy(&pol, true);
	assert_int_equal(sched_reconfigure(&m->s, &pol, 1, m->now), 0);
	adaptive_configure(&m->a, &pol, &m->s, m->now);
	assert_true(m->a.on);
	assert_int_equal(sched_port_rate(&m->s), LINE_BPS);
	sim_free(m);
}

/* Bytes of the heap in use now. */
/* The sanitizers' allocators are not glibc's: mallinfo2() does not see
 * what they hand out, so the heap is measured only without them (the
 * plain build of CI's test run). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HEAP_MEASURED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HEAP_MEASURED 0
#endif
#endif
#ifndef HEAP_MEASURED
#define HEAP_MEASURED 1
#endif

static uint64_t heap_bytes(void)
{
	return mallinfo2().uordblks;
}

/* Off, adaptive egress holds no memory: an egress task's monitor is
 * allocated when a policy first turns it on (adaptive_reserve). */
static void test_mem_off(void **state)
{
	struct qos_policy pol;
	struct port_adaptive *a = calloc(1, sizeof(*a));
	struct sched s;
	uint64_t before;

	(void)state;
	assert_non_null(a);
	policy(&pol, false);
	assert_int_equal(sched_init(&s, &pol, 1, 1), 0);
	before = heap_bytes();
	assert_int_equal(adaptive_init(a, 1, 1), 0);
	adaptive_configure(a, &pol, &s, 1);
	print_message("off: %llu bytes allocated\n",
		      (unsigned long long)(heap_bytes() - before));
	assert_true(heap_bytes() - before < 4096);
	/* a policy that turns it on before the monitor is there: off */
	policy(&pol, true);
	adaptive_configure(a, &pol, &s, 1);
	assert_false(a->on);
	assert_true(heap_bytes() - before < 4096);
	/* reserved (the gateway, before it publishes that policy): on */
	assert_int_equal(adaptive_reserve(a, 1, 1), 0);
	adaptive_configure(a, &pol, &s, 1);
	assert_true(a->on);
	adaptive_fini(a);
	sched_fini(&s);
	free(a);
}

/* On, a port's memory follows its queue plan, linearly: each queue's
 * monitor holds its part of the port's flows, each egress task's event
 * rings (one per RX task of the port) hold ADAPTIVE_TASK_EVENTS events
 * together. adaptive_plan_bytes() says what it allocates, measured here
 * as the gateway makes it (adaptive_reserve on each egress task of the
 * port, a ring of adaptive_plan_ring() slots per RX task and egress task
 * pair); at most queues x (a monitor of ADAPTIVE_MAX_FLOWS flows +
 * ADAPTIVE_TASK_EVENTS events): 1.3 MB per queue of the port. */
static void test_mem_plan(void **state)
{
	static const uint32_t qs[] = {1, 2, 3, 8, 64};
	const uint64_t per_queue =
		pathmon_mem_bytes_of(ADAPTIVE_MAX_FLOWS) +
		ADAPTIVE_TASK_EVENTS * sizeof(struct pathmon_ack);
	struct qos_policy pol;
	struct sched s;

	(void)state;
	for (uint32_t q = 1; q <= ADAPTIVE_MAX_IN; q++) {
		assert_true(adaptive_plan_bytes(q) <= q * per_queue);
		assert_true(adaptive_plan_ring(q) >= ADAPTIVE_EV_BATCH);
		assert_true(adaptive_plan_flows(q) * q >= ADAPTIVE_PORT_FLOWS);
	}
	policy(&pol, true);
	assert_int_equal(sched_init(&s, &pol, 1, 1), 0);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint32_t q = qs[i], slots = adaptive_plan_ring(q);
		struct port_adaptive *a = calloc(q, sizeof(*a));
		struct pathmon_ring *r = calloc((size_t)q * q, sizeof(*r));
		uint64_t before, used;

		assert_non_null(a);
		assert_non_null(r);
		before = heap_bytes();
		for (uint32_t j = 0; j < q; j++) {
			assert_int_equal(adaptive_init(&a[j], 1, 1), 0);
			assert_int_equal(adaptive_reserve(&a[j], q, 1), 0);
			adaptive_configure(&a[j], &pol, &s, 1);
			assert_true(a[j].on);
		}
		for (uint32_t j = 0; j < q * q; j++)
			assert_int_equal(pathmon_ring_init(&r[j], slots), 0);
		used = heap_bytes() - before;
		print_message("%2u queues: %u flows and %u events per queue, "
			      "%.2f MB allocated per port (plan %.2f MB)\n",
			      q, adaptive_plan_flows(q), q * slots, used / 1e6,
			      adaptive_plan_bytes(q) / 1e6);
		if (HEAP_MEASURED) {
			assert_true(used >= adaptive_plan_bytes(q));
			/* the allocator's own words, a few per allocation */
			assert_true(used <=
				    adaptive_plan_bytes(q) +
					    ((uint64_t)q * q + 2 * q) * 128);
			assert_true(used <= q * per_queue);
		}
		for (uint32_t j = 0; j < q * q; j++)
			pathmon_ring_fini(&r[j]);
		for (uint32_t j = 0; j < q; j++)
			adaptive_fini(&a[j]);
		free(r);
		free(a);
	}
	sched_fini(&s);
}

/* Off for half a second while the sender goes on (3 MB unseen), then on
 * again: the monitor starts empty, so no ACK credits what left while it
 * was off to one interval (the delivery rate stays below the line). */
static void test_off_on_fresh(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS / 2.0);
	struct qos_policy pol;
	struct adaptive_view v;

	(void)state;
	run(m, 1000000000ull);
	policy(&pol, false);
	reconfigure(m, &pol);
	run(m, 500000000ull);
	policy(&pol, true);
	reconfigure(m, &pol);
	assert_int_equal(pathmon_flows(&m->a.pm), 0);
	run(m, 50000000ull);
	adaptive_read(&m->a, &v);
	print_message("after off and on: delivery %.1f Mbit/s (last %.1f)\n",
		      v.delivery_bps / 1e6, v.delivery_last_bps / 1e6);
	/* (this plant's ACKs skip the segments its FIFO dropped while the
	 * port sent at the line: up to twice the FIFO's rate, no more) */
	assert_true(v.delivery_bps <= 1.5 * LINE_BPS);
	assert_true(m->a.er.cap_bps <= 1.5 * LINE_BPS);
	sim_free(m);
}

/* Settings the controller cannot run with are refused by name. */
static void test_check(void **state)
{
	struct qos_policy pol;
	const char *why;

	(void)state;
	policy(&pol, true);
	assert_int_equal(adaptive_check(&pol, 0, 1, &why), 0);
	pol.port[0].rate_bps = 0;
	assert_int_not_equal(adaptive_check(&pol, 0, 1, &why), 0);
	assert_non_null(strstr(why, "rate"));
	policy(&pol, true);
	pol.port[0].adaptive.floor_bps = 2 * LINE_BPS;
	assert_int_not_equal(adaptive_check(&pol, 0, 1, &why), 0);
	assert_non_null(strstr(why, "floor"));
	policy(&pol, false);
	pol.port[0].rate_bps = 0;
	assert_int_equal(adaptive_check(&pol, 0, 1, &why), 0);
	/* the floor per queue: at least the shaper's lowest rate */
	policy(&pol, true);
	pol.port[0].adaptive.floor_bps = 1;
	assert_int_not_equal(adaptive_check(&pol, 0, 2, &why), 0);
	assert_non_null(strstr(why, "floor per queue"));
	assert_non_null(strstr(why, "15 bit/s"));
	pol.port[0].adaptive.floor_bps = 2 * TB_MIN_RATE - 1;
	assert_int_equal(adaptive_check(&pol, 0, 1, &why), 0);
	assert_int_not_equal(adaptive_check(&pol, 0, 2, &why), 0);
	pol.port[0].adaptive.floor_bps = 2 * TB_MIN_RATE;
	assert_int_equal(adaptive_check(&pol, 0, 2, &why), 0);
	assert_int_not_equal(adaptive_check(&pol, 0, 3, &why), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_mem_off),
		cmocka_unit_test(test_mem_plan),
		cmocka_unit_test(test_off_on_fresh),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

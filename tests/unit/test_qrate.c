// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_qrate.c - the queue rebalancer (run/qrate.h) against a fake clock:
 * four schedulers of one port (each one queue, its rates even parts of
 * the port's at start, as the gateway sets them up) polled like their
 * egress tasks every STEP_NS: top up the busy queues' classes,
 * qrate_poll(), dequeue what the scheduler allows, qrate_publish().
 * Rates are measured in charged bytes (frame + overhead).
 *  - one busy queue of four reaches the port's rate less three floors
 *    within a bounded time (without the rebalancer: a quarter);
 *  - two busy queues split the port's rate evenly, and a queue that
 *    starts later ramps up to its half;
 *  - the queues' rates never add up to more than the port's, at every
 *    pass, and what leaves never exceeds it over any 10 ms;
 *  - a class's ceiling holds for the port as a whole;
 *  - a reload's even parts are replaced by the queue's parts again;
 *  - the pure split: max-min fair, floors, parts adding up to one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "qrate.h"

#define NQ 4
#define NS_PER_MS 1000000ull
#define STEP_NS 10000ull /* a pass every 10 us */
#define RATE 1000000000ull /* the port: 1 Gbit/s */
#define OVH 24
#define LEN 1500
#define SHARE(pct) ((uint32_t)((uint64_t)QOS_PROB_ONE * (pct) / 100))

struct port {
	struct qos_policy pol;
	struct qrate_port qp;
	struct qrate_queue qq[NQ];
	struct sched s[NQ];
	uint64_t now;
	uint64_t addr;
	bool rebalance; /* false: the queues keep their even parts */
	/* charged bytes per queue and class, over the measuring window */
	uint64_t bytes[NQ][QOS_MAX_CLASSES];
	uint64_t max_sum_bps; /* highest sum of the queues' rates seen */
};

/* c0: ceiling 30 % of the port; c1: no ceiling, same level. */
static struct port *port_new(bool rebalance)
{
	struct port *p = aligned_alloc(64, sizeof(*p));
	struct qos_class *c;

	assert_non_null(p);
	memset(p, 0, sizeof(*p));
	p->pol.port[0].rate_bps = RATE;
	p->pol.port[0].burst = 16000;
	p->pol.port[0].overhead = OVH;
	p->pol.port[1] = p->pol.port[0];
	for (int i = 0; i < 2; i++) {
		c = &p->pol.classes[p->pol.n_classes++];
		snprintf(c->name, sizeof(c->name), "c%d", i);
		c->quantum = LEN;
		c->limit_packets = 1024;
		c->limit_bytes = 16u << 20;
	}
	p->pol.classes[0].ceil_share = SHARE(30);
	p->pol.classes[0].ceil_burst = 16000;
	p->pol.default_class = 1;
	p->rebalance = rebalance;
	qrate_init(&p->qp, NQ);
	for (uint32_t q = 0; q < NQ; q++) {
		assert_int_equal(
			sched_init_reloadable(&p->s[q], &p->pol, 0, 4096, 0),
			0);
		assert_int_equal(
			sched_set_queue_share(&p->s[q], NQ, &p->pol, 0, 0), 0);
		qrate_attach(&p->qq[q], rebalance ? &p->qp : NULL, q);
	}
	return p;
}

static void port_free(struct port *p)
{
	for (uint32_t q = 0; q < NQ; q++) {
		struct frame_desc out[64];

		while (sched_dequeue(&p->s[q], out, 64, UINT64_MAX / 2))
			;
		sched_fini(&p->s[q]);
	}
	free(p);
}

/* Run for dur_ns: busy[q] is the classes kept backlogged on queue q;
 * count what leaves from `from` on. */
static void run(struct port *p, const uint32_t *busy, uint64_t dur_ns,
		uint64_t from)
{
	uint64_t end = p->now + dur_ns;

	for (; p->now < end; p->now += STEP_NS) {
		uint64_t sum = 0;

		for (uint32_t q = 0; q < NQ; q++) {
			struct sched *s = &p->s[q];
			struct frame_desc out[64];
			uint32_t n;

			for (uint32_t c = 0; c < QOS_MAX_CLASSES; c++) {
				if (!(busy[q] >> c & 1))
					continue;
				while (sched_depth_packets(
					       sched_class_stats(s, c)) < 32) {
					struct frame_desc d = {
						.addr = p->addr++,
						.len = LEN,
						.meta = frame_meta_pack(
							c, ECN_NOT_ECT,
							ECN_L3_NONE, 0),
					};

					assert_int_equal(sched_enqueue(s, &d,
								       NULL,
								       p->now),
							 0);
				}
			}
			qrate_poll(&p->qq[q], s, true, p->now);
			n = sched_dequeue(s, out, 64, p->now);
			if (p->now >= from)
				for (uint32_t i = 0; i < n; i++)
					p->bytes[q]
						[out[i].meta >>
							 FRAME_META_CLASS_SHIFT &
						 0xf] += LEN + OVH;
			qrate_publish(&p->qq[q], s, p->now);
			sum += sched_port_rate(s);
		}
		if (sum > p->max_sum_bps)
			p->max_sum_bps = sum;
	}
}

static double rate_of(const struct port *p, uint32_t q, uint64_t dur_ns)
{
	uint64_t b = 0;

	for (uint32_t c = 0; c < QOS_MAX_CLASSES; c++)
		b += p->bytes[q][c];
	return (double)b * 8e9 / (double)dur_ns;
}

/* How long until queue q alone sends at >= frac of the port's rate over
 * 1 ms; UINT64_MAX if not within limit_ns. */
static uint64_t time_to(struct port *p, const uint32_t *busy, uint32_t q,
			double frac, uint64_t limit_ns)
{
	uint64_t t0 = p->now;

	while (p->now - t0 < limit_ns) {
		memset(p->bytes, 0, sizeof(p->bytes));
		run(p, busy, NS_PER_MS, p->now);
		if (rate_of(p, q, NS_PER_MS) >= frac * RATE)
			return p->now - t0;
	}
	return UINT64_MAX;
}

/* One flow (one busy queue of four) gets the port's rate less the three
 * idle queues' floors, within 5 ms; without the rebalancer a quarter. */
static void test_one_busy_queue(void **state)
{
	const uint32_t busy[NQ] = {2, 0, 0, 0};
	double floors = 3.0 / NQ / QRATE_FLOOR_DIV, r, old;
	struct port *p = port_new(true), *o = port_new(false);
	uint64_t t, shown;

	(void)state;
	t = time_to(p, busy, 0, 0.9, 50 * NS_PER_MS);
	if (t == UINT64_MAX)
		print_message("one busy queue: not 90 %% of the port in "
			      "50 ms\n");
	else
		print_message("one busy queue: 90 %% of the port after "
			      "%.1f ms\n",
			      t / 1e6);
	assert_true(t <= 5 * NS_PER_MS);
	memset(p->bytes, 0, sizeof(p->bytes));
	run(p, busy, 100 * NS_PER_MS, p->now);
	r = rate_of(p, 0, 100 * NS_PER_MS);
	run(o, busy, 110 * NS_PER_MS, 10 * NS_PER_MS);
	old = rate_of(o, 0, 100 * NS_PER_MS);
	print_message("one busy queue of 4: %.1f Mbit/s of %.0f (%.3f; "
		      "even parts: %.1f Mbit/s, %.3f)\n",
		      r / 1e6, RATE / 1e6, r / RATE, old / 1e6, old / RATE);
	assert_true(r >= (1 - floors) * RATE * 0.99);
	assert_true(r <= RATE * 1.001);
	assert_true(old <= RATE / NQ * 1.01);
	assert_true(p->max_sum_bps <= RATE);
	/* what the readers are shown: the busy queue's part, the floors */
	shown = 0;
	for (uint32_t q = 0; q < NQ; q++)
		shown += qrate_shown_bps(&p->qq[q]);
	assert_true(shown <= RATE);
	assert_true(qrate_shown_bps(&p->qq[0]) >= (1 - floors) * RATE - 4);
	assert_int_equal(qrate_shown_bps(&p->qq[0]), sched_port_rate(&p->s[0]));
	port_free(p);
	port_free(o);
}

/* Two busy queues: half each; a third starting later ramps up to a
 * third within 5 ms. */
static void test_two_busy_queues(void **state)
{
	uint32_t busy[NQ] = {2, 0, 2, 0};
	struct port *p = port_new(true);
	double r0, r2, r1;
	uint64_t t;

	(void)state;
	run(p, busy, 20 * NS_PER_MS, UINT64_MAX);
	run(p, busy, 100 * NS_PER_MS, p->now);
	r0 = rate_of(p, 0, 100 * NS_PER_MS);
	r2 = rate_of(p, 2, 100 * NS_PER_MS);
	print_message("two busy queues: %.1f + %.1f Mbit/s\n", r0 / 1e6,
		      r2 / 1e6);
	assert_true(r0 >= 0.47 * RATE && r2 >= 0.47 * RATE);
	assert_true(r0 / r2 > 0.97 && r0 / r2 < 1.03);
	assert_true(r0 + r2 <= RATE * 1.001);
	busy[1] = 2;
	t = time_to(p, busy, 1, 0.3, 50 * NS_PER_MS);
	print_message("a third queue starting: 30 %% after %.1f ms\n", t / 1e6);
	assert_true(t <= 5 * NS_PER_MS);
	memset(p->bytes, 0, sizeof(p->bytes));
	run(p, busy, 100 * NS_PER_MS, p->now);
	r0 = rate_of(p, 0, 100 * NS_PER_MS);
	r1 = rate_of(p, 1, 100 * NS_PER_MS);
	r2 = rate_of(p, 2, 100 * NS_PER_MS);
	print_message("three busy queues: %.1f + %.1f + %.1f Mbit/s\n",
		      r0 / 1e6, r1 / 1e6, r2 / 1e6);
	assert_true(r1 >= 0.31 * RATE && r1 <= 0.34 * RATE);
	assert_true(r0 + r1 + r2 <= RATE * 1.001);
	assert_true(p->max_sum_bps <= RATE);
	port_free(p);
}

/* A reload puts a queue's scheduler back at its even part; its parts
 * come back at its next pass (egress_task_reconfigure). */
static void test_reload_reapplies(void **state)
{
	const uint32_t busy[NQ] = {2, 0, 0, 0};
	struct port *p = port_new(true);
	uint64_t before;

	(void)state;
	run(p, busy, 10 * NS_PER_MS, UINT64_MAX);
	before = sched_port_rate(&p->s[0]);
	assert_true(before > RATE / 2);
	assert_int_equal(sched_reconfigure(&p->s[0], &p->pol, 0, p->now), 0);
	assert_int_equal(sched_port_rate(&p->s[0]), RATE / NQ);
	qrate_reapply(&p->qq[0]);
	run(p, busy, STEP_NS, UINT64_MAX);
	assert_int_equal(sched_port_rate(&p->s[0]), before);
	port_free(p);
}

/* Over every 10 ms window, while the load moves between the queues,
 * what leaves stays within the port's rate (+ the bursts). */
static void test_sum_bounded(void **state)
{
	static const uint32_t loads[][NQ] = {
		{2, 0, 0, 0}, {2, 2, 2, 2}, {0, 0, 0, 2},
		{2, 0, 2, 0}, {0, 2, 0, 0}, {3, 3, 0, 0},
	};
	struct port *p = port_new(true);
	double worst = 0;

	(void)state;
	for (int k = 0; k < 60; k++) {
		double sum = 0;

		memset(p->bytes, 0, sizeof(p->bytes));
		run(p, loads[k % 6], 10 * NS_PER_MS, p->now);
		for (uint32_t q = 0; q < NQ; q++)
			sum += rate_of(p, q, 10 * NS_PER_MS);
		if (sum > worst)
			worst = sum;
		/* every queue's burst may leave at once, once */
		assert_true(sum <=
			    RATE + NQ * 2 * 16000 * 8e9 / (10 * NS_PER_MS));
	}
	print_message("load moving: at most %.1f Mbit/s over 10 ms; rates "
		      "summed at most %.1f Mbit/s\n",
		      worst / 1e6, p->max_sum_bps / 1e6);
	assert_true(p->max_sum_bps <= RATE);
	port_free(p);
}

/* Class c0 (ceiling 30 % of the port) busy on two queues, c1 on a
 * third: c0 gets its ceiling for the port (not 2 x 30 % / 4), c1 the
 * rest. */
static void test_class_ceiling_port_wide(void **state)
{
	const uint32_t busy[NQ] = {1, 1, 2, 0};
	struct port *p = port_new(true), *o = port_new(false);
	double c0, c1, old;

	(void)state;
	run(p, busy, 20 * NS_PER_MS, UINT64_MAX);
	run(p, busy, 100 * NS_PER_MS, p->now);
	c0 = (p->bytes[0][0] + p->bytes[1][0]) * 8e9 / (100 * NS_PER_MS);
	c1 = p->bytes[2][1] * 8e9 / (100 * NS_PER_MS);
	run(o, busy, 120 * NS_PER_MS, 20 * NS_PER_MS);
	old = (o->bytes[0][0] + o->bytes[1][0]) * 8e9 / (100 * NS_PER_MS);
	print_message("ceiling 30 %%: class on two queues %.1f Mbit/s "
		      "(even parts: %.1f), other class %.1f Mbit/s\n",
		      c0 / 1e6, old / 1e6, c1 / 1e6);
	assert_true(c0 <= 0.3 * RATE * 1.01);
	assert_true(c0 >= 0.3 * RATE * 0.95);
	assert_true(c1 >= 0.65 * RATE);
	assert_true(old <= 0.3 * RATE / 2 * 1.01);
	port_free(p);
	port_free(o);
}

static uint64_t sum_parts(const uint64_t *part, uint32_t n)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < n; i++)
		s += part[i];
	return s;
}

/* The pure split. */
static void test_split(void **state)
{
	const double one = (double)QRATE_ONE;
	uint64_t part[NQ];
	double want[NQ];

	(void)state;
	/* all want everything: even */
	for (int i = 0; i < NQ; i++)
		want[i] = -1;
	qrate_split(NQ, want, 1e9, part);
	assert_int_equal(sum_parts(part, NQ), QRATE_ONE);
	for (int i = 0; i < NQ; i++)
		assert_true(part[i] >= QRATE_ONE / NQ - 1 &&
			    part[i] <= QRATE_ONE / NQ + 3);
	/* one busy, three idle: floors for the idle */
	want[1] = want[2] = want[3] = 0;
	qrate_split(NQ, want, 1e9, part);
	assert_int_equal(sum_parts(part, NQ), QRATE_ONE);
	assert_true(part[1] >= QRATE_ONE / NQ / QRATE_FLOOR_DIV - 1 &&
		    part[1] <= QRATE_ONE / NQ / QRATE_FLOOR_DIV + 1);
	/* max-min: a small want is met, the busy share the rest */
	want[0] = -1;
	want[1] = 0.1e9;
	want[2] = -1;
	want[3] = 0;
	qrate_split(NQ, want, 1e9, part);
	assert_int_equal(sum_parts(part, NQ), QRATE_ONE);
	assert_true(part[1] / one > 0.099 && part[1] / one < 0.101);
	assert_true(part[0] == part[2] || part[0] + 1 == part[2] ||
		    part[2] + 1 == part[0] || part[0] > part[2]);
	/* nobody wants it all: what is left goes evenly */
	want[0] = 0.2e9;
	want[1] = 0.1e9;
	want[2] = 0.1e9;
	want[3] = 0.1e9;
	qrate_split(NQ, want, 1e9, part);
	assert_int_equal(sum_parts(part, NQ), QRATE_ONE);
	assert_true(part[0] / one > 0.324 && part[0] / one < 0.326);
	/* an unshaped port (total 0): even, adding up to one */
	qrate_split(3, want, 0, part);
	assert_int_equal(sum_parts(part, 3), QRATE_ONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_one_busy_queue),
		cmocka_unit_test(test_two_busy_queues),
		cmocka_unit_test(test_sum_bounded),
		cmocka_unit_test(test_class_ceiling_port_wide),
		cmocka_unit_test(test_reload_reapplies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_sched.c - the egress scheduler against a fake clock (a uint64_t the
 * test advances): strict priority, a strict class capped by a ceiling
 * (work-conserving), DWRR shares with mixed frame sizes, the guaranteed
 * minimum, queue limits, RED/ECN through the enqueue path, the sojourn
 * histogram, the next-event time, the census walk and the init checks;
 * and the structure of the dequeue: runs of a class's frames are the
 * frames one selection per frame would send (same order, charges and
 * counters), buckets at exactly 0 tokens conform, the histogram of a run,
 * an emptied ring starting over, the enqueue fast path ending where RED
 * starts.
 *
 * The rate tests poll like the egress worker: every STEP_NS the queues are
 * topped up (kept backlogged) and the scheduler is drained of what it
 * allows at that instant. Shares are measured in charged bytes (frame
 * length + port overhead) over 1 s of virtual time after a warm-up.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "tc_sched.h"

#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull
#define STEP_NS 1000ull
#define OVH 24
#define SHARE(pct) ((uint32_t)((uint64_t)QOS_PROB_ONE * (pct) / 100))

static void policy_init(struct qos_policy *p, uint64_t rate_bps, uint32_t burst)
{
	memset(p, 0, sizeof(*p));
	p->port[0].rate_bps = rate_bps;
	p->port[0].burst = burst;
	p->port[0].overhead = OVH;
	p->port[1] = p->port[0];
}

static struct qos_class *add_class(struct qos_policy *p, uint8_t level,
				   uint32_t quantum)
{
	struct qos_class *c = &p->classes[p->n_classes++];

	snprintf(c->name, sizeof(c->name), "c%u", p->n_classes - 1);
	c->level = level;
	c->quantum = quantum;
	c->limit_packets = 1024;
	c->limit_bytes = 16u << 20;
	return c;
}

static uint64_t lcg_state;

static uint32_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(lcg_state >> 33);
}

/* frame sizes: fixed, or uniform 64..9000 (deterministic) */
static uint32_t fixed_len = 1500;

static uint32_t size_fixed(unsigned int cls)
{
	return fixed_len;
}

static uint32_t size_mixed(unsigned int cls)
{
	return 64 + lcg() % (9000 - 64 + 1);
}

static uint64_t next_addr;

static int enq(struct sched *s, unsigned int cls, uint32_t len, uint64_t now)
{
	struct frame_desc d = {
		.addr = next_addr++,
		.len = len,
		.meta = frame_meta_pack(cls, ECN_NOT_ECT, ECN_L3_NONE, 0),
	};

	return sched_enqueue(s, &d, NULL, now);
}

static uint64_t run_from; /* run_limited() starts at this time */

struct result {
	uint64_t bytes[QOS_MAX_CLASSES]; /* charged, in the window */
	uint64_t total;
};

/* Poll every STEP_NS from 0 to warm + dur; keep the classes of `mask`
 * backlogged (32 frames at each poll); take what the scheduler allows, at
 * most per_step frames per poll (an unshaped port allows everything: the
 * limit keeps the queues from running dry); count what leaves in
 * [warm, warm + dur). */
static void run_limited(struct sched *s, uint32_t mask, uint64_t warm,
			uint64_t dur, uint32_t (*size)(unsigned int),
			uint32_t per_step, struct result *res)
{
	struct frame_desc out[64];
	uint32_t n, left;

	memset(res, 0, sizeof(*res));
	for (uint64_t now = run_from; now < run_from + warm + dur;
	     now += STEP_NS) {
		for (unsigned int c = 0; c < QOS_MAX_CLASSES; c++) {
			const struct sched_class_stats *st;

			if (!(mask & (1u << c)))
				continue;
			st = sched_class_stats(s, c);
			while (sched_depth_packets(st) < 32)
				assert_int_equal(enq(s, c, size(c), now), 0);
		}
		left = per_step;
		do {
			n = sched_dequeue(s, out, MIN(64, left), now);
			left -= n;
			if (now < run_from + warm)
				continue;
			for (uint32_t i = 0; i < n; i++) {
				uint64_t b = out[i].len + OVH;

				res->bytes[frame_meta_class(out[i].meta)] += b;
				res->total += b;
			}
		} while (n == 64 && left);
	}
}

static void run(struct sched *s, uint32_t mask, uint64_t warm, uint64_t dur,
		uint32_t (*size)(unsigned int), struct result *res)
{
	run_limited(s, mask, warm, dur, size, UINT32_MAX, res);
}

static void assert_rel(const char *what, double got, double want, double tol)
{
	double err = (got - want) / want;

	printf("  %-28s %.6f (want %.6f, %+.4f%%)\n", what, got, want,
	       err * 100);
	assert_true(fabs(err) <= tol);
}

static void test_meta_pack(void **state)
{
	uint32_t m = frame_meta_pack(13, ECN_ECT0, ECN_L3_IPV6, 200);

	assert_int_equal(m, 13 | 2 << 4 | 2 << 6 | 200 << 8);
	assert_int_equal(frame_meta_class(m), 13);
	assert_int_equal(frame_meta_ecn(m), ECN_ECT0);
	assert_int_equal(frame_meta_l3(m), ECN_L3_IPV6);
	assert_int_equal(frame_meta_l3off(m), 200);
	m = frame_meta_set_ecn(m, ECN_CE);
	assert_int_equal(frame_meta_ecn(m), ECN_CE);
	assert_int_equal(frame_meta_l3off(m), 200);
	assert_int_equal(frame_meta_class(m), 13);
}

/* Unshaped: the higher level is served first, whatever the class ids. */
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
static void test_queue_limits(void **state)
{
	struct frame_desc out[16];
	const struct sched_class_stats *st;
	struct qos_policy p;
	struct qos_class *c;
	struct sched s;

	policy_init(&p, 0, 0);
	c = add_class(&p, 0, 1500);
	c->limit_packets = 4;
	c = add_class(&p, 0, 1500);
	c->limit_bytes = 3000;
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);

	for (int i = 0; i < 4; i++)
		assert_int_equal(enq(&s, 0, 100, 0), SCHED_QUEUED);
	assert_int_equal(enq(&s, 0, 100, 0), SCHED_DROP_QUEUE_PACKETS);
	assert_int_equal(enq(&s, 0, 1, 0), SCHED_DROP_QUEUE_PACKETS);
	st = sched_class_stats(&s, 0);
	assert_int_equal(ctr_read(&st->drops[SCHED_DROP_QUEUE_PACKETS]), 2);
	assert_int_equal(ctr_read(&st->drops[SCHED_DROP_QUEUE_BYTES]), 0);
	assert_int_equal(ctr_read(&st->enq_packets), 4);
	assert_int_equal(ctr_read(&st->enq_bytes), 400);
	assert_int_equal(sched_depth_packets(st), 4);
	assert_int_equal(sched_depth_bytes(st), 400);

	for (int i = 0; i < 3; i++) /* 3000 is not above 3000 */
		assert_int_equal(enq(&s, 1, 1000, 0), SCHED_QUEUED);
	assert_int_equal(enq(&s, 1, 1000, 0), SCHED_DROP_QUEUE_BYTES);
	assert_int_equal(enq(&s, 1, 1, 0), SCHED_DROP_QUEUE_BYTES);
	st = sched_class_stats(&s, 1);
	assert_int_equal(ctr_read(&st->drops[SCHED_DROP_QUEUE_BYTES]), 2);
	assert_int_equal(ctr_read(&st->drops[SCHED_DROP_QUEUE_PACKETS]), 0);
	assert_int_equal(sched_depth_bytes(st), 3000);

	/* room again after a dequeue; the gauges follow */
	assert_int_equal(sched_dequeue(&s, out, 16, 0), 7);
	assert_int_equal(sched_depth_bytes(st), 0);
	assert_int_equal(sched_depth_packets(st), 0);
	assert_int_equal(ctr_read(&st->sent_packets), 3);
	assert_int_equal(ctr_read(&st->sent_bytes), 3000);
	assert_int_equal(enq(&s, 1, 3000, 0), SCHED_QUEUED);

	/* a class id the policy lacks, a frame too long */
	assert_int_equal(enq(&s, 2, 100, 0), SCHED_DROP_INVALID);
	assert_int_equal(enq(&s, 15, 100, 0), SCHED_DROP_INVALID);
	assert_int_equal(ctr_read(&s.bad_class), 2);
	assert_int_equal(enq(&s, 0, SCHED_MAX_FRAME_LEN + 1, 0),
			 SCHED_DROP_INVALID);
	assert_int_equal(
		ctr_read(&sched_class_stats(&s, 0)->drops[SCHED_DROP_INVALID]),
		1);
	assert_null(sched_class_stats(&s, 2));
	sched_fini(&s);
}

/* --- ECN through the enqueue path --- */

static uint16_t ipv4_csum(const uint8_t *h)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		if (i != 10)
			sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Ethernet + IPv4 (no options) of `len` bytes with the given ECN. */
static void make_frame(uint8_t *f, uint32_t len, unsigned int ecn)
{
	uint16_t c;

	memset(f, 0, len);
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = (uint8_t)(0xb8 | ecn); /* DSCP 46 */
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = 17;
	f[26] = 10;
	f[29] = 1;
	f[30] = 10;
	f[33] = 2;
	c = ipv4_csum(f + 14);
	f[24] = (uint8_t)(c >> 8);
	f[25] = (uint8_t)c;
}

static int enq_ip(struct sched *s, unsigned int cls, uint8_t *f, uint32_t len,
		  unsigned int ecn, uint64_t now)
{
	struct frame_desc d = {
		.addr = next_addr++,
		.len = len,
		.meta = frame_meta_pack(cls, ecn, ECN_L3_IPV4, 14),
	};

	return sched_enqueue(s, &d, f, now);
}

static void last_meta(const struct frame_desc *d, void *arg)
{
	*(uint32_t *)arg = d->meta;
}

static void test_ecn_enqueue(void **state)
{
	uint8_t f[1000], pristine[1000];
	const struct sched_class_stats *st;
	struct frame_desc out[64];
	struct qos_policy p;
	struct qos_class *c;
	struct sched s;
	uint32_t meta;

	for (int nonect = QOS_NONECT_DROP; nonect <= QOS_NONECT_PASS;
	     nonect++) {
		policy_init(&p, 0, 0);
		c = add_class(&p, 0, 1500);
		c->ecn.enabled = true;
		c->ecn.kmin = 10000;
		c->ecn.kmax = 20000;
		c->ecn.pmax = QOS_PROB_ONE / 2;
		c->ecn.nonect = (enum qos_nonect)nonect;
		assert_int_equal(sched_init(&s, &p, 0, 0), 0);
		st = sched_class_stats(&s, 0);

		/* below kmin: ECT not marked, Not-ECT queued */
		make_frame(f, 1000, ECN_ECT0);
		memcpy(pristine, f, 1000);
		for (int i = 0; i < 10; i++)
			assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_ECT0, 0),
					 0);
		assert_memory_equal(f, pristine, 1000);
		assert_int_equal(ctr_read(&st->ecn_marks), 0);
		/* fill to 21000 with CE frames: CE stays CE, never dropped */
		make_frame(f, 1000, ECN_CE);
		for (int i = 0; i < 11; i++)
			assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_CE, 0), 0);
		assert_int_equal(ctr_read(&st->ecn_marks), 0);

		/* above kmax: ECT(0) and ECT(1) marked, checksum valid */
		for (unsigned int e = ECN_ECT1; e <= ECN_ECT0; e++) {
			make_frame(f, 1000, e);
			memcpy(pristine, f, 1000);
			assert_int_equal(enq_ip(&s, 0, f, 1000, e, 0), 0);
			assert_int_equal(f[15], pristine[15] | 3);
			assert_int_equal(f[24] << 8 | f[25], ipv4_csum(f + 14));
			sched_foreach(&s, last_meta, &meta);
			assert_int_equal(frame_meta_ecn(meta), ECN_CE);
		}
		assert_int_equal(ctr_read(&st->ecn_marks), 2);

		/* Not-ECT: dropped or queued unmarked */
		make_frame(f, 1000, ECN_NOT_ECT);
		memcpy(pristine, f, 1000);
		assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_NOT_ECT, 0),
				 nonect == QOS_NONECT_DROP
					 ? SCHED_DROP_ECN_NONECT
					 : SCHED_QUEUED);
		assert_memory_equal(f, pristine, 1000);
		/* ECT by the meta but truncated: handled as Not-ECT */
		make_frame(f, 1000, ECN_ECT0);
		memcpy(pristine, f, 1000);
		{
			struct frame_desc d = {
				.addr = next_addr++,
				.len = 30,
				.meta = frame_meta_pack(0, ECN_ECT0,
							ECN_L3_IPV4, 14),
			};
			assert_int_equal(sched_enqueue(&s, &d, f, 0),
					 nonect == QOS_NONECT_DROP
						 ? SCHED_DROP_ECN_NONECT
						 : SCHED_QUEUED);
		}
		assert_memory_equal(f, pristine, 1000);
		assert_int_equal(ctr_read(&st->drops[SCHED_DROP_ECN_NONECT]),
				 nonect == QOS_NONECT_DROP ? 2 : 0);
		assert_int_equal(ctr_read(&st->ecn_marks), 2);
		while (sched_dequeue(&s, out, 64, 0))
			;
		sched_fini(&s);
	}
}

/* RED through the scheduler, at a queue of 15000 bytes held constant
 * (kmin 10000, kmax 20000, pmax 0.5): the depth RED sees excludes the
 * arriving frame, so p = 0.25 (0.30 if it were included). */
static void test_ecn_red_depth(void **state)
{
	uint8_t f[1000], pristine[1000];
	const struct sched_class_stats *st;
	struct frame_desc out[4];
	struct qos_policy p;
	struct qos_class *c;
	struct sched s;
	const uint32_t n = 200000;
	double got, sigma = sqrt(0.25 * 0.75 / n);

	policy_init(&p, 0, 0);
	c = add_class(&p, 0, 1500);
	c->ecn.enabled = true;
	c->ecn.kmin = 10000;
	c->ecn.kmax = 20000;
	c->ecn.pmax = QOS_PROB_ONE / 2;
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	st = sched_class_stats(&s, 0);
	make_frame(f, 1000, ECN_CE);
	for (int i = 0; i < 15; i++)
		assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_CE, 0), 0);
	make_frame(pristine, 1000, ECN_ECT0);
	for (uint32_t i = 0; i < n; i++) {
		memcpy(f, pristine, 40);
		assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_ECT0, 0), 0);
		assert_int_equal(sched_dequeue(&s, out, 1, 0), 1);
	}
	got = (double)ctr_read(&st->ecn_marks) / n;
	printf("  marked %.5f at 15000 B (p 0.25, 3 sigma %.5f)\n", got,
	       3 * sigma);
	assert_true(fabs(got - 0.25) <= 3 * sigma);
	sched_fini(&s);
}

/* --- sojourn histogram --- */

static unsigned int ref_bucket(uint64_t ns)
{
	unsigned int k = 1;

	if (ns < 1000)
		return 0;
	while (k < 31 && ns >= 1000ull << k)
		k++;
	return k;
}

static void test_sojourn_bucket_fn(void **state)
{
	static const uint64_t edges[] = {0,
					 1,
					 999,
					 1000,
					 1023,
					 1024,
					 1999,
					 2000,
					 2047,
					 2048,
					 3999,
					 4000,
					 1000ull << 29,
					 (1000ull << 30) - 1,
					 1000ull << 30,
					 UINT64_MAX};

	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		assert_int_equal(sched_sojourn_bucket(edges[i]),
				 ref_bucket(edges[i]));
	for (int k = 1; k < 31; k++) {
		assert_int_equal(sched_sojourn_bucket((1000ull << k) - 1), k);
		assert_int_equal(sched_sojourn_bucket(1000ull << k), k + 1);
	}
	lcg_state = 3;
	for (int i = 0; i < 1000000; i++) {
		uint64_t v = ((uint64_t)lcg() << 32 | lcg()) >> (lcg() % 64);

		assert_int_equal(sched_sojourn_bucket(v), ref_bucket(v));
	}
}

/* Frames held N us land in bucket k with 2^(k-1) <= N < 2^k (0: < 1 us). */
static void test_sojourn_histogram(void **state)
{
	static const struct {
		uint64_t held_ns;
		unsigned int bucket;
	} cases[] = {
		{0, 0},
		{500, 0},
		{1 * NS_PER_US, 1},
		{1500, 1},
		{2 * NS_PER_US, 2},
		{3 * NS_PER_US, 2},
		{100 * NS_PER_US, 7}, /* [64, 128) us */
		{1000 * NS_PER_US, 10}, /* [512, 1024) us */
		{1024 * NS_PER_US, 11},
		{5 * NS_PER_S, 23}, /* 5e6 us: [2^22, 2^23) */
		{3600 * NS_PER_S, 31},
	};
	struct frame_desc out[1];
	const struct sched_class_stats *st;
	uint64_t want[SCHED_HIST_BUCKETS] = {0}, t = 777;
	struct qos_policy p;
	struct sched s;

	policy_init(&p, 0, 0);
	add_class(&p, 0, 1500);
	assert_int_equal(sched_init(&s, &p, 0, t), 0);
	st = sched_class_stats(&s, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(enq(&s, 0, 100, t), 0);
		t += cases[i].held_ns;
		assert_int_equal(sched_dequeue(&s, out, 1, t), 1);
		want[cases[i].bucket]++;
		for (int k = 0; k < SCHED_HIST_BUCKETS; k++)
			assert_int_equal(ctr_read(&st->sojourn[k]), want[k]);
	}
	sched_fini(&s);
}

/* sched_foreach() visits every queued frame once. */
static void count_frame(const struct frame_desc *d, void *arg)
{
	uint64_t *sum = arg;

	sum[0]++;
	sum[1] += d->addr;
}

static void test_foreach(void **state)
{
	struct frame_desc out[8];
	struct qos_policy p;
	struct sched s;
	uint64_t sum[2] = {0, 0}, want = 0;

	policy_init(&p, 0, 0);
	add_class(&p, 0, 1500)->limit_packets = 5; /* ring of 8, wraps */
	add_class(&p, 1, 1500);
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	next_addr = 1;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 5; i++)
			enq(&s, 0, 100, 0);
		assert_int_equal(sched_dequeue(&s, out, 3, 0), 3);
	}
	for (int i = 0; i < 4; i++)
		enq(&s, 1, 100, 0);
	/* class 0 (limit 5) dropped 9, 10, 14, 15 and sent 1..8 and 11:
	 * it holds 12, 13 (its ring indices have wrapped); class 1 16..19 */
	assert_int_equal(sched_backlog_packets(&s), 6);
	sched_foreach(&s, count_frame, sum);
	assert_int_equal(sum[0], 6);
	assert_int_equal(sum[1], 12 + 13 + 16 + 17 + 18 + 19);
	while (sched_dequeue(&s, out, 1, 0))
		want += out[0].addr;
	assert_int_equal(sum[1], want);
	sched_fini(&s);
}

static void test_init_checks(void **state)
{
	struct qos_policy p;
	struct qos_class *c;
	struct sched s;

	policy_init(&p, 0, 0);
	assert_int_equal(sched_init(&s, &p, 0, 0), -EINVAL); /* no class */
	c = add_class(&p, 0, 1500);
	assert_int_equal(sched_init(&s, &p, 2, 0), -EINVAL);
	assert_int_equal(sched_init(&s, &p, -1, 0), -EINVAL);
	c->quantum = 0;
	assert_int_equal(sched_init(&s, &p, 0, 0), -EINVAL);
	c->quantum = 1500;
	c->limit_packets = 0;
	assert_int_equal(sched_init(&s, &p, 0, 0), -EINVAL);
	c->limit_packets = SCHED_MAX_QUEUE_PACKETS + 1;
	assert_int_equal(sched_init(&s, &p, 0, 0), -EINVAL);
	c->limit_packets = 10;
	c->limit_bytes = 0;
	assert_int_equal(sched_init(&s, &p, 0, 0), -EINVAL);
	c->limit_bytes = 10000;
	c->ceil_share = SHARE(50); /* of an unshaped port: no ceiling */
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	assert_int_equal(s.ceil_mask, 0);
	sched_fini(&s);
	c->ceil_share = QOS_PROB_ONE + 1;
	assert_int_equal(sched_init(&s, &p, 0, 0), -EINVAL);
	c->ceil_share = 0;
	c->min_bps = 1000000;
	c->min_burst = 1500;
	c->min_share = SHARE(10); /* ignored: min_bps wins */
	c->ecn.enabled = true;
	c->ecn.kmin = 2;
	c->ecn.kmax = 1;
	assert_int_equal(sched_init(&s, &p, 0, 0), -EINVAL);
	c->ecn.kmax = 3;
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	sched_fini(&s);
	p.port[1].rate_bps = 1000000000;
	p.port[1].burst = 3000;
	c->ceil_share = SHARE(50); /* port 1 is shaped, port 0 is not */
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	assert_int_equal(s.ceil_mask, 0);
	sched_fini(&s);
	assert_int_equal(sched_init(&s, &p, 1, 0), 0);
	assert_int_equal(s.ceil_mask, 1);
	sched_fini(&s);
}

/* --- runs: sched_dequeue() sends a class's frames in runs --- */

/* Both schedulers get the same frame. */
static void enq_both(struct sched *a, struct sched *b, unsigned int cls,
		     uint32_t len, uint64_t now)
{
	struct frame_desc d = {
		.addr = next_addr++,
		.len = len,
		.meta = frame_meta_pack(cls, ECN_NOT_ECT, ECN_L3_NONE, 0),
	};

	assert_int_equal(sched_enqueue(a, &d, NULL, now),
			 sched_enqueue(b, &d, NULL, now));
}

/* Everything a reader or the owner can see of two schedulers agrees. */
static void assert_same_state(const struct sched *a, const struct sched *b)
{
	assert_int_equal(a->backlog, b->backlog);
	assert_int_equal(a->active, b->active);
	assert_int_equal(a->port.tokens, b->port.tokens);
	for (uint32_t i = 0; i < a->n_slots; i++) {
		assert_int_equal(a->cl[i].deficit, b->cl[i].deficit);
		assert_int_equal(a->cl[i].ceil.tokens, b->cl[i].ceil.tokens);
		assert_int_equal(a->cl[i].min.tokens, b->cl[i].min.tokens);
		assert_memory_equal(&a->st[i], &b->st[i], sizeof(a->st[i]));
	}
	for (uint32_t lv = 0; lv < a->n_levels; lv++)
		assert_int_equal(a->drr_pos[lv], b->drr_pos[lv]);
}

/*
 * A dequeue of up to 64 frames hands out the same frames, in the same
 * order, with the same charges and counters, as 64 dequeues of one frame
 * at the same instant (each of which selects afresh: a run of one). Six
 * classes on three levels: DWRR with small and large quanta, minimums,
 * ceilings (share and absolute), a shaped port; frames of mixed sizes and
 * enqueue times, so that runs end on every condition (class empty, ceiling
 * or port in debt, minimum used up, deficit short, max reached).
 */
static void test_runs_match_single_frames(void **state)
{
	struct frame_desc oa[64], ob[64];
	struct qos_policy p;
	struct qos_class *c;
	struct sched a, b;
	uint64_t now = 0, sent = 0;

	policy_init(&p, 10000000000ull, 20000);
	c = add_class(&p, 0, 1500);
	c->ceil_share = SHARE(10);
	c->ceil_burst = 6000;
	add_class(&p, 1, 300); /* less than most frames: several turns */
	c = add_class(&p, 1, 9000);
	c->ceil_bps = 3000000000ull;
	c->ceil_burst = 12000;
	c = add_class(&p, 2, 4500);
	c->min_share = SHARE(15);
	c->min_burst = 8000;
	c = add_class(&p, 2, 1500);
	c->min_bps = 500000000ull;
	c->min_burst = 3000;
	c->ceil_share = SHARE(20);
	c->ceil_burst = 5000;
	add_class(&p, 2, 20000);
	assert_int_equal(sched_init(&a, &p, 0, now), 0);
	assert_int_equal(sched_init(&b, &p, 0, now), 0);
	lcg_state = 42;
	for (int step = 0; step < 20000; step++) {
		uint32_t k = lcg() % 6, na, nb = 0, got;

		for (uint32_t j = lcg() % 24; j; j--)
			enq_both(&a, &b, (k + lcg() % 3) % 6,
				 lcg() % 4 ? 64 + lcg() % 1500
					   : 64 + lcg() % 9000,
				 now);
		na = sched_dequeue(&a, oa, 1 + lcg() % 64, now);
		do { /* at least one call: it refills the buckets */
			got = sched_dequeue(&b, &ob[nb], 1, now);
			nb += got;
		} while (got && nb < na);
		assert_int_equal(nb, na);
		assert_memory_equal(oa, ob, na * sizeof(oa[0]));
		assert_same_state(&a, &b);
		sent += na;
		now += lcg() % 4 ? lcg() % 3000 : lcg() % 100000;
	}
	printf("  %llu frames, each order and charge as one by one\n",
	       (unsigned long long)sent);
	assert_true(sent > 50000);
	sched_fini(&a);
	sched_fini(&b);
}

/* A bucket at exactly 0 tokens still conforms: with bursts of exactly 3
 * frames' charges and no refill (one instant), the ceiling, the port and
 * the minimum each let a 4th frame go into debt, then stop the class. */
static void test_bucket_zero_conforms(void **state)
{
	struct frame_desc out[16];
	struct qos_policy p;
	struct qos_class *c;
	struct sched s;
	const uint32_t charge = 1000 + OVH;

	/* ceiling; a class on the next level takes over */
	policy_init(&p, 0, 0);
	c = add_class(&p, 0, 1500);
	c->ceil_bps = 1000000;
	c->ceil_burst = 3 * charge;
	add_class(&p, 1, 1500);
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(enq(&s, 0, 1000, 0), 0);
		assert_int_equal(enq(&s, 1, 1000, 0), 0);
	}
	assert_int_equal(sched_dequeue(&s, out, 8, 0), 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(frame_meta_class(out[i].meta), i < 4 ? 0 : 1);
	assert_true(s.cl[0].ceil.tokens < 0);
	sched_fini(&s);

	/* port shaper */
	policy_init(&p, 1000000, 3 * charge);
	add_class(&p, 0, 1500);
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	for (int i = 0; i < 6; i++)
		assert_int_equal(enq(&s, 0, 1000, 0), 0);
	assert_int_equal(sched_dequeue(&s, out, 16, 0), 4);
	assert_int_equal(sched_dequeue(&s, out, 16, 0), 0);
	sched_fini(&s);

	/* minimum: the low class goes first for 4 frames, then strict */
	policy_init(&p, 0, 0);
	add_class(&p, 0, 1500);
	c = add_class(&p, 1, 1500);
	c->min_bps = 1000000;
	c->min_burst = 3 * charge;
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(enq(&s, 0, 1000, 0), 0);
		assert_int_equal(enq(&s, 1, 1000, 0), 0);
	}
	assert_int_equal(sched_dequeue(&s, out, 8, 0), 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(frame_meta_class(out[i].meta), i < 4 ? 1 : 0);
	sched_fini(&s);
}

/* Frames with different enqueue times in one run each land in their own
 * sojourn bucket (the run counts the histogram per enqueue time). */
static void test_sojourn_in_one_run(void **state)
{
	static const uint64_t t_enq[] = {0, 0, 1500, 1500, 1500, 900000, 0};
	struct frame_desc out[8];
	const struct sched_class_stats *st;
	uint64_t want[SCHED_HIST_BUCKETS] = {0}, t = 1000000;
	struct qos_policy p;
	struct sched s;

	policy_init(&p, 0, 0);
	add_class(&p, 0, 1 << 20);
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	st = sched_class_stats(&s, 0);
	for (size_t i = 0; i < ARRAY_SIZE(t_enq); i++) {
		assert_int_equal(enq(&s, 0, 100, t_enq[i]), 0);
		want[sched_sojourn_bucket(t - t_enq[i])]++;
	}
	assert_int_equal(sched_dequeue(&s, out, 8, t), ARRAY_SIZE(t_enq));
	for (int k = 0; k < SCHED_HIST_BUCKETS; k++)
		assert_int_equal(ctr_read(&st->sojourn[k]), want[k]);
	assert_int_equal(ctr_read(&st->sent_packets), ARRAY_SIZE(t_enq));
	assert_int_equal(ctr_read(&st->sent_bytes), 100 * ARRAY_SIZE(t_enq));
	sched_fini(&s);
}

/* A FIFO class that a dequeue empties starts its ring over at slot 0; one
 * that never empties wraps around its ring in FIFO order. */
static void test_ring_restart(void **state)
{
	struct frame_desc out[4];
	struct qos_policy p;
	struct qos_class *c;
	struct sched s;
	uint64_t first, expect;

	policy_init(&p, 0, 0);
	c = add_class(&p, 0, 1500);
	c->limit_packets = 8; /* a ring of 8 */
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	assert_int_equal(s.cl[0].mask, 7);
	for (int i = 0; i < 3; i++)
		assert_int_equal(enq(&s, 0, 100, 0), 0);
	assert_int_equal(sched_dequeue(&s, out, 2, 0), 2);
	assert_int_equal(s.cl[0].head, 2); /* not empty: in place */
	assert_int_equal(sched_dequeue(&s, out, 4, 0), 1);
	assert_int_equal(s.cl[0].head, 0);
	assert_int_equal(s.cl[0].tail, 0);
	assert_int_equal(s.active, 0);

	/* never empty: 3 queued at every dequeue, 100 times round */
	first = next_addr;
	for (int i = 0; i < 3; i++)
		assert_int_equal(enq(&s, 0, 100, 0), 0);
	expect = first;
	for (int i = 0; i < 800; i++) {
		assert_int_equal(enq(&s, 0, 100, 0), 0);
		assert_int_equal(sched_dequeue(&s, out, 1, 0), 1);
		assert_int_equal(out[0].addr, expect++);
	}
	assert_int_equal(s.cl[0].tail - s.cl[0].head, 3);
	assert_int_equal(sched_dequeue(&s, out, 4, 0), 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(out[i].addr, expect++);
	assert_int_equal(s.cl[0].head, 0);
	sched_fini(&s);
}

/* The enqueue fast path stops where RED starts: below kmin no random
 * number is drawn (the generator's state does not move) and nothing is
 * marked; from kmin on RED decides (here p = pmax = 1/2: draws). */
static void test_enqueue_below_red(void **state)
{
	uint8_t f[1000];
	struct qos_policy p;
	struct qos_class *c;
	struct sched s;
	uint64_t rng;

	policy_init(&p, 0, 0);
	c = add_class(&p, 0, 1500);
	c->ecn.enabled = true;
	c->ecn.kmin = 3000;
	c->ecn.kmax = 3000;
	c->ecn.pmax = QOS_PROB_ONE / 2;
	add_class(&p, 0, 1500); /* no ECN: never RED */
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	assert_int_equal(s.cl[0].red_from, 3000);
	assert_int_equal(s.cl[1].red_from, UINT32_MAX);
	rng = s.rng;
	for (int i = 0; i < 3; i++) { /* queue 0, 1000, 2000 B */
		make_frame(f, 1000, ECN_ECT0);
		assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_ECT0, 0), 0);
		assert_int_equal(f[15] & 3, ECN_ECT0);
	}
	for (int i = 0; i < 10; i++)
		assert_int_equal(enq(&s, 1, 1000, 0), 0);
	assert_int_equal(s.rng, rng);
	assert_int_equal(ctr_read(&sched_class_stats(&s, 0)->ecn_marks), 0);
	make_frame(f, 1000, ECN_ECT0); /* queue 3000 B: RED draws */
	assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_ECT0, 0), 0);
	assert_true(s.rng != rng);
	sched_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta_pack),
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
		cmocka_unit_test(test_queue_limits),
		cmocka_unit_test(test_ecn_enqueue),
		cmocka_unit_test(test_ecn_red_depth),
		cmocka_unit_test(test_sojourn_bucket_fn),
		cmocka_unit_test(test_sojourn_histogram),
		cmocka_unit_test(test_foreach),
		cmocka_unit_test(test_init_checks),
		cmocka_unit_test(test_runs_match_single_frames),
		cmocka_unit_test(test_bucket_zero_conforms),
		cmocka_unit_test(test_sojourn_in_one_run),
		cmocka_unit_test(test_ring_restart),
		cmocka_unit_test(test_enqueue_below_red),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

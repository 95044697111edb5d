// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_sched_state.c - the egress scheduler's bookkeeping: the frame meta
 * packing, queue limits, the sojourn bucket function and histogram, the
 * census walk (sched_foreach) and the init checks.
 */
#include "test_sched.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta_pack),
		cmocka_unit_test(test_queue_limits),
		cmocka_unit_test(test_sojourn_bucket_fn),
		cmocka_unit_test(test_sojourn_histogram),
		cmocka_unit_test(test_foreach),
		cmocka_unit_test(test_init_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_sched_runs.c - the structure of the egress scheduler's dequeue:
 * runs of a class's frames are the frames one selection per frame would
 * send (same order, charges and counters), buckets at exactly 0 tokens
 * conform, the sojourn histogram of a run, an emptied ring starting over.
 */
#include "test_sched.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_match_single_frames),
		cmocka_unit_test(test_bucket_zero_conforms),
		cmocka_unit_test(test_sojourn_in_one_run),
		cmocka_unit_test(test_ring_restart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

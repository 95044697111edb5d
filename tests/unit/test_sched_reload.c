// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_sched_reload.c - live reconfiguration of the egress scheduler
 * (sched_reconfigure) against a fake clock: frames, FIFO order, enqueue
 * times, counters and token-bucket levels carried over by class name;
 * removed classes' frames moved to the default class; new classes; the new
 * rates in force right after; a refused policy changes nothing; and a long
 * random run of reloads interleaved with traffic that loses, duplicates or
 * invents no frame.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "tc_sched.h"

#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull
#define CAP 4096 /* frames the producers own: max_queued */

static void policy_init(struct qos_policy *p, uint64_t rate_bps)
{
	memset(p, 0, sizeof(*p));
	p->port[0].rate_bps = rate_bps;
	p->port[0].burst = 3000;
	p->port[1] = p->port[0];
}

static struct qos_class *add_class(struct qos_policy *p, const char *name,
				   uint8_t level)
{
	struct qos_class *c = &p->classes[p->n_classes++];

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->level = level;
	c->quantum = 1500;
	c->limit_packets = 1024;
	c->limit_bytes = 16u << 20;
	return c;
}

static int class_id(const struct qos_policy *p, const char *name)
{
	for (uint32_t i = 0; i < p->n_classes; i++)
		if (!strcmp(p->classes[i].name, name))
			return (int)i;
	fail_msg("no class %s", name);
	return -1;
}

static uint64_t next_addr = 1;

static int enq(struct sched *s, int cls, uint32_t len, uint64_t now)
{
	struct frame_desc d = {
		.addr = next_addr++,
		.len = len,
		.meta = frame_meta_pack((unsigned int)cls, ECN_NOT_ECT,
					ECN_L3_NONE, 0),
	};

	return sched_enqueue(s, &d, NULL, now);
}

static const struct sched_class_stats *
st_of(const struct sched *s, const struct qos_policy *p, const char *name)
{
	const struct sched_class_stats *st =
		sched_class_stats(s, (unsigned int)class_id(p, name));

	assert_non_null(st);
	return st;
}

/* A class that keeps its name keeps its frames in FIFO order, with their
 * enqueue times, and its counters -- even when its id and slot change. */
static void test_survivor_keeps_frames_and_counters(void **state)
{
	struct qos_policy a, b;
	struct frame_desc out[64];
	struct sched s;
	uint64_t first;
	uint32_t n;

	policy_init(&a, 0);
	add_class(&a, "gold", 0);
	add_class(&a, "bulk", 1);
	assert_int_equal(sched_init_reloadable(&s, &a, 0, CAP, 0), 0);
	first = next_addr;
	for (int i = 0; i < 10; i++)
		assert_int_equal(enq(&s, class_id(&a, "bulk"), 1000, 1000), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(enq(&s, class_id(&a, "gold"), 200, 1000), 0);

	/* b: a new class in front, the two swapped in order and level */
	policy_init(&b, 0);
	add_class(&b, "new", 2);
	add_class(&b, "bulk", 0);
	add_class(&b, "gold", 1);
	b.default_class = 2;
	assert_int_equal(sched_reconfigure(&s, &b, 0, 5000), 0);
	assert_int_equal(sched_backlog_packets(&s), 13);
	assert_int_equal(sched_depth_packets(st_of(&s, &b, "bulk")), 10);
	assert_int_equal(sched_depth_bytes(st_of(&s, &b, "bulk")), 10000);
	assert_int_equal(ctr_read(&st_of(&s, &b, "gold")->enq_packets), 3);
	assert_int_equal(ctr_read(&st_of(&s, &b, "new")->enq_packets), 0);
	assert_int_equal(ctr_read(&s.reload_requeued), 0);
	assert_int_equal(ctr_read(&s.reloads), 1);

	/* bulk is now level 0: its 10 frames first, in order, with the new
	 * class id in their meta and the sojourn since their enqueue */
	n = sched_dequeue(&s, out, 64, 1000 + 5 * NS_PER_MS);
	assert_int_equal(n, 13);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(out[i].addr, first + (uint64_t)i);
		assert_int_equal(frame_meta_class(out[i].meta),
				 class_id(&b, "bulk"));
	}
	for (int i = 10; i < 13; i++)
		assert_int_equal(frame_meta_class(out[i].meta),
				 class_id(&b, "gold"));
	/* 5 ms in the queue: bucket [4096, 8192) us = 13 */
	assert_int_equal(ctr_read(&st_of(&s, &b, "bulk")->sojourn[13]), 10);
	assert_int_equal(ctr_read(&st_of(&s, &b, "gold")->sent_packets), 3);
	sched_fini(&s);
}

/* A removed class's frames go to the new default class, counted there as
 * enqueued, so depth = enqueued - sent stays true; nothing is dropped. */
static void test_removed_class_requeued_to_default(void **state)
{
	struct qos_policy a, b;
	struct frame_desc out[64];
	struct sched s;
	uint32_t n;

	policy_init(&a, 0);
	add_class(&a, "be", 1);
	add_class(&a, "old", 0);
	assert_int_equal(sched_init_reloadable(&s, &a, 0, CAP, 0), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(enq(&s, class_id(&a, "be"), 100, 0), 0);
	for (int i = 0; i < 6; i++)
		assert_int_equal(enq(&s, class_id(&a, "old"), 300, 0), 0);

	policy_init(&b, 0);
	add_class(&b, "be", 1);
	assert_int_equal(sched_reconfigure(&s, &b, 0, 10), 0);
	assert_int_equal(sched_backlog_packets(&s), 10);
	assert_int_equal(ctr_read(&s.reload_requeued), 6);
	assert_int_equal(ctr_read(&st_of(&s, &b, "be")->enq_packets), 10);
	assert_int_equal(ctr_read(&st_of(&s, &b, "be")->enq_bytes),
			 4 * 100 + 6 * 300);
	assert_int_equal(sched_depth_packets(st_of(&s, &b, "be")), 10);
	n = sched_dequeue(&s, out, 64, 20);
	assert_int_equal(n, 10);
	assert_int_equal(sched_depth_packets(st_of(&s, &b, "be")), 0);
	assert_int_equal(sched_depth_bytes(st_of(&s, &b, "be")), 0);
	sched_fini(&s);
}

/* The new default class is itself new while a removed class holds frames:
 * it adopts them. All eight ring slots in use before and after. */
static void test_new_default_adopts_frames(void **state)
{
	struct qos_policy a, b;
	char name[8];
	struct sched s;
	uint64_t total = 0;

	policy_init(&a, 0);
	for (int i = 0; i < QOS_MAX_CLASSES; i++) {
		snprintf(name, sizeof(name), "a%d", i);
		add_class(&a, name, (uint8_t)i);
	}
	assert_int_equal(sched_init_reloadable(&s, &a, 0, CAP, 0), 0);
	for (int i = 0; i < QOS_MAX_CLASSES; i++)
		for (int k = 0; k <= i; k++, total++)
			assert_int_equal(enq(&s, i, 100 + i, 0), 0);

	/* eight new names: every old class removed */
	policy_init(&b, 0);
	for (int i = 0; i < QOS_MAX_CLASSES; i++) {
		snprintf(name, sizeof(name), "b%d", i);
		add_class(&b, name, (uint8_t)(7 - i));
	}
	b.default_class = 5;
	assert_int_equal(sched_reconfigure(&s, &b, 0, 10), 0);
	assert_int_equal(sched_backlog_packets(&s), total);
	assert_int_equal(sched_depth_packets(st_of(&s, &b, "b5")), total);
	for (int i = 0; i < QOS_MAX_CLASSES; i++)
		if (i != 5) {
			snprintf(name, sizeof(name), "b%d", i);
			assert_int_equal(
				sched_depth_packets(st_of(&s, &b, name)), 0);
		}
	/* every class can take frames again: each has its own ring */
	for (int i = 0; i < QOS_MAX_CLASSES; i++)
		assert_int_equal(enq(&s, i, 64, 20), 0);
	assert_int_equal(sched_backlog_packets(&s), total + 8);
	{
		struct frame_desc out[64];
		uint64_t got = 0;
		uint32_t n;

		while ((n = sched_dequeue(&s, out, 64, 30)))
			got += n;
		assert_int_equal(got, total + 8);
	}
	sched_fini(&s);
}

/* Frames dequeued per ms with the queue kept backlogged. */
static uint64_t bytes_in(struct sched *s, int cls, uint64_t *now, uint64_t dur,
			 uint32_t len)
{
	struct frame_desc out[64];
	uint64_t bytes = 0, end = *now + dur;
	uint32_t n;

	for (; *now < end; *now += 10000) {
		while (sched_backlog_packets(s) < 64)
			assert_int_equal(enq(s, cls, len, *now), 0);
		n = sched_dequeue(s, out, 64, *now);
		for (uint32_t i = 0; i < n; i++)
			bytes += out[i].len;
	}
	return bytes;
}

/* The new ceiling is in force right after the reload, and the bucket keeps
 * its level: a class in debt does not get a fresh burst from a reload. */
static void test_new_rate_in_force_and_level_kept(void **state)
{
	struct qos_policy a, b;
	struct frame_desc out[64];
	struct sched s;
	uint64_t now = 0, got;
	struct qos_class *c;

	policy_init(&a, 0);
	c = add_class(&a, "roce", 0);
	c->ceil_bps = 100000000; /* 100 Mbit/s = 12.5 MB/s */
	c->ceil_burst = 15000;
	assert_int_equal(sched_init_reloadable(&s, &a, 0, CAP, 0), 0);
	got = bytes_in(&s, 0, &now, 100 * NS_PER_MS, 1000);
	/* 100 ms at 12.5 MB/s = 1.25 MB, plus the initial burst */
	assert_in_range(got, 1250000 - 1000, 1250000 + 15000 + 1000);

	/* the bucket is in debt now; 10x the rate, 10x the burst */
	b = a;
	b.classes[0].ceil_bps = 1000000000;
	b.classes[0].ceil_burst = 150000;
	assert_int_equal(sched_reconfigure(&s, &b, 0, now), 0);
	/* no burst granted: right after the reload nothing may leave */
	assert_int_equal(sched_dequeue(&s, out, 64, now), 0);
	got = bytes_in(&s, 0, &now, 100 * NS_PER_MS, 1000);
	/* 100 ms at 125 MB/s = 12.5 MB, no initial burst */
	assert_in_range(got, 12500000 - 2000, 12500000 + 2000);

	/* and back down: the full bucket is cut to the new, smaller burst */
	now += NS_PER_S; /* idle: bucket full at 150000 */
	while (sched_dequeue(&s, out, 64, now))
		;
	assert_int_equal(sched_reconfigure(&s, &a, 0, now), 0);
	got = bytes_in(&s, 0, &now, 100 * NS_PER_MS, 1000);
	assert_in_range(got, 1250000 - 1000, 1250000 + 15000 + 1000);
	sched_fini(&s);
}

/* Limits: a queue above its new limit keeps its frames (nothing is
 * dropped by a reload) and takes no new frame until it drains below. */
static void test_lower_limit_drops_nothing(void **state)
{
	struct qos_policy a, b;
	struct frame_desc out[64];
	struct sched s;

	policy_init(&a, 0);
	add_class(&a, "be", 0);
	assert_int_equal(sched_init_reloadable(&s, &a, 0, CAP, 0), 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(enq(&s, 0, 100, 0), 0);
	b = a;
	b.classes[0].limit_packets = 10;
	assert_int_equal(sched_reconfigure(&s, &b, 0, 1), 0);
	assert_int_equal(sched_backlog_packets(&s), 100);
	assert_int_equal(enq(&s, 0, 100, 2), SCHED_DROP_QUEUE_PACKETS);
	assert_int_equal(sched_dequeue(&s, out, 64, 3), 64);
	assert_int_equal(sched_dequeue(&s, out, 64, 3), 36);
	assert_int_equal(enq(&s, 0, 100, 4), 0);
	/* limit_packets above the ring capacity is cut to it */
	b.classes[0].limit_packets = 1u << 20;
	assert_int_equal(sched_reconfigure(&s, &b, 0, 5), 0);
	for (int i = 1; i < CAP; i++)
		assert_int_equal(enq(&s, 0, 64, 6), 0);
	assert_int_equal(enq(&s, 0, 64, 6), SCHED_DROP_QUEUE_PACKETS);
	sched_fini(&s);
}

/* A refused policy leaves the running one untouched. */
static void test_refused_policy_changes_nothing(void **state)
{
	struct qos_policy a, b;
	struct sched s, plain;

	policy_init(&a, 10000000);
	add_class(&a, "x", 0)->ceil_share = QOS_PROB_ONE / 2;
	add_class(&a, "y", 1);
	assert_int_equal(sched_init_reloadable(&s, &a, 0, CAP, 0), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(enq(&s, 1, 100, 0), 0);
	b = a;
	b.classes[1].quantum = 0; /* invalid */
	assert_int_equal(sched_reconfigure(&s, &b, 0, 1), -EINVAL);
	b = a;
	b.default_class = 7; /* no such class */
	assert_int_equal(sched_reconfigure(&s, &b, 0, 1), -EINVAL);
	b = a;
	b.classes[0].ceil_share = QOS_PROB_ONE + 1;
	assert_int_equal(sched_check_policy(&b, 0), -EINVAL);
	assert_int_equal(sched_reconfigure(&s, &b, 0, 1), -EINVAL);
	assert_int_equal(sched_check_policy(&a, 0), 0);
	assert_int_equal(ctr_read(&s.reloads), 0);
	assert_int_equal(sched_backlog_packets(&s), 5);
	assert_int_equal(sched_depth_packets(st_of(&s, &a, "y")), 5);
	assert_int_equal(s.n_slots, 2);
	sched_fini(&s);

	/* not built reloadable */
	assert_int_equal(sched_init(&plain, &a, 0, 0), 0);
	assert_int_equal(sched_reconfigure(&plain, &a, 0, 1), -EOPNOTSUPP);
	sched_fini(&plain);
}

/* Random policies (1..8 classes drawn from 10 names, random levels, rates,
 * limits, default) alternate with random traffic for 2000 reloads: every
 * frame that went in comes out exactly once or is counted as a drop, and
 * every class's depth counters match its queue. */
static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void random_policy(struct qos_policy *p)
{
	static const char *const names[] = {"a", "b", "c", "d", "e",
					    "f", "g", "h", "i", "j"};
	bool used[10] = {false};
	uint32_t n = 1 + rnd(QOS_MAX_CLASSES);

	policy_init(p, rnd(2) ? 0 : 1000000000ull * (1 + rnd(10)));
	while (p->n_classes < n) {
		uint32_t k = rnd(10);
		struct qos_class *c;

		if (used[k])
			continue;
		used[k] = true;
		c = add_class(p, names[k], (uint8_t)rnd(4));
		c->quantum = 64 + rnd(9000);
		c->limit_packets = 1 + rnd(2000);
		if (rnd(3) == 0) {
			c->ceil_bps = 1000000ull * (1 + rnd(50000));
			c->ceil_burst = rnd(100000);
		}
	}
	p->default_class = (uint8_t)rnd(n);
}

static void test_random_reloads_conserve_frames(void **state)
{
	static uint8_t seen[1 << 22];
	struct frame_desc out[64];
	struct qos_policy p;
	struct sched s;
	uint64_t now = 0, in = 0, outn = 0, dropped = 0, queued;
	uint64_t base = next_addr;
	uint32_t n;

	random_policy(&p);
	assert_int_equal(sched_init_reloadable(&s, &p, 0, CAP, 0), 0);
	for (int r = 0; r < 2000; r++) {
		uint32_t burst = rnd(300);

		for (uint32_t i = 0;
		     i < burst && sched_backlog_packets(&s) < CAP; i++) {
			if (enq(&s, (int)rnd(p.n_classes), 64 + rnd(1500), now))
				dropped++;
			in++;
		}
		now += rnd(200000);
		n = sched_dequeue(&s, out, 1 + rnd(64), now);
		for (uint32_t i = 0; i < n; i++) {
			uint64_t a = out[i].addr - base;

			assert_true(a < sizeof(seen));
			assert_int_equal(seen[a], 0); /* never twice */
			seen[a] = 1;
		}
		outn += n;
		random_policy(&p);
		queued = sched_backlog_packets(&s);
		assert_int_equal(sched_reconfigure(&s, &p, 0, now), 0);
		assert_int_equal(sched_backlog_packets(&s), queued);
		{
			uint64_t depth = 0;

			for (uint32_t c = 0; c < p.n_classes; c++)
				depth += sched_depth_packets(
					sched_class_stats(&s, c));
			assert_int_equal(depth, queued);
		}
	}
	while ((n = sched_dequeue(&s, out, 64, now += NS_PER_MS)))
		outn += n;
	assert_int_equal(in, outn + dropped);
	printf("  %llu frames in, %llu out, %llu dropped, %llu requeued "
	       "over %llu reloads\n",
	       (unsigned long long)in, (unsigned long long)outn,
	       (unsigned long long)dropped,
	       (unsigned long long)ctr_read(&s.reload_requeued),
	       (unsigned long long)ctr_read(&s.reloads));
	sched_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_survivor_keeps_frames_and_counters),
		cmocka_unit_test(test_removed_class_requeued_to_default),
		cmocka_unit_test(test_new_default_adopts_frames),
		cmocka_unit_test(test_new_rate_in_force_and_level_kept),
		cmocka_unit_test(test_lower_limit_drops_nothing),
		cmocka_unit_test(test_refused_policy_changes_nothing),
		cmocka_unit_test(test_random_reloads_conserve_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

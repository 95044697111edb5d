// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_spsc_ring.c - the SPSC ring: burst semantics, wrap-around of the
 * free-running indices, and a two-thread stress run with a checksum
 * (also run under TSan in CI).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "feedback.h"
#include "spsc_ring.h"

DEFINE_SPSC_RING(u64_ring, uint64_t)

static void test_init_rejects_non_pow2(void **state)
{
	struct u64_ring r;

	assert_int_equal(u64_ring_init(&r, 100), -1);
	assert_int_equal(u64_ring_init(&r, 0), -1);
	assert_int_equal(u64_ring_init(&r, 64), 0);
	u64_ring_fini(&r);
}

static void test_burst_partial(void **state)
{
	struct u64_ring r;
	uint64_t in[10], out[10];

	for (int i = 0; i < 10; i++)
		in[i] = 100 + i;
	assert_int_equal(u64_ring_init(&r, 8), 0);
	/* 10 offered, 8 fit. */
	assert_int_equal(u64_ring_enqueue(&r, in, 10), 8);
	assert_int_equal(u64_ring_count(&r), 8);
	assert_int_equal(u64_ring_enqueue(&r, in, 1), 0);
	assert_int_equal(u64_ring_dequeue(&r, out, 3), 3);
	assert_int_equal(out[0], 100);
	assert_int_equal(out[2], 102);
	/* 3 slots free again; FIFO order continues. */
	assert_int_equal(u64_ring_enqueue(&r, in + 8, 2), 2);
	assert_int_equal(u64_ring_dequeue(&r, out, 10), 7);
	assert_int_equal(out[0], 103);
	assert_int_equal(out[4], 107);
	assert_int_equal(out[5], 108);
	assert_int_equal(out[6], 109);
	assert_int_equal(u64_ring_dequeue(&r, out, 10), 0);
	u64_ring_fini(&r);
}

static void test_index_wraparound(void **state)
{
	struct u64_ring r;
	uint64_t v, out;

	assert_int_equal(u64_ring_init(&r, 4), 0);
	/* Start the free-running indices just below 2^32. */
	atomic_store(&r.prod.head, UINT32_MAX - 2);
	atomic_store(&r.cons.tail, UINT32_MAX - 2);
	r.prod.cached_tail = r.cons.cached_head = UINT32_MAX - 2;
	for (v = 0; v < 20; v++) {
		assert_int_equal(u64_ring_enqueue(&r, &v, 1), 1);
		assert_int_equal(u64_ring_count(&r), 1);
		assert_int_equal(u64_ring_dequeue(&r, &out, 1), 1);
		assert_int_equal(out, v);
	}
	u64_ring_fini(&r);
}

/* 100 million by default; XDPLANE_STRESS_ITEMS overrides. */
static uint64_t stress_items = 100000000ull;

struct stress {
	struct u64_ring r;
	uint64_t sum_in, sum_out, n_out, order_errors;
};

static void *producer(void *arg)
{
	struct stress *s = arg;
	uint64_t next = 1, buf[32];
	uint32_t burst = 1;

	while (next <= stress_items) {
		uint32_t n = burst, k;

		if (next + n - 1 > stress_items)
			n = stress_items - next + 1;
		for (k = 0; k < n; k++)
			buf[k] = next + k;
		k = u64_ring_enqueue(&s->r, buf, n);
		for (uint32_t i = 0; i < k; i++)
			s->sum_in += buf[i] * 2654435761u;
		next += k;
		burst = burst % 32 + 1; /* bursts of every size 1..32 */
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct stress *s = arg;
	uint64_t buf[32], expect = 1;

	while (s->n_out < stress_items) {
		uint32_t n = u64_ring_dequeue(&s->r, buf, 1 + s->n_out % 32);

		for (uint32_t i = 0; i < n; i++) {
			s->order_errors += buf[i] != expect;
			expect = buf[i] + 1;
			s->sum_out += buf[i] * 2654435761u;
		}
		s->n_out += n;
	}
	return NULL;
}

/* A congestion hint goes to every egress queue of a port or to none: with
 * one queue's ring full, no ring gets it (before, the queues ahead of the
 * full one got it and the call still failed). */
static void test_post_all_or_none(void **state)
{
	struct feedback_ring r[3];
	struct feedback_ring *rings[3] = {&r[0], &r[1], &r[2]};
	struct fb_event ev = {.type = FB_HINT, .psn = 1000}, out[4];

	for (int i = 0; i < 3; i++)
		assert_int_equal(feedback_ring_init(&r[i], 4), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(feedback_ring_enqueue(&r[2], &ev, 1), 1);
	assert_int_equal(feedback_ring_room(&r[2]), 0);
	assert_int_equal(feedback_post_all(rings, 3, &ev), -EAGAIN);
	assert_int_equal(feedback_ring_count(&r[0]), 0);
	assert_int_equal(feedback_ring_count(&r[1]), 0);
	assert_int_equal(feedback_ring_dequeue(&r[2], out, 1), 1);
	assert_int_equal(feedback_post_all(rings, 3, &ev), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(feedback_ring_count(&r[i]), i == 2 ? 4 : 1);
		feedback_ring_fini(&r[i]);
	}
}

static void test_two_thread_stress(void **state)
{
	struct stress *s = calloc(1, sizeof(*s));
	pthread_t p, c;
	const char *env = getenv("XDPLANE_STRESS_SMALL");
	const char *items = getenv("XDPLANE_STRESS_ITEMS");

	assert_non_null(s);
	if (items)
		stress_items = strtoull(items, NULL, 0);
	assert_int_equal(u64_ring_init(&s->r, env ? 16 : 1024), 0);
	assert_int_equal(pthread_create(&c, NULL, consumer, s), 0);
	assert_int_equal(pthread_create(&p, NULL, producer, s), 0);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	assert_int_equal(s->n_out, stress_items);
	assert_int_equal(s->order_errors, 0);
	assert_true(s->sum_in == s->sum_out);
	u64_ring_fini(&s->r);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_rejects_non_pow2),
		cmocka_unit_test(test_burst_partial),
		cmocka_unit_test(test_index_wraparound),
		cmocka_unit_test(test_post_all_or_none),
		cmocka_unit_test(test_two_thread_stress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_idle_policy.c - the worker's idle policy (idle_policy.h) driving a
 * simulated worker on a fake clock: frames arrive on a schedule, a pass
 * takes every frame that has arrived and costs time per frame, a spin
 * costs a little, a sleep or nap ends late by a wake-up cost. What a
 * user relies on: the share of the core the worker keeps, how long a
 * frame waits for it, and that a saturated worker or a lone
 * request/answer never naps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "idle_policy.h"

#define NS 1ull
#define US 1000ull
#define MS 1000000ull

#define PASS_NS (200 * NS) /* a pass that finds nothing */
#define FRAME_NS (500 * NS) /* each frame a pass moves */
#define SPIN_NS (100 * NS) /* one cpu_relax() turn */
#define WAKE_NS (5 * US) /* a sleep ends this late */

struct sim_result {
	uint64_t frames, naps, sleeps;
	uint64_t on_cpu_ns, total_ns; /* passes + spins, everything */
	uint64_t max_wait_ns; /* arrival -> the pass that takes it */
};

/* Frames arrive at arrive[0..n) (ascending); run the worker until the
 * last is taken and the worker has gone back to sleep. */
static void simulate(uint64_t busy_ns, uint64_t coalesce_ns,
		     const uint64_t *arrive, uint64_t n, struct sim_result *r)
{
	struct idle_policy p;
	uint64_t t = 1, next = 0;
	uint32_t sent = 0;

	*r = (struct sim_result){0};
	idle_policy_init(&p, busy_ns, coalesce_ns);
	while (next < n || !r->sleeps || r->frames < n) {
		uint32_t work = 0;
		uint64_t start = t, cost;

		while (next < n && arrive[next] <= start) {
			if (start - arrive[next] > r->max_wait_ns)
				r->max_wait_ns = start - arrive[next];
			next++;
			work++;
		}
		cost = PASS_NS + work * FRAME_NS;
		r->frames += work;
		/* the pass after one that sent frames reaps their TX
		 * completions: work too */
		work += sent;
		sent = work - sent;
		t += cost;
		r->on_cpu_ns += cost;
		switch (idle_policy_next(&p, work, t)) {
		case IDLE_PASS:
			break;
		case IDLE_SPIN:
			t += SPIN_NS;
			r->on_cpu_ns += SPIN_NS;
			break;
		case IDLE_NAP:
			t += coalesce_ns + WAKE_NS;
			r->naps++;
			idle_policy_slept(&p, coalesce_ns + WAKE_NS);
			break;
		case IDLE_SLEEP:
			if (next == n) { /* nothing more will come */
				r->sleeps++;
				r->total_ns = t;
				return;
			}
			cost = (arrive[next] > t ? arrive[next] : t) + WAKE_NS;
			r->sleeps++;
			idle_policy_slept(&p, cost - t);
			t = cost;
			break;
		}
	}
	r->total_ns = t;
}

static uint64_t *paced(uint64_t n, uint64_t gap_ns)
{
	uint64_t *a = malloc(n * sizeof(*a));

	assert_non_null(a);
	for (uint64_t i = 0; i < n; i++)
		a[i] = 10 * US + i * gap_ns;
	return a;
}

/* A tenth of what the worker could forward (a frame every 7 us, it
 * takes 0.7): spinning 20 us between frames keeps the core busy all the
 * time (the problem); with 50 us naps it keeps under a fifth of it, and
 * no frame waits longer than a nap and a wake-up. */
static void test_low_rate_naps(void **state)
{
	const uint64_t n = 20000, gap = 7 * US;
	uint64_t *a = paced(n, gap);
	struct sim_result off, on;

	(void)state;
	simulate(20 * US, 0, a, n, &off);
	simulate(20 * US, 50 * US, a, n, &on);
	assert_int_equal(off.frames, n);
	assert_int_equal(on.frames, n);
	assert_int_equal(off.naps, 0);
	/* off: on the CPU > 95 % of the time, frames taken at once */
	assert_true(off.on_cpu_ns * 100 > off.total_ns * 95);
	assert_true(off.max_wait_ns <= PASS_NS + FRAME_NS + SPIN_NS);
	/* on: a nap per ~8 frames, < 20 % of the core */
	assert_true(on.naps > n / 10);
	assert_true(on.on_cpu_ns * 100 < on.total_ns * 20);
	assert_true(on.max_wait_ns <= 50 * US + WAKE_NS + PASS_NS);
	/* the same traffic in about the same time: naps delay, not slow */
	print_message("off: %lu ns (%lu on CPU), on: %lu ns (%lu), %lu naps\n",
		      (unsigned long)off.total_ns, (unsigned long)off.on_cpu_ns,
		      (unsigned long)on.total_ns, (unsigned long)on.on_cpu_ns,
		      (unsigned long)on.naps);
	assert_true(on.total_ns < off.total_ns + 200 * US);
	free(a);
}

/* A request every millisecond, its answer 10 us later (inside the
 * 20 us spin): neither waits for a nap. The answer is found while the
 * worker spins, so one nap may follow it, but nothing arrives in it.
 * (A request that finds the worker spinning after other traffic would
 * start naps, and its answer could wait for one: the price of the
 * setting.) */
static void test_request_answer_no_wait(void **state)
{
	const uint64_t n = 200;
	uint64_t a[200];
	struct sim_result r;

	(void)state;
	for (uint64_t i = 0; i < n; i += 2) {
		a[i] = 100 * US + i / 2 * MS; /* the worker asleep */
		a[i + 1] = a[i] + 10 * US;
	}
	simulate(20 * US, 50 * US, a, n, &r);
	assert_int_equal(r.frames, n);
	/* the request waits for a wake-up, the answer for nothing */
	assert_true(r.max_wait_ns <= WAKE_NS);
	assert_true(r.naps <= n / 2);
	/* asleep almost all the time */
	assert_true(r.on_cpu_ns * 100 < r.total_ns * 5);

	/* requests alone, far apart: no nap at all */
	for (uint64_t i = 0; i < n; i++)
		a[i] = 100 * US + i * MS;
	simulate(20 * US, 50 * US, a, n, &r);
	assert_int_equal(r.naps, 0);
	assert_true(r.max_wait_ns <= WAKE_NS);
}

/* Frames faster than the worker takes them: every pass moves some, it
 * never naps nor sleeps before the end. */
static void test_saturated_never_naps(void **state)
{
	const uint64_t n = 20000;
	uint64_t *a = paced(n, 300 * NS);
	struct sim_result r;

	(void)state;
	simulate(20 * US, 50 * US, a, n, &r);
	assert_int_equal(r.frames, n);
	assert_int_equal(r.naps, 0);
	assert_int_equal(r.sleeps, 1); /* the final one */
	free(a);
}

/* The policy's steps: spin busy_ns after an idle pass, then sleep; with
 * coalescing a frame found while spinning makes the next idle pass a
 * nap, a nap that brings nothing ends the naps, and a frame that woke a
 * sleeping worker starts none. */
static void test_steps(void **state)
{
	struct idle_policy p;

	(void)state;
	idle_policy_init(&p, 20 * US, 0);
	assert_int_equal(idle_policy_next(&p, 3, 1 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 2 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 3 * US), IDLE_SPIN);
	assert_int_equal(idle_policy_next(&p, 1, 4 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 5 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 21 * US), IDLE_SPIN);
	assert_int_equal(idle_policy_next(&p, 0, 26 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 55 * US);

	idle_policy_init(&p, 20 * US, 50 * US);
	/* woken by a frame: no nap */
	assert_int_equal(idle_policy_next(&p, 1, 1 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 2 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 3 * US), IDLE_SPIN);
	/* found while spinning: the next idle pass naps */
	assert_int_equal(idle_policy_next(&p, 1, 9 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 10 * US), IDLE_NAP);
	idle_policy_slept(&p, 55 * US);
	/* the nap brought frames: nap again */
	assert_int_equal(idle_policy_next(&p, 4, 70 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 71 * US), IDLE_NAP);
	idle_policy_slept(&p, 55 * US);
	/* a frame: its RX pass, its TX completion pass, then a nap */
	assert_int_equal(idle_policy_next(&p, 1, 128 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 1, 129 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 129 * US), IDLE_NAP);
	idle_policy_slept(&p, 55 * US);
	/* it brought a burst (work in 6 back-to-back passes): no nap
	 * after it, and the spin finds the next frame: nap */
	for (uint64_t i = 0; i < 6; i++)
		assert_int_equal(idle_policy_next(&p, 64, (130 + i) * US),
				 IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 132 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 133 * US), IDLE_SPIN);
	assert_int_equal(idle_policy_next(&p, 1, 134 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 135 * US), IDLE_NAP);
	idle_policy_slept(&p, 55 * US);
	/* it brought nothing: sleep on the sockets at once */
	assert_int_equal(idle_policy_next(&p, 0, 190 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 400 * US);
	/* woken by a frame after that long: spin, then sleep */
	assert_int_equal(idle_policy_next(&p, 1, 591 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 592 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 593 * US), IDLE_SPIN);
	assert_int_equal(idle_policy_next(&p, 0, 613 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 55 * US);
	/* a frame that ends a sleep shorter than a nap starts naps (frames
	 * come that often); one that ends a longer sleep does not */
	idle_policy_init(&p, 20 * US, 50 * US);
	assert_int_equal(idle_policy_next(&p, 0, 1 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 30 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 12 * US);
	assert_int_equal(idle_policy_next(&p, 1, 43 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 44 * US), IDLE_NAP);
	idle_policy_slept(&p, 55 * US);
	assert_int_equal(idle_policy_next(&p, 0, 100 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 900 * US);
	assert_int_equal(idle_policy_next(&p, 1, 1031 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 1032 * US), IDLE_PASS);
	/* off: never */
	idle_policy_init(&p, 20 * US, 0);
	assert_int_equal(idle_policy_next(&p, 0, 1 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 30 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 1 * US);
	assert_int_equal(idle_policy_next(&p, 1, 43 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 44 * US), IDLE_PASS);
	/* back-to-back work: no nap either */
	idle_policy_init(&p, 20 * US, 50 * US);
	for (uint64_t i = 1; i < 100; i++)
		assert_int_equal(idle_policy_next(&p, 1, i * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 100 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 101 * US), IDLE_SPIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_low_rate_naps),
		cmocka_unit_test(test_request_answer_no_wait),
		cmocka_unit_test(test_saturated_never_naps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

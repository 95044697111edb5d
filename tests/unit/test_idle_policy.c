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

/* Most TX completions in flight at once in the model. */
#define SIM_MAX_COMP 64
/* A sleep while transmissions await completion ends after this at the
 * latest (worker.c: sleep_budget_ns). */
#define TX_WAIT_NS (1 * MS)

/* Frames arrive at arrive[0..n) (ascending); run the worker until the
 * last is taken, its completion reaped, and the worker has gone back to
 * sleep. A pass forwards the frames it takes (one worker, RX and egress
 * in the same pass); their TX completions come back comp_ns after the
 * pass, and the first pass that starts after that reaps them (0: the
 * next pass, as in copy mode; a zero-copy NIC completes microseconds
 * after the kick). A completion wakes no sleep. */
static void simulate_comp(uint64_t busy_ns, uint64_t coalesce_ns,
			  uint64_t comp_ns, const uint64_t *arrive, uint64_t n,
			  struct sim_result *r)
{
	struct idle_policy p;
	uint64_t t = 1, next = 0;
	uint64_t comp_at[SIM_MAX_COMP]; /* ascending */
	uint32_t comp_n[SIM_MAX_COMP], c_head = 0, c_tail = 0;

	*r = (struct sim_result){0};
	idle_policy_init(&p, busy_ns, coalesce_ns);
	for (;;) {
		uint32_t work = 0, rx = 0;
		uint64_t start = t, cost, wake;

		while (next < n && arrive[next] <= start) {
			if (start - arrive[next] > r->max_wait_ns)
				r->max_wait_ns = start - arrive[next];
			next++;
			rx++;
		}
		while (c_head != c_tail &&
		       comp_at[c_head % SIM_MAX_COMP] <= start)
			work += comp_n[c_head++ % SIM_MAX_COMP];
		work += rx;
		cost = PASS_NS + rx * FRAME_NS;
		r->frames += rx;
		t += cost;
		r->on_cpu_ns += cost;
		if (rx) {
			assert_true(c_tail - c_head < SIM_MAX_COMP);
			comp_at[c_tail % SIM_MAX_COMP] = t + comp_ns;
			comp_n[c_tail++ % SIM_MAX_COMP] = rx;
		}
		switch (idle_policy_next(&p, work, rx, t)) {
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
			r->sleeps++;
			if (next == n && c_head == c_tail) {
				r->total_ns = t; /* nothing more will come */
				return;
			}
			wake = next < n ? arrive[next] : UINT64_MAX;
			if (c_head != c_tail && t + TX_WAIT_NS < wake)
				wake = t + TX_WAIT_NS;
			wake = (wake > t ? wake : t) + WAKE_NS;
			idle_policy_slept(&p, wake - t);
			t = wake;
			break;
		}
	}
}

static void simulate(uint64_t busy_ns, uint64_t coalesce_ns,
		     const uint64_t *arrive, uint64_t n, struct sim_result *r)
{
	simulate_comp(busy_ns, coalesce_ns, 0, arrive, n, r);
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
	/* completions 3 us after the kick (zero-copy): the same naps */
	simulate_comp(20 * US, 50 * US, 3 * US, a, n, &on);
	assert_int_equal(on.frames, n);
	assert_true(on.naps > n / 10);
	assert_true(on.on_cpu_ns * 100 < on.total_ns * 20);
	assert_true(on.max_wait_ns <= 50 * US + WAKE_NS + PASS_NS);
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

/* The same on a NIC whose TX completions come back c ns after the
 * kick (zero-copy: microseconds), for several c: a completion is not a
 * frame arriving, so reaping one after an idle pass starts no naps.
 * Neither the request nor its answer waits for a nap, and requests
 * alone start none. */
static void test_request_answer_late_completion(void **state)
{
	static const uint64_t late[] = {0,	 300 * NS, 1 * US,  3 * US,
					5 * US,	 9 * US,   12 * US, 19 * US,
					25 * US, 60 * US,  200 * US};
	const uint64_t n = 200;
	uint64_t a[200];
	struct sim_result r;

	(void)state;
	for (size_t k = 0; k < sizeof(late) / sizeof(late[0]); k++) {
		for (uint64_t i = 0; i < n; i += 2) {
			a[i] = 100 * US + i / 2 * MS;
			a[i + 1] = a[i] + 10 * US;
		}
		simulate_comp(20 * US, 50 * US, late[k], a, n, &r);
		print_message("completion %lu ns late: answer waits %lu ns, "
			      "%lu naps\n",
			      (unsigned long)late[k],
			      (unsigned long)r.max_wait_ns,
			      (unsigned long)r.naps);
		assert_int_equal(r.frames, n);
		assert_true(r.max_wait_ns <= WAKE_NS);
		assert_true(r.naps <= n / 2);

		for (uint64_t i = 0; i < n; i++)
			a[i] = 100 * US + i * MS;
		simulate_comp(20 * US, 50 * US, late[k], a, n, &r);
		assert_int_equal(r.frames, n);
		assert_int_equal(r.naps, 0);
		assert_true(r.max_wait_ns <= WAKE_NS);
	}
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
	assert_int_equal(idle_policy_next(&p, 3, 3, 1 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 2 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 3 * US), IDLE_SPIN);
	assert_int_equal(idle_policy_next(&p, 1, 1, 4 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 5 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 21 * US), IDLE_SPIN);
	assert_int_equal(idle_policy_next(&p, 0, 0, 26 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 55 * US);

	idle_policy_init(&p, 20 * US, 50 * US);
	/* woken by a frame: no nap */
	assert_int_equal(idle_policy_next(&p, 1, 1, 1 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 2 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 3 * US), IDLE_SPIN);
	/* found while spinning: the next idle pass naps */
	assert_int_equal(idle_policy_next(&p, 1, 1, 9 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 10 * US), IDLE_NAP);
	idle_policy_slept(&p, 55 * US);
	/* the nap brought frames: nap again */
	assert_int_equal(idle_policy_next(&p, 4, 4, 70 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 71 * US), IDLE_NAP);
	idle_policy_slept(&p, 55 * US);
	/* a frame: its RX pass, its TX completion pass, then a nap */
	assert_int_equal(idle_policy_next(&p, 1, 1, 128 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 1, 0, 129 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 129 * US), IDLE_NAP);
	idle_policy_slept(&p, 55 * US);
	/* it brought a burst (work in 6 back-to-back passes): no nap
	 * after it, and the spin finds the next frame: nap */
	for (uint64_t i = 0; i < 6; i++)
		assert_int_equal(idle_policy_next(&p, 64, 64, (130 + i) * US),
				 IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 132 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 133 * US), IDLE_SPIN);
	assert_int_equal(idle_policy_next(&p, 1, 1, 134 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 135 * US), IDLE_NAP);
	idle_policy_slept(&p, 55 * US);
	/* it brought nothing: sleep on the sockets at once */
	assert_int_equal(idle_policy_next(&p, 0, 0, 190 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 400 * US);
	/* woken by a frame after that long: spin, then sleep */
	assert_int_equal(idle_policy_next(&p, 1, 1, 591 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 592 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 593 * US), IDLE_SPIN);
	assert_int_equal(idle_policy_next(&p, 0, 0, 613 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 55 * US);
	/* a frame that ends a sleep shorter than a nap starts naps (frames
	 * come that often); one that ends a longer sleep does not */
	idle_policy_init(&p, 20 * US, 50 * US);
	assert_int_equal(idle_policy_next(&p, 0, 0, 1 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 30 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 12 * US);
	assert_int_equal(idle_policy_next(&p, 1, 1, 43 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 44 * US), IDLE_NAP);
	idle_policy_slept(&p, 55 * US);
	assert_int_equal(idle_policy_next(&p, 0, 0, 100 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 900 * US);
	assert_int_equal(idle_policy_next(&p, 1, 1, 1031 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 1032 * US), IDLE_PASS);
	/* a TX completion reaped after an idle pass is no arrival: no nap,
	 * the spin goes on from the idle pass, then sleep */
	idle_policy_init(&p, 20 * US, 50 * US);
	assert_int_equal(idle_policy_next(&p, 1, 1, 1 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 2 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 3 * US), IDLE_SPIN);
	assert_int_equal(idle_policy_next(&p, 1, 0, 5 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 6 * US), IDLE_SPIN);
	assert_int_equal(idle_policy_next(&p, 0, 0, 23 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 900 * US);
	/* a nap that brings only completions brought nothing: sleep */
	assert_int_equal(idle_policy_next(&p, 1, 1, 1000 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 1001 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 1, 1, 1002 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 1003 * US), IDLE_NAP);
	idle_policy_slept(&p, 55 * US);
	assert_int_equal(idle_policy_next(&p, 2, 0, 1058 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 1059 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 900 * US);
	/* off: never */
	idle_policy_init(&p, 20 * US, 0);
	assert_int_equal(idle_policy_next(&p, 0, 0, 1 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 30 * US), IDLE_SLEEP);
	idle_policy_slept(&p, 1 * US);
	assert_int_equal(idle_policy_next(&p, 1, 1, 43 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 44 * US), IDLE_PASS);
	/* back-to-back work: no nap either */
	idle_policy_init(&p, 20 * US, 50 * US);
	for (uint64_t i = 1; i < 100; i++)
		assert_int_equal(idle_policy_next(&p, 1, 1, i * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 100 * US), IDLE_PASS);
	assert_int_equal(idle_policy_next(&p, 0, 0, 101 * US), IDLE_SPIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_low_rate_naps),
		cmocka_unit_test(test_request_answer_no_wait),
		cmocka_unit_test(test_request_answer_late_completion),
		cmocka_unit_test(test_saturated_never_naps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_xsk_starve.c - the starvation detector's decision
 * (dataplane/xsk/xsk_starve.h) on a fake clock, one sample a second:
 *   - starved: frames posted on the fill ring, none taken, nothing
 *     received, the driver asking to be woken: reported after the window,
 *     not before; kicks while it lasts; "did not help" once after the
 *     give-up time; it ends when the kernel takes from the fill ring or
 *     frames flow, and can begin again;
 *   - the same with arrivals as the evidence: the socket's lost frames,
 *     the device's drops (but not while another queue of the port
 *     delivers: they are per port);
 *   - a quiet link: frames posted and untaken, nothing received, no
 *     evidence: never reported, however long;
 *   - the gateway's own UMEM exhaustion (the fill ring empty, frames
 *     lost for want of one): never reported;
 *   - the gateway's own backlog (a stalled RX task: the RX ring full,
 *     the kernel dropping): never reported;
 *   - evidence that stops before the window does not report; starvation
 *     does not end when only the evidence stops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "xsk_starve.h"

#define S 1000000000ull

/* A socket whose driver holds its buffers and takes nothing: 1024 frames
 * posted, the consumer at 0, nothing received. */
static struct xsk_starve_sample idle(uint64_t t)
{
	struct xsk_starve_sample x = {
		.now_ns = t * S,
		.fill_prod = 1024,
		.fill_cons = 0,
	};
	return x;
}

static void test_starved_need_wakeup(void **state)
{
	struct xsk_starve s;
	struct xsk_starve_sample x;
	enum xsk_starve_action a;
	uint64_t t = 100;

	xsk_starve_init(&s, 2 * S, 10 * S);
	x = idle(t);
	x.need_wakeup = true;
	assert_int_equal(xsk_starve_update(&s, &x),
			 XSK_STARVE_NONE); /* prime */
	/* 1 s of the signature: suspect, not reported */
	x.now_ns = ++t * S;
	assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_NONE);
	assert_int_equal(s.state, XSK_STARVE_SUSPECT);
	assert_false(xsk_starve_is_starved(&s));
	/* 2 s: the window: reported */
	x.now_ns = ++t * S;
	assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_BEGAN);
	assert_true(xsk_starve_is_starved(&s));
	assert_int_equal(s.episodes, 1);
	assert_int_equal(s.ev.since_ns, 100 * S);
	assert_int_equal(s.ev.posted, 1024);
	assert_true(s.ev.need_wakeup);
	/* kicks every second until the give-up time, then once GAVE_UP */
	for (int i = 1; i < 10; i++) {
		x.now_ns = ++t * S;
		assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_KICK);
	}
	x.now_ns = ++t * S;
	assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_GAVE_UP);
	x.now_ns = ++t * S;
	assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_KICK);
	/* the kernel takes from the fill ring (a kick worked): recovered */
	x.fill_cons = 256;
	x.now_ns = ++t * S;
	a = xsk_starve_update(&s, &x);
	assert_int_equal(a, XSK_STARVE_ENDED);
	assert_false(xsk_starve_is_starved(&s));
	assert_int_equal(s.recovered, 1);
	/* and again: a second episode, the window counted from the
	 * sample that ended the first */
	x.need_wakeup = true;
	x.now_ns = ++t * S;
	assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_NONE);
	x.now_ns = ++t * S;
	assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_BEGAN);
	assert_int_equal(s.episodes, 2);
	/* frames flow: recovered */
	x.rx_packets += 10;
	x.port_rx_packets += 10;
	x.now_ns = ++t * S;
	assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_ENDED);
	assert_int_equal(s.state, XSK_STARVE_FLOWING);
	/* a third: the driver stops asking (a kick made it take buffers,
	 * the consumer index not yet published), nothing lost: recovered */
	for (int i = 0; i < 2; i++) {
		x.now_ns = ++t * S;
		xsk_starve_update(&s, &x);
	}
	assert_int_equal(s.episodes, 3);
	x.need_wakeup = false;
	x.now_ns = ++t * S;
	assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_ENDED);
	assert_int_equal(s.state, XSK_STARVE_QUIET);
	assert_int_equal(s.recovered, 3);
}

static void test_starved_by_arrivals(void **state)
{
	struct xsk_starve s;
	struct xsk_starve_sample x;
	uint64_t t = 0;

	/* the socket loses frames (the driver had no buffer) */
	xsk_starve_init(&s, 2 * S, 10 * S);
	x = idle(t);
	xsk_starve_update(&s, &x);
	for (int i = 0; i < 2; i++) {
		x.now_ns = ++t * S;
		x.xsk_lost += 50;
		xsk_starve_update(&s, &x);
	}
	assert_true(xsk_starve_is_starved(&s));
	assert_int_equal(s.ev.xsk_lost, 100);
	/* the sender stops: no more evidence, but nothing was taken or
	 * received and the driver never said it was fine: still starved */
	for (int i = 0; i < 5; i++) {
		x.now_ns = ++t * S;
		assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_KICK);
	}
	assert_true(xsk_starve_is_starved(&s));

	/* the device drops while the port delivers nothing */
	xsk_starve_init(&s, 2 * S, 10 * S);
	x = idle(t = 0);
	xsk_starve_update(&s, &x);
	for (int i = 0; i < 2; i++) {
		x.now_ns = ++t * S;
		x.dev_drops += 7;
		xsk_starve_update(&s, &x);
	}
	assert_true(xsk_starve_is_starved(&s));
	assert_int_equal(s.ev.dev_drops, 14);

	/* the device drops while another queue of the port delivers: the
	 * drops cannot be this queue's evidence */
	xsk_starve_init(&s, 2 * S, 10 * S);
	x = idle(t = 0);
	xsk_starve_update(&s, &x);
	for (int i = 0; i < 10; i++) {
		x.now_ns = ++t * S;
		x.dev_drops += 7;
		x.port_rx_packets += 1000;
		assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_NONE);
	}
	assert_int_equal(s.state, XSK_STARVE_QUIET);
	assert_int_equal(s.episodes, 0);
}

static void test_quiet_link(void **state)
{
	struct xsk_starve s;
	struct xsk_starve_sample x;

	xsk_starve_init(&s, 2 * S, 10 * S);
	x = idle(0);
	for (uint64_t t = 0; t < 600; t++) {
		x.now_ns = t * S;
		assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_NONE);
	}
	assert_int_equal(s.state, XSK_STARVE_QUIET);
	assert_int_equal(s.episodes, 0);
}

static void test_own_exhaustion(void **state)
{
	struct xsk_starve s;
	struct xsk_starve_sample x;

	/* every frame of the partition held by the gateway (a class queue):
	 * nothing on the fill ring, the kernel finds it empty for each
	 * arriving frame, the device may drop too */
	xsk_starve_init(&s, 2 * S, 10 * S);
	x = idle(0);
	x.fill_prod = x.fill_cons = 4096;
	for (uint64_t t = 0; t < 60; t++) {
		x.now_ns = t * S;
		x.xsk_lost += 1000;
		x.dev_drops += 3;
		assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_NONE);
	}
	assert_int_equal(s.state, XSK_STARVE_EXHAUSTED);
	assert_int_equal(s.episodes, 0);
	/* frames come back and are posted: the kernel takes them at once */
	for (uint64_t t = 60; t < 70; t++) {
		x.now_ns = t * S;
		x.fill_prod += 100;
		x.fill_cons += 100;
		x.rx_packets += 100;
		assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_NONE);
	}
	assert_int_equal(s.state, XSK_STARVE_FLOWING);
}

static void test_own_backlog(void **state)
{
	struct xsk_starve s;
	struct xsk_starve_sample x;

	xsk_starve_init(&s, 2 * S, 10 * S);
	x = idle(0);
	x.rx_pending = 1024;
	for (uint64_t t = 0; t < 60; t++) {
		x.now_ns = t * S;
		x.xsk_lost += 500; /* rx_ring_full */
		assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_NONE);
	}
	assert_int_equal(s.state, XSK_STARVE_BACKLOG);
	assert_int_equal(s.episodes, 0);
}

static void test_short_evidence(void **state)
{
	struct xsk_starve s;
	struct xsk_starve_sample x;

	/* the driver asks for 1 s, then holds its buffers again: a wake-up
	 * that came late is not starvation */
	xsk_starve_init(&s, 2 * S, 10 * S);
	x = idle(0);
	xsk_starve_update(&s, &x);
	x.need_wakeup = true;
	x.now_ns = 1 * S;
	assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_NONE);
	assert_int_equal(s.state, XSK_STARVE_SUSPECT);
	x.need_wakeup = false;
	x.now_ns = 2 * S;
	assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_NONE);
	assert_int_equal(s.state, XSK_STARVE_QUIET);
	x.now_ns = 3 * S;
	assert_int_equal(xsk_starve_update(&s, &x), XSK_STARVE_NONE);
	assert_int_equal(s.episodes, 0);
	assert_string_equal(xsk_starve_state_name(s.state), "quiet");
	assert_string_equal(xsk_starve_state_name(XSK_STARVE_STARVED),
			    "starved");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_starved_need_wakeup),
		cmocka_unit_test(test_starved_by_arrivals),
		cmocka_unit_test(test_quiet_link),
		cmocka_unit_test(test_own_exhaustion),
		cmocka_unit_test(test_own_backlog),
		cmocka_unit_test(test_short_evidence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

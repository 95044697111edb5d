// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_dcqcn_np.c - DCQCN's notification point (dataplane/cc/dcqcn.c):
 * the immediate CNP for the first marked packet, deferred and coalesced
 * CNPs, bursts and the intervals between CNPs, on a fake clock.
 */
#include "test_dcqcn.h"

/* ======================= NP ======================= */

/* The first marked packet: a CNP at once; nothing is left pending. */
static void test_np_first_marked_immediate(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_np np;

	dcqcn_np_init(&np);
	assert_true(dcqcn_np_next_ns(&np) == NEVER);
	assert_false(dcqcn_np_poll(&np, &p, 1000 * US));
	assert_true(dcqcn_np_on_marked(&np, &p, 10 * US));
	assert_true(dcqcn_np_next_ns(&np) == NEVER);
	assert_false(dcqcn_np_poll(&np, &p, 60 * US));
	assert_false(dcqcn_np_poll(&np, &p, 1000 * US));
}

/*
 * N = 50 us. Marked at 10 (CNP), 20, 30 (coalesced): one deferred CNP at
 * 60; its window [60, 110): marked at 70 -> CNP at 110; window [110, 160)
 * passes unmarked; marked at 200: immediate. Without a poll: marked at
 * 300 (CNP), 310, then 350 = window end: one CNP for both, window from
 * 350: marked at 399.999 us waits for 400.
 */
static void test_np_deferred_and_coalesced(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_np np;

	dcqcn_np_init(&np);
	assert_true(dcqcn_np_on_marked(&np, &p, 10 * US));
	assert_false(dcqcn_np_on_marked(&np, &p, 20 * US));
	assert_false(dcqcn_np_on_marked(&np, &p, 30 * US));
	assert_int_equal(dcqcn_np_next_ns(&np), 60 * US);
	assert_false(dcqcn_np_poll(&np, &p, 60 * US - 1));
	assert_true(dcqcn_np_poll(&np, &p, 60 * US));
	assert_false(dcqcn_np_poll(&np, &p, 60 * US));
	assert_true(dcqcn_np_next_ns(&np) == NEVER);
	assert_false(dcqcn_np_on_marked(&np, &p, 70 * US));
	assert_int_equal(dcqcn_np_next_ns(&np), 110 * US);
	assert_true(dcqcn_np_poll(&np, &p, 110 * US));
	assert_false(dcqcn_np_poll(&np, &p, 160 * US));
	assert_true(dcqcn_np_on_marked(&np, &p, 200 * US));

	assert_true(dcqcn_np_on_marked(&np, &p, 300 * US));
	assert_false(dcqcn_np_on_marked(&np, &p, 310 * US));
	assert_true(dcqcn_np_on_marked(&np, &p, 350 * US));
	assert_true(dcqcn_np_next_ns(&np) == NEVER);
	assert_false(dcqcn_np_on_marked(&np, &p, 400 * US - 1));
	assert_int_equal(dcqcn_np_next_ns(&np), 400 * US);
}

/*
 * A burst: a marked packet every 1 us from 0 to 199 us, the caller polling
 * before each: CNPs at 0 (immediate), 50, 100, 150, 200 (deferred, each
 * window starting at the previous CNP), none at 250 (no mark in
 * [200, 250)). A late poll: marked at 0 and 10, polled at 75 -> CNP at 75,
 * the window runs [75, 125).
 */
static void test_np_burst(void **state)
{
	struct dcqcn_params p = paper(40 * G);
	struct dcqcn_np np;
	uint64_t sent[16];
	int n = 0;

	dcqcn_np_init(&np);
	for (uint64_t t = 0; t < 200 * US; t += US) {
		if (dcqcn_np_poll(&np, &p, t))
			sent[n++] = t;
		if (dcqcn_np_on_marked(&np, &p, t))
			sent[n++] = t;
		assert_true(n < 16);
	}
	for (uint64_t t = 200 * US; t <= 300 * US; t += US)
		if (dcqcn_np_poll(&np, &p, t))
			sent[n++] = t;
	assert_int_equal(n, 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(sent[i], i * 50 * US);

	dcqcn_np_init(&np);
	assert_true(dcqcn_np_on_marked(&np, &p, 0));
	assert_false(dcqcn_np_on_marked(&np, &p, 10 * US));
	assert_true(dcqcn_np_poll(&np, &p, 75 * US));
	assert_false(dcqcn_np_on_marked(&np, &p, 100 * US));
	assert_false(dcqcn_np_poll(&np, &p, 125 * US - 1));
	assert_true(dcqcn_np_poll(&np, &p, 125 * US));
}

/* The ConnectX interval (4 us), and N = 0: a CNP per marked packet. */
static void test_np_intervals(void **state)
{
	struct dcqcn_params p = connectx(40 * G);
	struct dcqcn_np np;

	dcqcn_np_init(&np);
	assert_true(dcqcn_np_on_marked(&np, &p, 0));
	assert_false(dcqcn_np_on_marked(&np, &p, 1 * US));
	assert_int_equal(dcqcn_np_next_ns(&np), 4 * US);
	assert_true(dcqcn_np_poll(&np, &p, 4 * US));

	p.np_interval_ns = 0;
	dcqcn_np_init(&np);
	for (int i = 0; i < 5; i++)
		assert_true(dcqcn_np_on_marked(&np, &p, 7 * US));
	assert_true(dcqcn_np_next_ns(&np) == NEVER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_np_first_marked_immediate),
		cmocka_unit_test(test_np_deferred_and_coalesced),
		cmocka_unit_test(test_np_burst),
		cmocka_unit_test(test_np_intervals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * test_stor_proto - unit tests (cmocka) for storgen's datagram header, the
 * receiver's loss accounting and the sender's pacing arithmetic, the last
 * driven by a fake clock (a plain variable the test advances).
 *
 * Single-threaded; no I/O, no real time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "stor_proto.h"

static const uint8_t addr_a[16] = {[10] = 0xff, [11] = 0xff, 10, 0, 0, 1};
static const uint8_t addr_b[16] = {[10] = 0xff, [11] = 0xff, 10, 0, 0, 2};

static struct stor_hdr hdr(uint32_t id, uint64_t seq, bool fin)
{
	struct stor_hdr h = {.magic = STOR_MAGIC,
			     .hdr_len = STOR_HDR_LEN,
			     .flags = fin ? STOR_F_FIN : 0,
			     .sender_id = id,
			     .seq = seq,
			     .send_ns = 12345};
	return h;
}

static void test_hdr_roundtrip(void **state)
{
	uint8_t buf[64];
	struct stor_hdr h = hdr(7, 0x0102030405060708ull, true), g;

	(void)state;
	stor_put(buf, &h);
	assert_true(stor_get(buf, sizeof(buf), &g));
	assert_int_equal(g.seq, h.seq);
	assert_int_equal(g.sender_id, 7);
	assert_int_equal(g.flags, STOR_F_FIN);
	assert_int_equal(g.send_ns, 12345);
	/* too short, never read past the buffer */
	assert_false(stor_get(buf, STOR_HDR_LEN - 1, &g));
	/* not ours */
	buf[0] ^= 1;
	assert_false(stor_get(buf, sizeof(buf), &g));
}

/* seq 0..9 sent, 3, 4, 8, 9 lost: the FIN makes the tail loss visible */
static void test_loss_with_fin(void **state)
{
	struct stor_src tab[4] = {0};
	struct stor_src *s;
	uint64_t q;

	(void)state;
	for (q = 0; q < 10; q++) {
		struct stor_hdr h = hdr(1, q, false);

		if (q == 3 || q == 4 || q >= 8)
			continue;
		s = stor_src_find(tab, 4, addr_a, 5000, 1);
		assert_non_null(s);
		stor_src_account(s, &h);
	}
	s = stor_src_find(tab, 4, addr_a, 5000, 1);
	assert_int_equal(s->received, 6);
	/* without the FIN only the gap shows */
	assert_int_equal(stor_src_expected(s), 8);
	assert_int_equal(stor_src_lost(s), 2);
	{
		struct stor_hdr f = hdr(1, 10, true);

		stor_src_account(s, &f);
		stor_src_account(s, &f); /* FINs are repeated: idempotent */
	}
	assert_int_equal(s->received, 6);
	assert_int_equal(stor_src_expected(s), 10);
	assert_int_equal(stor_src_lost(s), 4);
}

static void test_loss_reorder_and_dup(void **state)
{
	static const uint64_t order[] = {2, 0, 1, 5, 4};
	struct stor_src tab[2] = {0};
	struct stor_src *s = stor_src_find(tab, 2, addr_a, 1, 9);
	size_t k;

	(void)state;
	for (k = 0; k < 5; k++) {
		struct stor_hdr h = hdr(9, order[k], false);

		stor_src_account(s, &h);
	}
	assert_int_equal(s->max_seq, 5);
	assert_int_equal(stor_src_lost(s), 1); /* seq 3 */
	/* duplicates are not removed, but the loss never goes negative */
	for (k = 0; k < 3; k++) {
		struct stor_hdr h = hdr(9, 5, false);

		stor_src_account(s, &h);
	}
	assert_int_equal(stor_src_lost(s), 0);
	/* nothing received: nothing expected */
	memset(s, 0, sizeof(*s));
	assert_int_equal(stor_src_expected(s), 0);
}

static void test_src_table(void **state)
{
	struct stor_src tab[2] = {0};
	struct stor_src *a, *b;

	(void)state;
	a = stor_src_find(tab, 2, addr_a, 100, 1);
	b = stor_src_find(tab, 2, addr_b, 100, 1);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_ptr_equal(stor_src_find(tab, 2, addr_a, 100, 1), a);
	/* same address and port, restarted sender: a new stream; full */
	assert_null(stor_src_find(tab, 2, addr_a, 100, 2));
	assert_null(stor_src_find(tab, 2, addr_a, 101, 1));
}

static void test_due_edges(void **state)
{
	(void)state;
	assert_int_equal(stor_due(999, 1000, 10, 5), 0);
	assert_int_equal(stor_due(1000, 1000, 10, 5), 1);
	assert_int_equal(stor_due(1009, 1000, 10, 5), 1);
	assert_int_equal(stor_due(1010, 1000, 10, 5), 2);
	assert_int_equal(stor_due(5000, 1000, 10, 5), 5);
	assert_int_equal(stor_due(1000, 1000, 0, 5), 5); /* no pacing */
	assert_int_equal(stor_wake(1000, 1000, 10, 3, 250), 1250);
	assert_int_equal(stor_wake(1000, 1000, 1000, 3, 250), 4000);
}

/*
 * The sender's loop on a fake clock: every wake-up sends what is due, then
 * sleeps until stor_wake (plus some oversleep, as a real timer has). No
 * datagram leaves before its due time, the burst keeps the rate, and the
 * number of wake-ups is bounded by the burst's length / min_sleep.
 */
static void pace_run(uint64_t n, uint64_t gap, uint64_t min_sleep,
		     uint64_t oversleep)
{
	const uint64_t start = 1000000;
	uint64_t now = start, i = 0, wakeups = 0, end;

	while (i < n) {
		uint64_t due = stor_due(now, start, gap, n);

		wakeups++;
		assert_true(due >= i);
		while (i < due) {
			/* sent at now: never before start + i * gap */
			assert_true(now >= start + i * gap);
			i++;
		}
		if (i == n)
			break;
		now = stor_wake(now, start, gap, i, min_sleep) + oversleep;
	}
	end = now;
	/* the last one left within one sleep of its due time */
	assert_true(end <= start + (n - 1) * gap + min_sleep + oversleep);
	assert_true(wakeups <=
		    ((n - 1) * gap) / (min_sleep > gap ? min_sleep : gap) + 2);
}

static void test_pacing_fake_clock(void **state)
{
	(void)state;
	/* 1442-byte frames at 1 Gbit/s: 11536 ns apart, batched per 250 us */
	pace_run(728, 11536, 250000, 0);
	pace_run(728, 11536, 250000, 60000);
	/* 10 Mbit/s: 1.15 ms apart, one wake-up per datagram */
	pace_run(100, 1153600, 250000, 0);
	pace_run(100, 1153600, 250000, 50000);
	pace_run(1, 1000, 250000, 0);
}

static void test_next_burst(void **state)
{
	bool over;

	(void)state;
	assert_int_equal(stor_next_burst(0, 3, 100, 250, &over), 300);
	assert_false(over);
	/* the previous burst ran past the grid: start right after it */
	assert_int_equal(stor_next_burst(0, 3, 100, 320, &over), 320);
	assert_true(over);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hdr_roundtrip),
		cmocka_unit_test(test_loss_with_fin),
		cmocka_unit_test(test_loss_reorder_and_dup),
		cmocka_unit_test(test_src_table),
		cmocka_unit_test(test_due_edges),
		cmocka_unit_test(test_pacing_fake_clock),
		cmocka_unit_test(test_next_burst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_frame_flow.c - the RX task, the egress task and the frame census,
 * against a fake kernel (tests/lib/fake_xsk.h): the four rings of each
 * socket are plain memory, and the test plays the kernel's part (fill ->
 * RX on receive, TX -> completion on transmit). Checks that frames are
 * forwarded in order with their lengths, that every loss is counted by
 * reason, that frames come back to their owner, and that the census finds
 * every frame exactly once (and notices a leak or a double when one is
 * made on purpose), and that the steering program's arrival stamp is
 * taken off a frame and kept as its path event's time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "egress.h"
#include "fake_xsk.h"
#include "frame_chain.h"
#include "pathmon_ring.h"
#include "pkt_build.h"
#include "rx_task.h"
#include "umem.h"
#include "xsk_queue.h"

struct flow {
	struct qos_policy pol;
	struct classifier cls;
	struct umem_area umem;
	struct fake_socket a, b;
	struct handoff_ring ho;
	struct return_ring ret;
	struct rx_task rx;
	struct egress_task eg;
};

static int setup(void **state)
{
	struct flow *f = NULL;

	/* The tasks hold cache-line aligned counters. */
	assert_int_equal(posix_memalign((void **)&f, 64, sizeof(*f)), 0);
	memset(f, 0, sizeof(*f));

	/* 2 partitions of 512 frames; this test uses partition 0 (A's). */
	assert_int_equal(umem_area_init_plain(&f->umem, 1024, 2048, 2), 0);
	fake_socket_init(&f->a, 0);
	fake_socket_init(&f->b, 0);
	assert_int_equal(handoff_ring_init(&f->ho, 64), 0);
	assert_int_equal(return_ring_init(&f->ret, 512), 0);
	/* One FIFO class, port unshaped: frames leave as they come. */
	f->pol.n_classes = 1;
	snprintf(f->pol.classes[0].name, QOS_NAME_MAX, "default");
	f->pol.classes[0].quantum = 9000;
	f->pol.classes[0].limit_packets = 1024;
	f->pol.classes[0].limit_bytes = 1 << 22;
	assert_int_equal(classifier_build(&f->cls, &f->pol), 0);
	assert_int_equal(rx_task_init(&f->rx, &f->a.q, &f->umem, 0, &f->cls,
				      &f->ho, 32, 2048 - FAKE_HEADROOM),
			 0);
	rx_task_add_return(&f->rx, &f->ret);
	assert_int_equal(
		egress_task_init(&f->eg, &f->b.q, &f->umem, 32, &f->pol, 1, 0),
		0);
	f->eg.copy_mode = false; /* no kicks: the fake kernel needs none */
	assert_int_equal(egress_task_add_input(&f->eg, &f->ho, 0, &f->ret), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct flow *f = *state;

	fake_unit_fini(&f->rx, &f->ho, &f->eg, &f->ret);
	umem_area_fini(&f->umem);
	free(f);
	return 0;
}

/* Frames of partition 0 found, given that partition 1 is not in use. */
static uint64_t census(struct flow *f, uint64_t *doubles)
{
	struct umem_census c;
	uint64_t found;

	assert_int_equal(umem_census_init(&c, &f->umem), 0);
	fake_unit_census(&c, &f->rx, &f->ho, &f->eg, &f->ret, &f->a, &f->b);
	found = c.found;
	*doubles = c.doubles + c.strays;
	umem_census_fini(&c);
	return found;
}

static void test_forward_in_order(void **state)
{
	struct flow *f = *state;
	uint32_t lens[FAKE_RING], sent = 0, rounds, i, n;
	uint64_t doubles;

	rx_task_refill(&f->rx);
	assert_int_equal(f->a.fill.producer, FAKE_RING); /* fill ring full */
	for (rounds = 0; rounds < 100; rounds++) {
		fake_kernel_rx(&f->a, &f->umem, NULL, 60 + rounds, 20);
		rx_task_poll(&f->rx);
		egress_task_poll(&f->eg);
		n = fake_kernel_tx(&f->b, lens, FAKE_RING);
		for (i = 0; i < n; i++)
			assert_int_equal(lens[i], 60 + rounds);
		sent += n;
		egress_task_poll(&f->eg); /* reap completions */
		assert_int_equal(census(f, &doubles), 512);
		assert_int_equal(doubles, 0);
	}
	assert_int_equal(sent, 2000);
	assert_int_equal(ctr_read(&f->rx.ctr.packets), 2000);
	assert_int_equal(ctr_read(&f->eg.ctr.packets), 2000);
	assert_int_equal(ctr_read(&f->rx.ctr.drop_handoff_full), 0);
	assert_int_equal(f->eg.outstanding, 0);
}

static void test_handoff_full_counted(void **state)
{
	struct flow *f = *state;
	uint64_t doubles;
	uint32_t lens[FAKE_RING];

	rx_task_refill(&f->rx);
	/* 4 bursts of 32 with no egress pass: the 64-slot handoff ring
	 * takes 64, the other 64 are dropped and counted. */
	for (int i = 0; i < 4; i++) {
		fake_kernel_rx(&f->a, &f->umem, NULL, 100, 32);
		rx_task_poll(&f->rx);
	}
	assert_int_equal(ctr_read(&f->rx.ctr.drop_handoff_full), 64);
	assert_int_equal(census(f, &doubles), 512);
	while (egress_task_poll(&f->eg))
		fake_kernel_tx(&f->b, lens, FAKE_RING);
	assert_int_equal(ctr_read(&f->eg.ctr.packets), 64);
	/* Every frame went home: pool + fill ring hold all 512. */
	rx_task_poll(&f->rx);
	assert_int_equal(f->rx.pool.count +
				 (f->a.fill.producer - f->a.fill.consumer),
			 512);
}

static void test_invalid_desc_counted(void **state)
{
	struct flow *f = *state;
	uint64_t doubles;

	rx_task_refill(&f->rx);
	fake_kernel_rx(&f->a, &f->umem, NULL, 2048,
		       3); /* longer than a frame can hold */
	fake_kernel_rx(&f->a, &f->umem, NULL, 64, 2);
	rx_task_poll(&f->rx);
	assert_int_equal(ctr_read(&f->rx.ctr.packets), 5);
	assert_int_equal(ctr_read(&f->rx.ctr.drop_invalid_desc), 3);
	assert_int_equal(handoff_ring_count(&f->ho), 2);
	assert_int_equal(census(f, &doubles), 512);
	assert_int_equal(doubles, 0);
}

/* The kernel puts one descriptor on the RX ring as it is. */
static void post_rx(struct fake_socket *s, uint64_t addr, uint32_t len)
{
	struct xdp_desc *d = &s->rx.descs[s->rx.producer++ % FAKE_RING];

	d->addr = addr;
	d->len = len;
	d->options = 0;
}

/* Descriptors no kernel could produce: a frame of another partition, an
 * address past the UMEM or far beyond it (none came from this task's fill
 * ring), and one of our frames whose bytes run past its end. Each is
 * counted and dropped; only the last, ours, goes back to the pool, and no
 * byte past a frame is forwarded. */
static void test_foreign_desc_never_pooled(void **state)
{
	struct flow *f = *state;
	uint64_t doubles, own;
	uint32_t pooled;

	rx_task_refill(&f->rx);
	pooled = f->rx.pool.count;
	post_rx(&f->a, 512ull * 2048 + FAKE_HEADROOM, 64); /* partition 1 */
	post_rx(&f->a, 1024ull * 2048 + FAKE_HEADROOM, 64); /* past the UMEM */
	post_rx(&f->a, 1ull << 40, 64);
	/* our frame from the fill ring, 100 bytes from 2000: past its end */
	own = f->a.fill.addrs[f->a.fill.consumer++ % FAKE_RING];
	post_rx(&f->a, own + 2000, 100);
	rx_task_poll(&f->rx);
	assert_int_equal(ctr_read(&f->rx.ctr.packets), 4);
	assert_int_equal(ctr_read(&f->rx.ctr.drop_invalid_desc), 4);
	assert_int_equal(handoff_ring_count(&f->ho), 0);
	/* the pool got back our frame and nothing else (the refill in the
	 * same poll moved it to the fill ring, which had room for one) */
	assert_int_equal(f->rx.pool.count +
				 (f->a.fill.producer - f->a.fill.consumer),
			 pooled + FAKE_RING);
	for (uint32_t i = 0; i < f->rx.pool.count; i++)
		assert_int_equal(umem_owner(&f->umem, f->rx.pool.addrs[i]), 0);
	assert_int_equal(census(f, &doubles), 512);
	assert_int_equal(doubles, 0);
}

/* rx_task_init() sets the whole task, whatever the memory held. */
static void test_rx_init_owns_struct(void **state)
{
	struct flow *f = *state;
	struct rx_task *t = NULL;

	assert_int_equal(posix_memalign((void **)&t, 64, sizeof(*t)), 0);
	memset(t, 0xa5, sizeof(*t));
	assert_int_equal(rx_task_init(t, &f->a.q, &f->umem, 1, &f->cls, &f->ho,
				      32, 2048 - FAKE_HEADROOM),
			 0);
	assert_int_equal(t->n_ret, 0);
	assert_int_equal(t->n_fb, 0);
	assert_false(t->dcqcn);
	assert_false(t->absorb_cnps);
	assert_false(t->pfc);
	assert_false(t->in_chain);
	assert_int_equal(ctr_read(&t->ctr.packets), 0);
	assert_int_equal(ctr_read(&t->ctr.drop_invalid_desc), 0);
	assert_int_equal(t->pool.count, 512);
	rx_task_fini(t);
	free(t);
}

/* tx packets count what went on the TX ring; completed, what the kernel
 * said it sent: they differ until the completions are reaped. */
static void test_tx_submitted_and_completed(void **state)
{
	struct flow *f = *state;
	uint32_t lens[FAKE_RING];

	rx_task_refill(&f->rx);
	fake_kernel_rx(&f->a, &f->umem, NULL, 100, 20);
	rx_task_poll(&f->rx);
	egress_task_poll(&f->eg);
	assert_int_equal(ctr_read(&f->eg.ctr.packets), 20);
	assert_int_equal(ctr_read(&f->eg.ctr.completed), 0);
	assert_int_equal(fake_kernel_tx(&f->b, lens, FAKE_RING), 20);
	egress_task_poll(&f->eg);
	assert_int_equal(ctr_read(&f->eg.ctr.completed), 20);
	assert_int_equal(f->eg.outstanding, 0);
}

static void test_census_detects_leak_and_double(void **state)
{
	struct flow *f = *state;
	uint64_t doubles, a;

	rx_task_refill(&f->rx);
	/* Leak: a frame taken from the pool and put nowhere. */
	a = f->rx.pool.addrs[--f->rx.pool.count];
	assert_int_equal(census(f, &doubles), 511);
	/* Double: the same frame in the pool twice. */
	frame_pool_put(&f->rx.pool, a);
	frame_pool_put(&f->rx.pool, a);
	assert_int_equal(census(f, &doubles), 512);
	assert_int_equal(doubles, 1);
}

/* A zero-copy driver takes frames from the fill ring into its receive
 * queue and descriptors from the TX ring into its transmit queue, and
 * holds them there, in no ring: the census counts them from the rings'
 * indices (uncounted), so that found + uncounted is every frame, and a
 * frame leaked beside them is still missing. */
static void test_census_counts_driver_held(void **state)
{
	struct flow *f = *state;
	struct umem_census c;
	uint32_t n;

	rx_task_refill(&f->rx);
	assert_int_equal(fake_kernel_rx(&f->a, &f->umem, NULL, 60, 32), 32);
	rx_task_poll(&f->rx);
	egress_task_poll(&f->eg);
	n = fake_load(&f->b.tx.producer) - f->b.tx.consumer;
	assert_int_equal(n, 32);
	/* the driver: 100 fill entries and 30 TX descriptors taken, held */
	fake_store(&f->a.fill.consumer, f->a.fill.consumer + 100);
	fake_store(&f->b.tx.consumer, f->b.tx.consumer + 30);

	assert_int_equal(umem_census_init(&c, &f->umem), 0);
	fake_unit_census(&c, &f->rx, &f->ho, &f->eg, &f->ret, &f->a, &f->b);
	assert_int_equal(c.uncounted, 130);
	assert_int_equal(c.found, 512 - 130);
	assert_int_equal(c.doubles + c.strays, 0);
	umem_census_fini(&c);

	/* a leak beside them: one frame from the pool, put nowhere */
	f->rx.pool.count--;
	assert_int_equal(umem_census_init(&c, &f->umem), 0);
	fake_unit_census(&c, &f->rx, &f->ho, &f->eg, &f->ret, &f->a, &f->b);
	assert_int_equal(c.uncounted, 130);
	assert_int_equal(c.found, 512 - 131);
	umem_census_fini(&c);

	/* the driver gives them back: received, sent and completed */
	fake_store(&f->a.fill.consumer, f->a.fill.consumer - 100);
	fake_store(&f->b.tx.consumer, f->b.tx.consumer - 30);
	f->rx.pool.count++;
	assert_int_equal(umem_census_init(&c, &f->umem), 0);
	fake_unit_census(&c, &f->rx, &f->ho, &f->eg, &f->ret, &f->a, &f->b);
	assert_int_equal(c.uncounted, 0);
	assert_int_equal(c.found, 512);
	umem_census_fini(&c);
}

static void test_owner_is_partition(void **state)
{
	struct flow *f = *state;

	assert_int_equal(umem_owner(&f->umem, 0), 0);
	assert_int_equal(umem_owner(&f->umem, 511ull * 2048 + 2047), 0);
	assert_int_equal(umem_owner(&f->umem, 512ull * 2048), 1);
	assert_int_equal(umem_frame_start(&f->umem, 5 * 2048 + 256), 5 * 2048);
}

/* The steering program's arrival stamp (steer_abi.h) in front of a frame:
 * taken off before anything else (the frame leaves as it came), and the
 * path event of a returning ACK carries it as its time (not the pass's
 * now, which after a nap is the nap's end). A frame without one: the
 * pass's now; a stamp after now: now. */
static void test_arrival_stamp(void **state)
{
	struct flow *f = *state;
	struct qos_policy pol = f->pol;
	struct pathmon_ring ring;
	struct pathmon_ack ev;
	struct steer_rx_stamp st = {.magic = STEER_RX_STAMP_MAGIC};
	static uint8_t buf[2048 + sizeof(struct steer_rx_stamp)];
	uint32_t len, lens[4];
	const uint64_t now = 5000000000ull;
	const struct {
		bool stamped;
		uint64_t rx_ns, want;
	} cases[] = {
		{true, now - 700000, now - 700000},
		{false, 0, now},
		{true, now + 1000, now},
	};

	(void)state;
	assert_int_equal(pathmon_ring_init(&ring, 64), 0);
	assert_int_equal(rx_task_add_path(&f->rx, &ring, 0), 0);
	pol.port[0].rate_bps = 1000000000;
	pol.port[0].adaptive.on = true;
	rx_task_set_policy(&f->rx, &pol);
	rx_task_refill(&f->rx);
	for (uint32_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint32_t off = cases[i].stamped ? sizeof(st) : 0;
		const struct xdp_desc *d;

		/* a pure ACK from B to A: the reverse of A's flow */
		len = tcp_frame(buf + off, 2, 1, 5001, 40000, 1, 1000 + i, 0x10,
				9, 7, 0);
		st.rx_ns = cases[i].rx_ns;
		if (off)
			memcpy(buf, &st, sizeof(st));
		assert_int_equal(
			fake_kernel_rx(&f->a, &f->umem, buf, len + off, 1), 1);
		assert_true(rx_task_poll_at(&f->rx, now) >= 1);
		assert_int_equal(pathmon_ring_dequeue(&ring, &ev, 1), 1);
		assert_int_equal(ev.seen_ns, cases[i].want);
		assert_int_equal(ev.ack, 1000 + i);
		egress_task_poll(&f->eg);
		d = &f->b.tx.descs[f->b.tx.consumer % FAKE_RING];
		assert_int_equal(d->len, len);
		assert_memory_equal((uint8_t *)f->umem.base + d->addr,
				    buf + off, len);
		assert_int_equal(fake_kernel_tx(&f->b, lens, 4), 1);
		egress_task_poll(&f->eg); /* reap the completion */
	}
	assert_int_equal(ctr_read(&f->rx.ctr.path_events), 3);
	pathmon_ring_fini(&ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_forward_in_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_handoff_full_counted,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_desc_counted,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_census_detects_leak_and_double, setup, teardown),
		cmocka_unit_test_setup_teardown(test_census_counts_driver_held,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_desc_never_pooled,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_rx_init_owns_struct, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tx_submitted_and_completed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_owner_is_partition, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_arrival_stamp, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_policy_switch.c - live reload between the control thread and the
 * workers (policy.h, worker.h), on fake sockets (fake_xsk.h):
 *  - a worker whose egress task refuses a generation stays entirely on its
 *    own (every egress task, every RX classifier, applied_gen), says so in
 *    refused_gen, and its queued frames are kept;
 *  - policy_publish() rolls every worker back when one refuses, so that no
 *    two workers run different generations, and reports the failure;
 *  - hundreds of publications while real worker threads forward frames
 *    that a fake kernel thread feeds: every one applied, every frame found
 *    exactly once afterwards (the census). CI runs this one under TSan.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "egress.h"
#include "fake_xsk.h"
#include "policy.h"
#include "rx_task.h"
#include "worker.h"

#define FRAME 2048
#define PART 512 /* frames per partition, one partition per unit */
#define UNITS 2
#define MAX_LEN (FRAME - FAKE_HEADROOM)

/* Policy A: one class. Policy B: a strict class in front of it, so that
 * every class moves to another slot and class id. */
static void policy(struct qos_policy *p, bool two)
{
	struct qos_class *c;

	memset(p, 0, sizeof(*p));
	p->n_classes = two ? 2 : 1;
	for (uint32_t i = 0; i < p->n_classes; i++) {
		c = &p->classes[i];
		snprintf(c->name, QOS_NAME_MAX, "%s",
			 two && i == 0 ? "hi" : "default");
		c->level = (uint8_t)i;
		c->quantum = 9000;
		c->limit_packets = 1024;
		c->limit_bytes = 1 << 22;
	}
	p->default_class = two ? 1 : 0;
}

static struct policy_gen *gen_new(bool two, uint64_t gen)
{
	struct policy_gen *g = calloc(1, sizeof(*g));

	assert_non_null(g);
	g->gen = gen;
	policy(&g->qos, two);
	assert_int_equal(classifier_build(&g->cls, &g->qos), 0);
	return g;
}

/* One worker unit: RX of socket a hands to the egress task of socket b. */
struct unit {
	struct fake_socket a, b;
	struct handoff_ring ho;
	struct return_ring ret;
	struct rx_task rx;
	struct egress_task eg;
};

struct bed {
	struct umem_area umem;
	struct policy_gen *live;
	struct unit u[UNITS];
	struct worker w[UNITS];
	uint8_t frame[64];
	pthread_t kernel;
	int stop;
	uint64_t received;
};

/* Unit i on worker i; reloadable: whether its egress task's scheduler
 * takes reconfigurations (one that does not stands for any refusal). */
static void unit_init(struct bed *b, uint32_t i, bool reloadable)
{
	struct unit *u = &b->u[i];

	fake_socket_init(&u->a, 0);
	fake_socket_init(&u->b, 0);
	assert_int_equal(handoff_ring_init(&u->ho, 256), 0);
	assert_int_equal(return_ring_init(&u->ret, PART), 0);
	assert_int_equal(rx_task_init(&u->rx, &u->a.q, &b->umem, i,
				      &b->live->cls, &u->ho, 32, MAX_LEN),
			 0);
	rx_task_add_return(&u->rx, &u->ret);
	assert_int_equal(egress_task_init(&u->eg, &u->b.q, &b->umem, 32,
					  &b->live->qos, 1,
					  reloadable ? PART : 0),
			 0);
	u->eg.copy_mode = false; /* the fake kernel needs no kicks */
	u->eg.cls = &b->live->cls;
	u->eg.dcq = &b->live->qos.dcqcn;
	assert_int_equal(egress_task_add_input(&u->eg, &u->ho, i, &u->ret), 0);
	rx_task_refill(&u->rx);
	const struct worker_poll poll = {.busy_us = 1000, .coalesce_us = 50};

	assert_int_equal(worker_init(&b->w[i], i, -1, &poll, &b->live), 0);
	assert_int_equal(worker_add_rx(&b->w[i], &u->rx), 0);
	assert_int_equal(worker_add_egress(&b->w[i], &u->eg), 0);
}

static struct bed *bed_new(bool reloadable1)
{
	struct bed *b = NULL;

	assert_int_equal(posix_memalign((void **)&b, 64, sizeof(*b)), 0);
	memset(b, 0, sizeof(*b));
	assert_int_equal(
		umem_area_init_plain(&b->umem, UNITS * PART, FRAME, UNITS), 0);
	b->live = gen_new(false, 1);
	/* an IPv4/UDP frame */
	b->frame[12] = 0x08;
	b->frame[14] = 0x45;
	b->frame[17] = 50;
	b->frame[22] = 64;
	b->frame[23] = 17;
	unit_init(b, 0, true);
	unit_init(b, 1, reloadable1);
	return b;
}

static void census_handoff(const struct frame_desc *d, void *arg)
{
	struct umem_census *c = arg;

	umem_census_add(c, umem_frame_start(c->u, d->addr));
}

static void census_ret(const uint64_t *a, void *arg)
{
	umem_census_add(arg, *a);
}

/* With the workers stopped: every frame found exactly once. */
static void census_ok(struct bed *b)
{
	struct umem_census c;

	assert_int_equal(umem_census_init(&c, &b->umem), 0);
	for (uint32_t i = 0; i < UNITS; i++) {
		struct unit *u = &b->u[i];

		rx_task_census(&u->rx, &c);
		egress_task_census(&u->eg, &c);
		handoff_ring_foreach(&u->ho, census_handoff, &c);
		return_ring_foreach(&u->ret, census_ret, &c);
		xsk_queue_census(&u->a.q, &c);
		xsk_queue_census(&u->b.q, &c);
	}
	assert_int_equal(c.doubles, 0);
	assert_int_equal(c.strays, 0);
	assert_int_equal(c.found, UNITS * PART);
	umem_census_fini(&c);
}

static void bed_free(struct bed *b)
{
	for (uint32_t i = 0; i < UNITS; i++) {
		worker_stop(&b->w[i]);
		worker_fini(&b->w[i]);
	}
	census_ok(b);
	for (uint32_t i = 0; i < UNITS; i++) {
		struct unit *u = &b->u[i];

		rx_task_fini(&u->rx);
		egress_task_fini(&u->eg);
		handoff_ring_fini(&u->ho);
		return_ring_fini(&u->ret);
	}
	free(b->live);
	umem_area_fini(&b->umem);
	free(b);
}

/* The kernel, in a thread of its own: receives on every unit's port A and
 * transmits what the egress tasks put on port B, until told to stop. */
static void *kernel_main(void *arg)
{
	struct bed *b = arg;

	while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE)) {
		for (uint32_t i = 0; i < UNITS; i++) {
			uint32_t n = fake_kernel_rx(&b->u[i].a, &b->umem,
						    b->frame, 64, 8);

			fake_kernel_tx(&b->u[i].b, NULL, 0);
			if (n) {
				__atomic_fetch_add(&b->received, n,
						   __ATOMIC_RELAXED);
				worker_wake(&b->w[i]);
			}
		}
		sched_yield();
	}
	return NULL;
}

/* A worker with an egress task that refuses generation 2 and one that
 * takes it: the one that took it goes back, the RX classifiers stay, the
 * worker reports the refusal and keeps every frame. */
static void test_worker_switch_all_or_nothing(void **state)
{
	struct bed *b = bed_new(true);
	struct policy_gen *g2 = gen_new(true, 2);
	struct worker *w = &b->w[0];

	/* worker 0 also runs unit 1's egress task, made not reloadable */
	egress_task_fini(&b->u[1].eg);
	assert_int_equal(egress_task_init(&b->u[1].eg, &b->u[1].b.q, &b->umem,
					  32, &b->live->qos, 1, 0),
			 0);
	b->u[1].eg.copy_mode = false;
	assert_int_equal(egress_task_add_input(&b->u[1].eg, &b->u[1].ho, 1,
					       &b->u[1].ret),
			 0);
	assert_int_equal(worker_add_egress(w, &b->u[1].eg), 0);
	/* frames waiting in the handoff ring when the switch comes */
	assert_int_equal(fake_kernel_rx(&b->u[0].a, &b->umem, b->frame, 64, 10),
			 10);
	rx_task_poll(&b->u[0].rx);
	assert_int_equal(handoff_ring_count(&b->u[0].ho), 10);

	b->live = g2;
	assert_int_equal(worker_switch(w, g2), -EOPNOTSUPP);
	assert_int_equal(w->gen, 1);
	assert_int_equal(worker_applied_gen(w), 1);
	assert_int_equal(worker_refused_gen(w), 2);
	assert_int_equal(ctr_read(&w->reload_errors), 1);
	assert_ptr_equal(b->u[0].rx.cls, &w->cur->cls);
	assert_ptr_not_equal(b->u[0].rx.cls, &g2->cls);
	assert_ptr_not_equal(b->u[0].eg.cls, &g2->cls);
	/* the task that had switched is back on policy A: one class */
	assert_int_equal(b->u[0].eg.sched.n_slots, 1);
	assert_string_equal(b->u[0].eg.sched.name[0], "default");
	/* the frames of the handoff ring are queued, none lost */
	assert_int_equal(sched_backlog_packets(&b->u[0].eg.sched), 10);
	/* and they leave under the old policy */
	egress_task_poll(&b->u[0].eg);
	assert_int_equal(fake_kernel_tx(&b->u[0].b, NULL, 0), 10);
	egress_task_poll(&b->u[0].eg);
	rx_task_poll(&b->u[0].rx);

	b->live = w->cur; /* g2 is no longer published */
	free(g2);
	bed_free(b);
}

/* poll.coalesce_us follows the policy: no naps while PFC is on (a nap
 * would delay pause frames), back when it is off again. */
static void test_naps_follow_pfc(void **state)
{
	struct bed *b = bed_new(true);
	struct policy_gen *g1 = b->live, *g2 = gen_new(false, 2);
	struct policy_gen *g3 = gen_new(false, 3);
	struct worker *w = &b->w[0];

	(void)state;
	assert_int_equal(w->nap_ns, 50000);
	g2->qos.pfc.enabled = true;
	b->live = g2;
	assert_int_equal(worker_switch(w, g2), 0);
	assert_int_equal(w->nap_ns, 0);
	b->live = g3;
	assert_int_equal(worker_switch(w, g3), 0);
	assert_int_equal(w->nap_ns, 50000);
	/* worker 1 still runs generation 1: put it on g3 too, then g1 and
	 * g2 can go (bed_free frees the live one) */
	assert_int_equal(worker_switch(&b->w[1], g3), 0);
	free(g1);
	free(g2);
	bed_free(b);
}

/* Worker 1 refuses generation 2 while worker 0 takes it: the reload fails
 * with the reason, generation 1 is published again and both workers run
 * it when policy_publish() returns. */
static void test_publish_rolls_back(void **state)
{
	struct bed *b = bed_new(false);
	struct policy_gen *g1 = b->live, *g2 = gen_new(true, 2), *unused;
	char err[256] = "";
	int rc;

	for (uint32_t i = 0; i < UNITS; i++)
		assert_int_equal(worker_start(&b->w[i]), 0);
	rc = policy_publish(&b->live, b->w, UNITS, g2, 2000000000ull, &unused,
			    err, sizeof(err));
	assert_int_equal(rc, -ECANCELED);
	assert_ptr_equal(unused, g2);
	assert_ptr_equal(b->live, g1);
	assert_non_null(strstr(err, "worker 1"));
	assert_non_null(strstr(err, "generation 2"));
	assert_non_null(strstr(err, "back on"));
	for (uint32_t i = 0; i < UNITS; i++)
		assert_int_equal(worker_applied_gen(&b->w[i]), 1);
	assert_int_equal(worker_refused_gen(&b->w[1]), 2);
	for (uint32_t i = 0; i < UNITS; i++)
		worker_stop(&b->w[i]);
	/* worker 0 went to generation 2 and back: one class again */
	assert_int_equal(b->u[0].eg.sched.n_slots, 1);
	assert_ptr_equal(b->u[0].rx.cls, &g1->cls);
	assert_ptr_equal(b->u[1].rx.cls, &g1->cls);
	free(g2);
	bed_free(b);
}

/* 200 publications alternating the two policies while both workers
 * forward what the fake kernel receives. */
static void test_publish_under_traffic(void **state)
{
	struct bed *b = bed_new(true);
	struct policy_gen *next, *unused;
	char err[256];
	uint64_t sent = 0;

	for (uint32_t i = 0; i < UNITS; i++)
		assert_int_equal(worker_start(&b->w[i]), 0);
	assert_int_equal(pthread_create(&b->kernel, NULL, kernel_main, b), 0);
	for (uint64_t gen = 2; gen <= 201; gen++) {
		uint64_t seen = __atomic_load_n(&b->received, __ATOMIC_RELAXED);
		struct timespec ms = {0, 1000000};

		/* frames on the move at every switch */
		for (int k = 0;
		     k < 1000 && __atomic_load_n(&b->received,
						 __ATOMIC_RELAXED) < seen + 16;
		     k++)
			nanosleep(&ms, NULL);
		next = gen_new(gen % 2 == 0, gen);
		err[0] = '\0';
		assert_int_equal(policy_publish(&b->live, b->w, UNITS, next,
						5000000000ull, &unused, err,
						sizeof(err)),
				 0);
		assert_non_null(unused);
		assert_ptr_not_equal(unused, next);
		free(unused);
		for (uint32_t i = 0; i < UNITS; i++)
			assert_int_equal(worker_applied_gen(&b->w[i]), gen);
	}
	__atomic_store_n(&b->stop, 1, __ATOMIC_RELEASE);
	pthread_join(b->kernel, NULL);
	for (uint32_t i = 0; i < UNITS; i++) {
		worker_stop(&b->w[i]);
		fake_kernel_tx(&b->u[i].b, NULL, 0);
		/* sent, counted dropped, or still queued (the kernel
		 * stopped completing: the TX ring filled up) */
		sent += ctr_read(&b->u[i].eg.ctr.packets) +
			ctr_read(&b->u[i].rx.ctr.drop_handoff_full) +
			sched_backlog_packets(&b->u[i].eg.sched) +
			handoff_ring_count(&b->u[i].ho) +
			(b->u[i].a.rx.producer - b->u[i].a.rx.consumer);
		assert_int_equal(ctr_read(&b->w[i].reload_errors), 0);
	}
	/* no frame received went missing */
	assert_int_equal(sent, b->received);
	print_message("frames received %llu, all sent, counted or queued, "
		      "200 reloads\n",
		      (unsigned long long)b->received);
	assert_true(sent >= 200 * 16);
	bed_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worker_switch_all_or_nothing),
		cmocka_unit_test(test_naps_follow_pfc),
		cmocka_unit_test(test_publish_rolls_back),
		cmocka_unit_test(test_publish_under_traffic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

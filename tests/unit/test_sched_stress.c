// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_sched_stress.c - the egress scheduler under concurrency, the way the
 * gateway runs it, for ThreadSanitizer (CI runs it in a TSan build) and for
 * the frame census:
 *
 *   producer (an RX task)  --handoff ring-->  owner (the egress task: the
 *   sched_* calls, a fake clock)  --return ring-->  producer
 *                         reader (the control thread): the class counters
 *
 * The owner enqueues what arrives, dequeues what the shapers allow and
 * "transmits" it by returning the address; drops go back at once. Between
 * phases the owner reconfigures the scheduler (ceilings, weights, a class
 * added and removed) while the reader waits, as the control thread does
 * during a reload. Checked: every address comes back exactly once, at the
 * end the counters of each class add up (enq = sent + drops-at-dequeue +
 * depth, nothing queued), while the reader watches sent <= enq and the
 * depth within the ring, and counters never go back within a phase.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "frame.h"
#include "tc_sched.h"

#define FRAMES 4096u /* addresses in flight: the producer's pool */
#define RING 1024u
#define PHASES 8
#define PER_PHASE 40000u /* frames the producer sends per phase */
#define NCLS 4

struct stress {
	struct handoff_ring ho;
	struct return_ring ret;
	struct sched s;
	struct qos_policy pol[2];
	_Atomic int started; /* the phase running (the owner reloaded) */
	_Atomic int quota_done; /* last phase the producer sent all of */
	_Atomic int owner_done; /* last phase the owner drained */
	_Atomic int reader_done; /* last phase the reader finished */
	_Atomic uint64_t produced, returned;
	uint64_t got, refused, sent; /* owner-only: taken, dropped, sent */
	uint8_t seen[FRAMES]; /* producer-only: address out (1) or home (0) */
	int errors;
	_Atomic bool stuck; /* a thread waited past the deadline */
	uint64_t deadline_ns; /* CLOCK_MONOTONIC: a lost frame hangs a wait */
};

/* True (and the run is over) once the deadline passed: a frame lost by
 * the scheduler would otherwise leave a thread waiting forever. */
static bool stuck(struct stress *t)
{
	struct timespec ts;

	if (atomic_load(&t->stuck))
		return true;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec <
	    t->deadline_ns)
		return false;
	atomic_store(&t->stuck, true);
	return true;
}

static void policy(struct qos_policy *p, int alt)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < 2; i++) {
		p->port[i].rate_bps = 100000000000ull;
		p->port[i].burst = 65536;
	}
	for (int i = 0; i < NCLS - alt; i++) {
		struct qos_class *c = &p->classes[p->n_classes++];

		/* alt drops the last class: its frames move to the default */
		snprintf(c->name, sizeof(c->name), "c%d", i);
		c->level = (uint8_t)(i / 2);
		c->quantum = alt ? 3000 : 1500;
		c->limit_packets = 512;
		c->limit_bytes = 512 * 1500;
		if (i == 1) {
			c->ceil_bps = alt ? 40000000000ull : 20000000000ull;
			c->ceil_burst = 32768;
		}
	}
	p->default_class = 0;
}

static void *producer(void *arg)
{
	struct stress *t = arg;
	uint32_t next = 0, rng = 1;
	uint64_t sent_total = 0;

	for (int ph = 0; ph < PHASES; ph++) {
		uint64_t goal = (uint64_t)(ph + 1) * PER_PHASE;

		while (atomic_load(&t->started) < ph && !stuck(t))
			sched_yield();
		while (sent_total < goal && !stuck(t)) {
			struct frame_desc d[32];
			uint64_t back[64];
			uint32_t n = 0, k, r;

			r = return_ring_dequeue(&t->ret, back, 64);
			for (uint32_t i = 0; i < r; i++) {
				uint32_t a = (uint32_t)(back[i] / 4096);

				if (a >= FRAMES || !t->seen[a])
					t->errors++; /* unknown or twice */
				else
					t->seen[a] = 0;
			}
			atomic_fetch_add(&t->returned, r);
			for (uint32_t tries = 0; tries < FRAMES && n < 32;
			     tries++) {
				uint32_t a = next++ % FRAMES;

				if (t->seen[a])
					continue;
				rng = rng * 1103515245u + 12345u;
				d[n].addr = (uint64_t)a * 4096;
				d[n].len = 64 + (rng >> 16) % 1450;
				d[n].meta = frame_meta_pack((rng >> 8) % NCLS,
							    0, 0, 0);
				n++;
			}
			k = handoff_ring_enqueue(&t->ho, d, n);
			for (uint32_t i = 0; i < k; i++)
				t->seen[d[i].addr / 4096] = 1;
			next -= n - k; /* not taken: offered again */
			sent_total += k;
			atomic_fetch_add(&t->produced, k);
			if (!k && !r)
				sched_yield(); /* 2 cores, 3 threads: let go */
		}
		atomic_store(&t->quota_done, ph);
	}
	/* collect what is still out */
	while (atomic_load(&t->returned) < atomic_load(&t->produced) &&
	       !stuck(t)) {
		uint64_t back[64];
		uint32_t r = return_ring_dequeue(&t->ret, back, 64);

		for (uint32_t i = 0; i < r; i++) {
			uint32_t a = (uint32_t)(back[i] / 4096);

			if (a >= FRAMES || !t->seen[a])
				t->errors++;
			else
				t->seen[a] = 0;
		}
		atomic_fetch_add(&t->returned, r);
	}
	return NULL;
}

static void give_back(struct stress *t, const uint64_t *a, uint32_t n)
{
	uint32_t done = 0;

	while (done < n)
		done += return_ring_enqueue(&t->ret, a + done, n - done);
}

static void *owner(void *arg)
{
	struct stress *t = arg;
	uint64_t now = 1000000000ull;

	for (int ph = 0; ph < PHASES; ph++) {
		bool done = false;
		uint32_t n = 1;

		if (ph > 0) {
			/* the reload: the reader is parked */
			while (atomic_load(&t->reader_done) != ph - 1 &&
			       !stuck(t))
				sched_yield();
			if (sched_reconfigure(&t->s, &t->pol[ph & 1], 0, now))
				t->errors++;
		}
		atomic_store(&t->started, ph);
		/* until the producer is done and everything it sent went out;
		 * `done` is read before the ring, so an empty ring then means
		 * nothing more is coming */
		while ((!done || n || t->s.backlog) && !stuck(t)) {
			struct frame_desc in[64], out[64];
			uint64_t back[64];
			uint32_t m, nb = 0;

			done = atomic_load(&t->quota_done) >= ph;
			n = handoff_ring_dequeue(&t->ho, in, 64);
			for (uint32_t i = 0; i < n; i++)
				if (sched_enqueue(&t->s, &in[i], NULL, now) !=
				    SCHED_QUEUED)
					back[nb++] = in[i].addr;
			t->got += n;
			t->refused += nb;
			give_back(t, back, nb);
			m = sched_dequeue(&t->s, out, 64, now);
			t->sent += m;
			for (uint32_t i = 0; i < m; i++)
				back[i] = out[i].addr;
			give_back(t, back, m);
			now += 2000; /* 2 us per pass */
			if (!n && !m && t->s.backlog)
				now += 100000; /* let the shapers refill */
			if (!n && !m)
				sched_yield();
		}
		atomic_store(&t->owner_done, ph);
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct stress *t = arg;

	for (int ph = 0; ph < PHASES; ph++) {
		uint64_t last_enq[QOS_MAX_CLASSES] = {0},
			 last_sent[QOS_MAX_CLASSES] = {0};

		while (atomic_load(&t->started) < ph && !stuck(t))
			sched_yield();
		while (atomic_load(&t->owner_done) < ph && !stuck(t)) {
			for (int i = 0; i < QOS_MAX_CLASSES; i++) {
				const struct sched_class_stats *st =
					&t->s.st[i];
				uint64_t sent = ctr_read(&st->sent_packets);
				uint64_t enq = ctr_read(&st->enq_packets);

				if (sent > enq || enq < last_enq[i] ||
				    sent < last_sent[i] ||
				    sched_depth_packets(st) > RING * 4)
					t->errors++;
				last_enq[i] = enq;
				last_sent[i] = sent;
			}
			sched_yield();
		}
		atomic_store(&t->reader_done, ph);
	}
	return NULL;
}

static void test_stress(void **state)
{
	struct stress *t = calloc(1, sizeof(*t));
	uint64_t enq = 0, sent = 0;
	pthread_t p, o, r;

	(void)state;
	assert_non_null(t);
	policy(&t->pol[0], 0);
	policy(&t->pol[1], 1);
	assert_int_equal(handoff_ring_init(&t->ho, RING), 0);
	assert_int_equal(return_ring_init(&t->ret, FRAMES), 0);
	assert_int_equal(sched_init_reloadable(&t->s, &t->pol[0], 0, FRAMES,
					       1000000000ull),
			 0);
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		t->deadline_ns = (uint64_t)ts.tv_sec * 1000000000ull +
				 (uint64_t)ts.tv_nsec + 60000000000ull;
	}
	atomic_store(&t->started, -1);
	atomic_store(&t->quota_done, -1);
	atomic_store(&t->owner_done, -1);
	atomic_store(&t->reader_done, -1);
	assert_int_equal(pthread_create(&p, NULL, producer, t), 0);
	assert_int_equal(pthread_create(&r, NULL, reader, t), 0);
	assert_int_equal(pthread_create(&o, NULL, owner, t), 0);
	pthread_join(o, NULL);
	pthread_join(p, NULL);
	pthread_join(r, NULL);

	assert_false(atomic_load(&t->stuck)); /* a frame never came back */
	assert_int_equal(t->errors, 0);
	assert_int_equal(atomic_load(&t->produced),
			 (uint64_t)PHASES * PER_PHASE);
	assert_int_equal(atomic_load(&t->returned), atomic_load(&t->produced));
	for (uint32_t a = 0; a < FRAMES; a++)
		assert_int_equal(t->seen[a], 0);
	assert_int_equal(t->s.backlog, 0);
	/* every frame taken was queued and sent, or refused at enqueue */
	assert_int_equal(t->got, (uint64_t)PHASES * PER_PHASE);
	assert_int_equal(t->got, t->refused + t->sent);
	assert_true(t->sent > 0); /* how many depends on the threads' pace */
	for (int i = 0; i < QOS_MAX_CLASSES; i++) {
		const struct sched_class_stats *st = &t->s.st[i];

		assert_int_equal(sched_depth_packets(st), 0);
		enq += ctr_read(&st->enq_packets);
		sent += ctr_read(&st->sent_packets);
	}
	/* the classes of the last policy: what they queued, they sent */
	assert_int_equal(enq, sent);
	print_message("stress: %llu frames, %llu sent, %llu refused, %d "
		      "reloads\n",
		      (unsigned long long)t->got, (unsigned long long)t->sent,
		      (unsigned long long)t->refused, PHASES - 1);
	sched_fini(&t->s);
	handoff_ring_fini(&t->ho);
	return_ring_fini(&t->ret);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

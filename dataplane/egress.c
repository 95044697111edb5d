// SPDX-License-Identifier: BSD-2-Clause
/*
 * egress.c - see egress.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include "egress.h"

int egress_task_init(struct egress_task *t, struct xsk_queue *xq,
		     const struct umem_area *umem, uint32_t batch,
		     const struct qos_policy *pol, int port,
		     uint32_t max_queued)
{
	struct timespec ts;

	memset(t, 0, sizeof(*t));
	t->xq = xq;
	t->umem = umem;
	t->batch = MIN(batch, EGRESS_MAX_BATCH);
	t->copy_mode = !xq->zerocopy;
	t->port = port;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return sched_init_reloadable(&t->sched, pol, port, max_queued,
				     (uint64_t)ts.tv_sec * 1000000000ull +
					     ts.tv_nsec);
}

void egress_task_fini(struct egress_task *t)
{
	sched_fini(&t->sched);
}

int egress_task_add_input(struct egress_task *t, struct handoff_ring *in,
			  uint32_t owner, struct return_ring *ret)
{
	if (t->n_in == EGRESS_MAX_INPUTS || owner >= EGRESS_MAX_OWNERS)
		return -ENOSPC;
	t->in[t->n_in++] = in;
	t->ret_by_owner[owner] = ret;
	return 0;
}

/* Give a run of completed frames of one owner back to it. The return ring
 * has room for every frame of the owner's partition, so it never refuses. */
static void give_back(struct egress_task *t, uint32_t owner,
		      const uint64_t *addrs, uint32_t n)
{
	struct return_ring *r =
		owner < EGRESS_MAX_OWNERS ? t->ret_by_owner[owner] : NULL;

	if (unlikely(!r)) {
		ctr_add(&t->ctr.foreign_frames, n);
		return;
	}
	return_ring_enqueue(r, addrs, n);
}

static uint32_t reap_completions(struct egress_task *t)
{
	uint64_t addrs[EGRESS_MAX_BATCH];
	uint32_t n, idx, i, run = 0, owner = 0, o;

	n = xsk_ring_cons__peek(&t->xq->comp, EGRESS_MAX_BATCH, &idx);
	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		addrs[i] = umem_frame_start(
			t->umem,
			*xsk_ring_cons__comp_addr(&t->xq->comp, idx + i));
		o = umem_owner(t->umem, addrs[i]);
		if (i && o != owner) {
			give_back(t, owner, addrs + run, i - run);
			run = i;
		}
		owner = o;
	}
	give_back(t, owner, addrs + run, n - run);
	xsk_ring_cons__release(&t->xq->comp, n);
	t->outstanding -= n;
	return n;
}

static uint32_t tx_unsent(const struct xsk_queue *q)
{
	return *q->tx.producer -
	       __atomic_load_n(q->tx.consumer, __ATOMIC_ACQUIRE);
}

static void kick(struct egress_task *t)
{
	int tries = t->copy_mode ? 64 : 1;

	while (tries-- > 0) {
		ctr_add(&t->ctr.kicks, 1);
		if (sendto(t->xq->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS) {
			ctr_add(&t->ctr.kick_errors, 1);
			log_ratelimited(&t->kick_rl, 5, LOG_LVL_WARN,
					"queue %u: TX kick failed: %s",
					t->xq->queue_id, strerror(errno));
			return;
		}
		if (!tx_unsent(t->xq))
			return;
	}
}

/* Move handed-over frames into the scheduler's class queues. */
static uint32_t take_handoffs(struct egress_task *t, uint64_t now)
{
	struct frame_desc descs[EGRESS_MAX_BATCH];
	uint32_t total = 0, n, i, k;
	uint8_t *base = t->umem->base;

	for (k = 0; k < t->n_in; k++) {
		n = handoff_ring_dequeue(t->in[k], descs, t->batch);
		for (i = 0; i < n; i++) {
			if (unlikely(sched_enqueue(&t->sched, &descs[i],
						   base + descs[i].addr,
						   now))) {
				uint64_t a = umem_frame_start(t->umem,
							      descs[i].addr);

				give_back(t, umem_owner(t->umem, a), &a, 1);
			}
		}
		total += n;
	}
	return total;
}

uint32_t egress_task_poll(struct egress_task *t)
{
	struct frame_desc descs[EGRESS_MAX_BATCH];
	struct xdp_desc *txd;
	struct timespec ts;
	uint32_t work, room, got = 0, idx = 0, i;
	uint64_t bytes = 0, now;

	work = reap_completions(t);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	work += take_handoffs(t, now);

	room = xsk_prod_nb_free(&t->xq->tx, t->batch);
	room = MIN(room, t->batch);
	if (room && sched_backlog_packets(&t->sched))
		got = sched_dequeue(&t->sched, descs, room, now);
	if (got) {
		/* room was checked: reserve cannot come up short */
		xsk_ring_prod__reserve(&t->xq->tx, got, &idx);
		for (i = 0; i < got; i++) {
			txd = xsk_ring_prod__tx_desc(&t->xq->tx, idx + i);
			txd->addr = descs[i].addr;
			txd->len = descs[i].len;
			txd->options = 0;
			bytes += descs[i].len;
		}
		xsk_ring_prod__submit(&t->xq->tx, got);
		t->outstanding += got;
		ctr_add(&t->ctr.packets, got);
		ctr_add(&t->ctr.bytes, bytes);
	}
	if (t->copy_mode ? tx_unsent(t->xq) != 0
			 : t->outstanding &&
				   xsk_ring_prod__needs_wakeup(&t->xq->tx)) {
		kick(t);
		work += reap_completions(t);
	}
	return work + got;
}

int egress_task_reconfigure(struct egress_task *t, const struct qos_policy *pol)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	while (take_handoffs(t, now))
		;
	return sched_reconfigure(&t->sched, pol, t->port, now);
}

static void census_desc(const struct frame_desc *d, void *arg)
{
	struct umem_census *c = arg;

	umem_census_add(c, umem_frame_start(c->u, d->addr));
}

void egress_task_census(struct egress_task *t, struct umem_census *c)
{
	sched_foreach(&t->sched, census_desc, c);
}

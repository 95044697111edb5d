// SPDX-License-Identifier: BSD-2-Clause
/*
 * egress.c - see egress.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include "egress.h"

void egress_task_init(struct egress_task *t, struct xsk_queue *xq,
		      const struct umem_area *umem, uint32_t batch)
{
	memset(t, 0, sizeof(*t));
	t->xq = xq;
	t->umem = umem;
	t->batch = MIN(batch, EGRESS_MAX_BATCH);
	t->copy_mode = !xq->zerocopy;
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

uint32_t egress_task_poll(struct egress_task *t)
{
	struct frame_desc descs[EGRESS_MAX_BATCH];
	struct xdp_desc *txd;
	uint32_t work, room, n, got = 0, idx, i, k;
	uint64_t bytes = 0;

	work = reap_completions(t);

	room = xsk_prod_nb_free(&t->xq->tx, t->batch);
	room = MIN(room, t->batch);
	for (k = 0; k < t->n_in && got < room; k++) {
		struct handoff_ring *in = t->in[t->next_in];

		if (++t->next_in == t->n_in)
			t->next_in = 0;
		got += handoff_ring_dequeue(in, descs + got, room - got);
	}
	if (got) {
		n = xsk_ring_prod__reserve(&t->xq->tx, got, &idx);
		/* room was checked: reserve cannot come up short */
		for (i = 0; i < n; i++) {
			txd = xsk_ring_prod__tx_desc(&t->xq->tx, idx + i);
			txd->addr = descs[i].addr;
			txd->len = descs[i].len;
			txd->options = 0;
			bytes += descs[i].len;
		}
		xsk_ring_prod__submit(&t->xq->tx, n);
		t->outstanding += n;
		ctr_add(&t->ctr.packets, n);
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

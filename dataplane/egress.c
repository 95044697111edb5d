// SPDX-License-Identifier: BSD-2-Clause
/*
 * egress.c - see egress.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "egress.h"
#include "roce.h"

int egress_task_init(struct egress_task *t, struct xsk_queue *xq,
		     const struct umem_area *umem, uint32_t batch,
		     const struct qos_policy *pol, int port,
		     uint32_t max_queued)
{
	memset(t, 0, sizeof(*t));
	t->xq = xq;
	t->umem = umem;
	t->batch = MIN(batch, EGRESS_MAX_BATCH);
	t->copy_mode = !xq->zerocopy;
	t->port = port;
	t->dcq = &pol->dcqcn;
	t->np_wake_fd = -1;
	return sched_init_reloadable(&t->sched, pol, port, max_queued,
				     mono_ns());
}

void egress_task_fini(struct egress_task *t)
{
	sched_fini(&t->sched);
}

int egress_task_add_feedback(struct egress_task *t, struct feedback_ring *r)
{
	if (t->n_fb_in == EGRESS_MAX_FEEDBACK)
		return -ENOSPC;
	t->fb_in[t->n_fb_in++] = r;
	return 0;
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

/* One feedback event to every DCQCN class it concerns. */
static void apply_feedback(struct egress_task *t, const struct fb_event *ev,
			   uint64_t now)
{
	struct sched *s = &t->sched;

	for (uint32_t m = s->fq_mask; m; m &= m - 1) {
		unsigned int slot = (unsigned int)__builtin_ctz(m);
		struct flowq *q = s->cl[slot].fq;

		switch (ev->type) {
		case FB_CNP:
			flowq_cnp_from_wire(q, ev->family, ev->src, ev->qpn,
					    now);
			break;
		case FB_ACK:
			flowq_ack(q, ev->family, ev->src, ev->qpn, ev->psn);
			break;
		case FB_HINT:
			if (ev->class_id == 0xff ||
			    s->slot_of[ev->class_id & 0xf] == slot)
				flowq_hint(q, ev->family, ev->src, ev->plen,
					   ev->psn, now);
			break;
		}
	}
}

static uint32_t take_feedback(struct egress_task *t, uint64_t now)
{
	struct fb_event ev[32];
	uint32_t total = 0, n;

	for (uint32_t k = 0; k < t->n_fb_in; k++) {
		while ((n = feedback_ring_dequeue(t->fb_in[k], ev, 32))) {
			for (uint32_t i = 0; i < n; i++)
				apply_feedback(t, &ev[i], now);
			total += n;
		}
	}
	if (total)
		ctr_add(&t->ctr.fb_events, total);
	return total;
}

/* Build the CNP flow f is due and hand it to the other port. */
static void send_cnp(struct egress_task *t, const struct flowq_flow *f)
{
	struct frame_desc d;
	struct cnp_spec sp;
	struct pkt_meta m;
	uint8_t *frame;

	if (!t->np_pool || !t->np_out || !t->np_pool->count) {
		ctr_add(&t->ctr.np_no_frame, 1);
		return;
	}
	roce_cnp_spec_default(&sp);
	memcpy(sp.dst_mac, f->peer.sender_mac, 6);
	memcpy(sp.src_mac, f->peer.receiver_mac, 6);
	sp.vlan = f->peer.vid != 0xffff;
	sp.vid = sp.vlan ? f->peer.vid : 0;
	sp.pcp = t->dcq->np_pcp;
	sp.family = f->key.family;
	memcpy(sp.src_ip, f->key.addr, 16);
	memcpy(sp.dst_ip, f->peer.sender_ip, 16);
	sp.dscp = t->dcq->np_dscp;
	sp.ip_id = t->np_ip_id++;
	sp.udp_sport = f->peer.udp_sport;
	sp.dest_qpn = f->peer.sender_qpn;
	d.addr = t->np_pool->addrs[--t->np_pool->count];
	frame = (uint8_t *)t->umem->base + d.addr;
	d.len = (uint32_t)roce_build_cnp(frame, t->umem->frame_size, &sp);
	if (d.len && !pkt_parse(frame, d.len, &m)) {
		d.meta = sched_meta_pack(classify(t->cls, &m), m.ecn, m.l3,
					 m.l3_off) |
			 sched_meta_l4(m.l3_off, m.l4_off, true);
		if (handoff_ring_enqueue(t->np_out, &d, 1)) {
			ctr_add(&t->ctr.np_cnps, 1);
			if (t->np_wake_fd >= 0) {
				uint64_t one = 1;

				(void)!write(t->np_wake_fd, &one, sizeof(one));
			}
			return;
		}
		ctr_add(&t->ctr.np_out_full, 1);
	} else {
		ctr_add(&t->ctr.np_no_frame, 1); /* cannot happen */
	}
	frame_pool_put(t->np_pool, d.addr);
}

static void send_due_cnps(struct egress_task *t)
{
	struct sched *s = &t->sched;

	for (uint32_t m = s->fq_mask; m; m &= m - 1) {
		struct flowq *q = s->cl[__builtin_ctz(m)].fq;

		for (uint32_t i = 0; i < q->n_np_due; i++) {
			struct flowq_flow *f = &q->flows[q->np_due[i]];

			send_cnp(t, f);
			ctr_add(&f->cnps_sent, 1);
		}
		q->n_np_due = 0;
	}
}

uint32_t egress_task_poll(struct egress_task *t)
{
	struct frame_desc descs[EGRESS_MAX_BATCH];
	struct xdp_desc *txd;
	uint32_t work, room, got = 0, idx = 0, i;
	uint64_t bytes = 0, now;

	work = reap_completions(t);
	now = mono_ns(); /* once per pass */
	if (unlikely(t->sched.fq_mask))
		work += take_feedback(t, now);
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
	if (unlikely(t->sched.fq_mask))
		send_due_cnps(t);
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
	uint64_t now = mono_ns();

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

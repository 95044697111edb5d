// SPDX-License-Identifier: BSD-2-Clause
/*
 * egress.c - the transmit side of an egress task (egress.h): completions
 * back to their owners, handoffs and feedback into the scheduler, the
 * scheduler's picks onto the TX ring, the kick. The notification point
 * is egress_np.c, PFC egress_pfc.c; what they share is egress_int.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include "egress_int.h"
#include "remark.h"
#include "mono_clock.h"

/* The rate the port bucket runs at, for the readers (qrate.h). */
static void rate_gauge(struct egress_task *t)
{
	ctr_set(&t->qrate.shaper_bps,
		t->sched.port_shaped ? sched_port_rate(&t->sched) : 0);
}

int egress_task_init(struct egress_task *t, struct xsk_queue *xq,
		     const struct umem_area *umem, uint32_t batch,
		     const struct qos_policy *pol, int port,
		     uint32_t max_queued)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->xq = xq;
	t->umem = umem;
	t->batch = MIN(batch, EGRESS_MAX_BATCH);
	t->copy_mode = !xq->zerocopy;
	t->port = port;
	t->dcq = &pol->dcqcn;
	t->np_wake_fd = -1;
	t->max_frags = 1;
	err = sched_init_reloadable(&t->sched, pol, port, max_queued,
				    mono_ns());
	if (err)
		return err;
	egress_task_set_pfc(t, pol);
	err = adaptive_init(&t->adapt, port, mono_ns());
	if (err) {
		sched_fini(&t->sched);
		return err;
	}
	adaptive_configure(&t->adapt, pol, &t->sched, mono_ns());
	rate_gauge(t);
	return 0;
}

void egress_task_fini(struct egress_task *t)
{
	adaptive_fini(&t->adapt);
	sched_fini(&t->sched);
}

int egress_task_set_queues(struct egress_task *t, uint32_t n,
			   const struct qos_policy *pol)
{
	uint64_t now = mono_ns();
	int err = sched_set_queue_share(&t->sched, n, pol, t->port, now);

	if (!err)
		adaptive_configure(&t->adapt, pol, &t->sched, now);
	rate_gauge(t);
	return err;
}

void egress_task_set_qrate(struct egress_task *t, struct qrate_port *p,
			   uint32_t q)
{
	qrate_attach(&t->qrate, p, q);
	rate_gauge(t);
}

int egress_task_add_path(struct egress_task *t, struct pathmon_ring *r)
{
	return adaptive_add_input(&t->adapt, r);
}

void egress_task_set_multibuf(struct egress_task *t, uint32_t max_frags)
{
	if (max_frags < 2)
		t->max_frags = 1;
	else
		t->max_frags = MIN(max_frags, FRAME_CHAIN_MAX);
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
	ctr_add(&t->ctr.completed, n);
	return n;
}

static uint32_t tx_unsent(const struct xsk_queue *q)
{
	return *q->tx.producer -
	       __atomic_load_n(q->tx.consumer, __ATOMIC_ACQUIRE);
}

static void kick(struct egress_task *t, uint64_t now)
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
			t->kick_after = now + EGRESS_KICK_BACKOFF_NS;
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
			if (unlikely(descs[i].meta &
				     (FRAME_META_CTRL |
				      FRAME_META_UNCLASSIFIED))) {
				if (descs[i].meta & FRAME_META_CTRL) {
					egress_pfc_tx_ctrl(t, &descs[i]);
					continue;
				}
				if (!egress_np_classify(t, &descs[i])) {
					give_back_desc(t, &descs[i]);
					continue;
				}
			}
			if (unlikely(sched_enqueue(&t->sched, &descs[i],
						   base + descs[i].addr, now)))
				give_back_desc(t, &descs[i]);
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

	if (ev->type == FB_PFC) {
		egress_pfc_event(t, ev, now);
		return;
	}
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
	uint32_t total = 0, pfc = 0, n;

	for (uint32_t k = 0; k < t->n_fb_in; k++) {
		while ((n = feedback_ring_dequeue(t->fb_in[k], ev, 32))) {
			for (uint32_t i = 0; i < n; i++) {
				apply_feedback(t, &ev[i], now);
				pfc += ev[i].type == FB_PFC;
			}
			total += n;
		}
	}
	if (total - pfc) /* DCQCN's; PFC frames count in pfc_rx */
		ctr_add(&t->ctr.fb_events, total - pfc);
	return total;
}

/* Multi-buffer TX of got packets (some of them chains), whose room the
 * caller checked at max_frags descriptors each. Returns the descriptors
 * submitted; *bytes gets the packets' bytes. */
static __attribute__((noinline)) uint32_t
tx_chains(struct egress_task *t, const struct frame_desc *descs, uint32_t got,
	  uint64_t *bytes)
{
	uint32_t slots = 0, idx = 0, i, k = 0, chains = 0;

	for (i = 0; i < got; i++)
		slots += frame_desc_slots(t->umem, &descs[i]);
	if (unlikely(xsk_ring_prod__reserve(&t->xq->tx, slots, &idx) !=
		     slots)) {
		for (i = 0; i < got; i++)
			give_back_desc(t, &descs[i]);
		ctr_add(&t->ctr.chain_no_room, got);
		return 0;
	}
	for (i = 0; i < got; i++) {
		k += frame_tx_put(&t->xq->tx, idx + k, t->umem, &descs[i]);
		*bytes += descs[i].len;
		chains += frame_desc_is_chain(&descs[i]);
	}
	xsk_ring_prod__submit(&t->xq->tx, slots);
	if (chains)
		ctr_add(&t->ctr.chains, chains);
	return slots;
}

/* The bytes of a packet's first frame: its headers (a chain's are all
 * in its first frame). */
static inline uint32_t desc_head(const struct egress_task *t,
				 const struct frame_desc *d)
{
	if (!frame_desc_is_chain(d))
		return d->len;
	return MIN(d->len, frame_chain_of(t->umem, d->addr)->len[0]);
}

/* Marking (remark.h): the frames of classes that set a DSCP or a PCP get
 * them as they leave, once, before their TX descriptors are written; the
 * others are not touched (one mask test each). A chain's headers are in
 * its first frame. */
static __attribute__((noinline)) void
remark_out(struct egress_task *t, const struct frame_desc *descs, uint32_t got)
{
	struct sched *s = &t->sched;
	uint8_t *base = t->umem->base;

	for (uint32_t i = 0; i < got; i++) {
		const struct frame_desc *d = &descs[i];
		unsigned int slot = s->slot_of[frame_meta_class(d->meta)];
		struct sched_class_stats *st;
		unsigned int r;

		if (slot >= QOS_MAX_CLASSES || !(s->remark_mask >> slot & 1))
			continue;
		r = remark_frame(base + d->addr, desc_head(t, d),
				 frame_meta_l3(d->meta),
				 frame_meta_l3off(d->meta), &s->remark[slot]);
		st = &s->st[slot];
		if (r & REMARK_DSCP)
			ctr_add(&st->dscp_rewritten, 1);
		if (r & REMARK_PCP)
			ctr_add(&st->pcp_rewritten, 1);
		if (unlikely(r & ~(REMARK_DSCP | REMARK_PCP))) {
			if (r & REMARK_PCP_UNTAGGED)
				ctr_add(&st->pcp_untagged, 1);
			if (r & REMARK_DSCP_NOT_IP)
				ctr_add(&st->dscp_not_ip, 1);
			if (r & REMARK_INVALID)
				ctr_add(&st->remark_invalid, 1);
		}
	}
}

/* Adaptive egress: the packets about to leave are the path monitor's
 * departures (a chain's headers are in its first frame). */
static __attribute__((noinline)) void depart_out(struct egress_task *t,
						 const struct frame_desc *descs,
						 uint32_t got, uint64_t now)
{
	uint32_t head[EGRESS_MAX_BATCH];

	for (uint32_t i = 0; i < got; i++)
		head[i] = desc_head(t, &descs[i]);
	adaptive_departures(&t->adapt, t->umem->base, descs, head, got, now);
}

/* The port is gone (egress_task.port_down): give every frame handed over
 * back to its owner, counted; what was queued or on the TX ring stays
 * there (the census finds it); transmissions awaiting completion never
 * complete, so stop waiting for them. */
static __attribute__((noinline)) uint32_t drop_port_down(struct egress_task *t)
{
	struct frame_desc descs[EGRESS_MAX_BATCH];
	uint32_t total = 0, n, i, k;

	t->outstanding = 0;
	for (k = 0; k < t->n_in; k++) {
		n = handoff_ring_dequeue(t->in[k], descs, t->batch);
		for (i = 0; i < n; i++)
			give_back_desc(t, &descs[i]);
		total += n;
	}
	if (total)
		ctr_add(&t->ctr.drop_port_down, total);
	return total;
}

uint32_t egress_task_poll(struct egress_task *t)
{
	return egress_task_poll_at(t, mono_ns());
}

uint32_t egress_task_poll_at(struct egress_task *t, uint64_t now)
{
	struct frame_desc descs[EGRESS_MAX_BATCH];
	struct xdp_desc *txd;
	uint32_t work, room, got = 0, idx = 0, i;
	uint64_t bytes = 0;

	if (unlikely(__atomic_load_n(&t->port_down, __ATOMIC_RELAXED)))
		return drop_port_down(t);
	work = reap_completions(t);
	if (unlikely(t->sched.fq_mask | t->pfc_on))
		work += take_feedback(t, now);
	work += take_handoffs(t, now);
	if (unlikely(t->adapt.on)) {
		work += adaptive_poll(&t->adapt, &t->sched, now);
		rate_gauge(t);
	}
	qrate_poll(&t->qrate, &t->sched, !t->adapt.on, now);

	if (likely(t->max_frags == 1)) {
		room = xsk_prod_nb_free(&t->xq->tx, t->batch);
		room = MIN(room, t->batch);
	} else { /* room for every packet to be a chain of max_frags */
		room = xsk_prod_nb_free(&t->xq->tx, t->batch * t->max_frags);
		room = MIN(room / t->max_frags, t->batch);
	}
	if (room && sched_backlog_packets(&t->sched))
		got = sched_dequeue(&t->sched, descs, room, now);
	if (unlikely(got && t->sched.remark_mask))
		remark_out(t, descs, got);
	if (unlikely(got && t->adapt.on))
		depart_out(t, descs, got, now);
	if (unlikely(got && t->max_frags > 1)) {
		uint32_t slots = tx_chains(t, descs, got, &bytes);

		if (slots) {
			t->outstanding += slots;
			ctr_add(&t->ctr.packets, got);
			ctr_add(&t->ctr.bytes, bytes);
		}
	} else if (got) {
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
	qrate_publish(&t->qrate, &t->sched, now);
	if (unlikely(t->sched.fq_mask))
		egress_np_send_due(t);
	if (unlikely(t->pfc_on | t->pfc_rx.paused | t->pfc_tx_release))
		egress_pfc_pass(t, now);
	if ((t->copy_mode ? tx_unsent(t->xq) != 0
			  : t->outstanding &&
				    xsk_ring_prod__needs_wakeup(&t->xq->tx)) &&
	    now >= t->kick_after) {
		kick(t, now);
		work += reap_completions(t);
	}
	return work + got;
}

int egress_task_reconfigure(struct egress_task *t, const struct qos_policy *pol)
{
	uint64_t now = mono_ns();

	int err;

	while (take_handoffs(t, now))
		;
	err = sched_reconfigure(&t->sched, pol, t->port, now);
	if (!err) {
		egress_task_set_pfc(t, pol);
		adaptive_configure(&t->adapt, pol, &t->sched, now);
		qrate_reapply(&t->qrate);
		rate_gauge(t);
	}
	return err;
}

void egress_task_census(struct egress_task *t, struct umem_census *c)
{
	sched_foreach(&t->sched, frame_desc_census, c);
}

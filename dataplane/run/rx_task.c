// SPDX-License-Identifier: BSD-2-Clause
/*
 * rx_task.c - see rx_task.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_xdp.h>
#include "l4_csum.h"
#include "mono_clock.h"
#include "pfc_frame.h"
#include "roce.h"
#include "rx_task.h"
#include "tc_sched.h"

int rx_task_init(struct rx_task *t, struct xsk_queue *xq,
		 const struct umem_area *umem, uint32_t part,
		 const struct classifier *cls, struct handoff_ring *out,
		 uint32_t batch, uint32_t max_len)
{
	memset(t, 0, sizeof(*t)); /* the task owns its whole struct */
	t->xq = xq;
	t->umem = umem;
	t->cls = cls;
	t->out = out;
	t->batch = MIN(batch, RX_MAX_BATCH);
	t->max_len = max_len;
	t->path_port = -1;
	rx_task_set_multibuf(t, 0);
	return frame_pool_init(&t->pool, umem, part);
}

void rx_task_set_multibuf(struct rx_task *t, uint32_t max_frags)
{
	t->multibuf = max_frags >= 2;
	t->in_chain = false;
	chain_asm_init(&t->chain, max_frags);
}

void rx_task_fini(struct rx_task *t)
{
	frame_pool_fini(&t->pool);
}

int rx_task_add_return(struct rx_task *t, struct return_ring *r)
{
	if (t->n_ret == RX_MAX_RETURN_RINGS)
		return -ENOSPC;
	t->ret[t->n_ret++] = r;
	return 0;
}

uint32_t rx_task_refill(struct rx_task *t)
{
	struct xsk_ring_prod *fq = &t->xq->fill;
	uint32_t n, idx, i;

	n = xsk_prod_nb_free(fq, t->pool.count);
	n = MIN(n, t->pool.count);
	if (!n || xsk_ring_prod__reserve(fq, n, &idx) != n)
		return 0;
	/* The pool is a stack: pop from its top straight into the ring. */
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(fq, idx + i) =
			t->pool.addrs[--t->pool.count];
	xsk_ring_prod__submit(fq, n);
	return n;
}

static uint32_t take_returns(struct rx_task *t)
{
	uint64_t addrs[RX_MAX_BATCH];
	uint32_t total = 0, n, i, r;

	for (r = 0; r < t->n_ret; r++) {
		while ((n = return_ring_dequeue(t->ret[r], addrs,
						RX_MAX_BATCH)) > 0) {
			for (i = 0; i < n; i++)
				frame_pool_put(&t->pool, addrs[i]);
			total += n;
		}
	}
	return total;
}

int rx_task_add_feedback(struct rx_task *t, struct feedback_ring *r)
{
	if (t->n_fb == RX_MAX_FEEDBACK)
		return -ENOSPC;
	t->fb[t->n_fb++] = r;
	return 0;
}

void rx_task_set_policy(struct rx_task *t, const struct qos_policy *pol)
{
	bool any = false;

	for (uint32_t i = 0; i < pol->n_classes; i++)
		any |= pol->classes[i].dcqcn;
	t->dcqcn = any;
	t->absorb_cnps = any && pol->dcqcn.cnp_action == QOS_CNP_ABSORB;
	t->pfc = pol->pfc.enabled;
	t->path_on = t->path_port >= 0 && t->n_path &&
		     pol->port[t->path_port].adaptive.on &&
		     pol->port[t->path_port].rate_bps;
}

int rx_task_add_path(struct rx_task *t, struct pathmon_ring *r, int port)
{
	if (t->n_path == RX_MAX_FEEDBACK || (t->n_path && port != t->path_port))
		return -ENOSPC;
	t->path[t->n_path++] = r;
	t->path_port = port;
	return 0;
}

void rx_task_set_path_owner(struct rx_task *t, const struct path_owner *o)
{
	t->owner = o;
}

/* Adaptive egress: a returning TCP ACK, RoCE ACK/NAK or CNP goes to the
 * path monitor of the egress task of this port that sends its flow
 * (path_owner.h; every one when several do). A segment of a flow no
 * queue of the port sends -- the data of the flows entering the port,
 * which carry the ACK bit -- is not posted. */
static __attribute__((noinline)) void post_path(struct rx_task *t,
						const uint8_t *frame,
						uint32_t head,
						const struct pkt_meta *m)
{
	struct pathmon_ack ev;
	uint32_t i = 0, end = t->n_path;
	int q;

	if (!pathmon_ack_of(frame, head, m, t->arrival_ns, &ev))
		return;
	q = t->owner ? path_owner_find(t->owner, &ev.key) : PATH_OWNER_SEVERAL;
	if (q == PATH_OWNER_NONE || q >= (int)t->n_path) {
		ctr_add(&t->ctr.path_events_unowned, 1);
		return;
	}
	if (q >= 0) {
		i = (uint32_t)q;
		end = i + 1;
	}
	ctr_add(&t->ctr.path_events, 1);
	for (; i < end; i++)
		if (!pathmon_ring_enqueue(t->path[i], &ev, 1))
			ctr_add(&t->ctr.path_events_lost, 1);
}

/* What classify_frame() returns for a frame that does not go on (a meta
 * word is >= 0). */
enum {
	RX_FRAME_MALFORMED = -1, /* dropped: malformed, counted by the caller */
	RX_FRAME_CONSUMED = -2, /* absorbed here: a CNP or MAC control frame */
};

/* A MAC control frame (EtherType 0x8808) is link-local: never forwarded.
 * A PFC frame goes, with PFC on, to the egress tasks of this port (the
 * peer asks this port to stop sending: feedback.h FB_PFC). Returns
 * RX_FRAME_CONSUMED. */
static __attribute__((noinline)) int64_t
rx_mac_control(struct rx_task *t, const uint8_t *frame, uint32_t len)
{
	struct fb_event ev = {.type = FB_PFC};
	struct pfc_frame f;

	if (pfc_parse(frame, len, &f) != PFC_OK) {
		ctr_add(&t->ctr.mac_control_drops, 1);
		return RX_FRAME_CONSUMED;
	}
	ctr_add(&t->ctr.pfc_frames, 1);
	if (!t->pfc)
		return RX_FRAME_CONSUMED;
	ev.class_id = f.vector;
	memcpy(ev.src, f.quanta, sizeof(f.quanta));
	for (uint32_t i = 0; i < t->n_fb; i++)
		if (!feedback_ring_enqueue(t->fb[i], &ev, 1))
			ctr_add(&t->ctr.feedback_full, 1);
	return RX_FRAME_CONSUMED;
}

/* A CNP or ACK for the reaction points of this port's egress tasks.
 * Returns true if the frame is absorbed (dropped here). */
static bool post_feedback(struct rx_task *t, const struct pkt_meta *m)
{
	struct fb_event ev = {0};

	if (m->bth_opcode == BTH_OP_CNP) {
		ev.type = FB_CNP;
		ctr_add(&t->ctr.cnps_seen, 1);
	} else if (m->bth_opcode == BTH_OP_RC_ACK) {
		ev.type = FB_ACK;
		ctr_add(&t->ctr.acks_seen, 1);
	} else {
		return false;
	}
	ev.family = m->l3 == PKT_L3_IPV6 ? 6 : 4;
	ev.qpn = m->bth_dqpn;
	ev.psn = m->bth_psn;
	memcpy(ev.src, m->src, sizeof(ev.src));
	for (uint32_t i = 0; i < t->n_fb; i++)
		if (!feedback_ring_enqueue(t->fb[i], &ev, 1))
			ctr_add(&t->ctr.feedback_full, 1);
	if (ev.type == FB_CNP && t->absorb_cnps) {
		ctr_add(&t->ctr.cnps_absorbed, 1);
		return true;
	}
	return false;
}

/* ports[].checksum: complete a TCP/UDP checksum the sender left partial
 * (l4_csum.h), in place: the frame is one of this task's UMEM frames,
 * writable (const is the parse path's promise, not the buffer's). head <
 * len: the first frame of the chain being assembled (t->chain.c), whose
 * other frames the sum covers too. */
static __attribute__((noinline)) void rx_csum(struct rx_task *t,
					      const uint8_t *frame,
					      uint32_t head, uint32_t len,
					      const struct pkt_meta *m)
{
	struct l4_csum_seg seg[FRAME_CHAIN_MAX];
	const struct frame_chain *c = &t->chain.c;
	uint32_t n = 1;
	int r;

	seg[0].data = (uint8_t *)frame;
	seg[0].len = head;
	if (head != len) {
		n = MIN(c->n, FRAME_CHAIN_MAX);
		for (uint32_t i = 1; i < n; i++) {
			seg[i].data = (uint8_t *)t->umem->base + c->addr[i];
			seg[i].len = c->len[i];
		}
	}
	r = l4_csum_fix_segs(seg, n, m);
	if (r == L4_CSUM_COMPLETED)
		ctr_add(&t->ctr.csum_completed, 1);
	else if (r == L4_CSUM_BAD)
		ctr_add(&t->ctr.csum_bad, 1);
	else if (r == L4_CSUM_NOT_COMPLETED)
		ctr_add(&t->ctr.csum_not_completed, 1);
}

/* Parse and classify one frame: its frame_desc meta, RX_FRAME_MALFORMED
 * to drop it as malformed, RX_FRAME_CONSUMED when it was absorbed (a CNP
 * the gateway consumed, or a MAC control frame: rx_mac_control). */
static inline int64_t classify_frame(struct rx_task *t, const uint8_t *frame,
				     uint32_t head, uint32_t len)
{
	struct pkt_meta m;
	/* head < len: the first frame of a chain (folded away when the
	 * caller passes len twice) */
	int bad;

	if (unlikely(pfc_is_mac_control(frame, head)))
		return rx_mac_control(t, frame, head == len ? len : UINT32_MAX);
	bad = likely(head == len) ? pkt_parse(frame, len, &m)
				  : pkt_parse_head(frame, head, len, &m);
	if (likely(!bad)) {
		if (unlikely(t->path_on) && (m.flags & PKT_F_PORTS))
			post_path(t, frame, head, &m);
		if (unlikely(t->dcqcn && (m.flags & PKT_F_BTH) &&
			     m.l3 != PKT_L3_NONE) &&
		    post_feedback(t, &m))
			return RX_FRAME_CONSUMED;
		if (t->csum && (m.flags & PKT_F_PORTS))
			rx_csum(t, frame, head, len, &m);
		return frame_meta_pack(classify(t->cls, &m), m.ecn, m.l3,
				       m.l3_off) |
		       frame_meta_l4_of(&m);
	}
	ctr_add(&t->ctr.malformed[bad], 1);
	if (classifier_drops_malformed(t->cls))
		return RX_FRAME_MALFORMED;
	return frame_meta_pack(t->cls->default_class, 0, 0, 0);
}

/* Could the kernel have produced RX descriptor d? Its frame is one of this
 * task's partition (it came from our fill ring) and its bytes lie inside
 * that frame and within max_len. Anything else is counted and dropped; its
 * frame goes back to the pool only when it is ours (frame_pool_reclaim). */
static inline bool rx_desc_valid(const struct rx_task *t,
				 const struct xdp_desc *d)
{
	uint64_t mask = t->pool.frame_mask;

	return d->len <= t->max_len && (d->addr & mask) + d->len <= mask + 1 &&
	       frame_pool_owns(&t->pool, d->addr & ~mask);
}

/* A descriptor of a multi-buffer packet (XDP_PKT_CONTD, or a packet under
 * way). Returns 1 when it completed a packet that goes on (in *out), 0
 * when more is to come or the packet was dropped (counted, every frame
 * back in the pool). */
static __attribute__((noinline)) uint32_t
rx_chain(struct rx_task *t, const struct xdp_desc *d, struct frame_desc *out)
{
	const struct umem_area *u = t->umem;
	struct frame_chain *c = &t->chain.c;
	bool valid = d->len && rx_desc_valid(t, d);
	int64_t meta;

	if (unlikely(!t->multibuf)) { /* the kernel split it: SG is off */
		if (frame_pool_reclaim(&t->pool, u, d->addr))
			ctr_add(&t->ctr.drop_multibuf, 1);
		else
			ctr_add(&t->ctr.drop_invalid_desc, 1);
		return 0;
	}
	switch (chain_asm_add(&t->chain, u, &t->pool, d->addr, d->len,
			      d->options, valid)) {
	case CHAIN_MORE:
		t->in_chain = true;
		return 0;
	case CHAIN_DROP_LONG:
		t->in_chain = false;
		ctr_add(&t->ctr.drop_chain_long, 1);
		return 0;
	case CHAIN_DROP_INVALID:
		t->in_chain = false;
		ctr_add(&t->ctr.drop_invalid_desc, 1);
		return 0;
	case CHAIN_DONE:
		break;
	}
	t->in_chain = false;
	if (unlikely(c->n < 2)) { /* a lone last descriptor: one frame */
		meta = classify_frame(t, (uint8_t *)u->base + c->addr[0],
				      c->len[0], c->len[0]);
		if (meta < 0)
			goto drop_malformed;
		out->addr = c->addr[0];
		out->len = c->len[0];
		out->meta = (uint32_t)meta;
		c->n = 0;
		c->total = 0;
		return 1;
	}
	if (unlikely(c->len[0] < MIN(c->total, FRAME_CHAIN_HEAD_MIN))) {
		ctr_add(&t->ctr.drop_chain_head, 1);
		goto drop;
	}
	if (unlikely(!frame_chain_fits(u, c->addr[0]))) {
		ctr_add(&t->ctr.drop_chain_room, 1);
		goto drop;
	}
	meta = classify_frame(t, (uint8_t *)u->base + c->addr[0], c->len[0],
			      c->total);
	if (unlikely(meta < 0))
		goto drop_malformed;
	memcpy(frame_chain_of(u, c->addr[0]), c, sizeof(*c));
	out->addr = c->addr[0];
	out->len = c->total;
	out->meta = (uint32_t)meta | FRAME_META_CHAIN;
	c->n = 0;
	c->total = 0;
	ctr_add(&t->ctr.chains, 1);
	return 1;
drop_malformed:
	if (meta == RX_FRAME_MALFORMED)
		ctr_add(&t->ctr.drop_malformed, 1);
drop:
	chain_asm_discard(&t->chain, u, &t->pool);
	return 0;
}

/* Every frame of a packet that could not be handed over back to the
 * pool. */
static void drop_desc(struct rx_task *t, const struct frame_desc *d)
{
	uint64_t starts[FRAME_CHAIN_MAX];
	uint32_t n = frame_desc_frames(t->umem, d, starts);

	for (uint32_t i = 0; i < n; i++)
		frame_pool_put(&t->pool, starts[i]);
}

/* The headers of the frame at UMEM address addr (any value: a prefetch
 * never faults): its first cache line, which holds every header classify
 * reads but TCP options and IPv6 (measured: prefetching the second line
 * as well cost more than it saved at 1514 B). The kernel wrote the frame
 * when it entered the RX ring; with the ring backlogged that was up to
 * rings.rx frames ago (MBs at 1500 B), so its lines have left this
 * core's caches, and the first read of each frame was a cache miss that
 * the bare forwarder (which never reads a frame) does not have. Issued
 * RX_PREFETCH_AHEAD frames ahead, the misses overlap. */
#define RX_PREFETCH_AHEAD 8
static inline void prefetch_headers(const struct rx_task *t,
				    const struct xdp_desc *d)
{
	const uint8_t *p = (const uint8_t *)t->umem->base + d->addr;

	__builtin_prefetch(p);
}

uint32_t rx_task_poll(struct rx_task *t)
{
	return rx_task_poll_at(t, mono_ns());
}

/* The first descriptor of a packet: its arrival (t->arrival_ns) and, when
 * the steering program stamped it, the descriptor without the stamp in
 * *dd. Only a descriptor inside this task's partition is read. */
static inline const struct xdp_desc *
rx_unstamp(struct rx_task *t, const struct xdp_desc *d, struct xdp_desc *dd)
{
	uint64_t mask = t->pool.frame_mask;
	uint32_t n;

	t->arrival_ns = t->now_ns;
	if (unlikely((d->addr & mask) + d->len > mask + 1 ||
		     !frame_pool_owns(&t->pool, d->addr & ~mask)))
		return d;
	n = rx_stamp_of((const uint8_t *)t->umem->base + d->addr, d->len,
			t->now_ns, &t->arrival_ns);
	if (!n)
		return d;
	dd->addr = d->addr + n;
	dd->len = d->len - n;
	dd->options = d->options;
	return dd;
}

uint32_t rx_task_poll_at(struct rx_task *t, uint64_t now)
{
	struct frame_desc descs[RX_MAX_BATCH];
	const struct xdp_desc *d;
	struct xdp_desc dd;
	uint32_t work, n, idx, i, k = 0, sent;
	uint64_t bytes = 0, invalid = 0, malformed = 0;
	int64_t meta;

	work = take_returns(t);
	work += rx_task_refill(t);
	t->now_ns = now; /* path events */

	n = xsk_ring_cons__peek(&t->xq->rx, t->batch, &idx);
	if (!n) {
		if (xsk_ring_prod__needs_wakeup(&t->xq->fill) &&
		    likely(!t->xq->mute)) {
			recvfrom(t->xq->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
			ctr_add(&t->ctr.fill_wakeups, 1);
		}
		return work;
	}
	for (i = 0; i < MIN(n, RX_PREFETCH_AHEAD); i++)
		prefetch_headers(t,
				 xsk_ring_cons__rx_desc(&t->xq->rx, idx + i));
	for (i = 0; i < n; i++) {
		if (i + RX_PREFETCH_AHEAD < n)
			prefetch_headers(t,
					 xsk_ring_cons__rx_desc(
						 &t->xq->rx,
						 idx + i + RX_PREFETCH_AHEAD));
		d = xsk_ring_cons__rx_desc(&t->xq->rx, idx + i);
		if (likely(!t->in_chain))
			d = rx_unstamp(t, d, &dd);
		if (unlikely((d->options & XDP_PKT_CONTD) | t->in_chain)) {
			if (rx_chain(t, d, &descs[k])) {
				bytes += descs[k].len;
				k++;
			}
			continue;
		}
		if (unlikely(!rx_desc_valid(t, d))) {
			invalid++;
			frame_pool_reclaim(&t->pool, t->umem, d->addr);
			continue;
		}
		meta = classify_frame(t, (uint8_t *)t->umem->base + d->addr,
				      d->len, d->len);
		if (unlikely(meta < 0)) {
			if (meta == RX_FRAME_MALFORMED)
				malformed++;
			goto drop;
		}
		descs[k].addr = d->addr;
		descs[k].len = d->len;
		descs[k].meta = (uint32_t)meta;
		bytes += d->len;
		k++;
		continue;
	drop:
		frame_pool_put(&t->pool, umem_frame_start(t->umem, d->addr));
	}
	xsk_ring_cons__release(&t->xq->rx, n);

	sent = handoff_ring_enqueue(t->out, descs, k);
	for (i = sent; i < k; i++)
		drop_desc(t, &descs[i]);
	ctr_add(&t->ctr.packets, n);
	ctr_add(&t->ctr.bytes, bytes);
	if (unlikely(k - sent))
		ctr_add(&t->ctr.drop_handoff_full, k - sent);
	if (unlikely(invalid))
		ctr_add(&t->ctr.drop_invalid_desc, invalid);
	if (unlikely(malformed))
		ctr_add(&t->ctr.drop_malformed, malformed);
	return work + n;
}

void rx_task_census(struct rx_task *t, struct umem_census *c)
{
	for (uint32_t i = 0; i < t->pool.count; i++)
		umem_census_add(c, t->pool.addrs[i]);
	for (uint32_t i = 0; i < t->chain.c.n; i++)
		umem_census_add(c,
				umem_frame_start(t->umem, t->chain.c.addr[i]));
}

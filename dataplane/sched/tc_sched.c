// SPDX-License-Identifier: BSD-2-Clause
/*
 * tc_sched.c - the scheduler's per-packet path (see tc_sched.h): enqueue,
 * dequeue, the next event, PFC pause and flush, the census walk, and the
 * invariant checks every call of the path ends with. Set-up, the layout of
 * a policy and the live reload are in tc_sched_config.c.
 */
#include "tc_sched_priv.h"

/*
 * The invariants of tc_sched.h ("Invariants (between calls)"), checked with
 * DP_ASSERT at the end of every call that changes the queues, in builds
 * with XDPLANE_ASSERTS; nothing in the others. O(slots) per call; `deep`
 * also walks every queued frame (bytes and class ids against the frames,
 * the DCQCN flow tables against head/tail), for the rare calls only.
 */
#if DP_ASSERTS_ON
/* The largest charge of one frame, whatever the overhead: a reload may
 * lower it while a bucket still holds the debt of a frame sent before. */
#define SCHED_MAX_CHARGE ((uint64_t)SCHED_MAX_FRAME_LEN + SCHED_MAX_OVERHEAD)

static void check_bucket(const struct tbucket *tb)
{
	DP_ASSERT(tb->tokens <= tb->burst);
	DP_ASSERT(tb->tokens >= -(int64_t)(SCHED_MAX_CHARGE << TB_FRAC));
}

/* The frames a class holds: as many as head/tail count, c->bytes bytes. */
static void check_frames(const struct sched_class *c)
{
	uint64_t bytes = 0;
	uint32_t n = c->tail - c->head;

	if (c->fq) {
		n = flowq_census(c->fq, &bytes);
	} else {
		for (uint32_t k = c->head; k != c->tail; k++) {
			const struct frame_desc *d = &c->ring[k & c->mask].d;

			DP_ASSERT(sched_meta_class(d->meta) == c->id);
			bytes += d->len;
		}
	}
	DP_ASSERT(n == c->tail - c->head);
	DP_ASSERT(bytes == c->bytes);
}

void sched_check(const struct sched *s, bool deep)
{
	uint32_t all, backlog = 0;

	DP_ASSERT(s->n_slots >= 1 && s->n_slots <= QOS_MAX_CLASSES);
	DP_ASSERT(s->n_levels >= 1 && s->n_levels <= s->n_slots);
	all = (uint32_t)((1ull << s->n_slots) - 1);
	DP_ASSERT(!((s->active | s->fq_mask | s->ceil_mask | s->min_mask |
		     s->pause_mask | s->lossless_mask) &
		    ~all));
	if (s->port_shaped)
		check_bucket(&s->port);
	for (uint32_t lv = 0; lv < s->n_levels; lv++)
		DP_ASSERT(s->level_mask[lv] >> s->drr_pos[lv] & 1);
	for (uint32_t i = 0; i < s->n_slots; i++) {
		const struct sched_class *c = &s->cl[i];
		const struct sched_class_stats *st = &s->st[i];
		uint32_t n = c->tail - c->head;

		DP_ASSERT(s->slot_of[c->id] == i &&
			  s->slot_level[i] == c->level);
		DP_ASSERT(n <= c->mask + 1);
		DP_ASSERT((s->active >> i & 1) == (n != 0));
		DP_ASSERT((s->fq_mask >> i & 1) == (c->fq != NULL));
		DP_ASSERT(sched_depth_packets(st) == n);
		DP_ASSERT(sched_depth_bytes(st) == c->bytes);
		DP_ASSERT(n || !c->bytes);
		/* DWRR: a quantum is added only while the deficit cannot pay
		 * for the head frame, the deficit is reset when the class
		 * empties, a reload cuts it to the quantum */
		DP_ASSERT(n ? c->deficit < c->quantum + SCHED_MAX_CHARGE
			    : c->deficit == 0);
		if (s->ceil_mask >> i & 1)
			check_bucket(&c->ceil);
		if (s->min_mask >> i & 1)
			check_bucket(&c->min);
		/* a DCQCN class's frames are in its flows: some flow is on
		 * the round robin iff head/tail count frames */
		if (c->fq)
			DP_ASSERT(!c->fq->n_active == !n &&
				  c->fq->n_active <= n);
		if (deep)
			check_frames(c);
		backlog += n;
	}
	DP_ASSERT(backlog == s->backlog);
}
#endif

int sched_enqueue(struct sched *s, const struct frame_desc *d, uint8_t *frame,
		  uint64_t now_ns)
{
	unsigned int slot = s->slot_of[sched_meta_class(d->meta)];
	struct sched_class_stats *st;
	struct sched_class *c;
	struct sched_entry *e;
	uint32_t meta = d->meta;
	uint64_t qbytes;
	int r;

	if (unlikely(slot >= s->n_slots)) {
		ctr_add(&s->bad_class, 1);
		sched_check(s, false);
		return SCHED_DROP_INVALID;
	}
	c = &s->cl[slot];
	st = &s->st[slot];
	qbytes = c->bytes;
	if (unlikely(d->len > SCHED_MAX_FRAME_LEN)) {
		r = SCHED_DROP_INVALID;
		goto drop;
	}
	if (c->tail - c->head >= c->limit_packets) {
		r = SCHED_DROP_QUEUE_PACKETS;
		goto drop_limit;
	}
	if (qbytes + d->len > c->limit_bytes) {
		r = SCHED_DROP_QUEUE_BYTES;
		goto drop_limit;
	}
	/* RED at enqueue on the class queue; a DCQCN class marks at dequeue
	 * instead (mark_flow_frame), on the bytes past their rate gates */
	if (c->ecn && !c->fq && ecn_red_choose(&c->red, qbytes, &s->rng)) {
		unsigned int ecn = sched_meta_ecn(meta);

		/* ECT: mark CE; if the header cannot be marked, it is
		 * handled as Not-ECT. CE stays CE. */
		if ((ecn == ECN_ECT0 || ecn == ECN_ECT1) &&
		    ecn_mark_ce(frame, d->len, sched_meta_l3(meta),
				sched_meta_l3off(meta)) == ECN_MARKED) {
			meta = sched_meta_set_ecn(meta, ECN_CE);
			ctr_add(&st->ecn_marks, 1);
		} else if (ecn != ECN_CE && c->nonect_drop) {
			r = SCHED_DROP_ECN_NONECT;
			goto drop;
		}
	}
	if (c->fq) {
		struct frame_desc fd = {d->addr, d->len, meta};
		struct flowq_key k;
		uint32_t fid;

		flowq_key_of(frame, frame ? d->len : 0, meta, c->fq->key_kind,
			     &k);
		fid = flowq_push(c->fq, &k, &fd, frame, now_ns);
		if (unlikely(fid == FLOWQ_NONE)) {
			r = SCHED_DROP_FLOW_TABLE;
			goto drop;
		}
	} else {
		e = &c->ring[c->tail & c->mask];
		e->d.addr = d->addr;
		e->d.len = d->len;
		e->d.meta = meta;
		e->t_enq = now_ns;
	}
	c->tail++;
	c->bytes += d->len;
	s->active |= 1u << slot;
	s->backlog++;
	ctr_add(&st->enq_packets, 1);
	ctr_add(&st->enq_bytes, d->len);
	sched_check(s, false);
	return SCHED_QUEUED;
drop_limit:
	/* a lossless class over its limit: PFC failed to stop the sender */
	if (c->lossless)
		r = SCHED_DROP_LOSSLESS_OVERFLOW;
drop:
	ctr_add(&st->drops[r], 1);
	sched_check(s, false);
	return r;
}

/* PFC: the paused slots at now; deadlines passed are forgotten. */
static uint32_t paused_slots(struct sched *s, uint64_t now_ns)
{
	uint32_t paused = 0;

	for (uint32_t m = s->pause_mask; m; m &= m - 1) {
		unsigned int i = (unsigned int)__builtin_ctz(m);

		if (now_ns < s->paused_until[i])
			paused |= 1u << i;
	}
	s->pause_mask = paused;
	return paused;
}

uint32_t sched_pause_pcp(struct sched *s, unsigned int pcp, uint64_t until_ns)
{
	uint32_t slots = pcp < 8 ? s->pcp_slots[pcp] : 0;

	for (uint32_t m = slots; m; m &= m - 1) {
		unsigned int i = (unsigned int)__builtin_ctz(m);

		s->paused_until[i] = until_ns;
	}
	if (until_ns)
		s->pause_mask |= slots;
	else
		s->pause_mask &= ~slots;
	return slots;
}

uint32_t sched_flush_pcp(struct sched *s, unsigned int pcp, uint64_t now_ns,
			 void (*fn)(const struct frame_desc *, void *),
			 void *arg)
{
	uint32_t slots = pcp < 8 ? s->pcp_slots[pcp] : 0, total = 0;

	for (uint32_t m = slots; m; m &= m - 1) {
		unsigned int i = (unsigned int)__builtin_ctz(m);
		struct sched_class *c = &s->cl[i];
		struct sched_class_stats *st = &s->st[i];
		uint32_t n = c->tail - c->head;
		uint64_t bytes = 0;

		if (c->fq) {
			/* a DCQCN class (RoCE is lossless and DCQCN): its
			 * frames are in the flows, head/tail only count
			 * them */
			uint32_t k =
				flowq_flush(c->fq, now_ns, fn, arg, &bytes);

			DP_ASSERT(k == n);
			n = k;
			c->head = c->tail;
		} else {
			for (; c->head != c->tail; c->head++) {
				const struct frame_desc *d =
					&c->ring[c->head & c->mask].d;

				bytes += d->len;
				fn(d, arg);
			}
		}
		DP_ASSERT(bytes == c->bytes);
		/* gone unsent: the depth gauges read 0, sent stays true */
		ctr_add(&st->flushed_packets, n);
		ctr_add(&st->flushed_bytes, bytes);
		ctr_add(&st->drops[SCHED_DROP_PFC_WATCHDOG], n);
		c->bytes = 0;
		c->deficit = 0;
		s->active &= ~(1u << i);
		s->backlog -= n;
		total += n;
	}
	sched_check(s, true);
	return total;
}

/* Next set bit of m after bit `pos`, wrapping; m != 0. */
static inline unsigned int next_slot(uint32_t m, unsigned int pos)
{
	uint32_t after = m & ~((2u << pos) - 1);

	return (unsigned int)__builtin_ctz(after ? after : m);
}

/* The frame a class sends next; a DCQCN class's is the head of the flow
 * its last successful flowq_peek() chose (the cursor). */
static inline uint32_t head_cost(const struct sched *s,
				 const struct sched_class *c)
{
	if (c->fq)
		return flowq_head_len(c->fq, c->fq->cursor) + s->overhead;
	return c->ring[c->head & c->mask].d.len + s->overhead;
}

/* CP of a DCQCN class: RED chose a frame leaving its flow. An ECT frame
 * is marked CE (the header and its meta) and the flow's NP rule hears of
 * it; anything else leaves unmarked (a DCQCN class never drops here). */
static void mark_flow_frame(struct sched *s, struct sched_class *c,
			    struct sched_class_stats *st, uint32_t fid,
			    struct frame_desc *d, uint64_t now_ns)
{
	unsigned int ecn = sched_meta_ecn(d->meta);

	if ((ecn != ECN_ECT0 && ecn != ECN_ECT1) || !s->frame_base ||
	    ecn_mark_ce(s->frame_base + d->addr, d->len, sched_meta_l3(d->meta),
			sched_meta_l3off(d->meta)) != ECN_MARKED)
		return;
	d->meta = sched_meta_set_ecn(d->meta, ECN_CE);
	ctr_add(&st->ecn_marks, 1);
	flowq_marked(c->fq, fid, now_ns);
}

/* DCQCN classes among `m` with no flow allowed to send at now. */
static uint32_t flows_blocked(struct sched *s, uint32_t m, uint64_t now_ns)
{
	uint32_t blocked = 0;

	for (m &= s->fq_mask; m; m &= m - 1) {
		unsigned int i = (unsigned int)__builtin_ctz(m);

		if (flowq_peek(s->cl[i].fq, now_ns) == FLOWQ_NONE)
			blocked |= 1u << i;
	}
	return blocked;
}

/* Housekeeping of the DCQCN classes: deferred NP CNPs, idle flows. */
static void flows_tick(struct sched *s, uint64_t now_ns)
{
	for (uint32_t m = s->fq_mask; m; m &= m - 1) {
		struct flowq *q = s->cl[__builtin_ctz(m)].fq;

		flowq_np_poll(q, now_ns);
		flowq_expire(q, now_ns);
	}
}

uint32_t sched_dequeue(struct sched *s, struct frame_desc *out, uint32_t max,
		       uint64_t now_ns)
{
	uint32_t act = s->active, blocked, min_ok = 0, m, n = 0;

	if (unlikely(s->fq_mask))
		flows_tick(s, now_ns);
	if (!act) {
		sched_check(s, false);
		return 0;
	}
	blocked =
		unlikely(s->fq_mask & act) ? flows_blocked(s, act, now_ns) : 0;
	if (unlikely(s->pause_mask))
		blocked |= paused_slots(s, now_ns);
	/* Refill once per call: within a call now_ns does not move, so a
	 * bucket that goes into debt stays there until the next call. */
	if (s->port_shaped)
		tb_refill(&s->port, now_ns);
	for (m = act & (s->ceil_mask | s->min_mask); m; m &= m - 1) {
		unsigned int i = (unsigned int)__builtin_ctz(m);
		struct sched_class *c = &s->cl[i];

		if (s->ceil_mask & (1u << i)) {
			tb_refill(&c->ceil, now_ns);
			if (!tb_conforms(&c->ceil))
				blocked |= 1u << i;
		}
		if (s->min_mask & (1u << i)) {
			tb_refill(&c->min, now_ns);
			if (tb_conforms(&c->min))
				min_ok |= 1u << i;
		}
	}

	while (n < max) {
		uint32_t elig = act & ~blocked, cost, bit;
		struct sched_class_stats *st;
		struct sched_class *c;
		struct sched_entry *e, popped;
		struct flowq_entry fe;
		unsigned int i;
		uint64_t soj;

		if (!elig || (s->port_shaped && !tb_conforms(&s->port)))
			break;
		if (elig & min_ok) {
			/* guaranteed minimum, level order */
			i = (unsigned int)__builtin_ctz(elig & min_ok);
			c = &s->cl[i];
			cost = head_cost(s, c);
			tb_charge(&c->min, cost);
			if (!tb_conforms(&c->min))
				min_ok &= ~(1u << i);
		} else {
			/* strict priority: the level of the first eligible
			 * slot; DRR among its eligible slots */
			unsigned int lv = s->slot_level[__builtin_ctz(elig)];

			elig &= s->level_mask[lv];
			i = s->drr_pos[lv];
			c = &s->cl[i];
			cost = (elig & (1u << i)) ? head_cost(s, c)
						  : UINT32_MAX;
			if (c->deficit < cost) {
				/* the turn moves on; a class gets a quantum
				 * only if what it has left cannot pay for its
				 * head (so an interrupted turn is resumed,
				 * and deficit < quantum + one frame) */
				do {
					i = next_slot(elig, i);
					c = &s->cl[i];
					cost = head_cost(s, c);
					if (c->deficit < cost)
						c->deficit += c->quantum;
				} while (c->deficit < cost);
				s->drr_pos[lv] = (uint8_t)i;
			}
			c->deficit -= cost;
		}

		bit = 1u << i;
		st = &s->st[i];
		if (c->fq) {
			uint32_t fid = c->fq->cursor;
			uint64_t vq = c->ecn ? flowq_vqueue(c->fq, now_ns) : 0;

			flowq_pop(c->fq, fid, now_ns, &fe);
			if (c->ecn && ecn_red_choose(&c->red, vq, &s->rng))
				mark_flow_frame(s, c, st, fid, &fe.d, now_ns);
			popped.d = fe.d;
			/* a flow's frames keep the meta they came with: a
			 * reload may have renumbered the class (or moved a
			 * removed class's frames here); the frame leaves with
			 * the id of the class it leaves from (marking) */
			popped.d.meta = (fe.d.meta &
					 ~(0xfu << SCHED_META_CLASS_SHIFT)) |
					(uint32_t)c->id
						<< SCHED_META_CLASS_SHIFT;
			popped.t_enq = fe.t_enq;
			e = &popped;
			if (c->head + 1 != c->tail &&
			    flowq_peek(c->fq, now_ns) == FLOWQ_NONE)
				blocked |= bit;
		} else {
			e = &c->ring[c->head & c->mask];
		}
		out[n++] = e->d;
		soj = now_ns > e->t_enq ? now_ns - e->t_enq : 0;
		c->head++;
		c->bytes -= e->d.len;
		if (s->ceil_mask & bit) {
			tb_charge(&c->ceil, cost);
			if (!tb_conforms(&c->ceil))
				blocked |= bit;
		}
		if (s->port_shaped)
			tb_charge(&s->port, cost);
		if (c->head == c->tail) {
			act &= ~bit;
			c->deficit = 0;
		}
		ctr_add(&st->sent_packets, 1);
		ctr_add(&st->sent_bytes, e->d.len);
		ctr_add(&st->sojourn[sched_sojourn_bucket(soj)], 1);
	}
	s->active = act;
	s->backlog -= n;
	sched_check(s, false);
	return n;
}

uint64_t sched_next_event_ns(const struct sched *s, uint64_t now_ns)
{
	uint64_t t = UINT64_MAX, p;
	uint32_t m;

	/* deferred NP CNPs are due even when the classes are empty */
	for (m = s->fq_mask; m; m &= m - 1) {
		const struct flowq *q = s->cl[__builtin_ctz(m)].fq;

		if (q->np && q->np_next_ns != UINT64_MAX)
			t = MIN(t, MAX(q->np_next_ns, now_ns));
	}
	if (!s->active)
		return t;
	for (m = s->active; m; m &= m - 1) {
		unsigned int i = (unsigned int)__builtin_ctz(m);
		uint64_t ti = now_ns;

		if (s->ceil_mask & (1u << i))
			ti = tb_ready_ns(&s->cl[i].ceil, now_ns);
		if (s->fq_mask & (1u << i))
			ti = MAX(ti, flowq_next_ns(s->cl[i].fq, now_ns));
		if (s->pause_mask & (1u << i))
			ti = MAX(ti, s->paused_until[i]);
		t = MIN(t, ti);
	}
	if (s->port_shaped) {
		p = tb_ready_ns(&s->port, now_ns);
		t = MAX(t, p);
	}
	return t;
}

void sched_foreach(struct sched *s,
		   void (*fn)(const struct frame_desc *, void *), void *arg)
{
	for (uint32_t i = 0; i < s->n_slots; i++) {
		const struct sched_class *c = &s->cl[i];

		if (c->fq) {
			flowq_foreach(c->fq, fn, arg);
			continue;
		}
		for (uint32_t k = c->head; k != c->tail; k++)
			fn(&c->ring[k & c->mask].d, arg);
	}
}

const struct sched_class_stats *sched_class_stats(const struct sched *s,
						  unsigned int class_id)
{
	if (class_id >= 16 || s->slot_of[class_id] >= s->n_slots)
		return NULL;
	return &s->st[s->slot_of[class_id]];
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * tc_sched.c - the scheduler's per-packet path (see tc_sched.h): enqueue,
 * dequeue, the next event, PFC pause and flush, the census walk, and the
 * invariant checks every call of the path ends with. Set-up, the layout of
 * a policy and the live reload are in tc_sched_config.c.
 */
#include <stddef.h>
#include "tc_sched_priv.h"

/* The fields of a class every enqueue and dequeue touches share the first
 * cache line of its struct; the ceiling bucket starts the second. */
_Static_assert(offsetof(struct sched_class, ceil) == CACHELINE,
	       "sched_class: hot fields in one cache line");

/*
 * The invariants of tc_sched.h ("Invariants (between calls)"), checked with
 * DP_ASSERT in builds with XDPLANE_ASSERTS; nothing in the others. Every
 * call that changes the queues ends with sched_check(): O(slots), and
 * `deep` also walks every queued frame (bytes and class ids against the
 * frames, the DCQCN flow tables against head/tail), for the rare calls
 * only. An enqueue, which changes one slot (its queue, counters, bit of
 * `active`) and `backlog`, ends with sched_check_slot(): that slot's
 * invariants, O(1); the sum behind `backlog` is checked by the next call
 * that checks everything (each dequeue does).
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

			DP_ASSERT(frame_meta_class(d->meta) == c->id);
			bytes += d->len;
		}
	}
	DP_ASSERT(n == c->tail - c->head);
	DP_ASSERT(bytes == c->bytes);
}

/* Slot i's invariants; returns the frames it holds. */
static uint32_t check_slot(const struct sched *s, uint32_t i, bool deep)
{
	const struct sched_class *c = &s->cl[i];
	const struct sched_class_stats *st = &s->st[i];
	uint32_t n = c->tail - c->head;

	DP_ASSERT(i < s->n_slots);
	DP_ASSERT(s->slot_of[c->id] == i && s->slot_level[i] == c->level);
	DP_ASSERT(s->level_mask[c->level] >> i & 1);
	DP_ASSERT(n <= c->mask + 1);
	DP_ASSERT((s->active >> i & 1) == (n != 0));
	DP_ASSERT((s->fq_mask >> i & 1) == (c->fq != NULL));
	DP_ASSERT(sched_depth_packets(st) == n);
	DP_ASSERT(sched_depth_bytes(st) == c->bytes);
	DP_ASSERT(n || !c->bytes);
	/* the enqueue fast path: no RED below red_from */
	DP_ASSERT(c->red_from == (c->ecn ? c->red.kmin : UINT32_MAX));
	/* DWRR: a quantum is added only while the deficit cannot pay for
	 * the head frame, the deficit is reset when the class empties, a
	 * reload cuts it to the quantum */
	DP_ASSERT(n ? c->deficit < c->quantum + SCHED_MAX_CHARGE
		    : c->deficit == 0);
	if (s->ceil_mask >> i & 1)
		check_bucket(&c->ceil);
	if (s->min_mask >> i & 1)
		check_bucket(&c->min);
	/* a DCQCN class's frames are in its flows: some flow is on the round
	 * robin iff head/tail count frames */
	if (c->fq)
		DP_ASSERT(!c->fq->n_active == !n && c->fq->n_active <= n);
	if (deep)
		check_frames(c);
	DP_ASSERT(n <= s->backlog);
	return n;
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
	for (uint32_t i = 0; i < s->n_slots; i++)
		backlog += check_slot(s, i, deep);
	DP_ASSERT(backlog == s->backlog);
}

void sched_check_slot(const struct sched *s, unsigned int slot)
{
	DP_ASSERT(s->n_slots >= 1 && s->n_slots <= QOS_MAX_CLASSES);
	DP_ASSERT(!(s->active >> s->n_slots));
	check_slot(s, slot, false);
}
#endif

/* A frame whose class id the policy lacks. */
static __attribute__((noinline, cold)) int enqueue_bad_class(struct sched *s)
{
	ctr_add(&s->bad_class, 1);
	sched_check(s, false);
	return SCHED_DROP_INVALID;
}

/* Every case of an enqueue: limits, RED/ECN, DCQCN flows. The fast path
 * of sched_enqueue() is the part of this where nothing but the queueing
 * happens. */
static __attribute__((noinline)) int enqueue_full(struct sched *s,
						  const struct frame_desc *d,
						  uint8_t *frame,
						  uint64_t now_ns)
{
	unsigned int slot = s->slot_of[frame_meta_class(d->meta)];
	struct sched_class *c = &s->cl[slot];
	struct sched_class_stats *st = &s->st[slot];
	struct sched_entry *e;
	uint32_t meta = d->meta;
	uint64_t qbytes = c->bytes;
	int r;

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
		unsigned int ecn = frame_meta_ecn(meta);

		/* ECT: mark CE; if the header cannot be marked, it is
		 * handled as Not-ECT. CE stays CE. */
		if ((ecn == ECN_ECT0 || ecn == ECN_ECT1) &&
		    ecn_mark_ce(frame, d->len, frame_meta_l3(meta),
				frame_meta_l3off(meta)) == ECN_MARKED) {
			meta = frame_meta_set_ecn(meta, ECN_CE);
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
	sched_check_slot(s, slot);
	return SCHED_QUEUED;
drop_limit:
	/* a lossless class over its limit: PFC failed to stop the sender */
	if (c->lossless)
		r = SCHED_DROP_LOSSLESS_OVERFLOW;
drop:
	ctr_add(&st->drops[r], 1);
	sched_check_slot(s, slot);
	return r;
}

/*
 * The fast path: a FIFO class, under its limits, and a queue shallower
 * than where RED starts (red_from), so that enqueue_full() would queue
 * the frame unmarked without drawing a random number. Each condition is a
 * branch that goes the same way for nearly every frame whatever its
 * class; anything else goes to enqueue_full(), the same code as before
 * the split.
 */
int sched_enqueue(struct sched *s, const struct frame_desc *d, uint8_t *frame,
		  uint64_t now_ns)
{
	unsigned int slot = s->slot_of[frame_meta_class(d->meta)];
	struct sched_class *c;
	struct sched_class_stats *st;
	struct sched_entry *e;
	uint32_t len = d->len, qbytes;

	if (unlikely(slot >= s->n_slots))
		return enqueue_bad_class(s);
	c = &s->cl[slot];
	qbytes = c->bytes;
	if (unlikely(c->fq || len > SCHED_MAX_FRAME_LEN ||
		     c->tail - c->head >= c->limit_packets ||
		     (uint64_t)qbytes + len > c->limit_bytes ||
		     qbytes >= c->red_from))
		return enqueue_full(s, d, frame, now_ns);
	e = &c->ring[c->tail & c->mask];
	e->d = *d;
	e->t_enq = now_ns;
	c->tail++;
	c->bytes = qbytes + len;
	s->active |= 1u << slot;
	s->backlog++;
	st = &s->st[slot];
	ctr_add(&st->enq_packets, 1);
	ctr_add(&st->enq_bytes, len);
	sched_check_slot(s, slot);
	return SCHED_QUEUED;
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
 * it; anything else leaves unmarked (a DCQCN class never drops here).
 * When the gateway's own NP covers the flow (flowq_np_covers) the mark is
 * counted and the NP hears of it, but the frame leaves ECT: the NP's CNP
 * is the one notification of this congestion, and a CE mark would make
 * the receiver send a second one for it and the sender cut twice. */
static void mark_flow_frame(struct sched *s, struct sched_class *c,
			    struct sched_class_stats *st, uint32_t fid,
			    struct frame_desc *d, uint64_t now_ns)
{
	unsigned int ecn = frame_meta_ecn(d->meta);

	if ((ecn == ECN_ECT0 || ecn == ECN_ECT1) &&
	    flowq_np_covers(c->fq, fid)) {
		ctr_add(&st->ecn_marks, 1);
		flowq_marked(c->fq, fid, now_ns);
		return;
	}
	if ((ecn != ECN_ECT0 && ecn != ECN_ECT1) || !s->frame_base ||
	    ecn_mark_ce(s->frame_base + d->addr, d->len, frame_meta_l3(d->meta),
			frame_meta_l3off(d->meta)) != ECN_MARKED)
		return;
	d->meta = frame_meta_set_ecn(d->meta, ECN_CE);
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

/* What one sched_dequeue() call tracks from frame to frame. */
struct deq_state {
	uint32_t act; /* backlogged slots */
	uint32_t blocked; /* slots that may not send again in this call */
	uint32_t min_ok; /* slots whose min bucket conforms */
	uint32_t n; /* frames handed out */
};

/* Whole bytes a bucket holds (it conforms: tokens >= 0): the bucket goes
 * into debt when the charges since then exceed this. */
static inline uint64_t tb_whole_bytes(const struct tbucket *tb)
{
	DP_ASSERT(tb->tokens >= 0);
	return (uint64_t)tb->tokens >> TB_FRAC;
}

/*
 * A run of the FIFO class in slot i: the frames the frame-by-frame
 * selection would take from it one after the other. The selection has
 * chosen the class and charged nothing; its head frame may go. by_min:
 * chosen by the minimum phase, each frame is charged to the min bucket
 * and the class stays the choice while that bucket conforms (it is the
 * first eligible slot with a conforming minimum, and no other slot gains
 * one in a call); else by DWRR, each frame is charged to the deficit and
 * the class keeps the turn while the deficit pays for its next head (no
 * slot of a higher level, or with a conforming minimum, becomes eligible
 * in a call) -- or, when it is the only eligible slot of its level
 * (`alone`), for ever: the turn would come back to it at once with a
 * quantum added until the deficit pays, which the run does in place.
 * Either way the run ends when the class empties, its ceiling or the port
 * shaper goes into debt, or max frames are out: then the caller selects
 * again.
 *
 * Every bucket the run charges (min when by_min, the ceiling, the port)
 * is charged the same cost per frame and conforms at the start, so the
 * first frame that puts one of them into debt is the first after which
 * the run's charged bytes exceed `budget`, the least of their whole
 * bytes; likewise the deficit pays for the next head while the charged
 * bytes plus its cost stay within the deficit at the start. The run
 * counts charged bytes only and charges the buckets, the deficit and the
 * counters once at its end (the sojourn histogram once per run of frames
 * with the same enqueue time): the same frames in the same order with
 * the same charges as one selection and one charge per frame.
 */
static __attribute__((always_inline)) inline void
send_fifo(struct sched *s, unsigned int i, bool by_min, bool alone,
	  struct frame_desc *out, uint32_t max, uint64_t now_ns,
	  struct deq_state *q)
{
	struct sched_class *c = &s->cl[i];
	struct sched_class_stats *st = &s->st[i];
	const struct sched_entry *ring = c->ring;
	const uint32_t mask = c->mask, tail = c->tail, ovh = s->overhead;
	const uint32_t bit = 1u << i, n0 = q->n;
	const bool ceiled = s->ceil_mask & bit, shaped = s->port_shaped;
	uint32_t head = c->head, n = n0;
	/* bytes the run may charge before a bucket goes into debt, and
	 * those the next head may take the run to (DWRR: the deficit) */
	uint64_t budget = UINT64_MAX, dlimit = UINT64_MAX;
	uint64_t spent = 0, t_last = UINT64_MAX, same = 0, charge, next;
	unsigned int bucket = 0; /* of t_last: a frame queued at UINT64_MAX
				  * waited 0 */

	if (by_min)
		budget = tb_whole_bytes(&c->min);
	else
		dlimit = c->deficit;
	if (ceiled)
		budget = MIN(budget, tb_whole_bytes(&c->ceil));
	if (shaped)
		budget = MIN(budget, tb_whole_bytes(&s->port));
	for (;;) {
		const struct sched_entry *e = &ring[head++ & mask];
		const uint64_t t_enq = e->t_enq;

		spent += e->d.len + ovh;
		out[n++] = e->d;
		if (t_enq != t_last) {
			if (same)
				ctr_add(&st->sojourn[bucket], same);
			t_last = t_enq;
			bucket = sched_sojourn_bucket(
				now_ns > t_enq ? now_ns - t_enq : 0);
			same = 0;
		}
		same++;
		if (head == tail || n == max || spent > budget)
			break;
		next = spent + ring[head & mask].d.len + ovh;
		if (next > dlimit) {
			if (!alone)
				break;
			do /* the selection's quanta (DWRR only) */
				dlimit += c->quantum;
			while (next > dlimit);
		}
	}
	c->head = head;
	c->bytes -= (uint32_t)(spent - (uint64_t)(n - n0) * ovh);
	/* for the buckets charged below, spent <= budget + one frame, so
	 * the charge stays below 2^62 (with none, it is not used) */
	charge = spent << TB_FRAC;
	if (by_min) {
		tb_charge_fp(&c->min, charge);
		if (!tb_conforms(&c->min))
			q->min_ok &= ~bit;
	} else {
		c->deficit = (uint32_t)(dlimit - spent); /* spent <= dlimit */
	}
	if (head == tail) {
		/* empty: the ring starts over at its first slot, so a queue
		 * that keeps emptying stays in the same few cache lines */
		c->head = c->tail = 0;
		q->act &= ~bit;
		c->deficit = 0;
	}
	if (ceiled) {
		tb_charge_fp(&c->ceil, charge);
		if (!tb_conforms(&c->ceil))
			q->blocked |= bit;
	}
	if (shaped)
		tb_charge_fp(&s->port, charge);
	ctr_add(&st->sent_packets, n - n0);
	ctr_add(&st->sent_bytes, spent - (uint64_t)(n - n0) * ovh);
	ctr_add(&st->sojourn[bucket], same);
	q->n = n;
}

/* One frame of the DCQCN class in slot i (chosen as for send_fifo()):
 * the head of the flow its last flowq_peek() chose, RED on the flow's
 * virtual queue as it leaves. */
static void send_flow(struct sched *s, unsigned int i, bool by_min,
		      struct frame_desc *out, uint64_t now_ns,
		      struct deq_state *q)
{
	struct sched_class *c = &s->cl[i];
	struct sched_class_stats *st = &s->st[i];
	const uint32_t bit = 1u << i, cost = head_cost(s, c);
	const uint32_t fid = c->fq->cursor;
	uint64_t vq = c->ecn ? flowq_vqueue(c->fq, now_ns) : 0, soj;
	struct flowq_entry fe;

	if (by_min) {
		tb_charge(&c->min, cost);
		if (!tb_conforms(&c->min))
			q->min_ok &= ~bit;
	} else {
		c->deficit -= cost;
	}
	flowq_pop(c->fq, fid, now_ns, &fe);
	if (c->ecn && ecn_red_choose(&c->red, vq, &s->rng))
		mark_flow_frame(s, c, st, fid, &fe.d, now_ns);
	/* a flow's frames keep the meta they came with: a reload may have
	 * renumbered the class (or moved a removed class's frames here); the
	 * frame leaves with the id of the class it leaves from (marking) */
	fe.d.meta = (fe.d.meta & ~(0xfu << FRAME_META_CLASS_SHIFT)) |
		    (uint32_t)c->id << FRAME_META_CLASS_SHIFT;
	if (c->head + 1 != c->tail && flowq_peek(c->fq, now_ns) == FLOWQ_NONE)
		q->blocked |= bit;
	out[q->n++] = fe.d;
	soj = now_ns > fe.t_enq ? now_ns - fe.t_enq : 0;
	c->head++;
	c->bytes -= fe.d.len;
	if (s->ceil_mask & bit) {
		tb_charge(&c->ceil, cost);
		if (!tb_conforms(&c->ceil))
			q->blocked |= bit;
	}
	if (s->port_shaped)
		tb_charge(&s->port, cost);
	if (c->head == c->tail) {
		q->act &= ~bit;
		c->deficit = 0;
	}
	ctr_add(&st->sent_packets, 1);
	ctr_add(&st->sent_bytes, fe.d.len);
	ctr_add(&st->sojourn[sched_sojourn_bucket(soj)], 1);
}

uint32_t sched_dequeue(struct sched *s, struct frame_desc *out, uint32_t max,
		       uint64_t now_ns)
{
	struct deq_state q = {.act = s->active};
	uint32_t m;

	if (unlikely(s->fq_mask))
		flows_tick(s, now_ns);
	if (!q.act) {
		sched_check(s, false);
		return 0;
	}
	if (unlikely(s->fq_mask & q.act))
		q.blocked = flows_blocked(s, q.act, now_ns);
	if (unlikely(s->pause_mask))
		q.blocked |= paused_slots(s, now_ns);
	/* Refill once per call: within a call now_ns does not move, so a
	 * bucket that goes into debt stays there until the next call. */
	if (s->port_shaped)
		tb_refill(&s->port, now_ns);
	for (m = q.act & (s->ceil_mask | s->min_mask); m; m &= m - 1) {
		unsigned int i = (unsigned int)__builtin_ctz(m);
		struct sched_class *c = &s->cl[i];

		if (s->ceil_mask & (1u << i)) {
			tb_refill(&c->ceil, now_ns);
			if (!tb_conforms(&c->ceil))
				q.blocked |= 1u << i;
		}
		if (s->min_mask & (1u << i)) {
			tb_refill(&c->min, now_ns);
			if (tb_conforms(&c->min))
				q.min_ok |= 1u << i;
		}
	}

	while (q.n < max) {
		uint32_t elig = q.act & ~q.blocked, cost;
		struct sched_class *c;
		unsigned int i;
		bool by_min;

		if (!elig || (s->port_shaped && !tb_conforms(&s->port)))
			break;
		by_min = elig & q.min_ok;
		if (by_min) {
			/* guaranteed minimum, level order */
			i = (unsigned int)__builtin_ctz(elig & q.min_ok);
			c = &s->cl[i];
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
		}
		if (likely(!c->fq))
			send_fifo(s, i, by_min, !by_min && elig == 1u << i, out,
				  max, now_ns, &q);
		else
			send_flow(s, i, by_min, out, now_ns, &q);
	}
	s->active = q.act;
	s->backlog -= q.n;
	sched_check(s, false);
	return q.n;
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

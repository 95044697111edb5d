// SPDX-License-Identifier: BSD-2-Clause
/*
 * pipeline_run.c - pipeline_bench's measured loops (the whole pipeline,
 * parse+classify, the handoff ring, the scheduler), the checks after each
 * run (every frame back once, counts that add up) and the frame pool.
 */
#include "pipeline_bench.h"

/* ---- the benchmark context ---- */

/* The egress task's clock read, once per burst. */
static inline uint64_t clock_next(struct ctx *x)
{
	if (x->real_clock)
		return x->now = mono_ns();
	x->now += x->clk_q;
	x->clk_acc += x->clk_r;
	if (x->clk_acc >= x->rate) {
		x->clk_acc -= x->rate;
		x->now++;
	}
	return x->now;
}

/* rx_task.c's classify_frame(): the frame's meta. */
static inline uint32_t rx_meta(struct ctx *x, const uint8_t *f, uint32_t len)
{
	struct pkt_meta m;
	int bad = pkt_parse(f, len, &m);

	if (likely(!bad))
		return frame_meta_pack(classify(&x->cls, &m), m.ecn, m.l3,
				       m.l3_off);
	x->malformed++;
	return frame_meta_pack(x->cls.default_class, 0, 0, 0);
}

static inline void recycle(struct ctx *x, uint64_t addr)
{
	x->free[x->free_tail++ & x->free_mask] =
		(uint32_t)(addr >> x->stride_shift);
}

/* The whole pipeline, `bursts` times. */
static __attribute__((noinline)) void run_pipeline(struct ctx *x,
						   uint64_t bursts)
{
	struct frame_desc rx[BURST], eg[BURST], out[BURST];

	for (uint64_t it = 0; it < bursts; it++) {
		uint64_t now = clock_next(x), bytes = 0;
		uint32_t k, n, i, sent, got;

		/* RX task */
		k = MIN((uint32_t)BURST, x->free_tail - x->free_head);
		if (unlikely(k < BURST))
			x->short_bursts++;
		if (x->prefetch)
			for (i = 0; i < k; i++)
				__builtin_prefetch(
					x->base +
					((uint64_t)x->free[(x->free_head + i) &
							   x->free_mask]
					 << x->stride_shift));
		for (i = 0; i < k; i++) {
			uint64_t addr =
				(uint64_t)x->free[x->free_head++ & x->free_mask]
				<< x->stride_shift;

			rx[i].addr = addr;
			rx[i].len = x->len;
			rx[i].meta = rx_meta(x, x->base + addr, x->len);
		}
		x->generated += k;
		sent = handoff_ring_enqueue(&x->ring, rx, k);
		for (i = sent; unlikely(i < k); i++) {
			x->drop_handoff++;
			recycle(x, rx[i].addr);
		}

		/* egress task */
		n = handoff_ring_dequeue(&x->ring, eg, BURST);
		for (i = 0; i < n; i++) {
			if (unlikely(sched_enqueue(&x->s, &eg[i],
						   x->base + eg[i].addr,
						   now))) {
				x->drop_sched++;
				recycle(x, eg[i].addr);
			}
		}
		got = sched_dequeue(&x->s, out, BURST, now);
		for (i = 0; i < got; i++) {
			bytes += out[i].len;
			recycle(x, out[i].addr);
		}
		x->tx_pkts += got;
		x->tx_bytes += bytes;
	}
}

/* Parse + classify + pack alone, over the pool. */
static __attribute__((noinline)) void run_parse(struct ctx *x, uint64_t bursts)
{
	struct frame_desc rx[BURST];
	uint32_t pos = 0, mask = x->pool - 1;
	uint64_t sum = 0;

	for (uint64_t it = 0; it < bursts; it++) {
		if (x->prefetch)
			for (uint32_t i = 0; i < BURST; i++)
				__builtin_prefetch(x->base +
						   ((uint64_t)((pos + i) & mask)
						    << x->stride_shift));
		for (uint32_t i = 0; i < BURST; i++, pos++) {
			uint64_t addr = (uint64_t)(pos & mask)
					<< x->stride_shift;

			rx[i].addr = addr;
			rx[i].len = x->len;
			rx[i].meta = rx_meta(x, x->base + addr, x->len);
		}
		for (uint32_t i = 0; i < BURST; i++)
			sum += rx[i].meta;
	}
	x->generated += bursts * BURST;
	x->sink += sum;
}

/* The handoff ring alone: enqueue 32 pre-built descriptors, dequeue 32. */
static __attribute__((noinline)) void run_ring(struct ctx *x, uint64_t bursts)
{
	struct frame_desc out[BURST];
	uint32_t pos = 0, mask = x->pool - 1;
	uint64_t sum = 0, moved = 0;

	for (uint64_t it = 0; it < bursts; it++) {
		uint32_t n;

		n = handoff_ring_enqueue(&x->ring, &x->pre[pos & mask], BURST);
		pos += BURST;
		n = handoff_ring_dequeue(&x->ring, out, n);
		for (uint32_t i = 0; i < n; i++)
			sum += out[i].addr;
		moved += n;
	}
	x->generated += bursts * BURST;
	x->tx_pkts += moved;
	x->sink += sum;
}

/* The scheduler alone: clock, 32 sched_enqueue, one sched_dequeue(32). */
static __attribute__((noinline)) void run_sched(struct ctx *x, uint64_t bursts)
{
	struct frame_desc out[BURST];
	uint32_t pos = 0, mask = x->pool - 1;
	uint64_t bytes = 0, sent = 0;

	for (uint64_t it = 0; it < bursts; it++) {
		uint64_t now = clock_next(x);
		const struct frame_desc *d = &x->pre[pos & mask];
		uint32_t got;

		pos += BURST;
		for (uint32_t i = 0; i < BURST; i++)
			if (unlikely(sched_enqueue(&x->s, &d[i],
						   x->base + d[i].addr, now)))
				x->drop_sched++;
		got = sched_dequeue(&x->s, out, BURST, now);
		for (uint32_t i = 0; i < got; i++) {
			bytes += out[i].len;
			/* back to the pre-built array, with its meta as the
			 * scheduler left it (CE if RED marked the frame) */
			x->pre[out[i].addr >> x->stride_shift].meta =
				out[i].meta;
		}
		sent += got;
	}
	x->generated += bursts * BURST;
	x->tx_pkts += sent;
	x->tx_bytes += bytes;
}

const char *const stage_name[ST_N] = {"pipeline", "parse", "ring", "sched"};

static void fail(const char *what, const struct ctx *x)
{
	fprintf(stderr,
		"pipeline_bench: FAIL (%u classes, %u B, stage %s): %s\n"
		"  generated %llu, transmitted %llu, dropped: handoff %llu, "
		"scheduler %llu; malformed %llu\n",
		x->cf->n_classes, x->len, x->stage, what,
		(unsigned long long)x->generated,
		(unsigned long long)x->tx_pkts,
		(unsigned long long)x->drop_handoff,
		(unsigned long long)x->drop_sched,
		(unsigned long long)x->malformed);
	exit(1);
}

static void sched_start(struct ctx *x)
{
	x->now = x->real_clock ? mono_ns() : 1000000000ull;
	x->clk_acc = 0;
	if (sched_init(&x->s, &x->cf->pol, 0, x->now)) {
		fprintf(stderr, "pipeline_bench: sched_init failed\n");
		exit(1);
	}
}

/* Drain the scheduler (for the frames it holds) and check the counts. */
static void sched_check(struct ctx *x, bool recycle_frames)
{
	struct frame_desc out[BURST];
	uint64_t enq = 0, drops = 0, sent = 0, sent_bytes = 0, got;
	uint64_t per_class[QOS_MAX_CLASSES] = {0};

	while (sched_backlog_packets(&x->s)) {
		x->now += 1000000000ull; /* a second later: all buckets full */
		got = sched_dequeue(&x->s, out, BURST, x->now);
		for (uint32_t i = 0; i < got; i++) {
			x->tx_bytes += out[i].len;
			if (recycle_frames)
				recycle(x, out[i].addr);
		}
		x->tx_pkts += got;
	}
	for (unsigned int c = 0; c < x->cf->n_classes; c++) {
		const struct sched_class_stats *st =
			sched_class_stats(&x->s, c);

		per_class[c] = ctr_read(&st->enq_packets);
		enq += per_class[c];
		for (int r = 1; r < SCHED_DROP_REASONS; r++)
			drops += ctr_read(&st->drops[r]);
		sent += ctr_read(&st->sent_packets);
		sent_bytes += ctr_read(&st->sent_bytes);
	}
	if (enq + drops + x->drop_handoff != x->generated)
		fail("scheduler received + dropped != generated", x);
	if (drops != x->drop_sched)
		fail("scheduler drop counters != drops seen", x);
	if (sent != x->tx_pkts || sent_bytes != x->tx_bytes)
		fail("scheduler sent counters != transmitted", x);
	if (sent != enq)
		fail("frames left in the scheduler", x);
	if (!x->real_clock) {
		uint64_t want[QOS_MAX_CLASSES] = {0};

		if (drops || x->drop_handoff)
			fail("drops with the fake clock (nothing should block)",
			     x);
		if (x->generated % BURST)
			fail("generated not a multiple of the burst", x);
		for (int i = 0; i < BURST; i++)
			want[x->cf->class_of[mix[i]]] += x->generated / BURST;
		for (unsigned int c = 0; c < x->cf->n_classes; c++)
			if (per_class[c] != want[c])
				fail("a class got other than its share of the "
				     "mix",
				     x);
	}
	sched_fini(&x->s);
}

/* Every frame on the free list exactly once. */
static void free_check(struct ctx *x)
{
	uint8_t *seen = calloc(x->pool, 1);

	if (!seen) {
		fprintf(stderr, "pipeline_bench: out of memory\n");
		exit(1);
	}
	if (x->free_tail - x->free_head != x->pool)
		fail("frames missing from the free list", x);
	for (uint32_t i = x->free_head; i != x->free_tail; i++) {
		uint32_t f = x->free[i & x->free_mask];

		if (f >= x->pool || seen[f]++)
			fail("a frame twice on the free list", x);
	}
	free(seen);
}

static void counts_reset(struct ctx *x)
{
	x->generated = x->tx_pkts = x->tx_bytes = 0;
	x->drop_handoff = x->drop_sched = x->malformed = 0;
	x->short_bursts = 0;
}

static void pool_reset(struct ctx *x);

/* One run of a stage: warm-up, then `bursts` timed. Returns ns/packet. */
double run_stage(struct ctx *x, enum stage st, uint64_t bursts)
{
	uint64_t warm = MAX((uint64_t)x->pool / BURST * 2, (uint64_t)64);
	uint64_t t0, t1, g0;

	/* every run starts from the same frames (RED may have marked some
	 * CE) and a full free list */
	pool_reset(x);
	counts_reset(x);
	x->stage = stage_name[st];
	if (st == ST_PIPE || st == ST_SCHED)
		sched_start(x);
	switch (st) {
	case ST_PIPE:
		run_pipeline(x, warm);
		g0 = x->generated;
		t0 = mono_ns();
		run_pipeline(x, bursts);
		t1 = mono_ns();
		/* the handoff ring is empty: each burst was dequeued */
		if (handoff_ring_count(&x->ring))
			fail("handoff ring not empty", x);
		sched_check(x, true);
		free_check(x);
		break;
	case ST_PARSE:
		run_parse(x, warm);
		g0 = x->generated;
		t0 = mono_ns();
		run_parse(x, bursts);
		t1 = mono_ns();
		break;
	case ST_RING:
		run_ring(x, warm);
		g0 = x->generated;
		t0 = mono_ns();
		run_ring(x, bursts);
		t1 = mono_ns();
		if (x->tx_pkts != x->generated)
			fail("ring lost descriptors", x);
		break;
	case ST_SCHED:
	default:
		run_sched(x, warm);
		g0 = x->generated;
		t0 = mono_ns();
		run_sched(x, bursts);
		t1 = mono_ns();
		sched_check(x, false);
		break;
	}
	if (x->malformed)
		fail("malformed frames", x);
	if (x->drop_sched || x->drop_handoff || x->short_bursts)
		fprintf(stderr,
			"pipeline_bench: %u classes, %u B, %s: %llu dropped, "
			"%llu bursts short of free frames: the shaper blocked "
			"(the loop ran faster than the port rate; raise -R)\n",
			x->cf->n_classes, x->len, x->stage,
			(unsigned long long)(x->drop_sched + x->drop_handoff),
			(unsigned long long)x->short_bursts);
	if (x->generated == g0)
		fail("no packets in the timed part", x);
	return (double)(t1 - t0) / (double)(x->generated - g0);
}

/* (Re)build the pool's frames, their descriptors and the free list;
 * check every frame's class. */
static void pool_reset(struct ctx *x)
{
	const struct config *cf = x->cf;
	uint32_t len = x->len;

	x->malformed = 0;
	for (uint32_t i = 0; i < x->pool; i++) {
		uint64_t addr = (uint64_t)i << x->stride_shift;
		uint8_t *f = x->base + addr;
		enum kind k = (enum kind)mix[i % BURST];

		build_frame(f, len, k, i * 2654435761u >> 8);
		x->pre[i].addr = addr;
		x->pre[i].len = len;
		x->pre[i].meta = rx_meta(x, f, len);
		if (x->malformed ||
		    frame_meta_class(x->pre[i].meta) != cf->class_of[k]) {
			fprintf(stderr,
				"pipeline_bench: FAIL: frame %u (kind %d, %u "
				"B) "
				"classified %u, want %u%s\n",
				i, (int)k, len,
				frame_meta_class(x->pre[i].meta),
				cf->class_of[k],
				x->malformed ? " (malformed)" : "");
			exit(1);
		}
	}
	x->free_head = x->free_tail = 0;
	for (uint32_t i = 0; i < x->pool; i++)
		x->free[x->free_tail++ & x->free_mask] = i;
}

void ctx_setup(struct ctx *x, const struct config *cf, uint32_t len)
{
	x->cf = cf;
	x->len = len;
	x->stage = "setup";
	if (classifier_build(&x->cls, &cf->pol)) {
		fprintf(stderr, "pipeline_bench: classifier_build: rule %d\n",
			x->cls.err_rule);
		exit(1);
	}
	pool_reset(x);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * coll_wire.c - in-memory wire between emulated hosts for the unit tests;
 * see coll_wire.h.
 */
#include "coll_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "roce.h"

#define WIRE_BURST 16
#define WIRE_MAX_SPINS 100000

void wire_init(struct coll_wire *w, int n, const struct rc_cfg *cfg,
	       uint32_t msg_cap, const struct rc_ops *ops, void *const *ctxs)
{
	memset(w, 0, sizeof(*w));
	w->n = n;
	w->delay_ns = 2000;
	w->reorder_ns = 50000;
	w->rng = 0x9e3779b97f4a7c15ull;
	for (int r = 0; r < n; r++)
		if (rc_host_init(&w->host[r], cfg, r, n, msg_cap, ops,
				 ctxs ? ctxs[r] : NULL, 0))
			abort();
}

void wire_free(struct coll_wire *w)
{
	for (int r = 0; r < w->n; r++)
		rc_host_free(&w->host[r]);
	for (size_t i = 0; i < w->nheap; i++)
		free(w->heap[i]);
	free(w->heap);
}

double wire_rand(struct coll_wire *w)
{
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return (double)((w->rng * 0x2545f4914f6cdd1dull) >> 11) /
	       9007199254740992.0;
}

static bool before(const struct wire_pkt *a, const struct wire_pkt *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void heap_push(struct coll_wire *w, struct wire_pkt *p)
{
	size_t i;

	if (w->nheap == w->capheap) {
		w->capheap = w->capheap ? 2 * w->capheap : 1024;
		w->heap = realloc(w->heap, w->capheap * sizeof(*w->heap));
		if (!w->heap)
			abort();
	}
	i = w->nheap++;
	while (i && before(p, w->heap[(i - 1) / 2])) {
		w->heap[i] = w->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	w->heap[i] = p;
}

static struct wire_pkt *heap_pop(struct coll_wire *w)
{
	struct wire_pkt *top = w->heap[0], *last = w->heap[--w->nheap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= w->nheap)
			break;
		if (c + 1 < w->nheap && before(w->heap[c + 1], w->heap[c]))
			c++;
		if (!before(w->heap[c], last))
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	if (w->nheap)
		w->heap[i] = last;
	return top;
}

/* Put a packet from src to dst on the wire (or drop it). */
static void emit(struct coll_wire *w, int src, int dst, const uint8_t *p,
		 size_t len, unsigned int ecn)
{
	struct wire_pkt *pkt = malloc(sizeof(*pkt) + len);
	uint8_t op = bth_opcode(p);
	bool data;

	if (!pkt)
		abort();
	pkt->at = w->now + w->delay_ns;
	pkt->seq = w->seq++;
	pkt->src = src;
	pkt->dst = dst;
	pkt->ecn = ecn;
	pkt->len = len;
	memcpy(pkt->data, p, len);
	data = wire_is_data(pkt);
	w->sent++;
	if (op == 0x81)
		w->cnps++;
	if ((w->filter && w->filter(w->filter_ctx, pkt, w->now)) ||
	    (data && w->p_drop > 0 && wire_rand(w) < w->p_drop)) {
		w->dropped++;
		free(pkt);
		return;
	}
	if (!data && op == 0x11 && w->p_ctrl_drop > 0 &&
	    wire_rand(w) < w->p_ctrl_drop) {
		w->ctrl_dropped++;
		free(pkt);
		return;
	}
	if (data && w->p_reorder > 0 && wire_rand(w) < w->p_reorder) {
		pkt->at += w->reorder_ns;
		w->reordered++;
	}
	if (data && w->p_ce > 0 && wire_rand(w) < w->p_ce) {
		pkt->ecn = 3;
		w->marked++;
	}
	heap_push(w, pkt);
}

/* One pass over host r at now: timers, control packets, data bursts.
 * True if it sent anything. */
static bool host_step(struct coll_wire *w, int r)
{
	struct rc_host *h = &w->host[r];
	static uint8_t store[WIRE_BURST][RC_MAX_PKT];
	uint8_t *bufs[WIRE_BURST];
	size_t lens[WIRE_BURST];
	struct rc_tx_info info[WIRE_BURST];
	uint8_t ctrl[64];
	bool any = false;
	int n, peer;

	if (w->app.poll)
		w->app.poll(w->app.ctx, r, w->now);
	rc_host_timers(h, w->now);
	for (int q = 0; q < w->n; q++) {
		size_t len;

		if (q == r)
			continue;
		while ((len = rc_qp_take_ack(&h->qp[q], ctrl, sizeof(ctrl)))) {
			emit(w, r, q, ctrl, len, 0);
			any = true;
		}
		if ((len = rc_qp_take_cnp(&h->qp[q], ctrl, sizeof(ctrl)))) {
			emit(w, r, q, ctrl, len, 0);
			any = true;
		}
	}
	for (int i = 0; i < WIRE_BURST; i++)
		bufs[i] = store[i];
	while ((n = rc_host_tx_burst(h, w->now, bufs, RC_MAX_PKT, lens, info,
				     WIRE_BURST, &peer)) > 0) {
		for (int i = 0; i < n; i++)
			emit(w, r, peer, bufs[i], lens[i], 2);
		any = true;
	}
	return any;
}

static bool all_idle(const struct coll_wire *w)
{
	if (w->nheap)
		return false;
	for (int r = 0; r < w->n; r++)
		if (!rc_host_tx_idle(&w->host[r]))
			return false;
	return true;
}

bool wire_run(struct coll_wire *w, uint64_t until_ns)
{
	unsigned int spins = 0;

	while (w->now <= until_ns) {
		uint64_t next = UINT64_MAX, prev = w->now;
		bool any = false;

		for (int r = 0; r < w->n; r++)
			any |= host_step(w, r);
		while (w->nheap && w->heap[0]->at <= w->now) {
			struct wire_pkt *p = heap_pop(w);

			rc_host_rx(&w->host[p->dst], w->now, p->data, p->len,
				   p->ecn);
			w->delivered++;
			free(p);
			any = true;
		}
		if (w->app.done ? w->app.done(w->app.ctx) : all_idle(w))
			return true;
		if (any)
			continue; /* answer what just arrived at the same time */
		if (w->nheap)
			next = w->heap[0]->at;
		for (int r = 0; r < w->n; r++) {
			uint64_t t = rc_host_next_ns(&w->host[r]);

			if (t < next)
				next = t;
			if (w->app.next_ns) {
				t = w->app.next_ns(w->app.ctx, r);
				if (t < next)
					next = t;
			}
		}
		if (next == UINT64_MAX)
			return false; /* nothing will ever happen */
		if (next <= prev) {
			if (++spins > WIRE_MAX_SPINS) {
				fprintf(stderr, "wire: stuck at %llu\n",
					(unsigned long long)prev);
				return false;
			}
			continue;
		}
		spins = 0;
		w->now = next;
	}
	return false;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * link.c - see link.h.
 */
#include "link.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int link_init(struct link *l, const struct scn_bottleneck *bn,
	      uint32_t packet_bytes, uint64_t seed)
{
	*l = (struct link){
		.ns_per_byte = 8e9 / bn->rate_bps,
		.mark_at = bn->mark_at,
		.limit = bn->buffer_bytes,
	};
	if (ecn_red_init(&l->red, &bn->ecn))
		return -EINVAL;
	ecn_rng_seed(&l->rng, seed);
	l->cap = bn->buffer_bytes / packet_bytes + 1;
	l->ring = calloc(l->cap, sizeof(*l->ring));
	return l->ring ? 0 : -ENOMEM;
}

void link_free(struct link *l)
{
	free(l->ring);
	l->ring = NULL;
}

static bool choose(struct link *l)
{
	bool m = ecn_red_choose(&l->red, l->q_bytes, &l->rng);

	l->marked += m;
	return m;
}

static uint64_t start(struct link *l, struct link_pkt p, double at)
{
	l->busy = true;
	l->cur = p;
	l->free_at = at + p.bytes * l->ns_per_byte;
	return (uint64_t)ceil(l->free_at);
}

enum link_arrival link_arrive(struct link *l, uint32_t flow, uint32_t bytes,
			      bool ce, uint64_t now_ns, uint64_t *done_ns)
{
	struct link_pkt p = {.flow = flow, .bytes = bytes, .marked = ce};

	if (l->q_bytes + bytes > l->limit || l->n == l->cap) {
		l->dropped++;
		return LINK_DROPPED;
	}
	if (l->mark_at == SCN_MARK_ENQUEUE)
		p.marked |= choose(l);
	if (!l->busy) {
		if (l->mark_at == SCN_MARK_DEQUEUE)
			p.marked |= choose(l);
		*done_ns = start(l, p, fmax((double)now_ns, l->free_at));
		return LINK_STARTED;
	}
	l->ring[(l->head + l->n++) % l->cap] = p;
	l->q_bytes += bytes;
	return LINK_QUEUED;
}

bool link_done(struct link *l, struct link_pkt *out, uint64_t *done_ns)
{
	struct link_pkt p;

	*out = l->cur;
	l->sent++;
	l->busy = false;
	if (!l->n)
		return false;
	p = l->ring[l->head];
	l->head = (l->head + 1) % l->cap;
	l->n--;
	l->q_bytes -= p.bytes;
	if (l->mark_at == SCN_MARK_DEQUEUE)
		p.marked |= choose(l);
	*done_ns = start(l, p, l->free_at);
	return true;
}

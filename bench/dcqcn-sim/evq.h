/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * evq.h - the simulator's event queue: a binary min-heap of timed events
 * ordered by (time, insertion number), so that events due at the same
 * nanosecond come out in the order they were pushed and a run is
 * reproducible. Cancelling is lazy: the owner of an event keeps a
 * generation or the time it expects, and ignores entries that no longer
 * match when they come out.
 *
 * Memory: grows by doubling up to the limit given to evq_init(); a push
 * beyond it fails with -ENOSPC (the simulator reports it, never grows
 * without bound). Single-threaded.
 */
#ifndef DCQCN_SIM_EVQ_H
#define DCQCN_SIM_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct evq_ev {
	uint64_t t_ns;
	uint64_t seq; /* insertion number: ties in time keep push order */
	uint64_t arg; /* the owner's: a generation, a packet, ... */
	uint32_t kind;
	uint32_t flow;
};

struct evq {
	struct evq_ev *heap;
	size_t n, cap, max;
	uint64_t seq;
};

int evq_init(struct evq *q, size_t max);
void evq_free(struct evq *q);
/* 0, -ENOMEM, or -ENOSPC when max events are pending. */
int evq_push(struct evq *q, uint64_t t_ns, uint32_t kind, uint32_t flow,
	     uint64_t arg);
/* The earliest event (removed), false when empty. */
bool evq_pop(struct evq *q, struct evq_ev *out);
static inline bool evq_empty(const struct evq *q)
{
	return q->n == 0;
}

#endif

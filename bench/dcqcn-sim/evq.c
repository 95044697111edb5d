// SPDX-License-Identifier: BSD-2-Clause
/*
 * evq.c - see evq.h. Textbook array heap: children of i at 2i+1, 2i+2.
 */
#include "evq.h"

#include <errno.h>
#include <stdlib.h>

static bool before(const struct evq_ev *a, const struct evq_ev *b)
{
	return a->t_ns != b->t_ns ? a->t_ns < b->t_ns : a->seq < b->seq;
}

int evq_init(struct evq *q, size_t max)
{
	*q = (struct evq){.max = max};
	q->cap = max < 1024 ? max : 1024;
	q->heap = malloc(q->cap * sizeof(*q->heap));
	return q->heap ? 0 : -ENOMEM;
}

void evq_free(struct evq *q)
{
	free(q->heap);
	*q = (struct evq){0};
}

int evq_push(struct evq *q, uint64_t t_ns, uint32_t kind, uint32_t flow,
	     uint64_t arg)
{
	struct evq_ev ev = {.t_ns = t_ns,
			    .seq = q->seq++,
			    .arg = arg,
			    .kind = kind,
			    .flow = flow};
	size_t i;

	if (q->n == q->max)
		return -ENOSPC;
	if (q->n == q->cap) {
		size_t cap = q->cap * 2 < q->max ? q->cap * 2 : q->max;
		struct evq_ev *h = realloc(q->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		q->heap = h;
		q->cap = cap;
	}
	for (i = q->n++; i; i = (i - 1) / 2) {
		struct evq_ev *parent = &q->heap[(i - 1) / 2];

		if (!before(&ev, parent))
			break;
		q->heap[i] = *parent;
	}
	q->heap[i] = ev;
	return 0;
}

bool evq_pop(struct evq *q, struct evq_ev *out)
{
	struct evq_ev last;
	size_t i = 0;

	if (!q->n)
		return false;
	*out = q->heap[0];
	last = q->heap[--q->n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= q->n)
			break;
		if (c + 1 < q->n && before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->n)
		q->heap[i] = last;
	return true;
}

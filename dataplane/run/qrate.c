// SPDX-License-Identifier: BSD-2-Clause
/*
 * qrate.c - the queue rebalancer of a port (qrate.h): the demand rows,
 * the max-min fair split, its publication and its application.
 */
#include <string.h>
#include "qrate.h"

void qrate_init(struct qrate_port *p, uint32_t n)
{
	memset(p, 0, sizeof(*p));
	p->n = n < 1 ? 1 : MIN(n, QRATE_MAX_QUEUES);
	for (uint32_t q = 0; q < p->n; q++) {
		uint64_t even = QRATE_ONE / p->n + (q < QRATE_ONE % p->n);

		p->part[q].port = even;
		for (uint32_t c = 0; c < QOS_MAX_CLASSES; c++)
			p->part[q].cls[c] = even;
	}
	p->seq = 2;
}

void qrate_attach(struct qrate_queue *qq, struct qrate_port *p, uint32_t q)
{
	memset(qq, 0, sizeof(*qq));
	qq->p = p && q < p->n ? p : NULL;
	qq->q = q;
}

void qrate_split(uint32_t n, const double *want, double total, uint64_t *part)
{
	double w[QRATE_MAX_QUEUES], give[QRATE_MAX_QUEUES], left = total;
	double floor = total / n / QRATE_FLOOR_DIV, sum = 0;
	uint8_t order[QRATE_MAX_QUEUES];
	uint64_t given = 0;
	uint32_t i, j, big = 0;

	for (i = 0; i < n; i++) {
		w[i] = want[i] < 0 || want[i] > total ? total : want[i];
		if (w[i] < floor)
			w[i] = floor;
		sum += w[i];
		for (j = i; j > 0 && w[order[j - 1]] > w[i]; j--)
			order[j] = order[j - 1];
		order[j] = (uint8_t)i;
	}
	if (sum <= total) {
		/* everyone gets what it wants; the rest evenly */
		for (i = 0; i < n; i++)
			give[i] = w[i] + (total - sum) / n;
	} else {
		/* water-filling: the smallest wants first, each at most an
		 * even part of what is left */
		for (j = 0; j < n; j++) {
			double fair = left / (n - j);

			i = order[j];
			give[i] = w[i] < fair ? w[i] : fair;
			left -= give[i];
		}
	}
	for (i = 0; i < n; i++) {
		part[i] = total > 0 ? (uint64_t)(give[i] / total *
						 (double)QRATE_ONE)
				    : QRATE_ONE / n;
		if (part[i] > QRATE_ONE)
			part[i] = QRATE_ONE;
		given += part[i];
		if (part[i] > part[big])
			big = i;
	}
	/* rounding: the parts add up to QRATE_ONE exactly */
	if (given > QRATE_ONE)
		part[big] -= MIN(part[big], given - QRATE_ONE);
	else
		part[big] += QRATE_ONE - given;
}

/* What queue q wants of a total (bit/s; <0: all it can get), from what
 * it sent (bytes) over dt_ns, what it holds queued and its part now. */
static double want_of(uint64_t sent, uint64_t queued, uint64_t dt_ns,
		      uint64_t part, double total)
{
	double rate = dt_ns ? (double)sent * 8e9 / (double)dt_ns : 0;
	double mine = (double)part / (double)QRATE_ONE * total;

	if (queued && rate >= mine / 2)
		return -1;
	return QRATE_HEADROOM * rate +
	       (double)queued * 8e9 / (double)QRATE_PERIOD_NS;
}

/* The split, by the holder of p->busy. */
static void split(struct qrate_port *p)
{
	uint64_t sent[QRATE_MAX_QUEUES][QOS_MAX_CLASSES];
	uint64_t queued[QRATE_MAX_QUEUES][QOS_MAX_CLASSES];
	uint64_t dt[QRATE_MAX_QUEUES], out[QRATE_MAX_QUEUES];
	uint64_t cls_out[QOS_MAX_CLASSES][QRATE_MAX_QUEUES];
	double want[QRATE_MAX_QUEUES] = {0}, pwant[QRATE_MAX_QUEUES];
	double port_bps = 0;
	uint64_t capped = 0;
	double cls_bps[QOS_MAX_CLASSES] = {0};
	uint32_t n = p->n, q, c;

	for (q = 0; q < n; q++) {
		struct qrate_demand *d = &p->dem[q];
		uint64_t t = __atomic_load_n(&d->t_ns, __ATOMIC_RELAXED);
		double pb =
			(double)__atomic_load_n(&d->port_bps, __ATOMIC_RELAXED);

		/* a snapshot since the last split: what it sent in
		 * between; none: nothing (its task did not pass) */
		bool fresh = t && p->last_t[q] && t > p->last_t[q];

		dt[q] = fresh ? t - p->last_t[q] : 0;
		for (c = 0; c < QOS_MAX_CLASSES; c++) {
			uint64_t s =
				__atomic_load_n(&d->sent[c], __ATOMIC_RELAXED);
			double cb = (double)__atomic_load_n(&d->class_bps[c],
							    __ATOMIC_RELAXED);

			sent[q][c] = fresh && s >= p->last_sent[q][c]
					     ? s - p->last_sent[q][c]
					     : 0;
			if (t)
				p->last_sent[q][c] = s;
			queued[q][c] = __atomic_load_n(&d->queued[c],
						       __ATOMIC_RELAXED);
			if (cb > cls_bps[c])
				cls_bps[c] = cb;
		}
		if (pb > port_bps)
			port_bps = pb;
		capped |= __atomic_load_n(&d->capped, __ATOMIC_RELAXED);
		if (t)
			p->last_t[q] = t;
	}
	/* the classes first: a class with a ceiling can use no more of
	 * the port on a queue than its part of the ceiling there */
	for (q = 0; q < n; q++)
		pwant[q] = 0;
	for (c = 0; c < QOS_MAX_CLASSES; c++) {
		double total = cls_bps[c] > 0 ? cls_bps[c] : port_bps;

		for (q = 0; q < n; q++)
			want[q] = want_of(sent[q][c], queued[q][c], dt[q],
					  p->part[q].cls[c], total);
		qrate_split(n, want, total, cls_out[c]);
		for (q = 0; q < n; q++) {
			double w = want[q];

			if (capped >> c & 1) {
				double cap = (double)cls_out[c][q] /
					     (double)QRATE_ONE * total;

				w = w < 0 || w > cap ? cap : w;
			}
			if (w < 0 || pwant[q] < 0)
				pwant[q] = -1;
			else
				pwant[q] += w;
		}
	}
	qrate_split(n, pwant, port_bps, out);
	/* publish: seq odd while part[] changes */
	__atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (q = 0; q < n; q++) {
		__atomic_store_n(&p->part[q].port, out[q], __ATOMIC_RELAXED);
		ctr_set(&p->rate_bps[q],
			port_bps > 0 ? sched_part_of((uint64_t)port_bps, out[q])
				     : 0);
		for (c = 0; c < QOS_MAX_CLASSES; c++)
			__atomic_store_n(&p->part[q].cls[c], cls_out[c][q],
					 __ATOMIC_RELAXED);
	}
	__atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);
	ctr_add(&p->splits, 1);
}

void qrate_publish_demand(struct qrate_queue *qq, const struct sched *s,
			  uint64_t now_ns)
{
	struct qrate_demand *d = &qq->p->dem[qq->q];
	uint64_t sent[QOS_MAX_CLASSES] = {0}, queued[QOS_MAX_CLASSES] = {0};
	uint64_t cls[QOS_MAX_CLASSES] = {0}, capped = 0;

	for (uint32_t i = 0; i < s->n_slots; i++) {
		const struct sched_class_stats *st = &s->st[i];
		uint32_t id = s->cl[i].id;

		sent[id] = ctr_read(&st->sent_bytes) +
			   ctr_read(&st->sent_packets) * s->overhead;
		queued[id] = s->cl[i].bytes;
		cls[id] = s->whole_ceil_bps[i] ? s->whole_ceil_bps[i]
					       : s->whole_min_bps[i];
		if (s->whole_ceil_bps[i])
			capped |= 1ull << id;
	}
	for (uint32_t c = 0; c < QOS_MAX_CLASSES; c++) {
		__atomic_store_n(&d->sent[c], sent[c], __ATOMIC_RELAXED);
		__atomic_store_n(&d->queued[c], queued[c], __ATOMIC_RELAXED);
		__atomic_store_n(&d->class_bps[c], cls[c], __ATOMIC_RELAXED);
	}
	__atomic_store_n(&d->port_bps, s->whole_port_bps, __ATOMIC_RELAXED);
	__atomic_store_n(&d->capped, capped, __ATOMIC_RELAXED);
	__atomic_store_n(&d->t_ns, now_ns, __ATOMIC_RELAXED);
	qq->pub_ns = now_ns + QRATE_PUB_NS;
}

/* Read the queue's parts; false when the split was writing them. */
static bool read_parts(const struct qrate_port *p, uint32_t q,
		       struct qrate_part *out, uint64_t *seq)
{
	uint64_t s1 = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE), s2;

	if (s1 & 1)
		return false;
	out->port = __atomic_load_n(&p->part[q].port, __ATOMIC_RELAXED);
	for (uint32_t c = 0; c < QOS_MAX_CLASSES; c++)
		out->cls[c] =
			__atomic_load_n(&p->part[q].cls[c], __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&p->seq, __ATOMIC_RELAXED);
	*seq = s1;
	return s1 == s2;
}

void qrate_work(struct qrate_queue *qq, struct sched *s, bool apply,
		uint64_t now_ns)
{
	struct qrate_port *p = qq->p;
	struct qrate_part part;
	uint64_t seq;

	if (now_ns >= __atomic_load_n(&p->due_ns, __ATOMIC_RELAXED) &&
	    !__atomic_exchange_n(&p->busy, 1, __ATOMIC_ACQUIRE)) {
		if (now_ns >= p->due_ns) {
			__atomic_store_n(&p->due_ns, now_ns + QRATE_PERIOD_NS,
					 __ATOMIC_RELAXED);
			split(p);
		}
		__atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
	}
	if (__atomic_load_n(&p->seq, __ATOMIC_RELAXED) == qq->applied_seq ||
	    !read_parts(p, qq->q, &part, &seq))
		return;
	if (apply)
		sched_set_parts(s, part.port, part.cls, now_ns);
	__atomic_store_n(&qq->applying, apply, __ATOMIC_RELAXED);
	qq->applied_seq = seq;
	ctr_set(&qq->shaper_bps, s->port_shaped ? sched_port_rate(s) : 0);
}

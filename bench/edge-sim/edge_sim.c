// SPDX-License-Identifier: BSD-2-Clause
/*
 * edge_sim.c - see edge_sim.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "edge_sim.h"
#include "sim_meas.h"

#define SAMPLE_NS 100000ull /* queue and rate samples: every 100 us */
#define FOLLOW_BAND 0.15 /* rate within 15 % of the available capacity */

void edge_sim_cfg_default(struct edge_sim_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->line_bps = 100e6;
	c->cap_bps = 100e6;
	c->base_rtt_ns = 1000000;
	c->pkt_bytes = 1500;
	c->flows = 32;
	c->buffer_bytes = 1000000;
	c->duration_ns = 6000000000ull;
	c->warmup_ns = 500000000ull;
	c->steps[0] = (struct edge_sim_step){0, 1.0};
	c->steps[1] = (struct edge_sim_step){2000000000ull, 0.5};
	c->steps[2] = (struct edge_sim_step){4000000000ull, 0.8};
	c->n_steps = 3;
	c->adaptive = true;
	edge_rate_params_default(&c->ctl, c->line_bps);
	c->trace_ns = 1000000;
}

/* A packet on its way: to the bottleneck, in it, or its ACK coming back. */
struct pkt {
	uint64_t t; /* when it arrives where it goes next */
	uint32_t seq; /* its TSval; the ACK echoes it */
	uint32_t bytes;
	uint32_t flow; /* which of the aggregate's flows */
	uint32_t fseq; /* its number within the flow */
};

/* A FIFO of packets with increasing times (each stage keeps order). */
struct pipe {
	struct pkt *p;
	uint32_t head, n, cap;
};

static int pipe_init(struct pipe *q, uint32_t cap)
{
	q->p = calloc(cap, sizeof(*q->p));
	q->head = q->n = 0;
	q->cap = cap;
	return q->p ? 0 : -ENOMEM;
}

static struct pkt *pipe_front(struct pipe *q)
{
	return q->n ? &q->p[q->head] : NULL;
}

static void pipe_pop(struct pipe *q)
{
	q->head = (q->head + 1) % q->cap;
	q->n--;
}

static bool pipe_push(struct pipe *q, struct pkt v)
{
	if (q->n == q->cap)
		return false;
	q->p[(q->head + q->n++) % q->cap] = v;
	return true;
}

static double share_at(const struct edge_sim_cfg *c, uint64_t t, uint32_t *step)
{
	uint32_t k = 0;

	while (k + 1 < c->n_steps && c->steps[k + 1].t_ns <= t)
		k++;
	if (step)
		*step = k;
	return c->steps[k].share;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct sim {
	const struct edge_sim_cfg *c;
	struct pipe to_neck, neck, acks;
	uint64_t neck_bytes, neck_busy_until;
	uint64_t delivered; /* bytes out of the bottleneck after warmup */
	double avail_bits; /* integral of the available capacity */
	struct sim_meas *meas;
	struct edge_rate er;
	double rate;
	double *qsamp;
	uint32_t n_qsamp, cap_qsamp;
	double rate_sum;
	uint32_t rate_n;
	uint32_t *fseq; /* next packet number, per flow */
	uint64_t last_bad_q[EDGE_SIM_MAX_STEPS], last_bad_r[EDGE_SIM_MAX_STEPS];
	bool bad_q_seen[EDGE_SIM_MAX_STEPS], q_back[EDGE_SIM_MAX_STEPS];
	bool r_in[EDGE_SIM_MAX_STEPS];
};

static uint64_t bits_ns(uint32_t bytes, double bps)
{
	return (uint64_t)ceil((double)bytes * 8e9 / bps);
}

/* Queue and rate at t, for the statistics and the follow times. */
static void sample(struct sim *s, struct edge_sim_result *r, uint64_t t)
{
	const struct edge_sim_cfg *c = s->c;
	uint32_t k;
	double avail = c->cap_bps * share_at(c, t, &k);
	double q_ns = (double)s->neck_bytes * 8e9 / avail;
	bool bad_q = q_ns > (double)c->ctl.target_ns;
	bool bad_r = fabs(s->rate - avail) > FOLLOW_BAND * avail;

	/* follow times: the queue back below the target after its first
	 * excursion; the rate first within the band */
	if (bad_q && !s->q_back[k]) {
		s->bad_q_seen[k] = true;
	} else if (!bad_q && s->bad_q_seen[k] && !s->q_back[k]) {
		s->q_back[k] = true;
		s->last_bad_q[k] = t;
	}
	if (!bad_r && !s->r_in[k]) {
		s->r_in[k] = true;
		s->last_bad_r[k] = t;
	}
	if (t < c->warmup_ns)
		return;
	s->avail_bits += avail * (double)SAMPLE_NS / 1e9;
	s->rate_sum += s->rate;
	s->rate_n++;
	if (s->n_qsamp < s->cap_qsamp)
		s->qsamp[s->n_qsamp++] = q_ns / 1e3;
	if (q_ns / 1e3 > r->queue_max_us)
		r->queue_max_us = q_ns / 1e3;
}

static void trace_row(struct sim *s, uint64_t t)
{
	const struct edge_sim_cfg *c = s->c;
	double avail = c->cap_bps * share_at(c, t, NULL);

	fprintf(c->trace, "%.3f,%.3f,%.3f,%.1f,%s\n", (double)t / 1e6,
		avail / 1e6, s->rate / 1e6, (double)s->neck_bytes * 8e6 / avail,
		c->adaptive ? edge_rate_state_name(s->er.state) : "off");
}

/* The bottleneck finishes its head packet at t: it goes on, its ACK
 * comes back half a base RTT later. */
static void neck_done(struct sim *s, uint64_t t)
{
	struct pkt *p = pipe_front(&s->neck);
	struct pkt ack = *p;

	ack.t = t + s->c->base_rtt_ns / 2;

	s->neck_bytes -= p->bytes;
	if (t >= s->c->warmup_ns)
		s->delivered += p->bytes;
	pipe_pop(&s->neck);
	pipe_push(&s->acks, ack);
	p = pipe_front(&s->neck);
	if (p)
		s->neck_busy_until =
			t + bits_ns(p->bytes,
				    s->c->cap_bps * share_at(s->c, t, NULL));
}

static void neck_arrive(struct sim *s, struct edge_sim_result *r, uint64_t t)
{
	struct pkt p = *pipe_front(&s->to_neck);

	pipe_pop(&s->to_neck);
	if (s->neck_bytes + p.bytes > s->c->buffer_bytes) {
		r->drops++;
		return;
	}
	if (!s->neck.n)
		s->neck_busy_until =
			t + bits_ns(p.bytes,
				    s->c->cap_bps * share_at(s->c, t, NULL));
	pipe_push(&s->neck, p);
	s->neck_bytes += p.bytes;
}

static void ack_arrive(struct sim *s, struct edge_sim_result *r, uint64_t t)
{
	struct pkt *a = pipe_front(&s->acks);
	struct edge_est est;

	r->rtt_samples +=
		sim_meas_ack(s->meas, a->flow, a->fseq, a->seq, a->bytes, t);
	pipe_pop(&s->acks);
	if (!s->c->adaptive)
		return;
	sim_meas_estimate(s->meas, t, &est);
	/* the aggregate is greedy: the shaper always has a backlog, so the
	 * port sends what it allows (as run/adaptive.c reports it) */
	est.sent_bps = est.offered_bps = s->rate;
	s->rate = edge_rate_update(&s->er, &s->c->ctl, &est, t);
}

static void finish(struct sim *s, struct edge_sim_result *r)
{
	const struct edge_sim_cfg *c = s->c;
	double sum = 0;

	for (uint32_t i = 0; i < s->n_qsamp; i++)
		sum += s->qsamp[i];
	if (s->n_qsamp) {
		r->queue_mean_us = sum / s->n_qsamp;
		qsort(s->qsamp, s->n_qsamp, sizeof(double), cmp_double);
		r->queue_p99_us = s->qsamp[(uint32_t)(0.99 * (s->n_qsamp - 1))];
	}
	r->utilisation = s->avail_bits > 0
				 ? (double)s->delivered * 8 / s->avail_bits
				 : 0;
	r->rate_mean_mbit = s->rate_n ? s->rate_sum / s->rate_n / 1e6 : 0;
	r->n_follow = c->n_steps;
	for (uint32_t k = 0; k < c->n_steps; k++) {
		struct edge_sim_follow *f = &r->follow[k];
		uint64_t t0 = c->steps[k].t_ns;

		f->t_ns = t0;
		f->share = c->steps[k].share;
		f->queue_ns = !s->bad_q_seen[k] ? 0
			      : s->q_back[k]	? s->last_bad_q[k] - t0
						: UINT64_MAX;
		f->rate_ns = s->r_in[k] ? s->last_bad_r[k] - t0 : UINT64_MAX;
	}
}

int edge_sim_run(const struct edge_sim_cfg *c, struct edge_sim_result *r,
		 char *err, size_t errlen)
{
	struct sim s = {.c = c};
	uint64_t t = 0, next_send = 0, next_sample = 0, next_trace = 0;
	uint32_t inflight;
	const char *why = NULL;
	int rc = -ENOMEM;

	memset(r, 0, sizeof(*r));
	if (!c->n_steps || c->steps[0].t_ns || !(c->line_bps > 0) ||
	    !c->flows || c->flows > EDGE_SIM_MAX_FLOWS || !(c->cap_bps > 0) ||
	    !c->pkt_bytes || !c->base_rtt_ns ||
	    (c->adaptive && edge_rate_params_check(&c->ctl, &why))) {
		snprintf(err, errlen, "bad configuration%s%s", why ? ": " : "",
			 why ? why : "");
		return -EINVAL;
	}
	for (uint32_t k = 0; k < c->n_steps; k++)
		if (!(c->steps[k].share > 0) || c->steps[k].share > 1 ||
		    (k && c->steps[k].t_ns <= c->steps[k - 1].t_ns)) {
			snprintf(err, errlen,
				 "steps: shares in (0, 1], times increasing");
			return -EINVAL;
		}
	/* packets in flight at most: a few bandwidth-delay products at the
	 * line rate, plus the buffer */
	inflight = (uint32_t)(4 * c->line_bps * (double)c->base_rtt_ns / 8e9 /
			      c->pkt_bytes) +
		   (uint32_t)(c->buffer_bytes / c->pkt_bytes) + 64;
	s.cap_qsamp = (uint32_t)(c->duration_ns / SAMPLE_NS) + 1;
	s.qsamp = calloc(s.cap_qsamp, sizeof(double));
	s.meas = sim_meas_new(c);
	s.fseq = calloc(c->flows ? c->flows : 1, sizeof(*s.fseq));
	if (!s.qsamp || !s.meas || !s.fseq || pipe_init(&s.to_neck, inflight) ||
	    pipe_init(&s.neck, inflight) || pipe_init(&s.acks, inflight))
		goto out;
	edge_rate_init(&s.er, &c->ctl);
	s.rate = c->line_bps;
	if (c->trace)
		fprintf(c->trace, "t_ms,avail_mbit,rate_mbit,queue_us,state\n");
	while (t < c->duration_ns) {
		struct pkt *a = pipe_front(&s.to_neck),
			   *k = pipe_front(&s.acks);
		uint64_t done = s.neck.n ? s.neck_busy_until : UINT64_MAX;

		t = next_send;
		if (a && a->t < t)
			t = a->t;
		if (done < t)
			t = done;
		if (k && k->t < t)
			t = k->t;
		if (next_sample < t)
			t = next_sample;
		if (t == next_sample) {
			sample(&s, r, t);
			next_sample += SAMPLE_NS;
			if (c->trace && t >= next_trace) {
				trace_row(&s, t);
				next_trace += c->trace_ns;
			}
		} else if (k && t == k->t) {
			ack_arrive(&s, r, t);
		} else if (t == done) {
			neck_done(&s, t);
		} else if (a && t == a->t) {
			neck_arrive(&s, r, t);
		} else {
			uint32_t f = (uint32_t)(r->packets % c->flows);
			struct pkt p = {t + c->base_rtt_ns / 2,
					(uint32_t)r->packets, c->pkt_bytes, f,
					s.fseq[f]};

			if (pipe_push(&s.to_neck, p)) {
				sim_meas_depart(s.meas, f, p.fseq, p.seq,
						p.bytes, t);
				s.fseq[f]++;
				r->packets++;
			}
			next_send = t + bits_ns(c->pkt_bytes, s.rate);
		}
	}
	finish(&s, r);
	rc = 0;
out:
	if (rc)
		snprintf(err, errlen, "out of memory");
	sim_meas_free(s.meas);
	free(s.qsamp);
	free(s.fseq);
	free(s.to_neck.p);
	free(s.neck.p);
	free(s.acks.p);
	return rc;
}

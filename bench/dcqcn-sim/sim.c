// SPDX-License-Identifier: BSD-2-Clause
/*
 * sim.c - see sim.h. One event loop for both kinds of scenario. Each flow
 * keeps the due time of the one RP timer event and the one NP poll event
 * it expects, and the generation of its pending departure; heap entries
 * that no longer match are skipped when they come out (evq.h).
 */
#include "sim.h"
#include "evq.h"
#include "gateway.h"
#include "link.h"
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEVER UINT64_MAX

enum ev_kind {
	EV_START, /* a flow starts at line rate */
	EV_INPUT, /* scripted input arg */
	EV_RP, /* the RP's earliest timer is due */
	EV_NP, /* the NP's deferred CNP is due */
	EV_TX, /* closed loop: a flow's next packet leaves (arg: generation) */
	EV_DONE, /* closed loop: the bottleneck finished a packet */
	EV_CNP, /* closed loop: a CNP reaches the flow's RP */
	EV_POLL, /* gateway: the worker looks (or is stopped) */
	EV_PORT, /* gateway: a frame left its port (arg: CE) */
};

struct flow {
	struct dcqcn_rp rp;
	struct dcqcn_np np;
	uint64_t rp_at, np_at; /* the events expected, NEVER: none */
	/* closed loop pacing */
	bool sent_any;
	uint64_t tx_gen;
	double tx_exact; /* the pending departure, exact ns */
	double last_tx; /* the last departure, exact ns */
	double tx_rc; /* the rate tx_exact was computed with */
};

struct sim {
	const struct scenario *sc;
	const struct dcqcn_params *p;
	FILE *csv;
	struct evq q;
	struct flow *f;
	struct link link;
	struct gw gw; /* sc->gateway.enabled */
	struct stats *st;
	struct sim_summary *sum;
	uint64_t end;
	int error; /* first push failure */
};

static void push(struct sim *s, uint64_t t, enum ev_kind k, uint32_t flow,
		 uint64_t arg)
{
	int rc;

	if (t > s->end)
		return;
	rc = evq_push(&s->q, t, k, flow, arg);
	if (rc && !s->error)
		s->error = rc;
}

static bool same_state(const struct dcqcn_rp *a, const struct dcqcn_rp *b)
{
	return a->rc == b->rc && a->rt == b->rt && a->alpha == b->alpha;
}

/* R_C of flow i from t on: the bins, and the least of the run. */
static void note_rc(struct sim *s, uint32_t i, uint64_t t, double rc)
{
	stats_rc(s->st, i, t, rc);
	if (rc < s->sum->rc_min)
		s->sum->rc_min = rc;
}

/* Fire the RP's timers due at or before now, one row per change. */
static void rp_catch_up(struct sim *s, uint32_t i, uint64_t now)
{
	struct flow *f = &s->f[i];

	while (dcqcn_rp_next_ns(&f->rp) <= now) {
		struct dcqcn_rp before = f->rp;
		uint64_t at = now;
		enum dcqcn_event ev = dcqcn_rp_step(&f->rp, s->p, now, &at);

		if (ev == DCQCN_EV_NONE)
			break;
		if (!same_state(&before, &f->rp)) {
			trace_rp(s->csv, at, i, dcqcn_event_name(ev), &f->rp);
			note_rc(s, i, at, f->rp.rc);
		}
	}
}

/* Pacing: the departure after last_tx at the current R_C, not before now. */
static void tx_schedule(struct sim *s, uint32_t i, double not_before)
{
	struct flow *f = &s->f[i];
	double gap = s->sc->packet_bytes * 8e9 / f->rp.rc;

	f->tx_rc = f->rp.rc;
	f->tx_exact = fmax(f->last_tx + gap, not_before);
	push(s, (uint64_t)ceil(f->tx_exact), EV_TX, i, ++f->tx_gen);
}

/* After the RP changed: its next timer event, and the departure. */
static void rp_sync(struct sim *s, uint32_t i, uint64_t now)
{
	struct flow *f = &s->f[i];
	uint64_t next = dcqcn_rp_next_ns(&f->rp);

	if (next <= now && !s->error) {
		/* a due timer that dcqcn_rp_step() did not fire: stop
		 * rather than loop at this instant for ever */
		s->error = -EPROTO;
		return;
	}
	if (next != f->rp_at) {
		f->rp_at = next;
		if (next != NEVER)
			push(s, next, EV_RP, i, 0);
	}
	if (s->sc->closed_loop && f->sent_any && f->rp.rc != f->tx_rc)
		tx_schedule(s, i, (double)now);
}

static void np_sync(struct sim *s, uint32_t i, uint64_t now)
{
	struct flow *f = &s->f[i];
	uint64_t next = dcqcn_np_next_ns(&f->np);

	if (next <= now && !s->error) {
		s->error = -EPROTO; /* a due CNP dcqcn_np_poll() kept */
		return;
	}
	if (next != f->np_at) {
		f->np_at = next;
		if (next != NEVER)
			push(s, next, EV_NP, i, 0);
	}
}

static void cnp_sent(struct sim *s, uint32_t i, uint64_t now)
{
	trace_cnp_sent(s->csv, now, i);
	s->sum->cnps_sent++;
	if (s->sc->closed_loop)
		push(s, now + s->sc->bottleneck.delay_ns, EV_CNP, i, 1);
}

/* The gateway's NP sent flow i's sender a CNP. */
static void gw_cnp(void *ctx, uint32_t i, uint64_t now)
{
	struct sim *s = ctx;

	push(s, now + s->sc->bottleneck.delay_ns, EV_CNP, i, 0);
}

/* A frame the gateway's worker put on its port: at the bottleneck when
 * it has left. */
static void gw_sent(void *ctx, const struct gw_frame *fr)
{
	struct sim *s = ctx;

	push(s, fr->leave_ns, EV_PORT, fr->flow,
	     (uint64_t)fr->bytes << 1 | fr->ce);
}

/* Into the bottleneck at now. */
static void to_link(struct sim *s, uint32_t i, uint32_t bytes, bool ce,
		    uint64_t now)
{
	uint64_t done;

	if (link_arrive(&s->link, i, bytes, ce, now, &done) == LINK_STARTED)
		push(s, done, EV_DONE, 0, 0);
	stats_queue(s->st, now, s->link.q_bytes);
}

static void on_start(struct sim *s, uint32_t i, uint64_t now)
{
	struct flow *f = &s->f[i];

	dcqcn_rp_init(&f->rp, s->p, now);
	dcqcn_np_init(&f->np);
	f->rp_at = f->np_at = NEVER;
	trace_rp(s->csv, now, i, TRACE_START, &f->rp);
	note_rc(s, i, now, f->rp.rc);
	if (s->sc->closed_loop) {
		f->tx_rc = f->rp.rc;
		f->tx_exact = (double)now;
		push(s, now, EV_TX, i, ++f->tx_gen);
	}
	rp_sync(s, i, now);
}

static void on_cnp(struct sim *s, uint32_t i, uint64_t now)
{
	struct flow *f = &s->f[i];

	rp_catch_up(s, i, now);
	dcqcn_rp_on_cnp(&f->rp, s->p, now);
	s->sum->cnps_received++;
	/* always a row: a CNP changes the RP even when no rate moves yet */
	trace_rp(s->csv, now, i, dcqcn_event_name(DCQCN_EV_CNP), &f->rp);
	note_rc(s, i, now, f->rp.rc);
	rp_sync(s, i, now);
}

/* bytes sent at now, split so that each byte-counter event is a row. */
static void on_sent(struct sim *s, uint32_t i, uint64_t now, uint64_t bytes)
{
	struct flow *f = &s->f[i];
	uint64_t b = s->p->byte_counter;

	rp_catch_up(s, i, now);
	while (bytes) {
		uint64_t chunk = bytes;
		struct dcqcn_rp before = f->rp;
		enum dcqcn_event ev;

		if (b && f->rp.bytes < b && b - f->rp.bytes < chunk)
			chunk = b - f->rp.bytes;
		ev = dcqcn_rp_on_sent(&f->rp, s->p, chunk, now);
		bytes -= chunk;
		if (ev != DCQCN_EV_NONE && !same_state(&before, &f->rp)) {
			trace_rp(s->csv, now, i, dcqcn_event_name(ev), &f->rp);
			note_rc(s, i, now, f->rp.rc);
		}
	}
}

static void on_marked(struct sim *s, uint32_t i, uint64_t now)
{
	if (dcqcn_np_on_marked(&s->f[i].np, s->p, now))
		cnp_sent(s, i, now);
	np_sync(s, i, now);
}

static void on_input(struct sim *s, const struct scn_input *in, uint64_t now)
{
	switch (in->kind) {
	case SCN_IN_CNP:
		on_cnp(s, in->flow, now);
		break;
	case SCN_IN_SENT:
		on_sent(s, in->flow, now, in->bytes);
		rp_sync(s, in->flow, now);
		break;
	case SCN_IN_MARKED:
		on_marked(s, in->flow, now);
		break;
	}
}

static void on_tx(struct sim *s, uint32_t i, uint64_t now)
{
	struct flow *f = &s->f[i];
	uint32_t bytes = s->sc->packet_bytes;

	rp_catch_up(s, i, now);
	on_sent(s, i, now, bytes);
	s->sum->packets++;
	if (s->sc->gateway.enabled) {
		gw_arrive(&s->gw, i, bytes, now);
		stats_gw_queue(s->st, now, s->gw.bytes);
	} else {
		to_link(s, i, bytes, false, now);
	}
	f->sent_any = true;
	f->last_tx = f->tx_exact;
	tx_schedule(s, i, (double)now);
	rp_sync(s, i, now);
}

static void on_done(struct sim *s, uint64_t now)
{
	struct link_pkt pkt;
	uint64_t done;

	if (link_done(&s->link, &pkt, &done))
		push(s, done, EV_DONE, 0, 0);
	stats_queue(s->st, now, s->link.q_bytes);
	stats_delivered(s->st, pkt.flow, now, pkt.bytes);
	if (pkt.marked)
		on_marked(s, pkt.flow, now);
}

static void dispatch(struct sim *s, const struct evq_ev *ev)
{
	struct flow *f = &s->f[ev->flow];

	switch ((enum ev_kind)ev->kind) {
	case EV_START:
		on_start(s, ev->flow, ev->t_ns);
		break;
	case EV_INPUT:
		on_input(s, &s->sc->inputs[ev->arg], ev->t_ns);
		break;
	case EV_RP:
		if (ev->t_ns != f->rp_at)
			break; /* moved since */
		f->rp_at = NEVER;
		rp_catch_up(s, ev->flow, ev->t_ns);
		rp_sync(s, ev->flow, ev->t_ns);
		break;
	case EV_NP:
		if (ev->t_ns != f->np_at)
			break;
		f->np_at = NEVER;
		if (dcqcn_np_poll(&f->np, s->p, ev->t_ns))
			cnp_sent(s, ev->flow, ev->t_ns);
		np_sync(s, ev->flow, ev->t_ns);
		break;
	case EV_TX:
		if (ev->arg == f->tx_gen)
			on_tx(s, ev->flow, ev->t_ns);
		break;
	case EV_DONE:
		on_done(s, ev->t_ns);
		break;
	case EV_CNP:
		/* a receiver's CNP passes the gateway (cnp: forward) */
		if (ev->arg && s->sc->gateway.enabled)
			gw_cnp_from_wire(&s->gw, ev->flow, ev->t_ns);
		on_cnp(s, ev->flow, ev->t_ns);
		break;
	case EV_POLL: {
		struct gw_ops ops = {gw_sent, gw_cnp, s};

		push(s, gw_poll(&s->gw, ev->t_ns, &ops), EV_POLL, 0, 0);
		stats_gw_queue(s->st, ev->t_ns, s->gw.bytes);
		break;
	}
	case EV_PORT:
		to_link(s, ev->flow, (uint32_t)(ev->arg >> 1), ev->arg & 1,
			ev->t_ns);
		break;
	}
}

static int failure(char *err, size_t errlen, const char *what, int e)
{
	snprintf(err, errlen, "%s: %s", what, strerror(e));
	return -1;
}

int sim_run(const struct scenario *sc, FILE *csv, struct sim_result *res,
	    char *err, size_t errlen)
{
	struct sim s = {
		.sc = sc,
		.p = &sc->params,
		.csv = csv,
		.st = &res->stats,
		.sum = &res->summary,
		.end = sc->duration_ns,
	};
	struct evq_ev ev;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = stats_init(&res->stats, sc->duration_ns, sc->summary.bin_ns,
			sc->n_flows);
	if (rc)
		return failure(err, errlen, "statistics", -rc);
	s.f = calloc(sc->n_flows, sizeof(*s.f));
	if (!s.f)
		return failure(err, errlen, "flows", ENOMEM);
	rc = evq_init(&s.q, sc->n_inputs + (1u << 22) + 64 * sc->n_flows);
	if (!rc && sc->closed_loop)
		rc = link_init(&s.link, &sc->bottleneck, sc->packet_bytes,
			       sc->seed);
	if (!rc && sc->gateway.enabled)
		rc = gw_init(&s.gw, sc, sc->seed);
	if (!rc && sc->gateway.enabled)
		rc = stats_gw_init(&res->stats);
	if (rc) {
		failure(err, errlen, "set-up", -rc);
		goto out;
	}
	res->summary.rc_min = sc->params.line_bps;
	if (sc->gateway.enabled)
		push(&s, 0, EV_POLL, 0, 0);
	for (uint32_t i = 0; i < sc->n_flows; i++)
		push(&s, sc->flows[i].start_ns, EV_START, i, 0);
	for (size_t i = 0; i < sc->n_inputs; i++)
		push(&s, sc->inputs[i].at_ns, EV_INPUT, sc->inputs[i].flow, i);
	trace_header(csv);
	while (!s.error && evq_pop(&s.q, &ev))
		dispatch(&s, &ev);
	if (s.error) {
		rc = -1;
		failure(err, errlen,
			s.error == -EPROTO ? "the DCQCN module" : "event queue",
			-s.error);
		goto out;
	}
	stats_finish(&res->stats, sc->duration_ns);
	if (sc->closed_loop) {
		uint64_t packets = res->summary.packets;
		uint64_t sent = res->summary.cnps_sent;
		uint64_t got = res->summary.cnps_received;
		double rc_min = res->summary.rc_min;

		rc = stats_summarise(&res->stats, sc, &res->summary);
		if (rc) {
			failure(err, errlen, "summary", -rc);
			goto out;
		}
		res->summary.packets = packets;
		res->summary.cnps_sent = sent;
		res->summary.cnps_received = got;
		res->summary.rc_min = rc_min;
		if (sc->gateway.enabled)
			gw_finish(&s.gw, sc->duration_ns, &res->summary.gw);
		res->summary.marked = s.link.marked;
		res->summary.dropped = s.link.dropped;
	}
	if (fflush(csv) || ferror(csv)) {
		rc = -1;
		snprintf(err, errlen, "writing the trace failed");
	}
out:
	link_free(&s.link);
	if (sc->gateway.enabled)
		gw_free(&s.gw);
	evq_free(&s.q);
	free(s.f);
	return rc ? -1 : 0;
}

void sim_result_free(struct sim_result *res)
{
	stats_free(&res->stats);
	summary_free(&res->summary);
}

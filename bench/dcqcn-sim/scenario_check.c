// SPDX-License-Identifier: BSD-2-Clause
/*
 * scenario_check.c - the checks after the scenario's keys are stored:
 * required keys, the parameters, the summary's times, the bottleneck, the
 * flows and the scripted inputs in time order, and the work estimate
 * against SCN_MAX_WORK.
 */
#include "scenario_load.h"

int need(struct ctx *c, const char *path, const char *what)
{
	const struct yaml_loc_node *n = yaml_loc_find(&c->loc, path);

	if (n)
		return 0;
	n = yaml_loc_find(&c->loc, c->sc->closed_loop && strchr(path, '.')
					   ? "bottleneck"
					   : "");
	return fail(c, n, false, "%s missing (%s)", path, what);
}

int check_params(struct ctx *c)
{
	const struct dcqcn_params *p = &c->sc->params;
	const struct yaml_loc_node *n = yaml_loc_find(&c->loc, "params");
	const char *why = NULL;

	if (!n)
		n = yaml_loc_find(&c->loc, "");
	if (dcqcn_params_check(p, &why))
		return fail(c, n, false, "DCQCN parameters refused: %s",
			    why ? why : "invalid");
	if (p->alpha_ns < SCN_MIN_TIMER_NS || p->inc_ns < SCN_MIN_TIMER_NS ||
	    (p->dec_ns && p->dec_ns < SCN_MIN_TIMER_NS))
		return fail(c, n, false,
			    "alpha_ns, inc_ns and dec_ns (unless 0) must be "
			    "%d ns or more in the simulator",
			    SCN_MIN_TIMER_NS);
	return 0;
}

/* A written summary time: within the run, a multiple of unit. */
static int check_time(struct ctx *c, const struct yaml_loc_node *n, uint64_t v,
		      uint64_t unit, const char *unit_name)
{
	if (!n)
		return 0;
	if (v > c->sc->duration_ns)
		return bad_value(c, n, "a time within the duration", NULL);
	if (v % unit)
		return fail(c, n, false, "must be a multiple of %s (%llu ns)",
			    unit_name, (unsigned long long)unit);
	return 0;
}

int check_summary(struct ctx *c)
{
	struct scenario *sc = c->sc;
	struct scn_summary *s = &sc->summary;

	if (sc->duration_ns % s->bin_ns)
		return fail(
			c, c->bin ? c->bin : yaml_loc_find(&c->loc, "duration"),
			false,
			"duration (%llu ns) is not a multiple of summary.bin "
			"(%llu ns)",
			(unsigned long long)sc->duration_ns,
			(unsigned long long)s->bin_ns);
	if (c->avg && !s->avg_ns)
		return bad_value(c, c->avg, "a time above 0", NULL);
	if (c->hold && !s->hold_ns)
		return bad_value(c, c->hold, "a time above 0", NULL);
	/* defaults that do not fit the run shrink */
	if (!c->window && s->window_ns > sc->duration_ns)
		s->window_ns = sc->duration_ns;
	if (!c->avg && (s->avg_ns > sc->duration_ns || s->avg_ns % s->bin_ns))
		s->avg_ns = s->bin_ns;
	if (!c->hold &&
	    (s->hold_ns > sc->duration_ns || s->hold_ns % s->avg_ns))
		s->hold_ns = s->avg_ns;
	if (check_time(c, c->window, s->window_ns, s->bin_ns, "summary.bin") ||
	    check_time(c, c->util_after, s->util_after_ns, s->bin_ns,
		       "summary.bin") ||
	    check_time(c, c->fair_after, s->fair_after_ns, s->bin_ns,
		       "summary.bin") ||
	    check_time(c, c->avg, s->avg_ns, s->bin_ns, "summary.bin") ||
	    check_time(c, c->hold, s->hold_ns, s->avg_ns, "summary.avg"))
		return -1;
	if ((double)(sc->duration_ns / s->bin_ns) * (sc->n_flows + 1) >
	    SCN_MAX_BINS)
		return fail(c, c->bin ? c->bin : yaml_loc_find(&c->loc, ""),
			    false,
			    "duration / summary.bin x (flows + 1) is more than "
			    "%d; use a larger bin",
			    SCN_MAX_BINS);
	return 0;
}

int check_bottleneck(struct ctx *c)
{
	struct scenario *sc = c->sc;
	struct scn_bottleneck *bn = &sc->bottleneck;
	static const char *const req[][2] = {
		{"bottleneck.rate", "its capacity, such as rate: 40Gbit"},
		{"bottleneck.kmin", "RED: no marking up to kmin, such as 5KB"},
		{"bottleneck.kmax", "RED: pmax at kmax, such as 200KB"},
		{"bottleneck.pmax", "RED: the probability at kmax, such as 1%"},
		{"bottleneck.feedback_delay",
		 "marked packet leaves -> CNP at the sender, such as 50us"},
	};

	for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++)
		if (need(c, req[i][0], req[i][1]))
			return -1;
	if (bn->ecn.kmin > bn->ecn.kmax)
		return bad_value(c, c->kmax, "a size not below kmin", NULL);
	if (bn->buffer_bytes < sc->packet_bytes ||
	    bn->buffer_bytes / sc->packet_bytes > MAX_RING)
		return fail(c, yaml_loc_find(&c->loc, "bottleneck"), false,
			    "buffer must hold from 1 to %u packets", MAX_RING);
	return 0;
}

/* A gateway key that must be there: the message at gateway:. */
static int need_gw(struct ctx *c, const char *path, const char *what)
{
	if (yaml_loc_find(&c->loc, path))
		return 0;
	return fail(c, yaml_loc_find(&c->loc, "gateway"), false,
		    "%s missing (%s)", path, what);
}

int check_gateway(struct ctx *c)
{
	struct scenario *sc = c->sc;
	struct scn_gateway *gw = &sc->gateway;
	const struct yaml_loc_node *g = yaml_loc_find(&c->loc, "gateway");
	static const char *const req[][2] = {
		{"gateway.port", "the gateway's port rate, such as 50Mbit"},
		{"gateway.kmin", "RED on the flow queue: none up to kmin"},
		{"gateway.kmax", "RED on the flow queue: pmax at kmax"},
		{"gateway.pmax", "RED: the probability at kmax, such as 1%"},
	};

	for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++)
		if (need_gw(c, req[i][0], req[i][1]))
			return -1;
	if (!(gw->port_bps > 0))
		return bad_value(c, yaml_loc_find(&c->loc, "gateway.port"),
				 "a rate above 0", NULL);
	if (gw->ecn.kmin > gw->ecn.kmax)
		return bad_value(c, c->gw_kmax, "a size not below kmin", NULL);
	if (gw->buffer_bytes < sc->packet_bytes ||
	    gw->buffer_bytes / sc->packet_bytes > MAX_RING)
		return fail(c, g, false,
			    "buffer must hold from 1 to %u packets", MAX_RING);
	if (gw->poll_ns < SCN_MIN_TIMER_NS || gw->poll_ns > sc->duration_ns)
		return bad_value(c, c->gw_poll,
				 "a time from 100ns to the duration", NULL);
	if (!c->gw_gaps)
		return 0;
	if (!gw->gap_ns)
		return fail(c, c->gw_gaps, false,
			    "gateway.gaps.length missing (each stop, such as "
			    "5ms)");
	if (!gw->gap_mean_ns == !yaml_loc_find(&c->loc, "gateway.gaps.at"))
		return fail(c, c->gw_gaps, false,
			    "one of mean_interval (seeded stops) or at (a "
			    "list of times)");
	if (gw->gap_mean_ns &&
	    (double)sc->duration_ns / (double)gw->gap_mean_ns > MAX_GW_GAPS)
		return fail(c, c->gw_gaps, false,
			    "more than %.0f gaps expected; use a longer "
			    "mean_interval",
			    MAX_GW_GAPS);
	for (uint32_t i = 1; i < gw->n_gaps; i++)
		if (gw->gap_at[i] < gw->gap_at[i - 1] + gw->gap_ns)
			return bad_value(c, c->gw_at[i],
					 "a time after the stop before ends",
					 NULL);
	return 0;
}

/* Closed loop: count flows per entry. Scripted: one flow per entry. */
int make_flows(struct ctx *c)
{
	struct scenario *sc = c->sc;
	uint64_t total = 0;

	for (size_t i = 0; i < c->n_entries; i++) {
		total += c->entries[i].count;
		if (total > SCN_MAX_FLOWS)
			return fail(c, c->entries[i].node, false,
				    "more than %d flows in all", SCN_MAX_FLOWS);
		if (c->entries[i].start_ns > sc->duration_ns)
			return fail(c, c->entries[i].node, false,
				    "starts after the end of the run");
	}
	if (!total)
		return fail(c, yaml_loc_find(&c->loc, "flows"), false,
			    "no flows; write at least one");
	sc->flows = calloc(total, sizeof(*sc->flows));
	if (!sc->flows)
		return fail(c, NULL, false, "out of memory");
	for (size_t i = 0; i < c->n_entries; i++)
		for (uint64_t k = 0; k < c->entries[i].count; k++)
			sc->flows[sc->n_flows++].start_ns =
				c->entries[i].start_ns;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct scn_input *x = a, *y = b;

	if (x->at_ns != y->at_ns)
		return x->at_ns < y->at_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int check_inputs(struct ctx *c)
{
	struct scenario *sc = c->sc;

	for (size_t i = 0; i < sc->n_inputs; i++) {
		const struct scn_input *in = &sc->inputs[i];
		const struct input_src *s = &c->srcs[i];

		if (in->kind == SCN_IN_SENT && s->have != 3)
			return fail(c, s->node, false,
				    "%s missing (a sent entry is {at: TIME, "
				    "bytes: SIZE})",
				    s->have & 1 ? "bytes" : "at");
		if (in->at_ns > sc->duration_ns)
			return fail(c, s->node, false,
				    "after the end of the run (duration)");
		if (in->at_ns < sc->flows[in->flow].start_ns)
			return fail(c, s->node, false,
				    "before the flow's start");
	}
	qsort(sc->inputs, sc->n_inputs, sizeof(*sc->inputs), by_time);
	return 0;
}

double scenario_work(const struct scenario *sc)
{
	const struct dcqcn_params *p = &sc->params;
	double d = (double)sc->duration_ns, w, bits;

	w = sc->n_flows * d *
	    (1.0 / (double)p->alpha_ns + 1.0 / (double)p->inc_ns +
	     (p->dec_ns ? 1.0 / (double)p->dec_ns : 0));
	if (sc->closed_loop) {
		bits = sc->n_flows * p->line_bps * d * 1e-9;
		w += 3 * bits / (8.0 * sc->packet_bytes);
		if (sc->gateway.enabled) /* its polls, port and queue */
			w += d / (double)sc->gateway.poll_ns *
				     (1 + sc->n_flows) +
			     3 * bits / (8.0 * sc->packet_bytes);
		if (p->byte_counter)
			w += bits / 8.0 / (double)p->byte_counter;
	} else {
		w += (double)sc->n_inputs;
		for (size_t i = 0; i < sc->n_inputs && p->byte_counter; i++)
			w += (double)sc->inputs[i].bytes /
			     (double)p->byte_counter;
	}
	return w;
}

int check_work(struct ctx *c)
{
	double w = scenario_work(c->sc);

	if (w > SCN_MAX_WORK)
		return fail(c, yaml_loc_find(&c->loc, "duration"), false,
			    "the run would take about %.2g events (more than "
			    "%.0g): shorten it, or use fewer flows or longer "
			    "timer periods",
			    w, SCN_MAX_WORK);
	return 0;
}

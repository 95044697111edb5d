// SPDX-License-Identifier: BSD-2-Clause
/*
 * edge_rate.c - see edge_rate.h.
 */
#include <errno.h>
#include <stddef.h>
#include "edge_rate.h"

#define EDGE_MAX_CUT 0.5 /* a decision never cuts more than half */
#define EDGE_SLOW_SHARE 4 /* slow probe: gain / 4 per RTT */
#define EDGE_DRAIN_RTTS                                                        \
	4.0 /* a cut drains the excess in about this many
			     * base RTTs (a deep one: at most half the rate) */

const char *edge_rate_state_name(int state)
{
	static const char *const names[EDGE_STATES] = {
		[EDGE_NO_SAMPLES] = "no_samples", [EDGE_LINE] = "line",
		[EDGE_PROBE] = "probe",		  [EDGE_HOLD] = "hold",
		[EDGE_DRAIN] = "drain",
	};

	return state >= 0 && state < EDGE_STATES ? names[state] : "?";
}

void edge_rate_params_default(struct edge_rate_params *p, double max_bps)
{
	p->max_bps = max_bps;
	p->floor_bps = max_bps / 10;
	p->target_ns = 500000;
	p->probe_gain = 0.1;
	p->beta = 0.8;
	p->margin = 0.05;
	p->hold_ns = 1000000000ull;
	p->min_interval_ns = 20000;
	p->drain_min_ns = 0;
}

int edge_rate_params_check(const struct edge_rate_params *p, const char **why)
{
	const char *bad = NULL;

	if (!(p->max_bps > 0))
		bad = "max_bps must be > 0";
	else if (!(p->floor_bps >= 0) || p->floor_bps > p->max_bps)
		bad = "floor_bps must lie in [0, max_bps]";
	else if (!p->target_ns)
		bad = "target_ns must be > 0";
	else if (!(p->probe_gain > 0) || p->probe_gain > 1)
		bad = "probe_gain must lie in (0, 1]";
	else if (!(p->beta > 0) || p->beta > 1)
		bad = "beta must lie in (0, 1]";
	else if (!(p->margin > 0) || !(p->margin < 0.5))
		bad = "margin must lie in (0, 0.5)";
	else if (!p->hold_ns)
		bad = "hold_ns must be > 0";
	if (why)
		*why = bad;
	return bad ? -EINVAL : 0;
}

static double clamp_rate(const struct edge_rate_params *p, double r)
{
	if (r > p->max_bps)
		return p->max_bps;
	return r < p->floor_bps ? p->floor_bps : r;
}

void edge_rate_init(struct edge_rate *er, const struct edge_rate_params *p)
{
	*er = (struct edge_rate){.rate_bps = p->max_bps,
				 .state = EDGE_NO_SAMPLES};
}

void edge_rate_set_params(struct edge_rate *er,
			  const struct edge_rate_params *p)
{
	er->rate_bps = er->state == EDGE_NO_SAMPLES
			       ? p->max_bps
			       : clamp_rate(p, er->rate_bps);
	er->next_ns = 0; /* decide again with the new target */
}

/* Record a decision (the state already set) that moves the rate to r. */
static void record(struct edge_rate *er, const struct edge_est *est,
		   uint64_t now, double r)
{
	struct edge_rate_decision *d =
		&er->hist[er->n_hist++ % EDGE_RATE_HISTORY];

	d->t_ns = now;
	d->rate_bps = r;
	d->delivery_bps = est ? est->delivery_bps : 0;
	d->qdelay_ns = er->qdelay_ns;
	d->state = (uint8_t)er->state;
}

/* The path is clear: probe up. Near the capacity estimate (the delivery
 * rate at the last cut) slowly, and no further than margin / 2 above it:
 * the standing state, a slow sawtooth just under the target. Once the
 * delivery rate itself exceeds the estimate by margin / 4, the capacity
 * grew (cross-traffic left): forget the estimate and probe fast, as
 * without one. */
static double probe(struct edge_rate *er, const struct edge_rate_params *p,
		    const struct edge_est *est)
{
	double r = er->rate_bps, top;
	double grown = est->delivery_mean_bps > 0 ? est->delivery_mean_bps
						  : est->delivery_bps;

	er->probes++;
	if (er->cap_bps > 0 && grown >= er->cap_bps * (1 + p->margin / 4))
		er->cap_bps = 0;
	/* A delivery rate below the rate while the path is clear means the
	 * senders send less (window or application limited), not that the
	 * path carries less: never a reason to go down. */
	if (er->cap_bps <= 0)
		return r * (1 + p->probe_gain);
	top = er->cap_bps * (1 + p->margin / 2);
	if (r < er->cap_bps * (1 - 2 * p->margin))
		r *= 1 + p->probe_gain; /* far below it: fast */
	else
		r *= 1 + p->probe_gain / EDGE_SLOW_SHARE;
	return r > top ? top : r;
}

/* Congestion beyond. With the bottleneck's queue standing, what it
 * delivers is its capacity: go under it by enough to drain the excess over
 * half the target within about EDGE_DRAIN_RTTS round trips, at least by margin, at
 * most by half (a queue the delay says is huge is cut no deeper than that:
 * the next decisions see the drain); the excess is in round trips of the
 * base RTT, which is what the drain takes once the queue is gone. Marks
 * without excess delay cut by margin. Without a delivery estimate, a Swift-like multiplicative cut. */
static double cut(struct edge_rate *er, const struct edge_rate_params *p,
		  const struct edge_est *est, uint64_t qd)
{
	double excess =
		qd > p->target_ns / 2 ? (double)(qd - p->target_ns / 2) : 0;
	uint64_t rtt;
	double f, r, horizon;

	er->cuts++;
	if (est->delivery_bps <= 0) {
		f = qd > p->target_ns
			    ? p->beta * (double)(qd - p->target_ns) / (double)qd
			    : p->margin;
		return er->rate_bps *
		       (1 - (f > EDGE_MAX_CUT ? EDGE_MAX_CUT : f));
	}
	/* the round trip the drain counts in: the base RTT, but no shorter
	 * than the decision interval (a decision sees a cut's effect no
	 * sooner) */
	rtt = est->base_rtt_ns ? est->base_rtt_ns : qd;
	if (rtt < p->min_interval_ns)
		rtt = p->min_interval_ns;
	horizon = EDGE_DRAIN_RTTS * (double)rtt;
	if (horizon < (double)p->drain_min_ns)
		horizon = (double)p->drain_min_ns;
	f = p->beta * excess / horizon;
	if (f < p->margin)
		f = p->margin;
	if (f > EDGE_MAX_CUT)
		f = EDGE_MAX_CUT;
	r = est->delivery_bps * (1 - f);
	er->cap_bps = est->delivery_bps;
	return r < er->rate_bps ? r : er->rate_bps * (1 - p->margin);
}

double edge_rate_update(struct edge_rate *er, const struct edge_rate_params *p,
			const struct edge_est *est, uint64_t now_ns)
{
	enum edge_rate_state prev = er->state;
	uint64_t rtt, qd;
	double r;

	if (now_ns < er->next_ns)
		return er->rate_bps;
	/* too few recent samples to decide (a pause of the traffic): keep
	 * the rate until hold_ns passed without any */
	if (!est->valid && er->state != EDGE_NO_SAMPLES &&
	    est->last_sample_ns && now_ns - est->last_sample_ns <= p->hold_ns) {
		er->next_ns = now_ns + p->min_interval_ns;
		return er->rate_bps;
	}
	if (!est->valid || now_ns - est->last_sample_ns > p->hold_ns) {
		er->next_ns = now_ns + p->min_interval_ns;
		if (er->state != EDGE_NO_SAMPLES ||
		    er->rate_bps != p->max_bps) {
			er->state = EDGE_NO_SAMPLES;
			er->rate_bps = p->max_bps;
			er->cap_bps = 0;
			er->qdelay_ns = 0;
			er->no_samples++;
			record(er, NULL, now_ns, p->max_bps);
		}
		return er->rate_bps;
	}
	er->decisions++;
	rtt = est->srtt_ns > p->min_interval_ns ? est->srtt_ns
						: p->min_interval_ns;
	er->next_ns = now_ns + rtt;
	qd = est->srtt_ns > est->base_rtt_ns ? est->srtt_ns - est->base_rtt_ns
					     : 0;
	if ((qd > p->target_ns || est->mark_frac > 0) &&
	    !(prev == EDGE_DRAIN && qd < er->qdelay_ns)) {
		r = cut(er, p, est, qd);
		er->state = EDGE_DRAIN;
	} else if (qd > p->target_ns || est->mark_frac > 0) {
		/* the last cut is draining the queue: let it */
		r = er->rate_bps;
		er->holds++;
	} else if (qd <= p->target_ns / 2) {
		r = probe(er, p, est);
		er->state = r >= p->max_bps ? EDGE_LINE : EDGE_PROBE;
	} else {
		r = er->rate_bps;
		er->state = EDGE_HOLD;
		er->holds++;
	}
	er->qdelay_ns = qd;
	er->prev_bps[er->n_dec++ % EDGE_RATE_LAG] = er->rate_bps;
	r = clamp_rate(p, r);
	/* operators see the changes, not every steady decision */
	if (r != er->rate_bps || er->state != prev)
		record(er, est, now_ns, r);
	er->rate_bps = r;
	return r;
}

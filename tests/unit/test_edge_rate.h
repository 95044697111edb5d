/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_edge_rate.h - what the unit tests of the aggregate rate controller
 * (test_edge_rate_*.c, cc/edge_rate.h) share: a fake clock, closed loop
 * with a fluid model of the path beyond the gateway (struct plant): a FIFO
 * bottleneck of capacity C (which steps, as other racks' traffic comes and
 * goes), one base RTT of feedback delay (1 ms), and greedy traffic behind
 * the gateway's shaper. The estimate the controller gets is what the
 * measurement would see: RTT = base + the bottleneck's queue / C, delivery
 * rate = what leaves the bottleneck, both one RTT late.
 * dataplane_filters() sets the dataplane's filters (run/adaptive.c:
 * confirm 4 ms, max_cut 0.1, growth confirmed after target / margin, a low
 * delivery rate believed after 20 ms, decisions every 1 ms at least,
 * drains over 20 ms); the run_*() helpers advance the loop and measure.
 */
#ifndef XDPLANE_TEST_EDGE_RATE_H
#define XDPLANE_TEST_EDGE_RATE_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "edge_rate.h"

#define US 1000ull
#define MS 1000000ull
#define DT (10 * US)
#define BASE (1 * MS)
#define MAXBPS 100e6
#define LAG (BASE / DT) /* feedback delay in steps */

struct plant {
	double cap_bps; /* available capacity beyond */
	double q_bytes; /* the bottleneck's queue */
	double buf_bytes;
	uint64_t now;
	/* what the gateway sees, one base RTT late */
	double hist_rtt[LAG], hist_deliv[LAG];
	uint32_t pos;
	struct edge_est est;
	struct edge_rate er;
	struct edge_rate_params p;
	double drops;
	/* the testbed's measurement (0: exact): the delivery rate scaled by
	 * a random factor in [1 - noise, 1 + noise] (+ bias) each step, a
	 * delay that is no queue of ours (phantom_ns, added to every
	 * sample), samples that stop coming (stale: last_sample_ns frozen),
	 * and the port's own sent / offered rates (backlogged: both the
	 * rate) */
	double noise, bias, phantom_ns;
	bool stale, offered;
	/* a token bucket in front of the bottleneck's queue (a TBF's burst,
	 * the spine bench's 32 KB): tokens fill while the rate is below C,
	 * and an excess spends them before any queue shows */
	double burst_bytes, tokens;
	/* the delivery rate reads this fraction of the truth (1: all; ACKs
	 * held up: a fifth) */
	double deliv_scale;
	double rate_lo, rate_hi; /* over a run_watch() */
	double demand_bps; /* what the traffic asks for (0: all it may) */
};

static inline void plant_init(struct plant *pl, double cap)
{
	memset(pl, 0, sizeof(*pl));
	pl->cap_bps = cap;
	pl->buf_bytes = 2e6;
	pl->deliv_scale = 1;
	edge_rate_params_default(&pl->p, MAXBPS);
	edge_rate_init(&pl->er, &pl->p);
	for (uint32_t i = 0; i < LAG; i++) {
		pl->hist_rtt[i] = (double)BASE;
		pl->hist_deliv[i] = 0;
	}
	pl->est.base_rtt_ns = BASE;
	pl->est.srtt_ns = BASE;
}

/* One step of DT: the bottleneck, then the controller. */
static inline void step(struct plant *pl)
{
	double r = pl->er.rate_bps;
	/* what the port sends: its rate, or less when the traffic behind
	 * it asks for less */
	double sent =
		pl->demand_bps > 0 && pl->demand_bps < r ? pl->demand_bps : r;
	double dq = (sent - pl->cap_bps) * DT / 8e9;
	double deliv =
		pl->q_bytes > 0 || sent > pl->cap_bps ? pl->cap_bps : sent;
	double rtt, srtt;

	if (pl->burst_bytes > 0 && pl->q_bytes <= 0) {
		/* below C the bucket fills; above, the excess spends it */
		pl->tokens -= dq;
		dq = 0;
		if (pl->tokens > pl->burst_bytes)
			pl->tokens = pl->burst_bytes;
		if (pl->tokens < 0) {
			dq = -pl->tokens;
			pl->tokens = 0;
		}
	}
	pl->q_bytes += dq;
	if (pl->q_bytes > pl->buf_bytes) {
		pl->drops += pl->q_bytes - pl->buf_bytes;
		pl->q_bytes = pl->buf_bytes;
	}
	if (pl->q_bytes < 0)
		pl->q_bytes = 0;
	rtt = (double)BASE + pl->q_bytes * 8e9 / pl->cap_bps;
	/* what comes back now left one base RTT ago */
	srtt = pl->hist_rtt[pl->pos];
	pl->est.delivery_bps = pl->hist_deliv[pl->pos];
	pl->hist_rtt[pl->pos] = rtt;
	pl->hist_deliv[pl->pos] = deliv;
	pl->pos = (pl->pos + 1) % LAG;
	pl->now += DT;
	pl->est.valid = true;
	srtt += pl->phantom_ns;
	pl->est.delivery_bps *= pl->deliv_scale;
	if (pl->noise > 0)
		pl->est.delivery_bps *=
			1 + pl->bias +
			pl->noise * (2.0 * (double)random() / RAND_MAX - 1);
	if (pl->offered) {
		pl->est.sent_bps = sent;
		pl->est.offered_bps = r;
	}
	if (pl->stale)
		goto decide;
	pl->est.last_sample_ns = pl->now;
	/* smoothed as the measurement smooths it (1/8) */
	pl->est.srtt_ns =
		(uint64_t)((7.0 * (double)pl->est.srtt_ns + srtt) / 8.0);
decide:
	edge_rate_update(&pl->er, &pl->p, &pl->est, pl->now);
}

/* The filters the dataplane runs with (run/adaptive.c, params_of): a
 * delay above target cuts once it stood confirm_ns, growth is believed
 * after target / margin, a low delivery rate proves a capacity drop
 * after drop_confirm_ns, decisions at most every 1 ms, a cut drains over
 * 20 ms at least; a congestion whose delay does not answer its cuts is
 * undone, then only proof of a drop cuts for quiet_ns. */
static inline void dataplane_filters(struct plant *pl)
{
	pl->p.min_interval_ns = 1 * MS;
	pl->p.drain_min_ns = 20 * MS;
	pl->p.confirm_ns = 4 * MS;
	pl->p.max_cut = 0.1;
	pl->p.drop_confirm_ns = 20 * MS;
	pl->p.quiet_ns = 500 * MS;
	pl->p.grow_confirm_ns =
		(uint64_t)((double)pl->p.target_ns / pl->p.margin);
	pl->offered = true;
}

/* Run for ns, the extremes of the rate meanwhile. */
static inline void run_watch(struct plant *pl, uint64_t ns)
{
	pl->rate_lo = 1e18;
	pl->rate_hi = 0;
	for (uint64_t end = pl->now + ns; pl->now < end;) {
		step(pl);
		pl->rate_lo = fmin(pl->rate_lo, pl->er.rate_bps);
		pl->rate_hi = fmax(pl->rate_hi, pl->er.rate_bps);
	}
}

/* Run for ns, the lowest rate meanwhile kept in rate_lo (not reset). */
static inline void run_lo(struct plant *pl, uint64_t ns)
{
	for (uint64_t end = pl->now + ns; pl->now < end;) {
		step(pl);
		pl->rate_lo = fmin(pl->rate_lo, pl->er.rate_bps);
	}
}

/* Run for ns: the mean rate meanwhile, the lowest kept in rate_lo. */
static inline double run_mean(struct plant *pl, uint64_t ns)
{
	double sum = 0;
	uint64_t n = 0;

	for (uint64_t end = pl->now + ns; pl->now < end; n++) {
		step(pl);
		sum += pl->er.rate_bps;
		pl->rate_lo = fmin(pl->rate_lo, pl->er.rate_bps);
	}
	return n ? sum / (double)n : 0;
}

static inline void run_for(struct plant *pl, uint64_t ns)
{
	for (uint64_t end = pl->now + ns; pl->now < end;)
		step(pl);
}

/* A plant of capacity cap with the dataplane's filters, run for 500 base
 * RTTs: the controller settled at C. */
static inline void plant_settled(struct plant *pl, double cap)
{
	plant_init(pl, cap);
	dataplane_filters(pl);
	run_for(pl, 500 * BASE);
}

static inline double qdelay_ns(const struct plant *pl)
{
	return pl->q_bytes * 8e9 / pl->cap_bps;
}

/* Run for ns: the queue beyond's mean delay meanwhile, its max kept in
 * *qmax (not reset). */
static inline double run_queue(struct plant *pl, uint64_t ns, double *qmax)
{
	double sum = 0;
	uint64_t n = 0;

	for (uint64_t end = pl->now + ns; pl->now < end; n++) {
		step(pl);
		sum += qdelay_ns(pl);
		*qmax = fmax(*qmax, qdelay_ns(pl));
	}
	return n ? sum / (double)n : 0;
}

#endif

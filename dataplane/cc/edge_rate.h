/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * edge_rate.h - the aggregate rate controller of one egress port: it sets
 * the port shaper's effective rate so that the queue that would form at a
 * bottleneck beyond the gateway (an oversubscribed spine, the far rack's
 * ToR) forms at the gateway instead, where the classes order it (Bundler,
 * EuroSys 2021). A pure module like dcqcn.c: state + estimate + now ->
 * rate; no clock, no I/O, so the same code runs in the egress task, in unit
 * tests on a fake clock and in the simulator (bench/edge-sim).
 *
 * Input: an estimate of the path beyond (path/pathmon.h): the windowed
 * minimum RTT (base), the smoothed RTT, the delivery rate (bytes
 * acknowledged per interval, windowed maximum) and the fraction of
 * returning packets that carry congestion marks (TCP ECE, RoCE CNPs).
 * The queueing delay beyond the gateway is srtt - base.
 *
 * Control law (a delay target with a BBR-like capacity estimate and
 * two-speed probing), at most one decision per smoothed RTT (a change shows
 * in the samples one round trip later):
 *  - no sample for hold_ns: the rate is max_bps (ports[].rate): nothing is
 *    known, so the port behaves as without the controller (NO_SAMPLES);
 *    too few recent samples to decide, but one within hold_ns (the
 *    traffic paused): the rate is kept, no decision;
 *  - congested (queueing delay above target, or marks returning): with its
 *    queue standing, the bottleneck delivers its capacity, so the rate
 *    goes to (1 - f) x the delivery rate, f large enough to drain the
 *    excess over target / 2 in about 4 base RTTs, at least margin, at most
 *    1/2; that delivery rate is kept as the capacity estimate (DRAIN).
 *    While the delay is still above target but falling, the cut is left
 *    to work (no second cut);
 *  - clear (queueing delay at most target / 2, no marks): probe up. With a
 *    capacity estimate: slowly (gain / 4 per RTT; fast while below it by
 *    more than 2 margins) and no further than margin / 2 above it -- the
 *    standing state, a slow sawtooth just under the target. Without one:
 *    fast (gain per RTT), until the delay rises. When the delivery rate
 *    (its mean over a few intervals: one interval's count of packets is
 *    too noisy at this resolution) exceeds the estimate by margin / 4
 *    the capacity grew (cross-traffic left): the estimate is dropped
 *    (PROBE). (Stopping the fast probe on
 *    the delivery rate no longer following the rate was tried: the
 *    delivery rate is measured over intervals and comes a round trip
 *    late, so during a ramp it lags the rate by more than a margin and
 *    stopped the probe early; the delay is the reliable signal.)
 *    Reaching max_bps is LINE: the gateway itself is the bottleneck, or
 *    the path is clear at the line rate;
 *  - in between: no change (HOLD), the hysteresis that keeps the rate
 *    steady on a steady path.
 * Measured in test_edge_rate.c (fluid bottleneck, base RTT 1 ms, target
 * 500 us): a step 100 -> 50 % of the line is cut within 10 RTTs (the
 * queue beyond under the target) and followed within 15 % within 30, a
 * step 50 -> 80 % within 15, the standing sawtooth is 8 % of the capacity
 * peak to peak with the queue beyond below 1.2x the target. A clear path
 * never lowers the rate: real senders are window-limited, their delivery
 * rate follows the gateway's rate down (lowering to it was tried on the
 * veth testbed: a ratchet to the floor).
 * The rate always lies in [floor_bps, max_bps].
 *
 * Ownership: a struct edge_rate belongs to the thread that calls
 * edge_rate_update() (the egress task of the port); others read its
 * published copy (edge_rate_view) with relaxed atomics.
 */
#ifndef XDPLANE_EDGE_RATE_H
#define XDPLANE_EDGE_RATE_H

#include <stdbool.h>
#include <stdint.h>

#define EDGE_RATE_HISTORY 8 /* last decisions kept for operators */
#define EDGE_RATE_LAG 3 /* decisions the delivery rate may lag by */

enum edge_rate_state {
	EDGE_NO_SAMPLES = 0, /* nothing measured: at max_bps */
	EDGE_LINE, /* path clear at max_bps */
	EDGE_PROBE, /* path clear: rate going up */
	EDGE_HOLD, /* delay within [target / 2, target]: rate kept */
	EDGE_DRAIN, /* delay above target or marks: rate cut */
	EDGE_STATES
};

/* "no_samples", "line", "probe", "hold", "drain"; "?" out of range. */
const char *edge_rate_state_name(int state);

struct edge_rate_params {
	double max_bps; /* ports[].rate: the ceiling, and the rate with no
			 * samples; > 0 */
	double floor_bps; /* never below; <= max_bps */
	uint64_t target_ns; /* queueing delay beyond the gateway that is
			     * tolerated; > 0 */
	double probe_gain; /* fractional increase per RTT when probing
			    * fast (0.1: +10 % per RTT); (0, 1] */
	double beta; /* decrease per unit of relative excess delay;
		      * (0, 1]; the cut is at most 1/2 */
	double margin; /* drain at (1 - margin) x delivery rate; and the
			* band around the capacity estimate; (0, 0.5) */
	uint64_t hold_ns; /* no sample this long: back to max_bps */
	uint64_t min_interval_ns; /* decisions at most this often, also
				   * when the RTT is shorter */
	uint64_t drain_min_ns; /* a cut drains the excess delay over no
				* less than this (0: 4 RTTs only); longer
				* makes transient bursts beyond cost less */
};

/* Defaults for a port of max_bps: target 500 us, floor 10 % of max, gain
 * 0.1, beta 0.8, margin 0.05, hold 1 s, min interval 20 us. */
void edge_rate_params_default(struct edge_rate_params *p, double max_bps);
/* 0, or -EINVAL with the first bad field named in *why. */
int edge_rate_params_check(const struct edge_rate_params *p, const char **why);

/* The estimate of the path beyond (pathmon_estimate() fills one). */
struct edge_est {
	bool valid; /* enough recent samples to act on */
	uint64_t base_rtt_ns; /* windowed minimum RTT */
	uint64_t srtt_ns; /* smoothed RTT */
	uint64_t last_sample_ns; /* when the last RTT sample came */
	double delivery_bps; /* the delivery rate now (the last interval) */
	double delivery_mean_bps; /* its mean over a few intervals (less
				   * noise: tells growth); 0: use
				   * delivery_bps */
	double mark_frac; /* returning packets with congestion marks */
};

struct edge_rate_decision {
	uint64_t t_ns;
	double rate_bps;
	double delivery_bps;
	uint64_t qdelay_ns;
	uint8_t state; /* enum edge_rate_state */
};

struct edge_rate {
	double rate_bps; /* the shaper rate now */
	enum edge_rate_state state;
	uint64_t next_ns; /* no decision before */
	double cap_bps; /* capacity estimate: delivery rate at the last cut,
			 * 0: none */
	uint64_t qdelay_ns; /* at the last decision */
	double prev_bps[EDGE_RATE_LAG]; /* the rates before the last
					 * decisions (a ring) */
	uint32_t n_dec;
	uint64_t decisions, cuts, probes, holds, no_samples;
	struct edge_rate_decision hist[EDGE_RATE_HISTORY]; /* ring */
	uint32_t n_hist; /* decisions recorded, the newest at
			  * (n_hist - 1) % EDGE_RATE_HISTORY */
};

/* Start at max_bps with no samples. */
void edge_rate_init(struct edge_rate *er, const struct edge_rate_params *p);
/* New parameters (a reload): the rate is cut into the new bounds, the
 * state kept. */
void edge_rate_set_params(struct edge_rate *er,
			  const struct edge_rate_params *p);
/* One step: returns the rate the port shaper should run at now. Cheap
 * when no decision is due (one comparison). */
double edge_rate_update(struct edge_rate *er, const struct edge_rate_params *p,
			const struct edge_est *est, uint64_t now_ns);

#endif

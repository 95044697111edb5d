/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * edge_rate.h - the aggregate rate controller of one egress port: it keeps
 * the port's shaper just under the capacity of a bottleneck beyond the
 * gateway, so the queue forms in the gateway, where the classes order it
 * (Bundler, EuroSys 2021; a delay target as Swift, SIGCOMM 2020; a
 * delivery-rate estimate as BBR). Pure: state + estimate + now -> rate.
 *
 * Inputs (struct edge_est, from path/pathmon.h): qd = srtt - base, the
 * queueing delay beyond; D = max(delivery_bps, delivery_mean_bps); marks;
 * S = min(R, sent_bps); offered_bps; the upper classes' protect_bps P and
 * protect_mean_bps Pm. T = target_ns, m = margin, M = max_cut.
 * State: rate R, capacity estimate C (0: none), the congestion episode
 * (R0, C0 before its first cut, its lowest rate, whether a drop was
 * proven), when the runs of qd > T, of a low D and of growth began.
 *
 * One decision per max(srtt, min_interval_ns), on a new sample or marks:
 *  no sample for hold_ns (too few: R kept meanwhile): R = max, C = 0
 *                                                          NO_SAMPLES
 *  marks, or qd > T for confirm_ns, and no cut working (one within
 *  confirm_ns, or qd falling fast enough to reach T/2 within the drain
 *  horizon, H = max(4 base RTTs, drain_min_ns)):            DRAIN
 *    drop = qd > 4T || (D < (1 - 2M) S for drop_confirm_ns and qd grew
 *           by >= 1/4 x (S - D) / D x that time)
 *    f    = beta (qd - T/2) / H, in [m, M'] (M' = qd > 4T ? 1/2 : M)
 *    D    = max(D, (1 - M') R) unless qd followed the low D (for
 *           drop_confirm_ns, or confirm_ns when qd > 4T)
 *    C    = min(D, max(C, R)), >= (1 - 2M) C0 unless qd followed D
 *    R    = D (1 - f) (no D: R (1 - f), f = beta (qd - T) / qd, as
 *           Swift), R (1 - m) if that is no cut; at most M' below R (1/2
 *           with drop); >= (1 - 2M) C0 without drop; >= min(R, P (1 +
 *           m)) unless both proofs hold -- with qd > 4T, min(P, R) (1 -
 *           m), but >= min(R, Pm (1 + m)) unless qd rose at two cuts in
 *           a row (C no lower than a rate so kept)
 *  qd <= T/2, no marks:                                   PROBE, LINE
 *    undo: no drop proven and the delay of one of the last 4 decisions
 *    above T fell 1.5 x faster than the cuts could drain a FIFO (1 -
 *    lowest R / (C0 (1 + m)), >= m, per unit of time): R, C = R0, C0
 *    C = 0: R = R (1 + probe_gain)
 *    else   R = (1 - m) C if below it, else R (1 + probe_gain / 4), at
 *           most (1 + m/2) C; R within m/4 of that top, carried (sent
 *           >= (1 - m/2) offered; unknown: D >= (1 + m/4) C) and qd <=
 *           T/4 for grow_confirm_ns (>= 2 srtt when set):
 *           C = R (1 + m/4 x 2^k), R = (1 + m/2) C, k = 0, 1, 2 in a row
 *  T/2 < qd <= T, no marks: R kept (HOLD); otherwise R kept, state too
 *  unheard (quiet_ns set): no drop nor kept cut in the episode, and its
 *  delay still 3/4 of its first once a FIFO fed at its lowest rate would
 *  have drained it twice: R, C = R0, C0; for quiet_ns only marks or a
 *  drop cut.
 * Invariants: floor_bps <= R <= max_bps; one decision cuts at most half;
 * on a clear path D never lowers R; C grows only on a carried rate.
 * Why, and the measurements behind it: docs/decisions/0003 (the law),
 * 0004 (what the upper classes keep), 0005 (drop proof, undo); the bounds
 * the law keeps are the tests of tests/unit/test_edge_rate_*.c.
 *
 * Ownership: the thread that calls edge_rate_update() (the port's egress
 * task) owns a struct edge_rate; others read the copy run/adaptive.h
 * publishes (adaptive_read()).
 */
#ifndef XDPLANE_EDGE_RATE_H
#define XDPLANE_EDGE_RATE_H

#include <stdbool.h>
#include <stdint.h>

#define EDGE_RATE_HISTORY 8 /* last decisions kept for operators */
#define EDGE_RATE_RECENT 4 /* last decisions' delays kept (undo) */

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
		      * (0, 1]; the cut is at most max_cut */
	double margin; /* drain at (1 - margin) x delivery rate; and the
			* band around the capacity estimate; (0, 0.5) */
	uint64_t hold_ns; /* no sample this long: back to max_bps */
	uint64_t min_interval_ns; /* decisions at most this often, also
				   * when the RTT is shorter */
	uint64_t drain_min_ns; /* a cut drains the excess delay over no
				* less than this (0: 4 RTTs only); longer
				* makes transient bursts beyond cost less */
	uint64_t confirm_ns; /* a delay above target cuts once it stood
			      * this long (0: at the first decision) */
	double max_cut; /* a decision cuts the rate by at most this
			 * fraction (1/2 for a queue above 4 x target), one
			 * congestion by 2 x this of the estimate unless the
			 * capacity dropped; (0, 0.5] */
	uint64_t drop_confirm_ns; /* a delivery rate far below the rate
				   * (2 x max_cut) is a capacity drop once
				   * it read so this long (0: at once) */
	uint64_t quiet_ns; /* a congestion whose delay did not answer its
			    * cuts (a FIFO fed at the lowest rate would be
			    * empty by now) is undone, and for this long
			    * only a queue above 4 x target or a low
			    * delivery rate cut (0: never so) */
	uint64_t grow_confirm_ns; /* the estimate grows once the rate sat
				   * at the top of its band, carried, the
				   * delay under target / 4, this long (0:
				   * at the first such decision) */
};

/* Defaults for a port of max_bps: target 500 us, floor 10 % of max, gain
 * 0.1, beta 0.8, margin 0.05, hold 1 s, min interval 20 us, no drain
 * minimum, max_cut 1/2, no confirmation times (an exact measurement; the
 * dataplane's are in run/adaptive.h). The configuration's defaults of
 * ports[].adaptive (target, floor, probe_gain) are these. */
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
	double sent_bps; /* what the port sent over a recent period, in the
			  * units of the delivery rate */
	double offered_bps; /* its shaper's rate over the same period (what
			     * it could have sent); 0: both unknown */
	double protect_bps; /* what the classes above the lowest level sent
			     * lately: no cut goes below it (+ margin)
			     * unless a large queue beyond and a low
			     * delivery rate prove a drop together; 0:
			     * nothing kept */
	double protect_mean_bps; /* what they sent on average over the same
				  * time: a queue above 4 x the target is
				  * drained no lower (+ margin) unless it
				  * rose at two cuts in a row (0: none) */
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
	uint64_t dec_ns; /* the last decision on a fresh sample */
	uint64_t above_ns; /* first decision of the current run above
			    * target; 0: the last one was not */
	uint64_t grow_ns; /* first decision of the current run with the
			   * delivery rate above the estimate; 0: none */
	uint64_t cut_ns; /* the last cut; 0: none */
	uint64_t sample_ns; /* last_sample_ns of the last decision */
	uint32_t grow_k; /* growth confirmations in a row (their step
			  * doubles) */
	uint64_t ep_ns; /* first cut of this congestion; 0: none */
	double ep_cap_bps; /* the capacity estimate before it (none: the
			    * rate) */
	uint64_t ep_qd_ns; /* the queueing delay at its last cut */
	uint64_t low_ns; /* first decision of the current run with the
			  * delivery rate far below the rate; 0: none */
	uint64_t low_qd_ns; /* the queueing delay when that run began */
	double ep_rate_bps; /* the rate before its first cut */
	double ep_lo_bps; /* the lowest rate its cuts set */
	bool ep_proved; /* one of its cuts had proof of a drop */
	double ep_deliv_bps; /* the delivery rate at its first cut */
	uint64_t ep_qd0_ns; /* the queueing delay then */
	uint64_t ep_lo_ns; /* when its lowest rate was set */
	uint64_t ep_kept; /* kept_cuts at its start */
	uint32_t big_n; /* cuts in a row with a queue above 4 x target */
	uint64_t big_qmax_ns; /* the highest delay those cuts found */
	uint32_t big_rise; /* those in a row that found it rising */
	uint64_t quiet_until_ns; /* only proof cuts before (quiet_ns) */
	uint64_t unheard; /* congestions undone: their delay did not
			   * answer the cuts */
	uint64_t recent_qd_ns[EDGE_RATE_RECENT]; /* the queueing delay at */
	uint64_t recent_t_ns[EDGE_RATE_RECENT]; /* the last decisions on a
						 * fresh sample (a ring) */
	uint32_t n_dec;
	uint64_t decisions, cuts, probes, holds, no_samples;
	uint64_t kept_cuts; /* cuts held at protect_bps */
	uint64_t undone; /* congestions undone: the delay fell faster than
			  * their cuts could drain a queue beyond */
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

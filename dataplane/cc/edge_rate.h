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
 * Control law (a delay target with a capacity estimate that is kept,
 * bounded cuts and confirmed growth), at most one decision per smoothed
 * RTT (a change shows in the samples one round trip later), and a
 * decision only on a new RTT sample (a stale one repeated would cut again
 * and again: measured on the spine bench, a ratchet to the floor):
 *  - no sample for hold_ns: the rate is max_bps (ports[].rate): nothing is
 *    known, so the port behaves as without the controller (NO_SAMPLES);
 *    too few recent samples to decide, or no new one, but one within
 *    hold_ns (the traffic paused): the rate is kept, no decision;
 *  - congested: marks returning, or a queueing delay above target that
 *    stood for confirm_ns (every decision over it above target: a
 *    standing queue, not the spike of a burst that drains by itself nor
 *    one late ACK). With its queue standing, the bottleneck delivers its
 *    capacity, so the rate goes to (1 - f) x the delivery rate (the
 *    higher of the last interval's and the mean of a few), f large enough
 *    to drain the excess over target / 2 in about 4 base RTTs
 *    (drain_min_ns at least), at least margin, at most max_cut. That
 *    capacity is kept as the estimate (DRAIN), no higher than the rate
 *    the queue formed at. Without proof that the capacity dropped, a
 *    delivery rate below (1 - max_cut) x the rate counts as that much
 *    (its noise is no capacity), and one congestion (the cuts until the
 *    next clear decision) takes the rate and the estimate no lower than
 *    (1 - 2 x max_cut) x the estimate before it. Proof of a capacity
 *    drop: a queue above 4 x the target (ours and large: the cut may
 *    reach 1/2), or a delivery rate more than 2 x max_cut below what the
 *    port sent (its rate, or less: a port that sends a third of its rate
 *    delivers a third, and on the veth bench the rate taken for what was
 *    sent "proved" a drop at every congestion of such a port, cut at once
 *    to what the upper classes send) that read so for drop_confirm_ns
 *    (one reading is none: on the spine bench ACKs held up a few ms read
 *    as a fifth of the truth) while the delay grew as it says (a path
 *    that delivers d of the s sent builds (s - d) / d of delay per unit
 *    of time; a quarter of that is asked: behind a standing queue on the
 *    spine bench the ACKs bunched and read a fifth for 20 ms with the
 *    queue flat, the cuts followed the reading to 9.5 Mbit/s of 34.5 in
 *    100 ms and growth took seconds); then the estimate is the delivery
 *    rate, and the rate follows it down by half per decision at most. A
 *    queue above 4 x the target is cut by its excess, by the delivery
 *    rate only once the delay has followed it for confirm_ns, and the
 *    estimate stays no lower than (1 - 2 x max_cut) x the one before
 *    until it has. Unless both prove the drop at once, no
 *    cut goes below what the classes above the lowest level send
 *    (protect_bps, + margin; with the queue above 4 x the target,
 *    margin below it, or below the rate when that is lower, at each cut:
 *    what they sent lately, their highest 10 ms, may be more than the
 *    path carries, and follows the rate once they wait in the gateway --
 *    measured on the spine bench, 33.4 kept of 32 Mbit/s, and 42.5 of 40
 *    then 32, the queue grew to 75 ms until the delivery rate read low
 *    and the cuts went to the floor; but no lower than what they send on
 *    average, protect_mean_bps, + margin, unless that queue rose at two
 *    cuts in a row: a queue the cuts drain, or one still growing for the round
 *    trip before a cut shows, is no path below them -- measured on the
 *    spine bench, 6 cuts in a row took the rate from 30 to 19.5 Mbit/s
 *    while the queue fell, under the collective's 25 on a 32 Mbit/s path,
 *    its class queued in the gateway, the ECN marks there halved the
 *    hosts' DCQCN for the rest of the run): a suspicion, the queue the
 *    growth built when it found the capacity again, or a delivery rate
 *    misread for 20 ms, costs the bulk class, not the traffic the
 *    classes put first. A congestion whose delay falls under target / 2
 *    faster (EDGE_UNDO_PACE x) than its cuts could drain a FIFO beyond
 *    (at 1 - the lowest rate they set / (the estimate before it +
 *    margin), in delay per time), with no
 *    proof of a drop, was no queue (the hosts' ACKs held up) or the path
 *    sped up: its cuts are undone, the rate and the estimate back to
 *    what they were before it (undone). With quiet_ns set, so are they
 *    when the delay does not answer them at all: still 3/4 of the first
 *    once a FIFO fed at the lowest rate they set would have drained it
 *    twice (at 1 - lowest / the delivery rate at the first cut, no more
 *    than what was sent; not judged after a cut kept at protect_bps or
 *    proof of a drop) -- a host's late ACKs, its busy CPU (on the veth
 *    bench 2-2.5 ms on every flow to the storage node, the gateway
 *    itself the bottleneck: a fifth of the rate taken from storage for
 *    30-130 ms at a time) -- and for quiet_ns only proof of a drop (a
 *    queue above 4 x the target, a low delivery rate) cuts (unheard).
 *    A cut is
 *    left to work: no other within confirm_ns, nor while the delay falls
 *    fast enough to be under target / 2 within the drain's horizon. A
 *    delay above target that is not (yet) confirmed changes nothing;
 *  - clear (queueing delay at most target / 2, no marks): with a
 *    capacity estimate, a rate more than margin below it (the drain of a
 *    cut is over) goes back to (1 - margin) x the estimate at once, then
 *    up slowly (gain / 4 per RTT) and no further than margin / 2 above
 *    it -- the standing state, just under the target. The estimate grows
 *    when the rate sits at the top of that band, the path carries it
 *    (the port sent what its shaper allowed; without that input: the
 *    delivery rate exceeds the estimate by margin / 4) and the delay
 *    stays under target / 4 for grow_confirm_ns (a rate margin / 2 above
 *    the capacity would have built that much queue in half that time):
 *    by margin / 4 the first time, twice as far each time it is
 *    confirmed again in a row, up to margin, each after the same wait
 *    (never less than two round trips when grow_confirm_ns is set). The
 *    growth of the capacity estimate is so bounded to margin per
 *    grow_confirm_ns: a buffer that hides the first bytes above the
 *    capacity (a token bucket's burst: 32 KB, 3.6 x the target's worth,
 *    on the spine bench) costs at most 20 % of overshoot (the law before
 *    halved the wait after each step, grew by up to 4 x margin, and ran
 *    from 30 Mbit/s to the line in 60 ms on the spine bench, then cut to
 *    a third). Without an estimate: fast (gain per RTT), until the delay
 *    rises. Reaching max_bps is LINE: the gateway itself is the
 *    bottleneck, or the path is clear at the line rate;
 *  - in between: no change (HOLD), the hysteresis that keeps the rate
 *    steady on a steady path.
 * Measured in test_edge_rate.c (fluid bottleneck, base RTT 1 ms, target
 * 500 us): a step 100 -> 50 % of the line is cut within 10 RTTs (the
 * queue beyond under the target) and followed within 15 % within 30, a
 * step 50 -> 80 % within 15, the standing sawtooth is below 12 % of the
 * capacity peak to peak with the queue beyond below 1.5x the target; with
 * the dataplane's filters (run/adaptive.h: confirm_ns 4 ms, max_cut 0.1,
 * grow_confirm_ns target / margin, drop_confirm_ns 20 ms, quiet_ns 500 ms):
 * the same steps within 40 and 60 RTTs, a
 * capacity rise hidden by a burst of 3.6 x the target overshoots by at
 * most 20 % and never cuts below 0.8 C after, a delivery rate noisy by
 * +-30 % (+17 % bias, as measured on the spine bench) keeps the rate
 * within [0.85, 1.15] x C, one reading it a fifth of the truth for 15 ms
 * costs at most 25 %, a delay of 2.5 x the target for 15 ms that is no
 * queue (the gateway the bottleneck) is undone, the line rate back within
 * 10 RTTs (the law before: 46), real queues never, one that stands for
 * 1 s is undone as unanswered (quiet_ns) and costs 1 % of the rate on
 * average (the law before: 20 %), a drop read as a twentieth of what
 * was sent cuts by half per decision at most (the law before: to the
 * reading at once), a port that sends 30 % of its rate keeps 80 % of it
 * through such a delay (the law before: 28 %), a protected rate
 * above the path keeps the queue under 8 x the target (the law before:
 * 100 x and growing), 1 ms delay spikes cost no cut, a stale congested
 * sample costs one cut, 20 delays in a row that are no queue cost at
 * most 25 %, what the upper classes send is kept through them (a
 * capacity below it is followed below it), a queue of 10 ms beyond
 * after a step from 80 to 64 % of the line is drained no lower than what
 * they send on average (the law before: 4 % below it; 22 % on the spine
 * bench), and a delivery rate read as
 * a fifth of the truth for 40 ms behind a queue of 20 ms keeps 90 % of
 * what they send and the rate is back at C within 100 ms (the law
 * before: to a fifth of C, and a third 100 ms later).
 * On the spine bench the law before these changes swung between the line
 * rate and a quarter of it every 50 ms (its estimate was one 10 ms
 * interval of the delivery rate, dropped at the first noisy interval above
 * it, and the fast probe overshot the spine by half), and each dip below
 * what the collective needs cost it (bench/README.md).
 * A clear path never lowers the rate: real senders are window-limited,
 * their delivery rate follows the gateway's rate down (lowering to it was
 * tried on the veth testbed: a ratchet to the floor).
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
 * dataplane's are in run/adaptive.h). */
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

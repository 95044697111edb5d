// SPDX-License-Identifier: BSD-2-Clause
/*
 * edge_rate.c - see edge_rate.h.
 */
#include <errno.h>
#include <stddef.h>
#include "edge_rate.h"

#define EDGE_MAX_CUT 0.5 /* a decision never cuts more than half */
#define EDGE_SLOW_SHARE 4 /* slow probe: gain / 4 per RTT */
#define EDGE_GROW_MAX_K                                                        \
	2 /* growth steps double up to margin (2^2 x margin / 4) */
#define EDGE_DRAIN_RTTS                                                        \
	4.0 /* a cut drains the excess in about this many
			     * base RTTs (a deep one: at most half the rate) */
#define EDGE_UNDO_PACE                                                         \
	1.5 /* a delay that fell this many times faster than
	     * the cuts could drain a queue was none (undo) */
#define EDGE_DROP_GROWTH                                                       \
	0.25 /* a low delivery rate is a capacity drop once the
	      * delay grew by this share of what it says */

/* How long before now t was, 0 when t is after now (cc/ is the bottom
 * room and includes nothing of the tree: base/bits.h has the same). */
static inline uint64_t age_ns(uint64_t now, uint64_t t)
{
	return now > t ? now - t : 0;
}

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
	p->confirm_ns = 0;
	p->max_cut = EDGE_MAX_CUT;
	p->grow_confirm_ns = 0;
	p->drop_confirm_ns = 0;
	p->quiet_ns = 0;
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
	else if (!(p->max_cut > 0) || p->max_cut > EDGE_MAX_CUT)
		bad = "max_cut must lie in (0, 0.5]";
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

/* The delivery rate that speaks for the capacity: the higher of the last
 * interval's and the mean over a few (the mean alone comes late after a
 * change; one interval alone can be low by half when ACKs bunch up). */
static double delivered(const struct edge_est *est)
{
	return est->delivery_mean_bps > est->delivery_bps
		       ? est->delivery_mean_bps
		       : est->delivery_bps;
}

/* What the port sends now: its rate, or what it sent over the last
 * period when that was less (the traffic asked for less). */
static double sent_now(const struct edge_rate *er, const struct edge_est *est)
{
	return est->sent_bps > 0 && est->sent_bps < er->rate_bps ? est->sent_bps
								 : er->rate_bps;
}

/* The path is clear: probe up. Below the capacity estimate by more than
 * margin -- the drain of a cut is over -- back to (1 - margin) x the
 * estimate at once; near it slowly, and no further than margin / 2 above
 * it: the standing state, just under the target. When the rate sits at
 * the top of that band, the path carries it (the port sent what its
 * shaper allowed; without that input, the delivery rate exceeds the
 * estimate) and the queueing delay stays under target / 4 (margin / 2 too
 * much would build that in half the time) for grow_confirm_ns, the
 * capacity grew (cross-traffic left): the estimate moves to the rate and
 * beyond, by margin / 4 the first time, twice as far each time it is
 * confirmed again in a row, up to margin, after the same wait each time
 * (a buffer beyond that hides the first bytes above the capacity, a token
 * bucket's burst, costs so at most margin per wait; 0003), until the
 * delay rises. One noisy interval of the delivery rate moves nothing. */
static double probe(struct edge_rate *er, const struct edge_rate_params *p,
		    const struct edge_est *est, uint64_t qd, uint64_t now)
{
	double r = er->rate_bps, top;
	/* the path carries the rate: the port sent what its shaper allowed
	 * (when known: exact; the delivery rate's mean comes late and
	 * noisy; the delay, over grow_confirm_ns, says it was delivered),
	 * else the delivery rate exceeds the estimate */
	bool carried =
		est->offered_bps > 0
			? est->sent_bps >=
				  est->offered_bps * (1 - p->margin / 2)
			: delivered(est) >= er->cap_bps * (1 + p->margin / 4);

	er->probes++;
	top = er->cap_bps * (1 + p->margin / 2);
	if (er->cap_bps > 0 && r >= top * (1 - p->margin / 4) && carried &&
	    qd <= p->target_ns / 4) {
		/* never sooner than the delay could show a step: two round
		 * trips (with a confirmation time at all) */
		uint64_t wait = p->grow_confirm_ns,
			 least = p->grow_confirm_ns ? 2 * est->srtt_ns : 0;

		if (!er->grow_ns)
			er->grow_ns = now;
		if (age_ns(now, er->grow_ns) >= (wait > least ? wait : least)) {
			er->cap_bps =
				r * (1 + p->margin / 4 *
						 (double)(1u << er->grow_k));
			if (er->grow_k < EDGE_GROW_MAX_K)
				er->grow_k++;
			er->grow_ns = 0;
			return er->cap_bps * (1 + p->margin / 2);
		}
	} else {
		er->grow_ns = 0;
	}
	/* A delivery rate below the rate while the path is clear means the
	 * senders send less (window or application limited), not that the
	 * path carries less: never a reason to go down. */
	if (er->cap_bps <= 0)
		return r * (1 + p->probe_gain);
	top = er->cap_bps * (1 + p->margin / 2);
	if (r < er->cap_bps * (1 - p->margin))
		r = er->cap_bps * (1 - p->margin); /* the drain is over */
	else
		r *= 1 + p->probe_gain / EDGE_SLOW_SHARE;
	return r > top ? top : r;
}

/* The round trip a drain counts in: the base RTT, but no shorter than the
 * decision interval (a decision sees a cut's effect no sooner). */
static double drain_horizon(const struct edge_rate_params *p,
			    const struct edge_est *est, uint64_t qd)
{
	uint64_t rtt = est->base_rtt_ns ? est->base_rtt_ns : qd;
	double horizon;

	if (rtt < p->min_interval_ns)
		rtt = p->min_interval_ns;
	horizon = EDGE_DRAIN_RTTS * (double)rtt;
	return horizon < (double)p->drain_min_ns ? (double)p->drain_min_ns
						 : horizon;
}

/* A cut keeps what the classes above the lowest level send
 * (est->protect_bps, + margin) unless both signals say the path carries
 * less: a queue above 4 x the target and a delivery rate far below the
 * rate for drop_confirm_ns. Neither alone is proof: growth that finds
 * the capacity again builds such a queue, and ACKs held up read as a
 * low delivery rate with no queue growing (0004, 0005). A suspicion costs
 * the bulk class, not the traffic the classes put first. Never above the
 * rate; the estimate no lower either. */
static double protect(struct edge_rate *er, const struct edge_rate_params *p,
		      const struct edge_est *est, double r, bool big)
{
	double pf = est->protect_bps * (1 + p->margin), lo;

	if (big) {
		/* a queue above 4 x the target: margin below what is kept,
		 * or below the rate when that is lower, at each cut (what
		 * the upper classes sent in their highest 10 ms follows the
		 * rate once they wait here); but no lower than what they
		 * send on average, + margin (nor than the rate: this never
		 * raises it) unless the queue rose at two cuts in a row: a
		 * queue the cuts drain, or one still growing for the round
		 * trip before a cut shows, is no path below them (0004) */
		pf = est->protect_bps < er->rate_bps ? est->protect_bps
						     : er->rate_bps;
		pf *= 1 - p->margin;
		lo = est->protect_mean_bps * (1 + p->margin);
		if (lo > er->rate_bps)
			lo = er->rate_bps;
		if (er->big_rise < 2 && pf < lo)
			pf = lo;
	}
	if (!(pf > r))
		return r;
	if (pf > er->rate_bps)
		pf = er->rate_bps;
	if (er->cap_bps < pf)
		er->cap_bps = pf;
	er->kept_cuts++;
	return pf;
}

/* The delivery rate has read far below what the port sent (2 x max_cut)
 * for at least `least`, and the queue beyond grew as that says: a path
 * that delivers d while the port sends s > d builds (s - d) / d of delay
 * per unit of time, so since the reading began the delay grew by at
 * least EDGE_DROP_GROWTH of (s - d) / d x that time. A reading the delay
 * does not follow is the ACKs, not the path: ACKs that bunch behind a
 * standing queue read a fraction of the truth with the queue flat
 * (0005). A drop into a full buffer beyond (the delay cannot grow)
 * reads as none: the queue above 4 x the target cuts it by its excess. */
static bool low_grew(const struct edge_rate *er, const struct edge_est *est,
		     uint64_t qd, uint64_t now, uint64_t least)
{
	double d = delivered(est), s = sent_now(er, est), grew;

	if (!er->low_ns || age_ns(now, er->low_ns) < least || !(d > 0) ||
	    !(s > d))
		return false;
	grew = qd > er->low_qd_ns ? (double)(qd - er->low_qd_ns) : 0;
	return grew >=
	       EDGE_DROP_GROWTH * (s - d) / d * (double)age_ns(now, er->low_ns);
}

/* Congestion beyond. With the bottleneck's queue standing, what it
 * delivers is its capacity: go under it by enough to drain the excess over
 * half the target within the drain horizon, at least by margin, at most
 * by max_cut (1/2 for a queue above 4 x the target: the next decisions
 * see the drain). The delivery rate taken is the higher of the last
 * interval's and the mean; one less than 2 x max_cut below the rate is
 * taken as no less than (1 - max_cut) x the rate (its noise is no
 * capacity: 0003); one further below for drop_confirm_ns while the
 * delay grew as it says (low_grew()), or a queue above 4 x the target,
 * says the capacity dropped (what the upper classes send is kept all the
 * same unless both say so: protect()); a large queue is cut by its
 * excess, from the delivery rate only once the delay followed it for
 * confirm_ns, else from no less than half the rate. A
 * delivery rate at or above the rate
 * (a cut is draining the queue, or a noisy interval) cuts by margin. The
 * delivery rate is kept as the capacity estimate, no higher than the rate
 * the queue formed at (the higher of the rate and the estimate before).
 * One congestion takes the rate no lower than (1 - 2 x max_cut) x the
 * estimate before it unless the capacity dropped, the estimate unless the
 * delay followed the delivery rate. Marks
 * without excess delay cut by margin. Without a delivery estimate, a
 * Swift-like multiplicative cut. */
static double cut(struct edge_rate *er, const struct edge_rate_params *p,
		  const struct edge_est *est, uint64_t qd, uint64_t now)
{
	double excess =
		qd > p->target_ns / 2 ? (double)(qd - p->target_ns / 2) : 0;
	/* the capacity dropped when the queue is above 4 x the target (ours
	 * and large: cut as deep as need be, half at most), or when the
	 * delivery rate read far below the rate (2 x max_cut) for
	 * drop_confirm_ns and the delay grew as it says: one reading is no
	 * proof (ACKs held up a few ms read low), nor a low reading the
	 * delay does not follow (0005) */
	bool big = qd > 4 * p->target_ns;
	bool low = low_grew(er, est, qd, now, p->drop_confirm_ns);
	/* the reading is the capacity (not its noise) once the delay
	 * follows it: for drop_confirm_ns, or confirm_ns with the queue
	 * above 4 x the target */
	bool trusted =
		low || (big && low_grew(er, est, qd, now, p->confirm_ns));
	bool dropped = big || low;
	double max_cut = big ? EDGE_MAX_CUT : p->max_cut;
	double f, r, seen, floor_ep, d = delivered(est);

	er->cuts++;
	er->ep_proved |= dropped;
	/* the queue above 4 x the target: since when (its highest delay at
	 * these cuts), and at how many cuts in a row it rose */
	if (!big) {
		er->big_n = 0;
	} else if (!er->big_n++) {
		er->big_qmax_ns = qd;
		er->big_rise = 0;
	} else if (qd >= er->big_qmax_ns) {
		er->big_qmax_ns = qd;
		er->big_rise++;
	} else {
		er->big_rise = 0;
	}
	if (d <= 0) {
		f = qd > p->target_ns
			    ? p->beta * (double)(qd - p->target_ns) / (double)qd
			    : p->margin;
		r = er->rate_bps * (1 - (f > max_cut ? max_cut : f));
		return big && low ? r : protect(er, p, est, r, big);
	}
	/* else the delivery rate's noise is no reason to cut deeper (a
	 * large queue is: by its excess, not by a reading the delay does
	 * not follow) */
	if (!trusted && d < er->rate_bps * (1 - max_cut))
		d = er->rate_bps * (1 - max_cut);
	f = p->beta * excess / drain_horizon(p, est, qd);
	if (f < p->margin)
		f = p->margin;
	if (f > max_cut)
		f = max_cut;
	r = d * (1 - f);
	seen = er->cap_bps > er->rate_bps ? er->cap_bps : er->rate_bps;
	er->cap_bps = d < seen ? d : seen;
	/* one congestion takes the estimate no lower than (1 - 2 x
	 * max_cut) x the one before it unless the delay followed the
	 * reading (a queue above 4 x the target is cut by its excess, but
	 * a reading behind it that the delay does not follow is no
	 * capacity), and the rate no lower than that unless the capacity
	 * dropped */
	floor_ep = er->ep_cap_bps * (1 - 2 * p->max_cut);
	if (!trusted && er->cap_bps < floor_ep)
		er->cap_bps = floor_ep;
	floor_ep = er->ep_cap_bps * (1 - 2 * max_cut);
	/* never more than max_cut in one decision, half with proof of a
	 * drop: a delivery rate can read low for drop_confirm_ns while a
	 * real queue stands (ACKs held up), and growth takes seconds to
	 * find the path again after a deep cut (0005) */
	if (r >= er->rate_bps)
		r = er->rate_bps * (1 - p->margin);
	else if (r < er->rate_bps * (1 - (dropped ? EDGE_MAX_CUT : max_cut)))
		r = er->rate_bps * (1 - (dropped ? EDGE_MAX_CUT : max_cut));
	if (!dropped && r < floor_ep)
		r = floor_ep < er->rate_bps ? floor_ep : er->rate_bps;
	return big && low ? r : protect(er, p, est, r, big);
}

/* The delay falls, fast enough to be under half the target within the
 * drain's horizon (and a round trip) at the pace it fell since the last
 * decision. */
static bool draining(const struct edge_rate *er,
		     const struct edge_rate_params *p,
		     const struct edge_est *est, uint64_t qd, uint64_t rtt,
		     uint64_t now)
{
	double left, fell;

	if (qd >= er->qdelay_ns || now <= er->dec_ns)
		return false;
	if (qd <= p->target_ns / 2)
		return true;
	left = (double)(qd - p->target_ns / 2);
	fell = (double)(er->qdelay_ns - qd) / (double)(now - er->dec_ns);
	return left <= fell * (drain_horizon(p, est, qd) + (double)rtt);
}

/* The congestion is over (the delay at most half the target), and its
 * delay fell faster than its cuts could have drained a queue beyond: in
 * delay, a FIFO of capacity C that the port feeds at r drains at (C -
 * r) / C at most, so with the path no faster than before (the estimate
 * before it, + margin) and the rate at its lowest, no faster than 1 -
 * lowest / estimate; a fall EDGE_UNDO_PACE times faster than that since
 * one of the last decisions above the target (whose delay then was no
 * more than it is now plus what the queue could drain since) was no
 * queue of ours -- the hosts' ACKs held up (0005) -- or the path beyond
 * became faster (cross-traffic left). Either way the cuts were not
 * needed, and the rate and the estimate go back to what they were
 * before. Never after a cut with proof of a drop (a queue above 4 x the
 * target or a delivery rate low for drop_confirm_ns). */
static bool fell_too_fast(const struct edge_rate *er,
			  const struct edge_rate_params *p, uint64_t qd,
			  uint64_t now)
{
	double path = er->ep_cap_bps * (1 + p->margin), pace;

	if (!er->ep_ns || er->ep_proved || !(path > 0))
		return false;
	pace = 1 - er->ep_lo_bps / path;
	if (pace < p->margin)
		pace = p->margin;
	for (uint32_t i = 0; i < EDGE_RATE_RECENT && i < er->n_dec; i++) {
		uint32_t k = (er->n_dec - 1 - i) % EDGE_RATE_RECENT;
		uint64_t was = er->recent_qd_ns[k];

		if (was > p->target_ns && was > qd &&
		    (double)(was - qd) >
			    EDGE_UNDO_PACE * pace *
				    (double)age_ns(now, er->recent_t_ns[k]))
			return true;
	}
	return false;
}

/* The rate and the capacity estimate back to what they were before the
 * congestion. */
static void restore(struct edge_rate *er)
{
	if (er->cap_bps < er->ep_cap_bps)
		er->cap_bps = er->ep_cap_bps;
	if (er->rate_bps < er->ep_rate_bps)
		er->rate_bps = er->ep_rate_bps;
}

/* The congestion's delay did not answer its cuts (with quiet_ns set): a
 * FIFO beyond that delivered ep_deliv_bps when the first cut came (no
 * more than the port sent), fed at the lowest rate the cuts set since
 * then (less one round trip, for the cut to show), would have drained
 * that first delay twice over by now, at 1 - lowest / ep_deliv_bps in
 * delay per time -- and the delay is still 3/4 of it. Not a queue the
 * port feeds: a host's late ACKs, its CPU (0005). Not judged when a cut held at what the upper classes
 * send (the drain is then theirs to make), when a drop was proven, or
 * when the cuts are too shallow (less than margin below the delivery
 * rate) to tell a drain in time. */
static bool unheard(const struct edge_rate *er,
		    const struct edge_rate_params *p,
		    const struct edge_est *est, uint64_t qd, uint64_t now)
{
	double pace, since;

	if (!p->quiet_ns || !er->ep_ns || er->ep_proved ||
	    er->kept_cuts != er->ep_kept || !(er->ep_deliv_bps > 0) ||
	    !er->ep_lo_ns || er->ep_lo_ns < er->ep_ns)
		return false;
	pace = 1 - er->ep_lo_bps / er->ep_deliv_bps;
	if (pace < p->margin)
		return false;
	since = (double)now - (double)er->ep_lo_ns - (double)est->srtt_ns;
	return since * pace >= 2.0 * (double)er->ep_qd0_ns &&
	       4 * qd >= 3 * er->ep_qd0_ns;
}

double edge_rate_update(struct edge_rate *er, const struct edge_rate_params *p,
			const struct edge_est *est, uint64_t now_ns)
{
	enum edge_rate_state prev = er->state;
	bool congested, confirmed, working, fresh, heard = true;
	uint64_t rtt, qd;
	double r;

	if (now_ns < er->next_ns)
		return er->rate_bps;
	/* too few recent samples to decide (a pause of the traffic): keep
	 * the rate until hold_ns passed without any */
	if (!est->valid && er->state != EDGE_NO_SAMPLES &&
	    est->last_sample_ns &&
	    age_ns(now_ns, est->last_sample_ns) <= p->hold_ns) {
		er->next_ns = now_ns + p->min_interval_ns;
		return er->rate_bps;
	}
	if (!est->valid || age_ns(now_ns, est->last_sample_ns) > p->hold_ns) {
		er->next_ns = now_ns + p->min_interval_ns;
		if (er->state != EDGE_NO_SAMPLES ||
		    er->rate_bps != p->max_bps) {
			er->state = EDGE_NO_SAMPLES;
			er->rate_bps = p->max_bps;
			er->cap_bps = 0;
			er->qdelay_ns = 0;
			er->above_ns = 0;
			er->grow_ns = 0;
			er->cut_ns = 0;
			er->ep_ns = 0;
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
	/* the delay says something new only with a new sample: a stale one
	 * (the traffic slowed, samples are rare) repeated would cut again
	 * and again (a ratchet to the floor: 0003),
	 * or probe blind */
	fresh = est->last_sample_ns != er->sample_ns || !est->last_sample_ns;
	er->sample_ns = est->last_sample_ns;
	if (!fresh && !(est->mark_frac > 0)) {
		r = er->rate_bps;
		er->holds++;
		goto out;
	}
	/* a delivery rate far below what the port sent (its rate, or less
	 * when the traffic asked for less: a port that sends a third of
	 * its rate delivers a third, and that is no drop), since when */
	if (delivered(est) > 0 &&
	    delivered(est) < sent_now(er, est) * (1 - 2 * p->max_cut)) {
		if (!er->low_ns) {
			er->low_ns = now_ns;
			er->low_qd_ns = qd;
		}
	} else {
		er->low_ns = 0;
	}
	congested = qd > p->target_ns || est->mark_frac > 0;
	if (!(qd > p->target_ns))
		er->above_ns = 0;
	else if (!er->above_ns)
		er->above_ns = now_ns;
	/* a standing queue (or marks), not a spike that drains by itself */
	confirmed = est->mark_frac > 0 ||
		    (er->above_ns &&
		     age_ns(now_ns, er->above_ns) >= p->confirm_ns &&
		     (now_ns >= er->quiet_until_ns || qd > 4 * p->target_ns ||
		      low_grew(er, est, qd, now_ns, p->drop_confirm_ns)));
	if (congested && unheard(er, p, est, qd, now_ns)) {
		/* no queue its cuts drain: undone, and quiet */
		restore(er);
		er->unheard++;
		er->quiet_until_ns = now_ns + p->quiet_ns;
		er->ep_ns = 0;
		confirmed = est->mark_frac > 0;
		er->state = EDGE_HOLD;
		heard = false;
	}
	/* the last cut is still working: a new standing queue takes
	 * confirm_ns to show, and while the delay falls fast enough to be
	 * under half the target within the drain's horizon, the cut drains
	 * it (a delay that falls by a little -- a cut by margin of a huge
	 * queue -- is cut again) */
	working = heard && prev == EDGE_DRAIN &&
		  (age_ns(now_ns, er->cut_ns) < p->confirm_ns ||
		   draining(er, p, est, qd, rtt, now_ns));
	if (congested && confirmed && !working) {
		if (!er->ep_ns) {
			er->ep_ns = now_ns;
			/* the estimate before, else the rate (at the
			 * line, no estimate yet) */
			er->ep_cap_bps =
				er->cap_bps > 0 ? er->cap_bps : er->rate_bps;
			er->ep_qd_ns = qd;
			er->ep_rate_bps = er->rate_bps;
			er->ep_lo_bps = er->rate_bps;
			er->ep_proved = false;
			/* what the path delivered, no more than the port
			 * sent (its noise reads high by a third) */
			er->ep_deliv_bps = delivered(est) < sent_now(er, est)
						   ? delivered(est)
						   : sent_now(er, est);
			er->ep_qd0_ns = qd;
			er->ep_kept = er->kept_cuts;
		}
		r = cut(er, p, est, qd, now_ns);
		if (r < er->ep_lo_bps) {
			er->ep_lo_bps = r;
			er->ep_lo_ns = now_ns;
		}
		er->ep_qd_ns = qd;
		er->state = EDGE_DRAIN;
		er->cut_ns = now_ns;
		er->grow_ns = 0;
		er->grow_k = 0;
	} else if (congested) {
		/* a cut is draining the queue, or the delay is not yet
		 * confirmed: let it be */
		r = er->rate_bps;
		er->holds++;
	} else if (qd <= p->target_ns / 2) {
		if (fell_too_fast(er, p, qd, now_ns)) {
			/* no queue its cuts drained: undone */
			restore(er);
			er->undone++;
		}
		er->ep_ns = 0;
		r = probe(er, p, est, qd, now_ns);
		er->state = r >= p->max_bps ? EDGE_LINE : EDGE_PROBE;
	} else {
		r = er->rate_bps;
		er->state = EDGE_HOLD;
		er->holds++;
		er->grow_ns = 0;
		er->grow_k = 0;
	}
	er->qdelay_ns = qd;
	er->dec_ns = now_ns;
	er->recent_qd_ns[er->n_dec % EDGE_RATE_RECENT] = qd;
	er->recent_t_ns[er->n_dec++ % EDGE_RATE_RECENT] = now_ns;
out:
	r = clamp_rate(p, r);
	/* operators see the changes, not every steady decision */
	if (r != er->rate_bps || er->state != prev)
		record(er, est, now_ns, r);
	er->rate_bps = r;
	return r;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wake_margin.h - how early a worker sets its timer before a shaped frame
 * is due, learned from how late its own timed wake-ups end.
 *
 * A worker whose egress holds shaped frames sleeps until a margin before
 * the next one is due and spins the margin (worker.h): a timer wake-up
 * ends late (tens of microseconds on this kind of VM, more when the core
 * is busy with the kernel's receive work), and lateness beyond the margin
 * is latency the shaped class sees. Too wide a margin is CPU spent
 * spinning; at the cap (poll.shaper_spin_us) the worker spins for every
 * deadline closer than the cap, which on a port shaped to a small rate is
 * all of them: a whole core.
 *
 * The estimate follows the 90th percentile of the lateness (a stochastic
 * quantile estimator: +9 steps when a wake-up was later than it, -1 step
 * when not, so it rests where 1 in 10 is later), and the margin is 1.5 x
 * that plus a floor, capped. One slow wake-up then widens the margin by at
 * most 9 steps, not to its own size. A margin that covers every deadline
 * means the worker never sleeps and never learns: after `stale` ns with
 * no timed wake-up, the estimate narrows by 1/16 each time the worker
 * waits for a deadline (about -50 % in 11 such steps), until it sleeps
 * again.
 *
 * With `spin` set (poll.shaper_wait: spin) the margin is the cap: the
 * policy before the estimate existed, kept for operators who trade a core
 * for the last microseconds.
 *
 * Pure (no clock, no syscalls): the worker passes its times in; the
 * worker thread alone touches its struct (the stats reader loads
 * late_ns relaxed, for display).
 */
#ifndef XDPLANE_WAKE_MARGIN_H
#define XDPLANE_WAKE_MARGIN_H

#include <stdbool.h>
#include <stdint.h>

#define WAKE_MARGIN_INIT_NS 50000ull /* estimate before any wake-up */
#define WAKE_MARGIN_FLOOR_NS                                                   \
	2000ull /* the margin's least, and the
				      * estimate's */
#define WAKE_MARGIN_STEP_NS 1000ull
#define WAKE_MARGIN_STALE_NS 10000000ull

struct wake_margin {
	uint64_t late_ns; /* 90th percentile estimate of the lateness */
	uint64_t last_learn_ns; /* when it last learned or aged */
	uint64_t cap_ns; /* poll.shaper_spin_us */
	bool spin; /* poll.shaper_wait: spin */
};

static inline void wake_margin_init(struct wake_margin *m, uint64_t cap_ns,
				    bool spin, uint64_t now)
{
	m->late_ns = WAKE_MARGIN_INIT_NS;
	m->last_learn_ns = now;
	m->cap_ns = cap_ns;
	m->spin = spin;
}

/* How long before a deadline the timer should end (0..cap_ns). */
static inline uint64_t wake_margin_ns(const struct wake_margin *m)
{
	uint64_t v = m->late_ns + m->late_ns / 2 + WAKE_MARGIN_FLOOR_NS;

	if (m->spin || v > m->cap_ns)
		return m->cap_ns;
	return v;
}

/* late_ns is read by the stats reader: stored relaxed */
static inline void wake_margin_set(struct wake_margin *m, uint64_t v)
{
	__atomic_store_n(&m->late_ns, v, __ATOMIC_RELAXED);
}

/* A timed sleep ended late_ns after its timeout, at now. */
static inline void wake_margin_learn(struct wake_margin *m, uint64_t late_ns,
				     uint64_t now)
{
	uint64_t v = m->late_ns;

	if (late_ns > v)
		v += late_ns - v < 9 * WAKE_MARGIN_STEP_NS
			     ? late_ns - v
			     : 9 * WAKE_MARGIN_STEP_NS;
	else if (v >= WAKE_MARGIN_FLOOR_NS + WAKE_MARGIN_STEP_NS)
		v -= WAKE_MARGIN_STEP_NS;
	wake_margin_set(m, v);
	m->last_learn_ns = now;
}

/* A deadline fell within the margin (the worker spins for it). */
static inline void wake_margin_spun(struct wake_margin *m, uint64_t now)
{
	uint64_t v = m->late_ns;

	if (now - m->last_learn_ns < WAKE_MARGIN_STALE_NS)
		return;
	v -= v / 16;
	wake_margin_set(m, v < WAKE_MARGIN_FLOOR_NS ? WAKE_MARGIN_FLOOR_NS : v);
	m->last_learn_ns = now;
}

#endif

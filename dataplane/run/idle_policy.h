/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * idle_policy.h - what a worker does after each pass of its loop: pass
 * again, spin, nap, or sleep until woken (worker.h).
 *
 * A pass that moved something is followed by another at once. When a
 * pass finds nothing, the worker spins (busy_ns, poll.busy_us) in case
 * more comes soon, then sleeps in ppoll on its sockets: an idle gateway
 * costs nothing, and a frame that arrives wakes it.
 *
 * Between the two lies traffic that keeps coming at a low rate (tens of
 * microseconds between frames): every frame arrives while the worker
 * spins, so it never sleeps, and a core forwarding a tenth of what it
 * can stays 100 % busy; sleeping until each frame wakes it would cost
 * more than the gap. With poll.coalesce_us (coalesce_ns > 0) the worker
 * naps instead: a timed sleep the sockets do not end, after which one
 * pass takes what arrived meanwhile, as a NIC's interrupt moderation
 * (ethtool rx-usecs) does. The price is latency: a frame that arrives
 * during a nap waits for its end, coalesce_us at most.
 *
 * When it naps: at an idle pass, when the last pass that received frames
 * found them after an idle pass, a nap, or a sleep shorter than a nap,
 * i.e. they keep coming, one at a time. Only frames received count as
 * arriving: a TX completion reaped after an idle pass (a zero-copy NIC
 * returns it microseconds after the kick) is the worker's own frame
 * leaving, not traffic coming. A frame that wakes a worker that
 * slept longer does not start naps (a lone request and its answer are
 * not delayed), nor do more than IDLE_RUN_PASSES passes in a row that
 * find work (a burst, a saturated worker: never stopped; one frame takes
 * two, its RX and its TX completion). A nap that brings no frame ends them:
 * the worker sleeps on its sockets at once (no spin: the frames' gaps
 * were shorter than a nap, so they stopped). (On a core that also runs
 * the port's NAPI, a spin can hold the frames back until it gives up:
 * the short sleep that follows restarts the naps.)
 *
 * Pure: state + the pass's work and frames received + now -> action; the worker calls
 * idle_policy_next() after every pass and idle_policy_slept() after every
 * sleep or nap. Thread: the worker that owns it.
 */
#ifndef XDPLANE_IDLE_POLICY_H
#define XDPLANE_IDLE_POLICY_H

#include <stdbool.h>
#include <stdint.h>

/* More passes in a row than this that move something end the naps. */
#define IDLE_RUN_PASSES 4

enum idle_action {
	IDLE_PASS, /* run the next pass now */
	IDLE_SPIN, /* relax the CPU a moment, then pass */
	IDLE_NAP, /* timed sleep of coalesce_ns, the sockets ignored */
	IDLE_SLEEP, /* sleep until a socket, the eventfd or a deadline */
};

struct idle_policy {
	uint64_t busy_ns; /* poll.busy_us */
	uint64_t coalesce_ns; /* poll.coalesce_us, 0: never nap */
	uint64_t idle_since; /* first idle pass of this spell, 0: none */
	bool napped; /* the last thing done was a nap, or a short sleep */
	bool coalescing; /* the next idle pass naps */
	bool nap_due; /* napped, and no pass since received a frame */
	uint32_t run; /* passes in a row that moved something */
};

static inline void idle_policy_init(struct idle_policy *p, uint64_t busy_ns,
				    uint64_t coalesce_ns)
{
	*p = (struct idle_policy){.busy_ns = busy_ns,
				  .coalesce_ns = coalesce_ns};
}

/* A new nap length (0: no naps), e.g. when the policy turns PFC on. */
static inline void idle_policy_set_coalesce(struct idle_policy *p,
					    uint64_t coalesce_ns)
{
	p->coalesce_ns = coalesce_ns;
	if (!coalesce_ns)
		p->coalescing = false;
}

/* After a pass that moved `work` things (0: nothing), `rx` of them frames
 * taken from the RX rings, that ended at now (> 0). Only received frames
 * are arrivals: what else a pass moves (its own frames' TX completions,
 * frames returned to the fill ring, NP frames from another worker) is
 * passed again for at once, but neither starts naps nor keeps them
 * going. On a zero-copy NIC a frame's completion comes microseconds
 * after the kick, i.e. after an idle pass: counted as an arrival, it
 * would make the answer to a lone request wait for a nap. */
static inline enum idle_action idle_policy_next(struct idle_policy *p,
						uint32_t work, uint32_t rx,
						uint64_t now)
{
	if (rx) {
		p->nap_due = false;
		if (p->idle_since || p->napped) {
			/* found after an idle pass or a nap: they keep
			 * coming */
			p->coalescing = p->coalesce_ns != 0;
			p->run = 1;
		} else if (++p->run > IDLE_RUN_PASSES) {
			/* passes that move something back to back, more
			 * than a frame's own (its RX, then its TX
			 * completion): a burst, which naps would not
			 * gather */
			p->coalescing = false;
		}
		p->idle_since = 0;
		p->napped = false;
		return IDLE_PASS;
	}
	if (work) {
		/* nothing arrived: the spin, the nap that came before and
		 * the naps' state stand; back to back with passes that
		 * received frames, it counts towards their run */
		if (!p->idle_since && !p->napped && ++p->run > IDLE_RUN_PASSES)
			p->coalescing = false;
		return IDLE_PASS;
	}
	if (p->nap_due) {
		/* the nap brought nothing: the frames stopped; sleep until
		 * one comes (spinning would not meet it: a nap is longer
		 * than their gaps) */
		p->nap_due = false;
		p->napped = false;
		return IDLE_SLEEP;
	}
	p->napped = false;
	if (p->coalescing) {
		p->coalescing = false;
		p->napped = true;
		p->nap_due = true;
		return IDLE_NAP;
	}
	if (!p->idle_since) {
		p->idle_since = now;
		return IDLE_PASS;
	}
	if (now - p->idle_since < p->busy_ns)
		return IDLE_SPIN;
	return IDLE_SLEEP;
}

/* After the sleep or nap that idle_policy_next() asked for, slept_ns
 * long. */
static inline void idle_policy_slept(struct idle_policy *p, uint64_t slept_ns)
{
	p->idle_since = 0;
	/* woken sooner than a nap would have lasted: as good as a nap */
	if (slept_ns < p->coalesce_ns)
		p->napped = true;
}

#endif

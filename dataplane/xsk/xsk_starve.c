// SPDX-License-Identifier: BSD-2-Clause
/*
 * xsk_starve.c - see xsk_starve.h.
 */
#include <string.h>
#include "xsk_starve.h"

void xsk_starve_init(struct xsk_starve *s, uint64_t window_ns,
		     uint64_t giveup_ns)
{
	memset(s, 0, sizeof(*s));
	s->window_ns = window_ns ? window_ns : XSK_STARVE_WINDOW_NS;
	s->giveup_ns = giveup_ns ? giveup_ns : XSK_STARVE_GIVEUP_NS;
	s->state = XSK_STARVE_QUIET;
}

const char *xsk_starve_state_name(enum xsk_starve_state st)
{
	static const char *const names[] = {
		[XSK_STARVE_FLOWING] = "flowing",
		[XSK_STARVE_QUIET] = "quiet",
		[XSK_STARVE_EXHAUSTED] = "exhausted",
		[XSK_STARVE_BACKLOG] = "backlog",
		[XSK_STARVE_SUSPECT] = "suspect",
		[XSK_STARVE_STARVED] = "starved",
	};

	return (unsigned int)st < sizeof(names) / sizeof(names[0]) ? names[st]
								   : "unknown";
}

/* b - a of a cumulative counter; a counter that went back (reset) counts
 * from zero. */
static uint64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : b;
}

/* The signature broke: a starved socket recovered, any other state is
 * just what it is now. */
static enum xsk_starve_action settle(struct xsk_starve *s,
				     enum xsk_starve_state now, const char *why)
{
	bool was = s->state == XSK_STARVE_STARVED;

	s->state = now;
	s->why = why;
	if (!was)
		return XSK_STARVE_NONE;
	s->recovered++;
	return XSK_STARVE_ENDED;
}

enum xsk_starve_action xsk_starve_update(struct xsk_starve *s,
					 const struct xsk_starve_sample *x)
{
	const struct xsk_starve_sample *l = &s->last;
	uint32_t posted = x->fill_prod - x->fill_cons;
	uint64_t rx, port_rx, lost, drops, prev_ns = l->now_ns;
	bool cons_moved, evidence;

	if (!s->primed) {
		s->last = *x;
		s->primed = true;
		return XSK_STARVE_NONE;
	}
	rx = delta(l->rx_packets, x->rx_packets);
	port_rx = delta(l->port_rx_packets, x->port_rx_packets);
	lost = delta(l->xsk_lost, x->xsk_lost);
	drops = delta(l->dev_drops, x->dev_drops);
	cons_moved = x->fill_cons != l->fill_cons;
	s->last = *x;

	if (rx || cons_moved)
		return settle(s, rx ? XSK_STARVE_FLOWING : XSK_STARVE_QUIET,
			      rx ? "frames delivered"
				 : "the kernel took from the fill ring");
	if (!posted)
		return settle(s, XSK_STARVE_EXHAUSTED,
			      "nothing left on the fill ring");
	if (x->rx_pending)
		return settle(s, XSK_STARVE_BACKLOG,
			      "frames wait on the RX ring");
	if (port_rx)
		drops = 0; /* the port delivered: the drops are not ours */
	evidence = x->need_wakeup || lost || drops;
	if (s->state == XSK_STARVE_STARVED && s->ev.asked && !evidence) {
		/* the driver asked to be woken and no longer does: it took
		 * buffers (their consumer index is published at its next RX
		 * flush), and nothing was lost meanwhile */
		return settle(s, XSK_STARVE_QUIET,
			      "the driver no longer asks to be woken");
	}
	if (s->state != XSK_STARVE_STARVED) {
		if (!evidence) { /* the signature needs it at every sample */
			s->state = XSK_STARVE_QUIET;
			return XSK_STARVE_NONE;
		}
		if (s->state != XSK_STARVE_SUSPECT) {
			/* the interval that ended now is the signature's
			 * first: it began at the previous sample */
			memset(&s->ev, 0, sizeof(s->ev));
			s->ev.since_ns = prev_ns;
			s->state = XSK_STARVE_SUSPECT;
		}
	}
	s->ev.posted = posted;
	s->ev.fill_cons = x->fill_cons;
	s->ev.need_wakeup = x->need_wakeup;
	s->ev.asked |= x->need_wakeup;
	s->ev.xsk_lost += lost;
	s->ev.dev_drops += drops;
	if (s->state == XSK_STARVE_SUSPECT) {
		if (x->now_ns - s->ev.since_ns < s->window_ns)
			return XSK_STARVE_NONE;
		s->state = XSK_STARVE_STARVED;
		s->starved_at = x->now_ns;
		s->gave_up = false;
		s->episodes++;
		return XSK_STARVE_BEGAN;
	}
	if (!s->gave_up && x->now_ns - s->starved_at >= s->giveup_ns) {
		s->gave_up = true;
		return XSK_STARVE_GAVE_UP;
	}
	return XSK_STARVE_KICK;
}

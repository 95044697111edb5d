/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tc_sched_priv.h - what the two halves of the egress scheduler share,
 * private to them: tc_sched.c (the per-packet path) and tc_sched_config.c
 * (set-up and reconfiguration). Everything else includes tc_sched.h.
 * Same ownership as tc_sched.h: the owner thread only.
 */
#ifndef XDPLANE_TC_SCHED_PRIV_H
#define XDPLANE_TC_SCHED_PRIV_H

#include "tc_sched.h"

/* The invariants of tc_sched.h ("Invariants (between calls)"), checked with
 * DP_ASSERT at the end of every call that changes the queues, in builds
 * with XDPLANE_ASSERTS; `deep` also walks every queued frame (the rare
 * calls: init, reload, PFC watchdog flush). sched_check_slot(): those of
 * the one slot an enqueue changed. Defined in tc_sched.c, next to the
 * per-packet path that calls them most; nothing in the other builds. */
#if DP_ASSERTS_ON
void sched_check(const struct sched *s, bool deep);
void sched_check_slot(const struct sched *s, unsigned int slot);
#else
static inline void sched_check(const struct sched *s, bool deep)
{
	(void)s;
	(void)deep;
}

static inline void sched_check_slot(const struct sched *s, unsigned int slot)
{
	(void)s;
	(void)slot;
}
#endif

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sim.h - the discrete-event, virtual-time DCQCN simulation of a scenario.
 * Time is integer nanoseconds; events due at the same nanosecond run in
 * the order they were scheduled; the only randomness is the RED draw from
 * the scenario's seed. So the same scenario gives the same bytes of output.
 *
 * Every flow has a DCQCN reaction point (struct dcqcn_rp) and notification
 * point (struct dcqcn_np) of dataplane/cc/dcqcn.c: the simulator never
 * computes a rate itself. It fires the RP's timers at their due times
 * (dcqcn_rp_step), one by one, so that each is a row of the trace.
 *
 * Scripted (no bottleneck): flows start at line rate; the inputs of the
 * scenario are fed in time order: CNP arrivals (dcqcn_rp_on_cnp), bytes
 * sent (dcqcn_rp_on_sent, split at byte-counter boundaries so that each
 * byte-counter event is its own row), CE-marked arrivals
 * (dcqcn_np_on_marked; deferred CNPs by dcqcn_np_poll at
 * dcqcn_np_next_ns).
 *
 * Closed loop: each flow sends packets of the scenario's size, paced at
 * its R_C (the next packet leaves size / R_C after the previous one; a
 * rate change moves the pending departure, never before now), from its
 * start on, and never stops. Packets enter the bottleneck (link.h) at once
 * (no propagation delay on the way in). When a packet has left the
 * bottleneck, a CE mark reaches the flow's NP at that instant; a CNP the
 * NP sends reaches the flow's RP feedback_delay later. Every packet sent
 * is reported to the RP (dcqcn_rp_on_sent), which drives the byte counter.
 *
 * With a gateway (gateway.h), packets enter the gateway's flow queue
 * instead, and the bottleneck when they have left its port; the
 * gateway's NP sends its CNPs to the RP feedback_delay later, and a
 * receiver's CNP also reaches the gateway's RP of the flow (cnp: forward).
 *
 * Output: the trace (trace.h) on csv; the bins and, for closed loops, the
 * summary (stats.h) in *res.
 *
 * Memory: per flow state, the stats bins, the bottleneck ring and the
 * event heap (bounded; overflow is an error, not growth without end).
 */
#ifndef DCQCN_SIM_SIM_H
#define DCQCN_SIM_SIM_H

#include <stdio.h>
#include "scenario.h"
#include "stats.h"

struct sim_result {
	struct stats stats;
	struct sim_summary summary; /* closed loop only; else zero */
};

/* Run sc, writing the trace to csv. Returns 0, or -1 with a message in
 * err (out of memory, event queue full, write error). res must be
 * released with sim_result_free() either way. */
int sim_run(const struct scenario *sc, FILE *csv, struct sim_result *res,
	    char *err, size_t errlen);
void sim_result_free(struct sim_result *res);

#endif

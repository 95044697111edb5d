/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trace.h - the simulator's CSV event trace, one row per event that
 * changed a flow's state:
 *
 *   t_us,flow,event,rc_gbps,rt_gbps,alpha
 *   55.000,1,fast_recovery,30,40,0.99609375
 *   60.000,1,cnp_sent,,,
 *
 * t_us is the event's virtual time in microseconds with all three decimals
 * (exact nanoseconds); flow counts from 1; event is dcqcn_event_name() of a
 * DCQCN event, "start" (the flow starts at line rate) or "cnp_sent" (the
 * flow's NP sent a CNP: it has no rate of its own, so the last three fields
 * are empty). Rates in Gbit/s and alpha are printed with %.9g, so the same
 * run prints the same bytes.
 *
 * Stateless; the caller owns the FILE and checks ferror() at the end.
 */
#ifndef DCQCN_SIM_TRACE_H
#define DCQCN_SIM_TRACE_H

#include <stdint.h>
#include <stdio.h>
#include "dcqcn.h"

#define TRACE_HEADER "t_us,flow,event,rc_gbps,rt_gbps,alpha\n"
#define TRACE_START "start"
#define TRACE_CNP_SENT "cnp_sent"

void trace_header(FILE *f);
/* flow is 0-based here; the row says flow + 1. */
void trace_rp(FILE *f, uint64_t t_ns, uint32_t flow, const char *event,
	      const struct dcqcn_rp *rp);
void trace_cnp_sent(FILE *f, uint64_t t_ns, uint32_t flow);

#endif

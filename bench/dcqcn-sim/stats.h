/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stats.h - what a run measured, in fixed time bins of summary.bin, and
 * the summary computed from them.
 *
 * Per bin and flow: the time integral of R_C (so a bin's mean rate is
 * exact however often the rate changed) and the bytes that left the
 * bottleneck. Per bin: the time integrals of the queue q and of q^2, and
 * its maximum. Values are piecewise constant: stats_rc()/stats_queue() say
 * "from t on the value is v", and the previous value is integrated up to t.
 * Times must not decrease per series; t >= the duration lands in the last
 * bin.
 *
 * The summary (closed loop; N flows, C the bottleneck rate, fair = C / N):
 *  - jain: Jain's index (sum x)^2 / (N sum x^2) of the bytes each flow got
 *    through the bottleneck in the last summary.window;
 *  - converge_ns: from the last flow's start, the time until every flow's
 *    mean R_C over each interval of summary.avg is within +-band x fair
 *    for summary.hold in a row (5 ms for the fluid-model comparison);
 *    settled_ns: ...and stays there to the end of the run;
 *    -1: not by the end of the run;
 *  - queue mean, standard deviation and maximum over the window, the
 *    maximum over the whole run;
 *  - util: bytes through the bottleneck from summary.util_after on, over
 *    C x that time; util_least: the least busy interval of summary.avg
 *    from util_after on; util_settled_ns: the time from which every
 *    interval is at least summary.util_target busy (-1: never);
 *  - minmax: min/max of the flows' bytes through the bottleneck from
 *    summary.fair_after on;
 *  - per flow: the throughput in the window.
 *
 * Ownership: stats_init() allocates, stats_free() releases. The summary's
 * flow_bps array belongs to it (summary_free()). Single-threaded.
 */
#ifndef DCQCN_SIM_STATS_H
#define DCQCN_SIM_STATS_H

#include <stdint.h>
#include <stdio.h>
#include "scenario.h"

struct stats {
	uint64_t bin_ns;
	uint32_t n_bins, n_flows;
	double *rc_int; /* [bin * n_flows + flow]: bit/s x ns */
	uint64_t *
		bytes; /* [bin * n_flows + flow]: bytes out of the bottleneck */
	double *q_int, *q2_int; /* [bin]: bytes x ns, bytes^2 x ns */
	uint64_t *q_max; /* [bin] */
	/* the current values and since when */
	double *rc_now;
	uint64_t *rc_since;
	uint64_t q_now, q_since;
	/* the gateway's flow queue (stats_gw_init), else NULL */
	uint64_t *gq_max; /* [bin] */
	uint64_t gq_now, gq_since;
};

int stats_init(struct stats *s, uint64_t duration_ns, uint64_t bin_ns,
	       uint32_t n_flows);
void stats_free(struct stats *s);
void stats_rc(struct stats *s, uint32_t flow, uint64_t t_ns, double bps);
void stats_queue(struct stats *s, uint64_t t_ns, uint64_t bytes);
/* The gateway's flow queue: its maximum per bin (a samples column). */
int stats_gw_init(struct stats *s);
void stats_gw_queue(struct stats *s, uint64_t t_ns, uint64_t bytes);
void stats_delivered(struct stats *s, uint32_t flow, uint64_t t_ns,
		     uint32_t bytes);
/* Integrate every series up to the end of the run. */
void stats_finish(struct stats *s, uint64_t end_ns);

/* The gateway's part (gateway.h), when the scenario has one. */
struct gw_summary {
	bool enabled;
	uint64_t gaps, gap_ns; /* the worker's stops, their total time */
	uint64_t marks; /* the CP chose a frame (RED on flowq_vqueue) */
	uint64_t ce; /* ...and left it CE (the NP could not answer) */
	uint64_t np_cnps; /* CNPs the gateway's NP sent to senders */
	uint64_t rp_cnps; /* receivers' CNPs that reached its RPs */
	uint64_t drops; /* the flow queue's tail drop */
	uint64_t queue_max; /* bytes */
	uint64_t drained, undrained, drain_max_ns, drain_sum_ns;
	double rc_min; /* the least R_C of its RPs, at the looks */
};

struct sim_summary {
	uint32_t n_flows;
	double fair_bps;
	uint64_t last_start_ns;
	uint64_t window_from_ns, window_to_ns;
	double jain;
	int64_t converge_ns, settled_ns; /* -1: not converged */
	double q_mean, q_std, q_max_window, q_peak; /* bytes */
	uint64_t util_from_ns;
	double util, util_least;
	int64_t util_settled_ns; /* -1: never */
	uint64_t fair_from_ns;
	double minmax;
	double *flow_bps; /* [flow]: throughput in the window */
	/* counters, filled by the simulator */
	uint64_t marked, dropped, cnps_sent, cnps_received, packets;
	double rc_min; /* the least R_C of the senders' RPs */
	struct gw_summary gw;
};

int stats_summarise(const struct stats *s, const struct scenario *sc,
		    struct sim_summary *out);
void summary_free(struct sim_summary *sum);
/* "key: value" lines (YAML). */
void summary_print(FILE *f, const struct scenario *sc,
		   const struct sim_summary *sum);
/* The time series for plots: t_ms,queue_kb,queue_max_kb,rc1_gbps,... (bin
 * means; t_ms is the bin's start), then gw_queue_max_kb with a gateway. */
void stats_write_samples(FILE *f, const struct stats *s);

#endif

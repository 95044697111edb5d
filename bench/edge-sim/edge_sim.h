/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * edge_sim.h - adaptive egress in virtual time: the gateway's shaper, run
 * by the port's rate controller (dataplane/cc/edge_rate.c) on the path
 * estimate of the port's passive measurement (dataplane/path/pathmon_*.c),
 * feeding a FIFO bottleneck one feedback delay away whose available
 * capacity steps as cross-traffic the gateway never sees comes and goes.
 * The same object code as the dataplane's: every rate decision is that
 * code's, every RTT sample the measurement's (TCP timestamps echoed by the
 * receiver).
 *
 * Model, packet by packet (deterministic): a greedy aggregate of `flows`
 * TCP flows (packets round robin; the measurement samples each) behind the
 * gateway (the gateway's own queue holds what the shaper does not send:
 * that is where the classes order it); packets of pkt_bytes leave the
 * shaper at the controller's rate (or at line_bps with the controller
 * off), reach the bottleneck after base_rtt / 2, are served in FIFO order
 * at cap_bps x share(t) (the capacity the cross-traffic leaves), dropped
 * above buffer_bytes, and acknowledged: the ACK, echoing the packet's
 * TSval, reaches the gateway base_rtt / 2 after the packet left the
 * bottleneck.
 *
 * Reported: the bottleneck queue (mean, p99, max, as delay at the capacity
 * of the moment), the utilisation of the available capacity, drops, and
 * per capacity step the time until the bottleneck queue is back below the
 * target after the step pushed it above (0: it never went above) and until
 * the rate is first within 15 % of the available capacity (UINT64_MAX:
 * never, before the next step).
 */
#ifndef XDPLANE_EDGE_SIM_H
#define XDPLANE_EDGE_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "edge_rate.h"

#define EDGE_SIM_MAX_STEPS 16
#define EDGE_SIM_MAX_FLOWS 4096

struct edge_sim_step {
	uint64_t t_ns; /* from this time on */
	double share; /* of cap_bps available to the gateway's traffic */
};

struct edge_sim_cfg {
	double line_bps; /* the gateway port's rate (ports[].rate) */
	double cap_bps; /* the bottleneck's rate */
	uint64_t base_rtt_ns;
	uint32_t pkt_bytes;
	uint32_t flows; /* the aggregate's TCP flows, packets round robin */
	uint64_t buffer_bytes; /* the bottleneck's buffer */
	uint64_t duration_ns;
	uint64_t warmup_ns; /* utilisation and queue stats from here */
	struct edge_sim_step steps[EDGE_SIM_MAX_STEPS];
	uint32_t n_steps; /* steps[0].t_ns must be 0 */
	bool adaptive; /* off: the shaper at line_bps */
	struct edge_rate_params ctl;
	uint64_t trace_ns; /* trace row interval */
	FILE *trace; /* CSV: t_ms,avail_mbit,rate_mbit,queue_us,state; NULL */
};

struct edge_sim_follow {
	uint64_t t_ns; /* the step */
	double share;
	uint64_t queue_ns; /* until the queue is back below target */
	uint64_t rate_ns; /* until the rate is first within 15 % */
};

struct edge_sim_result {
	double queue_mean_us, queue_p99_us, queue_max_us;
	double utilisation; /* delivered / available, after warmup */
	double rate_mean_mbit;
	uint64_t packets, drops, rtt_samples;
	struct edge_sim_follow follow[EDGE_SIM_MAX_STEPS];
	uint32_t n_follow;
};

/* Defaults: line 100 Mbit/s, bottleneck 100 Mbit/s, base RTT 1 ms, 1500 B
 * packets, 1 MB buffer, 6 s, warmup 0.5 s, steps 100 % -> 50 % at 2 s ->
 * 80 % at 4 s, adaptive on with edge_rate_params_default(line). */
void edge_sim_cfg_default(struct edge_sim_cfg *c);
/* 0, or -EINVAL / -ENOMEM with a reason in err. */
int edge_sim_run(const struct edge_sim_cfg *c, struct edge_sim_result *r,
		 char *err, size_t errlen);

#endif

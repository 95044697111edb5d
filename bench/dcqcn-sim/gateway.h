/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gateway.h - the closed loop's gateway (scenario key gateway:): the
 * gateway's own DCQCN flow queue (dataplane/sched/flowq.c, struct flowq:
 * one FIFO per flow, round robin, each flow's rate gate paced at its own
 * reaction point's R_C) between the senders and the bottleneck, served by
 * a modelled worker, with the congestion point of tc_sched.c's DCQCN
 * class: RED on flowq_vqueue() at dequeue, and mark_flow_frame()'s rule
 * (the gateway's NP answers the mark with a CNP to the sender and leaves
 * the frame ECT once the sender's QPN is known; else the frame leaves CE).
 *
 * The gateway runs as bench/run configures it: flow_key qp, cnp: forward
 * (a receiver's CNP cuts the gateway's RP of the flow and goes on to the
 * sender), cp_loop off, np on; the DCQCN parameters and line rate are the
 * scenario's, alike for the senders' RPs and the gateway's. Each flow's
 * frames carry an IPv4/UDP 4791/BTH header (destination 10.0.x.y, its own
 * QPs); the sender's QPN is learned at the flow's first frame (an ACK).
 *
 * The worker: while it runs, it looks every poll interval (flowq_np_poll,
 * flowq_expire, then flowq_peek/flowq_pop while the port is free within
 * the next poll interval: it keeps the port busy until it looks again).
 * The port serialises at its rate with exact (double) times. The worker
 * stops for the scenario's gaps (scripted starts, or seeded: exponential
 * intervals of mean mean_interval from a stop's end to the next start);
 * a look due during a stop happens at its end.
 *
 * Drain: after a stop ends, the time until the first look after which the
 * flow queue holds no more than after the last look before the stop (a
 * stop before that extends the same drain: its level stays, the time
 * counts from the later stop's end); still draining at the end of the run
 * counts as undrained.
 *
 * Memory: the flowq (frames: buffer / packet + 1) and a flow -> slot map,
 * allocated by gw_init(). Single-threaded.
 */
#ifndef DCQCN_SIM_GATEWAY_H
#define DCQCN_SIM_GATEWAY_H

#include <stdbool.h>
#include <stdint.h>
#include "ecn.h"
#include "flowq.h"
#include "scenario.h"
#include "stats.h"

/* A frame the worker handed to the port: it has left at leave_ns. */
struct gw_frame {
	uint32_t flow, bytes;
	bool ce; /* the CP marked it CE (the NP could not answer) */
	uint64_t leave_ns;
};

struct gw_ops {
	void (*sent)(void *ctx, const struct gw_frame *f);
	void (*cnp)(void *ctx, uint32_t flow, uint64_t now_ns); /* NP */
	void *ctx;
};

struct gw {
	const struct scn_gateway *cfg;
	struct flowq q;
	struct ecn_red red;
	uint64_t rng, gap_rng;
	double port_ns_per_byte, port_free_at;
	uint32_t n_flows;
	uint32_t *flow_of; /* [flowq slot]: the scenario's flow */
	uint32_t *psn; /* [flow]: the next PSN */
	uint64_t bytes; /* queued */
	uint64_t gap_start, gap_end; /* the next stop, UINT64_MAX: none */
	uint32_t next_gap; /* scripted: the entry after gap_start's */
	uint64_t last_level; /* queued after the last look */
	bool draining;
	uint64_t drain_from, drain_level;
	struct gw_summary sum;
};

/* Returns 0, or -ENOMEM / -EINVAL. seed: the scenario's. */
int gw_init(struct gw *g, const struct scenario *sc, uint64_t seed);
void gw_free(struct gw *g);
/* A sender's frame reaches the gateway at now. false: tail drop. */
bool gw_arrive(struct gw *g, uint32_t flow, uint32_t bytes, uint64_t now_ns);
/* The worker looks at now (or is stopped). Returns when it looks next. */
uint64_t gw_poll(struct gw *g, uint64_t now_ns, const struct gw_ops *ops);
/* A receiver's CNP for flow passes the gateway (cnp: forward). */
void gw_cnp_from_wire(struct gw *g, uint32_t flow, uint64_t now_ns);
/* The end of the run: the summary's gateway part into *out. */
void gw_finish(struct gw *g, uint64_t end_ns, struct gw_summary *out);

#endif

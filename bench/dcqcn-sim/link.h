/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * link.h - the closed loop's bottleneck: one FIFO queue in front of a link
 * of capacity C, with the congestion point's RED marking (ecn.h, the code
 * the gateway's scheduler marks with) and tail drop at a byte limit.
 *
 * The queue q is the bytes waiting, not counting the packet being sent.
 * Marking is decided either when a packet arrives, on the q it finds
 * (what tc_sched does), or when it starts being sent, on the q left behind
 * it (the ns-3 simulators' switch). The RED draw uses the seeded
 * xorshift64* of ecn.h, so a run is reproducible.
 *
 * Times: packets leave back to back at exact (double) nanoseconds, so a
 * link's rate has no rounding drift; the done event of a packet is the
 * next whole nanosecond at or after its exact end.
 *
 * Memory: a ring of buffer / packet entries, allocated by link_init().
 * Single-threaded.
 */
#ifndef DCQCN_SIM_LINK_H
#define DCQCN_SIM_LINK_H

#include <stdbool.h>
#include <stdint.h>
#include "ecn.h"
#include "scenario.h"

struct link_pkt {
	uint32_t flow;
	uint32_t bytes;
	bool marked;
};

struct link {
	double ns_per_byte;
	struct ecn_red red;
	uint64_t rng;
	enum scn_mark_at mark_at;
	uint64_t limit; /* bytes waiting at most */
	struct link_pkt *ring;
	size_t cap, head, n;
	uint64_t q_bytes; /* waiting */
	bool busy;
	struct link_pkt cur; /* being sent, when busy */
	double free_at; /* exact ns the current packet ends */
	uint64_t marked, dropped, sent;
};

int link_init(struct link *l, const struct scn_bottleneck *bn,
	      uint32_t packet_bytes, uint64_t seed);
void link_free(struct link *l);

enum link_arrival {
	LINK_QUEUED, /* waits */
	LINK_STARTED, /* the link was idle: sent at once, *done_ns set */
	LINK_DROPPED, /* the queue was full */
};
/* ce: the packet arrives CE-marked already (the gateway marked it). */
enum link_arrival link_arrive(struct link *l, uint32_t flow, uint32_t bytes,
			      bool ce, uint64_t now_ns, uint64_t *done_ns);
/* The packet being sent is done (*out). Returns true and sets *done_ns if
 * the next one starts. */
bool link_done(struct link *l, struct link_pkt *out, uint64_t *done_ns);

#endif

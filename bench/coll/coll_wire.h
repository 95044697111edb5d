/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coll_wire.h - test harness: n emulated hosts (rc_host) joined by an
 * in-memory wire, driven by a fake clock. The wire delivers every packet
 * delay_ns after it was sent (the sender's port pacer serialises), and can
 * drop data packets, drop ACKs/NAKs, delay a data packet past its
 * successors (reorder) and CE-mark data packets, each with a probability
 * from a seeded generator (runs are reproducible), or through a filter.
 * An optional app (the jobs) is polled at every step and may stop the run.
 *
 * Test code: allocates as it goes, aborts on out-of-memory. One thread.
 */
#ifndef COLL_WIRE_H
#define COLL_WIRE_H

#include <stdbool.h>
#include <stdint.h>
#include "rc_host.h"

struct wire_pkt {
	uint64_t at, seq;
	int src, dst;
	unsigned int ecn;
	size_t len;
	uint8_t data[];
};

struct wire_app {
	void (*poll)(void *ctx, int rank, uint64_t now);
	uint64_t (*next_ns)(void *ctx, int rank); /* UINT64_MAX: nothing */
	bool (*done)(void *ctx);
	void *ctx;
};

struct coll_wire {
	int n;
	struct rc_host host[RC_MAX_RANKS];
	uint64_t now, delay_ns, reorder_ns;
	double p_drop, p_ctrl_drop, p_reorder, p_ce;
	uint64_t rng, seq;
	/* true: drop this packet (called for every packet sent) */
	bool (*filter)(void *ctx, const struct wire_pkt *pkt, uint64_t now);
	void *filter_ctx;
	struct wire_app app;
	struct wire_pkt **heap;
	size_t nheap, capheap;
	/* what the wire did */
	uint64_t sent, delivered, dropped, ctrl_dropped, reordered, marked;
	uint64_t cnps; /* CNPs carried */
};

/* An RDMA WRITE data packet (not an ACK/NAK or CNP). */
static inline bool wire_is_data(const struct wire_pkt *p)
{
	return p->len > 0 && p->data[0] >= 0x06 && p->data[0] <= 0x0a;
}

/* n hosts with cfg, msg_cap messages per QP, ops with ctxs[r] for host r
 * (ctxs may be NULL); delay 2 us; nothing dropped. */
void wire_init(struct coll_wire *w, int n, const struct rc_cfg *cfg,
	       uint32_t msg_cap, const struct rc_ops *ops, void *const *ctxs);
void wire_free(struct coll_wire *w);
double wire_rand(struct coll_wire *w); /* [0, 1) */

/* Run until the app says done (true) or the fake clock passes until_ns
 * (false). Without an app's done(), until the wire and every host are
 * idle (true) or until_ns. */
bool wire_run(struct coll_wire *w, uint64_t until_ns);

#endif

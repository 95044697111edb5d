/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ecn.h - ECN for the egress scheduler: the RED marking decision on the
 * instantaneous queue depth, and ECT -> CE marking in a frame's IP header.
 *
 * RED: the probability of choosing a frame is 0 while the queue holds fewer
 * than kmin bytes, rises linearly from 0 at kmin to pmax at kmax, and is 1
 * above kmax (kmin == kmax: pmax at exactly that depth). It is kept in Q48
 * (ECN_P_ONE = 1.0) and computed with one multiply from a slope precomputed
 * by ecn_red_init(): no division per packet. The random numbers come from a
 * xorshift64* generator whose state the caller owns (one per scheduler,
 * seeded at init, so runs are reproducible).
 *
 * Marking: ecn_mark_ce() sets CE in the IPv4 TOS byte, updating the header
 * checksum incrementally (RFC 1624, eqn. 3), or in the IPv6 traffic class.
 * It reads and writes only bytes inside [frame, frame + len): a header that
 * does not fit is left alone. Frames already CE stay CE; Not-ECT frames are
 * never touched.
 *
 * Thread safety: no shared state; struct ecn_red is read-only after init.
 */
#ifndef XDPLANE_ECN_H
#define XDPLANE_ECN_H

#include <stdbool.h>
#include <stdint.h>
#include "qos.h"

/* ECN codepoints (RFC 3168), the two low bits of TOS / traffic class. */
enum ecn_codepoint {
	ECN_NOT_ECT = 0,
	ECN_ECT1 = 1,
	ECN_ECT0 = 2,
	ECN_CE = 3,
};

/* Kind of L3 header, as the RX parser reports it. */
enum ecn_l3 {
	ECN_L3_NONE = 0,
	ECN_L3_IPV4 = 1,
	ECN_L3_IPV6 = 2,
};

enum ecn_mark_result {
	ECN_MARKED = 0, /* was ECT(0)/ECT(1), is CE now */
	ECN_WAS_CE, /* already CE: unchanged */
	ECN_WAS_NOT_ECT, /* Not-ECT: unchanged */
	ECN_UNMARKABLE, /* no IP header, wrong version, or truncated */
};

#define ECN_P_SHIFT 48
#define ECN_P_ONE (1ull << ECN_P_SHIFT)

struct ecn_red {
	uint64_t base; /* Q48 probability at kmin (pmax when kmin == kmax) */
	uint64_t slope; /* Q48 probability per byte above kmin */
	uint32_t kmin, kmax; /* bytes */
};

/* From the class configuration. Returns 0, or -EINVAL when kmin > kmax or
 * pmax > QOS_PROB_ONE. Ignores cfg->enabled and cfg->nonect. */
int ecn_red_init(struct ecn_red *r, const struct qos_ecn *cfg);

/* Marking probability in Q48 for a queue of qbytes bytes. */
static inline uint64_t ecn_red_prob(const struct ecn_red *r, uint64_t qbytes)
{
	if (qbytes < r->kmin)
		return 0;
	if (qbytes > r->kmax)
		return ECN_P_ONE;
	/* (qbytes - kmin) * slope <= pmax << 32 <= 2^48: no overflow */
	return r->base + (qbytes - r->kmin) * r->slope;
}

/* xorshift64* (Vigna); the state must not be 0 (ecn_rng_seed ensures it). */
static inline uint64_t ecn_rng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

void ecn_rng_seed(uint64_t *state, uint64_t seed);

/* RED decision: true if a frame arriving at a queue of qbytes is chosen.
 * Draws a random number only when 0 < p < 1. */
static inline bool ecn_red_choose(const struct ecn_red *r, uint64_t qbytes,
				  uint64_t *rng)
{
	uint64_t p = ecn_red_prob(r, qbytes);

	if (p == 0)
		return false;
	if (p >= ECN_P_ONE)
		return true;
	return (ecn_rng_next(rng) >> (64 - ECN_P_SHIFT)) < p;
}

/* Mark an ECT frame CE. frame: first byte of the frame; len: its length;
 * l3: enum ecn_l3; l3off: offset of the L3 header from the frame start.
 * Returns an enum ecn_mark_result; the frame is modified only on
 * ECN_MARKED. frame may be NULL (ECN_UNMARKABLE). */
int ecn_mark_ce(uint8_t *frame, uint32_t len, unsigned int l3,
		unsigned int l3off);

#endif

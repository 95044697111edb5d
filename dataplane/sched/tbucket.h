/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tbucket.h - a token bucket in fixed point, header only.
 *
 * Units: tokens are bytes in fixed point with TB_FRAC = 29 fractional bits
 * in a signed 64-bit word; the rate is bytes per nanosecond in the same
 * fixed point (`mult`), computed once by tb_init(). Refilling is one
 * subtraction, one compare, one multiply and one add: no division on the
 * per-packet path. The rounding of `mult` is the only rate error: < 7.5e-6
 * relative at 1 Mbit/s, less above (4e-8 at 100 Mbit/s); it does not grow
 * into drift because the fractional tokens are kept. 29 bits (not 32)
 * leave room for any 32-bit burst.
 *
 * Time: the caller passes now_ns (read once per burst); the bucket has no
 * clock. A now_ns older than the last refill is ignored (no refill, the
 * bucket's time does not go back).
 *
 * Conformance and debt: a frame may be sent while tokens >= 0, and sending
 * charges its full cost, so tokens may go negative by at most one frame (the
 * last one sent). The bucket therefore passes frames larger than the burst,
 * a burst of 0 is pure pacing (one frame per refill to >= 0), and after an
 * idle period at most burst + one frame leaves at once.
 *
 * Idle: tokens saturate at `burst`; an idle bucket never holds more. Buckets
 * start full.
 *
 * Overflow: dt * mult is only computed for dt < fill_ns, the time to go
 * from the deepest possible debt (-TB_MAX_COST) to a full bucket; a longer
 * gap sets the bucket full directly. With any 32-bit burst and a single
 * charge <= TB_MAX_COST, every intermediate value stays below 2^62.
 *
 * Ownership: a bucket has exactly one thread that touches it (the owner of
 * the scheduler it belongs to); no atomics.
 */
#ifndef XDPLANE_TBUCKET_H
#define XDPLANE_TBUCKET_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#define TB_FRAC 29
#define TB_MAX_COST (1u << 21) /* bytes: largest single charge */
#define TB_MAX_RATE (1ull << 44) /* bit/s: ~17.6 Tbit/s */
/* bit/s: the lowest rate a bucket carries, its rate step (mult 1: 2^-29
 * bytes per ns, 14.9 bit/s). tb_init() takes 1 bit/s and up, but any rate
 * below it runs at that step; a setting that a rate is to be derived from
 * (adaptive egress's floor, per queue) is checked against this. */
#define TB_MIN_RATE 15

struct tbucket {
	int64_t tokens; /* bytes << TB_FRAC; >= -TB_MAX_COST, <= burst */
	uint64_t last_ns; /* time of the last refill */
	uint64_t mult; /* bytes per ns << TB_FRAC */
	int64_t burst; /* bytes << TB_FRAC */
	uint64_t fill_ns; /* refill gap after which the bucket is full */
};

/* rate_bps: 1 .. TB_MAX_RATE; burst: any, in bytes (0: pure pacing).
 * Returns 0 or -EINVAL. The bucket starts full at now_ns. Not for the hot
 * path (two 128-bit divisions). */
static inline int tb_init(struct tbucket *tb, uint64_t rate_bps, uint32_t burst,
			  uint64_t now_ns)
{
	__extension__ typedef unsigned __int128 u128;
	u128 span;

	if (!rate_bps || rate_bps > TB_MAX_RATE)
		return -EINVAL;
	/* bytes/ns << TB_FRAC = rate_bps / 8 / 1e9 << TB_FRAC, rounded */
	tb->mult = (uint64_t)((((u128)rate_bps << (TB_FRAC - 3)) + 500000000u) /
			      1000000000u);
	if (!tb->mult)
		tb->mult = 1;
	tb->burst = (int64_t)((uint64_t)burst << TB_FRAC);
	/* ceil((burst + TB_MAX_COST) / mult) in ns */
	span = (u128)((uint64_t)burst + TB_MAX_COST) << TB_FRAC;
	tb->fill_ns = (uint64_t)((span + tb->mult - 1) / tb->mult);
	tb->tokens = tb->burst;
	tb->last_ns = now_ns;
	return 0;
}

/* Tokens the bucket would hold at now_ns (no state change). */
static inline int64_t tb_tokens_at(const struct tbucket *tb, uint64_t now_ns)
{
	uint64_t dt;
	int64_t t;

	if (now_ns <= tb->last_ns)
		return tb->tokens;
	dt = now_ns - tb->last_ns;
	if (dt >= tb->fill_ns)
		return tb->burst;
	t = tb->tokens + (int64_t)(dt * tb->mult);
	return t < tb->burst ? t : tb->burst;
}

static inline void tb_refill(struct tbucket *tb, uint64_t now_ns)
{
	if (now_ns <= tb->last_ns)
		return;
	tb->tokens = tb_tokens_at(tb, now_ns);
	tb->last_ns = now_ns;
}

/* May a frame go now (after tb_refill)? */
static inline bool tb_conforms(const struct tbucket *tb)
{
	return tb->tokens >= 0;
}

/* Charge a frame of `bytes` (<= TB_MAX_COST) that was allowed to go. */
static inline void tb_charge(struct tbucket *tb, uint32_t bytes)
{
	tb->tokens -= (int64_t)((uint64_t)bytes << TB_FRAC);
}

/* Charge `fp` tokens (bytes << TB_FRAC, the charges of several frames
 * that were allowed to go one after the other). */
static inline void tb_charge_fp(struct tbucket *tb, uint64_t fp)
{
	tb->tokens -= (int64_t)fp;
}

/* Refill, then send `bytes` if the bucket conforms. */
static inline bool tb_take(struct tbucket *tb, uint64_t now_ns, uint32_t bytes)
{
	tb_refill(tb, now_ns);
	if (!tb_conforms(tb))
		return false;
	tb_charge(tb, bytes);
	return true;
}

/* Earliest time >= now_ns at which the bucket conforms. One division: for
 * the caller's sleep decision, not for the per-packet path. */
static inline uint64_t tb_ready_ns(const struct tbucket *tb, uint64_t now_ns)
{
	int64_t t = tb_tokens_at(tb, now_ns);
	uint64_t need;

	if (t >= 0)
		return now_ns;
	need = (uint64_t)-t;
	if (now_ns < tb->last_ns)
		now_ns = tb->last_ns; /* tokens are those at last_ns */
	return now_ns + (need + tb->mult - 1) / tb->mult;
}

/* Live reload: `nb`, just set up with the new rate and burst, takes over
 * the level of the running bucket `ob` -- refilled at the old rate up to
 * now_ns, tokens (or debt) kept, cut to the new burst -- and refills at the
 * new rate from then on. */
static inline void tb_carry(struct tbucket *nb, const struct tbucket *ob,
			    uint64_t now_ns)
{
	struct tbucket t = *ob;

	tb_refill(&t, now_ns);
	nb->tokens = t.tokens < nb->burst ? t.tokens : nb->burst;
	nb->last_ns = t.last_ns > nb->last_ns ? t.last_ns : nb->last_ns;
}

/* A new rate for a running bucket (the burst unchanged): refilled at the
 * old rate up to now_ns, its tokens (or debt) kept, then refilling at the
 * new rate. rate_bps: 1 .. TB_MAX_RATE, else -EINVAL and the bucket is
 * unchanged. Not for the per-packet path (tb_init's divisions). */
static inline int tb_set_rate(struct tbucket *tb, uint64_t rate_bps,
			      uint64_t now_ns)
{
	struct tbucket nb;
	int err;

	tb_refill(tb, now_ns);
	err = tb_init(&nb, rate_bps, (uint32_t)(tb->burst >> TB_FRAC),
		      tb->last_ns);
	if (err)
		return err;
	nb.tokens = tb->tokens;
	*tb = nb;
	return 0;
}

#endif

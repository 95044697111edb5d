// SPDX-License-Identifier: BSD-2-Clause
/*
 * dcqcn.c - DCQCN reaction and notification points: the rules, parameters
 * and invariants are documented in dcqcn.h.
 *
 * Structure: every increase event, whether fired alone by dcqcn_rp_step()
 * or in a catch-up, goes through advance_increase(), which splits the
 * events into runs of one class and applies each run with apply_run(): run
 * lengths up to RUN_STEPWISE_MAX step the rule literally, longer runs use
 * the closed form. Alpha decays go through decay_alpha() in the same way.
 * The catch-up fires the timers in an order that commutes with firing them
 * one by one: paper alpha and increase timers do not read each other's
 * state; the ConnectX decrease tick reads alpha and the stage, so the alpha
 * ticks and increase events due up to it fire first.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "dcqcn.h"

#define NEVER UINT64_MAX
#define RUN_STEPWISE_MAX 8 /* longer runs and decays use closed forms */
#define ALPHA_ZERO 0x1p-64 /* alpha below this is 0 (C3) */
#define LINE_SNAP 0x1p-50 /* R_C this close below line is line (C2) */

enum inc_class {
	INC_FR,
	INC_AI,
	INC_HYPER,
};

enum inc_source {
	SRC_TIMER,
	SRC_BYTES,
};

static const enum dcqcn_event class_event[] = {
	[INC_FR] = DCQCN_EV_FAST_RECOVERY,
	[INC_AI] = DCQCN_EV_ADDITIVE,
	[INC_HYPER] = DCQCN_EV_HYPER,
};

/* ---- small arithmetic helpers ---- */

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint32_t add_sat32(uint32_t a, uint64_t b)
{
	return b >= (uint64_t)(UINT32_MAX - a) ? UINT32_MAX : a + (uint32_t)b;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* 2^-n, exact (0 below the smallest subnormal). */
static double pow2_neg(uint64_t n)
{
	double x = 1.0;

	if (n > 1100)
		return 0.0;
	for (; n >= 64; n -= 64)
		x *= 0x1p-64;
	return x / (double)(1ull << n);
}

/* x^k by repeated squaring: about 2 log2(k) roundings. */
static double pow_u64(double x, uint64_t k)
{
	double r = 1.0;

	while (k) {
		if (k & 1)
			r *= x;
		k >>= 1;
		if (k)
			x *= x;
	}
	return r;
}

/* Events of a timer due at or before until: next, next + period, ... */
static uint64_t due_count(uint64_t next, uint64_t period, uint64_t until)
{
	if (next == NEVER || next > until)
		return 0;
	return (until - next) / period + 1;
}

/* next + k period for k >= 1 due events, saturating (k <= due_count()). */
static uint64_t after_events(uint64_t next, uint64_t k, uint64_t period)
{
	return add_sat(add_sat(next, (k - 1) * period), period);
}

/* The first slot origin + k period (k >= 1) strictly after now. */
static uint64_t next_slot(uint64_t origin, uint64_t period, uint64_t now)
{
	uint64_t k = now > origin ? (now - origin) / period + 1 : 1;

	return add_sat(origin, k * period);
}

/* ---- parameters ---- */

void dcqcn_params_default(struct dcqcn_params *p, enum dcqcn_profile prof,
			  double line_bps)
{
	memset(p, 0, sizeof(*p));
	p->profile = prof;
	p->line_bps = line_bps;
	p->alpha_init = 1.0;
	if (prof == DCQCN_CONNECTX) {
		p->min_bps = 1e6;
		p->ai_bps = 5e6;
		p->hai_bps = 50e6;
		p->g = 5.0 / 1024;
		p->alpha_ns = 1000;
		p->inc_ns = 300000;
		p->dec_ns = 4000;
		p->byte_counter = 0;
		p->f = 1;
		p->min_dec_factor = 0.5;
		p->clamp_always = false;
		p->clamp_after_inc = true;
		p->np_interval_ns = 4000;
		return;
	}
	p->min_bps = 100e6;
	p->ai_bps = 40e6;
	p->hai_bps = 200e6;
	p->g = 1.0 / 256;
	p->alpha_ns = 55000;
	p->inc_ns = 55000;
	p->dec_ns = 0;
	p->byte_counter = 10000000;
	p->f = 5;
	p->min_dec_factor = 0;
	p->clamp_always = true;
	p->clamp_after_inc = false;
	p->np_interval_ns = 50000;
}

static uint64_t dilate_period(uint64_t ns, uint64_t x)
{
	if (ns && x > DCQCN_MAX_PERIOD_NS / ns)
		return DCQCN_MAX_PERIOD_NS;
	return ns * x;
}

void dcqcn_params_dilate(struct dcqcn_params *p, uint64_t x)
{
	if (x <= 1)
		return;
	p->line_bps /= (double)x;
	p->min_bps /= (double)x;
	p->ai_bps /= (double)x;
	p->hai_bps /= (double)x;
	p->first_cnp_bps /= (double)x;
	p->alpha_ns = dilate_period(p->alpha_ns, x);
	p->inc_ns = dilate_period(p->inc_ns, x);
	p->dec_ns = dilate_period(p->dec_ns, x);
	p->np_interval_ns = dilate_period(p->np_interval_ns, x);
}

static bool in_range(double x, double lo, double hi)
{
	return x >= lo && x <= hi; /* false for NaN */
}

static bool period_ok(uint64_t ns)
{
	return ns >= 1 && ns <= DCQCN_MAX_PERIOD_NS;
}

int dcqcn_params_check(const struct dcqcn_params *p, const char **why)
{
	const char *bad = NULL;
	bool cx = p->profile == DCQCN_CONNECTX;

	if (p->profile != DCQCN_PAPER && !cx)
		bad = "profile: unknown";
	else if (!in_range(p->line_bps, 1.0, 1e15))
		bad = "line_bps: must be 1 bit/s .. 1 Pbit/s";
	else if (!in_range(p->min_bps, 1.0, p->line_bps))
		bad = "min_bps: must be 1 bit/s .. line_bps";
	else if (!in_range(p->ai_bps, 0.0, p->line_bps))
		bad = "ai_bps: must be 0 .. line_bps";
	else if (!in_range(p->hai_bps, 0.0, p->line_bps))
		bad = "hai_bps: must be 0 .. line_bps";
	else if (!in_range(p->g, 0.0, 1.0))
		bad = "g: must be 0 .. 1";
	else if (!in_range(p->alpha_init, 0.0, 1.0))
		bad = "alpha_init: must be 0 .. 1";
	else if (!in_range(p->min_dec_factor, 0.0, 1.0))
		bad = "min_dec_factor: must be 0 .. 1";
	else if (!period_ok(p->alpha_ns))
		bad = "alpha_ns: must be 1 ns .. 2^40 ns";
	else if (!period_ok(p->inc_ns))
		bad = "inc_ns: must be 1 ns .. 2^40 ns";
	else if (cx && !period_ok(p->dec_ns))
		bad = "dec_ns: must be 1 ns .. 2^40 ns in the connectx profile";
	else if (!cx && p->dec_ns)
		bad = "dec_ns: must be 0 in the paper profile (it cuts on "
		      "every CNP)";
	else if (cx && p->byte_counter)
		bad = "byte_counter: must be 0 in the connectx profile (no "
		      "byte counter)";
	else if (cx && p->first_cnp_bps != 0 &&
		 !in_range(p->first_cnp_bps, p->min_bps, p->line_bps))
		bad = "first_cnp_bps: must be 0 or min_bps .. line_bps";
	else if (!cx && p->first_cnp_bps != 0)
		bad = "first_cnp_bps: must be 0 in the paper profile";
	else if (cx && p->alpha_before_cut)
		bad = "alpha_before_cut: paper profile only (connectx "
		      "updates alpha on its own tick)";
	if (why)
		*why = bad;
	return bad ? -EINVAL : 0;
}

const char *dcqcn_profile_name(enum dcqcn_profile prof)
{
	switch (prof) {
	case DCQCN_PAPER:
		return "paper";
	case DCQCN_CONNECTX:
		return "connectx";
	default:
		return "unknown";
	}
}

int dcqcn_profile_from_name(const char *name)
{
	if (!name)
		return -1;
	if (!strcmp(name, "paper"))
		return DCQCN_PAPER;
	if (!strcmp(name, "connectx"))
		return DCQCN_CONNECTX;
	return -1;
}

const char *dcqcn_event_name(enum dcqcn_event e)
{
	static const char *const names[] = {
		[DCQCN_EV_NONE] = "none",
		[DCQCN_EV_CNP] = "cnp",
		[DCQCN_EV_CUT] = "cut",
		[DCQCN_EV_ALPHA] = "alpha",
		[DCQCN_EV_FAST_RECOVERY] = "fast_recovery",
		[DCQCN_EV_ADDITIVE] = "additive",
		[DCQCN_EV_HYPER] = "hyper",
	};

	if ((unsigned int)e >= DCQCN_EV_MAX)
		return "unknown";
	return names[e];
}

/* ---- RP: alpha ---- */

/* alpha *= (1 - g)^k, stepwise for small k; C3 below ALPHA_ZERO. */
static void decay_alpha(struct dcqcn_rp *rp, const struct dcqcn_params *p,
			uint64_t k)
{
	double keep = 1.0 - p->g;

	if (k <= RUN_STEPWISE_MAX) {
		while (k--)
			rp->alpha *= keep;
	} else {
		rp->alpha *= pow_u64(keep, k);
	}
	if (rp->alpha < ALPHA_ZERO)
		rp->alpha = 0;
}

/* Fire the alpha ticks due at or before until (P2, X3). */
static void advance_alpha(struct dcqcn_rp *rp, const struct dcqcn_params *p,
			  uint64_t until)
{
	uint64_t k = due_count(rp->next_alpha_ns, p->alpha_ns, until);

	if (!k)
		return;
	if (rp->cnp_since_alpha) {
		/* X3 with an arrival: only the first tick can have one */
		rp->alpha = (1.0 - p->g) * rp->alpha + p->g;
		rp->cnp_since_alpha = false;
		decay_alpha(rp, p, k - 1);
	} else {
		decay_alpha(rp, p, k);
	}
	if (rp->alpha == 0)
		rp->next_alpha_ns = NEVER;
	else
		rp->next_alpha_ns =
			after_events(rp->next_alpha_ns, k, p->alpha_ns);
}

/* ---- RP: increases ---- */

static bool at_line(const struct dcqcn_rp *rp, const struct dcqcn_params *p)
{
	return rp->rt >= p->line_bps && rp->rc >= p->line_bps;
}

/* C2: snap R_C to line when the gap has stalled at rounding level. */
static void snap_to_line(struct dcqcn_rp *rp, const struct dcqcn_params *p)
{
	if (rp->rt >= p->line_bps &&
	    p->line_bps - rp->rc <= p->line_bps * LINE_SNAP)
		rp->rc = p->line_bps;
}

/* One increase step with R_T increment c (0: fast recovery). */
static void inc_step(struct dcqcn_rp *rp, const struct dcqcn_params *p,
		     double c)
{
	double rt = rp->rt + c;

	rp->rt = rt < p->line_bps ? rt : p->line_bps;
	rp->rc = (rp->rt + rp->rc) / 2;
}

/* R_T increment after k steps of increments c0 + j dc, j = 1..k. */
static double run_sum(double c0, double dc, uint64_t k)
{
	double kd = (double)k;

	return kd * c0 + dc * kd * (kd + 1) / 2;
}

/*
 * n increase steps, the j-th adding c0 + j dc to R_T (capped at line), each
 * followed by R_C = (R_T + R_C) / 2. With D = R_T - R_C, an uncapped step
 * makes D' = (D + c_j) / 2, so after k steps
 *   D_k = D 2^-k + c0 (1 - 2^-k) + dc (k - 1 + 2^-k)
 * (sum over j of (c0 + j dc) 2^-(k-j+1)); a capped step sets R_T = line
 * and halves line - R_C.
 */
static void apply_run(struct dcqcn_rp *rp, const struct dcqcn_params *p,
		      uint64_t n, double c0, double dc)
{
	double line = p->line_bps, d, h;
	uint64_t lo, hi;

	if (n <= RUN_STEPWISE_MAX) {
		for (uint64_t j = 1; j <= n; j++)
			inc_step(rp, p, c0 + (double)j * dc);
		snap_to_line(rp, p);
		return;
	}
	d = rp->rt - rp->rc;
	if (c0 == 0 && dc == 0) {
		rp->rc = rp->rt - d * pow2_neg(n);
		snap_to_line(rp, p);
		return;
	}
	/* the largest k <= n whose k steps all stay below line */
	lo = 0;
	hi = n;
	if (rp->rt + run_sum(c0, dc, n) < line) {
		lo = n;
	} else {
		/* invariant: k = lo stays below (or lo = 0), k = hi does not */
		while (hi - lo > 1) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (rp->rt + run_sum(c0, dc, mid) < line)
				lo = mid;
			else
				hi = mid;
		}
	}
	if (lo) {
		h = pow2_neg(lo);
		d = d * h + c0 * (1 - h) + dc * ((double)lo - 1 + h);
		rp->rt += run_sum(c0, dc, lo);
		rp->rc = rp->rt - d;
	}
	if (lo < n) {
		/* the first capped step averages with line, then halving */
		rp->rc = line - (line - rp->rc) * pow2_neg(n - lo);
		rp->rt = line;
	}
	snap_to_line(rp, p);
}

/*
 * The class of the next event and how many events in a row keep it, for
 * the source `src` whose count moves while the other stays (P3, X5).
 */
static enum inc_class next_class(const struct dcqcn_rp *rp,
				 const struct dcqcn_params *p,
				 enum inc_source src, uint64_t *len)
{
	uint32_t f = p->f, v, o;

	if (p->profile == DCQCN_CONNECTX) {
		v = rp->t_events;
		if (v < f) {
			*len = f - v;
			return INC_FR;
		}
		*len = v == f ? 1 : NEVER;
		return v == f ? INC_AI : INC_HYPER;
	}
	v = src == SRC_TIMER ? rp->t_events : rp->bc_events;
	o = src == SRC_TIMER ? rp->bc_events : rp->t_events;
	if (v < f && o < f) {
		*len = f - v;
		return INC_FR;
	}
	if (v > f && o > f) {
		*len = NEVER;
		return INC_HYPER;
	}
	/* additive: it turns hyper once v passes F, if o already has */
	*len = o > f ? (uint64_t)f + 1 - v : NEVER;
	return INC_AI;
}

/*
 * n increase events from src, or fewer if the flow reaches line (C2):
 * returns how many were applied; *last: the class of the last one.
 */
static uint64_t advance_increase(struct dcqcn_rp *rp,
				 const struct dcqcn_params *p,
				 enum inc_source src, uint64_t n,
				 enum inc_class *last)
{
	uint64_t done = 0, len, m;
	enum inc_class cls = INC_FR;
	double c0, dc;

	while (done < n && !at_line(rp, p)) {
		cls = next_class(rp, p, src, &len);
		m = min_u64(n - done, len ? len : 1); /* len >= 1 anyway */
		c0 = 0;
		dc = 0;
		if (cls == INC_AI) {
			c0 = p->ai_bps;
		} else if (cls == INC_HYPER) {
			if (p->profile == DCQCN_CONNECTX) {
				c0 = p->hai_bps;
			} else {
				/* the j-th of this run is hyper step i0 + j */
				c0 = (double)rp->hyper_steps * p->hai_bps;
				dc = p->hai_bps;
			}
		}
		apply_run(rp, p, m, c0, dc);
		if (src == SRC_TIMER)
			rp->t_events = add_sat32(rp->t_events, m);
		else
			rp->bc_events = add_sat32(rp->bc_events, m);
		if (cls == INC_HYPER)
			rp->hyper_steps = add_sat32(rp->hyper_steps, m);
		rp->inc_since_cut = true;
		done += m;
	}
	*last = cls;
	return done;
}

/* The increase timer's next event at `at`, unless idle at line (C2). */
static void arm_increase(struct dcqcn_rp *rp, const struct dcqcn_params *p,
			 uint64_t at)
{
	rp->next_inc_ns = at_line(rp, p) ? NEVER : at;
}

/* Fire the increase timer events due at or before until. */
static bool advance_inc_timer(struct dcqcn_rp *rp, const struct dcqcn_params *p,
			      uint64_t until, enum inc_class *last)
{
	uint64_t n = due_count(rp->next_inc_ns, p->inc_ns, until), done;

	if (!n)
		return false;
	done = advance_increase(rp, p, SRC_TIMER, n, last);
	/* done >= 1: the timer only runs while not at line */
	arm_increase(rp, p, after_events(rp->next_inc_ns, done, p->inc_ns));
	return true;
}

/* ---- RP: cuts ---- */

/* C0, then R_C = max(R_min, R_C (1 - alpha/2), min_dec_factor R_C). */
static void cut(struct dcqcn_rp *rp, const struct dcqcn_params *p)
{
	double rc = rp->rc, floor_dec = p->min_dec_factor * rc, next;

	if (p->clamp_always || (p->clamp_after_inc && rp->inc_since_cut))
		rp->rt = rc;
	next = rc * (1.0 - rp->alpha / 2);
	if (next < floor_dec)
		next = floor_dec;
	if (next < p->min_bps)
		next = p->min_bps;
	rp->rc = next;
	rp->inc_since_cut = false;
	rp->t_events = 0;
	rp->bc_events = 0;
	rp->hyper_steps = 0;
	rp->bytes = 0;
}

/* X4: the decrease tick at `at` (only armed with an arrival). */
static void decrease_tick(struct dcqcn_rp *rp, const struct dcqcn_params *p,
			  uint64_t at)
{
	cut(rp, p);
	rp->cnp_since_dec = false;
	rp->next_dec_ns = NEVER;
	arm_increase(rp, p, add_sat(at, p->inc_ns));
}

/* ---- RP: the public entry points ---- */

void dcqcn_rp_init(struct dcqcn_rp *rp, const struct dcqcn_params *p,
		   uint64_t now_ns)
{
	memset(rp, 0, sizeof(*rp));
	rp->rc = p->line_bps;
	rp->rt = p->line_bps;
	rp->alpha = p->alpha_init;
	rp->next_alpha_ns = NEVER;
	rp->next_inc_ns = NEVER;
	rp->next_dec_ns = NEVER;
	rp->origin_ns = now_ns;
}

uint64_t dcqcn_rp_next_ns(const struct dcqcn_rp *rp)
{
	return min_u64(rp->next_alpha_ns,
		       min_u64(rp->next_inc_ns, rp->next_dec_ns));
}

enum dcqcn_event dcqcn_rp_step(struct dcqcn_rp *rp,
			       const struct dcqcn_params *p, uint64_t now_ns,
			       uint64_t *at_ns)
{
	uint64_t at = dcqcn_rp_next_ns(rp);
	enum inc_class cls;

	if (at > now_ns)
		return DCQCN_EV_NONE;
	if (at_ns)
		*at_ns = at;
	/* ties: alpha, then increase, then decrease */
	if (rp->next_alpha_ns == at) {
		advance_alpha(rp, p, at);
		return DCQCN_EV_ALPHA;
	}
	if (rp->next_inc_ns == at) {
		advance_inc_timer(rp, p, at, &cls);
		return class_event[cls];
	}
	decrease_tick(rp, p, at);
	return DCQCN_EV_CUT;
}

void dcqcn_rp_catch_up(struct dcqcn_rp *rp, const struct dcqcn_params *p,
		       uint64_t now_ns)
{
	enum inc_class cls;

	if (dcqcn_rp_next_ns(rp) > now_ns)
		return;
	if (rp->next_dec_ns <= now_ns) {
		/* X4 reads alpha and the stage: what is due first, first */
		uint64_t at = rp->next_dec_ns;

		advance_alpha(rp, p, at);
		advance_inc_timer(rp, p, at, &cls);
		decrease_tick(rp, p, at);
	}
	advance_alpha(rp, p, now_ns);
	advance_inc_timer(rp, p, now_ns, &cls);
}

static void paper_cnp(struct dcqcn_rp *rp, const struct dcqcn_params *p,
		      uint64_t now_ns)
{
	if (p->alpha_before_cut)
		rp->alpha = (1.0 - p->g) * rp->alpha + p->g;
	cut(rp, p);
	if (!p->alpha_before_cut)
		rp->alpha = (1.0 - p->g) * rp->alpha + p->g;
	rp->first_cnp_seen = true;
	rp->next_alpha_ns = p->g > 0 ? add_sat(now_ns, p->alpha_ns) : NEVER;
	arm_increase(rp, p, add_sat(now_ns, p->inc_ns));
}

static void connectx_cnp(struct dcqcn_rp *rp, const struct dcqcn_params *p,
			 uint64_t now_ns)
{
	if (!rp->first_cnp_seen) {
		rp->first_cnp_seen = true;
		rp->origin_ns = now_ns;
		rp->alpha = p->alpha_init;
		rp->cnp_since_alpha = false; /* X1: not an arrival for alpha */
		rp->cnp_since_dec = true;
		if (p->first_cnp_bps > 0)
			rp->rc = p->first_cnp_bps;
		rp->rt = rp->rc;
		rp->next_alpha_ns =
			p->g > 0 ? add_sat(now_ns, p->alpha_ns) : NEVER;
		rp->next_dec_ns = add_sat(now_ns, p->dec_ns);
		return;
	}
	rp->cnp_since_alpha = true;
	rp->cnp_since_dec = true;
	/* a stopped tick resumes at the next slot of its phase */
	if (rp->next_alpha_ns == NEVER && p->g > 0)
		rp->next_alpha_ns =
			next_slot(rp->origin_ns, p->alpha_ns, now_ns);
	if (rp->next_dec_ns == NEVER)
		rp->next_dec_ns = next_slot(rp->origin_ns, p->dec_ns, now_ns);
}

void dcqcn_rp_on_cnp(struct dcqcn_rp *rp, const struct dcqcn_params *p,
		     uint64_t now_ns)
{
	dcqcn_rp_catch_up(rp, p, now_ns);
	if (p->profile == DCQCN_CONNECTX)
		connectx_cnp(rp, p, now_ns);
	else
		paper_cnp(rp, p, now_ns);
}

enum dcqcn_event dcqcn_rp_on_sent(struct dcqcn_rp *rp,
				  const struct dcqcn_params *p, uint64_t bytes,
				  uint64_t now_ns)
{
	enum inc_class cls;
	uint64_t n;

	if (dcqcn_rp_next_ns(rp) <= now_ns)
		dcqcn_rp_catch_up(rp, p, now_ns);
	/* P3/P4/C2: counted only while the increase machinery runs */
	if (!p->byte_counter || rp->next_inc_ns == NEVER ||
	    p->profile != DCQCN_PAPER)
		return DCQCN_EV_NONE;
	rp->bytes = add_sat(rp->bytes, bytes);
	if (rp->bytes < p->byte_counter)
		return DCQCN_EV_NONE;
	n = rp->bytes / p->byte_counter;
	rp->bytes %= p->byte_counter;
	advance_increase(rp, p, SRC_BYTES, n, &cls);
	if (at_line(rp, p)) {
		rp->next_inc_ns = NEVER;
		rp->bytes = 0;
	}
	return class_event[cls];
}

/* ---- NP ---- */

void dcqcn_np_init(struct dcqcn_np *np)
{
	np->last_cnp_ns = NEVER;
	np->window_end_ns = 0;
	np->pending = false;
}

static void np_send(struct dcqcn_np *np, const struct dcqcn_params *p,
		    uint64_t now_ns)
{
	np->last_cnp_ns = now_ns;
	np->window_end_ns = add_sat(now_ns, p->np_interval_ns);
	np->pending = false;
}

bool dcqcn_np_on_marked(struct dcqcn_np *np, const struct dcqcn_params *p,
			uint64_t now_ns)
{
	/* N2: inside the window of the last CNP */
	if (np->last_cnp_ns != NEVER && now_ns < np->window_end_ns) {
		np->pending = true;
		return false;
	}
	/* N1, or N4: one CNP now covers the remembered marks and this one */
	np_send(np, p, now_ns);
	return true;
}

bool dcqcn_np_poll(struct dcqcn_np *np, const struct dcqcn_params *p,
		   uint64_t now_ns)
{
	if (!np->pending || now_ns < np->window_end_ns)
		return false;
	np_send(np, p, now_ns); /* N3 */
	return true;
}

uint64_t dcqcn_np_next_ns(const struct dcqcn_np *np)
{
	return np->pending ? np->window_end_ns : NEVER;
}

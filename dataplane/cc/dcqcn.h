/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dcqcn.h - DCQCN congestion control (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015) as a pure module: state +
 * event + now -> state. No I/O, no clock of its own, no allocation, no
 * libm: the same object code runs in the egress schedulers (flowq.c), in
 * the unit tests on a fake clock and in the simulator (bench/dcqcn-sim).
 *
 * Roles: RP, the sender's rate limiter (struct dcqcn_rp per flow); NP,
 * which sends CNPs for CE-marked arrivals (struct dcqcn_np per flow); CP,
 * RED marking on the queue length (ecn_red_* in ecn.h).
 * RP state: the rate paced at R_C (rp->rc), the target R_T (rp->rt),
 * alpha, the increase events since the last cut (timer T, byte counter
 * BC), the hyper steps i, the timers. Profile DCQCN_PAPER:
 *   CNP               R_T = R_C; R_C = max(R_min, R_C (1 - alpha / 2),
 *                     min_dec_factor R_C); alpha = (1 - g) alpha + g;
 *                     T = BC = i = 0, timers restart
 *   alpha_ns, no CNP  alpha = (1 - g) alpha
 *   increase event    every inc_ns, every byte_counter bytes; by the
 *                     counts before it:
 *     max(T, BC) < F    fast recovery  R_C = (R_T + R_C) / 2
 *     min(T, BC) > F    hyper          i++, R_T += i R_HAI, then average
 *     otherwise         additive       R_T += R_AI, then average
 *   (R_T capped at line; before the first CNP no timer runs)
 * Profile DCQCN_CONNECTX (ConnectX firmware defaults, as the HPCC
 * simulator's *Mlx functions model them): CNPs only mark arrivals; ticks
 * phased at the first CNP act on them:
 *   first CNP         alpha = alpha_init; R_T = R_C = first_cnp_bps (0:
 *                     kept)
 *   alpha tick        alpha = (1 - g) alpha + g [a CNP since the last]
 *   decrease tick     a CNP since the last: the cut above, stage = 0
 *   increase timer    every inc_ns after a cut: stage < F fast recovery,
 *                     = F R_T += R_AI, > F R_T += R_HAI; average; stage++
 * Both: the R_T = R_C of a cut only if clamp_always, or clamp_after_inc
 * and an increase came since the last cut.
 * NP: a marked arrival sends a CNP at once unless within np_interval_ns
 * of the last; those within get one CNP at the window's end.
 * Invariants: R_min <= R_C <= R_T <= line; 0 <= alpha <= 1; a flow's CNPs
 * are np_interval_ns apart at least; an idle flow runs no timer.
 * The exact rules (P1-P4, X1-X7, C0-C3, N1-N4: ties, idle flows, order of
 * timers) and the cost of catching up follow below. How the gateway uses
 * it: sched/flowq.h; where it marks and which marks it believes:
 * docs/decisions/0010; its timers on the slowed testbed: 0009.
 *
 * Ownership: a struct dcqcn_rp / dcqcn_np belongs to one thread; params are
 * read only. No global state. Params must pass dcqcn_params_check().
 */
#ifndef XDPLANE_DCQCN_H
#define XDPLANE_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The rules, exactly.
 *
 * Units: rates in bit/s (double), times in ns (uint64_t, the caller's
 * clock, < 2^63), bytes as uint64_t. R_C is rp->rc (the rate the flow is
 * paced at), R_T is rp->rt (the target rate), line is p->line_bps.
 *
 * Time and order
 *  - Every call passes now_ns, which must not decrease for one object (if
 *    it does, nothing breaks: timers already fired stay fired and the event
 *    is applied at the time given). Times saturate at UINT64_MAX (never).
 *  - Timers due at or before now_ns fire before the event of the call (a
 *    timer due exactly at a CNP's arrival fires first). Timers due at the
 *    same instant fire in the order alpha, increase, decrease (the order of
 *    the HPCC simulator, where the alpha tick runs 1 ns earlier and the
 *    increase timer was scheduled before the decrease tick).
 *  - dcqcn_rp_step() fires exactly one timer. dcqcn_rp_catch_up(),
 *    dcqcn_rp_on_cnp() and dcqcn_rp_on_sent() fire every due timer in
 *    bounded time (see Efficiency) and reach the state that stepping reaches
 *    (equal to within rounding, < 1e-12 relative; tested).
 *
 * Profile DCQCN_PAPER (Zhu et al., SIGCOMM 2015)
 *  P1 On a CNP: R_T = R_C (when clamping, C0 below; the default always
 *     clamps), then R_C = max(R_min, R_C (1 - alpha/2), min_dec_factor R_C),
 *     then alpha = (1 - g) alpha + g (alpha_before_cut: the alpha update
 *     comes first, the order of the author's ns-3 code). The counts T, BC
 *     and i and the byte count start over at 0; the increase timer and the
 *     alpha timer restart (their next events are inc_ns and alpha_ns later).
 *  P2 Alpha timer: each time alpha_ns (K) pass without a CNP,
 *     alpha = (1 - g) alpha.
 *  P3 Increase events come from the increase timer (every inc_ns, T) and
 *     from the byte counter (every byte_counter bytes sent, B). Each is
 *     classified by the counts of timer events T and byte events BC since
 *     the last CNP as they stood BEFORE this event; then its own count is
 *     incremented:
 *       fast recovery  max(T, BC) < F:  R_C = (R_T + R_C) / 2
 *       hyper          min(T, BC) > F:  i++, R_T += i R_HAI, then average
 *       additive       otherwise:       R_T += R_AI, then average
 *     R_T is capped at line (before the average). So a lone CNP is followed
 *     by exactly F fast-recovery steps (T = 0 .. F-1 before the event); the
 *     (F+1)-th event is additive; the timer alone never reaches hyper (BC
 *     stays 0), hyper needs more than F events of both kinds. i counts the
 *     hyper steps since the last CNP: the i-th adds i R_HAI.
 *  P4 Before the first CNP no timer runs and bytes are not counted: the flow
 *     is at line rate, where every increase is a no-op, and alpha stays at
 *     alpha_init, so the first CNP cuts with alpha_init (1: it halves the
 *     rate) however long the flow ran before -- alpha never decays below
 *     the value the paper starts it at before there was a CNP to decay from.
 *
 * Profile DCQCN_CONNECTX (NVIDIA ConnectX firmware defaults, as modelled by
 * the *Mlx functions of the HPCC simulator, rdma-hw.cc)
 *  X1 The first CNP: alpha = alpha_init (initial_alpha_value, 1) and it does
 *     NOT count as an arrival for the alpha tick; R_T = R_C = first_cnp_bps
 *     (rate_to_set_on_first_cnp) or, when that is 0, the current R_C kept;
 *     the alpha tick (every alpha_ns) and the decrease tick (every dec_ns)
 *     start, phased at this CNP's time t0 (ticks at t0 + k period, k >= 1).
 *     It does count as an arrival for the decrease tick: the first cut comes
 *     at t0 + dec_ns.
 *  X2 Every later CNP marks an arrival for both ticks. Nothing else.
 *  X3 Alpha tick: alpha = (1 - g) alpha + g [an arrival since the last
 *     alpha tick]; the arrival is cleared.
 *  X4 Decrease tick, only if a CNP arrived since the last decrease tick (so
 *     several CNPs within one tick make one cut): R_T = R_C when clamping
 *     (C0), R_C = max(R_min, R_C (1 - alpha/2), min_dec_factor R_C), the
 *     stage goes to 0 and the increase timer restarts (next event inc_ns
 *     later).
 *  X5 Increase timer, every inc_ns after the last cut: stage < F: fast
 *     recovery; stage == F: R_T += R_AI; stage > F: R_T += R_HAI (a
 *     constant step); R_T capped at line; then R_C = (R_T + R_C) / 2 and
 *     stage++. No timer runs before the first cut. rp->t_events is the stage.
 *  X6 No byte counter (byte_counter must be 0).
 *  X7 A CNP exactly at a decrease slot is cut at the next slot (timers
 *     first); HPCC's 1 ns offset cuts it at that slot. Nothing else differs.
 *
 * Both profiles
 *  C0 Clamping: R_T = R_C at a cut if clamp_always, or if clamp_after_inc
 *     and an increase event happened since the last cut.
 *  C1 Invariants: R_min <= R_C <= R_T <= line; 0 <= alpha <= 1.
 *  C2 Idle at line: when R_T = R_C = line the increase timer stops and bytes
 *     are not counted until the next cut (every increase would be a no-op).
 *     R_C within 2^-50 relative of line with R_T = line is set to line (the
 *     halving of the gap would otherwise stall one ulp short).
 *  C3 Alpha below 2^-64 is set to 0 and the alpha timer stops (ConnectX:
 *     until the next CNP): such an alpha changes no rate (1 - alpha/2
 *     rounds to 1) and no later alpha by more than 2^-44 relative. With
 *     g = 0 alpha never changes and no alpha timer runs.
 *  So an idle flow's timers all stop: no work for flows nothing happens to.
 *
 * NP (both profiles; N = np_interval_ns)
 *  N1 A CE-marked packet arriving outside a window (no CNP yet, or at or
 *     after the window's end, nothing pending): a CNP goes now and a window
 *     [now, now + N) starts.
 *  N2 A marked packet inside the window: remembered, nothing sent.
 *  N3 At the window's end (dcqcn_np_poll() at or after dcqcn_np_next_ns()),
 *     if something is remembered, one CNP goes for all of it, and the next
 *     window starts at that CNP: [now, now + N). Otherwise the window ends.
 *  N4 A marked packet at or after the end of a window with something
 *     remembered (the caller did not poll): one CNP goes now for both, and
 *     the next window starts now.
 *  So a flow's CNPs are at least N apart, and a marked packet is covered by
 *  a CNP at most N after it when the caller polls on time. A late poll sends
 *  late and the window starts at the actual send (never two CNPs < N apart).
 *
 * Efficiency: dcqcn_rp_on_sent() is O(1) on the per-packet path (a few
 * comparisons and an add when no timer is due and no byte-counter event
 * happens; the byte counter fires at most once per call when a call sends
 * at most B bytes; about 4-7 ns per call measured at -O2).
 * Catching up after any idle time is bounded, without loops over the idle
 * time: k alpha decays are x^k by repeated squaring (for k > 8; stepwise
 * below); a run of n increase events of one kind (increment c0 + j dc at the
 * j-th event, R_T capped at line) is a closed form: for the uncapped part
 * R_T += n c0 + dc n(n+1)/2 and D = R_T - R_C becomes
 * D 2^-n + c0 (1 - 2^-n) + dc (n - 1 + 2^-n); after the cap D halves per
 * event. The first capped event is found by bisection. A catch-up is at most
 * three runs per timer (fast recovery, additive, hyper). Closed forms are
 * only used for runs longer than 8 events: short runs are stepped exactly.
 */

enum dcqcn_profile { DCQCN_PAPER = 0, DCQCN_CONNECTX, DCQCN_PROFILE_MAX };

/*
 * Parameters, defaults as dcqcn_params_default() sets them (paper / connectx):
 *  profile          which rules apply (above).
 *  line_bps         bit/s, the initial rate and the cap of R_T and R_C;
 *                   the caller's line rate (required).
 *  min_bps          R_min, bit/s: no cut goes below. 100 Mbit/s / 1 Mbit/s
 *                   (rpg_min_rate).
 *  ai_bps           R_AI, bit/s per additive step. 40 Mbit/s / 5 Mbit/s
 *                   (rpg_ai_rate).
 *  hai_bps          R_HAI, bit/s: paper: the i-th hyper step adds i R_HAI;
 *                   connectx: each adds R_HAI. 200 Mbit/s / 50 Mbit/s
 *                   (rpg_hai_rate).
 *  g                alpha gain, 0..1. 1/256 / 5/1024. ConnectX: the firmware
 *                   default dce_tcp_g = 1019 under NVIDIA's documented Q10
 *                   update alpha <- (1019/1024) alpha (+ the rest on an
 *                   arrival) is g = 5/1024; the HPCC simulator's 1/256 is the
 *                   paper's g reused for all its profiles, not a firmware
 *                   reading (set g = 1/256 to reproduce HPCC runs).
 *  alpha_init       0..1: paper: alpha at start; connectx: alpha set by the
 *                   first CNP (initial_alpha_value 1023/1024 in Q10 ~ 1, as
 *                   HPCC). 1 / 1.
 *  min_dec_factor   0..1: a cut keeps at least this fraction of R_C
 *                   (rpg_min_dec_fac). 0 (none) / 0.5.
 *  first_cnp_bps    connectx: R_C = R_T = this on the first CNP, 0: keep the
 *                   rate (rate_to_set_on_first_cnp); else min_bps..line_bps.
 *                   Paper: must be 0. 0 / 0.
 *  alpha_ns         ns: paper K, the decay period without a CNP; connectx
 *                   the alpha tick (dce_tcp_rtt). 55 us / 1 us.
 *  inc_ns           ns: the increase timer T (rpg_time_reset). 55 us / 300 us.
 *  dec_ns           ns: connectx decrease tick (rate_reduce_monitor_period);
 *                   paper: must be 0 (the cut is on the CNP). 0 / 4 us.
 *  byte_counter     bytes per byte-counter event B, 0: off; connectx: must
 *                   be 0. 10 000 000 / 0.
 *  np_interval_ns   ns: NP, at most one CNP per flow per N (connectx
 *                   min_time_between_cnps); 0: one per marked packet.
 *                   50 us / 4 us.
 *  f                F, fast-recovery stages (rpg_threshold). 5 / 1.
 *  clamp_always     R_T = R_C at every cut (clamp_tgt_rate). true / false.
 *  clamp_after_inc  ...or only if an increase happened since the last cut
 *                   (clamp_tgt_rate_after_time_inc). false / true.
 *  alpha_before_cut paper: update alpha before the cut on a CNP (ns3-rdma
 *                   order) instead of after (the paper). false / false.
 * Periods (alpha_ns, inc_ns, dec_ns when used) are 1 ns .. 2^40 ns.
 */
struct dcqcn_params {
	enum dcqcn_profile profile;
	double line_bps;
	double min_bps;
	double ai_bps;
	double hai_bps;
	double g;
	double alpha_init;
	uint64_t alpha_ns;
	uint64_t inc_ns;
	uint64_t dec_ns;
	uint64_t byte_counter;
	uint32_t f;
	double min_dec_factor;
	bool clamp_always;
	bool clamp_after_inc;
	uint64_t np_interval_ns;
	double first_cnp_bps;
	bool alpha_before_cut;
};

#define DCQCN_MAX_PERIOD_NS (1ull << 40)

/* The documented defaults of a profile for a line rate (bit/s). An unknown
 * profile gets the paper's rules with its profile field kept, so that
 * dcqcn_params_check() refuses it. */
void dcqcn_params_default(struct dcqcn_params *p, enum dcqcn_profile prof,
			  double line_bps);

/* Time dilation: p for a testbed x times slower than the fabric it stands
 * for (x >= 1). Every period (alpha_ns, inc_ns, dec_ns, np_interval_ns)
 * is x times longer, every rate (line_bps, min_bps, ai_bps, hai_bps,
 * first_cnp_bps) x times lower; byte_counter, g, alpha and the counts stay.
 * A flow that sends the same bytes at x times the instants then sees the
 * same events, and R_C / line_bps follows the same curve x times slower.
 * Periods saturate at DCQCN_MAX_PERIOD_NS (dcqcn_params_check() then says
 * so if the result is out of range). */
void dcqcn_params_dilate(struct dcqcn_params *p, uint64_t x);

/* 0 if the rules above can run on p, else -EINVAL with *why (if why is not
 * NULL) set to a static text naming the parameter and the problem. */
int dcqcn_params_check(const struct dcqcn_params *p, const char **why);

/* "paper", "connectx"; "unknown" otherwise. */
const char *dcqcn_profile_name(enum dcqcn_profile prof);
/* The profile called name, or -1. */
int dcqcn_profile_from_name(const char *name);

/* What changed a flow's state (for logs, the simulator's CSV, counters). */
enum dcqcn_event {
	DCQCN_EV_NONE = 0,
	DCQCN_EV_CNP, /* a CNP arrived (paper: the cut happens here) */
	DCQCN_EV_CUT, /* connectx: the decrease tick cut the rate */
	DCQCN_EV_ALPHA, /* alpha timer/tick */
	DCQCN_EV_FAST_RECOVERY,
	DCQCN_EV_ADDITIVE,
	DCQCN_EV_HYPER,
	DCQCN_EV_MAX
};
/* "none", "cnp", "cut", "alpha", "fast_recovery", "additive", "hyper";
 * "unknown" for anything else. */
const char *dcqcn_event_name(enum dcqcn_event e);

struct dcqcn_rp {
	double rc, rt, alpha; /* R_C, R_T in bit/s; alpha */
	/* next due time of each timer, UINT64_MAX: not running */
	uint64_t next_alpha_ns, next_inc_ns, next_dec_ns;
	uint64_t origin_ns; /* connectx: the first CNP, phase of the ticks */
	uint64_t bytes; /* paper: sent towards the next byte-counter event */
	/* increase events since the last cut (saturating): t_events by the
	 * timer (connectx: the stage), bc_events by the byte counter */
	uint32_t t_events, bc_events;
	uint32_t hyper_steps; /* paper: i, hyper steps since the last cut */
	bool cnp_since_alpha; /* connectx: arrival for the next alpha tick */
	bool cnp_since_dec; /* connectx: arrival for the next decrease tick */
	bool first_cnp_seen;
	bool inc_since_cut; /* an increase event since the last cut */
};

/* A flow at line rate, alpha = alpha_init, no timer running. */
void dcqcn_rp_init(struct dcqcn_rp *rp, const struct dcqcn_params *p,
		   uint64_t now_ns);
/* Fire the earliest timer due at or before now_ns (ties: alpha, increase,
 * decrease): returns its event (DCQCN_EV_ALPHA, _CUT, _FAST_RECOVERY,
 * _ADDITIVE or _HYPER) and sets *at_ns (if not NULL) to its due time, or
 * returns DCQCN_EV_NONE when none is due. Call in a loop to log every
 * event; to just catch up use dcqcn_rp_catch_up() (bounded time). */
enum dcqcn_event dcqcn_rp_step(struct dcqcn_rp *rp,
			       const struct dcqcn_params *p, uint64_t now_ns,
			       uint64_t *at_ns);
/* Fire every timer due at or before now_ns, in bounded time. */
void dcqcn_rp_catch_up(struct dcqcn_rp *rp, const struct dcqcn_params *p,
		       uint64_t now_ns);
/* Catch up, then a CNP arrives (P1 / X1, X2). */
void dcqcn_rp_on_cnp(struct dcqcn_rp *rp, const struct dcqcn_params *p,
		     uint64_t now_ns);
/* Catch up, then bytes were sent at now_ns: paper, after the first CNP and
 * unless idle at line, counts them towards byte-counter events (P3). Returns
 * the class of the last byte-counter event (DCQCN_EV_FAST_RECOVERY,
 * _ADDITIVE, _HYPER) or DCQCN_EV_NONE; a call with more than B bytes may
 * make several (the simulator splits its sends to log each). */
enum dcqcn_event dcqcn_rp_on_sent(struct dcqcn_rp *rp,
				  const struct dcqcn_params *p, uint64_t bytes,
				  uint64_t now_ns);
/* Earliest pending timer, UINT64_MAX: none. */
uint64_t dcqcn_rp_next_ns(const struct dcqcn_rp *rp);

struct dcqcn_np {
	uint64_t last_cnp_ns; /* UINT64_MAX: never */
	uint64_t window_end_ns; /* last_cnp_ns + N, if a CNP was sent */
	bool pending; /* a marked arrival inside the window */
};

void dcqcn_np_init(struct dcqcn_np *np);
/* A CE-marked packet of the flow arrived: true if a CNP goes now (N1, N4). */
bool dcqcn_np_on_marked(struct dcqcn_np *np, const struct dcqcn_params *p,
			uint64_t now_ns);
/* True if a deferred CNP is due at or before now_ns; it is then sent (N3). */
bool dcqcn_np_poll(struct dcqcn_np *np, const struct dcqcn_params *p,
		   uint64_t now_ns);
/* When the deferred CNP is due, UINT64_MAX: nothing pending. */
uint64_t dcqcn_np_next_ns(const struct dcqcn_np *np);

#endif

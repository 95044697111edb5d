/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tc_sched.h - the egress scheduler of one port: per-class FIFOs, strict
 * priority between levels, DWRR (Shreedhar and Varghese, SIGCOMM 1995)
 * within a level, per-class ceilings and guaranteed minimums as HTB's ceil
 * and rate, a port shaper, RED/ECN marking, and per-class counters with a
 * sojourn-time histogram. A pure module: no I/O, no clock (every call gets
 * now_ns, read once per burst by the caller), no allocation after
 * sched_init().
 *
 * Inputs: frames with a class (sched_enqueue()), now_ns, PFC pauses per
 * PCP (sched_pause_pcp()). State: per class a FIFO (a DCQCN class: its
 * flows, flowq.h), a ceiling and a min token bucket (tbucket.h), a DWRR
 * deficit; per port the shaper's bucket and the backlog as bitmaps over
 * the classes sorted by (level, class id).
 * Law, frame by frame (sched_dequeue()):
 *   port shaper in debt               nothing leaves
 *   eligible = backlogged, not paused, ceiling bucket not in debt, (DCQCN)
 *              a flow's rate gate open
 *   min phase: the first eligible class (in (level, id) order) whose min
 *              bucket conforms sends; charged to its min bucket too
 *   else       the lowest-numbered level with an eligible class; DWRR in
 *              it: the class holding the turn sends while its deficit
 *              pays for its head, else the turn moves on and each class
 *              it reaches gets a quantum unless its deficit pays; an
 *              emptied class's deficit is 0
 *   every frame charges len + overhead to the port, ceiling and (min
 *   phase) min buckets and the deficit
 * Enqueue: tail drop at limit_packets / limit_bytes; then, with ECN, RED
 * on the class's bytes before the frame: ECT -> CE, CE stays CE, Not-ECT
 * dropped or passed (docs/decisions/0010).
 * Invariants: a backlogged class gets its minimum (cut by its ceiling)
 * plus its share of what is left, never more than its ceiling; a class
 * over its ceiling waits, nothing is dropped for it (a paused one is
 * flushed by the PFC watchdog only); a FIFO class's frames, and a DCQCN
 * flow's, leave in order; `active` is the set of non-empty classes (the
 * list in full below). How a worker waits for the shaper:
 * docs/decisions/0008. The exact rules follow.
 *
 * Ownership: one scheduler per egress port, owned by exactly one thread (the
 * egress task's worker) from sched_init() to sched_fini(). Only that thread
 * calls sched_* and only it writes the scheduler's state and counters. Other
 * threads may read the counters (struct sched_class_stats, sched->bad_class)
 * with ctr_read(), at any time. The queued frames are owned by the
 * scheduler: sched_enqueue() takes a frame when it returns 0 (on a drop the
 * caller keeps it); sched_dequeue() hands frames back. Before sched_fini(),
 * the owner empties the scheduler (dequeue, or sched_foreach() for the
 * census) or the queued frames are lost to the frame accounting.
 */

/*
 * The rules, exactly.
 *
 * Scheduling order, frame by frame:
 *  0. The port shaper (qos_port.rate_bps/burst; rate 0: unshaped) gates
 *     everything: nothing leaves while its bucket is in debt.
 *  1. Guaranteed minimum (min_bps or min_share * port rate, burst
 *     min_burst): a backlogged class whose min bucket conforms is served
 *     first, highest level first. Only frames sent in this phase are
 *     charged to the min bucket (as HTB's "rate"): a class gets its minimum
 *     plus its share of what is left.
 *  2. Strict priority: the lowest-numbered level that has an eligible
 *     backlogged class is served; within it, deficit round robin
 *     (Shreedhar-Varghese) with each class's quantum, the deficit reset to 0
 *     when a class empties.
 * Ceiling (ceil_bps or ceil_share * port rate, burst ceil_burst): a class
 * whose ceiling bucket is in debt is skipped in both phases (its frames
 * wait, they are not dropped), which is what stops a strict class from
 * starving the others. A minimum above the ceiling is cut by the ceiling.
 * The work-conserving order is therefore: min phase, then strict/DWRR among
 * classes under their ceilings.
 *
 * How the order is computed (what makes it cheap with many classes): the
 * classes sit in slots sorted by (level, class id), so a set of classes is
 * a bitmap with the highest priority in the lowest bit. `active` holds the
 * backlogged slots, `level_mask[lv]` the slots of a level; the eligible
 * ones (backlogged, not paused, ceiling and flows not blocking) are a mask
 * per call, the first eligible level is the level of its lowest set bit
 * and DWRR moves the turn with find-first-set over that level's eligible
 * bits: no scan over the classes. Buckets are refilled once per dequeue
 * call, and only those of backlogged classes. Once a class is chosen,
 * sched_dequeue() sends a run of its frames -- as long as the choice
 * frame by frame would stay the same: the class keeps frames, its ceiling
 * and the port conform, its min bucket conforms (min phase) or its
 * deficit pays for its next head (DWRR) -- with one selection per run,
 * and the charges and counters of the run applied once at its end. The
 * frames, their order and every charge are those of one selection per
 * frame.
 *
 * Accounting units: every frame is charged len + qos_port.overhead bytes to
 * the port shaper, the ceiling and min buckets and the DWRR deficit. Queue
 * limits, RED depths, the depth gauges and the byte counters use the frame
 * length alone.
 *
 * Token buckets: see tbucket.h (fixed point, start full, saturate at the
 * burst, at most one frame of debt). Size each burst >= rate * longest gap
 * between two sched_dequeue() calls + one frame, or the rate is not reached.
 *
 * Queues and drops: tail drop when a frame would make the queue exceed
 * limit_packets or limit_bytes (packets checked first). Then, for classes
 * with ecn.enabled, RED on the queue's bytes before the arriving frame
 * (what the frame will wait behind): a chosen frame that is ECT(0)/ECT(1)
 * is marked CE (and its meta updated), a CE frame stays CE, a Not-ECT frame
 * is dropped (QOS_NONECT_DROP) or queued unmarked (QOS_NONECT_PASS). A frame
 * whose meta says ECT but whose header cannot be marked (truncated, no IP)
 * is treated as Not-ECT. The ECT/CE/Not-ECT decision uses the codepoint in
 * the meta; ecn_mark_ce() re-checks the header before writing.
 *
 * Lossless classes (qos_class.lossless with pfc.enabled): the same limits
 * apply, but a frame refused by them is counted as
 * SCHED_DROP_LOSSLESS_OVERFLOW (PFC should have stopped the sender before);
 * the owner (egress.h) sends the XOFF/XON. PFC pauses: sched_pause_pcp().
 *
 * Sojourn histogram: bucket 0 is [0, 1 us), bucket k (1..30) is
 * [2^(k-1), 2^k) us, bucket 31 is [2^30 us, inf) (decimal microseconds).
 *
 * RED randomness: xorshift64*, seeded at init from the port index (same
 * sequence every run); sched_seed() reseeds.
 *
 * Invariants (between calls): bit i of `active` is set iff slot i's queue
 * is non-empty; `backlog` is the sum of the queue lengths; a class's
 * depth gauges equal its queue's contents (tail - head frames, `bytes`
 * bytes; a DCQCN class's frames are in its flows, head/tail and `bytes`
 * count them); deficit is 0 for an empty class and otherwise < quantum +
 * the largest charge of one frame (len + overhead: not the head frame's,
 * a frame sent in the min phase leaves the deficit it was saving for);
 * each bucket's tokens lie in [-the charge of one frame, burst]; a
 * class's red_from is red.kmin if it has ECN, else UINT32_MAX. A FIFO
 * class that a dequeue empties restarts its ring at slot 0 (head = tail
 * = 0): ring positions carry no meaning beyond tail - head and FIFO order.
 * Builds with XDPLANE_ASSERTS check the invariants (DP_ASSERT) at the end
 * of every call that changes the queues -- an enqueue those of the slot it
 * changed, the other calls all of them -- and walk every queued frame on
 * the rare ones (init, reload, PFC watchdog flush).
 *
 * The file is tc_sched.h, not sched.h: this directory is on the include
 * path, and <sched.h> (included by <pthread.h>) must stay the system's.
 */
#ifndef XDPLANE_TC_SCHED_H
#define XDPLANE_TC_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include "bits.h"
#include "counters.h"
#include "dp_assert.h"
#include "ecn.h"
#include "frame.h"
#include "flowq.h"
#include "frame_meta.h"
#include "qos.h"
#include "remark.h"
#include "tbucket.h"

#define SCHED_HIST_BUCKETS 32
#define SCHED_MAX_QUEUE_PACKETS (1u << 20) /* limit_packets, per class */
#define SCHED_MAX_FRAME_LEN (1u << 20) /* longer: dropped as invalid */
#define SCHED_MAX_OVERHEAD (1u << 16)
#define SCHED_MAX_QUANTUM (1u << 24) /* bytes */

/* sched_enqueue() results: 0 queued, > 0 dropped (the caller keeps the
 * frame). Also the index of sched_class_stats.drops[]. */
enum sched_drop {
	SCHED_QUEUED = 0,
	SCHED_DROP_QUEUE_BYTES = 1, /* limit_bytes */
	SCHED_DROP_QUEUE_PACKETS = 2, /* limit_packets */
	SCHED_DROP_ECN_NONECT = 3, /* RED chose a Not-ECT frame, nonect DROP */
	SCHED_DROP_INVALID = 4, /* class id out of range, or frame too long */
	SCHED_DROP_FLOW_TABLE = 5, /* DCQCN class: a new flow, table full */
	SCHED_DROP_LOSSLESS_OVERFLOW = 6, /* lossless class over its limit:
					   * PFC did not stop the sender */
	SCHED_DROP_PFC_WATCHDOG = 7, /* flushed by the PFC watchdog */
	SCHED_DROP_REASONS
};

/* The reason's name in counters ("queue_bytes", ...); "?" out of range. */
static inline const char *sched_drop_name(int reason)
{
	static const char *const names[SCHED_DROP_REASONS] = {
		[SCHED_QUEUED] = "queued",
		[SCHED_DROP_QUEUE_BYTES] = "queue_bytes",
		[SCHED_DROP_QUEUE_PACKETS] = "queue_packets",
		[SCHED_DROP_ECN_NONECT] = "ecn_nonect",
		[SCHED_DROP_INVALID] = "invalid",
		[SCHED_DROP_FLOW_TABLE] = "flow_table",
		[SCHED_DROP_LOSSLESS_OVERFLOW] = "lossless_overflow",
		[SCHED_DROP_PFC_WATCHDOG] = "pfc_watchdog",
	};

	return reason >= 0 && reason < SCHED_DROP_REASONS ? names[reason] : "?";
}

/* Sojourn bucket of a queueing time (see the header comment). */
static inline unsigned int sched_sojourn_bucket(uint64_t ns)
{
	uint64_t v = ns >> 10;
	unsigned int k = v ? 64 - (unsigned int)__builtin_clzll(v) : 0;

	/* k = bit length of ns / 1024; the decimal-us bucket is k or k + 1
	 * (1000 << k <= ns) -- 1000 << 54 still fits in 64 bits */
	k += ns >= (1000ull << k);
	return k < SCHED_HIST_BUCKETS ? k : SCHED_HIST_BUCKETS - 1;
}

/* Counters of one class. Writer: the owner thread; readers: ctr_read(). */
struct sched_class_stats {
	ctr_t enq_packets;
	ctr_t enq_bytes;
	ctr_t sent_packets;
	ctr_t sent_bytes;
	/* left the queue without being sent (PFC watchdog), also counted in
	 * drops[]: enq = sent + flushed + depth */
	ctr_t flushed_packets;
	ctr_t flushed_bytes;
	ctr_t drops[SCHED_DROP_REASONS]; /* by enum sched_drop; [0] unused */
	ctr_t ecn_marks; /* frames this scheduler turned ECT -> CE */
	/* Marking (remark.h), written by the egress task as the frame
	 * leaves (the owner thread, after sched_dequeue()): frames that left
	 * with the class's DSCP / PCP, frames of a PCP-setting class without
	 * a tag, of a DSCP-setting class without an IP header, and frames
	 * whose headers were not where their meta says (left as they are) */
	ctr_t dscp_rewritten;
	ctr_t pcp_rewritten;
	ctr_t pcp_untagged;
	ctr_t dscp_not_ip;
	ctr_t remark_invalid;
	ctr_t sojourn[SCHED_HIST_BUCKETS]; /* packets by queueing time */
} __cacheline_aligned;

/* Queue depth of a class, derived from its counters, from any thread.
 * sent and flushed are read before enq: all only grow and enq >= sent +
 * flushed at every instant, so the difference is never negative. */
static inline uint64_t sched_depth_packets(const struct sched_class_stats *st)
{
	uint64_t gone =
		ctr_read(&st->sent_packets) + ctr_read(&st->flushed_packets);

	return ctr_read(&st->enq_packets) - gone;
}

static inline uint64_t sched_depth_bytes(const struct sched_class_stats *st)
{
	uint64_t gone =
		ctr_read(&st->sent_bytes) + ctr_read(&st->flushed_bytes);

	return ctr_read(&st->enq_bytes) - gone;
}

struct sched_entry {
	struct frame_desc d;
	uint64_t t_enq;
};

/* Per-class state (internal). The first cache line holds everything an
 * enqueue or a dequeue of a FIFO class reads or writes but the buckets:
 * the ring, the queue's indices and bytes, the limits, the DWRR quantum
 * and deficit, the flags; the ceiling bucket starts the second line, the
 * minimum and RED (touched only while the queue is deep) follow. */
struct sched_class {
	struct sched_entry *ring;
	struct flowq *fq; /* DCQCN class: its flows hold the frames (not
			   * `ring`); head/tail still count them */
	uint32_t mask; /* ring size - 1 */
	uint32_t head, tail; /* free running */
	uint32_t bytes; /* queued now (frame lengths) */
	uint32_t limit_packets;
	uint32_t limit_bytes;
	/* RED at enqueue can choose a frame only when the queue holds at
	 * least this many bytes: red.kmin for a class with ECN, else
	 * UINT32_MAX. Below it sched_enqueue() takes its fast path (the
	 * marking probability is 0: no random number is drawn) */
	uint32_t red_from;
	uint32_t quantum;
	uint32_t deficit; /* 0 if empty, else < quantum + largest charge */
	uint8_t id; /* policy class id */
	uint8_t level; /* dense level index, 0 first */
	bool lossless; /* queue limit hit: SCHED_DROP_LOSSLESS_OVERFLOW */
	bool ecn;
	bool nonect_drop;
	struct tbucket ceil __attribute__((aligned(CACHELINE)));
	struct tbucket min;
	struct ecn_red red;
} __cacheline_aligned;

struct sched {
	/* slots are the classes sorted by (level, class id): bit i of the
	 * masks is slot i, and the lowest set bit is the highest priority */
	uint32_t active; /* backlogged slots */
	uint32_t ceil_mask; /* slots with a ceiling */
	uint32_t min_mask; /* slots with a guaranteed minimum */
	uint32_t n_slots;
	uint32_t overhead;
	uint32_t backlog; /* packets queued, all classes */
	bool port_shaped;
	uint8_t n_levels;
	uint8_t slot_of[16]; /* class id -> slot, 0xff: none */
	uint8_t slot_level[QOS_MAX_CLASSES]; /* dense level index of a slot */
	uint8_t drr_pos[QOS_MAX_CLASSES]; /* per level: slot holding the turn */
	uint32_t level_mask[QOS_MAX_CLASSES]; /* per level: its slots */
	uint8_t default_slot; /* where a reload puts removed classes' frames */
	uint32_t fq_mask; /* slots of DCQCN classes */
	/* PFC: slots paused until paused_until[slot] (pause_mask: those
	 * with a deadline, cleared lazily by sched_dequeue once it passed);
	 * pcp_slots[p]: the slots of the classes with 802.1p priority p */
	uint32_t pause_mask;
	uint32_t lossless_mask;
	uint32_t pcp_slots[8];
	uint64_t paused_until[QOS_MAX_CLASSES];
	/* marking (remark.h): the slots whose class sets a DSCP or a PCP,
	 * and what each slot's class sets. The scheduler only keeps them
	 * (they follow the classes across a reload); the owner applies
	 * them to the frames sched_dequeue() hands out (egress.c) */
	uint32_t remark_mask;
	struct remark_cfg remark[QOS_MAX_CLASSES];
	uint8_t *frame_base; /* frame = frame_base + addr (flow keys on a
			      * reload); NULL: no frame bytes */
	uint64_t rng;
	struct tbucket port;
	struct sched_entry *mem;
	ctr_t bad_class; /* frames with a class id the policy lacks */
	ctr_t reloads; /* sched_reconfigure() calls applied */
	ctr_t reload_requeued; /* frames moved to the default class by one */
	struct sched_class cl[QOS_MAX_CLASSES];
	struct sched_class_stats st[QOS_MAX_CLASSES];
	/* cold: the port shaper's rate now (sched_set_port_rate; the
	 * policy's rate after init or a reload) and, per slot, the shares of
	 * it a class's ceiling and minimum were given as (parts of 65536; 0:
	 * an absolute rate or none): they follow the port's rate */
	uint64_t port_bps;
	uint32_t queue_share; /* the port's queues sharing the policy's rates
			       * (sched_set_queue_share); 0 or 1: one */
	/* the policy's values for the port as a whole (shares resolved
	 * against its rate, not divided by queue_share): the port's rate
	 * and, per slot, the class's ceiling and minimum (0: none), what
	 * sched_set_parts() takes parts of */
	uint64_t whole_port_bps;
	uint64_t whole_ceil_bps[QOS_MAX_CLASSES];
	uint64_t whole_min_bps[QOS_MAX_CLASSES];
	uint32_t ceil_share[QOS_MAX_CLASSES];
	uint32_t min_share[QOS_MAX_CLASSES];
	/* cold: reload support */
	uint32_t cap; /* entries per ring when reloadable, else 0 */
	struct sched_entry *rings[QOS_MAX_CLASSES]; /* every ring in mem */
	char name[QOS_MAX_CLASSES][QOS_NAME_MAX]; /* class name per slot */
	struct sched_scratch *scratch; /* reconfigure's work area */
};

/* Build the scheduler of port `port` (0 or 1) of a pair from the policy; the
 * policy is not referenced afterwards. Returns 0, -EINVAL (a class with
 * quantum 0 or above SCHED_MAX_QUANTUM, limit_packets 0 or above SCHED_MAX_QUEUE_PACKETS, limit_bytes
 * 0, a share above 100 %, a rate above TB_MAX_RATE, bad ECN
 * thresholds, a set_dscp above 63 or set_pcp above 7, n_classes 0 or
 * above QOS_MAX_CLASSES) or -ENOMEM. */
int sched_init(struct sched *s, const struct qos_policy *pol, int port,
	       uint64_t now_ns);
/* The same, reloadable: max_queued (> 0) bounds the frames that can ever be
 * queued at once (the producers' frame count); every class gets a ring of
 * that capacity (rounded up to a power of two), one per possible class, so
 * that sched_reconfigure() never allocates. limit_packets above it is cut
 * to it. */
int sched_init_reloadable(struct sched *s, const struct qos_policy *pol,
			  int port, uint32_t max_queued, uint64_t now_ns);
/* Would sched_init() accept this policy for this port? 0 or -EINVAL. For
 * the control plane, before it publishes a policy. */
int sched_check_policy(const struct qos_policy *pol, int port);

/*
 * Live reload, by the owner thread, between two calls of the hot path:
 * take the new policy's classes, rates, weights, limits and RED settings
 * without losing a frame. Classes are matched by name: a class that keeps
 * its name keeps its queued frames (FIFO order and enqueue times), its
 * counters, its DWRR deficit (cut to the new quantum) and the levels of its
 * ceiling, minimum and port buckets (tokens kept, cut to the new burst; a
 * bucket that did not exist starts full). A removed class's frames move to
 * the new default class (counted there as enqueued, and in
 * reload_requeued); a new class starts empty with zero counters. Queues may
 * exceed their new limits until they drain; nothing is dropped. Returns 0,
 * -EINVAL (the policy is refused, the scheduler is unchanged) or
 * -EOPNOTSUPP (not initialised with sched_init_reloadable()).
 * Readers of the counters must not read during the call: a class's counters
 * move with it to its new slot.
 */
int sched_reconfigure(struct sched *s, const struct qos_policy *pol, int port,
		      uint64_t now_ns);
void sched_fini(struct sched *s);

/*
 * One of n egress queues of the port, each with its own scheduler: the
 * port's rate and every class's ceiling and minimum (absolute or share)
 * are divided by n in this scheduler, so the queues together keep the
 * policy's rates; these even parts are where the queue starts, and where
 * a reload puts it back: sched_set_parts() moves them (the rebalancer,
 * run/qrate.h). Bursts are not divided. Kept across reloads. By the owner or at set-up (it reconfigures: the
 * policy given must be the one running). 0 or sched_reconfigure()'s
 * error (then unchanged).
 */
int sched_set_queue_share(struct sched *s, uint32_t n,
			  const struct qos_policy *pol, int port,
			  uint64_t now_ns);

/*
 * One of a port's queues takes its parts of the port's values (the queue
 * rebalancer, run/qrate.h): its port bucket refills at port_part of the
 * policy's port rate, and each class's ceiling and minimum at
 * class_part[class id] of the class's (for the port as a whole, shares
 * resolved against the policy's port rate); parts are of
 * SCHED_PART_ONE, a rate rounded down and never below 1 bit/s, so the
 * queues' rates add up to at most the port's when their parts add up to
 * SCHED_PART_ONE. Buckets keep their tokens (or debt) and bursts. Until
 * the next call, a reload (the policy's rates divided by queue_share
 * again) or sched_set_port_rate(). By the owner thread, between two calls
 * of the hot path; not per packet (divisions).
 */
#define SCHED_PART_ONE (1ull << 32)
/* part of bps (parts of SCHED_PART_ONE), rounded down, at least 1: the
 * rate sched_set_parts() gives a bucket. */
static inline uint64_t sched_part_of(uint64_t bps, uint64_t part)
{
	__extension__ typedef unsigned __int128 u128;
	uint64_t r = (uint64_t)(((u128)bps * part) >> 32);

	return r ? r : 1;
}
void sched_set_parts(struct sched *s, uint64_t port_part,
		     const uint64_t class_part[QOS_MAX_CLASSES],
		     uint64_t now_ns);

/*
 * A new rate for the port shaper of a shaped port (the adaptive egress
 * controller, run/adaptive.h): the port bucket refills at rate_bps from
 * now_ns on (tokens or debt kept, burst unchanged), and the ceilings and
 * minimums given as a share of the port's rate follow it (absolute ones
 * stay). Until the next call or reload; a reload (sched_reconfigure)
 * starts again from the policy's rate. By the owner thread, between two
 * calls of the hot path; not per packet (divisions). Returns 0, -EINVAL
 * (rate 0 or above TB_MAX_RATE; nothing changed) or -ENOENT (the port is
 * not shaped).
 */
int sched_set_port_rate(struct sched *s, uint64_t rate_bps, uint64_t now_ns);
static inline uint64_t sched_port_rate(const struct sched *s)
{
	return s->port_bps;
}
void sched_seed(struct sched *s, uint64_t seed);

/* Queue a frame: d->meta packed as above, frame = its first byte (may be
 * written: CE marking). Returns 0 if queued (possibly CE-marked), or an
 * enum sched_drop > 0 and the caller still owns the frame. */
int sched_enqueue(struct sched *s, const struct frame_desc *d, uint8_t *frame,
		  uint64_t now_ns);

/* Dequeue up to max frames allowed at now_ns by the classes and the
 * shaper, in scheduling order. */
uint32_t sched_dequeue(struct sched *s, struct frame_desc *out, uint32_t max,
		       uint64_t now_ns);

/* Earliest time >= now_ns at which a queued frame becomes sendable (for the
 * worker's sleep); UINT64_MAX when empty. Off the per-packet path (divides). */
uint64_t sched_next_event_ns(const struct sched *s, uint64_t now_ns);

static inline uint32_t sched_backlog_packets(const struct sched *s)
{
	return s->backlog;
}

/*
 * PFC (pfc.h): the classes of 802.1p priority pcp send nothing before
 * until_ns (0, or a time <= now: not paused). The dequeue selection skips
 * them (one mask test per call when nothing is paused); their frames wait,
 * and sched_next_event_ns() counts the deadline. A reload clears every
 * pause (the owner applies them again). Returns the slots concerned.
 */
uint32_t sched_pause_pcp(struct sched *s, unsigned int pcp, uint64_t until_ns);
/* PFC watchdog: drop every frame queued in the classes of priority pcp,
 * DCQCN classes included (their flows are emptied and go idle, keeping
 * their rates), each counted in drops[SCHED_DROP_PFC_WATCHDOG] and in
 * flushed_packets/bytes; fn gets each frame (its owner takes it back).
 * Returns the frames dropped. now_ns: when (the emptied flows' idle time
 * starts then). */
uint32_t sched_flush_pcp(struct sched *s, unsigned int pcp, uint64_t now_ns,
			 void (*fn)(const struct frame_desc *, void *),
			 void *arg);

/* Call fn on every queued frame, per class in FIFO order (census). */
void sched_foreach(struct sched *s,
		   void (*fn)(const struct frame_desc *, void *), void *arg);

/* Where frame bytes are (frame = base + addr), for the flow keys of
 * frames a reload moves between classes; NULL: key them as non-IP. */
static inline void sched_set_frame_base(struct sched *s, uint8_t *base)
{
	s->frame_base = base;
}

/* The flows of the DCQCN class in slot `slot`, NULL if it has none. */
static inline struct flowq *sched_slot_flowq(const struct sched *s,
					     unsigned int slot)
{
	return slot < s->n_slots ? s->cl[slot].fq : NULL;
}

/* May a scheduler running `old` take `next` with sched_reconfigure()?
 * DCQCN classes hold flow tables allocated at start: the names of the
 * classes with dcqcn set must be the same in both (and max_flows). 0 or
 * -EINVAL. */
int sched_reload_compatible(const struct qos_policy *old,
			    const struct qos_policy *next);

/* The line rate DCQCN flows of egress port `port` start at: bit/s, 0 if
 * neither dcqcn.par.line_bps nor the port rate gives one. */
double sched_dcqcn_line_bps(const struct qos_policy *pol, int port);

/* Counters of a policy class id; NULL if the policy has no such class. */
const struct sched_class_stats *sched_class_stats(const struct sched *s,
						  unsigned int class_id);

#endif

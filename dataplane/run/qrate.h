/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * qrate.h - the queue rebalancer of a port: the port's rate and each
 * class's ceiling and minimum hold for the port as a whole, whichever
 * queues its flows hash to (docs/decisions/0018-queue-rate-split.md).
 *
 * Each egress queue of the port keeps its own scheduler and buckets
 * (tc_sched.h: owned by its worker, no shared state per packet). What
 * moves between the queues is parts (of QRATE_ONE) of the port's values:
 *  - demand: each queue's task publishes after its dequeue, at most
 *    every QRATE_PUB_NS,
 *    what its scheduler charged per class so far (bytes, len + overhead)
 *    and the bytes queued per class now, in its row of struct
 *    qrate_port (relaxed atomic words, one writer);
 *  - split: every QRATE_PERIOD_NS the first queue task of the port whose
 *    pass finds the period due (a try-lock: none waits) turns the rows
 *    into parts (qrate_split): per queue, for the port's rate and for
 *    each class id, max-min fair over what each queue wants. A queue
 *    wants "all it can get" when it held a backlog and sent at least
 *    half its part; otherwise QRATE_HEADROOM x what it sent plus its
 *    backlog over one period. Every queue keeps at least 1 /
 *    QRATE_FLOOR_DIV of an even part (an idle queue ramps up from
 *    there within a period or two), and what nobody wants is spread
 *    evenly (work-conserving: the parts add up to QRATE_ONE exactly);
 *  - apply: each queue's task, before its dequeue, reads its parts (a
 *    sequence lock; a pass that meets a write applies at its next pass)
 *    and gives them to its scheduler (sched_set_parts: rates rounded
 *    down, so the queues' rates never add up to more than the port's);
 *    a worker that slept takes them before it sends.
 * One busy queue of n gets the port's rate less n - 1 floors; k busy
 * queues get equal parts.
 *
 * Adaptive egress (adaptive.h) on a port: its controllers each run one
 * queue between its even parts of ports[].rate and the floor, as they
 * measure that queue's flows; the queue tasks then leave their
 * schedulers to the controllers and apply no parts (the rows are still
 * published). A reload that turns adaptive off applies the parts again.
 *
 * Per pass, with nothing due, a queue task reads two words of the
 * port's shared line (written once per period) and compares its own
 * clock: bench/micro/qrate_bench measures it.
 *
 * Ownership: struct qrate_port is the port's, allocated by set-up
 * (qrate_init) and freed after the workers stopped. Its row dem[q] has
 * one writer, the task of queue q; part[] and the split's state are
 * written by the holder of `busy` only; seq and due_ns by that holder,
 * read by every queue task. struct qrate_queue belongs to the queue's
 * task. shaper_bps, the rate the queue's port bucket runs at now, is
 * written by that task, read by anyone (ctr_read).
 */
#ifndef XDPLANE_QRATE_H
#define XDPLANE_QRATE_H

#include <stdbool.h>
#include <stdint.h>
#include "bits.h"
#include "counters.h"
#include "qos.h"
#include "tc_sched.h"

#define QRATE_MAX_QUEUES 64 /* GW_MAX_QUEUES */
#define QRATE_ONE SCHED_PART_ONE
#define QRATE_PERIOD_NS 1000000ull /* the split, every 1 ms */
#define QRATE_PUB_NS 250000ull /* a queue's demand, every 250 us */
#define QRATE_FLOOR_DIV 32 /* a queue keeps 1/32 of an even part */
#define QRATE_HEADROOM 1.25 /* an unconstrained queue: 1.25 x its rate */

/* A queue's demand (written by its task, relaxed). By class id; the
 * totals are the policy's for the port as a whole (bit/s, 0: none): the
 * port's rate, and per class the rate its part is a part of (its
 * ceiling, else its minimum). */
struct qrate_demand {
	uint64_t t_ns; /* of the snapshot; 0: none yet */
	uint64_t port_bps;
	uint64_t capped; /* class ids whose class_bps is a ceiling */
	uint64_t sent[QOS_MAX_CLASSES]; /* bytes charged, cumulative */
	uint64_t queued[QOS_MAX_CLASSES]; /* bytes queued now */
	uint64_t class_bps[QOS_MAX_CLASSES];
} __cacheline_aligned;

/* A queue's parts, of QRATE_ONE. */
struct qrate_part {
	uint64_t port;
	uint64_t cls[QOS_MAX_CLASSES];
};

struct qrate_port {
	/* the shared line: read by every queue task each pass */
	uint64_t seq __attribute__((aligned(CACHELINE))); /* odd: part[]
							   * being written */
	uint64_t due_ns; /* next split */
	uint32_t busy; /* the split's try-lock */
	uint32_t n; /* queues */
	ctr_t splits; /* splits made */
	/* the split's state (the holder of busy) */
	uint64_t last_t[QRATE_MAX_QUEUES]; /* dem[q].t_ns at the last split */
	uint64_t last_sent[QRATE_MAX_QUEUES][QOS_MAX_CLASSES];
	struct qrate_part part[QRATE_MAX_QUEUES]; /* published (seq) */
	/* the port bucket's rate of each queue by the last split (what
	 * sched_set_parts makes of its part; 0: none yet or unshaped),
	 * for the readers: a queue whose worker sleeps takes it at its
	 * next pass, before it sends */
	ctr_t rate_bps[QRATE_MAX_QUEUES];
	struct qrate_demand dem[QRATE_MAX_QUEUES];
};

/* A queue task's side. */
struct qrate_queue {
	struct qrate_port *p; /* NULL: alone on its port, nothing to do */
	uint32_t q;
	uint64_t applied_seq; /* seq of the parts applied; 0: none */
	uint64_t pub_ns; /* next demand publication */
	bool applying; /* the parts go to the scheduler (adaptive off);
			* relaxed, for the readers */
	ctr_t shaper_bps; /* the port bucket's rate now (0: unshaped) */
};

/* The rate queue qq's port bucket runs at, or takes at its next pass
 * (bit/s; 0: unshaped). Thread: any. */
static inline uint64_t qrate_shown_bps(const struct qrate_queue *qq)
{
	const struct qrate_port *p = qq->p;

	if (p && __atomic_load_n(&qq->applying, __ATOMIC_RELAXED) &&
	    ctr_read(&p->splits))
		return ctr_read(&p->rate_bps[qq->q]);
	return ctr_read(&qq->shaper_bps);
}

/* n queues (1..QRATE_MAX_QUEUES), even parts published. Thread:
 * set-up. */
void qrate_init(struct qrate_port *p, uint32_t n);
/* Queue q of p (p NULL: none). Thread: set-up. */
void qrate_attach(struct qrate_queue *qq, struct qrate_port *p, uint32_t q);
/* Apply the parts again at the next qrate_poll() (after a reload: the
 * scheduler is back at even parts). Thread: the owner. */
static inline void qrate_reapply(struct qrate_queue *qq)
{
	qq->applied_seq = 0;
}

/* The pure split (tests): n queues, want[q] in bit/s (<0: all it can
 * get), of total bit/s; part[q] out, adding up to QRATE_ONE. */
void qrate_split(uint32_t n, const double *want, double total, uint64_t *part);

/* The slow paths of qrate_poll() and qrate_publish(). */
void qrate_work(struct qrate_queue *qq, struct sched *s, bool apply,
		uint64_t now_ns);
void qrate_publish_demand(struct qrate_queue *qq, const struct sched *s,
			  uint64_t now_ns);

/* Each pass of the queue's task, before its dequeue: split when due,
 * apply new parts to s (when `apply`: not while adaptive egress runs
 * the scheduler's rate), so that a worker waking from a sleep sends at
 * its part of now. Thread: the owner. Syscalls: none. */
static inline void qrate_poll(struct qrate_queue *qq, struct sched *s,
			      bool apply, uint64_t now_ns)
{
	const struct qrate_port *p = qq->p;

	if (!p)
		return;
	if (unlikely(__atomic_load_n(&p->seq, __ATOMIC_RELAXED) !=
			     qq->applied_seq ||
		     now_ns >= __atomic_load_n(&p->due_ns, __ATOMIC_RELAXED)))
		qrate_work(qq, s, apply, now_ns);
}

/* Each pass, after its dequeue: publish the queue's demand when due
 * (what its classes sent, what they still hold). Thread: the owner.
 * Syscalls: none. */
static inline void qrate_publish(struct qrate_queue *qq, const struct sched *s,
				 uint64_t now_ns)
{
	if (qq->p && unlikely(now_ns >= qq->pub_ns))
		qrate_publish_demand(qq, s, now_ns);
}

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * egress.h - the egress task of one (port, queue): transmits the frames that
 * RX tasks of the other port handed over, and returns every completed frame
 * to the RX task that owns it.
 *
 * A pass: take completions back; drain the input handoff rings into the
 * traffic-class scheduler (tc_sched.h; a frame it refuses goes back to its
 * owner and is counted by the scheduler by reason); let the scheduler pick
 * what may leave now; put that on the TX ring; kick. The clock is read once
 * per pass.
 *
 * Ownership: run by exactly one worker thread. It owns the producer side of
 * its socket's TX ring, the consumer side of its completion ring, the
 * consumer side of its input handoff rings and the producer side of the
 * return rings. Its counters have that thread as their only writer.
 *
 * DCQCN (classes with dcqcn): each pass first takes the feedback events
 * (CNPs and ACKs seen by the RX tasks of this port, hints) to the flows of
 * its scheduler, and after transmitting turns the CNPs that the flows' NP
 * rule made due into CNP frames for the other port (flowq.h, roce.h).
 *
 * Frames built for the other port (CNPs, PFC frames) travel through the
 * NP handoff ring np_out to the other port's egress task of the same
 * queue, which may run on ANOTHER worker, hence at another policy
 * generation for a while during a reload (policy.h). So what crosses it
 * carries no class id: a CNP goes with FRAME_META_UNCLASSIFIED and the
 * task that takes it parses and classifies it with its own classifier
 * (the generation its scheduler runs); a PFC frame goes with
 * FRAME_META_CTRL and bypasses the classes. The frames are the producer's
 * unit's (np_pool) and come back through the matching return ring.
 * A frame counts in a flow's cnps_sent (and np_cnps) only once it is on
 * that ring; every other outcome is counted by reason (np_no_frame,
 * np_out_full, np_build_failed).
 *
 * Marking (qos_class.set_dscp / set_pcp, remark.h): the frames the
 * scheduler hands out in a class that sets a DSCP or a PCP get them once,
 * between sched_dequeue() and the TX descriptor (the first frame of a
 * chain holds the headers); the class is the one in the frame's meta,
 * mapped to its scheduler slot (sched.remark_mask, sched.remark[]), so
 * the settings follow the classes across a reload. Frames of other
 * classes cost one test of that mask per pass. Counted per class in
 * sched_class_stats (dscp_rewritten, pcp_rewritten, pcp_untagged,
 * dscp_not_ip, remark_invalid), written by this task only.
 *
 * Queues of a port (qrate.h): after its dequeue, each pass lets the
 * port's rebalancer publish this queue's demand, split the port's rates
 * between the queues and give this queue's parts to its scheduler (all
 * at most once per period: a pass with nothing due reads two shared
 * words).
 *
 * Adaptive egress (ports[].adaptive, adaptive.h): with it on, each pass
 * first takes the path events the RX tasks of this port posted and lets
 * the controller set the scheduler's port rate; the packets the
 * scheduler hands out are recorded as departures before their TX
 * descriptors are written. Off, it costs one test per pass.
 *
 * Multi-buffer (egress_task_set_multibuf): a packet may be a chain of
 * frames (frame_chain.h). The task dequeues only as many packets as the
 * TX ring has room for at max_frags descriptors each, so a chain is always
 * written whole (XDP_PKT_CONTD on all but its last descriptor); a chain
 * the scheduler refuses goes back frame by frame. With max_frags 1 (the
 * MTU fits one frame) the TX loop is the single-buffer one.
 *
 * TX kick: in copy mode the kernel transmits only from sendto(), at most a
 * few dozen frames per call, so the task kicks until the TX ring is empty or
 * the kernel stops accepting (bounded per pass). In zero-copy mode one kick
 * is a wake-up for the driver's NAPI, done only when the ring asks for it.
 *
 * Contracts (per function below): "Thread" says who may call it;
 * "Syscalls" every system call it may issue ("logs": ioctl(2, TCGETS)
 * and write(2) of log.h; "allocates": malloc/free, which may add brk,
 * mmap, munmap; the clock is the vDSO's, no syscall). Set-up means: by
 * the control thread, before the worker that runs the task starts.
 * Errors: 0 or -errno.
 */
#ifndef XDPLANE_EGRESS_H
#define XDPLANE_EGRESS_H

#include <stdbool.h>
#include "adaptive.h"
#include "classify.h"
#include "bits.h"
#include "counters.h"
#include "feedback.h"
#include "frame.h"
#include "frame_chain.h"
#include "log.h"
#include "pfc.h"
#include "qrate.h"
#include "tc_sched.h"
#include "umem.h"
#include "xsk_queue.h"

#define EGRESS_MAX_INPUTS 8
#define EGRESS_MAX_OWNERS 128
#define EGRESS_MAX_BATCH 256
#define EGRESS_KICK_BACKOFF_NS 10000000ull /* 10 ms, see kick_after */
#define EGRESS_MAX_FEEDBACK 65 /* one per RX task of the port, + hints */

struct egress_counters {
	ctr_t packets; /* packets placed on the TX ring (submitted) */
	ctr_t bytes; /* their bytes */
	ctr_t completed; /* TX descriptors the kernel completed: frames,
			  * so a chain counts each of its frames and the
			  * PFC frames sent count too */
	ctr_t kicks; /* sendto() calls */
	ctr_t kick_errors; /* sendto() failures other than "try again" */
	ctr_t foreign_frames; /* completed frame with no owner: a bug */
	ctr_t fb_events; /* DCQCN feedback events taken */
	ctr_t np_cnps; /* CNP frames handed to the other port (NP) */
	ctr_t np_no_frame; /* a CNP was due, no free frame */
	ctr_t np_out_full; /* a CNP was due, the other port's ring full */
	ctr_t np_build_failed; /* a CNP was due, it could not be built */
	ctr_t chains; /* multi-buffer packets sent */
	ctr_t chain_no_room; /* a chain the TX ring could not take whole:
			      * dropped (cannot happen: room is reserved) */
	ctr_t drop_port_down; /* handed over while the port was gone */
} __cacheline_aligned;

/* PFC counters of an egress task (see "PFC" below). */
struct egress_pfc_counters {
	ctr_t tx_xoff[PFC_PRIOS]; /* XOFF frames built for the other port */
	ctr_t tx_xon[PFC_PRIOS]; /* XON (time 0) frames built for it */
	ctr_t tx_no_frame; /* a PFC frame was due: no free frame or the
			    * other port's ring full (decided again later) */
	ctr_t ctrl_sent; /* MAC control frames put on this port's TX ring */
	ctr_t ctrl_ring_full; /* ...dropped: the TX ring was full */
	ctr_t watchdog_drops[PFC_PRIOS]; /* frames flushed by the watchdog */
} __cacheline_aligned;

struct egress_task {
	struct xsk_queue *xq;
	const struct umem_area *umem;
	struct handoff_ring *in[EGRESS_MAX_INPUTS];
	uint32_t n_in;
	struct return_ring *ret_by_owner[EGRESS_MAX_OWNERS];
	uint32_t batch;
	uint32_t outstanding; /* submitted to TX, not completed yet */
	uint32_t max_frags; /* TX descriptors per packet, at most (1: single
			     * buffer) */
	bool copy_mode;
	int port; /* egress port of the pair, 0 or 1 */
	struct log_ratelimit kick_rl;
	/* A kick failed for good (ENETDOWN: the port is down; ENXIO): no new
	 * kick before this time, so that a down port does not keep the worker
	 * spinning on failed sendto()s (EGRESS_KICK_BACKOFF_NS). */
	uint64_t kick_after;
	/* DCQCN: feedback in (RX tasks of this port, hints from the control
	 * thread); NP out: CNP frames, in frames of np_pool (the RX task of
	 * the same worker unit), to the egress task of the other port */
	struct feedback_ring *fb_in[EGRESS_MAX_FEEDBACK];
	uint32_t n_fb_in;
	struct frame_pool *np_pool;
	struct handoff_ring *np_out;
	/* the classifier of the generation this task runs: classifies the
	 * unclassified frames (CNPs) other tasks hand it */
	const struct classifier *cls;
	const struct qos_dcqcn *dcq; /* NP DSCP/PCP; set with cls */
	uint16_t np_ip_id;
	int np_wake_fd; /* the consumer's worker, when not ours; -1 */
	/* The port's interface vanished (deleted): written by the control
	 * thread (gateway_port_set_down), read by the owner each pass. While
	 * set, frames handed over are given back and counted drop_port_down,
	 * queued ones stay queued, nothing is sent or kicked. */
	bool port_down;
	struct egress_counters ctr;
	/* PFC (pfc.h), with pfc.enabled in the policy (pfc_on):
	 *  - pause: PFC frames received on this task's port arrive as
	 *    FB_PFC events (feedback.h); pfc_rx keeps the pause of the
	 *    port's 8 priorities and the watchdog, and the scheduler skips
	 *    the classes of a paused pcp (sched_pause_pcp); a storm flushes
	 *    them (sched_flush_pcp, watchdog_drops).
	 *  - send: each 802.1p priority that has lossless classes drives
	 *    one pfc_tx hysteresis on the bytes queued in those classes
	 *    (each pass; thresholds: the sum of theirs); XOFF/XON frames
	 *    are built in np_pool's frames and handed to the other port's
	 *    egress task through np_out (as CNPs are), meta
	 *    FRAME_META_CTRL: that task puts them on its TX ring at once.
	 *    The other port is the one the class's traffic comes from.
	 *    The state is kept by priority, not by scheduler slot, so a
	 *    reload that reorders, adds or removes classes sends no XON
	 *    for a priority that was never paused and misses no XON: a
	 *    priority that stops being lossless while its XOFF is
	 *    outstanding is owed an XON (pfc_tx_release) until one is
	 *    sent.
	 * Every egress task of a port gets every PFC event: each queue keeps
	 * its own copy of the port's pause state. */
	bool pfc_on;
	uint8_t pfc_mac[6]; /* source MAC of the PFC frames we send */
	uint8_t pfc_tx_pcps; /* priorities with lossless classes */
	uint8_t pfc_tx_release; /* priorities owed an XON (see above) */
	uint32_t pfc_tx_slots[PFC_PRIOS]; /* by priority: its lossless
					   * classes' scheduler slots */
	struct pfc_tx_cfg pfc_txc[PFC_PRIOS]; /* by priority */
	struct pfc_tx pfc_tx[PFC_PRIOS]; /* by priority, across reloads */
	struct pfc_rx pfc_rx;
	struct egress_pfc_counters pfc;
	/* adaptive egress (adaptive.h): the port shaper's rate follows the
	 * path beyond the port, from the departures this task records and
	 * the events the RX tasks of the port post */
	struct port_adaptive adapt;
	/* the port's queue rebalancer (qrate.h): this queue's parts of the
	 * port's rates; qrate.shaper_bps, the rate the port bucket runs at */
	struct qrate_queue qrate;
	struct sched sched;
};

/* The scheduler is built from `pol` for egress port `port` (0 or 1).
 * max_queued: the frames the task's producers own in all (their UMEM
 * partitions); with it the scheduler is reloadable (tc_sched.h), 0: not.
 * 0, -EINVAL (the policy) or -ENOMEM. Thread: set-up. Syscalls:
 * allocates (the class rings, faulted in at once; the DCQCN flow
 * tables). */
int egress_task_init(struct egress_task *t, struct xsk_queue *xq,
		     const struct umem_area *umem, uint32_t batch,
		     const struct qos_policy *pol, int port,
		     uint32_t max_queued);

/* Live reload, by the owner thread: first every frame waiting in the input
 * handoff rings enters the scheduler under the policy it was classified
 * with, then the scheduler takes the new policy (sched_reconfigure). The
 * caller guarantees that the producers of the input rings (RX tasks) are
 * quiescent -- they run on the same thread -- and switch to the new
 * classifier before they run again. Returns 0 or sched_reconfigure()'s
 * error (the old policy stays). Thread: the worker that runs the task (at
 * a switch), or set-up. Syscalls: none (the scheduler does not allocate
 * on a reload). */
int egress_task_reconfigure(struct egress_task *t,
			    const struct qos_policy *pol);
/* Thread: the control thread, once the worker has stopped. Syscalls:
 * allocates (free). */
void egress_task_fini(struct egress_task *t);
/* Thread: set-up. Syscalls: none. 0 or -ENOSPC. */
int egress_task_add_input(struct egress_task *t, struct handoff_ring *in,
			  uint32_t owner, struct return_ring *ret);
/* Thread: set-up. Syscalls: none. 0 or -ENOSPC. */
int egress_task_add_feedback(struct egress_task *t, struct feedback_ring *r);
/* The task is one of the n egress queues of its port: the policy's rates
 * are shared among them, even parts at first (sched_set_queue_share;
 * the port's rebalancer moves them, egress_task_set_qrate; adaptive
 * egress runs each queue between its even parts of the floor and the
 * rate). pol: the
 * running policy. Thread: set-up. Syscalls: none. 0 or -errno. */
int egress_task_set_queues(struct egress_task *t, uint32_t n,
			   const struct qos_policy *pol);
/* The task is queue q of the port whose rebalancer is p (qrate.h): its
 * scheduler's rates follow its parts of the port's, each pass. Thread:
 * set-up. Syscalls: none. */
void egress_task_set_qrate(struct egress_task *t, struct qrate_port *p,
			   uint32_t q);
/* Path events (adaptive.h) from ring r too: one per RX task of the
 * port. Thread: set-up. Syscalls: none. 0 or -ENOSPC. */
int egress_task_add_path(struct egress_task *t, struct pathmon_ring *r);
/* Multi-buffer on (max_frags >= 2) or off (0 or 1). Thread: set-up only.
 * Syscalls: none. */
void egress_task_set_multibuf(struct egress_task *t, uint32_t max_frags);

/* One pass: returns the number of frames it moved. Thread: the worker
 * that runs the task. Syscalls: sendto(MSG_DONTWAIT) on the socket (the
 * TX kicks above); write(2) on np_wake_fd (an eventfd) when a frame goes
 * to the other port's task on another worker; logs, rate-limited (a kick
 * that fails, a PFC watchdog storm); nothing else. */
uint32_t egress_task_poll(struct egress_task *t);
/* The same at time now (CLOCK_MONOTONIC ns, read by the caller once for
 * the worker's whole pass: a clock read was 5 % of the gateway core at
 * 64 B). now may be a few microseconds old: the shapers then see less
 * time pass, never more. */
uint32_t egress_task_poll_at(struct egress_task *t, uint64_t now);

/* When a queued frame becomes sendable (UINT64_MAX: nothing queued).
 * Thread: the worker that runs the task. Syscalls: none. */
static inline uint64_t egress_task_next_event(const struct egress_task *t,
					      uint64_t now_ns)
{
	if (unlikely(__atomic_load_n(&t->port_down, __ATOMIC_RELAXED)))
		return UINT64_MAX; /* nothing will leave: do not spin */
	if (unlikely(t->kick_after > now_ns))
		return t->kick_after; /* kicks fail (link down): retry then */
	if (unlikely(t->pfc_rx.paused)) {
		uint64_t p = pfc_rx_next_ns(&t->pfc_rx), s = UINT64_MAX;

		if (sched_backlog_packets(&t->sched) || t->sched.fq_mask)
			s = sched_next_event_ns(&t->sched, now_ns);
		return MIN(MAX(p, now_ns), s);
	}
	return sched_backlog_packets(&t->sched) || t->sched.fq_mask
		       ? sched_next_event_ns(&t->sched, now_ns)
		       : UINT64_MAX;
}

/* Census of a stopped task: frames held in the scheduler's queues.
 * Thread: the control thread, once the worker has stopped. Syscalls:
 * none. */
void egress_task_census(struct egress_task *t, struct umem_census *c);

/* PFC: the policy's settings (init and each reload). Thread: the worker
 * that runs the task, or set-up. Syscalls: none. */
void egress_task_set_pfc(struct egress_task *t, const struct qos_policy *pol);
/* Source MAC of the PFC frames this task sends: the MAC of interface
 * ifindex (the other port). 0 or -errno. Thread: set-up. Syscalls:
 * socket(AF_UNIX) + ioctl(SIOCGIFNAME) + close (if_indextoname),
 * socket(AF_INET, SOCK_DGRAM), ioctl(SIOCGIFHWADDR), close. */
int egress_task_set_pfc_mac(struct egress_task *t, int ifindex);

#endif

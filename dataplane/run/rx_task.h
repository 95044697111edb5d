/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rx_task.h - the RX task of one (port, queue): takes frames off the socket's
 * RX ring and hands them to the egress task of the other port; keeps the
 * fill ring stocked from its frame pool.
 *
 * Ownership: an RX task is run by exactly one worker thread. It owns its
 * UMEM partition's frame pool, the producer side of its socket's fill ring,
 * the consumer side of its RX ring, the producer side of its handoff ring
 * and the consumer side of its return rings. Its counters have that thread
 * as their only writer.
 *
 * Each frame is parsed (pkt_parse, bounds-checked) and classified (first
 * matching rule); the class, the ECN codepoint and where the IP header is
 * travel with it in frame_desc.meta (tc_sched.h) to the egress scheduler.
 * The classifier is shared read-only by every RX task.
 *
 * DCQCN feedback: with a DCQCN class in the policy, a RoCEv2 CNP or RC ACK
 * received here is reported to every egress task of this port (feedback.h)
 * and then forwarded like any frame -- or, a CNP with `cnp: absorb`,
 * dropped and counted (cnps_absorbed).
 *
 * Multi-buffer (rx_task_set_multibuf, MTU above one frame): descriptors
 * flagged XDP_PKT_CONTD are assembled into one packet (frame_chain.h),
 * across poll batches; a chain of more than max_frags frames, with a
 * descriptor out of bounds, whose first frame holds less than the header
 * parse window or has no headroom for the chain record is dropped whole,
 * every frame back in the pool, counted by reason. With multi-buffer off
 * the only cost is the test of the descriptor's options.
 *
 * Adaptive egress (adaptive.h): with ports[].adaptive on for this task's
 * port, each TCP segment with ACK, RoCE RC ACK/NAK and CNP received is
 * turned into a path event (pathmon_ack_of: 72 bytes, no frame) posted to
 * the egress task of this port that sends its flow (adaptive.h,
 * Multi-queue; none: counted, path_events_unowned), before it is
 * forwarded like any frame; a full ring loses the event, counted
 * (path_events_lost). The event's
 * time is the frame's arrival: the steering program's stamp in front of
 * it (steer_abi.h: taken off every frame that has one, before anything
 * else) when it has one, else the pass's now -- a frame that arrived
 * during a nap (poll.coalesce_us) would read as late as the nap's end;
 * never after the pass's now.
 *
 * Checksums (csum, ports[].checksum): each well-formed TCP/UDP frame
 * (a chain too, over all its frames) goes through l4_csum_fix_segs()
 * before it is handed over: a checksum left partial by the sender's
 * virtual NIC is completed in place; the results are counted
 * (csum_completed, csum_bad, csum_not_completed). Off: one test of a
 * bool per frame.
 *
 * PFC (pfc.h): a MAC control frame (EtherType 0x8808) is never forwarded.
 * A valid 802.1Qbb PFC frame is counted (pfc_frames) and, with pfc.enabled,
 * posted as an FB_PFC event to every egress task of this port, the same
 * rings as the DCQCN feedback: the peer asks this port to pause. Any other
 * MAC control frame is dropped and counted (mac_control_drops).
 *
 * Losses: a frame that cannot be handed over (handoff ring full), that the
 * kernel delivered malformed (longer than a frame, multi-buffer), that the
 * parser rejects while the policy says drop, or an absorbed CNP goes back
 * to the pool and is counted by reason. Nothing else is ever dropped here.
 * Malformed frames are counted by parser reason whatever the policy.
 *
 * Descriptors the kernel could not have produced (a frame outside this
 * task's partition or past the UMEM, bytes past the end of their frame,
 * longer than max_len) are counted in drop_invalid_desc; the frame goes
 * back to the pool only when it is one of the partition's, never
 * otherwise (frame_pool_reclaim, umem.h).
 *
 * Init: rx_task_init() sets every field of the task (the caller's memory
 * may hold anything).
 *
 * Contracts (per function below): "Thread" says who may call it;
 * "Syscalls" every system call it may issue ("allocates": malloc/free,
 * which may add brk, mmap, munmap; the clock is the vDSO's, no syscall).
 * Set-up means: by the control thread, before the worker that runs the
 * task starts. Errors: 0 or -errno.
 */
#ifndef XDPLANE_RX_TASK_H
#define XDPLANE_RX_TASK_H

#include <string.h>
#include <linux/types.h>
#include "classify.h"
#include "bits.h"
#include "counters.h"
#include "feedback.h"
#include "frame.h"
#include "frame_chain.h"
#include "path_owner.h"
#include "pathmon_ring.h"
#include "pkt_parse.h"
#include "umem.h"
#include "xsk_queue.h"
#include "../../xdp/steer_abi.h"

#define RX_MAX_RETURN_RINGS 8
#define RX_MAX_FEEDBACK 64
#define RX_MAX_BATCH 256

struct rx_counters {
	ctr_t packets; /* descriptors received, whatever became of them */
	ctr_t bytes; /* bytes of the frames accepted for hand-off */
	ctr_t drop_handoff_full; /* egress not keeping up */
	ctr_t drop_invalid_desc; /* descriptor out of bounds: see above */
	ctr_t drop_multibuf; /* multi-buffer frame, not enabled */
	ctr_t chains; /* multi-buffer packets accepted for hand-off */
	ctr_t drop_chain_long; /* more frames than max_frags */
	ctr_t drop_chain_head; /* first frame < FRAME_CHAIN_HEAD_MIN */
	ctr_t drop_chain_room; /* no headroom for the chain record */
	ctr_t drop_malformed; /* malformed, and the policy says drop */
	ctr_t csum_completed; /* partial TCP/UDP checksums completed */
	ctr_t csum_bad; /* ...neither valid nor partial: left as they are */
	ctr_t csum_not_completed; /* ...partial, but not completable here
				   * (fragment, IPv6 routing header) */
	ctr_t fill_wakeups; /* recvfrom() to wake the driver for fill */
	ctr_t cnps_seen; /* RoCEv2 CNPs received (DCQCN on) */
	ctr_t cnps_absorbed; /* ...of which dropped here (cnp: absorb) */
	ctr_t acks_seen; /* RC ACKs received (DCQCN on) */
	ctr_t feedback_full; /* events lost: an egress task's ring full */
	ctr_t pfc_frames; /* 802.1Qbb PFC frames received (never forwarded) */
	ctr_t mac_control_drops; /* other or malformed MAC control frames
				  * (EtherType 0x8808): dropped, counted */
	ctr_t path_events; /* TCP ACKs, RoCE ACKs, CNPs posted to the path
			    * monitors (adaptive on) */
	ctr_t path_events_lost; /* ...lost: a monitor's ring was full */
	ctr_t path_events_unowned; /* returning events of flows no egress
				    * task of the port sends: not posted */
	ctr_t malformed[PKT_MALFORMED_MAX]; /* by parser reason; [0] unused */
} __cacheline_aligned;

struct rx_task {
	struct xsk_queue *xq;
	const struct umem_area *umem;
	const struct classifier *cls;
	struct frame_pool pool;
	struct handoff_ring *out;
	struct return_ring *ret[RX_MAX_RETURN_RINGS];
	uint32_t n_ret;
	uint32_t batch;
	uint32_t max_len; /* largest frame a descriptor may carry */
	bool multibuf; /* XDP_USE_SG: assemble chains */
	bool in_chain; /* inside a multi-buffer packet (assembling or
			* dropping it) */
	struct chain_asm chain; /* the packet being assembled */
	/* ports[].checksum resolved to "complete" for this task's port
	 * (gw_csum.c): partial TCP/UDP checksums are completed (l4_csum.h).
	 * Set-up only. */
	bool csum;
	/* DCQCN (policy.h: set with the classifier at each generation):
	 * CNPs and ACKs become events for the egress tasks of this port */
	bool dcqcn;
	bool absorb_cnps;
	bool pfc; /* pfc.enabled: PFC frames become FB_PFC events */
	struct feedback_ring *fb[RX_MAX_FEEDBACK];
	uint32_t n_fb;
	/* adaptive egress (policy: ports[path_port].adaptive.on): a
	 * returning event goes to the path monitor of the egress task of
	 * this port that sends its flow (path[q] for queue q, as `owner`
	 * says; to every one when owner is NULL or several send it); the
	 * clock is read once per pass for them */
	bool path_on;
	int path_port; /* the port this task receives on; -1: no rings */
	struct pathmon_ring *path[RX_MAX_FEEDBACK]; /* [queue] */
	uint32_t n_path;
	const struct path_owner *owner; /* the port's, written by its
					 * egress tasks */
	uint64_t now_ns;
	uint64_t arrival_ns; /* of the packet under way (its first frame) */
	struct rx_counters ctr;
};

/* The first frame of a packet, len bytes at `frame`: the arrival stamp
 * the steering program put in front of it (steer_abi.h), if it has one.
 * Returns the stamp's length (0: none) and the arrival in *at, never
 * after now (now without a stamp). Pure. */
static inline uint32_t rx_stamp_of(const uint8_t *frame, uint32_t len,
				   uint64_t now, uint64_t *at)
{
	struct steer_rx_stamp st;

	_Static_assert(sizeof(st) == STEER_RX_STAMP_LEN, "steer_rx_stamp");
	*at = now;
	if (len < sizeof(st))
		return 0;
	memcpy(&st, frame, sizeof(st));
	if (st.magic != STEER_RX_STAMP_MAGIC)
		return 0;
	if (st.rx_ns < now)
		*at = st.rx_ns;
	return sizeof(st);
}

/* Thread: set-up. Syscalls: allocates (the frame pool); 0 or -ENOMEM. */
int rx_task_init(struct rx_task *t, struct xsk_queue *xq,
		 const struct umem_area *umem, uint32_t part,
		 const struct classifier *cls, struct handoff_ring *out,
		 uint32_t batch, uint32_t max_len);
/* Thread: the control thread, once the worker has stopped. Syscalls:
 * allocates (free). */
void rx_task_fini(struct rx_task *t);
/* Thread: set-up. Syscalls: none. 0 or -ENOSPC. */
int rx_task_add_return(struct rx_task *t, struct return_ring *r);
/* Post DCQCN feedback (CNPs, ACKs received here) to this ring too.
 * Thread: set-up. Syscalls: none. 0 or -ENOSPC. */
int rx_task_add_feedback(struct rx_task *t, struct feedback_ring *r);
/* Path events (adaptive egress) to ring r too: the ring of the egress
 * task of the port's next queue (the first call queue 0), this task
 * receiving on port `port` (the same for every ring). Thread: set-up.
 * Syscalls: none. 0 or -ENOSPC. */
int rx_task_add_path(struct rx_task *t, struct pathmon_ring *r, int port);
/* Post each path event to the queue o says sends its flow, none when no
 * queue does (path_events_unowned); without a table, to every queue.
 * Thread: set-up. Syscalls: none. */
void rx_task_set_path_owner(struct rx_task *t, const struct path_owner *o);
/* Take the policy generation's switches for what the RX task hands to
 * the egress side: DCQCN feedback (CNPs, RoCE ACKs; CNPs absorbed or
 * forwarded), PFC frames, and path events for adaptive egress. Thread:
 * the worker, at a switch (worker_switch), or set-up. Syscalls: none. */
void rx_task_set_policy(struct rx_task *t, const struct qos_policy *pol);

/* Multi-buffer on (max_frags >= 2: frames per packet, at most) or off
 * (0). Thread: set-up only. Syscalls: none. */
void rx_task_set_multibuf(struct rx_task *t, uint32_t max_frags);

/* Stock the fill ring from the pool. Thread: the worker, or set-up (the
 * first stocking). Syscalls: none (the ring is shared memory). */
uint32_t rx_task_refill(struct rx_task *t);

/* One pass: returns the number of frames and descriptors it moved.
 * Thread: the worker that runs the task. Syscalls: recvfrom(MSG_DONTWAIT)
 * on the socket when the RX ring is empty and the fill ring asks for a
 * wake-up (XDP_USE_NEED_WAKEUP); nothing else. */
uint32_t rx_task_poll(struct rx_task *t);
/* The same at time now (the worker's pass; stamps path events). */
uint32_t rx_task_poll_at(struct rx_task *t, uint64_t now);

/* Census of a stopped task: its pool and a chain it was assembling
 * (rings are walked elsewhere). Thread: the control thread, once the
 * worker has stopped. Syscalls: none. */
void rx_task_census(struct rx_task *t, struct umem_census *c);

#endif

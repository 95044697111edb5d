/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * egress_int.h - what the files of the egress task share, and nobody
 * else: egress.c (transmit), egress_np.c (the DCQCN notification point:
 * CNPs built for the other port, and those the other port built for this
 * one), egress_pfc.c (PFC: pause state, XOFF/XON frames, control frames
 * onto the TX ring). egress.h has the task, its ownership and its rules;
 * every function here runs on the task's worker thread only.
 */
#ifndef XDPLANE_EGRESS_INT_H
#define XDPLANE_EGRESS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include "egress.h"

/* Give a run of completed frames of one owner back to it. The return ring
 * has room for every frame of the owner's partition, so it never refuses. */
static inline void give_back(struct egress_task *t, uint32_t owner,
			     const uint64_t *addrs, uint32_t n)
{
	struct return_ring *r =
		owner < EGRESS_MAX_OWNERS ? t->ret_by_owner[owner] : NULL;

	if (unlikely(!r)) {
		ctr_add(&t->ctr.foreign_frames, n);
		return;
	}
	return_ring_enqueue(r, addrs, n);
}

/* Every frame of packet d back to its owner (a drop). */
static inline void give_back_desc(struct egress_task *t,
				  const struct frame_desc *d)
{
	uint64_t starts[FRAME_CHAIN_MAX];
	uint32_t n = frame_desc_frames(t->umem, d, starts);

	/* a chain's frames all belong to the RX task that received it */
	give_back(t, umem_owner(t->umem, starts[0]), starts, n);
}

/* The NP path (egress.h): a frame of np_pool for a frame this task builds
 * for the other port. False: none free (or no NP path). */
static inline bool np_take(struct egress_task *t, struct frame_desc *d)
{
	if (!t->np_pool || !t->np_out || !t->np_pool->count)
		return false;
	d->addr = frame_pool_get(t->np_pool);
	return true;
}

/* Hand built frame d (len and meta set) to the other port's egress task,
 * waking its worker when that is another thread. False: the ring is full,
 * the frame is back in np_pool. */
static inline bool np_send(struct egress_task *t, const struct frame_desc *d)
{
	if (likely(handoff_ring_enqueue(t->np_out, d, 1))) {
		if (t->np_wake_fd >= 0) {
			uint64_t one = 1;

			(void)!write(t->np_wake_fd, &one, sizeof(one));
		}
		return true;
	}
	frame_pool_put(t->np_pool, d->addr);
	return false;
}

/* egress_np.c */
/* A frame another task built for this port (a CNP: egress.h): parse and
 * classify it under this task's generation. False: it does not parse (it
 * cannot happen: the builder checked it), counted. */
bool egress_np_classify(struct egress_task *t, struct frame_desc *d);
/* The CNPs the flows' NP rule made due, built and handed to the other
 * port's egress task; the due lists emptied. */
void egress_np_send_due(struct egress_task *t);

/* egress_pfc.c */
/* A MAC control frame from the other port's egress task: straight onto
 * the TX ring (it must not wait behind paused or shaped classes). */
void egress_pfc_tx_ctrl(struct egress_task *t, const struct frame_desc *d);
/* A PFC frame the RX task of this port received (feedback FB_PFC). */
void egress_pfc_event(struct egress_task *t, const struct fb_event *ev,
		      uint64_t now);
/* Each pass with PFC on: expiries and the watchdog of the pauses, then
 * the XOFF/XON hysteresis of every lossless priority, then the XONs owed
 * to priorities a reload took out of PFC. */
void egress_pfc_pass(struct egress_task *t, uint64_t now);

#endif

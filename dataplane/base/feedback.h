/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * feedback.h - congestion feedback for the DCQCN reaction points, carried
 * to the egress task that owns the flows it concerns.
 *
 *  - An RX task that receives a RoCEv2 CNP (BTH opcode 0x81) or RC ACK
 *    (0x11) on port P concerns the flows that egress port P transmits
 *    (they go the other way): it posts an event to every egress task of
 *    port P, one SPSC ring per (RX task, egress task) pair of that port.
 *  - The control thread posts external congestion hints (xdplanectl
 *    congestion) to the egress tasks of a port, one SPSC ring per egress
 *    task with the control thread as its only producer.
 *
 *  - An RX task that receives an 802.1Qbb PFC frame on port P posts it
 *    (FB_PFC) the same way: the peer asks port P's egress to pause.
 *
 * Events carry no frame: the RX task keeps (or forwards) the frame itself.
 * A full ring drops the event and the producer counts it.
 */
#ifndef XDPLANE_FEEDBACK_H
#define XDPLANE_FEEDBACK_H

#include <errno.h>
#include <stdint.h>
#include "spsc_ring.h"

enum fb_type {
	FB_CNP = 1, /* src: the CNP's source (the data's destination);
		     * qpn: its destination QP (the data sender's QP) */
	FB_ACK = 2, /* src: the ACK's source (the receiver); qpn: the
		     * sender's QP; psn: the PSN acknowledged */
	FB_HINT = 3, /* src: a destination prefix of plen bits; severity
		      * in parts of 65536; class: its id, 0xff all */
	FB_PFC = 4, /* an 802.1Qbb frame received on the port (pfc.h):
		     * class_id: the class-enable vector; src: the 8 pause
		     * times, uint16_t in host order (pfc_frame.quanta) */
};

struct fb_event {
	uint8_t type; /* enum fb_type */
	uint8_t family; /* 4 or 6 */
	uint8_t plen; /* FB_HINT */
	uint8_t class_id; /* FB_HINT */
	uint32_t qpn;
	uint32_t psn; /* FB_ACK; FB_HINT: severity */
	uint32_t pad_;
	uint8_t src[16];
};

DEFINE_SPSC_RING(feedback_ring, struct fb_event)

/* Post ev to each of the n rings (one producer for all of them, e.g. the
 * control thread's hint rings), all or none: returns n, or -EAGAIN when
 * one of them is full (then none got it). */
static inline int feedback_post_all(struct feedback_ring *const *rings,
				    uint32_t n, const struct fb_event *ev)
{
	for (uint32_t i = 0; i < n; i++)
		if (!feedback_ring_room(rings[i]))
			return -EAGAIN;
	/* the producer's room only grows: every enqueue below succeeds */
	for (uint32_t i = 0; i < n; i++)
		feedback_ring_enqueue(rings[i], ev, 1);
	return (int)n;
}

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * frame.h - a received frame as it travels between tasks, and the rings that
 * carry frames between threads.
 *
 * A frame is identified by its UMEM address. Addresses taken from an RX
 * descriptor carry the data offset inside the frame (headroom): the frame's
 * start is addr & ~(frame_size - 1) (aligned UMEM mode), and only the start
 * may be put back on a fill ring or into a pool.
 *
 * Ownership: whoever holds an address owns that frame, and a frame is always
 * held by exactly one place (see umem.h for the list of places).
 */
#ifndef XDPLANE_FRAME_H
#define XDPLANE_FRAME_H

#include <stdint.h>
#include "spsc_ring.h"

/* A frame handed from an RX task to an egress task. */
struct frame_desc {
	uint64_t addr; /* UMEM address of the data (start + offset) */
	uint32_t len; /* bytes of frame data */
	uint32_t meta; /* class, ECN, L3, L4: layout in frame_meta.h */
};

/* RX task -> egress task: received frames to transmit. */
DEFINE_SPSC_RING(handoff_ring, struct frame_desc)

/* Egress task -> owning RX task: frames done with (sent or dropped). */
DEFINE_SPSC_RING(return_ring, uint64_t)

#endif

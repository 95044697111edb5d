/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fake_xsk.h - an AF_XDP socket without a kernel, for unit tests: the four
 * rings of a socket are plain memory wired into a struct xsk_queue, and the
 * test plays the kernel's part (fill -> RX on receive, TX -> completion on
 * transmit). The kernel side uses acquire/release on the ring indices as
 * the real kernel does, so a test may run it in a thread of its own next to
 * worker threads (and TSan sees a race-free protocol).
 *
 * Ownership: the kernel-side helpers (fake_kernel_*) are called by one
 * thread per socket, the task side by the task that owns the ring.
 *
 * Also the unit of work most tests build on two such sockets: an RX task
 * on socket a hands over through a handoff ring to an egress task on
 * socket b, which gives the frames back through a return ring
 * (fake_unit_census, fake_unit_fini).
 */
#ifndef XDPLANE_TEST_FAKE_XSK_H
#define XDPLANE_TEST_FAKE_XSK_H

#include <stdint.h>
#include <string.h>
#include "egress.h"
#include "frame_chain.h"
#include "rx_task.h"
#include "umem.h"
#include "xsk_queue.h"

#define FAKE_RING 256 /* entries per ring, a power of two */
#define FAKE_HEADROOM 256 /* the kernel's offset of a received frame */

struct fake_ring {
	uint32_t producer, consumer, flags;
	union {
		uint64_t addrs[FAKE_RING];
		struct xdp_desc descs[FAKE_RING];
	};
};

struct fake_socket {
	struct fake_ring fill, comp, rx, tx;
	struct xsk_queue q;
};

static inline void fake_wire_prod(struct xsk_ring_prod *p, struct fake_ring *f,
				  void *ring)
{
	memset(p, 0, sizeof(*p));
	p->mask = FAKE_RING - 1;
	p->size = FAKE_RING;
	p->producer = &f->producer;
	p->consumer = &f->consumer;
	p->flags = &f->flags;
	p->ring = ring;
	p->cached_cons = FAKE_RING; /* as libxdp sets it: consumer + size */
}

static inline void fake_wire_cons(struct xsk_ring_cons *c, struct fake_ring *f,
				  void *ring)
{
	memset(c, 0, sizeof(*c));
	c->mask = FAKE_RING - 1;
	c->size = FAKE_RING;
	c->producer = &f->producer;
	c->consumer = &f->consumer;
	c->flags = &f->flags;
	c->ring = ring;
}

static inline void fake_socket_init(struct fake_socket *s, uint32_t qid)
{
	memset(s, 0, sizeof(*s));
	fake_wire_prod(&s->q.fill, &s->fill, s->fill.addrs);
	fake_wire_cons(&s->q.comp, &s->comp, s->comp.addrs);
	fake_wire_cons(&s->q.rx, &s->rx, s->rx.descs);
	fake_wire_prod(&s->q.tx, &s->tx, s->tx.descs);
	s->q.fd = -1;
	s->q.queue_id = qid;
	s->q.xsk = (struct xsk_socket *)1; /* "open", for the census */
}

static inline uint32_t fake_load(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void fake_store(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Kernel receive: up to n frames from the fill ring to the RX ring, each
 * holding a copy of frame[0..len). Returns how many were received (the
 * fill ring or the RX ring may run out). */
static inline uint32_t fake_kernel_rx(struct fake_socket *s,
				      const struct umem_area *u,
				      const uint8_t *frame, uint32_t len,
				      uint32_t n)
{
	uint32_t fc = s->fill.consumer, fp = fake_load(&s->fill.producer);
	uint32_t rp = s->rx.producer, rc = fake_load(&s->rx.consumer), i;

	for (i = 0; i < n && fc != fp && rp - rc < FAKE_RING; i++) {
		uint64_t a = s->fill.addrs[fc++ % FAKE_RING] + FAKE_HEADROOM;
		struct xdp_desc *d = &s->rx.descs[rp++ % FAKE_RING];

		if (frame)
			memcpy((uint8_t *)u->base + a, frame, len);
		d->addr = a;
		d->len = len;
		d->options = 0;
	}
	fake_store(&s->fill.consumer, fc);
	fake_store(&s->rx.producer, rp);
	return i;
}

/* Kernel transmit: every TX descriptor sent and completed (while the
 * completion ring has room). lens (max entries, may be NULL) gets the
 * lengths in order. Returns the descriptors sent. */
static inline uint32_t fake_kernel_tx(struct fake_socket *s, uint32_t *lens,
				      uint32_t max)
{
	uint32_t tc = s->tx.consumer, tp = fake_load(&s->tx.producer);
	uint32_t cp = s->comp.producer, cc = fake_load(&s->comp.consumer);
	uint32_t n = 0;

	while (tc != tp && cp - cc < FAKE_RING) {
		const struct xdp_desc *d = &s->tx.descs[tc++ % FAKE_RING];

		if (lens && n < max)
			lens[n] = d->len;
		n++;
		s->comp.addrs[cp++ % FAKE_RING] = d->addr;
	}
	fake_store(&s->tx.consumer, tc);
	fake_store(&s->comp.producer, cp);
	return n;
}

/* Report every frame of a quiescent unit to census c: the RX task rx, the
 * egress task eg, the handoff ring ho between them, the return ring ret
 * back, and the rings of their sockets a and b. */
static inline void fake_unit_census(struct umem_census *c, struct rx_task *rx,
				    struct handoff_ring *ho,
				    struct egress_task *eg,
				    struct return_ring *ret,
				    struct fake_socket *a,
				    struct fake_socket *b)
{
	rx_task_census(rx, c);
	egress_task_census(eg, c);
	handoff_ring_foreach(ho, frame_desc_census, c);
	return_ring_foreach(ret, umem_census_addr, c);
	xsk_queue_census(&a->q, c);
	xsk_queue_census(&b->q, c);
}

/* Free a unit's tasks and rings (the UMEM and the sockets stay). */
static inline void fake_unit_fini(struct rx_task *rx, struct handoff_ring *ho,
				  struct egress_task *eg,
				  struct return_ring *ret)
{
	rx_task_fini(rx);
	egress_task_fini(eg);
	handoff_ring_fini(ho);
	return_ring_fini(ret);
}

#endif

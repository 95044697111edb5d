// SPDX-License-Identifier: BSD-2-Clause
/*
 * xsk_queue.c - AF_XDP sockets on a shared UMEM. See xsk_queue.h.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_xdp.h>
#include "frame_chain.h"
#include "xsk_queue.h"

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

int xsk_umem_reg_init(struct xsk_umem_reg *reg, struct umem_area *area,
		      const struct xsk_ring_sizes *sz, struct xsk_queue *first)
{
	struct xsk_umem_config cfg = {
		.fill_size = sz->fill,
		.comp_size = sz->comp,
		.frame_size = area->frame_size,
		.frame_headroom = 0,
		.flags = 0,
	};

	reg->first = first;
	return xsk_umem__create(&reg->umem, area->base, area->size,
				&first->fill, &first->comp, &cfg);
}

void xsk_umem_reg_fini(struct xsk_umem_reg *reg)
{
	if (reg->umem)
		xsk_umem__delete(reg->umem);
	reg->umem = NULL;
}

int xsk_queue_open(struct xsk_queue *q, struct xsk_umem_reg *reg,
		   const char *ifname, uint32_t queue_id,
		   const struct xsk_ring_sizes *sz, bool zerocopy, bool sg)
{
	struct xsk_socket_config cfg = {
		.rx_size = sz->rx,
		.tx_size = sz->tx,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.xdp_flags = 0,
		.bind_flags = XDP_USE_NEED_WAKEUP |
			      (zerocopy ? XDP_ZEROCOPY : XDP_COPY) |
			      (sg ? XDP_USE_SG : 0),
	};
	int err;

	q->queue_id = queue_id;
	q->zerocopy = zerocopy;
	err = xsk_socket__create_shared(&q->xsk, ifname, queue_id, reg->umem,
					&q->rx, &q->tx, &q->fill, &q->comp,
					&cfg);
	if (err) {
		q->xsk = NULL;
		return err;
	}
	q->fd = xsk_socket__fd(q->xsk);
	return 0;
}

void xsk_queue_close(struct xsk_queue *q)
{
	if (q->xsk)
		xsk_socket__delete(q->xsk);
	q->xsk = NULL;
}

int xsk_queue_stats(const struct xsk_queue *q, struct xdp_statistics *st)
{
	socklen_t len = sizeof(*st);

	memset(st, 0, sizeof(*st));
	if (!q->xsk)
		return -ENOTCONN;
	return getsockopt(q->fd, SOL_XDP, XDP_STATISTICS, st, &len) ? -errno
								    : 0;
}

static uint32_t load_acq(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

void xsk_queue_census(struct xsk_queue *q, struct umem_census *c)
{
	struct xdp_statistics st;
	uint32_t i, rx_prod, fill_cons, comp_prod, tx_cons, tx_held;

	if (!q->xsk)
		return;
	/* One snapshot of the kernel's indices, each producer read before
	 * the consumer of the ring it feeds from: a frame the kernel moves
	 * meanwhile is counted once, in the ring or as held. */
	rx_prod = load_acq(q->rx.producer);
	fill_cons = load_acq(q->fill.consumer);
	comp_prod = load_acq(q->comp.producer);
	tx_cons = load_acq(q->tx.consumer);
	/* Held by the kernel outside the rings: counted, not addressable. */
	tx_held = tx_cons - comp_prod;
	if (xsk_queue_stats(q, &st) == 0 && st.tx_invalid_descs <= tx_held)
		tx_held -= (uint32_t)st.tx_invalid_descs;
	c->uncounted += (uint64_t)(fill_cons - rx_prod) + tx_held;
	/* Fill: what we produced and the kernel has not consumed. */
	for (i = fill_cons; i != load_acq(q->fill.producer); i++)
		umem_census_add(c, *xsk_ring_prod__fill_addr(&q->fill, i));
	/* RX: what the kernel produced and we have not consumed. */
	for (i = load_acq(q->rx.consumer); i != rx_prod; i++)
		umem_census_add(
			c,
			umem_frame_start(
				c->u, xsk_ring_cons__rx_desc(&q->rx, i)->addr));
	/* TX: what we produced and the kernel has not sent. */
	for (i = tx_cons; i != load_acq(q->tx.producer); i++)
		umem_census_add(
			c,
			umem_frame_start(
				c->u, xsk_ring_prod__tx_desc(&q->tx, i)->addr));
	/* Completion: sent, not yet taken back by us. */
	for (i = load_acq(q->comp.consumer); i != comp_prod; i++)
		umem_census_add(
			c, umem_frame_start(c->u, *xsk_ring_cons__comp_addr(
							  &q->comp, i)));
}

void xsk_queue_rx_state(const struct xsk_queue *q, struct xsk_rx_state *st)
{
	st->fill_prod = __atomic_load_n(q->fill.producer, __ATOMIC_ACQUIRE);
	st->fill_cons = __atomic_load_n(q->fill.consumer, __ATOMIC_ACQUIRE);
	st->need_wakeup = q->fill.flags &&
			  (__atomic_load_n(q->fill.flags, __ATOMIC_ACQUIRE) &
			   XDP_RING_NEED_WAKEUP);
	st->rx_pending = __atomic_load_n(q->rx.producer, __ATOMIC_ACQUIRE) -
			 __atomic_load_n(q->rx.consumer, __ATOMIC_ACQUIRE);
}

void xsk_queue_kick(const struct xsk_queue *q)
{
	struct pollfd pfd = {.fd = q->fd, .events = POLLIN | POLLOUT};

	if (!q->xsk)
		return;
	(void)!recvfrom(q->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	(void)!sendto(q->fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
	(void)!poll(&pfd, 1, 0);
}

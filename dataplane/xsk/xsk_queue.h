/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xsk_queue.h - one AF_XDP socket: a (port, queue) with its four rings, all
 * on the pair's shared UMEM (XDP_SHARED_UMEM; libxdp's xsk API).
 *
 * Ring ownership (per ring, not per socket):
 *   fill ring        producer: the RX task of this (port, queue)
 *   RX ring          consumer: the RX task of this (port, queue)
 *   TX ring          producer: the egress task of this (port, queue)
 *   completion ring  consumer: the egress task of this (port, queue)
 * The RX task and the egress task may run on different threads; they never
 * touch each other's rings.
 *
 * Bind mode: zero-copy is tried first in auto mode; a driver that refuses it
 * (EOPNOTSUPP, or EINVAL on older kernels) gets copy mode. Which one was
 * chosen is recorded in `zerocopy` and logged by the caller.
 *
 * Multi-buffer: with `sg`, the socket is bound with XDP_USE_SG (Linux >=
 * 6.6; frame_chain.h). Only the first socket of a shared UMEM passes bind
 * flags (libxdp binds the others with XDP_SHARED_UMEM alone); the kernel
 * records SG in the UMEM and every socket sharing it inherits it. A kernel
 * that does not know the flag refuses the bind with EINVAL.
 *
 * Contracts (per function below): "Thread" says who may call it,
 * "Syscalls" every system call it may issue, libxdp's included
 * ("allocates": malloc/free, which may add brk, mmap, munmap). Errors: 0
 * or -errno (libxdp's, passed on); the caller writes the message, naming
 * the port and queue. The rings themselves are driven by the RX and
 * egress tasks with libxdp's inline ring helpers (no syscall) and the
 * kicks their headers list (rx_task.h, egress.h).
 */
#ifndef XDPLANE_XSK_QUEUE_H
#define XDPLANE_XSK_QUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <xdp/xsk.h>
#include "umem.h"

struct xsk_queue {
	struct xsk_socket *xsk;
	int fd;
	uint32_t queue_id;
	bool zerocopy;
	/* Test only (the fault switch XDPLANE_TEST_STARVE, xdplane(8)): the
	 * worker never wakes the driver's receive side for this socket --
	 * no fill wake-up, not in the worker's ppoll -- so a driver that
	 * waits to be woken for its fill ring starves (until a TX kick on
	 * the same queue happens to wake it). Set at set-up, read by the
	 * worker only where it would issue those syscalls. */
	bool mute;
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx;
};

struct xsk_ring_sizes {
	uint32_t fill, comp, rx, tx;
};

/* The UMEM registration shared by every socket of a pair. The first socket
 * created uses the fill/completion rings made with the UMEM. */
struct xsk_umem_reg {
	struct xsk_umem *umem;
	struct xsk_queue *first; /* whose fill/comp rings the UMEM made */
};

/* Register the area with the kernel; its fill and completion rings become
 * first's. Thread: the control thread, at set-up. Syscalls:
 * socket(AF_XDP, SOCK_RAW), setsockopt(SOL_XDP, XDP_UMEM_REG,
 * XDP_UMEM_FILL_RING, XDP_UMEM_COMPLETION_RING), getsockopt(SOL_XDP,
 * XDP_MMAP_OFFSETS), mmap(MAP_SHARED) of the two rings; munmap and close
 * on failure; allocates. */
int xsk_umem_reg_init(struct xsk_umem_reg *reg, struct umem_area *area,
		      const struct xsk_ring_sizes *sz, struct xsk_queue *first);
/* Unregister (after every socket is closed). Thread: the control thread.
 * Syscalls: getsockopt(SOL_XDP, XDP_MMAP_OFFSETS), munmap, close;
 * allocates (free). */
void xsk_umem_reg_fini(struct xsk_umem_reg *reg);

/* Create and bind a socket. zerocopy: 1 force, 0 copy only; sg:
 * XDP_USE_SG (multi-buffer). -EOPNOTSUPP (or -EINVAL on older kernels):
 * the driver refuses zero-copy (the caller retries in copy mode).
 * Thread: the control thread, at set-up, before the worker that will run
 * the socket's tasks starts. Syscalls: socket(AF_XDP, SOCK_RAW) (every
 * socket but the UMEM's first), socket(AF_UNIX) + ioctl(SIOCGIFINDEX) +
 * close (if_nametoindex), getsockopt(SOL_SOCKET, SO_NETNS_COOKIE),
 * setsockopt(SOL_XDP, XDP_RX_RING, XDP_TX_RING, and XDP_UMEM_FILL_RING,
 * XDP_UMEM_COMPLETION_RING for a socket that is not the first),
 * getsockopt(SOL_XDP, XDP_MMAP_OFFSETS), mmap(MAP_SHARED) of its rings,
 * bind(AF_XDP); munmap and close on failure; allocates. */
int xsk_queue_open(struct xsk_queue *q, struct xsk_umem_reg *reg,
		   const char *ifname, uint32_t queue_id,
		   const struct xsk_ring_sizes *sz, bool zerocopy, bool sg);
/* Close (the worker running its tasks has stopped). Thread: the control
 * thread. Syscalls: getsockopt(SOL_XDP, XDP_MMAP_OFFSETS), munmap,
 * close; allocates (free). */
void xsk_queue_close(struct xsk_queue *q);

/* Kernel's per-socket statistics (XDP_STATISTICS); -ENOTCONN when
 * closed. Thread: any (the control thread, for statistics), also while
 * the worker runs. Syscalls: getsockopt(SOL_XDP, XDP_STATISTICS). */
int xsk_queue_stats(const struct xsk_queue *q, struct xdp_statistics *st);

/* The socket's receive side as the kernel sees it: the fill ring's
 * producer index (frames the RX task posted), its consumer index (frames
 * the kernel took, published lazily: at the driver's next look at the
 * ring or RX flush), the driver's request to be woken
 * (XDP_RING_NEED_WAKEUP on the fill ring), and the descriptors waiting on
 * the RX ring for the RX task. Thread: any (the control thread, for the
 * starvation detector, xsk_starve.h), also while the worker runs: loads
 * of shared memory. Syscalls: none. */
struct xsk_rx_state {
	uint32_t fill_prod, fill_cons;
	bool need_wakeup;
	uint32_t rx_pending;
};
void xsk_queue_rx_state(const struct xsk_queue *q, struct xsk_rx_state *st);

/* Wake the driver for this socket whether or not it asked to be woken:
 * recvfrom(MSG_DONTWAIT) (the fill wake-up), sendto(MSG_DONTWAIT) (the
 * TX wake-up, which runs the same NAPI context on most drivers) and a
 * poll(2) with no timeout (the kernel wakes with the flags the driver
 * left). None of them touches a ring from user space: the kernel's side
 * of each ring has its own locks, so another thread may do this while
 * the worker runs the socket. Thread: the control thread (the starvation
 * detector's kick). Syscalls: recvfrom(2), sendto(2), poll(2). */
void xsk_queue_kick(const struct xsk_queue *q);

/* Census of a quiescent socket: report every address it holds in its
 * rings (entries between consumer and producer), and count in
 * c->uncounted the frames the kernel holds outside them: taken from the
 * fill ring and not (yet) put on the RX ring (a zero-copy driver's
 * receive queue, the pool's free list after an RX drop), taken from the
 * TX ring and not (yet) completed (in the driver's transmit queue), less
 * the TX descriptors the kernel refused as invalid (XDP_STATISTICS),
 * which it never completes. These are counted from the rings' free-running
 * indices (fill consumer - RX producer, TX consumer - completion producer):
 * each socket has its own fill and completion ring, also the first one of
 * the shared UMEM, since every socket binds another device or queue. The
 * kernel publishes its fill consumer lazily (at each RX flush): entries a
 * driver took since are walked as still in the fill ring, which counts
 * them once all the same, as long as nothing is received meanwhile (the
 * workers are stopped and the XDP programs take the failure path).
 * Thread: the control thread, once the workers have stopped. Syscalls:
 * getsockopt(XDP_STATISTICS). */
void xsk_queue_census(struct xsk_queue *q, struct umem_census *c);

#endif

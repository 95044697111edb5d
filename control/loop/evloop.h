/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * evloop.h - the control thread's event loop on io_uring (liburing):
 * one-shot readiness polls (IORING_OP_POLL_ADD) on file descriptors --
 * signalfd, timerfd, listening sockets, client connections -- dispatched to
 * callbacks. The thread sleeps in io_uring_wait_cqe when nothing happens.
 *
 * A watch is armed for `events` (POLLIN, POLLOUT); when the fd becomes
 * ready the callback runs once with the returned poll mask, and the watch
 * is disarmed: the callback re-arms it if it wants more. Readiness, not
 * completion: the callback does its own non-blocking read/accept/write, so
 * buffers stay owned by their connection and a slow peer costs nothing but
 * its buffer.
 *
 * Lifetime: the loop holds a pointer to every armed watch. evloop_cancel()
 * asks the kernel to drop the poll; the callback then runs once more with
 * revents = -ECANCELED (or the readiness that won the race). The owner may
 * free the memory of a watch only when it is not armed (w->armed false),
 * i.e. in or after that last callback. evloop_fini() cancels nothing: call
 * it after every watch is gone, or when the process exits.
 *
 * Thread: one loop per thread; not thread-safe. Every function below is
 * called by the loop's thread (the daemon's control thread).
 *
 * Contracts (per function below): "Syscalls" lists every system call a
 * function may issue, liburing's included; the callbacks that
 * evloop_run_once() runs issue their own (conn.h, linkwatch.h, the
 * daemon's). Errors: 0 or -errno (the control plane's convention, as the
 * dataplane's: a message in (err, errlen) where a function takes one).
 */
#ifndef XDPLANE_EVLOOP_H
#define XDPLANE_EVLOOP_H

#include <stdbool.h>
#include <liburing.h>

struct ev_watch;
/* revents: poll bits (POLLIN, POLLOUT, POLLHUP, POLLERR) or -errno. */
typedef void (*ev_cb)(struct ev_watch *w, int revents);

struct ev_watch {
	int fd;
	unsigned int events;
	ev_cb cb;
	void *arg; /* the owner's object */
	bool armed; /* a poll is in the kernel: do not free */
};

struct evloop {
	struct io_uring ring;
	unsigned int inflight; /* armed watches */
	bool ready;
};

/* Set up the ring for `entries` submissions. 0 or -errno.
 * Syscalls: io_uring_setup, mmap (the rings), munmap and close on
 * failure. */
int evloop_init(struct evloop *l, unsigned int entries);
/* Syscalls: munmap, close. */
void evloop_fini(struct evloop *l);
static inline void ev_watch_init(struct ev_watch *w, int fd, ev_cb cb,
				 void *arg)
{
	w->fd = fd;
	w->events = 0;
	w->cb = cb;
	w->arg = arg;
	w->armed = false;
}
/* Arm for `events`; 0 or -errno (-EBUSY: armed already, -EAGAIN: no
 * submission slot). Syscalls: none, or io_uring_enter when the submission
 * queue is full (it is submitted first). */
int evloop_arm(struct evloop *l, struct ev_watch *w, unsigned int events);
/* Drop an armed watch (see Lifetime). No-op when not armed.
 * Syscalls: as evloop_arm(). */
void evloop_cancel(struct evloop *l, struct ev_watch *w);
/* Submit, wait up to timeout_ms (-1: forever) for events, dispatch them
 * all. Returns the number of callbacks run, or -errno. Syscalls:
 * io_uring_enter, and what the callbacks issue. */
int evloop_run_once(struct evloop *l, int timeout_ms);

#endif

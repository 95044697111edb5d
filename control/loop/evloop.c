// SPDX-License-Identifier: BSD-2-Clause
/*
 * evloop.c - see evloop.h.
 *
 * user_data of a poll SQE is the watch; the SQE that cancels a poll
 * carries EV_CANCEL_TAG, whose completion is ignored.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include "evloop.h"

#define EV_CANCEL_TAG 1ull /* never a watch address (alignment) */

int evloop_init(struct evloop *l, unsigned int entries)
{
	int err;

	memset(l, 0, sizeof(*l));
	err = io_uring_queue_init(entries, &l->ring, 0);
	if (err)
		return err;
	l->ready = true;
	return 0;
}

void evloop_fini(struct evloop *l)
{
	if (l->ready)
		io_uring_queue_exit(&l->ring);
	l->ready = false;
}

/* An SQE, submitting what is queued if the ring is full. */
static struct io_uring_sqe *get_sqe(struct evloop *l)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);

	if (!sqe) {
		io_uring_submit(&l->ring);
		sqe = io_uring_get_sqe(&l->ring);
	}
	return sqe;
}

int evloop_arm(struct evloop *l, struct ev_watch *w, unsigned int events)
{
	struct io_uring_sqe *sqe;

	if (w->armed)
		return -EBUSY;
	sqe = get_sqe(l);
	if (!sqe)
		return -EAGAIN;
	w->events = events;
	io_uring_prep_poll_add(sqe, w->fd, events);
	io_uring_sqe_set_data(sqe, w);
	w->armed = true;
	l->inflight++;
	return 0;
}

void evloop_cancel(struct evloop *l, struct ev_watch *w)
{
	struct io_uring_sqe *sqe;

	if (!w->armed)
		return;
	sqe = get_sqe(l);
	if (!sqe)
		return; /* the poll completes when the fd is closed or ready */
	io_uring_prep_poll_remove(sqe, (__u64)(uintptr_t)w);
	io_uring_sqe_set_data64(sqe, EV_CANCEL_TAG);
}

int evloop_run_once(struct evloop *l, int timeout_ms)
{
	struct __kernel_timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (long long)(timeout_ms % 1000) * 1000000,
	};
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;
	int err, ran = 0;

	err = io_uring_submit_and_wait_timeout(
		&l->ring, &cqe, 1, timeout_ms < 0 ? NULL : &ts, NULL);
	if (err < 0 && err != -ETIME && err != -EINTR)
		return err;
	/* Dispatch a copy of each completion: a callback may arm watches
	 * (new SQEs) but never reaps, so the CQ ring is ours here. */
	for (;;) {
		struct ev_watch *w;
		int res;

		seen = 0;
		w = NULL;
		res = 0;
		io_uring_for_each_cqe(&l->ring, head, cqe)
		{
			if (cqe->user_data != EV_CANCEL_TAG) {
				w = (struct ev_watch *)(uintptr_t)
					    cqe->user_data;
				res = cqe->res;
			}
			seen = 1;
			break;
		}
		if (!seen)
			break;
		io_uring_cq_advance(&l->ring, 1);
		if (!w)
			continue;
		w->armed = false;
		l->inflight--;
		w->cb(w, res);
		ran++;
	}
	return ran;
}

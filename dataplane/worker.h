/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * worker.h - a pinned worker thread running a list of tasks in one poll loop.
 *
 * The same loop serves every placement: on 2 cores, worker 0 runs RX(A) and
 * the egress of B, worker 1 runs RX(B) and the egress of A; on more cores,
 * more workers with fewer tasks each.
 *
 * Adaptive polling: after a pass that moved something the worker keeps
 * spinning for busy_us; after that it sleeps in poll() on its RX sockets
 * and its wake eventfd, so an idle gateway costs almost no CPU. (Spinning on
 * the core that also runs the kernel's receive work starves it, so the
 * default spin is short.) The sleep ends early, with nanosecond precision
 * (ppoll), when a frame held by a shaper becomes sendable; while an egress
 * task waits for TX completions it is bounded to 1 ms. A shaped frame due
 * within shaper_spin_us is waited for by polling, not sleeping: a sleeping
 * CPU can wake late (hundreds of microseconds on a virtual machine), and
 * every late wake-up is latency added to the highest class.
 *
 * Invariant: the two ends of a handoff ring and of a return ring run on the
 * same worker (the gateway's placement guarantees it), so no cross-thread
 * wake-up is needed for them; the eventfd serves stop requests.
 *
 * Ownership: the task lists are set before the thread starts and never
 * change; the thread alone touches its tasks. `state` is written by the
 * control thread (release) and read by the worker (acquire).
 */
#ifndef XDPLANE_WORKER_H
#define XDPLANE_WORKER_H

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include "compiler.h"
#include "egress.h"
#include "rx_task.h"

#define WORKER_MAX_TASKS 32

enum worker_state {
	WORKER_RUN = 0,
	WORKER_STOP, /* finish what is in flight (bounded), then exit */
};

struct worker {
	uint32_t id;
	int cpu; /* -1: not pinned */
	uint32_t busy_us;
	uint64_t
		shaper_spin_ns; /* a shaped frame due sooner: spin, not sleep */
	pthread_t thread;
	bool started;
	int wake_fd; /* eventfd */
	_Atomic int state;
	struct rx_task *rx[WORKER_MAX_TASKS];
	uint32_t n_rx;
	struct egress_task *eg[WORKER_MAX_TASKS];
	uint32_t n_eg;
	struct pollfd pfds[WORKER_MAX_TASKS + 1];
};

int worker_init(struct worker *w, uint32_t id, int cpu, uint32_t busy_us,
		uint32_t shaper_spin_us);
int worker_add_rx(struct worker *w, struct rx_task *t);
int worker_add_egress(struct worker *w, struct egress_task *t);
int worker_start(struct worker *w);
/* Ask to stop and wait: in-flight frames get up to a second to leave. */
void worker_stop(struct worker *w);
void worker_fini(struct worker *w);

#endif

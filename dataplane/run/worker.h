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
 * default spin is short.) While a shaper holds frames, the sleep is timed
 * to end a margin before the next frame becomes sendable, and the worker
 * spins only that margin: a CPU woken by a timer wakes late (tens of
 * microseconds here, hundreds on a busy VM), and every late wake-up is
 * latency added to the highest class. The margin is learned from the
 * lateness of the worker's own timed wake-ups (wake_margin.h; the
 * thread's timer slack is set to 1 us), capped at shaper_spin_us: a
 * shaped port at a small fraction of its rate then costs a small
 * fraction of a core, not all of it. poll.shaper_wait: spin restores
 * spinning for every shaped frame due within shaper_spin_us. While an egress task
 * waits for TX completions the sleep is bounded to 1 ms. Frames that keep
 * arriving at a low rate (found while it spins) would keep it spinning
 * for ever: with poll.coalesce_us it naps instead, a timed sleep its
 * sockets do not end, and takes what came in one pass (idle_policy.h has
 * the rules: when to spin, nap or sleep).
 *
 * Rings between tasks: an RX task and the egress task its handoff ring
 * feeds run on the same worker (the gateway's placement guarantees it), so
 * every classified frame meets a scheduler of the generation it was
 * classified under, and no cross-thread wake-up is needed. The NP rings
 * (egress.h: CNPs and PFC frames one egress task builds for the other
 * port) may join two workers: what crosses them carries no class id (the
 * taking task classifies CNPs itself; PFC frames bypass the classes), and
 * the producer wakes the consumer's worker through its wake_fd. The
 * eventfd also serves stop requests and reloads.
 *
 * Live reload (policy.h): the worker is a QSBR RCU reader of the
 * gateway's published policy generation (*live). At the top of every pass
 * it switches to a newer generation (worker_switch): all its egress tasks
 * reconfigure, then its RX tasks take the new classifier, and it stores
 * the generation it runs in applied_gen (release). A switch is all or
 * nothing: if one egress task refuses the policy, the tasks already
 * reconfigured go back to the generation the worker runs, nothing else
 * changes, and the worker stores the refused generation in refused_gen
 * (release) and does not try it again; the control thread then rolls
 * every worker back (policy_publish). Every pass ends in a quiescent
 * state; it is offline while it sleeps in ppoll, so a sleeping worker
 * never holds up a grace period (the control thread wakes it through
 * wake_fd to switch).
 *
 * Ownership: the task lists are set before the thread starts and never
 * change; the thread alone touches its tasks, `cur` and `gen`. `state` is
 * written by the control thread (release) and read by the worker
 * (acquire); applied_gen, refused_gen and refused_err the other way
 * round.
 *
 * Contracts (per function below): "Thread" says who may call it;
 * "Syscalls" every system call it may issue, liburcu's and the C
 * library's included ("logs": ioctl(2, TCGETS) and write(2) of log.h).
 * The worker thread itself issues, besides what its tasks do
 * (rx_task_poll, egress_task_poll): ppoll on its sockets and wake_fd
 * while it sleeps, read(2) on wake_fd, futex (liburcu's QSBR grace
 * period wake-ups, thread registration), and the C library's own at
 * thread start (rseq, set_robust_list, rt_sigprocmask, sched_setaffinity
 * for the pin) and exit (madvise of its stack, exit). Errors: 0 or
 * -errno.
 */
#ifndef XDPLANE_WORKER_H
#define XDPLANE_WORKER_H

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include "counters.h"
#include "egress.h"
#include "policy.h"
#include "rx_task.h"
#include "wake_margin.h"

#define WORKER_MAX_TASKS 32

/* The poll.* settings (xdplane.yaml(5)), fixed for the worker's life. */
struct worker_poll {
	uint32_t busy_us; /* spin this long on empty rings, then sleep */
	uint32_t coalesce_us; /* 0: off; else nap this long after work */
	uint32_t shaper_spin_us; /* cap of the wake margin (wake_margin.h) */
	bool shaper_wait_spin; /* spin, not sleep, for shaped frames */
};

enum worker_state {
	WORKER_RUN = 0,
	WORKER_STOP, /* finish what is in flight (bounded), then exit */
};

struct worker {
	uint32_t id;
	int cpu; /* -1: not pinned */
	uint32_t busy_us;
	uint64_t coalesce_ns; /* poll.coalesce_us, 0: off */
	uint64_t nap_ns; /* coalesce_ns, or 0 while the policy has PFC on */
	/* how early it wakes for a shaped frame (worker only) */
	struct wake_margin wake;
	pthread_t thread;
	bool started;
	int wake_fd; /* eventfd */
	_Atomic int state;
	struct policy_gen **live; /* the gateway's published generation */
	/* the generation this worker runs (worker only): the control thread
	 * frees a generation only once no worker runs it (policy_publish) */
	struct policy_gen *cur;
	uint64_t gen; /* cur->gen (0: none) */
	_Atomic uint64_t applied_gen; /* = gen, for the control thread */
	_Atomic uint64_t refused_gen; /* last generation refused, 0: none */
	_Atomic int refused_err; /* why: the egress task's -errno */
	ctr_t reload_errors; /* generations this worker refused */
	ctr_t heartbeat; /* loop passes; an idle worker still wakes each second */
	/* CLOCK_MONOTONIC ns spent in passes that moved something (busy)
	 * and in passes that did not, spinning or asleep (idle): a polling
	 * worker's CPU time is always 100 %, its busy share is this */
	ctr_t busy_ns, idle_ns;
	/* of idle_ns, the time asleep in ppoll (the rest was spinning), and
	 * the number of sleeps; the worker's CPU share is 1 - sleep/(busy +
	 * idle) */
	ctr_t sleep_ns, sleeps;
	/* sleeps the timer ended, those that ended later than the margin the
	 * worker allowed, and deadlines waited for by spinning (closer than
	 * the margin) */
	ctr_t timed_wakes, late_wakes, spin_waits;
	/* of sleeps, the naps of poll.coalesce_us (timed, not ended by the
	 * sockets) */
	ctr_t naps;
	struct rx_task *rx[WORKER_MAX_TASKS];
	uint32_t n_rx;
	struct egress_task *eg[WORKER_MAX_TASKS];
	uint32_t n_eg;
	struct pollfd pfds[WORKER_MAX_TASKS + 1];
};

/* live: where the gateway publishes its policy generation; the worker
 * starts on generation *live (already given to its tasks).
 * Thread: the control thread, at set-up. Syscalls: eventfd2. */
int worker_init(struct worker *w, uint32_t id, int cpu,
		const struct worker_poll *poll, struct policy_gen **live);
/* Thread: the control thread, before worker_start(). Syscalls: none.
 * 0 or -ENOSPC. */
int worker_add_rx(struct worker *w, struct rx_task *t);
int worker_add_egress(struct worker *w, struct egress_task *t);
/* Start the thread, pinned to cpu (>= 0). Thread: the control thread.
 * Syscalls: mmap and mprotect (the stack), rt_sigprocmask, clone3
 * (pthread_create), openat + write + close of /proc/self/task/TID/comm
 * (the thread's name). 0 or -errno. */
int worker_start(struct worker *w);
/* Ask to stop and wait: in-flight frames get up to a second to leave.
 * Thread: the control thread. Syscalls: write(2) on wake_fd, futex
 * (pthread_join). */
void worker_stop(struct worker *w);
/* Thread: the control thread, after worker_stop(). Syscalls: close. */
void worker_fini(struct worker *w);
/* Wake a sleeping worker (it then looks for a new generation).
 * Thread: any. Syscalls: write(2) on wake_fd. */
void worker_wake(struct worker *w);
/* The generation the worker runs, and the last one it refused.
 * Thread: any (acquire loads). Syscalls: none. */
static inline uint64_t worker_applied_gen(struct worker *w)
{
	return atomic_load_explicit(&w->applied_gen, memory_order_acquire);
}
static inline uint64_t worker_refused_gen(struct worker *w)
{
	return atomic_load_explicit(&w->refused_gen, memory_order_acquire);
}

/* Switch the worker's tasks to generation g, all or nothing (see above).
 * The worker's own thread only (or, before it starts, its creator).
 * Returns 0, or the -errno of the egress task that refused g (the worker
 * still runs its previous generation, refused_gen = g->gen).
 * Syscalls: none, but logs a refusal. */
int worker_switch(struct worker *w, struct policy_gen *g);

#endif

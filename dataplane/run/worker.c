// SPDX-License-Identifier: BSD-2-Clause
/*
 * worker.c - see worker.h.
 */
#define _LGPL_SOURCE /* inline QSBR quiescent states */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <urcu/urcu-qsbr.h>
#include "idle_policy.h"
#include "log.h"
#include "worker.h"
#include "mono_clock.h"

#define WORKER_DRAIN_NS 1000000000ull
/* The worker's timer slack: a sleep until a shaper deadline ends this
 * close to it (the default 50 us slack would be added to every wake). */
#define WORKER_TIMER_SLACK_NS 1000ul

/* poll.coalesce_us under generation g: no naps while PFC is on (a nap
 * would delay the pause frames the worker receives and sends beyond what
 * the lossless classes' headroom allows). */
static uint64_t nap_ns_of(const struct worker *w, const struct policy_gen *g)
{
	return g && g->qos.pfc.enabled ? 0 : w->coalesce_ns;
}

int worker_init(struct worker *w, uint32_t id, int cpu,
		const struct worker_poll *poll, struct policy_gen **live)
{
	memset(w, 0, sizeof(*w));
	w->id = id;
	w->cpu = cpu;
	w->busy_us = poll->busy_us;
	w->coalesce_ns = (uint64_t)poll->coalesce_us * 1000;
	wake_margin_init(&w->wake, (uint64_t)poll->shaper_spin_us * 1000,
			 poll->shaper_wait_spin, mono_ns());
	atomic_init(&w->state, WORKER_RUN);
	w->live = live;
	w->cur = live ? *live : NULL;
	w->gen = w->cur ? w->cur->gen : 0;
	w->nap_ns = nap_ns_of(w, w->cur);
	atomic_init(&w->applied_gen, w->gen);
	w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return w->wake_fd < 0 ? -errno : 0;
}

int worker_add_rx(struct worker *w, struct rx_task *t)
{
	if (w->n_rx == WORKER_MAX_TASKS)
		return -ENOSPC;
	w->rx[w->n_rx++] = t;
	return 0;
}

int worker_add_egress(struct worker *w, struct egress_task *t)
{
	if (w->n_eg == WORKER_MAX_TASKS)
		return -ENOSPC;
	w->eg[w->n_eg++] = t;
	return 0;
}

int worker_switch(struct worker *w, struct policy_gen *g)
{
	uint32_t i, k;
	int err = 0;

	for (i = 0; i < w->n_eg && !err; i++)
		err = egress_task_reconfigure(w->eg[i], &g->qos);
	if (unlikely(err)) {
		/* task i - 1 refused: the ones before it go back */
		ctr_add(&w->reload_errors, 1);
		log_err("worker %u: egress task %u refused policy generation "
			"%llu (%s): the worker stays on generation %llu",
			w->id, i - 1, (unsigned long long)g->gen,
			strerror(-err), (unsigned long long)w->gen);
		for (k = 0; k + 1 < i && w->cur; k++)
			if (egress_task_reconfigure(w->eg[k], &w->cur->qos))
				log_err("worker %u: egress task %u could not "
					"go back to generation %llu",
					w->id, k, (unsigned long long)w->gen);
		atomic_store_explicit(&w->refused_err, err,
				      memory_order_relaxed);
		atomic_store_explicit(&w->refused_gen, g->gen,
				      memory_order_release);
		return err;
	}
	for (i = 0; i < w->n_eg; i++) {
		w->eg[i]->cls = &g->cls;
		w->eg[i]->dcq = &g->qos.dcqcn;
	}
	for (i = 0; i < w->n_rx; i++) {
		w->rx[i]->cls = &g->cls;
		rx_task_set_policy(w->rx[i], &g->qos);
	}
	w->cur = g;
	w->gen = g->gen;
	w->nap_ns = nap_ns_of(w, g);
	atomic_store_explicit(&w->applied_gen, g->gen, memory_order_release);
	return 0;
}

/* A newer policy generation is published: switch to it (policy.h), unless
 * this worker refused it already (the control thread rolls back). */
static void take_policy(struct worker *w)
{
	struct policy_gen *g;

	if (!w->live)
		return;
	g = __atomic_load_n(w->live, __ATOMIC_ACQUIRE); /* policy.h */
	if (likely(g->gen == w->gen))
		return;
	if (g->gen ==
	    atomic_load_explicit(&w->refused_gen, memory_order_relaxed))
		return;
	worker_switch(w, g);
}

/* One pass of every task at time now (one clock read per pass): what it
 * moved, and in *rx the frames it took from the RX rings (the arrivals
 * idle_policy.h counts; read from the RX tasks' own packet counters,
 * which this thread writes). */
static uint32_t run_tasks(struct worker *w, uint64_t now, uint32_t *rx)
{
	uint32_t work = 0, i;
	uint64_t before;

	*rx = 0;
	for (i = 0; i < w->n_rx; i++) {
		before = w->rx[i]->ctr.packets;
		work += rx_task_poll_at(w->rx[i], now);
		*rx += (uint32_t)(w->rx[i]->ctr.packets - before);
	}
	for (i = 0; i < w->n_eg; i++)
		work += egress_task_poll_at(w->eg[i], now);
	return work;
}

static bool tx_pending(const struct worker *w)
{
	for (uint32_t i = 0; i < w->n_eg; i++)
		if (w->eg[i]->outstanding)
			return true;
	return false;
}

/* How long the worker may sleep: until a shaped frame becomes sendable
 * (*shaped set), 1 ms while transmissions await completion, else 1 s (the
 * eventfd and the sockets wake it earlier). */
static uint64_t sleep_budget_ns(const struct worker *w, uint64_t now,
				bool *shaped)
{
	uint64_t budget = tx_pending(w) ? 1000000 : 1000000000, next;

	*shaped = false;
	for (uint32_t i = 0; i < w->n_eg; i++) {
		next = egress_task_next_event(w->eg[i], now);
		if (next == UINT64_MAX)
			continue;
		next = next > now ? next - now : 0;
		if (next <= budget) {
			budget = next;
			*shaped = true;
		}
	}
	return budget;
}

/* Sleep until a socket, the eventfd or the next shaper deadline (minus
 * the wake margin) wakes the worker; a deadline closer than the margin
 * is waited for by spinning. A nap (poll.coalesce_us) sleeps for at most
 * coalesce_ns whatever arrives: the sockets do not end it, so the frames
 * that arrive meanwhile are taken in one pass. Returns the time it
 * returned. */
static uint64_t sleep_until_work(struct worker *w, uint64_t now, bool nap)
{
	uint32_t n = w->n_rx;
	bool shaped;
	uint64_t v, ns = sleep_budget_ns(w, now, &shaped);
	uint64_t margin = wake_margin_ns(&w->wake);
	uint64_t woke;
	struct timespec ts;
	struct pollfd *pfds = w->pfds;
	int rc;

	if (ns <= margin) {
		ctr_add(&w->spin_waits, 1);
		wake_margin_spun(&w->wake, now);
		return now; /* due soon: keep polling, a late wake adds latency */
	}
	ns -= margin;
	if (nap && ns > w->nap_ns) {
		ns = w->nap_ns;
		shaped = false;
	}
	ts.tv_sec = ns / 1000000000ull;
	ts.tv_nsec = ns % 1000000000ull;
	for (uint32_t i = 0; i < n; i++) {
		/* a muted socket (test only, xsk_queue.h): not polled,
		 * since polling wakes its driver; ppoll skips fd -1 */
		w->pfds[i].fd = w->rx[i]->xq->mute ? -1 : w->rx[i]->xq->fd;
		w->pfds[i].events = POLLIN;
	}
	w->pfds[n].fd = w->wake_fd;
	w->pfds[n].events = POLLIN;
	if (nap) { /* the eventfd alone: stop, reload, a CNP to send */
		pfds = &w->pfds[n];
		n = 0;
		ctr_add(&w->naps, 1);
	}
	urcu_qsbr_thread_offline();
	rc = ppoll(pfds, n + 1, &ts, NULL);
	urcu_qsbr_thread_online();
	woke = mono_ns();
	ctr_add(&w->sleeps, 1);
	ctr_add(&w->sleep_ns, woke - now);
	if (rc == 0) {
		/* the timer ended it: how late was it? */
		uint64_t late = woke - now > ns ? woke - now - ns : 0;

		wake_margin_learn(&w->wake, late, woke);
		ctr_add(&w->timed_wakes, 1);
		/* late for a shaped frame: only when its deadline set the
		 * timer */
		if (shaped && late > margin)
			ctr_add(&w->late_wakes, 1);
	} else if (rc > 0 && (pfds[n].revents & POLLIN)) {
		(void)!read(w->wake_fd, &v, sizeof(v));
	}
	return woke;
}

/* Stop requested: run until nothing is in flight, for at most a second. */
static void drain(struct worker *w)
{
	uint64_t deadline = mono_ns() + WORKER_DRAIN_NS;
	uint32_t quiet = 0, rx;

	while (mono_ns() < deadline && quiet < 3) {
		if (run_tasks(w, mono_ns(), &rx) || tx_pending(w))
			quiet = 0;
		else
			quiet++;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct idle_policy idle;
	uint64_t now, last = mono_ns();
	uint32_t work, rx;

	idle_policy_init(&idle, (uint64_t)w->busy_us * 1000, w->nap_ns);
	urcu_qsbr_register_thread();
	/* ppoll's timeout ends within this of the deadline (the default
	 * 50 us would be lateness the shaped classes see) */
	(void)prctl(PR_SET_TIMERSLACK, WORKER_TIMER_SLACK_NS, 0, 0, 0);
	while (atomic_load_explicit(&w->state, memory_order_acquire) ==
	       WORKER_RUN) {
		enum idle_action act;

		ctr_add(&w->heartbeat, 1);
		take_policy(w);
		if (unlikely(idle.coalesce_ns != w->nap_ns))
			idle_policy_set_coalesce(&idle, w->nap_ns);
		/* the tasks run at the time the pass starts (the previous
		 * pass's end): one clock read per pass, which also splits the
		 * loop's time: busy if the pass moved something, else idle */
		work = run_tasks(w, last, &rx);
		urcu_qsbr_quiescent_state();
		now = mono_ns();
		ctr_add(work ? &w->busy_ns : &w->idle_ns, now - last);
		last = now;
		act = idle_policy_next(&idle, work, rx, now);
		if (likely(act == IDLE_PASS))
			continue;
		if (act == IDLE_SPIN) {
			cpu_relax();
			continue;
		}
		last = sleep_until_work(w, now, act == IDLE_NAP);
		ctr_add(&w->idle_ns, last - now); /* the sleep was idle time */
		idle_policy_slept(&idle, last - now);
	}
	drain(w);
	urcu_qsbr_unregister_thread();
	return NULL;
}

int worker_start(struct worker *w)
{
	pthread_attr_t attr;
	cpu_set_t set;
	char name[16];
	int err;

	pthread_attr_init(&attr);
	if (w->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	err = pthread_create(&w->thread, &attr, worker_main, w);
	pthread_attr_destroy(&attr);
	if (err)
		return -err;
	w->started = true;
	snprintf(name, sizeof(name), "xdplane-w%u", w->id);
	pthread_setname_np(w->thread, name);
	return 0;
}

void worker_wake(struct worker *w)
{
	uint64_t one = 1;

	(void)!write(w->wake_fd, &one, sizeof(one));
}

void worker_stop(struct worker *w)
{
	uint64_t one = 1;

	if (!w->started)
		return;
	atomic_store_explicit(&w->state, WORKER_STOP, memory_order_release);
	(void)!write(w->wake_fd, &one, sizeof(one));
	pthread_join(w->thread, NULL);
	w->started = false;
}

void worker_fini(struct worker *w)
{
	if (w->wake_fd >= 0)
		close(w->wake_fd);
	w->wake_fd = -1;
}

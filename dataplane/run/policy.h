/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * policy.h - the hot-reloadable part of a running gateway: the traffic
 * policy (classes, rates, weights, limits, ECN, rules) and the classifier
 * compiled from it, as one immutable object per generation.
 *
 * Publication (read-copy-update, grace periods from liburcu's QSBR
 * flavour):
 *  - The control thread builds a complete new struct policy_gen, validated
 *    for both egress ports, and publishes it in the gateway's `live`
 *    pointer with a release store; a worker reads `live` with an acquire
 *    load. (C11 atomics rather than rcu_assign_pointer/rcu_dereference:
 *    the same plain load on x86, and ThreadSanitizer understands them --
 *    it does not model liburcu's barriers and reports the publication as
 *    a race.) Nothing else ever changes a published generation.
 *  - Every worker is a QSBR reader: at the top of each pass it loads `live`
 *    and, when the generation number differs from the one
 *    it runs, switches (worker_switch, worker.h): each egress task first
 *    moves what waits in its handoff rings into its scheduler under the old
 *    policy, then reconfigures the scheduler in place (frames, counters and
 *    token levels carried over by class name, tc_sched.h); its RX tasks
 *    then classify with the new classifier. The RX tasks that feed an
 *    egress task through a handoff ring run on the same worker, so no frame
 *    classified under one generation meets a scheduler of another; the
 *    frames that do cross workers (the NP rings, egress.h) carry no class
 *    id. The worker then publishes the generation it runs (applied_gen,
 *    release). A switch is all or nothing: a worker whose egress task
 *    refuses the policy stays entirely on its generation and says so
 *    (refused_gen). Each pass ends in a quiescent state; a worker is
 *    offline while it sleeps.
 *  - The control thread (policy_publish) wakes every worker (eventfd),
 *    waits for a grace period (synchronize_rcu) and for every worker to
 *    take the generation or refuse it. If one refuses, it publishes the
 *    previous generation again and waits until every worker runs it, so
 *    that no two workers run different generations once the reload
 *    returns, and the reload fails with the reason. A generation is freed
 *    only when no worker runs it: a worker keeps pointers into the one it
 *    runs (its tasks' classifier, `cur`) across quiescent states.
 *  - Generation numbers are never reused (a refused one is burnt), so a
 *    worker can recognise the generation it refused.
 *
 * Contract of policy_publish (below): "Thread" says who may call it,
 * "Syscalls" every system call it may issue, liburcu's included. Errors:
 * 0 or -errno, with a one-line message in (errbuf, errlen).
 */
#ifndef XDPLANE_POLICY_H
#define XDPLANE_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include "classify.h"
#include "qos.h"

struct worker;

struct policy_gen {
	uint64_t gen; /* 1 at start, then increasing, never reused */
	struct qos_policy qos;
	struct classifier cls; /* compiled from qos */
};

/*
 * Publish generation `next` in *live for the n workers w (control thread;
 * calls synchronize_rcu, so the caller is not a registered reader) and
 * wait up to wait_ns for every started worker to take it.
 *  0           every worker runs next; *unused = the previous generation
 *              (free it).
 *  -ECANCELED  a worker refused next (errbuf: which, why): the previous
 *              generation is live again and every worker runs it;
 *              *unused = next, or NULL if a worker did not come back in
 *              time (keep next until the workers stop).
 *  -ETIMEDOUT  a worker took neither within wait_ns: next stays live,
 *              *unused = NULL (keep the previous one until the workers
 *              stop).
 * Thread: the control thread only (one publication at a time).
 * Syscalls: write(2) on the workers' eventfds, futex (liburcu's grace
 * period: urcu_qsbr_synchronize_rcu), clock_nanosleep while waiting.
 */
int policy_publish(struct policy_gen **live, struct worker *w, uint32_t n,
		   struct policy_gen *next, uint64_t wait_ns,
		   struct policy_gen **unused, char *errbuf, size_t errlen);

#endif

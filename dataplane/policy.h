/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * policy.h - the hot-reloadable part of a running gateway: the traffic
 * policy (classes, rates, weights, limits, ECN, rules) and the classifier
 * compiled from it, as one immutable object per generation.
 *
 * Publication (read-copy-update, liburcu's QSBR flavour):
 *  - The control thread builds a complete new struct policy_gen, validated
 *    for both egress ports, and publishes it with rcu_assign_pointer() in
 *    the gateway's `live` pointer. Nothing else ever changes a published
 *    generation.
 *  - Every worker is a QSBR reader: at the top of each pass it loads `live`
 *    (rcu_dereference) and, when the generation number differs from the one
 *    it runs, switches (worker.c): each egress task first moves what waits
 *    in its handoff rings into its scheduler under the old policy, then
 *    reconfigures the scheduler in place (frames, counters and token levels
 *    carried over by class name, tc_sched.h); its RX tasks then classify
 *    with the new classifier. The RX tasks that feed an egress task run on
 *    the same worker, so no frame classified under one generation meets a
 *    scheduler of another. The worker then publishes the generation it runs
 *    (applied_gen, release). Each pass ends in a quiescent state; a worker
 *    is offline while it sleeps.
 *  - The control thread wakes every worker (eventfd), waits for a grace
 *    period (synchronize_rcu) and for every worker's applied_gen, and only
 *    then frees the previous generation. A worker never dereferences a
 *    generation across a quiescent state other than through `live`.
 */
#ifndef XDPLANE_POLICY_H
#define XDPLANE_POLICY_H

#include <stdint.h>
#include "classify.h"
#include "qos.h"

struct policy_gen {
	uint64_t gen; /* 1 at start, +1 per reload */
	struct qos_policy qos;
	struct classifier cls; /* compiled from qos */
};

#endif

// SPDX-License-Identifier: BSD-2-Clause
/*
 * policy.c - publishing a policy generation to the workers: see policy.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <urcu/urcu-qsbr.h>
#include "mono_clock.h"
#include "policy.h"
#include "worker.h"

enum gen_progress { GEN_TAKEN, GEN_REFUSED, GEN_PENDING };

/* Where worker w stands with generation gen. */
static enum gen_progress progress(struct worker *w, uint64_t gen)
{
	if (!w->started || worker_applied_gen(w) == gen)
		return GEN_TAKEN;
	if (worker_refused_gen(w) == gen)
		return GEN_REFUSED;
	return GEN_PENDING;
}

/* Make g live, wake every worker, wait for a grace period and then until
 * no worker is pending (or the deadline). Returns the index of a worker
 * that refused g, -1 if none did; *pending: workers still pending. */
static int switch_to(struct policy_gen **live, struct worker *w, uint32_t n,
		     struct policy_gen *g, uint64_t wait_ns, uint32_t *pending)
{
	uint64_t deadline;
	int refused;

	__atomic_store_n(live, g, __ATOMIC_RELEASE); /* policy.h */
	for (uint32_t i = 0; i < n; i++)
		worker_wake(&w[i]);
	urcu_qsbr_synchronize_rcu();
	deadline = mono_ns() + wait_ns;
	for (;;) {
		struct timespec ms = {0, 1000000};

		refused = -1;
		*pending = 0;
		for (uint32_t i = 0; i < n; i++) {
			enum gen_progress p = progress(&w[i], g->gen);

			*pending += p == GEN_PENDING;
			if (p == GEN_REFUSED && refused < 0)
				refused = (int)i;
		}
		if (!*pending || mono_ns() > deadline)
			return refused;
		nanosleep(&ms, NULL);
	}
}

int policy_publish(struct policy_gen **live, struct worker *w, uint32_t n,
		   struct policy_gen *next, uint64_t wait_ns,
		   struct policy_gen **unused, char *errbuf, size_t errlen)
{
	struct policy_gen *prev = *live;
	uint32_t pending;
	int refused, back;

	*unused = NULL;
	refused = switch_to(live, w, n, next, wait_ns, &pending);
	if (refused < 0 && !pending) {
		*unused = prev;
		return 0;
	}
	if (refused < 0) {
		snprintf(errbuf, errlen,
			 "%u worker%s did not take generation %llu within "
			 "%llu ms",
			 pending, pending > 1 ? "s" : "",
			 (unsigned long long)next->gen,
			 (unsigned long long)(wait_ns / 1000000));
		return -ETIMEDOUT;
	}
	/* all or nothing: every worker back to the previous generation */
	back = switch_to(live, w, n, prev, wait_ns, &pending);
	snprintf(errbuf, errlen,
		 "worker %d could not apply generation %llu (%s): "
		 "%s generation %llu",
		 refused, (unsigned long long)next->gen,
		 strerror(-atomic_load_explicit(&w[refused].refused_err,
						memory_order_relaxed)),
		 back < 0 && !pending ? "every worker is back on"
				      : "some workers did not return to",
		 (unsigned long long)prev->gen);
	if (back < 0 && !pending)
		*unused = next;
	return -ECANCELED;
}

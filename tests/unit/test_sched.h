/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sched.h - what the unit tests of the egress scheduler
 * (test_sched_*.c, dataplane/sched/tc_sched.c) share: policies and classes,
 * a fake clock (a uint64_t the test advances), frame sizes fixed or mixed,
 * enq(), and run() / run_limited(), which poll like the egress worker:
 * every STEP_NS the queues are topped up (kept backlogged) and the
 * scheduler is drained of what it allows at that instant; shares are
 * measured in charged bytes (frame length + port overhead) over virtual
 * time after a warm-up. Each test file uses some of them.
 */
#ifndef XDPLANE_TEST_SCHED_H
#define XDPLANE_TEST_SCHED_H

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "tc_sched.h"

#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull
#define STEP_NS 1000ull
#define OVH 24
#define SHARE(pct) ((uint32_t)((uint64_t)QOS_PROB_ONE * (pct) / 100))

static inline void policy_init(struct qos_policy *p, uint64_t rate_bps,
			       uint32_t burst)
{
	memset(p, 0, sizeof(*p));
	p->port[0].rate_bps = rate_bps;
	p->port[0].burst = burst;
	p->port[0].overhead = OVH;
	p->port[1] = p->port[0];
}

static inline struct qos_class *add_class(struct qos_policy *p, uint8_t level,
					  uint32_t quantum)
{
	struct qos_class *c = &p->classes[p->n_classes++];

	snprintf(c->name, sizeof(c->name), "c%u", p->n_classes - 1);
	c->level = level;
	c->quantum = quantum;
	c->limit_packets = 1024;
	c->limit_bytes = 16u << 20;
	return c;
}

static __attribute__((unused)) uint64_t lcg_state;

static inline uint32_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(lcg_state >> 33);
}

/* frame sizes: fixed, or uniform 64..9000 (deterministic) */
static __attribute__((unused)) uint32_t fixed_len = 1500;

static inline uint32_t size_fixed(unsigned int cls)
{
	return fixed_len;
}

static inline uint32_t size_mixed(unsigned int cls)
{
	return 64 + lcg() % (9000 - 64 + 1);
}

static __attribute__((unused)) uint64_t next_addr;

static inline int enq(struct sched *s, unsigned int cls, uint32_t len,
		      uint64_t now)
{
	struct frame_desc d = {
		.addr = next_addr++,
		.len = len,
		.meta = frame_meta_pack(cls, ECN_NOT_ECT, ECN_L3_NONE, 0),
	};

	return sched_enqueue(s, &d, NULL, now);
}

static __attribute__((unused))
uint64_t run_from; /* run_limited() starts at this time */

struct result {
	uint64_t bytes[QOS_MAX_CLASSES]; /* charged, in the window */
	uint64_t total;
};

/* Poll every STEP_NS from 0 to warm + dur; keep the classes of `mask`
 * backlogged (32 frames at each poll); take what the scheduler allows, at
 * most per_step frames per poll (an unshaped port allows everything: the
 * limit keeps the queues from running dry); count what leaves in
 * [warm, warm + dur). */
static inline void run_limited(struct sched *s, uint32_t mask, uint64_t warm,
			       uint64_t dur, uint32_t (*size)(unsigned int),
			       uint32_t per_step, struct result *res)
{
	struct frame_desc out[64];
	uint32_t n, left;

	memset(res, 0, sizeof(*res));
	for (uint64_t now = run_from; now < run_from + warm + dur;
	     now += STEP_NS) {
		for (unsigned int c = 0; c < QOS_MAX_CLASSES; c++) {
			const struct sched_class_stats *st;

			if (!(mask & (1u << c)))
				continue;
			st = sched_class_stats(s, c);
			while (sched_depth_packets(st) < 32)
				assert_int_equal(enq(s, c, size(c), now), 0);
		}
		left = per_step;
		do {
			n = sched_dequeue(s, out, MIN(64, left), now);
			left -= n;
			if (now < run_from + warm)
				continue;
			for (uint32_t i = 0; i < n; i++) {
				uint64_t b = out[i].len + OVH;

				res->bytes[frame_meta_class(out[i].meta)] += b;
				res->total += b;
			}
		} while (n == 64 && left);
	}
}

static inline void run(struct sched *s, uint32_t mask, uint64_t warm,
		       uint64_t dur, uint32_t (*size)(unsigned int),
		       struct result *res)
{
	run_limited(s, mask, warm, dur, size, UINT32_MAX, res);
}

static inline void assert_rel(const char *what, double got, double want,
			      double tol)
{
	double err = (got - want) / want;

	printf("  %-28s %.6f (want %.6f, %+.4f%%)\n", what, got, want,
	       err * 100);
	assert_true(fabs(err) <= tol);
}

#endif

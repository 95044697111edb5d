/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_dcqcn.h - what the unit tests of DCQCN (test_dcqcn_*.c,
 * dataplane/cc/dcqcn.c) share: rate units, the event names, NEAR() (rates
 * compared to 1e-9 relative), EXPECT() of the events a step must yield in
 * order on a fake clock (plain now_ns values), and the parameters of both
 * profiles at a line rate, step_all() to the end of the due events. Each
 * test file uses some of them.
 */
#ifndef XDPLANE_TEST_DCQCN_H
#define XDPLANE_TEST_DCQCN_H

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "dcqcn.h"

#define G 1e9
#define M 1e6
#define US 1000ull
#define NEVER UINT64_MAX
#define B_PAPER 10000000ull /* paper byte counter */

#define FR DCQCN_EV_FAST_RECOVERY
#define AI DCQCN_EV_ADDITIVE
#define HY DCQCN_EV_HYPER
#define AL DCQCN_EV_ALPHA
#define CUT DCQCN_EV_CUT
#define NONE DCQCN_EV_NONE

static inline void near_rel(double got, double want, double tol,
			    const char *what, int line)
{
	if (fabs(got - want) <= tol * fabs(want))
		return;
	fail_msg("line %d: %s = %.17g, want %.17g", line, what, got, want);
}

#define NEAR(got, want) near_rel((got), (want), 1e-9, #got, __LINE__)

struct ev {
	enum dcqcn_event e;
	uint64_t at;
};

/* Step every timer due by now_ns; the events must be exactly want[]. */
static inline void expect_events(struct dcqcn_rp *rp,
				 const struct dcqcn_params *p, uint64_t now_ns,
				 const struct ev *want, size_t n, int line)
{
	size_t i = 0;
	uint64_t at;
	enum dcqcn_event e;

	while ((e = dcqcn_rp_step(rp, p, now_ns, &at)) != NONE) {
		if (i >= n)
			fail_msg("line %d: extra event %s at %llu", line,
				 dcqcn_event_name(e), (unsigned long long)at);
		if (e != want[i].e || at != want[i].at)
			fail_msg("line %d: event %zu is %s at %llu, want %s "
				 "at %llu",
				 line, i, dcqcn_event_name(e),
				 (unsigned long long)at,
				 dcqcn_event_name(want[i].e),
				 (unsigned long long)want[i].at);
		i++;
	}
	if (i != n)
		fail_msg("line %d: %zu events, want %zu", line, i, n);
}

#define EXPECT(rp, p, now, ...)                                                \
	do {                                                                   \
		const struct ev w_[] = {__VA_ARGS__};                          \
		expect_events((rp), (p), (now), w_,                            \
			      sizeof(w_) / sizeof(w_[0]), __LINE__);           \
	} while (0)
#define EXPECT_NONE(rp, p, now)                                                \
	expect_events((rp), (p), (now), NULL, 0, __LINE__)

static inline struct dcqcn_params paper(double line)
{
	struct dcqcn_params p;

	dcqcn_params_default(&p, DCQCN_PAPER, line);
	assert_int_equal(dcqcn_params_check(&p, NULL), 0);
	return p;
}

static inline struct dcqcn_params connectx(double line)
{
	struct dcqcn_params p;

	dcqcn_params_default(&p, DCQCN_CONNECTX, line);
	assert_int_equal(dcqcn_params_check(&p, NULL), 0);
	return p;
}

static inline void step_all(struct dcqcn_rp *rp, const struct dcqcn_params *p,
			    uint64_t now_ns)
{
	uint64_t at;

	while (dcqcn_rp_step(rp, p, now_ns, &at) != NONE)
		;
}

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dp_assert.h - invariants checked while running.
 *
 * DP_ASSERT(cond) aborts with the condition, file and line when cond is
 * false, in builds configured with XDPLANE_ASSERTS (Debug builds, CI's
 * sanitizer builds, and CI's run of the integration tests). In release
 * builds it compiles to nothing and cond is not evaluated: never put a side
 * effect in it. DP_ASSERTS_ON says which (for checks that need code of
 * their own, e.g. a walk over a queue).
 */
#ifndef XDPLANE_DP_ASSERT_H
#define XDPLANE_DP_ASSERT_H

#include "bits.h"

#ifdef XDPLANE_ASSERTS
#include <stdio.h>
#include <stdlib.h>

__attribute__((noreturn, cold)) static inline void
dp_assert_fail(const char *cond, const char *file, int line)
{
	fprintf(stderr, "%s:%d: dataplane invariant broken: %s\n", file, line,
		cond);
	abort();
}
#define DP_ASSERT(cond)                                                        \
	(likely(cond) ? (void)0 : dp_assert_fail(#cond, __FILE__, __LINE__))
#define DP_ASSERTS_ON 1
#else
#define DP_ASSERT(cond) ((void)sizeof(!(cond)))
#define DP_ASSERTS_ON 0
#endif

#endif

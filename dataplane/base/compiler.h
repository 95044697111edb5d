/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * compiler.h - small helpers shared by the whole dataplane.
 *
 * Counters: every counter has exactly one writer thread. The writer updates
 * it with ctr_add() (a plain read, then a relaxed atomic store: no locked
 * instruction); any other thread reads it with ctr_read() (a relaxed atomic
 * load). This keeps the hot path free of atomics read-modify-writes while
 * giving readers tear-free values and keeping the code race-free for TSan.
 */
#ifndef XDPLANE_COMPILER_H
#define XDPLANE_COMPILER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CACHELINE 64
#define __cacheline_aligned __attribute__((aligned(CACHELINE)))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/*
 * Invariants checked while running: DP_ASSERT(cond) aborts with the
 * condition, file and line when cond is false, in builds configured with
 * XDPLANE_ASSERTS (Debug builds, CI's sanitizer builds, and CI's run of the
 * integration tests). In release builds it compiles to nothing and cond is
 * not evaluated: never put a side effect in it.
 */
#ifdef XDPLANE_ASSERTS
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

typedef uint64_t ctr_t;

static inline void ctr_add(ctr_t *c, uint64_t n)
{
	__atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

/* Writer only: start a counter over (a slot reused for something new). */
static inline void ctr_set(ctr_t *c, uint64_t v)
{
	__atomic_store_n(c, v, __ATOMIC_RELAXED);
}

static inline uint64_t ctr_read(const ctr_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* CLOCK_MONOTONIC in nanoseconds: the one clock every task and the
 * control thread read (a vDSO call, no syscall). */
static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

static inline int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static inline unsigned int ilog2_u64(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

#endif

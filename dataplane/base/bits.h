/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bits.h - the compiler and arithmetic helpers every layer uses: cache-line
 * alignment, branch hints, MIN/MAX, ages of times, powers of two, the
 * spin-wait hint.
 * Nothing here has state; any thread may use any of it.
 */
#ifndef XDPLANE_BITS_H
#define XDPLANE_BITS_H

#include <stdint.h>

#define CACHELINE 64
#define __cacheline_aligned __attribute__((aligned(CACHELINE)))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* How long before now t was, for two times of one clock; 0 when t is
 * after now (a time another thread read after the caller read now: its
 * pass started later). */
static inline uint64_t age_ns(uint64_t now, uint64_t t)
{
	return now > t ? now - t : 0;
}

/* Tell the CPU we are spinning (a polling loop's pause). */
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

/* floor(log2(v)), v > 0. */
static inline unsigned int ilog2_u64(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

#endif

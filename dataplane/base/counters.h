/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * counters.h - single-writer statistics counters.
 *
 * Every counter has exactly one writer thread. The writer updates it with
 * ctr_add() (a plain read, then a relaxed atomic store: no locked
 * instruction); any other thread reads it with ctr_read() (a relaxed atomic
 * load). This keeps the hot path free of atomic read-modify-writes while
 * giving readers tear-free values and keeping the code race-free for TSan.
 */
#ifndef XDPLANE_COUNTERS_H
#define XDPLANE_COUNTERS_H

#include <stdint.h>

typedef uint64_t ctr_t;

/* Writer only. */
static inline void ctr_add(ctr_t *c, uint64_t n)
{
	__atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

/* Writer only: start a counter over (a slot reused for something new). */
static inline void ctr_set(ctr_t *c, uint64_t v)
{
	__atomic_store_n(c, v, __ATOMIC_RELAXED);
}

/* Any thread. */
static inline uint64_t ctr_read(const ctr_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mono_clock.h - the one clock of the gateway: CLOCK_MONOTONIC in
 * nanoseconds, read by every task (once per pass) and by the control
 * thread. A vDSO call: no syscall. Pure modules never read it: they take
 * `now` from their caller (so tests and the simulator run on virtual
 * time).
 */
#ifndef XDPLANE_MONO_CLOCK_H
#define XDPLANE_MONO_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spsc_ring.h - bounded single-producer single-consumer rings, lock-free,
 * burst enqueue and dequeue. DEFINE_SPSC_RING(name, type) generates a ring
 * of `type` elements and its functions name_init/_fini/_enqueue/_dequeue/
 * _room/_count.
 *
 * Ownership: exactly one producer thread calls _enqueue and _room, exactly one
 * consumer thread calls _dequeue, for the whole life of the ring. _count may
 * be called by anyone (a snapshot), _init/_fini only while no thread uses it.
 *
 * Layout: the producer's index and its cached copy of the consumer's index
 * share one cache line that only the producer writes; the consumer's index
 * and its cached copy of the producer's index share another that only the
 * consumer writes; the read-only geometry sits on a third. So in the steady
 * state a burst touches the other side's line once (when the cached index
 * says the ring looks full or empty), not once per element.
 *
 * Memory ordering (the weakest that is correct):
 *  - producer: writes the slots, then store-release of prod.head. The
 *    consumer's load-acquire of prod.head therefore sees the slot contents.
 *  - consumer: reads the slots, then store-release of cons.tail. The
 *    producer's load-acquire of cons.tail therefore orders its later slot
 *    writes after the consumer's reads (no overwrite of an unread slot).
 *  - each side reads its own index with a relaxed load (it is its writer).
 * Indices are free-running 32-bit counters; size is a power of two, so
 * head - tail is the occupancy even across wrap-around.
 */
#ifndef XDPLANE_SPSC_RING_H
#define XDPLANE_SPSC_RING_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h> /* explicit_bzero */
#include "bits.h"

#define DEFINE_SPSC_RING(name, type)                                           \
	struct name {                                                          \
		struct {                                                       \
			type *slots;                                           \
			uint32_t mask;                                         \
			uint32_t size;                                         \
		} __cacheline_aligned geo;                                     \
		struct {                                                       \
			_Atomic uint32_t head;                                 \
			uint32_t cached_tail;                                  \
		} __cacheline_aligned prod;                                    \
		struct {                                                       \
			_Atomic uint32_t tail;                                 \
			uint32_t cached_head;                                  \
		} __cacheline_aligned cons;                                    \
	};                                                                     \
                                                                               \
	/* size: a power of two. Returns 0, or -1 (ENOMEM/EINVAL). */          \
	static inline __attribute__((unused)) int name##_init(struct name *r,  \
							      uint32_t size)   \
	{                                                                      \
		void *mem = NULL;                                              \
		if (!is_pow2(size) ||                                          \
		    posix_memalign(&mem, CACHELINE,                            \
				   (size_t)size * sizeof(type)))               \
			return -1;                                             \
		/* touch every page now: the RSS must not creep up as the   \
		 * indices first walk the ring (t-fault-overload) */  \
		explicit_bzero(mem, (size_t)size * sizeof(type));              \
		r->geo.slots = mem;                                            \
		r->geo.size = size;                                            \
		r->geo.mask = size - 1;                                        \
		atomic_init(&r->prod.head, 0);                                 \
		atomic_init(&r->cons.tail, 0);                                 \
		r->prod.cached_tail = 0;                                       \
		r->cons.cached_head = 0;                                       \
		return 0;                                                      \
	}                                                                      \
                                                                               \
	static inline __attribute__((unused)) void name##_fini(struct name *r) \
	{                                                                      \
		free(r->geo.slots);                                            \
		r->geo.slots = NULL;                                           \
	}                                                                      \
                                                                               \
	/* Producer: enqueue up to n; returns how many were taken. */          \
	static inline __attribute__((unused))                                  \
	uint32_t name##_enqueue(struct name *r, const type *items, uint32_t n) \
	{                                                                      \
		uint32_t head = atomic_load_explicit(&r->prod.head,            \
						     memory_order_relaxed);    \
		uint32_t room = r->geo.size - (head - r->prod.cached_tail);    \
		if (room < n) {                                                \
			r->prod.cached_tail = atomic_load_explicit(            \
				&r->cons.tail, memory_order_acquire);          \
			room = r->geo.size - (head - r->prod.cached_tail);     \
			if (n > room)                                          \
				n = room;                                      \
		}                                                              \
		for (uint32_t i = 0; i < n; i++)                               \
			r->geo.slots[(head + i) & r->geo.mask] = items[i];     \
		atomic_store_explicit(&r->prod.head, head + n,                 \
				      memory_order_release);                   \
		return n;                                                      \
	}                                                                      \
                                                                               \
	/* Consumer: dequeue up to n; returns how many were taken. */          \
	static inline __attribute__((unused))                                  \
	uint32_t name##_dequeue(struct name *r, type *items, uint32_t n)       \
	{                                                                      \
		uint32_t tail = atomic_load_explicit(&r->cons.tail,            \
						     memory_order_relaxed);    \
		uint32_t avail = r->cons.cached_head - tail;                   \
		if (avail < n) {                                               \
			r->cons.cached_head = atomic_load_explicit(            \
				&r->prod.head, memory_order_acquire);          \
			avail = r->cons.cached_head - tail;                    \
			if (n > avail)                                         \
				n = avail;                                     \
		}                                                              \
		for (uint32_t i = 0; i < n; i++)                               \
			items[i] = r->geo.slots[(tail + i) & r->geo.mask];     \
		atomic_store_explicit(&r->cons.tail, tail + n,                 \
				      memory_order_release);                   \
		return n;                                                      \
	}                                                                      \
                                                                               \
	/* Producer: free slots now (they can only grow until it enqueues). */ \
	static inline __attribute__((unused))                                  \
	uint32_t name##_room(struct name *r)                                   \
	{                                                                      \
		uint32_t head = atomic_load_explicit(&r->prod.head,            \
						     memory_order_relaxed);    \
		uint32_t tail = atomic_load_explicit(&r->cons.tail,            \
						     memory_order_acquire);    \
		return r->geo.size - (head - tail);                            \
	}                                                                      \
                                                                               \
	/* Anyone: occupancy snapshot. */                                      \
	static inline __attribute__((unused))                                  \
	uint32_t name##_count(struct name *r)                                  \
	{                                                                      \
		uint32_t t = atomic_load_explicit(&r->cons.tail,               \
						  memory_order_acquire);       \
		uint32_t h = atomic_load_explicit(&r->prod.head,               \
						  memory_order_acquire);       \
		return h - t;                                                  \
	}                                                                      \
                                                                               \
	/* Quiescent ring only (no thread using it): visit every element. */   \
	static inline __attribute__((unused)) void name##_foreach(             \
		struct name *r, void (*fn)(const type *, void *), void *arg)   \
	{                                                                      \
		uint32_t t = atomic_load_explicit(&r->cons.tail,               \
						  memory_order_acquire);       \
		uint32_t h = atomic_load_explicit(&r->prod.head,               \
						  memory_order_acquire);       \
		for (; t != h; t++)                                            \
			fn(&r->geo.slots[t & r->geo.mask], arg);               \
	}

#endif

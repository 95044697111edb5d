/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * umem.h - the UMEM of a port pair and the accounting of its frames.
 *
 * One UMEM is shared by every AF_XDP socket of both ports (XDP_SHARED_UMEM),
 * so a frame received on one port is transmitted on the other by passing its
 * address: no copy.
 *
 * Partitions: the frames are split into equal, power-of-two sized partitions,
 * one per RX task. An RX task owns its partition's frames: it alone feeds
 * them to its fill ring and takes them back. The owner of any address is
 * umem_owner(addr), a shift: no table, no division.
 *
 * Places: at every moment each frame is in exactly one of
 *   - its owner's free pool              (struct frame_pool, owner thread)
 *   - the owner's fill ring              (kernel, producer: owner)
 *   - the owner's RX ring                (kernel, consumer: owner)
 *   - a handoff ring                     (owner -> an egress task)
 *   - an egress socket's TX ring         (kernel, producer: egress task)
 *   - that socket's completion ring      (kernel, consumer: egress task)
 *   - a return ring                      (egress task -> owner)
 *   - held by a zero-copy driver         (counted, not addressable)
 *   - the owner's chain under assembly   (multi-buffer, owner thread)
 * A multi-buffer packet (frame_chain.h) is one entry of a handoff ring or
 * class queue but several frames, all of its RX task's partition: the
 * census and every drop path walk its chain record.
 * The census (umem_census_*) walks all of them once the workers are stopped
 * and checks that every frame is found exactly once.
 *
 * Memory: umem_area_init() binds the area to a NUMA node (mbind(2),
 * MPOL_BIND) before any page is faulted in, then faults every page in
 * (MADV_POPULATE_WRITE, which reports a failure instead of raising
 * SIGBUS), so the pages are where the NIC is from the first frame on.
 * With hugepages it maps 2 MiB pages (MAP_HUGETLB, the size rounded up)
 * and falls back to 4 KiB pages, saying why in its message, when too few
 * are free (on the node) or the mapping fails. A binding that the kernel
 * refuses (no such node, outside the cgroup's cpuset.mems) is reported
 * and the area keeps the default policy: placement is an optimisation,
 * never a reason not to start.
 *
 * Contracts, per function below: "Thread" says who may call it,
 * "Syscalls" every system call it may issue, the libraries' included
 * ("allocates": malloc/free, which may issue brk, mmap, munmap; "none":
 * plain memory). Errors: 0 or -errno. umem_area_init() says what it
 * mapped, or why not as asked, in (msg, msglen) (the message parameters
 * of dataplane/: dataplane/README.md).
 */
#ifndef XDPLANE_UMEM_H
#define XDPLANE_UMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bits.h"
#include "dp_assert.h"

struct umem_area {
	void *base;
	size_t size; /* bytes */
	uint32_t frame_size; /* power of two */
	uint32_t frame_shift; /* log2(frame_size) */
	uint32_t n_frames; /* n_parts << part_shift */
	uint32_t n_parts;
	uint32_t part_shift; /* log2(frames per partition) */
	size_t map_size; /* bytes mapped: size rounded up to the page size */
	bool hugepages; /* backed by 2 MiB pages */
	int mem_node; /* NUMA node the pages are bound to; -1: none */
};

/* Map the area: n_parts partitions of the largest power of two of frames
 * that fits in max_frames / n_parts; bind it to NUMA node mem_node (-1: no
 * binding); in 2 MiB pages if hugepages and enough are free, else in
 * normal pages. msg (len bytes, may be NULL) gets one line on what was
 * done, e.g. "no hugepages reserved (vm.nr_hugepages = 0): using 4 KiB
 * pages; UMEM 131072 KiB (32768 frames of 4096 bytes) in 4 KiB pages,
 * bound to NUMA node 0". Returns 0 or -errno (only when no memory could be
 * mapped at all).
 * Thread: the control thread, at set-up (before any socket uses the area).
 * Syscalls: mmap(MAP_ANONYMOUS, with MAP_HUGETLB | MAP_HUGE_2MB when
 * hugepages), mbind(MPOL_BIND) when mem_node >= 0,
 * madvise(MADV_HUGEPAGE) on normal pages (transparent huge pages where
 * THP is not "never": a 4 KiB frame per page made every frame read a TLB
 * miss), madvise(MADV_POPULATE_WRITE), munmap on failure; openat, read,
 * close of /proc/self/smaps (how much THP backs, for msg); with
 * hugepages also openat, read, close of
 * /sys/kernel/mm/hugepages/.../nr_hugepages and free_hugepages (of the
 * node's when bound). */
int umem_area_init(struct umem_area *u, uint32_t max_frames,
		   uint32_t frame_size, uint32_t n_parts, int mem_node,
		   bool hugepages, char *msg, size_t msglen);
/* The same with normal pages, no binding, no message (tests, benches).
 * Thread: any, one per area. Syscalls: mmap, madvise, munmap on failure. */
int umem_area_init_plain(struct umem_area *u, uint32_t max_frames,
			 uint32_t frame_size, uint32_t n_parts);
/* Unmap. Thread: the control thread, once no socket and no worker uses the
 * area. Syscalls: munmap. */
void umem_area_fini(struct umem_area *u);

/* Address arithmetic: any thread, syscalls none. */
static inline uint32_t umem_frames_per_part(const struct umem_area *u)
{
	return 1u << u->part_shift;
}

static inline uint64_t umem_frame_start(const struct umem_area *u,
					uint64_t addr)
{
	return addr & ~((uint64_t)u->frame_size - 1);
}

static inline uint32_t umem_owner(const struct umem_area *u, uint64_t addr)
{
	return (uint32_t)(addr >> (u->frame_shift + u->part_shift));
}

/*
 * The frame pool: a LIFO stack of the frame start addresses of one
 * partition. One owner thread (the partition's RX task; an egress task of
 * the same worker unit borrows frames for the CNP and PFC frames it
 * builds).
 *
 * Only frames of the pool's own partition ever enter it: a frame start in
 * [lo, hi). An address that comes from the kernel (RX, completion rings)
 * is checked with frame_pool_owns() before it is put back; an address no
 * partition of ours could hold is counted by the caller and dropped, never
 * pooled (it would be handed to the kernel's fill ring as ours). With
 * XDPLANE_ASSERTS, every put checks the bounds, the alignment and the
 * room, every get the count.
 *
 * Thread: init and fini by the control thread (set-up, tear-down), the
 * rest by the owner thread. Syscalls: init and fini allocate; the rest
 * none.
 */
struct frame_pool {
	uint64_t *addrs;
	uint32_t count;
	uint32_t cap;
	uint64_t lo, hi; /* the partition's bytes: frame starts in [lo, hi) */
	uint64_t frame_mask; /* frame_size - 1 */
};

/* Fill the pool with every frame of partition `part`. */
int frame_pool_init(struct frame_pool *p, const struct umem_area *u,
		    uint32_t part);
void frame_pool_fini(struct frame_pool *p);

/* Does frame start `start` belong to the pool's partition? */
static inline bool frame_pool_owns(const struct frame_pool *p, uint64_t start)
{
	return start - p->lo < p->hi - p->lo;
}

/* Never overflows: a pool has room for every frame of its partition, and
 * only frames of it are put (checked with XDPLANE_ASSERTS). */
static inline void frame_pool_put(struct frame_pool *p, uint64_t addr)
{
	DP_ASSERT(frame_pool_owns(p, addr) && !(addr & p->frame_mask));
	DP_ASSERT(p->count < p->cap);
	p->addrs[p->count++] = addr;
}

/* Take a frame; the caller checked that count > 0. */
static inline uint64_t frame_pool_get(struct frame_pool *p)
{
	DP_ASSERT(p->count > 0);
	return p->addrs[--p->count];
}

/* A frame the kernel gave this task (RX ring) that goes no further: back
 * to the pool when it is one of the partition's (it came from our fill
 * ring), else nowhere -- no kernel could have produced it. Returns
 * whether it was taken back. */
static inline bool frame_pool_reclaim(struct frame_pool *p,
				      const struct umem_area *u, uint64_t addr)
{
	uint64_t start = umem_frame_start(u, addr);

	if (unlikely(!frame_pool_owns(p, start)))
		return false;
	frame_pool_put(p, start);
	return true;
}

/* Census: one bit per frame, set when a place reports holding it.
 * Thread: the control thread, once every worker has stopped (nothing
 * moves). Syscalls: init and fini allocate (-ENOMEM); the rest none. */
struct umem_census {
	const struct umem_area *u;
	uint64_t *bits;
	uint64_t found; /* frames reported exactly once so far */
	uint64_t doubles; /* reports of a frame already found */
	uint64_t strays; /* addresses outside the UMEM */
	uint64_t uncounted; /* frames held by a driver (zero-copy), by count */
};

int umem_census_init(struct umem_census *c, const struct umem_area *u);
void umem_census_fini(struct umem_census *c);
void umem_census_add(struct umem_census *c, uint64_t addr);
/* Frames nobody reported (leaked). */
uint64_t umem_census_missing(const struct umem_census *c);

/* Report frame start *addr to the census passed as arg: the callback of
 * the walkers of frame addresses (return_ring_foreach). */
static inline void umem_census_addr(const uint64_t *addr, void *census)
{
	umem_census_add(census, *addr);
}

#endif

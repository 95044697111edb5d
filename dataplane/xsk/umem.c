// SPDX-License-Identifier: BSD-2-Clause
/*
 * umem.c - UMEM area (mapping, NUMA binding, hugepages), frame pools and
 * the frame census. See umem.h.
 *
 * Hugepages are checked before they are mapped: the pool's free count (on
 * the node when binding) against the pages needed, so that the fallback
 * message can say which is short; the mapping itself, and faulting the
 * pages in with MADV_POPULATE_WRITE (an error, not SIGBUS, when a node
 * runs out), have the last word. Normal pages are sysconf(_SC_PAGESIZE)
 * bytes (4 KiB on x86_64), and messages name their real size.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/mempolicy.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "bits.h"
#include "umem.h"

#define HUGE_PAGE (2ul << 20)
#define MAX_NODES 1024 /* nodes mbind() is given a mask for */
#define HUGE_SYSFS "/hugepages/hugepages-2048kB/"
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

__attribute__((format(printf, 3, 4))) static void note(char *msg, size_t msglen,
						       const char *fmt, ...)
{
	size_t at;
	va_list ap;

	if (!msg || !msglen)
		return;
	at = strnlen(msg, msglen);
	if (at + 1 >= msglen)
		return;
	va_start(ap, fmt);
	vsnprintf(msg + at, msglen - at, fmt, ap);
	va_end(ap);
}

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

/* A number from a sysfs or procfs file, or -1. */
static long read_long(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Free 2 MiB pages on node (the machine for -1); -1 if unknown. */
static long huge_free(int node)
{
	char path[128];

	if (node < 0)
		return read_long("/sys/kernel/mm" HUGE_SYSFS "free_hugepages");
	snprintf(path, sizeof(path),
		 "/sys/devices/system/node/node%d" HUGE_SYSFS "free_hugepages",
		 node);
	return read_long(path);
}

/* MPOL_BIND the range to node. Returns 0 or -errno. */
static int bind_node(void *base, size_t len, int node)
{
	unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long))] = {0};
	const size_t bits = 8 * sizeof(unsigned long);

	if (node < 0 || node >= MAX_NODES)
		return -EINVAL;
	mask[node / bits] = 1ul << (node % bits);
	/* maxnode counts one more than the mask's bits (mbind(2)) */
	if (syscall(SYS_mbind, base, len, MPOL_BIND, mask, MAX_NODES + 1, 0))
		return -errno;
	return 0;
}

/* Fault every page in, under the area's policy. Returns 0 or -errno. */
static int populate(void *base, size_t len, size_t page)
{
	if (!madvise(base, len, MADV_POPULATE_WRITE))
		return 0;
	if (errno != EINVAL) /* EINVAL: a kernel before 5.14 */
		return -errno;
	for (size_t off = 0; off < len; off += page)
		((volatile char *)base)[off] = 0;
	return 0;
}

/* Map len bytes (a multiple of page), bind them, fault them in. *bind_err
 * gets the binding's result (0: bound or not asked). NULL on failure. */
static void *map_placed(size_t len, size_t page, int flags, int node,
			int *bind_err, int *err)
{
	void *base = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);

	*bind_err = 0;
	if (base == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	if (node >= 0)
		*bind_err = bind_node(base, len, node);
	/* Normal pages: ask for transparent huge pages (THP "always" or
	 * "madvise" mode; "never" or no THP: EINVAL, 4 KiB pages). A frame
	 * of 4 KiB on a page of its own made every frame the dataplane
	 * reads a TLB miss once the RX ring holds more frames than the TLB
	 * reaches (2048 x 4 KiB = 8 MiB); a 2 MiB page holds 512 frames. */
	if (!flags)
		(void)madvise(base, len, MADV_HUGEPAGE);
	*err = populate(base, len, page);
	if (*err) {
		munmap(base, len);
		return NULL;
	}
	return base;
}

/* Bytes of the mapping at base that the kernel backs with transparent
 * huge pages (AnonHugePages in /proc/self/smaps); 0 if unknown. */
static size_t thp_bytes(const void *base)
{
	char line[256], start[32];
	size_t kib = 0;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return 0;
	snprintf(start, sizeof(start), "%lx-", (unsigned long)base);
	while (fgets(line, sizeof(line), f)) {
		if (!in) {
			in = !strncmp(line, start, strlen(start));
			continue;
		}
		if (sscanf(line, "AnonHugePages: %zu kB", &kib) == 1)
			break;
		if (strchr(line, '-') && !strchr(line, ':'))
			break; /* the next mapping */
	}
	fclose(f);
	return kib << 10;
}

/* Try 2 MiB pages; NULL (and why, in msg) when they cannot be had. kib:
 * the normal page size in KiB, for the fallback. */
static void *map_huge(struct umem_area *u, int node, size_t kib, int *bind_err,
		      char *msg, size_t msglen)
{
	char on_node[32] = "";
	size_t map = round_up(u->size, HUGE_PAGE), need = map / HUGE_PAGE;
	long total = read_long("/sys/kernel/mm" HUGE_SYSFS "nr_hugepages");
	long free = huge_free(node);
	void *base;
	int err;

	if (total <= 0) {
		note(msg, msglen,
		     "no hugepages reserved (vm.nr_hugepages = %ld): using "
		     "%zu KiB pages; ",
		     total < 0 ? 0 : total, kib);
		return NULL;
	}
	if (node >= 0)
		snprintf(on_node, sizeof(on_node), " on node %d", node);
	if (free >= 0 && (size_t)free < need) {
		note(msg, msglen,
		     "hugepages: %zu 2 MiB pages needed, %ld free%s "
		     "(vm.nr_hugepages = %ld): using %zu KiB pages; ",
		     need, free, on_node, total, kib);
		return NULL;
	}
	base = map_placed(map, HUGE_PAGE, MAP_HUGETLB | MAP_HUGE_2MB, node,
			  bind_err, &err);
	if (!base) {
		note(msg, msglen,
		     "hugepages: %zu 2 MiB pages could not be mapped%s (%s): "
		     "using %zu KiB pages; ",
		     need, on_node, strerror(-err), kib);
		return NULL;
	}
	u->map_size = map;
	u->hugepages = true;
	return base;
}

int umem_area_init(struct umem_area *u, uint32_t max_frames,
		   uint32_t frame_size, uint32_t n_parts, int mem_node,
		   bool hugepages, char *msg, size_t msglen)
{
	long sys_page = sysconf(_SC_PAGESIZE);
	size_t page = sys_page > 0 ? (size_t)sys_page : 4096;
	uint32_t per_part;
	int bind_err = 0, err;

	memset(u, 0, sizeof(*u));
	u->mem_node = -1;
	if (msg && msglen)
		msg[0] = '\0';
	if (!is_pow2(frame_size) || !n_parts || max_frames / n_parts == 0)
		return -EINVAL;
	per_part = max_frames / n_parts;
	u->part_shift = ilog2_u64(per_part); /* round down to a power of 2 */
	u->frame_size = frame_size;
	u->frame_shift = ilog2_u64(frame_size);
	u->n_parts = n_parts;
	u->n_frames = n_parts << u->part_shift;
	u->size = (size_t)u->n_frames * frame_size;
	if (hugepages)
		u->base = map_huge(u, mem_node, page >> 10, &bind_err, msg,
				   msglen);
	if (!u->base) {
		u->map_size = round_up(u->size, page);
		u->base = map_placed(u->map_size, page, 0, mem_node, &bind_err,
				     &err);
		if (!u->base)
			return err;
	}
	if (u->size % (1u << 20))
		note(msg, msglen, "UMEM %zu KiB", u->size >> 10);
	else
		note(msg, msglen, "UMEM %zu MiB", u->size >> 20);
	note(msg, msglen, " (%" PRIu32 " frames of %" PRIu32 " bytes) in ",
	     u->n_frames, frame_size);
	if (u->hugepages) {
		note(msg, msglen, "2 MiB pages");
	} else {
		size_t thp = thp_bytes(u->base);

		note(msg, msglen, "%zu KiB pages", page >> 10);
		if (thp)
			note(msg, msglen,
			     " (%zu MiB in transparent 2 MiB pages)",
			     thp >> 20);
	}
	if (mem_node < 0)
		note(msg, msglen, ", not bound to a NUMA node");
	else if (bind_err)
		note(msg, msglen, ", not bound to NUMA node %d (%s)", mem_node,
		     strerror(-bind_err));
	else
		note(msg, msglen, ", bound to NUMA node %d", mem_node);
	if (mem_node >= 0 && !bind_err)
		u->mem_node = mem_node;
	return 0;
}

int umem_area_init_plain(struct umem_area *u, uint32_t max_frames,
			 uint32_t frame_size, uint32_t n_parts)
{
	return umem_area_init(u, max_frames, frame_size, n_parts, -1, false,
			      NULL, 0);
}

void umem_area_fini(struct umem_area *u)
{
	if (u->base)
		munmap(u->base, u->map_size);
	u->base = NULL;
}

int frame_pool_init(struct frame_pool *p, const struct umem_area *u,
		    uint32_t part)
{
	uint32_t n = umem_frames_per_part(u);
	uint64_t first = (uint64_t)part << u->part_shift;

	p->addrs = calloc(n, sizeof(*p->addrs));
	if (!p->addrs)
		return -ENOMEM;
	p->cap = n;
	p->count = 0;
	p->lo = first << u->frame_shift;
	p->hi = (first + n) << u->frame_shift;
	p->frame_mask = (uint64_t)u->frame_size - 1;
	/* Stack order: the lowest addresses come out first. */
	for (uint32_t i = n; i-- > 0;)
		p->addrs[p->count++] = (first + i) << u->frame_shift;
	return 0;
}

void frame_pool_fini(struct frame_pool *p)
{
	free(p->addrs);
	p->addrs = NULL;
	p->count = p->cap = 0;
}

int umem_census_init(struct umem_census *c, const struct umem_area *u)
{
	memset(c, 0, sizeof(*c));
	c->u = u;
	c->bits = calloc((u->n_frames + 63) / 64, sizeof(uint64_t));
	return c->bits ? 0 : -ENOMEM;
}

void umem_census_fini(struct umem_census *c)
{
	free(c->bits);
	c->bits = NULL;
}

void umem_census_add(struct umem_census *c, uint64_t addr)
{
	uint64_t idx = addr >> c->u->frame_shift;

	if (idx >= c->u->n_frames) {
		c->strays++;
		return;
	}
	if (c->bits[idx / 64] & (1ull << (idx % 64))) {
		c->doubles++;
		return;
	}
	c->bits[idx / 64] |= 1ull << (idx % 64);
	c->found++;
}

uint64_t umem_census_missing(const struct umem_census *c)
{
	uint64_t held = c->found + c->uncounted;

	return held >= c->u->n_frames ? 0 : c->u->n_frames - held;
}

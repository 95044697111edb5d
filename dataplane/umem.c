// SPDX-License-Identifier: BSD-2-Clause
/*
 * umem.c - UMEM area, frame pools and the frame census. See umem.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "compiler.h"
#include "umem.h"

int umem_area_init(struct umem_area *u, uint32_t max_frames,
		   uint32_t frame_size, uint32_t n_parts)
{
	uint32_t per_part;

	memset(u, 0, sizeof(*u));
	if (!is_pow2(frame_size) || !n_parts || max_frames / n_parts == 0)
		return -EINVAL;
	per_part = max_frames / n_parts;
	u->part_shift = ilog2_u64(per_part); /* round down to a power of 2 */
	u->frame_size = frame_size;
	u->frame_shift = ilog2_u64(frame_size);
	u->n_parts = n_parts;
	u->n_frames = n_parts << u->part_shift;
	u->size = (size_t)u->n_frames * frame_size;
	u->base = mmap(NULL, u->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (u->base == MAP_FAILED) {
		u->base = NULL;
		return -errno;
	}
	return 0;
}

void umem_area_fini(struct umem_area *u)
{
	if (u->base)
		munmap(u->base, u->size);
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

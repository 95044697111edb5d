/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * job_int.h - what the job table's files share (job_table.c: slots,
 * registrations, the host graph; job_graph.c: expiry, the invariants;
 * job_snap.c: the snapshot). Callers include job_table.h only.
 */
#ifndef XDPLANE_JOB_INT_H
#define XDPLANE_JOB_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "job_table.h"

struct job_host {
	struct job_addr addr;
	uint8_t live;
	uint32_t parent; /* union-find; itself at a root */
	uint32_t job; /* at a root: its component's job */
	uint32_t degree; /* live edges, merge edges included */
	uint32_t flows; /* live edges that are not merge edges */
};

struct job_edge {
	uint32_t a, b; /* host slots, a < b; JOB_NONE: a free slot */
	uint8_t merge; /* a merge edge (job_table_merge) */
	uint32_t class_mask;
	uint64_t last_ns;
};

/* job_table_expire()'s work arrays, in t->scratch */
enum { SC_PREV, SC_NEXT, SC_HEAD, SC_SIZE, SC_HOST_ARRAYS };
enum { SC_CNT, SC_BEST, SC_BEST_CNT, SC_TOUCHED, SC_JOB_ARRAYS };

static inline unsigned int addr_len(uint8_t family)
{
	return family == 4 ? 4 : 16;
}

static inline bool addr_valid(const struct job_addr *a)
{
	return a->family == 4 || a->family == 6;
}

static inline bool addr_eq(const struct job_addr *a, const struct job_addr *b)
{
	return a->family == b->family &&
	       !memcmp(a->addr, b->addr, addr_len(a->family));
}

static inline uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static inline uint32_t addr_hash(const struct job_addr *a, uint64_t seed)
{
	uint8_t b[16] = {0};
	uint64_t w0, w1;

	memcpy(b, a->addr, addr_len(a->family));
	memcpy(&w0, b, 8);
	memcpy(&w1, b + 8, 8);
	return (uint32_t)mix64(seed ^ mix64(w0 ^ a->family) ^
			       mix64(w1 + 0x9e3779b97f4a7c15ull));
}

static inline uint32_t pair_hash(uint32_t a, uint32_t b, uint64_t seed)
{
	return (uint32_t)mix64(seed ^ ((uint64_t)a << 32 | b));
}

/* the first len bits of x and y agree */
static inline bool bits_eq(const uint8_t *x, const uint8_t *y, unsigned int len)
{
	unsigned int n = len / 8, r = len % 8;

	if (memcmp(x, y, n))
		return false;
	return !r || !((x[n] ^ y[n]) & (uint8_t)(0xff << (8 - r)));
}

static inline bool prefix_has(const struct qos_prefix *p,
			      const struct job_addr *a)
{
	return p->family == a->family && bits_eq(p->addr, a->addr, p->len);
}

/* a registration's selectors against a flow */
static inline bool reg_matches(uint8_t rdscp, uint32_t n,
			       const struct qos_prefix *pf,
			       const struct job_addr *src,
			       const struct job_addr *dst, uint8_t dscp)
{
	bool s = !n, d = !n;

	if (rdscp != JOB_DSCP_NONE && rdscp != dscp)
		return false;
	for (uint32_t i = 0; i < n && !(s && d); i++) {
		s = s || prefix_has(&pf[i], src);
		d = d || prefix_has(&pf[i], dst);
	}
	return s && d;
}

/* job_table.c */
bool jt_older(const struct job_table *t, uint32_t a, uint32_t b);
void jt_job_release(struct job_table *t, uint32_t i);
uint32_t jt_passive_take(struct job_table *t, uint64_t now);
uint32_t jt_host_find(const struct job_table *t, const struct job_addr *a);
uint32_t jt_edge_find(const struct job_table *t, uint32_t a, uint32_t b);
void jt_host_index_add(struct job_table *t, uint32_t h);
void jt_edge_index_add(struct job_table *t, uint32_t e);
uint32_t jt_root_halve(struct job_table *t, uint32_t h);

/* the root of h; const: no path compression */
static inline uint32_t jt_root_of(const struct job_table *t, uint32_t h)
{
	while (t->hosts[h].parent != h)
		h = t->hosts[h].parent;
	return h;
}

#endif

// SPDX-License-Identifier: BSD-2-Clause
/*
 * path_owner.c - see path_owner.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "path_owner.h"

#define W_SEVERAL 0xffu /* the word's queue byte: several queues */

int path_owner_init(struct path_owner *o, uint32_t flows, uint64_t seed)
{
	uint32_t words = 1024;

	memset(o, 0, sizeof(*o));
	if (!flows || flows > (1u << 26))
		return -EINVAL;
	while (words < flows)
		words <<= 1;
	if (posix_memalign((void **)&o->w, 64, (size_t)words * sizeof(*o->w)))
		return -ENOMEM;
	memset(o->w, 0, (size_t)words * sizeof(*o->w));
	o->mask = words / PATH_OWNER_WAYS - 1;
	o->seed = seed;
	return 0;
}

void path_owner_fini(struct path_owner *o)
{
	free(o->w);
	o->w = NULL;
}

/* The key the table holds: a RoCE flow's hosts alone. */
static uint64_t key_hash(const struct path_owner *o,
			 const struct pathmon_key *k)
{
	struct pathmon_key n = *k;
	uint64_t w[sizeof(n) / 8], h = o->seed ^ 0x9e3779b97f4a7c15ull;

	if (n.proto == PATHMON_P_ROCE)
		n.qpn = 0;
	memcpy(w, &n, sizeof(w));
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		h ^= w[i];
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	h *= 0x94d049bb133111ebull;
	h ^= h >> 29;
	return h;
}

static inline uint32_t *bucket(const struct path_owner *o, uint64_t h)
{
	return &o->w[(size_t)(h & o->mask) * PATH_OWNER_WAYS];
}

static inline uint32_t tag_of(uint64_t h)
{
	return (uint32_t)(h >> 40); /* 24 bits, apart from the index */
}

void path_owner_set(struct path_owner *o, const struct pathmon_key *k,
		    uint32_t queue)
{
	uint64_t h = key_hash(o, k);
	uint32_t *b = bucket(o, h), tag = tag_of(h), w, q = queue + 1, nq;

	for (uint32_t i = 0; i < PATH_OWNER_WAYS; i++) {
		w = __atomic_load_n(&b[i], __ATOMIC_RELAXED);
		if (!w || w >> 8 != tag)
			continue;
		nq = w & 0xff;
		if (k->proto == PATHMON_P_ROCE && nq != q)
			q = W_SEVERAL; /* another queue sends between them */
		if (nq != q)
			__atomic_store_n(&b[i], tag << 8 | q, __ATOMIC_RELAXED);
		return;
	}
	for (uint32_t i = 0; i < PATH_OWNER_WAYS; i++) {
		if (!__atomic_load_n(&b[i], __ATOMIC_RELAXED)) {
			__atomic_store_n(&b[i], tag << 8 | q, __ATOMIC_RELAXED);
			return;
		}
	}
	__atomic_store_n(&b[tag % PATH_OWNER_WAYS], tag << 8 | q,
			 __ATOMIC_RELAXED);
}

int path_owner_find(const struct path_owner *o, const struct pathmon_key *k)
{
	uint64_t h = key_hash(o, k);
	const uint32_t *b = bucket(o, h);
	uint32_t tag = tag_of(h), w;

	for (uint32_t i = 0; i < PATH_OWNER_WAYS; i++) {
		w = __atomic_load_n(&b[i], __ATOMIC_RELAXED);
		if (w && w >> 8 == tag)
			return (w & 0xff) == W_SEVERAL ? PATH_OWNER_SEVERAL
						       : (int)(w & 0xff) - 1;
	}
	return PATH_OWNER_NONE;
}

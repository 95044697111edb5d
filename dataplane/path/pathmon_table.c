// SPDX-License-Identifier: BSD-2-Clause
/*
 * pathmon_table.c - the path monitor's flow table: keys, the index, the
 * flows' life cycle and expiry (pathmon.h; what the parts share:
 * pathmon_int.h).
 *
 * The flows live in a fixed array; one open-addressed index (linear
 * probing, backward-shift deletion, no tombstones) points into it. Each
 * index position holds the slot, a role bit and the key's hash: role 0 is
 * the flow's own key, role 1 (RoCE, once the requester's QP is learned)
 * the key an ACK carries: the same addresses, qpn = the requester's QP,
 * proto with PROTO_SQP set. The index has 4 x max_flows positions and at
 * most 2 x max_flows entries, so a probe always meets an empty position.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "bits.h"
#include "dp_assert.h"
#include "pathmon_int.h"

_Static_assert(sizeof(struct pathmon_key) == 48, "pathmon_key: 6 words");
_Static_assert(sizeof(struct pathmon_ack) == 72, "pathmon_ack layout");

void pathmon_params_default(struct pathmon_params *p)
{
	memset(p, 0, sizeof(*p));
	p->max_flows = 4096;
	p->max_samples_per_ms = 8;
	p->max_learn_per_ms = 4;
	p->psn_window = 4096;
	p->sweep_per_call = 2;
	p->rate_intervals = 10;
	p->min_samples = 4;
	p->mark_shift = 4;
	p->age_mult = 8;
	p->sample_min_age_ns = 10 * MS_NS;
	p->sample_max_age_ns = 2000 * MS_NS;
	p->flow_idle_ns = 1000 * MS_NS;
	p->interval_ns = 10 * MS_NS;
	p->minrtt_window_ns = 10000 * MS_NS;
	p->seed = 0;
	p->exact_ring = true;
}

/* ---- keys and the index ---- */

uint32_t pm_key_hash(const struct pathmon_key *k, uint64_t seed)
{
	uint64_t w[6], h = seed ^ 0x9e3779b97f4a7c15ull;

	memcpy(w, k, sizeof(w));
	for (int i = 0; i < 6; i++) {
		h ^= w[i];
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	h *= 0x94d049bb133111ebull;
	h ^= h >> 29;
	return (uint32_t)(h ^ (h >> 32));
}

static bool key_eq(const struct pathmon_key *a, const struct pathmon_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* The key an ACK of flow f carries, once its requester QP is known. */
static void sqp_key(const struct pathmon_flow *f, struct pathmon_key *k)
{
	*k = f->key;
	k->qpn = f->sqpn;
	k->proto |= PROTO_SQP;
}

static void ref_key(const struct pathmon *pm, uint32_t ref,
		    struct pathmon_key *k)
{
	const struct pathmon_flow *f = &pm->flows[ref & ~ROLE_SQP];

	if (ref & ROLE_SQP)
		sqp_key(f, k);
	else
		*k = f->key;
}

/* Position of key k (hash h), or of the empty position where it would
 * go. */
uint32_t pm_idx_probe(const struct pathmon *pm, const struct pathmon_key *k,
		      uint32_t h)
{
	uint32_t i = h & pm->index_mask, n = 0;
	struct pathmon_key fk;

	for (;; i = (i + 1) & pm->index_mask) {
		const struct pathmon_ref *r = &pm->index[i];

		if (DP_ASSERTS_ON) { /* never full: a probe ends in a lap */
			DP_ASSERT(n <= pm->index_mask);
			n++;
		}
		if (r->ref == REF_EMPTY)
			return i;
		if (r->hash != h)
			continue;
		ref_key(pm, r->ref, &fk);
		if (key_eq(&fk, k))
			return i;
	}
}

static void idx_delete(struct pathmon *pm, uint32_t i)
{
	uint32_t j = i, home;

	pm->index[i].ref = REF_EMPTY;
	for (;;) {
		j = (j + 1) & pm->index_mask;
		if (pm->index[j].ref == REF_EMPTY)
			return;
		home = pm->index[j].hash & pm->index_mask;
		/* the entry at j may move to the hole at i unless its home
		 * lies cyclically in (i, j] */
		if ((i <= j) ? (home <= i || home > j)
			     : (home <= i && home > j)) {
			pm->index[i] = pm->index[j];
			pm->index[j].ref = REF_EMPTY;
			i = j;
		}
	}
}

/* Remove the index entry of (slot, role), which must be there. */
void pm_idx_remove(struct pathmon *pm, uint32_t slot, uint32_t role)
{
	const struct pathmon_flow *f = &pm->flows[slot];
	struct pathmon_key k;
	uint32_t pos;

	if (role)
		sqp_key(f, &k);
	else
		k = f->key;
	pos = pm_idx_probe(pm, &k,
			   role ? pm_key_hash(&k, pm->par.seed) : f->hash);
	DP_ASSERT(pm->index[pos].ref == (slot | role));
	if (pm->index[pos].ref == (slot | role))
		idx_delete(pm, pos);
}

/* ---- life cycle ---- */

static bool params_ok(const struct pathmon_params *p)
{
	return is_pow2(p->max_flows) && p->max_flows >= 2 &&
	       p->max_flows <= PATHMON_MAX_FLOWS && p->psn_window >= 1 &&
	       p->psn_window <= PSN_HALF && p->rate_intervals >= 1 &&
	       p->rate_intervals <= PATHMON_RATE_WIN_MAX &&
	       p->min_samples >= 1 && p->mark_shift <= 16 &&
	       p->sample_max_age_ns > 0 &&
	       p->sample_min_age_ns <= p->sample_max_age_ns &&
	       p->flow_idle_ns > 0 && p->interval_ns > 0 &&
	       p->minrtt_window_ns >= PATHMON_MINRTT_SUB;
}

int pathmon_init(struct pathmon *pm, const struct pathmon_params *p,
		 uint64_t now_ns)
{
	uint32_t slots;

	memset(pm, 0, sizeof(*pm));
	if (!params_ok(p))
		return -EINVAL;
	pm->par = *p;
	slots = INDEX_PER_FLOW * p->max_flows;
	pm->flows = calloc(p->max_flows, sizeof(*pm->flows));
	pm->index = malloc((size_t)slots * sizeof(*pm->index));
	if (!pm->flows || !pm->index) {
		pathmon_fini(pm);
		return -ENOMEM;
	}
	pm->index_mask = slots - 1;
	pathmon_reset(pm, now_ns);
	return 0;
}

void pathmon_reset(struct pathmon *pm, uint64_t now_ns)
{
	const struct pathmon_params *p = &pm->par;

	for (uint32_t i = 0; i <= pm->index_mask; i++)
		pm->index[i].ref = REF_EMPTY;
	memset(pm->flows, 0, (size_t)p->max_flows * sizeof(*pm->flows));
	for (uint32_t i = 0; i < p->max_flows; i++)
		pm->flows[i].next_free =
			i + 1 < p->max_flows ? i + 1 : SLOT_NONE;
	memset((char *)pm + offsetof(struct pathmon, n_flows), 0,
	       offsetof(struct pathmon, st) -
		       offsetof(struct pathmon, n_flows));
	pm->free_flow = 0;
	pm->budget_ms = now_ns / MS_NS;
	pm->int_start = now_ns;
	pm->sub_ns = p->minrtt_window_ns / PATHMON_MINRTT_SUB;
}

void pathmon_fini(struct pathmon *pm)
{
	free(pm->flows);
	free(pm->index);
	pm->flows = NULL;
	pm->index = NULL;
}

uint64_t pathmon_mem_bytes(const struct pathmon *pm)
{
	return (uint64_t)pm->par.max_flows * sizeof(*pm->flows) +
	       (uint64_t)(pm->index_mask + 1) * sizeof(*pm->index);
}

uint64_t pathmon_mem_bytes_of(uint32_t max_flows)
{
	const struct pathmon *pm = NULL;

	return (uint64_t)max_flows *
	       (sizeof(*pm->flows) + INDEX_PER_FLOW * sizeof(*pm->index));
}

struct pathmon_flow *pm_flow_new(struct pathmon *pm,
				 const struct pathmon_key *k, uint32_t h,
				 uint32_t pos, uint64_t now)
{
	uint32_t slot = pm->free_flow;
	struct pathmon_flow *f = &pm->flows[slot];

	DP_ASSERT(slot != SLOT_NONE && !f->in_use);
	DP_ASSERT(pm->index[pos].ref == REF_EMPTY);
	pm->free_flow = f->next_free;
	memset(f, 0, sizeof(*f));
	f->key = *k;
	f->hash = h;
	f->next_free = SLOT_NONE;
	f->in_use = 1;
	f->pend = PATHMON_NONE;
	f->last_ns = now;
	pm->index[pos].ref = slot;
	pm->index[pos].hash = h;
	pm->n_flows++;
	ctr_add(&pm->st.flows_created, 1);
	return f;
}

static void flow_remove(struct pathmon *pm, uint32_t slot)
{
	struct pathmon_flow *f = &pm->flows[slot];

	DP_ASSERT(f->in_use && pm->n_flows > 0);
	if (f->st & FS_SQPN)
		pm_idx_remove(pm, slot, ROLE_SQP);
	pm_idx_remove(pm, slot, 0);
	f->in_use = 0;
	f->pend = PATHMON_NONE;
	f->next_free = pm->free_flow;
	pm->free_flow = slot;
	pm->n_flows--;
}

/* ---- expiry ---- */

/* How long a pending sample may wait for its echo / ACK. */
uint64_t pm_age_limit(const struct pathmon *pm)
{
	const struct pathmon_params *p = &pm->par;
	uint64_t a;

	if (!pm->srtt_ns)
		return p->sample_max_age_ns;
	if (p->age_mult && pm->srtt_ns > p->sample_max_age_ns / p->age_mult)
		return p->sample_max_age_ns;
	a = (uint64_t)p->age_mult * pm->srtt_ns;
	return MAX(a, p->sample_min_age_ns);
}

/* Drop f's pending sample if it is too old; true if it did. */
bool pm_pend_expire(struct pathmon *pm, struct pathmon_flow *f, uint64_t now,
		    uint64_t limit)
{
	if (f->pend == PATHMON_NONE || now < f->pend_ns ||
	    now - f->pend_ns <= limit)
		return false;
	f->pend = PATHMON_NONE;
	ctr_add(&pm->st.expired, 1);
	return true;
}

/* Nothing of f was seen for flow_idle_ns (no call has swept it yet: the
 * port was idle, or the monitor was not called): its sequence state and
 * its last ACK are of another time. */
bool pm_flow_idle(const struct pathmon *pm, const struct pathmon_flow *f,
		  uint64_t now)
{
	return age_ns(now, f->last_ns) > pm->par.flow_idle_ns;
}

void pm_flow_expire(struct pathmon *pm, uint32_t slot)
{
	flow_remove(pm, slot);
	ctr_add(&pm->st.flows_expired, 1);
}

uint32_t pathmon_sweep(struct pathmon *pm, uint64_t now_ns, uint32_t n)
{
	uint64_t limit = pm_age_limit(pm);
	uint32_t removed = 0;

	n = MIN(n, pm->par.max_flows);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = pm->sweep_pos;
		struct pathmon_flow *f = &pm->flows[s];

		pm->sweep_pos = (s + 1) & (pm->par.max_flows - 1);
		if (!f->in_use)
			continue;
		pm_pend_expire(pm, f, now_ns, limit);
		if (pm_flow_idle(pm, f, now_ns)) {
			pm_flow_expire(pm, s);
			removed++;
		}
	}
	return removed;
}

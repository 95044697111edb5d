// SPDX-License-Identifier: BSD-2-Clause
/*
 * pathmon.c - see pathmon.h.
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
#include "pathmon.h"
#include "pkt_tcp.h"
#include "roce.h"

_Static_assert(sizeof(struct pathmon_key) == 48, "pathmon_key: 6 words");
_Static_assert(sizeof(struct pathmon_ack) == 72, "pathmon_ack layout");

#define PATHMON_NONE 0xffu /* flow.pend: no sample pending */
#define SLOT_NONE UINT32_MAX
#define REF_EMPTY UINT32_MAX
#define INDEX_PER_FLOW 4 /* index positions per flow of the table */
#define ROLE_SQP (1u << 31)
#define PROTO_SQP 0x80u /* in the role-1 key */
#define MS_NS 1000000ull
#define PSN_HALF (1u << 23)
#define SEQ_FAR (1u << 30) /* a pending seq sample this far behind: gone */

/* flow.st */
enum {
	FS_TS = 1u << 0, /* TCP: the flow carries timestamps, ts_max valid */
	FS_ACKED = 1u << 1, /* acked valid */
	FS_SQPN = 1u << 2, /* RoCE: sqpn learned, role-1 key in the index */
	FS_DATA = 1u << 3, /* TCP: a segment with payload left (a flow of
			    * pure ACKs is the reverse of a flow that
			    * enters the port: what comes back for it is
			    * that flow's data, not ACKs of ours) */
};

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

static uint32_t key_hash(const struct pathmon_key *k, uint64_t seed)
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
static uint32_t idx_probe(const struct pathmon *pm, const struct pathmon_key *k,
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
static void idx_remove(struct pathmon *pm, uint32_t slot, uint32_t role)
{
	const struct pathmon_flow *f = &pm->flows[slot];
	struct pathmon_key k;
	uint32_t pos;

	if (role)
		sqp_key(f, &k);
	else
		k = f->key;
	pos = idx_probe(pm, &k, role ? key_hash(&k, pm->par.seed) : f->hash);
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

static struct pathmon_flow *flow_new(struct pathmon *pm,
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
		idx_remove(pm, slot, ROLE_SQP);
	idx_remove(pm, slot, 0);
	f->in_use = 0;
	f->pend = PATHMON_NONE;
	f->next_free = pm->free_flow;
	pm->free_flow = slot;
	pm->n_flows--;
}

/* ---- time: budgets, intervals, expiry ---- */

static void budget_roll(struct pathmon *pm, uint64_t now)
{
	uint64_t ms = now / MS_NS;

	if (ms != pm->budget_ms) {
		pm->budget_ms = ms;
		pm->budget_used = 0;
		pm->learn_used = 0;
	}
}

static void ring_push(struct pathmon *pm, uint64_t bytes, uint32_t samples)
{
	pm->ring[pm->ring_pos].bytes = bytes;
	pm->ring[pm->ring_pos].samples = samples;
	pm->ring_pos = pm->ring_pos + 1 == pm->par.rate_intervals
			       ? 0
			       : pm->ring_pos + 1;
	if (pm->ring_n < pm->par.rate_intervals)
		pm->ring_n++;
}

static double bytes_bps(const struct pathmon *pm, uint64_t bytes)
{
	return (double)bytes * 8e9 / (double)pm->par.interval_ns;
}

/* Close the intervals that ended before now (idle ones as zeros). */
static void roll_intervals(struct pathmon *pm, uint64_t now)
{
	uint64_t k, empty;

	if (now < pm->int_start || now - pm->int_start < pm->par.interval_ns)
		return;
	k = (now - pm->int_start) / pm->par.interval_ns;
	ring_push(pm, pm->int_bytes, pm->int_samples);
	pm->bps_last = bytes_bps(pm, pm->int_bytes);
	if (pm->int_acks) {
		double frac = (double)pm->int_marks / (double)pm->int_acks;

		if (!pm->mark_init) {
			pm->mark_frac = frac;
			pm->mark_init = true;
		} else {
			pm->mark_frac += (frac - pm->mark_frac) /
					 (double)(1u << pm->par.mark_shift);
		}
		pm->mark_last = frac;
	}
	empty = MIN(k - 1, (uint64_t)pm->par.rate_intervals);
	for (uint64_t i = 0; i < empty; i++)
		ring_push(pm, 0, 0);
	if (k > 1)
		pm->bps_last = 0;
	pm->int_start += k * pm->par.interval_ns;
	pm->int_bytes = 0;
	pm->int_samples = pm->int_acks = pm->int_marks = 0;
}

/* How long a pending sample may wait for its echo / ACK. */
static uint64_t age_limit(const struct pathmon *pm)
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
static bool pend_expire(struct pathmon *pm, struct pathmon_flow *f,
			uint64_t now, uint64_t limit)
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
static bool flow_idle(const struct pathmon *pm, const struct pathmon_flow *f,
		      uint64_t now)
{
	return age_ns(now, f->last_ns) > pm->par.flow_idle_ns;
}

static void flow_expire(struct pathmon *pm, uint32_t slot)
{
	flow_remove(pm, slot);
	ctr_add(&pm->st.flows_expired, 1);
}

uint32_t pathmon_sweep(struct pathmon *pm, uint64_t now_ns, uint32_t n)
{
	uint64_t limit = age_limit(pm);
	uint32_t removed = 0;

	n = MIN(n, pm->par.max_flows);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = pm->sweep_pos;
		struct pathmon_flow *f = &pm->flows[s];

		pm->sweep_pos = (s + 1) & (pm->par.max_flows - 1);
		if (!f->in_use)
			continue;
		pend_expire(pm, f, now_ns, limit);
		if (flow_idle(pm, f, now_ns)) {
			flow_expire(pm, s);
			removed++;
		}
	}
	return removed;
}

static void advance(struct pathmon *pm, uint64_t now)
{
	budget_roll(pm, now);
	roll_intervals(pm, now);
	if (pm->par.sweep_per_call)
		pathmon_sweep(pm, now, pm->par.sweep_per_call);
}

/* ---- samples ---- */

static bool start_sample(struct pathmon *pm, struct pathmon_flow *f,
			 unsigned int kind, uint32_t val, uint64_t now)
{
	if (pm->budget_used >= pm->par.max_samples_per_ms) {
		ctr_add(&pm->st.budget_refused, 1);
		return false;
	}
	pm->budget_used++;
	f->pend = (uint8_t)kind;
	f->pend_val = val;
	f->pend_ns = now;
	ctr_add(&pm->st.samples_started[kind], 1);
	return true;
}

/* The flow's standing RTT (the smaller of its last two samples), in the
 * slot it has, else in the one sampled longest ago. */
static void standing_update(struct pathmon *pm, uint32_t hash, uint64_t rtt,
			    uint64_t seen)
{
	uint32_t old = 0;

	for (uint32_t i = 0; i < PATHMON_STANDING_FLOWS; i++) {
		if (pm->standing[i].seen && pm->standing[i].hash == hash) {
			pm->standing[i].standing =
				MIN(rtt, pm->standing[i].last_rtt);
			pm->standing[i].last_rtt = rtt;
			pm->standing[i].seen = MAX(seen, pm->standing[i].seen);
			return;
		}
		if (pm->standing[i].seen < pm->standing[old].seen)
			old = i;
	}
	pm->standing[old].hash = hash;
	pm->standing[old].last_rtt = rtt;
	pm->standing[old].standing = rtt;
	pm->standing[old].seen = seen;
}

static void rtt_update(struct pathmon *pm, uint32_t hash, uint64_t rtt,
		       uint64_t seen, uint64_t now, bool base_ok)
{
	uint64_t epoch = now / pm->sub_ns;
	uint32_t s = (uint32_t)(epoch % PATHMON_MINRTT_SUB);

	if (!base_ok) {
	} else if (pm->sub_epoch[s] != epoch || !pm->sub_min[s]) {
		pm->sub_epoch[s] = epoch;
		pm->sub_min[s] = rtt;
	} else if (rtt < pm->sub_min[s]) {
		pm->sub_min[s] = rtt;
	}
	if (!pm->srtt_ns)
		pm->srtt_ns = rtt;
	else
		pm->srtt_ns =
			(uint64_t)((int64_t)pm->srtt_ns +
				   ((int64_t)rtt - (int64_t)pm->srtt_ns) / 8);
	if (!pm->srtt_ns)
		pm->srtt_ns = 1;
	standing_update(pm, hash, rtt, seen);
	pm->int_samples++;
	pm->n_samples++;
	if (seen > pm->last_sample_ns)
		pm->last_sample_ns = seen;
}

/* The pending sample of f is answered by an event seen at `seen`. */
static uint64_t take_sample(struct pathmon *pm, struct pathmon_flow *f,
			    uint64_t seen, uint64_t now, bool base_ok)
{
	unsigned int kind = f->pend;
	uint64_t rtt;

	DP_ASSERT(kind < PATHMON_KINDS);
	f->pend = PATHMON_NONE;
	if (seen <= f->pend_ns)
		return 0; /* clocks out of order: no sample */
	rtt = seen - f->pend_ns;
	ctr_add(&pm->st.samples_matched[kind], 1);
	rtt_update(pm, f->hash, rtt, seen, now, base_ok);
	return rtt;
}

/* An ACK that newly acknowledges exactly up to one of the flow's last
 * departures: the exact sample (0: none). */
static uint64_t ring_sample(struct pathmon *pm, struct pathmon_flow *f,
			    uint32_t ack, uint64_t seen, uint64_t now)
{
	for (uint32_t i = 0; i < PATHMON_DEP_RING; i++) {
		uint64_t rtt;

		if (f->dep_end[i] != ack || !f->dep_ns[i])
			continue;
		if (seen <= f->dep_ns[i])
			return 0;
		rtt = seen - f->dep_ns[i];
		f->dep_ns[i] = 0;
		if (pm->budget_used >= pm->par.max_samples_per_ms) {
			ctr_add(&pm->st.budget_refused, 1);
			return 0;
		}
		pm->budget_used++;
		ctr_add(&pm->st.ring_samples, 1);
		rtt_update(pm, f->hash, rtt, seen, now, true);
		return rtt;
	}
	return 0;
}

/* A TCP sample is measured from the departure of the segment whose ACK
 * it is. An ACK that covers more than the recorded segment was sent for a
 * later one (delayed ACKs acknowledge every second segment; GRO merges
 * several), after the receiver waited for it -- a wait of segment gaps
 * that grows as the rate falls and is not delay of the path. The gateway
 * sends a flow's segments in sequence order at its rate, so the later
 * segment's departure is interpolated by sequence number between the
 * recorded one and the last one sent (ack_interpolated); an ACK beyond
 * what was sent gives nothing. */
static uint64_t exact_sample(struct pathmon *pm, struct pathmon_flow *f,
			     uint32_t ack, uint64_t seen, uint64_t now)
{
	uint32_t span = f->snd_max - f->pend_end, k = ack - f->pend_end;

	if (ack != f->pend_end) {
		if (!span || k > span || f->last_dep_ns < f->pend_ns) {
			f->pend = PATHMON_NONE;
			return 0;
		}
		f->pend_ns += (uint64_t)((double)(f->last_dep_ns - f->pend_ns) *
					 k / span);
		ctr_add(&pm->st.ack_interpolated, 1);
		return take_sample(pm, f, seen, now, false);
	}
	return take_sample(pm, f, seen, now, true);
}

/* ---- departures ---- */

static bool psn_not_after(uint32_t a, uint32_t b)
{
	return ((b - a) & PATHMON_PSN_MASK) < PSN_HALF;
}

static bool depart_tcp(struct pathmon *pm, struct pathmon_flow *f,
		       const struct pathmon_dep *d, uint64_t now)
{
	bool retx, newts = false;

	if (d->flags & PATHMON_DF_RST)
		return false;
	if (d->flags & PATHMON_DF_SYN) {
		/* the connection starts (over): its sequence and timestamp
		 * spaces are new */
		f->pend = PATHMON_NONE;
		f->st = (d->flags & PATHMON_DF_TS ? FS_TS : 0) |
			(d->bytes ? FS_DATA : 0);
		f->snd_max = d->end;
		f->ts_max = d->tsval;
		memset(f->dep_ns, 0, sizeof(f->dep_ns));
		return false;
	}
	if (d->bytes)
		f->st |= FS_DATA;
	/* Karn: a segment carrying sequence space that starts below what
	 * was sent is a retransmission */
	retx = d->end != d->seq && tcp_seq_before(d->seq, f->snd_max);
	if (retx && f->pend == PATHMON_TCP_SEQ) {
		f->pend = PATHMON_NONE;
		ctr_add(&pm->st.karn_invalidated, 1);
	}
	if (retx)
		memset(f->dep_ns, 0, sizeof(f->dep_ns));
	if (tcp_seq_before(f->snd_max, d->end)) {
		/* new payload (a FIN's sequence number is none) */
		pm->new_bytes += MIN(d->bytes, d->end - f->snd_max);
		f->snd_max = d->end;
		f->last_dep_ns = now;
		if (!retx && d->end != d->seq) {
			f->dep_end[f->dep_pos] = d->end;
			f->dep_ns[f->dep_pos] = now;
			f->dep_pos =
				(uint8_t)((f->dep_pos + 1) % PATHMON_DEP_RING);
		}
	}
	if (f->pend == PATHMON_TCP_SEQ && f->snd_max - f->pend_val >= SEQ_FAR) {
		f->pend = PATHMON_NONE;
		ctr_add(&pm->st.expired, 1);
	}
	if (d->flags & PATHMON_DF_TS) {
		if (!(f->st & FS_TS)) {
			f->st |= FS_TS; /* not sampled: older copies unknown */
			f->ts_max = d->tsval;
		} else if (tcp_seq_before(f->ts_max, d->tsval)) {
			f->ts_max = d->tsval;
			newts = true;
		}
	}
	pend_expire(pm, f, now, age_limit(pm));
	if (f->pend != PATHMON_NONE)
		return false;
	f->pend_end = d->end;
	if (f->st & FS_TS)
		return newts && d->end != d->seq && !retx &&
		       start_sample(pm, f, PATHMON_TCP_TS, d->tsval, now);
	if (retx || d->end == d->seq)
		return false;
	return start_sample(pm, f, PATHMON_TCP_SEQ, d->end, now);
}

static bool depart_roce(struct pathmon *pm, struct pathmon_flow *f,
			const struct pathmon_dep *d, uint64_t now)
{
	uint32_t psn = d->seq & PATHMON_PSN_MASK;

	if (psn_not_after(psn, f->snd_max)) {
		/* the same PSN again or an older one: go-back-N */
		if (f->pend == PATHMON_ROCE_PSN) {
			f->pend = PATHMON_NONE;
			ctr_add(&pm->st.karn_invalidated, 1);
		}
		memset(f->dep_ns, 0, sizeof(f->dep_ns));
		return false;
	}
	f->snd_max = psn;
	f->last_dep_ns = now;
	if (!(d->flags & PATHMON_DF_NOSAMPLE)) {
		pm->new_bytes += d->bytes;
		f->dep_end[f->dep_pos] = psn;
		f->dep_ns[f->dep_pos] = now;
		f->dep_pos = (uint8_t)((f->dep_pos + 1) % PATHMON_DEP_RING);
	}
	if (!(d->flags & PATHMON_DF_NOSAMPLE) && d->bytes)
		f->psn_bytes = d->bytes;
	if (f->pend == PATHMON_ROCE_PSN &&
	    ((psn - f->pend_val) & PATHMON_PSN_MASK) >= pm->par.psn_window) {
		f->pend = PATHMON_NONE; /* too far behind to be matched */
		ctr_add(&pm->st.expired, 1);
	}
	pend_expire(pm, f, now, age_limit(pm));
	if (f->pend != PATHMON_NONE || (d->flags & PATHMON_DF_NOSAMPLE) ||
	    !(d->flags & PATHMON_DF_ACKREQ))
		return false;
	return start_sample(pm, f, PATHMON_ROCE_PSN, psn, now);
}

static bool key_ok(const struct pathmon_key *k)
{
	return (k->family == 4 || k->family == 6) &&
	       (k->proto == PATHMON_P_TCP || k->proto == PATHMON_P_ROCE);
}

bool pathmon_depart(struct pathmon *pm, const struct pathmon_key *k,
		    const struct pathmon_dep *d, uint64_t now_ns)
{
	struct pathmon_flow *f;
	uint32_t h, pos;

	advance(pm, now_ns);
	ctr_add(&pm->st.departures, 1);
	if (!key_ok(k))
		return false;
	h = key_hash(k, pm->par.seed);
	pos = idx_probe(pm, k, h);
	if (pm->index[pos].ref != REF_EMPTY &&
	    flow_idle(pm, &pm->flows[pm->index[pos].ref], now_ns)) {
		/* not revived: it starts over as a new flow */
		flow_expire(pm, pm->index[pos].ref);
		pos = idx_probe(pm, k, h);
	}
	if (pm->index[pos].ref == REF_EMPTY) {
		if (d->flags & PATHMON_DF_RST)
			return false;
		if (pm->free_flow == SLOT_NONE) {
			ctr_add(&pm->st.table_full, 1);
			return false;
		}
		/* the first departure seen: state only, never a sample */
		f = flow_new(pm, k, h, pos, now_ns);
		if (k->proto == PATHMON_P_TCP) {
			f->snd_max = d->end;
			if (d->bytes)
				f->st |= FS_DATA;
			if (d->flags & PATHMON_DF_TS) {
				f->st |= FS_TS;
				f->ts_max = d->tsval;
			}
		} else {
			f->snd_max = d->seq & PATHMON_PSN_MASK;
			if (!(d->flags & PATHMON_DF_NOSAMPLE))
				f->psn_bytes = d->bytes;
		}
		return false;
	}
	DP_ASSERT(!(pm->index[pos].ref & ROLE_SQP));
	f = &pm->flows[pm->index[pos].ref];
	f->last_ns = now_ns;
	if (k->proto == PATHMON_P_TCP)
		return depart_tcp(pm, f, d, now_ns);
	return depart_roce(pm, f, d, now_ns);
}

/* ---- events ---- */

/* An event of one of the monitor's flows, into the interval's mark
 * fraction (events of other flows are not: pathmon.h). */
static void count_event(struct pathmon *pm, bool mark)
{
	pm->int_acks++;
	pm->int_marks += mark;
}

static uint64_t ack_tcp(struct pathmon *pm, const struct pathmon_ack *ev,
			uint64_t now)
{
	struct pathmon_flow *f;
	uint32_t h, pos, a = ev->ack;
	uint64_t rtt;

	h = key_hash(&ev->key, pm->par.seed);
	pos = idx_probe(pm, &ev->key, h);
	if (pm->index[pos].ref == REF_EMPTY) {
		ctr_add(&pm->st.acks_unmatched, 1);
		return 0;
	}
	f = &pm->flows[pm->index[pos].ref];
	if (flow_idle(pm, f, now)) {
		flow_expire(pm, pm->index[pos].ref);
		ctr_add(&pm->st.acks_unmatched, 1);
		return 0;
	}
	if (!(f->st & FS_DATA)) {
		/* the data of the flow entering the port, whose pure ACKs
		 * leave here: nothing of ours to acknowledge */
		ctr_add(&pm->st.acks_unmatched, 1);
		return 0;
	}
	if (tcp_seq_before(f->snd_max, a))
		return 0; /* acknowledges what never left here */
	count_event(pm, ev->flags & PATHMON_AF_ECE);
	if (ev->flags & PATHMON_AF_ECE)
		ctr_add(&pm->st.ece, 1);
	f->last_ns = now;
	/* delivered: the cumulative ACK's advance */
	if (!(f->st & FS_ACKED)) {
		f->acked = a;
		f->st |= FS_ACKED;
	} else if (tcp_seq_before(f->acked, a)) {
		pm->int_bytes += ev->bytes ? ev->bytes : a - f->acked;
		f->acked = a;
		if (pm->par.exact_ring) {
			budget_roll(pm, now);
			rtt = ring_sample(pm, f, a, ev->seen_ns, now);
			/* it answers a pending sample it covers, exactly */
			if (rtt && f->pend != PATHMON_NONE &&
			    !tcp_seq_before(a, f->pend_end))
				f->pend = PATHMON_NONE;
			if (rtt)
				return rtt;
		}
	}
	if (f->pend == PATHMON_NONE || pend_expire(pm, f, now, age_limit(pm)))
		return 0;
	if (f->pend == PATHMON_TCP_TS) {
		if (!(ev->flags & PATHMON_AF_TS))
			return 0;
		if (ev->tsecr == f->pend_val)
			return exact_sample(pm, f, a, ev->seen_ns, now);
		if (tcp_seq_before(f->pend_val, ev->tsecr) &&
		    !tcp_seq_before(f->ts_max, ev->tsecr)) {
			/* a newer TSval echoed: ours will not be any more */
			f->pend = PATHMON_NONE;
			ctr_add(&pm->st.superseded, 1);
		}
		return 0;
	}
	if (f->pend == PATHMON_TCP_SEQ && !tcp_seq_before(a, f->pend_val))
		return exact_sample(pm, f, a, ev->seen_ns, now);
	return 0;
}

/* Pair an ACK's requester QP with the one RoCE flow between the same hosts
 * whose PSN window holds its PSN (flowq.h's rule). pos: the empty index
 * position of the role-1 key lk (hash h). */
static struct pathmon_flow *learn_sqpn(struct pathmon *pm,
				       const struct pathmon_ack *ev,
				       const struct pathmon_key *lk, uint32_t h,
				       uint32_t pos)
{
	uint32_t a = ev->ack & PATHMON_PSN_MASK, found = SLOT_NONE, n = 0;
	struct pathmon_flow *f;

	if (pathmon_aeth_type(ev->syndrome) != PATHMON_AETH_ACK)
		return NULL;
	if (pm->learn_used >= pm->par.max_learn_per_ms) {
		ctr_add(&pm->st.learn_refused, 1);
		return NULL;
	}
	pm->learn_used++;
	for (uint32_t i = 0; i < pm->par.max_flows && n < 2; i++) {
		f = &pm->flows[i];
		if (!f->in_use || f->key.proto != PATHMON_P_ROCE ||
		    (f->st & FS_SQPN) || f->key.family != ev->key.family ||
		    memcmp(f->key.src, ev->key.src, 16) ||
		    memcmp(f->key.dst, ev->key.dst, 16) ||
		    ((f->snd_max - a) & PATHMON_PSN_MASK) >= pm->par.psn_window)
			continue;
		found = i;
		n++;
	}
	if (n != 1) {
		ctr_add(n ? &pm->st.qpn_ambiguous : &pm->st.qpn_unmatched, 1);
		return NULL;
	}
	f = &pm->flows[found];
	f->sqpn = lk->qpn; /* 24 bits, as looked up */
	f->st |= FS_SQPN;
	DP_ASSERT(pm->index[pos].ref == REF_EMPTY);
	pm->index[pos].ref = found | ROLE_SQP;
	pm->index[pos].hash = h;
	ctr_add(&pm->st.qpn_learned, 1);
	return f;
}

static uint64_t ack_roce(struct pathmon *pm, const struct pathmon_ack *ev,
			 uint64_t now)
{
	struct pathmon_key lk = ev->key;
	struct pathmon_flow *f;
	uint32_t h, pos, a, d, slot, k, span;
	unsigned int type = pathmon_aeth_type(ev->syndrome);

	if (type != PATHMON_AETH_ACK && type != PATHMON_AETH_NAK &&
	    type != PATHMON_AETH_RNR_NAK)
		return 0;
	lk.proto |= PROTO_SQP;
	lk.qpn &= PATHMON_PSN_MASK;
	h = key_hash(&lk, pm->par.seed);
	pos = idx_probe(pm, &lk, h);
	if (pm->index[pos].ref == REF_EMPTY) {
		f = learn_sqpn(pm, ev, &lk, h, pos);
		if (!f) {
			ctr_add(&pm->st.acks_unmatched, 1);
			return 0;
		}
	} else {
		f = &pm->flows[pm->index[pos].ref & ~ROLE_SQP];
	}
	slot = (uint32_t)(f - pm->flows);
	if (flow_idle(pm, f, now)) {
		flow_expire(pm, slot);
		ctr_add(&pm->st.acks_unmatched, 1);
		return 0;
	}
	/* a NAK acknowledges what comes before its PSN */
	a = (ev->ack - (type == PATHMON_AETH_ACK ? 0 : 1)) & PATHMON_PSN_MASK;
	if (((f->snd_max - a) & PATHMON_PSN_MASK) >= pm->par.psn_window) {
		/* not a PSN this flow sent lately: the pair was wrong, or the
		 * ACK is far too old to trust it */
		idx_remove(pm, slot, ROLE_SQP);
		f->st &= (uint8_t)~FS_SQPN;
		f->pend = PATHMON_NONE;
		ctr_add(&pm->st.qpn_unpaired, 1);
		return 0;
	}
	count_event(pm, false);
	f->last_ns = now;
	if (!(f->st & FS_ACKED)) {
		f->acked = a;
		f->st |= FS_ACKED;
	} else {
		d = (a - f->acked) & PATHMON_PSN_MASK;
		if (d && d < PSN_HALF) {
			pm->int_bytes += ev->bytes ? ev->bytes
						   : (uint64_t)d * f->psn_bytes;
			f->acked = a;
		}
	}
	if (type != PATHMON_AETH_ACK) {
		if (f->pend == PATHMON_ROCE_PSN) {
			f->pend = PATHMON_NONE;
			ctr_add(&pm->st.nak_invalidated, 1);
		}
		return 0;
	}
	/* exact: the ACK of one of the last requests that left (a
	 * coalescing responder acknowledges when that PSN arrives) */
	if (pm->par.exact_ring) {
		uint64_t rtt;

		budget_roll(pm, now);
		rtt = ring_sample(pm, f, a, ev->seen_ns, now);
		if (rtt) {
			if (f->pend == PATHMON_ROCE_PSN &&
			    ((a - f->pend_val) & PATHMON_PSN_MASK) < PSN_HALF)
				f->pend = PATHMON_NONE;
			return rtt;
		}
	}
	if (f->pend != PATHMON_ROCE_PSN ||
	    pend_expire(pm, f, now, age_limit(pm)))
		return 0;
	/* covers the recorded PSN: a in [recorded, highest sent] */
	k = (a - f->pend_val) & PATHMON_PSN_MASK;
	span = (f->snd_max - f->pend_val) & PATHMON_PSN_MASK;
	if (k > span)
		return 0;
	if (!k)
		return take_sample(pm, f, ev->seen_ns, now, true);
	/* an ACK sent for a later request (the responder coalesces):
	 * measured from that request's departure, interpolated by PSN */
	if (f->last_dep_ns < f->pend_ns) {
		f->pend = PATHMON_NONE;
		return 0;
	}
	f->pend_ns +=
		(uint64_t)((double)(f->last_dep_ns - f->pend_ns) * k / span);
	ctr_add(&pm->st.ack_interpolated, 1);
	return take_sample(pm, f, ev->seen_ns, now, false);
}

/* A CNP: a mark of the flow whose requester QP it names, once paired
 * (learn_sqpn: only an ACK pairs). */
static void ack_cnp(struct pathmon *pm, const struct pathmon_ack *ev)
{
	struct pathmon_key lk = ev->key;
	uint32_t h, pos;

	lk.proto |= PROTO_SQP;
	lk.qpn &= PATHMON_PSN_MASK;
	h = key_hash(&lk, pm->par.seed);
	pos = idx_probe(pm, &lk, h);
	if (pm->index[pos].ref == REF_EMPTY) {
		ctr_add(&pm->st.acks_unmatched, 1);
		return;
	}
	ctr_add(&pm->st.cnps, 1);
	count_event(pm, true);
}

uint64_t pathmon_ack(struct pathmon *pm, const struct pathmon_ack *ev,
		     uint64_t now_ns)
{
	advance(pm, now_ns);
	if (ev->type != PATHMON_EV_TCP && ev->type != PATHMON_EV_ROCE_ACK &&
	    ev->type != PATHMON_EV_CNP)
		return 0;
	if ((ev->key.family != 4 && ev->key.family != 6) ||
	    ev->key.proto != (ev->type == PATHMON_EV_TCP ? PATHMON_P_TCP
							 : PATHMON_P_ROCE))
		return 0;
	if (ev->type == PATHMON_EV_CNP) {
		ack_cnp(pm, ev);
		return 0;
	}
	ctr_add(&pm->st.acks_seen, 1);
	if (ev->type == PATHMON_EV_TCP)
		return ack_tcp(pm, ev, now_ns);
	return ack_roce(pm, ev, now_ns);
}

/* ---- the estimate ---- */

/* The mean delivery rate of the last PATHMON_MEAN_INTERVALS closed
 * intervals (fewer at the start). */
static double recent_mean_bps(const struct pathmon *pm)
{
	uint32_t n = MIN(pm->ring_n, PATHMON_MEAN_INTERVALS),
		 pos = pm->ring_pos;
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n; i++) {
		pos = pos ? pos - 1 : pm->par.rate_intervals - 1;
		sum += pm->ring[pos].bytes;
	}
	return n ? bytes_bps(pm, sum) / n : 0;
}

/* The port's standing RTT (0: none): the minimum of the standing RTTs of
 * the flows sampled within max(2 x srtt, interval_ns) of the newest
 * sample. A flow's own queue beyond the shared bottleneck, or its
 * receiver's delayed-ACK timer, does not make it; what every flow meets
 * does, once each has had two samples of it. */
static uint64_t standing_rtt(const struct pathmon *pm)
{
	uint64_t m = 0, since, span = MAX(2 * pm->srtt_ns, pm->par.interval_ns);

	since = pm->last_sample_ns > span ? pm->last_sample_ns - span : 0;
	for (uint32_t i = 0; i < PATHMON_STANDING_FLOWS; i++) {
		if (!pm->standing[i].seen || pm->standing[i].seen < since)
			continue;
		if (!m || pm->standing[i].standing < m)
			m = pm->standing[i].standing;
	}
	return m;
}

/* A long RTT gives few samples per rate window (one per flow and RTT):
 * min_samples in all since init or reset (of every kind: pending samples
 * matched and the departure ring's exact ones), and one within the last
 * two smoothed RTTs and an interval (a sample seen after now has age 0),
 * keep the estimate valid. */
static bool long_rtt_valid(const struct pathmon *pm, uint64_t now_ns)
{
	return pm->n_samples >= pm->par.min_samples && pm->last_sample_ns &&
	       age_ns(now_ns, pm->last_sample_ns) <=
		       2 * pm->srtt_ns + pm->par.interval_ns;
}

void pathmon_estimate(struct pathmon *pm, uint64_t now_ns,
		      struct pathmon_est *out)
{
	uint64_t epoch = now_ns / pm->sub_ns, base = 0, maxb = 0;
	uint32_t samples;

	budget_roll(pm, now_ns);
	roll_intervals(pm, now_ns);
	memset(out, 0, sizeof(*out));
	for (uint32_t s = 0; s < PATHMON_MINRTT_SUB; s++) {
		if (!pm->sub_min[s] || pm->sub_epoch[s] > epoch ||
		    epoch - pm->sub_epoch[s] >= PATHMON_MINRTT_SUB)
			continue;
		if (!base || pm->sub_min[s] < base)
			base = pm->sub_min[s];
	}
	samples = pm->int_samples; /* the open interval, after the roll */
	for (uint32_t i = 0; i < pm->ring_n; i++) {
		maxb = MAX(maxb, pm->ring[i].bytes);
		samples += pm->ring[i].samples;
	}
	out->base_rtt_ns = base;
	out->srtt_ns = pm->srtt_ns;
	out->standing_rtt_ns = standing_rtt(pm);
	out->qdelay_ns = base && out->standing_rtt_ns > base
				 ? out->standing_rtt_ns - base
				 : 0;
	out->delivery_bps = bytes_bps(pm, maxb);
	out->delivery_bps_last = pm->bps_last;
	out->delivery_bps_mean = recent_mean_bps(pm);
	out->mark_frac = pm->mark_frac;
	out->mark_frac_last = pm->mark_last;
	out->samples_recent = samples;
	out->last_sample_ns = pm->last_sample_ns;
	out->valid = base && (samples >= pm->par.min_samples ||
			      long_rtt_valid(pm, now_ns));
}

/* ---- helpers for the tasks ---- */

static inline uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/* RC request opcodes (IBA 9.2): SEND, WRITE (0x00-0x0b), READ request
 * (0x0c), atomics (0x13, 0x14), SEND with invalidate (0x16, 0x17). */
static bool rc_request(uint8_t op)
{
	return op <= 0x0c || op == 0x13 || op == 0x14 || op == 0x16 ||
	       op == 0x17;
}

/* Bytes of an RC request's payload: the UDP length less UDP, BTH, its
 * extension headers, pad and ICRC. */
static uint32_t roce_payload(const uint8_t *frame, uint32_t len,
			     const struct pkt_meta *m)
{
	uint32_t l4 = m->l4_off, ulen, ext = 0, pad;
	uint8_t op = m->bth_opcode;

	if (l4 + 8 + BTH_LEN > len)
		return 0;
	ulen = rd16(frame + l4 + 4);
	pad = (frame[l4 + 8 + 1] >> 4) & 3;
	if (op == 0x06 || op == 0x0a || op == 0x0b)
		ext += ROCE_RETH_LEN;
	if (op == 0x03 || op == 0x05 || op == 0x09 || op == 0x0b ||
	    op == 0x16 || op == 0x17)
		ext += 4; /* ImmDt, IETH */
	ext += 8 + BTH_LEN + ROCE_ICRC_LEN + pad;
	return ulen > ext ? ulen - ext : 0;
}

static bool key_of_ip(const struct pkt_meta *m, bool reverse,
		      struct pathmon_key *k)
{
	memset(k, 0, sizeof(*k));
	if (m->l3 == PKT_L3_IPV4)
		k->family = 4;
	else if (m->l3 == PKT_L3_IPV6)
		k->family = 6;
	else
		return false;
	memcpy(k->src, reverse ? m->dst : m->src, 16);
	memcpy(k->dst, reverse ? m->src : m->dst, 16);
	return !(m->flags & PKT_F_FRAG);
}

bool pathmon_dep_of(const uint8_t *frame, uint32_t len,
		    const struct pkt_meta *m, struct pathmon_key *k,
		    struct pathmon_dep *d)
{
	struct pkt_tcp t;

	memset(d, 0, sizeof(*d));
	if (!key_of_ip(m, false, k))
		return false;
	if (m->flags & PKT_F_BTH) {
		if (!rc_request(m->bth_opcode))
			return false;
		k->proto = PATHMON_P_ROCE;
		k->qpn = m->bth_dqpn & ROCE_QPN_MASK;
		d->seq = d->end = m->bth_psn & PATHMON_PSN_MASK;
		if (m->bth_flags & PKT_BTH_ACKREQ)
			d->flags |= PATHMON_DF_ACKREQ;
		if (m->bth_opcode == 0x0c || m->bth_opcode == 0x13 ||
		    m->bth_opcode == 0x14)
			d->flags |= PATHMON_DF_NOSAMPLE;
		else
			d->bytes = roce_payload(frame, len, m);
		return true;
	}
	if (pkt_tcp_read(frame, len, m, &t) != PKT_TCP_OK)
		return false;
	k->proto = PATHMON_P_TCP;
	k->sport = m->sport;
	k->dport = m->dport;
	d->seq = t.seq;
	d->end = pkt_tcp_end_seq(&t);
	d->bytes = t.payload_len;
	if (t.opts & PKT_TCP_O_TS) {
		d->flags |= PATHMON_DF_TS;
		d->tsval = t.tsval;
	}
	if (t.flags & PKT_TCP_SYN)
		d->flags |= PATHMON_DF_SYN;
	if (t.flags & PKT_TCP_RST)
		d->flags |= PATHMON_DF_RST;
	return true;
}

bool pathmon_ack_of(const uint8_t *frame, uint32_t len,
		    const struct pkt_meta *m, uint64_t now_ns,
		    struct pathmon_ack *ev)
{
	struct pkt_tcp t;

	memset(ev, 0, sizeof(*ev));
	ev->seen_ns = now_ns;
	if (!key_of_ip(m, true, &ev->key))
		return false;
	if (m->flags & PKT_F_BTH) {
		uint32_t l4 = m->l4_off, aeth = l4 + 8 + BTH_LEN;

		ev->key.proto = PATHMON_P_ROCE;
		ev->key.qpn = m->bth_dqpn & ROCE_QPN_MASK;
		if (m->bth_opcode == BTH_OP_CNP) {
			ev->type = PATHMON_EV_CNP;
			return true;
		}
		if (m->bth_opcode != BTH_OP_RC_ACK && m->bth_opcode != 0x12)
			return false;
		/* the AETH: inside the frame and the UDP datagram */
		if (aeth + ROCE_AETH_LEN > len ||
		    rd16(frame + l4 + 4) < 8 + BTH_LEN + ROCE_AETH_LEN)
			return false;
		ev->type = PATHMON_EV_ROCE_ACK;
		ev->syndrome = frame[aeth];
		ev->ack = m->bth_psn & PATHMON_PSN_MASK;
		return true;
	}
	if (pkt_tcp_read(frame, len, m, &t) != PKT_TCP_OK ||
	    !(t.flags & PKT_TCP_ACK) || (t.flags & PKT_TCP_RST))
		return false;
	ev->type = PATHMON_EV_TCP;
	ev->key.proto = PATHMON_P_TCP;
	ev->key.sport = m->dport;
	ev->key.dport = m->sport;
	ev->ack = t.ack;
	if (t.opts & PKT_TCP_O_TS) {
		ev->flags |= PATHMON_AF_TS;
		ev->tsecr = t.tsecr;
	}
	/* on a SYN-ACK, ECE negotiates ECN: it is not a mark */
	if ((t.flags & PKT_TCP_ECE) && !(t.flags & PKT_TCP_SYN))
		ev->flags |= PATHMON_AF_ECE;
	return true;
}

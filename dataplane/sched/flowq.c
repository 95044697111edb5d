// SPDX-License-Identifier: BSD-2-Clause
/*
 * flowq.c - see flowq.h.
 *
 * Two open-addressing indexes (linear probing, backward-shift deletion, so
 * no tombstones) point into the fixed array of flows: `index` by the flow
 * key, `rindex` by (destination, sender QPN) once the sender's QPN is
 * learned, which is how a CNP (addressed to the sender's QP) finds its
 * flow in flow_key qp mode.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "ecn.h"
#include "flowq.h"
#include "frame_meta.h"

#define FLOWQ_EXPIRE_EVERY_NS 1000000ull
#define PSN_MASK 0xffffffu

/* ---- published values (readers on other threads) ---- */

static void pub_f64(uint64_t *dst, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	__atomic_store_n(dst, bits, __ATOMIC_RELAXED);
}

static double read_f64(const uint64_t *src)
{
	uint64_t bits = __atomic_load_n(src, __ATOMIC_RELAXED);
	double v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

/* The flow's RP state moved: cache the time one byte takes at R_C (the
 * per-frame arithmetic is then a multiplication) and publish the rates. */
static void rate_moved(struct flowq_flow *f)
{
	f->ns_per_byte = 8e9 / f->rp.rc;
	pub_f64(&f->pub_rc, f->rp.rc);
	pub_f64(&f->pub_rt, f->rp.rt);
	pub_f64(&f->pub_alpha, f->rp.alpha);
}

/* Fields a reader may look at, written by the owner alone. */
static void set_packets(struct flowq_flow *f, uint32_t n)
{
	__atomic_store_n(&f->packets, n, __ATOMIC_RELAXED);
}

static void set_qpn(struct flowq_flow *f, uint32_t qpn, bool known)
{
	__atomic_store_n(&f->peer.sender_qpn, qpn, __ATOMIC_RELAXED);
	__atomic_store_n(&f->peer.qpn_known, known, __ATOMIC_RELAXED);
}

/* ---- keys and indexes ---- */

static uint32_t key_hash(const struct flowq_key *k)
{
	uint64_t w[3];

	memcpy(w, k, sizeof(w));
	uint64_t h = (w[0] ^ 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;

	h = (h ^ w[1] ^ (h >> 31)) * 0x94d049bb133111ebull;
	h = (h ^ w[2] ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h ^ (h >> 32));
}

static bool key_eq(const struct flowq_key *a, const struct flowq_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* The reverse key of a flow: its destination and the sender's QPN. */
static void rkey_of(const struct flowq_flow *f, struct flowq_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = f->key.family;
	memcpy(k->addr, f->key.addr, sizeof(k->addr));
	k->qpn = f->peer.sender_qpn;
}

typedef void (*keyof_fn)(const struct flowq_flow *f, struct flowq_key *k);

static void fkey_of(const struct flowq_flow *f, struct flowq_key *k)
{
	*k = f->key;
}

/* Position of key k in idx, or of the empty slot where it would go. */
static uint32_t idx_probe(const struct flowq *q, const uint32_t *idx,
			  keyof_fn keyof, const struct flowq_key *k)
{
	uint32_t i = key_hash(k) & q->index_mask;
	struct flowq_key fk;

	for (;; i = (i + 1) & q->index_mask) {
		if (idx[i] == FLOWQ_NONE)
			return i;
		keyof(&q->flows[idx[i]], &fk);
		if (key_eq(&fk, k))
			return i;
	}
}

static void idx_delete(struct flowq *q, uint32_t *idx, keyof_fn keyof,
		       uint32_t i)
{
	struct flowq_key fk;
	uint32_t j = i, home;

	idx[i] = FLOWQ_NONE;
	for (;;) {
		j = (j + 1) & q->index_mask;
		if (idx[j] == FLOWQ_NONE)
			return;
		keyof(&q->flows[idx[j]], &fk);
		home = key_hash(&fk) & q->index_mask;
		/* the entry at j may move to the hole at i unless its home
		 * lies cyclically in (i, j] */
		if ((i <= j) ? (home <= i || home > j)
			     : (home <= i && home > j)) {
			idx[i] = idx[j];
			idx[j] = FLOWQ_NONE;
			i = j;
		}
	}
}

static void rindex_remove(struct flowq *q, uint32_t fid)
{
	struct flowq_key rk;
	uint32_t i;

	if (!q->flows[fid].peer.qpn_known)
		return;
	rkey_of(&q->flows[fid], &rk);
	i = idx_probe(q, q->rindex, rkey_of, &rk);
	if (q->rindex[i] == fid)
		idx_delete(q, q->rindex, rkey_of, i);
}

/* ---- life cycle ---- */

static void recompute_next_tx(struct flowq *q, struct flowq_flow *f)
{
	f->next_tx_ns =
		f->last_len ? f->last_tx_ns + (uint64_t)((double)f->last_len *
							 f->ns_per_byte)
			    : 0;
}

int flowq_init(struct flowq *q, uint32_t cap, const struct qos_dcqcn *cfg,
	       double line_bps, uint64_t seed, uint64_t now_ns)
{
	uint32_t slots = 2;

	memset(q, 0, sizeof(*q));
	if (!cap || !cfg->max_flows || cfg->max_flows > (1u << 20) ||
	    !(line_bps > 0))
		return -EINVAL;
	q->max_flows = cfg->max_flows;
	q->cap = cap;
	while (slots < 2 * q->max_flows)
		slots <<= 1;
	q->index_mask = slots - 1;
	q->flows = calloc(q->max_flows, sizeof(*q->flows));
	q->index = malloc(slots * sizeof(*q->index));
	q->rindex = malloc(slots * sizeof(*q->rindex));
	q->pool = malloc((size_t)cap * sizeof(*q->pool));
	if (!q->flows || !q->index || !q->rindex || !q->pool) {
		flowq_fini(q);
		return -ENOMEM;
	}
	memset(q->index, 0xff, slots * sizeof(*q->index));
	memset(q->rindex, 0xff, slots * sizeof(*q->rindex));
	for (uint32_t i = 0; i < cap; i++)
		q->pool[i].next = i + 1 < cap ? i + 1 : FLOWQ_NONE;
	for (uint32_t i = 0; i < q->max_flows; i++)
		q->flows[i].next = i + 1 < q->max_flows ? i + 1 : FLOWQ_NONE;
	q->free_flow = 0;
	q->pool_free = 0;
	q->cursor = FLOWQ_NONE;
	q->np_next_ns = UINT64_MAX;
	ecn_rng_seed(&q->rng, seed);
	q->last_expire_ns = now_ns;
	q->look_ns = now_ns;
	flowq_set_params(q, cfg, line_bps);
	return 0;
}

void flowq_fini(struct flowq *q)
{
	free(q->flows);
	free(q->index);
	free(q->rindex);
	free(q->pool);
	q->flows = NULL;
	q->index = q->rindex = NULL;
	q->pool = NULL;
}

void flowq_set_params(struct flowq *q, const struct qos_dcqcn *cfg,
		      double line_bps)
{
	q->par = cfg->par;
	q->par.line_bps = line_bps;
	q->key_kind = cfg->key;
	q->flow_idle_ns = cfg->flow_idle_ns;
	q->cp_loop = cfg->cp_loop;
	q->np = cfg->np && cfg->key == QOS_FLOW_QP;
	q->cnp_forward = cfg->cnp_action == QOS_CNP_FORWARD;
	for (uint32_t i = 0; i < q->max_flows; i++) {
		struct flowq_flow *f = &q->flows[i];

		if (!f->in_use)
			continue;
		if (f->rp.rt > line_bps)
			f->rp.rt = line_bps;
		if (f->rp.rc > line_bps)
			f->rp.rc = line_bps;
		rate_moved(f);
		recompute_next_tx(q, f);
	}
}

/* ---- flows ---- */

static void key_store(struct flowq_flow *f, const struct flowq_key *k,
		      bool in_use)
{
	const uint32_t *src = (const uint32_t *)k;
	uint32_t *dst = (uint32_t *)&f->key;

	__atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELEASE);
	for (size_t i = 0; i < sizeof(*k) / 4; i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
	__atomic_store_n(&f->in_use, in_use, __ATOMIC_RELAXED);
	__atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELEASE);
}

static uint32_t flow_create(struct flowq *q, const struct flowq_key *k,
			    uint32_t pos, uint64_t now_ns)
{
	uint32_t fid = q->free_flow;
	struct flowq_flow *f;

	if (fid == FLOWQ_NONE) {
		ctr_add(&q->st.table_full, 1);
		return FLOWQ_NONE;
	}
	f = &q->flows[fid];
	q->free_flow = f->next;
	f->head = f->tail = FLOWQ_NONE;
	set_packets(f, 0);
	f->bytes = 0;
	f->active = false;
	f->last_tx_ns = f->next_tx_ns = 0;
	f->last_len = 0;
	f->idle_since_ns = now_ns;
	f->psn_seen = false;
	memset(&f->peer, 0, offsetof(struct flowq_peer, sender_qpn));
	set_qpn(f, 0, false);
	dcqcn_rp_init(&f->rp, &q->par, now_ns);
	dcqcn_np_init(&f->np);
	ctr_set(&f->sent_packets, 0);
	ctr_set(&f->sent_bytes, 0);
	ctr_set(&f->cnps_wire, 0);
	ctr_set(&f->cnps_internal, 0);
	ctr_set(&f->cnps_hint, 0);
	ctr_set(&f->cnps_sent, 0);
	rate_moved(f);
	key_store(f, k, true);
	q->index[pos] = fid;
	q->n_flows++;
	ctr_add(&q->st.flows_created, 1);
	return fid;
}

static void flow_remove(struct flowq *q, uint32_t fid)
{
	struct flowq_flow *f = &q->flows[fid];
	struct flowq_key k = f->key;
	uint32_t pos = idx_probe(q, q->index, fkey_of, &k);

	rindex_remove(q, fid);
	if (q->index[pos] == fid)
		idx_delete(q, q->index, fkey_of, pos);
	key_store(f, &k, false);
	f->next = q->free_flow;
	q->free_flow = fid;
	q->n_flows--;
	ctr_add(&q->st.flows_expired, 1);
}

/* Round robin ring of backlogged flows: a new flow goes last. */
static void activate(struct flowq *q, uint32_t fid)
{
	struct flowq_flow *f = &q->flows[fid];

	f->active = true;
	f->credit_ns = 0;
	q->n_active++;
	if (q->cursor == FLOWQ_NONE) {
		f->prev = f->next = fid;
		q->cursor = fid;
		return;
	}
	struct flowq_flow *c = &q->flows[q->cursor];

	f->next = q->cursor;
	f->prev = c->prev;
	q->flows[c->prev].next = fid;
	c->prev = fid;
}

static void deactivate(struct flowq *q, uint32_t fid, uint64_t now_ns)
{
	struct flowq_flow *f = &q->flows[fid];

	f->active = false;
	f->idle_since_ns = now_ns;
	q->n_active--;
	if (!q->n_active) {
		q->cursor = FLOWQ_NONE;
		return;
	}
	q->flows[f->prev].next = f->next;
	q->flows[f->next].prev = f->prev;
	if (q->cursor == fid)
		q->cursor = f->next;
}

/* Catch the RP's timers up to now; true if its rate moved. */
static bool catch_up(struct flowq *q, struct flowq_flow *f, uint64_t now_ns)
{
	double rc = f->rp.rc;

	if (dcqcn_rp_next_ns(&f->rp) > now_ns)
		return false;
	dcqcn_rp_catch_up(&f->rp, &q->par, now_ns); /* bounded time */
	if (f->rp.rc == rc)
		return false;
	rate_moved(f);
	recompute_next_tx(q, f);
	return true;
}

static void rp_cnp(struct flowq *q, struct flowq_flow *f, uint64_t now_ns)
{
	dcqcn_rp_on_cnp(&f->rp, &q->par, now_ns);
	rate_moved(f);
	recompute_next_tx(q, f);
}

/* ---- the frames of a flow ---- */

void flowq_key_of(const uint8_t *frame, uint32_t len, uint32_t meta,
		  enum qos_flow_key kind, struct flowq_key *k)
{
	unsigned int l3 = frame_meta_l3(meta), off = frame_meta_l3off(meta);
	unsigned int l4 = frame_meta_l4off(meta);

	memset(k, 0, sizeof(*k));
	if (l3 == ECN_L3_IPV4 && off + 20 <= len) {
		k->family = 4;
		memcpy(k->addr, frame + off + 16, 4);
	} else if (l3 == ECN_L3_IPV6 && off + 40 <= len) {
		k->family = 6;
		memcpy(k->addr, frame + off + 24, 16);
	}
	if (kind == QOS_FLOW_QP && (meta & FRAME_META_BTH) && l4 + 20 <= len)
		k->qpn = (uint32_t)frame[l4 + 13] << 16 |
			 (uint32_t)frame[l4 + 14] << 8 | frame[l4 + 15];
}

/* What the NP needs to address a CNP to this flow's sender. */
static void note_peer(struct flowq_flow *f, const uint8_t *frame, uint32_t len,
		      uint32_t meta)
{
	unsigned int off = frame_meta_l3off(meta), l4 = frame_meta_l4off(meta);

	if (!frame || !(meta & FRAME_META_BTH) || l4 + 20 > len)
		return;
	memcpy(f->peer.receiver_mac, frame, 6);
	memcpy(f->peer.sender_mac, frame + 6, 6);
	f->peer.vid = off >= 18
			      ? (uint16_t)((frame[14] << 8 | frame[15]) & 0xfff)
			      : 0xffff;
	if (f->key.family == 4)
		memcpy(f->peer.sender_ip, frame + off + 12, 4);
	else if (f->key.family == 6)
		memcpy(f->peer.sender_ip, frame + off + 8, 16);
	f->peer.udp_sport = (uint16_t)(frame[l4] << 8 | frame[l4 + 1]);
	f->psn_last = (uint32_t)frame[l4 + 17] << 16 |
		      (uint32_t)frame[l4 + 18] << 8 | frame[l4 + 19];
	f->psn_seen = true;
}

/* Append a frame to flow fid. */
static uint32_t append(struct flowq *q, uint32_t fid,
		       const struct frame_desc *d, const uint8_t *frame,
		       uint64_t now_ns);

uint32_t flowq_push(struct flowq *q, const struct flowq_key *k,
		    const struct frame_desc *d, const uint8_t *frame,
		    uint64_t now_ns)
{
	uint32_t pos = idx_probe(q, q->index, fkey_of, k), fid;

	fid = q->index[pos];
	if (fid == FLOWQ_NONE) {
		fid = flow_create(q, k, pos, now_ns);
		if (fid == FLOWQ_NONE)
			return FLOWQ_NONE;
	}
	return append(q, fid, d, frame, now_ns);
}

void flowq_push_forced(struct flowq *q, const struct flowq_key *k,
		       const struct frame_desc *d, const uint8_t *frame,
		       uint64_t t_enq)
{
	uint32_t fid;

	if (flowq_push(q, k, d, frame, t_enq) != FLOWQ_NONE)
		return;
	fid = q->cursor;
	for (uint32_t i = 0; fid == FLOWQ_NONE && i < q->max_flows; i++)
		if (q->flows[i].in_use)
			fid = i;
	append(q, fid, d, frame, t_enq);
}

static uint32_t append(struct flowq *q, uint32_t fid,
		       const struct frame_desc *d, const uint8_t *frame,
		       uint64_t now_ns)
{
	struct flowq_flow *f;
	uint32_t e;

	e = q->pool_free;
	if (unlikely(e == FLOWQ_NONE)) { /* cannot happen: cap bounds it */
		ctr_add(&q->st.table_full, 1);
		return FLOWQ_NONE;
	}
	q->pool_free = q->pool[e].next;
	q->pool[e].d = *d;
	q->pool[e].t_enq = now_ns;
	q->pool[e].next = FLOWQ_NONE;
	f = &q->flows[fid];
	if (f->tail == FLOWQ_NONE)
		f->head = e;
	else
		q->pool[f->tail].next = e;
	f->tail = e;
	set_packets(f, f->packets + 1);
	f->bytes += d->len;
	if (q->np || q->key_kind == QOS_FLOW_QP)
		note_peer(f, frame, d->len, d->meta);
	if (!f->active)
		activate(q, fid);
	return fid;
}

uint32_t flowq_peek(struct flowq *q, uint64_t now_ns)
{
	uint32_t fid = q->cursor;
	uint64_t gap = now_ns > q->look_ns ? now_ns - q->look_ns : 0;

	q->look_ns = MAX(q->look_ns, now_ns);
	/* the worker did not look at any backlogged flow for gap: each
	 * earns it, not only those the search below walks past */
	for (uint32_t n = 0; gap && n < q->n_active; n++) {
		struct flowq_flow *f = &q->flows[fid];

		f->credit_ns = MAX(f->credit_ns, gap);
		fid = f->next;
	}
	for (uint32_t n = 0; n < q->n_active; n++) {
		struct flowq_flow *f = &q->flows[fid];

		catch_up(q, f, now_ns);
		if (now_ns >= f->next_tx_ns) {
			q->cursor = fid;
			return fid;
		}
		fid = f->next;
	}
	return FLOWQ_NONE;
}

void flowq_pop(struct flowq *q, uint32_t fid, uint64_t now_ns,
	       struct flowq_entry *out)
{
	struct flowq_flow *f = &q->flows[fid];
	uint32_t e = f->head;
	uint64_t gap, due;

	*out = q->pool[e];
	f->head = q->pool[e].next;
	if (f->head == FLOWQ_NONE)
		f->tail = FLOWQ_NONE;
	q->pool[e].next = q->pool_free;
	q->pool_free = e;
	set_packets(f, f->packets - 1);
	f->bytes -= out->d.len;
	/* The schedule: the frame was due when its gate opened or when it
	 * arrived, whichever came later; the next frame is due one frame
	 * time after that, not after now. Below line rate at most
	 * FLOWQ_CATCHUP_BYTES at R_C behind now, and only as far as the
	 * flow's credit (the longest time the worker did not look at it,
	 * not yet made up) reaches: time lost waiting for a busy port earns
	 * none. At line rate the RP limits nothing: all of it. */
	due = MAX(f->next_tx_ns, out->t_enq);
	gap = UINT64_MAX;
	if (f->rp.rc < q->par.line_bps)
		gap = MIN((uint64_t)((double)FLOWQ_CATCHUP_BYTES *
				     f->ns_per_byte),
			  f->credit_ns);
	if (!f->next_tx_ns || due > now_ns)
		due = now_ns;
	else if (now_ns - due > gap)
		due = now_ns - gap;
	f->last_tx_ns = due;
	f->credit_ns = MIN(f->credit_ns, now_ns - due);
	f->last_len = out->d.len;
	if (dcqcn_rp_on_sent(&f->rp, &q->par, out->d.len, now_ns) !=
	    DCQCN_EV_NONE)
		rate_moved(f); /* a byte-counter increase */
	recompute_next_tx(q, f);
	ctr_add(&f->sent_packets, 1);
	ctr_add(&f->sent_bytes, out->d.len);
	q->cursor = f->next; /* one frame per turn */
	if (!f->packets)
		deactivate(q, fid, now_ns);
}

/* A flow's backlog less what its credit explains: the bytes R_C brought
 * while the worker did not look (flowq_pop), the gateway's own gap, as
 * far as the gate makes them up (FLOWQ_CATCHUP_BYTES). */
static uint64_t waiting_bytes(const struct flowq_flow *f)
{
	double own = (double)f->credit_ns * f->rp.rc * (1.0 / 8e9);

	own = MIN(own, (double)FLOWQ_CATCHUP_BYTES);

	return (double)f->bytes > own ? f->bytes - (uint64_t)own : 0;
}

uint64_t flowq_vqueue(struct flowq *q, uint64_t now_ns)
{
	uint64_t bytes = 0;
	uint32_t fid = q->cursor;

	for (uint32_t n = 0; n < q->n_active; n++) {
		const struct flowq_flow *f = &q->flows[fid];

		/* open for longer than one of its own frame times: waiting
		 * for the port, not for its gate */
		if (f->last_len &&
		    now_ns >= f->next_tx_ns + (uint64_t)((double)f->last_len *
							 f->ns_per_byte))
			bytes += waiting_bytes(f);
		else if (!f->last_len && now_ns >= f->next_tx_ns)
			bytes += waiting_bytes(f); /* never sent: gate open */
		fid = f->next;
	}
	return bytes;
}

uint64_t flowq_next_ns(struct flowq *q, uint64_t now_ns)
{
	uint64_t t = UINT64_MAX;
	uint32_t fid = q->cursor;

	for (uint32_t n = 0; n < q->n_active; n++) {
		struct flowq_flow *f = &q->flows[fid];

		catch_up(q, f, now_ns);
		t = MIN(t, MAX(f->next_tx_ns, now_ns));
		fid = f->next;
	}
	if (q->np && q->np_next_ns < t)
		t = MAX(q->np_next_ns, now_ns);
	return t;
}

/* ---- congestion signals ---- */

/* The NP rule said a CNP is due for flow fid at now. */
static void cnp_due(struct flowq *q, uint32_t fid, uint64_t now_ns)
{
	struct flowq_flow *f = &q->flows[fid];

	if (q->cp_loop) {
		rp_cnp(q, f, now_ns);
		ctr_add(&f->cnps_internal, 1);
	}
	if (!q->np)
		return;
	if (!f->peer.qpn_known) {
		ctr_add(&q->st.np_qpn_unknown, 1);
		return;
	}
	if (q->n_np_due == FLOWQ_NP_DUE_MAX) {
		ctr_add(&q->st.np_due_full, 1);
		return;
	}
	q->np_due[q->n_np_due++] = fid;
}

static void note_np_deadline(struct flowq *q, const struct flowq_flow *f)
{
	uint64_t t = dcqcn_np_next_ns(&f->np);

	if (t < q->np_next_ns)
		q->np_next_ns = t;
}

void flowq_marked(struct flowq *q, uint32_t fid, uint64_t now_ns)
{
	struct flowq_flow *f = &q->flows[fid];

	if (!q->cp_loop && !q->np)
		return;
	if (dcqcn_np_on_marked(&f->np, &q->par, now_ns))
		cnp_due(q, fid, now_ns);
	note_np_deadline(q, f);
}

void flowq_np_poll(struct flowq *q, uint64_t now_ns)
{
	if (now_ns < q->np_next_ns)
		return;
	q->np_next_ns = UINT64_MAX;
	for (uint32_t i = 0; i < q->max_flows; i++) {
		struct flowq_flow *f = &q->flows[i];

		if (!f->in_use)
			continue;
		if (dcqcn_np_poll(&f->np, &q->par, now_ns))
			cnp_due(q, i, now_ns);
		note_np_deadline(q, f);
	}
}

uint32_t flowq_cnp_from_wire(struct flowq *q, uint8_t family,
			     const uint8_t *src, uint32_t qpn, uint64_t now_ns)
{
	struct flowq_key k = {.family = family};
	uint32_t fid, alen = family == 6 ? 16 : 4;

	memcpy(k.addr, src, alen);
	if (q->key_kind == QOS_FLOW_QP) {
		k.qpn = qpn;
		fid = q->rindex[idx_probe(q, q->rindex, rkey_of, &k)];
	} else {
		fid = q->index[idx_probe(q, q->index, fkey_of, &k)];
	}
	if (fid == FLOWQ_NONE) {
		ctr_add(&q->st.cnp_unmatched, 1);
		return 0;
	}
	rp_cnp(q, &q->flows[fid], now_ns);
	ctr_add(&q->flows[fid].cnps_wire, 1);
	return 1;
}

/* Is psn within the window of PSNs a flow has recently sent? */
static bool psn_in_window(const struct flowq_flow *f, uint32_t psn)
{
	return f->psn_seen &&
	       ((f->psn_last - psn) & PSN_MASK) < FLOWQ_PSN_WINDOW;
}

void flowq_ack(struct flowq *q, uint8_t family, const uint8_t *src,
	       uint32_t qpn, uint32_t psn)
{
	struct flowq_key rk = {.family = family, .qpn = qpn};
	uint32_t alen = family == 6 ? 16 : 4, found = FLOWQ_NONE, n = 0;
	uint32_t pos;

	ctr_add(&q->st.acks_seen, 1);
	if (q->key_kind != QOS_FLOW_QP)
		return;
	memcpy(rk.addr, src, alen);
	pos = idx_probe(q, q->rindex, rkey_of, &rk);
	if (q->rindex[pos] != FLOWQ_NONE)
		return; /* known already */
	for (uint32_t i = 0; i < q->max_flows; i++) {
		const struct flowq_flow *f = &q->flows[i];

		if (!f->in_use || f->key.family != family ||
		    memcmp(f->key.addr, src, alen) || !psn_in_window(f, psn))
			continue;
		found = i;
		n++;
	}
	if (n != 1) {
		ctr_add(n ? &q->st.qpn_ambiguous : &q->st.qpn_unmatched, 1);
		return;
	}
	rindex_remove(q, found);
	set_qpn(&q->flows[found], qpn & PSN_MASK, true);
	pos = idx_probe(q, q->rindex, rkey_of, &rk);
	q->rindex[pos] = found;
	ctr_add(&q->st.qpn_learned, 1);
}

static bool in_prefix(const uint8_t *addr, const uint8_t *prefix, uint8_t plen)
{
	uint32_t full = plen / 8, rest = plen % 8;

	if (memcmp(addr, prefix, full))
		return false;
	return !rest ||
	       !((addr[full] ^ prefix[full]) & (uint8_t)(0xff00u >> rest));
}

uint32_t flowq_hint(struct flowq *q, uint8_t family, const uint8_t *prefix,
		    uint8_t plen, uint32_t severity, uint64_t now_ns)
{
	uint32_t hit = 0;

	ctr_add(&q->st.hints, 1);
	for (uint32_t i = 0; i < q->max_flows; i++) {
		struct flowq_flow *f = &q->flows[i];

		if (!f->in_use || f->key.family != family ||
		    !in_prefix(f->key.addr, prefix, plen))
			continue;
		if (severity < QOS_PROB_ONE &&
		    (ecn_rng_next(&q->rng) >> 48) >= severity)
			continue;
		catch_up(q, f, now_ns);
		rp_cnp(q, f, now_ns);
		ctr_add(&f->cnps_hint, 1);
		hit++;
	}
	return hit;
}

void flowq_expire(struct flowq *q, uint64_t now_ns)
{
	if (now_ns - q->last_expire_ns < FLOWQ_EXPIRE_EVERY_NS)
		return;
	q->last_expire_ns = now_ns;
	for (uint32_t i = 0; i < q->max_flows; i++) {
		struct flowq_flow *f = &q->flows[i];

		if (f->in_use && !f->active &&
		    dcqcn_np_next_ns(&f->np) == UINT64_MAX &&
		    now_ns - f->idle_since_ns > q->flow_idle_ns)
			flow_remove(q, i);
	}
}

void flowq_foreach(const struct flowq *q,
		   void (*fn)(const struct frame_desc *, void *), void *arg)
{
	for (uint32_t i = 0; i < q->max_flows; i++) {
		if (!q->flows[i].in_use)
			continue;
		for (uint32_t e = q->flows[i].head; e != FLOWQ_NONE;
		     e = q->pool[e].next)
			fn(&q->pool[e].d, arg);
	}
}

uint32_t flowq_drain(struct flowq *q, struct flowq_entry *out, uint32_t max)
{
	uint32_t n = 0;

	while (q->cursor != FLOWQ_NONE && n < max)
		flowq_pop(q, q->cursor, q->flows[q->cursor].last_tx_ns,
			  &out[n++]);
	return n;
}

uint32_t flowq_flush(struct flowq *q, uint64_t now_ns,
		     void (*fn)(const struct frame_desc *, void *), void *arg,
		     uint64_t *bytes)
{
	uint32_t n = 0;
	uint64_t b = 0;

	while (q->cursor != FLOWQ_NONE) {
		uint32_t fid = q->cursor, k = 0;
		struct flowq_flow *f = &q->flows[fid];
		uint64_t idle;

		DP_ASSERT(f->active && f->head != FLOWQ_NONE);
		idle = q->pool[f->tail].t_enq; /* its newest frame's arrival */
		if (idle < now_ns)
			idle = now_ns;
		for (uint32_t e = f->head; e != FLOWQ_NONE;
		     e = q->pool[e].next) {
			fn(&q->pool[e].d, arg);
			b += q->pool[e].d.len;
			k++;
		}
		DP_ASSERT(k == f->packets);
		n += k;
		/* the flow's chain goes back to the pool in one piece */
		q->pool[f->tail].next = q->pool_free;
		q->pool_free = f->head;
		f->head = f->tail = FLOWQ_NONE;
		set_packets(f, 0);
		f->bytes = 0;
		/* off the ring; the cursor moves to the next flow */
		deactivate(q, fid, idle);
	}
	*bytes = b;
	return n;
}

uint32_t flowq_census(const struct flowq *q, uint64_t *bytes)
{
	uint32_t n = 0, active = 0, ring = 0;
	uint64_t b = 0;

	for (uint32_t i = 0; i < q->max_flows; i++) {
		const struct flowq_flow *f = &q->flows[i];
		uint32_t k = 0;
		uint64_t fb = 0;

		if (!f->in_use) { /* free (head/tail unset if never used) */
			DP_ASSERT(!f->active);
			continue;
		}
		for (uint32_t e = f->head; e != FLOWQ_NONE;
		     e = q->pool[e].next) {
			DP_ASSERT(k < q->cap);
			fb += q->pool[e].d.len;
			k++;
		}
		DP_ASSERT(k == f->packets && fb == f->bytes);
		DP_ASSERT(f->active == (k != 0));
		DP_ASSERT((f->head == FLOWQ_NONE) == (f->tail == FLOWQ_NONE));
		active += f->active;
		n += k;
		b += fb;
	}
	DP_ASSERT(active == q->n_active && n <= q->cap);
	DP_ASSERT((q->cursor == FLOWQ_NONE) == !q->n_active);
	/* the round robin from the cursor: n_active flows, all backlogged,
	 * linked both ways, back at the cursor */
	for (uint32_t fid = q->cursor; fid != FLOWQ_NONE && ring < active;
	     ring++) {
		const struct flowq_flow *f;

		DP_ASSERT(fid < q->max_flows);
		f = &q->flows[fid];
		DP_ASSERT(f->active && f->next < q->max_flows);
		DP_ASSERT(q->flows[f->next].prev == fid);
		fid = f->next;
		DP_ASSERT((ring + 1 == active) == (fid == q->cursor));
	}
	*bytes = b;
	return n;
}

bool flowq_view(const struct flowq *q, uint32_t slot, struct flowq_view *v)
{
	const struct flowq_flow *f = &q->flows[slot];
	uint32_t s1, s2, *dst = (uint32_t *)&v->key;
	const uint32_t *src = (const uint32_t *)&f->key;
	bool in_use;

	do {
		s1 = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
		for (size_t i = 0; i < sizeof(v->key) / 4; i++)
			dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
		in_use = __atomic_load_n(&f->in_use, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&f->seq, __ATOMIC_RELAXED);
	} while ((s1 & 1) || s1 != s2);
	if (!in_use)
		return false;
	v->rc_bps = read_f64(&f->pub_rc);
	v->rt_bps = read_f64(&f->pub_rt);
	v->alpha = read_f64(&f->pub_alpha);
	v->sent_packets = ctr_read(&f->sent_packets);
	v->sent_bytes = ctr_read(&f->sent_bytes);
	v->cnps_wire = ctr_read(&f->cnps_wire);
	v->cnps_internal = ctr_read(&f->cnps_internal);
	v->cnps_hint = ctr_read(&f->cnps_hint);
	v->cnps_sent = ctr_read(&f->cnps_sent);
	v->queued_packets = __atomic_load_n(&f->packets, __ATOMIC_RELAXED);
	v->sender_qpn = __atomic_load_n(&f->peer.sender_qpn, __ATOMIC_RELAXED);
	v->qpn_known = __atomic_load_n(&f->peer.qpn_known, __ATOMIC_RELAXED);
	return true;
}

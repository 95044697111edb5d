// SPDX-License-Identifier: BSD-2-Clause
/*
 * tc_sched_config.c - the scheduler's set-up and reconfiguration (see
 * tc_sched.h): checking a policy, laying it out into slots, levels, masks
 * and buckets, allocating the rings and flow tables, the live reload by
 * class name, and the reload compatibility of two policies. Called by the
 * owner thread outside the per-packet path (tc_sched.c), or by the control
 * plane on a policy alone (sched_check_policy, sched_reload_compatible,
 * sched_dcqcn_line_bps), which touches no scheduler.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tc_sched_priv.h"

#define SCHED_SEED 0x7864706c616e6573ull /* "xdplanes" */

/* sched_reconfigure()'s work area, allocated with the scheduler. */
struct sched_scratch {
	struct sched layout;
	struct sched_class_stats st[QOS_MAX_CLASSES];
};

static uint32_t pow2_ceil(uint32_t v)
{
	return v <= 1 ? 1 : 1u << (32 - __builtin_clz(v - 1));
}

/* A rate given as bits/s, or as parts of QOS_PROB_ONE of the port rate.
 * Returns 0 and *rate = 0 for "none". */
static int class_rate(uint64_t bps, uint32_t share, uint64_t port_bps,
		      uint64_t *rate)
{
	*rate = 0;
	if (bps) {
		*rate = bps;
		return 0;
	}
	if (!share)
		return 0;
	if (share > QOS_PROB_ONE)
		return -EINVAL;
	if (!port_bps)
		return 0; /* a share of an unshaped port: no limit there */
	__extension__ typedef unsigned __int128 u128;
	*rate = (uint64_t)(((u128)port_bps * share) >> 16);
	return *rate ? 0 : -EINVAL;
}

static int check_class(const struct qos_class *c)
{
	if (!c->quantum || c->quantum > SCHED_MAX_QUANTUM ||
	    !c->limit_packets || c->limit_packets > SCHED_MAX_QUEUE_PACKETS ||
	    !c->limit_bytes)
		return -EINVAL;
	return 0;
}

void sched_seed(struct sched *s, uint64_t seed)
{
	ecn_rng_seed(&s->rng, seed);
}

double sched_dcqcn_line_bps(const struct qos_policy *pol, int port)
{
	if (pol->dcqcn.par.line_bps > 0)
		return pol->dcqcn.par.line_bps;
	return (double)pol->port[port].rate_bps;
}

static bool class_named_dcqcn(const struct qos_policy *p, const char *name)
{
	for (uint32_t i = 0; i < p->n_classes; i++)
		if (!strncmp(p->classes[i].name, name, QOS_NAME_MAX))
			return p->classes[i].dcqcn;
	return false;
}

int sched_reload_compatible(const struct qos_policy *old,
			    const struct qos_policy *next)
{
	bool any = false;

	for (uint32_t i = 0; i < old->n_classes; i++) {
		any |= old->classes[i].dcqcn;
		if (old->classes[i].dcqcn !=
		    class_named_dcqcn(next, old->classes[i].name))
			return -EINVAL;
	}
	for (uint32_t i = 0; i < next->n_classes; i++)
		if (next->classes[i].dcqcn &&
		    !class_named_dcqcn(old, next->classes[i].name))
			return -EINVAL;
	if (any && old->dcqcn.max_flows != next->dcqcn.max_flows)
		return -EINVAL;
	return 0;
}

/* Flow tables for the DCQCN classes of a new scheduler. */
static int attach_flowqs(struct sched *s, const struct qos_policy *pol,
			 int port, uint64_t now_ns)
{
	double line = sched_dcqcn_line_bps(pol, port);
	int err;

	for (uint32_t i = 0; i < s->n_slots; i++) {
		struct sched_class *c = &s->cl[i];

		if (!pol->classes[c->id].dcqcn)
			continue;
		c->fq = calloc(1, sizeof(*c->fq));
		if (!c->fq)
			return -ENOMEM;
		err = flowq_init(c->fq, c->mask + 1, &pol->dcqcn, line,
				 SCHED_SEED ^ ((uint64_t)port << 8 | i),
				 now_ns);
		if (err) {
			free(c->fq);
			c->fq = NULL;
			return err;
		}
		s->fq_mask |= 1u << i;
	}
	return 0;
}

/* A reloadable scheduler's rings hold cap frames: no limit above that. */
static void cut_limits(struct sched *s)
{
	for (uint32_t i = 0; i < s->n_slots; i++)
		s->cl[i].limit_packets = MIN(s->cl[i].limit_packets, s->cap);
}

/* The marking of the class in slot i (remark.h). */
static void layout_remark(struct sched *s, uint32_t i,
			  const struct qos_class *qc)
{
	s->remark[i].dscp = qc->has_set_dscp ? qc->set_dscp : REMARK_NONE;
	s->remark[i].pcp = qc->has_set_pcp ? qc->set_pcp : REMARK_NONE;
	if (qc->has_set_dscp || qc->has_set_pcp)
		s->remark_mask |= 1u << i;
}

/* A rate's part for one of div queues (0 stays 0, a rate never 0). */
static uint64_t share_of(uint64_t bps, uint32_t div)
{
	uint64_t r = bps / div;

	return bps && !r ? 1 : r;
}

/* Everything but the rings and the counters, from the policy, into a
 * zeroed *s (but for s->queue_share): slots, levels, masks, buckets (full
 * at now_ns; rates divided by queue_share), RED, names. */
static int sched_layout(struct sched *s, const struct qos_policy *pol, int port,
			uint64_t now_ns)
{
	const struct qos_port *pp;
	uint8_t order[QOS_MAX_CLASSES];
	uint32_t n, i, j, div;
	int err;

	if (port < 0 || port > 1 || !pol->n_classes ||
	    pol->n_classes > QOS_MAX_CLASSES ||
	    pol->default_class >= pol->n_classes)
		return -EINVAL;
	pp = &pol->port[port];
	if (pp->overhead > SCHED_MAX_OVERHEAD)
		return -EINVAL;
	div = s->queue_share ? s->queue_share : 1;
	n = pol->n_classes;
	s->n_slots = n;
	s->overhead = pp->overhead;
	s->whole_port_bps = pp->rate_bps;
	if (pp->rate_bps) {
		s->port_bps = share_of(pp->rate_bps, div);
		err = tb_init(&s->port, s->port_bps, pp->burst, now_ns);
		if (err)
			return err;
		s->port_shaped = true;
	}

	/* slots: class ids stable-sorted by level */
	for (i = 0; i < n; i++) {
		err = check_class(&pol->classes[i]);
		if (err)
			return err;
		for (j = i; j > 0 && pol->classes[order[j - 1]].level >
					     pol->classes[i].level;
		     j--)
			order[j] = order[j - 1];
		order[j] = (uint8_t)i;
	}
	memset(s->slot_of, 0xff, sizeof(s->slot_of));
	for (i = 0; i < n; i++) {
		const struct qos_class *qc = &pol->classes[order[i]];
		struct sched_class *c = &s->cl[i];
		uint64_t ceil = 0, min = 0;

		if (i && qc->level != pol->classes[order[i - 1]].level)
			s->n_levels++;
		c->level = s->n_levels;
		s->slot_level[i] = c->level;
		s->level_mask[c->level] |= 1u << i;
		c->id = order[i];
		s->slot_of[c->id] = (uint8_t)i;
		c->quantum = qc->quantum;
		c->red_from = UINT32_MAX; /* no RED at enqueue, unless ECN */
		c->limit_packets = qc->limit_packets;
		c->limit_bytes = qc->limit_bytes;
		/* lossless only with PFC on: else a plain tail-drop queue */
		c->lossless = qc->lossless && pol->pfc.enabled;
		s->lossless_mask |= (uint32_t)c->lossless << i;
		if (qc->has_pcp)
			s->pcp_slots[qc->pcp & 7] |= 1u << i;
		if ((qc->has_set_dscp && qc->set_dscp > 63) ||
		    (qc->has_set_pcp && qc->set_pcp > 7))
			return -EINVAL;
		layout_remark(s, i, qc);
		memcpy(s->name[i], qc->name, QOS_NAME_MAX);
		s->name[i][QOS_NAME_MAX - 1] = '\0';

		err = class_rate(qc->ceil_bps, qc->ceil_share, pp->rate_bps,
				 &ceil);
		s->whole_ceil_bps[i] = ceil;
		ceil = share_of(ceil, div);
		if (!err && ceil) {
			err = tb_init(&c->ceil, ceil, qc->ceil_burst, now_ns);
			s->ceil_mask |= 1u << i;
			s->ceil_share[i] = qc->ceil_bps ? 0 : qc->ceil_share;
		}
		if (!err)
			err = class_rate(qc->min_bps, qc->min_share,
					 pp->rate_bps, &min);
		s->whole_min_bps[i] = min;
		min = share_of(min, div);
		if (!err && min) {
			err = tb_init(&c->min, min, qc->min_burst, now_ns);
			s->min_mask |= 1u << i;
			s->min_share[i] = qc->min_bps ? 0 : qc->min_share;
		}
		if (!err && qc->dcqcn && !(sched_dcqcn_line_bps(pol, port) > 0))
			err = -EINVAL;
		if (!err && qc->ecn.enabled) {
			err = ecn_red_init(&c->red, &qc->ecn);
			c->red_from = c->red.kmin;
			c->ecn = true;
			c->nonect_drop = qc->ecn.nonect == QOS_NONECT_DROP;
		}
		if (err)
			return err;
	}
	s->n_levels++;
	/* the DRR turn starts "before" the first slot of each level */
	for (i = 0; i < s->n_levels; i++)
		s->drr_pos[i] = (uint8_t)(31 - __builtin_clz(s->level_mask[i]));
	s->default_slot = s->slot_of[pol->default_class];
	return 0;
}

int sched_init_reloadable(struct sched *s, const struct qos_policy *pol,
			  int port, uint32_t max_queued, uint64_t now_ns)
{
	size_t total = 0, off = 0;
	uint32_t i, rings;
	int err;

	memset(s, 0, sizeof(*s));
	if (max_queued > SCHED_MAX_QUEUE_PACKETS)
		return -EINVAL;
	err = sched_layout(s, pol, port, now_ns);
	if (err)
		return err;
	s->cap = max_queued ? pow2_ceil(max_queued) : 0;
	if (s->cap) {
		s->scratch = aligned_alloc(CACHELINE, sizeof(*s->scratch));
		if (!s->scratch)
			return -ENOMEM;
		cut_limits(s);
	}
	/* reloadable: a ring of cap entries per possible class, so a reload
	 * never allocates; else one ring per class sized by its limit */
	rings = s->cap ? QOS_MAX_CLASSES : s->n_slots;
	for (i = 0; i < rings; i++)
		total += s->cap ? s->cap : pow2_ceil(s->cl[i].limit_packets);
	s->mem = malloc(total * sizeof(*s->mem));
	if (!s->mem) {
		free(s->scratch);
		s->scratch = NULL;
		return -ENOMEM;
	}
	/* Fault the pages in now: the queues must not grow the RSS as they
	 * first fill (t-fault-overload). explicit_bzero, because the compiler
	 * turns malloc + memset(0) into calloc, which leaves fresh pages
	 * untouched. */
	explicit_bzero(s->mem, total * sizeof(*s->mem));
	for (i = 0; i < rings; i++) {
		uint32_t size =
			s->cap ? s->cap : pow2_ceil(s->cl[i].limit_packets);

		s->rings[i] = s->mem + off;
		off += size;
		if (i < s->n_slots) {
			s->cl[i].ring = s->rings[i];
			s->cl[i].mask = size - 1;
		}
	}
	sched_seed(s, SCHED_SEED ^ (uint64_t)port);
	err = attach_flowqs(s, pol, port, now_ns);
	if (err)
		sched_fini(s);
	else
		sched_check(s, true);
	return err;
}

int sched_init(struct sched *s, const struct qos_policy *pol, int port,
	       uint64_t now_ns)
{
	return sched_init_reloadable(s, pol, port, 0, now_ns);
}

int sched_check_policy(const struct qos_policy *pol, int port)
{
	struct sched *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	err = sched_layout(s, pol, port, 0);
	free(s);
	return err;
}

/* Append the queued frames of a ring to class c; returns their bytes. */
static uint64_t move_frames(struct sched_class *c, const struct sched_entry *r,
			    uint32_t mask, uint32_t head, uint32_t tail)
{
	uint64_t bytes = 0;

	for (uint32_t k = head; k != tail; k++) {
		c->ring[c->tail++ & c->mask] = r[k & mask];
		bytes += r[k & mask].d.len;
	}
	return bytes;
}

/* The frames of a removed FIFO class into the flows of a DCQCN default
 * class (keyed from their bytes when the frame base is known); returns
 * their bytes. */
static uint64_t move_to_flows(const struct sched *s, struct flowq *q,
			      const struct sched_class *oc, uint64_t now_ns)
{
	uint64_t bytes = 0;

	for (uint32_t k = oc->head; k != oc->tail; k++) {
		const struct sched_entry *e = &oc->ring[k & oc->mask];
		uint8_t *frame =
			s->frame_base ? s->frame_base + e->d.addr : NULL;
		struct flowq_key key;

		flowq_key_of(frame, frame ? e->d.len : 0, e->d.meta,
			     q->key_kind, &key);
		flowq_push_forced(q, &key, &e->d, frame, e->t_enq);
		bytes += e->d.len;
	}
	return bytes;
}

/* Relaxed stores: a reader may look at the counters at any time. */
static void stats_move(struct sched_class_stats *dst,
		       const struct sched_class_stats *src)
{
	const ctr_t *a = (const ctr_t *)src;
	ctr_t *b = (ctr_t *)dst;

	for (size_t k = 0; k < sizeof(*dst) / sizeof(ctr_t); k++)
		__atomic_store_n(&b[k], src ? a[k] : 0, __ATOMIC_RELAXED);
}

/* The old slot whose ring is s->rings[r], or -1. */
static int ring_holder(const struct sched *s, uint32_t r)
{
	for (uint32_t i = 0; i < s->n_slots; i++)
		if (s->cl[i].ring == s->rings[r])
			return (int)i;
	return -1;
}

int sched_reconfigure(struct sched *s, const struct qos_policy *pol, int port,
		      uint64_t now_ns)
{
	struct sched *n;
	struct sched_class_stats *old_st;
	int8_t from[QOS_MAX_CLASSES]; /* new slot -> old slot, -1: new */
	bool taken[QOS_MAX_CLASSES] = {false}; /* ring r has a new slot */
	uint64_t moved = 0, moved_bytes = 0;
	uint32_t i, j, r, def;
	int err, h;

	if (!s->cap || !s->scratch)
		return -EOPNOTSUPP;
	n = &s->scratch->layout;
	old_st = s->scratch->st;
	memset(n, 0, sizeof(*n));
	n->queue_share = s->queue_share;
	err = sched_layout(n, pol, port, now_ns);
	if (err)
		return err;
	def = n->default_slot;
	n->cap = s->cap;
	cut_limits(n);

	/* a class is the same class across a reload when its name is */
	for (j = 0; j < n->n_slots; j++) {
		from[j] = -1;
		for (i = 0; i < s->n_slots; i++)
			if (!strcmp(n->name[j], s->name[i]))
				from[j] = (int8_t)i;
	}
	/* flow tables exist from the start: the DCQCN classes must be the
	 * same ones (sched_reload_compatible); nothing changed yet */
	for (j = 0; j < n->n_slots; j++)
		if (pol->classes[n->cl[j].id].dcqcn !=
		    (from[j] >= 0 && s->cl[from[j]].fq))
			return -EINVAL;
	for (i = 0; i < s->n_slots; i++) {
		bool kept = false;

		for (j = 0; j < n->n_slots; j++)
			kept |= from[j] == (int8_t)i;
		if (s->cl[i].fq && !kept)
			return -EINVAL;
	}
	/* survivors keep their ring, queue, deficit and bucket levels */
	for (j = 0; j < n->n_slots; j++) {
		struct sched_class *nc = &n->cl[j], *oc;

		if (from[j] < 0)
			continue;
		oc = &s->cl[from[j]];
		nc->ring = oc->ring;
		nc->mask = oc->mask;
		nc->head = oc->head;
		nc->tail = oc->tail;
		nc->deficit = MIN(oc->deficit, nc->quantum);
		nc->fq = oc->fq;
		nc->bytes = oc->bytes;
		if (nc->fq) {
			flowq_set_params(nc->fq, &pol->dcqcn,
					 sched_dcqcn_line_bps(pol, port));
			n->fq_mask |= 1u << j;
		}
		if ((n->ceil_mask >> j & 1) && (s->ceil_mask >> from[j] & 1))
			tb_carry(&nc->ceil, &oc->ceil, now_ns);
		if ((n->min_mask >> j & 1) && (s->min_mask >> from[j] & 1))
			tb_carry(&nc->min, &oc->min, now_ns);
		oc->head = oc->tail; /* handed over */
		for (r = 0; r < QOS_MAX_CLASSES; r++)
			taken[r] |= s->rings[r] == nc->ring;
	}
	/* A new default class adopts a free ring, or a removed class's ring
	 * with its frames in place; then the frames of every other removed
	 * class move to the default class; then the other new classes take
	 * the rings left (all empty by now). Frames the default class did
	 * not have before count as enqueued there. */
	if (from[def] < 0) {
		struct sched_class *nc = &n->cl[def];

		for (r = 0; taken[r]; r++)
			;
		taken[r] = true;
		nc->ring = s->rings[r];
		nc->mask = s->cap - 1;
		h = ring_holder(s, r);
		if (h >= 0) {
			nc->head = s->cl[h].head;
			nc->tail = s->cl[h].tail;
			moved += nc->tail - nc->head;
			for (uint32_t k = nc->head; k != nc->tail; k++)
				moved_bytes += nc->ring[k & nc->mask].d.len;
			s->cl[h].head = s->cl[h].tail;
		}
	}
	for (i = 0; i < s->n_slots; i++) {
		struct sched_class *oc = &s->cl[i];

		if (oc->head == oc->tail)
			continue; /* handed over, adopted, or empty */
		moved += oc->tail - oc->head;
		if (n->cl[def].fq) {
			uint64_t b =
				move_to_flows(s, n->cl[def].fq, oc, now_ns);

			moved_bytes += b;
			n->cl[def].tail += oc->tail - oc->head;
			n->cl[def].bytes += (uint32_t)b;
		} else {
			moved_bytes +=
				move_frames(&n->cl[def], oc->ring, oc->mask,
					    oc->head, oc->tail);
		}
		oc->head = oc->tail;
	}
	for (j = 0; j < n->n_slots; j++) {
		struct sched_class *nc = &n->cl[j];

		if (nc->ring)
			continue;
		for (r = 0; taken[r]; r++)
			;
		taken[r] = true;
		nc->ring = s->rings[r];
		nc->mask = s->cap - 1;
	}
	/* every queued frame's meta names its new class id; bytes and the
	 * active mask follow the queues */
	for (j = 0; j < n->n_slots; j++) {
		struct sched_class *nc = &n->cl[j];
		uint64_t bytes = 0;

		if (nc->fq) { /* frames in the flows; bytes carried over */
			if (nc->head != nc->tail)
				n->active |= 1u << j;
			continue;
		}
		for (uint32_t k = nc->head; k != nc->tail; k++) {
			struct sched_entry *e = &nc->ring[k & nc->mask];

			e->d.meta = (e->d.meta &
				     ~(0xfu << FRAME_META_CLASS_SHIFT)) |
				    (uint32_t)nc->id << FRAME_META_CLASS_SHIFT;
			bytes += e->d.len;
		}
		nc->bytes = (uint32_t)bytes;
		if (nc->head != nc->tail)
			n->active |= 1u << j;
	}
	if (s->port_shaped && n->port_shaped)
		tb_carry(&n->port, &s->port, now_ns);

	/* counters follow their class */
	memcpy(old_st, s->st, sizeof(s->st));
	for (j = 0; j < QOS_MAX_CLASSES; j++)
		stats_move(&s->st[j], j < n->n_slots && from[j] >= 0
					      ? &old_st[from[j]]
					      : NULL);
	ctr_add(&s->st[def].enq_packets, moved);
	ctr_add(&s->st[def].enq_bytes, moved_bytes);
	ctr_add(&s->reload_requeued, moved);

	/* the new layout replaces the old; memory, RNG, counters stay */
	s->active = n->active;
	s->ceil_mask = n->ceil_mask;
	s->min_mask = n->min_mask;
	s->n_slots = n->n_slots;
	s->overhead = n->overhead;
	s->port_shaped = n->port_shaped;
	s->n_levels = n->n_levels;
	s->default_slot = n->default_slot;
	s->fq_mask = n->fq_mask;
	s->lossless_mask = n->lossless_mask;
	memcpy(s->pcp_slots, n->pcp_slots, sizeof(s->pcp_slots));
	s->remark_mask = n->remark_mask;
	memcpy(s->remark, n->remark, sizeof(s->remark));
	s->pause_mask = 0; /* the owner pauses again (sched_pause_pcp) */
	memcpy(s->slot_of, n->slot_of, sizeof(s->slot_of));
	memcpy(s->slot_level, n->slot_level, sizeof(s->slot_level));
	memcpy(s->drr_pos, n->drr_pos, sizeof(s->drr_pos));
	memcpy(s->level_mask, n->level_mask, sizeof(s->level_mask));
	memcpy(s->name, n->name, sizeof(s->name));
	s->port = n->port;
	s->port_bps = n->port_bps;
	s->whole_port_bps = n->whole_port_bps;
	memcpy(s->whole_ceil_bps, n->whole_ceil_bps, sizeof(s->whole_ceil_bps));
	memcpy(s->whole_min_bps, n->whole_min_bps, sizeof(s->whole_min_bps));
	memcpy(s->ceil_share, n->ceil_share, sizeof(s->ceil_share));
	memcpy(s->min_share, n->min_share, sizeof(s->min_share));
	memcpy(s->cl, n->cl, sizeof(s->cl));
	ctr_add(&s->reloads, 1);
	sched_check(s, true);
	return 0;
}

int sched_set_queue_share(struct sched *s, uint32_t n,
			  const struct qos_policy *pol, int port,
			  uint64_t now_ns)
{
	uint32_t old = s->queue_share;
	int err;

	if (!n)
		return -EINVAL;
	s->queue_share = n;
	err = sched_reconfigure(s, pol, port, now_ns);
	if (err)
		s->queue_share = old;
	return err;
}

int sched_set_port_rate(struct sched *s, uint64_t rate_bps, uint64_t now_ns)
{
	uint64_t r;
	int err;

	if (!s->port_shaped)
		return -ENOENT;
	if (!rate_bps || rate_bps > TB_MAX_RATE)
		return -EINVAL;
	err = tb_set_rate(&s->port, rate_bps, now_ns);
	if (err)
		return err;
	s->port_bps = rate_bps;
	for (uint32_t i = 0; i < s->n_slots; i++) {
		if (s->ceil_share[i] &&
		    !class_rate(0, s->ceil_share[i], rate_bps, &r) && r)
			tb_set_rate(&s->cl[i].ceil, r, now_ns);
		if (s->min_share[i] &&
		    !class_rate(0, s->min_share[i], rate_bps, &r) && r)
			tb_set_rate(&s->cl[i].min, r, now_ns);
	}
	return 0;
}

void sched_set_parts(struct sched *s, uint64_t port_part,
		     const uint64_t class_part[QOS_MAX_CLASSES],
		     uint64_t now_ns)
{
	if (s->port_shaped) {
		s->port_bps = sched_part_of(s->whole_port_bps, port_part);
		tb_set_rate(&s->port, s->port_bps, now_ns);
	}
	for (uint32_t i = 0; i < s->n_slots; i++) {
		uint64_t part = class_part[s->cl[i].id];

		if (s->ceil_mask >> i & 1)
			tb_set_rate(&s->cl[i].ceil,
				    sched_part_of(s->whole_ceil_bps[i], part),
				    now_ns);
		if (s->min_mask >> i & 1)
			tb_set_rate(&s->cl[i].min,
				    sched_part_of(s->whole_min_bps[i], part),
				    now_ns);
	}
}

void sched_fini(struct sched *s)
{
	for (uint32_t i = 0; i < QOS_MAX_CLASSES; i++) {
		if (s->cl[i].fq) {
			flowq_fini(s->cl[i].fq);
			free(s->cl[i].fq);
			s->cl[i].fq = NULL;
		}
	}
	s->fq_mask = 0;
	free(s->mem);
	free(s->scratch);
	s->mem = NULL;
	s->scratch = NULL;
	s->active = 0;
	s->backlog = 0;
}

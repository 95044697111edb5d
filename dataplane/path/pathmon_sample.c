// SPDX-License-Identifier: BSD-2-Clause
/*
 * pathmon_sample.c - the path monitor's samplers: departures start RTT
 * samples (TCP timestamps, TCP sequence numbers, RoCE PSNs, the
 * per-flow departure ring), events answer them and count delivered
 * bytes and marks (pathmon.h states the matching rules).
 */
#include <string.h>
#include "bits.h"
#include "dp_assert.h"
#include "pathmon_int.h"
#include "pkt_tcp.h"

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
	pm_rtt_update(pm, f->hash, rtt, seen, now, base_ok);
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
		pm_rtt_update(pm, f->hash, rtt, seen, now, true);
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
	pm_pend_expire(pm, f, now, pm_age_limit(pm));
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
	pm_pend_expire(pm, f, now, pm_age_limit(pm));
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

	pm_advance(pm, now_ns);
	ctr_add(&pm->st.departures, 1);
	if (!key_ok(k))
		return false;
	h = pm_key_hash(k, pm->par.seed);
	pos = pm_idx_probe(pm, k, h);
	if (pm->index[pos].ref != REF_EMPTY &&
	    pm_flow_idle(pm, &pm->flows[pm->index[pos].ref], now_ns)) {
		/* not revived: it starts over as a new flow */
		pm_flow_expire(pm, pm->index[pos].ref);
		pos = pm_idx_probe(pm, k, h);
	}
	if (pm->index[pos].ref == REF_EMPTY) {
		if (d->flags & PATHMON_DF_RST)
			return false;
		if (pm->free_flow == SLOT_NONE) {
			ctr_add(&pm->st.table_full, 1);
			return false;
		}
		/* the first departure seen: state only, never a sample */
		f = pm_flow_new(pm, k, h, pos, now_ns);
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

	h = pm_key_hash(&ev->key, pm->par.seed);
	pos = pm_idx_probe(pm, &ev->key, h);
	if (pm->index[pos].ref == REF_EMPTY) {
		ctr_add(&pm->st.acks_unmatched, 1);
		return 0;
	}
	f = &pm->flows[pm->index[pos].ref];
	if (pm_flow_idle(pm, f, now)) {
		pm_flow_expire(pm, pm->index[pos].ref);
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
			pm_budget_roll(pm, now);
			rtt = ring_sample(pm, f, a, ev->seen_ns, now);
			/* it answers a pending sample it covers, exactly */
			if (rtt && f->pend != PATHMON_NONE &&
			    !tcp_seq_before(a, f->pend_end))
				f->pend = PATHMON_NONE;
			if (rtt)
				return rtt;
		}
	}
	if (f->pend == PATHMON_NONE ||
	    pm_pend_expire(pm, f, now, pm_age_limit(pm)))
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
	h = pm_key_hash(&lk, pm->par.seed);
	pos = pm_idx_probe(pm, &lk, h);
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
	if (pm_flow_idle(pm, f, now)) {
		pm_flow_expire(pm, slot);
		ctr_add(&pm->st.acks_unmatched, 1);
		return 0;
	}
	/* a NAK acknowledges what comes before its PSN */
	a = (ev->ack - (type == PATHMON_AETH_ACK ? 0 : 1)) & PATHMON_PSN_MASK;
	if (((f->snd_max - a) & PATHMON_PSN_MASK) >= pm->par.psn_window) {
		/* not a PSN this flow sent lately: the pair was wrong, or the
		 * ACK is far too old to trust it */
		pm_idx_remove(pm, slot, ROLE_SQP);
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

		pm_budget_roll(pm, now);
		rtt = ring_sample(pm, f, a, ev->seen_ns, now);
		if (rtt) {
			if (f->pend == PATHMON_ROCE_PSN &&
			    ((a - f->pend_val) & PATHMON_PSN_MASK) < PSN_HALF)
				f->pend = PATHMON_NONE;
			return rtt;
		}
	}
	if (f->pend != PATHMON_ROCE_PSN ||
	    pm_pend_expire(pm, f, now, pm_age_limit(pm)))
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
	h = pm_key_hash(&lk, pm->par.seed);
	pos = pm_idx_probe(pm, &lk, h);
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
	pm_advance(pm, now_ns);
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

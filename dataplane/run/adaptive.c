// SPDX-License-Identifier: BSD-2-Clause
/*
 * adaptive.c - see adaptive.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include "adaptive.h"
#include "pkt_parse.h"

/* ---- the published view (sequence lock, relaxed atomic words) ---- */

#define VIEW_WORDS (sizeof(struct adaptive_view) / sizeof(uint64_t))
_Static_assert(sizeof(struct adaptive_view) % sizeof(uint64_t) == 0,
	       "the view is 64-bit words");

static void publish(struct port_adaptive *a, const struct adaptive_view *v)
{
	const uint64_t *src = (const uint64_t *)v;
	uint64_t *dst = (uint64_t *)&a->view;
	uint64_t seq = a->view_seq;

	__atomic_store_n(&a->view_seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (size_t i = 0; i < VIEW_WORDS; i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
	__atomic_store_n(&a->view_seq, seq + 2, __ATOMIC_RELEASE);
}

void adaptive_read(const struct port_adaptive *a, struct adaptive_view *out)
{
	const uint64_t *src = (const uint64_t *)&a->view;
	uint64_t *dst = (uint64_t *)out;
	uint64_t s1, s2;

	do {
		s1 = __atomic_load_n(&a->view_seq, __ATOMIC_ACQUIRE);
		for (size_t i = 0; i < VIEW_WORDS; i++)
			dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&a->view_seq, __ATOMIC_RELAXED);
	} while ((s1 & 1) || s1 != s2);
}

static double wire_rate(const struct port_adaptive *a, double payload_bps);

/* The monitor is there (adaptive_reserve, maybe by another thread). */
static bool pm_ready(const struct port_adaptive *a)
{
	return __atomic_load_n(&a->pm_ready, __ATOMIC_ACQUIRE);
}

/* The owner's state into the view (the estimate of the last decision). */
static void publish_state(struct port_adaptive *a,
			  const struct pathmon_est *est)
{
	struct adaptive_view v = a->view; /* the owner's own copy */
	const struct edge_rate *er = &a->er;

	v.on = a->on;
	v.state = a->on ? (uint64_t)er->state : EDGE_NO_SAMPLES;
	v.rate_bps = a->applied_bps;
	v.max_bps = a->on ? (uint64_t)a->par.max_bps : a->policy_bps;
	v.floor_bps = a->on ? (uint64_t)a->par.floor_bps : 0;
	v.target_ns = a->on ? a->par.target_ns : 0;
	if (est) {
		v.base_rtt_ns = est->base_rtt_ns;
		v.srtt_ns = est->srtt_ns;
		v.qdelay_ns = est->qdelay_ns;
		v.delivery_bps = (uint64_t)wire_rate(a, est->delivery_bps);
		v.delivery_last_bps =
			(uint64_t)wire_rate(a, est->delivery_bps_last);
		v.mark_ppm = (uint64_t)(est->mark_frac * 1e6);
		v.samples_recent = est->samples_recent;
	}
	v.flows = pm_ready(a) ? pathmon_flows(&a->pm) : 0;
	v.n_hist = er->n_hist;
	for (uint32_t i = 0; i < EDGE_RATE_HISTORY; i++) {
		const struct edge_rate_decision *d = &er->hist[i];

		v.hist[i] = (struct adaptive_decision){
			.t_ns = d->t_ns,
			.rate_bps = (uint64_t)d->rate_bps,
			.delivery_bps = (uint64_t)d->delivery_bps,
			.qdelay_ns = d->qdelay_ns,
			.state = d->state,
		};
	}
	a->seen_hist = er->n_hist;
	publish(a, &v);
}

/* ---- set-up and configuration ---- */

static uint32_t pow2_floor32(uint32_t v)
{
	return v ? 1u << (31 - __builtin_clz(v)) : 0;
}

uint32_t adaptive_plan_flows(uint32_t queues)
{
	uint32_t n = 2 * ADAPTIVE_PORT_FLOWS / (queues ? queues : 1);

	n = pow2_floor32(n) < n ? 2 * pow2_floor32(n) : n; /* up to a 2^k */
	return MIN(MAX(n, ADAPTIVE_MIN_FLOWS), ADAPTIVE_MAX_FLOWS);
}

uint32_t adaptive_plan_ring(uint32_t queues)
{
	uint32_t n = pow2_floor32(ADAPTIVE_TASK_EVENTS / (queues ? queues : 1));

	return MIN(MAX(n, ADAPTIVE_EV_BATCH), ADAPTIVE_RING_MAX);
}

uint64_t adaptive_plan_bytes(uint32_t queues)
{
	uint64_t q = queues ? queues : 1;

	return q * pathmon_mem_bytes_of(adaptive_plan_flows(queues)) +
	       q * q * adaptive_plan_ring(queues) * sizeof(struct pathmon_ack);
}

int adaptive_init(struct port_adaptive *a, int port, uint64_t now_ns)
{
	memset(a, 0, sizeof(*a));
	a->port = port;
	a->shared = &a->own_shared;
	a->seed = now_ns;
	if (getrandom(&a->seed, sizeof(a->seed), GRND_NONBLOCK) !=
	    sizeof(a->seed))
		a->seed ^= (uint64_t)(uintptr_t)a;
	publish_state(a, NULL);
	return 0;
}

int adaptive_reserve(struct port_adaptive *a, uint32_t queues, uint64_t now_ns)
{
	struct pathmon_params p;
	int err;

	if (pm_ready(a))
		return 0;
	pathmon_params_default(&p);
	p.max_flows = adaptive_plan_flows(queues);
	p.seed = a->seed;
	err = pathmon_init(&a->pm, &p, now_ns);
	if (err)
		return err;
	__atomic_store_n(&a->pm_ready, true, __ATOMIC_RELEASE);
	return 0;
}

void adaptive_fini(struct port_adaptive *a)
{
	if (a->pm_ready)
		pathmon_fini(&a->pm);
	a->pm_ready = false;
}

int adaptive_add_input(struct port_adaptive *a, struct pathmon_ring *r)
{
	if (a->n_in >= ADAPTIVE_MAX_IN)
		return -ENOSPC;
	a->in[a->n_in++] = r;
	return 0;
}

void adaptive_share(struct port_adaptive *a, struct adaptive_shared *sh)
{
	a->shared = sh;
}

void adaptive_set_owner(struct port_adaptive *a, struct path_owner *o,
			uint32_t queue)
{
	a->owner = o;
	a->queue = queue;
}

/* The controller's parameters from the policy's port, for one of div
 * queues sharing its rate (sched_set_queue_share). */
static void params_of(const struct qos_port *pp, uint32_t div,
		      struct edge_rate_params *p)
{
	div = div ? div : 1;
	edge_rate_params_default(p, (double)pp->rate_bps / div);
	if (pp->adaptive.target_ns)
		p->target_ns = pp->adaptive.target_ns;
	if (pp->adaptive.floor_bps)
		p->floor_bps = (double)pp->adaptive.floor_bps / div;
	if (pp->adaptive.probe_gain > 0)
		p->probe_gain = pp->adaptive.probe_gain;
	/* the monitor's samples (one per flow and RTT) and its delivery
	 * intervals do not support decisions faster than this */
	p->min_interval_ns = ADAPTIVE_MIN_DECISION_NS;
	p->drain_min_ns = ADAPTIVE_DRAIN_NS;
	/* the testbeds' samples: bursts beyond that drain by themselves,
	 * ACKs that come back in bursts (bench/README.md, spine) */
	p->confirm_ns = ADAPTIVE_CONFIRM_NS;
	p->drop_confirm_ns = ADAPTIVE_DROP_CONFIRM_NS;
	p->quiet_ns = ADAPTIVE_QUIET_NS;
	p->max_cut = ADAPTIVE_MAX_CUT;
	/* at the top of its band the rate is margin / 2 over the estimate:
	 * a queue of target / 4 takes target / (2 margin) to build; twice
	 * that without one says the capacity is above it (target / 8 was
	 * tried: the testbed's delay noise kept the estimate low for a
	 * second, the collective starved) */
	p->grow_confirm_ns = (uint64_t)((double)p->target_ns / p->margin);
}

#define ADAPTIVE_STR_(x) #x
#define ADAPTIVE_STR(x) ADAPTIVE_STR_(x)

int adaptive_check(const struct qos_policy *pol, int port, uint32_t queues,
		   const char **why)
{
	const struct qos_port *pp = &pol->port[port];
	struct edge_rate_params p;

	*why = NULL;
	if (!pp->adaptive.on)
		return 0;
	if (!pp->rate_bps) {
		*why = "adaptive needs a shaped port (ports[].rate)";
		return -EINVAL;
	}
	params_of(pp, queues, &p);
	/* the rates the controller sets are the shaper's */
	if (p.floor_bps < TB_MIN_RATE) {
		*why = "the floor per queue is below the shaper's lowest "
		       "rate, " ADAPTIVE_STR(TB_MIN_RATE) " bit/s";
		return -EINVAL;
	}
	return edge_rate_params_check(&p, why);
}

/* Run the scheduler at rate r (its whole bit/s) from now on: a rate
 * change, counted. A rate it refuses is counted apart: the controller
 * keeps its bounds, so only a bug gets there. */
static void apply(struct port_adaptive *a, struct sched *s, double r,
		  uint64_t now_ns)
{
	uint64_t bps = (uint64_t)r;

	if (sched_set_port_rate(s, bps, now_ns)) {
		ctr_add(&a->ctr.apply_errors, 1);
		return;
	}
	a->applied_bps = bps;
	ctr_add(&a->ctr.rate_changes, 1);
}

/* Turned on (again): nothing of what the monitor and the periods hold is
 * of now. While off nothing was recorded: a flow's last ACK from before
 * would credit all it sent meanwhile to one interval (62.5 MB in 10 ms
 * read as 50 Gbit/s), its sequence state and RTT samples are stale. */
static void restart(struct port_adaptive *a, uint64_t now_ns)
{
	edge_rate_init(&a->er, &a->par);
	pathmon_reset(&a->pm, now_ns);
	a->dep_wire = a->dep_payload = 0;
	a->ratio_wire = a->ratio_payload = 0;
	a->ratio_ns = 0;
	a->sent_wire = 0;
	a->sent_ns = 0;
	a->sent_bps = a->offered_bps = 0;
	a->offered_bits = 0;
	memset(a->prot_bps, 0, sizeof(a->prot_bps));
	a->n_prot = 0;
}

void adaptive_configure(struct port_adaptive *a, const struct qos_policy *pol,
			struct sched *s, uint64_t now_ns)
{
	const struct qos_port *pp = &pol->port[a->port];
	const char *why;
	bool was_on = a->on;

	a->policy_bps = pp->rate_bps / (s->queue_share ? s->queue_share : 1);
	a->overhead = pp->overhead;
	a->applied_bps = sched_port_rate(s);
	a->on = pm_ready(a) &&
		!adaptive_check(pol, a->port, s->queue_share, &why) &&
		pp->adaptive.on;
	if (a->on) {
		params_of(pp, s->queue_share, &a->par);
		if (was_on)
			edge_rate_set_params(&a->er, &a->par);
		else
			restart(a, now_ns);
		/* the reload put the scheduler at ports[].rate */
		if ((uint64_t)a->er.rate_bps != a->applied_bps)
			apply(a, s, a->er.rate_bps, now_ns);
	}
	publish_state(a, NULL);
}

/* ---- the hot part ---- */

void adaptive_departures(struct port_adaptive *a, const uint8_t *base,
			 const struct frame_desc *d, const uint32_t *head,
			 uint32_t n, uint64_t now_ns)
{
	struct pathmon_key k;
	struct pathmon_dep dep;
	struct pkt_meta m;
	uint64_t wire = 0, new0 = a->pm.new_bytes;

	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *f = base + d[i].addr;
		uint32_t h = head ? head[i] : d[i].len;

		wire += d[i].len + a->overhead;
		/* only TCP and RoCE: the RX parse said which (frame_meta.h),
		 * the rest is not touched */
		if (!frame_meta_tcp_or_bth(d[i].meta))
			continue;
		if (h == d[i].len ? pkt_parse(f, h, &m)
				  : pkt_parse_head(f, h, d[i].len, &m))
			continue;
		if (pathmon_dep_of(f, h, &m, &k, &dep)) {
			pathmon_depart(&a->pm, &k, &dep, now_ns);
			/* a TCP flow of pure ACKs is the reverse of one
			 * entering the port: what comes back is its data */
			if (a->owner &&
			    (dep.bytes || k.proto == PATHMON_P_ROCE))
				path_owner_set(a->owner, &k, a->queue);
		}
	}
	a->dep_wire += wire;
	/* the payload the monitor's delivery rate can count: new data of
	 * the flows it tracks */
	a->dep_payload += a->pm.new_bytes - new0;
}

/* Bytes and frames the classes above the lowest level have sent, in all
 * (none when every class is on one level). */
static void upper_sent(const struct sched *s, uint64_t *bytes, uint64_t *pkts)
{
	uint8_t lowest = s->n_levels ? s->n_levels - 1 : 0;

	*bytes = 0;
	*pkts = 0;
	for (uint32_t i = 0; i < s->n_slots; i++) {
		if (s->slot_level[i] >= lowest)
			continue;
		*bytes += ctr_read(&s->st[i].sent_bytes);
		*pkts += ctr_read(&s->st[i].sent_packets);
	}
}

/* At a decision: what the departures since the last one add to the
 * ratio period (the ratio of the bytes the shaper charged to the measured
 * payload, taken once the period is ADAPTIVE_RATIO_NS long and smoothed
 * with gain 1/2; periods without measured payload leave it) and to the
 * sent period (the port's rate, and the shaper's rate integrated over
 * the same time: what it could have sent, once it is ADAPTIVE_SENT_NS
 * long), and what the classes above the lowest level sent in the sent
 * period, as the shaper charged it (est.protect_bps: the highest of the last ADAPTIVE_PROTECT_N,
 * est.protect_mean_bps their mean). */
static void update_wire_ratio(struct port_adaptive *a, const struct sched *s,
			      uint64_t now_ns)
{
	double r;
	uint64_t bytes, pkts;

	a->ratio_wire += a->dep_wire;
	a->ratio_payload += a->dep_payload;
	a->sent_wire += a->dep_wire;
	a->dep_wire = 0;
	a->dep_payload = 0;
	if (!a->sent_ns) {
		a->sent_ns = now_ns;
		a->offered_ns = now_ns;
		upper_sent(s, &a->prot_bytes, &a->prot_pkts);
	}
	a->offered_bits +=
		(double)a->applied_bps * (double)(now_ns - a->offered_ns) / 1e9;
	a->offered_ns = now_ns;
	if (now_ns - a->sent_ns >= ADAPTIVE_SENT_NS) {
		a->sent_bps = (double)a->sent_wire * 8e9 /
			      (double)(now_ns - a->sent_ns);
		/* what the shaper charged for them: length + overhead per
		 * frame (a reload may restart the counters) */
		upper_sent(s, &bytes, &pkts);
		a->prot_bps[a->n_prot++ % ADAPTIVE_PROTECT_N] =
			bytes >= a->prot_bytes && pkts >= a->prot_pkts
				? ((double)(bytes - a->prot_bytes) +
				   (double)(pkts - a->prot_pkts) *
					   s->overhead) *
					  8e9 / (double)(now_ns - a->sent_ns)
				: 0;
		a->prot_bytes = bytes;
		a->prot_pkts = pkts;
		if (a->n_prot == 2 * ADAPTIVE_PROTECT_N)
			a->n_prot =
				ADAPTIVE_PROTECT_N; /* all filled, no wrap */
		a->offered_bps =
			a->offered_bits * 1e9 / (double)(now_ns - a->sent_ns);
		a->sent_wire = 0;
		a->offered_bits = 0;
		a->sent_ns = now_ns;
	}
	if (!a->ratio_payload) {
		/* nothing measured yet this period: it starts with the
		 * first measured payload (a stretch of UDP alone says
		 * nothing of the ratio) */
		a->ratio_wire = 0;
		a->ratio_ns = now_ns;
		return;
	}
	if (now_ns - a->ratio_ns < ADAPTIVE_RATIO_NS && a->wire_ratio > 0)
		return; /* the first ratio as soon as there is one */
	a->ratio_ns = now_ns;
	r = (double)a->ratio_wire / (double)a->ratio_payload;
	a->wire_ratio =
		a->wire_ratio > 0 ? a->wire_ratio + (r - a->wire_ratio) / 2 : r;
	a->ratio_wire = 0;
	a->ratio_payload = 0;
}

/* The measured flows' payload delivered, in the shaper's units: times the
 * ratio of what the shaper charged (every frame, its length + overhead)
 * to the payload of the measured flows among them. So headers, pure
 * ACKs and the traffic the monitor cannot measure (UDP, ...) count as
 * delivered in the same proportion. */
static double wire_rate(const struct port_adaptive *a, double payload_bps)
{
	return a->wire_ratio > 0 ? payload_bps * a->wire_ratio : payload_bps;
}

/* CE marks the scheduler's classes have set, in all. */
static uint64_t own_marks(const struct sched *s)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < s->n_slots; i++)
		sum += ctr_read(&s->st[i].ecn_marks);
	return sum;
}

uint32_t adaptive_poll(struct port_adaptive *a, struct sched *s,
		       uint64_t now_ns)
{
	struct pathmon_ack ev[ADAPTIVE_EV_BATCH];
	struct pathmon_est pe;
	struct edge_est est;
	uint32_t taken = 0, samples = 0, n;
	uint64_t dec, cuts, kept, undone, own, lost;
	double r;

	for (uint32_t i = 0; i < a->n_in; i++) {
		n = pathmon_ring_dequeue(a->in[i], ev, ADAPTIVE_EV_BATCH);
		for (uint32_t j = 0; j < n; j++) {
			/* an RX task on another worker may have read its
			 * clock after this pass began: seen then, for us */
			if (ev[j].seen_ns > now_ns)
				ev[j].seen_ns = now_ns;
			samples += pathmon_ack(&a->pm, &ev[j], now_ns) != 0;
		}
		taken += n;
	}
	if (taken) {
		ctr_add(&a->ctr.events, taken);
		if (samples)
			ctr_add(&a->ctr.rtt_samples, samples);
	}
	if (now_ns < a->er.next_ns)
		return taken;
	pathmon_estimate(&a->pm, now_ns, &pe);
	update_wire_ratio(a, s, now_ns);
	est = (struct edge_est){
		.valid = pe.valid,
		.base_rtt_ns = pe.base_rtt_ns,
		/* the controller's current RTT: the standing one */
		.srtt_ns = pe.standing_rtt_ns ? pe.standing_rtt_ns : pe.srtt_ns,
		.last_sample_ns = pe.last_sample_ns,
		/* the last interval's delivery: what the path gives now
		 * (edge_rate.h keeps its own capacity estimate) */
		.delivery_bps = wire_rate(a, pe.delivery_bps_last),
		.delivery_mean_bps = wire_rate(a, pe.delivery_bps_mean),
		/* the last interval's marked fraction, above a floor: an
		 * average that decays towards 0 would keep cutting */
		.mark_frac = pe.mark_frac_last >= ADAPTIVE_MARK_MIN
				     ? pe.mark_frac_last
				     : 0,
		/* what the port sent over the last period, and what its
		 * shaper would have let out: measured, not inferred from a
		 * backlog (one the classes' ceilings or the gateway's own
		 * DCQCN pacing hold back leaves at less than the shaper's
		 * rate: taken for the rate, the delivery rate read as a
		 * capacity drop on the veth bench, 50 -> 27 Mbit/s) */
		.sent_bps = a->sent_bps,
		.offered_bps = a->offered_bps,
	};
	for (uint32_t i = 0; i < ADAPTIVE_PROTECT_N; i++) {
		if (a->prot_bps[i] > est.protect_bps)
			est.protect_bps = a->prot_bps[i];
		est.protect_mean_bps += a->prot_bps[i];
	}
	/* their mean over the periods measured (a large queue beyond that
	 * falls is drained no lower: edge_rate.h) */
	est.protect_mean_bps /= a->n_prot < ADAPTIVE_PROTECT_N
					? (a->n_prot ? a->n_prot : 1)
					: ADAPTIVE_PROTECT_N;
	/* Marks the gateway set itself (its classes' RED/ECN on any queue
	 * of the port, once the queue is here) come back as ECE and CNPs
	 * too: while its own marks grow, returning marks say nothing of
	 * the path beyond. A time another task stamped after now is now. */
	own = own_marks(s);
	if (own != a->own_marks) {
		a->own_marks = own;
		__atomic_store_n(&a->shared->own_marks_ns, now_ns,
				 __ATOMIC_RELAXED);
	}
	own = __atomic_load_n(&a->shared->own_marks_ns, __ATOMIC_RELAXED);
	if (own && (own >= now_ns || now_ns - own < ADAPTIVE_OWN_MARKS_NS))
		est.mark_frac = 0;
	dec = a->er.decisions;
	cuts = a->er.cuts;
	kept = a->er.kept_cuts;
	undone = a->er.undone + a->er.unheard;
	lost = a->er.no_samples;
	r = edge_rate_update(&a->er, &a->par, &est, now_ns);
	if (a->er.decisions != dec)
		ctr_add(&a->ctr.decisions, 1);
	if (a->er.no_samples != lost)
		ctr_add(&a->ctr.no_samples, 1);
	if (a->er.cuts != cuts)
		ctr_add(&a->ctr.cuts, 1);
	if (a->er.kept_cuts != kept)
		ctr_add(&a->ctr.protected_cuts, 1);
	if (a->er.undone + a->er.unheard != undone)
		ctr_add(&a->ctr.undone_cuts, 1);
	/* in the shaper's units (whole bit/s, what apply() sets): a per-queue
	 * max or floor that is no whole number is reached when its whole
	 * part is the rate */
	if ((uint64_t)r != a->applied_bps &&
	    (r < a->applied_bps * (1 - ADAPTIVE_APPLY_EPS) ||
	     r > a->applied_bps * (1 + ADAPTIVE_APPLY_EPS) ||
	     r == a->par.max_bps || r == a->par.floor_bps))
		apply(a, s, r, now_ns);
	/* operators see each decision; without samples (a decision due
	 * every min interval) at most once per ADAPTIVE_PUBLISH_NS */
	if (a->er.decisions != dec || a->er.n_hist != a->seen_hist ||
	    now_ns - a->pub_ns >= ADAPTIVE_PUBLISH_NS) {
		a->pub_ns = now_ns;
		publish_state(a, &pe);
	}
	return taken;
}

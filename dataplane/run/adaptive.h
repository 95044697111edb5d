/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * adaptive.h - adaptive egress of one egress task: the port shaper's rate
 * follows the path beyond the port (ports[].adaptive), so that the queue a
 * bottleneck further on would hold forms in the gateway's scheduler, where
 * the classes order it.
 *
 * The loop, each pass of the egress task that owns it:
 *  1. departures: every TCP segment and RoCEv2 RC request the scheduler
 *     hands out is parsed (pkt_parse, its headers only) and recorded in
 *     the path monitor (path/pathmon.h: samples, sequence state);
 *  2. events: the RX tasks of the same port post the returning TCP ACKs,
 *     RoCE ACKs/NAKs and CNPs they see (pathmon_ack_of) of the flows this
 *     task sends (Multi-queue, below) on one SPSC ring each
 *     (path/pathmon_ring.h); the owner drains them into the monitor. An
 *     event's time is its frame's arrival (rx_task.h), taken on another
 *     worker's clock: one after the owner's pass start is taken as the
 *     owner's now;
 *  3. decision: when the controller (cc/edge_rate.h) is due -- at most
 *     once per smoothed RTT -- the monitor's estimate (base RTT, srtt,
 *     delivery rate, mark fraction) gives the rate, and the scheduler's
 *     port bucket takes it (sched_set_port_rate: share-based ceilings and
 *     minimums follow) when it differs from the applied one by more than
 *     ADAPTIVE_APPLY_EPS of it, or reached the max or the floor, and is
 *     another rate in the shaper's units (whole bit/s: a per-queue max
 *     or floor is not always a whole number).
 * Units: the monitor's delivery rate is the measured flows' payload
 * acknowledged; the shaper charges every frame (length + overhead). The
 * delivery rate the controller sees is scaled by the ratio of the bytes
 * the shaper charged for departures to the measured payload among them
 * -- new data of the flows the monitor tracks, what its delivery rate can
 * count: not retransmissions, not flows its table refused -- (over
 * periods of ADAPTIVE_RATIO_NS, smoothed with gain 1/2; periods without
 * measured payload leave it: per decision, a burst of unmeasured UDP
 * doubled the ratio and with it the delivery rate), so headers, pure
 * ACKs, retransmissions and unmeasured traffic (UDP, untracked flows)
 * count as delivered in the same proportion: at a steady bottleneck it
 * equals the shaper rate the path carries.
 * Marks: returning congestion marks (TCP ECE, RoCE CNPs of the monitor's
 * own flows: the last interval's fraction, when at least
 * ADAPTIVE_MARK_MIN) cut the rate only when no egress task of the port
 * (struct adaptive_shared: every queue's scheduler) set a CE mark in the
 * last ADAPTIVE_OWN_MARKS_NS: once the queue is in the gateway its
 * RED/ECN marks come back the same way, and counting them would cut the
 * rate again and again (measured on the spine bench: the rate at the
 * floor, the collective 7x slower). Port-wide, as the queues share the
 * port: while any of them marks, the gateway holds the queue, and a
 * returning mark another queue pairs with a flow of its own (RoCE pairs
 * QPs between two hosts by PSN window) may answer it.
 * What the port sent (bytes charged, over ADAPTIVE_SENT_NS) bounds the
 * delivery rate the controller believes (edge_rate's sent_bps).
 * What the classes above the lowest level sent (what the shaper charged
 * for them: the scheduler's sent bytes of those slots + their frames x
 * the port's overhead, per ADAPTIVE_SENT_NS period, the highest of the
 * last ADAPTIVE_PROTECT_N periods) is kept by every cut (margin less for
 * each cut in a row that finds the queue beyond large) unless a large
 * queue beyond and a low delivery rate prove together that the path
 * carries less (edge_rate's protect_bps): on the spine bench the
 * testbed's delay noise read as queueing beyond, and every cut below
 * what the collective sends cost it seconds; such a cut now costs the
 * lowest level (the bulk class) alone. With every class on one level,
 * nothing is kept.
 * With no samples the rate is ports[].rate, and the state says so
 * (no_samples). Off (mode: off) nothing of this runs: no parse, no event
 * (the RX tasks post none), the shaper at ports[].rate.
 *
 * Multi-queue: each egress task (port, queue) has its own monitor and
 * controller over the flows it transmits, and its own shaper (the
 * scheduler's port bucket is per queue). Every RX task of the port has a
 * ring to every egress task of the port, and posts each event to the one
 * that sends its flow: the reverse direction's RSS queue says nothing
 * about the forward one's, so the egress tasks record, as their flows
 * leave, which queue sends each (adaptive_set_owner: the port's
 * path/path_owner.h table, TCP by the whole key of the segments with
 * payload, RoCE by the two hosts), and the RX task looks the event's
 * flow up there. An event of a flow no queue of the port sends (the
 * data of the flows entering the port, which carry the ACK bit: the
 * pure ACKs this port sends for them carry no payload; a flow that has
 * not left since adaptive came on, or whose entry another took) is not
 * posted, and counted (rx_counters.path_events_unowned). RoCE between
 * two hosts that several queues send to goes to each of them, whose
 * monitors pair the QPs. The table is a hint: what a monitor gets that
 * is not its own (a tag collision, a RoCE pair of another queue) it
 * counts unmatched, never in its estimate (pathmon.h). What the port's
 * tasks share: the table and the time of the last own CE mark (struct
 * adaptive_shared).
 *
 * Live reload (adaptive_configure, called by the owner right after the
 * scheduler took the new policy, whose port bucket is then at the
 * policy's rate): turning it on starts the controller at ports[].rate
 * with no samples and an empty monitor (pathmon_reset: what it knew
 * before it was off is stale); new parameters keep its state, the rate
 * cut into the new bounds; turning it off leaves the policy's rate. The
 * monitor's flows and samples survive reloads that keep it on.
 *
 * Memory: nothing until a policy first turns it on for the port (the
 * gateway then calls adaptive_reserve() on each of the port's egress
 * tasks, before the generation is published, and sets up the event
 * rings); kept from then until close. Sized for the queue plan, linear
 * in the port's queues (adaptive_plan_bytes): the port's flows spread
 * over its queues, so a queue's monitor holds ADAPTIVE_PORT_FLOWS /
 * queues flows (twice that, for RSS's unevenness, within
 * [ADAPTIVE_MIN_FLOWS, ADAPTIVE_MAX_FLOWS]), and an egress task's event
 * rings, one per RX task of the port, ADAPTIVE_TASK_EVENTS events
 * together (each within [ADAPTIVE_EV_BATCH, ADAPTIVE_RING_MAX]).
 *
 * Ownership: a struct port_adaptive belongs to the thread of its egress
 * task: every function below but adaptive_read() and adaptive_reserve()
 * is the owner's (or set-up's). The control thread reads the counters with ctr_read() and
 * the published view with adaptive_read() (a sequence lock of relaxed
 * atomic words: the owner never waits).
 */
#ifndef XDPLANE_ADAPTIVE_H
#define XDPLANE_ADAPTIVE_H

#include <stdbool.h>
#include <stdint.h>
#include "bits.h"
#include "counters.h"
#include "edge_rate.h"
#include "path_owner.h"
#include "pathmon.h"
#include "pathmon_ring.h"
#include "qos.h"
#include "tc_sched.h"

#define ADAPTIVE_MAX_IN 64 /* event rings: one per RX task of the port */
#define ADAPTIVE_EV_BATCH 64 /* events taken per ring and pass, at most */
#define ADAPTIVE_APPLY_EPS                                                     \
	0.002 /* rate changes smaller than this
				  * fraction are not applied */
#define ADAPTIVE_MIN_DECISION_NS                                               \
	1000000ull /* decisions at most every
						* 1 ms (edge_rate's
						* min_interval_ns) */
#define ADAPTIVE_DRAIN_NS                                                      \
	20000000ull /* a cut drains the excess over at
					* least 20 ms (edge_rate's
					* drain_min_ns): a burst beyond
					* that passes costs a small cut */
#define ADAPTIVE_CONFIRM_NS                                                    \
	4000000ull /* a delay above target cuts once it
				      * stood 4 ms (edge_rate's confirm_ns):
				      * a burst's spike that drains by
				      * itself does not */
#define ADAPTIVE_MAX_CUT                                                       \
	0.1 /* a decision cuts at most a tenth, one
			      * congestion at most a fifth of the estimate
			      * unless the path delivers clearly less
			      * (edge_rate's max_cut): a dip below what the
			      * collective needs, however short, costs it
			      * seconds (the hosts' DCQCN) */
#define ADAPTIVE_DROP_CONFIRM_NS                                               \
	20000000ull /* a delivery rate far below the
				       * rate is a capacity drop once it
				       * read so for 20 ms (edge_rate's
				       * drop_confirm_ns) */
#define ADAPTIVE_QUIET_NS                                                      \
	500000000ull /* a congestion whose delay did not
		      * answer the cuts is undone, and for
		      * 500 ms only a queue above 4 x target
		      * or a low delivery rate cut
		      * (edge_rate's quiet_ns) */
#define ADAPTIVE_RATIO_NS                                                      \
	100000000ull /* the wire / payload ratio over
					* periods of at least 100 ms */
#define ADAPTIVE_SENT_NS                                                       \
	10000000ull /* what the port sent, over periods
				       * of at least 10 ms (the monitor's
				       * interval) */
#define ADAPTIVE_PROTECT_N                                                     \
	20 /* what the classes above the lowest level sent:
	    * the highest of the last 20 sent periods (200 ms) */
#define ADAPTIVE_MARK_MIN 0.01 /* marked fraction that counts as marks */
#define ADAPTIVE_OWN_MARKS_NS                                                  \
	50000000ull /* returning marks are ignored
					   * this long after the gateway's
					   * own last CE mark */
#define ADAPTIVE_PUBLISH_NS 1000000ull /* the view, without decisions */
#define ADAPTIVE_PORT_FLOWS 4096 /* flows the monitors of a port hold */
#define ADAPTIVE_MIN_FLOWS 256 /* flows of one queue's monitor, at least */
#define ADAPTIVE_MAX_FLOWS 4096 /* ...at most */
#define ADAPTIVE_TASK_EVENTS 4096 /* event ring slots of an egress task */
#define ADAPTIVE_RING_MAX 1024 /* slots of one event ring, at most */

struct adaptive_counters {
	ctr_t events; /* events taken from the RX tasks */
	ctr_t rtt_samples; /* RTT samples the events gave */
	ctr_t decisions; /* controller decisions */
	ctr_t cuts; /* ...that cut the rate (drain) */
	ctr_t protected_cuts; /* ...held at what the upper classes send */
	ctr_t undone_cuts; /* congestions whose cuts were undone */
	ctr_t no_samples; /* the controller lost its samples (none for
			   * hold_ns): back to ports[].rate, its estimate
			   * dropped */
	ctr_t rate_changes; /* new rates applied to the shaper */
	ctr_t apply_errors; /* sched_set_port_rate() refused: a bug */
} __cacheline_aligned;

/* One decision, as operators see it. */
struct adaptive_decision {
	uint64_t t_ns; /* monotonic clock */
	uint64_t rate_bps;
	uint64_t delivery_bps;
	uint64_t qdelay_ns;
	uint64_t state; /* enum edge_rate_state */
};

/* The published state (adaptive_read). Every field a 64-bit word. */
struct adaptive_view {
	uint64_t on;
	uint64_t state; /* enum edge_rate_state */
	uint64_t rate_bps; /* the shaper's rate now */
	uint64_t max_bps, floor_bps, target_ns;
	uint64_t base_rtt_ns, srtt_ns, qdelay_ns; /* at the last decision */
	uint64_t delivery_bps; /* windowed max at the last decision */
	uint64_t delivery_last_bps; /* the last interval's */
	uint64_t mark_ppm; /* marked fraction, parts per million */
	uint64_t samples_recent; /* RTT samples in the rate window */
	uint64_t flows; /* flows the monitor tracks */
	uint64_t n_hist; /* decisions recorded (newest: (n_hist - 1) % N) */
	struct adaptive_decision hist[EDGE_RATE_HISTORY];
};

/* What the egress tasks of one port share (adaptive_share): when any of
 * their schedulers last set a CE mark, in the clock of the task that saw
 * its marks grow (0: never). Written and read with relaxed atomics by
 * every egress task of the port; no other field. */
struct adaptive_shared {
	uint64_t own_marks_ns;
} __cacheline_aligned;

struct port_adaptive {
	bool on;
	int port;
	struct edge_rate_params par;
	struct edge_rate er;
	struct pathmon pm;
	/* pathmon_init() done: set by adaptive_reserve() (release), read
	 * with acquire (the owner touches pm only once it read it true) */
	bool pm_ready;
	uint64_t seed; /* the monitor's hash seed */
	struct pathmon_ring *in[ADAPTIVE_MAX_IN];
	uint32_t n_in;
	uint64_t applied_bps; /* the rate the scheduler runs at */
	uint64_t policy_bps; /* ports[].rate of the running policy */
	uint32_t overhead; /* bytes the shaper charges per frame on top */
	uint64_t dep_wire; /* bytes the shaper charged for departures */
	uint64_t dep_payload; /* new payload of the measured flows among
			       * them (pathmon's new_bytes) */
	uint64_t ratio_wire, ratio_payload; /* the same, this ratio period */
	uint64_t ratio_ns; /* start of the ratio period; 0: none yet */
	double wire_ratio; /* their ratio, smoothed over periods; 0: none */
	uint64_t sent_wire; /* bytes charged in this sent period */
	uint64_t sent_ns; /* start of the sent period; 0: none yet */
	double offered_bits; /* the shaper's rate integrated over it */
	uint64_t offered_ns; /* integrated up to */
	double sent_bps; /* the last full sent period's rate; 0: none */
	double offered_bps; /* the shaper's mean rate over it */
	uint64_t prot_bytes, prot_pkts; /* bytes and frames the classes
					 * above the lowest level had sent at
					 * the start of the sent period */
	double prot_bps[ADAPTIVE_PROTECT_N]; /* their rate, per sent
					      * period (a ring) */
	uint32_t n_prot; /* periods measured, in [0, 2 x ADAPTIVE_PROTECT_N) */
	uint64_t own_marks; /* CE marks of the scheduler at the last decision */
	struct adaptive_shared *shared; /* the port's (or own_shared) */
	struct adaptive_shared own_shared; /* alone on the port */
	struct path_owner *owner; /* the port's flow -> queue table, NULL:
				   * none (adaptive_set_owner) */
	uint32_t queue; /* this task's queue in it */
	uint32_t seen_hist; /* er.n_hist at the last publication */
	uint64_t pub_ns; /* time of the last publication */
	struct adaptive_counters ctr;
	/* published: sequence (odd while the owner writes), then the view */
	uint64_t view_seq;
	struct adaptive_view view;
};

/* Off, with no monitor (adaptive_reserve) until adaptive_configure()
 * turns it on. Thread: set-up. Syscalls: getrandom(2) (the monitor's
 * hash seed). 0. */
int adaptive_init(struct port_adaptive *a, int port, uint64_t now_ns);
/* Allocate the monitor for a port of `queues` queues (fixed memory,
 * pathmon_params_default with adaptive_plan_flows(queues) flows and the
 * random hash seed), if it has none; adaptive_configure() turns it on
 * only once it has one. Thread: set-up, or the control thread before it
 * publishes the first policy generation that turns it on (the owner
 * does not touch the monitor before: adaptive_configure() reads
 * pm_ready with acquire). Syscalls: allocates. 0 or -ENOMEM. */
int adaptive_reserve(struct port_adaptive *a, uint32_t queues, uint64_t now_ns);
/* Thread: the control thread, once the worker has stopped. Syscalls:
 * allocates (free). */
void adaptive_fini(struct port_adaptive *a);

/* The queue plan of a port of `queues` (1..ADAPTIVE_MAX_IN) queues: the
 * flows of each queue's monitor, the slots of each event ring (from each
 * of the port's RX tasks to each of its egress tasks), and the bytes
 * adaptive egress allocates for the port once on (its monitors and its
 * rings' slots; nothing while off): at most queues x (a monitor of
 * ADAPTIVE_MAX_FLOWS + ADAPTIVE_TASK_EVENTS events), linear. */
uint32_t adaptive_plan_flows(uint32_t queues);
uint32_t adaptive_plan_ring(uint32_t queues);
uint64_t adaptive_plan_bytes(uint32_t queues);
/* Take events from ring r too. Thread: set-up. 0 or -ENOSPC. */
int adaptive_add_input(struct port_adaptive *a, struct pathmon_ring *r);
/* Share sh with the other egress tasks of the port (their own marks
 * silence the returning marks of all). Alone until called. Thread:
 * set-up. */
void adaptive_share(struct port_adaptive *a, struct adaptive_shared *sh);
/* Record in o, as flows leave, that queue `queue` sends them (the port's
 * RX tasks post their events here alone: path_owner.h). Thread:
 * set-up. */
void adaptive_set_owner(struct port_adaptive *a, struct path_owner *o,
			uint32_t queue);

/* Would adaptive_configure() accept the policy's settings for port
 * `port`, its rates shared by `queues` queues (0 or 1: one)? The floor
 * per queue must be at least TB_MIN_RATE, the lowest rate the shaper
 * carries. 0, or -EINVAL with the reason in *why. For the control plane
 * (the gateway checks every policy with the queue count). */
int adaptive_check(const struct qos_policy *pol, int port, uint32_t queues,
		   const char **why);
/* The policy's settings for this port (init and each reload), after the
 * scheduler took the policy. Thread: the owner, or set-up. Syscalls:
 * none. */
void adaptive_configure(struct port_adaptive *a, const struct qos_policy *pol,
			struct sched *s, uint64_t now_ns);

/* Record the departures among the n packets in d (the first frame of a
 * chain holds its headers: head[i] bytes of it; NULL: d[i].len). Only
 * when a->on. Thread: the owner. Syscalls: none. */
void adaptive_departures(struct port_adaptive *a, const uint8_t *base,
			 const struct frame_desc *d, const uint32_t *head,
			 uint32_t n, uint64_t now_ns);
/* Take the events, decide when due, apply the rate to s. Returns the
 * events taken. Only when a->on. Thread: the owner. Syscalls: none. */
uint32_t adaptive_poll(struct port_adaptive *a, struct sched *s,
		       uint64_t now_ns);

/* A consistent copy of the published view. Thread: any. */
void adaptive_read(const struct port_adaptive *a, struct adaptive_view *out);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * flowq.h - the flows of one DCQCN traffic class on one egress queue: a
 * FIFO per flow, served round robin (one frame per turn), each flow gated
 * by its own DCQCN reaction point (dcqcn.h), plus the notification-point
 * state that decides when a CNP is due for it.
 *
 * Flows: keyed by destination host, or by destination host + RoCE
 * destination queue pair (qos.h enum qos_flow_key). A frame that is not
 * IP belongs to one catch-all flow (family 0). The table holds max_flows
 * flows (fixed at init: no allocation afterwards); a frame of a new flow
 * when the table is full is refused (flowq_push returns FLOWQ_NONE, the
 * scheduler drops it with reason "flow_table" and counts table_full). An
 * empty flow idle for flow_idle_ns is removed (flowq_expire).
 *
 * Rate gate: a flow may send its head frame at now when
 * now >= last_tx + last_len * 8 / R_C (the frame before it has left at the
 * flow's current rate; a rate change moves that point). last_tx is when
 * the frame before was due (its gate opened, or it arrived, whichever was
 * later), not when the worker sent it, as far as the flow's credit
 * reaches: the longest time between two flowq_peek() calls while it was
 * backlogged (a descheduled worker), not yet made up, at most
 * FLOWQ_CATCHUP_BYTES at R_C. So the frames behind a service gap leave at
 * the port's pace until the flow is back on its schedule, and a backlog
 * the gap built drains instead of standing while the sender sends at R_C.
 * Time spent waiting for a busy port earns no credit (the worker looked
 * every call), nor does an idle flow (a frame is never due before it
 * arrived). A flow at line rate (never cut, or recovered) is not gated:
 * its RP limits nothing (a sender at line rate cannot outrun it), so its
 * frames leave as the port takes them, in turn with the other flows, and
 * frames that arrive closer than a line-rate frame time apart (an upstream
 * hop faster than the sender's NIC, a software pacer's burst) do not stand
 * behind the gate while the sender goes on at the same rate.
 * R_C starts at the line rate and moves only by DCQCN events: CNPs from
 * the reverse path (flowq_cnp_from_wire), our own CE marks (flowq_marked,
 * when cp_loop is on, through the NP rule: at most one per cnp_interval),
 * external hints (flowq_hint). The RP's timers are caught up lazily whenever the flow is
 * looked at; bytes sent feed its byte counter.
 *
 * NP towards the sender (qos_dcqcn.np, with flow_key qp): a CNP due for a
 * flow is put on a small list (np_due) that the egress task turns into CNP
 * frames; it needs the sender's QPN, learned from RC ACKs on the reverse
 * path (flowq_ack: the ACK's PSN must fall inside exactly one flow's recent
 * PSN window towards that host -- never guessed; an ambiguous or unmatched
 * ACK is counted).
 *
 * Frames: held in a pool of `cap` entries (the producers' frame count, so
 * the pool never runs out before the frames do), linked per flow.
 *
 * Ownership: one flowq per (DCQCN class, egress task), owned by that
 * task's thread (all flowq_* calls). Other threads read the counters with
 * ctr_read() and the per-flow view with flowq_view(), which retries on the
 * flow's sequence number and so never returns a torn flow.
 */
#ifndef XDPLANE_FLOWQ_H
#define XDPLANE_FLOWQ_H

#include <stdbool.h>
#include <stdint.h>
#include "counters.h"
#include "dp_assert.h"
#include "dcqcn.h"
#include "frame.h"
#include "qos.h"

#define FLOWQ_NONE UINT32_MAX
#define FLOWQ_NP_DUE_MAX 64
#define FLOWQ_CATCHUP_BYTES 65536 /* time a late worker lost, made up */
#define FLOWQ_PSN_WINDOW 4096 /* PSNs after the last seen that still match */

struct flowq_key {
	uint32_t qpn; /* destination QP (flow_key qp), else 0 */
	uint8_t family; /* 4, 6, 0: not IP */
	uint8_t pad_[3];
	uint8_t addr[16]; /* destination address, IPv4 in the first 4 */
};

struct flowq_entry {
	struct frame_desc d;
	uint64_t t_enq;
	uint32_t next; /* next entry of the same flow, FLOWQ_NONE: last */
};

/* Where a CNP for the flow goes (NP): copied from its data frames. */
struct flowq_peer {
	uint8_t sender_mac[6], receiver_mac[6];
	uint8_t sender_ip[16];
	uint16_t vid; /* 0xffff: untagged */
	uint16_t udp_sport;
	uint32_t sender_qpn; /* learned, valid when qpn_known */
	bool qpn_known;
};

struct flowq_flow {
	struct flowq_key key;
	uint32_t seq; /* odd while the key or use changes (flowq_view) */
	bool in_use;
	bool active; /* backlogged: on the round-robin ring */
	uint32_t head, tail, packets, bytes;
	uint32_t prev, next; /* round-robin ring of active flows; free list */
	uint64_t last_tx_ns, next_tx_ns, idle_since_ns;
	uint32_t last_len;
	uint64_t credit_ns; /* worker gap not yet made up (flowq_pop) */
	double ns_per_byte; /* 8e9 / R_C, refreshed when R_C moves */
	uint32_t psn_last; /* last PSN seen towards the receiver (qp key) */
	bool psn_seen;
	struct dcqcn_rp rp;
	struct dcqcn_np np;
	struct flowq_peer peer;
	/* published for readers (relaxed atomics, bits of doubles) */
	uint64_t pub_rc, pub_rt, pub_alpha;
	ctr_t sent_packets, sent_bytes;
	ctr_t cnps_wire; /* CNPs from the reverse path */
	ctr_t cnps_internal; /* our own marks acted on (cp_loop) */
	ctr_t cnps_hint; /* external hints acted on */
	ctr_t cnps_sent; /* NP: CNP frames generated */
};

struct flowq_stats {
	ctr_t flows_created, flows_expired, table_full;
	ctr_t cnp_unmatched; /* a wire CNP no flow matched */
	ctr_t acks_seen, qpn_learned, qpn_ambiguous, qpn_unmatched;
	ctr_t np_qpn_unknown; /* a CNP was due, the sender's QPN unknown */
	ctr_t np_due_full; /* a CNP was due, the due list was full */
	ctr_t hints; /* hints received */
};

struct flowq {
	uint32_t max_flows, n_flows, free_flow;
	struct flowq_flow *flows;
	uint32_t *index; /* by flow key: slot or FLOWQ_NONE */
	uint32_t *rindex; /* by (destination, sender QPN), once learned */
	uint32_t index_mask; /* both have index_mask + 1 positions */
	struct flowq_entry *pool;
	uint32_t pool_free, cap;
	uint32_t cursor; /* active flow whose turn it is, FLOWQ_NONE */
	uint32_t n_active;
	uint32_t np_due[FLOWQ_NP_DUE_MAX];
	uint32_t n_np_due;
	uint64_t rng;
	uint64_t last_expire_ns;
	uint64_t np_next_ns; /* earliest deferred NP CNP, UINT64_MAX: none */
	uint64_t look_ns; /* the last flowq_peek(): the worker looked */
	struct dcqcn_params par;
	enum qos_flow_key key_kind;
	uint64_t flow_idle_ns;
	bool cp_loop, np;
	bool cnp_forward; /* cnp: forward (the receivers' CNPs go on) */
	struct flowq_stats st;
};

/* cap: frames that can ever be queued (pool size); line_bps > 0. Returns
 * 0, -EINVAL or -ENOMEM. */
int flowq_init(struct flowq *q, uint32_t cap, const struct qos_dcqcn *cfg,
	       double line_bps, uint64_t seed, uint64_t now_ns);
void flowq_fini(struct flowq *q);
/* Live reload: new parameters; flows keep their state (rates cut to the
 * new line rate). max_flows cannot change. */
void flowq_set_params(struct flowq *q, const struct qos_dcqcn *cfg,
		      double line_bps);

/* The flow key of a frame (meta as in frame_meta.h). */
void flowq_key_of(const uint8_t *frame, uint32_t len, uint32_t meta,
		  enum qos_flow_key kind, struct flowq_key *k);

/* Queue a frame of flow k (frame: its bytes, for the NP's peer data).
 * Returns the flow, or FLOWQ_NONE (table full: the caller keeps the
 * frame). */
uint32_t flowq_push(struct flowq *q, const struct flowq_key *k,
		    const struct frame_desc *d, const uint8_t *frame,
		    uint64_t now_ns);
/* The same for a frame that must not be refused (a reload moving frames
 * between classes): with the table full it joins the flow whose turn it
 * is, or any flow (table_full counts it). */
void flowq_push_forced(struct flowq *q, const struct flowq_key *k,
		       const struct frame_desc *d, const uint8_t *frame,
		       uint64_t t_enq);
/* The flow that may send now, its turn first; FLOWQ_NONE: none may. */
uint32_t flowq_peek(struct flowq *q, uint64_t now_ns);
static inline uint32_t flowq_head_len(const struct flowq *q, uint32_t fid)
{
	return q->pool[q->flows[fid].head].d.len;
}
/* Take the head frame of flow fid (from flowq_peek at the same now). */
void flowq_pop(struct flowq *q, uint32_t fid, uint64_t now_ns,
	       struct flowq_entry *out);
/* The congestion point's queue of the class: the backlog of the flows
 * whose rate gate has been open for longer than one of their frame
 * times -- they could send and wait for the port, which is congestion
 * downstream of the reaction point. The backlog of a flow
 * held back by its own rate is the RP's doing, not congestion: counting
 * it would make DCQCN react to itself and spiral down. Nor is what a
 * flow's credit explains (R_C times the worker's gap not yet made up,
 * see the rate gate): a descheduled worker's backlog is not marked. */
uint64_t flowq_vqueue(struct flowq *q, uint64_t now_ns);
/* Earliest time an active flow may send, UINT64_MAX: none active. */
uint64_t flowq_next_ns(struct flowq *q, uint64_t now_ns);

/* Is our NP's CNP the one the sender reacts to for flow fid's marks (np
 * on, the sender's QPN learned, the receivers' CNPs forwarded to the
 * sender)? Then the CP leaves the frame unmarked (tc_sched.c): a CE would
 * bring the sender a second CNP for the same mark. With cnp: absorb the
 * receiver's CNP drives our RP and never reaches the sender: marked. */
static inline bool flowq_np_covers(const struct flowq *q, uint32_t fid)
{
	return q->np && q->cnp_forward && q->flows[fid].peer.qpn_known;
}

/* Our CP marked a frame of flow fid CE: the NP rule decides; a CNP that
 * is due acts on the RP (cp_loop) and/or goes on np_due (np). */
void flowq_marked(struct flowq *q, uint32_t fid, uint64_t now_ns);
/* Deferred NP CNPs that have come due. */
void flowq_np_poll(struct flowq *q, uint64_t now_ns);
/* A CNP from the reverse path: src = its source address (the data's
 * destination), qpn = its destination QP (the data sender's QP). Returns
 * the flows it acted on. */
uint32_t flowq_cnp_from_wire(struct flowq *q, uint8_t family,
			     const uint8_t *src, uint32_t qpn, uint64_t now_ns);
/* An RC ACK from the reverse path (src = the receiver, qpn = the sender's
 * QP, psn = the PSN it acknowledges): learn the sender's QPN. */
void flowq_ack(struct flowq *q, uint8_t family, const uint8_t *src,
	       uint32_t qpn, uint32_t psn);
/* External congestion hint for destinations in prefix/plen: each flow
 * there takes a CNP with probability severity (parts of 65536). */
uint32_t flowq_hint(struct flowq *q, uint8_t family, const uint8_t *prefix,
		    uint8_t plen, uint32_t severity, uint64_t now_ns);
/* Remove empty flows idle longer than flow_idle_ns (bounded work). */
void flowq_expire(struct flowq *q, uint64_t now_ns);

/* Census: every queued frame. */
void flowq_foreach(const struct flowq *q,
		   void (*fn)(const struct frame_desc *, void *), void *arg);
/* Take every queued frame out, flow by flow (reload of a removed class).
 * Each counts as sent (flowq_pop): rate gate, RP byte counter, counters. */
uint32_t flowq_drain(struct flowq *q, struct flowq_entry *out, uint32_t max);
/* Drop every queued frame (PFC watchdog), flow by flow from the one whose
 * turn it is: fn gets each (its owner takes it back). Nothing counts as
 * sent: the flows keep their rate gates, RP and NP state and counters;
 * each goes idle (off the round robin, kept in the table) at the later of
 * now_ns and its newest frame's enqueue time. Returns the frames; *bytes: their
 * lengths. */
uint32_t flowq_flush(struct flowq *q, uint64_t now_ns,
		     void (*fn)(const struct frame_desc *, void *), void *arg,
		     uint64_t *bytes);
/* Walk every flow and check the table's invariants with DP_ASSERT (a
 * backlogged flow is in use, on the round robin and holds exactly
 * `packets` frames of `bytes` bytes; an idle one holds none; the round
 * robin has n_active flows, cursor on it): O(max_flows + frames), for
 * debug checks. Returns the frames queued, *bytes their lengths. */
uint32_t flowq_census(const struct flowq *q, uint64_t *bytes);

/* A reader's copy of one flow (any thread). false: slot not in use. */
struct flowq_view {
	struct flowq_key key;
	double rc_bps, rt_bps, alpha;
	uint64_t queued_packets, sent_packets, sent_bytes;
	uint64_t cnps_wire, cnps_internal, cnps_hint, cnps_sent;
	uint32_t sender_qpn;
	bool qpn_known;
};
bool flowq_view(const struct flowq *q, uint32_t slot, struct flowq_view *v);

#endif

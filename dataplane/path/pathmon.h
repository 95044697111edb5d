/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pathmon.h - passive measurement of the path beyond ONE egress port, as
 * pping (ePPing, xdp-project/bpf-examples) times TCP and BBR (Cardwell et
 * al., ACM Queue 2016) keeps a windowed minimum RTT and a delivery rate.
 * No probes: it watches the frames that leave the port (departures) and
 * the ACKs that come back on the same port's RX side (events). Pure: state
 * + packet facts + now -> samples; no clock of its own, no I/O, no
 * allocation after pathmon_init().
 *
 * Inputs: departures (pathmon_depart(): TCP segments, RoCEv2 RC requests)
 * and events (pathmon_ack(): TCP ACKs, RoCE ACKs / NAKs, CNPs of the
 * reverse direction, the key swapped back), each with when it was seen.
 * State: a fixed table of max_flows flows; per flow one pending sample at
 * most (a TSval, an end sequence number or a PSN, and when it left) and
 * its last PATHMON_DEP_RING departures; per port the base RTT's
 * sub-window minima, srtt, the standing RTTs of the last
 * PATHMON_STANDING_FLOWS flows sampled, delivered bytes per interval, the
 * mark fraction.
 * Model:
 *   rtt       seen(event) - left(the departure it acknowledges): exact
 *             when it acknowledges exactly a recorded departure; else
 *             interpolated by sequence / PSN between the pending one and
 *             the last one sent; none after a retransmission (Karn), a
 *             NAK, past the sample's age, or from a foreign flow
 *   base      min of exact rtt over minrtt_window_ns
 *   srtt      srtt += (rtt - srtt) / 8
 *   standing  per flow the min of its last 2 rtt; per port the min over
 *             flows sampled within max(2 srtt, interval_ns) of the newest
 *   qdelay    standing - base
 *   delivery  bytes newly acknowledged (the cumulative ACK's / PSN's
 *             advance) per interval_ns; delivery_bps = the max over
 *             rate_intervals, _last the last, _mean the mean of 4
 *   marks     per interval (ECE ACKs + CNPs) / events of own flows;
 *             mark_frac = its EWMA, gain 2^-mark_shift
 *   valid     base known and min_samples rtt in the rate window (or,
 *             with a long RTT, in all and one within 2 srtt + interval)
 * Invariants: no false samples (an rtt only from an event that
 * acknowledges a departure recorded here); only the monitor's own flows'
 * events count; memory fixed at init; every call O(sweep_per_call +
 * probe length) but a budgeted RoCE pairing scan; every refusal counted.
 * Why: docs/decisions/0006 (departure timing, the standing RTT across
 * flows), 0010 (which events and marks count), 0001 (arrival stamps).
 * The exact rules of matching, expiry and pairing follow below.
 *
 * Ownership: one struct pathmon per egress port (per egress task of the
 * port if it has several), owned by that task's thread: every pathmon_*
 * call that takes a struct pathmon * is the owner's. Other threads read the
 * counters with ctr_read(). pathmon_dep_of() and pathmon_ack_of() have no
 * state: any thread may call them (the egress task, the RX task) on frames
 * it owns.
 */
#ifndef XDPLANE_PATHMON_H
#define XDPLANE_PATHMON_H

#include <stdbool.h>
#include <stdint.h>
#include "counters.h"
#include "pkt_parse.h"

/*
 * The rules, exactly.
 *
 * Departures (pathmon_depart, every TCP segment and RoCEv2 RC request that
 * leaves the port): a fixed table of max_flows flows (a power of two, from
 * the parameters) keyed by the flow's addresses, family and ports (TCP) or
 * destination QP (RoCE), found through an open-addressed index that stores
 * each key's hash next to the slot (the full key is in the flow). A new
 * flow when the table is full is refused and counted (table_full): nothing
 * of it is measured. Per flow, at most one sample is outstanding:
 *   PATHMON_TCP_TS   the TSval that left and when (flows with timestamps);
 *                    only a TSval newer than every one the flow sent
 *                    before (its first departure is the one the echo
 *                    answers);
 *   PATHMON_TCP_SEQ  the end sequence number of a segment with payload
 *                    that left and when (flows without timestamps);
 *   PATHMON_ROCE_PSN the PSN of an RC SEND / WRITE packet with AckReq that
 *                    left and when.
 * The departure that creates a flow's entry never starts a sample (what
 * left before the entry existed is unknown: a retransmission or an older
 * copy of the same TSval could be hiding behind it). New samples are
 * limited per port to max_samples_per_ms in each aligned millisecond of
 * `now`; a refusal is counted (budget_refused).
 *
 * Events (pathmon_ack, struct pathmon_ack built by pathmon_ack_of() on the
 * RX side of the same port and carried to the owner): an event of the
 * flow's reverse direction, its key swapped back to the data's direction.
 * Matching, with no false samples:
 *   TCP_TS   the ACK's TSecr equals the recorded TSval exactly: sample =
 *            seen - departure; the entry is consumed (first echo only). A
 *            TSecr newer than the recorded one means the recorded one will
 *            not be echoed any more: the sample is dropped (superseded).
 *   TCP_SEQ  the ACK number covers the recorded end (mod 2^32) and does
 *            not pass the highest sequence number sent. Karn: a departure
 *            that starts below the flow's highest sequence sent (a
 *            retransmission) invalidates a pending seq sample
 *            (karn_invalidated); a SYN starts the flow's TCP state over.
 *   ROCE_PSN the ACK's PSN lies in [recorded PSN, highest PSN sent] (mod
 *            2^24, inside psn_window). A NAK (sequence error or RNR)
 *            invalidates the pending sample (nak_invalidated); a request
 *            that leaves with a PSN not after the highest sent (a
 *            retransmission) does too (karn_invalidated).
 * RoCE likewise: an ACK whose PSN is one of the flow's last
 * PATHMON_DEP_RING requests is exact (a coalescing responder acknowledges
 * when that request arrives); one covering the recorded PSN and more is
 * measured from the later request's departure, interpolated by PSN (kept
 * out of the base); a go-back-N retransmission empties the ring.
 * Exact TCP samples: each flow keeps its last PATHMON_DEP_RING segments
 * with new data (end, departure); an ACK that newly acknowledges exactly
 * up to one of them was sent for that segment (a delayed ACK or a GRO
 * batch is sent when its last segment arrives), so the sample is exact
 * (ring_samples, within the per-ms budget). A retransmission or a SYN
 * empties the ring (Karn). Interpolated samples (below) do not enter the
 * base RTT window (an interpolation error can only make a base too
 * small); they feed srtt and the standing RTT.
 * TCP samples (both kinds) are measured from the departure of the segment
 * the ACK was sent for: an ACK that covers more than the recorded segment
 * was triggered by a later one (delayed ACKs, GRO), after the receiver's
 * wait for it; that segment's departure is interpolated by sequence
 * number between the recorded one and the last one sent
 * (ack_interpolated). Only segments with new payload are recorded.
 * Duplicate and old ACKs produce nothing. A sample older than its maximum
 * age (age_mult x srtt, clamped to [sample_min_age_ns, sample_max_age_ns];
 * sample_max_age_ns before the first RTT sample) is dropped and counted
 * (expired), so a lost packet or ACK frees the flow for a new sample.
 * A flow nothing was seen of for flow_idle_ns leaves the table (the
 * sweep below, or when a departure or an event meets it first: then the
 * departure starts it over as a new flow, the event is unmatched), so
 * an ACK after a gap never credits what left unseen meanwhile.
 *
 * RoCE ACKs carry the requester's QP number, not the responder's that the
 * data carries: the pair is learned as flowq.h does it. An ACK whose
 * (addresses, requester QP) is not yet known is matched against the RoCE
 * flows between the same two hosts whose PSN window [highest sent -
 * psn_window, highest sent] holds its PSN; exactly one candidate pairs
 * them (qpn_learned), none or several pair nothing (qpn_unmatched,
 * qpn_ambiguous). Each such scan visits the table (O(max_flows)) and is
 * limited to max_learn_per_ms (learn_refused). A paired flow whose ACK
 * falls outside its window loses the pair and its pending sample
 * (qpn_unpaired): a wrong pair never stays long enough to give samples.
 *
 * Delivery rate: per flow the last cumulative ACK (TCP) / ACKed PSN (RoCE);
 * an ACK that advances it (and not past what was sent) adds the advance
 * (TCP: bytes; RoCE: PSNs x the payload bytes of the flow's last request
 * packet, or the event's bytes when the RX side knew them) to the
 * port's current interval. At the end of each interval_ns the interval's
 * bytes make a rate sample; delivery_bps is the maximum over the last
 * rate_intervals intervals (idle intervals count as 0). What left that
 * such ACKs can deliver, the payload of new data of the flows in the
 * table (not retransmissions, not flows the table refused), is summed
 * in new_bytes.
 *
 * Congestion signals: each interval, marks / events, where events = the
 * TCP and RoCE ACK events and CNPs of the monitor's own flows and marks =
 * those ACKs with ECE + those CNPs; mark_frac is its EWMA (gain
 * 2^-mark_shift) over intervals that had events. Own flow: a TCP event
 * whose flow is in the table and has sent payload (a flow of pure ACKs
 * is the reverse of a flow entering the port: the segments that come
 * back for it are that flow's data) and that acknowledges nothing beyond
 * what it sent, a RoCE ACK/NAK whose requester QP is paired with a flow (and
 * within its PSN window), a CNP whose requester QP is paired (CNPs do not
 * pair). Every other event (another egress task's flows, the data of
 * flows that enter the port, CNPs of unpaired QPs) is counted in
 * acks_unmatched (qpn_unpaired), never in the fraction: counted there,
 * the data entering the port would dilute the marks and another queue's
 * marks would cut this one's rate (0010).
 *
 * RTT: base = the minimum over minrtt_window_ns, kept as PATHMON_MINRTT_SUB
 * sub-window minima (an old minimum leaves between
 * (PATHMON_MINRTT_SUB - 1) / PATHMON_MINRTT_SUB of the window and the
 * window after its sample); srtt = EWMA with gain 1/8 (sample ages);
 * a flow's standing RTT = the smaller of its last PATHMON_STANDING_N (2)
 * samples, the port's = the minimum of the standing RTTs of the flows
 * (of the last PATHMON_STANDING_FLOWS sampled) whose newest sample is
 * within max(2 x srtt, interval_ns) of the port's newest, and the
 * queueing delay beyond = standing - base. A single sample can be
 * inflated by a receiver's delayed-ACK timer, and one flow's samples by
 * a queue of its own beyond the shared bottleneck (its receiver's NIC,
 * its host's CPU; 0006). What every flow meets is the path's.
 *
 * Bounds: memory is fixed at init (max_flows flows, an index of 4 x
 * max_flows positions, so that probing always ends); expiry works
 * incrementally: every call visits sweep_per_call flow slots (pending
 * samples past their age, flows idle for flow_idle_ns leave the table),
 * pathmon_sweep() visits as many as asked. No call does more than
 * O(sweep_per_call + probe length) work, except a RoCE pairing scan
 * (budgeted above).
 */

#define PATHMON_MINRTT_SUB 5 /* sub-windows of the min RTT window */
#define PATHMON_RATE_WIN_MAX 64 /* rate_intervals, at most */
#define PATHMON_MEAN_INTERVALS 4 /* delivery_bps_mean's intervals */
#define PATHMON_STANDING_N                                                     \
	2 /* a flow's standing RTT: the min of its
				* last 2 samples */
#define PATHMON_STANDING_FLOWS                                                 \
	16 /* flows whose standing RTTs the port's
	    * standing RTT is the minimum of (the most
	    * recently sampled) */
#define PATHMON_DEP_RING 8 /* TCP departures kept per flow for exact ACKs */
#define PATHMON_MAX_FLOWS (1u << 20)
#define PATHMON_PSN_MASK 0xffffffu

enum pathmon_kind {
	PATHMON_TCP_TS = 0,
	PATHMON_TCP_SEQ = 1,
	PATHMON_ROCE_PSN = 2,
	PATHMON_KINDS
};

/* pathmon_key.proto */
enum pathmon_proto {
	PATHMON_P_TCP = 6,
	PATHMON_P_ROCE = 17, /* RoCEv2 (UDP 4791) RC */
};

/*
 * A flow, in the direction of the data (src sends, through this egress
 * port, to dst). Addresses in network order (IPv4 in the first 4 bytes,
 * the rest zero), numbers in host order. Zero the whole key before filling
 * it (pads and unused fields are hashed and compared).
 *   TCP:  sport, dport; qpn 0.
 *   RoCE: in a departure, qpn = the data's BTH destination QP (the
 *         responder's); in an event, qpn = the ACK's BTH destination QP
 *         (the requester's). Ports 0.
 */
struct pathmon_key {
	uint8_t family; /* 4 or 6 */
	uint8_t proto; /* enum pathmon_proto */
	uint16_t sport, dport;
	uint16_t pad_;
	uint32_t qpn;
	uint8_t src[16], dst[16];
	uint32_t pad2_;
};

/* pathmon_dep.flags */
enum pathmon_dep_flag {
	PATHMON_DF_TS = 1u << 0, /* TCP: tsval valid */
	PATHMON_DF_SYN = 1u << 1, /* TCP: SYN (the flow starts over) */
	PATHMON_DF_RST = 1u << 2, /* TCP: RST (never sampled) */
	PATHMON_DF_ACKREQ = 1u << 3, /* RoCE: AckReq set (may be sampled) */
	PATHMON_DF_NOSAMPLE = 1u << 4, /* RoCE: a request that is not
					* answered by an ACK of its own PSN
					* (READ, atomic): state only */
};

/* What left (pathmon_dep_of() builds it). */
struct pathmon_dep {
	uint32_t seq; /* TCP: first sequence number; RoCE: PSN */
	uint32_t end; /* TCP: pkt_tcp_end_seq(); RoCE: PSN */
	uint32_t tsval; /* PATHMON_DF_TS */
	uint32_t bytes; /* payload bytes */
	uint8_t flags; /* enum pathmon_dep_flag */
	uint8_t pad_[3];
};

/* pathmon_ack.type */
enum pathmon_ev_type {
	PATHMON_EV_TCP = 1, /* a TCP segment with ACK of the reverse flow */
	PATHMON_EV_ROCE_ACK = 2, /* RC ACK / atomic ACK (AETH syndrome) */
	PATHMON_EV_CNP = 3, /* RoCEv2 CNP: a mark of the flow paired
			     * with its (addresses, requester QP) */
};

/* pathmon_ack.flags */
enum pathmon_ev_flag {
	PATHMON_AF_TS = 1u << 0, /* TCP: tsecr valid (timestamps option) */
	PATHMON_AF_ECE = 1u << 1, /* TCP: ECE set */
};

/* AETH syndrome: bits 7-5 say what it is */
#define PATHMON_AETH_ACK 0u /* ACK (bits 4-0: credits) */
#define PATHMON_AETH_RNR_NAK 1u
#define PATHMON_AETH_NAK 3u /* NAK (bits 4-0: sequence error, ...) */
static inline unsigned int pathmon_aeth_type(uint8_t syndrome)
{
	return syndrome >> 5;
}

/* A returning event: what the RX side saw (72 bytes, no frame). */
struct pathmon_ack {
	struct pathmon_key key; /* swapped back: the data's direction */
	uint64_t seen_ns; /* when the RX side saw it */
	uint32_t ack; /* TCP: ACK number; RoCE: AETH's PSN (the BTH PSN) */
	uint32_t tsecr; /* TCP with PATHMON_AF_TS */
	uint32_t bytes; /* bytes newly acknowledged if the RX side knew
			 * them, else 0 (pathmon derives them) */
	uint8_t type; /* enum pathmon_ev_type */
	uint8_t flags; /* enum pathmon_ev_flag */
	uint8_t syndrome; /* RoCE: AETH syndrome */
	uint8_t pad_;
};

struct pathmon_params {
	uint32_t max_flows; /* power of two, 2..PATHMON_MAX_FLOWS */
	uint32_t max_samples_per_ms; /* new RTT samples per port and ms */
	uint32_t max_learn_per_ms; /* RoCE QP pairing scans per ms */
	uint32_t psn_window; /* RoCE: PSNs behind the highest sent that an
			      * ACK may acknowledge, 1..2^23 */
	uint32_t sweep_per_call; /* flow slots each call visits for expiry */
	uint32_t rate_intervals; /* delivery max window, in intervals,
				  * 1..PATHMON_RATE_WIN_MAX */
	uint32_t min_samples; /* RTT samples in the rate window that make an
			       * estimate valid, >= 1 */
	uint32_t mark_shift; /* mark_frac EWMA gain 2^-mark_shift, 0..16 */
	uint32_t age_mult; /* a pending sample lives age_mult x srtt ... */
	uint64_t sample_min_age_ns; /* ... at least this ... */
	uint64_t sample_max_age_ns; /* ... at most this (and before the
				     * first RTT sample) */
	uint64_t flow_idle_ns; /* no departure or ACK for this long: the
				* flow leaves the table */
	uint64_t interval_ns; /* delivery rate / mark fraction interval */
	uint64_t minrtt_window_ns; /* base RTT window (10 s) */
	uint64_t seed; /* hash seed (flooding resistance) */
	bool exact_ring; /* TCP: exact samples from the departure ring */
};

/* Defaults: 4096 flows, 8 samples/ms, 4 pairing scans/ms, PSN window
 * 4096, sweep 2 slots per call, rate over 10 intervals of 10 ms, 4
 * samples, mark gain 1/16, pending age 8 x srtt in [10 ms, 2 s], flows
 * idle 1 s, min RTT window 10 s, seed 0, exact ring on. */
void pathmon_params_default(struct pathmon_params *p);

struct pathmon_stats {
	ctr_t departures; /* pathmon_depart() calls */
	ctr_t samples_started[PATHMON_KINDS];
	ctr_t samples_matched[PATHMON_KINDS];
	ctr_t expired; /* pending samples past their age */
	ctr_t superseded; /* TS: a newer TSval echoed first */
	ctr_t ack_interpolated; /* TCP: the matching ACK covered more than
				 * the recorded segment: measured from the
				 * later segment's interpolated departure */
	ctr_t ring_samples; /* TCP: exact samples, an ACK of one of the
			     * flow's last PATHMON_DEP_RING segments */
	ctr_t karn_invalidated; /* a retransmission left */
	ctr_t nak_invalidated; /* a RoCE NAK came back */
	ctr_t budget_refused; /* a sample was possible, the ms budget spent */
	ctr_t table_full; /* departures of new flows refused */
	ctr_t flows_created, flows_expired;
	ctr_t acks_seen; /* TCP and RoCE ACK events */
	ctr_t acks_unmatched; /* an event (CNPs included) whose flow is not
			       * in the table, not paired, or (TCP) has
			       * sent no payload */
	ctr_t ece, cnps; /* marks of the monitor's own flows */
	ctr_t qpn_learned, qpn_unmatched, qpn_ambiguous, qpn_unpaired;
	ctr_t learn_refused;
};

/* The owner's estimate at a time (pathmon_estimate). */
struct pathmon_est {
	bool valid; /* a base RTT in the window and >= min_samples RTT
		     * samples in the last rate_intervals intervals -- or,
		     * as a long RTT gives few samples, >= min_samples in
		     * all and the last one within 2 x srtt + interval_ns */
	uint64_t base_rtt_ns; /* windowed minimum, 0: none in the window */
	uint64_t srtt_ns; /* EWMA 1/8, 0: no sample yet */
	uint64_t standing_rtt_ns; /* min of the last PATHMON_STANDING_N
				   * samples and those within srtt: the
				   * RTT every packet meets now */
	uint64_t qdelay_ns; /* standing - base (0 if below or no base) */
	double delivery_bps; /* windowed maximum over rate_intervals */
	double delivery_bps_last; /* the last closed interval */
	double delivery_bps_mean; /* mean of the last PATHMON_MEAN_INTERVALS
				   * closed intervals (fewer at the start) */
	double mark_frac; /* EWMA of the per-interval fraction */
	double mark_frac_last; /* the last interval that had events */
	uint32_t samples_recent; /* RTT samples in the rate window */
	uint64_t last_sample_ns; /* seen time of the last RTT sample, 0 */
};

/* Internal: one flow slot. */
struct pathmon_flow {
	struct pathmon_key key;
	uint32_t hash; /* of key */
	uint32_t next_free; /* free list, UINT32_MAX: last */
	uint8_t in_use;
	uint8_t pend; /* enum pathmon_kind of the pending sample, or
		       * PATHMON_NONE */
	uint8_t st; /* internal state bits (pathmon_int.h) */
	uint8_t dep_pos; /* TCP: next slot of the departure ring */
	uint32_t pend_val; /* TSval / end sequence / PSN */
	uint64_t pend_ns; /* its departure time */
	uint32_t snd_max; /* TCP: highest end sent; RoCE: highest PSN */
	uint32_t acked; /* TCP: last cumulative ACK; RoCE: last ACKed PSN */
	uint32_t ts_max; /* TCP: newest TSval sent */
	uint32_t sqpn; /* RoCE: the requester's QP, learned */
	uint32_t psn_bytes; /* RoCE: payload of the last request packet */
	uint32_t pend_end; /* TCP: end sequence of the recorded segment */
	uint64_t last_dep_ns; /* departure that last advanced snd_max */
	/* the last PATHMON_DEP_RING TCP segments that left with new data
	 * (end sequence) or RoCE requests (PSN), and their departure times
	 * (0: none / used) */
	uint32_t dep_end[PATHMON_DEP_RING];
	uint64_t dep_ns[PATHMON_DEP_RING];
	uint64_t last_ns; /* last departure or event: idle expiry */
};

/* Internal: an index position (slot | role << 31, and the key's hash). */
struct pathmon_ref {
	uint32_t ref; /* UINT32_MAX: empty */
	uint32_t hash;
};

struct pathmon_interval {
	uint64_t bytes; /* delivered */
	uint32_t samples; /* RTT samples */
	uint32_t pad_;
};

struct pathmon {
	struct pathmon_params par;
	struct pathmon_flow *flows;
	struct pathmon_ref *index;
	uint32_t index_mask;
	/* from here to st: what pathmon_reset() clears */
	uint32_t n_flows, free_flow;
	uint32_t sweep_pos;
	/* the per-ms budgets */
	uint64_t budget_ms;
	uint32_t budget_used, learn_used;
	/* payload of new data (TCP: beyond the highest sequence sent; RoCE:
	 * requests with a PSN after the highest sent) that left in flows
	 * already in the table: what their ACKs can deliver. In all, for
	 * the owner to take differences of. */
	uint64_t new_bytes;
	/* the current interval */
	uint64_t int_start;
	uint64_t int_bytes;
	uint32_t int_samples, int_acks, int_marks;
	/* the closed intervals: a ring of rate_intervals */
	struct pathmon_interval ring[PATHMON_RATE_WIN_MAX];
	uint32_t ring_pos, ring_n;
	double bps_last, mark_frac, mark_last;
	bool mark_init;
	/* RTT */
	uint64_t sub_ns; /* minrtt_window_ns / PATHMON_MINRTT_SUB */
	uint64_t sub_min[PATHMON_MINRTT_SUB]; /* 0: none */
	uint64_t sub_epoch[PATHMON_MINRTT_SUB];
	uint64_t srtt_ns, last_sample_ns;
	uint64_t n_samples; /* RTT samples taken, of every kind */
	/* the standing RTT of the flows sampled last: the smaller of each
	 * one's last two samples, and when its newest was seen (0: slot
	 * free) */
	struct {
		uint32_t hash;
		uint64_t last_rtt, standing, seen;
	} standing[PATHMON_STANDING_FLOWS];
	struct pathmon_stats st;
};

/* Returns 0, -EINVAL (parameters out of range) or -ENOMEM. */
int pathmon_init(struct pathmon *pm, const struct pathmon_params *p,
		 uint64_t now_ns);
/* Forget everything measured (flows, samples, intervals) as if just
 * initialised at now; the counters stay. For a monitor that was not
 * called for a while (adaptive egress off, then on): what it knew of the
 * flows is of another time. O(max_flows). */
void pathmon_reset(struct pathmon *pm, uint64_t now_ns);
void pathmon_fini(struct pathmon *pm);

/* A frame left the port (k, d: pathmon_dep_of()). Returns true when it
 * started a sample. */
bool pathmon_depart(struct pathmon *pm, const struct pathmon_key *k,
		    const struct pathmon_dep *d, uint64_t now_ns);

/* An event from the reverse path. Returns the RTT sample it gave (ns), 0:
 * none. */
uint64_t pathmon_ack(struct pathmon *pm, const struct pathmon_ack *ev,
		     uint64_t now_ns);

/* The estimate at now (closes the intervals that ended). */
void pathmon_estimate(struct pathmon *pm, uint64_t now_ns,
		      struct pathmon_est *out);

/* Visit up to n flow slots for expiry (pathmon_depart and pathmon_ack
 * visit sweep_per_call each). Returns the flows removed. */
uint32_t pathmon_sweep(struct pathmon *pm, uint64_t now_ns, uint32_t n);

/* Flows in the table now. */
static inline uint32_t pathmon_flows(const struct pathmon *pm)
{
	return pm->n_flows;
}

/* Bytes allocated at init (fixed for the life of pm). */
uint64_t pathmon_mem_bytes(const struct pathmon *pm);
/* The same for a monitor of max_flows flows, before it is made. */
uint64_t pathmon_mem_bytes_of(uint32_t max_flows);

/*
 * Helpers for the tasks. frame[0..len) parsed by pkt_parse() into m.
 *
 * pathmon_dep_of: a frame that is about to leave the port. Returns true
 * and fills *k, *d for a TCP segment (not a fragment; pkt_tcp_read()
 * succeeds) or a RoCEv2 RC request (BTH opcode 0x00-0x0c, 0x13, 0x14,
 * 0x16, 0x17); false for anything else (nothing to measure).
 *
 * pathmon_ack_of: a frame received on the port (the reverse path). Returns
 * true and fills *ev (seen_ns = now_ns) for a TCP segment with ACK, a RoCE
 * RC ACK or atomic ACK (opcode 0x11, 0x12: its AETH must be inside the
 * frame and the UDP length) or a CNP (0x81); false for anything else.
 */
bool pathmon_dep_of(const uint8_t *frame, uint32_t len,
		    const struct pkt_meta *m, struct pathmon_key *k,
		    struct pathmon_dep *d);
bool pathmon_ack_of(const uint8_t *frame, uint32_t len,
		    const struct pkt_meta *m, uint64_t now_ns,
		    struct pathmon_ack *ev);

#endif

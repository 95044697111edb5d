/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pathmon_int.h - what the parts of the path monitor share; not for its
 * callers (they include pathmon.h). The parts: the flow table
 * (pathmon_table.c), the samplers (pathmon_sample.c), the estimators
 * (pathmon_estimate.c) and the frame readers (pathmon_frame.c). All of
 * them run on the thread that owns the struct pathmon (pathmon.h).
 */
#ifndef XDPLANE_PATHMON_INT_H
#define XDPLANE_PATHMON_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "pathmon.h"

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

/* The flow table (pathmon_table.c). */
uint32_t pm_key_hash(const struct pathmon_key *k, uint64_t seed);
/* Index position of key k (hash h), or of the empty one where it goes. */
uint32_t pm_idx_probe(const struct pathmon *pm, const struct pathmon_key *k,
		      uint32_t h);
/* Remove the index entry of (slot, role), which must be there. */
void pm_idx_remove(struct pathmon *pm, uint32_t slot, uint32_t role);
/* A new flow of key k (hash h) at the empty index position pos; the
 * caller checked that a slot is free. */
struct pathmon_flow *pm_flow_new(struct pathmon *pm,
				 const struct pathmon_key *k, uint32_t h,
				 uint32_t pos, uint64_t now);
/* How long a pending sample may wait for its echo / ACK. */
uint64_t pm_age_limit(const struct pathmon *pm);
/* Drop f's pending sample if it is older than limit; true if it did. */
bool pm_pend_expire(struct pathmon *pm, struct pathmon_flow *f, uint64_t now,
		    uint64_t limit);
/* Nothing of f was seen for flow_idle_ns. */
bool pm_flow_idle(const struct pathmon *pm, const struct pathmon_flow *f,
		  uint64_t now);
/* Remove the flow in slot, counted as expired. */
void pm_flow_expire(struct pathmon *pm, uint32_t slot);

/* The estimators (pathmon_estimate.c). */
/* A new ms: the sampling and learning budgets start over. */
void pm_budget_roll(struct pathmon *pm, uint64_t now);
/* Time moves to now: budgets, closed intervals, a few flows swept. */
void pm_advance(struct pathmon *pm, uint64_t now);
/* An RTT sample of the flow of hash `hash`, seen at `seen`; base_ok: it
 * may lower the windowed minimum (exact, not interpolated). */
void pm_rtt_update(struct pathmon *pm, uint32_t hash, uint64_t rtt,
		   uint64_t seen, uint64_t now, bool base_ok);

#endif

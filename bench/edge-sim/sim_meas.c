// SPDX-License-Identifier: BSD-2-Clause
/*
 * sim_meas.c - see sim_meas.h.
 */
#include <stdlib.h>
#include <string.h>
#include "pathmon.h"
#include "sim_meas.h"

struct sim_meas {
	struct pathmon pm;
	struct pathmon_key key; /* sport: the flow */
	uint32_t pkt_bytes;
};

static const struct pathmon_key *key_of(struct sim_meas *m, uint32_t flow)
{
	m->key.sport = (uint16_t)(40000 + flow);
	return &m->key;
}

struct sim_meas *sim_meas_new(const struct edge_sim_cfg *c)
{
	struct sim_meas *m = calloc(1, sizeof(*m));
	struct pathmon_params p;

	if (!m)
		return NULL;
	pathmon_params_default(&p);
	/* the delivery rate over intervals of four base RTTs: a capacity step
	 * shows within a few round trips, and an interval holds enough
	 * packets (about 16 at 50 Mbit/s) that one more or less is noise of
	 * a few percent */
	p.interval_ns = 4 * c->base_rtt_ns;
	if (pathmon_init(&m->pm, &p, 0)) {
		free(m);
		return NULL;
	}
	m->key.family = 4;
	m->key.proto = PATHMON_P_TCP;
	m->key.dport = 2049;
	memcpy(m->key.src, "\x0a\x01\x00\x01", 4);
	memcpy(m->key.dst, "\x0a\x02\x00\x01", 4);
	m->pkt_bytes = c->pkt_bytes;
	return m;
}

void sim_meas_free(struct sim_meas *m)
{
	if (!m)
		return;
	pathmon_fini(&m->pm);
	free(m);
}

void sim_meas_depart(struct sim_meas *m, uint32_t flow, uint32_t fseq,
		     uint32_t tsval, uint32_t bytes, uint64_t t)
{
	struct pathmon_dep d = {
		.seq = fseq * m->pkt_bytes,
		.end = fseq * m->pkt_bytes + bytes,
		.tsval = tsval,
		.bytes = bytes,
		.flags = PATHMON_DF_TS,
	};

	pathmon_depart(&m->pm, key_of(m, flow), &d, t);
}

int sim_meas_ack(struct sim_meas *m, uint32_t flow, uint32_t fseq,
		 uint32_t tsval, uint32_t bytes, uint64_t t)
{
	struct pathmon_ack ev = {
		.seen_ns = t,
		.ack = fseq * m->pkt_bytes + bytes,
		.tsecr = tsval,
		.type = PATHMON_EV_TCP,
		.flags = PATHMON_AF_TS,
	};

	ev.key = *key_of(m, flow);
	return pathmon_ack(&m->pm, &ev, t) != 0;
}

void sim_meas_estimate(struct sim_meas *m, uint64_t t, struct edge_est *est)
{
	struct pathmon_est e;

	pathmon_estimate(&m->pm, t, &e);
	est->valid = e.valid;
	est->base_rtt_ns = e.base_rtt_ns;
	est->srtt_ns = e.srtt_ns;
	est->last_sample_ns = e.last_sample_ns;
	est->delivery_bps = e.delivery_bps_last;
	est->delivery_mean_bps = e.delivery_bps_mean;
	est->mark_frac = e.mark_frac;
}

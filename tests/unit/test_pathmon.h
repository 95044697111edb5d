/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pathmon.h - what the unit tests of the passive path measurement
 * (test_pathmon_*.c, dataplane/path/pathmon_*.c) share: time units, RoCE
 * AETH syndromes, the parameters, TCP and RoCE flow keys, departures and
 * ACKs fed at a time of the fake clock, a TCP flow sampled by timestamps
 * (struct ts_flow, ts_sample()), and checks of the index and of a value
 * within a fraction. Each test file uses some of them.
 */
#ifndef XDPLANE_TEST_PATHMON_H
#define XDPLANE_TEST_PATHMON_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "bits.h"
#include "path_owner.h"
#include "pathmon.h"
#include "pkt_parse.h"
#include "pkt_tcp.h"
#include "pkt_build.h"

#define US 1000ull
#define MS 1000000ull
#define SEC 1000000000ull

#define AETH_ACK 0x1f /* ACK, credits invalid */
#define AETH_NAK_SEQ 0x60 /* NAK, PSN sequence error */
#define AETH_RNR 0x20 /* RNR NAK */

static inline void params(struct pathmon_params *p)
{
	pathmon_params_default(p);
	p->max_flows = 64;
	p->min_samples = 1;
	p->exact_ring = false; /* the one-pending-sample rules alone;
				* test_exact_ring turns it on */
}

static inline struct pathmon_key tkey(uint32_t i)
{
	struct pathmon_key k;

	memset(&k, 0, sizeof(k));
	k.family = 4;
	k.proto = PATHMON_P_TCP;
	memcpy(k.src, "\x0a\x00\x00\x01", 4);
	k.dst[0] = 10;
	k.dst[1] = 1;
	k.dst[2] = (uint8_t)(i >> 8);
	k.dst[3] = (uint8_t)i;
	k.sport = (uint16_t)(40000 + (i & 0xff));
	k.dport = 5201;
	return k;
}

/* A segment [seq, seq + len), with a TSval unless ts is 0. */
static inline struct pathmon_dep seg(uint32_t seq, uint32_t len, uint32_t ts)
{
	struct pathmon_dep d;

	memset(&d, 0, sizeof(d));
	d.seq = seq;
	d.end = seq + len;
	d.bytes = len;
	if (ts) {
		d.flags = PATHMON_DF_TS;
		d.tsval = ts;
	}
	return d;
}

static inline struct pathmon_ack tack(const struct pathmon_key *k, uint32_t ack,
				      uint32_t tsecr, uint64_t seen)
{
	struct pathmon_ack ev;

	memset(&ev, 0, sizeof(ev));
	ev.key = *k;
	ev.type = PATHMON_EV_TCP;
	ev.ack = ack;
	ev.seen_ns = seen;
	if (tsecr) {
		ev.flags = PATHMON_AF_TS;
		ev.tsecr = tsecr;
	}
	return ev;
}

static inline uint64_t ack_at(struct pathmon *pm, const struct pathmon_key *k,
			      uint32_t ack, uint32_t tsecr, uint64_t t)
{
	struct pathmon_ack ev = tack(k, ack, tsecr, t);

	return pathmon_ack(pm, &ev, t);
}

static inline bool dep_at(struct pathmon *pm, const struct pathmon_key *k,
			  uint32_t seq, uint32_t len, uint32_t ts, uint64_t t)
{
	struct pathmon_dep d = seg(seq, len, ts);

	return pathmon_depart(pm, k, &d, t);
}

/* RoCE: the data key (responder's QP) and the ACK key (requester's). */
static inline struct pathmon_key rkey(uint8_t dst, uint32_t qpn)
{
	struct pathmon_key k;

	memset(&k, 0, sizeof(k));
	k.family = 4;
	k.proto = PATHMON_P_ROCE;
	memcpy(k.src, "\x0a\x00\x00\x01", 4);
	memcpy(k.dst, "\x0a\x00\x00\x00", 4);
	k.dst[3] = dst;
	k.qpn = qpn;
	return k;
}

static inline bool rdep_at(struct pathmon *pm, const struct pathmon_key *k,
			   uint32_t psn, uint8_t flags, uint32_t bytes,
			   uint64_t t)
{
	struct pathmon_dep d;

	memset(&d, 0, sizeof(d));
	d.seq = d.end = psn;
	d.flags = flags;
	d.bytes = bytes;
	return pathmon_depart(pm, k, &d, t);
}

static inline uint64_t rack_at(struct pathmon *pm, const struct pathmon_key *k,
			       uint32_t psn, uint8_t syndrome, uint64_t t)
{
	struct pathmon_ack ev;

	memset(&ev, 0, sizeof(ev));
	ev.key = *k;
	ev.type = PATHMON_EV_ROCE_ACK;
	ev.ack = psn;
	ev.syndrome = syndrome;
	ev.seen_ns = t;
	return pathmon_ack(pm, &ev, t);
}

static inline uint32_t index_used(const struct pathmon *pm)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i <= pm->index_mask; i++)
		n += pm->index[i].ref != UINT32_MAX;
	return n;
}

static inline bool near(double v, double want, double frac)
{
	double d = v > want ? v - want : want - v;

	return d <= want * frac;
}

struct ts_flow {
	struct pathmon_key k;
	uint32_t seq, ts;
};

/* One TS sample of rtt departing at t. */
static inline void ts_sample(struct pathmon *pm, struct ts_flow *f, uint64_t t,
			     uint64_t rtt)
{
	f->ts++;
	assert_true(dep_at(pm, &f->k, f->seq, 100, f->ts, t));
	f->seq += 100;
	assert_int_equal(ack_at(pm, &f->k, f->seq, f->ts, t + rtt), rtt);
}

#endif

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_pathmon.c - passive path measurement of one egress port
 * (dataplane/path/pathmon_*.c) on a fake clock, against hand-built departure
 * and event sequences: RTT from TCP timestamps, from sequence / ACK numbers
 * and from RoCE PSN / ACK, with retransmissions (Karn), reordering, lost
 * ACKs, NAKs and wrap-around of TSval, sequence numbers and PSNs (no false
 * samples); the RoCE requester-QP pairing; delivery rate from ACK streams
 * at known rates and its windowed maximum; the mark fraction (ECE, CNPs);
 * the windowed minimum RTT and srtt; the standing RTT as the minimum over
 * the flows (one flow's own queue further on is not the path's, also when
 * its samples come more often than the others'); a bounded table under a
 * flood of new
 * flows (table_full, fixed memory, expiry frees slots, the index left
 * empty); the per-ms sampling budget; pending-sample expiry; the estimate's
 * validity; and the frame helpers (pathmon_dep_of, pathmon_ack_of) on
 * TCP and RoCEv2 frames.
 */
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

static void params(struct pathmon_params *p)
{
	pathmon_params_default(p);
	p->max_flows = 64;
	p->min_samples = 1;
	p->exact_ring = false; /* the one-pending-sample rules alone;
				* test_exact_ring turns it on */
}

static struct pathmon_key tkey(uint32_t i)
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
static struct pathmon_dep seg(uint32_t seq, uint32_t len, uint32_t ts)
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

static struct pathmon_ack tack(const struct pathmon_key *k, uint32_t ack,
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

static uint64_t ack_at(struct pathmon *pm, const struct pathmon_key *k,
		       uint32_t ack, uint32_t tsecr, uint64_t t)
{
	struct pathmon_ack ev = tack(k, ack, tsecr, t);

	return pathmon_ack(pm, &ev, t);
}

static bool dep_at(struct pathmon *pm, const struct pathmon_key *k,
		   uint32_t seq, uint32_t len, uint32_t ts, uint64_t t)
{
	struct pathmon_dep d = seg(seq, len, ts);

	return pathmon_depart(pm, k, &d, t);
}

/* RoCE: the data key (responder's QP) and the ACK key (requester's). */
static struct pathmon_key rkey(uint8_t dst, uint32_t qpn)
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

static bool rdep_at(struct pathmon *pm, const struct pathmon_key *k,
		    uint32_t psn, uint8_t flags, uint32_t bytes, uint64_t t)
{
	struct pathmon_dep d;

	memset(&d, 0, sizeof(d));
	d.seq = d.end = psn;
	d.flags = flags;
	d.bytes = bytes;
	return pathmon_depart(pm, k, &d, t);
}

static uint64_t rack_at(struct pathmon *pm, const struct pathmon_key *k,
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

static uint32_t index_used(const struct pathmon *pm)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i <= pm->index_mask; i++)
		n += pm->index[i].ref != UINT32_MAX;
	return n;
}

static bool near(double v, double want, double frac)
{
	double d = v > want ? v - want : want - v;

	return d <= want * frac;
}

/* ---- RTT from TCP timestamps ---- */

static void test_rtt_ts(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(1);

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	/* the flow's first departure creates it, never a sample */
	assert_false(dep_at(&pm, &k, 1000, 1000, 100, 0));
	assert_int_equal(pathmon_flows(&pm), 1);
	assert_true(dep_at(&pm, &k, 2000, 1000, 101, 1 * MS));
	assert_false(dep_at(&pm, &k, 3000, 1000, 101, 1100 * US)); /* same */
	assert_false(dep_at(&pm, &k, 4000, 1000, 102, 1200 * US)); /* pending */
	assert_int_equal(ctr_read(&pm.st.samples_started[PATHMON_TCP_TS]), 1);
	/* an older echo: nothing */
	assert_int_equal(ack_at(&pm, &k, 2000, 100, 1220 * US), 0);
	/* exact echo: seen - departure of the first packet with 101 */
	assert_int_equal(ack_at(&pm, &k, 3000, 101, 1250 * US), 250 * US);
	/* first echo only */
	assert_int_equal(ack_at(&pm, &k, 4000, 101, 1300 * US), 0);
	assert_int_equal(ctr_read(&pm.st.samples_matched[PATHMON_TCP_TS]), 1);

	/* reordering on the way back */
	assert_true(dep_at(&pm, &k, 5000, 1000, 103, 2 * MS));
	/* a TSecr never sent: ignored, the sample stays */
	assert_int_equal(ack_at(&pm, &k, 5000, 104, 2100 * US), 0);
	assert_int_equal(ack_at(&pm, &k, 5000, 102, 2200 * US), 0);
	assert_int_equal(ctr_read(&pm.st.superseded), 0);
	assert_int_equal(ack_at(&pm, &k, 6000, 103, 2300 * US), 300 * US);

	/* a newer TSval echoed first: the recorded one is dropped */
	assert_true(dep_at(&pm, &k, 6000, 1000, 105, 3 * MS));
	assert_false(dep_at(&pm, &k, 7000, 1000, 106, 3100 * US));
	assert_int_equal(ack_at(&pm, &k, 8000, 106, 3400 * US), 0);
	assert_int_equal(ctr_read(&pm.st.superseded), 1);
	assert_int_equal(ack_at(&pm, &k, 8000, 105, 3450 * US), 0);
	assert_true(dep_at(&pm, &k, 8000, 1000, 107, 3500 * US));
	assert_int_equal(ack_at(&pm, &k, 9000, 107, 3600 * US), 100 * US);
	assert_int_equal(ctr_read(&pm.st.samples_matched[PATHMON_TCP_TS]), 3);
	assert_int_equal(ctr_read(&pm.st.samples_matched[PATHMON_TCP_SEQ]), 0);
	pathmon_fini(&pm);
}

static void test_rtt_ts_wrap(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(2);

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &k, 0xffffff00, 0x80, 0xfffffffd, 0));
	assert_true(dep_at(&pm, &k, 0xffffff80, 0x80, 0xffffffff, 1 * MS));
	assert_int_equal(ack_at(&pm, &k, 0xffffff80, 0xfffffffe, 1050 * US), 0);
	assert_int_equal(ack_at(&pm, &k, 0, 0xffffffff, 1100 * US), 100 * US);
	/* newer across the wrap of TSval (and of the sequence space) */
	assert_true(dep_at(&pm, &k, 0, 0x80, 0x00000002, 2 * MS));
	assert_int_equal(ack_at(&pm, &k, 0, 0xffffffff, 2100 * US), 0);
	assert_int_equal(ctr_read(&pm.st.superseded), 0);
	assert_int_equal(ack_at(&pm, &k, 0x80, 2, 2200 * US), 200 * US);
	assert_int_equal(ctr_read(&pm.st.samples_matched[PATHMON_TCP_TS]), 2);
	pathmon_fini(&pm);
}

/* ---- RTT from sequence / ACK numbers (no timestamps) ---- */

static void test_rtt_seq(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(3);

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &k, 1000, 1000, 0, 0));
	assert_true(dep_at(&pm, &k, 2000, 1000, 0, 1 * MS)); /* end 3000 */
	assert_false(dep_at(&pm, &k, 3000, 1000, 0, 1100 * US));
	assert_int_equal(ack_at(&pm, &k, 2000, 0, 1200 * US), 0); /* older */
	assert_int_equal(ack_at(&pm, &k, 2500, 0, 1300 * US), 0); /* part */
	assert_int_equal(ack_at(&pm, &k, 3000, 0, 1400 * US), 400 * US);
	assert_int_equal(ack_at(&pm, &k, 3000, 0, 1500 * US), 0); /* dup */
	assert_int_equal(ack_at(&pm, &k, 4000, 0, 1600 * US), 0); /* none */
	/* a pure ACK leaving carries no sequence space: no sample */
	assert_false(dep_at(&pm, &k, 4000, 0, 0, 2 * MS));
	assert_int_equal(ctr_read(&pm.st.samples_matched[PATHMON_TCP_SEQ]), 1);
	assert_int_equal(ctr_read(&pm.st.samples_started[PATHMON_TCP_SEQ]), 1);
	pathmon_fini(&pm);
}

static void test_karn(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(4), kt = tkey(5);

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &k, 1000, 1000, 0, 0));
	assert_true(dep_at(&pm, &k, 2000, 1000, 0, 1 * MS));
	assert_false(dep_at(&pm, &k, 3000, 1000, 0, 1100 * US));
	/* the sampled segment again: its ACK would be ambiguous */
	assert_false(dep_at(&pm, &k, 2000, 1000, 0, 1500 * US));
	assert_int_equal(ctr_read(&pm.st.karn_invalidated), 1);
	assert_int_equal(ack_at(&pm, &k, 3000, 0, 1600 * US), 0);
	assert_int_equal(ack_at(&pm, &k, 4000, 0, 1700 * US), 0);
	/* a retransmission is never sampled itself either */
	assert_false(dep_at(&pm, &k, 3000, 1000, 0, 1800 * US));
	assert_int_equal(ctr_read(&pm.st.samples_started[PATHMON_TCP_SEQ]), 1);
	/* new data samples again */
	assert_true(dep_at(&pm, &k, 4000, 1000, 0, 2 * MS));
	assert_int_equal(ack_at(&pm, &k, 5000, 0, 2200 * US), 200 * US);

	/* with timestamps, a retransmission does not make the echo
	 * ambiguous: the sample stays */
	assert_false(dep_at(&pm, &kt, 1000, 1000, 10, 0));
	assert_true(dep_at(&pm, &kt, 2000, 1000, 11, 1 * MS));
	assert_false(dep_at(&pm, &kt, 1000, 1000, 12, 1100 * US));
	assert_int_equal(ctr_read(&pm.st.karn_invalidated), 1);
	assert_int_equal(ack_at(&pm, &kt, 3000, 11, 1300 * US), 300 * US);
	pathmon_fini(&pm);
}

static void test_lost_acks(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(6);
	struct pathmon_est e;

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &k, 1000, 1000, 0, 0)); /* t0, not recorded */
	assert_true(dep_at(&pm, &k, 2000, 1000, 0, 1 * MS)); /* A, t1 */
	assert_false(dep_at(&pm, &k, 3000, 1000, 0, 1200 * US)); /* B */
	/* the ACKs of 2000 and of A are lost; the one of B comes at t3: it
	 * was sent for B (it covers more than A): measured from B's
	 * departure, and never from t0's */
	assert_int_equal(ack_at(&pm, &k, 4000, 0, 1500 * US), 300 * US);
	assert_int_equal(ctr_read(&pm.st.ack_interpolated), 1);
	/* an ACK of what never left: nothing, not even delivered bytes */
	assert_true(dep_at(&pm, &k, 4000, 1000, 0, 2 * MS));
	assert_int_equal(ack_at(&pm, &k, 9999, 0, 2100 * US), 0);
	assert_int_equal(ack_at(&pm, &k, 5000, 0, 2200 * US), 200 * US);
	pathmon_estimate(&pm, 10 * MS, &e);
	/* delivered: 4000 was the first ACK seen (the baseline), then 1000 */
	assert_true(near(e.delivery_bps_last, 1000 * 8e9 / 10e6, 1e-9));
	pathmon_fini(&pm);
}

static void test_seq_wrap(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(7);
	struct pathmon_est e;

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &k, 0xfffff000, 0x800, 0, 0));
	/* [0xfffff800, 0x800): the end wraps */
	assert_true(dep_at(&pm, &k, 0xfffff800, 0x1000, 0, 1 * MS));
	assert_int_equal(ack_at(&pm, &k, 0xfffffc00, 0, 1100 * US), 0);
	assert_int_equal(ack_at(&pm, &k, 0x00000400, 0, 1200 * US), 0);
	assert_int_equal(ack_at(&pm, &k, 0x00000800, 0, 1300 * US), 300 * US);
	assert_int_equal(ack_at(&pm, &k, 0x00000400, 0, 1400 * US), 0);
	/* a retransmission from below the wrap is one */
	assert_true(dep_at(&pm, &k, 0x800, 0x100, 0, 2 * MS));
	assert_false(dep_at(&pm, &k, 0xfffffff0, 0x100, 0, 2100 * US));
	assert_int_equal(ctr_read(&pm.st.karn_invalidated), 1);
	/* delivered across the wrap: 0x800 + 0x400 after the baseline */
	pathmon_estimate(&pm, 10 * MS, &e);
	assert_true(near(e.delivery_bps_last, 0xc00 * 8e9 / 10e6, 1e-9));
	pathmon_fini(&pm);
}

/* ---- RoCE: PSN / ACK ---- */

static void test_rtt_roce(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = rkey(2, 0x123), ak = rkey(2, 0x456);
	const uint8_t AR = PATHMON_DF_ACKREQ;

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(rdep_at(&pm, &k, 100, AR, 1024, 0));
	assert_true(rdep_at(&pm, &k, 101, AR, 1024, 1 * MS));
	/* the first ACK pairs the requester's QP 0x456 with the flow */
	assert_int_equal(rack_at(&pm, &ak, 101, AETH_ACK, 1200 * US), 200 * US);
	assert_int_equal(ctr_read(&pm.st.qpn_learned), 1);
	/* without AckReq no sample; a coalesced ACK covers the recorded
	 * PSN: it was sent for 104, so measured from 104's departure
	 * (interpolated by PSN between 103 and the last sent) */
	assert_false(rdep_at(&pm, &k, 102, 0, 1024, 2 * MS));
	assert_true(rdep_at(&pm, &k, 103, AR, 1024, 2100 * US));
	assert_false(rdep_at(&pm, &k, 104, AR, 1024, 2200 * US));
	assert_int_equal(rack_at(&pm, &ak, 102, AETH_ACK, 2400 * US), 0);
	assert_int_equal(rack_at(&pm, &ak, 104, AETH_ACK, 2500 * US), 300 * US);
	assert_int_equal(ctr_read(&pm.st.ack_interpolated), 1);
	assert_int_equal(rack_at(&pm, &ak, 104, AETH_ACK, 2600 * US), 0);
	assert_int_equal(rack_at(&pm, &ak, 102, AETH_ACK, 2700 * US), 0);
	/* a NAK invalidates */
	assert_true(rdep_at(&pm, &k, 105, AR, 1024, 3 * MS));
	assert_int_equal(rack_at(&pm, &ak, 105, AETH_NAK_SEQ, 3100 * US), 0);
	assert_int_equal(ctr_read(&pm.st.nak_invalidated), 1);
	assert_int_equal(rack_at(&pm, &ak, 105, AETH_ACK, 3300 * US), 0);
	/* go-back-N: the same PSN leaving again invalidates */
	assert_true(rdep_at(&pm, &k, 106, AR, 1024, 4 * MS));
	assert_false(rdep_at(&pm, &k, 105, AR, 1024, 4100 * US));
	assert_int_equal(ctr_read(&pm.st.karn_invalidated), 1);
	assert_int_equal(rack_at(&pm, &ak, 106, AETH_ACK, 4300 * US), 0);
	/* RNR NAK too */
	assert_true(rdep_at(&pm, &k, 107, AR, 1024, 5 * MS));
	assert_int_equal(rack_at(&pm, &ak, 107, AETH_RNR, 5100 * US), 0);
	assert_int_equal(ctr_read(&pm.st.nak_invalidated), 2);
	/* a READ request or atomic is never sampled */
	assert_false(
		rdep_at(&pm, &k, 108, AR | PATHMON_DF_NOSAMPLE, 0, 6 * MS));
	/* an ACK far outside the flow's window: the pair is dropped */
	assert_true(rdep_at(&pm, &k, 109, AR, 1024, 7 * MS));
	assert_int_equal(rack_at(&pm, &ak, 0x800000, AETH_ACK, 7100 * US), 0);
	assert_int_equal(ctr_read(&pm.st.qpn_unpaired), 1);
	assert_int_equal(rack_at(&pm, &ak, 109, AETH_ACK, 7200 * US), 0);
	assert_int_equal(ctr_read(&pm.st.qpn_learned), 2); /* learned again */
	assert_true(rdep_at(&pm, &k, 110, AR, 1024, 8 * MS));
	assert_int_equal(rack_at(&pm, &ak, 110, AETH_ACK, 8050 * US), 50 * US);
	assert_int_equal(ctr_read(&pm.st.samples_matched[PATHMON_ROCE_PSN]), 3);
	assert_int_equal(ctr_read(&pm.st.samples_started[PATHMON_ROCE_PSN]), 7);
	pathmon_fini(&pm);
}

static void test_roce_wrap(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = rkey(2, 0x10), ak = rkey(2, 0x11);
	const uint8_t AR = PATHMON_DF_ACKREQ;

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(rdep_at(&pm, &k, 0xfffffe, AR, 4096, 0));
	assert_true(rdep_at(&pm, &k, 0xffffff, AR, 4096, 1 * MS));
	assert_false(rdep_at(&pm, &k, 0x000000, 0, 4096, 1010 * US));
	assert_false(rdep_at(&pm, &k, 0x000001, 0, 4096, 1020 * US));
	assert_int_equal(ctr_read(&pm.st.karn_invalidated), 0);
	assert_int_equal(rack_at(&pm, &ak, 0xfffffe, AETH_ACK, 1300 * US), 0);
	/* sent for 0x000001: from its departure (1020 us) */
	assert_int_equal(rack_at(&pm, &ak, 0x000001, AETH_ACK, 1500 * US),
			 480 * US);
	assert_true(rdep_at(&pm, &k, 0x000002, AR, 4096, 2 * MS));
	assert_int_equal(rack_at(&pm, &ak, 0xffffff, AETH_ACK, 2050 * US), 0);
	assert_int_equal(rack_at(&pm, &ak, 0x000002, AETH_ACK, 2100 * US),
			 100 * US);
	/* a PSN from before the wrap leaving again is a retransmission */
	assert_true(rdep_at(&pm, &k, 0x000003, AR, 4096, 3 * MS));
	assert_false(rdep_at(&pm, &k, 0xffffff, AR, 4096, 3100 * US));
	assert_int_equal(ctr_read(&pm.st.karn_invalidated), 1);
	pathmon_fini(&pm);
}

static void test_roce_pairing(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k1 = rkey(2, 0x10), k2 = rkey(2, 0x20),
			   k3 = rkey(2, 0x30), k4 = rkey(3, 0x10);
	struct pathmon_key a1 = rkey(2, 0x11), a3 = rkey(2, 0x31),
			   a4 = rkey(3, 0x11);
	const uint8_t AR = PATHMON_DF_ACKREQ;

	params(&p);
	p.max_learn_per_ms = 3;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	/* two QPs to the same host with overlapping PSN windows */
	assert_false(rdep_at(&pm, &k1, 1000, AR, 100, 0));
	assert_true(rdep_at(&pm, &k1, 1010, AR, 100, 10 * US));
	assert_false(rdep_at(&pm, &k2, 1005, AR, 100, 20 * US));
	assert_true(rdep_at(&pm, &k2, 1015, AR, 100, 30 * US));
	/* a third far away in PSN space, and one to another host */
	assert_false(rdep_at(&pm, &k3, 5000000, AR, 100, 40 * US));
	assert_true(rdep_at(&pm, &k3, 5000001, AR, 100, 50 * US));
	assert_false(rdep_at(&pm, &k4, 1000, AR, 100, 60 * US));
	assert_true(rdep_at(&pm, &k4, 1001, AR, 100, 70 * US));

	/* 1010 is in both windows: never guessed */
	assert_int_equal(rack_at(&pm, &a1, 1010, AETH_ACK, 1 * MS), 0);
	assert_int_equal(ctr_read(&pm.st.qpn_ambiguous), 1);
	/* in no window */
	assert_int_equal(rack_at(&pm, &a1, 3000000, AETH_ACK, 1 * MS), 0);
	assert_int_equal(ctr_read(&pm.st.qpn_unmatched), 1);
	assert_int_equal(ctr_read(&pm.st.acks_unmatched), 2);
	/* exactly one: paired, and the sample is QP 0x30's */
	assert_int_equal(rack_at(&pm, &a3, 5000001, AETH_ACK, 1 * MS),
			 1 * MS - 50 * US);
	/* the learning budget (3 scans per ms) is spent */
	assert_int_equal(rack_at(&pm, &a4, 1001, AETH_ACK, 1 * MS), 0);
	assert_int_equal(ctr_read(&pm.st.learn_refused), 1);
	/* next ms: the other host's only QP in that window */
	assert_int_equal(rack_at(&pm, &a4, 1001, AETH_ACK, 2 * MS),
			 2 * MS - 70 * US);
	assert_int_equal(ctr_read(&pm.st.qpn_learned), 2);
	/* a NAK does not pair */
	assert_int_equal(rack_at(&pm, &a1, 1011, AETH_NAK_SEQ, 3 * MS), 0);
	assert_int_equal(ctr_read(&pm.st.qpn_learned), 2);
	assert_int_equal(ctr_read(&pm.st.samples_matched[PATHMON_ROCE_PSN]), 2);
	pathmon_fini(&pm);
}

/* ---- delivery rate ---- */

/* One TCP flow sends MSS segments every gap ns from *t to `until`, each
 * acknowledged `lag` segments later. */
static void tcp_stream(struct pathmon *pm, const struct pathmon_key *k,
		       uint64_t *t, uint32_t *i, uint64_t gap, uint64_t until)
{
	const uint32_t mss = 1448, lag = 10;

	for (; *t < until; *t += gap, (*i)++) {
		dep_at(pm, k, *i * mss, mss, 0, *t);
		if (*i >= lag)
			ack_at(pm, k, (*i - lag + 1) * mss, 0, *t);
	}
}

static void test_delivery_rate_tcp(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(8);
	struct pathmon_est e;
	uint64_t t = 0;
	uint32_t i = 0;

	params(&p);
	p.interval_ns = 10 * MS;
	p.rate_intervals = 10;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	/* 1 Gbit/s: 1448 bytes every 11584 ns */
	tcp_stream(&pm, &k, &t, &i, 11584, 200 * MS);
	pathmon_estimate(&pm, 200 * MS, &e);
	assert_true(near(e.delivery_bps, 1e9, 0.02));
	assert_true(near(e.delivery_bps_last, 1e9, 0.02));
	/* 250 Mbit/s: the max holds for the window, the last follows */
	tcp_stream(&pm, &k, &t, &i, 4 * 11584, 250 * MS);
	pathmon_estimate(&pm, 250 * MS, &e);
	assert_true(near(e.delivery_bps, 1e9, 0.02));
	assert_true(near(e.delivery_bps_last, 0.25e9, 0.03));
	tcp_stream(&pm, &k, &t, &i, 4 * 11584, 400 * MS);
	pathmon_estimate(&pm, 400 * MS, &e);
	assert_true(near(e.delivery_bps, 0.25e9, 0.03));
	/* idle: the window empties */
	pathmon_estimate(&pm, 600 * MS, &e);
	assert_true(e.delivery_bps == 0 && e.delivery_bps_last == 0);
	pathmon_fini(&pm);
}

static void test_delivery_rate_roce(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = rkey(9, 0x99), ak = rkey(9, 0x98);
	struct pathmon_est e;
	const uint64_t gap = 3277; /* 4096 bytes at 10 Gbit/s */
	uint64_t t = 0;

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	for (uint32_t psn = 0xfffff0; t < 100 * MS; t += gap) {
		/* one ACK every 4 PSNs, 8 behind */
		rdep_at(&pm, &k, psn, (psn & 3) == 3 ? PATHMON_DF_ACKREQ : 0,
			4096, t);
		if ((psn & 3) == 3)
			rack_at(&pm, &ak, (psn - 8) & PATHMON_PSN_MASK,
				AETH_ACK, t);
		psn = (psn + 1) & PATHMON_PSN_MASK;
	}
	pathmon_estimate(&pm, 100 * MS, &e);
	assert_true(near(e.delivery_bps, 4096 * 8e9 / gap, 0.02));
	assert_true(near(e.delivery_bps_last, 4096 * 8e9 / gap, 0.02));
	assert_true(ctr_read(&pm.st.samples_matched[PATHMON_ROCE_PSN]) > 100);
	pathmon_fini(&pm);
}

/* ---- congestion signals ---- */

static void test_marks(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(10), rk = rkey(7, 0x70), ra = rkey(7, 0x71);
	struct pathmon_ack ev;
	struct pathmon_est e;

	params(&p);
	p.interval_ns = 10 * MS;
	p.mark_shift = 4;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	dep_at(&pm, &k, 0, 100000, 0, 0);
	for (uint32_t i = 0; i < 100; i++) {
		ev = tack(&k, i * 100, 0, i * 10 * US);
		if (i % 4 == 0)
			ev.flags |= PATHMON_AF_ECE;
		pathmon_ack(&pm, &ev, ev.seen_ns);
	}
	pathmon_estimate(&pm, 10 * MS, &e);
	assert_true(near(e.mark_frac_last, 0.25, 1e-9));
	assert_true(near(e.mark_frac, 0.25, 1e-9));
	/* 10 ACKs, 30 CNPs of a paired RoCE flow (each a mark): 0.75;
	 * EWMA gain 1/16 */
	rdep_at(&pm, &rk, 100, PATHMON_DF_ACKREQ, 1000, 10 * MS);
	rdep_at(&pm, &rk, 101, PATHMON_DF_ACKREQ, 1000, 10 * MS);
	rack_at(&pm, &ra, 100, AETH_ACK, 10 * MS); /* pairs: an event */
	for (uint32_t i = 0; i < 39; i++) {
		ev = tack(&k, 10000, 0, 11 * MS + i * US);
		if (i >= 9) {
			memset(&ev, 0, sizeof(ev));
			ev.key = ra;
			ev.type = PATHMON_EV_CNP;
		}
		pathmon_ack(&pm, &ev, 11 * MS + i * US);
	}
	pathmon_estimate(&pm, 20 * MS, &e);
	assert_true(near(e.mark_frac_last, 0.75, 1e-9));
	assert_true(near(e.mark_frac, 0.25 + 0.5 / 16, 1e-9));
	assert_int_equal(ctr_read(&pm.st.ece), 25);
	assert_int_equal(ctr_read(&pm.st.cnps), 30);
	/* an interval without events leaves the fraction alone */
	pathmon_estimate(&pm, 40 * MS, &e);
	assert_true(near(e.mark_frac_last, 0.75, 1e-9));
	pathmon_fini(&pm);
}

/* Only events of the monitor's own flows count in the mark fraction:
 * another monitor's flows' ECE ACKs and CNPs (another queue of the port),
 * the data segments of flows entering the port (they carry the ACK bit)
 * and CNPs of no paired flow are counted unmatched, not as marks or
 * events. */
static void test_marks_own_flows(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(11), other = tkey(12), data = tkey(13);
	struct pathmon_key rk = rkey(8, 0x80), ra = rkey(8, 0x81),
			   rother = rkey(8, 0x91);
	struct pathmon_ack ev;
	struct pathmon_est e;
	uint64_t t;

	params(&p);
	p.interval_ns = 10 * MS;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	dep_at(&pm, &k, 0, 100000, 0, 0);
	/* 100 ACKs of k, 25 marked, among 3000 data segments of a flow that
	 * enters the port (not in the table) */
	for (uint32_t i = 0; i < 3100; i++) {
		t = 10 * US + i * 3 * US;
		if (i % 31 == 0) {
			ev = tack(&k, (i / 31) * 100, 0, t);
			if ((i / 31) % 4 == 0)
				ev.flags |= PATHMON_AF_ECE;
		} else {
			ev = tack(&data, i, 0, t);
		}
		pathmon_ack(&pm, &ev, t);
	}
	pathmon_estimate(&pm, 10 * MS, &e);
	assert_true(near(e.mark_frac_last, 0.25, 1e-9));
	assert_int_equal(ctr_read(&pm.st.acks_unmatched), 3000);
	assert_int_equal(ctr_read(&pm.st.ece), 25);

	/* another queue's flows: every ACK marked, and CNPs; k's 100 ACKs
	 * unmarked */
	for (uint32_t i = 0; i < 300; i++) {
		t = 10 * MS + 10 * US + i * 10 * US;
		if (i % 3 == 0) {
			ev = tack(&k, 10000 + i, 0, t);
		} else if (i % 3 == 1) {
			ev = tack(&other, i, 0, t);
			ev.flags |= PATHMON_AF_ECE;
		} else {
			memset(&ev, 0, sizeof(ev));
			ev.key = rother;
			ev.type = PATHMON_EV_CNP;
			ev.seen_ns = t;
		}
		pathmon_ack(&pm, &ev, t);
	}
	pathmon_estimate(&pm, 20 * MS, &e);
	assert_true(e.mark_frac_last == 0);
	assert_int_equal(ctr_read(&pm.st.ece), 25);
	assert_int_equal(ctr_read(&pm.st.cnps), 0);

	/* a RoCE flow of this monitor: its CNPs count once an ACK paired
	 * its requester QP, not before */
	rdep_at(&pm, &rk, 500, PATHMON_DF_ACKREQ, 1000, 21 * MS);
	rdep_at(&pm, &rk, 501, PATHMON_DF_ACKREQ, 1000, 21 * MS);
	memset(&ev, 0, sizeof(ev));
	ev.key = ra;
	ev.type = PATHMON_EV_CNP;
	ev.seen_ns = 22 * MS;
	pathmon_ack(&pm, &ev, 22 * MS); /* not paired yet */
	rack_at(&pm, &ra, 500, AETH_ACK, 23 * MS);
	for (uint32_t i = 0; i < 3; i++) {
		ev.seen_ns = 24 * MS + i * US;
		pathmon_ack(&pm, &ev, ev.seen_ns);
	}
	pathmon_estimate(&pm, 30 * MS, &e);
	assert_true(near(e.mark_frac_last, 0.75, 1e-9));
	assert_int_equal(ctr_read(&pm.st.cnps), 3);
	assert_int_equal(ctr_read(&pm.st.acks_unmatched), 3000 + 200 + 1);
	pathmon_fini(&pm);
}

/* Traffic both ways: a flow whose departures are pure ACKs is the
 * reverse of a flow that enters the port; the segments that come back
 * for it are that flow's data (with the ACK bit), not ACKs of data that
 * left: they are not events of the mark fraction. */
static void test_marks_reverse_data(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(21), rev = tkey(22);
	struct pathmon_ack ev;
	struct pathmon_est e;
	uint64_t t;

	params(&p);
	p.interval_ns = 10 * MS;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	dep_at(&pm, &k, 0, 100000, 0, 0);
	/* the ACKs of the data that enters: the flow rev, no payload */
	dep_at(&pm, &rev, 5000, 0, 0, 0);
	dep_at(&pm, &rev, 5000, 0, 0, 1 * US);
	for (uint32_t i = 0; i < 3100; i++) {
		t = 10 * US + i * 3 * US;
		if (i % 31 == 0) {
			ev = tack(&k, (i / 31) * 100, 0, t);
			if ((i / 31) % 4 == 0)
				ev.flags |= PATHMON_AF_ECE;
		} else {
			ev = tack(&rev, 5000, 0, t); /* its data */
		}
		pathmon_ack(&pm, &ev, t);
	}
	pathmon_estimate(&pm, 10 * MS, &e);
	assert_true(near(e.mark_frac_last, 0.25, 1e-9));
	assert_int_equal(ctr_read(&pm.st.acks_unmatched), 3000);
	/* once it sends data of its own, its ACKs count */
	dep_at(&pm, &rev, 5000, 1000, 0, 11 * MS);
	ev = tack(&rev, 6000, 0, 12 * MS);
	ev.flags |= PATHMON_AF_ECE;
	pathmon_ack(&pm, &ev, 12 * MS);
	pathmon_estimate(&pm, 20 * MS, &e);
	assert_true(near(e.mark_frac_last, 1.0, 1e-9));
	pathmon_fini(&pm);
}

/* ---- the flow -> queue table of a port (path_owner.h) ---- */

static void test_path_owner(void **state)
{
	struct path_owner o;
	struct pathmon_key k, r1 = rkey(5, 0x10), r2 = rkey(5, 0x20),
			      ra = rkey(5, 0x11), r6 = rkey(6, 0x10);
	uint32_t found = 0;

	assert_int_equal(path_owner_init(&o, 0, 1), -EINVAL);
	assert_int_equal(path_owner_init(&o, 1000, 1), 0);
	assert_int_equal(path_owner_mem_bytes(&o), 1024 * 4);
	k = tkey(1);
	assert_int_equal(path_owner_find(&o, &k), PATH_OWNER_NONE);
	path_owner_set(&o, &k, 3);
	assert_int_equal(path_owner_find(&o, &k), 3);
	path_owner_set(&o, &k, 5); /* TCP: the last sender */
	assert_int_equal(path_owner_find(&o, &k), 5);
	/* RoCE: the hosts; an ACK's key (the requester's QP) finds them */
	path_owner_set(&o, &r1, 2);
	assert_int_equal(path_owner_find(&o, &ra), 2);
	assert_int_equal(path_owner_find(&o, &r6), PATH_OWNER_NONE);
	path_owner_set(&o, &r2, 2);
	assert_int_equal(path_owner_find(&o, &ra), 2);
	path_owner_set(&o, &r2, 4);
	assert_int_equal(path_owner_find(&o, &ra), PATH_OWNER_SEVERAL);
	path_owner_set(&o, &r1, 2);
	assert_int_equal(path_owner_find(&o, &ra), PATH_OWNER_SEVERAL);
	/* twice the flows the table holds: the last ones are found, a
	 * flow never set is not, and nothing is found wrong */
	for (uint32_t i = 100; i < 2148; i++) {
		k = tkey(i);
		path_owner_set(&o, &k, i % 7);
	}
	for (uint32_t i = 100; i < 2148; i++) {
		int q;

		k = tkey(i);
		q = path_owner_find(&o, &k);
		assert_true(q == PATH_OWNER_NONE || q == (int)(i % 7));
		found += q != PATH_OWNER_NONE;
	}
	k = tkey(1);
	k.dport = 1;
	assert_int_equal(path_owner_find(&o, &k), PATH_OWNER_NONE);
	assert_true(found >= 900 && found <= 1024);
	path_owner_fini(&o);
}

/* ---- windowed min RTT and srtt ---- */

struct ts_flow {
	struct pathmon_key k;
	uint32_t seq, ts;
};

/* One TS sample of rtt departing at t. */
static void ts_sample(struct pathmon *pm, struct ts_flow *f, uint64_t t,
		      uint64_t rtt)
{
	f->ts++;
	assert_true(dep_at(pm, &f->k, f->seq, 100, f->ts, t));
	f->seq += 100;
	assert_int_equal(ack_at(pm, &f->k, f->seq, f->ts, t + rtt), rtt);
}

static void test_min_rtt_window(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct ts_flow f = {.k = tkey(11), .seq = 1, .ts = 1};
	struct pathmon_est e;
	uint64_t t;
	const uint64_t w = 10 * SEC, t_drop = 3 * SEC;

	params(&p);
	p.minrtt_window_ns = w;
	p.flow_idle_ns = 60 * SEC;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &f.k, 0, 1, f.ts, 0));
	f.seq = 1;
	for (t = 100 * MS; t < t_drop; t += 100 * MS)
		ts_sample(&pm, &f, t, 100 * US);
	pathmon_estimate(&pm, t_drop - 10 * MS, &e);
	assert_int_equal(e.base_rtt_ns, 100 * US);
	assert_true(e.valid);
	/* a drop shows at once */
	ts_sample(&pm, &f, t_drop, 50 * US);
	pathmon_estimate(&pm, t_drop + 1 * MS, &e);
	assert_int_equal(e.base_rtt_ns, 50 * US);
	/* then 80 us: the 50 us minimum stays for at least 4/5 of the
	 * window and leaves within the window */
	for (t = t_drop + 100 * MS; t < t_drop + w * 4 / 5 - 10 * MS;
	     t += 100 * MS)
		ts_sample(&pm, &f, t, 80 * US);
	pathmon_estimate(&pm, t_drop + w * 4 / 5 - 10 * MS, &e);
	assert_int_equal(e.base_rtt_ns, 50 * US);
	assert_true(near((double)e.srtt_ns, 80e3, 0.01));
	assert_int_equal(e.standing_rtt_ns, 80 * US);
	assert_int_equal(e.qdelay_ns, 30 * US); /* standing - base */
	for (; t < t_drop + w + 10 * MS; t += 100 * MS)
		ts_sample(&pm, &f, t, 80 * US);
	pathmon_estimate(&pm, t_drop + w + 10 * MS, &e);
	assert_int_equal(e.base_rtt_ns, 80 * US);
	/* no samples for a whole window: no base, not valid */
	pathmon_estimate(&pm, t_drop + 3 * w, &e);
	assert_int_equal(e.base_rtt_ns, 0);
	assert_false(e.valid);
	pathmon_fini(&pm);
}

/* Exact samples from the departure ring: an ACK sent for a later segment
 * (a delayed ACK covering two) is measured from that segment's
 * departure, not the first one's; a retransmission empties the ring. */
static void test_exact_ring(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(13);
	struct pathmon_est e;

	params(&p);
	p.exact_ring = true;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &k, 1000, 1000, 0, 0));
	dep_at(&pm, &k, 2000, 1000, 0, 1 * MS); /* end 3000 */
	dep_at(&pm, &k, 3000, 1000, 0, 1100 * US); /* end 4000 */
	dep_at(&pm, &k, 4000, 1000, 0, 1200 * US); /* end 5000 */
	dep_at(&pm, &k, 5000, 1000, 0, 1300 * US); /* end 6000 */
	/* the baseline ACK, then one covering 3000 and 4000: sent when the
	 * segment ending at 4000 arrived -> 1400 - 1100 us */
	assert_int_equal(ack_at(&pm, &k, 2000, 0, 1250 * US), 0);
	assert_int_equal(ack_at(&pm, &k, 4000, 0, 1400 * US), 300 * US);
	assert_int_equal(ctr_read(&pm.st.ring_samples), 1);
	assert_int_equal(ack_at(&pm, &k, 6000, 0, 1600 * US), 300 * US);
	/* the same ACK again (a duplicate): nothing */
	assert_int_equal(ack_at(&pm, &k, 6000, 0, 1700 * US), 0);
	assert_int_equal(ctr_read(&pm.st.ring_samples), 2);
	pathmon_estimate(&pm, 2 * MS, &e);
	assert_int_equal(e.base_rtt_ns, 300 * US);
	/* Karn: a retransmission empties the ring */
	dep_at(&pm, &k, 6000, 1000, 0, 2 * MS); /* end 7000 */
	dep_at(&pm, &k, 6000, 1000, 0, 3 * MS); /* again */
	assert_int_equal(ack_at(&pm, &k, 7000, 0, 3100 * US), 0);
	assert_int_equal(ctr_read(&pm.st.ring_samples), 2);

	/* RoCE: a coalesced ACK of PSN 203 is measured from 203's
	 * departure, exactly */
	{
		struct pathmon_key rk = rkey(3, 0x321), ak = rkey(3, 0x654);
		const uint8_t AR = PATHMON_DF_ACKREQ;

		rdep_at(&pm, &rk, 200, AR, 1024, 10 * MS);
		rdep_at(&pm, &rk, 201, AR, 1024, 11 * MS);
		rdep_at(&pm, &rk, 202, 0, 1024, 11100 * US);
		rdep_at(&pm, &rk, 203, 0, 1024, 11200 * US);
		assert_int_equal(rack_at(&pm, &ak, 203, AETH_ACK, 11500 * US),
				 300 * US);
		assert_int_equal(ctr_read(&pm.st.ring_samples), 3);
	}
	pathmon_fini(&pm);
}

static void test_srtt(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct ts_flow f = {.k = tkey(12), .seq = 1, .ts = 1};
	struct pathmon_est e;

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &f.k, 0, 1, f.ts, 0));
	ts_sample(&pm, &f, 1 * MS, 800 * US);
	pathmon_estimate(&pm, 2 * MS, &e);
	assert_int_equal(e.srtt_ns, 800 * US);
	assert_int_equal(e.qdelay_ns, 0);
	ts_sample(&pm, &f, 3 * MS, 1600 * US);
	pathmon_estimate(&pm, 5 * MS, &e);
	assert_int_equal(e.srtt_ns, 900 * US); /* 800 + (1600 - 800) / 8 */
	assert_int_equal(e.base_rtt_ns, 800 * US);
	/* the queueing delay is the standing RTT's: the min of the last
	 * PATHMON_STANDING_N samples, 800 us still */
	assert_int_equal(e.standing_rtt_ns, 800 * US);
	assert_int_equal(e.qdelay_ns, 0);
	assert_int_equal(e.last_sample_ns, 3 * MS + 1600 * US);
	/* once the last 4 samples are all 1600 us: 800 us of queue */
	for (int i = 0; i < PATHMON_STANDING_N - 1; i++)
		ts_sample(&pm, &f, (6 + 2 * (uint64_t)i) * MS, 1600 * US);
	pathmon_estimate(&pm, 14 * MS, &e);
	assert_int_equal(e.standing_rtt_ns, 1600 * US);
	assert_int_equal(e.qdelay_ns, 800 * US);
	pathmon_fini(&pm);
}

/* The standing RTT is the minimum over the flows of the last round trip:
 * a queue of one flow's own beyond the shared bottleneck (its receiver's
 * NIC: 5 ms on the spine bench, the spine's FIFO empty) is not queueing
 * delay of the path; one that every flow meets is. */
static void test_standing_over_flows(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct ts_flow a = {.k = tkey(21), .seq = 1, .ts = 1},
		       b = {.k = tkey(22), .seq = 1, .ts = 1};
	struct pathmon_est e;
	uint64_t t = 1 * MS;

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &a.k, 0, 1, a.ts, 0));
	assert_false(dep_at(&pm, &b.k, 0, 1, b.ts, 0));
	a.seq = b.seq = 1;
	for (int i = 0; i < 20; i++, t += 1 * MS) {
		ts_sample(&pm, &a, t, 1 * MS);
		ts_sample(&pm, &b, t + 100 * US, 1 * MS);
	}
	/* a meets 5 ms more of its own, b does not: the min over the flows
	 * of the last srtt is b's */
	for (int i = 0; i < 8; i++, t += 1 * MS) {
		ts_sample(&pm, &a, t, 6 * MS);
		ts_sample(&pm, &a, t + 300 * US, 6 * MS);
		ts_sample(&pm, &b, t + 600 * US, 1 * MS);
	}
	pathmon_estimate(&pm, t + 7 * MS, &e);
	assert_int_equal(e.base_rtt_ns, 1 * MS);
	assert_int_equal(e.standing_rtt_ns, 1 * MS);
	assert_int_equal(e.qdelay_ns, 0);
	/* both meet 2 ms more: the path's queue */
	for (int i = 0; i < 8; i++, t += 3 * MS) {
		ts_sample(&pm, &a, t, 3 * MS);
		ts_sample(&pm, &b, t + 100 * US, 3 * MS);
	}
	pathmon_estimate(&pm, t + 3 * MS, &e);
	assert_int_equal(e.standing_rtt_ns, 3 * MS);
	assert_int_equal(e.qdelay_ns, 2 * MS);
	pathmon_fini(&pm);
}

/* The veth bench's shape (a 50 Mbit/s gateway before GPU hosts' 25
 * Mbit/s links): the ring's RoCE flow meets 5 ms of its own at its
 * receiver's link and gives a sample every 5 ms, the storage flow, with
 * none, one every 9 ms. The last srtt held only the RoCE flow's samples
 * half the time, and the port's rate was cut for a queue no rate of it
 * drains; the minimum over the flows sampled within max(2 x srtt,
 * interval) sees none, at every instant. A queue both meet is seen. */
static void test_standing_sparse_flows(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct ts_flow a = {.k = tkey(31), .seq = 1, .ts = 1},
		       b = {.k = tkey(32), .seq = 1, .ts = 1};
	struct pathmon_est e;
	uint64_t t = 1 * MS;
	int seen_queue = 0, n = 0;

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &a.k, 0, 1, a.ts, 0));
	assert_false(dep_at(&pm, &b.k, 0, 1, b.ts, 0));
	for (int i = 0; i < 10; i++, t += 1 * MS) {
		ts_sample(&pm, &a, t, 1 * MS);
		ts_sample(&pm, &b, t + 100 * US, 1 * MS);
	}
	t += 10 * MS;
	for (uint64_t k = 0; k < 300; k++, t += 1 * MS) {
		if (k % 5 == 0)
			ts_sample(&pm, &a, t - 6 * MS, 6 * MS);
		if (k % 9 == 0)
			ts_sample(&pm, &b, t - 1 * MS, 1 * MS);
		pathmon_estimate(&pm, t, &e);
		seen_queue += e.qdelay_ns > 0;
		n++;
	}
	print_message("one flow's own 5 ms: queueing delay seen at %d of %d "
		      "instants\n",
		      seen_queue, n);
	assert_true(e.valid);
	assert_int_equal(e.base_rtt_ns, 1 * MS);
	assert_int_equal(seen_queue, 0);
	/* both meet 3 ms more: seen within the span of the sparser's two
	 * samples */
	for (uint64_t k = 0; k < 30; k++, t += 1 * MS) {
		if (k % 5 == 0)
			ts_sample(&pm, &a, t - 9 * MS, 9 * MS);
		if (k % 9 == 0)
			ts_sample(&pm, &b, t - 4 * MS, 4 * MS);
	}
	pathmon_estimate(&pm, t, &e);
	assert_int_equal(e.qdelay_ns, 3 * MS);
	pathmon_fini(&pm);
}

/* ---- bounds ---- */

static void test_table_bounded(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k;
	uint64_t mem;

	params(&p);
	p.max_flows = 16;
	p.sweep_per_call = 0;
	p.flow_idle_ns = 100 * MS;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	mem = pathmon_mem_bytes(&pm);
	assert_true(mem > 0);
	for (uint32_t i = 0; i < 1000; i++) {
		k = tkey(i);
		assert_false(dep_at(&pm, &k, 1, 100, 0, i * US));
	}
	assert_int_equal(pathmon_flows(&pm), 16);
	assert_int_equal(ctr_read(&pm.st.flows_created), 16);
	assert_int_equal(ctr_read(&pm.st.table_full), 984);
	assert_int_equal(pathmon_mem_bytes(&pm), mem);
	assert_int_equal(index_used(&pm), 16);
	/* the flows in the table are measured, the refused ones not */
	k = tkey(3);
	assert_true(dep_at(&pm, &k, 101, 100, 0, 2 * MS));
	assert_int_equal(ack_at(&pm, &k, 201, 0, 2100 * US), 100 * US);
	k = tkey(500);
	assert_false(dep_at(&pm, &k, 101, 100, 0, 3 * MS));
	assert_int_equal(ack_at(&pm, &k, 201, 0, 3100 * US), 0);
	assert_int_equal(ctr_read(&pm.st.acks_unmatched), 1);
	/* expiry frees the slots: not before the idle time */
	assert_int_equal(pathmon_sweep(&pm, 50 * MS, 16), 0);
	assert_int_equal(pathmon_sweep(&pm, 200 * MS, 16), 16);
	assert_int_equal(pathmon_flows(&pm), 0);
	assert_int_equal(index_used(&pm), 0);
	for (uint32_t i = 2000; i < 2016; i++) {
		k = tkey(i);
		dep_at(&pm, &k, 1, 100, 0, 201 * MS);
	}
	assert_int_equal(pathmon_flows(&pm), 16);
	assert_int_equal(ctr_read(&pm.st.table_full), 985);
	pathmon_fini(&pm);

	/* the incremental sweep of every call frees them as well */
	p.sweep_per_call = 2;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	for (uint32_t i = 0; i < 16; i++) {
		k = tkey(i);
		dep_at(&pm, &k, 1, 100, 0, 0);
	}
	for (uint32_t i = 100; i < 200; i++) {
		k = tkey(i);
		dep_at(&pm, &k, 1, 100, 0, 1 * SEC);
	}
	assert_int_equal(ctr_read(&pm.st.flows_expired), 16);
	assert_int_equal(pathmon_flows(&pm), 16);
	assert_int_equal(ctr_read(&pm.st.table_full), 100 - 16);
	assert_int_equal(index_used(&pm), 16);
	pathmon_fini(&pm);
}

/* RoCE flows hold two index entries once paired: both leave with them
 * (also when the ACK's QPN field had bits above 24 set). */
static void test_table_roce_pairs_expire(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;

	params(&p);
	p.max_flows = 8;
	p.sweep_per_call = 0;
	p.max_learn_per_ms = 1000;
	p.flow_idle_ns = 100 * MS;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	for (uint32_t round = 0; round < 3; round++) {
		uint64_t t0 = round * SEC;

		for (uint32_t i = 0; i < 50; i++) {
			struct pathmon_key k = rkey((uint8_t)i, 0x100 + i);
			/* bits above the 24 of a QPN are not the QPN's */
			struct pathmon_key ak =
				rkey((uint8_t)i, (0x200 + i) | round << 24);

			rdep_at(&pm, &k, 10 * i, PATHMON_DF_ACKREQ, 64,
				t0 + i * US);
			rack_at(&pm, &ak, 10 * i, AETH_ACK, t0 + i * US + 1);
		}
		assert_int_equal(pathmon_flows(&pm), 8);
		assert_int_equal(index_used(&pm), 16); /* 8 flows, 8 pairs */
		assert_int_equal(pathmon_sweep(&pm, t0 + 500 * MS, 8), 8);
		assert_int_equal(index_used(&pm), 0);
	}
	assert_int_equal(ctr_read(&pm.st.qpn_learned), 24);
	pathmon_fini(&pm);
}

static void test_budget(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k;
	uint32_t started = 0, per_ms[200] = {0};
	uint64_t rng = 42;

	params(&p);
	p.max_samples_per_ms = 3;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	for (uint32_t i = 0; i < 50; i++) {
		k = tkey(i);
		dep_at(&pm, &k, 1, 100, 0, i * US);
	}
	for (uint32_t i = 0; i < 50; i++) {
		k = tkey(i);
		started += dep_at(&pm, &k, 101, 100, 0, 1 * MS + i * 10 * US);
	}
	assert_int_equal(started, 3);
	assert_int_equal(ctr_read(&pm.st.budget_refused), 47);
	/* next ms: 3 more (47 flows have none pending) */
	started = 0;
	for (uint32_t i = 0; i < 50; i++) {
		k = tkey(i);
		started += dep_at(&pm, &k, 201, 100, 0, 2 * MS + i * 10 * US);
	}
	assert_int_equal(started, 3);
	/* random departures and ACKs for 200 ms: never more than 3 new
	 * samples in a millisecond */
	for (uint64_t t = 3 * MS; t < 200 * MS; t += 7 * US) {
		uint32_t i;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		i = (uint32_t)(rng >> 40) % 50;
		k = tkey(i);
		if (dep_at(&pm, &k, (uint32_t)(t / US) * 100, 100, 0, t))
			per_ms[t / MS]++;
		ack_at(&pm, &k, (uint32_t)(t / US) * 100 + 100, 0, t + 1);
	}
	for (uint32_t ms = 0; ms < 200; ms++)
		assert_true(per_ms[ms] <= 3);
	assert_true(ctr_read(&pm.st.samples_started[PATHMON_TCP_SEQ]) > 300);
	pathmon_fini(&pm);
}

static void test_pending_expiry(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct ts_flow f = {.k = tkey(13), .seq = 1, .ts = 1};

	params(&p);
	p.sweep_per_call = 0;
	p.sample_min_age_ns = 10 * MS;
	p.sample_max_age_ns = 2 * SEC;
	p.age_mult = 8;
	p.flow_idle_ns = 60 * SEC;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &f.k, 0, 1, 1, 0));
	/* no RTT known yet: a sample waits up to the maximum age */
	assert_true(dep_at(&pm, &f.k, 1, 100, 2, 1 * MS));
	assert_false(dep_at(&pm, &f.k, 101, 100, 3, 1 * MS + 2 * SEC));
	assert_int_equal(ctr_read(&pm.st.expired), 0);
	assert_true(dep_at(&pm, &f.k, 201, 100, 4, 2 * MS + 2 * SEC));
	assert_int_equal(ctr_read(&pm.st.expired), 1);
	/* its late echo is no sample; the new one's is */
	assert_int_equal(ack_at(&pm, &f.k, 101, 2, 3 * SEC), 0);
	assert_int_equal(ack_at(&pm, &f.k, 301, 4, 3 * SEC),
			 3 * SEC - 2 * MS - 2 * SEC);
	pathmon_fini(&pm);
	/* with srtt 100 us: the limit is max(8 x 100 us, 10 ms) = 10 ms */
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &f.k, 0, 1, 1, 0));
	f.seq = 1;
	f.ts = 1;
	ts_sample(&pm, &f, 1 * MS, 100 * US);
	assert_true(dep_at(&pm, &f.k, f.seq, 100, 50, 2 * MS));
	assert_int_equal(pathmon_sweep(&pm, 11 * MS, 16), 0);
	assert_int_equal(ctr_read(&pm.st.expired), 0);
	pathmon_sweep(&pm, 12 * MS + 1, 64);
	assert_int_equal(ctr_read(&pm.st.expired), 1);
	assert_int_equal(ack_at(&pm, &f.k, f.seq + 100, 50, 13 * MS), 0);
	pathmon_fini(&pm);
}

static void test_estimate_valid(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct ts_flow f = {.k = tkey(14), .seq = 1, .ts = 1};
	struct pathmon_est e;

	params(&p);
	p.min_samples = 3;
	p.interval_ns = 10 * MS;
	p.rate_intervals = 10;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	pathmon_estimate(&pm, 0, &e);
	assert_false(e.valid);
	assert_int_equal(e.base_rtt_ns, 0);
	assert_false(dep_at(&pm, &f.k, 0, 1, 1, 0));
	f.seq = 1;
	ts_sample(&pm, &f, 1 * MS, 100 * US);
	ts_sample(&pm, &f, 2 * MS, 100 * US);
	pathmon_estimate(&pm, 3 * MS, &e);
	assert_false(e.valid);
	assert_int_equal(e.samples_recent, 2);
	ts_sample(&pm, &f, 15 * MS, 100 * US);
	pathmon_estimate(&pm, 16 * MS, &e);
	assert_true(e.valid);
	assert_int_equal(e.samples_recent, 3);
	/* the samples age out of the rate window (10 x 10 ms) */
	pathmon_estimate(&pm, 105 * MS, &e);
	assert_true(e.valid);
	pathmon_estimate(&pm, 125 * MS, &e);
	assert_false(e.valid);
	assert_int_equal(e.samples_recent, 0);
	assert_int_equal(e.base_rtt_ns, 100 * US); /* the base stays */
	pathmon_fini(&pm);
}

/* ---- a long RTT: few samples per rate window ---- */

/* One segment every 50 ms over a 150 ms path, each ACKed alone: at most
 * three samples in the rate window (10 x 10 ms), fewer than min_samples,
 * so the estimate rests on the long-RTT rule. ack_skew: the events are
 * seen that long after the now they are consumed at (the RX task of
 * another worker began its pass later). Returns the time the last
 * sample was consumed at. */
static uint64_t long_path(struct pathmon *pm, const struct pathmon_key *k,
			  uint32_t n, uint64_t ack_skew)
{
	uint64_t t, last = 0;

	for (uint32_t i = 0; i < n + 3; i++) {
		t = (uint64_t)i * 50 * MS;
		if (i < n)
			dep_at(pm, k, 1000 + i * 1000, 1000, 0, t);
		if (i >= 3) {
			struct pathmon_ack ev =
				tack(k, 2000 + (i - 3) * 1000, 0, t + ack_skew);

			if (pathmon_ack(pm, &ev, t))
				last = t;
		}
	}
	return last;
}

/* The exact samples of the departure ring count as samples: a 150 ms
 * path with exact samples only is valid. */
static void test_long_rtt_ring(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(21);
	struct pathmon_est e;
	uint64_t t;

	(void)state;
	params(&p);
	p.exact_ring = true;
	p.min_samples = 4;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	t = long_path(&pm, &k, 12, 0);
	assert_true(ctr_read(&pm.st.ring_samples) >= 4);
	pathmon_estimate(&pm, t + 1 * MS, &e);
	assert_true(e.samples_recent < p.min_samples);
	assert_int_equal(e.base_rtt_ns, 150 * MS);
	assert_true(e.valid);
	pathmon_fini(&pm);
}

/* Samples seen after the now they are consumed at (clocks of two
 * workers): a sample of age 0, and the long-RTT estimate stays valid. */
static void test_long_rtt_sample_after_now(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(22);
	struct pathmon_est e;
	uint64_t t;

	(void)state;
	params(&p);
	p.min_samples = 4;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	t = long_path(&pm, &k, 20, 2 * US);
	assert_true(ctr_read(&pm.st.samples_matched[PATHMON_TCP_SEQ]) >= 4);
	pathmon_estimate(&pm, t, &e);
	assert_true(e.last_sample_ns > t);
	assert_true(e.samples_recent < p.min_samples);
	assert_true(e.valid);
	pathmon_fini(&pm);
}

/* ---- gaps: a flow met again after flow_idle_ns, a reset ---- */

/* Nothing of the flow was seen for 5 s (the monitor was not called:
 * adaptive egress off), while it sent 62.5 MB: its old ACK state is not
 * revived, so the first ACK after the gap credits nothing. */
static void test_gap_not_credited(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(23);
	struct pathmon_est e;
	const uint32_t gap = 62500000;

	(void)state;
	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	dep_at(&pm, &k, 1000, 1000, 0, 0);
	dep_at(&pm, &k, 2000, 1000, 0, 1 * MS);
	ack_at(&pm, &k, 2000, 0, 2 * MS);
	ack_at(&pm, &k, 3000, 0, 3 * MS);
	/* 5 s later, 62.5 MB further */
	dep_at(&pm, &k, 3000 + gap, 1000, 0, 5 * SEC);
	dep_at(&pm, &k, 4000 + gap, 1000, 0, 5 * SEC + 100 * US);
	ack_at(&pm, &k, 4000 + gap, 0, 5 * SEC + 1 * MS);
	ack_at(&pm, &k, 5000 + gap, 0, 5 * SEC + 2 * MS);
	pathmon_estimate(&pm, 5 * SEC + 15 * MS, &e);
	print_message("delivery after the gap: %.0f bit/s (max %.0f)\n",
		      e.delivery_bps_last, e.delivery_bps);
	assert_true(e.delivery_bps < 2e6); /* 1000 B in 10 ms: 0.8 Mbit/s */
	assert_int_equal(ctr_read(&pm.st.flows_expired), 1);
	pathmon_fini(&pm);
}

/* pathmon_reset: no flows, no samples, no intervals; then as new. */
static void test_reset(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct ts_flow f = {.k = tkey(24), .seq = 1, .ts = 1};
	struct pathmon_est e;

	(void)state;
	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &f.k, 0, 1, 1, 0));
	f.seq = 1;
	ts_sample(&pm, &f, 1 * MS, 100 * US);
	ts_sample(&pm, &f, 2 * MS, 100 * US);
	pathmon_estimate(&pm, 3 * MS, &e);
	assert_true(e.valid);
	assert_int_equal(pm.n_samples, 2);
	pathmon_reset(&pm, 4 * MS);
	assert_int_equal(pm.n_samples, 0);
	assert_int_equal(pathmon_flows(&pm), 0);
	assert_int_equal(index_used(&pm), 0);
	pathmon_estimate(&pm, 5 * MS, &e);
	assert_false(e.valid);
	assert_int_equal(e.base_rtt_ns, 0);
	assert_int_equal(e.srtt_ns, 0);
	assert_int_equal(e.last_sample_ns, 0);
	assert_true(e.delivery_bps == 0);
	/* the flow is new again: its first departure is state only */
	assert_false(dep_at(&pm, &f.k, f.seq, 1000, 100, 6 * MS));
	assert_int_equal(pathmon_flows(&pm), 1);
	pathmon_fini(&pm);
}

static void test_params(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;

	params(&p);
	p.max_flows = 100; /* not a power of two */
	assert_int_equal(pathmon_init(&pm, &p, 0), -EINVAL);
	params(&p);
	p.rate_intervals = PATHMON_RATE_WIN_MAX + 1;
	assert_int_equal(pathmon_init(&pm, &p, 0), -EINVAL);
	params(&p);
	p.psn_window = 1u << 24;
	assert_int_equal(pathmon_init(&pm, &p, 0), -EINVAL);
	params(&p);
	p.interval_ns = 0;
	assert_int_equal(pathmon_init(&pm, &p, 0), -EINVAL);
	params(&p);
	p.sample_min_age_ns = p.sample_max_age_ns + 1;
	assert_int_equal(pathmon_init(&pm, &p, 0), -EINVAL);
	pathmon_params_default(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	pathmon_fini(&pm);
}

/* ---- frame helpers: pkt_build.h ---- */

static void test_helpers_tcp(void **state)
{
	static uint8_t f[2048];
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k;
	struct pathmon_dep d;
	struct pathmon_ack ev;
	struct pkt_meta m;
	uint32_t len;

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	/* 10.0.0.1:40000 -> 10.0.0.2:5201 leaves */
	len = tcp_frame(f, 1, 2, 40000, 5201, 1000, 1, PKT_TCP_ACK, 7, 3, 500);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(pathmon_dep_of(f, len, &m, &k, &d));
	assert_int_equal(k.proto, PATHMON_P_TCP);
	assert_int_equal(k.sport, 40000);
	assert_int_equal(k.dport, 5201);
	assert_int_equal(d.seq, 1000);
	assert_int_equal(d.end, 1500);
	assert_int_equal(d.bytes, 500);
	assert_int_equal(d.flags, PATHMON_DF_TS);
	assert_int_equal(d.tsval, 7);
	assert_false(pathmon_depart(&pm, &k, &d, 0));
	len = tcp_frame(f, 1, 2, 40000, 5201, 1500, 1, PKT_TCP_ACK, 8, 3, 500);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(pathmon_dep_of(f, len, &m, &k, &d));
	assert_true(pathmon_depart(&pm, &k, &d, 1 * MS));
	/* its ACK comes back: 10.0.0.2:5201 -> 10.0.0.1:40000, TSecr 8 */
	len = tcp_frame(f, 2, 1, 5201, 40000, 1, 2000, PKT_TCP_ACK, 90, 8, 0);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(pathmon_ack_of(f, len, &m, 1300 * US, &ev));
	assert_true(!memcmp(&ev.key, &k, sizeof(k))); /* swapped back */
	assert_int_equal(ev.type, PATHMON_EV_TCP);
	assert_int_equal(ev.ack, 2000);
	assert_int_equal(ev.tsecr, 8);
	assert_int_equal(ev.flags, PATHMON_AF_TS);
	assert_int_equal(pathmon_ack(&pm, &ev, 1300 * US), 300 * US);
	/* ECE: a mark on an ACK, not on a SYN-ACK (ECN negotiation) */
	len = tcp_frame(f, 2, 1, 5201, 40000, 1, 2000,
			PKT_TCP_ACK | PKT_TCP_ECE, 0, 0, 0);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(pathmon_ack_of(f, len, &m, 0, &ev));
	assert_int_equal(ev.flags, PATHMON_AF_ECE);
	len = tcp_frame(f, 2, 1, 5201, 40000, 1, 2000,
			PKT_TCP_SYN | PKT_TCP_ACK | PKT_TCP_ECE, 0, 0, 0);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(pathmon_ack_of(f, len, &m, 0, &ev));
	assert_int_equal(ev.flags, 0);
	/* no ACK flag, or RST: no event */
	len = tcp_frame(f, 2, 1, 5201, 40000, 1, 0, PKT_TCP_SYN, 0, 0, 0);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_false(pathmon_ack_of(f, len, &m, 0, &ev));
	len = tcp_frame(f, 2, 1, 5201, 40000, 1, 2000,
			PKT_TCP_RST | PKT_TCP_ACK, 0, 0, 0);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_false(pathmon_ack_of(f, len, &m, 0, &ev));
	/* a SYN leaving starts the flow's state over */
	len = tcp_frame(f, 1, 2, 40000, 5201, 77, 0, PKT_TCP_SYN, 5, 0, 0);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(pathmon_dep_of(f, len, &m, &k, &d));
	assert_int_equal(d.flags, PATHMON_DF_TS | PATHMON_DF_SYN);
	assert_int_equal(d.end, 78);
	assert_false(pathmon_depart(&pm, &k, &d, 2 * MS));
	/* TSval 6 is newer than the new connection's 5 (not than 8) */
	len = tcp_frame(f, 1, 2, 40000, 5201, 78, 1, PKT_TCP_ACK, 6, 1, 100);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(pathmon_dep_of(f, len, &m, &k, &d));
	assert_true(pathmon_depart(&pm, &k, &d, 3 * MS));
	/* not TCP, not RoCE: nothing to measure */
	f[23] = 17;
	wr16(f + 38, len - 14 - 20); /* a valid UDP length */
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_false(pathmon_dep_of(f, len, &m, &k, &d));
	assert_false(pathmon_ack_of(f, len, &m, 0, &ev));
	wr16(f + 12, ETHERTYPE_ARP);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_false(pathmon_dep_of(f, len, &m, &k, &d));
	assert_false(pathmon_ack_of(f, len, &m, 0, &ev));
	pathmon_fini(&pm);
}

static void test_helpers_roce(void **state)
{
	static uint8_t f[2048];
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k;
	struct pathmon_dep d;
	struct pathmon_ack ev;
	struct pkt_meta m;
	uint32_t len;

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	/* WRITE ONLY with AckReq: 10.0.0.1 -> 10.0.0.2, QP 0x1234 */
	len = roce_frame(f, 1, 2, 0x0a, 0x1234, 10, true, 1024, -1);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(pathmon_dep_of(f, len, &m, &k, &d));
	assert_int_equal(k.proto, PATHMON_P_ROCE);
	assert_int_equal(k.qpn, 0x1234);
	assert_int_equal(k.sport, 0);
	assert_int_equal(d.seq, 10);
	assert_int_equal(d.bytes, 1024);
	assert_int_equal(d.flags, PATHMON_DF_ACKREQ);
	assert_false(pathmon_depart(&pm, &k, &d, 0));
	len = roce_frame(f, 1, 2, 0x04, 0x1234, 11, true, 2000, -1);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(pathmon_dep_of(f, len, &m, &k, &d));
	assert_int_equal(d.bytes, 2000); /* SEND ONLY: no RETH */
	assert_true(pathmon_depart(&pm, &k, &d, 1 * MS));
	/* the ACK: 10.0.0.2 -> 10.0.0.1, to the requester's QP 0x777 */
	len = roce_frame(f, 2, 1, 0x11, 0x777, 11, false, 0, AETH_ACK);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(pathmon_ack_of(f, len, &m, 1100 * US, &ev));
	assert_int_equal(ev.type, PATHMON_EV_ROCE_ACK);
	assert_int_equal(ev.key.qpn, 0x777);
	assert_true(!memcmp(ev.key.src, k.src, 16));
	assert_true(!memcmp(ev.key.dst, k.dst, 16));
	assert_int_equal(ev.ack, 11);
	assert_int_equal(ev.syndrome, AETH_ACK);
	assert_int_equal(pathmon_ack(&pm, &ev, 1100 * US), 100 * US);
	/* an ACK whose UDP length leaves no room for the AETH: no event */
	wr16(f + 38, 8 + 12);
	wr16(f + 16, 20 + 8 + 12);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_false(pathmon_ack_of(f, len, &m, 0, &ev));
	/* cut in the frame: no event */
	len = roce_frame(f, 2, 1, 0x11, 0x777, 11, false, 0, AETH_ACK);
	wr16(f + 38, 8 + 12);
	wr16(f + 16, 20 + 8 + 12);
	assert_int_equal(pkt_parse(f, 14 + 20 + 8 + 12, &m), PKT_OK);
	assert_false(pathmon_ack_of(f, 14 + 20 + 8 + 12, &m, 0, &ev));
	/* a CNP */
	len = roce_frame(f, 2, 1, 0x81, 0x777, 0, false, 16, -1);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(pathmon_ack_of(f, len, &m, 0, &ev));
	assert_int_equal(ev.type, PATHMON_EV_CNP);
	assert_int_equal(pathmon_ack(&pm, &ev, 2 * MS), 0);
	assert_int_equal(ctr_read(&pm.st.cnps), 1);
	/* a READ request is state only; UD is not measured; an ACK does
	 * not leave as a departure */
	len = roce_frame(f, 1, 2, 0x0c, 0x1234, 12, true, 0, -1);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(pathmon_dep_of(f, len, &m, &k, &d));
	assert_true(d.flags & PATHMON_DF_NOSAMPLE);
	len = roce_frame(f, 1, 2, 0x64, 0x1234, 12, true, 100, -1);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_false(pathmon_dep_of(f, len, &m, &k, &d));
	len = roce_frame(f, 1, 2, 0x11, 0x1234, 12, false, 0, AETH_ACK);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_false(pathmon_dep_of(f, len, &m, &k, &d));
	pathmon_fini(&pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rtt_ts),
		cmocka_unit_test(test_rtt_ts_wrap),
		cmocka_unit_test(test_rtt_seq),
		cmocka_unit_test(test_karn),
		cmocka_unit_test(test_lost_acks),
		cmocka_unit_test(test_seq_wrap),
		cmocka_unit_test(test_rtt_roce),
		cmocka_unit_test(test_roce_wrap),
		cmocka_unit_test(test_roce_pairing),
		cmocka_unit_test(test_delivery_rate_tcp),
		cmocka_unit_test(test_delivery_rate_roce),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_marks_own_flows),
		cmocka_unit_test(test_marks_reverse_data),
		cmocka_unit_test(test_path_owner),
		cmocka_unit_test(test_min_rtt_window),
		cmocka_unit_test(test_exact_ring),
		cmocka_unit_test(test_srtt),
		cmocka_unit_test(test_standing_over_flows),
		cmocka_unit_test(test_standing_sparse_flows),
		cmocka_unit_test(test_table_bounded),
		cmocka_unit_test(test_table_roce_pairs_expire),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_pending_expiry),
		cmocka_unit_test(test_estimate_valid),
		cmocka_unit_test(test_long_rtt_ring),
		cmocka_unit_test(test_long_rtt_sample_after_now),
		cmocka_unit_test(test_gap_not_credited),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_helpers_tcp),
		cmocka_unit_test(test_helpers_roce),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_flowq.c - the DCQCN flows of one class against a fake clock: keys,
 * round robin, the rate gate (pacing at R_C, a CNP halving it, a worker's
 * service gap made up instead of standing as a backlog), the table
 * limit, idle expiry, CNPs from the wire in both key modes, learning the
 * sender's QPN from ACKs (exactly one candidate or nothing), hints by
 * prefix, the NP rule for our own marks, the reader's view, and the PFC
 * watchdog's flush (frames dropped, not sent).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "flowq.h"
#include "frame_meta.h"

#define US 1000ull
#define MS 1000000ull

static void cfg_init(struct qos_dcqcn *c, enum qos_flow_key key,
		     uint32_t max_flows)
{
	memset(c, 0, sizeof(*c));
	dcqcn_params_default(&c->par, DCQCN_PAPER, 1e9);
	c->key = key;
	c->max_flows = max_flows;
	c->flow_idle_ns = 10 * MS;
	c->cp_loop = true;
}

/* An IPv4/UDP 4791/BTH frame: 10.0.0.1 -> 10.0.0.<dst>, dest QP qpn. */
static uint32_t make_frame(uint8_t *f, uint8_t dst, uint32_t qpn, uint32_t psn,
			   uint32_t *meta)
{
	memset(f, 0, 128);
	memcpy(f, "\x02\x00\x00\x00\x00\x0b\x02\x00\x00\x00\x00\x0a", 12);
	f[12] = 0x08;
	f[14] = 0x45;
	f[23] = 17;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00", 7);
	f[33] = dst;
	f[34] = 0xc0;
	f[36] = 0x12;
	f[37] = 0xb7; /* 4791 */
	f[42] = 0x0a; /* WRITE ONLY */
	f[47] = (uint8_t)(qpn >> 16);
	f[48] = (uint8_t)(qpn >> 8);
	f[49] = (uint8_t)qpn;
	f[51] = (uint8_t)(psn >> 16);
	f[52] = (uint8_t)(psn >> 8);
	f[53] = (uint8_t)psn;
	*meta = frame_meta_pack(0, 2, 1, 14) |
		frame_meta_l4(14, 34, true, false);
	return 1000;
}

static uint32_t push(struct flowq *q, uint8_t dst, uint32_t qpn, uint32_t psn,
		     uint64_t addr, uint64_t now)
{
	static uint8_t f[128];
	struct frame_desc d;
	struct flowq_key k;

	d.addr = addr;
	d.len = make_frame(f, dst, qpn, psn, &d.meta);
	flowq_key_of(f, 128, d.meta, q->key_kind, &k);
	return flowq_push(q, &k, &d, f, now);
}

static void test_keys_and_round_robin(void **state)
{
	struct qos_dcqcn c;
	struct flowq q;
	struct flowq_entry e;
	uint32_t a, b, order[6];

	cfg_init(&c, QOS_FLOW_HOST, 16);
	assert_int_equal(flowq_init(&q, 64, &c, 1e9, 1, 0), 0);
	a = push(&q, 2, 100, 0, 1, 0);
	assert_int_equal(push(&q, 2, 200, 0, 2, 0), a); /* same host */
	assert_int_equal(push(&q, 2, 300, 0, 3, 0), a);
	b = push(&q, 3, 100, 0, 4, 0);
	assert_int_not_equal(a, b);
	assert_int_equal(q.n_flows, 2);
	/* one frame per turn: a b a a (b empty after one) */
	for (int i = 0; i < 4; i++) { /* 100 us apart: the gate is open */
		uint64_t now = 1000 * MS + (uint64_t)i * 100 * US;
		uint32_t fid = flowq_peek(&q, now);

		assert_int_not_equal(fid, FLOWQ_NONE);
		order[i] = fid;
		flowq_pop(&q, fid, now, &e);
	}
	assert_int_equal(order[0], a);
	assert_int_equal(order[1], b);
	assert_int_equal(order[2], a);
	assert_int_equal(order[3], a);
	assert_int_equal(flowq_peek(&q, 2000 * MS), FLOWQ_NONE);
	flowq_fini(&q);

	cfg_init(&c, QOS_FLOW_QP, 16);
	assert_int_equal(flowq_init(&q, 64, &c, 1e9, 1, 0), 0);
	a = push(&q, 2, 100, 0, 1, 0);
	assert_int_not_equal(push(&q, 2, 200, 0, 2, 0), a); /* other QP */
	assert_int_equal(push(&q, 2, 100, 1, 3, 0), a);
	assert_int_equal(q.n_flows, 2);
	flowq_fini(&q);
}

/* Backlogged at R_C = 1 Gbit/s, 1000-byte frames leave every 8 us; a CNP
 * halves R_C (paper: R_C (1 - 1/2)) and the gap doubles. */
static void test_rate_gate(void **state)
{
	struct qos_dcqcn c;
	struct flowq q;
	struct flowq_entry e;
	uint64_t now = 1 * MS, prev = 0;
	uint32_t fid;
	int sent = 0;

	cfg_init(&c, QOS_FLOW_HOST, 4);
	c.cp_loop = false;
	assert_int_equal(flowq_init(&q, 256, &c, 1e9, 1, 0), 0);
	for (int i = 0; i < 100; i++)
		push(&q, 2, 0, 0, (uint64_t)i, 0);
	/* poll every 1 us for 40 us: frames at 1ms, +8, +16, +24, +32 */
	for (; now <= 1 * MS + 40 * US; now += US) {
		while ((fid = flowq_peek(&q, now)) != FLOWQ_NONE) {
			flowq_pop(&q, fid, now, &e);
			if (sent++)
				assert_int_equal(now - prev, 8 * US);
			prev = now;
		}
	}
	assert_int_equal(sent, 6);
	fid = q.cursor;
	{
		/* what the RP holds at now, before the CNP (alpha may have
		 * decayed since the start, per the profile's rules) */
		struct dcqcn_rp rp = q.flows[fid].rp;
		uint64_t at;
		double want;

		while (dcqcn_rp_step(&rp, &q.par, now, &at) != DCQCN_EV_NONE)
			;
		want = rp.rc * (1 - rp.alpha / 2);
		assert_int_equal(
			flowq_cnp_from_wire(&q, 4,
					    (const uint8_t *)"\x0a\x00\x00\x02",
					    0, now),
			1);
		assert_true(q.flows[fid].rp.rc == want);
		/* the next frame: 1000 bytes at the new rate after the last */
		assert_int_equal(flowq_next_ns(&q, now),
				 prev + (uint64_t)(1000 * 8e9 / want));
		assert_true(want < 0.6e9);
	}
	assert_int_equal(ctr_read(&q.flows[fid].cnps_wire), 1);
	/* a CNP for a host without a flow is counted, nothing else */
	assert_int_equal(
		flowq_cnp_from_wire(&q, 4, (const uint8_t *)"\x0a\x00\x00\x09",
				    0, now),
		0);
	assert_int_equal(ctr_read(&q.st.cnp_unmatched), 1);
	flowq_fini(&q);
}

/* A sender at R_C = 1 Gbit/s (a 1000-byte frame every 8 us) and a worker
 * that polls every microsecond but is descheduled for 200 us once: the 25
 * frames that arrived meanwhile leave at the worker's pace until the flow
 * is back on its schedule, and the backlog drains to what it was before.
 * A gate that paced from when the worker sent each frame would keep the
 * 25 frames standing for as long as the sender sends at R_C. */
static void test_worker_gap_made_up(void **state)
{
	struct qos_dcqcn c;
	struct flowq q;
	struct flowq_entry e;
	uint64_t now, next_push = 1 * MS;
	uint32_t fid, before = 0, peak = 0;
	uint64_t i = 0;

	cfg_init(&c, QOS_FLOW_HOST, 4);
	c.cp_loop = false;
	assert_int_equal(flowq_init(&q, 1024, &c, 1e9, 1, 0), 0);
	for (now = 1 * MS; now <= 5 * MS; now += US) {
		while (next_push <= now) {
			push(&q, 2, 0, 0, i++ % 1000, next_push);
			next_push += 8 * US;
		}
		peak = MAX(peak, q.flows[0].packets);
		if (now >= 2 * MS && now < 2 * MS + 200 * US)
			continue; /* the worker is descheduled */
		while ((fid = flowq_peek(&q, now)) != FLOWQ_NONE)
			flowq_pop(&q, fid, now, &e);
		if (now == 2 * MS - US)
			before = q.flows[0].packets;
	}
	fid = 0; /* the only flow */
	assert_int_equal(q.n_flows, 1);
	assert_true(peak >= 25); /* the gap built the backlog */
	assert_true(before <= 1);
	print_message("backlog %u before the gap, %u at most, %u at the end\n",
		      before, peak, q.flows[fid].packets);
	/* 3 ms later it is gone: the flow is on schedule again */
	assert_true(q.flows[fid].packets <= before + 1);
	assert_true(flowq_vqueue(&q, now) <= 1000);
	flowq_fini(&q);
}

/* The CP's queue after a 480 us service gap of the worker, a sender at
 * R_C = 1 Gbit/s: 60 frames (60 KB, above the bench's Kmin) arrived while the
 * worker did not look; the first look finds them behind open gates, but
 * they are the gap's, not a queue downstream: flowq_vqueue() reads (about)
 * nothing. A flow waiting for a busy port (the worker looks every
 * microsecond) still counts in full. */
static void test_worker_gap_not_congestion(void **state)
{
	struct qos_dcqcn c;
	struct flowq q;
	struct flowq_entry e;
	uint64_t now, t, vq;
	uint32_t fid;
	uint64_t i = 0;

	cfg_init(&c, QOS_FLOW_HOST, 4);
	c.cp_loop = false;
	assert_int_equal(flowq_init(&q, 1024, &c, 1e9, 1, 0), 0);
	/* on schedule until 1 ms: a frame every 8 us, sent at once */
	for (now = 1 * MS; now < 2 * MS; now += 8 * US) {
		push(&q, 2, 0, 0, i++ % 1000, now);
		while ((fid = flowq_peek(&q, now)) != FLOWQ_NONE)
			flowq_pop(&q, fid, now, &e);
	}
	/* 480 us without a look */
	for (t = now; t < now + 480 * US; t += 8 * US)
		push(&q, 2, 0, 0, i++ % 1000, t);
	now += 480 * US;
	assert_int_not_equal(flowq_peek(&q, now), FLOWQ_NONE);
	vq = flowq_vqueue(&q, now);
	print_message("after the gap: %u frames queued, CP queue %llu bytes\n",
		      q.flows[0].packets, (unsigned long long)vq);
	assert_true(q.flows[0].packets >= 60);
	assert_true(vq <= 2000);
	flowq_fini(&q);

	/* a busy port: 64 frames queued, looked at every microsecond,
	 * one sent every 16 us (half of R_C) */
	assert_int_equal(flowq_init(&q, 1024, &c, 1e9, 1, 0), 0);
	for (i = 0; i < 64; i++)
		push(&q, 2, 0, 0, i, 1 * MS);
	for (now = 1 * MS; now < 2 * MS; now += US) {
		fid = flowq_peek(&q, now);
		if (fid != FLOWQ_NONE && now % (16 * US) == 0) {
			flowq_pop(&q, fid, now, &e);
			push(&q, 2, 0, 0, i++ % 1000, now);
		}
	}
	vq = flowq_vqueue(&q, now);
	print_message("busy port: CP queue %llu bytes\n",
		      (unsigned long long)vq);
	assert_true(vq >= 60 * 1000);
	flowq_fini(&q);
}

/* Four flows on schedule, then 480 us without a look: every flow's
 * backlog is the worker's own, not only that of the flow whose turn it
 * is when the worker looks again (the search for a sendable flow stops
 * at the first one). */
static void test_worker_gap_every_flow(void **state)
{
	struct qos_dcqcn c;
	struct flowq q;
	struct flowq_entry e;
	uint64_t now, t, vq, i = 0;
	uint32_t fid, queued = 0;

	cfg_init(&c, QOS_FLOW_HOST, 8);
	c.cp_loop = false;
	assert_int_equal(flowq_init(&q, 2048, &c, 1e9, 1, 0), 0);
	for (now = 1 * MS; now < 2 * MS; now += 8 * US) {
		for (uint8_t d = 2; d < 6; d++)
			push(&q, d, 0, 0, i++ % 2000, now);
		while ((fid = flowq_peek(&q, now)) != FLOWQ_NONE)
			flowq_pop(&q, fid, now, &e);
	}
	for (t = now; t < now + 480 * US; t += 8 * US)
		for (uint8_t d = 2; d < 6; d++)
			push(&q, d, 0, 0, i++ % 2000, t);
	now += 480 * US;
	assert_int_not_equal(flowq_peek(&q, now), FLOWQ_NONE);
	vq = flowq_vqueue(&q, now);
	for (uint32_t f = 0; f < 4; f++)
		queued += q.flows[f].packets;
	print_message("after the gap: %u frames queued in 4 flows, CP queue "
		      "%llu bytes\n",
		      queued, (unsigned long long)vq);
	assert_true(queued >= 240);
	assert_true(vq <= 4 * 2000);
	flowq_fini(&q);
}

/* A flow at line rate (never cut) behind a port that a lower class holds
 * for 600 us: the worker looks every microsecond (no credit), the sender
 * keeps sending at line rate. The RP limits nothing at line rate, so the
 * 75 frames that waited (more than FLOWQ_CATCHUP_BYTES) leave as soon as
 * the port is free; a gate at R_C = line that lost the time, or made up
 * only part of it, would keep the rest standing as long as the sender
 * sends. */
static void test_line_rate_makes_up_port(void **state)
{
	struct qos_dcqcn c;
	struct flowq q;
	struct flowq_entry e;
	uint64_t now, next_push = 1 * MS;
	uint32_t fid, peak = 0;
	uint64_t i = 0;

	cfg_init(&c, QOS_FLOW_HOST, 4);
	c.cp_loop = false;
	assert_int_equal(flowq_init(&q, 1024, &c, 1e9, 1, 0), 0);
	for (now = 1 * MS; now <= 4 * MS; now += US) {
		while (next_push <= now) {
			push(&q, 2, 0, 0, i++ % 1000, next_push);
			next_push += 8 * US;
		}
		fid = flowq_peek(&q, now); /* the worker looks */
		peak = MAX(peak, q.flows[0].packets);
		if (now >= 2 * MS && now < 2 * MS + 600 * US)
			continue; /* the port is busy */
		for (; fid != FLOWQ_NONE; fid = flowq_peek(&q, now))
			flowq_pop(&q, fid, now, &e);
	}
	print_message("at most %u frames, %u at the end\n", peak,
		      q.flows[0].packets);
	assert_true(peak >= 75);
	assert_true(q.flows[0].packets <= 1);
	flowq_fini(&q);
}

static void test_table_full_and_expiry(void **state)
{
	struct qos_dcqcn c;
	struct flowq q;
	struct flowq_entry e;
	uint32_t fid;

	cfg_init(&c, QOS_FLOW_HOST, 2);
	assert_int_equal(flowq_init(&q, 16, &c, 1e9, 1, 0), 0);
	assert_int_not_equal(push(&q, 2, 0, 0, 1, 0), FLOWQ_NONE);
	assert_int_not_equal(push(&q, 3, 0, 0, 2, 0), FLOWQ_NONE);
	assert_int_equal(push(&q, 4, 0, 0, 3, 0), FLOWQ_NONE);
	assert_int_equal(ctr_read(&q.st.table_full), 1);
	while ((fid = flowq_peek(&q, MS)) != FLOWQ_NONE)
		flowq_pop(&q, fid, MS, &e);
	flowq_expire(&q, 5 * MS); /* idle 4 ms < 10 ms: kept */
	assert_int_equal(q.n_flows, 2);
	flowq_expire(&q, 12 * MS);
	assert_int_equal(q.n_flows, 0);
	assert_int_equal(ctr_read(&q.st.flows_expired), 2);
	/* slots and index entries are reusable */
	assert_int_not_equal(push(&q, 4, 0, 0, 3, 13 * MS), FLOWQ_NONE);
	assert_int_not_equal(push(&q, 5, 0, 0, 4, 13 * MS), FLOWQ_NONE);
	assert_int_equal(q.n_flows, 2);
	flowq_fini(&q);
}

/* ACK from 10.0.0.2 for PSN p with sender QP 77: learned only when exactly
 * one flow towards 10.0.0.2 sent p recently; then a CNP to QP 77 finds it. */
static void test_qpn_learning(void **state)
{
	const uint8_t *h2 = (const uint8_t *)"\x0a\x00\x00\x02";
	struct qos_dcqcn c;
	struct flowq q;
	struct flowq_view v;
	uint32_t a, b;

	cfg_init(&c, QOS_FLOW_QP, 8);
	c.np = true;
	assert_int_equal(flowq_init(&q, 64, &c, 1e9, 1, 0), 0);
	a = push(&q, 2, 100, 5000, 1, 0);
	b = push(&q, 2, 200, 50000, 2, 0);
	flowq_ack(&q, 4, h2, 77, 20000); /* no flow sent PSN 20000 */
	assert_int_equal(ctr_read(&q.st.qpn_unmatched), 1);
	flowq_ack(&q, 4, h2, 77, 4990); /* only flow a: 4990 <= 5000 */
	assert_int_equal(ctr_read(&q.st.qpn_learned), 1);
	assert_true(flowq_view(&q, a, &v));
	assert_true(v.qpn_known);
	assert_int_equal(v.sender_qpn, 77);
	assert_true(flowq_view(&q, b, &v));
	assert_false(v.qpn_known);
	/* both windows hold 8000: ambiguous, nothing learned */
	push(&q, 2, 100, 9500, 3, 0);
	push(&q, 2, 200, 9000, 4, 0);
	flowq_ack(&q, 4, h2, 88, 8000);
	assert_int_equal(ctr_read(&q.st.qpn_ambiguous), 1);
	/* CNPs address the sender's QP */
	assert_int_equal(flowq_cnp_from_wire(&q, 4, h2, 77, 10), 1);
	assert_int_equal(ctr_read(&q.flows[a].cnps_wire), 1);
	assert_int_equal(flowq_cnp_from_wire(&q, 4, h2, 88, 10), 0);
	flowq_fini(&q);
}

/* Our own marks: the NP rule (at most one per cnp_interval, deferred
 * once) decides; with cp_loop the RP takes it, with np it is due for the
 * wire -- but only once the sender's QPN is known. */
static void test_marks_np_rule(void **state)
{
	const uint8_t *h2 = (const uint8_t *)"\x0a\x00\x00\x02";
	struct qos_dcqcn c;
	struct flowq q;
	uint32_t a;

	cfg_init(&c, QOS_FLOW_QP, 8);
	c.np = true;
	assert_int_equal(flowq_init(&q, 64, &c, 1e9, 1, 0), 0);
	a = push(&q, 2, 100, 5000, 1, 0);
	flowq_marked(&q, a, 100 * US); /* first: CNP now */
	assert_int_equal(ctr_read(&q.flows[a].cnps_internal), 1);
	assert_int_equal(ctr_read(&q.st.np_qpn_unknown), 1);
	assert_int_equal(q.n_np_due, 0);
	flowq_ack(&q, 4, h2, 77, 5000);
	flowq_marked(&q, a, 110 * US); /* inside the window: deferred */
	flowq_marked(&q, a, 120 * US);
	assert_int_equal(ctr_read(&q.flows[a].cnps_internal), 1);
	flowq_np_poll(&q, 149 * US);
	assert_int_equal(q.n_np_due, 0);
	flowq_np_poll(&q, 150 * US); /* window end: one CNP for both */
	assert_int_equal(ctr_read(&q.flows[a].cnps_internal), 2);
	assert_int_equal(q.n_np_due, 1);
	assert_int_equal(q.np_due[0], a);
	flowq_fini(&q);
}

static void test_hint_prefix(void **state)
{
	struct qos_dcqcn c;
	struct flowq q;
	uint32_t a, b;

	cfg_init(&c, QOS_FLOW_HOST, 8);
	assert_int_equal(flowq_init(&q, 64, &c, 1e9, 1, 0), 0);
	a = push(&q, 2, 0, 0, 1, 0);
	b = push(&q, 130, 0, 0, 2, 0);
	/* 10.0.0.128/25 holds .130, not .2 */
	assert_int_equal(flowq_hint(&q, 4, (const uint8_t *)"\x0a\x00\x00\x80",
				    25, QOS_PROB_ONE, 10),
			 1);
	assert_int_equal(ctr_read(&q.flows[b].cnps_hint), 1);
	assert_int_equal(ctr_read(&q.flows[a].cnps_hint), 0);
	assert_true(q.flows[b].rp.rc == 0.5e9);
	/* severity 0: nobody */
	assert_int_equal(flowq_hint(&q, 4, (const uint8_t *)"\x00\x00\x00\x00",
				    0, 0, 20),
			 0);
	flowq_fini(&q);
}

static uint64_t flushed_mask;

static void flushed(const struct frame_desc *d, void *arg)
{
	assert_true(d->addr < 64);
	assert_false(flushed_mask >> d->addr & 1); /* once */
	flushed_mask |= 1ull << d->addr;
	(*(uint32_t *)arg)++;
}

/* The flush empties every flow and hands each frame back once, nothing
 * counted as sent: rate gates and counters stay, the flows stay in the
 * table (idle from the flush), the whole pool is free again. */
static void test_flush(void **state)
{
	struct qos_dcqcn c;
	struct flowq q;
	struct flowq_entry e;
	struct flowq_view v;
	uint64_t bytes = 1, gate;
	uint32_t a, calls = 0;

	cfg_init(&c, QOS_FLOW_HOST, 16);
	assert_int_equal(flowq_init(&q, 8, &c, 1e9, 1, 0), 0);
	a = push(&q, 2, 100, 0, 1, 0);
	push(&q, 2, 100, 1, 2, 0);
	push(&q, 2, 100, 2, 3, 0);
	push(&q, 3, 100, 0, 4, 0);
	push(&q, 3, 100, 1, 5, 0);
	push(&q, 4, 100, 0, 6, 0);
	assert_int_equal(flowq_peek(&q, 1 * MS), a);
	flowq_pop(&q, a, 1 * MS, &e);
	assert_int_equal(e.d.addr, 1);
	gate = q.flows[a].next_tx_ns;
	flushed_mask = 0;
	assert_int_equal(flowq_flush(&q, 2 * MS, flushed, &calls, &bytes), 5);
	assert_int_equal(calls, 5);
	assert_int_equal(bytes, 5 * 1000);
	assert_int_equal(flushed_mask, 0x7cull); /* frames 2..6 */
	assert_int_equal(q.n_active, 0);
	assert_int_equal(q.cursor, FLOWQ_NONE);
	assert_int_equal(q.n_flows, 3);
	assert_int_equal(flowq_census(&q, &bytes), 0);
	assert_int_equal(bytes, 0);
	assert_int_equal(flowq_peek(&q, 3 * MS), FLOWQ_NONE);
	assert_int_equal(flowq_next_ns(&q, 3 * MS), UINT64_MAX);
	assert_true(flowq_view(&q, a, &v));
	assert_int_equal(v.queued_packets, 0);
	assert_int_equal(v.sent_packets, 1); /* only the frame popped */
	assert_int_equal(q.flows[a].next_tx_ns, gate);
	assert_int_equal(q.flows[a].idle_since_ns, 2 * MS);
	/* nothing left: a second flush is a no-op */
	assert_int_equal(flowq_flush(&q, 2 * MS, flushed, &calls, &bytes), 0);
	assert_int_equal(calls, 5);
	/* idle since the flush (10 ms idle time): kept at 7 ms */
	flowq_expire(&q, 7 * MS);
	assert_int_equal(q.n_flows, 3);
	/* the whole pool (8) is free again */
	for (uint32_t i = 0; i < 8; i++)
		assert_int_not_equal(push(&q, (uint8_t)(2 + i % 2), 100, 10 + i,
					  10 + i, 8 * MS),
				     FLOWQ_NONE);
	assert_int_equal(flowq_census(&q, &bytes), 8);
	assert_int_equal(bytes, 8 * 1000);
	assert_int_equal(q.n_active, 2);
	flowq_fini(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_and_round_robin),
		cmocka_unit_test(test_rate_gate),
		cmocka_unit_test(test_worker_gap_made_up),
		cmocka_unit_test(test_worker_gap_not_congestion),
		cmocka_unit_test(test_worker_gap_every_flow),
		cmocka_unit_test(test_line_rate_makes_up_port),
		cmocka_unit_test(test_table_full_and_expiry),
		cmocka_unit_test(test_qpn_learning),
		cmocka_unit_test(test_marks_np_rule),
		cmocka_unit_test(test_hint_prefix),
		cmocka_unit_test(test_flush),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_sched_dcqcn.c - a DCQCN class inside the egress scheduler, on a
 * fake clock: frames go to per-flow queues served round robin; a flow's
 * DCQCN rate gates it (a CNP to one flow moves the shares towards the
 * other); the CP marks on the backlog of flows whose gate is open, not on
 * what the gates hold back; with the gateway's NP on, its marks leave the
 * frame ECT (one CNP per mark); a reload keeps the flows and their rates;
 * a reload that would add or drop a DCQCN class is refused; the census
 * walk sees every frame.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "tc_sched.h"

#define US 1000ull
#define MS 1000000ull
#define FRAME 1000u
#define NFRAMES 4096

static uint8_t umem[NFRAMES][128];

static void policy(struct qos_policy *p, bool ecn)
{
	struct qos_class *c;

	memset(p, 0, sizeof(*p));
	p->port[0].rate_bps = 1000000000; /* 1 Gbit/s shaper */
	p->port[0].burst = 2000;
	p->port[1] = p->port[0];
	dcqcn_params_default(&p->dcqcn.par, DCQCN_PAPER, 1e9);
	p->dcqcn.par.ai_bps = 5e6; /* slow recovery: visible in 1 ms */
	p->dcqcn.par.hai_bps = 10e6;
	p->dcqcn.key = QOS_FLOW_HOST;
	p->dcqcn.max_flows = 16;
	p->dcqcn.flow_idle_ns = 100 * MS;
	p->n_classes = 2;
	c = &p->classes[0];
	snprintf(c->name, sizeof(c->name), "roce");
	c->quantum = 1500;
	c->limit_packets = 2048;
	c->limit_bytes = 16u << 20;
	c->dcqcn = true;
	if (ecn) {
		c->ecn.enabled = true;
		c->ecn.kmin = 10000;
		c->ecn.kmax = 20000;
		c->ecn.pmax = QOS_PROB_ONE;
	}
	c = &p->classes[1];
	snprintf(c->name, sizeof(c->name), "default");
	c->level = 1;
	c->quantum = 1500;
	c->limit_packets = 2048;
	c->limit_bytes = 16u << 20;
}

static uint32_t next_frame;
static uint32_t queued[2]; /* frames of .2 and .3 in the scheduler */

/* An ECT(0) IPv4/UDP frame to 10.0.0.<dst> in class 0, in our fake UMEM. */
static int enq(struct sched *s, uint8_t dst, uint64_t now)
{
	uint32_t i = next_frame++ % NFRAMES;
	uint8_t *f = umem[i];
	struct frame_desc d = {.addr = (uint64_t)i * 128, .len = FRAME};

	memset(f, 0, 128);
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = 0x02; /* ECT(0) */
	f[16] = 0x03;
	f[17] = 0xe8;
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00", 7);
	f[33] = dst;
	d.meta = frame_meta_pack(0, ECN_ECT0, ECN_L3_IPV4, 14) |
		 frame_meta_l4(14, 34, false, false);
	return sched_enqueue(s, &d, f, now);
}

static uint8_t dst_of(const struct frame_desc *d)
{
	return umem[d->addr / 128][33];
}

/* Keep both flows backlogged, poll every 1 us for dur; bytes per flow. */
static void run(struct sched *s, uint64_t *now, uint64_t dur, uint64_t *b2,
		uint64_t *b3, uint64_t *ce)
{
	struct frame_desc out[16];
	uint64_t end = *now + dur;

	*b2 = *b3 = *ce = 0;
	for (; *now < end; *now += US) {
		/* each flow keeps 32 frames queued */
		while (queued[0] < 32) {
			assert_int_equal(enq(s, 2, *now), 0);
			queued[0]++;
		}
		while (queued[1] < 32) {
			assert_int_equal(enq(s, 3, *now), 0);
			queued[1]++;
		}
		uint32_t n = sched_dequeue(s, out, 16, *now);

		for (uint32_t i = 0; i < n; i++) {
			bool two = dst_of(&out[i]) == 2;

			*(two ? b2 : b3) += out[i].len;
			queued[two ? 0 : 1]--;
			*ce += frame_meta_ecn(out[i].meta) == ECN_CE;
		}
	}
}

static void test_flows_share_and_cnp(void **state)
{
	struct qos_policy p;
	struct sched s;
	struct flowq *q;
	uint64_t now = 0, b2, b3, ce;

	policy(&p, false);
	queued[0] = queued[1] = 0;
	assert_int_equal(sched_init_reloadable(&s, &p, 0, NFRAMES, 0), 0);
	sched_set_frame_base(&s, &umem[0][0]);
	q = sched_slot_flowq(&s, s.slot_of[0]);
	assert_non_null(q);
	/* both at line rate, the 1 Gbit/s shaper shared round robin */
	run(&s, &now, 10 * MS, &b2, &b3, &ce);
	assert_int_equal(q->n_flows, 2);
	printf("  shares before: %.3f / %.3f Gbit/s\n", b2 * 8 / 1e7,
	       b3 * 8 / 1e7);
	assert_true(b2 > 0.45 * 1.25e6 && b3 > 0.45 * 1.25e6);
	/* cut .3 to 100 Mbit/s-ish: several CNPs */
	for (int i = 0; i < 5; i++)
		assert_int_equal(
			flowq_cnp_from_wire(q, 4,
					    (const uint8_t *)"\x0a\x00\x00\x03",
					    0, now),
			1);
	run(&s, &now, 1 * MS, &b2, &b3, &ce);
	printf("  1 ms after 5 CNPs to .3: %.3f / %.3f Gbit/s\n", b2 * 8 / 1e6,
	       b3 * 8 / 1e6);
	assert_true(b3 * 8 < 0.2 * b2 * 8); /* .3 gated well below .2 */
	assert_true((b2 + b3) * 8 > 0.9e6); /* the port stays busy */
	sched_fini(&s);
}

static void test_cp_marks_open_gates_only(void **state)
{
	struct qos_policy p;
	struct sched s;
	struct flowq *q;
	uint64_t now = 0, b2, b3, ce;

	policy(&p, true);
	queued[0] = queued[1] = 0;
	assert_int_equal(sched_init_reloadable(&s, &p, 0, NFRAMES, 0), 0);
	sched_set_frame_base(&s, &umem[0][0]);
	q = sched_slot_flowq(&s, s.slot_of[0]);
	/* line-rate flows into a 1 Gbit/s port: 64 frames queued, gates
	 * open: the CP queue is 64 KB > kmax, every frame marked once the
	 * queue has built (the first few are not) */
	run(&s, &now, 2 * MS, &b2, &b3, &ce);
	assert_true(ce * FRAME >= b2 + b3 - 8 * FRAME);
	/* both flows cut far below the port: gates hold the backlog back,
	 * the CP sees (almost) nothing and marks (almost) nothing */
	for (int i = 0; i < 6; i++) {
		flowq_cnp_from_wire(q, 4, (const uint8_t *)"\x0a\x00\x00\x02",
				    0, now);
		flowq_cnp_from_wire(q, 4, (const uint8_t *)"\x0a\x00\x00\x03",
				    0, now);
	}
	run(&s, &now, 1 * MS, &b2, &b3, &ce);
	printf("  gated: %llu frames sent, %llu marked\n",
	       (unsigned long long)((b2 + b3) / FRAME), (unsigned long long)ce);
	assert_true(b2 + b3 > 0);
	assert_true(ce * 10 <= (b2 + b3) / FRAME);
	sched_fini(&s);
}

/* An ECT(0) RoCE frame (UDP 4791, BTH, dest QP 100, psn) to 10.0.0.2. */
static int enq_roce(struct sched *s, uint32_t psn, uint64_t now)
{
	uint32_t i = next_frame++ % NFRAMES;
	uint8_t *f = umem[i];
	struct frame_desc d = {.addr = (uint64_t)i * 128, .len = FRAME};

	memset(f, 0, 128);
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = 0x02; /* ECT(0) */
	f[16] = 0x03;
	f[17] = 0xe8;
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	f[34] = 0xc0;
	f[36] = 0x12;
	f[37] = 0xb7; /* 4791 */
	f[42] = 0x0a; /* WRITE ONLY */
	f[49] = 100;
	f[51] = (uint8_t)(psn >> 16);
	f[52] = (uint8_t)(psn >> 8);
	f[53] = (uint8_t)psn;
	d.meta = frame_meta_pack(0, ECN_ECT0, ECN_L3_IPV4, 14) |
		 frame_meta_l4(14, 34, true, false);
	return sched_enqueue(s, &d, f, now);
}

/* The gateway's NP sends the CNPs for its own marks (np on, the sender's
 * QPN learned) and the receivers' CNPs are forwarded to the sender (cnp:
 * forward): one congestion notification per mark, so the frame leaves
 * ECT. Were it CE, the receiver's NIC would send a CNP for it too
 * and the sender would cut twice for one mark. */
static void test_np_mark_notifies_once(void **state)
{
	struct qos_policy p;
	struct sched s;
	struct flowq *q;
	struct frame_desc out[16];
	uint64_t now = 0, sent = 0, ce = 0, marks;
	uint32_t psn = 0;

	policy(&p, true);
	p.dcqcn.key = QOS_FLOW_QP;
	p.dcqcn.np = true;
	p.dcqcn.cnp_action = QOS_CNP_FORWARD;
	assert_int_equal(sched_init_reloadable(&s, &p, 0, NFRAMES, 0), 0);
	sched_set_frame_base(&s, &umem[0][0]);
	q = sched_slot_flowq(&s, s.slot_of[0]);
	for (; psn < 64; psn++)
		assert_int_equal(enq_roce(&s, psn, now), 0);
	/* the receiver's ACK teaches the sender's QPN */
	flowq_ack(q, 4, (const uint8_t *)"\x0a\x00\x00\x02", 555, psn - 1);
	assert_true(q->flows[0].peer.qpn_known);
	/* 64 KB behind open gates, far above Kmax: RED chooses every frame */
	for (now = US; now < 1 * MS; now += US) {
		uint32_t n = sched_dequeue(&s, out, 16, now);

		for (uint32_t i = 0; i < n; i++) {
			ce += frame_meta_ecn(out[i].meta) == ECN_CE;
			sent++;
			assert_int_equal(enq_roce(&s, psn++, now), 0);
		}
	}
	marks = ctr_read(&s.st[s.slot_of[0]].ecn_marks);
	printf("  %llu frames sent, %llu chosen, %llu left CE, %u CNPs due\n",
	       (unsigned long long)sent, (unsigned long long)marks,
	       (unsigned long long)ce, q->n_np_due);
	assert_true(marks > 0);
	assert_true(q->n_np_due > 0);
	assert_int_equal(ce, 0);
	sched_fini(&s);
}

static void census(const struct frame_desc *d, void *arg)
{
	(*(uint32_t *)arg)++;
}

static void test_reload_keeps_flows(void **state)
{
	struct qos_policy p, p2;
	struct sched s;
	struct flowq *q;
	uint64_t now = 0, b2, b3, ce;
	uint32_t seen = 0;

	policy(&p, false);
	queued[0] = queued[1] = 0;
	assert_int_equal(sched_init_reloadable(&s, &p, 0, NFRAMES, 0), 0);
	sched_set_frame_base(&s, &umem[0][0]);
	run(&s, &now, 1 * MS, &b2, &b3, &ce);
	q = sched_slot_flowq(&s, s.slot_of[0]);
	flowq_cnp_from_wire(q, 4, (const uint8_t *)"\x0a\x00\x00\x02", 0, now);
	/* reorder the classes, change DCQCN parameters: hot */
	p2 = p;
	p2.classes[0] = p.classes[1];
	p2.classes[1] = p.classes[0];
	/* (enq() puts new frames in class id 0: now "default", behind roce:
	 * both flows' frames keep moving) */
	p2.dcqcn.par.ai_bps *= 2;
	assert_int_equal(sched_reload_compatible(&p, &p2), 0);
	assert_int_equal(sched_reconfigure(&s, &p2, 0, now), 0);
	assert_ptr_equal(sched_slot_flowq(&s, s.slot_of[1]), q);
	assert_int_equal(q->n_flows, 2);
	assert_true(q->par.ai_bps == p2.dcqcn.par.ai_bps);
	sched_foreach(&s, census, &seen);
	assert_int_equal(seen, sched_backlog_packets(&s));
	assert_true(seen > 0);
	/* dropping DCQCN from roce, or max_flows, is not a hot change */
	p2.classes[1].dcqcn = false;
	assert_int_equal(sched_reload_compatible(&p, &p2), -EINVAL);
	assert_int_equal(sched_reconfigure(&s, &p2, 0, now), -EINVAL);
	p2 = p;
	p2.dcqcn.max_flows = 32;
	assert_int_equal(sched_reload_compatible(&p, &p2), -EINVAL);
	/* the scheduler still works after the refusals */
	run(&s, &now, 1 * MS, &b2, &b3, &ce);
	printf("  after the reloads: %llu / %llu bytes\n",
	       (unsigned long long)b2, (unsigned long long)b3);
	assert_true(b2 > 0 && b3 > 0);
	sched_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flows_share_and_cnp),
		cmocka_unit_test(test_cp_marks_open_gates_only),
		cmocka_unit_test(test_reload_keeps_flows),
		cmocka_unit_test(test_np_mark_notifies_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_sched_pfc.c - PFC in the egress scheduler, against a fake clock:
 * a PFC pause for priority 3 (pfc.h turns the frame into a deadline)
 * stops exactly the class with pcp 3 for exactly the time while the
 * others keep flowing, in the strict level above them too; quanta 0
 * resumes; a refresh extends; the next-event time is the deadline; the
 * watchdog flush drops the queued frames with their counter; a lossless
 * class over its limit counts lossless_overflow, not queue_bytes; the
 * flush also empties a lossless class that is a DCQCN class (the RoCE
 * default: its frames are in per-flow queues); a reload clears the pauses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "pfc.h"
#include "tc_sched.h"

#define G 1000000000ull

static uint64_t next_addr = 4096;

static void policy(struct qos_policy *p)
{
	memset(p, 0, sizeof(*p));
	/* unshaped ports: only the pause decides */
	for (int i = 0; i < 3; i++) {
		struct qos_class *c = &p->classes[p->n_classes++];

		snprintf(c->name, sizeof(c->name), "c%d", i);
		c->level = (uint8_t)i; /* strict: c0 first */
		c->quantum = 1500;
		c->limit_packets = 1000;
		c->limit_bytes = 1000 * 1500;
	}
	/* c0: lossless, pcp 3; c1: pcp 5; c2: no pcp */
	p->classes[0].lossless = true;
	p->classes[0].has_pcp = true;
	p->classes[0].pcp = 3;
	p->classes[1].has_pcp = true;
	p->classes[1].pcp = 5;
	p->default_class = 2;
	p->pfc.enabled = true;
}

static void enq(struct sched *s, unsigned int cls, uint32_t n, uint64_t now)
{
	for (uint32_t i = 0; i < n; i++) {
		struct frame_desc d = {
			.addr = next_addr++,
			.len = 1000,
			.meta = frame_meta_pack(cls, 0, 0, 0),
		};

		assert_int_equal(sched_enqueue(s, &d, NULL, now), 0);
	}
}

/* Dequeue everything allowed at now: frames per class. */
static void drain(struct sched *s, uint64_t now, uint32_t got[3])
{
	struct frame_desc out[64];
	uint32_t n;

	memset(got, 0, 3 * sizeof(got[0]));
	while ((n = sched_dequeue(s, out, 64, now)) > 0)
		for (uint32_t i = 0; i < n; i++)
			got[frame_meta_class(out[i].meta)]++;
}

/* The PFC state of the port feeding the scheduler, like the egress task. */
static void apply(struct sched *s, struct pfc_rx *rx, uint8_t vec,
		  uint16_t quanta, uint64_t now)
{
	struct pfc_frame f = {.vector = vec};
	uint8_t changed;

	for (int p = 0; p < PFC_PRIOS; p++)
		f.quanta[p] = (vec >> p & 1) ? quanta : 0;
	changed = pfc_rx_frame(rx, &f, now, NULL);
	for (unsigned int p = 0; p < PFC_PRIOS; p++)
		if (changed >> p & 1)
			sched_pause_pcp(s, p, pfc_rx_until(rx, p));
}

static void test_pause_exact_class_exact_time(void **state)
{
	const struct pfc_rx_cfg cfg = {.link_bps = 10 * G};
	struct qos_policy pol;
	struct sched s;
	struct pfc_rx rx;
	uint32_t got[3];
	uint64_t t0 = 1 * G, until;

	(void)state;
	policy(&pol);
	assert_int_equal(sched_init(&s, &pol, 0, 0), 0);
	pfc_rx_init(&rx, &cfg);
	/* priority 3 paused for 1000 quanta: 51.2 us at 10G */
	apply(&s, &rx, 0x08, 1000, t0);
	until = t0 + 51200;
	enq(&s, 0, 10, t0);
	enq(&s, 1, 10, t0);
	enq(&s, 2, 10, t0);
	drain(&s, t0, got);
	assert_int_equal(got[0], 0); /* the strict top class waits */
	assert_int_equal(got[1], 10); /* pcp 5 flows */
	assert_int_equal(got[2], 10); /* no pcp flows */
	assert_int_equal(sched_next_event_ns(&s, t0), until);
	enq(&s, 1, 5, t0 + 51199);
	drain(&s, t0 + 51199, got);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 5);
	drain(&s, until, got);
	assert_int_equal(got[0], 10); /* exactly at the deadline */
	sched_fini(&s);
}

static void test_xon_refresh_other_priority(void **state)
{
	const struct pfc_rx_cfg cfg = {.link_bps = 100 * G};
	struct qos_policy pol;
	struct sched s;
	struct pfc_rx rx;
	uint32_t got[3];
	uint64_t t = 5000;

	(void)state;
	policy(&pol);
	assert_int_equal(sched_init(&s, &pol, 0, 0), 0);
	pfc_rx_init(&rx, &cfg);
	apply(&s, &rx, 0x08, 0xffff, t); /* 335.54 us at 100G */
	enq(&s, 0, 4, t);
	drain(&s, t + 100000, got);
	assert_int_equal(got[0], 0);
	/* refresh at +300 us: now paused until +300 us + 335.54 us */
	apply(&s, &rx, 0x08, 0xffff, t + 300000);
	drain(&s, t + 400000, got);
	assert_int_equal(got[0], 0);
	assert_int_equal(sched_next_event_ns(&s, t + 400000),
			 t + 300000 + 335540);
	/* a PFC frame for priority 4 changes nothing for pcp 3 or 5 */
	apply(&s, &rx, 0x10, 0xffff, t + 400001);
	enq(&s, 1, 2, t + 400001);
	drain(&s, t + 400002, got);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 2);
	/* quanta 0: resumes now */
	apply(&s, &rx, 0x08, 0, t + 500000);
	drain(&s, t + 500000, got);
	assert_int_equal(got[0], 4);
	assert_int_equal(rx.ctr.paused_ns[3], 500000);
	sched_fini(&s);
}

static void give(const struct frame_desc *d, void *arg)
{
	(void)d;
	(*(uint32_t *)arg)++;
}

static void test_watchdog_flush_and_overflow(void **state)
{
	const struct pfc_rx_cfg cfg = {.link_bps = 10 * G,
				       .watchdog_ns = 200000000,
				       .restore_ns = 100000000};
	const struct sched_class_stats *st;
	struct qos_policy pol;
	struct sched s;
	struct pfc_rx rx;
	uint32_t got[3], given = 0;
	uint8_t storms = 0;
	uint64_t t;

	(void)state;
	policy(&pol);
	assert_int_equal(sched_init(&s, &pol, 0, 0), 0);
	pfc_rx_init(&rx, &cfg);
	for (t = 1000; t < 200000000; t += 1000000) /* every 1 ms */
		apply(&s, &rx, 0x08, 0xffff, t);
	enq(&s, 0, 7, t);
	drain(&s, t, got);
	assert_int_equal(got[0], 0);
	pfc_rx_tick(&rx, 200001000, &storms);
	assert_int_equal(storms, 0x08);
	sched_pause_pcp(&s, 3, pfc_rx_until(&rx, 3));
	assert_int_equal(sched_flush_pcp(&s, 3, 200001000, give, &given), 7);
	assert_int_equal(given, 7);
	st = sched_class_stats(&s, 0);
	assert_int_equal(st->drops[SCHED_DROP_PFC_WATCHDOG], 7);
	assert_int_equal(sched_depth_packets(st), 0);
	assert_int_equal(sched_backlog_packets(&s), 0);
	/* unpaused: new frames flow */
	enq(&s, 0, 3, 200002000);
	drain(&s, 200002000, got);
	assert_int_equal(got[0], 3);

	/* a lossless class over its limit: lossless_overflow */
	pol.classes[0].limit_bytes = 2000;
	sched_fini(&s);
	assert_int_equal(sched_init(&s, &pol, 0, 0), 0);
	enq(&s, 0, 2, 0);
	{
		struct frame_desc d = {.addr = 1, .len = 1000, .meta = 0};

		assert_int_equal(sched_enqueue(&s, &d, NULL, 0),
				 SCHED_DROP_LOSSLESS_OVERFLOW);
	}
	st = sched_class_stats(&s, 0);
	assert_int_equal(st->drops[SCHED_DROP_LOSSLESS_OVERFLOW], 1);
	assert_int_equal(st->drops[SCHED_DROP_QUEUE_BYTES], 0);
	sched_fini(&s);
}

/* Frames with bytes, for the flow keys of a DCQCN class. */
#define NF 64
static uint8_t fbuf[NF][128];
static uint8_t handed[NF]; /* times the flush gave frame i back */

/* Frame i of fbuf: IPv4/UDP to 10.0.0.<dst>, 1000 bytes, class cls. */
static int enq_ip(struct sched *s, uint32_t i, unsigned int cls, uint8_t dst,
		  uint64_t now)
{
	uint8_t *f = fbuf[i];
	struct frame_desc d = {.addr = (uint64_t)i * 128, .len = 1000};

	memset(f, 0, 128);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = 0x03;
	f[17] = 0xe8;
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00", 7);
	f[33] = dst;
	d.meta = frame_meta_pack(cls, 0, ECN_L3_IPV4, 14) |
		 frame_meta_l4(14, 34, false, false);
	return sched_enqueue(s, &d, f, now);
}

static void take_back(const struct frame_desc *d, void *arg)
{
	uint32_t i = (uint32_t)(d->addr / 128);

	assert_true(i < NF);
	handed[i]++;
	(*(uint32_t *)arg)++;
}

/* Defect 5: the watchdog flush skipped DCQCN classes, so a storming
 * lossless RoCE class (lossless + dcqcn + pcp 3) kept every frame. */
static void test_watchdog_flush_dcqcn_class(void **state)
{
	const struct sched_class_stats *st;
	struct frame_desc out[64];
	struct qos_policy pol;
	struct flowq_view v;
	struct flowq *q;
	struct sched s;
	uint32_t got[3], given = 0, seen = 0, n, sent0;
	uint64_t t0 = 1000000, t;
	bool out_early[NF] = {false};

	(void)state;
	policy(&pol);
	pol.classes[0].dcqcn = true; /* c0: lossless, pcp 3, and DCQCN */
	dcqcn_params_default(&pol.dcqcn.par, DCQCN_PAPER, 10e9);
	pol.dcqcn.key = QOS_FLOW_HOST;
	pol.dcqcn.max_flows = 16;
	pol.dcqcn.flow_idle_ns = 1000 * G; /* flows outlive the test */
	assert_int_equal(sched_init(&s, &pol, 0, 0), 0);
	q = sched_slot_flowq(&s, s.slot_of[0]);
	assert_non_null(q);
	memset(handed, 0, sizeof(handed));
	/* 20 frames in 4 flows (10.0.0.2 .. .5, interleaved), 3 in c1 */
	for (uint32_t i = 0; i < 20; i++)
		assert_int_equal(enq_ip(&s, i, 0, (uint8_t)(2 + i % 4), t0), 0);
	for (uint32_t i = 20; i < 23; i++)
		assert_int_equal(enq_ip(&s, i, 1, 9, t0), 0);
	assert_int_equal(q->n_flows, 4);
	/* two leave first (one per flow at line rate): the flows' turn is
	 * in the middle of the ring when the storm hits */
	assert_int_equal(sched_dequeue(&s, out, 2, t0), 2);
	for (uint32_t k = 0; k < 2; k++) {
		assert_int_equal(frame_meta_class(out[k].meta), 0);
		out_early[out[k].addr / 128] = true;
	}
	sched_pause_pcp(&s, 3, t0 + G);

	n = sched_flush_pcp(&s, 3, t0 + G, take_back, &given);
	assert_int_equal(n, 18);
	assert_int_equal(given, 18);
	for (uint32_t i = 0; i < 23; i++)
		assert_int_equal(handed[i], i < 20 && !out_early[i] ? 1 : 0);
	st = sched_class_stats(&s, 0);
	assert_int_equal(sched_depth_packets(st), 0);
	assert_int_equal(sched_depth_bytes(st), 0);
	assert_int_equal(st->drops[SCHED_DROP_PFC_WATCHDOG], 18);
	assert_int_equal(st->flushed_packets, 18);
	assert_int_equal(st->flushed_bytes, 18 * 1000);
	assert_int_equal(st->sent_packets, 2);
	/* the other classes keep theirs: only c1's 3 frames are left */
	assert_int_equal(sched_backlog_packets(&s), 3);
	sched_foreach(&s, give, &seen);
	assert_int_equal(seen, 3);
	assert_int_equal(sched_depth_packets(sched_class_stats(&s, 1)), 3);
	/* the flows are empty and off the round robin, not forgotten */
	assert_int_equal(q->n_active, 0);
	assert_int_equal(q->cursor, FLOWQ_NONE);
	assert_int_equal(q->n_flows, 4);
	for (uint32_t f = 0; f < q->max_flows; f++)
		if (flowq_view(q, f, &v))
			assert_int_equal(v.queued_packets, 0);
	/* a second flush finds nothing */
	assert_int_equal(sched_flush_pcp(&s, 3, t0 + G, take_back, &given), 0);
	assert_int_equal(given, 18);
	sched_pause_pcp(&s, 3, 0);
	drain(&s, t0 + 1000, got);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 3);
	assert_int_equal(sched_backlog_packets(&s), 0);

	/* afterwards: an old flow and a new one queue and send normally */
	for (uint32_t i = 30; i < 36; i++)
		assert_int_equal(enq_ip(&s, i, 0, i < 33 ? 2 : 7, t0 + 2000),
				 0);
	assert_int_equal(q->n_flows, 5);
	assert_int_equal(sched_depth_packets(st), 6);
	sent0 = 0;
	for (t = t0 + 2000; sched_backlog_packets(&s) && t < t0 + 1000000;
	     t += 1000) {
		drain(&s, t, got);
		sent0 += got[0];
	}
	assert_int_equal(sent0, 6);
	assert_int_equal(sched_backlog_packets(&s), 0);
	assert_int_equal(sched_depth_packets(st), 0);
	assert_int_equal(sched_depth_bytes(st), 0);
	assert_int_equal(st->sent_packets, 8);
	assert_int_equal(st->drops[SCHED_DROP_PFC_WATCHDOG], 18);
	assert_int_equal(q->n_active, 0);
	for (uint32_t i = 30; i < 36; i++)
		assert_int_equal(handed[i], 0);
	sched_fini(&s);
}

static void test_reload_clears_pause(void **state)
{
	struct qos_policy pol;
	struct sched s;
	uint32_t got[3];

	(void)state;
	policy(&pol);
	assert_int_equal(sched_init_reloadable(&s, &pol, 0, 1024, 0), 0);
	assert_int_equal(sched_pause_pcp(&s, 3, 10 * G), 1u << 0);
	enq(&s, 0, 2, 0);
	drain(&s, 1000, got);
	assert_int_equal(got[0], 0);
	/* the same policy again: pauses cleared, frames kept */
	assert_int_equal(sched_reconfigure(&s, &pol, 0, 2000), 0);
	drain(&s, 2000, got);
	assert_int_equal(got[0], 2);
	/* pcp 5 is class 1's slot; unknown pcp: no slot */
	assert_int_equal(sched_pause_pcp(&s, 5, 10 * G), 1u << 1);
	assert_int_equal(sched_pause_pcp(&s, 7, 10 * G), 0);
	assert_int_equal(sched_pause_pcp(&s, 9, 10 * G), 0);
	sched_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pause_exact_class_exact_time),
		cmocka_unit_test(test_xon_refresh_other_priority),
		cmocka_unit_test(test_watchdog_flush_and_overflow),
		cmocka_unit_test(test_watchdog_flush_dcqcn_class),
		cmocka_unit_test(test_reload_clears_pause),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

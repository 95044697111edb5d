// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_adaptive_events.c - the path events of adaptive egress: frames
 * that leave through the scheduler's departures and ACKs that the RX task
 * turns into events reach the owning egress task's monitor, and what the
 * wire carries is measured as the shaper charges it (the simulation of
 * test_adaptive.h).
 */
#include "test_adaptive.h"

/* A frame of m's leaves the gateway (through its scheduler's
 * departures: adaptive_departures). */
static void depart(struct sim *m, const uint8_t *frame, uint32_t len)
{
	uint32_t slot = m->next_slot++ % NFRAMES;
	uint8_t *f = m->mem + (size_t)slot * 2048;
	struct frame_desc d;
	struct pkt_meta pm;

	memcpy(f, frame, len);
	assert_int_equal(pkt_parse(f, len, &pm), 0);
	d.addr = (uint64_t)slot * 2048;
	d.len = len;
	d.meta = frame_meta_pack(0, pm.ecn, pm.l3, pm.l3_off) |
		 frame_meta_l4_of(&pm);
	adaptive_departures(&m->a, m->mem, &d, NULL, 1, m->now);
}

/* The RX task of port 1 and its UMEM (fake socket), posting path events
 * to two queues' monitors. */
struct rx_bed {
	struct umem_area umem;
	struct fake_socket sock;
	struct qos_policy pol;
	struct classifier cls;
	struct handoff_ring ho;
	struct return_ring ret;
	struct rx_task rx;
	struct path_owner owner;
};

/* One frame in through the RX task; the events each ring got. */
static void rx_frame(struct rx_bed *b, const uint8_t *f, uint32_t len,
		     struct sim *q0, struct sim *q1, uint32_t want0,
		     uint32_t want1)
{
	struct pathmon_ack ev[4];
	struct frame_desc d[4];

	assert_int_equal(fake_kernel_rx(&b->sock, &b->umem, f, len, 1), 1);
	rx_task_poll_at(&b->rx, q0->now);
	assert_int_equal(handoff_ring_dequeue(&b->ho, d, 4), 1);
	d[0].addr = umem_frame_start(&b->umem, d[0].addr);
	assert_int_equal(return_ring_enqueue(&b->ret, &d[0].addr, 1), 1);
	assert_int_equal(pathmon_ring_dequeue(&q0->ring, ev, 4), want0);
	if (want0)
		pathmon_ack(&q0->a.pm, &ev[0], q0->now);
	assert_int_equal(pathmon_ring_dequeue(&q1->ring, ev, 4), want1);
	if (want1)
		pathmon_ack(&q1->a.pm, &ev[0], q1->now);
}

/* Several queues: the port's RX task posts an event to the monitor of the
 * queue that sends its flow (the egress tasks record it as their flows
 * leave: path_owner.h), whatever queue it came in on. Queue 1 sends TCP
 * flow A, queue 0 flow B: A's ACKs (pure, or on data going the other
 * way) reach queue 1 alone, B's queue 0 alone; the data of a flow that
 * enters the port reaches no one (path_events_unowned), also when a
 * queue sends that flow's pure ACKs; RoCE between
 * two hosts reaches its one sender, both once both send to that host.
 * No monitor sees an event of a flow it does not have. */
static void test_events_to_owner(void **state)
{
	struct sim *q0 = sim_new(true, LINE_BPS), *q1 = sim_new(true, LINE_BPS);
	struct rx_bed *b = calloc(1, sizeof(*b));
	uint8_t f[2048];
	uint32_t len;

	(void)state;
	assert_non_null(b);
	assert_int_equal(umem_area_init_plain(&b->umem, 256, 2048, 1), 0);
	fake_socket_init(&b->sock, 0);
	policy(&b->pol, true);
	assert_int_equal(classifier_build(&b->cls, &b->pol), 0);
	assert_int_equal(handoff_ring_init(&b->ho, 64), 0);
	assert_int_equal(return_ring_init(&b->ret, 256), 0);
	assert_int_equal(rx_task_init(&b->rx, &b->sock.q, &b->umem, 0, &b->cls,
				      &b->ho, 32, 2048 - FAKE_HEADROOM),
			 0);
	rx_task_add_return(&b->rx, &b->ret);
	assert_int_equal(rx_task_add_path(&b->rx, &q0->ring, 1), 0);
	assert_int_equal(rx_task_add_path(&b->rx, &q1->ring, 1), 0);
	assert_int_equal(path_owner_init(&b->owner, 1024, 42), 0);
	rx_task_set_path_owner(&b->rx, &b->owner);
	adaptive_set_owner(&q0->a, &b->owner, 0);
	adaptive_set_owner(&q1->a, &b->owner, 1);
	rx_task_set_policy(&b->rx, &b->pol);
	assert_true(b->rx.path_on);
	rx_task_refill(&b->rx);

	/* flow A (10.0.0.1:40000 -> 10.0.0.2:5001) leaves by queue 1,
	 * flow B (:40002) by queue 0 */
	for (uint32_t i = 0; i < 2; i++) {
		len = tcp_frame(f, 1, 2, 40000, 5001, 1 + i * SEG, 1, 0x10, 0,
				0, SEG);
		depart(q1, f, len);
		len = tcp_frame(f, 1, 2, 40002, 5001, 1 + i * SEG, 1, 0x10, 0,
				0, SEG);
		depart(q0, f, len);
	}
	/* A's pure ACK */
	len = tcp_frame(f, 2, 1, 5001, 40000, 1, 1 + SEG, 0x10, 0, 0, 0);
	rx_frame(b, f, len, q0, q1, 0, 1);
	/* B's */
	len = tcp_frame(f, 2, 1, 5001, 40002, 1, 1 + SEG, 0x10, 0, 0, 0);
	rx_frame(b, f, len, q0, q1, 1, 0);
	/* A's ACK on a segment with data going the other way */
	len = tcp_frame(f, 2, 1, 5001, 40000, 1, 1 + 2 * SEG, 0x10, 0, 0, 500);
	rx_frame(b, f, len, q0, q1, 0, 1);
	/* the data of a flow that enters the port here: no one's */
	len = tcp_frame(f, 2, 1, 6000, 7000, 1, 1, 0x10, 0, 0, SEG);
	rx_frame(b, f, len, q0, q1, 0, 0);
	assert_int_equal(ctr_read(&b->rx.ctr.path_events_unowned), 1);
	assert_int_equal(ctr_read(&b->rx.ctr.path_events), 3);
	/* traffic both ways: queue 0 sends the pure ACKs of flow E, which
	 * enters the port here; E's data is no one's event */
	len = tcp_frame(f, 1, 2, 40004, 5001, 1, 1, 0x10, 0, 0, 0);
	depart(q0, f, len);
	len = tcp_frame(f, 2, 1, 5001, 40004, 1, 1, 0x10, 0, 0, SEG);
	rx_frame(b, f, len, q0, q1, 0, 0);
	assert_int_equal(ctr_read(&b->rx.ctr.path_events_unowned), 2);

	/* RoCE to host 3: queue 0 sends; then queue 1 to it as well */
	len = roce_frame(f, 1, 3, 0x04, 0x12, 100, true, 1000, -1);
	depart(q0, f, len);
	len = roce_frame(f, 3, 1, 0x11, 0x13, 100, false, 0, 0x1f);
	rx_frame(b, f, len, q0, q1, 1, 0);
	len = roce_frame(f, 1, 3, 0x04, 0x22, 5000, true, 1000, -1);
	depart(q1, f, len);
	len = roce_frame(f, 3, 1, 0x11, 0x13, 100, false, 0, 0x1f);
	rx_frame(b, f, len, q0, q1, 1, 1);

	/* each monitor: the TCP events it got were its own flows'; queue 1
	 * got the RoCE ACK of a QP of queue 0's (pairing tells) */
	assert_int_equal(ctr_read(&q0->a.pm.st.acks_seen), 3);
	assert_int_equal(ctr_read(&q1->a.pm.st.acks_seen), 3);
	assert_int_equal(ctr_read(&q0->a.pm.st.acks_unmatched), 0);
	assert_int_equal(ctr_read(&q1->a.pm.st.acks_unmatched), 1);

	rx_task_fini(&b->rx);
	handoff_ring_fini(&b->ho);
	return_ring_fini(&b->ret);
	path_owner_fini(&b->owner);
	umem_area_fini(&b->umem);
	free(b);
	sim_free(q1);
	sim_free(q0);
}

/* The wire / payload ratio divides what the shaper charged by the
 * payload the monitor's delivery rate can count: new data of the flows
 * it tracks. Each ms flow A sends 5 segments of new data and retransmits
 * 5, flow C (its table full: not tracked) sends 5: 15 frames for 5
 * payloads delivered, not 15. */
static void test_wire_ratio(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS);
	struct pathmon_params p;
	uint8_t f[2048];
	uint32_t len = 0, seq = 1, cseq = 1;
	double want;

	(void)state;
	pathmon_fini(&m->a.pm);
	pathmon_params_default(&p);
	p.max_flows = 2;
	assert_int_equal(pathmon_init(&m->a.pm, &p, m->now), 0);
	/* A and B fill the table */
	len = tcp_frame(f, 1, 2, 40001, 5001, 1, 1, 0x10, 0, 0, SEG);
	depart(m, f, len);
	len = tcp_frame(f, 1, 2, 40000, 5001, seq, 1, 0x10, 0, 0, SEG);
	depart(m, f, len);
	seq += SEG;
	for (uint32_t ms = 0; ms < 1000; ms++) {
		for (uint32_t i = 0; i < 5; i++, seq += SEG) {
			len = tcp_frame(f, 1, 2, 40000, 5001, seq, 1, 0x10, 0,
					0, SEG);
			depart(m, f, len);
		}
		for (uint32_t i = 0; i < 5; i++) {
			len = tcp_frame(f, 1, 2, 40000, 5001,
					seq - (5 - i) * SEG, 1, 0x10, 0, 0,
					SEG);
			depart(m, f, len);
		}
		for (uint32_t i = 0; i < 5; i++, cseq += SEG) {
			len = tcp_frame(f, 1, 2, 40002, 5001, cseq, 1, 0x10, 0,
					0, SEG);
			depart(m, f, len);
		}
		m->now += 1000000;
		adaptive_poll(&m->a, &m->s, m->now);
	}
	want = 15.0 * (len + m->a.overhead) / (5.0 * SEG);
	print_message("wire / payload %.3f (want %.3f)\n", m->a.wire_ratio,
		      want);
	assert_true(ctr_read(&m->a.pm.st.table_full) >= 5000);
	assert_near(m->a.wire_ratio, want, 0.01);
	sim_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_to_owner),
		cmocka_unit_test(test_wire_ratio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

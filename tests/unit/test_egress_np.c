// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_egress_np.c - the frames an egress task builds for the other port
 * (egress.h "NP"): RoCEv2 CNPs for the senders of its DCQCN flows and PFC
 * XOFF/XON frames for its lossless classes, on fake sockets (fake_xsk.h):
 *  - a CNP is classified by the egress task that takes it, under the
 *    policy generation that task runs, not the builder's (the two may run
 *    on different workers, at different generations during a reload);
 *  - a flow's cnps_sent counts only CNPs handed to the other port; a CNP
 *    that could not go is counted by reason;
 *  - PFC state is kept by priority: a reload that moves the lossless class
 *    to another scheduler slot sends no stray XON, and one that takes the
 *    priority out of PFC while its XOFF is outstanding sends the XON.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "egress.h"
#include "fake_xsk.h"
#include "pfc.h"
#include "roce.h"
#include "rx_task.h"
#include "mono_clock.h"

#define FRAME 2048
#define PART 512
#define MAX_LEN (FRAME - FAKE_HEADROOM)
#define DATA_LEN 1000

/*
 * rx (port A, partition 0) -> ho -> eg (egress port 1): the task under
 * test, which builds frames for port 0 in rx's frames and hands them
 * through np (consumed by peer, the egress task of port 0, or read by the
 * test itself), returned through np_ret.
 */
struct bed {
	struct umem_area umem;
	struct qos_policy pol, peer_pol;
	struct classifier cls, peer_cls;
	struct fake_socket a, b, pb;
	struct handoff_ring ho, np;
	struct return_ring ret, np_ret;
	struct rx_task rx;
	struct egress_task eg, peer;
	uint8_t frame[DATA_LEN];
};

static void add_class(struct qos_policy *p, const char *name, uint8_t level)
{
	struct qos_class *c = &p->classes[p->n_classes++];

	snprintf(c->name, QOS_NAME_MAX, "%s", name);
	c->level = level;
	c->quantum = 9000;
	c->limit_packets = 1024;
	c->limit_bytes = 1 << 22;
}

/* RoCEv2 rules: CNPs to class cnp, other RoCE to class roce. */
static void add_roce_rules(struct qos_policy *p, uint8_t cnp, uint8_t roce)
{
	struct qos_rule *r = &p->rules[p->n_rules++];

	r->fields = QOS_M_PROTO | QOS_M_DPORT | QOS_M_BTH_OPCODE;
	r->proto = 17;
	r->dport_lo = r->dport_hi = 4791;
	r->bth_opcode = BTH_OP_CNP;
	r->class_id = cnp;
	r = &p->rules[p->n_rules++];
	r->fields = QOS_M_PROTO | QOS_M_DPORT;
	r->proto = 17;
	r->dport_lo = r->dport_hi = 4791;
	r->class_id = roce;
}

/* The builder's generation: cnp (0), roce with DCQCN and NP (1),
 * default (2). */
static void policy_builder(struct qos_policy *p)
{
	memset(p, 0, sizeof(*p));
	add_class(p, "cnp", 0);
	add_class(p, "roce", 1);
	add_class(p, "default", 2);
	p->classes[1].dcqcn = true;
	p->default_class = 2;
	add_roce_rules(p, 0, 1);
	dcqcn_params_default(&p->dcqcn.par, DCQCN_PAPER, 1e9);
	p->dcqcn.key = QOS_FLOW_QP;
	p->dcqcn.max_flows = 16;
	p->dcqcn.flow_idle_ns = 1000000000ull;
	p->dcqcn.np = true;
	p->dcqcn.np_dscp = 48;
}

/* The taker's next generation: the same classes in another order, so
 * that class id 0 (the builder's cnp) is default here. */
static void policy_taker(struct qos_policy *p)
{
	memset(p, 0, sizeof(*p));
	add_class(p, "default", 2);
	add_class(p, "roce", 1);
	add_class(p, "cnp", 0);
	p->default_class = 0;
	add_roce_rules(p, 2, 1);
}

/* A RoCEv2 RC SEND to 10.0.0.2 QP 0x12, PSN psn, from 10.0.0.1. */
static void roce_frame(uint8_t *f, uint32_t psn)
{
	memset(f, 0, DATA_LEN);
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = 0x02; /* ECT(0) */
	f[16] = (DATA_LEN - 14) >> 8;
	f[17] = (DATA_LEN - 14) & 0xff;
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	f[34] = 0xc0; /* UDP source port 49152 */
	f[36] = 4791 >> 8;
	f[37] = 4791 & 0xff;
	f[38] = (DATA_LEN - 34) >> 8;
	f[39] = (DATA_LEN - 34) & 0xff;
	bth_write(f + 42, 0x04, 0xffff, 0x12, psn, 0);
}

static struct bed *bed_new(void (*pol)(struct qos_policy *))
{
	struct bed *b = NULL;

	assert_int_equal(posix_memalign((void **)&b, 64, sizeof(*b)), 0);
	memset(b, 0, sizeof(*b));
	assert_int_equal(umem_area_init_plain(&b->umem, 2 * PART, FRAME, 2), 0);
	pol(&b->pol);
	assert_int_equal(classifier_build(&b->cls, &b->pol), 0);
	fake_socket_init(&b->a, 0);
	fake_socket_init(&b->b, 0);
	fake_socket_init(&b->pb, 0);
	assert_int_equal(handoff_ring_init(&b->ho, 256), 0);
	assert_int_equal(handoff_ring_init(&b->np, 4), 0);
	assert_int_equal(return_ring_init(&b->ret, PART), 0);
	assert_int_equal(return_ring_init(&b->np_ret, PART), 0);
	assert_int_equal(rx_task_init(&b->rx, &b->a.q, &b->umem, 0, &b->cls,
				      &b->ho, 32, MAX_LEN),
			 0);
	rx_task_add_return(&b->rx, &b->ret);
	rx_task_add_return(&b->rx, &b->np_ret);
	assert_int_equal(egress_task_init(&b->eg, &b->b.q, &b->umem, 32,
					  &b->pol, 1, PART),
			 0);
	b->eg.copy_mode = false;
	b->eg.cls = &b->cls;
	b->eg.dcq = &b->pol.dcqcn;
	b->eg.np_pool = &b->rx.pool;
	b->eg.np_out = &b->np;
	memcpy(b->eg.pfc_mac, "\x02\x00\x00\x00\x00\x0f", 6);
	assert_int_equal(egress_task_add_input(&b->eg, &b->ho, 0, &b->ret), 0);
	sched_set_frame_base(&b->eg.sched, b->umem.base);
	rx_task_refill(&b->rx);
	return b;
}

static void bed_free(struct bed *b)
{
	rx_task_fini(&b->rx);
	egress_task_fini(&b->eg);
	if (b->peer.sched.n_slots)
		egress_task_fini(&b->peer);
	handoff_ring_fini(&b->ho);
	handoff_ring_fini(&b->np);
	return_ring_fini(&b->ret);
	return_ring_fini(&b->np_ret);
	umem_area_fini(&b->umem);
	free(b);
}

/* n frames of f through rx into eg's scheduler. */
static void receive(struct bed *b, const uint8_t *f, uint32_t len, uint32_t n)
{
	assert_int_equal(fake_kernel_rx(&b->a, &b->umem, f, len, n), n);
	rx_task_poll(&b->rx);
}

/* The one flow of the DCQCN class of eg, with its sender's QPN learned
 * from an RC ACK; a CE mark then makes a CNP due. */
static struct flowq *flow_with_cnp_due(struct bed *b)
{
	unsigned int slot = b->eg.sched.slot_of[1];
	struct flowq *q = sched_slot_flowq(&b->eg.sched, slot);
	uint32_t fid = FLOWQ_NONE;

	roce_frame(b->frame, 100);
	receive(b, b->frame, DATA_LEN, 1);
	egress_task_poll(&b->eg); /* into the class (the flow), sent */
	assert_non_null(q);
	for (uint32_t i = 0; i < q->max_flows; i++)
		if (q->flows[i].in_use)
			fid = i;
	assert_int_not_equal(fid, FLOWQ_NONE);
	flowq_ack(q, 4, (const uint8_t *)"\x0a\x00\x00\x02", 0x77, 100);
	assert_true(q->flows[fid].peer.qpn_known);
	flowq_marked(q, fid, mono_ns());
	assert_int_equal(q->n_np_due, 1);
	return q;
}

/* The CNP eg builds meets the taker's generation: it lands in the taker's
 * class cnp (id 2 there), not in the class the builder's id 0 names
 * there (default). */
static void test_cnp_classified_by_taker(void **state)
{
	struct bed *b = bed_new(policy_builder);
	const struct sched_class_stats *cnp, *def;
	struct flowq *q;

	policy_taker(&b->peer_pol);
	assert_int_equal(classifier_build(&b->peer_cls, &b->peer_pol), 0);
	assert_int_equal(egress_task_init(&b->peer, &b->pb.q, &b->umem, 32,
					  &b->peer_pol, 0, PART),
			 0);
	b->peer.copy_mode = false;
	b->peer.cls = &b->peer_cls;
	assert_int_equal(egress_task_add_input(&b->peer, &b->np, 0, &b->np_ret),
			 0);
	q = flow_with_cnp_due(b);
	egress_task_poll(&b->eg);
	assert_int_equal(ctr_read(&b->eg.ctr.np_cnps), 1);
	assert_int_equal(ctr_read(&q->flows[0].cnps_sent) +
				 ctr_read(&q->flows[1].cnps_sent),
			 1);
	assert_int_equal(handoff_ring_count(&b->np), 1);
	egress_task_poll(&b->peer);
	cnp = sched_class_stats(&b->peer.sched, 2);
	def = sched_class_stats(&b->peer.sched, 0);
	assert_int_equal(ctr_read(&cnp->enq_packets), 1);
	assert_int_equal(ctr_read(&def->enq_packets), 0);
	assert_int_equal(ctr_read(&b->peer.sched.bad_class), 0);
	/* it leaves port 0 as a valid CNP */
	assert_int_equal(fake_kernel_tx(&b->pb, NULL, 0), 1);
	bed_free(b);
}

/* The ring to the other port is full: the CNP is not sent, the flow's
 * cnps_sent stays 0 and np_out_full says why; once there is room, the
 * next CNP counts. */
static void test_cnps_sent_only_when_handed_over(void **state)
{
	struct bed *b = bed_new(policy_builder);
	struct frame_desc fill[4];
	struct flowq *q;
	uint32_t fid = 0, home;

	q = flow_with_cnp_due(b);
	for (uint32_t i = 0; i < 4; i++) {
		fill[i].addr = b->rx.pool.addrs[--b->rx.pool.count];
		fill[i].len = 60;
		fill[i].meta = FRAME_META_CTRL;
	}
	assert_int_equal(handoff_ring_enqueue(&b->np, fill, 4), 4);
	home = b->rx.pool.count;
	egress_task_poll(&b->eg);
	for (uint32_t i = 0; i < q->max_flows; i++)
		if (q->flows[i].in_use)
			fid = i;
	assert_int_equal(ctr_read(&q->flows[fid].cnps_sent), 0);
	assert_int_equal(ctr_read(&b->eg.ctr.np_out_full), 1);
	assert_int_equal(ctr_read(&b->eg.ctr.np_cnps), 0);
	/* the frame it was built in went back to the pool */
	assert_int_equal(b->rx.pool.count, home);
	/* room again; the next mark after the CNP window sends one */
	assert_int_equal(handoff_ring_dequeue(&b->np, fill, 4), 4);
	for (uint32_t i = 0; i < 4; i++)
		frame_pool_put(&b->rx.pool, fill[i].addr);
	flowq_marked(q, fid, mono_ns() + 1000000000ull);
	egress_task_poll(&b->eg);
	assert_int_equal(ctr_read(&q->flows[fid].cnps_sent), 1);
	assert_int_equal(ctr_read(&b->eg.ctr.np_cnps), 1);
	bed_free(b);
}

/* PFC: roce is lossless on priority 3 (xoff 10 kB, xon 5 kB); the port
 * is shaped to a trickle so that its queue builds. */
static void policy_pfc(struct qos_policy *p, bool hi_first, bool lossless)
{
	struct qos_class *c;

	memset(p, 0, sizeof(*p));
	if (hi_first) {
		add_class(p, "hi", 0);
		c = &p->classes[0];
		c->lossless = c->has_pcp = true;
		c->pcp = 5;
		c->pfc_xoff[1] = 10000;
		c->pfc_xon[1] = 5000;
	}
	add_class(p, "roce", 1);
	c = &p->classes[p->n_classes - 1];
	c->lossless = lossless;
	c->has_pcp = true;
	c->pcp = 3;
	c->pfc_xoff[1] = 10000;
	c->pfc_xon[1] = 5000;
	p->default_class = (uint8_t)(p->n_classes - 1);
	add_class(p, "default", 2);
	p->port[1].rate_bps = 8000; /* 1 kB/s */
	p->port[1].burst = 1600;
	p->port[0].link_bps = 1000000; /* XOFF refresh every ~16 s */
	p->pfc.enabled = true;
	p->pfc.quanta = PFC_MAX_QUANTA;
}

static void policy_pfc_initial(struct qos_policy *p)
{
	policy_pfc(p, false, true);
}

/* The PFC frames eg handed to the other port: vector and quanta of
 * each, ORed / for priority pcp. Returns how many. */
static uint32_t pfc_sent(struct bed *b, uint8_t *vector, unsigned int pcp,
			 uint16_t *quanta)
{
	struct frame_desc d;
	struct pfc_frame f;
	uint32_t n = 0;

	*vector = 0;
	while (handoff_ring_dequeue(&b->np, &d, 1)) {
		assert_true(d.meta & FRAME_META_CTRL);
		assert_int_equal(
			pfc_parse((uint8_t *)b->umem.base + d.addr, d.len, &f),
			PFC_OK);
		*vector |= f.vector;
		if (f.vector >> pcp & 1)
			*quanta = f.quanta[pcp];
		frame_pool_put(&b->rx.pool, d.addr);
		n++;
	}
	return n;
}

static void test_pfc_state_by_priority(void **state)
{
	struct bed *b = bed_new(policy_pfc_initial);
	struct qos_policy p2, p3;
	uint16_t quanta = 0;
	uint8_t vec;

	memset(b->frame, 0, DATA_LEN);
	b->frame[12] = 0x08;
	b->frame[14] = 0x45;
	receive(b, b->frame, DATA_LEN, 20); /* 20 kB into roce */
	egress_task_poll(&b->eg);
	assert_int_equal(pfc_sent(b, &vec, 3, &quanta), 1);
	assert_int_equal(vec, 1u << 3);
	assert_int_equal(quanta, PFC_MAX_QUANTA);
	assert_int_equal(ctr_read(&b->eg.pfc.tx_xoff[3]), 1);

	/* a new lossless class in front: roce moves from slot 0 to slot 1;
	 * its pause stays, and priority 5 (never paused) gets no XON */
	policy_pfc(&p2, true, true);
	assert_int_equal(egress_task_reconfigure(&b->eg, &p2), 0);
	assert_int_equal(b->eg.sched.slot_of[1], 1);
	egress_task_poll(&b->eg);
	assert_int_equal(pfc_sent(b, &vec, 3, &quanta), 0);
	assert_int_equal(ctr_read(&b->eg.pfc.tx_xon[5]), 0);
	assert_int_equal(ctr_read(&b->eg.pfc.tx_xoff[3]), 1);

	/* roce no longer lossless while its sender is paused: the sender
	 * gets its XON now, not when the pause runs out */
	policy_pfc(&p3, true, false);
	assert_int_equal(egress_task_reconfigure(&b->eg, &p3), 0);
	egress_task_poll(&b->eg);
	quanta = 1;
	assert_int_equal(pfc_sent(b, &vec, 3, &quanta), 1);
	assert_int_equal(vec, 1u << 3);
	assert_int_equal(quanta, 0);
	assert_int_equal(ctr_read(&b->eg.pfc.tx_xon[3]), 1);
	/* and only once */
	egress_task_poll(&b->eg);
	assert_int_equal(pfc_sent(b, &vec, 3, &quanta), 0);
	bed_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cnp_classified_by_taker),
		cmocka_unit_test(test_cnps_sent_only_when_handed_over),
		cmocka_unit_test(test_pfc_state_by_priority),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

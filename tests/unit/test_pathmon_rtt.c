// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_pathmon_rtt.c - RTT samples of the passive path measurement
 * (dataplane/path/pathmon_*.c) on a fake clock, against hand-built
 * departure and event sequences: from TCP timestamps, from sequence / ACK
 * numbers and from RoCE PSN / ACK, with retransmissions (Karn), reordering,
 * lost ACKs, NAKs and wrap-around of TSval, sequence numbers and PSNs (no
 * false samples); the RoCE requester-QP pairing.
 */
#include "test_pathmon.h"

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

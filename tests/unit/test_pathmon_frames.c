// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_pathmon_frames.c - the frame helpers of the passive path
 * measurement (pathmon_dep_of, pathmon_ack_of) on TCP and RoCEv2 frames
 * built with pkt_build.h.
 */
#include "test_pathmon.h"

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
		cmocka_unit_test(test_helpers_tcp),
		cmocka_unit_test(test_helpers_roce),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

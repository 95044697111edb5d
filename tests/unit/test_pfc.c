// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_pfc.c - the 802.1Qbb module (pfc.h) against a fake clock: the frame
 * built and parsed byte by byte against a hand-written reference, the
 * parser's refusals, quanta to time at 10/25/100 Gbit/s, the pause state
 * of a port (pause exactly the named priority for exactly the time, XON,
 * refresh, paused time), the watchdog (storm, ignore, restore), the
 * XOFF/XON hysteresis and the headroom numbers documented in pfc.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "pfc.h"

#define G 1000000000ull
#define MS 1000000ull

static const uint8_t src_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0a};

/* Priority 3, 0xffff quanta, from 02:00:00:00:00:0a, written by hand from
 * 802.1Qbb clause 36.1.3 / scapy's MACControlClassBasedFlowControl. */
static const uint8_t ref_frame[60] = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, /* DA */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x0a, /* SA */
	0x88, 0x08, /* MAC Control */
	0x01, 0x01, /* opcode: PFC */
	0x00, 0x08, /* class-enable vector: priority 3 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* time 0, 1, 2 */
	0xff, 0xff, /* time 3 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* time 4..7 */
	/* 26 bytes of padding: zero */
};

static void test_build_reference(void **state)
{
	uint16_t q[PFC_PRIOS] = {7, 7, 7, 0xffff, 7, 7, 7, 7};
	uint8_t buf[128];

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(pfc_build(buf, sizeof(buf), src_mac, 0x08, q), 60);
	for (int i = 0; i < 60; i++) {
		if (buf[i] != ref_frame[i])
			fail_msg("byte %d: 0x%02x, expected 0x%02x", i, buf[i],
				 ref_frame[i]);
	}
	assert_int_equal(buf[60], 0xee); /* nothing written past 60 */
	assert_int_equal(pfc_build(buf, 59, src_mac, 0x08, q), 0);
}

static void test_build_xon_and_multi(void **state)
{
	uint16_t q[PFC_PRIOS] = {0, 0x1234, 0, 0, 0, 0, 0, 0xabcd};
	uint8_t buf[60];
	struct pfc_frame f;

	(void)state;
	assert_int_equal(pfc_build(buf, sizeof(buf), src_mac, 0x82, q), 60);
	assert_int_equal(buf[16], 0x00);
	assert_int_equal(buf[17], 0x82);
	assert_int_equal(buf[20], 0x12); /* time 1 */
	assert_int_equal(buf[21], 0x34);
	assert_int_equal(buf[32], 0xab); /* time 7 */
	assert_int_equal(buf[33], 0xcd);
	assert_int_equal(pfc_parse(buf, 60, &f), PFC_OK);
	assert_int_equal(f.vector, 0x82);
	assert_int_equal(f.quanta[1], 0x1234);
	assert_int_equal(f.quanta[7], 0xabcd);
	assert_int_equal(f.quanta[0], 0);
	/* XON: the bit set, time 0 */
	q[3] = 0;
	pfc_build(buf, sizeof(buf), src_mac, 0x08, q);
	assert_int_equal(buf[17], 0x08);
	assert_int_equal(buf[24], 0);
	assert_int_equal(buf[25], 0);
}

static void test_parse_reference(void **state)
{
	uint8_t buf[64] = {0};
	struct pfc_frame f;

	(void)state;
	memcpy(buf, ref_frame, 60);
	assert_int_equal(pfc_parse(buf, 60, &f), PFC_OK);
	assert_int_equal(f.vector, 0x08);
	for (int p = 0; p < PFC_PRIOS; p++)
		assert_int_equal(f.quanta[p], p == 3 ? 0xffff : 0);
	assert_int_equal(pfc_parse(buf, 64, &f), PFC_OK); /* with FCS */
	/* a time for a priority whose bit is clear is ignored */
	buf[19] = 0x55;
	assert_int_equal(pfc_parse(buf, 60, &f), PFC_OK);
	assert_int_equal(f.quanta[0], 0);
	/* the reserved byte is ignored */
	buf[16] = 0xff;
	assert_int_equal(pfc_parse(buf, 60, &f), PFC_OK);
	assert_int_equal(f.vector, 0x08);
}

static void test_parse_refusals(void **state)
{
	uint8_t buf[80];
	struct pfc_frame f;

	(void)state;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, ref_frame, 60);
	assert_int_equal(pfc_parse(buf, 59, &f), PFC_ERR_LEN);
	assert_int_equal(pfc_parse(buf, 34, &f), PFC_ERR_LEN);
	assert_int_equal(pfc_parse(buf, 65, &f), PFC_ERR_LEN);
	assert_int_equal(pfc_parse(buf, 13, &f), PFC_ERR_NOT_MAC_CONTROL);
	assert_int_equal(pfc_parse(buf, 0, &f), PFC_ERR_NOT_MAC_CONTROL);
	buf[15] = 0x02; /* opcode 0x0102 */
	assert_int_equal(pfc_parse(buf, 60, &f), PFC_ERR_OPCODE);
	buf[14] = 0x00;
	buf[15] = 0x01; /* 802.3x PAUSE */
	assert_int_equal(pfc_parse(buf, 60, &f), PFC_ERR_OPCODE);
	buf[14] = 0x01;
	buf[5] = 0x02; /* DA 01:80:c2:00:00:02 (slow protocols) */
	assert_int_equal(pfc_parse(buf, 60, &f), PFC_ERR_DST);
	buf[5] = 0x01;
	buf[13] = 0x00; /* EtherType 0x8800 */
	assert_int_equal(pfc_parse(buf, 60, &f), PFC_ERR_NOT_MAC_CONTROL);
}

static void test_quanta_ns(void **state)
{
	(void)state;
	/* 512 bit times: 51.2 ns at 10G, 20.48 ns at 25G, 5.12 ns at 100G
	 * (rounded up to whole ns) */
	assert_int_equal(pfc_quanta_ns(1, 10 * G), 52);
	assert_int_equal(pfc_quanta_ns(10, 10 * G), 512);
	assert_int_equal(pfc_quanta_ns(1, 25 * G), 21);
	assert_int_equal(pfc_quanta_ns(100, 25 * G), 2048);
	assert_int_equal(pfc_quanta_ns(1, 100 * G), 6);
	assert_int_equal(pfc_quanta_ns(100, 100 * G), 512);
	/* the maximum: 65535 quanta */
	assert_int_equal(pfc_quanta_ns(0xffff, 10 * G), 3355392);
	assert_int_equal(pfc_quanta_ns(0xffff, 25 * G), 1342157);
	assert_int_equal(pfc_quanta_ns(0xffff, 100 * G), 335540);
	assert_int_equal(pfc_quanta_ns(0, 100 * G), 0);
	assert_true(pfc_quanta_ns(1, 0) > 0); /* no division by zero */
	assert_int_equal(pfc_refresh_ns(0xffff, 100 * G), 335540 / 2);
}

static void test_headroom(void **state)
{
	(void)state;
	/* 2*(9000+46)*8 + 84*8 + 3840 + 2048 = 151296 bits (46: a QinQ
	 * frame's Ethernet header and two tags 22, FCS 4, preamble 8, gap
	 * 12), plus the round trip over 100 m: 1000 ns * R */
	assert_int_equal(pfc_headroom_bytes(10 * G, 100, 9000),
			 (151296 + 10000 + 7) / 8);
	assert_int_equal(pfc_headroom_bytes(25 * G, 100, 9000),
			 (151296 + 25000 + 7) / 8);
	assert_int_equal(pfc_headroom_bytes(100 * G, 100, 9000),
			 (151296 + 100000 + 7) / 8);
	assert_int_equal(pfc_headroom_bytes(10 * G, 100, 9000), 20162);
	assert_int_equal(pfc_headroom_bytes(25 * G, 100, 9000), 22037);
	assert_int_equal(pfc_headroom_bytes(100 * G, 100, 9000), 31412);
	/* MTU 1500, 10 m at 100G: 2*1546*8 + 672 + 5888 + 10000 */
	assert_int_equal(pfc_headroom_bytes(100 * G, 10, 1500),
			 (2 * 1546 * 8 + 672 + 5888 + 10000 + 7) / 8);
}

static const struct pfc_rx_cfg cfg10 = {
	.link_bps = 10 * G,
	.watchdog_ns = 200 * MS,
	.restore_ns = 100 * MS,
};

static struct pfc_frame frame(uint8_t vec, uint16_t q)
{
	struct pfc_frame f = {.vector = vec};

	for (int p = 0; p < PFC_PRIOS; p++)
		f.quanta[p] = (vec >> p & 1) ? q : 0;
	return f;
}

static void test_rx_pause_exact(void **state)
{
	struct pfc_rx s;
	struct pfc_frame f = frame(0x08, 1000); /* 51.2 us at 10G */
	uint64_t t0 = 5 * G;

	(void)state;
	pfc_rx_init(&s, &cfg10);
	assert_int_equal(pfc_rx_frame(&s, &f, t0, NULL), 0x08);
	assert_int_equal(pfc_rx_until(&s, 3), t0 + 51200);
	for (unsigned int p = 0; p < PFC_PRIOS; p++) {
		assert_int_equal(pfc_rx_paused(&s, p, t0), p == 3);
		assert_int_equal(pfc_rx_paused(&s, p, t0 + 51199), p == 3);
		assert_false(pfc_rx_paused(&s, p, t0 + 51200));
	}
	assert_int_equal(pfc_rx_next_ns(&s), t0 + 51200);
	assert_int_equal(pfc_rx_tick(&s, t0 + 51199, NULL), 0);
	assert_int_equal(pfc_rx_tick(&s, t0 + 60000, NULL), 0x08);
	assert_int_equal(s.paused, 0);
	/* paused time: exactly the pause, even though the tick came late */
	assert_int_equal(s.ctr.paused_ns[3], 51200);
	assert_int_equal(s.ctr.rx_frames, 1);
	assert_int_equal(s.ctr.rx_prio[3], 1);
	assert_int_equal(s.ctr.rx_prio[2], 0);
	assert_int_equal(pfc_rx_next_ns(&s), UINT64_MAX);
}

static void test_rx_xon_and_refresh(void **state)
{
	struct pfc_rx s;
	struct pfc_frame off = frame(0x08, 1000), on = frame(0x08, 0);
	uint64_t t = 1000;

	(void)state;
	pfc_rx_init(&s, &cfg10);
	pfc_rx_frame(&s, &off, t, NULL);
	/* refresh at +40 us extends to +40 us + 51.2 us */
	assert_int_equal(pfc_rx_frame(&s, &off, t + 40000, NULL), 0x08);
	assert_int_equal(pfc_rx_until(&s, 3), t + 40000 + 51200);
	assert_true(pfc_rx_paused(&s, 3, t + 80000));
	/* XON at +60 us: resumes now */
	assert_int_equal(pfc_rx_frame(&s, &on, t + 60000, NULL), 0x08);
	assert_false(pfc_rx_paused(&s, 3, t + 60000));
	assert_int_equal(s.ctr.paused_ns[3], 60000);
	assert_int_equal(s.ctr.rx_xon[3], 1);
	/* an XON for a priority not paused changes nothing */
	assert_int_equal(pfc_rx_frame(&s, &on, t + 70000, NULL), 0);
	/* two priorities, one frame */
	struct pfc_frame two = frame(0x48, 2000);

	assert_int_equal(pfc_rx_frame(&s, &two, t + 80000, NULL), 0x48);
	assert_true(pfc_rx_paused(&s, 6, t + 80000));
	assert_true(pfc_rx_paused(&s, 3, t + 80000));
	assert_false(pfc_rx_paused(&s, 4, t + 80000));
}

static void test_rx_quanta_zero_vector_zero(void **state)
{
	struct pfc_rx s;
	struct pfc_frame none = frame(0, 0);

	(void)state;
	pfc_rx_init(&s, &cfg10);
	assert_int_equal(pfc_rx_frame(&s, &none, 100, NULL), 0);
	assert_int_equal(s.paused, 0);
	assert_int_equal(s.ctr.rx_frames, 1);
}

/* A storm: the peer refreshes XOFF every 1 ms, forever. */
static void test_watchdog_storm(void **state)
{
	struct pfc_rx s;
	struct pfc_frame off = frame(0x08, 0xffff); /* 3.36 ms at 10G */
	uint64_t t = 1 * G, t0 = t;
	uint8_t storms = 0, ended;

	(void)state;
	pfc_rx_init(&s, &cfg10);
	for (; t < t0 + 200 * MS; t += MS) {
		pfc_rx_frame(&s, &off, t, &storms);
		assert_int_equal(storms, 0);
		assert_true(pfc_rx_paused(&s, 3, t));
	}
	/* the watchdog deadline is since + 200 ms */
	assert_int_equal(pfc_rx_next_ns(&s), t0 + 200 * MS);
	ended = pfc_rx_tick(&s, t0 + 200 * MS, &storms);
	assert_int_equal(ended, 0x08);
	assert_int_equal(storms, 0x08);
	assert_false(pfc_rx_paused(&s, 3, t0 + 200 * MS));
	assert_int_equal(s.ctr.storms[3], 1);
	assert_int_equal(s.ctr.paused_ns[3], 200 * MS);
	/* ignored for restore_ns (100 ms): the refreshes change nothing */
	for (t = t0 + 201 * MS; t < t0 + 300 * MS; t += MS) {
		assert_int_equal(pfc_rx_frame(&s, &off, t, &storms), 0);
		assert_false(pfc_rx_paused(&s, 3, t));
	}
	assert_int_equal(s.ctr.ignored[3], 99);
	/* other priorities were honoured meanwhile */
	struct pfc_frame p5 = frame(0x20, 100);

	assert_int_equal(pfc_rx_frame(&s, &p5, t0 + 250 * MS, NULL), 0x20);
	assert_true(pfc_rx_paused(&s, 5, t0 + 250 * MS));
	/* restored: honoured again (and priority 5's pause has ended) */
	assert_int_equal(pfc_rx_frame(&s, &off, t0 + 300 * MS, NULL), 0x28);
	assert_true(pfc_rx_paused(&s, 3, t0 + 300 * MS));
	assert_int_equal(s.ctr.storms[3], 1);
}

/* Pauses with gaps between them are not a storm. */
static void test_watchdog_not_on_gaps(void **state)
{
	struct pfc_rx s;
	struct pfc_frame off = frame(0x08, 1000); /* 51.2 us */
	uint8_t storms = 0;

	(void)state;
	pfc_rx_init(&s, &cfg10);
	for (uint64_t t = 0; t < 1 * G; t += 100000) { /* every 100 us */
		pfc_rx_frame(&s, &off, t + 1, &storms);
		assert_int_equal(storms, 0);
	}
	assert_int_equal(s.ctr.storms[3], 0);
	/* a pause that expires before the deadline, ticked late */
	pfc_rx_tick(&s, 5 * G, &storms);
	assert_int_equal(storms, 0);
	assert_int_equal(s.ctr.paused_ns[3], 10000 * 51200ull);
	/* the watchdog off: a long storm stays a pause */
	struct pfc_rx_cfg c = cfg10;

	c.watchdog_ns = 0;
	pfc_rx_set_cfg(&s, &c);
	off = frame(0x08, 0xffff);
	for (uint64_t t = 6 * G; t < 8 * G; t += MS)
		pfc_rx_frame(&s, &off, t, &storms);
	assert_int_equal(storms, 0);
	assert_true(pfc_rx_paused(&s, 3, 8 * G));
}

static void test_tx_hysteresis(void **state)
{
	/* xoff 100 KB, xon 50 KB, 0xffff quanta at 10G: refresh 1.68 ms */
	struct pfc_tx_cfg c = {
		.xoff = 100000,
		.xon = 50000,
		.quanta = 0xffff,
		.refresh_ns = pfc_refresh_ns(0xffff, 10 * G),
	};
	struct pfc_tx s = {0};
	uint64_t t = 1000;

	(void)state;
	assert_int_equal(c.refresh_ns, 1677696);
	assert_int_equal(pfc_tx_decide(&s, &c, 0, t), PFC_TX_NONE);
	assert_int_equal(pfc_tx_decide(&s, &c, 99999, t), PFC_TX_NONE);
	assert_int_equal(pfc_tx_decide(&s, &c, 100000, t), PFC_TX_XOFF);
	/* not sent (no frame): still XOFF next time */
	assert_int_equal(pfc_tx_decide(&s, &c, 100000, t + 1), PFC_TX_XOFF);
	pfc_tx_commit(&s, &c, PFC_TX_XOFF, t);
	/* between xon and xoff, before the refresh: nothing */
	assert_int_equal(pfc_tx_decide(&s, &c, 120000, t + 1), PFC_TX_NONE);
	assert_int_equal(pfc_tx_decide(&s, &c, 50001, t + 1677695),
			 PFC_TX_NONE);
	/* refresh while still above xon */
	assert_int_equal(pfc_tx_decide(&s, &c, 50001, t + 1677696),
			 PFC_TX_XOFF);
	pfc_tx_commit(&s, &c, PFC_TX_XOFF, t + 1677696);
	assert_int_equal(s.refresh_at, t + 2 * 1677696);
	/* falls to xon: XON once */
	assert_int_equal(pfc_tx_decide(&s, &c, 50000, t + 2000000), PFC_TX_XON);
	pfc_tx_commit(&s, &c, PFC_TX_XON, t + 2000000);
	assert_int_equal(pfc_tx_decide(&s, &c, 50000, t + 2000001),
			 PFC_TX_NONE);
	assert_int_equal(pfc_tx_decide(&s, &c, 99999, t + 9000000),
			 PFC_TX_NONE);
	assert_int_equal(pfc_tx_decide(&s, &c, 100000, t + 9000000),
			 PFC_TX_XOFF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_reference),
		cmocka_unit_test(test_build_xon_and_multi),
		cmocka_unit_test(test_parse_reference),
		cmocka_unit_test(test_parse_refusals),
		cmocka_unit_test(test_quanta_ns),
		cmocka_unit_test(test_headroom),
		cmocka_unit_test(test_rx_pause_exact),
		cmocka_unit_test(test_rx_xon_and_refresh),
		cmocka_unit_test(test_rx_quanta_zero_vector_zero),
		cmocka_unit_test(test_watchdog_storm),
		cmocka_unit_test(test_watchdog_not_on_gaps),
		cmocka_unit_test(test_tx_hysteresis),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

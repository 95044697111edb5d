// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_rc_qp.c - unit tests of the RC transport (rc_qp, rc_host) over the
 * in-memory wire with a fake clock: go-back-N recovery under random loss,
 * one NAK per gap, ACK coalescing, retransmit timeout backoff, pacing at
 * the line rate, DCQCN reaction to CNPs and the notification point's
 * coalescing, the latency histogram.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "coll_wire.h"
#include "lat_hist.h"
#include "roce.h"

#define NMSG 200
#define MSG_BYTES 5000

/* What host 1 received from host 0, checked as it arrives. */
struct sink {
	uint32_t next_id; /* messages arrive in order: 0, 1, ... */
	uint32_t next_off;
	uint32_t done, dup_or_gap, bad_data;
	uint32_t sent_done;
	const uint8_t *src; /* the sender's bytes of message i at i * MSG */
	uint32_t msg_bytes;
};

static void sink_data(void *ctx, struct rc_qp *qp, uint32_t id, uint32_t off,
		      const uint8_t *p, uint32_t n)
{
	struct sink *s = ctx;

	if (!s)
		return;
	if (id != s->next_id || off != s->next_off)
		s->dup_or_gap++;
	if (s->src && memcmp(p, s->src + (size_t)id * s->msg_bytes + off, n))
		s->bad_data++;
	s->next_off = off + n;
}

static void sink_msg(void *ctx, struct rc_qp *qp, uint32_t id, uint32_t len,
		     uint64_t now)
{
	struct sink *s = ctx;

	if (!s)
		return;
	if (id != s->next_id || len != s->msg_bytes)
		s->dup_or_gap++;
	s->next_id = id + 1;
	s->next_off = 0;
	s->done++;
}

static void sink_sent(void *ctx, struct rc_qp *qp, uint32_t id, uint64_t now)
{
	struct sink *s = ctx;

	if (s)
		s->sent_done++;
}

static const struct rc_ops sink_ops = {
	.data = sink_data,
	.msg_done = sink_msg,
	.send_done = sink_sent,
};

static void small_cfg(struct rc_cfg *c)
{
	rc_cfg_default(c);
	c->mtu = 256;
	c->window = 64;
	c->rto_ns = 200000;
	c->line_bps = 10e9;
	dcqcn_params_default(&c->dcqcn, DCQCN_PAPER, c->line_bps);
}

static uint8_t *pattern(size_t n, uint32_t seed)
{
	uint8_t *b = malloc(n);

	assert_non_null(b);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		b[i] = (uint8_t)(seed >> 16);
	}
	return b;
}

/* Host 0 sends NMSG messages to host 1 over w; host 1's sink checks them. */
static void transfer(struct coll_wire *w, struct sink *tx, struct sink *rx,
		     uint8_t *src)
{
	for (uint32_t i = 0; i < NMSG; i++)
		assert_int_equal(rc_host_post(&w->host[0], 1, i,
					      src + (size_t)i * MSG_BYTES,
					      MSG_BYTES),
				 0);
	assert_true(wire_run(w, 10ull * 1000000000));
	assert_int_equal(rx->done, NMSG);
	assert_int_equal(rx->dup_or_gap, 0);
	assert_int_equal(rx->bad_data, 0);
	assert_int_equal(tx->sent_done, NMSG);
}

static void setup_pair(struct coll_wire *w, const struct rc_cfg *c,
		       struct sink *tx, struct sink *rx, uint8_t *src)
{
	void *ctxs[2] = {tx, rx};

	memset(tx, 0, sizeof(*tx));
	memset(rx, 0, sizeof(*rx));
	rx->src = src;
	rx->msg_bytes = MSG_BYTES;
	wire_init(w, 2, c, 1024, &sink_ops, ctxs);
}

static void test_gbn_random_loss(void **state)
{
	struct coll_wire w;
	struct sink tx, rx;
	struct rc_cfg c;
	uint8_t *src = pattern((size_t)NMSG * MSG_BYTES, 7);
	const struct rc_qp_stats *s0, *s1;

	small_cfg(&c);
	setup_pair(&w, &c, &tx, &rx, src);
	w.p_drop = 0.01;
	transfer(&w, &tx, &rx, src);
	s0 = &w.host[0].qp[1].st;
	s1 = &w.host[1].qp[0].st;
	/* the loss happened and was repaired */
	assert_true(w.dropped > 10);
	assert_true(s1->loss_events > 0);
	assert_true(s0->retransmitted_packets > 0);
	assert_int_equal(s0->naks_received, s1->naks_sent);
	assert_true(s1->ooo_dropped > 0);
	/* every PSN accepted exactly once */
	assert_int_equal(s1->data_packets_received - s1->ooo_dropped -
				 s1->dup_received,
			 w.host[0].qp[1].post_psn);
	wire_free(&w);
	free(src);
}

static void test_gbn_reorder_and_ack_loss(void **state)
{
	struct coll_wire w;
	struct sink tx, rx;
	struct rc_cfg c;
	uint8_t *src = pattern((size_t)NMSG * MSG_BYTES, 9);

	small_cfg(&c);
	setup_pair(&w, &c, &tx, &rx, src);
	w.p_drop = 0.005;
	w.p_reorder = 0.005;
	w.p_ctrl_drop = 0.05;
	w.rng = 12345;
	transfer(&w, &tx, &rx, src);
	assert_true(w.reordered > 0);
	assert_true(w.ctrl_dropped > 0);
	wire_free(&w);
	free(src);
}

/* Drop the first transmission of PSN 10 and of PSN 50. */
struct drop_psn {
	uint32_t psn[2];
	bool dropped[2];
	uint64_t first_tx[1];
};

static bool drop_once(void *ctx, const struct wire_pkt *p, uint64_t now)
{
	struct drop_psn *d = ctx;
	if (!wire_is_data(p))
		return false;
	for (int i = 0; i < 2; i++)
		if (bth_psn(p->data) == d->psn[i] && !d->dropped[i]) {
			d->dropped[i] = true;
			return true;
		}
	return false;
}

static void test_one_nak_per_gap(void **state)
{
	struct coll_wire w;
	struct sink tx, rx;
	struct rc_cfg c;
	uint8_t *src = pattern((size_t)NMSG * MSG_BYTES, 11);
	struct drop_psn d = {.psn = {10, 50}};
	const struct rc_qp_stats *s0, *s1;

	small_cfg(&c);
	setup_pair(&w, &c, &tx, &rx, src);
	w.filter = drop_once;
	w.filter_ctx = &d;
	transfer(&w, &tx, &rx, src);
	s0 = &w.host[0].qp[1].st;
	s1 = &w.host[1].qp[0].st;
	assert_int_equal(w.dropped, 2);
	assert_int_equal(s1->loss_events, 2);
	assert_int_equal(s1->naks_sent, 2);
	assert_int_equal(s0->naks_received, 2);
	assert_true(s1->ooo_dropped >= 2);
	assert_int_equal(s0->timeouts, 0);
	/* go-back-N resends the dropped packet and what followed it */
	assert_int_equal(s0->retransmitted_packets, s1->ooo_dropped + 2);
	wire_free(&w);
	free(src);
}

static void test_ack_coalescing(void **state)
{
	struct coll_wire w;
	struct sink tx, rx;
	struct rc_cfg c;
	uint32_t per;

	small_cfg(&c);
	c.line_bps = 1e9; /* packets far enough apart to be acked singly */
	per = c.mtu - RC_HDR_LEN;
	setup_pair(&w, &c, &tx, &rx, NULL);
	rx.msg_bytes = 40 * per;
	/* one message of 40 packets: ACKs at 16, 32 and 40 (AckReq) */
	assert_int_equal(rc_host_post(&w.host[0], 1, 0, NULL, 40 * per), 0);
	assert_true(wire_run(&w, 1000000000));
	assert_int_equal(w.host[1].qp[0].st.acks_sent, 3);
	assert_int_equal(w.host[0].qp[1].st.acks_received, 3);
	/* three one-packet messages: each AckReq'd */
	rx.msg_bytes = 100;
	for (uint32_t i = 1; i <= 3; i++)
		assert_int_equal(rc_host_post(&w.host[0], 1, i, NULL, 100), 0);
	assert_true(wire_run(&w, 2000000000));
	assert_int_equal(w.host[1].qp[0].st.acks_sent, 6);
	assert_int_equal(rx.done, 4);
	wire_free(&w);
}

/* A slowly paced QP asks for ACKs often enough that its timer never fires:
 * 10 Mbit/s, 314-byte frames (251 us apart), RTO 4 ms: an AckReq at least
 * every 1 ms, i.e. on packets 4, 8, ..., 28 (sent 1004 us apart) and on
 * the last one, 29: 8 ACKs instead of 2. */
static void test_slow_pacing_ackreq(void **state)
{
	struct coll_wire w;
	struct sink tx, rx;
	struct rc_cfg c;
	uint32_t per;

	small_cfg(&c);
	c.line_bps = 10e6;
	c.rto_ns = 4000000;
	per = c.mtu - RC_HDR_LEN;
	setup_pair(&w, &c, &tx, &rx, NULL);
	rx.msg_bytes = 30 * per;
	assert_int_equal(rc_host_post(&w.host[0], 1, 0, NULL, 30 * per), 0);
	assert_true(wire_run(&w, 1000000000));
	assert_int_equal(w.host[1].qp[0].st.acks_sent, 8);
	assert_int_equal(w.host[0].qp[1].st.timeouts, 0);
	wire_free(&w);
}

/* Record when PSN 0 goes out; drop every data packet until told. */
struct blackhole {
	uint64_t tx_at[16];
	int n;
	bool on;
};

static bool black(void *ctx, const struct wire_pkt *p, uint64_t now)
{
	struct blackhole *b = ctx;
	if (!wire_is_data(p))
		return false;
	if (bth_psn(p->data) == 0 && b->n < 16)
		b->tx_at[b->n++] = now;
	return b->on;
}

static void test_rto_backoff(void **state)
{
	struct coll_wire w;
	struct sink tx, rx;
	struct rc_cfg c;
	struct blackhole b = {.on = true};

	small_cfg(&c);
	c.rto_max_shift = 3; /* 1, 2, 4, 8, 8, ... x rto */
	setup_pair(&w, &c, &tx, &rx, NULL);
	rx.msg_bytes = 100;
	w.filter = black;
	w.filter_ctx = &b;
	assert_int_equal(rc_host_post(&w.host[0], 1, 0, NULL, 100), 0);
	/* 1 + 2 + 4 + 8 + 8 = 23 rto: six transmissions by then */
	assert_false(wire_run(&w, 23 * c.rto_ns + 1000));
	assert_int_equal(b.n, 6);
	assert_int_equal(w.host[0].qp[1].st.timeouts, 5);
	for (int i = 1; i < 6; i++) {
		uint64_t want = c.rto_ns << (i - 1 < 3 ? i - 1 : 3);

		assert_int_equal(b.tx_at[i] - b.tx_at[i - 1], want);
	}
	b.on = false; /* the link heals: delivered at the next timeout */
	assert_true(wire_run(&w, 100 * c.rto_ns));
	assert_int_equal(rx.done, 1);
	assert_int_equal(tx.sent_done, 1);
	/* an ACK resets the backoff */
	assert_int_equal(w.host[0].qp[1].rto_shift, 0);
	wire_free(&w);
}

static void test_pacer_line_rate(void **state)
{
	struct rc_pacer p = {0};
	uint64_t now = 0, first = 0, last = 0;
	const double frame_ns = 1082 * 8e9 / 100e6; /* 86560 ns */

	for (int i = 0; i < 1000; i++) {
		if (!rc_pacer_due(&p, now))
			now = p.next_ns; /* sleep until the slot */
		if (i == 0)
			first = now;
		last = now;
		rc_pacer_charge(&p, now, 1082, 100e6, 16 * 86560);
	}
	/* 1000 frames take 86.56 ms (the next slot), within one frame */
	assert_true((double)(p.next_ns - first) > 86.56e6 - frame_ns);
	assert_true((double)(p.next_ns - first) < 86.56e6 + frame_ns);
	assert_true((double)(last - first) > 86.56e6 - 2 * frame_ns);
}

/* Through the QP and the host: the last frame leaves when the bytes before
 * it have been paid for at the line rate. */
struct tx_log {
	uint64_t first, last;
	uint64_t bytes_before_last, last_bytes;
	int n;
};

static bool log_tx(void *ctx, const struct wire_pkt *p, uint64_t now)
{
	struct tx_log *l = ctx;
	if (!wire_is_data(p))
		return false;
	if (!l->n++)
		l->first = now;
	l->last = now;
	l->bytes_before_last += l->last_bytes;
	l->last_bytes = p->len + RC_FRAME_OVERHEAD;
	return false;
}

static void test_qp_pacing(void **state)
{
	struct coll_wire w;
	struct sink tx, rx;
	struct rc_cfg c;
	struct tx_log l = {0};
	double want, frame_ns;

	rc_cfg_default(&c);
	c.mtu = 1020; /* MIDDLE frames: 12 + 1020 + 4 + 46 = 1082 bytes */
	c.line_bps = 100e6;
	c.window = 4096;
	setup_pair(&w, &c, &tx, &rx, NULL);
	rx.msg_bytes = 1000 * (c.mtu - RC_HDR_LEN);
	w.filter = log_tx;
	w.filter_ctx = &l;
	assert_int_equal(rc_host_post(&w.host[0], 1, 0, NULL, rx.msg_bytes), 0);
	assert_true(wire_run(&w, 2000000000));
	assert_int_equal(l.n, 1000);
	assert_int_equal(rx.done, 1);
	want = (double)l.bytes_before_last * 8e9 / 100e6;
	frame_ns = 1082 * 8e9 / 100e6;
	assert_true((double)(l.last - l.first) > want - frame_ns);
	assert_true((double)(l.last - l.first) < want + frame_ns);
	/* about 86.6 ms for these 1000 frames */
	assert_true(l.last - l.first > 86000000 && l.last - l.first < 87000000);
	wire_free(&w);
}

static void test_dcqcn_cnp_halves(void **state)
{
	struct rc_cfg c;
	struct rc_qp a, b;
	uint8_t buf[64];
	size_t n;

	small_cfg(&c);
	c.cc_dcqcn = true;
	dcqcn_params_default(&c.dcqcn, DCQCN_PAPER, c.line_bps);
	assert_int_equal(rc_qp_init(&a, &c, NULL, NULL, 1, 2, 1, 16, 0), 0);
	assert_int_equal(rc_qp_init(&b, &c, NULL, NULL, 2, 1, 0, 16, 0), 0);
	assert_true(rc_qp_rate(&a, 1000) == 10e9);
	/* b's NP: a CE-marked data packet -> a CNP for a's QP */
	assert_int_equal(rc_qp_post(&a, 0, NULL, 100), 0);
	n = rc_qp_tx_data(&a, 1000, buf, sizeof(buf), NULL);
	assert_true(n == 0); /* buf too small: nothing built */
	{
		uint8_t big[RC_MAX_PKT];

		n = rc_qp_tx_data(&a, 1000, big, sizeof(big), NULL);
		assert_true(n > 0);
		rc_qp_rx(&b, 2000, big, n, 3);
	}
	assert_int_equal(b.st.ce_seen, 1);
	n = rc_qp_take_cnp(&b, buf, sizeof(buf));
	assert_int_equal(n, RC_CNP_LEN);
	assert_int_equal(bth_opcode(buf), 0x81);
	assert_true(bth_becn(buf));
	assert_int_equal(bth_dqpn(buf), 1);
	rc_qp_rx(&a, 3000, buf, n, 0);
	assert_int_equal(a.st.cnps_received, 1);
	/* paper, alpha 1: R_C halves */
	assert_true(rc_qp_rate(&a, 3000) == 5e9);
	/* without DCQCN the CNP is counted and changes nothing */
	c.cc_dcqcn = false;
	rc_qp_rx(&a, 4000, buf, n, 0);
	assert_true(rc_qp_rate(&a, 4000) == 10e9);
	rc_qp_free(&a);
	rc_qp_free(&b);
}

static void test_np_coalescing(void **state)
{
	struct coll_wire w;
	struct sink tx, rx;
	struct rc_cfg c;
	uint64_t pkts, span_us;

	small_cfg(&c);
	c.cc_dcqcn = true;
	setup_pair(&w, &c, &tx, &rx, NULL);
	rx.msg_bytes = MSG_BYTES;
	w.p_ce = 1.0; /* every data packet CE-marked */
	for (uint32_t i = 0; i < 20; i++)
		assert_int_equal(
			rc_host_post(&w.host[0], 1, i, NULL, MSG_BYTES), 0);
	assert_true(wire_run(&w, 1000000000));
	pkts = w.host[1].qp[0].st.data_packets_received;
	assert_int_equal(w.host[1].qp[0].st.ce_seen, pkts);
	/* at most one CNP per 50 us, and one at least every 50 us */
	span_us = (w.now) / 1000;
	assert_true(w.host[1].qp[0].st.cnps_sent <= span_us / 50 + 1);
	assert_true(w.host[1].qp[0].st.cnps_sent >= 2);
	assert_true(w.host[1].qp[0].st.cnps_sent < pkts);
	assert_int_equal(w.host[0].qp[1].st.cnps_received,
			 w.host[1].qp[0].st.cnps_sent);
	/* the sender slowed down */
	assert_true(w.host[0].qp[1].rp.rc < c.line_bps);
	wire_free(&w);
}

static void test_lat_hist(void **state)
{
	struct lat_hist h;

	lat_hist_init(&h);
	assert_int_equal(lat_hist_bucket(500), 0);
	assert_int_equal(lat_hist_bucket(1000), 1);
	assert_true(lat_hist_upper_us(1) == 1.0625);
	assert_int_equal(lat_hist_bucket(2000), 17);
	assert_true(lat_hist_upper_us(16) == 2.0);
	for (int i = 1; i <= 1000; i++)
		lat_hist_add(&h, (uint64_t)i * 1000); /* 1 .. 1000 us */
	assert_true(lat_hist_quantile_us(&h, 0.5) >= 500 &&
		    lat_hist_quantile_us(&h, 0.5) <= 500 * 1.0625);
	assert_true(lat_hist_quantile_us(&h, 0.99) >= 990 &&
		    lat_hist_quantile_us(&h, 0.99) <= 1000);
	assert_true(lat_hist_quantile_us(&h, 1.0) == 1000);
	/* 10 s and beyond land in the last buckets, never past them */
	assert_true(lat_hist_upper_us(lat_hist_bucket(10000000000ull)) >= 1e7);
	assert_int_equal(lat_hist_bucket(UINT64_MAX / 2), LAT_NBUCKETS - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gbn_random_loss),
		cmocka_unit_test(test_gbn_reorder_and_ack_loss),
		cmocka_unit_test(test_one_nak_per_gap),
		cmocka_unit_test(test_ack_coalescing),
		cmocka_unit_test(test_slow_pacing_ackreq),
		cmocka_unit_test(test_rto_backoff),
		cmocka_unit_test(test_pacer_line_rate),
		cmocka_unit_test(test_qp_pacing),
		cmocka_unit_test(test_dcqcn_cnp_halves),
		cmocka_unit_test(test_np_coalescing),
		cmocka_unit_test(test_lat_hist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

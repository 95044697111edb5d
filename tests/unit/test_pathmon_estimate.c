// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_pathmon_estimate.c - the RTT estimates of the passive path
 * measurement (dataplane/path/pathmon_*.c) on a fake clock: the windowed
 * minimum RTT, the exact samples of the departure ring, srtt; the standing
 * RTT as the minimum over the flows (one flow's own queue further on is not
 * the path's, also when its samples come more often than the others'); a
 * long RTT with few samples per rate window.
 */
#include "test_pathmon.h"

/* ---- windowed min RTT and srtt ---- */

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_min_rtt_window),
		cmocka_unit_test(test_exact_ring),
		cmocka_unit_test(test_srtt),
		cmocka_unit_test(test_standing_over_flows),
		cmocka_unit_test(test_standing_sparse_flows),
		cmocka_unit_test(test_long_rtt_ring),
		cmocka_unit_test(test_long_rtt_sample_after_now),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

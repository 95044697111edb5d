// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_pathmon_table.c - the bounds and life cycle of the passive path
 * measurement (dataplane/path/pathmon_*.c) on a fake clock: a bounded table
 * under a flood of new flows (table_full, fixed memory, expiry frees slots,
 * the index left empty, RoCE pairs leave together); the per-ms sampling
 * budget; pending-sample expiry; the estimate's validity; a flow met again
 * after flow_idle_ns; pathmon_reset; the parameters.
 */
#include "test_pathmon.h"

/* ---- bounds ---- */

static void test_table_bounded(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k;
	uint64_t mem;

	params(&p);
	p.max_flows = 16;
	p.sweep_per_call = 0;
	p.flow_idle_ns = 100 * MS;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	mem = pathmon_mem_bytes(&pm);
	assert_true(mem > 0);
	for (uint32_t i = 0; i < 1000; i++) {
		k = tkey(i);
		assert_false(dep_at(&pm, &k, 1, 100, 0, i * US));
	}
	assert_int_equal(pathmon_flows(&pm), 16);
	assert_int_equal(ctr_read(&pm.st.flows_created), 16);
	assert_int_equal(ctr_read(&pm.st.table_full), 984);
	assert_int_equal(pathmon_mem_bytes(&pm), mem);
	assert_int_equal(index_used(&pm), 16);
	/* the flows in the table are measured, the refused ones not */
	k = tkey(3);
	assert_true(dep_at(&pm, &k, 101, 100, 0, 2 * MS));
	assert_int_equal(ack_at(&pm, &k, 201, 0, 2100 * US), 100 * US);
	k = tkey(500);
	assert_false(dep_at(&pm, &k, 101, 100, 0, 3 * MS));
	assert_int_equal(ack_at(&pm, &k, 201, 0, 3100 * US), 0);
	assert_int_equal(ctr_read(&pm.st.acks_unmatched), 1);
	/* expiry frees the slots: not before the idle time */
	assert_int_equal(pathmon_sweep(&pm, 50 * MS, 16), 0);
	assert_int_equal(pathmon_sweep(&pm, 200 * MS, 16), 16);
	assert_int_equal(pathmon_flows(&pm), 0);
	assert_int_equal(index_used(&pm), 0);
	for (uint32_t i = 2000; i < 2016; i++) {
		k = tkey(i);
		dep_at(&pm, &k, 1, 100, 0, 201 * MS);
	}
	assert_int_equal(pathmon_flows(&pm), 16);
	assert_int_equal(ctr_read(&pm.st.table_full), 985);
	pathmon_fini(&pm);

	/* the incremental sweep of every call frees them as well */
	p.sweep_per_call = 2;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	for (uint32_t i = 0; i < 16; i++) {
		k = tkey(i);
		dep_at(&pm, &k, 1, 100, 0, 0);
	}
	for (uint32_t i = 100; i < 200; i++) {
		k = tkey(i);
		dep_at(&pm, &k, 1, 100, 0, 1 * SEC);
	}
	assert_int_equal(ctr_read(&pm.st.flows_expired), 16);
	assert_int_equal(pathmon_flows(&pm), 16);
	assert_int_equal(ctr_read(&pm.st.table_full), 100 - 16);
	assert_int_equal(index_used(&pm), 16);
	pathmon_fini(&pm);
}

/* RoCE flows hold two index entries once paired: both leave with them
 * (also when the ACK's QPN field had bits above 24 set). */
static void test_table_roce_pairs_expire(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;

	params(&p);
	p.max_flows = 8;
	p.sweep_per_call = 0;
	p.max_learn_per_ms = 1000;
	p.flow_idle_ns = 100 * MS;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	for (uint32_t round = 0; round < 3; round++) {
		uint64_t t0 = round * SEC;

		for (uint32_t i = 0; i < 50; i++) {
			struct pathmon_key k = rkey((uint8_t)i, 0x100 + i);
			/* bits above the 24 of a QPN are not the QPN's */
			struct pathmon_key ak =
				rkey((uint8_t)i, (0x200 + i) | round << 24);

			rdep_at(&pm, &k, 10 * i, PATHMON_DF_ACKREQ, 64,
				t0 + i * US);
			rack_at(&pm, &ak, 10 * i, AETH_ACK, t0 + i * US + 1);
		}
		assert_int_equal(pathmon_flows(&pm), 8);
		assert_int_equal(index_used(&pm), 16); /* 8 flows, 8 pairs */
		assert_int_equal(pathmon_sweep(&pm, t0 + 500 * MS, 8), 8);
		assert_int_equal(index_used(&pm), 0);
	}
	assert_int_equal(ctr_read(&pm.st.qpn_learned), 24);
	pathmon_fini(&pm);
}

static void test_budget(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k;
	uint32_t started = 0, per_ms[200] = {0};
	uint64_t rng = 42;

	params(&p);
	p.max_samples_per_ms = 3;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	for (uint32_t i = 0; i < 50; i++) {
		k = tkey(i);
		dep_at(&pm, &k, 1, 100, 0, i * US);
	}
	for (uint32_t i = 0; i < 50; i++) {
		k = tkey(i);
		started += dep_at(&pm, &k, 101, 100, 0, 1 * MS + i * 10 * US);
	}
	assert_int_equal(started, 3);
	assert_int_equal(ctr_read(&pm.st.budget_refused), 47);
	/* next ms: 3 more (47 flows have none pending) */
	started = 0;
	for (uint32_t i = 0; i < 50; i++) {
		k = tkey(i);
		started += dep_at(&pm, &k, 201, 100, 0, 2 * MS + i * 10 * US);
	}
	assert_int_equal(started, 3);
	/* random departures and ACKs for 200 ms: never more than 3 new
	 * samples in a millisecond */
	for (uint64_t t = 3 * MS; t < 200 * MS; t += 7 * US) {
		uint32_t i;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		i = (uint32_t)(rng >> 40) % 50;
		k = tkey(i);
		if (dep_at(&pm, &k, (uint32_t)(t / US) * 100, 100, 0, t))
			per_ms[t / MS]++;
		ack_at(&pm, &k, (uint32_t)(t / US) * 100 + 100, 0, t + 1);
	}
	for (uint32_t ms = 0; ms < 200; ms++)
		assert_true(per_ms[ms] <= 3);
	assert_true(ctr_read(&pm.st.samples_started[PATHMON_TCP_SEQ]) > 300);
	pathmon_fini(&pm);
}

static void test_pending_expiry(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct ts_flow f = {.k = tkey(13), .seq = 1, .ts = 1};

	params(&p);
	p.sweep_per_call = 0;
	p.sample_min_age_ns = 10 * MS;
	p.sample_max_age_ns = 2 * SEC;
	p.age_mult = 8;
	p.flow_idle_ns = 60 * SEC;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &f.k, 0, 1, 1, 0));
	/* no RTT known yet: a sample waits up to the maximum age */
	assert_true(dep_at(&pm, &f.k, 1, 100, 2, 1 * MS));
	assert_false(dep_at(&pm, &f.k, 101, 100, 3, 1 * MS + 2 * SEC));
	assert_int_equal(ctr_read(&pm.st.expired), 0);
	assert_true(dep_at(&pm, &f.k, 201, 100, 4, 2 * MS + 2 * SEC));
	assert_int_equal(ctr_read(&pm.st.expired), 1);
	/* its late echo is no sample; the new one's is */
	assert_int_equal(ack_at(&pm, &f.k, 101, 2, 3 * SEC), 0);
	assert_int_equal(ack_at(&pm, &f.k, 301, 4, 3 * SEC),
			 3 * SEC - 2 * MS - 2 * SEC);
	pathmon_fini(&pm);
	/* with srtt 100 us: the limit is max(8 x 100 us, 10 ms) = 10 ms */
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &f.k, 0, 1, 1, 0));
	f.seq = 1;
	f.ts = 1;
	ts_sample(&pm, &f, 1 * MS, 100 * US);
	assert_true(dep_at(&pm, &f.k, f.seq, 100, 50, 2 * MS));
	assert_int_equal(pathmon_sweep(&pm, 11 * MS, 16), 0);
	assert_int_equal(ctr_read(&pm.st.expired), 0);
	pathmon_sweep(&pm, 12 * MS + 1, 64);
	assert_int_equal(ctr_read(&pm.st.expired), 1);
	assert_int_equal(ack_at(&pm, &f.k, f.seq + 100, 50, 13 * MS), 0);
	pathmon_fini(&pm);
}

static void test_estimate_valid(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct ts_flow f = {.k = tkey(14), .seq = 1, .ts = 1};
	struct pathmon_est e;

	params(&p);
	p.min_samples = 3;
	p.interval_ns = 10 * MS;
	p.rate_intervals = 10;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	pathmon_estimate(&pm, 0, &e);
	assert_false(e.valid);
	assert_int_equal(e.base_rtt_ns, 0);
	assert_false(dep_at(&pm, &f.k, 0, 1, 1, 0));
	f.seq = 1;
	ts_sample(&pm, &f, 1 * MS, 100 * US);
	ts_sample(&pm, &f, 2 * MS, 100 * US);
	pathmon_estimate(&pm, 3 * MS, &e);
	assert_false(e.valid);
	assert_int_equal(e.samples_recent, 2);
	ts_sample(&pm, &f, 15 * MS, 100 * US);
	pathmon_estimate(&pm, 16 * MS, &e);
	assert_true(e.valid);
	assert_int_equal(e.samples_recent, 3);
	/* the samples age out of the rate window (10 x 10 ms) */
	pathmon_estimate(&pm, 105 * MS, &e);
	assert_true(e.valid);
	pathmon_estimate(&pm, 125 * MS, &e);
	assert_false(e.valid);
	assert_int_equal(e.samples_recent, 0);
	assert_int_equal(e.base_rtt_ns, 100 * US); /* the base stays */
	pathmon_fini(&pm);
}

/* ---- gaps: a flow met again after flow_idle_ns, a reset ---- */

/* Nothing of the flow was seen for 5 s (the monitor was not called:
 * adaptive egress off), while it sent 62.5 MB: its old ACK state is not
 * revived, so the first ACK after the gap credits nothing. */
static void test_gap_not_credited(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(23);
	struct pathmon_est e;
	const uint32_t gap = 62500000;

	(void)state;
	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	dep_at(&pm, &k, 1000, 1000, 0, 0);
	dep_at(&pm, &k, 2000, 1000, 0, 1 * MS);
	ack_at(&pm, &k, 2000, 0, 2 * MS);
	ack_at(&pm, &k, 3000, 0, 3 * MS);
	/* 5 s later, 62.5 MB further */
	dep_at(&pm, &k, 3000 + gap, 1000, 0, 5 * SEC);
	dep_at(&pm, &k, 4000 + gap, 1000, 0, 5 * SEC + 100 * US);
	ack_at(&pm, &k, 4000 + gap, 0, 5 * SEC + 1 * MS);
	ack_at(&pm, &k, 5000 + gap, 0, 5 * SEC + 2 * MS);
	pathmon_estimate(&pm, 5 * SEC + 15 * MS, &e);
	print_message("delivery after the gap: %.0f bit/s (max %.0f)\n",
		      e.delivery_bps_last, e.delivery_bps);
	assert_true(e.delivery_bps < 2e6); /* 1000 B in 10 ms: 0.8 Mbit/s */
	assert_int_equal(ctr_read(&pm.st.flows_expired), 1);
	pathmon_fini(&pm);
}

/* pathmon_reset: no flows, no samples, no intervals; then as new. */
static void test_reset(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct ts_flow f = {.k = tkey(24), .seq = 1, .ts = 1};
	struct pathmon_est e;

	(void)state;
	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	assert_false(dep_at(&pm, &f.k, 0, 1, 1, 0));
	f.seq = 1;
	ts_sample(&pm, &f, 1 * MS, 100 * US);
	ts_sample(&pm, &f, 2 * MS, 100 * US);
	pathmon_estimate(&pm, 3 * MS, &e);
	assert_true(e.valid);
	assert_int_equal(pm.n_samples, 2);
	pathmon_reset(&pm, 4 * MS);
	assert_int_equal(pm.n_samples, 0);
	assert_int_equal(pathmon_flows(&pm), 0);
	assert_int_equal(index_used(&pm), 0);
	pathmon_estimate(&pm, 5 * MS, &e);
	assert_false(e.valid);
	assert_int_equal(e.base_rtt_ns, 0);
	assert_int_equal(e.srtt_ns, 0);
	assert_int_equal(e.last_sample_ns, 0);
	assert_true(e.delivery_bps == 0);
	/* the flow is new again: its first departure is state only */
	assert_false(dep_at(&pm, &f.k, f.seq, 1000, 100, 6 * MS));
	assert_int_equal(pathmon_flows(&pm), 1);
	pathmon_fini(&pm);
}

static void test_params(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;

	params(&p);
	p.max_flows = 100; /* not a power of two */
	assert_int_equal(pathmon_init(&pm, &p, 0), -EINVAL);
	params(&p);
	p.rate_intervals = PATHMON_RATE_WIN_MAX + 1;
	assert_int_equal(pathmon_init(&pm, &p, 0), -EINVAL);
	params(&p);
	p.psn_window = 1u << 24;
	assert_int_equal(pathmon_init(&pm, &p, 0), -EINVAL);
	params(&p);
	p.interval_ns = 0;
	assert_int_equal(pathmon_init(&pm, &p, 0), -EINVAL);
	params(&p);
	p.sample_min_age_ns = p.sample_max_age_ns + 1;
	assert_int_equal(pathmon_init(&pm, &p, 0), -EINVAL);
	pathmon_params_default(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	pathmon_fini(&pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_bounded),
		cmocka_unit_test(test_table_roce_pairs_expire),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_pending_expiry),
		cmocka_unit_test(test_estimate_valid),
		cmocka_unit_test(test_gap_not_credited),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

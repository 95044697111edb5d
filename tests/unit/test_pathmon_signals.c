// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_pathmon_signals.c - the rate and congestion signals of the
 * passive path measurement (dataplane/path/pathmon_*.c) on a fake clock:
 * delivery rate from TCP and RoCE ACK streams at known rates and its
 * windowed maximum; the mark fraction (ECE, CNPs) counting the monitor's
 * own flows only, also with traffic both ways; the flow -> queue table of
 * a port (path_owner.h).
 */
#include "test_pathmon.h"

/* ---- delivery rate ---- */

/* One TCP flow sends MSS segments every gap ns from *t to `until`, each
 * acknowledged `lag` segments later. */
static void tcp_stream(struct pathmon *pm, const struct pathmon_key *k,
		       uint64_t *t, uint32_t *i, uint64_t gap, uint64_t until)
{
	const uint32_t mss = 1448, lag = 10;

	for (; *t < until; *t += gap, (*i)++) {
		dep_at(pm, k, *i * mss, mss, 0, *t);
		if (*i >= lag)
			ack_at(pm, k, (*i - lag + 1) * mss, 0, *t);
	}
}

static void test_delivery_rate_tcp(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(8);
	struct pathmon_est e;
	uint64_t t = 0;
	uint32_t i = 0;

	params(&p);
	p.interval_ns = 10 * MS;
	p.rate_intervals = 10;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	/* 1 Gbit/s: 1448 bytes every 11584 ns */
	tcp_stream(&pm, &k, &t, &i, 11584, 200 * MS);
	pathmon_estimate(&pm, 200 * MS, &e);
	assert_true(near(e.delivery_bps, 1e9, 0.02));
	assert_true(near(e.delivery_bps_last, 1e9, 0.02));
	/* 250 Mbit/s: the max holds for the window, the last follows */
	tcp_stream(&pm, &k, &t, &i, 4 * 11584, 250 * MS);
	pathmon_estimate(&pm, 250 * MS, &e);
	assert_true(near(e.delivery_bps, 1e9, 0.02));
	assert_true(near(e.delivery_bps_last, 0.25e9, 0.03));
	tcp_stream(&pm, &k, &t, &i, 4 * 11584, 400 * MS);
	pathmon_estimate(&pm, 400 * MS, &e);
	assert_true(near(e.delivery_bps, 0.25e9, 0.03));
	/* idle: the window empties */
	pathmon_estimate(&pm, 600 * MS, &e);
	assert_true(e.delivery_bps == 0 && e.delivery_bps_last == 0);
	pathmon_fini(&pm);
}

static void test_delivery_rate_roce(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = rkey(9, 0x99), ak = rkey(9, 0x98);
	struct pathmon_est e;
	const uint64_t gap = 3277; /* 4096 bytes at 10 Gbit/s */
	uint64_t t = 0;

	params(&p);
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	for (uint32_t psn = 0xfffff0; t < 100 * MS; t += gap) {
		/* one ACK every 4 PSNs, 8 behind */
		rdep_at(&pm, &k, psn, (psn & 3) == 3 ? PATHMON_DF_ACKREQ : 0,
			4096, t);
		if ((psn & 3) == 3)
			rack_at(&pm, &ak, (psn - 8) & PATHMON_PSN_MASK,
				AETH_ACK, t);
		psn = (psn + 1) & PATHMON_PSN_MASK;
	}
	pathmon_estimate(&pm, 100 * MS, &e);
	assert_true(near(e.delivery_bps, 4096 * 8e9 / gap, 0.02));
	assert_true(near(e.delivery_bps_last, 4096 * 8e9 / gap, 0.02));
	assert_true(ctr_read(&pm.st.samples_matched[PATHMON_ROCE_PSN]) > 100);
	pathmon_fini(&pm);
}

/* ---- congestion signals ---- */

static void test_marks(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(10), rk = rkey(7, 0x70), ra = rkey(7, 0x71);
	struct pathmon_ack ev;
	struct pathmon_est e;

	params(&p);
	p.interval_ns = 10 * MS;
	p.mark_shift = 4;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	dep_at(&pm, &k, 0, 100000, 0, 0);
	for (uint32_t i = 0; i < 100; i++) {
		ev = tack(&k, i * 100, 0, i * 10 * US);
		if (i % 4 == 0)
			ev.flags |= PATHMON_AF_ECE;
		pathmon_ack(&pm, &ev, ev.seen_ns);
	}
	pathmon_estimate(&pm, 10 * MS, &e);
	assert_true(near(e.mark_frac_last, 0.25, 1e-9));
	assert_true(near(e.mark_frac, 0.25, 1e-9));
	/* 10 ACKs, 30 CNPs of a paired RoCE flow (each a mark): 0.75;
	 * EWMA gain 1/16 */
	rdep_at(&pm, &rk, 100, PATHMON_DF_ACKREQ, 1000, 10 * MS);
	rdep_at(&pm, &rk, 101, PATHMON_DF_ACKREQ, 1000, 10 * MS);
	rack_at(&pm, &ra, 100, AETH_ACK, 10 * MS); /* pairs: an event */
	for (uint32_t i = 0; i < 39; i++) {
		ev = tack(&k, 10000, 0, 11 * MS + i * US);
		if (i >= 9) {
			memset(&ev, 0, sizeof(ev));
			ev.key = ra;
			ev.type = PATHMON_EV_CNP;
		}
		pathmon_ack(&pm, &ev, 11 * MS + i * US);
	}
	pathmon_estimate(&pm, 20 * MS, &e);
	assert_true(near(e.mark_frac_last, 0.75, 1e-9));
	assert_true(near(e.mark_frac, 0.25 + 0.5 / 16, 1e-9));
	assert_int_equal(ctr_read(&pm.st.ece), 25);
	assert_int_equal(ctr_read(&pm.st.cnps), 30);
	/* an interval without events leaves the fraction alone */
	pathmon_estimate(&pm, 40 * MS, &e);
	assert_true(near(e.mark_frac_last, 0.75, 1e-9));
	pathmon_fini(&pm);
}

/* Only events of the monitor's own flows count in the mark fraction:
 * another monitor's flows' ECE ACKs and CNPs (another queue of the port),
 * the data segments of flows entering the port (they carry the ACK bit)
 * and CNPs of no paired flow are counted unmatched, not as marks or
 * events. */
static void test_marks_own_flows(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(11), other = tkey(12), data = tkey(13);
	struct pathmon_key rk = rkey(8, 0x80), ra = rkey(8, 0x81),
			   rother = rkey(8, 0x91);
	struct pathmon_ack ev;
	struct pathmon_est e;
	uint64_t t;

	params(&p);
	p.interval_ns = 10 * MS;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	dep_at(&pm, &k, 0, 100000, 0, 0);
	/* 100 ACKs of k, 25 marked, among 3000 data segments of a flow that
	 * enters the port (not in the table) */
	for (uint32_t i = 0; i < 3100; i++) {
		t = 10 * US + i * 3 * US;
		if (i % 31 == 0) {
			ev = tack(&k, (i / 31) * 100, 0, t);
			if ((i / 31) % 4 == 0)
				ev.flags |= PATHMON_AF_ECE;
		} else {
			ev = tack(&data, i, 0, t);
		}
		pathmon_ack(&pm, &ev, t);
	}
	pathmon_estimate(&pm, 10 * MS, &e);
	assert_true(near(e.mark_frac_last, 0.25, 1e-9));
	assert_int_equal(ctr_read(&pm.st.acks_unmatched), 3000);
	assert_int_equal(ctr_read(&pm.st.ece), 25);

	/* another queue's flows: every ACK marked, and CNPs; k's 100 ACKs
	 * unmarked */
	for (uint32_t i = 0; i < 300; i++) {
		t = 10 * MS + 10 * US + i * 10 * US;
		if (i % 3 == 0) {
			ev = tack(&k, 10000 + i, 0, t);
		} else if (i % 3 == 1) {
			ev = tack(&other, i, 0, t);
			ev.flags |= PATHMON_AF_ECE;
		} else {
			memset(&ev, 0, sizeof(ev));
			ev.key = rother;
			ev.type = PATHMON_EV_CNP;
			ev.seen_ns = t;
		}
		pathmon_ack(&pm, &ev, t);
	}
	pathmon_estimate(&pm, 20 * MS, &e);
	assert_true(e.mark_frac_last == 0);
	assert_int_equal(ctr_read(&pm.st.ece), 25);
	assert_int_equal(ctr_read(&pm.st.cnps), 0);

	/* a RoCE flow of this monitor: its CNPs count once an ACK paired
	 * its requester QP, not before */
	rdep_at(&pm, &rk, 500, PATHMON_DF_ACKREQ, 1000, 21 * MS);
	rdep_at(&pm, &rk, 501, PATHMON_DF_ACKREQ, 1000, 21 * MS);
	memset(&ev, 0, sizeof(ev));
	ev.key = ra;
	ev.type = PATHMON_EV_CNP;
	ev.seen_ns = 22 * MS;
	pathmon_ack(&pm, &ev, 22 * MS); /* not paired yet */
	rack_at(&pm, &ra, 500, AETH_ACK, 23 * MS);
	for (uint32_t i = 0; i < 3; i++) {
		ev.seen_ns = 24 * MS + i * US;
		pathmon_ack(&pm, &ev, ev.seen_ns);
	}
	pathmon_estimate(&pm, 30 * MS, &e);
	assert_true(near(e.mark_frac_last, 0.75, 1e-9));
	assert_int_equal(ctr_read(&pm.st.cnps), 3);
	assert_int_equal(ctr_read(&pm.st.acks_unmatched), 3000 + 200 + 1);
	pathmon_fini(&pm);
}

/* Traffic both ways: a flow whose departures are pure ACKs is the
 * reverse of a flow that enters the port; the segments that come back
 * for it are that flow's data (with the ACK bit), not ACKs of data that
 * left: they are not events of the mark fraction. */
static void test_marks_reverse_data(void **state)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k = tkey(21), rev = tkey(22);
	struct pathmon_ack ev;
	struct pathmon_est e;
	uint64_t t;

	params(&p);
	p.interval_ns = 10 * MS;
	assert_int_equal(pathmon_init(&pm, &p, 0), 0);
	dep_at(&pm, &k, 0, 100000, 0, 0);
	/* the ACKs of the data that enters: the flow rev, no payload */
	dep_at(&pm, &rev, 5000, 0, 0, 0);
	dep_at(&pm, &rev, 5000, 0, 0, 1 * US);
	for (uint32_t i = 0; i < 3100; i++) {
		t = 10 * US + i * 3 * US;
		if (i % 31 == 0) {
			ev = tack(&k, (i / 31) * 100, 0, t);
			if ((i / 31) % 4 == 0)
				ev.flags |= PATHMON_AF_ECE;
		} else {
			ev = tack(&rev, 5000, 0, t); /* its data */
		}
		pathmon_ack(&pm, &ev, t);
	}
	pathmon_estimate(&pm, 10 * MS, &e);
	assert_true(near(e.mark_frac_last, 0.25, 1e-9));
	assert_int_equal(ctr_read(&pm.st.acks_unmatched), 3000);
	/* once it sends data of its own, its ACKs count */
	dep_at(&pm, &rev, 5000, 1000, 0, 11 * MS);
	ev = tack(&rev, 6000, 0, 12 * MS);
	ev.flags |= PATHMON_AF_ECE;
	pathmon_ack(&pm, &ev, 12 * MS);
	pathmon_estimate(&pm, 20 * MS, &e);
	assert_true(near(e.mark_frac_last, 1.0, 1e-9));
	pathmon_fini(&pm);
}

/* ---- the flow -> queue table of a port (path_owner.h) ---- */

static void test_path_owner(void **state)
{
	struct path_owner o;
	struct pathmon_key k, r1 = rkey(5, 0x10), r2 = rkey(5, 0x20),
			      ra = rkey(5, 0x11), r6 = rkey(6, 0x10);
	uint32_t found = 0;

	assert_int_equal(path_owner_init(&o, 0, 1), -EINVAL);
	assert_int_equal(path_owner_init(&o, 1000, 1), 0);
	assert_int_equal(path_owner_mem_bytes(&o), 1024 * 4);
	k = tkey(1);
	assert_int_equal(path_owner_find(&o, &k), PATH_OWNER_NONE);
	path_owner_set(&o, &k, 3);
	assert_int_equal(path_owner_find(&o, &k), 3);
	path_owner_set(&o, &k, 5); /* TCP: the last sender */
	assert_int_equal(path_owner_find(&o, &k), 5);
	/* RoCE: the hosts; an ACK's key (the requester's QP) finds them */
	path_owner_set(&o, &r1, 2);
	assert_int_equal(path_owner_find(&o, &ra), 2);
	assert_int_equal(path_owner_find(&o, &r6), PATH_OWNER_NONE);
	path_owner_set(&o, &r2, 2);
	assert_int_equal(path_owner_find(&o, &ra), 2);
	path_owner_set(&o, &r2, 4);
	assert_int_equal(path_owner_find(&o, &ra), PATH_OWNER_SEVERAL);
	path_owner_set(&o, &r1, 2);
	assert_int_equal(path_owner_find(&o, &ra), PATH_OWNER_SEVERAL);
	/* twice the flows the table holds: the last ones are found, a
	 * flow never set is not, and nothing is found wrong */
	for (uint32_t i = 100; i < 2148; i++) {
		k = tkey(i);
		path_owner_set(&o, &k, i % 7);
	}
	for (uint32_t i = 100; i < 2148; i++) {
		int q;

		k = tkey(i);
		q = path_owner_find(&o, &k);
		assert_true(q == PATH_OWNER_NONE || q == (int)(i % 7));
		found += q != PATH_OWNER_NONE;
	}
	k = tkey(1);
	k.dport = 1;
	assert_int_equal(path_owner_find(&o, &k), PATH_OWNER_NONE);
	assert_true(found >= 900 && found <= 1024);
	path_owner_fini(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delivery_rate_tcp),
		cmocka_unit_test(test_delivery_rate_roce),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_marks_own_flows),
		cmocka_unit_test(test_marks_reverse_data),
		cmocka_unit_test(test_path_owner),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

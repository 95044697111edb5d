// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_sched_ecn.c - RED/ECN through the egress scheduler's enqueue path
 * on real IPv4 frames: marking and dropping by ECN codepoint, the RED
 * depth, and the enqueue fast path ending where RED starts.
 */
#include "test_sched.h"

/* --- ECN through the enqueue path --- */

static uint16_t ipv4_csum(const uint8_t *h)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		if (i != 10)
			sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Ethernet + IPv4 (no options) of `len` bytes with the given ECN. */
static void make_frame(uint8_t *f, uint32_t len, unsigned int ecn)
{
	uint16_t c;

	memset(f, 0, len);
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = (uint8_t)(0xb8 | ecn); /* DSCP 46 */
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = 17;
	f[26] = 10;
	f[29] = 1;
	f[30] = 10;
	f[33] = 2;
	c = ipv4_csum(f + 14);
	f[24] = (uint8_t)(c >> 8);
	f[25] = (uint8_t)c;
}

static int enq_ip(struct sched *s, unsigned int cls, uint8_t *f, uint32_t len,
		  unsigned int ecn, uint64_t now)
{
	struct frame_desc d = {
		.addr = next_addr++,
		.len = len,
		.meta = frame_meta_pack(cls, ecn, ECN_L3_IPV4, 14),
	};

	return sched_enqueue(s, &d, f, now);
}

static void last_meta(const struct frame_desc *d, void *arg)
{
	*(uint32_t *)arg = d->meta;
}

static void test_ecn_enqueue(void **state)
{
	uint8_t f[1000], pristine[1000];
	const struct sched_class_stats *st;
	struct frame_desc out[64];
	struct qos_policy p;
	struct qos_class *c;
	struct sched s;
	uint32_t meta;

	for (int nonect = QOS_NONECT_DROP; nonect <= QOS_NONECT_PASS;
	     nonect++) {
		policy_init(&p, 0, 0);
		c = add_class(&p, 0, 1500);
		c->ecn.enabled = true;
		c->ecn.kmin = 10000;
		c->ecn.kmax = 20000;
		c->ecn.pmax = QOS_PROB_ONE / 2;
		c->ecn.nonect = (enum qos_nonect)nonect;
		assert_int_equal(sched_init(&s, &p, 0, 0), 0);
		st = sched_class_stats(&s, 0);

		/* below kmin: ECT not marked, Not-ECT queued */
		make_frame(f, 1000, ECN_ECT0);
		memcpy(pristine, f, 1000);
		for (int i = 0; i < 10; i++)
			assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_ECT0, 0),
					 0);
		assert_memory_equal(f, pristine, 1000);
		assert_int_equal(ctr_read(&st->ecn_marks), 0);
		/* fill to 21000 with CE frames: CE stays CE, never dropped */
		make_frame(f, 1000, ECN_CE);
		for (int i = 0; i < 11; i++)
			assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_CE, 0), 0);
		assert_int_equal(ctr_read(&st->ecn_marks), 0);

		/* above kmax: ECT(0) and ECT(1) marked, checksum valid */
		for (unsigned int e = ECN_ECT1; e <= ECN_ECT0; e++) {
			make_frame(f, 1000, e);
			memcpy(pristine, f, 1000);
			assert_int_equal(enq_ip(&s, 0, f, 1000, e, 0), 0);
			assert_int_equal(f[15], pristine[15] | 3);
			assert_int_equal(f[24] << 8 | f[25], ipv4_csum(f + 14));
			sched_foreach(&s, last_meta, &meta);
			assert_int_equal(frame_meta_ecn(meta), ECN_CE);
		}
		assert_int_equal(ctr_read(&st->ecn_marks), 2);

		/* Not-ECT: dropped or queued unmarked */
		make_frame(f, 1000, ECN_NOT_ECT);
		memcpy(pristine, f, 1000);
		assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_NOT_ECT, 0),
				 nonect == QOS_NONECT_DROP
					 ? SCHED_DROP_ECN_NONECT
					 : SCHED_QUEUED);
		assert_memory_equal(f, pristine, 1000);
		/* ECT by the meta but truncated: handled as Not-ECT */
		make_frame(f, 1000, ECN_ECT0);
		memcpy(pristine, f, 1000);
		{
			struct frame_desc d = {
				.addr = next_addr++,
				.len = 30,
				.meta = frame_meta_pack(0, ECN_ECT0,
							ECN_L3_IPV4, 14),
			};
			assert_int_equal(sched_enqueue(&s, &d, f, 0),
					 nonect == QOS_NONECT_DROP
						 ? SCHED_DROP_ECN_NONECT
						 : SCHED_QUEUED);
		}
		assert_memory_equal(f, pristine, 1000);
		assert_int_equal(ctr_read(&st->drops[SCHED_DROP_ECN_NONECT]),
				 nonect == QOS_NONECT_DROP ? 2 : 0);
		assert_int_equal(ctr_read(&st->ecn_marks), 2);
		while (sched_dequeue(&s, out, 64, 0))
			;
		sched_fini(&s);
	}
}

/* RED through the scheduler, at a queue of 15000 bytes held constant
 * (kmin 10000, kmax 20000, pmax 0.5): the depth RED sees excludes the
 * arriving frame, so p = 0.25 (0.30 if it were included). */
static void test_ecn_red_depth(void **state)
{
	uint8_t f[1000], pristine[1000];
	const struct sched_class_stats *st;
	struct frame_desc out[4];
	struct qos_policy p;
	struct qos_class *c;
	struct sched s;
	const uint32_t n = 200000;
	double got, sigma = sqrt(0.25 * 0.75 / n);

	policy_init(&p, 0, 0);
	c = add_class(&p, 0, 1500);
	c->ecn.enabled = true;
	c->ecn.kmin = 10000;
	c->ecn.kmax = 20000;
	c->ecn.pmax = QOS_PROB_ONE / 2;
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	st = sched_class_stats(&s, 0);
	make_frame(f, 1000, ECN_CE);
	for (int i = 0; i < 15; i++)
		assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_CE, 0), 0);
	make_frame(pristine, 1000, ECN_ECT0);
	for (uint32_t i = 0; i < n; i++) {
		memcpy(f, pristine, 40);
		assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_ECT0, 0), 0);
		assert_int_equal(sched_dequeue(&s, out, 1, 0), 1);
	}
	got = (double)ctr_read(&st->ecn_marks) / n;
	printf("  marked %.5f at 15000 B (p 0.25, 3 sigma %.5f)\n", got,
	       3 * sigma);
	assert_true(fabs(got - 0.25) <= 3 * sigma);
	sched_fini(&s);
}

/* The enqueue fast path stops where RED starts: below kmin no random
 * number is drawn (the generator's state does not move) and nothing is
 * marked; from kmin on RED decides (here p = pmax = 1/2: draws). */
static void test_enqueue_below_red(void **state)
{
	uint8_t f[1000];
	struct qos_policy p;
	struct qos_class *c;
	struct sched s;
	uint64_t rng;

	policy_init(&p, 0, 0);
	c = add_class(&p, 0, 1500);
	c->ecn.enabled = true;
	c->ecn.kmin = 3000;
	c->ecn.kmax = 3000;
	c->ecn.pmax = QOS_PROB_ONE / 2;
	add_class(&p, 0, 1500); /* no ECN: never RED */
	assert_int_equal(sched_init(&s, &p, 0, 0), 0);
	assert_int_equal(s.cl[0].red_from, 3000);
	assert_int_equal(s.cl[1].red_from, UINT32_MAX);
	rng = s.rng;
	for (int i = 0; i < 3; i++) { /* queue 0, 1000, 2000 B */
		make_frame(f, 1000, ECN_ECT0);
		assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_ECT0, 0), 0);
		assert_int_equal(f[15] & 3, ECN_ECT0);
	}
	for (int i = 0; i < 10; i++)
		assert_int_equal(enq(&s, 1, 1000, 0), 0);
	assert_int_equal(s.rng, rng);
	assert_int_equal(ctr_read(&sched_class_stats(&s, 0)->ecn_marks), 0);
	make_frame(f, 1000, ECN_ECT0); /* queue 3000 B: RED draws */
	assert_int_equal(enq_ip(&s, 0, f, 1000, ECN_ECT0, 0), 0);
	assert_true(s.rng != rng);
	sched_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ecn_enqueue),
		cmocka_unit_test(test_ecn_red_depth),
		cmocka_unit_test(test_enqueue_below_red),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_ecn.c - the RED marking decision (the measured marking fraction
 * against the configured line, 0 below kmin, 1 above kmax) and ECT -> CE
 * marking: IPv4 with and without options (the checksum is recomputed from
 * scratch and must match, no other byte may change), IPv6 (traffic class
 * only, flow label untouched), Not-ECT and CE left alone, and truncated
 * frames not touched -- each placed right before an inaccessible page, so a
 * read past the frame's end crashes the test.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include "ecn.h"

#define N_DECISIONS 1000000

static double measure(const struct ecn_red *r, uint64_t qbytes, uint64_t *rng,
		      uint32_t n)
{
	uint32_t hits = 0;

	for (uint32_t i = 0; i < n; i++)
		hits += ecn_red_choose(r, qbytes, rng);
	return (double)hits / n;
}

/* The marking fraction at depths between kmin and kmax is within 3 sigma
 * of pmax * (q - kmin) / (kmax - kmin), sigma = sqrt(p (1 - p) / n). */
static void test_red_line(void **state)
{
	static const struct qos_ecn cfgs[] = {
		{.kmin = 150000, .kmax = 1500000, .pmax = 13107}, /* 0.2 */
		{.kmin = 10000, .kmax = 20000, .pmax = QOS_PROB_ONE},
		{.kmin = 0, .kmax = 3000000, .pmax = 655}, /* ~0.01 */
	};
	static const double fracs[] = {0.05, 0.25, 0.5, 0.75, 0.9, 1.0};
	uint64_t rng;

	ecn_rng_seed(&rng, 42);
	for (size_t c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
		struct ecn_red r;

		assert_int_equal(ecn_red_init(&r, &cfgs[c]), 0);
		for (size_t f = 0; f < sizeof(fracs) / sizeof(fracs[0]); f++) {
			uint64_t q = cfgs[c].kmin +
				     (uint64_t)(fracs[f] *
						(cfgs[c].kmax - cfgs[c].kmin));
			double p = (double)cfgs[c].pmax / QOS_PROB_ONE *
				   (double)(q - cfgs[c].kmin) /
				   (double)(cfgs[c].kmax - cfgs[c].kmin);
			double got = measure(&r, q, &rng, N_DECISIONS);
			double sigma = sqrt(p * (1 - p) / N_DECISIONS);

			printf("  kmin %7u kmax %7u pmax %.4f q %7llu: p %.5f "
			       "measured %.5f (%+.2f sigma)\n",
			       cfgs[c].kmin, cfgs[c].kmax,
			       (double)cfgs[c].pmax / QOS_PROB_ONE,
			       (unsigned long long)q, p, got,
			       sigma > 0 ? (got - p) / sigma : 0.0);
			if (sigma > 0)
				assert_true(fabs(got - p) <= 3 * sigma);
			else
				assert_true(got == p);
		}
	}
}

/* 0 below kmin (and at kmin), 1 above kmax; kmin == kmax: pmax there. */
static void test_red_edges(void **state)
{
	struct qos_ecn cfg = {.kmin = 100000, .kmax = 200000, .pmax = 32768};
	struct ecn_red r;
	uint64_t rng;

	ecn_rng_seed(&rng, 7);
	assert_int_equal(ecn_red_init(&r, &cfg), 0);
	assert_true(measure(&r, 0, &rng, 100000) == 0.0);
	assert_true(measure(&r, 99999, &rng, 100000) == 0.0);
	assert_true(measure(&r, 100000, &rng, 100000) == 0.0);
	assert_true(ecn_red_prob(&r, 100001) > 0);
	assert_true(measure(&r, 200001, &rng, 100000) == 1.0);
	assert_true(measure(&r, UINT32_MAX, &rng, 100000) == 1.0);
	/* pmax at kmax, to the slope's rounding (< 1e-9 here) */
	assert_true(ecn_red_prob(&r, 200000) <= ECN_P_ONE / 2 + 100000);
	assert_true(ecn_red_prob(&r, 200000) >= ECN_P_ONE / 2 - 100000);

	cfg.kmin = cfg.kmax = 5000;
	assert_int_equal(ecn_red_init(&r, &cfg), 0);
	assert_true(measure(&r, 4999, &rng, 100000) == 0.0);
	assert_true(fabs(measure(&r, 5000, &rng, N_DECISIONS) - 0.5) <
		    3 * sqrt(0.25 / N_DECISIONS));
	assert_true(measure(&r, 5001, &rng, 100000) == 1.0);

	cfg.pmax = 0; /* mark only above kmax */
	assert_int_equal(ecn_red_init(&r, &cfg), 0);
	assert_true(measure(&r, 5000, &rng, 100000) == 0.0);
	assert_true(measure(&r, 5001, &rng, 100000) == 1.0);

	cfg.kmin = 6000;
	assert_int_equal(ecn_red_init(&r, &cfg), -EINVAL);
	cfg.kmin = 0;
	cfg.pmax = QOS_PROB_ONE + 1;
	assert_int_equal(ecn_red_init(&r, &cfg), -EINVAL);
}

/* Two seeds give different sequences; the same seed the same one. */
static void test_rng_deterministic(void **state)
{
	uint64_t a, b, c;

	ecn_rng_seed(&a, 1);
	ecn_rng_seed(&b, 1);
	ecn_rng_seed(&c, 2);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = ecn_rng_next(&a);

		assert_true(x == ecn_rng_next(&b));
		assert_true(x != ecn_rng_next(&c));
	}
	ecn_rng_seed(&a, 0);
	assert_true(a != 0);
}

/* --- marking --- */

static uint8_t *guard_base;
static long page;

static int setup_guard(void **state)
{
	page = sysconf(_SC_PAGESIZE);
	guard_base = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard_base == MAP_FAILED)
		return -1;
	return mprotect(guard_base + page, page, PROT_NONE);
}

static int teardown_guard(void **state)
{
	munmap(guard_base, 2 * page);
	return 0;
}

/* A frame of len bytes ending right at the inaccessible page. */
static uint8_t *guarded(const uint8_t *src, uint32_t len)
{
	uint8_t *f = guard_base + page - len;

	memcpy(f, src, len);
	return f;
}

static uint64_t lcg_state = 12345;

static uint32_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(lcg_state >> 33);
}

static uint16_t ipv4_csum(const uint8_t *h, unsigned int ihl)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i < ihl; i += 2)
		if (i != 10)
			sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static int ipv4_verifies(const uint8_t *h, unsigned int ihl)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i < ihl; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* Give the header the checksum `target` (not 0xffff, which a from-scratch
 * checksum never is) by choosing its identification field. */
static void set_csum(uint8_t *h, unsigned int ihl, uint16_t target)
{
	uint32_t s;

	h[4] = h[5] = 0;
	s = (uint16_t)~ipv4_csum(h, ihl); /* sum of the other words */
	s = (uint16_t)~target + (uint32_t)(uint16_t)~s; /* ~T -1 S */
	s = (s & 0xffff) + (s >> 16);
	h[4] = (uint8_t)(s >> 8);
	h[5] = (uint8_t)s;
	h[10] = (uint8_t)(target >> 8);
	h[11] = (uint8_t)target;
	assert_int_equal(ipv4_csum(h, ihl), target);
}

/* Ethernet (l3off bytes) + an IPv4 header of ihl bytes + payload. */
static uint32_t make_ipv4(uint8_t *buf, unsigned int l3off, unsigned int ihl,
			  unsigned int ecn, uint32_t payload)
{
	uint8_t *h = buf + l3off;
	uint16_t c;

	for (uint32_t i = 0; i < l3off + ihl + payload; i++)
		buf[i] = (uint8_t)lcg();
	h[0] = (uint8_t)(0x40 | ihl / 4);
	h[1] = (uint8_t)((h[1] & 0xfc) | ecn);
	c = ipv4_csum(h, ihl);
	h[10] = (uint8_t)(c >> 8);
	h[11] = (uint8_t)c;
	return l3off + ihl + payload;
}

static void test_mark_ipv4(void **state)
{
	static const unsigned int ihls[] = {20, 24, 40, 60};
	static const unsigned int offs[] = {14, 18, 22, 0};
	uint8_t buf[256], orig[256];
	unsigned int marked = 0;

	for (int it = 0; it < 20000; it++) {
		unsigned int ihl = ihls[it % 4], off = offs[(it / 4) % 4];
		unsigned int ecn = 1 + (it / 16) % 2; /* ECT(1), ECT(0) */
		uint32_t len = make_ipv4(buf, off, ihl, ecn, (uint32_t)it % 50);
		uint8_t *f = guarded(buf, len);
		uint8_t *h = f + off;

		/* the arithmetic's corner cases: a checksum of 0x0000
		 * before (it 0) or after (it 1) marking */
		if (it == 0) {
			set_csum(h, ihl, 0x0000);
		} else if (it == 1) {
			h[1] |= ECN_CE;
			set_csum(h, ihl, 0x0000);
			h[1] = (uint8_t)((h[1] & 0xfc) | ecn);
			set_csum(h, ihl, ipv4_csum(h, ihl));
		}
		assert_true(ipv4_verifies(h, ihl));
		memcpy(orig, f, len);
		assert_int_equal(ecn_mark_ce(f, len, ECN_L3_IPV4, off),
				 ECN_MARKED);
		marked++;
		assert_int_equal(h[1] & 3, ECN_CE);
		assert_int_equal(h[1] >> 2, orig[off + 1] >> 2); /* DSCP */
		assert_true(ipv4_verifies(h, ihl));
		assert_int_equal(h[10] << 8 | h[11], ipv4_csum(h, ihl));
		if (it == 1)
			assert_int_equal(h[10] << 8 | h[11], 0x0000);
		for (uint32_t i = 0; i < len; i++)
			if (i != off + 1 && i != off + 10 && i != off + 11)
				assert_int_equal(f[i], orig[i]);
		/* marking again: already CE, nothing changes */
		memcpy(orig, f, len);
		assert_int_equal(ecn_mark_ce(f, len, ECN_L3_IPV4, off),
				 ECN_WAS_CE);
		assert_memory_equal(f, orig, len);
	}
	assert_int_equal(marked, 20000);
}

static void test_ipv4_not_ect_untouched(void **state)
{
	uint8_t buf[128], orig[128];
	uint32_t len = make_ipv4(buf, 14, 20, ECN_NOT_ECT, 30);
	uint8_t *f = guarded(buf, len);

	memcpy(orig, f, len);
	assert_int_equal(ecn_mark_ce(f, len, ECN_L3_IPV4, 14), ECN_WAS_NOT_ECT);
	assert_memory_equal(f, orig, len);
}

static uint32_t make_ipv6(uint8_t *buf, unsigned int l3off, unsigned int ecn,
			  uint32_t payload)
{
	uint8_t *h = buf + l3off;

	for (uint32_t i = 0; i < l3off + 40 + payload; i++)
		buf[i] = (uint8_t)lcg();
	h[0] = (uint8_t)(0x60 | (h[0] & 0x0f));
	h[1] = (uint8_t)((h[1] & 0xcf) | ecn << 4);
	return l3off + 40 + payload;
}

static void test_mark_ipv6(void **state)
{
	uint8_t buf[256], orig[256];

	for (int it = 0; it < 4000; it++) {
		unsigned int off = it % 2 ? 14 : 18;
		unsigned int ecn = it % 4 < 2 ? ECN_ECT0 : ECN_ECT1;
		uint32_t len = make_ipv6(buf, off, ecn, (uint32_t)it % 60);
		uint8_t *f = guarded(buf, len);
		uint8_t *h = f + off;
		uint32_t w0, o0;

		memcpy(orig, f, len);
		assert_int_equal(ecn_mark_ce(f, len, ECN_L3_IPV6, off),
				 ECN_MARKED);
		w0 = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 |
		     (uint32_t)h[2] << 8 | h[3];
		o0 = (uint32_t)orig[off] << 24 | (uint32_t)orig[off + 1] << 16 |
		     (uint32_t)orig[off + 2] << 8 | orig[off + 3];
		assert_int_equal((w0 >> 20) & 3, ECN_CE); /* TC ECN bits */
		assert_int_equal(w0 >> 28, 6); /* version */
		assert_int_equal((w0 >> 22) & 0x3f,
				 (o0 >> 22) & 0x3f); /* DSCP */
		assert_int_equal(w0 & 0xfffff, o0 & 0xfffff); /* flow label */
		for (uint32_t i = 0; i < len; i++)
			if (i != off + 1)
				assert_int_equal(f[i], orig[i]);
	}
	/* Not-ECT and CE untouched */
	for (unsigned int ecn = ECN_NOT_ECT; ecn <= ECN_CE; ecn += 3) {
		uint32_t len = make_ipv6(buf, 14, ecn, 10);
		uint8_t *f = guarded(buf, len);

		memcpy(orig, f, len);
		assert_int_equal(ecn_mark_ce(f, len, ECN_L3_IPV6, 14),
				 ecn == ECN_CE ? ECN_WAS_CE : ECN_WAS_NOT_ECT);
		assert_memory_equal(f, orig, len);
	}
}

/* Truncated or inconsistent frames: not touched, and never read past the
 * end (the page after the frame is inaccessible). */
static void test_truncated_untouched(void **state)
{
	uint8_t buf[256], orig[256];
	uint32_t full, len;
	uint8_t *f;

	/* IPv4 cut anywhere inside its header (incl. options) */
	full = make_ipv4(buf, 14, 40, ECN_ECT0, 0);
	for (len = 0; len < full; len++) {
		f = guarded(buf, len);
		memcpy(orig, f, len);
		assert_int_equal(ecn_mark_ce(f, len, ECN_L3_IPV4, 14),
				 ECN_UNMARKABLE);
		assert_memory_equal(f, orig, len);
	}
	f = guarded(buf, full);
	assert_int_equal(ecn_mark_ce(f, full, ECN_L3_IPV4, 14), ECN_MARKED);

	/* IPv6 cut inside its 40-byte header */
	full = make_ipv6(buf, 14, ECN_ECT1, 0);
	for (len = 0; len < full; len++) {
		f = guarded(buf, len);
		memcpy(orig, f, len);
		assert_int_equal(ecn_mark_ce(f, len, ECN_L3_IPV6, 14),
				 ECN_UNMARKABLE);
		assert_memory_equal(f, orig, len);
	}

	/* wrong version for the claimed kind, bad IHL, no L3, offset past
	 * the end, no frame */
	full = make_ipv4(buf, 14, 20, ECN_ECT0, 20);
	f = guarded(buf, full);
	memcpy(orig, f, full);
	assert_int_equal(ecn_mark_ce(f, full, ECN_L3_IPV6, 14), ECN_UNMARKABLE);
	assert_int_equal(ecn_mark_ce(f, full, ECN_L3_NONE, 14), ECN_UNMARKABLE);
	assert_int_equal(ecn_mark_ce(f, full, 3, 14), ECN_UNMARKABLE);
	assert_int_equal(ecn_mark_ce(f, full, ECN_L3_IPV4, full),
			 ECN_UNMARKABLE);
	assert_int_equal(ecn_mark_ce(f, full, ECN_L3_IPV4, 255),
			 ECN_UNMARKABLE);
	f[14] = 0x44; /* IHL 4: 16 bytes, invalid */
	memcpy(orig, f, full);
	assert_int_equal(ecn_mark_ce(f, full, ECN_L3_IPV4, 14), ECN_UNMARKABLE);
	assert_memory_equal(f, orig, full);
	f[14] = 0x4f; /* IHL 15: 60 bytes, longer than the frame's 40 */
	memcpy(orig, f, full);
	assert_int_equal(ecn_mark_ce(f, full, ECN_L3_IPV4, 14), ECN_UNMARKABLE);
	assert_memory_equal(f, orig, full);
	assert_int_equal(ecn_mark_ce(NULL, 100, ECN_L3_IPV4, 14),
			 ECN_UNMARKABLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_red_line),
		cmocka_unit_test(test_red_edges),
		cmocka_unit_test(test_rng_deterministic),
		cmocka_unit_test(test_mark_ipv4),
		cmocka_unit_test(test_ipv4_not_ect_untouched),
		cmocka_unit_test(test_mark_ipv6),
		cmocka_unit_test(test_truncated_untouched),
	};

	return cmocka_run_group_tests(tests, setup_guard, teardown_guard);
}

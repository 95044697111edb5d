// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udpcheck_selftest.c - udpcheck selftest: the content and the
 * verification against hand-made corruptions, duplicates and reordering.
 */
#include "udpcheck.h"

/* ---- selftest ----------------------------------------------------------- */

static int st_fail;
static unsigned int st_checks;

static void st_expect(bool cond, const char *what, uint64_t a, uint64_t b)
{
	st_checks++;
	if (!cond) {
		st_fail++;
		if (st_fail <= 20)
			fprintf(stderr,
				"udpcheck: selftest FAIL: %s (%" PRIu64
				", %" PRIu64 ")\n",
				what, a, b);
	}
}

int do_selftest(void)
{
	/* 0, 1, 8 and 9 bytes after the header; MTU-sized; largest */
	static const uint32_t lens[] = {18, 19, 26, 27, 64, 1472, UC_MAX_V4};
	uint8_t *pkt = malloc(UC_RXBUF), *pkt2 = malloc(UC_RXBUF);
	struct verifier v = {
		.seed = 42, .expect = 1000, .min = 18, .max = 1472};
	enum verdict vd;
	uint32_t seq;
	size_t diff;

	v.scratch = malloc(UC_RXBUF);
	if (!pkt || !pkt2 || !v.scratch) {
		perror("udpcheck: malloc");
		return 1;
	}

	/* Size policy: deterministic, in range, seq 0 = min, seq 1 = max. */
	{
		uint32_t lo = UINT32_MAX, hi = 0;

		st_expect(pkt_len(7, 0, 18, 1472) == 18, "len(0) == min", 0, 0);
		st_expect(pkt_len(7, 1, 18, 1472) == 1472, "len(1) == max", 0,
			  0);
		for (uint64_t i = 2; i < 100000; i++) {
			uint32_t l = pkt_len(7, i, 18, 1472);

			lo = l < lo ? l : lo;
			hi = l > hi ? l : hi;
			if (l < 18 || l > 1472 || l != pkt_len(7, i, 18, 1472))
				st_expect(false, "len in range", i, l);
		}
		st_expect(lo == 18 && hi == 1472, "len spans [min, max]", lo,
			  hi);
		st_expect(pkt_len(7, 5, 100, 100) == 100, "min == max", 0, 0);
	}

	for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
		uint32_t len = lens[li];

		v.expect = 1000;
		v.max = 0; /* policy off: arbitrary lengths */
		build_pkt(pkt, 42, 999, len);
		vd = verify_pkt(&v, pkt, len, false, &seq, &diff);
		st_expect(vd == V_OK && seq == 999, "intact verifies", len, vd);
		build_pkt(pkt2, 42, 999, len);
		st_expect(memcmp(pkt, pkt2, len) == 0, "deterministic", len, 0);

		/* Every single-bit flip at every offset is caught. */
		for (size_t off = 0; off < len; off++) {
			for (unsigned int bit = 0; bit < 8; bit++) {
				pkt[off] ^= (uint8_t)(1u << bit);
				vd = verify_pkt(&v, pkt, len, false, &seq,
						&diff);
				st_expect(vd != V_OK, "bit flip caught", off,
					  bit);
				pkt[off] ^= (uint8_t)(1u << bit);
			}
			if (len > 1472 && off > 64)
				off += 97; /* sample the jumbo one */
		}
		/* The checksum alone catches payload changes too. */
		if (len > UC_HDR_LEN) {
			uint64_t c0 =
				payload_csum(42, 999, len, pkt + UC_HDR_LEN,
					     len - UC_HDR_LEN);

			pkt[len - 1] ^= 0x80;
			st_expect(c0 != payload_csum(42, 999, len,
						     pkt + UC_HDR_LEN,
						     len - UC_HDR_LEN),
				  "checksum sees last byte", len, 0);
			pkt[len - 1] ^= 0x80;
		}
		/* Truncated by one byte, and extended by one byte. */
		vd = verify_pkt(&v, pkt, len - 1, false, &seq, &diff);
		st_expect(vd != V_OK, "truncation caught", len, vd);
		pkt[len] = 0;
		vd = verify_pkt(&v, pkt, len + 1, false, &seq, &diff);
		st_expect(vd != V_OK, "extension caught", len, vd);
		vd = verify_pkt(&v, pkt, len, true, &seq, &diff);
		st_expect(vd == V_TRUNC, "MSG_TRUNC caught", len, vd);

		/* Wrong seed (sender/receiver mismatch) is caught. */
		v.seed = 43;
		vd = verify_pkt(&v, pkt, len, false, &seq, &diff);
		st_expect(vd == V_DATA, "wrong seed caught", len, vd);
		v.seed = 42;

		/* Out of range seq. */
		v.expect = 999;
		vd = verify_pkt(&v, pkt, len, false, &seq, &diff);
		st_expect(vd == V_SEQ, "seq range caught", len, vd);
		v.expect = 1000;

		/* A well-formed datagram for another seq/len pair whose header
		 * was rewritten to claim this seq is caught. */
		build_pkt(pkt2, 42, 998, len);
		nu_put_be32(pkt2 + 4, 999);
		vd = verify_pkt(&v, pkt2, len, false, &seq, &diff);
		st_expect(vd == V_DATA, "seq swap caught", len, vd);
	}

	/* Length policy: a seq whose size is not len(seq) is caught. */
	{
		uint32_t l5 = pkt_len(42, 5, 18, 1472);
		uint32_t other = l5 == 18 ? 19 : l5 - 1;

		v.min = 18;
		v.max = 1472;
		build_pkt(pkt, 42, 5, l5);
		vd = verify_pkt(&v, pkt, l5, false, &seq, &diff);
		st_expect(vd == V_OK, "policy ok", l5, vd);
		build_pkt(pkt, 42, 5, other);
		vd = verify_pkt(&v, pkt, other, false, &seq, &diff);
		st_expect(vd == V_POLICY, "policy mismatch caught", other, vd);
	}

	/* Accounting: duplicates, reordering. */
	{
		struct recv_stats s = {0};
		uint8_t bm[2] = {0};
		static const uint32_t order[] = {0, 2, 1, 2, 3, 5, 4};

		v.expect = 6;
		v.max = 0;
		for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
			uint32_t l = 18 + 7 * order[k];

			build_pkt(pkt, 42, order[k], l);
			account(&s, &v, bm, pkt, l, false);
		}
		pkt[20] ^= 1;
		quiet_reports = true;
		account(&s, &v, bm, pkt, 18 + 7 * 4, false);
		quiet_reports = false;
		st_expect(s.received == 8 && s.ok == 6 && s.duplicate == 1 &&
				  s.reordered == 2 && s.corrupt == 1,
			  "accounting", s.duplicate, s.reordered);
		st_expect(s.min_size == 18 && s.max_size == 18 + 35, "sizes",
			  s.min_size, s.max_size);
	}

	free(v.scratch);
	free(pkt2);
	free(pkt);
	if (st_fail) {
		fprintf(stderr, "udpcheck: selftest FAILED: %d of %u checks\n",
			st_fail, st_checks);
		return 1;
	}
	printf("udpcheck: selftest ok (%u checks)\n", st_checks);
	return 0;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * roce_peer_selftest.c - roce_peer selftest: the packets built here checked
 * against the dataplane's parser and ICRC (unit.roce_peer_selftest).
 */
#include "roce_peer.h"

/* ---- selftest ---- */

static int st_fail;
static unsigned int st_checks;

static void st_expect(bool cond, const char *what, uint64_t a)
{
	st_checks++;
	if (!cond) {
		st_fail++;
		fprintf(stderr, "roce_peer: selftest FAIL: %s (%" PRIu64 ")\n",
			what, a);
	}
}

/*
 * The frame the kernel would build around a UDP payload built here: the
 * pseudo header with Ethernet in front. Returns its length.
 */
static size_t frame_around(uint8_t *f, const uint8_t *payload, size_t n,
			   const struct endpoint *src,
			   const struct endpoint *dst)
{
	size_t hl = pseudo_hdr_len(src->family);

	memset(f, 0, 12);
	wr16(f + 12, src->family == 4 ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6);
	write_pseudo_hdr(f + 14, src, dst, n);
	f[14 + (src->family == 4 ? 8 : 7)] = 64; /* TTL / hop limit */
	memcpy(f + 14 + hl, payload, n);
	return 14 + hl + n;
}

int do_selftest(void)
{
	static uint8_t buf[RP_HEADROOM + RP_MAX_PAYLOAD];
	static uint8_t frame[RP_MAX_PAYLOAD + 128];
	static struct flow_table t;
	uint8_t *p = buf + RP_HEADROOM;
	struct endpoint a4 = {4, {10, 77, 0, 1}, 4791};
	struct endpoint b4 = {4, {10, 77, 0, 2}, 4791};
	struct endpoint a6 = {6, {0xfd, 0x77, [15] = 1}, 4791};
	struct endpoint b6 = {6, {0xfd, 0x77, [15] = 2}, 4791};
	size_t n, fl;

	/* The module against the golden CNP of tests/unit/test_roce.c. */
	{
		static const uint8_t icrc[4] = {0xda, 0xfc, 0x1b, 0xef};
		struct cnp_spec s;
		uint8_t f[ROCE_CNP_MAX_LEN];

		roce_cnp_spec_default(&s);
		memcpy(s.src_ip, (const uint8_t[]){22, 22, 22, 8}, 4);
		memcpy(s.dst_ip, (const uint8_t[]){22, 22, 22, 7}, 4);
		s.dscp = 34;
		s.ecn = 1;
		s.ttl = 0x20;
		s.ip_id = 0x98c6;
		s.udp_sport = 56238;
		s.dest_qpn = 0xd2;
		n = roce_build_cnp(f, sizeof(f), &s);
		st_expect(n == 74, "golden CNP length", n);
		st_expect(!memcmp(f + 70, icrc, 4), "golden ICRC",
			  roce_icrc_get(f + 70));
		st_expect(f[24] == 0x69 && f[25] == 0x27, "golden checksum",
			  f[24]);
		st_expect(roce_icrc_valid(f, n), "golden valid", n);
	}

	/* A reply CNP built here equals the module's CNP with the IP ID and
	 * UDP ports the kernel uses, for both families. */
	for (int v = 0; v < 2; v++) {
		const struct endpoint *src = v ? &a6 : &a4;
		const struct endpoint *dst = v ? &b6 : &b4;
		struct cnp_spec s;
		uint8_t f[ROCE_CNP_MAX_LEN];
		size_t hl = pseudo_hdr_len(src->family);

		roce_cnp_spec_default(&s);
		s.family = src->family;
		memcpy(s.src_ip, src->addr, 16);
		memcpy(s.dst_ip, dst->addr, 16);
		s.udp_sport = src->port;
		s.dest_qpn = 0x123456;
		fl = roce_build_cnp(f, sizeof(f), &s);
		n = build_cnp_payload(p, 0x123456);
		st_expect(icrc_seal(p, n, src, dst), "seal CNP", (uint64_t)v);
		st_expect(fl == 14 + hl + n && !memcmp(f + 14 + hl, p, n),
			  "reply CNP == roce_build_cnp", (uint64_t)v);
		fl = frame_around(frame, p, n, src, dst);
		st_expect(roce_icrc_valid(frame, fl), "reply CNP valid", fl);
	}

	/* ACK and data packets: valid ICRC, and one changed byte breaks
	 * it; fields read back. */
	for (int v = 0; v < 2; v++) {
		const struct endpoint *src = v ? &a6 : &a4;
		const struct endpoint *dst = v ? &b6 : &b4;
		struct pkt_meta m;

		n = build_ack(p, 0xabcdef, 0x123456, 7);
		st_expect(icrc_seal(p, n, src, dst), "seal ACK", 0);
		fl = frame_around(frame, p, n, src, dst);
		st_expect(roce_icrc_valid(frame, fl), "ACK valid", fl);
		st_expect(pkt_parse(frame, (uint32_t)fl, &m) == PKT_OK &&
				  m.bth_opcode == BTH_OP_RC_ACK &&
				  m.bth_dqpn == 0xabcdef &&
				  m.bth_psn == 0x123456,
			  "ACK fields", m.bth_psn);
		st_expect(frame[fl - 8] == 0x1f && frame[fl - 5] == 7, "AETH",
			  frame[fl - 5]);

		for (int op = 0; op < 2; op++) {
			uint8_t opc =
				op ? BTH_OP_RC_SEND_ONLY : BTH_OP_RC_WRITE_ONLY;

			n = 1000;
			build_data(p, n, opc, 0x11, 0x1000005, true);
			st_expect(icrc_seal(p, n, src, dst), "seal data", 0);
			fl = frame_around(frame, p, n, src, dst);
			st_expect(roce_icrc_valid(frame, fl), "data valid", fl);
			st_expect(pkt_parse(frame, (uint32_t)fl, &m) ==
						  PKT_OK &&
					  m.bth_opcode == opc &&
					  m.bth_psn == 0x000005 &&
					  (m.bth_flags & PKT_BTH_ACKREQ),
				  "data fields", m.bth_psn);
			frame[fl - 100] ^= 0x20;
			st_expect(!roce_icrc_valid(frame, fl),
				  "payload change caught", fl);
		}
	}

	/* Sealing refuses what it cannot describe. */
	st_expect(!icrc_seal(p, 15, &a4, &b4), "short payload refused", 15);
	st_expect(!icrc_seal(p, 100, &a4, &b6), "mixed families refused", 0);

	/* The flow table is bounded; a full one counts and refuses. */
	for (unsigned int i = 0; i < RP_MAX_FLOWS + 10; i++) {
		struct endpoint e = a4;

		e.port = (uint16_t)(1000 + i);
		flow_get(&t, &e);
	}
	st_expect(t.n == RP_MAX_FLOWS, "flows bounded", t.n);
	st_expect(t.overflow == 10, "overflow counted", t.overflow);
	{
		struct endpoint e = a4;
		struct flow *f1, *f2;

		e.port = 1000;
		f1 = flow_get(&t, &e);
		f2 = flow_get(&t, &e);
		st_expect(f1 && f1 == f2 && f1->src.port == 1000,
			  "flow found again", 0);
		/* NP: first mark at once, then one per interval. */
		st_expect(np_allow(f1, 1000000, 50000), "first CNP", 0);
		st_expect(!np_allow(f1, 1049999, 50000), "inside interval", 0);
		st_expect(np_allow(f1, 1050000, 50000), "interval over", 0);
		st_expect(f1->cnps_suppressed == 1, "suppressed counted",
			  f1->cnps_suppressed);
	}

	/* Option parsing. */
	{
		uint64_t u = 0;
		double d = 0;

		st_expect(parse_uint("0x6a", 0, 255, &u) && u == 0x6a, "hex",
			  u);
		st_expect(parse_uint("4791", 0, 65535, &u) && u == 4791,
			  "decimal", u);
		st_expect(!parse_uint("0x1000000", 0, 0xffffff, &u),
			  "24-bit bound", 0);
		st_expect(!parse_uint("-1", 0, 10, &u) &&
				  !parse_uint("1x", 0, 10, &u) &&
				  !parse_uint("", 0, 10, &u),
			  "junk refused", 0);
		st_expect(parse_rate("2.5G", &d) && d == 2.5e9, "rate G", 0);
		st_expect(parse_rate("800M", &d) && d == 8e8, "rate M", 0);
		st_expect(!parse_rate("0", &d) && !parse_rate("1T", &d) &&
				  !parse_rate("G", &d),
			  "bad rates refused", 0);
		st_expect(!parse_seconds("3601", &d) &&
				  parse_seconds("0.5", &d),
			  "seconds", 0);
	}

	if (st_fail) {
		fprintf(stderr, "roce_peer: selftest FAILED: %d of %u checks\n",
			st_fail, st_checks);
		return 1;
	}
	printf("roce_peer: selftest ok (%u checks)\n", st_checks);
	return 0;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_roce.c - roce.h: the anchors' CNP golden vector byte for byte (IPv4
 * header checksum 0x6927, ICRC da fc 1b ef), CNPs over IPv6 and with a VLAN
 * tag checked against an ICRC the test computes on its own (a bitwise
 * CRC-32 and a pseudo packet built here from the rules in the anchors, not
 * the module's), which bytes the ICRC covers (a one-bit flip of every byte
 * of a frame), what roce_icrc_check() refuses, out-of-range CNP specs and
 * the BTH accessors. Every check runs on an exactly-sized heap copy of the
 * frame, so an over-read is an ASan error.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "roce.h"

/* ---- the independent reference ---- */

/* CRC-32 (IEEE 802.3, reflected polynomial 0xedb88320), bit by bit. */
static uint32_t ref_crc32(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

/*
 * ICRC of the packet whose IP header is at frame[l3] and whose ICRC starts
 * at frame[end]: 8 bytes 0xff, then the IP header with TOS / TTL / header
 * checksum (IPv4) or traffic class / flow label / hop limit (IPv6) all
 * ones, the UDP header with checksum 0xffff, the BTH with byte 4 0xff, the
 * rest. hlen: IP header length (20 + options, or 40).
 */
static uint32_t ref_icrc(const uint8_t *frame, size_t l3, size_t hlen,
			 int family, size_t end)
{
	static uint8_t pseudo[2048];
	size_t n = 8 + end - l3;

	assert_true(n <= sizeof(pseudo));
	memset(pseudo, 0xff, 8);
	memcpy(pseudo + 8, frame + l3, end - l3);
	if (family == 4) {
		pseudo[8 + 1] = 0xff;
		pseudo[8 + 8] = 0xff;
		pseudo[8 + 10] = 0xff;
		pseudo[8 + 11] = 0xff;
	} else {
		pseudo[8 + 0] |= 0x0f;
		pseudo[8 + 1] = 0xff;
		pseudo[8 + 2] = 0xff;
		pseudo[8 + 3] = 0xff;
		pseudo[8 + 7] = 0xff;
	}
	pseudo[8 + hlen + 6] = 0xff;
	pseudo[8 + hlen + 7] = 0xff;
	pseudo[8 + hlen + 8 + 4] = 0xff;
	return ref_crc32(pseudo, n);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* ---- helpers ---- */

/* roce_icrc_valid() on an exactly-sized heap copy. */
static bool valid_n(const uint8_t *frame, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	bool ok;

	assert_non_null(copy);
	memcpy(copy, frame, len);
	ok = roce_icrc_valid(copy, len);
	free(copy);
	return ok;
}

static void ip4(uint8_t out[16], const char *s)
{
	memset(out, 0, 16);
	assert_int_equal(inet_pton(AF_INET, s, out), 1);
}

static void ip6(uint8_t out[16], const char *s)
{
	assert_int_equal(inet_pton(AF_INET6, s, out), 1);
}

static const uint8_t mac_a[6] = {0x02, 0x77, 0, 0, 0, 0x0a};
static const uint8_t mac_b[6] = {0x02, 0x77, 0, 0, 0, 0x0b};

static void spec_v6(struct cnp_spec *s, bool vlan)
{
	roce_cnp_spec_default(s);
	memcpy(s->dst_mac, mac_a, 6);
	memcpy(s->src_mac, mac_b, 6);
	s->family = 6;
	ip6(s->src_ip, "fd77::2");
	ip6(s->dst_ip, "fd77::1");
	s->flow_label = 0xabcde;
	s->udp_sport = 0xc123;
	s->dest_qpn = 0x00a1b2;
	s->vlan = vlan;
	s->vid = 100;
}

static void spec_v4(struct cnp_spec *s, bool vlan)
{
	roce_cnp_spec_default(s);
	memcpy(s->dst_mac, mac_a, 6);
	memcpy(s->src_mac, mac_b, 6);
	ip4(s->src_ip, "10.77.0.2");
	ip4(s->dst_ip, "10.77.0.1");
	s->dest_qpn = 0xfedcba;
	s->vlan = vlan;
	s->vid = 4095;
	s->pcp = 7;
}

/* One's complement sum over the IPv6 pseudo header and the UDP segment:
 * 0xffff when the checksum in it is right. */
static uint32_t udp6_csum_sum(const uint8_t *ip6h)
{
	uint32_t sum = 0, plen = (uint32_t)ip6h[4] << 8 | ip6h[5];

	for (size_t i = 8; i < 40; i += 2)
		sum += (uint32_t)ip6h[i] << 8 | ip6h[i + 1];
	sum += plen + IPPROTO_UDP;
	for (size_t i = 0; i < plen; i += 2)
		sum += (uint32_t)ip6h[40 + i] << 8 |
		       (i + 1 < plen ? ip6h[40 + i + 1] : 0);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* ---- the golden vector ---- */

/* The golden CNP of acsl-technion/libconntrack-cm (tests/test_cnp.cpp,
 * derived there from Mellanox's "RoCEv2 CNP Packet Format Example"):
 * IPv4 tos 0x89, id 0x98c6, DF, ttl 0x20, 22.22.22.8 -> .7, UDP 56238 -> 4791 csum 0,
 * BTH 0x81 pkey ffff BECN dqpn 0xd2 psn 0, 16 zero bytes, ICRC. */
static const uint8_t golden[60] = {
	0x45, 0x89, 0x00, 0x3c, 0x98, 0xc6, 0x40, 0x00, 0x20, 0x11, 0x69, 0x27,
	0x16, 0x16, 0x16, 0x08, 0x16, 0x16, 0x16, 0x07, 0xdb, 0xae, 0x12, 0xb7,
	0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x00, 0xd2,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xda, 0xfc, 0x1b, 0xef,
};

static void test_golden_vector(void **state)
{
	struct cnp_spec s;
	uint8_t f[ROCE_CNP_MAX_LEN];
	uint32_t crc = 0;

	roce_cnp_spec_default(&s);
	memcpy(s.dst_mac, mac_a, 6);
	memcpy(s.src_mac, mac_b, 6);
	ip4(s.src_ip, "22.22.22.8");
	ip4(s.dst_ip, "22.22.22.7");
	s.dscp = 0x89 >> 2;
	s.ecn = 0x89 & 3;
	s.ttl = 0x20;
	s.ip_id = 0x98c6;
	s.udp_sport = 56238;
	s.dest_qpn = 0xd2;

	assert_int_equal(roce_build_cnp(f, sizeof(f), &s), 74);
	assert_memory_equal(f, mac_a, 6);
	assert_memory_equal(f + 6, mac_b, 6);
	assert_int_equal(f[12], 0x08);
	assert_int_equal(f[13], 0x00);
	assert_memory_equal(f + 14, golden, sizeof(golden));

	/* The module's ICRC and the reference agree on the vector. */
	assert_true(roce_icrc(golden, 56, 4, &crc));
	assert_int_equal(crc, 0xef1bfcda);
	assert_int_equal(ref_icrc(golden, 0, 20, 4, 56), 0xef1bfcda);
	assert_true(valid_n(f, 74));
}

static void test_icrc_put_get(void **state)
{
	uint8_t b[4];

	roce_icrc_put(b, 0xef1bfcda);
	assert_int_equal(b[0], 0xda);
	assert_int_equal(b[1], 0xfc);
	assert_int_equal(b[2], 0x1b);
	assert_int_equal(b[3], 0xef);
	assert_int_equal(roce_icrc_get(b), 0xef1bfcda);
}

/* ---- CNPs over IPv6 and with a tag ---- */

static void test_cnp_ipv6(void **state)
{
	static const uint8_t want_hdr[] = {
		/* Ethernet */
		0x02, 0x77, 0, 0, 0, 0x0a, 0x02, 0x77, 0, 0, 0, 0x0b, 0x86,
		0xdd,
		/* IPv6: TC 0xc0 (DSCP 48, Not-ECT), flow label abcde, plen 40,
		 * UDP, hop limit 64 */
		0x6c, 0x0a, 0xbc, 0xde, 0x00, 0x28, 0x11, 0x40, 0xfd, 0x77, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0xfd, 0x77, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
		/* UDP: 0xc123 -> 4791, length 40, checksum (checked apart) */
		0xc1, 0x23, 0x12, 0xb7, 0x00, 0x28};
	static const uint8_t want_bth[] = {0x81, 0x00, 0xff, 0xff, 0x40, 0x00,
					   0xa1, 0xb2, 0x00, 0x00, 0x00, 0x00};
	static const uint8_t zero[16];
	struct cnp_spec s;
	struct pkt_meta m;
	uint8_t f[ROCE_CNP_MAX_LEN];

	spec_v6(&s, false);
	assert_int_equal(roce_build_cnp(f, sizeof(f), &s), 94);
	assert_memory_equal(f, want_hdr, sizeof(want_hdr));
	assert_memory_equal(f + 62, want_bth, sizeof(want_bth));
	assert_memory_equal(f + 74, zero, 16);
	assert_int_equal(le32(f + 90), ref_icrc(f, 14, 40, 6, 90));
	/* A real UDP checksum: never 0 over IPv6, and it adds up. */
	assert_true(f[60] | f[61]);
	assert_int_equal(udp6_csum_sum(f + 14), 0xffff);
	assert_true(valid_n(f, 94));

	assert_int_equal(pkt_parse(f, 94, &m), PKT_OK);
	assert_int_equal(m.dscp, 48);
	assert_int_equal(m.ecn, 0);
	assert_int_equal(m.bth_opcode, BTH_OP_CNP);
	assert_int_equal(m.bth_dqpn, 0x00a1b2);
	assert_int_equal(m.bth_psn, 0);
	assert_int_equal(m.bth_flags, PKT_BTH_BECN);
}

static void test_cnp_vlan(void **state)
{
	for (int fam = 4; fam <= 6; fam += 2) {
		struct cnp_spec s;
		struct pkt_meta m;
		uint8_t plain[ROCE_CNP_MAX_LEN], tagged[ROCE_CNP_MAX_LEN];
		size_t n0, n1, hlen = fam == 4 ? 20 : 40;

		if (fam == 4)
			spec_v4(&s, false);
		else
			spec_v6(&s, false);
		n0 = roce_build_cnp(plain, sizeof(plain), &s);
		s.vlan = true;
		n1 = roce_build_cnp(tagged, sizeof(tagged), &s);
		assert_int_equal(n0, fam == 4 ? 74 : 94);
		assert_int_equal(n1, n0 + 4);

		/* dst, src, 8100, TCI, then the untagged frame's ethertype
		 * and everything after it unchanged */
		assert_memory_equal(tagged, plain, 12);
		assert_int_equal(tagged[12], 0x81);
		assert_int_equal(tagged[13], 0x00);
		if (fam == 4) { /* PCP 7, VID 4095 */
			assert_int_equal(tagged[14], 0xef);
			assert_int_equal(tagged[15], 0xff);
		} else { /* PCP 6 (default), VID 100 */
			assert_int_equal(tagged[14], 0xc0);
			assert_int_equal(tagged[15], 0x64);
		}
		assert_memory_equal(tagged + 16, plain + 12, n0 - 12);

		assert_int_equal(le32(tagged + n1 - 4),
				 ref_icrc(tagged, 18, hlen, fam, n1 - 4));
		assert_true(valid_n(tagged, n1));
		assert_true(valid_n(plain, n0));
		assert_int_equal(pkt_parse(tagged, (uint32_t)n1, &m), PKT_OK);
		assert_int_equal(m.n_vlan, 1);
		assert_int_equal(m.pcp, fam == 4 ? 7 : 6);
		assert_int_equal(m.bth_dqpn, s.dest_qpn);
	}
}

static void test_cnp_defaults(void **state)
{
	struct cnp_spec s;
	uint8_t f[ROCE_CNP_MAX_LEN];

	roce_cnp_spec_default(&s);
	assert_int_equal(s.family, 4);
	assert_int_equal(s.dscp, 48);
	assert_int_equal(s.pcp, 6);
	assert_int_equal(s.ecn, 0);
	assert_int_equal(s.ttl, 64);
	assert_int_equal(s.udp_sport, 0xf000);
	assert_false(s.vlan);
	assert_int_equal(s.dest_qpn, 0);

	assert_int_equal(roce_build_cnp(f, sizeof(f), &s), 74);
	assert_int_equal(f[14 + 1], 0xc0); /* TOS: DSCP 48, Not-ECT */
	assert_int_equal(f[14 + 6], 0x40); /* DF */
	assert_int_equal(f[14 + 8], 64);
	assert_int_equal(f[34], 0xf0);
	assert_int_equal(f[35], 0x00);
	assert_int_equal(f[40], 0x00); /* UDP checksum 0 over IPv4 */
	assert_int_equal(f[41], 0x00);
	assert_true(valid_n(f, 74));
}

static void test_cnp_bad_spec(void **state)
{
	struct cnp_spec good, s;
	uint8_t f[ROCE_CNP_MAX_LEN + 8], guard[sizeof(f)];
	size_t n;

	spec_v6(&good, true);
	memset(guard, 0xa5, sizeof(guard));

#define REFUSED(field, value)                                                  \
	do {                                                                   \
		s = good;                                                      \
		s.field = value;                                               \
		memcpy(f, guard, sizeof(f));                                   \
		assert_int_equal(roce_build_cnp(f, sizeof(f), &s), 0);         \
		assert_memory_equal(f, guard, sizeof(f));                      \
	} while (0)

	REFUSED(family, 0);
	REFUSED(family, 5);
	REFUSED(family, 10); /* AF_INET6 is not 6 */
	REFUSED(vid, 4096);
	REFUSED(pcp, 8);
	REFUSED(dscp, 64);
	REFUSED(ecn, 4);
	REFUSED(flow_label, 0x100000);
	REFUSED(dest_qpn, 0x1000000);
#undef REFUSED

	/* Capacity: one byte short writes nothing; exact fits. */
	n = roce_build_cnp(f, sizeof(f), &good);
	assert_int_equal(n, 98);
	memcpy(f, guard, sizeof(f));
	assert_int_equal(roce_build_cnp(f, n - 1, &good), 0);
	assert_memory_equal(f, guard, sizeof(f));
	assert_int_equal(roce_build_cnp(f, n, &good), n);
	assert_int_equal(f[n], 0xa5);
	assert_int_equal(roce_build_cnp(f, 0, &good), 0);

	/* The largest legal values are taken. */
	s = good;
	s.vid = 4095;
	s.pcp = 7;
	s.dscp = 63;
	s.ecn = 3;
	s.flow_label = 0xfffff;
	s.dest_qpn = 0xffffff;
	assert_int_equal(roce_build_cnp(f, sizeof(f), &s), 98);
	assert_true(valid_n(f, 98));
}

/* ---- what the ICRC covers ---- */

/* Bytes whose change the ICRC ignores: L2 addresses and the TCI, the
 * variant IP fields, the UDP checksum, BTH byte 4. */
static bool outside_icrc(size_t i, size_t l3, int fam, bool vlan)
{
	size_t l4 = l3 + (fam == 4 ? 20 : 40);

	if (i < 12 || (vlan && (i == 14 || i == 15)))
		return true;
	if (i == l4 + 6 || i == l4 + 7 || i == l4 + 8 + 4)
		return true;
	if (fam == 4)
		return i == l3 + 1 || i == l3 + 8 || i == l3 + 10 ||
		       i == l3 + 11;
	/* IPv6: bit 0 of byte 0 is a traffic class bit */
	return i == l3 || i == l3 + 1 || i == l3 + 2 || i == l3 + 3 ||
	       i == l3 + 7;
}

static void test_icrc_flip_every_byte(void **state)
{
	for (int v = 0; v < 4; v++) {
		int fam = v & 1 ? 6 : 4;
		bool vlan = v & 2;
		struct cnp_spec s;
		uint8_t f[ROCE_CNP_MAX_LEN];
		size_t n, l3 = vlan ? 18 : 14;

		if (fam == 4)
			spec_v4(&s, vlan);
		else
			spec_v6(&s, vlan);
		n = roce_build_cnp(f, sizeof(f), &s);
		assert_true(n > 0);
		for (size_t i = 0; i < n; i++) {
			bool want = outside_icrc(i, l3, fam, vlan);

			f[i] ^= 0x01;
			if (valid_n(f, n) != want)
				fail_msg("family %d vlan %d: byte %zu flipped: "
					 "valid %d, want %d",
					 fam, vlan, i, !want, want);
			f[i] ^= 0x01;
		}
		assert_true(valid_n(f, n));
	}
}

static void test_icrc_ignores_variant_fields(void **state)
{
	struct cnp_spec s;
	uint8_t f[ROCE_CNP_MAX_LEN];

	/* IPv4: TOS, TTL, header checksum, UDP checksum, FECN/BECN byte */
	spec_v4(&s, false);
	assert_int_equal(roce_build_cnp(f, sizeof(f), &s), 74);
	f[15] = 0x03;
	f[22] = 1;
	f[24] = 0x12;
	f[25] = 0x34;
	f[40] = 0xbe;
	f[41] = 0xef;
	f[46] = 0xbf;
	assert_true(valid_n(f, 74));

	/* IPv6: traffic class, flow label, hop limit */
	spec_v6(&s, false);
	assert_int_equal(roce_build_cnp(f, sizeof(f), &s), 94);
	f[14] = 0x6f;
	f[15] = 0x3f;
	f[16] = 0x00;
	f[17] = 0x01;
	f[21] = 255;
	assert_true(valid_n(f, 94));
}

/* ---- roce_icrc() on its own ---- */

/* A RoCEv2 RC WRITE ONLY: IPv4 with ihl words of header, UDP, BTH, RETH,
 * payload of plen bytes, ICRC (computed by the reference). Returns the
 * offset of the ICRC. */
static size_t write_only_v4(uint8_t *b, unsigned int ihl, size_t plen)
{
	size_t h = ihl * 4u, tot = h + 8 + 12 + 16 + plen + 4, i;

	memset(b, 0, tot);
	b[0] = (uint8_t)(0x40 | ihl);
	b[1] = 26 << 2 | 2;
	b[2] = (uint8_t)(tot >> 8);
	b[3] = (uint8_t)tot;
	b[6] = 0x40;
	b[8] = 64;
	b[9] = IPPROTO_UDP;
	memcpy(b + 12, (const uint8_t[]){10, 77, 0, 1, 10, 77, 0, 2}, 8);
	for (i = 20; i < h; i++)
		b[i] = 0x01; /* NOP options */
	b[h + 0] = 0xc0;
	b[h + 1] = 0x01;
	b[h + 2] = 0x12;
	b[h + 3] = 0xb7;
	b[h + 4] = (uint8_t)((tot - h) >> 8);
	b[h + 5] = (uint8_t)(tot - h);
	bth_write(b + h + 8, BTH_OP_RC_WRITE_ONLY, 0xffff, 0x000011, 0x123456,
		  BTH_W_ACKREQ | BTH_W_MIGREQ);
	for (i = 0; i < 16 + plen; i++)
		b[h + 20 + i] = (uint8_t)(i * 7 + 3);
	roce_icrc_put(b + tot - 4, ref_icrc(b, 0, h, 4, tot - 4));
	return tot - 4;
}

static void test_icrc_data_and_options(void **state)
{
	static uint8_t b[1600];
	uint32_t crc;

	for (unsigned int ihl = 5; ihl <= 15; ihl += 5) {
		size_t end = write_only_v4(b, ihl, 1000);

		crc = 0;
		assert_true(roce_icrc(b, end, 4, &crc));
		assert_int_equal(crc, le32(b + end));
		/* and exactly the bytes before the ICRC: one less differs */
		assert_true(roce_icrc(b, end - 1, 4, &crc));
		assert_int_not_equal(crc, le32(b + end));
	}
	/* No payload at all: headers only. */
	crc = 0;
	assert_true(roce_icrc(golden, 20 + 8 + 12, 4, &crc));
	assert_int_equal(crc, ref_icrc(golden, 0, 20, 4, 40));
}

static void test_icrc_refuses(void **state)
{
	uint8_t b[64];
	uint32_t crc = 0x5a5a5a5a;

	memcpy(b, golden, 60);
	assert_false(roce_icrc(b, 56, 0, &crc));
	assert_false(roce_icrc(b, 56, 5, &crc));
	assert_false(roce_icrc(b, 56, 6, &crc)); /* IPv4 header as IPv6 */
	assert_false(roce_icrc(b, 39, 4, &crc)); /* BTH cut */
	assert_false(roce_icrc(b, 19, 4, &crc));
	assert_false(roce_icrc(b, 0, 4, &crc));
	b[9] = IPPROTO_TCP;
	assert_false(roce_icrc(b, 56, 4, &crc));
	b[9] = IPPROTO_UDP;
	b[0] = 0x44; /* IHL 4 */
	assert_false(roce_icrc(b, 56, 4, &crc));
	b[0] = 0x4f; /* IHL 15: 60 bytes of header, more than given */
	assert_false(roce_icrc(b, 56, 4, &crc));
	b[0] = 0x65; /* version 6 */
	assert_false(roce_icrc(b, 56, 4, &crc));
	assert_int_equal(crc, 0x5a5a5a5a);
}

/* ---- roce_icrc_check() refusals ---- */

static void test_check_refuses(void **state)
{
	struct cnp_spec s;
	uint8_t f[256], g[256];
	size_t n;

	/* Every truncation of a valid tagged IPv6 CNP. */
	spec_v6(&s, true);
	n = roce_build_cnp(f, sizeof(f), &s);
	assert_int_equal(n, 98);
	for (size_t len = 0; len < n; len++)
		if (valid_n(f, len))
			fail_msg("valid when cut to %zu of %zu bytes", len, n);

	/* Ethernet padding after the datagram is not part of it. */
	memset(f + n, 0xee, 10);
	assert_true(valid_n(f, n + 10));

	/* Same packet, UDP destination port not 4791: not RoCEv2. */
	spec_v4(&s, false);
	n = roce_build_cnp(f, sizeof(f), &s);
	memcpy(g, f, n);
	g[37] = 0xb8;
	roce_icrc_put(g + n - 4, ref_icrc(g, 14, 20, 4, n - 4));
	assert_false(valid_n(g, n));

	/* A first fragment (MF), with a matching ICRC: refused. */
	memcpy(g, f, n);
	g[20] = 0x20;
	roce_icrc_put(g + n - 4, ref_icrc(g, 14, 20, 4, n - 4));
	assert_false(valid_n(g, n));

	/* UDP length shorter than UDP + BTH + ICRC, or past the IP end. */
	memcpy(g, f, n);
	g[39] = 8 + 12 + 3;
	assert_false(valid_n(g, n));
	g[39] = 41;
	assert_false(valid_n(g, n));
	/* A UDP length 4 short of the IP payload moves the ICRC: with the
	 * ICRC computed for that end, the packet is valid. */
	g[39] = 36;
	roce_icrc_put(g + 14 + 20 + 36 - 4,
		      ref_icrc(g, 14, 20, 4, 14 + 20 + 36 - 4));
	assert_true(valid_n(g, n));

	/* IPv6 with a hop-by-hop header before UDP: refused, whatever the
	 * ICRC says. */
	spec_v6(&s, false);
	n = roce_build_cnp(f, sizeof(f), &s);
	memcpy(g, f, 54);
	g[20] = IPPROTO_HOPOPTS;
	memset(g + 54, 0, 8);
	g[54] = IPPROTO_UDP; /* next header; length 0: 8 bytes */
	memcpy(g + 62, f + 54, n - 54);
	g[19] = (uint8_t)(g[19] + 8); /* payload length */
	assert_false(valid_n(g, n + 8));

	/* Not RoCEv2 at all: ARP. */
	memset(g, 0, 60);
	g[12] = 0x08;
	g[13] = 0x06;
	assert_false(valid_n(g, 60));
	assert_false(valid_n(g, 0));
}

/* A pkt_meta that does not describe the frame must not lead the check
 * outside it. */
static void test_check_foreign_meta(void **state)
{
	struct cnp_spec s;
	struct pkt_meta m;
	uint8_t big[ROCE_CNP_MAX_LEN], *small;
	size_t n;

	spec_v6(&s, true);
	n = roce_build_cnp(big, sizeof(big), &s);
	assert_int_equal(pkt_parse(big, (uint32_t)n, &m), PKT_OK);
	assert_true(roce_icrc_check(big, (uint32_t)n, &m));
	small = malloc(60);
	assert_non_null(small);
	memcpy(small, big, 60);
	assert_false(roce_icrc_check(small, 60, &m));
	free(small);
	m.l4_off = 0xfff0;
	assert_false(roce_icrc_check(big, (uint32_t)n, &m));
}

/* ---- BTH ---- */

static void test_bth_fields(void **state)
{
	uint8_t b[BTH_LEN];
	struct cnp_spec s;
	struct pkt_meta m;
	uint8_t f[ROCE_CNP_MAX_LEN];

	bth_write(b, BTH_OP_RC_SEND_ONLY, 0x8001, 0x1abcdef, 0x1fedcba,
		  BTH_W_ACKREQ);
	assert_int_equal(b[0], 0x04);
	assert_int_equal(b[1], 0x00);
	assert_int_equal(b[4], 0x00);
	assert_int_equal(b[8], 0x80);
	assert_int_equal(bth_opcode(b), BTH_OP_RC_SEND_ONLY);
	assert_int_equal(bth_pkey(b), 0x8001);
	assert_int_equal(bth_dqpn(b), 0xabcdef); /* 24 bits */
	assert_int_equal(bth_psn(b), 0xfedcba);
	assert_true(bth_ackreq(b));
	assert_false(bth_becn(b));
	assert_false(bth_fecn(b));

	bth_write(b, BTH_OP_CNP, 0xffff, 1, 0, BTH_W_BECN | BTH_W_MIGREQ);
	assert_int_equal(b[1], 0x40);
	assert_int_equal(b[4], 0x40);
	assert_true(bth_becn(b));
	assert_false(bth_ackreq(b));
	b[4] = 0x80;
	assert_true(bth_fecn(b));
	assert_false(bth_becn(b));

	spec_v4(&s, true);
	assert_int_equal(roce_build_cnp(f, sizeof(f), &s), 78);
	assert_int_equal(pkt_parse(f, 78, &m), PKT_OK);
	assert_ptr_equal(roce_bth(f, &m), f + 18 + 20 + 8);
	assert_int_equal(bth_dqpn(roce_bth(f, &m)), 0xfedcba);
	m.flags &= (uint8_t)~PKT_F_BTH;
	assert_null(roce_bth(f, &m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_vector),
		cmocka_unit_test(test_icrc_put_get),
		cmocka_unit_test(test_cnp_ipv6),
		cmocka_unit_test(test_cnp_vlan),
		cmocka_unit_test(test_cnp_defaults),
		cmocka_unit_test(test_cnp_bad_spec),
		cmocka_unit_test(test_icrc_flip_every_byte),
		cmocka_unit_test(test_icrc_ignores_variant_fields),
		cmocka_unit_test(test_icrc_data_and_options),
		cmocka_unit_test(test_icrc_refuses),
		cmocka_unit_test(test_check_refuses),
		cmocka_unit_test(test_check_foreign_meta),
		cmocka_unit_test(test_bth_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

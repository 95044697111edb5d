// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_pkt_tcp.c - the bounded TCP reader (dataplane/pkt/pkt_tcp.c) on
 * hand-built frames: fields and lengths (payload from the IP length, not
 * the frame: Ethernet padding is not payload), the timestamps option among
 * others (NOP, EOL, SACK, the SYN set), malformed option lists (no
 * timestamps, the packet still read), IPv6 with an extension header, a
 * VLAN tag, the refusals (not TCP, fragment, inconsistent lengths, the
 * header past the readable bytes), and random frames in exact-size heap
 * buffers (ASan catches any read past them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "pkt_parse.h"
#include "pkt_tcp.h"

/* What a test frame carries. */
struct tb {
	int v6; /* IPv6 (else IPv4) */
	int hbh; /* IPv6: a hop-by-hop options header before TCP */
	int vlan; /* one 802.1Q tag */
	int frag; /* IPv4: MF set (a first fragment) */
	uint32_t seq, ack;
	uint8_t flags;
	const uint8_t *opts; /* TCP options, optlen bytes (multiple of 4) */
	uint32_t optlen;
	uint32_t payload;
	uint32_t min_len; /* pad the frame (Ethernet padding) to this */
};

static void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, v >> 16);
	wr16(p + 2, v);
}

/* Build the frame into f (zeroed, room for 1600 bytes); returns its
 * length, *l4 the TCP header's offset. */
static uint32_t build(uint8_t *f, const struct tb *b, uint32_t *l4)
{
	uint32_t off = 14, thlen = 20 + b->optlen, ip;

	assert_int_equal(b->optlen % 4, 0);
	memset(f, 0, 1600);
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	if (b->vlan) {
		wr16(f + 12, ETHERTYPE_VLAN);
		wr16(f + 14, 0x6000 | 42);
		off += 4;
	}
	wr16(f + off - 2, b->v6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4);
	ip = off;
	if (b->v6) {
		uint32_t ext = b->hbh ? 8 : 0;

		f[ip] = 0x60;
		wr16(f + ip + 4, ext + thlen + b->payload);
		f[ip + 6] = b->hbh ? 0 : 6;
		f[ip + 7] = 64;
		f[ip + 8] = 0xfd;
		f[ip + 23] = 1;
		f[ip + 24] = 0xfd;
		f[ip + 39] = 2;
		off += 40;
		if (b->hbh) {
			f[off] = 6; /* next: TCP; length 0: 8 bytes */
			f[off + 2] = 1; /* PadN, 4 bytes */
			f[off + 3] = 4;
			off += 8;
		}
	} else {
		f[ip] = 0x45;
		wr16(f + ip + 2, 20 + thlen + b->payload);
		if (b->frag)
			wr16(f + ip + 6, 0x2000);
		f[ip + 8] = 64;
		f[ip + 9] = 6;
		memcpy(f + ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
		off += 20;
	}
	*l4 = off;
	wr16(f + off, 40000);
	wr16(f + off + 2, 2049);
	wr32(f + off + 4, b->seq);
	wr32(f + off + 8, b->ack);
	f[off + 12] = (uint8_t)((thlen / 4) << 4);
	f[off + 13] = b->flags;
	wr16(f + off + 14, 502);
	if (b->optlen)
		memcpy(f + off + 20, b->opts, b->optlen);
	off += thlen;
	memset(f + off, 0xaa, b->payload);
	off += b->payload;
	return off < b->min_len ? b->min_len : off;
}

/* Parse and read; asserts the parse is clean. */
static int parse_read(const uint8_t *f, uint32_t len, struct pkt_tcp *t)
{
	struct pkt_meta m;

	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	return pkt_tcp_read(f, len, &m, t);
}

/* NOP NOP TS(tsval 0x01020304, tsecr 0xa0b0c0d0) */
static const uint8_t opt_ts[12] = {1,	 1,    8,    10,   0x01, 0x02,
				   0x03, 0x04, 0xa0, 0xb0, 0xc0, 0xd0};

static void test_ts_ipv4(void **state)
{
	static uint8_t f[1600];
	struct tb b = {.seq = 0x11223344,
		       .ack = 0x55667788,
		       .flags = PKT_TCP_ACK | PKT_TCP_PSH,
		       .opts = opt_ts,
		       .optlen = 12,
		       .payload = 100};
	struct pkt_tcp t;
	uint32_t l4, len = build(f, &b, &l4);

	assert_int_equal(parse_read(f, len, &t), PKT_TCP_OK);
	assert_int_equal(t.seq, 0x11223344);
	assert_int_equal(t.ack, 0x55667788);
	assert_int_equal(t.flags, PKT_TCP_ACK | PKT_TCP_PSH);
	assert_int_equal(t.hdr_len, 32);
	assert_int_equal(t.window, 502);
	assert_int_equal(t.payload_len, 100);
	assert_int_equal(t.opts, PKT_TCP_O_TS);
	assert_int_equal(t.tsval, 0x01020304);
	assert_int_equal(t.tsecr, 0xa0b0c0d0);
	assert_int_equal(pkt_tcp_end_seq(&t), 0x11223344 + 100);
}

static void test_no_options_and_padding(void **state)
{
	static uint8_t f[1600];
	/* a pure ACK: 54 bytes, padded to the Ethernet minimum of 60 */
	struct tb b = {.seq = 7, .ack = 9, .flags = PKT_TCP_ACK, .min_len = 60};
	struct pkt_tcp t;
	uint32_t l4, len = build(f, &b, &l4);

	assert_int_equal(len, 60);
	assert_int_equal(parse_read(f, len, &t), PKT_TCP_OK);
	assert_int_equal(t.payload_len, 0); /* not the 6 padding bytes */
	assert_int_equal(t.hdr_len, 20);
	assert_int_equal(t.opts, 0);
	assert_int_equal(t.tsval, 0);
	assert_int_equal(pkt_tcp_end_seq(&t), 7);
	/* flags: FIN and SYN take a sequence number each */
	b.flags = PKT_TCP_FIN | PKT_TCP_ACK | PKT_TCP_ECE | PKT_TCP_CWR;
	b.payload = 10;
	len = build(f, &b, &l4);
	assert_int_equal(parse_read(f, len, &t), PKT_TCP_OK);
	assert_int_equal(t.flags,
			 PKT_TCP_FIN | PKT_TCP_ACK | PKT_TCP_ECE | PKT_TCP_CWR);
	assert_int_equal(pkt_tcp_end_seq(&t), 7 + 10 + 1);
}

/* Linux's SYN: MSS, SACK permitted, timestamps, NOP, window scale */
static void test_syn_options(void **state)
{
	static const uint8_t o[20] = {2, 4,  0x05, 0xb4, 4, 2, 8, 10, 0, 0,
				      0, 42, 0,	   0,	 0, 0, 1, 3,  3, 7};
	static uint8_t f[1600];
	struct tb b = {.seq = 0xffffffff,
		       .flags = PKT_TCP_SYN | PKT_TCP_ECE | PKT_TCP_CWR,
		       .opts = o,
		       .optlen = 20};
	struct pkt_tcp t;
	uint32_t l4, len = build(f, &b, &l4);

	assert_int_equal(parse_read(f, len, &t), PKT_TCP_OK);
	assert_int_equal(t.opts, PKT_TCP_O_TS);
	assert_int_equal(t.tsval, 42);
	assert_int_equal(t.tsecr, 0);
	assert_int_equal(t.hdr_len, 40);
	assert_int_equal(pkt_tcp_end_seq(&t), 0); /* SYN, wraps */
}

static void test_sack_and_ts(void **state)
{
	uint8_t o[32] = {1, 1, 8, 10, 0, 0, 0, 5, 0, 0, 0, 6, 1, 1, 5, 18};
	static uint8_t f[1600];
	struct tb b = {.flags = PKT_TCP_ACK, .opts = o, .optlen = 32};
	struct pkt_tcp t;
	uint32_t l4, len;

	wr32(o + 16, 1000); /* two SACK blocks */
	wr32(o + 20, 2000);
	wr32(o + 24, 3000);
	wr32(o + 28, 4000);
	len = build(f, &b, &l4);
	assert_int_equal(parse_read(f, len, &t), PKT_TCP_OK);
	assert_int_equal(t.opts, PKT_TCP_O_TS | PKT_TCP_O_SACK);
	assert_int_equal(t.tsval, 5);
	assert_int_equal(t.tsecr, 6);
	assert_int_equal(t.hdr_len, 52);
}

static void test_ipv6_ext_and_vlan(void **state)
{
	static uint8_t f[1600];
	struct tb b = {.v6 = 1,
		       .hbh = 1,
		       .vlan = 1,
		       .seq = 100,
		       .ack = 200,
		       .flags = PKT_TCP_ACK,
		       .opts = opt_ts,
		       .optlen = 12,
		       .payload = 10,
		       .min_len = 200}; /* trailing bytes after the datagram */
	struct pkt_meta m;
	struct pkt_tcp t;
	uint32_t l4, len = build(f, &b, &l4);

	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_int_equal(m.l4_off, l4);
	assert_int_equal(l4, 14 + 4 + 40 + 8);
	assert_int_equal(pkt_tcp_read(f, len, &m, &t), PKT_TCP_OK);
	assert_int_equal(t.payload_len, 10); /* not the ext header, not the
					      * trailing bytes */
	assert_int_equal(t.tsval, 0x01020304);
	assert_int_equal(t.seq, 100);
	assert_int_equal(t.ack, 200);
}

struct opt_case {
	const char *what;
	uint8_t o[20];
	uint32_t n; /* multiple of 4 */
	uint8_t opts; /* expected */
	uint32_t tsval;
};

static void test_malformed_options(void **state)
{
	static const struct opt_case cases[] = {
		{"ts alone, EOL pad",
		 {8, 10, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0},
		 12,
		 PKT_TCP_O_TS,
		 9},
		{"length 0", {2, 0, 5, 180}, 4, PKT_TCP_O_BAD, 0},
		{"length 1", {3, 1, 1, 1}, 4, PKT_TCP_O_BAD, 0},
		{"ts past the header end",
		 {1, 1, 8, 10, 0, 0, 0, 7},
		 8,
		 PKT_TCP_O_BAD,
		 0},
		{"ts length 8", {8, 8, 0, 0, 0, 7, 0, 0}, 8, PKT_TCP_O_BAD, 0},
		{"ts length 12",
		 {8, 12, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0},
		 12,
		 PKT_TCP_O_BAD,
		 0},
		{"EOL before ts",
		 {0, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 0},
		 12,
		 0,
		 0},
		{"kind without length", {1, 1, 1, 5}, 4, PKT_TCP_O_BAD, 0},
		{"two ts",
		 {8, 10, 0, 0, 0, 7, 0, 0, 0, 0, 8, 10, 0, 0, 0, 8, 0, 0, 0, 0},
		 20,
		 PKT_TCP_O_BAD,
		 0},
		{"ts then a bad option",
		 {8, 10, 0, 0, 0, 7, 0, 0, 0, 0, 2, 0},
		 12,
		 PKT_TCP_O_BAD,
		 0},
		{"unknown kind, then ts",
		 {254, 4, 0xde, 0xad, 1, 1, 8, 10, 0, 0, 0, 3, 0, 0, 0, 4},
		 16,
		 PKT_TCP_O_TS,
		 3},
		{"length running past the end",
		 {1, 1, 254, 40},
		 4,
		 PKT_TCP_O_BAD,
		 0},
		{"sack, odd length",
		 {5, 10, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1},
		 12,
		 PKT_TCP_O_SACK,
		 0},
	};
	static uint8_t f[1600];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct opt_case *c = &cases[i];
		struct tb b = {.seq = 5,
			       .flags = PKT_TCP_ACK,
			       .opts = c->o,
			       .optlen = c->n,
			       .payload = 3};
		struct pkt_tcp t;
		uint32_t l4, len = build(f, &b, &l4);

		fprintf(stderr, "case: %s\n", c->what);
		/* a bad option list is not an error of the packet */
		assert_int_equal(parse_read(f, len, &t), PKT_TCP_OK);
		assert_int_equal(t.opts, c->opts);
		assert_int_equal(t.tsval, c->tsval);
		assert_int_equal(t.seq, 5);
		assert_int_equal(t.payload_len, 3);
	}
}

static void test_refusals(void **state)
{
	static uint8_t f[1600];
	struct tb b = {.flags = PKT_TCP_ACK,
		       .opts = opt_ts,
		       .optlen = 12,
		       .payload = 20};
	struct pkt_meta m, m2;
	struct pkt_tcp t;
	uint32_t l4, len = build(f, &b, &l4);

	/* UDP */
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	m2 = m;
	m2.proto = 17;
	assert_int_equal(pkt_tcp_read(f, len, &m2, &t), PKT_TCP_NOT_TCP);
	m2 = m;
	m2.flags &= (uint8_t)~PKT_F_PORTS;
	assert_int_equal(pkt_tcp_read(f, len, &m2, &t), PKT_TCP_NOT_TCP);
	m2 = m;
	m2.l3 = PKT_L3_NONE;
	assert_int_equal(pkt_tcp_read(f, len, &m2, &t), PKT_TCP_NOT_TCP);
	/* l4_off inside the IP header: m does not describe this frame */
	m2 = m;
	m2.l4_off = (uint16_t)(m.l3_off + 10);
	assert_int_equal(pkt_tcp_read(f, len, &m2, &t), PKT_TCP_BAD_LEN);
	/* the IP total length cut below the TCP header after the parse */
	wr16(f + 14 + 2, 20 + 16);
	assert_int_equal(pkt_tcp_read(f, len, &m, &t), PKT_TCP_BAD_LEN);
	/* below the TCP options: header past the datagram */
	wr16(f + 14 + 2, 20 + 24);
	assert_int_equal(pkt_tcp_read(f, len, &m, &t), PKT_TCP_BAD_LEN);
	assert_int_equal(t.seq, 0); /* zeroed on refusal */
	wr16(f + 14 + 2, 20 + 32 + 20);
	assert_int_equal(pkt_tcp_read(f, len, &m, &t), PKT_TCP_OK);
	/* data offset < 5 */
	f[l4 + 12] = 4 << 4;
	assert_int_equal(pkt_tcp_read(f, len, &m, &t), PKT_TCP_BAD_LEN);
	f[l4 + 12] = 8 << 4;

	/* the readable head ends inside the options (multi-buffer) */
	assert_int_equal(pkt_parse_head(f, l4 + 24, len, &m), PKT_OK);
	assert_int_equal(pkt_tcp_read(f, l4 + 24, &m, &t), PKT_TCP_TRUNCATED);
	assert_int_equal(pkt_tcp_read(f, l4 + 32, &m, &t), PKT_TCP_OK);
	assert_int_equal(t.payload_len, 20); /* from the IP length */
	assert_int_equal(pkt_tcp_read(f, 14 + 10, &m, &t), PKT_TCP_TRUNCATED);

	/* a first fragment */
	b.frag = 1;
	len = build(f, &b, &l4);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_true(m.flags & PKT_F_FRAG);
	assert_int_equal(pkt_tcp_read(f, len, &m, &t), PKT_TCP_FRAGMENT);

	/* not IP */
	wr16(f + 12, ETHERTYPE_ARP);
	assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
	assert_int_equal(pkt_tcp_read(f, len, &m, &t), PKT_TCP_NOT_TCP);

	assert_string_equal(pkt_tcp_err_name(PKT_TCP_OK), "ok");
	assert_string_equal(pkt_tcp_err_name(PKT_TCP_TRUNCATED), "truncated");
	assert_string_equal(pkt_tcp_err_name(PKT_TCP_ERR_MAX), "?");
	assert_string_equal(pkt_tcp_err_name(-1), "?");
}

/* Random changes to valid frames, each in a heap buffer of exactly its
 * length (a read past it is an ASan error), read at every head length. */
static void test_random_bounds(void **state)
{
	static uint8_t f[1600];
	uint64_t rng = 0x1234567887654321ull;

	for (int it = 0; it < 4000; it++) {
		uint8_t o[40];
		struct tb b = {.v6 = it & 1,
			       .hbh = (it >> 1) & 1,
			       .vlan = (it >> 2) & 1,
			       .flags = PKT_TCP_ACK,
			       .opts = o,
			       .optlen = 4 * (uint32_t)((it >> 3) % 11),
			       .payload = (uint32_t)(it % 7)};
		struct pkt_meta m;
		struct pkt_tcp t;
		uint32_t l4, len, cut;
		uint8_t *buf;

		for (int i = 0; i < 40; i++) {
			rng = rng * 6364136223846793005ull +
			      1442695040888963407ull;
			o[i] = (uint8_t)(rng >> 56) % 12; /* kinds 0..11 */
		}
		len = build(f, &b, &l4);
		for (int i = 0; i < 3; i++) { /* a few random bytes */
			rng = rng * 6364136223846793005ull +
			      1442695040888963407ull;
			f[(rng >> 33) % len] = (uint8_t)(rng >> 20);
		}
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		cut = (uint32_t)((rng >> 33) % (len + 1));
		buf = malloc(cut ? cut : 1);
		assert_non_null(buf);
		memcpy(buf, f, cut);
		if (pkt_parse(buf, cut, &m) == PKT_OK &&
		    pkt_tcp_read(buf, cut, &m, &t) == PKT_TCP_OK) {
			assert_true(t.hdr_len >= 20 && t.hdr_len <= 60);
			assert_true(m.l4_off + t.hdr_len <= cut);
			assert_true(m.l4_off + t.hdr_len + t.payload_len <=
				    cut);
			if (!(t.opts & PKT_TCP_O_TS))
				assert_int_equal(t.tsval | t.tsecr, 0);
		}
		/* a multi-buffer head: only buf[0..head) readable */
		if (cut) {
			uint32_t head = (uint32_t)((rng >> 12) % cut) + 1;
			uint8_t *h = malloc(head);

			assert_non_null(h);
			memcpy(h, buf, head);
			if (pkt_parse_head(h, head, cut, &m) == PKT_OK &&
			    pkt_tcp_read(h, head, &m, &t) == PKT_TCP_OK)
				assert_true(m.l4_off + t.hdr_len <= head);
			free(h);
		}
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ts_ipv4),
		cmocka_unit_test(test_no_options_and_padding),
		cmocka_unit_test(test_syn_options),
		cmocka_unit_test(test_sack_and_ts),
		cmocka_unit_test(test_ipv6_ext_and_vlan),
		cmocka_unit_test(test_malformed_options),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_random_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

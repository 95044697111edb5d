// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_parse.c - pkt_parse() on hand-built frames: every field (VLAN /
 * QinQ / PCP, IPv4 with and without options and fragments, IPv6 with
 * extension header chains, TCP, UDP, RoCEv2 BTH with its PSN and
 * single-bit fields), non-IP frames, every malformed reason from a frame
 * made for it, the L4 length fields (UDP length, TCP data offset) against
 * the datagram for IPv4 / IPv6, fragments and pkt_parse_head() with every
 * head, and a byte-by-byte truncation sweep of a full QinQ / IPv6 / UDP /
 * RoCEv2 frame. Every parse runs on an exactly-sized heap copy of the
 * frame, so an over-read is an ASan error (the unit tests run under ASan in
 * CI).
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
#include "frame_meta.h"
#include "pkt_parse.h"

/* ---- frame builder ---- */

struct fb {
	uint8_t b[1024];
	uint32_t n;
};

static void put8(struct fb *f, uint32_t v)
{
	assert_true(f->n < sizeof(f->b));
	f->b[f->n++] = (uint8_t)v;
}

static void put16(struct fb *f, uint32_t v)
{
	put8(f, v >> 8);
	put8(f, v);
}

static void put24(struct fb *f, uint32_t v)
{
	put8(f, v >> 16);
	put16(f, v);
}

static void put32(struct fb *f, uint32_t v)
{
	put16(f, v >> 16);
	put16(f, v);
}

static void putn(struct fb *f, const void *p, uint32_t n)
{
	assert_true(f->n + n <= sizeof(f->b));
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

static void zeros(struct fb *f, uint32_t n)
{
	while (n--)
		put8(f, 0);
}

static void set16(struct fb *f, uint32_t at, uint32_t v)
{
	f->b[at] = (uint8_t)(v >> 8);
	f->b[at + 1] = (uint8_t)v;
}

/* Ethernet header: dst, src, then the tags (tpid, tci pairs), ethertype. */
static void eth(struct fb *f, int n_tags, const uint32_t *tags, uint32_t et)
{
	static const uint8_t dmac[6] = {0x02, 0, 0, 0, 0, 0x01};
	static const uint8_t smac[6] = {0x02, 0, 0, 0, 0, 0x02};

	f->n = 0;
	putn(f, dmac, 6);
	putn(f, smac, 6);
	for (int i = 0; i < n_tags; i++) {
		put16(f, tags[2 * i]);
		put16(f, tags[2 * i + 1]);
	}
	put16(f, et);
}

static uint32_t tci(uint32_t pcp, uint32_t vid)
{
	return pcp << 13 | vid;
}

static uint32_t v4addr(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return ntohl(a.s_addr);
}

static void v6addr(const char *s, uint8_t out[16])
{
	assert_int_equal(inet_pton(AF_INET6, s, out), 1);
}

/* IPv4 header with opt_words 32-bit words of options (NOPs); total length
 * left 0: ipv4_fix() sets it to the end of the frame. Returns its offset. */
static uint32_t ipv4(struct fb *f, uint32_t tos, uint32_t proto,
		     const char *src, const char *dst, uint32_t opt_words,
		     uint32_t frag)
{
	uint32_t at = f->n;

	put8(f, 0x40 | (5 + opt_words));
	put8(f, tos);
	put16(f, 0);
	put16(f, 0x1234);
	put16(f, frag);
	put8(f, 64);
	put8(f, proto);
	put16(f, 0);
	put32(f, v4addr(src));
	put32(f, v4addr(dst));
	for (uint32_t i = 0; i < opt_words; i++)
		put32(f, 0x01010101);
	return at;
}

static void ipv4_fix(struct fb *f, uint32_t at)
{
	set16(f, at + 2, f->n - at);
}

/* IPv6 header; ipv6_fix() sets the payload length to the end of frame. */
static uint32_t ipv6(struct fb *f, uint32_t tc, uint32_t nh, const char *src,
		     const char *dst)
{
	uint8_t a[16];
	uint32_t at = f->n;

	put32(f, 6u << 28 | tc << 20 | 0x12345);
	put16(f, 0);
	put8(f, nh);
	put8(f, 64);
	v6addr(src, a);
	putn(f, a, 16);
	v6addr(dst, a);
	putn(f, a, 16);
	return at;
}

static void ipv6_fix(struct fb *f, uint32_t at)
{
	set16(f, at + 4, f->n - at - 40);
}

/* Hop-by-hop / routing / destination options: (len8 + 1) * 8 bytes. */
static void ext(struct fb *f, uint32_t nh, uint32_t len8)
{
	put8(f, nh);
	put8(f, len8);
	zeros(f, (len8 + 1) * 8 - 2);
}

/* AH: (len4 + 2) * 4 bytes. */
static void ah(struct fb *f, uint32_t nh, uint32_t len4)
{
	put8(f, nh);
	put8(f, len4);
	zeros(f, (len4 + 2) * 4 - 2);
}

/* Fragment header: offset in 8-byte units. */
static void frag6(struct fb *f, uint32_t nh, uint32_t offset, int more)
{
	put8(f, nh);
	put8(f, 0);
	put16(f, offset << 3 | (more ? 1 : 0));
	put32(f, 0xdeadbeef);
}

/* UDP header, length 8 (header only); udp_fix() sets the length to the
 * end of the frame. Returns its offset. */
static uint32_t udp(struct fb *f, uint32_t sport, uint32_t dport)
{
	uint32_t at = f->n;

	put16(f, sport);
	put16(f, dport);
	put16(f, 8);
	put16(f, 0);
	return at;
}

static void udp_fix(struct fb *f, uint32_t at)
{
	set16(f, at + 4, f->n - at);
}

static void tcp(struct fb *f, uint32_t sport, uint32_t dport)
{
	put16(f, sport);
	put16(f, dport);
	put32(f, 1);
	put32(f, 0);
	put16(f, 0x5002); /* doff 5, SYN */
	put16(f, 65535);
	put32(f, 0);
}

static void bth(struct fb *f, uint32_t opcode, uint32_t dqpn)
{
	put8(f, opcode);
	put8(f, 0);
	put16(f, 0xffff);
	put8(f, opcode == BTH_OPCODE_CNP ? 0x40 : 0);
	put24(f, dqpn);
	put32(f, 0x00000123); /* AckReq 0, PSN 0x123 */
}

/* Parse an exactly-sized heap copy of frame[0..len). */
static int parse_n(const uint8_t *frame, uint32_t len, struct pkt_meta *m)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, frame, len);
	/* len 0: a 1-byte buffer, but the parser is told 0 */
	rc = pkt_parse(copy, len, m);
	free(copy);
	return rc;
}

static int parse(const struct fb *f, struct pkt_meta *m)
{
	return parse_n(f->b, f->n, m);
}

static void assert_v4(const uint8_t a[16], const char *s)
{
	static const uint8_t zero[12];
	uint32_t v = htonl(v4addr(s));

	assert_memory_equal(a, &v, 4);
	assert_memory_equal(a + 4, zero, 12);
}

static void assert_v6(const uint8_t a[16], const char *s)
{
	uint8_t b[16];

	v6addr(s, b);
	assert_memory_equal(a, b, 16);
}

/* ---- well-formed frames ---- */

static void test_untagged_ipv4_tcp(void **state)
{
	struct fb f;
	struct pkt_meta m;
	uint32_t ip;

	eth(&f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&f, 26 << 2 | 2, IPPROTO_TCP, "10.1.2.3", "192.168.7.9", 0,
		  0x4000 /* DF */);
	tcp(&f, 40000, 443);
	ipv4_fix(&f, ip);
	zeros(&f, 6); /* Ethernet padding to 60 */
	assert_int_equal(f.n, 60);

	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.ethertype, ETHERTYPE_IPV4);
	assert_int_equal(m.n_vlan, 0);
	assert_int_equal(m.vlan_id, 0);
	assert_int_equal(m.pcp, 0);
	assert_int_equal(m.l3, PKT_L3_IPV4);
	assert_int_equal(m.l3_off, 14);
	assert_int_equal(m.flags, PKT_F_IP | PKT_F_IPV4 | PKT_F_PORTS);
	assert_v4(m.src, "10.1.2.3");
	assert_v4(m.dst, "192.168.7.9");
	assert_int_equal(m.dscp, 26);
	assert_int_equal(m.ecn, 2);
	assert_int_equal(m.proto, IPPROTO_TCP);
	assert_int_equal(m.l4_off, 34);
	assert_int_equal(m.sport, 40000);
	assert_int_equal(m.dport, 443);
	assert_int_equal(m.bth_opcode, 0);
	assert_int_equal(m.bth_dqpn, 0);
}

static void test_8021q_pcp(void **state)
{
	const uint32_t tags[] = {ETHERTYPE_VLAN, tci(5, 100)};
	struct fb f;
	struct pkt_meta m;
	uint32_t ip;

	eth(&f, 1, tags, ETHERTYPE_IPV4);
	ip = ipv4(&f, 0, IPPROTO_UDP, "1.2.3.4", "5.6.7.8", 0, 0);
	udp(&f, 5000, 53);
	ipv4_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.n_vlan, 1);
	assert_int_equal(m.flags & (PKT_F_VLAN | PKT_F_QINQ), PKT_F_VLAN);
	assert_int_equal(m.vlan_id, 100);
	assert_int_equal(m.pcp, 5);
	assert_int_equal(m.ethertype, ETHERTYPE_IPV4);
	assert_int_equal(m.l3_off, 18);
	assert_int_equal(m.l4_off, 38);
	assert_int_equal(m.sport, 5000);
	assert_int_equal(m.dport, 53);

	/* VID 4095 and PCP 7: all bits of the TCI */
	set16(&f, 14, tci(7, 4095));
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.vlan_id, 4095);
	assert_int_equal(m.pcp, 7);
}

static void test_qinq(void **state)
{
	const uint32_t ad[] = {ETHERTYPE_QINQ, tci(3, 200), ETHERTYPE_VLAN,
			       tci(6, 300)};
	const uint32_t qq[] = {ETHERTYPE_VLAN, tci(1, 7), ETHERTYPE_VLAN,
			       tci(2, 8)};
	const uint32_t three[] = {ETHERTYPE_QINQ, tci(4, 1),
				  ETHERTYPE_VLAN, tci(0, 2),
				  ETHERTYPE_VLAN, tci(0, 3)};
	struct fb f;
	struct pkt_meta m;
	uint32_t ip;

	/* 802.1ad S-tag + 802.1Q C-tag: the outer tag's VID and PCP */
	eth(&f, 2, ad, ETHERTYPE_IPV6);
	ip = ipv6(&f, 0, IPPROTO_UDP, "2001:db8::1", "2001:db8::2");
	udp(&f, 1, 2);
	ipv6_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.n_vlan, 2);
	assert_int_equal(m.flags & (PKT_F_VLAN | PKT_F_QINQ),
			 PKT_F_VLAN | PKT_F_QINQ);
	assert_int_equal(m.vlan_id, 200);
	assert_int_equal(m.pcp, 3);
	assert_int_equal(m.ethertype, ETHERTYPE_IPV6);
	assert_int_equal(m.l3_off, 22);
	assert_int_equal(m.l3, PKT_L3_IPV6);
	assert_int_equal(m.l4_off, 62);

	/* Two 0x8100 tags */
	eth(&f, 2, qq, ETHERTYPE_ARP);
	zeros(&f, 28);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.n_vlan, 2);
	assert_int_equal(m.vlan_id, 7);
	assert_int_equal(m.pcp, 1);
	assert_int_equal(m.ethertype, ETHERTYPE_ARP);
	assert_int_equal(m.l3, PKT_L3_NONE);
	assert_int_equal(m.l3_off, 22);

	/* A third tag is not parsed: it is the innermost type, no L3 */
	eth(&f, 3, three, ETHERTYPE_IPV4);
	ip = ipv4(&f, 0, IPPROTO_UDP, "1.2.3.4", "5.6.7.8", 0, 0);
	udp(&f, 1, 2);
	ipv4_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.n_vlan, 2);
	assert_int_equal(m.vlan_id, 1);
	assert_int_equal(m.pcp, 4);
	assert_int_equal(m.ethertype, ETHERTYPE_VLAN);
	assert_int_equal(m.l3, PKT_L3_NONE);
	assert_int_equal(m.flags & PKT_F_IP, 0);
}

static void test_ipv4_options(void **state)
{
	struct fb f;
	struct pkt_meta m;
	uint32_t ip;

	/* IHL 7: 8 bytes of options; the L4 header follows them */
	eth(&f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&f, 0xb8, IPPROTO_UDP, "172.16.0.1", "172.16.0.2", 2, 0);
	udp(&f, 1111, 2222);
	ipv4_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.l4_off, 14 + 28);
	assert_int_equal(m.sport, 1111);
	assert_int_equal(m.dport, 2222);
	assert_int_equal(m.dscp, 46);
	assert_int_equal(m.ecn, 0);

	/* IHL 15: the largest header, 40 bytes of options */
	eth(&f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&f, 0, IPPROTO_TCP, "172.16.0.1", "172.16.0.2", 10, 0);
	tcp(&f, 3333, 4444);
	ipv4_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.l4_off, 14 + 60);
	assert_int_equal(m.sport, 3333);
	assert_int_equal(m.dport, 4444);
}

static void test_ipv4_fragments(void **state)
{
	struct fb f;
	struct pkt_meta m;
	uint32_t ip, u;

	/* First fragment (MF, offset 0): ports */
	eth(&f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&f, 0, IPPROTO_UDP, "10.0.0.1", "10.0.0.2", 0, 0x2000);
	u = udp(&f, 7, 4791);
	bth(&f, 0x04, 0x11);
	udp_fix(&f, u);
	ipv4_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_true(m.flags & PKT_F_FRAG);
	assert_true(m.flags & PKT_F_PORTS);
	assert_true(m.flags & PKT_F_BTH);
	assert_int_equal(m.dport, 4791);
	assert_int_equal(m.bth_dqpn, 0x11);

	/* Non-first fragment: protocol known, no L4; 3 bytes of data, which
	 * would be a truncated UDP header in a first fragment */
	eth(&f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&f, 0, IPPROTO_UDP, "10.0.0.1", "10.0.0.2", 0, 0x2000 | 185);
	zeros(&f, 3);
	ipv4_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.flags, PKT_F_IP | PKT_F_IPV4 | PKT_F_FRAG);
	assert_int_equal(m.proto, IPPROTO_UDP);
	assert_int_equal(m.l4_off, 0);
	assert_int_equal(m.sport, 0);
	assert_int_equal(m.dport, 0);

	/* Last fragment (offset, no MF) */
	set16(&f, ip + 6, 1);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.flags, PKT_F_IP | PKT_F_IPV4 | PKT_F_FRAG);
	assert_v4(m.dst, "10.0.0.2");
}

static void test_ipv6_ext_chain(void **state)
{
	struct fb f;
	struct pkt_meta m;
	uint32_t ip;

	/* hop-by-hop (8) + routing (24) + destination options (16) +
	 * fragment, first (8) + AH (16) + UDP */
	eth(&f, 0, NULL, ETHERTYPE_IPV6);
	ip = ipv6(&f, 0x2e, IPPROTO_HOPOPTS, "fe80::1", "ff02::1:2");
	ext(&f, IPPROTO_ROUTING, 0);
	ext(&f, IPPROTO_DSTOPTS, 2);
	ext(&f, IPPROTO_FRAGMENT, 1);
	frag6(&f, IPPROTO_AH, 0, 1);
	ah(&f, IPPROTO_UDP, 2);
	udp(&f, 546, 547);
	ipv6_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.l3, PKT_L3_IPV6);
	assert_int_equal(m.l3_off, 14);
	assert_int_equal(m.flags,
			 PKT_F_IP | PKT_F_IPV6 | PKT_F_FRAG | PKT_F_PORTS);
	assert_v6(m.src, "fe80::1");
	assert_v6(m.dst, "ff02::1:2");
	assert_int_equal(m.dscp, 0x2e >> 2);
	assert_int_equal(m.ecn, 2);
	assert_int_equal(m.proto, IPPROTO_UDP);
	assert_int_equal(m.l4_off, 14 + 40 + 8 + 24 + 16 + 8 + 16);
	assert_int_equal(m.sport, 546);
	assert_int_equal(m.dport, 547);

	/* hop-by-hop + routing + fragment, not the first: no L4 */
	eth(&f, 0, NULL, ETHERTYPE_IPV6);
	ip = ipv6(&f, 0, IPPROTO_HOPOPTS, "2001:db8::1", "2001:db8::2");
	ext(&f, IPPROTO_ROUTING, 0);
	ext(&f, IPPROTO_FRAGMENT, 0);
	frag6(&f, IPPROTO_TCP, 100, 1);
	zeros(&f, 5);
	ipv6_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.flags, PKT_F_IP | PKT_F_IPV6 | PKT_F_FRAG);
	assert_int_equal(m.proto, IPPROTO_TCP);
	assert_int_equal(m.l4_off, 0);
	assert_int_equal(m.sport, 0);

	/* Exactly PKT_MAX_EXTHDR headers is fine */
	eth(&f, 0, NULL, ETHERTYPE_IPV6);
	ip = ipv6(&f, 0, IPPROTO_DSTOPTS, "::1", "::2");
	for (int i = 0; i < PKT_MAX_EXTHDR - 1; i++)
		ext(&f, IPPROTO_DSTOPTS, 0);
	ext(&f, IPPROTO_TCP, 0);
	tcp(&f, 80, 8080);
	ipv6_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.l4_off, 14 + 40 + 8 * PKT_MAX_EXTHDR);
	assert_int_equal(m.dport, 8080);

	/* No next header (59): an upper-layer value without ports */
	eth(&f, 0, NULL, ETHERTYPE_IPV6);
	ip = ipv6(&f, 0, IPPROTO_HOPOPTS, "::1", "::2");
	ext(&f, IPPROTO_NONE, 0);
	ipv6_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.proto, IPPROTO_NONE);
	assert_int_equal(m.l4_off, 14 + 48);
	assert_int_equal(m.flags & PKT_F_PORTS, 0);
}

static void test_ipv6_traffic_class(void **state)
{
	struct fb f;
	struct pkt_meta m;
	uint32_t ip;

	/* TC 0xc3 straddles bytes 0 and 1: DSCP 48, ECN CE */
	eth(&f, 0, NULL, ETHERTYPE_IPV6);
	ip = ipv6(&f, 0xc3, IPPROTO_ICMPV6, "::1", "::2");
	zeros(&f, 8);
	ipv6_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.dscp, 48);
	assert_int_equal(m.ecn, 3);
	assert_int_equal(m.proto, IPPROTO_ICMPV6);
	assert_int_equal(m.l4_off, 54);
	assert_int_equal(m.flags & PKT_F_PORTS, 0);
}

/* The golden CNP of acsl-technion/libconntrack-cm tests/test_cnp.cpp (IPv4
 * 22.22.22.8 -> .7, tos 0x89, UDP 56238 -> 4791, BTH 0x81 dqpn 0xd2). */
static const uint8_t cnp_ipv4[] = {
	0x45, 0x89, 0x00, 0x3c, 0x98, 0xc6, 0x40, 0x00, 0x20, 0x11, 0x69, 0x27,
	0x16, 0x16, 0x16, 0x08, 0x16, 0x16, 0x16, 0x07, 0xdb, 0xae, 0x12, 0xb7,
	0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x00, 0xd2,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xda, 0xfc, 0x1b, 0xef,
};

static void test_rocev2_cnp(void **state)
{
	const uint32_t tags[] = {ETHERTYPE_VLAN, tci(6, 10)};
	struct fb f;
	struct pkt_meta m;

	eth(&f, 1, tags, ETHERTYPE_IPV4);
	putn(&f, cnp_ipv4, sizeof(cnp_ipv4));
	assert_int_equal(f.n, 18 + 60);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.pcp, 6);
	assert_int_equal(m.dscp, 0x89 >> 2);
	assert_int_equal(m.ecn, 1);
	assert_v4(m.src, "22.22.22.8");
	assert_v4(m.dst, "22.22.22.7");
	assert_int_equal(m.proto, IPPROTO_UDP);
	assert_int_equal(m.l4_off, 38);
	assert_int_equal(m.sport, 56238);
	assert_int_equal(m.dport, ROCEV2_UDP_PORT);
	assert_true(m.flags & PKT_F_BTH);
	assert_int_equal(m.bth_opcode, BTH_OPCODE_CNP);
	assert_int_equal(m.bth_dqpn, 0xd2);
	assert_int_equal(m.bth_psn, 0);
	assert_int_equal(m.bth_flags, PKT_BTH_BECN);
}

static void test_rocev2_data(void **state)
{
	struct fb f;
	struct pkt_meta m;
	uint32_t ip, u;

	/* RC RDMA WRITE ONLY over IPv6, 24-bit QPN with all bytes used */
	eth(&f, 0, NULL, ETHERTYPE_IPV6);
	ip = ipv6(&f, 26 << 2 | 2, IPPROTO_UDP, "2001:db8::a", "2001:db8::b");
	u = udp(&f, 0xc000, ROCEV2_UDP_PORT);
	bth(&f, 0x0a, 0xabcdef);
	zeros(&f, 64 + 4);
	udp_fix(&f, u);
	ipv6_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.flags,
			 PKT_F_IP | PKT_F_IPV6 | PKT_F_PORTS | PKT_F_BTH);
	assert_int_equal(m.bth_opcode, 0x0a);
	assert_int_equal(m.bth_dqpn, 0xabcdef);
	assert_int_equal(m.bth_psn, 0x123);
	assert_int_equal(m.bth_flags, 0);
	assert_int_equal(m.sport, 0xc000);
	assert_int_equal(m.dscp, 26);

	/* UDP 4791 as the source port only: no BTH */
	eth(&f, 0, NULL, ETHERTYPE_IPV6);
	ip = ipv6(&f, 0, IPPROTO_UDP, "2001:db8::a", "2001:db8::b");
	udp(&f, ROCEV2_UDP_PORT, 9999);
	zeros(&f, 4);
	ipv6_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.flags & PKT_F_BTH, 0);
	assert_int_equal(m.bth_opcode, 0);
	assert_int_equal(m.bth_dqpn, 0);
	assert_int_equal(m.bth_psn, 0);
	assert_int_equal(m.bth_flags, 0);
}

/* Each single-bit BTH field on its own, next to its neighbours set to all
 * ones or zeros: the parser must pick exactly its bit. */
static void test_rocev2_bth_bits(void **state)
{
	static const struct {
		uint8_t b4, b8; /* BTH bytes 4 and 8 */
		uint32_t psn;
		uint8_t want;
	} c[] = {
		{0x00, 0x00, 0x000000, 0},
		{0x40, 0x00, 0xffffff, PKT_BTH_BECN},
		{0x80, 0x00, 0x000001, PKT_BTH_FECN},
		{0x00, 0x80, 0x800000, PKT_BTH_ACKREQ},
		{0x3f, 0x7f, 0x123456, 0}, /* reserved bits only */
		{0xff, 0xff, 0xabcdef,
		 PKT_BTH_BECN | PKT_BTH_FECN | PKT_BTH_ACKREQ},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fb f;
		struct pkt_meta m;
		uint32_t ip, u;

		eth(&f, 0, NULL, ETHERTYPE_IPV4);
		ip = ipv4(&f, 0x02, IPPROTO_UDP, "10.0.0.1", "10.0.0.2", 0, 0);
		u = udp(&f, 0xc001, ROCEV2_UDP_PORT);
		put8(&f, 0x11); /* RC ACK */
		put8(&f, 0);
		put16(&f, 0xffff);
		put8(&f, c[i].b4);
		put24(&f, 0x000102);
		put8(&f, c[i].b8);
		put24(&f, c[i].psn);
		zeros(&f, 4 + 4); /* AETH, ICRC */
		udp_fix(&f, u);
		ipv4_fix(&f, ip);
		assert_int_equal(parse(&f, &m), PKT_OK);
		assert_int_equal(m.bth_opcode, 0x11);
		assert_int_equal(m.bth_dqpn, 0x000102);
		assert_int_equal(m.bth_psn, c[i].psn);
		assert_int_equal(m.bth_flags, c[i].want);
	}
}

static void test_not_ip(void **state)
{
	const uint32_t tags[] = {ETHERTYPE_VLAN, tci(2, 42)};
	struct fb f;
	struct pkt_meta m;

	/* ARP request, padded to 60 */
	eth(&f, 0, NULL, ETHERTYPE_ARP);
	put32(&f, 0x00010800);
	put32(&f, 0x06040001);
	zeros(&f, 60 - 22);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.ethertype, ETHERTYPE_ARP);
	assert_int_equal(m.l3, PKT_L3_NONE);
	assert_int_equal(m.l3_off, 14);
	assert_int_equal(m.l4_off, 0);
	assert_int_equal(m.flags, 0);

	/* LLDP in a VLAN */
	eth(&f, 1, tags, 0x88cc);
	zeros(&f, 30);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.ethertype, 0x88cc);
	assert_int_equal(m.flags, PKT_F_VLAN);
	assert_int_equal(m.vlan_id, 42);

	/* A bare Ethernet header is well-formed */
	eth(&f, 0, NULL, 0x88b5);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_int_equal(m.ethertype, 0x88b5);
}

/* ---- malformed frames ---- */

struct bad {
	const char *what;
	struct fb f;
	int want;
};

static void bad_ipv4_udp(struct bad *b, uint32_t payload)
{
	uint32_t ip;

	eth(&b->f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&b->f, 0, IPPROTO_UDP, "10.0.0.1", "10.0.0.2", 0, 0);
	zeros(&b->f, payload);
	ipv4_fix(&b->f, ip);
}

static uint32_t bad_ipv6(struct bad *b, uint32_t nh)
{
	eth(&b->f, 0, NULL, ETHERTYPE_IPV6);
	return ipv6(&b->f, 0, nh, "2001:db8::1", "2001:db8::2");
}

static void test_malformed_reasons(void **state)
{
	static struct bad t[32];
	int seen[PKT_MALFORMED_MAX] = {0};
	struct pkt_meta m;
	uint32_t n = 0, ip, u;
	const uint32_t one_tag[] = {ETHERTYPE_VLAN, tci(0, 1)};
	const uint32_t two_tags[] = {ETHERTYPE_QINQ, tci(0, 1), ETHERTYPE_VLAN,
				     tci(0, 2)};

	memset(t, 0, sizeof(t));

	t[n].what = "runt: 13 bytes";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	t[n].f.n = 13;
	t[n++].want = PKT_MALFORMED_RUNT;

	t[n].what = "runt: empty";
	t[n].f.n = 0;
	t[n++].want = PKT_MALFORMED_RUNT;

	t[n].what = "vlan: 802.1Q tag cut after 3 bytes";
	eth(&t[n].f, 1, one_tag, ETHERTYPE_IPV4);
	t[n].f.n = 17;
	t[n++].want = PKT_MALFORMED_VLAN_TRUNCATED;

	t[n].what = "vlan: inner tag of QinQ cut";
	eth(&t[n].f, 2, two_tags, ETHERTYPE_IPV4);
	t[n].f.n = 21;
	t[n++].want = PKT_MALFORMED_VLAN_TRUNCATED;

	t[n].what = "ipv4: 19 bytes of header";
	bad_ipv4_udp(&t[n], 0);
	t[n].f.n = 14 + 19;
	t[n++].want = PKT_MALFORMED_IPV4_TRUNCATED;

	t[n].what = "ipv4: version 6 under ethertype IPv4";
	bad_ipv4_udp(&t[n], 8);
	t[n].f.b[14] = 0x65;
	t[n++].want = PKT_MALFORMED_IPV4_VERSION;

	t[n].what = "ipv4: IHL 4";
	bad_ipv4_udp(&t[n], 8);
	t[n].f.b[14] = 0x44;
	t[n++].want = PKT_MALFORMED_IPV4_BAD_IHL;

	t[n].what = "ipv4: IHL 15 in a 34+8 byte frame";
	bad_ipv4_udp(&t[n], 8);
	t[n].f.b[14] = 0x4f;
	t[n++].want = PKT_MALFORMED_IPV4_BAD_IHL;

	t[n].what = "ipv4: total length one past the frame";
	bad_ipv4_udp(&t[n], 8);
	set16(&t[n].f, 16, 29);
	t[n++].want = PKT_MALFORMED_IPV4_BAD_TOTLEN;

	t[n].what = "ipv4: total length below the header (IHL 6)";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&t[n].f, 0, IPPROTO_UDP, "1.1.1.1", "2.2.2.2", 1, 0);
	udp(&t[n].f, 1, 2);
	set16(&t[n].f, ip + 2, 23);
	t[n++].want = PKT_MALFORMED_IPV4_BAD_TOTLEN;

	t[n].what = "ipv6: 39 bytes of header";
	bad_ipv6(&t[n], IPPROTO_UDP);
	t[n].f.n = 14 + 39;
	t[n++].want = PKT_MALFORMED_IPV6_TRUNCATED;

	t[n].what = "ipv6: version 4 under ethertype IPv6";
	ip = bad_ipv6(&t[n], IPPROTO_UDP);
	udp(&t[n].f, 1, 2);
	ipv6_fix(&t[n].f, ip);
	t[n].f.b[ip] = 0x40;
	t[n++].want = PKT_MALFORMED_IPV6_VERSION;

	t[n].what = "ipv6: payload length one past the frame";
	ip = bad_ipv6(&t[n], IPPROTO_UDP);
	udp(&t[n].f, 1, 2);
	set16(&t[n].f, ip + 4, 9);
	t[n++].want = PKT_MALFORMED_IPV6_BAD_PLEN;

	t[n].what = "exthdr: hop-by-hop length past the payload";
	ip = bad_ipv6(&t[n], IPPROTO_HOPOPTS);
	ext(&t[n].f, IPPROTO_UDP, 1); /* 16 bytes */
	udp(&t[n].f, 1, 2);
	set16(&t[n].f, ip + 4, 15); /* payload ends inside it */
	zeros(&t[n].f, 8); /* padding: the frame is long enough */
	t[n++].want = PKT_MALFORMED_EXTHDR_TRUNCATED;

	t[n].what = "exthdr: fewer than 8 bytes for a routing header";
	ip = bad_ipv6(&t[n], IPPROTO_ROUTING);
	zeros(&t[n].f, 7);
	ipv6_fix(&t[n].f, ip);
	t[n++].want = PKT_MALFORMED_EXTHDR_TRUNCATED;

	t[n].what = "exthdr: AH length past the payload";
	ip = bad_ipv6(&t[n], IPPROTO_AH);
	ah(&t[n].f, IPPROTO_TCP, 4); /* 24 bytes */
	ipv6_fix(&t[n].f, ip);
	t[n].f.b[ip + 41] = 5; /* says 28 */
	t[n++].want = PKT_MALFORMED_EXTHDR_TRUNCATED;

	t[n].what = "exthdr: PKT_MAX_EXTHDR + 1 headers";
	ip = bad_ipv6(&t[n], IPPROTO_DSTOPTS);
	for (int i = 0; i <= PKT_MAX_EXTHDR; i++)
		ext(&t[n].f, i < PKT_MAX_EXTHDR ? IPPROTO_DSTOPTS : IPPROTO_UDP,
		    0);
	udp(&t[n].f, 1, 2);
	ipv6_fix(&t[n].f, ip);
	t[n++].want = PKT_MALFORMED_EXTHDR_TOO_LONG;

	t[n].what = "tcp: 19 bytes of header";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&t[n].f, 0, IPPROTO_TCP, "1.1.1.1", "2.2.2.2", 0, 0);
	zeros(&t[n].f, 19);
	ipv4_fix(&t[n].f, ip);
	t[n++].want = PKT_MALFORMED_TCP_TRUNCATED;

	t[n].what = "tcp: header only in the Ethernet padding";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&t[n].f, 0, IPPROTO_TCP, "1.1.1.1", "2.2.2.2", 0, 0);
	ipv4_fix(&t[n].f, ip); /* total length 20 */
	tcp(&t[n].f, 1, 2);
	t[n++].want = PKT_MALFORMED_TCP_TRUNCATED;

	t[n].what = "udp: 7 bytes of header (IPv6)";
	ip = bad_ipv6(&t[n], IPPROTO_UDP);
	zeros(&t[n].f, 7);
	ipv6_fix(&t[n].f, ip);
	t[n++].want = PKT_MALFORMED_UDP_TRUNCATED;

	t[n].what = "udp: IPv4 total length 27";
	bad_ipv4_udp(&t[n], 7);
	zeros(&t[n].f, 20);
	t[n++].want = PKT_MALFORMED_UDP_TRUNCATED;

	t[n].what = "bth: UDP 4791 with 11 bytes of BTH";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&t[n].f, 0, IPPROTO_UDP, "1.1.1.1", "2.2.2.2", 0, 0);
	u = udp(&t[n].f, 1, ROCEV2_UDP_PORT);
	zeros(&t[n].f, 11);
	udp_fix(&t[n].f, u);
	ipv4_fix(&t[n].f, ip);
	zeros(&t[n].f, 10); /* padding is not BTH */
	t[n++].want = PKT_MALFORMED_BTH_TRUNCATED;

	t[n].what = "bth: UDP 4791, the UDP length cuts the BTH";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&t[n].f, 0, IPPROTO_UDP, "1.1.1.1", "2.2.2.2", 0, 0);
	u = udp(&t[n].f, 1, ROCEV2_UDP_PORT);
	bth(&t[n].f, 0x0a, 1);
	ipv4_fix(&t[n].f, ip);
	set16(&t[n].f, u + 4, 8 + 11);
	t[n++].want = PKT_MALFORMED_BTH_TRUNCATED;

	t[n].what = "udp: length 7";
	bad_ipv4_udp(&t[n], 8);
	set16(&t[n].f, 34 + 4, 7);
	t[n++].want = PKT_MALFORMED_UDP_BAD_LEN;

	t[n].what = "udp: length one past the datagram (IPv6)";
	ip = bad_ipv6(&t[n], IPPROTO_UDP);
	u = udp(&t[n].f, 1, 2);
	zeros(&t[n].f, 4);
	ipv6_fix(&t[n].f, ip);
	set16(&t[n].f, u + 4, 13);
	t[n++].want = PKT_MALFORMED_UDP_BAD_LEN;

	t[n].what = "tcp: data offset 4";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&t[n].f, 0, IPPROTO_TCP, "1.1.1.1", "2.2.2.2", 0, 0);
	tcp(&t[n].f, 1, 2);
	ipv4_fix(&t[n].f, ip);
	t[n].f.b[34 + 12] = 4 << 4;
	t[n++].want = PKT_MALFORMED_TCP_BAD_DOFF;

	t[n].what = "tcp: data offset 6, header past the datagram (IPv6)";
	ip = bad_ipv6(&t[n], IPPROTO_TCP);
	tcp(&t[n].f, 1, 2);
	ipv6_fix(&t[n].f, ip);
	t[n].f.b[54 + 12] = 6 << 4;
	zeros(&t[n].f, 4); /* padding is not TCP options */
	t[n++].want = PKT_MALFORMED_TCP_BAD_DOFF;

	assert_true(n <= sizeof(t) / sizeof(t[0]));
	for (uint32_t i = 0; i < n; i++) {
		int rc = parse(&t[i].f, &m);

		if (rc != t[i].want)
			fail_msg("%s: got %s, want %s", t[i].what,
				 pkt_malformed_name(rc),
				 pkt_malformed_name(t[i].want));
		seen[rc]++;
	}
	/* every reason has a frame */
	for (int r = 1; r < PKT_MALFORMED_MAX; r++)
		if (!seen[r])
			fail_msg("no frame for reason %d (%s)", r,
				 pkt_malformed_name(r));
}

static void test_malformed_names(void **state)
{
	assert_string_equal(pkt_malformed_name(PKT_OK), "ok");
	assert_string_equal(pkt_malformed_name(PKT_MALFORMED_RUNT), "runt");
	assert_string_equal(pkt_malformed_name(PKT_MALFORMED_VLAN_TRUNCATED),
			    "vlan_truncated");
	assert_string_equal(pkt_malformed_name(PKT_MALFORMED_BTH_TRUNCATED),
			    "bth_truncated");
	assert_string_equal(pkt_malformed_name(PKT_MALFORMED_UDP_BAD_LEN),
			    "udp_bad_len");
	assert_string_equal(pkt_malformed_name(PKT_MALFORMED_TCP_BAD_DOFF),
			    "tcp_bad_doff");
	assert_string_equal(pkt_malformed_name(-1), "?");
	assert_string_equal(pkt_malformed_name(PKT_MALFORMED_MAX), "?");
	/* all named, all distinct */
	for (int i = 0; i < PKT_MALFORMED_MAX; i++) {
		assert_non_null(pkt_malformed_name(i));
		assert_string_not_equal(pkt_malformed_name(i), "?");
		for (int j = 0; j < i; j++)
			assert_string_not_equal(pkt_malformed_name(i),
						pkt_malformed_name(j));
	}
}

/* ---- L4 length fields: UDP length, TCP data offset ---- */

enum { NOFRAG, FIRST_FRAG, ATOMIC_FRAG /* IPv6: offset 0, M 0 */ };

/*
 * Ethernet | IPv4 or IPv6 (+ a fragment header, offset 0, for IPv6
 * fragments; MF for an IPv4 first fragment) | UDP or TCP header whose
 * length field (UDP length / TCP data offset) is `field`, l4 bytes of L4
 * in all (header included) | pad bytes of Ethernet padding, outside the
 * datagram. Returns the L4 offset.
 */
static uint32_t l4_frame(struct fb *f, int v6, int frag, uint32_t proto,
			 uint32_t dport, uint32_t field, uint32_t l4,
			 uint32_t pad)
{
	uint32_t ip, l4_off, hdr = proto == IPPROTO_TCP ? 20 : 8;

	assert_true(l4 >= hdr);
	if (v6) {
		eth(f, 0, NULL, ETHERTYPE_IPV6);
		ip = ipv6(f, 0, frag ? IPPROTO_FRAGMENT : proto, "2001:db8::1",
			  "2001:db8::2");
		if (frag)
			frag6(f, proto, 0, frag == FIRST_FRAG);
	} else {
		assert_true(frag != ATOMIC_FRAG);
		eth(f, 0, NULL, ETHERTYPE_IPV4);
		ip = ipv4(f, 0, proto, "10.0.0.1", "10.0.0.2", 0,
			  frag ? 0x2000 : 0x4000);
	}
	l4_off = f->n;
	if (proto == IPPROTO_TCP) {
		tcp(f, 1234, dport);
		f->b[l4_off + 12] = (uint8_t)(field << 4);
	} else {
		udp(f, 1234, dport);
		set16(f, l4_off + 4, field);
	}
	zeros(f, l4 - hdr);
	if (v6)
		ipv6_fix(f, ip);
	else
		ipv4_fix(f, ip);
	zeros(f, pad);
	return l4_off;
}

/* pkt_parse_head() on an exactly-sized copy of frame[0..head). */
static int parse_head_n(const uint8_t *frame, uint32_t head, uint32_t len,
			struct pkt_meta *m)
{
	uint8_t *copy = malloc(head ? head : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, frame, head);
	rc = pkt_parse_head(copy, head, len, m);
	free(copy);
	return rc;
}

/*
 * pkt_parse() gives want; pkt_parse_head() gives want (and the same
 * pkt_meta) for every head from the end of the bytes the parser reads
 * (UDP 8, TCP 20, UDP + BTH 20) to the frame's end -- the length fields
 * are checked against the datagram, not the head -- and the L4 header's
 * truncated reason for a head one byte short of the L4 header.
 */
static void check_l4(const char *what, int v6, const struct fb *f,
		     uint32_t l4_off, uint32_t proto, int need_bth, int want)
{
	struct pkt_meta m, mh;
	uint32_t need = proto == IPPROTO_TCP ? 20 : need_bth ? 8 + BTH_LEN : 8;
	uint32_t hdr = proto == IPPROTO_TCP ? 20 : 8;
	int rc, cut = proto == IPPROTO_TCP ? PKT_MALFORMED_TCP_TRUNCATED
					   : PKT_MALFORMED_UDP_TRUNCATED;

	rc = parse(f, &m);
	if (rc != want)
		fail_msg("%s (IPv%d): got %s, want %s", what, v6 ? 6 : 4,
			 pkt_malformed_name(rc), pkt_malformed_name(want));
	for (uint32_t head = l4_off + need; head <= f->n; head++) {
		rc = parse_head_n(f->b, head, f->n, &mh);
		if (rc != want)
			fail_msg("%s (IPv%d), head %u of %u: got %s, want %s",
				 what, v6 ? 6 : 4, head, f->n,
				 pkt_malformed_name(rc),
				 pkt_malformed_name(want));
		assert_memory_equal(&m, &mh, sizeof(m));
	}
	rc = parse_head_n(f->b, l4_off + hdr - 1, f->n, &mh);
	if (rc != cut)
		fail_msg("%s (IPv%d), L4 header cut by the head: got %s", what,
			 v6 ? 6 : 4, pkt_malformed_name(rc));
}

static void test_l4_length_fields(void **state)
{
	static const struct {
		const char *what;
		uint32_t proto, dport, field, l4, pad;
		int frag, want;
	} c[] = {
		/* UDP length against the datagram's L4 bytes */
		{"udp len == L4 bytes (8)", IPPROTO_UDP, 53, 8, 8, 0, NOFRAG,
		 PKT_OK},
		{"udp len == L4 bytes (40)", IPPROTO_UDP, 53, 40, 40, 0, NOFRAG,
		 PKT_OK},
		{"udp len < L4 bytes (trailing bytes)", IPPROTO_UDP, 53, 20, 40,
		 0, NOFRAG, PKT_OK},
		{"udp len 8 < L4 bytes", IPPROTO_UDP, 53, 8, 40, 0, NOFRAG,
		 PKT_OK},
		{"udp len == L4 bytes, Ethernet padding to 60+", IPPROTO_UDP,
		 53, 8, 8, 18, NOFRAG, PKT_OK},
		{"udp len 0 (no jumbogram)", IPPROTO_UDP, 53, 0, 40, 0, NOFRAG,
		 PKT_MALFORMED_UDP_BAD_LEN},
		{"udp len 1", IPPROTO_UDP, 53, 1, 40, 0, NOFRAG,
		 PKT_MALFORMED_UDP_BAD_LEN},
		{"udp len 7", IPPROTO_UDP, 53, 7, 8, 0, NOFRAG,
		 PKT_MALFORMED_UDP_BAD_LEN},
		{"udp len L4 bytes + 1", IPPROTO_UDP, 53, 41, 40, 0, NOFRAG,
		 PKT_MALFORMED_UDP_BAD_LEN},
		{"udp len 65535", IPPROTO_UDP, 53, 65535, 40, 0, NOFRAG,
		 PKT_MALFORMED_UDP_BAD_LEN},
		{"udp len into the Ethernet padding", IPPROTO_UDP, 53, 26, 8,
		 18, NOFRAG, PKT_MALFORMED_UDP_BAD_LEN},
		{"udp first fragment, len past this fragment", IPPROTO_UDP, 53,
		 1000, 16, 0, FIRST_FRAG, PKT_OK},
		{"udp first fragment, len 7", IPPROTO_UDP, 53, 7, 16, 0,
		 FIRST_FRAG, PKT_MALFORMED_UDP_BAD_LEN},
		/* RoCEv2: the BTH only where the UDP length says it is */
		{"bth: udp len 20 == L4 bytes", IPPROTO_UDP, ROCEV2_UDP_PORT,
		 20, 20, 0, NOFRAG, PKT_OK},
		{"bth: udp len 19 cuts the BTH", IPPROTO_UDP, ROCEV2_UDP_PORT,
		 19, 20, 0, NOFRAG, PKT_MALFORMED_BTH_TRUNCATED},
		{"bth: udp len 8, BTH bytes after it", IPPROTO_UDP,
		 ROCEV2_UDP_PORT, 8, 40, 0, NOFRAG,
		 PKT_MALFORMED_BTH_TRUNCATED},
		{"bth: udp len 21 past the datagram", IPPROTO_UDP,
		 ROCEV2_UDP_PORT, 21, 20, 0, NOFRAG, PKT_MALFORMED_UDP_BAD_LEN},
		{"bth: first fragment, udp len past it", IPPROTO_UDP,
		 ROCEV2_UDP_PORT, 1000, 24, 0, FIRST_FRAG, PKT_OK},
		/* TCP data offset */
		{"tcp doff 0", IPPROTO_TCP, 80, 0, 60, 0, NOFRAG,
		 PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp doff 1", IPPROTO_TCP, 80, 1, 20, 0, NOFRAG,
		 PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp doff 2", IPPROTO_TCP, 80, 2, 20, 0, NOFRAG,
		 PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp doff 3", IPPROTO_TCP, 80, 3, 20, 0, NOFRAG,
		 PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp doff 4", IPPROTO_TCP, 80, 4, 60, 0, NOFRAG,
		 PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp doff 5", IPPROTO_TCP, 80, 5, 20, 0, NOFRAG, PKT_OK},
		{"tcp doff 5, padding to 60+", IPPROTO_TCP, 80, 5, 20, 6,
		 NOFRAG, PKT_OK},
		{"tcp doff 6, 24 L4 bytes", IPPROTO_TCP, 80, 6, 24, 0, NOFRAG,
		 PKT_OK},
		{"tcp doff 15, 60 L4 bytes", IPPROTO_TCP, 80, 15, 60, 0, NOFRAG,
		 PKT_OK},
		{"tcp doff 15, 59 L4 bytes", IPPROTO_TCP, 80, 15, 59, 0, NOFRAG,
		 PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp doff 6, options in the Ethernet padding", IPPROTO_TCP, 80,
		 6, 20, 20, NOFRAG, PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp first fragment, doff 15, 24 L4 bytes", IPPROTO_TCP, 80,
		 15, 24, 0, FIRST_FRAG, PKT_OK},
		{"tcp first fragment, doff 4", IPPROTO_TCP, 80, 4, 24, 0,
		 FIRST_FRAG, PKT_MALFORMED_TCP_BAD_DOFF},
	};
	struct fb f;

	for (int v6 = 0; v6 <= 1; v6++) {
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			uint32_t l4_off = l4_frame(
				&f, v6, c[i].frag, c[i].proto, c[i].dport,
				c[i].field, c[i].l4, c[i].pad);
			int bth = c[i].dport == ROCEV2_UDP_PORT &&
				  c[i].want == PKT_OK;

			check_l4(c[i].what, v6, &f, l4_off, c[i].proto, bth,
				 c[i].want);
		}
	}
	/* IPv6 atomic fragment (offset 0, M 0): the whole datagram is here,
	 * so its lengths are checked like an unfragmented one's */
	check_l4("udp atomic fragment, len past it", 1, &f,
		 l4_frame(&f, 1, ATOMIC_FRAG, IPPROTO_UDP, 53, 1000, 16, 0),
		 IPPROTO_UDP, 0, PKT_MALFORMED_UDP_BAD_LEN);
	check_l4("udp atomic fragment, len == L4 bytes", 1, &f,
		 l4_frame(&f, 1, ATOMIC_FRAG, IPPROTO_UDP, 53, 16, 16, 0),
		 IPPROTO_UDP, 0, PKT_OK);
	check_l4("tcp atomic fragment, doff 15, 24 L4 bytes", 1, &f,
		 l4_frame(&f, 1, ATOMIC_FRAG, IPPROTO_TCP, 80, 15, 24, 0),
		 IPPROTO_TCP, 0, PKT_MALFORMED_TCP_BAD_DOFF);
}

/* ---- truncation sweep ---- */

/* QinQ (22) | IPv6 (40) @22 | HBH (8) @62 | DSTOPTS (16) @70 |
 * FRAG first (8) @86 | UDP (8) @94 | BTH (12) @102 | 16 + ICRC 4 @114 */
static void full_roce_frame(struct fb *f)
{
	const uint32_t tags[] = {ETHERTYPE_QINQ, tci(3, 500), ETHERTYPE_VLAN,
				 tci(5, 600)};
	uint32_t ip, u;

	eth(f, 2, tags, ETHERTYPE_IPV6);
	ip = ipv6(f, 26 << 2 | 1, IPPROTO_HOPOPTS, "2001:db8::10",
		  "2001:db8::20");
	ext(f, IPPROTO_DSTOPTS, 0);
	ext(f, IPPROTO_FRAGMENT, 1);
	frag6(f, IPPROTO_UDP, 0, 1);
	u = udp(f, 0xf000, ROCEV2_UDP_PORT);
	bth(f, BTH_OPCODE_CNP, 0x123456);
	zeros(f, 16);
	put32(f, 0xdafc1bef);
	udp_fix(f, u);
	ipv6_fix(f, ip);
	assert_int_equal(f->n, 134);
}

static int want_raw(uint32_t len)
{
	if (len < 14)
		return PKT_MALFORMED_RUNT;
	if (len < 22)
		return PKT_MALFORMED_VLAN_TRUNCATED;
	if (len < 62)
		return PKT_MALFORMED_IPV6_TRUNCATED;
	if (len < 134)
		return PKT_MALFORMED_IPV6_BAD_PLEN;
	return PKT_OK;
}

static int want_fixed(uint32_t len)
{
	if (len < 94)
		return PKT_MALFORMED_EXTHDR_TRUNCATED;
	if (len < 102)
		return PKT_MALFORMED_UDP_TRUNCATED;
	if (len < 114)
		return PKT_MALFORMED_BTH_TRUNCATED;
	return PKT_OK;
}

static void test_truncation_sweep(void **state)
{
	struct fb full, f;
	struct pkt_meta m;
	uint32_t len;
	int rc;

	full_roce_frame(&full);
	for (len = 0; len <= full.n; len++) {
		/* The frame cut at len: the IPv6 payload length now lies. */
		rc = parse_n(full.b, len, &m);
		if (rc != want_raw(len))
			fail_msg("cut at %u: got %s, want %s", len,
				 pkt_malformed_name(rc),
				 pkt_malformed_name(want_raw(len)));
		if (len < 62)
			continue;
		/* ...and with the payload length fixed up to match: the
		 * extension headers, UDP and BTH are cut in turn. */
		f = full;
		f.n = len;
		ipv6_fix(&f, 22);
		rc = parse(&f, &m);
		if (rc != want_fixed(len))
			fail_msg("cut at %u, plen fixed: got %s, want %s", len,
				 pkt_malformed_name(rc),
				 pkt_malformed_name(want_fixed(len)));
		/* What was parsed before the fault is filled in. */
		assert_int_equal(m.vlan_id, 500);
		assert_int_equal(m.pcp, 3);
		assert_int_equal(m.dscp, 26);
		assert_int_equal(m.ecn, 1);
		if (rc == PKT_OK) {
			assert_int_equal(m.l4_off, 94);
			assert_int_equal(m.sport, 0xf000);
			assert_int_equal(m.bth_opcode, BTH_OPCODE_CNP);
			assert_int_equal(m.bth_dqpn, 0x123456);
			assert_int_equal(m.bth_psn, 0x123);
			assert_int_equal(m.bth_flags, PKT_BTH_BECN);
			assert_true(m.flags & PKT_F_FRAG);
		}
	}
}

/* What the RX task packs for the egress side (frame_meta.h): the L4
 * offset, and the TCP and BTH bits the path monitor picks its departures
 * by; UDP that is not RoCE and ICMP carry neither (the egress side does
 * not touch those frames). */
static void test_meta_l4_bits(void **state)
{
	struct pkt_meta m;
	struct fb f;
	uint32_t meta, off, ip;

	(void)state;
	for (int v6 = 0; v6 < 2; v6++) {
		off = l4_frame(&f, v6, 0, IPPROTO_TCP, 80, 5, 20 + 100, 0);
		assert_int_equal(parse(&f, &m), PKT_OK);
		meta = frame_meta_l4_of(&m);
		assert_true(meta & FRAME_META_TCP);
		assert_false(meta & FRAME_META_BTH);
		assert_true(frame_meta_tcp_or_bth(meta));
		assert_int_equal(
			frame_meta_l4off(meta |
					 frame_meta_pack(0, 0, 0, m.l3_off)),
			off);

		l4_frame(&f, v6, 0, IPPROTO_UDP, 5001, 8 + 100, 8 + 100, 0);
		assert_int_equal(parse(&f, &m), PKT_OK);
		meta = frame_meta_l4_of(&m);
		assert_false(meta & (FRAME_META_TCP | FRAME_META_BTH));
		assert_false(frame_meta_tcp_or_bth(meta));
		assert_int_not_equal(meta, 0); /* the offset is there */
	}
	eth(&f, 0, NULL, ETHERTYPE_IPV4); /* ICMP: an offset, neither bit */
	ip = ipv4(&f, 0, IPPROTO_ICMP, "10.0.0.1", "10.0.0.2", 0, 0x4000);
	zeros(&f, 40);
	ipv4_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_false(frame_meta_tcp_or_bth(frame_meta_l4_of(&m)));

	full_roce_frame(&f);
	assert_int_equal(parse(&f, &m), PKT_OK);
	meta = frame_meta_l4_of(&m);
	assert_true(meta & FRAME_META_BTH);
	assert_false(meta & FRAME_META_TCP);
	assert_true(frame_meta_tcp_or_bth(meta));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_untagged_ipv4_tcp),
		cmocka_unit_test(test_8021q_pcp),
		cmocka_unit_test(test_qinq),
		cmocka_unit_test(test_ipv4_options),
		cmocka_unit_test(test_ipv4_fragments),
		cmocka_unit_test(test_ipv6_ext_chain),
		cmocka_unit_test(test_ipv6_traffic_class),
		cmocka_unit_test(test_rocev2_cnp),
		cmocka_unit_test(test_rocev2_data),
		cmocka_unit_test(test_rocev2_bth_bits),
		cmocka_unit_test(test_not_ip),
		cmocka_unit_test(test_malformed_reasons),
		cmocka_unit_test(test_malformed_names),
		cmocka_unit_test(test_l4_length_fields),
		cmocka_unit_test(test_truncation_sweep),
		cmocka_unit_test(test_meta_l4_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

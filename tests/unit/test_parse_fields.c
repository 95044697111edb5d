// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_parse_fields.c - pkt_parse() on hand-built well-formed frames:
 * every field (VLAN / QinQ / PCP, IPv4 with and without options and
 * fragments, IPv6 with extension header chains and its traffic class, TCP,
 * UDP, RoCEv2 BTH with its PSN and single-bit fields) and non-IP frames.
 */
#include "test_parse.h"

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

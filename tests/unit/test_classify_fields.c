// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_classify_fields.c - classify() field by field: first match wins,
 * the default class, every field alone (ethertype, VLAN, PCP, protocol,
 * DSCP/ECN, IPv4 and IPv6 prefix lengths, port range edges, BTH opcode).
 */
#include "test_classify.h"

/* ---- tests ---- */

static void test_first_match_wins(void **state)
{
	struct pkt_meta m = meta_v4("10.0.0.1", "10.0.0.2", IPPROTO_UDP, 1, 2);

	policy_reset();
	rule_add(QOS_M_PROTO, C_A)->proto = IPPROTO_UDP;
	rule_add(QOS_M_ETHERTYPE, C_B)->ethertype = ETHERTYPE_IPV4;
	build();
	assert_int_equal(cl(&m), C_A);

	/* the same rules the other way round */
	policy_reset();
	rule_add(QOS_M_ETHERTYPE, C_B)->ethertype = ETHERTYPE_IPV4;
	rule_add(QOS_M_PROTO, C_A)->proto = IPPROTO_UDP;
	build();
	assert_int_equal(cl(&m), C_B);

	/* a later rule when the first does not match */
	m = meta_v4("10.0.0.1", "10.0.0.2", IPPROTO_TCP, 1, 2);
	policy_reset();
	rule_add(QOS_M_PROTO, C_A)->proto = IPPROTO_UDP;
	rule_add(QOS_M_ETHERTYPE, C_B)->ethertype = ETHERTYPE_IPV4;
	build();
	assert_int_equal(cl(&m), C_B);

	/* a rule naming nothing matches everything, even non-IP */
	policy_reset();
	rule_add(0, C_A);
	rule_add(QOS_M_ETHERTYPE, C_B)->ethertype = ETHERTYPE_IPV4;
	build();
	assert_int_equal(cl(&m), C_A);
	m = meta_l2(ETHERTYPE_ARP);
	assert_int_equal(cl(&m), C_A);
}

static void test_default_class(void **state)
{
	struct pkt_meta m = meta_v4("10.0.0.1", "10.0.0.2", IPPROTO_UDP, 1, 2);

	/* no rules */
	policy_reset();
	pol.default_class = C_B;
	build();
	assert_int_equal(cl(&m), C_B);

	/* rules, none matching */
	rule_add(QOS_M_PROTO, C_A)->proto = IPPROTO_TCP;
	rule_add(QOS_M_ETHERTYPE, C_A)->ethertype = ETHERTYPE_IPV6;
	build();
	assert_int_equal(cl(&m), C_B);
	m = meta_l2(ETHERTYPE_ARP);
	assert_int_equal(cl(&m), C_B);
}

static void test_ethertype(void **state)
{
	struct pkt_meta v4 = meta_v4("1.1.1.1", "2.2.2.2", IPPROTO_TCP, 1, 2);
	struct pkt_meta v6 = meta_v6("::1", "::2", IPPROTO_TCP, 1, 2);
	struct pkt_meta arp = meta_l2(ETHERTYPE_ARP);

	policy_reset();
	rule_add(QOS_M_ETHERTYPE, C_A)->ethertype = ETHERTYPE_ARP;
	build();
	assert_int_equal(cl(&arp), C_A);
	assert_int_equal(cl(&v4), C_DEFAULT);
	assert_int_equal(cl(&v6), C_DEFAULT);

	/* the innermost ethertype, tagged or not */
	meta_vlan(&arp, 5, 0);
	assert_int_equal(cl(&arp), C_A);
}

static void test_vlan(void **state)
{
	struct pkt_meta m = meta_v4("1.1.1.1", "2.2.2.2", IPPROTO_TCP, 1, 2);

	policy_reset();
	rule_add(QOS_M_VLAN, C_A)->vlan_id = 100;
	rule_add(QOS_M_VLAN, C_B)->vlan_id = 0; /* priority-tagged */
	build();
	assert_int_equal(cl(&m), C_DEFAULT); /* untagged: no VLAN rule */
	meta_vlan(&m, 100, 0);
	assert_int_equal(cl(&m), C_A);
	m.vlan_id = 101;
	assert_int_equal(cl(&m), C_DEFAULT);
	m.vlan_id = 0;
	assert_int_equal(cl(&m), C_B);
	m.vlan_id = 4095;
	assert_int_equal(cl(&m), C_DEFAULT);
}

static void test_pcp(void **state)
{
	struct pkt_meta m = meta_l2(ETHERTYPE_ARP);

	policy_reset();
	rule_add(QOS_M_PCP, C_A)->pcp_mask = 1u << 3 | 1u << 6;
	rule_add(QOS_M_PCP, C_B)->pcp_mask = 1u << 0 | 1u << 7;
	build();
	assert_int_equal(cl(&m), C_DEFAULT); /* untagged: not PCP 0 */
	meta_vlan(&m, 9, 3);
	assert_int_equal(cl(&m), C_A);
	m.pcp = 6;
	assert_int_equal(cl(&m), C_A);
	m.pcp = 0;
	assert_int_equal(cl(&m), C_B);
	m.pcp = 7;
	assert_int_equal(cl(&m), C_B);
	m.pcp = 5;
	assert_int_equal(cl(&m), C_DEFAULT);
}

static void test_proto(void **state)
{
	struct pkt_meta udp = meta_v4("1.1.1.1", "2.2.2.2", IPPROTO_UDP, 1, 2);
	struct pkt_meta tcp = meta_v6("::1", "::2", IPPROTO_TCP, 1, 2);
	struct pkt_meta arp = meta_l2(ETHERTYPE_ARP);
	struct pkt_meta icmp =
		meta_v4("1.1.1.1", "2.2.2.2", IPPROTO_ICMP, 0, 0);

	policy_reset();
	rule_add(QOS_M_PROTO, C_A)->proto = IPPROTO_UDP;
	rule_add(QOS_M_PROTO, C_B)->proto = 0; /* IPv6 hop-by-hop value */
	build();
	assert_int_equal(cl(&udp), C_A);
	assert_int_equal(cl(&tcp), C_DEFAULT);
	assert_int_equal(cl(&arp), C_DEFAULT); /* not IP: no proto 0 */
	/* ICMP (0x01) differs from UDP (0x11) in one bit only */
	assert_int_equal(cl(&icmp), C_DEFAULT);
	icmp.proto = 0;
	assert_int_equal(cl(&icmp), C_B);
}

static void test_dscp_ecn(void **state)
{
	struct pkt_meta m = meta_v4("1.1.1.1", "2.2.2.2", IPPROTO_UDP, 1, 2);
	struct pkt_meta arp = meta_l2(ETHERTYPE_ARP);

	policy_reset();
	rule_add(QOS_M_DSCP, C_A)->dscp_mask = 1ull << 26 | 1ull << 63;
	rule_add(QOS_M_ECN, C_B)->ecn_mask = 1u << 3; /* CE */
	rule_add(QOS_M_ECN, C_CNP)->ecn_mask = 1u << 0; /* Not-ECT */
	build();
	m.dscp = 26;
	assert_int_equal(cl(&m), C_A);
	m.dscp = 63;
	assert_int_equal(cl(&m), C_A);
	m.dscp = 27;
	m.ecn = 3;
	assert_int_equal(cl(&m), C_B);
	m.ecn = 2;
	assert_int_equal(cl(&m), C_DEFAULT);
	m.ecn = 0;
	assert_int_equal(cl(&m), C_CNP);
	/* non-IP has no DSCP 0 / Not-ECT */
	assert_int_equal(cl(&arp), C_DEFAULT);
}

static void test_v4_prefixes(void **state)
{
	struct pkt_meta m =
		meta_v4("10.1.2.3", "192.168.1.1", IPPROTO_TCP, 1, 2);
	struct pkt_meta v6 =
		meta_v6("a01:203::", "c0a8:101::", IPPROTO_TCP, 1, 2);
	struct pkt_meta arp = meta_l2(ETHERTYPE_ARP);

	/* /32: exact */
	policy_reset();
	pfx4(&rule_add(QOS_M_SRC, C_A)->src, "10.1.2.3", 32);
	build();
	assert_int_equal(cl(&m), C_A);
	assert_int_equal(inet_pton(AF_INET, "10.1.2.2", m.src), 1);
	assert_int_equal(cl(&m), C_DEFAULT);
	/* the same leading bytes in an IPv6 address: other family */
	assert_int_equal(cl(&v6), C_DEFAULT);

	/* /24 */
	policy_reset();
	pfx4(&rule_add(QOS_M_SRC, C_A)->src, "10.1.2.0", 24);
	build();
	assert_int_equal(inet_pton(AF_INET, "10.1.2.255", m.src), 1);
	assert_int_equal(cl(&m), C_A);
	assert_int_equal(inet_pton(AF_INET, "10.1.3.0", m.src), 1);
	assert_int_equal(cl(&m), C_DEFAULT);
	assert_int_equal(inet_pton(AF_INET, "10.1.1.255", m.src), 1);
	assert_int_equal(cl(&m), C_DEFAULT);

	/* host bits set in the rule are ignored */
	policy_reset();
	pfx4(&rule_add(QOS_M_SRC, C_A)->src, "10.1.2.99", 24);
	build();
	assert_int_equal(inet_pton(AF_INET, "10.1.2.5", m.src), 1);
	assert_int_equal(cl(&m), C_A);

	/* /0: any IPv4, nothing else */
	policy_reset();
	pfx4(&rule_add(QOS_M_DST, C_A)->dst, "0.0.0.0", 0);
	build();
	assert_int_equal(cl(&m), C_A);
	assert_int_equal(cl(&v6), C_DEFAULT);
	assert_int_equal(cl(&arp), C_DEFAULT);

	/* /1 and /31 near the edges of the mask */
	policy_reset();
	pfx4(&rule_add(QOS_M_DST, C_A)->dst, "128.0.0.0", 1);
	pfx4(&rule_add(QOS_M_DST, C_B)->dst, "1.2.3.4", 31);
	build();
	assert_int_equal(cl(&m), C_A); /* 192.168.1.1 */
	assert_int_equal(inet_pton(AF_INET, "127.255.255.255", m.dst), 1);
	assert_int_equal(cl(&m), C_DEFAULT);
	assert_int_equal(inet_pton(AF_INET, "1.2.3.5", m.dst), 1);
	assert_int_equal(cl(&m), C_B);
	assert_int_equal(inet_pton(AF_INET, "1.2.3.6", m.dst), 1);
	assert_int_equal(cl(&m), C_DEFAULT);

	/* src and dst together: both must match */
	policy_reset();
	{
		struct qos_rule *r = rule_add(QOS_M_SRC | QOS_M_DST, C_A);

		pfx4(&r->src, "10.0.0.0", 8);
		pfx4(&r->dst, "192.168.0.0", 16);
	}
	build();
	m = meta_v4("10.9.9.9", "192.168.5.5", IPPROTO_TCP, 1, 2);
	assert_int_equal(cl(&m), C_A);
	m = meta_v4("10.9.9.9", "192.169.5.5", IPPROTO_TCP, 1, 2);
	assert_int_equal(cl(&m), C_DEFAULT);
	m = meta_v4("11.9.9.9", "192.168.5.5", IPPROTO_TCP, 1, 2);
	assert_int_equal(cl(&m), C_DEFAULT);
	/* swapped: the direction matters */
	m = meta_v4("192.168.5.5", "10.9.9.9", IPPROTO_TCP, 1, 2);
	assert_int_equal(cl(&m), C_DEFAULT);
}

static void test_v6_prefixes(void **state)
{
	struct pkt_meta m =
		meta_v6("2001:db8:1:2:3:4:5:6", "::1", IPPROTO_UDP, 1, 2);
	struct pkt_meta v4 =
		meta_v4("32.1.13.184", "0.0.0.0", IPPROTO_UDP, 1, 2);

	/* /128 */
	policy_reset();
	pfx6(&rule_add(QOS_M_SRC, C_A)->src, "2001:db8:1:2:3:4:5:6", 128);
	build();
	assert_int_equal(cl(&m), C_A);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8:1:2:3:4:5:7", m.src), 1);
	assert_int_equal(cl(&m), C_DEFAULT);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8:1:2:3:4:5:6", m.src), 1);

	/* /64: the first word only */
	policy_reset();
	pfx6(&rule_add(QOS_M_SRC, C_A)->src, "2001:db8:1:2::", 64);
	build();
	assert_int_equal(cl(&m), C_A);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8:1:2:ffff::", m.src), 1);
	assert_int_equal(cl(&m), C_A);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8:1:3::", m.src), 1);
	assert_int_equal(cl(&m), C_DEFAULT);
	/* an IPv4 packet whose first 4 bytes equal the prefix's */
	assert_int_equal(cl(&v4), C_DEFAULT);

	/* /65 and /63 around the word boundary */
	policy_reset();
	pfx6(&rule_add(QOS_M_DST, C_A)->dst, "2001:db8::8000:0:0:0", 65);
	pfx6(&rule_add(QOS_M_DST, C_B)->dst, "2001:db8::", 63);
	build();
	m = meta_v6("::1", "2001:db8::8000:0:0:1", IPPROTO_UDP, 1, 2);
	assert_int_equal(cl(&m), C_A);
	m = meta_v6("::1", "2001:db8::7fff:0:0:1", IPPROTO_UDP, 1, 2);
	assert_int_equal(cl(&m), C_B);
	m = meta_v6("::1", "2001:db8:0:1::1", IPPROTO_UDP, 1, 2);
	assert_int_equal(cl(&m), C_B); /* bit 63 is a host bit of the /63 */
	m = meta_v6("::1", "2001:db8:0:2::1", IPPROTO_UDP, 1, 2);
	assert_int_equal(cl(&m), C_DEFAULT);

	/* /0: any IPv6, not IPv4 */
	policy_reset();
	pfx6(&rule_add(QOS_M_DST, C_A)->dst, "::", 0);
	build();
	assert_int_equal(cl(&m), C_A);
	assert_int_equal(cl(&v4), C_DEFAULT);

	/* a v4 source and a v6 destination can never match together */
	policy_reset();
	{
		struct qos_rule *r = rule_add(QOS_M_SRC | QOS_M_DST, C_A);

		pfx4(&r->src, "0.0.0.0", 0);
		pfx6(&r->dst, "::", 0);
	}
	build();
	assert_int_equal(cl(&m), C_DEFAULT);
	assert_int_equal(cl(&v4), C_DEFAULT);
}

static void test_port_ranges(void **state)
{
	static const struct {
		uint16_t port;
		uint8_t want;
	} sp[] = {
		{999, C_DEFAULT}, {1000, C_A},	     {1500, C_A},
		{2000, C_A},	  {2001, C_DEFAULT}, {0, C_B},
		{1, C_DEFAULT},	  {65535, C_CNP},    {65534, C_DEFAULT},
	};
	struct pkt_meta m;
	struct qos_rule *r;

	policy_reset();
	r = rule_add(QOS_M_SPORT, C_A);
	r->sport_lo = 1000;
	r->sport_hi = 2000;
	r = rule_add(QOS_M_SPORT, C_B); /* [0, 0] */
	r = rule_add(QOS_M_SPORT, C_CNP);
	r->sport_lo = r->sport_hi = 65535;
	build();
	for (size_t i = 0; i < sizeof(sp) / sizeof(sp[0]); i++) {
		m = meta_v4("1.1.1.1", "2.2.2.2", IPPROTO_TCP, sp[i].port,
			    1500);
		if (cl(&m) != sp[i].want)
			fail_msg("sport %u: class %u, want %u", sp[i].port,
				 cl(&m), sp[i].want);
	}

	/* dport, same edges, over UDP/IPv6 */
	policy_reset();
	r = rule_add(QOS_M_DPORT, C_A);
	r->dport_lo = 1000;
	r->dport_hi = 2000;
	r = rule_add(QOS_M_DPORT, C_B);
	r = rule_add(QOS_M_DPORT, C_CNP);
	r->dport_lo = r->dport_hi = 65535;
	build();
	for (size_t i = 0; i < sizeof(sp) / sizeof(sp[0]); i++) {
		m = meta_v6("::1", "::2", IPPROTO_UDP, 1500, sp[i].port);
		if (cl(&m) != sp[i].want)
			fail_msg("dport %u: class %u, want %u", sp[i].port,
				 cl(&m), sp[i].want);
	}

	/* the full range still needs ports: not ICMP, not a fragment */
	policy_reset();
	r = rule_add(QOS_M_DPORT, C_A);
	r->dport_lo = 0;
	r->dport_hi = 65535;
	build();
	m = meta_v4("1.1.1.1", "2.2.2.2", IPPROTO_ICMP, 0, 0);
	assert_int_equal(cl(&m), C_DEFAULT);
	m = meta_v4("1.1.1.1", "2.2.2.2", IPPROTO_UDP, 0, 0);
	assert_int_equal(cl(&m), C_A);
}

static void test_bth_opcode(void **state)
{
	struct pkt_meta cnp =
		meta_v4("1.1.1.1", "2.2.2.2", IPPROTO_UDP, 9, ROCEV2_UDP_PORT);
	struct pkt_meta data = cnp;
	struct pkt_meta plain =
		meta_v4("1.1.1.1", "2.2.2.2", IPPROTO_UDP, 9, 53);

	meta_bth(&cnp, BTH_OPCODE_CNP, 7);
	meta_bth(&data, 0x00, 7); /* RC SEND FIRST: opcode 0 */
	policy_reset();
	rule_add(QOS_M_BTH_OPCODE, C_CNP)->bth_opcode = BTH_OPCODE_CNP;
	rule_add(QOS_M_BTH_OPCODE, C_ROCE)->bth_opcode = 0x00;
	build();
	assert_int_equal(cl(&cnp), C_CNP);
	assert_int_equal(cl(&data), C_ROCE);
	/* opcode 0 needs a BTH */
	assert_int_equal(cl(&plain), C_DEFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_match_wins),
		cmocka_unit_test(test_default_class),
		cmocka_unit_test(test_ethertype),
		cmocka_unit_test(test_vlan),
		cmocka_unit_test(test_pcp),
		cmocka_unit_test(test_proto),
		cmocka_unit_test(test_dscp_ecn),
		cmocka_unit_test(test_v4_prefixes),
		cmocka_unit_test(test_v6_prefixes),
		cmocka_unit_test(test_port_ranges),
		cmocka_unit_test(test_bth_opcode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

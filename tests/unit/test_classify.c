// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_classify.c - classifier_build() and classify(): first match wins,
 * every field alone and in combination, prefix lengths, port range edges,
 * the default class, policy validation, the CNP-before-RoCE policy on
 * parsed frames, rules decided by the tables alone ("exact") and those
 * checked per candidate, and randomized comparisons against a naive
 * reference matcher written straight from the semantics in classify.h
 * (one with small values, one with ports over all 16 bits).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "classify.h"
#include "pkt_parse.h"
#include "ref_classify.h"

enum { C_DEFAULT = 0, C_A = 1, C_B = 2, C_CNP = 3, C_ROCE = 4 };

static struct qos_policy pol;
static struct classifier cls;

static void policy_reset(void)
{
	memset(&pol, 0, sizeof(pol));
	pol.n_classes = 5;
	pol.default_class = C_DEFAULT;
}

static struct qos_rule *rule_add(uint32_t fields, uint8_t class_id)
{
	struct qos_rule *r;

	assert_true(pol.n_rules < QOS_MAX_RULES);
	r = &pol.rules[pol.n_rules++];
	memset(r, 0, sizeof(*r));
	r->fields = fields;
	r->class_id = class_id;
	return r;
}

static void build(void)
{
	assert_int_equal(classifier_build(&cls, &pol), 0);
}

static void pfx4(struct qos_prefix *p, const char *addr, uint8_t len)
{
	memset(p, 0, sizeof(*p));
	p->family = 4;
	p->len = len;
	assert_int_equal(inet_pton(AF_INET, addr, p->addr), 1);
}

static void pfx6(struct qos_prefix *p, const char *addr, uint8_t len)
{
	memset(p, 0, sizeof(*p));
	p->family = 6;
	p->len = len;
	assert_int_equal(inet_pton(AF_INET6, addr, p->addr), 1);
}

/* Metas as pkt_parse() fills them. */
static struct pkt_meta meta_l2(uint16_t et)
{
	struct pkt_meta m = {.ethertype = et, .l3_off = 14};

	return m;
}

static void meta_vlan(struct pkt_meta *m, uint16_t vid, uint8_t pcp)
{
	m->flags |= PKT_F_VLAN;
	m->n_vlan = 1;
	m->vlan_id = vid;
	m->pcp = pcp;
}

static void meta_l4(struct pkt_meta *m, uint8_t proto, uint16_t sport,
		    uint16_t dport)
{
	m->proto = proto;
	m->l4_off = m->l3 == PKT_L3_IPV4 ? 34 : 54;
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP) {
		m->flags |= PKT_F_PORTS;
		m->sport = sport;
		m->dport = dport;
	}
}

static struct pkt_meta meta_v4(const char *src, const char *dst, uint8_t proto,
			       uint16_t sport, uint16_t dport)
{
	struct pkt_meta m = meta_l2(ETHERTYPE_IPV4);

	m.l3 = PKT_L3_IPV4;
	m.flags = PKT_F_IP | PKT_F_IPV4;
	assert_int_equal(inet_pton(AF_INET, src, m.src), 1);
	assert_int_equal(inet_pton(AF_INET, dst, m.dst), 1);
	meta_l4(&m, proto, sport, dport);
	return m;
}

static struct pkt_meta meta_v6(const char *src, const char *dst, uint8_t proto,
			       uint16_t sport, uint16_t dport)
{
	struct pkt_meta m = meta_l2(ETHERTYPE_IPV6);

	m.l3 = PKT_L3_IPV6;
	m.flags = PKT_F_IP | PKT_F_IPV6;
	assert_int_equal(inet_pton(AF_INET6, src, m.src), 1);
	assert_int_equal(inet_pton(AF_INET6, dst, m.dst), 1);
	meta_l4(&m, proto, sport, dport);
	return m;
}

static void meta_bth(struct pkt_meta *m, uint8_t opcode, uint32_t qpn)
{
	m->flags |= PKT_F_BTH;
	m->bth_opcode = opcode;
	m->bth_dqpn = qpn;
}

static uint8_t cl(const struct pkt_meta *m)
{
	return classify(&cls, m);
}

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

static void test_combination(void **state)
{
	struct pkt_meta m;
	struct qos_rule *r;

	policy_reset();
	r = rule_add(QOS_M_DST | QOS_M_PROTO | QOS_M_DPORT | QOS_M_DSCP |
			     QOS_M_PCP | QOS_M_VLAN | QOS_M_ECN,
		     C_A);
	pfx4(&r->dst, "10.0.0.0", 8);
	r->proto = IPPROTO_UDP;
	r->dport_lo = r->dport_hi = ROCEV2_UDP_PORT;
	r->dscp_mask = 1ull << 26;
	r->pcp_mask = 1u << 3;
	r->vlan_id = 30;
	r->ecn_mask = 1u << 1 | 1u << 2;
	build();

	m = meta_v4("192.0.2.1", "10.2.3.4", IPPROTO_UDP, 1, ROCEV2_UDP_PORT);
	meta_vlan(&m, 30, 3);
	m.dscp = 26;
	m.ecn = 2;
	meta_bth(&m, 0x04, 1);
	assert_int_equal(cl(&m), C_A);

	/* each field off by one, alone */
	{
		struct pkt_meta x;

		x = m;
		x.dst[0] = 11;
		assert_int_equal(cl(&x), C_DEFAULT);
		x = m;
		x.proto = IPPROTO_TCP;
		assert_int_equal(cl(&x), C_DEFAULT);
		x = m;
		x.dport = ROCEV2_UDP_PORT + 1;
		assert_int_equal(cl(&x), C_DEFAULT);
		x = m;
		x.dscp = 25;
		assert_int_equal(cl(&x), C_DEFAULT);
		x = m;
		x.pcp = 4;
		assert_int_equal(cl(&x), C_DEFAULT);
		x = m;
		x.vlan_id = 31;
		assert_int_equal(cl(&x), C_DEFAULT);
		x = m;
		x.ecn = 3;
		assert_int_equal(cl(&x), C_DEFAULT);
		x = m;
		x.flags &= (uint8_t)~PKT_F_VLAN;
		assert_int_equal(cl(&x), C_DEFAULT);
		/* fields the rule does not name do not matter */
		x = m;
		x.sport = 12345;
		x.src[0] = 1;
		x.bth_opcode = 0x81;
		assert_int_equal(cl(&x), C_A);
	}
}

static void test_build_rejects(void **state)
{
	struct qos_rule *r;

	policy_reset();
	pol.n_rules = QOS_MAX_RULES + 1;
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);
	assert_int_equal(cls.err_rule, -1);

	policy_reset();
	pol.n_classes = 0;
	pol.default_class = 0;
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);

	policy_reset();
	pol.n_classes = QOS_MAX_CLASSES + 1;
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);

	policy_reset();
	pol.default_class = 5; /* n_classes 5 */
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);

	policy_reset();
	rule_add(0, C_A);
	rule_add(0, 5);
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);
	assert_int_equal(cls.err_rule, 1);

	policy_reset();
	rule_add(1u << 11, C_A);
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);
	assert_int_equal(cls.err_rule, 0);

	policy_reset();
	rule_add(QOS_M_VLAN, C_A)->vlan_id = 4096;
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);

	policy_reset();
	r = rule_add(QOS_M_SRC, C_A);
	pfx4(&r->src, "1.2.3.4", 32);
	r->src.len = 33;
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);

	policy_reset();
	r = rule_add(QOS_M_DST, C_A);
	pfx6(&r->dst, "::", 128);
	assert_int_equal(classifier_build(&cls, &pol), 0);
	r->dst.len = 129;
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);

	policy_reset();
	r = rule_add(QOS_M_DST, C_A);
	r->dst.family = 5;
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);
	/* ...but a prefix the rule does not name is not looked at */
	r->fields = 0;
	assert_int_equal(classifier_build(&cls, &pol), 0);

	policy_reset();
	r = rule_add(QOS_M_SPORT, C_A);
	r->sport_lo = 10;
	r->sport_hi = 9;
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);

	policy_reset();
	r = rule_add(QOS_M_DPORT, C_A);
	r->dport_lo = 10;
	r->dport_hi = 9;
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);

	policy_reset();
	rule_add(QOS_M_ECN, C_A)->ecn_mask = 0x10;
	assert_int_equal(classifier_build(&cls, &pol), -EINVAL);

	/* a failed build leaves nothing to match */
	assert_int_equal(cls.n_rules, 0);
}

static void test_malformed_policy(void **state)
{
	policy_reset();
	build();
	assert_false(classifier_drops_malformed(&cls));
	pol.malformed = QOS_MALFORMED_DROP;
	build();
	assert_true(classifier_drops_malformed(&cls));
}

/* CNP (UDP 4791, opcode 0x81) -> "cnp" ahead of "roce" (all UDP 4791), on
 * frames through the parser. */
static uint32_t roce_frame(uint8_t *b, uint16_t dport, uint8_t opcode)
{
	static const uint8_t hdr[] = {
		/* Ethernet, 802.1Q PCP 3 VID 10 */
		0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x81, 0x00, 0x60,
		0x0a, 0x08, 0x00,
		/* IPv4, DSCP 26 ECT(0), total length 60, UDP */
		0x45, 0x6a, 0x00, 0x3c, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0,
		1, 10, 0, 0, 2,
		/* UDP 0xc001 -> dport */
		0xc0, 0x01, 0, 0, 0x00, 0x28, 0, 0,
		/* BTH: opcode, pkey ffff, dqpn 0x000abc */
		0, 0, 0xff, 0xff, 0, 0x00, 0x0a, 0xbc, 0, 0, 0, 0,
		/* 16 bytes + ICRC */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4};

	memcpy(b, hdr, sizeof(hdr));
	b[18 + 20 + 2] = dport >> 8;
	b[18 + 20 + 3] = dport & 0xff;
	b[18 + 28] = opcode;
	return sizeof(hdr);
}

static void test_cnp_before_roce(void **state)
{
	uint8_t b[128];
	struct pkt_meta m;
	struct qos_rule *r;
	uint32_t n;

	policy_reset();
	r = rule_add(QOS_M_PROTO | QOS_M_DPORT | QOS_M_BTH_OPCODE, C_CNP);
	r->proto = IPPROTO_UDP;
	r->dport_lo = r->dport_hi = ROCEV2_UDP_PORT;
	r->bth_opcode = BTH_OPCODE_CNP;
	r = rule_add(QOS_M_PROTO | QOS_M_DPORT, C_ROCE);
	r->proto = IPPROTO_UDP;
	r->dport_lo = r->dport_hi = ROCEV2_UDP_PORT;
	build();

	n = roce_frame(b, ROCEV2_UDP_PORT, BTH_OPCODE_CNP);
	assert_int_equal(pkt_parse(b, n, &m), PKT_OK);
	assert_int_equal(m.bth_dqpn, 0xabc);
	assert_int_equal(cl(&m), C_CNP);

	n = roce_frame(b, ROCEV2_UDP_PORT, 0x0a); /* RDMA WRITE ONLY */
	assert_int_equal(pkt_parse(b, n, &m), PKT_OK);
	assert_int_equal(cl(&m), C_ROCE);

	n = roce_frame(b, ROCEV2_UDP_PORT, 0x80); /* IB CNP, not RoCEv2's */
	assert_int_equal(pkt_parse(b, n, &m), PKT_OK);
	assert_int_equal(cl(&m), C_ROCE);

	n = roce_frame(b, 4790, BTH_OPCODE_CNP); /* not RoCEv2: no BTH */
	assert_int_equal(pkt_parse(b, n, &m), PKT_OK);
	assert_int_equal(cl(&m), C_DEFAULT);

	/* the other order: roce catches the CNPs too */
	policy_reset();
	r = rule_add(QOS_M_PROTO | QOS_M_DPORT, C_ROCE);
	r->proto = IPPROTO_UDP;
	r->dport_lo = r->dport_hi = ROCEV2_UDP_PORT;
	r = rule_add(QOS_M_BTH_OPCODE, C_CNP);
	r->bth_opcode = BTH_OPCODE_CNP;
	build();
	n = roce_frame(b, ROCEV2_UDP_PORT, BTH_OPCODE_CNP);
	assert_int_equal(pkt_parse(b, n, &m), PKT_OK);
	assert_int_equal(cl(&m), C_ROCE);
}

/* ---- randomized comparison with a naive matcher ---- */

static uint32_t rng_state = 12345;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/* Small value spaces so that rules and metas collide often. */
static void rnd_addr(uint8_t a[16], int v6)
{
	memset(a, 0, 16);
	for (int i = 0; i < (v6 ? 16 : 4); i++)
		a[i] = (uint8_t)(rnd() % 3 == 0 ? rnd() : (i & 1) * 0x80);
}

static void rnd_meta(struct pkt_meta *m)
{
	uint32_t k = rnd() % 4;

	memset(m, 0, sizeof(*m));
	m->ethertype = k == 0	? ETHERTYPE_ARP
		       : k == 1 ? ETHERTYPE_IPV6
				: ETHERTYPE_IPV4;
	if (rnd() & 1) {
		m->flags |= PKT_F_VLAN;
		m->n_vlan = 1;
		m->vlan_id = rnd() % 4;
		m->pcp = rnd() % 8;
	}
	if (k == 0)
		return;
	m->l3 = k == 1 ? PKT_L3_IPV6 : PKT_L3_IPV4;
	m->flags |= PKT_F_IP | (k == 1 ? PKT_F_IPV6 : PKT_F_IPV4);
	rnd_addr(m->src, k == 1);
	rnd_addr(m->dst, k == 1);
	m->dscp = rnd() % 64;
	m->ecn = rnd() % 4;
	m->proto = rnd() % 3 ? IPPROTO_UDP : IPPROTO_TCP;
	if (rnd() % 8 == 0) { /* no ports: ICMP, or UDP/TCP's bits flipped */
		m->proto =
			rnd() % 2 ? IPPROTO_ICMP : (uint8_t)(m->proto ^ 0x80);
		return;
	}
	if (rnd() % 5 == 0) {
		m->flags |= PKT_F_FRAG;
		return;
	}
	m->flags |= PKT_F_PORTS;
	m->sport = rnd() % 8 == 0 ? 0xffff : rnd() % 8;
	m->dport = rnd() % 2 ? ROCEV2_UDP_PORT : rnd() % 8;
	if (m->proto == IPPROTO_UDP && m->dport == ROCEV2_UDP_PORT) {
		m->flags |= PKT_F_BTH;
		m->bth_opcode = rnd() % 2 ? BTH_OPCODE_CNP : rnd() % 4;
	}
}

static void rnd_prefix(struct qos_prefix *p)
{
	p->family = rnd() % 2 ? 4 : 6;
	rnd_addr(p->addr, p->family == 6);
	p->len = rnd() % (p->family == 4 ? 33 : 129);
}

static void rnd_rule(struct qos_rule *r)
{
	memset(r, 0, sizeof(*r));
	/* each field with probability 1/4 */
	for (int b = 0; b < 11; b++)
		if (rnd() % 4 == 0)
			r->fields |= 1u << b;
	r->ethertype = rnd() % 2 ? ETHERTYPE_IPV4 : ETHERTYPE_ARP;
	r->vlan_id = rnd() % 4;
	r->pcp_mask = (uint8_t)rnd();
	r->proto = rnd() % 2 ? IPPROTO_UDP : IPPROTO_TCP;
	r->ecn_mask = rnd() % 16;
	r->bth_opcode = rnd() % 2 ? BTH_OPCODE_CNP : rnd() % 4;
	r->dscp_mask = (uint64_t)rnd() << 32 | rnd();
	rnd_prefix(&r->src);
	rnd_prefix(&r->dst);
	r->sport_lo = rnd() % 8;
	r->sport_hi = r->sport_lo + rnd() % 4;
	r->dport_lo = rnd() % 2 ? ROCEV2_UDP_PORT : rnd() % 8;
	r->dport_hi = r->dport_lo + rnd() % 2;
	r->class_id = rnd() % 5;
}

static void test_against_reference(void **state)
{
	struct pkt_meta m;
	uint32_t hits = 0, misses = 0;

	for (int round = 0; round < 200; round++) {
		policy_reset();
		pol.default_class = rnd() % 5;
		pol.n_rules = 1 + rnd() % 8;
		for (uint32_t i = 0; i < pol.n_rules; i++)
			rnd_rule(&pol.rules[i]);
		build();
		for (int k = 0; k < 500; k++) {
			uint8_t want = pol.default_class;
			uint32_t i;

			rnd_meta(&m);
			for (i = 0; i < pol.n_rules; i++)
				if (ref_match(&pol.rules[i], &m))
					break;
			if (i < pol.n_rules) {
				want = pol.rules[i].class_id;
				hits++;
			} else {
				misses++;
			}
			if (cl(&m) != want)
				fail_msg("round %d meta %d: class %u, want %u",
					 round, k, cl(&m), want);
		}
	}
	/* the test is only worth something if both outcomes happen */
	assert_true(hits > 1000);
	assert_true(misses > 1000);
}

/* Ports through both bytes: a range inside one high byte, of whole high
 * bytes, or a single port is decided by the port tables alone ("exact");
 * a range across a high-byte boundary (or one with a prefix) is checked
 * per candidate: ports whose low and high bytes each occur in the range
 * but that lie outside it do not match. */
static void test_port_bytes(void **state)
{
	static const struct {
		uint16_t port;
		uint8_t want;
	} dp[] = {
		{0x00ef, C_DEFAULT}, {0x00f0, C_A},	  {0x0100, C_A},
		{0x0110, C_A},	     {0x0111, C_DEFAULT}, {0x0010, C_DEFAULT},
		{0x01f0, C_DEFAULT}, {0x0200, C_B},	  {0x03ff, C_B},
		{0x0400, C_DEFAULT}, {0x1234, C_CNP},	  {0x1334, C_DEFAULT},
		{0x1235, C_DEFAULT}, {0x2010, C_ROCE},	  {0x2011, C_DEFAULT},
		{0x200f, C_DEFAULT},
	};
	struct pkt_meta m;
	struct qos_rule *r;

	policy_reset();
	r = rule_add(QOS_M_DPORT, C_A); /* across 0x00/0x01: checked */
	r->dport_lo = 0x00f0;
	r->dport_hi = 0x0110;
	r = rule_add(QOS_M_DPORT, C_B); /* whole high bytes 2, 3: exact */
	r->dport_lo = 0x0200;
	r->dport_hi = 0x03ff;
	r = rule_add(QOS_M_DPORT, C_CNP); /* one port: exact */
	r->dport_lo = r->dport_hi = 0x1234;
	r = rule_add(QOS_M_DPORT | QOS_M_PROTO, C_ROCE); /* inside 0x20 */
	r->proto = IPPROTO_UDP;
	r->dport_lo = 0x2010;
	r->dport_hi = 0x2010;
	build();
	assert_int_equal(cls.first[0], CLS_CHECK);
	assert_int_equal(cls.first[1], C_B);
	assert_int_equal(cls.first[2], C_CNP);
	assert_int_equal(cls.first[3], C_ROCE);
	assert_int_equal(cls.first[QOS_MAX_RULES], C_DEFAULT);
	for (size_t i = 0; i < ARRAY_SIZE(dp); i++) {
		m = meta_v4("1.1.1.1", "2.2.2.2", IPPROTO_UDP, 4000,
			    dp[i].port);
		if (cl(&m) != dp[i].want)
			fail_msg("dport %#x: class %u, want %u", dp[i].port,
				 cl(&m), dp[i].want);
	}

	/* a prefix is never exact; no port condition is */
	policy_reset();
	r = rule_add(QOS_M_SRC | QOS_M_SPORT, C_A);
	pfx4(&r->src, "10.0.0.0", 8);
	r->sport_lo = r->sport_hi = 80;
	r = rule_add(QOS_M_PROTO, C_B);
	r->proto = IPPROTO_TCP;
	build();
	assert_int_equal(cls.first[0], CLS_CHECK);
	assert_int_equal(cls.first[1], C_B);
	m = meta_v4("10.1.2.3", "2.2.2.2", IPPROTO_TCP, 80, 1);
	assert_int_equal(cl(&m), C_A);
	m = meta_v4("11.1.2.3", "2.2.2.2", IPPROTO_TCP, 80, 1);
	assert_int_equal(cl(&m), C_B); /* checked, fails, next candidate */
	m = meta_v4("10.1.2.3", "2.2.2.2", IPPROTO_UDP, 80, 1);
	assert_int_equal(cl(&m), C_A); /* rule 0 names no protocol */
	m = meta_v4("11.1.2.3", "2.2.2.2", IPPROTO_UDP, 80, 1);
	assert_int_equal(cl(&m), C_DEFAULT);
}

/* Ports near the high-byte boundaries, for rules and frames. */
static uint16_t rnd_port(void)
{
	static const uint16_t edge[] = {0,	0xff,	0x100, 0x1ff,  0x200,
					0x2ff,	4791,	2049,  0xff00, 0xffff,
					0x0180, 0x12f0, 0x1300};

	switch (rnd() % 3) {
	case 0:
		return (uint16_t)rnd();
	case 1:
		return (uint16_t)(edge[rnd() % ARRAY_SIZE(edge)] + rnd() % 5 -
				  2);
	default:
		return edge[rnd() % ARRAY_SIZE(edge)];
	}
}

static void rnd_range(uint16_t *lo, uint16_t *hi)
{
	uint16_t a = rnd_port(), b;

	switch (rnd() % 5) {
	case 0:
		b = a;
		break;
	case 1:
		b = (uint16_t)(a + rnd() % 300);
		break;
	case 2: /* whole high bytes */
		a &= 0xff00;
		b = (uint16_t)(a + 0xff + 0x100 * (rnd() % 3));
		break;
	case 3:
		b = (uint16_t)(a + rnd() % 5);
		break;
	default:
		b = rnd_port();
	}
	*lo = MIN(a, b);
	*hi = MAX(a, b);
}

/* The reference comparison again, with port ranges and ports over the
 * whole 16 bits (exact and checked rules mixed, up to 64 rules). */
static void test_against_reference_ports(void **state)
{
	struct pkt_meta m;
	uint32_t hits = 0, misses = 0;

	for (int round = 0; round < 300; round++) {
		policy_reset();
		pol.default_class = rnd() % 5;
		pol.n_rules = 1 + rnd() % QOS_MAX_RULES;
		for (uint32_t i = 0; i < pol.n_rules; i++) {
			struct qos_rule *r = &pol.rules[i];

			rnd_rule(r);
			r->fields &= ~(uint32_t)(QOS_M_SRC | QOS_M_DST);
			if (rnd() % 4 == 0) /* some rules with a prefix */
				r->fields |= QOS_M_SRC;
			if (rnd() % 2)
				r->fields |= QOS_M_DPORT;
			rnd_range(&r->sport_lo, &r->sport_hi);
			rnd_range(&r->dport_lo, &r->dport_hi);
		}
		build();
		for (int k = 0; k < 500; k++) {
			uint8_t want = pol.default_class;
			uint32_t i;

			rnd_meta(&m);
			if (m.flags & PKT_F_PORTS) {
				m.sport = rnd_port();
				m.dport = rnd_port();
			}
			for (i = 0; i < pol.n_rules; i++)
				if (ref_match(&pol.rules[i], &m))
					break;
			if (i < pol.n_rules) {
				want = pol.rules[i].class_id;
				hits++;
			} else {
				misses++;
			}
			if (cl(&m) != want)
				fail_msg("round %d meta %d: class %u, want %u",
					 round, k, cl(&m), want);
		}
	}
	assert_true(hits > 1000);
	assert_true(misses > 1000);
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
		cmocka_unit_test(test_combination),
		cmocka_unit_test(test_build_rejects),
		cmocka_unit_test(test_malformed_policy),
		cmocka_unit_test(test_cnp_before_roce),
		cmocka_unit_test(test_against_reference),
		cmocka_unit_test(test_port_bytes),
		cmocka_unit_test(test_against_reference_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_classify_reference.c - classify() in randomized comparisons against
 * a naive reference matcher written straight from the semantics in
 * classify.h (ref_classify.h): one with small values, one with ports over
 * all 16 bits; rules decided by the tables alone ("exact") and those
 * checked per candidate.
 */
#include "test_classify.h"

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
		cmocka_unit_test(test_against_reference),
		cmocka_unit_test(test_port_bytes),
		cmocka_unit_test(test_against_reference_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

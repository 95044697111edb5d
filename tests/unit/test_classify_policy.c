// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_classify_policy.c - classifier_build() and classify() on whole
 * policies: fields in combination, policy validation (what the build
 * rejects, a malformed policy), and the CNP-before-RoCE policy on parsed
 * frames.
 */
#include "test_classify.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_combination),
		cmocka_unit_test(test_build_rejects),
		cmocka_unit_test(test_malformed_policy),
		cmocka_unit_test(test_cnp_before_roce),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

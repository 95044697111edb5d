// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_parse_classify.c - libFuzzer target: pkt_parse() then classify()
 * against a fixed policy, on every input.
 *
 * The input is copied to a heap buffer of exactly its size, so that a read
 * at or past frame + len is an ASan heap-buffer-overflow (libFuzzer's own
 * buffer would hide small over-reads). Besides memory errors, it checks:
 *   - the return value is 0 or a named malformed reason;
 *   - on success, pkt_meta is self-consistent: offsets inside the frame,
 *     ports and BTH only where their headers fit, bit-field ranges, flags
 *     agreeing with the L3 kind, IPv4 addresses zero-extended;
 *   - parsing is deterministic;
 *   - classify() agrees with a naive matcher written from the semantics
 *     in classify.h, and returns a class of the policy.
 */
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "classify.h"
#include "pkt_parse.h"
#include "ref_classify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x)                                                               \
	do {                                                                   \
		if (!(x)) {                                                    \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #x);                                 \
			abort();                                               \
		}                                                              \
	} while (0)

static struct qos_policy pol;
static struct classifier cls;

static struct qos_rule *rule(uint32_t fields, uint8_t class_id)
{
	struct qos_rule *r = &pol.rules[pol.n_rules++];

	r->fields = fields;
	r->class_id = class_id;
	return r;
}

static void setup(void)
{
	struct qos_rule *r;

	pol.n_classes = 8;
	pol.default_class = 0;
	/* CNP ahead of all RoCEv2 */
	r = rule(QOS_M_PROTO | QOS_M_DPORT | QOS_M_BTH_OPCODE, 7);
	r->proto = IPPROTO_UDP;
	r->dport_lo = r->dport_hi = ROCEV2_UDP_PORT;
	r->bth_opcode = BTH_OPCODE_CNP;
	r = rule(QOS_M_DPORT | QOS_M_DSCP, 6);
	r->dport_lo = r->dport_hi = ROCEV2_UDP_PORT;
	r->dscp_mask = 1ull << 26 | 1ull << 24;
	r = rule(QOS_M_DPORT, 5);
	r->dport_lo = r->dport_hi = ROCEV2_UDP_PORT;
	/* tagged voice-ish traffic */
	r = rule(QOS_M_VLAN | QOS_M_PCP, 4);
	r->vlan_id = 100;
	r->pcp_mask = 1u << 5 | 1u << 6;
	/* IPv6 prefix + TCP port range */
	r = rule(QOS_M_SRC | QOS_M_PROTO | QOS_M_SPORT, 3);
	r->src.family = 6;
	r->src.len = 64;
	r->src.addr[0] = 0x20;
	r->src.addr[1] = 0x01;
	r->src.addr[2] = 0x0d;
	r->src.addr[3] = 0xb8;
	r->proto = IPPROTO_TCP;
	r->sport_lo = 1000;
	r->sport_hi = 2000;
	/* IPv4 /24 destination, CE-marked */
	r = rule(QOS_M_DST | QOS_M_ECN, 2);
	r->dst.family = 4;
	r->dst.len = 24;
	r->dst.addr[0] = 10;
	r->dst.addr[1] = 1;
	r->dst.addr[2] = 2;
	r->ecn_mask = 1u << 3;
	/* ARP */
	r = rule(QOS_M_ETHERTYPE, 1);
	r->ethertype = ETHERTYPE_ARP;
	CHECK(classifier_build(&cls, &pol) == 0);
}

static uint8_t ref_classify(const struct pkt_meta *m)
{
	for (uint32_t i = 0; i < pol.n_rules; i++)
		if (ref_match(&pol.rules[i], m))
			return pol.rules[i].class_id;
	return pol.default_class;
}

static void check_meta(const struct pkt_meta *m, uint32_t len)
{
	static const uint8_t zero[12];
	uint32_t fam = m->flags & (PKT_F_IP | PKT_F_IPV4 | PKT_F_IPV6);

	CHECK(len >= ETH_HLEN_MIN);
	CHECK(m->n_vlan <= PKT_MAX_VLAN);
	CHECK(m->l3_off == ETH_HLEN_MIN + 4u * m->n_vlan);
	CHECK(m->l3_off <= len);
	CHECK(!!(m->flags & PKT_F_VLAN) == (m->n_vlan > 0));
	CHECK(!!(m->flags & PKT_F_QINQ) == (m->n_vlan == 2));
	CHECK(m->vlan_id <= 0x0fff && m->pcp <= 7);
	CHECK(m->dscp <= 63 && m->ecn <= 3);
	CHECK(m->bth_dqpn <= 0xffffff);
	CHECK(m->l4_off <= len);
	switch (m->l3) {
	case PKT_L3_NONE:
		CHECK(fam == 0);
		CHECK(m->ethertype != ETHERTYPE_IPV4 &&
		      m->ethertype != ETHERTYPE_IPV6);
		CHECK(m->l4_off == 0);
		CHECK((m->flags & (PKT_F_PORTS | PKT_F_BTH | PKT_F_FRAG)) == 0);
		break;
	case PKT_L3_IPV4:
		CHECK(fam == (PKT_F_IP | PKT_F_IPV4));
		CHECK(m->ethertype == ETHERTYPE_IPV4);
		CHECK(memcmp(m->src + 4, zero, 12) == 0);
		CHECK(memcmp(m->dst + 4, zero, 12) == 0);
		CHECK(m->l4_off == 0 || m->l4_off >= m->l3_off + 20);
		break;
	case PKT_L3_IPV6:
		CHECK(fam == (PKT_F_IP | PKT_F_IPV6));
		CHECK(m->ethertype == ETHERTYPE_IPV6);
		CHECK(m->l4_off == 0 || m->l4_off >= m->l3_off + 40);
		break;
	default:
		CHECK(0);
	}
	if (m->flags & PKT_F_PORTS) {
		CHECK(m->proto == IPPROTO_TCP || m->proto == IPPROTO_UDP);
		CHECK(m->l4_off != 0);
		CHECK(m->l4_off + (m->proto == IPPROTO_TCP ? 20u : 8u) <= len);
	} else {
		CHECK(m->sport == 0 && m->dport == 0);
	}
	if (m->flags & PKT_F_BTH) {
		CHECK(m->proto == IPPROTO_UDP);
		CHECK(m->dport == ROCEV2_UDP_PORT);
		CHECK(m->l4_off + 8u + BTH_LEN <= len);
	} else {
		CHECK(m->bth_opcode == 0 && m->bth_dqpn == 0);
	}
	if ((m->flags & PKT_F_IP) && m->l4_off == 0)
		CHECK(m->flags & PKT_F_FRAG); /* only non-first fragments */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct pkt_meta m, again;
	uint8_t *frame;
	uint32_t len;
	int rc;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (size > 65535)
		return -1;
	len = (uint32_t)size;
	frame = malloc(size ? size : 1);
	CHECK(frame != NULL);
	memcpy(frame, data, size);

	rc = pkt_parse(frame, len, &m);
	CHECK(rc >= 0 && rc < PKT_MALFORMED_MAX);
	CHECK(strcmp(pkt_malformed_name(rc), "?") != 0);
	CHECK(pkt_parse(frame, len, &again) == rc);
	CHECK(memcmp(&m, &again, sizeof(m)) == 0);
	if (rc == PKT_OK) {
		uint8_t c;

		check_meta(&m, len);
		c = classify(&cls, &m);
		CHECK(c < pol.n_classes);
		CHECK(c == ref_classify(&m));
	} else {
		CHECK(rc != PKT_MALFORMED_RUNT || len < ETH_HLEN_MIN);
	}
	free(frame);
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_classify.h - what the unit tests of classifier_build() and
 * classify() (test_classify_*.c) share: one policy and its classifier
 * (pol, cls), rules added to it, prefixes, and packet metas built by hand
 * (L2, VLAN, IPv4, IPv6, L4, BTH); cl() builds and classifies. Each test
 * file uses some of them.
 */
#ifndef XDPLANE_TEST_CLASSIFY_H
#define XDPLANE_TEST_CLASSIFY_H

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

static __attribute__((unused)) struct qos_policy pol;
static __attribute__((unused)) struct classifier cls;

static inline void policy_reset(void)
{
	memset(&pol, 0, sizeof(pol));
	pol.n_classes = 5;
	pol.default_class = C_DEFAULT;
}

static inline struct qos_rule *rule_add(uint32_t fields, uint8_t class_id)
{
	struct qos_rule *r;

	assert_true(pol.n_rules < QOS_MAX_RULES);
	r = &pol.rules[pol.n_rules++];
	memset(r, 0, sizeof(*r));
	r->fields = fields;
	r->class_id = class_id;
	return r;
}

static inline void build(void)
{
	assert_int_equal(classifier_build(&cls, &pol), 0);
}

static inline void pfx4(struct qos_prefix *p, const char *addr, uint8_t len)
{
	memset(p, 0, sizeof(*p));
	p->family = 4;
	p->len = len;
	assert_int_equal(inet_pton(AF_INET, addr, p->addr), 1);
}

static inline void pfx6(struct qos_prefix *p, const char *addr, uint8_t len)
{
	memset(p, 0, sizeof(*p));
	p->family = 6;
	p->len = len;
	assert_int_equal(inet_pton(AF_INET6, addr, p->addr), 1);
}

/* Metas as pkt_parse() fills them. */
static inline struct pkt_meta meta_l2(uint16_t et)
{
	struct pkt_meta m = {.ethertype = et, .l3_off = 14};

	return m;
}

static inline void meta_vlan(struct pkt_meta *m, uint16_t vid, uint8_t pcp)
{
	m->flags |= PKT_F_VLAN;
	m->n_vlan = 1;
	m->vlan_id = vid;
	m->pcp = pcp;
}

static inline void meta_l4(struct pkt_meta *m, uint8_t proto, uint16_t sport,
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

static inline struct pkt_meta meta_v4(const char *src, const char *dst,
				      uint8_t proto, uint16_t sport,
				      uint16_t dport)
{
	struct pkt_meta m = meta_l2(ETHERTYPE_IPV4);

	m.l3 = PKT_L3_IPV4;
	m.flags = PKT_F_IP | PKT_F_IPV4;
	assert_int_equal(inet_pton(AF_INET, src, m.src), 1);
	assert_int_equal(inet_pton(AF_INET, dst, m.dst), 1);
	meta_l4(&m, proto, sport, dport);
	return m;
}

static inline struct pkt_meta meta_v6(const char *src, const char *dst,
				      uint8_t proto, uint16_t sport,
				      uint16_t dport)
{
	struct pkt_meta m = meta_l2(ETHERTYPE_IPV6);

	m.l3 = PKT_L3_IPV6;
	m.flags = PKT_F_IP | PKT_F_IPV6;
	assert_int_equal(inet_pton(AF_INET6, src, m.src), 1);
	assert_int_equal(inet_pton(AF_INET6, dst, m.dst), 1);
	meta_l4(&m, proto, sport, dport);
	return m;
}

static inline void meta_bth(struct pkt_meta *m, uint8_t opcode, uint32_t qpn)
{
	m->flags |= PKT_F_BTH;
	m->bth_opcode = opcode;
	m->bth_dqpn = qpn;
}

static inline uint8_t cl(const struct pkt_meta *m)
{
	return classify(&cls, m);
}

#endif

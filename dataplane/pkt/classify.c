// SPDX-License-Identifier: BSD-2-Clause
/*
 * classify.c - compile a qos_policy's rules; classify a parsed frame.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "classify.h"

_Static_assert(QOS_MAX_RULES <= 64, "a rule set is one uint64_t");
_Static_assert(sizeof(struct cls_rule) == 80, "cls_rule layout");

#define QOS_M_ALL                                                              \
	(QOS_M_ETHERTYPE | QOS_M_VLAN | QOS_M_PCP | QOS_M_SRC | QOS_M_DST |    \
	 QOS_M_PROTO | QOS_M_DSCP | QOS_M_ECN | QOS_M_SPORT | QOS_M_DPORT |    \
	 QOS_M_BTH_OPCODE)

/* A rule in the form it is compiled from: the per-candidate fields, and
 * for the table fields an accept bitmap or (value, mask). */
struct rule_spec {
	struct cls_rule r;
	uint8_t need; /* pkt_meta.flags bits */
	uint8_t proto, proto_mask;
	uint8_t op, op_mask;
	uint8_t pcp_ok; /* bit p: PCP p accepted */
	uint8_t ecn_ok; /* bit e: ECN e accepted */
	uint64_t dscp_ok; /* bit d: DSCP d accepted */
};

/* Mask and masked value of a prefix, as the two 64-bit words of the 16
 * address bytes in memory order; adds the family flag to *need. */
static int compile_prefix(const struct qos_prefix *pfx, uint64_t mask[2],
			  uint64_t val[2], uint8_t *need)
{
	uint8_t mb[16], vb[16];
	unsigned int max, i;

	if (pfx->family == 4) {
		max = 32;
		*need |= PKT_F_IPV4;
	} else if (pfx->family == 6) {
		max = 128;
		*need |= PKT_F_IPV6;
	} else {
		return -1;
	}
	if (pfx->len > max)
		return -1;
	for (i = 0; i < 16; i++) {
		int bits = (int)pfx->len - 8 * (int)i;

		bits = bits < 0 ? 0 : bits > 8 ? 8 : bits;
		mb[i] = (uint8_t)(0xff00u >> bits);
		vb[i] = pfx->addr[i] & mb[i];
	}
	memcpy(mask, mb, 16);
	memcpy(val, vb, 16);
	return 0;
}

static int compile_range(uint16_t lo, uint16_t hi, uint16_t *r_lo,
			 uint16_t *r_span)
{
	if (lo > hi)
		return -1;
	*r_lo = lo;
	*r_span = (uint16_t)(hi - lo);
	return 0;
}

static int compile_rule(struct rule_spec *s, const struct qos_rule *q,
			uint32_t n_classes)
{
	struct cls_rule *r = &s->r;
	uint32_t f = q->fields;

	/* Everything matches everything to start with. */
	memset(s, 0, sizeof(*s));
	s->dscp_ok = ~0ull;
	s->pcp_ok = 0xff;
	s->ecn_ok = 0x0f;
	r->sport_span = 0xffff;
	r->dport_span = 0xffff;

	if (f & ~(uint32_t)QOS_M_ALL || q->class_id >= n_classes)
		return -1;
	if (f & QOS_M_ETHERTYPE) {
		r->et = q->ethertype;
		r->et_mask = 0xffff;
	}
	if (f & QOS_M_VLAN) {
		if (q->vlan_id > 0x0fff)
			return -1;
		r->vid = q->vlan_id;
		r->vid_mask = 0x0fff;
		s->need |= PKT_F_VLAN;
	}
	if (f & QOS_M_PCP) {
		s->pcp_ok = q->pcp_mask;
		s->need |= PKT_F_VLAN;
	}
	if ((f & QOS_M_SRC) &&
	    compile_prefix(&q->src, r->src_mask, r->src_val, &s->need))
		return -1;
	if ((f & QOS_M_DST) &&
	    compile_prefix(&q->dst, r->dst_mask, r->dst_val, &s->need))
		return -1;
	if (f & QOS_M_PROTO) {
		s->proto = q->proto;
		s->proto_mask = 0xff;
		s->need |= PKT_F_IP;
	}
	if (f & QOS_M_DSCP) {
		s->dscp_ok = q->dscp_mask;
		s->need |= PKT_F_IP;
	}
	if (f & QOS_M_ECN) {
		if (q->ecn_mask & ~0x0fu)
			return -1;
		s->ecn_ok = q->ecn_mask;
		s->need |= PKT_F_IP;
	}
	if (f & QOS_M_SPORT) {
		if (compile_range(q->sport_lo, q->sport_hi, &r->sport_lo,
				  &r->sport_span))
			return -1;
		s->need |= PKT_F_PORTS;
	}
	if (f & QOS_M_DPORT) {
		if (compile_range(q->dport_lo, q->dport_hi, &r->dport_lo,
				  &r->dport_span))
			return -1;
		s->need |= PKT_F_PORTS;
	}
	if (f & QOS_M_BTH_OPCODE) {
		s->op = q->bth_opcode;
		s->op_mask = 0xff;
		s->need |= PKT_F_BTH;
	}
	return 0;
}

/* Port buckets are the low 8 bits of the port (tab) and the high 8 bits
 * (hi): a rule is in the low bucket of every port of its range (all of
 * them for a range of 256 ports or more, or no port condition) and in the
 * high bucket of every port of its range. Together a superset of the
 * range: its product, exactly the range when port_exact() says so. */
static void add_port_buckets(uint64_t *tab, uint64_t *hi, uint16_t lo,
			     uint16_t span, uint64_t bit)
{
	unsigned int k;

	for (k = (unsigned int)lo >> 8; k <= (lo + (unsigned int)span) >> 8;
	     k++)
		hi[k] |= bit;
	if (span >= 255) {
		for (k = 0; k < 256; k++)
			tab[k] |= bit;
		return;
	}
	for (k = 0; k <= span; k++)
		tab[(lo + k) & 0xff] |= bit;
}

/* Is the range [lo, lo + span] the set of ports whose low byte is in its
 * low buckets and high byte in its high buckets? Yes for one high byte
 * (the low buckets are the range's low bytes, contiguous) and for ranges
 * made of whole high bytes (every low bucket); otherwise the product
 * holds ports outside the range. */
static bool port_exact(uint16_t lo, uint16_t span)
{
	unsigned int hi = (unsigned int)lo + span;

	return (lo >> 8) == (hi >> 8) ||
	       ((lo & 0xff) == 0 && (hi & 0xff) == 0xff);
}

/* Do the tables decide rule s alone (no per-candidate check needed)? */
static bool rule_exact(const struct rule_spec *s)
{
	const struct cls_rule *r = &s->r;

	return !r->et_mask && !r->vid_mask &&
	       !(r->src_mask[0] | r->src_mask[1]) &&
	       !(r->dst_mask[0] | r->dst_mask[1]) &&
	       port_exact(r->sport_lo, r->sport_span) &&
	       port_exact(r->dport_lo, r->dport_span);
}

/* Add rule i to the entries of the tables that it accepts. */
static void add_to_tables(struct classifier *c, const struct rule_spec *s,
			  uint32_t i)
{
	const uint64_t bit = 1ull << i;
	unsigned int v;

	for (v = 0; v < 256; v++) {
		if ((v & s->need) == s->need)
			c->by_flags[v] |= bit;
		if (((v ^ s->proto) & s->proto_mask) == 0)
			c->by_proto[v] |= bit;
		if (((v ^ s->op) & s->op_mask) == 0)
			c->by_op[v] |= bit;
	}
	for (v = 0; v < 64; v++)
		if ((s->dscp_ok >> v) & 1)
			c->by_dscp[v] |= bit;
	for (v = 0; v < 8; v++)
		if ((s->pcp_ok >> v) & 1)
			c->by_pcp[v] |= bit;
	for (v = 0; v < 4; v++)
		if ((s->ecn_ok >> v) & 1)
			c->by_ecn[v] |= bit;
	add_port_buckets(c->by_sport, c->by_sport_hi, s->r.sport_lo,
			 s->r.sport_span, bit);
	add_port_buckets(c->by_dport, c->by_dport_hi, s->r.dport_lo,
			 s->r.dport_span, bit);
}

int classifier_build(struct classifier *c, const struct qos_policy *p)
{
	struct rule_spec s;
	uint32_t i;

	memset(c, 0, sizeof(*c));
	c->err_rule = -1;
	if (p->n_rules > QOS_MAX_RULES || p->n_classes == 0 ||
	    p->n_classes > QOS_MAX_CLASSES || p->default_class >= p->n_classes)
		return -EINVAL;
	for (i = 0; i < p->n_rules; i++) {
		if (compile_rule(&s, &p->rules[i], p->n_classes)) {
			memset(c, 0, sizeof(*c));
			c->err_rule = (int)i;
			return -EINVAL;
		}
		c->rules[i] = s.r;
		c->class_id[i] = p->rules[i].class_id;
		c->first[i] = rule_exact(&s) ? c->class_id[i] : CLS_CHECK;
		add_to_tables(c, &s, i);
	}
	c->n_rules = p->n_rules;
	c->default_class = p->default_class;
	c->first[QOS_MAX_RULES] = p->default_class;
	c->malformed_drop = p->malformed == QOS_MALFORMED_DROP;
	return 0;
}

uint8_t classify_check(const struct classifier *c, const struct pkt_meta *m,
		       uint64_t cand)
{
	uint64_t s[2], d[2];

	memcpy(s, m->src, 16);
	memcpy(d, m->dst, 16);
	while (cand) {
		const unsigned int i = (unsigned int)__builtin_ctzll(cand);
		const struct cls_rule *r = &c->rules[i];
		uint64_t a;
		unsigned int ok;

		ok = ((m->ethertype ^ r->et) & r->et_mask) == 0;
		ok &= ((m->vlan_id ^ r->vid) & r->vid_mask) == 0;
		ok &= (uint16_t)(m->sport - r->sport_lo) <= r->sport_span;
		ok &= (uint16_t)(m->dport - r->dport_lo) <= r->dport_span;
		a = ((s[0] & r->src_mask[0]) ^ r->src_val[0]) |
		    ((s[1] & r->src_mask[1]) ^ r->src_val[1]) |
		    ((d[0] & r->dst_mask[0]) ^ r->dst_val[0]) |
		    ((d[1] & r->dst_mask[1]) ^ r->dst_val[1]);
		ok &= a == 0;
		if (ok)
			return c->class_id[i];
		cand &= cand - 1;
	}
	return c->default_class;
}

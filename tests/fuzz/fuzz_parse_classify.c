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
 *   - the L4 length fields agree with the verdict: on success a UDP
 *     length >= 8 (>= 8 + BTH with a BTH) and a TCP data offset >= 5, and
 *     outside fragments neither past the IP datagram; udp_bad_len and
 *     tcp_bad_doff only when one of those bounds is broken;
 *   - parsing is deterministic;
 *   - classify() agrees with a naive matcher written from the semantics
 *     in classify.h, and returns a class of the policy;
 *   - the same for a second, random policy drawn from the input's last
 *     bytes (read backwards; the frame is still the whole input): 1..8
 *     classes, 1..16 rules over every match field, values either random or
 *     taken from the frame's own parse (so that rules do match), prefixes
 *     of any length with host bits set, port ranges of any width; it must
 *     build, and classify() must agree with the naive matcher on it;
 *   - DSCP / PCP marking (remark.h) on the frame as parsed, and on a
 *     meta the frame does not match (check_remark).
 */
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "classify.h"
#include "pkt_parse.h"
#include "remark.h"
#include "ref_classify.h"
#include "fuzz_check.h"

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

static uint8_t ref_classify_in(const struct qos_policy *p,
			       const struct pkt_meta *m)
{
	for (uint32_t i = 0; i < p->n_rules; i++)
		if (ref_match(&p->rules[i], m))
			return p->rules[i].class_id;
	return p->default_class;
}

static uint8_t ref_classify(const struct pkt_meta *m)
{
	return ref_classify_in(&pol, m);
}

/* Bytes of the input from its end backwards; zeros once used up. */
struct tail {
	const uint8_t *data;
	size_t left;
};

static uint8_t rd8(struct tail *t)
{
	return t->left ? t->data[--t->left] : 0;
}

static uint16_t rd16(struct tail *t)
{
	return (uint16_t)(rd8(t) << 8 | rd8(t));
}

static void random_prefix(struct tail *t, struct qos_prefix *p,
			  const uint8_t *own, const struct pkt_meta *m)
{
	uint8_t sel = rd8(t);

	p->family = sel & 1 ? 6 : 4;
	if ((sel & 2) && m->l3 != PKT_L3_NONE)
		p->family = m->l3 == PKT_L3_IPV6 ? 6 : 4;
	p->len = (uint8_t)(rd8(t) % (p->family == 4 ? 33 : 129));
	for (unsigned int i = 0; i < 16; i++)
		p->addr[i] = sel & 4 ? own[i] : rd8(t);
}

static void random_range(struct tail *t, uint16_t *lo, uint16_t *hi,
			 uint16_t own)
{
	uint8_t sel = rd8(t);
	uint16_t a = sel & 1 ? own : rd16(t), w;

	w = sel & 2 ? 0 : sel & 4 ? rd8(t) : rd16(t);
	*lo = (uint16_t)(sel & 8 && a >= w ? a - w : a);
	*hi = (uint16_t)((uint32_t)*lo + w > 0xffff ? 0xffff : *lo + w);
}

/* A policy from the input's tail; m: the frame's parse (values to copy). */
static void random_policy(const uint8_t *data, size_t size,
			  const struct pkt_meta *m, struct qos_policy *p)
{
	struct tail t = {data, size};
	uint32_t n_rules;

	memset(p, 0, sizeof(*p));
	p->n_classes = rd8(&t) % QOS_MAX_CLASSES + 1;
	p->default_class = (uint8_t)(rd8(&t) % p->n_classes);
	p->malformed = rd8(&t) & 1 ? QOS_MALFORMED_DROP : QOS_MALFORMED_DEFAULT;
	n_rules = rd8(&t) % 16 + 1;
	for (uint32_t i = 0; i < n_rules; i++) {
		struct qos_rule *r = &p->rules[p->n_rules++];
		uint8_t own = rd8(&t); /* bit set: copy that field from m */

		r->fields = rd16(&t) & ((QOS_M_BTH_OPCODE << 1) - 1);
		r->class_id = (uint8_t)(rd8(&t) % p->n_classes);
		r->ethertype = own & 0x01 ? m->ethertype : rd16(&t);
		r->vlan_id = (own & 0x02 ? m->vlan_id : rd16(&t)) & 0x0fff;
		r->pcp_mask = own & 0x04 ? (uint8_t)(1u << m->pcp) : rd8(&t);
		r->proto = own & 0x08 ? m->proto : rd8(&t);
		r->ecn_mask = (own & 0x10 ? 1u << m->ecn : rd8(&t)) & 0x0f;
		r->bth_opcode = own & 0x20 ? m->bth_opcode : rd8(&t);
		r->dscp_mask = own & 0x40 ? 1ull << m->dscp
					  : (uint64_t)rd16(&t) << 48 |
						    (uint64_t)rd16(&t) << 16 |
						    rd8(&t);
		random_prefix(&t, &r->src, m->src, m);
		random_prefix(&t, &r->dst, m->dst, m);
		random_range(&t, &r->sport_lo, &r->sport_hi, m->sport);
		random_range(&t, &r->dport_lo, &r->dport_hi, m->dport);
	}
}

static void check_random_policy(const uint8_t *data, size_t size,
				const struct pkt_meta *m, int rc)
{
	static struct qos_policy rp;
	static struct classifier rc_cls;
	uint8_t c;

	random_policy(data, size, m, &rp);
	CHECK(classifier_build(&rc_cls, &rp) == 0);
	CHECK(classifier_drops_malformed(&rc_cls) ==
	      (rp.malformed == QOS_MALFORMED_DROP));
	if (rc != PKT_OK)
		return;
	c = classify(&rc_cls, m);
	CHECK(c < rp.n_classes);
	CHECK(c == ref_classify_in(&rp, m));
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

/*
 * The L4 length fields against rc, from the frame and the parse alone:
 * on PKT_OK (with ports) they are sane, on udp_bad_len / tcp_bad_doff one
 * bound is broken. The datagram end comes from the IP header (the parser
 * checked it <= len before looking at L4). A first fragment carries only
 * part of the L4 bytes: there the upper bounds are not required.
 */
static void check_l4_lengths(const uint8_t *frame, uint32_t len,
			     const struct pkt_meta *m, int rc)
{
	const uint8_t *ip = frame + m->l3_off, *l4 = frame + m->l4_off;
	int frag = (m->flags & PKT_F_FRAG) != 0;
	uint32_t dend, v;

	if (rc != PKT_OK && rc != PKT_MALFORMED_UDP_BAD_LEN &&
	    rc != PKT_MALFORMED_TCP_BAD_DOFF)
		return;
	if (!(m->flags & PKT_F_PORTS)) {
		CHECK(rc == PKT_OK);
		return;
	}
	if (m->l3 == PKT_L3_IPV4)
		dend = m->l3_off + ((uint32_t)ip[2] << 8 | ip[3]);
	else
		dend = m->l3_off + 40 + ((uint32_t)ip[4] << 8 | ip[5]);
	CHECK(dend <= len);
	if (m->proto == IPPROTO_UDP) {
		CHECK(rc != PKT_MALFORMED_TCP_BAD_DOFF);
		CHECK(m->l4_off + 8u <= dend);
		v = (uint32_t)l4[4] << 8 | l4[5];
		if (rc == PKT_OK) {
			CHECK(v >= 8);
			CHECK(frag || m->l4_off + v <= dend);
			CHECK(!(m->flags & PKT_F_BTH) || v >= 8 + BTH_LEN);
		} else {
			CHECK(v < 8 || m->l4_off + v > dend);
		}
	} else {
		CHECK(m->proto == IPPROTO_TCP);
		CHECK(rc != PKT_MALFORMED_UDP_BAD_LEN);
		CHECK(m->l4_off + 20u <= dend);
		v = (uint32_t)(l4[12] >> 4) * 4;
		if (rc == PKT_OK) {
			CHECK(v >= 20);
			CHECK(frag || m->l4_off + v <= dend);
		} else {
			CHECK(v < 20 || m->l4_off + v > dend);
		}
	}
}

/* The one's complement sum of an IPv4 header: 0xffff when it verifies. */
static uint16_t ip4_sum(const uint8_t *ip, unsigned int n)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/*
 * Marking (remark.h) on the frame as parsed, with a DSCP and PCP drawn
 * from the input's last bytes: only the outer TCI's PCP bits, the TOS /
 * traffic class byte's DSCP bits and the IPv4 header checksum may change;
 * an IPv4 checksum that verified still does; the re-parse agrees but for
 * the new dscp and pcp; the result bits agree with the parse. Then, on
 * an offset and L3 kind from the input (the meta of a frame that is not
 * what it says), every access stays inside the frame (ASan) and the
 * frame changes only as above.
 */
static void check_remark(const uint8_t *data, size_t size, int rc,
			 const struct pkt_meta *m)
{
	uint8_t b0 = size ? data[size - 1] : 0,
		b1 = size > 1 ? data[size - 2] : 0;
	struct remark_cfg cfg = {
		.dscp = b0 & 0x80 ? REMARK_NONE : (uint8_t)(b0 & 63),
		.pcp = b1 & 0x80 ? REMARK_NONE : (uint8_t)(b1 & 7),
	};
	uint8_t *f = malloc(size ? size : 1);
	uint32_t len = (uint32_t)size, tos_at = 0, n_tos = 0;
	unsigned int r, l3, l3off;
	struct pkt_meta after;

	CHECK(f != NULL);
	memcpy(f, data, size);
	if (rc == PKT_OK) {
		bool v4 = m->l3 == PKT_L3_IPV4;
		bool ok4 = v4 && ip4_sum(f + m->l3_off,
					 (f[m->l3_off] & 0xfu) * 4) == 0xffff;

		r = remark_frame(f, len, m->l3, m->l3_off, &cfg);
		CHECK(!(r & REMARK_INVALID)); /* the parse vouched for it */
		CHECK(!!(r & REMARK_PCP) ==
		      (cfg.pcp != REMARK_NONE && (m->flags & PKT_F_VLAN)));
		CHECK(!!(r & REMARK_PCP_UNTAGGED) ==
		      (cfg.pcp != REMARK_NONE && !(m->flags & PKT_F_VLAN)));
		CHECK(!!(r & REMARK_DSCP) ==
		      (cfg.dscp != REMARK_NONE && m->l3 != PKT_L3_NONE));
		CHECK(!!(r & REMARK_DSCP_NOT_IP) ==
		      (cfg.dscp != REMARK_NONE && m->l3 == PKT_L3_NONE));
		if (ok4)
			CHECK(ip4_sum(f + m->l3_off,
				      (f[m->l3_off] & 0xfu) * 4) == 0xffff);
		CHECK(pkt_parse(f, len, &after) == PKT_OK);
		CHECK(after.dscp == (r & REMARK_DSCP ? cfg.dscp : m->dscp));
		CHECK(after.ecn == m->ecn);
		CHECK(after.pcp == (r & REMARK_PCP ? cfg.pcp : m->pcp));
		CHECK(after.vlan_id == m->vlan_id);
		after.dscp = m->dscp;
		after.pcp = m->pcp;
		CHECK(memcmp(&after, m, sizeof(after)) == 0);
		l3 = m->l3;
		l3off = m->l3_off;
	} else {
		l3 = b0 % 3;
		l3off = b1;
		r = remark_frame(f, len, l3, l3off, &cfg);
	}
	/* bytes allowed to change: the outer TCI's first byte, the
	 * TOS / traffic class (IPv4: byte 1 and the checksum; IPv6: bytes
	 * 0 and 1, the version kept) */
	if (l3 == PKT_L3_IPV4 || l3 == PKT_L3_IPV6) {
		tos_at = l3off;
		n_tos = l3 == PKT_L3_IPV4 ? 12 : 2;
	}
	for (uint32_t i = 0; i < len; i++) {
		bool may = (i == 14 && (r & REMARK_PCP)) ||
			   ((r & REMARK_DSCP) && i >= tos_at &&
			    i < tos_at + n_tos &&
			    (l3 == PKT_L3_IPV6 || i == tos_at + 1 ||
			     i >= tos_at + 10));

		if (!may)
			CHECK(f[i] == data[i]);
	}
	if (r & REMARK_PCP)
		CHECK((f[14] & 0x1f) == (data[14] & 0x1f));
	if (r & REMARK_DSCP) {
		CHECK(f[tos_at] >> 4 == data[tos_at] >> 4); /* version */
		if (l3 == PKT_L3_IPV6)
			CHECK((f[tos_at + 1] & 0x3f) ==
			      (data[tos_at + 1] & 0x3f));
		else
			CHECK((f[tos_at + 1] & 3) == (data[tos_at + 1] & 3));
	}
	free(f);
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
	check_l4_lengths(frame, len, &m, rc);
	if (rc == PKT_OK) {
		uint8_t c;

		check_meta(&m, len);
		c = classify(&cls, &m);
		CHECK(c < pol.n_classes);
		CHECK(c == ref_classify(&m));
	} else {
		CHECK(rc != PKT_MALFORMED_RUNT || len < ETH_HLEN_MIN);
	}
	check_random_policy(data, size, &m, rc);
	check_remark(data, size, rc, &m);
	free(frame);
	return 0;
}

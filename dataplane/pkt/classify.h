/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * classify.h - the classification rules of a struct qos_policy compiled
 * into a form that is cheap to evaluate per frame, and the per-frame
 * lookup: the class of the first rule that matches the frame's pkt_meta,
 * or the policy's default class.
 *
 * Matching (a field a rule does not name always matches):
 *   ethertype  innermost ethertype equal
 *   vlan       outermost VID equal; untagged frames never match
 *   pcp        bit pcp of pcp_mask set; untagged frames never match
 *   src, dst   prefix of the rule's family; a frame of the other family
 *              or without IP never matches
 *   proto      IPv4 protocol / IPv6 upper-layer next header equal (IP only)
 *   dscp, ecn  bit of dscp_mask / ecn_mask set (IP only)
 *   sport      inclusive range; only frames with TCP/UDP ports
 *   dport      inclusive range; only frames with TCP/UDP ports
 *   bth_opcode equal; only frames with a RoCEv2 BTH
 *
 * Compiled form (QOS_MAX_RULES is 64: a set of rules is one uint64_t, bit
 * i for rule i): for each field with a small domain (the pkt_meta.flags a
 * rule needs, proto, BTH opcode, DSCP, PCP, ECN) a table from the frame's
 * value to the set of rules that value does not rule out (a rule that does
 * not name the field is in every entry), and for each port two tables,
 * from the low and from the high 8 bits of the frame's port, to the rules
 * whose range holds a port with those low (high) bits. classify() ANDs
 * the ten table entries into the candidate set. A rule is "exact" when
 * the tables decide it alone: no ethertype, VID or prefix condition, and
 * each port range is the product of its low-byte and high-byte sets (a
 * single port, a range inside one high byte, a range of whole high bytes,
 * or no range). When the first candidate is exact (or there is none) the
 * answer is one more table load (`first`); otherwise classify_check()
 * checks the remaining fields (ethertype, VID, exact port ranges,
 * prefixes) of the candidates in rule order, branch-free per rule: the
 * first that passes wins. So rules that differ in a table field or in a
 * byte of a port cost nothing, the policies of exact rules (the shipped
 * one) cost ten table loads per frame, and the worst case (every rule a
 * candidate, none exact) is a linear scan. Prefixes are two masked 64-bit
 * compares per address (an IPv4 prefix masks the first word's first 4
 * bytes only; the rest is zero on both sides). Requirements such as
 * "untagged frames never match a VLAN rule" or "only frames with ports
 * match a port range" are in the flags table.
 *
 * A classifier is built once per policy (control plane) and then only read
 * (RX tasks); it holds no pointer into the policy. About 20 KiB, of which a
 * lookup touches one cache line per table, plus the candidates' rules when
 * the first one is not exact.
 */
#ifndef XDPLANE_CLASSIFY_H
#define XDPLANE_CLASSIFY_H

#include <stdint.h>
#include "bits.h"
#include "pkt_parse.h"
#include "qos.h"

/* The fields of a rule checked per candidate: 80 bytes. */
struct cls_rule {
	uint16_t et, et_mask;
	uint16_t vid, vid_mask;
	uint16_t sport_lo, sport_span; /* match: (u16)(port - lo) <= span */
	uint16_t dport_lo, dport_span;
	uint64_t src_mask[2], src_val[2]; /* address bytes as loaded */
	uint64_t dst_mask[2], dst_val[2];
};

struct classifier {
	/* sets of rules, by the frame's value of a field */
	uint64_t by_flags[256]; /* rules whose needed pkt_meta.flags are set */
	uint64_t by_proto[256];
	uint64_t by_op[256]; /* BTH opcode */
	uint64_t by_dscp[64];
	uint64_t by_pcp[8];
	uint64_t by_ecn[4];
	uint64_t by_sport[256]; /* by the low 8 bits of the port */
	uint64_t by_dport[256];
	uint64_t by_sport_hi[256]; /* by the high 8 bits of the port */
	uint64_t by_dport_hi[256];
	/* by the first candidate (QOS_MAX_RULES: none): the class, or
	 * CLS_CHECK when that rule is not exact (classify_check decides) */
	uint8_t first[QOS_MAX_RULES + 1];
	uint8_t class_id[QOS_MAX_RULES];
	uint32_t n_rules;
	uint8_t default_class;
	uint8_t malformed_drop; /* policy: drop malformed frames */
	int err_rule; /* classifier_build() failure: bad rule, -1: policy */
	struct cls_rule rules[QOS_MAX_RULES] __cacheline_aligned;
};

/*
 * Compile p's rules into c. Returns 0, or -EINVAL (c->err_rule tells which
 * rule, -1 for the policy itself) when: more than QOS_MAX_RULES rules, no
 * classes or more than QOS_MAX_CLASSES, a class id (rule or default) not
 * below n_classes, an unknown field bit, a prefix family not 4 or 6 or a
 * length beyond the family's, an empty port range (lo > hi), or ECN mask
 * bits above bit 3. Host bits set in a prefix address are ignored.
 */
int classifier_build(struct classifier *c, const struct qos_policy *p);

#define CLS_CHECK 0x80 /* classifier.first: not decided by the tables */

/* The candidates of m, the first of which is not exact: the first that
 * passes the per-rule checks decides. */
uint8_t classify_check(const struct classifier *c, const struct pkt_meta *m,
		       uint64_t cand);

/* The class of the first rule matching m, else the default class. m must
 * come from a pkt_parse() that returned PKT_OK. Inline: the RX path calls
 * it per frame, and with exact rules it is ten loads and a branch. */
static inline uint8_t classify(const struct classifier *c,
			       const struct pkt_meta *m)
{
	uint64_t cand;
	unsigned int i;
	uint8_t v;

	cand = c->by_flags[m->flags] & c->by_proto[m->proto] &
	       c->by_op[m->bth_opcode] & c->by_dscp[m->dscp & 63] &
	       c->by_pcp[m->pcp & 7] & c->by_ecn[m->ecn & 3] &
	       c->by_sport[m->sport & 0xff] & c->by_dport[m->dport & 0xff] &
	       c->by_sport_hi[m->sport >> 8] & c->by_dport_hi[m->dport >> 8];
	i = cand ? (unsigned int)__builtin_ctzll(cand) : QOS_MAX_RULES;
	v = c->first[i];
	if (likely(!(v & CLS_CHECK)))
		return v;
	return classify_check(c, m, cand);
}

/* What to do with a frame pkt_parse() found malformed: 1: drop it, 0:
 * forward it in the default class. */
static inline int classifier_drops_malformed(const struct classifier *c)
{
	return c->malformed_drop;
}

#endif

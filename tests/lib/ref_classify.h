/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ref_classify.h - a naive, obviously-correct reading of the rule semantics
 * of qos.h, field by field, for tests that compare the fast classifier
 * (dataplane/pkt/classify.c) against it: the unit test and the fuzz target.
 */
#ifndef XDPLANE_TESTS_REF_CLASSIFY_H
#define XDPLANE_TESTS_REF_CLASSIFY_H

#include <stdint.h>
#include "pkt_parse.h"
#include "qos.h"

static inline int ref_prefix(const struct qos_prefix *p,
			     const struct pkt_meta *m, const uint8_t *a)
{
	if ((p->family == 4 && m->l3 != PKT_L3_IPV4) ||
	    (p->family == 6 && m->l3 != PKT_L3_IPV6))
		return 0;
	for (unsigned int i = 0; i < p->len; i++) {
		unsigned int bit = 7 - (i & 7);

		if (((a[i / 8] ^ p->addr[i / 8]) >> bit) & 1)
			return 0;
	}
	return 1;
}

static inline int ref_match(const struct qos_rule *r, const struct pkt_meta *m)
{
	int ip = m->l3 != PKT_L3_NONE, tagged = m->n_vlan > 0;
	int ports = (m->flags & PKT_F_PORTS) != 0;
	int has_bth = (m->flags & PKT_F_BTH) != 0;
	uint32_t f = r->fields;

	if ((f & QOS_M_ETHERTYPE) && m->ethertype != r->ethertype)
		return 0;
	if ((f & QOS_M_VLAN) && !(tagged && m->vlan_id == r->vlan_id))
		return 0;
	if ((f & QOS_M_PCP) && !(tagged && (r->pcp_mask >> m->pcp) & 1))
		return 0;
	if ((f & QOS_M_SRC) && !ref_prefix(&r->src, m, m->src))
		return 0;
	if ((f & QOS_M_DST) && !ref_prefix(&r->dst, m, m->dst))
		return 0;
	if ((f & QOS_M_PROTO) && !(ip && m->proto == r->proto))
		return 0;
	if ((f & QOS_M_DSCP) && !(ip && (r->dscp_mask >> m->dscp) & 1))
		return 0;
	if ((f & QOS_M_ECN) && !(ip && (r->ecn_mask >> m->ecn) & 1))
		return 0;
	if ((f & QOS_M_SPORT) &&
	    !(ports && m->sport >= r->sport_lo && m->sport <= r->sport_hi))
		return 0;
	if ((f & QOS_M_DPORT) &&
	    !(ports && m->dport >= r->dport_lo && m->dport <= r->dport_hi))
		return 0;
	if ((f & QOS_M_BTH_OPCODE) &&
	    !(has_bth && m->bth_opcode == r->bth_opcode))
		return 0;
	return 1;
}

#endif

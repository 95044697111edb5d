// SPDX-License-Identifier: BSD-2-Clause
/*
 * remark.c - see remark.h.
 */
#include <stddef.h>
#include "ip_tos.h"
#include "pkt_parse.h"
#include "remark.h"

static unsigned int remark_pcp(uint8_t *frame, uint32_t len, uint8_t pcp)
{
	unsigned int tpid;

	if (len < ETH_HLEN_MIN)
		return REMARK_INVALID;
	tpid = (unsigned int)frame[12] << 8 | frame[13];
	if (tpid != ETHERTYPE_VLAN && tpid != ETHERTYPE_QINQ)
		return REMARK_PCP_UNTAGGED;
	if (len < ETH_HLEN_MIN + 4) /* the tag's TCI and the next type */
		return REMARK_INVALID;
	/* TCI: PCP(3) | DEI(1) | VID(12) */
	frame[14] = (uint8_t)((frame[14] & 0x1f) | (pcp & 7) << 5);
	return REMARK_PCP;
}

/* Where an IP header may start at the earliest: after the Ethernet
 * header and the outer 802.1Q/QinQ tag. */
static unsigned int l2_min(const uint8_t *frame, uint32_t len)
{
	unsigned int tpid;

	if (len < ETH_HLEN_MIN)
		return ETH_HLEN_MIN;
	tpid = (unsigned int)frame[12] << 8 | frame[13];
	return tpid == ETHERTYPE_VLAN || tpid == ETHERTYPE_QINQ
		       ? ETH_HLEN_MIN + 4
		       : ETH_HLEN_MIN;
}

static unsigned int remark_dscp(uint8_t *frame, uint32_t len, unsigned int l3,
				unsigned int l3off, uint8_t dscp)
{
	int tos;
	uint8_t new;

	if (l3 != IP_TOS_L3_IPV4 && l3 != IP_TOS_L3_IPV6)
		return REMARK_DSCP_NOT_IP;
	/* an IP header the meta places inside the Ethernet header or the
	 * outer tag is not one (our parser never does): left alone */
	if (l3off < l2_min(frame, len))
		return REMARK_INVALID;
	tos = ip_tos_read(frame, len, l3, l3off);
	if (tos < 0)
		return REMARK_INVALID;
	new = (uint8_t)((dscp & 0x3f) << 2 | (tos & IP_TOS_ECN_MASK));
	if (new != tos)
		ip_tos_write(frame, l3, l3off, new);
	return REMARK_DSCP;
}

unsigned int remark_frame(uint8_t *frame, uint32_t len, unsigned int l3,
			  unsigned int l3off, const struct remark_cfg *cfg)
{
	unsigned int r = 0;

	if (!frame)
		return REMARK_INVALID;
	/* each field on its own: the PCP is the tag's, whatever the meta
	 * says of L3 (a non-IP frame has no L3 offset) */
	if (cfg->pcp != REMARK_NONE)
		r |= remark_pcp(frame, len, cfg->pcp);
	if (cfg->dscp != REMARK_NONE)
		r |= remark_dscp(frame, len, l3, l3off, cfg->dscp);
	return r;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * ecn.c - see ecn.h.
 */
#include <errno.h>
#include <stddef.h>
#include "ecn.h"

int ecn_red_init(struct ecn_red *r, const struct qos_ecn *cfg)
{
	uint64_t pmax48, range;

	if (cfg->kmin > cfg->kmax || cfg->pmax > QOS_PROB_ONE)
		return -EINVAL;
	pmax48 = (uint64_t)cfg->pmax << (ECN_P_SHIFT - 16);
	range = cfg->kmax - cfg->kmin;
	r->kmin = cfg->kmin;
	r->kmax = cfg->kmax;
	if (range) {
		r->base = 0;
		/* rounded; range * slope stays <= pmax48 + range / 2, and
		 * ecn_red_choose() treats p >= ECN_P_ONE as 1 */
		r->slope = (pmax48 + range / 2) / range;
	} else {
		r->base = pmax48;
		r->slope = 0;
	}
	return 0;
}

void ecn_rng_seed(uint64_t *state, uint64_t seed)
{
	/* one splitmix64 step spreads small seeds; never leave 0 */
	uint64_t z = seed + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	*state = z ? z : 0x9e3779b97f4a7c15ull;
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), 16-bit one's complement. */
static uint16_t csum_replace16(uint16_t hc, uint16_t old, uint16_t new)
{
	uint32_t sum = (uint16_t)~hc + (uint32_t)(uint16_t)~old + new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static int mark_ipv4(uint8_t *ip, uint32_t avail)
{
	uint16_t old, new, hc;
	unsigned int ihl;

	if (avail < 20 || ip[0] >> 4 != 4)
		return ECN_UNMARKABLE;
	ihl = (ip[0] & 0xfu) * 4;
	if (ihl < 20 || ihl > avail)
		return ECN_UNMARKABLE;
	switch (ip[1] & 3) {
	case ECN_NOT_ECT:
		return ECN_WAS_NOT_ECT;
	case ECN_CE:
		return ECN_WAS_CE;
	}
	/* The TOS byte is the low half of the header's first 16-bit word. */
	old = (uint16_t)(ip[0] << 8 | ip[1]);
	new = old | ECN_CE;
	hc = (uint16_t)(ip[10] << 8 | ip[11]);
	hc = csum_replace16(hc, old, new);
	ip[1] |= ECN_CE;
	ip[10] = (uint8_t)(hc >> 8);
	ip[11] = (uint8_t)hc;
	return ECN_MARKED;
}

static int mark_ipv6(uint8_t *ip, uint32_t avail)
{
	/* version(4) | traffic class(8) | flow label(20): the ECN bits are
	 * bits 4-5 of the second byte */
	if (avail < 40 || ip[0] >> 4 != 6)
		return ECN_UNMARKABLE;
	switch ((ip[1] >> 4) & 3) {
	case ECN_NOT_ECT:
		return ECN_WAS_NOT_ECT;
	case ECN_CE:
		return ECN_WAS_CE;
	}
	ip[1] |= ECN_CE << 4;
	return ECN_MARKED;
}

int ecn_mark_ce(uint8_t *frame, uint32_t len, unsigned int l3,
		unsigned int l3off)
{
	uint32_t avail;

	if (!frame || l3off >= len)
		return ECN_UNMARKABLE;
	avail = len - l3off;
	switch (l3) {
	case ECN_L3_IPV4:
		return mark_ipv4(frame + l3off, avail);
	case ECN_L3_IPV6:
		return mark_ipv6(frame + l3off, avail);
	default:
		return ECN_UNMARKABLE;
	}
}

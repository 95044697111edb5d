// SPDX-License-Identifier: BSD-2-Clause
/*
 * ecn.c - see ecn.h.
 */
#include <errno.h>
#include <stddef.h>
#include "ecn.h"
#include "ip_tos.h"

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

int ecn_mark_ce(uint8_t *frame, uint32_t len, unsigned int l3,
		unsigned int l3off)
{
	int tos = ip_tos_read(frame, len, l3, l3off);

	if (tos < 0)
		return ECN_UNMARKABLE;
	switch (tos & 3) {
	case ECN_NOT_ECT:
		return ECN_WAS_NOT_ECT;
	case ECN_CE:
		return ECN_WAS_CE;
	}
	ip_tos_write(frame, l3, l3off, (uint8_t)(tos | ECN_CE));
	return ECN_MARKED;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * roce_udp.c - RoCEv2 ICRC for UDP payloads; see roce_udp.h.
 */
#include "roce_udp.h"

#include <string.h>
#include <netinet/in.h>
#include "roce.h"

static void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

size_t roce_udp_pseudo_len(int family)
{
	return family == 4 ? 28 : 48;
}

void roce_udp_pseudo_hdr(uint8_t *h, const struct roce_udp_ep *src,
			 const struct roce_udp_ep *dst, size_t n)
{
	uint8_t *udp = h + roce_udp_pseudo_len(src->family) - 8;

	memset(h, 0, roce_udp_pseudo_len(src->family));
	if (src->family == 4) {
		h[0] = 0x45;
		wr16(h + 2, (uint32_t)(20 + 8 + n));
		wr16(h + 6, 0x4000); /* DF; identification 0 */
		h[9] = IPPROTO_UDP;
		memcpy(h + 12, src->addr, 4);
		memcpy(h + 16, dst->addr, 4);
	} else {
		h[0] = 0x60;
		wr16(h + 4, (uint32_t)(8 + n));
		h[6] = IPPROTO_UDP;
		memcpy(h + 8, src->addr, 16);
		memcpy(h + 24, dst->addr, 16);
	}
	wr16(udp, src->port);
	wr16(udp + 2, dst->port);
	wr16(udp + 4, (uint32_t)(8 + n));
}

/* The ICRC p[0..n) should carry (its last 4 bytes excluded). */
static bool icrc_of(uint8_t *p, size_t n, const struct roce_udp_ep *src,
		    const struct roce_udp_ep *dst, uint32_t *crc)
{
	size_t hl = roce_udp_pseudo_len(src->family);

	if (n < BTH_LEN + ROCE_ICRC_LEN || src->family != dst->family)
		return false;
	roce_udp_pseudo_hdr(p - hl, src, dst, n);
	return roce_icrc(p - hl, hl + n - ROCE_ICRC_LEN, src->family, crc);
}

bool roce_udp_seal(uint8_t *p, size_t n, const struct roce_udp_ep *src,
		   const struct roce_udp_ep *dst)
{
	uint32_t crc;

	if (!icrc_of(p, n, src, dst, &crc))
		return false;
	roce_icrc_put(p + n - ROCE_ICRC_LEN, crc);
	return true;
}

bool roce_udp_icrc_ok(uint8_t *p, size_t n, const struct roce_udp_ep *src,
		      const struct roce_udp_ep *dst)
{
	uint32_t crc;

	return icrc_of(p, n, src, dst, &crc) &&
	       roce_icrc_get(p + n - ROCE_ICRC_LEN) == crc;
}

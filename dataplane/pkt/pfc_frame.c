// SPDX-License-Identifier: BSD-2-Clause
/*
 * pfc_frame.c - see pfc_frame.h. Pure: no I/O, no state.
 */
#include <string.h>
#include "pfc_frame.h"

const uint8_t pfc_dst_mac[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

size_t pfc_build(uint8_t *buf, size_t cap, const uint8_t src_mac[6],
		 uint8_t vector, const uint16_t quanta[PFC_PRIOS])
{
	if (cap < PFC_FRAME_LEN)
		return 0;
	memset(buf, 0, PFC_FRAME_LEN);
	memcpy(buf, pfc_dst_mac, 6);
	memcpy(buf + 6, src_mac, 6);
	put16(buf + 12, PFC_ETHERTYPE);
	put16(buf + 14, PFC_OPCODE);
	put16(buf + 16, vector);
	for (unsigned int p = 0; p < PFC_PRIOS; p++)
		put16(buf + 18 + 2 * p, (vector >> p & 1) ? quanta[p] : 0);
	return PFC_FRAME_LEN;
}

int pfc_parse(const uint8_t *buf, size_t len, struct pfc_frame *out)
{
	if (!pfc_is_mac_control(buf, len))
		return PFC_ERR_NOT_MAC_CONTROL;
	if (len < PFC_FRAME_LEN || len > PFC_FRAME_MAX_LEN)
		return PFC_ERR_LEN;
	if (memcmp(buf, pfc_dst_mac, 6))
		return PFC_ERR_DST;
	if (get16(buf + 14) != PFC_OPCODE)
		return PFC_ERR_OPCODE;
	out->vector = buf[17]; /* buf[16]: reserved, ignored */
	for (unsigned int p = 0; p < PFC_PRIOS; p++)
		out->quanta[p] =
			(out->vector >> p & 1) ? get16(buf + 18 + 2 * p) : 0;
	return PFC_OK;
}

uint64_t pfc_quanta_ns(uint32_t quanta, uint64_t link_bps)
{
	unsigned __int128 bits_ns =
		(unsigned __int128)quanta * PFC_QUANTUM_BITS * 1000000000ull;

	if (!link_bps)
		link_bps = 1;
	return (uint64_t)((bits_ns + link_bps - 1) / link_bps);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pkt_build.h - frames built by hand for the unit tests: IPv4 TCP segments
 * (with or without the timestamps option) and RoCEv2 packets between
 * 10.0.0.a and 10.0.0.b. Each builder writes into a zeroed 2048-byte
 * buffer and returns the frame's length.
 */
#ifndef XDPLANE_TEST_PKT_BUILD_H
#define XDPLANE_TEST_PKT_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "bits.h"
#include "pkt_parse.h"
#include "roce.h"

static inline void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, v >> 16);
	wr16(p + 2, v);
}

/* IPv4 TCP frame a -> b with timestamps (unless tsval and tsecr are 0). */
static inline uint32_t tcp_frame(uint8_t *f, uint8_t a, uint8_t b,
				 uint16_t sport, uint16_t dport, uint32_t seq,
				 uint32_t ack, uint8_t flags, uint32_t tsval,
				 uint32_t tsecr, uint32_t payload)
{
	uint32_t th = (tsval || tsecr) ? 32 : 20;

	memset(f, 0, 2048);
	wr16(f + 12, ETHERTYPE_IPV4);
	f[14] = 0x45;
	wr16(f + 16, 20 + th + payload);
	f[22] = 64;
	f[23] = 6;
	memcpy(f + 26, "\x0a\x00\x00", 3);
	f[29] = a;
	memcpy(f + 30, "\x0a\x00\x00", 3);
	f[33] = b;
	wr16(f + 34, sport);
	wr16(f + 36, dport);
	wr32(f + 38, seq);
	wr32(f + 42, ack);
	f[46] = (uint8_t)((th / 4) << 4);
	f[47] = flags;
	if (th > 20) {
		f[54] = 1;
		f[55] = 1;
		f[56] = 8;
		f[57] = 10;
		wr32(f + 58, tsval);
		wr32(f + 62, tsecr);
	}
	return MAX(14 + 20 + th + payload, 60u);
}

/* IPv4 RoCEv2 frame a -> b: BTH opcode op, then RETH (WRITE FIRST/ONLY,
 * READ) or AETH (ACK) if aeth, payload, ICRC. */
static inline uint32_t roce_frame(uint8_t *f, uint8_t a, uint8_t b, uint8_t op,
				  uint32_t dqpn, uint32_t psn, bool ackreq,
				  uint32_t payload, int aeth)
{
	uint32_t ext = 0, ulen;

	if (op == 0x06 || op == 0x0a || op == 0x0c)
		ext = 16;
	if (aeth >= 0)
		ext = 4;
	ulen = 8 + 12 + ext + payload + 4;
	memset(f, 0, 2048);
	wr16(f + 12, ETHERTYPE_IPV4);
	f[14] = 0x45;
	wr16(f + 16, 20 + ulen);
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\x0a\x00\x00", 3);
	f[29] = a;
	memcpy(f + 30, "\x0a\x00\x00", 3);
	f[33] = b;
	wr16(f + 34, 0xc000);
	wr16(f + 36, ROCEV2_UDP_PORT);
	wr16(f + 38, ulen);
	f[42] = op;
	wr16(f + 44, 0xffff);
	f[47] = (uint8_t)(dqpn >> 16);
	wr16(f + 48, dqpn & 0xffff);
	f[50] = ackreq ? 0x80 : 0;
	f[51] = (uint8_t)(psn >> 16);
	wr16(f + 52, psn & 0xffff);
	if (aeth >= 0)
		f[54] = (uint8_t)aeth;
	return 14 + 20 + ulen;
}

#endif

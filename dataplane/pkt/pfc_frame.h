/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pfc_frame.h - the IEEE 802.1Qbb priority-based flow control frame:
 * its layout, parser and builder, and the length of a pause quantum. A
 * wire format, no state: any thread may call any of it. The pause state
 * and the XOFF/XON hysteresis that use it are in sched/pfc.h.
 *
 * The frame (untagged; bytes as on the wire, without the FCS):
 *   0  DA 01:80:c2:00:00:01     6  SA              12 EtherType 0x8808
 *  14  opcode 0x0101           16  class-enable vector (high byte reserved,
 *                                  bit n of the low byte = priority n)
 *  18  time[0..7], 8 x 16 bit big-endian, in pause quanta
 *  34  26 bytes of zero padding -> 60 bytes (64 with the FCS)
 * One quantum is 512 bit times at the link speed (51.2 ns at 10 Gbit/s,
 * 20.48 ns at 25 Gbit/s, 5.12 ns at 100 Gbit/s); time 0 means resume (XON).
 * The parser accepts 60..64 bytes (64: a driver that keeps the FCS), the
 * destination 01:80:c2:00:00:01 only, opcode 0x0101 only, ignores the
 * reserved byte of the vector and a time whose vector bit is clear, and
 * never reads past len.
 */
#ifndef XDPLANE_PFC_FRAME_H
#define XDPLANE_PFC_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PFC_PRIOS 8
#define PFC_FRAME_LEN 60 /* without the FCS */
#define PFC_FRAME_MAX_LEN 64 /* with it */
#define PFC_ETHERTYPE 0x8808
#define PFC_OPCODE 0x0101
#define PFC_QUANTUM_BITS 512
#define PFC_MAX_QUANTA 0xffff

extern const uint8_t pfc_dst_mac[6];

/* A parsed frame: vector bit n = priority n; quanta[n] its time. */
struct pfc_frame {
	uint8_t vector;
	uint16_t quanta[PFC_PRIOS];
};

enum pfc_parse_rc {
	PFC_OK = 0,
	PFC_ERR_NOT_MAC_CONTROL = 1, /* EtherType is not 0x8808 (or < 14 B) */
	PFC_ERR_LEN = 2, /* not 60..64 bytes */
	PFC_ERR_DST = 3, /* DA is not 01:80:c2:00:00:01 */
	PFC_ERR_OPCODE = 4, /* not 0x0101 (0x0001: 802.3x PAUSE) */
};

/* Is this a MAC Control frame (EtherType 0x8808 at offset 12)? */
static inline bool pfc_is_mac_control(const uint8_t *buf, size_t len)
{
	return len >= 14 && buf[12] == 0x88 && buf[13] == 0x08;
}

/* Write a PFC frame (PFC_FRAME_LEN bytes) into buf: quanta[n] is sent for
 * every priority n whose vector bit is set, 0 for the others. Returns
 * PFC_FRAME_LEN, or 0 if cap is too small. */
size_t pfc_build(uint8_t *buf, size_t cap, const uint8_t src_mac[6],
		 uint8_t vector, const uint16_t quanta[PFC_PRIOS]);
/* Parse buf[0..len): enum pfc_parse_rc; *out is written only on PFC_OK. */
int pfc_parse(const uint8_t *buf, size_t len, struct pfc_frame *out);

/* Duration of `quanta` pause quanta at link_bps, in ns, rounded up
 * (link_bps 0 counts as 1 bit/s: no division by zero). */
uint64_t pfc_quanta_ns(uint32_t quanta, uint64_t link_bps);

#endif

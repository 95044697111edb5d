/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ip_tos.h - reading and rewriting the IPv4 TOS byte / IPv6 traffic class
 * of a frame in place: the one place that knows where the byte is and how
 * the IPv4 header checksum follows it (RFC 1624 eqn. 3, incremental). The
 * ECN marker (sched/ecn.c) and the DSCP remarker (pkt/remark.c) both go
 * through it.
 *
 * The TOS byte / traffic class is DSCP (6 bits) | ECN (2 bits). No upper
 * layer checksum covers it (the TCP/UDP pseudo-header has neither), so
 * only the IPv4 header checksum changes.
 *
 * l3: 1 IPv4, 2 IPv6 (enum pkt_l3, enum ecn_l3 and the meta's L3 kind
 * agree); l3off: offset of the L3 header from the frame start; len: the
 * bytes of the frame that may be read and written (the first frame of a
 * chain). Every read and write stays inside [frame, frame + len).
 *
 * Pure inline arithmetic on memory the caller owns: any thread, no
 * system calls.
 */
#ifndef XDPLANE_IP_TOS_H
#define XDPLANE_IP_TOS_H

#include <stdint.h>

#define IP_TOS_L3_IPV4 1
#define IP_TOS_L3_IPV6 2
#define IP_TOS_ECN_MASK 0x03u
#define IP_TOS_DSCP_MASK 0xfcu

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), 16-bit one's complement. */
static inline uint16_t ip_csum_replace16(uint16_t hc, uint16_t old,
					 uint16_t new)
{
	uint32_t sum = (uint16_t)~hc + (uint32_t)(uint16_t)~old + new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The TOS byte (IPv4) or traffic class (IPv6) of the L3 header at l3off,
 * or -1 when there is none there: another L3 kind, the version field
 * disagrees, or the header (IPv4: its IHL; IPv6: 40 bytes) does not fit
 * in len. */
static inline int ip_tos_read(const uint8_t *frame, uint32_t len,
			      unsigned int l3, unsigned int l3off)
{
	const uint8_t *ip;
	uint32_t avail;

	if (!frame || l3off >= len)
		return -1; /* (and no pointer arithmetic on NULL) */
	ip = frame + l3off;
	avail = len - l3off;
	if (l3 == IP_TOS_L3_IPV4) {
		unsigned int ihl = (ip[0] & 0xfu) * 4;

		if (avail < 20 || ip[0] >> 4 != 4 || ihl < 20 || ihl > avail)
			return -1;
		return ip[1];
	}
	if (l3 == IP_TOS_L3_IPV6) {
		/* version(4) | traffic class(8) | flow label(20) */
		if (avail < 40 || ip[0] >> 4 != 6)
			return -1;
		return (ip[0] & 0xf) << 4 | ip[1] >> 4;
	}
	return -1;
}

/* Write tos into a header ip_tos_read() accepted (same arguments): IPv4
 * with the header checksum updated incrementally, IPv6 leaving the
 * version and the flow label as they are. */
static inline void ip_tos_write(uint8_t *frame, unsigned int l3,
				unsigned int l3off, uint8_t tos)
{
	uint8_t *ip = frame + l3off;

	if (l3 == IP_TOS_L3_IPV4) {
		/* the TOS byte is the low half of the first 16-bit word */
		uint16_t old = (uint16_t)(ip[0] << 8 | ip[1]);
		uint16_t new = (uint16_t)(ip[0] << 8 | tos);
		uint16_t hc = (uint16_t)(ip[10] << 8 | ip[11]);

		hc = ip_csum_replace16(hc, old, new);
		ip[1] = tos;
		ip[10] = (uint8_t)(hc >> 8);
		ip[11] = (uint8_t)hc;
	} else {
		ip[0] = (uint8_t)((ip[0] & 0xf0) | tos >> 4);
		ip[1] = (uint8_t)((ip[1] & 0x0f) | (tos & 0xf) << 4);
	}
}

#endif

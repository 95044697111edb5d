/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * roce.h - RoCEv2 wire formats: BTH field access, the CNP frame builder and
 * the ICRC (invariant CRC) for IPv4 and IPv6, with or without one VLAN tag.
 * Pure functions: no allocation, no global state, no I/O; any thread may
 * call them on buffers it owns. Sources: InfiniBand Architecture
 * Specification Vol. 1, Annex A17 (RoCEv2; CNP in A17.9.3); scapy's
 * scapy/contrib/roce.py (BTH fields, compute_icrc); the golden CNP of
 * acsl-technion/libconntrack-cm tests/test_cnp.cpp.
 *
 * RoCEv2 packet: Ethernet [802.1Q] | IPv4 or IPv6 | UDP (dport 4791) |
 * BTH (12 bytes) | [extension headers] | payload | ICRC (4 bytes).
 *
 * BTH (big-endian): byte 0 opcode; 1 SE/M/PadCnt/TVer; 2-3 P_Key; 4 FECN
 * (0x80), BECN (0x40); 5-7 destination QP; 8 AckReq (0x80); 9-11 PSN.
 *
 * ICRC: CRC-32 (IEEE 802.3, zlib's crc32()) over a pseudo packet of 8 bytes
 * 0xff (standing for the InfiniBand LRH), then the IP header with its
 * variant fields set to all ones (IPv4: TOS, TTL, header checksum; IPv6:
 * traffic class, flow label, hop limit), the UDP header with checksum
 * 0xffff, the BTH with byte 4 (FECN, BECN, reserved) 0xff, and everything
 * after the BTH up to the ICRC. The CRC value is stored least-significant
 * byte first: CRC 0xef1bfcda goes on the wire as da fc 1b ef. The L2
 * header (MACs, VLAN tag, PCP) is outside the ICRC, so a switch re-tagging
 * or a NIC stripping a tag does not change it.
 *
 * Not supported (the functions refuse them): IPv6 extension headers
 * between the IPv6 and the UDP header, IP fragments.
 *
 * Invariants: every reader takes the length of its buffer and never reads
 * at or past it; every writer takes the capacity of its buffer and writes
 * nothing when the result would not fit.
 */
#ifndef XDPLANE_ROCE_H
#define XDPLANE_ROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pkt_parse.h"

/* ROCEV2_UDP_PORT (4791), BTH_LEN (12) and BTH_OPCODE_CNP come from
 * pkt_parse.h. */
#define ROCE_ICRC_LEN 4
#define ROCE_AETH_LEN 4 /* after the BTH of an ACK: syndrome, 24-bit MSN */
#define ROCE_RETH_LEN 16 /* after the BTH of a WRITE FIRST / ONLY */
#define ROCE_CNP_PAD_LEN 16 /* reserved zero bytes after a CNP's BTH */
#define ROCE_PKEY_DEFAULT 0xffff
#define ROCE_QPN_MASK 0xffffffu
#define ROCE_PSN_MASK 0xffffffu
#define ROCE_AETH_SYNDROME_ACK 0x1f /* ACK, credit count "invalid" */

/* BTH opcodes used here (top 3 bits: transport; RC is 000). */
enum bth_opcode {
	BTH_OP_RC_SEND_ONLY = 0x04,
	BTH_OP_RC_WRITE_ONLY = 0x0a,
	BTH_OP_RC_ACK = 0x11,
	BTH_OP_CNP = BTH_OPCODE_CNP, /* 0x81 */
};

/* CNP defaults: ConnectX firmware (cnp_dscp, cnp_802p_prio). ECN Not-ECT
 * so that no CP marks a CNP; the UDP source port of libconntrack-cm. */
#define ROCE_CNP_DSCP_DEFAULT 48
#define ROCE_CNP_PCP_DEFAULT 6
#define ROCE_CNP_ECN_DEFAULT 0
#define ROCE_CNP_TTL_DEFAULT 64
#define ROCE_CNP_SPORT_DEFAULT 0xf000

/* The length of a CNP frame: Ethernet 14 [+ 4 for a tag] + IP (20 or 40) +
 * UDP 8 + BTH 12 + 16 reserved + ICRC 4, without FCS. */
#define ROCE_CNP_L4_LEN (8 + BTH_LEN + ROCE_CNP_PAD_LEN + ROCE_ICRC_LEN)
#define ROCE_CNP_LEN_V4 (14 + 20 + ROCE_CNP_L4_LEN) /* 74 */
#define ROCE_CNP_LEN_V6 (14 + 40 + ROCE_CNP_L4_LEN) /* 94 */
#define ROCE_CNP_MAX_LEN (ROCE_CNP_LEN_V6 + 4) /* tagged IPv6: 98 */

/* ---- BTH fields: p points at the 12-byte BTH ---- */

static inline uint8_t bth_opcode(const uint8_t *p)
{
	return p[0];
}

static inline uint16_t bth_pkey(const uint8_t *p)
{
	return (uint16_t)(p[2] << 8 | p[3]);
}

static inline bool bth_becn(const uint8_t *p)
{
	return p[4] & 0x40;
}

static inline bool bth_fecn(const uint8_t *p)
{
	return p[4] & 0x80;
}

static inline uint32_t bth_dqpn(const uint8_t *p)
{
	return (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
}

static inline bool bth_ackreq(const uint8_t *p)
{
	return p[8] & 0x80;
}

static inline uint32_t bth_psn(const uint8_t *p)
{
	return (uint32_t)p[9] << 16 | (uint32_t)p[10] << 8 | p[11];
}

/* Flags for bth_write(). */
enum bth_write_flag {
	BTH_W_BECN = 1u << 0,
	BTH_W_ACKREQ = 1u << 1,
	BTH_W_MIGREQ = 1u << 2, /* M: 1 for RC once migrated (APM); data
				 * senders commonly set it */
};

/*
 * Write a 12-byte BTH at p: opcode, SE 0, PadCnt 0, TVer 0, P_Key pkey,
 * FECN 0, the flags (enum bth_write_flag), destination QP dqpn and PSN psn
 * (both masked to 24 bits).
 */
void bth_write(uint8_t *p, uint8_t opcode, uint16_t pkey, uint32_t dqpn,
	       uint32_t psn, unsigned int flags);

/* The BTH of a frame that pkt_parse() parsed into m with PKT_F_BTH set
 * (the parser checked that its 12 bytes are inside the frame); NULL
 * otherwise. */
static inline const uint8_t *roce_bth(const uint8_t *frame,
				      const struct pkt_meta *m)
{
	if (!(m->flags & PKT_F_BTH))
		return NULL;
	return frame + m->l4_off + 8;
}

/* ---- ICRC ---- */

/*
 * The ICRC of a RoCEv2 packet whose IP header starts at l3; l3_len counts
 * the bytes up to, not including, the ICRC (the IP header, UDP header, BTH
 * and payload). family is 4 or 6. On success, *icrc is the CRC-32 value
 * (0xef1bfcda for the anchors' golden vector; roce_icrc_put() stores it).
 * False, *icrc untouched, when family is neither, when l3_len cannot hold
 * the IP header (IPv4: IHL, at least 5 words), a UDP header and a BTH, or
 * when the IP header does not say UDP (protocol / next header 17).
 */
bool roce_icrc(const uint8_t *l3, size_t l3_len, int family, uint32_t *icrc);

/* Store / load an ICRC value in wire order (least-significant byte first). */
static inline void roce_icrc_put(uint8_t *p, uint32_t icrc)
{
	p[0] = (uint8_t)icrc;
	p[1] = (uint8_t)(icrc >> 8);
	p[2] = (uint8_t)(icrc >> 16);
	p[3] = (uint8_t)(icrc >> 24);
}

static inline uint32_t roce_icrc_get(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * Check the trailing ICRC of frame[0..len), which pkt_parse() parsed into m
 * (returning PKT_OK). The packet ends where the UDP length says (Ethernet
 * padding after it is ignored); its last 4 bytes are the ICRC. False when
 * the frame is not a RoCEv2 packet (no PKT_F_BTH), is a fragment, has IPv6
 * extension headers, has a UDP length that is shorter than UDP + BTH +
 * ICRC or runs past the IP datagram, or when the ICRC does not match.
 */
bool roce_icrc_check(const uint8_t *frame, uint32_t len,
		     const struct pkt_meta *m);

/* pkt_parse() then roce_icrc_check(): false also for a malformed frame. */
bool roce_icrc_valid(const uint8_t *frame, size_t len);

/* ---- CNP ---- */

/*
 * What a CNP carries. Addresses in network order (IPv4: the first 4 bytes
 * of src_ip / dst_ip), numbers in host order. roce_cnp_spec_default() sets
 * the defaults named above (DSCP 48, PCP 6, Not-ECT, TTL 64, UDP source
 * port 0xf000, IP ID 0, flow label 0, no tag, IPv4) and zeroes the rest.
 */
struct cnp_spec {
	uint8_t dst_mac[6], src_mac[6];
	bool vlan; /* one 802.1Q tag (TPID 0x8100) */
	uint16_t vid; /* 0..4095 */
	uint8_t pcp; /* 0..7 */
	int family; /* 4 or 6 */
	uint8_t src_ip[16], dst_ip[16];
	uint8_t dscp; /* 0..63 */
	uint8_t ecn; /* 0..3 */
	uint8_t ttl; /* IPv4 TTL / IPv6 hop limit */
	uint16_t ip_id; /* IPv4 identification (sent with DF set) */
	uint32_t flow_label; /* IPv6, 0..0xfffff */
	uint16_t udp_sport;
	uint32_t dest_qpn; /* the QP of the sender (RP) of the flow */
};

void roce_cnp_spec_default(struct cnp_spec *s);

/*
 * Build a CNP frame (without FCS) at frame[0..cap) from s. Returns its
 * length (ROCE_CNP_LEN_V4 or _V6, + 4 with a tag), or 0, writing nothing,
 * when cap is too small or a field of s is out of range (family, vid, pcp,
 * dscp, ecn, flow_label, dest_qpn > 24 bits).
 *
 * IPv4: DF set, identification s->ip_id, header checksum filled, UDP
 * checksum 0 (allowed over IPv4; the ICRC protects the packet). IPv6: the
 * UDP checksum is computed (RFC 8200 forbids 0; Linux drops such
 * datagrams). BTH: opcode 0x81, P_Key 0xffff, BECN 1, destination QP
 * s->dest_qpn, AckReq 0, PSN 0; then 16 zero bytes and the ICRC.
 */
size_t roce_build_cnp(uint8_t *frame, size_t cap, const struct cnp_spec *s);

#endif

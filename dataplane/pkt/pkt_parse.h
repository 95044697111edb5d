/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pkt_parse.h - parse one received Ethernet frame into a compact struct
 * pkt_meta: VLAN tags, L3 (IPv4 / IPv6 with extension headers), TCP/UDP
 * ports and the RoCEv2 BTH (opcode, destination QP, PSN, BECN / FECN /
 * AckReq; roce.h builds and checks whole RoCEv2 packets). Hot path: no
 * allocation, no division, and never a read at or past frame + len.
 *
 * What "well-formed" means here: every header the parser needs is entirely
 * inside the frame, and inside the IP datagram for what follows the IP
 * header (L4 headers are bounded by the IPv4 total length / IPv6 payload
 * length, not by the frame: Ethernet padding after the datagram is fine and
 * is never read as a header), and the L4 length fields do not lie: a UDP
 * length is at least 8 and not past the datagram, a TCP data offset is at
 * least 5 and its header not past the datagram (in a first fragment, the
 * upper bounds are not checked: the rest follows in other fragments). A
 * UDP length below the datagram's L4 bytes is fine (trailing bytes). A
 * frame that is not IP (ARP, LLDP, ...) or an IP packet with an
 * upper-layer protocol the parser does not look into is well-formed (L3
 * none, or no L4 ports).
 *
 * On a malformed frame, pkt_parse() returns the reason and leaves the fields
 * it had parsed before finding the fault in *m (everything else zero); the
 * caller applies the policy's malformed rule (see qos.h).
 */
#ifndef XDPLANE_PKT_PARSE_H
#define XDPLANE_PKT_PARSE_H

#include <stdint.h>

#define ETH_HLEN_MIN 14
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_ARP 0x0806
#define ETHERTYPE_VLAN 0x8100 /* 802.1Q C-tag */
#define ETHERTYPE_QINQ 0x88a8 /* 802.1ad S-tag */
#define ETHERTYPE_IPV6 0x86dd
#define PKT_MAX_VLAN 2 /* tags parsed; a third one is the "innermost type" */
#define PKT_MAX_EXTHDR 8 /* IPv6 extension headers walked, at most */
#define ROCEV2_UDP_PORT 4791
#define BTH_LEN 12
#define BTH_OPCODE_CNP 0x81

/* Why a frame is malformed; 0 is "well-formed". */
enum pkt_malformed {
	PKT_OK = 0,
	PKT_MALFORMED_RUNT, /* shorter than an Ethernet header (14) */
	PKT_MALFORMED_VLAN_TRUNCATED, /* a VLAN tag cut by the frame end */
	PKT_MALFORMED_IPV4_TRUNCATED, /* fewer than 20 bytes of IPv4 header */
	PKT_MALFORMED_IPV4_VERSION, /* ethertype IPv4, version field not 4 */
	PKT_MALFORMED_IPV4_BAD_IHL, /* IHL < 5, or header past the frame */
	PKT_MALFORMED_IPV4_BAD_TOTLEN, /* total length > frame, or < header */
	PKT_MALFORMED_IPV6_TRUNCATED, /* fewer than 40 bytes of IPv6 header */
	PKT_MALFORMED_IPV6_VERSION, /* ethertype IPv6, version field not 6 */
	PKT_MALFORMED_IPV6_BAD_PLEN, /* payload length past the frame */
	PKT_MALFORMED_EXTHDR_TRUNCATED, /* extension header past the payload */
	PKT_MALFORMED_EXTHDR_TOO_LONG, /* more than PKT_MAX_EXTHDR headers */
	PKT_MALFORMED_TCP_TRUNCATED, /* fewer than 20 bytes of TCP header */
	PKT_MALFORMED_UDP_TRUNCATED, /* fewer than 8 bytes of UDP header */
	PKT_MALFORMED_BTH_TRUNCATED, /* UDP 4791, fewer than 12 bytes of BTH
				      * (in the frame or in the UDP length) */
	PKT_MALFORMED_UDP_BAD_LEN, /* UDP length < 8 (0 too: no IPv6
				    * jumbograms), or past the IP datagram */
	PKT_MALFORMED_TCP_BAD_DOFF, /* TCP data offset < 5, or its header
				     * past the IP datagram */
	PKT_MALFORMED_MAX /* size of a per-reason counter array */
};

enum pkt_l3 {
	PKT_L3_NONE = 0,
	PKT_L3_IPV4,
	PKT_L3_IPV6,
};

/* pkt_meta.flags: what the frame carries (the classifier tests these). */
enum pkt_flag {
	PKT_F_VLAN = 1u << 0, /* at least one tag: vlan_id, pcp valid */
	PKT_F_QINQ = 1u << 1, /* two tags (vlan_id, pcp: outer tag) */
	PKT_F_IP = 1u << 2, /* IPv4 or IPv6: addresses, dscp, ecn, proto */
	PKT_F_IPV4 = 1u << 3,
	PKT_F_IPV6 = 1u << 4,
	PKT_F_PORTS = 1u << 5, /* TCP or UDP header: sport, dport */
	PKT_F_BTH = 1u << 6, /* RoCEv2 BTH: bth_opcode, bth_dqpn, bth_psn,
			      * bth_flags */
	PKT_F_FRAG = 1u << 7, /* a fragment (first or not) */
};

/* pkt_meta.bth_flags: single-bit BTH fields (byte 4: FECN, BECN; byte 8:
 * AckReq). In RoCEv2, BECN is set in CNPs only. */
enum pkt_bth_flag {
	PKT_BTH_BECN = 1u << 0,
	PKT_BTH_FECN = 1u << 1,
	PKT_BTH_ACKREQ = 1u << 2,
};

/*
 * 64 bytes: one cache line. Multi-byte fields are in host order,
 * addresses in network order. IPv4 addresses are in the first 4 bytes of
 * src/dst, the other 12 are zero. Fields of a header the frame does not
 * carry are zero.
 */
struct pkt_meta {
	uint8_t src[16]; /* L3 source address */
	uint8_t dst[16]; /* L3 destination address */
	uint16_t ethertype; /* innermost, after up to PKT_MAX_VLAN tags */
	uint16_t vlan_id; /* outermost tag's VID */
	uint16_t l3_off; /* first byte after the tags (the L3 header if any) */
	uint16_t l4_off; /* upper-layer header; 0: none (non-IP, non-first
			  * fragment) */
	uint16_t sport, dport; /* TCP/UDP (PKT_F_PORTS) */
	uint32_t bth_dqpn; /* BTH destination QP, 24 bits (PKT_F_BTH) */
	uint32_t bth_psn; /* BTH packet sequence number, 24 bits */
	uint8_t flags; /* enum pkt_flag */
	uint8_t l3; /* enum pkt_l3 */
	uint8_t pcp; /* outermost tag's priority */
	uint8_t proto; /* IPv4 protocol / IPv6 upper-layer next header */
	uint8_t dscp; /* 6 bits */
	uint8_t ecn; /* 2 bits */
	uint8_t bth_opcode; /* (PKT_F_BTH) */
	uint8_t n_vlan; /* tags parsed: 0..PKT_MAX_VLAN */
	uint8_t bth_flags; /* enum pkt_bth_flag (PKT_F_BTH) */
	uint8_t pad_[3]; /* zero */
};

/* Parse frame[0..len). Returns PKT_OK (0) or an enum pkt_malformed. */
int pkt_parse(const uint8_t *frame, uint32_t len, struct pkt_meta *m);

/* A packet of len bytes of which only frame[0..head) can be read (the
 * first frame of a multi-buffer chain, frame_chain.h): the IP lengths are
 * checked against len, every header read against head. A header that
 * crosses head is reported as truncated (the reason of the header it
 * cut). */
int pkt_parse_head(const uint8_t *frame, uint32_t head, uint32_t len,
		   struct pkt_meta *m);

/* Short name of a reason for counters ("runt", ...); "ok" for 0, "?" for
 * a value out of range. */
const char *pkt_malformed_name(int reason);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pkt_tcp.h - the TCP facts of one frame that passive path measurement
 * needs (path/pathmon.h): sequence and acknowledgment numbers, flags,
 * header and payload lengths, and the timestamps option (RFC 7323).
 *
 * Called only when needed, on a frame that pkt_parse() (or
 * pkt_parse_head()) already parsed into a struct pkt_meta: the hot parser
 * and its 64-byte pkt_meta stay as they are. Pure: no state, no
 * allocation; any thread may call it on a buffer it owns.
 *
 * Bounds: frame[0..len) is what may be read (the frame, or the first
 * buffer of a multi-buffer chain). The IP header at m->l3_off is read again
 * for the datagram's length; the TCP header (with its options) must lie
 * entirely inside both the readable bytes and the IP datagram, else the
 * frame is refused with a reason. The options are walked inside the TCP
 * header only, never at or past frame + len or the header's end.
 *
 * Payload length: from the IPv4 total length / IPv6 payload length, not
 * from the frame (Ethernet padding after a short datagram is not payload):
 * datagram end - TCP header end. IPv6 extension headers between the IPv6
 * and the TCP header are not payload (m->l4_off is after them).
 *
 * Options: EOL ends the walk, NOP is one byte, every other kind has a
 * length byte >= 2 that must keep the option inside the header. A
 * malformed option list (length 0 or 1, an option running past the
 * header end, a timestamps option whose length is not 10, two timestamps
 * options) stops the walk and sets PKT_TCP_O_BAD: the frame then has no
 * timestamps, which is not an error of the packet (it is still forwarded
 * and its other fields are valid).
 */
#ifndef XDPLANE_PKT_TCP_H
#define XDPLANE_PKT_TCP_H

#include <stdbool.h>
#include <stdint.h>
#include "pkt_parse.h"

#define TCP_HLEN_MIN 20
#define TCP_HLEN_MAX 60
#define TCPOPT_EOL 0
#define TCPOPT_NOP 1
#define TCPOPT_MSS 2
#define TCPOPT_WSCALE 3
#define TCPOPT_SACK_PERM 4
#define TCPOPT_SACK 5
#define TCPOPT_TIMESTAMP 8
#define TCPOLEN_TIMESTAMP 10

/* struct pkt_tcp.flags: byte 13 of the TCP header. */
enum pkt_tcp_flag {
	PKT_TCP_FIN = 0x01,
	PKT_TCP_SYN = 0x02,
	PKT_TCP_RST = 0x04,
	PKT_TCP_PSH = 0x08,
	PKT_TCP_ACK = 0x10,
	PKT_TCP_URG = 0x20,
	PKT_TCP_ECE = 0x40,
	PKT_TCP_CWR = 0x80,
};

/* struct pkt_tcp.opts: what the option walk found. */
enum pkt_tcp_opt {
	PKT_TCP_O_TS = 1u << 0, /* timestamps option: tsval, tsecr valid */
	PKT_TCP_O_SACK = 1u << 1, /* a SACK block option */
	PKT_TCP_O_BAD = 1u << 2, /* malformed options: walk stopped, no TS */
};

/* Why pkt_tcp_read() refused a frame; 0 is "read". */
enum pkt_tcp_err {
	PKT_TCP_OK = 0,
	PKT_TCP_NOT_TCP, /* no TCP header: not IP, not protocol 6, no
			  * PKT_F_PORTS, or l4_off 0 */
	PKT_TCP_FRAGMENT, /* an IP fragment: its length is not the
			   * segment's */
	PKT_TCP_BAD_LEN, /* the IP lengths do not hold the TCP header (data
			  * offset < 5, header past the datagram, offsets
			  * of m inconsistent with the IP header) */
	PKT_TCP_TRUNCATED, /* the TCP header with its options is not
			    * entirely in frame[0..len) */
	PKT_TCP_ERR_MAX
};

/* Multi-byte fields in host order. */
struct pkt_tcp {
	uint32_t seq, ack; /* ack: meaningful with PKT_TCP_ACK */
	uint32_t tsval, tsecr; /* with PKT_TCP_O_TS, else 0 */
	uint32_t payload_len; /* datagram end - TCP header end */
	uint16_t hdr_len; /* TCP header with options: 20..60 */
	uint16_t window; /* raw, unscaled */
	uint8_t flags; /* enum pkt_tcp_flag */
	uint8_t opts; /* enum pkt_tcp_opt */
	uint8_t pad_[2];
};

/*
 * Read the TCP header of frame[0..len), parsed by pkt_parse() into m.
 * Returns PKT_TCP_OK, *t filled, or an enum pkt_tcp_err, *t zeroed.
 */
int pkt_tcp_read(const uint8_t *frame, uint32_t len, const struct pkt_meta *m,
		 struct pkt_tcp *t);

/* Short name of a reason ("ok", "not_tcp", ...); "?" out of range. */
const char *pkt_tcp_err_name(int reason);

/* The sequence number after the segment: SYN and FIN take one each. */
static inline uint32_t pkt_tcp_end_seq(const struct pkt_tcp *t)
{
	return t->seq + t->payload_len + !!(t->flags & PKT_TCP_SYN) +
	       !!(t->flags & PKT_TCP_FIN);
}

/* Sequence space arithmetic mod 2^32 (RFC 1982): a before b. */
static inline bool tcp_seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

#endif

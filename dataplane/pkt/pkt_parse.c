// SPDX-License-Identifier: BSD-2-Clause
/*
 * pkt_parse.c - Ethernet / VLAN / IPv4 / IPv6 (+ extension headers) /
 * TCP / UDP / RoCEv2 BTH parser.
 *
 * Bounds discipline: every read of frame[i .. i+n) is preceded by a check
 * i + n <= limit, where limit is len for the Ethernet and IP headers and
 * the end of the IP datagram (itself checked <= len) for what follows the
 * IP header. Offsets are uint32_t and at most len + 2048 (one extension
 * header past a valid offset), so the sums cannot wrap.
 *
 * pkt_parse_head() (multi-buffer chains): the lengths (IPv4 total length,
 * IPv6 payload length) are checked against the packet's length, every
 * read against `head`, the bytes of the first frame -- the limit for what
 * follows the IP header is min(datagram end, head). The L4 length fields
 * (UDP length, TCP data offset) are checked against the datagram end, as
 * in pkt_parse(): a lie is a property of the packet, not of its buffers,
 * so both functions give the same verdict on it.
 */
#include <netinet/in.h>
#include <string.h>
#include "bits.h"
#include "pkt_parse.h"

_Static_assert(sizeof(struct pkt_meta) == 64, "pkt_meta layout");

static inline uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t rd24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline int is_vlan_tpid(uint32_t et)
{
	return (et == ETHERTYPE_VLAN) | (et == ETHERTYPE_QINQ);
}

/*
 * The upper-layer header at frame[off .. dend): ports and BTH. dend is the
 * end of the datagram (checked <= len by the caller), of which only
 * frame[off .. MIN(dend, head)) may be read. partial: a first fragment
 * (more fragments follow), whose L4 bytes continue in later fragments.
 *
 * Length fields are checked against the datagram's L4 bytes, not the
 * readable head (a property of the packet, whatever buffer holds it):
 *   - UDP: length < 8, or past the L4 bytes (unless partial) is a lie.
 *     Fewer than the L4 bytes is fine (trailing bytes after the UDP
 *     datagram). Length 0 is a lie too: RFC 2675 allows it only in a
 *     jumbogram (payload > 65535), which an IPv6 payload length <= 65535
 *     is not (a real jumbogram has payload length 0 and its hop-by-hop
 *     option is reported exthdr_truncated). The BTH is read only where
 *     the UDP length says it is (else bth_truncated).
 *   - TCP: data offset < 5, or data offset x 4 past the L4 bytes (unless
 *     partial). The options are never read, so they need not be in head.
 */
static int parse_l4(const uint8_t *frame, uint32_t off, uint32_t dend,
		    uint32_t head, uint32_t partial, struct pkt_meta *m)
{
	const uint8_t *p = frame + off;
	uint32_t rd = MIN(dend, head); /* what may be read */
	uint32_t lend = partial ? UINT32_MAX : dend; /* where lengths end */

	m->l4_off = (uint16_t)off;
	if (m->proto == IPPROTO_UDP) {
		uint32_t ulen;

		if (unlikely(off + 8 > rd))
			return PKT_MALFORMED_UDP_TRUNCATED;
		m->sport = (uint16_t)rd16(p);
		m->dport = (uint16_t)rd16(p + 2);
		m->flags |= PKT_F_PORTS;
		ulen = rd16(p + 4);
		if (unlikely((ulen < 8) | (off + ulen > lend)))
			return PKT_MALFORMED_UDP_BAD_LEN;
		if (m->dport != ROCEV2_UDP_PORT)
			return PKT_OK;
		if (unlikely((ulen < 8 + BTH_LEN) | (off + 8 + BTH_LEN > rd)))
			return PKT_MALFORMED_BTH_TRUNCATED;
		m->bth_opcode = p[8];
		m->bth_dqpn = rd24(p + 8 + 5);
		m->bth_psn = rd24(p + 8 + 9);
		m->bth_flags = (uint8_t)((p[8 + 4] >> 6 & 1) * PKT_BTH_BECN |
					 (p[8 + 4] >> 7) * PKT_BTH_FECN |
					 (p[8 + 8] >> 7) * PKT_BTH_ACKREQ);
		m->flags |= PKT_F_BTH;
		return PKT_OK;
	}
	if (m->proto == IPPROTO_TCP) {
		uint32_t thlen;

		if (unlikely(off + 20 > rd))
			return PKT_MALFORMED_TCP_TRUNCATED;
		m->sport = (uint16_t)rd16(p);
		m->dport = (uint16_t)rd16(p + 2);
		m->flags |= PKT_F_PORTS;
		thlen = (uint32_t)(p[12] >> 4) << 2;
		if (unlikely((thlen < 20) | (off + thlen > lend)))
			return PKT_MALFORMED_TCP_BAD_DOFF;
	}
	return PKT_OK;
}

static inline int parse_ipv4(const uint8_t *frame, uint32_t off, uint32_t head,
			     uint32_t len, struct pkt_meta *m)
{
	const uint8_t *b = frame + off;
	uint32_t hlen, tot, frag;

	if (unlikely(off + 20 > head))
		return PKT_MALFORMED_IPV4_TRUNCATED;
	if (unlikely((b[0] >> 4) != 4))
		return PKT_MALFORMED_IPV4_VERSION;
	hlen = (uint32_t)(b[0] & 0x0f) << 2;
	if (unlikely(hlen < 20 || off + hlen > head))
		return PKT_MALFORMED_IPV4_BAD_IHL;
	tot = rd16(b + 2);
	if (unlikely(tot < hlen || off + tot > len))
		return PKT_MALFORMED_IPV4_BAD_TOTLEN;
	m->l3 = PKT_L3_IPV4;
	m->flags |= PKT_F_IP | PKT_F_IPV4;
	m->dscp = b[1] >> 2;
	m->ecn = b[1] & 3;
	m->proto = b[9];
	memcpy(m->src, b + 12, 4);
	memcpy(m->dst, b + 16, 4);
	frag = rd16(b + 6);
	if (unlikely(frag & 0x3fff)) { /* MF or an offset */
		m->flags |= PKT_F_FRAG;
		if (frag & 0x1fff) /* not the first: no upper-layer header */
			return PKT_OK;
	}
	/* offset 0 here: MF says whether more L4 bytes follow */
	return parse_l4(frame, off + hlen, off + tot, head, frag & 0x2000, m);
}

static inline int parse_ipv6(const uint8_t *frame, uint32_t off, uint32_t head,
			     uint32_t len, struct pkt_meta *m)
{
	const uint8_t *b = frame + off;
	uint32_t end, rd, nh, n;
	uint32_t tc, partial = 0;

	if (unlikely(off + 40 > head))
		return PKT_MALFORMED_IPV6_TRUNCATED;
	if (unlikely((b[0] >> 4) != 6))
		return PKT_MALFORMED_IPV6_VERSION;
	end = off + 40 + rd16(b + 4);
	if (unlikely(end > len))
		return PKT_MALFORMED_IPV6_BAD_PLEN;
	rd = MIN(end, head); /* what may be read */
	m->l3 = PKT_L3_IPV6;
	m->flags |= PKT_F_IP | PKT_F_IPV6;
	tc = (rd16(b) >> 4) & 0xff;
	m->dscp = (uint8_t)(tc >> 2);
	m->ecn = tc & 3;
	memcpy(m->src, b + 8, 16);
	memcpy(m->dst, b + 24, 16);
	nh = b[6];
	off += 40;

	/* Extension headers: all have next header in byte 0 and are at least
	 * 8 bytes long; the length is in byte 1 (in 8-byte units not counting
	 * the first 8, or in 4-byte units not counting the first 8 for AH).
	 * The fragment header is 8 bytes. */
	for (n = 0;; n++) {
		const uint8_t *p = frame + off;
		uint32_t hlen;

		switch (nh) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
		case IPPROTO_FRAGMENT:
		case IPPROTO_AH:
			break;
		default:
			m->proto = (uint8_t)nh;
			return parse_l4(frame, off, end, head, partial, m);
		}
		if (unlikely(n == PKT_MAX_EXTHDR))
			return PKT_MALFORMED_EXTHDR_TOO_LONG;
		if (unlikely(off + 8 > rd))
			return PKT_MALFORMED_EXTHDR_TRUNCATED;
		if (nh == IPPROTO_FRAGMENT) {
			m->flags |= PKT_F_FRAG;
			if (rd16(p + 2) & 0xfff8) { /* offset: not the first */
				m->proto = p[0];
				return PKT_OK;
			}
			partial = p[3] & 1; /* M: more fragments follow */
			hlen = 8;
		} else if (nh == IPPROTO_AH) {
			hlen = ((uint32_t)p[1] + 2) << 2;
		} else {
			hlen = ((uint32_t)p[1] + 1) << 3;
		}
		if (unlikely(off + hlen > rd))
			return PKT_MALFORMED_EXTHDR_TRUNCATED;
		nh = p[0];
		off += hlen;
	}
}

static __attribute__((always_inline)) inline int
parse(const uint8_t *frame, uint32_t head, uint32_t len, struct pkt_meta *m)
{
	uint32_t off = ETH_HLEN_MIN, et;

	*m = (struct pkt_meta){0};
	if (unlikely(head < ETH_HLEN_MIN))
		return PKT_MALFORMED_RUNT;
	et = rd16(frame + 12);
	if (is_vlan_tpid(et)) {
		uint32_t tci;

		if (unlikely(off + 4 > head))
			return PKT_MALFORMED_VLAN_TRUNCATED;
		tci = rd16(frame + off);
		m->vlan_id = tci & 0x0fff;
		m->pcp = (uint8_t)(tci >> 13);
		m->n_vlan = 1;
		m->flags |= PKT_F_VLAN;
		et = rd16(frame + off + 2);
		off += 4;
		if (is_vlan_tpid(et)) {
			if (unlikely(off + 4 > head))
				return PKT_MALFORMED_VLAN_TRUNCATED;
			m->n_vlan = 2;
			m->flags |= PKT_F_QINQ;
			et = rd16(frame + off + 2);
			off += 4;
		}
	}
	m->ethertype = (uint16_t)et;
	m->l3_off = (uint16_t)off;
	if (likely(et == ETHERTYPE_IPV4))
		return parse_ipv4(frame, off, head, len, m);
	if (et == ETHERTYPE_IPV6)
		return parse_ipv6(frame, off, head, len, m);
	return PKT_OK;
}

int pkt_parse(const uint8_t *frame, uint32_t len, struct pkt_meta *m)
{
	return parse(frame, len, len, m);
}

int pkt_parse_head(const uint8_t *frame, uint32_t head, uint32_t len,
		   struct pkt_meta *m)
{
	return parse(frame, MIN(head, len), len, m);
}

static const char *const malformed_names[PKT_MALFORMED_MAX] = {
	[PKT_OK] = "ok",
	[PKT_MALFORMED_RUNT] = "runt",
	[PKT_MALFORMED_VLAN_TRUNCATED] = "vlan_truncated",
	[PKT_MALFORMED_IPV4_TRUNCATED] = "ipv4_truncated",
	[PKT_MALFORMED_IPV4_VERSION] = "ipv4_version",
	[PKT_MALFORMED_IPV4_BAD_IHL] = "ipv4_bad_ihl",
	[PKT_MALFORMED_IPV4_BAD_TOTLEN] = "ipv4_bad_totlen",
	[PKT_MALFORMED_IPV6_TRUNCATED] = "ipv6_truncated",
	[PKT_MALFORMED_IPV6_VERSION] = "ipv6_version",
	[PKT_MALFORMED_IPV6_BAD_PLEN] = "ipv6_bad_plen",
	[PKT_MALFORMED_EXTHDR_TRUNCATED] = "exthdr_truncated",
	[PKT_MALFORMED_EXTHDR_TOO_LONG] = "exthdr_too_long",
	[PKT_MALFORMED_TCP_TRUNCATED] = "tcp_truncated",
	[PKT_MALFORMED_UDP_TRUNCATED] = "udp_truncated",
	[PKT_MALFORMED_BTH_TRUNCATED] = "bth_truncated",
	[PKT_MALFORMED_UDP_BAD_LEN] = "udp_bad_len",
	[PKT_MALFORMED_TCP_BAD_DOFF] = "tcp_bad_doff",
};

const char *pkt_malformed_name(int reason)
{
	if (reason < 0 || reason >= PKT_MALFORMED_MAX)
		return "?";
	return malformed_names[reason];
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * roce.c - RoCEv2 wire formats: BTH writer, ICRC compute / check, CNP
 * builder. See roce.h for the formats and the contract.
 *
 * Bounds discipline: the ICRC reads l3[0 .. l3_len) only, after checking
 * that the IP header, the UDP header and the BTH fit in it; the masked
 * copy of those headers lives in a fixed local buffer sized for the
 * largest IPv4 header (60 bytes). roce_icrc_check() derives every offset
 * from pkt_meta and re-checks it against len before use, so a pkt_meta
 * that does not belong to the frame cannot make it read outside.
 */
#include <netinet/in.h>
#include <string.h>
#include <zlib.h>
#include "bits.h"
#include "roce.h"

#define IPV4_HLEN_MAX 60
#define IPV6_HLEN 40
#define UDP_HLEN 8
#define IP_DATAGRAM_MAX (65535 + IPV6_HLEN) /* IPv6: payload + header */

static inline uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static inline void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wr24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	wr16(p + 1, v);
}

static inline void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, v >> 16);
	wr16(p + 2, v);
}

void bth_write(uint8_t *p, uint8_t opcode, uint16_t pkey, uint32_t dqpn,
	       uint32_t psn, unsigned int flags)
{
	p[0] = opcode;
	p[1] = (flags & BTH_W_MIGREQ) ? 0x40 : 0;
	wr16(p + 2, pkey);
	p[4] = (flags & BTH_W_BECN) ? 0x40 : 0;
	wr24(p + 5, dqpn & ROCE_QPN_MASK);
	p[8] = (flags & BTH_W_ACKREQ) ? 0x80 : 0;
	wr24(p + 9, psn & ROCE_PSN_MASK);
}

/* ---- ICRC ---- */

static const uint8_t lrh_ones[8] = {0xff, 0xff, 0xff, 0xff,
				    0xff, 0xff, 0xff, 0xff};

bool roce_icrc(const uint8_t *l3, size_t l3_len, int family, uint32_t *icrc)
{
	uint8_t hdr[IPV4_HLEN_MAX + UDP_HLEN + BTH_LEN];
	size_t hlen, fixed;
	uLong crc;

	if (family == 4) {
		if (l3_len < 20 || (l3[0] >> 4) != 4 || l3[9] != IPPROTO_UDP)
			return false;
		hlen = (size_t)(l3[0] & 0x0f) << 2;
		if (hlen < 20)
			return false;
	} else if (family == 6) {
		if (l3_len < IPV6_HLEN || (l3[0] >> 4) != 6 ||
		    l3[6] != IPPROTO_UDP)
			return false;
		hlen = IPV6_HLEN;
	} else {
		return false;
	}
	fixed = hlen + UDP_HLEN + BTH_LEN;
	if (l3_len < fixed || l3_len > IP_DATAGRAM_MAX)
		return false;

	memcpy(hdr, l3, fixed);
	if (family == 4) {
		hdr[1] = 0xff; /* TOS */
		hdr[8] = 0xff; /* TTL */
		hdr[10] = 0xff; /* header checksum */
		hdr[11] = 0xff;
	} else {
		hdr[0] |= 0x0f; /* traffic class, flow label */
		hdr[1] = 0xff;
		hdr[2] = 0xff;
		hdr[3] = 0xff;
		hdr[7] = 0xff; /* hop limit */
	}
	hdr[hlen + 6] = 0xff; /* UDP checksum */
	hdr[hlen + 7] = 0xff;
	hdr[hlen + UDP_HLEN + 4] = 0xff; /* BTH FECN, BECN, reserved */

	crc = crc32(0L, lrh_ones, sizeof(lrh_ones));
	crc = crc32(crc, hdr, (uInt)fixed);
	crc = crc32(crc, l3 + fixed, (uInt)(l3_len - fixed));
	*icrc = (uint32_t)crc;
	return true;
}

bool roce_icrc_check(const uint8_t *frame, uint32_t len,
		     const struct pkt_meta *m)
{
	uint32_t l3 = m->l3_off, l4 = m->l4_off, ip_end, udp_len, end, crc;
	int family;

	if ((m->flags & (PKT_F_BTH | PKT_F_FRAG)) != PKT_F_BTH ||
	    l4 < l3 + 20 || (uint64_t)l4 + UDP_HLEN > len)
		return false;
	if (m->l3 == PKT_L3_IPV4) {
		family = 4;
		ip_end = l3 + rd16(frame + l3 + 2);
		if (l4 != l3 + ((uint32_t)(frame[l3] & 0x0f) << 2))
			return false;
	} else if (m->l3 == PKT_L3_IPV6) {
		family = 6;
		if (l4 != l3 + IPV6_HLEN) /* extension headers */
			return false;
		ip_end = l4 + rd16(frame + l3 + 4);
	} else {
		return false;
	}
	udp_len = rd16(frame + l4 + 4);
	if (ip_end > len || udp_len < UDP_HLEN + BTH_LEN + ROCE_ICRC_LEN ||
	    l4 + udp_len > ip_end)
		return false;
	end = l4 + udp_len - ROCE_ICRC_LEN;
	if (!roce_icrc(frame + l3, end - l3, family, &crc))
		return false;
	return crc == roce_icrc_get(frame + end);
}

bool roce_icrc_valid(const uint8_t *frame, size_t len)
{
	struct pkt_meta m;

	if (len > UINT32_MAX || pkt_parse(frame, (uint32_t)len, &m) != PKT_OK)
		return false;
	return roce_icrc_check(frame, (uint32_t)len, &m);
}

/* ---- CNP ---- */

void roce_cnp_spec_default(struct cnp_spec *s)
{
	*s = (struct cnp_spec){
		.pcp = ROCE_CNP_PCP_DEFAULT,
		.family = 4,
		.dscp = ROCE_CNP_DSCP_DEFAULT,
		.ecn = ROCE_CNP_ECN_DEFAULT,
		.ttl = ROCE_CNP_TTL_DEFAULT,
		.udp_sport = ROCE_CNP_SPORT_DEFAULT,
	};
}

/* One's complement sum of n bytes (n even) added to sum, not folded. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i += 2)
		sum += rd16(p + i);
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

size_t roce_build_cnp(uint8_t *frame, size_t cap, const struct cnp_spec *s)
{
	const bool v6 = s->family == 6;
	const size_t l2 = s->vlan ? 18 : 14;
	const size_t l3_len = v6 ? IPV6_HLEN : 20;
	const size_t n = l2 + l3_len + ROCE_CNP_L4_LEN;
	const uint32_t tos = (uint32_t)s->dscp << 2 | s->ecn;
	uint8_t *ip = frame + l2, *udp = ip + l3_len, *bth = udp + UDP_HLEN;
	uint32_t crc = 0;

	if (unlikely((s->family != 4 && !v6) || s->vid > 0x0fff || s->pcp > 7 ||
		     s->dscp > 63 || s->ecn > 3 || s->flow_label > 0xfffff ||
		     s->dest_qpn > ROCE_QPN_MASK || cap < n))
		return 0;

	memcpy(frame, s->dst_mac, 6);
	memcpy(frame + 6, s->src_mac, 6);
	if (s->vlan) {
		wr16(frame + 12, ETHERTYPE_VLAN);
		wr16(frame + 14, (uint32_t)s->pcp << 13 | s->vid);
	}
	wr16(frame + l2 - 2, v6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4);

	if (v6) {
		wr32(ip, 6u << 28 | tos << 20 | s->flow_label);
		wr16(ip + 4, ROCE_CNP_L4_LEN);
		ip[6] = IPPROTO_UDP;
		ip[7] = s->ttl;
		memcpy(ip + 8, s->src_ip, 16);
		memcpy(ip + 24, s->dst_ip, 16);
	} else {
		ip[0] = 0x45;
		ip[1] = (uint8_t)tos;
		wr16(ip + 2, 20 + ROCE_CNP_L4_LEN);
		wr16(ip + 4, s->ip_id);
		wr16(ip + 6, 0x4000); /* DF */
		ip[8] = s->ttl;
		ip[9] = IPPROTO_UDP;
		wr16(ip + 10, 0);
		memcpy(ip + 12, s->src_ip, 4);
		memcpy(ip + 16, s->dst_ip, 4);
		wr16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	}

	wr16(udp, s->udp_sport);
	wr16(udp + 2, ROCEV2_UDP_PORT);
	wr16(udp + 4, ROCE_CNP_L4_LEN);
	wr16(udp + 6, 0);
	bth_write(bth, BTH_OP_CNP, ROCE_PKEY_DEFAULT, s->dest_qpn, 0,
		  BTH_W_BECN);
	memset(bth + BTH_LEN, 0, ROCE_CNP_PAD_LEN);
	/* Cannot fail: the headers were just written to fit. */
	roce_icrc(ip, l3_len + ROCE_CNP_L4_LEN - ROCE_ICRC_LEN, s->family,
		  &crc);
	roce_icrc_put(bth + BTH_LEN + ROCE_CNP_PAD_LEN, crc);

	if (v6) {
		/* Pseudo header: addresses, upper-layer length, next header;
		 * then the UDP header and payload (the ICRC included). */
		uint32_t sum = csum_add(0, ip + 8, 32);
		uint16_t c;

		sum += ROCE_CNP_L4_LEN + IPPROTO_UDP;
		sum = csum_add(sum, udp, ROCE_CNP_L4_LEN);
		c = csum_fold(sum);
		wr16(udp + 6, c ? c : 0xffff);
	}
	return n;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * l4_csum.c - see l4_csum.h.
 *
 * Sums are kept in "memory order": 16-bit words loaded as they lie in
 * memory (the Internet checksum is byte-order independent, RFC 1071 2(B)),
 * so that a folded sum is stored back with memcpy as it is, whatever the
 * host's byte order. Numbers that are not in the packet (the protocol and
 * length of the pseudo-header) are laid out in network order in a small
 * buffer and summed like packet bytes.
 *
 * Bounds discipline: every read of seg[0].data[i .. i+n) is preceded by a
 * check i + n <= head (the first buffer's length), and the L4 range is
 * checked against the packet's total length before it is summed buffer by
 * buffer (each buffer read only inside its own length). Offsets are below
 * 2^17 (an IP datagram's end within 65535 + 40 + 8 + 22 bytes), so sums
 * of offsets cannot wrap.
 */
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>
#include "bits.h"
#include "l4_csum.h"

#define TCP_CSUM_OFF 16
#define UDP_CSUM_OFF 6
#define IPV6_HLEN 40

static inline uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static inline uint16_t swab16(uint16_t v)
{
	return (uint16_t)(v << 8 | v >> 8);
}

static inline uint16_t fold(uint64_t s)
{
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Does the checksum field hold the folded pseudo-header sum p (Linux's
 * CHECKSUM_PARTIAL), or its complement? */
static inline bool looks_partial(uint16_t field, uint16_t p)
{
	uint16_t np = (uint16_t)~p;

	return field == p || field == np;
}

/* The unfolded sum of p[0..n) as memory-order 16-bit words; an odd last
 * byte is the first byte of a word whose second is zero. Below 2^48 for
 * any n < 2^32 / 4. */
static uint64_t sum_block(const uint8_t *p, uint32_t n)
{
	uint64_t s = 0, w0, w1, w2, w3;
	uint32_t w32;
	uint16_t w16;
	uint8_t last[2];

	while (n >= 32) {
		memcpy(&w0, p, 8);
		memcpy(&w1, p + 8, 8);
		memcpy(&w2, p + 16, 8);
		memcpy(&w3, p + 24, 8);
		s += (w0 & 0xffffffffu) + (w0 >> 32) + (w1 & 0xffffffffu) +
		     (w1 >> 32) + (w2 & 0xffffffffu) + (w2 >> 32) +
		     (w3 & 0xffffffffu) + (w3 >> 32);
		p += 32;
		n -= 32;
	}
	while (n >= 8) {
		memcpy(&w0, p, 8);
		s += (w0 & 0xffffffffu) + (w0 >> 32);
		p += 8;
		n -= 8;
	}
	if (n >= 4) {
		memcpy(&w32, p, 4);
		s += w32;
		p += 4;
		n -= 4;
	}
	if (n >= 2) {
		memcpy(&w16, p, 2);
		s += w16;
		p += 2;
		n -= 2;
	}
	if (n) {
		last[0] = p[0];
		last[1] = 0;
		memcpy(&w16, last, 2);
		s += w16;
	}
	return s;
}

/* The sum of the packet's bytes [from, to), which the caller checked lie
 * within the buffers' total. A buffer's part that starts at an odd
 * distance from `from` has its words' bytes the other way round: its
 * folded sum is swapped (RFC 1071 2(B)). */
static uint64_t sum_range(const struct l4_csum_seg *seg, uint32_t n,
			  uint32_t from, uint32_t to)
{
	uint64_t s = 0, pos = 0, a, b;
	uint16_t part;

	for (uint32_t i = 0; i < n && pos < to; i++) {
		a = MAX(pos, (uint64_t)from);
		b = MIN(pos + seg[i].len, (uint64_t)to);
		pos += seg[i].len;
		if (a >= b)
			continue;
		part = fold(sum_block(seg[i].data + (a - (pos - seg[i].len)),
				      (uint32_t)(b - a)));
		s += (a - from) & 1 ? swab16(part) : part;
	}
	return s;
}

/* What the IP header says about the L4 segment. */
struct l4_span {
	uint32_t dend; /* the datagram's end (offset in the packet) */
	uint64_t pseudo; /* addresses of the pseudo-header, unfolded */
	bool first_frag; /* a first fragment: more follow */
	bool routed; /* IPv6 routing header with segments left */
};

/* IPv4 at l3, L4 at l4 in f[0..head) of a packet of total bytes. */
static int span_ipv4(const uint8_t *f, uint32_t head, uint64_t total,
		     uint32_t l3, uint32_t l4, uint8_t proto,
		     struct l4_span *sp)
{
	uint32_t ihl, tot, frag;

	if (l3 + 20 > head || (f[l3] >> 4) != 4)
		return L4_CSUM_INVALID;
	ihl = (uint32_t)(f[l3] & 15) << 2;
	tot = rd16(f + l3 + 2);
	if (ihl < 20 || l4 != l3 + ihl || l4 > head || tot < ihl ||
	    l3 + tot > total || f[l3 + 9] != proto)
		return L4_CSUM_INVALID;
	frag = rd16(f + l3 + 6);
	if (frag & 0x1fff) /* not the first fragment: no L4 header */
		return L4_CSUM_SKIP;
	sp->first_frag = (frag & 0x2000) != 0;
	sp->dend = l3 + tot;
	sp->pseudo = sum_block(f + l3 + 12, 8);
	return -1;
}

/* IPv6 at l3, L4 at l4: the extension headers between them walked as
 * pkt_parse() does, at most PKT_MAX_EXTHDR of them. */
static int span_ipv6(const uint8_t *f, uint32_t head, uint64_t total,
		     uint32_t l3, uint32_t l4, uint8_t proto,
		     struct l4_span *sp)
{
	uint32_t off = l3 + IPV6_HLEN, nh, hlen;
	const uint8_t *p;

	if (off > head || (f[l3] >> 4) != 6)
		return L4_CSUM_INVALID;
	sp->dend = off + rd16(f + l3 + 4);
	if (sp->dend > total || l4 < off || l4 > head)
		return L4_CSUM_INVALID;
	nh = f[l3 + 6];
	for (uint32_t n = 0; off < l4; n++) {
		p = f + off;
		if (n == PKT_MAX_EXTHDR || off + 8 > l4)
			return L4_CSUM_INVALID;
		switch (nh) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_DSTOPTS:
			hlen = ((uint32_t)p[1] + 1) << 3;
			break;
		case IPPROTO_ROUTING:
			hlen = ((uint32_t)p[1] + 1) << 3;
			sp->routed |= p[3] != 0; /* segments left */
			break;
		case IPPROTO_AH:
			hlen = ((uint32_t)p[1] + 2) << 2;
			break;
		case IPPROTO_FRAGMENT:
			if (rd16(p + 2) & 0xfff8) /* not the first */
				return L4_CSUM_SKIP;
			sp->first_frag |= p[3] & 1;
			hlen = 8;
			break;
		default:
			return L4_CSUM_INVALID;
		}
		nh = p[0];
		off += hlen;
	}
	if (off != l4 || nh != proto || l4 > sp->dend)
		return L4_CSUM_INVALID;
	sp->pseudo = sum_block(f + l3 + 8, 32);
	return -1;
}

int l4_csum_fix_segs(const struct l4_csum_seg *seg, uint32_t n,
		     const struct pkt_meta *m)
{
	uint32_t l3 = m->l3_off, l4 = m->l4_off, head, coff, l4len;
	struct l4_span sp = {0};
	uint16_t field, p, fresh;
	uint8_t ph[4];
	uint64_t total = 0, s;
	uint8_t *f;
	int r;

	if (!(m->flags & PKT_F_PORTS) ||
	    (m->proto != IPPROTO_TCP && m->proto != IPPROTO_UDP))
		return L4_CSUM_SKIP;
	if (!n || !seg || !seg[0].data || !l4)
		return L4_CSUM_INVALID;
	for (uint32_t i = 0; i < n; i++)
		total += seg[i].len;
	f = seg[0].data;
	head = seg[0].len;
	if (m->l3 == PKT_L3_IPV4)
		r = span_ipv4(f, head, total, l3, l4, m->proto, &sp);
	else if (m->l3 == PKT_L3_IPV6)
		r = span_ipv6(f, head, total, l3, l4, m->proto, &sp);
	else
		r = L4_CSUM_INVALID;
	if (r >= 0)
		return r;

	/* The L4 header: its checksum field in the first buffer; a UDP
	 * checksum covers the UDP length, a TCP one the datagram's rest. */
	if (m->proto == IPPROTO_TCP) {
		coff = l4 + TCP_CSUM_OFF;
		if (l4 + 20 > sp.dend || coff + 2 > head)
			return L4_CSUM_INVALID;
		l4len = sp.dend - l4;
	} else {
		coff = l4 + UDP_CSUM_OFF;
		if (l4 + 8 > sp.dend || coff + 2 > head)
			return L4_CSUM_INVALID;
		l4len = rd16(f + l4 + 4);
		if (l4len < 8 || (!sp.first_frag && l4 + l4len > sp.dend))
			return L4_CSUM_INVALID;
	}
	memcpy(&field, f + coff, 2);
	if (m->proto == IPPROTO_UDP && !field)
		return L4_CSUM_SKIP; /* no checksum */

	/* The pseudo-header: addresses, zero, protocol, L4 length (IPv6: a
	 * 32-bit length and 24 zero bits, the same sum) */
	ph[0] = 0;
	ph[1] = m->proto;
	ph[2] = (uint8_t)(l4len >> 8);
	ph[3] = (uint8_t)l4len;
	p = fold(sp.pseudo + sum_block(ph, 4));
	if (sp.routed) /* the final destination is not in the header */
		return L4_CSUM_NOT_COMPLETED;
	if (sp.first_frag) /* the rest of the segment is elsewhere */
		return looks_partial(field, p) ? L4_CSUM_NOT_COMPLETED
					       : L4_CSUM_SKIP;

	s = p + sum_range(seg, n, l4, l4 + l4len);
	if (fold(s) == 0xffff)
		return L4_CSUM_VALID;
	if (!looks_partial(field, p))
		return L4_CSUM_BAD;
	/* The sum with the field's word taken out, the pseudo-header's
	 * put in: the segment's checksum. */
	fresh = (uint16_t)~fold(s + (uint16_t)~field);
	if (m->proto == IPPROTO_UDP && !fresh)
		fresh = 0xffff;
	memcpy(f + coff, &fresh, 2);
	return L4_CSUM_COMPLETED;
}

int l4_csum_fix(uint8_t *frame, uint32_t len, const struct pkt_meta *m)
{
	struct l4_csum_seg seg = {frame, len};

	return l4_csum_fix_segs(&seg, 1, m);
}

static const char *const result_names[L4_CSUM_RESULT_MAX] = {
	[L4_CSUM_SKIP] = "skip",
	[L4_CSUM_VALID] = "valid",
	[L4_CSUM_COMPLETED] = "completed",
	[L4_CSUM_BAD] = "bad",
	[L4_CSUM_NOT_COMPLETED] = "not_completed",
	[L4_CSUM_INVALID] = "invalid",
};

const char *l4_csum_result_name(int r)
{
	if (r < 0 || r >= L4_CSUM_RESULT_MAX)
		return "?";
	return result_names[r];
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * pkt_tcp.c - see pkt_tcp.h.
 *
 * Bounds discipline: as in pkt_parse.c, every read of frame[i .. i+n) is
 * preceded by a check i + n <= limit. Here limit is len for the IP header
 * re-read, and hend = the TCP header's end (itself checked <= len and <=
 * the datagram's end) for the options. Offsets are uint32_t below
 * 65535 + 40 + 60, so no sum wraps.
 */
#include <netinet/in.h>
#include <string.h>
#include "bits.h"
#include "pkt_tcp.h"

static inline uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Walk the options in frame[off .. hend). At most 40 bytes: bounded. */
static void read_options(const uint8_t *frame, uint32_t off, uint32_t hend,
			 struct pkt_tcp *t)
{
	while (off < hend) {
		const uint8_t *p = frame + off;
		uint32_t olen;

		if (p[0] == TCPOPT_EOL)
			return;
		if (p[0] == TCPOPT_NOP) {
			off++;
			continue;
		}
		if (unlikely(off + 2 > hend))
			goto bad; /* a kind without its length byte */
		olen = p[1];
		if (unlikely(olen < 2 || off + olen > hend))
			goto bad;
		if (p[0] == TCPOPT_TIMESTAMP) {
			if (unlikely(olen != TCPOLEN_TIMESTAMP ||
				     (t->opts & PKT_TCP_O_TS)))
				goto bad;
			t->tsval = rd32(p + 2);
			t->tsecr = rd32(p + 6);
			t->opts |= PKT_TCP_O_TS;
		} else if (p[0] == TCPOPT_SACK) {
			t->opts |= PKT_TCP_O_SACK;
		}
		off += olen;
	}
	return;
bad:
	t->opts = (uint8_t)((t->opts & ~PKT_TCP_O_TS) | PKT_TCP_O_BAD);
	t->tsval = 0;
	t->tsecr = 0;
}

int pkt_tcp_read(const uint8_t *frame, uint32_t len, const struct pkt_meta *m,
		 struct pkt_tcp *t)
{
	uint32_t l3 = m->l3_off, l4 = m->l4_off, dend, hlen, hend;
	const uint8_t *p;

	memset(t, 0, sizeof(*t));
	if (m->proto != IPPROTO_TCP || !(m->flags & PKT_F_PORTS) || !l4)
		return PKT_TCP_NOT_TCP;
	if (m->flags & PKT_F_FRAG)
		return PKT_TCP_FRAGMENT;
	/* The datagram's end, from the IP header (re-read: m says where) */
	if (m->l3 == PKT_L3_IPV4) {
		if (l3 + 20 > len)
			return PKT_TCP_TRUNCATED;
		if ((frame[l3] >> 4) != 4 || l4 < l3 + 20)
			return PKT_TCP_BAD_LEN;
		dend = l3 + rd16(frame + l3 + 2);
	} else if (m->l3 == PKT_L3_IPV6) {
		if (l3 + 40 > len)
			return PKT_TCP_TRUNCATED;
		if ((frame[l3] >> 4) != 6 || l4 < l3 + 40)
			return PKT_TCP_BAD_LEN;
		dend = l3 + 40 + rd16(frame + l3 + 4);
	} else {
		return PKT_TCP_NOT_TCP;
	}
	if (l4 + TCP_HLEN_MIN > dend)
		return PKT_TCP_BAD_LEN;
	if (l4 + TCP_HLEN_MIN > len)
		return PKT_TCP_TRUNCATED;
	p = frame + l4;
	hlen = (uint32_t)(p[12] >> 4) << 2;
	hend = l4 + hlen;
	if (hlen < TCP_HLEN_MIN || hend > dend)
		return PKT_TCP_BAD_LEN;
	if (hend > len)
		return PKT_TCP_TRUNCATED;

	t->seq = rd32(p + 4);
	t->ack = rd32(p + 8);
	t->flags = p[13];
	t->window = (uint16_t)rd16(p + 14);
	t->hdr_len = (uint16_t)hlen;
	t->payload_len = dend - hend;
	read_options(frame, l4 + TCP_HLEN_MIN, hend, t);
	return PKT_TCP_OK;
}

static const char *const err_names[PKT_TCP_ERR_MAX] = {
	[PKT_TCP_OK] = "ok",
	[PKT_TCP_NOT_TCP] = "not_tcp",
	[PKT_TCP_FRAGMENT] = "fragment",
	[PKT_TCP_BAD_LEN] = "bad_len",
	[PKT_TCP_TRUNCATED] = "truncated",
};

const char *pkt_tcp_err_name(int reason)
{
	if (reason < 0 || reason >= PKT_TCP_ERR_MAX)
		return "?";
	return err_names[reason];
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_parse_l4.c - pkt_parse() on the L4 length fields (UDP length, TCP
 * data offset) against the datagram for IPv4 / IPv6, fragments and
 * pkt_parse_head() with every head, and the L4 bits the RX task packs for
 * the egress side (frame_meta.h).
 */
#include "test_parse.h"

/* ---- L4 length fields: UDP length, TCP data offset ---- */

enum { NOFRAG, FIRST_FRAG, ATOMIC_FRAG /* IPv6: offset 0, M 0 */ };

/*
 * Ethernet | IPv4 or IPv6 (+ a fragment header, offset 0, for IPv6
 * fragments; MF for an IPv4 first fragment) | UDP or TCP header whose
 * length field (UDP length / TCP data offset) is `field`, l4 bytes of L4
 * in all (header included) | pad bytes of Ethernet padding, outside the
 * datagram. Returns the L4 offset.
 */
static uint32_t l4_frame(struct fb *f, int v6, int frag, uint32_t proto,
			 uint32_t dport, uint32_t field, uint32_t l4,
			 uint32_t pad)
{
	uint32_t ip, l4_off, hdr = proto == IPPROTO_TCP ? 20 : 8;

	assert_true(l4 >= hdr);
	if (v6) {
		eth(f, 0, NULL, ETHERTYPE_IPV6);
		ip = ipv6(f, 0, frag ? IPPROTO_FRAGMENT : proto, "2001:db8::1",
			  "2001:db8::2");
		if (frag)
			frag6(f, proto, 0, frag == FIRST_FRAG);
	} else {
		assert_true(frag != ATOMIC_FRAG);
		eth(f, 0, NULL, ETHERTYPE_IPV4);
		ip = ipv4(f, 0, proto, "10.0.0.1", "10.0.0.2", 0,
			  frag ? 0x2000 : 0x4000);
	}
	l4_off = f->n;
	if (proto == IPPROTO_TCP) {
		tcp(f, 1234, dport);
		f->b[l4_off + 12] = (uint8_t)(field << 4);
	} else {
		udp(f, 1234, dport);
		set16(f, l4_off + 4, field);
	}
	zeros(f, l4 - hdr);
	if (v6)
		ipv6_fix(f, ip);
	else
		ipv4_fix(f, ip);
	zeros(f, pad);
	return l4_off;
}

/* pkt_parse_head() on an exactly-sized copy of frame[0..head). */
static int parse_head_n(const uint8_t *frame, uint32_t head, uint32_t len,
			struct pkt_meta *m)
{
	uint8_t *copy = malloc(head ? head : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, frame, head);
	rc = pkt_parse_head(copy, head, len, m);
	free(copy);
	return rc;
}

/*
 * pkt_parse() gives want; pkt_parse_head() gives want (and the same
 * pkt_meta) for every head from the end of the bytes the parser reads
 * (UDP 8, TCP 20, UDP + BTH 20) to the frame's end -- the length fields
 * are checked against the datagram, not the head -- and the L4 header's
 * truncated reason for a head one byte short of the L4 header.
 */
static void check_l4(const char *what, int v6, const struct fb *f,
		     uint32_t l4_off, uint32_t proto, int need_bth, int want)
{
	struct pkt_meta m, mh;
	uint32_t need = proto == IPPROTO_TCP ? 20 : need_bth ? 8 + BTH_LEN : 8;
	uint32_t hdr = proto == IPPROTO_TCP ? 20 : 8;
	int rc, cut = proto == IPPROTO_TCP ? PKT_MALFORMED_TCP_TRUNCATED
					   : PKT_MALFORMED_UDP_TRUNCATED;

	rc = parse(f, &m);
	if (rc != want)
		fail_msg("%s (IPv%d): got %s, want %s", what, v6 ? 6 : 4,
			 pkt_malformed_name(rc), pkt_malformed_name(want));
	for (uint32_t head = l4_off + need; head <= f->n; head++) {
		rc = parse_head_n(f->b, head, f->n, &mh);
		if (rc != want)
			fail_msg("%s (IPv%d), head %u of %u: got %s, want %s",
				 what, v6 ? 6 : 4, head, f->n,
				 pkt_malformed_name(rc),
				 pkt_malformed_name(want));
		assert_memory_equal(&m, &mh, sizeof(m));
	}
	rc = parse_head_n(f->b, l4_off + hdr - 1, f->n, &mh);
	if (rc != cut)
		fail_msg("%s (IPv%d), L4 header cut by the head: got %s", what,
			 v6 ? 6 : 4, pkt_malformed_name(rc));
}

static void test_l4_length_fields(void **state)
{
	static const struct {
		const char *what;
		uint32_t proto, dport, field, l4, pad;
		int frag, want;
	} c[] = {
		/* UDP length against the datagram's L4 bytes */
		{"udp len == L4 bytes (8)", IPPROTO_UDP, 53, 8, 8, 0, NOFRAG,
		 PKT_OK},
		{"udp len == L4 bytes (40)", IPPROTO_UDP, 53, 40, 40, 0, NOFRAG,
		 PKT_OK},
		{"udp len < L4 bytes (trailing bytes)", IPPROTO_UDP, 53, 20, 40,
		 0, NOFRAG, PKT_OK},
		{"udp len 8 < L4 bytes", IPPROTO_UDP, 53, 8, 40, 0, NOFRAG,
		 PKT_OK},
		{"udp len == L4 bytes, Ethernet padding to 60+", IPPROTO_UDP,
		 53, 8, 8, 18, NOFRAG, PKT_OK},
		{"udp len 0 (no jumbogram)", IPPROTO_UDP, 53, 0, 40, 0, NOFRAG,
		 PKT_MALFORMED_UDP_BAD_LEN},
		{"udp len 1", IPPROTO_UDP, 53, 1, 40, 0, NOFRAG,
		 PKT_MALFORMED_UDP_BAD_LEN},
		{"udp len 7", IPPROTO_UDP, 53, 7, 8, 0, NOFRAG,
		 PKT_MALFORMED_UDP_BAD_LEN},
		{"udp len L4 bytes + 1", IPPROTO_UDP, 53, 41, 40, 0, NOFRAG,
		 PKT_MALFORMED_UDP_BAD_LEN},
		{"udp len 65535", IPPROTO_UDP, 53, 65535, 40, 0, NOFRAG,
		 PKT_MALFORMED_UDP_BAD_LEN},
		{"udp len into the Ethernet padding", IPPROTO_UDP, 53, 26, 8,
		 18, NOFRAG, PKT_MALFORMED_UDP_BAD_LEN},
		{"udp first fragment, len past this fragment", IPPROTO_UDP, 53,
		 1000, 16, 0, FIRST_FRAG, PKT_OK},
		{"udp first fragment, len 7", IPPROTO_UDP, 53, 7, 16, 0,
		 FIRST_FRAG, PKT_MALFORMED_UDP_BAD_LEN},
		/* RoCEv2: the BTH only where the UDP length says it is */
		{"bth: udp len 20 == L4 bytes", IPPROTO_UDP, ROCEV2_UDP_PORT,
		 20, 20, 0, NOFRAG, PKT_OK},
		{"bth: udp len 19 cuts the BTH", IPPROTO_UDP, ROCEV2_UDP_PORT,
		 19, 20, 0, NOFRAG, PKT_MALFORMED_BTH_TRUNCATED},
		{"bth: udp len 8, BTH bytes after it", IPPROTO_UDP,
		 ROCEV2_UDP_PORT, 8, 40, 0, NOFRAG,
		 PKT_MALFORMED_BTH_TRUNCATED},
		{"bth: udp len 21 past the datagram", IPPROTO_UDP,
		 ROCEV2_UDP_PORT, 21, 20, 0, NOFRAG, PKT_MALFORMED_UDP_BAD_LEN},
		{"bth: first fragment, udp len past it", IPPROTO_UDP,
		 ROCEV2_UDP_PORT, 1000, 24, 0, FIRST_FRAG, PKT_OK},
		/* TCP data offset */
		{"tcp doff 0", IPPROTO_TCP, 80, 0, 60, 0, NOFRAG,
		 PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp doff 1", IPPROTO_TCP, 80, 1, 20, 0, NOFRAG,
		 PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp doff 2", IPPROTO_TCP, 80, 2, 20, 0, NOFRAG,
		 PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp doff 3", IPPROTO_TCP, 80, 3, 20, 0, NOFRAG,
		 PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp doff 4", IPPROTO_TCP, 80, 4, 60, 0, NOFRAG,
		 PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp doff 5", IPPROTO_TCP, 80, 5, 20, 0, NOFRAG, PKT_OK},
		{"tcp doff 5, padding to 60+", IPPROTO_TCP, 80, 5, 20, 6,
		 NOFRAG, PKT_OK},
		{"tcp doff 6, 24 L4 bytes", IPPROTO_TCP, 80, 6, 24, 0, NOFRAG,
		 PKT_OK},
		{"tcp doff 15, 60 L4 bytes", IPPROTO_TCP, 80, 15, 60, 0, NOFRAG,
		 PKT_OK},
		{"tcp doff 15, 59 L4 bytes", IPPROTO_TCP, 80, 15, 59, 0, NOFRAG,
		 PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp doff 6, options in the Ethernet padding", IPPROTO_TCP, 80,
		 6, 20, 20, NOFRAG, PKT_MALFORMED_TCP_BAD_DOFF},
		{"tcp first fragment, doff 15, 24 L4 bytes", IPPROTO_TCP, 80,
		 15, 24, 0, FIRST_FRAG, PKT_OK},
		{"tcp first fragment, doff 4", IPPROTO_TCP, 80, 4, 24, 0,
		 FIRST_FRAG, PKT_MALFORMED_TCP_BAD_DOFF},
	};
	struct fb f;

	for (int v6 = 0; v6 <= 1; v6++) {
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			uint32_t l4_off = l4_frame(
				&f, v6, c[i].frag, c[i].proto, c[i].dport,
				c[i].field, c[i].l4, c[i].pad);
			int bth = c[i].dport == ROCEV2_UDP_PORT &&
				  c[i].want == PKT_OK;

			check_l4(c[i].what, v6, &f, l4_off, c[i].proto, bth,
				 c[i].want);
		}
	}
	/* IPv6 atomic fragment (offset 0, M 0): the whole datagram is here,
	 * so its lengths are checked like an unfragmented one's */
	check_l4("udp atomic fragment, len past it", 1, &f,
		 l4_frame(&f, 1, ATOMIC_FRAG, IPPROTO_UDP, 53, 1000, 16, 0),
		 IPPROTO_UDP, 0, PKT_MALFORMED_UDP_BAD_LEN);
	check_l4("udp atomic fragment, len == L4 bytes", 1, &f,
		 l4_frame(&f, 1, ATOMIC_FRAG, IPPROTO_UDP, 53, 16, 16, 0),
		 IPPROTO_UDP, 0, PKT_OK);
	check_l4("tcp atomic fragment, doff 15, 24 L4 bytes", 1, &f,
		 l4_frame(&f, 1, ATOMIC_FRAG, IPPROTO_TCP, 80, 15, 24, 0),
		 IPPROTO_TCP, 0, PKT_MALFORMED_TCP_BAD_DOFF);
}

/* What the RX task packs for the egress side (frame_meta.h): the L4
 * offset, and the TCP and BTH bits the path monitor picks its departures
 * by; UDP that is not RoCE and ICMP carry neither (the egress side does
 * not touch those frames). */
static void test_meta_l4_bits(void **state)
{
	struct pkt_meta m;
	struct fb f;
	uint32_t meta, off, ip;

	(void)state;
	for (int v6 = 0; v6 < 2; v6++) {
		off = l4_frame(&f, v6, 0, IPPROTO_TCP, 80, 5, 20 + 100, 0);
		assert_int_equal(parse(&f, &m), PKT_OK);
		meta = frame_meta_l4_of(&m);
		assert_true(meta & FRAME_META_TCP);
		assert_false(meta & FRAME_META_BTH);
		assert_true(frame_meta_tcp_or_bth(meta));
		assert_int_equal(
			frame_meta_l4off(meta |
					 frame_meta_pack(0, 0, 0, m.l3_off)),
			off);

		l4_frame(&f, v6, 0, IPPROTO_UDP, 5001, 8 + 100, 8 + 100, 0);
		assert_int_equal(parse(&f, &m), PKT_OK);
		meta = frame_meta_l4_of(&m);
		assert_false(meta & (FRAME_META_TCP | FRAME_META_BTH));
		assert_false(frame_meta_tcp_or_bth(meta));
		assert_int_not_equal(meta, 0); /* the offset is there */
	}
	eth(&f, 0, NULL, ETHERTYPE_IPV4); /* ICMP: an offset, neither bit */
	ip = ipv4(&f, 0, IPPROTO_ICMP, "10.0.0.1", "10.0.0.2", 0, 0x4000);
	zeros(&f, 40);
	ipv4_fix(&f, ip);
	assert_int_equal(parse(&f, &m), PKT_OK);
	assert_false(frame_meta_tcp_or_bth(frame_meta_l4_of(&m)));

	full_roce_frame(&f);
	assert_int_equal(parse(&f, &m), PKT_OK);
	meta = frame_meta_l4_of(&m);
	assert_true(meta & FRAME_META_BTH);
	assert_false(meta & FRAME_META_TCP);
	assert_true(frame_meta_tcp_or_bth(meta));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_l4_length_fields),
		cmocka_unit_test(test_meta_l4_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

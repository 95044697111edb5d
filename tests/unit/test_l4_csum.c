// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_l4_csum.c - completing partial TCP/UDP checksums
 * (dataplane/pkt/l4_csum.c) on hand-built frames: IPv4 and IPv6 (with a
 * hop-by-hop header), TCP and UDP, no tag, one and two VLAN tags, odd
 * payload lengths, Ethernet padding, a UDP length below the datagram's;
 * each as valid (untouched), partial as Linux leaves it (the folded
 * pseudo-header sum), partial complemented, and bad (untouched). Against
 * a byte-by-byte reference checksum written here. Then: UDP's 0 result
 * written 0xffff, UDP without checksum, fragments (first: cannot be
 * completed; not first: skipped), an IPv6 routing header with segments
 * left, truncated frames and offsets that do not describe the frame
 * (refused, read inside exact-size heap buffers: ASan catches a read past
 * them), multi-buffer packets split at every position (odd ones too), and
 * random frames.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "l4_csum.h"
#include "pkt_parse.h"

#define FMAX 2048

/* What a test frame carries. */
struct tb {
	int v6; /* IPv6 (else IPv4) */
	int hbh; /* IPv6: a hop-by-hop options header before L4 */
	int rh; /* IPv6: a routing header, this many segments left */
	int vlans; /* 0, 1 or 2 tags */
	int udp; /* UDP (else TCP) */
	int frag; /* 1: first fragment (MF), 2: not the first */
	uint32_t payload; /* L4 payload bytes */
	uint32_t udp_short; /* UDP length this many bytes below the L4's */
	uint32_t min_len; /* pad the frame (Ethernet padding) to this */
	uint8_t seed; /* payload bytes */
};

/* Where the builder put things. */
struct built {
	uint32_t len, l4, coff, l4len;
	uint16_t pseudo; /* folded pseudo-header sum, host order */
	uint16_t good; /* the right checksum, host order */
};

static void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/* RFC 1071, byte by byte, network order. */
static uint32_t ref_add(uint32_t s, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		s += i & 1 ? p[i] : (uint32_t)p[i] << 8;
	return s;
}

static uint16_t ref_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Build the frame into f (FMAX bytes); the checksum field holds the right
 * checksum. */
static void build(uint8_t *f, const struct tb *b, struct built *o)
{
	uint32_t off = 12, ip, l4hlen = b->udp ? 8 : 20, ext = 0, s, iplen;
	uint8_t proto = b->udp ? 17 : 6, ph[40];

	memset(f, 0, FMAX);
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	for (int i = 0; i < b->vlans; i++) {
		wr16(f + off,
		     i + 1 < b->vlans ? ETHERTYPE_QINQ : ETHERTYPE_VLAN);
		wr16(f + off + 2, 0x6000 | (42 + i));
		off += 4;
	}
	wr16(f + off, b->v6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4);
	off += 2;
	ip = off;
	iplen = l4hlen + b->payload; /* the L4 bytes of the datagram */
	o->l4len = iplen - (b->udp ? b->udp_short : 0); /* summed */
	if (b->v6) {
		ext = (b->hbh ? 8 : 0) + (b->rh ? 24 : 0);
		f[ip] = 0x60;
		wr16(f + ip + 4, ext + iplen);
		f[ip + 6] = b->hbh ? 0 : b->rh ? 43 : proto;
		f[ip + 7] = 64;
		f[ip + 8] = 0xfd;
		f[ip + 23] = 1;
		f[ip + 24] = 0xfd;
		f[ip + 39] = 2;
		off += 40;
		if (b->hbh) {
			f[off] = b->rh ? 43 : proto; /* length 0: 8 bytes */
			f[off + 2] = 1; /* PadN, 4 bytes */
			f[off + 3] = 4;
			off += 8;
		}
		if (b->rh) {
			f[off] = proto;
			f[off + 1] = 2; /* 24 bytes: type 0, one address */
			f[off + 3] = (uint8_t)b->rh; /* segments left */
			f[off + 8] = 0xfd;
			f[off + 23] = 3;
			off += 24;
		}
		memcpy(ph, f + ip + 8, 32);
		memset(ph + 32, 0, 8);
		ph[34] = (uint8_t)(o->l4len >> 8);
		ph[35] = (uint8_t)o->l4len;
		ph[39] = proto;
		s = ref_add(0, ph, 40);
	} else {
		f[ip] = 0x45;
		wr16(f + ip + 2, 20 + iplen);
		if (b->frag)
			wr16(f + ip + 6, b->frag == 1 ? 0x2000 : 0x2000 | 100);
		f[ip + 8] = 64;
		f[ip + 9] = proto;
		memcpy(f + ip + 12, "\x0a\x4d\x00\x01\x0a\x4d\x00\x02", 8);
		memcpy(ph, f + ip + 12, 8);
		ph[8] = 0;
		ph[9] = proto;
		s = 0; /* the length below, which UDP may shorten */
		s = ref_add(s, ph, 10);
		off += 20;
	}
	o->l4 = off;
	wr16(f + off, 40000);
	wr16(f + off + 2, 5201);
	if (b->udp) {
		wr16(f + off + 4, o->l4len);
		o->coff = off + 6;
	} else {
		memcpy(f + off + 4, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);
		f[off + 12] = 5 << 4;
		f[off + 13] = 0x18;
		wr16(f + off + 14, 502);
		o->coff = off + 16;
	}
	off += l4hlen;
	for (uint32_t i = 0; i < b->payload; i++)
		f[off + i] = (uint8_t)(b->seed + i * 7 + (i >> 3));
	off += iplen - l4hlen;
	if (!b->v6) /* IPv4's pseudo length (IPv6's is in ph) */
		s += o->l4len;
	o->pseudo = ref_fold(s);
	o->good = (uint16_t)~ref_fold(ref_add(s, f + o->l4, o->l4len));
	if (b->udp && !o->good)
		o->good = 0xffff;
	wr16(f + o->coff, o->good);
	o->len = off < b->min_len ? b->min_len : off;
	for (uint32_t i = off; i < o->len; i++)
		f[i] = 0x5a; /* padding, not zero: must not be summed */
}

/* A copy of f[0..len) in an exact-size heap buffer. */
static uint8_t *heap(const uint8_t *f, uint32_t len)
{
	uint8_t *h = malloc(len ? len : 1);

	assert_non_null(h);
	memcpy(h, f, len);
	return h;
}

static int fix(uint8_t *f, uint32_t len)
{
	struct pkt_meta m;
	uint8_t *h = heap(f, len);
	int r;

	assert_int_equal(pkt_parse(h, len, &m), PKT_OK);
	r = l4_csum_fix(h, len, &m);
	memcpy(f, h, len);
	free(h);
	return r;
}

/* The four states of one frame shape. */
static void check_shape(const struct tb *b)
{
	static uint8_t f[FMAX], g[FMAX];
	struct built o;
	uint16_t np, bad;

	build(f, b, &o);
	np = (uint16_t)~o.pseudo;
	memcpy(g, f, o.len);
	/* valid: untouched */
	assert_int_equal(fix(f, o.len), L4_CSUM_VALID);
	assert_memory_equal(f, g, o.len);
	/* partial, as Linux leaves it: completed to the right checksum */
	wr16(f + o.coff, o.pseudo);
	if (o.pseudo != o.good) {
		assert_int_equal(fix(f, o.len), L4_CSUM_COMPLETED);
		assert_memory_equal(f, g, o.len);
		assert_int_equal(fix(f, o.len), L4_CSUM_VALID);
	}
	/* partial, complemented */
	wr16(f + o.coff, np);
	if (np != o.good && !(b->udp && np == 0)) {
		assert_int_equal(fix(f, o.len), L4_CSUM_COMPLETED);
		assert_memory_equal(f, g, o.len);
	}
	/* bad: untouched */
	bad = (uint16_t)(o.good ^ 0x0101);
	wr16(f + o.coff, bad);
	memcpy(g, f, o.len);
	if (bad != o.pseudo && bad != np) {
		assert_int_equal(fix(f, o.len), L4_CSUM_BAD);
		assert_memory_equal(f, g, o.len);
	}
}

static void test_shapes(void **state)
{
	static const uint32_t payloads[] = {0,	1,  2,	 3,    7,
					    31, 33, 100, 1401, 1460};

	(void)state;
	for (int v6 = 0; v6 < 2; v6++)
		for (int udp = 0; udp < 2; udp++)
			for (int vlans = 0; vlans < 3; vlans++)
				for (int hbh = 0; hbh <= v6; hbh++)
					for (size_t i = 0;
					     i < sizeof(payloads) /
							 sizeof(payloads[0]);
					     i++) {
						struct tb b = {
							.v6 = v6,
							.udp = udp,
							.vlans = vlans,
							.hbh = hbh,
							.payload = payloads[i],
							.seed = (uint8_t)(i *
									  13),
						};

						check_shape(&b);
					}
}

/* A short datagram in a frame padded to 60 bytes (the padding is not
 * zero), and a UDP length below the IP payload's (trailing bytes). */
static void test_padding_trailing(void **state)
{
	struct tb pad = {.udp = 1, .payload = 3, .min_len = 60, .seed = 9};
	struct tb tpad = {.payload = 1, .min_len = 60, .seed = 3};
	struct tb trail = {.udp = 1, .payload = 40, .udp_short = 11};
	struct tb trail6 = {.v6 = 1, .udp = 1, .payload = 40, .udp_short = 5};

	(void)state;
	check_shape(&pad);
	check_shape(&tpad);
	check_shape(&trail);
	check_shape(&trail6);
}

/* UDP: no checksum (0) is skipped; a checksum that comes to 0 is written
 * 0xffff. */
static void test_udp_zero(void **state)
{
	static uint8_t f[FMAX];
	struct tb b = {.udp = 1, .payload = 20, .seed = 1};
	struct built o;
	uint32_t s;

	(void)state;
	build(f, &b, &o);
	wr16(f + o.coff, 0);
	assert_int_equal(fix(f, o.len), L4_CSUM_SKIP);
	assert_int_equal(rd16(f + o.coff), 0);
	b.v6 = 1;
	build(f, &b, &o);
	wr16(f + o.coff, 0);
	assert_int_equal(fix(f, o.len), L4_CSUM_SKIP);

	/* make the data sum 0xffff: the checksum is then 0, sent 0xffff */
	b.v6 = 0;
	build(f, &b, &o);
	wr16(f + o.coff, 0);
	wr16(f + o.l4 + 8, 0);
	s = o.pseudo + ref_fold(ref_add(0, f + o.l4, o.l4len));
	s = ref_fold(s);
	wr16(f + o.l4 + 8, (uint16_t)(0xffff - s));
	s = ref_fold(o.pseudo + ref_add(0, f + o.l4, o.l4len));
	assert_int_equal(s, 0xffff);
	wr16(f + o.coff, o.pseudo);
	assert_int_equal(fix(f, o.len), L4_CSUM_COMPLETED);
	assert_int_equal(rd16(f + o.coff), 0xffff);
	assert_int_equal(fix(f, o.len), L4_CSUM_VALID);
}

static void test_fragments(void **state)
{
	static uint8_t f[FMAX], g[FMAX];
	struct tb b = {.udp = 1, .payload = 100, .frag = 1};
	struct built o;

	(void)state;
	/* a first fragment, partial: cannot be completed, left */
	build(f, &b, &o);
	wr16(f + o.coff, o.pseudo);
	memcpy(g, f, o.len);
	assert_int_equal(fix(f, o.len), L4_CSUM_NOT_COMPLETED);
	assert_memory_equal(f, g, o.len);
	/* ...with some other checksum: not looked at */
	wr16(f + o.coff, o.good);
	assert_int_equal(fix(f, o.len), L4_CSUM_SKIP);
	/* TCP too */
	b.udp = 0;
	build(f, &b, &o);
	wr16(f + o.coff, o.pseudo);
	assert_int_equal(fix(f, o.len), L4_CSUM_NOT_COMPLETED);
	/* not the first: no L4 header */
	b.frag = 2;
	build(f, &b, &o);
	assert_int_equal(fix(f, o.len), L4_CSUM_SKIP);
}

static void test_routing_header(void **state)
{
	static uint8_t f[FMAX], g[FMAX];
	struct tb b = {.v6 = 1, .rh = 1, .payload = 50};
	struct built o;

	(void)state;
	build(f, &b, &o);
	wr16(f + o.coff, o.pseudo);
	memcpy(g, f, o.len);
	assert_int_equal(fix(f, o.len), L4_CSUM_NOT_COMPLETED);
	assert_memory_equal(f, g, o.len);
	/* no segments left: the header's destination is the final one */
	b.rh = 0;
	b.hbh = 1;
	check_shape(&b);
}

/* The frame cut short under a pkt_meta of the whole frame, and offsets
 * that do not describe the frame: refused, never read past. */
static void test_truncated_and_lies(void **state)
{
	static uint8_t f[FMAX];
	struct tb b = {.payload = 200};
	struct built o;
	struct pkt_meta m, bad;
	uint8_t *h;

	(void)state;
	for (int udp = 0; udp < 2; udp++)
		for (int v6 = 0; v6 < 2; v6++) {
			b.udp = udp;
			b.v6 = v6;
			build(f, &b, &o);
			wr16(f + o.coff, o.pseudo);
			assert_int_equal(pkt_parse(f, o.len, &m), PKT_OK);
			for (uint32_t len = 0; len < o.len; len++) {
				h = heap(f, len);
				assert_int_equal(l4_csum_fix(h, len, &m),
						 L4_CSUM_INVALID);
				free(h);
			}
			h = heap(f, o.len);
			bad = m;
			bad.l4_off += 4;
			assert_int_equal(l4_csum_fix(h, o.len, &bad),
					 L4_CSUM_INVALID);
			bad = m;
			bad.l3_off += 2;
			assert_int_equal(l4_csum_fix(h, o.len, &bad),
					 L4_CSUM_INVALID);
			bad = m;
			bad.proto = udp ? 6 : 17;
			assert_int_equal(l4_csum_fix(h, o.len, &bad),
					 L4_CSUM_INVALID);
			bad = m;
			bad.l3 = v6 ? PKT_L3_IPV4 : PKT_L3_IPV6;
			assert_int_equal(l4_csum_fix(h, o.len, &bad),
					 L4_CSUM_INVALID);
			bad = m;
			bad.flags &= (uint8_t)~PKT_F_PORTS;
			assert_int_equal(l4_csum_fix(h, o.len, &bad),
					 L4_CSUM_SKIP);
			assert_int_equal(l4_csum_fix_segs(NULL, 0, &m),
					 L4_CSUM_INVALID);
			/* what was refused was not written */
			assert_memory_equal(h, f, o.len);
			free(h);
		}
}

/* Split at every position into two buffers, and into three at odd and
 * even places: the same verdict and bytes as the linear frame. */
static void test_segments(void **state)
{
	static uint8_t f[FMAX], g[FMAX];
	struct tb b = {.payload = 999, .vlans = 1, .seed = 77};
	struct l4_csum_seg seg[3];
	struct pkt_meta m;
	struct built o;
	uint8_t *part[3];
	uint32_t cut[4];

	(void)state;
	for (int udp = 0; udp < 2; udp++) {
		b.udp = udp;
		build(f, &b, &o);
		memcpy(g, f, o.len); /* the completed frame */
		wr16(f + o.coff, o.pseudo);
		assert_int_equal(pkt_parse(f, o.len, &m), PKT_OK);
		for (uint32_t c1 = o.coff + 2; c1 <= o.len; c1 += 1) {
			uint32_t c2 = c1 + (o.len - c1) / 2 + (c1 & 1);

			if (c2 > o.len)
				c2 = o.len;
			cut[0] = 0;
			cut[1] = c1;
			cut[2] = c2;
			cut[3] = o.len;
			for (int i = 0; i < 3; i++) {
				part[i] = heap(f + cut[i], cut[i + 1] - cut[i]);
				seg[i].data = part[i];
				seg[i].len = cut[i + 1] - cut[i];
			}
			assert_int_equal(l4_csum_fix_segs(seg, 3, &m),
					 L4_CSUM_COMPLETED);
			for (int i = 0; i < 3; i++) {
				assert_memory_equal(part[i], g + cut[i],
						    seg[i].len);
			}
			assert_int_equal(l4_csum_fix_segs(seg, 3, &m),
					 L4_CSUM_VALID);
			assert_int_equal(l4_csum_fix_segs(seg, 2, &m),
					 c2 < o.len ? L4_CSUM_INVALID
						    : L4_CSUM_VALID);
			for (int i = 0; i < 3; i++)
				free(part[i]);
		}
		/* the field must be in the first buffer */
		seg[0].data = f;
		seg[0].len = o.coff + 1;
		seg[1].data = f + o.coff + 1;
		seg[1].len = o.len - o.coff - 1;
		assert_int_equal(l4_csum_fix_segs(seg, 2, &m), L4_CSUM_INVALID);
	}
}

/* Random bytes behind valid headers, and random frames: every verdict
 * is one of the results; a completed frame verifies afterwards; only the
 * checksum field is ever written. */
static void test_random(void **state)
{
	static uint8_t f[FMAX], g[FMAX];
	struct pkt_meta m;
	uint32_t seed = 12345, len;
	int r;

	(void)state;
	for (int n = 0; n < 20000; n++) {
		struct tb b;
		struct built o;

		seed = seed * 1103515245u + 12345u;
		memset(&b, 0, sizeof(b));
		b.v6 = seed >> 8 & 1;
		b.udp = seed >> 9 & 1;
		b.vlans = (int)(seed >> 10 & 3) % 3;
		b.hbh = b.v6 && (seed >> 12 & 1);
		b.payload = seed >> 16 & 1023;
		b.seed = (uint8_t)(seed >> 3);
		build(f, &b, &o);
		if (seed >> 13 & 1)
			wr16(f + o.coff,
			     seed >> 14 & 1 ? o.pseudo : (uint16_t)seed);
		len = o.len;
		if ((seed >> 15 & 7) == 0) { /* random bytes past Ethernet */
			for (uint32_t i = 14; i < len; i++)
				f[i] = (uint8_t)(seed >> (i & 15));
		}
		memcpy(g, f, len);
		if (pkt_parse(f, len, &m) != PKT_OK)
			continue;
		r = l4_csum_fix(f, len, &m);
		assert_true(r >= 0 && r < L4_CSUM_RESULT_MAX);
		if (r == L4_CSUM_COMPLETED) {
			assert_int_equal(l4_csum_fix(f, len, &m),
					 L4_CSUM_VALID);
			assert_memory_equal(f, g, m.l4_off);
		} else {
			assert_memory_equal(f, g, len);
		}
	}
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(l4_csum_result_name(L4_CSUM_COMPLETED),
			    "completed");
	assert_string_equal(l4_csum_result_name(L4_CSUM_NOT_COMPLETED),
			    "not_completed");
	assert_string_equal(l4_csum_result_name(-1), "?");
	assert_string_equal(l4_csum_result_name(L4_CSUM_RESULT_MAX), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_padding_trailing),
		cmocka_unit_test(test_udp_zero),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_routing_header),
		cmocka_unit_test(test_truncated_and_lies),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
